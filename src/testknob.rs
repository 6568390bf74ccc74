//! A hook for iolab's own tests: hold a run at a named point so a test can
//! send a signal exactly there (during the prefill, the flush that ends a
//! write window, the store transaction). Inert unless `IOLAB_TEST_PAUSE_AT`
//! is set, like `IOLAB_SELFTEST_LIMIT_SCALE`; documented as a test knob,
//! not an option.
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
