//! From samples to figures: per-run figures, medians over runs with their
//! spread, CPU cost, and the warnings that say when a figure cannot be
//! trusted (the device saw different bytes than the job did, a cache
//! answered, buffered I/O, CPU-bound, high run-to-run spread).
//!
//! These types are the JSON document; renderers only format them.

use crate::measure::JobSamples;
use crate::plan::Limit;
use crate::samples::{DirSamples, RunSamples};
use crate::target::{Target, TargetInfo};
use serde::{Deserialize, Serialize};

pub mod apps;
mod document;
mod named;
pub mod scale;
pub mod scan;

pub use named::{EngineName, Named, Pattern};

/// Above this coefficient of variation across runs, say the figure is noisy.
pub const HIGH_CV: f64 = 0.10;
/// The device cross-check tolerates this relative difference.
pub const DEVICE_TOLERANCE: f64 = 0.10;

/// A stored or printed run: metadata, then the figures of its kind of
/// experiment. (De)serialised through [`document::Document`], which is the
/// JSON shape every iolab version has written, so old documents load.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "document::Document", into = "document::Document")]
pub struct Report {
    /// The id under which the run is kept in the results store (None when not stored).
    pub run_id: Option<i64>,
    pub iolab_version: String,
    pub command: String,
    pub started_at: String,
    pub host: Host,
    pub target: TargetInfo,
    pub settings: Settings,
    pub body: Body,
    /// True when SIGINT/SIGTERM stopped the run: the body holds what finished.
    pub interrupted: bool,
}

/// The figures of one kind of experiment.
#[derive(Clone, Debug)]
pub enum Body {
    /// `run`, `job` and imported fio runs: the jobs in the order they ran.
    Jobs(Vec<JobReport>),
    /// `scan`: the curve; its zones, access time and burst are also jobs.
    Scan { scan: scan::ScanReport, jobs: Vec<JobReport> },
    /// `scale`: sweep points and verdicts; every point's jobs are jobs too.
    Scale { scale: scale::ScaleReport, jobs: Vec<JobReport> },
    /// `time`: a timed command.
    Time(apps::TimeReport),
    /// `run --suite files|git`: the phases of an application workload.
    App(apps::AppReport),
}

impl Report {
    /// Every job of the run (none for `time` and the app suites).
    pub fn jobs(&self) -> &[JobReport] {
        match &self.body {
            Body::Jobs(jobs) | Body::Scan { jobs, .. } | Body::Scale { jobs, .. } => jobs,
            Body::Time(_) | Body::App(_) => &[],
        }
    }
    pub fn scan(&self) -> Option<&scan::ScanReport> {
        match &self.body {
            Body::Scan { scan, .. } => Some(scan),
            _ => None,
        }
    }
    pub fn scale(&self) -> Option<&scale::ScaleReport> {
        match &self.body {
            Body::Scale { scale, .. } => Some(scale),
            _ => None,
        }
    }
    pub fn time(&self) -> Option<&apps::TimeReport> {
        match &self.body {
            Body::Time(t) => Some(t),
            _ => None,
        }
    }
    pub fn app(&self) -> Option<&apps::AppReport> {
        match &self.body {
            Body::App(a) => Some(a),
            _ => None,
        }
    }
    /// Whether anything was measured (an interrupted run may have nothing).
    pub fn has_results(&self) -> bool {
        match &self.body {
            Body::Jobs(j) | Body::Scan { jobs: j, .. } | Body::Scale { jobs: j, .. } => !j.is_empty(),
            Body::Time(t) => !t.runs.is_empty(),
            Body::App(a) => a.runs > 0,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    pub hostname: String,
    pub kernel: String,
    pub cpus: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Settings {
    pub runs: u32,
    pub warmup_s: f64,
    pub interval_s: f64,
    pub suite: Option<String>,
    /// `--steady-state`: write jobs ran rounds until steady (window, round limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::plan::SteadyRule>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Warning {
    pub code: String,
    pub message: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Latency {
    pub mean: f64,
    pub min: u64,
    pub max: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p99_9: u64,
    pub p99_99: u64,
}

/// Figures of one direction. At job level each figure is the median over the
/// measured runs, and `bw_min`/`bw_max`/`bw_cv` give the spread of bandwidth.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DirReport {
    pub bytes: u64,
    pub ios: u64,
    /// Bytes per second.
    pub bw_bytes: f64,
    pub iops: f64,
    pub lat_ns: Latency,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_max: Option<f64>,
    /// Coefficient of variation of bandwidth over runs (stddev / mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_cv: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CpuReport {
    /// User and system time of the whole iolab process (every thread,
    /// including io_uring kernel workers), as % of one CPU over wall time.
    pub usr_pct: f64,
    pub sys_pct: f64,
    /// (usr + sys) % per 100 MB/s moved: what the benchmark costs to run.
    pub pct_per_100mbs: Option<f64>,
    /// System-wide figures, % of all CPUs.
    pub system_busy_pct: f64,
    pub system_idle_pct: f64,
    pub system_sys_pct: f64,
    pub system_iowait_pct: f64,
    /// `time`'s real, user and sys seconds over the same interval (for a
    /// size-limited pass such as the dd suite: the whole transfer).
    #[serde(default)]
    pub real_s: f64,
    #[serde(default)]
    pub usr_s: f64,
    #[serde(default)]
    pub sys_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DeviceReport {
    /// The device the filesystem (or the job) is on, summed over measured runs.
    pub name: String,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ios: u64,
    pub write_ios: u64,
    /// What the job itself transferred over the same runs, for comparison.
    pub job_read_bytes: u64,
    pub job_write_bytes: u64,
    /// Devices further down (e.g. under a loop device's backing file).
    pub lower: Vec<crate::samples::DiskDelta>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Samples {
    /// Bytes completed in each second of the run.
    pub read_bytes_per_s: Vec<u64>,
    pub write_bytes_per_s: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunReport {
    pub read: Option<DirReport>,
    pub write: Option<DirReport>,
    pub cpu: CpuReport,
    pub device: Option<crate::samples::DiskDelta>,
    /// What the figures are divided by: the window (or first I/O to last
    /// completion for a size-limited run) plus the final flush.
    pub wall_ns: u64,
    /// The final flush alone.
    pub sync_ns: u64,
    pub first_done_ns: u64,
    pub last_done_ns: u64,
    pub samples: Samples,
    /// Where write throughput fell and stayed lower (an SLC or host cache
    /// filling up), found in the run's complete seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cliff: Option<crate::judge::steady::Cliff>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobReport {
    pub name: String,
    pub rw: Pattern,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    pub mix_read: Option<u8>,
    pub direct: bool,
    pub engine: EngineName,
    /// Threads actually used (psync emulates queue depth with threads).
    pub workers: u32,
    pub duration_s: Option<f64>,
    pub limit_bytes: Option<u64>,
    pub span_bytes: u64,
    /// Where the span starts on the target.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub offset_bytes: u64,
    pub runs: Vec<RunReport>,
    pub read: Option<DirReport>,
    pub write: Option<DirReport>,
    pub cpu: CpuReport,
    pub device: Option<DeviceReport>,
    pub warnings: Vec<Warning>,
    /// `--steady-state`: the rounds and the verdict. The job's figures then
    /// describe the last `window` rounds, not the burst before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyReport>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SteadyReport {
    pub reached: bool,
    pub rounds: usize,
    pub window: usize,
    pub max_rounds: u32,
    /// The round (1-based) that completed the first steady window.
    pub steady_at_round: Option<usize>,
    /// Mean bytes/s over the last window: the steady value when `reached`.
    pub value_bw_bytes: Option<f64>,
    pub range_pct: Option<f64>,
    pub slope_excursion_pct: Option<f64>,
    /// Bytes/s of every round, oldest first.
    pub round_bw_bytes: Vec<f64>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn latency(d: &DirSamples) -> Latency {
    let h = &d.lat;
    Latency {
        mean: h.mean(),
        min: h.min(),
        max: h.max(),
        p50: h.value_at_quantile(0.50),
        p90: h.value_at_quantile(0.90),
        p99: h.value_at_quantile(0.99),
        p99_9: h.value_at_quantile(0.999),
        p99_99: h.value_at_quantile(0.9999),
    }
}

fn dir_run(d: &DirSamples, wall_ns: u64) -> Option<DirReport> {
    (d.ios > 0).then(|| {
        let secs = wall_ns as f64 / 1e9;
        DirReport {
            bytes: d.bytes,
            ios: d.ios,
            bw_bytes: d.bytes as f64 / secs,
            iops: d.ios as f64 / secs,
            lat_ns: latency(d),
            bw_min: None,
            bw_max: None,
            bw_cv: None,
        }
    })
}

fn cpu_report(r: &RunSamples) -> CpuReport {
    // CPU time and the interval it was measured over come from the same snapshots.
    let elapsed = r.elapsed_ns.max(1) as f64;
    let usr = r.cpu.usr_ns as f64 / elapsed * 100.0;
    let sys = r.cpu.sys_ns as f64 / elapsed * 100.0;
    let mbs = (r.read.all_bytes + r.write.all_bytes) as f64 / (elapsed / 1e9) / 1e6;
    let total = r.sys.total.max(1) as f64;
    CpuReport {
        usr_pct: usr,
        sys_pct: sys,
        pct_per_100mbs: (mbs > 0.0).then(|| (usr + sys) / (mbs / 100.0)),
        system_busy_pct: (r.sys.total - r.sys.idle - r.sys.iowait) as f64 / total * 100.0,
        system_idle_pct: r.sys.idle as f64 / total * 100.0,
        system_sys_pct: r.sys.system as f64 / total * 100.0,
        system_iowait_pct: r.sys.iowait as f64 / total * 100.0,
        real_s: elapsed / 1e9,
        usr_s: r.cpu.usr_ns as f64 / 1e9,
        sys_s: r.cpu.sys_ns as f64 / 1e9,
    }
}

pub fn run_report(r: &RunSamples) -> RunReport {
    RunReport {
        read: dir_run(&r.read, r.wall_ns),
        write: dir_run(&r.write, r.wall_ns),
        cpu: cpu_report(r),
        device: r.devices.first().cloned(),
        wall_ns: r.wall_ns,
        sync_ns: r.sync_ns,
        first_done_ns: r.first_done_ns,
        last_done_ns: r.last_done_ns,
        samples: Samples {
            read_bytes_per_s: r.read.per_sec_bytes.clone(),
            write_bytes_per_s: r.write.per_sec_bytes.clone(),
        },
        write_cliff: write_cliff(r),
    }
}

/// The write cliff in a run's complete seconds (a last partial second would
/// look like a drop).
fn write_cliff(r: &RunSamples) -> Option<crate::judge::steady::Cliff> {
    let full = ((r.wall_ns / 1_000_000_000) as usize).min(r.write.per_sec_bytes.len());
    let series: Vec<f64> = r.write.per_sec_bytes[..full].iter().map(|&b| b as f64).collect();
    crate::judge::steady::write_cliff(&series)
}

/// Median of a non-empty list (mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { s[n / 2] } else { (s[n / 2 - 1] + s[n / 2]) / 2.0 }
}

/// Sample coefficient of variation (0 for fewer than two values).
pub fn cv(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    if v.len() < 2 {
        return 0.0;
    }
    let mean = v.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() / mean
}

fn med_u64(v: impl Iterator<Item = u64>) -> u64 {
    let v: Vec<f64> = v.map(|x| x as f64).collect();
    median(&v).round() as u64
}

fn dir_median(runs: &[&DirReport]) -> Option<DirReport> {
    if runs.is_empty() {
        return None;
    }
    let bw: Vec<f64> = runs.iter().map(|r| r.bw_bytes).collect();
    let f = |g: fn(&DirReport) -> f64| median(&runs.iter().map(|r| g(r)).collect::<Vec<_>>());
    let u = |g: fn(&DirReport) -> u64| med_u64(runs.iter().map(|r| g(r)));
    Some(DirReport {
        bytes: u(|r| r.bytes),
        ios: u(|r| r.ios),
        bw_bytes: median(&bw),
        iops: f(|r| r.iops),
        lat_ns: Latency {
            mean: f(|r| r.lat_ns.mean),
            min: u(|r| r.lat_ns.min),
            max: u(|r| r.lat_ns.max),
            p50: u(|r| r.lat_ns.p50),
            p90: u(|r| r.lat_ns.p90),
            p99: u(|r| r.lat_ns.p99),
            p99_9: u(|r| r.lat_ns.p99_9),
            p99_99: u(|r| r.lat_ns.p99_99),
        },
        bw_min: bw.iter().copied().reduce(f64::min),
        bw_max: bw.iter().copied().reduce(f64::max),
        bw_cv: Some(cv(&bw)),
    })
}

fn cpu_median(runs: &[RunReport]) -> CpuReport {
    let f = |g: fn(&CpuReport) -> f64| median(&runs.iter().map(|r| g(&r.cpu)).collect::<Vec<_>>());
    let per: Vec<f64> = runs.iter().filter_map(|r| r.cpu.pct_per_100mbs).collect();
    CpuReport {
        usr_pct: f(|c| c.usr_pct),
        sys_pct: f(|c| c.sys_pct),
        pct_per_100mbs: (!per.is_empty()).then(|| median(&per)),
        system_busy_pct: f(|c| c.system_busy_pct),
        system_idle_pct: f(|c| c.system_idle_pct),
        system_sys_pct: f(|c| c.system_sys_pct),
        system_iowait_pct: f(|c| c.system_iowait_pct),
        real_s: f(|c| c.real_s),
        usr_s: f(|c| c.usr_s),
        sys_s: f(|c| c.sys_s),
    }
}

/// Summarise one job: figures, medians, and every warning that applies.
pub fn job_report(job: &JobSamples, target: &Target, cpus: usize) -> JobReport {
    let spec = &job.spec;
    let (_, span) = crate::measure::extent(spec, target.span());
    let runs: Vec<RunReport> = job.runs.iter().map(run_report).collect();
    let steady = job.steady.map(|rule| {
        let values: Vec<f64> = job.runs.iter().map(crate::measure::round_value).collect();
        let st = crate::judge::steady::steady_state(&values, rule.window);
        SteadyReport {
            reached: st.reached,
            rounds: values.len(),
            window: rule.window,
            max_rounds: rule.max_rounds,
            steady_at_round: st.first_steady_round.map(|i| i + 1),
            value_bw_bytes: st.window_mean,
            range_pct: st.range_pct,
            slope_excursion_pct: st.slope_excursion_pct,
            round_bw_bytes: values,
        }
    });
    // With steady-state rounds the figures describe the last window only.
    let figured = match &steady {
        Some(s) => &runs[runs.len().saturating_sub(s.window)..],
        None => &runs[..],
    };
    let read = dir_median(&figured.iter().filter_map(|r| r.read.as_ref()).collect::<Vec<_>>());
    let write = dir_median(&figured.iter().filter_map(|r| r.write.as_ref()).collect::<Vec<_>>());
    let cpu = cpu_median(figured);
    let device = device_report(&job.runs);
    let mut warnings = Vec::new();
    let tinfo = &target.info;

    if !job.direct {
        if target.direct_fallback {
            warnings.push(Warning {
                code: "buffered_fallback".into(),
                message: format!(
                    "{} refused O_DIRECT: measured with BUFFERED I/O through the page cache (cache dropped before each read pass; writes timed to fdatasync)",
                    tinfo.path
                ),
            });
        } else {
            warnings.push(Warning {
                code: "buffered".into(),
                message:
                    "buffered I/O: the page cache is in the path, as for an application; reads start cold, writes are timed to fdatasync"
                        .into(),
            });
        }
    }
    if tinfo.devices.is_empty() {
        let fs = tinfo.filesystem.as_ref().map(|f| f.fstype.as_str()).unwrap_or("unknown");
        warnings.push(Warning {
            code: "no_block_device".into(),
            message: format!(
                "no block device serves {} (filesystem {fs}): the device cross-check could not run, and the figures may be memory or cache speed rather than a storage device's{}",
                tinfo.path,
                if matches!(fs, "tmpfs" | "ramfs") { " (here: memory)" } else { "" }
            ),
        });
    } else if tinfo.devices[0].memory {
        warnings.push(Warning {
            code: "memory_device".into(),
            message: format!(
                "{} is a memory-backed block device: figures are memory speed",
                tinfo.devices[0].name
            ),
        });
    }
    if let Some(d) = &device {
        warnings.extend(cross_check(d));
    }
    for (dir, r) in [("read", &read), ("write", &write)] {
        if let Some(r) = r
            && let Some(c) = r.bw_cv
            && c > HIGH_CV
        {
            warnings.push(Warning {
                code: "high_cv".into(),
                message: format!(
                    "{dir} bandwidth varied {:.0}% between runs: use more --runs or a longer --duration",
                    c * 100.0
                ),
            });
        }
    }
    let busy = (cpu.usr_pct + cpu.sys_pct) / 100.0;
    let usable = (job.workers as f64).min(cpus as f64);
    if busy >= 0.9 * usable {
        warnings.push(Warning {
            code: "cpu_bound".into(),
            message: format!(
                "iolab kept {busy:.2} CPUs busy with {} worker thread(s): the figure may be limited by the CPU, not the device",
                job.workers
            ),
        });
    }
    if let Some((n, c)) = runs
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.write_cliff.as_ref().map(|c| (i + 1, c)))
    {
        warnings.push(Warning {
            code: "write_cliff".into(),
            message: format!(
                "write throughput fell {:.0}% after {} s in run {n} ({:.1} → {:.1} MB/s) and stayed lower: a cache filled up; the sustained rate is the lower one",
                c.drop_pct,
                c.at_second,
                c.before_bps / 1e6,
                c.after_bps / 1e6
            ),
        });
    }
    if let Some(s) = steady.as_ref().filter(|s| !s.reached) {
        warnings.push(Warning {
            code: "not_steady".into(),
            message: format!(
                "no steady state after {} rounds (last {}: range {:.0}% of the mean, slope excursion {:.0}%; the rule asks ≤20% and ≤10%): the figures are the last {} rounds, still moving; use more --max-rounds or a longer --duration",
                s.rounds,
                s.window,
                s.range_pct.unwrap_or(f64::NAN),
                s.slope_excursion_pct.unwrap_or(f64::NAN),
                s.window
            ),
        });
    }
    if spec.engine == crate::plan::EngineKind::Psync && spec.qd > 1 {
        warnings.push(Warning {
            code: "psync_threads".into(),
            message: format!("psync has no queue: QD{} emulated with {} threads", spec.qd, job.workers),
        });
    }
    if let Some(r) = job
        .runs
        .iter()
        .find(|r| r.workers > 1 && r.last_done_ns > 0 && (r.last_done_ns - r.first_done_ns) as f64 > 0.1 * r.last_done_ns as f64)
    {
        warnings.push(Warning {
            code: "uneven_threads".into(),
            message: format!(
                "threads finished unevenly (first at {:.2}s, last at {:.2}s): figures use the last-done time",
                r.first_done_ns as f64 / 1e9,
                r.last_done_ns as f64 / 1e9
            ),
        });
    }

    JobReport {
        name: spec.name.clone(),
        rw: Named::Known(spec.rw),
        bs: spec.bs,
        qd: spec.qd,
        threads: spec.threads,
        mix_read: matches!(spec.rw, crate::plan::Rw::Randrw | crate::plan::Rw::Rw).then_some(spec.mix_read),
        direct: job.direct,
        engine: Named::Known(spec.engine),
        workers: job.workers,
        duration_s: match spec.limit {
            Limit::Time(d) => Some(d.as_secs_f64()),
            Limit::Bytes(_) | Limit::Span => None,
        },
        limit_bytes: match spec.limit {
            Limit::Bytes(b) => Some(b),
            Limit::Span => Some(span),
            Limit::Time(_) => None,
        },
        span_bytes: span,
        offset_bytes: spec.offset,
        runs,
        read,
        write,
        cpu,
        device,
        warnings,
        steady,
    }
}

fn device_report(runs: &[RunSamples]) -> Option<DeviceReport> {
    let first = runs.first()?.devices.first()?;
    let mut d = DeviceReport {
        name: first.name.clone(),
        read_bytes: 0,
        write_bytes: 0,
        read_ios: 0,
        write_ios: 0,
        job_read_bytes: 0,
        job_write_bytes: 0,
        lower: Vec::new(),
    };
    for r in runs {
        if let Some(top) = r.devices.first() {
            d.read_bytes += top.read_bytes;
            d.write_bytes += top.write_bytes;
            d.read_ios += top.read_ios;
            d.write_ios += top.write_ios;
        }
        // Everything the job moved, including I/O that completed after the deadline.
        d.job_read_bytes += r.read.all_bytes;
        d.job_write_bytes += r.write.all_bytes;
        for (i, low) in r.devices.iter().skip(1).enumerate() {
            if d.lower.len() <= i {
                d.lower.push(crate::samples::DiskDelta {
                    name: low.name.clone(),
                    ..Default::default()
                });
            }
            let l = &mut d.lower[i];
            l.read_bytes += low.read_bytes;
            l.write_bytes += low.write_bytes;
            l.read_ios += low.read_ios;
            l.write_ios += low.write_ios;
        }
    }
    Some(d)
}

/// Compare what reached the device with what the job did.
pub fn cross_check(d: &DeviceReport) -> Vec<Warning> {
    let mut w = Vec::new();
    for (dir, job, dev) in [
        ("read", d.job_read_bytes, d.read_bytes),
        ("written", d.job_write_bytes, d.write_bytes),
    ] {
        if job == 0 {
            continue;
        }
        let ratio = dev as f64 / job as f64;
        if ratio < 1.0 - DEVICE_TOLERANCE {
            w.push(Warning {
                code: "cache_answered".into(),
                message: format!(
                    "{} saw only {:.0}% of the bytes the job {dir}: a cache answered (page cache, filesystem or device cache) or the filesystem compressed; this is not the device's speed",
                    d.name,
                    ratio * 100.0
                ),
            });
        } else if ratio > 1.0 + DEVICE_TOLERANCE && dev - job > 1 << 20 {
            w.push(Warning {
                code: "device_extra".into(),
                message: format!(
                    "{} saw {:.0}% of the bytes the job {dir}: other I/O on the device, read-ahead, journaling or write amplification",
                    d.name,
                    ratio * 100.0
                ),
            });
        }
    }
    w
}

#[cfg(test)]
mod tests;
