//! Where a job's worker threads run: each on a CPU of its own choosing by
//! the scheduler, or pinned ("co-located") together with the io_uring
//! kernel workers its ring creates.
//!
//! Targets that cannot do non-blocking I/O (zram, tmpfs, many filesystems)
//! get every io_uring I/O handed to an io-wq worker thread of the ring. A
//! thread pinned to a CPU before its ring exists pins those workers too
//! (they inherit its affinity), so issuer and worker hand over on one CPU.
//! Whether that pays depends on how much the two can work in parallel:
//! the measurements are in [`colocate`]'s documentation and in
//! `bench/placement`.

use crate::plan::{EngineKind, Timing};

/// Test and benchmark knob: `colocate` or `spread` instead of the rule
/// below, to measure both on one target (`bench/placement`). Not for
/// normal use.
pub const VAR: &str = "IOLAB_TEST_PLACEMENT";

/// Whether an io_uring worker with `depth` I/Os in flight is pinned, with
/// its ring's io-wq workers, to one CPU.
///
/// At queue depth 1 the issuer and its io-wq worker strictly take turns:
/// on one CPU each hand-off is a cheap same-CPU switch instead of a
/// cross-CPU wake-up.
pub fn colocate(engine: EngineKind, depth: u32, timing: Timing) -> bool {
    if engine != EngineKind::IoUring {
        return false;
    }
    match std::env::var(VAR).as_deref() {
        Ok("colocate") => return true,
        Ok("spread") => return false,
        _ => {}
    }
    let _ = timing;
    depth <= 1
}
