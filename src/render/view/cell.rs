//! Typed figures and how each format writes them: one function per cell
//! type, [`Cell::human`] for people (the terminal, Markdown, HTML: each
//! passes its [`Fmt`]) and [`Cell::raw`] for spreadsheets (CSV: the
//! number in the unit the column's key names, exactly, no rounding).
//! Sentences are [`Line`]s of [`Span`]s, so a figure in a sentence is
//! written by the same function as in a table.

use crate::base::units::{BwUnit, Unit, bw, fmt_bytes, fmt_ns, fmt_time_ratio, pct, signed_diff, unit_label};
use crate::judge::Severity;
use crate::summary::figures::Spread;

/// What a format's human figures look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmt {
    /// The bandwidth unit (`--units`; the HTML page always MB/s).
    pub bw: BwUnit,
    /// An empty cell: nothing in the terminal's table, a dash elsewhere.
    pub empty: &'static str,
}

impl Fmt {
    pub const TEXT: Fmt = Fmt { bw: BwUnit::Mb, empty: "" };
    pub const DOCUMENT: Fmt = Fmt {
        bw: BwUnit::Mb,
        empty: "–",
    };

    pub fn units(self, bw: BwUnit) -> Fmt {
        Fmt { bw, ..self }
    }
}

/// Where a figure is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a table's column, whose heading names the unit of bandwidths,
    /// seconds and percentages: the number only.
    Column,
    /// In a sentence: with its unit.
    Prose,
}

/// A latency, ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Latency {
    /// Each I/O's own.
    Exact(f64),
    /// Completions were reaped in batches: the batch's end, an upper bound.
    UpperBound(f64),
    /// Not taken (`--latency off`).
    Off,
}

/// A figure as a ratio to a baseline's (a comparison's "vs base").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    /// The ratio: > 1 better (for times, the speed-up: baseline time / time).
    pub value: f64,
    /// Its confidence interval, (low, high).
    pub interval: Option<(f64, f64)>,
    /// Whether the interval holds no difference; `None`: too few runs to tell.
    pub noise: Option<bool>,
    /// The figures are times: the ratio reads as a time ("×0.25 time").
    pub time: bool,
}

/// A warning's code in a row, with its severity and message (a page shows a badge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    pub code: String,
    pub severity: Severity,
    pub message: String,
}

/// One figure or word of a table or sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Nothing: not measured, not applicable.
    Empty,
    Text(String),
    /// A whole number: runs, zones, files, a queue depth.
    Count(u64),
    /// A number without a unit of its own (IOPS, files/s).
    Number {
        value: f64,
        decimals: usize,
    },
    /// Bytes per second.
    Bandwidth {
        bps: f64,
        decimals: usize,
    },
    Latency(Latency),
    Bytes(u64),
    Seconds {
        s: f64,
        decimals: usize,
    },
    /// A percentage (the value in percent, not a fraction).
    Percent {
        pct: f64,
        decimals: usize,
    },
    /// A signed percentage, always with its sign: an error against a
    /// reference ("+0.31", "-1.60"; the value in percent).
    SignedPercent {
        pct: f64,
        decimals: usize,
    },
    /// A ratio to a baseline, with its interval.
    Ratio(Ratio),
    /// Bandwidth over a test's runs (min–max, CV); `None`: one run.
    Spread(Option<Spread>),
    /// The lowest and highest of a figure over runs ("0.020–0.024"), each
    /// written as its own cell; `None`: one run.
    Range(Option<Box<(Cell, Cell)>>),
    /// Several figures in one cell (a test's reads, then its writes).
    Several(Vec<Cell>),
    /// Warning codes.
    Codes(Vec<Badge>),
    /// The unit of a row's figures, in a table whose rows mix units (a
    /// group of hosts' tests, a self-test's checks): for people the one
    /// shown ("MB/s" in the format's bandwidth unit, "IOPS", "s"), for
    /// spreadsheets the document's ("bytes/s").
    Unit(Unit),
}

impl Cell {
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// A bandwidth with two decimals of MB/s, as CrystalDiskMark.
    pub fn bandwidth(bps: f64) -> Cell {
        Cell::Bandwidth { bps, decimals: 2 }
    }

    /// A bandwidth with one decimal: in captions and lists of many.
    pub fn bandwidth_coarse(bps: f64) -> Cell {
        Cell::Bandwidth { bps, decimals: 1 }
    }

    pub fn number(value: f64, decimals: usize) -> Cell {
        Cell::Number { value, decimals }
    }

    pub fn seconds(s: f64, decimals: usize) -> Cell {
        Cell::Seconds { s, decimals }
    }

    pub fn percent(pct: f64, decimals: usize) -> Cell {
        Cell::Percent { pct, decimals }
    }

    pub fn signed_percent(pct: f64, decimals: usize) -> Cell {
        Cell::SignedPercent { pct, decimals }
    }

    /// An exact latency in ns.
    pub fn latency(ns: f64) -> Cell {
        Cell::Latency(Latency::Exact(ns))
    }

    /// A figure in its row's [`Unit`] (see [`Cell::Unit`]): a bandwidth
    /// with one decimal, IOPS whole, seconds to the millisecond.
    pub fn in_unit(v: f64, unit: Unit) -> Cell {
        match unit {
            Unit::BytesPerSec => Cell::bandwidth_coarse(v),
            Unit::Iops => Cell::number(v, 0),
            Unit::Seconds => Cell::seconds(v, 3),
        }
    }

    /// The lowest and highest of a figure over runs, or `None` for one run.
    pub fn range(r: Option<(Cell, Cell)>) -> Cell {
        Cell::Range(r.map(Box::new))
    }

    /// `Some` figure, or an empty cell.
    pub fn or_empty<T>(v: Option<T>, f: impl FnOnce(T) -> Cell) -> Cell {
        v.map(f).unwrap_or(Cell::Empty)
    }

    /// The cell for people: `f` chooses the bandwidth unit and the empty cell.
    pub fn human(&self, f: &Fmt, at: Place) -> String {
        let prose = at == Place::Prose;
        match self {
            Cell::Empty => f.empty.to_string(),
            Cell::Text(s) => s.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Number { value, decimals } => format!("{value:.decimals$}"),
            Cell::Bandwidth { bps, decimals } if prose => format!("{} {}", bw(*bps, f.bw, *decimals), f.bw.label()),
            Cell::Bandwidth { bps, decimals } => bw(*bps, f.bw, *decimals),
            Cell::Latency(Latency::Exact(ns)) => fmt_ns(*ns),
            Cell::Latency(Latency::UpperBound(ns)) => format!("≤ {}", fmt_ns(*ns)),
            Cell::Latency(Latency::Off) => "off".into(),
            Cell::Bytes(b) => fmt_bytes(*b),
            Cell::Seconds { s, decimals } if prose => format!("{s:.decimals$} s"),
            Cell::Seconds { s, decimals } => format!("{s:.decimals$}"),
            Cell::Percent { pct, decimals } if prose => format!("{pct:.decimals$}%"),
            Cell::Percent { pct, decimals } => format!("{pct:.decimals$}"),
            Cell::SignedPercent { pct, decimals } if prose => format!("{pct:+.decimals$}%"),
            Cell::SignedPercent { pct, decimals } => format!("{pct:+.decimals$}"),
            Cell::Ratio(r) => {
                let d = if r.time && r.value > 0.0 {
                    fmt_time_ratio(r.value)
                } else {
                    signed_diff(r.value)
                };
                match r.noise {
                    Some(true) => format!("≈ {d} (noise)"),
                    Some(false) => d,
                    None => format!("{d} (?)"),
                }
            }
            Cell::Spread(Some(s)) => format!("{}–{}, {}%", bw(s.min, f.bw, 2), bw(s.max, f.bw, 2), pct(s.cv, 1)),
            Cell::Spread(None) | Cell::Range(None) => ONE_RUN.into(),
            // In a sentence the unit once, after the highest: "0.020–0.024 s".
            Cell::Range(Some(r)) => format!("{}–{}", r.0.human(f, Place::Column), r.1.human(f, at)),
            Cell::Several(cells) => cells.iter().map(|c| c.human(f, at)).collect::<Vec<_>>().join(" / "),
            Cell::Codes(codes) => codes.iter().map(|c| c.code.as_str()).collect::<Vec<_>>().join(" "),
            Cell::Unit(u) => unit_label(*u, f.bw).to_string(),
        }
    }

    /// The cell for spreadsheets: the number as it reads back exactly, in
    /// the unit of the column's key (bytes/s, ns, bytes, s, percent);
    /// empty when unknown.
    pub fn raw(&self) -> String {
        match self {
            // A spreadsheet has a spread's or a range's figures in columns of their own.
            Cell::Empty | Cell::Latency(Latency::Off) | Cell::Spread(_) | Cell::Range(_) => String::new(),
            Cell::Text(s) => s.clone(),
            Cell::Count(n) => n.to_string(),
            Cell::Bytes(n) => n.to_string(),
            Cell::Number { value: v, .. }
            | Cell::Bandwidth { bps: v, .. }
            | Cell::Latency(Latency::Exact(v) | Latency::UpperBound(v))
            | Cell::Seconds { s: v, .. }
            | Cell::Percent { pct: v, .. }
            | Cell::SignedPercent { pct: v, .. }
            | Cell::Ratio(Ratio { value: v, .. }) => num(*v),
            Cell::Several(cells) => cells.iter().map(Cell::raw).collect::<Vec<_>>().join(" "),
            Cell::Codes(codes) => codes.iter().map(|c| c.code.as_str()).collect::<Vec<_>>().join(" "),
            Cell::Unit(u) => u.as_str().to_string(),
        }
    }
}

/// What a figure over runs says when there was one run.
const ONE_RUN: &str = "1 run";

/// A figure as a spreadsheet reads it back exactly; empty when unknown.
fn num(v: f64) -> String {
    if v.is_finite() { v.to_string() } else { String::new() }
}

/// A piece of a sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum Span {
    Text(String),
    /// A path or command, quoted as code where a format can.
    Code(String),
    /// A figure with its unit.
    Figure(Cell),
    /// A figure without its unit (said elsewhere in the sentence).
    Number(Cell),
    /// The bandwidth unit shown: "MB/s".
    BwUnit,
    /// What the bandwidth unit is: "MB/s = 10^6 bytes/s".
    BwDefinition,
}

/// A sentence: words, and figures each format writes its way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line(pub Vec<Span>);

impl Line {
    pub fn new() -> Line {
        Line::default()
    }

    pub fn text(mut self, s: impl Into<String>) -> Line {
        self.0.push(Span::Text(s.into()));
        self
    }

    pub fn code(mut self, s: impl Into<String>) -> Line {
        self.0.push(Span::Code(s.into()));
        self
    }

    pub fn figure(mut self, c: Cell) -> Line {
        self.0.push(Span::Figure(c));
        self
    }

    pub fn number(mut self, c: Cell) -> Line {
        self.0.push(Span::Number(c));
        self
    }

    pub fn span(mut self, s: Span) -> Line {
        self.0.push(s);
        self
    }

    /// Appends another line's spans.
    pub fn and(mut self, other: Line) -> Line {
        self.0.extend(other.0);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sentence with `text` applied to its words and `code` to its code
    /// spans (a format's escaping and quoting).
    pub fn write(&self, f: &Fmt, text: impl Fn(&str) -> String, code: impl Fn(&str) -> String) -> String {
        self.0
            .iter()
            .map(|s| match s {
                Span::Text(t) => text(t),
                Span::Code(c) => code(c),
                Span::Figure(c) => text(&c.human(f, Place::Prose)),
                Span::Number(c) => text(&c.human(f, Place::Column)),
                Span::BwUnit => text(f.bw.label()),
                Span::BwDefinition => text(f.bw.definition()),
            })
            .collect()
    }

    /// The sentence as plain text.
    pub fn plain(&self, f: &Fmt) -> String {
        self.write(f, str::to_string, str::to_string)
    }
}

impl From<&str> for Line {
    fn from(s: &str) -> Line {
        Line::new().text(s)
    }
}

impl From<String> for Line {
    fn from(s: String) -> Line {
        Line::new().text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: Fmt = Fmt {
        bw: BwUnit::Mib,
        empty: "–",
    };

    /// (cell, text column, Markdown/HTML column, prose, raw).
    fn each_type() -> Vec<(Cell, &'static str, &'static str, &'static str, &'static str)> {
        let spread = Spread {
            min: 1.5e9,
            max: 2.25e9,
            cv: 0.1234,
        };
        vec![
            (Cell::Empty, "", "–", "–", ""),
            (Cell::text("SEQ1M Q8T1"), "SEQ1M Q8T1", "SEQ1M Q8T1", "SEQ1M Q8T1", "SEQ1M Q8T1"),
            (Cell::Count(42), "42", "42", "42", "42"),
            (Cell::number(1543.6, 0), "1544", "1544", "1544", "1543.6"),
            (Cell::bandwidth(1_619_001_344.0), "1619.00", "1619.00", "1619.00 MB/s", "1619001344"),
            (Cell::bandwidth_coarse(2.5e9), "2500.0", "2500.0", "2500.0 MB/s", "2500000000"),
            (Cell::latency(17_268_735.0), "17.27 ms", "17.27 ms", "17.27 ms", "17268735"),
            (
                Cell::Latency(Latency::UpperBound(8_800.0)),
                "≤ 8.8 µs",
                "≤ 8.8 µs",
                "≤ 8.8 µs",
                "8800",
            ),
            (Cell::Latency(Latency::Off), "off", "off", "off", ""),
            (Cell::Bytes(8 << 20), "8.00 MiB", "8.00 MiB", "8.00 MiB", "8388608"),
            (Cell::seconds(0.001563095, 3), "0.002", "0.002", "0.002 s", "0.001563095"),
            (Cell::percent(75.86046454675345, 1), "75.9", "75.9", "75.9%", "75.86046454675345"),
            (Cell::signed_percent(0.3125, 2), "+0.31", "+0.31", "+0.31%", "0.3125"),
            (Cell::signed_percent(-1.6, 2), "-1.60", "-1.60", "-1.60%", "-1.6"),
            (Cell::signed_percent(0.0, 1), "+0.0", "+0.0", "+0.0%", "0"),
            (
                Cell::Ratio(Ratio {
                    value: 1.21,
                    interval: Some((1.1, 1.3)),
                    noise: Some(false),
                    time: false,
                }),
                "+21%",
                "+21%",
                "+21%",
                "1.21",
            ),
            (
                Cell::Ratio(Ratio {
                    value: 1.02,
                    interval: Some((0.97, 1.08)),
                    noise: Some(true),
                    time: false,
                }),
                "≈ +2% (noise)",
                "≈ +2% (noise)",
                "≈ +2% (noise)",
                "1.02",
            ),
            (
                Cell::Ratio(Ratio {
                    value: 4.0,
                    interval: None,
                    noise: None,
                    time: true,
                }),
                "×0.25 time (?)",
                "×0.25 time (?)",
                "×0.25 time (?)",
                "4",
            ),
            (
                Cell::Spread(Some(spread)),
                "1500.00–2250.00, 12.3%",
                "1500.00–2250.00, 12.3%",
                "1500.00–2250.00, 12.3%",
                "",
            ),
            (Cell::Spread(None), "1 run", "1 run", "1 run", ""),
            (
                Cell::range(Some((Cell::seconds(0.01999173, 3), Cell::seconds(0.023622221, 3)))),
                "0.020–0.024",
                "0.020–0.024",
                "0.020–0.024 s",
                "",
            ),
            (Cell::range(None), "1 run", "1 run", "1 run", ""),
            (
                Cell::Several(vec![Cell::Spread(None), Cell::Spread(None)]),
                "1 run / 1 run",
                "1 run / 1 run",
                "1 run / 1 run",
                " ",
            ),
            (
                Cell::Codes(vec![
                    Badge {
                        code: "high_cv".into(),
                        severity: Severity::Untrustworthy,
                        message: "m".into(),
                    },
                    Badge {
                        code: "cpu_bound".into(),
                        severity: Severity::Warning,
                        message: "n".into(),
                    },
                ]),
                "high_cv cpu_bound",
                "high_cv cpu_bound",
                "high_cv cpu_bound",
                "high_cv cpu_bound",
            ),
            (Cell::Unit(Unit::BytesPerSec), "MB/s", "MB/s", "MB/s", "bytes/s"),
            (Cell::Unit(Unit::Iops), "IOPS", "IOPS", "IOPS", "IOPS"),
            (Cell::Unit(Unit::Seconds), "s", "s", "s", "s"),
            (
                Cell::in_unit(1_619_001_344.0, Unit::BytesPerSec),
                "1619.0",
                "1619.0",
                "1619.0 MB/s",
                "1619001344",
            ),
            (Cell::in_unit(1967.6, Unit::Iops), "1968", "1968", "1968", "1967.6"),
            (Cell::in_unit(2.34567, Unit::Seconds), "2.346", "2.346", "2.346 s", "2.34567"),
        ]
    }

    #[test]
    fn each_cell_type_in_each_format() {
        for (cell, text, doc, prose, raw) in each_type() {
            assert_eq!(cell.human(&Fmt::TEXT, Place::Column), text, "{cell:?} in the terminal's table");
            assert_eq!(
                cell.human(&Fmt::DOCUMENT, Place::Column),
                doc,
                "{cell:?} in Markdown and HTML tables"
            );
            assert_eq!(cell.human(&Fmt::DOCUMENT, Place::Prose), prose, "{cell:?} in a sentence");
            assert_eq!(cell.raw(), raw, "{cell:?} in CSV");
        }
    }

    #[test]
    fn bandwidth_follows_the_unit_asked_for() {
        let c = Cell::bandwidth(2_097_152.0);
        assert_eq!(c.human(&MIB, Place::Column), "2.00");
        assert_eq!(c.human(&MIB, Place::Prose), "2.00 MiB/s");
        let gb = Fmt::TEXT.units(BwUnit::Gb);
        assert_eq!(c.human(&gb, Place::Prose), "0.0021 GB/s", "GB/s keeps MB/s's precision");
        let s = Cell::Spread(Some(Spread {
            min: 1_048_576.0,
            max: 2_097_152.0,
            cv: 0.5,
        }));
        assert_eq!(s.human(&MIB, Place::Column), "1.00–2.00, 50.0%");
        assert_eq!(c.raw(), "2097152", "raw figures ignore the unit");
        let u = Cell::Unit(Unit::BytesPerSec);
        assert_eq!(
            u.human(&MIB, Place::Column),
            "MiB/s",
            "a row's unit is the one its figures are shown in"
        );
        assert_eq!(u.raw(), "bytes/s");
    }

    #[test]
    fn unknown_figures_are_empty_in_csv() {
        assert_eq!(Cell::bandwidth(f64::NAN).raw(), "");
        assert_eq!(Cell::number(f64::INFINITY, 0).raw(), "");
        assert_eq!(Cell::or_empty(None::<u64>, Cell::Bytes), Cell::Empty);
        assert_eq!(Cell::or_empty(Some(3u64), Cell::Count), Cell::Count(3));
    }

    #[test]
    fn a_sentence_writes_its_figures_like_a_table() {
        let line = Line::new()
            .text("Target: ")
            .code("/mnt/a b")
            .text(" · span ")
            .figure(Cell::Bytes(64 << 20))
            .text(". Rounds, ")
            .span(Span::BwUnit)
            .text(": ")
            .number(Cell::bandwidth_coarse(1_048_576.0))
            .text(". ")
            .span(Span::BwDefinition);
        assert_eq!(
            line.plain(&MIB),
            "Target: /mnt/a b · span 64.00 MiB. Rounds, MiB/s: 1.0. MiB/s = 2^20 bytes/s"
        );
        let md = line.write(&Fmt::DOCUMENT, str::to_string, |c| format!("`{c}`"));
        assert!(md.starts_with("Target: `/mnt/a b` · span"), "{md}");
    }
}
