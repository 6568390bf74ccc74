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
#[cfg(test)]
mod proptests;
mod settings;

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
        Err(e) => return clap_exit(&e),
    };
    cli.resolve_files();
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
        Cmd::Time(a) => measure(experiments::time(&a)?, None, &a.out, &db),
        Cmd::Capacity(a) => match &a.restore {
            Some(file) => {
                let restored = deliver::live(true, crate::base::units::BwUnit::Mb, |ctx| {
                    capacity::restore_file(file, a.device.as_deref(), ctx)
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
        Cmd::Suites(_) => write(deliver::suites(config)),
        Cmd::Info(a) => write(deliver::info(&a.target, &a.export.to(a.json), out)),
        Cmd::List(a) => {
            let filter = store::Filter {
                label: a.label.clone(),
                tags: a.tag.clone(),
            };
            write(stored::list(&db, &filter, &a.export.to(a.json), out))
        }
        Cmd::Show(a) => write(stored::show(&db, a.id, &a.export.to(a.json), out)),
        Cmd::Compare(a) => {
            let req = stored::CompareRequest {
                ids: a.ids.clone(),
                baseline: a.baseline,
                prices: a.price.clone(),
                capacities: a.capacity.clone(),
            };
            write(stored::compare(&db, &req, config, &a.export.to(false), out))
        }
        Cmd::Report(a) => write(stored::report(&db, &a.ids, a.baseline, a.output.clone(), config, out)),
        Cmd::Import(a) => write(stored::import(&db, &a.file, a.label.as_deref(), &a.tag)),
        Cmd::Delete { id, .. } => write(stored::delete(&db, id)),
        Cmd::Label { id, text, .. } => write(stored::label(&db, id, &text)),
        Cmd::Tag { id, tag, .. } => write(stored::tag(&db, id, &tag)),
        Cmd::Selftest(a) => {
            let stop = Stop::install();
            let exe = crate::selftest::own_binary()?;
            eprintln!("iolab: selftest: emulated devices under the kernel's block throttle, about a minute");
            let report = crate::selftest::run(&stop, &exe, crate::selftest::limit_scale(), Path::new("/sys/fs/cgroup"))?;
            write(deliver::selftest(&report, &a.export.to(false), out))
        }
        Cmd::Schema(a) => write(Delivery::print(match a.kind {
            Some(kind) => crate::schema::text(kind),
            None => crate::schema::listing(),
        })),
        Cmd::Completions(a) => write(docs::completions(a.shell)),
        Cmd::Man(a) => write(docs::man(a.dir.as_deref())?),
    }
}

/// What happens to a measured result, as the command line says.
fn request(out: &OutputArgs, db: &Path) -> deliver::Request {
    deliver::Request {
        export: out.export.to(false),
        json: out.json.clone(),
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

    /// Issue 24: `job` needs no TARGET when every --hosts entry names its
    /// own path (the form with a TARGET keeps working); without --hosts it does.
    #[test]
    fn job_takes_no_target_with_hosts_that_name_their_paths() {
        use clap::FromArgMatches;
        let parse = |args: &[&str]| command().try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m));
        let job = |args: &[&str]| match parse(args).unwrap().cmd {
            Cmd::Job(a) => a,
            _ => panic!("not job"),
        };
        let a = job(&["iolab", "job", "--hosts", "a=/dev/x,b=/dev/y"]);
        assert_eq!(a.target, None);
        assert_eq!(a.hosts.list().unwrap().unwrap().len(), 2);
        let Experiment::Jobs(req) = experiments::job(&a).unwrap() else {
            panic!("not jobs")
        };
        assert_eq!(req.target.path, Path::new(""), "no TARGET");
        let a = job(&["iolab", "job", "/dev/null", "--hosts", "a=/dev/x,b=/dev/y"]);
        assert_eq!(a.target.as_deref(), Some(Path::new("/dev/null")));
        assert!(parse(&["iolab", "job", "--hosts-file", "/tmp/hosts"]).is_ok());
        let e = parse(&["iolab", "job", "--rw", "read"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        // An entry without a path, and no TARGET: a usage error naming it.
        let a = job(&["iolab", "job", "--hosts", "a=/dev/x,b"]);
        let hosts = fio::HostsRequest::new(experiments::job(&a).unwrap(), a.hosts.list().unwrap().unwrap()).unwrap();
        let e = hosts.paths().unwrap_err();
        assert!(e.exit_code() == 2 && e.to_string().contains("'b'"), "{e}");
    }

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }
}
