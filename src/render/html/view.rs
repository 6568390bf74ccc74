//! A [`View`](crate::render::view::View)'s sections on the page: each a `<section>` with its heading
//! (listed in the contents), facts as a `<dl>`, tables as data tables (the
//! headline table in CrystalDiskMark's look, a bar behind each bandwidth,
//! the warnings only one row carries under it), charts as figures
//! ([`super::chart`]), notes as a legend paragraph, warnings as badges,
//! lists as a titled `<ul>`.
//! Every text is escaped.

use super::{FMT, Out, SHOWS, badge, escape};
use crate::render::view::{Align, Block, Cell, Line, List, NoteTone, Place, Section, Table, Tone, Warning};

/// `sections` at heading `level`, their ids after `rid` (the run's; none
/// when empty: a comparison's section is `comparison`).
pub(super) fn sections(o: &mut Out, sections: &[Section], rid: &str, level: u8) {
    for s in sections {
        section(o, s, rid, level);
    }
}

fn section(o: &mut Out, s: &Section, rid: &str, level: u8) {
    if !s.detail.shown(SHOWS) {
        return;
    }
    let heading = s.heading.text();
    if let Some(h) = heading {
        let id = if rid.is_empty() { s.id.clone() } else { format!("{rid}-{}", s.id) };
        o.open(s.class, &id, level, h);
    }
    for b in &s.blocks {
        block(o, b, s.class);
    }
    sections(o, &s.sections, rid, level + 1);
    if heading.is_some() {
        o.close();
    }
}

/// A sentence: escaped, paths and commands as code.
fn line(l: &Line) -> String {
    l.write(&FMT, escape, |c| format!("<code>{}</code>", escape(c)))
}

fn block(o: &mut Out, b: &Block, class: &str) {
    match b {
        Block::Only(d, b) => {
            if d.shown(SHOWS) {
                block(o, b, class);
            }
        }
        Block::Paragraph(p) => {
            let attr = match p.tone {
                Tone::Plain => String::new(),
                Tone::Muted => " class=\"sub\"".into(),
                Tone::Verdict { alert } => format!(" class=\"{}{class}-verdict\"", if alert { "alert " } else { "" }),
            };
            w!(o.body, "<p{attr}>{}</p>\n", line(&p.line));
        }
        Block::Facts(facts) => {
            o.body.push_str("<dl class=\"facts\">\n");
            for f in facts {
                let value = line(&f.value);
                let value = if f.loud {
                    format!("<strong class=\"loud\">{value}</strong>")
                } else {
                    value
                };
                w!(o.body, "<dt>{}</dt><dd>{value}</dd>\n", escape(&f.label));
            }
            o.body.push_str("</dl>\n");
        }
        Block::Table(t) if t.headline => headline(o, t),
        Block::Table(t) => o.body.push_str(&super::chart::grid(t, SHOWS).html(None)),
        Block::Chart(c) => super::chart::figure(o, c),
        Block::Notes(notes) => {
            let legend: Vec<String> = notes.iter().filter(|n| n.tone == NoteTone::Plain).map(|n| line(&n.line)).collect();
            if !legend.is_empty() {
                w!(o.body, "<p class=\"units\">{}</p>\n", legend.join(" "));
            }
            for n in notes.iter().filter(|n| n.tone != NoteTone::Plain) {
                w!(o.body, "<p class=\"alert\">{}</p>\n", line(&n.line));
            }
        }
        Block::Warnings(ws) => warnings(o, ws),
        Block::List(l) => list(o, l),
    }
}

/// A titled list in a `<div>` of its class: each item's code a badge, its
/// subject in bold, the key item `class="key"`.
fn list(o: &mut Out, l: &List) {
    w!(o.body, "<div class=\"{}\">\n", l.class);
    if !l.title.is_empty() {
        w!(o.body, "<p class=\"list-title\">{}</p>\n", line(&l.title));
    }
    o.body.push_str("<ul class=\"list\">\n");
    for it in &l.items {
        let class = if it.key { " class=\"key\"" } else { "" };
        let (code, badge) = match &it.code {
            Some((c, sev)) => (format!(" data-code=\"{}\"", escape(c)), badge(c, *sev, None) + " "),
            None => (String::new(), String::new()),
        };
        let subject = it
            .subject
            .as_ref()
            .map(|s| format!("<strong>{}</strong>: ", escape(s)))
            .unwrap_or_default();
        w!(o.body, "<li{class}{code}>{badge}{subject}{}</li>\n", line(&it.line));
    }
    o.body.push_str("</ul>\n</div>\n");
}

/// A list of warnings: badge, message, and what they concern.
fn warnings(o: &mut Out, ws: &[Warning]) {
    o.body.push_str("<ul class=\"warnings\">\n");
    for w in ws {
        let scope = w
            .scope
            .as_ref()
            .map(|s| format!(" <span class=\"scope\">({})</span>", escape(s)))
            .unwrap_or_default();
        w!(
            o.body,
            "<li>{} {}{scope}</li>\n",
            badge(&w.code, w.severity, None),
            escape(&w.message)
        );
    }
    o.body.push_str("</ul>\n");
}

/// The headline table: the first column the row's name, a bar behind each
/// bandwidth as long as its share of the largest, codes as badges, and
/// under a row the warnings only it carries.
fn headline(o: &mut Out, t: &Table) {
    let cols = t.shown(SHOWS);
    let widest = t
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter_map(|c| match c {
            Cell::Bandwidth { bps, .. } if bps.is_finite() => Some(*bps),
            _ => None,
        })
        .fold(0.0, f64::max);
    let s = &mut o.body;
    s.push_str("<div class=\"scroll\"><table class=\"cdm\">\n<thead><tr>");
    for &i in &cols {
        let c = &t.columns[i];
        let class = if c.align == Align::Right { " class=\"n\"" } else { "" };
        w!(s, "<th scope=\"col\"{class}>{}</th>", escape(&c.heading(&FMT)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        s.push_str("<tr>");
        for (k, &i) in cols.iter().enumerate() {
            let cell = r.cells.get(i).unwrap_or(&Cell::Empty);
            let text = escape(&cell.human(&FMT, Place::Column));
            match cell {
                _ if k == 0 => w!(s, "<td class=\"test\">{text}</td>"),
                Cell::Bandwidth { bps, .. } => {
                    let share = if widest > 0.0 && bps.is_finite() {
                        (bps / widest * 100.0).clamp(0.0, 100.0)
                    } else {
                        0.0
                    };
                    w!(s, "<td class=\"n bar\" style=\"--w:{share:.1}%\">{text}</td>");
                }
                Cell::Several(_) | Cell::Spread(_) | Cell::Range(_) => w!(s, "<td class=\"spread\">{text}</td>"),
                Cell::Codes(codes) => {
                    s.push_str("<td>");
                    for b in codes {
                        s.push_str(&badge(&b.code, b.severity, Some(&b.message)));
                    }
                    s.push_str("</td>");
                }
                _ if t.columns[i].align == Align::Right => w!(s, "<td class=\"n\">{text}</td>"),
                _ => w!(s, "<td>{text}</td>"),
            }
        }
        s.push_str("</tr>\n");
        if !r.warnings.is_empty() {
            w!(s, "<tr class=\"notes\"><td></td><td colspan=\"{}\"><ul>", cols.len() - 1);
            for w in &r.warnings {
                w!(s, "<li>[{}] {}</li>", escape(&w.code), escape(&w.message));
            }
            s.push_str("</ul></td></tr>\n");
        }
    }
    s.push_str("</tbody></table></div>\n");
}
