//! The command line: argument definitions (each option defined once, in
//! [`CommonArgs`] when shared), the progress bar, and the glue from plan to
//! render. Diagnostics go to stderr; results to stdout.

use crate::device::SysRoot;
use crate::error::{Error, Result, failed, usage};
use crate::measure::{Event, Observer, Pass, Runner};
use crate::plan::{self, Common, EngineKind, JobSpec, Limit, Repeat, Rw, SuiteName};
use crate::render;
use crate::signals::Stop;
use crate::store::{self, Store};
use crate::summary::{self, Host, Report, Settings};
use crate::target::{self, OpenRequest};
use crate::units::{self, fmt_bs, fmt_bytes, fmt_duration};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "iolab",
    version,
    about = "A storage test lab: truthful, safe and fast benchmarks of files, filesystems and block devices"
)]
struct Cli {
    /// Results store (default: $IOLAB_DB, else $XDG_DATA_HOME/iolab/results.db)
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run a CrystalDiskMark-style battery of tests
    Run(RunArgs),
    /// Run one custom job (the fio one-liner)
    Job(JobArgs),
    /// List the suites and their tests
    Suites,
    /// Describe a target: filesystem, device chain, physical devices, throttles, hints
    Info(InfoArgs),
    /// List stored runs
    List(ListArgs),
    /// Show a stored run (the same table or JSON document the run printed)
    Show(ShowArgs),
    /// Delete a stored run
    Delete { id: i64 },
    /// Set a stored run's label
    Label { id: i64, text: String },
    /// Compare stored runs side by side, with ratios and noise
    Compare(CompareArgs),
    /// Import fio's JSON output (--output-format=json or json+) as a stored run
    Import(ImportArgs),
    /// Set a tag (key=value) on a stored run
    Tag {
        id: i64,
        #[arg(value_parser = store::parse_tag)]
        tag: (String, String),
    },
}

#[derive(Args, Debug)]
struct ListArgs {
    /// Only runs whose label contains TEXT
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Only runs with this tag (repeatable: all must match)
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    tag: Vec<(String, String)>,
    /// Print JSON: [{"id", "label", "tags", "started_at", "kind", "target"}]
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct CompareArgs {
    /// Stored run ids (two or more)
    #[arg(required = true, num_args = 2..)]
    ids: Vec<i64>,
    /// The run the others are measured against (default: the first)
    #[arg(long)]
    baseline: Option<i64>,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    format: CompareFormat,
    /// Price of a run's device, e.g. --price 3=59.99 (repeatable; stored with the run)
    #[arg(long, value_name = "ID=PRICE", value_parser = parse_price)]
    price: Vec<(i64, f64)>,
    /// Capacity of a run's device for $/GB, e.g. --capacity 3=1TB (repeatable; stored with the run;
    /// default: the size of the device iolab found under the target)
    #[arg(long, value_name = "ID=SIZE", value_parser = parse_capacity)]
    capacity: Vec<(i64, u64)>,
}

fn parse_capacity(s: &str) -> std::result::Result<(i64, u64), String> {
    let (id, c) = s
        .split_once('=')
        .ok_or_else(|| format!("capacity '{s}' is not of the form ID=SIZE"))?;
    let id = id.trim().parse().map_err(|_| format!("'{id}' is not a run id"))?;
    Ok((id, parse_nonzero_size(c)?))
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum CompareFormat {
    Table,
    Markdown,
    Csv,
    Json,
}

fn parse_price(s: &str) -> std::result::Result<(i64, f64), String> {
    let (id, p) = s
        .split_once('=')
        .ok_or_else(|| format!("price '{s}' is not of the form ID=PRICE"))?;
    let id = id.trim().parse().map_err(|_| format!("'{id}' is not a run id"))?;
    let p: f64 = p
        .trim()
        .trim_start_matches('$')
        .parse()
        .map_err(|_| format!("'{p}' is not a price"))?;
    if !(p.is_finite() && p > 0.0) {
        return Err(format!("price must be positive, got {p}"));
    }
    Ok((id, p))
}

#[derive(Args, Debug)]
struct ImportArgs {
    /// fio's JSON output file (text before the JSON, such as fio's notes, is skipped)
    file: PathBuf,
    /// A label for the stored run
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// A tag for the stored run (repeatable)
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    tag: Vec<(String, String)>,
}

#[derive(Args, Debug)]
struct ShowArgs {
    id: i64,
    /// Print the run's JSON document
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// A file, directory, mount point, partition, disk or stacked device
    target: PathBuf,
    /// Print the JSON document instead of the terminal view
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// A directory (a test file is made there), a file, or a block device
    #[arg(default_value = ".")]
    target: PathBuf,
    /// Which battery to run (see `iolab suites`)
    #[arg(long, value_enum, default_value = "default")]
    suite: SuiteName,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Args, Debug)]
struct JobArgs {
    /// A directory (a test file is made there), a file, or a block device
    target: PathBuf,
    /// Access pattern
    #[arg(long, value_enum, default_value = "randread")]
    rw: Rw,
    /// Block size per I/O (e.g. 4k, 128k, 1M; a multiple of 512)
    #[arg(long, default_value = "4k", value_parser = parse_bs)]
    bs: u64,
    /// I/Os in flight per thread
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    qd: u32,
    /// Threads, each with its own queue
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// Stop each run after this many bytes instead of after --duration
    #[arg(long, value_parser = parse_nonzero_size, conflicts_with = "duration")]
    bytes: Option<u64>,
    #[command(flatten)]
    common: CommonArgs,
}

/// Options shared by `run` and `job`.
#[derive(Args, Debug)]
struct CommonArgs {
    /// Span to test: the test file's size in a directory (default 1GiB), or a limit on a file/device
    #[arg(long, value_parser = parse_nonzero_size)]
    size: Option<u64>,
    /// Measured runs per test (after one discarded warm-up)
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// Length of each measured run
    #[arg(long, default_value = "5s", value_parser = parse_nonzero_duration)]
    duration: Duration,
    /// Pause between runs and tests, letting the device settle
    #[arg(long, default_value = "5s", value_parser = units::parse_duration)]
    interval: Duration,
    /// Length of the discarded warm-up pass before each test (0 to skip)
    #[arg(long, default_value = "1s", value_parser = units::parse_duration)]
    warmup: Duration,
    /// I/O engine
    #[arg(long, value_enum, default_value = "io_uring")]
    engine: EngineKind,
    /// Use the page cache instead of O_DIRECT (reads start cold; writes timed to fdatasync)
    #[arg(long)]
    buffered: bool,
    /// Percentage of reads in mixed patterns (randrw, rw, the mix suite)
    #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u8).range(0..=100))]
    mix_read: u8,
    /// Allow writing to an existing file or a block device (destroys its contents)
    #[arg(long)]
    allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over a mounted, swap or in-use device)
    #[arg(long, requires = "allow_destroy")]
    force: bool,
    /// Write the JSON document to PATH, or to stdout with `-` (then only JSON goes to stdout)
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
    /// Do not keep this run in the results store
    #[arg(long)]
    no_store: bool,
    /// A label for the stored run, e.g. "ZFS mirror over USB"
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// A tag for the stored run (repeatable), e.g. --tag bus=usb --tag fs=zfs
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    tag: Vec<(String, String)>,
}

fn parse_bs(s: &str) -> std::result::Result<u64, String> {
    let v = units::parse_size(s)?;
    if v == 0 {
        return Err("block size must be greater than 0".into());
    }
    if v % 512 != 0 {
        return Err(format!("block size must be a multiple of 512 bytes, got {v}"));
    }
    if v > 64 << 20 {
        return Err("block size above 64MiB is not supported".into());
    }
    Ok(v)
}

fn parse_nonzero_size(s: &str) -> std::result::Result<u64, String> {
    match units::parse_size(s)? {
        0 => Err("size must be greater than 0".into()),
        v => Ok(v),
    }
}

fn parse_nonzero_duration(s: &str) -> std::result::Result<Duration, String> {
    match units::parse_duration(s)? {
        d if d.is_zero() => Err("duration must be greater than 0".into()),
        d => Ok(d),
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(e.kind(), DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand) {
                let _ = e.print();
                return ExitCode::from(if e.kind() == DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                });
            }
            // One line: clap's first line says what is wrong; usage and tips are noise in scripts.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("error: invalid arguments");
            eprintln!("iolab: {}", first.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    let db = cli.db.clone().unwrap_or_else(store::default_path);
    let result = match cli.cmd {
        Cmd::Suites => {
            print!("{}", suites_listing());
            Ok(())
        }
        Cmd::Info(a) => info(&a),
        Cmd::List(a) => list(&db, &a),
        Cmd::Show(a) => show(&db, &a),
        Cmd::Compare(a) => compare(&db, &a),
        Cmd::Import(a) => import(&db, &a),
        Cmd::Delete { id } => open_store(&db)
            .and_then(|mut s| s.delete(id).map_err(store_err))
            .map(|_| eprintln!("deleted run {id}")),
        Cmd::Label { id, text } => open_store(&db).and_then(|mut s| s.set_label(id, &text).map_err(store_err)),
        Cmd::Tag { id, tag } => open_store(&db).and_then(|mut s| s.set_tag(id, &tag.0, &tag.1).map_err(store_err)),
        Cmd::Run(a) => {
            let common = &a.common;
            let specs = a.suite.jobs(&Common {
                limit: Limit::Time(common.duration),
                span: 0,
                direct: !common.buffered,
                engine: common.engine,
                mix_read: common.mix_read,
            });
            bench("run", &a.target, Some(a.suite), specs, common, &db)
        }
        Cmd::Job(a) => {
            let limit = a.bytes.map(Limit::Bytes).unwrap_or(Limit::Time(a.common.duration));
            let name = format!("{} {} Q{}T{}", a.rw.as_str(), fmt_bs(a.bs), a.qd, a.threads);
            let spec = JobSpec {
                name,
                rw: a.rw,
                bs: a.bs,
                qd: a.qd,
                threads: a.threads,
                mix_read: a.common.mix_read,
                limit,
                span: 0,
                direct: !a.common.buffered,
                engine: a.common.engine,
            };
            bench("job", &a.target, None, vec![spec], &a.common, &db)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iolab: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `iolab info`.
fn info(a: &InfoArgs) -> Result<()> {
    if !a.target.exists() {
        return Err(usage(format!("target {} does not exist", a.target.display())));
    }
    let report = crate::device::describe(&SysRoot::default(), &a.target)
        .map_err(|e| usage(format!("cannot describe {}: {e}", a.target.display())))?;
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &report).map_err(|e| failed(format!("writing JSON: {e}")))?;
        writeln!(out).map_err(|e| failed(format!("writing output: {e}")))
    } else {
        write!(out, "{}", crate::device::render_info(&report)).map_err(|e| failed(format!("writing output: {e}")))
    }
}

fn store_err(e: store::StoreError) -> Error {
    match e {
        store::StoreError::NotFound(_) => usage(e.to_string()),
        _ => failed(e.to_string()),
    }
}

fn open_store(db: &std::path::Path) -> Result<Store> {
    Store::open(db).map_err(store_err)
}

/// `iolab list`.
fn list(db: &std::path::Path, a: &ListArgs) -> Result<()> {
    let runs = open_store(db)?
        .list(&store::Filter {
            label: a.label.clone(),
            tags: a.tag.clone(),
        })
        .map_err(store_err)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let v: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id, "label": r.label,
                    "tags": r.tags.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
                    "started_at": r.started_at, "kind": r.kind, "target": r.target, "complete": r.complete,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &v).map_err(|e| failed(e.to_string()))?;
        writeln!(out).map_err(|e| failed(e.to_string()))
    } else {
        write!(out, "{}", render::run_list(&runs)).map_err(|e| failed(e.to_string()))
    }
}

/// `iolab compare`.
fn compare(db: &std::path::Path, a: &CompareArgs) -> Result<()> {
    let mut st = open_store(db)?;
    for &(id, price) in &a.price {
        st.set_price(id, price).map_err(store_err)?;
    }
    for &(id, bytes) in &a.capacity {
        st.set_capacity(id, bytes).map_err(store_err)?;
    }
    let mut runs = Vec::with_capacity(a.ids.len());
    for &id in &a.ids {
        let r = st.load(id).map_err(store_err)?;
        runs.push(crate::compare::RunRef {
            id,
            label: r.summary.label,
            price: r.price,
            capacity_bytes: r.capacity_bytes,
            report: r.report,
        });
    }
    let baseline = a.baseline.unwrap_or(a.ids[0]);
    let c = crate::compare::compare(&runs, baseline).map_err(usage)?;
    let text = match a.format {
        CompareFormat::Table => crate::compare::render_table(&c),
        CompareFormat::Markdown => crate::compare::render_markdown(&c),
        CompareFormat::Csv => crate::compare::render_csv(&c),
        CompareFormat::Json => serde_json::to_string_pretty(&c).map_err(|e| failed(e.to_string()))? + "\n",
    };
    write!(std::io::stdout().lock(), "{text}").map_err(|e| failed(e.to_string()))
}

/// `iolab import`.
fn import(db: &std::path::Path, a: &ImportArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.file).map_err(|e| usage(format!("cannot read {}: {e}", a.file.display())))?;
    let report = crate::import::parse_fio_json(&text).map_err(|e| usage(format!("{}: {e}", a.file.display())))?;
    let id = open_store(db)?.save(&report, a.label.as_deref(), &a.tag, true).map_err(store_err)?;
    eprintln!(
        "iolab: stored as run {id} in {} ({} job(s) from {})",
        db.display(),
        report.jobs.len(),
        report.iolab_version
    );
    Ok(())
}

/// `iolab show`.
fn show(db: &std::path::Path, a: &ShowArgs) -> Result<()> {
    let run = open_store(db)?.load(a.id).map_err(store_err)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        render::json(&run.report, &mut out).map_err(|e| failed(e.to_string()))
    } else {
        write!(out, "{}{}", render::run_header(&run.summary), render::table(&run.report)).map_err(|e| failed(e.to_string()))
    }
}

/// `iolab suites`.
pub fn suites_listing() -> String {
    let mut s = String::new();
    for suite in SuiteName::all() {
        s.push_str(&format!("{:<8} {}\n", suite.as_str(), suite.description()));
        let common = Common {
            limit: Limit::Time(Duration::from_secs(5)),
            span: 0,
            direct: true,
            engine: EngineKind::IoUring,
            mix_read: 70,
        };
        for j in suite.jobs(&common) {
            s.push_str(&format!("         {:<26} {}\n", j.name, plan::describe(&j)));
        }
    }
    s
}

fn bench(
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
    let req = OpenRequest {
        path: path.to_path_buf(),
        size: c.size,
        write: specs.iter().any(|s| s.rw.writes()),
        allow_destroy: c.allow_destroy,
        force: c.force,
        buffered: c.buffered,
        max_bs,
    };
    // Validate what can be validated before touching the target.
    let json_to_stdout = c.json.as_deref() == Some("-");
    if let Some(p) = c.json.as_deref().filter(|p| *p != "-") {
        let parent = std::path::Path::new(p).parent().filter(|d| !d.as_os_str().is_empty());
        if parent.is_some_and(|d| !d.is_dir()) {
            return Err(usage(format!("cannot write JSON to {p}: its directory does not exist")));
        }
    }
    let sys = SysRoot::default();
    let started_at = now_rfc3339();
    let target = target::open(&req, &sys, &stop, &|done, total| ui.prefill(done, total))?;
    ui.prefill_done();
    if target.direct_fallback {
        eprintln!(
            "iolab: WARNING: {} does not support O_DIRECT; falling back to BUFFERED I/O. Results are labelled direct: false; the page cache is dropped before every read pass.",
            path.display()
        );
    }
    if target.direct()
        && let Some(d) = target.info.devices.first()
        && let Some(bad) = specs.iter().find(|s| s.bs % d.logical_block_size as u64 != 0)
    {
        return Err(usage(format!(
            "block size {} is not a multiple of {}'s logical block size ({})",
            fmt_bs(bad.bs),
            d.name,
            d.logical_block_size
        )));
    }
    for s in &mut specs {
        s.span = target.span();
    }
    let repeat = Repeat {
        runs: c.runs,
        warmup: c.warmup,
        interval: c.interval,
    };
    ui.start(&specs, &repeat);
    let runner = Runner {
        target: &target,
        stop: &stop,
        observer: &ui,
        sys,
    };
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
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
    let mut report = Report {
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
        },
        jobs,
        interrupted: interrupted.is_some(),
    };
    drop(target); // closes (and so removes) the test file before we report
    // Keep the run (or the part that finished). A store that cannot be opened
    // must not cost the user the measurement: say so and print it anyway.
    if !c.no_store && !report.jobs.is_empty() {
        match Store::open(db).and_then(|mut s| s.save(&report, c.label.as_deref(), &c.tag, interrupted.is_none())) {
            Ok(id) => {
                report.run_id = Some(id);
                eprintln!("iolab: stored as run {id} in {}", db.display());
            }
            Err(e) => eprintln!("iolab: WARNING: the run was not stored: {e}"),
        }
    }
    let mut out = std::io::stdout().lock();
    match c.json.as_deref() {
        Some("-") => render::json(&report, &mut out).map_err(|e| failed(format!("writing JSON: {e}")))?,
        Some(p) => {
            let mut f = std::fs::File::create(p).map_err(|e| failed(format!("cannot write JSON to {p}: {e}")))?;
            render::json(&report, &mut f).map_err(|e| failed(format!("writing JSON to {p}: {e}")))?;
        }
        None => {}
    }
    if !json_to_stdout {
        write!(out, "{}", render::table(&report)).map_err(|e| failed(format!("writing output: {e}")))?;
    } else {
        for j in &report.jobs {
            for w in &j.warnings {
                eprintln!("iolab: warning [{}] {}: {}", w.code, j.name, w.message);
            }
        }
    }
    match interrupted {
        Some(sig) => Err(Error::Interrupted(sig)),
        None => Ok(()),
    }
}

fn host(cpus: usize) -> Host {
    let u = rustix::system::uname();
    Host {
        hostname: u.nodename().to_string_lossy().into_owned(),
        kernel: u.release().to_string_lossy().into_owned(),
        cpus,
    }
}

/// UTC timestamp like `2026-11-21T12:50:00Z` (civil-from-days, no time crate needed for this one line).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Progress on stderr (hidden when stderr is not a terminal).
struct Ui {
    prefill: ProgressBar,
    bar: ProgressBar,
    /// Planned milliseconds completed before the current step.
    done_ms: Cell<u64>,
    /// Planned milliseconds of the current step.
    step_ms: Cell<u64>,
}

impl Ui {
    fn new() -> Ui {
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
    fn prefill(&self, done: u64, total: u64) {
        self.prefill.set_length(total);
        self.prefill.set_position(done);
    }
    fn prefill_done(&self) {
        self.prefill.finish_and_clear();
    }
    fn start(&self, specs: &[JobSpec], r: &Repeat) {
        let per_run = |s: &JobSpec| match s.limit {
            Limit::Time(d) => d,
            Limit::Bytes(_) => Duration::from_secs(1),
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
    fn finish(&self) {
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
            Event::JobDone { .. } => {}
        }
    }
}

#[allow(dead_code)]
fn describe_span(b: u64) -> String {
    fmt_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn bad_block_sizes_are_refused() {
        assert!(parse_bs("0").is_err());
        assert!(parse_bs("1000").is_err());
        assert_eq!(parse_bs("4k"), Ok(4096));
    }
}
