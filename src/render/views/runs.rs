//! The stored runs: `iolab list` (a row per run) and the line above a
//! stored run's result in the terminal (`iolab show`).

use crate::render::view::{Block, Cell, Column, Detail, Heading, Section, Table, Tone, View};
use crate::store::RunSummary;

/// `iolab list`: a row per stored run. The terminal's table marks an
/// incomplete run in its label; documents and spreadsheets have a column for it.
pub fn view(runs: &[RunSummary]) -> View {
    let mut s = Section::new("runs", "runs", Heading::Outline("Stored runs".into()));
    if runs.is_empty() {
        s.push(Block::only(Detail::Brief, Block::paragraph(Tone::Plain, "no stored runs")));
    } else {
        s.push(Block::only(Detail::Brief, Block::Table(brief(runs))));
    }
    s.push(Block::only(Detail::Full, Block::Table(full(runs))));
    View {
        title: "iolab: stored runs".into(),
        sections: vec![s],
    }
}

/// The tags as `key=value`, space-separated.
fn tags(r: &RunSummary) -> String {
    r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

fn label(r: &RunSummary) -> String {
    r.label.clone().unwrap_or_default()
}

/// The columns both tables start with, ID's alignment aside.
fn columns(id: Column) -> Vec<Column> {
    vec![
        id,
        Column::text("Started (UTC)", "started_at"),
        Column::text("Kind", "kind"),
        Column::text("Label", "label"),
        Column::text("Tags", "tags"),
        Column::text("Target", "target"),
    ]
}

fn cells(r: &RunSummary, label: String) -> Vec<Cell> {
    vec![
        Cell::Count(r.id as u64),
        Cell::text(&r.started_at),
        Cell::text(&r.kind),
        Cell::text(label),
        Cell::text(tags(r)),
        Cell::text(&r.target),
    ]
}

/// The terminal's table.
fn brief(runs: &[RunSummary]) -> Table {
    let mut t = Table::new(columns(Column::text("ID", "id")));
    for r in runs {
        let incomplete = if r.complete { "" } else { " (incomplete)" };
        t.row(cells(r, label(r) + incomplete));
    }
    t
}

/// The complete rows: the records.
fn full(runs: &[RunSummary]) -> Table {
    let mut cols = columns(Column::figure("ID", "id"));
    cols.push(Column::text("Complete", "complete").only(Detail::Human));
    cols.push(Column::text("Complete", "complete").only(Detail::Raw));
    let mut t = Table::new(cols);
    t.records = true;
    for r in runs {
        let mut row = cells(r, label(r));
        row.push(Cell::text(if r.complete { "yes" } else { "no (interrupted)" }));
        row.push(Cell::text(r.complete.to_string()));
        t.row(row);
    }
    t
}

/// The line above a stored run's result: its id, start, kind, label, tags,
/// and whether it finished.
pub fn stored(r: &RunSummary) -> View {
    let mut words = vec![format!("Run {}", r.id), r.started_at.clone(), r.kind.clone()];
    words.extend(r.label.as_ref().map(|l| format!("\"{l}\"")));
    if !r.tags.is_empty() {
        words.push(tags(r));
    }
    if !r.complete {
        words.push("INCOMPLETE (interrupted)".into());
    }
    let mut s = Section::new("stored", "stored", Heading::None);
    s.push(Block::paragraph(Tone::Plain, words.join(" · ")));
    View {
        title: String::new(),
        sections: vec![s],
    }
}
