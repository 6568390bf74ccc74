//! The results store: round trip, migrations, concurrent writers, a crash
//! during a save, interrupted runs, listing and filters.

use iolab::store::{self, Store};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{iolab, json_out};

struct Env {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new().prefix("iolab-store-").tempdir_in("/dev/shm").unwrap();
        let target = dir.path().join("t");
        std::fs::create_dir(&target).unwrap();
        Env { dir, target }
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("store/results.db")
    }
    fn cmd(&self) -> Command {
        let mut c = iolab();
        c.env("IOLAB_DB", self.db());
        c
    }
    /// A short job on the tmpfs target; extra flags appended.
    fn job(&self, extra: &[&str]) -> Command {
        let mut c = self.cmd();
        c.arg("job")
            .arg(&self.target)
            .args(["--rw", "randrw", "--size", "8MiB", "--duration", "200ms"]);
        c.args(["--runs", "2", "--warmup", "0s", "--interval", "0s"]).args(extra);
        c
    }
}

#[test]
fn run_then_show_gives_the_same_document() {
    let e = Env::new();
    let out = e
        .job(&["--label", "tmpfs baseline", "--tag", "fs=tmpfs", "--json", "-"])
        .output()
        .unwrap();
    let printed = json_out(&out);
    let id = printed["run_id"].as_i64().expect("the printed document carries run_id");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("stored as run {id}")));
    let shown = json_out(&e.cmd().args(["show", &id.to_string(), "--json"]).output().unwrap());
    assert_eq!(shown, printed);
    // The terminal view shows the label and the same table.
    let view = e.cmd().args(["show", &id.to_string()]).output().unwrap();
    let text = String::from_utf8_lossy(&view.stdout);
    assert!(
        text.contains("tmpfs baseline") && text.contains("fs=tmpfs") && text.contains("randrw 4K Q1T1"),
        "{text}"
    );
}

#[test]
fn list_label_tag_delete() {
    let e = Env::new();
    assert!(
        e.job(&["--label", "usb stick", "--tag", "bus=usb"])
            .output()
            .unwrap()
            .status
            .success()
    );
    assert!(e.job(&["--tag", "bus=sata"]).output().unwrap().status.success());
    assert!(e.job(&["--no-store"]).output().unwrap().status.success());
    let all = json_out(&e.cmd().args(["list", "--json"]).output().unwrap());
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 2, "--no-store keeps nothing");
    for key in ["id", "label", "tags", "started_at", "kind", "target"] {
        assert!(all[0].get(key).is_some(), "list --json lacks {key}");
    }
    assert_eq!(all[0]["tags"]["bus"], "usb");
    assert_eq!(all[0]["kind"], "job");
    let usb = json_out(&e.cmd().args(["list", "--json", "--tag", "bus=usb"]).output().unwrap());
    assert_eq!(usb.as_array().unwrap().len(), 1);
    let id2 = all[1]["id"].as_i64().unwrap().to_string();
    assert!(e.cmd().args(["label", &id2, "SATA SSD"]).status().unwrap().success());
    assert!(e.cmd().args(["tag", &id2, "fs=ext4"]).status().unwrap().success());
    let by_label = json_out(&e.cmd().args(["list", "--json", "--label", "SATA"]).output().unwrap());
    assert_eq!(by_label[0]["tags"]["fs"], "ext4");
    assert!(e.cmd().args(["delete", &id2]).status().unwrap().success());
    assert_eq!(
        json_out(&e.cmd().args(["list", "--json"]).output().unwrap())
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let missing = e.cmd().args(["show", &id2]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no run"));
}

/// A store made by the first schema version opens, migrates, and keeps its runs.
#[test]
fn an_older_schema_is_migrated() {
    let e = Env::new();
    // A real document to put in the old store.
    let doc = json_out(&e.job(&["--no-store", "--json", "-"]).output().unwrap());
    std::fs::create_dir_all(e.db().parent().unwrap()).unwrap();
    {
        let c = rusqlite::Connection::open(e.db()).unwrap();
        c.execute_batch(store::MIGRATIONS[0]).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        c.execute(
            "INSERT INTO runs (started_at, saved_at, kind, target, label, complete, host, kernel, iolab_version, document)
             VALUES ('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'job', '/x', 'old run', 1, 'h', 'k', '0.0.1', ?1)",
            [doc.to_string()],
        )
        .unwrap();
    }
    let s = Store::open(&e.db()).unwrap();
    assert_eq!(s.version().unwrap(), store::SCHEMA_VERSION);
    let runs = s.list(&store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].label.as_deref(), Some("old run"));
    assert_eq!(s.load(runs[0].id).unwrap().report.jobs().len(), 1);
    drop(s);
    // The new per-job table was filled from the old documents.
    let c = rusqlite::Connection::open(e.db()).unwrap();
    let n: i64 = c.query_row("SELECT COUNT(*) FROM jobs WHERE run_id = 1", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1);
    // A store newer than this iolab is refused, not damaged.
    c.pragma_update(None, "user_version", 99).unwrap();
    drop(c);
    let err = Store::open(&e.db()).err().expect("a newer schema is refused").to_string();
    assert!(err.contains("newer"), "{err}");
}

#[test]
fn concurrent_runs_are_all_saved() {
    let e = Env::new();
    let children: Vec<_> = (0..4)
        .map(|i| e.job(&["--label", &format!("writer {i}")]).stdout(Stdio::null()).spawn().unwrap())
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let s = Store::open(&e.db()).unwrap();
    let runs = s.list(&store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 4, "{runs:?}");
    let mut labels: Vec<_> = runs.iter().map(|r| r.label.clone().unwrap()).collect();
    labels.sort();
    assert_eq!(labels, ["writer 0", "writer 1", "writer 2", "writer 3"]);
    assert!(s.integrity_ok().unwrap());
}

/// Issue 27: four iolab processes at once, each storing 50 runs (an import
/// of a fio --client document of 50 hosts: a run per host, saved one after
/// another), into one store none of them has made yet: the file's creation,
/// the switch to WAL and the schema steps race too. Every run is kept whole
/// and loads, the file is sound, and no process met a locked store.
#[test]
fn four_processes_storing_50_runs_each_lose_nothing() {
    let e = Env::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/client-3hosts.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let one = |list: &str| doc[list].as_array().unwrap()[0].clone();
    let (stat, disk) = (one("client_stats"), one("disk_util"));
    let host = |i: usize| format!("10.0.0.{i}");
    let with_host = |v: &Value, i: usize| {
        let mut v = v.clone();
        v["hostname"] = host(i).into();
        v
    };
    doc["client_stats"] = (0..50).map(|i| with_host(&stat, i)).collect();
    doc["disk_util"] = (0..50).map(|i| with_host(&disk, i)).collect();
    let file = e.dir.path().join("client-50hosts.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let t = Instant::now();
    let children: Vec<_> = (0..4)
        .map(|w| {
            e.cmd()
                .arg("import")
                .arg(&file)
                .args(["--label", &format!("writer {w}")])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = Vec::new();
    for (w, c) in children.into_iter().enumerate() {
        let out = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "writer {w}: {err}");
        let lower = err.to_lowercase();
        assert!(!lower.contains("locked") && !lower.contains("busy"), "writer {w}: {err}");
        let stored: Vec<i64> = err
            .lines()
            .filter_map(|l| l.split("stored as run ").nth(1)?.split(' ').next()?.parse().ok())
            .collect();
        assert_eq!(stored.len(), 50, "writer {w}: {err}");
        ids.extend(stored);
    }
    let took = t.elapsed();
    ids.sort_unstable();
    assert_eq!(ids, (1..=200).collect::<Vec<i64>>(), "every save has its own id");
    let s = Store::open(&e.db()).unwrap();
    assert!(s.integrity_ok().unwrap());
    let runs = s.list(&store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 200);
    for w in 0..4 {
        let label = format!("writer {w}");
        let mine: Vec<_> = runs.iter().filter(|r| r.label.as_deref() == Some(label.as_str())).collect();
        assert_eq!(mine.len(), 50, "{label}");
        let mut hosts: Vec<String> = mine
            .iter()
            .map(|r| r.tags.iter().find(|t| t.0 == "host").unwrap().1.clone())
            .collect();
        hosts.sort();
        let mut want: Vec<String> = (0..50).map(host).collect();
        want.sort();
        assert_eq!(hosts, want, "{label}: a run per host, each once");
    }
    for r in &runs {
        assert!(r.complete, "run {}", r.id);
        let run = s.load(r.id).unwrap();
        assert_eq!(run.report.jobs().len(), 1, "run {}", r.id);
        assert!(run.report.jobs()[0].read.is_some(), "run {}", r.id);
    }
    eprintln!("4 processes x 50 saves: {took:?}");
}

/// Issue 36: eight processes at once, each importing a document of 200 runs
/// into one new store, 20 times over: 1,600 of 1,600 runs kept every time,
/// `PRAGMA integrity_check` ok, and no process met a locked store. (Before,
/// a new store's switch to WAL could fail at once with "database is locked",
/// said to be a 30 s wait: a process lost its runs.) Each process reads its
/// document from a pipe, written to all eight at once, so that they reach the
/// new store together. The document is fio's client output cut to what the
/// importer reads (60 KB for 200 hosts), so 20 trials take seconds.
#[test]
fn issue_36_eight_processes_importing_200_runs_each_keep_1600_of_1600_20_times() {
    const PROCESSES: usize = 8;
    const RUNS: usize = 200;
    const TRIALS: usize = 20;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/client-3hosts.json");
    let full: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let read = &full["client_stats"][0]["read"];
    let host = |i: usize| {
        serde_json::json!({
            "jobname": "seqread", "groupid": 0, "error": 0, "job_runtime": 3027, "usr_cpu": 0.16, "sys_cpu": 0.0,
            "read": {
                "io_bytes": read["io_bytes"], "bw_bytes": read["bw_bytes"], "iops": read["iops"],
                "runtime": read["runtime"], "total_ios": read["total_ios"],
                "clat_ns": {"min": 237693, "max": 125772307, "mean": 97600362.7, "N": 124}
            },
            "hostname": format!("10.0.{}.{}", i / 256, i % 256), "port": 8765
        })
    };
    let mut doc = serde_json::Map::new();
    for k in ["fio version", "timestamp", "time", "global options"] {
        doc.insert(k.into(), full[k].clone());
    }
    doc.insert("client_stats".into(), (0..RUNS).map(host).collect());
    let text = Value::Object(doc).to_string();
    let t = Instant::now();
    for trial in 1..=TRIALS {
        let e = Env::new();
        let mut children: Vec<_> = (0..PROCESSES)
            .map(|w| {
                e.cmd()
                    .args(["import", "/dev/stdin", "--label", &format!("writer {w}")])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // The start: every process is waiting on its pipe.
        for c in &mut children {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        let mut stored = 0;
        for (w, c) in children.into_iter().enumerate() {
            let out = c.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "trial {trial}, writer {w}: {err}");
            let lower = err.to_lowercase();
            assert!(
                !lower.contains("locked") && !lower.contains("busy"),
                "trial {trial}, writer {w}: {err}"
            );
            stored += err.matches("stored as run ").count();
        }
        assert_eq!(stored, PROCESSES * RUNS, "trial {trial}: runs said stored");
        let s = Store::open(&e.db()).unwrap();
        assert!(s.integrity_ok().unwrap(), "trial {trial}: integrity_check");
        let runs = s.list(&store::Filter::default()).unwrap();
        assert_eq!(runs.len(), PROCESSES * RUNS, "trial {trial}: runs kept");
        for w in 0..PROCESSES {
            let label = format!("writer {w}");
            let mine = runs.iter().filter(|r| r.label.as_deref() == Some(label.as_str())).count();
            assert_eq!(mine, RUNS, "trial {trial}: {label}");
        }
    }
    note!(
        "{TRIALS} trials of {PROCESSES} processes x {RUNS} runs: {:.1} s",
        t.elapsed().as_secs_f64()
    );
}

/// SIGKILL while the save transaction is open: the store stays readable and
/// holds no half-written run; the next save works.
#[test]
fn kill_during_save_leaves_no_half_written_run() {
    let e = Env::new();
    let mut child = e
        .job(&["--label", "doomed"])
        .env("IOLAB_TEST_SAVE_PAUSE_MS", "20000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until iolab says it is inside the transaction.
    let mut err = child.stderr.take().unwrap();
    let t = Instant::now();
    let mut seen = String::new();
    while !seen.contains("fault injection") {
        let mut buf = [0u8; 256];
        let n = std::io::Read::read(&mut err, &mut buf).unwrap();
        assert!(n > 0 && t.elapsed() < Duration::from_secs(30), "iolab ended before saving: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let s = Store::open(&e.db()).unwrap();
    assert!(s.integrity_ok().unwrap());
    assert!(s.list(&store::Filter::default()).unwrap().is_empty(), "a half-written run survived");
    drop(s);
    assert!(e.job(&["--label", "after"]).output().unwrap().status.success());
    let runs = Store::open(&e.db()).unwrap().list(&store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].label.as_deref(), Some("after"));
}

/// Interrupted after the first test: the finished part is stored, marked incomplete.
#[test]
fn an_interrupted_run_is_stored_as_incomplete() {
    let e = Env::new();
    let child = e
        .cmd()
        .arg("run")
        .arg(&e.target)
        .args([
            "--suite",
            "demo",
            "--size",
            "8MiB",
            "--duration",
            "1s",
            "--runs",
            "1",
            "--warmup",
            "0s",
            "--interval",
            "0s",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500)); // first test (1 s) done, second under way
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let s = Store::open(&e.db()).unwrap();
    let runs = s.list(&store::Filter::default()).unwrap();
    assert_eq!(runs.len(), 1);
    assert!(!runs[0].complete);
    let r = s.load(runs[0].id).unwrap().report;
    assert!(r.interrupted);
    assert_eq!(r.jobs().len(), 1, "only the finished test is kept");
}

#[test]
fn default_path_follows_iolab_db_then_xdg_then_home() {
    use std::ffi::OsString;
    let env =
        |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v));
    assert_eq!(
        store::default_path_from(env(&[("IOLAB_DB", "/x/r.db"), ("HOME", "/h")])),
        Path::new("/x/r.db")
    );
    assert_eq!(
        store::default_path_from(env(&[("XDG_DATA_HOME", "/d"), ("HOME", "/h")])),
        Path::new("/d/iolab/results.db")
    );
    assert_eq!(
        store::default_path_from(env(&[("HOME", "/h")])),
        Path::new("/h/.local/share/iolab/results.db")
    );
    assert_eq!(
        store::default_path_from(env(&[("IOLAB_DB", ""), ("HOME", "/h")])),
        Path::new("/h/.local/share/iolab/results.db")
    );
}

#[test]
fn import_fio_and_compare_from_the_command_line() {
    let e = Env::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/psync_note_prefix.txt");
    let out = e
        .cmd()
        .arg("import")
        .arg(&fixture)
        .args(["--label", "fio psync", "--tag", "tool=fio"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stored as run 1"));
    let listed = json_out(&e.cmd().args(["list", "--json"]).output().unwrap());
    assert_eq!(listed[0]["kind"], "import:fio");
    assert_eq!(listed[0]["tags"]["tool"], "fio");
    let bad = e.cmd().arg("import").arg(e.dir.path()).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "a directory is not fio output");

    // Two iolab runs of the same job: compare in every format.
    for label in ["first", "second"] {
        assert!(e.job(&["--label", label]).output().unwrap().status.success());
    }
    let c = json_out(
        &e.cmd()
            .args(["compare", "2", "3", "--format", "json", "--price", "3=59.99"])
            .output()
            .unwrap(),
    );
    assert_eq!(c["baseline"], 2);
    assert_eq!(c["runs"][1]["label"], "second");
    assert_eq!(c["runs"][1]["price"], 59.99);
    let tests = c["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2, "randrw gives a read and a write test: {c:#}");
    for t in tests {
        assert_eq!(t["values"].as_array().unwrap().len(), 2);
        assert_eq!(t["ratios"][0], 1.0);
        assert!(t["within_noise"].as_array().unwrap().len() == 2);
    }
    assert!(c["findings"].is_array());
    let md = e
        .cmd()
        .args(["compare", "2", "3", "--format", "markdown", "--baseline", "3"])
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.lines().nth(1).is_some_and(|l| l.starts_with("| ---")), "{md}");
    let csv = e.cmd().args(["compare", "2", "3", "--format", "csv"]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&csv.stdout).lines().count(),
        1 + 2 * 2,
        "header + tests x runs"
    );
    let one = e.cmd().args(["compare", "2"]).output().unwrap();
    assert_eq!(one.status.code(), Some(2), "compare needs two runs");
    let missing = e.cmd().args(["compare", "2", "99"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// The store and documents iolab 0.1.0 wrote before the redesign of issue 11
/// (made by `tests/fixtures/legacy/make.sh` with the binary of commit
/// d599a70): every run shows the same table and the same JSON document,
/// and the documents it wrote with `--json` load and print unchanged.
/// (`show-3.txt`, a scan of 8 zones, was re-rendered twice: issue 12 draws a
/// curve of few zones several columns per zone, and issue 24 words the
/// scan's figures as one list of facts, the same in every format;
/// `show-5.txt`, a `time` run, once more for issue 16: a Device column
/// names the device each run's figures are of; `show-4.txt`, a scale, for
/// issue 24: a verdict names what it judges as every format does,
/// "PATH, queue depth"; `show-6.txt`, a `files` suite, for issue 24: a
/// device figure not measured is an empty cell, as in every other terminal
/// table, not "–". Their figures are the same.)
#[test]
fn a_store_and_documents_of_iolab_0_1_0_load_with_the_same_figures() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/legacy/0.1.0");
    let e = Env::new();
    std::fs::create_dir_all(e.db().parent().unwrap()).unwrap();
    std::fs::copy(fx.join("results.db"), e.db()).unwrap();
    let mut shown = 0;
    for entry in std::fs::read_dir(&fx).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(id) = name.strip_prefix("show-").and_then(|n| n.strip_suffix(".txt")) else {
            continue;
        };
        let table = e.cmd().args(["show", id]).output().unwrap();
        assert!(table.status.success(), "show {id}: {}", String::from_utf8_lossy(&table.stderr));
        let want = std::fs::read_to_string(fx.join(&name)).unwrap();
        assert_eq!(String::from_utf8_lossy(&table.stdout), want, "run {id}'s table changed");
        let doc = json_out(&e.cmd().args(["show", id, "--json"]).output().unwrap());
        let want: Value = serde_json::from_str(&std::fs::read_to_string(fx.join(format!("show-{id}.json"))).unwrap()).unwrap();
        assert_eq!(doc, want, "run {id}'s document changed");
        shown += 1;
    }
    assert!(shown >= 8, "the fixture holds every kind of run ({shown} shown)");
    for doc in ["doc-1.json", "doc-3.json"] {
        let text = std::fs::read_to_string(fx.join(doc)).unwrap();
        let report: iolab::summary::Report = serde_json::from_str(&text).expect("a 0.1.0 document loads");
        let again = serde_json::to_value(&report).unwrap();
        assert_eq!(again, serde_json::from_str::<Value>(&text).unwrap(), "{doc} round-trips unchanged");
    }
}

/// `iolab import` of fio's client/server output (a real fio 3.33 capture of
/// three servers): one run per host, in the document's order, each tagged
/// `host=<hostname>` beside the user's tags; fio's "All clients" sum is not stored.
#[test]
fn import_a_fio_client_document_stores_a_run_per_host() {
    let e = Env::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/client-3hosts.json");
    let out = e
        .cmd()
        .arg("import")
        .arg(&fixture)
        .args(["--label", "three servers", "--tag", "tool=fio"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("a fio --client document of 3 hosts"), "{err}");
    let hosts = ["10.201.2.2", "10.201.1.2", "10.201.3.2"];
    for (i, h) in hosts.iter().enumerate() {
        assert!(
            err.contains(&format!("stored as run {} in", i + 1)) && err.contains(&format!("on {h}, tagged host={h}")),
            "{err}"
        );
    }
    let listed = json_out(&e.cmd().args(["list", "--json"]).output().unwrap());
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 3, "no run for the All clients sum");
    for (run, h) in listed.iter().zip(hosts) {
        assert_eq!(run["kind"], "import:fio");
        assert_eq!(run["label"], "three servers");
        assert_eq!(run["tags"]["host"], h);
        assert_eq!(run["tags"]["tool"], "fio");
    }
    let one = json_out(&e.cmd().args(["list", "--json", "--tag", "host=10.201.3.2"]).output().unwrap());
    assert_eq!(one.as_array().unwrap().len(), 1);
    let doc = json_out(&e.cmd().args(["show", "3", "--json"]).output().unwrap());
    assert_eq!(doc["host"]["hostname"], "10.201.3.2");
    assert_eq!(doc["target"]["path"], "/dev/loop2");
    let bw = doc["jobs"][0]["read"]["bw_bytes"].as_f64().unwrap();
    assert!((bw / (10u64 << 20) as f64 - 1.0).abs() < 0.03, "throttled to 10 MiB/s: {bw}");
}

/// `iolab import` of iolab's own document: a run exported with `show --json`
/// on one machine loads unchanged into another store (host, command and
/// start kept, a new run id), and compares with the original at ratio 1.0.
/// A document of a newer iolab, with fields this one does not know, loads too.
#[test]
fn import_an_iolab_document_from_another_store() {
    let a = Env::new();
    assert!(a.job(&["--label", "here"]).output().unwrap().status.success());
    let exported = a.cmd().args(["show", "1", "--json"]).output().unwrap();
    let original = json_out(&exported);
    let file = a.dir.path().join("run-1.json");
    std::fs::write(&file, &exported.stdout).unwrap();

    // Another machine's store.
    let b = Env::new();
    let out = b
        .cmd()
        .arg("import")
        .arg(&file)
        .args(["--label", "from a", "--tag", "site=a"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let want = format!(
        "stored as run 1 in {} (an iolab {} document from {})",
        b.db().display(),
        original["iolab_version"].as_str().unwrap(),
        original["host"]["hostname"].as_str().unwrap()
    );
    assert!(err.contains(&want), "{err}");
    let shown = json_out(&b.cmd().args(["show", "1", "--json"]).output().unwrap());
    assert_eq!(shown, original, "the document is kept as it is (run id 1 in both stores)");
    let listed = json_out(&b.cmd().args(["list", "--json"]).output().unwrap());
    assert_eq!((&listed[0]["label"], &listed[0]["tags"]["site"]), (&"from a".into(), &"a".into()));
    assert_eq!(listed[0]["kind"], original["command"]);
    assert_eq!(listed[0]["started_at"], original["started_at"]);

    // Back into the first store: it compares with the run it came from.
    let out = a.cmd().arg("import").arg(&file).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("stored as run 2"));
    let c = json_out(&a.cmd().args(["compare", "1", "2", "--format", "json"]).output().unwrap());
    let tests = c["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 2, "randrw: a read and a write test: {c:#}");
    for t in tests {
        assert_eq!(t["ratios"][0], 1.0);
        assert_eq!(t["ratios"][1], 1.0, "{t:#}");
    }

    // A newer iolab's document: unknown fields at every level are ignored.
    let mut newer = original.clone();
    newer["iolab_version"] = "9.0.0".into();
    newer["fleet"] = serde_json::json!({"hosts": 2});
    newer["jobs"][0]["queue_model"] = "zns".into();
    newer["jobs"][0]["read"]["lat_ns"]["p99_999"] = 1.into();
    let file = a.dir.path().join("newer.json");
    std::fs::write(&file, serde_json::to_string_pretty(&newer).unwrap()).unwrap();
    let out = b.cmd().arg("import").arg(&file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("stored as run 2") && err.contains("(an iolab 9.0.0 document from"),
        "{err}"
    );
    let shown = json_out(&b.cmd().args(["show", "2", "--json"]).output().unwrap());
    assert_eq!(shown["jobs"][0]["read"], original["jobs"][0]["read"]);
    assert!(shown.get("fleet").is_none(), "unknown fields are not kept");
}
