//! The queue depth a job's device actually had: per run, the mean from
//! diskstats' time in queue over the run's counters (iostat's `aqu-sz`)
//! and the p99 and max of its in-flight count sampled through the run
//! (`measure::depth`); per job, over the measured runs; and the facts
//! [`crate::judge::depth`] judges (`device_depth_short`).

use crate::judge::Diagnostic;
use crate::judge::depth::{DepthFacts, depth_short, queued};
use crate::judge::stats::median;
use crate::measure::JobSamples;
use crate::samples::RunSamples;
use crate::targets::TargetInfo;
use serde::{Deserialize, Serialize};

/// I/Os in flight at the device under the target (the device the figures
/// are cross-checked against), while the job ran.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct DeviceDepth {
    /// The device (kernel name): the top of the target's chain.
    pub device: String,
    /// Mean I/Os in flight: diskstats' time in queue over the run's time
    /// (iostat's `aqu-sz`); at job level, the median over the measured
    /// runs. `null`: the device keeps no time in queue.
    #[schemars(extend("x-unit" = "count"))]
    pub mean: Option<f64>,
    /// 99th percentile of the in-flight count (`/sys/block/DEV/inflight`,
    /// reads plus writes) sampled every 10 ms; at job level, the median
    /// over the runs. `null`: no sample could be read.
    #[schemars(extend("x-unit" = "count"))]
    pub p99: Option<u32>,
    /// The most any in-flight sample saw (job level: over all runs). `null`: no sample.
    #[schemars(extend("x-unit" = "count"))]
    pub max: Option<u32>,
    /// In-flight samples taken (job level: over all runs).
    #[schemars(extend("x-unit" = "count"))]
    pub samples: u64,
}

/// A run's depth on the first of its devices; `None` when that device
/// completed no I/O in the run (idle, or it counts nothing: a depth of 0
/// would pretend to be measured) or neither figure could be taken.
pub fn of_run(r: &RunSamples) -> Option<DeviceDepth> {
    let d = r.devices.first().filter(|d| d.read_ios + d.write_ios > 0)?;
    let mean = (d.queue_ns > 0).then(|| d.queue_ns as f64 / r.elapsed_ns.max(1) as f64);
    let inflight = r.inflight.as_ref().filter(|s| s.device == d.name && s.samples() > 0);
    if mean.is_none() && inflight.is_none() {
        return None;
    }
    Some(DeviceDepth {
        device: d.name.clone(),
        mean,
        p99: inflight.and_then(|s| s.quantile(0.99)),
        max: inflight.and_then(|s| s.max()),
        samples: inflight.map_or(0, |s| s.samples()),
    })
}

/// A job's depth over its measured runs' (`runs`: the figured ones):
/// medians of the means and p99s, the largest max; `None` when no run has one.
pub fn of_job<'a>(runs: impl IntoIterator<Item = Option<&'a DeviceDepth>>) -> Option<DeviceDepth> {
    let all: Vec<&DeviceDepth> = runs.into_iter().flatten().collect();
    let first = all.first()?;
    let med = |v: Vec<f64>| (!v.is_empty()).then(|| median(&v));
    Some(DeviceDepth {
        device: first.device.clone(),
        mean: med(all.iter().filter_map(|d| d.mean).collect()),
        p99: med(all.iter().filter_map(|d| d.p99.map(f64::from)).collect()).map(|p| p.round() as u32),
        max: all.iter().filter_map(|d| d.max).max(),
        samples: all.iter().map(|d| d.samples).sum(),
    })
}

/// `device_depth_short` for a job: its depth (`depth`, over the runs
/// `runs`, the figured ones) judged against what it asked for, with the
/// target's facts about that device (memory-backed, a loop device without
/// direct I/O) and whether a throttle held a figure (`throttled`).
pub fn short(
    job: &JobSamples,
    runs: &[RunSamples],
    depth: Option<&DeviceDepth>,
    target: &TargetInfo,
    throttled: bool,
) -> Option<Diagnostic> {
    let depth = depth?;
    let dev = target.devices.iter().find(|d| d.name == depth.device);
    let memory = dev.is_some_and(|d| d.memory);
    let chain_dio = target
        .info
        .as_ref()
        .and_then(|i| find_node(&i.chain, &depth.device))
        .and_then(|n| n.loop_info.as_ref())
        .and_then(|l| l.dio);
    // A loop device whose `dio` could not be read is taken as buffered.
    let loop_dio = match dev.and_then(|d| d.backing_file.as_ref()) {
        Some(_) => Some(chain_dio.unwrap_or(false)),
        None => chain_dio,
    };
    let on = |r: &&RunSamples| r.devices.first().is_some_and(|d| d.name == depth.device);
    let device_ios = runs.iter().filter(on).map(|r| r.devices[0].read_ios + r.devices[0].write_ios).sum();
    let job_ios = runs.iter().map(|r| r.read.all_ios + r.write.all_ios).sum();
    depth_short(&DepthFacts {
        device: &depth.device,
        qd: job.spec.qd,
        threads: job.spec.threads,
        mean: depth.mean,
        p99: depth.p99,
        queued: queued(memory, loop_dio),
        direct: job.direct,
        device_ios,
        job_ios,
        throttled,
        capacity: capacity(target, &depth.device),
    })
}

/// The most requests `device`'s queue holds (`nr_requests`), from the
/// target's report: its own facts, else those of the disk it is a
/// partition of.
fn capacity(target: &TargetInfo, device: &str) -> Option<u32> {
    let disk = target
        .devices
        .iter()
        .find(|d| d.name == device)
        .and_then(|d| d.partition_of.as_deref())
        .unwrap_or(device);
    let facts = &target.info.as_ref()?.devices;
    facts
        .iter()
        .find(|f| f.name == device)
        .or_else(|| facts.iter().find(|f| f.name == disk))
        .and_then(|f| f.nr_requests)
}

/// The node named `name` anywhere in a device chain.
fn find_node<'a>(chain: &'a [crate::device::ChainNode], name: &str) -> Option<&'a crate::device::ChainNode> {
    chain
        .iter()
        .find_map(|n| if n.name == name { Some(n) } else { find_node(&n.children, name) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::{DiskDelta, InflightSamples};

    /// A 2 s run on `dev` whose I/Os spent `queue_ms` in flight in all,
    /// with in-flight samples of these counts.
    fn run(dev: &str, ios: u64, queue_ms: u64, inflight: &[u32]) -> RunSamples {
        let mut r = RunSamples {
            elapsed_ns: 2_000_000_000,
            devices: vec![DiskDelta {
                name: dev.into(),
                read_ios: ios,
                queue_ns: queue_ms * 1_000_000,
                ..Default::default()
            }],
            ..Default::default()
        };
        r.read.all_ios = ios;
        if !inflight.is_empty() {
            let mut s = InflightSamples::new(dev);
            inflight.iter().for_each(|&v| s.record(v));
            r.inflight = Some(s);
        }
        r
    }

    #[test]
    fn a_runs_mean_is_time_in_queue_over_its_time() {
        // 62 s of I/O time in 2 s: 31 in flight on average.
        let d = of_run(&run("loop7", 100_000, 62_000, &[32; 200])).unwrap();
        assert_eq!(d.device, "loop7");
        assert!((d.mean.unwrap() - 31.0).abs() < 1e-9);
        assert_eq!((d.p99, d.max, d.samples), (Some(32), Some(32), 200));
        // No samples: the mean alone.
        let d = of_run(&run("loop7", 100_000, 62_000, &[])).unwrap();
        assert_eq!((d.p99, d.max, d.samples), (None, None, 0));
        // No time in queue kept: the samples alone, never a mean of 0.
        let d = of_run(&run("loop7", 100_000, 0, &[1, 2])).unwrap();
        assert_eq!((d.mean, d.max), (None, Some(2)));
        // A device that completed nothing, or none at all: not known.
        assert!(of_run(&run("loop7", 0, 0, &[0; 200])).is_none());
        assert!(of_run(&RunSamples::default()).is_none());
        // Samples of another device than the runs' first are not this one's.
        let mut r = run("loop7", 100_000, 62_000, &[32; 10]);
        r.inflight.as_mut().unwrap().device = "vda".into();
        assert_eq!(of_run(&r).unwrap().samples, 0);
    }

    #[test]
    fn a_jobs_depth_is_the_median_of_its_runs() {
        let runs = [
            of_run(&run("vda", 9, 20_000, &[10, 12])),
            of_run(&run("vda", 9, 60_000, &[30, 31])),
            of_run(&run("vda", 9, 40_000, &[20, 40])),
        ];
        let j = of_job(runs.iter().map(Option::as_ref)).unwrap();
        assert_eq!(j.device, "vda");
        assert_eq!((j.mean, j.p99, j.max, j.samples), (Some(20.0), Some(31), Some(40), 6));
        assert!(of_job([None, None]).is_none());
    }
}
