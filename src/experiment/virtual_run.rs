//! A job on a virtual device and clock ([`crate::measure::virtual_job`]),
//! summarised as a real run is: what a day-long run costs iolab's summary,
//! store and renderers, without a day's wait. Used by `bench/scale` and
//! iolab's own tests; its figures are the model's, not a device's.

use super::{Measured, Outcome, outcome};
use crate::base::error::{Result, failed};
use crate::measure::VirtualDevice;
use crate::plan::{JobSpec, Repeat};
use crate::summary::{Body, Settings};
use crate::targets::{Kind, TargetFacts, TargetInfo};

/// What to run on what.
pub struct VirtualRequest {
    pub spec: JobSpec,
    pub repeat: Repeat,
    pub device: VirtualDevice,
}

/// The job on the model, as a `job` run's document.
pub fn run(r: &VirtualRequest) -> Result<Outcome> {
    let started_at = crate::base::units::now_rfc3339();
    let samples = crate::measure::virtual_job(&r.spec, &r.repeat, &r.device).map_err(failed)?;
    let info = TargetInfo {
        path: format!("virtual:{}", r.device.name),
        kind: Kind::BlockDevice,
        test_file: false,
        span_bytes: r.spec.span,
        direct: true,
        filesystem: None,
        devices: vec![crate::device::BlockDev {
            name: r.device.name.clone(),
            major: 0,
            minor: 0,
            partition_of: None,
            size_bytes: r.spec.span,
            logical_block_size: 512,
            rotational: None,
            model: Some("iolab virtual device (mock engine, virtual clock)".into()),
            backing_file: None,
            memory: false,
        }],
        zfs_pool: None,
        members_of: None,
        info: None,
    };
    let facts = TargetFacts {
        info: &info,
        direct_fallback: false,
        direct: true,
    };
    let job = crate::summary::job_report(&samples, facts, super::cpus());
    let m = Measured {
        command: "job",
        settings: Settings::of(&r.repeat, None, r.spec.timing),
        target: info,
        body: Body::Jobs(vec![job]),
        interrupted: None,
        failed: None,
    };
    Ok(outcome(started_at, m))
}
