//! A job on a virtual clock: what a day-long run costs iolab, measured in
//! seconds of real time.
//!
//! The same worker loop ([`crate::io::worker::drive`]) runs the job's
//! windows against the mock engine ([`crate::io::engine::mock`]), whose
//! clock moves only when its I/O completes; the devices' per-second counters
//! go through the same [`Seconds`] the real stream keeps, read on the same
//! grid (every second of each window, and at each boundary). What comes out
//! is a [`JobSamples`] of a real day's shape: every window, every second of
//! it and every device second, for `summary`, the store and the renderers.
//!
//! What it is not: the real stream's threads, its watchdog and the CPU it
//! spends. Its CPU figures are zero, and the device is the model, so its
//! figures say nothing about a real device: `iolab`'s own cost is what it
//! measures (`bench/scale`).

use super::JobSamples;
use super::seconds::Seconds;
use crate::device::DiskCounters;
use crate::io::engine::Clock;
use crate::io::engine::mock::{MockClock, MockEngine};
use crate::io::stall::Beat;
use crate::io::stream::StreamShared;
use crate::plan::{JobSpec, Limit, Repeat};
use crate::samples::{DiskDelta, RunSamples, WorkerSamples};
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// The modelled device: `servers` servers, each taking `service_ns` plus
/// `per_byte_ns` per byte for an I/O (see [`MockEngine`]).
#[derive(Clone, Debug)]
pub struct VirtualDevice {
    /// Its kernel-style name in the figures (`vdisk0`).
    pub name: String,
    pub servers: usize,
    pub service_ns: u64,
    pub per_byte_ns: f64,
}

const SECOND: u64 = 1_000_000_000;

/// Run `spec` (time-limited, one worker at depth `spec.qd`) with `repeat`'s
/// warm-up and runs as consecutive windows of one stream on `device`.
pub fn virtual_job(spec: &JobSpec, repeat: &Repeat, device: &VirtualDevice) -> Result<JobSamples, String> {
    let Limit::Time(d) = spec.limit else {
        return Err("a virtual job is time-limited".into());
    };
    let warm = !repeat.warmup.is_zero();
    let mut lengths = Vec::new();
    if warm {
        lengths.push(repeat.warmup);
    }
    lengths.extend((0..repeat.runs.max()).map(|_| d));
    let mut t = 0u64;
    let ends: Vec<u64> = lengths
        .iter()
        .map(|l| {
            t += l.as_nanos() as u64;
            t
        })
        .collect();
    let depth = spec.qd.max(1) as usize;
    let part = super::JobPart {
        offset: 0,
        span: spec.span,
        workers: 1,
        // The mock engine completes in place: nothing is handed over, so
        // nothing is co-located or served by the CPU.
        batch: super::placement::reap_batch(spec.timing, depth as u32, false, false),
        continue_on_error: false,
    };
    let plan = super::worker_plans(spec, part).remove(0);
    let pass = crate::io::worker::Pass {
        windows: ends.clone(),
        ..Default::default()
    };
    let (reads, writes) = (spec.rw.reads(), spec.rw.writes());
    let seed = 0x5eed_0fda_7a00 ^ spec.bs;
    let pool = if writes {
        crate::io::buffers::job_pool(spec.bs as usize, 1, depth, seed)
    } else {
        crate::io::buffers::Pool::new(crate::io::buffers::ALIGN, crate::io::buffers::ALIGN, seed)
    };
    let mut bufs = crate::io::buffers::Buffers::with_pool(spec.bs as usize, depth, plan.seed, reads, pool);
    let clock = MockClock::default();
    let mut engine = MockEngine::new(clock.clone(), depth, device.servers, device.service_ns, device.per_byte_ns);
    let stop = AtomicBool::new(false);
    let beat = Beat::default();
    let shared = StreamShared::new(1, ends.len());
    let sh = crate::io::worker::Shared {
        stop: &stop,
        beat: &beat,
        stream: &shared,
        index: 0,
    };
    let got = crate::io::worker::drive(&mut engine, &clock, &mut bufs, &plan, &pass, &sh).map_err(|e| e.source.to_string())?;
    let end_ns = clock.now_ns();

    // The device's counters as `/proc/diskstats` would have shown them,
    // read on the real stream's grid.
    let names = vec![device.name.clone()];
    let mut total = DiskCounters::default();
    let table = |c: &DiskCounters| HashMap::from([(device.name.clone(), *c)]);
    let mut seconds = Seconds::starting(&table(&total), &names);
    let mut boundaries = vec![total];
    for (k, w) in got.iter().enumerate() {
        let start = if k == 0 { 0 } else { ends[k - 1] };
        for s in 0..w.read.per_sec_bytes.len().max(w.write.per_sec_bytes.len()) {
            add(&mut total, w, s);
            let at = start + (s as u64 + 1) * SECOND;
            if at < ends[k] {
                seconds.push(at, &table(&total));
            }
        }
        if k + 1 < got.len() {
            seconds.push(ends[k], &table(&total));
            boundaries.push(total);
        }
    }
    // The last window's drain reaches the device after the deadline.
    let last = got
        .last()
        .map(|w| (w.read.all_bytes - w.read.bytes, w.write.all_bytes - w.write.bytes));
    if let Some((r, w)) = last {
        total.read_sectors += r / 512;
        total.write_sectors += w / 512;
    }
    seconds.push(end_ns.max(ends.last().copied().unwrap_or(0)), &table(&total));
    boundaries.push(total);

    let mut runs = Vec::with_capacity(got.len());
    for (k, w) in got.iter().enumerate() {
        let stream = Stream {
            ends: &ends,
            shared: &shared,
            seconds: &seconds,
            boundaries: &boundaries,
            name: &device.name,
            end_ns,
        };
        runs.push(window(k, w, &stream));
    }
    let mut runs = runs.into_iter();
    let warmup = if warm { runs.next() } else { None };
    Ok(JobSamples {
        spec: spec.clone(),
        direct: true,
        workers: 1,
        depth_per_worker: depth as u32,
        runs: runs.collect(),
        warmup,
        steady: None,
        planned: repeat.runs,
        zfs_read: None,
    })
}

/// Second `s` of a window's completions, added to the device's counters.
fn add(c: &mut DiskCounters, w: &WorkerSamples, s: usize) {
    let at = |v: &[u64]| v.get(s).copied().unwrap_or(0);
    c.read_sectors += at(&w.read.per_sec_bytes) / 512;
    c.read_ios += at(&w.read.per_sec_ios);
    c.write_sectors += at(&w.write.per_sec_bytes) / 512;
    c.write_ios += at(&w.write.per_sec_ios);
}

/// What the virtual stream left for its windows to be cut from.
struct Stream<'a> {
    /// Each window's end (ns on the clock).
    ends: &'a [u64],
    shared: &'a StreamShared,
    seconds: &'a Seconds,
    /// The device's counters at each window's boundary.
    boundaries: &'a [DiskCounters],
    /// The device's name.
    name: &'a str,
    /// When the last I/O completed.
    end_ns: u64,
}

/// Window `k` as the real stream assembles it.
fn window(k: usize, w: &WorkerSamples, stream: &Stream) -> RunSamples {
    let Stream {
        ends,
        shared,
        seconds,
        boundaries,
        name,
        end_ns,
    } = *stream;
    let last = k + 1 == ends.len();
    let mut run = RunSamples::from_workers([w]);
    for (dir, d) in [&mut run.read, &mut run.write].into_iter().enumerate() {
        d.merge_lat(shared.lat.take(k, dir).as_ref());
    }
    let start = if k == 0 { 0 } else { ends[k - 1] };
    run.wall_ns = (ends[k] - start).max(1);
    run.elapsed_ns = if last { end_ns.max(ends[k]) - start } else { ends[k] - start }.max(1);
    run.first_done_ns = run.first_done_ns.saturating_sub(start);
    run.last_done_ns = run.last_done_ns.saturating_sub(start);
    let (a, b) = (boundaries[k], boundaries[k + 1]);
    run.devices = vec![DiskDelta {
        name: name.to_string(),
        read_bytes: (b.read_sectors - a.read_sectors) * 512,
        write_bytes: (b.write_sectors - a.write_sectors) * 512,
        read_ios: b.read_ios - a.read_ios,
        write_ios: b.write_ios - a.write_ios,
        busy_ns: 0,
        queue_ns: 0,
    }];
    run.device_seconds = seconds.series(start, if last { u64::MAX } else { ends[k] });
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Runs, Rw};
    use std::time::Duration;

    fn spec(secs: u64) -> JobSpec {
        JobSpec {
            name: "SEQ1M Q8T1".into(),
            rw: Rw::Read,
            bs: 1 << 20,
            qd: 8,
            threads: 1,
            mix_read: 70,
            limit: Limit::Time(Duration::from_secs(secs)),
            span: 1 << 30,
            offset: 0,
            direct: true,
            engine: crate::io::engine::EngineKind::IoUring,
            timing: Default::default(),
            sync: Default::default(),
        }
    }

    fn repeat(runs: u32, warmup: u64) -> Repeat {
        Repeat {
            runs: Runs::Fixed(runs),
            warmup: Duration::from_secs(warmup),
            interval: Default::default(),
            steady: None,
        }
    }

    /// 8 servers of 10 ms per 1 MiB I/O at depth 8: 800 MiB/s, exactly.
    fn device() -> VirtualDevice {
        VirtualDevice {
            name: "vdisk0".into(),
            servers: 8,
            service_ns: 10_000_000,
            per_byte_ns: 0.0,
        }
    }

    #[test]
    fn every_second_of_every_window_reaches_the_device_series() {
        let j = virtual_job(&spec(30), &repeat(2, 5), &device()).unwrap();
        assert_eq!(j.runs.len(), 2);
        assert!(j.warmup.is_some());
        for r in &j.runs {
            assert_eq!(r.wall_ns, 30 * SECOND);
            assert_eq!(r.read.per_sec_bytes.len(), 30);
            assert!(r.read.per_sec_bytes.iter().all(|&b| b == 800 << 20), "{:?}", r.read.per_sec_bytes);
            let dev = &r.device_seconds[0];
            assert_eq!(dev.name, "vdisk0");
            assert_eq!(dev.read_bytes.len(), 30);
            assert_eq!(dev.read_bytes[..29], r.read.per_sec_bytes[..29]);
            // The device saw what the job completed, and the drain.
            assert!(r.devices[0].read_bytes >= r.read.bytes);
        }
        let lat = j.runs[0].read.lat.as_ref().unwrap();
        assert_eq!(lat.value_at_quantile(0.5) / 1_000_000, 10);
    }

    #[test]
    fn a_write_only_job_and_a_size_limit() {
        let mut s = spec(3);
        s.rw = Rw::Write;
        let j = virtual_job(&s, &repeat(1, 0), &device()).unwrap();
        assert_eq!(j.runs[0].write.per_sec_bytes.len(), 3);
        assert_eq!(j.runs[0].device_seconds[0].write_bytes.len(), 3);
        s.limit = Limit::Bytes(1 << 30);
        assert!(virtual_job(&s, &repeat(1, 0), &device()).is_err());
    }
}
