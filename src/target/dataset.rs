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
        zfs.run(&["create", "-o", &format!("mountpoint={}", mountpoint.display()), &name])
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
        let mut last = String::new();
        for i in 0..DESTROY_TRIES {
            if i > 0 {
                std::thread::sleep(DESTROY_PAUSE);
            }
            match self.zfs.run(&["destroy", "-r", &self.name]) {
                Ok(_) => {
                    self.destroyed = true;
                    // Its mount point was a directory made for it.
                    let _ = std::fs::remove_dir(&self.mountpoint);
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(failed(format!(
            "cannot destroy iolab's dataset {} ({last}): destroy it with `zfs destroy -r {}`",
            self.name, self.name
        )))
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
    }

    impl Zpool for Fake {
        fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
            self.calls.borrow_mut().push(args.join(" "));
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
        }
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
            format!("create -o mountpoint=/tpool/data/sub/iolab-git-{pid} tpool/data/iolab-git-{pid}"),
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
