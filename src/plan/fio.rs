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
//! | `--sync dsync`: each write with O_DSYNC | `sync=dsync` |
//! | `--sync fsync`: an fdatasync after each write, in the write's latency | `fdatasync=1`, in a job file only: fio times that flush apart from the write (its `sync` latency), so `--engine fio` refuses it |
//! | a span from an offset (scan zones, `--from`) | `offset`, `size` |
//! | a test file in a directory | `directory`, `filename=iolab-fio.test`, `size` (fio lays it out first), `unlink=1` on the last section (which removes it; an interrupted fio leaves it) |
//! | the target's path | `:` written `\:` (fio splits names on `:`); a path fio cannot be given is refused |
//! | refuse mounted devices | `allow_mounted_write=0` |
//!
//! What does not map: iolab's medians, spread and verdicts are computed when
//! fio's output is imported (one section per run makes that possible);
//! `--steady-state`'s SNIA rule (fio's `steadystate=` judges one metric at a
//! time), the per-window flush of a stream (fio flushes once per section),
//! and iolab's device cross-check, CPU accounting of io_uring workers and
//! per-second device counters, which fio does not record the same way.

use super::{JobSpec, Limit, Repeat};
use crate::base::error::{Result, usage};
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
    let safe: String = job
        .chars()
        .map(|c| {
            if matches!(c, '[' | ']' | '#' | ';' | '$') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("{safe}@{k}")
}

/// `path` as the value of fio's `filename=` or `directory=`. fio splits
/// both on `:` (a list of files), unless the colon follows a `\`, and
/// removes that `\`; so every `:` is written `\:` (a literal `\:` becomes
/// `\\:`, which fio reads back as `\:`). What fio cannot be told, iolab
/// refuses: a line break or other control character ends or breaks the
/// line, `#` and `;` start a comment anywhere on it, `$` starts one of
/// fio's substitutions (`${VAR}`, `$ncpus`), and fio strips blanks at
/// either end of a value.
pub fn option_path(path: &str) -> Result<String> {
    let refuse = |why: &str| {
        usage(format!(
            "{}: fio cannot be given this path in a job file ({why}); rename it or link to it from a plain path",
            path.escape_debug()
        ))
    };
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(refuse(&format!("it holds the control character {}", c.escape_debug())));
    }
    if let Some(c) = path.chars().find(|c| matches!(c, '#' | ';' | '$')) {
        return Err(refuse(&format!("fio reads '{c}' as the start of a comment or a substitution")));
    }
    if path.trim() != path {
        return Err(refuse("fio strips the blanks at its start or end"));
    }
    Ok(path.replace(':', "\\:"))
}

/// fio's spelling of a duration: whole milliseconds.
fn ms(d: Duration) -> String {
    format!("{}ms", d.as_millis())
}

/// The job file for `jobs`, repeated as `repeat` says, on `target`; a
/// target path fio cannot be given is refused (see [`option_path`]).
pub fn job_file(jobs: &[JobSpec], repeat: &Repeat, target: &FioTarget) -> Result<String> {
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
            let _ = writeln!(s, "filename={}", option_path(filename)?);
            if let Some(b) = size {
                let _ = writeln!(s, "size={b}");
            }
        }
        FioTarget::Directory { dir, size } => {
            let _ = writeln!(s, "directory={}\nfilename={TEST_FILE}\nsize={size}", option_path(dir)?);
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
            if matches!(target, FioTarget::Directory { .. }) && i + 1 == jobs.len() && k == runs {
                // fio lays the test file out once, for all sections, and
                // `unlink` removes it when its section ends: so only the last
                // section carries it (on an earlier one, the next could not
                // open the file).
                s.push_str("unlink=1\n");
            }
        }
    }
    Ok(s)
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
    match job.sync {
        super::SyncMode::None => {}
        super::SyncMode::Dsync => s.push_str("sync=dsync\n"),
        super::SyncMode::Fsync => s.push_str("fdatasync=1\n"),
    }
    if job.rw.writes() {
        s.push_str("end_fsync=1\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::engine::EngineKind;
    use crate::plan::{Common, Custom, Rw, SuiteName};

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
        let f = job_file(&jobs, &repeat(3, 1, 5), &t).unwrap();
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
        let mut j = JobSpec::custom(Custom {
            rw: Rw::Randrw,
            bs: 4096,
            qd: 4,
            threads: 2,
            mix_read: 70,
            limit: Limit::Bytes(1 << 20),
            direct: false,
            engine: EngineKind::Psync,
        });
        j.offset = 4096;
        j.span = 1 << 24;
        let f = job_file(
            &[j],
            &repeat(1, 0, 0),
            &FioTarget::Path {
                filename: "/dev/sdb".into(),
                size: None,
            },
        )
        .unwrap();
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

    /// The sync suite's modes as fio's options: O_DSYNC, or an fdatasync
    /// after every write; a job that writes as the device takes it has neither.
    #[test]
    fn sync_writes_become_fios_dsync_and_fdatasync() {
        let f = job_file(
            &SuiteName::Sync.jobs(&common()),
            &repeat(1, 0, 0),
            &FioTarget::Path {
                filename: "/dev/sdb".into(),
                size: None,
            },
        )
        .unwrap();
        let sections: Vec<&str> = f.split("\n[").skip(2).collect();
        assert_eq!(sections.len(), 8, "{f}");
        for s in &sections {
            let (dsync, fdatasync) = (s.contains("\nsync=dsync\n"), s.contains("\nfdatasync=1\n"));
            assert_eq!((dsync, fdatasync), (s.contains(" dsync@1]"), s.contains(" fsync@1]")), "{s}");
            assert!(
                s.contains("\nrw=write\n") && s.contains("\niodepth=1\n") && s.contains("\nend_fsync=1\n"),
                "{s}"
            );
        }
        let plain = job_file(
            &SuiteName::Demo.jobs(&common()),
            &repeat(1, 0, 0),
            &FioTarget::Path {
                filename: "/dev/sdb".into(),
                size: None,
            },
        )
        .unwrap();
        assert!(!plain.contains("\nsync=") && !plain.contains("fdatasync"), "{plain}");
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
            )
            .unwrap();
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

    /// fio, when installed (else a counted skip).
    fn have_fio() -> bool {
        let ok = std::process::Command::new("fio").arg("--version").output().is_ok();
        if !ok {
            crate::base::testknob::skip_for_missing_tool("fio");
        }
        ok
    }

    /// Runs `text` with fio in `dir` (so a name fio splits off lands there).
    fn run_fio(dir: &std::path::Path, text: &str) {
        let path = dir.join("j.fio");
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new("fio").arg(&path).current_dir(dir).output().unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(out.status.success(), "{}\n{text}", String::from_utf8_lossy(&out.stderr));
    }

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn write_job(bytes: u64) -> JobSpec {
        JobSpec::custom(Custom {
            rw: Rw::Write,
            bs: 4096,
            qd: 1,
            threads: 1,
            mix_read: 0,
            limit: Limit::Bytes(bytes),
            direct: false,
            engine: EngineKind::Psync,
        })
    }

    /// Issue 36: fio splits `filename` on `:`, so `img:1` was written as
    /// `img` and `1`. Escaped, fio writes the file named, and the file named
    /// by the prefix keeps its bytes.
    #[test]
    fn a_colon_in_a_file_name_names_that_file_for_fio() {
        if !have_fio() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let (img, img1) = (dir.path().join("img"), dir.path().join("img:1"));
        let before: Vec<u8> = (0..65536u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&img, &before).unwrap();
        std::fs::write(&img1, &before).unwrap();
        let target = FioTarget::Path {
            filename: img1.to_str().unwrap().into(),
            size: Some(65536),
        };
        let f = job_file(&[write_job(65536)], &repeat(1, 0, 0), &target).unwrap();
        assert!(f.contains("img\\:1\n"), "{f}");
        run_fio(dir.path(), &f);
        assert!(std::fs::read(&img).unwrap() == before, "the prefix's file was written");
        assert!(std::fs::read(&img1).unwrap() != before, "the file named was not written");
        assert_eq!(names(dir.path()), ["img", "img:1"]);
    }

    /// The same for a directory (fio splits `directory` alike), whose test
    /// file goes when the jobs end, also after several sections.
    #[test]
    fn a_colon_in_a_directory_names_that_directory_and_the_test_file_goes() {
        if !have_fio() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let (d, d1) = (dir.path().join("d"), dir.path().join("d:1"));
        std::fs::create_dir(&d).unwrap();
        std::fs::create_dir(&d1).unwrap();
        let target = FioTarget::Directory {
            dir: d1.to_str().unwrap().into(),
            size: 1 << 20,
        };
        let mut read = write_job(1 << 20);
        read.rw = Rw::Read;
        read.name = "read".into();
        let f = job_file(&[write_job(1 << 20), read], &repeat(2, 0, 0), &target).unwrap();
        assert_eq!(f.matches("unlink=1").count(), 1, "{f}");
        run_fio(dir.path(), &f);
        assert!(names(&d).is_empty(), "fio wrote in the prefix's directory: {:?}", names(&d));
        assert!(names(&d1).is_empty(), "left behind: {:?}", names(&d1));
        assert_eq!(names(dir.path()), ["d", "d:1"]);
    }

    /// What fio cannot be told is refused in one line that names the path.
    #[test]
    fn paths_fio_cannot_be_given_are_refused() {
        assert_eq!(
            option_path("/dev/disk/by-path/pci-0000:00:17.0-ata-1").unwrap(),
            "/dev/disk/by-path/pci-0000\\:00\\:17.0-ata-1"
        );
        assert_eq!(option_path("/a\\:b").unwrap(), "/a\\\\:b");
        for bad in [
            "/x\nrw=write",
            "/x\ry",
            "/x\u{1b}[2Jy",
            "/x;y",
            "/x#y",
            "/x${HOME}",
            "/x$ncpus",
            "/x ",
            " /x",
        ] {
            let e = option_path(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}");
            assert_eq!(e.to_string().lines().count(), 1, "{e}");
            let t = FioTarget::Path {
                filename: bad.into(),
                size: None,
            };
            assert!(job_file(&[write_job(4096)], &repeat(1, 0, 0), &t).is_err(), "{bad:?}");
        }
    }
}
