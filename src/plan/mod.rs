//! What to run: job specifications and the CrystalDiskMark-style suites.
//!
//! A [`JobSpec`] is the complete, engine-independent description of one
//! workload. Suites expand into lists of `JobSpec`s; nothing here touches a
//! device.

use crate::base::units::{fmt_bs, fmt_duration};
use crate::io::engine::EngineKind;
pub use crate::io::engine::SyncMode;
use serde::{Deserialize, Serialize};

pub mod fio;
pub mod layouts;
pub mod limits;
pub mod scale;
pub mod scan;
mod suites;
pub mod time;

use std::time::Duration;
pub use suites::{Common, Listed, SDCARD_DEEP_QD, SuiteChoice, SuiteName, SuiteTest, listing};

/// Access pattern, named as in fio so users can transfer their habits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    Randread,
    Randwrite,
    /// Random mixed reads and writes (`--mix-read` percent reads).
    Randrw,
    /// Sequential mixed reads and writes (`--mix-read` percent reads).
    Rw,
}

impl Rw {
    pub fn is_random(self) -> bool {
        matches!(self, Rw::Randread | Rw::Randwrite | Rw::Randrw)
    }
    pub fn reads(self) -> bool {
        !matches!(self, Rw::Write | Rw::Randwrite)
    }
    pub fn writes(self) -> bool {
        !matches!(self, Rw::Read | Rw::Randread)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::Randread => "randread",
            Rw::Randwrite => "randwrite",
            Rw::Randrw => "randrw",
            Rw::Rw => "rw",
        }
    }
    /// Percentage of I/Os that are reads.
    pub fn read_pct(self, mix_read: u8) -> u8 {
        match self {
            Rw::Read | Rw::Randread => 100,
            Rw::Write | Rw::Randwrite => 0,
            Rw::Randrw | Rw::Rw => mix_read,
        }
    }
}

/// When a measured pass ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Stop issuing after this long (in-flight I/Os still complete and count).
    Time(Duration),
    /// Stop after this many bytes in total (across all threads).
    Bytes(u64),
    /// One pass over the whole span (a dd-style transfer), timed to the final flush.
    Span,
}

/// How much of the target a suite's jobs address, once the target's size is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Region {
    /// All of it (or `--size`'s share).
    #[default]
    Whole,
    /// `sdcard`'s: [`SDCARD_REGION_MAX`](crate::base::thresholds::SDCARD_REGION_MAX)
    /// or [`SDCARD_REGION_SHARE`](crate::base::thresholds::SDCARD_REGION_SHARE)
    /// of the target, whichever is smaller, in whole MiB.
    Sustained,
}

impl Region {
    /// The bytes of a `target_span`-byte target the jobs address (at least
    /// one MiB, never more than the target).
    pub fn bytes(self, target_span: u64) -> u64 {
        use crate::base::thresholds::{SDCARD_REGION_MAX, SDCARD_REGION_SHARE};
        const MIB: u64 = 1 << 20;
        match self {
            Region::Whole => target_span,
            Region::Sustained => {
                let share = (target_span as f64 * SDCARD_REGION_SHARE) as u64;
                (share.min(SDCARD_REGION_MAX) / MIB * MIB).max(MIB).min(target_span)
            }
        }
    }
}

/// One workload, fully specified.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    pub rw: Rw,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    /// Percentage of reads for mixed patterns.
    pub mix_read: u8,
    pub limit: Limit,
    /// Bytes of the target used, from `offset` (0: the target's whole span).
    pub span: u64,
    /// Where the used bytes start (a surface-scan zone, or `--from`).
    #[serde(default)]
    pub offset: u64,
    /// O_DIRECT requested (the result says whether it was obtained).
    pub direct: bool,
    pub engine: EngineKind,
    /// How each I/O's latency is taken (`--latency`).
    #[serde(default)]
    pub timing: Timing,
    /// How each write is made durable (`--sync`, the sync suite).
    #[serde(default)]
    pub sync: SyncMode,
}

/// What a custom job is made of (`iolab job`'s options), for [`JobSpec::custom`].
#[derive(Clone, Copy, Debug)]
pub struct Custom {
    pub rw: Rw,
    /// Block size, bytes.
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    /// Percentage of reads of a mixed job.
    pub mix_read: u8,
    pub limit: Limit,
    /// O_DIRECT.
    pub direct: bool,
    pub engine: EngineKind,
}

impl JobSpec {
    /// A custom job (`iolab job`), named as fio would describe it: `randread 4K Q32T1`.
    pub fn custom(c: Custom) -> JobSpec {
        let Custom {
            rw,
            bs,
            qd,
            threads,
            mix_read,
            limit,
            direct,
            engine,
        } = c;
        JobSpec {
            name: format!("{} {} Q{qd}T{threads}", rw.as_str(), fmt_bs(bs)),
            rw,
            bs,
            qd,
            threads,
            mix_read,
            limit,
            span: 0,
            offset: 0,
            direct,
            engine,
            timing: Timing::Exact,
            sync: SyncMode::None,
        }
    }

    /// The same job with each write made durable as `sync` says, named so
    /// (`write 4K Q1T1 dsync`).
    pub fn with_sync(mut self, sync: SyncMode) -> JobSpec {
        if !sync.is_none() {
            self.name = format!("{} {}", self.name, sync.as_str());
        }
        self.sync = sync;
        self
    }

    /// The read after a run that only wrote, whose figure bounds how fast
    /// the device stores (`flush_too_fast`): sequential 1 MiB with 8 in
    /// flight, O_DIRECT, for [`FLUSH_REFERENCE_READ`](crate::base::thresholds::FLUSH_REFERENCE_READ),
    /// over `span` bytes from `offset` (what the jobs wrote).
    pub fn flush_reference(offset: u64, span: u64, engine: EngineKind) -> JobSpec {
        JobSpec {
            name: "SEQ1M Q8T1 read (flush reference)".to_string(),
            rw: Rw::Read,
            bs: 1 << 20,
            qd: 8,
            threads: 1,
            mix_read: 0,
            limit: Limit::Time(crate::base::thresholds::FLUSH_REFERENCE_READ),
            span,
            offset,
            direct: true,
            engine,
            timing: Timing::Exact,
            sync: SyncMode::None,
        }
    }

    /// The byte range the job addresses on a target of `target_span` bytes,
    /// as (offset, span): `span` bytes from `offset`, clamped to the target
    /// (a span of 0 means the rest of the target).
    pub fn extent(&self, target_span: u64) -> (u64, u64) {
        let offset = self.offset.min(target_span);
        let rest = target_span - offset;
        let span = if self.span == 0 { rest } else { self.span.min(rest) };
        (offset, span)
    }

    /// Every rule on sizes, depths and thread counts ([`limits`]), so each
    /// front end gets the same answer.
    pub fn validate(&self) -> crate::base::error::Result<()> {
        let bad = |e: String| crate::base::error::usage(format!("{}: {e}", self.name));
        limits::check_bs(self.bs).map_err(bad)?;
        limits::check_qd(self.qd).map_err(bad)?;
        limits::check_threads(self.threads).map_err(bad)?;
        limits::check_mix_read(self.mix_read).map_err(bad)?;
        limits::check_sync(self.sync, self.rw.writes()).map_err(bad)?;
        match self.limit {
            Limit::Time(d) if d.is_zero() => Err(bad("the duration must be greater than 0".into())),
            Limit::Bytes(0) => Err(bad("the byte limit must be greater than 0".into())),
            _ => Ok(()),
        }
    }
}

/// How each I/O's latency is taken (`--latency`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timing {
    /// Every I/O timed from its submission to its own completion: a wait
    /// returns at the first completion (the default).
    #[default]
    Exact,
    /// Completions reaped this many at a time (`None`: half the queue), the
    /// wait returning only when that many are done, as fio's
    /// `iodepth_batch_complete_min`: fewer wake-ups, and each latency is an
    /// upper bound (the batch's end, not the I/O's).
    Batch(Option<u32>),
    /// No latency at all, bandwidth and IOPS only (fio's `gtod_reduce`);
    /// completions reaped as in `Batch(None)`, or a whole queue at a time
    /// where that costs the device nothing
    /// ([`crate::measure::placement::reap_batch`]).
    Off,
}

impl Timing {
    /// `exact`, `batch`, `batch=N` or `off`.
    pub fn parse(s: &str) -> Result<Timing, String> {
        let bad = || format!("\"{s}\" is not a latency mode: exact, batch, batch=N or off");
        match s.trim() {
            "exact" => Ok(Timing::Exact),
            "off" => Ok(Timing::Off),
            "batch" => Ok(Timing::Batch(None)),
            t => {
                let n = t.strip_prefix("batch=").ok_or_else(bad)?;
                let n: u32 = n.trim().parse().map_err(|_| bad())?;
                limits::check_qd(n).map_err(|_| format!("batch={n}: a batch must be between 1 and {}", limits::MAX_QD))?;
                Ok(Timing::Batch(Some(n)))
            }
        }
    }

    /// Completions one wait collects with `depth` I/Os in flight per worker.
    pub fn batch(self, depth: u32) -> u32 {
        match self {
            Timing::Exact => 1,
            Timing::Batch(Some(n)) => n.min(depth).max(1),
            Timing::Batch(None) | Timing::Off => (depth / 2).max(1),
        }
    }

    /// The default mode (for the JSON, which leaves it out).
    pub fn is_exact(&self) -> bool {
        *self == Timing::Exact
    }

    /// Whether latencies are kept at all.
    pub fn timed(self) -> bool {
        self != Timing::Off
    }

    /// Whether each latency is the I/O's own (not an upper bound, not absent).
    pub fn exact_at(self, depth: u32) -> bool {
        self == Timing::Exact || (self.timed() && self.batch(depth) == 1)
    }

    /// The mode as the JSON and the table name it, for a worker of `depth`:
    /// `exact`, `batch=16`, `off`.
    pub fn label(self, depth: u32) -> String {
        match self {
            Timing::Exact => "exact".into(),
            Timing::Batch(_) => format!("batch={}", self.batch(depth)),
            Timing::Off => "off".into(),
        }
    }

    /// The mode as typed: `exact`, `batch`, `batch=N`, `off`.
    pub fn as_text(self) -> String {
        match self {
            Timing::Batch(None) => "batch".into(),
            Timing::Batch(Some(n)) => format!("batch={n}"),
            Timing::Exact => "exact".into(),
            Timing::Off => "off".into(),
        }
    }
}

impl Serialize for Timing {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_text())
    }
}

impl schemars::JsonSchema for Timing {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timing".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`--latency` as given: `exact` (each I/O's own), `batch` or `batch=N` (completions reaped in batches: each latency an upper bound), `off` (none taken).",
            "type": "string",
            "pattern": "^(exact|off|batch(=[1-9][0-9]*)?)$",
        })
    }
}

impl<'de> Deserialize<'de> for Timing {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Timing, D::Error> {
        let s = String::deserialize(d)?;
        Timing::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// How many measured runs a test gets (`--runs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// Exactly this many.
    Fixed(u32),
    /// Windows back to back until they settle ([`crate::judge::settle`]):
    /// at least [`SETTLE_MIN_WINDOWS`](crate::base::thresholds::SETTLE_MIN_WINDOWS)
    /// (fewer only if `max` is smaller), at most `max`.
    Auto { max: u32 },
}

impl Default for Runs {
    fn default() -> Runs {
        Runs::Auto {
            max: crate::base::thresholds::SETTLE_MAX_WINDOWS,
        }
    }
}

impl Runs {
    /// `auto`, `auto:MAX` or a count.
    pub fn parse(s: &str) -> Result<Runs, String> {
        let t = s.trim();
        if t == "auto" {
            return Ok(Runs::default());
        }
        if let Some(m) = t.strip_prefix("auto:") {
            let max = limits::parse::runs(m).map_err(|e| format!("auto:{m}: {e}"))?;
            return Ok(Runs::Auto { max });
        }
        limits::parse::runs(t)
            .map(Runs::Fixed)
            .map_err(|e| format!("{e} (or auto, auto:MAX)"))
    }

    pub fn is_auto(self) -> bool {
        matches!(self, Runs::Auto { .. })
    }

    /// Fewest runs.
    pub fn min(self) -> u32 {
        match self {
            Runs::Fixed(n) => n,
            Runs::Auto { max } => crate::base::thresholds::SETTLE_MIN_WINDOWS.min(max),
        }
    }

    /// Most runs.
    pub fn max(self) -> u32 {
        match self {
            Runs::Fixed(n) | Runs::Auto { max: n } => n,
        }
    }

    /// The length of a run when `--duration` does not say: [`AUTO_WINDOW`]
    /// or [`FIXED_RUN`].
    pub fn default_duration(self) -> Duration {
        if self.is_auto() { AUTO_WINDOW } else { FIXED_RUN }
    }

    /// `auto`, `auto:20`, `3`.
    pub fn as_text(self) -> String {
        match self {
            Runs::Fixed(n) => n.to_string(),
            Runs::Auto { max } if max == crate::base::thresholds::SETTLE_MAX_WINDOWS => "auto".into(),
            Runs::Auto { max } => format!("auto:{max}"),
        }
    }
}

/// A window of `--runs auto` when `--duration` does not say: long enough
/// for a few thousand I/Os of a slow disk and for a second-by-second
/// curve, short enough that the 3 windows most tests need, with a warm-up,
/// take 7 s.
pub const AUTO_WINDOW: Duration = Duration::from_secs(2);
/// A run of a fixed `--runs N` when `--duration` does not say (the
/// length CrystalDiskMark uses).
pub const FIXED_RUN: Duration = Duration::from_secs(5);
/// `--interval auto`: the rest after a test that wrote, before the next
/// test. Writing fills a drive's write cache (SLC) and warms it; reading
/// does neither, so there is no pause after a read test, and none between
/// a test's windows (they are one stream: a pause would let a device or a
/// throttle bank credit that flatters the next window). Five seconds is
/// CrystalDiskMark's interval: it lets a small cache drain and a
/// controller finish what it deferred, but it neither empties a large SLC
/// cache nor cools a drive; `--interval 60s` does both.
pub const AUTO_REST: Duration = Duration::from_secs(5);

/// The pauses of a run (`--interval`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interval {
    /// Rest only where the device needs it: [`AUTO_REST`] after a test
    /// that wrote; runs of a test back to back.
    #[default]
    Auto,
    /// This long between the runs of a test, each its own stream, and
    /// between tests.
    Fixed(Duration),
}

impl Interval {
    /// `auto` or a duration.
    pub fn parse(s: &str) -> Result<Interval, String> {
        if s.trim() == "auto" {
            return Ok(Interval::Auto);
        }
        crate::base::units::parse_duration(s)
            .map(Interval::Fixed)
            .map_err(|e| format!("{e} (or auto)"))
    }

    /// The pause between two runs of a test (zero: one stream).
    pub fn between_runs(self) -> Duration {
        match self {
            Interval::Auto => Duration::ZERO,
            Interval::Fixed(d) => d,
        }
    }

    /// The pause before a test that follows one that wrote (`prev_wrote`) or not.
    pub fn before_next(self, prev_wrote: bool) -> Duration {
        match self {
            Interval::Auto if prev_wrote => AUTO_REST,
            Interval::Auto => Duration::ZERO,
            Interval::Fixed(d) => d,
        }
    }

    pub fn is_auto(self) -> bool {
        self == Interval::Auto
    }

    /// `auto` or the duration.
    pub fn as_text(self) -> String {
        match self {
            Interval::Auto => "auto".into(),
            Interval::Fixed(d) => fmt_duration(d),
        }
    }
}

/// How each job is repeated.
#[derive(Clone, Copy, Debug)]
pub struct Repeat {
    pub runs: Runs,
    pub warmup: Duration,
    pub interval: Interval,
    /// For jobs that write: instead of `runs` runs, repeat back-to-back
    /// rounds until the SNIA steady-state rule holds.
    pub steady: Option<SteadyRule>,
}

/// Repeat a write job until its last `window` rounds are steady (see
/// [`crate::judge::steady::steady_state`]), or `max_rounds` rounds have run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SteadyRule {
    /// Rounds a steady window spans.
    #[schemars(extend("x-unit" = "count"))]
    pub window: usize,
    /// The most rounds before giving up.
    #[schemars(extend("x-unit" = "count"))]
    pub max_rounds: u32,
}

impl SteadyRule {
    /// The rule over its usual window (the last
    /// [`DEFAULT_WINDOW`](crate::base::thresholds::DEFAULT_WINDOW) rounds),
    /// giving up after `max_rounds` rounds.
    pub fn up_to(max_rounds: u32) -> SteadyRule {
        SteadyRule {
            window: crate::base::thresholds::DEFAULT_WINDOW,
            max_rounds,
        }
    }
}

impl Repeat {
    /// Fixed runs and pauses, as before `--runs auto` (tests, plans of their own).
    pub fn fixed(runs: u32, warmup: Duration, interval: Duration) -> Repeat {
        Repeat {
            runs: Runs::Fixed(runs),
            warmup,
            interval: Interval::Fixed(interval),
            steady: None,
        }
    }

    /// The same with `--runs auto` replaced by its fewest runs, for an
    /// executor that cannot stop a test once it settles (fio).
    pub fn as_fixed(&self) -> Repeat {
        Repeat {
            runs: Runs::Fixed(self.runs.min()),
            ..*self
        }
    }

    pub fn validate(&self) -> crate::base::error::Result<()> {
        limits::check_count("runs", self.runs.max(), limits::MAX_RUNS).map_err(crate::base::error::usage)?;
        if let Some(st) = self.steady
            && (st.window == 0 || st.max_rounds < st.window as u32 || st.max_rounds > limits::MAX_ROUNDS)
        {
            return Err(crate::base::error::usage(format!(
                "steady state needs between {} and {} rounds, got {}",
                st.window,
                limits::MAX_ROUNDS,
                st.max_rounds
            )));
        }
        Ok(())
    }

    /// The rule that applies to `spec`: steady-state rounds are for jobs that write.
    pub fn steady_for(&self, spec: &JobSpec) -> Option<SteadyRule> {
        self.steady.filter(|_| spec.rw.writes())
    }
}

/// A line describing a job's shape, for listings.
pub fn describe(spec: &JobSpec) -> String {
    let limit = match spec.limit {
        Limit::Time(d) => fmt_duration(d),
        Limit::Bytes(b) => crate::base::units::fmt_bytes(b),
        Limit::Span => "the whole span".to_string(),
    };
    let sync = if spec.sync.is_none() {
        String::new()
    } else {
        format!(" sync={}", spec.sync.as_str())
    };
    format!(
        "{} bs={} qd={} threads={} {}{sync}",
        spec.rw.as_str(),
        fmt_bs(spec.bs),
        spec.qd,
        spec.threads,
        limit
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sustained_region_is_a_tenth_up_to_2_gib_in_whole_mib() {
        const G: u64 = 1 << 30;
        assert_eq!(Region::Sustained.bytes(256 << 20), 25 << 20);
        assert_eq!(Region::Sustained.bytes(8 * G), 819 << 20);
        assert_eq!(Region::Sustained.bytes(128 * G), 2 * G, "2 GiB at most");
        assert_eq!(Region::Sustained.bytes(4 << 20), 1 << 20, "a MiB at least");
        assert_eq!(Region::Sustained.bytes(4096), 4096, "never past the target");
        assert_eq!(Region::Whole.bytes(8 * G), 8 * G);
    }

    #[test]
    fn extent_is_clamped_to_the_target() {
        let mut s = JobSpec::custom(Custom {
            rw: Rw::Read,
            bs: 4096,
            qd: 1,
            threads: 1,
            mix_read: 100,
            limit: Limit::Span,
            direct: true,
            engine: EngineKind::Psync,
        });
        assert_eq!(s.extent(1000), (0, 1000), "span 0: the whole target");
        s.offset = 300;
        assert_eq!(s.extent(1000), (300, 700), "span 0: the rest of the target");
        s.span = 200;
        assert_eq!(s.extent(1000), (300, 200));
        s.span = 5000;
        assert_eq!(s.extent(1000), (300, 700), "no further than the target's end");
        s.offset = 5000;
        assert_eq!(s.extent(1000), (1000, 0), "an offset past the end addresses nothing");
    }

    #[test]
    fn a_sync_job_is_named_by_its_mode_and_must_write() {
        let limit = Limit::Time(Duration::from_secs(1));
        let w = JobSpec::custom(Custom {
            rw: Rw::Write,
            bs: 4096,
            qd: 1,
            threads: 1,
            mix_read: 0,
            limit,
            direct: true,
            engine: EngineKind::IoUring,
        });
        let d = w.clone().with_sync(SyncMode::Dsync);
        assert_eq!((d.name.as_str(), d.sync), ("write 4K Q1T1 dsync", SyncMode::Dsync));
        assert!(d.validate().is_ok());
        assert_eq!(describe(&d), "write bs=4K qd=1 threads=1 1s sync=dsync");
        assert_eq!(w.clone().with_sync(SyncMode::None).name, "write 4K Q1T1");
        let r = JobSpec::custom(Custom {
            rw: Rw::Randread,
            bs: 4096,
            qd: 1,
            threads: 1,
            mix_read: 100,
            limit,
            direct: true,
            engine: EngineKind::IoUring,
        })
        .with_sync(SyncMode::Fsync);
        let e = r.validate().unwrap_err().to_string();
        assert!(
            e.contains("--sync fsync makes each write durable, and this job does not write"),
            "{e}"
        );
        // A plan of an earlier version has no sync mode: none.
        let mut v = serde_json::to_value(&w).unwrap();
        assert_eq!(v["sync"], "none");
        v.as_object_mut().unwrap().remove("sync");
        assert_eq!(serde_json::from_value::<JobSpec>(v).unwrap().sync, SyncMode::None);
    }

    #[test]
    fn latency_modes_parse_and_size_their_batches() {
        assert_eq!(Timing::parse("exact"), Ok(Timing::Exact));
        assert_eq!(Timing::parse("batch"), Ok(Timing::Batch(None)));
        assert_eq!(Timing::parse("batch=8"), Ok(Timing::Batch(Some(8))));
        assert_eq!(Timing::parse("off"), Ok(Timing::Off));
        assert!(Timing::parse("sometimes").unwrap_err().contains("exact, batch, batch=N or off"));
        assert!(Timing::parse("batch=0").is_err());
        assert_eq!(Timing::Exact.batch(32), 1);
        assert_eq!(Timing::Batch(None).batch(32), 16, "half the queue");
        assert_eq!(Timing::Batch(Some(64)).batch(32), 32, "never more than the queue");
        assert_eq!(Timing::Off.batch(1), 1);
        assert_eq!(Timing::Batch(None).label(32), "batch=16");
        assert!(Timing::Batch(None).exact_at(1), "a batch of one is exact");
        assert!(!Timing::Off.exact_at(1));
    }

    #[test]
    fn runs_and_intervals_parse() {
        assert_eq!(Runs::parse("auto"), Ok(Runs::Auto { max: 10 }));
        assert_eq!(Runs::parse("auto:20"), Ok(Runs::Auto { max: 20 }));
        assert_eq!(Runs::parse("4"), Ok(Runs::Fixed(4)));
        assert!(Runs::parse("auto:0").is_err());
        assert!(Runs::parse("often").unwrap_err().contains("auto"));
        assert_eq!((Runs::Auto { max: 2 }).min(), 2, "never more than the maximum");
        assert_eq!(Runs::default().default_duration(), AUTO_WINDOW);
        assert_eq!(Runs::Fixed(3).default_duration(), FIXED_RUN);
        assert_eq!(Interval::parse("auto"), Ok(Interval::Auto));
        assert_eq!(Interval::parse("2s"), Ok(Interval::Fixed(Duration::from_secs(2))));
        assert_eq!(Interval::Auto.before_next(true), AUTO_REST);
        assert_eq!(Interval::Auto.before_next(false), Duration::ZERO);
        assert_eq!(Interval::Auto.between_runs(), Duration::ZERO);
        assert_eq!(Interval::Fixed(Duration::from_secs(1)).before_next(false), Duration::from_secs(1));
    }
}
