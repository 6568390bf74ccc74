//! Every view pinned on fixed documents: runs of each kind written by
//! iolab itself (`tests/fixtures/render/*.json`, unedited) and variants
//! of them for the cases those runs do not reach. The JSON view must give
//! back the fixture byte for byte; the text views are insta snapshots
//! (`src/render/snapshots/`).

use super::{Csv, Document, Exporter, Json, Markdown, Text, warning_lines};
use crate::compare::{Comparison, RunRef, compare};
use crate::device::DeviceReport;
use crate::store::RunSummary;
use crate::summary::Report;
use serde_json::{Value, json};

/// A report fixture's JSON (`tests/fixtures/render/NAME.json`); shared by
/// the renderers' tests below this folder.
pub(super) fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(super) fn report(name: &str) -> Report {
    serde_json::from_str(&fixture(name)).expect("fixture parses as Report")
}

/// A fixture changed by `edit` on its JSON.
pub(super) fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> Report {
    let mut v: Value = serde_json::from_str(&fixture(name)).expect("fixture is JSON");
    edit(&mut v);
    serde_json::from_value(v).expect("edited fixture parses as Report")
}

const RUNS: [&str; 11] = [
    "mix", "demo", "demoB", "dd", "steady", "scan", "scale", "time", "time2", "time3", "files",
];

fn text(r: &Report) -> String {
    Text::default().export(Document::Run(r, None)).expect("a run has a text view")
}

/// The table, then the warning lines `--json -` prints on stderr.
fn run_view(r: &Report) -> String {
    format!("{}--- stderr with --json -\n{}\n", text(r), warning_lines(r).join("\n"))
}

#[test]
fn json_gives_back_the_document_byte_for_byte() {
    for name in RUNS {
        let r = report(name);
        let out = Json.export(Document::Run(&r, None)).unwrap();
        assert!(out == fixture(name), "{name}: the JSON document changed");
    }
    let d: DeviceReport = serde_json::from_str(&fixture("info")).unwrap();
    assert!(Json.export(Document::Device(&d)).unwrap() == fixture("info"));
}

#[test]
fn run_of_mixed_jobs() {
    insta::assert_snapshot!(run_view(&report("mix")));
}

#[test]
fn run_of_the_demo_suite() {
    insta::assert_snapshot!(run_view(&report("demo")));
}

#[test]
fn run_of_size_limited_jobs() {
    insta::assert_snapshot!(run_view(&report("dd")));
}

#[test]
fn run_with_steady_state_rounds() {
    insta::assert_snapshot!(run_view(&report("steady")));
}

#[test]
fn run_that_reached_steady_state() {
    let r = edited("steady", |v| {
        let s = &mut v["jobs"][0]["steady"];
        s["reached"] = json!(true);
        s["steady_at_round"] = json!(5);
        s["value_bw_bytes"] = json!(751_234_567.8);
        s["range_pct"] = json!(8.25);
        s["slope_excursion_pct"] = json!(4.5);
    });
    insta::assert_snapshot!(run_view(&r));
}

#[test]
fn surface_scan() {
    insta::assert_snapshot!(run_view(&report("scan")));
}

#[test]
fn surface_scan_by_time_without_access_or_burst() {
    let r = edited("scan", |v| {
        let s = &mut v["scan"];
        s["window_bytes"] = Value::Null;
        s["zone_time_s"] = json!(2.5);
        s["access_ns"] = Value::Null;
        s["burst_bw_bytes"] = Value::Null;
        s["drop_pct"] = json!(-12.25);
    });
    insta::assert_snapshot!(run_view(&r));
}

#[test]
fn surface_scan_of_more_zones_than_columns() {
    let r = edited("scan", |v| {
        let s = &mut v["scan"];
        let zones: Vec<Value> = (0..150u64)
            .map(|i| {
                json!({"index": i, "offset": i << 20, "bytes": 1u64 << 20, "wall_ns": 1_000_000,
                       "bw_bytes": 2.0e9 - (i as f64) * 1.0e7 + ((i % 7) as f64) * 3.0e7})
            })
            .collect();
        s["zones"] = json!(zones);
        s["to"] = json!(150u64 << 20);
        s["zone_bytes"] = json!(1u64 << 20);
        s["max"] = json!(2.18e9);
        s["min"] = json!(5.1e8);
    });
    insta::assert_snapshot!(run_view(&r));
}

#[test]
fn scale_with_two_targets() {
    insta::assert_snapshot!(run_view(&report("scale")));
}

#[test]
fn scale_of_one_target_with_a_layout() {
    let r = edited("scale", |v| {
        let s = &mut v["scale"];
        s["targets"] = json!(["/dev/shm/sa"]);
        s["member"] = json!("/dev/shm/sb");
        s["layout"] = json!({"layout": "raid0", "name": "btrfs raid0", "members": 2, "copies": null, "source": "detected"});
        let points = s["points"].as_array_mut().unwrap();
        points.retain(|p| p["targets"] == json!(["/dev/shm/sa"]));
        points.push(json!({"kind": "member", "targets": ["/dev/shm/sb"], "qd": 4, "threads": 1,
            "bw_bytes": 2.5e8, "iops": 61035.0, "lat_ns": 65000.0, "cpu_busy": 0.4, "target_bw_bytes": [2.5e8]}));
        points.push(json!({"kind": "alone", "targets": ["/dev/shm/sa"], "qd": 4, "threads": 1,
            "bw_bytes": 4.5e8, "iops": 109863.0, "lat_ns": 36000.0, "cpu_busy": 0.55, "target_bw_bytes": [4.5e8]}));
    });
    insta::assert_snapshot!(run_view(&r));
}

#[test]
fn timed_command() {
    insta::assert_snapshot!(run_view(&report("time")));
}

#[test]
fn timed_command_with_prepare_and_cleanup() {
    insta::assert_snapshot!(run_view(&report("time2")));
}

#[test]
fn interrupted_timed_command() {
    let r = edited("time3", |v| v["interrupted"] = json!(true));
    insta::assert_snapshot!(run_view(&r));
}

#[test]
fn files_suite() {
    insta::assert_snapshot!(run_view(&report("files")));
}

#[test]
fn jobs_of_both_io_modes_and_warnings_on_some() {
    let r = edited("mix", |v| {
        let jobs = v["jobs"].as_array_mut().unwrap();
        jobs[1]["direct"] = json!(false);
        jobs[1]["warnings"]
            .as_array_mut()
            .unwrap()
            .push(json!({"code": "buffered", "message": "buffered I/O (test)"}));
        jobs[3]["warnings"]
            .as_array_mut()
            .unwrap()
            .push(json!({"code": "buffered", "message": "buffered I/O (test)"}));
    });
    insta::assert_snapshot!(run_view(&r));
}

/// The demo run as it would be on a zfs-fuse pool, RAID-Z1 of three loop
/// devices (the fixtures are of tmpfs runs): its read labelled cached
/// (no --allow-export, a span under 10× the ARC), its writes against the
/// layout's model. The words are the rules' own.
pub(super) fn zfs_run() -> Report {
    use crate::judge::zfs::*;
    let (mib, pool) = (1u64 << 20, "zpool tpool (loop3+loop4+loop5)");
    let facts = ReadFacts {
        implementation: Implementation::ZfsFuse,
        pool: "tpool".into(),
        arc_max: Some(100 * mib),
        direct_io: false,
        member_page_cache: None,
        cache_devices: false,
        l2arc_persistent: false,
        span: 64 * mib,
        reads_once: false,
        runs_apart: false,
        can_drop_caches: true,
        allow_export: false,
        export_refused: None,
    };
    let read = choose(&facts);
    let caches = read_caches(Implementation::ZfsFuse, None);
    let (job_read, member_read) = (4_857_004_032u64, 190 * mib);
    let (job_write, member_write) = (8_163_164_160u64, 12_408_009_523u64);
    let layout = Redundancy::RaidZ { parity: 1, disks: 3 };
    let writes = json!({
        "model": model_words(layout, 128 << 10, 12, false, false),
        "record_bytes": 131072, "sector_bytes": 4096, "assumed": true,
        "expected_ratio": write_ratio(layout, 128 << 10, 12),
        "measured_ratio": member_write as f64 / job_write as f64,
    });
    let warnings: Vec<crate::judge::Diagnostic> = [
        arc_cached(&read, caches),
        crate::judge::job::pool_cross_check(pool, "read", job_read, member_read, caches),
    ]
    .into_iter()
    .flatten()
    .collect();
    // The members' bytes, by vdev, with their shares (`device.zfs_members`).
    let members = |bytes: [u64; 3], read: bool| {
        let total: u64 = bytes.iter().sum();
        let m: Vec<Value> = bytes
            .iter()
            .zip(3..)
            .map(|(&b, n)| {
                let (r, w) = if read { (b, 0) } else { (0, b) };
                let mut m = json!({"name": format!("loop{n}"), "vdev": "raidz1-0", "state": "ONLINE",
                                   "read_bytes": r, "write_bytes": w});
                m[if read { "read_share" } else { "write_share" }] = json!(b as f64 / total as f64);
                m
            })
            .collect();
        Value::Array(m)
    };
    let disk = |n: u32| {
        json!({"name": format!("loop{n}"), "major": 7, "minor": n, "partition_of": null, "size_bytes": 268435456u64,
               "logical_block_size": 512, "rotational": false, "model": null,
               "backing_file": format!("/var/tmp/m{n}"), "memory": false})
    };
    edited("demo", |v| {
        let t = &mut v["target"];
        t["path"] = json!("/tpool/bench");
        t["filesystem"] = json!({"fstype": "fuse.zfs", "mount_point": "/tpool", "source": "tpool",
                                 "options": "rw,relatime", "super_options": "rw,user_id=0,group_id=0", "dev": [0, 52]});
        t["devices"] = json!([disk(3), disk(4), disk(5)]);
        t["zfs_pool"] = json!("tpool");
        t["info"] = Value::Null;
        let jobs = v["jobs"].as_array_mut().unwrap();
        jobs[0]["zfs_read"] = serde_json::to_value(&read).unwrap();
        jobs[0]["warnings"] = serde_json::to_value(&warnings).unwrap();
        jobs[0]["device"] = json!({"name": pool, "read_bytes": member_read, "write_bytes": 0, "read_ios": 1520,
            "write_ios": 0, "job_read_bytes": job_read, "job_write_bytes": 0, "lower": [], "zfs_pool": "tpool",
            "zfs_members": members([64 * mib, 63 * mib, 63 * mib], true)});
        jobs[1]["device"] = json!({"name": pool, "read_bytes": 0, "write_bytes": member_write, "read_ios": 0,
            "write_ios": 94663, "job_read_bytes": 0, "job_write_bytes": job_write, "lower": [], "zfs_pool": "tpool",
            "zfs_writes": writes, "zfs_members": members([4_136_003_174, 4_136_003_174, 4_136_003_175], false)});
        jobs[1]["warnings"] = json!([]);
    })
}

#[test]
fn a_zfs_run_with_a_cached_read_and_modelled_writes() {
    let r = zfs_run();
    let read = r.jobs()[0].zfs_read.as_ref().unwrap();
    assert_eq!(read.method, crate::judge::zfs::ReadMethod::Cached, "{}", read.reason);
    // The write model agrees with the members, so no finding.
    assert!(crate::summary::cross_check(r.jobs()[1].device.as_ref().unwrap()).is_empty());
    insta::assert_snapshot!(run_view(&r));
    // Documents and spreadsheets: the same lines, the code in the warnings column.
    let md = Markdown(crate::base::units::BwUnit::Mb).export(Document::Run(&r, None)).unwrap();
    assert!(
        md.contains("SEQ1M Q8T1 write: writes on ZFS: the members wrote 1.52× the data; the layout predicts 1.50× (raidz1 of 3 disks, 128K records, ashift 12;"),
        "{md}"
    );
    assert!(md.contains("SEQ1M Q8T1 read: reads on ZFS: CACHED"), "{md}");
    let csv = Csv.export(Document::Run(&r, None)).unwrap();
    assert!(csv.contains("zfs_arc_cached"), "{csv}");
    // The JSON document carries the method and the ratios.
    let j: Value = serde_json::from_str(&Json.export(Document::Run(&r, None)).unwrap()).unwrap();
    assert_eq!(j["jobs"][0]["zfs_read"]["method"], "cached");
    assert_eq!(j["jobs"][1]["device"]["zfs_writes"]["expected_ratio"], 1.5);
}

#[test]
fn buffered_run_interrupted_before_any_job() {
    for (direct, mode) in [(false, "BUFFERED"), (true, "O_DIRECT")] {
        let r = edited("demo", |v| {
            v["jobs"] = json!([]);
            v["interrupted"] = json!(true);
            v["target"]["direct"] = json!(direct);
        });
        let t = text(&r);
        assert!(t.contains(&format!(" · {mode} · ")), "{t}");
        if !direct {
            insta::assert_snapshot!(t);
        }
    }
}

#[test]
fn all_buffered_jobs() {
    let r = edited("demo", |v| {
        for j in v["jobs"].as_array_mut().unwrap() {
            j["direct"] = json!(false);
        }
    });
    insta::assert_snapshot!(text(&r));
}

fn summary(id: i64, label: Option<&str>, tags: &[(&str, &str)], complete: bool) -> RunSummary {
    RunSummary {
        id,
        label: label.map(String::from),
        tags: tags.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        started_at: "2026-11-22T13:16:47Z".into(),
        kind: "run".into(),
        target: "/dev/shm/fx".into(),
        complete,
    }
}

#[test]
fn stored_run_with_its_header() {
    let r = report("demo");
    let s = summary(2, Some("demoA"), &[("bus", "usb"), ("fs", "tmpfs")], false);
    insta::assert_snapshot!(Text::default().export(Document::Run(&r, Some(&s))).unwrap());
}

#[test]
fn run_list() {
    let runs = [
        summary(1, Some("mixA"), &[], true),
        summary(2, None, &[("bus", "usb")], false),
        summary(3, Some("demo, \"quoted\""), &[("a", "1"), ("b", "2")], true),
    ];
    let out = format!(
        "{}{}{}",
        Text::default().export(Document::Runs(&runs)).unwrap(),
        Text::default().export(Document::Runs(&[])).unwrap(),
        Json.export(Document::Runs(&runs)).unwrap()
    );
    insta::assert_snapshot!(out);
}

fn run_ref(name: &str, id: i64, label: Option<&str>, price: Option<f64>, capacity: Option<u64>) -> RunRef {
    RunRef {
        id,
        label: label.map(String::from),
        price,
        capacity_bytes: capacity,
        report: report(name),
        built: None,
        power_cut: None,
    }
}

/// Every format of a comparison.
fn all_formats(c: &Comparison) -> String {
    let doc = Document::Comparison(c);
    format!(
        "{}--- markdown\n{}--- csv\n{}",
        Text::default().export(doc).unwrap(),
        Markdown(crate::base::units::BwUnit::Mb).export(doc).unwrap(),
        Csv.export(doc).unwrap()
    )
}

#[test]
fn comparison_of_two_runs_with_prices() {
    let runs = [
        run_ref("demo", 2, Some("demoA"), Some(59.99), Some(1_000_204_886_016)),
        run_ref("demoB", 9, Some("demoB"), Some(120.0), None),
    ];
    let c = compare(&runs, 2).unwrap();
    insta::assert_snapshot!(all_formats(&c));
}

#[test]
fn comparison_against_a_later_baseline() {
    let runs = [
        run_ref("demo", 2, None, None, None),
        run_ref("demoB", 9, Some("demo | B"), None, None),
    ];
    let c = compare(&runs, 9).unwrap();
    insta::assert_snapshot!(all_formats(&c));
}

#[test]
fn comparison_of_timed_commands() {
    let runs = [run_ref("time2", 7, Some("t2"), None, None), run_ref("time3", 10, None, None, None)];
    let c = compare(&runs, 7).unwrap();
    insta::assert_snapshot!(all_formats(&c));
}

#[test]
fn comparison_of_workload_phases() {
    let runs = [
        run_ref("files", 8, Some("files"), None, None),
        run_ref("files", 11, Some("again"), Some(10.0), Some(2_000_000_000_000)),
    ];
    let c = compare(&runs, 8).unwrap();
    insta::assert_snapshot!(all_formats(&c));
}

#[test]
fn device_description() {
    let d: DeviceReport = serde_json::from_str(&fixture("info")).unwrap();
    insta::assert_snapshot!(Text::default().export(Document::Device(&d)).unwrap());
}

#[test]
fn device_description_with_throttles() {
    let mut v: Value = serde_json::from_str(&fixture("info")).unwrap();
    v["throttles"] = json!([
        {"device": "vda", "dev": "254:0", "cgroup": "/user.slice", "read_bps": 52_428_800u64, "write_bps": 10_000_000u64,
         "read_iops": 1000, "write_iops": null},
        {"device": "vdb", "dev": "254:16", "cgroup": "/", "read_bps": null, "write_bps": null, "read_iops": null, "write_iops": 250}
    ]);
    let d: DeviceReport = serde_json::from_value(v).unwrap();
    insta::assert_snapshot!(Text::default().export(Document::Device(&d)).unwrap());
}

#[test]
fn formats_of_each_document() {
    let d: DeviceReport = serde_json::from_str(&fixture("info")).unwrap();
    let r = report("demo");
    let runs = [];
    assert_eq!(super::formats_of(Document::Run(&r, None)), "table, json, markdown, csv, html");
    for doc in [Document::Device(&d), Document::Runs(&runs)] {
        assert_eq!(super::formats_of(doc), "table, json, markdown, csv", "{}", doc.name());
    }
    let page = super::Page {
        runs: vec![(&r, None)],
        comparison: None,
    };
    assert_eq!(super::formats_of(Document::Page(&page)), "html");
}

#[test]
fn markdown_and_csv_of_a_device_description() {
    let d: DeviceReport = serde_json::from_str(&fixture("info")).unwrap();
    let md = Markdown(crate::base::units::BwUnit::Mb).export(Document::Device(&d)).unwrap();
    let csv = Csv.export(Document::Device(&d)).unwrap();
    assert_eq!(csv.lines().count(), 1 + d.devices.len().max(1), "{csv}");
    insta::assert_snapshot!(format!("{md}--- csv\n{csv}"));
}

#[test]
fn markdown_and_csv_of_the_run_list() {
    let runs = [
        crate::store::RunSummary {
            id: 3,
            label: Some("usb, \"fast\" | stick".into()),
            tags: vec![("bus".into(), "usb".into()), ("fs".into(), "ext4".into())],
            started_at: "2026-11-22T10:00:00Z".into(),
            kind: "run".into(),
            target: "/mnt/usb".into(),
            complete: true,
        },
        crate::store::RunSummary {
            id: 4,
            label: None,
            tags: vec![],
            started_at: "2026-11-22T11:00:00Z".into(),
            kind: "scan".into(),
            target: "/dev/sdb".into(),
            complete: false,
        },
    ];
    let md = Markdown(crate::base::units::BwUnit::Mb).export(Document::Runs(&runs)).unwrap();
    let csv = Csv.export(Document::Runs(&runs)).unwrap();
    insta::assert_snapshot!(format!("{md}--- csv\n{csv}"));
}

#[test]
fn markdown_in_other_units() {
    let r = report("scan");
    let md = Markdown(crate::base::units::BwUnit::Mib).export(Document::Run(&r, None)).unwrap();
    assert!(md.contains("| MiB/s |") && md.contains("MiB/s = 2^20 bytes/s."), "{md}");
    assert!(md.contains("average 2315.67 MiB/s"), "{md}");
}

/// The Markdown view, then the CSV view of a run.
fn md_and_csv(r: &Report) -> String {
    format!(
        "{}--- csv\n{}",
        Markdown(crate::base::units::BwUnit::Mb).export(Document::Run(r, None)).unwrap(),
        Csv.export(Document::Run(r, None)).unwrap()
    )
}

#[test]
fn markdown_and_csv_of_mixed_jobs() {
    insta::assert_snapshot!(md_and_csv(&report("mix")));
}

#[test]
fn markdown_and_csv_of_the_demo_suite() {
    insta::assert_snapshot!(md_and_csv(&report("demo")));
}

/// Issue 37: a run of sync writes leads with latency in every format:
/// p50, p99 and p99.9 before bandwidth and IOPS, and on a page each test's
/// latency before its timeline. A run of other jobs keeps its layout.
#[test]
fn a_run_of_sync_writes_leads_with_latency() {
    let r = edited("demo", |v| {
        let mut w = v["jobs"][1].clone();
        w["name"] = json!("SYNC1M Q8T1 write dsync");
        w["sync"] = json!("dsync");
        v["jobs"] = json!([w]);
    });
    assert!(r.latency_first() && !report("demo").latency_first());
    let csv = Csv.export(Document::Run(&r, None)).unwrap();
    let header = csv.lines().find(|l| l.starts_with("test,")).expect("a header");
    assert!(
        header.starts_with("test,direction,p50_latency_ns,p99_latency_ns,p99_9_latency_ns,bw_bytes_per_s,iops,"),
        "{header}"
    );
    let html = super::Html.export(Document::Run(&r, None)).unwrap();
    let (latency, timeline) = (html.find("dsync: completion latency"), html.find("Throughput in each second"));
    assert!(
        latency.is_some() && timeline.is_some() && latency < timeline,
        "the latency chart first"
    );
    insta::assert_snapshot!(format!("{}{}", run_view(&r), md_and_csv(&r)));
}

#[test]
fn markdown_and_csv_of_a_scan() {
    insta::assert_snapshot!(md_and_csv(&report("scan")));
}

#[test]
fn markdown_and_csv_of_a_scale() {
    insta::assert_snapshot!(md_and_csv(&report("scale")));
}

#[test]
fn markdown_and_csv_of_a_timed_command() {
    insta::assert_snapshot!(md_and_csv(&report("time")));
}

#[test]
fn markdown_and_csv_of_the_files_suite() {
    insta::assert_snapshot!(md_and_csv(&report("files")));
}

#[test]
fn markdown_and_csv_quote_what_needs_it() {
    let r = edited("demo", |v| {
        v["jobs"][0]["name"] = json!("a | b, \"c\"");
    });
    let out = md_and_csv(&r);
    assert!(out.contains("| a \\| b, \"c\" |"), "{out}");
    assert!(out.contains("\"a | b, \"\"c\"\"\",read,"), "{out}");
}

#[test]
fn table_in_other_units() {
    let r = report("demo");
    let st = |units| super::Style { units, color: false };
    let gb = super::Text(st(crate::base::units::BwUnit::Gb))
        .export(Document::Run(&r, None))
        .unwrap();
    insta::assert_snapshot!(gb);
    let mib = super::Text(st(crate::base::units::BwUnit::Mib))
        .export(Document::Run(&r, None))
        .unwrap();
    assert!(mib.contains("Read MiB/s") && mib.contains("MiB/s = 2^20 bytes/s."), "{mib}");
}

#[test]
fn colour_only_paints_warnings_and_verdicts() {
    let r = report("mix");
    let colored = super::Text(super::Style {
        color: true,
        ..Default::default()
    })
    .export(Document::Run(&r, None))
    .unwrap();
    let plain = text(&r);
    assert_eq!(colored.replace("\x1b[33m", "").replace("\x1b[0m", ""), plain);
    for line in colored.lines().filter(|l| l.contains("\x1b[")) {
        assert!(line.starts_with("\x1b[33mwarning [") || line.starts_with("\x1b[33m  - "), "{line}");
    }
}

#[test]
fn colour_needs_a_terminal_and_no_no_color() {
    use super::use_color;
    use std::ffi::OsStr;
    assert!(use_color(true, None));
    assert!(use_color(true, Some(OsStr::new(""))));
    assert!(!use_color(true, Some(OsStr::new("1"))));
    assert!(!use_color(false, None));
    assert!(!use_color(false, Some(OsStr::new(""))));
}

#[test]
fn live_zone_lines() {
    let r = report("scan");
    let s = r.scan().unwrap();
    let full = s.zones[0].bw_bytes * 1.25;
    let lines: Vec<String> = s
        .zones
        .iter()
        .map(|z| {
            super::chart::zone_line(
                z.index,
                s.zones.len() as u32,
                z.offset,
                z.bw_bytes,
                full,
                crate::base::units::BwUnit::Mb,
            )
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn group_of_hosts_in_every_format() {
    let r = report("demo");
    let h = crate::summary::hosts::hosts_report(&[
        ("h1".into(), Some(&r), None),
        ("h2".into(), Some(&r), None),
        ("h3".into(), None, Some("no fio server at h3:8765 (Connection refused)".into())),
    ]);
    let doc = Document::Hosts(&h);
    let table = Text::default().export(doc).unwrap();
    assert!(table.contains("│ h1") || table.contains("h1 "), "{table}");
    assert!(
        table.contains("\nVerdicts:\n  - h3: no result: no fio server at h3:8765 (Connection refused) [host_failed]\n"),
        "{table}"
    );
    assert!(table.contains("INCOMPLETE: 1 of 3 hosts gave no result"), "{table}");
    let md = Markdown(crate::base::units::BwUnit::Mb).export(doc).unwrap();
    assert!(md.starts_with("| Test | Unit | h1 | h2 | h3 | Sum |"), "{md}");
    let csv = Csv.export(doc).unwrap();
    assert_eq!(csv.lines().count(), 1 + h.tests.len() * 3, "{csv}");
    let page = super::Html.export(doc).unwrap();
    assert!(page.contains("data-chart=\"hosts-bars\""), "{page}");
    let bars = page.matches("class=\"bar\"").count();
    assert_eq!(bars, h.tests.len() * 2, "a bar per reporting host and test");
    let json: serde_json::Value = serde_json::from_str(&Json.export(doc).unwrap()).unwrap();
    assert_eq!(json["hosts"][2]["ok"], false);
}

/// Issue 28: two cards of the sdcard suite, compared: the classes each
/// holds and the next class each misses, with its figure.
#[test]
fn comparison_of_two_cards_lists_their_classes() {
    let runs = [
        run_ref("sdcard-a1", 3, Some("card A1"), None, None),
        run_ref("sdcard-v30", 4, Some("card V30"), None, None),
    ];
    let c = compare(&runs, 3).unwrap();
    let out = all_formats(&c);
    assert!(out.contains("Next class missed"), "{out}");
    insta::assert_snapshot!(out);
}

/// Issue 28: a verify whose writes fell is compared with its cache speed,
/// its sustained speed and where it fell.
#[test]
fn comparison_of_verify_runs_names_the_write_drop() {
    let drop = json!({"at_region": 25, "at_offset": 268435456u64, "before_bps": 157.5e6, "after_bps": 40.0e6});
    let runs = [
        run_ref("sdcard-a1", 3, Some("card A1"), None, None),
        run_ref("sdcard-v30", 4, None, None, None),
    ];
    let c = compare(&runs, 3).unwrap();
    assert!(c.runs.iter().all(|r| r.write_drop.is_none()), "a run without a verify has no drop");
    let mut c = c;
    c.runs[1].write_drop = serde_json::from_value(drop).ok();
    let out = all_formats(&c);
    assert!(out.contains("Writes fell after"), "{out}");
    assert!(out.contains("157.5") && out.contains("40.0") && out.contains("256.00 MiB"), "{out}");
}

/// Issue 28: a run of the sdcard suite in the formats of lines: the class
/// verdicts, the figures with their intervals, the reader, the caveat.
#[test]
fn sdcard_run_shows_its_classes_in_every_format_of_lines() {
    let r = report("sdcard-a1");
    let doc = Document::Run(&r, None);
    let out = format!(
        "{}--- markdown\n{}--- csv\n{}",
        Text::default().export(doc).unwrap(),
        Markdown(crate::base::units::BwUnit::Mb).export(doc).unwrap(),
        Csv.export(doc).unwrap()
    );
    for needle in [
        "SD and application classes",
        "not A2: queued random read 1600 IOPS < 4000",
        "Meets means: as iolab measured it",
    ] {
        assert!(out.contains(needle), "{needle} missing from\n{out}");
    }
    insta::assert_snapshot!(out);
    let json = Json.export(doc).unwrap();
    assert!(json.contains("\"classes\""), "the JSON carries the verdicts");
}

/// The queue depth a test's device had is said under the tables and in the
/// test's section of a page, as the document holds it; a test without it
/// (an earlier document, no block device) says nothing of it.
#[test]
fn the_depth_the_device_had_is_shown_where_known() {
    let r = edited("demo", |v| {
        v["jobs"][0]["device_depth"] = json!({"device": "loop1", "mean": 7.46, "p99": 8, "max": 8, "samples": 200});
    });
    let line = "loop1 had 7.5 I/Os in flight on average (p99 8, max 8) of QD8 asked.";
    let t = text(&r);
    assert!(t.contains(&format!("SEQ1M Q8T1 read: {line}")), "{t}");
    assert_eq!(t.matches("I/Os in flight").count(), 1, "the write test has no figure: {t}");
    let html = super::Html.export(Document::Run(&r, None)).unwrap();
    assert!(html.contains("loop1 had 7.5 I/Os in flight on average"), "the test's section");
    assert!(!text(&report("demo")).contains("in flight"));
}
