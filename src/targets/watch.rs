//! Whether the target is still there: a thread of its own looks once a
//! second, so a target that went away during a run (a filesystem unmounted
//! lazily under iolab's test file, a device node that vanished with its
//! device, a path something else was mounted over) stops the run within a
//! second or two instead of being measured to the end of a long job.
//!
//! The looking is done off the measuring threads because looking can
//! block (a path on a hung network filesystem); such a thread is simply
//! left behind. It holds no descriptor of the target.

use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the thread looks.
const PERIOD: Duration = Duration::from_secs(1);

/// What the target was when it was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// `st_dev` and `st_ino` of the path as given.
    pub dev_ino: (u64, u64),
    /// The mount the open descriptor lives on (`/proc/self/mountinfo`'s first field).
    pub mnt_id: Option<u64>,
}

impl Identity {
    /// The identity of `path`, opened as `fd`.
    pub fn of(path: &Path, fd: impl AsFd) -> Option<Identity> {
        let md = std::fs::metadata(path).ok()?;
        let mnt_id = rustix::fs::statx(fd, "", rustix::fs::AtFlags::EMPTY_PATH, rustix::fs::StatxFlags::MNT_ID)
            .ok()
            .filter(|s| s.stx_mask & rustix::fs::StatxFlags::MNT_ID.bits() != 0)
            .map(|s| s.stx_mnt_id);
        Some(Identity {
            dev_ino: (md.dev(), md.ino()),
            mnt_id,
        })
    }
}

/// Why the target is gone, from what is seen now: `mountinfo` (the text of
/// `/proc/self/mountinfo`) and `now` (the path's `(st_dev, st_ino)`, or the
/// error of looking it up). `None` while it is what was opened, or when it
/// cannot be told.
pub fn verdict(opened: &Identity, mountinfo: &str, now: std::io::Result<(u64, u64)>) -> Option<&'static str> {
    if let Some(id) = opened.mnt_id {
        let mounted = mountinfo
            .lines()
            .any(|l| l.split(' ').next().and_then(|f| f.parse::<u64>().ok()) == Some(id));
        // An empty text is a read that failed, not a table without mounts.
        if !mountinfo.is_empty() && !mounted {
            return Some("its filesystem was unmounted (lazily: iolab's open file kept it alive)");
        }
    }
    match now {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("it no longer exists"),
        Ok(di) if di != opened.dev_ino => Some("it is no longer what iolab opened (replaced, or something was mounted over it)"),
        _ => None,
    }
}

struct Shared {
    stop: AtomicBool,
    gone: Mutex<Option<String>>,
}

/// The watching thread; it stops when this is dropped.
pub struct Watch {
    shared: Arc<Shared>,
}

impl Watch {
    /// Start watching `path`, opened as what `opened` describes.
    pub fn start(path: &Path, opened: Identity) -> Watch {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            gone: Mutex::new(None),
        });
        let s = shared.clone();
        let path: PathBuf = path.to_path_buf();
        let spawned = std::thread::Builder::new().name("iolab-watch".into()).spawn(move || {
            while !s.stop.load(Ordering::Relaxed) {
                std::thread::sleep(PERIOD);
                let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
                let now = std::fs::metadata(&path).map(|m| (m.dev(), m.ino()));
                if let Some(why) = verdict(&opened, &mountinfo, now) {
                    *s.gone.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{}: {why}", path.display()));
                    return;
                }
            }
        });
        // Without a thread there is nothing to watch with; the run goes on unwatched.
        let _ = spawned;
        Watch { shared }
    }

    /// `TARGET: why`, once the target is gone.
    pub fn gone(&self) -> Option<String> {
        self.shared.gone.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    const MOUNTS: &str = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n41 22 7:3 / /mnt/x rw - ext4 /dev/loop3 rw\n";

    #[test]
    fn a_target_is_gone_when_its_mount_or_its_path_is() {
        let opened = Identity {
            dev_ino: (1795, 2),
            mnt_id: Some(41),
        };
        assert_eq!(verdict(&opened, MOUNTS, Ok((1795, 2))), None);
        // `umount -l /mnt/x`: the mount left the table, the path is now the directory under it.
        let after = "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
        assert!(
            verdict(&opened, after, Ok((2049, 77)))
                .unwrap()
                .starts_with("its filesystem was unmounted")
        );
        // The path vanished (a device node with its device).
        assert_eq!(
            verdict(&opened, MOUNTS, Err(Error::from(ErrorKind::NotFound))),
            Some("it no longer exists")
        );
        // Something else there now.
        assert!(
            verdict(&opened, MOUNTS, Ok((1795, 99)))
                .unwrap()
                .starts_with("it is no longer what iolab opened")
        );
        // What cannot be told is not a verdict: a failed read of the table, a permission error.
        assert_eq!(verdict(&opened, "", Ok((1795, 2))), None);
        assert_eq!(verdict(&opened, MOUNTS, Err(Error::from(ErrorKind::PermissionDenied))), None);
        // Without a mount id only the path is judged.
        let no_id = Identity { mnt_id: None, ..opened };
        assert_eq!(verdict(&no_id, "", Ok((1795, 2))), None);
    }

    #[test]
    fn a_watched_directory_that_stays_is_never_gone() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::open(dir.path()).unwrap();
        let id = Identity::of(dir.path(), &f).unwrap();
        assert!(id.mnt_id.is_some(), "statx gives the mount id (Linux 5.8+)");
        let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert_eq!(verdict(&id, &mountinfo, Ok(id.dev_ino)), None);
        let w = Watch::start(dir.path(), id);
        assert_eq!(w.gone(), None);
    }
}
