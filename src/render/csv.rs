//! The CSV view of a [`View`], for spreadsheets: its records table only
//! ([`Table::records`]), a header row of the columns' keys, then raw
//! numbers in the units the keys name (bytes/s, ns, bytes, s, percent),
//! RFC 4180 quoting and line ends.

use super::view::{Block, Detail, Section, Table, View};

/// What CSV shows (see [`Detail`]).
pub const SHOWS: &[Detail] = &[Detail::Full, Detail::Raw];

/// A field, cleaned ([`super::clean::csv`]: no control character, no
/// formula), and quoted when it holds a comma or a quote.
pub fn csv_field(s: &str) -> String {
    let s = super::clean::csv(s);
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A header row and rows of fields, each line ended by CRLF.
pub fn lines<S: AsRef<str>>(header: &[S], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut s = header.iter().map(|h| csv_field(h.as_ref())).collect::<Vec<_>>().join(",");
    s.push_str("\r\n");
    for row in rows {
        s.push_str(&row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        s.push_str("\r\n");
    }
    s
}

/// The view's records; `None` when it has none.
pub fn render(v: &View) -> Option<String> {
    let t = v.sections.iter().find_map(records)?;
    let cols = t.shown(SHOWS);
    let header: Vec<&str> = cols.iter().map(|&i| t.columns[i].key.as_str()).collect();
    let rows = t
        .rows
        .iter()
        .map(|r| cols.iter().map(|&i| r.cells.get(i).map(|c| c.raw()).unwrap_or_default()).collect());
    Some(lines(&header, rows))
}

/// The first records table CSV shows in a section.
fn records(s: &Section) -> Option<&Table> {
    if !s.detail.shown(SHOWS) {
        return None;
    }
    s.blocks.iter().find_map(in_block).or_else(|| s.sections.iter().find_map(records))
}

fn in_block(b: &Block) -> Option<&Table> {
    match b {
        Block::Only(d, b) if d.shown(SHOWS) => in_block(b),
        Block::Table(t) if t.records => Some(t),
        Block::Chart(c) if c.numbers.records => Some(&c.numbers),
        _ => None,
    }
}
