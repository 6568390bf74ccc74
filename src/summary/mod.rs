//! From samples to figures: the run document, [`Report`] (metadata, the
//! settings, then the figures of its kind of experiment, [`Body`]), and a
//! module per kind of result: [`job`] (a measured job: per-run figures,
//! medians with their spread, CPU cost, the device cross-check and the
//! warnings, shared by every kind that runs jobs), [`scan`], [`scale`],
//! [`apps`] (`time` and the application suites), [`verify`], [`capacity`]
//! and [`hosts`] (one plan on many hosts), with [`zfs`] a job's figures on a
//! ZFS pool (its members, the write model) and [`depth`] the queue depth
//! its device had; [`flush`] is the pass over a
//! run's jobs that names a flush too fast for the run's reads, and
//! [`flush_check`] is `iolab flush`'s power-cut check; [`fio`]
//! reads fio's sections back into tests, and [`figures`] derives what the
//! views quote.
//!
//! These types are the JSON document; renderers only format them.

use crate::targets::TargetInfo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub mod apps;
pub mod capacity;
pub mod classes;
pub mod depth;
mod document;
pub mod figures;
pub mod fio;
pub mod flush;
pub mod flush_check;
pub mod hosts;
pub mod job;
mod job_report;
mod job_warnings;
mod named;
pub mod scale;
pub mod scan;
pub mod verify;
pub mod zfs;

/// The statistics of figures live with the rules that use them too.
pub use crate::judge::stats::{cv, median};
pub use job::{
    CpuReport, DeviceReport, DirReport, Direction, IoErrors, JobReport, Latency, RunReport, Samples, SteadyReport, cross_check, run_report,
};
pub use job_report::job_report;
pub use named::{EngineName, Named, Pattern};

/// A stored or printed run: metadata, then the figures of its kind of
/// experiment. (De)serialised through [`document::Document`], which is the
/// JSON shape every iolab version has written, so old documents load.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(from = "document::Document", into = "document::Document")]
pub struct Report {
    /// Whether the document names its schema (`"schema": "iolab/run/1"`):
    /// true for every run iolab measures or imports from fio; false for one
    /// read from a document without the field (stored by iolab 0.2.0 or
    /// earlier), which is written back as it was stored.
    pub names_schema: bool,
    /// The id under which the run is kept in the results store (None when not stored).
    pub run_id: Option<i64>,
    pub iolab_version: String,
    /// The subcommand (`iolab run`, `import:fio`).
    pub command: String,
    /// The command line as typed, when a front end recorded it (empty in
    /// documents of iolab 0.1 and in imported runs).
    pub argv: Vec<String>,
    pub started_at: String,
    pub host: Host,
    pub target: TargetInfo,
    pub settings: Settings,
    pub body: Body,
    /// True when SIGINT/SIGTERM stopped the run: the body holds what finished.
    pub interrupted: bool,
    /// The error that stopped the run (an I/O error, a target that went
    /// away or stopped answering): the body holds the tests that finished
    /// before it.
    pub error: Option<String>,
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
    /// `verify`: every block written, read back and classified.
    Verify(verify::VerifyReport),
    /// `capacity`: the probe of the device's real size, and its verdict.
    Capacity(capacity::CapacityReport),
    /// `flush`: stamped generations written and their flushes logged, or checked after a power cut.
    Flush(flush_check::FlushReport),
}

impl Report {
    /// The kind of document the run is (`run`, `scan`... `capacity`).
    pub fn schema_kind(&self) -> crate::base::document::Kind {
        use crate::base::document::Kind;
        match &self.body {
            Body::Jobs(_) => Kind::Run,
            Body::Scan { .. } => Kind::Scan,
            Body::Scale { .. } => Kind::Scale,
            Body::Time(_) => Kind::Time,
            Body::App(_) => Kind::App,
            Body::Verify(_) => Kind::Verify,
            Body::Capacity(_) => Kind::Capacity,
            Body::Flush(_) => Kind::Flush,
        }
    }
    /// Every job of the run (none for `time` and the app suites).
    pub fn jobs(&self) -> &[JobReport] {
        match &self.body {
            Body::Jobs(jobs) | Body::Scan { jobs, .. } | Body::Scale { jobs, .. } => jobs,
            Body::Time(_) | Body::App(_) | Body::Verify(_) | Body::Capacity(_) | Body::Flush(_) => &[],
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
    pub fn verify(&self) -> Option<&verify::VerifyReport> {
        match &self.body {
            Body::Verify(v) => Some(v),
            _ => None,
        }
    }
    pub fn capacity(&self) -> Option<&capacity::CapacityReport> {
        match &self.body {
            Body::Capacity(c) => Some(c),
            _ => None,
        }
    }
    pub fn flush(&self) -> Option<&flush_check::FlushReport> {
        match &self.body {
            Body::Flush(f) => Some(f),
            _ => None,
        }
    }
    /// What a check found wrong with the device (`verify` not clean,
    /// `capacity` fake, damaged or suspect), for the exit status: the
    /// measurement itself worked.
    pub fn failed_check(&self) -> Option<String> {
        match &self.body {
            Body::Verify(v) if v.failed() => Some(v.summary.message.clone()),
            Body::Capacity(c) if c.failed() => Some(c.message.clone()),
            Body::Flush(f) if f.failed() => f.findings.as_ref().map(|x| x.message.clone()),
            _ => None,
        }
    }
    /// Whether anything was measured (an interrupted run may have nothing).
    pub fn has_results(&self) -> bool {
        match &self.body {
            Body::Jobs(j) | Body::Scan { jobs: j, .. } | Body::Scale { jobs: j, .. } => !j.is_empty(),
            Body::Time(t) => !t.runs.is_empty(),
            Body::App(a) => a.runs > 0,
            Body::Verify(v) => v.written_bytes > 0,
            Body::Capacity(c) => c.probe.is_some() || c.bytes_written > 0,
            Body::Flush(f) => f.acknowledged_generations > 0 || f.findings.is_some(),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Host {
    /// The machine's host name.
    pub hostname: String,
    /// The kernel release (`uname -r`).
    pub kernel: String,
    /// The machine's CPUs.
    #[schemars(extend("x-unit" = "count"))]
    pub cpus: usize,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settings {
    /// Measured runs per test; with `runs_auto`, the most a test could run.
    #[schemars(extend("x-unit" = "count"))]
    pub runs: u32,
    /// The warm-up before each test's measured runs.
    #[schemars(extend("x-unit" = "s"))]
    pub warmup_s: f64,
    /// The pause between runs and tests; with `interval_auto`, the rest
    /// after a test that wrote (runs of a test follow each other).
    #[schemars(extend("x-unit" = "s"))]
    pub interval_s: f64,
    /// The suite run (`null`: a custom job).
    pub suite: Option<String>,
    /// `--steady-state`: write jobs ran rounds until steady (window, round limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<crate::plan::SteadyRule>,
    /// `--runs auto`: each test ran windows until they settled (each
    /// direction's `settle` says how it ended).
    #[serde(default, skip_serializing_if = "is_false")]
    pub runs_auto: bool,
    /// `--interval auto`: rest only after tests that wrote.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interval_auto: bool,
    /// `--latency`: how each I/O's latency was taken (`exact`, `batch`,
    /// `batch=N`, `off`; each job says its batch). Absent when `exact`.
    #[serde(default, skip_serializing_if = "crate::plan::Timing::is_exact")]
    pub latency: crate::plan::Timing,
}

impl Settings {
    /// The settings of a run that passes over its target once (`verify`,
    /// `capacity`, `flush`): one run, no warm-up, no rest, no suite.
    pub fn one_pass() -> Settings {
        Settings {
            runs: 1,
            ..Settings::default()
        }
    }

    /// The settings of a run whose tests were repeated as `r`.
    pub fn of(r: &crate::plan::Repeat, suite: Option<String>, latency: crate::plan::Timing) -> Settings {
        Settings {
            runs: r.runs.max(),
            warmup_s: r.warmup.as_secs_f64(),
            interval_s: r.interval.before_next(true).as_secs_f64(),
            suite,
            steady_state: r.steady,
            runs_auto: r.runs.is_auto(),
            interval_auto: r.interval.is_auto(),
            latency,
        }
    }

    /// How the tests were repeated, in words: `3 runs per test` or `3–10
    /// windows per test, until settled`.
    pub fn runs_text(&self) -> String {
        if self.runs_auto {
            let min = crate::base::thresholds::SETTLE_MIN_WINDOWS.min(self.runs);
            format!("{min}–{} windows per test, until settled", self.runs)
        } else {
            format!("{} run{} per test", self.runs, if self.runs == 1 { "" } else { "s" })
        }
    }

    /// The pauses, in words.
    pub fn interval_text(&self) -> String {
        if self.interval_auto {
            format!("runs back to back, {} s of rest after each test that wrote", self.interval_s)
        } else {
            format!("{} s between runs and tests", self.interval_s)
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
pub(crate) mod tests;
