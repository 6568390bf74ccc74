//! What to run: job specifications and the CrystalDiskMark-style suites.
//!
//! A [`JobSpec`] is the complete, engine-independent description of one
//! workload. Suites expand into lists of `JobSpec`s; nothing here touches a
//! device.

use crate::units::{fmt_bs, fmt_duration};
use serde::{Deserialize, Serialize};

pub mod scale;
pub mod scan;
mod suites;

use std::time::Duration;
pub use suites::{Common, SuiteName, SuiteTest};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// Linux io_uring: one ring per thread, registered file and buffers.
    #[value(name = "io_uring")]
    IoUring,
    /// pread/pwrite; a queue depth above 1 is emulated with one thread per slot.
    Psync,
}

impl EngineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Psync => "psync",
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
}

/// How each job is repeated.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Repeat {
    pub runs: u32,
    pub warmup: Duration,
    pub interval: Duration,
    /// For jobs that write: instead of `runs` runs, repeat back-to-back
    /// rounds until the SNIA steady-state rule holds.
    #[serde(default)]
    pub steady: Option<SteadyRule>,
}

/// Repeat a write job until its last `window` rounds are steady (see
/// [`crate::judge::steady::steady_state`]), or `max_rounds` rounds have run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteadyRule {
    pub window: usize,
    pub max_rounds: u32,
}

impl Repeat {
    /// The rule that applies to `spec`: steady-state rounds are for jobs that write.
    pub fn steady_for(&self, spec: &JobSpec) -> Option<SteadyRule> {
        self.steady.filter(|_| spec.rw.writes())
    }
}

/// A line describing a job's shape, for listings.
pub fn describe(spec: &JobSpec) -> String {
    let limit = match spec.limit {
        Limit::Time(d) => fmt_duration(d),
        Limit::Bytes(b) => crate::units::fmt_bytes(b),
        Limit::Span => "the whole span".to_string(),
    };
    format!(
        "{} bs={} qd={} threads={} {}",
        spec.rw.as_str(),
        fmt_bs(spec.bs),
        spec.qd,
        spec.threads,
        limit
    )
}
