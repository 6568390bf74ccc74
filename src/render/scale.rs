//! `iolab scale`, not yet turned into a view (see [`super::view`]'s
//! recipe): one row per point in the terminal and Markdown, with the
//! verdicts, and a row per point in CSV; the lines under them are the jobs'
//! ([`super::views::jobs::footer`]). Called from `render/legacy.rs`.

use super::Style;
use super::markdown::{grid, md_cell};
use crate::summary::scale::ScaleReport;
use crate::units::{BwUnit, bw, fmt_bs, fmt_ns, pct};
use comfy_table::{Cell, CellAlignment};

/// A mean latency in ns, or `–` when none was taken (0: `--latency off`).
pub(crate) fn lat_cell(ns: f64) -> String {
    if ns > 0.0 { fmt_ns(ns) } else { "–".into() }
}

/// One row per point (the jobs that ran at once), then the verdicts.
pub fn table(sc: &ScaleReport, st: Style) -> String {
    use crate::samples::PointKind;
    let mut t = super::text_table();
    t.set_header(vec![
        "Point",
        "Target",
        "QD",
        "Threads",
        st.units.label(),
        "IOPS",
        "Mean latency",
        "iolab CPU busy %",
    ]);
    let short = |p: &str| -> String {
        match sc.target_number(p) {
            Some(n) => format!("t{n} {p}"),
            None => p.to_string(),
        }
    };
    for p in &sc.points {
        let kind = p.kind_name();
        let target = if p.kind == PointKind::Together {
            format!("all {}", p.targets.len())
        } else {
            p.targets.first().map(|t| short(t)).unwrap_or_default()
        };
        let right = |v: String| Cell::new(v).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(kind),
            Cell::new(target),
            right(p.qd.to_string()),
            right(p.threads.to_string()),
            right(bw(p.bw_bytes, st.units, 2)),
            right(format!("{:.0}", p.iops)),
            right(lat_cell(p.lat_ns)),
            right(pct(p.cpu_busy, 0)),
        ]);
    }
    let mut s = format!(
        "{} {} · {}\n{t}\n",
        sc.rw,
        fmt_bs(sc.bs),
        if sc.targets.len() > 1 {
            sc.targets
                .iter()
                .enumerate()
                .map(|(i, p)| format!("t{} = {p}", i + 1))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            sc.targets.join("")
        }
    );
    if let Some(l) = &sc.layout {
        s.push_str(&format!(
            "Layout: {} over {} devices ({}){}\n",
            l.name,
            l.members,
            l.source,
            sc.member
                .as_ref()
                .map(|m| format!("; member measured alone: {m}"))
                .unwrap_or_default()
        ));
    }
    if !sc.verdicts.is_empty() {
        s.push_str("Verdicts:\n");
        for v in &sc.verdicts {
            s.push_str(&st.paint(&format!("  - {}: {}", v.subject(), v.text())));
            s.push('\n');
        }
    }
    s
}

/// The points as a Markdown table, then the verdicts as a list.
pub fn markdown(sc: &ScaleReport, unit: BwUnit) -> String {
    let rows: Vec<Vec<String>> = sc
        .points
        .iter()
        .map(|p| {
            vec![
                p.kind_name().to_string(),
                p.targets.join(" + "),
                p.qd.to_string(),
                p.threads.to_string(),
                bw(p.bw_bytes, unit, 2),
                format!("{:.0}", p.iops),
                lat_cell(p.lat_ns),
                pct(p.cpu_busy, 0),
            ]
        })
        .collect();
    let head: Vec<String> = [
        "Point",
        "Target",
        "QD",
        "Threads",
        unit.label(),
        "IOPS",
        "Mean latency",
        "iolab CPU busy %",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let mut s = grid(&head, &[false, false, true, true, true, true, true, true], &rows);
    s.push('\n');
    for v in &sc.verdicts {
        s.push_str(&format!("- {}: {}\n", md_cell(v.subject()), md_cell(v.text())));
    }
    if !sc.verdicts.is_empty() {
        s.push('\n');
    }
    s
}

/// A row per point, raw figures.
pub fn csv(sc: &ScaleReport) -> String {
    let num = |v: f64| if v.is_finite() { v.to_string() } else { String::new() };
    let rows = sc.points.iter().map(|p| {
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
    });
    super::csv::lines(
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
    )
}
