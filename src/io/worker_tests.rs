//! The driver loop on the mock engine: exact counts, windows, cuts, batches.
use super::*;
use crate::io::engine::mock::{MockClock, MockEngine, MockFault};

/// Drive one worker alone in its stream; each window's samples carry
/// the stream's latencies for it.
pub(crate) fn go<E: Engine, C: Clock>(
    eng: &mut E,
    clock: &C,
    bufs: &mut Buffers,
    p: &Case,
    stop: bool,
    beat: &Beat,
) -> Result<Vec<WorkerSamples>, IoFailure> {
    let stream = StreamShared::new(1, p.pass.windows.len().max(1));
    let stop = AtomicBool::new(stop);
    let sh = Shared {
        stop: &stop,
        beat,
        stream: &stream,
        index: 0,
    };
    let mut out = drive(eng, clock, bufs, &p.plan, &p.pass, &sh)?;
    for (k, w) in out.iter_mut().enumerate() {
        w.read.lat = stream.lat.take(k, 0);
        w.write.lat = stream.lat.take(k, 1);
    }
    Ok(out)
}

/// A worker's plan and one pass of it.
pub(crate) struct Case {
    plan: WorkerPlan,
    pass: Pass,
}

fn plan(read_pct: u8, random: bool) -> Case {
    Case {
        plan: WorkerPlan {
            bs: 4096,
            random,
            read_pct,
            start: 0,
            len: 1 << 20,
            seed: 1,
            continue_on_error: false,
            batch: 1,
            timed: true,
            sync: SyncMode::None,
        },
        pass: Pass {
            windows: vec![1_000_000_000],
            ..Default::default()
        },
    }
}

fn run(depth: usize, servers: usize, service: u64, p: &Case) -> WorkerSamples {
    let clock = MockClock::default();
    let mut eng = MockEngine::new(clock.clone(), depth, servers, service, 0.0);
    let mut bufs = Buffers::new(p.plan.bs as usize, depth, 1, p.plan.read_pct > 0, p.plan.read_pct < 100);
    go(&mut eng, &clock, &mut bufs, p, false, &Beat::default()).unwrap().remove(0)
}

#[test]
fn qd1_exact_iops_and_latency() {
    let s = run(1, 1, 100_000, &plan(100, true));
    assert_eq!(s.read.ios, 10_000);
    assert_eq!(s.read.bytes, 10_000 * 4096);
    assert_eq!(s.write.ios, 0);
    assert_eq!(s.end_ns, 1_000_000_000);
    let p50 = s.read.lat.as_ref().unwrap().value_at_quantile(0.5);
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
    let p50 = s.read.lat.as_ref().unwrap().value_at_quantile(0.5);
    assert!((399_000..=401_000).contains(&p50), "p50 {p50}");
}

/// A device with 4 parallel servers at QD4: 4x the IOPS, same latency.
#[test]
fn queue_depth_on_parallel_servers_scales() {
    let s = run(4, 4, 100_000, &plan(100, true));
    assert_eq!(s.read.ios, 40_000);
    let p99 = s.read.lat.as_ref().unwrap().value_at_quantile(0.99);
    assert!((99_900..=100_100).contains(&p99), "p99 {p99}");
}

/// Consecutive windows split the stream by completion time, with no gap.
#[test]
fn windows_split_a_continuous_stream() {
    let mut p = plan(100, true);
    p.pass.windows = vec![500_000_000, 1_000_000_000, 1_500_000_000];
    let clock = MockClock::default();
    let mut eng = MockEngine::new(clock.clone(), 2, 1, 100_000, 0.0);
    let mut bufs = Buffers::new(4096, 2, 1, true, false);
    let w = go(&mut eng, &clock, &mut bufs, &p, false, &Beat::default()).unwrap();
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
    p.pass.windows = vec![];
    p.pass.max_bytes = Some(100 * 4096);
    let s = run(8, 1, 1_000, &p);
    assert_eq!(s.write.ios, 100);
}

#[test]
fn stop_flag_ends_the_loop() {
    let mut p = plan(100, false);
    p.pass.windows = vec![];
    let clock = MockClock::default();
    let mut eng = MockEngine::new(clock.clone(), 2, 1, 1_000, 0.0);
    let mut bufs = Buffers::new(4096, 2, 1, true, false);
    let s = go(&mut eng, &clock, &mut bufs, &p, true, &Beat::default()).unwrap();
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
    p.pass.windows = vec![];
    p.pass.max_bytes = Some(6 * 4096);
    p.plan.start = 8192;
    p.plan.len = 4 * 4096;
    p.pass.seq_offset = 2 * 4096;
    let mut e = Rec(vec![]);
    let clock = MockClock::default();
    let mut bufs = Buffers::new(4096, 1, 1, true, false);
    go(&mut e, &clock, &mut bufs, &p, false, &Beat::default()).unwrap();
    let blocks: Vec<u64> = e.0.iter().map(|o| (o - 8192) / 4096).collect();
    assert_eq!(blocks, [2, 3, 0, 1, 2, 3]);
}

#[test]
fn sequential_position_is_reported_for_the_next_pass() {
    let mut p = plan(100, false);
    p.pass.windows = vec![];
    p.pass.max_bytes = Some(5 * 4096);
    p.plan.len = 4 * 4096;
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
    let err = go(&mut Fail, &clock, &mut bufs, &plan(100, false), false, &Beat::default()).unwrap_err();
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
    p.pass.windows = vec![];
    p.pass.max_bytes = Some(16 * 4096);
    p.plan.start = 0;
    p.plan.len = 16 * 4096;
    p.plan.continue_on_error = true;
    let clock = MockClock::default();
    let mut bufs = Buffers::new(4096, 2, 1, false, true);
    let beat = Beat::default();
    let mut e = Flaky { queued: vec![] };
    let s = go(&mut e, &clock, &mut bufs, &p, false, &beat).unwrap().remove(0);
    // 16 blocks written, 4 of them (1, 5, 9, 13) failed: only the 12 good ones are figures.
    assert_eq!(s.write.errors, 4);
    assert_eq!(s.write.ios, 12);
    assert_eq!(s.write.bytes, 12 * 4096);
    assert_eq!(s.write.first_error.map(|f| (f.offset, f.errno)), Some((4096, Some(libc::EIO))));
    assert_eq!(s.read.errors, 0);
    assert_eq!(beat.get(), 16, "every completion, good or failed, is a beat");
    // Without the flag the first failure ends the loop with its offset.
    p.plan.continue_on_error = false;
    let err = go(&mut Flaky { queued: vec![] }, &clock, &mut bufs, &p, false, &beat).unwrap_err();
    assert_eq!((err.offset, err.dir), (4096, Dir::Write));
}

/// An engine that cuts its stream after window `k` once the clock has
/// passed `at`: the main thread's cut, arriving a little after the
/// window's end, as it does in a real stream.
struct CutAt<'a> {
    inner: MockEngine,
    clock: MockClock,
    at: u64,
    k: usize,
    stream: &'a StreamShared,
    mins: Vec<usize>,
}
impl Engine for CutAt<'_> {
    fn depth(&self) -> usize {
        self.inner.depth()
    }
    fn queue(&mut self, io: Io) -> io::Result<()> {
        self.inner.queue(io)
    }
    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        self.mins.push(min);
        self.inner.submit_and_reap(min, out)?;
        if self.clock.now_ns() >= self.at {
            self.stream.cut_after(self.k);
        }
        Ok(())
    }
    fn sync(&mut self) -> io::Result<()> {
        self.inner.sync()
    }
}

#[test]
fn a_cut_ends_the_stream_early_and_tallies_closed_windows() {
    let mut p = plan(100, true);
    p.pass.windows = vec![1_000_000_000, 2_000_000_000, 3_000_000_000, 4_000_000_000];
    let clock = MockClock::default();
    let stream = StreamShared::new(1, 4);
    // Cut after window 1 (ending at 2 s), said at 2.5 s.
    let mut eng = CutAt {
        inner: MockEngine::new(clock.clone(), 1, 1, 100_000, 0.0),
        clock: clock.clone(),
        at: 2_500_000_000,
        k: 1,
        stream: &stream,
        mins: vec![],
    };
    let mut bufs = Buffers::new(4096, 1, 1, true, false);
    let stop = AtomicBool::new(false);
    let beat = Beat::default();
    let sh = Shared {
        stop: &stop,
        beat: &beat,
        stream: &stream,
        index: 0,
    };
    let w = drive(&mut eng, &clock, &mut bufs, &p.plan, &p.pass, &sh).unwrap();
    assert_eq!(w.len(), 2, "windows after the cut are not windows");
    assert_eq!((w[0].read.ios, w[1].read.ios), (10_000, 10_000));
    // The half second after window 1 before the cut was seen is drain:
    // served by the device (and timed), not throughput.
    assert_eq!(w[1].read.all_ios, 15_000);
    assert_eq!(w[1].read.per_sec_ios, vec![10_000]);
    assert!(clock.now_ns() < 2_500_200_000, "it stopped issuing at the cut: {}", clock.now_ns());
    // Both windows were published as they closed, with their bytes.
    assert_eq!(stream.window_bytes(0), (10_000 * 4096, 0));
    assert_eq!(stream.window_bytes(1), (10_000 * 4096, 0));
    assert_eq!(stream.closed(), usize::MAX, "a finished worker has closed everything");
    // Its latencies went to the stream's windows, the drain's to window 2.
    assert_eq!(stream.lat.take(0, 0).unwrap().len(), 10_000);
    assert_eq!(stream.lat.take(2, 0).unwrap().len(), 5_000);
    assert!(eng.mins.iter().all(|&m| m == 1), "exact: one completion per wait");
}

/// One server at QD4: exact latencies start at one service time; reaped
/// four at a time, every I/O is stamped with its batch's end. The
/// counts do not change, and without timing there is no latency.
#[test]
fn batch_reaping_counts_the_same_and_bounds_latency() {
    let run = |batch: usize, timed: bool| {
        let mut p = plan(100, true);
        p.plan.batch = batch;
        p.plan.timed = timed;
        let clock = MockClock::default();
        let stream = StreamShared::new(1, 1);
        let mut eng = CutAt {
            inner: MockEngine::new(clock.clone(), 4, 1, 100_000, 0.0),
            clock: clock.clone(),
            at: u64::MAX,
            k: 0,
            stream: &stream,
            mins: vec![],
        };
        let mut bufs = Buffers::new(4096, 4, 1, true, false);
        let (stop, beat) = (AtomicBool::new(false), Beat::default());
        let sh = Shared {
            stop: &stop,
            beat: &beat,
            stream: &stream,
            index: 0,
        };
        let w = drive(&mut eng, &clock, &mut bufs, &p.plan, &p.pass, &sh).unwrap().remove(0);
        (w, stream.lat.take(0, 0), eng.mins)
    };
    let (exact, lat_exact, mins_exact) = run(1, true);
    let (batch, lat_batch, mins_batch) = run(4, true);
    let (off, lat_off, _) = run(4, false);
    assert_eq!(exact.read.ios, 10_000);
    assert_eq!(batch.read.ios, 10_000);
    assert_eq!(off.read.ios, 10_000);
    let (le, lb) = (lat_exact.unwrap(), lat_batch.unwrap());
    assert!((99_900..=100_100).contains(&le.min()), "exact: the first I/O alone, {}", le.min());
    assert!((399_000..=401_000).contains(&lb.min()), "batch: the batch's end, {}", lb.min());
    assert!(lb.value_at_quantile(0.5) >= le.value_at_quantile(0.5));
    assert!(lat_off.is_none(), "off keeps no latency");
    assert!(mins_exact.iter().all(|&m| m == 1));
    assert!(mins_batch.iter().take(100).all(|&m| m == 4), "batch: four per wait");
}

/// A stream that fails (an I/O error, a short transfer, or the engine's
/// own submit error) while the device holds another read for 5 s (on the
/// virtual clock): the worker returns, and its caller may free the
/// buffers, only once that read has completed, with nothing in flight;
/// the drain beats for the watchdog, and the other workers are told to stop.
#[test]
fn a_failed_stream_returns_only_after_its_last_io_has_completed() {
    const HOLD: u64 = 5_000_000_000;
    let cases: [(&str, Option<MockFault>, Option<u32>); 3] = [
        ("an I/O error", Some(MockFault::Fail(libc::EIO)), None),
        ("a short transfer", Some(MockFault::Short(512)), None),
        ("a submit error", None, Some(2)),
    ];
    for (what, fault, submit_error_at) in cases {
        let mut p = plan(100, false);
        p.pass.windows = vec![60_000_000_000];
        let clock = MockClock::default();
        let mut eng = MockEngine::new(clock.clone(), 4, 4, 100_000, 0.0);
        // Sequential reads: the first I/O is at 0, the second (held) at 4096.
        eng.faults = fault.map(|f| (0, f)).into_iter().collect();
        eng.faults.push((4096, MockFault::Hold(HOLD)));
        eng.submit_error_at = submit_error_at;
        let mut bufs = Buffers::new(4096, 4, 1, true, false);
        let stream = StreamShared::new(1, 1);
        let (stop, beat) = (AtomicBool::new(false), Beat::default());
        let sh = Shared {
            stop: &stop,
            beat: &beat,
            stream: &stream,
            index: 0,
        };
        let e = drive(&mut eng, &clock, &mut bufs, &p.plan, &p.pass, &sh).expect_err(what);
        assert_eq!(eng.pending(), 0, "{what}: I/Os still in flight when the worker returned ({e})");
        assert!(
            clock.now_ns() >= HOLD,
            "{what}: returned at {} ns, before the held read completed at {HOLD}",
            clock.now_ns()
        );
        assert!(stop.load(Ordering::Relaxed), "{what}: the other workers were not told to stop");
        assert!(beat.get() >= 1, "{what}: the drain did not beat");
        drop(bufs);
    }
}

/// Sync writes at QD1 on a device of 100 µs writes and 400 µs flushes:
/// with O_DSYNC, and with a flush after each write, every write waits for
/// its flush, so its latency is 500 µs and 2,000 fit in a second; without,
/// 100 µs and 10,000 (the flush comes at the end of the run, not here).
#[test]
fn sync_writes_count_their_flush_in_their_latency() {
    for (mode, ios, lat, syncs) in [
        (SyncMode::None, 10_000, 100_000, 0),
        (SyncMode::Dsync, 2_000, 500_000, 0),
        (SyncMode::Fsync, 2_000, 500_000, 2_000),
    ] {
        let mut p = plan(0, false);
        p.plan.sync = mode;
        let clock = MockClock::default();
        let mut eng = MockEngine::new(clock.clone(), 1, 1, 100_000, 0.0);
        eng.sync_ns = 400_000;
        let mut bufs = Buffers::new(4096, 1, 1, false, true);
        let s = go(&mut eng, &clock, &mut bufs, &p, false, &Beat::default()).unwrap().remove(0);
        assert_eq!(s.write.ios, ios, "{mode:?}");
        let p50 = s.write.lat.as_ref().unwrap().value_at_quantile(0.5);
        assert!(p50.abs_diff(lat) <= lat / 1000, "{mode:?}: p50 {p50}");
        assert_eq!(eng.syncs, syncs, "{mode:?}: flushes");
    }
}

/// A flush after a write that fails ends the stream as that write's
/// failure, at its offset, with the flush's errno.
#[test]
fn a_failed_flush_fails_the_stream_at_the_write_it_was_for() {
    struct NoFlush(MockEngine);
    impl Engine for NoFlush {
        fn depth(&self) -> usize {
            self.0.depth()
        }
        fn queue(&mut self, io: Io) -> io::Result<()> {
            self.0.queue(io)
        }
        fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
            self.0.submit_and_reap(min, out)
        }
        fn sync(&mut self) -> io::Result<()> {
            Err(io::Error::from_raw_os_error(libc::EIO))
        }
    }
    let mut p = plan(0, false);
    p.plan.sync = SyncMode::Fsync;
    let clock = MockClock::default();
    let mut eng = NoFlush(MockEngine::new(clock.clone(), 1, 1, 100_000, 0.0));
    let mut bufs = Buffers::new(4096, 1, 1, false, true);
    let e = go(&mut eng, &clock, &mut bufs, &p, false, &Beat::default()).expect_err("the flush failed");
    assert_eq!((e.dir, e.offset, e.source.raw_os_error()), (Dir::Write, 0, Some(libc::EIO)));
}
