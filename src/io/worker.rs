//! The driver loop: keeps an engine's queue full with the job's access
//! pattern until the limit is reached, and counts every completion.
//!
//! Generic over the engine and the clock so the compiler inlines the hot
//! path for each engine, and so the mock engine can drive a virtual clock.
//!
//! Per wait for completions the loop reads the clock once: every I/O
//! reaped by that wait gets that time. With `batch == 1` (`--latency
//! exact`) a wait returns as soon as one I/O completes, so that time is the
//! I/O's own completion (fio does the same with its defaults). A larger
//! batch waits for several, and each of their latencies is an upper bound;
//! without timing (`--latency off`) no latency is kept at all. Counts are
//! added per wait and direction, not per I/O, and latencies go to the
//! stream's histograms in batches ([`crate::io::stream::LatBuf`]).
//!
//! Sync writes ([`SyncMode`]): a `dsync` write is the engine's (it
//! completes once stored); for `fsync` the loop flushes after a wait that
//! reaped writes, before it reads the clock, so the flush is in their latency.

use crate::io::buffers::Buffers;
use crate::io::engine::{Clock, Dir, Done, Engine, Io, SyncMode};
use crate::io::rng::Rng;
use crate::io::stall::Beat;
use crate::io::stream::{LatBuf, StreamShared};
use crate::samples::{WorkerSamples, second_of};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// The part of the job one worker executes, the same in each of its
/// passes: built once per job ([`crate::measure::worker_plans`]).
#[derive(Clone, Debug)]
pub struct WorkerPlan {
    pub bs: u64,
    pub random: bool,
    /// Percentage of reads (100 = read only, 0 = write only).
    pub read_pct: u8,
    /// The byte range this worker addresses: `[start, start + len)`.
    pub start: u64,
    pub len: u64,
    pub seed: u64,
    /// A failed I/O is counted (per direction, with the first offset and
    /// errno) and the loop goes on, instead of ending it (fio's
    /// `continue_on_error`). Failures of the engine itself still end it.
    pub continue_on_error: bool,
    /// Completions to wait for at once (at most those in flight): 1 times
    /// every I/O exactly ([`crate::plan::Timing`]; the rule is
    /// [`crate::measure::placement::reap_batch`]).
    pub batch: usize,
    /// Whether latencies are kept at all.
    pub timed: bool,
    /// How each write is made durable: with O_DSYNC (the engine's
    /// `RWF_DSYNC`), or followed by a flush before the clock is read, so
    /// that its time counts in the latency of the writes it made durable.
    pub sync: SyncMode,
}

/// One pass of a worker over its [`WorkerPlan`]: how long it runs, and
/// where a sequential worker begins. Built once per pass, from the
/// stream's windows and where the previous pass stopped ([`Pass::resume_after`]).
#[derive(Clone, Debug, Default)]
pub struct Pass {
    /// End times (ns on the clock) of consecutive measured windows; the
    /// first starts at 0. Issuing stops at the last one (or at the one the
    /// stream is cut after); completions are attributed to the window they
    /// fall in. Empty for a size-limited pass.
    pub windows: Vec<u64>,
    /// Stop issuing after this many bytes, if size-limited.
    pub max_bytes: Option<u64>,
    /// Where a sequential worker begins inside its range (bytes from the
    /// plan's `start`). Passes of a job continue where the previous one
    /// stopped: restarting at the front would, with buffered I/O, make
    /// the kernel's readahead ramp up again from a small window at every run.
    pub seq_offset: u64,
}

impl Pass {
    /// Where the pass after one whose windows came out as `done` begins
    /// ([`Pass::seq_offset`]): where that one stopped.
    pub fn resume_after(done: &[WorkerSamples]) -> u64 {
        done.last().map_or(0, |w| w.seq_next)
    }
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

/// What a worker shares with the rest of its stream.
pub struct Shared<'a> {
    /// Set on a signal or a worker's failure (the main thread's, or this
    /// worker's own on its way out): stop issuing.
    pub stop: &'a AtomicBool,
    /// Bumped at every completion, for the watchdog of a target that stops
    /// answering ([`crate::io::stall`]).
    pub beat: &'a Beat,
    /// The stream's cut, published windows and latency histograms.
    pub stream: &'a StreamShared,
    /// This worker's index in `stream.live`.
    pub index: usize,
}

/// Marks every window of a worker closed when it stops, however it stops.
struct Closed<'a>(&'a crate::io::stream::Live);

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        self.0.close_all();
    }
}

/// Where a worker's next block is: a seeded random pick over its range, or
/// the next block of its sequential run (wrapping at the range's end).
struct Blocks {
    rng: Rng,
    seq_pos: u64,
    nblocks: u64,
    /// Bytes issued so far, against a size-limited pass's share.
    issued: u64,
}

impl Blocks {
    /// The next I/O's offset and, for a mixed job, its seeded direction.
    #[inline(always)]
    fn next(&mut self, plan: &WorkerPlan) -> (u64, Dir) {
        let block = if plan.random {
            self.rng.below(self.nblocks)
        } else {
            let b = self.seq_pos;
            self.seq_pos += 1;
            if self.seq_pos == self.nblocks {
                self.seq_pos = 0;
            }
            b
        };
        let dir = match plan.read_pct {
            100 => Dir::Read,
            0 => Dir::Write,
            p => {
                if self.rng.below(100) < p as u64 {
                    Dir::Read
                } else {
                    Dir::Write
                }
            }
        };
        (plan.start + block * plan.bs, dir)
    }
}

/// A worker's I/O slots: the free ones, how many are in flight, and per
/// slot its submit time, direction and offset (for error reports).
struct Slots {
    free: Vec<u32>,
    at: Vec<(u64, Dir, u64)>,
    inflight: usize,
}

/// Queue an I/O in every free slot, at `now`, until the slots are full or
/// the pass's byte share is issued; whether the share is (the stream
/// stops issuing). A queue that fails fails the stream.
#[inline(always)]
fn fill<E: Engine>(
    engine: &mut E,
    bufs: &mut Buffers,
    blocks: &mut Blocks,
    slots: &mut Slots,
    plan: &WorkerPlan,
    max_bytes: Option<u64>,
    now: u64,
) -> Result<bool, IoFailure> {
    let bs = plan.bs;
    while let Some(slot) = slots.free.pop() {
        if max_bytes.is_some_and(|m| blocks.issued >= m) {
            slots.free.push(slot);
            return Ok(true);
        }
        let (offset, dir) = blocks.next(plan);
        let (buf, region) = match dir {
            Dir::Read => (bufs.read_slot(slot as usize), 1),
            Dir::Write => (bufs.next_write(), 0),
        };
        slots.at[slot as usize] = (now, dir, offset);
        let queued = engine.queue(Io {
            slot,
            dir,
            offset,
            len: bs as u32,
            buf,
            region,
            dsync: dir == Dir::Write && plan.sync == SyncMode::Dsync,
        });
        if let Err(source) = queued {
            return Err(IoFailure {
                dir,
                offset,
                len: bs as u32,
                source,
            });
        }
        slots.inflight += 1;
        blocks.issued += bs;
    }
    Ok(false)
}

/// Count the completions one wait reaped into window `w` (at `now`, `t`
/// into the window; throughput only `in_window`), their latencies into
/// `lat`, and free their slots. A failed or short I/O fails the stream,
/// unless the plan continues on errors: then it is recorded and skipped.
#[inline(always)]
fn complete(
    done: &mut Vec<Done>,
    slots: &mut Slots,
    w: &mut WorkerSamples,
    lat: &mut Option<LatBuf>,
    plan: &WorkerPlan,
    now: u64,
    in_window: bool,
) -> Result<(), IoFailure> {
    let bs = plan.bs;
    let t = now - w.start_ns;
    let (mut reads, mut writes) = (0u64, 0u64);
    for d in done.drain(..) {
        let (t0, dir, offset) = slots.at[d.slot as usize];
        if d.result < 0 || d.result as u64 != bs {
            let errno = (d.result < 0).then_some(-d.result);
            if plan.continue_on_error {
                match dir {
                    Dir::Read => w.read.record_error(offset, errno, t),
                    Dir::Write => w.write.record_error(offset, errno, t),
                }
                slots.free.push(d.slot);
                slots.inflight -= 1;
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
        match dir {
            Dir::Read => reads += 1,
            Dir::Write => writes += 1,
        }
        if let Some(l) = lat {
            l.push(dir as usize, now - t0);
        }
        slots.free.push(d.slot);
        slots.inflight -= 1;
    }
    if reads + writes > 0 {
        let sec = second_of(t);
        if reads > 0 {
            w.read.count(reads, bs, sec, in_window);
        }
        if writes > 0 {
            w.write.count(writes, bs, sec, in_window);
        }
        if in_window {
            w.end_ns = now;
        }
    }
    Ok(())
}

/// Run one worker to its limit. Returns the counts of each window (one for
/// a size-limited pass; none after the window the stream was cut after),
/// with times relative to the clock's zero. Latencies go to the stream's
/// histograms.
pub fn drive<E: Engine, C: Clock>(
    engine: &mut E,
    clock: &C,
    bufs: &mut Buffers,
    plan: &WorkerPlan,
    pass: &Pass,
    sh: &Shared,
) -> Result<Vec<WorkerSamples>, IoFailure> {
    let live = &sh.stream.live[sh.index];
    let _closed = Closed(live);
    let depth = engine.depth();
    let bs = plan.bs;
    let nblocks = (plan.len / bs).max(1);
    let mut blocks = Blocks {
        rng: Rng::new(plan.seed),
        seq_pos: (pass.seq_offset / bs) % nblocks,
        nblocks,
        issued: 0,
    };
    let mut slots = Slots {
        free: (0..depth as u32).rev().collect(),
        at: vec![(0, Dir::Read, 0); depth],
        inflight: 0,
    };
    let mut done: Vec<Done> = Vec::with_capacity(depth);
    let nwin = pass.windows.len().max(1);
    let mut out: Vec<WorkerSamples> = (0..nwin).map(|_| WorkerSamples::default()).collect();
    let mut lat = plan.timed.then(|| LatBuf::new(&sh.stream.lat));
    // The last window that counts: the plan's, or the one the stream was cut after.
    let mut last = nwin - 1;
    let mut last_end = pass.windows.last().copied();
    let batch = plan.batch.max(1);
    let mut win = 0usize;
    let mut stopping = false;
    let mut now = clock.now_ns();
    out[0].start_ns = now;
    for (i, w) in out.iter_mut().enumerate().skip(1) {
        w.start_ns = pass.windows[i - 1];
    }

    loop {
        if !stopping {
            match fill(engine, bufs, &mut blocks, &mut slots, plan, pass.max_bytes, now) {
                Ok(reached) => stopping = reached,
                Err(e) => return Err(leave(engine, sh, e)),
            }
        }
        if slots.inflight == 0 {
            break;
        }
        if let Err(e) = engine.submit_and_reap(batch.min(slots.inflight), &mut done) {
            let failure = IoFailure {
                dir: Dir::Read,
                offset: 0,
                len: 0,
                source: e,
            };
            return Err(leave(engine, sh, failure));
        }
        if plan.sync == SyncMode::Fsync
            && let Err(e) = flush_writes(engine, &done, &slots.at, bs)
        {
            return Err(leave(engine, sh, e));
        }
        now = clock.now_ns();
        sh.beat.add(done.len() as u64);
        if let Some(k) = sh.stream.cut()
            && k < last
        {
            last = k;
            last_end = Some(pass.windows[k]);
        }
        while win < last && now > pass.windows[win] {
            live.publish(win, out[win].read.bytes, out[win].write.bytes);
            win += 1;
            if let Some(l) = &mut lat {
                l.window(win);
            }
        }
        // Completions after the last window (the drain) are real I/O with
        // real latencies, but the window's throughput must not wait for them.
        let in_window = last_end.is_none_or(|d| now <= d);
        if let Err(e) = complete(&mut done, &mut slots, &mut out[win], &mut lat, plan, now, in_window) {
            return Err(leave(engine, sh, e));
        }
        if !stopping && (last_end.is_some_and(|d| now >= d) || sh.stop.load(Ordering::Relaxed)) {
            stopping = true;
        }
    }
    if last_end.is_none() {
        out[0].end_ns = now;
    }
    // Windows after a cut hold only drain: what the device served, not throughput.
    for tail in out.split_off(last + 1) {
        out[last].read.absorb_drain(&tail.read);
        out[last].write.absorb_drain(&tail.write);
    }
    for (k, w) in out.iter().enumerate().skip(win) {
        live.publish(k, w.read.bytes, w.write.bytes);
    }
    out[last].seq_next = blocks.seq_pos * bs;
    Ok(out)
}

/// [`SyncMode::Fsync`]: the writes a wait reaped that succeeded are made
/// durable by one flush (fdatasync) before the clock is read, so that each
/// one's latency includes it, as a database's commit waits for it. At queue
/// depth 1 that is a flush after every write; deeper, one flush covers the
/// writes that completed together (a group commit), and a read reaped by
/// the same wait (a mixed job) waits for it too. A failed flush fails the
/// stream, named by the first write it was to make durable.
#[inline(never)]
fn flush_writes<E: Engine>(engine: &mut E, done: &[Done], slots: &[(u64, Dir, u64)], bs: u64) -> Result<(), IoFailure> {
    let written = done
        .iter()
        .find(|d| slots[d.slot as usize].1 == Dir::Write && d.result >= 0 && d.result as u64 == bs);
    let Some(d) = written else { return Ok(()) };
    engine.sync().map_err(|source| IoFailure {
        dir: Dir::Write,
        offset: slots[d.slot as usize].2,
        len: bs as u32,
        source,
    })
}

/// The way out of a failed stream: the other workers are told to stop
/// issuing, and every I/O this one still has in flight is cancelled or
/// waited for ([`Engine::drain`]), beating as they complete so the stream's
/// stall watchdog sees the drain move (and gives up on it, leaving this
/// thread and its buffers behind, if the target stopped answering). Only
/// then may the caller free the buffers. Off the hot path: called once.
#[cold]
#[inline(never)]
fn leave<E: Engine>(engine: &mut E, sh: &Shared, failure: IoFailure) -> IoFailure {
    sh.stop.store(true, Ordering::Relaxed);
    // A drain that fails leaves the I/Os to the engine's drop, which waits for them too.
    let _ = engine.drain(&mut |n| sh.beat.add(n));
    failure
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
