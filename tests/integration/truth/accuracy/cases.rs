//! Direct-I/O accuracy on throttled raw devices: the [`Case`] model (one workload on one
//! emulated device under one limit set) and its ground truth, [`run_case`] which checks
//! iolab against it, and the demo suite (`iolab run`) with each job at its own limit.
//! The table of cases itself is in `accuracy.rs`, where the tests are generated.

use serde_json::Value;

use super::report::{assert_near, check_stats_consistency, dev_pct, get, iolab, num, only_job, s, warning_codes};
use super::{LITTLE_TOL, RUN_TOL, RUNS, SHORT, TOL};
use crate::common::emu::{BlockDev, Cgroup, IoCount, KIB, Limit, LoopDev, MIB, Zram};

#[derive(Clone, Copy, Debug)]
pub(crate) enum Dev {
    Loop(u64),
    Zram(u64),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Case {
    pub(crate) dev: Dev,
    pub(crate) rw: &'static str,
    pub(crate) bs: u64,
    pub(crate) qd: u32,
    pub(crate) threads: u32,
    pub(crate) engine: &'static str,
    /// Percentage of reads for randrw.
    pub(crate) mix_read: Option<u32>,
    pub(crate) limits: &'static [Limit],
}

pub(crate) const fn case(dev: Dev, rw: &'static str, bs: u64, qd: u32, limits: &'static [Limit]) -> Case {
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
    pub(crate) fn expected(&self) -> (Option<f64>, Option<f64>) {
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
pub(crate) enum Device {
    Loop(LoopDev),
    Zram(Zram),
}

impl Device {
    pub(crate) fn create(d: Dev) -> Device {
        match d {
            Dev::Loop(size) => Device::Loop(LoopDev::new(size)),
            Dev::Zram(size) => Device::Zram(Zram::new(size)),
        }
    }
    pub(crate) fn dev(&self) -> &dyn BlockDev {
        match self {
            Device::Loop(l) => l,
            Device::Zram(z) => z,
        }
    }
}

/// Run one case: device + cgroup + limits, iolab inside, then compare with ground truth.
pub(crate) fn run_case(name: &str, c: &Case) {
    need_root!();
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

    // Every case runs at its throttle: the result names it (issue 36: `info` showed the
    // limit, no job result did), as the warning on the figure the limit set.
    let dev_name = dev.dev_path().file_name().unwrap().to_string_lossy().to_string();
    let at: Vec<&str> = get(job, "warnings")
        .as_array()
        .expect("job.warnings is an array")
        .iter()
        .filter(|w| w["code"] == "at_throttle")
        .filter_map(|w| w["message"].as_str())
        .collect();
    assert!(
        at.iter()
            .any(|m| m.contains(&format!("at the throttle on {dev_name} (blkio cgroup "))),
        "{name}: no at_throttle warning names {dev_name}: {}",
        get(job, "warnings")
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
// A suite (`iolab run`): every job of the battery at its own limit
// ---------------------------------------------------------------------------

/// The demo suite (SEQ1M Q8T1 read, then write) on zram, which throttles 1 MiB blocks
/// correctly: each job must land on its direction's limit.
pub(crate) fn suite_demo_on_zram_each_job_at_its_limit() {
    need_root!();
    let z = Zram::new(256 * MIB);
    let cg = Cgroup::new();
    let (rl, wl) = (150 * MIB, 80 * MIB);
    cg.limit(&z, Limit::ReadBps(rl));
    cg.limit(&z, Limit::WriteBps(wl));
    // Every default: --runs auto, --interval auto, 2 s windows, 1 s warm-up.
    let args = s(&[
        "run",
        &z.path().to_string_lossy(),
        "--suite",
        "demo",
        "--size",
        "256MiB",
        "--allow-destroy",
        "--json",
        "-",
    ]);
    let doc = iolab(Some(&cg), &args);
    assert_eq!(get(&doc, "settings.runs_auto").as_bool(), Some(true), "{doc:#}");
    assert_eq!(get(&doc, "settings.interval_auto").as_bool(), Some(true), "{doc:#}");
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
        let name = get(job, "name");
        let bw = num(job, &format!("{dir}.bw_bytes"));
        assert_near(&format!("demo suite {name} {dir} bw_bytes"), bw, limit as f64, TOL);
        // Settled, in 3 to 10 windows of 2 s, with a CV of at most 3%.
        let windows = get(job, "runs").as_array().map_or(0, Vec::len);
        assert!((3..=10).contains(&windows), "{name}: {windows} windows");
        assert_eq!(num(job, "duration_s"), 2.0, "{name}: 2 s windows");
        let settle = get(job, &format!("{dir}.settle"));
        assert!(settle["by"].is_string(), "{name}: not settled: {settle}");
        assert_eq!(settle["windows"].as_u64(), Some(windows as u64), "{name}: {settle}");
        let cv = num(job, &format!("{dir}.bw_cv"));
        assert!(cv <= 0.03, "{name}: CV {cv}");
        seen.push(rw);
    }
    seen.sort();
    assert_eq!(seen, ["read", "write"]);
}
