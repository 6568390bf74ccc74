//! [`job_report`]: a measured job's report made from its samples (its
//! runs' figures, medians, steady state, device cross-check), with the
//! warnings of [`super::job_warnings`]. The report's types are in
//! [`super::job`].

use super::Named;
use super::job::*;
use super::job_warnings::Figures;
use super::zfs::{ZfsTarget, zfs_writes};
use crate::judge::Diagnostic;
use crate::measure::JobSamples;
use crate::plan::Limit;
use crate::targets::TargetFacts;

/// Summarise one job: figures, medians, and every warning that applies.
pub fn job_report(job: &JobSamples, target: TargetFacts, cpus: usize) -> JobReport {
    let spec = &job.spec;
    let (_, span) = spec.extent(target.info.span_bytes);
    let pool = target.info.zfs_pool.as_deref();
    let members_of = target.info.members_of.as_deref().filter(|_| pool.is_none());
    let mut runs: Vec<RunReport> = job.runs.iter().map(run_report).collect();
    if pool.is_some() || members_of.is_some() {
        // The pool's (or btrfs's) member disks side by side: a run's device is their sum.
        for (r, s) in runs.iter_mut().zip(&job.runs) {
            r.device = members_sum(&s.devices);
            r.device_depth = None;
        }
    }
    let judged = steady(job);
    // With steady-state rounds the figures describe the last window only.
    let figured = match &judged {
        Some((_, s)) => &runs[runs.len().saturating_sub(s.window)..],
        None => &runs[..],
    };
    let mut read = dir_median(&figured.iter().filter_map(|r| r.read.as_ref()).collect::<Vec<_>>());
    let mut write = dir_median(&figured.iter().filter_map(|r| r.write.as_ref()).collect::<Vec<_>>());
    // `--runs auto`: how each direction's windows settled.
    let auto = job.planned.is_auto() && job.steady.is_none();
    if auto {
        let of =
            |g: fn(&RunReport) -> Option<&DirReport>| -> Vec<f64> { figured.iter().filter_map(|r| g(r).map(|d| d.bw_bytes)).collect() };
        if let Some(d) = &mut read {
            d.settle = Some(crate::judge::settle::judge(&of(|r| r.read.as_ref())));
        }
        if let Some(d) = &mut write {
            d.settle = Some(crate::judge::settle::judge(&of(|r| r.write.as_ref())));
        }
    }
    let cpu = cpu_median(figured);
    let device_depth = super::depth::of_job(figured.iter().map(|r| r.device_depth.as_ref()));
    let tinfo = target.info;
    let zfs = ZfsTarget::of(tinfo);
    let (device, uneven) = device_of(job, tinfo, &zfs, pool, members_of);
    let warnings = super::job_warnings::warnings(Figures {
        job,
        target,
        span,
        zfs: &zfs,
        runs: &runs,
        figured: figured.len(),
        read: read.as_ref(),
        write: write.as_ref(),
        cpu: &cpu,
        cpus,
        device: device.as_ref(),
        device_depth: device_depth.as_ref(),
        uneven,
        steady: judged.as_ref().map(|(st, s)| (st, s.window)),
    });

    JobReport {
        name: spec.name.clone(),
        rw: Named::Known(spec.rw),
        bs: spec.bs,
        qd: spec.qd,
        threads: spec.threads,
        mix_read: matches!(spec.rw, crate::plan::Rw::Randrw | crate::plan::Rw::Rw).then_some(spec.mix_read),
        direct: job.direct,
        engine: Named::Known(spec.engine),
        latency: spec.timing.label(job.depth_per_worker),
        sync: spec.sync,
        workers: job.workers,
        duration_s: match spec.limit {
            Limit::Time(d) => Some(d.as_secs_f64()),
            Limit::Bytes(_) | Limit::Span => None,
        },
        limit_bytes: match spec.limit {
            Limit::Bytes(b) => Some(b),
            Limit::Span => Some(span),
            Limit::Time(_) => None,
        },
        span_bytes: span,
        offset_bytes: spec.offset,
        runs,
        warmup: job.warmup.as_ref().map(|w| Samples {
            read_bytes_per_s: w.read.per_sec_bytes.clone(),
            write_bytes_per_s: w.write.per_sec_bytes.clone(),
        }),
        read,
        write,
        cpu,
        device,
        device_depth,
        warnings,
        steady: judged.map(|(_, s)| s),
        zfs_read: job.zfs_read.clone(),
    }
}

/// A steady-state job's rounds judged (`--steady`), with their report.
fn steady(job: &JobSamples) -> Option<(crate::judge::steady::SteadyState, SteadyReport)> {
    job.steady.map(|rule| {
        let values: Vec<f64> = job.runs.iter().map(crate::measure::round_value).collect();
        let st = crate::judge::steady::steady_state(&values, rule.window);
        let report = SteadyReport {
            reached: st.reached,
            rounds: values.len(),
            window: rule.window,
            max_rounds: rule.max_rounds,
            steady_at_round: st.first_steady_round.map(|i| i + 1),
            value_bw_bytes: st.window_mean,
            range_pct: st.range_pct,
            slope_excursion_pct: st.slope_excursion_pct,
            round_bw_bytes: values,
        };
        (st, report)
    })
}

/// The device cross-check of a job: the target's device, or a pool's or a
/// multi-device filesystem's members summed; and, on ZFS, whether the
/// pool's members moved unevenly.
fn device_of(
    job: &JobSamples,
    tinfo: &crate::targets::TargetInfo,
    zfs: &ZfsTarget,
    pool: Option<&str>,
    members_of: Option<&str>,
) -> (Option<DeviceReport>, Option<Diagnostic>) {
    let spec = &job.spec;
    let mut device = match members_of {
        Some(what) => members_report(
            &job.runs,
            what,
            tinfo.info.as_ref().and_then(|i| i.layout.as_ref()).and_then(btrfs_copies),
        ),
        None => device_report(&job.runs, pool),
    };
    let mut uneven = None;
    if let (Some(d), Some(z)) = (device.as_mut().filter(|d| d.zfs_pool.is_some()), zfs.info) {
        d.zfs_writes = zfs_writes(d.write_bytes, d.job_write_bytes, z, spec);
        let vdevs = zfs_members(d, z);
        // Reads a cache may have answered say nothing of how the layout spreads them.
        let cached = job
            .zfs_read
            .as_ref()
            .is_some_and(|r| r.method == crate::judge::zfs::ReadMethod::Cached);
        let verdict = crate::judge::zfs::uneven_members(&z.pool, &vdevs, spec.qd.saturating_mul(spec.threads), !cached);
        d.zfs_members_unjudged = verdict.explained;
        uneven = verdict.finding;
    }
    (device, uneven)
}
