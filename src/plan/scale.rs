//! What `iolab scale` runs: sweeps and the comparison job.

use crate::base::error::{Result, usage};
use crate::base::units::fmt_bs;
use crate::io::engine::EngineKind;
use crate::plan::{JobSpec, Limit, Repeat, Rw};

/// Queue depths swept on a single target when no sweep is asked for.
pub const DEFAULT_QD_SWEEP: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// What `iolab scale` runs.
#[derive(Clone, Debug)]
pub struct ScalePlan {
    pub rw: Rw,
    pub bs: u64,
    pub mix_read: u8,
    /// Queue depths for the depth sweep (each at `threads` threads).
    pub qd_sweep: Vec<u32>,
    /// Thread counts for the thread sweep (each thread at queue depth 1,
    /// as ThreadMark's concurrent transfers).
    pub threads_sweep: Vec<u32>,
    /// The job of the alone / together / member comparisons.
    pub qd: u32,
    pub threads: u32,
    pub limit: Limit,
    pub repeat: Repeat,
    pub direct: bool,
    pub engine: EngineKind,
    /// How each I/O's latency is taken.
    pub timing: crate::plan::Timing,
}

impl ScalePlan {
    /// The job for `qd` × `threads`; `tag` tells apart the same job on
    /// different targets in the stored run.
    pub fn spec(&self, qd: u32, threads: u32, tag: &str) -> JobSpec {
        JobSpec {
            name: format!("{} {} Q{qd}T{threads}{tag}", self.rw.as_str(), fmt_bs(self.bs)),
            rw: self.rw,
            bs: self.bs,
            qd,
            threads,
            mix_read: self.mix_read,
            limit: self.limit,
            span: 0,
            offset: 0,
            direct: self.direct,
            engine: self.engine,
            timing: self.timing,
            sync: Default::default(),
        }
    }

    pub fn validate(&self, targets: usize) -> Result<()> {
        if targets == 0 {
            return Err(usage("give at least one target"));
        }
        // Every point is a job: the job rules apply to each.
        for &qd in &self.qd_sweep {
            self.spec(qd, self.threads, "").validate()?;
        }
        for &t in &self.threads_sweep {
            self.spec(1, t, "").validate()?;
        }
        self.spec(self.qd, self.threads, "").validate()?;
        self.repeat.validate()
    }
}
