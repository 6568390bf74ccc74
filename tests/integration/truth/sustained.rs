//! The `sustained` and `dd` suites on ext4 over a throttled loop device. O_DIRECT
//! writes and the cold read-back must land on the device's limit. Buffered writes timed
//! to their final fsync must land on what `dd conv=fdatasync` measures for the same bytes on
//! the same device and cgroup, side by side: the limit is not their truth. The throttle
//! is charged every byte of them (the writer's fsync issues the writeback), but the clock
//! also runs while the writes only fill the page cache and the device idles, which costs
//! `dd` as much as iolab (5–7% under the limit for 8K writes here; see
//! `common/emu/reference.rs`). A buffered figure on the limit would be a coincidence.
//!
//! 128 MiB per job (6.4 s at 20 MiB/s): the blkio throttle grants bytes in 100 ms slices
//! and lets a burst through after an idle moment (see `common/emu/settle.rs`), which a
//! short transfer would mistake for device speed. With a settling pause between jobs
//! (`--interval`), and before each `dd`, every transfer starts on a fresh slice, which
//! gives at most one slice early (+1.6%).
//!
//! Needs root; skips without it except under `CI=true`.

use crate::common::emu::{Cgroup, DdWrite, Ext4Mount, Limit, MIB, dd_overwrite, output_with_timeout};
use crate::common::iolab_in;
use std::time::Duration;

const LIMIT: u64 = 20 * MIB;
const SPAN: u64 = 128 * MIB;
/// Every figure within ±3% of its truth, as in every ground-truth test.
const TOL: f64 = 0.03;

/// ext4 on a 320 MiB loop device, read and write throttled to [`LIMIT`].
fn rig() -> (Ext4Mount, Cgroup) {
    let fs = Ext4Mount::new(320 * MIB);
    let cg = Cgroup::new();
    cg.limit(fs.dev(), Limit::WriteBps(LIMIT));
    cg.limit(fs.dev(), Limit::ReadBps(LIMIT));
    (fs, cg)
}

fn run_suite(fs: &Ext4Mount, cg: &Cgroup, suite: &str, extra: &[&str]) -> serde_json::Value {
    let mut cmd = iolab_in(cg);
    cmd.arg("run").arg(fs.dir());
    let settle = Cgroup::settle_interval();
    cmd.args(["--suite", suite, "--size", "128MiB", "--runs", "1", "--warmup", "0s"]);
    cmd.args(["--interval", &settle, "--json", "-"]).args(extra);
    let out = output_with_timeout(&mut cmd, Duration::from_secs(120));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(fs.user_entries().is_empty(), "test file left behind");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `job`'s `dir` figure within [`TOL`] of `truth` (bytes/s), named `what` in the message.
fn assert_on(job: &serde_json::Value, dir: &str, truth: f64, what: &str) {
    let bw = job[dir]["bw_bytes"].as_f64().unwrap();
    let dev = (bw / truth - 1.0) * 100.0;
    note!(
        "{} {dir}: {:.2} MiB/s, {what} {:.2} MiB/s ({dev:+.2}%), direct {}",
        job["name"],
        bw / MIB as f64,
        truth / MIB as f64,
        job["direct"]
    );
    assert!(dev.abs() <= TOL * 100.0, "{}: {dev:+.2}% vs {what}", job["name"]);
    assert_eq!(job[dir]["bytes"].as_u64(), Some(SPAN), "one pass over the span");
}

/// The reference for a buffered write job: `dd` overwriting the same bytes at the same
/// transfer size, in the same group, on the same filesystem; the group was charged
/// every byte of it, so the throttle (and not the page cache alone) timed it.
fn dd_reference(fs: &Ext4Mount, cg: &Cgroup, bs: u64) -> DdWrite {
    let r = dd_overwrite(cg, fs.dev(), fs.dir(), bs, SPAN, 1);
    assert!(r.charged >= SPAN, "the group was charged {} of dd's {SPAN} bytes", r.charged);
    r
}

#[test]
fn sustained_writes_land_on_the_limit_direct_and_on_dd_buffered() {
    need_root!();
    let (fs, cg) = rig();
    // Two of the suite's three transfer sizes, each buffered and O_DIRECT:
    // the smallest (the most page-cache churn) and the largest.
    let v = run_suite(&fs, &cg, "sustained", &["--bs", "8k,128k"]);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4);
    for j in jobs {
        let buffered = j["name"].as_str().unwrap().ends_with("buffered");
        assert_eq!(j["direct"], !buffered);
        if buffered {
            let r = dd_reference(&fs, &cg, j["bs"].as_u64().unwrap());
            assert_on(j, "write", r.bps, "dd conv=fdatasync");
        } else {
            assert_on(j, "write", LIMIT as f64, "the limit");
        }
    }
    assert!(fs.user_entries().is_empty(), "reference file left behind");
}

#[test]
fn dd_write_lands_on_dd_and_the_cold_read_on_the_limit() {
    need_root!();
    let (fs, cg) = rig();
    let v = run_suite(&fs, &cg, "dd", &[]);
    let jobs = v["jobs"].as_array().unwrap();
    // The write goes through the page cache, timed to fsync, as dd's own.
    assert_eq!(jobs[0]["direct"], false);
    let r = dd_reference(&fs, &cg, jobs[0]["bs"].as_u64().unwrap());
    assert_on(&jobs[0], "write", r.bps, "dd conv=fdatasync");
    // The reader issues its own readahead, so the throttle paces the cold read itself.
    assert_on(&jobs[1], "read", LIMIT as f64, "the limit");
    for j in jobs {
        // seed 000 reports idle and sys %: both are there.
        assert!(j["cpu"]["system_idle_pct"].as_f64().is_some() && j["cpu"]["system_sys_pct"].as_f64().is_some());
    }
}
