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
        self.directions().filter_map(|d| d.lat_ns.as_ref().map(|l| l.p99)).max()
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
mod tests {
    use super::*;
    use crate::summary::apps::Stats;
    use serde_json::json;

    fn dir(iops: f64, p99: u64, spread: Option<(f64, f64, f64)>) -> serde_json::Value {
        json!({
            "bytes": 1, "ios": 1, "bw_bytes": 1e6, "iops": iops,
            "lat_ns": {"mean": 1.0, "min": 1, "max": p99, "p50": 1, "p90": 1, "p99": p99, "p99_9": p99, "p99_99": p99},
            "bw_min": spread.map(|s| s.0), "bw_max": spread.map(|s| s.1), "bw_cv": spread.map(|s| s.2),
        })
    }

    fn cpu(usr: f64, sys: f64) -> serde_json::Value {
        json!({"usr_pct": usr, "sys_pct": sys, "pct_per_100mbs": null, "system_busy_pct": 0.0,
               "system_idle_pct": 100.0, "system_sys_pct": 0.0, "system_iowait_pct": 0.0})
    }

    fn run() -> serde_json::Value {
        json!({"read": null, "write": null, "cpu": cpu(0.0, 0.0), "device": null, "wall_ns": 1, "sync_ns": 0,
               "first_done_ns": 0, "last_done_ns": 0, "samples": {"read_bytes_per_s": [], "write_bytes_per_s": []}})
    }

    fn job(name: &str, read: Option<serde_json::Value>, write: Option<serde_json::Value>) -> serde_json::Value {
        json!({
            "name": name, "rw": "randrw", "bs": 4096, "qd": 1, "threads": 1, "mix_read": 70, "direct": true,
            "engine": "io_uring", "workers": 1, "duration_s": 1.0, "limit_bytes": null, "span_bytes": 1 << 20,
            "runs": [run(), run()], "read": read, "write": write, "cpu": cpu(12.5, 30.25), "device": null, "warnings": []
        })
    }

    fn job_report(v: serde_json::Value) -> JobReport {
        serde_json::from_value(v).expect("a JobReport")
    }

    fn report(jobs: Vec<serde_json::Value>, target_direct: bool) -> Report {
        serde_json::from_value(json!({
            "iolab_version": "0", "command": "run", "started_at": "2026-01-01T00:00:00Z",
            "host": {"hostname": "h", "kernel": "6.1", "cpus": 2},
            "settings": {"runs": 2, "warmup_s": 0.0, "interval_s": 0.0, "suite": null},
            "target": {"path": "/mnt", "kind": "directory", "test_file": true, "span_bytes": 1 << 20,
                       "direct": target_direct, "filesystem": null, "devices": []},
            "jobs": jobs
        }))
        .expect("a Report")
    }

    fn warn(mut job: serde_json::Value, code: &str) -> serde_json::Value {
        let w = json!({"code": code, "message": format!("{code} says so")});
        job["warnings"].as_array_mut().unwrap().push(w);
        job
    }

    #[test]
    fn iops_add_up_over_directions() {
        let both = job_report(job("a", Some(dir(700.0, 5, None)), Some(dir(300.5, 9, None))));
        assert_eq!(both.iops(), 1000.5);
        let write = job_report(job("w", None, Some(dir(300.0, 9, None))));
        assert_eq!(write.iops(), 300.0);
        assert_eq!(job_report(job("none", None, None)).iops(), 0.0);
    }

    #[test]
    fn p99_is_the_slower_direction() {
        assert_eq!(
            job_report(job("a", Some(dir(1.0, 5, None)), Some(dir(1.0, 9, None)))).p99_ns(),
            Some(9)
        );
        assert_eq!(job_report(job("r", Some(dir(1.0, 5, None)), None)).p99_ns(), Some(5));
        assert_eq!(job_report(job("none", None, None)).p99_ns(), None);
    }

    #[test]
    fn cpu_is_user_plus_system() {
        assert_eq!(job_report(job("a", None, None)).cpu_pct(), 42.75);
    }

    #[test]
    fn directions_are_reads_then_writes() {
        let j = job_report(job("a", Some(dir(1.0, 5, None)), Some(dir(2.0, 9, None))));
        let iops: Vec<f64> = j.directions().map(|d| d.iops).collect();
        assert_eq!(iops, [1.0, 2.0]);
    }

    #[test]
    fn spread_needs_more_than_one_run() {
        let v = job("a", Some(dir(1.0, 5, Some((1e6, 3e6, 0.5)))), Some(dir(1.0, 5, None)));
        let j = job_report(v.clone());
        let s = Spread {
            min: 1e6,
            max: 3e6,
            cv: 0.5,
        };
        assert_eq!(j.bw_spreads(), [Some(s), None]);
        let mut one = v;
        one["runs"] = json!([run()]);
        assert_eq!(job_report(one).bw_spreads(), [None, None]);
    }

    #[test]
    fn direction_figures_are_named_with_their_spreads() {
        let j = job_report(warn(warn(job("a", None, Some(dir(2.0, 9, Some((1e6, 3e6, 0.5))))), "x"), "x"));
        let f = j.direction_figures();
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].direction, f[0].figures.iops), ("write", 2.0));
        assert_eq!(f[0].spread.map(|s| s.cv_pct()), Some(50.0));
        assert_eq!(j.warning_codes(), ["x"]);
    }

    #[test]
    fn io_mode_of_the_jobs_or_else_the_target() {
        let direct = job("a", None, None);
        let mut buffered = job("b", None, None);
        buffered["direct"] = json!(false);
        assert_eq!(report(vec![direct.clone()], false).io_mode(), IoMode::Direct);
        assert_eq!(report(vec![buffered.clone()], true).io_mode(), IoMode::Buffered);
        assert_eq!(report(vec![direct, buffered], true).io_mode(), IoMode::Mixed);
        assert_eq!(report(vec![], true).io_mode(), IoMode::Direct);
        assert_eq!(report(vec![], false).io_mode(), IoMode::Buffered);
    }

    #[test]
    fn warnings_are_grouped_by_the_jobs_that_carry_them() {
        let a = warn(warn(job("a", None, None), "x"), "y");
        let b = warn(job("b", None, None), "y");
        let c = warn(warn(job("c", None, None), "z"), "y");
        let r = report(vec![a, b, c], true);
        let g = r.warning_groups();
        let seen: Vec<(&str, Vec<&str>, bool)> = g.iter().map(|g| (g.code, g.jobs.clone(), g.all)).collect();
        assert_eq!(
            seen,
            [("x", vec!["a"], false), ("y", vec!["a", "b", "c"], true), ("z", vec!["c"], false)]
        );
        assert_eq!(g[0].message, "x says so");
        // The same code with another message is another warning.
        let mut d = job("d", None, None);
        d["warnings"] = json!([{"code": "x", "message": "other"}]);
        let r = report(vec![warn(job("a", None, None), "x"), d], true);
        assert_eq!(r.warning_groups().len(), 2);
        assert!(report(vec![], true).warning_groups().is_empty());
    }

    #[test]
    fn run_warnings_are_those_of_time_and_workloads_only() {
        let mut v: serde_json::Value = serde_json::to_value(report(vec![warn(job("a", None, None), "x")], true)).unwrap();
        assert_eq!(serde_json::from_value::<Report>(v.clone()).unwrap().run_warnings().count(), 0);
        v["jobs"] = json!([]);
        let stats = json!({"mean": 1.0, "median": 1.0, "stddev": 0.0, "min": 1.0, "max": 1.0});
        v["time"] = json!({"command": "true", "cwd": "/", "cold": false, "prepare": null, "cleanup": null,
            "warmup_runs": 0, "devices": [], "runs": [], "wall_s": stats, "user_s": stats, "sys_s": stats,
            "warnings": [{"code": "outliers", "message": "m"}]});
        let r: Report = serde_json::from_value(v).unwrap();
        let codes: Vec<&str> = r.run_warnings().map(|w| w.code.as_str()).collect();
        assert_eq!(codes, ["outliers"]);
    }

    #[test]
    fn a_zone_measures_its_window_or_all_of_it() {
        // A scan of 32 MiB zones, 8 MiB measured in each.
        let path = format!("{}/tests/fixtures/render/scan.json", env!("CARGO_MANIFEST_DIR"));
        let r: Report = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut s = r.scan().cloned().expect("a scan");
        assert_eq!((s.zone_bytes, s.window_bytes), (32 << 20, Some(8 << 20)));
        assert_eq!(s.bytes_per_zone(), Some(8 << 20));
        s.window_bytes = Some(64 << 20);
        assert_eq!(s.bytes_per_zone(), Some(32 << 20));
        s.window_bytes = None;
        s.zone_time_s = Some(2.0);
        assert_eq!(s.bytes_per_zone(), None);
    }

    #[test]
    fn targets_are_numbered_only_when_there_are_several() {
        let mut s = ScaleReport {
            rw: "randread".into(),
            bs: 4096,
            targets: vec!["/a".into(), "/b".into()],
            member: None,
            layout: None,
            points: vec![],
            verdicts: vec![],
        };
        assert_eq!(s.target_number("/a"), Some(1));
        assert_eq!(s.target_number("/b"), Some(2));
        assert_eq!(s.target_number("/c"), None);
        s.targets.pop();
        assert_eq!(s.target_number("/a"), None);
    }

    fn fixture(name: &str) -> Report {
        let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn sweeps_and_their_knees_are_read_from_the_points_and_verdicts() {
        let r = fixture("scale");
        let s = r.scale().unwrap();
        let xs = |t: &str, d| s.sweep(t, d).iter().map(|(x, p)| (*x, p.bw_bytes)).collect::<Vec<_>>();
        assert_eq!(xs("/dev/shm/sa", Dimension::Depth), [(1, 179318784.0), (4, 338128896.0)]);
        // Threads at QD1: the depth sweep's QD1 point, then the thread points.
        assert_eq!(xs("/dev/shm/sa", Dimension::Threads), [(1, 179318784.0), (2, 1031561216.0)]);
        assert!(xs("/dev/shm/nope", Dimension::Depth).is_empty());
        assert_eq!(s.knee("/dev/shm/sb", Dimension::Depth), Some(1));
        assert_eq!(s.knee("/dev/shm/sa", Dimension::Depth), None);
        assert_eq!(s.knee("/dev/shm/sb", Dimension::Threads), None);
        assert!(s.layout_pair().is_none() && s.layout_expected_bps().is_none());
    }

    #[test]
    fn a_scan_names_its_zones_and_access_jobs() {
        let r = fixture("scan");
        assert_eq!(r.scan_zones_job().map(|j| j.name.as_str()), Some("SCAN1M Q4T1 read"));
        assert_eq!(r.scan_access_job().map(|j| j.name.as_str()), Some("ACCESS 4K Q1T1 randread"));
        let demo = fixture("demo");
        assert!(demo.scan_zones_job().is_none() && demo.scan_access_job().is_none());
    }

    #[test]
    fn one_sigma_either_side_of_the_mean() {
        assert_eq!(Stats::of(&[1.0, 3.0]).sigma_band(), (2.0 - 2f64.sqrt(), 2.0 + 2f64.sqrt()));
    }

    #[test]
    fn a_phase_has_a_spread_from_two_runs_on() {
        let mut p = PhaseReport {
            name: "read".into(),
            cold: true,
            files: 10,
            bytes: 100,
            wall_s_runs: vec![0.5, 0.25],
            wall_s: Stats::of(&[0.5, 0.25]),
            files_per_s: 0.0,
            bytes_per_s: 0.0,
            user_s: 0.0,
            sys_s: 0.0,
            device_read_bytes: None,
            device_write_bytes: None,
            device_busy_s: None,
            devices: Vec::new(),
        };
        assert_eq!(p.wall_s_spread(), Some((0.25, 0.5)));
        p.wall_s_runs.pop();
        assert_eq!(p.wall_s_spread(), None);
    }
}
