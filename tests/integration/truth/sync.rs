//! Sync writes (issue 37): each engine makes each write durable as the job
//! says, and the sync suite's latencies land on a device whose cost per
//! write and per flush is known.
//!
//! - What the device saw: a loop device counts the flushes it served
//!   (`/sys/block/loopN/stat`, field 16). A job of N writes with `--sync
//!   dsync` or `--sync fsync` makes the device flush at least N times, on
//!   both engines; without, once per run.
//! - The latency: a loop device under a blkio `write_iops` throttle charges
//!   each write bio one I/O of the limit, and each flush that reaches the
//!   block layer as a bio (an fdatasync of the device) one more: see
//!   [`charged`]. At queue depth 1 a sync write's latency is then the I/Os
//!   it is charged times the throttle's interval, and its p50 must land
//!   within ±5% of that.
//!
//! Needs root; skips without it except under `CI=true`.

use crate::common::emu::{BlockDev, Cgroup, Limit, LoopDev};
use crate::truth::accuracy::report::{assert_near, get, iolab, num, s};

const MIB: u64 = 1 << 20;

/// Flush requests the device has served (diskstats' 16th field, since Linux 5.5).
fn flushes(dev: &LoopDev) -> u64 {
    let path = format!("/sys/block/{}/stat", dev.kernel_name());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fields: Vec<u64> = text.split_whitespace().map(|f| f.parse().unwrap()).collect();
    assert!(fields.len() >= 17, "{path} has no flush counters: {text}");
    fields[15]
}

/// Writes of one job: 4K at queue depth 1, 100 of them, one run.
const WRITES: u64 = 100;

#[test]
fn each_sync_write_reaches_the_device_as_a_flush_on_both_engines() {
    need_root!();
    let dev = LoopDev::new_sparse(64 * MIB);
    let path = dev.dev_path().to_string_lossy().into_owned();
    for engine in ["io_uring", "psync"] {
        for mode in ["none", "dsync", "fsync"] {
            let before = flushes(&dev);
            let bytes = format!("{}k", WRITES * 4);
            let doc = iolab(
                None,
                &s(&[
                    "job",
                    &path,
                    "--rw",
                    "write",
                    "--bs",
                    "4k",
                    "--qd",
                    "1",
                    "--bytes",
                    &bytes,
                    "--runs",
                    "1",
                    "--warmup",
                    "0",
                    "--interval",
                    "0",
                    "--engine",
                    engine,
                    "--sync",
                    mode,
                    "--allow-destroy",
                    "--json",
                    "-",
                ]),
            );
            let seen = flushes(&dev) - before;
            let job = get(&doc, "jobs.0");
            note!("{engine} --sync {mode}: {seen} flushes for {WRITES} writes");
            assert_eq!(num(job, "write.ios") as u64, WRITES, "{engine} {mode}");
            assert_eq!(
                job.get("sync").and_then(|v| v.as_str()).unwrap_or("none"),
                mode,
                "{engine}: the job's mode"
            );
            if mode == "none" {
                assert!(
                    seen <= 2,
                    "{engine}: {seen} flushes without a sync mode: only the run's own is expected"
                );
            } else {
                assert!(
                    seen >= WRITES,
                    "{engine} --sync {mode}: {seen} flushes for {WRITES} writes: the writes were not made durable one by one"
                );
            }
        }
    }
}

/// The throttle's write limit, in I/Os a second. Below 10 (one per 100 ms
/// slice of the throttle) every I/O waits its turn: above, the throttle
/// lets each slice's allowance through at once and the rest wait for the
/// next slice, so most latencies are ~0 and a few a whole slice (the mean
/// is right, the p50 is not: at 100 I/Os a second fio's and iolab's p50 of
/// a plain write is 0.01 ms). Each wait is a whole number of jiffies: 52 at
/// HZ 250 (`HZ / limit + 1`, and the timer's next tick), 208 ms, 4% over
/// 1/limit; so the interval the model counts in is measured ([`interval`]).
const WRITE_IOPS: u64 = 5;

/// Tolerance of each p50 against the model.
const P50_TOL: f64 = 0.05;

/// How far the throttle's interval may be from 1/limit (its jiffies).
const INTERVAL_TOL: f64 = 0.10;

/// I/Os the blkio throttle charges one 4K write at queue depth 1 on a loop
/// device, as measured with fio side by side (`--sync=1`, `--sync=dsync`,
/// `--fdatasync=1` on psync and io_uring: the report of issue 37): a bio
/// each, and a flush bio (an fdatasync of the device) as a write.
fn charged(engine: &str, mode: &str) -> u64 {
    match (engine, mode) {
        // O_DIRECT and RWF_DSYNC through io_uring: one write bio marked FUA;
        // a loop device has no FUA, so the block layer flushes after it from
        // inside, past the throttle.
        ("io_uring", "dsync") => 1,
        // The same through pwritev2 then goes through the kernel's
        // generic_write_sync: an fdatasync of the device, a flush bio, charged.
        ("psync", "dsync") => 2,
        // A write, then an fdatasync: its flush bio is charged as a write.
        (_, "fsync") => 2,
        _ => 1,
    }
}

/// Writes of a measured job under the throttle.
const N: u64 = 10;

/// Ten 4K writes at queue depth 1 in `mode` on `engine`, in `cg`: the
/// I/Os the throttle charged each (counted by the throttle itself,
/// `blkio.throttle.io_serviced`, the run's final flush aside) and their p50 (ns).
fn ten_writes(cg: &Cgroup, dev: &LoopDev, engine: &str, mode: &str) -> (f64, f64) {
    let path = dev.dev_path().to_string_lossy().into_owned();
    let before = cg.io_count(dev);
    let bytes = format!("{}k", N * 4);
    let doc = iolab(
        Some(cg),
        &s(&[
            "job",
            &path,
            "--rw",
            "write",
            "--bs",
            "4k",
            "--qd",
            "1",
            "--bytes",
            &bytes,
            "--runs",
            "1",
            "--warmup",
            "0",
            "--interval",
            "0",
            "--engine",
            engine,
            "--sync",
            mode,
            "--allow-destroy",
            "--json",
            "-",
        ]),
    );
    let ios = cg.io_count(dev).write_ios - before.write_ios;
    let job = get(&doc, "jobs.0");
    assert_eq!(num(job, "write.ios") as u64, N, "{engine} --sync {mode}");
    let per_write = (ios as f64 - 1.0) / N as f64;
    let p50 = num(job, "write.lat_ns.p50");
    note!(
        "{engine} --sync {mode}: {ios} I/Os charged for {N} writes ({per_write:.2} each, the final flush aside), p50 {:.1} ms",
        p50 / 1e6
    );
    (per_write, p50)
}

/// The throttle's interval per I/O on this kernel: the p50 of plain writes
/// (one bio each, no flush), checked against 1/limit. The first ten writes
/// of a new group are left out: its first wait can be a jiffy longer.
fn interval(cg: &Cgroup, dev: &LoopDev) -> f64 {
    ten_writes(cg, dev, "psync", "none");
    let (per_write, p50) = ten_writes(cg, dev, "psync", "none");
    assert_eq!(per_write.round(), 1.0, "a plain write is one I/O");
    assert_near("the throttle's interval (ns)", p50, 1e9 / WRITE_IOPS as f64, INTERVAL_TOL);
    p50
}

/// Ten 4K writes of each mode and engine under the throttle: the throttle
/// charges each the I/Os [`charged`] says, and their p50 is that many of
/// its intervals.
#[test]
fn a_sync_write_is_charged_its_write_and_its_flush_and_waits_for_both() {
    need_root!();
    let dev = LoopDev::new_sparse(64 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::WriteIops(WRITE_IOPS));
    let unit = interval(&cg, &dev);
    for engine in ["io_uring", "psync"] {
        for mode in ["none", "dsync", "fsync"] {
            let (per_write, p50) = ten_writes(&cg, &dev, engine, mode);
            let k = charged(engine, mode);
            assert_eq!(per_write.round() as u64, k, "{engine} --sync {mode}: I/Os charged per write");
            assert_near(&format!("{engine} --sync {mode} write p50 (ns)"), p50, k as f64 * unit, P50_TOL);
        }
    }
}

/// The sync suite on the throttled loop device: every test's p50 is its
/// model, each size alike (the throttle counts I/Os, not bytes).
#[test]
fn the_sync_suite_on_a_throttled_device_lands_each_p50_on_the_model() {
    need_root!();
    let dev = LoopDev::new_sparse(256 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::WriteIops(WRITE_IOPS));
    let unit = interval(&cg, &dev);
    let path = dev.dev_path().to_string_lossy().into_owned();
    let doc = iolab(
        Some(&cg),
        &s(&[
            "run",
            &path,
            "--suite",
            "sync",
            "--runs",
            "2",
            "--duration",
            "2s",
            "--warmup",
            "0",
            "--interval",
            "0",
            "--allow-destroy",
            "--json",
            "-",
        ]),
    );
    let jobs = get(&doc, "jobs").as_array().expect("jobs");
    assert_eq!(jobs.len(), 8, "{doc}");
    for job in jobs {
        let name = job["name"].as_str().unwrap();
        let mode = job["sync"].as_str().unwrap_or("none");
        assert!(name.ends_with(mode) && mode != "none", "{name}: sync {mode}");
        let model = charged("io_uring", mode) as f64 * unit;
        assert_near(&format!("{name} p50 (ns)"), num(job, "write.lat_ns.p50"), model, P50_TOL);
    }
}
