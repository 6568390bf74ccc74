//! The parts every chart shares: the SVG root with its title,
//! description and ids, the chart title, the legend, the grid and axis
//! lines, tick labels, axis titles and horizontal reference lines.

use std::fmt::Write as _;

use super::axis::Layout;
use super::text::{N, escape, exact, fit_text, text_width};
use super::{Axis, FONT, HLine};

/// The plot rectangle inside the chart.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plot {
    pub(super) left: f64,
    pub(super) right: f64,
    pub(super) top: f64,
    pub(super) bottom: f64,
}

/// One legend entry: a line sample (dashed as its series) and/or a dot, or a swatch.
pub(super) struct LegendItem {
    pub(super) label: String,
    pub(super) color: &'static str,
    pub(super) dash: &'static str,
    pub(super) mark: Mark,
    pub(super) hollow: bool,
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    Line,
    Dot,
    LineDot,
    Swatch,
}

/// A new chart's size in px, until its caller sets one.
pub(super) const DEFAULT_SIZE: (u32, u32) = (640, 320);

/// The smallest chart, in px, that has room for a plot.
const MIN_SIZE: (u32, u32) = (160, 100);

/// A chart's size in px: as asked, at least [`MIN_SIZE`].
pub(super) fn canvas(width: u32, height: u32) -> (u32, u32) {
    (width.max(MIN_SIZE.0), height.max(MIN_SIZE.1))
}

/// Each series' or group's palette index: its own colour, else its position.
pub(super) fn palette(colors: impl Iterator<Item = Option<usize>>) -> Vec<usize> {
    colors.enumerate().map(|(i, c)| c.unwrap_or(i)).collect()
}

/// What every chart draws above its plot: the title, then the legend in
/// rows across the chart's width.
pub(super) struct Head {
    legend: Vec<LegendItem>,
    pos: Vec<(f64, usize)>,
    legend_top: f64,
    /// Where the plot may begin.
    pub(super) plot_top: f64,
    width: f64,
}

impl Head {
    pub(super) fn new(title: &str, legend: Vec<LegendItem>, width: f64) -> Head {
        let (pos, rows) = legend_positions(&legend, width);
        let legend_top = 6.0 + if title.is_empty() { 0.0 } else { 20.0 };
        Head {
            plot_top: legend_top + rows as f64 * 16.0 + 8.0,
            legend,
            pos,
            legend_top,
            width,
        }
    }

    pub(super) fn write(&self, b: &mut String, title: &str) {
        write_title(b, title);
        write_legend(b, &self.legend, &self.pos, self.legend_top, self.width);
    }
}

/// The plot's margins left and right: room for the y tick labels and
/// title on the left, for the labels of lines across the chart on the right.
pub(super) fn margins(y: &Axis, ylay: &Layout, hlines: &[(f64, String, String)]) -> (f64, f64) {
    let left = 8.0 + if y.title().is_empty() { 0.0 } else { 16.0 } + ylay.widest_label() + 6.0;
    let right = 12.0f64.max(hlines.iter().map(|l| text_width(&l.1)).fold(0.0, f64::max) + 10.0);
    (left, right)
}

/// Margins that still leave a plot in a chart `w` px wide: when they do
/// not, the right one gives way first.
pub(super) fn leave_room((left, right): (f64, f64), w: f64) -> (f64, f64) {
    if w - right - left < 40.0 {
        (left.min(w - 48.0), 8.0)
    } else {
        (left, right)
    }
}

/// Legend entries laid out in rows across `w` px from x = 8: (x, row) each, and the number of rows.
fn legend_positions(items: &[LegendItem], w: f64) -> (Vec<(f64, usize)>, usize) {
    let (mut x, mut row) = (8.0, 0);
    let mut pos = Vec::new();
    for it in items {
        let iw = 24.0 + text_width(&fit_text(&it.label, w - 48.0)) + 14.0;
        if x > 8.0 && x + iw > w - 8.0 {
            x = 8.0;
            row += 1;
        }
        pos.push((x, row));
        x += iw;
    }
    let rows = if items.is_empty() { 0 } else { row + 1 };
    (pos, rows)
}

fn write_legend(b: &mut String, items: &[LegendItem], pos: &[(f64, usize)], top: f64, w: f64) {
    if items.is_empty() {
        return;
    }
    b.push_str("<g class=\"legend\">");
    for (it, &(x, row)) in items.iter().zip(pos) {
        let y = top + 8.0 + row as f64 * 16.0;
        if matches!(it.mark, Mark::Line | Mark::LineDot) {
            w!(b, r#"<path d="M{} {}h18" stroke="{}" stroke-width="2""#, N(x), N(y), it.color);
            if !it.dash.is_empty() {
                w!(b, r#" stroke-dasharray="{}""#, it.dash);
            }
            b.push_str("/>");
        }
        if it.mark == Mark::Swatch {
            w!(
                b,
                r#"<rect x="{}" y="{}" width="14" height="10" fill="{}"/>"#,
                N(x + 2.0),
                N(y - 5.0),
                it.color
            );
        }
        if matches!(it.mark, Mark::Dot | Mark::LineDot) {
            let fill = if it.hollow { "#fff" } else { it.color };
            w!(
                b,
                r#"<circle cx="{}" cy="{}" r="2.5" fill="{fill}" stroke="{}"/>"#,
                N(x + 9.0),
                N(y),
                it.color
            );
        }
        w!(
            b,
            r#"<text x="{}" y="{}">{}</text>"#,
            N(x + 24.0),
            N(y + 4.0),
            escape(&fit_text(&it.label, w - 48.0))
        );
    }
    b.push_str("</g>\n");
}

/// Grid lines and the axis lines with tick marks: y ticks always, x ticks when given.
pub(super) fn write_frame(b: &mut String, p: Plot, y: &Layout, x: Option<&Layout>) {
    let mut grid = String::new();
    let mut axis = format!("M{} {}V{}H{}", N(p.left), N(p.top), N(p.bottom), N(p.right));
    for (v, _) in &y.ticks {
        let py = y.px(*v);
        w!(grid, "M{} {}H{}", N(p.left), N(py), N(p.right));
        w!(axis, "M{} {}h4", N(p.left - 4.0), N(py));
    }
    if let Some(x) = x {
        for (v, _) in &x.ticks {
            let px = x.px(*v);
            w!(grid, "M{} {}V{}", N(px), N(p.top), N(p.bottom));
            w!(axis, "M{} {}v4", N(px), N(p.bottom));
        }
    }
    w!(
        b,
        "<path class=\"grid\" stroke=\"#e3e3e3\" d=\"{grid}\"/>\n<path class=\"axis\" stroke=\"#333\" fill=\"none\" d=\"{axis}\"/>\n"
    );
}

/// Labels of the y ticks, right-aligned left of the plot.
pub(super) fn write_y_labels(b: &mut String, p: Plot, y: &Layout) {
    b.push_str(r##"<g class="ticks-y" text-anchor="end" fill="#333">"##);
    for (v, l) in &y.ticks {
        w!(b, r#"<text x="{}" y="{}">{}</text>"#, N(p.left - 6.0), N(y.px(*v) + 4.0), escape(l));
    }
    b.push_str("</g>\n");
}

/// The axis titles: x centred under the plot on the given baseline, y turned up along the left edge.
pub(super) fn write_axis_titles(b: &mut String, p: Plot, x_title: Option<(&str, f64)>, y_title: &str) {
    if let Some((t, ty)) = x_title.filter(|t| !t.0.is_empty()) {
        w!(
            b,
            r#"<text class="axis-label" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            N((p.left + p.right) / 2.0),
            N(ty),
            escape(t)
        );
    }
    if !y_title.is_empty() {
        w!(
            b,
            r#"<text class="axis-label" transform="rotate(-90)" x="{}" y="14" text-anchor="middle">{}</text>"#,
            N(-(p.top + p.bottom) / 2.0),
            escape(y_title)
        );
    }
    b.push('\n');
}

/// Horizontal lines across the plot, labelled in the right margin (labels
/// pushed apart to a line height).
pub(super) fn write_hlines(b: &mut String, p: Plot, y: &Layout, lines: &[(f64, String, String)]) {
    if lines.is_empty() {
        return;
    }
    b.push_str(r##"<g class="hlines" stroke="#555" stroke-dasharray="5 3">"##);
    for (v, _, tip) in lines {
        w!(
            b,
            r#"<path class="hline" d="M{} {}H{}"><title>{}</title></path>"#,
            N(p.left),
            N(y.px(*v)),
            N(p.right),
            escape(tip)
        );
    }
    b.push_str("</g>\n");
    let mut at: Vec<(f64, &str)> = lines.iter().map(|(v, l, _)| (y.px(*v) + 4.0, l.as_str())).collect();
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    for i in 1..at.len() {
        at[i].0 = at[i].0.max(at[i - 1].0 + FONT + 1.0);
    }
    // Pushed below the plot: push back up from the bottom.
    let mut limit = p.bottom + 4.0;
    for a in at.iter_mut().rev() {
        a.0 = a.0.min(limit);
        limit = a.0 - FONT - 1.0;
    }
    b.push_str(r##"<g class="hline-labels" fill="#333">"##);
    for (ly, l) in at {
        w!(b, r#"<text x="{}" y="{}">{}</text>"#, N(p.right + 4.0), N(ly), escape(l));
    }
    b.push_str("</g>\n");
}

/// The whole document around a chart's body.
pub(super) fn document(kind: &str, w: u32, h: u32, n: usize, title: &str, desc: &str, body: &str) -> String {
    let title = if title.is_empty() { "Chart" } else { title };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [kind, title, desc, body] {
        for byte in part.bytes().chain([0xff]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let id = format!("c{:08x}", (hash ^ (hash >> 32)) as u32);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" \
         aria-labelledby=\"{id}-t {id}-d\" class=\"chart {kind}\" data-points=\"{n}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>\n{body}</svg>\n",
        escape(title),
        escape(desc)
    )
}

fn write_title(b: &mut String, title: &str) {
    if !title.is_empty() {
        w!(
            b,
            "<text class=\"chart-title\" x=\"8\" y=\"16\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
            escape(title)
        );
    }
}

pub(super) fn write_no_data(b: &mut String, p: Plot) {
    w!(
        b,
        "<text class=\"no-data\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#666\">no data</text>\n",
        N((p.left + p.right) / 2.0),
        N((p.top + p.bottom) / 2.0)
    );
}

/// Lines across the chart that can be drawn on `y`, as (value, label, tooltip); notes the others.
pub(super) fn visible_hlines(lines: &[HLine], y: &Axis, notes: &mut Vec<String>) -> Vec<(f64, String, String)> {
    let mut out = Vec::new();
    for l in lines {
        if y.scale.accepts(l.value) {
            let v = y.value(l.value);
            let shown = if l.label.is_empty() {
                exact(l.value)
            } else {
                format!("{} {}", l.label, exact(l.value))
            };
            out.push((l.value, shown, if l.label.is_empty() { v } else { format!("{}: {v}", l.label) }));
        } else {
            notes.push(format!("line '{}' ({}) cannot be drawn on this axis", l.label, exact(l.value)));
        }
    }
    out
}
