//! Long series drawn bounded: a chart whose series hold more points than
//! [`MAX_DRAWN_POINTS`] draws each series as an envelope, the median of
//! each bucket of equal x width as its line and the bucket's min to max as
//! a shaded band, and says so in its caption. The exports of records (the
//! JSON document, CSV) are not touched: they keep every point.
//!
//! A bucket keeps its exact min and max, so a one-second spike or a
//! one-zone dip stays on the chart; only the points between them are
//! folded. Short series are drawn as they were.

use super::view::{Chart, Column, Plot, Quantity, Table};

/// The most points a chart draws one by one, all its series together.
/// A drawn point costs about 130 bytes of SVG (its stretch of path and its
/// tooltip), so 2,000 keep a chart near 250 KB and a day-long run's page
/// (a timeline and each device's curve per test, issue 27) under 2 MB;
/// 2,000 is also about three points per pixel of the page's 640-px plot,
/// more than a screen can show.
pub const MAX_DRAWN_POINTS: usize = 2_000;

/// The most points a run's per-second charts draw together (its tests'
/// timelines and devices per second): each of `k` such charts draws at
/// most `MAX_PAGE_POINTS / k` (never more than [`MAX_DRAWN_POINTS`]), so
/// that a battery of 8 tests of any length stays under 2 MB (8 charts of
/// 1,000 points and a table of as many rows, some 220 KB each), while the
/// default battery, and 8 tests of 3 × 300 s (901 points each), are drawn
/// one point a second.
pub const MAX_PAGE_POINTS: usize = 8_000;

/// What each of `charts` charts of one page may draw.
pub fn share(charts: usize) -> usize {
    (MAX_PAGE_POINTS / charts.max(1)).min(MAX_DRAWN_POINTS)
}

/// The most rows of the numbers table beside a folded chart: its buckets
/// again, coarser, so that the table is read rather than scrolled.
pub const TABLE_BUCKETS: usize = 48;

/// The most shaded windows (runs, rounds) and markers a folded chart
/// keeps: a band costs some 150 bytes, and a scan's zones job has a run,
/// so a window, per zone (10,000 and more). Past it they are left out,
/// and the caption says so.
pub const MAX_MARKS: usize = 100;

/// The points whose x falls in `[t0, t1)`, folded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub t0: f64,
    pub t1: f64,
    /// How many points it holds (at least one).
    pub n: usize,
    pub min: f64,
    /// The middle value; for an even count, the mean of the two middle ones.
    pub median: f64,
    pub max: f64,
}

/// A bucket width that is a whole number of `step`s (a second, a zone)
/// and fits `span` into at most `max_buckets` buckets.
pub fn bucket_width(span: f64, max_buckets: usize, step: f64) -> f64 {
    let steps = (span / step / max_buckets.max(1) as f64).ceil().max(1.0);
    steps * step
}

/// `points` in buckets `[origin + k·width, origin + (k + 1)·width)`, in
/// order of x; empty buckets are left out, as are points with a
/// non-finite coordinate. Points before `origin` count in the first bucket.
pub fn buckets(points: &[(f64, f64)], origin: f64, width: f64) -> Vec<Bucket> {
    let mut by: std::collections::BTreeMap<u64, Vec<f64>> = std::collections::BTreeMap::new();
    for &(x, y) in points {
        if !x.is_finite() || !y.is_finite() {
            continue;
        }
        let k = ((x - origin) / width).floor().max(0.0) as u64;
        by.entry(k).or_default().push(y);
    }
    by.into_iter()
        .map(|(k, mut ys)| {
            ys.sort_by(f64::total_cmp);
            let n = ys.len();
            let median = if !n.is_multiple_of(2) {
                ys[n / 2]
            } else {
                (ys[n / 2 - 1] + ys[n / 2]) / 2.0
            };
            let t0 = origin + k as f64 * width;
            Bucket {
                t0,
                t1: t0 + width,
                n,
                min: ys[0],
                median,
                max: ys[n - 1],
            }
        })
        .collect()
}

/// The points in at most `max_buckets` buckets of equal width spanning
/// their x range (the last point closes the last bucket).
pub fn envelope(points: &[(f64, f64)], max_buckets: usize) -> Vec<Bucket> {
    let xs = points.iter().map(|p| p.0).filter(|x| x.is_finite());
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if lo > hi {
        return Vec::new();
    }
    // Widened by a hair so that the last point falls inside the last bucket.
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let width = span / max_buckets.max(1) as f64 * (1.0 + 1e-9);
    buckets(points, lo, width)
}

/// What [`fold`] did to a chart, for its caption.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fold {
    /// Points in all its series.
    pub points: usize,
    /// Steps per drawn bucket.
    pub steps: u64,
    /// Steps per row of its numbers table.
    pub table_steps: u64,
    /// Windows (bands) and markers left out, past [`MAX_MARKS`] of each.
    pub marks_dropped: usize,
}

/// Folds a line chart whose series hold more than [`MAX_DRAWN_POINTS`]
/// points: each series becomes its buckets (the median drawn at the
/// bucket's middle, min and max as its band), of one width for all, a
/// whole number of `step`s from `origin`; the numbers table becomes
/// coarser buckets (at most [`TABLE_BUCKETS`] rows of each series' min,
/// median and max). A chart within the bound is left as it is (`None`).
pub fn fold(c: &mut Chart, origin: f64, step: f64) -> Option<Fold> {
    fold_to(c, origin, step, MAX_DRAWN_POINTS)
}

/// [`fold`] with a bound of `max_points` (at least one per series) rather
/// than [`MAX_DRAWN_POINTS`]: a chart's [`share`] of its page.
pub fn fold_to(c: &mut Chart, origin: f64, step: f64, max_points: usize) -> Option<Fold> {
    let y = c.y.quantity.clone();
    let Plot::Lines { x, series } = &mut c.plot else { return None };
    let points: usize = series.iter().map(|s| s.points.len()).sum();
    if points <= max_points || series.is_empty() {
        return None;
    }
    let mut marks_dropped = 0;
    if c.bands.len() > MAX_MARKS {
        marks_dropped += std::mem::take(&mut c.bands).len();
    }
    if c.markers.len() > MAX_MARKS {
        marks_dropped += std::mem::take(&mut c.markers).len();
    }
    let end = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .filter(|v| v.is_finite())
        .chain(x.max)
        .fold(origin, f64::max);
    let span = end - origin;
    let width = bucket_width(span, (max_points / series.len()).max(1), step);
    let table_width = bucket_width(span, TABLE_BUCKETS, width);
    let mut cols = vec![
        Column::figure("From", format!("from_{}", unit_key(&x.quantity))),
        Column::figure("To", format!("to_{}", unit_key(&x.quantity))),
    ];
    let mut coarse = Vec::new();
    for s in series.iter_mut() {
        for what in ["min", "median", "max"] {
            let label = format!("{} {what}", s.name);
            let key = format!("{}_{what}_{}", s.name.replace(' ', "_"), unit_key(&y));
            cols.push(if y == Quantity::Bandwidth {
                Column::bandwidth(label, key)
            } else {
                Column::figure(label, key)
            });
        }
        coarse.push(buckets(&s.points, origin, table_width));
        let b = buckets(&s.points, origin, width);
        s.points = b.iter().map(|b| ((b.t0 + b.t1) / 2.0, b.median)).collect();
        s.spread = Some(b.iter().map(|b| (b.min, b.max)).collect());
        s.style = super::view::SeriesStyle::Line;
    }
    let mut t = Table::new(cols);
    let mut starts: Vec<f64> = coarse.iter().flatten().map(|b| b.t0).collect();
    starts.sort_by(f64::total_cmp);
    starts.dedup();
    for t0 in starts {
        let mut row = vec![x.quantity.coarse(t0), x.quantity.coarse((t0 + table_width).min(end))];
        for b in &coarse {
            match b.iter().find(|b| b.t0 == t0) {
                Some(b) => row.extend([b.min, b.median, b.max].map(|v| y.exact(v))),
                None => row.extend([(); 3].map(|_| super::view::Cell::Empty)),
            }
        }
        t.row(row);
    }
    c.numbers = t;
    Some(Fold {
        points,
        steps: (width / step).round() as u64,
        table_steps: (table_width / step).round() as u64,
        marks_dropped,
    })
}

impl Fold {
    /// What a folded chart's caption says: `unit` names one step
    /// ("second", "zone"), `all` where every point is kept.
    pub fn sentence(&self, unit: &str, all: &str) -> String {
        let n = |k: u64| {
            if k == 1 {
                format!("1 {unit}")
            } else {
                format!("{} {unit}s", thousands(k as usize))
            }
        };
        let marks = match self.marks_dropped {
            0 => String::new(),
            d => format!(" Its {} windows and marks are too many to shade and are left out.", thousands(d)),
        };
        format!(
            " Too many points to draw one by one ({}): each point drawn is the min/median/max of {}, the line the median and the shaded band min to max; the table gives each {} the same way.{marks} {all} every {unit}.",
            thousands(self.points),
            n(self.steps),
            n(self.table_steps),
        )
    }
}

/// `n` with a comma between groups of three digits: 86,400.
pub fn thousands(n: usize) -> String {
    let d = n.to_string();
    let mut s = String::new();
    for (i, ch) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            s.push(',');
        }
        s.push(ch);
    }
    s
}

/// A column key's unit suffix for values of `q`.
fn unit_key(q: &Quantity) -> &'static str {
    match q {
        Quantity::Bandwidth => "bytes_per_s",
        Quantity::Bytes => "bytes",
        Quantity::Latency => "ns",
        Quantity::Seconds => "s",
        Quantity::Number(_) => "value",
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
