//! One direction's figures (`read`/`write`): counts, bandwidth, IOPS, and
//! latency with the nearest percentiles fio printed.

use super::as_u64;
use crate::summary::{DirReport, Latency};
use serde_json::Value;

/// One direction; `None` when it did no I/O.
pub(super) fn dir_report(d: Option<&Value>, notes: &mut Vec<String>) -> Result<Option<DirReport>, String> {
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
