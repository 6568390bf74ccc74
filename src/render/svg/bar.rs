//! Grouped bar charts, with whiskers, per-category references and reference lines.

use std::fmt::Write as _;

use super::axis::{extent, layout};
use super::frame::*;
use super::text::{N, category_labels, escape, exact, plural, text_width};
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
            width: 640,
            height: 320,
        }
    }

    /// The chart as a standalone SVG element.
    pub fn to_svg(&self) -> String {
        let (wu, hu) = (self.width.max(160), self.height.max(100));
        let (w, h) = (f64::from(wu), f64::from(hu));
        let ys = self.y.scale;
        let n = self.categories.len();
        let mut notes = Vec::new();

        // The drawable value and interval of every bar: [group][category].
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
        let total: usize = bars.iter().map(|g| g.iter().flatten().count()).sum();
        let hlines = visible_hlines(&self.hlines, &self.y, &mut notes);
        let refs: Vec<(&str, Vec<Option<f64>>)> = self
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

        let zero = if ys.is_log() { None } else { Some(0.0) };
        let yext = extent(
            bars.iter()
                .flatten()
                .flatten()
                .flat_map(|&(v, wh)| [Some(v), wh.map(|w| w.0), wh.map(|w| w.1)])
                .chain(hlines.iter().map(|l| Some(l.0)))
                .chain(refs.iter().flat_map(|r| r.1.iter().copied()))
                .chain([zero])
                .flatten(),
        );

        let colors: Vec<usize> = self.groups.iter().enumerate().map(|(i, g)| color_of(g.color, i)).collect();
        let mut legend: Vec<LegendItem> = Vec::new();
        if self.groups.len() > 1 || !refs.is_empty() {
            for (g, &c) in self.groups.iter().zip(&colors) {
                let color = PALETTE[c % PALETTE.len()];
                legend.push(LegendItem {
                    label: g.name.clone(),
                    color,
                    dash: "",
                    mark: Mark::Swatch,
                    hollow: false,
                });
            }
            for (label, _) in &refs {
                legend.push(LegendItem {
                    label: label.to_string(),
                    color: "#000",
                    dash: "3 2",
                    mark: Mark::Line,
                    hollow: false,
                });
            }
        }
        let (legend_pos, legend_rows) = legend_positions(&legend, w);

        let title_h = if self.title.is_empty() { 0.0 } else { 20.0 };
        let legend_top = 6.0 + title_h;
        let top = legend_top + legend_rows as f64 * 16.0 + 8.0;
        let y_title = self.y.title();
        // The plot, y axis and category labels, with `extra` lines reserved
        // under the plot for labels broken in two.
        let place = |extra: f64| {
            let bottom = (h - 8.0 - 18.0 - extra * 12.0).max(top + 20.0);
            let ylay = layout(&self.y, yext, bottom, top, false);
            let mut left = 8.0 + if y_title.is_empty() { 0.0 } else { 16.0 } + ylay.widest_label() + 6.0;
            let mut right = 12.0f64.max(hlines.iter().map(|l| text_width(&l.1)).fold(0.0, f64::max) + 10.0);
            // Room for the first and last labels where they overhang their slots.
            let slot = (w - right - left) / n.max(1) as f64;
            let cats = category_labels(&self.categories, left, w - right - left);
            if let Some(first) = cats.first() {
                left = left.max(first.width() / 2.0 - slot / 2.0 + 4.0);
            }
            if let Some(last) = cats.last().filter(|l| l.index + 1 == n) {
                right = right.max(last.width() / 2.0 - slot / 2.0 + 4.0);
            }
            if w - right - left < 40.0 {
                right = 8.0;
                left = left.min(w - 48.0);
            }
            let p = Plot {
                left,
                right: w - right,
                top,
                bottom,
            };
            (p, ylay, category_labels(&self.categories, p.left, p.right - p.left))
        };
        let (mut p, mut ylay, mut cats) = place(0.0);
        if cats.iter().any(|c| c.lines.len() > 1) {
            (p, ylay, cats) = place(1.0);
        }

        let mut b = String::new();
        write_title(&mut b, &self.title);
        write_legend(&mut b, &legend, &legend_pos, legend_top, w);
        write_frame(&mut b, p, &ylay, None);

        let slot = (p.right - p.left) / n.max(1) as f64;
        let per = self.groups.len().max(1) as f64;
        let bw = slot * 0.8 / per;
        let base = if ys.is_log() { p.bottom } else { ylay.px(0.0) };
        let mut whiskers = String::new();
        let mut outside = 0;
        for (gi, (g, gb)) in self.groups.iter().zip(&bars).enumerate() {
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
                    let (cx, a, z) = (x + width / 2.0, ylay.px(lo), ylay.px(hi));
                    let cap = (width / 4.0).clamp(1.0, 4.0);
                    w!(
                        whiskers,
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
        if !refs.is_empty() {
            b.push_str(r##"<g class="refs" stroke="#000" stroke-width="1.5" stroke-dasharray="3 2">"##);
            for (label, values) in &refs {
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
        write_hlines(&mut b, p, &ylay, &hlines);
        if outside > 0 {
            notes.push(format!("{outside} bar{} beyond the axis range cut at its edge", plural(outside)));
        }
        if total == 0 {
            write_no_data(&mut b, p);
        }

        write_y_labels(&mut b, p, &ylay);
        b.push_str(r##"<g class="ticks-x" text-anchor="middle" fill="#333">"##);
        for c in &cats {
            w!(b, r#"<text x="{}" y="{}">{}"#, N(c.x), N(p.bottom + 15.0), escape(&c.lines[0]));
            for line in &c.lines[1..] {
                w!(b, r#"<tspan x="{}" dy="12">{}</tspan>"#, N(c.x), escape(line));
            }
            b.push_str("</text>");
        }
        b.push_str("</g>\n");
        write_axis_titles(&mut b, p, None, &y_title);

        let mut d = format!("Bar chart. {n} categor{}", if n == 1 { "y" } else { "ies" });
        if n > 0 {
            let shown: Vec<&str> = self.categories.iter().take(12).map(String::as_str).collect();
            w!(d, ": {}{}", shown.join(", "), if n > 12 { ", …" } else { "" });
        }
        w!(d, ". y: {}, {}.", y_title, ylay.describe());
        if total == 0 {
            d.push_str(" No data.");
        }
        for (g, gb) in self.groups.iter().zip(&bars) {
            let k = gb.iter().flatten().count();
            w!(d, " {}: {k} bar{}", g.name, plural(k));
            if let Some((a, z)) = extent(gb.iter().flatten().map(|b| b.0)) {
                w!(d, " from {} to {}", self.y.value(a), self.y.value(z));
            }
            d.push('.');
        }
        for (_, _, tip) in &hlines {
            w!(d, " Line {tip}.");
        }
        for (label, values) in &refs {
            w!(
                d,
                " Reference {label} on {} categor{}.",
                values.iter().flatten().count(),
                if values.len() == 1 { "y" } else { "ies" }
            );
        }
        for note in &notes {
            w!(d, " Note: {note}.");
        }
        document("bar-chart", wu, hu, total, &self.title, &d, &b)
    }
}
