//! One builder per kind of result: the model turned once into a
//! [`View`], worded here and nowhere else (the recipe is in
//! [`crate::render::view`]'s module doc). Builders read the model and its
//! accessors in [`crate::summary`]; they format nothing themselves: figures
//! go into typed cells.
//!
//! | kind | builder | still elsewhere until ported |
//! |---|---|---|
//! | run, job, import | `jobs.rs` | – |
//! | scan | `scan.rs` (+ `jobs.rs`) | – |
//! | capacity | `capacity.rs` | – |
//! | scale | – | `render/scale.rs`, `html/scale.rs` (its summary, footer and per-test sections are `jobs.rs`'s already) |
//! | time, app suites | – | `render/apps.rs`, `html/apps.rs` |
//! | verify | – | `render/verify.rs`, `html/verify.rs` |
//! | run header (page) | `header.rs` (+ `info.rs`'s sections) | – |
//! | comparison | – | `render/compare.rs`, `html/compare.rs` |
//! | selftest | `selftest.rs` | – |
//! | run list, a stored run's line | `runs.rs` | – |
//! | group of hosts | `hosts.rs` | – |
//! | info | `info.rs` | – |

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
        Markdown(crate::units::BwUnit::Mb).export(d).unwrap(),
        Csv.export(d).unwrap()
    )
}

pub mod capacity;
pub mod header;
pub mod hosts;
pub mod info;
pub mod jobs;
pub mod runs;
pub mod scan;
pub mod selftest;

use super::view::View;
use crate::summary::{Body, Report};

/// A run's view, or `None` for the kinds still rendered by
/// `render/legacy.rs` and their HTML sections (scale, time, app suites,
/// verify) until they are ported.
pub fn run(r: &Report) -> Option<View> {
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
        Body::Capacity(c) => v.sections.push(capacity::section(r, c)),
        Body::Scale { .. } | Body::Time(_) | Body::App(_) | Body::Verify(_) => return None,
    }
    v.sections.extend(jobs::per_test_sections(r));
    Some(v)
}
