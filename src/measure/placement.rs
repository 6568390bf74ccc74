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
//! Measured here (`sudo bench/vs-fio --placement --scenarios ace --reps 2
//! --duration 3`: Linux 6.18, 2 vCPUs; IOPS / I/Os per CPU-second counting
//! every thread of the process, medians of 2 runs of 3 s):
//!
//! | target, depth | exact: spread | exact: co-located | off: spread | off: co-located |
//! |---|---|---|---|---|
//! | zram 4K, 1  | 23k / 31k   | 145k / 145k | 17k / 23k   | 125k / 125k |
//! | zram 4K, 2  | 41k / 51k   | 155k / 155k | 36k / 46k   | 154k / 154k |
//! | zram 4K, 4  | 91k / 99k   | 149k / 149k | 67k / 81k   | 213k / 213k |
//! | zram 4K, 8  | 260k / 207k | 161k / 161k | 141k / 148k | 290k / 290k |
//! | zram 4K, 16 | 348k / 241k | 148k / 148k | 372k / 288k | 350k / 350k |
//! | zram 4K, 32 | 334k / 232k | 154k / 154k | 405k / 298k | 400k / 399k |
//! | tmpfs 1M, 1  | 5.8k / 6.5k  | 11.8k / 11.8k | 5.9k / 6.8k | 11.6k / 11.5k |
//! | tmpfs 1M, 8  | 10.5k / 9.4k | 10.8k / 10.8k | 9.3k / 8.4k | 10.7k / 10.6k |
//! | tmpfs 1M, 32 | 6.0k / 5.5k  | 6.4k / 6.3k   | 6.3k / 5.8k | 6.9k / 6.8k   |
//! | loop (NOWAIT) 4K, 1  | 26k / 74k   | 37k / 94k   | 30k / 80k   | 37k / 92k   |
//! | loop (NOWAIT) 4K, 32 | 251k / 492k | 262k / 525k | 248k / 619k | 255k / 621k |
//!
//! - With every completion timed on its own (`--latency exact`), the issuer
//!   wakes at each one. Up to a depth of 4 issuer and worker mostly take
//!   turns, and one CPU serves both 1.5–7× better than two that wake each
//!   other. From 8 on, the table above found them working in parallel on
//!   4K reads, one CPU halving the IOPS; re-measured on 2026-12-07 (issue
//!   38: zram 4K random reads, exact, 2 runs of 2 s each, IOPS / I/Os per
//!   CPU-second), since every I/O is marked for io-wq at once
//!   (`IOSQE_ASYNC`), that no longer holds: depth 4 spread 99k-108k / 111k-
//!   123k, co-located 354k-363k / 353k-363k; 8: 239k-253k spread, 392k-410k
//!   co-located; 16: 389k-393k / 280k-290k, 441k-445k / 440k-445k; 32:
//!   453k-455k / 277k-282k, 440k-462k / 439k-461k; 128: 510k / 284k-290k,
//!   445k-450k / 444k-449k. fio timing every I/O (pinned, `exact-latency`
//!   in `bench/vs-fio`): 294k-299k IOPS at 8, 293k at 32, 317k at 128. So
//!   one CPU now serves an exactly timed queue at least as well up to 32,
//!   and at 128 gives up 12% of the IOPS for 1.55× the I/Os per
//!   CPU-second.
//! - Reaping in batches (`batch`, `off`), the issuer sleeps while the worker
//!   completes a batch: co-located, the hand-over costs little at any depth,
//!   for as many IOPS or more and up to 7× the I/Os per CPU-second.
//! - On a target that takes I/O without blocking (a loop device with direct
//!   I/O, NVMe) there is no io-wq worker: pinning gained a little at shallow
//!   depths and made no difference beyond the noise at deep ones.
//! - A worker that blocks on a real device sleeps: pinning costs it no
//!   parallelism, only CPU, which such a device does not lack.
//!
//! So a job is co-located at any depth and in every latency mode, when it
//! has no more threads than CPUs, so the threads never share one while
//! another idles.
//!
//! And only where there is a hand-over to keep on one CPU: a target that
//! goes through io-wq (no non-blocking I/O), or one memory serves (a loop
//! device over tmpfs: its loop worker and the issuer). A device that takes
//! I/O inline and completes it through an interrupt (a disk, NVMe, a loop
//! device with direct I/O over a file on a disk) has nothing to hand over,
//! and a pinned issuer only keeps the scheduler from waking it where the
//! completion arrives. Measured on this VM's virtio disk (one queue, its
//! interrupt on CPU 1), 4K random reads at QD1, exact (issue 38): a file on
//! its ext4 8.4k-8.9k IOPS pinned to CPU 0 (as the rule pinned it), 11.6k-
//! 13.9k where the scheduler put it, 11.3k-15.0k pinned to CPU 1 (fio
//! 12.7k-12.9k); a loop device with direct I/O over a file on that disk
//! 8.5k-8.9k pinned, 9.6k-12.4k spread.

//! How many completions a wait collects follows from the latency mode
//! ([`Timing::batch`]), with one exception, [`reap_batch`]: without timing
//! (`--latency off`), a co-located job on a target that memory serves
//! through io-wq (zram, tmpfs) waits for its whole queue. There the issuer
//! and the "device" are one CPU: while the issuer refills, nothing could
//! have been served anyway, so a drained queue costs the device nothing,
//! and each wake-up saved is CPU the device gets back. Measured (zram, 4K
//! random reads, QD32, 4 s, 3 runs each, alternating): `off` with half the
//! queue 409k, 410k, 412k I/Os per CPU-second, `batch=32` (the whole queue,
//! and a clock read per wait on top) 437k, 442k, 447k; fio's best profile
//! 387k, 394k, 395k. Where the io-wq worker sleeps on a
//! device or a daemon instead (FUSE, a disk), half the queue keeps that
//! device's queue at least half full, as the depth asked.

use crate::io::engine::EngineKind;
use crate::plan::Timing;

/// Test and benchmark knob: `colocate` or `spread` instead of the rule,
/// to measure both on one target (`bench/vs-fio --placement`). Not for
/// normal use: only with the cargo feature `test-hooks` (see
/// `base::testknob`).
#[cfg(feature = "test-hooks")]
pub const VAR: &str = "IOLAB_TEST_PLACEMENT";

/// What a job's target does with an io_uring I/O, for [`colocate`] and
/// [`submit_each`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetPath {
    /// It takes non-blocking I/O: an I/O is issued inline, no io-wq worker.
    pub nowait: bool,
    /// Memory serves it (zram, tmpfs, a loop device over tmpfs).
    pub memory: bool,
    /// Its requests pass an I/O scheduler (`queue/scheduler` is not `none`).
    pub scheduled: bool,
}

/// Whether the io_uring threads of a job (`threads` of them) on a target
/// whose I/O takes `path`, on a machine where it may use `cpus` CPUs, are
/// each pinned with their io-wq workers to one CPU.
pub fn colocate(engine: EngineKind, threads: u32, cpus: usize, path: TargetPath) -> bool {
    if !engine.ops().kernel_workers || cpus == 0 {
        return false;
    }
    #[cfg(feature = "test-hooks")]
    match std::env::var(VAR).as_deref() {
        Ok("colocate") => return true,
        Ok("spread") => return false,
        _ => {}
    }
    let hand_over = !path.nowait || path.memory;
    hand_over && threads as usize <= cpus
}

/// After how many queued I/Os an io_uring thread of a queue `depth` deep
/// submits them, instead of all at once when it waits (0): 1 where the
/// target's requests pass an I/O scheduler, else 0.
///
/// A thread that reaps many completions at once refills them in one
/// `io_uring_enter`. Straight to a driver (no scheduler) that burst costs
/// one call for many I/Os. Through a scheduler it is held back: at QD32 on
/// this VM's virtio disk (mq-deadline, 4K random reads, exact) each call
/// carried about 11 I/Os (0.088 calls per I/O, fio's 1.03) and the disk
/// delivered 88k-96k IOPS against fio's 104k-106k; with `none` as its
/// scheduler, 95k-104k against fio's 92k-100k. Submitting each I/O as it
/// is queued: 99k-110k, and more I/Os per CPU-second (316k-389k against
/// 278k-299k: the device's interrupts came less often per I/O). On a loop
/// device with direct I/O (no scheduler) the same cost CPU and IOPS
/// (90k-97k against 97k-100k; 674k-761k I/Os per CPU-second against
/// 774k-842k on one over tmpfs), so the burst stays where nothing holds it.
///
/// At a depth of 1 there is no burst to hold back: the one I/O goes with
/// the wait for it, one call instead of two.
pub fn submit_each(path: TargetPath, depth: u32) -> usize {
    usize::from(path.scheduled && depth > 1)
}

/// Completions one wait collects: [`Timing::batch`], or the whole queue for
/// an untimed, co-located job on a target whose I/O the CPU serves through
/// io-wq (`cpu_served`: memory behind it, no non-blocking I/O). See the
/// module documentation.
pub fn reap_batch(timing: Timing, depth: u32, colocated: bool, cpu_served: bool) -> u32 {
    if timing == Timing::Off && colocated && cpu_served {
        depth.max(1)
    } else {
        timing.batch(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_untimed_co_located_jobs_on_memory_reap_the_whole_queue() {
        assert_eq!(reap_batch(Timing::Off, 32, true, true), 32);
        assert_eq!(reap_batch(Timing::Off, 32, false, true), 16, "spread");
        assert_eq!(reap_batch(Timing::Off, 32, true, false), 16, "a device with a queue of its own");
        assert_eq!(
            reap_batch(Timing::Batch(None), 32, true, true),
            16,
            "timed: latencies stay bounds of half a queue"
        );
        assert_eq!(reap_batch(Timing::Exact, 32, true, true), 1);
        assert_eq!(reap_batch(Timing::Off, 1, true, true), 1);
    }

    const IO_WQ: TargetPath = TargetPath {
        nowait: false,
        memory: true,
        scheduled: false,
    };

    #[test]
    fn a_hand_over_is_co_located_at_any_depth_with_no_more_threads_than_cpus() {
        let io = EngineKind::IoUring;
        assert!(colocate(io, 1, 2, IO_WQ));
        assert!(colocate(io, 2, 2, IO_WQ));
        assert!(!colocate(io, 3, 2, IO_WQ), "never more threads than CPUs");
        assert!(!colocate(io, 1, 0, IO_WQ), "no CPU known");
        assert!(!colocate(EngineKind::Psync, 1, 2, IO_WQ), "psync has no io-wq");
    }

    #[test]
    fn only_a_hand_over_is_co_located() {
        let io = EngineKind::IoUring;
        let disk = TargetPath {
            nowait: true,
            memory: false,
            scheduled: true,
        };
        let loop_on_tmpfs = TargetPath {
            nowait: true,
            memory: true,
            scheduled: false,
        };
        let fuse = TargetPath {
            nowait: false,
            memory: false,
            scheduled: false,
        };
        assert!(!colocate(io, 1, 2, disk), "a disk completes through its interrupt");
        assert!(colocate(io, 1, 2, loop_on_tmpfs), "the loop worker and the issuer");
        assert!(colocate(io, 1, 2, fuse), "io-wq");
    }

    #[test]
    fn only_a_scheduled_queue_is_submitted_to_as_it_fills() {
        let disk = |scheduled| TargetPath {
            nowait: true,
            memory: false,
            scheduled,
        };
        assert_eq!(submit_each(disk(true), 32), 1);
        assert_eq!(submit_each(disk(true), 1), 0, "one I/O goes with its wait");
        assert_eq!(submit_each(disk(false), 32), 0);
        assert_eq!(submit_each(IO_WQ, 32), 0);
    }
}
