//! `iolab layouts`: build each configuration on the devices given, measure
//! it, tear it down, one after the other.
//!
//! For every configuration: its whole teardown, each step with the guard
//! that keeps it to what this run built, is written to a [`Journal`] of its
//! own BEFORE the first build step runs, so a kill at any moment leaves a
//! record the next run unwinds ([`crate::targets::journal::sweep`]), and
//! each step finds what it undoes, or is skipped;
//! then the measurement runs in the built directory; then the journal is
//! unwound, newest first: always, also when a build step or the
//! measurement failed and when a signal stopped the run. A configuration
//! that cannot be built is reported with the tool's own message, and the
//! others go on; a signal stops the run after the current configuration's
//! teardown.

use crate::base::error::{Error, Result, failed};
use crate::base::signals::Stop;
use crate::base::testknob::pause_at;
use crate::targets::journal::{Action, Journal, Outcome as UndoOutcome, Recorded, System, Undo};
use std::path::{Path, PathBuf};

/// One configuration, ready to build: its name, the steps that build it,
/// its teardown (in the order it runs, each step guarded), and the
/// directory the measurement runs in once it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buildable {
    pub name: String,
    /// The devices it is built on (checked again right before each step
    /// that writes one of them).
    pub devices: Vec<String>,
    pub build: Vec<Action>,
    pub teardown: Vec<Undo>,
    pub dir: PathBuf,
}

/// What became of one configuration.
#[derive(Debug)]
pub struct ConfigOutcome<M> {
    pub name: String,
    /// The measurement, when the configuration was built.
    pub measured: Option<M>,
    /// Why it was not built (`cannot build: the tool's message`), or the
    /// measurement's error.
    pub failed: Option<Error>,
    /// The teardown, step by step.
    pub teardown: Vec<(Undo, UndoOutcome)>,
}

impl<M> ConfigOutcome<M> {
    /// Whether every teardown step was done or had nothing left to undo.
    pub fn torn_down(&self) -> bool {
        self.teardown.iter().all(|(_, o)| !matches!(o, UndoOutcome::Failed(_)))
    }
}

/// Where the journals of `iolab layouts` live (root only; kept across a
/// reboot, since the labels iolab wrote stay on the devices).
pub const JOURNALS: &str = "/var/lib/iolab/layouts";

/// What `iolab layouts` runs: its plan, the run's names, and what is
/// measured on each configuration.
pub struct LayoutsRequest {
    pub plan: crate::plan::layouts::LayoutPlan,
    pub names: crate::plan::layouts::RunNames,
    pub workload: super::Experiment,
    /// `--force`: build over a signature (never over a device in use).
    pub force: bool,
    pub journals: PathBuf,
    /// The test file each configuration gets, when iolab sized it
    /// ([`size_test_file`]): said before the first is built.
    pub test_file: Option<crate::plan::layouts::TestFileSize>,
}

/// Sizes the workload's test file for `plan` before anything is built
/// ([`crate::plan::layouts::test_file_size`]): `--size` when every
/// configuration holds it (else a usage error naming the one that does
/// not), or the default cut to the smallest configuration's room. Only jobs
/// have a test file (the application suites make their own trees).
pub fn size_test_file(
    plan: &crate::plan::layouts::LayoutPlan,
    workload: &mut super::Experiment,
    size_of: impl Fn(&Path) -> Option<u64>,
) -> Result<Option<crate::plan::layouts::TestFileSize>> {
    let super::Experiment::Jobs(r) = workload else { return Ok(None) };
    let t = crate::plan::layouts::test_file_size(plan, size_of, r.target.size, crate::targets::DEFAULT_TEST_FILE)
        .map_err(crate::base::error::usage)?;
    if let Some(t) = &t {
        r.target.size = Some(t.bytes);
    }
    Ok(t)
}

/// A block device's size, None when it cannot be opened or is not one (a
/// path of a dry run that does not exist).
pub fn device_size(path: &Path) -> Option<u64> {
    let f = std::fs::File::open(path).ok()?;
    use std::os::unix::fs::FileTypeExt;
    if !f.metadata().ok()?.file_type().is_block_device() {
        return None;
    }
    crate::device::block_device_size(&f).ok()
}

/// One configuration's outcome, with the tags its run is kept with.
pub struct Measured {
    pub name: String,
    pub tags: Vec<(String, String)>,
    /// The configuration as planned.
    pub config: crate::plan::layouts::Config,
    /// The capacity it offered once built (statvfs of its mount point:
    /// blocks × fragment size), when it was built.
    pub usable_bytes: Option<u64>,
    pub outcome: ConfigOutcome<super::Outcome>,
}

/// What a built filesystem or pool offers: its total blocks × their size,
/// as `statvfs` reports them at its mount point (ZFS: the pool's usable
/// space after parity and copies; btrfs: what its data profile leaves).
fn usable_bytes(dir: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    Some(s.f_blocks.saturating_mul(s.f_frsize)).filter(|b| *b > 0)
}

/// What a layouts run came to: lines for the user (refusals, what was
/// swept), and each configuration's outcome.
pub struct LayoutsOutcome {
    pub said: Vec<String>,
    pub configs: Vec<Measured>,
}

/// `iolab layouts`: the journals of killed runs unwound; every device
/// checked before anything is built (a device mounted, in use, a member of
/// a live pool or array, or signed without `--force`, stops the whole
/// plan); then each configuration built, measured and torn down.
pub fn run(r: &LayoutsRequest, ctx: &super::Context) -> Result<LayoutsOutcome> {
    use crate::targets::journal::{Live, Outcome as U, sweep};
    let devices: Vec<PathBuf> = {
        let mut all: Vec<PathBuf> = Vec::new();
        for c in &r.plan.configs {
            for d in &c.devices {
                if !all.contains(d) {
                    all.push(d.clone());
                }
            }
        }
        all
    };
    if r.plan.configs.is_empty() {
        return Err(crate::base::error::usage(
            "layouts: no configuration can be built on these devices here (see --dry-run)",
        ));
    }
    let mut said: Vec<String> = r
        .plan
        .refusals
        .iter()
        .map(|x| format!("{} is not built: {}", x.name, x.reason))
        .collect();
    said.extend(r.test_file.as_ref().map(|t| t.line()));
    // First, what killed runs left: only what their guards prove theirs is
    // touched, and it may be what holds these devices now.
    for s in sweep(&r.journals, &crate::targets::owner::of, &Live) {
        for (u, o) in &s.steps {
            match o {
                U::Done => said.push(format!("undone, left by a killed run: {}", u.what)),
                // Never built, or no longer the run's: nothing to do.
                U::Skipped(_) => {}
                U::LeftAlone(why) => said.push(format!("left alone, from a killed run: {}: {why}", u.what)),
                U::Failed(e) => said.push(format!(
                    "could not undo {} ({e}), left by a killed run: see {}",
                    u.what,
                    s.journal.display()
                )),
            }
        }
    }
    // Pools a killed run left exported (`--allow-export`, which layouts implies on ZFS).
    said.extend(crate::targets::zfs::sweep_exports(
        &crate::targets::zfs::LiveZpool,
        Path::new(crate::targets::zfs::EXPORT_JOURNALS),
    ));
    crate::targets::safety::check_all(&ctx.sys, &devices, r.force).map_err(|refused| {
        let lines: Vec<String> = refused.iter().map(|x| x.message()).collect();
        crate::base::error::usage(format!("layouts builds nothing: {}", lines.join("; ")))
    })?;
    let built: Vec<Buildable> = r
        .plan
        .configs
        .iter()
        .enumerate()
        .map(|(i, c)| buildable(c, i + 1, &r.names))
        .collect();
    let mut usable: Vec<(String, Option<u64>)> = Vec::new();
    let mut measure = |b: &Buildable| {
        usable.push((b.name.clone(), usable_bytes(&b.dir)));
        super::run(&on_dir(&r.workload, &b.dir)?, ctx)
    };
    let outcomes = run_each(&built, &r.journals, &r.names.id, &Live, ctx.stop, r.force, &mut measure);
    // The run's own directory, empty once every configuration is torn down.
    let _ = std::fs::remove_dir(&r.names.root);
    let configs = outcomes?
        .into_iter()
        .zip(&r.plan.configs)
        .map(|(outcome, c)| Measured {
            name: c.name.clone(),
            tags: c.tags.iter().filter(|(k, _)| k != "layout").cloned().collect(),
            config: c.clone(),
            usable_bytes: usable.iter().find(|(n, _)| *n == c.name).and_then(|(_, u)| *u),
            outcome,
        })
        .collect();
    Ok(LayoutsOutcome { said, configs })
}

/// Configuration `index` (from 1) of a plan, ready to build: the plan's
/// build steps, and its teardown as guarded undo steps (see
/// [`crate::targets::journal`]), each checked right before it runs and none
/// that touches a device unguarded:
/// - a pool's destroy only while a pool of the run's name is imported;
/// - an unmount only of the run's own mount point while it is mounted;
/// - a wipe (and `btrfs device scan --forget`) only of a device that
///   carries the run's label: a filesystem's `iolab-XXXXXX`, a pool's name
///   in its ZFS label, an md array's name; the ZFS labels at both ends
///   zeroed on a pool's members;
/// - `mdadm --stop` only while the array's node of the run's name exists,
///   `mdadm --zero-superblock` only of a member whose superblock names the
///   run's array;
/// - `lvm vgremove` only while the run's volume group exists, `lvm
///   pvremove` only of a physical volume with the UUID the run gave it.
///
/// Each step also names the build step that makes what it undoes, so a
/// build that stopped early skips what it never built.
pub fn buildable(c: &crate::plan::layouts::Config, index: usize, names: &crate::plan::layouts::RunNames) -> Buildable {
    use crate::plan::layouts::{Layout, Step as P, commands};
    use crate::targets::journal::Guard;
    let cmds = commands(c, index, names);
    let label = names.label();
    let object = names.object(index);
    let dir = names.mount_dir(index, c);
    let devices: Vec<String> = c.devices.iter().map(|d| d.display().to_string()).collect();
    let build: Vec<Action> = cmds
        .build
        .iter()
        .map(|step| match step {
            P::Run(argv) => Action::Run { argv: argv.clone() },
            P::MakeDir(d) => Action::run(["mkdir", "-p", &d.display().to_string()]),
            P::RemoveDir(d) => Action::RemoveDir { path: d.clone() },
            P::Zero { device, .. } => Action::Wipe {
                device: device.display().to_string(),
                zfs_labels: true,
            },
        })
        .collect();
    let mount_step = build
        .iter()
        .position(|a| matches!(a, Action::Run { argv } if argv.first().is_some_and(|w| w == "mount")))
        .map(|i| i + 1);
    // What a member device carries once built: the pool's or array's name, or iolab's label.
    let member_label = match c.layout {
        Layout::Zfs(_) | Layout::Md(..) => object.clone(),
        _ => label.clone(),
    };
    let zeroed: Vec<String> = cmds
        .teardown
        .iter()
        .filter_map(|s| match s {
            P::Zero { device, .. } => Some(device.display().to_string()),
            _ => None,
        })
        .collect();
    let plan = Teardown {
        build: &build,
        devices: &devices,
        zeroed,
        label: label.clone(),
        member_label,
        object,
        names,
        index,
        mount_step,
    };
    let mut teardown = Vec::new();
    for step in &cmds.teardown {
        let u = match step {
            P::Zero { .. } | P::MakeDir(_) => continue,
            P::RemoveDir(d) => undo(
                format!("the directory {}", d.display()),
                Action::RemoveDir { path: d.clone() },
                Guard::Always,
                false,
                plan.made_by(&d.display().to_string()),
            ),
            P::Run(argv) => plan.undo_of(argv),
        };
        teardown.push(u);
    }
    // The run's own directory, once empty (only one configuration is built at a time).
    teardown.push(undo(
        format!("the directory {}", names.root.display()),
        Action::RemoveDir { path: names.root.clone() },
        Guard::Always,
        true,
        None,
    ));
    Buildable {
        name: c.name.clone(),
        devices,
        build,
        teardown,
        dir,
    }
}

/// What the teardown of one configuration knows, to guard each of its
/// commands ([`buildable`]).
struct Teardown<'a> {
    build: &'a [Action],
    /// The configuration's member devices.
    devices: &'a [String],
    /// The devices whose ZFS labels the teardown zeroes.
    zeroed: Vec<String>,
    /// iolab's label for what the run made.
    label: String,
    /// What a member device carries once built: the pool's or array's name, or the label.
    member_label: String,
    /// The pool's, array's or volume group's name.
    object: String,
    names: &'a crate::plan::layouts::RunNames,
    index: usize,
    /// The build step (from 1) that mounts.
    mount_step: Option<usize>,
}

/// One undo step.
fn undo(what: String, action: Action, guard: crate::targets::journal::Guard, best_effort: bool, after: Option<usize>) -> Undo {
    Undo {
        what,
        action,
        guard,
        best_effort,
        after,
    }
}

impl Teardown<'_> {
    /// The build step (from 1) that first names `word`: what makes the thing it names.
    fn made_by(&self, word: &str) -> Option<usize> {
        self.build
            .iter()
            .position(|a| matches!(a, Action::Run { argv } if argv.iter().any(|w| w == word)))
            .map(|i| i + 1)
    }

    /// Which member `dev` is.
    fn member(&self, dev: &str) -> Option<usize> {
        self.devices.iter().position(|d| d == dev)
    }

    /// A teardown command with the guard that keeps it to iolab's own.
    fn undo_of(&self, argv: &[String]) -> Undo {
        use crate::targets::journal::Guard;
        let words: Vec<&str> = argv.iter().map(String::as_str).collect();
        let run = Action::Run { argv: argv.to_vec() };
        match words.as_slice() {
            ["umount", at] => undo(
                format!("the mount at {at}"),
                run,
                Guard::MountPoint { at: at.to_string() },
                false,
                self.mount_step,
            ),
            ["zpool", "destroy", .., pool] => undo(
                format!("pool {pool}"),
                run,
                Guard::Pool { name: pool.to_string() },
                false,
                self.made_by(pool),
            ),
            ["btrfs", "device", "scan", "--forget", dev] => undo(
                format!("btrfs's registration of {dev}"),
                run,
                Guard::Label {
                    device: dev.to_string(),
                    label: self.label.clone(),
                },
                true,
                self.made_by(dev),
            ),
            ["wipefs", "-a", dev] if self.member(dev).is_some() => undo(
                format!("the signatures on {dev}"),
                Action::Wipe {
                    device: dev.to_string(),
                    zfs_labels: self.zeroed.iter().any(|z| z == dev),
                },
                Guard::Label {
                    device: dev.to_string(),
                    label: self.member_label.clone(),
                },
                false,
                self.made_by(dev),
            ),
            // The array's or the volume's own device: its filesystem, of the run's label.
            ["wipefs", "-a", dev] => undo(
                format!("the filesystem on {dev}"),
                run,
                Guard::Label {
                    device: dev.to_string(),
                    label: self.label.clone(),
                },
                false,
                self.made_by(dev),
            ),
            ["mdadm", "--stop", md] => undo(
                format!("the md array {md}"),
                run,
                Guard::Node { path: md.to_string() },
                false,
                self.made_by(md),
            ),
            ["mdadm", "--zero-superblock", dev] => undo(
                format!("the md superblock on {dev}"),
                run,
                Guard::MdMember {
                    device: dev.to_string(),
                    name: self.object.clone(),
                },
                false,
                self.made_by(dev),
            ),
            ["lvm", "vgremove", "-f", vg] => undo(
                format!("the volume group {vg}"),
                run,
                Guard::VolumeGroup { name: vg.to_string() },
                false,
                self.made_by(vg),
            ),
            ["lvm", "pvremove", "-ff", "-y", dev] if self.member(dev).is_some() => undo(
                format!("the physical volume {dev}"),
                run,
                Guard::LvmPv {
                    device: dev.to_string(),
                    uuid: self.names.pv_uuid(self.index, self.member(dev).unwrap_or_default()),
                },
                false,
                self.made_by(dev),
            ),
            // A command no guard is written for is never run by the teardown.
            _ => undo(
                argv.join(" "),
                run,
                Guard::Never {
                    why: format!("no guard proves `{}` iolab's own", argv.join(" ")),
                },
                false,
                None,
            ),
        }
    }
}

/// What runs on one configuration: `exp` (jobs, a suite or an app suite)
/// aimed at the configuration's directory. A pool iolab built is its own
/// to export and import, so on ZFS the caches are emptied that way
/// (`--allow-export` is implied); every other setting is the user's.
pub fn on_dir(exp: &super::Experiment, dir: &Path) -> Result<super::Experiment> {
    use super::Experiment;
    match exp {
        Experiment::Jobs(r) => {
            let mut r = r.clone();
            r.target.path = dir.to_path_buf();
            r.target.allow_export = true;
            r.target.allow_destroy = false;
            Ok(Experiment::Jobs(r))
        }
        Experiment::App(r) => {
            let mut r = r.clone();
            r.dir = dir.to_path_buf();
            r.allow_export = true;
            Ok(Experiment::App(r))
        }
        _ => Err(crate::base::error::usage(
            "layouts measures jobs, a suite or an application suite on each configuration",
        )),
    }
}

/// Build, measure and tear down each configuration in order. `journals`:
/// the directory of the journals, `run`: this run's id (in each journal's
/// name); `measure(config, dir)` runs what is measured on one; `force`:
/// a signature does not stop a build (`--force`). Stops after
/// the configuration a signal interrupted (its teardown done): one outcome
/// per configuration, those not built then `Interrupted`.
///
/// Every device is identified first ([`System::identity`]), as it was
/// checked; then right before each build step that writes a device
/// (`mkfs`, `zpool create`, `mdadm --create`, `pvcreate`, `wipefs`) that
/// device must still be the one identified, at its path, and pass the
/// safety check again ([`System::check_device`]). One that does not stops
/// its configuration with the reason, and no later configuration is built
/// on it; the others go on.
///
/// The test knob's points (configuration `INDEX` from 1): `layouts-build-INDEX-N`
/// (see [`build`]), `layouts-measure-INDEX` (built, before the
/// measurement), `layouts-teardown-INDEX-N` (before the Nth step of the
/// unwinding runs, see [`Journal::unwind`]).
pub fn run_each<M>(
    configs: &[Buildable],
    journals: &Path,
    run: &str,
    sys: &dyn System,
    stop: &Stop,
    force: bool,
    measure: &mut dyn FnMut(&Buildable) -> Result<M>,
) -> Result<Vec<ConfigOutcome<M>>> {
    let mut recorded: Vec<Recorded> = Vec::new();
    // Devices that are no longer the ones checked: (path, why).
    let mut lost: Vec<(String, String)> = Vec::new();
    for d in configs.iter().flat_map(|c| &c.devices) {
        if recorded.iter().any(|r| r.path == *d) || lost.iter().any(|(p, _)| p == d) {
            continue;
        }
        match sys.identity(d) {
            Some(identity) => recorded.push(Recorded { path: d.clone(), identity }),
            None => lost.push((
                d.clone(),
                format!("{d} is not a block device sysfs knows: its identity cannot be told"),
            )),
        }
    }
    let mut out = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        // After a signal nothing more is built; the configurations left are
        // reported as interrupted, never dropped (a signal during the last
        // teardown would otherwise leave a run that looks complete).
        if let Err(e) = stop.check() {
            out.push(ConfigOutcome {
                name: c.name.clone(),
                measured: None,
                failed: Some(e),
                teardown: Vec::new(),
            });
            continue;
        }
        if let Some((d, why)) = lost.iter().find(|(p, _)| c.devices.contains(p)) {
            out.push(ConfigOutcome {
                name: c.name.clone(),
                measured: None,
                failed: Some(failed(format!("{}: not built on {d}: {why}", c.name))),
                teardown: Vec::new(),
            });
            continue;
        }
        let index = i + 1;
        let mut journal = Journal::create(journals, &journal_name(run, &c.name))?;
        let mine: Vec<Recorded> = recorded.iter().filter(|r| c.devices.contains(&r.path)).cloned().collect();
        let built = build(c, index, &mut journal, &mine, sys, stop, force);
        let (measured, failed) = match built {
            Ok(()) => {
                pause_at(&format!("layouts-measure-{index}"));
                match measure(c) {
                    Ok(m) => (Some(m), None),
                    Err(e) => (None, Some(e)),
                }
            }
            Err(Halt::Changed { device, why, error }) => {
                lost.push((device, why));
                (None, Some(error))
            }
            Err(Halt::Error(e)) => (None, Some(e)),
        };
        // A signal from here on changes nothing: the teardown runs whole.
        let teardown = journal.unwind(sys, &format!("layouts-teardown-{index}"));
        out.push(ConfigOutcome {
            name: c.name.clone(),
            measured,
            failed,
            teardown,
        });
    }
    Ok(out)
}

/// Why a build stopped.
enum Halt {
    /// A device is not the one checked any more, or no longer passes the
    /// safety check: no later configuration is built on it.
    Changed {
        device: String,
        why: String,
        error: Error,
    },
    Error(Error),
}

impl From<Error> for Halt {
    fn from(e: Error) -> Halt {
        Halt::Error(e)
    }
}

/// The journal's file name (without `.json`) of configuration `name` of
/// run `run`, its name made a file name as the mount directory's is
/// ([`crate::plan::layouts::file_slug`]).
fn journal_name(run: &str, name: &str) -> String {
    format!("{run}-{}", crate::plan::layouts::file_slug(name))
}

/// Whether a build step writes the devices it names: `mkfs`, `zpool
/// create`, `mdadm --create`, `pvcreate`, `wipefs`.
fn writes_devices(step: &Action) -> bool {
    let Action::Run { argv } = step else {
        return matches!(step, Action::Wipe { .. });
    };
    let w: Vec<&str> = argv.iter().map(String::as_str).collect();
    match w.as_slice() {
        [first, ..] if first.starts_with("mkfs") => true,
        ["zpool", "create", ..] | ["mdadm", "--create", ..] | ["lvm", "pvcreate", ..] | ["pvcreate", ..] | ["wipefs", ..] => true,
        _ => false,
    }
}

/// Whether `label` (a signature's, read with `blkid -p`) is one the run
/// writes: its filesystems' `iolab-XXXXXX`, or its pool's or array's name
/// (an md member's as `HOST:NAME`), as the configuration's guards name them.
fn own_label(c: &Buildable, label: &str) -> bool {
    use crate::targets::journal::Guard;
    c.teardown.iter().any(|u| match &u.guard {
        Guard::Label { label: own, .. } | Guard::MdMember { name: own, .. } => {
            label == own || label.strip_suffix(own.as_str()).is_some_and(|h| h.ends_with(':'))
        }
        _ => false,
    })
}

/// Write down the configuration's devices and its teardown (last step
/// first: the journal unwinds newest first), then run its build steps
/// (configuration `index`, from 1), each written down as started before it
/// runs and as done after. Right before a step that writes devices, each
/// device it names is checked again: still the one `recorded` at its path,
/// and passing the safety check. A signal stops the build before its next
/// step; the test knob's point `layouts-build-INDEX-N` holds right before
/// step N (from 1) runs (after the check), so a signal sent there arrives
/// while the step runs.
fn build(
    c: &Buildable,
    index: usize,
    journal: &mut Journal,
    recorded: &[Recorded],
    sys: &dyn System,
    stop: &Stop,
    force: bool,
) -> std::result::Result<(), Halt> {
    use crate::device::identity::Resolved;
    journal.record_devices(recorded.to_vec())?;
    for u in c.teardown.iter().rev() {
        journal.push(u.clone())?;
    }
    for (n, step) in c.build.iter().enumerate() {
        stop.check()?;
        if writes_devices(step) {
            let named = |r: &&Recorded| match step {
                Action::Run { argv } => argv.contains(&r.path),
                Action::Wipe { device, .. } => *device == r.path,
                Action::RemoveDir { .. } => false,
            };
            for r in recorded.iter().filter(named) {
                let why = match sys.resolve(&r.identity, &r.path) {
                    // A signature of the run's own (left by a teardown step that
                    // could not wipe it) does not stop it; anything else does.
                    Resolved::Same => match sys.check_device(&r.path, force) {
                        Err(_) if !force && sys.label(&r.path).is_some_and(|l| own_label(c, &l)) => sys.check_device(&r.path, true).err(),
                        checked => checked.err(),
                    },
                    Resolved::Moved(to) => Some(format!(
                        "{} is another device now: the one checked ({}) is {to}",
                        r.path,
                        r.identity.describe()
                    )),
                    Resolved::Gone(why) => Some(format!("{} is not the device checked: {why}", r.path)),
                };
                if let Some(why) = why {
                    let error = failed(format!("{}: stopped before `{}`: {why}", c.name, step.line()));
                    return Err(Halt::Changed {
                        device: r.path.clone(),
                        why,
                        error,
                    });
                }
            }
        }
        pause_at(&format!("layouts-build-{index}-{}", n + 1));
        journal.started(n + 1)?;
        sys.act(step).map_err(|why| {
            // The tool's own message, its first line (a usage text may follow).
            let why = why.lines().next().unwrap_or_default();
            failed(format!("{}: cannot build: `{}` failed: {why}", c.name, step.line()))
        })?;
        journal.done(n + 1)?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "layouts_checks_tests.rs"]
mod checks_tests;

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::device::identity::{Identity, Resolved};
    use crate::targets::journal::{Guard, Probe};
    use std::cell::RefCell;

    /// Commands succeed unless their first word is `fail`; pools exist once
    /// created. `devices`: each path with what sits there now; `refused`:
    /// devices the safety check refuses, with why.
    #[derive(Default)]
    pub(super) struct Fake {
        pub ran: RefCell<Vec<String>>,
        pub pools: RefCell<Vec<String>>,
        pub devices: RefCell<Vec<(String, Identity)>>,
        pub refused: RefCell<Vec<(String, String)>>,
        pub checked: RefCell<Vec<String>>,
        /// Each device's label, and the refusals a signature makes (forceable).
        pub labels: RefCell<Vec<(String, String)>>,
    }

    impl System for Fake {
        fn pool_imported(&self, name: &str) -> bool {
            self.pools.borrow().iter().any(|p| p == name)
        }
        fn mount_source(&self, _at: &str) -> Option<String> {
            None
        }
        fn probe(&self, device: &str) -> Option<Probe> {
            let label = self.labels.borrow().iter().find(|(d, _)| d == device).map(|(_, l)| l.clone())?;
            Some(Probe {
                label: Some(label),
                ..Probe::default()
            })
        }
        fn volume_group(&self, _: &str) -> bool {
            false
        }
        fn node_exists(&self, _: &str) -> bool {
            false
        }
        fn identity(&self, path: &str) -> Option<Identity> {
            self.devices.borrow().iter().find(|(p, _)| p == path).map(|(_, i)| i.clone())
        }
        fn resolve(&self, recorded: &Identity, path: &str) -> Resolved {
            if self.identity(path).is_some_and(|i| recorded.matches(&i)) {
                return Resolved::Same;
            }
            match self.devices.borrow().iter().find(|(_, i)| recorded.matches(i)) {
                Some((p, _)) => Resolved::Moved(p.clone()),
                None => Resolved::Gone(format!("{path} is now another device")),
            }
        }
        fn check_device(&self, device: &str, force: bool) -> std::result::Result<(), String> {
            self.checked.borrow_mut().push(device.to_string());
            if let Some((_, why)) = self.refused.borrow().iter().find(|(d, _)| d == device) {
                return Err(why.clone());
            }
            match self.labels.borrow().iter().find(|(d, _)| d == device) {
                Some((_, l)) if !force => Err(format!(
                    "{device} carries a filesystem labelled {l} (pass --force if it is really unused)"
                )),
                _ => Ok(()),
            }
        }
        fn act(&self, action: &Action) -> std::result::Result<(), String> {
            let line = action.line();
            self.ran.borrow_mut().push(line.clone());
            let w: Vec<&str> = line.split(' ').collect();
            match (w[0], w.get(1).copied()) {
                ("fail", _) => Err("no such device".into()),
                ("zpool", Some("create")) => {
                    self.pools.borrow_mut().push(w.last().unwrap().to_string());
                    Ok(())
                }
                ("zpool", Some("destroy")) => {
                    self.pools.borrow_mut().retain(|p| p != w.last().unwrap());
                    Ok(())
                }
                _ => Ok(()),
            }
        }
    }

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    fn pool(name: &str, create: &str) -> Buildable {
        Buildable {
            name: name.into(),
            devices: Vec::new(),
            build: vec![Action::run(words("mkdir /run/iolab-x")), Action::run(words(create))],
            teardown: vec![
                Undo {
                    what: format!("pool {name}"),
                    action: Action::run(words(&format!("zpool destroy {name}"))),
                    guard: Guard::Pool { name: name.into() },
                    best_effort: false,
                    after: None,
                },
                Undo {
                    what: "dir".into(),
                    action: Action::RemoveDir {
                        path: PathBuf::from("/run/iolab-x"),
                    },
                    guard: Guard::Always,
                    best_effort: false,
                    after: None,
                },
            ],
            dir: PathBuf::from("/run/iolab-x"),
        }
    }

    #[test]
    fn each_is_built_measured_and_torn_down_and_a_failed_build_does_not_stop_the_others() {
        let d = tempfile::tempdir().unwrap();
        let sys = Fake::default();
        let configs = [
            pool("p1", "zpool create p1"),
            pool("p2", "fail zpool create p2"),
            pool("p3", "zpool create p3"),
        ];
        let stop = Stop::default();
        let measured = RefCell::new(Vec::new());
        let mut measure = |c: &Buildable| -> Result<String> {
            // The configuration is built when it is measured.
            assert!(sys.pool_imported(&c.name), "{} measured unbuilt", c.name);
            measured.borrow_mut().push(c.name.clone());
            Ok(format!("{} measured", c.name))
        };
        let out = run_each(&configs, d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
        assert_eq!(*measured.borrow(), ["p1", "p3"]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].measured.as_deref(), Some("p1 measured"));
        let why = out[1].failed.as_ref().unwrap().to_string();
        assert!(
            why.contains("p2: cannot build: `fail zpool create p2` failed: no such device"),
            "{why}"
        );
        assert!(out.iter().all(|o| o.torn_down()));
        // p2's pool never existed: its destroy is skipped, its directory removed.
        assert!(matches!(out[1].teardown[0].1, UndoOutcome::Skipped(_)), "{:?}", out[1].teardown);
        assert_eq!(out[1].teardown[1].1, UndoOutcome::Done);
        assert!(sys.pools.borrow().is_empty());
        let ran = sys.ran.borrow();
        assert_eq!(
            ran[..4],
            ["mkdir /run/iolab-x", "zpool create p1", "zpool destroy p1", "rmdir /run/iolab-x"]
        );
        // No journal is left.
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_plans_configuration_becomes_guarded_steps() {
        use crate::plan::layouts::{Config, Fs, Layout, RunNames, ZfsVdev};
        use crate::targets::journal::Guard;
        let names = RunNames::under_run("abc123");
        let config = |name: &str, layout| Config {
            name: name.into(),
            layout,
            devices: vec![PathBuf::from("/dev/loop3"), PathBuf::from("/dev/loop4")],
            properties: Vec::new(),
            tags: Vec::new(),
        };
        let label = names.label();
        assert_eq!(label.len(), 12, "XFS takes 12 characters");
        // ext4: iolab's label on the filesystem; the wipe checks it.
        let b = buildable(&config("ext4", Layout::Single(Fs::Ext4)), 1, &names);
        let mkfs = b.build.iter().find(|a| a.line().starts_with("mkfs.ext4")).unwrap();
        assert!(mkfs.line().starts_with(&format!("mkfs.ext4 -L {label} ")), "{}", mkfs.line());
        let guards: Vec<&Guard> = b.teardown.iter().map(|u| &u.guard).collect();
        assert!(
            matches!(guards[0], Guard::MountPoint { at } if at.ends_with("01-ext4")),
            "{guards:?}"
        );
        assert!(
            b.teardown.iter().any(|u| u.guard
                == Guard::Label {
                    device: "/dev/loop3".into(),
                    label: label.clone()
                }),
            "{:?}",
            b.teardown
        );
        // A mirror: destroyed while imported, its members wiped with their ZFS labels
        // zeroed where they carry the pool's name; the run's directories last.
        let b = buildable(&config("zfs-mirror2", Layout::Zfs(ZfsVdev::Mirror)), 2, &names);
        let pool = names.object(2);
        assert_eq!(b.teardown[0].guard, Guard::Pool { name: pool.clone() });
        for dev in ["/dev/loop3", "/dev/loop4"] {
            let w = b
                .teardown
                .iter()
                .find(|u| matches!(&u.action, Action::Wipe { device, .. } if device == dev))
                .unwrap();
            assert_eq!(
                w.action,
                Action::Wipe {
                    device: dev.into(),
                    zfs_labels: true
                }
            );
            assert_eq!(
                w.guard,
                Guard::Label {
                    device: dev.into(),
                    label: pool.clone()
                }
            );
        }
        let last: Vec<&Action> = b.teardown.iter().rev().take(2).map(|u| &u.action).collect();
        assert_eq!(
            last,
            [
                &Action::RemoveDir { path: names.root.clone() },
                &Action::RemoveDir {
                    path: names.mount_dir(2, &config("zfs-mirror2", Layout::Zfs(ZfsVdev::Mirror)))
                }
            ]
        );
        assert!(b.teardown.last().unwrap().best_effort);
    }

    #[test]
    fn the_measurement_is_aimed_at_the_configurations_directory() {
        use crate::experiment::{Experiment, jobs::JobsRequest};
        use crate::targets::Choice;
        let jobs = Experiment::Jobs(JobsRequest {
            suite: Some("default".into()),
            target: Choice {
                path: PathBuf::from("/dev/sdb"),
                size: Some(1 << 30),
                buffered: false,
                allow_destroy: true,
                force: true,
                continue_on_error: false,
                allow_export: false,
            },
            jobs: Vec::new(),
            repeat: crate::plan::Repeat::fixed(1, std::time::Duration::ZERO, std::time::Duration::ZERO),
            via_fio: false,
            region: Default::default(),
        });
        let Experiment::Jobs(r) = on_dir(&jobs, Path::new("/run/iolab-layouts-x/zfs-mirror3")).unwrap() else {
            panic!("not jobs")
        };
        assert_eq!(r.target.path, Path::new("/run/iolab-layouts-x/zfs-mirror3"));
        assert!(r.target.allow_export && !r.target.allow_destroy);
        assert_eq!(r.target.size, Some(1 << 30), "the user's settings are kept");
    }

    #[test]
    fn a_swept_configurations_journal_is_a_file_of_the_journal_directory() {
        assert_eq!(journal_name("r1", "zfs/recordsize=8K"), "r1-zfs_recordsize_8K");
        assert_eq!(journal_name("r1", "ext4@sdb"), "r1-ext4_sdb");
        assert_eq!(journal_name("r1", "zfs-mirror3"), "r1-zfs-mirror3");
        let d = tempfile::tempdir().unwrap();
        let sys = Fake::default();
        let mut c = pool("p1", "zpool create p1");
        c.name = "zfs/recordsize=8K".into();
        let stop = Stop::default();
        let mut measure = |_: &Buildable| -> Result<()> {
            // While the configuration is measured its journal is there, in the directory.
            let names: Vec<String> = std::fs::read_dir(d.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["r1-zfs_recordsize_8K.json"]);
            Ok(())
        };
        let out = run_each(&[c], d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
        assert!(out[0].failed.is_none() && out[0].torn_down());
    }

    #[test]
    fn a_failed_measurement_is_reported_and_torn_down_and_a_signal_stops_after_the_teardown() {
        let d = tempfile::tempdir().unwrap();
        let sys = Fake::default();
        let configs = [pool("p1", "zpool create p1"), pool("p2", "zpool create p2")];
        let stop = Stop::default();
        let mut measure = |c: &Buildable| -> Result<()> {
            stop.request();
            Err(crate::base::error::failed(format!("{}: the target went away", c.name)))
        };
        let out = run_each(&configs, d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
        assert_eq!(out.len(), 2, "p2 is reported, not dropped");
        assert!(out[0].failed.as_ref().unwrap().to_string().contains("went away"));
        assert!(out[0].torn_down());
        assert!(matches!(out[1].failed, Some(Error::Interrupted(_))), "{:?}", out[1].failed);
        assert!(out[1].measured.is_none() && out[1].teardown.is_empty());
        assert!(
            !sys.ran.borrow().iter().any(|l| l.contains("p2")),
            "p2 was built: {:?}",
            sys.ran.borrow()
        );
        assert!(sys.pools.borrow().is_empty());
    }

    #[test]
    fn a_signal_after_a_measurement_that_finished_marks_the_configurations_not_built_as_interrupted() {
        // The signal came during p1's teardown (or as its measurement ended): p1 is whole,
        // and p2, never built, must not be dropped in silence (the run would look complete).
        let d = tempfile::tempdir().unwrap();
        let sys = Fake::default();
        let configs = [
            pool("p1", "zpool create p1"),
            pool("p2", "zpool create p2"),
            pool("p3", "zpool create p3"),
        ];
        let stop = Stop::default();
        let mut measure = |_: &Buildable| -> Result<u32> {
            stop.request();
            Ok(7)
        };
        let out = run_each(&configs, d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
        let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["p1", "p2", "p3"]);
        assert_eq!(out[0].measured, Some(7));
        assert!(out[0].failed.is_none() && out[0].torn_down());
        for o in &out[1..] {
            assert!(matches!(o.failed, Some(Error::Interrupted(_))), "{}: {:?}", o.name, o.failed);
            assert!(o.measured.is_none() && o.teardown.is_empty());
        }
        assert_eq!(
            *sys.ran.borrow(),
            ["mkdir /run/iolab-x", "zpool create p1", "zpool destroy p1", "rmdir /run/iolab-x"]
        );
    }
}
