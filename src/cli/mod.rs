//! The command line: maps arguments ([`args`]) to an [`Experiment`] or a
//! store query, hands experiments to [`experiment::run`], and gives every
//! result to an exporter ([`render::exporter`]). Nothing else: no
//! measuring, no judging, no formatting. Diagnostics go to stderr, results
//! to stdout.

mod args;
mod docs;
mod experiments;
pub mod panic;
#[cfg(test)]
mod proptests;
mod settings;

use crate::device::SysRoot;
use crate::error::{Error, Result, failed, usage};
use crate::experiment::{self, Context, Experiment, Outcome};
use crate::plan::{self, Common, EngineKind, Limit, SuiteName};
use crate::render::{self, Document, Format};
use crate::signals::Stop;
use crate::store::{self, Store};
use args::*;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Entry point of the binary. A panic anywhere is one line on stderr and
/// exit status 70 ([`panic`]).
pub fn main() -> ExitCode {
    panic::install();
    match std::panic::catch_unwind(main_unguarded) {
        Ok(code) if !panic::panicked() => code,
        _ => ExitCode::from(panic::EXIT_STATUS),
    }
}

fn main_unguarded() -> ExitCode {
    use clap::FromArgMatches;
    panic::test_knob();
    let parsed = command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let (mut cli, matches) = match parsed {
        Ok(c) => c,
        Err(e) => {
            // clap's whole message: what is wrong, the valid values or the
            // suggestion, and the usage line (help and version go to stdout).
            let _ = e.print();
            use clap::error::ErrorKind::*;
            return ExitCode::from(match e.kind() {
                DisplayHelp | DisplayVersion => 0,
                _ => 2,
            });
        }
    };
    cli.resolve_files();
    // The configuration file: not needed to print completions or manuals.
    let config = match cli.cmd {
        Cmd::Completions(_) | Cmd::Man(_) | Cmd::Info(_) | Cmd::Selftest(_) | Cmd::Schema(_) => Ok(None),
        _ => settings::load(&cli),
    };
    let config = match config {
        Ok(c) => c,
        Err(e) => {
            eprintln!("iolab: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    if let Some(c) = &config {
        settings::apply(&mut cli, &matches, c);
    }
    if let Err(e) = settings::check_suite(&cli, config.as_ref()) {
        let _ = e.print();
        return ExitCode::from(2);
    }
    if let Some(note) = settings::decimal_size_note(&matches) {
        eprintln!("iolab: {note}");
    }
    match dispatch(cli, config.as_ref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iolab: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn dispatch(cli: Cli, config: Option<&crate::config::Config>) -> Result<()> {
    let db = cli.files.db.clone().unwrap_or_else(store::default_path);
    match cli.cmd {
        Cmd::Run(a) if a.emit.emit.is_some() => emit_fio(experiments::run(&a, config)?),
        Cmd::Job(a) if a.emit.emit.is_some() => emit_fio(experiments::job(&a)?),
        Cmd::Run(a) if a.hosts.given() => on_hosts(experiments::run(&a, config)?, a.hosts.list()?, &a.common.out, &db),
        Cmd::Job(a) if a.hosts.given() => on_hosts(experiments::job(&a)?, a.hosts.list()?, &a.common.out, &db),
        Cmd::Run(a) => measure(experiments::run(&a, config)?, &a.common.out, &db),
        Cmd::Job(a) => measure(experiments::job(&a)?, &a.common.out, &db),
        Cmd::Scan(a) => measure(experiments::scan(&a)?, &a.out, &db),
        Cmd::Scale(a) => measure(experiments::scale(&a)?, &a.common.out, &db),
        Cmd::Time(a) => measure(experiments::time(&a)?, &a.out, &db),
        Cmd::Capacity(a) => match &a.restore {
            Some(file) => capacity_restore(file, a.device.as_deref()),
            None => {
                let earlier = earlier_verifies(&db, a.out.no_store);
                let dir = a.backup_dir.clone().unwrap_or_else(|| backup_dir(&db));
                measure(experiments::capacity(&a, earlier, dir)?, &a.out, &db)
            }
        },
        Cmd::Verify(a) => measure(experiments::verify(&a)?, &a.out, &db),
        Cmd::Suites(_) => print(&suites_listing(config)),
        Cmd::Info(a) => {
            if !a.target.exists() {
                return Err(usage(format!("target {} does not exist", a.target.display())));
            }
            let report = crate::device::describe(&SysRoot::default(), &a.target)
                .map_err(|e| usage(format!("cannot describe {}: {e}", a.target.display())))?;
            export(&a.export.or_json(a.json), Document::Device(&report))
        }
        Cmd::List(a) => {
            let runs = open_store(&db)?
                .list(&store::Filter {
                    label: a.label.clone(),
                    tags: a.tag.clone(),
                })
                .map_err(store_err)?;
            export(&a.export.or_json(a.json), Document::Runs(&runs))
        }
        Cmd::Show(a) => {
            let run = open_store(&db)?.load(a.id).map_err(store_err)?;
            let doc = Document::Run(&run.report, Some(&run.summary));
            export(&a.export.or_json(a.json), doc)?;
            if a.json || a.export.format != Format::Table || a.export.file().is_some() {
                warn_on_stderr(&run.report);
            }
            Ok(())
        }
        Cmd::Compare(a) => compare(&db, &a, config),
        Cmd::Report(a) => report(&db, &a, config),
        Cmd::Import(a) => {
            let text = crate::paths::read_text(&a.file, "the document to import").map_err(usage)?;
            let imported = crate::import::parse_import(&text).map_err(|e| usage(format!("{}: {e}", a.file.display())))?;
            if let Some(note) = &imported.note {
                eprintln!("iolab: {}: {note}", a.file.display());
            }
            let mut store = open_store(&db)?;
            for run in &imported.runs {
                let tags: Vec<(String, String)> = a.tag.iter().chain(&run.tags).cloned().collect();
                let id = store
                    .save(&run.report, a.label.as_deref(), &tags, !run.report.interrupted)
                    .map_err(store_err)?;
                eprintln!("iolab: stored as run {id} in {} ({})", db.display(), run.what);
            }
            Ok(())
        }
        Cmd::Delete { id, .. } => open_store(&db)
            .and_then(|mut s| s.delete(id).map_err(store_err))
            .map(|_| eprintln!("deleted run {id}")),
        Cmd::Label { id, text, .. } => open_store(&db).and_then(|mut s| s.set_label(id, &text).map_err(store_err)),
        Cmd::Tag { id, tag, .. } => open_store(&db).and_then(|mut s| s.set_tag(id, &tag.0, &tag.1).map_err(store_err)),
        Cmd::Selftest(a) => selftest(&a),
        Cmd::Schema(a) => print(&match a.kind {
            Some(kind) => crate::schema::text(kind),
            None => crate::schema::listing(),
        }),
        Cmd::Completions(a) => docs::completions(a.shell),
        Cmd::Man(a) => docs::man(a.dir.as_deref()),
    }
}

/// The verify runs in the store, each with its device's identity, for
/// `iolab capacity` (a failed one vetoes "genuine" on its device). The
/// store is opened (made if missing, unless `--no-store`: then a missing
/// store has none); one that cannot be read is said on stderr.
fn earlier_verifies(db: &Path, no_store: bool) -> Vec<crate::judge::capacity::EarlierVerify> {
    if db.as_os_str() == ":memory:" || (no_store && !db.exists()) {
        return Vec::new();
    }
    match Store::open(db).and_then(|s| s.runs_of_kind("verify")) {
        Ok(runs) => runs
            .iter()
            .filter_map(|r| {
                let v = r.verify()?;
                Some(crate::judge::capacity::EarlierVerify {
                    run_id: r.run_id?,
                    started_at: r.started_at.clone(),
                    device: v.device.clone()?,
                    verdict: v.summary.verdict,
                    message: v.summary.message.clone(),
                })
            })
            .collect(),
        Err(e) => {
            eprintln!("iolab: WARNING: cannot read earlier verify runs ({e}): one that found this device lying cannot veto \"genuine\"");
            Vec::new()
        }
    }
}

/// Where `iolab capacity` keeps its backup file: beside the results store,
/// or with an in-memory store `$XDG_STATE_HOME/iolab` (else
/// `~/.local/state/iolab`, else `/var/tmp/iolab`).
fn backup_dir(db: &Path) -> std::path::PathBuf {
    if db.as_os_str() != ":memory:"
        && let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty())
    {
        return dir.to_path_buf();
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
    env("XDG_STATE_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".local/state")))
        .unwrap_or_else(|| "/var/tmp".into())
        .join("iolab")
}

/// `iolab capacity --restore FILE [DEVICE]`.
fn capacity_restore(file: &Path, device: Option<&Path>) -> Result<()> {
    let stop = Stop::install();
    let view = render::progress::Terminal::new(true, crate::units::BwUnit::Mb);
    let ctx = Context {
        stop: &stop,
        observer: &view,
        sys: SysRoot::default(),
    };
    let s = crate::experiment::capacity::restore_file(file, device, &ctx)?;
    if s.torn_bytes > 0 {
        eprintln!(
            "iolab: {}: ignored a cut-short last record ({} bytes): the process died while saving it, before its round wrote",
            file.display(),
            s.torn_bytes
        );
    }
    print(&format!(
        "restored {} block(s) ({}) from {} to {} in {:.2} s; every one read back as saved; {} removed\n",
        s.restored,
        crate::units::fmt_bytes(s.restored * crate::verify::BLOCK as u64),
        s.file.display(),
        s.device,
        s.seconds,
        s.file.display()
    ))
}

/// `--emit fio`: the experiment's jobs as a fio job file, on stdout.
fn emit_fio(exp: Experiment) -> Result<()> {
    exp.validate()?;
    let Experiment::Jobs(req) = exp else {
        return Err(usage("this suite is an application workload: fio cannot run it"));
    };
    let path = &req.target.path;
    let target = if path.is_dir() {
        plan::fio::FioTarget::Directory {
            dir: path.display().to_string(),
            size: req.target.size.unwrap_or(crate::target::DEFAULT_TEST_FILE),
        }
    } else {
        plan::fio::FioTarget::Path {
            filename: path.display().to_string(),
            size: req.target.size,
        }
    };
    print(&plan::fio::job_file(&req.jobs, &req.repeat, &target))
}

/// `iolab selftest`. `IOLAB_SELFTEST_LIMIT_SCALE` multiplies every limit:
/// a knob for iolab's own tests, which make the limits unreachable with it.
fn selftest(a: &SelftestArgs) -> Result<()> {
    let stop = Stop::install();
    let exe = std::env::current_exe().map_err(|e| failed(format!("cannot find iolab's own binary: {e}")))?;
    let scale = std::env::var("IOLAB_SELFTEST_LIMIT_SCALE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(1.0);
    eprintln!("iolab: selftest: emulated devices under the kernel's block throttle, about a minute");
    let report = crate::selftest::run(&stop, &exe, scale, Path::new("/sys/fs/cgroup"))?;
    export(&a.export, Document::Selftest(&report))?;
    if report.passed {
        Ok(())
    } else {
        let bad: Vec<String> = report
            .cases
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{} on {} {:+.1}%", c.name, c.device, c.error_pct))
            .collect();
        Err(failed(format!(
            "selftest failed: {} outside ±{}% of its limit ({})",
            bad.len(),
            crate::selftest::TOLERANCE_PCT,
            bad.join("; ")
        )))
    }
}

fn print(text: &str) -> Result<()> {
    write!(std::io::stdout().lock(), "{text}").map_err(|e| failed(format!("writing output: {e}")))
}

/// Write `doc` as `x` says: its format, to its file or stdout. The table
/// is coloured only on a terminal without `NO_COLOR`.
fn export(x: &ExportArgs, doc: Document) -> Result<()> {
    use std::io::IsTerminal;
    let file = x.file();
    let color = file.is_none() && render::use_color(std::io::stdout().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
    let style = render::Style { units: x.units, color };
    let text = render::exporter(x.format, style).export(doc).ok_or_else(|| {
        usage(format!(
            "--format {} has no view of {}; use --format {}",
            x.format.name(),
            doc.name(),
            render::formats_of(doc).replace(", ", "|")
        ))
    })?;
    match file {
        Some(p) => crate::paths::write_output(p, text.as_bytes()).map_err(output_err),
        None => print(&text),
    }
}

/// A refused output path (a planted link, a block device) is a usage error.
fn output_err(e: String) -> Error {
    if e.starts_with("refusing") { usage(e) } else { failed(e) }
}

/// The warning lines of a run on stderr, when stdout does not carry the table.
fn warn_on_stderr(report: &crate::summary::Report) {
    for line in render::warning_lines(report) {
        eprintln!("iolab: {line}");
    }
}

/// Run an experiment with the live view on stderr, then keep and print its result.
fn measure(exp: Experiment, out: &OutputArgs, db: &Path) -> Result<()> {
    check_paths(out)?;
    let stop = Stop::install();
    let view = render::progress::Terminal::new(out.quiet, out.export.units);
    let ctx = Context {
        stop: &stop,
        observer: &view,
        sys: SysRoot::default(),
    };
    let outcome = experiment::run(&exp, &ctx);
    view.finish();
    let mut outcome = outcome?;
    outcome.report.argv = std::env::args().collect();
    deliver(outcome, out, db)
}

/// `--hosts`: the plan on every host at once through fio's client; a run
/// stored per host (tagged `host=…` and `group=…`), then the group view.
/// Exit status 1 when a host gave no result (the others are kept).
fn on_hosts(exp: Experiment, hosts: Vec<crate::experiment::fio::HostSpec>, out: &OutputArgs, db: &Path) -> Result<()> {
    check_paths(out)?;
    let Experiment::Jobs(jobs) = exp else {
        return Err(usage(
            "--hosts runs `run` and `job` suites of jobs; this suite is an application workload",
        ));
    };
    let stop = Stop::install();
    let view = render::progress::Terminal::new(out.quiet, out.export.units);
    let ctx = Context {
        stop: &stop,
        observer: &view,
        sys: SysRoot::default(),
    };
    let req = crate::experiment::fio::HostsRequest { jobs, hosts };
    let outcome = crate::experiment::fio::run_hosts(&req, &ctx);
    view.finish();
    let outcome = outcome?;
    let group = format!("hosts-{}", crate::units::now_rfc3339());
    // (host, its report, why it has none, its stored run)
    type HostRun = (String, Option<crate::summary::Report>, Option<String>, Option<i64>);
    let mut stored: Vec<HostRun> = Vec::new();
    let mut unsaved: Vec<String> = Vec::new();
    for (host, got) in outcome.runs {
        match got {
            Ok(mut report) => {
                report.argv = std::env::args().collect();
                let mut id = None;
                if !out.no_store {
                    let mut tags = out.tag.clone();
                    tags.retain(|(k, _)| k != "host" && k != "group");
                    tags.push(("host".into(), host.clone()));
                    tags.push(("group".into(), group.clone()));
                    match Store::open(db).and_then(|mut s| s.save(&report, out.label.as_deref(), &tags, !report.interrupted)) {
                        Ok(n) => {
                            report.run_id = Some(n);
                            id = Some(n);
                        }
                        Err(e) => unsaved.push(format!("{host}: {}", not_saved_in(db, &e))),
                    }
                }
                stored.push((host, Some(report), None, id));
            }
            Err(e) => {
                eprintln!("iolab: {host}: {e}");
                stored.push((host, None, Some(e), None));
            }
        }
    }
    let input: Vec<(String, Option<&crate::summary::Report>, Option<String>)> =
        stored.iter().map(|(h, r, e, _)| (h.clone(), r.as_ref(), e.clone())).collect();
    let mut group_report = crate::summary::hosts::hosts_report(&input);
    for (entry, (_, _, _, id)) in group_report.hosts.iter_mut().zip(&stored) {
        entry.run_id = *id;
    }
    if !out.quiet && !out.no_store {
        eprintln!(
            "iolab: stored {} run(s) in {}, tagged group={group}",
            stored.iter().filter(|s| s.3.is_some()).count(),
            db.display()
        );
    }
    // As for one run: `--json -` is JSON alone, `--json PATH` writes it
    // there and still prints the table.
    let doc = Document::Hosts(&group_report);
    match out.json.as_deref() {
        Some("-") => export(&out.export.or_json(true), doc)?,
        Some(p) => {
            let json = ExportArgs {
                output: Some(p.into()),
                ..out.export.or_json(true)
            };
            export(&json, doc)?;
            export(
                &ExportArgs {
                    format: Format::Table,
                    output: None,
                    ..out.export.clone()
                },
                doc,
            )?;
        }
        None => export(&out.export, doc)?,
    }
    for line in &unsaved {
        eprintln!("iolab: {line}");
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
            db.display()
        )));
    }
    Ok(())
}

/// Validate what can be validated before touching the target.
fn check_paths(out: &OutputArgs) -> Result<()> {
    let json = out.json.as_deref().filter(|p| *p != "-").map(Path::new);
    for (what, p) in [("JSON", json), ("output", out.export.file())] {
        let Some(p) = p else { continue };
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        if parent.is_some_and(|d| !d.is_dir()) {
            return Err(usage(format!(
                "cannot write {what} to {}: its directory does not exist",
                p.display()
            )));
        }
    }
    Ok(())
}

/// Keep the run (or the part that finished), then print it: JSON where asked,
/// the table otherwise. A store that cannot keep it (a full or read-only
/// disk) must not cost the user the measurement: it is printed anyway, then
/// one line names the store and why, and the exit status is 4. A run an
/// error stopped before any test finished has nothing to keep or print: its
/// error is the one line.
fn deliver(outcome: Outcome, out: &OutputArgs, db: &Path) -> Result<()> {
    let Outcome {
        mut report,
        interrupted,
        failed,
    } = outcome;
    let failed = match failed {
        Some(e) if !report.has_results() => return Err(e),
        f => f,
    };
    let mut not_saved = None;
    if !out.no_store && report.has_results() {
        let complete = interrupted.is_none() && failed.is_none();
        match Store::open(db).and_then(|mut s| s.save(&report, out.label.as_deref(), &out.tag, complete)) {
            Ok(id) => {
                report.run_id = Some(id);
                match store::sudo_owner_of(db) {
                    _ if out.quiet => {}
                    Some(u) => eprintln!("iolab: stored as run {id} in {} ({}'s store: run under sudo)", db.display(), u.name),
                    None => eprintln!("iolab: stored as run {id} in {}", db.display()),
                }
            }
            Err(e) => not_saved = Some(not_saved_in(db, &e)),
        }
    }
    let doc = Document::Run(&report, None);
    let table = ExportArgs {
        format: Format::Table,
        output: None,
        ..out.export.clone()
    };
    match out.json.as_deref() {
        // `--json -` is `--format json`.
        Some("-") => {
            export(&table.or_json(true), doc)?;
            warn_on_stderr(&report);
        }
        // `--json PATH` is `--format json -o PATH`, and the table on stdout.
        Some(p) => {
            let json = ExportArgs {
                output: Some(p.into()),
                ..table.or_json(true)
            };
            export(&json, doc)?;
            export(&table, doc)?;
        }
        None => {
            export(&out.export, doc)?;
            if out.export.format != Format::Table || out.export.file().is_some() {
                warn_on_stderr(&report);
            }
        }
    }
    let (exit, also) = ending(interrupted, failed, report.failed_check(), not_saved);
    for e in also {
        eprintln!("iolab: {e}");
    }
    exit.map_or(Ok(()), Err)
}

/// How a run whose result was printed ends: the error its exit status
/// comes from, and the lesser ones, said on stderr before it. A signal
/// first (128+N), then the error that stopped the run (1), then a device
/// that failed its check (3), then a store that could not keep the result (4).
fn ending(interrupted: Option<i32>, failed: Option<Error>, check: Option<String>, not_saved: Option<Error>) -> (Option<Error>, Vec<Error>) {
    let mut all: Vec<Error> = [interrupted.map(Error::Interrupted), failed, check.map(Error::Check), not_saved]
        .into_iter()
        .flatten()
        .collect();
    if all.is_empty() {
        return (None, all);
    }
    let exit = all.remove(0);
    (Some(exit), all)
}

/// `the run was not saved in STORE: REASON` (exit status 4).
fn not_saved_in(db: &Path, e: &store::StoreError) -> Error {
    let reason = match e {
        store::StoreError::Sql { source, .. } => source.to_string(),
        other => other.to_string(),
    };
    Error::NotSaved(format!(
        "the run was not saved in {}: {reason}{}",
        db.display(),
        store_disk_state(db)
    ))
}

/// Why the store's disk may have refused: ` (its filesystem is mounted
/// read-only)`, ` (its filesystem is full)`, or nothing.
fn store_disk_state(db: &Path) -> &'static str {
    let Some(v) = db
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .and_then(|d| rustix::fs::statvfs(d).ok())
    else {
        return "";
    };
    // Root may write into the blocks kept for it; others may not.
    let free = if rustix::process::geteuid().is_root() {
        v.f_bfree
    } else {
        v.f_bavail
    };
    if v.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
        " (its filesystem is mounted read-only)"
    } else if v.f_blocks > 0 && free == 0 {
        " (its filesystem is full)"
    } else {
        ""
    }
}

fn store_err(e: store::StoreError) -> Error {
    match e {
        store::StoreError::NotFound(_) | store::StoreError::Refused(_) => usage(e.to_string()),
        _ => failed(e.to_string()),
    }
}

fn open_store(db: &Path) -> Result<Store> {
    Store::open(db).map_err(store_err)
}

/// `iolab compare`.
fn compare(db: &Path, a: &CompareArgs, config: Option<&crate::config::Config>) -> Result<()> {
    let mut st = open_store(db)?;
    for &(id, price) in &a.price {
        st.set_price(id, price).map_err(store_err)?;
    }
    for &(id, bytes) in &a.capacity {
        st.set_capacity(id, bytes).map_err(store_err)?;
    }
    let (runs, c) = comparison(&st, &a.ids, a.baseline, config)?;
    if a.export.format == Format::Html {
        // The page shows each run's charts under the comparison.
        let summaries: Vec<store::RunSummary> = a.ids.iter().map(|&id| summary_of(&st, id)).collect::<Result<_>>()?;
        let page = render::Page {
            runs: runs.iter().zip(&summaries).map(|(r, s)| (&r.report, Some(s))).collect(),
            comparison: Some(&c),
        };
        return export(&a.export, Document::Page(&page));
    }
    export(&a.export, Document::Comparison(&c))
}

fn summary_of(st: &Store, id: i64) -> Result<store::RunSummary> {
    st.load(id).map(|r| r.summary).map_err(store_err)
}

/// `iolab report`: the HTML page of one stored run, or of several with
/// their comparison.
fn report(db: &Path, a: &ReportArgs, config: Option<&crate::config::Config>) -> Result<()> {
    use std::io::IsTerminal;
    let st = open_store(db)?;
    let mut stored = Vec::with_capacity(a.ids.len());
    for &id in &a.ids {
        stored.push(st.load(id).map_err(store_err)?);
    }
    let compared = if a.ids.len() > 1 {
        Some(comparison(&st, &a.ids, a.baseline, config)?.1)
    } else {
        if a.baseline.is_some() {
            return Err(usage("--baseline needs two or more runs to compare"));
        }
        None
    };
    let page = render::Page {
        runs: stored.iter().map(|r| (&r.report, Some(&r.summary))).collect(),
        comparison: compared.as_ref(),
    };
    let output = match &a.output {
        Some(p) => Some(p.clone()),
        None if std::io::stdout().is_terminal() => {
            let ids: Vec<String> = a.ids.iter().map(i64::to_string).collect();
            Some(format!("iolab-report-{}.html", ids.join("-")).into())
        }
        None => None,
    };
    let x = ExportArgs {
        format: Format::Html,
        output,
        units: crate::units::BwUnit::Mb,
    };
    export(&x, Document::Page(&page))?;
    if let Some(p) = x.file() {
        eprintln!("iolab: wrote {}", p.display());
    }
    for r in &stored {
        warn_on_stderr(&r.report);
    }
    Ok(())
}

/// Load `ids` from the store and compare them against `baseline` (default:
/// the first). A run without a stored price takes the configuration file's
/// (said on stderr, so the table's source is never a mystery).
fn comparison(
    st: &Store,
    ids: &[i64],
    baseline: Option<i64>,
    config: Option<&crate::config::Config>,
) -> Result<(Vec<crate::compare::RunRef>, crate::compare::Comparison)> {
    let mut runs = Vec::with_capacity(ids.len());
    for &id in ids {
        let r = st.load(id).map_err(store_err)?;
        let (mut price, mut capacity_bytes) = (r.price, r.capacity_bytes);
        if price.is_none()
            && let Some(c) = config
            && let Some(p) = crate::compare::listed_price(&c.prices, r.summary.label.as_deref(), &r.report)
        {
            eprintln!("iolab: run {id}: price {} from \"{}\" in {}", p.price, p.key, c.path.display());
            price = Some(p.price);
            capacity_bytes = capacity_bytes.or(p.capacity_bytes);
        }
        runs.push(crate::compare::RunRef {
            id,
            label: r.summary.label,
            price,
            capacity_bytes,
            report: r.report,
        });
    }
    let c = crate::compare::compare(&runs, baseline.unwrap_or(ids[0])).map_err(usage)?;
    Ok((runs, c))
}

/// `iolab suites`: the built-in suites, then the configuration file's,
/// each with where it comes from.
pub fn suites_listing(config: Option<&crate::config::Config>) -> String {
    let common = Common {
        limit: Limit::Time(Duration::from_secs(5)),
        span: 0,
        direct: true,
        engine: EngineKind::IoUring,
        mix_read: 70,
        timing: Default::default(),
        transfers: Vec::new(),
    };
    let mut all: Vec<(String, String, String, Vec<plan::JobSpec>)> = SuiteName::all()
        .into_iter()
        .map(|s| {
            (
                s.as_str().to_string(),
                s.description().to_string(),
                "built-in".to_string(),
                s.jobs(&common),
            )
        })
        .collect();
    if let Some(c) = config {
        for s in &c.suites {
            all.push((s.name.clone(), s.description.clone(), c.path.display().to_string(), s.jobs(&common)));
        }
    }
    let w = all.iter().map(|a| a.0.chars().count()).max().unwrap_or(0).max(8);
    let mut s = String::new();
    for (name, description, source, jobs) in all {
        let description = if description.is_empty() {
            String::new()
        } else {
            format!("{description} ")
        };
        s.push_str(&format!("{name:<w$} {description}({source})\n"));
        for j in jobs {
            s.push_str(&format!("{:w$} {:<26} {}\n", "", j.name, plan::describe(&j)));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a shell command line: blanks split, quotes group.
    fn shell_words(line: &str) -> Vec<String> {
        let (mut words, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => (quote, any) = (Some(c), true),
                (Some(q), c) if c == q => quote = None,
                (None, c) if c.is_whitespace() => {
                    if any || !cur.is_empty() {
                        words.push(std::mem::take(&mut cur));
                    }
                    any = false;
                }
                (_, c) => cur.push(c),
            }
        }
        if any || !cur.is_empty() {
            words.push(cur);
        }
        words
    }

    /// The documentation a user reads: README.md and every page of docs/,
    /// each with its path relative to the crate (`docs/run.md`).
    fn documentation() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut pages = vec!["README.md".to_string()];
        let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".md"))
            .map(|n| format!("docs/{n}"))
            .collect();
        docs.sort();
        pages.extend(docs);
        pages
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(root.join(&p)).unwrap();
                (p, text)
            })
            .collect()
    }

    /// Every `iolab …` command line the README and the docs/ pages show, in
    /// code blocks and in inline code, with its placeholders filled in; each
    /// with the page it is on.
    fn readme_examples() -> Vec<(String, String)> {
        let mut all = Vec::new();
        for (page, text) in documentation() {
            all.extend(examples_in(&text).into_iter().map(|ex| (page.clone(), ex)));
        }
        all
    }

    /// The `iolab …` command lines of one Markdown text.
    fn examples_in(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut in_block = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_block = !in_block;
            } else if in_block {
                let l = line.trim().trim_start_matches("$ ").trim_start_matches("sudo ");
                if l.starts_with("iolab ") {
                    found.push(l.to_string());
                }
            }
        }
        let mut rest = text;
        while let Some(i) = rest.find("`iolab ") {
            let after = &rest[i + 1..];
            let end = after.find('`').unwrap_or(after.len());
            found.push(after[..end].replace('\n', " "));
            rest = &after[end..];
        }
        found
            .into_iter()
            // Shell around the command: comments, redirections, chains.
            .map(|l| l.split(['#', '>']).next().unwrap().split("&&").next().unwrap().trim().to_string())
            // Synopses, not examples.
            .filter(|l| !l.contains('[') && !l.contains("...") && !l.contains('…') && !l.contains('|'))
            .map(|l| {
                shell_words(&l)
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| match w.as_str() {
                        // `iolab COMMAND --help`: any command.
                        "COMMAND" if i == 1 => "run".to_string(),
                        "ID" => "1".to_string(),
                        "TARGET" | "DIR" | "TARGET..." => "/tmp".to_string(),
                        "FILE" | "PATH" => "/tmp/x".to_string(),
                        "COMMAND" => "true".to_string(),
                        "KIND" => "run".to_string(),
                        _ => w,
                    })
                    .map(|w| if w.contains(' ') { format!("\"{w}\"") } else { w })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    /// Issue 12: the README's examples are command lines iolab accepts;
    /// issue 24: so are those of every page in docs/.
    #[test]
    fn issue_12_every_readme_example_parses() {
        let examples = readme_examples();
        assert!(examples.len() >= 20, "{examples:#?}");
        for (page, text) in documentation().iter() {
            assert!(
                examples.iter().any(|(p, _)| p == page),
                "{page} shows no iolab command line:\n{text}"
            );
        }
        for (page, ex) in &examples {
            let words = shell_words(ex);
            if let Err(e) = command().try_get_matches_from(&words) {
                use clap::error::ErrorKind::*;
                // `iolab info` (or `iolab info --json`) in a sentence names the command.
                let mention = words.len() <= 3 && e.kind() == MissingRequiredArgument;
                assert!(matches!(e.kind(), DisplayHelp | DisplayVersion) || mention, "{page}: `{ex}`:\n{e}");
            }
        }
    }

    /// A heading's anchor as GitHub makes it: lower case, punctuation
    /// dropped (hyphens and underscores kept), blanks as hyphens; the
    /// second of two equal headings gets `-1`.
    fn anchors(text: &str) -> Vec<String> {
        let (mut anchors, mut raw): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        let mut in_block = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_block = !in_block;
            }
            let Some(title) = line.strip_prefix('#').filter(|_| !in_block).map(|t| t.trim_start_matches('#')) else {
                continue;
            };
            let slug: String = title
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            let n = raw.iter().filter(|s| **s == slug).count();
            anchors.push(if n == 0 { slug.clone() } else { format!("{slug}-{n}") });
            raw.push(slug);
        }
        anchors
    }

    /// Issue 24: every relative link of the README and docs/ reaches a file
    /// of the repository, and a heading of it when it names one; every page
    /// of docs/ is reachable from the README; the README stays short.
    #[test]
    fn issue_24_every_documentation_link_resolves() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let pages = documentation();
        let mut links = 0;
        for (page, text) in &pages {
            let dir = Path::new(page).parent().unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("](") {
                let after = &rest[i + 2..];
                let end = after.find(')').expect("a link ends");
                let target = &after[..end];
                rest = &after[end..];
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                links += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let path = if file.is_empty() {
                    Path::new(page).to_path_buf()
                } else {
                    dir.join(file)
                };
                // Within the repository, without `..` left over.
                let mut norm = std::path::PathBuf::new();
                for c in path.components() {
                    match c {
                        std::path::Component::ParentDir => assert!(norm.pop(), "{page}: {target} leaves the repository"),
                        c => norm.push(c),
                    }
                }
                assert!(
                    root.join(&norm).exists(),
                    "{page}: the link {target} names {} that does not exist",
                    norm.display()
                );
                if !anchor.is_empty() {
                    let linked = std::fs::read_to_string(root.join(&norm)).unwrap();
                    let known = anchors(&linked);
                    assert!(
                        known.iter().any(|a| a == anchor),
                        "{page}: the link {target} names no heading of {}: {known:?}",
                        norm.display()
                    );
                }
            }
        }
        assert!(links >= 20, "{links} links");
        // Reachable: linked from the README or from a page linked from it.
        let mut from_readme = vec!["README.md".to_string()];
        let mut i = 0;
        while i < from_readme.len() {
            let text = &pages.iter().find(|(p, _)| *p == from_readme[i]).unwrap().1;
            let dir = Path::new(&from_readme[i]).parent().unwrap().to_path_buf();
            let mut rest = text.as_str();
            while let Some(j) = rest.find("](") {
                let after = &rest[j + 2..];
                let end = after.find(')').unwrap();
                let file = after[..end].split('#').next().unwrap();
                rest = &after[end..];
                let name = dir.join(file).to_string_lossy().to_string();
                if name.ends_with(".md") && pages.iter().any(|(p, _)| *p == name) && !from_readme.contains(&name) {
                    from_readme.push(name);
                }
            }
            i += 1;
        }
        for (page, _) in &pages {
            assert!(from_readme.contains(page), "{page} is not reachable from README.md");
        }
        let readme = &pages[0].1;
        assert!(
            readme.lines().count() <= 400,
            "README.md has {} lines: the rest belongs in docs/",
            readme.lines().count()
        );
    }

    /// Issue 24: the README's first screen shows the battery's table as
    /// iolab prints it: the columns and the units line of the table view's
    /// snapshot (the demo suite's), and a footer for each row.
    #[test]
    fn issue_24_the_readme_shows_the_battery_as_printed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        let snap = std::fs::read_to_string(root.join("src/render/snapshots/iolab__render__tests__run_of_the_demo_suite.snap")).unwrap();
        let titles = |line: &str| -> Vec<String> {
            line.split(['│', '┆'])
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect()
        };
        let start = readme.find("```\n$ iolab run ").expect("the battery's example") + 4;
        let block = &readme[start..start + readme[start..].find("```").unwrap()];
        let lines: Vec<&str> = block.lines().collect();
        let header = |text: &str| text.lines().find(|l| l.starts_with("│ Test")).map(titles);
        assert_eq!(header(block), header(&snap), "{block}");
        let units = snap.lines().find(|l| l.starts_with("MB/s = ")).unwrap();
        assert!(lines.contains(&units), "{block}");
        let rows = lines.iter().filter(|l| l.starts_with("│ ") && !l.starts_with("│ Test")).count();
        assert_eq!(rows, 8, "the default battery's 8 tests:\n{block}");
        assert!(lines.iter().any(|l| l.starts_with("Target: ") && l.contains(" · span ")), "{block}");
    }

    /// Issue 16: a signal outranks the error that stopped a run, which
    /// outranks a failed check, which outranks a store that did not keep
    /// the result; the lesser ones are still said.
    #[test]
    fn issue_16_the_exit_status_of_a_printed_result() {
        let codes = |(exit, also): (Option<Error>, Vec<Error>)| {
            (exit.map(|e| e.exit_code()), also.iter().map(Error::exit_code).collect::<Vec<_>>())
        };
        let not_saved = || Some(Error::NotSaved("the run was not saved in /s: disk full".into()));
        assert_eq!(codes(ending(None, None, None, None)), (None, vec![]));
        assert_eq!(codes(ending(None, None, None, not_saved())), (Some(4), vec![]));
        assert_eq!(codes(ending(None, Some(failed("EIO")), None, not_saved())), (Some(1), vec![4]));
        assert_eq!(codes(ending(None, None, Some("corrupt".into()), not_saved())), (Some(3), vec![4]));
        assert_eq!(
            codes(ending(Some(libc::SIGINT), Some(failed("x")), None, None)),
            (Some(130), vec![1])
        );
        let e = not_saved_in(
            Path::new("/full/results.db"),
            &store::StoreError::Sql {
                path: "/full/results.db".into(),
                source: rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(13), Some("database or disk is full".into())),
            },
        );
        assert_eq!(e.exit_code(), 4);
        assert_eq!(e.to_string(), "the run was not saved in /full/results.db: database or disk is full");
    }

    #[test]
    fn capacity_arguments() {
        use clap::FromArgMatches;
        let parse = |args: &[&str]| command().try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m));
        let Cmd::Capacity(a) = parse(&["iolab", "capacity", "/dev/sdz"]).unwrap().cmd else {
            panic!("not capacity")
        };
        // The help's default is the probe's.
        assert_eq!(a.granularity, crate::verify::probe::DEFAULT_GRANULARITY);
        assert!(!a.allow_destroy && a.restore.is_none());
        // --restore needs no device; the probe does; --restore takes no probe options.
        assert!(parse(&["iolab", "capacity", "--restore", "/tmp/x.bak"]).is_ok());
        assert!(parse(&["iolab", "capacity"]).is_err());
        assert!(parse(&["iolab", "capacity", "--restore", "/tmp/x.bak", "--allow-destroy"]).is_err());
        assert!(parse(&["iolab", "capacity", "/dev/sdz", "--force"]).is_err());
        assert!(parse(&["iolab", "capacity", "/dev/sdz", "--granularity", "0"]).is_err());
    }

    #[test]
    fn capacity_backups_go_beside_the_store() {
        assert_eq!(
            backup_dir(Path::new("/home/u/.local/share/iolab/results.db")),
            Path::new("/home/u/.local/share/iolab")
        );
        assert!(backup_dir(Path::new(":memory:")).ends_with("iolab"));
    }

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }
}
