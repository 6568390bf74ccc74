//! fio 3.x JSON (`--output-format=json` or `json+`) → [`Report`].
//!
//! Mapping:
//! - The document: `command` is `"import:fio"`; `iolab_version` holds fio's
//!   `"fio version"` string (e.g. `"fio-3.33"`): the version of the tool that
//!   produced the figures; `started_at` is fio's `timestamp` (unix seconds) as
//!   RFC 3339 UTC. fio records no host: `hostname` and `kernel` are
//!   `"unknown"` and `cpus` is 0. `settings`: one run, `warmup_s` from
//!   `ramp_time`, no interval, no suite. `interrupted` is false.
//! - The target is the first job's `filename` (job options, then global
//!   options): a block device when it is under `/dev/` (except `/dev/shm/`),
//!   else a file; without a filename, fio's `directory` option (kind
//!   directory) or `"unknown"`. `span_bytes` is the `size` option (0 when
//!   absent or a percentage). `test_file` false, no filesystem, devices or
//!   info: fio records none of them.
//! - Each `jobs[]` entry is a job: `rw` (`readwrite` → `rw`, a `:N` suffix
//!   dropped), `bs` (first of a `read,write` list; fio's default 4096),
//!   `iodepth` → `qd`, `numjobs` → `threads`, `rwmixread`/`rwmixwrite` →
//!   `mix_read` for mixed patterns (fio's default 50), `ioengine` → `engine`
//!   (fio's default `psync`), `direct`, `runtime` → `duration_s`, `io_size` →
//!   `limit_bytes`. Options are job options first, then global options.
//! - `read`/`write`: `io_bytes`, `total_ios`, `bw_bytes`, `iops` as fio printed
//!   them; latency from `clat_ns` (submission to completion, which is what
//!   iolab measures), or from `lat_ns` when only that one has percentiles;
//!   `p50`..`p99_99` are the nearest percentiles fio printed (a warning names
//!   any that is not exact). A direction with `total_ios` 0 is `null`.
//! - fio ran once: `runs` holds one run equal to the job figures (no spread,
//!   so `bw_min`/`bw_max`/`bw_cv` are absent); its `wall_ns` is the longer of
//!   the directions' `runtime` (ms), else `job_runtime`; no per-second samples.
//! - CPU: fio's `usr_cpu`/`sys_cpu` are per job thread (a group's figure is
//!   the average over its threads, scaled here by `job_runtime / wall` to %
//!   of one CPU) and miss io_uring's kernel workers; the system-wide figures
//!   are not recorded (0). Warning `fio_cpu_per_thread` says so.
//! - `disk_util` covers the whole fio run. With byte counts
//!   (`read_sectors`/`write_sectors`, printed by newer fio) and a single job,
//!   the first entry becomes the job's `device` (the others `lower`) and is
//!   cross-checked like iolab's; otherwise `device` is null and warning
//!   `fio_disk_util` carries the counters (fio 3.33 prints no sectors).
//!
//! Warning codes added here: `fio_cpu_per_thread`, `fio_disk_util`,
//! `fio_percentile_nearest`, `fio_sync_iodepth`, `fio_clone`, `fio_error`,
//! `fio_trim`, `fio_other_target`, and iolab's `buffered`, `cache_answered`,
//! `device_extra`.

use crate::samples::DiskDelta;
use crate::summary::{
    CpuReport, DeviceReport, DirReport, Host, JobReport, Latency, Report, RunReport, Samples, Settings, Warning, cross_check,
};
use crate::target::{Kind, TargetInfo};
use serde_json::{Map, Value};

/// Parse fio's JSON output (text before the JSON object, e.g. fio's warnings
/// when stderr was captured too, and text after it are skipped).
pub fn parse_fio_json(text: &str) -> Result<Report, String> {
    let doc = find_document(text)?;
    let jobs = doc
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or("not fio JSON output: no \"jobs\" array (fio --client output is not supported)")?;
    if jobs.is_empty() {
        return Err("fio JSON output has no jobs".into());
    }
    let empty = Map::new();
    let global = doc.get("global options").and_then(Value::as_object).unwrap_or(&empty);
    let disk_util: &[Value] = doc.get("disk_util").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);

    let first = Opts::new(&jobs[0], global);
    let target = target_info(&first);
    let mut out = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        let name = job.get("jobname").and_then(Value::as_str).unwrap_or("").to_string();
        let clones = jobs
            .iter()
            .filter(|j| j.get("jobname") == job.get("jobname") && j.get("groupid") == job.get("groupid"))
            .count() as u32;
        let ctx = JobCtx {
            index: i,
            name,
            clones,
            single_job: jobs.len() == 1,
            target_path: &target.path,
        };
        out.push(job_report(job, global, &ctx, disk_util)?);
    }

    Ok(Report {
        run_id: None,
        iolab_version: doc
            .get("fio version")
            .and_then(Value::as_str)
            .unwrap_or("fio (unknown version)")
            .to_string(),
        command: "import:fio".into(),
        started_at: doc
            .get("timestamp")
            .and_then(as_u64)
            .map(rfc3339)
            .unwrap_or_else(|| "unknown".into()),
        host: Host {
            hostname: "unknown".into(),
            kernel: "unknown".into(),
            cpus: 0,
        },
        target,
        settings: Settings {
            runs: 1,
            warmup_s: first.get("ramp_time").and_then(parse_secs).unwrap_or(0.0),
            interval_s: 0.0,
            suite: None,
        },
        jobs: out,
        interrupted: false,
    })
}

/// The first JSON object in `text` that starts a line and holds fio's `jobs`;
/// anything after it is ignored. (Lines inside a JSON object that does not
/// parse, e.g. a truncated file, also start with `{`: they are never taken
/// for the document, so the parse error is what is reported.)
fn find_document(text: &str) -> Result<Map<String, Value>, String> {
    let mut first_err = None;
    let mut other = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if !trimmed.starts_with('{') {
            continue;
        }
        let at = start + (line.len() - trimmed.len());
        let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(m))) if m.contains_key("jobs") => return Ok(m),
            Some(Ok(Value::Object(m))) => {
                other.get_or_insert(m);
            }
            Some(Err(e)) => {
                first_err.get_or_insert(e.to_string());
            }
            _ => {}
        }
    }
    match (first_err, other) {
        (Some(e), _) => Err(format!("not fio JSON output: the JSON object does not parse: {e}")),
        (None, Some(m)) => Ok(m),
        (None, None) => Err("not fio JSON output: no line starts a JSON object (run fio with --output-format=json)".into()),
    }
}

/// A job's options with the global options under them (fio prints option values as strings).
struct Opts<'a> {
    job: Option<&'a Map<String, Value>>,
    global: &'a Map<String, Value>,
}

impl<'a> Opts<'a> {
    fn new(job: &'a Value, global: &'a Map<String, Value>) -> Self {
        Opts {
            job: job.get("job options").and_then(Value::as_object),
            global,
        }
    }
    fn get(&self, key: &str) -> Option<&'a str> {
        self.job
            .and_then(|j| j.get(key))
            .or_else(|| self.global.get(key))
            .and_then(Value::as_str)
    }
}

struct JobCtx<'a> {
    index: usize,
    name: String,
    /// Entries with this job's name and group: more than one means `numjobs`
    /// clones reported separately (no `group_reporting`).
    clones: u32,
    single_job: bool,
    target_path: &'a str,
}

fn warn(code: &str, message: String) -> Warning {
    Warning {
        code: code.into(),
        message,
    }
}

fn job_report(job: &Value, global: &Map<String, Value>, ctx: &JobCtx, disk_util: &[Value]) -> Result<JobReport, String> {
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
        warnings.push(warn(
            "fio_clone",
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

    // CPU: per thread; a group's figure is averaged over its threads' runtimes.
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
    };
    warnings.push(warn(
        "fio_cpu_per_thread",
        format!(
            "CPU is fio's usr_cpu/sys_cpu ({usr:.2}% / {sys:.2}%{}): fio counts its job threads only, not io_uring's kernel workers or other threads of the process, so it is lower than iolab's whole-process figure; fio records no system-wide CPU (shown as 0)",
            if scale != 1.0 {
                format!(" per thread, x{scale:.2} for {workers} threads")
            } else {
                String::new()
            }
        ),
    ));

    if !pct_notes.is_empty() {
        pct_notes.sort();
        pct_notes.dedup();
        warnings.push(warn(
            "fio_percentile_nearest",
            format!(
                "fio did not print every percentile iolab reports; nearest used: {}",
                pct_notes.join(", ")
            ),
        ));
    }
    if !direct {
        warnings.push(warn(
            "buffered",
            "buffered I/O (fio direct=0): the page cache is in the path".into(),
        ));
    }
    if qd > 1 && is_sync_engine(&engine) {
        warnings.push(warn(
            "fio_sync_iodepth",
            format!("{engine} is synchronous: fio capped iodepth={qd} at 1 per thread"),
        ));
    }
    if let Some(e) = job.get("error").and_then(as_u64).filter(|&e| e != 0) {
        warnings.push(warn(
            "fio_error",
            format!(
                "fio reported error {e} ({}) for this job: its figures may be partial",
                errno_text(e)
            ),
        ));
    }
    if let Some(t) = job.get("trim").and_then(|t| t.get("total_ios")).and_then(as_u64).filter(|&t| t > 0) {
        warnings.push(warn(
            "fio_trim",
            format!("fio also issued {t} trims: iolab has no trim direction, they are not imported"),
        ));
    }
    let filename = o.get("filename");
    if ctx.index > 0
        && let Some(f) = filename
        && f != ctx.target_path
    {
        warnings.push(warn(
            "fio_other_target",
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
        samples: Samples {
            read_bytes_per_s: Vec::new(),
            write_bytes_per_s: Vec::new(),
        },
    };

    Ok(JobReport {
        name: ctx.name.clone(),
        rw,
        bs,
        qd,
        threads,
        mix_read,
        direct,
        engine,
        workers,
        duration_s: o.get("runtime").and_then(parse_secs),
        limit_bytes: o.get("io_size").or(o.get("io_limit")).and_then(parse_fio_size),
        span_bytes: o.get("size").and_then(parse_fio_size).unwrap_or(0),
        runs: vec![run],
        read,
        write,
        cpu,
        device,
        warnings,
    })
}

/// One direction; `None` when it did no I/O.
fn dir_report(d: Option<&Value>, notes: &mut Vec<String>) -> Result<Option<DirReport>, String> {
    let Some(d) = d else { return Ok(None) };
    let field = |k: &str| d.get(k).ok_or_else(|| format!("no \"{k}\""));
    let ios = as_u64(field("total_ios")?).ok_or("\"total_ios\" is not a count")?;
    if ios == 0 {
        return Ok(None);
    }
    let bytes = as_u64(field("io_bytes")?).ok_or("\"io_bytes\" is not a count")?;
    let bw_bytes = field("bw_bytes")?.as_f64().ok_or("\"bw_bytes\" is not a number")?;
    let iops = field("iops")?.as_f64().ok_or("\"iops\" is not a number")?;
    let has_pct = |k: &str| d.get(k).and_then(|l| l.get("percentile")).is_some_and(Value::is_object);
    let lat_key = if !has_pct("clat_ns") && has_pct("lat_ns") {
        "lat_ns"
    } else {
        "clat_ns"
    };
    let lat = d.get(lat_key).or_else(|| d.get("lat_ns")).ok_or("no \"clat_ns\" or \"lat_ns\"")?;
    let pct: Vec<(f64, u64)> = lat
        .get("percentile")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.trim().parse::<f64>().ok()?, as_u64(v)?)))
                .collect()
        })
        .unwrap_or_default();
    let mut at = |want: f64, label: &str| -> u64 {
        let Some(&(got, v)) = pct.iter().min_by(|a, b| (a.0 - want).abs().total_cmp(&(b.0 - want).abs())) else {
            notes.push(format!("{label}: none printed (0)"));
            return 0;
        };
        if (got - want).abs() > 1e-9 {
            notes.push(format!("{label} from fio's {got}th"));
        }
        v
    };
    let lat_ns = Latency {
        mean: lat.get("mean").and_then(Value::as_f64).unwrap_or(0.0),
        min: lat.get("min").and_then(as_u64).unwrap_or(0),
        max: lat.get("max").and_then(as_u64).unwrap_or(0),
        p50: at(50.0, "p50"),
        p90: at(90.0, "p90"),
        p99: at(99.0, "p99"),
        p99_9: at(99.9, "p99_9"),
        p99_99: at(99.99, "p99_99"),
    };
    Ok(Some(DirReport {
        bytes,
        ios,
        bw_bytes,
        iops,
        lat_ns,
        bw_min: None,
        bw_max: None,
        bw_cv: None,
    }))
}

/// The device from `disk_util` when it has byte counts and belongs to this job alone.
fn device_report(
    disk_util: &[Value],
    single_job: bool,
    read: &Option<DirReport>,
    write: &Option<DirReport>,
    warnings: &mut Vec<Warning>,
) -> Option<DeviceReport> {
    if disk_util.is_empty() {
        return None;
    }
    let delta = |d: &Value| -> Option<DiskDelta> {
        Some(DiskDelta {
            name: d.get("name")?.as_str()?.to_string(),
            read_bytes: as_u64(d.get("read_sectors")?)? * 512,
            write_bytes: as_u64(d.get("write_sectors")?)? * 512,
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
            warnings.push(warn(
                "fio_disk_util",
                format!(
                    "fio's disk_util for the whole fio run: {}; no device cross-check because {why}",
                    list.join("; ")
                ),
            ));
            None
        }
    }
}

fn target_info(first: &Opts) -> TargetInfo {
    let (path, kind) = match first.get("filename") {
        Some(f) if f.starts_with("/dev/") && !f.starts_with("/dev/shm/") => (f.to_string(), Kind::BlockDevice),
        Some(f) => (f.to_string(), Kind::File),
        None => match first.get("directory") {
            Some(d) => (d.to_string(), Kind::Directory),
            None => ("unknown".to_string(), Kind::File),
        },
    };
    let direct = match first.get("direct") {
        Some(v) => truthy(v),
        None => first.get("buffered").is_some_and(|v| !truthy(v)),
    };
    TargetInfo {
        path,
        kind,
        test_file: false,
        span_bytes: first.get("size").and_then(parse_fio_size).unwrap_or(0),
        direct,
        filesystem: None,
        devices: Vec::new(),
        info: None,
    }
}

fn normalize_rw(s: &str) -> String {
    let base = s.split(':').next().unwrap_or(s).trim().to_ascii_lowercase();
    match base.as_str() {
        "readwrite" => "rw".into(),
        "randreadwrite" => "randrw".into(),
        _ => base,
    }
}

fn is_sync_engine(e: &str) -> bool {
    matches!(e, "sync" | "psync" | "vsync" | "pvsync" | "pvsync2")
}

fn truthy(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "" | "1" | "true" | "yes" | "on")
}

fn errno_text(e: u64) -> String {
    std::io::Error::from_raw_os_error(e as i32).to_string()
}

/// A JSON count (fio prints integers; tolerate floats).
fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f.round() as u64))
}

/// A fio size: `4k`, `1m`, `64M`, `4KiB`, `512`. fio's default `kb_base=1024`
/// makes every k/m/g/t form a power of 1024. Percentages give `None`.
fn parse_fio_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

/// A fio time: bare seconds, or with `us`, `ms`, `s`, `m`, `h`, `d`.
fn parse_secs(s: &str) -> Option<f64> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "s" => 1.0,
        "us" => 1e-6,
        "ms" => 1e-3,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    Some(n * mult)
}

/// Unix seconds → `YYYY-MM-DDTHH:MM:SSZ`.
fn rfc3339(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (mut y, mut d) = (1970u64, days);
    let leap = |y: u64| (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    loop {
        let len = if leap(y) { 366 } else { 365 };
        if d < len {
            break;
        }
        d -= len;
        y += 1;
    }
    let months = [31, if leap(y) { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut m = 0;
    while d >= months[m] {
        d -= months[m];
        m += 1;
    }
    format!(
        "{y:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        m + 1,
        d + 1,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/fio/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    const FIXTURES: [&str; 5] = [
        "two_jobs_randread_write.json",
        "jsonplus_randwrite.json",
        "randrw_grouped.json",
        "psync_note_prefix.txt",
        "psync_loop_blockdev.json",
    ];

    /// The raw fio JSON object of a fixture (after any leading text).
    fn raw(name: &str) -> Value {
        Value::Object(find_document(&fixture(name)).unwrap())
    }

    /// Every figure of every job equals fio's own number, and the run equals the job.
    fn check_against_raw(name: &str) {
        let text = fixture(name);
        let r = parse_fio_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let raw = raw(name);
        let raw_jobs = raw["jobs"].as_array().unwrap();
        assert_eq!(r.jobs.len(), raw_jobs.len(), "{name}");
        assert_eq!(r.command, "import:fio");
        assert_eq!(r.iolab_version, raw["fio version"].as_str().unwrap());
        for (j, rj) in r.jobs.iter().zip(raw_jobs) {
            assert_eq!(j.name, rj["jobname"].as_str().unwrap());
            for (dir, ours) in [("read", &j.read), ("write", &j.write)] {
                let f = &rj[dir];
                if f["total_ios"].as_u64().unwrap() == 0 {
                    assert!(ours.is_none(), "{name} {} {dir}", j.name);
                    continue;
                }
                let d = ours.as_ref().unwrap_or_else(|| panic!("{name} {} {dir} missing", j.name));
                assert_eq!(d.ios, f["total_ios"].as_u64().unwrap());
                assert_eq!(d.bytes, f["io_bytes"].as_u64().unwrap());
                assert_eq!(d.bw_bytes, f["bw_bytes"].as_f64().unwrap());
                assert_eq!(d.iops, f["iops"].as_f64().unwrap());
                let c = &f["clat_ns"];
                assert_eq!(d.lat_ns.p50, c["percentile"]["50.000000"].as_u64().unwrap());
                assert_eq!(d.lat_ns.p99, c["percentile"]["99.000000"].as_u64().unwrap());
                assert_eq!(d.lat_ns.p99_99, c["percentile"]["99.990000"].as_u64().unwrap());
                assert_eq!(d.lat_ns.mean, c["mean"].as_f64().unwrap());
                assert_eq!(d.lat_ns.min, c["min"].as_u64().unwrap());
                assert_eq!(d.lat_ns.max, c["max"].as_u64().unwrap());
                assert_eq!((d.bw_min, d.bw_max, d.bw_cv), (None, None, None));
            }
            assert_eq!(j.runs.len(), 1);
            assert_eq!(j.runs[0].read, j.read);
            assert_eq!(j.runs[0].write, j.write);
            assert_eq!(j.runs[0].cpu, j.cpu);
            assert!(j.warnings.iter().any(|w| w.code == "fio_cpu_per_thread"));
            assert!(!j.warnings.iter().any(|w| w.code == "fio_percentile_nearest"), "{:?}", j.warnings);
        }
    }

    #[test]
    fn every_fixture_matches_fio_numbers() {
        for name in FIXTURES {
            check_against_raw(name);
        }
    }

    #[test]
    fn two_jobs_options_and_document() {
        let r = parse_fio_json(&fixture("two_jobs_randread_write.json")).unwrap();
        assert_eq!(r.iolab_version, "fio-3.33");
        assert_eq!(r.started_at, rfc3339(1_795_271_289));
        assert_eq!(r.started_at, "2026-11-21T14:28:09Z");
        assert_eq!(r.host.hostname, "unknown");
        assert_eq!(r.target.path, "/tmp/iolab-fio-fx/data.bin");
        assert_eq!(r.target.kind, Kind::File);
        assert!(!r.target.test_file && r.target.direct);
        assert_eq!(r.target.span_bytes, 64 << 20);
        assert_eq!(r.settings.runs, 1);
        let (a, b) = (&r.jobs[0], &r.jobs[1]);
        assert_eq!(
            (a.name.as_str(), a.rw.as_str(), a.bs, a.qd),
            ("randread-4k-qd32", "randread", 4096, 32)
        );
        assert_eq!((b.name.as_str(), b.rw.as_str(), b.bs, b.qd), ("write-1m", "write", 1 << 20, 4));
        assert_eq!((a.engine.as_str(), a.direct, a.threads, a.workers), ("io_uring", true, 1, 1));
        assert_eq!(a.mix_read, None);
        assert_eq!(a.duration_s, Some(1.0));
        assert!(a.write.is_none() && b.read.is_none());
        // The raw numbers, spelled out once.
        let rd = a.read.as_ref().unwrap();
        assert_eq!(
            (rd.bytes, rd.ios, rd.bw_bytes, rd.iops),
            (330_354_688, 80_653, 330_024_663.0, 80_572.427572)
        );
        assert_eq!(rd.lat_ns.p99, 1_286_144);
        assert_eq!((a.cpu.usr_pct, a.cpu.sys_pct), (3.4, 39.7));
        assert_eq!(a.runs[0].wall_ns, 1_001_000_000);
        // disk_util has no bytes in fio 3.33, and two jobs share it.
        assert!(a.device.is_none());
        let du = a.warnings.iter().find(|w| w.code == "fio_disk_util").unwrap();
        assert!(du.message.contains("vda read_ios 80653 write_ios 3722"), "{}", du.message);
    }

    #[test]
    fn randrw_group_has_mix_threads_and_both_directions() {
        let r = parse_fio_json(&fixture("randrw_grouped.json")).unwrap();
        let j = &r.jobs[0];
        assert_eq!(
            (j.rw.as_str(), j.mix_read, j.threads, j.workers, j.qd),
            ("randrw", Some(70), 2, 2, 16)
        );
        assert!(j.read.is_some() && j.write.is_some());
        // Per-thread CPU (1.95 + 21.4 averaged over 2000 ms of thread time) as % of one CPU over 1001 ms.
        assert!((j.cpu.usr_pct - 1.95 * 2000.0 / 1001.0).abs() < 1e-9, "{}", j.cpu.usr_pct);
        let mbs = (j.read.as_ref().unwrap().bw_bytes + j.write.as_ref().unwrap().bw_bytes) / 1e6;
        let per = j.cpu.pct_per_100mbs.unwrap();
        assert!((per - (j.cpu.usr_pct + j.cpu.sys_pct) / (mbs / 100.0)).abs() < 1e-9);
    }

    #[test]
    fn json_plus_parses_with_bins() {
        let text = fixture("jsonplus_randwrite.json");
        assert!(text.contains("\"bins\""));
        let r = parse_fio_json(&text).unwrap();
        let w = r.jobs[0].write.as_ref().unwrap();
        assert_eq!(
            w.ios,
            raw("jsonplus_randwrite.json")["jobs"][0]["write"]["total_ios"].as_u64().unwrap()
        );
        assert_eq!(r.jobs[0].rw, "randwrite");
    }

    #[test]
    fn leading_note_is_skipped_and_sync_iodepth_flagged() {
        let text = fixture("psync_note_prefix.txt");
        assert!(text.starts_with("note: both iodepth"));
        let r = parse_fio_json(&text).unwrap();
        let j = &r.jobs[0];
        assert_eq!((j.engine.as_str(), j.qd, j.bs, j.rw.as_str()), ("psync", 4, 128 << 10, "read"));
        assert!(j.warnings.iter().any(|w| w.code == "fio_sync_iodepth"));
    }

    #[test]
    fn block_device_target() {
        let r = parse_fio_json(&fixture("psync_loop_blockdev.json")).unwrap();
        assert_eq!(r.target.path, "/dev/loop0");
        assert_eq!(r.target.kind, Kind::BlockDevice);
        assert_eq!(r.target.span_bytes, 0);
        let j = &r.jobs[0];
        assert!(j.device.is_none());
        assert!(j.warnings.iter().any(|w| w.code == "fio_disk_util" && w.message.contains("loop0")));
        assert!(j.warnings.iter().any(|w| w.message.contains("no byte counts")));
    }

    #[test]
    fn disk_util_with_sectors_becomes_the_device() {
        let mut doc = raw("psync_loop_blockdev.json");
        let ios = doc["jobs"][0]["write"]["total_ios"].as_u64().unwrap();
        let bytes = doc["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
        let du = doc["disk_util"][0].as_object_mut().unwrap();
        du.insert("read_sectors".into(), 0.into());
        du.insert("write_sectors".into(), (bytes / 512).into());
        let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
        let j = &r.jobs[0];
        let d = j.device.as_ref().expect("device");
        assert_eq!((d.name.as_str(), d.write_bytes, d.job_write_bytes), ("loop0", bytes, bytes));
        assert_eq!(d.write_ios, doc["disk_util"][0]["write_ios"].as_u64().unwrap());
        assert!(ios > 0);
        assert_eq!(j.runs[0].device.as_ref().unwrap().write_bytes, bytes);
        assert!(!j.warnings.iter().any(|w| w.code == "fio_disk_util" || w.code == "cache_answered"));

        // Far fewer bytes at the device than the job moved: a cache answered.
        doc["disk_util"][0]["write_sectors"] = (bytes / 512 / 10).into();
        let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert!(r.jobs[0].warnings.iter().any(|w| w.code == "cache_answered"));
    }

    #[test]
    fn trailing_text_is_ignored() {
        let text = fixture("two_jobs_randread_write.json") + "\nfio: file hash not empty on exit\n";
        assert_eq!(parse_fio_json(&text).unwrap().jobs.len(), 2);
    }

    #[test]
    fn garbage_gives_clear_errors() {
        let e = parse_fio_json("hello\nworld\n").unwrap_err();
        assert!(e.contains("no line starts a JSON object"), "{e}");
        let e = parse_fio_json("fio: oops\n{ \"jobs\" : [ \n").unwrap_err();
        assert!(e.contains("does not parse"), "{e}");
        let e = parse_fio_json("{\"foo\": 1}").unwrap_err();
        assert!(e.contains("no \"jobs\""), "{e}");
        let e = parse_fio_json("{\"jobs\": []}").unwrap_err();
        assert!(e.contains("no jobs"), "{e}");
        let e = parse_fio_json("{\"jobs\": [{\"jobname\": \"x\", \"read\": {\"total_ios\": 5}}]}").unwrap_err();
        assert!(e.contains("job 'x': read: no \"io_bytes\""), "{e}");
        assert!(parse_fio_json("").is_err());
        // A truncated file: the job objects inside are not taken for the document.
        let text = fixture("two_jobs_randread_write.json");
        let e = parse_fio_json(&text[..text.len() / 2]).unwrap_err();
        assert!(e.contains("does not parse"), "{e}");
    }

    #[test]
    fn report_round_trips_through_json() {
        for name in FIXTURES {
            let r = parse_fio_json(&fixture(name)).unwrap();
            let v = serde_json::to_value(&r).unwrap();
            let back: Report = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&back).unwrap(), v, "{name}");
        }
    }

    #[test]
    fn nearest_percentile_is_used_and_named() {
        let mut doc = raw("psync_loop_blockdev.json");
        let pct = doc["jobs"][0]["write"]["clat_ns"]["percentile"].as_object_mut().unwrap();
        let p9995 = pct["99.950000"].as_u64().unwrap();
        pct.remove("99.990000");
        let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
        let j = &r.jobs[0];
        assert_eq!(j.write.as_ref().unwrap().lat_ns.p99_99, p9995);
        let w = j.warnings.iter().find(|w| w.code == "fio_percentile_nearest").unwrap();
        assert!(w.message.contains("p99_99 from fio's 99.95th"), "{}", w.message);
    }

    #[test]
    fn sizes_times_names_and_dates() {
        assert_eq!(parse_fio_size("4k"), Some(4096));
        assert_eq!(parse_fio_size("1M"), Some(1 << 20));
        assert_eq!(parse_fio_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_fio_size("512"), Some(512));
        assert_eq!(parse_fio_size("50%"), None);
        assert_eq!(parse_secs("1"), Some(1.0));
        assert_eq!(parse_secs("500ms"), Some(0.5));
        assert_eq!(parse_secs("2m"), Some(120.0));
        assert_eq!(normalize_rw("readwrite"), "rw");
        assert_eq!(normalize_rw("randread:8"), "randread");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_222_200), "2026-11-21T00:50:00Z");
    }
}
