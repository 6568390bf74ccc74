//! Issue 37: `flush_too_fast` is never a false alarm. On every kind of
//! emulated device the suite has (loop devices over /dev/shm, throttled
//! or not, zram, ext4 on a loop device, a loop device over a file on the
//! root filesystem), each honest by construction, neither a plain write
//! job nor a short battery (reads, then writes: the run whose reads give
//! the bound) says that a flush was too fast.
//!
//! Not under `truth::`: nothing here is measured against a limit, so a busy
//! machine cannot fail it; a busy machine only makes flushes slower, which
//! is never what the rule names. A lying device (a flush that returns at
//! once above a slow medium) needs the FUSE cache emulator, and is `truth::`'s.

use crate::common::emu::{BlockDev, Cgroup, Ext4Mount, Limit, LoopDev, Zram};
use crate::common::{iolab, iolab_in, json_of};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// Short runs, back to back: a job of two 1 s runs, a battery of one 500 ms
/// run per test.
const JOB: [&str; 12] = [
    "--rw",
    "write",
    "--bs",
    "1M",
    "--runs",
    "2",
    "--duration",
    "1s",
    "--warmup",
    "0",
    "--interval",
    "0s",
];
const BATTERY: [&str; 10] = [
    "--suite",
    "default",
    "--runs",
    "1",
    "--duration",
    "500ms",
    "--warmup",
    "0",
    "--interval",
    "0s",
];

/// Runs `cmd` (a write job or a battery on `what`), and checks that no
/// test that wrote says `flush_too_fast`; returns how many wrote.
fn no_flush_too_fast(mut cmd: Command, what: &str) -> usize {
    let doc = json_of(cmd.args(["--json", "-"]), Duration::from_secs(180));
    let jobs = doc["jobs"].as_array().expect("a run's jobs");
    let mut wrote = 0;
    for j in jobs {
        let codes: Vec<&str> = j["warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(|w| w["code"].as_str()).collect())
            .unwrap_or_default();
        if j["write"].is_null() {
            note!("{what}: {} read {:.1} MB/s {codes:?}", j["name"], mbs(&j["read"]));
            continue;
        }
        wrote += 1;
        let flushes: Vec<String> = j["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{:.2} ms", r["sync_ns"].as_f64().unwrap_or(0.0) / 1e6))
            .collect();
        note!(
            "{what}: {} wrote {:.1} MB/s, flushes {flushes:?} {codes:?}",
            j["name"],
            mbs(&j["write"])
        );
        assert!(
            !codes.contains(&"flush_too_fast"),
            "{what}: {} says its flush was too fast: {}",
            j["name"],
            j["warnings"]
        );
    }
    assert!(wrote > 0, "{what}: nothing wrote: {doc}");
    wrote
}

fn mbs(dir: &Value) -> f64 {
    dir["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6
}

/// `iolab job` and `iolab run --suite default` on `target`, by `command`.
fn both(command: impl Fn() -> Command, target: &str, extra: &[&str], what: &str) {
    let mut job = command();
    job.args(["job", target]).args(JOB).args(extra);
    assert_eq!(no_flush_too_fast(job, &format!("{what}, write job")), 1);
    let mut battery = command();
    battery.args(["run", target]).args(BATTERY).args(extra);
    assert_eq!(no_flush_too_fast(battery, &format!("{what}, battery")), 4);
}

fn path_of(dev: &dyn BlockDev) -> String {
    dev.dev_path().to_string_lossy().into_owned()
}

#[test]
fn issue_37_no_emulated_device_gets_flush_too_fast() {
    need_root!();
    let destroy: &[&str] = &["--allow-destroy"];

    let shm = LoopDev::new(256 * MIB);
    both(iolab, &path_of(&shm), destroy, "loop over /dev/shm");

    let z = Zram::new(256 * MIB);
    both(iolab, &path_of(&z), destroy, "zram");

    let ext4 = Ext4Mount::new(512 * MIB);
    both(iolab, &ext4.dir().to_string_lossy(), &["--size", "128MiB"], "ext4 on a loop device");

    // Throttled: writes alone, then reads slower than writes (the case a
    // rule without care would take for a cache: honest writes faster than reads).
    let slow = LoopDev::new(256 * MIB);
    let cg = Cgroup::new();
    cg.limit(&slow, Limit::WriteBps(40 * MIB));
    both(|| iolab_in(&cg), &path_of(&slow), destroy, "loop, writes throttled to 40 MiB/s");
    cg.limit(&slow, Limit::ReadBps(20 * MIB));
    both(
        || iolab_in(&cg),
        &path_of(&slow),
        destroy,
        "loop, reads throttled to 20 MiB/s, writes to 40 MiB/s",
    );

    // Over a file on the root filesystem, with direct I/O to it.
    let root = LoopDev::new_in(Path::new("/var/tmp"), 256 * MIB);
    both(iolab, &path_of(&root), destroy, "loop over a file on /var/tmp");
}
