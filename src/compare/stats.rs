//! The noise decision: a seeded percentile bootstrap of the ratio of medians.
//!
//! Each side's measured runs are resampled with replacement
//! ([`RESAMPLES`] times, from a fixed seed, so the same data always gives
//! the same interval), the ratio `median(other*) / median(baseline*)` is taken
//! for every resample, and the central [`NOISE_CONFIDENCE`](crate::base::thresholds::NOISE_CONFIDENCE) of those ratios
//! is the interval. A difference whose interval contains 1.0 is within the noise.
//!
//! With 2 or 3 runs a side the resampled median can only take a few values,
//! and the 95% interval is then exactly
//! `[min(other) / max(baseline), max(other) / min(baseline)]`: "within noise"
//! means the two runs' ranges overlap, which is conservative. From 5 runs on
//! the interval is narrower than the ranges. With fewer than
//! [`MIN_RUNS_FOR_NOISE`] (2) runs on either side there is nothing to
//! resample: the interval is unknown (`None`).

use crate::base::thresholds::MIN_RUNS_FOR_NOISE;
use crate::io::rng::Rng;
pub use crate::judge::stats::{RESAMPLES, SEED};
use crate::judge::stats::{central, resampled_median};

/// The [`NOISE_CONFIDENCE`] bootstrap interval of `median(other) / median(base)`
/// from each side's per-run figures; `None` when either side has fewer than
/// [`MIN_RUNS_FOR_NOISE`] runs, or a figure is not finite, or a baseline figure is not positive,
/// or a resampled ratio overflows (figures too far apart for a finite ratio).
pub fn ratio_ci(base: &[f64], other: &[f64]) -> Option<(f64, f64)> {
    if base.len() < MIN_RUNS_FOR_NOISE || other.len() < MIN_RUNS_FOR_NOISE {
        return None;
    }
    if !base.iter().all(|x| x.is_finite() && *x > 0.0) || !other.iter().all(|x| x.is_finite()) {
        return None;
    }
    let mut rng = Rng::new(SEED);
    let mut bb = vec![0.0; base.len()];
    let mut ob = vec![0.0; other.len()];
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let b = resampled_median(base, &mut bb, &mut rng);
            let o = resampled_median(other, &mut ob, &mut rng);
            o / b
        })
        .collect();
    ratios.sort_unstable_by(f64::total_cmp);
    let (lo, hi) = central(&ratios);
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_samples_give_the_range_ratio() {
        let (lo, hi) = ratio_ci(&[100.0, 110.0, 90.0], &[200.0, 220.0, 180.0]).unwrap();
        assert!((lo - 180.0 / 110.0).abs() < 1e-12, "{lo}");
        assert!((hi - 220.0 / 90.0).abs() < 1e-12, "{hi}");
    }

    #[test]
    fn overlapping_spreads_contain_one() {
        let (lo, hi) = ratio_ci(&[100.0, 110.0, 90.0], &[105.0, 95.0, 102.0]).unwrap();
        assert!(lo < 1.0 && hi > 1.0, "{lo}..{hi}");
    }

    #[test]
    fn deterministic_and_unknown_below_two_runs() {
        let a = [100.0, 104.0, 97.0, 101.0, 99.0];
        let b = [120.0, 118.0, 125.0, 119.0, 121.0];
        assert_eq!(ratio_ci(&a, &b), ratio_ci(&a, &b));
        let (lo, hi) = ratio_ci(&a, &b).unwrap();
        // Five runs: narrower than the ranges' ratio.
        assert!(lo > 118.0 / 104.0 && hi < 125.0 / 97.0, "{lo}..{hi}");
        assert_eq!(ratio_ci(&[100.0], &b), None);
        assert_eq!(ratio_ci(&a, &[120.0]), None);
        assert_eq!(ratio_ci(&[0.0, 0.0], &b), None);
        // Figures so far apart that their ratio overflows: no interval, never an
        // infinity (which a JSON document would carry as null where a number is due).
        assert_eq!(ratio_ci(&[1e-300, 2e-300, 3e-300], &[1e300, 2e300, 3e300]), None);
    }
}
