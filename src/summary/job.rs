//! A measured job's report: per-run figures, medians over runs with their
//! spread, CPU cost, the device cross-check, and the warnings that say
//! when a figure cannot be trusted (the device saw different bytes than
//! the job did, a cache answered, buffered I/O, CPU-bound, high run-to-run
//! spread); and [`job_report`], which makes it from the samples.

use super::zfs::{Listing, Moved, group_members};
pub use super::zfs::{ZfsMember, ZfsWrites};
use super::{EngineName, Pattern};
use crate::judge::Diagnostic;
use crate::judge::job as rules;
use crate::judge::stats::{cv, median};
use crate::samples::{DirSamples, RunSamples};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Latency {
    /// Mean completion latency.
    #[schemars(extend("x-unit" = "ns"))]
    pub mean: f64,
    /// Fastest completion.
    #[schemars(extend("x-unit" = "ns"))]
    pub min: u64,
    /// Slowest completion.
    #[schemars(extend("x-unit" = "ns"))]
    pub max: u64,
    /// Median.
    #[schemars(extend("x-unit" = "ns"))]
    pub p50: u64,
    /// 90th percentile.
    #[schemars(extend("x-unit" = "ns"))]
    pub p90: u64,
    /// 99th percentile.
    #[schemars(extend("x-unit" = "ns"))]
    pub p99: u64,
    /// 99.9th percentile.
    #[schemars(extend("x-unit" = "ns"))]
    pub p99_9: u64,
    /// 99.99th percentile.
    #[schemars(extend("x-unit" = "ns"))]
    pub p99_99: u64,
}

// The side of a job a figure is of: read, write, or both at once for a
// timed command or a phase. (Not a doc comment: that would add a
// description to the committed schemas.)
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, Hash, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
    /// A timed command or a workload phase (reads and writes together).
    App,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::App => "app",
        }
    }
}

/// Figures of one direction. At job level each figure is the median over the
/// measured runs, and `bw_min`/`bw_max`/`bw_cv` give the spread of bandwidth.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct DirReport {
    /// Bytes transferred.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes: u64,
    /// I/Os completed.
    #[schemars(extend("x-unit" = "count"))]
    pub ios: u64,
    /// Bytes per second.
    #[schemars(extend("x-unit" = "B/s"))]
    pub bw_bytes: f64,
    /// I/Os per second.
    #[schemars(extend("x-unit" = "IOPS"))]
    pub iops: f64,
    /// Completion latency; absent when none was taken (`--latency off`,
    /// fio's `gtod_reduce`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lat_ns: Option<Latency>,
    /// The slowest run's bandwidth (job level).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "B/s"))]
    pub bw_min: Option<f64>,
    /// The fastest run's bandwidth (job level).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "B/s"))]
    pub bw_max: Option<f64>,
    /// Coefficient of variation of bandwidth over runs (stddev / mean).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "ratio"))]
    pub bw_cv: Option<f64>,
    /// I/Os that failed and were counted instead of stopping the job
    /// (`--continue-on-error`); none of them is in the figures above. At job
    /// level: over the measured runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<IoErrors>,
    /// `--runs auto`, at job level: how this direction's windows settled
    /// (or did not) when the test stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<crate::judge::settle::Settle>,
}

/// Failed I/O of one direction (`--continue-on-error`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct IoErrors {
    /// I/Os that failed.
    #[schemars(extend("x-unit" = "count"))]
    pub count: u64,
    /// Where the first failure was, and its errno (absent for a short transfer).
    #[schemars(extend("x-unit" = "bytes"))]
    pub first_offset: u64,
    /// The first failure's errno (absent for a short transfer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "errno"))]
    pub first_errno: Option<i32>,
    /// The first failure as people read it: `Input/output error (EIO)`.
    pub first_error: String,
}

impl IoErrors {
    fn of(d: &DirSamples) -> Option<IoErrors> {
        let f = d.first_error.filter(|_| d.errors > 0)?;
        Some(IoErrors {
            count: d.errors,
            first_offset: f.offset,
            first_errno: f.errno,
            first_error: match f.errno {
                Some(e) => crate::io::errno::describe_errno(e),
                None => "short transfer".to_string(),
            },
        })
    }

    /// The failures of several runs: their sum, and the first run's first.
    fn sum<'a>(all: impl Iterator<Item = &'a IoErrors>) -> Option<IoErrors> {
        all.fold(None, |acc: Option<IoErrors>, e| match acc {
            None => Some(e.clone()),
            Some(mut a) => {
                a.count += e.count;
                Some(a)
            }
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct CpuReport {
    /// User and system time of the whole iolab process (every thread,
    /// including io_uring kernel workers), as % of one CPU over wall time.
    #[schemars(extend("x-unit" = "%"))]
    pub usr_pct: f64,
    /// System time of the whole iolab process, as % of one CPU over wall time.
    #[schemars(extend("x-unit" = "%"))]
    pub sys_pct: f64,
    /// (usr + sys) % per 100 MB/s moved: what the benchmark costs to run.
    #[schemars(extend("x-unit" = "%"))]
    pub pct_per_100mbs: Option<f64>,
    /// System-wide figures, % of all CPUs.
    #[schemars(extend("x-unit" = "%"))]
    pub system_busy_pct: f64,
    /// System-wide idle time, % of all CPUs.
    #[schemars(extend("x-unit" = "%"))]
    pub system_idle_pct: f64,
    /// System-wide system time, % of all CPUs.
    #[schemars(extend("x-unit" = "%"))]
    pub system_sys_pct: f64,
    /// System-wide I/O wait, % of all CPUs.
    #[schemars(extend("x-unit" = "%"))]
    pub system_iowait_pct: f64,
    /// `time`'s real, user and sys seconds over the same interval (for a
    /// size-limited pass such as the dd suite: the whole transfer).
    #[serde(default)]
    #[schemars(extend("x-unit" = "s"))]
    pub real_s: f64,
    /// User CPU seconds over the same interval.
    #[serde(default)]
    #[schemars(extend("x-unit" = "s"))]
    pub usr_s: f64,
    /// System CPU seconds over the same interval.
    #[serde(default)]
    #[schemars(extend("x-unit" = "s"))]
    pub sys_s: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[schemars(rename = "JobDevice")]
pub struct DeviceReport {
    /// The device the filesystem (or the job) is on, summed over measured runs.
    pub name: String,
    /// Bytes the device read over the measured runs.
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes: u64,
    /// Bytes the device wrote over the measured runs.
    #[schemars(extend("x-unit" = "bytes"))]
    pub write_bytes: u64,
    /// Reads the device completed.
    #[schemars(extend("x-unit" = "count"))]
    pub read_ios: u64,
    /// Writes the device completed.
    #[schemars(extend("x-unit" = "count"))]
    pub write_ios: u64,
    /// What the job itself transferred over the same runs, for comparison.
    #[schemars(extend("x-unit" = "bytes"))]
    pub job_read_bytes: u64,
    /// What the job itself wrote over the same runs.
    #[schemars(extend("x-unit" = "bytes"))]
    pub job_write_bytes: u64,
    /// Devices further down (e.g. under a loop device's backing file).
    pub lower: Vec<crate::samples::DiskDelta>,
    /// The ZFS pool whose data member disks the figures above sum (`name`
    /// lists them): reads are judged on the sum, writes only from below
    /// ([`crate::judge::job::pool_cross_check`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_pool: Option<String>,
    /// A filesystem over several devices other than ZFS (btrfs raid): the
    /// copies of each written byte its members write (raid1 and raid10: 2,
    /// raid1c3: 3), which the written cross-check expects; absent: 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "count"))]
    pub copies: Option<u32>,
    /// Devices outside the target's chain that moved more than 1 MiB
    /// (`base::thresholds::OTHER_DEVICE_MIN_BYTES`) over the same runs
    /// (summed): where the job's I/O went if the target's device did not see it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<crate::samples::DeviceActivity>,
    /// On a ZFS pool, for a job that wrote: the bytes the members wrote per
    /// byte of data, measured and as the layout's model predicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_writes: Option<ZfsWrites>,
    /// On a ZFS pool whose layout `iolab info` found: each data member with
    /// its top-level vdev, what it moved over the measured runs and its
    /// share of the members' bytes (`zpool iostat -v`'s question: did every
    /// member work, and evenly? judged by `zfs_member_uneven`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zfs_members: Vec<ZfsMember>,
    /// Why an uneven split of the members' bytes was not judged: the
    /// layout's read policy explains it (a mirror read with one I/O in
    /// flight may come from one child at a time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_members_unjudged: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Samples {
    /// Bytes completed in each second of the run.
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes_per_s: Vec<u64>,
    /// Bytes written in each second of the run.
    #[schemars(extend("x-unit" = "bytes"))]
    pub write_bytes_per_s: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunReport {
    /// Read figures of the run (`null`: none).
    pub read: Option<DirReport>,
    /// Write figures of the run (`null`: none).
    pub write: Option<DirReport>,
    /// iolab's CPU cost during the run.
    pub cpu: CpuReport,
    /// What the target's device did during the run (`null`: none was seen).
    pub device: Option<crate::samples::DiskDelta>,
    /// I/Os in flight at that device during the run (absent: not known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_depth: Option<super::depth::DeviceDepth>,
    /// What the figures are divided by: the window (or first I/O to last
    /// completion for a size-limited run) plus the final flush.
    #[schemars(extend("x-unit" = "ns"))]
    pub wall_ns: u64,
    /// The final flush alone.
    #[schemars(extend("x-unit" = "ns"))]
    pub sync_ns: u64,
    /// When the first worker finished, from the run's start.
    #[schemars(extend("x-unit" = "ns"))]
    pub first_done_ns: u64,
    /// When the last worker finished, from the run's start.
    #[schemars(extend("x-unit" = "ns"))]
    pub last_done_ns: u64,
    /// Bytes completed second by second.
    pub samples: Samples,
    /// Where write throughput fell and stayed lower (an SLC or host cache
    /// filling up), found in the run's complete seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_cliff: Option<crate::judge::cliff::Cliff>,
    /// The devices under the target second by second (`device` is their sum
    /// over the run): how a layout spreads the job over its members.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_seconds: Vec<crate::samples::DiskSeries>,
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JobReport {
    /// The test's name (`SEQ1M Q8T1`, `randread 4K Q32T1`).
    pub name: String,
    pub rw: Pattern,
    /// Block size: bytes per I/O.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bs: u64,
    /// Queue depth: I/Os in flight per thread.
    #[schemars(extend("x-unit" = "count"))]
    pub qd: u32,
    /// Threads asked for.
    #[schemars(extend("x-unit" = "count"))]
    pub threads: u32,
    /// Reads in % of I/Os, for mixed patterns (`null` otherwise).
    #[schemars(extend("x-unit" = "%"))]
    pub mix_read: Option<u8>,
    /// O_DIRECT was in effect (false: buffered I/O, through the page cache).
    pub direct: bool,
    pub engine: EngineName,
    /// How latencies were taken: `exact` (each I/O's own), `batch=N`
    /// (completions reaped N at a time: each latency an upper bound), `off`
    /// (none: `lat_ns` is absent). Absent from the JSON when `exact`, so
    /// documents of earlier versions keep their bytes.
    #[serde(default = "exact", skip_serializing_if = "is_exact")]
    pub latency: String,
    /// How each write was made durable: `dsync` (with O_DSYNC, each
    /// completing once stored), `fsync` (each followed by an fdatasync,
    /// counted in its latency). Absent when neither (one flush per run).
    #[serde(default, skip_serializing_if = "crate::plan::SyncMode::is_none")]
    pub sync: crate::plan::SyncMode,
    /// Threads actually used (psync emulates queue depth with threads).
    #[schemars(extend("x-unit" = "count"))]
    pub workers: u32,
    /// How long each run issued I/O (`null`: size-limited).
    #[schemars(extend("x-unit" = "s"))]
    pub duration_s: Option<f64>,
    /// Bytes each run transferred (`null`: time-limited).
    #[schemars(extend("x-unit" = "bytes"))]
    pub limit_bytes: Option<u64>,
    /// Bytes of the target the job addressed.
    #[schemars(extend("x-unit" = "bytes"))]
    pub span_bytes: u64,
    /// Where the span starts on the target.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub offset_bytes: u64,
    /// Every measured run, in order.
    pub runs: Vec<RunReport>,
    /// The discarded warm-up's bytes per second, for the timeline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<Samples>,
    /// Read figures, medians over the measured runs (`null`: the job did not read).
    pub read: Option<DirReport>,
    /// Write figures, medians over the measured runs (`null`: the job did not write).
    pub write: Option<DirReport>,
    /// iolab's CPU cost, median over the measured runs.
    pub cpu: CpuReport,
    /// What the target's devices did over the measured runs (`null`: none was seen).
    pub device: Option<DeviceReport>,
    /// I/Os in flight at the target's device over the measured runs, against
    /// QD × threads asked (`device_depth_short`). Absent: not known (no block
    /// device, one that counts no I/O, a pool's members side by side, fio's figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_depth: Option<super::depth::DeviceDepth>,
    /// Why a figure may not be trusted, in the order they matter.
    pub warnings: Vec<Diagnostic>,
    /// `--steady-state`: the rounds and the verdict. The job's figures then
    /// describe the last `window` rounds, not the burst before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyReport>,
    /// A job that read from a ZFS dataset: how iolab kept the ARC (and
    /// the members' page cache) from answering, or that it could not and
    /// labelled the figure cached (`zfs_arc_cached`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_read: Option<crate::judge::zfs::ZfsRead>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct SteadyReport {
    /// A steady window was reached.
    pub reached: bool,
    /// Rounds run.
    #[schemars(extend("x-unit" = "count"))]
    pub rounds: usize,
    /// Rounds a steady window spans.
    #[schemars(extend("x-unit" = "count"))]
    pub window: usize,
    /// The most rounds the rule allowed.
    #[schemars(extend("x-unit" = "count"))]
    pub max_rounds: u32,
    /// The round (1-based) that completed the first steady window.
    #[schemars(extend("x-unit" = "index"))]
    pub steady_at_round: Option<usize>,
    /// Mean bytes/s over the last window: the steady value when `reached`.
    #[schemars(extend("x-unit" = "B/s"))]
    pub value_bw_bytes: Option<f64>,
    /// The last window's range, in % of its mean.
    #[schemars(extend("x-unit" = "%"))]
    pub range_pct: Option<f64>,
    /// How far the last window's trend line moves over the window, in % of its mean.
    #[schemars(extend("x-unit" = "%"))]
    pub slope_excursion_pct: Option<f64>,
    /// Bytes/s of every round, oldest first.
    #[schemars(extend("x-unit" = "B/s"))]
    pub round_bw_bytes: Vec<f64>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

fn exact() -> String {
    "exact".into()
}

fn is_exact(s: &str) -> bool {
    s == "exact"
}

impl JobReport {
    /// Whether each latency is the I/O's own (not an upper bound, not absent).
    pub fn latency_exact(&self) -> bool {
        self.latency == "exact"
    }
    /// Whether the latencies are upper bounds (completions reaped in batches).
    pub fn latency_bounded(&self) -> bool {
        self.latency.starts_with("batch")
    }
    /// Whether its read figure is labelled cached: on ZFS, nothing kept
    /// the ARC from answering (`zfs_arc_cached`).
    pub fn read_cached(&self) -> bool {
        self.zfs_read
            .as_ref()
            .is_some_and(|r| r.method == crate::judge::zfs::ReadMethod::Cached)
    }
}

/// The latency figures of a direction; `None` when none was taken
/// (`--latency off`) or every I/O failed (`--continue-on-error`).
fn latency(d: &DirSamples) -> Option<Latency> {
    let f = d.lat_figures()?;
    Some(Latency {
        mean: f.mean,
        min: f.min,
        max: f.max,
        p50: f.p50,
        p90: f.p90,
        p99: f.p99,
        p99_9: f.p99_9,
        p99_99: f.p99_99,
    })
}

fn dir_run(d: &DirSamples, wall_ns: u64) -> Option<DirReport> {
    (d.ios > 0 || d.errors > 0).then(|| {
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
            errors: IoErrors::of(d),
            settle: None,
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
        device_depth: super::depth::of_run(r),
        wall_ns: r.wall_ns,
        sync_ns: r.sync_ns,
        first_done_ns: r.first_done_ns,
        last_done_ns: r.last_done_ns,
        samples: Samples {
            read_bytes_per_s: r.read.per_sec_bytes.clone(),
            write_bytes_per_s: r.write.per_sec_bytes.clone(),
        },
        write_cliff: write_cliff(r),
        device_seconds: r.device_seconds.clone(),
    }
}

/// The write cliff in a run's complete seconds (a last partial second would
/// look like a drop).
fn write_cliff(r: &RunSamples) -> Option<crate::judge::cliff::Cliff> {
    let full = ((r.wall_ns / 1_000_000_000) as usize).min(r.write.per_sec_bytes.len());
    let series: Vec<f64> = r.write.per_sec_bytes[..full].iter().map(|&b| b as f64).collect();
    crate::judge::cliff::write_cliff(&series)
}

fn med_u64(v: impl Iterator<Item = u64>) -> u64 {
    let v: Vec<f64> = v.map(|x| x as f64).collect();
    median(&v).round() as u64
}

/// The median of each figure over `runs`, with the spread of bandwidth
/// (`bw_min`, `bw_max`, `bw_cv`); `None` without runs.
pub(crate) fn dir_median(runs: &[&DirReport]) -> Option<DirReport> {
    if runs.is_empty() {
        return None;
    }
    let bw: Vec<f64> = runs.iter().map(|r| r.bw_bytes).collect();
    let f = |g: fn(&DirReport) -> f64| median(&runs.iter().map(|r| g(r)).collect::<Vec<_>>());
    let u = |g: fn(&DirReport) -> u64| med_u64(runs.iter().map(|r| g(r)));
    // Latency over the runs that took one.
    let lats: Vec<&Latency> = runs.iter().filter_map(|r| r.lat_ns.as_ref()).collect();
    let lf = |g: fn(&Latency) -> f64| median(&lats.iter().map(|l| g(l)).collect::<Vec<_>>());
    let lu = |g: fn(&Latency) -> u64| med_u64(lats.iter().map(|l| g(l)));
    Some(DirReport {
        bytes: u(|r| r.bytes),
        ios: u(|r| r.ios),
        bw_bytes: median(&bw),
        iops: f(|r| r.iops),
        lat_ns: (!lats.is_empty()).then(|| Latency {
            mean: lf(|l| l.mean),
            min: lu(|l| l.min),
            max: lu(|l| l.max),
            p50: lu(|l| l.p50),
            p90: lu(|l| l.p90),
            p99: lu(|l| l.p99),
            p99_9: lu(|l| l.p99_9),
            p99_99: lu(|l| l.p99_99),
        }),
        bw_min: bw.iter().copied().reduce(f64::min),
        bw_max: bw.iter().copied().reduce(f64::max),
        bw_cv: Some(cv(&bw)),
        errors: IoErrors::sum(runs.iter().filter_map(|r| r.errors.as_ref())),
        settle: None,
    })
}

/// The median of each CPU figure over `runs`.
pub(crate) fn cpu_median(runs: &[RunReport]) -> CpuReport {
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

/// The member disks of a ZFS pool summed into one delta, named
/// `vdf+vdg+...`; `None` when there are none.
pub(super) fn members_sum(devices: &[crate::samples::DiskDelta]) -> Option<crate::samples::DiskDelta> {
    let first = devices.first()?;
    let mut sum = crate::samples::DiskDelta {
        name: devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join("+"),
        ..first.clone()
    };
    for d in &devices[1..] {
        sum.read_bytes += d.read_bytes;
        sum.write_bytes += d.write_bytes;
        sum.read_ios += d.read_ios;
        sum.write_ios += d.write_ios;
        sum.busy_ns = sum.busy_ns.max(d.busy_ns);
    }
    Some(sum)
}

/// What the target's devices did over a job's runs. The first device is
/// the one the filesystem is on and the rest lie under it (`lower`); on a
/// ZFS pool (`zfs_pool`) the devices are the pool's data member disks side
/// by side, and the figures are their sum (each member also in `lower`).
/// The pool's data members in `d.lower` (the job's devices) into
/// `d.zfs_members`; the members by vdev for [`crate::judge::zfs::uneven_members`].
pub(crate) fn zfs_members(d: &mut DeviceReport, z: &crate::device::ZfsInfo) -> Vec<crate::judge::zfs::VdevMoved> {
    let moved: Vec<Moved> = d.lower.iter().map(|l| (l.name.as_str(), l.read_bytes, l.write_bytes)).collect();
    let (vdevs, members) = group_members(z, &moved, Listing::Served);
    d.zfs_members = members;
    vdevs
}

/// What the member devices of a filesystem over several devices other than
/// ZFS (btrfs raid: `what` is `btrfs on /dev/loop5`) did over a job's runs:
/// side by side and summed, as a pool's members, named `what (a+b)`, and
/// cross-checked as one device.
pub(crate) fn members_report(runs: &[RunSamples], what: &str, copies: Option<u32>) -> Option<DeviceReport> {
    let mut d = device_report(runs, Some(what))?;
    d.zfs_pool = None;
    d.copies = copies.filter(|c| *c > 1);
    d.name = format!("{what} ({})", d.lower.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join("+"));
    Some(d)
}

/// Copies of each byte a btrfs data profile writes: `raid1`, `raid10` and
/// `dup` 2, `raid1c3` 3, `raid1c4` 4, `single` and `raid0` 1; `None` for
/// parity profiles (raid5/6: a share, not whole copies) and unknown ones.
pub(super) fn btrfs_copies(l: &crate::device::LayoutInfo) -> Option<u32> {
    if l.by != "btrfs" {
        return None;
    }
    match l.profile.as_str() {
        "single" | "raid0" => Some(1),
        "raid1" | "raid10" | "dup" => Some(2),
        "raid1c3" => Some(3),
        "raid1c4" => Some(4),
        _ => None,
    }
}

pub(crate) fn device_report(runs: &[RunSamples], zfs_pool: Option<&str>) -> Option<DeviceReport> {
    let first = runs.first()?.devices.first()?;
    let mut d = DeviceReport {
        name: match zfs_pool {
            Some(pool) => format!(
                "zpool {pool} ({})",
                runs[0].devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join("+")
            ),
            None => first.name.clone(),
        },
        read_bytes: 0,
        write_bytes: 0,
        read_ios: 0,
        write_ios: 0,
        job_read_bytes: 0,
        job_write_bytes: 0,
        lower: Vec::new(),
        zfs_pool: zfs_pool.map(str::to_string),
        copies: None,
        zfs_writes: None,
        zfs_members: Vec::new(),
        zfs_members_unjudged: None,
        others: crate::device::sum_activity(runs.iter().map(|r| r.other_devices.as_slice()))
            .into_iter()
            .filter(|o| o.bytes() > crate::base::thresholds::OTHER_DEVICE_MIN_BYTES)
            .collect(),
    };
    // On a pool every member is counted in the figures (and listed in `lower`).
    let under = if zfs_pool.is_some() { 0 } else { 1 };
    for r in runs {
        let top = if zfs_pool.is_some() {
            members_sum(&r.devices)
        } else {
            r.devices.first().cloned()
        };
        if let Some(top) = top {
            d.read_bytes += top.read_bytes;
            d.write_bytes += top.write_bytes;
            d.read_ios += top.read_ios;
            d.write_ios += top.write_ios;
        }
        // Everything the job moved, including I/O that completed after the deadline.
        d.job_read_bytes += r.read.all_bytes;
        d.job_write_bytes += r.write.all_bytes;
        for (i, low) in r.devices.iter().skip(under).enumerate() {
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
            // How long each member had I/O in flight: a shared path keeps
            // them busy, a host that sets the pace leaves them idle.
            l.busy_ns += low.busy_ns;
        }
    }
    Some(d)
}

/// Compare what reached the device with what the job did, reads then
/// writes; where the device saw too little and a device outside the
/// target's chain moved the difference, name that one instead. On a ZFS
/// pool a shortfall of reads names the ARC (see [`cross_check_with`]).
pub fn cross_check(d: &DeviceReport) -> Vec<Diagnostic> {
    cross_check_with(d, crate::judge::zfs::read_caches(crate::judge::zfs::Implementation::OpenZfs, None))
}

/// [`cross_check`], naming `caches` ([`crate::judge::zfs::read_caches`])
/// where a ZFS pool's members read less than the job did, and judging
/// their writes against the layout's model (`zfs_writes`).
pub fn cross_check_with(d: &DeviceReport, caches: &str) -> Vec<Diagnostic> {
    let tops = crate::device::tops(&d.others);
    let other = |f: fn(&crate::samples::DeviceActivity) -> u64| tops.iter().map(|o| (o.name.as_str(), f(o))).max_by_key(|x| x.1);
    let check = |dir: &str, job: u64, dev: u64| match d.zfs_pool {
        Some(_) => rules::pool_cross_check(&d.name, dir, job, dev, caches),
        // Every byte written lands on `copies` members.
        None => match d.copies.filter(|_| dir == "written") {
            Some(c) => rules::cross_check(
                &format!("{} (each byte written {c}×)", d.name),
                dir,
                job.saturating_mul(u64::from(c)),
                dev,
            ),
            None => rules::cross_check(&d.name, dir, job, dev),
        },
    };
    let model = d.zfs_writes.as_ref().and_then(|w| {
        let expected = crate::judge::zfs::WriteExpectation {
            low: w.expected_ratio,
            high: w.expected_max_ratio.unwrap_or(w.expected_ratio),
        };
        crate::judge::zfs::write_model(&d.name, &w.model, expected, w.measured_ratio)
    });
    [
        rules::device_elsewhere(&d.name, "read", d.job_read_bytes, d.read_bytes, other(|o| o.read_bytes))
            .or_else(|| check("read", d.job_read_bytes, d.read_bytes)),
        rules::device_elsewhere(&d.name, "written", d.job_write_bytes, d.write_bytes, other(|o| o.write_bytes))
            .or_else(|| check("written", d.job_write_bytes, d.write_bytes)),
        model,
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
pub(super) mod tests {
    //! Tests of the figures, spread and warnings.

    use super::*;

    fn dev(job_r: u64, dev_r: u64, job_w: u64, dev_w: u64) -> DeviceReport {
        DeviceReport {
            name: "loop9".into(),
            read_bytes: dev_r,
            write_bytes: dev_w,
            read_ios: 0,
            write_ios: 0,
            job_read_bytes: job_r,
            job_write_bytes: job_w,
            lower: vec![],
            zfs_pool: None,
            copies: None,
            others: vec![],
            zfs_writes: None,
            zfs_members: Vec::new(),
            zfs_members_unjudged: None,
        }
    }

    #[test]
    fn cross_check_flags_cache_and_extra_io() {
        assert!(cross_check(&dev(100 << 20, 100 << 20, 0, 0)).is_empty());
        assert!(cross_check(&dev(100 << 20, 95 << 20, 50 << 20, 54 << 20)).is_empty());
        let w = cross_check(&dev(100 << 20, 10 << 20, 0, 0));
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "cache_answered");
        assert!(w[0].message.contains("10%"), "{}", w[0].message);
        let w = cross_check(&dev(0, 0, 100 << 20, 150 << 20));
        assert_eq!(w[0].code, "device_extra");
    }

    /// A run whose writes fell from 1000 to 300 MB/s after 10 s carries the cliff.
    #[test]
    fn write_cliff_is_found_in_complete_seconds() {
        let mut r = RunSamples {
            wall_ns: 20_500_000_000,
            ..Default::default()
        };
        r.write.per_sec_bytes = [vec![1_000_000_000u64; 10], vec![300_000_000; 10], vec![1]].concat();
        let c = run_report(&r).write_cliff.expect("cliff");
        assert_eq!(c.at_second, 10);
        assert!((c.drop_pct - 70.0).abs() < 1e-9);
        // The partial 21st second alone is no cliff.
        let mut flat = RunSamples {
            wall_ns: 20_500_000_000,
            ..Default::default()
        };
        flat.write.per_sec_bytes = [vec![1_000_000_000u64; 20], vec![1]].concat();
        assert!(run_report(&flat).write_cliff.is_none());
    }

    #[test]
    fn spread_is_reported_over_runs() {
        let mk = |bw: f64| DirReport {
            bytes: bw as u64,
            ios: 1,
            bw_bytes: bw,
            iops: 1.0,
            lat_ns: Some(Latency {
                mean: 1.0,
                min: 1,
                max: 1,
                p50: 1,
                p90: 1,
                p99: 1,
                p99_9: 1,
                p99_99: 1,
            }),
            bw_min: None,
            bw_max: None,
            bw_cv: None,
            errors: None,
            settle: None,
        };
        let (a, b, c) = (mk(100.0), mk(300.0), mk(200.0));
        let m = dir_median(&[&a, &b, &c]).unwrap();
        assert_eq!(m.bw_bytes, 200.0);
        assert_eq!(m.bw_min, Some(100.0));
        assert_eq!(m.bw_max, Some(300.0));
        assert!((m.bw_cv.unwrap() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn cross_check_names_a_device_outside_the_target_that_did_the_work() {
        let mut d = dev(100 << 20, 0, 0, 0);
        d.others = vec![crate::samples::DeviceActivity {
            name: "sdb".into(),
            read_bytes: 100 << 20,
            bottom: true,
            ..Default::default()
        }];
        let w = cross_check(&d);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "other_device");
        assert!(
            w[0].message.contains("sdb (not under the target) read 100.00 MiB"),
            "{}",
            w[0].message
        );
        // Without it, the idle device is said to be idle.
        d.others.clear();
        assert!(cross_check(&d)[0].message.starts_with("loop9 was idle"));
    }

    /// A run on the ZFS pool `fast` (two mirrors over vdf..vdi): the job moved
    /// `job_r`/`job_w` bytes, each member disk `per_member` (read, written).
    pub(in crate::summary) fn pool_run(job_r: u64, job_w: u64, per_member: [(u64, u64); 4]) -> RunSamples {
        let mut r = RunSamples::default();
        r.read.all_bytes = job_r;
        r.write.all_bytes = job_w;
        r.devices = ["vdf", "vdg", "vdh", "vdi"]
            .iter()
            .zip(per_member)
            .map(|(n, (rd, wr))| crate::samples::DiskDelta {
                name: n.to_string(),
                read_bytes: rd,
                write_bytes: wr,
                read_ios: rd / 4096,
                write_ios: wr / 4096,
                // Busy a millisecond per MiB moved.
                busy_ns: (rd + wr) / (1 << 20) * 1_000_000,
                ..Default::default()
            })
            .collect();
        r
    }

    #[test]
    fn a_zfs_pool_is_cross_checked_on_its_members_summed() {
        const M: u64 = 1 << 20;
        // The ARC answered: the job read 400 MiB, the members nothing.
        let arc = device_report(&[pool_run(400 * M, 0, [(0, 0); 4])], Some("fast")).unwrap();
        assert_eq!(arc.name, "zpool fast (vdf+vdg+vdh+vdi)");
        assert_eq!(arc.zfs_pool.as_deref(), Some("fast"));
        let w = cross_check(&arc);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "cache_answered");
        assert!(
            w[0].message
                .starts_with("zpool fast (vdf+vdg+vdh+vdi) was idle while the job read 400.00 MiB")
                && w[0].message.contains("ARC"),
            "{}",
            w[0].message
        );
        // The disks did the work: reads split over the members (one side of each
        // mirror here, 100 MiB each of 4 would do too), writes on every member of
        // a mirror: 2 × 200 MiB for a 200 MiB job is no `device_extra`.
        let fine = [(200 * M, 100 * M), (0, 100 * M), (150 * M, 100 * M), (50 * M, 100 * M)];
        let d = device_report(&[pool_run(400 * M, 200 * M, fine), pool_run(400 * M, 200 * M, fine)], Some("fast")).unwrap();
        assert_eq!((d.read_bytes, d.write_bytes), (800 * M, 800 * M));
        assert_eq!((d.job_read_bytes, d.job_write_bytes), (800 * M, 400 * M));
        // Every member listed, summed over the runs.
        let lower: Vec<(&str, u64)> = d.lower.iter().map(|l| (l.name.as_str(), l.read_bytes)).collect();
        assert_eq!(lower, [("vdf", 400 * M), ("vdg", 0), ("vdh", 300 * M), ("vdi", 100 * M)]);
        // And their busy time: what tells a shared path from the host's limit.
        let busy: Vec<u64> = d.lower.iter().map(|l| l.busy_ns / 1_000_000).collect();
        assert_eq!(busy, [600, 200, 500, 300]);
        assert!(cross_check(&d).is_empty(), "{:?}", cross_check(&d));
        // Not the first member alone: vdf by itself read only half of it.
        // btrfs over the same four: summed and cross-checked alike, not a pool.
        let b = members_report(&[pool_run(400 * M, 200 * M, fine)], "btrfs on /dev/vdf", Some(2)).unwrap();
        assert_eq!(b.name, "btrfs on /dev/vdf (vdf+vdg+vdh+vdi)");
        assert_eq!((b.read_bytes, b.zfs_pool.as_deref()), (400 * M, None));
        assert!(cross_check(&b).is_empty(), "raid1 writes two copies: {:?}", cross_check(&b));
        // raid0 writes each byte once: twice that is extra.
        let b = members_report(&[pool_run(400 * M, 200 * M, fine)], "btrfs on /dev/vdf", Some(1)).unwrap();
        assert_eq!(b.copies, None);
        assert_eq!(cross_check(&b)[0].code, "device_extra");
        let single = device_report(&[pool_run(400 * M, 200 * M, fine)], None).unwrap();
        assert_eq!(single.name, "vdf");
        assert_eq!(cross_check(&single)[0].code, "cache_answered");
        // Writes still in the ARC (dirty data): less than once on the members.
        let dirty = device_report(&[pool_run(0, 400 * M, [(0, 20 * M); 4])], Some("fast")).unwrap();
        let w = cross_check(&dirty);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "cache_answered");
        assert!(w[0].message.contains("20%"), "{}", w[0].message);
        // A run's own device is the sum too.
        assert_eq!(members_sum(&pool_run(0, 0, fine).devices).unwrap().read_bytes, 400 * M);
    }
}
