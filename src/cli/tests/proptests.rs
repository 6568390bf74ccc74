//! Issue 16: random argument vectors never panic the command line. Each
//! case is parsed by clap (`command().try_get_matches_from`), mapped to
//! [`Cli`], merged with a configuration file, and taken as far as it goes
//! without touching a device: the experiment is built and validated (and
//! written as a fio job file for `--emit fio`), the hosts file and the
//! configuration file are read, a document to import is read and parsed,
//! and the store commands run against an in-memory store. Commands that
//! measure stop before opening their target; `info`, `completions`, `man`
//! and `selftest` are parsed only.
//!
//! The words are drawn from every command's own options (so most cases get
//! past clap) and from values chosen to break parsers: huge, negative and
//! fractional numbers, NaN, units that do not exist, paths that are not
//! files (`/dev/zero`, a directory), text that is not UTF-8. (A FIFO is
//! not among them: reading one waits for its writer, as `cat` does; the
//! integration tests refuse FIFOs as targets.)

use crate::base::testknob::proptest_config;
use crate::cli::*;
use crate::plan;
use crate::render::{self, Document};
use crate::store::Store;
use clap::FromArgMatches;
use proptest::prelude::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::sync::OnceLock;

/// One argument of a command, as clap defines it.
#[derive(Clone, Debug)]
struct ArgSpec {
    /// `--long` (or `-s`); `None`: positional.
    flag: Option<String>,
    takes_value: bool,
    /// Takes several values (`--qd-sweep 1,2`, the ids of `compare`).
    many: bool,
    required: bool,
    /// After `--` (the command `time` runs).
    last: bool,
    /// Its possible values and its default: values clap accepts.
    good: Vec<String>,
    /// The hostile values of its kind (sizes, durations, counts), by its name.
    kind: &'static [&'static str],
}

const SIZES: &[&str] = &[
    "0",
    "1",
    "511",
    "513",
    "4k",
    "4K",
    "1.5k",
    "0.3",
    "1e9",
    "64MiB",
    "64M",
    "65M",
    "1GB",
    "4kB",
    "99999999999999T",
    "16777216T",
    "18446744073709551615",
    "18446744073709551616",
    "17179869184G",
    "-4k",
    "4q",
    "NaN",
    "inf",
    "",
    "k",
];
const DURATIONS: &[&str] = &[
    "0",
    "0s",
    "1ns",
    "1us",
    "1ms",
    "5s",
    "-1s",
    "1.5",
    "1e3",
    "NaN",
    "inf",
    "999999999",
    "1000000000",
    "999999999999999s",
    "5000000000000000000s 1ns",
    "9000000000000000000s 1ms",
    "150000000000y 1s",
    "7000000000000000w 1d",
    "2562047788015215h 30m",
    "18446744073709551615s",
    "584942417355y",
    "30y",
    "1h 30m",
    "1m30x",
    "",
    "s",
];
const COUNTS: &[&str] = &[
    "0",
    "1",
    "2",
    "255",
    "256",
    "257",
    "4096",
    "4097",
    "100000",
    "100001",
    "4294967295",
    "4294967296",
    "-1",
    "1.5",
    "1e3",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "",
    "x",
];

/// The hostile values for an argument, by its name.
fn kind_of(id: &str) -> &'static [&'static str] {
    let has = |words: &[&str]| words.iter().any(|w| id.contains(w));
    if has(&["size", "bytes", "window", "bs", "capacity"]) {
        SIZES
    } else if has(&["duration", "time", "warmup", "interval", "wait"]) {
        DURATIONS
    } else {
        COUNTS
    }
}

/// Each command's name and arguments, from clap (the top command first, name "").
fn commands() -> &'static Vec<(String, Vec<ArgSpec>)> {
    static ALL: OnceLock<Vec<(String, Vec<ArgSpec>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut cmd = command();
        cmd.build();
        let specs = |c: &clap::Command| -> Vec<ArgSpec> {
            c.get_arguments()
                .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
                .map(|a| {
                    let mut good: Vec<String> = a.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
                    good.extend(a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()));
                    ArgSpec {
                        flag: a.get_long().map(|l| format!("--{l}")).or(a.get_short().map(|s| format!("-{s}"))),
                        takes_value: a.get_action().takes_values(),
                        many: a.get_num_args().is_some_and(|n| n.max_values() > 1),
                        required: a.is_required_set(),
                        last: a.is_last_set(),
                        good,
                        kind: kind_of(a.get_id().as_str()),
                    }
                })
                .collect()
        };
        let mut out = vec![(String::new(), specs(&cmd))];
        out.extend(cmd.get_subcommands().map(|s| (s.get_name().to_string(), specs(s))));
        out
    })
}

/// Files for the path arguments: made once, never written by a case.
struct Files {
    _dir: tempfile::TempDir,
    paths: Vec<String>,
}

fn files() -> &'static Files {
    static F: OnceLock<Files> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("config.toml"),
            "[defaults]\nruns = 2\n[suites.mine]\njobs = [{ rw = \"read\", bs = \"4k\" }]\n",
        )
        .unwrap();
        std::fs::write(d.join("bad.toml"), "[defaults]\nruns = \"x\"\n").unwrap();
        std::fs::write(d.join("hosts"), "a\nb:8765=/x\n# c\n").unwrap();
        std::fs::write(d.join("bad-hosts"), "a:b:c\n").unwrap();
        std::fs::write(d.join("empty"), "").unwrap();
        std::fs::write(d.join("binary"), [0xffu8, 0xfe, 0, 1, 2]).unwrap();
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut paths: Vec<String> = ["config.toml", "bad.toml", "hosts", "bad-hosts", "empty", "binary", "missing", "."]
            .iter()
            .map(|n| d.join(n).display().to_string())
            .collect();
        paths.extend(
            [
                "fio/psync_loop_blockdev.json",
                "fio/client-3hosts.json",
                "fio/psync_note_prefix.txt",
                "render/demo.json",
                "legacy/0.1.0/doc-1.json",
            ]
            .iter()
            .map(|n| format!("{fixtures}/{n}")),
        );
        paths.extend(["/dev/zero", "/dev/null", "/proc/self/status", "/", "", "-", ":memory:"].map(String::from));
        Files { _dir: dir, paths }
    })
}

const WORDS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "4k",
    "4K",
    "512",
    "1000",
    "1M",
    "64MiB",
    "1GB",
    "1.5k",
    "0.3",
    "1e9",
    "1e400",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "4294967295",
    "4294967296",
    "65536",
    "99999999999999T",
    "4q",
    "5s",
    "0s",
    "-1s",
    "200ms",
    "1m30s",
    "1h 30m",
    "1e14",
    "999999999999999s",
    "5000000000000000000s 1ns",
    "18446744073709551615s",
    "584942417355y",
    "10%",
    "0%",
    "100%",
    "101%",
    "-1%",
    "NaN%",
    "1e400%",
    "%",
    "k=v",
    "=v",
    "k=",
    "=",
    "1=59.99",
    "1=-1",
    "1=NaN",
    "1=inf",
    "1=1e309",
    "x=1",
    "1=1TB",
    "1=0",
    "host",
    "host:0",
    "host:8765",
    "host:99999",
    "host=/x",
    "host=",
    ":",
    "[::1]:8765",
    "a:b:c",
    "a b",
    "a,b,,c",
    ",",
    "enter",
    "30s",
    "default",
    "nvme",
    "files",
    "git",
    "dd",
    "sustained",
    "mix",
    "mine",
    "nosuch",
    "read",
    "randrw",
    "trim",
    "io_uring",
    "psync",
    "fio",
    "table",
    "json",
    "html",
    "csv",
    "markdown",
    "mib",
    "gb",
    "bash",
    "raid10",
    "--",
    "-",
    "--help",
    "-h",
    "--version",
    "help",
    "",
    " ",
    "é",
    "\u{202e}",
    "true",
];

fn word() -> impl Strategy<Value = OsString> {
    let paths = files().paths.clone();
    let flags: Vec<String> = commands().iter().flat_map(|c| c.1.iter().filter_map(|a| a.flag.clone())).collect();
    prop_oneof![
        4 => prop::sample::select(WORDS).prop_map(OsString::from),
        2 => prop::sample::select(paths).prop_map(OsString::from),
        1 => prop::sample::select(flags).prop_map(OsString::from),
        1 => ".{0,16}".prop_map(OsString::from),
        1 => prop::collection::vec(any::<u8>(), 0..8).prop_map(OsString::from_vec),
        1 => (1usize..20_000).prop_map(|n| OsString::from("9".repeat(n))),
    ]
}

/// A value for `a`: mostly one clap accepts (a possible value, the default,
/// a path, a number), often a hostile one.
fn value(a: &ArgSpec) -> BoxedStrategy<OsString> {
    let paths = files().paths.clone();
    let kind = prop::sample::select(a.kind).prop_map(OsString::from);
    if a.good.is_empty() {
        prop_oneof![
            2 => kind,
            1 => word(),
            1 => prop::sample::select(paths).prop_map(OsString::from),
            2 => prop::sample::select(&["1", "2", "3", "8", "4k", "1M", "16MiB", "1s", "200ms", "50%", "1=2", "k=v"][..]).prop_map(OsString::from),
        ]
        .boxed()
    } else {
        prop_oneof![3 => prop::sample::select(a.good.clone()).prop_map(OsString::from), 2 => kind, 1 => word()].boxed()
    }
}

/// `a` on the command line: `--flag`, `--flag VALUE`, `--flag=VALUE`, or a positional's value(s).
fn render_arg(a: &ArgSpec) -> BoxedStrategy<Vec<OsString>> {
    let a = a.clone();
    let n = if a.many { 1..4usize } else { 1..2 };
    let values = prop::collection::vec(value(&a), n);
    match (&a.flag, a.takes_value) {
        (None, _) => values
            .prop_map(move |v| if a.last { [vec![OsString::from("--")], v].concat() } else { v })
            .boxed(),
        (Some(f), false) => Just(vec![OsString::from(f)]).boxed(),
        (Some(f), true) => {
            let f = f.clone();
            (values, any::<bool>())
                .prop_map(move |(v, eq)| {
                    if eq {
                        let mut s = OsString::from(&f);
                        s.push("=");
                        s.push(&v[0]);
                        vec![s]
                    } else {
                        [vec![OsString::from(&f)], v].concat()
                    }
                })
                .boxed()
        }
    }
}

/// A command line of command `c`: its required arguments and a few of its
/// options, then, often, a hostile word put in or over one of them.
fn command_line(c: usize) -> BoxedStrategy<Vec<OsString>> {
    let specs = commands()[c].1.clone();
    let positional: Vec<ArgSpec> = specs.iter().filter(|a| a.flag.is_none()).cloned().collect();
    let options: Vec<ArgSpec> = specs.iter().filter(|a| a.flag.is_some()).cloned().collect();
    let pos: Vec<BoxedStrategy<Vec<OsString>>> = positional
        .iter()
        .map(|a| {
            let r = render_arg(a);
            if a.required { r } else { prop_oneof![r, Just(Vec::new())].boxed() }
        })
        .collect();
    let k = options.len().min(8);
    let opts = prop::sample::subsequence(options, 0..=k)
        .prop_flat_map(|chosen| chosen.iter().map(render_arg).collect::<Vec<_>>())
        .prop_shuffle();
    let edits = prop_oneof![
        3 => Just(Vec::new()),
        2 => prop::collection::vec((any::<prop::sample::Index>(), word(), any::<bool>()), 1..3),
    ];
    (pos, opts, edits)
        .prop_map(|(pos, opts, edits)| {
            // Options first: a positional after `--` must stay last.
            let mut v: Vec<OsString> = opts.into_iter().flatten().collect();
            v.extend(pos.into_iter().flatten());
            for (i, w, replace) in edits {
                let at = i.index(v.len() + 1);
                if replace && at < v.len() {
                    v[at] = w;
                } else {
                    v.insert(at, w);
                }
            }
            v
        })
        .boxed()
}

fn argv() -> impl Strategy<Value = Vec<OsString>> {
    // The commands that measure build and validate a plan: drawn four times as often.
    let weighted: Vec<usize> = (1..commands().len())
        .flat_map(|c| {
            let measuring = ["run", "job", "scan", "scale", "time", "verify"].contains(&commands()[c].0.as_str());
            std::iter::repeat_n(c, if measuring { 4 } else { 1 })
        })
        .collect();
    (
        prop::sample::select(weighted),
        prop::option::weighted(0.2, command_line(0).prop_map(|v| v.into_iter().take(2).collect::<Vec<_>>())),
    )
        .prop_flat_map(|(c, global)| (Just(c), Just(global), command_line(c)))
        .prop_map(|(c, global, own)| {
            let mut v = vec![OsString::from("iolab")];
            v.extend(global.into_iter().flatten());
            v.push(OsString::from(&commands()[c].0));
            v.extend(own);
            v
        })
}

/// The configuration file the cases merge under their flags.
fn config() -> &'static crate::config::Config {
    static C: OnceLock<crate::config::Config> = OnceLock::new();
    C.get_or_init(|| {
        crate::config::Config::parse(
            "[defaults]\nsize = \"4GiB\"\nruns = 5\nduration = \"10s\"\nengine = \"psync\"\n[suites.mine]\njobs = [{ rw = \"read\", bs = \"1M\" }, { rw = \"randrw\", bs = \"4k\", qd = 32, threads = 4 }]\n[prices]\nx = 3\n",
            std::path::Path::new("/c.toml"),
        )
        .unwrap()
    })
}

/// Everything but the target's I/O.
fn exercise(argv: &[OsString]) {
    let m = match command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.render();
            return;
        }
    };
    let mut cli = match Cli::from_arg_matches(&m) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.render();
            return;
        }
    };
    cli.resolve_files();
    if cli.files.config.config.is_some() {
        let _ = settings::load(&cli);
    }
    let cfg = config();
    settings::apply(&mut cli, &m, cfg);
    if let Err(e) = settings::check_suite(&cli, Some(cfg)) {
        let _ = e.render();
    }
    let _ = settings::decimal_size_note(&m);
    let built = match &cli.cmd {
        Cmd::Run(a) => {
            let _ = a.hosts.list();
            Some(experiments::run(a, Some(cfg)))
        }
        Cmd::Job(a) => {
            let _ = a.hosts.list();
            Some(experiments::job(a))
        }
        Cmd::Scan(a) => Some(experiments::scan(a)),
        Cmd::Scale(a) => Some(experiments::scale(a)),
        Cmd::Time(a) => Some(experiments::time(a)),
        Cmd::Verify(a) => Some(experiments::verify(a)),
        Cmd::Flush(a) => Some(experiments::flush(a)),
        // Parsing and validation only: no store lookup, no backup directory.
        Cmd::Capacity(a) => Some(experiments::capacity(a, Vec::new(), std::env::temp_dir())),
        Cmd::Suites(_) => {
            let _ = deliver::suites(Some(cfg));
            None
        }
        Cmd::Import(a) => {
            let _ = stored::import(Path::new(":memory:"), &a.file, a.label.as_deref(), &a.tag);
            None
        }
        Cmd::List(a) => {
            let st = memory_store();
            let _ = st.list(&a.filter());
            None
        }
        Cmd::Show(a) => {
            let _ = memory_store().load(a.id);
            None
        }
        Cmd::Compare(a) => {
            let mut st = memory_store();
            for &(id, price) in &a.price {
                let _ = st.set_price(id, price);
            }
            for &(id, bytes) in &a.capacity {
                let _ = st.set_capacity(id, bytes);
            }
            if let Ok((_, c)) = stored::comparison(&mut Delivery::default(), &st, &a.ids, a.baseline, Some(cfg)) {
                let _ = render::exporter(a.export.format, render::Style::default()).export(Document::Comparison(&c));
            }
            None
        }
        Cmd::Delete { id, .. } => {
            let _ = memory_store().delete(*id);
            None
        }
        Cmd::Label { id, text, .. } => {
            let _ = memory_store().set_label(*id, text);
            None
        }
        Cmd::Tag { id, tag, .. } => {
            let _ = memory_store().set_tag(*id, &tag.0, &tag.1);
            None
        }
        Cmd::Layouts(a) => {
            // The plan and its dry run are pure: a machine with every tool, not this one.
            use plan::layouts::{Capabilities, RunNames, TOOLS, Workload, ZfsImpl, dry_run, plan};
            let caps = Capabilities {
                tools: TOOLS.iter().map(|t| t.to_string()).collect(),
                zfs: Some(ZfsImpl::ZfsFuse),
                md: true,
                dm: true,
            };
            if let Ok(p) = plan(&experiments::layouts(a), &caps) {
                let _ = dry_run(
                    &p,
                    &caps,
                    Workload::default_suite(),
                    "sustained+default",
                    None,
                    &RunNames::under_run("p1"),
                );
            }
            None
        }
        Cmd::Report(_) | Cmd::Info(_) | Cmd::Selftest(_) | Cmd::Schema(_) | Cmd::Completions(_) | Cmd::Man(_) => None,
    };
    if let Some(Ok(exp)) = built
        && exp.validate().is_ok()
    {
        planned(&exp);
    }
}

/// What is derived from a valid plan before any I/O: the time it will take,
/// a scan's zones over a few spans, the fio job file.
fn planned(exp: &Experiment) {
    match exp {
        Experiment::Jobs(r) => {
            let _ = r.planned();
            for target in [
                plan::fio::FioTarget::Path {
                    filename: "/dev/x".into(),
                    size: r.target.size,
                },
                plan::fio::FioTarget::Directory {
                    dir: "/x".into(),
                    size: r.target.size.unwrap_or(crate::targets::DEFAULT_TEST_FILE),
                },
            ] {
                let _ = plan::fio::job_file(&r.jobs, &r.repeat, &target);
            }
        }
        Experiment::Scan(r) => {
            for span in [0, 4096, 1 << 30, u64::MAX] {
                let _ = r.plan(span);
            }
        }
        Experiment::Scale(r) => {
            let _ = r.effective_plan();
        }
        _ => {}
    }
}

/// A store with two runs (ids 1 and 2) from the fixtures.
fn memory_store() -> Store {
    let mut st = Store::open(Path::new(":memory:")).unwrap();
    for name in ["demo.json", "demoB.json"] {
        let text = std::fs::read_to_string(format!("{}/tests/fixtures/render/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let r = crate::import::parse_iolab_json(&text).unwrap();
        st.save(&r, None, &[], true).unwrap();
    }
    st
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn issue_16_random_argument_vectors_never_panic(argv in argv()) {
        exercise(&argv);
    }
}

/// The argument vectors that broke iolab once, each named for its panic.
#[test]
fn issue_16_argv_regressions() {
    for argv in [
        // A humantime duration beyond Instant's range (overflowed the planned time).
        &["iolab", "job", ".", "--duration", "5000000000000000000s 1ns"][..],
        &["iolab", "run", ".", "--interval", "5000000000000000000s 1ns", "--runs", "1000"],
        &["iolab", "import", "/dev/zero"],
        &["iolab", "--config", "/dev/zero", "list"],
        &["iolab", "run", ".", "--hosts-file", "/dev/zero"],
    ] {
        exercise(&argv.iter().map(OsString::from).collect::<Vec<_>>());
    }
}
