//! The JSON documents against their schemas, with a real validator:
//! Debian's python3-jsonschema (under /usr/bin/python3, not the first
//! `python3` on PATH) through `scripts/validate-documents`, which checks
//! each document against `iolab schema KIND`. One document of every kind
//! that a test can make cheaply (on tmpfs; `capacity` on a loop device
//! with root), then documents changed without their schema, which must be
//! rejected. Without the validator these tests skip, except under
//! `CI=true`, where they fail.

use crate::common::emu::{LoopDev, MIB};
use crate::common::skip::{self, Kind};
use crate::common::{binary_for_scripts, iolab};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PYTHON: &str = "/usr/bin/python3";
const VALIDATOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/validate-documents");

/// Whether /usr/bin/python3 has jsonschema: a skip says so, and under
/// `CI=true` its absence fails.
fn have_validator() -> bool {
    let ok = Command::new(PYTHON)
        .args(["-c", "import jsonschema.validators as v; v.Draft202012Validator"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip::record(
            Kind::Tool,
            &format!("{PYTHON} has no jsonschema with Draft 2020-12 (apt-get install python3-jsonschema)"),
        );
    }
    ok
}

/// `scripts/validate-documents DIR --expect KINDS` with this build's schemas.
fn validate(dir: &Path, expect: &[&str]) -> Output {
    let expect = if expect.is_empty() { "none".to_string() } else { expect.join(",") };
    Command::new(PYTHON)
        .arg(VALIDATOR)
        .arg(dir)
        .args(["--iolab", binary_for_scripts(), "--expect", &expect])
        .output()
        .unwrap()
}

/// A store, a tmpfs target and a directory of documents, all the test's own.
struct Lab {
    dir: tempfile::TempDir,
    docs: PathBuf,
    target: PathBuf,
}

impl Lab {
    fn new() -> Lab {
        let dir = tempfile::Builder::new().prefix("iolab-schema-").tempdir_in("/dev/shm").unwrap();
        let docs = dir.path().join("docs");
        let target = dir.path().join("t");
        std::fs::create_dir(&docs).unwrap();
        std::fs::create_dir(&target).unwrap();
        Lab { dir, docs, target }
    }

    fn cmd(&self) -> Command {
        let mut c = iolab();
        c.env("IOLAB_DB", self.dir.path().join("results.db"));
        c
    }

    /// Runs `c`, which prints one document of `kind` on stdout; keeps it
    /// in `docs` for the validator and checks it names its schema.
    fn doc(&self, kind: &str, c: &mut Command) -> Value {
        let out = c.output().unwrap();
        assert!(out.status.success(), "{kind}: {}", String::from_utf8_lossy(&out.stderr));
        self.keep(kind, &out.stdout)
    }

    fn keep(&self, kind: &str, text: &[u8]) -> Value {
        let n = std::fs::read_dir(&self.docs).unwrap().count();
        std::fs::write(self.docs.join(format!("{kind}.{n}.json")), text).unwrap();
        let v: Value = serde_json::from_slice(text).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let want = format!("iolab/{kind}/1");
        match v.as_array() {
            Some(entries) => assert!(entries.iter().all(|e| e["schema"] == want), "{kind}: {v}"),
            None => assert_eq!(v["schema"], want, "{kind} names its schema"),
        }
        v
    }

    /// A short job on the tmpfs target.
    fn job(&self, extra: &[&str]) -> Command {
        let mut c = self.cmd();
        c.arg("job").arg(&self.target);
        c.args(["--rw", "randrw", "--size", "8MiB", "--duration", "100ms", "--runs", "2"]);
        c.args(["--warmup", "0s", "--interval", "0s"]).args(extra);
        c
    }
}

/// Every kind iolab writes here, as each command writes it (`--json -`,
/// `--format json`, `--json FILE`, `-o FILE`, `show`, `import`), is valid
/// against its schema; the validator counts each kind.
#[test]
fn every_document_iolab_writes_is_valid_against_its_schema() {
    if !have_validator() {
        return;
    }
    let lab = Lab::new();
    let t = &lab.target;
    lab.doc("run", &mut lab.job(&["--label", "a", "--tag", "k=v", "--json", "-"]));
    let file = lab.dir.path().join("b.json");
    let out = lab.job(&["--json"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    lab.keep("run", &std::fs::read(&file).unwrap());
    lab.doc("run", lab.cmd().args(["show", "1", "--format", "json"]));
    let fio = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fio/v2.1.10_randrw.json");
    let out = lab.cmd().args(["import", fio]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    lab.doc("run", lab.cmd().args(["show", "3", "--json"]));
    lab.doc("comparison", lab.cmd().args(["compare", "1", "2", "--format", "json"]));
    lab.doc("list", lab.cmd().args(["list", "--json"]));
    lab.doc("info", lab.cmd().arg("info").arg(t).arg("--json"));
    lab.doc(
        "scan",
        lab.cmd().arg("scan").arg(t).args([
            "--size",
            "16MiB",
            "--zones",
            "4",
            "--window",
            "1MiB",
            "--access",
            "0",
            "--no-burst",
            "--zone-warmup",
            "0s",
            "--json",
            "-",
        ]),
    );
    lab.doc(
        "scale",
        lab.cmd().arg("scale").arg(t).args([
            "--qd-sweep",
            "1,2",
            "--size",
            "8MiB",
            "--duration",
            "100ms",
            "--runs",
            "1",
            "--warmup",
            "0s",
            "--interval",
            "0s",
            "--json",
            "-",
        ]),
    );
    lab.doc(
        "time",
        lab.cmd()
            .args(["time", "--runs", "2", "--cwd"])
            .arg(t)
            .args(["--json", "-", "--", "true"]),
    );
    lab.doc(
        "app",
        lab.cmd()
            .arg("run")
            .arg(t)
            .args(["--suite", "files", "--files", "200", "--runs", "1", "--json", "-"]),
    );
    let out_file = lab.dir.path().join("verify.json");
    let out = lab
        .cmd()
        .arg("verify")
        .arg(t)
        .args(["--size", "4MiB", "--buffered", "--format", "json", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    lab.keep("verify", &std::fs::read(&out_file).unwrap());
    let mut kinds = vec!["run", "comparison", "list", "info", "scan", "scale", "time", "app", "verify"];
    if !skip::is_root() {
        // The other kinds are checked; this one needs a block device of the test's own.
        skip::record(Kind::Privilege, "the capacity document needs root (a loop device)");
    } else {
        let dev = LoopDev::new(64 * MIB);
        lab.doc(
            "capacity",
            lab.cmd().arg("capacity").arg(dev.path()).args(["--allow-destroy", "--json", "-"]),
        );
        kinds.push("capacity");
        // Issue 37: a flush run and its check, each a flush document.
        let log = lab.dir.path().join("flush.log");
        lab.doc(
            "flush",
            lab.cmd()
                .arg("flush")
                .arg(dev.path())
                .args(["--allow-destroy", "--generations", "3", "--batch", "64KiB", "--json", "-", "--log"])
                .arg(&log),
        );
        let check = lab.doc(
            "flush",
            lab.cmd()
                .arg("flush")
                .arg(dev.path())
                .args(["--check", "--json", "-", "--log"])
                .arg(&log),
        );
        assert_eq!(check["flush"]["findings"]["verdict"], "honest", "{check}");
        kinds.push("flush");
    }
    let out = validate(&lab.docs, &kinds);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.lines().any(|l| l.split_whitespace().eq(["run", "4", "valid"])), "{said}");
    for k in &kinds[1..] {
        assert!(said.lines().any(|l| l.starts_with(k) && !l.contains(" 0 valid")), "{k}: {said}");
    }
}

/// The validator is real and the schemas strict: a document with a field
/// retyped, an unknown field (at the top or deep inside), a required field
/// missing or another version's name is rejected, while the same document
/// unchanged passes.
#[test]
fn a_document_changed_without_its_schema_is_rejected() {
    if !have_validator() {
        return;
    }
    let lab = Lab::new();
    let out = lab.job(&["--no-store", "--json", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let info: Value = serde_json::from_slice(&lab.cmd().arg("info").arg(&lab.target).arg("--json").output().unwrap().stdout).unwrap();

    let check = |name: &str, kind: &str, doc: &Value, valid: bool| {
        let dir = lab.dir.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(format!("{kind}.1.json")), serde_json::to_string_pretty(doc).unwrap()).unwrap();
        let out = validate(&dir, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.success(), valid, "{name}: {err}");
        if !valid {
            assert_eq!(out.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains("INVALID"), "{name}: {err}");
        }
        err.into_owned()
    };
    check("unchanged", "run", &run, true);
    check("info-unchanged", "info", &info, true);

    let mut retyped = run.clone();
    retyped["jobs"][0]["bs"] = Value::String("4096".into());
    let err = check("retyped", "run", &retyped, false);
    assert!(
        err.contains("jobs/0/bs") && err.contains("'4096' is not of type 'integer'"),
        "{err}"
    );

    let mut extra = run.clone();
    extra["surprise"] = Value::from(1);
    let err = check("extra", "run", &extra, false);
    assert!(err.contains("surprise"), "{err}");

    let mut deep = run.clone();
    deep["jobs"][0]["read"]["bw_bytes_median"] = Value::from(1.0);
    let err = check("deep", "run", &deep, false);
    assert!(err.contains("jobs/0/read") && err.contains("bw_bytes_median"), "{err}");

    let mut missing = info.clone();
    missing.as_object_mut().unwrap().remove("schema");
    let err = check("missing", "info", &missing, false);
    assert!(err.contains("'schema' is a required property"), "{err}");

    let mut newer = run.clone();
    newer["schema"] = Value::String("iolab/run/2".into());
    check("newer", "run", &newer, false);

    let mut other_kind = run.clone();
    other_kind["scan"] = Value::from(serde_json::Map::new());
    check("section of another kind", "run", &other_kind, false);
}

/// `iolab schema` lists the kinds; `iolab schema KIND` prints the schema
/// whose title a document names; an unknown kind is a usage error.
#[test]
fn iolab_schema_prints_the_kinds_and_each_schema() {
    let out = iolab().arg("schema").output().unwrap();
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    for kind in [
        "run",
        "scan",
        "scale",
        "time",
        "app",
        "verify",
        "capacity",
        "flush",
        "hosts",
        "comparison",
        "info",
        "list",
        "selftest",
    ] {
        assert!(table.contains(&format!("iolab/{kind}/1")), "{table}");
        let out = iolab().args(["schema", kind]).output().unwrap();
        assert!(out.status.success(), "{kind}");
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(s["title"], format!("iolab/{kind}/1"));
        assert_eq!(s["$id"], format!("urn:iolab:{kind}:1"));
        let committed = std::fs::read(format!("{}/schema/{kind}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert!(committed == out.stdout, "schema/{kind}.json is what iolab prints");
    }
    let out = iolab().args(["schema", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
}
