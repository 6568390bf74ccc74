//! The HTML report: one self-contained page per run, comparison, or
//! `iolab report` page of several runs.
//!
//! The page makes no request of any kind: the stylesheet is inline, the
//! charts are inline SVG from [`super::svg`] (hover values are SVG
//! `<title>`s, so nothing needs script, and the page has none), and a
//! Content-Security-Policy meta blocks anything a browser might still try
//! to fetch. It opens from `file://`, prints (no shadows, charts not split
//! across pages) and reads on a phone (one column, tables scroll sideways).
//!
//! Every chart is a `<figure class="chart" data-chart="KIND">` holding the
//! SVG and a `<table class="data">` with the same numbers, so they can be
//! read by screen readers, copied, and checked by tests. Every text from a
//! document (labels, paths, commands, messages) is escaped.
//!
//! Every result comes as a [`crate::render::view::View`] (`view.rs` lays
//! out its sections, `chart.rs` draws its charts). Like
//! the other renderers this computes nothing but unit conversions (bytes/s
//! to MB/s, ns to µs) and geometry (where a second lies on the time axis,
//! how wide a bar is).
//!
//! Plain `write!` into a `String` rather than a template engine: the page
//! is mostly tables and inline SVG strings, escaping is one function, and
//! the output stays byte-for-byte deterministic without a dependency.
//!
//! Sections of a run, each only when the run has it: the header (host,
//! target, device chain, hints), the CrystalDiskMark-style summary table,
//! the surface scan (`scan-curve`, `scan-access`), the scaling sweep
//! (`scale-sweep`, `scale-together`, `scale-layout`), a timed command
//! (`time-runs`) or workload (`app-phases`), a capacity probe's verdict
//! and facts (`capacity`), a verify's (`verify-curve`), then one section per job
//! (`timeline`, `latency`, `members`). A comparison (`compare-bars`) comes
//! before the runs.

use super::Page;
use super::svg::escape;
use crate::render::view::{Detail, Fmt};
use crate::store::RunSummary;
use crate::summary::Report;

/// `write!` into a String, which cannot fail.
macro_rules! w {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = $out.write_fmt(format_args!($($arg)*));
    }};
}

mod chart;
#[cfg(test)]
mod tests;
mod view;

/// The stylesheet, inlined into every page.
const CSS: &str = include_str!("style.css");

/// The page's Content-Security-Policy: nothing may be fetched; inline
/// styles (the stylesheet, bar widths) and `data:` images are allowed.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// What the page shows (see [`Detail`]).
pub const SHOWS: &[Detail] = &[Detail::Brief, Detail::Page, Detail::Human];

/// The page's figures: bandwidth always in MB/s.
const FMT: Fmt = Fmt::DOCUMENT;

/// Width and height of a chart, px (the page scales it down on narrow screens).
const CHART_W: u32 = 680;
const CHART_H: u32 = 300;

/// The whole page.
pub fn page(p: &Page) -> String {
    let mut o = Out::default();
    let multi = p.runs.len() > 1 || (p.comparison.is_some() && !p.runs.is_empty());
    o.toc_shift = if multi || p.runs.is_empty() { 0 } else { -1 };
    if let Some(c) = p.comparison {
        view::sections(&mut o, &crate::render::views::compare::view(c).sections, "", 2);
    }
    for (i, (r, s)) in p.runs.iter().enumerate() {
        run(&mut o, r, *s, &format!("run-{}", i + 1));
    }

    shell(&page_title(p), page_subtitle(p), &o)
}

/// A view's chart as the page draws it (inline SVG).
pub fn chart_svg(c: &crate::render::view::Chart) -> String {
    chart::to_svg(c)
}

/// A view as a whole page: its title the page's, its sections the page's.
pub fn view_page(v: &crate::render::view::View) -> String {
    let mut o = Out {
        toc_shift: -1,
        ..Out::default()
    };
    view::sections(&mut o, &v.sections, "view", 2);
    shell(&v.title, None, &o)
}

/// The document around the sections in `o`: head, inline stylesheet, title,
/// table of contents.
fn shell(title: &str, subtitle: Option<String>, o: &Out) -> String {
    let title = title.to_string();
    let mut s = String::with_capacity(o.body.len() + CSS.len() + 2048);
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    w!(s, "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\"/>\n");
    s.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n");
    s.push_str("<meta name=\"referrer\" content=\"no-referrer\"/>\n");
    w!(
        s,
        "<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n",
        escape(&title)
    );
    w!(s, "<h1>{}</h1>\n", escape(&title));
    if let Some(sub) = subtitle {
        w!(s, "<p class=\"sub\">{}</p>\n", escape(&sub));
    }
    s.push_str(&o.toc());
    s.push_str(&o.body);
    s.push_str("<p class=\"units\">MB/s = 10^6 bytes/s, MiB and GiB = 2^20 and 2^30 bytes, as everywhere in iolab. Hover a point or bar for its exact value; every chart's numbers are in the table beside or under it.</p>\n");
    s.push_str("</main>\n</body>\n</html>\n");
    s
}

/// The page's title: what was measured, on what.
fn page_title(p: &Page) -> String {
    match (p.runs.as_slice(), p.comparison) {
        ([(r, _)], None) => format!("iolab {}: {}", r.command, r.target.path),
        ([], Some(c)) => format!("iolab comparison of {} runs", c.runs.len()),
        (runs, Some(_)) => format!("iolab report: {} runs compared", runs.len()),
        (runs, None) => format!("iolab report: {} runs", runs.len()),
    }
}

fn page_subtitle(p: &Page) -> Option<String> {
    match p.runs.as_slice() {
        [(r, _)] if p.comparison.is_none() => Some(format!("{} on {} · iolab {}", r.started_at, r.host.hostname, r.iolab_version)),
        _ => None,
    }
}

/// One run's sections, in a `<section class="run" id=…>`.
fn run(o: &mut Out, r: &Report, s: Option<&RunSummary>, id: &str) {
    let what = format!("{} {}", r.command, r.target.path);
    let heading = match (s, r.run_id) {
        (Some(s), _) => match &s.label {
            Some(l) => format!("Run {} · {l} · {what}", s.id),
            None => format!("Run {} · {what}", s.id),
        },
        (None, Some(rid)) => format!("Run {rid} · {what}"),
        (None, None) => what,
    };
    o.open("run", id, 2, &heading);
    view::sections(o, &[crate::render::views::header::section(r, s)], id, 3);
    view::sections(o, &crate::render::views::run(r).sections, id, 3);
    o.close();
}

// ------------------------------------------------------------ page writer

/// A section in the table of contents: (depth, id, title).
type TocEntry = (usize, String, String);

/// The page being written: its body, the table of contents and the figure count.
#[derive(Default)]
struct Out {
    body: String,
    /// Each listed section, in order.
    toc: Vec<TocEntry>,
    /// Added to a heading's level − 2 for its depth in the table of contents
    /// (−1 on a page of one run, whose run heading is not listed).
    toc_shift: i32,
    figures: usize,
}

impl Out {
    /// Opens `<section class id>` with a heading of `level` (2–4). It is
    /// listed in the table of contents when its depth is 0 (a top entry)
    /// or 1 (inline under the last top entry).
    fn open(&mut self, class: &str, id: &str, level: u8, title: &str) {
        let depth = i32::from(level) - 2 + self.toc_shift;
        if (0..=1).contains(&depth) {
            self.toc.push((depth as usize, id.to_string(), title.to_string()));
        }
        w!(
            self.body,
            "<section class=\"{class}\" id=\"{}\">\n<h{level}>{}</h{level}>\n",
            escape(id),
            escape(title)
        );
    }

    fn close(&mut self) {
        self.body.push_str("</section>\n");
    }

    /// A chart with its caption and its numbers: `fold` puts the table in a
    /// `<details>` (still in the page) to keep long tables out of the way.
    fn figure(&mut self, kind: &str, svg: &str, caption: &str, table: &Grid, fold: bool) {
        self.figures += 1;
        let n = self.figures;
        w!(
            self.body,
            "<figure class=\"chart\" data-chart=\"{kind}\" id=\"fig-{n}\">\n{}<figcaption>{}</figcaption>\n",
            inline_svg(svg, n),
            escape(caption)
        );
        // A narrow table sits beside its chart when there is room; a wide or long one under it.
        let t = table.html_in(None, !fold && table.head.len() <= 4);
        if fold {
            w!(
                self.body,
                "<details><summary>The numbers ({} row{})</summary>\n{t}</details>\n",
                table.rows.len(),
                if table.rows.len() == 1 { "" } else { "s" }
            );
        } else {
            self.body.push_str(&t);
        }
        self.body.push_str("</figure>\n");
    }

    /// The table of contents: top entries, each with its sections inline;
    /// nothing for a page with fewer than two entries.
    fn toc(&self) -> String {
        if self.toc.len() < 2 {
            return String::new();
        }
        let mut groups: Vec<(Option<&TocEntry>, Vec<&TocEntry>)> = Vec::new();
        for e in &self.toc {
            match (e.0, groups.last_mut()) {
                (1, Some(g)) => g.1.push(e),
                (1, None) => groups.push((None, vec![e])),
                _ => groups.push((Some(e), Vec::new())),
            }
        }
        let link = |e: &TocEntry| format!("<a href=\"#{}\">{}</a>", escape(&e.1), escape(&e.2));
        let mut s = String::from("<nav class=\"toc\" aria-label=\"Contents\"><ul>\n");
        for (top, children) in groups {
            s.push_str("<li>");
            if let Some(t) = top {
                s.push_str(&link(t));
            }
            if !children.is_empty() {
                s.push_str(if top.is_some() { ": <ul>" } else { "<ul>" });
                for c in children {
                    w!(s, "<li>{}</li>", link(c));
                }
                s.push_str("</ul>");
            }
            s.push_str("</li>\n");
        }
        s.push_str("</ul></nav>\n");
        s
    }
}

/// An SVG from [`super::svg`] ready to inline in the page: without the XML
/// namespace (HTML puts `<svg>` in it), and with ids unique to figure `n`
/// (the writer derives them from the chart's content, so two identical
/// charts on one page would share them).
fn inline_svg(svg: &str, n: usize) -> String {
    let svg = svg.replacen(" xmlns=\"http://www.w3.org/2000/svg\"", "", 1);
    let key = "aria-labelledby=\"";
    let Some(at) = svg.find(key) else { return svg };
    let rest = &svg[at + key.len()..];
    let Some(end) = rest.find("-t ") else { return svg };
    let id = rest[..end].to_string();
    let new = format!("f{n}");
    svg.replacen(&format!("{key}{id}-t {id}-d\""), &format!("{key}{new}-t {new}-d\""), 1)
        .replacen(&format!("id=\"{id}-t\""), &format!("id=\"{new}-t\""), 1)
        .replacen(&format!("id=\"{id}-d\""), &format!("id=\"{new}-d\""), 1)
}

/// A data table: a header row, then rows of plain text (escaped when written).
#[derive(Clone, Debug, Default)]
struct Grid {
    head: Vec<String>,
    /// Which columns hold figures (right-aligned).
    num: Vec<bool>,
    rows: Vec<Vec<String>>,
    /// Consecutive rows with the same first cell share it (`rowspan`): a
    /// timeline's window, say, written once for all its seconds.
    group: bool,
}

impl Grid {
    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    fn html(&self, caption: Option<&str>) -> String {
        self.html_in(caption, false)
    }

    /// The table in its scrolling box, classed `side` to sit beside a chart.
    fn html_in(&self, caption: Option<&str>, side: bool) -> String {
        let mut s = format!("<div class=\"scroll{}\"><table class=\"data\">", if side { " side" } else { "" });
        if let Some(c) = caption {
            w!(s, "<caption>{}</caption>", escape(c));
        }
        // Figures are right-aligned by default; text columns are classed `t`
        // (fewer bytes per row in long tables).
        s.push_str("<thead><tr>");
        for (h, n) in self.head.iter().zip(&self.num) {
            w!(s, "<th scope=\"col\"{}>{}</th>", if *n { "" } else { " class=\"t\"" }, escape(h));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        for (k, row) in self.rows.iter().enumerate() {
            s.push_str("<tr>");
            let mut skip = 0;
            if self.group && !row.is_empty() {
                skip = 1;
                let first = &row[0];
                if k == 0 || self.rows[k - 1].first() != Some(first) {
                    let span = self.rows[k..].iter().take_while(|r| r.first() == Some(first)).count();
                    w!(s, "<th scope=\"rowgroup\" class=\"t\" rowspan=\"{span}\">{}</th>", escape(first));
                }
            }
            for (i, c) in row.iter().enumerate().skip(skip) {
                let num = self.num.get(i).copied().unwrap_or(false);
                w!(s, "<td{}>{}</td>", if num { "" } else { " class=\"t\"" }, escape(c));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
        s
    }
}

// ------------------------------------------------------------ shared bits

/// A warning code as a small badge coloured by severity; `title` adds a tooltip.
fn badge(code: &str, sev: crate::judge::Severity, title: Option<&str>) -> String {
    let tip = title.map(|t| format!(" title=\"{}\"", escape(t))).unwrap_or_default();
    format!("<span class=\"badge {}\"{tip}>{}</span>", sev.as_str(), escape(code))
}
