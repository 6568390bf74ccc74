//! Telling documents apart, and iolab's own document.

mod proptests;

use super::*;
use serde_json::json;

fn read(path: &str) -> String {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs of every kind iolab writes (`tests/fixtures/render`, written by iolab).
const IOLAB_DOCS: [&str; 11] = [
    "mix", "demo", "demoB", "dd", "steady", "scan", "scale", "time", "time2", "time3", "files",
];

fn one(i: Imported) -> ImportedRun {
    assert_eq!(i.runs.len(), 1);
    i.runs.into_iter().next().unwrap()
}

#[test]
fn iolab_documents_of_every_kind_load_as_they_are() {
    for name in IOLAB_DOCS {
        let text = read(&format!("render/{name}.json"));
        let original: Value = serde_json::from_str(&text).unwrap();
        let i = parse_import(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(i.note.is_none());
        let run = one(i);
        assert!(run.tags.is_empty());
        assert_eq!(run.report.run_id, None, "{name}: run_id is reset");
        let mut back = serde_json::to_value(&run.report).unwrap();
        back["run_id"] = original["run_id"].clone();
        assert_eq!(back, original, "{name}: kept as it is");
        assert_eq!(
            run.what,
            format!(
                "an iolab {} document from {}",
                original["iolab_version"].as_str().unwrap(),
                original["host"]["hostname"].as_str().unwrap()
            )
        );
        let direct = parse_iolab_json(&text).unwrap();
        assert_eq!(serde_json::to_value(&direct).unwrap(), serde_json::to_value(&run.report).unwrap());
    }
    // And what iolab 0.1.0 wrote with --json.
    let old = parse_import(&read("legacy/0.1.0/doc-1.json")).unwrap();
    assert!(one(old).what.starts_with("an iolab 0.1.0 document from "));
}

/// A document of a newer iolab: fields this one does not know, at every
/// level, are ignored; an unknown warning code is kept.
#[test]
fn a_newer_iolab_document_with_unknown_fields_loads() {
    let mut v: Value = serde_json::from_str(&read("render/mix.json")).unwrap();
    v["iolab_version"] = "9.1.0".into();
    v["fleet"] = json!({"hosts": 3});
    v["host"]["arch"] = "riscv64".into();
    v["settings"]["future_knob"] = true.into();
    v["target"]["encryption"] = "luks2".into();
    let job = &mut v["jobs"][0];
    job["queue_model"] = "zns".into();
    job["read"]["p99_999"] = 123.into();
    job["read"]["lat_ns"]["p99_999"] = 456.into();
    job["cpu"]["irq_pct"] = 1.5.into();
    job["runs"][0]["energy_j"] = 3.2.into();
    job["warnings"]
        .as_array_mut()
        .unwrap()
        .push(json!({"code": "thermal_throttle", "message": "hot", "severity": "warning"}));
    let run = one(parse_import(&serde_json::to_string(&v).unwrap()).unwrap());
    assert_eq!(run.what, "an iolab 9.1.0 document from vm");
    let r = &run.report;
    assert_eq!(r.iolab_version, "9.1.0");
    let j = &r.jobs()[0];
    assert!(j.warnings.iter().any(|w| w.code == "thermal_throttle"));
    let plain = parse_iolab_json(&read("render/mix.json")).unwrap();
    assert_eq!(j.read, plain.jobs()[0].read);
    assert_eq!(j.cpu, plain.jobs()[0].cpu);
}

/// Issue 37: a job's sync mode is kept; documents of earlier versions,
/// which have none, read as jobs with no flush per write. fio's
/// `sync=dsync` is `dsync`; its `fdatasync=1` times the flush apart: none.
#[test]
fn a_jobs_sync_mode_is_kept_and_earlier_documents_have_none() {
    use crate::plan::SyncMode;
    let mut v: Value = serde_json::from_str(&read("render/demo.json")).unwrap();
    let plain = one(parse_import(&serde_json::to_string(&v).unwrap()).unwrap());
    assert!(plain.report.jobs().iter().all(|j| j.sync == SyncMode::None));
    let old = one(parse_import(&read("legacy/0.1.0/doc-1.json")).unwrap());
    assert!(old.report.jobs().iter().all(|j| j.sync.is_none()));
    assert_eq!(v["jobs"][1]["rw"], "write");
    v["jobs"][1]["sync"] = "fsync".into();
    let run = one(parse_import(&serde_json::to_string(&v).unwrap()).unwrap());
    assert_eq!(run.report.jobs()[1].sync, SyncMode::Fsync);
    let back = serde_json::to_value(&run.report).unwrap();
    assert_eq!(back["jobs"][1]["sync"], "fsync");
    assert!(back["jobs"][0].get("sync").is_none(), "no mode of its own is left out");

    let mut f: Value = serde_json::from_str(&read("fio/two_jobs_randread_write.json")).unwrap();
    let fio_mode = |f: &Value| {
        let run = one(parse_import(&serde_json::to_string(f).unwrap()).unwrap());
        run.report.jobs().iter().find(|j| j.name == "write-1m").expect("the write job").sync
    };
    assert_eq!(fio_mode(&f), SyncMode::None);
    f["jobs"][1]["job options"]["sync"] = "dsync".into();
    assert_eq!(fio_mode(&f), SyncMode::Dsync);
    f["jobs"][1]["job options"]["sync"] = "none".into();
    f["jobs"][1]["job options"]["fdatasync"] = "1".into();
    assert_eq!(fio_mode(&f), SyncMode::None, "fio times the flush apart from the write");
}

#[test]
fn documents_are_told_apart() {
    let fio = parse_import(&read("fio/two_jobs_randread_write.json")).unwrap();
    assert!(fio.note.is_none());
    let run = one(fio);
    assert_eq!(run.what, "2 job(s) from fio-3.33");
    assert!(run.tags.is_empty());

    let client = parse_import(&read("fio/client-3hosts.json")).unwrap();
    let note = client.note.unwrap();
    assert!(
        note.contains("3 hosts") && note.contains("host=<hostname>") && note.contains("All clients"),
        "{note}"
    );
    let tags: Vec<_> = client.runs.iter().map(|r| r.tags.clone()).collect();
    assert_eq!(
        tags,
        ["10.201.2.2", "10.201.1.2", "10.201.3.2"].map(|h| vec![("host".to_string(), h.to_string())])
    );
    assert_eq!(client.runs[2].what, "1 job(s) from fio-3.33 on 10.201.3.2, tagged host=10.201.3.2");

    // A fio import that iolab printed (show --json): an iolab document.
    let imported = parse_fio_json(&read("fio/psync_note_prefix.txt")).unwrap();
    let run = one(parse_import(&serde_json::to_string_pretty(&imported).unwrap()).unwrap());
    assert_eq!(run.what, "an iolab document of a fio-3.33 import from unknown");
    assert_eq!(run.report.command, "import:fio");
}

#[test]
fn client_results_without_host_are_numbered() {
    let mut v: Value = serde_json::from_str(&read("fio/client-3hosts.json")).unwrap();
    for s in v["client_stats"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("hostname");
    }
    let i = parse_import(&serde_json::to_string(&v).unwrap()).unwrap();
    assert!(i.note.unwrap().contains("3 result(s) carry no host name"));
    let tags: Vec<_> = i.runs.iter().map(|r| r.tags[0].1.as_str()).collect();
    assert_eq!(tags, ["client-1", "client-2", "client-3"]);
    assert!(i.runs[0].what.contains("on a host fio did not name, tagged host=client-1"));
}

#[test]
fn what_is_not_a_run_document_is_refused_clearly() {
    let e = parse_import(r#"{"iolab_version": "0.1.0", "baseline": 1, "tests": []}"#).unwrap_err();
    assert!(e.contains("not a run"), "{e}");
    let e = parse_import(r#"{"iolab_version": 3, "jobs": []}"#).unwrap_err();
    assert!(e.contains("not a string"), "{e}");
    let e = parse_import(r#"{"iolab_version": "0.1.0", "jobs": [], "host": 1}"#).unwrap_err();
    assert!(e.contains("cannot load"), "{e}");
    let e = parse_import("hello\n").unwrap_err();
    assert!(e.contains("no line starts a JSON object"), "{e}");
    let e = parse_import(r#"{"foo": 1}"#).unwrap_err();
    assert!(e.contains("no \"jobs\""), "{e}");
    let e = parse_iolab_json(&read("fio/two_jobs_randread_write.json")).unwrap_err();
    assert!(e.contains("no \"iolab_version\""), "{e}");
}
