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
#[path = "hosts_tests.rs"]
mod tests;
