//! SVG charts for the HTML report: line charts (scan curves, throughput
//! over time, sweeps, latency distributions on a log axis) and grouped bar
//! charts with error whiskers, written as plain SVG 1.1 text that a page
//! inlines and any browser shows without JavaScript. Formatting only: the
//! writer draws the numbers it is given and computes nothing but geometry
//! (scales, ticks, label placement).
//!
//! Why a writer of our own rather than the `plotters` crate:
//!
//! - **Size.** A report with a 100-zone scan and an 8-test battery must stay
//!   under 1.5 MB. Writing the SVG ourselves decides every byte: coordinates
//!   with at most one decimal, colours and dashes set once on a group and
//!   inherited, one path per line in relative steps. A 100-point line chart
//!   with three reference lines is about 11 KB.
//! - **Hooks.** Readers and tests need a fixed structure: a `<title>` and
//!   `<desc>` wired to `aria-labelledby`, one element per data point
//!   (`class="pt"`) or bar (`class="bar"`) each with its exact value as a
//!   `<title>` (a tooltip without script), `data-points` on the root. A
//!   general plotting library chooses its own element structure.
//! - **No fonts.** Text goes out as `<text>` in the reader's sans-serif;
//!   label widths are estimated from character counts, which is all that
//!   spacing labels apart needs, so no font files are loaded or embedded.
//! - **No dependency** (and no feature set to keep trimmed) for a small
//!   writer that changes with the report.
//!
//! Every text written is XML-escaped; the output references nothing outside
//! itself (no links, fonts or images). Ids (for `aria-labelledby`) are
//! derived from a hash of the chart's content, so charts inlined in one page
//! do not collide unless they are identical.

use std::fmt::{self, Write as _};

use crate::units::fmt_bs;

/// `write!` into a String, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

/// The Okabe–Ito colour-blind-safe colours, ordered so that neighbours also
/// differ in lightness (dark blue, light orange, …) for greyscale print.
pub const PALETTE: [&str; 7] = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"];

/// Dash pattern of a line by its colour index: solid, dashed, dotted,
/// dash-dot, so that series stay apart in greyscale.
const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

/// Font size of every label, px.
const FONT: f64 = 11.0;
/// Estimated advance of one character at [`FONT`] in a sans-serif face
/// (0.6 em: a little wider than digits and most lower-case letters).
const CHAR_W: f64 = 6.6;
/// Least space between two horizontal labels, px.
const GAP: f64 = 8.0;
/// Most ticks on an axis.
const MAX_TICKS: usize = 10;
/// Widest category label, px (longer ones are shortened with an ellipsis).
const MAX_LABEL_W: f64 = 160.0;

// ------------------------------------------------------------ axes

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Decades: rates spanning orders of magnitude, latency distributions.
    Log10,
    /// Powers of two: queue depths, block sizes, thread counts.
    Log2,
}

impl Scale {
    fn is_log(self) -> bool {
        self != Scale::Linear
    }

    fn base(self) -> f64 {
        if self == Scale::Log2 { 2.0 } else { 10.0 }
    }

    fn fwd(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log10 => v.log10(),
            Scale::Log2 => v.log2(),
        }
    }

    /// Whether `v` can be drawn on this scale: finite, and positive on a log scale.
    fn accepts(self, v: f64) -> bool {
        v.is_finite() && (self == Scale::Linear || v > 0.0)
    }
}

/// How tick labels (and, for `Binary` and `Custom`, tooltip values) are written.
#[derive(Clone, Copy, Debug)]
pub enum TickFormat {
    /// Linear: as many decimals as the tick step needs, with k from 10 000
    /// and M/G/T from 10^6/10^9/10^12 on (`0, 50k, 100k`; `0, 0.5M, 1.0M`);
    /// log10: `1, 10, 100, 1k, 10k`; log2: `1, 2, 4 … 1024`.
    Auto,
    /// A fixed number of decimals.
    Fixed(usize),
    /// Byte counts named the way block sizes are (`4K`, `1M`).
    Binary,
    /// The caller's own.
    Custom(fn(f64) -> String),
}

/// One axis: its label and unit, scale, optional fixed ends and tick format.
#[derive(Clone, Debug)]
pub struct Axis {
    /// What is measured, e.g. "Throughput".
    pub label: String,
    /// The unit, e.g. "MB/s": shown after the label and in tooltips.
    pub unit: String,
    pub scale: Scale,
    /// A fixed lower end (e.g. 0 for rates); `None` fits the data.
    pub min: Option<f64>,
    /// A fixed upper end; `None` fits the data.
    pub max: Option<f64>,
    pub format: TickFormat,
}

impl Axis {
    pub fn new(label: impl Into<String>, unit: impl Into<String>, scale: Scale) -> Self {
        Axis {
            label: label.into(),
            unit: unit.into(),
            scale,
            min: None,
            max: None,
            format: TickFormat::Auto,
        }
    }

    pub fn linear(label: impl Into<String>, unit: impl Into<String>) -> Self {
        Axis::new(label, unit, Scale::Linear)
    }

    pub fn log10(label: impl Into<String>, unit: impl Into<String>) -> Self {
        Axis::new(label, unit, Scale::Log10)
    }

    pub fn log2(label: impl Into<String>, unit: impl Into<String>) -> Self {
        Axis::new(label, unit, Scale::Log2)
    }

    /// The axis starts at zero (rates: bars and curves measured from nothing).
    pub fn from_zero(mut self) -> Self {
        self.min = Some(0.0);
        self
    }

    pub fn with_range(mut self, min: Option<f64>, max: Option<f64>) -> Self {
        self.min = min;
        self.max = max;
        self
    }

    pub fn with_format(mut self, format: TickFormat) -> Self {
        self.format = format;
        self
    }

    /// The axis title: "Throughput (MB/s)".
    fn title(&self) -> String {
        match (self.label.is_empty(), self.unit.is_empty()) {
            (_, true) => self.label.clone(),
            (true, false) => self.unit.clone(),
            (false, false) => format!("{} ({})", self.label, self.unit),
        }
    }

    /// A value as tooltips and descriptions write it, with the unit.
    fn value(&self, v: f64) -> String {
        let n = match self.format {
            TickFormat::Binary if is_byte_count(v) => fmt_bs(v as u64),
            TickFormat::Custom(f) => f(v),
            _ => exact(v),
        };
        if self.unit.is_empty() { n } else { format!("{n} {}", self.unit) }
    }
}

fn is_byte_count(v: f64) -> bool {
    v >= 0.0 && v.fract() == 0.0 && v < 9.0e18
}

// ------------------------------------------------------------ charts

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesStyle {
    /// A line; its points are invisible hover targets (an isolated point is shown).
    Line,
    /// Dots only.
    Dots,
    /// A line with a dot on every point.
    LineDots,
    /// Steps: each value holds until the next point's x (time bins, histograms).
    Step,
}

/// One named series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: SeriesStyle,
    /// Index into [`PALETTE`] (and the dash patterns); `None`: the series' position.
    pub color: Option<usize>,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            style: SeriesStyle::Line,
            color: None,
        }
    }

    pub fn with_style(mut self, style: SeriesStyle) -> Self {
        self.style = style;
        self
    }

    pub fn with_color(mut self, index: usize) -> Self {
        self.color = Some(index);
        self
    }
}

/// A horizontal reference line across the plot (min, average, max, a
/// limit), labelled with its value in the right margin.
#[derive(Clone, Debug)]
pub struct HLine {
    pub value: f64,
    pub label: String,
}

impl HLine {
    pub fn new(label: impl Into<String>, value: f64) -> Self {
        HLine {
            value,
            label: label.into(),
        }
    }
}

/// A shaded x range: "warm-up", "run 1", "steady window".
#[derive(Clone, Debug)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub label: String,
}

impl Band {
    pub fn new(label: impl Into<String>, from: f64, to: f64) -> Self {
        Band {
            from,
            to,
            label: label.into(),
        }
    }
}

/// A vertical line at one x: "write cliff".
#[derive(Clone, Debug)]
pub struct Marker {
    pub x: f64,
    pub label: String,
}

impl Marker {
    pub fn new(label: impl Into<String>, x: f64) -> Self {
        Marker { x, label: label.into() }
    }
}

/// Series against a numeric x axis, with reference lines, bands and markers.
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub hlines: Vec<HLine>,
    pub bands: Vec<Band>,
    pub markers: Vec<Marker>,
    /// Size in px (also the viewBox; the page may scale it).
    pub width: u32,
    pub height: u32,
}

/// One group of bars: one value per category (`None`: no bar), and
/// optionally an interval per bar drawn as a whisker (e.g. 95%).
#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    pub values: Vec<Option<f64>>,
    pub whiskers: Option<Vec<Option<(f64, f64)>>>,
    /// Index into [`PALETTE`]; `None`: the group's position.
    pub color: Option<usize>,
}

impl BarSeries {
    pub fn new(name: impl Into<String>, values: Vec<Option<f64>>) -> Self {
        BarSeries {
            name: name.into(),
            values,
            whiskers: None,
            color: None,
        }
    }

    pub fn with_whiskers(mut self, whiskers: Vec<Option<(f64, f64)>>) -> Self {
        self.whiskers = Some(whiskers);
        self
    }
}

/// A reference value per category, drawn as a dashed line across the
/// category's bars: "ideal sum", "single-device rate".
#[derive(Clone, Debug)]
pub struct Reference {
    pub label: String,
    pub values: Vec<Option<f64>>,
}

/// Grouped vertical bars: categories across, one bar per group in each.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub categories: Vec<String>,
    pub groups: Vec<BarSeries>,
    pub y: Axis,
    /// Lines across the whole chart.
    pub hlines: Vec<HLine>,
    /// Lines per category.
    pub references: Vec<Reference>,
    pub width: u32,
    pub height: u32,
}

// ------------------------------------------------------------ ticks

/// "Nice" ticks (1, 2 or 5 × 10^k apart) covering `lo..=hi`, at most
/// `max_count` of them (2 to 10; 3 when the range spans zero and 2 are asked).
pub fn linear_ticks(lo: f64, hi: f64, max_count: usize) -> Vec<f64> {
    nice_ticks(lo, hi, max_count).0
}

/// The ticks and the exponent k of their step (m × 10^k), which gives the
/// decimals labels need; `None` when the range is too narrow or too wide
/// for nice ticks (then they are its ends).
fn nice_ticks(lo: f64, hi: f64, max_count: usize) -> (Vec<f64>, Option<i32>) {
    let ends = || {
        (
            if lo.is_finite() && hi.is_finite() && hi > lo {
                vec![lo, hi]
            } else {
                vec![lo]
            },
            None,
        )
    };
    let span = hi - lo;
    if !(span.is_finite() && span > lo.abs().max(hi.abs()) * 1e-12) {
        return ends();
    }
    let mut n = max_count.clamp(2, MAX_TICKS) as f64;
    if lo < 0.0 && hi > 0.0 {
        n = n.max(3.0); // 0 lies between the end ticks
    }
    // A span of a few denormals over several ticks underflows to 0 (issue 16:
    // an imported IOPS of 5e-324): no decade to start from.
    let step0 = span / (n - 1.0);
    if !(step0.is_finite() && step0 > 0.0) {
        return ends();
    }
    let k0 = (step0.log10().floor() as i32).saturating_sub(1);
    for k in k0..k0.saturating_add(64) {
        for m in [1i64, 2, 5] {
            let step = pow10(k) * m as f64;
            let a = (lo / step + 1e-9).floor();
            let b = (hi / step - 1e-9).ceil();
            if b - a + 1.0 <= n {
                let ticks: Vec<f64> = (a as i64..=b as i64).map(|i| tick_value(i * m, k)).collect();
                if ticks.iter().any(|t| !t.is_finite()) {
                    return ends(); // beyond f64 near its largest values
                }
                return (ticks, Some(k));
            }
        }
    }
    ends()
}

/// i × 10^k, written so that decimal steps stay exact (3 × 10^-1 = 0.3, not 0.30000000000000004).
fn tick_value(i: i64, k: i32) -> f64 {
    let v = if k < 0 { i as f64 / pow10(-k) } else { i as f64 * pow10(k) };
    if v == 0.0 { 0.0 } else { v }
}

fn pow10(k: i32) -> f64 {
    format!("1e{k}").parse().unwrap_or(f64::INFINITY)
}

/// Whole powers of `base` (10 or 2) covering `lo..=hi` (both > 0), every
/// decade (or power) while at most `max_count` fit, else every second, third, ….
pub fn log_ticks(lo: f64, hi: f64, base: f64, max_count: usize) -> Vec<f64> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    let log = |v: f64| if base == 2.0 { v.log2() } else { v.log10() };
    let e0 = ((log(lo) + 1e-9).floor() as i32).clamp(-300, 300);
    let e1 = ((log(hi) - 1e-9).ceil() as i32).clamp(-300, 300).max(e0 + 1);
    let n = max_count.clamp(2, MAX_TICKS) as i32;
    let stride = ((e1 - e0) + (n - 2)) / (n - 1);
    let last = e0 + stride * ((e1 - e0 + stride - 1) / stride);
    (e0..=last)
        .step_by(stride as usize)
        .map(|e| if base == 2.0 { 2f64.powi(e) } else { pow10(e) })
        .collect()
}

/// An axis laid out along pixels: its domain (`lo` at `p0`, `hi` at `p1`) and labelled ticks.
#[derive(Clone, Debug)]
struct Layout {
    scale: Scale,
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
    ticks: Vec<(f64, String)>,
}

impl Layout {
    /// The pixel of `v`, clamped to the axis.
    fn px(&self, v: f64) -> f64 {
        let (a, b) = (self.scale.fwd(self.lo), self.scale.fwd(self.hi));
        let t = if b > a {
            ((self.scale.fwd(v) - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.p0 + t * (self.p1 - self.p0)
    }

    /// Whether `v` lies outside the domain (drawn at its edge).
    fn outside(&self, v: f64) -> bool {
        let eps = (self.hi - self.lo).abs() * 1e-9;
        v < self.lo - eps || v > self.hi + eps
    }

    /// Whether no two tick labels overlap: across, each pair a half-width
    /// each plus [`GAP`] apart; up, a line height apart.
    fn labels_fit(&self, across: bool) -> bool {
        self.ticks.windows(2).all(|p| {
            let d = (self.px(p[1].0) - self.px(p[0].0)).abs();
            if across {
                d >= (text_width(&p[0].1) + text_width(&p[1].1)) / 2.0 + GAP
            } else {
                d >= FONT + 2.0
            }
        })
    }

    fn widest_label(&self) -> f64 {
        self.ticks.iter().map(|t| text_width(&t.1)).fold(0.0, f64::max)
    }

    fn describe(&self) -> String {
        let scale = if self.scale.is_log() { ", log scale" } else { "" };
        format!("{} to {}{scale}", exact(self.lo), exact(self.hi))
    }
}

/// Lays `axis` out between pixels `p0` (its low end) and `p1`: the domain
/// from the data's `extent` and the axis' fixed ends, and the most ticks
/// (up to about one per 50 px across, 28 px up) whose labels do not overlap.
fn layout(axis: &Axis, extent: Option<(f64, f64)>, p0: f64, p1: f64, across: bool) -> Layout {
    let s = axis.scale;
    let fmin = axis.min.filter(|&v| s.accepts(v));
    let fmax = axis.max.filter(|&v| s.accepts(v));
    let (fmin, fmax) = match (fmin, fmax) {
        (Some(a), Some(b)) if a >= b => (None, None),
        ends => ends,
    };
    let (mut lo, mut hi) = extent.unwrap_or(if s.is_log() { (1.0, s.base()) } else { (0.0, 1.0) });
    if let Some(m) = fmin {
        lo = m;
        hi = hi.max(m);
    }
    if let Some(m) = fmax {
        hi = m;
        lo = lo.min(m);
    }
    if hi - lo <= lo.abs().max(hi.abs()) * 1e-9 {
        // All values equal: open the range around them.
        let (down, up) = if s.is_log() {
            (lo / s.base(), hi * s.base())
        } else {
            let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
            (lo - d, hi + d)
        };
        if fmin.is_none() {
            lo = down.max(f64::MIN);
        }
        if fmax.is_none() {
            hi = up.min(f64::MAX);
        }
    }
    let spacing = if across { 50.0 } else { 28.0 };
    let mut count = (((p1 - p0).abs() / spacing) as usize + 1).clamp(2, MAX_TICKS);
    loop {
        let (values, k) = match s {
            Scale::Linear => nice_ticks(lo, hi, count),
            _ => (log_ticks(lo, hi, s.base(), count), None),
        };
        let dlo = fmin.unwrap_or_else(|| values.first().map_or(lo, |&v| v.min(lo)));
        let dhi = fmax.unwrap_or_else(|| values.last().map_or(hi, |&v| v.max(hi)));
        let eps = (dhi - dlo).abs() * 1e-9;
        let mut kept: Vec<f64> = values.into_iter().filter(|&v| v >= dlo - eps && v <= dhi + eps).collect();
        if kept.is_empty() {
            kept = vec![dlo, dhi]; // a fixed range between two nice values
        }
        let labels = tick_labels(axis, &kept, k);
        let mut lay = Layout {
            scale: s,
            lo: dlo,
            hi: dhi,
            p0,
            p1,
            ticks: kept.into_iter().zip(labels).collect(),
        };
        if lay.labels_fit(across) {
            return lay;
        }
        if count == 2 {
            lay.ticks.truncate(1); // too narrow for two labels
            return lay;
        }
        count -= 1;
    }
}

/// The labels of ticks `values` (step m × 10^k on a linear axis; `None`: not nice steps).
fn tick_labels(axis: &Axis, values: &[f64], k: Option<i32>) -> Vec<String> {
    match axis.format {
        TickFormat::Custom(f) => values.iter().map(|&v| f(v)).collect(),
        TickFormat::Fixed(d) => values.iter().map(|v| format!("{v:.d$}")).collect(),
        TickFormat::Binary if values.iter().all(|&v| is_byte_count(v)) => values.iter().map(|&v| fmt_bs(v as u64)).collect(),
        _ => match axis.scale {
            Scale::Linear => match k {
                Some(k) => si_labels(values, k),
                None => values.iter().map(|&v| exact(v)).collect(),
            },
            Scale::Log10 => values.iter().map(|&v| decade_label(v)).collect(),
            Scale::Log2 => values.iter().map(|&v| power_of_two_label(v)).collect(),
        },
    }
}

/// Linear tick labels with one SI prefix for the whole axis: none below
/// 10 000 (`2500`), then k, and M, G, T from a million, billion, trillion on.
fn si_labels(values: &[f64], k: i32) -> Vec<String> {
    let big = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let (shift, suffix) = match big {
        b if b >= 1e12 => (12, "T"),
        b if b >= 1e9 => (9, "G"),
        b if b >= 1e6 => (6, "M"),
        b if b >= 1e4 => (3, "k"),
        _ => (0, ""),
    };
    let d = (shift - k).max(0) as usize;
    values
        .iter()
        .map(|&v| {
            if v == 0.0 {
                "0".into()
            } else {
                format!("{:.d$}{suffix}", v / pow10(shift))
            }
        })
        .collect()
}

/// `1`, `10`, `100`, `1k` … `100T`, `0.1`, `0.01`, `0.001`, `1e-4`.
fn decade_label(v: f64) -> String {
    let l = v.log10();
    let e = l.round() as i32;
    if (l - f64::from(e)).abs() > 1e-9 {
        return exact(v);
    }
    match e {
        0..=2 => format!("{v:.0}"),
        3..=14 => {
            let (shift, suffix) = match e {
                3..=5 => (3, "k"),
                6..=8 => (6, "M"),
                9..=11 => (9, "G"),
                _ => (12, "T"),
            };
            format!("{}{suffix}", 10i64.pow((e - shift) as u32))
        }
        -3..=-1 => format!("{v:.*}", (-e) as usize),
        _ => format!("1e{e}"),
    }
}

/// `1, 2, 4 … 65536`, then `128K, 1M` (binary), fractions as decimals.
fn power_of_two_label(v: f64) -> String {
    if (1.0..1e5).contains(&v) && v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v >= 1e5 && is_byte_count(v) {
        fmt_bs(v as u64)
    } else {
        exact(v)
    }
}

/// A category label placed under the plot: its category, centre x, and its lines.
#[derive(Clone, Debug)]
struct CatLabel {
    index: usize,
    x: f64,
    lines: Vec<String>,
}

impl CatLabel {
    fn width(&self) -> f64 {
        self.lines.iter().map(|l| text_width(l)).fold(0.0, f64::max)
    }
}

/// Which category labels to show under a plot `width` px wide from `left`,
/// so that no two overlap: all of them on one line when they fit their
/// slots; else all on up to two lines (broken at a space); else every k-th
/// on one line, k the smallest step that leaves room, shortened with an
/// ellipsis when even that is too little.
fn category_labels(labels: &[String], left: f64, width: f64) -> Vec<CatLabel> {
    let n = labels.len();
    if n == 0 {
        return Vec::new();
    }
    let slot = width / n as f64;
    let at = |i: usize| left + (i as f64 + 0.5) * slot;
    let wrapped: Option<Vec<Vec<String>>> = labels.iter().map(|l| wrap_in_two(l, slot - GAP)).collect();
    if let Some(wrapped) = wrapped {
        return wrapped
            .into_iter()
            .enumerate()
            .map(|(i, lines)| CatLabel { index: i, x: at(i), lines })
            .collect();
    }
    let widest = labels.iter().map(|l| text_width(l)).fold(0.0, f64::max).min(MAX_LABEL_W);
    let k = (((widest + GAP) / slot).ceil() as usize).clamp(1, n);
    let room = (k as f64 * slot - GAP).min(MAX_LABEL_W);
    (0..n)
        .step_by(k)
        .map(|i| CatLabel {
            index: i,
            x: at(i),
            lines: vec![fit_text(&labels[i], room)],
        })
        .filter(|l| !l.lines[0].is_empty())
        .collect()
}

/// `s` in at most `room` px: on one line, or on two broken at the space
/// that balances them best; `None` when neither fits.
fn wrap_in_two(s: &str, room: f64) -> Option<Vec<String>> {
    if text_width(s) <= room {
        return Some(vec![s.to_string()]);
    }
    s.char_indices()
        .filter(|&(_, c)| c == ' ')
        .map(|(i, _)| (s[..i].trim_end(), s[i + 1..].trim_start()))
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .map(|(a, b)| (text_width(a).max(text_width(b)), a, b))
        .filter(|&(w, _, _)| w <= room)
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(_, a, b)| vec![a.to_string(), b.to_string()])
}

// ------------------------------------------------------------ text

/// Estimated width of `s` in px at [`FONT`].
fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// `s`, shortened with an ellipsis to at most `room` px ("" when not even one character fits).
fn fit_text(s: &str, room: f64) -> String {
    if text_width(s) <= room {
        return s.to_string();
    }
    let keep = (room / CHAR_W).floor() as usize;
    if keep < 2 {
        return String::new();
    }
    let mut t: String = s.chars().take(keep - 1).collect();
    t.push('…');
    t
}

/// `s` safe in XML text and attribute values: the five markup characters
/// as references, line breaks as spaces, other control characters (not
/// allowed in XML 1.0) as U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A value as tooltips show it: every digit before the point, decimals up
/// to 6 significant digits, no trailing zeros (`1234.57`, `97`,
/// `0.0001234`, `1.5e-7`, `2.5e16`).
pub fn exact(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-4..15).contains(&mag) {
        let s = format!("{v:.5e}");
        let (mantissa, e) = s.split_once('e').unwrap_or((&s, "0"));
        return format!("{}e{e}", trim_zeros(mantissa));
    }
    let d = (5 - mag).max(0) as usize;
    trim_zeros(&format!("{v:.d$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A coordinate with at most one decimal: `12`, `12.5`, `-0.5`.
struct N(f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Tenths::of(self.0).fmt(f)
    }
}

/// A coordinate in whole tenths of a pixel: what [`N`] writes, and the
/// unit of relative path steps (exact, so they do not drift).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Tenths(i64);

impl Tenths {
    fn of(v: f64) -> Self {
        let t = (v * 10.0).round();
        Tenths(if t.is_finite() { t as i64 } else { 0 })
    }
}

impl fmt::Display for Tenths {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        if a.is_multiple_of(10) {
            write!(f, "{sign}{}", a / 10)
        } else {
            write!(f, "{sign}{}.{}", a / 10, a % 10)
        }
    }
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |e, v| match e {
        None => Some((v, v)),
        Some((a, b)) => Some((a.min(v), b.max(v))),
    })
}

// ------------------------------------------------------------ common parts

/// The plot rectangle inside the chart.
#[derive(Clone, Copy, Debug)]
struct Plot {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// One legend entry: a line sample (dashed as its series) and/or a dot, or a swatch.
struct LegendItem {
    label: String,
    color: &'static str,
    dash: &'static str,
    mark: Mark,
    hollow: bool,
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Line,
    Dot,
    LineDot,
    Swatch,
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
fn write_frame(b: &mut String, p: Plot, y: &Layout, x: Option<&Layout>) {
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
fn write_y_labels(b: &mut String, p: Plot, y: &Layout) {
    b.push_str(r##"<g class="ticks-y" text-anchor="end" fill="#333">"##);
    for (v, l) in &y.ticks {
        w!(b, r#"<text x="{}" y="{}">{}</text>"#, N(p.left - 6.0), N(y.px(*v) + 4.0), escape(l));
    }
    b.push_str("</g>\n");
}

/// The axis titles: x centred under the plot on the given baseline, y turned up along the left edge.
fn write_axis_titles(b: &mut String, p: Plot, x_title: Option<(&str, f64)>, y_title: &str) {
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
fn write_hlines(b: &mut String, p: Plot, y: &Layout, lines: &[(f64, String, String)]) {
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
fn document(kind: &str, w: u32, h: u32, n: usize, title: &str, desc: &str, body: &str) -> String {
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

fn write_no_data(b: &mut String, p: Plot) {
    w!(
        b,
        "<text class=\"no-data\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#666\">no data</text>\n",
        N((p.left + p.right) / 2.0),
        N((p.top + p.bottom) / 2.0)
    );
}

/// Lines across the chart that can be drawn on `y`, as (value, label, tooltip); notes the others.
fn visible_hlines(lines: &[HLine], y: &Axis, notes: &mut Vec<String>) -> Vec<(f64, String, String)> {
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

fn color_of(color: Option<usize>, position: usize) -> usize {
    color.unwrap_or(position)
}

// ------------------------------------------------------------ line chart

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
            width: 640,
            height: 320,
        }
    }

    /// The chart as a standalone SVG element.
    pub fn to_svg(&self) -> String {
        let (wu, hu) = (self.width.max(160), self.height.max(100));
        let (w, h) = (f64::from(wu), f64::from(hu));
        let (xs, ys) = (self.x.scale, self.y.scale);
        let mut notes = Vec::new();

        // Drawable points per series; `None` marks a skipped point, where the line breaks.
        let pts: Vec<Vec<Option<(f64, f64)>>> = self
            .series
            .iter()
            .map(|s| {
                let (mut bad, mut nonpos) = (0, 0);
                let v: Vec<_> = s
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
            })
            .collect();
        let total: usize = pts.iter().map(|p| p.iter().flatten().count()).sum();
        let bands: Vec<&Band> = self.bands.iter().filter(|b| xs.accepts(b.from) && xs.accepts(b.to)).collect();
        let markers: Vec<&Marker> = self.markers.iter().filter(|m| xs.accepts(m.x)).collect();
        for b in self.bands.iter().filter(|b| !(xs.accepts(b.from) && xs.accepts(b.to))) {
            notes.push(format!("band '{}' cannot be drawn on this axis", b.label));
        }
        for m in self.markers.iter().filter(|m| !xs.accepts(m.x)) {
            notes.push(format!("marker '{}' cannot be drawn on this axis", m.label));
        }
        let hlines = visible_hlines(&self.hlines, &self.y, &mut notes);

        let xext = extent(
            pts.iter()
                .flatten()
                .flatten()
                .map(|p| p.0)
                .chain(bands.iter().flat_map(|b| [b.from, b.to]))
                .chain(markers.iter().map(|m| m.x)),
        );
        let yext = extent(pts.iter().flatten().flatten().map(|p| p.1).chain(hlines.iter().map(|l| l.0)));

        // Legend entries, one per series when there are several.
        let colors: Vec<usize> = self.series.iter().enumerate().map(|(i, s)| color_of(s.color, i)).collect();
        let legend: Vec<LegendItem> = if self.series.len() > 1 {
            self.series
                .iter()
                .zip(&colors)
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
        } else {
            Vec::new()
        };
        let (legend_pos, legend_rows) = legend_positions(&legend, w);

        // Margins: the title and legend above; x tick labels and title below;
        // y tick labels and title left; line labels right.
        let title_h = if self.title.is_empty() { 0.0 } else { 20.0 };
        let legend_top = 6.0 + title_h;
        let top = legend_top + legend_rows as f64 * 16.0 + 8.0;
        let x_title = self.x.title();
        let y_title = self.y.title();
        let bottom = h - (8.0 + 16.0 + if x_title.is_empty() { 0.0 } else { 14.0 });
        let bottom = bottom.max(top + 20.0);
        let ylay = layout(&self.y, yext, bottom, top, false);
        let mut left = 8.0 + if y_title.is_empty() { 0.0 } else { 16.0 } + ylay.widest_label() + 6.0;
        let mut right = 12.0f64.max(hlines.iter().map(|l| text_width(&l.1)).fold(0.0, f64::max) + 10.0);
        let first = layout(&self.x, xext, left, w - right, true);
        let half = first.widest_label() / 2.0 + 4.0;
        left = left.max(half);
        right = right.max(half);
        if w - right - left < 40.0 {
            right = 8.0;
            left = left.min(w - 48.0);
        }
        let xlay = layout(&self.x, xext, left, w - right, true);
        let p = Plot {
            left,
            right: w - right,
            top,
            bottom,
        };

        let mut b = String::new();
        write_title(&mut b, &self.title);
        write_legend(&mut b, &legend, &legend_pos, legend_top, w);

        // Bands, shaded alternately, labelled inside the top of the plot when the label fits.
        let mut label_row = p.top + 11.0;
        if !bands.is_empty() {
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
        }

        write_frame(&mut b, p, &ylay, Some(&xlay));
        write_hlines(&mut b, p, &ylay, &hlines);

        // Markers: a dotted vertical line each, labels in up to three rows so they do not overlap.
        if !markers.is_empty() {
            let mut sorted = markers.clone();
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

        // Series: the line, then one element per point carrying its exact value.
        let multi = self.series.len() > 1;
        let mut outside = 0;
        for ((s, sp), &c) in self.series.iter().zip(&pts).zip(&colors) {
            let color = PALETTE[c % PALETTE.len()];
            let n = sp.iter().flatten().count();
            w!(
                b,
                r#"<g class="series" data-series="{}" data-n="{n}" fill="{color}" stroke="{color}">"#,
                escape(&s.name)
            );
            let px: Vec<Option<(f64, f64)>> = sp.iter().map(|q| q.map(|(x, y)| (xlay.px(x), ylay.px(y)))).collect();
            if s.style != SeriesStyle::Dots && n > 1 {
                let d = line_path(&px, s.style == SeriesStyle::Step);
                w!(b, r#"<path fill="none" stroke-width="1.5""#);
                let dash = DASHES[c % DASHES.len()];
                if !dash.is_empty() {
                    w!(b, r#" stroke-dasharray="{dash}""#);
                }
                w!(b, r#" d="{d}"/>"#);
            }
            // Dots are circles (hollow for odd colours, for greyscale). On a
            // line, each point is a hover target: a stroke 0.1 px long with
            // round 6 px caps, transparent (shorter than a circle, about a
            // kilobyte per hundred points).
            let dots = matches!(s.style, SeriesStyle::Dots | SeriesStyle::LineDots);
            b.push_str(match (dots, c % 2 == 1) {
                (false, _) => r#"<g fill="none" stroke-width="6" stroke-linecap="round" stroke-opacity="0">"#,
                (true, false) => r#"<g stroke="none">"#,
                (true, true) => r##"<g fill="#fff" stroke-width="1.5">"##,
            });
            for (i, (q, raw)) in px.iter().zip(sp).enumerate() {
                let (Some((x, y)), Some((vx, vy))) = (q, raw) else { continue };
                if xlay.outside(*vx) || ylay.outside(*vy) {
                    outside += 1;
                }
                let tip = if multi {
                    format!("{}, {}: {}", s.name, self.x.value(*vx), self.y.value(*vy))
                } else {
                    format!("{}: {}", self.x.value(*vx), self.y.value(*vy))
                };
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
            b.push_str("</g></g>\n");
        }
        if outside > 0 {
            notes.push(format!(
                "{outside} point{} outside the axis range drawn at its edge",
                plural(outside)
            ));
        }
        if total == 0 {
            write_no_data(&mut b, p);
        }

        // Tick labels and axis titles.
        write_y_labels(&mut b, p, &ylay);
        b.push_str(r##"<g class="ticks-x" text-anchor="middle" fill="#333">"##);
        for (v, l) in &xlay.ticks {
            w!(b, r#"<text x="{}" y="{}">{}</text>"#, N(xlay.px(*v)), N(p.bottom + 15.0), escape(l));
        }
        b.push_str("</g>\n");
        write_axis_titles(&mut b, p, Some((&x_title, p.bottom + 29.0)), &y_title);

        // The description: what a screen reader says instead of the picture.
        let mut d = format!(
            "Line chart. x: {}, {}. y: {}, {}.",
            x_title,
            xlay.describe(),
            y_title,
            ylay.describe()
        );
        if total == 0 {
            d.push_str(" No data.");
        }
        for (s, sp) in self.series.iter().zip(&pts) {
            let n = sp.iter().flatten().count();
            w!(d, " {}: {n} point{}", s.name, plural(n));
            if let Some((a, z)) = extent(sp.iter().flatten().map(|p| p.1)) {
                w!(d, ", y from {} to {}", self.y.value(a), self.y.value(z));
            }
            d.push('.');
        }
        for (_, _, tip) in &hlines {
            w!(d, " Line {tip}.");
        }
        for band in &bands {
            w!(d, " Band {}: {} to {}.", band.label, self.x.value(band.from), self.x.value(band.to));
        }
        for m in &markers {
            w!(d, " Marker {} at {}.", m.label, self.x.value(m.x));
        }
        for note in &notes {
            w!(d, " Note: {note}.");
        }
        document("line-chart", wu, hu, total, &self.title, &d, &b)
    }
}

// ------------------------------------------------------------ bar chart

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

#[cfg(test)]
mod tests {
    use super::*;

    // ---- a tiny XML well-formedness check (elements, attributes, references)

    /// Checks that `s` is one well-formed XML element: tags nest and match,
    /// attributes are `name="value"` once each, `<` never appears in values
    /// or text, every `&` starts a known reference. Returns the element names.
    fn well_formed(s: &str) -> Result<Vec<String>, String> {
        fn check_refs(t: &str) -> Result<(), String> {
            let mut rest = t;
            while let Some(i) = rest.find('&') {
                let r = &rest[i + 1..];
                let end = r.find(';').ok_or_else(|| format!("unterminated reference in {t:?}"))?;
                let name = &r[..end];
                let ok = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
                    || name
                        .strip_prefix("#x")
                        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
                    || name
                        .strip_prefix('#')
                        .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
                if !ok {
                    return Err(format!("bad reference &{name}; in {t:?}"));
                }
                rest = &r[end + 1..];
            }
            if t.contains('<') { Err(format!("raw < in {t:?}")) } else { Ok(()) }
        }
        let is_name = |n: &str| {
            !n.is_empty()
                && n.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c))
        };
        let mut stack: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut roots = 0;
        let mut rest = s;
        while !rest.is_empty() {
            let Some(lt) = rest.find('<') else {
                if !rest.trim().is_empty() && stack.is_empty() {
                    return Err("text outside the root".into());
                }
                check_refs(rest)?;
                break;
            };
            let text = &rest[..lt];
            if stack.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            check_refs(text)?;
            // The tag runs to the first '>' outside quotes.
            let tag_src = &rest[lt + 1..];
            let mut quote = None;
            let mut end = None;
            for (i, c) in tag_src.char_indices() {
                match (quote, c) {
                    (None, '"' | '\'') => quote = Some(c),
                    (Some(q), c) if c == q => quote = None,
                    (None, '>') => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.ok_or("unterminated tag")?;
            let tag = &tag_src[..end];
            rest = &tag_src[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().ok_or_else(|| format!("</{name}> without an open tag"))?;
                if open != name.trim() {
                    return Err(format!("</{name}> closes <{open}>"));
                }
                continue;
            }
            let (body, empty) = match tag.strip_suffix('/') {
                Some(b) => (b, true),
                None => (tag, false),
            };
            let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
            let name = &body[..name_end];
            if !is_name(name) {
                return Err(format!("bad element name {name:?}"));
            }
            if stack.is_empty() {
                roots += 1;
            }
            let mut attrs = body[name_end..].trim_start();
            let mut seen = Vec::new();
            while !attrs.is_empty() {
                let eq = attrs.find('=').ok_or_else(|| format!("attribute without value in <{name}>"))?;
                let an = attrs[..eq].trim();
                if !is_name(an) || seen.contains(&an) {
                    return Err(format!("bad or repeated attribute {an:?} in <{name}>"));
                }
                seen.push(an);
                let after = &attrs[eq + 1..];
                let q = after
                    .chars()
                    .next()
                    .filter(|c| *c == '"' || *c == '\'')
                    .ok_or("unquoted attribute")?;
                let close = after[1..].find(q).ok_or("unterminated attribute")?;
                check_refs(&after[1..1 + close])?;
                let tail = &after[close + 2..];
                if !tail.is_empty() && !tail.starts_with(char::is_whitespace) {
                    return Err(format!("no space between attributes in <{name}>"));
                }
                attrs = tail.trim_start();
            }
            names.push(name.to_string());
            if !empty {
                stack.push(name.to_string());
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed <{}>", stack.join("> <")));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(names)
    }

    fn count(s: &str, needle: &str) -> usize {
        s.matches(needle).count()
    }

    /// The text of each `<g class="series" …>…</g></g>` block, in order.
    fn series_blocks(svg: &str) -> Vec<&str> {
        svg.split("<g class=\"series\"")
            .skip(1)
            .map(|b| &b[..b.find("</g></g>").unwrap()])
            .collect()
    }

    fn attr<'a>(el: &'a str, name: &str) -> &'a str {
        let key = format!(" {name}=\"");
        let i = el.find(&key).unwrap_or_else(|| panic!("no {name} in {el}")) + key.len();
        &el[i..i + el[i..].find('"').unwrap()]
    }

    fn scan_chart(points: usize) -> LineChart {
        let mut c = LineChart::new(
            "Sequential read across the disk",
            Axis::linear("Position", "GiB"),
            Axis::linear("Throughput", "MB/s").from_zero(),
        );
        let pts: Vec<(f64, f64)> = (0..points).map(|i| (i as f64 * 9.31, 1834.567 - i as f64 * 9.876_543)).collect();
        c.series.push(Series::new("read", pts));
        c.hlines = vec![HLine::new("min", 857.1), HLine::new("avg", 1345.8), HLine::new("max", 1834.6)];
        c
    }

    fn assert_ok(svg: &str) {
        if let Err(e) = well_formed(svg) {
            panic!("not well-formed: {e}\n{svg}");
        }
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "), "{svg}");
        // Nothing outside the document: one URL (the namespace), no links, images, fonts or scripts.
        assert_eq!(count(svg, "http"), 1, "{svg}");
        for bad in ["href", "url(", "<image", "<script", "@font-face", "<style", "NaN", "inf"] {
            assert!(!svg.contains(bad), "{bad} in {svg}");
        }
        let id = attr(svg, "aria-labelledby");
        let (t, d) = id.split_once(' ').unwrap();
        assert!(svg.contains(&format!("<title id=\"{t}\">")) && svg.contains(&format!("<desc id=\"{d}\">")));
        assert!(svg.contains("role=\"img\""));
    }

    #[test]
    fn the_checker_rejects_what_it_should() {
        assert!(well_formed("<a><b x=\"1\"/></a>").is_ok());
        assert!(well_formed("<a><b></a>").is_err());
        assert!(well_formed("<a x=\"1\" x=\"2\"/>").is_err());
        assert!(well_formed("<a>x & y</a>").is_err());
        assert!(well_formed("<a>x &amp; y &#39;</a>").is_ok());
        assert!(well_formed("<a x=\"<\"/>").is_err());
        assert!(well_formed("<a/><b/>").is_err());
        assert!(well_formed("<a x=1/>").is_err());
    }

    #[test]
    fn point_counts_equal_data_lengths() {
        let mut c = LineChart::new("t", Axis::linear("x", ""), Axis::linear("y", "MB/s"));
        let lens = [7usize, 1, 30];
        for (k, &n) in lens.iter().enumerate() {
            let pts = (0..n).map(|i| (i as f64, (i * (k + 1)) as f64)).collect();
            let style = [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots][k];
            c.series.push(Series::new(format!("s{k}"), pts).with_style(style));
        }
        c.series
            .push(Series::new("steps", vec![(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)]).with_style(SeriesStyle::Step));
        let svg = c.to_svg();
        assert_ok(&svg);
        let blocks = series_blocks(&svg);
        assert_eq!(blocks.len(), 4);
        for (block, n) in blocks.iter().zip([7, 1, 30, 3]) {
            assert_eq!(count(block, "class=\"pt\""), n, "{block}");
            assert_eq!(count(block, "<title>"), n);
        }
        assert_eq!(attr(&svg, "data-points"), "41");
        assert_eq!(count(&svg, "class=\"pt\""), 41);
        // The step series draws horizontal-then-vertical segments.
        assert!(blocks[3].contains("d=\"M") && blocks[3].contains('h') && blocks[3].contains('v'));
        // A dots-only series has no line.
        assert!(!blocks[1].contains("<path"));
    }

    #[test]
    fn tooltips_carry_the_exact_value() {
        let svg = scan_chart(100).to_svg();
        assert!(svg.contains("<title>0 GiB: 1834.57 MB/s</title>"), "{svg}");
        assert!(svg.contains("<title>9.31 GiB: 1824.69 MB/s</title>"));
        assert_eq!(exact(1234.5678), "1234.57");
        assert_eq!(exact(999_999.7), "1000000");
        assert_eq!(exact(97.0), "97");
        assert_eq!(exact(-0.5), "-0.5");
        assert_eq!(exact(0.000_123_4), "0.0001234");
        assert_eq!(exact(1.5e-7), "1.5e-7");
        assert_eq!(exact(2.5e16), "2.5e16");
    }

    #[test]
    fn coordinates_have_at_most_one_decimal() {
        assert_eq!(N(12.0).to_string(), "12");
        assert_eq!(N(12.345).to_string(), "12.3");
        assert_eq!(N(-0.04).to_string(), "0");
        assert_eq!(N(-0.5).to_string(), "-0.5");
        assert_eq!(N(f64::NAN).to_string(), "0");
        let mut c = scan_chart(100);
        c.series
            .push(Series::new("dots", vec![(1.234, 1000.0 / 3.0), (2.0, 1e3 / 7.0)]).with_style(SeriesStyle::LineDots));
        let svg = c.to_svg();
        let mut seen = 0;
        for a in [" d=\"", " cx=\"", " cy=\"", " x=\"", " y=\"", " width=\"", " height=\""] {
            for v in svg.split(a).skip(1).map(|t| &t[..t.find('"').unwrap()]) {
                for num in v.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter(|t| !t.is_empty()) {
                    seen += 1;
                    assert!(num.split_once('.').is_none_or(|(_, d)| d.len() == 1), "{a}{v}");
                }
            }
        }
        assert!(seen > 500, "{seen}");
    }

    #[test]
    fn linear_ticks_are_nice() {
        assert_eq!(linear_ticks(0.0, 97.0, 6), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(linear_ticks(0.0, 97.0, 10).len(), 6); // 11 ticks of 10 are too many: 20 apart
        assert_eq!(linear_ticks(0.0, 1.0, 6), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(linear_ticks(0.1, 0.7, 4), vec![0.0, 0.5, 1.0]); // 0.2 apart would take 5
        assert_eq!(linear_ticks(-3.0, 7.0, 6), vec![-5.0, 0.0, 5.0, 10.0]);
        assert_eq!(
            linear_ticks(1200.0, 1900.0, 8),
            vec![1200.0, 1300.0, 1400.0, 1500.0, 1600.0, 1700.0, 1800.0, 1900.0]
        );
        // Through the axis layout, a 250 px tall axis over 0..97 gets the same ticks.
        let lay = layout(&Axis::linear("y", "").from_zero(), Some((3.0, 97.0)), 280.0, 30.0, false);
        let v: Vec<f64> = lay.ticks.iter().map(|t| t.0).collect();
        assert_eq!(v, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!((lay.lo, lay.hi), (0.0, 100.0));
    }

    /// Issue 16, found by the importer's property test at 100,000 cases: an
    /// axis over a few denormals (an imported IOPS of 5e-324) made the first
    /// decade `log10(0)`, and `i32::MIN - 1` overflowed.
    #[test]
    fn issue_16_regression_ticks_of_denormal_ranges() {
        for (lo, hi) in [
            (0.0, 5e-324),
            (5e-324, 1e-323),
            (-5e-324, 5e-324),
            (0.0, f64::MIN_POSITIVE),
            (0.0, f64::MAX),
            (-f64::MAX, f64::MAX),
        ] {
            for max in [0, 2, 6, 100] {
                let (v, _) = nice_ticks(lo, hi, max);
                assert!(!v.is_empty() && v.iter().all(|t| t.is_finite()), "{lo} {hi} {max}: {v:?}");
            }
        }
    }

    #[test]
    fn tick_labels_read_well() {
        let l = |lo, hi, max| {
            let (v, k) = nice_ticks(lo, hi, max);
            si_labels(&v, k.unwrap())
        };
        assert_eq!(l(0.0, 1.0, 6), ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(l(0.0, 97.0, 6), ["0", "20", "40", "60", "80", "100"]);
        assert_eq!(l(0.0, 480_000.0, 6), ["0", "100k", "200k", "300k", "400k", "500k"]);
        assert_eq!(
            l(10_000.0, 13_000.0, 7),
            ["10.0k", "10.5k", "11.0k", "11.5k", "12.0k", "12.5k", "13.0k"]
        );
        assert_eq!(l(0.0, 2.5e6, 6), ["0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"]);
        let dec: Vec<String> = [0.001, 0.1, 1.0, 100.0, 1e3, 1e5, 1e6, 1e9, 1e-5]
            .iter()
            .map(|&v| decade_label(v))
            .collect();
        assert_eq!(dec, ["0.001", "0.1", "1", "100", "1k", "100k", "1M", "1G", "1e-5"]);
        let p2: Vec<String> = [1.0, 32.0, 1024.0, 1048576.0, 0.5].iter().map(|&v| power_of_two_label(v)).collect();
        assert_eq!(p2, ["1", "32", "1024", "1M", "0.5"]);
        let bs = Axis::log2("Block size", "").with_format(TickFormat::Binary);
        assert_eq!(tick_labels(&bs, &[4096.0, 131072.0, 1048576.0], None), ["4K", "128K", "1M"]);
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(log_ticks(1e3, 5e6, 10.0, 10), vec![1e3, 1e4, 1e5, 1e6, 1e7]);
        assert_eq!(log_ticks(1e3, 1e6, 10.0, 10), vec![1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(200.0, 800.0, 10.0, 10), vec![100.0, 1000.0]);
        // Too many decades for the room: every second one, still covering the range.
        assert_eq!(log_ticks(1.0, 1e9, 10.0, 6), vec![1.0, 1e2, 1e4, 1e6, 1e8, 1e10]);
        assert_eq!(
            log_ticks(1.0, 256.0, 2.0, 10),
            vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
        );
        assert_eq!(log_ticks(1.0, 1024.0, 2.0, 6), vec![1.0, 4.0, 16.0, 64.0, 256.0, 1024.0]);
        assert!(log_ticks(0.0, 10.0, 10.0, 5).is_empty());
        let lay = layout(&Axis::log10("IOPS", ""), Some((1e3, 5e6)), 40.0, 600.0, true);
        let labels: Vec<&str> = lay.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1k", "10k", "100k", "1M", "10M"]);
        assert_eq!((lay.lo, lay.hi), (1e3, 1e7));
    }

    /// Asserts that neighbouring labels (centre x, width) are at least half their widths plus a gap apart.
    fn assert_apart(at: &[(f64, f64)]) {
        for p in at.windows(2) {
            let need = (p[0].1 + p[1].1) / 2.0 + GAP;
            assert!((p[1].0 - p[0].0).abs() >= need, "{:?} and {:?} overlap", p[0], p[1]);
        }
    }

    /// The x tick labels of a rendered chart: (centre x, width of the widest line, lines).
    fn x_labels(svg: &str) -> Vec<(f64, f64, Vec<String>)> {
        let xs = svg.split("<g class=\"ticks-x\"").nth(1).unwrap();
        let xs = &xs[..xs.find("</g>").unwrap()];
        xs.split("<text")
            .skip(1)
            .map(|t| {
                let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
                let unescape = |t: &str| {
                    t.replace("&lt;", "<")
                        .replace("&gt;", ">")
                        .replace("&quot;", "\"")
                        .replace("&#39;", "'")
                        .replace("&amp;", "&")
                };
                let lines: Vec<String> = body
                    .split("<tspan")
                    .map(|l| unescape(&l[l.find('>').map_or(0, |i| i + 1)..].replace("</tspan>", "")))
                    .collect();
                let width = lines.iter().map(|l| text_width(l)).fold(0.0, f64::max);
                (attr(t, "x").parse().unwrap(), width, lines)
            })
            .collect()
    }

    #[test]
    fn category_labels_never_overlap() {
        let placed = |c: &[CatLabel]| c.iter().map(|l| (l.x, l.width())).collect::<Vec<_>>();
        let forty: Vec<String> = (1..=40).map(|i| format!("zone {i}")).collect();
        let shown = category_labels(&forty, 60.0, 560.0);
        assert!(shown.len() < 40 && shown.len() >= 5, "{}", shown.len());
        assert_eq!(shown[0].index, 0);
        let k = shown[1].index - shown[0].index;
        assert!(shown.windows(2).all(|p| p[1].index - p[0].index == k), "every k-th label");
        assert_apart(&placed(&shown));
        assert!(
            shown.iter().all(|l| l.lines == [forty[l.index].clone()]),
            "short labels are not cut"
        );

        let three: Vec<String> = ["seq read 1M Q8T1", "random read 4K Q32T16 with a long name", "seq write"]
            .map(String::from)
            .to_vec();
        for width in [560.0, 300.0, 120.0, 30.0] {
            let shown = category_labels(&three, 60.0, width);
            assert_apart(&placed(&shown));
            assert!(shown.iter().all(|l| l.width() <= MAX_LABEL_W));
        }
        assert_eq!(category_labels(&three, 60.0, 560.0).len(), 3);
        let lines: Vec<usize> = category_labels(&three, 60.0, 560.0).iter().map(|l| l.lines.len()).collect();
        assert_eq!(lines, [1, 2, 1], "only the long label is broken");
        // Wrapping in two lines keeps all labels of a battery when one line each would not fit.
        let battery: Vec<String> = [
            "SEQ1M Q8T1",
            "SEQ1M Q1T1",
            "RND4K Q32T16",
            "RND4K Q1T1",
            "SEQ128K Q32T1",
            "RND4K Q8T8",
            "mixed 70/30",
            "fsync",
        ]
        .map(String::from)
        .to_vec();
        let shown = category_labels(&battery, 60.0, 560.0);
        assert_eq!(shown.len(), 8);
        assert_eq!(shown[0].lines, ["SEQ1M", "Q8T1"]);
        assert_eq!(shown[7].lines, ["fsync"]);
        assert_apart(&placed(&shown));

        // And in rendered charts: few categories with wide labels on a narrow chart, a battery, forty zones.
        for (cats, width) in [(three, 200), (battery, 640), (forty, 400)] {
            let mut c = BarChart::new("t", cats.clone(), Axis::linear("Throughput", "MB/s"));
            c.width = width;
            c.groups.push(BarSeries::new("a", cats.iter().map(|_| Some(1.0)).collect()));
            let svg = c.to_svg();
            assert_ok(&svg);
            let at = x_labels(&svg);
            assert!(!at.is_empty());
            assert_apart(&at.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>());
            assert!(
                at.iter().all(|l| l.0 - l.1 / 2.0 >= 0.0 && l.0 + l.1 / 2.0 <= f64::from(width)),
                "inside the chart: {at:?}"
            );
        }
    }

    #[test]
    fn numeric_tick_labels_never_overlap() {
        for width in [160u32, 240, 400, 640, 1200] {
            for (lo, hi) in [(0.0, 97.0), (0.0, 3.0e12), (1.0e3, 5.0e6), (-0.5, 0.25)] {
                let lay = layout(&Axis::linear("x", ""), Some((lo, hi)), 50.0, f64::from(width) - 20.0, true);
                assert_apart(&lay.ticks.iter().map(|t| (lay.px(t.0), text_width(&t.1))).collect::<Vec<_>>());
                assert!(!lay.ticks.is_empty());
            }
        }
        // A line chart with three x values (three zones) on a narrow chart.
        let mut c = LineChart::new("", Axis::linear("Position", "GiB"), Axis::linear("MB/s", ""));
        c.width = 160;
        c.series.push(Series::new("r", vec![(0.0, 100.0), (465.76, 90.0), (931.51, 80.0)]));
        let svg = c.to_svg();
        assert_ok(&svg);
        let at = x_labels(&svg);
        assert!(at.len() >= 2);
        assert_apart(&at.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>());
        assert!(
            at.iter().all(|l| l.0 - l.1 / 2.0 >= 0.0 && l.0 + l.1 / 2.0 <= 160.0),
            "inside the chart: {at:?}"
        );
    }

    #[test]
    fn every_text_is_escaped() {
        let nasty = "<b>R&D \"fast\" 'disk'</b>\u{1}";
        let mut c = LineChart::new(nasty, Axis::linear(nasty, nasty), Axis::linear(nasty, ""));
        c.series.push(Series::new(nasty, vec![(1.0, 2.0), (2.0, 3.0)]));
        c.series.push(Series::new("b", vec![(1.0, 1.0)]));
        c.hlines.push(HLine::new(nasty, 2.5));
        c.bands.push(Band::new(nasty, 1.0, 1.5));
        c.markers.push(Marker::new(nasty, 1.2));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert!(!svg.contains("<b>") && !svg.contains("R&D"));
        assert!(svg.contains("&lt;b&gt;R&amp;D &quot;fast&quot; &#39;disk&#39;&lt;/b&gt;\u{FFFD}"));
        let mut b = BarChart::new(nasty, vec![nasty.to_string()], Axis::linear(nasty, nasty));
        b.groups
            .push(BarSeries::new(nasty, vec![Some(1.0)]).with_whiskers(vec![Some((0.5, 1.5))]));
        b.references.push(Reference {
            label: nasty.into(),
            values: vec![Some(1.2)],
        });
        b.hlines.push(HLine::new(nasty, 1.0));
        let svg = b.to_svg();
        assert_ok(&svg);
        assert!(!svg.contains("<b>") && !svg.contains("R&D"));
    }

    #[test]
    fn a_100_point_chart_fits_the_budget() {
        let svg = scan_chart(100).to_svg();
        assert_ok(&svg);
        assert!(svg.len() < 12_000, "{} bytes", svg.len());
        assert_eq!(count(&svg, "class=\"pt\""), 100);
        assert_eq!(count(&svg, "class=\"hline\""), 3);
        // One series: no legend.
        assert!(!svg.contains("class=\"legend\""));
    }

    #[test]
    fn edge_cases_do_not_panic_and_are_described() {
        // No series at all, and an empty one.
        let mut c = LineChart::new("empty", Axis::linear("x", ""), Axis::log10("y", ""));
        assert!(c.to_svg().contains("no data"));
        c.series.push(Series::new("none", vec![]));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert!(svg.contains("class=\"no-data\"") && svg.contains("No data."));
        assert_eq!(attr(&svg, "data-points"), "0");
        assert!(svg.contains("class=\"axis\""));

        // A single point, and all-equal values: visible, axes open around them.
        for pts in [
            vec![(5.0, 42.0)],
            vec![(1.0, 7.0), (2.0, 7.0), (3.0, 7.0)],
            vec![(0.0, 0.0), (0.0, 0.0)],
        ] {
            let n = pts.len();
            let mut c = LineChart::new("one", Axis::linear("x", ""), Axis::linear("y", ""));
            c.series.push(Series::new("s", pts));
            let svg = c.to_svg();
            assert_ok(&svg);
            assert_eq!(count(&svg, "class=\"pt\""), n);
        }
        let mut c = LineChart::new("one", Axis::linear("x", ""), Axis::linear("y", ""));
        c.series.push(Series::new("s", vec![(5.0, 42.0)]));
        assert!(c.to_svg().contains("<path class=\"pt\" d=\"M"), "a lone point on a line is shown");
        assert!(c.to_svg().contains("stroke-opacity=\"1\""), "a lone point on a line is shown");

        // Zeros, negatives, NaN and infinities on a log axis: skipped and said so.
        let mut c = LineChart::new("lat", Axis::log2("Queue depth", ""), Axis::log10("Latency", "µs"));
        c.series.push(Series::new(
            "p99",
            vec![
                (1.0, 80.0),
                (2.0, 0.0),
                (4.0, -3.0),
                (8.0, f64::NAN),
                (16.0, f64::INFINITY),
                (0.0, 5.0),
                (32.0, 900.0),
            ],
        ));
        c.hlines.push(HLine::new("zero", 0.0));
        c.markers.push(Marker::new("nan", f64::NAN));
        c.bands.push(Band::new("neg", -1.0, 4.0));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert_eq!(count(&svg, "class=\"pt\""), 2);
        let desc = &svg[svg.find("<desc").unwrap()..svg.find("</desc>").unwrap()];
        assert!(desc.contains("2 non-finite points skipped"), "{desc}");
        assert!(desc.contains("3 points with a zero or negative value skipped"), "{desc}");
        assert!(desc.contains("line &#39;zero&#39; (0) cannot be drawn"), "{desc}");
        assert!(
            desc.contains("marker &#39;nan&#39;") && desc.contains("band &#39;neg&#39;"),
            "{desc}"
        );

        // Values near the largest f64, and the smallest.
        for ys in [
            [1.6536355187606985e308, -8.081003773969927e35],
            [f64::MAX, f64::MAX],
            [f64::MIN_POSITIVE, 5e-324],
        ] {
            for y in [Axis::linear("y", ""), Axis::log10("y", "")] {
                let mut c = LineChart::new("huge", Axis::linear("x", ""), y);
                c.series.push(Series::new("s", vec![(0.0, ys[0]), (1.0, ys[1])]));
                assert_ok(&c.to_svg());
            }
        }

        // Fixed ranges the data exceed; absurdly small charts.
        let mut c = scan_chart(10);
        c.y = c.y.with_range(Some(0.0), Some(1000.0));
        c.width = 1;
        c.height = 1;
        let svg = c.to_svg();
        assert_ok(&svg);
        assert!(svg.contains("drawn at its edge"));

        // Bar charts: nothing, missing values, ragged groups, log axis.
        let mut b = BarChart::new("", vec![], Axis::linear("y", ""));
        assert_ok(&b.to_svg());
        b.categories = vec!["a".into(), "b".into()];
        b.groups.push(BarSeries::new("g", vec![None, Some(f64::NAN), Some(3.0)]));
        b.groups
            .push(BarSeries::new("h", vec![]).with_whiskers(vec![Some((f64::NAN, 1.0))]));
        let svg = b.to_svg();
        assert_ok(&svg);
        assert_eq!(attr(&svg, "data-points"), "0");
        assert!(svg.contains("no data") && svg.contains("beyond the last category"));
        b.y = Axis::log10("y", "");
        b.groups[0].values = vec![Some(0.0), Some(10.0)];
        let svg = b.to_svg();
        assert_ok(&svg);
        assert_eq!(count(&svg, "class=\"bar\""), 1);
        assert!(svg.contains("1 value skipped: zero, negative"));
    }

    #[test]
    fn bars_whiskers_and_references() {
        let cats: Vec<String> = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]
            .map(String::from)
            .to_vec();
        let mut c = BarChart::new("Read", cats, Axis::linear("Throughput", "MB/s"));
        c.groups.push(
            BarSeries::new("run A", vec![Some(3500.0), Some(2100.0), Some(900.0), Some(60.5)]).with_whiskers(vec![
                Some((3400.0, 3600.0)),
                None,
                Some((850.0, 950.0)),
                Some((58.0, 63.0)),
            ]),
        );
        c.groups
            .push(BarSeries::new("run B", vec![Some(3300.0), None, Some(1000.0), Some(55.0)]));
        c.references.push(Reference {
            label: "ideal sum".into(),
            values: vec![Some(7000.0), None, None, None],
        });
        c.hlines.push(HLine::new("limit", 4000.0));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert_eq!(count(&svg, "class=\"bar\""), 7);
        assert_eq!(attr(&svg, "data-points"), "7");
        assert_eq!(count(&svg, "class=\"whisker\""), 3);
        assert_eq!(count(&svg, "class=\"ref\""), 1);
        assert!(
            svg.contains("<title>SEQ1M Q8T1, run A: 3500 MB/s (interval 3400 to 3600)</title>"),
            "{svg}"
        );
        assert!(svg.contains("class=\"legend\"") && svg.contains(">ideal sum</text>"));
        // The y axis reaches the reference and starts at zero.
        let labels = svg.split("<g class=\"ticks-y\"").nth(1).unwrap();
        assert!(labels.contains(">0</text>") && labels.contains(">7000</text>"), "{labels}");
        // Bars stand on the zero line.
        let base: Vec<f64> = svg
            .split("<rect class=\"bar\"")
            .skip(1)
            .map(|r| attr(r, "y").parse::<f64>().unwrap() + attr(r, "height").parse::<f64>().unwrap())
            .collect();
        assert!(base.windows(2).all(|p| (p[0] - p[1]).abs() < 0.15), "{base:?}");
        // The two groups differ in colour.
        let fills: Vec<&str> = svg.split("<g class=\"bars\"").skip(1).map(|g| attr(g, "fill")).collect();
        assert_eq!(fills, [PALETTE[0], PALETTE[1]]);
    }

    #[test]
    fn several_series_get_a_legend_and_distinct_dashes() {
        let mut c = LineChart::new("Runs", Axis::linear("Time", "s"), Axis::linear("Throughput", "MB/s"));
        c.series.push(Series::new("read", vec![(0.0, 1.0), (1.0, 2.0)]));
        c.series.push(Series::new("write", vec![(0.0, 2.0), (1.0, 1.0)]));
        c.bands.push(Band::new("warm-up", 0.0, 0.2));
        c.bands.push(Band::new("run 1", 0.2, 1.0));
        c.markers.push(Marker::new("write cliff", 0.6));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert!(svg.contains("class=\"legend\"") && svg.contains(">read</text>") && svg.contains(">write</text>"));
        let blocks = series_blocks(&svg);
        assert!(!blocks[0].contains("stroke-dasharray"));
        assert!(blocks[1].contains("stroke-dasharray=\"6 3\""));
        assert_ne!(attr(blocks[0], "stroke"), attr(blocks[1], "stroke"));
        assert_eq!(count(&svg, "class=\"band\""), 2);
        assert!(svg.contains(">run 1</text>") && svg.contains(">write cliff</text>"));
        assert!(svg.contains("class=\"axis-label\""));
        assert!(svg.contains(">Throughput (MB/s)</text>"));
    }

    #[test]
    fn ids_differ_between_charts() {
        let a = scan_chart(10).to_svg();
        let b = scan_chart(11).to_svg();
        assert_ne!(attr(&a, "aria-labelledby"), attr(&b, "aria-labelledby"));
        assert_eq!(a, scan_chart(10).to_svg(), "the output is deterministic");
    }

    // ---- the output, byte for byte
    //
    // Representative charts, each kept as an insta snapshot, and a corpus
    // of generated charts kept as one digest: the snapshots were recorded by
    // the single-file writer before it became a folder, so the refactoring
    // is proven to leave every byte as it was.

    fn milliseconds(v: f64) -> String {
        format!("{:.0} ms", v * 1e3)
    }

    /// Lines: log axes, reference lines, bands and markers, every style, ranges the data exceed, edge cases.
    fn representative_lines() -> Vec<(&'static str, LineChart)> {
        let mut out = Vec::new();

        // Latency against block size: log2 x in bytes, log10 y, a skipped zero, a limit.
        let mut c = LineChart::new(
            "Latency by block size",
            Axis::log2("Block size", "").with_format(TickFormat::Binary),
            Axis::log10("Latency", "µs"),
        );
        let sizes = [4096.0, 8192.0, 16384.0, 65536.0, 131072.0, 1048576.0];
        c.series.push(
            Series::new(
                "p50",
                sizes
                    .iter()
                    .zip([80.0, 85.0, 97.0, 180.0, 310.0, 2100.0])
                    .map(|(&x, y)| (x, y))
                    .collect(),
            )
            .with_style(SeriesStyle::LineDots),
        );
        c.series.push(Series::new(
            "p99",
            sizes
                .iter()
                .zip([900.0, 0.0, 1500.0, 4000.0, 9000.0, 60000.0])
                .map(|(&x, y)| (x, y))
                .collect(),
        ));
        c.hlines.push(HLine::new("SLO", 10000.0));
        out.push(("line_log_axes", c));

        // A latency distribution: percentiles on a log10 x, steps.
        let mut c = LineChart::new(
            "Latency distribution",
            Axis::log10("Latency", "µs"),
            Axis::linear("Percentile", "%"),
        );
        let pts = (0..40)
            .map(|i| (10f64.powf(1.0 + i as f64 * 0.11), (i as f64 * 2.6).min(99.99)))
            .collect();
        c.series.push(Series::new("read", pts).with_style(SeriesStyle::Step));
        out.push(("line_log_x_steps", c));

        // A scan curve with min, average and max lines.
        out.push(("line_reference_lines", scan_chart(100)));

        // A timeline: four series in every style, bands, markers crowding the right edge, a narrow legend.
        let mut c = LineChart::new(
            "Throughput over time",
            Axis::linear("Time", "s"),
            Axis::linear("Throughput", "MB/s").from_zero(),
        );
        c.width = 420;
        for (k, style) in [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots, SeriesStyle::Step]
            .into_iter()
            .enumerate()
        {
            let pts = (0..25).map(|i| (i as f64, 100.0 + (k * 37 + i * 13 % 29) as f64)).collect();
            c.series
                .push(Series::new(format!("job number {k} with a long name"), pts).with_style(style));
        }
        c.series.push(Series::new("coloured", vec![(3.0, 50.0), (9.0, 60.0)]).with_color(5));
        c.bands = vec![
            Band::new("warm-up", 0.0, 2.0),
            Band::new("run 1", 2.0, 12.0),
            Band::new("run 2 with a label too long", 12.0, 14.0),
        ];
        c.markers = vec![
            Marker::new("write cliff", 6.0),
            Marker::new("second", 6.5),
            Marker::new("third", 7.0),
            Marker::new("fourth, no row left", 7.2),
            Marker::new("near the end", 23.5),
        ];
        c.hlines = vec![HLine::new("", 120.0), HLine::new("close", 121.0), HLine::new("closer", 122.0)];
        out.push(("line_bands_markers_styles", c));

        // A fixed range the data exceed, fixed and custom tick formats, breaks in the line.
        let mut c = LineChart::new(
            "Fixed range",
            Axis::linear("Elapsed", "").with_format(TickFormat::Custom(milliseconds)),
            Axis::linear("Rate", "IOPS")
                .with_range(Some(0.0), Some(1000.0))
                .with_format(TickFormat::Fixed(1)),
        );
        c.series.push(Series::new(
            "r",
            vec![
                (0.0, 10.0),
                (0.1, 1500.0),
                (0.2, f64::NAN),
                (0.3, 400.0),
                (0.4, f64::INFINITY),
                (0.5, -20.0),
                (0.6, 300.0),
            ],
        ));
        out.push(("line_fixed_range_breaks", c));

        // Large numbers: SI prefixes on both axes.
        let mut c = LineChart::new("Big", Axis::linear("Bytes", "B"), Axis::linear("IOPS", ""));
        c.series.push(Series::new(
            "s",
            (0..12).map(|i| (i as f64 * 2.5e11, 1.2e4 + i as f64 * 3.3e5)).collect(),
        ));
        out.push(("line_si_prefixes", c));

        // Edge cases: nothing, an empty series on a log axis, one point, equal values, a 1 × 1 chart, no titles.
        out.push((
            "line_no_series",
            LineChart::new("empty", Axis::linear("x", ""), Axis::linear("y", "")),
        ));
        let mut c = LineChart::new("empty series", Axis::linear("x", ""), Axis::log10("y", "ms"));
        c.series.push(Series::new("none", vec![]));
        out.push(("line_empty_series_log", c));
        let mut c = LineChart::new("one", Axis::linear("x", "s"), Axis::linear("y", "MB/s"));
        c.series.push(Series::new("s", vec![(5.0, 42.0)]));
        out.push(("line_one_point", c));
        let mut c = LineChart::new("one on log axes", Axis::log2("QD", ""), Axis::log10("IOPS", ""));
        c.series.push(Series::new("s", vec![(8.0, 42000.0)]).with_style(SeriesStyle::Dots));
        out.push(("line_one_point_log", c));
        let mut c = LineChart::new("equal", Axis::linear("x", ""), Axis::linear("y", ""));
        c.series.push(Series::new("s", vec![(1.0, 7.0), (2.0, 7.0), (3.0, 7.0)]));
        c.series.push(Series::new("zeros", vec![(0.0, 0.0), (0.0, 0.0)]));
        out.push(("line_equal_values", c));
        let mut c = scan_chart(10);
        c.width = 1;
        c.height = 1;
        out.push(("line_tiny", c));
        let mut c = LineChart::new("", Axis::linear("", ""), Axis::linear("", ""));
        c.series.push(Series::new("", vec![(0.0, 1.0), (1.0, 2.0)]));
        out.push(("line_untitled", c));
        out
    }

    /// Bars: groups with whiskers and references, many categories, log and negative axes, edge cases.
    fn representative_bars() -> Vec<(&'static str, BarChart)> {
        let mut out = Vec::new();
        let battery: Vec<String> = [
            "SEQ1M Q8T1",
            "SEQ1M Q1T1",
            "RND4K Q32T16",
            "RND4K Q1T1",
            "SEQ128K Q32T1",
            "RND4K Q8T8",
            "mixed 70/30",
            "fsync",
        ]
        .map(String::from)
        .to_vec();
        let mut c = BarChart::new("Read", battery.clone(), Axis::linear("Throughput", "MB/s"));
        c.groups.push(
            BarSeries::new(
                "run A",
                vec![
                    Some(3500.0),
                    Some(2100.0),
                    Some(900.0),
                    Some(60.5),
                    Some(3100.0),
                    Some(700.0),
                    Some(400.0),
                    Some(0.4),
                ],
            )
            .with_whiskers(vec![Some((3400.0, 3600.0)), None, Some((950.0, 850.0)), Some((58.0, 63.0))]),
        );
        c.groups.push(BarSeries::new(
            "run B",
            vec![Some(3300.0), None, Some(1000.0), Some(55.0), Some(2900.0)],
        ));
        c.groups
            .push(BarSeries::new("run C", vec![Some(3200.0); 8]).with_whiskers(vec![Some((3000.0, 3300.0)); 8]));
        c.references.push(Reference {
            label: "ideal sum".into(),
            values: vec![Some(7000.0), None, Some(2000.0)],
        });
        c.hlines.push(HLine::new("limit", 4000.0));
        out.push(("bars_grouped_whiskers", c));

        let zones: Vec<String> = (1..=40).map(|i| format!("zone {i} of the disk with a long name")).collect();
        let mut c = BarChart::new("Zones", zones, Axis::linear("Throughput", "MB/s").from_zero());
        c.width = 400;
        c.groups
            .push(BarSeries::new("read", (0..40).map(|i| Some(1800.0 - i as f64 * 20.0)).collect()));
        out.push(("bars_many_categories", c));

        let mut c = BarChart::new("Log", vec!["a".into(), "b".into(), "c".into(), "d".into()], Axis::log10("IOPS", ""));
        c.groups.push(
            BarSeries::new("g", vec![Some(0.0), Some(10.0), Some(1e6), Some(10.05)]).with_whiskers(vec![
                None,
                Some((5.0, 20.0)),
                Some((-1.0, 2e6)),
                None,
            ]),
        );
        c.groups.push(BarSeries {
            color: Some(3),
            ..BarSeries::new("h", vec![Some(100.0), Some(f64::NAN), None, Some(3.0), Some(4.0)])
        });
        c.hlines.push(HLine::new("negative", -5.0));
        out.push(("bars_log_axis", c));

        let mut c = BarChart::new(
            "Signed",
            vec!["gain".into(), "loss".into(), "tiny".into()],
            Axis::linear("Change", "%").with_range(None, Some(50.0)),
        );
        c.groups.push(BarSeries::new("delta", vec![Some(80.0), Some(-30.0), Some(-0.01)]));
        out.push(("bars_signed_range", c));

        let mut c = BarChart::new("", vec!["only".into()], Axis::linear("", ""));
        c.groups.push(BarSeries::new("g", vec![Some(1.0)]));
        out.push(("bars_one", c));
        out.push(("bars_empty", BarChart::new("nothing", vec![], Axis::linear("y", ""))));
        out
    }

    #[test]
    fn representative_charts_are_written_as_before() {
        let nasty = "<b>R&D \"fast\" 'disk'</b>\u{1}\n";
        let mut line = LineChart::new(nasty, Axis::linear(nasty, nasty), Axis::linear(nasty, ""));
        line.series.push(Series::new(nasty, vec![(1.0, 2.0), (2.0, 3.0)]));
        line.series.push(Series::new("b", vec![(1.0, 1.0)]));
        line.hlines.push(HLine::new(nasty, 2.5));
        line.bands.push(Band::new(nasty, 1.0, 1.5));
        line.markers.push(Marker::new(nasty, 1.2));
        let mut bars = BarChart::new(nasty, vec![nasty.to_string()], Axis::linear(nasty, nasty));
        bars.groups
            .push(BarSeries::new(nasty, vec![Some(1.0)]).with_whiskers(vec![Some((0.5, 1.5))]));
        bars.references.push(Reference {
            label: nasty.into(),
            values: vec![Some(1.2)],
        });
        let charts = representative_lines()
            .into_iter()
            .map(|(n, c)| (n, c.to_svg()))
            .chain(representative_bars().into_iter().map(|(n, c)| (n, c.to_svg())))
            .chain([("escaped_line", line.to_svg()), ("escaped_bars", bars.to_svg())]);
        insta::with_settings!({snapshot_path => "svg/snapshots", omit_expression => true}, {
            for (name, svg) in charts {
                assert_ok(&svg);
                insta::assert_snapshot!(name, svg);
            }
        });
    }

    /// A small deterministic generator (xorshift64*), for the corpus.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        /// A value of any sign and magnitude, sometimes zero, non-finite or repeated.
        fn value(&mut self) -> f64 {
            match self.below(20) {
                0 => 0.0,
                1 => f64::NAN,
                2 => f64::INFINITY,
                3 => 42.0,
                k => {
                    let sign = if k < 6 { -1.0 } else { 1.0 };
                    let mag = (self.below(2400) as f64 - 1200.0) / 100.0;
                    sign * 10f64.powf(mag) * (1.0 + self.below(1000) as f64 / 1000.0)
                }
            }
        }
        fn axis(&mut self, label: &str) -> Axis {
            let mut a = match self.below(3) {
                0 => Axis::linear(label, "u"),
                1 => Axis::log10(label, ""),
                _ => Axis::log2(label, "B"),
            };
            a.format = match self.below(5) {
                0 => TickFormat::Fixed(self.below(3) as usize),
                1 => TickFormat::Binary,
                2 => TickFormat::Custom(milliseconds),
                _ => TickFormat::Auto,
            };
            match self.below(4) {
                0 => a.from_zero(),
                1 => {
                    let (lo, hi) = (self.value(), self.value());
                    a.with_range(Some(lo), Some(hi))
                }
                _ => a,
            }
        }
        fn text(&mut self) -> String {
            let words = [
                "read",
                "SEQ1M Q8T1",
                "a rather long label for a category",
                "<&>",
                "",
                "µs",
                "zone 12",
            ];
            (0..self.below(3) + 1)
                .map(|_| words[self.below(words.len() as u64) as usize])
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    fn generated_line(g: &mut Gen) -> LineChart {
        let mut c = LineChart::new(g.text(), g.axis("x"), g.axis("y"));
        c.width = 100 + g.below(900) as u32;
        c.height = 80 + g.below(400) as u32;
        for k in 0..g.below(5) {
            let ascending = g.below(2) == 0;
            let pts = (0..g.below(60))
                .map(|i| (if ascending { i as f64 * 1.7 + 1.0 } else { g.value() }, g.value()))
                .collect();
            let style = [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots, SeriesStyle::Step][g.below(4) as usize];
            let mut s = Series::new(format!("s{k} {}", g.text()), pts).with_style(style);
            if g.below(4) == 0 {
                s = s.with_color(g.below(9) as usize);
            }
            c.series.push(s);
        }
        for _ in 0..g.below(4) {
            c.hlines.push(HLine::new(g.text(), g.value()));
        }
        for _ in 0..g.below(3) {
            let (a, b) = (g.value(), g.value());
            c.bands.push(Band::new(g.text(), a, b));
        }
        for _ in 0..g.below(4) {
            c.markers.push(Marker::new(g.text(), g.value()));
        }
        c
    }

    fn generated_bars(g: &mut Gen) -> BarChart {
        let n = g.below(30) as usize;
        let cats = (0..n).map(|_| g.text()).collect();
        let mut c = BarChart::new(g.text(), cats, g.axis("y"));
        c.width = 100 + g.below(900) as u32;
        c.height = 80 + g.below(400) as u32;
        for k in 0..g.below(5) {
            let values = (0..g.below(n as u64 + 3))
                .map(|_| if g.below(6) == 0 { None } else { Some(g.value()) })
                .collect();
            let mut s = BarSeries::new(format!("g{k}"), values);
            if g.below(2) == 0 {
                let w = (0..g.below(n as u64 + 3))
                    .map(|_| if g.below(4) == 0 { None } else { Some((g.value(), g.value())) })
                    .collect();
                s = s.with_whiskers(w);
            }
            if g.below(4) == 0 {
                s.color = Some(g.below(9) as usize);
            }
            c.groups.push(s);
        }
        for _ in 0..g.below(3) {
            c.hlines.push(HLine::new(g.text(), g.value()));
        }
        for _ in 0..g.below(3) {
            let values = (0..g.below(n as u64 + 2))
                .map(|_| if g.below(3) == 0 { None } else { Some(g.value()) })
                .collect();
            c.references.push(Reference { label: g.text(), values });
        }
        c
    }

    /// 600 generated charts of every kind, their bytes summed up in one digest (FNV-1a, 64 bits).
    #[test]
    fn a_corpus_of_generated_charts_is_written_as_before() {
        let mut g = Gen(0x9e37_79b9_7f4a_7c15);
        let (mut bytes, mut hash) = (0usize, 0xcbf2_9ce4_8422_2325u64);
        let mut points = 0usize;
        for i in 0..600 {
            let svg = if i % 2 == 0 {
                generated_line(&mut g).to_svg()
            } else {
                generated_bars(&mut g).to_svg()
            };
            // Well-formed, not `assert_ok`: a line at a non-finite value is noted in the description as "(inf)".
            if let Err(e) = well_formed(&svg) {
                panic!("chart {i} not well-formed: {e}\n{svg}");
            }
            points += attr(&svg, "data-points").parse::<usize>().unwrap();
            bytes += svg.len();
            for b in svg.bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        let digest = format!("600 charts, {points} points, {bytes} bytes, FNV-1a 64: {hash:016x}");
        insta::with_settings!({snapshot_path => "svg/snapshots", omit_expression => true}, {
            insta::assert_snapshot!(digest);
        });
    }

    proptest::proptest! {
        #[test]
        fn linear_ticks_cover_the_range(lo in -1e9f64..1e9, span in 1e-6f64..1e9, max in 2usize..=10) {
            let hi = lo + span;
            let t = linear_ticks(lo, hi, max);
            proptest::prop_assert!(t.len() >= 2, "{t:?}");
            proptest::prop_assert!(t.len() <= max.max(3), "{t:?}");
            proptest::prop_assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
            let tol = (t[1] - t[0]) * 1e-6;
            proptest::prop_assert!(t[0] <= lo + tol && *t.last().unwrap() >= hi - tol, "{lo} {hi} {t:?}");
        }

        #[test]
        fn log_ticks_cover_the_range(a in -12f64..12.0, decades in 0.0f64..15.0, max in 2usize..=10, two: bool) {
            let base: f64 = if two { 2.0 } else { 10.0 };
            let (lo, hi) = (base.powf(a), base.powf(a + decades));
            let t = log_ticks(lo, hi, base, max);
            proptest::prop_assert!(t.len() >= 2 && t.len() <= max, "{t:?}");
            proptest::prop_assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
            proptest::prop_assert!(t[0] <= lo * (1.0 + 1e-9) && *t.last().unwrap() >= hi * (1.0 - 1e-9), "{lo} {hi} {t:?}");
        }

        #[test]
        fn any_bar_chart_is_well_formed(
            cats in proptest::collection::vec("\\PC{0,24}", 0..30),
            a in proptest::collection::vec(proptest::option::of(proptest::num::f64::ANY), 0..30),
            b in proptest::collection::vec(proptest::option::of(-1e4f64..1e6), 0..30),
            log: bool,
            w in 100u32..900,
        ) {
            let y = if log { Axis::log10("y", "u") } else { Axis::linear("y", "u") };
            let mut c = BarChart::new("p", cats.clone(), y);
            c.width = w;
            c.groups.push(BarSeries::new("a", a.clone()));
            let whiskers = b.iter().map(|v| v.map(|v| (v * 0.9, v * 1.1))).collect();
            c.groups.push(BarSeries::new("b", b.clone()).with_whiskers(whiskers));
            let svg = c.to_svg();
            proptest::prop_assert!(well_formed(&svg).is_ok(), "{svg}");
            proptest::prop_assert!(!svg.contains("NaN") && !svg.contains("inf"));
            let ok = |v: &Option<f64>| v.is_some_and(|v| v.is_finite() && (!log || v > 0.0));
            let drawable = a.iter().take(cats.len()).filter(|v| ok(v)).count() + b.iter().take(cats.len()).filter(|v| ok(v)).count();
            proptest::prop_assert_eq!(count(&svg, "class=\"bar\""), drawable);
            let at: Vec<(f64, f64)> = x_labels(&svg).iter().map(|l| (l.0, l.1)).collect();
            for p in at.windows(2) {
                proptest::prop_assert!(p[1].0 - p[0].0 >= (p[0].1 + p[1].1) / 2.0 + GAP - 0.2, "{at:?}");
            }
        }

        #[test]
        fn numeric_labels_never_overlap(lo in -1e12f64..1e12, span in 1e-3f64..1e13, len in 20f64..1500.0, log: bool) {
            let axis = if log { Axis::log10("x", "") } else { Axis::linear("x", "") };
            let lo = if log { lo.abs().max(1e-3) } else { lo };
            let lay = layout(&axis, Some((lo, lo + span)), 40.0, 40.0 + len, true);
            proptest::prop_assert!(!lay.ticks.is_empty());
            proptest::prop_assert!(lay.labels_fit(true), "{lay:?}");
        }

        #[test]
        fn any_line_chart_is_well_formed(ys in proptest::collection::vec(proptest::num::f64::ANY, 0..40), log: bool, w in 100u32..900) {
            let y = if log { Axis::log10("y", "u") } else { Axis::linear("y", "u") };
            let mut c = LineChart::new("p", Axis::linear("x", ""), y);
            c.width = w;
            c.series.push(Series::new("s", ys.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect()));
            let svg = c.to_svg();
            proptest::prop_assert!(well_formed(&svg).is_ok(), "{svg}");
            proptest::prop_assert!(!svg.contains("NaN") && !svg.contains("inf"));
            let drawable = ys.iter().filter(|&&v| v.is_finite() && (!log || v > 0.0)).count();
            proptest::prop_assert_eq!(count(&svg, "class=\"pt\""), drawable);
        }
    }
}
