//! Running the `iolab` binary and reading its JSON report: paths into the document,
//! warning codes, tolerance checks, and the internal consistency of a stats object.

use serde_json::Value;
use std::time::Instant;

use super::TIMEOUT;
use crate::common::emu::{Cgroup, output_with_timeout};

// ---------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------

pub(crate) fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for key in path.split('.') {
        cur = match key.parse::<usize>() {
            Ok(i) => cur.get(i),
            Err(_) => cur.get(key),
        }
        .unwrap_or_else(|| panic!("JSON has no `{path}` (stuck at `{key}`) in:\n{v:#}"));
    }
    cur
}

pub(crate) fn num(v: &Value, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("JSON `{path}` is not a number: {}", get(v, path)))
}

pub(crate) fn warning_codes(job: &Value) -> Vec<String> {
    get(job, "warnings")
        .as_array()
        .unwrap_or_else(|| panic!("`warnings` is not an array: {}", get(job, "warnings")))
        .iter()
        .map(|w| get(w, "code").as_str().unwrap_or("?").to_string())
        .collect()
}

pub(crate) fn dev_pct(measured: f64, expected: f64) -> f64 {
    (measured / expected - 1.0) * 100.0
}

pub(crate) fn assert_near(what: &str, measured: f64, expected: f64, tol: f64) {
    let d = dev_pct(measured, expected);
    note!(
        "  {what}: measured {measured:.1} vs expected {expected:.1} ({d:+.2}%, tolerance ±{:.0}%)",
        tol * 100.0
    );
    assert!(
        (measured - expected).abs() <= expected * tol,
        "{what}: measured {measured:.1}, expected {expected:.1} ±{:.0}% (off by {d:+.2}%)",
        tol * 100.0
    );
}

// ---------------------------------------------------------------------------
// Running iolab
// ---------------------------------------------------------------------------

/// Run iolab with `args` (inside `cg` if given) and parse its JSON from stdout.
pub(crate) fn iolab(cg: Option<&Cgroup>, args: &[String]) -> Value {
    let mut cmd = match cg {
        Some(cg) => crate::common::iolab_in(cg),
        None => crate::common::iolab(),
    };
    cmd.args(args);
    note!("$ iolab {}", args.join(" "));
    let t0 = Instant::now();
    let out = output_with_timeout(&mut cmd, TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    note!("(iolab took {:.1} s)", t0.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "iolab {} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        args.join(" "),
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("`--json -` stdout is not one JSON document ({e}):\nstdout:\n{stdout}\nstderr:\n{stderr}"))
}

pub(crate) fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The only job of a `iolab job` document.
pub(crate) fn only_job(doc: &Value) -> &Value {
    let jobs = get(doc, "jobs").as_array().expect("`jobs` is an array");
    assert_eq!(jobs.len(), 1, "`iolab job` must report exactly one job:\n{doc:#}");
    &jobs[0]
}

/// Internal consistency of one direction's stats (`read` or `write` object).
pub(crate) fn check_stats_consistency(label: &str, st: &Value, bs: u64) {
    let bytes = num(st, "bytes");
    let ios = num(st, "ios");
    let iops = num(st, "iops");
    let bw = num(st, "bw_bytes");
    assert!(ios > 0.0 && bytes > 0.0, "{label}: no I/O reported: {st}");
    if label.starts_with("runs[") {
        assert_eq!(bytes, ios * bs as f64, "{label}: bytes != ios * bs ({st})");
    } else {
        // Job level: medians over an even number of runs may be half-way values.
        assert!((bytes - ios * bs as f64).abs() <= bs as f64, "{label}: bytes != ios * bs ({st})");
    }
    assert!(
        (bw - iops * bs as f64).abs() <= 0.01 * bw,
        "{label}: bw_bytes {bw} != iops {iops} * bs {bs}"
    );
    let l = get(st, "lat_ns");
    let order = ["min", "p50", "p90", "p99", "p99_9", "p99_99", "max"];
    let vals: Vec<f64> = order.iter().map(|k| num(l, k)).collect();
    for w in 0..vals.len() - 1 {
        assert!(
            vals[w] <= vals[w + 1],
            "{label}: latency percentiles out of order ({} {} > {} {}): {l}",
            order[w],
            vals[w],
            order[w + 1],
            vals[w + 1]
        );
    }
    let mean = num(l, "mean");
    assert!(
        vals[0] <= mean && mean <= vals[6],
        "{label}: mean latency {mean} outside [min, max]: {l}"
    );
}
