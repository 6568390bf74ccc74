//! The command line's arguments: every command and option, each defined
//! once (shared ones in [`CommonArgs`], [`TargetArgs`], [`OutputArgs`]),
//! with the limits of [`crate::plan::limits`] as their parsers.

use crate::base::units::{self, BwUnit};
use crate::experiment::fio::HostSpec;
use crate::experiment::verify::ColdWait;
use crate::io::engine::EngineKind;
use crate::plan::limits::parse as limit;
use crate::plan::scan::Position;
use crate::plan::{Interval, Repeat, Runs, Rw, SteadyRule, SuiteChoice, SuiteName, SyncMode, Timing};
use crate::render::Format;
use crate::store;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

mod output;
mod stored;
pub use output::*;
pub use stored::*;

/// The definition; [`super::docs::command`] is the command as users see it.
#[derive(Parser, Debug)]
#[command(
    name = "iolab",
    version,
    long_version = super::version::long(),
    about = "A storage test lab: truthful, safe and fast benchmarks of files, filesystems and block devices"
)]
pub struct Cli {
    /// `--db`/`--config` before the command; the command's own win (see [`Cli::files`]).
    #[command(flatten)]
    pub files: StoreArgs,
    #[command(subcommand)]
    pub cmd: Cmd,
}

impl Cli {
    /// What the parsed values cannot say, from the matches `m` they came
    /// from: whether `layouts` was given a job's options (their defaults
    /// look the same as typed values).
    pub fn note_typed(&mut self, m: &clap::ArgMatches) {
        if let Cmd::Layouts(a) = &mut self.cmd
            && let Some(sub) = m.subcommand_matches("layouts")
        {
            a.job_typed = JobShape::typed(sub);
        }
    }

    /// The store and configuration file in effect: given after the command
    /// (where its help shows them) or before it (`iolab --db X list`).
    /// Commands that use neither (info, completions, man) do not take them.
    pub fn resolve_files(&mut self) {
        let sub = match &self.cmd {
            Cmd::Run(a) => Some(&a.common.out.files),
            Cmd::Job(a) => Some(&a.common.out.files),
            Cmd::Scale(a) => Some(&a.common.out.files),
            Cmd::Layouts(a) => Some(&a.common.out.files),
            Cmd::Scan(a) => Some(&a.out.files),
            Cmd::Time(a) => Some(&a.out.files),
            Cmd::Capacity(a) => Some(&a.out.files),
            Cmd::Verify(a) => Some(&a.out.files),
            Cmd::Flush(a) => Some(&a.out.files),
            Cmd::List(a) => Some(&a.files),
            Cmd::Show(a) => Some(&a.files),
            Cmd::Compare(a) => Some(&a.files),
            Cmd::Report(a) => Some(&a.files),
            Cmd::Import(a) => Some(&a.files),
            Cmd::Delete { files, .. } | Cmd::Label { files, .. } | Cmd::Tag { files, .. } => Some(files),
            Cmd::Suites(c) => {
                if c.config.is_some() {
                    self.files.config.config.clone_from(&c.config);
                }
                None
            }
            Cmd::Info(_) | Cmd::Completions(_) | Cmd::Man(_) | Cmd::Selftest(_) | Cmd::Schema(_) => None,
        };
        if let Some(f) = sub {
            if f.db.is_some() {
                self.files.db.clone_from(&f.db);
            }
            if f.config.config.is_some() {
                self.files.config.config.clone_from(&f.config.config);
            }
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Run a CrystalDiskMark-style battery of tests
    Run(RunArgs),
    /// Run one custom job (the fio one-liner)
    Job(JobArgs),
    /// Surface scan: transfer rate from the first byte to the last, access time, burst rate
    Scan(ScanArgs),
    /// Concurrency: queue-depth and thread sweeps, several targets alone and together, a layout against a member; with verdicts
    Scale(Box<ScaleArgs>),
    /// Which layout for these disks? Builds each configuration (ext4, xfs, btrfs, ZFS stripe, mirror,
    /// RAID-Z, ...), measures it, tears it down, and compares them (--allow-destroy; --dry-run prints the plan)
    ///
    /// The plan: from the devices given, every configuration that they and this machine allow, or those
    /// named with --try; single-device configurations on the first device (the baseline), or on each
    /// with --each; ZFS stripe, mirror and RAID-Z1/2/3 by device count; btrfs raid0/1/10; md RAID 0/1/5/6
    /// and LVM striping with ext4 or XFS where the kernel and the tools have them. A configuration this
    /// machine cannot build is listed as refused, with why. Sweeps (--zfs, --mount-options) multiply
    /// only the configurations they apply to. --dry-run prints the plan, its time estimate and the exact
    /// commands of every build and teardown, and touches nothing; with --allow-destroy each configuration
    /// is built, measured and torn down in turn, and the runs are compared (see docs/layouts.md).
    Layouts(LayoutsArgs),
    /// Time a real command (hyperfine-style) with cold caches and the device's I/O
    Time(TimeArgs),
    /// Is a device's announced size real? A probe of a few thousand stamped 4 KiB blocks (f3probe's
    /// question, in seconds); without --allow-destroy every overwritten block is saved and restored
    ///
    /// The probe writes stamped 4 KiB blocks (each names its own offset) at chosen offsets: the
    /// powers of two and the blocks between them, a comb over the whole device and its last blocks,
    /// then a binary search for the boundary below which every block reads back as itself. Each
    /// round's writes are flushed (fdatasync) and read back with O_DIRECT, past every cache. About
    /// 1,000-2,000 blocks (4-8 MiB) are written, whatever the device's size. Verdict: genuine; FAKE
    /// with the real size, the first bad byte and a safe partition size; DAMAGED (read errors or
    /// answers that change on a second read); or SUSPECT (the probe found nothing, but an earlier
    /// `iolab verify` of this device, in the store, did). Exit status 3 for all but genuine.
    ///
    /// Without --allow-destroy the device's data is kept: every block is read and saved before the
    /// round that overwrites it, in memory and in a backup file flushed to disk before the round
    /// writes; at the end (also after an error, SIGINT or SIGTERM) the blocks are written back, read
    /// back and checked, and the file is deleted. After a crash or kill -9 the file remains:
    /// `--restore FILE` writes it back. A mounted, swap or held device is refused either way.
    Capacity(CapacityArgs),
    /// List the suites and their tests: the built-in ones and the configuration file's
    Suites(ConfigArgs),
    /// Describe a target: filesystem, device chain, physical devices, throttles, hints
    Info(InfoArgs),
    /// List stored runs
    List(ListArgs),
    /// Show a stored run (the same table or JSON document the run printed)
    Show(ShowArgs),
    /// Delete a stored run
    Delete {
        /// The stored run's id (the first column of `iolab list`)
        id: i64,
        #[command(flatten)]
        files: StoreArgs,
    },
    /// Set a stored run's label
    Label {
        /// The stored run's id (the first column of `iolab list`)
        id: i64,
        /// The new label, e.g. "ZFS mirror over USB"
        text: String,
        #[command(flatten)]
        files: StoreArgs,
    },
    /// Compare stored runs side by side, with ratios and noise
    Compare(CompareArgs),
    /// One self-contained HTML report of stored runs: charts with their numbers, the device chain;
    /// several runs are also compared
    Report(ReportArgs),
    /// Import fio's JSON output (json, json+; fio --client: a run per host) or an iolab run's JSON as stored runs
    Import(ImportArgs),
    /// Set a tag (key=value) on a stored run
    Tag {
        /// The stored run's id (the first column of `iolab list`)
        id: i64,
        /// KEY=VALUE, e.g. bus=usb
        #[arg(value_parser = store::parse_tag)]
        tag: (String, String),
        #[command(flatten)]
        files: StoreArgs,
    },
    /// Check that a device keeps what it is given: write every block (a directory: its free space) with
    /// stamped data, read it back, classify each 4 KiB block (good, corrupted, misplaced, stale, blank,
    /// garbage, unreadable); finds fake capacity, corruption and lost writes
    Verify(VerifyArgs),
    /// Does a device keep what a flush acknowledged? Stamped blocks in generations, each ended by a flush
    /// and logged on another disk; cut the power while it runs, then --check (diskchecker.pl's test)
    ///
    /// Without --check (needs --allow-destroy): generations of stamped 4 KiB blocks (each names its offset,
    /// the run and its generation) are written with O_DIRECT at extents spread over the device, every
    /// extent written again each cycle; each generation ends with a flush (fdatasync), and when the flush
    /// returns the generation is appended to the log FILE and the log is flushed. The log must be on
    /// another disk than the device (refused otherwise). Cut the device's power while it writes (pull its
    /// cable or plug) once the progress line says enough generations are acknowledged; an I/O error ends
    /// the writes without failing the run.
    ///
    /// With --check, after the power is back: every block the log says was acknowledged is read with
    /// O_DIRECT. Verdict: honest (every acknowledged block is there), the flush lied (how many acknowledged
    /// blocks were lost or read back older, their ranges, how many generations back), or lied out of order
    /// (a later write survived where an earlier acknowledged one was lost). Exit status 3 when a flush lied.
    /// Without a power cut, --check proves that the log and the device agree.
    Flush(FlushArgs),
    /// Prove iolab's accuracy on this machine (root): emulated devices with known limits, short jobs
    /// and a scan, each figure against its limit (±3%); leaves nothing behind
    Selftest(SelftestArgs),
    /// Print the JSON Schema of a kind of document iolab writes, or without KIND the kinds and their
    /// versions
    ///
    /// Every JSON document names its schema in its "schema" field ("iolab/run/1"); the schema printed
    /// here has that name as its title (and urn:iolab:run:1 as its $id). Objects take no other fields, and every number
    /// carries its unit in "x-unit".
    Schema(SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Write the manual pages (iolab.1, iolab-COMMAND.1), or print iolab.1
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub struct SelftestArgs {
    #[command(flatten)]
    pub export: ExportArgs,
}

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// The kind of document (without it: a table of the kinds, their versions and the commands that write them)
    #[arg(value_enum)]
    pub kind: Option<crate::base::document::Kind>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell the script is for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write iolab.1 and a page per command into DIR (created if missing) instead of printing iolab.1
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A file, directory, mount point, partition, disk or stacked device
    pub target: PathBuf,
    #[command(flatten)]
    pub export: ExportArgs,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// A directory (a test file is made there), a file, or a block device
    #[arg(default_value = ".")]
    pub target: PathBuf,
    /// Which battery to run: a built-in one or a suite of the configuration file (see `iolab suites`)
    #[arg(long, default_value = "default", value_parser = SuiteParser)]
    pub suite: SuiteChoice,
    /// Files in the tree of the files suite
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub files: u64,
    /// Commits in the history of the git suite
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    pub commits: u32,
    /// Transfer sizes of the sustained suite (default 8K,64K,128K) or the dd suite
    /// (default 128K; 512 is dd's own default), comma-separated; k/K/KiB, M/MiB = powers of 1024,
    /// kB, MB, GB = powers of 1000
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = limit::bs)]
    pub bs: Vec<u64>,
    /// The sdcard suite: write and read the whole device, not min(2 GiB, 10%) of it
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub errors: ErrorArgs,
    #[command(flatten)]
    pub zfs: ZfsArgs,
    #[command(flatten)]
    pub emit: EmitArgs,
    #[command(flatten)]
    pub hosts: HostsArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `--hosts`: the same plan on many hosts at once, through fio's client/server.
#[derive(Args, Debug)]
pub struct HostsArgs {
    /// Run the plan on these hosts at once through their `fio --server` (port 8765 unless
    /// HOST:PORT), each on the target path or its own (HOST=PATH); fio executes, iolab stores a
    /// run per host (tagged host=…) and compares the hosts
    #[arg(long, value_name = "HOST[:PORT][=PATH],...", value_delimiter = ',', value_parser = HostSpec::parse, conflicts_with = "hosts_file")]
    pub hosts: Vec<HostSpec>,
    /// The hosts, one HOST[:PORT][=PATH] per line (# starts a comment)
    #[arg(long, value_name = "FILE")]
    pub hosts_file: Option<PathBuf>,
}

/// `--emit`: print the plan for another tool instead of running it.
#[derive(Args, Debug)]
pub struct EmitArgs {
    /// Print the equivalent job file for fio (a section per test and run) and exit without running
    #[arg(long, value_enum, value_name = "TOOL")]
    pub emit: Option<EmitTool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EmitTool {
    /// A fio job file (see docs/fio.md)
    Fio,
}

#[derive(Args, Debug)]
pub struct JobArgs {
    /// A directory (a test file is made there), a file, or a block device; with --hosts, the path
    /// on every host that names none (not needed when each names its own)
    #[arg(required_unless_present_any = ["hosts", "hosts_file"])]
    pub target: Option<PathBuf>,
    /// Block size per I/O (e.g. 4k, 128k, 1M; a multiple of 512; k/K/KiB = 1024, kB = 1000)
    #[arg(long, default_value = "4k", value_parser = limit::bs)]
    pub bs: u64,
    #[command(flatten)]
    pub job: JobShape,
    #[command(flatten)]
    pub errors: ErrorArgs,
    #[command(flatten)]
    pub zfs: ZfsArgs,
    #[command(flatten)]
    pub emit: EmitArgs,
    #[command(flatten)]
    pub hosts: HostsArgs,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The shape of one job, besides its block size: shared by `job` and
/// `layouts` (where they are the job measured on each configuration).
#[derive(Args, Debug)]
pub struct JobShape {
    /// Access pattern
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: Rw,
    /// I/Os in flight per thread
    #[arg(long, default_value_t = 1, value_parser = limit::qd)]
    pub qd: u32,
    /// Threads, each with its own queue
    #[arg(long, default_value_t = 1, value_parser = limit::threads)]
    pub threads: u32,
    /// Stop each run after this many bytes instead of after --duration (k/KiB, M/MiB, G/GiB = powers
    /// of 1024; kB, MB, GB = powers of 1000)
    #[arg(long, value_parser = limit::nonzero_size, conflicts_with = "duration")]
    pub bytes: Option<u64>,
    /// Make each write durable: `dsync` writes with O_DSYNC (each completes once stored), `fsync`
    /// follows each write with an fdatasync counted in its latency (a database's commit, ZFS's
    /// intent log); `none` flushes only at the end of each run
    #[arg(long, value_enum, default_value = "none")]
    pub sync: SyncMode,
}

impl JobShape {
    /// The ids of its options, to tell whether any was typed.
    pub const IDS: [&'static str; 5] = ["rw", "qd", "threads", "bytes", "sync"];

    /// Whether the command line (`sub`: the subcommand's matches) gave any of them.
    pub fn typed(sub: &clap::ArgMatches) -> bool {
        Self::IDS
            .iter()
            .any(|id| sub.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    }
}

/// The block size of `iolab job` when `--bs` is not given (as its default, "4k").
pub const JOB_BS: u64 = 4 << 10;

/// Options shared by `run` and `job`.
#[derive(Args, Debug)]
pub struct CommonArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Measured runs per test, after one discarded warm-up: `auto` runs windows back to back until
    /// they settle (CV ≤ 3%, or the 95% interval of their median within ±2%), at least 3 and at
    /// most 10 (`auto:MAX` for another maximum); a number runs exactly that many
    #[arg(long, default_value = "auto", value_name = "auto|auto:MAX|N", value_parser = Runs::parse)]
    pub runs: Runs,
    /// Length of each measured run (e.g. 5s, 1.5s, 500ms, 1m30s, 2h; a bare number is seconds);
    /// default 2s windows with `--runs auto`, 5s runs with a number
    #[arg(long, value_parser = limit::nonzero_duration)]
    pub duration: Option<Duration>,
    /// Pauses: `auto` rests 5s after each test that writes (a drive's write cache drains) and runs
    /// a test's windows back to back; a duration pauses that long between runs and between tests
    #[arg(long, default_value = "auto", value_name = "auto|DURATION", value_parser = Interval::parse)]
    pub interval: Interval,
    /// How each I/O's latency is taken: `exact` (every I/O timed to its own completion), `batch`
    /// or `batch=N` (completions reaped N at a time, default half the queue: less CPU, each
    /// latency an upper bound), `off` (no latency, bandwidth and IOPS only: the least CPU)
    #[arg(long, default_value = "exact", value_name = "exact|batch[=N]|off", value_parser = Timing::parse)]
    pub latency: Timing,
    /// Length of the discarded warm-up pass before each test (0 to skip)
    #[arg(long, default_value = "1s", value_parser = units::parse_duration)]
    pub warmup: Duration,
    /// Percentage of reads in mixed I/O (each command's help says which; see [`super::docs::command`])
    #[arg(long, default_value_t = 70, value_parser = limit::mix_read)]
    pub mix_read: u8,
    #[arg(long, help = steady_state_help())]
    pub steady_state: bool,
    /// With --steady-state: give up after this many rounds (and say so)
    #[arg(long, default_value_t = 25, requires = "steady_state", value_parser = limit::rounds)]
    pub max_rounds: u32,
    #[command(flatten)]
    pub out: OutputArgs,
}

impl CommonArgs {
    /// The length of each run: `--duration`, or the default of `--runs`.
    pub fn duration(&self) -> Duration {
        self.duration.unwrap_or(self.runs.default_duration())
    }

    /// How each job is repeated, from `--runs`, `--warmup`, `--interval`
    /// and `--steady-state`/`--max-rounds`.
    pub fn repeat(&self) -> Repeat {
        let steady = self.steady_state.then(|| SteadyRule::up_to(self.max_rounds));
        Repeat {
            runs: self.runs,
            warmup: self.warmup,
            interval: self.interval,
            steady,
        }
    }
}

/// What a failed I/O does: shared by `run`, `job` and `scan`.
#[derive(Args, Debug)]
pub struct ErrorArgs {
    /// Count failed I/O per direction and go on, instead of stopping at the first (fio's
    /// continue_on_error); the figures count only the I/O that succeeded, and say so
    #[arg(long)]
    pub continue_on_error: bool,
}

/// What iolab may do to a ZFS pool under the target: shared by `run`, `job`, `scan` and `time`.
#[derive(Args, Debug)]
pub struct ZfsArgs {
    /// On ZFS: export and import the target's pool to empty its ARC (which O_DIRECT does not bypass
    /// before OpenZFS 2.3, and drop_caches does not empty): between the prefill and each read test that
    /// reads its span once, and before each cold run of `time --cold` and each phase of the files and
    /// git suites; the pool's mounts disappear for a moment. A pool that holds / or is busy is left
    /// alone, and the figure is then labelled cached, or the run not cold (see docs/run.md)
    #[arg(long)]
    pub allow_export: bool,
}

/// How the target is opened: shared by every command that measures.
#[derive(Args, Debug)]
pub struct TargetArgs {
    /// Span to test: the test file's size in a directory (default 1GiB), or a limit on a file/device.
    /// k/K/KiB, M/MiB, G/GiB, T/TiB are powers of 1024; kB, MB, GB, TB powers of 1000 (1GB = 10^9
    /// bytes, unlike fio)
    #[arg(long, value_parser = limit::nonzero_size)]
    pub size: Option<u64>,
    /// I/O engine
    #[arg(long, value_enum, default_value = "io_uring")]
    pub engine: EngineArg,
    /// Use the page cache instead of O_DIRECT (reads start cold; writes timed to fdatasync)
    #[arg(long)]
    pub buffered: bool,
    /// Allow writing to an existing file or a block device (destroys its contents)
    #[arg(long)]
    pub allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over a mounted, swap or in-use device)
    #[arg(long, requires = "allow_destroy")]
    pub force: bool,
}

impl HostsArgs {
    /// The hosts from `--hosts` or `--hosts-file`; none: run here.
    pub fn list(&self) -> crate::base::error::Result<Option<Vec<HostSpec>>> {
        match &self.hosts_file {
            Some(f) => crate::experiment::fio::read_hosts_file(f).map(Some),
            None => Ok(Some(self.hosts.clone()).filter(|h| !h.is_empty())),
        }
    }
}

/// `--engine`: one of iolab's own engines (every one in the registry,
/// [`crate::io::engine::ENGINES`]), or fio running the same plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    Own(EngineKind),
    Fio,
}

impl clap::ValueEnum for EngineArg {
    /// The registry's engines, then fio.
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<EngineArg>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| EngineKind::ALL.map(EngineArg::Own).into_iter().chain([EngineArg::Fio]).collect())
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            EngineArg::Own(k) => k.to_possible_value(),
            EngineArg::Fio => Some(clap::builder::PossibleValue::new("fio").help(
                "fio runs the same plan (its io_uring engine, a section per test and run) and iolab stores \
                 the result: a cross-check of iolab (run and job only)",
            )),
        }
    }
}

impl EngineArg {
    /// The engine the jobs are planned with (fio's io_uring for fio).
    pub fn kind(self) -> EngineKind {
        match self {
            EngineArg::Own(k) => k,
            EngineArg::Fio => EngineKind::IoUring,
        }
    }
    pub fn via_fio(self) -> bool {
        self == EngineArg::Fio
    }
}

/// `--suite`: any name (a user suite's is checked once the configuration
/// file is read), with the built-in suites and their descriptions as the
/// possible values of help and completions.
#[derive(Clone, Debug)]
pub struct SuiteParser;

impl clap::builder::TypedValueParser for SuiteParser {
    type Value = SuiteChoice;
    fn parse_ref(&self, cmd: &clap::Command, _arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<SuiteChoice, clap::Error> {
        let s = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        Ok(SuiteChoice::parse(s))
    }
    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use clap::ValueEnum;
        Some(Box::new(SuiteName::all().into_iter().filter_map(|s| s.to_possible_value())))
    }
}

/// `--steady-state`'s help, stating the rule from the thresholds it uses.
fn steady_state_help() -> String {
    use crate::base::thresholds::{DEFAULT_WINDOW, MAX_RANGE_PCT, MAX_SLOPE_EXCURSION_PCT};
    format!(
        "Jobs that write: repeat back-to-back rounds of --duration until the SNIA steady-state rule holds over {DEFAULT_WINDOW} rounds (range within {MAX_RANGE_PCT}% of the mean, slope excursion within {MAX_SLOPE_EXCURSION_PCT}%), and report the steady value instead of --runs runs"
    )
}

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// A block device (read-only by default: safe even while mounted), a file, or a directory (a test file is made there)
    pub target: PathBuf,
    /// Zones from the first byte to the last
    #[arg(long, default_value_t = 100, value_parser = limit::zones)]
    pub zones: u32,
    /// Bytes measured at the start of each zone (M/MiB = 2^20, MB = 10^6)
    #[arg(long, default_value = "64MiB", value_parser = limit::nonzero_size)]
    pub window: u64,
    /// Measure each zone for this long instead of --window bytes
    #[arg(long, value_parser = limit::nonzero_duration, conflicts_with = "window")]
    pub zone_time: Option<Duration>,
    /// Random 4K reads at QD1 over the range for the access time (0 to skip)
    #[arg(long, default_value_t = 1000)]
    pub access: u32,
    /// Transfer size of the zone reads (or writes)
    #[arg(long, default_value = "1M", value_parser = limit::bs)]
    pub bs: u64,
    /// Transfers in flight during the zone reads
    #[arg(long, default_value_t = 4, value_parser = limit::qd)]
    pub qd: u32,
    /// Start of the scanned range: a percentage (10%) or an offset (100GiB)
    #[arg(long, default_value = "0%", value_parser = Position::parse)]
    pub from: Position,
    /// End of the scanned range: a percentage (50%) or an offset
    #[arg(long, default_value = "100%", value_parser = Position::parse)]
    pub to: Position,
    /// Discarded lead-in at each zone (the seek there, a throttle's banked credit)
    #[arg(long, default_value = "200ms", value_parser = units::parse_duration)]
    pub zone_warmup: Duration,
    /// Skip the burst-rate measurement
    #[arg(long)]
    pub no_burst: bool,
    #[command(flatten)]
    pub errors: ErrorArgs,
    #[command(flatten)]
    pub zfs: ZfsArgs,
    /// Write the zones instead of reading them: destroys the data (needs --allow-destroy on a file or device)
    #[arg(long)]
    pub write: bool,
    #[command(flatten)]
    pub target_args: TargetArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("force_with").args(["allow_destroy", "restore"]))]
pub struct CapacityArgs {
    /// The block device (a USB stick, an SD card, a disk; not mounted). With --restore: the device
    /// to write the backup to (default: the one the file names)
    #[arg(required_unless_present = "restore")]
    pub device: Option<PathBuf>,
    /// Overwrite the probed blocks without saving and restoring them: faster, and destroys what
    /// they held (the device's data is lost)
    #[arg(long)]
    pub allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over
    /// a mounted, swap or in-use device). With --restore: write to a device known only by its model
    /// and size (no serial number), at the node the backup was saved from
    #[arg(long, requires = "force_with")]
    pub force: bool,
    /// Precision of the real size: the probe stops when the boundary is known to within this many
    /// bytes (rounded up to whole 4 KiB blocks; each halving costs one round of about 20 blocks)
    #[arg(long, value_name = "SIZE", default_value = "1MiB", value_parser = limit::nonzero_size)]
    pub granularity: u64,
    /// Write a backup file left by an interrupted probe (a crash, kill -9) back to its device,
    /// read it back, and delete it; the file must name this device and its size
    #[arg(long, value_name = "FILE", conflicts_with_all = ["allow_destroy", "granularity", "backup_dir"])]
    pub restore: Option<PathBuf>,
    /// Where the backup file of the saved blocks goes (default: the results store's directory, or
    /// $XDG_STATE_HOME/iolab with an in-memory store); never on the probed device, which must not be mounted
    #[arg(long, value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// A directory (its free space is filled with files of iolab's own, removed afterwards) or a block
    /// device (every byte is overwritten: needs --allow-destroy)
    pub target: PathBuf,
    /// Bytes to verify (default: the whole device, or the directory's free space less a margin of 0.1%,
    /// at least 16 MiB); a multiple of 4 KiB
    #[arg(long, value_parser = limit::nonzero_size)]
    pub size: Option<u64>,
    /// Bytes per write and read request (a multiple of 4 KiB)
    #[arg(long, default_value = "1M", value_parser = limit::bs)]
    pub bs: u64,
    /// Zones from the first byte to the last, each with its write and read rate (default: one per 1% of
    /// the range, each at least 4 MiB)
    #[arg(long, value_parser = limit::zones)]
    pub zones: Option<u32>,
    /// Between writing and reading back, let go of the target and wait: for Enter (no value) or for a
    /// duration (30s). Unplug and replug the device meanwhile, so its own cache cannot answer the reads
    #[arg(long, value_name = "DURATION", num_args = 0..=1, default_missing_value = "enter", value_parser = ColdWait::parse)]
    pub cold_wait: Option<ColdWait>,
    /// Use the page cache instead of O_DIRECT (flushed and dropped before reading back; labelled buffered)
    #[arg(long)]
    pub buffered: bool,
    /// Allow writing a whole block device (destroys its contents)
    #[arg(long)]
    pub allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over a
    /// mounted, swap or in-use device)
    #[arg(long, requires = "allow_destroy")]
    pub force: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct FlushArgs {
    /// The block device (a USB stick, an SD card, a disk, a partition; not mounted). Its blocks are
    /// overwritten: needs --allow-destroy, except with --check
    #[arg(required_unless_present = "listen")]
    pub target: Option<PathBuf>,
    /// The log of acknowledged generations: a new file (it must not exist), or with --check the file of
    /// the run to check. Never on the device under test (refused): a power cut must not take it too
    #[arg(long, value_name = "FILE", required_unless_present = "log_host")]
    pub log: Option<PathBuf>,
    /// Log on another host instead, where `iolab flush --listen PORT --log FILE` runs: a power cut of this
    /// whole machine then leaves the log
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["log", "check", "listen"])]
    pub log_host: Option<String>,
    /// Keep the log of a writer on another host (its --log-host): accept one run on PORT, append each line
    /// to --log FILE, flushed before it is answered; ends when the writer's connection closes
    #[arg(long, value_name = "PORT", requires = "log", conflicts_with_all = ["target", "check", "allow_destroy", "generations", "size"])]
    pub listen: Option<u16>,
    /// Read back every block the log says was acknowledged and say whether the device kept them (after
    /// the power cut; without one, it proves the log and the device agree). Exit status 3 when a flush lied
    #[arg(long, conflicts_with_all = ["allow_destroy", "generations", "batch", "size"])]
    pub check: bool,
    /// Stop after this many acknowledged generations (default: write until stopped, or until the power is cut)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub generations: Option<u64>,
    /// Bytes each generation writes before its flush, in extents of up to 64 KiB spread over the device
    /// (a multiple of 4 KiB)
    #[arg(long, value_name = "SIZE", default_value = "1M", value_parser = limit::bs)]
    pub batch: u64,
    /// Spread the extents over the first SIZE of the device (default: all of it; a multiple of 4 KiB)
    #[arg(long, value_parser = limit::nonzero_size)]
    pub size: Option<u64>,
    /// Allow writing the device (destroys its contents)
    #[arg(long)]
    pub allow_destroy: bool,
    /// With --allow-destroy: write even over a partition table or filesystem signature (never over a
    /// mounted, swap or in-use device)
    #[arg(long, requires = "allow_destroy")]
    pub force: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// Targets: directories (a test file in each), files, or block devices (read-only unless --rw writes)
    #[arg(required = true, num_args = 1..)]
    pub targets: Vec<PathBuf>,
    /// Access pattern of every point
    #[arg(long, value_enum, default_value = "randread")]
    pub rw: Rw,
    /// Block size per I/O (k/K/KiB = 1024, kB = 1000)
    #[arg(long, default_value = "4k", value_parser = limit::bs)]
    pub bs: u64,
    /// Queue depths to sweep on each target (default with one target and no --threads-sweep: 1,2,4,8,16,32,64)
    #[arg(long, value_name = "QD,...", value_delimiter = ',', value_parser = limit::qd)]
    pub qd_sweep: Vec<u32>,
    /// Thread counts to sweep on each target, each thread one I/O at a time (ThreadMark's concurrent transfers)
    #[arg(long, value_name = "N,...", value_delimiter = ',', value_parser = limit::threads)]
    pub threads_sweep: Vec<u32>,
    /// Queue depth of the comparison job: each target alone, all together, the --vs member
    #[arg(long, default_value_t = 8, value_parser = limit::qd)]
    pub qd: u32,
    /// Threads of the comparison job (and of the depth sweep)
    #[arg(long, default_value_t = 1, value_parser = limit::threads)]
    pub threads: u32,
    /// One member of the (first) target's layout, or a target on an identical device: measured alone with the comparison job, for the layout verdict
    #[arg(long, value_name = "TARGET")]
    pub vs: Option<PathBuf>,
    /// The first target's layout, when iolab cannot read it (btrfs profiles and md levels are read from sysfs)
    #[arg(long, value_enum, requires = "vs")]
    pub layout: Option<LayoutArg>,
    /// With --layout: number of member devices
    #[arg(long, requires = "layout", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub members: Option<u32>,
    /// With --layout raid1/raid10: copies of each block (default 2)
    #[arg(long, requires = "layout", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub copies: Option<u32>,
    #[command(flatten)]
    pub common: CommonArgs,
}

#[derive(Args, Debug)]
pub struct LayoutsArgs {
    /// The devices (whole block devices; the first is the baseline's); every one is destroyed
    #[arg(required = true, num_args = 1.., value_name = "DEV")]
    pub devices: Vec<PathBuf>,
    /// Only these configurations, in this order, the first the baseline, e.g. ext4,zfs,zfs-mirror,
    /// zfs-raidz1-3 (zfs-stripeN, zfs-mirrorN, zfs-raidzL-N: the first N devices; without N every
    /// device). Default: every configuration the devices and this machine allow
    #[arg(long = "try", value_name = "NAME,...", value_delimiter = ',')]
    pub names: Vec<String>,
    /// Single-device configurations on each device given, not only the first (names get the device: ext4@sdb)
    #[arg(long)]
    pub each: bool,
    /// Sweep a ZFS property over values, e.g. --zfs recordsize=8K,128K (repeatable: every combination);
    /// only ZFS configurations are multiplied
    #[arg(long, value_name = "KEY=V1,V2,...", value_parser = parse_sweep)]
    pub zfs: Vec<(String, Vec<String>)>,
    /// Sweep mount options of the other filesystems: each occurrence one set, as `mount -o` takes it,
    /// e.g. --mount-options noatime --mount-options noatime,discard
    #[arg(long, value_name = "OPTS")]
    pub mount_options: Vec<String>,
    /// Print the plan, its time estimate and the exact commands, and touch nothing
    #[arg(long)]
    pub dry_run: bool,
    /// What runs on each configuration: a built-in battery, an application suite (files, git) or a
    /// suite of the configuration file (see `iolab suites`). Default: seed 002's fsync-terminated
    /// sequential writes (the sustained suite: 8K, 64K, 128K) and then the default battery; with
    /// --rw, --qd, --threads, --bytes or --sync (the options of `iolab job`), that one job instead
    #[arg(long, value_parser = SuiteParser)]
    pub suite: Option<SuiteChoice>,
    /// Transfer sizes of the sustained or dd suite, comma-separated (as `iolab run --bs`); with the
    /// job options, the job's block size (default 4k; several: one job each)
    #[arg(long, value_name = "SIZE,...", value_delimiter = ',', value_parser = limit::bs)]
    pub bs: Vec<u64>,
    /// The job measured on each configuration instead of a suite, as `iolab job` takes it
    #[command(flatten)]
    pub job: JobShape,
    /// Whether any option of `job` was typed (set from the command line's matches, see
    /// [`Cli::note_typed`]): the job replaces the default suite
    #[arg(skip)]
    pub job_typed: bool,
    /// Files in the tree of the files suite
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub files: u64,
    /// Commits in the history of the git suite
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    pub commits: u32,
    /// --allow-destroy lets iolab build on the DEVICES (every filesystem, pool or array on them is
    /// destroyed); --force builds over a signature, never over a mounted or in-use device nor a member
    /// of a live pool or array
    #[command(flatten)]
    pub common: CommonArgs,
}

/// `KEY=V1,V2,...` of `--zfs`.
fn parse_sweep(s: &str) -> Result<(String, Vec<String>), String> {
    let (key, values) = s
        .split_once('=')
        .ok_or_else(|| format!("\"{s}\" is not KEY=V1,V2,..., e.g. recordsize=8K,128K"))?;
    Ok((key.trim().to_string(), values.split(',').map(|v| v.trim().to_string()).collect()))
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum LayoutArg {
    Single,
    Raid0,
    Raid1,
    Raid10,
}

#[derive(Args, Debug)]
pub struct TimeArgs {
    /// Empty the caches before each run (sync, then drop_caches; needs root)
    #[arg(long)]
    pub cold: bool,
    /// Measured runs
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub runs: u32,
    /// Runs before the measured ones, not counted (a count; elsewhere --warmup is a duration)
    #[arg(long = "warmup-runs", alias = "warmup", value_name = "N", default_value_t = 0)]
    pub warmup: u32,
    /// Shell command run before each run, untimed (e.g. `git reset --hard X`, a snapshot rollback)
    #[arg(long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// Shell command run after each run, untimed
    #[arg(long, value_name = "CMD")]
    pub cleanup: Option<String>,
    /// Directory the command runs in (default: the current one); naming it also names its device for
    /// the figures (default: every device that moved is recorded, and the one that did the command's reads
    /// gives them)
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// The device whose figures are shown: a kernel name (sdb, loop3), a /dev path, or a path on the device
    #[arg(long, value_name = "DEV")]
    pub device: Option<PathBuf>,
    /// Let the command's stdout and stderr through (default: discarded)
    #[arg(long)]
    pub show_output: bool,
    /// Keep timing when the command exits non-zero
    #[arg(long)]
    pub ignore_failure: bool,
    #[command(flatten)]
    pub zfs: ZfsArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    /// The command and its arguments, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[cfg(test)]
mod list_tests {
    use super::*;

    fn t(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn limit_0_is_refused_by_the_command_line() {
        use clap::Parser;
        let parse = |args: &[&str]| Cli::try_parse_from([&["iolab", "list"], args].concat());
        let e = parse(&["--limit", "0"]).unwrap_err().to_string();
        assert!(e.contains("--limit"), "{e}");
        assert!(parse(&["--offset", "-1"]).is_err());
        assert!(parse(&["--since", "soon"]).is_err());
        let Ok(Cli { cmd: Cmd::List(a), .. }) = parse(&[
            "--limit",
            "50",
            "--offset",
            "100",
            "--device",
            "sdb",
            "--tag",
            "a=b",
            "--tag",
            "c=d",
            "--since",
            "2026-01-01",
        ]) else {
            panic!("list parses")
        };
        let f = a.filter();
        assert_eq!(
            f.page,
            store::Page {
                limit: Some(50),
                offset: 100
            }
        );
        assert_eq!(f.device.as_deref(), Some("sdb"));
        assert_eq!(f.tags, [t("a", "b"), t("c", "d")]);
        assert_eq!(f.since.as_deref(), Some("2026-01-01T00:00:00"));
    }
}
