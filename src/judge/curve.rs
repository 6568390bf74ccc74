//! The speed across a device's capacity (`iolab verify`'s regions): where
//! the write (or read) rate drops and stays down, as when a stick's or a
//! cheap SSD's write cache fills up. A pure function of the rates it is
//! given, region by region in the order of their offsets; no I/O.

use crate::base::thresholds::{CURVE_MAX_AFTER_RATIO, CURVE_MIN_SETTLED_FRACTION, CURVE_MIN_SIDE, CURVE_MIN_STEP_SHARE, CURVE_STEP_WINDOW};
use crate::judge::stats::median;
use serde::{Deserialize, Serialize};

/// A drop found by [`speed_drop`]: the speed is `before_bps` up to
/// `at_offset` and `after_bps` from there to the end of what was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SpeedDrop {
    /// Index of the first region after the drop (regions `0..at_region` are before it).
    #[schemars(extend("x-unit" = "index"))]
    pub at_region: usize,
    /// Where that region starts.
    #[schemars(extend("x-unit" = "bytes"))]
    pub at_offset: u64,
    /// Median rate of the regions before the drop.
    #[schemars(extend("x-unit" = "B/s"))]
    pub before_bps: f64,
    /// Median rate of the regions from the drop to the end: the sustained speed.
    #[schemars(extend("x-unit" = "B/s"))]
    pub after_bps: f64,
}

/// A split that passed every rule, with what ranks it.
struct Candidate {
    at: usize,
    before: f64,
    after: f64,
    /// Regions on the wrong side of the midpoint, on either side of the split.
    misplaced: usize,
}

/// The point where the rate drops and stays down, in `regions` (each
/// region's offset and rate in bytes/s, in order). Only the measured
/// prefix counts: the regions up to the first without a rate (a stopped
/// verify). `None` when there is no such point.
///
/// Every split `k` with at least [`CURVE_MIN_SIDE`] regions on each side is
/// tried; with `before = median(..k)` and `after = median(k..)` it
/// qualifies when
///
/// 1. `after / before <= CURVE_MAX_AFTER_RATIO` (the speed at least halves);
/// 2. at least [`CURVE_MIN_SETTLED_FRACTION`] of the regions from `k` on are
///    below the midpoint of the two, and as many before `k` at or above it
///    (the speed stays down, and was up before);
/// 3. the medians of the regions within [`CURVE_STEP_WINDOW`] of the device
///    on either side of `k` differ by at least [`CURVE_MIN_STEP_SHARE`] of
///    `before − after` (a step, not a slope across the device).
///
/// Of those, the split with the fewest regions on the wrong side of its
/// midpoint wins, then the larger drop, then the earlier one: at a step
/// with noise that keeps each region on its own side, every region the
/// split is off the step is one more misplaced region.
///
/// Noise of ±15% around a level can never pass rule 1 (the lowest median
/// is 0.85/1.15 = 0.74 of the highest). The cost is O(n² log n) for n
/// regions, nothing for verify's hundred.
pub fn speed_drop(regions: &[(u64, Option<f64>)]) -> Option<SpeedDrop> {
    let rates: Vec<f64> = regions
        .iter()
        .map_while(|&(_, r)| r.filter(|r| r.is_finite() && *r >= 0.0))
        .collect();
    let n = rates.len();
    if n < 2 * CURVE_MIN_SIDE {
        return None;
    }
    let window = ((n as f64 * CURVE_STEP_WINDOW).round() as usize).max(1);
    let mut best: Option<Candidate> = None;
    for k in CURVE_MIN_SIDE..=n - CURVE_MIN_SIDE {
        let (lo, hi) = rates.split_at(k);
        let (before, after) = (median(lo), median(hi));
        if before <= 0.0 || after / before > CURVE_MAX_AFTER_RATIO {
            continue;
        }
        let mid = before / 2.0 + after / 2.0;
        let low_after = hi.iter().filter(|&&r| r < mid).count();
        let high_before = lo.iter().filter(|&&r| r >= mid).count();
        if (low_after as f64) < CURVE_MIN_SETTLED_FRACTION * hi.len() as f64
            || (high_before as f64) < CURVE_MIN_SETTLED_FRACTION * lo.len() as f64
        {
            continue;
        }
        let near_before = median(&lo[k - window.min(k)..]);
        let near_after = median(&hi[..window.min(hi.len())]);
        if near_before - near_after < CURVE_MIN_STEP_SHARE * (before - after) {
            continue;
        }
        let c = Candidate {
            at: k,
            before,
            after,
            misplaced: (hi.len() - low_after) + (lo.len() - high_before),
        };
        let better = match &best {
            None => true,
            Some(b) => c.misplaced < b.misplaced || (c.misplaced == b.misplaced && c.after / c.before < b.after / b.before),
        };
        if better {
            best = Some(c);
        }
    }
    best.map(|c| SpeedDrop {
        at_region: c.at,
        at_offset: regions[c.at].0,
        before_bps: c.before,
        after_bps: c.after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const REGION: u64 = 10 << 20;

    fn regions(rates: &[f64]) -> Vec<(u64, Option<f64>)> {
        rates.iter().enumerate().map(|(i, &r)| (i as u64 * REGION, Some(r))).collect()
    }

    /// `n_before` regions at `before` then `n_after` at `after`, each times
    /// 1 + a fixed pseudo-random noise within ±`noise` (seed `seed`).
    fn step(before: f64, n_before: usize, after: f64, n_after: usize, noise: f64, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n_before + n_after)
            .map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let u = (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                let level = if i < n_before { before } else { after };
                level * (1.0 + noise * u)
            })
            .collect()
    }

    fn within(a: f64, b: f64, frac: f64) -> bool {
        (a - b).abs() <= frac * b
    }

    #[test]
    fn a_clean_step_is_found_where_it_is_with_both_speeds() {
        let d = speed_drop(&regions(&step(92e6, 19, 11e6, 81, 0.0, 0))).expect("a drop");
        assert_eq!((d.at_region, d.at_offset), (19, 19 * REGION));
        assert_eq!((d.before_bps, d.after_bps), (92e6, 11e6));
    }

    #[test]
    fn a_noisy_step_is_found_to_the_region() {
        for seed in 0..50 {
            let d = speed_drop(&regions(&step(200e6, 25, 50e6, 75, 0.15, seed))).expect("a drop");
            assert_eq!(d.at_region, 25, "seed {seed}");
            assert!(within(d.before_bps, 200e6, 0.15) && within(d.after_bps, 50e6, 0.15), "{d:?}");
        }
    }

    #[test]
    fn a_region_that_straddles_the_step_goes_to_its_nearer_side() {
        // Region 25 is a quarter fast, three quarters slow: its rate is
        // nearer the slow level, and the drop is named at its start.
        let mut r = step(200e6, 25, 50e6, 75, 0.0, 0);
        r[25] = 1.0 / (0.25 / 200e6 + 0.75 / 50e6);
        let d = speed_drop(&regions(&r)).expect("a drop");
        assert_eq!(d.at_region, 25);
        assert_eq!((d.before_bps, d.after_bps), (200e6, 50e6));
    }

    #[test]
    fn a_step_at_the_first_or_last_regions() {
        // Two regions on a side are enough; one is not (a warm-up, a stall).
        assert_eq!(speed_drop(&regions(&step(90e6, 2, 10e6, 98, 0.1, 1))).map(|d| d.at_region), Some(2));
        assert_eq!(speed_drop(&regions(&step(90e6, 1, 10e6, 99, 0.1, 1))), None);
        assert_eq!(
            speed_drop(&regions(&step(90e6, 98, 10e6, 2, 0.1, 1))).map(|d| d.at_region),
            Some(98)
        );
        assert_eq!(speed_drop(&regions(&step(90e6, 99, 10e6, 1, 0.1, 1))), None);
    }

    #[test]
    fn a_gradual_slope_is_no_drop() {
        // A disk's zones, and steeper: 100 to 10 MB/s evenly across the device.
        for (from, to) in [(200e6, 100e6), (100e6, 10e6), (100e6, 1e6)] {
            let r: Vec<f64> = (0..100).map(|i| from + (to - from) * i as f64 / 99.0).collect();
            assert_eq!(speed_drop(&regions(&r)), None, "{from} to {to}");
        }
    }

    #[test]
    fn a_dip_that_recovers_and_a_small_step_are_no_drop() {
        let mut r = step(100e6, 100, 0.0, 0, 0.1, 3);
        for v in &mut r[30..45] {
            *v /= 5.0;
        }
        assert_eq!(speed_drop(&regions(&r)), None, "a dip");
        assert_eq!(speed_drop(&regions(&step(100e6, 30, 55e6, 70, 0.0, 0))), None, "a 45% step");
        assert!(speed_drop(&regions(&step(100e6, 30, 50e6, 70, 0.0, 0))).is_some(), "a step to half");
    }

    #[test]
    fn only_the_measured_prefix_counts_and_few_regions_have_none() {
        let mut rs = regions(&step(100e6, 10, 10e6, 10, 0.0, 0));
        for r in &mut rs[12..] {
            r.1 = None;
        }
        assert_eq!(speed_drop(&rs).map(|d| (d.at_region, d.after_bps)), Some((10, 10e6)));
        rs[11].1 = Some(f64::NAN);
        assert_eq!(speed_drop(&rs), None, "one region after the drop is too few");
        assert_eq!(speed_drop(&regions(&[100e6, 100e6, 10e6])), None);
        assert_eq!(speed_drop(&[]), None);
        let d = speed_drop(&regions(&[100e6, 100e6, 10e6, 10e6])).expect("four regions");
        assert_eq!(d.at_region, 2);
    }

    proptest! {
        /// A flat device with up to ±15% noise, in any order, has no drop.
        #[test]
        fn a_flat_device_with_noise_has_no_drop(
            level in 1e5f64..1e10,
            noise in proptest::collection::vec(-0.15f64..=0.15, 0..150),
        ) {
            let r: Vec<f64> = noise.iter().map(|u| level * (1.0 + u)).collect();
            prop_assert_eq!(speed_drop(&regions(&r)), None);
        }

        /// A step to a quarter with ±15% noise is found at its region.
        #[test]
        fn a_noisy_step_to_a_quarter_is_found(
            at in 2usize..98,
            noise in proptest::collection::vec(-0.15f64..=0.15, 100),
        ) {
            let r: Vec<f64> = noise.iter().enumerate().map(|(i, u)| (if i < at { 200e6 } else { 50e6 }) * (1.0 + u)).collect();
            let d = speed_drop(&regions(&r));
            prop_assert_eq!(d.map(|d| d.at_region), Some(at));
        }
    }
}
