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
