//! One type for everything iolab says about a figure or a target: a job's
//! warnings, `iolab info`'s hints and `iolab compare`'s findings are all a
//! [`Diagnostic`]: a stable [`Code`], a [`Severity`], what it is about and
//! the sentence the user reads.
//!
//! Each context keeps the JSON shape it always had (stored documents must
//! read back, and scripts read the fields):
//!
//! - warnings (jobs, `time`, app suites), the type's own serde:
//!   `{"code", "message"}`, plus `"subject"` when there is one;
//! - hints ([`hint_shape`]): `{"code", "subject", "text"}`;
//! - findings ([`finding_shape`]): `{"rule", "run", "test", "text"}`.
//!
//! Each shape also carries `"severity"`, but only when it differs from the
//! code's default ([`Code::severity`]): the default is implied by the code,
//! so documents are byte for byte what they were before severities
//! existed, and read back with the same severity. An unknown code or
//! severity never fails a load.

use crate::base::thresholds::HIGH_CV;
use crate::base::units::fmt_pct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How much a diagnostic matters for the figures it is about.
///
/// - `Info`: context worth knowing; the figures stand (a hint about the
///   target, buffered I/O on request, psync emulating depth, an import note).
/// - `Warning`: the figures may mislead or the measurement misbehaved; read
///   them with the message in mind (a write cliff, not steady, outliers).
/// - `Untrustworthy`: the figure is not the device's speed (a cache
///   answered, memory, CPU-bound, too noisy): never compare it as such.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Untrustworthy,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Untrustworthy => "untrustworthy",
        }
    }

    fn parse(s: &str) -> Option<Severity> {
        [Severity::Info, Severity::Warning, Severity::Untrustworthy]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

impl Serialize for Severity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for Severity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Severity".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let all = [Severity::Info, Severity::Warning, Severity::Untrustworthy].map(Severity::as_str);
        schemars::json_schema!({
            "description": "How much it matters: `info` (context; the figures stand), `warning` (the figures may mislead), `untrustworthy` (the figure is not the device's speed). Written only when it differs from the code's default.",
            "type": "string",
            "enum": all,
        })
    }
}

/// Declares [`Code`]: each variant once, with its stable string, its
/// default severity and, for the codes that make a figure untrustworthy as
/// the device's speed, why.
macro_rules! codes {
    (@why) => { None };
    (@why $why:expr) => { Some(String::from($why)) };
    ($( $(#[$doc:meta])* $variant:ident = $text:literal, $severity:ident $(($why:expr))?; )*) => {
        /// The stable identifier of a diagnostic: its JSON string never changes.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
            /// A code this build does not know (an older or newer document).
            Other(String),
        }

        impl Code {
            /// Every known code, in the order comparison findings list the
            /// untrustworthy ones.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The string in JSON and in `warning [code]`.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Code::$variant => $text, )*
                    Code::Other(s) => s,
                }
            }

            /// The code for a string; never fails (unknown: [`Code::Other`]).
            pub fn parse(s: &str) -> Code {
                match s {
                    $( $text => Code::$variant, )*
                    other => Code::Other(other.to_string()),
                }
            }

            /// The severity a diagnostic with this code has unless it says otherwise.
            pub fn severity(&self) -> Severity {
                match self {
                    $( Code::$variant => Severity::$severity, )*
                    Code::Other(_) => Severity::Warning,
                }
            }

            /// Why a figure carrying this code is not trustworthy as the
            /// device's speed; `None` when the code does not make it so.
            pub fn untrustworthy(&self) -> Option<String> {
                match self {
                    $( Code::$variant => codes!(@why $($why)?), )*
                    Code::Other(_) => None,
                }
            }
        }
    };
}

codes! {
    // ---- job warnings (`summary::job_report`)
    /// The device saw clearly fewer bytes than the job moved.
    CacheAnswered = "cache_answered", Untrustworthy("a cache answered instead of the device");
    /// The device saw clearly more bytes than the job moved.
    DeviceExtra = "device_extra", Warning;
    /// Another block device than the target's (or the named one) did the I/O.
    OtherDevice = "other_device", Untrustworthy("the I/O went to another device than the one the figures name");
    /// O_DIRECT was asked for and refused: buffered I/O instead.
    BufferedFallback = "buffered_fallback", Untrustworthy("O_DIRECT was refused, so the page cache was in the path");
    /// Buffered I/O on request.
    Buffered = "buffered", Info;
    /// No block device under the target (a job), or under the working directory (`time`).
    NoBlockDevice = "no_block_device", Untrustworthy("no block device serves the target: memory or cache speed");
    /// The top block device is memory-backed.
    MemoryDevice = "memory_device", Untrustworthy("the device is memory-backed: memory speed");
    /// Bandwidth varied more than [`HIGH_CV`] between runs.
    HighCv = "high_cv", Untrustworthy(format!("the runs varied by more than {}", fmt_pct(HIGH_CV)));
    /// iolab's threads kept the CPUs they could use busy.
    CpuBound = "cpu_bound", Untrustworthy("iolab's CPU, not the device, may have been the limit");
    /// The device had far fewer I/Os in flight than the job asked for
    /// (`DEPTH_SHORT`; `judge::depth`): iolab, not the device, set the pace.
    DeviceDepthShort = "device_depth_short", Untrustworthy("the device had far fewer I/Os in flight than the job asked for: iolab, not the device, set the pace");
    /// Write throughput fell and stayed lower inside a run.
    WriteCliff = "write_cliff", Warning;
    /// `--steady-state` ran out of rounds.
    NotSteady = "not_steady", Warning;
    /// `--runs auto` ran out of windows before they settled.
    NotSettled = "not_settled", Warning;
    /// psync emulated a queue depth with threads.
    PsyncThreads = "psync_threads", Info;
    /// Worker threads finished far apart.
    UnevenThreads = "uneven_threads", Warning;
    /// The figure sits at a cgroup throttle's limit on a device under the
    /// target (`THROTTLE_AT_LIMIT`): the throttle set it, not the device.
    AtThrottle = "at_throttle", Warning;
    /// I/O failed and was counted (`--continue-on-error`): the figures are of the I/O that succeeded.
    IoErrors = "io_errors", Untrustworthy("some of its I/O failed: the figures count only the I/O that succeeded");
    /// A flush returned far sooner than the device could have stored what
    /// was written before it (`judge::flush`): a cache answered the writes
    /// and the flush did not wait for it.
    FlushTooFast = "flush_too_fast", Untrustworthy("a flush returned before the device could have stored the writes: the write figure is a cache's");
    /// ZFS: no method kept the ARC (or the members' page cache) from
    /// answering a read job, so its figure is labelled cached (`judge::zfs`).
    ZfsArcCached = "zfs_arc_cached", Untrustworthy("ZFS's caches (the ARC) may have answered its reads: the figure is labelled cached, not the disks'");
    /// zfs-fuse acknowledges a flush before its writes reach the disks, so
    /// a write figure on it may count writes still in memory.
    ZfsFuseUnflushed = "zfs_fuse_unflushed", Untrustworthy("zfs-fuse acknowledged the flush before the writes reached the pool's disks: the write figure may count writes still in memory");
    /// ZFS: the member disks wrote another multiple of the job's data than
    /// the pool's layout predicts (`judge::zfs::write_model`).
    ZfsWriteAmplification = "zfs_write_amplification", Warning;
    /// ZFS: a member of a vdev moved nothing, or far less than its peers,
    /// where the layout spreads the job over them (`judge::zfs::uneven_members`).
    ZfsMemberUneven = "zfs_member_uneven", Warning;
    /// ZFS: the dataset's recordsize is far above the job's block size for
    /// I/O that moves whole records, so the disks move up to recordsize/bs
    /// times the job's bytes (`judge::zfs::recordsize_mismatch`).
    ZfsRecordsizeMismatch = "zfs_recordsize_mismatch", Warning;
    /// A scan's rate changes across the target.
    ScanCurve = "scan_curve", Info;
    // ---- timed commands and app suites (`summary::apps`)
    /// The first run was much slower than the rest.
    FirstRunSlower = "first_run_slower", Warning;
    /// Statistical outliers among the runs.
    Outliers = "outliers", Warning;
    /// The command exited non-zero in some runs.
    CommandFailed = "command_failed", Warning;
    /// `--cold` was asked for and some runs could not be made cold (ZFS's
    /// ARC without `--allow-export`, a busy pool, a persistent L2ARC: `judge::cold`).
    NotCold = "not_cold", Untrustworthy("--cold was asked for but caches that answer were not emptied: the times are (partly) warm");
    // ---- fio imports (`import::fio`)
    /// One of fio's clones imported as its own job.
    FioClone = "fio_clone", Info;
    /// A percentile iolab reports was not in fio's output.
    FioPercentileNearest = "fio_percentile_nearest", Info;
    /// A synchronous engine capped fio's iodepth.
    FioSyncIodepth = "fio_sync_iodepth", Info;
    /// fio reported an error for the job.
    FioError = "fio_error", Warning;
    /// fio issued trims, which are not imported.
    FioTrim = "fio_trim", Info;
    /// The job used another file than the document's target.
    FioOtherTarget = "fio_other_target", Info;
    /// fio's CPU figure counts its job threads only.
    FioCpuPerThread = "fio_cpu_per_thread", Info;
    /// fio's disk_util covers the whole fio run.
    FioDiskUtil = "fio_disk_util", Info;
    /// An older fio's JSON shape, and how its figures were read.
    FioLegacy = "fio_legacy", Info;
    // ---- hints (`iolab info`)
    /// The filesystem or device lives in RAM.
    MemoryBacked = "memory-backed", Info;
    /// The filesystem compresses what it writes.
    FsCompresses = "fs-compresses", Info;
    /// The filesystem is copy-on-write.
    FsCow = "fs-cow", Info;
    /// The filesystem is mounted with sync.
    FsSync = "fs-sync", Info;
    /// USB mass storage without UAS.
    UsbNoUas = "usb-no-uas", Info;
    /// The device has queue depth 1.
    QueueDepth1 = "queue-depth-1", Info;
    /// The device reports a rotating disk.
    Rotational = "rotational", Info;
    /// A volatile write cache is on.
    VolatileWriteCache = "volatile-write-cache", Info;
    /// A loop device without direct I/O.
    LoopBuffered = "loop-buffered", Info;
    /// A cgroup (v1 blkio or v2 io.max) throttles the device.
    CgroupThrottle = "cgroup-throttle", Info;
    /// ZFS accepts O_DIRECT and ignores it (before OpenZFS 2.3, `direct=disabled`, zfs-fuse).
    ZfsDirectIgnored = "zfs-direct-ignored", Info;
    /// A ZFS dataset's `sync` is `disabled` (writes acknowledged before they
    /// are stored) or `always` (every write waits for the intent log).
    ZfsSync = "zfs-sync", Info;
    /// A ZFS dataset's ARC keeps no file data (`primarycache=metadata` or
    /// `none`): every read goes to the disks, a whole record at a time.
    ZfsPrimarycache = "zfs-primarycache", Info;
    /// zfs-fuse has pool members (file vdevs) open without O_DIRECT: the
    /// kernel's page cache sits under the ARC.
    ZfsMemberPageCache = "zfs-member-page-cache", Info;
    /// zfs-fuse runs without `disable-block-cache`: the kernel caches its
    /// datasets' files above ZFS, for reads without O_DIRECT.
    ZfsFusePageCache = "zfs-fuse-page-cache", Info;
    /// A redundant layout (ZFS pool, md array) runs with members missing or failed.
    Degraded = "degraded", Info;
    // ---- comparison findings (`compare::findings`)
    /// The runs share no test.
    NoCommonTests = "no_common_tests", Warning;
    /// Per run: each direction's median ratio outside the noise.
    DirectionSummary = "direction_summary", Info;
    /// The largest ratio outside the noise.
    BiggestWin = "biggest_win", Info;
    /// The smallest ratio outside the noise.
    BiggestLoss = "biggest_loss", Info;
    /// Per run: no difference outside the noise.
    AllWithinNoise = "all_within_noise", Info;
    /// Per run: differences whose noise is unknown.
    NoiseUnknown = "noise_unknown", Warning;
    /// Per run: a notable difference in CPU per MB/s.
    CpuCost = "cpu_cost", Info;
    /// Per run: whether the faster device is worth it as a cache for the slower one.
    CacheCandidate = "cache_candidate", Info;
    /// The runs took latencies in different ways (exact, batch, off): their
    /// latencies are not compared.
    LatencyModesDiffer = "latency_modes_differ", Info;
    /// Per run and code: tests carrying a code that makes them untrustworthy.
    Untrustworthy = "untrustworthy", Untrustworthy;
    /// Per run: the same plan on the same target with another engine
    /// (iolab's, fio's) gave figures within the noise on every test.
    EnginesAgree = "engines_agree", Info;
    /// Per run: the same plan on the same target with another engine
    /// differs outside the noise on some test, or the noise is unknown.
    EnginesDiffer = "engines_differ", Warning;
    // ---- layouts (`compare::layouts`, rules in `judge::layouts`)
    /// A multi-device configuration gives what its layout should over one disk of its kind.
    LayoutDelivers = "layout_delivers", Info;
    /// A layout gives less than it should while its members were busy: they share a path.
    LayoutSharedPath = "layout_shared_path", Info;
    /// A layout gives less than it should while its members were idle part
    /// of the time, or the CPU was saturated: the host set the pace.
    LayoutHostLimit = "layout_host_limit", Info;
    /// A layout gives more than it should: a cache answered, or the one disk's figure is low.
    LayoutAbove = "layout_above", Warning;
    /// A parity layout (RAID-Z, raid5/6) writes less than one disk.
    LayoutParity = "layout_parity", Info;
    /// What one setting of a property sweep changed against another.
    LayoutProperty = "layout_property", Info;
    /// The best configuration for the suite, and those within noise of it.
    LayoutBest = "layout_best", Info;
    // ---- one plan on many hosts (`summary::hosts`, rules in `judge::hosts`)
    /// A host's figure on a test stands out of the other hosts' figures and noise.
    OutlierHost = "outlier_host", Warning;
    /// The hosts differ on a test, but no single host can be named (no
    /// majority agrees; `info` when the difference is within the runs' noise).
    HostsDiffer = "hosts_differ", Warning;
    /// Every host that reported agrees on every test they share.
    HostsAgree = "hosts_agree", Info;
    /// A host gave no result.
    HostFailed = "host_failed", Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl schemars::JsonSchema for Code {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Code".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known: Vec<&str> = Code::ALL.iter().map(Code::as_str).collect();
        schemars::json_schema!({
            "description": "The stable identifier of a diagnostic (its string never changes). The codes this version knows are its examples; a document of another version may carry others.",
            "type": "string",
            "examples": known,
        })
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        String::deserialize(d).map(|s| Code::parse(&s))
    }
}

/// A warning, hint or finding.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// What it is about, when that is not implied by where it sits: the
    /// device or mount point of a hint, the test of a finding. A job's
    /// warnings are about the job.
    pub subject: Option<String>,
    /// The sentence the user reads.
    pub message: String,
    /// The stored run a comparison finding is about (`None` elsewhere, and
    /// for findings about the comparison as a whole).
    pub run: Option<i64>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity, about nothing in particular.
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: code.severity(),
            code,
            subject: None,
            message: message.into(),
            run: None,
        }
    }

    /// The same, about `subject`.
    pub fn about(mut self, subject: impl Into<String>) -> Diagnostic {
        self.subject = Some(subject.into());
        self
    }

    /// The same, about the stored run `run`.
    pub fn on_run(mut self, run: Option<i64>) -> Diagnostic {
        self.run = run;
        self
    }
}

/// A severity as read from a document: missing or unknown ones fall back
/// to the code's default.
fn lenient_severity<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Severity>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.as_deref().and_then(Severity::parse))
}

/// A diagnostic as read from any of the shapes.
fn read_back(code: Code, severity: Option<Severity>, subject: Option<String>, message: String, run: Option<i64>) -> Diagnostic {
    Diagnostic {
        severity: severity.unwrap_or_else(|| code.severity()),
        code,
        subject,
        message,
        run,
    }
}

/// The severity to write: none when it is the code's default.
fn unless_default(severity: Severity, code: &Code) -> Option<Severity> {
    (severity != code.severity()).then_some(severity)
}

/// A warning: `{"code", "message"}`, plus `severity` when it is not the
/// code's default and `subject` when there is one.
#[derive(Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "Warning")]
struct WarningWire {
    /// What it is.
    code: Code,
    /// The sentence the user reads.
    message: String,
    /// How much it matters, when not the code's default.
    #[serde(default, deserialize_with = "lenient_severity", skip_serializing_if = "Option::is_none")]
    severity: Option<Severity>,
    /// What it is about, when that is not implied by where it sits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    /// The stored run it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "id"))]
    run: Option<i64>,
}

impl schemars::JsonSchema for Diagnostic {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        WarningWire::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        WarningWire::schema_id()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        WarningWire::json_schema(g)
    }
}

impl Serialize for Diagnostic {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WarningWire {
            code: self.code.clone(),
            message: self.message.clone(),
            severity: unless_default(self.severity, &self.code),
            subject: self.subject.clone(),
            run: self.run,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Diagnostic {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Diagnostic, D::Error> {
        let w = WarningWire::deserialize(d)?;
        Ok(read_back(w.code, w.severity, w.subject, w.message, w.run))
    }
}

/// `#[serde(with = "hint_shape")]` on a `Vec<Diagnostic>`: `iolab info`'s
/// hints, `{"code", "subject", "text"}`.
pub mod hint_shape {
    use super::*;

    /// A hint of `iolab info`.
    #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    #[schemars(rename = "Hint")]
    struct HintWire {
        /// What it is.
        code: Code,
        /// The device or mount point it is about.
        #[serde(default)]
        subject: String,
        /// The sentence the user reads.
        text: String,
        /// How much it matters, when not the code's default.
        #[serde(default, deserialize_with = "lenient_severity", skip_serializing_if = "Option::is_none")]
        severity: Option<Severity>,
    }

    pub fn serialize<S: Serializer>(v: &[Diagnostic], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|h| HintWire {
            code: h.code.clone(),
            subject: h.subject.clone().unwrap_or_default(),
            text: h.message.clone(),
            severity: unless_default(h.severity, &h.code),
        }))
    }

    /// The schema of the hints.
    pub fn schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        g.subschema_for::<Vec<HintWire>>()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Diagnostic>, D::Error> {
        Ok(Vec::<HintWire>::deserialize(d)?
            .into_iter()
            .map(|h| read_back(h.code, h.severity, Some(h.subject), h.text, None))
            .collect())
    }
}

/// `#[serde(with = "finding_shape")]` on a `Vec<Diagnostic>`: `iolab
/// compare`'s findings, `{"rule", "run", "test", "text"}`.
pub mod finding_shape {
    use super::*;

    /// A finding of `iolab compare`.
    #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    #[schemars(rename = "Finding")]
    struct FindingWire {
        /// The rule that found it (a diagnostic code).
        rule: Code,
        /// The run it is about (`null`: the comparison as a whole).
        #[serde(default)]
        #[schemars(extend("x-unit" = "id"))]
        run: Option<i64>,
        /// The test it is about (`null`: every test).
        #[serde(default)]
        test: Option<String>,
        /// The sentence the user reads.
        text: String,
        /// How much it matters, when not the code's default.
        #[serde(default, deserialize_with = "lenient_severity", skip_serializing_if = "Option::is_none")]
        severity: Option<Severity>,
    }

    pub fn serialize<S: Serializer>(v: &[Diagnostic], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|f| FindingWire {
            rule: f.code.clone(),
            run: f.run,
            test: f.subject.clone(),
            text: f.message.clone(),
            severity: unless_default(f.severity, &f.code),
        }))
    }

    /// The schema of the findings.
    pub fn schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        g.subschema_for::<Vec<FindingWire>>()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Diagnostic>, D::Error> {
        Ok(Vec::<FindingWire>::deserialize(d)?
            .into_iter()
            .map(|f| read_back(f.rule, f.severity, f.test, f.text, f.run))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    //! Tests of the codes, severities and the three JSON shapes.

    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn every_code_round_trips_through_its_string() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert_eq!(&Code::parse(c.as_str()), c);
            assert_eq!(serde_json::to_value(c).unwrap(), Value::String(c.as_str().into()));
        }
        assert_eq!(Code::CacheAnswered.as_str(), "cache_answered");
        assert_eq!(Code::UsbNoUas.as_str(), "usb-no-uas");
        assert_eq!(Code::BiggestWin.as_str(), "biggest_win");
        assert_eq!(Code::CacheAnswered, "cache_answered");
    }

    #[test]
    fn unknown_codes_are_kept_not_refused() {
        let c: Code = serde_json::from_value(json!("from_the_future")).unwrap();
        assert_eq!(c, Code::Other("from_the_future".into()));
        assert_eq!(c.to_string(), "from_the_future");
        assert_eq!(c.severity(), Severity::Warning);
        assert_eq!(c.untrustworthy(), None);
    }

    /// The codes that make a figure untrustworthy, their order and reasons are
    /// those comparison findings have always named (`other_device` since 0.2).
    #[test]
    fn untrustworthy_codes_in_order_with_their_reasons() {
        let listed: Vec<(&str, String)> = Code::ALL
            .iter()
            .filter_map(|c| c.untrustworthy().map(|why| (c.as_str(), why)))
            .collect();
        let expected = [
            ("cache_answered", "a cache answered instead of the device"),
            ("other_device", "the I/O went to another device than the one the figures name"),
            ("buffered_fallback", "O_DIRECT was refused, so the page cache was in the path"),
            ("no_block_device", "no block device serves the target: memory or cache speed"),
            ("memory_device", "the device is memory-backed: memory speed"),
            ("high_cv", "the runs varied by more than 10%"),
            ("cpu_bound", "iolab's CPU, not the device, may have been the limit"),
            (
                "device_depth_short",
                "the device had far fewer I/Os in flight than the job asked for: iolab, not the device, set the pace",
            ),
            ("io_errors", "some of its I/O failed: the figures count only the I/O that succeeded"),
            (
                "flush_too_fast",
                "a flush returned before the device could have stored the writes: the write figure is a cache's",
            ),
            (
                "zfs_arc_cached",
                "ZFS's caches (the ARC) may have answered its reads: the figure is labelled cached, not the disks'",
            ),
            (
                "zfs_fuse_unflushed",
                "zfs-fuse acknowledged the flush before the writes reached the pool's disks: the write figure may count writes still in memory",
            ),
            (
                "not_cold",
                "--cold was asked for but caches that answer were not emptied: the times are (partly) warm",
            ),
        ];
        assert_eq!(listed, expected.iter().map(|(c, w)| (*c, w.to_string())).collect::<Vec<_>>());
        for c in Code::ALL {
            if c.untrustworthy().is_some() {
                assert_eq!(c.severity(), Severity::Untrustworthy, "{c}");
            }
        }
    }

    #[test]
    fn severities_order_and_read_leniently() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Untrustworthy);
        let d: Diagnostic = serde_json::from_value(json!({"code": "psync_threads", "message": "m", "severity": "dire"})).unwrap();
        assert_eq!(d.severity, Severity::Info, "an unknown severity falls back to the code's");
        let d: Diagnostic = serde_json::from_value(json!({"code": "psync_threads", "message": "m", "severity": "untrustworthy"})).unwrap();
        assert_eq!(d.severity, Severity::Untrustworthy, "a stated severity wins");
    }

    /// A severity other than the code's default is written, and read back.
    #[test]
    fn only_a_severity_other_than_the_default_is_written() {
        let mut d = Diagnostic::new(Code::PsyncThreads, "m");
        assert!(serde_json::to_value(&d).unwrap().get("severity").is_none());
        d.severity = Severity::Warning;
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["severity"], "warning");
        assert_eq!(serde_json::from_value::<Diagnostic>(v).unwrap(), d);
    }

    #[test]
    fn warning_shape_is_unchanged_and_reads_old_documents() {
        let old = json!({"code": "cache_answered", "message": "loop9 saw only 10%"});
        let d: Diagnostic = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(d, Diagnostic::new(Code::CacheAnswered, "loop9 saw only 10%"));
        assert_eq!(d.severity, Severity::Untrustworthy);
        assert_eq!(serde_json::to_value(&d).unwrap(), old, "written exactly as before");
        let unknown = json!({"code": "from_the_future", "message": "m"});
        let d: Diagnostic = serde_json::from_value(unknown.clone()).unwrap();
        assert_eq!(d.code, Code::Other("from_the_future".into()));
        assert_eq!(serde_json::to_value(&d).unwrap(), unknown);
        let about = Diagnostic::new(Code::Outliers, "m").about("clone");
        assert_eq!(serde_json::to_value(&about).unwrap()["subject"], "clone");
        let back: Diagnostic = serde_json::from_value(serde_json::to_value(&about).unwrap()).unwrap();
        assert_eq!(back, about);
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Hints {
        #[serde(with = "hint_shape")]
        hints: Vec<Diagnostic>,
    }

    #[test]
    fn hint_shape_keeps_code_subject_text() {
        let old = json!({"hints": [{"code": "usb-no-uas", "subject": "sdc", "text": "one command at a time"}]});
        let h: Hints = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(h.hints, [Diagnostic::new(Code::UsbNoUas, "one command at a time").about("sdc")]);
        assert_eq!(serde_json::to_value(&h).unwrap(), old);
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Findings {
        #[serde(with = "finding_shape")]
        findings: Vec<Diagnostic>,
    }

    #[test]
    fn finding_shape_keeps_rule_run_test_text() {
        let f = Findings {
            findings: vec![
                Diagnostic::new(Code::BiggestWin, "Biggest win").about("S1 read").on_run(Some(2)),
                Diagnostic::new(Code::NoCommonTests, "nothing"),
            ],
        };
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(
            v,
            json!({"findings": [
                {"rule": "biggest_win", "run": 2, "test": "S1 read", "text": "Biggest win"},
                {"rule": "no_common_tests", "run": null, "test": null, "text": "nothing"},
            ]})
        );
        assert_eq!(serde_json::from_value::<Findings>(v).unwrap(), f);
    }
}
