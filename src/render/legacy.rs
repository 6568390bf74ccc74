//! The terminal, Markdown and CSV views of the kinds of run not yet turned
//! into views (see [`super::view`]'s recipe): scale, time and the app
//! suites. Each porter removes its kind's arms here and, with the last,
//! this file. The lines under a scale's table are already the jobs' view.

use super::view::View;
use super::{Style, apps, markdown, scale, text, views};
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
    if let Some(sc) = r.scale() {
        return scale::table(sc, st) + &text::render(&jobs_footer(r), st);
    }
    let body = if let Some(t) = r.time() {
        apps::time_table(t)
    } else if let Some(a) = r.app() {
        apps::app_table(a, st)
    } else {
        String::new()
    };
    body + &footer(r, st)
}

/// The lines under a timed command's or a workload's table.
fn footer(r: &Report, st: Style) -> String {
    let unit = st.units.definition();
    let t = &r.target;
    let dev = t.devices.first().map(|d| format!(", device {}", d.name)).unwrap_or_default();
    let fs = t.filesystem.as_ref().map(|f| format!(", {}", f.fstype)).unwrap_or_default();
    let mut s = format!("Target: {}{}{}\n", t.path, fs, dev);
    // Application workloads work through the filesystem: no span, no O_DIRECT.
    let which = match r.time().map(|tr| tr.named()) {
        Some(None) => "those of each run's Device (the one that did the command's reads, else the busiest)".to_string(),
        Some(Some(n)) if n != "the working directory" => format!("the top device named by {n}"),
        _ => "the top device under the directory".to_string(),
    };
    s.push_str(&format!("{unit}. Device figures are {which} (/proc/diskstats).\n"));
    for w in r.run_warnings() {
        s.push_str(&st.paint(&format!("warning [{}]: {}", w.code, w.message)));
        s.push('\n');
    }
    if r.interrupted {
        s.push_str("interrupted: only the runs above finished\n");
    }
    s
}

/// The Markdown view.
pub fn markdown(r: &Report, unit: BwUnit) -> String {
    use markdown::md_cell;
    if let Some(sc) = r.scale() {
        return scale::markdown(sc, unit) + &markdown::render(&jobs_footer(r), unit);
    }
    let mut s = if let Some(t) = r.time() {
        apps::time_markdown(t)
    } else if let Some(a) = r.app() {
        apps::app_markdown(a, unit)
    } else {
        String::new()
    };
    s.push_str(&format!("Target: `{}`  \n", r.target.path.replace('`', "'")));
    s.push_str(&format!("{}.\n", unit.definition()));
    let warnings: Vec<String> = r.run_warnings().map(|w| format!("{}: {}", w.code.as_str(), w.message)).collect();
    if !warnings.is_empty() {
        s.push_str("\n**Warnings**\n\n");
        for w in warnings {
            s.push_str(&format!("- {}\n", md_cell(&w)));
        }
    }
    if r.interrupted {
        s.push_str("\n*Interrupted: only the rows above finished.*\n");
    }
    if let Some(e) = &r.error {
        s.push_str(&format!("\n*Stopped by an error: only the rows above finished: {}*\n", md_cell(e)));
    }
    s
}

/// The CSV view.
pub fn csv(r: &Report) -> String {
    if let Some(t) = r.time() {
        apps::time_csv(t)
    } else if let Some(a) = r.app() {
        apps::app_csv(a)
    } else if let Some(sc) = r.scale() {
        scale::csv(sc)
    } else {
        String::new()
    }
}
