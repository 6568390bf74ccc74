//! What a job, a scan and a sweep measured: [`crate::samples`]' raw
//! figures together with the part of the plan they ran (the job's spec, its
//! steady-state rule, the zone), so they live here, above the plan, where
//! the runner and the experiments make them.

use crate::plan::scan::Zone;
use crate::plan::{JobSpec, Runs, SteadyRule};
use crate::samples::{PointKind, RunSamples};

/// Everything measured for one job.
#[derive(Clone, Debug)]
pub struct JobSamples {
    pub spec: JobSpec,
    pub direct: bool,
    pub workers: u32,
    pub depth_per_worker: u32,
    pub runs: Vec<RunSamples>,
    /// The discarded warm-up pass, kept for its timeline.
    pub warmup: Option<RunSamples>,
    /// Set when the runs are steady-state rounds.
    pub steady: Option<SteadyRule>,
    /// How many runs were asked for: a count, or windows until settled.
    pub planned: Runs,
    /// A read job on ZFS: how the caches were kept from answering, or that
    /// they could not be (set by the experiment, which chose and did it).
    pub zfs_read: Option<crate::judge::zfs::ZfsRead>,
}

/// What a scan measured (as far as it got).
#[derive(Debug, Default)]
pub struct ScanSamples {
    pub zones: Vec<(Zone, JobSamples)>,
    pub access: Option<JobSamples>,
    pub burst: Option<JobSamples>,
}

/// One measured point: the jobs that ran at the same time (one per target).
#[derive(Debug)]
pub struct Point {
    pub kind: PointKind,
    /// Indices into the targets (the member is index `targets.len()`).
    pub targets: Vec<usize>,
    pub qd: u32,
    pub threads: u32,
    pub jobs: Vec<JobSamples>,
}

#[derive(Debug, Default)]
pub struct ScaleSamples {
    pub points: Vec<Point>,
}
