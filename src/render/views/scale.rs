//! `iolab scale`: what was swept on which targets, a row per measured
//! point (the scale's records), every verdict in words, and on a page
//! throughput and latency against queue depth and threads (log2 axes, the
//! knees marked), the targets alone and together, a layout against its
//! member. Its jobs are shown as a run's ([`super::jobs`]).

use crate::base::units::{fmt_bs, fmt_ratio};
use crate::judge::scale::{Dimension, LayoutVerdict, TogetherVerdict};
use crate::render::view::{
    Axis, BarSeries, Block, Cell, Chart, Column, Detail, Fact, Heading, Item, Latency, Line, List, Marker, Note, Quantity, Reference, Row,
    Scale, Section, Series, SeriesStyle, Span, Table, Tone,
};
use crate::summary::scale::{ScalePoint, ScaleReport, ScaleVerdict};

/// The scale's section: what ran, the points, the verdicts, and on a page its charts.
pub fn section(sc: &ScaleReport) -> Section {
    let mut s = Section::new("scale", "scale", Heading::Outline("Scaling".into()));
    s.push(Block::only(
        Detail::Lines,
        Block::paragraph(Tone::Plain, Line::new().text(format!("{} · ", job(sc))).and(targets(sc))),
    ));
    s.push(Block::only(Detail::Page, Block::Facts(facts(sc))));
    s.push(Block::Table(points(sc)));
    s.push(Block::only(
        Detail::Page,
        Block::Notes(vec![Note::plain(
            Line::new()
                .text("Every measured point (")
                .span(Span::BwDefinition)
                .text("). iolab CPU busy %: iolab's CPU time (all threads) during the point, as a share of the CPUs its worker threads could use."),
        )]),
    ));
    if let Some(l) = layout_line(sc) {
        s.push(Block::only(Detail::Lines, Block::paragraph(Tone::Plain, l)));
    }
    s.push(Block::List(verdicts(sc)));
    let charts = [Dimension::Depth, Dimension::Threads]
        .into_iter()
        .flat_map(|dim| sweep(sc, dim))
        .chain(together(sc))
        .chain(layout(sc));
    for c in charts {
        s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
    }
    s
}

/// "randread 4K".
fn job(sc: &ScaleReport) -> String {
    format!("{} {}", sc.rw, fmt_bs(sc.bs))
}

/// The targets with their tags: "t1 = /dev/sda, t2 = /dev/sdb", or the one path.
fn targets(sc: &ScaleReport) -> Line {
    if let [one] = sc.targets.as_slice() {
        return Line::new().code(one);
    }
    let mut l = Line::new();
    for (i, p) in sc.targets.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        l = l.text(format!("{sep}t{} = ", i + 1)).code(p);
    }
    l
}

/// A target as rows and verdicts name it: `t1 /dev/sda` with several, the path alone with one.
fn name(sc: &ScaleReport, path: &str) -> String {
    match sc.target_number(path) {
        Some(n) => format!("t{n} {path}"),
        None => path.to_string(),
    }
}

/// "btrfs raid0 over 2 devices (detected), 2 copies".
fn layout_words(sc: &ScaleReport) -> Option<String> {
    let l = sc.layout.as_ref()?;
    let copies = l.copies.map(|c| format!(", {c} copies")).unwrap_or_default();
    Some(format!("{} over {} devices ({}){copies}", l.name, l.members, l.source))
}

/// The layout and the member measured alone, as a line under the table.
fn layout_line(sc: &ScaleReport) -> Option<Line> {
    let member = |l: Line, words: &str| match &sc.member {
        Some(m) => l.text(words).code(m),
        None => l,
    };
    match layout_words(sc) {
        Some(l) => Some(member(Line::from(format!("Layout: {l}")), "; member measured alone: ")),
        None => sc.member.as_ref().map(|_| member(Line::new(), "Member measured alone: ")),
    }
}

/// What a page lists above the table.
fn facts(sc: &ScaleReport) -> Vec<Fact> {
    let mut v = vec![Fact::new("Job", job(sc)), Fact::new("Targets", targets(sc))];
    if let Some(l) = layout_words(sc) {
        v.push(Fact::new("Layout", l));
    }
    if let Some(m) = &sc.member {
        v.push(Fact::new("Member measured alone", Line::new().code(m)));
    }
    v
}

/// A point's mean latency; `off` when none was taken (0).
fn mean_latency(p: &ScalePoint) -> Cell {
    if p.lat_ns > 0.0 {
        Cell::latency(p.lat_ns)
    } else {
        Cell::Latency(Latency::Off)
    }
}

/// Every point: the scale's records.
fn points(sc: &ScaleReport) -> Table {
    let mut t = Table::new(vec![
        Column::text("Point", "point"),
        Column::text("Target", "target").only(Detail::Human),
        Column::text("Targets", "targets").only(Detail::Raw),
        Column::figure("QD", "qd"),
        Column::figure("Threads", "threads"),
        Column::bandwidth("", "bw_bytes_per_s"),
        Column::figure("IOPS", "iops"),
        Column::figure("Mean latency", "mean_latency_ns"),
        Column::figure("iolab CPU busy %", "cpu_busy_pct"),
    ]);
    t.records = true;
    for p in &sc.points {
        let target = match p.targets.as_slice() {
            [one] => name(sc, one),
            all => format!("all {}", all.len()),
        };
        t.row(vec![
            Cell::text(p.kind_name()),
            Cell::text(target),
            Cell::text(p.targets.join(" ")),
            Cell::Count(u64::from(p.qd)),
            Cell::Count(u64::from(p.threads)),
            Cell::bandwidth(p.bw_bytes),
            Cell::number(p.iops, 0),
            mean_latency(p),
            Cell::percent(p.cpu_busy_pct(), 0),
        ]);
    }
    t
}

/// What a verdict judges: "t1 /dev/sda, queue depth", "all targets together".
fn subject(sc: &ScaleReport, v: &ScaleVerdict) -> String {
    match v {
        ScaleVerdict::Depth { target, .. } => format!("{}, queue depth", name(sc, target)),
        ScaleVerdict::Threads { target, .. } => format!("{}, threads", name(sc, target)),
        ScaleVerdict::Together { .. } => "all targets together".into(),
        ScaleVerdict::Layout { target, member, .. } => format!("layout {} against member {member}", name(sc, target)),
    }
}

/// Every verdict, what it judges first.
fn verdicts(sc: &ScaleReport) -> List {
    let mut l = List::new("verdicts", "Verdicts");
    for v in &sc.verdicts {
        l.item(Item::new(v.text()).subject(subject(sc, v)).key(true));
    }
    l
}

// ------------------------------------------------------------ charts, on a page

/// Throughput and mean latency along one dimension, a series per target,
/// the knees marked; nothing when no target swept two points of it.
fn sweep(sc: &ScaleReport, dim: Dimension) -> Vec<Chart> {
    let sweeps: Vec<(&String, Vec<(u32, &ScalePoint)>)> = sc
        .targets
        .iter()
        .map(|t| (t, sc.sweep(t, dim)))
        .filter(|(_, s)| s.len() >= 2)
        .collect();
    if sweeps.is_empty() {
        return Vec::new();
    }
    let (what, axis, x_col) = match dim {
        Dimension::Depth => ("queue depth", "Queue depth (I/Os in flight per thread)", Column::figure("QD", "qd")),
        Dimension::Threads => ("threads", "Threads (at QD1)", Column::figure("Threads", "threads")),
    };
    let x = || Axis::new(axis, Quantity::Number(String::new()), Scale::Log2);
    let mut bw = Chart::lines(
        "scale-sweep",
        format!("Throughput against {what}"),
        x(),
        Axis::linear("Throughput", Quantity::Bandwidth).from_zero(),
    );
    let mut lt = Chart::lines(
        "scale-sweep",
        format!("Mean latency against {what}"),
        x(),
        Axis::new("Mean latency", Quantity::Latency, Scale::Log10),
    );
    let mut table = Table::new(vec![
        Column::text("Target", "target"),
        x_col,
        Column::bandwidth("", "bw_bytes_per_s"),
        Column::figure("IOPS", "iops"),
        Column::figure("Mean latency", "mean_latency_ns"),
        Column::figure("iolab CPU busy %", "cpu_busy_pct"),
    ]);
    let mut knees = Vec::new();
    for (i, (t, pts)) in sweeps.iter().enumerate() {
        let series = |f: fn(&ScalePoint) -> f64| {
            Series::new(name(sc, t), pts.iter().map(|(x, p)| (f64::from(*x), f(p))).collect())
                .with_style(SeriesStyle::LineDots)
                .with_color(i)
        };
        bw.series(series(|p| p.bw_bytes));
        lt.series(series(|p| p.lat_ns));
        for (x, p) in pts {
            table.row(vec![
                Cell::text(name(sc, t)),
                Cell::Count(u64::from(*x)),
                Cell::bandwidth_coarse(p.bw_bytes),
                Cell::number(p.iops, 0),
                mean_latency(p),
                Cell::percent(p.cpu_busy_pct(), 0),
            ]);
        }
        if let Some(k) = sc.knee(t, dim) {
            let tag = sc.target_number(t).map(|n| format!("t{n} ")).unwrap_or_default();
            bw.markers.push(Marker::new(format!("{tag}knee at {}", dim.label(k)), f64::from(k)));
            knees.push(format!("{}: {}", name(sc, t), dim.label(k)));
        }
    }
    let knee_text = if knees.is_empty() {
        "No knee: every sweep was still growing at its last point, or never grew.".to_string()
    } else {
        format!(
            "The knee (where more stops helping, as the verdict placed it): {}.",
            knees.join("; ")
        )
    };
    bw.caption = Line::new()
        .text("Throughput (")
        .span(Span::BwDefinition)
        .text(format!(") of {} against {what} (log2 axis). {knee_text}", job(sc)));
    lt.caption = Line::from(format!(
        "Mean completion latency (log scale) against {what}: where more I/Os in flight stop adding throughput, they add waiting."
    ));
    bw.numbers = table.clone();
    lt.numbers = table;
    vec![bw, lt]
}

/// Each target alone and during the run together, with the ideal sum.
fn together(sc: &ScaleReport) -> Option<Chart> {
    let v: &TogetherVerdict = sc.verdicts.iter().find_map(|v| match v {
        ScaleVerdict::Together { verdict } => Some(verdict),
        _ => None,
    })?;
    let all = "all together";
    let mut cats: Vec<String> = v.targets.iter().map(|t| name(sc, &t.name)).collect();
    cats.push(all.into());
    let mut c = Chart::bars(
        "scale-together",
        "Alone and together",
        cats.clone(),
        Axis::linear("Throughput", Quantity::Bandwidth),
    );
    let with_all = |each: Vec<Option<f64>>, last: Option<f64>| each.into_iter().chain([last]).collect::<Vec<_>>();
    c.group(BarSeries::new(
        "alone",
        with_all(v.targets.iter().map(|t| t.alone_bps).collect(), None),
    ));
    c.group(BarSeries::new(
        "together",
        with_all(v.targets.iter().map(|t| t.together_bps).collect(), v.together),
    ));
    c.reference(Reference {
        label: "ideal: the sum alone".into(),
        values: with_all(vec![None; v.targets.len()], v.sum_alone),
    });
    let mut t = Table::new(vec![
        Column::text("Target", "target"),
        Column::bandwidth("Alone", "alone_bw_bytes_per_s"),
        Column::bandwidth("Together", "together_bw_bytes_per_s"),
        Column::figure("Kept %", "kept_pct"),
    ]);
    let bw = |b: Option<f64>| Cell::or_empty(b, Cell::bandwidth_coarse);
    let share = |f: Option<f64>| Cell::or_empty(f, |f| Cell::percent(f * 100.0, 0));
    for (o, name) in v.targets.iter().zip(&cats) {
        t.row(vec![Cell::text(name), bw(o.alone_bps), bw(o.together_bps), share(o.kept)]);
    }
    t.row(vec![
        Cell::text(format!("{all} (alone: the sum)")),
        bw(v.sum_alone),
        bw(v.together),
        share(v.efficiency),
    ]);
    c.numbers = t;
    c.caption = Line::new()
        .text("Each target alone and while all ran at once (")
        .span(Span::BwDefinition)
        .text(format!(
            "); the dashed line is the ideal, the sum of the solo rates. Verdict: {}",
            v.text
        ));
    Some(c)
}

/// The layout against one of its members, with the textbook expectation.
fn layout(sc: &ScaleReport) -> Option<Chart> {
    let (lay, member) = sc.layout_pair()?;
    let v: &LayoutVerdict = sc.verdicts.iter().find_map(|v| match v {
        ScaleVerdict::Layout { verdict, .. } => Some(verdict),
        _ => None,
    })?;
    let lname = sc.layout.as_ref().map_or("layout", |l| l.name.as_str());
    let first = |p: &ScalePoint| p.targets.first().cloned().unwrap_or_default();
    let cats = vec![format!("member {}", first(member)), format!("{lname} {}", first(lay))];
    let mut c = Chart::bars(
        "scale-layout",
        "Layout against its member",
        cats.clone(),
        Axis::linear("Throughput", Quantity::Bandwidth),
    );
    c.group(BarSeries::new(
        format!("QD{} × {} thread(s)", lay.qd, lay.threads),
        vec![Some(member.bw_bytes), Some(lay.bw_bytes)],
    ));
    let mut t = Table::new(vec![
        Column::text("What", "what"),
        Column::bandwidth("", "bw_bytes_per_s"),
        Column::figure("IOPS", "iops"),
        Column::figure("Mean latency", "mean_latency_ns"),
    ]);
    for (what, p) in cats.iter().zip([member, lay]) {
        t.row(vec![
            Cell::text(what),
            Cell::bandwidth_coarse(p.bw_bytes),
            Cell::number(p.iops, 0),
            mean_latency(p),
        ]);
    }
    if let Some((lo, hi)) = sc.layout_expected_bps() {
        let ends: &[(&str, f64)] = if hi > lo { &[("low", lo), ("high", hi)] } else { &[("low", lo)] };
        for (end, bps) in ends {
            c.reference(Reference {
                label: format!("expected, {end}"),
                values: vec![None, Some(*bps)],
            });
            t.row(Row::from(vec![
                Cell::text(format!("expected for the layout, {end}")),
                Cell::bandwidth_coarse(*bps),
                Cell::Empty,
                Cell::Empty,
            ]));
        }
    }
    c.numbers = t;
    let measured = v
        .measured
        .map(|m| format!(" Measured: {} the member.", fmt_ratio(m)))
        .unwrap_or_default();
    c.caption = Line::new()
        .text("The layout and one member alone with the same job (")
        .span(Span::BwDefinition)
        .text(format!(
            "); dashed: the textbook expectation for {} members.{measured} Verdict: {}",
            v.members, v.text
        ));
    Some(c)
}
