//! One convention for machine output: `--format table|json|csv|markdown`
//! and `-o PATH` on every command that prints a result, `--json` as its
//! alias, `--quiet`, and formats with no view of a document refused.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::{iolab, json_out};

struct Env {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new().prefix("iolab-output-").tempdir_in("/dev/shm").unwrap();
        let target = dir.path().join("t");
        std::fs::create_dir(&target).unwrap();
        Env { dir, target }
    }
    fn cmd(&self) -> Command {
        let mut c = iolab();
        c.env("IOLAB_DB", self.dir.path().join("results.db"));
        c
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// The demo suite, quickly, on the tmpfs target; extra flags appended.
    fn run(&self, extra: &[&str]) -> Output {
        let mut c = self.cmd();
        c.arg("run").arg(&self.target).args(["--suite", "demo", "--size", "16MiB"]);
        c.args(["--runs", "2", "--duration", "200ms", "--warmup", "0s", "--interval", "0s"]);
        c.args(extra).output().unwrap()
    }
    /// `iolab ARGS`, which must succeed.
    fn ok(&self, args: &[&str]) -> Output {
        let out = self.cmd().args(args).output().unwrap();
        assert!(out.status.success(), "iolab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// CSV parsed by Python's csv module into a list of rows (dicts).
fn parse_csv(text: &str) -> Vec<Value> {
    let mut py = Command::new("python3")
        .args([
            "-c",
            "import csv,sys,json; json.dump(list(csv.DictReader(sys.stdin, strict=True)), sys.stdout)",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    py.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "python's csv module rejects:\n{text}");
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

/// The stored run's id, from a run that printed nothing on stdout.
fn stored_id(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let at = err.find("stored as run ").expect("the run was stored") + "stored as run ".len();
    err[at..].split_whitespace().next().unwrap().to_string()
}

#[test]
fn show_in_every_format_gives_the_same_figures() {
    let e = Env::new();
    let md = e.path("run.md");
    let out = e.run(&["--format", "markdown", "-o", md.to_str().unwrap()]);
    let id = stored_id(&out);
    assert_eq!(stdout(&out), "", "-o FILE leaves stdout empty");
    let written = std::fs::read_to_string(&md).unwrap();
    assert!(written.starts_with("| Test | Direction | MB/s |"), "{written}");

    let doc = json_out(&e.ok(&["show", &id, "--format", "json"]));
    assert_eq!(doc, json_out(&e.ok(&["show", &id, "--json"])), "--json is --format json");
    let rows = parse_csv(&stdout(&e.ok(&["show", &id, "--format", "csv"])));
    let mut expected = Vec::new();
    for j in doc["jobs"].as_array().unwrap() {
        for dir in ["read", "write"] {
            if j[dir].is_object() {
                expected.push((j["name"].as_str().unwrap().to_string(), dir, &j[dir]));
            }
        }
    }
    assert_eq!(rows.len(), expected.len(), "one row per job and direction: {rows:?}");
    for (row, (name, dir, d)) in rows.iter().zip(&expected) {
        assert_eq!(row["test"], name.as_str());
        assert_eq!(row["direction"], *dir);
        let num = |k: &str| row[k].as_str().unwrap().parse::<f64>().unwrap();
        assert_eq!(num("bw_bytes_per_s"), d["bw_bytes"].as_f64().unwrap(), "{name} {dir}");
        assert_eq!(num("iops"), d["iops"].as_f64().unwrap(), "{name} {dir}");
        assert_eq!(num("p99_latency_ns"), d["lat_ns"]["p99"].as_f64().unwrap());
        assert_eq!(num("bw_min_bytes_per_s"), d["bw_min"].as_f64().unwrap());
    }

    // Markdown: a header, a separator of the same width, rows of the same width.
    let md = stdout(&e.ok(&["show", &id, "--format", "markdown"]));
    assert_eq!(md, written, "show gives what the run wrote");
    let table: Vec<&str> = md.lines().take_while(|l| l.starts_with('|')).collect();
    assert_eq!(table.len(), 2 + expected.len(), "{md}");
    let cells = |l: &str| l.trim_matches('|').split(" | ").count();
    assert!(table.iter().all(|l| l.ends_with('|') && cells(l) == cells(table[0])), "{md}");
    assert!(
        table[1]
            .split('|')
            .filter(|c| !c.is_empty())
            .all(|c| c.trim().trim_matches(':').chars().all(|x| x == '-'))
    );
    for (line, (name, _, d)) in table[2..].iter().zip(&expected) {
        let mbs = format!("{:.2}", d["bw_bytes"].as_f64().unwrap() / 1e6);
        assert!(
            line.starts_with(&format!("| {name} |")) && line.contains(&format!("| {mbs} |")),
            "{line}"
        );
    }
    assert!(md.contains("MB/s = 10^6 bytes/s"), "{md}");
}

#[test]
fn json_alias_keeps_working() {
    let e = Env::new();
    let json = e.path("r.json");
    let out = e.run(&["--json", json.to_str().unwrap()]);
    assert!(stdout(&out).contains("Read MB/s"), "--json PATH still prints the table");
    let file: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let printed = json_out(&e.run(&["--json", "-"]));
    assert_eq!(file["settings"], printed["settings"]);
    assert!(json_out(&e.ok(&["list", "--json"])).as_array().unwrap().len() == 2);
    assert_eq!(json_out(&e.ok(&["list", "--format", "json"])), json_out(&e.ok(&["list", "--json"])));
    let info = json_out(&e.ok(&["info", e.target.to_str().unwrap(), "--json"]));
    assert!(info.is_object());
    // --json and --format together are refused.
    let both = e.cmd().args(["list", "--json", "--format", "csv"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2));
}

/// Issue 39: `--json PATH` writes the JSON document to PATH and the table
/// still to stdout, on info, show, list and compare as on the measuring
/// commands; `--json -` (or a bare `--json`, last) writes it alone to stdout.
#[test]
fn json_path_means_the_same_on_every_command() {
    let e = Env::new();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render");
    for f in ["demo.json", "demoB.json"] {
        e.ok(&["import", fixtures.join(f).to_str().unwrap()]);
    }
    let read = |p: &PathBuf| -> Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    // Each command: its table on stdout, its document in the file, both as
    // the command alone and with --format json would write them.
    let target = e.target.to_str().unwrap();
    for (name, args) in [
        ("info", vec!["info", target]),
        ("show", vec!["show", "1"]),
        ("compare", vec!["compare", "1", "2"]),
        ("list", vec!["list"]),
    ] {
        let file = e.path(&format!("{name}.json"));
        let out = e.ok(&[&args[..], &["--json", file.to_str().unwrap()]].concat());
        assert_eq!(stdout(&out), stdout(&e.ok(&args)), "{name} --json FILE: the table on stdout");
        assert_eq!(
            read(&file),
            json_out(&e.ok(&[&args[..], &["--format", "json"]].concat())),
            "{name} --json FILE: the document in FILE"
        );
        let alone = json_out(&e.ok(&[&args[..], &["--json", "-"]].concat()));
        assert_eq!(alone, read(&file), "{name} --json -");
        assert_eq!(json_out(&e.ok(&[&args[..], &["--json"]].concat())), alone, "{name} --json");
    }
    assert_eq!(json_out(&e.ok(&["list", "--json", "-"])).as_array().unwrap().len(), 2);
    // A file in a directory that does not exist is refused before anything
    // is written, as on the measuring commands.
    let bad = e.cmd().args(["show", "1", "--json", "/nonexistent/dir/r.json"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stdout(&bad).is_empty());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("cannot write JSON to /nonexistent/dir/r.json: its directory does not exist"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

#[test]
fn list_and_info_in_every_format() {
    let e = Env::new();
    let id = stored_id(&e.run(&["--label", "a, \"quoted\" label", "--tag", "bus=virtio"]));
    let rows = parse_csv(&stdout(&e.ok(&["list", "--format", "csv"])));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["id"], id.as_str());
    assert_eq!(rows[0]["label"], "a, \"quoted\" label");
    assert_eq!(rows[0]["tags"], "bus=virtio");
    assert_eq!(rows[0]["complete"], "true");
    let md = stdout(&e.ok(&["list", "--format", "markdown"]));
    assert!(
        md.starts_with("| ID | Started (UTC) |") && md.contains(&format!("| {id} |")),
        "{md}"
    );

    let target = e.target.to_str().unwrap();
    let info = json_out(&e.ok(&["info", target, "--format", "json"]));
    let rows = parse_csv(&stdout(&e.ok(&["info", target, "--format", "csv"])));
    let devices = info["devices"].as_array().unwrap();
    assert_eq!(rows.len(), devices.len().max(1), "a row per physical device: {rows:?}");
    for (row, d) in rows.iter().zip(devices) {
        assert_eq!(row["device"], d["name"]);
        assert_eq!(row["size_bytes"], d["size_bytes"].to_string().as_str());
    }
    let md = stdout(&e.ok(&["info", target, "--format", "markdown"]));
    assert!(md.starts_with("| | |\n|---|---|\n| Target | `"), "the target's facts first: {md}");
    // -o - is stdout; -o FILE leaves stdout empty.
    let list = e.ok(&["list", "-o", "-", "--format", "json"]);
    assert_eq!(json_out(&list).as_array().unwrap().len(), 1);
    let file = e.path("info.md");
    let to_file = e.ok(&["info", target, "--format", "markdown", "-o", file.to_str().unwrap()]);
    assert_eq!(stdout(&to_file), "");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), md);
}

#[test]
fn units_change_the_table_not_the_documents() {
    let e = Env::new();
    let out = e.run(&["--units", "gb"]);
    let text = stdout(&out);
    assert!(text.contains("Read GB/s") && text.contains("GB/s = 10^9 bytes/s."), "{text}");
    let id = stored_id(&out);
    let mib = stdout(&e.ok(&["show", &id, "--units", "mib"]));
    assert!(mib.contains("Read MiB/s") && mib.contains("MiB/s = 2^20 bytes/s."), "{mib}");
    assert!(!mib.contains('\x1b'), "no colour in a pipe");
}

#[test]
fn quiet_scan_prints_no_zone_lines() {
    let e = Env::new();
    let scan = |extra: &[&str]| {
        let mut c = e.cmd();
        c.arg("scan")
            .arg(&e.target)
            .args(["--size", "16MiB", "--zones", "4", "--window", "1MiB"]);
        c.args(["--access", "0", "--no-burst", "--zone-warmup", "0s", "--no-store"]);
        let out = c.args(extra).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let loud = scan(&[]);
    assert!(String::from_utf8_lossy(&loud.stderr).contains("zone 1/4"));
    // --units reaches the live lines and the chart too.
    let mib = scan(&["--units", "mib"]);
    let err = String::from_utf8_lossy(&mib.stderr);
    assert!(
        err.lines().filter(|l| l.starts_with("zone ")).all(|l| l.contains(" MiB/s │")),
        "{err}"
    );
    let text = stdout(&mib);
    // (Warnings keep the MB/s they were judged in: they are stored text.)
    let figures = text.lines().filter(|l| !l.starts_with("warning") && !l.starts_with("  "));
    assert!(text.contains("MiB/s against position"), "{text}");
    assert!(figures.clone().all(|l| !l.contains(" MB/s")), "{text}");
    let quiet = scan(&["--quiet"]);
    let err = String::from_utf8_lossy(&quiet.stderr);
    assert!(!err.contains("zone "), "{err}");
    assert!(stdout(&quiet).contains("Surface scan"), "the result is still printed");
}
