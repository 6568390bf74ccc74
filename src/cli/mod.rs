//! The command line: parses the arguments ([`args`]), merges the
//! configuration file under them ([`settings`]), maps them to an
//! [`Experiment`] ([`experiments`]) or a question about stored runs, calls
//! the library, and writes the [`Delivery`] it returns: lines on stderr,
//! documents on stdout or to files, then the exit status. Nothing here
//! decides: what is kept, printed and which status wins is
//! [`crate::deliver`]'s.

mod args;
mod docs;
mod experiments;
pub mod panic;
mod settings;
pub mod version;

use crate::base::error::{Result, failed};
use crate::base::signals::Stop;
use crate::deliver::{self, Delivery, Stdout, Step, stored};
use crate::experiment::{self, Experiment, capacity, fio};
use crate::store;
use args::*;
use docs::command;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

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
        Err(e) => return clap_exit(&settings::job_option_in_a_suite(&e).unwrap_or(e)),
    };
    cli.resolve_files();
    cli.note_typed(&matches);
    let config = match settings::load(&cli) {
        Ok(c) => c,
        Err(e) => return exit(Err(e)),
    };
    if let Some(c) = &config {
        settings::apply(&mut cli, &matches, c);
    }
    if let Err(e) = settings::check_suite(&cli, config.as_ref()) {
        return clap_exit(&e);
    }
    if let Some(note) = settings::decimal_size_note(&matches) {
        eprintln!("iolab: {note}");
    }
    exit(dispatch(cli, config.as_ref()))
}

/// clap's whole message: what is wrong, the valid values or the
/// suggestion, and the usage line (help and version go to stdout: 0).
fn clap_exit(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind::*;
    let _ = e.print();
    ExitCode::from(if matches!(e.kind(), DisplayHelp | DisplayVersion) { 0 } else { 2 })
}

/// The exit status of `r`, its error said on stderr.
fn exit(r: Result<()>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iolab: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn dispatch(cli: Cli, config: Option<&crate::config::Config>) -> Result<()> {
    let db = cli.files.db.clone().unwrap_or_else(store::default_path);
    let out = Stdout::detect();
    match cli.cmd {
        Cmd::Run(a) if a.emit.emit.is_some() => write(Delivery::print(fio::emit(&experiments::run(&a, config)?)?)),
        Cmd::Job(a) if a.emit.emit.is_some() => write(Delivery::print(fio::emit(&experiments::job(&a)?)?)),
        Cmd::Run(a) => measure(experiments::run(&a, config)?, a.hosts.list()?, &a.common.out, &db),
        Cmd::Job(a) => measure(experiments::job(&a)?, a.hosts.list()?, &a.common.out, &db),
        Cmd::Scan(a) => measure(experiments::scan(&a)?, None, &a.out, &db),
        Cmd::Scale(a) => measure(experiments::scale(&a)?, None, &a.common.out, &db),
        Cmd::Layouts(a) => layouts(&a, config, &db),
        Cmd::Time(a) => measure(experiments::time(&a)?, None, &a.out, &db),
        Cmd::Capacity(a) => match &a.restore {
            Some(file) => {
                let restored = deliver::live(true, crate::base::units::BwUnit::Mb, |ctx| {
                    capacity::restore_file(file, a.device.as_deref(), a.force, ctx)
                })?;
                write(deliver::restored(&restored))
            }
            None => {
                let earlier = store::earlier_verifies(&db, a.out.no_store);
                if let Some(w) = &earlier.warning {
                    eprintln!("iolab: {w}");
                }
                let dir = a
                    .backup_dir
                    .clone()
                    .unwrap_or_else(|| capacity::backup::default_dir(&db, |k| std::env::var_os(k)));
                measure(experiments::capacity(&a, earlier.runs, dir)?, None, &a.out, &db)
            }
        },
        Cmd::Verify(a) => measure(experiments::verify(&a)?, None, &a.out, &db),
        Cmd::Flush(a) => match (a.listen, &a.log) {
            (Some(port), Some(log)) => {
                let kept = deliver::live(a.out.quiet, a.out.export.units, |ctx| {
                    crate::experiment::flush::listen(port, log, ctx)
                })?;
                write(Delivery {
                    steps: vec![Step::Say(kept)],
                    exit: None,
                })
            }
            _ => measure(experiments::flush(&a)?, None, &a.out, &db),
        },
        Cmd::Suites(_) => write(deliver::suites(config)),
        Cmd::Info(a) => write(deliver::info(&a.target, &export(&a.export)?, out)),
        Cmd::List(a) => write(stored::list(&db, &a.filter(), &export(&a.export)?, out)),
        Cmd::Show(a) => write(stored::show(&db, a.id, &export(&a.export)?, out)),
        Cmd::Compare(a) => {
            let req = stored::CompareRequest {
                ids: a.ids.clone(),
                baseline: a.baseline,
                prices: a.price.clone(),
                capacities: a.capacity.clone(),
            };
            write(stored::compare(&db, &req, config, &export(&a.export)?, out))
        }
        Cmd::Report(a) => write(stored::report(&db, &a.ids, a.baseline, a.output.clone(), config, out)),
        Cmd::Import(a) => write(stored::import(&db, &a.file, a.label.as_deref(), &a.tag)),
        Cmd::Delete { id, .. } => write(stored::delete(&db, id)),
        Cmd::Label { id, text, .. } => write(stored::label(&db, id, &text)),
        Cmd::Tag { id, tag, .. } => write(stored::tag(&db, id, &tag)),
        Cmd::Selftest(a) => {
            let x = export(&a.export)?;
            let stop = Stop::install();
            let exe = crate::selftest::own_binary()?;
            eprintln!("iolab: selftest: emulated devices under the kernel's block throttle, about a minute");
            let report = crate::selftest::run(&stop, &exe, crate::selftest::limit_scale(), Path::new("/sys/fs/cgroup"))?;
            write(deliver::selftest(&report, &x, out))
        }
        Cmd::Schema(a) => write(Delivery::print(match a.kind {
            Some(kind) => crate::schema::text(kind),
            None => crate::schema::listing(),
        })),
        Cmd::Completions(a) => write(docs::completions(a.shell)),
        Cmd::Man(a) => write(docs::man(a.dir.as_deref())?),
    }
}

/// `iolab layouts`: with `--dry-run` the plan, its estimate and its
/// commands on stdout; with `--allow-destroy` each configuration built,
/// measured and torn down, and the runs compared.
fn layouts(a: &LayoutsArgs, config: Option<&crate::config::Config>, db: &Path) -> Result<()> {
    use crate::plan::layouts;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let caps = crate::device::tools::capabilities(&crate::device::SysRoot::default(), &path);
    let plan = layouts::plan(&experiments::layouts(a), &caps).map_err(crate::base::error::usage)?;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let names = layouts::RunNames::under_run(&format!("{secs:x}{:x}", std::process::id()));
    let mut workload = experiments::layouts_workload(a, config)?;
    let test_file = crate::experiment::layouts::size_test_file(&plan, &mut workload, crate::experiment::layouts::device_size)?;
    if a.dry_run {
        return write(Delivery::print(layouts::dry_run(
            &plan,
            &caps,
            experiments::layouts_estimate(&workload, &a.common),
            &experiments::layouts_runs(&workload),
            test_file.as_ref(),
            &names,
        )));
    }
    if !a.common.target.allow_destroy {
        return Err(crate::base::error::usage(
            "layouts builds pools, arrays and filesystems on the DEVICES and destroys what is on them: give --allow-destroy (or --dry-run to see the plan)",
        ));
    }
    let req = request(&a.common.out, db);
    req.check()?;
    let run = crate::experiment::layouts::LayoutsRequest {
        plan,
        names,
        workload,
        force: a.common.target.force,
        journals: std::path::PathBuf::from(crate::experiment::layouts::JOURNALS),
        test_file,
    };
    let out = &a.common.out;
    let outcome = deliver::live(out.quiet, out.export.units, |ctx| crate::experiment::layouts::run(&run, ctx))?;
    write(deliver::layouts(outcome, &req, config.map_or(&[][..], |c| c.prices.as_slice())))
}

/// Where and how a document is written, checked before it is made.
fn export(a: &ExportArgs) -> Result<deliver::Export> {
    let x = a.to();
    x.check()?;
    Ok(x)
}

/// What happens to a measured result, as the command line says.
fn request(out: &OutputArgs, db: &Path) -> deliver::Request {
    deliver::Request {
        export: out.export.to(),
        quiet: out.quiet,
        db: db.to_path_buf(),
        no_store: out.no_store,
        label: out.label.clone(),
        tags: out.tag.clone(),
        argv: std::env::args().collect(),
        stdout: Stdout::detect(),
    }
}

/// Run an experiment with the live view (on `hosts` at once through fio's
/// client, when given), then keep and print its result.
fn measure(exp: Experiment, hosts: Option<Vec<fio::HostSpec>>, out: &OutputArgs, db: &Path) -> Result<()> {
    let req = request(out, db);
    req.check()?;
    let Some(hosts) = hosts else {
        let outcome = deliver::live(out.quiet, out.export.units, |ctx| experiment::run(&exp, ctx))?;
        return write(deliver::run(outcome, &req));
    };
    let hosts = fio::HostsRequest::new(exp, hosts)?;
    let outcome = deliver::live(out.quiet, out.export.units, |ctx| fio::run_hosts(&hosts, ctx))?;
    write(deliver::hosts(outcome, &req))
}

/// Write what the library returned, in order: lines on stderr, texts on
/// stdout or to their files (a failed write ends there); then its ending.
fn write(d: Delivery) -> Result<()> {
    for step in d.steps {
        match step {
            Step::Say(line) => eprintln!("{line}"),
            Step::Write { to: Some(file), text } => deliver::write_file(&file, text.as_bytes())?,
            Step::Write { to: None, text } => {
                write!(std::io::stdout().lock(), "{text}").map_err(|e| failed(format!("writing output: {e}")))?
            }
        }
    }
    d.exit.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests;
