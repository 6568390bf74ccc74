//! `run --suite files|git`: the built-in application workloads, each run
//! `--runs` times with cold caches (as root), phases reported in seconds.

use super::bench::{check_json_path, cpus, deliver, dir_target, host};
use super::*;
use crate::experiment::apps::{Meter, PhaseSamples, files, git};

pub(super) fn app_suite(a: &RunArgs, db: &std::path::Path) -> Result<()> {
    let c = &a.common;
    check_json_path(&c.out)?;
    let dir = &a.target;
    if !dir.is_dir() {
        return Err(usage(format!(
            "the {} suite needs a directory to work in; {} is not one",
            a.suite.as_str(),
            dir.display()
        )));
    }
    let cold = crate::experiment::apps::can_drop_caches();
    if !cold {
        eprintln!(
            "iolab: WARNING: not root, so the caches cannot be emptied between phases: every phase is measured WARM (labelled warm); run as root for cold figures"
        );
    }
    let stop = Stop::install();
    let meter = Meter::for_dir(dir, &stop);
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}")
            .unwrap()
            .progress_chars("=> "),
    );
    let progress = |phase: &str, done: u64, total: u64| {
        bar.set_length(total);
        bar.set_position(done);
        bar.set_message(phase.to_string());
    };
    let started_at = units::now_rfc3339();
    let mut runs: Vec<Vec<PhaseSamples>> = Vec::new();
    let mut interrupted = None;
    for k in 0..c.runs {
        if k > 0 && !c.interval.is_zero() {
            stop.sleep(c.interval);
        }
        let r = match a.suite {
            SuiteName::Files => files::run(
                dir,
                &files::FilesOpts {
                    files: a.files,
                    seed: 0x0f11_e5ed,
                    cold,
                },
                &meter,
                &progress,
            ),
            _ => git::run(
                dir,
                &git::GitOpts {
                    commits: a.commits,
                    files: GIT_FILES,
                    seed: 0x6177_5eed,
                    cold,
                },
                &meter,
                &progress,
            ),
        };
        match r {
            Ok(p) => runs.push(p),
            Err(Error::Interrupted(sig)) => {
                interrupted = Some(sig);
                break;
            }
            Err(e) => {
                bar.finish_and_clear();
                return Err(e);
            }
        }
    }
    bar.finish_and_clear();
    let params: Vec<(String, u64)> = match a.suite {
        SuiteName::Files => vec![("files".into(), a.files)],
        _ => vec![("commits".into(), a.commits as u64), ("files".into(), GIT_FILES as u64)],
    };
    let section = summary::apps::app_report(a.suite.as_str(), cold, params, &runs);
    let sys = SysRoot::default();
    let cpus = cpus();
    let devices = crate::device::device_of_path(&sys, dir)
        .map(|(ma, mi)| crate::device::chain_for_dev(&sys, ma, mi))
        .unwrap_or_default();
    let report = Report {
        run_id: None,
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "run".into(),
        started_at,
        host: host(cpus),
        target: dir_target(&sys, dir, devices),
        settings: Settings {
            runs: c.runs,
            warmup_s: 0.0,
            interval_s: c.interval.as_secs_f64(),
            suite: Some(a.suite.as_str().into()),
            steady_state: None,
        },
        jobs: Vec::new(),
        interrupted: interrupted.is_some(),
        scan: None,
        scale: None,
        time: None,
        app: Some(section),
    };
    deliver(report, &c.out, db, interrupted)
}

/// Files in the generated repository's tree (a mid-size source tree).
const GIT_FILES: u32 = 3000;
