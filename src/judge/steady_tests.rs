//! Tests of the steady-state and write-cliff rules.

use super::*;
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

// ---- steady_state ----

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

// ---- write_cliff ----

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

// ---- properties ----

fn noisy_rounds() -> impl Strategy<Value = Vec<f64>> {
    (1.0f64..1e9, prop::collection::vec(-0.15f64..0.15, 0..30)).prop_map(|(base, noise)| noise.iter().map(|e| base * (1.0 + e)).collect())
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
    fn scaling_does_not_change_steady_verdict(rounds in noisy_rounds(), scale in 1e-3f64..1e3) {
        let scaled: Vec<f64> = rounds.iter().map(|v| v * scale).collect();
        let a = steady_state(&rounds, DEFAULT_WINDOW);
        let b = steady_state(&scaled, DEFAULT_WINDOW);
        prop_assert_eq!(a.reached, b.reached);
        prop_assert_eq!(a.first_steady_round, b.first_steady_round);
        prop_assert_eq!(a.rounds, b.rounds);
    }

    #[test]
    fn scaling_does_not_change_cliff(v in timeline(), scale in 1e-3f64..1e3) {
        let scaled: Vec<f64> = v.iter().map(|x| x * scale).collect();
        let a = write_cliff(&v);
        let b = write_cliff(&scaled);
        prop_assert_eq!(a.as_ref().map(|c| c.at_second), b.as_ref().map(|c| c.at_second));
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
