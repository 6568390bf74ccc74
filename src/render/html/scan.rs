//! The surface scan, as HD Tach shows it: the transfer rate across the
//! surface with its minimum, average and maximum, the access time and the
//! burst rate.

use super::{CHART_H, CHART_W, Grid, Out, facts, lat, latency_unit, mbs, to_mb};
use crate::render::svg::{Axis, HLine, LineChart, Series, SeriesStyle, TickFormat};
use crate::summary::Report;
use crate::summary::scan::ScanReport;
use crate::units::{fmt_bs, fmt_bytes, fmt_ns};

pub(super) fn section(o: &mut Out, r: &Report, sc: &ScanReport, rid: &str) {
    o.open("scan", &format!("{rid}-scan"), 3, "Surface scan");
    let amount = match (sc.bytes_per_zone(), sc.zone_time_s) {
        (Some(b), _) => format!("{} measured per zone", fmt_bytes(b)),
        (None, Some(t)) => format!("{t} s per zone"),
        _ => String::new(),
    };
    let mut items = vec![
        (
            "Scanned",
            format!(
                "{} from {} to {} ({}): {} zones of {}, {amount}",
                sc.direction,
                fmt_bytes(sc.from),
                fmt_bytes(sc.to),
                fmt_bytes(sc.to.saturating_sub(sc.from)),
                sc.zones.len(),
                fmt_bytes(sc.zone_bytes)
            ),
        ),
        (
            "Requests",
            format!(
                "{} at QD{}, {}",
                fmt_bs(sc.bs),
                sc.qd,
                if sc.direct { "O_DIRECT" } else { "BUFFERED (page cache)" }
            ),
        ),
        (
            "Transfer rate",
            format!(
                "min {} MB/s (at {}), average {} MB/s, max {} MB/s (at {})",
                mbs(sc.min, 1),
                fmt_bytes(sc.min_offset),
                mbs(sc.avg, 1),
                mbs(sc.max, 1),
                fmt_bytes(sc.max_offset)
            ),
        ),
        (
            "First to last zone",
            format!(
                "the last zone is {:.1}% {} than the first",
                sc.drop_pct.abs(),
                if sc.drop_pct >= 0.0 { "slower" } else { "faster" }
            ),
        ),
    ];
    if let Some(a) = &sc.access_ns {
        items.push((
            "Access time",
            format!(
                "random 4K reads at QD1 over the range ({} reads): mean {}, median {}, p99 {}, max {}",
                a.ios,
                fmt_ns(a.mean),
                fmt_ns(a.p50 as f64),
                fmt_ns(a.p99 as f64),
                fmt_ns(a.max as f64)
            ),
        ));
    }
    if let Some(b) = sc.burst_bw_bytes {
        items.push((
            "Burst rate",
            format!("{} MB/s (one small region read again and again: the drive's cache)", mbs(b, 1)),
        ));
    }
    facts(o, &items);
    curve(o, sc);
    access(o, r, sc);
    o.close();
}

/// The transfer rate of every zone against its position.
fn curve(o: &mut Out, sc: &ScanReport) {
    if sc.zones.is_empty() {
        return;
    }
    // Positions in GiB, or MiB for a scan of less than a GiB.
    let (unit, div) = if sc.to >= 1 << 30 {
        ("GiB", (1u64 << 30) as f64)
    } else {
        ("MiB", (1u64 << 20) as f64)
    };
    let mut chart = LineChart::new(
        format!("Transfer rate across the surface ({})", sc.direction),
        Axis::linear("Position", unit),
        Axis::linear("Transfer rate", "MB/s").from_zero(),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    let style = if sc.zones.len() <= 40 {
        SeriesStyle::LineDots
    } else {
        SeriesStyle::Line
    };
    chart.series.push(
        Series::new(
            sc.direction.clone(),
            sc.zones.iter().map(|z| (z.offset as f64 / div, to_mb(z.bw_bytes))).collect(),
        )
        .with_style(style),
    );
    chart.hlines = vec![
        HLine::new("min", to_mb(sc.min)),
        HLine::new("avg", to_mb(sc.avg)),
        HLine::new("max", to_mb(sc.max)),
    ];
    let mut table = Grid::new(&[
        ("Zone", true),
        (if unit == "GiB" { "Starts at, GiB" } else { "Starts at, MiB" }, true),
        ("MB/s", true),
        ("Measured", true),
        ("In ms", true),
    ]);
    for z in &sc.zones {
        table.row(vec![
            (z.index + 1).to_string(),
            format!("{:.2}", z.offset as f64 / div),
            mbs(z.bw_bytes, 1),
            fmt_bytes(z.bytes),
            format!("{:.2}", z.wall_ns as f64 / 1e6),
        ]);
    }
    let caption = format!(
        "The transfer rate of each of the {} zones (MB/s = 10^6 bytes/s) at the position where the zone starts; dashed lines: minimum, average and maximum over the zones. A hard disk slows toward its inner tracks; a flat line is typical of flash.",
        sc.zones.len()
    );
    let long = table.rows.len() > 12;
    o.figure("scan-curve", &chart.to_svg(), &caption, &table, long);
}

/// The access time: the access job's latency percentiles, or the scan's own figures.
fn access(o: &mut Out, r: &Report, sc: &ScanReport) {
    if let Some(j) = r.scan_access_job() {
        super::jobs::latency(o, j, "scan-access", "Access time");
        return;
    }
    let Some(a) = &sc.access_ns else { return };
    let (unit, div) = latency_unit(a.p50 as f64);
    let pts: Vec<(&str, f64)> = vec![
        ("min", a.min as f64),
        ("p50", a.p50 as f64),
        ("p99", a.p99 as f64),
        ("max", a.max as f64),
    ];
    let mut chart = LineChart::new(
        "Access time (random 4K reads at QD1)",
        Axis::linear("Percentile", "").with_format(TickFormat::Custom(access_label)),
        Axis::log10("Latency", unit),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    chart
        .series
        .push(Series::new("read", pts.iter().enumerate().map(|(i, p)| (i as f64, p.1 / div)).collect()).with_style(SeriesStyle::LineDots));
    let mut table = Grid::new(&[("Figure", false), (if unit == "ms" { "ms" } else { "µs" }, true)]);
    for (name, ns) in pts.iter().chain([("mean", a.mean)].iter()) {
        table.row(vec![name.to_string(), lat(*ns, div)]);
    }
    let caption = format!(
        "Access time of {} random 4K reads at QD1 over the scanned range ({unit}, log scale).",
        a.ios
    );
    o.figure("scan-access", &chart.to_svg(), &caption, &table, false);
}

fn access_label(v: f64) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-9 {
        return String::new();
    }
    match i as i64 {
        0 => "min",
        1 => "p50",
        2 => "p99",
        3 => "max",
        _ => "",
    }
    .to_string()
}
