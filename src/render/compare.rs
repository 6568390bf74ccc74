//! Formats a [`Comparison`]: terminal table, Markdown, CSV. Computes nothing.

use super::csv::csv_field;
use super::markdown::md_cell;
use crate::compare::{Comparison, Unit};
use crate::judge::thresholds::{MIN_RUNS_FOR_NOISE, NOISE_CONFIDENCE};
use crate::units::{BwUnit, fmt_capacity, fmt_number, fmt_time_ratio, signed_diff, unit_label};
use comfy_table::{Cell, CellAlignment};

/// The "vs baseline" cell: the difference, marked when it is noise or its noise is unknown.
#[cfg(test)]
fn diff_cell(ratio: Option<f64>, within_noise: Option<bool>) -> String {
    diff_cell_in(ratio, within_noise, Unit::BytesPerSec)
}

/// A time's difference reads as a time ("×6.21 time"), not as the speed-up it is stored as.
fn diff_cell_in(ratio: Option<f64>, within_noise: Option<bool>, unit: Unit) -> String {
    let Some(r) = ratio else { return "n/a".into() };
    let d = match unit {
        Unit::Seconds if r > 0.0 => fmt_time_ratio(r),
        _ => signed_diff(r),
    };
    match within_noise {
        Some(true) => format!("≈ {d} (noise)"),
        Some(false) => d,
        None => format!("{d} (?)"),
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.filter(|x| x.is_finite()).map(|x| format!("{x:.digits$}")).unwrap_or_default()
}

/// Header, rows, and which columns are right-aligned: shared by table and Markdown.
fn grid(c: &Comparison, bw: BwUnit) -> (Vec<String>, Vec<Vec<String>>, Vec<bool>) {
    let b = c.baseline_index();
    let prices = c.has_prices();
    let mut header = vec!["Test".to_string(), "Unit".to_string()];
    let mut right = vec![false, false];
    for (i, r) in c.runs.iter().enumerate() {
        let name = r.name();
        header.push(if i == b { format!("{name} (baseline)") } else { name.clone() });
        if i != b {
            header.push(format!("{name} vs base"));
        }
        header.push(format!("{name} CPU/100MB/s"));
        if prices {
            header.push(format!("{name} MB/s per $"));
        }
    }
    right.resize(header.len(), true);

    let mut rows = Vec::new();
    for t in &c.tests {
        let mut row = vec![t.test.clone(), unit_label(t.unit, bw).to_string()];
        for i in 0..c.runs.len() {
            row.push(fmt_number(t.values[i], t.unit, bw));
            if i != b {
                row.push(diff_cell_in(t.ratios[i], t.within_noise[i], t.unit));
            }
            row.push(opt(t.cpu_pct_per_100mbs[i], 2));
            if prices {
                row.push(opt(t.mbs_per_price[i], 2));
            }
        }
        rows.push(row);
    }
    if prices {
        let mut row = vec!["Price per GB".to_string(), "$/GB".to_string()];
        for (i, r) in c.runs.iter().enumerate() {
            row.push(match (r.price, r.price_per_gb) {
                (_, Some(p)) => format!("{p:.3}"),
                (Some(_), None) => "capacity?".into(),
                (None, None) => String::new(),
            });
            // The run's other columns: vs base (not for the baseline), CPU, per $.
            let rest = if i == b { 2 } else { 3 };
            row.resize(row.len() + rest, String::new());
        }
        rows.push(row);
    }
    (header, rows, right)
}

/// The lines under the table: legend, prices.
fn notes(c: &Comparison, bw: BwUnit) -> Vec<String> {
    let b = c.baseline_index();
    let mut v = vec![
        format!(
            "Baseline: {}. {}; values are medians over each run's measured runs; for times (s) the difference is in speed (baseline time / time).",
            c.runs[b].name(),
            bw.definition()
        ),
        format!(
            "vs base: difference of the medians; \"≈ … (noise)\": its {:.0}% bootstrap interval contains no difference; \"(?)\": fewer than {MIN_RUNS_FOR_NOISE} measured runs on a side, noise unknown.",
            NOISE_CONFIDENCE * 100.0
        ),
        "CPU/100MB/s: iolab's CPU % (all threads) per 100 MB/s moved.".into(),
    ];
    if c.has_prices() {
        let parts: Vec<String> = c
            .runs
            .iter()
            .map(|r| match (r.price, r.capacity_bytes) {
                (Some(p), Some(cap)) => format!(
                    "{} ${p:.2} for {} = ${:.3}/GB",
                    r.name(),
                    fmt_capacity(cap),
                    r.price_per_gb.unwrap_or(f64::NAN)
                ),
                (Some(p), None) => format!("{} ${p:.2} (capacity unknown)", r.name()),
                (None, _) => format!("{}: no price", r.name()),
            })
            .collect();
        v.push(format!("Prices: {}. GB = 10^9 bytes of device capacity.", parts.join("; ")));
    }
    v
}

/// The terminal table, the legend, and the findings.
pub fn render_table(c: &Comparison, bw: BwUnit) -> String {
    let (header, rows, right) = grid(c, bw);
    let mut t = super::text_table();
    t.set_header(header);
    for row in rows {
        t.add_row(row.into_iter().zip(&right).map(|(s, r)| {
            let cell = Cell::new(s);
            if *r { cell.set_alignment(CellAlignment::Right) } else { cell }
        }));
    }
    let mut s = format!("{t}\n");
    for n in notes(c, bw) {
        s.push_str(&n);
        s.push('\n');
    }
    if !c.findings.is_empty() {
        s.push_str("\nFindings:\n");
        for f in &c.findings {
            s.push_str(&format!("- {}\n", f.message));
        }
    }
    s
}

/// A GitHub-flavoured Markdown table, the legend and the findings as a list.
pub fn render_markdown(c: &Comparison, bw: BwUnit) -> String {
    let (header, rows, right) = grid(c, bw);
    let line = |cells: &[String]| format!("| {} |\n", cells.iter().map(|x| md_cell(x)).collect::<Vec<_>>().join(" | "));
    let mut s = line(&header);
    let sep: Vec<String> = right.iter().map(|r| if *r { "---:" } else { "---" }.to_string()).collect();
    s.push_str(&format!("| {} |\n", sep.join(" | ")));
    for row in &rows {
        s.push_str(&line(row));
    }
    s.push('\n');
    for n in notes(c, bw) {
        s.push_str(&md_cell(&n));
        s.push_str("  \n");
    }
    if !c.findings.is_empty() {
        s.push_str("\n**Findings**\n\n");
        for f in &c.findings {
            s.push_str(&format!("- {}\n", md_cell(&f.message)));
        }
    }
    s
}

fn num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default()
}

/// Column names of [`render_csv`].
pub const CSV_HEADER: [&str; 19] = [
    "test",
    "job",
    "direction",
    "unit",
    "run_id",
    "label",
    "baseline",
    "value",
    "ratio",
    "ci_low",
    "ci_high",
    "within_noise",
    "measured_runs",
    "cpu_pct_per_100mbs",
    "price",
    "capacity_bytes",
    "price_per_gb",
    "mbs_per_price",
    "warnings",
];

/// One header row, then one row per test and run. Values in the test's unit
/// (`bytes/s` or `IOPS`), unrounded; empty fields are unknown; warnings are
/// codes separated by `;`.
pub fn render_csv(c: &Comparison) -> String {
    let mut s = CSV_HEADER.join(",");
    s.push('\n');
    for t in &c.tests {
        for (i, r) in c.runs.iter().enumerate() {
            let ci = t.ci[i];
            let fields = [
                t.test.clone(),
                t.job.clone(),
                t.direction.as_str().into(),
                t.unit.as_str().into(),
                r.id.to_string(),
                r.label.clone().unwrap_or_default(),
                (r.id == c.baseline).to_string(),
                num(Some(t.values[i])),
                num(t.ratios[i]),
                num(ci.map(|x| x[0])),
                num(ci.map(|x| x[1])),
                t.within_noise[i].map(|b| b.to_string()).unwrap_or_default(),
                t.measured_runs[i].to_string(),
                num(t.cpu_pct_per_100mbs[i]),
                num(r.price),
                r.capacity_bytes.map(|x| x.to_string()).unwrap_or_default(),
                num(r.price_per_gb),
                num(t.mbs_per_price[i]),
                t.warnings[i].join(";"),
            ];
            let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            s.push_str(&line.join(","));
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_signed_and_marked() {
        assert_eq!(signed_diff(1.21), "+21%");
        assert_eq!(signed_diff(0.5), "−50%");
        assert_eq!(signed_diff(1.002), "±0%");
        assert_eq!(signed_diff(2.0), "2.00x");
        assert_eq!(diff_cell(Some(1.02), Some(true)), "≈ +2% (noise)");
        assert_eq!(diff_cell(Some(1.21), Some(false)), "+21%");
        assert_eq!(diff_cell(Some(1.21), None), "+21% (?)");
        assert_eq!(diff_cell(None, None), "n/a");
        assert_eq!(diff_cell_in(Some(0.25), Some(false), Unit::Seconds), "×4.00 time");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
