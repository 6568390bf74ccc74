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
//!
//! The parts: this module holds the charts' public description (series,
//! lines, bands, markers, bar groups); `axis` maps values to pixels and
//! chooses ticks and their labels; `text` escapes, writes numbers and
//! estimates and fits label widths; `frame` writes what every chart shares
//! (the `<svg>` root with its title, description and ids, legend, grid,
//! axes, reference lines); `line` and `bar` draw the two kinds of chart,
//! each as named steps: what is drawable, where it goes, then each layer.

pub use axis::{Axis, Scale, TickFormat, linear_ticks, log_ticks};
pub use text::{escape, exact};

/// `write!` into a String, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        let _ = write!($out, $($arg)*);
    }};
}

mod axis;
mod bar;
mod frame;
mod line;
#[cfg(test)]
pub(crate) mod tests;
mod text;

/// The Okabe–Ito colour-blind-safe colours, ordered so that neighbours also
/// differ in lightness (dark blue, light orange, …) for greyscale print.
pub const PALETTE: [&str; 7] = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000"];

/// Dash pattern of a line by its colour index: solid, dashed, dotted,
/// dash-dot, so that series stay apart in greyscale.
const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

/// Font size of every label, px.
const FONT: f64 = 11.0;
/// Least space between two horizontal labels, px.
const GAP: f64 = 8.0;

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
    /// Each point's min and max when the point stands for a bucket of
    /// values (its y the median): drawn as a shaded band around the line.
    pub spread: Option<Vec<(f64, f64)>>,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            style: SeriesStyle::Line,
            color: None,
            spread: None,
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
