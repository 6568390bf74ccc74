//! The latency histogram every sample keeps: one shape, so that any two merge.

use hdrhistogram::Histogram;

/// Highest latency the histograms track exactly (1 hour); above it values saturate.
const MAX_LAT_NS: u64 = 3_600_000_000_000;

/// A latency histogram as iolab keeps them: 1 ns to 1 hour, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LAT_NS, 3).expect("valid histogram bounds")
}

/// The figures iolab reports of a histogram, kept when the histogram itself
/// is let go ([`super::DirSamples::compact_latency`]): one histogram holds
/// 32,768 counters (256 KiB), so a scan of 10,000 zones that kept one per
/// zone grew to 5 GiB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatFigures {
    pub mean: f64,
    pub min: u64,
    pub max: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p99_9: u64,
    pub p99_99: u64,
}

impl LatFigures {
    /// The figures of `h`; `None` when it is empty.
    pub fn of(h: &Histogram<u64>) -> Option<LatFigures> {
        (!h.is_empty()).then(|| LatFigures {
            mean: h.mean(),
            min: h.min(),
            max: h.max(),
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p99_9: h.value_at_quantile(0.999),
            p99_99: h.value_at_quantile(0.9999),
        })
    }
}
