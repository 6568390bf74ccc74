//! Mounted filesystems on fresh directories: [`Ext4Mount`] (ext4 on its own loop device)
//! and [`Tmpfs`], plus mount-table and directory-listing helpers.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::blockdev::BlockDev;
use super::loopdev::LoopDev;
use super::names::unique_name;
use super::proc::{retry, run_checked, run_quiet, try_silently};

fn make_mount_dir(kind: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(unique_name(kind));
    fs::create_dir(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    dir
}

/// Unmount (retry while busy, lazy as a last resort) and remove the directory.
fn unmount_and_remove(dir: &Path) {
    let quiet = |args: &[&str]| try_silently(Command::new("umount").args(args).arg(dir)).unwrap_or(false);
    if is_mountpoint(dir) && !retry(20, Duration::from_millis(100), || quiet(&[])) {
        eprintln!("emu cleanup: {} busy, lazy unmount", dir.display());
        run_quiet(Command::new("umount").arg("-l").arg(dir));
    }
    if let Err(e) = fs::remove_dir(dir)
        && e.kind() != io::ErrorKind::NotFound
    {
        eprintln!("emu cleanup: rmdir {}: {e}", dir.display());
    }
}

/// Mount points from /proc/self/mountinfo (octal escapes decoded).
pub(super) fn mount_points() -> Vec<PathBuf> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(|m| {
            let b = m.as_bytes();
            let mut out = Vec::with_capacity(b.len());
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'\\'
                    && i + 4 <= b.len()
                    && let Some(v) = std::str::from_utf8(&b[i + 1..i + 4])
                        .ok()
                        .and_then(|o| u8::from_str_radix(o, 8).ok())
                {
                    out.push(v);
                    i += 4;
                    continue;
                }
                out.push(b[i]);
                i += 1;
            }
            PathBuf::from(OsStr::from_bytes(&out))
        })
        .collect()
}

pub(super) fn is_mountpoint(dir: &Path) -> bool {
    mount_points().iter().any(|m| m == dir)
}

/// ext4 on its own (sparse) loop device, mounted on a fresh directory.
/// Drop: unmount and remove the directory, then the loop device goes (owned field).
pub struct Ext4Mount {
    dir: PathBuf,
    // Dropped after `Ext4Mount::drop` has unmounted.
    dev: LoopDev,
}

impl Ext4Mount {
    pub fn new(size: u64) -> Ext4Mount {
        let dev = LoopDev::new_sparse(size);
        run_checked(
            Command::new("mkfs.ext4")
                .args(["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
                .arg(dev.path()),
        );
        let dir = make_mount_dir("ext4");
        let m = Ext4Mount { dir, dev };
        run_checked(Command::new("mount").args(["-t", "ext4"]).arg(m.dev.path()).arg(&m.dir));
        m
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn dev(&self) -> &LoopDev {
        &self.dev
    }

    /// Entries in the mount point other than `lost+found`.
    pub fn user_entries(&self) -> Vec<String> {
        list_dir(&self.dir).into_iter().filter(|n| n != "lost+found").collect()
    }
}

impl BlockDev for Ext4Mount {
    fn dev_path(&self) -> &Path {
        self.dev.dev_path()
    }
    fn dev_numbers(&self) -> (u32, u32) {
        self.dev.dev_numbers()
    }
}

impl Drop for Ext4Mount {
    fn drop(&mut self) {
        unmount_and_remove(&self.dir);
    }
}

/// A tmpfs of `size` bytes mounted on a fresh directory. Drop: unmount, remove the dir.
pub struct Tmpfs {
    dir: PathBuf,
}

impl Tmpfs {
    pub fn new(size: u64) -> Tmpfs {
        let t = Tmpfs {
            dir: make_mount_dir("tmpfs"),
        };
        run_checked(
            Command::new("mount")
                .args(["-t", "tmpfs", "-o"])
                .arg(format!("size={size},mode=0755"))
                .arg("tmpfs")
                .arg(&t.dir),
        );
        t
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn entries(&self) -> Vec<String> {
        list_dir(&self.dir)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        unmount_and_remove(&self.dir);
    }
}

pub fn list_dir(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// A block device mounted (with `-o OPTS` if given) on a fresh directory;
/// unmounted, with retries, and the directory removed on drop, also when a
/// test fails.
pub struct Mount(PathBuf);

impl Mount {
    pub fn new(dev: &Path, opts: Option<&str>) -> Mount {
        let dir = std::env::temp_dir().join(unique_name("mnt"));
        fs::create_dir_all(&dir).expect("create mount point");
        let mut cmd = Command::new("mount");
        if let Some(o) = opts {
            cmd.args(["-o", o]);
        }
        run_checked(cmd.arg(dev).arg(&dir));
        Mount(dir)
    }

    pub fn dir(&self) -> &Path {
        &self.0
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        for _ in 0..20 {
            if Command::new("umount").arg(&self.0).status().is_ok_and(|s| s.success()) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = fs::remove_dir(&self.0);
    }
}
