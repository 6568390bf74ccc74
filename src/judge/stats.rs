//! The statistics figures and rules share: the median, the coefficient
//! of variation, and the seeded bootstrap both the class verdicts
//! ([`median_ci`]) and `compare` (`compare::stats`) resample with. Here,
//! below `summary`, so the rules in `judge` use them without depending on
//! `summary` (which depends on `judge`).

use crate::base::thresholds::{MIN_RUNS_FOR_NOISE, NOISE_CONFIDENCE};
use crate::io::rng::Rng;

/// Bootstrap resamples per interval.
pub const RESAMPLES: usize = 10_000;
/// Every interval starts from this seed, so it depends on the data alone.
pub const SEED: u64 = 0x696f_6c61_6221; // "iolab!"

/// Median of `v` resampled with replacement into `buf` (`buf.len() == v.len()`).
pub fn resampled_median(v: &[f64], buf: &mut [f64], rng: &mut Rng) -> f64 {
    for slot in buf.iter_mut() {
        *slot = v[rng.below(v.len() as u64) as usize];
    }
    buf.sort_unstable_by(f64::total_cmp);
    let n = buf.len();
    if n % 2 == 1 {
        buf[n / 2]
    } else {
        (buf[n / 2 - 1] + buf[n / 2]) / 2.0
    }
}

/// The central [`NOISE_CONFIDENCE`] of `sorted` (ascending, [`RESAMPLES`] long).
pub fn central(sorted: &[f64]) -> (f64, f64) {
    let tail = ((1.0 - NOISE_CONFIDENCE) / 2.0 * sorted.len() as f64).round() as usize;
    (sorted[tail], sorted[sorted.len() - 1 - tail])
}

/// The [`NOISE_CONFIDENCE`] percentile-bootstrap interval of the median of
/// one figure's per-run values; `None` below [`MIN_RUNS_FOR_NOISE`] runs or
/// with a value that is not finite. With 2 to 5 runs it is the range of the
/// runs (the resampled median takes only a few values), so a figure is
/// called above a bar only when its slowest run is.
pub fn median_ci(v: &[f64]) -> Option<(f64, f64)> {
    if v.len() < MIN_RUNS_FOR_NOISE || !v.iter().all(|x| x.is_finite()) {
        return None;
    }
    let mut rng = Rng::new(SEED);
    let mut buf = vec![0.0; v.len()];
    let mut meds: Vec<f64> = (0..RESAMPLES).map(|_| resampled_median(v, &mut buf, &mut rng)).collect();
    meds.sort_unstable_by(f64::total_cmp);
    Some(central(&meds))
}

/// Median of a non-empty list (mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 }
}

/// Sample coefficient of variation (0 for fewer than two values).
pub fn cv(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    if v.len() < 2 {
        return 0.0;
    }
    let mean = v.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() / mean
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_cv() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(cv(&[5.0]), 0.0);
        let c = cv(&[90.0, 100.0, 110.0]);
        assert!((c - 0.1).abs() < 1e-9, "{c}");
    }

    #[test]
    fn a_median_interval_of_few_runs_is_their_range() {
        assert_eq!(median_ci(&[100.0]), None, "one run has no spread");
        assert_eq!(median_ci(&[100.0, f64::NAN]), None);
        assert_eq!(median_ci(&[97.0, 103.0, 100.0]), Some((97.0, 103.0)));
        let many: Vec<f64> = (0..30).map(|i| 90.0 + i as f64 * 20.0 / 29.0).collect();
        let (lo, hi) = median_ci(&many).unwrap();
        assert!(
            lo > 90.0 && hi < 110.0 && lo < 100.0 && hi > 100.0,
            "{lo}..{hi}: narrower than the range"
        );
        assert_eq!(median_ci(&many), median_ci(&many), "seeded: the same data, the same interval");
    }
}
