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
use std::sync::mpsc;
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

/// What the main thread tells a worker.
enum Cmd {
    /// Run one pass with this clock zero, until the deadline (ns after
    /// `base`) or this worker's share of a byte limit.
    Go {
        base: Instant,
        deadline_ns: Option<u64>,
        max_bytes: Option<u64>,
    },
}

/// What a worker tells the main thread: setup done, or a pass done.
enum Report {
    Ready(Result<()>),
    Done(Result<WorkerSamples>),
}

impl Runner<'_> {
    /// Warm-up (discarded), then `repeat.runs` measured passes with the interval between.
    ///
    /// The worker threads, their rings and their buffers live for the whole
    /// job, so one pass follows the previous one within microseconds when the
    /// interval is zero: an idle gap would let a device (or a throttle) bank
    /// credit and flatter the next run.
    pub fn run_job(&self, spec: &JobSpec, repeat: &Repeat) -> Result<JobSamples> {
        let (n, depth) = layout(spec);
        let plans = worker_plans(spec, self.target.span(), n);
        let fd = self.target.fd();
        let stop = self.stop.flag();
        let (reads, writes) = (spec.rw.reads(), spec.rw.writes());
        std::thread::scope(|s| {
            let (report_tx, report_rx) = mpsc::channel::<Report>();
            let mut cmd_txs = Vec::with_capacity(n as usize);
            for plan in plans {
                let (cmd_tx, cmd_rx) = mpsc::channel::<Cmd>();
                cmd_txs.push(cmd_tx);
                let report_tx = report_tx.clone();
                s.spawn(move || {
                    let mut bufs = Buffers::new(spec.bs as usize, depth as usize, plan.seed, reads, writes);
                    let ctx = WorkerCtx {
                        kind: spec.engine,
                        cmds: cmd_rx,
                        reports: report_tx,
                        stop,
                        wrote: writes,
                    };
                    match spec.engine {
                        EngineKind::IoUring => {
                            let setup = Uring::new(fd, depth as usize, &bufs);
                            worker_thread(setup, &ctx, &mut bufs, plan)
                        }
                        EngineKind::Psync => worker_thread(Ok(Psync::new(fd)), &ctx, &mut bufs, plan),
                    }
                });
            }
            drop(report_tx);
            // Wait until every worker has its engine and buffers.
            for _ in 0..n {
                match report_rx.recv() {
                    Ok(Report::Ready(r)) => r?,
                    _ => return Err(failed("a worker thread stopped during setup")),
                }
            }
            let pool = Pool {
                cmds: &cmd_txs,
                reports: &report_rx,
            };
            let mut out = JobSamples {
                spec: spec.clone(),
                direct: self.target.direct(),
                workers: n,
                depth_per_worker: depth,
                runs: Vec::new(),
            };
            if !repeat.warmup.is_zero() {
                self.observer.event(Event::PassStart {
                    job: &spec.name,
                    pass: Pass::Warmup,
                    planned: Some(repeat.warmup),
                });
                self.pass(spec, Limit::Time(repeat.warmup), &pool)?;
            }
            for k in 1..=repeat.runs {
                if k > 1 && !repeat.interval.is_zero() {
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
                    pass: Pass::Run { n: k, of: repeat.runs },
                    planned,
                });
                out.runs.push(self.pass(spec, spec.limit, &pool)?);
            }
            self.observer.event(Event::JobDone { job: &spec.name });
            Ok(out)
            // Dropping the command senders ends the workers; the scope joins them.
        })
    }

    fn check_stop(&self) -> Result<()> {
        match self.stop.signal() {
            Some(sig) => Err(Error::Interrupted(sig)),
            None if self.stop.requested() => Err(Error::Interrupted(libc::SIGINT)),
            None => Ok(()),
        }
    }

    /// One pass. For a time-limited pass the figures cover the window from
    /// the start signal to the deadline, plus the final flush; I/O still in
    /// flight at the deadline completes (and counts for latency and the
    /// device cross-check) but does not stretch the window.
    fn pass(&self, spec: &JobSpec, limit: Limit, pool: &Pool) -> Result<RunSamples> {
        self.check_stop()?;
        if spec.rw.reads() && !self.target.direct() {
            self.target.drop_cache()?;
        }
        let before = (cpu::process_now(), cpu::system_now(), device::diskstats(&self.sys));
        let n = pool.cmds.len() as u64;
        let (deadline_ns, max_bytes) = match limit {
            Limit::Time(d) => (Some(d.as_nanos() as u64), None),
            Limit::Bytes(b) => (None, Some(b.div_ceil(n).next_multiple_of(spec.bs))),
        };
        let base = Instant::now();
        for c in pool.cmds {
            c.send(Cmd::Go {
                base,
                deadline_ns,
                max_bytes,
            })
            .map_err(|_| failed("a worker thread exited early"))?;
        }
        let mut workers = Vec::with_capacity(pool.cmds.len());
        let mut first_err = None;
        while workers.len() + usize::from(first_err.is_some()) < pool.cmds.len() {
            match pool.reports.recv_timeout(Duration::from_millis(100)) {
                Ok(Report::Done(Ok(w))) => workers.push(w),
                Ok(Report::Done(Err(e))) => {
                    // Stop the others, then report the first failure.
                    self.stop.request();
                    first_err.get_or_insert(e);
                    workers.push(WorkerSamples::default());
                }
                Ok(Report::Ready(_)) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => self.observer.event(Event::Tick { elapsed: base.elapsed() }),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(failed("a worker thread panicked")),
            }
        }
        let elapsed_ns = base.elapsed().as_nanos() as u64;
        let after = (cpu::process_now(), cpu::system_now(), device::diskstats(&self.sys));
        if let Some(e) = first_err {
            return Err(e);
        }
        self.check_stop()?;
        let mut run = RunSamples::from_workers(&workers);
        let sync_ns = workers.iter().map(|w| w.sync_ns).max().unwrap_or(0);
        run.sync_ns = sync_ns;
        run.wall_ns = match limit {
            Limit::Time(d) => d.as_nanos() as u64 + sync_ns,
            Limit::Bytes(_) => {
                let start = workers.iter().map(|w| w.start_ns).min().unwrap_or(0);
                workers
                    .iter()
                    .map(|w| w.end_ns + w.sync_ns)
                    .max()
                    .unwrap_or(0)
                    .saturating_sub(start)
            }
        }
        .max(1);
        run.elapsed_ns = elapsed_ns.max(1);
        run.cpu = cpu::process_delta(before.0, after.0);
        run.sys = cpu::system_delta(before.1, after.1);
        run.devices = device::delta(&before.2, &after.2, &self.target.device_names);
        Ok(run)
    }
}

/// The main thread's ends of the worker channels.
struct Pool<'a> {
    cmds: &'a [mpsc::Sender<Cmd>],
    reports: &'a mpsc::Receiver<Report>,
}

/// A worker's ends of the channels and what it needs besides its engine.
struct WorkerCtx<'a> {
    kind: EngineKind,
    cmds: mpsc::Receiver<Cmd>,
    reports: mpsc::Sender<Report>,
    stop: &'a std::sync::atomic::AtomicBool,
    wrote: bool,
}

/// One worker's life: report setup, then run a pass per `Go` until the
/// main thread hangs up. Generic so each engine's loop is compiled on its own.
fn worker_thread<E: Engine>(setup: std::io::Result<E>, ctx: &WorkerCtx, bufs: &mut Buffers, mut plan: WorkerPlan) {
    let mut engine = match setup {
        Ok(e) => {
            let _ = ctx.reports.send(Report::Ready(Ok(())));
            e
        }
        Err(e) => {
            let _ = ctx.reports.send(Report::Ready(Err(failed(format!(
                "cannot set up the {} engine: {e}",
                ctx.kind.as_str()
            )))));
            return;
        }
    };
    while let Ok(Cmd::Go {
        base,
        deadline_ns,
        max_bytes,
    }) = ctx.cmds.recv()
    {
        let clock = RealClock::new(base);
        plan.deadline_ns = deadline_ns;
        plan.max_bytes = max_bytes;
        let result = worker::drive(&mut engine, &clock, bufs, &plan, ctx.stop)
            .map_err(|e| failed(format!("I/O error: {e}")))
            .and_then(|mut r| {
                if ctx.wrote {
                    let t = clock.now_ns();
                    engine.sync().map_err(|e| failed(format!("flushing written data failed: {e}")))?;
                    r.sync_ns = clock.now_ns() - t;
                }
                Ok(r)
            });
        if ctx.reports.send(Report::Done(result)).is_err() {
            break;
        }
    }
    // The engine (and its registered buffers) goes before the buffers do.
    drop(engine);
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
pub fn worker_plans(spec: &JobSpec, span: u64, n: u32) -> Vec<WorkerPlan> {
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
                max_bytes: None,
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
        let p = worker_plans(&s, 1 << 30, 4);
        assert_eq!(p.len(), 4);
        for (i, w) in p.iter().enumerate() {
            assert_eq!(w.start, i as u64 * (256 << 20));
            assert_eq!(w.len, 256 << 20);
        }
    }

    #[test]
    fn random_workers_share_the_span_with_distinct_seeds() {
        let s = spec(Rw::Randread, EngineKind::IoUring, 1, 3);
        let p = worker_plans(&s, 1 << 30, 3);
        assert!(p.iter().all(|w| w.start == 0 && w.len == 1 << 30));
        assert_ne!(p[0].seed, p[1].seed);
    }
}
