//! Text charts: one line per zone while a surface scan runs, and a view's
//! curve (the scan's rate against position, HD Tach's) in the terminal's
//! view. Formatting only: the figures come computed in the view.

use super::view::{Chart, Fmt, Place};
use crate::base::units::{BwUnit, bw, fmt_bytes};

const BAR_WIDTH: usize = 40;
/// The curve's narrowest plot: fewer zones are widened to it, so the axis
/// labels under it never run together.
const MIN_COLUMNS: usize = 32;
/// Eighths of a character cell, for bars with sub-character resolution.
const HORIZONTAL: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const VERTICAL: [char; 8] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇'];

/// A horizontal bar of `value / full` of `width` cells (a `▶` marks overflow).
fn bar(value: f64, full: f64, width: usize) -> String {
    if full.is_nan() || full <= 0.0 || !value.is_finite() || value <= 0.0 {
        return " ".repeat(width);
    }
    if value > full {
        return format!("{}▶", "█".repeat(width - 1));
    }
    let eighths = (value / full * (width * 8) as f64).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(HORIZONTAL[eighths % 8]);
    }
    let used = s.chars().count();
    s.push_str(&" ".repeat(width.saturating_sub(used)));
    s
}

/// The live line for a finished zone: index, position, rate and a bar
/// scaled to `full` (bytes/s), so the lines form the curve turned sideways.
pub fn zone_line(index: u32, of: u32, offset: u64, bw_bytes: f64, full: f64, unit: BwUnit) -> String {
    let w = of.to_string().len();
    format!(
        "zone {:>w$}/{of} {:>11} {:>9} {} │{}│",
        index + 1,
        fmt_bytes(offset),
        bw(bw_bytes, unit, 1),
        unit.label(),
        bar(bw_bytes, full, BAR_WIDTH)
    )
}

/// A chart's curve in text: its one series up (in the y axis's quantity,
/// bandwidth in `f`'s unit), its x axis across, `height` rows and at most
/// `width` columns (points are grouped when there are more, a column
/// showing its group's mean; fewer than `MIN_COLUMNS` points are each
/// drawn several columns wide). The top holds the points and the chart's
/// horizontal lines; the x axis's ends are its range. Empty for a chart
/// that is not one series on linear axes ([`Chart::curve`]).
pub fn curve(c: &Chart, width: usize, height: usize, f: &Fmt) -> String {
    let Some((x, s)) = c.curve() else { return String::new() };
    let n = s.points.len();
    if n == 0 || height == 0 || width == 0 {
        return String::new();
    }
    let label = |v: f64| c.y.quantity.coarse(v).human(f, Place::Column);
    let cols = if n >= width {
        width
    } else {
        (n * MIN_COLUMNS.min(width).div_ceil(n)).min(width)
    };
    let col: Vec<f64> = (0..cols)
        .map(|c| {
            let (a, b) = (c * n / cols, ((c + 1) * n / cols).max(c * n / cols + 1));
            s.points[a..b].iter().map(|p| p.1).sum::<f64>() / (b - a) as f64
        })
        .collect();
    let highest = s
        .points
        .iter()
        .map(|p| p.1)
        .chain(c.hlines.iter().map(|h| h.value))
        .fold(0.0, f64::max);
    let top = highest.max(1.0) * 1.05;
    let label_w = label(top).len().max(5);
    let mut out = String::new();
    for row in (0..height).rev() {
        let lo = top * row as f64 / height as f64;
        let cell = top / height as f64;
        let tick = if row == height - 1 || row == 0 || row == height / 2 {
            format!("{:>label_w$}", label(lo + cell))
        } else {
            " ".repeat(label_w)
        };
        out.push_str(&tick);
        out.push_str(" ┤");
        for &v in &col {
            let fill = ((v - lo) / cell).clamp(0.0, 1.0);
            let e = (fill * 8.0).round() as usize;
            out.push(if e >= 8 { '█' } else { VERTICAL[e] });
        }
        out.push('\n');
    }
    out.push_str(&format!("{:>label_w$} └", 0));
    out.push_str(&"─".repeat(cols));
    out.push('\n');
    let end = |v: Option<f64>| v.map(|v| x.quantity.exact(v).human(f, Place::Prose)).unwrap_or_default();
    let (left, right) = (end(x.min), end(x.max));
    let pad = (cols + 2).saturating_sub(left.chars().count() + right.chars().count());
    out.push_str(&" ".repeat(label_w));
    out.push_str(&format!("{left}{}{right}\n", " ".repeat(pad)));
    out.push_str(&format!(
        "{:>label_w$} {} against {}\n",
        "",
        c.y.quantity.unit(f),
        x.label.to_lowercase()
    ));
    out
}

/// A one-line curve of `values` in block characters (`▁` to `█`, from 0 up
/// to the greatest value), at most `width` characters: more values are
/// grouped, each character their mean. A group with no value is a space.
pub fn sparkline(values: &[Option<f64>], width: usize) -> String {
    let n = values.len();
    let cols = n.min(width);
    let top = values.iter().flatten().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    (0..cols)
        .map(|c| {
            let group = &values[c * n / cols..(c + 1) * n / cols];
            let known: Vec<f64> = group.iter().flatten().copied().filter(|v| v.is_finite()).collect();
            if known.is_empty() || top <= 0.0 {
                return ' ';
            }
            let mean = known.iter().sum::<f64>() / known.len() as f64;
            match ((mean / top * 8.0).round() as usize).clamp(1, 8) {
                8 => '█',
                e => VERTICAL[e],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::scan::{ScanReport, ZoneReport};

    #[test]
    fn a_sparkline_scales_from_zero_and_groups_values() {
        let v: Vec<Option<f64>> = [8.0, 8.0, 2.0, 2.0, 4.0, 4.0].into_iter().map(Some).collect();
        assert_eq!(sparkline(&v, 10), "██▂▂▄▄");
        assert_eq!(sparkline(&v, 3), "█▂▄");
        assert_eq!(sparkline(&[Some(1.0), None, Some(0.01)], 10), "█ ▁", "a value above 0 shows");
        assert_eq!(sparkline(&[], 10), "");
    }

    /// The text curve of a scan with these zone rates.
    fn drawn(rates: &[f64], width: usize, height: usize) -> String {
        curve(&crate::render::views::scan::curve(&report(rates)), width, height, &Fmt::TEXT)
    }

    fn report(rates: &[f64]) -> ScanReport {
        let zones: Vec<ZoneReport> = rates
            .iter()
            .enumerate()
            .map(|(i, &r)| ZoneReport {
                index: i as u32,
                offset: i as u64 * (1 << 30),
                bytes: 0,
                wall_ns: 0,
                bw_bytes: r,
            })
            .collect();
        ScanReport {
            direction: "read".into(),
            from: 0,
            to: rates.len() as u64 * (1 << 30),
            zone_bytes: 1 << 30,
            window_bytes: Some(64 << 20),
            zone_time_s: None,
            bs: 1 << 20,
            qd: 4,
            direct: true,
            zones,
            min: rates.iter().copied().fold(f64::INFINITY, f64::min),
            max: rates.iter().copied().fold(0.0, f64::max),
            avg: 0.0,
            min_offset: 0,
            max_offset: 0,
            drop_pct: 0.0,
            access_ns: None,
            burst_bw_bytes: None,
        }
    }

    #[test]
    fn bars_have_sub_cell_resolution_and_mark_overflow() {
        assert_eq!(bar(50.0, 100.0, 4), "██  ");
        assert_eq!(bar(12.5, 100.0, 4).chars().next(), Some('▌'));
        assert!(bar(150.0, 100.0, 4).ends_with('▶'));
        assert_eq!(bar(0.0, 100.0, 3), "   ");
        assert_eq!(bar(f64::NAN, 100.0, 3), "   ");
    }

    #[test]
    fn a_falling_curve_is_drawn_falling() {
        let rates: Vec<f64> = (0..10).map(|i| 200e6 - i as f64 * 10e6).collect();
        let c = drawn(&rates, 72, 8);
        let lines: Vec<&str> = c.lines().collect();
        // Top row: only the first (fastest) columns reach it.
        let top: Vec<char> = lines[0].split('┤').nth(1).unwrap().chars().collect();
        // Ten zones are drawn four columns each, so the axis labels fit.
        assert_eq!(top.len(), 40);
        assert!(top[..4].iter().all(|&c| c != ' '));
        assert!(top[36..].iter().all(|&c| c == ' '));
        // Bottom row is full everywhere.
        assert!(lines[7].split('┤').nth(1).unwrap().chars().all(|ch| ch == '█'));
        assert!(c.contains("0 B"));
        assert!(c.contains("10.00 GiB"));
    }

    #[test]
    fn many_zones_are_grouped_into_the_width() {
        let rates = vec![100e6; 500];
        let c = drawn(&rates, 72, 4);
        let row = c.lines().next().unwrap().split('┤').nth(1).unwrap().chars().count();
        assert_eq!(row, 72);
    }

    /// Issue 12 (seen in issue 11's closing note): with few zones the
    /// labels under the axis ran together ("0 B256.00 MiB").
    #[test]
    fn issue_12_few_zones_keep_the_axis_labels_apart() {
        for n in [1, 2, 3, 8] {
            let c = drawn(&vec![100e6; n], 72, 4);
            let labels = c.lines().rev().nth(1).unwrap();
            let words: Vec<&str> = labels.split("  ").filter(|w| !w.trim().is_empty()).collect();
            assert_eq!(words.len(), 2, "{n} zones: {labels:?}");
        }
    }

    #[test]
    fn zone_lines_align() {
        let a = zone_line(0, 100, 0, 150e6, 200e6, BwUnit::Mb);
        let b = zone_line(99, 100, 99 << 30, 90e6, 200e6, BwUnit::Mb);
        assert_eq!(a.chars().count(), b.chars().count());
        assert!(a.contains("150.0 MB/s"));
    }
}
