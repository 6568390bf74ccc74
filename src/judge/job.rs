//! The warnings on a measured job, one small rule each. Every rule takes
//! just the figures it judges and says nothing (`None`) when they are fine;
//! `summary::job_report` calls them in the order the warnings are shown.

use super::cliff::Cliff;
use super::diagnostic::{Code, Diagnostic};
use super::settle::Settle;
use super::steady::SteadyState;
use crate::base::thresholds::{
    CPU_SATURATED, DEVICE_EXTRA_MIN_BYTES, DEVICE_TOLERANCE, HIGH_CV, MAX_RANGE_PCT, MAX_SLOPE_EXCURSION_PCT, OTHER_DEVICE_MIN_BYTES,
    SETTLE_CV, SETTLE_HALF_WIDTH, THROTTLE_AT_LIMIT, UNEVEN_THREADS,
};
use crate::io::engine::{EngineKind, Layout};

/// `io_errors`: `errors` I/Os of one direction (`read` or `write`) failed
/// and were counted instead of stopping the job (`--continue-on-error`),
/// the first at `first_offset` with the error `first_error`.
pub fn io_errors(dir: &str, errors: u64, first_offset: u64, first_error: &str) -> Option<Diagnostic> {
    (errors > 0).then(|| {
        Diagnostic::new(
            Code::IoErrors,
            format!(
                "{errors} {dir}{} failed (the first at offset {first_offset}: {first_error}); the figures count only the I/O that succeeded",
                if errors == 1 { "" } else { "s" }
            ),
        )
    })
}

/// `buffered_fallback` when O_DIRECT was refused, `buffered` when buffered
/// I/O was asked for; nothing for direct I/O.
pub fn buffered(direct: bool, direct_fallback: bool, path: &str) -> Option<Diagnostic> {
    if direct {
        return None;
    }
    Some(if direct_fallback {
        Diagnostic::new(
            Code::BufferedFallback,
            format!(
                "{path} refused O_DIRECT: measured with BUFFERED I/O through the page cache (cache dropped before each read pass; writes timed to fdatasync)"
            ),
        )
    } else {
        Diagnostic::new(
            Code::Buffered,
            "buffered I/O: the page cache is in the path, as for an application; reads start cold, writes are timed to fdatasync",
        )
    })
}

/// `no_block_device`: nothing below the target to cross-check against.
pub fn no_block_device(path: &str, has_block_device: bool, fstype: Option<&str>) -> Option<Diagnostic> {
    if has_block_device {
        return None;
    }
    let fs = fstype.unwrap_or("unknown");
    Some(Diagnostic::new(
        Code::NoBlockDevice,
        format!(
            "no block device serves {path} (filesystem {fs}): the device cross-check could not run, and the figures may be memory or cache speed rather than a storage device's{}",
            match fs {
                "tmpfs" | "ramfs" => " (here: memory)",
                "zfs" =>
                    " (on ZFS, the ARC's); the pool's member disks are unknown: `zpool status -P` did not run or listed no block device; install the ZFS utilities (zfsutils-linux) or run as root",
                "fuse.zfs" =>
                    " (on zfs-fuse, its ARC's); the pool's members are unknown: `zpool status` did not answer (is the zfs-fuse daemon running? run as root) or listed no block device (file vdevs)",
                _ => "",
            }
        ),
    ))
}

/// `memory_device`: the top block device, `name`, is memory-backed (zram, a RAM disk).
pub fn memory_device(name: &str, memory: bool) -> Option<Diagnostic> {
    memory.then(|| {
        Diagnostic::new(
            Code::MemoryDevice,
            format!("{name} is a memory-backed block device: figures are memory speed"),
        )
    })
}

/// Whether a throttle set every figure a job has (each direction it moved
/// is [`at_throttle`]): then its figures are the throttle's, and a memory
/// device under it does not make them memory speed (`memory_device` is not
/// given). A job with no direction has no figure a throttle set.
pub fn throttle_set_every_figure(reads: bool, read_capped: bool, writes: bool, write_capped: bool) -> bool {
    (reads || writes) && (!reads || read_capped) && (!writes || write_capped)
}

/// A cgroup throttle's limits on one device in one direction, as
/// [`at_throttle`] judges them.
#[derive(Clone, Debug, PartialEq)]
pub struct ThrottleLimit<'a> {
    /// The throttled device (`loop0`).
    pub device: &'a str,
    /// Where the limit is set, in words (`blkio cgroup /lab`).
    pub place: &'a str,
    /// The limit in bytes per second.
    pub bps: Option<u64>,
    /// The limit in I/Os per second.
    pub iops: Option<u64>,
}

/// `at_throttle`: a job direction's figure (`dir` is `read` or `write`,
/// `bw_bytes` and `iops` its medians) reached [`THROTTLE_AT_LIMIT`] of a
/// throttle's limit in that direction on a device under the target: the
/// figure is the cgroup's limit, not the device's. Nothing when the
/// figure is below it (the device, or something else, was slower).
pub fn at_throttle(dir: &str, bw_bytes: f64, iops: f64, t: &ThrottleLimit) -> Option<Diagnostic> {
    use crate::base::units::fmt_mbs;
    let reached = |figure: f64, limit: Option<u64>| limit.filter(|&l| l > 0 && figure >= THROTTLE_AT_LIMIT * l as f64);
    let (figure, limit) = if let Some(l) = reached(bw_bytes, t.bps) {
        (fmt_mbs(bw_bytes), fmt_mbs(l as f64))
    } else if let Some(l) = reached(iops, t.iops) {
        (format!("{iops:.0} IOPS"), format!("{l} IOPS"))
    } else {
        return None;
    };
    let dirs = if dir == "read" { "reads" } else { "writes" };
    Some(Diagnostic::new(
        Code::AtThrottle,
        format!(
            "{dir} {figure} is at the throttle on {} ({}: {dirs} to {limit}): the figure is the cgroup's limit, not the device's",
            t.device, t.place
        ),
    ))
}

/// The device cross-check for one direction (`read` or `written`): the
/// device saw more than [`DEVICE_TOLERANCE`] fewer bytes than the job moved
/// (`cache_answered`), or that much more and over [`DEVICE_EXTRA_MIN_BYTES`]
/// extra (`device_extra`). Nothing when the job moved no bytes.
pub fn cross_check(device: &str, dir: &str, job_bytes: u64, device_bytes: u64) -> Option<Diagnostic> {
    if job_bytes == 0 {
        return None;
    }
    let ratio = device_bytes as f64 / job_bytes as f64;
    if device_bytes == 0 {
        Some(Diagnostic::new(
            Code::CacheAnswered,
            format!(
                "{device} was idle while the job {dir} {}: a cache answered (page cache, filesystem or device cache) or the I/O went elsewhere; this is not the device's speed",
                crate::base::units::fmt_bytes(job_bytes)
            ),
        ))
    } else if ratio < 1.0 - DEVICE_TOLERANCE {
        Some(Diagnostic::new(
            Code::CacheAnswered,
            format!(
                "{device} saw only {:.0}% of the bytes the job {dir}: a cache answered (page cache, filesystem or device cache) or the filesystem compressed; this is not the device's speed",
                ratio * 100.0
            ),
        ))
    } else if ratio > 1.0 + DEVICE_TOLERANCE && device_bytes - job_bytes > DEVICE_EXTRA_MIN_BYTES {
        Some(Diagnostic::new(
            Code::DeviceExtra,
            format!(
                "{device} saw {:.0}% of the bytes the job {dir}: other I/O on the device, read-ahead, journaling or write amplification",
                ratio * 100.0
            ),
        ))
    } else {
        None
    }
}

/// The device cross-check on a ZFS dataset, over the pool's data member
/// disks summed (`devices` names them). What "the devices moved what the
/// job asked" means there:
/// - reads: the sum, as [`cross_check`] judges one device: a mirror reads
///   each block from one of its members, raidz and dRAID read the data
///   columns (parity only to repair), so the members together read what
///   the job read; more is the recordsize (a 4 KiB read reads the whole
///   record) or prefetch (`device_extra`), less is the ARC (`cache_answered`);
/// - writes (`written`): only from below. Every byte lands at least once
///   (iolab's data does not compress), so members that wrote less than the
///   job did leave it in memory: the ARC's dirty data, not yet on disk
///   (`cache_answered`). More is expected and not judged: a mirror writes
///   every byte to each of its members, raidz adds parity (and padding), and
///   ZFS its metadata, the ZIL and copy-on-write indirect blocks; how much
///   more depends on the layout, its health and the record size.
///
/// A shortfall names the caches that answered, `caches`
/// ([`crate::judge::zfs::read_caches`]: the ARC, which OpenZFS before 2.3
/// and zfs-fuse use even with O_DIRECT, and the page cache of members
/// zfs-fuse reads without O_DIRECT); how
/// much more than once the members should write is
/// [`crate::judge::zfs::write_model`]'s.
pub fn pool_cross_check(devices: &str, dir: &str, job_bytes: u64, device_bytes: u64, caches: &str) -> Option<Diagnostic> {
    let mut d = cross_check(devices, dir, job_bytes, device_bytes)?;
    match d.code {
        Code::DeviceExtra if dir == "written" => None,
        Code::CacheAnswered => {
            d.message.push_str(&format!(
                " (on ZFS: {caches}; test a span well over the ARC's maximum, or let iolab export and import the pool: --allow-export)"
            ));
            Some(d)
        }
        _ => Some(d),
    }
}

/// `other_device` for one direction of a job: the target's device saw more
/// than [`DEVICE_TOLERANCE`] fewer bytes than the job moved, and `other`,
/// a device outside the target's chain, moved at least the missing bytes
/// (less the same tolerance) and over [`OTHER_DEVICE_MIN_BYTES`]: the I/O
/// went there (or another program used it), so the figures are not the
/// target device's. Takes the place of `cache_answered`.
pub fn device_elsewhere(device: &str, dir: &str, job_bytes: u64, device_bytes: u64, other: Option<(&str, u64)>) -> Option<Diagnostic> {
    let (name, bytes) = other?;
    let missing = job_bytes.saturating_sub(device_bytes);
    let short = (device_bytes as f64) < (1.0 - DEVICE_TOLERANCE) * job_bytes as f64;
    (job_bytes > 0 && short && bytes > OTHER_DEVICE_MIN_BYTES && bytes as f64 >= (1.0 - DEVICE_TOLERANCE) * missing as f64).then(|| {
        let fmt = crate::base::units::fmt_bytes;
        Diagnostic::new(
            Code::OtherDevice,
            format!(
                "{device} {} while the job {dir} {}, and {name} (not under the target) {dir} {} meanwhile: the job's I/O went to {name} (a filesystem over several devices, a cache device) or another program used it; these are not {device}'s figures",
                if device_bytes == 0 {
                    "was idle".to_string()
                } else {
                    format!("saw only {}", fmt(device_bytes))
                },
                fmt(job_bytes),
                fmt(bytes)
            ),
        )
    })
}

/// `high_cv`: one direction's bandwidth varied more than [`HIGH_CV`]
/// (coefficient of variation) between runs.
pub fn high_cv(dir: &str, bw_cv: Option<f64>) -> Option<Diagnostic> {
    let c = bw_cv.filter(|c| *c > HIGH_CV)?;
    Some(Diagnostic::new(
        Code::HighCv,
        format!(
            "{dir} bandwidth varied {:.0}% between runs: use more --runs or a longer --duration",
            c * 100.0
        ),
    ))
}

/// `cpu_bound`: iolab kept `busy_cpus` CPUs busy (user + system time over
/// wall time), at least [`CPU_SATURATED`] of those its `workers` threads
/// could use (no more than the machine's `cpus`).
pub fn cpu_bound(busy_cpus: f64, workers: u32, cpus: usize) -> Option<Diagnostic> {
    let usable = (workers as f64).min(cpus as f64);
    (busy_cpus >= CPU_SATURATED * usable).then(|| {
        Diagnostic::new(
            Code::CpuBound,
            format!(
                "iolab kept {busy_cpus:.2} CPUs busy with {workers} worker thread(s): the figure may be limited by the CPU, not the device"
            ),
        )
    })
}

/// `write_cliff`: run `run` (1-based) had a write cliff. A job reports its
/// first run with one.
pub fn write_cliff(run: usize, cliff: Option<&Cliff>) -> Option<Diagnostic> {
    let c = cliff?;
    Some(Diagnostic::new(
        Code::WriteCliff,
        format!(
            "write throughput fell {:.0}% after {} s in run {run} ({} → {}) and stayed lower: a cache filled up; the sustained rate is the lower one",
            c.drop_pct,
            c.at_second,
            crate::base::units::mbs(c.before_bps, 1),
            crate::base::units::fmt_mbs(c.after_bps)
        ),
    ))
}

/// `not_steady`: `--steady-state` ran out of rounds before the last
/// `window` of them met the rule.
pub fn not_steady(st: &SteadyState, window: usize) -> Option<Diagnostic> {
    if st.reached {
        return None;
    }
    Some(Diagnostic::new(
        Code::NotSteady,
        format!(
            "no steady state after {} rounds (last {window}: range {:.0}% of the mean, slope excursion {:.0}%; the rule asks ≤{MAX_RANGE_PCT}% and ≤{MAX_SLOPE_EXCURSION_PCT}%): the figures are the last {window} rounds, still moving; use more --max-rounds or a longer --duration",
            st.rounds,
            st.range_pct.unwrap_or(f64::NAN),
            st.slope_excursion_pct.unwrap_or(f64::NAN),
        ),
    ))
}

/// `not_settled`: `--runs auto` ran the most windows it may (`max`) and
/// one direction's (`read` or `write`) still had not settled
/// ([`crate::judge::settle`]): the figure is the median of them all, with
/// their spread.
pub fn not_settled(dir: &str, s: &Settle, max: u32) -> Option<Diagnostic> {
    if s.settled() {
        return None;
    }
    let interval = s
        .half_width
        .map(|h| format!(", the 95% interval of their median ±{:.1}%", h * 100.0))
        .unwrap_or_default();
    Some(Diagnostic::new(
        Code::NotSettled,
        format!(
            "{dir} bandwidth did not settle in {} windows (CV {:.1}%{interval}; settled means CV ≤ {:.0}% or an interval within ±{:.0}%): the figure is the median of all {}, with their spread; try --runs auto:{} or a longer --duration",
            s.windows,
            s.cv * 100.0,
            SETTLE_CV * 100.0,
            SETTLE_HALF_WIDTH * 100.0,
            s.windows,
            (max * 2).min(crate::plan::limits::MAX_RUNS),
        ),
    ))
}

/// `psync_threads`: an engine without a queue (psync) ran a queue depth
/// above 1 as threads ([`Layout::ThreadPerSlot`]).
pub fn psync_threads(engine: EngineKind, qd: u32, workers: u32) -> Option<Diagnostic> {
    (engine.ops().layout == Layout::ThreadPerSlot && qd > 1).then(|| {
        Diagnostic::new(
            Code::PsyncThreads,
            format!("{} has no queue: QD{qd} emulated with {workers} threads", engine.as_str()),
        )
    })
}

/// `uneven_threads`: in a run with several worker threads, the first
/// finished more than [`UNEVEN_THREADS`] of the run before the last. A job
/// reports its first such run.
pub fn uneven_threads(workers: u32, first_done_ns: u64, last_done_ns: u64) -> Option<Diagnostic> {
    let uneven = workers > 1 && last_done_ns > 0 && (last_done_ns - first_done_ns) as f64 > UNEVEN_THREADS * last_done_ns as f64;
    uneven.then(|| {
        Diagnostic::new(
            Code::UnevenThreads,
            format!(
                "threads finished unevenly (first at {:.2}s, last at {:.2}s): figures use the last-done time",
                first_done_ns as f64 / 1e9,
                last_done_ns as f64 / 1e9
            ),
        )
    })
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
