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
//! | scale | `scale.rs` (+ `jobs.rs`) | – |
//! | time, app suites | – | `render/apps.rs`, `html/apps.rs` |
//! | verify | – | `render/verify.rs`, `html/verify.rs` |
//! | run header (page) | – | `html/header.rs` (repeats `info.rs`'s `limits()`) |
//! | comparison | `compare.rs` | – |
//! | hosts, selftest, info, run list | – | `hosts.rs` + `html/hosts.rs`, `selftest.rs`, `info.rs`, `runs.rs` |

pub mod capacity;
pub mod compare;
pub mod jobs;
pub mod scale;
pub mod scan;

use super::view::{Detail, View};
use crate::summary::{Body, Report};

/// A run's view, or `None` for the kinds still rendered by
/// `render/legacy.rs` and their HTML sections (time, app suites, verify)
/// until they are ported.
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
        Body::Scale { scale: sc, .. } => {
            // Its points are its table; the jobs' summary is a page's only.
            v.sections.push(jobs::summary(r, false).only(Detail::Page));
            v.sections.push(scale::section(sc));
            v.sections.push(jobs::footer(r));
        }
        Body::Capacity(c) => v.sections.push(capacity::section(r, c)),
        Body::Time(_) | Body::App(_) | Body::Verify(_) => return None,
    }
    v.sections.extend(jobs::per_test_sections(r));
    Some(v)
}
