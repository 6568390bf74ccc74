//! One plan run on many hosts (fio's client/server, or iolab on each):
//! every host's result side by side, the group's sum, median host and
//! spread per test, and the verdicts of [`crate::judge::hosts`].
//!
//! Tests are matched across hosts as `compare` matches them: by job name,
//! random or not, and direction. A read-only or write-only job is one test
//! named after the job; a mixed job gives two (`NAME read`, `NAME write`).
//! Each test has one unit, bytes/s for sequential jobs and IOPS for random
//! ones, and each host's value is its job's median in that unit. Unlike
//! `compare`, a test some hosts lack is kept, with no value for them: a
//! failed host has none at all.
//!
//! `sum` adds the hosts' figures: the group's throughput when the hosts ran
//! at the same time (fio's client starts them together).

use super::Direction;
use super::{DirReport, JobReport, Report, median};
use crate::base::units::Unit;
use crate::judge::Diagnostic;
use crate::judge::hosts::{Across, verdicts};
use crate::judge::stats::cv;
use serde::Serialize;

/// The group's results, and its JSON document.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct HostsReport {
    /// Every host gave a result (otherwise the group is incomplete: the
    /// others' results are kept, and `hosts[].error` says why).
    pub complete: bool,
    /// The hosts in the order given.
    pub hosts: Vec<HostEntry>,
    /// Every test any host ran, in the order the hosts first ran them.
    pub tests: Vec<HostsTest>,
    /// `host_failed`, `outlier_host`, `hosts_differ`, `hosts_agree` (see
    /// [`crate::judge::hosts`]), as `{"code", "message", "subject"}`.
    pub verdicts: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct HostEntry {
    /// The host as given (`HOST[:PORT]`).
    pub host: String,
    /// The stored run of this host's result (`None` when not stored or failed).
    #[schemars(extend("x-unit" = "id"))]
    pub run_id: Option<i64>,
    /// The host gave a result with something measured.
    pub ok: bool,
    /// Why it gave none.
    pub error: Option<String>,
}

/// One test across the hosts; every vector has one entry per host, in order.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct HostsTest {
    /// The job's name, plus the direction for a mixed job.
    pub test: String,
    /// The job the test comes from (a mixed job's two tests share it).
    pub job: String,
    /// The direction the test measures.
    pub direction: Direction,
    /// The unit of every figure of the test: `bytes/s` (sequential) or `IOPS` (random).
    pub unit: Unit,
    /// Each host's median over its runs, in `unit`; `null` when it has none.
    #[schemars(extend("x-unit" = "of unit"))]
    pub values: Vec<Option<f64>>,
    /// Each host's per-run figures, in `unit`.
    #[schemars(extend("x-unit" = "of unit"))]
    pub per_run: Vec<Vec<f64>>,
    /// Over the hosts that reported: their sum, the median host's value, the
    /// lowest and highest, and the coefficient of variation across hosts.
    #[schemars(extend("x-unit" = "of unit"))]
    pub sum: f64,
    /// The median host's value.
    #[schemars(extend("x-unit" = "of unit"))]
    pub median_host: f64,
    /// The lowest host's value.
    #[schemars(extend("x-unit" = "of unit"))]
    pub min: f64,
    /// The highest host's value.
    #[schemars(extend("x-unit" = "of unit"))]
    pub max: f64,
    /// The coefficient of variation across the hosts (stddev / mean).
    #[schemars(extend("x-unit" = "ratio"))]
    pub cv: f64,
    /// The hosts named outliers on this test.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outliers: Vec<String>,
}

/// The direction's figures of a job.
fn dir(job: &JobReport, d: Direction) -> Option<&DirReport> {
    match d {
        Direction::Read => job.read.as_ref(),
        Direction::Write => job.write.as_ref(),
        Direction::App => None,
    }
}

fn figure(d: &DirReport, unit: Unit) -> f64 {
    match unit {
        Unit::BytesPerSec => d.bw_bytes,
        Unit::Iops | Unit::Seconds => d.iops,
    }
}

/// What identifies a test on every host: job name, random, direction.
#[derive(Clone, PartialEq)]
struct Key {
    job: String,
    random: bool,
    direction: Direction,
}

impl Key {
    fn unit(&self) -> Unit {
        if self.random { Unit::Iops } else { Unit::BytesPerSec }
    }

    /// This test's job in `report`: the first with its name, kind and direction.
    fn find<'a>(&self, report: &'a Report) -> Option<&'a JobReport> {
        report
            .jobs()
            .iter()
            .find(|j| j.name == self.job && j.rw.is_random() == self.random && dir(j, self.direction).is_some())
    }
}

/// The tests of `report`, in job order, with their names.
fn tests_of(report: &Report) -> Vec<(Key, String)> {
    let mut out = Vec::new();
    for job in report.jobs() {
        let mixed = job.rw.is_mixed() || (job.read.is_some() && job.write.is_some());
        for direction in [Direction::Read, Direction::Write] {
            if dir(job, direction).is_none() {
                continue;
            }
            let name = if mixed {
                format!("{} {}", job.name, direction.as_str())
            } else {
                job.name.clone()
            };
            let key = Key {
                job: job.name.clone(),
                random: job.rw.is_random(),
                direction,
            };
            out.push((key, name));
        }
    }
    out
}

/// The group's report from each host's name, result (`None` when it gave
/// none) and error. A host counts as failed (`ok` false, a `host_failed`
/// verdict) when it has an error or no result with something measured;
/// its error then is the one given, else "no result" or "nothing measured".
pub fn hosts_report(hosts: &[(String, Option<&Report>, Option<String>)]) -> HostsReport {
    let entries: Vec<HostEntry> = hosts
        .iter()
        .map(|(host, report, error)| {
            let ok = error.is_none() && report.is_some_and(Report::has_results);
            let error = match (error, report) {
                (Some(e), _) => Some(e.clone()),
                (None, None) => Some("no result".to_string()),
                (None, Some(_)) if !ok => Some("nothing measured".to_string()),
                (None, Some(_)) => None,
            };
            HostEntry {
                host: host.clone(),
                run_id: report.and_then(|r| r.run_id),
                ok,
                error,
            }
        })
        .collect();
    // Only the results of hosts that are ok count.
    let reports: Vec<Option<&Report>> = hosts.iter().zip(&entries).map(|((_, r, _), e)| r.filter(|_| e.ok)).collect();

    let mut keys: Vec<(Key, String)> = Vec::new();
    for report in reports.iter().flatten() {
        for (key, name) in tests_of(report) {
            if !keys.iter().any(|(k, n)| *k == key || *n == name) {
                keys.push((key, name));
            }
        }
    }
    let mut tests: Vec<HostsTest> = keys.iter().map(|(key, name)| test_across(key, name, &reports)).collect();

    let names: Vec<&str> = entries.iter().map(|e| e.host.as_str()).collect();
    let errors: Vec<Option<&str>> = entries.iter().map(|e| e.error.as_deref()).collect();
    let across: Vec<Across> = tests
        .iter()
        .map(|t| Across {
            test: &t.test,
            unit: t.unit,
            values: &t.values,
            per_run: &t.per_run,
        })
        .collect();
    let (judged, verdicts) = verdicts(&names, &errors, &across);
    for (t, v) in tests.iter_mut().zip(judged) {
        t.outliers = v.outliers.iter().map(|&i| names[i].to_string()).collect();
    }
    HostsReport {
        complete: entries.iter().all(|e| e.ok),
        hosts: entries,
        tests,
        verdicts,
    }
}

/// One test on every host.
fn test_across(key: &Key, name: &str, reports: &[Option<&Report>]) -> HostsTest {
    let unit = key.unit();
    let jobs: Vec<Option<&JobReport>> = reports.iter().map(|r| r.and_then(|r| key.find(r))).collect();
    let values: Vec<Option<f64>> = jobs
        .iter()
        .map(|j| j.and_then(|j| dir(j, key.direction)).map(|d| figure(d, unit)))
        .collect();
    let per_run: Vec<Vec<f64>> = jobs
        .iter()
        .map(|j| {
            j.iter()
                .flat_map(|j| &j.runs)
                .filter_map(|r| match key.direction {
                    Direction::Read => r.read.as_ref(),
                    Direction::Write => r.write.as_ref(),
                    Direction::App => None,
                })
                .map(|d| figure(d, unit))
                .collect()
        })
        .collect();
    let reported: Vec<f64> = values.iter().flatten().copied().collect();
    HostsTest {
        test: name.to_string(),
        job: key.job.clone(),
        direction: key.direction,
        unit,
        sum: reported.iter().sum(),
        median_host: median(&reported),
        min: reported.iter().copied().fold(f64::INFINITY, f64::min),
        max: reported.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        cv: cv(&reported),
        values,
        per_run,
        outliers: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    //! Tests of the group of hosts: matching, figures across hosts, verdicts.

    use super::*;
    use crate::summary::tests::fixtures::{J, MIB, report};
    use serde_json::json;

    /// Three runs around `mib` MiB/s, ±1%, in bytes/s.
    fn mib_runs(mib: f64) -> Vec<f64> {
        [0.99, 1.0, 1.01].iter().map(|f| mib * MIB * f).collect()
    }

    fn seq_host(host: &str, mib: f64) -> Report {
        report(host, None, &[J::read("SEQ1M Q8T1 read", &mib_runs(mib))])
    }

    fn group(reports: &[(&str, Option<&Report>, Option<&str>)]) -> HostsReport {
        let hosts: Vec<(String, Option<&Report>, Option<String>)> =
            reports.iter().map(|(h, r, e)| (h.to_string(), *r, e.map(str::to_string))).collect();
        hosts_report(&hosts)
    }

    fn codes(r: &HostsReport) -> Vec<&str> {
        r.verdicts.iter().map(|d| d.code.as_str()).collect()
    }

    /// Ground truth: three hosts at 20 MiB/s sum to 60 MiB/s, and agree.
    #[test]
    fn three_equal_hosts_sum_and_agree() {
        let (a, b, c) = (seq_host("h1", 20.0), seq_host("h2", 20.0), seq_host("h3", 20.0));
        let g = group(&[("h1", Some(&a), None), ("h2", Some(&b), None), ("h3", Some(&c), None)]);
        assert_eq!(g.tests.len(), 1);
        let t = &g.tests[0];
        assert_eq!(
            (t.test.as_str(), t.job.as_str(), t.direction, t.unit),
            ("SEQ1M Q8T1 read", "SEQ1M Q8T1 read", Direction::Read, Unit::BytesPerSec)
        );
        assert_eq!(t.values, vec![Some(20.0 * MIB); 3]);
        assert_eq!(t.per_run, vec![mib_runs(20.0); 3]);
        assert!((t.sum / (60.0 * MIB) - 1.0).abs() < 0.03, "{}", t.sum);
        assert_eq!((t.median_host, t.min, t.max, t.cv), (20.0 * MIB, 20.0 * MIB, 20.0 * MIB, 0.0));
        assert!(t.outliers.is_empty());
        assert_eq!(codes(&g), ["hosts_agree"]);
        assert!(g.hosts.iter().all(|h| h.ok && h.error.is_none()));
    }

    /// Ground truth: one host at 10 MiB/s and two at 20: the slow one is named.
    #[test]
    fn the_slow_host_is_named() {
        let (a, b, c) = (seq_host("h1", 20.0), seq_host("h2", 10.0), seq_host("h3", 20.0));
        let g = group(&[("h1", Some(&a), None), ("h2", Some(&b), None), ("h3", Some(&c), None)]);
        let t = &g.tests[0];
        assert_eq!(t.outliers, ["h2"]);
        assert_eq!(t.sum, 50.0 * MIB);
        assert_eq!((t.min, t.max), (10.0 * MIB, 20.0 * MIB));
        assert_eq!(codes(&g), ["outlier_host"]);
        assert!(
            g.verdicts[0]
                .message
                .starts_with("h2: 50% below the median host on SEQ1M Q8T1 read (10.5 vs 21.0 MB/s)"),
            "{}",
            g.verdicts[0].message
        );
    }

    #[test]
    fn a_failed_host_has_no_values_and_a_verdict() {
        let (a, c) = (seq_host("h1", 20.0), seq_host("h3", 20.0));
        let stored = Report { run_id: Some(41), ..c };
        let g = group(&[
            ("h1", Some(&a), None),
            ("h2", None, Some("connection refused")),
            ("h3", Some(&stored), None),
        ]);
        assert_eq!(
            g.hosts[1],
            HostEntry {
                host: "h2".into(),
                run_id: None,
                ok: false,
                error: Some("connection refused".into())
            }
        );
        assert_eq!(g.hosts[2].run_id, Some(41));
        let t = &g.tests[0];
        assert_eq!(t.values, [Some(20.0 * MIB), None, Some(20.0 * MIB)]);
        assert!(t.per_run[1].is_empty());
        assert_eq!(t.sum, 40.0 * MIB, "over the hosts that reported");
        assert_eq!(codes(&g), ["host_failed", "hosts_agree"]);
        assert_eq!(g.verdicts[0].message, "h2: no result: connection refused");
        assert!(
            g.verdicts[1].message.starts_with("the 2 hosts that reported agree"),
            "{}",
            g.verdicts[1].message
        );
    }

    /// A result with nothing measured, or none and no error, is a failure too.
    #[test]
    fn empty_results_fail() {
        let a = seq_host("h1", 20.0);
        let empty = report("h2", None, &[]);
        let g = group(&[("h1", Some(&a), None), ("h2", Some(&empty), None), ("h3", None, None)]);
        assert_eq!((g.hosts[1].ok, g.hosts[1].error.as_deref()), (false, Some("nothing measured")));
        assert_eq!((g.hosts[2].ok, g.hosts[2].error.as_deref()), (false, Some("no result")));
        assert_eq!(codes(&g), ["host_failed", "host_failed"], "one host left: nothing to agree with");
    }

    /// A mixed job is two tests in IOPS; tests are the union over hosts, in order.
    #[test]
    fn mixed_jobs_and_tests_some_hosts_lack() {
        let mix = |r: f64, w: f64| J::new("RND4K Q32T1 mix", "randrw", &[r * 0.99, r, r * 1.01], &[w * 0.99, w, w * 1.01]);
        let a = report("a", None, &[J::read("SEQ", &mib_runs(20.0)), mix(1000.0, 430.0)]);
        let b = report("b", None, &[mix(1010.0, 200.0)]);
        let c = report("c", None, &[mix(990.0, 425.0), J::read("EXTRA", &mib_runs(5.0))]);
        let g = group(&[("a", Some(&a), None), ("b", Some(&b), None), ("c", Some(&c), None)]);
        let names: Vec<&str> = g.tests.iter().map(|t| t.test.as_str()).collect();
        assert_eq!(names, ["SEQ", "RND4K Q32T1 mix read", "RND4K Q32T1 mix write", "EXTRA"]);
        assert_eq!(g.tests[1].unit, Unit::Iops);
        assert_eq!(g.tests[1].values, [Some(1000.0), Some(1010.0), Some(990.0)]);
        assert_eq!(g.tests[2].direction, Direction::Write);
        assert_eq!(g.tests[2].outliers, ["b"]);
        assert_eq!(g.tests[0].values, [Some(20.0 * MIB), None, None]);
        assert_eq!(codes(&g), ["outlier_host"]);
        assert!(
            g.verdicts[0].message.contains("on RND4K Q32T1 mix write (200 vs 425 IOPS)"),
            "{}",
            g.verdicts[0].message
        );
    }

    /// The same name with another pattern (random vs sequential) is another test.
    #[test]
    fn tests_match_by_kind_and_direction() {
        let a = report("a", None, &[J::new("T", "randread", &[100.0], &[])]);
        let b = report("b", None, &[J::new("T", "read", &[100.0], &[])]);
        let g = group(&[("a", Some(&a), None), ("b", Some(&b), None)]);
        assert_eq!(g.tests.len(), 1, "one name: the first kind");
        assert_eq!(g.tests[0].values, [Some(100.0), None]);
    }

    #[test]
    fn the_document_shape() {
        let (a, b) = (seq_host("h1", 20.0), seq_host("h2", 20.0));
        let g = group(&[("h1", Some(&a), None), ("h2", Some(&b), Some("late"))]);
        let v = serde_json::to_value(&g).unwrap();
        assert_eq!(
            v["hosts"],
            json!([
                {"host": "h1", "run_id": null, "ok": true, "error": null},
                {"host": "h2", "run_id": null, "ok": false, "error": "late"}
            ])
        );
        let t = &v["tests"][0];
        assert_eq!(t["unit"], "bytes/s");
        assert_eq!(t["direction"], "read");
        assert_eq!(t["values"], json!([20.0 * MIB, null]));
        assert!(t.get("outliers").is_none());
        assert_eq!(
            v["verdicts"][0],
            json!({"code": "host_failed", "message": "h2: no result: late", "subject": "h2"})
        );
    }

    /// fio's client output per host, each merged back into tests: the real
    /// fixture as two identical hosts agrees exactly.
    #[test]
    fn merged_fio_hosts_agree() {
        let text = std::fs::read_to_string(format!("{}/tests/fixtures/fio/sections-2x2.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let mut r = crate::import::parse_fio_json(&text).unwrap();
        if let crate::summary::Body::Jobs(jobs) = &mut r.body {
            for j in jobs {
                let (test, k) = j.name.rsplit_once('@').expect("NAME@k");
                j.name = crate::plan::fio::section_name(test, k.parse().unwrap());
            }
        }
        let m = crate::summary::fio::merge_fio_sections(r);
        let g = group(&[("h1", Some(&m), None), ("h2", Some(&m), None)]);
        let names: Vec<&str> = g.tests.iter().map(|t| t.test.as_str()).collect();
        assert_eq!(names, ["SEQ1M Q8T1 read", "RND4K Q4T1 mix read", "RND4K Q4T1 mix write"]);
        assert!(g.tests.iter().all(|t| t.per_run.iter().all(|p| p.len() == 2)));
        assert_eq!(codes(&g), ["hosts_agree"]);
        assert!(
            g.verdicts[0].message.starts_with("the 2 hosts agree within 0.0% on every test (3)"),
            "{}",
            g.verdicts[0].message
        );
    }
}
