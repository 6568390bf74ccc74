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

mod cpu_disk;
mod job;
mod options;
mod stats;
#[cfg(test)]
mod tests;

use crate::summary::{Body, Host, Report, Settings};
pub(super) use crate::units::rfc3339;
use job::{JobCtx, job_report};
use options::{Opts, parse_secs, target_info};
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
        argv: Vec::new(),
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
            steady_state: None,
        },
        body: Body::Jobs(out),
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

/// A JSON count (fio prints integers; tolerate floats).
fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f.round() as u64))
}
