//! Two detectors over measured throughput: SNIA-style steady state across
//! rounds, and the write cliff inside one timeline. Both are pure functions
//! of the numbers they are given (no I/O, no printing, no clock), so the
//! rules can be tested exactly.
//!
//! - [`steady_state`] looks at the per-round results of a repeated test
//!   (IOPS or bytes/s of each round, oldest first) and says whether the
//!   last few rounds agree well enough to call the device settled. This is
//!   the steady-state test of the SNIA Solid State Storage Performance Test
//!   Specification (PTS): a flash device's fresh-out-of-box figures are
//!   not the ones it delivers once its spare area is used up, so a result
//!   only describes the device once it stops moving.
//! - [`write_cliff`] looks at a per-second throughput timeline of one run
//!   and finds the point where writes fall off a cliff (an SLC cache or
//!   DRAM buffer filling up, the device starting to garbage-collect) and
//!   stay down.

use serde::{Deserialize, Serialize};

/// The number of rounds the steady-state rules are applied to (the PTS
/// "measurement window").
pub const DEFAULT_WINDOW: usize = 5;

/// Data-excursion rule: the window's largest minus smallest result may be
/// at most this percentage of the window's mean.
pub const MAX_RANGE_PCT: f64 = 20.0;

/// Slope-excursion rule: the least-squares line through the window may
/// change by at most this percentage of the window's mean from its first
/// round to its last.
pub const MAX_SLOPE_EXCURSION_PCT: f64 = 10.0;

/// The verdict of [`steady_state`] and the figures behind it.
///
/// The figures (`window_mean`, `range_pct`, `slope_excursion_pct`) always
/// describe the *last* `window` rounds, whether or not they pass, so a
/// report can say how far from steady a run was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// Whether the last `window` rounds satisfy both rules.
    pub reached: bool,
    /// How many rounds were given.
    pub rounds: usize,
    /// Mean of the last `window` rounds; `None` when it cannot be judged
    /// (too few rounds, a non-finite value, a mean that is not positive).
    pub window_mean: Option<f64>,
    /// (max − min) of the last window as a percentage of its mean.
    pub range_pct: Option<f64>,
    /// |slope| × (window − 1) of the least-squares fit over the last
    /// window, as a percentage of its mean.
    pub slope_excursion_pct: Option<f64>,
    /// The 0-based index (into the rounds given) of the last round of the
    /// earliest window that satisfied both rules. It may be set while
    /// `reached` is false: the device was steady once and then drifted.
    pub first_steady_round: Option<usize>,
    /// The steady-state value, the window mean, when `reached`; otherwise
    /// `None`, so a caller cannot report an unsettled mean by mistake.
    pub value: Option<f64>,
}

/// The figures of one window, as fractions of its mean (not percentages),
/// so the comparison against the limits is exact when the ratio is.
struct WindowFigures {
    mean: f64,
    range_frac: f64,
    slope_excursion_frac: f64,
}

impl WindowFigures {
    fn steady(&self) -> bool {
        self.range_frac <= MAX_RANGE_PCT / 100.0 && self.slope_excursion_frac <= MAX_SLOPE_EXCURSION_PCT / 100.0
    }
}

/// Mean, range and slope excursion of one window; `None` when the window
/// is shorter than two rounds, holds a non-finite value, or its mean is
/// not positive (the percentages would be meaningless).
fn window_figures(window: &[f64]) -> Option<WindowFigures> {
    if window.len() < 2 || window.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = window.len() as f64;
    let mean = window.iter().sum::<f64>() / n;
    if !mean.is_finite() || mean <= 0.0 {
        return None;
    }
    let (min, max) = window
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    // Least squares with x = 0, 1, …, n − 1: slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)².
    let x_mean = (n - 1.0) / 2.0;
    let (sxy, sxx) = window.iter().enumerate().fold((0.0, 0.0), |(sxy, sxx), (i, &y)| {
        let dx = i as f64 - x_mean;
        (sxy + dx * (y - mean), sxx + dx * dx)
    });
    let slope = sxy / sxx;
    Some(WindowFigures {
        mean,
        range_frac: (max - min) / mean,
        slope_excursion_frac: slope.abs() * (n - 1.0) / mean,
    })
}

/// Whether a series of per-round results (oldest first) has reached steady
/// state, by the two rules of the SNIA PTS applied to the last `window`
/// rounds ([`DEFAULT_WINDOW`] = 5 is the PTS choice):
///
/// 1. **Data excursion**: max − min of the window is at most
///    [`MAX_RANGE_PCT`] (20%) of the window's mean. This bounds the
///    round-to-round scatter.
/// 2. **Slope excursion**: the least-squares line through the window
///    (round number against result) moves by at most
///    [`MAX_SLOPE_EXCURSION_PCT`] (10%) of the mean between its ends,
///    i.e. |slope| × (window − 1). This catches a steady trend, such as a
///    device still degrading by a few percent per round, whose rounds are
///    each close enough to their neighbours to pass rule 1.
///
/// Both limits are inclusive. Neither rule alone is enough: a slow
/// monotone drift passes the range rule, and a window that swings up and
/// down has a flat fit and passes the slope rule.
///
/// With fewer rounds than `window` (or a `window` below 2, which has no
/// slope) nothing is judged: not reached and all figures `None`. A window
/// with a non-finite value or a mean that is not positive cannot be steady.
pub fn steady_state(rounds: &[f64], window: usize) -> SteadyState {
    let unjudged = SteadyState {
        reached: false,
        rounds: rounds.len(),
        window_mean: None,
        range_pct: None,
        slope_excursion_pct: None,
        first_steady_round: None,
        value: None,
    };
    if window < 2 || rounds.len() < window {
        return unjudged;
    }
    let first_steady_round = rounds
        .windows(window)
        .position(|w| window_figures(w).is_some_and(|f| f.steady()))
        .map(|start| start + window - 1);
    match window_figures(&rounds[rounds.len() - window..]) {
        None => SteadyState {
            first_steady_round,
            ..unjudged
        },
        Some(f) => {
            let reached = f.steady();
            SteadyState {
                reached,
                rounds: rounds.len(),
                window_mean: Some(f.mean),
                range_pct: Some(f.range_frac * 100.0),
                slope_excursion_pct: Some(f.slope_excursion_frac * 100.0),
                first_steady_round,
                value: reached.then_some(f.mean),
            }
        }
    }
}

/// Fewest seconds on each side of a cliff: a median of fewer is just a
/// sample or two, and a "cliff" in the last second or two of a run cannot
/// be told apart from a dip.
pub const MIN_SIDE: usize = 3;

/// The median after the cliff may be at most this fraction of the median
/// before it (i.e. throughput drops by at least 30%). Smaller changes are
/// within what run-to-run variation and background work produce.
pub const MAX_AFTER_RATIO: f64 = 0.70;

/// At least this fraction of the seconds after the cliff must lie below the
/// midpoint between the two medians: throughput must *stay* down, not
/// merely have a low median because the timeline after the split is noisy.
pub const MIN_SETTLED_FRACTION: f64 = 0.80;

/// A write cliff found by [`write_cliff`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cliff {
    /// Index of the first second after the cliff (seconds before it:
    /// `0..at_second`).
    pub at_second: usize,
    /// Median throughput of the seconds before the cliff.
    pub before_bps: f64,
    /// Median throughput of the seconds from the cliff on.
    pub after_bps: f64,
    /// (before − after) / before, in percent.
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
#[path = "steady_tests.rs"]
mod tests;
