//! A surface scan, as HD Tach shows it: what was scanned, the transfer
//! rate across the surface (the curve, with its minimum, average and
//! maximum), the access time and the burst rate. The zones are the scan's
//! records; its jobs are shown as a run's ([`super::jobs`]).

use crate::base::units::fmt_bs;
use crate::plan::scan::BURST_REGION;
use crate::render::envelope;
use crate::render::view::{
    Axis, Block, Cell, Chart, Column, Detail, Fact, HLine, Heading, Line, Quantity, Scale, Section, Series, SeriesStyle, Span, Table,
    Ticks, Tone,
};
use crate::summary::Report;
use crate::summary::scan::ScanReport;

/// The scan's section: its facts, the curve, and on a page the access time's distribution.
pub fn section(r: &Report, sc: &ScanReport) -> Section {
    let mut s = Section::new("scan", "scan", Heading::Shown("Surface scan".into()));
    s.push(Block::Facts(facts(sc)));
    if !sc.zones.is_empty() {
        let mut c = curve(sc);
        let records = c.numbers.clone();
        match envelope::fold(&mut c, sc.from as f64, sc.zone_bytes.max(1) as f64) {
            None => s.push(Block::Chart(Box::new(c))),
            Some(f) => {
                // Too many zones to list: the curve folded, the extremes
                // listed, and every zone in the records only.
                c.caption = std::mem::take(&mut c.caption).text(f.sentence("zone", "The CSV and JSON exports hold"));
                s.push(Block::only(
                    Detail::Lines,
                    Block::paragraph(
                        Tone::Plain,
                        format!(
                            "{} zones are too many to list one by one: the curve folds them into buckets of {} zones (each bucket's min, median and max), and the {EXTREMES} slowest and {EXTREMES} fastest zones follow. The CSV and JSON exports hold every zone.",
                            envelope::thousands(sc.zones.len()),
                            f.steps
                        ),
                    ),
                ));
                s.push(Block::Chart(Box::new(c)));
                s.push(Block::only(Detail::Raw, Block::Table(records)));
                s.push(Block::only(Detail::Human, Block::Table(extremes(sc))));
            }
        }
    }
    let access = match r.scan_access_job() {
        Some(j) => super::jobs::latency(j, "scan-access", "Access time"),
        None => access(sc),
    };
    if let Some(c) = access {
        s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
    }
    s
}

/// What was scanned, how, and what it found.
fn facts(sc: &ScanReport) -> Vec<Fact> {
    let bytes = |b: u64| Cell::Bytes(b);
    let mut scanned = Line::new()
        .text(format!("{} from ", sc.direction))
        .figure(bytes(sc.from))
        .text(" to ")
        .figure(bytes(sc.to))
        .text(" (")
        .figure(bytes(sc.to.saturating_sub(sc.from)))
        .text(format!("): {} zones of ", sc.zones.len()))
        .figure(bytes(sc.zone_bytes));
    match (sc.bytes_per_zone(), sc.zone_time_s) {
        (Some(b), _) => scanned = scanned.text(", ").figure(bytes(b)).text(" measured per zone"),
        (None, Some(t)) => scanned = scanned.text(format!(", {t} s per zone")),
        _ => {}
    }
    let mut v = vec![
        Fact::new("Scanned", scanned),
        Fact::new(
            "Requests",
            format!(
                "{} at QD{}, {}",
                fmt_bs(sc.bs),
                sc.qd,
                if sc.direct { "O_DIRECT" } else { "BUFFERED (page cache)" }
            ),
        ),
        Fact::new(
            "Transfer rate",
            Line::new()
                .text("min ")
                .figure(Cell::bandwidth(sc.min))
                .text(" (at ")
                .figure(bytes(sc.min_offset))
                .text("), average ")
                .figure(Cell::bandwidth(sc.avg))
                .text(", max ")
                .figure(Cell::bandwidth(sc.max))
                .text(" (at ")
                .figure(bytes(sc.max_offset))
                .text(")"),
        ),
        Fact::new(
            "First to last zone",
            Line::new()
                .text("the last zone is ")
                .figure(Cell::percent(sc.drop_pct.abs(), 1))
                .text(if sc.drop_pct >= 0.0 { " slower" } else { " faster" })
                .text(" than the first"),
        ),
    ];
    if let Some(a) = &sc.access_ns {
        v.push(Fact::new(
            "Access time",
            Line::new()
                .text(format!("random 4K reads at QD1 over the range ({} reads): mean ", a.ios))
                .figure(Cell::latency(a.mean))
                .text(", median ")
                .figure(Cell::latency(a.p50 as f64))
                .text(", p99 ")
                .figure(Cell::latency(a.p99 as f64))
                .text(", max ")
                .figure(Cell::latency(a.max as f64)),
        ));
    }
    if let Some(b) = sc.burst_bw_bytes {
        v.push(Fact::new(
            "Burst rate",
            Line::new()
                .figure(Cell::bandwidth(b))
                .text(format!(" ({} MiB read again and again: the drive's cache)", BURST_REGION >> 20)),
        ));
    }
    v
}

/// The transfer rate of every zone against its position; its numbers are
/// the scan's records.
pub fn curve(sc: &ScanReport) -> Chart {
    let mut c = Chart::lines(
        "scan-curve",
        format!("Transfer rate across the surface ({})", sc.direction),
        Axis::linear("Position", Quantity::Bytes).range(Some(sc.from as f64), Some(sc.to as f64)),
        Axis::linear("Transfer rate", Quantity::Bandwidth).from_zero(),
    );
    let style = if sc.zones.len() <= 40 {
        SeriesStyle::LineDots
    } else {
        SeriesStyle::Line
    };
    c.series(
        Series::new(
            sc.direction.clone(),
            sc.zones.iter().map(|z| (z.offset as f64, z.bw_bytes)).collect(),
        )
        .with_style(style),
    );
    c.hlines = vec![HLine::new("min", sc.min), HLine::new("avg", sc.avg), HLine::new("max", sc.max)];
    let mut t = Table::new(vec![
        Column::figure("Zone", "zone"),
        Column::text("Direction", "direction").only(Detail::Raw),
        Column::figure("Offset", "offset_bytes"),
        Column::figure("Zone size", "zone_bytes").only(Detail::Raw),
        Column::figure("Measured", "measured_bytes"),
        Column::figure("Seconds", "seconds").only(Detail::Human),
        Column::figure("Wall ns", "wall_ns").only(Detail::Raw),
        Column::bandwidth("", "bw_bytes_per_s"),
    ]);
    t.records = true;
    for z in &sc.zones {
        t.row(vec![
            Cell::Count(u64::from(z.index) + 1),
            Cell::text(&sc.direction),
            Cell::Bytes(z.offset),
            Cell::Bytes(sc.zone_bytes),
            Cell::Bytes(z.bytes),
            Cell::seconds(z.wall_ns as f64 / 1e9, 3),
            Cell::Count(z.wall_ns),
            Cell::bandwidth(z.bw_bytes),
        ]);
    }
    c.numbers = t;
    c.caption = Line::new()
        .text(format!("The transfer rate of each of the {} zones (", sc.zones.len()))
        .span(Span::BwDefinition)
        .text(") at the position where the zone starts; dashed lines: minimum, average and maximum over the zones. A hard disk slows toward its inner tracks; a flat line is typical of flash.");
    c
}

/// The zones a folded scan lists: this many slowest, and as many fastest.
const EXTREMES: usize = 10;

/// The [`EXTREMES`] slowest zones, slowest first, then the fastest, fastest first.
fn extremes(sc: &ScanReport) -> Table {
    let mut by: Vec<&crate::summary::scan::ZoneReport> = sc.zones.iter().collect();
    by.sort_by(|a, b| a.bw_bytes.total_cmp(&b.bw_bytes).then(a.index.cmp(&b.index)));
    let n = EXTREMES.min(by.len() / 2);
    let mut t = Table::new(vec![
        Column::text("Among", "among"),
        Column::figure("Zone", "zone"),
        Column::figure("Offset", "offset_bytes"),
        Column::bandwidth("", "bw_bytes_per_s"),
    ]);
    t.grouped = true;
    let slowest = by.iter().take(n).map(|z| ("slowest", z));
    let fastest = by.iter().rev().take(n).map(|z| ("fastest", z));
    for (among, z) in slowest.chain(fastest) {
        t.row(vec![
            Cell::text(among),
            Cell::Count(u64::from(z.index) + 1),
            Cell::Bytes(z.offset),
            Cell::bandwidth(z.bw_bytes),
        ]);
    }
    t
}

/// The access time from the scan's own figures, when it has no access job to chart.
fn access(sc: &ScanReport) -> Option<Chart> {
    let a = sc.access_ns.as_ref()?;
    let pts = [
        ("min", a.min as f64),
        ("p50", a.p50 as f64),
        ("p99", a.p99 as f64),
        ("max", a.max as f64),
    ];
    let mut c = Chart::lines(
        "scan-access",
        "Access time (random 4K reads at QD1)",
        Axis::linear("Percentile", Quantity::Number(String::new())).ticks(Ticks::Named(pts.iter().map(|p| p.0.to_string()).collect())),
        Axis::new("Latency", Quantity::Latency, Scale::Log10),
    );
    c.series(Series::new("read", pts.iter().enumerate().map(|(i, p)| (i as f64, p.1)).collect()).with_style(SeriesStyle::LineDots));
    c.numbers = Table::new(vec![Column::text("Figure", "figure"), Column::figure("Latency", "latency_ns")]);
    for (name, ns) in pts.iter().chain([("mean", a.mean)].iter()) {
        c.numbers.row(vec![Cell::text(*name), Cell::latency(*ns)]);
    }
    c.caption = Line::from(format!(
        "Access time of {} random 4K reads at QD1 over the scanned range (log scale).",
        a.ios
    ));
    Some(c)
}
