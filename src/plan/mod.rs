//! What to run: job specifications and the CrystalDiskMark-style suites.
//!
//! A [`JobSpec`] is the complete, engine-independent description of one
//! workload. Suites expand into lists of `JobSpec`s; nothing here touches a
//! device.

use crate::units::{fmt_bs, fmt_duration};
use serde::{Deserialize, Serialize};

pub mod fio;
pub mod limits;
pub mod scale;
pub mod scan;
mod suites;
pub mod time;

use std::time::Duration;
pub use suites::{Common, SuiteChoice, SuiteName, SuiteTest};

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

impl JobSpec {
    /// A custom job (`iolab job`), named as fio would describe it: `randread 4K Q32T1`.
    #[allow(clippy::too_many_arguments)]
    pub fn custom(rw: Rw, bs: u64, qd: u32, threads: u32, mix_read: u8, limit: Limit, direct: bool, engine: EngineKind) -> JobSpec {
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
    pub fn validate(&self) -> crate::error::Result<()> {
        let bad = |e: String| crate::error::usage(format!("{}: {e}", self.name));
        limits::check_bs(self.bs).map_err(bad)?;
        limits::check_qd(self.qd).map_err(bad)?;
        limits::check_threads(self.threads).map_err(bad)?;
        limits::check_mix_read(self.mix_read).map_err(bad)?;
        match self.limit {
            Limit::Time(d) if d.is_zero() => Err(bad("the duration must be greater than 0".into())),
            Limit::Bytes(0) => Err(bad("the byte limit must be greater than 0".into())),
            _ => Ok(()),
        }
    }
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
    pub fn validate(&self) -> crate::error::Result<()> {
        limits::check_count("runs", self.runs, limits::MAX_RUNS).map_err(crate::error::usage)?;
        if let Some(st) = self.steady
            && (st.window == 0 || st.max_rounds < st.window as u32 || st.max_rounds > limits::MAX_ROUNDS)
        {
            return Err(crate::error::usage(format!(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extent_is_clamped_to_the_target() {
        let mut s = JobSpec::custom(Rw::Read, 4096, 1, 1, 100, Limit::Span, true, EngineKind::Psync);
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
}
