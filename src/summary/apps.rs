//! Figures of application workloads: `iolab time` (a real command) and the
//! built-in `files` and `git` suites (phases), with hyperfine's warnings
//! about outliers and a first run slower than the rest.

use crate::judge::Diagnostic;
use crate::judge::apps as rules;
use crate::plan::time::{Place, TimeOpts};
use crate::samples::CommandRun;
use crate::samples::PhaseSamples;
use serde::{Deserialize, Serialize};

/// Mean, median, standard deviation, min and max of a list of seconds.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Stats {
    pub mean: f64,
    pub median: f64,
    /// Sample standard deviation (0 for one value).
    pub stddev: f64,
    pub min: f64,
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

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TimeRun {
    pub wall_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    pub exit_code: i32,
    /// What reached the device under the working directory (the top one; `null` without one).
    pub device_read_bytes: Option<u64>,
    pub device_write_bytes: Option<u64>,
    /// Time the device had I/O in flight (ms resolution).
    pub device_busy_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TimeReport {
    pub command: String,
    pub cwd: String,
    pub cold: bool,
    pub prepare: Option<String>,
    pub cleanup: Option<String>,
    pub warmup_runs: u32,
    /// The devices measured (diskstats names, top first).
    pub devices: Vec<String>,
    pub runs: Vec<TimeRun>,
    pub wall_s: Stats,
    pub user_s: Stats,
    pub sys_s: Stats,
    pub warnings: Vec<Diagnostic>,
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

fn time_run(r: &CommandRun) -> TimeRun {
    let top = r.devices.first();
    TimeRun {
        wall_s: r.wall_ns as f64 / 1e9,
        user_s: r.usr_ns as f64 / 1e9,
        sys_s: r.sys_ns as f64 / 1e9,
        exit_code: r.exit_code,
        device_read_bytes: top.map(|d| d.read_bytes),
        device_write_bytes: top.map(|d| d.write_bytes),
        device_busy_s: top.map(|d| d.busy_ns as f64 / 1e9),
    }
}

pub fn time_report(opts: &TimeOpts, place: &Place, runs: &[CommandRun]) -> TimeReport {
    let runs: Vec<TimeRun> = runs.iter().map(time_run).collect();
    let col = |f: fn(&TimeRun) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    let walls = col(|r| r.wall_s);
    let mut warnings = timing_warnings(&walls, opts.cold);
    warnings.extend(rules::no_device_measured(
        &place.cwd.display().to_string(),
        !place.devices.is_empty(),
    ));
    warnings.extend(rules::command_failed(runs.iter().map(|r| r.exit_code)));
    TimeReport {
        command: quote(&opts.command),
        cwd: place.cwd.display().to_string(),
        cold: opts.cold,
        prepare: opts.prepare.clone(),
        cleanup: opts.cleanup.clone(),
        warmup_runs: opts.warmup,
        devices: place.devices.clone(),
        wall_s: Stats::of(&walls),
        user_s: Stats::of(&col(|r| r.user_s)),
        sys_s: Stats::of(&col(|r| r.sys_s)),
        runs,
        warnings,
    }
}

/// One phase of a built-in workload, as medians over the runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PhaseReport {
    pub name: String,
    pub cold: bool,
    pub files: u64,
    pub bytes: u64,
    /// Seconds per run, oldest first, and their statistics.
    pub wall_s_runs: Vec<f64>,
    pub wall_s: Stats,
    /// Median over runs.
    pub files_per_s: f64,
    pub bytes_per_s: f64,
    pub user_s: f64,
    pub sys_s: f64,
    /// Top device under the directory, median over runs.
    pub device_read_bytes: Option<u64>,
    pub device_write_bytes: Option<u64>,
    pub device_busy_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AppReport {
    /// `files` or `git`.
    pub workload: String,
    pub cold: bool,
    pub runs: u32,
    /// Workload parameters (file count, commits...), for the record.
    pub params: Vec<(String, u64)>,
    pub phases: Vec<PhaseReport>,
    pub warnings: Vec<Diagnostic>,
}

/// Phases of several runs of a workload (each run: the same phases in order).
pub fn app_report(workload: &str, cold: bool, params: Vec<(String, u64)>, runs: &[Vec<PhaseSamples>]) -> AppReport {
    let mut phases = Vec::new();
    if let Some(first) = runs.first() {
        for (k, p) in first.iter().enumerate() {
            let all: Vec<&PhaseSamples> = runs.iter().filter_map(|r| r.get(k)).collect();
            let walls: Vec<f64> = all.iter().map(|p| p.wall_ns as f64 / 1e9).collect();
            let med = |f: &dyn Fn(&PhaseSamples) -> f64| super::median(&all.iter().map(|p| f(p)).collect::<Vec<_>>());
            let dev = |f: fn(&crate::samples::DiskDelta) -> u64| -> Option<u64> {
                all.iter()
                    .map(|p| p.devices.first().map(f))
                    .collect::<Option<Vec<u64>>>()
                    .map(|v| super::median(&v.iter().map(|x| *x as f64).collect::<Vec<_>>()).round() as u64)
            };
            phases.push(PhaseReport {
                name: p.name.clone(),
                cold: p.cold,
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
                wall_s_runs: walls,
            });
        }
    }
    let mut warnings = Vec::new();
    for p in &phases {
        for mut w in timing_warnings(&p.wall_s_runs, p.cold) {
            w.message = format!("{}: {}", p.name, w.message);
            warnings.push(w);
        }
    }
    AppReport {
        workload: workload.into(),
        cold,
        runs: runs.len() as u32,
        params,
        phases,
        warnings,
    }
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
}
