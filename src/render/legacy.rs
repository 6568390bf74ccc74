//! The terminal, Markdown and CSV views of the kinds of run not yet turned
//! into views (see [`super::view`]'s recipe): scale, the last. Its porter
//! removes this file. The lines under a scale's table are already the jobs' view.

use super::view::View;
use super::{Style, markdown, scale, text, views};
use crate::summary::Report;
use crate::units::BwUnit;

/// The lines under a scale's table: the jobs' footer.
fn jobs_footer(r: &Report) -> View {
    View {
        title: String::new(),
        sections: vec![views::jobs::footer(r)],
    }
}

/// The terminal's view.
pub fn text(r: &Report, st: Style) -> String {
    match r.scale() {
        Some(sc) => scale::table(sc, st) + &text::render(&jobs_footer(r), st),
        None => String::new(),
    }
}

/// The Markdown view.
pub fn markdown(r: &Report, unit: BwUnit) -> String {
    match r.scale() {
        Some(sc) => scale::markdown(sc, unit) + &markdown::render(&jobs_footer(r), unit),
        None => String::new(),
    }
}

/// The CSV view.
pub fn csv(r: &Report) -> String {
    r.scale().map(scale::csv).unwrap_or_default()
}
