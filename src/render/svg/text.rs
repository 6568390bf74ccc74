//! Text as the charts write it: escaping, values and coordinates as
//! numbers, estimated label widths, labels shortened with an ellipsis or
//! broken in two, and category labels spaced so that none overlap.

use std::fmt;

use super::GAP;

/// Estimated advance of one character at [`FONT`](super::FONT) in a sans-serif face
/// (0.6 em: a little wider than digits and most lower-case letters).
const CHAR_W: f64 = 6.6;
/// Widest category label, px (longer ones are shortened with an ellipsis).
pub(super) const MAX_LABEL_W: f64 = 160.0;

/// Estimated width of `s` in px at [`FONT`](super::FONT).
pub(super) fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * CHAR_W
}

/// `s`, shortened with an ellipsis to at most `room` px ("" when not even one character fits).
pub(super) fn fit_text(s: &str, room: f64) -> String {
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
pub(super) struct N(pub(super) f64);

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Tenths::of(self.0).fmt(f)
    }
}

/// A coordinate in whole tenths of a pixel: what [`N`] writes, and the
/// unit of relative path steps (exact, so they do not drift).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Tenths(pub(super) i64);

impl Tenths {
    pub(super) fn of(v: f64) -> Self {
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

/// "s" after a count other than one.
pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A category label placed under the plot: its category, centre x, and its lines.
#[derive(Clone, Debug)]
pub(super) struct CatLabel {
    pub(super) index: usize,
    pub(super) x: f64,
    pub(super) lines: Vec<String>,
}

impl CatLabel {
    pub(super) fn width(&self) -> f64 {
        self.lines.iter().map(|l| text_width(l)).fold(0.0, f64::max)
    }
}

/// Which category labels to show under a plot `width` px wide from `left`,
/// so that no two overlap: all of them on one line when they fit their
/// slots; else all on up to two lines (broken at a space); else every k-th
/// on one line, k the smallest step that leaves room, shortened with an
/// ellipsis when even that is too little.
pub(super) fn category_labels(labels: &[String], left: f64, width: f64) -> Vec<CatLabel> {
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
