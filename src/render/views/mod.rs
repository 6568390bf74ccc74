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
//! | scale | `scale.rs` (+ `jobs.rs`) |
//! | time, app suites | `apps.rs` |
//! | verify | `verify.rs` |
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
pub mod compare;
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

use super::view::{Block, Chart, Detail, Section, Table, View};
use crate::summary::{Body, Report};

/// A run's view.
pub fn run(r: &Report) -> View {
    let mut v = View {
        title: format!("iolab {}: {}", r.command, r.target.path),
        sections: Vec::new(),
    };
    match &r.body {
        Body::Jobs(_) => {
            v.sections.push(jobs::summary(r, true));
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
        Body::Time(t) => v.sections.extend(apps::time_sections(r, t)),
        Body::App(a) => v.sections.extend(apps::app_sections(r, a)),
    }
    v.sections.extend(jobs::per_test_sections(r));
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
