//! `time`: a real command timed with cold caches and device I/O, with a
//! live view of the elapsed time and the device's current rate.

use super::bench::{check_json_path, cpus, deliver, dir_target, host};
use super::*;
use crate::experiment::time::{self as timecmd, TimeOpts};

#[derive(Args, Debug)]
pub(super) struct TimeArgs {
    /// Empty the caches before each run (sync, then drop_caches; needs root)
    #[arg(long)]
    cold: bool,
    /// Measured runs
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    runs: u32,
    /// Runs before the measured ones, not counted
    #[arg(long, default_value_t = 0)]
    warmup: u32,
    /// Shell command run before each run, untimed (e.g. `git reset --hard X`, a snapshot rollback)
    #[arg(long, value_name = "CMD")]
    prepare: Option<String>,
    /// Shell command run after each run, untimed
    #[arg(long, value_name = "CMD")]
    cleanup: Option<String>,
    /// Directory the command runs in (default: the current one); its devices are measured
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Measure this block device instead of the ones under the working directory
    #[arg(long, value_name = "DEV")]
    device: Option<PathBuf>,
    /// Let the command's stdout and stderr through (default: discarded)
    #[arg(long)]
    show_output: bool,
    /// Keep timing when the command exits non-zero
    #[arg(long)]
    ignore_failure: bool,
    #[command(flatten)]
    out: OutputArgs,
    /// The command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub(super) fn time(a: &TimeArgs, db: &std::path::Path) -> Result<()> {
    check_json_path(&a.out)?;
    let cwd = match &a.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| failed(format!("cannot read the current directory: {e}")))?,
    };
    if !cwd.is_dir() {
        return Err(usage(format!("{} is not a directory", cwd.display())));
    }
    let sys = SysRoot::default();
    let devs = match &a.device {
        Some(d) => {
            use std::os::unix::fs::{FileTypeExt, MetadataExt};
            let md = std::fs::metadata(d).map_err(|e| usage(format!("cannot access {}: {e}", d.display())))?;
            if !md.file_type().is_block_device() {
                return Err(usage(format!("{} is not a block device", d.display())));
            }
            crate::device::chain_for_dev(&sys, rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev()))
        }
        None => crate::device::device_of_path(&sys, &cwd)
            .map(|(ma, mi)| crate::device::chain_for_dev(&sys, ma, mi))
            .unwrap_or_default(),
    };
    let opts = TimeOpts {
        command: a.command.clone(),
        cold: a.cold,
        runs: a.runs,
        warmup: a.warmup,
        prepare: a.prepare.clone(),
        cleanup: a.cleanup.clone(),
        cwd: cwd.clone(),
        devices: devs.iter().map(|d| d.name.clone()).collect(),
        show_output: a.show_output,
        ignore_failure: a.ignore_failure,
    };
    let stop = Stop::install();
    let started_at = units::now_rfc3339();
    let live = LiveCommand::new(opts.devices.first().cloned());
    let samples = timecmd::run(&opts, &stop, &live);
    live.bar.finish_and_clear();
    let samples = samples?;
    let section = summary::apps::time_report(&opts, &samples.runs);
    let cpus = cpus();
    let report = Report {
        run_id: None,
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "time".into(),
        started_at,
        host: host(cpus),
        target: dir_target(&sys, &cwd, devs),
        settings: Settings {
            runs: a.runs,
            warmup_s: 0.0,
            interval_s: 0.0,
            suite: None,
            steady_state: None,
        },
        jobs: Vec::new(),
        interrupted: samples.interrupted.is_some(),
        scan: None,
        scale: None,
        time: Some(section),
        app: None,
    };
    deliver(report, &a.out, db, samples.interrupted)
}

/// The live view: which run, elapsed time, the device's current MB/s
/// (the `zpool iostat` seed 004's author watched).
struct LiveCommand {
    bar: ProgressBar,
    device: Option<String>,
}

impl LiveCommand {
    fn new(device: Option<String>) -> LiveCommand {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").unwrap());
        LiveCommand { bar, device }
    }
}

impl Observer for LiveCommand {
    fn event(&self, ev: Event<'_>) {
        if let Event::Command {
            label,
            elapsed,
            device_bps,
        } = ev
        {
            let dev = match (&self.device, device_bps) {
                (Some(d), Some(b)) => format!(" · {d} {:.1} MB/s", b / 1e6),
                _ => String::new(),
            };
            self.bar.set_message(format!("{label} · {:.1} s{dev}", elapsed.as_secs_f64()));
            self.bar.tick();
        }
    }
}
