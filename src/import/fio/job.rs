//! One `jobs[]` entry → [`JobReport`]: options, directions, CPU, device,
//! the single run, and the job's warnings.

use super::as_u64;
use super::cpu_disk::{cpu_report, device_report};
use super::options::{Opts, is_sync_engine, normalize_rw, parse_fio_size, parse_secs, truthy};
use super::stats::dir_report;
use crate::judge::{Code, Diagnostic};
use crate::samples::DiskDelta;
use crate::summary::{JobReport, Named, RunReport, Samples, cross_check};
use serde_json::{Map, Value};

pub(super) struct JobCtx<'a> {
    pub(super) index: usize,
    pub(super) name: String,
    /// Entries with this job's name and group: more than one means `numjobs`
    /// clones reported separately (no `group_reporting`).
    pub(super) clones: u32,
    pub(super) single_job: bool,
    pub(super) target_path: &'a str,
}

pub(super) fn job_report(job: &Value, global: &Map<String, Value>, ctx: &JobCtx, disk_util: &[Value]) -> Result<JobReport, String> {
    let o = Opts::new(job, global);
    let what = if ctx.name.is_empty() {
        format!("job {}", ctx.index)
    } else {
        format!("job '{}'", ctx.name)
    };
    let mut warnings = Vec::new();

    let rw = normalize_rw(o.get("rw").or(o.get("readwrite")).unwrap_or("read"));
    let mut pct_notes = Vec::new();
    let read = dir_report(job.get("read"), &mut pct_notes).map_err(|e| format!("{what}: read: {e}"))?;
    let write = dir_report(job.get("write"), &mut pct_notes).map_err(|e| format!("{what}: write: {e}"))?;
    let bs = match o.get("bs").or(o.get("blocksize")) {
        Some(s) => parse_fio_size(s.split(',').next().unwrap_or(s)).ok_or_else(|| format!("{what}: cannot read bs '{s}'"))?,
        None => 4096,
    };
    let qd = o.get("iodepth").and_then(|s| s.trim().parse().ok()).unwrap_or(1u32);
    let numjobs = o.get("numjobs").and_then(|s| s.trim().parse().ok()).unwrap_or(1u32).max(1);
    let engine = o.get("ioengine").unwrap_or("psync").to_string();
    let direct = match o.get("direct") {
        Some(v) => truthy(v),
        None => o.get("buffered").is_some_and(|v| !truthy(v)),
    };
    let mix_read = matches!(rw.as_str(), "rw" | "randrw").then(|| {
        o.get("rwmixread")
            .and_then(|s| s.trim().parse::<u8>().ok())
            .or_else(|| {
                o.get("rwmixwrite")
                    .and_then(|s| s.trim().parse::<u8>().ok())
                    .map(|w| 100u8.saturating_sub(w))
            })
            .unwrap_or(50)
            .min(100)
    });
    // Without group_reporting, fio prints each of numjobs clones as its own entry.
    let cloned = numjobs > 1 && ctx.clones > 1;
    let (threads, workers) = if cloned { (1, 1) } else { (numjobs, numjobs) };
    if cloned {
        warnings.push(Diagnostic::new(
            Code::FioClone,
            format!(
                "one of fio's {} clones of '{}' (numjobs={numjobs} without group_reporting): imported as its own job of one thread",
                ctx.clones, ctx.name
            ),
        ));
    }

    let dir_runtime_ms = ["read", "write"]
        .iter()
        .filter_map(|d| job.get(*d).and_then(|v| v.get("runtime")).and_then(as_u64))
        .max()
        .unwrap_or(0);
    let job_runtime_ms = job.get("job_runtime").and_then(as_u64).unwrap_or(0);
    let wall_ms = if dir_runtime_ms > 0 { dir_runtime_ms } else { job_runtime_ms };

    let (cpu, cpu_warning) = cpu_report(job, workers, wall_ms, job_runtime_ms, &read, &write);
    warnings.push(cpu_warning);

    if !pct_notes.is_empty() {
        pct_notes.sort();
        pct_notes.dedup();
        warnings.push(Diagnostic::new(
            Code::FioPercentileNearest,
            format!(
                "fio did not print every percentile iolab reports; nearest used: {}",
                pct_notes.join(", ")
            ),
        ));
    }
    if !direct {
        warnings.push(Diagnostic::new(
            Code::Buffered,
            "buffered I/O (fio direct=0): the page cache is in the path",
        ));
    }
    if qd > 1 && is_sync_engine(&engine) {
        warnings.push(Diagnostic::new(
            Code::FioSyncIodepth,
            format!("{engine} is synchronous: fio capped iodepth={qd} at 1 per thread"),
        ));
    }
    if let Some(e) = job.get("error").and_then(as_u64).filter(|&e| e != 0) {
        warnings.push(Diagnostic::new(
            Code::FioError,
            format!(
                "fio reported error {e} ({}) for this job: its figures may be partial",
                errno_text(e)
            ),
        ));
    }
    if let Some(t) = job.get("trim").and_then(|t| t.get("total_ios")).and_then(as_u64).filter(|&t| t > 0) {
        warnings.push(Diagnostic::new(
            Code::FioTrim,
            format!("fio also issued {t} trims: iolab has no trim direction, they are not imported"),
        ));
    }
    let filename = o.get("filename");
    if ctx.index > 0
        && let Some(f) = filename
        && f != ctx.target_path
    {
        warnings.push(Diagnostic::new(
            Code::FioOtherTarget,
            format!("this job used {f}; the document's target is {} (the first job's)", ctx.target_path),
        ));
    }

    let device = device_report(disk_util, ctx.single_job, &read, &write, &mut warnings);
    if let Some(d) = &device {
        warnings.extend(cross_check(d));
    }

    let run = RunReport {
        read: read.clone(),
        write: write.clone(),
        cpu: cpu.clone(),
        device: device.as_ref().map(|d| DiskDelta {
            busy_ns: 0,
            name: d.name.clone(),
            read_bytes: d.read_bytes,
            write_bytes: d.write_bytes,
            read_ios: d.read_ios,
            write_ios: d.write_ios,
        }),
        wall_ns: wall_ms * 1_000_000,
        sync_ns: 0,
        first_done_ns: wall_ms * 1_000_000,
        last_done_ns: wall_ms * 1_000_000,
        // fio records no per-second timeline here, so no cliff can be found.
        write_cliff: None,
        device_seconds: Vec::new(),
        samples: Samples {
            read_bytes_per_s: Vec::new(),
            write_bytes_per_s: Vec::new(),
        },
    };

    Ok(JobReport {
        name: ctx.name.clone(),
        rw: Named::parse(&rw),
        bs,
        qd,
        threads,
        mix_read,
        direct,
        engine: Named::parse(&engine),
        workers,
        duration_s: o.get("runtime").and_then(parse_secs),
        limit_bytes: o.get("io_size").or(o.get("io_limit")).and_then(parse_fio_size),
        span_bytes: o.get("size").and_then(parse_fio_size).unwrap_or(0),
        offset_bytes: 0,
        runs: vec![run],
        warmup: None,
        read,
        write,
        cpu,
        device,
        warnings,
        steady: None,
    })
}

fn errno_text(e: u64) -> String {
    std::io::Error::from_raw_os_error(e as i32).to_string()
}
