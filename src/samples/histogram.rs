//! The latency histogram every sample keeps: one shape, so that any two merge.

use hdrhistogram::Histogram;

/// Highest latency the histograms track exactly (1 hour); above it values saturate.
const MAX_LAT_NS: u64 = 3_600_000_000_000;

/// A latency histogram as iolab keeps them: 1 ns to 1 hour, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LAT_NS, 3).expect("valid histogram bounds")
}
