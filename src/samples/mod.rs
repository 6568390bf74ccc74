//! Raw measurements, as the engine loop and the counters around it collect
//! them: per direction counts, a latency histogram and per-second bins;
//! CPU times; what a block device did ([`DiskDelta`], [`DeviceActivity`]);
//! the phases and commands of the timed workloads. Merged across threads
//! and turned into figures by [`crate::summary`].

pub mod histogram;

use hdrhistogram::Histogram;

/// What one direction (read or write) did.
#[derive(Clone, Debug, Default)]
pub struct DirSamples {
    /// Bytes and I/Os completed inside the measured window (for a time-limited
    /// run: by the deadline; for a size-limited run: all of them).
    pub bytes: u64,
    pub ios: u64,
    /// Every completion, including I/Os that were in flight at the deadline
    /// and completed after it: what the device really had to serve.
    pub all_bytes: u64,
    pub all_ios: u64,
    /// Completion latency in nanoseconds, 3 significant digits
    /// ([`histogram::new_histogram`]); `None` when no latency was
    /// taken (`--latency off`) or nothing completed. A worker's samples
    /// never hold one: the stream keeps one per window
    /// ([`crate::io::stream::LatSink`]).
    pub lat: Option<Histogram<u64>>,
    /// The figures of `lat` once it has been let go
    /// ([`DirSamples::compact_latency`]); `None` while `lat` is kept.
    pub lat_figures: Option<histogram::LatFigures>,
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

impl DirSamples {
    /// Count `n` completions of `bytes` each, in second `sec` of the window;
    /// `in_window` says whether they count toward the run's throughput (the
    /// drain after a window's end counts only as what the device served).
    #[inline]
    pub fn count(&mut self, n: u64, bytes: u64, sec: usize, in_window: bool) {
        self.all_bytes += n * bytes;
        self.all_ios += n;
        if !in_window {
            return;
        }
        self.bytes += n * bytes;
        self.ios += n;
        if sec >= self.per_sec_bytes.len() {
            self.per_sec_bytes.resize(sec + 1, 0);
            self.per_sec_ios.resize(sec + 1, 0);
        }
        self.per_sec_bytes[sec] += n * bytes;
        self.per_sec_ios[sec] += n;
    }

    /// Record one completion at `t_ns` from the window's start, with its
    /// latency: [`DirSamples::count`] plus the histogram, for samples that
    /// keep their own (the mock and other tests, simple engines).
    pub fn record(&mut self, bytes: u64, lat_ns: u64, t_ns: u64, in_window: bool) {
        self.count(1, bytes, second_of(t_ns), in_window);
        self.lat
            .get_or_insert_with(histogram::new_histogram)
            .saturating_record(lat_ns.max(1));
    }

    /// Keep only the figures of the latency histogram ([`histogram::LatFigures`]),
    /// letting the histogram go: for samples that are summarised but never
    /// merged again (each zone of a scan).
    pub fn compact_latency(&mut self) {
        if let Some(h) = self.lat.take() {
            self.lat_figures = histogram::LatFigures::of(&h);
        }
    }

    /// The figures of the latency: from the histogram, or those kept when it was let go.
    pub fn lat_figures(&self) -> Option<histogram::LatFigures> {
        match &self.lat {
            Some(h) => histogram::LatFigures::of(h),
            None => self.lat_figures,
        }
    }

    /// Count one failed I/O at `offset`, completed at `t_ns`.
    pub fn record_error(&mut self, offset: u64, errno: Option<i32>, t_ns: u64) {
        self.errors += 1;
        if self.first_error.is_none_or(|f| t_ns < f.t_ns) {
            self.first_error = Some(FirstError { t_ns, offset, errno });
        }
    }

    /// Add `other`'s completions as drain: what the device served after the
    /// window, counted for latency and the cross-check, not for throughput.
    pub fn absorb_drain(&mut self, other: &DirSamples) {
        self.all_bytes += other.all_bytes;
        self.all_ios += other.all_ios;
        self.merge_lat(other.lat.as_ref());
        self.merge_errors(other);
    }

    pub fn merge(&mut self, other: &DirSamples) {
        self.bytes += other.bytes;
        self.ios += other.ios;
        self.all_bytes += other.all_bytes;
        self.all_ios += other.all_ios;
        self.merge_lat(other.lat.as_ref());
        add_bins(&mut self.per_sec_bytes, &other.per_sec_bytes);
        add_bins(&mut self.per_sec_ios, &other.per_sec_ios);
        self.merge_errors(other);
    }

    /// Add a histogram of latencies to this direction's.
    pub fn merge_lat(&mut self, h: Option<&Histogram<u64>>) {
        let Some(h) = h.filter(|h| !h.is_empty()) else { return };
        match &mut self.lat {
            Some(mine) => mine.add(h).expect("histograms with equal bounds merge"),
            None => self.lat = Some(h.clone()),
        }
    }

    fn merge_errors(&mut self, other: &DirSamples) {
        self.errors += other.errors;
        if let Some(f) = other.first_error
            && self.first_error.is_none_or(|mine| f.t_ns < mine.t_ns)
        {
            self.first_error = Some(f);
        }
    }
}

/// The second (0-based) of a window that a completion `t_ns` after the
/// window's start falls in; one at exactly 1.000 s belongs to the first.
#[inline]
pub fn second_of(t_ns: u64) -> usize {
    (t_ns.saturating_sub(1) / 1_000_000_000) as usize
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
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct DiskDelta {
    /// Kernel name (`sda`, `loop3`, `dm-0`).
    pub name: String,
    /// Bytes read.
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes: u64,
    /// Bytes written.
    #[schemars(extend("x-unit" = "bytes"))]
    pub write_bytes: u64,
    /// Reads completed.
    #[schemars(extend("x-unit" = "count"))]
    pub read_ios: u64,
    /// Writes completed.
    #[schemars(extend("x-unit" = "count"))]
    pub write_ios: u64,
    /// Time the device had I/O in flight (diskstats `io_ticks`, ms resolution).
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("x-unit" = "ns"))]
    pub busy_ns: u64,
    /// Time its I/Os spent in flight, summed over them (diskstats' weighted
    /// time in queue, ms resolution); over the interval's length, the mean
    /// number in flight.
    #[serde(default, skip_serializing_if = "is_zero")]
    #[schemars(extend("x-unit" = "ns"))]
    pub queue_ns: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// What one block device did between two readings.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, schemars::JsonSchema)]
pub struct DeviceActivity {
    /// Kernel name (`vda`, `loop3`, `dm-0`); a disk stands for its partitions.
    pub name: String,
    /// Bytes read.
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes: u64,
    /// Bytes written.
    #[schemars(extend("x-unit" = "bytes"))]
    pub write_bytes: u64,
    /// Reads completed.
    #[schemars(extend("x-unit" = "count"))]
    pub read_ios: u64,
    /// Writes completed.
    #[schemars(extend("x-unit" = "count"))]
    pub write_ios: u64,
    /// Seconds the device had I/O in flight (`io_ticks`, ms resolution).
    #[schemars(extend("x-unit" = "s"))]
    pub busy_s: f64,
    /// Partitions of this disk that moved (their I/O is in this disk's figures, once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<String>,
    /// The devices this one is built on (a loop device's backing file's
    /// disk, device-mapper and md slaves), as disks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<String>,
    /// Built on no other block device: counted in the run's totals.
    #[serde(default)]
    pub bottom: bool,
}

impl DeviceActivity {
    /// Bytes read and written.
    pub fn bytes(&self) -> u64 {
        self.read_bytes + self.write_bytes
    }
}

/// What one block device did in each second of a pass, from
/// `/proc/diskstats` read every second: how a layout spreads a job over
/// its members (a mirror that reads from one side only, a bridge that
/// serves one disk at a time), as `zpool iostat -v 1` shows it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct DiskSeries {
    /// Kernel name.
    pub name: String,
    /// Bytes in each second of the pass (the last one may be partial).
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes: Vec<u64>,
    /// Bytes written in each second of the pass.
    #[schemars(extend("x-unit" = "bytes"))]
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
    pub other_devices: Vec<DeviceActivity>,
    /// The first of `devices`' in-flight count sampled through the pass;
    /// `None` where it could not be read.
    pub inflight: Option<InflightSamples>,
    pub workers: u32,
}

/// A block device's I/Os in flight (`/sys/block/DEV/inflight`: reads plus
/// writes), sampled at a steady rate through one pass: how many samples
/// saw each count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InflightSamples {
    /// Kernel name (`vda`, `loop3`).
    pub device: String,
    /// Samples by the count they saw, counts ascending.
    pub counts: std::collections::BTreeMap<u32, u64>,
}

impl InflightSamples {
    pub fn new(device: &str) -> InflightSamples {
        InflightSamples {
            device: device.to_string(),
            counts: Default::default(),
        }
    }

    /// One sample that saw `n` in flight.
    pub fn record(&mut self, n: u32) {
        *self.counts.entry(n).or_default() += 1;
    }

    /// Samples taken.
    pub fn samples(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The count a fraction `q` of the samples saw at most (nearest rank:
    /// the smallest count at or under which `ceil(q × samples)` of them
    /// lie); `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<u32> {
        let n = self.samples();
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        self.counts.iter().find_map(|(&v, &c)| {
            seen += c;
            (seen >= rank).then_some(v)
        })
    }

    /// The most any sample saw; `None` without samples.
    pub fn max(&self) -> Option<u32> {
        self.counts.keys().next_back().copied()
    }
}

impl RunSamples {
    /// [`DirSamples::compact_latency`] for both directions.
    pub fn compact_latency(&mut self) {
        self.read.compact_latency();
        self.write.compact_latency();
    }

    pub fn from_workers<'a>(workers: impl IntoIterator<Item = &'a WorkerSamples>) -> Self {
        let mut r = RunSamples::default();
        let (mut first, mut last) = (u64::MAX, 0);
        for w in workers {
            r.workers += 1;
            first = first.min(w.end_ns);
            last = last.max(w.end_ns);
            r.read.merge(&w.read);
            r.write.merge(&w.write);
        }
        r.first_done_ns = if r.workers == 0 { 0 } else { first };
        r.last_done_ns = last;
        r
    }
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
    pub moved: Vec<DeviceActivity>,
    /// Bytes iolab and its children read from storage (task I/O accounting), any device.
    pub own_read_bytes: u64,
    /// Whether the caches were emptied right before the phase.
    pub cold: bool,
    /// How they were emptied (absent when the phase is not cold).
    pub cold_by: Option<ColdRecord>,
}

/// How a cold run or phase had its caches emptied, for the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColdMethod {
    /// `/proc/sys/vm/drop_caches`: the kernel's caches (enough where no
    /// cache of a filesystem's own, such as ZFS's ARC, sits above them).
    DropCaches,
    /// The ZFS pool was exported and imported (its ARC emptied, and its
    /// mounts' cached pages with them), with its members' cached pages
    /// dropped while it was away.
    ExportImport,
    /// Nothing emptied the caches that answer: the run is NOT cold (`reason` says why).
    None,
}

/// What made a run cold, or why it is not.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ColdRecord {
    /// What emptied the caches: `drop_caches`, `export_import` (ZFS), or `none` (NOT cold).
    pub method: ColdMethod,
    /// Why this method (and for `none`, why the run is not cold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
    pub moved: Vec<DeviceActivity>,
    /// Bytes the command (and the children it waited for) read from storage,
    /// any device (`ru_inblock` from `wait4`).
    pub own_read_bytes: u64,
    /// Bytes it dirtied for writing (`ru_oublock`): written back now or later.
    pub own_write_bytes: u64,
    /// How the caches were emptied before it (`--cold`), or why they were not.
    pub cold_by: Option<ColdRecord>,
}

/// Which experiment a point belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
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

    #[test]
    fn inflight_quantiles_are_nearest_rank() {
        let mut s = InflightSamples::new("vda");
        assert_eq!((s.quantile(0.99), s.max()), (None, None), "no sample, no figure");
        // 98 samples saw 32, one 27, one 3: p99 is 32, p1 is 3, p2 is 27.
        for _ in 0..98 {
            s.record(32);
        }
        s.record(27);
        s.record(3);
        assert_eq!(s.samples(), 100);
        assert_eq!(s.quantile(0.99), Some(32));
        assert_eq!(s.quantile(0.01), Some(3));
        assert_eq!(s.quantile(0.02), Some(27));
        assert_eq!(s.max(), Some(32));
    }
}
