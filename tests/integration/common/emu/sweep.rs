//! Sweeping up after killed test processes: ZFS pools and a zfs-fuse daemon of theirs,
//! mounts, cgroups, loop devices, zram devices and `/dev/shm` files whose owner pid
//! (encoded in the name) no longer exists.

use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Command;
use std::sync::Once;

use super::cgroup::remove_cgroup;
use super::mounts::{is_mountpoint, mount_points};
use super::proc::run_quiet;
use super::zfs::sweep_stale_zfs;
use super::zram::zram_remove;
use super::{BLKIO_ROOT, PREFIX, SHM_DIR};

/// Owner pid encoded in a harness name (`iolab-test-<pid>-...`).
fn owner_pid(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.strip_prefix('-')?.split('-').next()?.parse().ok()
}

/// A harness name whose owner process is gone.
pub(super) fn is_stale(name: &str) -> bool {
    match owner_pid(name) {
        Some(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
        None => false,
    }
}

fn file_name_of(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

static SWEEP: Once = Once::new();

pub(super) fn sweep_stale_once() {
    SWEEP.call_once(|| {
        if rustix::process::geteuid().is_root() {
            sweep_stale();
        }
    });
}

/// Remove resources of dead harness processes. Serialized across processes by an
/// exclusive flock on /dev/shm, so two sweepers never act on the same leftover.
pub fn sweep_stale() {
    let Ok(lock) = File::open(SHM_DIR) else { return };
    // SAFETY: flock on a valid fd; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return;
    }
    // 0. ZFS pools first (they hold loop devices and mount directories of theirs), and a
    //    daemon a dead test started; skipped while a lab runs (it swept when it started).
    sweep_stale_zfs();
    // 1. Mounts (ext4 / tmpfs) on stale directories.
    for m in mount_points() {
        if is_stale(&file_name_of(&m)) {
            eprintln!("emu sweep: unmounting stale {}", m.display());
            run_quiet(Command::new("umount").arg("-l").arg(&m));
            let _ = fs::remove_dir(&m);
        }
    }
    for e in fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if is_stale(&n) && !is_mountpoint(&e.path()) {
            let _ = fs::remove_dir(e.path());
        }
    }
    // 2. Cgroups.
    for e in fs::read_dir(BLKIO_ROOT).into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if is_stale(&n) && e.path().is_dir() {
            eprintln!("emu sweep: removing stale cgroup {n}");
            remove_cgroup(&e.path());
        }
    }
    // 3. Loop devices backed by stale /dev/shm files.
    for e in fs::read_dir("/sys/block").into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if !n.starts_with("loop") {
            continue;
        }
        let Ok(back) = fs::read_to_string(e.path().join("loop/backing_file")) else {
            continue;
        };
        let back = back.trim().trim_end_matches(" (deleted)");
        if back.starts_with(SHM_DIR) && is_stale(&file_name_of(Path::new(back))) {
            eprintln!("emu sweep: detaching stale /dev/{n} ({back})");
            run_quiet(Command::new("losetup").arg("-d").arg(format!("/dev/{n}")));
        }
    }
    // 4. zram devices (via markers), then any other stale file in /dev/shm.
    for e in fs::read_dir(SHM_DIR).into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if !is_stale(&n) {
            continue;
        }
        if n.ends_with(".zram")
            && let Some(idx) = fs::read_to_string(e.path()).ok().and_then(|s| s.trim().parse::<u32>().ok())
            && idx != 0
            && Path::new(&format!("/sys/block/zram{idx}")).exists()
        {
            eprintln!("emu sweep: removing stale zram{idx}");
            zram_remove(idx);
        }
        eprintln!("emu sweep: removing stale {}", e.path().display());
        let _ = fs::remove_file(e.path()).or_else(|_| fs::remove_dir_all(e.path()));
    }
    drop(lock);
}
