//! `iolab flush` (issue 37) against loop devices whose content the test
//! controls: without a power cut, a check proves the log and the device
//! agree (also after the writer is killed mid-run); acknowledged blocks
//! overwritten afterwards with older content or zeros (a device that lost
//! what it acknowledged) are found block for block, with how far back; a
//! lost block older than surviving ones is named reordering. Exit status
//! 3 when a flush lied.
//!
//! Needs root (loop devices).

use crate::common::emu::fiohosts::NetHost;
use crate::common::emu::{LoopDev, MIB, output_with_timeout};
use crate::common::{iolab, iolab_as};
use ::iolab::verify::block::{BLOCK, fill_generation};
use ::iolab::verify::flush::{FlushLog, parse_log};
use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);
/// 8 MiB in 256 KiB generations: 128 extents of 64 KiB, 4 per generation,
/// a cycle of 32 generations, a verdict after 64.
const SIZE: u64 = 8 * MIB;
const BATCH: &str = "256KiB";

/// `iolab flush DEV --log LOG --json -` plus `extra`: status, document, stderr.
fn flush(dev: &Path, log: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut c = iolab();
    c.arg("flush").arg(dev).arg("--log").arg(log).args(["--json", "-"]).args(extra);
    let out = output_with_timeout(&mut c, TIMEOUT);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("{err}");
    let code = out.status.code().unwrap_or(-1);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON document ({e}): {err}"));
    (code, doc, err)
}

fn check(dev: &Path, log: &Path) -> (i32, Value) {
    let (code, doc, _) = flush(dev, log, &["--check", "-q"]);
    assert!(code == 0 || code == 3, "check failed ({code})");
    (code, doc)
}

fn findings(doc: &Value) -> &Value {
    &doc["flush"]["findings"]
}

fn num(doc: &Value, field: &str) -> u64 {
    findings(doc)[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field}: {}", findings(doc)))
}

/// The lost blocks a check reports, block by block.
fn reported(doc: &Value) -> BTreeSet<u64> {
    findings(doc)["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| (r["from"].as_u64().unwrap()..r["to"].as_u64().unwrap()).step_by(BLOCK))
        .collect()
}

/// A loop device written for `generations` generations, its log in a
/// directory of the test's own.
struct Written {
    dev: LoopDev,
    _dir: tempfile::TempDir,
    log: PathBuf,
}

impl Written {
    fn new(generations: u64) -> Written {
        let dev = LoopDev::new(SIZE);
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("flush.log");
        let n = generations.to_string();
        let (code, doc, err) = flush(dev.path(), &log, &["--allow-destroy", "--generations", &n, "--batch", BATCH]);
        assert_eq!(code, 0, "{err}");
        let f = &doc["flush"];
        assert_eq!(f["action"], "write");
        assert_eq!(f["acknowledged_generations"].as_u64(), Some(generations), "{f}");
        assert!(f["device_error"].is_null(), "{f}");
        assert!(f["flush_times"]["median_s"].as_f64().unwrap() > 0.0, "{f}");
        Written { dev, _dir: dir, log }
    }

    fn log(&self) -> FlushLog {
        parse_log(&std::fs::read_to_string(&self.log).unwrap()).unwrap()
    }

    /// Overwrite every extent whose latest acknowledged write is one of
    /// `gens`: with the generation a cycle older (`stale`), or zeros.
    /// Returns the blocks overwritten.
    fn lose(&self, gens: &[u64], stale: impl Fn(usize) -> bool) -> BTreeSet<u64> {
        let log = self.log();
        let plan = log.header.plan;
        let latest = plan.latest_writes(log.last_acked.unwrap());
        let f = std::fs::OpenOptions::new().write(true).open(self.dev.path()).unwrap();
        let mut lost = BTreeSet::new();
        let extents = (0..plan.extents).filter(|&e| latest[e as usize].is_some_and(|g| gens.contains(&g)));
        for (i, e) in extents.enumerate() {
            let off = plan.extent_offset(e);
            let mut buf = vec![0u8; plan.extent_bytes() as usize];
            if stale(i) {
                let g = latest[e as usize].unwrap() - plan.cycle();
                fill_generation(&mut buf, off, log.header.pass, g);
            }
            f.write_all_at(&buf, off).unwrap();
            lost.extend((off..off + plan.extent_bytes()).step_by(BLOCK));
        }
        f.sync_all().unwrap();
        lost
    }
}

#[test]
fn issue_37_without_a_power_cut_the_log_and_the_device_agree() {
    need_root!();
    let w = Written::new(70);
    let lines = std::fs::read_to_string(&w.log).unwrap().lines().count();
    assert_eq!(lines, 72, "a header, a line per acknowledged generation, the writer's end");
    let (code, doc) = check(w.dev.path(), &w.log);
    assert_eq!(code, 0, "{doc}");
    let f = findings(&doc);
    assert_eq!(f["verdict"], "honest", "{f}");
    assert_eq!(num(&doc, "last_acknowledged"), 69);
    assert_eq!(
        num(&doc, "acknowledged_blocks"),
        SIZE / BLOCK as u64,
        "every extent was acknowledged"
    );
    assert_eq!(num(&doc, "intact_blocks"), SIZE / BLOCK as u64);
    assert_eq!(num(&doc, "lost_blocks"), 0);
    // Generation 70 was never written: no promise, nothing landed.
    assert_eq!((num(&doc, "in_flight_blocks"), num(&doc, "in_flight_landed")), (64, 0));
    assert_eq!(doc["flush"]["acknowledged_generations"].as_u64(), Some(70));
    // The table says it too.
    let out = iolab()
        .arg("flush")
        .arg(w.dev.path())
        .arg("--check")
        .arg("--log")
        .arg(&w.log)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && table.contains("HONEST: every acknowledged block is there"),
        "{table}"
    );
}

#[test]
fn issue_37_the_progress_line_says_when_a_verdict_is_possible() {
    need_root!();
    let dev = LoopDev::new(SIZE);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flush.log");
    let (code, _, err) = flush(dev.path(), &log, &["--allow-destroy", "--generations", "63", "--batch", BATCH]);
    assert_eq!(code, 0);
    assert!(!err.contains("enough for a verdict"), "63 of 64: {err}");
    let log2 = dir.path().join("flush2.log");
    let (code, _, err) = flush(dev.path(), &log2, &["--allow-destroy", "--generations", "64", "--batch", BATCH]);
    assert_eq!(code, 0);
    assert!(
        err.contains("64 generations acknowledged, enough for a verdict: cut the device's power now"),
        "{err}"
    );
}

#[test]
fn issue_37_acknowledged_blocks_lost_or_stale_are_found_block_for_block() {
    need_root!();
    let w = Written::new(70);
    // The last three generations' extents: half read back a cycle older, half blank.
    let lost = w.lose(&[67, 68, 69], |i| i % 2 == 0);
    assert_eq!(lost.len(), 12 * 16);
    let (code, doc) = check(w.dev.path(), &w.log);
    assert_eq!(code, 3, "a flush that lied is exit status 3: {doc}");
    let f = findings(&doc);
    assert_eq!(f["verdict"], "lied", "{f}");
    assert_eq!(reported(&doc), lost, "block for block");
    assert_eq!(num(&doc, "lost_blocks"), 192);
    assert_eq!(num(&doc, "stale_blocks"), 96);
    assert_eq!(num(&doc, "max_stale_back"), 32, "a cycle back");
    assert_eq!(num(&doc, "oldest_lost_generation"), 67);
    assert_eq!(num(&doc, "generations_back"), 2);
    assert_eq!(num(&doc, "reordered_blocks"), 0);
    assert_eq!(num(&doc, "intact_blocks"), SIZE / BLOCK as u64 - 192);
    let msg = f["message"].as_str().unwrap();
    assert!(msg.starts_with("the flush lied: 192 block(s)"), "{msg}");
}

#[test]
fn issue_37_a_lost_block_older_than_surviving_ones_is_named_reordering() {
    need_root!();
    let w = Written::new(70);
    // Generation 50's extents lost, while 51-69 are all there.
    let lost = w.lose(&[50], |_| false);
    assert_eq!(lost.len(), 4 * 16);
    let (code, doc) = check(w.dev.path(), &w.log);
    assert_eq!(code, 3, "{doc}");
    let f = findings(&doc);
    assert_eq!(f["verdict"], "reordered", "{f}");
    assert_eq!(reported(&doc), lost);
    assert_eq!(num(&doc, "oldest_lost_generation"), 50);
    // Every block of generations 51-69 survived after 50's was lost.
    assert_eq!(num(&doc, "reordered_blocks"), 19 * 4 * 16);
    assert!(f["message"].as_str().unwrap().contains("out of order"), "{f}");
}

#[test]
fn issue_37_a_writer_killed_mid_run_leaves_a_log_the_device_agrees_with() {
    need_root!();
    let dev = LoopDev::new(SIZE);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flush.log");
    let mut child = iolab()
        .arg("flush")
        .arg(dev.path())
        .arg("--log")
        .arg(&log)
        .args(["--allow-destroy", "--batch", BATCH, "-q", "--no-store"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 40 {
        assert!(t0.elapsed() < TIMEOUT, "the log did not grow");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let (code, doc) = check(dev.path(), &log);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(findings(&doc)["verdict"], "honest", "{doc}");
    assert!(num(&doc, "last_acknowledged") >= 38, "{doc}");
    assert_eq!(num(&doc, "lost_blocks"), 0);
}

/// The listener on another host: a network namespace joined by a veth pair
/// (`NetHost`), the writer in the root namespace sending to its address.
#[test]
fn issue_37_a_log_kept_on_another_host_checks_the_same() {
    need_root!();
    use std::io::BufRead;
    let dev = LoopDev::new(SIZE);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("remote.log");
    let host = NetHost::new("flushlog");
    let port = "7717";
    let mut listener = iolab_as(&["ip", "netns", "exec", host.ns()])
        .arg("flush")
        .args(["--listen", port, "--log"])
        .arg(&log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let err = listener.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let first = rx.recv_timeout(TIMEOUT).expect("the listener says it listens");
    assert!(first.contains(&format!("listening on port {port}")), "{first}");
    let at = format!("{}:{port}", host.peer_ip);
    // Not reachable from the root namespace's loopback: the listener is on the other host.
    let mut local = iolab();
    local
        .arg("flush")
        .arg(dev.path())
        .args(["--allow-destroy", "--generations", "1", "-q", "--log-host"])
        .arg(format!("127.0.0.1:{port}"));
    let out = output_with_timeout(&mut local, TIMEOUT);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let mut c = iolab();
    c.arg("flush")
        .arg(dev.path())
        .args(["--allow-destroy", "--generations", "40", "--batch", BATCH, "--json", "-", "-q"])
        .arg("--log-host")
        .arg(&at);
    let out = output_with_timeout(&mut c, TIMEOUT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["flush"]["log"], format!("{at} (iolab flush --listen)"));
    assert_eq!(doc["flush"]["acknowledged_generations"].as_u64(), Some(40));
    let status = listener.wait().unwrap();
    reader.join().unwrap();
    let said: Vec<String> = rx.try_iter().collect();
    assert!(status.success(), "{said:?}");
    assert!(said.iter().any(|l| l.contains("kept 40 acknowledged generation(s)")), "{said:?}");
    assert!(
        said.iter().any(|l| l.contains(&format!("from {}:", host.host_ip))),
        "the writer came from the root side of the veth pair: {said:?}"
    );
    let (code, doc) = check(dev.path(), &log);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(findings(&doc)["verdict"], "honest");
    assert_eq!(num(&doc, "last_acknowledged"), 39);
}

/// A check is kept in the store like a verify run: `list` names it, `show`
/// gives it back in every format, the document the same as the run's.
#[test]
fn issue_37_a_check_is_stored_and_shown_in_every_format() {
    need_root!();
    let w = Written::new(10);
    let store = w._dir.path().join("store.db");
    let mut c = iolab();
    c.env("IOLAB_DB", &store)
        .arg("flush")
        .arg(w.dev.path())
        .args(["--check", "--json", "-", "-q", "--log"])
        .arg(&w.log);
    let out = output_with_timeout(&mut c, TIMEOUT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = run["run_id"].as_i64().expect("the check was stored");
    let show = |format: &str| {
        let mut c = iolab();
        c.env("IOLAB_DB", &store).args(["show", &id.to_string(), "--format", format]);
        let out = output_with_timeout(&mut c, TIMEOUT);
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let kept: Value = serde_json::from_str(&show("json")).unwrap();
    assert_eq!(kept["flush"], run["flush"]);
    assert_eq!(kept["command"], "flush");
    for format in ["table", "markdown"] {
        let text = show(format);
        assert!(text.contains("every acknowledged block is there"), "{format}: {text}");
    }
    let csv = show("csv");
    assert!(csv.lines().count() > 1 && csv.contains(",640,0,HONEST"), "{csv}");
    let mut c = iolab();
    c.env("IOLAB_DB", &store).args(["list", "--json"]);
    let out = output_with_timeout(&mut c, TIMEOUT);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list[0]["id"].as_i64(), Some(id), "{list}");
    assert_eq!(list[0]["kind"], "flush", "{list}");
}
