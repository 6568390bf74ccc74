//! Issue 39: `--json [PATH]` is one option with one meaning on every
//! command that writes a document, parsed the same in either order.

use super::*;
use clap::FromArgMatches;
use std::path::{Path, PathBuf};

fn parse(args: &[&str]) -> std::result::Result<Cli, clap::Error> {
    command()
        .try_get_matches_from([&["iolab"], args].concat())
        .and_then(|m| Cli::from_arg_matches(&m))
}

/// The output options of the command `args` parse to.
fn export_of(args: &[&str]) -> ExportArgs {
    let cli = parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    match cli.cmd {
        Cmd::Run(a) => a.common.out.export,
        Cmd::Job(a) => a.common.out.export,
        Cmd::Scale(a) => a.common.out.export,
        Cmd::Layouts(a) => a.common.out.export,
        Cmd::Scan(a) => a.out.export,
        Cmd::Time(a) => a.out.export,
        Cmd::Capacity(a) => a.out.export,
        Cmd::Verify(a) => a.out.export,
        Cmd::Flush(a) => a.out.export,
        Cmd::Info(a) => a.export,
        Cmd::List(a) => a.export,
        Cmd::Show(a) => a.export,
        Cmd::Compare(a) => a.export,
        Cmd::Selftest(a) => a.export,
        other => panic!("{args:?} writes no document: {other:?}"),
    }
}

/// Every command that writes a document, with the arguments it needs
/// (`--json` goes before them, between them, or after them).
const COMMANDS: &[(&str, &[&str])] = &[
    ("run", &["/nonexistent/t"]),
    ("job", &["/nonexistent/t"]),
    ("scan", &["/nonexistent/t"]),
    ("scale", &["/nonexistent/t"]),
    ("layouts", &["/nonexistent/sdx", "--dry-run"]),
    ("time", &["--", "true"]),
    ("capacity", &["/nonexistent/sdx"]),
    ("verify", &["/nonexistent/t"]),
    ("flush", &["/nonexistent/t", "--log", "/nonexistent/log"]),
    ("info", &["/nonexistent/t"]),
    ("list", &[]),
    ("show", &["3"]),
    ("compare", &["1", "2"]),
    ("selftest", &[]),
];

fn line<'a>(cmd: &'a str, before: &[&'a str], rest: &[&'a str], after: &[&'a str]) -> Vec<&'a str> {
    let (args, last) = match rest.iter().position(|a| *a == "--") {
        Some(i) => rest.split_at(i),
        None => (rest, &[][..]),
    };
    [&[cmd][..], before, args, after, last].concat()
}

#[test]
fn every_command_that_writes_a_document_takes_json_path_bare_json_and_json_dash() {
    for &(cmd, rest) in COMMANDS {
        let json = |before: &[&str], after: &[&str]| export_of(&line(cmd, before, rest, after)).json;
        assert_eq!(json(&[], &[]), None, "{cmd}");
        assert_eq!(json(&[], &["--json", "out.json"]), Some(PathBuf::from("out.json")), "{cmd}");
        assert_eq!(json(&["--json", "out.json"], &[]), Some(PathBuf::from("out.json")), "{cmd}");
        assert_eq!(json(&[], &["--json", "-"]), Some(PathBuf::from("-")), "{cmd}");
        assert_eq!(
            json(&[], &["--json"]),
            Some(PathBuf::from("-")),
            "{cmd}: a bare --json last is stdout"
        );
        // A bare --json before another option leaves that option alone.
        let x = export_of(&line(cmd, &["--json", "--units", "gb"], rest, &[]));
        assert_eq!(
            (x.json, x.units),
            (Some(PathBuf::from("-")), crate::base::units::BwUnit::Gb),
            "{cmd}"
        );
        // --json stands for --format json [-o PATH]: not both.
        for other in [&["--format", "csv"][..], &["-o", "x.txt"]] {
            let both = parse(&line(cmd, &["--json", "out.json"], rest, other));
            assert_eq!(
                both.unwrap_err().kind(),
                clap::error::ErrorKind::ArgumentConflict,
                "{cmd} {other:?}"
            );
        }
    }
}

/// `iolab info /dev/sdb --json out.json` was a usage error, and compare had
/// no --json: each command now reads it as the others do.
#[test]
fn the_commands_that_had_a_bare_flag_or_none_take_a_path() {
    let x = export_of(&["info", "/dev/sdb", "--json", "out.json"]);
    assert_eq!(x.json.as_deref(), Some(Path::new("out.json")));
    let x = export_of(&["show", "3", "--json", "run.json"]);
    assert_eq!(x.json.as_deref(), Some(Path::new("run.json")));
    let x = export_of(&["compare", "1", "2", "--json", "-"]);
    assert_eq!(x.json.as_deref(), Some(Path::new("-")));
    // A bare --json after the arguments, as scripts wrote it, stays stdout.
    let Cmd::Compare(a) = parse(&["compare", "1", "2", "3", "--json"]).unwrap().cmd else {
        panic!("not compare")
    };
    assert_eq!((a.ids, a.export.json), (vec![1, 2, 3], Some(PathBuf::from("-"))));
    let Cmd::List(a) = parse(&["list", "--json", "--tag", "bus=usb"]).unwrap().cmd else {
        panic!("not list")
    };
    assert_eq!((a.tag.len(), a.export.json), (1, Some(PathBuf::from("-"))));
}

/// A bare --json before the command's own arguments would take the next
/// one as its PATH. Those arguments are run ids, directories and devices:
/// each is refused as a PATH, so the line fails instead of writing the JSON
/// over it and running without it.
#[test]
fn a_bare_json_before_the_arguments_cannot_take_one_as_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let refused = |args: &[&str], what: &str| {
        let e = parse(args).expect_err(&format!("{args:?} parsed"));
        assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{args:?}: {e}");
        assert!(e.to_string().contains(what), "{args:?}: {e}");
    };
    refused(&["info", "--json", d], "is a directory");
    refused(&["run", "--json", d], "is a directory");
    refused(&["scan", "--json", d, d], "is a directory");
    refused(&["show", "--json", "3"], "is a run id");
    refused(&["compare", "--json", "1", "2", "3"], "is a run id");
    if Path::new("/dev/loop0").exists() {
        refused(&["info", "--json", "/dev/loop0"], "is a block device");
    }
    refused(&["list", "--json", ""], "needs a file");
    // The same arguments in the other order parse as meant.
    let Cmd::Info(a) = parse(&["info", d, "--json"]).unwrap().cmd else {
        panic!("not info")
    };
    assert_eq!((a.target.as_path(), a.export.json), (dir.path(), Some(PathBuf::from("-"))));
    let Cmd::Show(a) = parse(&["show", "3", "--json"]).unwrap().cmd else {
        panic!("not show")
    };
    assert_eq!((a.id, a.export.json), (3, Some(PathBuf::from("-"))));
    // A file in a directory is a PATH, wherever it stands.
    let file = format!("{d}/out.json");
    let Cmd::Info(a) = parse(&["info", "--json", &file, d]).unwrap().cmd else {
        panic!("not info")
    };
    assert_eq!((a.target.as_path(), a.export.json), (dir.path(), Some(PathBuf::from(&file))));
}
