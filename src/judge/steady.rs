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
#[path = "steady_tests.rs"]
mod tests;
