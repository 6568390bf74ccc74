//! Runs jobs against an open target: threads, engines, warm-up, repeated
//! runs, the final flush, and the CPU and device counters around each pass.
//!
//! It collects [`RunSamples`] and never prints; it reports progress through
//! the [`Observer`] the caller supplies.

use crate::buffers::Buffers;
use crate::cpu;
use crate::device::{self, SysRoot};
use crate::engine::{Clock, Engine, RealClock, psync::Psync, uring::Uring};
use crate::error::{Error, Result, failed};
use crate::plan::{EngineKind, JobSpec, Limit, Repeat};
use crate::samples::{RunSamples, WorkerSamples};
use crate::signals::Stop;
use crate::target::Target;
use crate::worker::{self, WorkerPlan};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// Which pass of a job is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Warmup,
    /// Measured run `n` of `of` (1-based).
    Run {
        n: u32,
        of: u32,
    },
}

/// Progress events, for a progress bar or a log.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Prefill {
        done: u64,
        total: u64,
    },
    PassStart {
        job: &'a str,
        pass: Pass,
        planned: Option<Duration>,
    },
    /// Time since the current pass started.
    Tick {
        elapsed: Duration,
    },
    Interval {
        planned: Duration,
    },
    JobDone {
        job: &'a str,
    },
}

pub trait Observer {
    fn event(&self, ev: Event<'_>);
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {
    fn event(&self, _: Event<'_>) {}
}

/// Everything measured for one job.
#[derive(Clone, Debug)]
pub struct JobSamples {
    pub spec: JobSpec,
    pub direct: bool,
    pub workers: u32,
    pub depth_per_worker: u32,
    pub runs: Vec<RunSamples>,
}

pub struct Runner<'a> {
    pub target: &'a Target,
    pub stop: &'a Stop,
    pub observer: &'a dyn Observer,
    pub sys: SysRoot,
}

impl Runner<'_> {
    /// Warm-up (discarded), then `repeat.runs` measured passes with the interval between.
    pub fn run_job(&self, spec: &JobSpec, repeat: &Repeat) -> Result<JobSamples> {
        let (workers, depth) = layout(spec);
        let mut out = JobSamples {
            spec: spec.clone(),
            direct: self.target.direct(),
            workers,
            depth_per_worker: depth,
            runs: Vec::new(),
        };
        if !repeat.warmup.is_zero() {
            self.observer.event(Event::PassStart {
                job: &spec.name,
                pass: Pass::Warmup,
                planned: Some(repeat.warmup),
            });
            self.pass(spec, Limit::Time(repeat.warmup))?;
        }
        for n in 1..=repeat.runs {
            if n > 1 && !repeat.interval.is_zero() {
                self.observer.event(Event::Interval { planned: repeat.interval });
                self.stop.sleep(repeat.interval);
                self.check_stop()?;
            }
            let planned = match spec.limit {
                Limit::Time(d) => Some(d),
                Limit::Bytes(_) => None,
            };
            self.observer.event(Event::PassStart {
                job: &spec.name,
                pass: Pass::Run { n, of: repeat.runs },
                planned,
            });
            out.runs.push(self.pass(spec, spec.limit)?);
        }
        self.observer.event(Event::JobDone { job: &spec.name });
        Ok(out)
    }

    fn check_stop(&self) -> Result<()> {
        match self.stop.signal() {
            Some(sig) => Err(Error::Interrupted(sig)),
            None if self.stop.requested() => Err(Error::Interrupted(libc::SIGINT)),
            None => Ok(()),
        }
    }

    /// One pass: all workers start together; the clock runs from the first
    /// I/O to the last completion, plus the final flush for writes.
    pub fn pass(&self, spec: &JobSpec, limit: Limit) -> Result<RunSamples> {
        self.check_stop()?;
        let reads = spec.rw.reads();
        let writes = spec.rw.writes();
        if reads && !self.target.direct() {
            self.target.drop_cache()?;
        }
        let (n, depth) = layout(spec);
        let plans = worker_plans(spec, limit, self.target.span(), n);
        let ready = Barrier::new(n as usize + 1);
        let go = Barrier::new(n as usize + 1);
        let base: OnceLock<Instant> = OnceLock::new();
        let fd = self.target.fd();
        let stop = self.stop.flag();
        let read_pct = spec.rw.read_pct(spec.mix_read);

        let (results, before) = std::thread::scope(|s| {
            let handles: Vec<_> = plans
                .into_iter()
                .map(|mut plan| {
                    let (ready, go, base) = (&ready, &go, &base);
                    s.spawn(move || -> Result<WorkerSamples> {
                        let mut bufs = Buffers::new(spec.bs as usize, depth as usize, plan.seed, reads, writes);
                        let sync = BarrierPair { ready, go, base };
                        match spec.engine {
                            EngineKind::IoUring => {
                                let setup = Uring::new(fd, depth as usize, &bufs);
                                work(setup, spec.engine, &sync, &mut bufs, &mut plan, limit, stop, read_pct < 100)
                            }
                            EngineKind::Psync => work(
                                Ok(Psync::new(fd)),
                                spec.engine,
                                &sync,
                                &mut bufs,
                                &mut plan,
                                limit,
                                stop,
                                read_pct < 100,
                            ),
                        }
                    })
                })
                .collect();
            ready.wait();
            // Counters are read after every worker has its buffers and ring, so setup is not measured.
            let before = (cpu::process_now(), cpu::system_now(), device::diskstats(&self.sys));
            let t0 = *base.get_or_init(Instant::now);
            go.wait();
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(Duration::from_millis(50));
                self.observer.event(Event::Tick { elapsed: t0.elapsed() });
            }
            let results: Vec<Result<WorkerSamples>> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(failed("a worker thread panicked"))))
                .collect();
            (results, before)
        });
        let after = (cpu::process_now(), cpu::system_now(), device::diskstats(&self.sys));
        let workers = results.into_iter().collect::<Result<Vec<_>>>()?;
        self.check_stop()?;
        let mut run = RunSamples::from_workers(&workers);
        let start = workers.iter().map(|w| w.start_ns).min().unwrap_or(0);
        let io_end = workers.iter().map(|w| w.end_ns).max().unwrap_or(0);
        run.wall_ns = io_end.saturating_sub(start).max(1);
        run.first_done_ns = run.first_done_ns.saturating_sub(start);
        run.last_done_ns = run.last_done_ns.saturating_sub(start);
        run.cpu = cpu::process_delta(before.0, after.0);
        run.sys = cpu::system_delta(before.1, after.1);
        run.devices = device::delta(&before.2, &after.2, &self.target.device_names);
        Ok(run)
    }
}

/// The start line every worker and the main thread meet at: `ready` once
/// set up, `go` once the main thread has read the counters and set `base`.
struct BarrierPair<'a> {
    ready: &'a Barrier,
    go: &'a Barrier,
    base: &'a OnceLock<Instant>,
}

/// One worker's life: wait at the start line (even when setup failed, so
/// nobody deadlocks), run to the limit, flush if it wrote.
#[allow(clippy::too_many_arguments)]
fn work<E: Engine>(
    setup: std::io::Result<E>,
    kind: EngineKind,
    sync: &BarrierPair,
    bufs: &mut Buffers,
    plan: &mut WorkerPlan,
    limit: Limit,
    stop: &std::sync::atomic::AtomicBool,
    wrote: bool,
) -> Result<WorkerSamples> {
    sync.ready.wait();
    sync.go.wait();
    let mut engine = setup.map_err(|e| failed(format!("cannot set up the {} engine: {e}", kind.as_str())))?;
    let clock = RealClock::new(*sync.base.get().expect("base set before go"));
    if let Limit::Time(d) = limit {
        plan.deadline_ns = Some(clock.now_ns() + d.as_nanos() as u64);
    }
    let mut r = worker::drive(&mut engine, &clock, bufs, plan, stop).map_err(|e| failed(format!("I/O error: {e}")))?;
    if wrote {
        engine.sync().map_err(|e| failed(format!("flushing written data failed: {e}")))?;
        r.end_ns = clock.now_ns();
    }
    // The engine (and its registered buffers) goes before the buffers do.
    drop(engine);
    Ok(r)
}

/// Worker threads and queue depth per worker: io_uring runs `threads`
/// rings of depth `qd`; psync emulates depth with one thread per slot.
pub fn layout(spec: &JobSpec) -> (u32, u32) {
    match spec.engine {
        EngineKind::IoUring => (spec.threads, spec.qd),
        EngineKind::Psync => (spec.threads * spec.qd, 1),
    }
}

/// Split the job among `n` workers. Random workers share the whole span;
/// sequential workers each stream through their own contiguous part of it,
/// as separate threads of CrystalDiskMark and fio do.
pub fn worker_plans(spec: &JobSpec, limit: Limit, span: u64, n: u32) -> Vec<WorkerPlan> {
    let bs = spec.bs;
    let blocks = span / bs;
    let random = spec.rw.is_random();
    let per = if random { blocks } else { (blocks / n as u64).max(1) };
    (0..n)
        .map(|i| {
            let start = if random {
                0
            } else {
                (i as u64 * per).min(blocks.saturating_sub(1)) * bs
            };
            WorkerPlan {
                bs,
                random,
                read_pct: spec.rw.read_pct(spec.mix_read),
                start,
                len: per * bs,
                seq_offset: 0,
                deadline_ns: None,
                max_bytes: match limit {
                    Limit::Bytes(b) => Some(b.div_ceil(n as u64).next_multiple_of(bs)),
                    Limit::Time(_) => None,
                },
                seed: 0x1234_5678 ^ ((i as u64 + 1) << 32) ^ bs,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Rw;

    fn spec(rw: Rw, engine: EngineKind, qd: u32, threads: u32) -> JobSpec {
        JobSpec {
            name: "t".into(),
            rw,
            bs: 1 << 20,
            qd,
            threads,
            mix_read: 70,
            limit: Limit::Time(Duration::from_secs(1)),
            span: 1 << 30,
            direct: true,
            engine,
        }
    }

    #[test]
    fn psync_emulates_depth_with_threads() {
        assert_eq!(layout(&spec(Rw::Read, EngineKind::Psync, 8, 2)), (16, 1));
        assert_eq!(layout(&spec(Rw::Read, EngineKind::IoUring, 8, 2)), (2, 8));
    }

    #[test]
    fn sequential_workers_get_disjoint_ranges() {
        let s = spec(Rw::Read, EngineKind::IoUring, 1, 4);
        let p = worker_plans(&s, s.limit, 1 << 30, 4);
        assert_eq!(p.len(), 4);
        for (i, w) in p.iter().enumerate() {
            assert_eq!(w.start, i as u64 * (256 << 20));
            assert_eq!(w.len, 256 << 20);
        }
    }

    #[test]
    fn random_workers_share_the_span_with_distinct_seeds() {
        let s = spec(Rw::Randread, EngineKind::IoUring, 1, 3);
        let p = worker_plans(&s, Limit::Bytes(10 << 20), 1 << 30, 3);
        assert!(p.iter().all(|w| w.start == 0 && w.len == 1 << 30));
        assert_ne!(p[0].seed, p[1].seed);
        assert!(p.iter().all(|w| w.max_bytes == Some(4 << 20)));
    }
}
