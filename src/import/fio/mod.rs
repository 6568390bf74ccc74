//! fio's JSON (`--output-format=json` or `json+`) → [`Report`]: every shape
//! fio has written since its first JSON (2.0.10), and its client/server
//! output ([`parse_fio_client_json`]).
//!
//! Mapping:
//! - The document: `command` is `"import:fio"`; `iolab_version` holds fio's
//!   `"fio version"` string (e.g. `"fio-3.33"`): the version of the tool that
//!   produced the figures; `started_at` is fio's `timestamp` (unix seconds,
//!   printed since fio 2.2.5; `"unknown"` before) as RFC 3339 UTC. fio
//!   records no host (a client document does: see [`client`]): `hostname`
//!   and `kernel` are `"unknown"` and `cpus` is 0. `settings`: one run,
//!   `warmup_s` from `ramp_time`, no interval, no suite. `interrupted` is false.
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
//!   any that is not exact). A direction with `total_ios` 0 is `null`. With
//!   `unified_rw_reporting` (a `mixed` direction only) the figures are the
//!   read or the write direction of a read-only or write-only pattern; a
//!   mixed pattern cannot be split and is refused.
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
//! Older shapes, as fio's `stat.c` (`add_ddir_status_json`,
//! `show_thread_status_json`) wrote them; each difference read is named in
//! warning `fio_legacy` (info):
//!
//! | fio | shape | read as |
//! |---|---|---|
//! | 2.0.10 – 2.20 | `io_bytes` holds KiB (no `io_kbytes`) | × 1024 |
//! | 2.0.10 – 2.1.13 | no `total_ios`; `iops` an integer | I/Os = `iops` × `runtime` / 1000, estimated |
//! | 2.0.10 – 2.2.5 | `iops` an integer | as printed |
//! | 2.0.10 – 2.21 | `slat`/`clat`/`lat` in µs (`*_ns` from 2.99, the 3.0 release candidate) | × 1000 |
//! | 2.0.10 – 3.1 | no `bw_bytes` | `bw` (KiB/s) × 1024 |
//! | 2.0.10 – 3.3 | percentile slots fio did not fill printed as a repeated `"0.00": 0` | ignored (JSON keeps the last duplicate) |
//! | 2.0.10 – 2.0.13 | percentile keys `"99.00"` (`%2.2f`), later `"99.000000"` | either |
//! | 2.0.10 – 2.2.13 | no job or global options | rw from the directions (sequential assumed), bs = bytes per I/O, iodepth 1, engine `unknown`, direct unknown |
//! | 2.2.12 – 2.19 | json+ `bins` keyed by bucket index (with `FIO_IO_U_PLAT_*` entries), later by latency value | not read |
//! | before 3.8 | no `job_runtime` | wall = the directions' `runtime` |
//!
//! Warning codes added here: `fio_cpu_per_thread`, `fio_disk_util`,
//! `fio_percentile_nearest`, `fio_sync_iodepth`, `fio_clone`, `fio_error`,
//! `fio_trim`, `fio_other_target`, `fio_legacy`, and iolab's `buffered`,
//! `cache_answered`, `device_extra`.

mod client;
mod cpu_disk;
mod job;
mod options;
mod stats;
#[cfg(test)]
mod tests;

pub(super) use client::client_reports;
pub use client::parse_fio_client_json;

pub(super) use crate::base::units::rfc3339;
use crate::summary::{Body, Host, Report, Settings};
use job::{JobCtx, job_report};
use options::{Opts, parse_secs, target_info};
use serde_json::{Map, Value};

/// Parse fio's JSON output (text before the JSON object, e.g. fio's warnings
/// when stderr was captured too, and text after it are skipped). fio's
/// client/server output (`client_stats`) is refused: it holds one result per
/// host, see [`parse_fio_client_json`].
pub fn parse_fio_json(text: &str) -> Result<Report, String> {
    from_doc(&find_document(text)?)
}

/// A fio document already found.
pub(in crate::import) fn from_doc(doc: &Map<String, Value>) -> Result<Report, String> {
    if doc.contains_key("client_stats") {
        return Err(
            "this is fio --client output (\"client_stats\": one result per host): read it with parse_fio_client_json \
             (`iolab import` stores one run per host, tagged host=...)"
                .into(),
        );
    }
    let jobs = doc
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or("not fio JSON output: no \"jobs\" array")?;
    let empty = Map::new();
    let global = doc.get("global options").and_then(Value::as_object).unwrap_or(&empty);
    let disk_util: &[Value] = doc.get("disk_util").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let jobs: Vec<&Value> = jobs.iter().collect();
    fio_report(doc, &jobs, global, disk_util, None)
}

/// A report of `jobs` (a whole document's, or one host's in a client
/// document) under the document's metadata.
fn fio_report(
    doc: &Map<String, Value>,
    jobs: &[&Value],
    global: &Map<String, Value>,
    disk_util: &[Value],
    hostname: Option<&str>,
) -> Result<Report, String> {
    if jobs.is_empty() {
        return Err("fio JSON output has no jobs".into());
    }
    let version = doc
        .get("fio version")
        .and_then(Value::as_str)
        .unwrap_or("fio (unknown version)")
        .to_string();
    let first = Opts::new(jobs[0], global);
    let target = target_info(&first);
    let mut out = Vec::with_capacity(jobs.len());
    for ((i, job), clones) in jobs.iter().enumerate().zip(clone_counts(jobs)) {
        let name = job.get("jobname").and_then(Value::as_str).unwrap_or("").to_string();
        let ctx = JobCtx {
            index: i,
            name,
            clones,
            single_job: jobs.len() == 1,
            target_path: &target.path,
            version: &version,
            no_options: options_unprinted(&version),
        };
        out.push(job_report(job, global, &ctx, disk_util)?);
    }

    Ok(Report {
        names_schema: true,
        run_id: None,
        argv: Vec::new(),
        iolab_version: version,
        command: "import:fio".into(),
        started_at: doc
            .get("timestamp")
            .and_then(as_u64)
            .map(rfc3339)
            .unwrap_or_else(|| "unknown".into()),
        host: Host {
            hostname: hostname.unwrap_or("unknown").into(),
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
            ..Settings::default()
        },
        body: Body::Jobs(out),
        interrupted: false,
        error: None,
    })
}

/// For each job, how many jobs of the document share its `jobname` and
/// `groupid` (itself included): fio's clones of one section (`numjobs`
/// without `group_reporting`). One pass with a map, not a comparison of
/// every pair (quadratic: minutes for 100,000 jobs).
pub(super) fn clone_counts(jobs: &[&Value]) -> Vec<u32> {
    let keys: Vec<_> = jobs
        .iter()
        .map(|j| (Part::of(j.get("jobname")), Part::of(j.get("groupid"))))
        .collect();
    let mut counts: std::collections::HashMap<&(Part, Part), u32> = std::collections::HashMap::with_capacity(keys.len());
    for k in &keys {
        *counts.entry(k).or_default() += 1;
    }
    keys.iter().map(|k| counts[k]).collect()
}

/// A JSON value as a map key, equal exactly when the values are (`==`):
/// fio's strings and integers borrowed or copied, any other value (a float,
/// which is never equal to an integer, or what a hostile document puts
/// there) as its JSON text.
#[derive(PartialEq, Eq, Hash)]
enum Part<'a> {
    Missing,
    Str(&'a str),
    Int(u64),
    Other(String),
}

impl<'a> Part<'a> {
    fn of(v: Option<&'a Value>) -> Part<'a> {
        match v {
            None => Part::Missing,
            Some(Value::String(s)) => Part::Str(s),
            Some(Value::Number(n)) if n.is_u64() => Part::Int(n.as_u64().unwrap_or_default()),
            Some(other) => Part::Other(other.to_string()),
        }
    }
}

/// fio's version from its `"fio version"` string (`fio-2.1.10`, `fio-3.33`,
/// `fio-3.35-12-gabcdef` for a git build): (major, minor, patch).
pub(super) fn fio_version(s: &str) -> Option<(u32, u32, u32)> {
    let rest = s.trim().strip_prefix("fio-")?;
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let mut parts = rest[..end].split('.').filter(|p| !p.is_empty()).map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// fio before 2.3 printed no job or global options (added in fio 2.3,
/// commit 66e19a38 "First stab at adding job options to json output").
fn options_unprinted(version: &str) -> bool {
    fio_version(version).is_some_and(|v| v < (2, 3, 0))
}

/// The first JSON object in `text` that starts a line and holds fio's `jobs`
/// or `client_stats`.
fn find_document(text: &str) -> Result<Map<String, Value>, String> {
    super::find_object(text, &["jobs", "client_stats"], "fio JSON output")
}

/// A JSON count (fio prints integers; tolerate floats).
fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f.round() as u64))
}
