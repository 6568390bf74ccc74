//! CPU (fio's per-thread `usr_cpu`/`sys_cpu`, scaled to % of one CPU) and
//! `disk_util` (the device, when fio's counters belong to one job).

use super::as_u64;
use crate::judge::{Code, Diagnostic};
use crate::samples::DiskDelta;
use crate::summary::{CpuReport, DeviceReport, DirReport};
use serde_json::Value;

/// CPU: per thread; a group's figure is averaged over its threads' runtimes.
/// Returns the job's CPU and the `fio_cpu_per_thread` warning.
pub(super) fn cpu_report(
    job: &Value,
    workers: u32,
    wall_ms: u64,
    job_runtime_ms: u64,
    read: &Option<DirReport>,
    write: &Option<DirReport>,
) -> (CpuReport, Diagnostic) {
    let usr = job.get("usr_cpu").and_then(Value::as_f64).unwrap_or(0.0);
    let sys = job.get("sys_cpu").and_then(Value::as_f64).unwrap_or(0.0);
    let scale = if workers > 1 && wall_ms > 0 && job_runtime_ms > 0 {
        job_runtime_ms as f64 / wall_ms as f64
    } else {
        1.0
    };
    let (usr_pct, sys_pct) = (usr * scale, sys * scale);
    let mbs = (read.as_ref().map_or(0.0, |d| d.bw_bytes) + write.as_ref().map_or(0.0, |d| d.bw_bytes)) / 1e6;
    let cpu = CpuReport {
        usr_pct,
        sys_pct,
        pct_per_100mbs: (mbs > 0.0).then(|| (usr_pct + sys_pct) / (mbs / 100.0)),
        system_busy_pct: 0.0,
        system_idle_pct: 0.0,
        system_sys_pct: 0.0,
        system_iowait_pct: 0.0,
        real_s: wall_ms as f64 / 1e3,
        usr_s: usr_pct / 100.0 * wall_ms as f64 / 1e3,
        sys_s: sys_pct / 100.0 * wall_ms as f64 / 1e3,
    };
    let warning = Diagnostic::new(
        Code::FioCpuPerThread,
        format!(
            "CPU is fio's usr_cpu/sys_cpu ({usr:.2}% / {sys:.2}%{}): fio counts its job threads only, not io_uring's kernel workers or other threads of the process, so it is lower than iolab's whole-process figure; fio records no system-wide CPU (shown as 0)",
            if scale != 1.0 {
                format!(" per thread, x{scale:.2} for {workers} threads")
            } else {
                String::new()
            }
        ),
    );
    (cpu, warning)
}

/// The device from `disk_util` when it has byte counts and belongs to this job alone.
pub(super) fn device_report(
    disk_util: &[Value],
    single_job: bool,
    read: &Option<DirReport>,
    write: &Option<DirReport>,
    warnings: &mut Vec<Diagnostic>,
) -> Option<DeviceReport> {
    if disk_util.is_empty() {
        return None;
    }
    let delta = |d: &Value| -> Option<DiskDelta> {
        Some(DiskDelta {
            busy_ns: 0,
            queue_ns: 0,
            name: d.get("name")?.as_str()?.to_string(),
            read_bytes: as_u64(d.get("read_sectors")?)?.checked_mul(512)?,
            write_bytes: as_u64(d.get("write_sectors")?)?.checked_mul(512)?,
            read_ios: d.get("read_ios").and_then(as_u64).unwrap_or(0),
            write_ios: d.get("write_ios").and_then(as_u64).unwrap_or(0),
        })
    };
    let deltas: Option<Vec<DiskDelta>> = disk_util.iter().map(delta).collect();
    match deltas {
        Some(mut ds) if single_job => {
            let top = ds.remove(0);
            Some(DeviceReport {
                name: top.name,
                read_bytes: top.read_bytes,
                write_bytes: top.write_bytes,
                read_ios: top.read_ios,
                write_ios: top.write_ios,
                job_read_bytes: read.as_ref().map_or(0, |d| d.bytes),
                job_write_bytes: write.as_ref().map_or(0, |d| d.bytes),
                lower: ds,
                zfs_pool: None,
                copies: None,
                others: Vec::new(),
                zfs_writes: None,
                zfs_members: Vec::new(),
                zfs_members_unjudged: None,
            })
        }
        have_bytes => {
            let list: Vec<String> = disk_util
                .iter()
                .map(|d| {
                    let s = |k: &str| d.get(k).and_then(as_u64).unwrap_or(0);
                    format!(
                        "{} read_ios {} write_ios {} util {:.1}%",
                        d.get("name").and_then(Value::as_str).unwrap_or("?"),
                        s("read_ios"),
                        s("write_ios"),
                        d.get("util").and_then(Value::as_f64).unwrap_or(0.0)
                    )
                })
                .collect();
            let why = if have_bytes.is_none() {
                "fio printed no byte counts (sectors)"
            } else {
                "it covers all jobs of the fio run"
            };
            warnings.push(Diagnostic::new(
                Code::FioDiskUtil,
                format!(
                    "fio's disk_util for the whole fio run: {}; no device cross-check because {why}",
                    list.join("; ")
                ),
            ));
            None
        }
    }
}
