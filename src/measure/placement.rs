//! Where a job's io_uring worker threads run: wherever the scheduler puts
//! them ("spread"), or each pinned to one CPU together with the io-wq
//! kernel workers its ring creates ("co-located").
//!
//! Targets that cannot do non-blocking I/O (zram, tmpfs, many filesystems)
//! get every io_uring I/O handed to an io-wq worker thread of the ring. A
//! thread pinned to a CPU before its ring exists pins those workers too
//! (they inherit its affinity), so issuer and worker hand over on one CPU
//! instead of waking each other across CPUs. Whether that pays depends on
//! how often they hand over and how much they could run in parallel.
//!
//! Measured here (`sudo bench/vs-fio --placement`: Linux 6.18, 2 vCPUs, 4K
//! random reads, 3 s runs, two each; IOPS, then I/Os per CPU-second counting
//! every thread of the process):
//!
//! | zram, depth | exact: spread | exact: co-located | off: spread | off: co-located |
//! |---|---|---|---|---|
//! | 1  | 137k, 136k | 144k, 144k | 157k, 156k | 153k, 153k |
//! | 2  | 48k, 60k   | 161k, 161k | 47k, 59k   | 157k, 156k |
//! | 4  | 96k, 107k  | 160k, 159k | 75k, 88k   | 205k, 203k |
//! | 8  | 263k, 203k | 147k, 146k | 156k, 161k | 293k, 292k |
//! | 16 | 353k, 235k | 164k, 163k | 322k, 258k | 357k, 355k |
//! | 32 | 260k, 188k | 139k, 139k | 405k, 258k | 384k, 383k |
//!
//! - With every completion timed on its own (`--latency exact`), the issuer
//!   wakes at each one. Up to a depth of 4 issuer and worker mostly take
//!   turns, and one CPU serves both 1.5–3× better than two that wake each
//!   other; from 8 on they work in parallel, and one CPU halves the IOPS.
//! - Reaping in batches (`batch`, `off`), the issuer sleeps while the
//!   worker completes a batch: co-located, the hand-over costs little at
//!   any depth, for the same or more IOPS and 1.2–3× the I/Os per
//!   CPU-second.
//! - On a target that takes I/O without blocking (a loop device with
//!   direct I/O, NVMe) there is no io-wq worker; pinning made no difference
//!   beyond the noise there (loop device over tmpfs: 200–227k IOPS either
//!   way at depth 32, 25–31k at depth 1).
//! - A worker that blocks on a real device sleeps: pinning costs it no
//!   parallelism, only CPU, which such a device does not lack.
//!
//! So a job is co-located when its I/Os are reaped in batches, or timed
//! exactly at a depth of at most [`EXACT_MAX_DEPTH`]; and only when it has
//! no more threads than CPUs, so the threads never share one while another
//! idles.

use crate::plan::{EngineKind, Timing};

/// Test and benchmark knob: `colocate` or `spread` instead of the rule,
/// to measure both on one target (`bench/vs-fio --placement`). Not for
/// normal use.
pub const VAR: &str = "IOLAB_TEST_PLACEMENT";

/// The deepest queue at which exactly timed I/O is co-located (see the
/// module documentation).
pub const EXACT_MAX_DEPTH: u32 = 4;

/// Whether the io_uring threads of a job (`threads` of them, `depth` I/Os
/// in flight each, `timing` as asked), on a machine where it may use
/// `cpus` CPUs, are each pinned with their io-wq workers to one CPU.
pub fn colocate(engine: EngineKind, depth: u32, threads: u32, timing: Timing, cpus: usize) -> bool {
    if engine != EngineKind::IoUring || cpus == 0 {
        return false;
    }
    match std::env::var(VAR).as_deref() {
        Ok("colocate") => return true,
        Ok("spread") => return false,
        _ => {}
    }
    threads as usize <= cpus && (!timing.exact_at(depth) || depth <= EXACT_MAX_DEPTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_timing_is_co_located_up_to_depth_4_and_batches_at_any_depth() {
        let io = EngineKind::IoUring;
        assert!(colocate(io, 1, 1, Timing::Exact, 2));
        assert!(colocate(io, 4, 1, Timing::Exact, 2));
        assert!(!colocate(io, 8, 1, Timing::Exact, 2));
        assert!(colocate(io, 32, 1, Timing::Off, 2));
        assert!(colocate(io, 32, 2, Timing::Batch(None), 2));
        assert!(!colocate(io, 8, 1, Timing::Batch(Some(1)), 2), "a batch of one is exact");
        assert!(!colocate(io, 1, 3, Timing::Exact, 2), "never more threads than CPUs");
        assert!(!colocate(EngineKind::Psync, 1, 1, Timing::Exact, 2), "psync has no io-wq");
    }
}
