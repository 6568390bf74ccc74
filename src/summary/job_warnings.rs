//! The warnings of a job's report, in the order they are shown: the rules
//! of [`crate::judge::job`] (and [`crate::judge::zfs`]'s for a pool)
//! applied to the figures [`super::job::job_report`] derived.

use super::depth::DeviceDepth;
use super::job::{CpuReport, DeviceReport, DirReport, RunReport};
use super::zfs::ZfsTarget;
use crate::judge::Diagnostic;
use crate::judge::job as rules;
use crate::judge::steady::SteadyState;
use crate::measure::JobSamples;
use crate::targets::TargetFacts;

/// What a job's warnings are judged on.
pub(super) struct Figures<'a> {
    pub job: &'a JobSamples,
    pub target: TargetFacts<'a>,
    /// The bytes of the target the job addressed.
    pub span: u64,
    pub zfs: &'a ZfsTarget<'a>,
    /// Every run's figures.
    pub runs: &'a [RunReport],
    /// How many runs, from the last, the medians describe (the steady
    /// state's window, else all).
    pub figured: usize,
    pub read: Option<&'a DirReport>,
    pub write: Option<&'a DirReport>,
    pub cpu: &'a CpuReport,
    /// The CPUs the machine has.
    pub cpus: usize,
    pub device: Option<&'a DeviceReport>,
    pub device_depth: Option<&'a DeviceDepth>,
    /// A pool's members that moved unevenly ([`crate::judge::zfs::uneven_members`]).
    pub uneven: Option<Diagnostic>,
    /// The steady-state judgement and its window, for a `--steady` job.
    pub steady: Option<(&'a SteadyState, usize)>,
}

/// Every warning that applies to a job, failed I/O first.
pub(super) fn warnings(f: Figures) -> Vec<Diagnostic> {
    let Figures {
        job,
        target,
        span,
        zfs,
        runs,
        figured,
        read,
        write,
        cpu,
        cpus,
        device,
        device_depth,
        uneven,
        steady,
    } = f;
    let spec = &job.spec;
    let t = target.info;
    let pool = t.zfs_pool.as_deref();
    let mut warnings: Vec<Diagnostic> = [
        rules::buffered(job.direct, target.direct_fallback, &t.path),
        rules::no_block_device(&t.path, !t.devices.is_empty(), t.filesystem.as_ref().map(|f| f.fstype.as_str())),
        t.devices.first().and_then(|d| rules::memory_device(&d.name, d.memory)),
        job.zfs_read.as_ref().and_then(|r| crate::judge::zfs::arc_cached(r, zfs.caches)),
        zfs.info.and_then(|z| {
            let p = z.dataset_properties.as_ref()?;
            crate::judge::zfs::recordsize_mismatch(&z.dataset, p.recordsize_bytes?, p.primarycache.as_deref(), spec.rw, spec.bs, span)
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    warnings.extend(device.iter().flat_map(|d| super::job::cross_check_with(d, zfs.caches)));
    if pool.is_some()
        && let Some(w) = crate::judge::zfs::unflushed_writes(zfs.implementation, write.is_some())
    {
        // The window's member bytes are not the job's: the model is not judged.
        warnings.retain(|d| d.code != crate::judge::diagnostic::Code::ZfsWriteAmplification);
        warnings.push(w);
    }
    warnings.extend(uneven);
    warnings.extend(
        [
            rules::high_cv("read", read.and_then(|r| r.bw_cv)),
            rules::high_cv("write", write.and_then(|r| r.bw_cv)),
            read.and_then(|d| rules::not_settled("read", d.settle.as_ref()?, job.planned.max())),
            write.and_then(|d| rules::not_settled("write", d.settle.as_ref()?, job.planned.max())),
            rules::cpu_bound(cpu.busy_cpus(), job.workers, cpus),
            runs.iter()
                .enumerate()
                .find_map(|(i, r)| rules::write_cliff(i + 1, r.write_cliff.as_ref())),
            steady.and_then(|(st, window)| rules::not_steady(st, window)),
            rules::psync_threads(spec.engine, spec.qd, job.workers),
            job.runs
                .iter()
                .find_map(|r| rules::uneven_threads(r.workers, r.first_done_ns, r.last_done_ns)),
        ]
        .into_iter()
        .flatten(),
    );
    // A figure at a cgroup throttle's limit is the limit's.
    let throttles = t.info.as_ref().map(|i| i.throttles.as_slice()).unwrap_or_default();
    let (mut read_capped, mut write_capped) = (false, false);
    for t in throttles {
        let place = t.place();
        let limit = |bps, iops| rules::ThrottleLimit {
            device: &t.device,
            place: &place,
            bps,
            iops,
        };
        let at_read = read
            .as_ref()
            .and_then(|d| rules::at_throttle("read", d.bw_bytes, d.iops, &limit(t.read_bps, t.read_iops)));
        let at_write = write
            .as_ref()
            .and_then(|d| rules::at_throttle("write", d.bw_bytes, d.iops, &limit(t.write_bps, t.write_iops)));
        read_capped |= at_read.is_some();
        write_capped |= at_write.is_some();
        warnings.extend([at_read, at_write].into_iter().flatten());
    }
    let figured_samples = &job.runs[job.runs.len() - figured..];
    warnings.extend(super::depth::short(
        job,
        figured_samples,
        device_depth,
        t,
        read_capped || write_capped,
    ));
    // A memory device whose every figure a throttle set: the figures are
    // the throttle's, not memory speed (the suite's emulated devices).
    if rules::throttle_set_every_figure(read.is_some(), read_capped, write.is_some(), write_capped) {
        warnings.retain(|d| d.code != crate::judge::diagnostic::Code::MemoryDevice);
    }
    // Failed I/O first: it changes what every figure means.
    let failures = [("read", read), ("write", write)].into_iter().filter_map(|(dir, d)| {
        let e = d?.errors.as_ref()?;
        rules::io_errors(dir, e.count, e.first_offset, &e.first_error)
    });
    warnings.splice(0..0, failures.collect::<Vec<_>>());

    warnings
}
