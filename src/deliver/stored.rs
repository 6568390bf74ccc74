//! The commands on stored runs: list, show, compare, report, import,
//! label, tag, delete.

use super::{Delivery, Export, Stdout};
use crate::base::error::{Result, usage};
use crate::compare::{Comparison, RunRef};
use crate::config::Config;
use crate::render::{Document, Format, Page};
use crate::store::{Filter, RunSummary, Store};
use std::path::{Path, PathBuf};

/// `iolab list`: the stored runs `filter` keeps, one line each. An
/// `--offset` past them all says how many there are, instead of a table
/// saying there are none (a document still gets its empty list).
pub fn list(db: &Path, filter: &Filter, x: &Export, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        let st = Store::open_read(db)?;
        let runs = st.list(filter)?;
        let offset = filter.page.offset;
        if runs.is_empty() && offset > 0 {
            let all = Filter {
                page: Default::default(),
                ..filter.clone()
            };
            let n = st.count(&all)?;
            if n > 0 {
                if x.format != Format::Table || x.file().is_some() {
                    d.export(x, Document::Runs(&runs), out)?;
                }
                let (s, kept) = (
                    if n == 1 { "" } else { "s" },
                    if all == Filter::default() { "" } else { " that the filters keep" },
                );
                d.say(format!(
                    "there {} {n} stored run{s}{kept}: --offset {offset} is past {}",
                    if n == 1 { "is" } else { "are" },
                    if n == 1 { "it" } else { "them" },
                ));
                return Ok(());
            }
        }
        d.export(x, Document::Runs(&runs), out)
    })
}

/// `iolab show ID`: the run as it was printed; its warnings on stderr when
/// stdout does not carry its table.
pub fn show(db: &Path, id: i64, x: &Export, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        let run = Store::open_read(db)?.load(id)?;
        d.export(x, Document::Run(&run.report, Some(&run.summary)), out)?;
        if x.format != Format::Table || x.file().is_some() {
            d.warn(&run.report);
        }
        Ok(())
    })
}

/// What `iolab compare` is asked.
#[derive(Clone, Debug, Default)]
pub struct CompareRequest {
    /// The runs, two or more; the first is the baseline unless `baseline` names another.
    pub ids: Vec<i64>,
    pub baseline: Option<i64>,
    /// Prices and capacities to store with runs first (`--price`, `--capacity`).
    pub prices: Vec<(i64, f64)>,
    pub capacities: Vec<(i64, u64)>,
}

/// `iolab compare`: the runs side by side; in HTML, each run's charts
/// under the comparison.
pub fn compare(db: &Path, c: &CompareRequest, config: Option<&Config>, x: &Export, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        // Prices and capacities to keep make it a write; else a read.
        let mut st = if c.prices.is_empty() && c.capacities.is_empty() {
            Store::open_read(db)?
        } else {
            Store::open(db)?
        };
        for &(id, price) in &c.prices {
            st.set_price(id, price)?;
        }
        for &(id, bytes) in &c.capacities {
            st.set_capacity(id, bytes)?;
        }
        let (runs, cmp) = comparison(d, &st, &c.ids, c.baseline, config)?;
        if x.format != Format::Html {
            return d.export(x, Document::Comparison(&cmp), out);
        }
        let summaries: Vec<RunSummary> = c
            .ids
            .iter()
            .map(|&id| st.load(id).map(|r| r.summary))
            .collect::<std::result::Result<_, _>>()?;
        let page = Page {
            runs: runs.iter().zip(&summaries).map(|(r, s)| (&r.report, Some(s))).collect(),
            comparison: Some(&cmp),
        };
        d.export(x, Document::Page(&page), out)
    })
}

/// `iolab report`: the HTML page of one stored run, or of several with
/// their comparison. Without `-o`, to stdout unless it is a terminal: then
/// to `iolab-report-ID[-ID...].html`, said on stderr.
pub fn report(db: &Path, ids: &[i64], baseline: Option<i64>, output: Option<PathBuf>, config: Option<&Config>, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        let st = Store::open_read(db)?;
        let stored = ids.iter().map(|&id| st.load(id)).collect::<std::result::Result<Vec<_>, _>>()?;
        let compared = if ids.len() > 1 {
            Some(comparison(d, &st, ids, baseline, config)?.1)
        } else if baseline.is_some() {
            return Err(usage("--baseline needs two or more runs to compare"));
        } else {
            None
        };
        let page = Page {
            runs: stored.iter().map(|r| (&r.report, Some(&r.summary))).collect(),
            comparison: compared.as_ref(),
        };
        let output = match output {
            None if out.terminal => Some(report_file(ids)),
            o => o,
        };
        let x = Export {
            format: Format::Html,
            output,
            units: crate::base::units::BwUnit::Mb,
            json: None,
        };
        d.export(&x, Document::Page(&page), out)?;
        // The page holds each run's warnings: not repeated on stderr.
        if let Some(p) = x.file() {
            d.say(format!("wrote {}", p.display()));
        }
        Ok(())
    })
}

/// The report's file name when none is given: `iolab-report-3-4.html`.
pub fn report_file(ids: &[i64]) -> PathBuf {
    let ids: Vec<String> = ids.iter().map(i64::to_string).collect();
    format!("iolab-report-{}.html", ids.join("-")).into()
}

/// Load `ids` and compare them against `baseline` (default: the first). A
/// run without a stored price takes the configuration file's, said on
/// stderr, so the table's source is never a mystery.
pub(crate) fn comparison(
    d: &mut Delivery,
    st: &Store,
    ids: &[i64],
    baseline: Option<i64>,
    config: Option<&Config>,
) -> Result<(Vec<RunRef>, Comparison)> {
    let mut runs = Vec::with_capacity(ids.len());
    for &id in ids {
        let r = st.load(id)?;
        let (mut price, mut capacity_bytes) = (r.price, r.capacity_bytes);
        if price.is_none()
            && let Some(c) = config
            && let Some(p) = crate::compare::listed_price(&c.prices, r.summary.label.as_deref(), &r.report)
        {
            d.say(format!("run {id}: price {} from \"{}\" in {}", p.price, p.key, c.path.display()));
            price = Some(p.price);
            capacity_bytes = capacity_bytes.or(p.capacity_bytes);
        }
        let built = crate::compare::layouts::from_tags(&r.summary.tags, &r.report);
        // The device's latest power-cut check, for the log-device verdict.
        let power_cut = match crate::summary::verify::device_identity(&r.report.target) {
            Some(device) => st.latest_power_cut_check(&device)?.map(|c| crate::compare::PowerCutCheck {
                date: c.date().to_string(),
                lost_blocks: c.lost_blocks,
            }),
            None => None,
        };
        runs.push(RunRef {
            id,
            label: r.summary.label,
            price,
            capacity_bytes,
            report: r.report,
            built,
            power_cut,
        });
    }
    let c = crate::compare::compare(&runs, baseline.unwrap_or(ids[0])).map_err(usage)?;
    Ok((runs, c))
}

/// `iolab import FILE`: each run the document holds, stored with the
/// user's label and tags (then the document's own).
pub fn import(db: &Path, file: &Path, label: Option<&str>, tags: &[(String, String)]) -> Delivery {
    Delivery::collect(|d| {
        let text = crate::base::paths::read_text(file, "the document to import").map_err(usage)?;
        let imported = crate::import::parse_import(&text).map_err(|e| usage(format!("{}: {e}", file.display())))?;
        if let Some(note) = &imported.note {
            d.say(format!("{}: {note}", file.display()));
        }
        let mut store = Store::open(db)?;
        for run in &imported.runs {
            let tags: Vec<(String, String)> = tags.iter().chain(&run.tags).cloned().collect();
            let id = store.save(&run.report, label, &tags, !run.report.interrupted)?;
            d.say(format!("stored as run {id} in {} ({})", db.display(), run.what));
        }
        Ok(())
    })
}

/// `iolab delete ID`.
pub fn delete(db: &Path, id: i64) -> Delivery {
    Delivery::collect(|d| {
        Store::open(db)?.delete(id)?;
        d.steps.push(super::Step::Say(format!("deleted run {id}")));
        Ok(())
    })
}

/// `iolab label ID TEXT`.
pub fn label(db: &Path, id: i64, text: &str) -> Delivery {
    Delivery::collect(|_| Ok(Store::open(db)?.set_label(id, text)?))
}

/// `iolab tag ID KEY=VALUE`.
pub fn tag(db: &Path, id: i64, (key, value): &(String, String)) -> Delivery {
    Delivery::collect(|_| Ok(Store::open(db)?.set_tag(id, key, value)?))
}
