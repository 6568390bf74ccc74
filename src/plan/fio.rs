//! A plan as a fio job file: the same jobs, run by fio (`iolab run|job
//! --emit fio`, the fio engine, and fio's client/server for many hosts).
//!
//! | iolab | fio |
//! |---|---|
//! | a test's warm-up, then `--runs` measured runs | one section per run (`NAME@1`, `NAME@2`, …), each `stonewall`ed; the first carries `ramp_time` = `--warmup`, the others 500 ms of it (fio restarts the stream at each section, iolab does not) |
//! | `--interval` between runs and tests | `startdelay` on every section after the first |
//! | `--duration` | `time_based`, `runtime` |
//! | `--bytes` (all threads together) | `io_size` per thread (bytes / threads) |
//! | a dd-style pass over the span | `size` with no `runtime`: one pass |
//! | `rw`, `bs`, `--mix-read` | `rw`, `bs`, `rwmixread` |
//! | queue depth × threads | `iodepth` × `numjobs` with `thread` (iolab's workers are threads) and `group_reporting` |
//! | psync with queue depth N | `numjobs` = threads × N at `iodepth=1` (iolab emulates depth with threads) |
//! | io_uring with registered file and buffers | `ioengine=io_uring`, `fixedbufs`, `registerfiles` |
//! | O_DIRECT, `--buffered` | `direct=1`, `direct=0` (fio's `invalidate=1` drops the file's pages before a job) |
//! | incompressible, never-repeating data | `buffer_compress_percentage=0`, `scramble_buffers=1`, `randrepeat=0` |
//! | uniform random offsets, repeats allowed | `norandommap` |
//! | writes timed to a final fdatasync | `end_fsync=1` (the flush is part of the job) |
//! | a span from an offset (scan zones, `--from`) | `offset`, `size` |
//! | a test file in a directory | `directory`, `filename=iolab-fio.test`, `size` (fio lays it out first) |
//! | refuse mounted devices | `allow_mounted_write=0` |
//!
//! What does not map: iolab's medians, spread and verdicts are computed when
//! fio's output is imported (one section per run makes that possible);
//! `--steady-state`'s SNIA rule (fio's `steadystate=` judges one metric at a
//! time), the per-window flush of a stream (fio flushes once per section),
//! and iolab's device cross-check, CPU accounting of io_uring workers and
//! per-second device counters, which fio does not record the same way.

use super::{JobSpec, Limit, Repeat};
use std::fmt::Write as _;
use std::time::Duration;

/// Where fio's jobs do their I/O.
#[derive(Clone, Debug, PartialEq)]
pub enum FioTarget {
    /// A file or block device, used as it is (`size` bytes of it, if given).
    Path { filename: String, size: Option<u64> },
    /// A directory: fio lays out a test file of `size` bytes there.
    Directory { dir: String, size: u64 },
}

/// The discarded lead-in of every run after a test's first (see [`section`]).
pub const RESTART_RAMP: Duration = Duration::from_millis(500);

/// The name of the test file fio makes in a directory target.
pub const TEST_FILE: &str = "iolab-fio.test";

/// The name of measured run `k` (1-based) of `job` in the job file. fio
/// reads `#` and `;` anywhere on a line as the start of a comment, so the
/// run number follows an `@`, and those characters in a name become `_`.
pub fn section_name(job: &str, k: u32) -> String {
    format!("{}@{k}", job.replace(['[', ']', '\n', '#', ';'], "_"))
}

/// fio's spelling of a duration: whole milliseconds.
fn ms(d: Duration) -> String {
    format!("{}ms", d.as_millis())
}

/// The job file for `jobs`, repeated as `repeat` says, on `target`.
pub fn job_file(jobs: &[JobSpec], repeat: &Repeat, target: &FioTarget) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "; made by iolab {}: the same jobs as iolab runs them", env!("CARGO_PKG_VERSION"));
    if repeat.runs.is_auto() {
        let _ = writeln!(
            s,
            "; --runs auto: fio cannot stop a test once its runs settle, so each test runs {} times",
            repeat.runs.min()
        );
    }
    s.push_str("[global]\n");
    match target {
        FioTarget::Path { filename, size } => {
            let _ = writeln!(s, "filename={filename}");
            if let Some(b) = size {
                let _ = writeln!(s, "size={b}");
            }
        }
        FioTarget::Directory { dir, size } => {
            let _ = writeln!(s, "directory={dir}\nfilename={TEST_FILE}\nsize={size}");
        }
    }
    for line in [
        "thread",
        "group_reporting",
        "randrepeat=0",
        "norandommap",
        "buffer_compress_percentage=0",
        "scramble_buffers=1",
        "allow_mounted_write=0",
    ] {
        s.push_str(line);
        s.push('\n');
    }
    // fio cannot stop a test once its runs settle: `--runs auto` runs its fewest.
    let runs = repeat.runs.min().max(1);
    for (i, job) in jobs.iter().enumerate() {
        for k in 1..=runs {
            let _ = writeln!(s, "\n[{}]", section_name(&job.name, k));
            s.push_str("stonewall\n");
            let pause = match (i, k) {
                (0, 1) => Duration::ZERO,
                (_, 1) => repeat.interval.before_next(jobs[i - 1].rw.writes()),
                _ => repeat.interval.between_runs(),
            };
            if !pause.is_zero() {
                let _ = writeln!(s, "startdelay={}", ms(pause));
            }
            section(&mut s, job, repeat, k == 1);
        }
    }
    s
}

fn section(s: &mut String, job: &JobSpec, repeat: &Repeat, first_run: bool) {
    let engine = job.engine.ops();
    let (numjobs, iodepth) = engine.layout.workers(job.threads, job.qd);
    let _ = writeln!(s, "rw={}\nbs={}\niodepth={iodepth}\nnumjobs={numjobs}", job.rw.as_str(), job.bs);
    if matches!(job.rw, super::Rw::Randrw | super::Rw::Rw) {
        let _ = writeln!(s, "rwmixread={}", job.mix_read);
    }
    let _ = writeln!(s, "direct={}", u8::from(job.direct));
    let _ = writeln!(s, "ioengine={}", engine.fio);
    for option in engine.fio_options {
        let _ = writeln!(s, "{option}");
    }
    // The latency mode as fio's options: a batch reaped at once, or no clock.
    match job.timing {
        super::Timing::Exact => {}
        super::Timing::Batch(_) if iodepth > 1 => {
            let _ = writeln!(s, "iodepth_batch_complete_min={}", job.timing.batch(iodepth));
        }
        super::Timing::Batch(_) => {}
        super::Timing::Off => s.push_str("gtod_reduce=1\n"),
    }
    if job.offset > 0 {
        let _ = writeln!(s, "offset={}", job.offset);
    }
    if job.span > 0 {
        let _ = writeln!(s, "size={}", job.span);
    }
    match job.limit {
        Limit::Time(d) => {
            let _ = writeln!(s, "time_based\nruntime={}", ms(d));
        }
        Limit::Bytes(b) => {
            let _ = writeln!(s, "io_size={}", b.div_ceil(u64::from(numjobs)));
        }
        Limit::Span => {}
    }
    if !repeat.warmup.is_zero() && matches!(job.limit, Limit::Time(_)) {
        // The warm-up before a test's first run; before each later run, a
        // short one: iolab's runs are windows of one stream, but fio starts
        // each section anew, and a restarting stream is served a burst
        // (a device's idle cache, a throttle's unspent slice).
        let ramp = if first_run {
            repeat.warmup
        } else {
            repeat.warmup.min(RESTART_RAMP)
        };
        let _ = writeln!(s, "ramp_time={}", ms(ramp));
    }
    if job.rw.writes() {
        s.push_str("end_fsync=1\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::engine::EngineKind;
    use crate::plan::{Common, Rw, SuiteName};

    fn repeat(runs: u32, warmup: u64, interval: u64) -> Repeat {
        Repeat::fixed(runs, Duration::from_secs(warmup), Duration::from_secs(interval))
    }

    fn common() -> Common {
        Common {
            limit: Limit::Time(Duration::from_secs(5)),
            span: 0,
            direct: true,
            engine: EngineKind::IoUring,
            mix_read: 70,
            timing: Default::default(),
            transfers: Vec::new(),
        }
    }

    #[test]
    fn the_default_battery_as_a_job_file() {
        let jobs = SuiteName::Default.jobs(&common());
        let t = FioTarget::Directory {
            dir: "/mnt/x".into(),
            size: 1 << 30,
        };
        let f = job_file(&jobs, &repeat(3, 1, 5), &t);
        insta::assert_snapshot!(f.replace(env!("CARGO_PKG_VERSION"), "VERSION"));
        // A section per test and run, each stonewalled.
        assert_eq!(f.matches("\n[").count(), 1 + jobs.len() * 3);
        assert_eq!(f.matches("stonewall").count(), jobs.len() * 3);
        assert_eq!(
            f.matches("ramp_time=1000ms").count(),
            jobs.len(),
            "the warm-up before each test's first run"
        );
        assert_eq!(
            f.matches("startdelay=5000ms").count(),
            jobs.len() * 3 - 1,
            "the interval before all but the first"
        );
    }

    #[test]
    fn psync_depth_becomes_threads_and_bytes_are_per_thread() {
        let mut j = JobSpec::custom(Rw::Randrw, 4096, 4, 2, 70, Limit::Bytes(1 << 20), false, EngineKind::Psync);
        j.offset = 4096;
        j.span = 1 << 24;
        let f = job_file(
            &[j],
            &repeat(1, 0, 0),
            &FioTarget::Path {
                filename: "/dev/sdb".into(),
                size: None,
            },
        );
        for want in [
            "numjobs=8\n",
            "iodepth=1\n",
            "ioengine=psync\n",
            "io_size=131072\n",
            "rwmixread=70\n",
            "direct=0\n",
            "offset=4096\n",
            "size=16777216\n",
            "end_fsync=1\n",
            "filename=/dev/sdb\n",
        ] {
            assert!(f.contains(want), "{want} in\n{f}");
        }
        assert!(!f.contains("ramp_time") && !f.contains("startdelay") && !f.contains("time_based"));
    }

    /// fio itself accepts every suite's job file (when fio is installed).
    #[test]
    fn fio_parses_every_suite() {
        if std::process::Command::new("fio").arg("--version").output().is_err() {
            crate::base::testknob::skip_for_missing_tool("fio");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        for suite in SuiteName::all().into_iter().filter(|s| !s.is_app()) {
            let f = job_file(
                &suite.jobs(&common()),
                &repeat(2, 1, 1),
                &FioTarget::Directory {
                    dir: dir.path().display().to_string(),
                    size: 1 << 20,
                },
            );
            let path = dir.path().join("j.fio");
            std::fs::write(&path, &f).unwrap();
            let out = std::process::Command::new("fio").arg("--parse-only").arg(&path).output().unwrap();
            assert!(
                out.status.success(),
                "{}: {}\n{f}",
                suite.as_str(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
