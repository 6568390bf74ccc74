//! Verdicts on one plan run on many hosts: which host stands out of the
//! group on a test, when the hosts agree, and which gave no result.
//!
//! A test's figures are each host's median in the test's unit (bytes/s or
//! IOPS), with the per-run figures it is the median of. The rule for a test:
//!
//! 1. The *median host* is the median of the hosts' figures (with an even
//!    count, the mean of the middle two). A host is *off* when its figure
//!    differs from it by at least [`OUTLIER_MIN_PCT`]; the others are the
//!    *typical* hosts. No host off: the hosts agree on the test.
//! 2. A host is only named an outlier when the typical hosts are a strict
//!    majority of those that reported: an outlier is the one the rest agree
//!    against. So two hosts that differ are never an outlier and its
//!    reference (which one is off cannot be told), nor three hosts spread
//!    evenly (10, 20, 30); they get `hosts_differ` instead. Measuring
//!    against the typical hosts, not all the others, keeps two slow hosts
//!    of five from hiding each other.
//! 3. And only when it lies outside the typical hosts' noise: the range of
//!    its per-run figures does not overlap the range spanned by all the
//!    typical hosts' per-run figures. That range holds both the run-to-run
//!    noise and the host-to-host spread of the typical hosts, so it needs no
//!    model of either, and it works with one run per host too (the typical
//!    hosts' figures then span the range). This is the decision
//!    `compare::stats`' bootstrap makes with 2 or 3 runs a side (its 95%
//!    interval of a ratio of medians is then exactly the ranges' ratio), kept
//!    as the range for any number of runs: a host is named only when none of
//!    its runs could pass for a typical host's. An off host within that noise
//!    gets `hosts_differ` (info): the hosts differ, but not beyond their noise.
//!
//! `hosts_agree` is said when at least two hosts reported and no host is off
//! on any test they share, with the largest distance from the median host.

use super::diagnostic::{Code, Diagnostic, Severity};
use super::stats::median;
use crate::base::thresholds::OUTLIER_MIN_PCT;
use crate::base::units::{BwUnit, Unit, fmt_number, fmt_value};

/// One test on every host of the group, figures in `unit`.
#[derive(Clone, Copy, Debug)]
pub struct Across<'a> {
    /// The test's name (job name, plus the direction for a mixed job).
    pub test: &'a str,
    pub unit: Unit,
    /// Per host: its figure (the median over its runs); `None` when the
    /// host has none (it failed, or did not run this test).
    pub values: &'a [Option<f64>],
    /// Per host: the figures of its runs; empty when only the median is
    /// known (the median then stands for the runs).
    pub per_run: &'a [Vec<f64>],
}

/// What the rules found on one test.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestVerdict {
    /// The hosts (indices) named outliers.
    pub outliers: Vec<usize>,
    /// The largest distance of a host's figure from the median host's, as
    /// a fraction of the median host's; `None` when the test was not judged
    /// (fewer than two hosts reported, or the median host's figure is not positive).
    pub max_deviation: Option<f64>,
    /// `outlier_host` for each outlier, then at most one `hosts_differ`.
    pub diagnostics: Vec<Diagnostic>,
}

impl TestVerdict {
    /// Judged, and every host within [`OUTLIER_MIN_PCT`] of the median host.
    pub fn agrees(&self) -> bool {
        self.max_deviation.is_some_and(|d| d < OUTLIER_MIN_PCT / 100.0)
    }
}

/// The finite figures of host `i`'s runs, or its median alone.
fn runs_of(t: &Across, i: usize) -> Vec<f64> {
    let runs: Vec<f64> = t.per_run.get(i).into_iter().flatten().copied().filter(|x| x.is_finite()).collect();
    if runs.is_empty() { t.values[i].into_iter().collect() } else { runs }
}

fn span(v: impl IntoIterator<Item = f64>) -> (f64, f64) {
    v.into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
}

/// "41% below", "35% above".
fn distance(dev: f64) -> String {
    format!("{:.0}% {}", dev.abs() * 100.0, if dev < 0.0 { "below" } else { "above" })
}

/// "12.3 vs 20.9 MB/s".
fn versus(v: f64, m: f64, unit: Unit) -> String {
    format!("{} vs {}", fmt_number(v, unit, BwUnit::Mb), fmt_value(m, unit))
}

/// "19.8–20.2 MB/s" (one figure when the range is a point).
fn range(lo: f64, hi: f64, unit: Unit) -> String {
    if fmt_number(lo, unit, BwUnit::Mb) == fmt_number(hi, unit, BwUnit::Mb) {
        fmt_value(lo, unit)
    } else {
        format!("{}–{}", fmt_number(lo, unit, BwUnit::Mb), fmt_value(hi, unit))
    }
}

/// The most hosts a verdict names one by one: past it, the slowest and
/// fastest half of them each, and how many lie between (32 hosts made a
/// 764-character line).
const NAMED_HOSTS: usize = 6;

/// "a 1 MB/s, b 2 MB/s" for every reporting host, in the order given; past
/// [`NAMED_HOSTS`], the slowest and fastest by value and the count between.
fn extremes(hosts: &[&str], reporting: &[(usize, f64)], unit: Unit) -> String {
    let name = |(i, v): &(usize, f64)| format!("{} {}", hosts[*i], fmt_value(*v, unit));
    if reporting.len() <= NAMED_HOSTS {
        return reporting.iter().map(name).collect::<Vec<_>>().join(", ");
    }
    let mut by = reporting.to_vec();
    by.sort_by(|a, b| a.1.total_cmp(&b.1));
    let k = NAMED_HOSTS / 2;
    let low: Vec<String> = by[..k].iter().map(name).collect();
    let high: Vec<String> = by[by.len() - k..].iter().map(name).collect();
    format!(
        "slowest {}; {} hosts between; fastest {}",
        low.join(", "),
        by.len() - 2 * k,
        high.join(", ")
    )
}

/// Judge one test across the hosts named `hosts` (as `t.values`).
pub fn judge_test(hosts: &[&str], t: &Across) -> TestVerdict {
    let reporting: Vec<(usize, f64)> = t
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.filter(|x| x.is_finite()).map(|x| (i, x)))
        .collect();
    if reporting.len() < 2 {
        return TestVerdict::default();
    }
    let m = median(&reporting.iter().map(|(_, v)| *v).collect::<Vec<_>>());
    if !(m.is_finite() && m > 0.0) {
        return TestVerdict::default();
    }
    let dev = |v: f64| (v - m) / m;
    let max_deviation = reporting.iter().map(|(_, v)| dev(*v).abs()).fold(0.0, f64::max);
    let mut verdict = TestVerdict {
        max_deviation: Some(max_deviation),
        ..TestVerdict::default()
    };
    let is_off = |v: f64| dev(v).abs() >= OUTLIER_MIN_PCT / 100.0;
    let off: Vec<(usize, f64)> = reporting.iter().copied().filter(|(_, v)| is_off(*v)).collect();
    let typical: Vec<(usize, f64)> = reporting.iter().copied().filter(|(_, v)| !is_off(*v)).collect();
    if off.is_empty() {
        return verdict;
    }
    if typical.len() * 2 <= reporting.len() {
        let figures = extremes(hosts, &reporting, t.unit);
        let why = if reporting.len() == 2 {
            "two hosts cannot tell which one is off".to_string()
        } else {
            format!(
                "no majority of the {} hosts agrees within {OUTLIER_MIN_PCT}% of the median host, so no single host stands out",
                reporting.len()
            )
        };
        verdict.diagnostics.push(
            Diagnostic::new(
                Code::HostsDiffer,
                format!(
                    "the hosts differ on {} by up to {:.0}% from the median host ({}; {}): {why}",
                    t.test,
                    max_deviation * 100.0,
                    fmt_value(m, t.unit),
                    figures
                ),
            )
            .about(t.test),
        );
        return verdict;
    }
    let (lo, hi) = span(typical.iter().flat_map(|(i, _)| runs_of(t, *i)));
    let mut within = Vec::new();
    for &(i, v) in &off {
        let (a, b) = span(runs_of(t, i));
        if b < lo || a > hi {
            verdict.outliers.push(i);
            verdict.diagnostics.push(
                Diagnostic::new(
                    Code::OutlierHost,
                    format!(
                        "{}: {} the median host on {} ({}); outside the others' noise (their runs: {})",
                        hosts[i],
                        distance(dev(v)),
                        t.test,
                        versus(v, m, t.unit),
                        range(lo, hi, t.unit)
                    ),
                )
                .about(t.test),
            );
        } else {
            within.push(format!(
                "{} {} the median host ({})",
                hosts[i],
                distance(dev(v)),
                versus(v, m, t.unit)
            ));
        }
    }
    if !within.is_empty() {
        let mut d = Diagnostic::new(
            Code::HostsDiffer,
            format!(
                "on {}, {}, but within the others' noise (their runs: {}): no host stands out; more --runs would tell",
                t.test,
                within.join(", "),
                range(lo, hi, t.unit)
            ),
        )
        .about(t.test);
        d.severity = Severity::Info;
        verdict.diagnostics.push(d);
    }
    verdict
}

/// `host_failed`: `host` gave no result, because of `error`.
pub fn host_failed(host: &str, error: &str) -> Diagnostic {
    Diagnostic::new(Code::HostFailed, format!("{host}: no result: {error}")).about(host)
}

/// `hosts_agree`: at least two hosts reported (`reporting` of `all`), and
/// every test they share (`judged` of `tests`) agrees; `max_deviation` is
/// the largest distance from the median host over them, a fraction.
fn hosts_agree(reporting: usize, all: usize, judged: usize, tests: usize, max_deviation: f64) -> Diagnostic {
    let who = if reporting == all {
        format!("the {reporting} hosts")
    } else {
        format!("the {reporting} hosts that reported")
    };
    let on = if judged == tests {
        format!("every test ({tests})")
    } else {
        format!("every test they share ({judged} of {tests})")
    };
    Diagnostic::new(
        Code::HostsAgree,
        format!(
            "{who} agree within {:.1}% on {on}: none is {OUTLIER_MIN_PCT}% or more from the median host",
            max_deviation * 100.0
        ),
    )
}

/// Every verdict on a group: `host_failed` for each host with an error (in
/// `errors`, as `hosts`), the outliers and differences of each test in
/// order, and `hosts_agree` when nothing was found. Returns each test's
/// verdict too (as `tests`).
pub fn verdicts(hosts: &[&str], errors: &[Option<&str>], tests: &[Across]) -> (Vec<TestVerdict>, Vec<Diagnostic>) {
    let mut out: Vec<Diagnostic> = hosts.iter().zip(errors).filter_map(|(h, e)| e.map(|e| host_failed(h, e))).collect();
    let judged: Vec<TestVerdict> = tests.iter().map(|t| judge_test(hosts, t)).collect();
    out.extend(judged.iter().flat_map(|v| v.diagnostics.iter().cloned()));
    let reporting = errors.iter().filter(|e| e.is_none()).count();
    let shared: Vec<&TestVerdict> = judged.iter().filter(|v| v.max_deviation.is_some()).collect();
    if reporting >= 2 && !shared.is_empty() && shared.iter().all(|v| v.agrees()) {
        let max = shared.iter().filter_map(|v| v.max_deviation).fold(0.0, f64::max);
        out.push(hosts_agree(reporting, hosts.len(), shared.len(), tests.len(), max));
    }
    (judged, out)
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
