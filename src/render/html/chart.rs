//! A view's [`Chart`] on the page: drawn by [`crate::render::svg`] in the
//! page's display units (bandwidth in MB/s; positions in GiB, or MiB under
//! a GiB; latencies in µs, or ms when every one is a millisecond or more),
//! with its numbers in a table beside or under it (folded when long).

use super::{CHART_H, CHART_W, FMT, Grid, Out, SHOWS};
use crate::render::svg::{self, Band, BarChart, BarSeries, HLine, LineChart, Marker, Series, TickFormat};
use crate::render::view::{Axis, Chart, Place, Plot, Quantity, Table, Ticks};
use std::cell::RefCell;

/// A chart table longer than this is folded into a `<details>`.
const FOLD_ROWS: usize = 12;

/// The chart, its caption and its numbers, as one `<figure>`.
pub(super) fn figure(o: &mut Out, c: &Chart) {
    let svg = to_svg(c);
    let table = grid(&c.numbers, SHOWS);
    let fold = table.rows.len() > FOLD_ROWS;
    o.figure(&c.kind, &svg, &c.caption.plain(&FMT), &table, fold);
}

/// A view's table as the page's data table (figures right-aligned).
pub(super) fn grid(t: &Table, shows: &[crate::render::view::Detail]) -> Grid {
    let cols = t.shown(shows);
    let mut g = Grid {
        head: cols.iter().map(|&i| t.columns[i].heading(&FMT)).collect(),
        num: cols
            .iter()
            .map(|&i| t.columns[i].align == crate::render::view::Align::Right)
            .collect(),
        rows: Vec::new(),
        group: t.grouped,
    };
    for r in &t.rows {
        g.row(
            cols.iter()
                .map(|&i| r.cells.get(i).map(|c| c.human(&FMT, Place::Column)).unwrap_or_default())
                .collect(),
        );
    }
    g
}

/// The unit a quantity is drawn in, and what its values are divided by;
/// `values` are those drawn on the axis.
fn display(q: &Quantity, values: impl Iterator<Item = f64>) -> (String, f64) {
    let (mut max, mut least) = (0.0f64, f64::INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        max = max.max(v);
        if v > 0.0 {
            least = least.min(v);
        }
    }
    match q {
        Quantity::Bandwidth => (FMT.bw.label().into(), FMT.bw.bytes()),
        Quantity::Bytes if max >= (1u64 << 30) as f64 => ("GiB".into(), (1u64 << 30) as f64),
        Quantity::Bytes => ("MiB".into(), (1u64 << 20) as f64),
        Quantity::Latency if least >= 1e6 && least.is_finite() => ("ms".into(), 1e6),
        Quantity::Latency => ("µs".into(), 1e3),
        Quantity::Seconds => ("s".into(), 1.0),
        Quantity::Number(u) => (u.clone(), 1.0),
    }
}

thread_local! {
    /// The names of [`Ticks::Named`] for the chart being drawn: svg's tick
    /// format is a plain `fn`, so the names reach it through here for the
    /// length of one `to_svg` call.
    static NAMES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// A tick at an integer position, named; nothing between names.
fn named(v: f64) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-9 || i < 0.0 {
        return String::new();
    }
    NAMES.with(|n| n.borrow().get(i as usize).cloned().unwrap_or_default())
}

fn axis(a: &Axis, unit: String, div: f64) -> svg::Axis {
    let format = match &a.ticks {
        Ticks::Auto => TickFormat::Auto,
        Ticks::BlockSizes => TickFormat::Binary,
        Ticks::Named(_) => TickFormat::Custom(named),
    };
    svg::Axis::new(a.label.clone(), unit, a.scale)
        .with_range(a.min.map(|v| v / div), a.max.map(|v| v / div))
        .with_format(format)
}

/// The chart as inline SVG.
pub(super) fn to_svg(c: &Chart) -> String {
    let names = [&c.y]
        .into_iter()
        .chain(match &c.plot {
            Plot::Lines { x, .. } => Some(x),
            Plot::Bars { .. } => None,
        })
        .find_map(|a| match &a.ticks {
            Ticks::Named(n) => Some(n.clone()),
            _ => None,
        })
        .unwrap_or_default();
    NAMES.with(|n| *n.borrow_mut() = names);
    let svg = match &c.plot {
        Plot::Lines { x, series } => lines(c, x, series),
        Plot::Bars {
            categories,
            groups,
            references,
        } => {
            let ys = groups.iter().flat_map(|g| g.values.iter().flatten().copied());
            let (yu, yd) = display(&c.y.quantity, ys.chain(c.hlines.iter().map(|h| h.value)));
            let scale = |v: &[Option<f64>]| v.iter().map(|v| v.map(|v| v / yd)).collect::<Vec<_>>();
            let mut chart = BarChart::new(c.title.clone(), categories.clone(), axis(&c.y, yu, yd));
            chart.width = CHART_W;
            chart.height = CHART_H;
            for g in groups {
                let whiskers = g
                    .whiskers
                    .as_ref()
                    .map(|w| w.iter().map(|w| w.map(|(l, h)| (l / yd, h / yd))).collect());
                chart.groups.push(BarSeries {
                    values: scale(&g.values),
                    whiskers,
                    ..g.clone()
                });
            }
            chart.references = references
                .iter()
                .map(|r| svg::Reference {
                    label: r.label.clone(),
                    values: scale(&r.values),
                })
                .collect();
            chart.hlines = hlines(c, yd);
            chart.to_svg()
        }
    };
    NAMES.with(|n| n.borrow_mut().clear());
    svg
}

/// The chart's horizontal lines, in the display unit (values divided by `div`).
fn hlines(c: &Chart, div: f64) -> Vec<HLine> {
    c.hlines.iter().map(|h| HLine::new(h.label.clone(), h.value / div)).collect()
}

fn lines(c: &Chart, x: &Axis, series: &[Series]) -> String {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).chain(x.max);
    let ys = series.iter().flat_map(|s| {
        s.points
            .iter()
            .map(|p| p.1)
            .chain(s.spread.iter().flatten().flat_map(|r| [r.0, r.1]))
    });
    let (xu, xd) = display(&x.quantity, xs);
    let (yu, yd) = display(&c.y.quantity, ys.chain(c.hlines.iter().map(|h| h.value)));
    let mut chart = LineChart::new(c.title.clone(), axis(x, xu, xd), axis(&c.y, yu, yd));
    chart.width = CHART_W;
    chart.height = CHART_H;
    chart.series = series
        .iter()
        .map(|s| Series {
            points: s.points.iter().map(|&(a, b)| (a / xd, b / yd)).collect(),
            spread: s.spread.as_ref().map(|v| v.iter().map(|&(lo, hi)| (lo / yd, hi / yd)).collect()),
            ..s.clone()
        })
        .collect();
    chart.hlines = hlines(c, yd);
    chart.markers = c.markers.iter().map(|m| Marker::new(m.label.clone(), m.x / xd)).collect();
    chart.bands = c.bands.iter().map(|b| Band::new(b.label.clone(), b.from / xd, b.to / xd)).collect();
    chart.to_svg()
}
