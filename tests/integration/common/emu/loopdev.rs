//! [`LoopDev`]: a loop device over a file in `/dev/shm` that it owns and removes.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

use super::blockdev::{BlockDev, dev_numbers, write_sysfs};
use super::names::unique_name;
use super::proc::{retry, run_quiet, try_silently};
use super::{MIB, SHM_DIR};

/// A backing file (in `/dev/shm`, or the directory given), removed on drop.
pub(super) struct ShmFile(pub(super) PathBuf);

impl Drop for ShmFile {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_file(&self.0)
            && e.kind() != io::ErrorKind::NotFound
        {
            eprintln!("emu cleanup: rm {}: {e}", self.0.display());
        }
    }
}

/// Fill `f` with `size` bytes of cheap pseudo-random data (not zeros: real pages, no holes).
pub fn fill_pseudo_random(f: &mut File, size: u64) -> io::Result<()> {
    let mut buf = vec![0u8; MIB as usize];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id());
    for chunk in buf.chunks_exact_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    let mut left = size;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        f.write_all(&buf[..n])?;
        // Vary the pattern per MiB so no two blocks are identical.
        buf[..8].copy_from_slice(&left.to_le_bytes());
        left -= n as u64;
    }
    Ok(())
}

/// A loop device over a `/dev/shm` file. Drop: `losetup -d`, then the file is removed.
pub struct LoopDev {
    path: PathBuf,
    major: u32,
    minor: u32,
    size: u64,
    // Dropped after `LoopDev::drop` has detached the device.
    backing: ShmFile,
}

impl LoopDev {
    /// A loop device of `size` bytes, prefilled with pseudo-random data.
    pub fn new(size: u64) -> LoopDev {
        Self::create(size, true)
    }

    /// A loop device over a sparse file (reads of unwritten areas return zeros).
    pub fn new_sparse(size: u64) -> LoopDev {
        Self::create(size, false)
    }

    /// A loop device over a prefilled file made in `dir` (for example on a
    /// filesystem that is itself on a throttled loop device: a shared bus),
    /// doing direct I/O to that file, so its reads reach the device under
    /// `dir` instead of that file's page cache. The file is removed on drop.
    pub fn new_in(dir: &Path, size: u64) -> LoopDev {
        Self::create_at(dir, size, true, true)
    }

    fn create(size: u64, prefill: bool) -> LoopDev {
        Self::create_at(Path::new(SHM_DIR), size, prefill, false)
    }

    fn create_at(dir: &Path, size: u64, prefill: bool, direct_io: bool) -> LoopDev {
        assert!(size > 0 && size.is_multiple_of(4096), "loop size must be a multiple of 4 KiB");
        let backing = ShmFile(dir.join(format!("{}.img", unique_name("loop"))));
        {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&backing.0)
                .unwrap_or_else(|e| panic!("create {}: {e}", backing.0.display()));
            if prefill {
                fill_pseudo_random(&mut f, size).unwrap_or_else(|e| panic!("fill {}: {e}", backing.0.display()));
                f.sync_all().unwrap_or_else(|e| panic!("fsync {}: {e}", backing.0.display()));
            } else {
                f.set_len(size).unwrap_or_else(|e| panic!("truncate {}: {e}", backing.0.display()));
            }
        }
        // losetup retries internally when another process grabs the same free device;
        // retry a few more times on top of that for heavily parallel runs.
        let mut last_err = String::new();
        let mut dev = None;
        for _ in 0..5 {
            let out = Command::new("losetup")
                .args(["--find", "--show"])
                .args(direct_io.then_some("--direct-io=on"))
                .arg(&backing.0)
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("cannot run losetup: {e}"));
            if out.status.success() {
                dev = Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
                break;
            }
            last_err = String::from_utf8_lossy(&out.stderr).into_owned();
            thread::sleep(Duration::from_millis(100));
        }
        let path = dev.unwrap_or_else(|| panic!("losetup --find --show {} failed: {last_err}", backing.0.display()));
        // Build the guard before anything else can fail, so the device is detached.
        let mut lo = LoopDev {
            path,
            major: 0,
            minor: 0,
            size,
            backing,
        };
        // devtmpfs creates new nodes asynchronously for freshly allocated loop devices.
        if !retry(50, Duration::from_millis(20), || lo.path.exists()) {
            panic!("{} did not appear", lo.path.display());
        }
        (lo.major, lo.minor) = dev_numbers(&lo.path);
        let sysfs_size: u64 = fs::read_to_string(format!("/sys/block/{}/size", lo.kernel_name()))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        assert_eq!(sysfs_size * 512, size, "{} has the wrong size", lo.path.display());
        // A loop device keeps the request-size limit of its last backing
        // file after it is detached (one that served a FUSE file stays at
        // 124 KiB, and the blkio throttle then charges each piece of a
        // split request in full: a 128K read counts twice). Every test
        // starts from the same 512 KiB: no request of the cases is split,
        // and none reaches this kernel's 1 MiB throttle artefact.
        let q = format!("/sys/block/{}/queue", lo.kernel_name());
        let hw: u64 = fs::read_to_string(format!("{q}/max_hw_sectors_kb"))
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(512);
        let _ = write_sysfs(format!("{q}/max_sectors_kb"), &hw.min(512).to_string());
        lo
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn backing_file(&self) -> &Path {
        &self.backing.0
    }
}

impl BlockDev for LoopDev {
    fn dev_path(&self) -> &Path {
        &self.path
    }
    fn dev_numbers(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        // Detach; a device still held open briefly (e.g. a just-unmounted fs) is retried.
        // The kernel turns a detach of a busy device into autoclear-on-last-close.
        let path = self.path.clone();
        if !retry(20, Duration::from_millis(100), || {
            try_silently(Command::new("losetup").arg("-d").arg(&path)).unwrap_or(false)
        }) {
            run_quiet(Command::new("losetup").arg("-d").arg(&path));
        }
        // `backing` (the /dev/shm file) is removed when the field drops, after this.
    }
}
