//! Hooks for iolab's own tests, each inert unless its variable is set
//! (like `IOLAB_SELFTEST_LIMIT_SCALE`; documented as test knobs, not
//! options): hold a run at a named point so a test can send a signal
//! exactly there (during the prefill, the flush that ends a write window,
//! the store transaction), and keep a copy of every JSON document written
//! ([`keep_document`]).
//!
//! `IOLAB_TEST_PAUSE_AT=POINT:FILE`: the first time the run reaches POINT,
//! it creates FILE (the test waits for it) and sleeps [`PAUSE`].

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

/// `IOLAB_TEST_KEEP_DOCUMENTS=DIR`: every JSON document iolab writes (the
/// `--format json` exporter, the store's copy of a run) is also written to
/// `DIR/KIND.PID.N.json`, so that the test suite can validate each one
/// against `iolab schema KIND` (`scripts/validate-documents`).
pub const KEEP_DOCUMENTS: &str = "IOLAB_TEST_KEEP_DOCUMENTS";

static KEPT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Keep a copy of `text`, a document of `kind`, if the test knob asks for it.
/// Best effort: a copy that cannot be written is left out (the validator
/// counts what it gets, and fails on a kind it never saw).
pub fn keep_document(kind: crate::schema::Kind, text: &str) {
    let Some(dir) = std::env::var_os(KEEP_DOCUMENTS).filter(|d| !d.is_empty()) else {
        return;
    };
    let n = KEPT.fetch_add(1, Ordering::SeqCst);
    let dir = std::path::Path::new(&dir);
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(format!("{}.{}.{n}.json", kind.name(), std::process::id())), text);
}
