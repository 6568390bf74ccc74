//! `iolab layouts`: each configuration's run kept (labelled with the
//! configuration's name, tagged `layout=NAME`, `group=layouts-TIME` and the
//! configuration's own tags), then the runs side by side, the first
//! configuration the baseline. A configuration that could not be built or
//! measured, and a teardown that left something behind (its journal kept
//! for the next run), are named on stderr, and the exit status says so.

use super::measured::Request;
use super::{Delivery, ending};
use crate::base::error::{Error, failed};
use crate::compare::RunRef;
use crate::experiment::layouts::{ConfigOutcome, LayoutsOutcome};
use crate::render::{Document, Format, Page};
use crate::store::{self, Store};

/// Keep each configuration's run, then print their comparison (one run:
/// that run). Exit: a signal first; then a configuration not measured or
/// not torn down (status 1); then a store that could not keep a run (4).
pub fn layouts(outcome: LayoutsOutcome, r: &Request, prices: &[crate::compare::ListedPrice]) -> Delivery {
    let group = format!("layouts-{}", crate::base::units::now_rfc3339());
    let LayoutsOutcome { said, configs } = outcome;
    Delivery::collect(|d| {
        for line in &said {
            d.say(line);
        }
        let mut runs: Vec<RunRef> = Vec::new();
        let mut problems: Vec<String> = Vec::new();
        let mut not_saved: Option<Error> = None;
        let mut interrupted = None;
        let total = configs.len();
        for (k, m) in configs.into_iter().enumerate() {
            let ConfigOutcome {
                name,
                measured,
                failed: why,
                teardown,
            } = m.outcome;
            problems.extend(undone(&name, &teardown));
            match why {
                Some(Error::Interrupted(sig)) => interrupted = Some(sig),
                Some(e) => problems.push(e.to_string()),
                None => {}
            }
            let Some(outcome) = measured else { continue };
            if let Some(sig) = outcome.interrupted {
                interrupted = Some(sig);
            }
            if let Some(e) = &outcome.failed {
                problems.push(format!("{name}: {e}"));
            }
            let mut report = outcome.report;
            if !report.has_results() {
                continue;
            }
            report.argv = r.argv.clone();
            let tags = config_tags(r, &m.tags, m.usable_bytes, &name, &group);
            // Without a store, the runs are numbered here only.
            let mut id = (k + 1) as i64;
            if !r.no_store {
                let complete = outcome.interrupted.is_none() && outcome.failed.is_none();
                match Store::open(&r.db).and_then(|mut s| s.save(&report, Some(&name), &tags, complete)) {
                    Ok(n) => {
                        id = n;
                        report.run_id = Some(n);
                    }
                    Err(e) => not_saved = Some(store::not_saved(&r.db, &e)),
                }
            }
            let built = crate::compare::layouts::Built {
                layout: m.config.layout,
                members: m.config.devices.len() as u32,
                devices: m.config.devices.iter().map(|p| crate::plan::layouts::device_name(p)).collect(),
                properties: m.config.properties.clone(),
                usable_bytes: m.usable_bytes,
            };
            let price = members_price(prices, &m.config.devices, &report);
            if let Some((p, keys)) = &price {
                d.say(format!("{name}: price {p} from the price list ({})", keys.join(" + ")));
            }
            runs.push(RunRef {
                id,
                label: Some(name),
                price: price.map(|(p, _)| p),
                capacity_bytes: None,
                report,
                built: Some(built),
                // A configuration built for this sweep has no power-cut check.
                power_cut: None,
            });
        }
        if !r.quiet && !r.no_store && not_saved.is_none() && !runs.is_empty() {
            d.say(format!("stored {} run(s) in {}, tagged group={group}", runs.len(), r.db.display()));
        }
        print(d, r, &runs)?;
        for p in &problems {
            d.say(p);
        }
        let failed_configs = (!problems.is_empty() || runs.len() < total).then(|| {
            failed(format!(
                "{} of {total} configuration(s) measured{}",
                runs.len(),
                if problems.is_empty() {
                    String::new()
                } else {
                    format!("; {} problem(s) above", problems.len())
                }
            ))
        });
        let (exit, also) = ending(interrupted, failed_configs, None, not_saved);
        for e in also {
            d.say(e);
        }
        exit.map_or(Ok(()), Err)
    })
}

/// What a configuration's teardown did not undo, one line each.
fn undone(name: &str, teardown: &[(crate::targets::journal::Undo, crate::targets::journal::Outcome)]) -> Vec<String> {
    let mut out = Vec::new();
    for (u, o) in teardown {
        match o {
            crate::targets::journal::Outcome::Failed(e) => {
                out.push(format!("{name}: {} was not undone ({e}): the next run tries again", u.what));
            }
            crate::targets::journal::Outcome::LeftAlone(why) => {
                out.push(format!("{name}: {} was left alone: {why}", u.what));
            }
            // Nothing to undo there (a build that stopped early).
            crate::targets::journal::Outcome::Skipped(_) | crate::targets::journal::Outcome::Done => {}
        }
    }
    out
}

/// A configuration's run's tags: the command's own (less those the
/// configuration sets), `layout=NAME`, `group=GROUP`, the configuration's,
/// and its usable capacity for `iolab compare`.
fn config_tags(r: &Request, own_tags: &[(String, String)], usable: Option<u64>, name: &str, group: &str) -> Vec<(String, String)> {
    let mut tags = r.tags.clone();
    let usable_tag = crate::compare::layouts::USABLE_TAG;
    tags.retain(|(k, _)| k != "layout" && k != "group" && k != usable_tag && !own_tags.iter().any(|(t, _)| t == k));
    tags.push(("layout".into(), name.to_string()));
    tags.push(("group".into(), group.to_string()));
    tags.extend(own_tags.iter().cloned());
    // For `iolab compare` of the stored runs (`compare::layouts::from_tags`).
    if let Some(u) = usable {
        tags.push((usable_tag.into(), u.to_string()));
    }
    tags
}

/// The configurations' runs printed: one run as itself, more as their
/// comparison (in HTML, with every run on the page).
fn print(d: &mut Delivery, r: &Request, runs: &[RunRef]) -> Result<(), Error> {
    match runs.len() {
        0 => {}
        1 => r.results(d, Document::Run(&runs[0].report, None), Some(&runs[0].report))?,
        _ => {
            let cmp = crate::compare::compare(runs, runs[0].id).map_err(failed)?;
            if r.export.format == Format::Html && r.export.json.is_none() {
                let page = Page {
                    runs: runs.iter().map(|r| (&r.report, None)).collect(),
                    comparison: Some(&cmp),
                };
                r.results(d, Document::Page(&page), None)?;
            } else {
                r.results(d, Document::Comparison(&cmp), None)?;
            }
        }
    }
    Ok(())
}

/// What a configuration's members cost together, from the configuration
/// file's price list, with the keys that priced them; `None` unless every
/// member is listed (by name, serial or model: see
/// [`crate::compare::device_price`]).
fn members_price(
    prices: &[crate::compare::ListedPrice],
    devices: &[std::path::PathBuf],
    report: &crate::summary::Report,
) -> Option<(f64, Vec<String>)> {
    if prices.is_empty() || devices.is_empty() {
        return None;
    }
    let facts = report.target.info.as_ref().map(|i| i.devices.as_slice()).unwrap_or_default();
    let mut total = 0.0;
    let mut keys = Vec::new();
    for d in devices {
        let name = crate::plan::layouts::device_name(d);
        let f = facts.iter().find(|f| f.name == name);
        let p = crate::compare::device_price(prices, &d.display().to_string(), f)?;
        total += p.price;
        keys.push(p.key.clone());
    }
    Some((total, keys))
}
