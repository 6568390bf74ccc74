//! One direction's figures (`read`/`write`): counts, bandwidth, IOPS, and
//! latency with the nearest percentiles fio printed, in whichever units the
//! fio that wrote them used (see the table in the module above).

use super::as_u64;
use crate::summary::{DirReport, Latency};
use serde_json::Value;

/// How an older fio's figures were read: each line once in warning `fio_legacy`.
pub(super) const KIB_BYTES: &str = "io_bytes in KiB (fio before 2.21): bytes = io_bytes x 1024";
pub(super) const NO_TOTAL_IOS: &str =
    "no total_ios (fio before 2.1.14): the I/O count is estimated as iops x runtime (fio printed iops as an integer)";
pub(super) const BW_KIB: &str = "no bw_bytes (fio before 3.2): bandwidth = bw (KiB/s) x 1024";
pub(super) const LAT_US: &str = "latencies in microseconds (clat/lat, fio before 3.0): x 1000 to nanoseconds";

/// One direction; `None` when it did no I/O. `notes` gets the percentiles
/// that were not exact, `legacy` how an older shape was read.
pub(super) fn dir_report(d: Option<&Value>, notes: &mut Vec<String>, legacy: &mut Vec<&'static str>) -> Result<Option<DirReport>, String> {
    let Some(d) = d else { return Ok(None) };
    let field = |k: &str| d.get(k).ok_or_else(|| format!("no \"{k}\""));
    let total_ios = match d.get("total_ios") {
        Some(v) => Some(as_u64(v).ok_or("\"total_ios\" is not a count")?),
        None => None,
    };
    if total_ios == Some(0) {
        return Ok(None);
    }
    let io_bytes = as_u64(field("io_bytes")?).ok_or("\"io_bytes\" is not a count")?;
    // fio printed KiB under "io_bytes" until 2.21 added "io_kbytes" (commit
    // c12d597a, "stat: correct json 'io_bytes' output").
    let bytes = if d.get("io_kbytes").is_some() {
        io_bytes
    } else {
        legacy.push(KIB_BYTES);
        io_bytes.checked_mul(1024).ok_or("\"io_bytes\" is too large")?
    };
    let iops = field("iops")?.as_f64().ok_or("\"iops\" is not a number")?;
    let ios = match total_ios {
        Some(n) => n,
        None if bytes == 0 => return Ok(None),
        None => {
            legacy.push(NO_TOTAL_IOS);
            let runtime_ms = d.get("runtime").and_then(as_u64).unwrap_or(0);
            ((iops * runtime_ms as f64 / 1e3).round() as u64).max(1)
        }
    };
    let bw_bytes = match d.get("bw_bytes") {
        Some(v) => v.as_f64().ok_or("\"bw_bytes\" is not a number")?,
        None => {
            legacy.push(BW_KIB);
            field("bw")?.as_f64().ok_or("\"bw\" is not a number")? * 1024.0
        }
    };

    // Nanoseconds since 2.99 (`clat_ns`, `lat_ns`), microseconds before (`clat`, `lat`).
    let (keys, scale) = if d.get("clat_ns").is_some() || d.get("lat_ns").is_some() {
        (["clat_ns", "lat_ns"], 1u64)
    } else if d.get("clat").is_some() || d.get("lat").is_some() {
        legacy.push(LAT_US);
        (["clat", "lat"], 1000u64)
    } else {
        return Err("no \"clat_ns\" or \"lat_ns\" (nor fio 2.x's \"clat\" or \"lat\")".into());
    };
    let has_pct = |k: &str| d.get(k).and_then(|l| l.get("percentile")).is_some_and(Value::is_object);
    let lat_key = if !has_pct(keys[0]) && has_pct(keys[1]) { keys[1] } else { keys[0] };
    let lat = d.get(lat_key).or_else(|| d.get(keys[1])).ok_or("no latency object")?;
    // fio up to 3.3 printed every unused slot of its percentile list as
    // `"0.00": 0` (the key repeated; JSON parsers keep the last): never a
    // percentile fio computed, so it is not a candidate.
    let pct: Vec<(f64, u64)> = lat
        .get("percentile")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.trim().parse::<f64>().ok()?, as_u64(v)?.saturating_mul(scale))))
                .filter(|&(p, _)| p > 0.0)
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
        mean: lat.get("mean").and_then(Value::as_f64).unwrap_or(0.0) * scale as f64,
        min: lat.get("min").and_then(as_u64).unwrap_or(0).saturating_mul(scale),
        max: lat.get("max").and_then(as_u64).unwrap_or(0).saturating_mul(scale),
        p50: at(50.0, "p50"),
        p90: at(90.0, "p90"),
        p99: at(99.0, "p99"),
        p99_9: at(99.9, "p99_9"),
        p99_99: at(99.99, "p99_99"),
    };
    // fio with gtod_reduce takes no clock per I/O and prints zeros: no latency.
    let timed = lat_ns.mean > 0.0 || lat_ns.max > 0 || lat_ns.p99 > 0;
    Ok(Some(DirReport {
        bytes,
        ios,
        bw_bytes,
        iops,
        lat_ns: timed.then_some(lat_ns),
        bw_min: None,
        bw_max: None,
        bw_cv: None,
        errors: None,
        settle: None,
    }))
}
