//! When a test has run enough windows (`--runs auto`): the rule that stops
//! a test once its answer is known, and says so when it never is.
//!
//! A test's figure is the median of its windows' bandwidths. After each
//! window (from the [`SETTLE_MIN_WINDOWS`](crate::base::thresholds::SETTLE_MIN_WINDOWS)th on) the windows so far are
//! judged, and the test stops once either
//!
//! - their coefficient of variation is at most [`SETTLE_CV`], or
//! - the distribution-free 95% confidence interval of their median lies
//!   within ±[`SETTLE_HALF_WIDTH`] of the median.
//!
//! The interval comes from the order statistics (the sign test's
//! interval): for `n` windows sorted, `[x(k), x(n+1-k)]` covers the true
//! median with probability `1 - 2·P(B ≤ k-1)`, `B ~ Binomial(n, ½)`,
//! whatever the distribution of the windows; `k` is the largest that keeps
//! that at least [`SETTLE_CONFIDENCE`]. It exists from 6 windows on. It is
//! robust to one outlying window, which the CV is not: a device with one
//! hiccup settles by the interval, one that drifts by neither.
//!
//! Pure functions over figures; the measuring loop calls [`judge`] between
//! windows, and the summary reports what it found.

use super::stats::{cv, median};
use crate::base::thresholds::{SETTLE_CONFIDENCE, SETTLE_CV, SETTLE_HALF_WIDTH};
use serde::{Deserialize, Serialize};

/// Which rule settled a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SettledBy {
    /// The windows' CV was at most [`SETTLE_CV`].
    Cv,
    /// The 95% interval of their median lay within ±[`SETTLE_HALF_WIDTH`].
    Interval,
}

/// What the windows of one direction of a test say about its figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settle {
    /// Windows judged.
    #[schemars(extend("x-unit" = "count"))]
    pub windows: usize,
    /// Their coefficient of variation.
    #[schemars(extend("x-unit" = "ratio"))]
    pub cv: f64,
    /// The distribution-free 95% interval of their median, in the windows'
    /// unit (bytes/s); absent below 6 windows, where none exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "B/s"))]
    pub median_ci: Option<(f64, f64)>,
    /// How far that interval reaches from the median, as a fraction of it
    /// (the larger side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "ratio"))]
    pub half_width: Option<f64>,
    /// The rule that settled it; `None`: not settled.
    pub by: Option<SettledBy>,
}

impl Settle {
    pub fn settled(&self) -> bool {
        self.by.is_some()
    }
}

/// Judge the windows' values (bytes/s, in the order they ran). A set whose
/// median is not positive (nothing moved) never settles.
pub fn judge(values: &[f64]) -> Settle {
    let n = values.len();
    let c = cv(values);
    let m = median(values);
    let ci = median_interval(values);
    let half_width = ci.filter(|_| m > 0.0).map(|(lo, hi)| ((m - lo).max(hi - m)) / m);
    let moved = m > 0.0;
    let by = if n < 2 || !moved {
        None
    } else if c <= SETTLE_CV {
        Some(SettledBy::Cv)
    } else if half_width.is_some_and(|h| h <= SETTLE_HALF_WIDTH) {
        Some(SettledBy::Interval)
    } else {
        None
    };
    Settle {
        windows: n,
        cv: c,
        median_ci: ci,
        half_width,
        by,
    }
}

/// Whether a test with these windows is done: settled with at least `min`
/// windows, or at `max`.
pub fn done(s: &Settle, min: usize, max: usize) -> bool {
    s.windows >= max || (s.windows >= min && s.settled())
}

/// The distribution-free interval of the median at [`SETTLE_CONFIDENCE`]
/// (see the module documentation); `None` when too few values give one.
pub fn median_interval(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    let k = order_statistic(n)?;
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    Some((s[k - 1], s[n - k]))
}

/// The largest `k` (1-based) such that `[x(k), x(n+1-k)]` covers the
/// median with at least [`SETTLE_CONFIDENCE`].
fn order_statistic(n: usize) -> Option<usize> {
    // P(B <= j) for B ~ Binomial(n, 1/2), accumulated term by term.
    let half_n = 0.5f64.powi(n as i32);
    let mut term = half_n; // C(n, 0) / 2^n
    let mut below = 0.0; // P(B <= k - 1)
    let mut best = None;
    for k in 1..=n / 2 {
        below += term; // now P(B <= k - 1)
        if 1.0 - 2.0 * below >= SETTLE_CONFIDENCE {
            best = Some(k);
        } else {
            break;
        }
        // C(n, k) from C(n, k - 1).
        term *= (n - (k - 1)) as f64 / k as f64;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_needs_six_windows_and_widens_its_rank_with_more() {
        assert_eq!(order_statistic(5), None, "2/32 = 6.25% > 5%");
        assert_eq!(order_statistic(6), Some(1), "2/64 = 3.1%");
        assert_eq!(order_statistic(8), Some(1), "P(B<=1) = 9/256: 7.0% > 5%");
        assert_eq!(order_statistic(9), Some(2), "P(B<=1) = 10/512: 3.9%");
        assert_eq!(order_statistic(10), Some(2), "P(B<=2) = 56/1024: 10.9% > 5%");
        assert_eq!(order_statistic(20), Some(6), "the textbook value for n = 20");
        let v = [5.0, 1.0, 4.0, 2.0, 3.0, 6.0, 9.0, 8.0, 7.0];
        assert_eq!(median_interval(&v), Some((2.0, 8.0)));
    }

    #[test]
    fn steady_windows_settle_by_cv_from_the_third() {
        let s = judge(&[100.0, 101.0, 99.0]);
        assert_eq!(s.by, Some(SettledBy::Cv));
        assert!(done(&s, 3, 10));
        assert!(!done(&judge(&[100.0, 101.0]), 3, 10), "not before the minimum");
        assert!(s.median_ci.is_none() && s.half_width.is_none());
    }

    #[test]
    fn the_cv_bound_is_inclusive() {
        // CV of [97, 100, 103] is exactly 3%.
        let s = judge(&[97.0, 100.0, 103.0]);
        assert!((s.cv - 0.03).abs() < 1e-12, "{}", s.cv);
        assert_eq!(s.by, Some(SettledBy::Cv));
        assert_eq!(judge(&[96.9, 100.0, 103.1]).by, None);
    }

    /// One hiccup spoils the CV but not the median's interval.
    #[test]
    fn one_outlying_window_settles_by_the_interval() {
        let v = [100.0, 101.0, 99.5, 60.0, 100.5, 99.0];
        let s = judge(&v);
        assert!(s.cv > SETTLE_CV, "{}", s.cv);
        assert_eq!(s.median_ci, Some((60.0, 101.0)), "n = 6: the extremes");
        assert_eq!(s.by, None, "with 6 windows the interval is the extremes: the hiccup is in it");
        let v = [100.0, 101.0, 99.5, 60.0, 100.5, 99.0, 100.2, 99.8, 100.1];
        let s = judge(&v);
        assert!(s.cv > SETTLE_CV);
        assert_eq!(s.median_ci, Some((99.0, 100.5)), "n = 9: the 2nd and 8th");
        assert_eq!(s.by, Some(SettledBy::Interval));
        assert!(s.half_width.unwrap() <= SETTLE_HALF_WIDTH);
    }

    #[test]
    fn a_drifting_device_never_settles_and_stops_at_the_maximum() {
        let v: Vec<f64> = (0..10).map(|i| 100.0 - 4.0 * i as f64).collect();
        let s = judge(&v);
        assert_eq!(s.by, None);
        assert!(done(&s, 3, 10), "at the maximum");
        assert!(!done(&judge(&v[..9]), 3, 10));
    }

    #[test]
    fn nothing_moved_never_settles() {
        assert_eq!(judge(&[0.0, 0.0, 0.0]).by, None);
        assert_eq!(judge(&[]).by, None);
        assert_eq!(judge(&[5.0]).by, None, "one window has no spread to judge");
    }
}
