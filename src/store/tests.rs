//! The store's list query: its filters, alone and together, and its page.

use super::query::parse_since_at;
use super::*;
use crate::summary::tests::fixtures;
use std::time::{Duration, UNIX_EPOCH};

/// A run started at `started_at` on the devices `devs` (kernel name, model).
fn run(started_at: &str, devs: &[(&str, Option<&str>)]) -> Report {
    let mut v = serde_json::to_value(fixtures::report("h", None, &[fixtures::J::read("SEQ1M", &[1e8])])).unwrap();
    v["started_at"] = started_at.into();
    v["target"]["devices"] = devs
        .iter()
        .map(|(n, m)| {
            serde_json::json!({"name": n, "major": 8, "minor": 16, "partition_of": null, "size_bytes": 1u64 << 30,
                "logical_block_size": 512, "rotational": false, "model": m, "backing_file": null, "memory": false})
        })
        .collect();
    serde_json::from_value(v).unwrap()
}

fn tag(k: &str, v: &str) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// Six runs: ids 1..=6.
fn store() -> Store {
    let mut st = Store::open(Path::new(":memory:")).unwrap();
    let runs = [
        (
            run("2026-01-01T00:00:00Z", &[("sdb", Some("Samsung SSD 870"))]),
            Some("usb stick"),
            vec![tag("bus", "usb")],
        ),
        (
            run("2026-02-01T12:00:00Z", &[("sdb", None)]),
            Some("SATA SSD"),
            vec![tag("bus", "sata"), tag("fs", "ext4")],
        ),
        (
            run("2026-02-01T12:00:01Z", &[("loop3", None), ("sdz", Some("WD Blue"))]),
            None,
            vec![tag("bus", "nvme")],
        ),
        (run("unknown", &[]), Some("old fio"), vec![tag("opt", "a=b"), tag("ort", "Zürich")]),
        (
            run("2026-03-01T00:00:00Z", &[("sdc", None)]),
            Some("usb hub"),
            vec![tag("bus", "usb"), tag("fs", "ext4")],
        ),
        (run("2026-03-02T00:00:00.5Z", &[("sdb", None)]), Some("Zürich lab"), vec![]),
    ];
    for (r, label, tags) in &runs {
        st.save(r, *label, tags, true).unwrap();
    }
    st
}

fn ids(st: &Store, f: &Filter) -> Vec<i64> {
    st.list(f).unwrap().iter().map(|r| r.id).collect()
}

#[test]
fn the_default_list_is_every_run_in_id_order_with_its_tags() {
    let st = store();
    let all = st.list(&Filter::default()).unwrap();
    assert_eq!(all.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
    // Tags sorted by key, as each run's own query gave them.
    assert_eq!(all[1].tags, [tag("bus", "sata"), tag("fs", "ext4")]);
    assert_eq!(all[3].tags, [tag("opt", "a=b"), tag("ort", "Zürich")]);
    assert!(all[5].tags.is_empty());
    assert_eq!(all[0].label.as_deref(), Some("usb stick"));
    assert_eq!(all[2].label, None);
    assert_eq!(
        (all[0].kind.as_str(), all[0].target.as_str(), all[0].complete),
        ("import:fio", "/dev/nvme0n1", true)
    );
    assert_eq!(all[3].started_at, "unknown");
}

#[test]
fn list_reads_no_document() {
    let st = store();
    st.conn.execute("UPDATE runs SET document = 'not a document'", []).unwrap();
    assert_eq!(st.list(&Filter::default()).unwrap().len(), 6);
    let f = Filter {
        device: Some("sdb".into()),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &f), [1, 2, 6]);
}

#[test]
fn each_filter_alone() {
    let st = store();
    let label = |l: &str| Filter {
        label: Some(l.into()),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &label("usb")), [1, 5]);
    assert_eq!(ids(&st, &label("USB")), Vec::<i64>::new(), "case-sensitive, as before");
    assert_eq!(ids(&st, &label("Zürich")), [6]);
    assert_eq!(ids(&st, &label("")), [1, 2, 4, 5, 6], "every run with a label");
    assert_eq!(ids(&st, &label("%")), Vec::<i64>::new(), "no LIKE wildcards");
    let tags = |t: &[(String, String)]| Filter {
        tags: t.to_vec(),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &tags(&[tag("bus", "usb")])), [1, 5]);
    assert_eq!(ids(&st, &tags(&[tag("bus", "usb"), tag("fs", "ext4")])), [5], "all must match");
    assert_eq!(ids(&st, &tags(&[tag("bus", "usb"), tag("bus", "sata")])), Vec::<i64>::new());
    assert_eq!(ids(&st, &tags(&[parse_tag("opt=a=b").unwrap()])), [4], "'=' in a value");
    assert_eq!(ids(&st, &tags(&[parse_tag("ort=Zürich").unwrap()])), [4]);
    assert_eq!(ids(&st, &tags(&[tag("ort", "Zurich")])), Vec::<i64>::new());
    assert_eq!(
        ids(&st, &tags(&[tag("bus", "us")])),
        Vec::<i64>::new(),
        "a tag's value matches whole"
    );
    let device = |d: &str| Filter {
        device: Some(d.into()),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &device("sdb")), [1, 2, 6]);
    assert_eq!(ids(&st, &device("/dev/sdb")), [1, 2, 6]);
    assert_eq!(ids(&st, &device("loop3")), [3]);
    assert_eq!(ids(&st, &device("sdz")), [3], "a run's second device");
    assert_eq!(ids(&st, &device("WD Blue")), [3], "a model");
    assert_eq!(ids(&st, &device("Samsung SSD 870")), [1]);
    assert_eq!(ids(&st, &device("sd")), Vec::<i64>::new(), "a name matches whole");
    // The fixtures' target is /dev/nvme0n1, with no devices known (an imported fio job).
    assert_eq!(ids(&st, &device("nvme0n1")), [1, 2, 3, 4, 5, 6], "a target given as /dev/NAME");
}

#[test]
fn since_keeps_runs_started_at_or_after_its_instant() {
    let st = store();
    let since = |s: &str| Filter {
        since: Some(parse_since(s).unwrap()),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &since("2026-02-01T12:00:00Z")), [2, 3, 5, 6], "the bound itself is in");
    assert_eq!(ids(&st, &since("2026-02-01T12:00:01Z")), [3, 5, 6]);
    assert_eq!(ids(&st, &since("2026-02-01T12:00:02Z")), [5, 6]);
    assert_eq!(ids(&st, &since("2026-02-01")), [2, 3, 5, 6], "a date is its midnight");
    assert_eq!(ids(&st, &since("2026-03-02")), [6], "a start with a fraction of a second");
    assert_eq!(ids(&st, &since("2026-03-02T00:00:01Z")), Vec::<i64>::new());
    assert_eq!(ids(&st, &since("1970-01-01")), [1, 2, 3, 5, 6], "an unknown start is never since");
}

#[test]
fn since_parses_dates_times_and_times_ago() {
    let now = UNIX_EPOCH + Duration::from_secs(1_795_363_499); // 2026-11-22T16:04:59Z
    assert_eq!(parse_since_at("2026-01-31", now).unwrap(), "2026-01-31T00:00:00");
    assert_eq!(parse_since_at("2026-01-31T12:30:00Z", now).unwrap(), "2026-01-31T12:30:00");
    assert_eq!(parse_since_at("2026-01-31 12:30:00", now).unwrap(), "2026-01-31T12:30:00");
    assert_eq!(parse_since_at("7d", now).unwrap(), "2026-11-15T16:04:59");
    assert_eq!(parse_since_at("12h", now).unwrap(), "2026-11-22T04:04:59");
    assert_eq!(parse_since_at("1h 30m", now).unwrap(), "2026-11-22T14:34:59");
    for bad in ["", "yesterday", "2026-13-01", "2026-01-31T25:00:00Z", "7x", "-7d"] {
        let e = parse_since_at(bad, now).unwrap_err();
        assert!(e.contains("is not a date"), "{bad}: {e}");
    }
}

#[test]
fn filters_combine_and_page() {
    let st = store();
    let f = Filter {
        label: Some("usb".into()),
        tags: vec![tag("bus", "usb")],
        device: Some("sdc".into()),
        since: Some(parse_since("2026-02-01").unwrap()),
        page: Page::default(),
    };
    assert_eq!(ids(&st, &f), [5]);
    let f = Filter {
        device: Some("sdb".into()),
        since: Some(parse_since("2026-02-01").unwrap()),
        ..Filter::default()
    };
    assert_eq!(ids(&st, &f), [2, 6]);
    let page = |limit: Option<u64>, offset: u64| Filter {
        page: Page { limit, offset },
        ..Filter::default()
    };
    assert_eq!(ids(&st, &page(Some(2), 0)), [1, 2]);
    assert_eq!(ids(&st, &page(Some(2), 2)), [3, 4]);
    assert_eq!(ids(&st, &page(Some(2), 5)), [6], "a short last page");
    assert_eq!(ids(&st, &page(Some(2), 6)), Vec::<i64>::new(), "an offset past the end: no runs");
    assert_eq!(ids(&st, &page(Some(2), u64::MAX)), Vec::<i64>::new());
    assert_eq!(ids(&st, &page(None, 4)), [5, 6], "an offset alone");
    assert_eq!(ids(&st, &page(Some(u64::MAX), 0)), [1, 2, 3, 4, 5, 6]);
    // The page is of the runs the filters keep.
    let f = Filter {
        device: Some("sdb".into()),
        page: Page { limit: Some(1), offset: 1 },
        ..Filter::default()
    };
    assert_eq!(ids(&st, &f), [2]);
}

#[test]
fn deleting_a_run_deletes_its_device_rows() {
    let mut st = store();
    st.delete(1).unwrap();
    let n: i64 = st
        .conn
        .query_row("SELECT count(*) FROM run_devices WHERE run_id = 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
}

/// A store of schema v2 (before the device table): opening it fills the
/// device rows from the documents, so `--device` finds its runs.
#[test]
fn the_v3_step_backfills_devices_from_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    {
        let c = Connection::open(&db).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.execute_batch(MIGRATIONS[1]).unwrap();
        c.pragma_update(None, "user_version", 2).unwrap();
        let doc = serde_json::to_string(&run("2026-01-01T00:00:00Z", &[("sdb", Some("Model X"))])).unwrap();
        for d in [doc.as_str(), "not a document"] {
            c.execute(
                "INSERT INTO runs (started_at, saved_at, kind, target, label, complete, host, kernel, iolab_version, document)
                 VALUES ('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'job', '/x', NULL, 1, 'h', 'k', '0.2.0', ?1)",
                [d],
            )
            .unwrap();
        }
    }
    let st = Store::open(&db).unwrap();
    assert_eq!(st.version().unwrap(), SCHEMA_VERSION);
    for d in ["sdb", "Model X"] {
        let f = Filter {
            device: Some(d.into()),
            ..Filter::default()
        };
        assert_eq!(ids(&st, &f), [1], "{d}");
    }
    assert_eq!(
        st.list(&Filter::default()).unwrap().len(),
        2,
        "an unreadable document keeps its run"
    );
}

/// The indexes the filters rely on are used (see docs/results.md for the figures).
#[test]
fn the_filters_use_their_indexes() {
    let st = store();
    let plan = |f: Filter| st.list_plan(&f).unwrap().join("\n");
    let p = plan(Filter {
        device: Some("sdb".into()),
        ..Filter::default()
    });
    assert!(p.contains("run_devices_name"), "{p}");
    let p = plan(Filter {
        tags: vec![tag("bus", "usb")],
        ..Filter::default()
    });
    assert!(p.contains("tags_key_value"), "{p}");
    let p = plan(Filter::default());
    assert!(!p.contains("SCAN t"), "the tags of a run come from its key: {p}");
}

/// Issue 36: a new store's switch to WAL asks SQLite for the write lock as a
/// reader, which SQLite refuses at once (no busy handler) while another
/// process holds it: 1 run in 200 was lost that way, with a message claiming
/// a 30 s wait. The open now waits for the other writer.
#[test]
fn issue_36_a_new_store_waits_for_another_writer_instead_of_failing_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    // Another process switching the same new file: it holds the write lock.
    let other = Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        other.execute_batch("COMMIT").unwrap();
    });
    let t0 = std::time::Instant::now();
    let st = Store::open_waiting(&db, None, Duration::from_secs(10));
    release.join().unwrap();
    let mut st = st.expect("the open waits for the other writer");
    assert!(t0.elapsed() >= Duration::from_millis(250), "{:?}", t0.elapsed());
    assert_eq!(st.version().unwrap(), SCHEMA_VERSION);
    let mode: String = st.conn.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    st.save(&run("2026-01-01T00:00:00Z", &[]), None, &[], true).unwrap();
}

/// Issue 36: a writer that holds the store past the busy timeout is named
/// for what it did, with the timeout that ran out.
#[test]
fn issue_36_a_store_held_past_the_busy_timeout_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.db");
    drop(Store::open(&db).unwrap());
    let other = Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut st = Store::open_waiting(&db, None, Duration::from_millis(200)).unwrap();
    let t0 = std::time::Instant::now();
    let e = st.set_label(1, "x").unwrap_err();
    assert!(t0.elapsed() >= Duration::from_millis(200));
    assert!(matches!(e, StoreError::Busy { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("database is locked") && msg.contains("for longer than the busy timeout (200ms)"),
        "{msg}"
    );
    other.execute_batch("COMMIT").unwrap();
}

/// A lock SQLite refused without waiting is not said to have waited.
#[test]
fn issue_36_a_lock_refused_at_once_is_not_called_a_timeout() {
    let locked = || rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(5), Some("database is locked".into()));
    let at_once = busy_message(&locked(), Duration::from_millis(3), Duration::from_secs(30));
    assert!(!at_once.contains("longer than"), "{at_once}");
    assert!(
        at_once.contains("refused the lock after 3ms without waiting out the busy timeout (30s)"),
        "{at_once}"
    );
    let waited = busy_message(&locked(), Duration::from_secs(30), Duration::from_secs(30));
    assert!(waited.contains("held it for longer than the busy timeout (30s)"), "{waited}");
}
