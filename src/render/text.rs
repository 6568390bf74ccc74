//! The terminal's view of a [`View`]: headings and notes as lines, tables
//! and facts as comfy-table tables fitted to the terminal, a chart as a
//! text curve when it is one series on linear axes (its numbers are in
//! the other formats), warnings and alerts coloured when asked.

use super::Style;
use super::chart;
use super::clean::terminal as clean;
use super::view::{Align, Block, Detail, Fmt, Heading, Item, List, NoteTone, Place, Section, Table, Tone, View, Warning};
use comfy_table::{Cell, CellAlignment};

/// What the terminal shows (see [`Detail`]).
pub const SHOWS: &[Detail] = &[Detail::Brief, Detail::Lines, Detail::Human];

/// The text curve's size: columns and rows.
const CURVE: (usize, usize) = (72, 12);

/// The whole view, in `st`'s bandwidth unit and colours.
pub fn render(v: &View, st: Style) -> String {
    let f = Fmt::TEXT.units(st.units);
    let mut out = String::new();
    for s in &v.sections {
        section(&mut out, s, &f, st);
    }
    out
}

fn section(out: &mut String, s: &Section, f: &Fmt, st: Style) {
    if !s.detail.shown(SHOWS) {
        return;
    }
    if let Heading::Shown(h) = &s.heading {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&clean(h));
        out.push('\n');
    }
    for b in &s.blocks {
        block(out, b, f, st);
    }
    for c in &s.sections {
        section(out, c, f, st);
    }
}

fn block(out: &mut String, b: &Block, f: &Fmt, st: Style) {
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    match b {
        Block::Only(d, b) => {
            if d.shown(SHOWS) {
                block(out, b, f, st);
            }
        }
        Block::Paragraph(p) => {
            let text = plain(&p.line, f);
            line(if p.tone == (Tone::Verdict { alert: true }) {
                st.paint(&text)
            } else {
                text
            });
        }
        Block::Facts(facts) => {
            let mut t = super::text_table();
            for fact in facts {
                t.add_row(vec![clean(&fact.label).into_owned(), plain(&fact.value, f)]);
            }
            line(t.to_string());
        }
        Block::Table(t) => line(table(t, f)),
        Block::Chart(c) => out.push_str(&chart::curve(c, CURVE.0, CURVE.1, f)),
        Block::Notes(notes) => {
            for n in notes {
                let text = plain(&n.line, f);
                line(if n.tone == NoteTone::Failed { st.paint(&text) } else { text });
            }
        }
        Block::Warnings(ws) => {
            for w in ws {
                line(st.paint(&warning(w)));
            }
        }
        Block::List(l) => list(out, l, f, st),
    }
}

/// `Title:`, then an item a line: `  - subject: line [code]`, a key one painted.
fn list(out: &mut String, l: &List, f: &Fmt, st: Style) {
    if !l.title.is_empty() {
        out.push_str(&format!("{}:\n", plain(&l.title, f)));
    }
    for it in &l.items {
        let text = format!("  - {}", item(it, f));
        out.push_str(&if it.key { st.paint(&text) } else { text });
        out.push('\n');
    }
}

/// `subject: line [code]`.
fn item(it: &Item, f: &Fmt) -> String {
    let mut s = it.subject.as_ref().map(|s| format!("{}: ", clean(s))).unwrap_or_default();
    s.push_str(&plain(&it.line, f));
    if let Some((code, _)) = &it.code {
        s.push_str(&format!(" [{}]", clean(code)));
    }
    s
}

/// A sentence as terminal text: its words and code with no control character.
fn plain(l: &super::view::Line, f: &Fmt) -> String {
    l.write(f, |t| clean(t).into_owned(), |c| clean(c).into_owned())
}

/// `warning [code] (scope): message`, with no control character.
pub fn warning(w: &Warning) -> String {
    let (code, message) = (clean(&w.code), clean(&w.message));
    match &w.scope {
        Some(scope) => format!("warning [{code}] ({}): {message}", clean(scope)),
        None => format!("warning [{code}]: {message}"),
    }
}

fn table(t: &Table, f: &Fmt) -> String {
    let cols = t.shown(SHOWS);
    let mut out = super::text_table();
    out.set_header(
        cols.iter()
            .map(|&i| clean(&t.columns[i].heading(f)).into_owned())
            .collect::<Vec<_>>(),
    );
    for row in &t.rows {
        out.add_row(cols.iter().map(|&i| {
            let text = row.cells.get(i).map(|c| c.human(f, Place::Column)).unwrap_or_default();
            let cell = Cell::new(clean(&text));
            if t.columns[i].align == Align::Right {
                cell.set_alignment(CellAlignment::Right)
            } else {
                cell
            }
        }));
    }
    out.to_string()
}
