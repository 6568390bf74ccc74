//! `iolab verify`: the verdict (an alert when the device failed), the
//! facts, bytes per class, the bad ranges, and the write and read rate of
//! every zone as a curve with its numbers. The rows come from
//! [`crate::render::verify`], shared with the other formats.

use super::{CHART_H, CHART_W, Grid, Out, facts, to_mb};
use crate::render::svg::{Axis, LineChart, Series, SeriesStyle, escape};
use crate::render::verify as rows;
use crate::summary::Report;
use crate::summary::verify::VerifyReport;
use crate::units::BwUnit;

pub(super) fn section(o: &mut Out, r: &Report, v: &VerifyReport, rid: &str) {
    o.open("verify", &format!("{rid}-verify"), 3, "Verify: every block written and read back");
    let line = rows::verdict_line(v, r.interrupted);
    if v.failed() {
        w!(o.body, "<p class=\"alert\" role=\"alert\">{}</p>\n", escape(&line));
    } else {
        w!(o.body, "<p><strong>{}</strong></p>\n", escape(&line));
    }
    facts(o, &rows::facts(v, BwUnit::Mb));
    let mut classes = Grid::new(&[("Class", false), ("Bytes", true), ("Exact bytes", true), ("Share", true)]);
    for c in rows::class_rows(v) {
        classes.row(c.to_vec());
    }
    o.body.push_str(&classes.html(Some("What each 4 KiB block read back as")));
    let ranges = rows::range_rows(v, usize::MAX);
    if !ranges.is_empty() {
        let mut g = Grid::new(&[
            ("Bad from (byte)", true),
            ("To (byte)", true),
            ("Class", false),
            ("Bytes", true),
            ("", false),
        ]);
        for r in ranges {
            g.row(r.to_vec());
        }
        let more = v.summary.ranges_dropped;
        let caption = if more > 0 {
            format!("Bad ranges, [from, to) ({more} more not kept)")
        } else {
            "Bad ranges, [from, to)".to_string()
        };
        w!(
            o.body,
            "<details{}><summary>{} bad range(s)</summary>\n{}</details>\n",
            if v.summary.ranges.len() <= 12 { " open" } else { "" },
            v.summary.ranges.len(),
            g.html(Some(&caption))
        );
    }
    curve(o, v);
    o.close();
}

/// Write and read rate of every zone against its position.
fn curve(o: &mut Out, v: &VerifyReport) {
    if v.zones.iter().all(|z| z.write_bw_bytes.is_none() && z.read_bw_bytes.is_none()) {
        return;
    }
    let top = v.zones.last().map(|z| z.offset + z.bytes).unwrap_or(0);
    let (unit, div) = if top >= 1 << 30 {
        ("GiB", (1u64 << 30) as f64)
    } else {
        ("MiB", (1u64 << 20) as f64)
    };
    let mut chart = LineChart::new(
        "Write and read rate across the verified range",
        Axis::linear("Position", unit),
        Axis::linear("Rate", "MB/s").from_zero(),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    let style = if v.zones.len() <= 40 {
        SeriesStyle::LineDots
    } else {
        SeriesStyle::Line
    };
    for (k, (name, get)) in [
        ("write", (|z: &crate::summary::verify::VerifyZone| z.write_bw_bytes) as fn(&_) -> _),
        ("read", |z: &crate::summary::verify::VerifyZone| z.read_bw_bytes),
    ]
    .into_iter()
    .enumerate()
    {
        let pts: Vec<(f64, f64)> = v
            .zones
            .iter()
            .filter_map(|z| get(z).map(|b| (z.offset as f64 / div, to_mb(b))))
            .collect();
        if !pts.is_empty() {
            chart.series.push(Series::new(name, pts).with_style(style).with_color(k));
        }
    }
    let mut table = Grid::new(&[
        ("Zone", true),
        ("From", true),
        ("Write MB/s", true),
        ("Read MB/s", true),
        ("Bad", true),
    ]);
    for r in rows::zone_rows(v, BwUnit::Mb) {
        table.row(r.to_vec());
    }
    let caption = format!(
        "The write rate (each zone's writes and its flush) and the read-back rate of each of the {} zones, MB/s = 10^6 bytes/s, at the position where the zone starts.",
        v.zones.len()
    );
    let long = table.rows.len() > 12;
    o.figure("verify-curve", &chart.to_svg(), &caption, &table, long);
}
