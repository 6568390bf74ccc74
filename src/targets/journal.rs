//! What a run that builds things on the user's devices (`iolab layouts`:
//! pools, arrays, filesystems, mounts) built, written down BEFORE each
//! step, so that it is always torn down: by the run itself on success, on
//! an error and on SIGINT/SIGTERM ([`Journal::unwind`]), and after a SIGKILL
//! or a power cut by the next run ([`sweep`]). Never anything else: every
//! step carries a [`Guard`], what must still hold for it to be iolab's to
//! undo (a pool of the run's own name, a mount from the run's own source,
//! a device that still carries the label the run wrote), checked right
//! before the step runs. A step whose guard fails is skipped and named.
//!
//! The journal is a JSON file `DIR/RUN.json` holding its owner
//! ([`super::owner`]) and the undo steps, rewritten whole (a temporary file
//! renamed over it, both synced) each time a step is added or done, so a
//! kill at any moment leaves either the old or the new list. Names iolab
//! gives what it builds carry the run's id, so the guards can be written
//! before the thing exists.

use crate::base::error::{Result, failed};
use crate::device::identity::{Identity, Resolved};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What must still hold for an undo step to be iolab's to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Guard {
    /// Nothing to check (a directory of the run's own, by its own name).
    Always,
    /// A ZFS pool of this name (unique to the run) is imported.
    Pool { name: String },
    /// `at` is mounted from `source`.
    Mount { at: String, source: String },
    /// `at` (a directory of the run's own) is a mount point.
    MountPoint { at: String },
    /// The device carries a signature whose label is `label` (the run's
    /// own: a filesystem's LABEL, a pool's name in its ZFS label). A device
    /// that carries another label, or none, is not touched.
    Label { device: String, label: String },
    /// The device is a member of the md array the run named `name` (the
    /// name in its superblock, `HOST:NAME`, as `blkid -p` reads it).
    MdMember { device: String, name: String },
    /// The device is an LVM physical volume with the UUID the run gave it
    /// (`pvcreate --uuid`).
    LvmPv { device: String, uuid: String },
    /// A volume group of this name (unique to the run) exists.
    VolumeGroup { name: String },
    /// The block device `path`, of a name unique to the run
    /// (`/dev/md/iolab-ID-N`), exists.
    Node { path: String },
    /// No pool of this name is imported: a pool iolab exported, to import again.
    PoolExported { name: String },
    /// No guard is known for the step: it is never run (why).
    Never { why: String },
}

/// What `blkid -p` finds on a device: the signature's type, label and UUID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    pub kind: Option<String>,
    pub label: Option<String>,
    pub uuid: Option<String>,
}

/// A device the run built on, as it was when the run checked it: the
/// path it had then and what it is ([`Identity`]). Before a step on that
/// path runs, the identity is found again: at the same path, at another
/// (the step then runs there), or nowhere (the step is left alone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub path: String,
    pub identity: Identity,
}

/// What an undo step does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case")]
pub enum Action {
    /// A command.
    Run { argv: Vec<String> },
    /// Remove an empty directory the run made (gone already: done).
    RemoveDir { path: PathBuf },
    /// Erase the signatures on a device the run wrote on (`wipefs -a`),
    /// and with `zfs_labels` also zeros over the two ZFS labels at each end
    /// (`wipefs` erases only the magic it finds, which can leave labels a
    /// `zpool import` still reads).
    Wipe { device: String, zfs_labels: bool },
}

impl Action {
    /// `argv` as a command.
    pub fn run<S: AsRef<str>>(argv: impl IntoIterator<Item = S>) -> Action {
        Action::Run {
            argv: argv.into_iter().map(|a| a.as_ref().to_string()).collect(),
        }
    }

    /// In words, as a shell line where it is one.
    pub fn line(&self) -> String {
        match self {
            Action::Run { argv } => argv.join(" "),
            Action::RemoveDir { path } => format!("rmdir {}", path.display()),
            Action::Wipe { device, zfs_labels: false } => format!("wipefs -a {device}"),
            Action::Wipe { device, zfs_labels: true } => {
                format!("wipefs -a {device}, then zeros over its ZFS labels at both ends")
            }
        }
    }
}

/// One step that undoes something the run built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    /// What it undoes, for messages (`pool iolab-3fa2c1-mirror3`).
    pub what: String,
    pub action: Action,
    pub guard: Guard,
    /// A failure does not stop the unwinding (`btrfs device scan --forget`
    /// of a device the kernel never registered).
    #[serde(default)]
    pub best_effort: bool,
    /// The build step (from 1) that makes what it undoes: a build that
    /// stopped before that step built nothing for it to undo. `None`: it
    /// applies whatever the build did (and in journals of iolab 0.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
}

impl Undo {
    /// Whether the step names `device` (in its command or its guard).
    fn mentions(&self, device: &str) -> bool {
        let in_action = match &self.action {
            Action::Run { argv } => argv.iter().any(|a| a == device),
            Action::Wipe { device: d, .. } => d == device,
            Action::RemoveDir { .. } => false,
        };
        in_action || self.guard.device() == Some(device)
    }

    /// The step with each device path `from` replaced by its `to`, all at once.
    fn retarget(&self, moved: &[(String, String)]) -> Undo {
        let map = |s: &String| moved.iter().find(|(f, _)| f == s).map_or_else(|| s.clone(), |(_, t)| t.clone());
        let mut u = self.clone();
        match &mut u.action {
            Action::Run { argv } => *argv = argv.iter().map(map).collect(),
            Action::Wipe { device, .. } => *device = map(device),
            Action::RemoveDir { .. } => {}
        }
        match &mut u.guard {
            Guard::Label { device, .. } | Guard::MdMember { device, .. } | Guard::LvmPv { device, .. } => *device = map(device),
            _ => {}
        }
        let notes: Vec<String> = moved
            .iter()
            .filter(|(f, _)| self.mentions(f))
            .map(|(f, t)| format!("{f}, now {t}"))
            .collect();
        if !notes.is_empty() {
            u.what = format!("{} ({})", self.what, notes.join(", "));
        }
        u
    }
}

/// What the system says to a guard, and runs the commands; the live one
/// is [`Live`].
pub trait System {
    /// Whether a pool of this name is imported.
    fn pool_imported(&self, name: &str) -> bool;
    /// The source `at` is mounted from, if it is a mount point.
    fn mount_source(&self, at: &str) -> Option<String>;
    /// The signature on `device` (`None`: none, or unreadable).
    fn probe(&self, device: &str) -> Option<Probe>;
    /// The label of the signature on `device` (`None`: none, or unreadable).
    fn label(&self, device: &str) -> Option<String> {
        self.probe(device).and_then(|p| p.label)
    }
    /// Whether a volume group of this name exists.
    fn volume_group(&self, name: &str) -> bool;
    /// Whether the block device `path` exists.
    fn node_exists(&self, path: &str) -> bool;
    /// What the block device at `path` is (`None`: not a block device).
    fn identity(&self, path: &str) -> Option<Identity>;
    /// Where the device recorded as `recorded` at `path` is today.
    fn resolve(&self, recorded: &Identity, path: &str) -> Resolved;
    /// `Err` says why `device` may not be written now (mounted, held, a
    /// member of a live pool or array, or a signature without `force`):
    /// [`crate::targets::safety`]'s check.
    fn check_device(&self, device: &str, force: bool) -> std::result::Result<(), String>;
    /// Do an action: `Err` holds why it failed (a command's message).
    fn act(&self, action: &Action) -> std::result::Result<(), String>;
}

impl Guard {
    /// `Err` says why the step is not iolab's to run any more.
    fn holds(&self, sys: &dyn System) -> std::result::Result<(), String> {
        match self {
            Guard::Always => Ok(()),
            Guard::Pool { name } => match sys.pool_imported(name) {
                true => Ok(()),
                false => Err(format!("no pool {name} is imported")),
            },
            Guard::Mount { at, source } => match sys.mount_source(at) {
                Some(s) if s == *source => Ok(()),
                Some(s) => Err(format!("{at} is mounted from {s}, not {source}")),
                None => Err(format!("{at} is not mounted")),
            },
            Guard::MountPoint { at } => match sys.mount_source(at) {
                Some(_) => Ok(()),
                None => Err(format!("{at} is not mounted")),
            },
            // An md member's label is the array's name as `HOST:NAME`.
            Guard::Label { device, label } => match sys.label(device) {
                Some(l) if l == *label || l.strip_suffix(label.as_str()).is_some_and(|h| h.ends_with(':')) => Ok(()),
                Some(l) => Err(format!("{device} carries the label {l}, not {label}")),
                None => Err(format!("{device} carries no label")),
            },
            Guard::MdMember { device, name } => match sys.probe(device) {
                Some(p) if p.kind.as_deref() == Some("linux_raid_member") => match p.label {
                    Some(l) if l == *name || l.strip_suffix(name.as_str()).is_some_and(|h| h.ends_with(':')) => Ok(()),
                    Some(l) => Err(format!("{device} is a member of the md array {l}, not {name}")),
                    None => Err(format!("{device} is a member of an unnamed md array, not {name}")),
                },
                Some(p) => Err(format!(
                    "{device} carries {}, not a member of the md array {name}",
                    p.kind.as_deref().unwrap_or("no signature")
                )),
                None => Err(format!("{device} carries no md superblock")),
            },
            Guard::LvmPv { device, uuid } => match sys.probe(device) {
                Some(p) if p.kind.as_deref() == Some("LVM2_member") => match p.uuid {
                    Some(u) if u == *uuid => Ok(()),
                    Some(u) => Err(format!("{device} is the LVM physical volume {u}, not {uuid}")),
                    None => Err(format!("{device} is an LVM physical volume of no UUID, not {uuid}")),
                },
                Some(p) => Err(format!(
                    "{device} carries {}, not the LVM physical volume {uuid}",
                    p.kind.as_deref().unwrap_or("no signature")
                )),
                None => Err(format!("{device} carries no LVM label")),
            },
            Guard::VolumeGroup { name } => match sys.volume_group(name) {
                true => Ok(()),
                false => Err(format!("no volume group {name} exists")),
            },
            Guard::Node { path } => match sys.node_exists(path) {
                true => Ok(()),
                false => Err(format!("{path} does not exist")),
            },
            Guard::PoolExported { name } => match sys.pool_imported(name) {
                false => Ok(()),
                true => Err(format!("a pool {name} is imported already")),
            },
            Guard::Never { why } => Err(why.clone()),
        }
    }

    /// The device the guard reads, if it reads one.
    fn device(&self) -> Option<&str> {
        match self {
            Guard::Label { device, .. } | Guard::MdMember { device, .. } | Guard::LvmPv { device, .. } => Some(device),
            _ => None,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Record {
    owner: String,
    undo: Vec<Undo>,
    /// The devices the run builds on, as they were checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    devices: Vec<Recorded>,
    /// How far the build went: the steps started (written before each
    /// runs) and those done. `None`: no build step has started (or a
    /// journal of iolab 0.2, whose steps all apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    started: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    done: Option<usize>,
}

impl Record {
    fn new(owner: String) -> Record {
        Record {
            owner,
            undo: Vec::new(),
            devices: Vec::new(),
            started: None,
            done: None,
        }
    }
}

/// How one undo step went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Its guard no longer held, or what it undoes was never built:
    /// nothing was run (why).
    Skipped(String),
    /// A device it names is not the one the run built on (another disk
    /// took its name, a loop device was re-attached to another file), and
    /// the one it built on is not found: left alone (why).
    LeftAlone(String),
    /// It ran and failed (the command's message).
    Failed(String),
}

/// The journal of a run: undo steps, newest last.
pub struct Journal {
    path: PathBuf,
    record: Record,
}

impl Journal {
    /// A new journal `dir/run.json` owned by this process (`dir` is made if
    /// missing, for root only: mode 0700).
    pub fn create(dir: &Path, run: &str) -> Result<Journal> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|source| super::error::TargetError::JournalDir {
                dir: dir.to_path_buf(),
                source,
            })?;
        let j = Journal {
            path: dir.join(format!("{run}.json")),
            record: Record::new(super::owner::of_self()),
        };
        if j.path.exists() {
            return Err(failed(format!("the journal {} exists already", j.path.display())));
        }
        j.write()?;
        Ok(j)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The steps still to undo, oldest first.
    pub fn pending(&self) -> &[Undo] {
        &self.record.undo
    }

    /// Write down how to undo a step, before the step is taken.
    pub fn push(&mut self, undo: Undo) -> Result<()> {
        self.record.undo.push(undo);
        self.write()
    }

    /// Write down the devices the run builds on, with what each is.
    pub fn record_devices(&mut self, devices: Vec<Recorded>) -> Result<()> {
        self.record.devices = devices;
        self.write()
    }

    /// The devices written down, as they were checked.
    pub fn devices(&self) -> &[Recorded] {
        &self.record.devices
    }

    /// Build step `n` (from 1) is about to run: written before it does.
    pub fn started(&mut self, n: usize) -> Result<()> {
        self.record.started = Some(n);
        self.write()
    }

    /// Build step `n` (from 1) is done.
    pub fn done(&mut self, n: usize) -> Result<()> {
        self.record.done = Some(n);
        self.write()
    }

    /// Undo everything, newest first, each step only where its guard holds;
    /// what each came to. The journal's file is removed when no step failed,
    /// and kept otherwise, with the failed step and the older ones, for the
    /// next run. Nothing here looks at the stop flag: a signal during the
    /// unwinding does not cut it short. `point`: the test knob's name of its
    /// steps, `POINT-N` holding right before the Nth step (from 1, in the
    /// order they run) acts.
    pub fn unwind(mut self, sys: &dyn System, point: &str) -> Vec<(Undo, Outcome)> {
        let progress = Progress::of(&self.record);
        let (done, left) = unwind_steps(std::mem::take(&mut self.record.undo), &progress, sys, point);
        self.record.undo = left;
        if self.record.undo.is_empty() {
            let _ = std::fs::remove_file(&self.path);
        } else {
            let _ = self.write();
        }
        done
    }

    /// Remove the journal without undoing anything: what it guarded is
    /// over (an export refused, a pool imported again).
    pub fn discard(self) {
        let _ = std::fs::remove_file(&self.path);
    }

    fn write(&self) -> Result<()> {
        write_atomic(&self.path, &self.record)
    }
}

/// How often a refused undo step is tried, and the pause between tries:
/// zfs-fuse calls a pool busy for a moment after it is created or
/// imported, and an unmount may meet a process just leaving the directory.
const UNDO_TRIES: u32 = 3;
const UNDO_PAUSE: std::time::Duration = if cfg!(test) {
    std::time::Duration::from_millis(5)
} else {
    std::time::Duration::from_secs(2)
};

/// What the unwinding needs of a record besides its steps: the devices
/// as they were, and how far the build went.
struct Progress {
    devices: Vec<Recorded>,
    started: Option<usize>,
    done: Option<usize>,
}

impl Progress {
    fn of(r: &Record) -> Progress {
        Progress {
            devices: r.devices.clone(),
            started: r.started,
            done: r.done,
        }
    }
}

/// Run `steps` newest first (a stack: what was built on something is
/// undone before it); the outcomes, and the steps left (oldest first). A
/// step that still fails after [`UNDO_TRIES`] stops the unwinding: it and
/// every older step are left for the next run, since they may depend on
/// it (the members of a pool that could not be destroyed are not wiped).
///
/// Before a step runs: what it undoes must have been built (a step made
/// by a build step that never started is skipped; one made by the step
/// the build stopped in is tried, its failure not kept), each recorded
/// device it names must be found again ([`System::resolve`]: at its path,
/// or at another, where the step then runs; else it is left alone), and
/// its guard must hold there.
fn unwind_steps(steps: Vec<Undo>, progress: &Progress, sys: &dyn System, point: &str) -> (Vec<(Undo, Outcome)>, Vec<Undo>) {
    let mut out = Vec::new();
    let mut steps = steps;
    while let Some(recorded) = steps.pop() {
        let stage = match (recorded.after, progress.started) {
            (Some(k), Some(started)) if k > started => Err(format!("never built: the build stopped before step {k}")),
            (Some(k), None) => Err(format!("never built: the build stopped before step {k}")),
            // Made by the step the build stopped in: there may be nothing to undo.
            (Some(k), Some(started)) => Ok(k == started && progress.done.is_none_or(|d| d < k)),
            (None, _) => Ok(false),
        };
        let in_doubt = match stage {
            Err(why) => {
                out.push((recorded, Outcome::Skipped(why)));
                continue;
            }
            Ok(d) => d,
        };
        let mut moved: Vec<(String, String)> = Vec::new();
        let mut gone: Option<String> = None;
        for r in progress.devices.iter().filter(|r| recorded.mentions(&r.path)) {
            match sys.resolve(&r.identity, &r.path) {
                Resolved::Same => {}
                Resolved::Moved(to) => moved.push((r.path.clone(), to)),
                Resolved::Gone(why) => {
                    gone = Some(why);
                    break;
                }
            }
        }
        let u = recorded.retarget(&moved);
        let best_effort = u.best_effort || in_doubt;
        let outcome = match (gone, u.guard.holds(sys)) {
            (Some(why), _) => Outcome::LeftAlone(why),
            (None, Err(why)) => Outcome::Skipped(why),
            (None, Ok(())) => {
                crate::base::testknob::pause_at(&format!("{point}-{}", out.len() + 1));
                let mut result = sys.act(&u.action);
                for _ in 1..UNDO_TRIES {
                    if result.is_ok() || best_effort {
                        break;
                    }
                    std::thread::sleep(UNDO_PAUSE);
                    result = sys.act(&u.action);
                }
                match result {
                    Ok(()) => Outcome::Done,
                    // Tried once: the step that makes it may have made nothing.
                    Err(e) if in_doubt => Outcome::Skipped(format!(
                        "the build stopped in the step that makes it, which left nothing to undo ({e})"
                    )),
                    Err(e) => Outcome::Failed(e),
                }
            }
        };
        let failed = matches!(outcome, Outcome::Failed(_)) && !best_effort;
        out.push((u, outcome));
        if failed {
            // Kept as written: the next run finds its devices again itself.
            steps.push(recorded);
            return (out, steps);
        }
    }
    (out, Vec::new())
}

fn write_atomic(path: &Path, record: &Record) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(record).expect("a journal serialises");
    let fail = |e: std::io::Error| failed(format!("cannot write the journal {}: {e}", path.display()));
    {
        let mut f = std::fs::File::create(&tmp).map_err(fail)?;
        f.write_all(text.as_bytes()).map_err(fail)?;
        f.sync_all().map_err(fail)?;
    }
    std::fs::rename(&tmp, path).map_err(fail)?;
    if let Some(dir) = path.parent()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
    Ok(())
}

/// What [`sweep`] did with one journal a killed run left.
#[derive(Debug)]
pub struct Swept {
    pub journal: PathBuf,
    pub steps: Vec<(Undo, Outcome)>,
}

/// Unwind the journals in `dir` whose owner is gone (`now`: a pid's owner
/// value while it runs, [`super::owner::of`] live); journals of live runs,
/// and files that are not journals, are left alone. A journal that cannot
/// be read is left and reported as a failed step.
pub fn sweep(dir: &Path, now: &dyn Fn(u32) -> Option<String>, sys: &dyn System) -> Vec<Swept> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let record: Option<Record> = std::fs::read_to_string(&path).ok().and_then(|t| serde_json::from_str(&t).ok());
        let Some(record) = record else {
            let step = Undo {
                what: format!("the journal {}", path.display()),
                action: Action::run(Vec::<String>::new()),
                guard: Guard::Always,
                best_effort: false,
                after: None,
            };
            out.push(Swept {
                journal: path,
                steps: vec![(step, Outcome::Failed("it cannot be read as a journal; left as it is".into()))],
            });
            continue;
        };
        if super::owner::alive(&record.owner, now) {
            continue;
        }
        let progress = Progress::of(&record);
        let (steps, left) = unwind_steps(record.undo, &progress, sys, "layouts-sweep");
        if left.is_empty() {
            let _ = std::fs::remove_file(&path);
        } else {
            let _ = write_atomic(
                &path,
                &Record {
                    owner: record.owner,
                    undo: left,
                    devices: record.devices,
                    started: record.started,
                    done: record.done,
                },
            );
        }
        out.push(Swept { journal: path, steps });
    }
    out
}

/// The live [`System`]: `zpool list`, `/proc/self/mountinfo`, `blkid` and
/// the commands themselves.
pub struct Live;

impl System for Live {
    fn pool_imported(&self, name: &str) -> bool {
        std::process::Command::new("zpool")
            .args(["list", "-H", "-o", "name", name])
            .output()
            .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == name)
    }

    fn mount_source(&self, at: &str) -> Option<String> {
        crate::device::mounts(&crate::device::SysRoot::default())
            .into_iter()
            .find(|m| m.mount_point == at)
            .map(|m| m.source)
    }

    fn probe(&self, device: &str) -> Option<Probe> {
        // -p: probe the device itself, not blkid's cache of it.
        let o = std::process::Command::new("blkid")
            .args(["-p", "-o", "export", device])
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        if !o.status.success() {
            return None;
        }
        Some(parse_probe(&String::from_utf8_lossy(&o.stdout)))
    }

    fn volume_group(&self, name: &str) -> bool {
        std::process::Command::new("lvm")
            .args(["vgs", "--noheadings", "-o", "vg_name", name])
            .stdin(std::process::Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == name)
    }

    fn node_exists(&self, path: &str) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
    }

    fn identity(&self, path: &str) -> Option<Identity> {
        Identity::of(&crate::device::SysRoot::default(), path)
    }

    fn resolve(&self, recorded: &Identity, path: &str) -> Resolved {
        crate::device::identity::resolve(&crate::device::SysRoot::default(), recorded, path)
    }

    fn check_device(&self, device: &str, force: bool) -> std::result::Result<(), String> {
        super::safety::check_all(&crate::device::SysRoot::default(), &[PathBuf::from(device)], force)
            .map_err(|refused| refused.iter().map(|r| r.message()).collect::<Vec<_>>().join("; "))
    }

    fn act(&self, action: &Action) -> std::result::Result<(), String> {
        match action {
            Action::Run { argv } => run_command(argv),
            Action::RemoveDir { path } => match std::fs::remove_dir(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("rmdir {}: {e}", path.display())),
                _ => Ok(()),
            },
            Action::Wipe { device, zfs_labels } => {
                run_command(&["wipefs".into(), "-a".into(), device.clone()])?;
                if *zfs_labels {
                    zero_zfs_labels(Path::new(device)).map_err(|e| format!("zeroing the ZFS labels of {device}: {e}"))?;
                }
                Ok(())
            }
        }
    }
}

/// `blkid -o export`'s `KEY=VALUE` lines: TYPE, LABEL, UUID.
fn parse_probe(text: &str) -> Probe {
    let get = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Probe {
        kind: get("TYPE"),
        label: get("LABEL"),
        uuid: get("UUID"),
    }
}

fn run_command(argv: &[String]) -> std::result::Result<(), String> {
    let Some((cmd, args)) = argv.split_first() else {
        return Ok(());
    };
    let o = std::process::Command::new(cmd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cmd}: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        let msg = String::from_utf8_lossy(&o.stderr).trim().to_string();
        Err(if msg.is_empty() {
            format!("{cmd} failed ({})", o.status)
        } else {
            msg
        })
    }
}

/// Bytes of ZFS labels at each end of a device (two labels of 256 KiB),
/// and a label's size: the end labels sit below the size rounded down to it.
const ZFS_LABELS_AT_EACH_END: u64 = 512 << 10;
const ZFS_LABEL_SIZE: u64 = 256 << 10;

/// The byte ranges holding a ZFS device's four labels: the first 512 KiB,
/// and the 512 KiB below its size rounded down to 256 KiB, to the end.
pub fn zfs_label_ranges(size: u64) -> [(u64, u64); 2] {
    let end = size - size % ZFS_LABEL_SIZE;
    let tail = end.saturating_sub(ZFS_LABELS_AT_EACH_END);
    [(0, ZFS_LABELS_AT_EACH_END.min(size)), (tail, size - tail)]
}

/// Write zeros over [`zfs_label_ranges`], then flush them to the device.
fn zero_zfs_labels(device: &Path) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::FileExt;
    let mut f = std::fs::OpenOptions::new().write(true).open(device)?;
    let size = f.seek(SeekFrom::End(0))?;
    for (at, len) in zfs_label_ranges(size) {
        f.write_all_at(&vec![0u8; len as usize], at)?;
    }
    f.sync_all()
}

#[cfg(test)]
#[path = "journal_tests.rs"]
pub(crate) mod tests;
