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
mod tests {
    //! Tests of the write-cliff rules.

    use super::*;
    use crate::judge::tests::close;
    use proptest::prelude::*;

    fn step(before: f64, n_before: usize, after: f64, n_after: usize) -> Vec<f64> {
        let mut v = vec![before; n_before];
        v.extend(std::iter::repeat_n(after, n_after));
        v
    }

    /// Deterministic pseudo-random values in [-1, 1).
    fn jitter(n: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn clean_cliff_is_found_at_the_step() {
        let c = write_cliff(&step(1000.0, 10, 300.0, 10)).expect("cliff");
        assert_eq!(c.at_second, 10);
        assert_eq!(c.before_bps, 1000.0);
        assert_eq!(c.after_bps, 300.0);
        assert!(close(c.drop_pct, 70.0), "{}", c.drop_pct);
    }

    #[test]
    fn cliff_at_the_shortest_sides() {
        assert_eq!(write_cliff(&step(1000.0, 3, 300.0, 3)).map(|c| c.at_second), Some(3));
        assert_eq!(write_cliff(&step(1000.0, 17, 300.0, 3)).map(|c| c.at_second), Some(17));
    }

    #[test]
    fn drop_limit_is_inclusive() {
        let at_limit = write_cliff(&step(1000.0, 10, 700.0, 10)).expect("a 30% drop is a cliff");
        assert_eq!(at_limit.at_second, 10);
        assert!(close(at_limit.drop_pct, 30.0));
        assert_eq!(write_cliff(&step(1000.0, 10, 710.0, 10)), None);
    }

    #[test]
    fn single_second_dip_is_not_a_cliff() {
        let mut v = vec![1000.0; 20];
        v[10] = 100.0;
        assert_eq!(write_cliff(&v), None);
        let mut last = vec![1000.0; 20];
        last[19] = 100.0;
        assert_eq!(write_cliff(&last), None);
    }

    #[test]
    fn dip_with_recovery_is_not_a_cliff() {
        let mut v = step(1000.0, 10, 300.0, 5);
        v.extend([1000.0; 10]);
        assert_eq!(write_cliff(&v), None);
    }

    #[test]
    fn noisy_flat_series_is_not_a_cliff() {
        // ±30% around 1000.
        let v: Vec<f64> = jitter(60, 7).iter().map(|e| 1000.0 * (1.0 + 0.3 * e)).collect();
        assert_eq!(write_cliff(&v), None);
    }

    #[test]
    fn alternating_series_fails_only_the_settled_rule() {
        // Before k = 17 the median is 1400 (9 highs, 8 lows); after it,
        // [600, 1400, 600] has median 600: the drop rule alone would call
        // it a cliff, but only 2 of 3 seconds are below the midpoint.
        let v: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 1400.0 } else { 600.0 }).collect();
        let mut scratch = Vec::new();
        assert_eq!(median(&v[..17], &mut scratch), 1400.0);
        assert_eq!(median(&v[17..], &mut scratch), 600.0);
        assert_eq!(write_cliff(&v), None);
    }

    #[test]
    fn gradual_ten_percent_decline_is_not_a_cliff() {
        let v: Vec<f64> = (0..30).map(|i| 1000.0 - 100.0 * i as f64 / 29.0).collect();
        assert_eq!(write_cliff(&v), None);
    }

    #[test]
    fn too_short_series_has_no_cliff() {
        assert_eq!(write_cliff(&[]), None);
        assert_eq!(write_cliff(&[1000.0, 1000.0, 1000.0, 300.0, 300.0]), None);
    }

    #[test]
    fn non_finite_or_zero_timelines_have_no_cliff() {
        let mut v = step(1000.0, 10, 300.0, 10);
        v[3] = f64::NAN;
        assert_eq!(write_cliff(&v), None);
        assert_eq!(write_cliff(&[0.0; 20]), None);
    }

    #[test]
    fn cliff_tolerates_spikes_after_it() {
        let mut v = step(1000.0, 10, 300.0, 10);
        v[15] = 1000.0; // one of ten seconds after the cliff recovers
        let c = write_cliff(&v).expect("cliff");
        assert_eq!(c.at_second, 10);
        assert_eq!(c.after_bps, 300.0);
    }

    #[test]
    fn noisy_cliff_is_located_at_the_step() {
        // ±5% noise on a 1000 → 300 step at second 25.
        let noise = jitter(40, 11);
        let v: Vec<f64> = (0..40)
            .map(|i| if i < 25 { 1000.0 } else { 300.0 } * (1.0 + 0.05 * noise[i]))
            .collect();
        let c = write_cliff(&v).expect("cliff");
        assert_eq!(c.at_second, 25);
        assert!((69.0..71.0).contains(&c.drop_pct), "drop {}", c.drop_pct);
        // The largest drop is elsewhere: ranking by it alone would be wrong.
        let mut scratch = Vec::new();
        let drop_at = |k: usize, s: &mut Vec<f64>| 1.0 - median(&v[k..], s) / median(&v[..k], s);
        assert!(drop_at(37, &mut scratch) > drop_at(25, &mut scratch));
    }

    #[test]
    fn two_steps_pick_the_larger_drop() {
        // 1000 → 600 → 200: both splits separate cleanly; the second drops more.
        let mut v = step(1000.0, 10, 600.0, 10);
        v.extend([200.0; 10]);
        let c = write_cliff(&v).expect("cliff");
        assert_eq!(c.at_second, 20);
        assert_eq!((c.before_bps, c.after_bps), (800.0, 200.0));
        assert!(close(c.drop_pct, 75.0));
    }

    #[test]
    fn median_odd_and_even() {
        let mut scratch = Vec::new();
        assert_eq!(median(&[3.0, 1.0, 2.0], &mut scratch), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0], &mut scratch), 2.5);
        assert_eq!(median(&[f64::MAX, f64::MAX], &mut scratch), f64::MAX);
    }

    fn timeline() -> impl Strategy<Value = Vec<f64>> {
        (1.0f64..1e10, 0.1f64..1.0, 0usize..60, prop::collection::vec(-0.2f64..0.2, 0..60)).prop_map(|(level, ratio, at, noise)| {
            noise
                .iter()
                .enumerate()
                .map(|(i, e)| level * if i < at { 1.0 } else { ratio } * (1.0 + e))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn scaling_does_not_change_cliff(v in timeline(), scale in 1e-3f64..1e3) {
            let scaled: Vec<f64> = v.iter().map(|x| x * scale).collect();
            let a = write_cliff(&v);
            let b = write_cliff(&scaled);
            prop_assert_eq!(a.as_ref().map(|c| c.at_second), b.as_ref().map(|c| c.at_second));
        }
    }
}
