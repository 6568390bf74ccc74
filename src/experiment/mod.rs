//! Experiments: what iolab runs, and the one runner that runs them.
//!
//! A front end (the command line today; a config file or a remote host
//! tomorrow) builds an [`Experiment`], and [`run`] does the rest: it checks
//! the plan ([`Experiment::validate`]), opens the targets, measures (each
//! kind through [`crate::measure`] or its own timer), summarises, and
//! returns an [`Outcome`]: the result document and whether a signal or an
//! error cut it short. Interruption is a value here, not an error: what
//! finished before the signal is in the document, marked `interrupted`; and
//! for the jobs and the scan, what finished before a failure (an I/O error,
//! a target that went away or stopped answering) is in the document with
//! the `error` that stopped the rest.
//!
//! Each kind lives in its own module: [`jobs`] (suites and custom jobs),
//! [`scan`], [`scale`], [`time`], [`apps`] (the files and git workloads),
//! [`verify`] (stamped blocks written and read back), [`capacity`]
//! (whether a device's announced size is real), [`flush`] (does a device keep
//! what a flush acknowledged), and [`fio`] (fio as the
//! executor of a plan, here or on many `fio --server` hosts).

pub mod apps;
pub mod capacity;
pub mod cold;
pub mod fio;
pub mod flush;
pub mod jobs;
pub mod layouts;
pub mod scale;
pub mod scan;
pub mod time;
pub mod verify;
pub mod virtual_run;
pub mod zfs;

use crate::base::error::{Error, Result};
use crate::base::progress::Observer;
use crate::base::signals::Stop;
use crate::device::SysRoot;
use crate::summary::{Body, Host, Report, Settings};
use crate::targets::TargetInfo;

/// One experiment, fully specified.
#[derive(Clone, Debug)]
pub enum Experiment {
    /// `run` (a suite) and `job` (one custom job): jobs in order on one target.
    Jobs(jobs::JobsRequest),
    /// `scan`: the surface scan of one target.
    Scan(scan::ScanRequest),
    /// `scale`: sweeps, targets alone and together, a layout against a member.
    Scale(scale::ScaleRequest),
    /// `time`: a real command, timed.
    Time(time::TimeRequest),
    /// `run --suite files|git`: an application workload in a directory.
    App(apps::AppRequest),
    /// `capacity`: whether a device's announced size is real.
    Capacity(capacity::CapacityRequest),
    /// `verify`: every block written, read back and checked.
    Verify(verify::VerifyRequest),
    /// `flush`: stamped generations, each flushed and logged; or the check of what the device kept.
    Flush(flush::FlushRequest),
}

impl Experiment {
    /// Every rule on the plan, before any target is touched.
    pub fn validate(&self) -> Result<()> {
        match self {
            Experiment::Jobs(r) => r.validate(),
            Experiment::Scan(r) => r.validate(),
            Experiment::Scale(r) => r.validate(),
            Experiment::Time(r) => r.check(),
            Experiment::App(r) => r.validate(),
            Experiment::Capacity(r) => r.validate(),
            Experiment::Verify(r) => r.validate(),
            Experiment::Flush(r) => r.validate(),
        }
    }
}

/// What a run needs from its caller.
pub struct Context<'a> {
    pub stop: &'a Stop,
    pub observer: &'a dyn Observer,
    pub sys: SysRoot,
}

/// The result of an experiment.
#[derive(Debug)]
pub struct Outcome {
    pub report: Report,
    /// The signal (SIGINT/SIGTERM) that cut the run short: the report holds what finished.
    pub interrupted: Option<i32>,
    /// The error that cut the run short (the report holds the tests that
    /// finished before it, and says it in `error`): the front end keeps and
    /// prints them, then fails with this error.
    pub failed: Option<Error>,
}

/// What one kind of experiment hands back to [`run`].
pub(crate) struct Measured {
    pub command: &'static str,
    pub target: TargetInfo,
    pub settings: Settings,
    pub body: Body,
    pub interrupted: Option<i32>,
    /// The error that stopped the run after some of it finished ([`until_cut`]).
    pub failed: Option<Error>,
}

/// Validate, run and summarise one experiment.
pub fn run(exp: &Experiment, ctx: &Context) -> Result<Outcome> {
    exp.validate()?;
    let started_at = crate::base::units::now_rfc3339();
    let m = match exp {
        Experiment::Jobs(r) if r.via_fio => fio::run_local(r, ctx)?,
        Experiment::Jobs(r) => jobs::run(r, ctx)?,
        Experiment::Scan(r) => scan::run(r, ctx)?,
        Experiment::Scale(r) => scale::run(r, ctx)?,
        Experiment::Time(r) => time::run(r, ctx)?,
        Experiment::App(r) => apps::run(r, ctx)?,
        Experiment::Capacity(r) => capacity::run(r, ctx)?,
        Experiment::Verify(r) => verify::run(r, ctx)?,
        Experiment::Flush(r) => flush::run(r, ctx)?,
    };
    Ok(outcome(started_at, m))
}

/// A kind's result as the document every kind shares.
fn outcome(started_at: String, m: Measured) -> Outcome {
    Outcome {
        report: Report {
            names_schema: true,
            run_id: None,
            iolab_version: env!("CARGO_PKG_VERSION").to_string(),
            command: m.command.to_string(),
            // The front end records the command line it was given.
            argv: Vec::new(),
            started_at,
            host: host(),
            target: m.target,
            settings: m.settings,
            body: m.body,
            interrupted: m.interrupted.is_some(),
            error: m.failed.as_ref().map(Error::to_string),
        },
        interrupted: m.interrupted,
        failed: m.failed,
    }
}

/// Run `measure`, which stores what it finishes as it goes; a stop request
/// ends it early. The one place where the `Interrupted` error that unwinds
/// measuring code becomes a mark on the result.
pub(crate) fn until_stopped(measure: impl FnOnce() -> Result<()>) -> Result<Option<i32>> {
    match measure() {
        Ok(()) => Ok(None),
        Err(Error::Interrupted(sig)) => Ok(Some(sig)),
        Err(e) => Err(e),
    }
}

/// What cut a run short ([`until_cut`]).
#[derive(Debug, Default)]
pub(crate) struct Cut {
    pub interrupted: Option<i32>,
    pub failed: Option<Error>,
}

/// [`until_stopped`], and a failure while measuring (an I/O error, a
/// target that went away or stopped answering: [`Error::Failed`]) is a
/// mark on the result too, so the tests that finished before it are kept.
/// A usage error (a plan the target cannot take) still fails the run.
pub(crate) fn until_cut(measure: impl FnOnce() -> Result<()>) -> Result<Cut> {
    match measure() {
        Ok(()) => Ok(Cut::default()),
        Err(Error::Interrupted(sig)) => Ok(Cut {
            interrupted: Some(sig),
            failed: None,
        }),
        Err(e @ Error::Failed(_)) => Ok(Cut {
            interrupted: None,
            failed: Some(e),
        }),
        Err(e) => Err(e),
    }
}

/// CPUs this process may use.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

fn host() -> Host {
    let u = rustix::system::uname();
    Host {
        hostname: u.nodename().to_string_lossy().into_owned(),
        kernel: u.release().to_string_lossy().into_owned(),
        cpus: cpus(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::{failed, usage};

    #[test]
    fn a_failure_while_measuring_is_a_mark_and_a_usage_error_is_not() {
        let c = until_cut(|| Ok(())).unwrap();
        assert!(c.interrupted.is_none() && c.failed.is_none());
        let c = until_cut(|| Err(Error::Interrupted(libc::SIGTERM))).unwrap();
        assert_eq!(c.interrupted, Some(libc::SIGTERM));
        let c = until_cut(|| Err(failed("I/O error on /dev/x"))).unwrap();
        assert_eq!(c.failed.map(|e| e.to_string()).as_deref(), Some("I/O error on /dev/x"));
        assert!(matches!(until_cut(|| Err(usage("bad plan"))), Err(Error::Usage(_))));
    }
}
