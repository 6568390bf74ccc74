//! Rendering at scale (issue 27): a day-long run's page stays small, its
//! exports keep every second, and the formats of lines stay bounded.

use super::tests::edited;
use super::{Csv, Document, Exporter, Html, Json, Markdown, Text};
use crate::summary::Report;
use serde_json::{Value, json};

/// A day of seconds.
const DAY: usize = 86_400;

/// A second's throughput that wanders, with a one-second spike at 43,210 s.
fn rate(t: usize, base: f64) -> u64 {
    let wave = ((t as f64 / 600.0).sin() + 1.0) * 0.2 * base;
    let noise = ((t * 7_919) % 101) as f64 / 100.0 * 0.05 * base;
    let spike = if t == 43_210 { 3.0 * base } else { 0.0 };
    (base + wave + noise + spike) as u64
}

/// The mixed run's first test, run for a day: one measured run of 86,400
/// seconds, read and written, over three member devices.
fn day_long() -> Report {
    edited("mix", |v| {
        let jobs = v["jobs"].as_array_mut().unwrap();
        jobs.truncate(1);
        let j = &mut jobs[0];
        j["duration_s"] = json!(DAY);
        let runs = j["runs"].as_array_mut().unwrap();
        runs.truncate(1);
        let r = &mut runs[0];
        r["wall_ns"] = json!(DAY as u64 * 1_000_000_000);
        r["samples"]["read_bytes_per_s"] = json!((0..DAY).map(|t| rate(t, 7e8)).collect::<Vec<_>>());
        r["samples"]["write_bytes_per_s"] = json!((0..DAY).map(|t| rate(t, 3e8)).collect::<Vec<_>>());
        r["device_seconds"] = Value::Array(
            ["sda", "sdb", "sdc"]
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    json!({"name": name,
                           "read_bytes": (0..DAY).map(|t| rate(t + i, 2.3e8)).collect::<Vec<_>>(),
                           "write_bytes": (0..DAY).map(|t| rate(t + i, 1e8)).collect::<Vec<_>>()})
                })
                .collect(),
        );
    })
}

fn export(e: &dyn Exporter, r: &Report) -> String {
    e.export(Document::Run(r, None)).expect("a run has this view")
}

#[test]
fn a_day_long_runs_page_is_at_most_2_mb_and_says_it_is_folded() {
    let r = day_long();
    let html = export(&Html, &r);
    eprintln!("day-long run, HTML: {} bytes", html.len());
    if let Ok(p) = std::env::var("IOLAB_DAY_HTML") {
        std::fs::write(p, &html).unwrap();
    }
    assert!(html.len() <= 2_000_000, "{} bytes", html.len());
    super::svg::tests::check::well_formed_page(&html).unwrap();
    // Both per-second charts are envelopes, and say so.
    assert_eq!(html.matches(r#"class="envelope""#).count(), 2 + 6, "a band per series");
    assert!(
        html.contains("each point drawn is the min/median/max of 87 seconds"),
        "timeline caption"
    );
    assert!(
        html.contains("each point drawn is the min/median/max of 260 seconds"),
        "members caption"
    );
    // The second of the spike is in its bucket's max: 700 MB/s plus three times that.
    let spike = rate(43_210, 7e8) as f64 / 1e6;
    let tenths = (spike * 10.0).floor() / 10.0;
    assert!(html.contains(&format!("max {tenths}")), "the spike's {spike} MB/s is drawn");
}

#[test]
fn a_day_long_runs_json_keeps_every_second() {
    let r = day_long();
    let doc: Value = serde_json::from_str(&export(&Json, &r)).unwrap();
    let run = &doc["jobs"][0]["runs"][0];
    assert_eq!(run["samples"]["read_bytes_per_s"].as_array().unwrap().len(), DAY);
    assert_eq!(run["samples"]["write_bytes_per_s"].as_array().unwrap().len(), DAY);
    for d in run["device_seconds"].as_array().unwrap() {
        assert_eq!(d["read_bytes"].as_array().unwrap().len(), DAY);
        assert_eq!(d["write_bytes"].as_array().unwrap().len(), DAY);
    }
    assert_eq!(run["samples"]["read_bytes_per_s"][43_210], json!(rate(43_210, 7e8)));
}

/// The formats of lines show no per-second figures, so a day costs them
/// nothing: the same lines as a one-second run's, but for the figures.
#[test]
fn a_day_long_runs_lines_and_records_are_as_long_as_a_short_runs() {
    let day = day_long();
    let short = edited("mix", |v| {
        v["jobs"].as_array_mut().unwrap().truncate(1);
        v["jobs"][0]["runs"].as_array_mut().unwrap().truncate(1);
    });
    for (name, e) in [
        ("text", &Text::default() as &dyn Exporter),
        ("markdown", &Markdown(crate::base::units::BwUnit::Mb)),
        ("csv", &Csv),
    ] {
        let (a, b) = (export(e, &day), export(e, &short));
        eprintln!("day-long run, {name}: {} bytes ({} lines)", a.len(), a.lines().count());
        assert_eq!(a.lines().count(), b.lines().count(), "{name}:\n{a}");
        assert!(a.len() < 20_000, "{name}: {} bytes", a.len());
    }
}

/// Zones of the big scan.
const ZONES: u64 = 10_000;

/// A zone's rate across a 20 TiB disk: falling toward the inner tracks,
/// with a slow patch and one very slow zone (a weak spot).
fn zone_rate(i: u64) -> f64 {
    let pos = i as f64 / ZONES as f64;
    let patch = if (6_000..6_040).contains(&i) { 0.5 } else { 1.0 };
    let weak = if i == 7_777 { 0.05 } else { 1.0 };
    (2.8e8 - 1.4e8 * pos + ((i * 7_919) % 97) as f64 * 1e5) * patch * weak
}

/// The scan fixture over 10,000 zones of 2 GiB (a 20 TiB disk), each
/// zone a run of its zones job, as `iolab scan` writes them.
fn ten_thousand_zones() -> Report {
    edited("scan", |v| {
        let zone = 2u64 << 30;
        let run = v["jobs"][0]["runs"][0].clone();
        let runs: Vec<Value> = (0..ZONES)
            .map(|i| {
                let mut r = run.clone();
                r["read"]["bw_bytes"] = json!(zone_rate(i));
                // On two disks (a mirror): each read half the zone's second.
                let half = (zone_rate(i) / 2.0) as u64;
                r["device_seconds"] = json!([{"name": "sda", "read_bytes": [half], "write_bytes": [0]},
                                             {"name": "sdb", "read_bytes": [half], "write_bytes": [0]}]);
                r
            })
            .collect();
        v["jobs"][0]["runs"] = Value::Array(runs);
        let rates: Vec<f64> = (0..ZONES).map(zone_rate).collect();
        let mut sorted = rates.clone();
        sorted.sort_by(f64::total_cmp);
        let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
        let mean = rates.iter().sum::<f64>() / rates.len() as f64;
        let cv = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / rates.len() as f64).sqrt() / mean;
        let job = &mut v["jobs"][0];
        job["read"]["bw_bytes"] = json!(sorted[sorted.len() / 2]);
        job["read"]["bw_min"] = json!(lo);
        job["read"]["bw_max"] = json!(hi);
        job["read"]["bw_cv"] = json!(cv);
        job["warnings"] = json!([]);
        let s = &mut v["scan"];
        s["zones"] = Value::Array(
            (0..ZONES)
                .map(|i| json!({"index": i, "offset": i * zone, "bytes": 256u64 << 20, "wall_ns": 1_000_000_000u64, "bw_bytes": rates[i as usize]}))
                .collect(),
        );
        s["to"] = json!(ZONES * zone);
        s["zone_bytes"] = json!(zone);
        s["window_bytes"] = json!(256u64 << 20);
        s["min"] = json!(lo);
        s["max"] = json!(hi);
        s["avg"] = json!(mean);
        s["drop_pct"] = json!((rates[0] - rates[rates.len() - 1]) / rates[0] * 100.0);
        s["min_offset"] = json!(7_777 * zone);
        s["max_offset"] = json!(0);
    })
}

#[test]
fn a_10000_zone_scan_is_bounded_in_every_format_but_its_records() {
    let r = ten_thousand_zones();
    for (name, e, bound) in [
        ("text", &Text::default() as &dyn Exporter, 20_000),
        ("markdown", &Markdown(crate::base::units::BwUnit::Mb), 20_000),
        ("html", &Html, 1_000_000),
        ("csv", &Csv, usize::MAX),
        ("json", &Json, usize::MAX),
    ] {
        let out = export(e, &r);
        eprintln!("10,000-zone scan, {name}: {} bytes, {} lines", out.len(), out.lines().count());
        if let Ok(dir) = std::env::var("IOLAB_SCAN_OUT") {
            std::fs::write(format!("{dir}/scan-10000.{name}"), &out).unwrap();
        }
        assert!(out.len() <= bound, "{name}: {} bytes", out.len());
        match name {
            "text" | "markdown" => {
                assert!(out.contains("10,000 zones are too many to list one by one"), "{name}");
                assert!(out.lines().count() < 150, "{name}: {} lines", out.lines().count());
            }
            "html" => {
                super::svg::tests::check::well_formed_page(&out).unwrap();
                assert!(out.contains("each point drawn is the min/median/max of 5 zones"));
                assert!(out.contains("The CSV and JSON exports hold every zone."));
                assert!(out.matches("<tr").count() < 200, "{} table rows", out.matches("<tr").count());
            }
            // The records keep every zone.
            "csv" => {
                assert_eq!(out.lines().count() as u64, 1 + ZONES);
                assert!(out.lines().nth(7_778).unwrap().starts_with("7778,read,"), "the weak zone's row");
            }
            _ => {
                let doc: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(doc["scan"]["zones"].as_array().unwrap().len() as u64, ZONES);
            }
        }
        if name != "csv" && name != "json" {
            // The weak zone is named, as the slowest, wherever zones are folded.
            let row = out
                .lines()
                .find(|l| l.contains("slowest") && !l.contains("too many"))
                .unwrap_or_default();
            assert!(row.contains("7778") && row.contains("15.19 TiB"), "{name}: {row}");
        }
    }
}

/// Hosts of the big group.
const HOSTS: usize = 32;

/// `fio --client` JSON of a sequential and a random read on each of 31 of
/// 32 hosts (the last gives nothing), built from a real three-host run's
/// first entry with each host's figures scaled: they vary by up to ±10%,
/// and host 8 reads sequentially at half speed.
fn fio_clients() -> String {
    let path = format!("{}/tests/fixtures/fio/client-3hosts.json", env!("CARGO_MANIFEST_DIR"));
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let template = doc["client_stats"][0].clone();
    let mut stats = Vec::new();
    for i in 0..HOSTS - 1 {
        for (job, rw, bs) in [("seqread", "read", "512k"), ("randread", "randread", "4k")] {
            let mut e = template.clone();
            e["hostname"] = json!(format!("10.9.{i}.2"));
            e["jobname"] = json!(job);
            e["job options"]["rw"] = json!(rw);
            e["job options"]["bs"] = json!(bs);
            let wobble = 0.9 + ((i * 37 + job.len() * 11) % 21) as f64 / 100.0;
            let k = if i == 7 && job == "seqread" { 0.5 } else { wobble };
            let read = &mut e["read"];
            for f in ["io_bytes", "io_kbytes", "bw_bytes", "bw", "total_ios"] {
                read[f] = json!((read[f].as_f64().unwrap() * k).round() as u64);
            }
            read["iops"] = json!(read["iops"].as_f64().unwrap() * k);
            stats.push(e);
        }
    }
    doc["client_stats"] = Value::Array(stats);
    doc["disk_util"] = json!([]);
    serde_json::to_string_pretty(&doc).unwrap()
}

/// fio's output to the group's report, as `iolab run --hosts` makes it:
/// each host's sections merged into tests, the unreachable one's error.
fn group(text: &str) -> crate::summary::hosts::HostsReport {
    let parsed = crate::import::parse_fio_client_json(text).unwrap();
    let reports: Vec<(String, Report)> = parsed
        .into_iter()
        .map(|(h, r)| (h.unwrap(), crate::summary::fio::merge_fio_sections(r)))
        .collect();
    let mut hosts: Vec<(String, Option<&Report>, Option<String>)> = reports.iter().map(|(h, r)| (h.clone(), Some(r), None)).collect();
    let last = format!("10.9.{}.2", HOSTS - 1);
    let refused = format!("no fio server at {last}:8765 (Connection refused)");
    hosts.push((last, None, Some(refused)));
    crate::summary::hosts::hosts_report(&hosts)
}

#[test]
fn a_group_of_32_hosts_is_grouped_judged_and_rendered_with_hosts_as_rows() {
    let text = fio_clients();
    let start = std::time::Instant::now();
    let h = group(&text);
    let grouped = start.elapsed();
    let doc = Document::Hosts(&h);
    let outs: Vec<(&str, String)> = [
        ("text", &Text::default() as &dyn Exporter),
        ("markdown", &Markdown(crate::base::units::BwUnit::Mb)),
        ("csv", &Csv),
        ("html", &Html),
        ("json", &Json),
    ]
    .into_iter()
    .map(|(n, e)| (n, e.export(doc).unwrap()))
    .collect();
    // Measured, not asserted: a debug build on a shared machine.
    eprintln!(
        "32 hosts ({} bytes of fio JSON): grouped and judged in {grouped:?}, in all five formats by {:?}",
        text.len(),
        start.elapsed()
    );
    for (n, o) in &outs {
        eprintln!("32 hosts, {n}: {} bytes", o.len());
    }
    assert_eq!(h.hosts.len(), HOSTS);
    assert_eq!(h.tests.len(), 2);
    assert!(super::views::hosts::hosts_as_rows(&h));
    assert!(h.tests[0].outliers.contains(&"10.9.7.2".to_string()), "{:?}", h.tests[0].outliers);
    let text = &outs[0].1;
    // A row per host: the table fits a terminal.
    for l in text.lines().filter(|l| l.starts_with(['│', '┌', '└', '╞'])) {
        assert!(l.chars().count() <= 100, "{} wide: {l}", l.chars().count());
    }
    assert!(
        text.lines().any(|l| l.starts_with("│ 10.9.31.2") && l.contains("no result")),
        "{text}"
    );
    // Spreadsheets keep a row per test and host.
    assert_eq!(outs[2].1.lines().count(), 1 + 2 * HOSTS);
    insta::assert_snapshot!(
        "a_group_of_32_hosts_in_text_and_markdown",
        format!("{}--- markdown\n{}", outs[0].1, outs[1].1)
    );
}
