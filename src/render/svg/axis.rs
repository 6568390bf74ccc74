//! Axes: how values map to positions (linear, log10, log2), "nice" ticks
//! and their labels, and an axis laid out along pixels.

use super::text::{exact, text_width};
use super::{FONT, GAP};
use crate::base::units::fmt_bs;

/// Most ticks on an axis.
const MAX_TICKS: usize = 10;

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
    pub(super) fn is_log(self) -> bool {
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
    pub(super) fn accepts(self, v: f64) -> bool {
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
    pub(super) fn title(&self) -> String {
        match (self.label.is_empty(), self.unit.is_empty()) {
            (_, true) => self.label.clone(),
            (true, false) => self.unit.clone(),
            (false, false) => format!("{} ({})", self.label, self.unit),
        }
    }

    /// A value as tooltips and descriptions write it, with the unit.
    pub(super) fn value(&self, v: f64) -> String {
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

/// "Nice" ticks (1, 2 or 5 × 10^k apart) covering `lo..=hi`, at most
/// `max_count` of them (2 to 10; 3 when the range spans zero and 2 are asked).
pub fn linear_ticks(lo: f64, hi: f64, max_count: usize) -> Vec<f64> {
    nice_ticks(lo, hi, max_count).0
}

/// The ticks and the exponent k of their step (m × 10^k), which gives the
/// decimals labels need; `None` when the range is too narrow or too wide
/// for nice ticks (then they are its ends).
pub(super) fn nice_ticks(lo: f64, hi: f64, max_count: usize) -> (Vec<f64>, Option<i32>) {
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
pub(super) struct Layout {
    scale: Scale,
    pub(super) lo: f64,
    pub(super) hi: f64,
    p0: f64,
    p1: f64,
    pub(super) ticks: Vec<(f64, String)>,
}

impl Layout {
    /// The pixel of `v`, clamped to the axis.
    pub(super) fn px(&self, v: f64) -> f64 {
        let (a, b) = (self.scale.fwd(self.lo), self.scale.fwd(self.hi));
        let t = if b > a {
            ((self.scale.fwd(v) - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.p0 + t * (self.p1 - self.p0)
    }

    /// Whether `v` lies outside the domain (drawn at its edge).
    pub(super) fn outside(&self, v: f64) -> bool {
        let eps = (self.hi - self.lo).abs() * 1e-9;
        v < self.lo - eps || v > self.hi + eps
    }

    /// Whether no two tick labels overlap: across, each pair a half-width
    /// each plus [`GAP`] apart; up, a line height apart.
    pub(super) fn labels_fit(&self, across: bool) -> bool {
        self.ticks.windows(2).all(|p| {
            let d = (self.px(p[1].0) - self.px(p[0].0)).abs();
            if across {
                d >= (text_width(&p[0].1) + text_width(&p[1].1)) / 2.0 + GAP
            } else {
                d >= FONT + 2.0
            }
        })
    }

    pub(super) fn widest_label(&self) -> f64 {
        self.ticks.iter().map(|t| text_width(&t.1)).fold(0.0, f64::max)
    }

    pub(super) fn describe(&self) -> String {
        let scale = if self.scale.is_log() { ", log scale" } else { "" };
        format!("{} to {}{scale}", exact(self.lo), exact(self.hi))
    }
}

/// Lays `axis` out between pixels `p0` (its low end) and `p1`: the domain
/// from the data's `extent` and the axis' fixed ends, and the most ticks
/// (up to about one per 50 px across, 28 px up) whose labels do not overlap.
pub(super) fn layout(axis: &Axis, extent: Option<(f64, f64)>, p0: f64, p1: f64, across: bool) -> Layout {
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
pub(super) fn tick_labels(axis: &Axis, values: &[f64], k: Option<i32>) -> Vec<String> {
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
pub(super) fn si_labels(values: &[f64], k: i32) -> Vec<String> {
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
pub(super) fn decade_label(v: f64) -> String {
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
pub(super) fn power_of_two_label(v: f64) -> String {
    if (1.0..1e5).contains(&v) && v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v >= 1e5 && is_byte_count(v) {
        fmt_bs(v as u64)
    } else {
        exact(v)
    }
}

/// The least and greatest of `values`; `None` when there are none.
pub(super) fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |e, v| match e {
        None => Some((v, v)),
        Some((a, b)) => Some((a.min(v), b.max(v))),
    })
}
