//! The CSV view of a run, for spreadsheets: a header row, then one row per
//! job and direction (runs of `time`, phases of application suites, points
//! of `scale`), RFC 4180 quoting, raw numbers in the units the header
//! names (bytes/s, IOPS, ns, percent, s). Formats only.

use super::compare::csv_field;
use crate::summary::Report;

/// A figure as a spreadsheet reads it back exactly; empty when unknown.
fn num(v: f64) -> String {
    if v.is_finite() { v.to_string() } else { String::new() }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn lines(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut s = header.join(",");
    s.push_str("\r\n");
    for row in rows {
        s.push_str(&row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        s.push_str("\r\n");
    }
    s
}

/// The whole CSV view of a run.
pub fn run(r: &Report) -> String {
    if let Some(c) = r.capacity() {
        return super::capacity::csv(r, c);
    }
    if let Some(t) = r.time() {
        let rows = t
            .runs
            .iter()
            .enumerate()
            .map(|(i, x)| {
                vec![
                    (i + 1).to_string(),
                    num(x.wall_s),
                    num(x.user_s),
                    num(x.sys_s),
                    opt(x.device_read_bytes),
                    opt(x.device_write_bytes),
                    opt(x.device_busy_s),
                    x.exit_code.to_string(),
                    Some(super::apps::run_device(t, i)).filter(|d| d != "none").unwrap_or_default(),
                    opt(x.total_read_bytes),
                    opt(x.total_write_bytes),
                    x.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(" "),
                ]
            })
            .collect();
        return lines(
            &[
                "run",
                "wall_s",
                "user_s",
                "sys_s",
                "device_read_bytes",
                "device_write_bytes",
                "device_busy_s",
                "exit_code",
                "device",
                "total_read_bytes",
                "total_write_bytes",
                "devices_moved",
            ],
            rows,
        );
    }
    if let Some(a) = r.app() {
        let rows = a
            .phases
            .iter()
            .map(|p| {
                vec![
                    p.name.clone(),
                    if p.cold { "cold" } else { "warm" }.into(),
                    p.files.to_string(),
                    p.bytes.to_string(),
                    num(p.wall_s.median),
                    num(p.wall_s.min),
                    num(p.wall_s.max),
                    num(p.files_per_s),
                    num(p.bytes_per_s),
                    opt(p.device_read_bytes),
                    opt(p.device_write_bytes),
                ]
            })
            .collect();
        return lines(
            &[
                "phase",
                "cache",
                "files",
                "bytes",
                "wall_s_median",
                "wall_s_min",
                "wall_s_max",
                "files_per_s",
                "bytes_per_s",
                "device_read_bytes",
                "device_write_bytes",
            ],
            rows,
        );
    }
    if let Some(v) = r.verify() {
        let (head, rows) = super::verify::csv(v);
        return lines(head, rows);
    }
    if let Some(sc) = r.scan() {
        // A row per zone: the curve. Access time and burst rate are in the
        // JSON document and the other views.
        let rows = sc
            .zones
            .iter()
            .map(|z| {
                vec![
                    (z.index + 1).to_string(),
                    sc.direction.clone(),
                    z.offset.to_string(),
                    sc.zone_bytes.to_string(),
                    z.bytes.to_string(),
                    z.wall_ns.to_string(),
                    num(z.bw_bytes),
                ]
            })
            .collect();
        return lines(
            &[
                "zone",
                "direction",
                "offset_bytes",
                "zone_bytes",
                "measured_bytes",
                "wall_ns",
                "bw_bytes_per_s",
            ],
            rows,
        );
    }
    if let Some(sc) = r.scale() {
        let rows = sc
            .points
            .iter()
            .map(|p| {
                vec![
                    p.kind_name().to_string(),
                    p.targets.join(" "),
                    p.qd.to_string(),
                    p.threads.to_string(),
                    num(p.bw_bytes),
                    num(p.iops),
                    num(p.lat_ns),
                    num(p.cpu_busy_pct()),
                ]
            })
            .collect();
        return lines(
            &[
                "point",
                "targets",
                "qd",
                "threads",
                "bw_bytes_per_s",
                "iops",
                "mean_latency_ns",
                "cpu_busy_pct",
            ],
            rows,
        );
    }
    let mut rows = Vec::new();
    for j in r.jobs() {
        for d in j.direction_figures() {
            rows.push(vec![
                j.name.clone(),
                d.direction.to_string(),
                num(d.figures.bw_bytes),
                num(d.figures.iops),
                d.figures.lat_ns.as_ref().map(|l| l.p99.to_string()).unwrap_or_default(),
                num(j.cpu_pct()),
                opt(d.spread.map(|s| s.min)),
                opt(d.spread.map(|s| s.max)),
                opt(d.spread.map(|s| s.cv_pct())),
                j.warning_codes().join(" "),
            ]);
        }
    }
    lines(
        &[
            "test",
            "direction",
            "bw_bytes_per_s",
            "iops",
            "p99_latency_ns",
            "cpu_pct",
            "bw_min_bytes_per_s",
            "bw_max_bytes_per_s",
            "bw_cv_pct",
            "warnings",
        ],
        rows,
    )
}

/// `iolab list` as CSV: a row per stored run, tags as `k=v` separated by spaces.
pub fn run_list(runs: &[crate::store::RunSummary]) -> String {
    let rows = runs
        .iter()
        .map(|r| {
            vec![
                r.id.to_string(),
                r.started_at.clone(),
                r.kind.clone(),
                r.label.clone().unwrap_or_default(),
                r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
                r.target.clone(),
                r.complete.to_string(),
            ]
        })
        .collect();
    lines(&["id", "started_at", "kind", "label", "tags", "target", "complete"], rows)
}
