//! A surface scan's figures: the rate per zone, min / max / average, the
//! drop from the first zone to the last, the access time and the burst rate.

use super::{JobReport, job_report};
use crate::judge::Code;
use crate::measure::{JobSamples, ScanSamples};
use crate::plan::scan::ScanPlan;
use crate::targets::TargetFacts;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ScanReport {
    /// `read` or `write`.
    pub direction: String,
    /// The scanned byte range `[from, to)`.
    #[schemars(extend("x-unit" = "bytes"))]
    pub from: u64,
    /// Where the scanned range ends (exclusive).
    #[schemars(extend("x-unit" = "bytes"))]
    pub to: u64,
    /// The size of a zone.
    #[schemars(extend("x-unit" = "bytes"))]
    pub zone_bytes: u64,
    /// Bytes measured per zone, or seconds per zone.
    #[schemars(extend("x-unit" = "bytes"))]
    pub window_bytes: Option<u64>,
    /// Seconds measured per zone (`null`: measured by bytes).
    #[schemars(extend("x-unit" = "s"))]
    pub zone_time_s: Option<f64>,
    /// Block size: bytes per I/O.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bs: u64,
    /// Queue depth.
    #[schemars(extend("x-unit" = "count"))]
    pub qd: u32,
    /// O_DIRECT was in effect.
    pub direct: bool,
    /// Each zone's rate, from the first to the last.
    pub zones: Vec<ZoneReport>,
    /// Bytes per second over the zones.
    #[schemars(extend("x-unit" = "B/s"))]
    pub min: f64,
    /// The fastest zone's rate.
    #[schemars(extend("x-unit" = "B/s"))]
    pub max: f64,
    /// Mean of the zone rates (the curve's average, as HD Tach reports it).
    #[schemars(extend("x-unit" = "B/s"))]
    pub avg: f64,
    /// Where the slowest and fastest zones start.
    #[schemars(extend("x-unit" = "bytes"))]
    pub min_offset: u64,
    /// Where the fastest zone starts.
    #[schemars(extend("x-unit" = "bytes"))]
    pub max_offset: u64,
    /// How much slower the last zone is than the first, in % of the first.
    #[schemars(extend("x-unit" = "%"))]
    pub drop_pct: f64,
    /// Random 4K reads at QD1 over the range.
    pub access_ns: Option<AccessTime>,
    /// The same small region read repeatedly, from the drive's cache.
    #[schemars(extend("x-unit" = "B/s"))]
    pub burst_bw_bytes: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZoneReport {
    /// The zone's number, from 0.
    #[schemars(extend("x-unit" = "index"))]
    pub index: u32,
    /// Where the zone starts.
    #[schemars(extend("x-unit" = "bytes"))]
    pub offset: u64,
    /// Bytes moved in the measured window, and its length.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes: u64,
    /// The measured window's length.
    #[schemars(extend("x-unit" = "ns"))]
    pub wall_ns: u64,
    /// The zone's rate.
    #[schemars(extend("x-unit" = "B/s"))]
    pub bw_bytes: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct AccessTime {
    /// Random reads measured.
    #[schemars(extend("x-unit" = "count"))]
    pub ios: u64,
    /// Mean completion latency.
    #[schemars(extend("x-unit" = "ns"))]
    pub mean: f64,
    /// Fastest completion.
    #[schemars(extend("x-unit" = "ns"))]
    pub min: u64,
    /// Median completion latency.
    #[schemars(extend("x-unit" = "ns"))]
    pub p50: u64,
    /// 99th percentile of completion latency.
    #[schemars(extend("x-unit" = "ns"))]
    pub p99: u64,
    /// Slowest completion.
    #[schemars(extend("x-unit" = "ns"))]
    pub max: u64,
}

/// The scan section and the jobs behind it: the zones as one job (each zone
/// a run, so the device cross-check and CPU cost cover all of them), the
/// access-time job and the burst job.
pub fn scan_report(plan: &ScanPlan, s: &ScanSamples, target: TargetFacts, cpus: usize) -> (ScanReport, Vec<JobReport>) {
    let zones: Vec<ZoneReport> = s
        .zones
        .iter()
        .map(|(z, j)| {
            let r = j.runs.first();
            ZoneReport {
                index: z.index,
                offset: z.offset,
                bytes: r.map(|r| r.read.bytes + r.write.bytes).unwrap_or(0),
                wall_ns: r.map(|r| r.wall_ns).unwrap_or(0),
                bw_bytes: zone_rate(j),
            }
        })
        .collect();
    let rates: Vec<f64> = zones.iter().map(|z| z.bw_bytes).collect();
    let pick = |better: fn(f64, f64) -> bool| {
        zones
            .iter()
            .fold(None::<&ZoneReport>, |acc, z| match acc {
                Some(a) if !better(z.bw_bytes, a.bw_bytes) => Some(a),
                _ => Some(z),
            })
            .map(|z| (z.bw_bytes, z.offset))
            .unwrap_or((0.0, 0))
    };
    let (min, min_offset) = pick(|a, b| a < b);
    let (max, max_offset) = pick(|a, b| a > b);
    let avg = if rates.is_empty() {
        0.0
    } else {
        rates.iter().sum::<f64>() / rates.len() as f64
    };
    let drop_pct = match (rates.first(), rates.last()) {
        (Some(&a), Some(&b)) if a > 0.0 => (a - b) / a * 100.0,
        _ => 0.0,
    };

    let mut jobs = Vec::new();
    if let Some((_, first)) = s.zones.first() {
        let mut all = first.clone();
        all.spec.name = plan.zones_job_name();
        all.spec.offset = plan.from;
        all.spec.span = plan.to - plan.from;
        all.runs = s.zones.iter().flat_map(|(_, j)| j.runs.iter().cloned()).collect();
        let mut j = job_report(&all, target, cpus);
        // The zones differ by design: spread across them is the curve, not noise.
        j.warnings.retain(|w| w.code != Code::HighCv);
        j.warnings.extend(crate::judge::scan::scan_curve(&rates));
        jobs.push(j);
    }
    let access_ns = s.access.as_ref().and_then(|a| {
        let j = job_report(a, target, cpus);
        let r = j.read.as_ref()?;
        let l = r.lat_ns.as_ref()?;
        let out = AccessTime {
            ios: r.ios,
            mean: l.mean,
            min: l.min,
            p50: l.p50,
            p99: l.p99,
            max: l.max,
        };
        jobs.push(j);
        Some(out)
    });
    let burst_bw_bytes = s.burst.as_ref().and_then(|b| {
        let j = job_report(b, target, cpus);
        let bw = j.read.as_ref().map(|r| r.bw_bytes);
        jobs.push(j);
        bw
    });
    let report = ScanReport {
        direction: if plan.write { "write" } else { "read" }.into(),
        from: plan.from,
        to: plan.to,
        zone_bytes: s.zones.first().map(|(z, _)| z.len).unwrap_or(0),
        window_bytes: match plan.amount {
            crate::plan::scan::ZoneAmount::Window(b) => Some(b),
            crate::plan::scan::ZoneAmount::Time(_) => None,
        },
        zone_time_s: match plan.amount {
            crate::plan::scan::ZoneAmount::Time(d) => Some(d.as_secs_f64()),
            crate::plan::scan::ZoneAmount::Window(_) => None,
        },
        bs: plan.bs,
        qd: plan.qd,
        direct: target.direct,
        zones,
        min,
        max,
        avg,
        min_offset,
        max_offset,
        drop_pct,
        access_ns,
        burst_bw_bytes,
    };
    (report, jobs)
}

/// Bytes per second of a zone's measured window.
pub fn zone_rate(j: &JobSamples) -> f64 {
    j.runs
        .first()
        .map(|r| (r.read.bytes + r.write.bytes) as f64 / (r.wall_ns.max(1) as f64 / 1e9))
        .unwrap_or(0.0)
}
