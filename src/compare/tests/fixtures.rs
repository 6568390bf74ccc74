//! Synthetic stored runs for the tests: a `Report` built from a JSON literal
//! (the shape docs/json.md describes) with given jobs and per-run figures.

use crate::compare::RunRef;
use crate::summary::{Report, median};
use serde_json::{Value, json};

/// A job with its per-run figures in the test's unit (bytes/s for a
/// sequential job, IOPS for a random one).
pub struct J {
    name: String,
    rw: &'static str,
    read: Vec<f64>,
    write: Vec<f64>,
    cpu: Option<f64>,
    warnings: Vec<String>,
    p99_ns: u64,
    /// A sync write job's mode (`dsync`, `fsync`).
    sync: Option<&'static str>,
    /// The block size, when not the one of its kind (4K random or sync, 1M sequential).
    bs: Option<u64>,
}

fn job(name: &str, random: bool, values: &[f64]) -> J {
    let write = name.ends_with("write");
    J {
        name: name.into(),
        rw: match (random, write) {
            (false, false) => "read",
            (false, true) => "write",
            (true, false) => "randread",
            (true, true) => "randwrite",
        },
        read: if write { vec![] } else { values.to_vec() },
        write: if write { values.to_vec() } else { vec![] },
        cpu: Some(1.0),
        warnings: vec![],
        p99_ns: 1,
        sync: None,
        bs: None,
    }
}

/// A sequential job; a name ending in "write" makes it a write job.
/// Figures are MB/s (10^6 bytes/s), to keep tests readable.
pub fn seq(name: &str, mbs: &[f64]) -> J {
    let bytes: Vec<f64> = mbs.iter().map(|x| x * 1e6).collect();
    job(name, false, &bytes)
}

/// A random job; a name ending in "write" makes it a write job. Figures are IOPS.
pub fn rand(name: &str, iops: &[f64]) -> J {
    job(name, true, iops)
}

impl J {
    /// A mixed job (`randrw` or `rw`); sequential figures in MB/s, random in IOPS.
    pub fn mixed(name: &str, random: bool, read: &[f64], write: &[f64]) -> J {
        let scale = if random { 1.0 } else { 1e6 };
        J {
            name: name.into(),
            rw: if random { "randrw" } else { "rw" },
            read: read.iter().map(|x| x * scale).collect(),
            write: write.iter().map(|x| x * scale).collect(),
            cpu: Some(1.0),
            warnings: vec![],
            p99_ns: 1,
            sync: None,
            bs: None,
        }
    }
    pub fn warn(mut self, code: &str) -> J {
        self.warnings.push(code.into());
        self
    }
    pub fn p99(mut self, ns: u64) -> J {
        self.p99_ns = ns;
        self
    }
    pub fn cpu(mut self, pct_per_100mbs: f64) -> J {
        self.cpu = Some(pct_per_100mbs);
        self
    }
    /// The sync suite's 4K writes, each made durable as `mode` (`dsync`, `fsync`) says.
    pub fn sync(mut self, mode: &'static str) -> J {
        self.sync = Some(mode);
        // A write job, whatever its name ends with (`SYNC4K Q1T1 write fsync`).
        if self.write.is_empty() {
            self.write = std::mem::take(&mut self.read);
            self.rw = if self.random() { "randwrite" } else { "write" };
        }
        self
    }
    pub fn bs(mut self, bytes: u64) -> J {
        self.bs = Some(bytes);
        self
    }

    fn random(&self) -> bool {
        self.rw.starts_with("rand")
    }

    fn dir(&self, v: f64) -> Value {
        let (bw, iops) = if self.random() { (v * 4096.0, v) } else { (v, v / 1048576.0) };
        json!({
            "bytes": (bw * 5.0) as u64, "ios": (iops * 5.0) as u64, "bw_bytes": bw, "iops": iops,
            "lat_ns": {"mean": 1000.0, "min": 1, "max": 1, "p50": 1, "p90": 1, "p99": self.p99_ns, "p99_9": 1, "p99_99": 1}
        })
    }

    fn cpu_json(&self) -> Value {
        json!({
            "usr_pct": 1.0, "sys_pct": 1.0, "pct_per_100mbs": self.cpu, "system_busy_pct": 1.0,
            "system_idle_pct": 99.0, "system_sys_pct": 0.5, "system_iowait_pct": 0.0
        })
    }

    fn to_json(&self) -> Value {
        let n = self.read.len().max(self.write.len());
        let runs: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "read": self.read.get(i).map(|v| self.dir(*v)),
                    "write": self.write.get(i).map(|v| self.dir(*v)),
                    "cpu": self.cpu_json(), "device": null,
                    "wall_ns": 5_000_000_000u64, "sync_ns": 0, "first_done_ns": 0, "last_done_ns": 0,
                    "samples": {"read_bytes_per_s": [], "write_bytes_per_s": []}
                })
            })
            .collect();
        let med = |v: &[f64]| (!v.is_empty()).then(|| self.dir(median(v)));
        json!({
            "name": self.name, "rw": self.rw, "bs": self.bs.unwrap_or(if self.random() || self.sync.is_some() { 4096 } else { 1048576 }), "sync": self.sync.unwrap_or("none"),
            "qd": 1, "threads": 1, "mix_read": null, "direct": true, "engine": "io_uring", "workers": 1,
            "duration_s": 5.0, "limit_bytes": null, "span_bytes": 1u64 << 30,
            "runs": runs, "read": med(&self.read), "write": med(&self.write), "cpu": self.cpu_json(),
            "device": null,
            "warnings": self.warnings.iter().map(|c| json!({"code": c, "message": format!("{c} (test)")})).collect::<Vec<_>>()
        })
    }
}

/// A report with `jobs`; `device_size` puts one physical device of that size under `target.info`.
pub fn report(jobs: &[J], device_size: Option<u64>) -> Report {
    let info = device_size.map(|size| {
        json!({
            "target": "/dev/nvme0n1", "path": "/dev/nvme0n1", "kind": "disk", "filesystem": null,
            "chain": [], "throttles": [], "hints": [],
            "devices": [{
                "name": "nvme0n1", "dev": "259:0", "sysfs_path": "/sys/devices/x/nvme0n1",
                "transport": "nvme", "size_bytes": size, "memory_backed": false
            }]
        })
    });
    let doc = json!({
        "iolab_version": "0.1.0", "command": "iolab run", "started_at": "2026-01-01T00:00:00Z",
        "interrupted": false,
        "host": {"hostname": "h", "kernel": "6.1", "cpus": 8},
        "settings": {"runs": 3, "warmup_s": 1.0, "interval_s": 0.0, "suite": "default"},
        "target": {"path": "/mnt", "kind": "directory", "test_file": true, "span_bytes": 1u64 << 30,
                   "direct": true, "filesystem": null, "devices": [], "info": info},
        "jobs": jobs.iter().map(J::to_json).collect::<Vec<_>>()
    });
    serde_json::from_value(doc).expect("fixture parses as Report")
}

/// A labelled run.
pub fn run(id: i64, label: &str, jobs: Vec<J>) -> RunRef {
    RunRef {
        id,
        label: (!label.is_empty()).then(|| label.to_string()),
        price: None,
        capacity_bytes: None,
        report: report(&jobs, None),
        built: None,
        power_cut: None,
    }
}
