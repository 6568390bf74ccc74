//! SNIA-style steady state across rounds: a pure function of the numbers
//! it is given (no I/O, no printing, no clock), so the rules can be tested
//! exactly.
//!
//! [`steady_state`] looks at the per-round results of a repeated test
//! (IOPS or bytes/s of each round, oldest first) and says whether the last
//! few rounds agree well enough to call the device settled. This is the
//! steady-state test of the SNIA Solid State Storage Performance Test
//! Specification (PTS): a flash device's fresh-out-of-box figures are not
//! the ones it delivers once its spare area is used up, so a result only
//! describes the device once it stops moving. The write cliff inside one
//! run's timeline is [`super::cliff`].

use serde::{Deserialize, Serialize};

pub use crate::base::thresholds::DEFAULT_WINDOW;
use crate::base::thresholds::{MAX_RANGE_PCT, MAX_SLOPE_EXCURSION_PCT};

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

#[cfg(test)]
mod tests {
    //! Tests of the steady-state rules.

    use super::*;
    use crate::judge::tests::close;
    use proptest::prelude::*;

    #[test]
    fn flat_series_is_steady_from_the_fifth_round() {
        let s = steady_state(&[1000.0; 8], DEFAULT_WINDOW);
        assert!(s.reached);
        assert_eq!(s.rounds, 8);
        assert_eq!(s.first_steady_round, Some(4));
        assert_eq!(s.window_mean, Some(1000.0));
        assert_eq!(s.value, Some(1000.0));
        assert_eq!(s.range_pct, Some(0.0));
        assert!(s.slope_excursion_pct.unwrap() < 1e-9);
    }

    #[test]
    fn rising_five_percent_per_round_fails_slope_but_passes_range() {
        let rounds: Vec<f64> = (0..5).map(|i| 1000.0 * 1.05_f64.powi(i)).collect();
        let s = steady_state(&rounds, DEFAULT_WINDOW);
        let range = s.range_pct.unwrap();
        let slope = s.slope_excursion_pct.unwrap();
        assert!(range < MAX_RANGE_PCT, "range rule alone passes: {range}");
        assert!(slope > MAX_SLOPE_EXCURSION_PCT, "slope rule fails: {slope}");
        assert!((19.4..19.6).contains(&range) && (19.4..19.6).contains(&slope));
        assert!(!s.reached);
        assert_eq!(s.value, None);
        assert_eq!(s.first_steady_round, None);
        assert!(close(s.window_mean.unwrap(), 1105.12625));
    }

    #[test]
    fn swinging_series_passes_slope_but_fails_range() {
        // Symmetric about the middle round, so the fitted line is flat.
        let s = steady_state(&[1000.0, 1300.0, 1000.0, 1300.0, 1000.0], DEFAULT_WINDOW);
        assert!(s.slope_excursion_pct.unwrap() < 1e-9);
        assert!(close(s.range_pct.unwrap(), 300.0 / 1120.0 * 100.0));
        assert!(s.range_pct.unwrap() > MAX_RANGE_PCT);
        assert!(!s.reached);
    }

    #[test]
    fn range_limit_is_inclusive() {
        // Mean 1000, range exactly 200 = 20%; slope excursion 4%.
        let at_limit = steady_state(&[900.0, 1100.0, 1000.0, 1000.0, 1000.0], DEFAULT_WINDOW);
        assert_eq!(at_limit.range_pct, Some(20.0));
        assert!(close(at_limit.slope_excursion_pct.unwrap(), 4.0));
        assert!(at_limit.reached);
        // Range 210 = 21%.
        let over = steady_state(&[895.0, 1105.0, 1000.0, 1000.0, 1000.0], DEFAULT_WINDOW);
        assert!(close(over.range_pct.unwrap(), 21.0));
        assert!(!over.reached);
    }

    #[test]
    fn noise_within_five_percent_is_steady() {
        let noise = [0.04, -0.03, 0.05, -0.05, 0.02, -0.01, 0.03, -0.04];
        let rounds: Vec<f64> = noise.iter().map(|e| 50_000.0 * (1.0 + e)).collect();
        let s = steady_state(&rounds, DEFAULT_WINDOW);
        assert!(s.reached, "{s:?}");
        assert!(s.range_pct.unwrap() <= 10.0 / 0.95 + 1e-9);
        assert_eq!(s.value, s.window_mean);
        assert_eq!(s.first_steady_round, Some(4));
    }

    #[test]
    fn fewer_rounds_than_window_is_not_judged() {
        let s = steady_state(&[1000.0; 4], DEFAULT_WINDOW);
        assert_eq!(
            s,
            SteadyState {
                reached: false,
                rounds: 4,
                window_mean: None,
                range_pct: None,
                slope_excursion_pct: None,
                first_steady_round: None,
                value: None,
            }
        );
        assert_eq!(steady_state(&[], DEFAULT_WINDOW).rounds, 0);
        assert!(!steady_state(&[1000.0; 4], 1).reached, "a window below 2 has no slope");
        assert_eq!(steady_state(&[1000.0; 4], 0).window_mean, None);
    }

    #[test]
    fn first_steady_round_after_a_burst() {
        // Fresh-out-of-box burst settling to 1000. The window ending at
        // round 7 ([1200, 1000 × 4]) passes the range rule (19.2%) but not
        // the slope rule (15.4%); the one ending at round 8 passes both.
        let rounds = [2000.0, 1800.0, 1500.0, 1200.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0];
        let at7 = steady_state(&rounds[..8], DEFAULT_WINDOW);
        assert!(close(at7.range_pct.unwrap(), 200.0 / 1040.0 * 100.0));
        assert!(close(at7.slope_excursion_pct.unwrap(), 160.0 / 1040.0 * 100.0));
        assert!(!at7.reached);
        assert_eq!(at7.first_steady_round, None);

        let s = steady_state(&rounds, DEFAULT_WINDOW);
        assert!(s.reached);
        assert_eq!(s.first_steady_round, Some(8));
        assert_eq!(s.value, Some(1000.0));
    }

    #[test]
    fn steady_once_then_drifting_keeps_first_steady_round() {
        let rounds = [1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1500.0, 2000.0, 2500.0];
        let s = steady_state(&rounds, DEFAULT_WINDOW);
        assert!(!s.reached);
        assert_eq!(s.first_steady_round, Some(4));
        assert_eq!(s.value, None);
        assert!(s.window_mean.is_some());
    }

    #[test]
    fn unusable_windows_are_not_steady() {
        let nan = steady_state(&[1000.0, 1000.0, f64::NAN, 1000.0, 1000.0], DEFAULT_WINDOW);
        assert!(!nan.reached);
        assert_eq!(nan.window_mean, None);
        let zeros = steady_state(&[0.0; 6], DEFAULT_WINDOW);
        assert!(!zeros.reached);
        assert_eq!(zeros.range_pct, None);
        // A NaN early on does not stop a later window from being steady.
        let later = steady_state(&[f64::NAN, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0], DEFAULT_WINDOW);
        assert!(later.reached);
        assert_eq!(later.first_steady_round, Some(5));
    }

    #[test]
    fn steady_state_round_trips_through_json() {
        let s = steady_state(&[10.0, 11.0, 10.5, 10.0, 10.2, 10.1], DEFAULT_WINDOW);
        let back: SteadyState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    fn noisy_rounds() -> impl Strategy<Value = Vec<f64>> {
        (1.0f64..1e9, prop::collection::vec(-0.15f64..0.15, 0..30))
            .prop_map(|(base, noise)| noise.iter().map(|e| base * (1.0 + e)).collect())
    }

    proptest! {
        #[test]
        fn scaling_does_not_change_steady_verdict(rounds in noisy_rounds(), scale in 1e-3f64..1e3) {
            let scaled: Vec<f64> = rounds.iter().map(|v| v * scale).collect();
            let a = steady_state(&rounds, DEFAULT_WINDOW);
            let b = steady_state(&scaled, DEFAULT_WINDOW);
            prop_assert_eq!(a.reached, b.reached);
            prop_assert_eq!(a.first_steady_round, b.first_steady_round);
            prop_assert_eq!(a.rounds, b.rounds);
        }

        /// |noise| ≤ a around a constant b gives range ≤ 2ab and (window 5)
        /// slope excursion ≤ 4 · a·b·Σ|x − x̄| / Σ(x − x̄)² = 2.4ab, against a
        /// mean ≥ (1 − a)b: with a = 3.5% that is ≤ 7.3% and ≤ 8.7%.
        #[test]
        fn small_noise_is_always_steady(base in 1.0f64..1e9, noise in prop::collection::vec(-0.035f64..0.035, 5..20)) {
            let rounds: Vec<f64> = noise.iter().map(|e| base * (1.0 + e)).collect();
            let s = steady_state(&rounds, DEFAULT_WINDOW);
            prop_assert!(s.reached, "{:?}", s);
            prop_assert_eq!(s.first_steady_round, Some(4));
        }

        #[test]
        fn reached_implies_a_first_steady_round(rounds in noisy_rounds()) {
            let s = steady_state(&rounds, DEFAULT_WINDOW);
            if s.reached {
                prop_assert!(s.first_steady_round.is_some_and(|r| r < rounds.len()));
                prop_assert_eq!(s.value, s.window_mean);
            } else {
                prop_assert_eq!(s.value, None);
            }
        }
    }
}
