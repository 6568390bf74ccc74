//! `run` and `job`: a list of jobs, in order, on one target.

use super::{Context, Measured, cpus, until_cut};
use crate::base::error::{Result, usage};
use crate::base::progress::Event;
use crate::io::engine::EngineKind;
use crate::judge::zfs::ReadMethod;
use crate::measure::Runner;
use crate::plan::{JobSpec, Region, Repeat, SuiteName};
use crate::summary::{self, Body, Settings};
use crate::targets::{self, Choice};
use std::time::Duration;

/// Jobs on one target: a suite (`run`) or a custom job (`job`).
#[derive(Clone, Debug)]
pub struct JobsRequest {
    /// The suite the jobs come from (a built-in's name or a user suite's);
    /// `None` for a custom job.
    pub suite: Option<String>,
    pub target: Choice,
    pub jobs: Vec<JobSpec>,
    pub repeat: Repeat,
    /// Run the jobs through fio instead of iolab's engines ([`super::fio`]).
    pub via_fio: bool,
    /// How much of the target the jobs address (`sdcard`'s sustained region).
    pub region: Region,
}

impl JobsRequest {
    /// The jobs of a built-in suite (not the application workloads, see
    /// [`super::apps`]) with `transfers` replacing the sustained and dd
    /// suites' transfer sizes.
    pub fn suite(suite: SuiteName, common: &crate::plan::Common, target: Choice, repeat: Repeat) -> Result<JobsRequest> {
        if suite.is_app() {
            return Err(usage(format!(
                "the {} suite is an application workload, not a list of jobs",
                suite.as_str()
            )));
        }
        if !common.transfers.is_empty() && !matches!(suite, SuiteName::Sustained | SuiteName::Dd) {
            return Err(usage(format!(
                "--bs applies to the sustained and dd suites; suite {} uses CrystalDiskMark's sizes (use `iolab job` for a custom test)",
                suite.as_str()
            )));
        }
        for &bs in &common.transfers {
            crate::plan::limits::check_bs(bs).map_err(usage)?;
        }
        Ok(JobsRequest {
            suite: Some(suite.as_str().to_string()),
            target,
            jobs: suite.jobs(common),
            repeat,
            via_fio: false,
            region: suite.region(false),
        })
    }

    /// The jobs of a user suite from the configuration file.
    pub fn user_suite(
        suite: &crate::config::UserSuite,
        common: &crate::plan::Common,
        target: Choice,
        repeat: Repeat,
    ) -> Result<JobsRequest> {
        if !common.transfers.is_empty() {
            return Err(usage(format!(
                "--bs applies to the sustained and dd suites; suite {} sets its jobs' sizes in {}",
                suite.name, "the configuration file"
            )));
        }
        Ok(JobsRequest {
            suite: Some(suite.name.clone()),
            target,
            jobs: suite.jobs(common),
            repeat,
            via_fio: false,
            region: Region::Whole,
        })
    }

    pub fn validate(&self) -> Result<()> {
        if self.jobs.is_empty() {
            return Err(usage("nothing to run: no jobs"));
        }
        if self.via_fio && self.repeat.steady.is_some() {
            return Err(usage(format!(
                "--steady-state is iolab's own (the SNIA rule over rounds): fio cannot run it; use --engine {}",
                EngineKind::names()
            )));
        }
        if self.via_fio && self.region != Region::Whole {
            return Err(usage(format!(
                "the sdcard suite's region and verdicts are iolab's own: fio cannot run it; use --engine {}",
                EngineKind::names()
            )));
        }
        if self.via_fio && self.jobs.iter().any(|j| j.sync == crate::plan::SyncMode::Fsync) {
            return Err(usage(format!(
                "--sync fsync counts each write's flush in its latency, and fio times that flush apart from the write: fio cannot run it; use --engine {}",
                EngineKind::names()
            )));
        }
        if self.via_fio && self.target.continue_on_error {
            return Err(usage(format!(
                "--continue-on-error counts failures in iolab's own engines: fio cannot run it; use --engine {}",
                EngineKind::names()
            )));
        }
        self.repeat.validate()?;
        self.jobs.iter().try_for_each(JobSpec::validate)
    }

    /// How the jobs take latencies (they all share one mode).
    pub fn timing(&self) -> crate::plan::Timing {
        self.jobs.first().map(|j| j.timing).unwrap_or_default()
    }

    /// The measured time ahead, as planned (size-limited passes count a
    /// second; `--runs auto` counts its fewest windows).
    pub fn planned(&self) -> Duration {
        let r = &self.repeat;
        let per_run = |s: &JobSpec| match s.limit {
            crate::plan::Limit::Time(d) => d,
            crate::plan::Limit::Bytes(_) | crate::plan::Limit::Span => Duration::from_secs(1),
        };
        let runs = r.runs.min();
        let between = r.interval.between_runs();
        // Saturating: a plan's parts are bounded, their sum over many jobs need not be.
        let job = |s: &JobSpec| {
            r.warmup
                .saturating_add(per_run(s).saturating_mul(runs))
                .saturating_add(between.saturating_mul(runs.saturating_sub(1)))
        };
        let rests = self
            .jobs
            .windows(2)
            .fold(Duration::ZERO, |t, w| t.saturating_add(r.interval.before_next(w[0].rw.writes())));
        self.jobs
            .iter()
            .fold(Duration::ZERO, |t, s| t.saturating_add(job(s)))
            .saturating_add(rests)
    }
}

/// In a directory a region is the test file: its size (unless `--size`)
/// is the region of the filesystem the directory is on, and the jobs
/// address all of it.
fn in_directory(choice: &Choice, region: Region) -> Result<(Choice, Region)> {
    if region == Region::Whole || !choice.path.is_dir() {
        return Ok((choice.clone(), region));
    }
    let mut c = choice.clone();
    let fs = targets::space::filesystem_bytes(&c.path)?;
    if c.size.is_none() && fs > 0 {
        c.size = Some(region.bytes(fs));
    }
    Ok((c, Region::Whole))
}

/// The jobs, run by iolab's engines (fio runs them in [`super::fio::run_local`]).
pub(super) fn run(r: &JobsRequest, ctx: &Context) -> Result<Measured> {
    let max_bs = r.jobs.iter().map(|s| s.bs).max().unwrap_or(4096);
    let writes = r.jobs.iter().any(|s| s.rw.writes());
    let (choice, region) = in_directory(&r.target, r.region)?;
    let target = targets::open(&choice.request(writes, max_bs), &ctx.sys, ctx.stop, ctx.observer)?;
    target.check_alignment(r.jobs.iter().map(|s| s.bs))?;
    let mut specs = r.jobs.clone();
    // The span each job addresses, resolved for the record (0: the rest of the target).
    let region = region.bytes(target.span());
    for s in &mut specs {
        if s.span == 0 {
            s.span = region;
        }
        s.span = s.extent(target.span()).1;
    }
    ctx.observer.event(Event::Planned { total: r.planned() });
    let runner = Runner {
        target: &target,
        stop: ctx.stop,
        observer: ctx.observer,
        sys: ctx.sys.clone(),
    };
    let cpus = cpus();
    // On ZFS, what keeps the ARC from answering each read job (or labels it).
    let zfs = super::zfs::ZfsSide::of(&target, r.target.allow_export, &ctx.sys);
    let mut jobs = Vec::new();
    let mut cut = until_cut(|| {
        for (i, spec) in specs.iter().enumerate() {
            let rest = r.repeat.interval.before_next(i > 0 && specs[i - 1].rw.writes());
            if i > 0 && !rest.is_zero() {
                ctx.observer.event(Event::Interval { planned: rest });
                ctx.stop.sleep(rest);
            }
            let mut zfs_read = match &zfs {
                Some(z) => z.before(&target, spec, &r.repeat, spec.span, ctx.observer)?,
                None => None,
            };
            let mut samples = match (&zfs, &mut zfs_read) {
                (Some(z), Some(read)) if read.method == ReadMethod::ExportEachRun => {
                    let mut samples = runner.run_job_apart(spec, &r.repeat, &mut || {
                        z.between_runs(&target, read, &crate::targets::zfs::LiveZpool, &super::cold::drop_caches)
                    })?;
                    let bytes: Vec<u64> = samples.runs.iter().map(|run| run.read.bytes).collect();
                    if let Some(wrapped) = crate::judge::zfs::wrapped_run(read, &bytes, spec.span) {
                        *read = wrapped;
                    }
                    samples.zfs_read = None;
                    samples
                }
                _ => runner.run_job(spec, &r.repeat)?,
            };
            samples.zfs_read = zfs_read;
            jobs.push(summary::job_report(&samples, target.facts(), cpus));
            ctx.stop.check()?;
        }
        Ok(())
    })?;
    // A write's flush, against the same target's reads in this run; a run
    // that only wrote reads for its bound first (not on ZFS: the ARC
    // would answer; not once the run was cut short).
    let reference = match (summary::flush::reference_extent(&jobs, &target.info), specs.first()) {
        (Some((offset, span)), Some(first)) if zfs.is_none() && cut.interrupted.is_none() && cut.failed.is_none() => {
            // A reference that fails gives no bound, one interrupted neither
            // (the run is then marked so); the jobs stand either way.
            match runner.run_aside(&JobSpec::flush_reference(offset, span, first.engine)) {
                Ok(samples) => Some(summary::job_report(&samples, target.facts(), cpus)),
                Err(crate::base::error::Error::Interrupted(sig)) => {
                    cut.interrupted = Some(sig);
                    None
                }
                Err(_) => None,
            }
        }
        _ => None,
    };
    summary::flush::judge_flushes(&mut jobs, &target.info, reference.as_ref());
    let info = target.info.clone();
    drop(target); // closes (and so removes) the test file before the result is handed on (unless abandoned)
    Ok(Measured {
        command: if r.suite.is_some() { "run" } else { "job" },
        target: info,
        settings: Settings::of(&r.repeat, r.suite.clone(), r.timing()),
        body: Body::Jobs(jobs),
        interrupted: cut.interrupted,
        failed: cut.failed,
    })
}
