//! Line charts: series against a numeric x axis, with reference lines,
//! shaded bands and markers.

use std::fmt::Write as _;

use super::axis::{Layout, extent, layout};
use super::frame::*;
use super::text::{N, Tenths, escape, plural, text_width};
use super::*;

impl LineChart {
    /// A chart of 640 × 320 px with no series yet.
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Self {
        LineChart {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            hlines: Vec::new(),
            bands: Vec::new(),
            markers: Vec::new(),
            width: DEFAULT_SIZE.0,
            height: DEFAULT_SIZE.1,
        }
    }

    /// The chart as a standalone SVG element.
    pub fn to_svg(&self) -> String {
        let (wu, hu) = canvas(self.width, self.height);
        let mut notes = Vec::new();
        let data = self.drawable(&mut notes);
        let colors = palette(self.series.iter().map(|s| s.color));
        let at = self.place(&data, &colors, f64::from(wu), f64::from(hu));
        let (p, xlay, ylay) = (at.plot, &at.x, &at.y);

        let mut b = String::new();
        at.head.write(&mut b, &self.title);
        let label_row = self.write_bands(&mut b, &data.bands, p, xlay);
        write_frame(&mut b, p, ylay, Some(xlay));
        write_hlines(&mut b, p, ylay, &data.hlines);
        self.write_markers(&mut b, &data.markers, p, xlay, label_row);
        let outside = self.write_series(&mut b, &data.points, &data.spreads, &colors, &at);
        if outside > 0 {
            notes.push(format!(
                "{outside} point{} outside the axis range drawn at its edge",
                plural(outside)
            ));
        }
        if data.total == 0 {
            write_no_data(&mut b, p);
        }
        write_y_labels(&mut b, p, ylay);
        write_x_labels(&mut b, p, xlay);
        write_axis_titles(&mut b, p, Some((&self.x.title(), p.bottom + 29.0)), &self.y.title());
        let d = self.describe(&data, &at, &notes);
        document("line-chart", wu, hu, data.total, &self.title, &d, &b)
    }

    /// What can be drawn on these axes: points, bands, markers and lines;
    /// what cannot is left out and said in `notes`.
    fn drawable(&self, notes: &mut Vec<String>) -> Drawable<'_> {
        let xs = self.x.scale;
        let points: Vec<Points> = self.series.iter().map(|s| self.points(s, notes)).collect();
        let total = points.iter().map(|p| p.iter().flatten().count()).sum();
        let bands = self.bands.iter().filter(|b| xs.accepts(b.from) && xs.accepts(b.to)).collect();
        let markers = self.markers.iter().filter(|m| xs.accepts(m.x)).collect();
        for b in self.bands.iter().filter(|b| !(xs.accepts(b.from) && xs.accepts(b.to))) {
            notes.push(format!("band '{}' cannot be drawn on this axis", b.label));
        }
        for m in self.markers.iter().filter(|m| !xs.accepts(m.x)) {
            notes.push(format!("marker '{}' cannot be drawn on this axis", m.label));
        }
        let hlines = visible_hlines(&self.hlines, &self.y, notes);
        let ys = self.y.scale;
        let spreads = self
            .series
            .iter()
            .zip(&points)
            .map(|(s, sp)| match &s.spread {
                None => Vec::new(),
                Some(v) => sp
                    .iter()
                    .enumerate()
                    .map(|(i, q)| {
                        let &(lo, hi) = v.get(i)?;
                        let ok = |y: f64| y.is_finite() && ys.accepts(y);
                        q.filter(|_| ok(lo) && ok(hi)).map(|_| (lo, hi))
                    })
                    .collect(),
            })
            .collect();
        Drawable {
            points,
            spreads,
            total,
            bands,
            markers,
            hlines,
        }
    }

    /// The drawable points of series `s`; notes the non-finite ones and those a log axis cannot show.
    fn points(&self, s: &Series, notes: &mut Vec<String>) -> Points {
        let (xs, ys) = (self.x.scale, self.y.scale);
        let (mut bad, mut nonpos) = (0, 0);
        let v: Points = s
            .points
            .iter()
            .map(|&(x, y)| {
                if !x.is_finite() || !y.is_finite() {
                    bad += 1;
                    None
                } else if !xs.accepts(x) || !ys.accepts(y) {
                    nonpos += 1;
                    None
                } else {
                    Some((x, y))
                }
            })
            .collect();
        if bad > 0 {
            notes.push(format!("{}: {bad} non-finite point{} skipped", s.name, plural(bad)));
        }
        if nonpos > 0 {
            notes.push(format!(
                "{}: {nonpos} point{} with a zero or negative value skipped (a log axis cannot show them)",
                s.name,
                plural(nonpos)
            ));
        }
        v
    }

    /// Legend entries, one per series when there are several.
    fn legend(&self, colors: &[usize]) -> Vec<LegendItem> {
        if self.series.len() <= 1 {
            return Vec::new();
        }
        self.series
            .iter()
            .zip(colors)
            .map(|(s, &c)| LegendItem {
                label: s.name.clone(),
                color: PALETTE[c % PALETTE.len()],
                dash: DASHES[c % DASHES.len()],
                mark: match s.style {
                    SeriesStyle::Dots => Mark::Dot,
                    SeriesStyle::LineDots => Mark::LineDot,
                    SeriesStyle::Line | SeriesStyle::Step => Mark::Line,
                },
                hollow: c % 2 == 1,
            })
            .collect()
    }

    /// The layout of a `w` × `h` chart. Margins: the title and legend
    /// above; x tick labels and title below; y tick labels and title left;
    /// line labels right.
    fn place(&self, data: &Drawable, colors: &[usize], w: f64, h: f64) -> Placed {
        let head = Head::new(&self.title, self.legend(colors), w);
        let top = head.plot_top;
        let bottom = h - (8.0 + 16.0 + if self.x.title().is_empty() { 0.0 } else { 14.0 });
        let bottom = bottom.max(top + 20.0);
        let (xext, yext) = (data.x_extent(), data.y_extent());
        let y = layout(&self.y, yext, bottom, top, false);
        let (left, right) = margins(&self.y, &y, &data.hlines);
        // Room for the x labels at the ends, laid out once to know how wide they are.
        let first = layout(&self.x, xext, left, w - right, true);
        let half = first.widest_label() / 2.0 + 4.0;
        let (left, right) = leave_room((left.max(half), right.max(half)), w);
        let x = layout(&self.x, xext, left, w - right, true);
        let plot = Plot {
            left,
            right: w - right,
            top,
            bottom,
        };
        Placed { head, plot, x, y }
    }

    /// Bands, shaded alternately, labelled inside the top of the plot when
    /// the label fits. Returns the baseline of the first free label row.
    fn write_bands(&self, b: &mut String, bands: &[&Band], p: Plot, xlay: &Layout) -> f64 {
        let mut label_row = p.top + 11.0;
        if bands.is_empty() {
            return label_row;
        }
        let mut labels = String::new();
        b.push_str(r##"<g class="bands" fill="#000">"##);
        for (i, band) in bands.iter().enumerate() {
            let (a, z) = (xlay.px(band.from.min(band.to)), xlay.px(band.from.max(band.to)));
            w!(
                b,
                r#"<rect class="band" x="{}" y="{}" width="{}" height="{}" fill-opacity="{}"><title>{}: {} to {}</title></rect>"#,
                N(a),
                N(p.top),
                N(z - a),
                N(p.bottom - p.top),
                if i % 2 == 0 { ".06" } else { ".12" },
                escape(&band.label),
                escape(&self.x.value(band.from)),
                escape(&self.x.value(band.to))
            );
            if !band.label.is_empty() && text_width(&band.label) <= z - a - 4.0 {
                w!(
                    labels,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    N((a + z) / 2.0),
                    N(label_row),
                    escape(&band.label)
                );
            }
        }
        b.push_str("</g>\n");
        if !labels.is_empty() {
            w!(b, "<g class=\"band-labels\" text-anchor=\"middle\" fill=\"#444\">{labels}</g>\n");
            label_row += FONT + 2.0;
        }
        label_row
    }

    /// Markers: a dotted vertical line each, labels from baseline
    /// `label_row` in up to three rows so they do not overlap.
    fn write_markers(&self, b: &mut String, markers: &[&Marker], p: Plot, xlay: &Layout, label_row: f64) {
        if markers.is_empty() {
            return;
        }
        let mut sorted = markers.to_vec();
        sorted.sort_by(|a, b| a.x.total_cmp(&b.x));
        b.push_str(r##"<g class="markers" stroke="#000" stroke-dasharray="2 3">"##);
        let mut labels = String::new();
        let mut row_end = [f64::NEG_INFINITY; 3];
        for m in &sorted {
            let x = xlay.px(m.x);
            w!(
                b,
                r#"<path class="marker" d="M{} {}V{}"><title>{} at {}</title></path>"#,
                N(x),
                N(p.top),
                N(p.bottom),
                escape(&m.label),
                escape(&self.x.value(m.x))
            );
            // Right of the line, or left of it where the plot ends.
            let tw = text_width(&m.label);
            let (start, anchor) = if x + 3.0 + tw <= p.right {
                (x + 3.0, "")
            } else {
                (x - 3.0 - tw, " text-anchor=\"end\"")
            };
            let tx = if anchor.is_empty() { x + 3.0 } else { x - 3.0 };
            if let Some(r) = row_end.iter().position(|&e| e + GAP <= start) {
                row_end[r] = start + tw;
                w!(
                    labels,
                    r#"<text x="{}" y="{}"{anchor}>{}</text>"#,
                    N(tx),
                    N(label_row + r as f64 * (FONT + 2.0)),
                    escape(&m.label)
                );
            }
        }
        b.push_str("</g>\n");
        if !labels.is_empty() {
            w!(b, "<g class=\"marker-labels\">{labels}</g>\n");
        }
    }

    /// Every series: the line, then one element per point carrying its
    /// exact value. Returns how many points lie outside the axes' ranges.
    fn write_series(&self, b: &mut String, points: &[Points], spreads: &[Vec<Option<(f64, f64)>>], colors: &[usize], at: &Placed) -> usize {
        let (xlay, ylay) = (&at.x, &at.y);
        let mut outside = 0;
        for (((s, sp), spread), &c) in self.series.iter().zip(points).zip(spreads).zip(colors) {
            let color = PALETTE[c % PALETTE.len()];
            let n = sp.iter().flatten().count();
            w!(
                b,
                r#"<g class="series" data-series="{}" data-n="{n}" fill="{color}" stroke="{color}">"#,
                escape(&s.name)
            );
            let px: Points = sp.iter().map(|q| q.map(|(x, y)| (xlay.px(x), ylay.px(y)))).collect();
            if !spread.is_empty() {
                let edges: Vec<Option<(f64, f64, f64)>> = sp
                    .iter()
                    .zip(spread)
                    .map(|(q, r)| Some((xlay.px(q.as_ref()?.0), ylay.px(r.as_ref()?.0), ylay.px(r.as_ref()?.1))))
                    .collect();
                w!(
                    b,
                    r#"<path class="envelope" stroke="none" fill-opacity=".25" d="{}"/>"#,
                    spread_path(&edges)
                );
            }
            if s.style != SeriesStyle::Dots && n > 1 {
                let d = line_path(&px, s.style == SeriesStyle::Step);
                w!(b, r#"<path fill="none" stroke-width="1.5""#);
                let dash = DASHES[c % DASHES.len()];
                if !dash.is_empty() {
                    w!(b, r#" stroke-dasharray="{dash}""#);
                }
                w!(b, r#" d="{d}"/>"#);
            }
            outside += self.write_points(b, s, sp, &px, c, at);
            b.push_str("</g></g>\n");
        }
        outside
    }

    /// The points of series `s` (values `sp`, pixels `px`, colour index
    /// `c`), each with its value as a tooltip. Dots are circles (hollow for
    /// odd colours, for greyscale). On a line, each point is a hover
    /// target: a stroke 0.1 px long with round 6 px caps, transparent
    /// (shorter than a circle, about a kilobyte per hundred points).
    /// Returns how many lie outside the axes' ranges.
    fn write_points(
        &self,
        b: &mut String,
        s: &Series,
        sp: &[Option<(f64, f64)>],
        px: &[Option<(f64, f64)>],
        c: usize,
        at: &Placed,
    ) -> usize {
        let (xlay, ylay) = (&at.x, &at.y);
        let multi = self.series.len() > 1;
        let n = sp.iter().flatten().count();
        let dots = matches!(s.style, SeriesStyle::Dots | SeriesStyle::LineDots);
        b.push_str(match (dots, c % 2 == 1) {
            (false, _) => r#"<g fill="none" stroke-width="6" stroke-linecap="round" stroke-opacity="0">"#,
            (true, false) => r#"<g stroke="none">"#,
            (true, true) => r##"<g fill="#fff" stroke-width="1.5">"##,
        });
        let mut outside = 0;
        for (i, (q, raw)) in px.iter().zip(sp).enumerate() {
            let (Some((x, y)), Some((vx, vy))) = (q, raw) else { continue };
            if xlay.outside(*vx) || ylay.outside(*vy) {
                outside += 1;
            }
            let mut tip = if multi {
                format!("{}, {}: {}", s.name, self.x.value(*vx), self.y.value(*vy))
            } else {
                format!("{}: {}", self.x.value(*vx), self.y.value(*vy))
            };
            if let Some((lo, hi)) = s.spread.as_ref().and_then(|v| v.get(i)) {
                w!(tip, " median (min {}, max {})", self.y.value(*lo), self.y.value(*hi));
            }
            if dots {
                w!(
                    b,
                    r#"<circle class="pt" cx="{}" cy="{}" r="2.5"><title>{}</title></circle>"#,
                    N(*x),
                    N(*y),
                    escape(&tip)
                );
            } else {
                // A point without a drawn neighbour would be invisible: show it.
                let isolated = n == 1 || ((i == 0 || px[i - 1].is_none()) && (i + 1 >= px.len() || px[i + 1].is_none()));
                w!(
                    b,
                    r#"<path class="pt" d="M{} {}h.1"{}><title>{}</title></path>"#,
                    N(*x),
                    N(*y),
                    if isolated { r#" stroke-opacity="1""# } else { "" },
                    escape(&tip)
                );
            }
        }
        outside
    }

    /// The description: what a screen reader says instead of the picture.
    fn describe(&self, data: &Drawable, at: &Placed, notes: &[String]) -> String {
        let mut d = format!(
            "Line chart. x: {}, {}. y: {}, {}.",
            self.x.title(),
            at.x.describe(),
            self.y.title(),
            at.y.describe()
        );
        if data.total == 0 {
            d.push_str(" No data.");
        }
        for (s, sp) in self.series.iter().zip(&data.points) {
            let n = sp.iter().flatten().count();
            w!(d, " {}: {n} point{}", s.name, plural(n));
            if s.spread.is_some() {
                d.push_str(" (medians, with a band from min to max)");
            }
            if let Some((a, z)) = extent(sp.iter().flatten().map(|p| p.1)) {
                w!(d, ", y from {} to {}", self.y.value(a), self.y.value(z));
            }
            d.push('.');
        }
        for (_, _, tip) in &data.hlines {
            w!(d, " Line {tip}.");
        }
        for band in &data.bands {
            w!(d, " Band {}: {} to {}.", band.label, self.x.value(band.from), self.x.value(band.to));
        }
        for m in &data.markers {
            w!(d, " Marker {} at {}.", m.label, self.x.value(m.x));
        }
        for note in notes {
            w!(d, " Note: {note}.");
        }
        d
    }
}

/// Drawable (x, y) points of one series; `None` marks a skipped point, where the line breaks.
type Points = Vec<Option<(f64, f64)>>;

/// What a line chart draws, the undrawable set aside.
struct Drawable<'a> {
    /// Per series.
    points: Vec<Points>,
    /// Per series, each point's (min, max) when the series has a spread
    /// (else empty); `None` where the point or its spread cannot be drawn.
    spreads: Vec<Vec<Option<(f64, f64)>>>,
    /// Drawable points in all series.
    total: usize,
    bands: Vec<&'a Band>,
    markers: Vec<&'a Marker>,
    /// Lines across: (value, label, tooltip).
    hlines: Vec<(f64, String, String)>,
}

impl Drawable<'_> {
    /// The range of x that points, bands and markers span.
    fn x_extent(&self) -> Option<(f64, f64)> {
        extent(
            self.points
                .iter()
                .flatten()
                .flatten()
                .map(|p| p.0)
                .chain(self.bands.iter().flat_map(|b| [b.from, b.to]))
                .chain(self.markers.iter().map(|m| m.x)),
        )
    }

    /// The range of y that points and lines across span.
    fn y_extent(&self) -> Option<(f64, f64)> {
        extent(
            self.points
                .iter()
                .flatten()
                .flatten()
                .map(|p| p.1)
                .chain(self.spreads.iter().flatten().flatten().flat_map(|s| [s.0, s.1]))
                .chain(self.hlines.iter().map(|l| l.0)),
        )
    }
}

/// Where a line chart's parts go.
struct Placed {
    head: Head,
    plot: Plot,
    x: Layout,
    y: Layout,
}

/// The x tick labels, centred under their ticks.
fn write_x_labels(b: &mut String, p: Plot, xlay: &Layout) {
    b.push_str(r##"<g class="ticks-x" text-anchor="middle" fill="#333">"##);
    for (v, l) in &xlay.ticks {
        w!(b, r#"<text x="{}" y="{}">{}</text>"#, N(xlay.px(*v)), N(p.bottom + 15.0), escape(l));
    }
    b.push_str("</g>\n");
}

/// The shaded band of a spread: for each unbroken stretch of pixel
/// `(x, y of the min, y of the max)`, along the max and back along the min.
fn spread_path(edges: &[Option<(f64, f64, f64)>]) -> String {
    let mut d = String::new();
    for run in edges.split(|e| e.is_none()) {
        let run: Vec<(f64, f64, f64)> = run.iter().flatten().copied().collect();
        let Some(first) = run.first() else { continue };
        w!(d, "M{} {}", N(first.0), N(first.2));
        for e in &run[1..] {
            w!(d, "L{} {}", N(e.0), N(e.2));
        }
        for e in run.iter().rev() {
            w!(d, "L{} {}", N(e.0), N(e.1));
        }
        d.push('Z');
    }
    d
}

/// The path through pixel points `px`, broken where a point is `None`:
/// straight segments, or steps (across, then up or down). Each piece
/// starts absolute, then moves relative (shorter, and exact in tenths).
fn line_path(px: &[Option<(f64, f64)>], step: bool) -> String {
    let mut d = String::new();
    let mut at: Option<(Tenths, Tenths)> = None;
    for q in px {
        let Some((x, y)) = q else {
            at = None;
            continue;
        };
        let (x, y) = (Tenths::of(*x), Tenths::of(*y));
        match at {
            None => w!(d, "M{x} {y}{}", if step { "" } else { "l" }),
            Some((x0, y0)) if step => w!(d, "h{}v{}", Tenths(x.0 - x0.0), Tenths(y.0 - y0.0)),
            Some((x0, y0)) => {
                if !d.ends_with('l') {
                    d.push(' ');
                }
                w!(d, "{} {}", Tenths(x.0 - x0.0), Tenths(y.0 - y0.0));
            }
        }
        at = Some((x, y));
    }
    d
}
