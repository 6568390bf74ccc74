//! The surface scan's note: a rate that changes across the target.

use super::diagnostic::{Code, Diagnostic};
use crate::base::thresholds::CURVE_NOTE_PCT;

/// `scan_curve`: the mean rate over the outer tenth of the zones (at least
/// one zone) and over the inner tenth differ by [`CURVE_NOTE_PCT`] or more
/// of the outer one. Judged on tenths, not the first and last zone, so one
/// noisy zone at either end does not make a curve. `rates`: bytes/s per
/// zone, outermost first.
pub fn scan_curve(rates: &[f64]) -> Option<Diagnostic> {
    if rates.len() < 2 {
        return None;
    }
    let tenth = rates.len().div_ceil(10);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (outer, inner) = (mean(&rates[..tenth]), mean(&rates[rates.len() - tenth..]));
    let change = if outer > 0.0 { (outer - inner) / outer * 100.0 } else { 0.0 };
    (change.abs() >= CURVE_NOTE_PCT).then(|| {
        Diagnostic::new(
            Code::ScanCurve,
            format!(
                "the rate changes across the target: {} over the first {tenth} zone(s), {} over the last {tenth} ({:.0}% {}); the median hides this, see the curve",
                crate::base::units::fmt_mbs(outer),
                crate::base::units::fmt_mbs(inner),
                change.abs(),
                if change > 0.0 { "slower" } else { "faster" }
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_of_ten_percent_is_noted_either_way() {
        assert_eq!(scan_curve(&[]), None);
        assert_eq!(scan_curve(&[100e6]), None, "one zone has no curve");
        // Exactly 10% slower at the end: noted; 9.9%: not.
        let w = scan_curve(&[100e6, 95e6, 90e6]).unwrap();
        assert_eq!(w.code, "scan_curve");
        assert_eq!(
            w.message,
            "the rate changes across the target: 100.0 MB/s over the first 1 zone(s), 90.0 MB/s over the last 1 (10% slower); the median hides this, see the curve"
        );
        assert_eq!(scan_curve(&[100e6, 95e6, 90.1e6]), None);
        let faster = scan_curve(&[100e6, 120e6]).unwrap();
        assert!(faster.message.contains("(20% faster)"), "{}", faster.message);
    }

    #[test]
    fn tenths_not_single_zones() {
        // Twenty zones: two at each end. One slow last zone averages out.
        let mut rates = vec![100e6; 20];
        rates[19] = 85e6;
        assert_eq!(scan_curve(&rates), None, "7.5% over the last two zones");
        rates[18] = 85e6;
        assert!(scan_curve(&rates).unwrap().message.contains("over the first 2 zone(s)"));
        // No throughput at the start: no change can be computed.
        assert_eq!(scan_curve(&[0.0, 100e6]), None);
    }
}
