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
}

/// What the system says to a guard, and runs the commands; the live one
/// is [`Live`].
pub trait System {
    /// Whether a pool of this name is imported.
    fn pool_imported(&self, name: &str) -> bool;
    /// The source `at` is mounted from, if it is a mount point.
    fn mount_source(&self, at: &str) -> Option<String>;
    /// The label of the signature on `device` (`None`: none, or unreadable).
    fn label(&self, device: &str) -> Option<String>;
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
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Record {
    owner: String,
    undo: Vec<Undo>,
}

/// How one undo step went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Its guard no longer held: nothing was run (why).
    Skipped(String),
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
            .map_err(|e| failed(format!("cannot make the journal directory {}: {e}", dir.display())))?;
        let j = Journal {
            path: dir.join(format!("{run}.json")),
            record: Record {
                owner: super::owner::of_self(),
                undo: Vec::new(),
            },
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

    /// Undo everything, newest first, each step only where its guard holds;
    /// what each came to. The journal's file is removed when no step failed,
    /// and kept otherwise, with the failed step and the older ones, for the
    /// next run. Nothing here looks at the stop flag: a signal during the
    /// unwinding does not cut it short. `point`: the test knob's name of its
    /// steps, `POINT-N` holding right before the Nth step (from 1, in the
    /// order they run) acts.
    pub fn unwind(mut self, sys: &dyn System, point: &str) -> Vec<(Undo, Outcome)> {
        let (done, left) = unwind_steps(std::mem::take(&mut self.record.undo), sys, point);
        self.record.undo = left;
        if self.record.undo.is_empty() {
            let _ = std::fs::remove_file(&self.path);
        } else {
            let _ = self.write();
        }
        done
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

/// Run `steps` newest first (a stack: what was built on something is
/// undone before it); the outcomes, and the steps left (oldest first). A
/// step that still fails after [`UNDO_TRIES`] stops the unwinding: it and
/// every older step are left for the next run, since they may depend on
/// it (the members of a pool that could not be destroyed are not wiped).
fn unwind_steps(steps: Vec<Undo>, sys: &dyn System, point: &str) -> (Vec<(Undo, Outcome)>, Vec<Undo>) {
    let mut out = Vec::new();
    let mut steps = steps;
    while let Some(u) = steps.pop() {
        let outcome = match u.guard.holds(sys) {
            Err(why) => Outcome::Skipped(why),
            Ok(()) => {
                crate::base::testknob::pause_at(&format!("{point}-{}", out.len() + 1));
                let mut result = sys.act(&u.action);
                for _ in 1..UNDO_TRIES {
                    if result.is_ok() || u.best_effort {
                        break;
                    }
                    std::thread::sleep(UNDO_PAUSE);
                    result = sys.act(&u.action);
                }
                match result {
                    Ok(()) => Outcome::Done,
                    Err(e) => Outcome::Failed(e),
                }
            }
        };
        let failed = matches!(outcome, Outcome::Failed(_)) && !u.best_effort;
        out.push((u.clone(), outcome));
        if failed {
            steps.push(u);
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
        let (steps, left) = unwind_steps(record.undo, sys, "layouts-sweep");
        if left.is_empty() {
            let _ = std::fs::remove_file(&path);
        } else {
            let _ = write_atomic(
                &path,
                &Record {
                    owner: record.owner,
                    undo: left,
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

    fn label(&self, device: &str) -> Option<String> {
        // -p: probe the device itself, not blkid's cache of it.
        let o = std::process::Command::new("blkid")
            .args(["-p", "-o", "value", "-s", "LABEL", device])
            .output()
            .ok()?;
        let l = String::from_utf8_lossy(&o.stdout).trim().to_string();
        (o.status.success() && !l.is_empty()).then_some(l)
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
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A system with pools, mounts and labels, recording what it runs; a
    /// command whose first word is `fail` fails.
    #[derive(Default)]
    struct Fake {
        pools: Vec<String>,
        mounts: Vec<(String, String)>,
        labels: Vec<(String, String)>,
        ran: RefCell<Vec<String>>,
    }

    impl System for Fake {
        fn pool_imported(&self, name: &str) -> bool {
            self.pools.iter().any(|p| p == name)
        }
        fn mount_source(&self, at: &str) -> Option<String> {
            self.mounts.iter().find(|(a, _)| a == at).map(|(_, s)| s.clone())
        }
        fn label(&self, device: &str) -> Option<String> {
            self.labels.iter().find(|(d, _)| d == device).map(|(_, l)| l.clone())
        }
        fn act(&self, action: &Action) -> std::result::Result<(), String> {
            let line = action.line();
            self.ran.borrow_mut().push(line.clone());
            if line.starts_with("fail") {
                Err("it failed".into())
            } else {
                Ok(())
            }
        }
    }

    fn undo(what: &str, argv: &str, guard: Guard) -> Undo {
        Undo {
            what: what.into(),
            action: Action::run(argv.split(' ')),
            guard,
            best_effort: false,
        }
    }

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn steps() -> Vec<Undo> {
        vec![
            undo(
                "wipe loop3",
                "wipefs -a /dev/loop3",
                Guard::Label {
                    device: "/dev/loop3".into(),
                    label: "iolab-abc".into(),
                },
            ),
            undo(
                "wipe loop4",
                "wipefs -a /dev/loop4",
                Guard::Label {
                    device: "/dev/loop4".into(),
                    label: "iolab-abc".into(),
                },
            ),
            undo(
                "pool iolab-abc",
                "zpool destroy iolab-abc",
                Guard::Pool { name: "iolab-abc".into() },
            ),
            undo(
                "mount /run/x",
                "umount /run/x",
                Guard::Mount {
                    at: "/run/x".into(),
                    source: "/dev/loop5".into(),
                },
            ),
        ]
    }

    #[test]
    fn unwound_newest_first_and_only_where_the_guard_holds() {
        let d = dir();
        let mut j = Journal::create(d.path(), "abc").unwrap();
        for s in steps() {
            j.push(s).unwrap();
        }
        // On disk before anything is undone, in order.
        let on_disk: Record = serde_json::from_str(&std::fs::read_to_string(j.path()).unwrap()).unwrap();
        assert_eq!(on_disk.undo, steps());
        assert_eq!(on_disk.owner, crate::target::owner::of_self());
        let sys = Fake {
            pools: vec!["iolab-abc".into()],
            // Mounted from another source: not ours any more.
            mounts: vec![("/run/x".into(), "/dev/sdz".into())],
            // loop4 now carries somebody else's filesystem.
            labels: vec![("/dev/loop3".into(), "iolab-abc".into()), ("/dev/loop4".into(), "home".into())],
            ..Fake::default()
        };
        let path = j.path().to_path_buf();
        let out = j.unwind(&sys, "t");
        assert_eq!(*sys.ran.borrow(), ["zpool destroy iolab-abc", "wipefs -a /dev/loop3"]);
        let outcomes: Vec<&Outcome> = out.iter().map(|(_, o)| o).collect();
        assert_eq!(outcomes[1], &Outcome::Done);
        assert!(matches!(outcomes[0], Outcome::Skipped(w) if w.contains("/dev/sdz")), "{outcomes:?}");
        assert!(matches!(outcomes[2], Outcome::Skipped(w) if w.contains("home")), "{outcomes:?}");
        assert!(!path.exists(), "a journal fully unwound is removed");
    }

    #[test]
    fn a_failed_step_is_tried_again_then_stops_the_unwinding_and_keeps_the_journal() {
        let d = dir();
        let mut j = Journal::create(d.path(), "abc").unwrap();
        j.push(undo("members", "wipefs -a /dev/loop3", Guard::Always)).unwrap();
        j.push(undo("pool", "fail destroy", Guard::Always)).unwrap();
        j.push(undo("mount", "umount /run/x", Guard::Always)).unwrap();
        let path = j.path().to_path_buf();
        let sys = Fake::default();
        let out = j.unwind(&sys, "t");
        assert_eq!(
            *sys.ran.borrow(),
            ["umount /run/x", "fail destroy", "fail destroy", "fail destroy"],
            "tried {UNDO_TRIES} times, and the members of a pool still there are not wiped"
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].1, Outcome::Failed("it failed".into()));
        let left: Record = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            left.undo,
            [
                undo("members", "wipefs -a /dev/loop3", Guard::Always),
                undo("pool", "fail destroy", Guard::Always)
            ]
        );
        assert!(Journal::create(d.path(), "abc").is_err(), "one journal per run id");
    }

    #[test]
    fn a_best_effort_step_that_fails_does_not_stop_the_unwinding() {
        let mut forget = undo("registration", "fail btrfs device scan --forget /dev/loop3", Guard::Always);
        forget.best_effort = true;
        let steps = vec![undo("members", "wipefs -a /dev/loop3", Guard::Always), forget];
        let sys = Fake::default();
        let (out, left) = unwind_steps(steps, &sys, "t");
        assert_eq!(sys.ran.borrow().len(), 2, "tried once, then the wipe");
        assert!(matches!(out[0].1, Outcome::Failed(_)));
        assert_eq!(out[1].1, Outcome::Done);
        assert!(left.is_empty());
    }

    #[test]
    fn the_zfs_labels_are_at_both_ends() {
        const K: u64 = 1024;
        // 100 MiB + 100 KiB: the end labels sit below 100 MiB + 0 KiB rounded to 256 KiB.
        let size = 100 * K * K + 100 * K;
        assert_eq!(zfs_label_ranges(size), [(0, 512 * K), (100 * K * K - 512 * K, 612 * K)]);
        assert_eq!(zfs_label_ranges(1024 * K), [(0, 512 * K), (512 * K, 512 * K)]);
    }

    #[test]
    fn a_step_refused_for_a_moment_is_done_on_a_later_try() {
        struct Busy(RefCell<u32>);
        impl System for Busy {
            fn pool_imported(&self, _: &str) -> bool {
                true
            }
            fn mount_source(&self, _: &str) -> Option<String> {
                None
            }
            fn label(&self, _: &str) -> Option<String> {
                None
            }
            fn act(&self, _: &Action) -> std::result::Result<(), String> {
                let mut n = self.0.borrow_mut();
                *n += 1;
                if *n < UNDO_TRIES { Err("pool is busy".into()) } else { Ok(()) }
            }
        }
        let (out, left) = unwind_steps(vec![undo("pool", "zpool destroy p", Guard::Always)], &Busy(RefCell::new(0)), "t");
        assert_eq!(out[0].1, Outcome::Done);
        assert!(left.is_empty());
    }

    #[test]
    fn the_sweep_unwinds_only_the_journals_of_runs_that_are_gone() {
        let d = dir();
        let write = |name: &str, owner: &str, steps: Vec<Undo>| {
            write_atomic(
                &d.path().join(name),
                &Record {
                    owner: owner.into(),
                    undo: steps,
                },
            )
            .unwrap();
        };
        write(
            "dead.json",
            "8@100@b1",
            vec![undo("pool", "zpool destroy iolab-dead", Guard::Pool { name: "iolab-dead".into() })],
        );
        write(
            "live.json",
            "7@100@b1",
            vec![undo("pool", "zpool destroy iolab-live", Guard::Always)],
        );
        write(
            "doubt.json",
            "8@?@?",
            vec![undo("pool", "zpool destroy iolab-doubt", Guard::Always)],
        );
        std::fs::write(d.path().join("torn.json"), "{\"owner\": ").unwrap();
        std::fs::write(d.path().join("notes.txt"), "not a journal").unwrap();
        let now = |pid: u32| (pid == 7).then(|| "7@100@b1".to_string());
        let sys = Fake {
            pools: vec!["iolab-dead".into()],
            ..Fake::default()
        };
        let swept = sweep(d.path(), &now, &sys);
        assert_eq!(*sys.ran.borrow(), ["zpool destroy iolab-dead"]);
        let names: Vec<String> = swept
            .iter()
            .map(|s| s.journal.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["dead.json", "torn.json"]);
        assert!(matches!(&swept[1].steps[0].1, Outcome::Failed(w) if w.contains("cannot be read")));
        assert!(!d.path().join("dead.json").exists());
        for kept in ["live.json", "doubt.json", "torn.json", "notes.txt"] {
            assert!(d.path().join(kept).exists(), "{kept}");
        }
    }
}
