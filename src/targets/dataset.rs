//! A child dataset of iolab's own on ZFS, to reset a working tree between
//! runs with a snapshot and a rollback (seed 004's `zfs snapshot` and
//! `zfs rollback` between `git pull`s) instead of deleting and rewriting it.
//!
//! It is made under the dataset of the directory it is for, mounted at
//! `DIR/<prefix>-<pid>` (an explicit mount point: the directory need not be
//! the parent's mount point), and destroyed with its snapshots at the end:
//! [`ChildDataset::destroy`] reports a failure, and a guard dropped on an
//! error or a signal destroys it too. The commands run through
//! [`super::zfs::Zpool`] (the live `zfs`: [`super::zfs::LiveZfs`]).
//!
//! A run killed with SIGKILL cannot destroy its dataset, so each one
//! carries its owner ([`super::owner`]) in the user property [`OWNER_PROPERTY`], and the next run sweeps
//! ([`sweep`]) the datasets of its kind under the same parent whose owner
//! is gone. Only those: a dataset without the property, or with another
//! name, is never touched, so nothing of the user's can be taken for a
//! leftover.

use super::zfs::Zpool;
use crate::base::error::{Result, failed};
use crate::device::{self, SysRoot};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the new dataset may take to be mounted, and how often a
/// destroy refused as busy (just after an import) is tried again.
const MOUNT_WAIT: Duration = Duration::from_secs(20);
const DESTROY_TRIES: u32 = 3;
const DESTROY_PAUSE: Duration = if cfg!(test) {
    Duration::from_millis(10)
} else {
    Duration::from_secs(2)
};

/// The user property that names a dataset's owning iolab process.
pub const OWNER_PROPERTY: &str = "iolab:owner";

/// Destroy the datasets `PARENT/<prefix>-<pid>` of runs that are gone (see
/// the module's docs), with their snapshots and their mount point
/// directories; returns their names. `alive(pid)`: that process's owner
/// value if it runs (the live one reads `/proc`). A dataset that cannot be
/// destroyed is left and named in the error.
pub fn sweep(zfs: &dyn Zpool, parent: &str, prefix: &str, alive: &dyn Fn(u32) -> Option<String>) -> Result<Vec<String>> {
    let list = zfs
        .run(&[
            "list",
            "-H",
            "-r",
            "-t",
            "filesystem",
            "-o",
            &format!("name,mountpoint,{OWNER_PROPERTY}"),
            parent,
        ])
        .map_err(|e| failed(format!("cannot list the datasets under {parent}: {e}")))?;
    let mut swept = Vec::new();
    for line in list.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [name, mountpoint, owner] = f[..] else { continue };
        let Some(leaf) = name.strip_prefix(parent).and_then(|l| l.strip_prefix('/')) else {
            continue;
        };
        let ours = leaf
            .strip_prefix(prefix)
            .and_then(|l| l.strip_prefix('-'))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if !ours || owner == "-" || owner.is_empty() || super::owner::alive(owner, alive) {
            continue;
        }
        destroy_r(zfs, name).map_err(|e| {
            failed(format!(
                "cannot destroy {name}, left by an iolab run that is gone ({e}): destroy it with `zfs destroy -r {name}`"
            ))
        })?;
        if mountpoint.starts_with('/') {
            let _ = std::fs::remove_dir(mountpoint);
        }
        swept.push(name.to_string());
    }
    Ok(swept)
}

/// `zfs destroy -r NAME`, tried again while it is refused (zfs-fuse calls
/// a dataset busy for a moment after it is mounted or its pool imported);
/// the last refusal.
fn destroy_r(zfs: &dyn Zpool, name: &str) -> std::result::Result<(), String> {
    let mut last = String::new();
    for i in 0..DESTROY_TRIES {
        if i > 0 {
            std::thread::sleep(DESTROY_PAUSE);
        }
        match zfs.run(&["destroy", "-r", name]) {
            Ok(_) => return Ok(()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

pub struct ChildDataset<'z> {
    zfs: &'z dyn Zpool,
    name: String,
    mountpoint: PathBuf,
    snapshot: Option<String>,
    destroyed: bool,
}

impl<'z> ChildDataset<'z> {
    /// Create `PARENT/<prefix>-<pid>` mounted at `dir/<prefix>-<pid>`, where
    /// `parent` is the dataset mounted at or above `dir`; wait for the mount
    /// when `sys` is given (the live case).
    pub fn create(zfs: &'z dyn Zpool, parent: &str, dir: &Path, prefix: &str, sys: Option<&SysRoot>) -> Result<ChildDataset<'z>> {
        let leaf = format!("{prefix}-{}", std::process::id());
        let name = format!("{parent}/{leaf}");
        let mountpoint = dir.join(&leaf);
        let owner = format!("{OWNER_PROPERTY}={}", super::owner::of_self());
        zfs.run(&["create", "-o", &format!("mountpoint={}", mountpoint.display()), "-o", &owner, &name])
            .map_err(|e| failed(format!("cannot create the dataset {name} for the git suite's tree: {e}")))?;
        let ds = ChildDataset {
            zfs,
            name,
            mountpoint,
            snapshot: None,
            destroyed: false,
        };
        if let Some(sys) = sys {
            let start = Instant::now();
            while !device::mounts(sys)
                .iter()
                .any(|m| m.source == ds.name && Path::new(&m.mount_point) == ds.mountpoint)
            {
                if start.elapsed() > MOUNT_WAIT {
                    return Err(failed(format!(
                        "the dataset {} was not mounted at {} within {} s",
                        ds.name,
                        ds.mountpoint.display(),
                        MOUNT_WAIT.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(ds)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    /// Snapshot the dataset as `tag`: what [`ChildDataset::rollback`] returns to.
    pub fn snapshot(&mut self, tag: &str) -> Result<()> {
        let snap = format!("{}@{tag}", self.name);
        self.zfs
            .run(&["snapshot", &snap])
            .map_err(|e| failed(format!("cannot snapshot {}: {e}", self.name)))?;
        self.snapshot = Some(snap);
        Ok(())
    }

    /// Return the dataset to its snapshot (what was written since is gone).
    pub fn rollback(&self) -> Result<()> {
        let Some(snap) = &self.snapshot else {
            return Err(failed(format!("{} has no snapshot to roll back to", self.name)));
        };
        self.zfs
            .run(&["rollback", snap])
            .map(|_| ())
            .map_err(|e| failed(format!("cannot roll {} back to {snap}: {e}", self.name)))
    }

    /// Destroy the dataset and its snapshots, trying again while it is busy.
    pub fn destroy(mut self) -> Result<()> {
        self.destroy_now()
    }

    fn destroy_now(&mut self) -> Result<()> {
        if self.destroyed {
            return Ok(());
        }
        destroy_r(self.zfs, &self.name).map_err(|e| {
            failed(format!(
                "cannot destroy iolab's dataset {} ({e}): destroy it with `zfs destroy -r {}`",
                self.name, self.name
            ))
        })?;
        self.destroyed = true;
        // Its mount point was a directory made for it.
        let _ = std::fs::remove_dir(&self.mountpoint);
        Ok(())
    }
}

impl Drop for ChildDataset<'_> {
    fn drop(&mut self) {
        // On an error or a signal: nothing can be reported from here, and
        // the error being returned must not be masked.
        let _ = self.destroy_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    struct Fake {
        calls: RefCell<Vec<String>>,
        busy: RefCell<u32>,
        list: String,
    }

    impl Zpool for Fake {
        fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
            self.calls.borrow_mut().push(args.join(" "));
            if args[0] == "list" {
                return Ok(self.list.clone());
            }
            if args[0] == "destroy" && *self.busy.borrow() > 0 {
                *self.busy.borrow_mut() -= 1;
                return Err("dataset is busy".into());
            }
            Ok(String::new())
        }
    }

    fn fake(busy: u32) -> Fake {
        Fake {
            calls: RefCell::new(Vec::new()),
            busy: RefCell::new(busy),
            list: String::new(),
        }
    }

    /// pid 7 runs, started at tick 100 of boot b1; nothing else runs.
    fn alive(pid: u32) -> Option<String> {
        (pid == 7).then(|| "7@100@b1".to_string())
    }

    #[test]
    fn the_sweep_destroys_only_datasets_of_runs_that_are_gone() {
        let rows = [
            "tpool\t/tpool\t-",
            "tpool/iolab-git-8\t/tpool/d/iolab-git-8\t8@100@b1",
            "tpool/iolab-git-8/sub\t/tpool/d/iolab-git-8/sub\t8@100@b1",
            "tpool/iolab-git-7\t/tpool/iolab-git-7\t7@100@b1",
            "tpool/iolab-git-9\t/tpool/iolab-git-9\t-",
            "tpool/iolab-git-x\t/tpool/iolab-git-x\t8@100@b1",
            "tpool/mine-8\t/tpool/mine-8\t8@100@b1",
            "tpool/data/iolab-git-8\t/tpool/data/iolab-git-8\t8@100@b1",
            "tpool/iolab-git-10\t/tpool/iolab-git-10\t10@5@b0",
        ];
        let z = Fake {
            list: rows.join("\n"),
            ..fake(0)
        };
        let swept = sweep(&z, "tpool", "iolab-git", &alive).unwrap();
        assert_eq!(swept, ["tpool/iolab-git-8", "tpool/iolab-git-10"]);
        let calls = z.calls.borrow();
        assert_eq!(calls[0], "list -H -r -t filesystem -o name,mountpoint,iolab:owner tpool");
        assert_eq!(calls[1..], ["destroy -r tpool/iolab-git-8", "destroy -r tpool/iolab-git-10"]);
        // Busy for a moment: tried again.
        let z2 = Fake {
            list: rows[1].to_string(),
            ..fake(DESTROY_TRIES - 1)
        };
        assert_eq!(sweep(&z2, "tpool", "iolab-git", &alive).unwrap(), ["tpool/iolab-git-8"]);
        // A destroy refused is named, with the command that does it.
        let z = Fake {
            list: rows[1].to_string(),
            ..fake(DESTROY_TRIES)
        };
        let e = sweep(&z, "tpool", "iolab-git", &alive).unwrap_err().to_string();
        assert!(e.contains("zfs destroy -r tpool/iolab-git-8"), "{e}");
    }

    #[test]
    fn made_snapshotted_rolled_back_and_destroyed() {
        let z = fake(1);
        let pid = std::process::id();
        let mut ds = ChildDataset::create(&z, "tpool/data", Path::new("/tpool/data/sub"), "iolab-git", None).unwrap();
        assert_eq!(ds.name(), format!("tpool/data/iolab-git-{pid}"));
        assert!(ds.rollback().is_err(), "no snapshot yet");
        ds.snapshot("origin").unwrap();
        ds.rollback().unwrap();
        ds.destroy().unwrap();
        let want = [
            format!(
                "create -o mountpoint=/tpool/data/sub/iolab-git-{pid} -o iolab:owner={} tpool/data/iolab-git-{pid}",
                super::super::owner::of_self()
            ),
            format!("snapshot tpool/data/iolab-git-{pid}@origin"),
            format!("rollback tpool/data/iolab-git-{pid}@origin"),
            format!("destroy -r tpool/data/iolab-git-{pid}"),
            format!("destroy -r tpool/data/iolab-git-{pid}"),
        ];
        assert_eq!(*z.calls.borrow(), want);
    }

    #[test]
    fn dropped_on_an_error_it_is_destroyed_once() {
        let z = fake(0);
        {
            let _ds = ChildDataset::create(&z, "tpool", Path::new("/tpool"), "iolab-git", None).unwrap();
        }
        let calls = z.calls.borrow();
        assert_eq!(
            calls.iter().filter(|c| c.starts_with("destroy -r tpool/iolab-git-")).count(),
            1,
            "{calls:?}"
        );
        let z = fake(DESTROY_TRIES);
        let ds = ChildDataset::create(&z, "tpool", Path::new("/tpool"), "iolab-git", None).unwrap();
        let e = ds.destroy().unwrap_err().to_string();
        assert!(e.contains("zfs destroy -r tpool/iolab-git-"), "{e}");
    }
}
