use super::*;

const GOOD: &str = r#"
[defaults]
size = "4GiB"
runs = 5
duration = "1m30s"
warmup = "0"
interval = "500ms"
engine = "psync"
db = "/var/lib/iolab.db"

[suites.our-nightly]
description = "what the lab runs every night"
jobs = [
  { rw = "read", bs = "1M", qd = 8 },
  { rw = "randread", bs = "4k", qd = 32, threads = 4 },
  { rw = "randwrite", bs = "4k", qd = 1, name = "RND4K Q1T1 write" },
]

[suites.aaa]
jobs = [{ rw = "randrw", bs = 4096, mix_read = 50 }]
"#;

fn parse(text: &str) -> Result<Config> {
    Config::parse(text, Path::new("/etc/x/config.toml"))
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn runs_interval_and_latency_take_auto_and_modes() {
    let c = parse("[defaults]\nruns = \"auto:20\"\ninterval = \"auto\"\nlatency = \"batch=8\"\n").unwrap();
    assert_eq!(c.defaults.runs, Some(crate::plan::Runs::Auto { max: 20 }));
    assert_eq!(c.defaults.interval, Some(crate::plan::Interval::Auto));
    assert_eq!(c.defaults.latency, Some(crate::plan::Timing::Batch(Some(8))));
    let e = err("[defaults]\nlatency = \"sometimes\"\n");
    assert!(
        e.contains("2:11: latency in [defaults]: \"sometimes\" is not a latency mode: exact, batch, batch=N or off"),
        "{e}"
    );
}

#[test]
fn good_file() {
    let c = parse(GOOD).unwrap();
    assert_eq!(
        c.defaults,
        Defaults {
            size: Some(4 << 30),
            runs: Some(crate::plan::Runs::Fixed(5)),
            duration: Some(Duration::from_secs(90)),
            warmup: Some(Duration::ZERO),
            interval: Some(crate::plan::Interval::Fixed(Duration::from_millis(500))),
            latency: None,
            db: Some(PathBuf::from("/var/lib/iolab.db")),
            engine: Some(EngineKind::Psync),
        }
    );
    let names: Vec<&str> = c.suites.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["our-nightly", "aaa"], "the file's order");
    let s = c.suite("our-nightly").unwrap();
    assert_eq!(s.description, "what the lab runs every night");
    assert_eq!(s.jobs.len(), 3);
    assert_eq!(c.suite("aaa").unwrap().jobs[0].bs, 4096);
}

#[test]
fn empty_file_is_no_settings() {
    let c = parse("").unwrap();
    assert_eq!(c.defaults, Defaults::default());
    assert!(c.suites.is_empty());
}

#[test]
fn user_suite_to_jobs() {
    let c = parse(GOOD).unwrap();
    let common = Common {
        limit: Limit::Time(Duration::from_millis(200)),
        span: 16 << 20,
        direct: false,
        engine: EngineKind::Psync,
        mix_read: 70,
        timing: crate::plan::Timing::Off,
        transfers: Vec::new(),
    };
    let jobs = c.suite("our-nightly").unwrap().jobs(&common);
    let got: Vec<(&str, Rw, u64, u32, u32)> = jobs.iter().map(|j| (j.name.as_str(), j.rw, j.bs, j.qd, j.threads)).collect();
    assert_eq!(
        got,
        [
            ("read 1M Q8T1", Rw::Read, 1 << 20, 8, 1),
            ("randread 4K Q32T4", Rw::Randread, 4096, 32, 4),
            ("RND4K Q1T1 write", Rw::Randwrite, 4096, 1, 1),
        ]
    );
    assert!(
        jobs.iter()
            .all(|j| j.limit == common.limit && !j.direct && j.engine == EngineKind::Psync && j.span == 16 << 20)
    );
    assert_eq!(jobs[0].mix_read, 70);
    assert_eq!(c.suite("aaa").unwrap().jobs(&common)[0].mix_read, 50);
}

/// Issue 12: the documentation's example file (docs/run.md since issue
/// 24) is a good file.
#[test]
fn issue_12_readme_example_file_parses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/run.md")).unwrap();
    let start = readme.find("```toml\n").expect("a TOML example") + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let c = parse(&readme[start..end]).unwrap();
    assert_eq!(c.suite("our-nightly").unwrap().jobs.len(), 3);
    assert_eq!(c.prices.len(), 2);
}

#[test]
fn price_list() {
    let c = parse("[prices]\n\"Samsung SSD 870 EVO 1TB\" = 59.99\nstick = { price = 12, capacity = \"128GB\" }\nb = 3\n").unwrap();
    let got: Vec<(&str, f64, Option<u64>)> = c.prices.iter().map(|p| (p.key.as_str(), p.price, p.capacity_bytes)).collect();
    assert_eq!(
        got,
        [
            ("Samsung SSD 870 EVO 1TB", 59.99, None),
            ("stick", 12.0, Some(128_000_000_000)),
            ("b", 3.0, None)
        ],
        "the file's order"
    );
    let e = err("[prices]\na = 1\nb = -2\n");
    assert!(
        e.starts_with("/etc/x/config.toml:3:5: in [prices]: the price of \"b\" must be positive"),
        "{e}"
    );
    let e = err("[prices]\na = \"cheap\"\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:5: a in [prices]: ") && e.contains("a price such as 59.99"),
        "{e}"
    );
    let e = err("[prices]\na = { price = 3, capacity = \"big\" }\n");
    assert!(e.starts_with("/etc/x/config.toml:2:5:"), "{e}");
}

#[test]
fn bad_toml() {
    let e = err("[defaults]\nsize = \"4GiB\nruns = 3\n");
    assert!(e.starts_with("/etc/x/config.toml:2:"), "{e}");
}

#[test]
fn unknown_key() {
    let e = err("[defaults]\nruns = 3\nsze = \"1G\"\n");
    assert!(
        e.starts_with("/etc/x/config.toml:3:1: unknown field `sze` in [defaults], expected"),
        "{e}"
    );
    assert!(e.contains("size"), "{e}");
    let e = err("[suites.x]\njobs = [\n  { rw = \"read\", bs = \"1M\", depth = 8 },\n]\n");
    assert!(
        e.starts_with("/etc/x/config.toml:3:29: unknown field `depth` in [suites.x], expected one of `name`, `rw`"),
        "{e}"
    );
    let e = err("[price]\nx = 1\n");
    assert!(
        e.starts_with("/etc/x/config.toml:1:2: unknown field `price` at the top level"),
        "{e}"
    );
    // Issue 36: after another table, a misspelled table is still the top
    // level's (it was reported "in [suites.ny]", the table before it).
    let e = err("[suites.ny]\njobs = [{ rw = \"read\", bs = \"4k\" }]\n\n[price]\nx = 1\n");
    assert!(
        e.starts_with("/etc/x/config.toml:4:2: unknown field `price` at the top level, expected"),
        "{e}"
    );
    assert!(!e.contains("suites.ny"), "{e}");
    // A misspelled table inside another is its parent's.
    let e = err("[defaults]\nruns = 2\n\n[suites.x.jobz]\nrw = \"read\"\n");
    assert!(!e.contains("in [defaults]"), "{e}");
}

#[test]
fn wrong_type() {
    let e = err("[defaults]\nruns = \"five\"\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:8: runs in [defaults]: 'five' is not a whole number"),
        "{e}"
    );
    let e = err("[defaults]\nsize = true\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:8: size in [defaults]: invalid type: boolean `true`, expected a size"),
        "{e}"
    );
    let e = err("[suites.x]\ndescription = 3\njobs = [{ rw = \"read\", bs = \"4k\" }]\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:15: description in [suites.x]: invalid type: integer `3`, expected a string"),
        "{e}"
    );
    let e = err("[defaults]\nengine = \"spdk\"\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:10: engine in [defaults]: unknown variant `spdk`"),
        "{e}"
    );
}

#[test]
fn bad_values() {
    let e = err("[defaults]\nsize = \"4q\"\n");
    assert!(
        e.starts_with("/etc/x/config.toml:2:8: size in [defaults]: invalid size unit 'q'"),
        "{e}"
    );
    let e = err("[defaults]\nduration = \"0s\"\n");
    assert!(e.contains("2:12: duration in [defaults]: duration must be greater than 0"), "{e}");
    let e = err("[defaults]\nruns = 0\n");
    assert!(e.contains("2:8: runs in [defaults]: runs must be between 1 and 1000, got 0"), "{e}");
    let e = err("[suites.x]\njobs = [{ rw = \"read\", bs = \"1000\" }]\n");
    assert!(
        e.contains("2:29: bs in [suites.x]: block size must be a multiple of 512 bytes, got 1000"),
        "{e}"
    );
}

#[test]
fn invalid_job() {
    let e = err("[suites.x]\njobs = [\n  { rw = \"read\", bs = \"1M\" },\n  { rw = \"read\", bs = \"4k\", qd = 0 },\n]\n");
    assert_eq!(
        e,
        "/etc/x/config.toml:4:3: in [suites.x]: job read 4K Q0T1: queue depth must be between 1 and 4096, got 0"
    );
    let e = err("[suites.x]\njobs = [{ rw = \"read\", bs = \"4k\", threads = 300, name = \"big\" }]\n");
    assert!(
        e.ends_with("in [suites.x]: job big: threads must be between 1 and 256, got 300"),
        "{e}"
    );
    let e = err("[suites.x]\njobs = []\n");
    assert!(e.contains("suite x has no jobs"), "{e}");
    let e = err("[suites.nvme]\njobs = [{ rw = \"read\", bs = \"4k\" }]\n");
    assert!(e.contains("suite nvme is a built-in suite"), "{e}");
}

#[test]
fn default_path() {
    let env = |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| OsString::from(p.1));
    assert_eq!(
        default_path_from(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
        Some(PathBuf::from("/x/iolab/config.toml"))
    );
    assert_eq!(
        default_path_from(env(&[("XDG_CONFIG_HOME", ""), ("HOME", "/h")])),
        Some(PathBuf::from("/h/.config/iolab/config.toml"))
    );
    assert_eq!(default_path_from(env(&[])), None);
}

/// Hostile values for a key of the file.
const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1e308",
    "-1e308",
    "1e400",
    "nan",
    "+nan",
    "-nan",
    "inf",
    "+inf",
    "-inf",
    "0.5",
    "-0.0",
    "0x7fffffffffffffff",
    "0o777",
    "0b1",
    "1_000",
    "true",
    "1979-05-27T07:32:00Z",
    "07:32:00",
    "\"\"",
    "\"0\"",
    "\"-1s\"",
    "\"1e400\"",
    "\"18446744073709551616\"",
    "\"99999999999999T\"",
    "\"5000000000000000000s 1ns\"",
    "\"NaN\"",
    "\"inf\"",
    "\"4q\"",
    "\"~/\"",
    "\"\\u0000\"",
    "'''\nx'''",
    "[]",
    "[1, \"a\"]",
    "{}",
    "{ price = nan }",
    "{ price = 1, capacity = \"0\" }",
    "{ price = 1, capacity = -1 }",
    "[{ rw = \"read\", bs = \"4k\", qd = 4294967296 }]",
    "[{ rw = \"randrw\", bs = \"4k\", mix_read = 255 }]",
    "[{ rw = \"randrw\", bs = \"4k\", mix_read = 256 }]",
    "[{ rw = \"write\", bs = 0 }]",
    "[{ rw = \"write\", bs = 67109376 }]",
];

/// Text to splice into a file: a hostile value, a key, a header, a
/// duplicate, deep nesting.
fn splice() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        4 => proptest::sample::select(HOSTILE).prop_map(str::to_string),
        1 => proptest::sample::select(&["\n[defaults]\n", "\n[suites.x]\n", "\n[prices]\n", "\n[[suites]]\n", "\nruns = 3\n", "\n[defaults]\nruns = 1\nruns = 2\n", "=", "\"", "[", "]", "{", "}", ",", "\n", "#"][..]).prop_map(str::to_string),
        1 => (prop_oneof![Just(129usize), Just(10_000), 1usize..200], any::<bool>()).prop_map(|(d, arrays)| {
            if arrays { format!("{}1{}", "[".repeat(d), "]".repeat(d)) } else { format!("{}1{}", "{ a = ".repeat(d), " }".repeat(d)) }
        }),
        1 => ".{0,12}",
    ]
}

/// What to do to a good file: put `text` after the `=` of a line, in
/// place of the line, or at a byte; or cut the file at a byte.
#[derive(Clone, Debug)]
enum Edit {
    Value(proptest::sample::Index, String),
    Line(proptest::sample::Index, String),
    Insert(proptest::sample::Index, String),
    Truncate(proptest::sample::Index),
}

fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
    use proptest::prelude::*;
    prop_oneof![
        4 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Value(i, t)),
        1 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Line(i, t)),
        1 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Insert(i, t)),
        1 => any::<proptest::sample::Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, e: &Edit) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let floor = |s: &str, mut i: usize| {
        i = i.min(s.len());
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match e {
        Edit::Value(i, t) if !lines.is_empty() => {
            let n = i.index(lines.len());
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            if let Some(eq) = out[n].find('=') {
                out[n] = format!("{}= {t}\n", &out[n][..eq]);
            }
            out.concat()
        }
        Edit::Line(i, t) if !lines.is_empty() => {
            let n = i.index(lines.len());
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[n] = format!("{t}\n");
            out.concat()
        }
        Edit::Insert(i, t) => {
            let at = floor(text, i.index(text.len() + 1));
            format!("{}{t}{}", &text[..at], &text[at..])
        }
        Edit::Truncate(i) => text[..floor(text, i.index(text.len() + 1))].to_string(),
        _ => text.to_string(),
    }
}

/// The good files: this module's, the documentation's example
/// (docs/run.md), prices.
fn good_files() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/run.md")).unwrap();
    let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    vec![
        GOOD.to_string(),
        readme[start..end].to_string(),
        "[prices]\n\"Samsung SSD 870 EVO 1TB\" = 59.99\nstick = { price = 12, capacity = \"128GB\" }\n".to_string(),
    ]
}

proptest::proptest! {
    #![proptest_config(crate::base::testknob::proptest_config())]

    /// Issue 16: a configuration file mutated every way (wrong types,
    /// huge, negative and non-finite numbers, broken syntax, duplicate
    /// keys and tables, deep nesting, truncation) is read or refused
    /// with a located message; it never panics.
    #[test]
    fn issue_16_mutated_config_files_never_panic(
        which in 0usize..3,
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let mut text = good_files()[which].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        match parse(&text) {
            Ok(c) => {
                // What the commands do with it.
                for s in &c.suites {
                    for spec in s.jobs(&check_common()) {
                        proptest::prop_assert!(spec.validate().is_ok());
                    }
                }
                let _ = crate::deliver::suites(Some(&c));
            }
            Err(e) => {
                let e = e.to_string();
                proptest::prop_assert!(e.starts_with("/etc/x/config.toml:"), "{}", e);
            }
        }
    }
}

/// Issue 16: 10,000 nested arrays or inline tables are an error (the
/// TOML parser's recursion limit), not a stack overflow.
#[test]
fn issue_16_deeply_nested_config_is_an_error() {
    for v in [
        format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
        format!("{}1{}", "{ a = ".repeat(10_000), " }".repeat(10_000)),
    ] {
        for text in [
            format!("[defaults]\nruns = {v}\n"),
            format!("[suites.x]\njobs = {v}\n"),
            format!("x = {v}\n"),
        ] {
            let e = err(&text);
            assert!(e.starts_with("/etc/x/config.toml:"), "{e}");
        }
    }
    let deep_header = format!("[{}]\n", vec!["a"; 10_000].join("."));
    assert!(err(&deep_header).starts_with("/etc/x/config.toml:"));
}

#[test]
fn db_paths() {
    let c = Config::parse("[defaults]\ndb = \"runs.db\"\n", Path::new("/etc/iolab/config.toml")).unwrap();
    assert_eq!(c.defaults.db, Some(PathBuf::from("/etc/iolab/runs.db")));
}
