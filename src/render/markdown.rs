//! The Markdown view of a [`View`], for issues and wikis: GitHub-flavoured
//! tables (figures right-aligned), facts as a two-column table, a chart as
//! its numbers, notes as a paragraph, warnings and lists as titled lists. Blocks are
//! separated by a blank line.

use super::view::{self, Block, Detail, Fmt, Heading, Line, NoteTone, Place, Section, Table, Tone, View};
use crate::base::units::BwUnit;

/// What Markdown shows (see [`Detail`]).
pub const SHOWS: &[Detail] = &[Detail::Full, Detail::Lines, Detail::Human];

/// Text for a table cell (or a list item): on one line, with no control
/// character, `|` and `\` escaped, `<` and `>` as entities ([`super::clean::markdown`]).
pub fn md_cell(s: &str) -> String {
    super::clean::markdown(s)
}

/// A GitHub-flavoured table; `right[i]`: column i holds figures.
pub fn grid<S: AsRef<str>>(header: &[S], right: &[bool], rows: &[Vec<String>]) -> String {
    let line = |cells: Vec<&str>| format!("| {} |\n", cells.into_iter().map(md_cell).collect::<Vec<_>>().join(" | "));
    let mut s = line(header.iter().map(|h| h.as_ref()).collect());
    let align: Vec<String> = right.iter().map(|r| if *r { "---:" } else { "---" }.to_string()).collect();
    s.push_str(&format!("| {} |\n", align.join(" | ")));
    for row in rows {
        s.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    s
}

/// The whole view, bandwidth in `unit`.
pub fn render(v: &View, unit: BwUnit) -> String {
    let f = Fmt::DOCUMENT.units(unit);
    let mut parts = Vec::new();
    for s in &v.sections {
        section(&mut parts, s, &f);
    }
    parts.join("\n")
}

fn section(parts: &mut Vec<String>, s: &Section, f: &Fmt) {
    if !s.detail.shown(SHOWS) {
        return;
    }
    if let Heading::Shown(h) = &s.heading {
        parts.push(format!("**{}**\n", md_cell(h)));
    }
    for b in &s.blocks {
        block(parts, b, f);
    }
    for c in &s.sections {
        section(parts, c, f);
    }
}

/// A sentence: words escaped, paths and commands as code.
fn line(l: &Line, f: &Fmt) -> String {
    l.write(f, md_cell, |c| format!("`{}`", super::clean::terminal(c).replace('`', "'")))
}

fn block(parts: &mut Vec<String>, b: &Block, f: &Fmt) {
    match b {
        Block::Only(d, b) => {
            if d.shown(SHOWS) {
                block(parts, b, f);
            }
        }
        Block::Paragraph(p) => parts.push(match p.tone {
            Tone::Verdict { .. } => format!("**{}**\n", line(&p.line, f)),
            Tone::Plain | Tone::Muted => format!("{}\n", line(&p.line, f)),
        }),
        Block::Facts(facts) => {
            let mut s = String::from("| | |\n|---|---|\n");
            for fact in facts {
                let value = line(&fact.value, f);
                let value = if fact.loud { format!("**{value}**") } else { value };
                s.push_str(&format!("| {} | {value} |\n", md_cell(&fact.label)));
            }
            parts.push(s);
        }
        Block::Table(t) => parts.push(table(t, f)),
        Block::Chart(c) => {
            if !c.numbers.columns.is_empty() {
                parts.push(table(&c.numbers, f));
            }
        }
        Block::Notes(notes) => {
            // Plain notes are one paragraph, a line each; a stop is said apart, emphasised.
            let mut plain: Vec<String> = Vec::new();
            for n in notes {
                if n.tone == NoteTone::Plain {
                    plain.push(line(&n.line, f));
                    continue;
                }
                if !plain.is_empty() {
                    parts.push(plain.join("  \n") + "\n");
                    plain.clear();
                }
                parts.push(format!("*{}*\n", line(&n.line, f)));
            }
            if !plain.is_empty() {
                parts.push(plain.join("  \n") + "\n");
            }
        }
        Block::Warnings(ws) => {
            let mut s = format!("**{}**\n\n", view::WARNINGS);
            for w in ws {
                s.push_str(&format!("- {}: {}\n", md_cell(&w.code), md_cell(&w.message)));
            }
            parts.push(s);
        }
        Block::List(l) => parts.push(list(l, f)),
    }
}

/// `**Title**`, then `- **subject**: line [code]` an item.
fn list(l: &view::List, f: &Fmt) -> String {
    let mut s = String::new();
    if !l.title.is_empty() {
        s.push_str(&format!("**{}**\n\n", line(&l.title, f)));
    }
    for it in &l.items {
        s.push_str("- ");
        if let Some(subject) = &it.subject {
            s.push_str(&format!("**{}**: ", md_cell(subject)));
        }
        s.push_str(&line(&it.line, f));
        if let Some((code, _)) = &it.code {
            s.push_str(&format!(" [{}]", md_cell(code)));
        }
        s.push('\n');
    }
    s
}

fn table(t: &Table, f: &Fmt) -> String {
    let cols = t.shown(SHOWS);
    let header: Vec<String> = cols.iter().map(|&i| t.columns[i].heading(f)).collect();
    let right: Vec<bool> = cols.iter().map(|&i| t.columns[i].align == view::Align::Right).collect();
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|&i| r.cells.get(i).map(|c| c.human(f, Place::Column)).unwrap_or_default())
                .collect()
        })
        .collect();
    grid(&header, &right, &rows)
}
