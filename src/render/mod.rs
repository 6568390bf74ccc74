//! Output: every view iolab prints, behind one [`Exporter`] trait (one
//! implementation per format), plus the live progress view. Renderers
//! format what [`crate::summary`], [`crate::compare`] and
//! [`crate::device`] computed; they compute nothing.
//!
//! To add a format: implement [`Exporter`] for it (return `None` for the
//! documents it has no view of) and add it to [`Format`] and [`exporter`].

pub mod apps;
pub mod chart;
pub mod compare;
pub mod info;
pub mod progress;
pub mod table;

#[cfg(test)]
mod tests;

use crate::compare::Comparison;
use crate::device::DeviceReport;
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
}

/// The exporter of a format.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(Text),
        Format::Json => Box::new(Json),
        Format::Markdown => Box::new(Markdown),
        Format::Csv => Box::new(Csv),
    }
}

/// The terminal view.
pub struct Text;

impl Exporter for Text {
    fn export(&self, doc: Document) -> Option<String> {
        Some(match doc {
            Document::Run(r, Some(s)) => table::run_header(s) + &table::table(r),
            Document::Run(r, None) => table::table(r),
            Document::Runs(runs) => table::run_list(runs),
            Document::Comparison(c) => compare::render_table(c),
            Document::Device(d) => info::render_info(d),
        })
    }
}

/// The JSON document, pretty-printed, with a final newline.
pub struct Json;

impl Exporter for Json {
    fn export(&self, doc: Document) -> Option<String> {
        let v = match doc {
            Document::Run(r, _) => serde_json::to_string_pretty(r),
            Document::Runs(runs) => serde_json::to_string_pretty(&runs.iter().map(list_entry).collect::<Vec<_>>()),
            Document::Comparison(c) => serde_json::to_string_pretty(c),
            Document::Device(d) => serde_json::to_string_pretty(d),
        };
        // Every document is plain data; serialising cannot fail.
        Some(v.expect("documents serialise") + "\n")
    }
}

/// A stored run in `iolab list --format json`: tags as an object.
fn list_entry(r: &RunSummary) -> serde_json::Value {
    serde_json::json!({
        "id": r.id, "label": r.label,
        "tags": r.tags.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
        "started_at": r.started_at, "kind": r.kind, "target": r.target, "complete": r.complete,
    })
}

/// Markdown tables.
pub struct Markdown;

impl Exporter for Markdown {
    fn export(&self, doc: Document) -> Option<String> {
        match doc {
            Document::Comparison(c) => Some(compare::render_markdown(c)),
            _ => None,
        }
    }
}

/// Comma-separated values with a header row.
pub struct Csv;

impl Exporter for Csv {
    fn export(&self, doc: Document) -> Option<String> {
        match doc {
            Document::Comparison(c) => Some(compare::render_csv(c)),
            _ => None,
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
            v.push(format!("warning [{}] {}: {}", w.code, j.name, w.message));
        }
    }
    for w in report.run_warnings() {
        v.push(format!("warning [{}]: {}", w.code, w.message));
    }
    v
}
