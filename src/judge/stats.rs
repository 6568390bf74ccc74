//! The statistics figures and rules share: the median and the coefficient
//! of variation. Here, below `summary`, so the rules in `judge` use them
//! without depending on `summary` (which depends on `judge`).

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
}
