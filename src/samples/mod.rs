//! Raw measurements, as the engine loop collects them: counts, a latency
//! histogram and per-second bins per direction. Merged across threads and
//! turned into figures by [`crate::summary`].

use hdrhistogram::Histogram;

/// Highest latency the histogram tracks exactly (1 hour); above it values saturate.
const MAX_LAT_NS: u64 = 3_600_000_000_000;

/// What one direction (read or write) did.
#[derive(Clone, Debug)]
pub struct DirSamples {
    /// Bytes and I/Os completed inside the measured window (for a time-limited
    /// run: by the deadline; for a size-limited run: all of them).
    pub bytes: u64,
    pub ios: u64,
    /// Every completion, including I/Os that were in flight at the deadline
    /// and completed after it: what the device really had to serve.
    pub all_bytes: u64,
    pub all_ios: u64,
    /// Completion latency in nanoseconds, 3 significant digits.
    pub lat: Histogram<u64>,
    /// Bytes completed in each second since the job's start.
    pub per_sec_bytes: Vec<u64>,
    /// I/Os completed in each second since the job's start.
    pub per_sec_ios: Vec<u64>,
    /// I/Os that failed (`--continue-on-error`; otherwise the first failure
    /// stops the job). None of them is in any figure above.
    pub errors: u64,
    /// The earliest failure.
    pub first_error: Option<FirstError>,
}

/// Where and how an I/O failed first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstError {
    /// When it completed, ns since the job's start (to find the earliest across threads).
    pub t_ns: u64,
    pub offset: u64,
    /// The errno; `None` for a short transfer.
    pub errno: Option<i32>,
}

impl Default for DirSamples {
    fn default() -> Self {
        DirSamples {
            bytes: 0,
            ios: 0,
            all_bytes: 0,
            all_ios: 0,
            lat: Histogram::new_with_bounds(1, MAX_LAT_NS, 3).expect("valid histogram bounds"),
            per_sec_bytes: Vec::new(),
            per_sec_ios: Vec::new(),
            errors: 0,
            first_error: None,
        }
    }
}

impl DirSamples {
    /// Record one completion at time `t_ns`; `in_window` says whether it
    /// counts toward the run's throughput. Its latency always counts.
    #[inline]
    pub fn record(&mut self, bytes: u64, lat_ns: u64, t_ns: u64, in_window: bool) {
        self.all_bytes += bytes;
        self.all_ios += 1;
        self.lat.saturating_record(lat_ns.max(1));
        if !in_window {
            return;
        }
        self.bytes += bytes;
        self.ios += 1;
        // A completion at exactly 1.000 s belongs to the first second.
        let sec = (t_ns.saturating_sub(1) / 1_000_000_000) as usize;
        if sec >= self.per_sec_bytes.len() {
            self.per_sec_bytes.resize(sec + 1, 0);
            self.per_sec_ios.resize(sec + 1, 0);
        }
        self.per_sec_bytes[sec] += bytes;
        self.per_sec_ios[sec] += 1;
    }

    /// Count one failed I/O at `offset`, completed at `t_ns`.
    pub fn record_error(&mut self, offset: u64, errno: Option<i32>, t_ns: u64) {
        self.errors += 1;
        if self.first_error.is_none_or(|f| t_ns < f.t_ns) {
            self.first_error = Some(FirstError { t_ns, offset, errno });
        }
    }

    pub fn merge(&mut self, other: &DirSamples) {
        self.bytes += other.bytes;
        self.ios += other.ios;
        self.all_bytes += other.all_bytes;
        self.all_ios += other.all_ios;
        self.lat.add(&other.lat).expect("histograms with equal bounds merge");
        add_bins(&mut self.per_sec_bytes, &other.per_sec_bytes);
        add_bins(&mut self.per_sec_ios, &other.per_sec_ios);
        self.errors += other.errors;
        if let Some(f) = other.first_error
            && self.first_error.is_none_or(|mine| f.t_ns < mine.t_ns)
        {
            self.first_error = Some(f);
        }
    }
}

fn add_bins(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// What one worker thread did in one pass.
#[derive(Clone, Debug, Default)]
pub struct WorkerSamples {
    pub read: DirSamples,
    pub write: DirSamples,
    /// When the worker issued its first I/O, ns since the job's start.
    pub start_ns: u64,
    /// When its last I/O completed, ns since the job's start (before the flush).
    pub end_ns: u64,
    /// How long its final flush took (0 if it did not write).
    pub sync_ns: u64,
    /// Where a sequential worker stopped (bytes from its range's start), so
    /// the next pass continues the stream there.
    pub seq_next: u64,
}

/// CPU time of this whole process (every thread, including the kernel's
/// io_uring workers, which belong to the process) over one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuTimes {
    pub usr_ns: u64,
    pub sys_ns: u64,
}

/// System-wide CPU jiffies over one pass, from `/proc/stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SysCpu {
    pub total: u64,
    pub idle: u64,
    pub iowait: u64,
    pub system: u64,
    pub user: u64,
}

/// I/O the block device saw over one pass, from `/proc/diskstats`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DiskDelta {
    pub name: String,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ios: u64,
    pub write_ios: u64,
    /// Time the device had I/O in flight (diskstats `io_ticks`, ms resolution).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub busy_ns: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// What one block device did in each second of a pass, from
/// `/proc/diskstats` read every second: how a layout spreads a job over
/// its members (a mirror that reads from one side only, a bridge that
/// serves one disk at a time), as `zpool iostat -v 1` shows it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DiskSeries {
    pub name: String,
    /// Bytes in each second of the pass (the last one may be partial).
    pub read_bytes: Vec<u64>,
    pub write_bytes: Vec<u64>,
}

/// Everything measured in one pass (a warm-up or one measured run) of a job.
#[derive(Clone, Debug, Default)]
pub struct RunSamples {
    pub read: DirSamples,
    pub write: DirSamples,
    /// The time the figures are divided by: for a time-limited run the
    /// window (start to deadline) plus the final flush; for a size-limited run
    /// the first I/O to the last completion plus the flush (last-done).
    pub wall_ns: u64,
    /// Time between the counter snapshots around the pass (CPU % is relative to it).
    pub elapsed_ns: u64,
    /// When the first worker finished (elbencho's "first done"); equals the
    /// last-done time for one worker.
    pub first_done_ns: u64,
    /// When the last worker's last I/O completed, before the flush.
    pub last_done_ns: u64,
    /// Time the final flush took (0 for read-only passes).
    pub sync_ns: u64,
    pub cpu: CpuTimes,
    pub sys: SysCpu,
    /// Deltas of the devices that serve the target, top (the one the filesystem is on) first.
    pub devices: Vec<DiskDelta>,
    /// The same devices second by second.
    pub device_seconds: Vec<DiskSeries>,
    /// Every other block device that moved meanwhile (partitions folded into
    /// their disks), busiest first: where the job's I/O went if not to `devices`.
    pub other_devices: Vec<crate::device::DeviceActivity>,
    pub workers: u32,
}

impl RunSamples {
    pub fn from_workers(workers: &[WorkerSamples]) -> Self {
        let mut r = RunSamples {
            workers: workers.len() as u32,
            ..Default::default()
        };
        r.first_done_ns = workers.iter().map(|w| w.end_ns).min().unwrap_or(0);
        r.last_done_ns = workers.iter().map(|w| w.end_ns).max().unwrap_or(0);
        for w in workers {
            r.read.merge(&w.read);
            r.write.merge(&w.write);
        }
        r
    }
}

/// Everything measured for one job.
#[derive(Clone, Debug)]
pub struct JobSamples {
    pub spec: crate::plan::JobSpec,
    pub direct: bool,
    pub workers: u32,
    pub depth_per_worker: u32,
    pub runs: Vec<RunSamples>,
    /// The discarded warm-up pass, kept for its timeline.
    pub warmup: Option<RunSamples>,
    /// Set when the runs are steady-state rounds.
    pub steady: Option<crate::plan::SteadyRule>,
}

/// What one phase of a workload did and cost.
#[derive(Clone, Debug, Default)]
pub struct PhaseSamples {
    pub name: String,
    /// Files (or other units the phase counts: commits, checkouts) handled.
    pub files: u64,
    /// Bytes of file data the phase read or wrote (as the application sees them).
    pub bytes: u64,
    pub wall_ns: u64,
    /// iolab's own CPU plus that of the children it waited for.
    pub cpu: CpuTimes,
    pub sys: SysCpu,
    /// What reached the devices under the working directory.
    pub devices: Vec<DiskDelta>,
    /// Every block device that moved during the phase, busiest first.
    pub moved: Vec<crate::device::DeviceActivity>,
    /// Bytes iolab and its children read from storage (task I/O accounting), any device.
    pub own_read_bytes: u64,
    /// Whether the caches were emptied right before the phase.
    pub cold: bool,
}

/// One run of the command.
#[derive(Clone, Debug, Default)]
pub struct CommandRun {
    pub wall_ns: u64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    /// Exit code, or 128 + signal.
    pub exit_code: i32,
    /// The named devices (`--device`, `--cwd`), top first; empty when none is named.
    pub devices: Vec<DiskDelta>,
    /// Every block device that moved during the run, busiest first.
    pub moved: Vec<crate::device::DeviceActivity>,
    /// Bytes the command (and the children it waited for) read from storage,
    /// any device (`ru_inblock` from `wait4`).
    pub own_read_bytes: u64,
    /// Bytes it dirtied for writing (`ru_oublock`): written back now or later.
    pub own_write_bytes: u64,
}

/// What a scan measured (as far as it got).
#[derive(Debug, Default)]
pub struct ScanSamples {
    pub zones: Vec<(crate::plan::scan::Zone, JobSamples)>,
    pub access: Option<JobSamples>,
    pub burst: Option<JobSamples>,
}

/// Which experiment a point belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PointKind {
    /// A queue-depth sweep point on one target.
    Depth,
    /// A thread sweep point on one target.
    Threads,
    /// One target alone with the comparison job.
    Alone,
    /// All targets at once with the comparison job (one job per target).
    Together,
    /// The layout's member alone with the comparison job.
    Member,
}

/// One measured point: the jobs that ran at the same time (one per target).
#[derive(Debug)]
pub struct Point {
    pub kind: PointKind,
    /// Indices into the targets (the member is index `targets.len()`).
    pub targets: Vec<usize>,
    pub qd: u32,
    pub threads: u32,
    pub jobs: Vec<JobSamples>,
}

#[derive(Debug, Default)]
pub struct ScaleSamples {
    pub points: Vec<Point>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_counted_apart_from_the_figures_and_the_earliest_is_kept() {
        let mut a = DirSamples::default();
        a.record(4096, 100, 10, true);
        a.record_error(8192, Some(libc::EIO), 50);
        a.record_error(0, Some(libc::EIO), 40);
        assert_eq!((a.ios, a.all_ios, a.errors), (1, 1, 2));
        assert_eq!(a.first_error.map(|f| f.offset), Some(0), "the earliest, not the lowest or the last");
        let mut b = DirSamples::default();
        b.record_error(12288, None, 20);
        a.merge(&b);
        assert_eq!(a.errors, 3);
        assert_eq!(
            a.first_error,
            Some(FirstError {
                t_ns: 20,
                offset: 12288,
                errno: None
            })
        );
    }
}
