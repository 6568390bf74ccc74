//! The driver loop: keeps an engine's queue full with the job's access
//! pattern until the limit is reached, and records every completion.
//!
//! Generic over the engine and the clock so the compiler inlines the hot
//! path for each engine, and so the mock engine can drive a virtual clock.

use crate::io::buffers::Buffers;
use crate::io::engine::{Clock, Dir, Done, Engine, Io};
use crate::io::rng::Rng;
use crate::io::stall::Beat;
use crate::samples::WorkerSamples;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// The part of the job one worker executes.
#[derive(Clone, Debug)]
pub struct WorkerPlan {
    pub bs: u64,
    pub random: bool,
    /// Percentage of reads (100 = read only, 0 = write only).
    pub read_pct: u8,
    /// The byte range this worker addresses: `[start, start + len)`.
    pub start: u64,
    pub len: u64,
    /// Where a sequential worker begins inside its range (bytes from `start`).
    /// Passes of a job continue where the previous one stopped: restarting
    /// at the front would, with buffered I/O, make the kernel's readahead
    /// ramp up again from a small window at every run.
    pub seq_offset: u64,
    /// End times (ns on the clock) of consecutive measured windows; the
    /// first starts at 0. Issuing stops at the last one; completions are
    /// attributed to the window they fall in. Empty for a size-limited pass.
    pub windows: Vec<u64>,
    /// Stop issuing after this many bytes, if size-limited.
    pub max_bytes: Option<u64>,
    pub seed: u64,
    /// A failed I/O is counted (per direction, with the first offset and
    /// errno) and the loop goes on, instead of ending it (fio's
    /// `continue_on_error`). Failures of the engine itself still end it.
    pub continue_on_error: bool,
}

/// An I/O that failed: which one and the errno.
#[derive(Debug, thiserror::Error)]
#[error("{dir:?} of {len} bytes at offset {offset} failed: {source}")]
pub struct IoFailure {
    pub dir: Dir,
    pub offset: u64,
    pub len: u32,
    #[source]
    pub source: io::Error,
}

/// Run one worker to its limit. Returns the samples of each window (one for
/// a size-limited pass), with times relative to the clock's zero. `beat`
/// counts completions, for the watchdog of a target that stops answering
/// ([`crate::io::stall`]).
pub fn drive<E: Engine, C: Clock>(
    engine: &mut E,
    clock: &C,
    bufs: &mut Buffers,
    plan: &WorkerPlan,
    stop: &AtomicBool,
    beat: &Beat,
) -> Result<Vec<WorkerSamples>, IoFailure> {
    let depth = engine.depth();
    let bs = plan.bs;
    let nblocks = (plan.len / bs).max(1);
    let mut rng = Rng::new(plan.seed);
    let mut seq_pos = (plan.seq_offset / bs) % nblocks;
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    // Per slot: submit time, direction, offset (for error reports).
    let mut slots: Vec<(u64, Dir, u64)> = vec![(0, Dir::Read, 0); depth];
    let mut done: Vec<Done> = Vec::with_capacity(depth);
    let nwin = plan.windows.len().max(1);
    let mut out: Vec<WorkerSamples> = (0..nwin).map(|_| WorkerSamples::default()).collect();
    let last_end = plan.windows.last().copied();
    let mut win = 0usize;
    let mut inflight = 0usize;
    let mut issued: u64 = 0;
    let mut stopping = false;
    let mut now = clock.now_ns();
    out[0].start_ns = now;
    for (i, w) in out.iter_mut().enumerate().skip(1) {
        w.start_ns = plan.windows[i - 1];
    }

    loop {
        if !stopping {
            while let Some(slot) = free.pop() {
                if plan.max_bytes.is_some_and(|m| issued >= m) {
                    free.push(slot);
                    stopping = true;
                    break;
                }
                let block = if plan.random {
                    rng.below(nblocks)
                } else {
                    let b = seq_pos;
                    seq_pos += 1;
                    if seq_pos == nblocks {
                        seq_pos = 0;
                    }
                    b
                };
                let offset = plan.start + block * bs;
                let dir = match plan.read_pct {
                    100 => Dir::Read,
                    0 => Dir::Write,
                    p => {
                        if rng.below(100) < p as u64 {
                            Dir::Read
                        } else {
                            Dir::Write
                        }
                    }
                };
                let (buf, region) = match dir {
                    Dir::Read => (bufs.read_slot(slot as usize), 1),
                    Dir::Write => (bufs.next_write(), 0),
                };
                slots[slot as usize] = (now, dir, offset);
                engine
                    .queue(Io {
                        slot,
                        dir,
                        offset,
                        len: bs as u32,
                        buf,
                        region,
                    })
                    .map_err(|e| IoFailure {
                        dir,
                        offset,
                        len: bs as u32,
                        source: e,
                    })?;
                inflight += 1;
                issued += bs;
            }
        }
        if inflight == 0 {
            break;
        }
        engine.submit_and_reap(1, &mut done).map_err(|e| IoFailure {
            dir: Dir::Read,
            offset: 0,
            len: 0,
            source: e,
        })?;
        now = clock.now_ns();
        beat.add(done.len() as u64);
        for d in done.drain(..) {
            let (t0, dir, offset) = slots[d.slot as usize];
            while win + 1 < nwin && now > plan.windows[win] {
                win += 1;
            }
            if d.result < 0 || d.result as u64 != bs {
                let errno = (d.result < 0).then_some(-d.result);
                if plan.continue_on_error {
                    let w = &mut out[win];
                    let t = now - w.start_ns;
                    match dir {
                        Dir::Read => w.read.record_error(offset, errno, t),
                        Dir::Write => w.write.record_error(offset, errno, t),
                    }
                    free.push(d.slot);
                    inflight -= 1;
                    continue;
                }
                let source = match errno {
                    Some(e) => io::Error::from_raw_os_error(e),
                    None => io::Error::new(io::ErrorKind::UnexpectedEof, format!("short transfer: {} of {bs} bytes", d.result)),
                };
                return Err(IoFailure {
                    dir,
                    offset,
                    len: bs as u32,
                    source,
                });
            }
            let lat = now - t0;
            // Completions after the last window (the drain) are real I/O with
            // real latencies, but the window's throughput must not wait for them.
            let in_window = last_end.is_none_or(|d| now <= d);
            let w = &mut out[win];
            if in_window {
                w.end_ns = now;
            }
            match dir {
                Dir::Read => w.read.record(bs, lat, now - w.start_ns, in_window),
                Dir::Write => w.write.record(bs, lat, now - w.start_ns, in_window),
            }
            free.push(d.slot);
            inflight -= 1;
        }
        if !stopping && (last_end.is_some_and(|d| now >= d) || stop.load(Ordering::Relaxed)) {
            stopping = true;
        }
    }
    if last_end.is_none() {
        out[0].end_ns = now;
    }
    if let Some(w) = out.last_mut() {
        w.seq_next = seq_pos * bs;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::engine::mock::{MockClock, MockEngine};

    fn plan(read_pct: u8, random: bool) -> WorkerPlan {
        WorkerPlan {
            bs: 4096,
            random,
            read_pct,
            start: 0,
            len: 1 << 20,
            seq_offset: 0,
            windows: vec![1_000_000_000],
            max_bytes: None,
            seed: 1,
            continue_on_error: false,
        }
    }

    fn run(depth: usize, servers: usize, service: u64, p: &WorkerPlan) -> WorkerSamples {
        let clock = MockClock::default();
        let mut eng = MockEngine::new(clock.clone(), depth, servers, service, 0.0);
        let mut bufs = Buffers::new(p.bs as usize, depth, 1, p.read_pct > 0, p.read_pct < 100);
        drive(&mut eng, &clock, &mut bufs, p, &AtomicBool::new(false), &Beat::default())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn qd1_exact_iops_and_latency() {
        let s = run(1, 1, 100_000, &plan(100, true));
        assert_eq!(s.read.ios, 10_000);
        assert_eq!(s.read.bytes, 10_000 * 4096);
        assert_eq!(s.write.ios, 0);
        assert_eq!(s.end_ns, 1_000_000_000);
        let p50 = s.read.lat.value_at_quantile(0.5);
        assert!((99_900..=100_100).contains(&p50), "p50 {p50}");
        assert_eq!(s.read.per_sec_ios, vec![10_000]);
    }

    /// A serialising device: QD4 gives no more IOPS, only 4x the latency (Little's law).
    #[test]
    fn queue_depth_on_one_server_multiplies_latency_not_iops() {
        let s = run(4, 1, 100_000, &plan(100, true));
        assert_eq!(s.read.ios, 10_000);
        // The 3 I/Os still queued at the deadline complete, and count only for latency.
        assert_eq!(s.read.all_ios, 10_003);
        let p50 = s.read.lat.value_at_quantile(0.5);
        assert!((399_000..=401_000).contains(&p50), "p50 {p50}");
    }

    /// A device with 4 parallel servers at QD4: 4x the IOPS, same latency.
    #[test]
    fn queue_depth_on_parallel_servers_scales() {
        let s = run(4, 4, 100_000, &plan(100, true));
        assert_eq!(s.read.ios, 40_000);
        let p99 = s.read.lat.value_at_quantile(0.99);
        assert!((99_900..=100_100).contains(&p99), "p99 {p99}");
    }

    /// Consecutive windows split the stream by completion time, with no gap.
    #[test]
    fn windows_split_a_continuous_stream() {
        let mut p = plan(100, true);
        p.windows = vec![500_000_000, 1_000_000_000, 1_500_000_000];
        let clock = MockClock::default();
        let mut eng = MockEngine::new(clock.clone(), 2, 1, 100_000, 0.0);
        let mut bufs = Buffers::new(4096, 2, 1, true, false);
        let w = drive(&mut eng, &clock, &mut bufs, &p, &AtomicBool::new(false), &Beat::default()).unwrap();
        assert_eq!(w.len(), 3);
        for (i, s) in w.iter().enumerate() {
            assert_eq!(s.read.ios, 5_000, "window {i}");
            assert_eq!(s.start_ns, i as u64 * 500_000_000);
            assert_eq!(s.read.per_sec_ios, vec![5_000]);
        }
        // One I/O was still queued at the end: it completes, for latency only.
        assert_eq!(w[2].read.all_ios, 5_001);
    }

    #[test]
    fn mixed_split_follows_read_pct() {
        let s = run(1, 1, 10_000, &plan(70, true));
        let total = s.read.ios + s.write.ios;
        let frac = s.read.ios as f64 / total as f64;
        assert!((0.68..0.72).contains(&frac), "{frac}");
    }

    #[test]
    fn byte_limit_is_exact() {
        let mut p = plan(0, false);
        p.windows = vec![];
        p.max_bytes = Some(100 * 4096);
        let s = run(8, 1, 1_000, &p);
        assert_eq!(s.write.ios, 100);
    }

    #[test]
    fn stop_flag_ends_the_loop() {
        let mut p = plan(100, false);
        p.windows = vec![];
        let clock = MockClock::default();
        let mut eng = MockEngine::new(clock.clone(), 2, 1, 1_000, 0.0);
        let mut bufs = Buffers::new(4096, 2, 1, true, false);
        let s = drive(&mut eng, &clock, &mut bufs, &p, &AtomicBool::new(true), &Beat::default()).unwrap();
        assert!(s[0].read.ios <= 2);
    }

    /// Sequential access walks the range in order and wraps around.
    #[test]
    fn sequential_offsets_wrap() {
        struct Rec(Vec<u64>);
        impl Engine for Rec {
            fn depth(&self) -> usize {
                1
            }
            fn queue(&mut self, io: Io) -> io::Result<()> {
                self.0.push(io.offset);
                Ok(())
            }
            fn submit_and_reap(&mut self, _: usize, out: &mut Vec<Done>) -> io::Result<()> {
                out.push(Done { slot: 0, result: 4096 });
                Ok(())
            }
            fn sync(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut p = plan(100, false);
        p.windows = vec![];
        p.max_bytes = Some(6 * 4096);
        p.start = 8192;
        p.len = 4 * 4096;
        p.seq_offset = 2 * 4096;
        let mut e = Rec(vec![]);
        let clock = MockClock::default();
        let mut bufs = Buffers::new(4096, 1, 1, true, false);
        drive(&mut e, &clock, &mut bufs, &p, &AtomicBool::new(false), &Beat::default()).unwrap();
        let blocks: Vec<u64> = e.0.iter().map(|o| (o - 8192) / 4096).collect();
        assert_eq!(blocks, [2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn sequential_position_is_reported_for_the_next_pass() {
        let mut p = plan(100, false);
        p.windows = vec![];
        p.max_bytes = Some(5 * 4096);
        p.len = 4 * 4096;
        let s = run(1, 1, 1_000, &p);
        assert_eq!(s.seq_next, 4096, "5 blocks over a 4-block range stop after block 0");
    }

    #[test]
    fn io_error_is_reported_with_offset() {
        struct Fail;
        impl Engine for Fail {
            fn depth(&self) -> usize {
                1
            }
            fn queue(&mut self, _: Io) -> io::Result<()> {
                Ok(())
            }
            fn submit_and_reap(&mut self, _: usize, out: &mut Vec<Done>) -> io::Result<()> {
                out.push(Done {
                    slot: 0,
                    result: -libc::EIO,
                });
                Ok(())
            }
            fn sync(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let clock = MockClock::default();
        let mut bufs = Buffers::new(4096, 1, 1, true, false);
        let err = drive(
            &mut Fail,
            &clock,
            &mut bufs,
            &plan(100, false),
            &AtomicBool::new(false),
            &Beat::default(),
        )
        .unwrap_err();
        assert_eq!(err.source.raw_os_error(), Some(libc::EIO));
        assert_eq!(err.offset, 0);
    }

    /// An engine whose I/Os fail with EIO on every 4th block (blocks 1, 5, 9…).
    struct Flaky {
        queued: Vec<Io>,
    }
    impl Engine for Flaky {
        fn depth(&self) -> usize {
            2
        }
        fn queue(&mut self, io: Io) -> io::Result<()> {
            self.queued.push(io);
            Ok(())
        }
        fn submit_and_reap(&mut self, _: usize, out: &mut Vec<Done>) -> io::Result<()> {
            for io in self.queued.drain(..) {
                let bad = (io.offset / 4096) % 4 == 1;
                out.push(Done {
                    slot: io.slot,
                    result: if bad { -libc::EIO } else { io.len as i32 },
                });
            }
            Ok(())
        }
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn continue_on_error_counts_failures_per_direction_and_keeps_going() {
        let mut p = plan(0, false);
        p.windows = vec![];
        p.max_bytes = Some(16 * 4096);
        p.start = 0;
        p.len = 16 * 4096;
        p.continue_on_error = true;
        let clock = MockClock::default();
        let mut bufs = Buffers::new(4096, 2, 1, false, true);
        let beat = Beat::default();
        let mut e = Flaky { queued: vec![] };
        let s = drive(&mut e, &clock, &mut bufs, &p, &AtomicBool::new(false), &beat)
            .unwrap()
            .remove(0);
        // 16 blocks written, 4 of them (1, 5, 9, 13) failed: only the 12 good ones are figures.
        assert_eq!(s.write.errors, 4);
        assert_eq!(s.write.ios, 12);
        assert_eq!(s.write.bytes, 12 * 4096);
        assert_eq!(s.write.first_error.map(|f| (f.offset, f.errno)), Some((4096, Some(libc::EIO))));
        assert_eq!(s.read.errors, 0);
        assert_eq!(beat.get(), 16, "every completion, good or failed, is a beat");
        // Without the flag the first failure ends the loop with its offset.
        p.continue_on_error = false;
        let err = drive(&mut Flaky { queued: vec![] }, &clock, &mut bufs, &p, &AtomicBool::new(false), &beat).unwrap_err();
        assert_eq!((err.offset, err.dir), (4096, Dir::Write));
    }
}
