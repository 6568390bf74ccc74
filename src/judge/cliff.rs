//! The write cliff inside one run's timeline: where writes fall off a
//! cliff (an SLC cache or DRAM buffer filling up, the device starting to
//! garbage-collect) and stay down. A pure function of the per-second
//! throughput it is given (no I/O, no printing, no clock), so the rules can
//! be tested exactly.

use crate::base::thresholds::{MAX_AFTER_RATIO, MIN_SETTLED_FRACTION, MIN_SIDE};
use serde::{Deserialize, Serialize};

/// A write cliff found by [`write_cliff`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cliff {
    /// Index of the first second after the cliff (seconds before it:
    /// `0..at_second`).
    #[schemars(extend("x-unit" = "index"))]
    pub at_second: usize,
    /// Median throughput of the seconds before the cliff.
    #[schemars(extend("x-unit" = "B/s"))]
    pub before_bps: f64,
    /// Median throughput of the seconds from the cliff on.
    #[schemars(extend("x-unit" = "B/s"))]
    pub after_bps: f64,
    /// (before − after) / before, in percent.
    #[schemars(extend("x-unit" = "%"))]
    pub drop_pct: f64,
}

/// A split that passed both cliff rules, with what is needed to rank it.
struct Candidate {
    at: usize,
    before: f64,
    after: f64,
    drop_frac: f64,
    /// Seconds on the wrong side of the midpoint, on either side of the split.
    misplaced: usize,
}

/// Finds the write cliff in a per-second throughput timeline (bytes/s of
/// each second, oldest first): the point where throughput falls and stays
/// lower. `None` when there is none.
///
/// Every split `k` with at least [`MIN_SIDE`] seconds on each side is
/// tried; with `before = median(0..k)` and `after = median(k..)` a split
/// qualifies when
///
/// 1. `after / before <= MAX_AFTER_RATIO` (a drop of at least 30%), and
/// 2. at least [`MIN_SETTLED_FRACTION`] (80%) of the seconds from `k` on
///    are below the midpoint of `before` and `after`.
///
/// Medians rather than means keep a single stalled or bursting second from
/// moving either level; rule 2 is what rejects a noisy timeline whose
/// median happens to fall at some split although most seconds after it
/// are as high as before. A dip followed by a recovery at least as long
/// as the dip fails at every split: at most half of the seconds after any
/// split are low.
///
/// Of the qualifying splits, the one that best separates the timeline
/// wins: the fewest seconds on the wrong side of its midpoint (below it
/// before the split, not below it after), then the largest drop, then the
/// earliest. Ranking by the drop alone mislocates a noisy cliff: medians
/// barely move with the split, so which split has the largest drop is
/// decided by noise, and a short tail's median is the noisiest of all
/// (one test has a step at second 25 whose largest drop is at second 37).
/// When the noise keeps every second on its own side of the midpoint,
/// each second the split is off the step is one more misplaced second,
/// so the count is lowest at the step itself.
///
/// A timeline shorter than `2 × MIN_SIDE` seconds, or holding a NaN or
/// infinity, has no cliff. The cost is O(n²) for n seconds, fine for
/// timelines of a few thousand seconds.
pub fn write_cliff(per_second: &[f64]) -> Option<Cliff> {
    let n = per_second.len();
    if n < 2 * MIN_SIDE || per_second.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut scratch = Vec::with_capacity(n);
    let mut best: Option<Candidate> = None;
    for k in MIN_SIDE..=n - MIN_SIDE {
        let (before_side, after_side) = per_second.split_at(k);
        let before = median(before_side, &mut scratch);
        if before <= 0.0 {
            continue;
        }
        let after = median(after_side, &mut scratch);
        let ratio = after / before;
        if ratio > MAX_AFTER_RATIO {
            continue;
        }
        let midpoint = halfway(before, after);
        let settled = after_side.iter().filter(|&&v| v < midpoint).count();
        if (settled as f64) / (after_side.len() as f64) < MIN_SETTLED_FRACTION {
            continue;
        }
        let misplaced = (after_side.len() - settled) + before_side.iter().filter(|&&v| v < midpoint).count();
        let candidate = Candidate {
            at: k,
            before,
            after,
            drop_frac: 1.0 - ratio,
            misplaced,
        };
        let better = match &best {
            None => true,
            Some(b) => candidate.misplaced < b.misplaced || (candidate.misplaced == b.misplaced && candidate.drop_frac > b.drop_frac),
        };
        if better {
            best = Some(candidate);
        }
    }
    best.map(|c| Cliff {
        at_second: c.at,
        before_bps: c.before,
        after_bps: c.after,
        drop_pct: c.drop_frac * 100.0,
    })
}

/// The midpoint of two finite numbers, without overflowing near `f64::MAX`.
fn halfway(a: f64, b: f64) -> f64 {
    a / 2.0 + b / 2.0
}

/// Median of a non-empty slice of finite values (mean of the two middle
/// values for an even count). `scratch` is reused to avoid an allocation
/// per call.
fn median(values: &[f64], scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    scratch.extend_from_slice(values);
    let mid = scratch.len() / 2;
    let (lower, upper, _) = scratch.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if values.len() % 2 == 1 {
        upper
    } else {
        let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        halfway(below, upper)
    }
}

#[cfg(test)]
#[path = "cliff_tests.rs"]
mod tests;
