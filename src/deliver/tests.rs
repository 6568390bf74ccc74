use super::stored::{self, CompareRequest};
use super::*;
use crate::experiment::Outcome;
use crate::experiment::fio::HostsOutcome;
use crate::summary::Report;
use crate::summary::tests::fixtures::{self, J, MB};

fn export(format: Format, output: Option<&str>) -> Export {
    Export {
        format,
        output: output.map(PathBuf::from),
        units: BwUnit::Mb,
        json: None,
    }
}

/// A request that stores in `db` and prints the table.
fn request(db: &Path) -> Request {
    Request {
        export: export(Format::Table, None),
        quiet: false,
        db: db.to_path_buf(),
        no_store: false,
        label: Some("lab".into()),
        tags: vec![("bus".into(), "usb".into()), ("host".into(), "mine".into())],
        argv: vec!["iolab".into(), "job".into()],
        stdout: Stdout::default(),
    }
}

/// A store iolab cannot open: its directory is a file.
fn refusing_store(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("file"), b"").unwrap();
    dir.join("file/results.db")
}

fn measured() -> Report {
    fixtures::report(
        "h",
        None,
        &[J::read("SEQ1M Q8T1", &[100.0 * MB, 101.0 * MB]).warn("cache", "the page cache answered")],
    )
}

fn outcome(report: Report, interrupted: Option<i32>, failed: Option<Error>) -> Outcome {
    Outcome {
        report,
        interrupted,
        failed,
    }
}

fn said(d: &Delivery) -> Vec<&str> {
    d.steps
        .iter()
        .filter_map(|s| match s {
            Step::Say(l) => Some(l.as_str()),
            _ => None,
        })
        .collect()
}

/// The writes, as (file or "-", text).
fn written(d: &Delivery) -> Vec<(String, &str)> {
    d.steps
        .iter()
        .filter_map(|s| match s {
            Step::Write { to, text } => Some((to.as_ref().map_or("-".into(), |p| p.display().to_string()), text.as_str())),
            _ => None,
        })
        .collect()
}

fn exit(d: &Delivery) -> Option<u8> {
    d.exit.as_ref().map(Error::exit_code)
}

/// Issue 16: a signal outranks the error that stopped a run, which
/// outranks a failed check, which outranks a store that did not keep the
/// result; the lesser ones are still said. Every combination.
#[test]
fn issue_16_the_exit_status_of_a_printed_result() {
    for n in 0..16u8 {
        let has = |bit: u8| n & (1 << bit) != 0;
        let (exit, also) = ending(
            has(0).then_some(libc::SIGINT),
            has(1).then(|| failed("EIO")),
            has(2).then(|| "corrupt".to_string()),
            has(3).then(|| Error::NotSaved("the run was not saved in /s: disk full".into())),
        );
        let want: Vec<u8> = [(0, 130), (1, 1), (2, 3), (3, 4)]
            .into_iter()
            .filter(|&(bit, _)| has(bit))
            .map(|(_, code)| code)
            .collect();
        let got: Vec<u8> = exit.iter().chain(&also).map(Error::exit_code).collect();
        assert_eq!(got, want, "signal/failure/check/not saved = {n:04b}");
    }
}

#[test]
fn a_run_is_stored_then_printed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let d = run(outcome(measured(), None, None), &request(&db));
    assert_eq!(exit(&d), None);
    assert_eq!(said(&d), vec![format!("iolab: stored as run 1 in {}", db.display())]);
    let w = written(&d);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].0, "-");
    assert!(w[0].1.contains("SEQ1M Q8T1"), "{}", w[0].1);
    let kept = crate::store::Store::open(&db).unwrap().load(1).unwrap();
    assert_eq!(kept.summary.label.as_deref(), Some("lab"));
    assert!(kept.summary.complete);
    assert_eq!(kept.report.argv, vec!["iolab", "job"]);
    // Quiet: no line about the store; --no-store: nothing kept.
    let d = run(
        outcome(measured(), None, None),
        &Request {
            quiet: true,
            ..request(&db)
        },
    );
    assert!(said(&d).is_empty());
    let d = run(
        outcome(measured(), None, None),
        &Request {
            no_store: true,
            ..request(&db)
        },
    );
    assert!(said(&d).is_empty());
    assert_eq!(crate::store::Store::open(&db).unwrap().list(&Default::default()).unwrap().len(), 2);
}

/// Issue 16: a store that refuses costs the user nothing measured: the
/// table is printed, then the store is named, and the exit status is 4.
#[test]
fn a_refusing_store_prints_first_and_ends_with_status_4() {
    let dir = tempfile::tempdir().unwrap();
    let db = refusing_store(dir.path());
    let d = run(outcome(measured(), None, None), &request(&db));
    assert!(matches!(d.steps[0], Step::Write { to: None, .. }), "{:?}", d.steps);
    assert_eq!(d.steps.len(), 1, "the reason is the exit error, said once: {:?}", d.steps);
    let e = d.exit.unwrap();
    assert_eq!(e.exit_code(), 4);
    assert!(
        e.to_string().starts_with(&format!("the run was not saved in {}: ", db.display())),
        "{e}"
    );
    // Behind a signal the store's failure is a lesser error, said first.
    let d = run(outcome(measured(), Some(libc::SIGTERM), None), &request(&db));
    assert_eq!(exit(&d), Some(128 + libc::SIGTERM as u8));
    assert!(said(&d)[0].starts_with("iolab: the run was not saved in "), "{:?}", said(&d));
}

#[test]
fn a_run_stopped_before_any_result_is_its_error_alone() {
    let dir = tempfile::tempdir().unwrap();
    let empty = fixtures::report("h", None, &[]);
    let d = run(outcome(empty, None, Some(failed("EIO at 0"))), &request(&dir.path().join("r.db")));
    assert!(d.steps.is_empty());
    assert_eq!(d.exit.unwrap().to_string(), "EIO at 0");
    assert!(!dir.path().join("r.db").exists(), "nothing to keep");
    // With results, the failure is kept beside them, as incomplete.
    let d = run(
        outcome(measured(), None, Some(failed("EIO at 0"))),
        &request(&dir.path().join("r.db")),
    );
    assert_eq!(exit(&d), Some(1));
    let kept = crate::store::Store::open(&dir.path().join("r.db")).unwrap().load(1).unwrap();
    assert!(!kept.summary.complete);
}

#[test]
fn json_goes_where_asked_and_warnings_where_the_table_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let r = Request {
        no_store: true,
        ..request(&dir.path().join("r.db"))
    };
    // `--json -`: the document alone on stdout, the warnings on stderr.
    let d = run(
        outcome(measured(), None, None),
        &Request {
            export: Export {
                json: Some("-".into()),
                ..r.export.clone()
            },
            ..r.clone()
        },
    );
    let w = written(&d);
    assert_eq!((w.len(), w[0].0.as_str()), (1, "-"));
    assert!(serde_json::from_str::<serde_json::Value>(w[0].1).is_ok());
    assert_eq!(said(&d), vec!["iolab: warning [cache] SEQ1M Q8T1: the page cache answered"]);
    // `--json PATH`: the document there, the table (with its warnings) on stdout.
    let path = dir.path().join("r.json");
    let d = run(
        outcome(measured(), None, None),
        &Request {
            export: Export {
                json: Some(path.clone()),
                ..r.export.clone()
            },
            ..r.clone()
        },
    );
    let w = written(&d);
    assert_eq!(w[0].0, path.display().to_string());
    assert!(w[0].1.starts_with('{'));
    assert_eq!(w[1].0, "-");
    assert!(w[1].1.contains("the page cache answered"));
    assert!(said(&d).is_empty());
}

#[test]
fn files_to_write_need_a_directory_that_exists() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(&dir.path().join("r.db"));
    assert!(r.check().is_ok());
    r.export.json = Some("/nonexistent/dir/r.json".into());
    let e = r.check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot write JSON to /nonexistent/dir/r.json: its directory does not exist"
    );
    r.export.json = Some("-".into());
    r.export.output = Some("/nonexistent/out.md".into());
    assert_eq!(r.check().unwrap_err().exit_code(), 2);
    r.export.output = Some("relative.md".into());
    assert!(r.check().is_ok());
}

fn hosts_outcome(interrupted: Option<i32>) -> HostsOutcome {
    HostsOutcome {
        runs: vec![
            ("a".into(), Ok(measured())),
            ("b".into(), Err("no fio server at b:8765 (refused)".into())),
            ("c".into(), Ok(measured())),
        ],
        interrupted,
        fio_version: "fio-3.33".into(),
    }
}

/// Issue 14: each host's run is stored with its host and group tags (the
/// user's own host tag gives way); a host without a result is named, and
/// the exit status is 1.
#[test]
fn a_hosts_group_keeps_each_run_and_names_the_failed_host() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let d = hosts(hosts_outcome(None), &request(&db));
    let lines = said(&d);
    assert_eq!(lines[0], "iolab: b: no fio server at b:8765 (refused)");
    assert!(lines[1].starts_with(&format!("iolab: stored 2 run(s) in {}, tagged group=hosts-", db.display())));
    assert_eq!(exit(&d), Some(1));
    assert_eq!(
        d.exit.as_ref().unwrap().to_string(),
        "1 of 3 hosts gave no result (the others' runs are kept)"
    );
    let st = crate::store::Store::open(&db).unwrap();
    let runs = st.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 2);
    let tag = |r: &crate::store::RunSummary, k: &str| r.tags.iter().find(|t| t.0 == k).map(|t| t.1.clone());
    assert_eq!(tag(&runs[0], "host").as_deref(), Some("a"));
    assert_eq!(tag(&runs[1], "host").as_deref(), Some("c"));
    assert_eq!(tag(&runs[0], "bus").as_deref(), Some("usb"));
    assert_eq!(tag(&runs[0], "group"), tag(&runs[1], "group"));
    let w = written(&d);
    assert!(w[0].1.contains('a') && w[0].1.contains('c'), "{}", w[0].1);
}

/// A failed host outranks a store that kept nothing; both are said.
#[test]
fn a_hosts_group_with_a_failed_host_and_a_refusing_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = refusing_store(dir.path());
    let mut r = request(&db);
    r.export.json = Some("-".into());
    let d = hosts(hosts_outcome(None), &r);
    let lines = said(&d);
    assert_eq!(lines[0], "iolab: b: no fio server at b:8765 (refused)");
    assert!(lines[1].starts_with("iolab: stored 0 run(s) in "), "{lines:?}");
    // The group is printed before the hosts whose runs were not kept are named.
    let i_write = d.steps.iter().position(|s| matches!(s, Step::Write { .. })).unwrap();
    let i_unsaved = d
        .steps
        .iter()
        .position(|s| matches!(s, Step::Say(l) if l.starts_with("iolab: a: the run was not saved in")))
        .unwrap();
    assert!(i_write < i_unsaved, "{:?}", d.steps);
    assert!(lines.iter().any(|l| l.starts_with("iolab: c: the run was not saved in")));
    let v: serde_json::Value = serde_json::from_str(written(&d)[0].1).unwrap();
    assert!(v["hosts"].as_array().unwrap().iter().all(|h| h["run_id"].is_null()));
    assert_eq!(exit(&d), Some(1));
    // Every host gave a result: the store's failure is the exit status (4).
    let all_ok = HostsOutcome {
        runs: vec![("a".into(), Ok(measured()))],
        interrupted: None,
        fio_version: "fio-3.33".into(),
    };
    let d = hosts(all_ok, &r);
    assert_eq!(exit(&d), Some(4));
    assert_eq!(
        d.exit.unwrap().to_string(),
        format!("1 of 1 hosts' runs were not saved in {}", db.display())
    );
    // A signal outranks a failed host.
    let d = hosts(hosts_outcome(Some(libc::SIGINT)), &r);
    assert_eq!(exit(&d), Some(130));
}

/// Stored runs: list, show (warnings on stderr off the table), compare
/// (priced from the configuration file, said), report (to a file on a
/// terminal, said).
#[test]
fn stored_runs_are_listed_shown_compared_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let r = Request {
        quiet: true,
        ..request(&db)
    };
    for _ in 0..2 {
        assert!(run(outcome(measured(), None, None), &r).exit.is_none());
    }
    let table = export(Format::Table, None);
    let d = stored::list(&db, &Default::default(), &table.or_json(true), Stdout::default());
    let v: serde_json::Value = serde_json::from_str(written(&d)[0].1).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    let d = stored::list(&db, &Default::default(), &export(Format::Html, None), Stdout::default());
    assert!(d.steps.is_empty());
    assert_eq!(
        d.exit.unwrap().to_string(),
        "--format html has no view of the list of runs; use --format table|json|markdown|csv"
    );
    let d = stored::show(&db, 1, &table, Stdout::default());
    assert!(said(&d).is_empty());
    let d = stored::show(&db, 1, &table.or_json(true), Stdout::default());
    assert_eq!(said(&d), vec!["iolab: warning [cache] SEQ1M Q8T1: the page cache answered"]);
    let d = stored::show(&db, 9, &table, Stdout::default());
    assert_eq!(exit(&d), Some(2), "no run 9: a usage error");

    let config = Config::parse("[prices]\nlab = 59.99\n", Path::new("/c.toml")).unwrap();
    let cmp = CompareRequest {
        ids: vec![1, 2],
        ..Default::default()
    };
    let d = stored::compare(&db, &cmp, Some(&config), &table, Stdout::default());
    assert_eq!(exit(&d), None);
    assert_eq!(said(&d)[0], "iolab: run 1: price 59.99 from \"lab\" in /c.toml");
    // A stored price wins over the file's.
    let priced = CompareRequest {
        prices: vec![(1, 10.0), (2, 12.0)],
        ..cmp.clone()
    };
    let d = stored::compare(&db, &priced, Some(&config), &export(Format::Html, None), Stdout::default());
    assert!(said(&d).is_empty());
    assert!(written(&d)[0].1.starts_with("<!DOCTYPE html>"));
    let d = stored::compare(&db, &CompareRequest { ids: vec![1, 1], ..cmp }, None, &table, Stdout::default());
    assert_eq!(exit(&d), Some(2));

    let terminal = Stdout {
        terminal: true,
        color: true,
    };
    let d = stored::report(&db, &[1, 2], None, None, None, terminal);
    assert_eq!(written(&d)[0].0, "iolab-report-1-2.html");
    // Issue 36: the page holds the runs' warnings; stderr does not repeat them.
    assert_eq!(said(&d), vec!["iolab: wrote iolab-report-1-2.html"]);
    assert!(written(&d)[0].1.contains("the page cache answered"));
    let d = stored::report(&db, &[1], None, None, None, Stdout::default());
    assert_eq!(written(&d)[0].0, "-");
    let d = stored::report(&db, &[1], Some(2), None, None, Stdout::default());
    assert_eq!(d.exit.unwrap().to_string(), "--baseline needs two or more runs to compare");

    let d = stored::label(&db, 2, "new");
    assert!(d.exit.is_none() && d.steps.is_empty());
    assert_eq!(exit(&stored::tag(&db, 7, &("k".into(), "v".into()))), Some(2));
    let d = stored::delete(&db, 1);
    assert_eq!(said(&d), vec!["deleted run 1"]);
    assert_eq!(exit(&stored::delete(&db, 1)), Some(2));
}

/// Issue 36: `iolab list --limit 50 --offset 50` with 30 runs said "no
/// stored runs": it says how many there are and that the offset is past them.
#[test]
fn an_offset_past_the_stored_runs_says_how_many_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let r = Request {
        quiet: true,
        ..request(&db)
    };
    for _ in 0..30 {
        assert!(run(outcome(measured(), None, None), &r).exit.is_none());
    }
    let page = |limit, offset| crate::store::Filter {
        page: crate::store::Page {
            limit: Some(limit),
            offset,
        },
        ..Default::default()
    };
    let table = export(Format::Table, None);
    let d = stored::list(&db, &page(50, 50), &table, Stdout::default());
    assert_eq!(exit(&d), None);
    assert!(written(&d).is_empty(), "{:?}", written(&d));
    assert_eq!(said(&d), vec!["iolab: there are 30 stored runs: --offset 50 is past them"]);
    // A document still gets its (empty) list, and the line on stderr.
    let d = stored::list(&db, &page(50, 50), &table.or_json(true), Stdout::default());
    assert_eq!(written(&d)[0].1.trim(), "[]");
    assert_eq!(said(&d).len(), 1);
    // Filters: the runs they keep.
    let labelled = crate::store::Filter {
        label: Some("lab".into()),
        ..page(10, 30)
    };
    let d = stored::list(&db, &labelled, &table, Stdout::default());
    assert_eq!(
        said(&d),
        vec!["iolab: there are 30 stored runs that the filters keep: --offset 30 is past them"]
    );
    // A page inside the runs, and an empty store, as before.
    let d = stored::list(&db, &page(50, 20), &table, Stdout::default());
    assert!(said(&d).is_empty() && written(&d)[0].1.contains("lab"));
    let empty = dir.path().join("empty.db");
    let d = stored::list(&empty, &page(50, 50), &table, Stdout::default());
    assert!(said(&d).is_empty() && written(&d)[0].1.contains("no stored runs"));
}

#[test]
fn imported_runs_are_stored_with_the_users_tags() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let doc = dir.path().join("run.json");
    let mut report = measured();
    report.command = "job".into();
    std::fs::write(&doc, serde_json::to_string(&report).unwrap()).unwrap();
    let d = stored::import(&db, &doc, Some("old"), &[("bus".into(), "sata".into())]);
    assert_eq!(exit(&d), None);
    assert!(
        said(&d)[0].starts_with(&format!("iolab: stored as run 1 in {} (", db.display())),
        "{:?}",
        said(&d)
    );
    let got = crate::store::Store::open(&db).unwrap().load(1).unwrap();
    assert_eq!(got.summary.label.as_deref(), Some("old"));
    assert_eq!(got.summary.tags, vec![("bus".to_string(), "sata".to_string())]);
    std::fs::write(&doc, "{}").unwrap();
    assert_eq!(exit(&stored::import(&db, &doc, None, &[])), Some(2));
}

#[test]
fn suites_list_the_built_in_ones_then_the_files() {
    let config = Config::parse(
        "[suites.nightly]\ndescription = \"Every night\"\njobs = [{ rw = \"read\", bs = \"1M\" }]\n",
        Path::new("/c.toml"),
    )
    .unwrap();
    let d = suites(Some(&config));
    let text = written(&d)[0].1.to_string();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("default ") && first.ends_with("(built-in)"), "{first}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("nightly ") && l.ends_with(" Every night (/c.toml)")),
        "{text}"
    );
    assert!(!suites(None).steps.is_empty());
}

#[test]
fn info_needs_a_target_that_exists() {
    let d = info(Path::new("/nonexistent/iolab"), &export(Format::Table, None), Stdout::default());
    assert_eq!(d.exit.unwrap().to_string(), "target /nonexistent/iolab does not exist");
}

#[test]
fn a_restore_says_what_it_wrote_back() {
    let s = crate::experiment::capacity::RestoreSummary {
        file: "/st/iolab-capacity-x.bak".into(),
        device: "/dev/sdz".into(),
        blocks: 3,
        restored: 2,
        verified: 2,
        torn_bytes: 100,
        seconds: 0.5,
    };
    let d = restored(&s);
    assert_eq!(
        said(&d),
        vec![
            "iolab: /st/iolab-capacity-x.bak: ignored a cut-short last record (100 bytes): the process died while saving it, before its round wrote"
        ]
    );
    assert_eq!(
        written(&d)[0].1,
        "restored 2 block(s) (8.00 KiB) from /st/iolab-capacity-x.bak to /dev/sdz in 0.50 s; every one read back as saved; /st/iolab-capacity-x.bak removed\n"
    );
}

fn layout(name: &str, report: Option<Report>, why: Option<Error>, teardown_failed: bool) -> crate::experiment::layouts::Measured {
    use crate::targets::journal::{Action, Guard, Outcome as U, Undo};
    let undo = Undo {
        what: format!("pool iolab-x-{name}"),
        action: Action::run(["zpool", "destroy", &format!("iolab-x-{name}")]),
        guard: Guard::Pool {
            name: format!("iolab-x-{name}"),
        },
        best_effort: false,
        after: None,
    };
    let (layout, count) = crate::plan::layouts::parse_name(name).unwrap();
    let devices: Vec<std::path::PathBuf> = (0..count.unwrap_or(1)).map(|k| format!("/dev/loop{k}").into()).collect();
    crate::experiment::layouts::Measured {
        name: name.into(),
        tags: vec![("recordsize".into(), "128K".into())],
        config: crate::plan::layouts::Config {
            name: name.into(),
            layout,
            devices,
            properties: vec![("recordsize".into(), "128K".into())],
            tags: vec![("layout".into(), name.into()), ("recordsize".into(), "128K".into())],
        },
        usable_bytes: Some(1_000_000_000),
        outcome: crate::experiment::layouts::ConfigOutcome {
            name: name.into(),
            measured: report.map(|r| outcome(r, None, None)),
            failed: why,
            teardown: vec![(
                undo,
                if teardown_failed {
                    U::Failed("pool is busy".into())
                } else {
                    U::Done
                },
            )],
        },
    }
}

/// Layouts: each configuration measured is kept with its tags and label, the
/// comparison is printed with the first as the baseline, and a configuration that
/// could not be built, or not torn down, is named and makes the exit status 1.
#[test]
fn layouts_keep_each_configuration_and_print_their_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let fast = fixtures::report("h", None, &[J::read("SEQ1M Q8T1", &[200.0 * MB, 201.0 * MB])]);
    let configs = vec![
        layout("zfs", Some(measured()), None, false),
        layout(
            "zfs-raidz1-3",
            None,
            Some(failed("zfs-raidz1-3: cannot build: `zpool create` failed: no such device")),
            false,
        ),
        layout("zfs-mirror2", Some(fast), None, true),
    ];
    let d = layouts(
        crate::experiment::layouts::LayoutsOutcome {
            said: vec!["md-raid5+ext4 is not built: md is not in this kernel".into()],
            configs,
        },
        &request(&db),
        &[],
    );
    let lines = said(&d);
    assert!(
        lines.iter().any(|l| l.contains("stored 2 run(s)") && l.contains("group=layouts-")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("zfs-raidz1-3: cannot build")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("zfs-mirror2: pool iolab-x-zfs-mirror2 was not undone (pool is busy): the next run tries again")),
        "{lines:?}"
    );
    assert_eq!(exit(&d), Some(1));
    assert_eq!(
        d.exit.as_ref().unwrap().to_string(),
        "2 of 3 configuration(s) measured; 2 problem(s) above"
    );
    let st = crate::store::Store::open(&db).unwrap();
    let runs = st.list(&Default::default()).unwrap();
    assert_eq!(runs.len(), 2);
    let tag = |r: &crate::store::RunSummary, k: &str| r.tags.iter().find(|t| t.0 == k).map(|t| t.1.clone());
    assert_eq!(tag(&runs[0], "layout").as_deref(), Some("zfs"));
    assert_eq!(tag(&runs[1], "layout").as_deref(), Some("zfs-mirror2"));
    assert_eq!(tag(&runs[0], "recordsize").as_deref(), Some("128K"));
    assert_eq!(tag(&runs[0], "bus").as_deref(), Some("usb"));
    assert_eq!(tag(&runs[0], "group"), tag(&runs[1], "group"));
    assert_eq!(runs[1].label.as_deref(), Some("zfs-mirror2"));
    let w = written(&d);
    assert_eq!(w.len(), 1);
    assert!(w[0].1.contains("zfs (baseline)") && w[0].1.contains("+100%"), "{}", w[0].1);
    let usable = "953.67 MiB";
    assert!(
        w[0].1.contains(usable),
        "layouts prints each configuration's usable capacity: {}",
        w[0].1
    );

    // Issue 36: `iolab compare` of the stored runs fills the Usable column as `layouts` did.
    let ids: Vec<i64> = runs.iter().map(|r| r.id).collect();
    let cmp = CompareRequest {
        ids: ids.clone(),
        ..Default::default()
    };
    let table = export(Format::Table, None);
    let d = stored::compare(&db, &cmp, None, &table.or_json(true), Stdout::default());
    let v: serde_json::Value = serde_json::from_str(written(&d)[0].1).unwrap();
    for r in v["runs"].as_array().unwrap() {
        assert_eq!(r["layout"]["usable_bytes"], 1_000_000_000u64, "{r}");
    }
    let d = stored::compare(&db, &cmp, None, &table, Stdout::default());
    let text = written(&d)[0].1;
    // The configurations' table: one row each, its settings and usable capacity.
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("recordsize=128K")).collect();
    assert!(rows.len() == 2 && rows.iter().all(|l| l.contains(usable)), "{text}");
}
