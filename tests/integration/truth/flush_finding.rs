//! `flush_too_fast` on a drive whose flush lies (issue 37's in-band finding): the
//! [`CacheDev`] emulator, a 64 MiB volatile cache over media that store and read at
//! 20 MB/s, once with honest flushes (a flush returns when the cache is empty: it
//! takes the drain time) and once with lying ones (a flush returns at once).
//!
//! - A plain write job (`iolab job --rw write`, sequential 1 MiB at Q8 for 4 s) has no
//!   read test of its own: iolab reads for 2 s after it, and that read is the bound.
//!   It reads from where the job began writing, the oldest writes, which a FIFO cache
//!   stored first, so the read meets the media.
//! - The battery (`--suite demo`: SEQ1M Q8T1 read, then write, 2 s each) has its
//!   read as the bound.
//!
//! The model: the writes fill the cache at memory speed (64 MiB), then go at the
//! media's 20 MB/s, about 147 MB in 4 s (100 MB in 2 s). The bound is the read's
//! 20 MB/s and 25% more. What the flush owes is the written bytes less those in
//! flight (8 MiB) less what the bound stores in the run: at least 39 MB (1.5 s at the
//! bound) for the job and 42 MB for the battery. A lying flush (well under a
//! millisecond) gets the finding, an honest one (the 64 MiB the cache holds, 3.4 s)
//! never. Seen: 140 MiB in 4 s and 102 MiB in 2 s, reads at 18.4 and 18.9 MB/s, lying
//! flushes of 0.22 and 0.50 ms (needed: 2.0 and 2.2 s), honest ones of 3.36 s.
//!
//! Needs root (FUSE, loop devices) and fusepy; the emulator's pacing wants a quiet
//! machine, hence `truth::`.

use crate::common::emu::{CacheDev, CacheSpec, FlushMode, MIB};
use crate::common::{iolab, json_of};
use serde_json::Value;
use std::time::Duration;

const MEDIA_BPS: f64 = 20e6;

fn drive(mode: FlushMode) -> CacheDev {
    CacheDev::new(CacheSpec::new(1024 * MIB, 64 * MIB, MEDIA_BPS, mode).reads_at(MEDIA_BPS))
}

const SHORT: [&str; 6] = ["--runs", "1", "--warmup", "0", "--interval", "0s"];

/// The JSON document of `iolab ARGS... DEV --allow-destroy` and the short-run flags.
fn run(dev: &CacheDev, args: &[&str]) -> Value {
    let mut cmd = iolab();
    cmd.args(&args[..1])
        .arg(dev.path())
        .args(&args[1..])
        .arg("--allow-destroy")
        .args(SHORT)
        .args(["--json", "-"]);
    json_of(&mut cmd, Duration::from_secs(120))
}

/// Each job that wrote: its name, whether it says `flush_too_fast`, and its message.
fn writes(doc: &Value, what: &str) -> Vec<(String, Option<String>)> {
    let jobs = doc["jobs"].as_array().expect("a run's jobs");
    let out: Vec<(String, Option<String>)> = jobs
        .iter()
        .filter(|j| !j["write"].is_null())
        .map(|j| {
            let flush: Vec<String> = j["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| format!("{:.2} ms", r["sync_ns"].as_f64().unwrap_or(0.0) / 1e6))
                .collect();
            let finding = j["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|w| w["code"] == "flush_too_fast")
                .map(|w| w["message"].as_str().unwrap_or_default().to_string());
            note!(
                "{what}: {} wrote {:.1} MB/s, flush {flush:?}, warnings {:?}",
                j["name"],
                j["write"]["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6,
                j["warnings"]
                    .as_array()
                    .map(|w| w.iter().map(|w| w["code"].clone()).collect::<Vec<_>>())
            );
            (j["name"].as_str().unwrap_or_default().to_string(), finding)
        })
        .collect();
    for j in jobs.iter().filter(|j| j["write"].is_null()) {
        note!(
            "{what}: {} read {:.1} MB/s",
            j["name"],
            j["read"]["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6
        );
    }
    assert!(!out.is_empty(), "{what}: nothing wrote: {doc}");
    out
}

const JOB: [&str; 8] = ["job", "--rw", "write", "--bs", "1M", "--qd", "8", "--duration=4s"];
const BATTERY: [&str; 4] = ["run", "--suite", "demo", "--duration=2s"];

#[test]
fn a_lying_flush_is_named_in_a_plain_write_job_and_in_the_battery_an_honest_one_never() {
    need_root!();
    let lying = drive(FlushMode::Lie);
    for (args, what) in [(&JOB[..], "lying, write job"), (&BATTERY[..], "lying, battery")] {
        let doc = run(&lying, args);
        for (name, finding) in writes(&doc, what) {
            let m = finding.unwrap_or_else(|| panic!("{what}: {name} does not say flush_too_fast"));
            note!("{what}: {m}");
            assert!(m.contains("stores at most"), "{what}: {m}");
            if args[0] == "job" {
                assert!(
                    m.contains("SEQ1M Q8T1 read (flush reference)"),
                    "{what}: the bound is not the reference read: {m}"
                );
            }
        }
    }
    drop(lying);
    let honest = drive(FlushMode::Honest);
    for (args, what) in [(&JOB[..], "honest, write job"), (&BATTERY[..], "honest, battery")] {
        let doc = run(&honest, args);
        for (name, finding) in writes(&doc, what) {
            assert!(finding.is_none(), "{what}: {name} says flush_too_fast: {finding:?}");
        }
    }
}
