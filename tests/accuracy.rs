//! Accuracy tests: run the real `iolab` binary inside a blkio-throttled cgroup on an
//! emulated block device whose limits are known, and check what it reports.
//!
//! Ground truth: the blkio throttle caps a cgroup's I/O on one device at
//! `min(bps / bs, iops)` I/Os per second. The limits below stay at most half of what
//! the unthrottled device does, so the throttle, not the device, sets the pace.
//! Blocks on loop devices stay <= 512 KiB (the loop driver splits larger requests and
//! the throttle then counts them twice); zram is fine at 1 MiB.
//!
//! Needs root (loop devices, cgroups). Without root the tests print a skip notice,
//! except under `CI=true`, where they fail instead.
//!
//! `cargo test --test accuracy -- --ignored` additionally runs every case through fio
//! (if installed) to validate the harness itself, independently of iolab.

mod common;

use common::emu::{BlockDev, Cgroup, Ext4Mount, IoCount, KIB, Limit, LoopDev, MIB, Tmpfs, Zram, output_with_timeout, require_root};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const IOLAB: &str = env!("CARGO_BIN_EXE_iolab");

/// eprintln with the test's name in front: tests run in parallel and their lines interleave.
macro_rules! note {
    ($($t:tt)*) => {
        eprintln!("[{}] {}", common::emu::current_test_name(), format!($($t)*))
    };
}
/// Kill a hung iolab after this long; a normal run here takes ~5 s.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Tolerance of the job-level (median) figure against the throttle limit.
const TOL: f64 = 0.03;
/// Tolerance of each measured run.
const RUN_TOL: f64 = 0.05;
/// Tolerance of buffered figures (readahead / writeback granularity).
const BUFFERED_TOL: f64 = 0.05;
/// Little's law: mean latency ~= in-flight I/Os / IOPS.
const LITTLE_TOL: f64 = 0.10;

/// Measured runs per case, and the short-run flags every case uses.
const RUNS: usize = 2;
const SHORT: &[&str] = &["--runs", "2", "--warmup", "1s", "--interval", "0s", "--duration", "2s"];

// ---------------------------------------------------------------------------
// Cases: one workload on one emulated device under one limit set
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Dev {
    Loop(u64),
    Zram(u64),
}

#[derive(Clone, Copy, Debug)]
struct Case {
    dev: Dev,
    rw: &'static str,
    bs: u64,
    qd: u32,
    threads: u32,
    engine: &'static str,
    /// Percentage of reads for randrw.
    mix_read: Option<u32>,
    limits: &'static [Limit],
}

const fn case(dev: Dev, rw: &'static str, bs: u64, qd: u32, limits: &'static [Limit]) -> Case {
    Case {
        dev,
        rw,
        bs,
        qd,
        threads: 1,
        engine: "io_uring",
        mix_read: None,
        limits,
    }
}

impl Case {
    fn reads(&self) -> bool {
        matches!(self.rw, "read" | "randread" | "randrw")
    }
    fn writes(&self) -> bool {
        matches!(self.rw, "write" | "randwrite" | "randrw")
    }
    fn sequential(&self) -> bool {
        matches!(self.rw, "read" | "write")
    }

    /// I/Os per second the throttle allows in each direction, on its own.
    fn caps(&self) -> (f64, f64) {
        let (mut r, mut w) = (f64::INFINITY, f64::INFINITY);
        let bs = self.bs as f64;
        for l in self.limits {
            match *l {
                Limit::ReadBps(v) => r = r.min(v as f64 / bs),
                Limit::ReadIops(v) => r = r.min(v as f64),
                Limit::WriteBps(v) => w = w.min(v as f64 / bs),
                Limit::WriteIops(v) => w = w.min(v as f64),
            }
        }
        (r, w)
    }

    /// Expected (read IOPS, write IOPS). For randrw the issue mix fixes the ratio, so the
    /// total is `min(read_cap / m, write_cap / (1 - m))`.
    fn expected(&self) -> (Option<f64>, Option<f64>) {
        let (rc, wc) = self.caps();
        match (self.reads(), self.writes()) {
            (true, false) => (Some(rc), None),
            (false, true) => (None, Some(wc)),
            _ => {
                let m = f64::from(self.mix_read.unwrap_or(50)) / 100.0;
                let total = (rc / m).min(wc / (1.0 - m));
                (Some(total * m), Some(total * (1.0 - m)))
            }
        }
    }

    fn bs_arg(&self) -> String {
        format!("{}k", self.bs / KIB)
    }
}

/// The emulated device of a case (kept alive by the caller).
enum Device {
    Loop(LoopDev),
    Zram(Zram),
}

impl Device {
    fn create(d: Dev) -> Device {
        match d {
            Dev::Loop(size) => Device::Loop(LoopDev::new(size)),
            Dev::Zram(size) => Device::Zram(Zram::new(size)),
        }
    }
    fn dev(&self) -> &dyn BlockDev {
        match self {
            Device::Loop(l) => l,
            Device::Zram(z) => z,
        }
    }
}

// ---------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------

fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for key in path.split('.') {
        cur = match key.parse::<usize>() {
            Ok(i) => cur.get(i),
            Err(_) => cur.get(key),
        }
        .unwrap_or_else(|| panic!("JSON has no `{path}` (stuck at `{key}`) in:\n{v:#}"));
    }
    cur
}

fn num(v: &Value, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("JSON `{path}` is not a number: {}", get(v, path)))
}

fn warning_codes(job: &Value) -> Vec<String> {
    get(job, "warnings")
        .as_array()
        .unwrap_or_else(|| panic!("`warnings` is not an array: {}", get(job, "warnings")))
        .iter()
        .map(|w| get(w, "code").as_str().unwrap_or("?").to_string())
        .collect()
}

fn dev_pct(measured: f64, expected: f64) -> f64 {
    (measured / expected - 1.0) * 100.0
}

fn assert_near(what: &str, measured: f64, expected: f64, tol: f64) {
    let d = dev_pct(measured, expected);
    note!(
        "  {what}: measured {measured:.1} vs expected {expected:.1} ({d:+.2}%, tolerance ±{:.0}%)",
        tol * 100.0
    );
    assert!(
        (measured - expected).abs() <= expected * tol,
        "{what}: measured {measured:.1}, expected {expected:.1} ±{:.0}% (off by {d:+.2}%)",
        tol * 100.0
    );
}

// ---------------------------------------------------------------------------
// Running iolab
// ---------------------------------------------------------------------------

/// Run iolab with `args` (inside `cg` if given) and parse its JSON from stdout.
fn iolab(cg: Option<&Cgroup>, args: &[String]) -> Value {
    let mut cmd = match cg {
        Some(cg) => cg.command(IOLAB),
        None => Command::new(IOLAB),
    };
    cmd.args(args);
    note!("$ iolab {}", args.join(" "));
    let t0 = Instant::now();
    let out = output_with_timeout(&mut cmd, TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    note!("(iolab took {:.1} s)", t0.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "iolab {} failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        args.join(" "),
        out.status
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("`--json -` stdout is not one JSON document ({e}):\nstdout:\n{stdout}\nstderr:\n{stderr}"))
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The only job of a `iolab job` document.
fn only_job(doc: &Value) -> &Value {
    let jobs = get(doc, "jobs").as_array().expect("`jobs` is an array");
    assert_eq!(jobs.len(), 1, "`iolab job` must report exactly one job:\n{doc:#}");
    &jobs[0]
}

/// Internal consistency of one direction's stats (`read` or `write` object).
fn check_stats_consistency(label: &str, st: &Value, bs: u64) {
    let bytes = num(st, "bytes");
    let ios = num(st, "ios");
    let iops = num(st, "iops");
    let bw = num(st, "bw_bytes");
    assert!(ios > 0.0 && bytes > 0.0, "{label}: no I/O reported: {st}");
    if label.starts_with("runs[") {
        assert_eq!(bytes, ios * bs as f64, "{label}: bytes != ios * bs ({st})");
    } else {
        // Job level: medians over an even number of runs may be half-way values.
        assert!((bytes - ios * bs as f64).abs() <= bs as f64, "{label}: bytes != ios * bs ({st})");
    }
    assert!(
        (bw - iops * bs as f64).abs() <= 0.01 * bw,
        "{label}: bw_bytes {bw} != iops {iops} * bs {bs}"
    );
    let l = get(st, "lat_ns");
    let order = ["min", "p50", "p90", "p99", "p99_9", "p99_99", "max"];
    let vals: Vec<f64> = order.iter().map(|k| num(l, k)).collect();
    for w in 0..vals.len() - 1 {
        assert!(
            vals[w] <= vals[w + 1],
            "{label}: latency percentiles out of order ({} {} > {} {}): {l}",
            order[w],
            vals[w],
            order[w + 1],
            vals[w + 1]
        );
    }
    let mean = num(l, "mean");
    assert!(
        vals[0] <= mean && mean <= vals[6],
        "{label}: mean latency {mean} outside [min, max]: {l}"
    );
}

/// Run one case: device + cgroup + limits, iolab inside, then compare with ground truth.
fn run_case(name: &str, c: &Case) {
    if !require_root() {
        return;
    }
    let device = Device::create(c.dev);
    let dev = device.dev();
    let cg = Cgroup::new();
    for l in c.limits {
        cg.limit(dev, *l);
    }
    let mut args = s(&["job", &dev.dev_path().to_string_lossy(), "--rw", c.rw, "--bs", &c.bs_arg()]);
    args.extend(s(&[
        "--qd",
        &c.qd.to_string(),
        "--threads",
        &c.threads.to_string(),
        "--engine",
        c.engine,
    ]));
    if let Some(m) = c.mix_read {
        args.extend(s(&["--mix-read", &m.to_string()]));
    }
    if c.writes() {
        args.push("--allow-destroy".into());
    }
    args.extend(s(SHORT));
    args.extend(s(&["--json", "-"]));

    note!(
        "== {name}: {} on {} ({}), limits {:?}",
        c.rw,
        dev.dev_path().display(),
        dev.majmin(),
        c.limits
    );
    let doc = iolab(Some(&cg), &args);
    let seen = cg.io_count(dev);
    let job = only_job(&doc);

    // What iolab says it ran.
    assert_eq!(get(job, "rw").as_str(), Some(c.rw), "job.rw");
    assert_eq!(num(job, "qd") as u32, c.qd, "job.qd");
    assert_eq!(num(job, "threads") as u32, c.threads, "job.threads");
    assert_eq!(get(job, "direct").as_bool(), Some(true), "job.direct (default must be O_DIRECT)");
    assert_eq!(get(job, "engine").as_str(), Some(c.engine), "job.engine");
    let runs = get(job, "runs").as_array().expect("job.runs is an array");
    assert_eq!(runs.len(), RUNS, "job.runs must hold the {RUNS} measured runs");

    let (exp_r, exp_w) = c.expected();
    let mut job_bytes = IoCount::default();
    for (dir, exp) in [("read", exp_r), ("write", exp_w)] {
        let st = get(job, dir);
        let Some(exp_iops) = exp else {
            assert!(st.is_null(), "{dir} must be null for a {} job, got {st}", c.rw);
            continue;
        };
        assert!(st.is_object(), "{dir} stats missing for a {} job", c.rw);
        check_stats_consistency(&format!("job.{dir}"), st, c.bs);
        let (what, measured, expected) = if c.sequential() {
            ("bw_bytes", num(st, "bw_bytes"), exp_iops * c.bs as f64)
        } else {
            ("iops", num(st, "iops"), exp_iops)
        };
        // Print every run before asserting anything, so a failure shows the whole picture.
        let per_run: Vec<f64> = runs.iter().map(|r| num(r, &format!("{dir}.{what}"))).collect();
        for (i, r) in runs.iter().enumerate() {
            note!(
                "  run {i}: {dir} {what} {:.1} ({:+.2}% vs expected {expected:.1}), ios {}, wall {:.3} s",
                per_run[i],
                dev_pct(per_run[i], expected),
                num(r, &format!("{dir}.ios")),
                // Not part of the contract: shown when present.
                r.get("wall_ns").and_then(Value::as_f64).unwrap_or(f64::NAN) / 1e9
            );
        }
        assert_near(&format!("{name} {dir} {what} (median of {RUNS} runs)"), measured, expected, TOL);
        let mut sum_bytes = 0.0;
        for (i, r) in runs.iter().enumerate() {
            let rst = get(r, dir);
            check_stats_consistency(&format!("runs[{i}].{dir}"), rst, c.bs);
            sum_bytes += num(rst, "bytes");
            assert_near(&format!("{name} {dir} {what} run {i}"), per_run[i], expected, RUN_TOL);
        }
        if dir == "read" {
            job_bytes.read_bytes = sum_bytes as u64;
        } else {
            job_bytes.write_bytes = sum_bytes as u64;
        }
    }

    // Little's law: with the throttle as the bottleneck every slot is always busy, so
    // the I/Os in flight (qd * threads) = sum over directions of IOPS * mean latency.
    // (For randrw the slots are not shared in proportion: unthrottled writes finish
    // at once and throttled reads hold nearly all of them.)
    let in_flight: f64 = ["read", "write"]
        .iter()
        .filter(|d| get(job, d).is_object())
        .map(|d| num(job, &format!("{d}.iops")) * num(job, &format!("{d}.lat_ns.mean")) / 1e9)
        .sum();
    assert_near(
        &format!("{name} Little's law: I/Os in flight = sum(IOPS * mean latency)"),
        in_flight,
        f64::from(c.qd * c.threads),
        LITTLE_TOL,
    );

    // The child really ran inside the throttled group: the throttle saw at least the
    // bytes of the measured runs (plus warmup).
    note!("cgroup throttle counters: {seen:?}; measured runs: {job_bytes:?}");
    assert!(
        seen.read_bytes >= job_bytes.read_bytes,
        "cgroup saw fewer read bytes than iolab reported"
    );
    assert!(
        seen.write_bytes >= job_bytes.write_bytes,
        "cgroup saw fewer write bytes than iolab reported"
    );

    // Direct I/O on a raw device: the device saw everything, no cache answered.
    // Job-level `device` counts all measured runs, so compare with their sum.
    let devj = get(job, "device");
    assert!(devj.is_object(), "job.device must be filled for a block-device target: {devj}");
    for (dir, sum, exp) in [("read", job_bytes.read_bytes, exp_r), ("write", job_bytes.write_bytes, exp_w)] {
        if exp.is_none() {
            continue;
        }
        let d = num(devj, &format!("{dir}_bytes"));
        note!("device {dir}_bytes {d} vs job {dir} bytes summed over runs {sum}");
        assert!(
            d >= 0.97 * sum as f64 && d <= 1.10 * sum as f64,
            "device {dir}_bytes {d} does not match the {sum} bytes the runs did with direct I/O"
        );
    }
    let codes = warning_codes(job);
    note!("warnings: {codes:?}");
    assert!(
        !codes.iter().any(|c| c == "cache_answered" || c == "no_block_device"),
        "direct I/O on a raw block device must not warn cache_answered/no_block_device: {codes:?}"
    );
}

// ---------------------------------------------------------------------------
// Direct-I/O accuracy cases
// ---------------------------------------------------------------------------

const LOOP_SEQ: Dev = Dev::Loop(512 * MIB);
const LOOP_RAND: Dev = Dev::Loop(256 * MIB);
const ZRAM: Dev = Dev::Zram(256 * MIB);

macro_rules! accuracy_cases {
    ($($name:ident => $case:expr;)*) => {
        $(
            #[test]
            fn $name() {
                run_case(stringify!($name), &$case);
            }
        )*
        /// Every case, for the fio validation of the harness.
        const ALL_CASES: &[(&str, Case)] = &[$((stringify!($name), $case),)*];
    };
}

accuracy_cases! {
    // Sequential, bandwidth limit (two limit sets each, 128 KiB and 512 KiB blocks).
    seq_read_128k_qd8_loop_read_bps_100mib => case(LOOP_SEQ, "read", 128 * KIB, 8, &[Limit::ReadBps(100 * MIB)]);
    seq_read_512k_qd4_loop_read_bps_40mib => case(LOOP_SEQ, "read", 512 * KIB, 4, &[Limit::ReadBps(40 * MIB)]);
    seq_write_128k_qd8_loop_write_bps_80mib => case(LOOP_SEQ, "write", 128 * KIB, 8, &[Limit::WriteBps(80 * MIB)]);
    seq_write_512k_qd4_loop_write_bps_30mib => case(LOOP_SEQ, "write", 512 * KIB, 4, &[Limit::WriteBps(30 * MIB)]);

    // Random 4K, IOPS limit, QD1 and QD32.
    randread_4k_qd1_loop_read_iops_2000 => case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(2000)]);
    randread_4k_qd1_loop_read_iops_6000 => case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(6000)]);
    randread_4k_qd32_loop_read_iops_12000 => case(LOOP_RAND, "randread", 4 * KIB, 32, &[Limit::ReadIops(12000)]);
    randread_4k_qd32_loop_read_iops_40000 => case(LOOP_RAND, "randread", 4 * KIB, 32, &[Limit::ReadIops(40000)]);
    randwrite_4k_qd1_loop_write_iops_2500 => case(LOOP_RAND, "randwrite", 4 * KIB, 1, &[Limit::WriteIops(2500)]);
    randwrite_4k_qd1_loop_write_iops_6000 => case(LOOP_RAND, "randwrite", 4 * KIB, 1, &[Limit::WriteIops(6000)]);
    randwrite_4k_qd32_loop_write_iops_12000 => case(LOOP_RAND, "randwrite", 4 * KIB, 32, &[Limit::WriteIops(12000)]);
    randwrite_4k_qd32_loop_write_iops_40000 => case(LOOP_RAND, "randwrite", 4 * KIB, 32, &[Limit::WriteIops(40000)]);

    // Both limits set: expected = min(bps / bs, iops).
    randread_4k_qd8_loop_bps_binds_before_iops => case(LOOP_RAND, "randread", 4 * KIB, 8, &[Limit::ReadBps(8 * MIB), Limit::ReadIops(5000)]);
    randread_16k_qd8_loop_iops_binds_before_bps => case(LOOP_RAND, "randread", 16 * KIB, 8, &[Limit::ReadBps(200 * MIB), Limit::ReadIops(3000)]);

    // Mixed: 70 % reads, the read limit binds: 7000 reads/s + 3000 writes/s.
    randrw_4k_qd32_mix70_loop_read_iops_7000 => Case { mix_read: Some(70), ..case(LOOP_RAND, "randrw", 4 * KIB, 32, &[Limit::ReadIops(7000), Limit::WriteIops(6000)]) };

    // psync: several threads share one cgroup limit.
    randread_4k_psync_4threads_loop_read_iops_4000 => Case { engine: "psync", threads: 4, ..case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(4000)]) };
    seq_write_128k_psync_loop_write_bps_50mib => Case { engine: "psync", ..case(LOOP_SEQ, "write", 128 * KIB, 1, &[Limit::WriteBps(50 * MIB)]) };

    // zram throttles correctly even at 1 MiB blocks.
    seq_read_1m_qd4_zram_read_bps_200mib => case(ZRAM, "read", 1024 * KIB, 4, &[Limit::ReadBps(200 * MIB)]);
    seq_write_1m_qd4_zram_write_bps_100mib => case(ZRAM, "write", 1024 * KIB, 4, &[Limit::WriteBps(100 * MIB)]);
    randread_4k_qd32_zram_read_iops_20000 => case(ZRAM, "randread", 4 * KIB, 32, &[Limit::ReadIops(20000)]);
}

// ---------------------------------------------------------------------------
// A suite (`iolab run`): every job of the battery at its own limit
// ---------------------------------------------------------------------------

/// The demo suite (SEQ1M Q8T1 read, then write) on zram, which throttles 1 MiB blocks
/// correctly: each job must land on its direction's limit.
#[test]
fn suite_demo_on_zram_each_job_at_its_limit() {
    if !require_root() {
        return;
    }
    let z = Zram::new(256 * MIB);
    let cg = Cgroup::new();
    let (rl, wl) = (150 * MIB, 80 * MIB);
    cg.limit(&z, Limit::ReadBps(rl));
    cg.limit(&z, Limit::WriteBps(wl));
    let args = s(&[
        "run",
        &z.path().to_string_lossy(),
        "--suite",
        "demo",
        "--size",
        "256MiB",
        "--allow-destroy",
        "--runs",
        "1",
        "--warmup",
        "1s",
        "--interval",
        "0s",
        "--duration",
        "2s",
        "--json",
        "-",
    ]);
    let doc = iolab(Some(&cg), &args);
    let jobs = get(&doc, "jobs").as_array().expect("jobs array");
    assert_eq!(jobs.len(), 2, "the demo suite has two jobs:\n{doc:#}");
    let mut seen = Vec::new();
    for job in jobs {
        let rw = get(job, "rw").as_str().unwrap_or("?").to_string();
        assert_eq!(num(job, "bs") as u64, MIB, "demo jobs use 1 MiB blocks");
        let (dir, other, limit) = match rw.as_str() {
            "read" => ("read", "write", rl),
            "write" => ("write", "read", wl),
            _ => panic!("unexpected job rw {rw} in the demo suite"),
        };
        assert!(get(job, other).is_null(), "{rw} job has {other} stats");
        check_stats_consistency(&format!("{rw} job.{dir}"), get(job, dir), MIB);
        let bw = num(job, &format!("{dir}.bw_bytes"));
        assert_near(&format!("demo suite {} {dir} bw_bytes", get(job, "name")), bw, limit as f64, TOL);
        seen.push(rw);
    }
    seen.sort();
    assert_eq!(seen, ["read", "write"]);
}

// ---------------------------------------------------------------------------
// Buffered I/O on ext4 over a throttled loop device
// ---------------------------------------------------------------------------

/// ext4 on a 512 MiB loop device, plus a cgroup limiting that device.
fn ext4_rig(limits: &[Limit]) -> (Ext4Mount, Cgroup) {
    let fs = Ext4Mount::new(512 * MIB);
    let cg = Cgroup::new();
    for l in limits {
        cg.limit(&fs, *l);
    }
    (fs, cg)
}

fn buffered_job(fs: &Ext4Mount, rw: &str, bs: &str, size: &str, extra: &[&str]) -> Vec<String> {
    let mut a = s(&["job", &fs.dir().to_string_lossy(), "--rw", rw, "--bs", bs, "--qd", "1"]);
    a.extend(s(&["--size", size, "--buffered"]));
    a.extend(s(extra));
    a.extend(s(&["--json", "-"]));
    a
}

fn assert_cleaned_up(fs: &Ext4Mount) {
    let left = fs.user_entries();
    assert!(left.is_empty(), "iolab left files in its directory target: {left:?}");
}

/// Sequential buffered read of a file larger than everything the job reads: readahead
/// goes to the device, so the figure must be the device limit, not page-cache speed
/// (iolab must evict the prefilled file from the page cache before measuring).
#[test]
fn buffered_seq_read_ext4_reports_device_limit_not_page_cache() {
    if !require_root() {
        return;
    }
    let limit = 20 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    // Reads at most 20 MiB/s * 5 s = 100 MiB of the 192 MiB file.
    let doc = iolab(Some(&cg), &buffered_job(&fs, "read", "128k", "192MiB", SHORT));
    let job = only_job(&doc);
    assert_eq!(get(job, "direct").as_bool(), Some(false), "job.direct with --buffered");
    let bw = num(job, "read.bw_bytes");
    assert_near("buffered seq read bw_bytes", bw, limit as f64, BUFFERED_TOL);
    let codes = warning_codes(job);
    note!("warnings: {codes:?}, device: {}", get(job, "device"));
    assert!(
        !codes.iter().any(|c| c == "cache_answered"),
        "device did the reading, yet cache_answered: {codes:?}"
    );
    assert!(
        !codes.iter().any(|c| c == "no_block_device"),
        "ext4 on loop is a block device: {codes:?}"
    );
    assert!(
        cg.io_count(&fs).read_bytes as f64 >= num(job, "read.bytes"),
        "reads did not go through the cgroup"
    );
    assert_cleaned_up(&fs);
}

/// Sequential buffered write of a fixed amount: the figure must include getting the data
/// to the device (fsync / writeback), so it stays near the device's write limit.
#[test]
fn buffered_seq_write_ext4_reports_device_limit_not_page_cache() {
    if !require_root() {
        return;
    }
    let limit = 20 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::WriteBps(limit)]);
    let doc = iolab(
        Some(&cg),
        &buffered_job(
            &fs,
            "write",
            "128k",
            // iolab prefills the file through the same throttle: keep it small.
            "48MiB",
            &["--bytes", "40MiB", "--runs", "2", "--warmup", "0s", "--interval", "0s"],
        ),
    );
    let job = only_job(&doc);
    let bw = num(job, "write.bw_bytes");
    note!("warnings: {:?}, device: {}", warning_codes(job), get(job, "device"));
    assert_near("buffered seq write bw_bytes", bw, limit as f64, BUFFERED_TOL);
    assert_cleaned_up(&fs);
}

/// Random 4K buffered reads in a small file: after the first pass every read is a
/// page-cache hit, the device sees far fewer bytes than the job, and iolab must say so.
#[test]
fn buffered_randread_small_file_rehits_cache_warns_cache_answered() {
    if !require_root() {
        return;
    }
    let limit = 8 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    let doc = iolab(Some(&cg), &buffered_job(&fs, "randread", "4k", "8MiB", SHORT));
    let job = only_job(&doc);
    let iops = num(job, "read.iops");
    let device_iops = limit as f64 / 4096.0;
    let codes = warning_codes(job);
    note!(
        "  read iops {iops:.0} vs device limit {device_iops:.0}; warnings {codes:?}; device {}",
        get(job, "device")
    );
    assert!(
        iops > 3.0 * device_iops,
        "expected page-cache hits well above the device limit, got {iops:.0} IOPS"
    );
    let devj = get(job, "device");
    assert!(devj.is_object(), "job.device must be filled for ext4 on a block device: {devj}");
    assert!(
        num(devj, "read_bytes") < num(job, "read.bytes"),
        "device read_bytes should be below the job's read bytes when the cache answers"
    );
    assert!(
        codes.iter().any(|c| c == "cache_answered"),
        "missing cache_answered warning: {codes:?}"
    );
    assert_cleaned_up(&fs);
}

/// The device cross-check on a sequential workload: a small file read over and over is
/// answered by the page cache, and the warning must fire there too.
#[test]
fn buffered_seq_read_small_cached_file_warns_cache_answered() {
    if !require_root() {
        return;
    }
    let limit = 10 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    let doc = iolab(Some(&cg), &buffered_job(&fs, "read", "128k", "4MiB", SHORT));
    let job = only_job(&doc);
    let bw = num(job, "read.bw_bytes");
    let codes = warning_codes(job);
    note!(
        "  read bw {bw:.0} B/s vs device limit {limit} B/s; warnings {codes:?}; device {}",
        get(job, "device")
    );
    assert!(
        bw > 3.0 * limit as f64,
        "a 4 MiB file re-read for seconds should be served from cache, got {bw:.0} B/s"
    );
    assert!(
        codes.iter().any(|c| c == "cache_answered"),
        "missing cache_answered warning: {codes:?}"
    );
    assert_cleaned_up(&fs);
}

// ---------------------------------------------------------------------------
// tmpfs: memory speed, not device speed
// ---------------------------------------------------------------------------

#[test]
fn tmpfs_directory_target_warns_no_block_device() {
    if !require_root() {
        return;
    }
    let t = Tmpfs::new(128 * MIB);
    let args = s(&[
        "job",
        &t.dir().to_string_lossy(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "1",
        "--size",
        "16MiB",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--duration",
        "1s",
        "--json",
        "-",
    ]);
    let doc = iolab(None, &args);
    let job = only_job(&doc);
    let codes = warning_codes(job);
    note!(
        "  read iops {:.0}; warnings {codes:?}; device {}",
        num(job, "read.iops"),
        get(job, "device")
    );
    assert!(
        codes.iter().any(|c| c == "no_block_device"),
        "tmpfs target must warn no_block_device: {codes:?}"
    );
    let left = t.entries();
    assert!(left.is_empty(), "iolab left files in the tmpfs directory: {left:?}");
}

// ---------------------------------------------------------------------------
// Harness self-tests (no iolab): the ground truth must be true
// ---------------------------------------------------------------------------

#[test]
fn harness_child_joins_cgroup_before_exec() {
    if !require_root() {
        return;
    }
    let cg = Cgroup::new();
    let out = output_with_timeout(cg.command("cat").arg("/proc/self/cgroup"), TIMEOUT);
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(":blkio:/{}", cg.name());
    note!("child /proc/self/cgroup:\n{text}");
    assert!(text.lines().any(|l| l.ends_with(&want)), "child is not in {want}");
    assert!(cg.procs().is_empty(), "exited child still listed in the cgroup");
}

/// dd with O_DIRECT through the throttle: elapsed time and the cgroup's counters match
/// the configured bandwidth.
#[test]
fn harness_throttle_limits_direct_dd_on_loop() {
    if !require_root() {
        return;
    }
    let lo = LoopDev::new(64 * MIB);
    let cg = Cgroup::new();
    let limit = 16 * MIB;
    cg.limit(&lo, Limit::ReadBps(limit));
    let count = 48u64; // 48 * 512 KiB = 24 MiB -> 1.5 s at 16 MiB/s
    let t0 = Instant::now();
    let out = output_with_timeout(
        cg.command("dd")
            .arg(format!("if={}", lo.path().display()))
            .args(["of=/dev/null", "bs=512k", "iflag=direct", "status=none"])
            .arg(format!("count={count}")),
        TIMEOUT,
    );
    let secs = t0.elapsed().as_secs_f64();
    assert!(out.status.success(), "dd failed: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = count * 512 * KIB;
    let seen = cg.io_count(&lo);
    note!("dd read {bytes} B in {secs:.3} s; cgroup saw {seen:?}");
    assert_eq!(seen.read_bytes, bytes, "throttle counters");
    // The throttle lets a small burst through at the start; 5 % covers it.
    assert_near("dd bw [B/s]", bytes as f64 / secs, limit as f64, 0.05);
}

fn loop_backing(kernel_name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/sys/block/{kernel_name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}

struct Created {
    loop_name: String,
    loop_file: std::path::PathBuf,
    fs_loop_name: String,
    fs_loop_file: std::path::PathBuf,
    mount: std::path::PathBuf,
    tmpfs: std::path::PathBuf,
    cgroup: std::path::PathBuf,
    zram: u32,
}

/// Odd zram size, so a zram that another test hot_adds meanwhile is not mistaken for ours.
const PROBE_ZRAM_SIZE: u64 = 24 * MIB + 4 * KIB;

/// Creates one of each guard (plus a live child inside the cgroup when `child` is given)
/// and drops them all on return, or panics while they are alive.
fn create_everything(panic_at_end: bool, child: Option<&mut Option<std::process::Child>>) -> Created {
    let lo = LoopDev::new_sparse(16 * MIB);
    let z = Zram::new(PROBE_ZRAM_SIZE);
    let fs = Ext4Mount::new(64 * MIB);
    let t = Tmpfs::new(4 * MIB);
    let cg = Cgroup::new();
    cg.limit(&lo, Limit::ReadIops(1000));
    cg.limit(&z, Limit::WriteBps(MIB));
    // A child still running inside the cgroup when the guard drops: Drop must move it out.
    if let Some(slot) = child {
        let ch = cg.command("sleep").arg("30").spawn().expect("spawn sleep");
        assert_eq!(cg.procs(), vec![ch.id()], "child not in the cgroup");
        *slot = Some(ch);
    }
    let c = Created {
        loop_name: lo.kernel_name(),
        loop_file: lo.backing_file().to_path_buf(),
        fs_loop_name: fs.dev().kernel_name(),
        fs_loop_file: fs.dev().backing_file().to_path_buf(),
        mount: fs.dir().to_path_buf(),
        tmpfs: t.dir().to_path_buf(),
        cgroup: cg.path().to_path_buf(),
        zram: z.index(),
    };
    std::fs::write(fs.dir().join("busy"), b"x").unwrap();
    assert!(c.loop_file.exists() && c.cgroup.exists() && Path::new(&format!("/dev/zram{}", c.zram)).exists());
    if panic_at_end {
        panic!("deliberate panic with every resource alive");
    }
    c
}

fn assert_all_gone(c: &Created) {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    for (name, file) in [(&c.loop_name, &c.loop_file), (&c.fs_loop_name, &c.fs_loop_file)] {
        let b = loop_backing(name).unwrap_or_default();
        assert!(!b.starts_with(&*file.to_string_lossy()), "{name} still attached to {b}");
        assert!(!file.exists(), "backing file {} still exists", file.display());
    }
    for dir in [&c.mount, &c.tmpfs] {
        assert!(!mounts.contains(&*dir.to_string_lossy()), "{} still mounted", dir.display());
        assert!(!dir.exists(), "{} still exists", dir.display());
    }
    assert!(!c.cgroup.exists(), "{} still exists", c.cgroup.display());
    let ds = std::fs::read_to_string(format!("/sys/block/zram{}/disksize", c.zram)).unwrap_or_default();
    assert_ne!(ds.trim(), PROBE_ZRAM_SIZE.to_string(), "zram{} still configured", c.zram);
}

#[test]
fn harness_cleans_up_after_normal_drop() {
    if !require_root() {
        return;
    }
    let mut child = None;
    let c = create_everything(false, Some(&mut child));
    let mut child = child.expect("child");
    let still_running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still_running, "the child should have outlived the cgroup guard");
    assert_all_gone(&c);
    note!(
        "  all resources removed: {} {} {} zram{}",
        c.loop_name,
        c.fs_loop_name,
        c.cgroup.display(),
        c.zram
    );
}

#[test]
fn harness_cleans_up_when_test_panics() {
    if !require_root() {
        return;
    }
    // Learn the names first, then repeat with a panic and check nothing of the kind leaks:
    // the guards are recreated under new unique names, so look at what exists afterwards.
    let prefix = format!("{}-{}-", common::emu::PREFIX, std::process::id());
    let ours_in = |dir: &str| -> Vec<String> {
        common::emu::list_dir(Path::new(dir))
            .into_iter()
            .filter(|n| n.starts_with(&prefix) && n.contains("harness_cleans_up_when_test_panics"))
            .collect()
    };
    let r = std::panic::catch_unwind(|| create_everything(true, None));
    assert!(r.is_err(), "the closure should have panicked");
    assert!(ours_in("/dev/shm").is_empty(), "leaked in /dev/shm: {:?}", ours_in("/dev/shm"));
    assert!(
        ours_in("/sys/fs/cgroup/blkio").is_empty(),
        "leaked cgroups: {:?}",
        ours_in("/sys/fs/cgroup/blkio")
    );
    let tmp = std::env::temp_dir();
    assert!(ours_in(&tmp.to_string_lossy()).is_empty(), "leaked mount dirs in {}", tmp.display());
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(&prefix) || !mounts.contains("harness_cleans_up_when_test_panics"),
        "leaked mounts"
    );
    for e in std::fs::read_dir("/sys/block").unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(b) = loop_backing(&n) {
            assert!(!b.contains("harness_cleans_up_when_test_panics"), "{n} still attached to {b}");
        }
    }
    note!("nothing leaked after a panic");
}

// ---------------------------------------------------------------------------
// fio validation of the harness (ignored by default; needs fio)
// ---------------------------------------------------------------------------

fn fio_case(name: &str, c: &Case) -> Vec<String> {
    let device = Device::create(c.dev);
    let dev = device.dev();
    let cg = Cgroup::new();
    for l in c.limits {
        cg.limit(dev, *l);
    }
    let mut cmd = cg.command("fio");
    cmd.args([
        "--name=v",
        "--direct=1",
        "--ramp_time=1",
        "--runtime=3",
        "--time_based",
        "--group_reporting",
        "--output-format=json",
    ]);
    cmd.arg(format!("--filename={}", dev.dev_path().display()));
    cmd.arg(format!("--rw={}", c.rw));
    cmd.arg(format!("--bs={}", c.bs));
    cmd.arg(format!("--iodepth={}", c.qd));
    cmd.arg(format!("--numjobs={}", c.threads));
    cmd.arg(format!("--ioengine={}", c.engine));
    if let Some(m) = c.mix_read {
        cmd.arg(format!("--rwmixread={m}"));
    }
    let out = output_with_timeout(&mut cmd, TIMEOUT);
    assert!(out.status.success(), "fio failed: {}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("fio JSON");
    let job = &doc["jobs"][0];
    let (er, ew) = c.expected();
    let mut lines = Vec::new();
    for (dir, exp) in [("read", er), ("write", ew)] {
        if let Some(exp) = exp {
            let iops = num(job, &format!("{dir}.iops"));
            let line = format!(
                "{name}: fio {dir} {iops:.1} IOPS ({:.2} MiB/s) vs expected {exp:.1} ({:+.2}%)",
                iops * c.bs as f64 / MIB as f64,
                dev_pct(iops, exp)
            );
            note!("{line}");
            lines.push(line);
            assert_near(&format!("fio {name} {dir} iops"), iops, exp, TOL);
        }
    }
    lines
}

/// True when fio is installed. Under `CI=true` a missing fio is an error (scripts/test
/// installs it), elsewhere the fio checks are skipped with a notice.
fn have_fio() -> bool {
    let ok = Command::new("fio").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but fio is not installed: the harness cannot be validated"
        );
        note!("skipping: fio not installed");
    }
    ok
}

/// A quick fio cross-check on every run: if this fails, the emulated devices (kernel,
/// throttle, harness) are off, and iolab failures elsewhere are not iolab's fault.
#[test]
fn harness_fio_lands_on_limits_quick() {
    if !require_root() || !have_fio() {
        return;
    }
    let pick = [
        "randread_4k_qd1_loop_read_iops_6000",
        "randwrite_4k_qd32_loop_write_iops_40000",
        "seq_write_512k_qd4_loop_write_bps_30mib",
    ];
    for (name, c) in ALL_CASES.iter().filter(|(n, _)| pick.contains(n)) {
        fio_case(name, c);
    }
}

/// Every case through fio (about 90 s).
#[test]
#[ignore = "slow (~90 s): validates the harness on every case; cargo test --test accuracy -- --ignored"]
fn harness_fio_lands_on_every_limit() {
    if !require_root() || !have_fio() {
        return;
    }
    let mut all = Vec::new();
    for (name, c) in ALL_CASES {
        all.extend(fio_case(name, c));
    }
    note!("fio validation summary:\n{}", all.join("\n"));
}
