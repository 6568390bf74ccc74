//! `iolab selftest`: iolab proves its own accuracy where the user runs it.
//! It builds emulated devices with known limits — a loop device over a
//! file in RAM (tmpfs) and a zram device, each under the kernel's block
//! throttle (cgroup v1 blkio or v2 `io.max`, see [`throttle`]) — runs
//! short read and write jobs at queue depth 1 and 32 and a surface scan
//! with this very binary inside the throttle group, and compares every
//! figure with its limit. Everything it makes is removed when it ends,
//! however it ends short of SIGKILL.

pub mod throttle;

use crate::base::error::{Result, failed, usage};
use crate::base::signals::Stop;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use throttle::{Group, Kind, Limit};

/// Why the self-test could not set up its devices or run iolab against
/// them: what it was doing and the system's error. Each gives exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum SelftestError {
    #[error("cannot find iolab's own binary: {source}")]
    OwnBinary { source: std::io::Error },
    #[error("cannot create {}: {source}", path.display())]
    CreateBacking { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    WriteBacking { path: PathBuf, source: std::io::Error },
    #[error("cannot run losetup (util-linux): {source}")]
    Losetup { source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Device { path: PathBuf, source: std::io::Error },
    #[error("cannot make a throttle group: {source}")]
    ThrottleGroup { source: std::io::Error },
    #[error("cannot set the throttle: {source}")]
    Throttle { source: std::io::Error },
    #[error("cannot run {}: {source}", exe.display())]
    RunSelf { exe: PathBuf, source: std::io::Error },
    #[error("{case}: no JSON from iolab: {source}")]
    NoJson { case: String, source: serde_json::Error },
}

impl From<SelftestError> for crate::base::error::Error {
    fn from(e: SelftestError) -> Self {
        crate::base::error::failed_by(e)
    }
}

/// How far a figure may be from its limit, in percent.
pub const TOLERANCE_PCT: f64 = 3.0;
/// Size of each emulated device.
const DEVICE_BYTES: u64 = 256 << 20;
/// The throttle hands out allowance in slices that outlive the last I/O by
/// up to 200 ms; waiting this long before a job starts it on a fresh slice.
const SETTLE: Duration = Duration::from_millis(300);

/// One check: a workload on an emulated device under one limit.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CaseResult {
    /// The check.
    pub name: String,
    /// `loop over tmpfs` or `zram`.
    pub device: String,
    /// The limit as set (bytes/s or IOPS), and its unit.
    #[schemars(extend("x-unit" = "of unit"))]
    pub limit: f64,
    /// The unit of `limit` and `measured`: `bytes/s` or `IOPS`.
    pub unit: &'static str,
    /// What iolab measured, in the same unit (for a scan: its slowest zone).
    #[schemars(extend("x-unit" = "of unit"))]
    pub measured: f64,
    /// How far the measured figure is from the limit, in % of the limit.
    #[schemars(extend("x-unit" = "%"))]
    pub error_pct: f64,
    /// iolab's CPU time (user + system, every thread) per I/O, µs.
    #[schemars(extend("x-unit" = "us"))]
    pub cpu_us_per_io: Option<f64>,
    /// The figure is within the tolerance of its limit.
    pub ok: bool,
}

/// The whole self-test.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SelftestReport {
    /// The throttle interface used: `cgroup v1 blkio` or `cgroup v2 io.max`.
    pub throttle: String,
    /// How far a figure may be from its limit and pass, in %.
    #[schemars(extend("x-unit" = "%"))]
    pub tolerance_pct: f64,
    /// Each check, its figure against its limit.
    pub cases: Vec<CaseResult>,
    /// Why some checks could not run (e.g. no zram), if any.
    pub skipped: Vec<String>,
    /// Every check is within the tolerance.
    pub passed: bool,
}

impl SelftestReport {
    /// How the self-test ends: every check outside the tolerance, named in
    /// one error (exit status 1).
    pub fn verdict(&self) -> Result<()> {
        if self.passed {
            return Ok(());
        }
        let bad: Vec<String> = self
            .cases
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{} on {} {:+.1}%", c.name, c.device, c.error_pct))
            .collect();
        Err(failed(format!(
            "selftest failed: {} outside ±{}% of its limit ({})",
            bad.len(),
            TOLERANCE_PCT,
            bad.join("; ")
        )))
    }
}

/// This very binary, which the self-test runs inside the throttle group.
pub fn own_binary() -> Result<PathBuf> {
    std::env::current_exe().map_err(|source| SelftestError::OwnBinary { source }.into())
}

/// `IOLAB_TEST_SELFTEST_LIMIT_SCALE` (a positive number; default 1): a knob for
/// iolab's own tests, which make the limits unreachable with it. Only with
/// the cargo feature `test-hooks` (see `base::testknob`); 1 without.
pub fn limit_scale() -> f64 {
    #[cfg(feature = "test-hooks")]
    if let Some(v) = std::env::var("IOLAB_TEST_SELFTEST_LIMIT_SCALE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
    {
        return v;
    }
    1.0
}

#[derive(Clone, Copy)]
enum Dev {
    Loop,
    Zram,
}

struct Case {
    name: &'static str,
    dev: Dev,
    args: &'static [&'static str],
    limit: Limit,
    scan: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "read 128K QD1",
        dev: Dev::Loop,
        args: &["--rw", "read", "--bs", "128k", "--qd", "1"],
        limit: Limit::ReadBps(40 << 20),
        scan: false,
    },
    Case {
        name: "randread 4K QD32",
        dev: Dev::Loop,
        args: &["--rw", "randread", "--bs", "4k", "--qd", "32"],
        limit: Limit::ReadIops(2000),
        scan: false,
    },
    Case {
        name: "write 512K QD4",
        dev: Dev::Loop,
        args: &["--rw", "write", "--bs", "512k", "--qd", "4"],
        limit: Limit::WriteBps(30 << 20),
        scan: false,
    },
    Case {
        name: "randwrite 4K QD32",
        dev: Dev::Loop,
        args: &["--rw", "randwrite", "--bs", "4k", "--qd", "32"],
        limit: Limit::WriteIops(1500),
        scan: false,
    },
    Case {
        name: "randread 4K QD32",
        dev: Dev::Zram,
        args: &["--rw", "randread", "--bs", "4k", "--qd", "32"],
        limit: Limit::ReadIops(4000),
        scan: false,
    },
    Case {
        name: "randread 4K QD1",
        dev: Dev::Zram,
        args: &["--rw", "randread", "--bs", "4k", "--qd", "1"],
        limit: Limit::ReadIops(1000),
        scan: false,
    },
    Case {
        name: "scan, 4 zones of 128K reads at QD4",
        dev: Dev::Loop,
        args: &[
            "--zones",
            "4",
            "--window",
            "16MiB",
            "--bs",
            "128k",
            "--qd",
            "4",
            "--access",
            "0",
            "--no-burst",
        ],
        limit: Limit::ReadBps(40 << 20),
        scan: true,
    },
];

/// A loop device over a file in /dev/shm, detached and removed on drop.
struct LoopDev {
    dev: PathBuf,
    file: PathBuf,
}

impl LoopDev {
    fn new() -> Result<LoopDev> {
        if !Path::new("/dev/loop-control").exists() {
            return Err(failed("no loop devices here (/dev/loop-control is missing: modprobe loop)"));
        }
        let file = PathBuf::from(format!("/dev/shm/iolab-selftest-{}.img", std::process::id()));
        // Written out, not sparse: the loop driver serves the holes of a
        // tmpfs file differently (the throttle then counts bytes twice).
        // /dev/shm is everyone's: a new file, never one (or a link) planted at the name.
        let mut f = crate::base::paths::create_new(&file, 0o600).map_err(|source| SelftestError::CreateBacking {
            path: file.clone(),
            source,
        })?;
        let mut fill = || -> std::io::Result<()> {
            use std::io::Write;
            let mut block = vec![0u8; 1 << 20];
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(std::process::id());
            for chunk in block.chunks_mut(8) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                chunk.copy_from_slice(&x.to_le_bytes());
            }
            for _ in 0..DEVICE_BYTES >> 20 {
                f.write_all(&block)?;
            }
            f.sync_all()
        };
        if let Err(e) = fill() {
            let _ = std::fs::remove_file(&file);
            return Err(SelftestError::WriteBacking { path: file, source: e }.into());
        }
        let out = Command::new("losetup").args(["--find", "--show"]).arg(&file).output();
        let out = match out {
            Ok(o) if o.status.success() => o,
            Ok(o) => {
                let _ = std::fs::remove_file(&file);
                return Err(failed(format!("losetup failed: {}", String::from_utf8_lossy(&o.stderr).trim())));
            }
            Err(e) => {
                let _ = std::fs::remove_file(&file);
                return Err(SelftestError::Losetup { source: e }.into());
            }
        };
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        // A loop device keeps the request-size limit of its last backing file
        // after it is detached (one that served a FUSE file stays at 124
        // KiB), and the throttle charges each piece of a split request in
        // full: start from the device's own limit.
        if let Some(name) = dev.file_name().and_then(|n| n.to_str()) {
            let q = format!("/sys/block/{name}/queue");
            let hw: u64 = std::fs::read_to_string(format!("{q}/max_hw_sectors_kb"))
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(512);
            // 512 KiB: no request of the checks is split, none is 1 MiB.
            let _ = std::fs::write(format!("{q}/max_sectors_kb"), hw.min(512).to_string());
        }
        Ok(LoopDev { dev, file })
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = std::fs::remove_file(&self.file);
    }
}

/// A zram device of our own (never zram0), reset and removed on drop.
struct Zram {
    index: u32,
}

impl Zram {
    fn new() -> std::result::Result<Zram, String> {
        let ctl = Path::new("/sys/class/zram-control/hot_add");
        let index: u32 = std::fs::read_to_string(ctl)
            .map_err(|e| format!("zram is not available ({}: {e})", ctl.display()))?
            .trim()
            .parse()
            .map_err(|_| "zram's hot_add gave no device number".to_string())?;
        let z = Zram { index };
        std::fs::write(format!("/sys/block/zram{index}/disksize"), DEVICE_BYTES.to_string())
            .map_err(|e| format!("cannot size zram{index}: {e}"))?;
        Ok(z)
    }
    fn path(&self) -> PathBuf {
        PathBuf::from(format!("/dev/zram{}", self.index))
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        let _ = std::fs::write(format!("/sys/block/zram{}/reset", self.index), "1");
        let _ = std::fs::write("/sys/class/zram-control/hot_remove", self.index.to_string());
    }
}

fn dev_numbers(dev: &Path) -> Result<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let md = std::fs::metadata(dev).map_err(|source| SelftestError::Device {
        path: dev.to_path_buf(),
        source,
    })?;
    let r = md.rdev();
    Ok((rustix::fs::major(r), rustix::fs::minor(r)))
}

/// Run the self-test. `limit_scale` multiplies every limit (1.0; the tests
/// use a huge factor to make the limits unreachable and see it fail).
pub fn run(stop: &Stop, exe: &Path, limit_scale: f64, cgroup_root: &Path) -> Result<SelftestReport> {
    if !rustix::process::geteuid().is_root() {
        return Err(usage(
            "selftest needs root: it makes loop devices, a zram device and a throttle group",
        ));
    }
    let kind = throttle::detect(cgroup_root).map_err(failed)?;
    let throttle_name = match kind {
        Kind::V1(_) => "cgroup v1 blkio",
        Kind::V2(_) => "cgroup v2 io.max",
    };
    let loopdev = LoopDev::new()?;
    let mut skipped = Vec::new();
    let zram = match Zram::new() {
        Ok(z) => Some(z),
        Err(why) => {
            skipped.push(format!("the zram checks: {why}"));
            None
        }
    };
    let mut cases = Vec::new();
    for c in CASES {
        stop.check()?;
        let dev = match (c.dev, &zram) {
            (Dev::Loop, _) => loopdev.dev.clone(),
            (Dev::Zram, Some(z)) => z.path(),
            (Dev::Zram, None) => continue,
        };
        let limit = match c.limit {
            Limit::ReadBps(v) => Limit::ReadBps((v as f64 * limit_scale) as u64),
            Limit::WriteBps(v) => Limit::WriteBps((v as f64 * limit_scale) as u64),
            Limit::ReadIops(v) => Limit::ReadIops((v as f64 * limit_scale) as u64),
            Limit::WriteIops(v) => Limit::WriteIops((v as f64 * limit_scale) as u64),
        };
        let group = Group::create(&kind, &format!("iolab-selftest-{}", std::process::id()))
            .map_err(|source| SelftestError::ThrottleGroup { source })?;
        group
            .limit(dev_numbers(&dev)?, limit)
            .map_err(|source| SelftestError::Throttle { source })?;
        std::thread::sleep(SETTLE);
        // Limits scaled by the test knob cannot be met: the run only has to
        // fail and say which, so its windows are short.
        let windows = if limit_scale == 1.0 { WINDOWS } else { KNOB_WINDOWS };
        let doc = measure(exe, &group, &dev, c, windows)?;
        drop(group);
        cases.push(result(c, &dev_label(c.dev), limit, &doc)?);
    }
    let passed = cases.iter().all(|c| c.ok);
    Ok(SelftestReport {
        throttle: throttle_name.into(),
        tolerance_pct: TOLERANCE_PCT,
        cases,
        skipped,
        passed,
    })
}

fn dev_label(d: Dev) -> String {
    match d {
        Dev::Loop => "loop over tmpfs".into(),
        Dev::Zram => "zram".into(),
    }
}

/// This binary, inside the group, measuring `dev`: its JSON document.
/// Each job's measured runs, run length and warm-up.
const WINDOWS: [&str; 3] = ["2", "2s", "1s"];
/// The same under `IOLAB_TEST_SELFTEST_LIMIT_SCALE` (see `run`).
const KNOB_WINDOWS: [&str; 3] = ["1", "300ms", "200ms"];

fn measure(exe: &Path, group: &Group, dev: &Path, c: &Case, windows: [&str; 3]) -> Result<serde_json::Value> {
    let mut cmd = Command::new(exe);
    cmd.env("IOLAB_DB", ":memory:");
    if c.scan {
        cmd.arg("scan").arg(dev).args(c.args).args(["--zone-warmup", "200ms"]);
    } else {
        cmd.arg("job").arg(dev).args(c.args);
        let [runs, duration, warmup] = windows;
        cmd.args([
            "--runs",
            runs,
            "--duration",
            duration,
            "--warmup",
            warmup,
            "--interval",
            "0s",
            "--allow-destroy",
        ]);
    }
    cmd.args(["--json", "-", "--no-store", "--quiet"]);
    crate::io::sys::join_cgroup_at_exec(&mut cmd, &group.procs_file());
    let out = cmd.output().map_err(|source| SelftestError::RunSelf {
        exe: exe.to_path_buf(),
        source,
    })?;
    if !out.status.success() {
        return Err(failed(format!(
            "{}: {}",
            c.name,
            String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("failed")
        )));
    }
    serde_json::from_slice(&out.stdout).map_err(|source| {
        SelftestError::NoJson {
            case: c.name.to_string(),
            source,
        }
        .into()
    })
}

fn result(c: &Case, device: &str, limit: Limit, doc: &serde_json::Value) -> Result<CaseResult> {
    let (bps, dir) = match limit {
        Limit::ReadBps(_) => (true, "read"),
        Limit::WriteBps(_) => (true, "write"),
        Limit::ReadIops(_) => (false, "read"),
        Limit::WriteIops(_) => (false, "write"),
    };
    let job = &doc["jobs"][0];
    let measured = if c.scan {
        doc["scan"]["min"].as_f64()
    } else if bps {
        job[dir]["bw_bytes"].as_f64()
    } else {
        job[dir]["iops"].as_f64()
    }
    .ok_or_else(|| failed(format!("{}: the document has no {dir} figure", c.name)))?;
    let limit_v = limit.value() as f64;
    let error_pct = (measured / limit_v - 1.0) * 100.0;
    let ios = job[dir]["ios"].as_f64().filter(|&n| n > 0.0);
    let cpu_s = job["cpu"]["usr_s"].as_f64().unwrap_or(0.0) + job["cpu"]["sys_s"].as_f64().unwrap_or(0.0);
    Ok(CaseResult {
        name: c.name.into(),
        device: device.into(),
        limit: limit_v,
        unit: if bps { "bytes/s" } else { "IOPS" },
        measured,
        error_pct,
        // Job-level CPU seconds and I/Os are medians of one run each.
        cpu_us_per_io: ios.filter(|_| !c.scan).map(|n| cpu_s / n * 1e6),
        ok: error_pct.abs() <= TOLERANCE_PCT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, error_pct: f64) -> CaseResult {
        CaseResult {
            name: name.into(),
            device: "zram".into(),
            limit: 1e6,
            unit: "B/s",
            measured: 1e6 * (1.0 + error_pct / 100.0),
            error_pct,
            cpu_us_per_io: None,
            ok: error_pct.abs() <= TOLERANCE_PCT,
        }
    }

    #[test]
    fn a_failed_selftest_names_each_check_outside_the_tolerance() {
        let mut r = SelftestReport {
            throttle: "cgroup v2 io.max".into(),
            tolerance_pct: TOLERANCE_PCT,
            cases: vec![case("read QD1", 1.0), case("write QD32", -7.25), case("scan", 12.0)],
            skipped: Vec::new(),
            passed: false,
        };
        let e = r.verdict().unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            "selftest failed: 2 outside ±3% of its limit (write QD32 on zram -7.2%; scan on zram +12.0%)"
        );
        r.passed = true;
        assert!(r.verdict().is_ok());
    }
}
