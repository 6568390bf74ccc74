//! One uninterrupted stream of I/O on a job's running workers, measured in
//! windows: the main thread's side of it. It starts the workers, waits for
//! each window's end, flushes and reads the counters there, judges
//! `--runs auto`'s windows, collects what the workers report (with the
//! watchdog and the target's disappearance checked at every wake-up), and
//! assembles each window into a run's samples.

use super::depth::Inflight;
use super::seconds::Seconds;
use super::{Cmd, Pool, Report, Runner, Settling, Windows, settled};
use crate::base::error::{Error, Result, failed};
use crate::base::progress::{Event, Pass};
use crate::io::stall::Watchdog;
use crate::io::stream::StreamShared;
use crate::measure::snapshot::Snapshot;
use crate::plan::JobSpec;
use crate::samples::{RunSamples, WorkerSamples};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// A stream's windows as the workers and the progress display need them.
struct Schedule {
    labels: Vec<(Pass, Option<Duration>)>,
    /// `--runs auto`: the stream may be cut after a window (time windows only).
    settling: Option<Settling>,
    /// Cumulative window end times in ns (empty for a size-limited stream).
    ends: Vec<u64>,
    /// Each worker's share of a byte limit.
    max_bytes: Option<u64>,
}

impl Schedule {
    fn new(windows: &Windows, workers: u64, bs: u64) -> Self {
        match windows {
            Windows::Time(w, settling) => {
                let mut t = Duration::ZERO;
                let ends = w
                    .iter()
                    .map(|(_, d)| {
                        t += *d;
                        t.as_nanos() as u64
                    })
                    .collect();
                Schedule {
                    labels: w.iter().map(|&(p, d)| (p, Some(d))).collect(),
                    settling: *settling,
                    ends,
                    max_bytes: None,
                }
            }
            Windows::Bytes(p, b) => Schedule {
                labels: vec![(*p, None)],
                settling: None,
                ends: vec![],
                max_bytes: Some(b.div_ceil(workers).next_multiple_of(bs)),
            },
        }
    }
}

/// What the main thread records of a stream at its window boundaries: the
/// counters there, each window's flush time, the devices' second-by-second
/// bytes and the target device's in-flight count.
struct Recording {
    /// The stream's clock zero, which the workers share.
    base: Instant,
    snaps: Vec<Snapshot>,
    flush_ns: Vec<u64>,
    seconds: Seconds,
    inflight: Option<Inflight>,
}

/// The workers' reports as they arrive, and the first failure among them.
struct Collect<'r, 'x> {
    runner: &'r Runner<'x>,
    pool: &'r Pool<'r>,
    job: &'r str,
    /// No completion anywhere (the workers' beats, the devices under the
    /// target) for the stall timeout: the target stopped answering.
    dog: Watchdog,
    done: Vec<Vec<WorkerSamples>>,
    first_err: Option<Error>,
}

impl Collect<'_, '_> {
    /// Whether every worker has reported its stream.
    fn all_done(&self) -> bool {
        self.done.len() == self.pool.cmds.len()
    }

    /// Wait at most `timeout` for a worker's report; then check that the
    /// target is still there and that I/O still completes somewhere.
    fn receive(&mut self, timeout: Duration, seconds: &Seconds) -> Result<()> {
        let (runner, job) = (self.runner, self.job);
        match self.pool.reports.recv_timeout(timeout) {
            Ok(Report::Done(Ok(w))) => self.done.push(w),
            Ok(Report::Done(Err(f))) => {
                // Stop the others; the first failure is what we report.
                runner.stop.request();
                self.first_err.get_or_insert_with(|| runner.fault(job, f));
                self.done.push(Vec::new());
            }
            Ok(Report::Ready(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(failed("a worker thread panicked")),
        }
        if self.first_err.is_none()
            && let Some(gone) = runner.target.gone()
        {
            runner.stop.request();
            self.first_err = Some(failed(format!("the target went away in \"{job}\": {gone}")));
        }
        let beats = self.pool.beats.iter().map(|b| b.get()).fold(0u64, u64::wrapping_add);
        if let Some(still) = self.dog.check(Instant::now(), beats.wrapping_add(seconds.progress())) {
            // The stuck workers are left behind with the target's descriptor.
            runner.target.abandon();
            runner.stop.request();
            return Err(runner.target.stalled(&format!("running \"{job}\""), still));
        }
        Ok(())
    }
}

impl Runner<'_> {
    /// One uninterrupted stream of I/O, measured in windows. At each window
    /// boundary the main thread reads the CPU and device counters and, for
    /// writes, makes the window's data durable (fdatasync) and adds the time
    /// that took to the window. With a [`Settling`], it then judges the
    /// measured windows so far and, once they have settled, cuts the stream
    /// after that window. After the last window the workers stop issuing,
    /// let what is in flight complete (counted for latency and the device
    /// cross-check, not for throughput) and flush.
    pub(super) fn stream(&self, spec: &JobSpec, windows: Windows, pool: &Pool) -> Result<Vec<RunSamples>> {
        self.stop.check()?;
        if spec.rw.reads() && !self.target.direct() {
            self.target.drop_cache()?;
        }
        let n = pool.cmds.len() as u64;
        let schedule = Schedule::new(&windows, n, spec.bs);
        let nwin = schedule.labels.len();
        let shared = Arc::new(StreamShared::new(n as usize, nwin));
        let first = self.counters();
        let base = Instant::now();
        let mut rec = Recording {
            base,
            seconds: Seconds::new(&first, &self.target.device_names),
            inflight: Inflight::open(&self.sys, &self.target.device_names),
            snaps: vec![first],
            flush_ns: vec![0u64; nwin],
        };
        for c in pool.cmds {
            c.send(Cmd::Go {
                base,
                windows: schedule.ends.clone(),
                max_bytes: schedule.max_bytes,
                shared: shared.clone(),
            })
            .map_err(|_| failed("a worker thread exited early"))?;
        }
        let mut c = Collect {
            runner: self,
            pool,
            job: spec.name.as_str(),
            dog: Watchdog::new(crate::io::stall::timeout(), base),
            done: Vec::with_capacity(n as usize),
            first_err: None,
        };
        let cut = self.windows(spec, &schedule, &shared, &mut c, &mut rec)?;
        let last = cut.unwrap_or(nwin - 1);
        let last_start = if last > 0 {
            Duration::from_nanos(schedule.ends[last - 1])
        } else {
            Duration::ZERO
        };
        while !c.all_done() {
            let tick = rec.seconds.sample(&self.sys, base, last_start);
            let due = rec.inflight.as_mut().map_or(Duration::MAX, |f| f.sample(last));
            c.receive(tick.min(due).min(Duration::from_millis(100)), &rec.seconds)?;
            self.observer.event(Event::Tick {
                elapsed: base.elapsed().saturating_sub(last_start),
            });
        }
        rec.snaps.push(self.counters());
        rec.seconds
            .boundary(base.elapsed().as_nanos() as u64, rec.snaps.last().expect("just pushed"));
        if let Some(e) = c.first_err {
            return Err(e);
        }
        self.stop.check()?;
        let mut done = c.done;
        // A worker that finished before it saw the cut has windows after it: drain.
        for w in &mut done {
            for tail in w.split_off((last + 1).min(w.len())) {
                w[last].read.absorb_drain(&tail.read);
                w[last].write.absorb_drain(&tail.write);
            }
        }
        Ok(self.runs(&done, &schedule.ends, last, nwin, &shared, &mut rec))
    }

    /// The stream's windows up to its last: wait for each boundary, flush a
    /// writing job's data there and read the counters, and with a
    /// [`Settling`] judge the measured windows and cut the stream once they
    /// have settled. The window it was cut after, if it was.
    fn windows(
        &self,
        spec: &JobSpec,
        schedule: &Schedule,
        shared: &StreamShared,
        c: &mut Collect,
        rec: &mut Recording,
    ) -> Result<Option<usize>> {
        let (ends, nwin, job, base) = (&schedule.ends, schedule.labels.len(), spec.name.as_str(), rec.base);
        for (k, &(pass, planned)) in schedule.labels.iter().enumerate() {
            self.observer.event(Event::PassStart {
                job: &spec.name,
                pass,
                planned,
            });
            let start = if k == 0 {
                Duration::ZERO
            } else {
                Duration::from_nanos(ends[k - 1])
            };
            if k + 1 == nwin {
                break;
            }
            // A boundary between two windows: wait for it, then cut.
            let at = base + Duration::from_nanos(ends[k]);
            loop {
                let now = Instant::now();
                if now >= at || c.all_done() {
                    break;
                }
                let tick = rec.seconds.sample(&self.sys, base, start);
                let due = rec.inflight.as_mut().map_or(Duration::MAX, |f| f.sample(k));
                c.receive((at - now).min(tick).min(due).min(Duration::from_millis(100)), &rec.seconds)?;
                self.observer.event(Event::Tick {
                    elapsed: base.elapsed() - start,
                });
            }
            if spec.rw.writes() {
                let t = Instant::now();
                crate::base::testknob::pause_at("flush");
                let synced = self
                    .target
                    .bounded(&self.sys, &format!("flushing written data in \"{job}\""), crate::io::sys::fdatasync)?;
                synced.map_err(|e| failed(self.target.flush_failure(job, &e)))?;
                rec.flush_ns[k] = t.elapsed().as_nanos() as u64;
            }
            rec.snaps.push(self.counters());
            rec.seconds.boundary(ends[k], rec.snaps.last().expect("just pushed"));
            if let Some(st) = schedule.settling
                && k + 1 >= st.first + st.min
            {
                // Every worker has closed window k once it has seen a completion after it.
                // (A worker that failed has closed them all; the failure is reported below.)
                while shared.closed() <= k && !c.all_done() {
                    c.receive(Duration::from_millis(2), &rec.seconds)?;
                }
                let bw = |j: usize| {
                    let (r, w) = shared.window_bytes(j);
                    let s = (ends[j] - if j == 0 { 0 } else { ends[j - 1] } + rec.flush_ns[j]).max(1) as f64 / 1e9;
                    (r as f64 / s, w as f64 / s)
                };
                let (r, w): (Vec<f64>, Vec<f64>) = (st.first..=k).map(bw).unzip();
                if settled(&r, &w, st.reads, st.writes, st.min, st.max) {
                    shared.cut_after(k);
                    return Ok(Some(k));
                }
            }
        }
        Ok(None)
    }

    /// Each window up to the `last` as a run's samples: the workers' counts
    /// and the stream's latencies (the drain joins the last window), its
    /// wall time with its flush, and the counters, device seconds and
    /// in-flight samples of the window.
    fn runs(
        &self,
        done: &[Vec<WorkerSamples>],
        ends: &[u64],
        last: usize,
        nwin: usize,
        shared: &StreamShared,
        rec: &mut Recording,
    ) -> Vec<RunSamples> {
        let final_snap = rec.snaps.len() - 1;
        let mut runs = Vec::with_capacity(last + 1);
        for k in 0..=last {
            let per_worker: Vec<&WorkerSamples> = done.iter().map(|w| &w[k]).collect();
            let mut run = RunSamples::from_workers(per_worker.iter().copied());
            // The stream's latencies; after the last window, the drain's join it.
            for (dir, d) in [&mut run.read, &mut run.write].into_iter().enumerate() {
                d.merge_lat(shared.lat.take(k, dir).as_ref());
                if k == last {
                    for j in last + 1..nwin {
                        d.merge_lat(shared.lat.take(j, dir).as_ref());
                    }
                }
            }
            // The last window's flush is the workers' own, unless the main
            // thread flushed at its end (a window the stream was cut after).
            let flushed_here = k + 1 < nwin;
            let sync_ns = if flushed_here {
                rec.flush_ns[k]
            } else {
                per_worker.iter().map(|w| w.sync_ns).max().unwrap_or(0)
            };
            run.sync_ns = sync_ns;
            let win_start = if k == 0 { 0 } else { ends[k - 1] };
            run.wall_ns = match ends.get(k) {
                Some(&end) => end - win_start + sync_ns,
                None => {
                    let start = per_worker.iter().map(|w| w.start_ns).min().unwrap_or(0);
                    per_worker
                        .iter()
                        .map(|w| w.end_ns + w.sync_ns)
                        .max()
                        .unwrap_or(0)
                        .saturating_sub(start)
                }
            }
            .max(1);
            run.first_done_ns = run.first_done_ns.saturating_sub(win_start);
            run.last_done_ns = run.last_done_ns.saturating_sub(win_start);
            // The last window's counters run to the end of the drain.
            let to = if k == last { final_snap } else { k + 1 };
            let d = rec.snaps[k].delta(&rec.snaps[to], &self.target.device_names);
            run.elapsed_ns = d.elapsed_ns.max(1);
            run.cpu = d.cpu;
            run.sys = d.sys;
            run.devices = d.devices;
            run.other_devices = self.others(rec.snaps[k].moved(&rec.snaps[to], &self.sys));
            // The last window ends when its I/O has completed and been flushed.
            let win_end = if k == last { u64::MAX } else { ends[k] };
            run.device_seconds = rec.seconds.series(win_start, win_end);
            run.inflight = rec.inflight.as_mut().and_then(|f| f.take(k));
            runs.push(run);
        }
        runs
    }
}
