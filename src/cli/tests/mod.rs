mod json;
mod proptests;

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
    assert!(parse(&["iolab", "capacity", "/dev/sdz", "--force", "--allow-destroy"]).is_ok());
    // --force with --restore: a device known only by its model and size, at its node (issue 36).
    let Cmd::Capacity(a) = parse(&["iolab", "capacity", "--restore", "/tmp/x.bak", "--force"]).unwrap().cmd else {
        panic!("not capacity")
    };
    assert!(a.force);
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

/// Issue 25: `--allow-export` is the consent of `run`, `job` and `scan`
/// (not `scale`'s), and reaches the target as the user chose it.
#[test]
fn allow_export_is_consent_for_run_job_and_scan() {
    use clap::FromArgMatches;
    let parse = |args: &[&str]| command().try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m));
    let consent = |e: Experiment| match e {
        Experiment::Jobs(r) => r.target.allow_export,
        Experiment::Scan(r) => r.target.allow_export,
        _ => panic!("not jobs or a scan"),
    };
    let Cmd::Job(a) = parse(&["iolab", "job", "/tpool", "--allow-export"]).unwrap().cmd else {
        panic!("not job")
    };
    assert!(consent(experiments::job(&a).unwrap()));
    let Cmd::Job(a) = parse(&["iolab", "job", "/tpool"]).unwrap().cmd else {
        panic!("not job")
    };
    assert!(!consent(experiments::job(&a).unwrap()), "never without asking");
    let Cmd::Scan(a) = parse(&["iolab", "scan", "/tpool", "--allow-export"]).unwrap().cmd else {
        panic!("not scan")
    };
    assert!(consent(experiments::scan(&a).unwrap()));
    let Cmd::Run(a) = parse(&["iolab", "run", "/tpool", "--suite", "dd", "--allow-export"]).unwrap().cmd else {
        panic!("not run")
    };
    assert!(a.zfs.allow_export);
    assert!(parse(&["iolab", "scale", "/tpool", "--allow-export"]).is_err());
    // `time --cold` (issue 25, item 4): the same flag, and never without asking.
    for (args, want) in [
        (&["iolab", "time", "--cold", "--allow-export", "--", "cat", "f"][..], true),
        (&["iolab", "time", "--cold", "--", "cat", "f"][..], false),
    ] {
        let Cmd::Time(a) = parse(args).unwrap().cmd else {
            panic!("not time")
        };
        let Experiment::Time(t) = experiments::time(&a).unwrap() else {
            panic!("not a timed command")
        };
        assert_eq!(t.allow_export, want, "{args:?}");
    }
    // The app suites' cold phases too.
    let Cmd::Run(a) = parse(&["iolab", "run", "/tpool", "--suite", "git", "--allow-export"]).unwrap().cmd else {
        panic!("not run")
    };
    let Experiment::App(r) = experiments::run(&a, None).unwrap() else {
        panic!("not an app suite")
    };
    assert!(r.allow_export);
}

#[test]
fn clap_definition_is_consistent() {
    command().debug_assert();
}

/// Issue 26: `layouts` takes `iolab job`'s options (one flattened struct),
/// and a typed option, even one equal to its default, replaces the suite.
#[test]
fn layouts_measure_the_job_its_options_give() {
    use clap::FromArgMatches;
    let workload = |args: &[&str]| {
        let m = command()
            .try_get_matches_from([&["iolab", "layouts", "/dev/sdz"][..], args].concat())
            .unwrap();
        let mut cli = Cli::from_arg_matches(&m).unwrap();
        cli.note_typed(&m);
        let Cmd::Layouts(a) = cli.cmd else { panic!("not layouts") };
        experiments::layouts_workload(&a, None)
    };
    let names = |args: &[&str]| match workload(args).unwrap() {
        Experiment::Jobs(r) => (r.suite.clone(), r.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>()),
        _ => panic!("not jobs"),
    };
    assert_eq!(
        names(&["--rw", "randwrite", "--bs", "8K", "--qd", "4"]),
        (None, vec!["randwrite 8K Q4T1".to_string()])
    );
    assert_eq!(names(&["--rw", "randread"]), (None, vec!["randread 4K Q1T1".to_string()]));
    let Experiment::Jobs(r) = workload(&["--bytes", "1MiB", "--threads", "2"]).unwrap() else {
        panic!()
    };
    assert_eq!(r.jobs[0].limit, crate::plan::Limit::Bytes(1 << 20));
    assert_eq!(r.jobs[0].threads, 2);
    assert_eq!(names(&["--suite", "dd"]).0.as_deref(), Some("dd"));
    assert_eq!(names(&[]).0.as_deref(), Some("sustained+default"));
    let e = workload(&["--suite", "dd", "--qd", "1"]).unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
}

/// Issue 37: `iolab job --sync` makes each write durable and names the
/// job by it; a job that does not write is refused it.
#[test]
fn job_sync_makes_each_write_durable_and_names_the_job() {
    use crate::plan::SyncMode;
    use clap::FromArgMatches;
    let parse = |args: &[&str]| command().try_get_matches_from(args).and_then(|m| Cli::from_arg_matches(&m));
    let spec = |args: &[&str]| {
        let Cmd::Job(a) = parse(&[&["iolab", "job", "/dev/sdz"][..], args].concat()).unwrap().cmd else {
            panic!("not job")
        };
        let Experiment::Jobs(r) = experiments::job(&a).unwrap() else {
            panic!("not jobs")
        };
        r.jobs[0].clone()
    };
    let j = spec(&["--rw", "write", "--sync", "dsync"]);
    assert_eq!((j.name.as_str(), j.sync), ("write 4K Q1T1 dsync", SyncMode::Dsync));
    let j = spec(&["--rw", "randwrite", "--bs", "16k", "--sync", "fsync"]);
    assert_eq!((j.name.as_str(), j.sync), ("randwrite 16K Q1T1 fsync", SyncMode::Fsync));
    assert_eq!(spec(&["--rw", "write"]).sync, SyncMode::None);
    let e = spec(&["--sync", "fsync"]).validate().unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("does not write"), "{e}");
    assert!(parse(&["iolab", "job", "/dev/sdz", "--sync", "osync"]).is_err());
    // fio times a write's flush apart from the write: it cannot run `fsync`.
    let jobs = |args: &[&str]| {
        let Cmd::Job(a) = parse(&[&["iolab", "job", "/dev/sdz", "--rw", "write", "--engine", "fio"][..], args].concat())
            .unwrap()
            .cmd
        else {
            panic!("not job")
        };
        experiments::job(&a).unwrap().validate()
    };
    let e = jobs(&["--sync", "fsync"]).unwrap_err();
    assert!(e.exit_code() == 2 && e.to_string().contains("fio cannot run it"), "{e}");
    assert!(jobs(&["--sync", "dsync"]).is_ok(), "fio's sync=dsync is the same");
}
