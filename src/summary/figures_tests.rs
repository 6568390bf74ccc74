use super::*;
use crate::summary::apps::Stats;
use serde_json::json;

fn dir(iops: f64, p99: u64, spread: Option<(f64, f64, f64)>) -> serde_json::Value {
    json!({
        "bytes": 1, "ios": 1, "bw_bytes": 1e6, "iops": iops,
        "lat_ns": {"mean": 1.0, "min": 1, "max": p99, "p50": 1, "p90": 1, "p99": p99, "p99_9": p99, "p99_99": p99},
        "bw_min": spread.map(|s| s.0), "bw_max": spread.map(|s| s.1), "bw_cv": spread.map(|s| s.2),
    })
}

fn cpu(usr: f64, sys: f64) -> serde_json::Value {
    json!({"usr_pct": usr, "sys_pct": sys, "pct_per_100mbs": null, "system_busy_pct": 0.0,
           "system_idle_pct": 100.0, "system_sys_pct": 0.0, "system_iowait_pct": 0.0})
}

fn run() -> serde_json::Value {
    json!({"read": null, "write": null, "cpu": cpu(0.0, 0.0), "device": null, "wall_ns": 1, "sync_ns": 0,
           "first_done_ns": 0, "last_done_ns": 0, "samples": {"read_bytes_per_s": [], "write_bytes_per_s": []}})
}

fn job(name: &str, read: Option<serde_json::Value>, write: Option<serde_json::Value>) -> serde_json::Value {
    json!({
        "name": name, "rw": "randrw", "bs": 4096, "qd": 1, "threads": 1, "mix_read": 70, "direct": true,
        "engine": "io_uring", "workers": 1, "duration_s": 1.0, "limit_bytes": null, "span_bytes": 1 << 20,
        "runs": [run(), run()], "read": read, "write": write, "cpu": cpu(12.5, 30.25), "device": null, "warnings": []
    })
}

fn job_report(v: serde_json::Value) -> JobReport {
    serde_json::from_value(v).expect("a JobReport")
}

fn report(jobs: Vec<serde_json::Value>, target_direct: bool) -> Report {
    serde_json::from_value(json!({
        "iolab_version": "0", "command": "run", "started_at": "2026-01-01T00:00:00Z",
        "host": {"hostname": "h", "kernel": "6.1", "cpus": 2},
        "settings": {"runs": 2, "warmup_s": 0.0, "interval_s": 0.0, "suite": null},
        "target": {"path": "/mnt", "kind": "directory", "test_file": true, "span_bytes": 1 << 20,
                   "direct": target_direct, "filesystem": null, "devices": []},
        "jobs": jobs
    }))
    .expect("a Report")
}

fn warn(mut job: serde_json::Value, code: &str) -> serde_json::Value {
    let w = json!({"code": code, "message": format!("{code} says so")});
    job["warnings"].as_array_mut().unwrap().push(w);
    job
}

#[test]
fn iops_add_up_over_directions() {
    let both = job_report(job("a", Some(dir(700.0, 5, None)), Some(dir(300.5, 9, None))));
    assert_eq!(both.iops(), 1000.5);
    let write = job_report(job("w", None, Some(dir(300.0, 9, None))));
    assert_eq!(write.iops(), 300.0);
    assert_eq!(job_report(job("none", None, None)).iops(), 0.0);
}

#[test]
fn p99_is_the_slower_direction() {
    assert_eq!(
        job_report(job("a", Some(dir(1.0, 5, None)), Some(dir(1.0, 9, None)))).p99_ns(),
        Some(9)
    );
    assert_eq!(job_report(job("r", Some(dir(1.0, 5, None)), None)).p99_ns(), Some(5));
    assert_eq!(job_report(job("none", None, None)).p99_ns(), None);
}

#[test]
fn cpu_is_user_plus_system() {
    assert_eq!(job_report(job("a", None, None)).cpu_pct(), 42.75);
}

#[test]
fn directions_are_reads_then_writes() {
    let j = job_report(job("a", Some(dir(1.0, 5, None)), Some(dir(2.0, 9, None))));
    let iops: Vec<f64> = j.directions().map(|d| d.iops).collect();
    assert_eq!(iops, [1.0, 2.0]);
}

#[test]
fn spread_needs_more_than_one_run() {
    let v = job("a", Some(dir(1.0, 5, Some((1e6, 3e6, 0.5)))), Some(dir(1.0, 5, None)));
    let j = job_report(v.clone());
    let s = Spread {
        min: 1e6,
        max: 3e6,
        cv: 0.5,
    };
    assert_eq!(j.bw_spreads(), [Some(s), None]);
    let mut one = v;
    one["runs"] = json!([run()]);
    assert_eq!(job_report(one).bw_spreads(), [None, None]);
}

#[test]
fn direction_figures_are_named_with_their_spreads() {
    let j = job_report(warn(warn(job("a", None, Some(dir(2.0, 9, Some((1e6, 3e6, 0.5))))), "x"), "x"));
    let f = j.direction_figures();
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].direction, f[0].figures.iops), ("write", 2.0));
    assert_eq!(f[0].spread.map(|s| s.cv_pct()), Some(50.0));
    assert_eq!(j.warning_codes(), ["x"]);
}

#[test]
fn io_mode_of_the_jobs_or_else_the_target() {
    let direct = job("a", None, None);
    let mut buffered = job("b", None, None);
    buffered["direct"] = json!(false);
    assert_eq!(report(vec![direct.clone()], false).io_mode(), IoMode::Direct);
    assert_eq!(report(vec![buffered.clone()], true).io_mode(), IoMode::Buffered);
    assert_eq!(report(vec![direct, buffered], true).io_mode(), IoMode::Mixed);
    assert_eq!(report(vec![], true).io_mode(), IoMode::Direct);
    assert_eq!(report(vec![], false).io_mode(), IoMode::Buffered);
}

#[test]
fn warnings_are_grouped_by_the_jobs_that_carry_them() {
    let a = warn(warn(job("a", None, None), "x"), "y");
    let b = warn(job("b", None, None), "y");
    let c = warn(warn(job("c", None, None), "z"), "y");
    let r = report(vec![a, b, c], true);
    let g = r.warning_groups();
    let seen: Vec<(&str, Vec<&str>, bool)> = g.iter().map(|g| (g.code, g.jobs.clone(), g.all)).collect();
    assert_eq!(
        seen,
        [("x", vec!["a"], false), ("y", vec!["a", "b", "c"], true), ("z", vec!["c"], false)]
    );
    assert_eq!(g[0].message, "x says so");
    // The same code with another message is another warning.
    let mut d = job("d", None, None);
    d["warnings"] = json!([{"code": "x", "message": "other"}]);
    let r = report(vec![warn(job("a", None, None), "x"), d], true);
    assert_eq!(r.warning_groups().len(), 2);
    assert!(report(vec![], true).warning_groups().is_empty());
}

#[test]
fn run_warnings_are_those_of_time_and_workloads_only() {
    let mut v: serde_json::Value = serde_json::to_value(report(vec![warn(job("a", None, None), "x")], true)).unwrap();
    assert_eq!(serde_json::from_value::<Report>(v.clone()).unwrap().run_warnings().count(), 0);
    v["jobs"] = json!([]);
    let stats = json!({"mean": 1.0, "median": 1.0, "stddev": 0.0, "min": 1.0, "max": 1.0});
    v["time"] = json!({"command": "true", "cwd": "/", "cold": false, "prepare": null, "cleanup": null,
        "warmup_runs": 0, "devices": [], "runs": [], "wall_s": stats, "user_s": stats, "sys_s": stats,
        "warnings": [{"code": "outliers", "message": "m"}]});
    let r: Report = serde_json::from_value(v).unwrap();
    let codes: Vec<&str> = r.run_warnings().map(|w| w.code.as_str()).collect();
    assert_eq!(codes, ["outliers"]);
}

#[test]
fn a_zone_measures_its_window_or_all_of_it() {
    // A scan of 32 MiB zones, 8 MiB measured in each.
    let path = format!("{}/tests/fixtures/render/scan.json", env!("CARGO_MANIFEST_DIR"));
    let r: Report = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut s = r.scan().cloned().expect("a scan");
    assert_eq!((s.zone_bytes, s.window_bytes), (32 << 20, Some(8 << 20)));
    assert_eq!(s.bytes_per_zone(), Some(8 << 20));
    s.window_bytes = Some(64 << 20);
    assert_eq!(s.bytes_per_zone(), Some(32 << 20));
    s.window_bytes = None;
    s.zone_time_s = Some(2.0);
    assert_eq!(s.bytes_per_zone(), None);
}

#[test]
fn targets_are_numbered_only_when_there_are_several() {
    let mut s = ScaleReport {
        rw: "randread".into(),
        bs: 4096,
        targets: vec!["/a".into(), "/b".into()],
        member: None,
        layout: None,
        points: vec![],
        verdicts: vec![],
    };
    assert_eq!(s.target_number("/a"), Some(1));
    assert_eq!(s.target_number("/b"), Some(2));
    assert_eq!(s.target_number("/c"), None);
    s.targets.pop();
    assert_eq!(s.target_number("/a"), None);
}

fn fixture(name: &str) -> Report {
    let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn sweeps_and_their_knees_are_read_from_the_points_and_verdicts() {
    let r = fixture("scale");
    let s = r.scale().unwrap();
    let xs = |t: &str, d| s.sweep(t, d).iter().map(|(x, p)| (*x, p.bw_bytes)).collect::<Vec<_>>();
    assert_eq!(xs("/dev/shm/sa", Dimension::Depth), [(1, 179318784.0), (4, 338128896.0)]);
    // Threads at QD1: the depth sweep's QD1 point, then the thread points.
    assert_eq!(xs("/dev/shm/sa", Dimension::Threads), [(1, 179318784.0), (2, 1031561216.0)]);
    assert!(xs("/dev/shm/nope", Dimension::Depth).is_empty());
    assert_eq!(s.knee("/dev/shm/sb", Dimension::Depth), Some(1));
    assert_eq!(s.knee("/dev/shm/sa", Dimension::Depth), None);
    assert_eq!(s.knee("/dev/shm/sb", Dimension::Threads), None);
    assert!(s.layout_pair().is_none() && s.layout_expected_bps().is_none());
}

#[test]
fn a_scan_names_its_zones_and_access_jobs() {
    let r = fixture("scan");
    assert_eq!(r.scan_zones_job().map(|j| j.name.as_str()), Some("SCAN1M Q4T1 read"));
    assert_eq!(r.scan_access_job().map(|j| j.name.as_str()), Some("ACCESS 4K Q1T1 randread"));
    let demo = fixture("demo");
    assert!(demo.scan_zones_job().is_none() && demo.scan_access_job().is_none());
}

#[test]
fn one_sigma_either_side_of_the_mean() {
    assert_eq!(Stats::of(&[1.0, 3.0]).sigma_band(), (2.0 - 2f64.sqrt(), 2.0 + 2f64.sqrt()));
}

#[test]
fn a_phase_has_a_spread_from_two_runs_on() {
    let mut p = PhaseReport {
        name: "read".into(),
        cold: true,
        cold_by: None,
        files: 10,
        bytes: 100,
        wall_s_runs: vec![0.5, 0.25],
        wall_s: Stats::of(&[0.5, 0.25]),
        files_per_s: 0.0,
        bytes_per_s: 0.0,
        user_s: 0.0,
        sys_s: 0.0,
        device_read_bytes: None,
        device_write_bytes: None,
        device_busy_s: None,
        devices: Vec::new(),
        zfs_members: Vec::new(),
        zfs_members_unjudged: None,
    };
    assert_eq!(p.wall_s_spread(), Some((0.25, 0.5)));
    p.wall_s_runs.pop();
    assert_eq!(p.wall_s_spread(), None);
}
