//! Runs jobs against an open target: threads, engines, warm-up, repeated
//! runs, the final flush, and the CPU and device counters around each pass.
//!
//! It returns a job's [`crate::measure::samples::JobSamples`] (each run's
//! [`RunSamples`]) and never prints; it reports progress through
//! the [`Observer`] the caller supplies.

pub mod cpu;
mod depth;
pub mod placement;
mod samples;
mod seconds;
pub mod snapshot;
mod stream;
mod virtual_job;

pub use samples::{JobSamples, Point, ScaleSamples, ScanSamples};
pub use snapshot::{Delta, Snapshot};
pub use virtual_job::{VirtualDevice, virtual_job};

use crate::base::error::{Error, Result, failed};
use crate::base::progress::{Event, Observer, Pass};
use crate::base::signals::Stop;
use crate::device::SysRoot;
use crate::io::buffers::Buffers;
use crate::io::engine::EngineKind;
use crate::io::engine::{Clock, Driver, Engine, RealClock, Setup};
use crate::io::stall::Beat;
use crate::io::stream::StreamShared;
use crate::io::worker::{self, IoFailure, WorkerPlan};
use crate::plan::{JobSpec, Limit, Repeat, Runs};
use crate::samples::{RunSamples, WorkerSamples};
use crate::targets::Target;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

pub struct Runner<'a> {
    pub target: &'a Target,
    pub stop: &'a Stop,
    pub observer: &'a dyn Observer,
    pub sys: SysRoot,
}

/// What the main thread tells a worker.
enum Cmd {
    /// Run with this clock zero through `windows` (end times in ns), or
    /// until this worker's share of a byte limit when `windows` is empty.
    Go {
        base: Instant,
        windows: Vec<u64>,
        max_bytes: Option<u64>,
        shared: Arc<StreamShared>,
    },
}

/// What a worker tells the main thread: setup done, or a stream done.
enum Report {
    Ready(Result<()>),
    Done(std::result::Result<Vec<WorkerSamples>, Fault>),
}

/// Why a worker's stream failed; the main thread words it with the target and the job.
enum Fault {
    Io(IoFailure),
    Flush(std::io::Error),
}

/// The measured stretches of one stream of I/O.
enum Windows<'a> {
    /// Consecutive windows of these lengths, each labelled for progress;
    /// with a [`Settling`], the stream ends after the first window at which
    /// the measured ones have settled.
    Time(&'a [(Pass, Duration)], Option<Settling>),
    /// One stretch that ends after this many bytes in total.
    Bytes(Pass, u64),
}

/// `--runs auto` in a stream: which windows are measured (from `first`),
/// and the fewest and most of them.
#[derive(Clone, Copy, Debug)]
struct Settling {
    first: usize,
    min: usize,
    max: usize,
    reads: bool,
    writes: bool,
}

/// Whether measured windows with these bytes per second have settled
/// enough to stop: every direction the job has, judged on its own.
fn settled(read_bw: &[f64], write_bw: &[f64], reads: bool, writes: bool, min: usize, max: usize) -> bool {
    let done = |v: &[f64]| crate::judge::settle::done(&crate::judge::settle::judge(v), min, max);
    (!reads || done(read_bw)) && (!writes || done(write_bw))
}

/// Bytes per second of each direction of a run: what `--runs auto` judges.
fn run_bw(r: &RunSamples) -> (f64, f64) {
    let s = r.wall_ns.max(1) as f64 / 1e9;
    (r.read.bytes as f64 / s, r.write.bytes as f64 / s)
}

/// How a job's runs are labelled for progress: from run `first` of `runs`
/// (a job run apart is several jobs of one run each).
#[derive(Clone, Copy)]
struct Label {
    first: u32,
    runs: Runs,
}

/// An observer that passes on every event but a job's end.
struct NoJobDone<'a>(&'a dyn Observer);

impl Observer for NoJobDone<'_> {
    fn event(&self, e: Event<'_>) {
        if !matches!(e, Event::JobDone { .. }) {
            self.0.event(e);
        }
    }
}

/// The label of measured run `n` for progress.
fn run_pass(n: u32, runs: Runs) -> Pass {
    match runs {
        Runs::Fixed(of) => Pass::Run { n, of },
        Runs::Auto { max } => Pass::Window { n, max },
    }
}

impl Runner<'_> {
    /// Of the devices that moved, those outside the target's chain (its
    /// devices and the disks of its partitions): where else I/O went.
    fn others(&self, moved: Vec<crate::samples::DeviceActivity>) -> Vec<crate::samples::DeviceActivity> {
        let own = |n: &str| {
            self.target.device_names.iter().any(|d| d == n)
                || self
                    .target
                    .info
                    .devices
                    .iter()
                    .any(|d| d.name == n || d.partition_of.as_deref() == Some(n))
        };
        moved.into_iter().filter(|m| !own(&m.name)).collect()
    }

    /// Warm-up (discarded), then `repeat.runs` measured runs.
    ///
    /// The worker threads, their rings and their buffers live for the whole
    /// job. With no interval, warm-up and runs are consecutive windows of one
    /// uninterrupted stream of I/O: stopping and restarting the queue between
    /// runs would leave the device idle for a moment, and an idle device (or
    /// a throttle) banks credit that flatters the next run. With an interval,
    /// each run is its own stream after the pause, as in CrystalDiskMark.
    pub fn run_job(&self, spec: &JobSpec, repeat: &Repeat) -> Result<JobSamples> {
        self.job(
            spec,
            repeat,
            Label {
                first: 1,
                runs: repeat.runs,
            },
        )
    }

    /// One run of `spec`, no warm-up, that is no job of the run's own (a
    /// reference for a rule, not a figure): progress shows it, but not its
    /// end as a job's.
    pub fn run_aside(&self, spec: &JobSpec) -> Result<JobSamples> {
        let quiet = NoJobDone(self.observer);
        let aside = Runner {
            target: self.target,
            stop: self.stop,
            observer: &quiet,
            sys: self.sys.clone(),
        };
        aside.run_job(spec, &Repeat::fixed(1, Duration::ZERO, Duration::ZERO))
    }

    /// A job whose every pass (its warm-up, each run) starts cold: each
    /// pass is a job of its own, on workers, engines and a descriptor of
    /// its own, and `before_pass` (an export and import of a ZFS pool) runs
    /// before every pass but the first (the caller readied the first). A
    /// pool cannot be exported while an engine holds its file open
    /// (io_uring registers it), hence no single stream here. The passes
    /// come back as one job's samples, labelled as one job's runs.
    pub fn run_job_apart(&self, spec: &JobSpec, repeat: &Repeat, before_pass: &mut dyn FnMut() -> Result<()>) -> Result<JobSamples> {
        let one = |runs: u32, warmup: Duration| Repeat {
            runs: Runs::Fixed(runs),
            warmup,
            interval: crate::plan::Interval::Fixed(Duration::ZERO),
            steady: None,
        };
        // Each pass's own end is not the job's: the observer hears it once.
        let quiet = NoJobDone(self.observer);
        let apart = Runner {
            target: self.target,
            stop: self.stop,
            observer: &quiet,
            sys: self.sys.clone(),
        };
        let mut out: Option<JobSamples> = None;
        if !repeat.warmup.is_zero() {
            out = Some(apart.job(
                spec,
                &one(0, repeat.warmup),
                Label {
                    first: 1,
                    runs: repeat.runs,
                },
            )?);
        }
        let (reads, writes) = (spec.rw.reads(), spec.rw.writes());
        let (min, max) = (repeat.runs.min() as usize, repeat.runs.max() as usize);
        for k in 1..=repeat.runs.max() {
            let pause = repeat.interval.between_runs();
            if k > 1 && !pause.is_zero() {
                self.observer.event(Event::Interval { planned: pause });
                self.stop.sleep(pause);
                self.stop.check()?;
            }
            if out.is_some() {
                before_pass()?;
                self.stop.check()?;
            }
            let mut got = apart.job(
                spec,
                &one(1, Duration::ZERO),
                Label {
                    first: k,
                    runs: repeat.runs,
                },
            )?;
            let o = match &mut out {
                Some(o) => {
                    o.runs.append(&mut got.runs);
                    o
                }
                None => out.insert(got),
            };
            if repeat.runs.is_auto() {
                let (r, w): (Vec<f64>, Vec<f64>) = o.runs.iter().map(run_bw).unzip();
                if settled(&r, &w, reads, writes, min, max) {
                    break;
                }
            }
        }
        let mut out = out.ok_or_else(|| failed(format!("\"{}\" has no run to measure", spec.name)))?;
        out.planned = repeat.runs;
        self.observer.event(Event::JobDone { job: &spec.name });
        Ok(out)
    }

    /// [`Runner::run_job`], its runs labelled from `label.first` of `label.runs`.
    fn job(&self, spec: &JobSpec, repeat: &Repeat, label: Label) -> Result<JobSamples> {
        // Per job: a suite may mix buffered and O_DIRECT jobs on one target.
        let direct = self.target.use_direct(spec.direct);
        let (n, depth) = layout(spec);
        let (offset, span) = spec.extent(self.target.span());
        let fd = self.target.fd();
        let nowait = self.target.nowait();
        let cpu_served = !nowait && self.target.memory_served();
        let path = placement::TargetPath {
            nowait,
            memory: self.target.memory_served(),
            scheduled: self.target.scheduled(),
        };
        let cpus = allowed_cpus();
        let colocated = placement::colocate(spec.engine, n, cpus.len(), path);
        let plans = worker_plans(
            spec,
            JobPart {
                offset,
                span,
                workers: n,
                batch: placement::reap_batch(spec.timing, depth, colocated, cpu_served),
                continue_on_error: self.target.continue_on_error,
            },
        );
        let (reads, writes) = (spec.rw.reads(), spec.rw.writes());
        // The workers are threads of their own, not scoped ones: a worker
        // stuck in the kernel on a target that stopped answering must not
        // keep the run from reporting (see `stream` and `io::stall`).
        let (report_tx, report_rx) = mpsc::channel::<Report>();
        let mut cmd_txs = Vec::with_capacity(n as usize);
        let mut handles = Vec::with_capacity(n as usize);
        let beats: Vec<Arc<Beat>> = (0..n).map(|_| Arc::new(Beat::default())).collect();
        // One pool of write data for all the workers (see `job_pool`); a job
        // that only reads needs none.
        let seed = 0x5eed_0fda_7a00 ^ spec.bs;
        let wpool = if writes {
            crate::io::buffers::job_pool(spec.bs as usize, n as usize, depth as usize, seed)
        } else {
            crate::io::buffers::Pool::new(crate::io::buffers::ALIGN, crate::io::buffers::ALIGN, seed)
        };
        for (i, plan) in plans.into_iter().enumerate() {
            let colocate = colocated.then(|| cpus[i % cpus.len()]);
            let (cmd_tx, cmd_rx) = mpsc::channel::<Cmd>();
            cmd_txs.push(cmd_tx);
            let report_tx = report_tx.clone();
            let (engine, bs, stop, beat, wpool) = (spec.engine, spec.bs, self.stop.clone(), beats[i].clone(), wpool.clone());
            let h = std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    let mut bufs = Buffers::with_pool(bs as usize, depth as usize, plan.seed, reads, wpool);
                    let ctx = WorkerCtx {
                        kind: engine,
                        cmds: cmd_rx,
                        reports: report_tx,
                        stop: stop.flag(),
                        wrote: writes,
                        beat: &beat,
                        index: i,
                    };
                    let setup = Setup {
                        fd,
                        depth: depth as usize,
                        colocate,
                        nowait,
                        submit_each: placement::submit_each(path, depth),
                    };
                    engine.open(setup, &mut bufs, Worker { ctx: &ctx, plan });
                    // The engine is gone, and with it every I/O into these
                    // buffers (it drained: `worker::drive`, `Engine::drain`).
                    crate::base::testknob::mark("buffers-free");
                    drop(bufs);
                })
                .map_err(|e| failed(format!("cannot start a worker thread: {e}")))?;
            handles.push(h);
        }
        drop(report_tx);
        let pool = Pool {
            cmds: &cmd_txs,
            reports: &report_rx,
            beats: &beats,
        };
        let result = self.passes(
            spec,
            repeat,
            label,
            Shape {
                direct,
                workers: n,
                depth,
                span,
            },
            &pool,
        );
        // Dropping the command senders ends the workers.
        drop(cmd_txs);
        if !self.target.abandoned() {
            for h in handles {
                let _ = h.join();
            }
        }
        // Abandoned: a worker is stuck in the kernel; it is left behind, and
        // the target keeps its descriptor open until the process exits.
        result
    }

    /// The warm-up and the runs of one job on its running workers.
    fn passes(&self, spec: &JobSpec, repeat: &Repeat, label: Label, shape: Shape, pool: &Pool) -> Result<JobSamples> {
        let Shape {
            direct,
            workers: n,
            depth,
            span,
        } = shape;
        let run_pass = |k: u32, _: Runs| run_pass(label.first + k - 1, label.runs);
        // Wait until every worker has its engine and buffers.
        for _ in 0..n {
            match pool.reports.recv() {
                Ok(Report::Ready(r)) => r?,
                _ => return Err(failed("a worker thread stopped during setup")),
            }
        }
        let mut out = JobSamples {
            spec: spec.clone(),
            direct,
            workers: n,
            depth_per_worker: depth,
            runs: Vec::new(),
            warmup: None,
            steady: repeat.steady_for(spec),
            planned: repeat.runs,
            zfs_read: None,
        };
        let warm = !repeat.warmup.is_zero();
        if let Some(rule) = repeat.steady_for(spec) {
            if warm {
                out.warmup = self
                    .stream(spec, Windows::Time(&[(Pass::Warmup, repeat.warmup)], None), pool)?
                    .pop();
            }
            out.runs = self.steady_rounds(spec, rule, span, pool)?;
            self.observer.event(Event::JobDone { job: &spec.name });
            return Ok(out);
        }
        let runs = repeat.runs;
        let (reads, writes) = (spec.rw.reads(), spec.rw.writes());
        let (min, max) = (runs.min() as usize, runs.max() as usize);
        match spec.limit {
            Limit::Time(d) if repeat.interval.between_runs().is_zero() && direct => {
                let mut w: Vec<(Pass, Duration)> = Vec::new();
                if warm {
                    w.push((Pass::Warmup, repeat.warmup));
                }
                w.extend((1..=runs.max()).map(|k| (run_pass(k, runs), d)));
                let settle = runs.is_auto().then_some(Settling {
                    first: usize::from(warm),
                    min,
                    max,
                    reads,
                    writes,
                });
                let mut got = self.stream(spec, Windows::Time(&w, settle), pool)?;
                out.runs = got.split_off(usize::from(warm));
                out.warmup = got.pop();
            }
            limit => {
                if warm {
                    out.warmup = self
                        .stream(spec, Windows::Time(&[(Pass::Warmup, repeat.warmup)], None), pool)?
                        .pop();
                }
                for k in 1..=runs.max() {
                    let pause = repeat.interval.between_runs();
                    if k > 1 && !pause.is_zero() {
                        self.observer.event(Event::Interval { planned: pause });
                        self.stop.sleep(pause);
                        self.stop.check()?;
                    }
                    let p = run_pass(k, runs);
                    let mut got = match limit {
                        Limit::Time(d) => self.stream(spec, Windows::Time(&[(p, d)], None), pool)?,
                        Limit::Bytes(b) => self.stream(spec, Windows::Bytes(p, b), pool)?,
                        Limit::Span => self.stream(spec, Windows::Bytes(p, span), pool)?,
                    };
                    out.runs.append(&mut got);
                    if runs.is_auto() {
                        let (r, w): (Vec<f64>, Vec<f64>) = out.runs.iter().map(run_bw).unzip();
                        if settled(&r, &w, reads, writes, min, max) {
                            break;
                        }
                    }
                }
            }
        }
        self.observer.event(Event::JobDone { job: &spec.name });
        Ok(out)
    }

    /// Back-to-back rounds until the last `rule.window` are steady (SNIA
    /// PTS) or `rule.max_rounds` have run. Rounds follow each other with no
    /// pause: a pause lets a flash device recover and would hide the very
    /// state being sought. Each round is its own stream, flushed at its end.
    fn steady_rounds(&self, spec: &JobSpec, rule: crate::plan::SteadyRule, span: u64, pool: &Pool) -> Result<Vec<RunSamples>> {
        let mut runs: Vec<RunSamples> = Vec::new();
        let mut values: Vec<f64> = Vec::new();
        for n in 1..=rule.max_rounds {
            let p = Pass::Run { n, of: rule.max_rounds };
            let mut got = match spec.limit {
                Limit::Time(d) => self.stream(spec, Windows::Time(&[(p, d)], None), pool)?,
                Limit::Bytes(b) => self.stream(spec, Windows::Bytes(p, b), pool)?,
                Limit::Span => self.stream(spec, Windows::Bytes(p, span), pool)?,
            };
            values.extend(got.iter().map(round_value));
            runs.append(&mut got);
            if crate::judge::steady::steady_state(&values, rule.window).reached {
                break;
            }
        }
        Ok(runs)
    }

    fn counters(&self) -> Snapshot {
        Snapshot::take(&self.sys, false)
    }

    /// A worker's failure as the one line the user reads.
    fn fault(&self, job: &str, f: Fault) -> Error {
        failed(match f {
            Fault::Io(e) => self.target.io_failure(job, e.dir, e.offset, e.len, &e.source),
            Fault::Flush(e) => self.target.flush_failure(job, &e),
        })
    }
}

/// What a steady-state round is judged by: bytes per second, flush included
/// (for a fixed block size, proportional to IOPS, which the PTS uses).
pub fn round_value(r: &RunSamples) -> f64 {
    (r.read.bytes + r.write.bytes) as f64 / (r.wall_ns.max(1) as f64 / 1e9)
}

/// The main thread's ends of the worker channels, and the workers' beats.
struct Pool<'a> {
    cmds: &'a [mpsc::Sender<Cmd>],
    reports: &'a mpsc::Receiver<Report>,
    beats: &'a [Arc<Beat>],
}

/// A worker's ends of the channels and what it needs besides its engine.
struct WorkerCtx<'a> {
    kind: EngineKind,
    cmds: mpsc::Receiver<Cmd>,
    reports: mpsc::Sender<Report>,
    stop: &'a std::sync::atomic::AtomicBool,
    wrote: bool,
    /// Bumped at every completion (and flush), for the watchdog.
    beat: &'a Beat,
    /// This worker's place among the job's.
    index: usize,
}

/// A worker thread, as the engine it opens drives it ([`worker_thread`]).
struct Worker<'a> {
    ctx: &'a WorkerCtx<'a>,
    plan: WorkerPlan,
}

impl Driver for Worker<'_> {
    type Out = ();
    fn drive<E: Engine>(self, engine: std::io::Result<E>, bufs: &mut Buffers) {
        worker_thread(engine, self.ctx, bufs, self.plan)
    }
}

/// One worker's life: report setup, then run a pass per `Go` until the
/// main thread hangs up. Generic so each engine's loop is compiled on its own.
fn worker_thread<E: Engine>(setup: std::io::Result<E>, ctx: &WorkerCtx, bufs: &mut Buffers, plan: WorkerPlan) {
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
    let mut seq_offset = 0;
    while let Ok(Cmd::Go {
        base,
        windows,
        max_bytes,
        shared,
    }) = ctx.cmds.recv()
    {
        let clock = RealClock::new(base);
        let pass = worker::Pass {
            windows,
            max_bytes,
            seq_offset,
        };
        let sh = worker::Shared {
            stop: ctx.stop,
            beat: ctx.beat,
            stream: &shared,
            index: ctx.index,
        };
        let result = worker::drive(&mut engine, &clock, bufs, &plan, &pass, &sh)
            .inspect(|r| seq_offset = worker::Pass::resume_after(r))
            .map_err(Fault::Io)
            .and_then(|mut r| {
                if ctx.wrote {
                    let t = clock.now_ns();
                    crate::base::testknob::pause_at("flush");
                    engine.sync().map_err(Fault::Flush)?;
                    ctx.beat.add(1);
                    if let Some(last) = r.last_mut() {
                        last.sync_ns = clock.now_ns() - t;
                    }
                }
                Ok(r)
            });
        if ctx.reports.send(Report::Done(result)).is_err() {
            break;
        }
    }
    // The engine goes before the buffers do: its drop waits for (or
    // cancels) anything still in flight and unregisters them.
    drop(engine);
}

/// A worker thread's stack: its loop keeps nothing big on it, and a job
/// may have 512 workers (psync at QD32 with 16 threads).
const WORKER_STACK: usize = 512 << 10;

/// The CPUs this process may run on.
fn allowed_cpus() -> Vec<usize> {
    match rustix::thread::sched_getaffinity(None) {
        Ok(set) => (0..rustix::thread::CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
        Err(_) => Vec::new(),
    }
}

/// Worker threads and queue depth per worker, as the engine lays a job
/// out ([`crate::io::engine::Layout`]): io_uring runs `threads` rings of
/// depth `qd`; psync emulates depth with one thread per slot.
pub fn layout(spec: &JobSpec) -> (u32, u32) {
    spec.engine.ops().layout.workers(spec.threads, spec.qd)
}

/// How a job runs on its workers, as [`Runner::passes`] reports it.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Whether its I/O is O_DIRECT.
    direct: bool,
    workers: u32,
    /// Queue depth per worker.
    depth: u32,
    /// Bytes of the target it addresses.
    span: u64,
}

/// What the workers of a job share, each decided once per job before
/// their plans are built ([`worker_plans`]).
#[derive(Clone, Copy, Debug)]
pub struct JobPart {
    /// The part of the target the job addresses: `[offset, offset + span)`.
    pub offset: u64,
    pub span: u64,
    /// Worker threads ([`layout`]).
    pub workers: u32,
    /// Completions each worker waits for at once ([`placement::reap_batch`]).
    pub batch: u32,
    /// Whether a failed I/O is counted and the loop goes on.
    pub continue_on_error: bool,
}

/// Split the job among `part.workers` workers. Random workers share the
/// whole span; sequential workers each stream through their own contiguous
/// part of it, as separate threads of CrystalDiskMark and fio do.
pub fn worker_plans(spec: &JobSpec, part: JobPart) -> Vec<WorkerPlan> {
    let bs = spec.bs;
    let n = part.workers.max(1);
    let blocks = part.span / bs;
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
                start: part.offset + start,
                len: per * bs,
                seed: 0x1234_5678 ^ ((i as u64 + 1) << 32) ^ bs,
                continue_on_error: part.continue_on_error,
                batch: part.batch as usize,
                timed: spec.timing.timed(),
                sync: spec.sync,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Rw;

    fn part(span: u64, workers: u32) -> JobPart {
        JobPart {
            offset: 0,
            span,
            workers,
            batch: 1,
            continue_on_error: false,
        }
    }

    #[test]
    fn a_plan_carries_the_jobs_part_built_once() {
        let s = spec(Rw::Read, EngineKind::IoUring, 8, 2);
        let p = worker_plans(
            &s,
            JobPart {
                offset: 1 << 20,
                batch: 4,
                continue_on_error: true,
                ..part(1 << 30, 2)
            },
        );
        assert_eq!(p[0].start, 1 << 20, "the job's offset is where the first worker starts");
        assert_eq!(p[1].start, (1 << 20) + (512 << 20));
        assert!(p.iter().all(|w| w.batch == 4 && w.continue_on_error && w.timed == s.timing.timed()));
    }

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
            offset: 0,
            direct: true,
            engine,
            timing: Default::default(),
            sync: Default::default(),
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
        let p = worker_plans(&s, part(1 << 30, 4));
        assert_eq!(p.len(), 4);
        for (i, w) in p.iter().enumerate() {
            assert_eq!(w.start, i as u64 * (256 << 20));
            assert_eq!(w.len, 256 << 20);
        }
    }

    #[test]
    fn random_workers_share_the_span_with_distinct_seeds() {
        let s = spec(Rw::Randread, EngineKind::IoUring, 1, 3);
        let p = worker_plans(&s, part(1 << 30, 3));
        assert!(p.iter().all(|w| w.start == 0 && w.len == 1 << 30));
        assert_ne!(p[0].seed, p[1].seed);
    }
}
