//! The HTML page pinned on the render fixtures (`tests/fixtures/render/`)
//! and variants of them: well-formed, self-contained, the charts each run
//! should have with the right number of points, a table per chart, text
//! escaped, the size budget, and one golden outline of the structure.

use super::page;
use crate::compare::{Comparison, RunRef, compare};
use crate::render::Page;
use crate::render::tests::{edited, report, zfs_run};
use crate::store::RunSummary;
use crate::summary::Report;
use serde_json::{Value, json};
use std::collections::BTreeMap;

// ------------------------------------------------------------ fixtures

/// The runs of every kind the fixtures hold.
const RUNS: [&str; 11] = [
    "demo", "demoB", "scan", "scale", "time", "time2", "time3", "files", "steady", "mix", "dd",
];

fn one(r: &Report) -> String {
    page(&Page {
        runs: vec![(r, None)],
        comparison: None,
    })
}

fn run_ref(r: Report, id: i64, label: Option<&str>, price: Option<f64>) -> RunRef {
    RunRef {
        id,
        label: label.map(String::from),
        price,
        capacity_bytes: Some(1_000_000_000_000),
        report: r,
        built: None,
        power_cut: None,
    }
}

/// The scan fixture with `n` zones on a falling curve over 1 TB.
fn scan_of(n: u64) -> Report {
    edited("scan", |v| {
        let s = &mut v["scan"];
        let zone = 10_000_000_000u64;
        let zones: Vec<Value> = (0..n)
            .map(|i| {
                json!({"index": i, "offset": i * zone, "bytes": 8u64 << 20, "wall_ns": 40_000_000u64,
                       "bw_bytes": 2.1e8 - (i as f64) * 1.0e8 / n as f64 + ((i % 7) as f64) * 2.0e6})
            })
            .collect();
        s["zones"] = json!(zones);
        s["to"] = json!(n * zone);
        s["zone_bytes"] = json!(zone);
        s["min"] = json!(1.1e8);
        s["max"] = json!(2.22e8);
        s["avg"] = json!(1.6e8);
    })
}

/// Per-second samples: `n` seconds around `bps`, a little uneven.
fn seconds(n: usize, bps: u64) -> Vec<u64> {
    (0..n).map(|i| bps + (i as u64 % 5) * bps / 50).collect()
}

/// The demo fixture as the default battery (CrystalDiskMark's 4 tests,
/// each read then written: 8 jobs), each job with a `warmup`-second
/// warm-up and 3 runs of `secs` seconds.
fn battery(warmup: usize, secs: usize) -> Report {
    edited("demo", |v| {
        let jobs = v["jobs"].as_array().unwrap().clone();
        let mut out = Vec::new();
        for (k, n) in ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"].iter().enumerate() {
            for (d, base) in [("read", &jobs[0]), ("write", &jobs[1])] {
                let mut j = base.clone();
                j["name"] = json!(format!("{n} {d}"));
                let bps = 3_000_000_000u64 / (k as u64 * 4 + 1);
                let samples = |n: usize| {
                    if d == "read" {
                        json!({"read_bytes_per_s": seconds(n, bps), "write_bytes_per_s": []})
                    } else {
                        json!({"read_bytes_per_s": [], "write_bytes_per_s": seconds(n, bps)})
                    }
                };
                if warmup > 0 {
                    j["warmup"] = samples(warmup);
                }
                for r in j["runs"].as_array_mut().unwrap() {
                    r["samples"] = samples(secs);
                }
                out.push(j);
            }
        }
        v["jobs"] = json!(out);
    })
}

// ------------------------------------------------------------ reading the page

// The page is read by render's one markup checker, the charts' too.
use crate::render::svg::tests::check::{Tok, page_tokens as tokens, well_formed_page as well_formed};

fn assert_ok(html: &str) {
    if let Err(e) = well_formed(html) {
        panic!("not well-formed: {e}");
    }
}

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

fn attr<'a>(el: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let i = el.find(&key).unwrap_or_else(|| panic!("no {name} in {}", &el[..el.len().min(300)])) + key.len();
    &el[i..i + el[i..].find('"').unwrap()]
}

/// One chart of the page: its kind and its markup (up to `</figure>`).
struct Fig<'a> {
    kind: &'a str,
    html: &'a str,
}

impl Fig<'_> {
    fn points(&self) -> usize {
        attr(self.html, "data-points").parse().unwrap()
    }
    /// Rows of its data table.
    fn rows(&self) -> usize {
        let t = &self.html[self.html.find("<tbody>").unwrap()..];
        count(&t[..t.find("</tbody>").unwrap()], "<tr>")
    }
}

fn figures(html: &str) -> Vec<Fig<'_>> {
    html.split("<figure class=\"chart\" data-chart=\"")
        .skip(1)
        .map(|f| Fig {
            kind: &f[..f.find('"').unwrap()],
            html: &f[..f.find("</figure>").expect("figure closed")],
        })
        .collect()
}

fn kinds(html: &str) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for f in figures(html) {
        *m.entry(f.kind).or_insert(0) += 1;
    }
    m
}

/// Checks what every page must be: well-formed, self-contained, each chart with its table.
fn check_page(html: &str) {
    assert_ok(html);
    assert!(html.contains("<meta charset=\"utf-8\"/>"));
    let csp = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\"/>", super::CSP);
    assert!(html.contains(&csp), "the CSP meta");
    for bad in [
        "http://",
        "https://",
        "src=",
        "href=\"http",
        "<script",
        "<link",
        "<img",
        "<iframe",
        "url(",
        "@import",
        "@font-face",
        " on",
    ] {
        let without_csp = html.replace(&csp, "");
        if bad == " on" {
            // No event handler attributes (onclick=, onload=…).
            let handlers = tokens(html)
                .unwrap()
                .into_iter()
                .filter(|t| matches!(t, Tok::Open(_, a, _) if a.iter().any(|(n, _)| n.starts_with("on"))))
                .count();
            assert_eq!(handlers, 0);
            continue;
        }
        assert!(!without_csp.contains(bad), "{bad} in the page");
    }
    for href in html.split("href=\"").skip(1) {
        assert!(href.starts_with('#'), "a link out of the page: {}", &href[..40.min(href.len())]);
    }
    for f in figures(html) {
        assert!(f.html.contains("<svg viewBox="), "{}: an inline svg", f.kind);
        assert!(f.html.contains("<table class=\"data\">"), "{}: a table", f.kind);
        assert!(f.html.contains("<figcaption>"), "{}: a caption", f.kind);
        assert!(f.html.contains("class=\"axis-label\""), "{}: labelled axes", f.kind);
    }
    // Ids are unique.
    let ids: Vec<&str> = tokens(html)
        .unwrap()
        .into_iter()
        .filter_map(|t| match t {
            Tok::Open(_, a, _) => a.into_iter().find(|(n, _)| *n == "id").map(|(_, v)| v),
            _ => None,
        })
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len(), "duplicate ids");
    // Every aria-labelledby points at ids of the page.
    for l in html.split("aria-labelledby=\"").skip(1) {
        for id in l[..l.find('"').unwrap()].split(' ') {
            assert!(ids.contains(&id), "aria-labelledby {id} is not an id of the page");
        }
    }
}

// ------------------------------------------------------------ tests

#[test]
fn the_checker_rejects_what_it_should() {
    let ok = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/><style>a{b:c}</style></head><body>x &amp; y<svg><path d=\"M0 0\"/></svg></body></html>";
    assert!(well_formed(ok).is_ok(), "{:?}", well_formed(ok));
    for bad in [
        "<html></html>",
        "<!DOCTYPE html>\n<html><b></html>",
        "<!DOCTYPE html>\n<html><meta charset=\"utf-8\"></html>",
        "<!DOCTYPE html>\n<html>x & y</html>",
        "<!DOCTYPE html>\n<html a=\"1\" a=\"2\"></html>",
        "<!DOCTYPE html>\n<html a=1></html>",
        "<!DOCTYPE html>\n<html></html><p></p>",
        "<!DOCTYPE html>\n<html><style></style><script></style></html>",
        "<!DOCTYPE html>\n<html><div/></html>",
    ] {
        assert!(well_formed(bad).is_err(), "{bad}");
    }
}

#[test]
fn every_fixture_gives_a_well_formed_self_contained_page() {
    for name in RUNS {
        let html = one(&report(name));
        check_page(&html);
        assert!(html.contains("<section class=\"run\" id=\"run-1\">"), "{name}");
        assert!(html.contains("<section class=\"run-header\""), "{name}");
        assert_eq!(html, one(&report(name)), "{name}: the page is deterministic");
    }
}

#[test]
fn each_run_has_its_charts() {
    let expect: [(&str, &[(&str, usize)]); 8] = [
        ("demo", &[("latency", 2), ("timeline", 2)]),
        // The zones job's timeline is the scan curve; the access job's latency is the access chart.
        ("scan", &[("latency", 2), ("scan-access", 1), ("scan-curve", 1), ("timeline", 2)]),
        (
            "scale",
            &[("latency", 8), ("scale-sweep", 4), ("scale-together", 1), ("timeline", 8)],
        ),
        ("time", &[("time-runs", 2)]),
        ("files", &[("app-phases", 1)]),
        ("steady", &[("latency", 1), ("timeline", 1)]),
        ("dd", &[("latency", 2), ("timeline", 2)]),
        ("mix", &[("latency", 4), ("timeline", 4)]),
    ];
    for (name, want) in expect {
        let html = one(&report(name));
        let got: Vec<(&str, usize)> = kinds(&html).into_iter().collect();
        assert_eq!(got, want.to_vec(), "{name}");
    }
}

#[test]
fn sections_are_there_when_the_run_has_them() {
    let has = |html: &str, class: &str| html.contains(&format!("<section class=\"{class}\""));
    let demo = one(&report("demo"));
    assert!(has(&demo, "summary") && has(&demo, "jobs") && has(&demo, "job"));
    assert!(!has(&demo, "scan") && !has(&demo, "scale") && !has(&demo, "time") && !has(&demo, "app"));
    assert!(has(&one(&report("scan")), "scan"));
    assert!(has(&one(&report("scale")), "scale"));
    let time = one(&report("time"));
    assert!(has(&time, "time") && !has(&time, "summary") && !has(&time, "jobs"));
    assert!(has(&one(&report("files")), "app"));
    // The summary table: one row per test, warnings in the row.
    let mix = one(&report("mix"));
    let table = &mix[mix.find("<table class=\"cdm\">").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(count(table, "<td class=\"test\">"), 4);
    assert!(table.contains("class=\"badge untrustworthy\" title=\"") && table.contains(">high_cv</span>"));
    assert!(table.contains("<tr class=\"notes\">") && table.contains("[cpu_bound]"));
    assert!(table.contains("style=\"--w:100.0%\""), "the fastest gets a full bar");
    assert!(mix.contains("MB/s = 10^6 bytes/s"));
}

#[test]
fn timeline_points_are_the_seconds_of_samples() {
    let check = |r: &Report| {
        let html = one(r);
        let timelines: Vec<Fig> = figures(&html).into_iter().filter(|f| f.kind == "timeline").collect();
        let jobs: Vec<_> = r
            .jobs()
            .iter()
            .filter(|j| !r.scan_zones_job().is_some_and(|z| std::ptr::eq(z, *j)))
            .collect();
        assert_eq!(timelines.len(), jobs.len());
        for (f, j) in timelines.iter().zip(jobs) {
            let windows = j.warmup.iter().chain(j.runs.iter().map(|r| &r.samples));
            let n: usize = windows.map(|s| s.read_bytes_per_s.len() + s.write_bytes_per_s.len()).sum();
            assert_eq!(f.points(), n, "{}", j.name);
            assert_eq!(count(f.html, "class=\"pt\""), n);
            let secs: usize = j
                .warmup
                .iter()
                .chain(j.runs.iter().map(|r| &r.samples))
                .map(|s| s.read_bytes_per_s.len().max(s.write_bytes_per_s.len()))
                .sum();
            assert_eq!(f.rows(), secs, "{}: a table row per second", j.name);
        }
    };
    for name in RUNS {
        check(&report(name));
    }
    check(&battery(5, 30));
    // A mixed job with a warm-up: two series over warm-up and runs.
    check(&edited("mix", |v| {
        v["jobs"][0]["warmup"] = json!({"read_bytes_per_s": [1, 2, 3], "write_bytes_per_s": [4, 5, 6]});
    }));
}

#[test]
fn a_timeline_shows_warm_up_runs_and_a_write_cliff() {
    let r = edited("demo", |v| {
        let j = &mut v["jobs"][1];
        j["warmup"] = json!({"read_bytes_per_s": [], "write_bytes_per_s": [1_000_000_000u64, 1_100_000_000u64]});
        for run in j["runs"].as_array_mut().unwrap() {
            run["samples"]["write_bytes_per_s"] = json!(seconds(20, 2_000_000_000));
        }
        j["runs"][1]["samples"]["write_bytes_per_s"] = json!([seconds(8, 2_000_000_000), seconds(12, 500_000_000)].concat());
        j["runs"][1]["write_cliff"] = json!({"at_second": 8, "before_bps": 2.0e9, "after_bps": 5.0e8, "drop_pct": 75.0});
    });
    let html = one(&r);
    check_page(&html);
    let t = &figures(&html).into_iter().filter(|f| f.kind == "timeline").collect::<Vec<_>>()[1];
    assert_eq!(t.points(), 62);
    assert_eq!(count(t.html, "class=\"band\""), 4);
    for band in [
        "<title>warm-up: 0 s to 2 s</title>",
        ">run 1</text>",
        ">run 2</text>",
        ">run 3</text>",
    ] {
        assert!(t.html.contains(band), "{band}");
    }
    assert_eq!(count(t.html, "class=\"marker\""), 1);
    // The cliff is 8 s into run 2, which starts after the 2 s warm-up and run 1's 20 s.
    assert!(t.html.contains("<title>write cliff (run 2) at 30 s</title>"), "{}", t.html);
    assert!(t.html.contains("Write cliff in run 2 after 8 s: 2000.0 → 500.0 MB/s (75% lower)."));
    assert!(t.html.contains("<details>"), "a long table is folded");
}

#[test]
fn steady_state_rounds_and_their_window_are_marked() {
    let html = one(&report("steady"));
    let t = &figures(&html)[0];
    assert_eq!(t.kind, "timeline");
    assert_eq!(count(t.html, "class=\"band\""), 6);
    assert!(t.html.contains(">round 6</text>"));
    assert!(
        t.html.contains("<title>last 5 rounds at 1 s</title>"),
        "the window starts after round 1"
    );
    assert!(t.html.contains("<title>window mean: 1216.97 MB/s</title>"));
    assert!(t.html.contains("NOT steady after 6 of at most 6 rounds"));
    assert!(html.contains("<strong class=\"loud\">BUFFERED"), "buffered I/O is said loudly");
    let reached = edited("steady", |v| {
        let s = &mut v["jobs"][0]["steady"];
        s["reached"] = json!(true);
        s["steady_at_round"] = json!(5);
    });
    let html = one(&reached);
    assert!(html.contains("<title>steady at round 5 at 5 s</title>"));
    assert!(html.contains("Steady state reached at round 5 of 6"));
}

#[test]
fn latency_is_a_percentile_curve_on_a_log_axis() {
    let html = one(&report("mix"));
    let l = figures(&html).into_iter().find(|f| f.kind == "latency").unwrap();
    assert_eq!(l.points(), 12, "6 percentiles, reads and writes");
    assert!(l.html.contains("data-series=\"read\"") && l.html.contains("data-series=\"write\""));
    assert!(l.html.contains(">p99.99</text>") && l.html.contains(">max</text>"));
    assert!(l.html.contains("log scale"));
    assert_eq!(l.rows(), 8, "min, mean and the six percentiles");
}

#[test]
fn a_scan_curve_has_one_point_per_zone() {
    let html = one(&report("scan"));
    let curve = figures(&html).into_iter().find(|f| f.kind == "scan-curve").unwrap();
    assert_eq!(curve.points(), 8);
    assert_eq!(curve.rows(), 8);
    assert_eq!(count(curve.html, "class=\"hline\""), 3);
    assert!(curve.html.contains(">Position (MiB)</text>"));
    assert!(html.contains("Burst rate") && html.contains("5001.45 MB/s"));
    let access = figures(&html).into_iter().find(|f| f.kind == "scan-access").unwrap();
    assert_eq!(access.points(), 6, "the access job's percentiles");
    for n in [40, 100] {
        let html = one(&scan_of(n));
        check_page(&html);
        let curve = figures(&html).into_iter().find(|f| f.kind == "scan-curve").unwrap();
        assert_eq!(curve.points(), n as usize);
        assert_eq!(count(curve.html, "class=\"pt\""), n as usize);
        assert_eq!(curve.rows(), n as usize);
        assert!(curve.html.contains(">Position (GiB)</text>"));
    }
    // Without the access job, the scan's own access figures.
    let r = edited("scan", |v| {
        let jobs = v["jobs"].as_array_mut().unwrap();
        jobs.retain(|j| !j["rw"].as_str().unwrap().starts_with("rand"));
    });
    let html = one(&r);
    let access = figures(&html).into_iter().find(|f| f.kind == "scan-access").unwrap();
    assert_eq!(access.points(), 4, "min, p50, p99, max");
}

#[test]
fn scale_sweeps_mark_the_knee_and_compare_alone_with_together() {
    let html = one(&report("scale"));
    let sweeps: Vec<Fig> = figures(&html).into_iter().filter(|f| f.kind == "scale-sweep").collect();
    // Depth: throughput then latency; threads: the same.
    assert_eq!(sweeps.iter().map(|f| f.points()).collect::<Vec<_>>(), [4, 4, 4, 4]);
    assert!(
        sweeps[0].html.contains("<title>t2 knee at QD1 at 1</title>"),
        "the knee of t2's depth sweep"
    );
    assert_eq!(count(sweeps[0].html, "class=\"marker\""), 1);
    assert_eq!(count(sweeps[2].html, "class=\"marker\""), 0, "no knee in the thread sweeps");
    assert!(sweeps[0].html.contains(">Queue depth (I/Os in flight per thread)</text>"));
    let t = figures(&html).into_iter().find(|f| f.kind == "scale-together").unwrap();
    assert_eq!(count(t.html, "class=\"bar\""), 5, "2 alone, 2 together, the aggregate");
    assert_eq!(count(t.html, "class=\"ref\""), 1, "the ideal sum");
    assert!(t.html.contains("Verdict: 2 devices together give 2.77×"));
    assert!(html.contains("<div class=\"verdicts\">"), "the verdicts listed");
}

#[test]
fn a_layout_is_drawn_against_its_member() {
    use crate::judge::scale::{Layout, LayoutRun, layout_verdict};
    let verdict = layout_verdict(&LayoutRun {
        layout: Layout::Raid0,
        name: "btrfs raid0".into(),
        members: 2,
        copies: None,
        rw: crate::plan::Rw::Randread,
        in_flight: 4,
        layout_bps: 4.5e8,
        member_bps: 2.5e8,
        cpu_busy: Some(0.55),
    });
    let r = edited("scale", |v| {
        let s = &mut v["scale"];
        s["targets"] = json!(["/dev/shm/sa"]);
        s["member"] = json!("/dev/shm/sb");
        s["layout"] = json!({"layout": "raid0", "name": "btrfs raid0", "members": 2, "copies": null, "source": "detected"});
        let points = s["points"].as_array_mut().unwrap();
        points.retain(|p| p["targets"] == json!(["/dev/shm/sa"]));
        points.push(json!({"kind": "member", "targets": ["/dev/shm/sb"], "qd": 4, "threads": 1,
            "bw_bytes": 2.5e8, "iops": 61035.0, "lat_ns": 65000.0, "cpu_busy": 0.4, "target_bw_bytes": [2.5e8]}));
        s["verdicts"] = json!([{"kind": "layout", "target": "/dev/shm/sa", "member": "/dev/shm/sb", "verdict": verdict}]);
    });
    let sc = r.scale().unwrap();
    let (lay, member) = sc.layout_pair().unwrap();
    assert_eq!(
        (lay.bw_bytes, member.bw_bytes),
        (338128896.0, 2.5e8),
        "the layout's point at the member's QD4"
    );
    let html = one(&r);
    check_page(&html);
    let l = figures(&html).into_iter().find(|f| f.kind == "scale-layout").unwrap();
    assert_eq!(count(l.html, "class=\"bar\""), 2);
    assert!(count(l.html, "class=\"ref\"") >= 1, "the expectation");
    assert!(l.html.contains(&crate::render::svg::escape(&verdict.text)));
}

#[test]
fn member_devices_get_a_series_each() {
    let two = |v: &mut Value| {
        for run in v["jobs"][0]["runs"].as_array_mut().unwrap() {
            run["device_seconds"] = json!([
                {"name": "md0", "read_bytes": [900, 950], "write_bytes": [0, 0]},
                {"name": "sda", "read_bytes": [900, 950, 10], "write_bytes": [0, 0, 0]},
                {"name": "sdb", "read_bytes": [0, 0, 0], "write_bytes": [0, 0, 0]}
            ]);
        }
    };
    let html = one(&edited("demo", two));
    check_page(&html);
    let m = figures(&html).into_iter().find(|f| f.kind == "members").unwrap();
    assert_eq!(m.points(), 3 * (2 + 3 + 3), "a read job: one series per device");
    for d in ["md0", "sda", "sdb"] {
        assert!(m.html.contains(&format!("data-series=\"{d}\"")), "{d}");
    }
    assert_eq!(m.rows(), 9, "3 seconds in each of 3 runs");
    assert_eq!(count(m.html, "class=\"band\""), 3);
    // One device alone is the job's own throughput: no chart, except for a scale point.
    let one_dev = edited("demo", |v| {
        for run in v["jobs"][0]["runs"].as_array_mut().unwrap() {
            run["device_seconds"] = json!([{"name": "sda", "read_bytes": [900], "write_bytes": [0]}]);
        }
    });
    assert_eq!(kinds(&one(&one_dev)).get("members"), None);
    let scale = edited("scale", |v| {
        v["jobs"][0]["runs"][0]["device_seconds"] = json!([{"name": "sda", "read_bytes": [900], "write_bytes": [0]}]);
    });
    assert_eq!(kinds(&one(&scale)).get("members"), Some(&1));
}

#[test]
fn timed_commands_and_workloads() {
    let html = one(&report("time"));
    let f = figures(&html);
    assert_eq!(f[0].kind, "time-runs");
    assert_eq!(count(f[0].html, "class=\"bar\""), 3);
    assert_eq!(count(f[0].html, "class=\"hline\""), 3, "mean and ± σ");
    assert_eq!(f[0].rows(), 3);
    assert_eq!(count(f[1].html, "class=\"bar\""), 6, "device read and written per run");
    assert!(html.contains("sleep 0.05"));
    let html = one(&report("files"));
    let a = &figures(&html)[0];
    assert_eq!(count(a.html, "class=\"bar\""), 15, "5 phases × (2 runs and the mean)");
    assert!(count(a.html, "class=\"whisker\"") >= 1, "mean ± σ");
    assert!(a.html.contains("data-series=\"mean ± σ\""));
    assert!(a.html.contains("log scale"), "phases from 0.8 ms to 22 ms");
    assert!(html.contains("first_run_slower"));
    let interrupted = one(&edited("time3", |v| v["interrupted"] = json!(true)));
    check_page(&interrupted);
    assert!(interrupted.contains("<p class=\"alert\">INTERRUPTED: a signal stopped this run;"));
}

#[test]
fn hostile_text_is_shown_as_text() {
    let nasty = "<script>alert(1)</script>";
    let r = edited("demo", |v| {
        v["command"] = json!(format!("run {nasty}"));
        v["target"]["path"] = json!(format!("/mnt/{nasty}&\"'"));
        v["jobs"][0]["name"] = json!(nasty);
        v["jobs"][0]["warnings"][0]["message"] = json!(format!("{nasty} & more"));
        v["host"]["hostname"] = json!(nasty);
    });
    let s = RunSummary {
        id: 3,
        label: Some(nasty.into()),
        tags: vec![(nasty.into(), nasty.into())],
        started_at: "2026-11-22T13:16:47Z".into(),
        kind: "run".into(),
        target: nasty.into(),
        complete: false,
    };
    let html = page(&Page {
        runs: vec![(&r, Some(&s))],
        comparison: None,
    });
    check_page(&html);
    assert!(!html.contains("<script"), "no script element");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<p class=\"alert\">INCOMPLETE: stored run 3 did not finish.</p>"));
    // In a comparison too (labels are run names).
    let runs = [
        run_ref(report("demo"), 1, Some(nasty), None),
        run_ref(report("demoB"), 2, Some("b"), None),
    ];
    let c = compare(&runs, 1).unwrap();
    let html = page(&Page {
        runs: vec![],
        comparison: Some(&c),
    });
    check_page(&html);
    assert!(!html.contains("<script"));
}

/// Three runs compared: demo (the baseline), demoB, and demo again with other figures.
fn three() -> (Vec<RunRef>, Comparison) {
    let third = edited("demo", |v| {
        v["run_id"] = json!(12);
        for j in v["jobs"].as_array_mut().unwrap() {
            for r in j["runs"].as_array_mut().unwrap() {
                for d in ["read", "write"] {
                    if let Some(bw) = r[d]["bw_bytes"].as_f64() {
                        r[d]["bw_bytes"] = json!(bw * 0.6);
                    }
                }
            }
            for d in ["read", "write"] {
                if let Some(bw) = j[d]["bw_bytes"].as_f64() {
                    j[d]["bw_bytes"] = json!(bw * 0.6);
                }
            }
        }
    });
    let runs = vec![
        run_ref(report("demo"), 2, Some("demoA"), Some(59.99)),
        run_ref(report("demoB"), 9, Some("demoB"), Some(120.0)),
        run_ref(third, 12, None, None),
    ];
    let c = compare(&runs, 2).unwrap();
    (runs, c)
}

#[test]
fn a_comparison_of_three_runs_comes_first_with_whiskers() {
    let (runs, c) = three();
    let p = Page {
        runs: runs.iter().map(|r| (&r.report, None)).collect(),
        comparison: Some(&c),
    };
    let html = page(&p);
    check_page(&html);
    let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("{s}"));
    assert!(at("id=\"comparison\"") < at("id=\"run-1\""));
    assert!(at("id=\"run-1\"") < at("id=\"run-2\"") && at("id=\"run-2\"") < at("id=\"run-3\""));
    let toc = &html[at("<nav class=\"toc\"")..at("</nav>")];
    for id in ["#comparison", "#run-1", "#run-2", "#run-3"] {
        assert!(toc.contains(&format!("href=\"{id}\"")), "{id} in the contents");
    }
    let bars: Vec<Fig> = figures(&html).into_iter().filter(|f| f.kind == "compare-bars").collect();
    assert_eq!(bars.len(), 1, "the demo suite's tests are all MB/s");
    let b = &bars[0];
    let tests = c.tests.len();
    assert_eq!(count(b.html, "class=\"bar\""), 3 * tests);
    let intervals = (0..3)
        .flat_map(|i| c.tests.iter().map(move |t| (i, t)))
        .filter(|(i, t)| t.value_interval(*i, 0).is_some())
        .count();
    assert!(intervals > 0);
    assert_eq!(count(b.html, "class=\"whisker\""), intervals);
    // The baseline's bars have no interval; the others' do.
    let groups: Vec<&str> = b.html.split("<g class=\"bars\"").skip(1).collect();
    assert!(groups[0].starts_with(" data-series=\"demoA (baseline)\""));
    assert!(!groups[0][..groups[0].find("</g>").unwrap()].contains("interval"));
    assert!(groups[1][..groups[1].find("</g>").unwrap()].contains("(interval "));
    // Ratios in words, prices, findings.
    assert!(b.html.contains("(noise)") || b.html.contains("%"), "differences printed");
    assert!(b.html.contains("MB/s per $"));
    assert!(html.contains("/GB</td>"), "prices per GB");
    for f in &c.findings {
        assert!(html.contains(&crate::render::svg::escape(&f.message)), "{}", f.message);
    }
    assert!(
        html.contains("the baseline&#39;s value times its ends"),
        "the whiskers' legend (escaped)"
    );
    // A whisker spans the baseline's value times the interval of the ratio.
    let t = &c.tests[0];
    let [lo, hi] = t.ci[1].unwrap();
    let title = format!(
        "(interval {} to {})",
        crate::render::svg::exact(t.values[0] * lo / 1e6),
        crate::render::svg::exact(t.values[0] * hi / 1e6)
    );
    assert!(b.html.contains(&title), "{title}");
}

/// A fixture whose jobs carry no warning: figures iolab trusts (the mix
/// fixture was measured on tmpfs, `no_block_device`).
fn trusted(name: &str) -> Report {
    edited(name, |v| {
        for j in v["jobs"].as_array_mut().unwrap() {
            j["warnings"] = json!([]);
        }
    })
}

#[test]
fn the_cache_question_is_answered_first() {
    let runs = [
        run_ref(trusted("mix"), 1, Some("hdd"), None),
        run_ref(trusted("mix"), 2, Some("ssd"), None),
    ];
    let c = compare(&runs, 1).unwrap();
    assert!(c.findings.iter().any(|f| f.code == crate::judge::Code::CacheCandidate));
    let html = page(&Page {
        runs: vec![],
        comparison: Some(&c),
    });
    check_page(&html);
    let findings = &html[html.find("<div class=\"findings\">").unwrap()..];
    let first = &findings[findings.find("<li").unwrap()..];
    assert!(
        first.starts_with("<li class=\"key\" data-code=\"cache_candidate\">"),
        "{}",
        &first[..200]
    );
    // MB/s tests and IOPS tests in separate charts.
    assert_eq!(kinds(&html).get("compare-bars"), Some(&2));
    let iops = figures(&html).into_iter().find(|f| f.html.contains("IOPS tests")).unwrap();
    assert!(iops.html.contains(">I/Os per second (IOPS)</text>"));
}

/// Issue 37: ext4 against tmpfs led, in bold, with "tmpfs is worth it as
/// L2ARC" while flagging tmpfs's figures untrustworthy. A finding on
/// untrustworthy figures is never the page's lead: it carries the caveat and
/// the untrustworthy badge, and nothing above it is bold.
#[test]
fn a_finding_on_untrustworthy_figures_never_leads_the_page() {
    // The mix fixture's fourth job is its 4K QD1 random one: the cache question's.
    let tmpfs = edited("mix", |v| {
        assert_eq!(v["jobs"][3]["name"], "RND4K Q1T1 mix R70/W30");
        v["jobs"][3]["warnings"] = json!([{"code": "no_block_device", "message": "no block device serves /mnt/t (filesystem tmpfs)"}]);
    });
    let runs = [
        run_ref(trusted("mix"), 1, Some("ext4"), None),
        run_ref(tmpfs, 2, Some("tmpfs"), None),
    ];
    let c = compare(&runs, 1).unwrap();
    let cache = c.findings.iter().find(|f| f.code == crate::judge::Code::CacheCandidate).unwrap();
    assert_eq!(cache.severity, crate::judge::Severity::Untrustworthy);
    assert!(
        cache.message.contains(" Caveat: tmpfs carries no_block_device"),
        "{}",
        cache.message
    );
    let html = page(&Page {
        runs: vec![],
        comparison: Some(&c),
    });
    check_page(&html);
    let findings = &html[html.find("<div class=\"findings\">").unwrap()..];
    let findings = &findings[..findings.find("</div>").unwrap()];
    assert!(!findings.contains("class=\"key\""), "{findings}");
    let first = &findings[findings.find("<li").unwrap()..];
    assert!(!first.starts_with("<li data-code=\"cache_candidate\">"), "{findings}");
    assert!(
        findings.contains("<li data-code=\"cache_candidate\"><span class=\"badge untrustworthy\">"),
        "{findings}"
    );
}

#[test]
fn timed_tests_compare_in_seconds() {
    let runs = [
        run_ref(report("time2"), 7, Some("t2"), None),
        run_ref(report("time3"), 10, None, None),
    ];
    let c = compare(&runs, 7).unwrap();
    let html = page(&Page {
        runs: runs.iter().map(|r| (&r.report, None)).collect(),
        comparison: Some(&c),
    });
    check_page(&html);
    let b = figures(&html).into_iter().find(|f| f.kind == "compare-bars").unwrap();
    assert!(b.html.contains(">Time (s)</text>"));
    let t = &c.tests[0];
    if let Some((lo, hi)) = t.value_interval(1, 0) {
        assert!(lo <= hi && lo > 0.0);
        assert_eq!(count(b.html, "class=\"whisker\""), 1);
    }
}

#[test]
fn the_figures_behind_the_whiskers() {
    let (_, c) = three();
    let t = &c.tests[0];
    assert_eq!(t.value_interval(0, 0), None, "none for the baseline");
    let [lo, hi] = t.ci[1].unwrap();
    assert_eq!(t.value_interval(1, 0), Some((t.values[0] * lo, t.values[0] * hi)));
    let mut s = t.clone();
    s.unit = crate::base::units::Unit::Seconds;
    s.values = vec![2.0, 1.0, 1.0];
    s.ci[1] = Some([1.6, 2.5]);
    assert_eq!(s.value_interval(1, 0), Some((0.8, 1.25)), "times: baseline / speed-up");
}

#[test]
fn size_budget_and_render_time() {
    let budget = 1_500_000;
    let scan = scan_of(100);
    let start = std::time::Instant::now();
    let rounds = 20;
    let mut html = String::new();
    for _ in 0..rounds {
        html = one(&scan);
    }
    let per_page = start.elapsed() / rounds;
    // The default battery as iolab runs it (1 s warm-up, 3 runs of 5 s), a
    // minute per run, and 300 s per run.
    let default = one(&battery(1, 5));
    let minute = one(&battery(1, 60));
    let long = one(&battery(1, 300));
    let (runs, c) = three();
    let compared = page(&Page {
        runs: runs.iter().map(|r| (&r.report, None)).collect(),
        comparison: Some(&c),
    });
    let demo = one(&report("demo"));
    eprintln!(
        "sizes: demo fixture {} B; 100-zone scan {} B, rendered in {per_page:?}; default battery (8 jobs, 1 s warm-up + 3 × 5 s) {} B; \
         with 3 × 60 s {} B; with 3 × 300 s {} B; 3-run comparison {} B",
        demo.len(),
        html.len(),
        default.len(),
        minute.len(),
        long.len(),
        compared.len()
    );
    for (what, p) in [
        ("scan", &html),
        ("battery", &default),
        ("a minute per run", &minute),
        ("300 s per run", &long),
        ("comparison", &compared),
    ] {
        check_page(p);
        assert!(p.len() < budget, "{what}: {} bytes", p.len());
    }
    assert!(html.len() < 200_000, "a 100-zone scan is well under budget: {}", html.len());
    assert!(
        default.len() < 200_000,
        "the default battery is well under budget: {}",
        default.len()
    );
    assert!(minute.len() < budget / 3, "{}", minute.len());
    let timelines: Vec<usize> = figures(&long).iter().filter(|f| f.kind == "timeline").map(|f| f.points()).collect();
    assert_eq!(timelines, vec![901; 8]);
    assert!(per_page < std::time::Duration::from_secs(2), "{per_page:?}");
}

/// Issue 27: the default battery's 8 tests of 3 runs of an hour each
/// (10,801 seconds per test): the page's per-second charts share
/// `MAX_PAGE_POINTS`, each folded to 1,000 points, and the page stays under
/// 2 MB.
#[test]
fn a_battery_of_hour_long_runs_shares_the_pages_points() {
    let page = one(&battery(1, 3_600));
    eprintln!("8 tests of 3 × 3,600 s: {} B", page.len());
    check_page(&page);
    assert!(page.len() <= 2_000_000, "{} bytes", page.len());
    let timelines: Vec<usize> = figures(&page).iter().filter(|f| f.kind == "timeline").map(|f| f.points()).collect();
    assert_eq!(timelines.len(), 8);
    assert!(timelines.iter().all(|&n| n <= crate::render::envelope::share(8)), "{timelines:?}");
    assert_eq!(page.matches("each point drawn is the min/median/max of 11 seconds").count(), 8);
}

/// The page's structure: one line per element (tag, class, id, chart
/// kind, point count, heading text); inside an `<svg>` nothing, and of a
/// table, list or `<dl>` only how many rows or items it has.
fn outline(html: &str) -> String {
    let toks = tokens(html).unwrap();
    let mut out = String::new();
    let mut depth = 0usize;
    // Depth at which children are summarised instead of listed, with their count.
    let mut summarised: Vec<(usize, &str, usize)> = Vec::new();
    let mut heading = false;
    for t in toks {
        match t {
            Tok::Open(name, attrs, empty) => {
                if let Some(s) = summarised.last_mut() {
                    if depth == s.0 + 1 && matches!(name, "tr" | "li" | "dt") {
                        s.2 += 1;
                    }
                } else {
                    let get = |k: &str| attrs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
                    let mut line = format!("{}{name}", "  ".repeat(depth));
                    for k in ["class", "id", "data-chart", "data-points"] {
                        if let Some(v) = get(k) {
                            line.push_str(&format!(" {k}={v}"));
                        }
                    }
                    out.push_str(&line);
                    heading = matches!(name, "h1" | "h2" | "h3" | "h4" | "title");
                    if !heading {
                        out.push('\n');
                    }
                    if matches!(name, "svg" | "tbody" | "ul" | "dl" | "thead" | "style") {
                        summarised.push((depth, name, 0));
                    }
                }
                if !empty {
                    depth += 1;
                }
            }
            Tok::Close(name) => {
                depth -= 1;
                if summarised.last().is_some_and(|s| s.0 == depth && s.1 == name) {
                    let (_, n, k) = summarised.pop().unwrap();
                    if !matches!(n, "svg" | "style") {
                        out.push_str(&format!(
                            "{}({k} {})\n",
                            "  ".repeat(depth + 1),
                            if n == "dl" { "facts" } else { "rows" }
                        ));
                    }
                }
            }
            Tok::Text(t) => {
                if heading {
                    out.push_str(&format!(": {}\n", t.trim()));
                    heading = false;
                }
            }
        }
    }
    out
}

#[test]
fn the_structure_of_a_small_report() {
    let html = one(&report("demo"));
    // With the other views' snapshots, in src/render/snapshots/.
    insta::with_settings!({snapshot_path => "../snapshots"}, {
        insta::assert_snapshot!(outline(&html));
    });
}

/// Example pages of every kind of result: every fixture, a 100-zone scan,
/// a battery of a minute per run, a mirror read from one member, a
/// comparison of three runs. Each is a page as [`check_page`] wants it
/// (well-formed, self-contained, every chart with its table) with at least
/// one chart. With `IOLAB_HTML_EXAMPLES` set to a directory, they are also
/// written there as `iolab-NAME-report.html`, for looking at them in a browser.
#[test]
fn example_pages_are_checked_pages() {
    let mut pages: Vec<(&str, String)> = RUNS.iter().map(|&name| (name, one(&report(name)))).collect();
    pages.push(("scan100", one(&scan_of(100))));
    pages.push(("battery", one(&battery(1, 60))));
    // A mirror read from one member only, per second.
    let mirror = edited("demo", |v| {
        for run in v["jobs"][0]["runs"].as_array_mut().unwrap() {
            run["samples"]["read_bytes_per_s"] = json!(seconds(20, 400_000_000));
            run["device_seconds"] = json!([
                {"name": "md0", "read_bytes": seconds(20, 400_000_000), "write_bytes": vec![0; 20]},
                {"name": "sda", "read_bytes": seconds(20, 400_000_000), "write_bytes": vec![0; 20]},
                {"name": "sdb", "read_bytes": vec![0; 20], "write_bytes": vec![0; 20]}
            ]);
        }
    });
    pages.push(("members", one(&mirror)));
    let (runs, c) = three();
    let compared = page(&Page {
        runs: runs.iter().map(|r| (&r.report, None)).collect(),
        comparison: Some(&c),
    });
    pages.push(("compare", compared));
    for (name, html) in &pages {
        eprintln!("example page {name}");
        check_page(html);
        assert!(!figures(html).is_empty(), "{name}: no chart");
    }
    let has = |name: &str, kind: &str| pages.iter().any(|(n, html)| *n == name && kinds(html).contains_key(kind));
    assert!(has("members", "members"), "the mirror's page shows its members");
    assert!(has("compare", "compare-bars"), "the comparison's page compares");
    if let Some(dir) = std::env::var_os("IOLAB_HTML_EXAMPLES") {
        for (name, html) in &pages {
            std::fs::write(std::path::Path::new(&dir).join(format!("iolab-{name}-report.html")), html).unwrap();
        }
    }
}

/// A ZFS run: the cached read marked in the table, the method, the
/// members' writes against the model and the members' table in the test's section.
#[test]
fn a_zfs_run_says_how_its_reads_were_kept_from_the_caches() {
    let html = one(&zfs_run());
    assert!(html.contains("SEQ1M Q8T1 read [CACHED]"), "the table marks the cached figure");
    assert!(
        html.contains("SEQ1M Q8T1 read: reads on ZFS: CACHED, the read figure is not the disks&#39; (zfs_arc_cached says why).</p>"),
        "the read's method in its section"
    );
    assert!(
        html.contains("SEQ1M Q8T1 write: writes on ZFS: the members wrote"),
        "the write model in the test's section"
    );
    assert!(html.contains("zfs_arc_cached"));
    // Each test's members in a table of their own: who read or wrote what, and their share.
    for col in ["Member", "Vdev", "Share of reads", "Share of writes"] {
        assert!(html.contains(&format!(">{col}<")), "the members' table has {col}");
    }
    assert!(
        html.contains(">loop5<") && html.contains(">raidz1-0<"),
        "each member under its vdev"
    );
}
