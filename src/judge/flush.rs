//! `flush_too_fast`: a flush that returned far sooner than the device
//! could have stored what was written before it.
//!
//! An instant flush alone proves nothing: a write-through device completes
//! each write only once it is stored, and then has nothing left to flush.
//! The finding rests on two facts together: writes were acknowledged
//! faster than the device can store them, and the flush did not take the
//! time the difference needs. How fast the device can store at most (the
//! [`StoreBound`]) comes from the same target's reads in the same run:
//! reads are an upper bound on the store rate of nearly every device.
//!
//! What the flush had to store is bounded from below with care, so that
//! an honest cache never gets the finding:
//! - only the distinct bytes count: a write-back cache that merges
//!   overwrites of the same block (a drive's DRAM, a host's page cache)
//!   stores each block once, so a job that wrapped around its span many
//!   times owes at most the span ([`distinct_bytes`]);
//! - the device may have stored at the bound all along, from the start
//!   of the interval looked at until the flush returned;
//! - the writes in flight when that interval began may have been stored
//!   before it.
//!
//! Any interval that ends where the flush began gives a lower bound on the
//! flush's time; [`needed_ns`] is one, [`flush_too_fast`] takes the largest
//! over the intervals it is given (the whole run, and its last seconds).
//!
//! Where the bound comes from the same run's reads, [`store_bound`] picks
//! it. A job's own write cliff is no bound: an SLC cache is flash, so the
//! rate after the cliff is not the most the device stores, and a flush
//! right after it is honest however fast. A figure that carries a rule
//! of its own about the flush (`zfs_fuse_unflushed`) is not judged again.

use super::diagnostic::{Code, Diagnostic};
use crate::base::thresholds::{FLUSH_BOUND_SLACK, FLUSH_NEEDED_MIN_NS, FLUSH_TOO_FAST_FRACTION};
use crate::base::units::{fmt_bytes, fmt_mbs, fmt_ns};

/// The most a device can store per second, and what it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreBound {
    /// The measured figure: the fastest run of the fastest read test of
    /// the same target, bytes/s.
    pub read_bps: f64,
    /// That test's name (`SEQ1M Q8T1 read`).
    pub test: String,
}

impl StoreBound {
    /// The bound, bytes/s: the read figure with [`FLUSH_BOUND_SLACK`].
    pub fn bps(&self) -> f64 {
        self.read_bps * FLUSH_BOUND_SLACK
    }
}

/// A read test of the target, as [`store_bound`] weighs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadFigure<'a> {
    /// The test's name.
    pub test: &'a str,
    /// Its fastest run, bytes/s.
    pub bps: f64,
    /// Something other than the device set the figure: a cgroup
    /// throttle, iolab's CPU or its queue, failed I/O, another device
    /// (`at_throttle`, `cpu_bound`, `device_depth_short`, `io_errors`,
    /// `other_device`).
    pub capped: bool,
}

/// The [`StoreBound`] from the read tests of a run on one target: the
/// fastest of them, unless that one's figure was `capped` (then a slower
/// read is no bound on what the device does either: it may be capped
/// alike, or by its own queue depth). `None` without a read test with a
/// positive, finite figure.
pub fn store_bound(reads: &[ReadFigure]) -> Option<StoreBound> {
    let best = reads
        .iter()
        .filter(|r| r.bps.is_finite() && r.bps > 0.0)
        .max_by(|a, b| a.bps.total_cmp(&b.bps))?;
    (!best.capped).then(|| StoreBound {
        read_bps: best.bps,
        test: best.test.to_string(),
    })
}

/// How a job wrote: what bounds the distinct bytes of its writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Writes {
    /// Bytes of the target the job addressed.
    pub span: u64,
    /// Bytes per I/O.
    pub bs: u64,
    /// Random offsets (uniform, with repeats) rather than one sequential stream.
    pub random: bool,
    /// Worker threads: sequential workers each stream over their own range.
    pub workers: u32,
    /// The most bytes in flight at once (block size × queue depth × threads):
    /// writes already stored when an interval began, acknowledged in it.
    pub in_flight: u64,
}

/// Bytes acknowledged over the last `over_ns` before a flush began.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tail {
    pub bytes: u64,
    pub over_ns: u64,
}

/// The fewest distinct bytes `bytes` of writes can have covered. One
/// sequential stream covers `min(bytes, span)` exactly. Uniform random
/// offsets (and several sequential workers, each on its own range) are
/// bounded by the expected coverage `span × (1 − e^(−bytes/span))`, which
/// never exceeds a single stream's; random offsets less 3·√blocks blocks
/// (the count of distinct blocks has a variance below blocks/9, so that is
/// over nine standard deviations). For
/// several sequential workers it assumes they wrote about alike (the
/// caller leaves a job whose threads finished unevenly unjudged).
pub fn distinct_bytes(bytes: u64, w: &Writes) -> f64 {
    let (b, s) = (bytes as f64, w.span as f64);
    if w.span == 0 {
        return b;
    }
    if !w.random && w.workers <= 1 {
        return b.min(s);
    }
    let expected = s * (1.0 - (-b / s).exp());
    if w.random {
        let blocks = (s / w.bs.max(1) as f64).max(1.0);
        (expected - 3.0 * blocks.sqrt() * w.bs as f64).max(0.0)
    } else {
        expected
    }
}

/// The least time, in ns, a flush that began after `tail` needed to store
/// it, were the device to store `bound_bps` all along: the distinct bytes
/// less those in flight when the tail began, less what the bound stores in
/// the tail's time, at the bound. Zero when the device could have stored
/// it all before the flush began (or the bound is not a positive number).
pub fn needed_ns(tail: Tail, w: &Writes, bound_bps: f64) -> f64 {
    if !(bound_bps.is_finite() && bound_bps > 0.0) {
        return 0.0;
    }
    let owed = distinct_bytes(tail.bytes, w) - w.in_flight as f64;
    let stored = bound_bps * tail.over_ns as f64 / 1e9;
    ((owed - stored) * 1e9 / bound_bps).max(0.0)
}

/// `flush_too_fast`: the flush that ended run `run` (1-based) took
/// `flush_ns`, after the writes of `tails` (the whole run's, and of its
/// last seconds); judged on the tail that needed the longest flush. It
/// fires when that need is at least [`FLUSH_NEEDED_MIN_NS`] and the flush
/// took less than [`FLUSH_TOO_FAST_FRACTION`] of it. `device` names the
/// target's device. Nothing when the flush was not timed (`flush_ns` 0:
/// an imported run).
pub fn flush_too_fast(device: &str, run: usize, flush_ns: u64, tails: &[Tail], w: &Writes, bound: &StoreBound) -> Option<Diagnostic> {
    if flush_ns == 0 {
        return None;
    }
    let bps = bound.bps();
    let (tail, needed) = tails
        .iter()
        .map(|t| (*t, needed_ns(*t, w, bps)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let sure = needed >= FLUSH_NEEDED_MIN_NS as f64 && (flush_ns as f64) < FLUSH_TOO_FAST_FRACTION * needed;
    sure.then(|| {
        Diagnostic::new(
            Code::FlushTooFast,
            format!(
                "the flush that ended run {run} returned in {} after {} were written in the {} before it ({}); {device} stores at most {} (its fastest read, {} at {}, + {:.0}%), so that flush needed at least {}: a cache above the media acknowledged the writes and the flush did not wait for it. A volatile cache (a hypervisor's, a drive's DRAM) loses them when the power goes; one that keeps them (SLC flash, PLP, a RAID card's battery) does not; either way the write figure is the cache's, not the device's",
                fmt_ns(flush_ns as f64),
                fmt_bytes(tail.bytes),
                fmt_ns(tail.over_ns as f64),
                fmt_mbs(tail.bytes as f64 / (tail.over_ns.max(1) as f64 / 1e9)),
                fmt_mbs(bps),
                bound.test,
                fmt_mbs(bound.read_bps),
                (FLUSH_BOUND_SLACK - 1.0) * 100.0,
                fmt_ns(needed),
            ),
        )
    })
}

#[cfg(test)]
#[path = "flush_tests.rs"]
mod tests;
