//! Hooks for iolab's own tests, each inert unless its variable is set
//! (documented as test knobs, not options). They exist only with the cargo
//! feature `test-hooks`, which every build with the dev-dependencies turns
//! on (`cargo test`, `cargo build --all-targets`; see Cargo.toml) and no
//! shipped build does: without it each hook is an empty function, and no
//! `IOLAB_TEST_*` variable is read or named in the binary (scripts/test
//! checks a build without it).
//!
//! Here: hold a run at a named point so a test can send a signal exactly
//! there (during the prefill, the flush that ends a write window, the store
//! transaction, each build, measurement and teardown step of `iolab
//! layouts`), keep a copy of every JSON document written
//! ([`keep_document`]), and note when named moments happen ([`mark`]).
//!
//! `IOLAB_TEST_PAUSE_AT=POINT:FILE`: the first time the run reaches POINT,
//! it creates FILE (the test waits for it) and sleeps `PAUSE`.
//!
//! The hooks of other modules, behind the same feature and named with the
//! same prefix: `IOLAB_TEST_PANIC` (`cli::panic`), `IOLAB_TEST_STALL_TIMEOUT`
//! (`io::stall`), `IOLAB_TEST_PLACEMENT` (`measure::placement`),
//! `IOLAB_TEST_CAPACITY_HOOK` (`experiment::capacity`),
//! `IOLAB_TEST_STORE_BUSY_TIMEOUT_MS` and `IOLAB_TEST_SAVE_PAUSE_MS`
//! (`store`), and `IOLAB_TEST_SELFTEST_LIMIT_SCALE` (`selftest`).
//!
//! Also, for the unit tests only, `skip_for_missing_tool`: how a unit test
//! that cannot run says why and is counted; and `proptest_config`: how many
//! cases each property test runs.

#[cfg(feature = "test-hooks")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(feature = "test-hooks")]
use std::time::Duration;

/// How long a run holds at the point.
#[cfg(feature = "test-hooks")]
pub const PAUSE: Duration = Duration::from_secs(1);
/// The points: `prefill`, `flush`, `store`; and those of `iolab layouts`
/// (`INDEX`: the configuration, from 1; `N`: the step, from 1):
/// `layouts-build-INDEX-N` (before build step N runs),
/// `layouts-measure-INDEX` (built, before the measurement),
/// `layouts-teardown-INDEX-N` (before the Nth teardown step runs) and
/// `layouts-sweep-N` (a killed run's journal unwound); `zfs-exported` (a
/// pool exported by `--allow-export`, before its import).
/// A point named by a pattern is made with `format!` at the call site.
#[cfg(feature = "test-hooks")]
pub const VAR: &str = "IOLAB_TEST_PAUSE_AT";

#[cfg(feature = "test-hooks")]
static DONE: AtomicBool = AtomicBool::new(false);

/// Hold here if the test knob names `point` (once per process).
#[cfg(feature = "test-hooks")]
pub fn pause_at(point: &str) {
    let Some(v) = std::env::var_os(VAR) else { return };
    let v = v.to_string_lossy();
    let Some((p, file)) = v.split_once(':') else { return };
    if p != point || DONE.swap(true, Ordering::SeqCst) {
        return;
    }
    let _ = std::fs::write(file, point);
    std::thread::sleep(PAUSE);
}

/// Without `test-hooks`: nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn pause_at(_point: &str) {}

/// The library's unit tests' side of the integration tests' skip mechanism
/// (`tests/integration/common/skip.rs`): a unit test that cannot run for want of
/// `tool` calls this and returns. Under `CI=true` it panics instead (scripts/test
/// installs every tool the tests use); elsewhere the skip is printed and appended
/// to `$IOLAB_TEST_SKIPS` as `TEST<tab>tool<tab>REASON`, which scripts/test lists.
#[cfg(test)]
pub(crate) fn skip_for_missing_tool(tool: &str) {
    use std::io::Write;
    let test = std::thread::current().name().unwrap_or("unnamed").to_string();
    let reason = format!("{tool} is not installed");
    let ci = std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
    assert!(
        !ci,
        "CI=true but {test} cannot run: {reason} (scripts/test installs every tool, so this is not skipped)"
    );
    eprintln!("[{test}] skipped (tool): {reason}");
    if let Some(path) = std::env::var_os("IOLAB_TEST_SKIPS").filter(|p| !p.is_empty()) {
        let line = format!("{test}\ttool\t{reason}\n");
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .unwrap_or_else(|e| panic!("cannot record the skip in {}: {e}", path.to_string_lossy()));
    }
}

/// Cases per property unless `PROPTEST_CASES` says otherwise (CI runs this).
#[cfg(test)]
pub(crate) const PROPTEST_CASES: u32 = 2000;

/// The proptest configuration of issue 16's suites: [`PROPTEST_CASES`] cases, or
/// `PROPTEST_CASES`; no regression files written into the source tree (each
/// panic found gets a named regression test instead).
#[cfg(test)]
pub(crate) fn proptest_config() -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(PROPTEST_CASES);
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}

/// `IOLAB_TEST_KEEP_DOCUMENTS=DIR`: every JSON document iolab writes (the
/// `--format json` exporter, the store's copy of a run) is also written to
/// `DIR/KIND.PID.N.json`, so that the test suite can validate each one
/// against `iolab schema KIND` (`scripts/validate-documents`).
#[cfg(feature = "test-hooks")]
pub const KEEP_DOCUMENTS: &str = "IOLAB_TEST_KEEP_DOCUMENTS";

#[cfg(feature = "test-hooks")]
static KEPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Keep a copy of `text`, a document of `kind`, if the test knob asks for it.
/// Best effort: a copy that cannot be written is left out (the validator
/// counts what it gets, and fails on a kind it never saw).
#[cfg(feature = "test-hooks")]
pub fn keep_document(kind: crate::base::document::Kind, text: &str) {
    let Some(dir) = std::env::var_os(KEEP_DOCUMENTS).filter(|d| !d.is_empty()) else {
        return;
    };
    let n = KEPT.fetch_add(1, Ordering::SeqCst);
    let dir = std::path::Path::new(&dir);
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(format!("{}.{}.{n}.json", kind.name(), std::process::id())), text);
}

/// Without `test-hooks`: nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn keep_document(_kind: crate::base::document::Kind, _text: &str) {}

/// `IOLAB_TEST_MARKS=FILE`: each [`mark`] appends a line `NAME NS` to FILE
/// (`NS`: CLOCK_MONOTONIC nanoseconds, comparable with another process's
/// clock), e.g. `buffers-free` just before a worker's I/O buffers are freed,
/// which a test compares with the moment its device answered the last read.
#[cfg(feature = "test-hooks")]
pub const MARKS: &str = "IOLAB_TEST_MARKS";

/// Note that `name` happens now, if the test knob asks for it (best effort).
#[cfg(feature = "test-hooks")]
pub fn mark(name: &str) {
    let Some(path) = std::env::var_os(MARKS).filter(|p| !p.is_empty()) else {
        return;
    };
    use std::io::Write;
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let ns = t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128;
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(format!("{name} {ns}\n").as_bytes()));
}

/// Without `test-hooks`: nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn mark(_name: &str) {}
