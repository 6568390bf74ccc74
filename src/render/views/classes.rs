//! `run --suite sdcard`: the class verdicts (one line per family), the
//! figures they rest on with their intervals, the reader they were measured
//! through, and what "meets" means here.

use crate::judge::class::{ClassReport, Measured};
use crate::render::view::{Block, Cell, Column, Fact, Heading, Section, Table, Tone};

/// The classes' section.
pub fn section(c: &ClassReport) -> Section {
    let mut s = Section::new("classes", "classes", Heading::Shown("SD and application classes".into()));
    let mut verdicts = Table::new(vec![
        Column::text("Family", "family"),
        Column::text("Meets", "meets"),
        Column::text("Above it", "misses"),
    ]);
    for f in &c.families {
        let misses: Vec<&str> = f.misses.iter().map(|m| m.text.as_str()).collect();
        verdicts.row(vec![
            Cell::Text(f.family.label().into()),
            Cell::Text(f.met.clone().unwrap_or_else(|| "none".into())),
            Cell::Text(if misses.is_empty() { "all met".into() } else { misses.join("; ") }),
        ]);
    }
    s.push(Block::Table(verdicts));
    let mut figures = Table::new(vec![
        Column::text("Figure", "figure"),
        Column::text("Test", "test"),
        Column::bandwidth("", "median_bw_bytes_per_s"),
        Column::figure("IOPS", "median_iops"),
        Column::figure("95% interval", "interval"),
        Column::figure("Runs", "runs"),
    ]);
    for m in &c.figures {
        figures.row(figure_row(m));
    }
    s.push(Block::Table(figures));
    let queueing = match c.reader.queues {
        Some(true) => format!("yes ({})", c.reader.why),
        Some(false) => format!("no ({}): A2's queued figures cannot be reached through it", c.reader.why),
        None => format!("not known ({})", c.reader.why),
    };
    s.push(Block::Facts(vec![
        Fact::new("Reader", c.reader.name.as_str()),
        Fact::new("Command queueing", queueing),
    ]));
    s.push(Block::paragraph(Tone::Plain, format!("Meets means: {}.", c.caveat)));
    s
}

/// A figure's row: its median under its unit's column, its interval's ends
/// as cells of that unit.
fn figure_row(m: &Measured) -> Vec<Cell> {
    let cell = |v: f64| {
        if m.figure.is_bandwidth() {
            Cell::bandwidth_coarse(v)
        } else {
            Cell::number(v, 0)
        }
    };
    let (bw, iops) = if m.figure.is_bandwidth() {
        (cell(m.median), Cell::Empty)
    } else {
        (Cell::Empty, cell(m.median))
    };
    vec![
        Cell::Text(m.figure.label().into()),
        Cell::Text(m.test.clone()),
        bw,
        iops,
        Cell::Range(m.interval().map(|(lo, hi)| Box::new((cell(lo), cell(hi))))),
        Cell::Count(m.runs as u64),
    ]
}
