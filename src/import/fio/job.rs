//! One `jobs[]` entry → [`JobReport`]: options, directions, CPU, device,
//! the single run, and the job's warnings.

use super::as_u64;
use super::cpu_disk::{cpu_report, device_report};
use super::options::{Opts, is_sync_engine, normalize_rw, parse_fio_size, parse_secs, truthy};
use super::stats::dir_report;
use crate::judge::{Code, Diagnostic};
use crate::samples::DiskDelta;
use crate::summary::{DirReport, JobReport, Named, RunReport, Samples, cross_check};
use serde_json::{Map, Value};

pub(super) struct JobCtx<'a> {
    pub(super) index: usize,
    pub(super) name: String,
    /// Entries with this job's name and group: more than one means `numjobs`
    /// clones reported separately (no `group_reporting`).
    pub(super) clones: u32,
    pub(super) single_job: bool,
    pub(super) target_path: &'a str,
    /// fio's version string, for warning `fio_legacy`.
    pub(super) version: &'a str,
    /// fio before 2.3 printed no options: what the job ran is inferred.
    pub(super) no_options: bool,
}

pub(super) fn job_report(job: &Value, global: &Map<String, Value>, ctx: &JobCtx, disk_util: &[Value]) -> Result<JobReport, String> {
    let o = Opts::new(job, global);
    let what = if ctx.name.is_empty() {
        format!("job {}", ctx.index)
    } else {
        format!("job '{}'", ctx.name)
    };
    let mut warnings = Vec::new();

    let Directions {
        read,
        write,
        rw,
        pct_notes,
        legacy,
    } = directions(job, &o, ctx, &what)?;
    let moved = |d: &Option<crate::summary::DirReport>| d.as_ref().map_or((0, 0), |d| (d.bytes, d.ios));
    let ((rb, ri), (wb, wi)) = (moved(&read), moved(&write));
    let bs = block_size(&o, ctx, &what, [(rb, ri), (wb, wi)])?;
    let qd = o.get("iodepth").and_then(|s| s.trim().parse().ok()).unwrap_or(1u32);
    let numjobs = o.get("numjobs").and_then(|s| s.trim().parse().ok()).unwrap_or(1u32).max(1);
    let engine = o
        .get("ioengine")
        .unwrap_or(if ctx.no_options { "unknown" } else { "psync" })
        .to_string();
    let direct = match o.get("direct") {
        Some(v) => truthy(v),
        None => o.get("buffered").is_some_and(|v| !truthy(v)),
    };
    let mix_read = matches!(rw.as_str(), "rw" | "randrw").then(|| mix_read(&o, ctx, ri, wi));
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

    let (wall_ms, job_runtime_ms) = runtime_ms(job);
    let wall_ns = wall_ms
        .checked_mul(1_000_000)
        .ok_or_else(|| format!("{what}: a runtime of {wall_ms} ms is not a possible one"))?;

    let (cpu, cpu_warning) = cpu_report(job, workers, wall_ms, job_runtime_ms, &read, &write);
    warnings.push(cpu_warning);

    warnings.extend(notes(
        job,
        &o,
        ctx,
        Noted {
            pct_notes,
            legacy,
            rw: &rw,
            bs,
            direct,
            qd,
            engine: &engine,
        },
    ));

    let device = device_report(disk_util, ctx.single_job, &read, &write, &mut warnings);
    if let Some(d) = &device {
        warnings.extend(cross_check(d));
    }

    let run = single_run(&read, &write, &cpu, device.as_ref(), wall_ns);

    let latency = latency_label(&o, &read, &write);
    let report = JobReport {
        name: ctx.name.clone(),
        rw: Named::parse(&rw),
        bs,
        qd,
        threads,
        mix_read,
        direct,
        engine: Named::parse(&engine),
        latency,
        sync: sync_mode(&o),
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
        device_depth: None,
        warnings,
        steady: None,
        zfs_read: None,
    };
    finite_figures(&report).map_err(|e| format!("{what}: {e}"))?;
    Ok(report)
}

/// A job's block size: fio's `bs` (its reads' part), or before fio 2.3,
/// which did not print it, the average I/O size of `moved` (bytes, I/Os)
/// to a multiple of 512 (bytes were printed in KiB, I/Os may be estimated).
fn block_size(o: &Opts, ctx: &JobCtx, what: &str, moved: [(u64, u64); 2]) -> Result<u64, String> {
    // In floating point: counts near u64::MAX must not overflow a sum.
    let bytes: f64 = moved.iter().map(|m| m.0 as f64).sum();
    let ios: f64 = moved.iter().map(|m| m.1 as f64).sum();
    Ok(match o.get("bs").or(o.get("blocksize")) {
        Some(s) => parse_fio_size(s.split(',').next().unwrap_or(s)).ok_or_else(|| format!("{what}: cannot read bs '{s}'"))?,
        None if ctx.no_options && ios > 0.0 => {
            let avg = bytes / ios;
            if avg >= 512.0 {
                ((avg / 512.0).round() as u64).saturating_mul(512)
            } else {
                avg.round() as u64
            }
        }
        None => 4096,
    })
}

/// A mixed job's share of reads: fio's `rwmixread` (or 100 less
/// `rwmixwrite`, 50 by default), or before fio 2.3 the share of the I/Os
/// it did (`ri` reads, `wi` writes).
fn mix_read(o: &Opts, ctx: &JobCtx, ri: u64, wi: u64) -> u8 {
    if ctx.no_options {
        return (ri as f64 * 100.0 / (ri as f64 + wi as f64).max(1.0)).round() as u8;
    }
    o.get("rwmixread")
        .and_then(|s| s.trim().parse::<u8>().ok())
        .or_else(|| {
            o.get("rwmixwrite")
                .and_then(|s| s.trim().parse::<u8>().ok())
                .map(|w| 100u8.saturating_sub(w))
        })
        .unwrap_or(50)
        .min(100)
}

/// How long a job ran, ms: its longest direction's runtime (else the
/// job's), and the job's own `job_runtime`.
fn runtime_ms(job: &Value) -> (u64, u64) {
    let dir_runtime_ms = ["read", "write", "mixed"]
        .iter()
        .filter_map(|d| job.get(*d).and_then(|v| v.get("runtime")).and_then(as_u64))
        .max()
        .unwrap_or(0);
    let job_runtime_ms = job.get("job_runtime").and_then(as_u64).unwrap_or(0);
    let wall_ms = if dir_runtime_ms > 0 { dir_runtime_ms } else { job_runtime_ms };
    (wall_ms, job_runtime_ms)
}

/// fio's job as the one run it is.
fn single_run(
    read: &Option<DirReport>,
    write: &Option<DirReport>,
    cpu: &crate::summary::CpuReport,
    device: Option<&crate::summary::DeviceReport>,
    wall_ns: u64,
) -> RunReport {
    RunReport {
        read: read.clone(),
        write: write.clone(),
        cpu: cpu.clone(),
        device: device.map(|d| DiskDelta {
            busy_ns: 0,
            queue_ns: 0,
            name: d.name.clone(),
            read_bytes: d.read_bytes,
            write_bytes: d.write_bytes,
            read_ios: d.read_ios,
            write_ios: d.write_ios,
        }),
        device_depth: None,
        wall_ns,
        sync_ns: 0,
        first_done_ns: wall_ns,
        last_done_ns: wall_ns,
        // fio records no per-second timeline here, so no cliff can be found.
        write_cliff: None,
        device_seconds: Vec::new(),
        samples: Samples {
            read_bytes_per_s: Vec::new(),
            write_bytes_per_s: Vec::new(),
        },
    }
}

/// A job's directions as fio printed them, and the `rw` they ran under.
struct Directions {
    read: Option<DirReport>,
    write: Option<DirReport>,
    rw: String,
    /// Percentiles fio did not print, the nearest used instead.
    pct_notes: Vec<String>,
    /// Older shapes of fio's JSON met on the way.
    legacy: Vec<&'static str>,
}

/// The read and write directions of `job` (one "mixed" direction split
/// back where `rw` makes it one of them).
fn directions(job: &Value, o: &Opts, ctx: &JobCtx, what: &str) -> Result<Directions, String> {
    let mut legacy = Vec::new();
    let mut pct_notes = Vec::new();
    let mut read = dir_report(job.get("read"), &mut pct_notes, &mut legacy).map_err(|e| format!("{what}: read: {e}"))?;
    let mut write = dir_report(job.get("write"), &mut pct_notes, &mut legacy).map_err(|e| format!("{what}: write: {e}"))?;
    let rw = match o.get("rw").or(o.get("readwrite")) {
        Some(rw) => normalize_rw(rw),
        None if ctx.no_options => match (&read, &write) {
            (Some(_), Some(_)) => "rw".to_string(),
            (None, Some(_)) => "write".to_string(),
            _ => "read".to_string(),
        },
        None => "read".to_string(),
    };
    // unified_rw_reporting: one "mixed" direction instead of read and write.
    if read.is_none() && write.is_none() && job.get("mixed").is_some() {
        let mixed = dir_report(job.get("mixed"), &mut pct_notes, &mut legacy).map_err(|e| format!("{what}: mixed: {e}"))?;
        match rw.as_str() {
            "read" | "randread" => read = mixed,
            "write" | "randwrite" => write = mixed,
            _ if mixed.is_none() => {}
            _ => {
                return Err(format!(
                    "{what}: fio summed reads and writes into one \"mixed\" direction (unified_rw_reporting); \
                     iolab cannot split them for rw={rw}: run fio without unified_rw_reporting"
                ));
            }
        }
    }
    Ok(Directions {
        read,
        write,
        rw,
        pct_notes,
        legacy,
    })
}

/// What the notes on a job's import are made of ([`notes`]).
struct Noted<'a> {
    pct_notes: Vec<String>,
    legacy: Vec<&'static str>,
    rw: &'a str,
    bs: u64,
    direct: bool,
    qd: u32,
    engine: &'a str,
}

/// The warnings on how fio ran a job and how its JSON was read: nearest
/// percentiles, an older shape, buffered I/O, a synchronous engine's
/// depth, fio's own error, trims, another target.
fn notes(job: &Value, o: &Opts, ctx: &JobCtx, n: Noted) -> Vec<Diagnostic> {
    let Noted {
        mut pct_notes,
        mut legacy,
        rw,
        bs,
        direct,
        qd,
        engine,
    } = n;
    let mut warnings = Vec::new();
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
    if !legacy.is_empty() || ctx.no_options {
        legacy.sort();
        legacy.dedup();
        let mut how: Vec<String> = legacy.iter().map(|s| s.to_string()).collect();
        if ctx.no_options {
            how.push(format!(
                "no job options (fio before 2.3): rw {rw} inferred from the directions (sequential assumed), \
                 bs {bs} = bytes per I/O (to 512), iodepth 1, numjobs 1, engine unknown, O_DIRECT unknown (recorded as buffered)"
            ));
        }
        warnings.push(Diagnostic::new(
            Code::FioLegacy,
            format!("{}'s JSON is an older shape, read as: {}", ctx.version, how.join("; ")),
        ));
    }
    if !direct && !ctx.no_options {
        warnings.push(Diagnostic::new(
            Code::Buffered,
            "buffered I/O (fio direct=0): the page cache is in the path",
        ));
    }
    if qd > 1 && is_sync_engine(engine) {
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

    warnings
}

/// How fio took latencies: none with gtod_reduce (or when it printed
/// none), upper bounds when it reaped completions in batches.
fn latency_label(o: &Opts, read: &Option<DirReport>, write: &Option<DirReport>) -> String {
    let batch = o
        .get("iodepth_batch_complete_min")
        .or(o.get("iodepth_batch_complete"))
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(1);
    let timed = [read, write].into_iter().flatten().any(|d| d.lat_ns.is_some());
    if o.get("gtod_reduce").is_some_and(truthy) || !timed {
        "off".to_string()
    } else if batch > 1 {
        format!("batch={batch}")
    } else {
        "exact".to_string()
    }
}

/// A job's sync mode from fio's options: `sync=dsync` (or `sync=1`,
/// O_SYNC, which syncs metadata too) writes as iolab's `dsync` does, each
/// write's latency running until it is stored. fio's `fdatasync=1` or
/// `fsync=1` is not iolab's `fsync`: fio times that flush apart from the
/// write (its own `sync` latency), so the write's latency leaves it out.
fn sync_mode(o: &Opts) -> crate::plan::SyncMode {
    use crate::plan::SyncMode;
    match o.get("sync").map(|v| v.trim().to_ascii_lowercase()) {
        Some(v) if matches!(v.as_str(), "dsync" | "sync" | "1" | "true" | "yes" | "on") => SyncMode::Dsync,
        _ => SyncMode::None,
    }
}

/// Every figure derived from the document's numbers is a number: fio's
/// `bw` of 1e308 KiB/s is infinite in bytes/s, which a JSON document (and
/// so the store) cannot hold. Out of range is an error, not a silent `null`.
fn finite_figures(j: &JobReport) -> Result<(), String> {
    let mut figures: Vec<(&str, f64)> = Vec::new();
    for (dir, d) in [("read", &j.read), ("write", &j.write)] {
        if let Some(d) = d {
            figures.extend([(dir, d.bw_bytes), (dir, d.iops), (dir, d.lat_ns.as_ref().map_or(0.0, |l| l.mean))]);
        }
    }
    let c = &j.cpu;
    figures.extend([
        ("cpu", c.usr_pct),
        ("cpu", c.sys_pct),
        ("cpu", c.pct_per_100mbs.unwrap_or(0.0)),
        ("cpu", c.real_s),
        ("cpu", c.usr_s),
        ("cpu", c.sys_s),
        ("runtime", j.duration_s.unwrap_or(0.0)),
    ]);
    match figures.iter().find(|(_, v)| !v.is_finite()) {
        Some((what, v)) => Err(format!("{what}: a figure out of range ({v}): the document's numbers are not fio's")),
        None => Ok(()),
    }
}

fn errno_text(e: u64) -> String {
    std::io::Error::from_raw_os_error(e as i32).to_string()
}
