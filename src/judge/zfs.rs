//! ZFS as rules: how a read job's figure is made the pool's disks' (or is
//! labelled cached), and how many bytes a pool's member disks write per
//! byte of data. Pure: the facts come from `device::ZfsInfo`, the mounts
//! and the plan (`experiment::zfs` gathers them), and the actions
//! (dropping the kernel's caches, exporting and importing the pool) are
//! `experiment::zfs`'s and `targets::zfs`'s.
//!
//! # Reads: which caches can answer, and how each is kept out
//!
//! From OpenZFS 0.8 to 2.2, and in zfs-fuse, O_DIRECT is accepted and the
//! reads go through the ARC; OpenZFS 2.3 added real Direct I/O (the
//! dataset's `direct` property). `drop_caches` does not empty the ARC.
//! Three caches can answer a read job on ZFS (see [`caches`]):
//!
//! - the ARC, at most its maximum (`c_max`: 100 MiB with Debian's
//!   `/etc/zfs/zfsrc` for zfs-fuse, often half of RAM for OpenZFS); an
//!   export and import of the pool empties it;
//! - with zfs-fuse, unless its daemon runs with `--disable-block-cache`,
//!   the kernel's page cache of the member devices, which the daemon reads
//!   through: bounded by memory only; `drop_caches` empties it;
//! - a cache device (L2ARC), of a size iolab does not count on; an
//!   export and import empties it, except on OpenZFS 2.0 and later, which
//!   keeps it (persistent L2ARC).
//!
//! A cache cannot answer a job when it was emptied just before the job and
//! the job reads each byte at most once (a sequential pass over no more
//! than its span: whatever the cache holds, the job read from the disks
//! first), and it can answer only a small share when it is bounded and the
//! job's span is at least [`ZFS_SPAN_PAST_CACHE`] times the bounded caches
//! together: with a span S and caches of A bytes, at most about A/S of
//! random reads can hit. [`choose`] tries, in this order: OpenZFS's Direct
//! I/O; a span past the caches (the kernel's caches dropped first where
//! they hold the members' data); an export and import of the pool between
//! the prefill and the job (only with `--allow-export`); and otherwise
//! labels the figure cached (`zfs_arc_cached`).
//!
//! # Writes: what the layout writes per byte of data
//!
//! [`write_ratio`] is the model (stated there): a stripe writes each byte
//! once, an n-way mirror n times, RAID-Z its data sectors plus parity,
//! rounded up to whole groups. [`write_model`] judges a measured ratio
//! against it with [`ZFS_WRITE_MODEL_TOLERANCE`].

use super::diagnostic::{Code, Diagnostic};
use crate::base::thresholds::{
    DEVICE_TOLERANCE, ZFS_MEMBER_MIN_BYTES, ZFS_MEMBER_MIN_SHARE, ZFS_RECORD_MISMATCH, ZFS_SPAN_PAST_CACHE, ZFS_WRITE_MODEL_TOLERANCE,
};
use crate::base::units::{fmt_bs, fmt_bytes};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which ZFS a dataset is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// OpenZFS (ZFS on Linux): a kernel module, mounts of type `zfs`.
    OpenZfs,
    /// zfs-fuse: a daemon, mounts of type `fuse.zfs`.
    ZfsFuse,
}

impl Implementation {
    /// The implementation behind a mount of type `fstype`, if it is ZFS.
    pub fn of_fstype(fstype: &str) -> Option<Implementation> {
        match fstype {
            "zfs" => Some(Implementation::OpenZfs),
            "fuse.zfs" => Some(Implementation::ZfsFuse),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Implementation::OpenZfs => "openzfs",
            Implementation::ZfsFuse => "zfs-fuse",
        }
    }
}

/// What [`choose`] decides from: the pool's caches, the job, and what iolab may do.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadFacts {
    pub implementation: Implementation,
    /// The pool's name, for the messages.
    pub pool: String,
    /// The ARC's maximum (`c_max`), when known.
    pub arc_max: Option<u64>,
    /// The job's O_DIRECT reads bypass the ARC: OpenZFS 2.3 or later with
    /// `direct` not `disabled`, and the job in O_DIRECT.
    pub direct_io: bool,
    /// zfs-fuse reads some data members through the kernel's page cache
    /// (it opens block devices O_DIRECT, file vdevs not:
    /// [`crate::device::ZfsInfo::members_through_page_cache`]); `None`:
    /// unknown, taken as yes. Ignored for OpenZFS.
    pub member_page_cache: Option<bool>,
    /// The pool has cache devices (L2ARC).
    pub cache_devices: bool,
    /// Its L2ARC survives an export and import (OpenZFS 2.0 and later).
    pub l2arc_persistent: bool,
    /// Bytes of the target the job reads from.
    pub span: u64,
    /// The job reads each byte of its span at most once (sequential, and
    /// no more bytes in all than the span; see [`reads_once`]).
    pub reads_once: bool,
    /// The job can run each of its runs apart, cold: a sequential read of
    /// several runs (or of a run for a time) whose every run reads at most
    /// its span, the pool exported and imported before each run (see
    /// [`runs_apart`]).
    pub runs_apart: bool,
    /// iolab may drop the kernel's caches (root: `/proc/sys/vm/drop_caches`).
    pub can_drop_caches: bool,
    /// The user allowed an export and import of the pool (`--allow-export`).
    pub allow_export: bool,
    /// Why the pool may not be exported even so (it holds `/`, its members
    /// are unknown, the test file has no name to reopen it by), if it may not.
    pub export_refused: Option<String>,
}

/// How a read job on ZFS kept the caches from answering, or that it could not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadMethod {
    /// OpenZFS's Direct I/O (2.3 on): O_DIRECT reads bypass the ARC.
    DirectIo,
    /// A span well past the caches' maximum (and the kernel's caches
    /// dropped where they hold the members' data).
    SpanPastArc,
    /// The pool exported and imported between the prefill and the job.
    ExportImport,
    /// The pool exported and imported before each run of the job (and
    /// before its warm-up), each run on workers of its own, each reading
    /// at most its span.
    ExportEachRun,
    /// None of them: the figure is labelled cached (`zfs_arc_cached`).
    Cached,
    /// A method a newer iolab named, kept as written.
    Other(String),
}

impl ReadMethod {
    const KNOWN: [ReadMethod; 5] = [
        ReadMethod::DirectIo,
        ReadMethod::SpanPastArc,
        ReadMethod::ExportImport,
        ReadMethod::ExportEachRun,
        ReadMethod::Cached,
    ];

    pub fn as_str(&self) -> &str {
        match self {
            ReadMethod::DirectIo => "direct_io",
            ReadMethod::SpanPastArc => "span_past_arc",
            ReadMethod::ExportImport => "export_import",
            ReadMethod::ExportEachRun => "export_each_run",
            ReadMethod::Cached => "cached",
            ReadMethod::Other(s) => s,
        }
    }

    pub fn parse(s: &str) -> ReadMethod {
        Self::KNOWN
            .into_iter()
            .find(|m| m.as_str() == s)
            .unwrap_or_else(|| ReadMethod::Other(s.to_string()))
    }

    /// Whether the figure is the disks' (not labelled cached).
    pub fn is_cold(&self) -> bool {
        matches!(
            self,
            ReadMethod::DirectIo | ReadMethod::SpanPastArc | ReadMethod::ExportImport | ReadMethod::ExportEachRun
        )
    }
}

impl Serialize for ReadMethod {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReadMethod {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ReadMethod, D::Error> {
        String::deserialize(d).map(|s| ReadMethod::parse(&s))
    }
}

impl schemars::JsonSchema for ReadMethod {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ZfsReadMethod".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let known = Self::KNOWN.map(|m| m.as_str().to_string());
        schemars::json_schema!({
            "description": "`direct_io` (OpenZFS 2.3's Direct I/O bypassed the ARC), `span_past_arc` (a span well past the caches' maximum), `export_import` (the pool exported and imported before the job), `export_each_run` (the same before each of its runs, each run reading its span at most once), `cached` (none could: the figure is labelled cached). A document of another version may carry others.",
            "type": "string",
            "examples": known,
        })
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How a read job on ZFS kept its caches from answering: recorded with
/// the job (`zfs_read`), and said under the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ZfsRead {
    /// How: `direct_io`, `span_past_arc`, `export_import`, `export_each_run`, or `cached`
    /// (none could: the figure is labelled cached, `zfs_arc_cached`).
    pub method: ReadMethod,
    /// The kernel's caches were dropped before the job (zfs-fuse reads its
    /// members through them).
    #[serde(default, skip_serializing_if = "is_false")]
    pub dropped_caches: bool,
    /// Why this method, in words: the facts it was chosen from.
    pub reason: String,
}

/// One cache that can answer a read job on ZFS.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    /// As the messages name it ("the ARC").
    pub name: &'static str,
    /// The most it holds; `None`: unbounded or unknown.
    pub bound: Option<u64>,
    /// An export and import of the pool empties it.
    pub emptied_by_export: bool,
    /// Dropping the kernel's caches empties it.
    pub emptied_by_drop: bool,
}

/// The caches that can answer the job's reads (none with Direct I/O).
pub fn caches(f: &ReadFacts) -> Vec<Cache> {
    if f.direct_io {
        return Vec::new();
    }
    let mut v = vec![Cache {
        name: "the ARC",
        bound: f.arc_max,
        emptied_by_export: true,
        emptied_by_drop: false,
    }];
    if f.implementation == Implementation::ZfsFuse && f.member_page_cache != Some(false) {
        v.push(Cache {
            name: "the kernel's page cache of the members zfs-fuse reads without O_DIRECT",
            bound: None,
            emptied_by_export: false,
            emptied_by_drop: true,
        });
    }
    if f.cache_devices {
        v.push(Cache {
            name: "the cache device (L2ARC)",
            bound: None,
            emptied_by_export: !f.l2arc_persistent,
            emptied_by_drop: false,
        });
    }
    v
}

/// The caches a read cross-check names when the members read too little.
pub fn read_caches(implementation: Implementation, member_page_cache: Option<bool>) -> &'static str {
    match implementation {
        Implementation::ZfsFuse if member_page_cache != Some(false) => {
            "the ARC or the kernel's page cache of the members zfs-fuse reads without O_DIRECT (file vdevs; it opens block devices O_DIRECT)"
        }
        Implementation::ZfsFuse => "the ARC, which zfs-fuse uses even with O_DIRECT",
        Implementation::OpenZfs => "the ARC, which OpenZFS before 2.3 uses even with O_DIRECT",
    }
}

/// Whether a job reads each byte at most once: sequential, without a
/// warm-up of unknown length before it, and no more bytes in all
/// (`total`: `None` when time-limited, so unknown) than its span.
pub fn reads_once(sequential: bool, warmup: bool, total: Option<u64>, span: u64) -> bool {
    sequential && !warmup && total.is_some_and(|t| t <= span)
}

/// Whether a sequential job can be run as runs apart, each cold: it has
/// more than one pass (runs, or a warm-up before its run) or reads for a
/// time, and no run is planned to read more than its span (`per_run`:
/// bytes per run, `None` when time-limited, checked afterwards by
/// [`wrapped_run`]).
pub fn runs_apart(sequential: bool, passes: u32, per_run: Option<u64>, span: u64) -> bool {
    sequential && (passes > 1 || per_run.is_none()) && per_run.is_none_or(|b| b <= span)
}

/// A job run apart ([`ReadMethod::ExportEachRun`]) whose run read more
/// than its span (`run_bytes`, a time-limited run that wrapped around):
/// the ARC may have answered that run's second pass, so the figure is
/// labelled cached, with the run named.
pub fn wrapped_run(chosen: &ZfsRead, run_bytes: &[u64], span: u64) -> Option<ZfsRead> {
    if chosen.method != ReadMethod::ExportEachRun {
        return None;
    }
    let (i, b) = run_bytes.iter().enumerate().find(|(_, b)| **b > span)?;
    Some(ZfsRead {
        method: ReadMethod::Cached,
        dropped_caches: chosen.dropped_caches,
        reason: format!(
            "run {} read {} of a {} span, so it read part of its span twice and the ARC may have answered the second time; a larger --size or a shorter run would do",
            i + 1,
            fmt_bytes(*b),
            fmt_bytes(span)
        ),
    })
}

/// Why the job's reads are not the disks' with these caches emptied (or
/// not): `None` when they are. `export`, `drop`: the pool is exported and
/// imported, the kernel's caches dropped, before the job.
pub fn cold(f: &ReadFacts, export: bool, drop: bool) -> Option<String> {
    let mut bounded = 0u64;
    let mut any = false;
    for c in caches(f) {
        let emptied = (export && c.emptied_by_export) || (drop && c.emptied_by_drop);
        if emptied && f.reads_once {
            continue;
        }
        let why_kept = if emptied {
            "the job reads its span more than once"
        } else if c.emptied_by_export && !export {
            "without an export it keeps what it holds"
        } else if c.emptied_by_drop && !drop {
            "emptying it needs root (drop_caches)"
        } else {
            "nothing iolab does empties it"
        };
        match c.bound {
            None => {
                return Some(format!(
                    "{} can answer ({why_kept}), and its size is {}",
                    c.name,
                    if c.name == "the ARC" { "unknown" } else { "not bounded" }
                ));
            }
            Some(b) => {
                bounded = bounded.saturating_add(b);
                any = true;
            }
        }
    }
    if !any || f.span as f64 >= ZFS_SPAN_PAST_CACHE * bounded as f64 {
        return None;
    }
    Some(format!(
        "the span ({}) is less than {ZFS_SPAN_PAST_CACHE}× the ARC's maximum ({}): up to about {:.0}% of random reads could hit it, more than the {:.0}% the cross-check tolerates; a span of at least {} would do (--size)",
        fmt_bytes(f.span),
        fmt_bytes(bounded),
        (bounded as f64 / f.span.max(1) as f64 * 100.0).min(100.0),
        DEVICE_TOLERANCE * 100.0,
        fmt_bytes(needed_span(bounded)),
    ))
}

/// The smallest span, in whole MiB, that is [`ZFS_SPAN_PAST_CACHE`] times `bounded`.
fn needed_span(bounded: u64) -> u64 {
    ((ZFS_SPAN_PAST_CACHE * bounded as f64).ceil() as u64).next_multiple_of(1 << 20)
}

/// The method that makes the job's figure the disks', or the label.
/// Tries, least disruptive first: Direct I/O, a span past the caches
/// (dropping the kernel's caches where they hold the members' data and
/// iolab may), an export and import of the pool (with consent, when
/// nothing refuses it); else [`ReadMethod::Cached`] with why. An export
/// chosen here may still fail when it is tried: then [`export_failed`].
pub fn choose(f: &ReadFacts) -> ZfsRead {
    if f.direct_io {
        return ZfsRead {
            method: ReadMethod::DirectIo,
            dropped_caches: false,
            reason: "OpenZFS's Direct I/O: the job's O_DIRECT reads bypass the ARC".into(),
        };
    }
    let caches = caches(f);
    // Drop the kernel's caches wherever they may hold the members' data.
    let drop = f.can_drop_caches && caches.iter().any(|c| c.emptied_by_drop);
    let dropped = |s: String| {
        if drop {
            format!("{s}; the kernel's caches were dropped before the job")
        } else {
            s
        }
    };
    let Some(no_span) = cold(f, false, drop) else {
        let bound: u64 = caches.iter().filter_map(|c| c.bound).sum();
        return ZfsRead {
            method: ReadMethod::SpanPastArc,
            dropped_caches: drop,
            reason: dropped(format!(
                "the span ({}) is at least {ZFS_SPAN_PAST_CACHE}× the ARC's maximum ({}): at most about {:.0}% of the reads could hit it",
                fmt_bytes(f.span),
                fmt_bytes(bound),
                bound as f64 / f.span.max(1) as f64 * 100.0
            )),
        };
    };
    // Each run apart: the pool exported and imported before every run,
    // when that is what keeps a job that reads its span more than once cold.
    let each_run = f.runs_apart
        && !f.reads_once
        && cold(
            &ReadFacts {
                reads_once: true,
                ..f.clone()
            },
            true,
            drop,
        )
        .is_none();
    let with_export = if each_run { None } else { cold(f, true, drop) };
    let no_help = |why: &str| {
        if why == no_span {
            format!("an export and import of pool {} would not help", f.pool)
        } else {
            format!("an export and import of pool {} would not do either: {why}", f.pool)
        }
    };
    let export = match (&with_export, f.allow_export, &f.export_refused) {
        (Some(why), _, _) => Err(no_help(why)),
        (None, false, _) => Err(format!(
            "an export and import of pool {} would empty the ARC, with --allow-export (its mounts disappear for a moment)",
            f.pool
        )),
        (None, true, Some(why)) => Err(format!("pool {} is not exported: {why}", f.pool)),
        (None, true, None) => Ok(()),
    };
    match export {
        Ok(()) if each_run => ZfsRead {
            method: ReadMethod::ExportEachRun,
            dropped_caches: drop,
            reason: dropped(format!(
                "pool {} was exported and imported before each run of the job, each run on workers of its own, reading its span at most once: the ARC held none of it",
                f.pool
            )),
        },
        Ok(()) => ZfsRead {
            method: ReadMethod::ExportImport,
            dropped_caches: drop,
            reason: dropped(format!(
                "pool {} was exported and imported before the job, which reads each byte once: the ARC held none of it",
                f.pool
            )),
        },
        Err(no_export) => ZfsRead {
            method: ReadMethod::Cached,
            dropped_caches: drop,
            reason: format!("{no_span}; {no_export}"),
        },
    }
}

/// The export chosen by [`choose`] failed (`why`: `zpool export`'s words):
/// the figure is labelled cached instead.
pub fn export_failed(chosen: &ZfsRead, pool: &str, why: &str) -> ZfsRead {
    ZfsRead {
        method: ReadMethod::Cached,
        dropped_caches: chosen.dropped_caches,
        reason: format!("`zpool export {pool}` failed ({why}), so the ARC kept what it held"),
    }
}

/// `zfs_arc_cached`: no method kept the caches from answering the job's reads.
pub fn arc_cached(read: &ZfsRead, caches: &str) -> Option<Diagnostic> {
    (read.method == ReadMethod::Cached).then(|| {
        Diagnostic::new(
            Code::ZfsArcCached,
            format!(
                "CACHED: these reads may have been answered by {caches}, so the read figure is labelled cached, not the pool's disks': {}",
                read.reason
            ),
        )
    })
}

// ------------------------------------------------------------------ writes

/// `zfs_fuse_unflushed`: a job that wrote on a zfs-fuse pool. zfs-fuse
/// returns from `fsync`/`fdatasync` before its writes reach the pool's
/// disks (measured here, `tests/integration/truth/zfs.rs`: `fdatasync` in
/// 0.03 to 0.2 ms, then nothing written to the members for seconds), so
/// the clock stops before the data is stored, and the members' bytes in
/// the job's window are partly earlier writes: neither the figure nor the
/// write model can be judged. OpenZFS's `fsync` commits the ZIL.
pub fn unflushed_writes(implementation: Implementation, wrote: bool) -> Option<Diagnostic> {
    (implementation == Implementation::ZfsFuse && wrote).then(|| {
        Diagnostic::new(
            Code::ZfsFuseUnflushed,
            "UNFLUSHED: zfs-fuse acknowledges fsync before its writes reach the pool's disks, so the write figure may be higher than the disks can take, and the members' bytes in the job's window (and the layout's write model) are not judged; time writes several times the daemon's memory, or on OpenZFS",
        )
    })
}

/// How a pool's data vdevs keep data (all of them alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redundancy {
    /// Plain disks (or files) side by side: each block once.
    Stripe,
    /// Mirrors of `copies` members: each block on every member.
    Mirror { copies: u32 },
    /// RAID-Z of `disks` members with `parity` (1..3) parity sectors per row.
    RaidZ { parity: u32, disks: u32 },
}

impl Redundancy {
    /// "3-way mirror", "raidz1 of 3 disks", "stripe".
    pub fn describe(self) -> String {
        match self {
            Redundancy::Stripe => "stripe".into(),
            Redundancy::Mirror { copies } => format!("{copies}-way mirror"),
            Redundancy::RaidZ { parity, disks } => format!("raidz{parity} of {disks} disks"),
        }
    }
}

/// Sectors RAID-Z allocates for one block of `record` bytes: `d` data
/// sectors of 2^`ashift` bytes, `parity` sectors for each row of
/// `disks − parity` data sectors (`parity × ceil(d / (disks − parity))`),
/// and the total rounded up to a multiple of `parity + 1`, so that no
/// free gap too small for a block of its own is left (OpenZFS
/// `vdev_raidz_asize`).
pub fn raidz_sectors(record: u64, ashift: u32, parity: u32, disks: u32) -> u64 {
    let d = record.div_ceil(1u64 << ashift);
    let per_row = u64::from(disks.saturating_sub(parity).max(1));
    let p = u64::from(parity) * d.div_ceil(per_row);
    (d + p).next_multiple_of(u64::from(parity) + 1)
}

/// The model: bytes the member disks write per byte of data, for blocks of
/// `record` bytes (the dataset's recordsize; data that does not compress,
/// as iolab's) and sectors of 2^`ashift` bytes. A block takes whole
/// sectors; a stripe writes it once, an n-way mirror n times, RAID-Z its
/// [`raidz_sectors`]. So RAID-Z1 of 3 at 128K records and ashift 12 writes
/// 32 data + 16 parity sectors, 1.5×; at 8K records 2 + 1, rounded up to 4
/// sectors, 2×. Metadata, the ZIL and transaction-group overhead are not
/// in the model ([`ZFS_WRITE_MODEL_TOLERANCE`] covers metadata).
pub fn write_ratio(layout: Redundancy, record: u64, ashift: u32) -> f64 {
    let sector = 1u64 << ashift;
    let record = record.max(1);
    let allocated = match layout {
        Redundancy::Stripe => record.next_multiple_of(sector),
        Redundancy::Mirror { copies } => record.next_multiple_of(sector) * u64::from(copies),
        Redundancy::RaidZ { parity, disks } => raidz_sectors(record, ashift, parity, disks) * sector,
    };
    allocated as f64 / record as f64
}

/// The record size and ashift the model assumes when ZFS does not say:
/// OpenZFS's default recordsize and the ashift of 4K-sector disks (and of
/// zfs-fuse's vdevs by default).
pub const ASSUMED_RECORD: u64 = 128 << 10;
/// See [`ASSUMED_RECORD`].
pub const ASSUMED_ASHIFT: u32 = 12;

/// What a job's writes should cost on the layout: bytes written by the
/// members per byte the job wrote, from `low` to `high`. Random writes of
/// `bs` smaller than a record each rewrite their whole record (up to
/// record/bs times the data), unless several land in one record before it
/// is written (down to once); sequential writes fill whole records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WriteExpectation {
    pub low: f64,
    pub high: f64,
}

/// [`WriteExpectation`] for writes of `bs` bytes (`random` or not).
pub fn expected_writes(layout: Redundancy, record: u64, ashift: u32, bs: u64, random: bool) -> WriteExpectation {
    let per = write_ratio(layout, record, ashift);
    let high = if random && bs < record {
        per * record as f64 / bs.max(1) as f64
    } else {
        per
    };
    WriteExpectation { low: per, high }
}

/// `zfs_write_amplification`: the members wrote `measured` bytes per byte
/// of the job's, outside the model's `expected` range by more than
/// [`ZFS_WRITE_MODEL_TOLERANCE`]. `devices` names the members, `model`
/// the layout and record ("raidz1 of 3 disks, 128K records, ashift 12").
/// Nothing below once (`cache_answered` says that: the ARC's dirty data).
pub fn write_model(devices: &str, model: &str, expected: WriteExpectation, measured: f64) -> Option<Diagnostic> {
    let t = ZFS_WRITE_MODEL_TOLERANCE;
    if measured < 1.0 - DEVICE_TOLERANCE {
        return None;
    }
    let range = if expected.high > expected.low {
        format!("{:.2}–{:.2}×", expected.low, expected.high)
    } else {
        format!("{:.2}×", expected.low)
    };
    let why = if measured < expected.low * (1.0 - t) {
        "fewer: a member that did not write (a degraded or offline vdev), data still in the ARC when the run ended, or compression"
    } else if measured > expected.high * (1.0 + t) {
        "more: metadata (indirect blocks for small random writes), the ZIL (fdatasync copies writes under 32 KiB into the log before their transaction group writes them again), or other I/O on the members"
    } else {
        return None;
    };
    Some(Diagnostic::new(
        Code::ZfsWriteAmplification,
        format!("{devices} wrote {measured:.2}× the bytes the job wrote, where the layout predicts {range} ({model}): {why}"),
    ))
}

/// "raidz1 of 3 disks, 128K records, ashift 12", saying what was assumed
/// (`record_known`, `ashift_known`: ZFS said so).
pub fn model_words(layout: Redundancy, record: u64, ashift: u32, record_known: bool, ashift_known: bool) -> String {
    let mut s = format!("{}, {} records, ashift {ashift}", layout.describe(), fmt_bs(record));
    let assumed: Vec<&str> = [(!record_known, "record size"), (!ashift_known, "ashift")]
        .into_iter()
        .filter_map(|(a, n)| a.then_some(n))
        .collect();
    if !assumed.is_empty() {
        s.push_str(&format!(
            "; the {} {} unknown, so the model assumed {} records and ashift {}",
            assumed.join(" and "),
            if assumed.len() == 1 { "was" } else { "were" },
            fmt_bs(ASSUMED_RECORD),
            ASSUMED_ASHIFT
        ));
    }
    s
}

// ------------------------------------------------------------------ members

/// One member disk of a top-level data vdev, and what it moved over a job.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberMoved {
    /// Its kernel device name (`loop3`, `sda`).
    pub name: String,
    /// Its state in `zpool status` (`ONLINE`, `OFFLINE`...), when known.
    pub state: Option<String>,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

/// A top-level data vdev: its kind as `zpool status` names it (`mirror`,
/// `raidz1`, or `disk`/`file` for a plain member) and its members.
#[derive(Clone, Debug, PartialEq)]
pub struct VdevMoved {
    pub name: String,
    pub kind: String,
    pub members: Vec<MemberMoved>,
}

/// What [`uneven_members`] found: the finding, and where an uneven split
/// was not judged because the layout explains it, which rule did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberVerdict {
    pub finding: Option<Diagnostic>,
    pub explained: Option<String>,
}

/// Whether a vdev's layout spreads a direction's bytes over all its
/// members, and if not, why not (the read policy that explains an uneven
/// split). `in_flight`: the job's I/Os in flight (queue depth × threads).
///
/// - A mirror writes every block on every child: writes are spread.
/// - A mirror reads each block from one child. With more than one read in
///   flight they are spread over the children (zfs-fuse, measured on a
///   3-way mirror at QD4: shares 0.32/0.36/0.32; OpenZFS picks the least
///   busy child). With one in flight, zfs-fuse picks the child by the
///   block's offset (measured at QD1: 0.32/0.37/0.31, spread too) and
///   OpenZFS may keep to one child (and prefers a non-rotational one), so
///   one member may do all of a QD1 job's reads: not judged.
/// - RAID-Z writes each record's data and parity columns over all its
///   members, and the column a record starts at moves with its offset, so
///   both directions are spread (reads skip parity, evenly over many records).
/// - Across top-level vdevs (a stripe of disks, or of mirrors) ZFS
///   allocates by free space, so a split between them is not judged here.
fn spreads(kind: &str, read: bool, in_flight: u32) -> Result<&'static str, &'static str> {
    match (kind, read) {
        ("mirror", false) => Ok("a mirror writes every block on every child"),
        ("mirror", true) if in_flight >= 2 => Ok("a mirror spreads reads with more than one in flight over its children"),
        ("mirror", true) => Err(
            "a mirror read with one I/O in flight may come from one child at a time (zfs-fuse picks the child by offset, OpenZFS may keep to one), so an uneven split of its reads is not judged",
        ),
        (k, _) if k.starts_with("raidz") => Ok("RAID-Z spreads every record's data and parity over all its members"),
        _ => Err("ZFS spreads data over top-level vdevs by free space, so an uneven split between them is not judged"),
    }
}

/// `zfs_member_uneven`: within a top-level data vdev whose layout spreads
/// the job's reads or writes over its members ([`spreads`]), a member that
/// moved less than [`ZFS_MEMBER_MIN_SHARE`] of what its busiest peer moved
/// (nothing, for an offline member), judged only where that peer moved at
/// least [`ZFS_MEMBER_MIN_BYTES`]. `judge_reads` is false when a cache may
/// have answered the job's reads (then the members' reads say nothing of
/// the layout). `pool` names the pool in the message. A warning: the
/// figure is still the pool's, but of a pool that did not work as its
/// layout says (a member offline or faulted; on OpenZFS, whose mirror reads
/// go to the least busy child, also a child far slower than its peers).
/// A slow member that is given its share anyway (every mirror write, and
/// zfs-fuse's mirror reads: measured, see
/// [`crate::base::thresholds::ZFS_MEMBER_MIN_SHARE`]) sets the pool's pace
/// without moving fewer bytes: this rule does not see it.
pub fn uneven_members(pool: &str, vdevs: &[VdevMoved], in_flight: u32, judge_reads: bool) -> MemberVerdict {
    let mut found: Vec<String> = Vec::new();
    let mut explained: Vec<&str> = Vec::new();
    for (read, verb) in [(true, "read"), (false, "wrote")] {
        if read && !judge_reads {
            continue;
        }
        let bytes = |m: &MemberMoved| if read { m.read_bytes } else { m.write_bytes };
        for v in vdevs.iter().filter(|v| v.members.len() >= 2) {
            // The first of the busiest.
            let Some(peak) = v.members.iter().rev().max_by_key(|m| bytes(m)) else {
                continue;
            };
            let most = bytes(peak);
            if most < ZFS_MEMBER_MIN_BYTES {
                continue;
            }
            let behind: Vec<&MemberMoved> = v
                .members
                .iter()
                .filter(|m| (bytes(m) as f64) < most as f64 * ZFS_MEMBER_MIN_SHARE)
                .collect();
            if behind.is_empty() {
                continue;
            }
            match spreads(&v.kind, read, in_flight) {
                Err(why) => {
                    if !explained.contains(&why) {
                        explained.push(why);
                    }
                }
                Ok(why) => {
                    let each: Vec<String> = behind
                        .iter()
                        .map(|m| {
                            let state = m
                                .state
                                .as_deref()
                                .filter(|s| *s != "ONLINE")
                                .map(|s| format!(" ({s})"))
                                .unwrap_or_default();
                            format!(
                                "{}{state} {verb} {} ({:.0}%)",
                                m.name,
                                fmt_bytes(bytes(m)),
                                bytes(m) as f64 / most as f64 * 100.0
                            )
                        })
                        .collect();
                    found.push(format!(
                        "in {} of zpool {pool}, {} of the {} {} {}, where {why}",
                        v.name,
                        each.join(" and "),
                        fmt_bytes(most),
                        peak.name,
                        verb
                    ));
                }
            }
        }
    }
    MemberVerdict {
        finding: (!found.is_empty()).then(|| {
            Diagnostic::new(
                Code::ZfsMemberUneven,
                format!(
                    "UNEVEN MEMBERS: {}: a member is offline or faulted (the pool works without its redundancy), or, where the layout lets the others do its share, far slower than its peers; check `zpool status` and each member's own speed",
                    found.join("; ")
                ),
            )
        }),
        explained: (!explained.is_empty()).then(|| explained.join("; ")),
    }
}

// ------------------------------------------------------------------ records

/// Bytes the disks move per byte of a job's I/O of `bs` bytes that lands on
/// records of `record` bytes it does not fill: record/bs. Where that
/// applies is [`record_bound`]'s.
pub fn record_amplification(record: u64, bs: u64) -> f64 {
    record as f64 / bs.max(1) as f64
}

/// Which directions of a job move whole records it does not fill, as
/// (reads, writes). The model (OpenZFS and zfs-fuse alike), for a file
/// larger than one record (its blocks are then all `record` bytes, the
/// recordsize when the file was written; a file of one record or less is
/// one block of about its own size):
///
/// - ZFS checksums, reads and writes whole records. A read of `bs` <
///   `record` that ZFS's caches do not answer reads its whole record from
///   the disks (measured on zfs-fuse, `tests/integration/truth/zfs_hints.rs`:
///   exactly 131072 bytes per ARC miss at 128K records, 4096 at 4K). Random
///   reads over a span the caches do not hold (iolab measures read jobs
///   past the caches: [`choose`]) miss nearly every time: up to record/bs
///   times the job's bytes. A sequential read misses once per record and
///   finds the rest of it in the ARC, unless `primarycache` is `metadata`
///   or `none`: then no read finds its record there, and every read,
///   sequential or random, reads it again. The `zfs-primarycache` hint of
///   `iolab info` says the dataset keeps no data in the ARC; this rule says
///   what that (or a random pattern) costs a job of a given block size.
/// - A write of `bs` < `record` changes part of a record: ZFS reads the
///   record first when the ARC does not hold it (random writes over a big
///   span: nearly always), and the transaction group writes it whole: up
///   to record/bs times the job's bytes read and as many written (times
///   the layout's [`write_ratio`]; fewer when several writes land in one
///   record within a transaction group: [`expected_writes`]). Sequential
///   writes fill each record in memory and the transaction group writes it
///   once; an overwrite reads each record at most once, the job's bytes
///   once. Not amplified by the record.
/// - `bs` > `record`: each I/O is split into whole records and no byte
///   moves twice; it costs per-record work (checksums, block pointers, on
///   RAID-Z more parity and padding per byte for small records, which
///   [`write_ratio`] models) and more, smaller I/Os, which ZFS's I/O
///   scheduler merges when they are adjacent. Not flagged: the disks move
///   the job's bytes. Seed 002's "8K records improved the small writes" is
///   the other direction and a smaller effect: its writes were sequential,
///   and 8K writes on 128K records ran 16% slower than 128K writes (10.94
///   against 13.03 MB/s), not the 16× a rewrite of each record would cost.
pub fn record_bound(rw: crate::plan::Rw, primarycache: Option<&str>) -> (bool, bool) {
    let no_data = matches!(primarycache, Some("metadata" | "none"));
    (rw.reads() && (rw.is_random() || no_data), rw.writes() && rw.is_random())
}

/// `zfs_recordsize_mismatch`: a job of `rw` and `bs` on `dataset`, whose
/// recordsize is `record` (at least [`ZFS_RECORD_MISMATCH`] times `bs`),
/// moves whole records it does not fill ([`record_bound`]) over a `span`
/// larger than one record. `primarycache` as the dataset has it (`None`:
/// unknown, ZFS's default `all`).
pub fn recordsize_mismatch(
    dataset: &str,
    record: u64,
    primarycache: Option<&str>,
    rw: crate::plan::Rw,
    bs: u64,
    span: u64,
) -> Option<Diagnostic> {
    let (reads, writes) = record_bound(rw, primarycache);
    if !(reads || writes) || bs == 0 || record < bs.saturating_mul(ZFS_RECORD_MISMATCH) || span <= record {
        return None;
    }
    let (rec, b) = (fmt_bs(record), fmt_bs(bs));
    let factor = record_amplification(record, bs);
    let factor = if factor.fract() == 0.0 {
        format!("{factor:.0}")
    } else {
        format!("{factor:.1}")
    };
    let pc = primarycache.filter(|_| reads && !rw.is_random());
    let what = match (reads, writes, rw.is_random()) {
        (true, true, _) => "random reads and writes",
        (true, false, true) => "random reads",
        (true, false, false) => "reads",
        _ => "random writes",
    };
    let mut costs = Vec::new();
    if reads {
        costs.push(match pc {
            Some(pc) => format!("each {b} read reads its {rec} record from the disks again (primarycache={pc} keeps no data in the ARC)"),
            None => format!("each {b} read that ZFS's caches do not answer reads its {rec} record from the disks"),
        });
    }
    if writes {
        costs.push(format!(
            "each {b} write reads its {rec} record first when ZFS's caches do not hold it, and the record is written whole"
        ));
    }
    let fit = bs.next_power_of_two().max(512);
    Some(Diagnostic::new(
        Code::ZfsRecordsizeMismatch,
        format!(
            "RECORDSIZE: {dataset} has recordsize={rec} and this job's {what} are {b}: {}, so the disks move up to {factor}× the job's bytes, and where they are bound by bandwidth the figure is up to {factor}× lower than with {} records. To measure {b} I/O, use a scratch dataset with records to match (`zfs create -o recordsize={} {dataset}/scratch`, or `zfs set recordsize={} DATASET` on one you may change: it applies to files written after it, as iolab's test file is), or match the records: --bs {rec}{}",
            costs.join("; "),
            fmt_bs(fit),
            fmt_bs(fit),
            fmt_bs(fit),
            if pc.is_some() { ", or set primarycache=all" } else { "" }
        ),
    ))
}

#[cfg(test)]
#[path = "zfs_tests.rs"]
mod tests;
