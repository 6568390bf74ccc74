//! Arguments → experiments: one function per measuring command, nothing
//! but mapping (every rule is checked by the library).

use super::args::*;
use crate::base::error::{Result, usage};
use crate::config::Config;
use crate::experiment::Experiment;
use crate::experiment::apps::AppRequest;
use crate::experiment::capacity::CapacityRequest;
use crate::experiment::flush::{FlushRequest, FlushRun, LogPlace};
use crate::experiment::jobs::JobsRequest;
use crate::experiment::scale::{GivenLayout, ScaleRequest};
use crate::experiment::scan::ScanRequest;
use crate::experiment::time::TimeRequest;
use crate::experiment::verify::VerifyRequest;
use crate::io::engine::EngineKind;
use crate::judge::capacity::EarlierVerify;
use crate::judge::scale::Layout;
use crate::plan::scale::ScalePlan;
use crate::plan::scan::ZoneAmount;
use crate::plan::{Common, Custom, JobSpec, Limit, SuiteChoice};
use crate::targets::Choice;
use std::path::{Path, PathBuf};

/// `iolab run`: a built-in suite, or a user suite of `config`.
pub(super) fn run(a: &RunArgs, config: Option<&Config>) -> Result<Experiment> {
    let what = SuiteRequest {
        suite: &a.suite,
        bs: &a.bs,
        files: a.files,
        commits: a.commits,
        full: a.full,
    };
    suite_experiment(&what, &a.target, &a.common, &a.errors, &a.zfs, config)
}

/// What `run` and `layouts` are asked to run.
struct SuiteRequest<'a> {
    suite: &'a SuiteChoice,
    bs: &'a [u64],
    files: u64,
    commits: u32,
    /// `--full`: the sdcard suite over the whole device.
    full: bool,
}

/// A suite on `target`: jobs, or an application workload.
fn suite_experiment(
    a: &SuiteRequest,
    target: &Path,
    c: &CommonArgs,
    errors: &ErrorArgs,
    zfs: &ZfsArgs,
    config: Option<&Config>,
) -> Result<Experiment> {
    let common = Common {
        limit: Limit::Time(c.duration()),
        span: 0,
        direct: !c.target.buffered,
        engine: c.target.engine.kind(),
        mix_read: c.mix_read,
        timing: c.latency,
        transfers: a.bs.to_vec(),
    };
    let region = a.suite.region(a.full).map_err(usage)?;
    let suite = match a.suite {
        SuiteChoice::BuiltIn(s) => *s,
        SuiteChoice::User(name) => {
            let user = config
                .and_then(|cfg| cfg.suite(name))
                .ok_or_else(|| usage(crate::config::unknown_suite_message(name, config)))?;
            let mut req = JobsRequest::user_suite(user, &common, choice(target, &c.target, errors, zfs), c.repeat())?;
            req.via_fio = c.target.engine.via_fio();
            return Ok(Experiment::Jobs(req));
        }
    };
    if suite.is_app() {
        iolab_engine(c.target.engine, &format!("run --suite {}", suite.as_str()))?;
        return Ok(Experiment::App(AppRequest::suite(
            suite,
            target.to_path_buf(),
            a.files,
            a.commits,
            &c.repeat(),
            errors.continue_on_error,
            zfs.allow_export,
        )?));
    }
    let mut req = JobsRequest::suite(suite, &common, choice(target, &c.target, errors, zfs), c.repeat())?;
    req.via_fio = c.target.engine.via_fio();
    req.region = region;
    Ok(Experiment::Jobs(req))
}

/// `iolab layouts`: what runs on each configuration (aimed at each one's
/// directory by the runner): `--suite`, or by default the sustained suite's
/// writes and then the default battery, as one list of jobs.
pub(super) fn layouts_workload(a: &LayoutsArgs, config: Option<&Config>) -> Result<Experiment> {
    let one = |suite: &SuiteChoice| {
        let what = SuiteRequest {
            suite,
            bs: &a.bs,
            files: a.files,
            commits: a.commits,
            full: false,
        };
        suite_experiment(&what, Path::new("/"), &a.common, &NO_CONTINUE, &NO_EXPORT, config)
    };
    if a.suite.is_some() && a.job_typed {
        return Err(usage(
            "layouts: --suite and the job options (--rw, --qd, --threads, --bytes, --sync) each say what runs on every configuration: give one",
        ));
    }
    if let Some(s) = &a.suite {
        return one(s);
    }
    if a.job_typed {
        // The job of `iolab job`, once per --bs (4k, as there, without it).
        let c = &a.common;
        let sizes = if a.bs.is_empty() { vec![JOB_BS] } else { a.bs.clone() };
        return Ok(Experiment::Jobs(JobsRequest {
            suite: None,
            target: choice(Path::new("/"), &c.target, &NO_CONTINUE, &NO_EXPORT),
            jobs: sizes.into_iter().map(|bs| job_spec(&a.job, bs, c)).collect(),
            repeat: c.repeat(),
            via_fio: c.target.engine.via_fio(),
            region: Default::default(),
        }));
    }
    let (Experiment::Jobs(mut all), Experiment::Jobs(battery)) = (
        one(&SuiteChoice::BuiltIn(crate::plan::SuiteName::Sustained))?,
        one(&SuiteChoice::BuiltIn(crate::plan::SuiteName::Default))?,
    ) else {
        unreachable!("both are suites of jobs")
    };
    all.jobs.extend(battery.jobs);
    all.suite = Some("sustained+default".into());
    Ok(Experiment::Jobs(all))
}

/// The time estimate's view of a layouts workload: its tests and the
/// longest one takes (warm-up, the most runs, the rest after a write).
pub(super) fn layouts_estimate(exp: &Experiment, c: &CommonArgs) -> crate::plan::layouts::Workload {
    let tests = match exp {
        Experiment::Jobs(r) => r.jobs.len() as u32,
        // The app suites' phases, each run as often as --runs says.
        _ => 4,
    };
    let repeat = c.repeat();
    crate::plan::layouts::Workload {
        tests,
        per_test: repeat.warmup + c.duration() * repeat.runs.max() + crate::plan::AUTO_REST,
    }
}

/// What runs on each configuration, in words, for the dry run: the suite
/// and its tests, or the job(s) given with `iolab job`'s options.
pub(super) fn layouts_runs(exp: &Experiment) -> String {
    match exp {
        Experiment::Jobs(r) => {
            let names: Vec<&str> = r.jobs.iter().map(|j| j.name.as_str()).collect();
            let n = names.len();
            let what = match &r.suite {
                Some(s) => format!("suite {s}, "),
                None => String::new(),
            };
            format!("{what}{n} test{}: {}", if n == 1 { "" } else { "s" }, names.join(", "))
        }
        Experiment::App(r) => match r.workload {
            crate::experiment::apps::Workload::Files { files } => format!("the files suite ({files} files)"),
            crate::experiment::apps::Workload::Git { commits } => format!("the git suite ({commits} commits)"),
        },
        _ => "jobs".into(),
    }
}

/// `iolab job`.
pub(super) fn job(a: &JobArgs) -> Result<Experiment> {
    let c = &a.common;
    Ok(Experiment::Jobs(JobsRequest {
        suite: None,
        // No TARGET (only with --hosts): an empty path, for the hosts that name their own.
        target: choice(a.target.as_deref().unwrap_or(Path::new("")), &c.target, &a.errors, &a.zfs),
        jobs: vec![job_spec(&a.job, a.bs, c)],
        repeat: c.repeat(),
        via_fio: c.target.engine.via_fio(),
        region: Default::default(),
    }))
}

/// The job of `iolab job`'s options (`layouts` takes them too), at `bs`.
fn job_spec(j: &JobShape, bs: u64, c: &CommonArgs) -> JobSpec {
    let limit = j.bytes.map(Limit::Bytes).unwrap_or(Limit::Time(c.duration()));
    let mut spec = JobSpec::custom(Custom {
        rw: j.rw,
        bs,
        qd: j.qd,
        threads: j.threads,
        mix_read: c.mix_read,
        limit,
        direct: !c.target.buffered,
        engine: c.target.engine.kind(),
    });
    spec.timing = c.latency;
    spec.with_sync(j.sync)
}

/// `--engine fio` runs jobs (run, job) only.
fn iolab_engine(e: EngineArg, command: &str) -> Result<()> {
    if e.via_fio() {
        return Err(usage(format!(
            "--engine fio runs `run` and `job`; `{command}` needs iolab's engines ({})",
            EngineKind::names()
        )));
    }
    Ok(())
}

/// `iolab scan`.
pub(super) fn scan(a: &ScanArgs) -> Result<Experiment> {
    iolab_engine(a.target_args.engine, "scan")?;
    Ok(Experiment::Scan(ScanRequest {
        target: choice(&a.target, &a.target_args, &a.errors, &a.zfs),
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
    }))
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
            allow_export: false,
        },
        bs: a.bs,
        zones: a.zones,
        cold_wait: a.cold_wait,
    }))
}

/// `iolab flush`: a write run, or with `--check` the check of its log.
pub(super) fn flush(a: &FlushArgs) -> Result<Experiment> {
    let path = a
        .target
        .clone()
        .ok_or_else(|| usage("flush needs the DEVICE it writes or checks"))?;
    let log = match (&a.log_host, &a.log) {
        (Some(h), _) => LogPlace::Host(h.clone()),
        (None, Some(f)) => LogPlace::File(f.clone()),
        (None, None) => return Err(usage("flush needs --log FILE or --log-host HOST:PORT")),
    };
    Ok(Experiment::Flush(FlushRequest {
        target: Choice {
            path,
            size: a.size,
            buffered: false,
            allow_destroy: a.allow_destroy,
            force: a.force,
            continue_on_error: false,
            allow_export: false,
        },
        log,
        run: if a.check {
            FlushRun::Check
        } else {
            FlushRun::Write {
                generations: a.generations,
                batch: a.batch,
            }
        },
    }))
}

/// `iolab scale`.
pub(super) fn scale(a: &ScaleArgs) -> Result<Experiment> {
    let c = &a.common;
    iolab_engine(c.target.engine, "scale")?;
    Ok(Experiment::Scale(ScaleRequest {
        targets: a.targets.iter().map(|p| choice(p, &c.target, &NO_CONTINUE, &NO_EXPORT)).collect(),
        member: a.vs.as_ref().map(|p| choice(p, &c.target, &NO_CONTINUE, &NO_EXPORT)),
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
    }))
}

/// `iolab time`.
pub(super) fn time(a: &TimeArgs) -> Result<Experiment> {
    Ok(Experiment::Time(TimeRequest {
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
        allow_export: a.zfs.allow_export,
    }))
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

/// `scale` leaves ZFS pools alone: its targets are measured together.
const NO_EXPORT: ZfsArgs = ZfsArgs { allow_export: false };

/// The target as given on the command line.
fn choice(path: &Path, t: &TargetArgs, e: &ErrorArgs, z: &ZfsArgs) -> Choice {
    Choice {
        path: path.to_path_buf(),
        size: t.size,
        buffered: t.buffered,
        allow_destroy: t.allow_destroy,
        force: t.force,
        continue_on_error: e.continue_on_error,
        allow_export: z.allow_export,
    }
}

/// `iolab layouts`: the request its plan is made from.
pub fn layouts(a: &LayoutsArgs) -> crate::plan::layouts::Request {
    crate::plan::layouts::Request {
        devices: a.devices.clone(),
        names: a.names.clone(),
        each: a.each,
        zfs: a.zfs.clone(),
        mount_options: a.mount_options.clone(),
    }
}
