//! Grouped bar charts, with whiskers, per-category references and reference lines.

use std::fmt::Write as _;

use super::axis::{Layout, extent, layout};
use super::frame::*;
use super::text::{CatLabel, N, category_labels, escape, exact, plural};
use super::*;

/// A drawable bar: its value and its interval, if any.
type Bar = (f64, Option<(f64, f64)>);

impl BarChart {
    /// A chart of 640 × 320 px with no groups yet.
    pub fn new(title: impl Into<String>, categories: Vec<String>, y: Axis) -> Self {
        BarChart {
            title: title.into(),
            categories,
            groups: Vec::new(),
            y,
            hlines: Vec::new(),
            references: Vec::new(),
            width: DEFAULT_SIZE.0,
            height: DEFAULT_SIZE.1,
        }
    }

    /// The chart as a standalone SVG element.
    pub fn to_svg(&self) -> String {
        let (wu, hu) = canvas(self.width, self.height);
        let mut notes = Vec::new();
        let data = self.drawable(&mut notes);
        let colors = palette(self.groups.iter().map(|g| g.color));
        let at = self.place(&data, &colors, f64::from(wu), f64::from(hu));
        let (p, ylay) = (at.plot, &at.y);

        let mut b = String::new();
        at.head.write(&mut b, &self.title);
        write_frame(&mut b, p, ylay, None);
        let outside = self.write_bars(&mut b, &data.bars, &colors, p, ylay);
        self.write_refs(&mut b, &data.refs, p, ylay);
        write_hlines(&mut b, p, ylay, &data.hlines);
        if outside > 0 {
            notes.push(format!("{outside} bar{} beyond the axis range cut at its edge", plural(outside)));
        }
        if data.total == 0 {
            write_no_data(&mut b, p);
        }
        write_y_labels(&mut b, p, ylay);
        write_category_labels(&mut b, p, &at.cats);
        write_axis_titles(&mut b, p, None, &self.y.title());
        let d = self.describe(&data, ylay, &notes);
        document("bar-chart", wu, hu, data.total, &self.title, &d, &b)
    }

    /// What can be drawn on this axis: bars, their whiskers, references and
    /// lines; what cannot is left out and said in `notes`.
    fn drawable(&self, notes: &mut Vec<String>) -> Drawable<'_> {
        let ys = self.y.scale;
        let n = self.categories.len();
        let mut skipped = 0;
        let bars: Vec<Vec<Option<Bar>>> = self
            .groups
            .iter()
            .map(|g| {
                (0..n)
                    .map(|i| {
                        let v = g.values.get(i).copied().flatten()?;
                        if !ys.accepts(v) {
                            skipped += 1;
                            return None;
                        }
                        let wh = g.whiskers.as_ref().and_then(|ws| ws.get(i).copied().flatten());
                        let wh = wh
                            .filter(|&(a, b)| ys.accepts(a) && ys.accepts(b))
                            .map(|(a, b)| (a.min(b), a.max(b)));
                        Some((v, wh))
                    })
                    .collect()
            })
            .collect();
        if skipped > 0 {
            let why = if ys.is_log() {
                "zero, negative or non-finite (a log axis cannot show them)"
            } else {
                "non-finite"
            };
            notes.push(format!("{skipped} value{} skipped: {why}", plural(skipped)));
        }
        let extra = self.groups.iter().filter(|g| g.values.len() > n).count();
        if extra > 0 {
            notes.push(format!(
                "{extra} group{} had values beyond the last category (not drawn)",
                plural(extra)
            ));
        }
        let total = bars.iter().map(|g| g.iter().flatten().count()).sum();
        let hlines = visible_hlines(&self.hlines, &self.y, notes);
        let refs = self
            .references
            .iter()
            .map(|r| {
                (
                    r.label.as_str(),
                    (0..n)
                        .map(|i| r.values.get(i).copied().flatten().filter(|&v| ys.accepts(v)))
                        .collect(),
                )
            })
            .collect();
        Drawable { bars, total, hlines, refs }
    }

    /// Legend entries: a swatch per group and a line per reference, when there are several of them.
    fn legend(&self, colors: &[usize], refs: &[(&str, Vec<Option<f64>>)]) -> Vec<LegendItem> {
        let mut legend: Vec<LegendItem> = Vec::new();
        if self.groups.len() > 1 || !refs.is_empty() {
            for (g, &c) in self.groups.iter().zip(colors) {
                let color = PALETTE[c % PALETTE.len()];
                legend.push(LegendItem {
                    label: g.name.clone(),
                    color,
                    dash: "",
                    mark: Mark::Swatch,
                    hollow: false,
                });
            }
            for (label, _) in refs {
                legend.push(LegendItem {
                    label: label.to_string(),
                    color: "#000",
                    dash: "3 2",
                    mark: Mark::Line,
                    hollow: false,
                });
            }
        }
        legend
    }

    /// The layout of a `w` × `h` chart: the title and legend above, the
    /// plot with its y axis, and category labels under it, on two lines
    /// when one of them needs it.
    fn place(&self, data: &Drawable, colors: &[usize], w: f64, h: f64) -> Placed {
        let head = Head::new(&self.title, self.legend(colors, &data.refs), w);
        let top = head.plot_top;
        let size = (w, h);
        let yext = data.y_extent(self.y.scale);
        let (mut plot, mut y, mut cats) = self.plot(data, yext, top, size, 0.0);
        if cats.iter().any(|c| c.lines.len() > 1) {
            (plot, y, cats) = self.plot(data, yext, top, size, 1.0);
        }
        Placed { head, plot, y, cats }
    }

    /// The plot from `top` down in a chart of `size` px, its y axis over
    /// `yext` and the category labels, with `extra` lines reserved under
    /// the plot for labels broken in two.
    fn plot(&self, data: &Drawable, yext: Option<(f64, f64)>, top: f64, size: (f64, f64), extra: f64) -> (Plot, Layout, Vec<CatLabel>) {
        let (w, h) = size;
        let n = self.categories.len();
        let bottom = (h - 8.0 - 18.0 - extra * 12.0).max(top + 20.0);
        let ylay = layout(&self.y, yext, bottom, top, false);
        let (mut left, mut right) = margins(&self.y, &ylay, &data.hlines);
        // Room for the first and last labels where they overhang their slots.
        let slot = (w - right - left) / n.max(1) as f64;
        let cats = category_labels(&self.categories, left, w - right - left);
        if let Some(first) = cats.first() {
            left = left.max(first.width() / 2.0 - slot / 2.0 + 4.0);
        }
        if let Some(last) = cats.last().filter(|l| l.index + 1 == n) {
            right = right.max(last.width() / 2.0 - slot / 2.0 + 4.0);
        }
        let (left, right) = leave_room((left, right), w);
        let p = Plot {
            left,
            right: w - right,
            top,
            bottom,
        };
        (p, ylay, category_labels(&self.categories, p.left, p.right - p.left))
    }

    /// The bars, one group after the other, each with its value (and
    /// interval) as a tooltip, then their whiskers. Returns how many lie
    /// beyond the axis range.
    fn write_bars(&self, b: &mut String, bars: &[Vec<Option<Bar>>], colors: &[usize], p: Plot, ylay: &Layout) -> usize {
        let ys = self.y.scale;
        let slot = (p.right - p.left) / self.categories.len().max(1) as f64;
        let per = self.groups.len().max(1) as f64;
        let bw = slot * 0.8 / per;
        let base = if ys.is_log() { p.bottom } else { ylay.px(0.0) };
        let mut whiskers = String::new();
        let mut outside = 0;
        for (gi, (g, gb)) in self.groups.iter().zip(bars).enumerate() {
            let color = PALETTE[colors[gi] % PALETTE.len()];
            w!(b, r#"<g class="bars" data-series="{}" fill="{color}">"#, escape(&g.name));
            for (ci, bar) in gb.iter().enumerate() {
                let Some((v, wh)) = *bar else { continue };
                if ylay.outside(v) {
                    outside += 1;
                }
                let x = p.left + ci as f64 * slot + slot * 0.1 + gi as f64 * bw;
                let width = if bw > 4.0 { bw - 1.0 } else { bw };
                let py = ylay.px(v);
                let (mut y0, mut y1) = (py.min(base), py.max(base));
                if v != 0.0 && y1 - y0 < 1.0 {
                    // A bar too short to see (or hover) is drawn 1 px tall.
                    if ys.is_log() || v > 0.0 { y0 = y1 - 1.0 } else { y1 = y0 + 1.0 }
                }
                let mut tip = format!("{}, {}: {}", self.categories[ci], g.name, self.y.value(v));
                if let Some((lo, hi)) = wh {
                    w!(tip, " (interval {} to {})", exact(lo), exact(hi));
                    write_whisker(
                        &mut whiskers,
                        x + width / 2.0,
                        (ylay.px(lo), ylay.px(hi)),
                        (width / 4.0).clamp(1.0, 4.0),
                    );
                }
                w!(
                    b,
                    r#"<rect class="bar" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>"#,
                    N(x),
                    N(y0),
                    N(width),
                    N(y1 - y0),
                    escape(&tip)
                );
            }
            b.push_str("</g>\n");
        }
        if !whiskers.is_empty() {
            w!(
                b,
                "<g class=\"whiskers\" stroke=\"#222\" stroke-width=\"1.2\" fill=\"none\">{whiskers}</g>\n"
            );
        }
        outside
    }

    /// The references: a dashed line across each category's slot.
    fn write_refs(&self, b: &mut String, refs: &[(&str, Vec<Option<f64>>)], p: Plot, ylay: &Layout) {
        if refs.is_empty() {
            return;
        }
        let slot = (p.right - p.left) / self.categories.len().max(1) as f64;
        b.push_str(r##"<g class="refs" stroke="#000" stroke-width="1.5" stroke-dasharray="3 2">"##);
        for (label, values) in refs {
            for (ci, v) in values.iter().enumerate() {
                let Some(v) = v else { continue };
                w!(
                    b,
                    r#"<path class="ref" d="M{} {}h{}"><title>{}, {}: {}</title></path>"#,
                    N(p.left + ci as f64 * slot + slot * 0.05),
                    N(ylay.px(*v)),
                    N(slot * 0.9),
                    escape(&self.categories[ci]),
                    escape(label),
                    escape(&self.y.value(*v))
                );
            }
        }
        b.push_str("</g>\n");
    }

    /// The description: what a screen reader says instead of the picture.
    fn describe(&self, data: &Drawable, ylay: &Layout, notes: &[String]) -> String {
        let n = self.categories.len();
        let mut d = format!("Bar chart. {n} categor{}", if n == 1 { "y" } else { "ies" });
        if n > 0 {
            let shown: Vec<&str> = self.categories.iter().take(12).map(String::as_str).collect();
            w!(d, ": {}{}", shown.join(", "), if n > 12 { ", …" } else { "" });
        }
        w!(d, ". y: {}, {}.", self.y.title(), ylay.describe());
        if data.total == 0 {
            d.push_str(" No data.");
        }
        for (g, gb) in self.groups.iter().zip(&data.bars) {
            let k = gb.iter().flatten().count();
            w!(d, " {}: {k} bar{}", g.name, plural(k));
            if let Some((a, z)) = extent(gb.iter().flatten().map(|b| b.0)) {
                w!(d, " from {} to {}", self.y.value(a), self.y.value(z));
            }
            d.push('.');
        }
        for (_, _, tip) in &data.hlines {
            w!(d, " Line {tip}.");
        }
        for (label, values) in &data.refs {
            w!(
                d,
                " Reference {label} on {} categor{}.",
                values.iter().flatten().count(),
                if values.len() == 1 { "y" } else { "ies" }
            );
        }
        for note in notes {
            w!(d, " Note: {note}.");
        }
        d
    }
}

/// What a bar chart draws, the undrawable set aside.
struct Drawable<'a> {
    /// Per group, per category.
    bars: Vec<Vec<Option<Bar>>>,
    /// Drawable bars in all groups.
    total: usize,
    /// Lines across: (value, label, tooltip).
    hlines: Vec<(f64, String, String)>,
    /// Per reference: its label and drawable value per category.
    refs: Vec<(&'a str, Vec<Option<f64>>)>,
}

impl Drawable<'_> {
    /// The range of y that bars, whiskers, lines and references span, and
    /// zero on a linear axis (bars stand on it).
    fn y_extent(&self, scale: Scale) -> Option<(f64, f64)> {
        let zero = if scale.is_log() { None } else { Some(0.0) };
        extent(
            self.bars
                .iter()
                .flatten()
                .flatten()
                .flat_map(|&(v, wh)| [Some(v), wh.map(|w| w.0), wh.map(|w| w.1)])
                .chain(self.hlines.iter().map(|l| Some(l.0)))
                .chain(self.refs.iter().flat_map(|r| r.1.iter().copied()))
                .chain([zero])
                .flatten(),
        )
    }
}

/// Where a bar chart's parts go.
struct Placed {
    head: Head,
    plot: Plot,
    y: Layout,
    cats: Vec<CatLabel>,
}

/// A whisker at `cx` from pixel `ends.0` to `ends.1`, with caps `cap` px to either side.
fn write_whisker(out: &mut String, cx: f64, ends: (f64, f64), cap: f64) {
    let (a, z) = ends;
    w!(
        out,
        r#"<path class="whisker" d="M{} {}V{}M{} {}h{}M{} {}h{}"/>"#,
        N(cx),
        N(a),
        N(z),
        N(cx - cap),
        N(a),
        N(2.0 * cap),
        N(cx - cap),
        N(z),
        N(2.0 * cap)
    );
}

/// The category labels under the plot, centred on their slots, a second line as a `<tspan>`.
fn write_category_labels(b: &mut String, p: Plot, cats: &[CatLabel]) {
    b.push_str(r##"<g class="ticks-x" text-anchor="middle" fill="#333">"##);
    for c in cats {
        w!(b, r#"<text x="{}" y="{}">{}"#, N(c.x), N(p.bottom + 15.0), escape(&c.lines[0]));
        for line in &c.lines[1..] {
            w!(b, r#"<tspan x="{}" dy="12">{}</tspan>"#, N(c.x), escape(line));
        }
        b.push_str("</text>");
    }
    b.push_str("</g>\n");
}
