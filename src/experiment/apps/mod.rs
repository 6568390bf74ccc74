//! Application-level workloads, timed with a cold cache: a real command
//! (`iolab time`), and the built-in many-small-files and git workloads
//! (`iolab run --suite files|git`).
//!
//! What the seeds' authors felt was file-system and application level
//! (seed 004 timed a real `git pull`; seed 003 used FAB and Winstone), so
//! these workloads report phases in seconds, files/s and MB/s, with what
//! really reached the device next to each.
//!
//! [`Meter`] is what every workload measures with: it empties the caches
//! before a cold phase, and reads the clock, the CPU (iolab's and its
//! children's: `git` runs as a child) and `/proc/diskstats` around it: the
//! figures of the devices under the directory, and every device that moved.

pub mod files;
pub mod git;

use super::{Context, Measured, until_stopped};
use crate::base::error::{Result, usage};
use crate::base::progress::Level;
use crate::base::progress::{Event, Observer};
use crate::base::signals::Stop;
use crate::device::{self, SysRoot};
use crate::measure::Snapshot;
use crate::plan::SuiteName;
pub use crate::samples::PhaseSamples;
use crate::summary::{self, Body, Settings};
use crate::targets::TargetInfo;
use std::path::PathBuf;
use std::time::Duration;

/// The built-in application workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// A tree of `files` small files.
    Files { files: u64 },
    /// A generated git history of `commits` commits.
    Git { commits: u32 },
}

/// Files in the generated repository's tree (a mid-size source tree).
pub const GIT_FILES: u32 = 3000;
/// Seeds of the generated data: the same tree and history on every run and machine.
const FILES_SEED: u64 = 0x0f11_e5ed;
const GIT_SEED: u64 = 0x6177_5eed;

impl Workload {
    pub fn suite(self) -> SuiteName {
        match self {
            Workload::Files { .. } => SuiteName::Files,
            Workload::Git { .. } => SuiteName::Git,
        }
    }
    /// The parameters, for the record.
    fn params(self) -> Vec<(String, u64)> {
        match self {
            Workload::Files { files } => vec![("files".into(), files)],
            Workload::Git { commits } => vec![("commits".into(), commits as u64), ("files".into(), GIT_FILES as u64)],
        }
    }
}

/// `run --suite files|git`: a workload run `runs` times in `dir`.
#[derive(Clone, Debug)]
pub struct AppRequest {
    pub workload: Workload,
    pub dir: PathBuf,
    pub runs: u32,
    /// Pause between runs.
    pub interval: Duration,
    /// `--allow-export`: on ZFS, cold phases export and import the pool.
    pub allow_export: bool,
}

impl AppRequest {
    /// An application suite (`files` with `files` files, `git` with
    /// `commits` commits) in `dir`. It is timed whole: `--runs auto` runs it
    /// its fewest times, and it stops at its first error.
    pub fn suite(
        suite: crate::plan::SuiteName,
        dir: PathBuf,
        files: u64,
        commits: u32,
        repeat: &crate::plan::Repeat,
        continue_on_error: bool,
        allow_export: bool,
    ) -> Result<AppRequest> {
        if continue_on_error {
            return Err(usage(format!(
                "--continue-on-error applies to suites of jobs; the {} suite is an application workload, which stops at its first error",
                suite.as_str()
            )));
        }
        Ok(AppRequest {
            workload: match suite {
                crate::plan::SuiteName::Files => Workload::Files { files },
                _ => Workload::Git { commits },
            },
            dir,
            runs: repeat.runs.min(),
            interval: repeat.interval.before_next(true),
            allow_export,
        })
    }

    pub fn validate(&self) -> Result<()> {
        crate::plan::limits::check_count("runs", self.runs, crate::plan::limits::MAX_RUNS).map_err(usage)?;
        if !self.dir.is_dir() {
            return Err(usage(format!(
                "the {} suite needs a directory to work in; {} is not one",
                self.workload.suite().as_str(),
                self.dir.display()
            )));
        }
        Ok(())
    }
}

pub(super) fn run(r: &AppRequest, ctx: &Context) -> Result<Measured> {
    let cold = super::cold::can_drop_caches();
    if !cold {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: "not root, so the caches cannot be emptied between phases: every phase is measured WARM (labelled warm); run as root for cold figures",
        });
    }
    if let Some(text) = crate::targets::leftovers::notice(&crate::targets::leftovers::sweep(&r.dir)) {
        ctx.observer.event(Event::Notice {
            level: Level::Note,
            text: &text,
        });
    }
    let mut runs: Vec<Vec<PhaseSamples>> = Vec::new();
    let zfs = crate::targets::zfs::LiveZfs;
    // On ZFS, the git suite's tree lives in a dataset of its own, generated
    // once and rolled back to its snapshot between runs.
    let mut child = match r.workload {
        Workload::Git { .. } => git_dataset(&zfs, &r.dir, &ctx.sys, ctx.observer),
        Workload::Files { .. } => None,
    };
    // After an import the cold phases wait for the directory they work in
    // to be mounted again: the git suite's dataset, when it has one.
    let work_dir = child.as_ref().map_or(r.dir.clone(), |ds| ds.mountpoint().to_path_buf());
    let cooler = cold.then(|| super::cold::Cooler::for_dir(&ctx.sys, &work_dir, r.allow_export));
    let mut meter = Meter::for_dir(&r.dir, ctx.stop, ctx.observer);
    meter.cooler = cooler.as_ref();
    let interrupted = until_stopped(|| {
        if let (Workload::Git { commits }, Some(ds)) = (r.workload, child.as_mut()) {
            let opts = git::GitOpts {
                commits,
                files: GIT_FILES,
                seed: GIT_SEED,
                cold,
            };
            let (origin, generated) = git::prepare(ds.mountpoint(), &opts, &meter)?;
            ds.snapshot("origin")?;
            for k in 0..r.runs {
                if k > 0 {
                    if !r.interval.is_zero() {
                        ctx.stop.sleep(r.interval);
                    }
                    ds.rollback()?;
                }
                let mut phases = if k == 0 { vec![generated.clone()] } else { Vec::new() };
                phases.extend(git::measure(&origin, &opts, &meter)?);
                runs.push(phases);
            }
            return Ok(());
        }
        for k in 0..r.runs {
            if k > 0 && !r.interval.is_zero() {
                ctx.stop.sleep(r.interval);
            }
            runs.push(match r.workload {
                Workload::Files { files } => files::run(
                    &r.dir,
                    &files::FilesOpts {
                        files,
                        seed: FILES_SEED,
                        cold,
                    },
                    &meter,
                )?,
                Workload::Git { commits } => git::run(
                    &r.dir,
                    &git::GitOpts {
                        commits,
                        files: GIT_FILES,
                        seed: GIT_SEED,
                        cold,
                    },
                    &meter,
                )?,
            });
        }
        Ok(())
    })?;
    if let Some(ds) = child.take() {
        ds.destroy()?;
    }
    let suite = r.workload.suite();
    let devices = device::chain_of_path(&ctx.sys, &r.dir);
    // `iolab info`'s facts of the directory, its pool's layout among them.
    let target = TargetInfo::directory(&ctx.sys, &r.dir, devices);
    let zfs = target.info.as_ref().and_then(|i| i.zfs.as_ref());
    let body = Body::App(summary::apps::app_report(suite.as_str(), cold, r.workload.params(), &runs, zfs));
    Ok(Measured {
        command: "run",
        target,
        settings: Settings {
            runs: r.runs,
            warmup_s: 0.0,
            interval_s: r.interval.as_secs_f64(),
            suite: Some(suite.as_str().into()),
            steady_state: None,
            ..Settings::default()
        },
        body,
        interrupted,
        failed: None,
    })
}

/// On ZFS as root: a dataset of the git suite's own under `dir`'s
/// (`DATASET/iolab-git-PID`), or `None` (and why, on the live view) where
/// there is none to make.
fn git_dataset<'z>(
    zfs: &'z dyn crate::targets::zfs::Zpool,
    dir: &std::path::Path,
    sys: &SysRoot,
    observer: &dyn Observer,
) -> Option<crate::targets::dataset::ChildDataset<'z>> {
    let fs = device::filesystem_of(sys, dir)?;
    crate::judge::zfs::Implementation::of_fstype(&fs.fstype)?;
    if !super::cold::can_drop_caches() {
        return None;
    }
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    use crate::targets::dataset::{ChildDataset, sweep};
    match sweep(zfs, &fs.source, "iolab-git", &crate::targets::owner::of) {
        Ok(swept) if !swept.is_empty() => observer.event(Event::Notice {
            level: Level::Note,
            text: &format!("destroyed {}: left by a git suite run that was killed", swept.join(", ")),
        }),
        Ok(_) => {}
        Err(e) => observer.event(Event::Notice {
            level: Level::Warning,
            text: &e.to_string(),
        }),
    }
    match ChildDataset::create(zfs, &fs.source, &dir, "iolab-git", Some(sys)) {
        Ok(ds) => {
            observer.event(Event::Notice {
                level: Level::Note,
                text: &format!(
                    "the git suite works in a dataset of its own, {} (generated once, rolled back to its snapshot between runs, destroyed at the end)",
                    ds.name()
                ),
            });
            Some(ds)
        }
        Err(e) => {
            observer.event(Event::Notice {
                level: Level::Warning,
                text: &format!("{e}; the git suite's tree is generated again in every run instead"),
            });
            None
        }
    }
}

/// Measures phases of a workload on the devices that serve a directory.
#[derive(Clone)]
pub struct Meter<'a> {
    pub sys: SysRoot,
    /// diskstats names to read, top first.
    pub devices: Vec<String>,
    pub stop: &'a Stop,
    pub observer: &'a dyn Observer,
    /// How a cold phase empties the caches (none: `drop_caches`).
    pub cooler: Option<&'a super::cold::Cooler>,
}

impl<'a> Meter<'a> {
    /// A meter for the devices under `dir` (all of them: a loop device and
    /// the device under its file, each member of a multi-device filesystem).
    pub fn for_dir(dir: &std::path::Path, stop: &'a Stop, observer: &'a dyn Observer) -> Meter<'a> {
        let sys = SysRoot::default();
        let devices = device::chain_of_path(&sys, dir).into_iter().map(|d| d.name).collect();
        Meter {
            sys,
            devices,
            stop,
            observer,
            cooler: None,
        }
    }

    /// Tell the observer how far a phase is (`done` of `total` units).
    pub fn progress(&self, label: &str, done: u64, total: u64) {
        self.observer.event(Event::Phase { label, done, total });
    }

    /// Run `f` as one measured phase; `f` returns the files and bytes it
    /// handled. With `cold`, the caches are emptied first (not timed).
    pub fn phase(&self, name: &str, cold: bool, f: impl FnOnce() -> Result<(u64, u64)>) -> Result<PhaseSamples> {
        self.stop.check()?;
        let cold_by = match (cold, self.cooler) {
            (false, _) => None,
            (true, Some(c)) => Some(c.cool(self.observer)?),
            (true, None) => {
                super::cold::drop_caches()?;
                Some(crate::samples::ColdRecord {
                    method: crate::samples::ColdMethod::DropCaches,
                    reason: None,
                })
            }
        };
        // With the children: git runs as a child process.
        let a = Snapshot::take(&self.sys, true);
        let read_before = crate::measure::cpu::storage_read_bytes(true);
        let (files, bytes) = f()?;
        let own_read_bytes = crate::measure::cpu::storage_read_bytes(true).saturating_sub(read_before);
        let b = Snapshot::take(&self.sys, true);
        let d = a.delta(&b, &self.devices);
        Ok(PhaseSamples {
            name: name.to_string(),
            files,
            bytes,
            wall_ns: d.elapsed_ns,
            cpu: d.cpu,
            sys: d.sys,
            devices: d.devices,
            moved: a.moved(&b, &self.sys),
            own_read_bytes,
            cold,
            cold_by,
        })
    }
}
