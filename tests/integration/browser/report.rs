//! The HTML report in a real browser (issue 13): `iolab report` of a stored
//! battery, a scan, a scale run, a `time` run and a three-run comparison
//! (and a `verify`, issue 15) each load in headless chromium with no console error and no network
//! request; every chart's SVG has as many points or bars as its data, its
//! axis labels and its table; the same charts are there with JavaScript
//! off; and a screenshot of each is written for people to look at.
//!
//! Screenshots go to `$IOLAB_SCREENSHOTS` (default
//! `$CARGO_TARGET_TMPDIR/report-screenshots`), one folder per test.

use crate::common::browser::{Browser, Page};
use crate::common::{iolab, json_out};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A store and a tmpfs target of the test's own.
struct Env {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::Builder::new().prefix("iolab-report-").tempdir_in("/dev/shm").unwrap();
        let target = dir.path().join("t");
        std::fs::create_dir(&target).unwrap();
        Env { dir, target }
    }
    fn cmd(&self) -> Command {
        let mut c = iolab();
        c.env("IOLAB_DB", self.dir.path().join("results.db"));
        c
    }
    /// `iolab ARGS`, which must succeed; its JSON document (`--json -`).
    fn measure(&self, args: &[&str]) -> Value {
        // Before a `--` that starts a command (`time`), or at the end.
        let at = args.iter().position(|a| *a == "--").unwrap_or(args.len());
        let out = self
            .cmd()
            .args(&args[..at])
            .args(["--json", "-"])
            .args(&args[at..])
            .output()
            .unwrap();
        assert!(out.status.success(), "iolab {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        json_out(&out)
    }
    fn t(&self) -> &str {
        self.target.to_str().unwrap()
    }
    /// `iolab report IDS -o FILE`: the file.
    fn report(&self, ids: &[i64], name: &str) -> PathBuf {
        let file = self.dir.path().join(name);
        let mut c = self.cmd();
        c.arg("report").args(ids.iter().map(i64::to_string)).arg("-o").arg(&file);
        let out: Output = c.output().unwrap();
        assert!(out.status.success(), "report {ids:?}: {}", String::from_utf8_lossy(&out.stderr));
        file
    }
}

/// One chart of the page: its kind, the points or bars its SVG has (and
/// says it has), its axis labels, and the rows of its table.
#[derive(Debug)]
struct Chart {
    kind: String,
    points: usize,
    declared: usize,
    axis_labels: usize,
    table_rows: usize,
}

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

/// Every `<figure class="chart" data-chart="…">` of the DOM.
fn charts(dom: &str) -> Vec<Chart> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find("<figure class=\"chart\"") {
        let fig = &rest[i..];
        let end = fig.find("</figure>").expect("a closed figure") + "</figure>".len();
        let fig = &fig[..end];
        let attr = |name: &str| -> Option<String> {
            let at = fig.find(&format!("{name}=\""))? + name.len() + 2;
            Some(fig[at..at + fig[at..].find('"')?].to_string())
        };
        let body = fig.find("<tbody").map(|b| &fig[b..]).unwrap_or("");
        out.push(Chart {
            kind: attr("data-chart").unwrap_or_default(),
            points: count(fig, "class=\"pt\"") + count(fig, "class=\"bar\""),
            declared: attr("data-points").and_then(|n| n.parse().ok()).unwrap_or(usize::MAX),
            axis_labels: count(fig, "class=\"axis-label\""),
            table_rows: count(body, "<tr"),
        });
        rest = &rest[i + end..];
    }
    out
}

fn screenshots(test: &str) -> PathBuf {
    let root = std::env::var_os("IOLAB_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots"));
    let dir = root.join(test);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Load `html` with and without JavaScript: no console error, no request,
/// the same charts both ways, each with its points, axis labels and table;
/// then a 1280×2000 screenshot. Returns the charts.
fn check(html: &Path, test: &str) -> Vec<Chart> {
    let Some(b) = Browser::find() else { return Vec::new() };
    let size = std::fs::metadata(html).unwrap().len();
    assert!(size < 1_500_000, "{}: {size} bytes", html.display());
    let on: Page = b.load(html, true);
    assert!(on.console.is_empty(), "console: {:?}", on.console);
    assert!(on.requests.is_empty(), "requests: {:?}", on.requests);
    let off = b.load(html, false);
    assert!(
        off.console.is_empty() && off.requests.is_empty(),
        "{:?} {:?}",
        off.console,
        off.requests
    );
    let (with, without) = (charts(&on.dom), charts(&off.dom));
    assert!(!with.is_empty(), "no chart in {}", html.display());
    let kinds = |c: &[Chart]| c.iter().map(|c| (c.kind.clone(), c.points)).collect::<Vec<_>>();
    assert_eq!(kinds(&with), kinds(&without), "JavaScript changes the charts");
    for c in &with {
        assert!(c.points > 0 && c.points == c.declared, "{c:?}");
        assert!(c.axis_labels >= 1, "{c:?}");
        assert!(c.table_rows > 0, "{c:?} has no table");
    }
    let dir = screenshots(test);
    let png = dir.join(html.file_name().unwrap()).with_extension("png");
    b.screenshot(html, &png, 1280, 2000);
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000, "{} is blank", png.display());
    note!(
        "{}: {size} bytes, {} charts, screenshot {}",
        html.display(),
        with.len(),
        png.display()
    );
    with
}

fn of<'a>(charts: &'a [Chart], kind: &str) -> Vec<&'a Chart> {
    charts.iter().filter(|c| c.kind == kind).collect()
}

fn id(doc: &Value) -> i64 {
    doc["run_id"].as_i64().expect("stored")
}

/// Seconds of per-second samples a job has, warm-up and runs, both directions.
fn seconds(job: &Value) -> usize {
    let len = |v: &Value| v.as_array().map_or(0, Vec::len);
    let both = |s: &Value| len(&s["read_bytes_per_s"]) + len(&s["write_bytes_per_s"]);
    job["runs"].as_array().unwrap().iter().map(|r| both(&r["samples"])).sum::<usize>() + both(&job["warmup"])
}

const QUICK: [&str; 8] = ["--size", "16MiB", "--duration", "300ms", "--warmup", "200ms", "--interval", "0s"];

#[test]
fn issue_13_report_of_a_battery() {
    let e = Env::new();
    let doc = e.measure(&[&["run", e.t(), "--runs", "3"][..], &QUICK].concat());
    let html = e.report(&[id(&doc)], "battery.html");
    let c = check(&html, "battery");
    if c.is_empty() {
        return;
    }
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 8, "the default battery");
    assert_eq!(of(&c, "timeline").len(), jobs.len(), "a timeline per test");
    assert_eq!(of(&c, "latency").len(), jobs.len(), "a latency curve per test");
    for (chart, job) in of(&c, "timeline").iter().zip(jobs) {
        assert_eq!(chart.points, seconds(job), "{}: a point per second of samples", job["name"]);
    }
}

#[test]
fn issue_13_report_of_a_scan() {
    let e = Env::new();
    let doc = e.measure(&[
        "scan",
        e.t(),
        "--size",
        "40MiB",
        "--zones",
        "40",
        "--window",
        "1MiB",
        "--access",
        "100",
        "--zone-warmup",
        "0s",
    ]);
    let c = check(&e.report(&[id(&doc)], "scan.html"), "scan");
    if c.is_empty() {
        return;
    }
    let curve = of(&c, "scan-curve");
    assert_eq!(curve.len(), 1);
    assert_eq!(curve[0].points, 40, "a 40-zone scan has 40 points");
    assert_eq!(curve[0].table_rows, 40, "and 40 rows");
    assert_eq!(of(&c, "scan-access").len(), 1, "the access-time distribution");
}

#[test]
fn issue_15_report_of_a_verify() {
    let e = Env::new();
    let doc = e.measure(&["verify", e.t(), "--size", "16MiB", "--zones", "8", "--bs", "256K"]);
    assert_eq!(doc["verify"]["summary"]["verdict"]["kind"], "clean");
    let c = check(&e.report(&[id(&doc)], "verify.html"), "verify");
    if c.is_empty() {
        return;
    }
    let curve = of(&c, "verify-curve");
    assert_eq!(curve.len(), 1);
    assert_eq!(curve[0].points, 16, "8 zones written and read back");
    assert_eq!(curve[0].table_rows, 8);
}

#[test]
fn issue_13_report_of_a_scale_run() {
    let e = Env::new();
    let doc = e.measure(&[&["scale", e.t(), "--qd-sweep", "1,2,4", "--runs", "1"][..], &QUICK].concat());
    let c = check(&e.report(&[id(&doc)], "scale.html"), "scale");
    if c.is_empty() {
        return;
    }
    let sweep = of(&c, "scale-sweep");
    assert!(!sweep.is_empty(), "{c:?}");
    let depths = doc["scale"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "depth")
        .count();
    assert_eq!(depths, 3);
    assert!(
        sweep.iter().all(|s| s.points % depths == 0 && s.points >= depths),
        "a point per depth and series: {sweep:?}"
    );
}

#[test]
fn issue_13_report_of_a_timed_command() {
    let e = Env::new();
    let doc = e.measure(&["time", "--runs", "3", "--cwd", e.t(), "--", "true"]);
    let c = check(&e.report(&[id(&doc)], "time.html"), "time");
    if c.is_empty() {
        return;
    }
    let runs = of(&c, "time-runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].points, 3, "a bar or dot per run");
}

#[test]
fn issue_13_report_of_three_runs_compared() {
    let e = Env::new();
    let ids: Vec<i64> = (0..3)
        .map(|_| id(&e.measure(&[&["run", e.t(), "--suite", "demo", "--runs", "3"][..], &QUICK].concat())))
        .collect();
    let c = check(&e.report(&ids, "compare.html"), "compare");
    if c.is_empty() {
        return;
    }
    let bars = of(&c, "compare-bars");
    assert!(!bars.is_empty());
    let tests: usize = bars.iter().map(|b| b.table_rows).sum();
    let n: usize = bars.iter().map(|b| b.points).sum();
    assert_eq!(n, 3 * tests, "a bar per run and test: {bars:?}");
    // Each run's own charts follow the comparison.
    assert_eq!(of(&c, "timeline").len(), 3 * 2, "the demo suite's 2 tests, 3 runs");
}

/// `--format html` on a measuring command and on `compare` writes the same
/// kind of page as `iolab report`.
#[test]
fn issue_13_format_html_on_run_and_compare() {
    let e = Env::new();
    let page = e.dir.path().join("job.html");
    let out = e
        .cmd()
        .args(["job", e.t(), "--rw", "read", "--bs", "128k", "--runs", "2"])
        .args(QUICK)
        .args(["--format", "html", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(
        text.starts_with("<!DOCTYPE html>") && text.contains("data-chart=\"timeline\""),
        "{}",
        &text[..200.min(text.len())]
    );
    let list = e.cmd().args(["list", "--format", "html"]).output().unwrap();
    assert_eq!(list.status.code(), Some(2), "list has no HTML view");
    assert!(String::from_utf8_lossy(&list.stderr).contains("table|json|markdown|csv"));
}

/// Issue 26: the page of a layouts sweep (`layouts --format html`) loads like
/// the other reports, with its configurations table (usable capacity, and the
/// price per usable GB from the price list), the comparison's bars, each
/// configuration's own charts, and the layout verdicts among the findings.
#[test]
fn issue_26_report_of_a_layouts_sweep() {
    use crate::common::emu::{LoopDev, MIB};
    need_root!();
    need_tool!("mkfs.btrfs");
    let e = Env::new();
    let (a, b) = (LoopDev::new_sparse(300 * MIB), LoopDev::new_sparse(300 * MIB));
    let name = |d: &LoopDev| d.path().file_name().unwrap().to_string_lossy().into_owned();
    let config = e.dir.path().join("iolab.toml");
    std::fs::write(
        &config,
        format!(
            "[suites.two]\njobs = [{{ rw = \"read\", bs = \"128k\", qd = 4, name = \"SEQ128K Q4\" }}, {{ rw = \"write\", bs = \"128k\", qd = 4, name = \"SEQ128K Q4 write\" }}]\n\n[prices]\n\"{}\" = 30\n\"{}\" = 35\n",
            name(&a),
            name(&b)
        ),
    )
    .unwrap();
    let page = e.dir.path().join("layouts.html");
    let out = e
        .cmd()
        .arg("--config")
        .arg(&config)
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "btrfs,btrfs-raid0", "--suite", "two", "--runs", "2"])
        .args(["--size", "32MiB", "--duration", "500ms", "--warmup", "0", "--no-store"])
        .args(["--format", "html", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(
        text.contains("Price per usable GB") && text.contains("btrfs-raid0"),
        "no configurations table"
    );
    assert!(text.contains("[layout_best]") || text.contains("layout_best"), "no layout verdict");
    let c = check(&page, "layouts");
    if c.is_empty() {
        return;
    }
    let bars = of(&c, "compare-bars");
    let tests: usize = bars.iter().map(|b| b.table_rows).sum();
    assert_eq!(
        bars.iter().map(|b| b.points).sum::<usize>(),
        2 * tests,
        "a bar per configuration and test"
    );
    assert_eq!(of(&c, "timeline").len(), 2 * 2, "each configuration's two tests");
}
