//! Synthetic reports for the tests of [`super::fio`] and [`super::hosts`]:
//! a [`Report`] built from a JSON literal (the document's shape) with given
//! jobs and per-run figures.

use crate::summary::{Report, median};
use serde_json::{Value, json};

pub const MB: f64 = 1e6;
pub const MIB: f64 = 1048576.0;

/// A job with its per-run figures in its test's unit: bytes/s for a
/// sequential pattern, IOPS for a random one.
pub struct J {
    name: String,
    rw: &'static str,
    read: Vec<f64>,
    write: Vec<f64>,
    warnings: Vec<(String, String)>,
}

impl J {
    pub fn new(name: &str, rw: &'static str, read: &[f64], write: &[f64]) -> J {
        J {
            name: name.into(),
            rw,
            read: read.to_vec(),
            write: write.to_vec(),
            warnings: Vec::new(),
        }
    }

    /// A sequential read job (bytes/s per run).
    pub fn read(name: &str, bytes_per_s: &[f64]) -> J {
        J::new(name, "read", bytes_per_s, &[])
    }

    pub fn warn(mut self, code: &str, message: &str) -> J {
        self.warnings.push((code.into(), message.into()));
        self
    }

    fn random(&self) -> bool {
        self.rw.starts_with("rand")
    }

    fn bs(&self) -> f64 {
        if self.random() { 4096.0 } else { 1048576.0 }
    }

    /// A direction's figures from its value: latencies and bytes follow it,
    /// so that medians can be checked on every figure.
    fn dir(&self, v: f64) -> Value {
        let (bw, iops) = if self.random() { (v * self.bs(), v) } else { (v, v / self.bs()) };
        let lat = (1e9 / iops.max(1e-9)) as u64;
        json!({
            "bytes": (bw * 5.0) as u64, "ios": (iops * 5.0) as u64, "bw_bytes": bw, "iops": iops,
            "lat_ns": {"mean": lat as f64, "min": lat / 2, "max": lat * 9, "p50": lat, "p90": lat * 2,
                       "p99": lat * 3, "p99_9": lat * 4, "p99_99": lat * 5}
        })
    }

    /// CPU that follows the figures too.
    fn cpu(&self, read: Option<f64>, write: Option<f64>) -> Value {
        let usr = (read.unwrap_or(0.0) + write.unwrap_or(0.0)) / 1e8;
        json!({
            "usr_pct": usr, "sys_pct": 2.0 * usr, "pct_per_100mbs": 1.0, "system_busy_pct": 1.0,
            "system_idle_pct": 99.0, "system_sys_pct": 0.5, "system_iowait_pct": 0.0
        })
    }

    pub fn to_json(&self) -> Value {
        let n = self.read.len().max(self.write.len());
        let runs: Vec<Value> = (0..n)
            .map(|i| {
                let (r, w) = (self.read.get(i).copied(), self.write.get(i).copied());
                json!({
                    "read": r.map(|v| self.dir(v)), "write": w.map(|v| self.dir(v)),
                    "cpu": self.cpu(r, w), "device": null,
                    "wall_ns": 5_000_000_000u64, "sync_ns": 0, "first_done_ns": 0, "last_done_ns": 0,
                    "samples": {"read_bytes_per_s": [], "write_bytes_per_s": []}
                })
            })
            .collect();
        let med = |v: &[f64]| (!v.is_empty()).then(|| median(v));
        let (r, w) = (med(&self.read), med(&self.write));
        let mixed = self.rw.ends_with("rw");
        json!({
            "name": self.name, "rw": self.rw, "bs": self.bs() as u64,
            "qd": 8, "threads": 1, "mix_read": if mixed { Some(70) } else { None }, "direct": true,
            "engine": "io_uring", "workers": 1,
            "duration_s": 5.0, "limit_bytes": null, "span_bytes": 1u64 << 30,
            "runs": runs, "read": r.map(|v| self.dir(v)), "write": w.map(|v| self.dir(v)),
            "cpu": self.cpu(r, w), "device": null,
            "warnings": self.warnings.iter().map(|(c, m)| json!({"code": c, "message": m})).collect::<Vec<_>>()
        })
    }
}

/// A report of `jobs` from host `host`, stored as run `run_id`.
pub fn report(host: &str, run_id: Option<i64>, jobs: &[J]) -> Report {
    let doc = json!({
        "run_id": run_id,
        "iolab_version": "fio-3.33", "command": "import:fio", "started_at": "2026-01-01T00:00:00Z",
        "interrupted": false,
        "host": {"hostname": host, "kernel": "unknown", "cpus": 0},
        "settings": {"runs": 1, "warmup_s": 0.0, "interval_s": 0.0, "suite": null},
        "target": {"path": "/dev/nvme0n1", "kind": "block_device", "test_file": false, "span_bytes": 1u64 << 30,
                   "direct": true, "filesystem": null, "devices": []},
        "jobs": jobs.iter().map(J::to_json).collect::<Vec<_>>()
    });
    serde_json::from_value(doc).expect("fixture parses as Report")
}
