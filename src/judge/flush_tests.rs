//! `flush_too_fast` at its boundaries, and the devices it must tell apart.

use super::*;
use crate::base::thresholds::{FLUSH_BOUND_SLACK, FLUSH_NEEDED_MIN_NS, FLUSH_TOO_FAST_FRACTION};
use crate::judge::Diagnostic;
use crate::judge::Severity;

const GIB: u64 = 1 << 30;
const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// Reads of 800 MB/s: a bound of exactly 1 GB/s.
fn bound() -> StoreBound {
    StoreBound {
        read_bps: 800e6,
        test: "SEQ1M Q8T1 read".into(),
    }
}

/// One sequential stream over a span far larger than anything written,
/// nothing in flight: the distinct bytes are the bytes.
fn stream() -> Writes {
    Writes {
        span: 1 << 40,
        bs: 1 << 20,
        random: false,
        workers: 1,
        in_flight: 0,
    }
}

fn run(bytes: u64, over_ns: u64) -> Tail {
    Tail { bytes, over_ns }
}

fn judge(flush_ns: u64, tails: &[Tail]) -> Option<Diagnostic> {
    flush_too_fast("vda", 1, flush_ns, tails, &stream(), &bound())
}

#[test]
fn the_bound_is_the_read_with_its_slack() {
    assert_eq!(FLUSH_BOUND_SLACK, 1.25);
    assert_eq!(bound().bps(), 1e9);
    // 1.1 GB in 1 s at 1 GB/s: 0.1 GB left, 100 ms.
    assert_eq!(needed_ns(run(1_100_000_000, S), &stream(), 1e9), 1e8);
    assert_eq!(needed_ns(run(900_000_000, S), &stream(), 1e9), 0.0, "stored before the flush began");
    assert_eq!(needed_ns(run(GIB, S), &stream(), 0.0), 0.0, "no bound, no need");
    assert_eq!(needed_ns(run(GIB, S), &stream(), f64::NAN), 0.0);
}

/// The need at exactly 100 ms is judged, a block less is not, whatever the flush.
#[test]
fn a_need_below_the_floor_is_not_judged() {
    assert_eq!(FLUSH_NEEDED_MIN_NS, 100 * MS);
    let at = judge(1_000, &[run(1_100_000_000, S)]).expect("a need of exactly 100 ms is judged");
    assert_eq!(at.code, "flush_too_fast");
    assert_eq!(judge(1_000, &[run(1_100_000_000 - 4096, S)]), None);
}

/// The flush must take under half of what it needed: exactly half is honest enough.
#[test]
fn a_flush_of_half_the_need_is_not_too_fast() {
    assert_eq!(FLUSH_TOO_FAST_FRACTION, 0.5);
    // 2 GB in 1 s at 1 GB/s: 1 s left.
    let tails = [run(2_000_000_000, S)];
    assert_eq!(judge(500 * MS, &tails), None);
    assert!(judge(500 * MS - 1, &tails).is_some());
    assert_eq!(judge(2 * S, &tails), None, "an honest flush takes the whole of it");
}

/// A write-through device acknowledges no faster than it stores: its flush
/// has nothing to do and returns at once, and that is no finding.
#[test]
fn an_honest_write_through_device_with_an_instant_flush_is_not_named() {
    // Writes at the reads' pace (800 MB/s for 5 s) and 25% above them (the slack).
    assert_eq!(judge(20_000, &[run(4_000_000_000, 5 * S)]), None);
    assert_eq!(judge(20_000, &[run(5_000_000_000, 5 * S)]), None);
    // Noisy per-second bins of such a device: its last second 25% above its reads.
    assert_eq!(judge(20_000, &[run(4_000_000_000, 5 * S), run(1_000_000_000, S)]), None);
    // Completions reaped late (iolab's thread off the CPU) move at most what
    // was in flight into the next second: not owed.
    let deep = Writes {
        in_flight: 64 << 20,
        ..stream()
    };
    let late = [run(4_000_000_000, 5 * S), run(1_000_000_000 + (64 << 20), S)];
    assert_eq!(flush_too_fast("vda", 1, 20_000, &late, &deep, &bound()), None);
}

/// A drive's write-back cache over 800 MB/s media (its reads 800 MB/s):
/// 5 s at 2 GB/s while the cache fills, then 5 s at the media's pace.
const CLIFF: [u64; 10] = [
    2_000_000_000,
    2_000_000_000,
    2_000_000_000,
    2_000_000_000,
    2_000_000_000,
    800_000_000,
    800_000_000,
    800_000_000,
    800_000_000,
    800_000_000,
];

/// The whole run and each of its last seconds, as the summary hands them over.
fn tails_of(bins: &[u64], before_ns: u64) -> Vec<Tail> {
    (0..bins.len())
        .map(|j| run(bins[j..].iter().sum(), before_ns - j as u64 * S))
        .collect()
}

#[test]
fn an_honest_write_back_cache_drains_in_its_flush_and_is_not_named() {
    let tails = tails_of(&CLIFF, 10 * S);
    // 14 GB in 10 s at 1 GB/s at most: at least 4 s left.
    let needed = tails.iter().map(|t| needed_ns(*t, &stream(), 1e9)).fold(0.0, f64::max);
    assert_eq!(needed, 4e9);
    // The cache took 6 GB beyond the media: its honest flush drains them at 800 MB/s.
    assert_eq!(judge(7_500 * MS, &tails), None);
}

#[test]
fn a_lying_cache_whose_flush_returns_at_once_is_named_with_both_figures() {
    let tails = tails_of(&CLIFF, 10 * S);
    let d = judge(400_000, &tails).expect("a flush of 0.4 ms after 4 s owed");
    assert_eq!(d.code, "flush_too_fast");
    assert_eq!(d.severity, Severity::Untrustworthy);
    for part in [
        "the flush that ended run 1 returned in 400.0 µs",
        "after 13.04 GiB were written in the 10.00 s before it (1400.0 MB/s)",
        "vda stores at most 1000.0 MB/s (its fastest read, SEQ1M Q8T1 read at 800.0 MB/s, + 25%)",
        "needed at least 4.00 s",
        "the write figure is the cache's",
    ] {
        assert!(d.message.contains(part), "{part:?} in {}", d.message);
    }
}

/// The issue's virtual disk, measured by hand: 512 MiB in about 0.2 s,
/// then `fdatasync` in 0.3 ms, reads at 1,042 MB/s.
#[test]
fn the_issues_virtual_disk_is_named() {
    let reads = StoreBound {
        read_bps: 1_042e6,
        test: "SEQ1M Q8T1 read".into(),
    };
    let d = flush_too_fast("vda", 1, 300_000, &[run(512 << 20, 200 * MS)], &stream(), &reads).expect("named");
    assert!(d.message.contains("needed at least 212."), "{}", d.message);
}

/// A job that wrapped around its span: a cache that merges overwrites owes
/// at most the span, and may have stored it within the run.
#[test]
fn a_span_written_over_and_over_is_owed_once() {
    let small = Writes { span: GIB, ..stream() };
    // 4 GB in 2 s over 1 GiB: at most 1.07 GB owed, stored by 1 GB/s in 2 s.
    assert_eq!(
        flush_too_fast("vda", 1, 1_000, &[run(4_000_000_000, 2 * S)], &small, &bound()),
        None
    );
    // Over 8 GiB the same writes owe 4 GB.
    let large = Writes { span: 8 * GIB, ..stream() };
    assert!(flush_too_fast("vda", 1, 1_000, &[run(4_000_000_000, 2 * S)], &large, &bound()).is_some());
}

#[test]
fn distinct_bytes_never_exceed_what_was_written_or_the_span() {
    let seq = Writes { span: GIB, ..stream() };
    assert_eq!(distinct_bytes(GIB / 2, &seq), (GIB / 2) as f64);
    assert_eq!(distinct_bytes(4 * GIB, &seq), GIB as f64);
    let random = Writes {
        span: GIB,
        bs: 4096,
        random: true,
        workers: 1,
        in_flight: 32 * 4096,
    };
    // As many bytes as the span, at random: about 63% of it, less 3·√blocks blocks.
    let d = distinct_bytes(GIB, &random);
    let expected = GIB as f64 * (1.0 - (-1.0f64).exp());
    assert_eq!(d, expected - 3.0 * 512.0 * 4096.0);
    assert!(d < distinct_bytes(GIB, &seq));
    // Several sequential workers: their expected coverage, no more than one stream's.
    let workers = Writes { workers: 8, ..seq };
    assert_eq!(distinct_bytes(GIB, &workers), expected);
    assert_eq!(distinct_bytes(0, &random), 0.0);
}

/// Writes in flight when the interval began may have been stored before it.
#[test]
fn writes_in_flight_at_the_start_are_not_owed() {
    let deep = Writes {
        in_flight: 100_000_000,
        ..stream()
    };
    assert_eq!(needed_ns(run(1_200_000_000, S), &deep, 1e9), 1e8);
    assert_eq!(flush_too_fast("vda", 1, 1_000, &[run(1_100_000_000, S)], &deep, &bound()), None);
}

#[test]
fn a_flush_not_timed_is_not_judged() {
    assert_eq!(judge(0, &[run(10 * GIB, S)]), None);
    assert_eq!(judge(1_000, &[]), None);
}

#[test]
fn the_bound_is_the_fastest_read_unless_something_else_set_it() {
    let read = |test, bps, capped| ReadFigure { test, bps, capped };
    assert_eq!(store_bound(&[]), None, "no reads, no bound: a plain write job is not judged");
    let b = store_bound(&[
        read("RND4K Q1T1 read", 40e6, false),
        read("SEQ1M Q8T1 read", 1_042e6, false),
        read("RND4K Q32T1 read", 300e6, true),
    ])
    .unwrap();
    assert_eq!((b.test.as_str(), b.read_bps), ("SEQ1M Q8T1 read", 1_042e6));
    // The fastest read at a throttle (or CPU-bound): no read is a bound.
    assert_eq!(
        store_bound(&[read("SEQ1M Q8T1 read", 20e6, true), read("RND4K Q1T1 read", 5e6, false)]),
        None
    );
    assert_eq!(store_bound(&[read("x", f64::NAN, false), read("y", 0.0, false)]), None);
}
