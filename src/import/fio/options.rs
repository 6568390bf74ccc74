//! fio's job and global options: the target, `rw`, sizes, times and flags
//! (fio prints every option value as a string).

use crate::targets::{Kind, TargetInfo};
use serde_json::{Map, Value};

/// A job's options with the global options under them (fio prints option values as strings).
pub(super) struct Opts<'a> {
    job: Option<&'a Map<String, Value>>,
    global: &'a Map<String, Value>,
}

impl<'a> Opts<'a> {
    pub(super) fn new(job: &'a Value, global: &'a Map<String, Value>) -> Self {
        Opts {
            job: job.get("job options").and_then(Value::as_object),
            global,
        }
    }
    pub(super) fn get(&self, key: &str) -> Option<&'a str> {
        self.job
            .and_then(|j| j.get(key))
            .or_else(|| self.global.get(key))
            .and_then(Value::as_str)
    }
}

pub(super) fn target_info(first: &Opts) -> TargetInfo {
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
        zfs_pool: None,
        members_of: None,
        info: None,
    }
}

pub(super) fn normalize_rw(s: &str) -> String {
    let base = s.split(':').next().unwrap_or(s).trim().to_ascii_lowercase();
    match base.as_str() {
        "readwrite" => "rw".into(),
        "randreadwrite" => "randrw".into(),
        _ => base,
    }
}

pub(super) fn is_sync_engine(e: &str) -> bool {
    matches!(e, "sync" | "psync" | "vsync" | "pvsync" | "pvsync2")
}

pub(super) fn truthy(v: &str) -> bool {
    matches!(v.trim().to_ascii_lowercase().as_str(), "" | "1" | "true" | "yes" | "on")
}

/// A fio size: `4k`, `1m`, `64M`, `4KiB`, `512`. fio's default `kb_base=1024`
/// makes every k/m/g/t form a power of 1024. Percentages give `None`.
pub(super) fn parse_fio_size(s: &str) -> Option<u64> {
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
pub(super) fn parse_secs(s: &str) -> Option<f64> {
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
    // 400 digits parse as infinity.
    Some(n * mult).filter(|v| v.is_finite())
}
