//! `iolab scale`: throughput and latency against queue depth and threads
//! with the knee marked, targets alone and together, a layout against its
//! member; every verdict in words.

use super::{CHART_H, CHART_W, Grid, Out, escape, facts, lat, latency_unit, mbs, to_mb};
use crate::judge::scale::Dimension;
use crate::render::svg::{Axis, BarChart, BarSeries, LineChart, Marker, Reference, Series, SeriesStyle};
use crate::summary::scale::{ScaleReport, ScaleVerdict};
use crate::units::{fmt_bs, fmt_ratio, pct};

pub(super) fn section(o: &mut Out, sc: &ScaleReport, rid: &str) {
    o.open("scale", &format!("{rid}-scale"), 3, "Scaling");
    let targets: Vec<String> = sc.targets.iter().map(|t| name(sc, t)).collect();
    let mut items = vec![("Job", format!("{} {}", sc.rw, fmt_bs(sc.bs))), ("Targets", targets.join(", "))];
    if let Some(l) = &sc.layout {
        items.push((
            "Layout",
            format!(
                "{} over {} devices ({}){}",
                l.name,
                l.members,
                l.source,
                l.copies.map(|c| format!(", {c} copies")).unwrap_or_default()
            ),
        ));
    }
    if let Some(m) = &sc.member {
        items.push(("Member measured alone", m.clone()));
    }
    facts(o, &items);
    if !sc.verdicts.is_empty() {
        o.body.push_str("<ul class=\"verdicts\">\n");
        for v in &sc.verdicts {
            w!(
                o.body,
                "<li><strong>{}</strong>: {}</li>\n",
                escape(&verdict_subject(sc, v)),
                escape(v.text())
            );
        }
        o.body.push_str("</ul>\n");
    }
    for dim in [Dimension::Depth, Dimension::Threads] {
        sweep(o, sc, dim);
    }
    together(o, sc);
    layout(o, sc);
    points(o, sc);
    o.close();
}

/// A target as the page names it: `t1 /dev/sda` with several, the path alone with one.
fn name(sc: &ScaleReport, path: &str) -> String {
    match sc.target_number(path) {
        Some(n) => format!("t{n} {path}"),
        None => path.to_string(),
    }
}

fn verdict_subject(sc: &ScaleReport, v: &ScaleVerdict) -> String {
    match v {
        ScaleVerdict::Depth { target, .. } => format!("{}, queue depth", name(sc, target)),
        ScaleVerdict::Threads { target, .. } => format!("{}, threads", name(sc, target)),
        ScaleVerdict::Together { .. } => "all targets together".into(),
        ScaleVerdict::Layout { target, member, .. } => format!("layout {} against member {member}", name(sc, target)),
    }
}

/// Throughput and mean latency along one dimension, one series per target, the knees marked.
fn sweep(o: &mut Out, sc: &ScaleReport, dim: Dimension) {
    let sweeps: Vec<(&String, Vec<(u32, &crate::summary::scale::ScalePoint)>)> = sc
        .targets
        .iter()
        .map(|t| (t, sc.sweep(t, dim)))
        .filter(|(_, s)| s.len() >= 2)
        .collect();
    if sweeps.is_empty() {
        return;
    }
    let (what, axis) = match dim {
        Dimension::Depth => ("queue depth", "Queue depth (I/Os in flight per thread)"),
        Dimension::Threads => ("threads", "Threads (at QD1)"),
    };
    let x = || Axis::log2(axis, "");
    let mut bw = LineChart::new(
        format!("Throughput against {what}"),
        x(),
        Axis::linear("Throughput", "MB/s").from_zero(),
    );
    let typical = sweeps.iter().flat_map(|s| s.1.iter().map(|p| p.1.lat_ns)).fold(0.0, f64::max);
    let (unit, div) = latency_unit(typical);
    let mut lt = LineChart::new(format!("Mean latency against {what}"), x(), Axis::log10("Mean latency", unit));
    for c in [&mut bw, &mut lt] {
        c.width = CHART_W;
        c.height = CHART_H;
    }
    let mut table = Grid::new(&[
        ("Target", false),
        (if dim == Dimension::Depth { "QD" } else { "Threads" }, true),
        ("MB/s", true),
        ("IOPS", true),
        (if unit == "ms" { "Mean latency, ms" } else { "Mean latency, µs" }, true),
        ("iolab CPU busy %", true),
    ]);
    let mut knees = Vec::new();
    for (i, (t, pts)) in sweeps.iter().enumerate() {
        let label = match sc.target_number(t) {
            Some(n) => format!("t{n}"),
            None => "knee".into(),
        };
        let series_name = name(sc, t);
        bw.series.push(
            Series::new(
                series_name.clone(),
                pts.iter().map(|(x, p)| (f64::from(*x), to_mb(p.bw_bytes))).collect(),
            )
            .with_style(SeriesStyle::LineDots)
            .with_color(i),
        );
        lt.series.push(
            Series::new(
                series_name.clone(),
                pts.iter().map(|(x, p)| (f64::from(*x), p.lat_ns / div)).collect(),
            )
            .with_style(SeriesStyle::LineDots)
            .with_color(i),
        );
        for (x, p) in pts {
            table.row(vec![
                series_name.clone(),
                x.to_string(),
                mbs(p.bw_bytes, 1),
                format!("{:.0}", p.iops),
                lat(p.lat_ns, div),
                pct(p.cpu_busy, 0),
            ]);
        }
        if let Some(k) = sc.knee(t, dim) {
            let text = if label == "knee" {
                format!("knee at {}", dim.label(k))
            } else {
                format!("{label} knee at {}", dim.label(k))
            };
            bw.markers.push(Marker::new(text.clone(), f64::from(k)));
            knees.push(format!("{series_name}: {}", dim.label(k)));
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
    let caption = format!(
        "Throughput (MB/s = 10^6 bytes/s) of {} {} against {what} (log2 axis). {knee_text}",
        sc.rw,
        fmt_bs(sc.bs)
    );
    o.figure("scale-sweep", &bw.to_svg(), &caption, &table, false);
    let caption = format!(
        "Mean completion latency ({unit}, log scale) against {what}: where more I/Os in flight stop adding throughput, they add waiting."
    );
    o.figure("scale-sweep", &lt.to_svg(), &caption, &table, false);
}

/// Each target alone and during the run together, with the ideal sum.
fn together(o: &mut Out, sc: &ScaleReport) {
    let Some(v) = sc.verdicts.iter().find_map(|v| match v {
        ScaleVerdict::Together { verdict } => Some(verdict),
        _ => None,
    }) else {
        return;
    };
    let mut cats: Vec<String> = v.targets.iter().map(|t| name(sc, &t.name)).collect();
    cats.push("all together".into());
    let mut chart = BarChart::new("Alone and together", cats.clone(), Axis::linear("Throughput", "MB/s"));
    chart.width = CHART_W;
    chart.height = CHART_H;
    let mut alone: Vec<Option<f64>> = v.targets.iter().map(|t| t.alone_bps.map(to_mb)).collect();
    alone.push(None);
    let mut both: Vec<Option<f64>> = v.targets.iter().map(|t| t.together_bps.map(to_mb)).collect();
    both.push(v.together.map(to_mb));
    chart.groups.push(BarSeries::new("alone", alone));
    chart.groups.push(BarSeries::new("together", both));
    let mut ideal = vec![None; v.targets.len()];
    ideal.push(v.sum_alone.map(to_mb));
    chart.references.push(Reference {
        label: "ideal: the sum alone".into(),
        values: ideal,
    });
    let mut table = Grid::new(&[("Target", false), ("Alone MB/s", true), ("Together MB/s", true), ("Kept", true)]);
    let opt = |v: Option<f64>| v.map(|b| mbs(b, 1)).unwrap_or_else(|| "–".into());
    for (t, c) in v.targets.iter().zip(&cats) {
        table.row(vec![
            c.clone(),
            opt(t.alone_bps),
            opt(t.together_bps),
            t.kept.map(|k| format!("{}%", pct(k, 0))).unwrap_or_else(|| "–".into()),
        ]);
    }
    table.row(vec![
        "all together".into(),
        format!("{} (sum)", opt(v.sum_alone)),
        opt(v.together),
        v.efficiency.map(|e| format!("{}%", pct(e, 0))).unwrap_or_else(|| "–".into()),
    ]);
    let caption = format!(
        "Each target alone and while all ran at once (MB/s = 10^6 bytes/s); the dashed line is the ideal, the sum of the solo rates. Verdict: {}",
        v.text
    );
    o.figure("scale-together", &chart.to_svg(), &caption, &table, false);
}

/// The layout against one of its members, with the textbook expectation.
fn layout(o: &mut Out, sc: &ScaleReport) {
    let Some((lay, member)) = sc.layout_pair() else { return };
    let Some(v) = sc.verdicts.iter().find_map(|v| match v {
        ScaleVerdict::Layout { verdict, .. } => Some(verdict),
        _ => None,
    }) else {
        return;
    };
    let lname = sc.layout.as_ref().map(|l| l.name.clone()).unwrap_or_else(|| "layout".into());
    let cats = vec![
        format!("member {}", member.targets.first().cloned().unwrap_or_default()),
        format!("{lname} {}", lay.targets.first().cloned().unwrap_or_default()),
    ];
    let mut chart = BarChart::new("Layout against its member", cats.clone(), Axis::linear("Throughput", "MB/s"));
    chart.width = CHART_W;
    chart.height = CHART_H;
    chart.groups.push(BarSeries::new(
        format!("QD{} × {} thread(s)", lay.qd, lay.threads),
        vec![Some(to_mb(member.bw_bytes)), Some(to_mb(lay.bw_bytes))],
    ));
    let mut table = Grid::new(&[("What", false), ("MB/s", true), ("IOPS", true), ("Mean latency", true)]);
    for (c, p) in cats.iter().zip([member, lay]) {
        table.row(vec![
            c.clone(),
            mbs(p.bw_bytes, 1),
            format!("{:.0}", p.iops),
            crate::render::scale::lat_cell(p.lat_ns),
        ]);
    }
    if let Some((lo, hi)) = sc.layout_expected_bps() {
        chart.references.push(Reference {
            label: "expected, low".into(),
            values: vec![None, Some(to_mb(lo))],
        });
        if hi > lo {
            chart.references.push(Reference {
                label: "expected, high".into(),
                values: vec![None, Some(to_mb(hi))],
            });
        }
        table.row(vec![
            "expected for the layout".into(),
            if hi > lo {
                format!("{}–{}", mbs(lo, 1), mbs(hi, 1))
            } else {
                mbs(lo, 1)
            },
            String::new(),
            String::new(),
        ]);
    }
    let measured = v
        .measured
        .map(|m| format!(" Measured: {} the member.", fmt_ratio(m)))
        .unwrap_or_default();
    let caption = format!(
        "The layout and one member alone with the same job (MB/s = 10^6 bytes/s); dashed: the textbook expectation for {} members.{measured} Verdict: {}",
        v.members, v.text
    );
    o.figure("scale-layout", &chart.to_svg(), &caption, &table, false);
}

/// Every point, as the terminal table lists them.
fn points(o: &mut Out, sc: &ScaleReport) {
    let mut g = Grid::new(&[
        ("Point", false),
        ("Target", false),
        ("QD", true),
        ("Threads", true),
        ("MB/s", true),
        ("IOPS", true),
        ("Mean latency", true),
        ("iolab CPU busy %", true),
    ]);
    for p in &sc.points {
        let target = if p.targets.len() > 1 {
            format!("all {}", p.targets.len())
        } else {
            p.targets.first().map(|t| name(sc, t)).unwrap_or_default()
        };
        g.row(vec![
            p.kind_name().into(),
            target,
            p.qd.to_string(),
            p.threads.to_string(),
            mbs(p.bw_bytes, 1),
            format!("{:.0}", p.iops),
            crate::render::scale::lat_cell(p.lat_ns),
            pct(p.cpu_busy, 0),
        ]);
    }
    o.body.push_str(&g.html(Some("Every measured point (MB/s = 10^6 bytes/s)")));
}
