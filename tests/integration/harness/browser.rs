//! Self-test of the browser harness ([`Browser`], headless chromium over the DevTools
//! pipe) that the HTML report's tests use: a clean page shows no console message and no
//! request; remote references (`<img>`, `fetch()`) are reported and blocked; a
//! `console.error` is reported; with JavaScript off a script's DOM change is absent while
//! inline SVG is there; a screenshot has the asked size; a page that never finishes
//! loading times out and leaves no process behind.
//!
//! Needs chromium: without it the tests print a skip notice, except under `CI=true`,
//! where they fail instead (scripts/test installs it).

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::browser::{Browser, Level, last_process_group};

/// A page in a directory of its own (removed when the guard drops).
fn page(html: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("iolab-browser-test-").tempdir().unwrap();
    let path = dir.path().join("page.html");
    fs::write(&path, html).unwrap();
    (dir, path)
}

/// Processes of the process group `pgid` that are still alive (zombies excluded).
fn alive_in_group(pgid: u32) -> Vec<String> {
    let mut found = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …: comm may hold spaces, so split after the last ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 2 && f[2] == pgid.to_string() && f[0] != "Z" {
            found.push(format!("{})", head.trim()));
        }
    }
    found
}

fn assert_group_gone() {
    let pgid = last_process_group().expect("a browser was started");
    // SIGKILL is delivered at once, but a process takes a moment to exit.
    let until = Instant::now() + Duration::from_secs(5);
    while !alive_in_group(pgid).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(alive_in_group(pgid), Vec::<String>::new(), "processes left in group {pgid}");
}

const CLEAN: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clean</title>
<style>body { font: 14px sans-serif } .bar { fill: steelblue }</style></head>
<body><h1>Report</h1>
<svg width="120" height="40" viewBox="0 0 120 40"><rect class="bar" width="80" height="20"/></svg>
<script>document.body.dataset.ready = "yes";</script>
</body></html>
"#;

#[test]
fn clean_page_has_no_console_messages_and_no_requests() {
    let Some(b) = Browser::find() else { return };
    let (_d, html) = page(CLEAN);
    let p = b.load(&html, true);
    assert_eq!(p.console, vec![], "console");
    assert_eq!(p.requests, Vec::<String>::new(), "requests");
    assert!(p.dom.contains(r#"data-ready="yes""#), "the script ran: {}", p.dom);
    assert!(p.dom.contains("<h1>Report</h1>"), "{}", p.dom);
    assert_group_gone();
}

#[test]
fn remote_references_are_reported_and_blocked() {
    let Some(b) = Browser::find() else { return };
    let (_d, html) = page(
        r#"<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="style.css"></head><body>
<img src="http://10.255.255.1/x.png" alt="">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
<script>fetch("http://10.255.255.1/data.json").catch(() => {});</script>
</body></html>
"#,
    );
    let started = Instant::now();
    let p = b.load(&html, true);
    let style = format!("file://{}", html.with_file_name("style.css").display());
    for want in ["http://10.255.255.1/x.png", "http://10.255.255.1/data.json", style.as_str()] {
        assert!(p.requests.iter().any(|r| r == want), "{want} not in {:?}", p.requests);
    }
    assert_eq!(p.requests.len(), 3, "only those (no data: URL, not the page): {:?}", p.requests);
    // Blocked, not attempted: 10.255.255.1 does not answer, a real request would hang
    // the load event until the connection timed out.
    assert!(started.elapsed() < Duration::from_secs(15), "took {:?}", started.elapsed());
}

#[test]
fn console_errors_and_exceptions_are_reported() {
    let Some(b) = Browser::find() else { return };
    let (_d, html) = page(
        r#"<!doctype html><html><head><meta charset="utf-8"></head><body>
<script>console.error("boom", 42); console.warn("careful"); console.log("fine");</script>
<script>undefinedFunction();</script>
</body></html>
"#,
    );
    let p = b.load(&html, true);
    let has = |level: Level, text: &str| p.console.iter().any(|m| m.level == level && m.text.contains(text));
    assert!(has(Level::Error, "boom 42"), "{:?}", p.console);
    assert!(has(Level::Warning, "careful"), "{:?}", p.console);
    assert!(has(Level::Error, "undefinedFunction is not defined"), "{:?}", p.console);
    assert!(
        !p.console.iter().any(|m| m.text == "fine"),
        "console.log is not an error: {:?}",
        p.console
    );
    assert_eq!(p.errors().len(), 2, "{:?}", p.console);
    assert_eq!(p.requests, Vec::<String>::new());
}

const SCRIPTED: &str = r#"<!doctype html><html><head><meta charset="utf-8"></head><body>
<p id="state">static</p>
<svg id="chart" width="100" height="50" viewBox="0 0 100 50"><polyline points="0,50 50,10 100,30" fill="none" stroke="black"/></svg>
<noscript><p id="noscript">scripts are off</p></noscript>
<script>document.getElementById("state").textContent = "rewritten by script"; console.error("ran");</script>
</body></html>
"#;

#[test]
fn javascript_off_leaves_the_dom_as_written() {
    let Some(b) = Browser::find() else { return };
    let (_d, html) = page(SCRIPTED);
    let off = b.load(&html, false);
    assert!(off.dom.contains(r#"<p id="state">static</p>"#), "{}", off.dom);
    assert!(
        !off.dom.contains(r#"<p id="state">rewritten"#),
        "the script ran with js=false: {}",
        off.dom
    );
    assert!(
        off.dom.contains(r#"<svg id="chart""#) && off.dom.contains("<polyline"),
        "{}",
        off.dom
    );
    assert!(
        off.dom.contains(r#"<p id="noscript">scripts are off</p>"#),
        "noscript parsed as markup: {}",
        off.dom
    );
    assert_eq!(off.console, vec![], "no script, no console.error");
    // The control: the same page with scripts on is rewritten.
    let on = b.load(&html, true);
    assert!(on.dom.contains(r#"<p id="state">rewritten by script</p>"#), "{}", on.dom);
    assert!(on.errors().iter().any(|m| m.text == "ran"), "{:?}", on.console);
}

/// Width and height from a PNG's IHDR chunk (bytes 16..24, big-endian).
fn png_size(png: &Path) -> (u32, u32) {
    let b = fs::read(png).unwrap();
    assert!(b.len() > 24, "{} bytes", b.len());
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&b[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn screenshot_has_the_asked_size() {
    let Some(b) = Browser::find() else { return };
    let (d, html) = page(CLEAN);
    for (w, h) in [(800, 600), (375, 1000)] {
        let png = d.path().join(format!("shot-{w}x{h}.png"));
        b.screenshot(&html, &png, w, h);
        assert_eq!(png_size(&png), (w, h));
    }
    assert_group_gone();
}

#[test]
fn a_page_that_never_loads_times_out_and_leaves_nothing() {
    let Some(b) = Browser::find() else { return };
    let b = b.timeout(Duration::from_secs(4));
    let (_d, html) = page("<!doctype html><html><body><script>for (;;) {}</script></body></html>\n");
    let started = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| b.load(&html, true)));
    let msg = r.expect_err("a page that never loads must time out");
    let msg = msg
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| msg.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("timed out"), "{msg}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_group_gone();
}

#[test]
fn version_names_the_browser() {
    let Some(b) = Browser::find() else { return };
    let v = b.version();
    eprintln!("{}: {v}", b.path().display());
    assert!(v.contains("Chrom"), "{v}");
}
