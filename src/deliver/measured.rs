//! The result of a measuring command: kept first, then printed, and the
//! exit status that wins.

use super::{Delivery, Export, Stdout, ending};
use crate::base::error::{Error, Result, failed};
use crate::experiment::Outcome;
use crate::experiment::fio::HostsOutcome;
use crate::render::Document;
use crate::store::{self, Store};
use crate::summary::Report;
use std::path::PathBuf;

/// What happens to a measured result: where it is printed (`--format`,
/// `-o`, `--json`), and where and how it is kept (`--db`, `--no-store`,
/// `--label`, `--tag`).
#[derive(Clone, Debug)]
pub struct Request {
    pub export: Export,
    /// No line about where the run was stored.
    pub quiet: bool,
    pub db: PathBuf,
    pub no_store: bool,
    pub label: Option<String>,
    pub tags: Vec<(String, String)>,
    /// The command line, kept in the document.
    pub argv: Vec<String>,
    pub stdout: Stdout,
}

impl Request {
    /// What can be checked before the target is touched: every file to
    /// write is in a directory that exists.
    pub fn check(&self) -> Result<()> {
        self.export.check()
    }

    /// The result document as `--json`, `--format` and `-o` ask, and the
    /// run's warnings on stderr when stdout does not carry its table.
    pub(super) fn results(&self, d: &mut Delivery, doc: Document, warnings: Option<&Report>) -> Result<()> {
        d.export(&self.export, doc, self.stdout)?;
        if let Some(r) = warnings.filter(|_| !self.export.table_on_stdout()) {
            d.warn(r);
        }
        Ok(())
    }

    /// Keep `report` with `tags`: its id, or why it was not kept.
    fn save(&self, report: &Report, tags: &[(String, String)], complete: bool) -> std::result::Result<i64, Error> {
        Store::open(&self.db)
            .and_then(|mut s| s.save(report, self.label.as_deref(), tags, complete))
            .map_err(|e| store::not_saved(&self.db, &e))
    }
}

/// Keep the run (or the part that finished), then print it. A store that
/// cannot keep it (a full or read-only disk) must not cost the user the
/// measurement: it is printed anyway, then one line names the store and
/// why, and the exit status is 4 (see [`ending`] for which status wins). A
/// run an error stopped before any test finished has nothing to keep or
/// print: its error is the one line.
pub fn run(outcome: Outcome, r: &Request) -> Delivery {
    let Outcome {
        mut report,
        interrupted,
        failed,
    } = outcome;
    report.argv = r.argv.clone();
    Delivery::collect(|d| {
        let failed = match failed {
            Some(e) if !report.has_results() => return Err(e),
            f => f,
        };
        let mut not_saved = None;
        if !r.no_store && report.has_results() {
            let complete = interrupted.is_none() && failed.is_none();
            match r.save(&report, &r.tags, complete) {
                Ok(id) => {
                    report.run_id = Some(id);
                    match store::sudo_owner_of(&r.db) {
                        _ if r.quiet => {}
                        Some(u) => d.say(format!(
                            "stored as run {id} in {} ({}'s store: run under sudo)",
                            r.db.display(),
                            u.name
                        )),
                        None => d.say(format!("stored as run {id} in {}", r.db.display())),
                    }
                }
                Err(e) => not_saved = Some(e),
            }
        }
        r.results(d, Document::Run(&report, None), Some(&report))?;
        let (exit, also) = ending(interrupted, failed, report.failed_check(), not_saved);
        for e in also {
            d.say(e);
        }
        exit.map_or(Ok(()), Err)
    })
}

/// `--hosts`: a run stored per host (tagged `host=…` and `group=…`), then
/// the group view. A host that gave no result is named on stderr, and the
/// exit status is 1 (the others' runs are kept); then 4 when a host's run
/// was not kept. A signal outranks both.
pub fn hosts(outcome: HostsOutcome, r: &Request) -> Delivery {
    let group = format!("hosts-{}", crate::base::units::now_rfc3339());
    Delivery::collect(|d| {
        // (host, its report, why it has none, its stored run)
        type HostRun = (String, Option<Report>, Option<String>, Option<i64>);
        let mut stored: Vec<HostRun> = Vec::new();
        let mut unsaved: Vec<String> = Vec::new();
        for (host, got) in outcome.runs {
            match got {
                Ok(mut report) => {
                    report.argv = r.argv.clone();
                    let mut id = None;
                    if !r.no_store {
                        let mut tags = r.tags.clone();
                        tags.retain(|(k, _)| k != "host" && k != "group");
                        tags.push(("host".into(), host.clone()));
                        tags.push(("group".into(), group.clone()));
                        match r.save(&report, &tags, !report.interrupted) {
                            Ok(n) => {
                                report.run_id = Some(n);
                                id = Some(n);
                            }
                            Err(e) => unsaved.push(format!("{host}: {e}")),
                        }
                    }
                    stored.push((host, Some(report), None, id));
                }
                Err(e) => {
                    d.say(format!("{host}: {e}"));
                    stored.push((host, None, Some(e), None));
                }
            }
        }
        let input: Vec<(String, Option<&Report>, Option<String>)> =
            stored.iter().map(|(h, r, e, _)| (h.clone(), r.as_ref(), e.clone())).collect();
        let mut group_report = crate::summary::hosts::hosts_report(&input);
        for (entry, (_, _, _, id)) in group_report.hosts.iter_mut().zip(&stored) {
            entry.run_id = *id;
        }
        if !r.quiet && !r.no_store {
            d.say(format!(
                "stored {} run(s) in {}, tagged group={group}",
                stored.iter().filter(|s| s.3.is_some()).count(),
                r.db.display()
            ));
        }
        r.results(d, Document::Hosts(&group_report), None)?;
        for line in &unsaved {
            d.say(line);
        }
        if let Some(sig) = outcome.interrupted {
            return Err(Error::Interrupted(sig));
        }
        let failed_hosts = stored.iter().filter(|s| s.1.is_none()).count();
        if failed_hosts > 0 {
            return Err(failed(format!(
                "{failed_hosts} of {} hosts gave no result (the others' runs are kept)",
                stored.len()
            )));
        }
        if !unsaved.is_empty() {
            return Err(Error::NotSaved(format!(
                "{} of {} hosts' runs were not saved in {}",
                unsaved.len(),
                stored.len(),
                r.db.display()
            )));
        }
        Ok(())
    })
}

/// `iolab selftest`: its report, and an error naming every check outside
/// the tolerance.
pub fn selftest(report: &crate::selftest::SelftestReport, x: &Export, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        d.export(x, Document::Selftest(report), out)?;
        report.verdict()
    })
}

/// `iolab capacity --restore FILE`: what was written back.
pub fn restored(s: &crate::experiment::capacity::RestoreSummary) -> Delivery {
    let mut d = Delivery::default();
    if s.torn_bytes > 0 {
        d.say(format!(
            "{}: ignored a cut-short last record ({} bytes): the process died while saving it, before its round wrote",
            s.file.display(),
            s.torn_bytes
        ));
    }
    d.steps.push(super::Step::Write {
        to: None,
        text: format!(
            "restored {} block(s) ({}) from {} to {} in {:.2} s; every one read back as saved; {} removed\n",
            s.restored,
            crate::base::units::fmt_bytes(s.restored * crate::verify::BLOCK as u64),
            s.file.display(),
            s.device,
            s.seconds,
            s.file.display()
        ),
    });
    d
}
