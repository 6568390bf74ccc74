//! Figures the views quote that the document does not store: each derived
//! on demand from stored ones. They are methods, not fields, so the JSON
//! document does not change; renderers format them and compute nothing.

use super::apps::{PhaseReport, Stats};
use super::scale::{ScalePoint, ScaleReport, ScaleVerdict};
use super::scan::ScanReport;
use super::{Body, CpuReport, DirReport, JobReport, Report};
use crate::judge::Diagnostic;
use crate::judge::scale::Dimension;
use crate::samples::PointKind;

/// How a run's jobs reached the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoMode {
    /// Every job with O_DIRECT (or, with no job, the target was opened so).
    Direct,
    /// Every job through the page cache.
    Buffered,
    /// Some jobs each way.
    Mixed,
}

/// One warning of a run's jobs, once, with the jobs that carry it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarningGroup<'a> {
    pub code: &'a str,
    pub message: &'a str,
    /// Names of the jobs that carry it, in run order.
    pub jobs: Vec<&'a str>,
    /// Every job of the run carries it.
    pub all: bool,
}

/// Bandwidth over a job's measured runs, in bytes/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub max: f64,
    /// Coefficient of variation (stddev / mean).
    pub cv: f64,
}

/// One measured direction of a job: a row of the Markdown and CSV views.
#[derive(Clone, Copy, Debug)]
pub struct DirFigures<'a> {
    /// `read` or `write`.
    pub direction: &'static str,
    pub figures: &'a DirReport,
    /// Bandwidth over the runs; `None` for a single measured run.
    pub spread: Option<Spread>,
}

impl Spread {
    /// The coefficient of variation in percent.
    pub fn cv_pct(&self) -> f64 {
        self.cv * 100.0
    }
}

impl JobReport {
    /// Each measured direction with its name and spread: reads, then writes.
    pub fn direction_figures(&self) -> Vec<DirFigures<'_>> {
        let named = [("read", &self.read), ("write", &self.write)]
            .into_iter()
            .filter_map(|(n, d)| d.as_ref().map(|d| (n, d)));
        named
            .zip(self.bw_spreads())
            .map(|((direction, figures), spread)| DirFigures {
                direction,
                figures,
                spread,
            })
            .collect()
    }

    /// The codes of the job's warnings, each once, in order.
    pub fn warning_codes(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for w in &self.warnings {
            if !v.contains(&w.code.as_str()) {
                v.push(w.code.as_str());
            }
        }
        v
    }

    /// The directions the job measured: reads, then writes.
    pub fn directions(&self) -> impl Iterator<Item = &DirReport> {
        [&self.read, &self.write].into_iter().flatten()
    }

    /// I/Os per second, reads and writes together.
    pub fn iops(&self) -> f64 {
        self.read.as_ref().map_or(0.0, |r| r.iops) + self.write.as_ref().map_or(0.0, |w| w.iops)
    }

    /// The 99th percentile latency of the slower direction.
    pub fn p99_ns(&self) -> Option<u64> {
        self.slower_ns(|l| l.p99)
    }

    /// A latency percentile (`pick`) of the slower direction.
    pub fn slower_ns(&self, pick: fn(&super::Latency) -> u64) -> Option<u64> {
        self.directions().filter_map(|d| d.lat_ns.as_ref().map(pick)).max()
    }

    /// iolab's CPU time (user + system, all threads) in % of one CPU.
    pub fn cpu_pct(&self) -> f64 {
        self.cpu.busy_pct()
    }

    /// The bandwidth spread of each direction (as [`Self::directions`]);
    /// `None` when there is none: a single measured run.
    pub fn bw_spreads(&self) -> Vec<Option<Spread>> {
        self.directions()
            .map(|d| match (d.bw_min, d.bw_max, d.bw_cv) {
                (Some(min), Some(max), Some(cv)) if self.runs.len() > 1 => Some(Spread { min, max, cv }),
                _ => None,
            })
            .collect()
    }
}

impl Report {
    /// Whether its views lead with latency: every job made each write
    /// durable (the sync suite, `--sync`), and a sync write's question is
    /// how long it waits, not how many fit in a second.
    pub fn latency_first(&self) -> bool {
        let jobs = self.jobs();
        !jobs.is_empty() && jobs.iter().all(|j| !j.sync.is_none())
    }

    /// Whether the jobs used O_DIRECT, the page cache, or both.
    pub fn io_mode(&self) -> IoMode {
        let jobs = self.jobs();
        if jobs.is_empty() {
            return if self.target.direct { IoMode::Direct } else { IoMode::Buffered };
        }
        match (jobs.iter().all(|j| j.direct), jobs.iter().any(|j| j.direct)) {
            (true, _) => IoMode::Direct,
            (false, true) => IoMode::Mixed,
            (false, false) => IoMode::Buffered,
        }
    }

    /// The jobs' warnings, each distinct one (same code and message) once,
    /// in the order they first appear, with the jobs that carry it.
    pub fn warning_groups(&self) -> Vec<WarningGroup<'_>> {
        let jobs = self.jobs();
        let mut groups: Vec<WarningGroup> = Vec::new();
        for w in jobs.iter().flat_map(|j| &j.warnings) {
            if groups.iter().any(|g| w.code == g.code && g.message == w.message) {
                continue;
            }
            let carriers: Vec<&str> = jobs
                .iter()
                .filter(|j| j.warnings.iter().any(|x| x.code == w.code && x.message == w.message))
                .map(|j| j.name.as_str())
                .collect();
            groups.push(WarningGroup {
                code: w.code.as_str(),
                message: &w.message,
                all: carriers.len() == jobs.len(),
                jobs: carriers,
            });
        }
        groups
    }

    /// A scan's zones as one job (each zone a run); `None` for other runs.
    pub fn scan_zones_job(&self) -> Option<&JobReport> {
        match &self.body {
            Body::Scan { scan, jobs } if !scan.zones.is_empty() => jobs.first().filter(|j| !j.rw.is_random()),
            _ => None,
        }
    }

    /// A scan's access-time job (random 4K reads at QD1); `None` for other runs.
    pub fn scan_access_job(&self) -> Option<&JobReport> {
        match &self.body {
            Body::Scan { jobs, .. } => jobs.iter().find(|j| j.rw.is_random()),
            _ => None,
        }
    }

    /// Warnings about the whole run rather than a job: a timed command's or
    /// an application workload's.
    pub fn run_warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        let time = self.time().into_iter().flat_map(|t| &t.warnings);
        time.chain(self.app().into_iter().flat_map(|a| &a.warnings))
    }
}

impl ScanReport {
    /// Bytes measured in each zone: the window, or the whole zone when it
    /// is smaller; `None` when zones were measured for a time.
    pub fn bytes_per_zone(&self) -> Option<u64> {
        self.window_bytes.map(|b| b.min(self.zone_bytes))
    }
}

impl ScaleReport {
    /// The `N` of target `path`'s `tN` tag (1-based); `None` with a single
    /// target (no tags) or a path that is not one of the targets.
    pub fn target_number(&self, path: &str) -> Option<usize> {
        match self.targets.iter().position(|t| t == path) {
            Some(i) if self.targets.len() > 1 => Some(i + 1),
            _ => None,
        }
    }

    /// The points of `target`'s sweep along `dim`, as (x, point) by
    /// increasing x (queue depth or thread count), each x once: the points
    /// the sweep verdict judged. A depth sweep is the target's `depth`
    /// points; a thread sweep its points at QD1 (`depth` or `threads`).
    pub fn sweep(&self, target: &str, dim: Dimension) -> Vec<(u32, &ScalePoint)> {
        let mut v: Vec<(u32, &ScalePoint)> = self
            .points
            .iter()
            .filter(|p| p.targets.len() == 1 && p.targets[0] == target)
            .filter_map(|p| match dim {
                Dimension::Depth => (p.kind == PointKind::Depth).then_some((p.qd, p)),
                Dimension::Threads => (p.qd == 1 && matches!(p.kind, PointKind::Depth | PointKind::Threads)).then_some((p.threads, p)),
            })
            .collect();
        v.sort_by_key(|(x, _)| *x);
        v.dedup_by_key(|(x, _)| *x);
        v
    }

    /// The knee of `target`'s sweep along `dim`, as its verdict placed it.
    pub fn knee(&self, target: &str, dim: Dimension) -> Option<u32> {
        self.verdicts.iter().find_map(|v| match v {
            ScaleVerdict::Depth { target: t, verdict } | ScaleVerdict::Threads { target: t, verdict }
                if t == target && verdict.dimension == dim =>
            {
                verdict.knee_x
            }
            _ => None,
        })
    }

    /// The layout's point and its member's, measured with the same job
    /// (queue depth and threads): what the layout verdict compared.
    pub fn layout_pair(&self) -> Option<(&ScalePoint, &ScalePoint)> {
        let member = self.points.iter().find(|p| p.kind == PointKind::Member)?;
        let first = self.targets.first()?;
        let layout = self.points.iter().find(|p| {
            p.kind != PointKind::Member
                && p.targets.len() == 1
                && p.targets[0] == *first
                && p.qd == member.qd
                && p.threads == member.threads
        })?;
        Some((layout, member))
    }

    /// The throughput the layout verdict expected, bytes/s (low, high): the
    /// member's rate times the textbook multiple; `None` without a layout
    /// verdict with an expectation.
    pub fn layout_expected_bps(&self) -> Option<(f64, f64)> {
        let (_, member) = self.layout_pair()?;
        self.verdicts.iter().find_map(|v| match v {
            ScaleVerdict::Layout { verdict, .. } => verdict
                .expected_low
                .zip(verdict.expected_high)
                .map(|(lo, hi)| (lo * member.bw_bytes, hi * member.bw_bytes)),
            _ => None,
        })
    }
}

impl Stats {
    /// One standard deviation either side of the mean: (mean − σ, mean + σ).
    pub fn sigma_band(&self) -> (f64, f64) {
        (self.mean - self.stddev, self.mean + self.stddev)
    }
}

impl super::scale::ScalePoint {
    /// [`Self::cpu_busy`] in percent.
    pub fn cpu_busy_pct(&self) -> f64 {
        self.cpu_busy * 100.0
    }

    /// What the point measured: `depth`, `threads`, `alone`, `together`, `member`.
    pub fn kind_name(&self) -> &'static str {
        use crate::samples::PointKind::*;
        match self.kind {
            Depth => "depth",
            Threads => "threads",
            Alone => "alone",
            Together => "together",
            Member => "member",
        }
    }
}

impl super::apps::TimeReport {
    /// The device run `i`'s figures are of: the one named (`--device`,
    /// `--cwd`), or the one that did the command's reads, else the busiest;
    /// `None` when no device moved.
    pub fn run_device(&self, i: usize) -> Option<&str> {
        let r = self.runs.get(i)?;
        if let Some(d) = &r.device {
            return Some(d);
        }
        // Documents before 0.2 (no totals) name no device per run: it was the report's first.
        if r.total_read_bytes.is_none() && r.device_read_bytes.is_some() {
            return self.devices.first().map(String::as_str);
        }
        None
    }

    /// Every device that moved, summed over the runs, busiest first.
    pub fn moved(&self) -> Vec<crate::samples::DeviceActivity> {
        crate::device::sum_activity(self.runs.iter().map(|r| r.devices.as_slice()))
    }

    /// Bytes read and written over the bottom devices of [`Self::moved`]:
    /// each byte once, however deep the stack.
    pub fn moved_bottom_total(&self) -> (u64, u64) {
        crate::device::bottom_total(&self.moved())
    }
}

impl super::apps::AppReport {
    /// The most runs any phase has (fewer than [`Self::runs`] when stopped).
    pub fn most_runs(&self) -> usize {
        self.phases.iter().map(|p| p.wall_s_runs.len()).max().unwrap_or(0)
    }

    /// The shortest and longest wall time of any phase's run, seconds
    /// (those above zero); `None` when there is none.
    pub fn wall_s_extent(&self) -> Option<(f64, f64)> {
        let walls = self.phases.iter().flat_map(|p| p.wall_s_runs.iter().copied());
        extent(walls.filter(|v| v.is_finite() && *v > 0.0))
    }
}

impl PhaseReport {
    /// Fastest and slowest wall time over the runs, in seconds; `None` for
    /// a single run.
    pub fn wall_s_spread(&self) -> Option<(f64, f64)> {
        (self.wall_s_runs.len() > 1).then_some((self.wall_s.min, self.wall_s.max))
    }
}

impl super::verify::VerifyReport {
    /// Bytes read back and judged: the verified range `[from, to)`.
    pub fn verified_bytes(&self) -> u64 {
        self.summary.to.saturating_sub(self.summary.from)
    }

    /// Class `c`'s share of the bytes read back, in percent (0 when none were).
    pub fn class_share_pct(&self, c: crate::verify::Class) -> f64 {
        let b = &self.summary.bytes;
        b.get(c) as f64 * 100.0 / b.total().max(1) as f64
    }

    /// The slowest and fastest zone's write rate, bytes/s; `None` when no zone has one.
    pub fn write_rates(&self) -> Option<(f64, f64)> {
        extent(self.zones.iter().filter_map(|z| z.write_bw_bytes))
    }

    /// The slowest and fastest zone's read-back rate, bytes/s; `None` when no zone has one.
    pub fn read_rates(&self) -> Option<(f64, f64)> {
        extent(self.zones.iter().filter_map(|z| z.read_bw_bytes))
    }

    /// The bad ranges the document lists beyond the first `shown`
    /// (those not kept at all are [`crate::verify::VerifySummary::ranges_dropped`]).
    pub fn ranges_beyond(&self, shown: usize) -> u64 {
        self.summary.ranges.len().saturating_sub(shown) as u64
    }
}

/// The least and greatest of some values; `None` when there are none.
fn extent(v: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    v.fold(None, |acc, x| match acc {
        None => Some((x, x)),
        Some((lo, hi)) => Some((f64::min(lo, x), f64::max(hi, x))),
    })
}

impl CpuReport {
    /// User + system time of iolab (all threads), in % of one CPU.
    pub fn busy_pct(&self) -> f64 {
        self.usr_pct + self.sys_pct
    }
    /// The same in CPUs kept busy (1.0 = one whole CPU).
    pub fn busy_cpus(&self) -> f64 {
        self.busy_pct() / 100.0
    }
}

#[cfg(test)]
#[path = "figures_tests.rs"]
mod tests;
