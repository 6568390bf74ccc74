//! `run` and `job`: open the target, run the jobs with a progress bar,
//! keep the result, print the table or JSON.

use super::*;

pub(super) fn bench(
    command: &str,
    path: &std::path::Path,
    suite: Option<SuiteName>,
    mut specs: Vec<JobSpec>,
    c: &CommonArgs,
    db: &std::path::Path,
) -> Result<()> {
    let stop = Stop::install();
    let ui = Ui::new();
    let max_bs = specs.iter().map(|s| s.bs).max().unwrap_or(4096);
    let req = open_request(path, &c.target, specs.iter().any(|s| s.rw.writes()), max_bs);
    check_json_path(&c.out)?;
    let sys = SysRoot::default();
    let started_at = units::now_rfc3339();
    let target = open_target(&req, &sys, &stop, &ui)?;
    check_alignment(&target, specs.iter().map(|s| s.bs))?;
    for s in &mut specs {
        s.span = target.span();
    }
    let repeat = c.repeat();
    ui.start(&specs, &repeat);
    let runner = Runner {
        target: &target,
        stop: &stop,
        observer: &ui,
        sys,
    };
    let cpus = cpus();
    let mut jobs = Vec::new();
    let mut interrupted = None;
    for (i, spec) in specs.iter().enumerate() {
        if i > 0 && !repeat.interval.is_zero() {
            ui.event(Event::Interval { planned: repeat.interval });
            stop.sleep(repeat.interval);
        }
        match runner.run_job(spec, &repeat) {
            Ok(j) => jobs.push(summary::job_report(&j, &target, cpus)),
            Err(Error::Interrupted(sig)) => {
                interrupted = Some(sig);
                break;
            }
            Err(e) => {
                ui.finish();
                return Err(e);
            }
        }
        if let Some(sig) = stop.signal() {
            interrupted = Some(sig);
            break;
        }
    }
    ui.finish();
    let report = Report {
        run_id: None,
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: command.to_string(),
        started_at,
        host: host(cpus),
        target: target.info.clone(),
        settings: Settings {
            runs: repeat.runs,
            warmup_s: repeat.warmup.as_secs_f64(),
            interval_s: repeat.interval.as_secs_f64(),
            suite: suite.map(|s| s.as_str().to_string()),
            steady_state: repeat.steady,
        },
        jobs,
        interrupted: interrupted.is_some(),
        scan: None,
        scale: None,
        time: None,
        app: None,
    };
    drop(target); // closes (and so removes) the test file before we report
    deliver(report, &c.out, db, interrupted)
}

pub(super) fn open_request(path: &std::path::Path, t: &TargetArgs, write: bool, max_bs: u64) -> OpenRequest {
    OpenRequest {
        path: path.to_path_buf(),
        size: t.size,
        write,
        allow_destroy: t.allow_destroy,
        force: t.force,
        buffered: t.buffered,
        max_bs,
    }
}

/// Validate what can be validated before touching the target.
pub(super) fn check_json_path(out: &OutputArgs) -> Result<()> {
    if let Some(p) = out.json.as_deref().filter(|p| *p != "-") {
        let parent = std::path::Path::new(p).parent().filter(|d| !d.as_os_str().is_empty());
        if parent.is_some_and(|d| !d.is_dir()) {
            return Err(usage(format!("cannot write JSON to {p}: its directory does not exist")));
        }
    }
    Ok(())
}

/// Open the target with a prefill bar, and say loudly when O_DIRECT was refused.
pub(super) fn open_target(req: &OpenRequest, sys: &SysRoot, stop: &Stop, ui: &Ui) -> Result<target::Target> {
    let target = target::open(req, sys, stop, &|done, total| ui.prefill(done, total))?;
    ui.prefill_done();
    if target.direct_fallback {
        eprintln!(
            "iolab: WARNING: {} does not support O_DIRECT; falling back to BUFFERED I/O. Results are labelled direct: false; the page cache is dropped before every read pass.",
            req.path.display()
        );
    }
    Ok(target)
}

/// With O_DIRECT every transfer must be a multiple of the device's logical block size.
pub(super) fn check_alignment(target: &target::Target, sizes: impl Iterator<Item = u64>) -> Result<()> {
    if target.direct()
        && let Some(d) = target.info.devices.first()
    {
        for bs in sizes {
            if bs % d.logical_block_size as u64 != 0 {
                return Err(usage(format!(
                    "block size {} is not a multiple of {}'s logical block size ({})",
                    fmt_bs(bs),
                    d.name,
                    d.logical_block_size
                )));
            }
        }
    }
    Ok(())
}

/// The target of a workload that runs in a directory through its
/// filesystem (no test file, no span, no O_DIRECT): `time` and the app suites.
pub(super) fn dir_target(sys: &SysRoot, dir: &std::path::Path, devices: Vec<crate::device::BlockDev>) -> target::TargetInfo {
    target::TargetInfo {
        path: std::fs::canonicalize(dir).unwrap_or(dir.to_path_buf()).display().to_string(),
        kind: target::Kind::Directory,
        test_file: false,
        span_bytes: 0,
        direct: false,
        filesystem: crate::device::filesystem_of(sys, dir),
        devices,
        info: crate::device::describe(sys, dir).ok(),
    }
}

pub(super) fn cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Keep the run (or the part that finished), then print it: JSON where asked,
/// the table otherwise. A store that cannot be opened must not cost the user
/// the measurement: say so and print it anyway.
pub(super) fn deliver(mut report: Report, out: &OutputArgs, db: &std::path::Path, interrupted: Option<i32>) -> Result<()> {
    let has_results = !report.jobs.is_empty()
        || report.time.as_ref().is_some_and(|t| !t.runs.is_empty())
        || report.app.as_ref().is_some_and(|a| a.runs > 0);
    if !out.no_store && has_results {
        match Store::open(db).and_then(|mut s| s.save(&report, out.label.as_deref(), &out.tag, interrupted.is_none())) {
            Ok(id) => {
                report.run_id = Some(id);
                eprintln!("iolab: stored as run {id} in {}", db.display());
            }
            Err(e) => eprintln!("iolab: WARNING: the run was not stored: {e}"),
        }
    }
    let json_to_stdout = out.json.as_deref() == Some("-");
    let mut stdout = std::io::stdout().lock();
    match out.json.as_deref() {
        Some("-") => render::json(&report, &mut stdout).map_err(|e| failed(format!("writing JSON: {e}")))?,
        Some(p) => {
            let mut f = std::fs::File::create(p).map_err(|e| failed(format!("cannot write JSON to {p}: {e}")))?;
            render::json(&report, &mut f).map_err(|e| failed(format!("writing JSON to {p}: {e}")))?;
        }
        None => {}
    }
    if !json_to_stdout {
        write!(stdout, "{}", render::table(&report)).map_err(|e| failed(format!("writing output: {e}")))?;
    } else {
        for j in &report.jobs {
            for w in &j.warnings {
                eprintln!("iolab: warning [{}] {}: {}", w.code, j.name, w.message);
            }
        }
        let extra = report
            .time
            .iter()
            .flat_map(|t| &t.warnings)
            .chain(report.app.iter().flat_map(|a| &a.warnings));
        for w in extra {
            eprintln!("iolab: warning [{}]: {}", w.code, w.message);
        }
    }
    match interrupted {
        Some(sig) => Err(Error::Interrupted(sig)),
        None => Ok(()),
    }
}

pub(super) fn host(cpus: usize) -> Host {
    let u = rustix::system::uname();
    Host {
        hostname: u.nodename().to_string_lossy().into_owned(),
        kernel: u.release().to_string_lossy().into_owned(),
        cpus,
    }
}

/// Progress on stderr (hidden when stderr is not a terminal).
pub(super) struct Ui {
    prefill: ProgressBar,
    bar: ProgressBar,
    /// Planned milliseconds completed before the current step.
    done_ms: Cell<u64>,
    /// Planned milliseconds of the current step.
    step_ms: Cell<u64>,
}

impl Ui {
    pub(super) fn new() -> Ui {
        let prefill = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        prefill.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}")
                .unwrap()
                .progress_chars("=> "),
        );
        prefill.set_message("prefilling test file");
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("[{elapsed_precise}] [{bar:30}] {percent}% ETA {eta} {msg}")
                .unwrap()
                .progress_chars("=> "),
        );
        Ui {
            prefill,
            bar,
            done_ms: Cell::new(0),
            step_ms: Cell::new(0),
        }
    }
    pub(super) fn prefill(&self, done: u64, total: u64) {
        self.prefill.set_length(total);
        self.prefill.set_position(done);
    }
    pub(super) fn prefill_done(&self) {
        self.prefill.finish_and_clear();
    }
    fn start(&self, specs: &[JobSpec], r: &Repeat) {
        let per_run = |s: &JobSpec| match s.limit {
            Limit::Time(d) => d,
            Limit::Bytes(_) | Limit::Span => Duration::from_secs(1),
        };
        let total: Duration = specs
            .iter()
            .map(|s| r.warmup + per_run(s) * r.runs + r.interval * r.runs.saturating_sub(1))
            .sum::<Duration>()
            + r.interval * (specs.len() as u32).saturating_sub(1);
        self.bar.set_length(total.as_millis() as u64);
    }
    fn advance(&self, next_ms: u64) {
        self.done_ms.set(self.done_ms.get() + self.step_ms.get());
        self.step_ms.set(next_ms);
        self.bar.set_position(self.done_ms.get());
    }
    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Ui {
    fn event(&self, ev: Event<'_>) {
        match ev {
            Event::Prefill { done, total } => self.prefill(done, total),
            Event::PassStart { job, pass, planned } => {
                self.advance(planned.map(|d| d.as_millis() as u64).unwrap_or(1000));
                let what = match pass {
                    Pass::Warmup => "warm-up".to_string(),
                    Pass::Run { n, of } => format!("run {n}/{of}"),
                };
                self.bar.set_message(format!("{job} · {what}"));
            }
            Event::Tick { elapsed } => {
                let e = (elapsed.as_millis() as u64).min(self.step_ms.get());
                self.bar.set_position(self.done_ms.get() + e);
            }
            Event::Interval { planned } => {
                self.advance(planned.as_millis() as u64);
                self.bar.set_message(format!("pause {}", fmt_duration(planned)));
            }
            Event::JobDone { .. } | Event::ZoneDone { .. } | Event::PointDone { .. } | Event::Command { .. } | Event::Phase { .. } => {}
        }
    }
}
