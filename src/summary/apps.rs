//! Figures of application workloads: `iolab time` (a real command) and the
//! built-in `files` and `git` suites (phases), with hyperfine's warnings
//! about outliers and a first run slower than the rest.

use crate::device;
use crate::judge::Diagnostic;
use crate::judge::apps as rules;
use crate::plan::time::{Place, TimeOpts};
use crate::samples::DeviceActivity;
use crate::samples::PhaseSamples;
use crate::samples::{ColdRecord, CommandRun};
use serde::{Deserialize, Serialize};

/// Mean, median, standard deviation, min and max of a list of seconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Stats {
    /// The mean.
    #[schemars(extend("x-unit" = "s"))]
    pub mean: f64,
    /// The median.
    #[schemars(extend("x-unit" = "s"))]
    pub median: f64,
    /// Sample standard deviation (0 for one value).
    #[schemars(extend("x-unit" = "s"))]
    pub stddev: f64,
    /// The fastest.
    #[schemars(extend("x-unit" = "s"))]
    pub min: f64,
    /// The slowest.
    #[schemars(extend("x-unit" = "s"))]
    pub max: f64,
}

impl Stats {
    pub fn of(v: &[f64]) -> Stats {
        let n = v.len();
        if n == 0 {
            return Stats {
                mean: 0.0,
                median: 0.0,
                stddev: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Stats {
            mean,
            median: super::median(v),
            stddev: var.sqrt(),
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Warnings on a series of wall times (oldest first): a first run slower
/// than the rest, then outliers.
pub fn timing_warnings(walls: &[f64], cold: bool) -> Vec<Diagnostic> {
    [rules::first_run_slower(walls, cold), rules::outlier_runs(walls)]
        .into_iter()
        .flatten()
        .collect()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TimeRun {
    /// Wall-clock seconds of the command.
    #[schemars(extend("x-unit" = "s"))]
    pub wall_s: f64,
    /// User CPU seconds of the command.
    #[schemars(extend("x-unit" = "s"))]
    pub user_s: f64,
    /// System CPU seconds of the command.
    #[schemars(extend("x-unit" = "s"))]
    pub sys_s: f64,
    /// The command's exit status.
    #[schemars(extend("x-unit" = "status"))]
    pub exit_code: i32,
    /// What reached `device`: the named device (the top one of `--device`
    /// or `--cwd`; `null` when nothing serves it), else the device that did
    /// the command's reads (see `device::pick`; 0 when no device moved).
    #[schemars(extend("x-unit" = "bytes"))]
    pub device_read_bytes: Option<u64>,
    /// What `device` wrote.
    #[schemars(extend("x-unit" = "bytes"))]
    pub device_write_bytes: Option<u64>,
    /// Time the device had I/O in flight (ms resolution).
    #[schemars(extend("x-unit" = "s"))]
    pub device_busy_s: Option<f64>,
    /// The device the three figures above are from (absent in documents
    /// before 0.2, where it is the first of the report's `devices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Every block device that moved during the run, busiest first: its own
    /// counters, the partitions folded into it, the devices it is built on
    /// (absent when none moved, and in documents before 0.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceActivity>,
    /// Read and written over the bottom devices of `devices` only (those
    /// built on no other block device): each byte once, however deep the stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub total_read_bytes: Option<u64>,
    /// Written over the bottom devices of `devices` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub total_write_bytes: Option<u64>,
    /// What the command itself read from storage and dirtied for writing,
    /// whatever device (the kernel's per-task I/O accounting, from `wait4`;
    /// dirtied bytes reach a device at writeback, possibly after the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub command_read_bytes: Option<u64>,
    /// What the command dirtied for writing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub command_write_bytes: Option<u64>,
    /// How the caches were emptied before this run (`--cold`), or why
    /// they were not (`method: none`); absent without `--cold`, and in
    /// older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_by: Option<ColdRecord>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct TimeReport {
    /// The command timed.
    pub command: String,
    /// Where it ran.
    pub cwd: String,
    /// Caches were dropped before each run.
    pub cold: bool,
    /// With `cold`: what made the runs cold (`drop_caches`, on ZFS
    /// `export_import`), or `none` and why when some run was not (the
    /// first such run); absent without `--cold`, and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_by: Option<ColdRecord>,
    /// `--prepare`: run before each run, not timed.
    pub prepare: Option<String>,
    /// `--cleanup`: run after each run, not timed.
    pub cleanup: Option<String>,
    /// Runs before the measured ones, not counted.
    #[schemars(extend("x-unit" = "count"))]
    pub warmup_runs: u32,
    /// The named devices (diskstats names, top first); without a named
    /// device, every run's busiest device, in the order they first appear.
    pub devices: Vec<String>,
    /// How the devices were named (`--device sdb`, `--cwd /srv`); absent:
    /// each run's figures are its busiest device's (documents before 0.2
    /// always named the working directory's devices).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named_by: Option<String>,
    /// Every measured run, in order.
    pub runs: Vec<TimeRun>,
    /// The statistics of the runs' wall-clock seconds.
    pub wall_s: Stats,
    /// The statistics of the runs' user CPU seconds.
    pub user_s: Stats,
    /// The statistics of the runs' system CPU seconds.
    pub sys_s: Stats,
    /// On a ZFS pool whose layout `iolab info` found: each data member with
    /// its top-level vdev, what it moved over the measured runs and its
    /// share of the members' bytes (did every member work, and evenly?
    /// judged by `zfs_member_uneven` with one I/O in flight assumed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zfs_members: Vec<crate::summary::zfs::ZfsMember>,
    /// Why an uneven split of the members' bytes was not judged: reads of
    /// runs not cold by an export and import (the ARC may have answered
    /// them), or the layout's read policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_members_unjudged: Option<String>,
    /// Why a figure may not be trusted.
    pub warnings: Vec<Diagnostic>,
}

impl TimeReport {
    /// How the device of the single figures was chosen: named (`--device
    /// sdb`, `--cwd /srv`; in documents before 0.2 always the working
    /// directory's), or `None` when each run's busiest device gives them.
    pub fn named(&self) -> Option<String> {
        let legacy = !self.devices.is_empty() && self.runs.iter().all(|r| r.total_read_bytes.is_none());
        self.named_by
            .clone()
            .or_else(|| legacy.then(|| "the working directory".to_string()))
    }
}

/// Shell-like quoting for showing a command line.
pub fn quote(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c)) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn time_run(r: &CommandRun, place: &Place) -> TimeRun {
    let (device, read, write, busy) = if place.named_by.is_some() {
        let top = r.devices.first();
        (
            top.map(|d| d.name.clone()),
            top.map(|d| d.read_bytes),
            top.map(|d| d.write_bytes),
            top.map(|d| d.busy_ns as f64 / 1e9),
        )
    } else {
        match device::pick(&r.moved, r.own_read_bytes, crate::base::thresholds::OTHER_DEVICE_MIN_BYTES) {
            Some(d) => (Some(d.name.clone()), Some(d.read_bytes), Some(d.write_bytes), Some(d.busy_s)),
            None => (None, Some(0), Some(0), Some(0.0)),
        }
    };
    let (total_r, total_w) = device::bottom_total(&r.moved);
    TimeRun {
        wall_s: r.wall_ns as f64 / 1e9,
        user_s: r.usr_ns as f64 / 1e9,
        sys_s: r.sys_ns as f64 / 1e9,
        exit_code: r.exit_code,
        device_read_bytes: read,
        device_write_bytes: write,
        device_busy_s: busy,
        device,
        devices: r.moved.clone(),
        total_read_bytes: Some(total_r),
        total_write_bytes: Some(total_w),
        command_read_bytes: Some(r.own_read_bytes),
        command_write_bytes: Some(r.own_write_bytes),
        cold_by: r.cold_by.clone(),
    }
}

/// Per run: what the named device (its top one) read, what the work read
/// from storage itself, and the reads of each top device outside the named
/// ones, for [`rules::named_device_elsewhere`].
fn reads<'a>(
    named: &[String],
    runs: impl Iterator<Item = (&'a [crate::samples::DiskDelta], &'a [DeviceActivity], u64)>,
) -> Vec<rules::RunReads<'a>> {
    runs.map(|(own, moved, work)| rules::RunReads {
        named: own.first().map_or(0, |d| d.read_bytes),
        own: work,
        others: device::elsewhere(moved, named)
            .into_iter()
            .map(|d| (d.name.as_str(), d.read_bytes))
            .collect(),
    })
    .collect()
}

/// The members of the pool `zfs` (the target's, when it is on ZFS) in
/// `devices`, judged: reads only when `arc_emptied` (see
/// [`super::zfs::app_members`]).
fn members_of(zfs: Option<&crate::device::ZfsInfo>, devices: &[DeviceActivity], arc_emptied: bool) -> super::zfs::AppMembers {
    let Some(z) = zfs else { return Default::default() };
    let moved: Vec<super::zfs::Moved> = devices.iter().map(|d| (d.name.as_str(), d.read_bytes, d.write_bytes)).collect();
    super::zfs::app_members(z, &moved, arc_emptied)
}

/// Whether every run was cold by an export and import of the pool, the
/// one method that empties its ARC.
fn arc_emptied(colds: &[Option<&ColdRecord>]) -> bool {
    !colds.is_empty()
        && colds
            .iter()
            .all(|c| c.is_some_and(|c| c.method == crate::samples::ColdMethod::ExportImport))
}

/// `time`'s figures; `zfs`: the pool the working directory is on, as
/// `iolab info` found it (for the members' view).
pub fn time_report(opts: &TimeOpts, place: &Place, runs: &[CommandRun], zfs: Option<&crate::device::ZfsInfo>) -> TimeReport {
    let timed: Vec<TimeRun> = runs.iter().map(|r| time_run(r, place)).collect();
    let col = |f: fn(&TimeRun) -> f64| timed.iter().map(f).collect::<Vec<f64>>();
    let walls = col(|r| r.wall_s);
    let mut warnings = timing_warnings(&walls, opts.cold);
    let devices = if place.named_by.is_some() {
        warnings.extend(rules::no_device_measured(
            &place.cwd.display().to_string(),
            !place.devices.is_empty(),
        ));
        if let Some(top) = place.devices.first() {
            let per_run = reads(
                &place.devices,
                runs.iter().map(|r| (r.devices.as_slice(), r.moved.as_slice(), r.own_read_bytes)),
            );
            warnings.extend(rules::named_device_elsewhere(top, "the command", &per_run));
        }
        place.devices.clone()
    } else {
        let mut seen: Vec<String> = Vec::new();
        for d in timed.iter().filter_map(|r| r.device.clone()) {
            if !seen.contains(&d) {
                seen.push(d);
            }
        }
        seen
    };
    warnings.extend(rules::command_failed(timed.iter().map(|r| r.exit_code)));
    let colds: Vec<Option<&ColdRecord>> = timed.iter().map(|r| r.cold_by.as_ref()).collect();
    warnings.extend(crate::judge::cold::not_cold("runs", &colds));
    let all = device::sum_activity(timed.iter().map(|r| r.devices.as_slice()));
    let members = members_of(zfs, &all, arc_emptied(&colds));
    warnings.extend(members.finding);
    TimeReport {
        command: quote(&opts.command),
        cwd: place.cwd.display().to_string(),
        cold: opts.cold,
        cold_by: crate::judge::cold::summarize(&colds),
        prepare: opts.prepare.clone(),
        cleanup: opts.cleanup.clone(),
        warmup_runs: opts.warmup,
        devices,
        named_by: place.named_by.clone(),
        wall_s: Stats::of(&walls),
        user_s: Stats::of(&col(|r| r.user_s)),
        sys_s: Stats::of(&col(|r| r.sys_s)),
        runs: timed,
        zfs_members: members.members,
        zfs_members_unjudged: members.unjudged,
        warnings,
    }
}

/// One phase of a built-in workload, as medians over the runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct PhaseReport {
    /// The phase's name.
    pub name: String,
    /// Caches were dropped before the phase.
    pub cold: bool,
    /// With `cold`: what made it cold over the runs, or `none` and why
    /// (see `TimeReport`'s); absent when not cold, and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_by: Option<ColdRecord>,
    /// Files the phase handles.
    #[schemars(extend("x-unit" = "count"))]
    pub files: u64,
    /// Bytes the phase reads or writes.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes: u64,
    /// Seconds per run, oldest first, and their statistics.
    #[schemars(extend("x-unit" = "s"))]
    pub wall_s_runs: Vec<f64>,
    /// The statistics of `wall_s_runs`.
    pub wall_s: Stats,
    /// Median over runs.
    #[schemars(extend("x-unit" = "count"))]
    pub files_per_s: f64,
    /// Bytes per second, median over runs.
    #[schemars(extend("x-unit" = "B/s"))]
    pub bytes_per_s: f64,
    /// User CPU seconds, median over runs.
    #[schemars(extend("x-unit" = "s"))]
    pub user_s: f64,
    /// System CPU seconds, median over runs.
    #[schemars(extend("x-unit" = "s"))]
    pub sys_s: f64,
    /// Top device under the directory, median over runs.
    #[schemars(extend("x-unit" = "bytes"))]
    pub device_read_bytes: Option<u64>,
    /// Bytes the top device wrote, median over runs.
    #[schemars(extend("x-unit" = "bytes"))]
    pub device_write_bytes: Option<u64>,
    /// Seconds the top device had I/O in flight, median over runs.
    #[schemars(extend("x-unit" = "s"))]
    pub device_busy_s: Option<f64>,
    /// Every block device that moved during the phase, each figure the
    /// median over runs (0 in a run where it did not move), busiest first;
    /// absent when none did, and in documents before 0.2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceActivity>,
    /// On a ZFS pool whose layout `iolab info` found: each data member with
    /// its top-level vdev, what it moved in the phase (the median over
    /// runs) and its share of the members' bytes (did every member work,
    /// and evenly? judged by `zfs_member_uneven` with one I/O in flight
    /// assumed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zfs_members: Vec<crate::summary::zfs::ZfsMember>,
    /// Why an uneven split of the members' bytes was not judged: reads of
    /// runs not cold by an export and import (the ARC may have answered
    /// them), or the layout's read policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_members_unjudged: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct AppReport {
    /// `files` or `git`.
    pub workload: String,
    /// Caches were dropped before each run.
    pub cold: bool,
    /// With `cold`: what made the cold phases cold, or `none` and why (the
    /// first phase that was not); absent when not cold, and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_by: Option<ColdRecord>,
    /// Runs of the workload.
    #[schemars(extend("x-unit" = "count"))]
    pub runs: u32,
    /// Workload parameters (file count, commits...), for the record.
    #[schemars(extend("x-unit" = "count"))]
    pub params: Vec<(String, u64)>,
    /// The workload's phases, in order.
    pub phases: Vec<PhaseReport>,
    /// Why a figure may not be trusted.
    pub warnings: Vec<Diagnostic>,
}

/// The phase `name` of every run that has it (the git suite on ZFS
/// generates its tree in the first run only).
fn same_phase<'a>(runs: &'a [Vec<PhaseSamples>], name: &str) -> Vec<&'a PhaseSamples> {
    runs.iter().filter_map(|r| r.iter().find(|p| p.name == name)).collect()
}

/// Phases of several runs of a workload (each run: the same phases in
/// order, but for phases some runs leave out, such as the git suite's
/// `generate` on ZFS).
///
/// `zfs`: the pool the directory is on, as `iolab info` found it (for the
/// members' view of each phase).
pub fn app_report(
    workload: &str,
    cold: bool,
    params: Vec<(String, u64)>,
    runs: &[Vec<PhaseSamples>],
    zfs: Option<&crate::device::ZfsInfo>,
) -> AppReport {
    let mut phases = Vec::new();
    let mut findings: Vec<Option<Diagnostic>> = Vec::new();
    if let Some(first) = runs.first() {
        for p in first.iter() {
            let all = same_phase(runs, &p.name);
            let walls: Vec<f64> = all.iter().map(|p| p.wall_ns as f64 / 1e9).collect();
            let med = |f: &dyn Fn(&PhaseSamples) -> f64| super::median(&all.iter().map(|p| f(p)).collect::<Vec<_>>());
            let colds: Vec<Option<&ColdRecord>> = all.iter().map(|p| p.cold_by.as_ref()).collect();
            let devices = median_activity(&all.iter().map(|p| p.moved.as_slice()).collect::<Vec<_>>());
            let members = members_of(zfs, &devices, arc_emptied(&colds));
            let dev = |f: fn(&crate::samples::DiskDelta) -> u64| -> Option<u64> {
                all.iter()
                    .map(|p| p.devices.first().map(f))
                    .collect::<Option<Vec<u64>>>()
                    .map(|v| super::median(&v.iter().map(|x| *x as f64).collect::<Vec<_>>()).round() as u64)
            };
            phases.push(PhaseReport {
                name: p.name.clone(),
                cold: p.cold,
                cold_by: crate::judge::cold::summarize(&colds),
                files: p.files,
                bytes: p.bytes,
                wall_s: Stats::of(&walls),
                files_per_s: med(&|p| p.files as f64 / (p.wall_ns.max(1) as f64 / 1e9)),
                bytes_per_s: med(&|p| p.bytes as f64 / (p.wall_ns.max(1) as f64 / 1e9)),
                user_s: med(&|p| p.cpu.usr_ns as f64 / 1e9),
                sys_s: med(&|p| p.cpu.sys_ns as f64 / 1e9),
                device_read_bytes: dev(|d| d.read_bytes),
                device_write_bytes: dev(|d| d.write_bytes),
                device_busy_s: dev(|d| d.busy_ns).map(|ns| ns as f64 / 1e9),
                devices,
                zfs_members: members.members,
                zfs_members_unjudged: members.unjudged,
                wall_s_runs: walls,
            });
            findings.push(members.finding);
        }
    }
    let mut warnings = Vec::new();
    for (p, finding) in phases.iter().zip(findings) {
        let mut ws = timing_warnings(&p.wall_s_runs, p.cold);
        let all = same_phase(runs, &p.name);
        ws.extend(crate::judge::cold::not_cold(
            "runs",
            &all.iter().map(|p| p.cold_by.as_ref()).collect::<Vec<_>>(),
        ));
        // The directory's devices are the named ones: say so when another moved more.
        let named: Vec<String> = all
            .first()
            .map(|p| p.devices.iter().map(|d| d.name.clone()).collect())
            .unwrap_or_default();
        if let Some(top) = named.first() {
            let per_run = reads(
                &named,
                all.iter().map(|p| (p.devices.as_slice(), p.moved.as_slice(), p.own_read_bytes)),
            );
            ws.extend(rules::named_device_elsewhere(top, "the phase", &per_run));
        }
        ws.extend(finding);
        for mut w in ws {
            w.message = format!("{}: {}", p.name, w.message);
            warnings.push(w);
        }
    }
    let cold_by =
        crate::judge::cold::summarize(&phases.iter().filter(|p| p.cold).map(|p| p.cold_by.as_ref()).collect::<Vec<_>>()).map(|mut r| {
            if let Some(p) = phases
                .iter()
                .find(|p| p.cold_by.as_ref().is_some_and(|c| c.method == crate::samples::ColdMethod::None))
            {
                r.reason = p
                    .cold_by
                    .as_ref()
                    .and_then(|c| c.reason.clone())
                    .map(|why| format!("phase {}: {why}", p.name));
                r.method = crate::samples::ColdMethod::None;
            }
            r
        });
    AppReport {
        workload: workload.into(),
        cold,
        cold_by,
        runs: runs.len() as u32,
        params,
        phases,
        warnings,
    }
}

/// Each device's figures as the median over `runs` (0 where a run did not
/// move it), busiest first; what a device is built on comes from the runs.
fn median_activity(runs: &[&[DeviceActivity]]) -> Vec<DeviceActivity> {
    let all = device::sum_activity(runs.iter().copied());
    let mut out: Vec<DeviceActivity> = all
        .into_iter()
        .map(|d| {
            let per_run: Vec<Option<&DeviceActivity>> = runs.iter().map(|r| r.iter().find(|x| x.name == d.name)).collect();
            let med = |f: fn(&DeviceActivity) -> f64| super::median(&per_run.iter().map(|x| x.map_or(0.0, f)).collect::<Vec<_>>());
            DeviceActivity {
                read_bytes: med(|x| x.read_bytes as f64).round() as u64,
                write_bytes: med(|x| x.write_bytes as f64).round() as u64,
                read_ios: med(|x| x.read_ios as f64).round() as u64,
                write_ios: med(|x| x.write_ios as f64).round() as u64,
                busy_s: med(|x| x.busy_s),
                ..d
            }
        })
        .filter(|d| d.read_ios + d.write_ios + d.read_bytes + d.write_bytes > 0)
        .collect();
    out.sort_by(|a, b| b.bytes().cmp(&a.bytes()).then(a.name.cmp(&b.name)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_hyperfines() {
        let s = Stats::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((s.mean, s.median, s.min, s.max), (2.5, 2.5, 1.0, 4.0));
        assert!((s.stddev - 1.2909944).abs() < 1e-6);
        assert_eq!(Stats::of(&[2.0]).stddev, 0.0);
        assert_eq!(Stats::of(&[]).mean, 0.0);
    }

    #[test]
    fn a_slow_first_run_is_flagged_and_a_steady_series_is_not() {
        let w = timing_warnings(&[10.0, 1.0, 1.1, 0.9], false);
        assert!(w.iter().any(|w| w.code == "first_run_slower"), "{w:?}");
        assert!(w[0].message.contains("--cold"));
        assert!(timing_warnings(&[1.0, 1.02, 0.98, 1.01, 0.99], false).is_empty());
    }

    #[test]
    fn commands_are_quoted_for_display() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(quote(&a(&["git", "pull"])), "git pull");
        assert_eq!(quote(&a(&["sh", "-c", "echo it's"])), r"sh -c 'echo it'\''s'");
    }

    fn act(name: &str, read: u64, on: &[&str]) -> DeviceActivity {
        DeviceActivity {
            name: name.into(),
            read_bytes: read,
            read_ios: 1,
            busy_s: 0.1,
            on: on.iter().map(|s| s.to_string()).collect(),
            bottom: on.is_empty(),
            ..Default::default()
        }
    }

    fn opts() -> TimeOpts {
        TimeOpts {
            command: vec!["cat".into(), "/mnt/other/big".into()],
            cold: true,
            runs: 1,
            warmup: 0,
            prepare: None,
            cleanup: None,
            cwd: None,
            device: None,
            show_output: false,
            ignore_failure: false,
            allow_export: false,
        }
    }

    const MB: u64 = 1 << 20;

    /// The issue's case: run from the home directory (vda) to read 46 MB from
    /// another disk (loop3 over a file on vda, with direct I/O).
    fn issue_run() -> CommandRun {
        CommandRun {
            wall_ns: 1_000_000_000,
            moved: vec![act("vda", 46 * MB + 2 * MB, &[]), act("loop3", 46 * MB, &["vda"])],
            own_read_bytes: 46 * MB + MB / 2,
            ..Default::default()
        }
    }

    #[test]
    fn without_a_named_device_the_figures_are_the_commands_device() {
        let place = Place {
            cwd: "/home/u".into(),
            devices: vec![],
            named_by: None,
        };
        let t = time_report(&opts(), &place, &[issue_run()], None);
        let r = &t.runs[0];
        // loop3 is the top of its stack (vda is under it): its figures, not vda's again.
        assert_eq!((r.device.as_deref(), r.device_read_bytes), (Some("loop3"), Some(46 * MB)));
        // The total counts each byte once: vda's only.
        assert_eq!((r.total_read_bytes, r.total_write_bytes), (Some(48 * MB), Some(0)));
        assert_eq!(r.devices.len(), 2);
        assert_eq!(t.devices, ["loop3"]);
        assert_eq!(t.named(), None);
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        // Nothing moved (warm): zeros from no device, not a device's figures.
        let warm = time_report(&opts(), &place, &[CommandRun::default()], None);
        assert_eq!((warm.runs[0].device.as_deref(), warm.runs[0].device_read_bytes), (None, Some(0)));
    }

    #[test]
    fn a_named_device_that_missed_the_commands_reads_is_said() {
        // --cwd /home/u names vda (which read 2 MB); the command read 46 MB from sdb.
        let place = Place {
            cwd: "/home/u".into(),
            devices: vec!["vda".into()],
            named_by: Some("--cwd /home/u".into()),
        };
        let run = CommandRun {
            devices: vec![crate::samples::DiskDelta {
                name: "vda".into(),
                read_bytes: 2 * MB,
                ..Default::default()
            }],
            moved: vec![act("sdb", 46 * MB, &[]), act("vda", 2 * MB, &[])],
            own_read_bytes: 47 * MB,
            ..Default::default()
        };
        let t = time_report(&opts(), &place, &[run], None);
        assert_eq!(
            (t.runs[0].device.as_deref(), t.runs[0].device_read_bytes),
            (Some("vda"), Some(2 * MB))
        );
        assert_eq!(t.named().as_deref(), Some("--cwd /home/u"));
        let w: Vec<&str> = t.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(w, ["other_device"]);
        assert!(t.warnings[0].message.contains("the reads went to sdb"), "{}", t.warnings[0].message);
    }

    #[test]
    fn a_document_before_per_run_devices_still_loads_and_names_its_device() {
        let v = serde_json::json!({
            "command": "cat big", "cwd": "/m", "cold": true, "prepare": null, "cleanup": null,
            "warmup_runs": 0, "devices": ["loop3"],
            "runs": [{"wall_s": 1.0, "user_s": 0.0, "sys_s": 0.1, "exit_code": 0,
                      "device_read_bytes": 41943040, "device_write_bytes": 0, "device_busy_s": 0.5}],
            "wall_s": {"mean": 1.0, "median": 1.0, "stddev": 0.0, "min": 1.0, "max": 1.0},
            "user_s": {"mean": 0.0, "median": 0.0, "stddev": 0.0, "min": 0.0, "max": 0.0},
            "sys_s": {"mean": 0.1, "median": 0.1, "stddev": 0.0, "min": 0.1, "max": 0.1},
            "warnings": []
        });
        let t: TimeReport = serde_json::from_value(v).unwrap();
        assert!(t.runs[0].devices.is_empty() && t.runs[0].device.is_none());
        assert_eq!(t.named().as_deref(), Some("the working directory"));
        assert_eq!(t.run_device(0), Some("loop3"));
    }

    /// `cat` of a 96 MiB file on a 3-way mirror over loop devices, twice,
    /// cold by export and import: the members over both runs, each with its
    /// share; a mirror's reads at one I/O in flight are explained, not
    /// flagged. Drop_caches only: the reads are not judged, and it says why.
    #[test]
    fn a_timed_command_on_a_pool_lists_its_members_over_the_runs() {
        let z = crate::summary::zfs::tests::pool_on(&[("mirror", 3)], &["loop10", "loop11", "loop12"]);
        let place = Place {
            cwd: "/tank".into(),
            devices: vec![],
            named_by: None,
        };
        let run = |method: crate::samples::ColdMethod, split: [u64; 3]| CommandRun {
            wall_ns: 1_000_000_000,
            moved: ["loop10", "loop11", "loop12"]
                .iter()
                .zip(split)
                .filter(|(_, b)| *b > 0)
                .map(|(n, b)| act(n, b, &["vda"]))
                .collect(),
            own_read_bytes: 96 * MB,
            cold_by: Some(ColdRecord { method, reason: None }),
            ..Default::default()
        };
        let cold = crate::samples::ColdMethod::ExportImport;
        let t = time_report(
            &opts(),
            &place,
            &[run(cold, [64 * MB, 32 * MB, 0]), run(cold, [0, 32 * MB, 64 * MB])],
            Some(&z),
        );
        let got: Vec<(&str, u64, Option<f64>)> = t
            .zfs_members
            .iter()
            .map(|m| (m.name.as_str(), m.read_bytes, m.read_share))
            .collect();
        assert_eq!(
            got,
            [
                ("loop10", 64 * MB, Some(1.0 / 3.0)),
                ("loop11", 64 * MB, Some(1.0 / 3.0)),
                ("loop12", 64 * MB, Some(1.0 / 3.0))
            ]
        );
        assert_eq!(t.zfs_members_unjudged, None, "even");
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        // One member read it all: a mirror at one I/O in flight may do that.
        let one = time_report(&opts(), &place, &[run(cold, [96 * MB, 0, 0])], Some(&z));
        assert_eq!(one.zfs_members.len(), 3);
        assert!(one.warnings.is_empty(), "{:?}", one.warnings);
        assert!(
            one.zfs_members_unjudged
                .unwrap()
                .starts_with("a mirror read with one I/O in flight")
        );
        // Cold by drop_caches only: the ARC may have answered.
        let dropped = time_report(
            &opts(),
            &place,
            &[run(crate::samples::ColdMethod::DropCaches, [96 * MB, 0, 0])],
            Some(&z),
        );
        assert!(dropped.zfs_members_unjudged.unwrap().contains("the ARC may have answered them"));
        // Off ZFS: no members, and the JSON leaves them out.
        let off = time_report(&opts(), &place, &[run(cold, [96 * MB, 0, 0])], None);
        let v = serde_json::to_value(&off).unwrap();
        assert!(v.get("zfs_members").is_none() && v.get("zfs_members_unjudged").is_none(), "{v}");
    }

    /// The git suite's phases on a 3-way mirror: each phase's members from
    /// its median devices; a member that wrote nothing is the phase's finding.
    #[test]
    fn an_app_phase_on_a_pool_lists_its_members_and_flags_an_idle_one() {
        let z = crate::summary::zfs::tests::pool_on(&[("mirror", 3)], &["loop10", "loop11", "loop12"]);
        let write = |n: &str| DeviceActivity {
            name: n.into(),
            write_bytes: 20 * MB,
            write_ios: 5,
            ..Default::default()
        };
        let phase = PhaseSamples {
            name: "clone".into(),
            wall_ns: 1_000_000_000,
            moved: vec![write("loop10"), write("loop11")],
            ..Default::default()
        };
        let a = app_report("git", false, vec![], &[vec![phase]], Some(&z));
        let p = &a.phases[0];
        let got: Vec<(&str, u64)> = p.zfs_members.iter().map(|m| (m.name.as_str(), m.write_bytes)).collect();
        assert_eq!(got, [("loop10", 20 * MB), ("loop11", 20 * MB), ("loop12", 0)]);
        let w: Vec<&str> = a.warnings.iter().map(|w| w.code.as_str()).collect();
        assert_eq!(w, ["zfs_member_uneven"]);
        assert!(
            a.warnings[0]
                .message
                .starts_with("clone: UNEVEN MEMBERS: in mirror-0 of zpool tpool, loop12 wrote 0 B"),
            "{}",
            a.warnings[0].message
        );
    }
}
