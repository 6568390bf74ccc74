//! Arguments → experiments: one function per measuring command, nothing
//! but mapping (every rule is checked by the library).

use super::args::*;
use crate::config::Config;
use crate::error::{Result, usage};
use crate::experiment::Experiment;
use crate::experiment::apps::{AppRequest, Workload};
use crate::experiment::capacity::CapacityRequest;
use crate::experiment::jobs::JobsRequest;
use crate::experiment::scale::{GivenLayout, ScaleRequest};
use crate::experiment::scan::ScanRequest;
use crate::experiment::time::TimeRequest;
use crate::experiment::verify::VerifyRequest;
use crate::judge::capacity::EarlierVerify;
use crate::judge::scale::Layout;
use crate::plan::scale::ScalePlan;
use crate::plan::scan::ZoneAmount;
use crate::plan::{Common, JobSpec, Limit, SuiteChoice, SuiteName};
use crate::target::Choice;
use std::path::{Path, PathBuf};

/// `iolab run`: a built-in suite, or a user suite of `config`.
pub(super) fn run(a: &RunArgs, config: Option<&Config>) -> Result<Experiment> {
    let c = &a.common;
    let common = Common {
        limit: Limit::Time(c.duration()),
        span: 0,
        direct: !c.target.buffered,
        engine: c.target.engine.kind(),
        mix_read: c.mix_read,
        timing: c.latency,
        transfers: a.bs.clone(),
    };
    let suite = match &a.suite {
        SuiteChoice::BuiltIn(s) => *s,
        SuiteChoice::User(name) => {
            let user = config
                .and_then(|cfg| cfg.suite(name))
                .ok_or_else(|| usage(super::settings::unknown_suite_message(name, config)))?;
            let mut req = JobsRequest::user_suite(user, &common, choice(&a.target, &c.target, &a.errors), c.repeat())?;
            req.via_fio = c.target.engine.via_fio();
            return Ok(Experiment::Jobs(req));
        }
    };
    let exp = if suite.is_app() {
        iolab_engine(c.target.engine, &format!("run --suite {}", suite.as_str()))?;
        if a.errors.continue_on_error {
            return Err(usage(format!(
                "--continue-on-error applies to suites of jobs; the {} suite is an application workload, which stops at its first error",
                suite.as_str()
            )));
        }
        Experiment::App(AppRequest {
            workload: match suite {
                SuiteName::Files => Workload::Files { files: a.files },
                _ => Workload::Git { commits: a.commits },
            },
            dir: a.target.clone(),
            // An application workload is timed whole: `auto` runs it its fewest times.
            runs: c.runs.min(),
            interval: c.interval.before_next(true),
        })
    } else {
        let mut req = JobsRequest::suite(suite, &common, choice(&a.target, &c.target, &a.errors), c.repeat())?;
        req.via_fio = c.target.engine.via_fio();
        Experiment::Jobs(req)
    };
    Ok(exp)
}

/// `iolab job`.
pub(super) fn job(a: &JobArgs) -> Result<Experiment> {
    let c = &a.common;
    let limit = a.bytes.map(Limit::Bytes).unwrap_or(Limit::Time(c.duration()));
    let mut spec = JobSpec::custom(
        a.rw,
        a.bs,
        a.qd,
        a.threads,
        c.mix_read,
        limit,
        !c.target.buffered,
        c.target.engine.kind(),
    );
    spec.timing = c.latency;
    let exp = Experiment::Jobs(JobsRequest {
        suite: None,
        // No TARGET (only with --hosts): an empty path, for the hosts that name their own.
        target: choice(a.target.as_deref().unwrap_or(Path::new("")), &c.target, &a.errors),
        jobs: vec![spec],
        repeat: c.repeat(),
        via_fio: c.target.engine.via_fio(),
    });
    Ok(exp)
}

/// `iolab scan`.
/// `--engine fio` runs jobs (run, job) only.
fn iolab_engine(e: EngineArg, command: &str) -> Result<()> {
    if e.via_fio() {
        return Err(usage(format!(
            "--engine fio runs `run` and `job`; `{command}` needs iolab's engines (io_uring or psync)"
        )));
    }
    Ok(())
}

pub(super) fn scan(a: &ScanArgs) -> Result<Experiment> {
    iolab_engine(a.target_args.engine, "scan")?;
    let exp = Experiment::Scan(ScanRequest {
        target: choice(&a.target, &a.target_args, &a.errors),
        zones: a.zones,
        amount: match a.zone_time {
            Some(d) => ZoneAmount::Time(d),
            None => ZoneAmount::Window(a.window),
        },
        bs: a.bs,
        qd: a.qd,
        from: a.from,
        to: a.to,
        write: a.write,
        access: a.access,
        zone_warmup: a.zone_warmup,
        burst: !a.no_burst,
        engine: a.target_args.engine.kind(),
    });
    Ok(exp)
}

/// `iolab verify`.
pub(super) fn verify(a: &VerifyArgs) -> Result<Experiment> {
    Ok(Experiment::Verify(VerifyRequest {
        target: Choice {
            path: a.target.clone(),
            size: a.size,
            buffered: a.buffered,
            allow_destroy: a.allow_destroy,
            force: a.force,
            continue_on_error: false,
        },
        bs: a.bs,
        zones: a.zones,
        cold_wait: a.cold_wait,
    }))
}

/// `iolab scale`.
pub(super) fn scale(a: &ScaleArgs) -> Result<Experiment> {
    let c = &a.common;
    iolab_engine(c.target.engine, "scale")?;
    let exp = Experiment::Scale(ScaleRequest {
        targets: a.targets.iter().map(|p| choice(p, &c.target, &NO_CONTINUE)).collect(),
        member: a.vs.as_ref().map(|p| choice(p, &c.target, &NO_CONTINUE)),
        layout: a.layout.map(|l| GivenLayout {
            layout: match l {
                LayoutArg::Single => Layout::Single,
                LayoutArg::Raid0 => Layout::Raid0,
                LayoutArg::Raid1 => Layout::Raid1,
                LayoutArg::Raid10 => Layout::Raid10,
            },
            members: a.members.unwrap_or(2),
            copies: a.copies,
        }),
        plan: ScalePlan {
            rw: a.rw,
            bs: a.bs,
            mix_read: c.mix_read,
            qd_sweep: a.qd_sweep.clone(),
            threads_sweep: a.threads_sweep.clone(),
            qd: a.qd,
            threads: a.threads,
            limit: Limit::Time(c.duration()),
            repeat: c.repeat(),
            direct: !c.target.buffered,
            engine: c.target.engine.kind(),
            timing: c.latency,
        },
    });
    Ok(exp)
}

/// `iolab time`.
pub(super) fn time(a: &TimeArgs) -> Result<Experiment> {
    let exp = Experiment::Time(TimeRequest {
        command: a.command.clone(),
        cold: a.cold,
        runs: a.runs,
        warmup: a.warmup,
        prepare: a.prepare.clone(),
        cleanup: a.cleanup.clone(),
        cwd: a.cwd.clone(),
        device: a.device.clone(),
        show_output: a.show_output,
        ignore_failure: a.ignore_failure,
    });
    Ok(exp)
}

/// `iolab capacity`: the stored verify runs (`earlier`) veto "genuine" on
/// their device; `backup_dir` is where the saved blocks go.
pub(super) fn capacity(a: &CapacityArgs, earlier: Vec<EarlierVerify>, backup_dir: PathBuf) -> Result<Experiment> {
    let device = a.device.clone().ok_or_else(|| usage("capacity needs a DEVICE"))?;
    Ok(Experiment::Capacity(CapacityRequest {
        device,
        allow_destroy: a.allow_destroy,
        force: a.force,
        granularity: a.granularity,
        backup_dir,
        earlier,
    }))
}

/// `scale` stops at the first failed I/O: a sweep point with failures has no meaning.
const NO_CONTINUE: ErrorArgs = ErrorArgs { continue_on_error: false };

/// The target as given on the command line.
fn choice(path: &Path, t: &TargetArgs, e: &ErrorArgs) -> Choice {
    Choice {
        path: path.to_path_buf(),
        size: t.size,
        buffered: t.buffered,
        allow_destroy: t.allow_destroy,
        force: t.force,
        continue_on_error: e.continue_on_error,
    }
}
