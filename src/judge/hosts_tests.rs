//! The host-group rules at their boundaries.

use super::*;

const MIB: f64 = 1048576.0;

/// Three runs around `mib` MiB/s, ±`noise` (a fraction), in bytes/s.
fn runs(mib: f64, noise: f64) -> Vec<f64> {
    iops(mib * MIB, noise)
}

/// Three runs around `v`, ±`noise` (a fraction).
fn iops(v: f64, noise: f64) -> Vec<f64> {
    [1.0 - noise, 1.0, 1.0 + noise].iter().map(|f| v * f).collect()
}

/// A sequential test whose hosts ran `per_run` (an empty list: the host has no figure).
struct T {
    values: Vec<Option<f64>>,
    per_run: Vec<Vec<f64>>,
}

fn test_of(per_run: Vec<Vec<f64>>) -> T {
    T {
        values: per_run.iter().map(|r| (!r.is_empty()).then(|| median(r))).collect(),
        per_run,
    }
}

impl T {
    fn across<'a>(&'a self, name: &'a str, unit: Unit) -> Across<'a> {
        Across {
            test: name,
            unit,
            values: &self.values,
            per_run: &self.per_run,
        }
    }
}

const H3: [&str; 3] = ["h1", "h2", "h3"];

fn seq(t: &T) -> Across<'_> {
    t.across("SEQ1M Q8T1 read", Unit::BytesPerSec)
}

fn codes(d: &[Diagnostic]) -> Vec<&str> {
    d.iter().map(|d| d.code.as_str()).collect()
}

#[test]
fn three_equal_hosts_agree() {
    let t = test_of(vec![runs(20.0, 0.01), runs(20.0, 0.01), runs(20.0, 0.01)]);
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert!(judged[0].outliers.is_empty());
    assert_eq!(judged[0].max_deviation, Some(0.0));
    assert_eq!(codes(&v), ["hosts_agree"]);
    assert_eq!(v[0].severity, Severity::Info);
    assert_eq!(
        v[0].message,
        "the 3 hosts agree within 0.0% on every test (1): none is 15% or more from the median host"
    );
}

#[test]
fn the_slow_host_of_three_is_named() {
    let t = test_of(vec![runs(20.0, 0.01), runs(20.0, 0.01), runs(10.0, 0.01)]);
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert_eq!(judged[0].outliers, [2]);
    assert_eq!(codes(&v), ["outlier_host"]);
    assert_eq!(v[0].severity, Severity::Warning);
    assert_eq!(v[0].subject.as_deref(), Some("SEQ1M Q8T1 read"));
    assert_eq!(
        v[0].message,
        "h3: 50% below the median host on SEQ1M Q8T1 read (10.5 vs 21.0 MB/s); outside the others' noise (their runs: 20.8–21.2 MB/s)"
    );
}

#[test]
fn a_fast_host_is_named_too() {
    let t = test_of(vec![runs(20.0, 0.01), runs(30.0, 0.01), runs(20.0, 0.01)]);
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert_eq!(judged[0].outliers, [1]);
    assert!(v[0].message.starts_with("h2: 50% above the median host"), "{}", v[0].message);
}

/// One run per host: the others' figures span the noise.
#[test]
fn single_runs_use_the_others_figures_as_noise() {
    let t = T {
        values: vec![Some(20.0 * MIB), Some(10.0 * MIB), Some(20.5 * MIB)],
        per_run: vec![vec![], vec![], vec![]],
    };
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert_eq!(judged[0].outliers, [1]);
    assert!(v[0].message.ends_with("(their runs: 21.0–21.5 MB/s)"), "{}", v[0].message);
}

/// Exactly 15% from the median host is off (inclusive); just under agrees.
#[test]
fn the_threshold_is_inclusive() {
    let at = T {
        values: vec![Some(100.0), Some(100.0), Some(85.0)],
        per_run: vec![vec![99.0, 101.0], vec![99.0, 101.0], vec![84.0, 86.0]],
    };
    let (judged, v) = verdicts(&H3, &[None; 3], &[at.across("RND4K Q32T1 read", Unit::Iops)]);
    assert_eq!(judged[0].outliers, [2]);
    assert_eq!(
        v[0].message,
        "h3: 15% below the median host on RND4K Q32T1 read (85 vs 100 IOPS); outside the others' noise (their runs: 99–101 IOPS)"
    );
    let under = T {
        values: vec![Some(100.0), Some(100.0), Some(85.01)],
        per_run: vec![vec![99.0, 101.0], vec![99.0, 101.0], vec![84.0, 86.0]],
    };
    let (judged, v) = verdicts(&H3, &[None; 3], &[under.across("RND4K Q32T1 read", Unit::Iops)]);
    assert!(judged[0].outliers.is_empty() && judged[0].agrees());
    assert_eq!(codes(&v), ["hosts_agree"]);
    assert!(v[0].message.contains("within 15.0%"), "{}", v[0].message);
}

/// Off by more than the threshold, but the typical hosts' runs reach it.
#[test]
fn within_the_others_noise_no_host_is_named() {
    let t = T {
        values: vec![Some(20.0), Some(20.0), Some(16.4)],
        per_run: vec![vec![15.0, 20.0, 24.0], vec![16.0, 20.0, 24.0], vec![15.5, 16.4, 18.0]],
    };
    let (judged, v) = verdicts(&H3, &[None; 3], &[t.across("RND4K Q1T1 read", Unit::Iops)]);
    assert!(judged[0].outliers.is_empty());
    assert!(!judged[0].agrees());
    assert_eq!(codes(&v), ["hosts_differ"], "and no hosts_agree");
    assert_eq!(v[0].severity, Severity::Info);
    assert_eq!(
        v[0].message,
        "on RND4K Q1T1 read, h3 18% below the median host (16 vs 20 IOPS), but within the others' noise (their runs: 15–24 IOPS): no host stands out; more --runs would tell"
    );
    // The ranges just apart: named.
    let apart = T {
        values: vec![Some(20.0), Some(20.0), Some(16.4)],
        per_run: vec![vec![18.1, 20.0, 24.0], vec![19.0, 20.0, 24.0], vec![15.5, 16.4, 18.0]],
    };
    let (judged, _) = verdicts(&H3, &[None; 3], &[apart.across("RND4K Q1T1 read", Unit::Iops)]);
    assert_eq!(judged[0].outliers, [2]);
}

/// Two hosts: the median is their mean, both are as far from it, and
/// neither can be named; hosts that are close agree.
#[test]
fn two_hosts_differ_but_neither_is_named() {
    let hosts = ["a", "b"];
    let t = test_of(vec![runs(10.0, 0.01), runs(20.0, 0.01)]);
    let (judged, v) = verdicts(&hosts, &[None; 2], &[seq(&t)]);
    assert!(judged[0].outliers.is_empty());
    assert_eq!(codes(&v), ["hosts_differ"]);
    assert_eq!(v[0].severity, Severity::Warning);
    assert_eq!(
        v[0].message,
        "the hosts differ on SEQ1M Q8T1 read by up to 33% from the median host (15.7 MB/s; a 10.5 MB/s, b 21.0 MB/s): two hosts cannot tell which one is off"
    );
    let close = test_of(vec![runs(19.0, 0.01), runs(20.0, 0.01)]);
    let (_, v) = verdicts(&hosts, &[None; 2], &[seq(&close)]);
    assert_eq!(codes(&v), ["hosts_agree"]);
    assert_eq!(
        v[0].message,
        "the 2 hosts agree within 2.6% on every test (1): none is 15% or more from the median host"
    );
}

#[test]
fn without_a_majority_no_host_is_named() {
    // 10, 20, 30: only the median host is typical.
    let t = test_of(vec![runs(10.0, 0.01), runs(20.0, 0.01), runs(30.0, 0.01)]);
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert!(judged[0].outliers.is_empty());
    assert_eq!(codes(&v), ["hosts_differ"]);
    assert!(
        v[0].message
            .ends_with("no majority of the 3 hosts agrees within 15% of the median host, so no single host stands out"),
        "{}",
        v[0].message
    );
    // Two and two.
    let hosts = ["a", "b", "c", "d"];
    let t = test_of(vec![runs(10.0, 0.01), runs(10.0, 0.01), runs(20.0, 0.01), runs(20.0, 0.01)]);
    let (judged, v) = verdicts(&hosts, &[None; 4], &[seq(&t)]);
    assert!(judged[0].outliers.is_empty());
    assert_eq!(codes(&v), ["hosts_differ"]);
}

/// Two slow hosts of five do not hide each other: both are named.
#[test]
fn two_slow_hosts_of_five_are_both_named() {
    let hosts = ["a", "b", "c", "d", "e"];
    let t = test_of(vec![
        runs(20.0, 0.01),
        runs(10.0, 0.01),
        runs(20.0, 0.01),
        runs(10.5, 0.01),
        runs(20.0, 0.01),
    ]);
    let (judged, v) = verdicts(&hosts, &[None; 5], &[seq(&t)]);
    assert_eq!(judged[0].outliers, [1, 3]);
    assert_eq!(codes(&v), ["outlier_host", "outlier_host"]);
}

#[test]
fn a_failed_host_is_said_and_the_others_still_judged() {
    let t = test_of(vec![runs(20.0, 0.01), vec![], runs(20.2, 0.01)]);
    let (judged, v) = verdicts(&H3, &[None, Some("connection refused"), None], &[seq(&t)]);
    assert!(judged[0].outliers.is_empty());
    assert_eq!(codes(&v), ["host_failed", "hosts_agree"]);
    assert_eq!(v[0].message, "h2: no result: connection refused");
    assert_eq!(v[0].subject.as_deref(), Some("h2"));
    assert_eq!(v[0].severity, Severity::Warning);
    assert!(
        v[1].message.starts_with("the 2 hosts that reported agree within 0.5%"),
        "{}",
        v[1].message
    );
    // Only one host left: nothing to agree with.
    let t = test_of(vec![runs(20.0, 0.01), vec![], vec![]]);
    let (judged, v) = verdicts(&H3, &[None, Some("timeout"), Some("refused")], &[seq(&t)]);
    assert_eq!(judged[0].max_deviation, None);
    assert_eq!(codes(&v), ["host_failed", "host_failed"]);
}

/// A mixed job's read and write are two tests: an outlier on one only.
#[test]
fn mixed_directions_are_judged_apart() {
    let read = test_of(vec![iops(1000.0, 0.01), iops(1010.0, 0.01), iops(990.0, 0.01)]);
    let write = test_of(vec![iops(430.0, 0.01), iops(200.0, 0.01), iops(425.0, 0.01)]);
    let tests = [
        read.across("RND4K Q32T1 mix read", Unit::Iops),
        write.across("RND4K Q32T1 mix write", Unit::Iops),
    ];
    let (judged, v) = verdicts(&H3, &[None; 3], &tests);
    assert!(judged[0].agrees() && judged[0].outliers.is_empty());
    assert_eq!(judged[1].outliers, [1]);
    assert_eq!(codes(&v), ["outlier_host"], "no hosts_agree with an outlier");
    assert!(
        v[0].message
            .starts_with("h2: 53% below the median host on RND4K Q32T1 mix write (200 vs 425 IOPS)"),
        "{}",
        v[0].message
    );
}

/// A test only one host ran is not judged, and agreement says so.
#[test]
fn agreement_counts_the_shared_tests() {
    let both = test_of(vec![runs(20.0, 0.01), runs(20.0, 0.02)]);
    let one = test_of(vec![runs(20.0, 0.01), vec![]]);
    let (judged, v) = verdicts(&["a", "b"], &[None; 2], &[seq(&both), seq(&one)]);
    assert_eq!(judged[1], TestVerdict::default());
    assert_eq!(codes(&v), ["hosts_agree"]);
    assert!(v[0].message.contains("on every test they share (1 of 2)"), "{}", v[0].message);
}

#[test]
fn a_zero_median_is_not_judged() {
    let t = T {
        values: vec![Some(0.0), Some(0.0), Some(5.0)],
        per_run: vec![vec![], vec![], vec![]],
    };
    let (judged, v) = verdicts(&H3, &[None; 3], &[seq(&t)]);
    assert_eq!(judged[0], TestVerdict::default());
    assert!(v.is_empty());
}

#[test]
fn a_verdict_on_many_hosts_names_the_extremes_only() {
    let names: Vec<String> = (0..32).map(|i| format!("h{i:02}")).collect();
    let hosts: Vec<&str> = names.iter().map(String::as_str).collect();
    let reporting: Vec<(usize, f64)> = (0..32).map(|i| (i, 10e6 + (i % 7) as f64 * 1e6)).collect();
    let line = extremes(&hosts, &reporting, Unit::BytesPerSec);
    assert!(
        line.starts_with("slowest h00 10.0 MB/s, h07 10.0 MB/s, h14 10.0 MB/s; 26 hosts between; fastest "),
        "{line}"
    );
    assert!(line.len() < 200, "{line}");
    let few = extremes(&hosts[..3], &reporting[..3], Unit::BytesPerSec);
    assert_eq!(few, "h00 10.0 MB/s, h01 11.0 MB/s, h02 12.0 MB/s");
}
