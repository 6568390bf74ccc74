//! Tests of the group of hosts: matching, figures across hosts, verdicts.

use super::*;
use crate::summary::fixtures::{J, MIB, report};
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
