//! A hook for iolab's own tests: hold a run at a named point so a test can
//! send a signal exactly there (during the prefill, the flush that ends a
//! write window, the store transaction). Inert unless `IOLAB_TEST_PAUSE_AT`
//! is set, like `IOLAB_SELFTEST_LIMIT_SCALE`; documented as a test knob,
//! not an option.
//!
//! `IOLAB_TEST_PAUSE_AT=POINT:FILE`: the first time the run reaches POINT,
//! it creates FILE (the test waits for it) and sleeps [`PAUSE`].
//!
//! Also, for the unit tests only, `skip_for_missing_tool`: how a unit test
//! that cannot run says why and is counted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a run holds at the point.
pub const PAUSE: Duration = Duration::from_secs(1);
/// The points: `prefill`, `flush`, `store`.
pub const VAR: &str = "IOLAB_TEST_PAUSE_AT";

static DONE: AtomicBool = AtomicBool::new(false);

/// Hold here if the test knob names `point` (once per process).
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
