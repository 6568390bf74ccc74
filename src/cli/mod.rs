//! The command line: argument definitions (each option defined once, in
//! [`CommonArgs`] when shared), the progress bar, and the glue from plan to
//! render. Diagnostics go to stderr; results to stdout.

use crate::device::SysRoot;
use crate::error::{Error, Result, failed, usage};
use crate::measure::{Event, Observer, Pass, Runner};
use crate::plan::{self, Common, EngineKind, JobSpec, Limit, Repeat, Rw, SteadyRule, SuiteName};
use crate::render;
use crate::signals::Stop;
use crate::store::{self, Store};
use crate::summary::{self, Host, Report, Settings};
use crate::target::{self, OpenRequest};
use crate::units::{self, fmt_bs, fmt_duration};
use clap::{Args, Parser, Subcommand};

mod apps;
mod bench;
mod records;
mod scale;
mod scan;
mod time;

use bench::bench;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use records::{compare, import, info, list, open_store, show, store_err};
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
    /// Surface scan: transfer rate from the first byte to the last, access time, burst rate
    Scan(scan::ScanArgs),
    /// Concurrency: queue-depth and thread sweeps, several targets alone and together, a layout against a member; with verdicts
    Scale(Box<scale::ScaleArgs>),
    /// Time a real command (hyperfine-style) with cold caches and the device's I/O
    Time(time::TimeArgs),
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
    /// Files in the tree of the files suite
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    files: u64,
    /// Commits in the history of the git suite
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    commits: u32,
    /// Transfer sizes of the sustained suite (default 8K,64K,128K) or the dd suite
    /// (default 128K; 512 is dd's own default), comma-separated
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = parse_bs)]
    bs: Vec<u64>,
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
    #[command(flatten)]
    target: TargetArgs,
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
    /// Percentage of reads in mixed patterns (randrw, rw, the mix suite)
    #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u8).range(0..=100))]
    mix_read: u8,
    /// Jobs that write: repeat back-to-back rounds of --duration until the SNIA steady-state
    /// rule holds over 5 rounds (range within 20% of the mean, slope excursion within 10%),
    /// and report the steady value instead of --runs runs
    #[arg(long)]
    steady_state: bool,
    /// With --steady-state: give up after this many rounds (and say so)
    #[arg(long, default_value_t = 25, requires = "steady_state", value_parser = clap::value_parser!(u32).range(5..=1000))]
    max_rounds: u32,
    #[command(flatten)]
    out: OutputArgs,
}

impl CommonArgs {
    /// How each job is repeated, from `--runs`, `--warmup`, `--interval`
    /// and `--steady-state`/`--max-rounds`.
    fn repeat(&self) -> Repeat {
        Repeat {
            runs: self.runs,
            warmup: self.warmup,
            interval: self.interval,
            steady: self.steady_state.then_some(SteadyRule {
                window: crate::judge::steady::DEFAULT_WINDOW,
                max_rounds: self.max_rounds,
            }),
        }
    }
}

/// How the target is opened: shared by every command that measures.
#[derive(Args, Debug)]
struct TargetArgs {
    /// Span to test: the test file's size in a directory (default 1GiB), or a limit on a file/device
    #[arg(long, value_parser = parse_nonzero_size)]
    size: Option<u64>,
    /// I/O engine
    #[arg(long, value_enum, default_value = "io_uring")]
    engine: EngineKind,
    /// Use the page cache instead of O_DIRECT (reads start cold; writes timed to fdatasync)
    #[arg(long)]
    buffered: bool,
    /// Allow writing to an existing file or a block device (destroys its contents)
    #[arg(long)]
    allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over a mounted, swap or in-use device)
    #[arg(long, requires = "allow_destroy")]
    force: bool,
}

/// What happens to a result: shared by every command that measures.
#[derive(Args, Debug)]
struct OutputArgs {
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
        Cmd::Scan(a) => scan::scan(&a, &db),
        Cmd::Scale(a) => scale::scale(&a, &db),
        Cmd::Time(a) => time::time(&a, &db),
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
                direct: !common.target.buffered,
                engine: common.target.engine,
                mix_read: common.mix_read,
                transfers: a.bs.clone(),
            });
            if a.suite.is_app() {
                apps::app_suite(&a, &db)
            } else if !a.bs.is_empty() && !matches!(a.suite, SuiteName::Sustained | SuiteName::Dd) {
                Err(usage(format!(
                    "--bs applies to the sustained and dd suites; suite {} uses CrystalDiskMark's sizes (use `iolab job` for a custom test)",
                    a.suite.as_str()
                )))
            } else {
                bench("run", &a.target, Some(a.suite), specs, common, &db)
            }
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
                offset: 0,
                direct: !a.common.target.buffered,
                engine: a.common.target.engine,
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
            transfers: Vec::new(),
        };
        for j in suite.jobs(&common) {
            s.push_str(&format!("         {:<26} {}\n", j.name, plan::describe(&j)));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
