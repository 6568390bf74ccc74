//! One builder per kind of result: the model turned once into a
//! [`View`], worded here and nowhere else (the recipe is in
//! [`crate::render::view`]'s module doc). Builders read the model and its
//! accessors in [`crate::summary`]; they format nothing themselves: figures
//! go into typed cells.
//!
//! | kind | builder |
//! |---|---|
//! | run, job, import | `jobs.rs` |
//! | a ZFS pool's members (jobs, time, app suites) | `members.rs` |
//! | scan | `scan.rs` (+ `jobs.rs`) |
//! | capacity | `capacity.rs` |
//! | run --suite sdcard's classes | `classes.rs` |
//! | scale | `scale.rs` (+ `jobs.rs`) |
//! | time, app suites | `apps.rs` |
//! | verify | `verify.rs` |
//! | flush | `flush.rs` |
//! | run header (page) | `header.rs` (+ `info.rs`'s sections) |
//! | comparison | `compare.rs` |
//! | selftest | `selftest.rs` |
//! | run list, a stored run's line | `runs.rs` |
//! | group of hosts | `hosts.rs` |
//! | info | `info.rs` |

/// Pins `$value` as the snapshot `iolab__render__KIND__tests__NAME` in
/// `src/render/snapshots/`, beside the other views' (the names they had
/// when each kind lived in `render/KIND.rs`).
#[cfg(test)]
macro_rules! snapshot {
    ($kind:literal, $name:literal, $value:expr) => {
        insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(concat!("iolab__render__", $kind, "__tests__", $name), $value);
        })
    };
}

/// A document as the formats of lines write it: the terminal's table,
/// then Markdown, then CSV.
#[cfg(test)]
fn lines_formats(d: super::Document) -> String {
    use super::{Csv, Exporter, Markdown, Text};
    format!(
        "{}--- markdown\n{}--- csv\n{}",
        Text::default().export(d).unwrap(),
        Markdown(crate::base::units::BwUnit::Mb).export(d).unwrap(),
        Csv.export(d).unwrap()
    )
}

pub mod apps;
pub mod capacity;
pub mod classes;
pub mod compare;
pub mod flush;
pub mod header;
pub mod hosts;
pub mod info;
pub mod jobs;
pub mod members;
pub mod runs;
pub mod scale;
pub mod scan;
pub mod selftest;
pub mod verify;

use super::envelope;
use super::view::{Block, Chart, Detail, Section, Table, Tone, View};
use crate::summary::{Body, Report};

/// A run's view.
pub fn run(r: &Report) -> View {
    let mut v = run_lines(r);
    v.sections.extend(jobs::per_test_sections(r));
    v
}

/// [`run`] without its page-only per-test sections, for the formats that
/// leave them out (terminal, Markdown, CSV): their charts draw a point per
/// second, and building them for nothing cost a day-long run 12 MiB.
pub fn run_lines(r: &Report) -> View {
    let mut v = View {
        title: format!("iolab {}: {}", r.command, r.target.path),
        sections: Vec::new(),
    };
    match &r.body {
        Body::Jobs(_) => {
            v.sections.push(jobs::summary(r, true));
            if let Some(c) = crate::summary::classes::of(r) {
                v.sections.push(classes::section(&c));
            }
            v.sections.push(jobs::footer(r));
        }
        Body::Scan { scan: sc, .. } => {
            v.sections.push(jobs::summary(r, false));
            v.sections.push(scan::section(r, sc));
            v.sections.push(jobs::footer(r));
        }
        Body::Scale { scale: sc, .. } => {
            // Its points are its table; the jobs' summary is a page's only.
            v.sections.push(jobs::summary(r, false).only(Detail::Page));
            v.sections.push(scale::section(sc));
            v.sections.push(jobs::footer(r));
        }
        Body::Capacity(c) => v.sections.push(capacity::section(r, c)),
        Body::Verify(vr) => v.sections.extend(verify::sections(r, vr)),
        Body::Flush(f) => v.sections.extend(flush::sections(r, f)),
        Body::Time(t) => v.sections.extend(apps::time_sections(r, t)),
        Body::App(a) => v.sections.extend(apps::app_sections(r, a)),
    }
    v
}

/// Records a page draws (a timed command's runs, a verify's zones):
/// `table` in the formats of lines (terminal, Markdown) and spreadsheets
/// (CSV), and on a page `chart` with the table as its numbers.
fn drawn(s: &mut Section, table: Table, chart: Option<Chart>) {
    s.push(Block::only(Detail::Lines, Block::Table(table.clone())));
    s.push(Block::only(Detail::Raw, Block::Table(table.clone())));
    if let Some(mut c) = chart {
        c.numbers = table;
        s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
    }
}

/// Records along an axis in `step`s from `origin` (a verify's zones), as
/// [`drawn`]; but when the chart folds (more than
/// [`envelope::MAX_DRAWN_POINTS`] points), the formats of lines get its
/// coarse buckets instead of a row per record, and say so, while CSV keeps
/// every record. `unit` names one record ("zone").
fn drawn_along(s: &mut Section, table: Table, chart: Option<Chart>, origin: f64, step: f64, unit: &str) {
    let Some(mut c) = chart else { return drawn(s, table, None) };
    c.numbers = table.clone();
    let Some(f) = envelope::fold(&mut c, origin, step) else {
        return drawn(s, table, Some(c));
    };
    c.caption = std::mem::take(&mut c.caption).text(f.sentence(unit, "The CSV and JSON exports hold"));
    s.push(Block::only(
        Detail::Lines,
        Block::paragraph(
            Tone::Plain,
            format!(
                "{} {unit}s are too many to list one by one: the table gives the min, median and max of each {} {unit}s in turn; the CSV and JSON exports hold every {unit}.",
                envelope::thousands(table.rows.len()),
                envelope::thousands(f.table_steps as usize)
            ),
        ),
    ));
    s.push(Block::only(Detail::Lines, Block::Table(c.numbers.clone())));
    s.push(Block::only(Detail::Raw, Block::Table(table)));
    s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
}
