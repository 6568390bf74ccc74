//! The group view of a many-hosts run: each host side by side per test,
//! the sum over the hosts, the median host and the spread across them,
//! then the verdicts (an outlier host, hosts that agree, hosts that gave
//! no result). Formats what [`crate::summary::hosts`] computed.

use super::csv::csv_field;
use super::markdown::md_cell;
use crate::summary::hosts::HostsReport;
use crate::units::{BwUnit, fmt_number, pct, unit_label};
use comfy_table::{Cell, CellAlignment};

/// Header and rows shared by the table and Markdown.
fn grid(h: &HostsReport, bw: BwUnit) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["Test".to_string(), "Unit".to_string()];
    header.extend(h.hosts.iter().map(|e| e.host.clone()));
    header.extend(["Sum", "Median host", "Spread (min–max, CV)"].map(String::from));
    let rows = h
        .tests
        .iter()
        .map(|t| {
            let mut row = vec![t.test.clone(), unit_label(t.unit, bw).to_string()];
            for (i, v) in t.values.iter().enumerate() {
                let cell = v.map(|v| fmt_number(v, t.unit, bw)).unwrap_or_else(|| "–".into());
                let mark = if t.outliers.iter().any(|o| *o == h.hosts[i].host) {
                    " ◀"
                } else {
                    ""
                };
                row.push(format!("{cell}{mark}"));
            }
            row.push(fmt_number(t.sum, t.unit, bw));
            row.push(fmt_number(t.median_host, t.unit, bw));
            row.push(format!(
                "{}–{}, {}%",
                fmt_number(t.min, t.unit, bw),
                fmt_number(t.max, t.unit, bw),
                pct(t.cv, 1)
            ));
            row
        })
        .collect();
    (header, rows)
}

fn notes(h: &HostsReport, bw: BwUnit) -> Vec<String> {
    let mut v = vec![format!(
        "{}; each host's value is the median of its measured runs; ◀ marks an outlier.",
        bw.definition()
    )];
    if !h.complete {
        let failed = h.hosts.iter().filter(|e| !e.ok).count();
        v.push(format!(
            "INCOMPLETE: {failed} of {} hosts gave no result; the sum and spread are over the others.",
            h.hosts.len()
        ));
    }
    let stored: Vec<String> = h
        .hosts
        .iter()
        .filter_map(|e| e.run_id.map(|id| format!("{} = run {id}", e.host)))
        .collect();
    if !stored.is_empty() {
        v.push(format!("Stored: {}.", stored.join(", ")));
    }
    v
}

/// The terminal view.
pub fn table(h: &HostsReport, bw: BwUnit) -> String {
    let (header, rows) = grid(h, bw);
    let mut t = super::text_table();
    t.set_header(header);
    for row in rows {
        t.add_row(row.into_iter().enumerate().map(|(i, s)| {
            let c = Cell::new(s);
            if i >= 2 { c.set_alignment(CellAlignment::Right) } else { c }
        }));
    }
    let mut s = format!("{t}\n");
    for n in notes(h, bw) {
        s.push_str(&n);
        s.push('\n');
    }
    for v in &h.verdicts {
        s.push_str(&format!("verdict [{}]: {}\n", v.code, v.message));
    }
    s
}

/// The Markdown view.
pub fn markdown(h: &HostsReport, bw: BwUnit) -> String {
    let (header, rows) = grid(h, bw);
    let line = |cells: &[String]| format!("| {} |\n", cells.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | "));
    let mut s = line(&header);
    let sep: Vec<String> = (0..header.len()).map(|i| if i >= 2 { "---:" } else { "---" }.to_string()).collect();
    s.push_str(&line(&sep));
    for r in &rows {
        s.push_str(&line(r));
    }
    s.push('\n');
    for n in notes(h, bw) {
        s.push_str(&format!("{}  \n", md_cell(&n)));
    }
    if !h.verdicts.is_empty() {
        s.push_str("\n**Verdicts**\n\n");
        for v in &h.verdicts {
            s.push_str(&format!("- {} [{}]\n", md_cell(&v.message), v.code));
        }
    }
    s
}

/// The CSV view: a row per test and host, raw units.
pub fn csv(h: &HostsReport) -> String {
    let mut s = String::from("test,direction,unit,host,run_id,value,outlier,sum,median_host,cv_pct\r\n");
    for t in &h.tests {
        for (i, e) in h.hosts.iter().enumerate() {
            let cells = [
                t.test.clone(),
                t.direction.as_str().to_string(),
                t.unit.as_str().to_string(),
                e.host.clone(),
                e.run_id.map(|r| r.to_string()).unwrap_or_default(),
                t.values[i].map(|v| v.to_string()).unwrap_or_default(),
                t.outliers.contains(&e.host).to_string(),
                t.sum.to_string(),
                t.median_host.to_string(),
                (t.cv * 100.0).to_string(),
            ];
            s.push_str(&cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
            s.push_str("\r\n");
        }
    }
    s
}
