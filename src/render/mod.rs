//! Output: every view iolab prints, behind one [`Exporter`] trait (one
//! implementation per format), plus the live progress view. Renderers
//! format what [`crate::summary`], [`crate::compare`] and
//! [`crate::device`] computed; they compute nothing.
//!
//! A result is turned once into a neutral [`view::View`] by its builder in
//! [`views`]; `text.rs`, `markdown.rs`, `csv.rs` and `html/` render views
//! and nothing else (the recipe for a new kind of result is in [`view`]'s
//! module doc). JSON is the stored document itself.
//!
//! To add a format: a renderer of [`view::View`], an [`Exporter`] calling
//! it (return `None` for the documents it has no view of), a [`Format`]
//! variant and a line in [`exporter`].

pub mod chart;
pub mod clean;
pub mod csv;
pub mod envelope;
pub mod html;
pub mod markdown;
pub mod progress;
pub mod svg;
pub mod text;
pub mod view;
pub mod views;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod scale_tests;

#[cfg(test)]
mod hostile_tests;

use crate::base::units::BwUnit;
use crate::compare::Comparison;
use crate::device::DeviceReport;
use crate::schema::Tagged;
use crate::store::RunSummary;
use crate::summary::Report;

/// A document iolab prints.
#[derive(Clone, Copy)]
pub enum Document<'a> {
    /// A run: measured just now, or loaded from the store (with its stored summary).
    Run(&'a Report, Option<&'a RunSummary>),
    /// Stored runs, one line each.
    Runs(&'a [RunSummary]),
    /// Runs side by side.
    Comparison(&'a Comparison),
    /// What `iolab info` found about a target.
    Device(&'a DeviceReport),
    /// `iolab report`: stored runs on one page, compared when there are several.
    Page(&'a Page<'a>),
    /// One plan on many hosts: each host side by side.
    Hosts(&'a crate::summary::hosts::HostsReport),
    /// `iolab selftest`: each figure against its emulated limit.
    Selftest(&'a crate::selftest::SelftestReport),
}

/// The runs of one report page, and their comparison when there are several.
pub struct Page<'a> {
    pub runs: Vec<(&'a Report, Option<&'a RunSummary>)>,
    pub comparison: Option<&'a Comparison>,
}

impl Document<'_> {
    /// What the document is, for messages: "a run", "a device description".
    pub fn name(&self) -> &'static str {
        match self {
            Document::Run(..) => "a run",
            Document::Runs(_) => "the list of runs",
            Document::Comparison(_) => "a comparison",
            Document::Device(_) => "a device description",
            Document::Page(_) => "a report page",
            Document::Hosts(_) => "a group of hosts",
            Document::Selftest(_) => "a self-test",
        }
    }
}

/// One output format.
pub trait Exporter {
    /// The whole output for `doc`, or `None` when the format has no view of it.
    fn export(&self, doc: Document) -> Option<String>;
}

/// The formats iolab writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: tables, charts drawn in text, warnings under them.
    Table,
    /// For programs: the complete document.
    Json,
    /// For issues and wikis.
    Markdown,
    /// For spreadsheets.
    Csv,
    /// One self-contained page with charts: for people, offline, to attach.
    Html,
}

impl Format {
    /// The name users type after `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Html => "html",
        }
    }

    /// Every format, in `--format`'s order.
    pub const ALL: [Format; 5] = [Format::Table, Format::Json, Format::Markdown, Format::Csv, Format::Html];
}

/// The formats with a view of `doc`, comma-separated: for the message
/// when the one asked for has none.
pub fn formats_of(doc: Document) -> String {
    let names: Vec<&str> = Format::ALL
        .into_iter()
        .filter(|&f| exporter(f, Style::default()).export(doc).is_some())
        .map(Format::name)
        .collect();
    names.join(", ")
}

/// The exporter of a format; `style` is the terminal table's.
pub fn exporter(format: Format, style: Style) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(Text(style)),
        Format::Json => Box::new(Json),
        Format::Markdown => Box::new(Markdown(style.units)),
        Format::Csv => Box::new(Csv),
        Format::Html => Box::new(Html),
    }
}

/// How the terminal table looks: its bandwidth unit, and whether the
/// warning and verdict lines are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub units: BwUnit,
    pub color: bool,
}

impl Style {
    /// `line` in yellow when colouring, as it is otherwise.
    pub fn paint(&self, line: &str) -> String {
        if self.color {
            format!("\x1b[33m{line}\x1b[0m")
        } else {
            line.to_string()
        }
    }
}

/// Whether the terminal table is coloured: only on a terminal, and never
/// with `NO_COLOR` set to anything but the empty string (no-color.org).
pub fn use_color(is_tty: bool, no_color_env: Option<&std::ffi::OsStr>) -> bool {
    is_tty && no_color_env.is_none_or(|v| v.is_empty())
}

/// The terminal view.
#[derive(Clone, Copy, Debug, Default)]
pub struct Text(pub Style);

impl Exporter for Text {
    fn export(&self, doc: Document) -> Option<String> {
        Some(match doc {
            Document::Page(_) => return None,
            Document::Hosts(h) => text::render(&views::hosts::view(h), self.0),
            Document::Selftest(s) => text::render(&views::selftest::view(s), self.0),
            Document::Run(r, s) => s.map(|s| text::render(&views::runs::stored(s), self.0)).unwrap_or_default() + &run_text(r, self.0),
            Document::Runs(runs) => text::render(&views::runs::view(runs), self.0),
            Document::Comparison(c) => text::render(&views::compare::view(c), self.0),
            Document::Device(d) => text::render(&views::info::view(d), self.0),
        })
    }
}

/// A run in the terminal.
fn run_text(r: &Report, st: Style) -> String {
    text::render(&views::run_lines(r), st)
}

/// The JSON document, pretty-printed, with a final newline.
pub struct Json;

impl Exporter for Json {
    fn export(&self, doc: Document) -> Option<String> {
        use crate::base::document::Kind;
        let (kind, v) = match doc {
            Document::Run(r, _) => (r.schema_kind(), serde_json::to_string_pretty(r)),
            Document::Runs(runs) => {
                let entries: Vec<_> = runs.iter().map(RunSummary::entry).collect();
                (
                    Kind::List,
                    serde_json::to_string_pretty(&entries.iter().map(Tagged::new).collect::<Vec<_>>()),
                )
            }
            Document::Comparison(c) => (Kind::Comparison, serde_json::to_string_pretty(&Tagged::new(c))),
            Document::Device(d) => (Kind::Info, serde_json::to_string_pretty(&Tagged::new(d))),
            Document::Page(_) => return None,
            Document::Hosts(h) => (Kind::Hosts, serde_json::to_string_pretty(&Tagged::new(h))),
            Document::Selftest(s) => (Kind::Selftest, serde_json::to_string_pretty(&Tagged::new(s))),
        };
        // Every document is plain data; serialising cannot fail.
        let text = v.expect("documents serialise") + "\n";
        crate::base::testknob::keep_document(kind, &text);
        Some(text)
    }
}

/// Markdown tables, bandwidth in the given unit.
pub struct Markdown(pub BwUnit);

impl Exporter for Markdown {
    fn export(&self, doc: Document) -> Option<String> {
        match doc {
            Document::Comparison(c) => Some(markdown::render(&views::compare::view(c), self.0)),
            Document::Run(r, _) => Some(markdown::render(&views::run_lines(r), self.0)),
            Document::Runs(runs) => Some(markdown::render(&views::runs::view(runs), self.0)),
            Document::Device(d) => Some(markdown::render(&views::info::view(d), self.0)),
            Document::Hosts(h) => Some(markdown::render(&views::hosts::view(h), self.0)),
            Document::Selftest(s) => Some(markdown::render(&views::selftest::view(s), self.0)),
            Document::Page(_) => None,
        }
    }
}

/// Comma-separated values with a header row.
pub struct Csv;

impl Exporter for Csv {
    fn export(&self, doc: Document) -> Option<String> {
        match doc {
            Document::Comparison(c) => csv::render(&views::compare::view(c)),
            Document::Run(r, _) => csv::render(&views::run_lines(r)),
            Document::Runs(runs) => csv::render(&views::runs::view(runs)),
            Document::Device(d) => csv::render(&views::info::view(d)),
            Document::Hosts(h) => csv::render(&views::hosts::view(h)),
            Document::Selftest(s) => csv::render(&views::selftest::view(s)),
            Document::Page(_) => None,
        }
    }
}

/// The HTML report: one self-contained page (inline CSS and SVG charts,
/// no requests, readable without JavaScript).
pub struct Html;

impl Exporter for Html {
    fn export(&self, doc: Document) -> Option<String> {
        match doc {
            Document::Run(r, s) => Some(html::page(&Page {
                runs: vec![(r, s)],
                comparison: None,
            })),
            Document::Comparison(c) => Some(html::page(&Page {
                runs: Vec::new(),
                comparison: Some(c),
            })),
            Document::Page(p) => Some(html::page(p)),
            Document::Hosts(h) => Some(html::view_page(&views::hosts::view(h))),
            Document::Selftest(s) => Some(html::view_page(&views::selftest::view(s))),
            Document::Runs(_) | Document::Device(_) => None,
        }
    }
}

/// A terminal table in iolab's style, fitted to the terminal's width.
/// Unit tests render as if stdout were not a terminal, so their text does
/// not depend on where they run.
fn text_table() -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
    #[cfg(test)]
    t.force_no_tty();
    t
}

/// One line per warning of a run, for stderr when stdout carries a document.
pub fn warning_lines(report: &Report) -> Vec<String> {
    let mut v = Vec::new();
    for j in report.jobs() {
        for w in &j.warnings {
            let (code, name, message) = (
                clean::terminal(&w.code.to_string()).into_owned(),
                clean::terminal(&j.name),
                clean::terminal(&w.message),
            );
            v.push(format!("warning [{code}] {name}: {message}"));
        }
    }
    for w in report.run_warnings() {
        v.push(format!(
            "warning [{}]: {}",
            clean::terminal(&w.code.to_string()),
            clean::terminal(&w.message)
        ));
    }
    v
}
