//! [`FaultDev`]: a faulty block device — a loop device over a FUSE file that lies about
//! its capacity, fails reads with EIO, flips bits or loses writes, as the test chooses.
//!
//! The filesystem is `tests/integration/common/faultfs.py` (fusepy, run by
//! `/usr/bin/python3`), configured by a JSON object on its stdin: one read-write
//! file of `announce` bytes whose data lives in a sparse memfd of `store` bytes (only
//! what was written takes memory; a 4 GiB device storing 1 GiB holds at most 1 GiB).
//! The loop device over it is attached with `losetup --direct-io=off`: the loop driver
//! does buffered I/O on the backing file, but the file is opened with FOPEN_DIRECT_IO,
//! so there is no page cache on the FUSE side and every request reaches the server.
//! Requests reach the server in pieces of up to 128 KiB (libfuse 2's limit). With EIO
//! ranges, the loop device's requests are capped at [`MAX_REQUEST_KB`] so each is
//! exactly one FUSE request, failing or succeeding whole.
//!
//! The faults, all by the offset a request asks for:
//!
//! * **fake capacity** (`store < announce`): offset `o` is stored at `o % store`, for
//!   writes and reads alike — a block written at `store + 4096` reads back at `4096`
//!   and at `store + 4096` (the counterfeit USB stick);
//! * **`eio`** `[a, b)`: a read touching any byte of the range fails with EIO (the whole
//!   request: never a short read); writes too with `eio_writes`;
//! * **`flip`** (4 KiB-aligned block offsets): the byte at [`FaultDev::flipped_byte`]
//!   comes back with bit [`FLIP_MASK`] flipped on every read; the stored data is intact;
//! * **`drop`** `[a, b)`: writes report success, but their bytes in the range are not
//!   stored (reads return what was there before: zeros at first).
//!
//! Faults are visible to O_DIRECT I/O on [`FaultDev::path`] (what iolab does). Buffered
//! I/O on the loop device goes through the block device's page cache like on any disk:
//! a buffered read right after a buffered write returns the cached write until
//! `blockdev --flushbufs` (or O_DIRECT) — the same as a real counterfeit device.
//!
//! Cleanup: Drop detaches the loop device (if it is still over our file: a device
//! detached behind the guard's back may already serve another test), unmounts (lazily if still busy), reaps the
//! server (killing it if it does not exit by itself) and removes the mount directory;
//! the memfd goes with the server. A test process killed before its guards run is
//! covered twice: the server notices its parent's death within 0.5 s and does the same
//! itself (detach, unmount, rmdir, exit); and if the server was killed too, the first
//! `FaultDev` of a later test process runs [`sweep_stale_faultdevs`], which detaches
//! loop devices over the files of dead owners (the file is named after its mount
//! directory, `iolab-test-<pid>-…-faultfs.img`, so it is recognised even after a lazy
//! unmount), unmounts their mounts, removes their directories and kills their servers.

use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

use super::blockdev::{BlockDev, dev_numbers, write_sysfs};
use super::mounts::{is_mountpoint, mount_points};
use super::names::unique_name;
use super::proc::{retry, run_quiet, try_silently};
use super::{PREFIX, SHM_DIR};

const PYTHON: &str = "/usr/bin/python3";
/// The server script.
pub const FAULTFS_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/integration/common/faultfs.py");
/// The kind in the mount directory's unique name; the file is `<dir name>.img`.
const KIND: &str = "faultfs";
/// faultfs.py's exit status when fusepy cannot be imported.
const EXIT_NO_FUSEPY: i32 = 3;
const READY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the server may take to exit by itself once unmounted.
const EXIT_TIMEOUT: Duration = Duration::from_secs(3);

/// The largest request (`queue/max_sectors_kb`) of a loop device over a file with EIO
/// ranges, so that each loop request reaches the server as exactly one FUSE request:
/// libfuse 2 takes at most 128 KiB (32 pages) per request, and 124 KiB spans at most
/// 32 pages whatever the buffer's alignment. A bigger loop request is cut into several
/// FUSE requests, and when a later one fails the kernel sees a short write, which the
/// loop driver reports as a success: write EIO would depend on how the block layer
/// happened to split the caller's I/O (it does: on how contiguous its buffer's pages
/// are). Without EIO ranges no request fails and the default (1280 KiB) stays: it is
/// 30-40% faster when the CPUs are busy. A loop device keeps the setting when it is
/// detached and attached again, so every detach here (Drop, the sweep, the server's
/// own cleanup) restores the default first.
pub const MAX_REQUEST_KB: u32 = 124;
/// The fault granule: flips are per 4 KiB block, sizes are multiples of it.
pub const BLOCK: u64 = 4096;
/// Which byte of a flip block comes back flipped (faultfs.py's `FLIP_POS`).
pub const FLIP_POS: u64 = 1445;
/// The bit that flips (faultfs.py's `FLIP_MASK`).
pub const FLIP_MASK: u8 = 0x10;

/// What the device does. Offsets are bytes in the device's address space (before the
/// wrap); ranges are `[a, b)`. `..Default::default()` for the faults not wanted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultSpec {
    /// The device's size, what it claims to hold (a multiple of 4 KiB).
    pub announce: u64,
    /// What it really stores (a multiple of 4 KiB, at most `announce`; `None`: all).
    /// Offset `o` is stored at `o % store`.
    pub store: Option<u64>,
    /// Reads touching any byte of a range fail with EIO.
    pub eio: Vec<(u64, u64)>,
    /// Writes touching an `eio` range fail with EIO too (nothing of them is stored).
    pub eio_writes: bool,
    /// 4 KiB-aligned block offsets: every read returns the byte at
    /// [`FaultDev::flipped_byte`] with bit [`FLIP_MASK`] flipped.
    pub flip: Vec<u64>,
    /// Writes report success but their bytes in these ranges are not stored.
    pub drop: Vec<(u64, u64)>,
    /// Writes paced by offset (`None`: as fast as the server goes): see [`WritePace`].
    pub write_pace: Option<WritePace>,
    /// Reads touching a range `[a, b)` are answered this many ms late: `(a, b, ms)`.
    pub hold: Vec<(u64, u64, u64)>,
    /// Each held read, once answered, appends `answered OFFSET NS` here
    /// (`NS`: CLOCK_MONOTONIC, just before the answer).
    pub hold_log: Option<PathBuf>,
}

/// A write rate that changes at an offset (a stick whose write cache fills up):
/// faultfs.py's `write_bps_before`, `write_bps_after` and `write_drop_offset`, on a
/// virtual device clock: writing a range back to back takes its bytes below
/// `drop_offset` / `before_bps` plus those at or above it / `after_bps`. The host's
/// turnaround between the requests of a stream (a gap of up to 20 ms since the last
/// answer) is not lost; a longer gap is the writer's idle time and not credited (the
/// first request after it is taken to have been issued the median gap earlier). The
/// server runs at nice -20 and flushes cost nothing (ENOSYS: the kernel answers them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WritePace {
    /// Bytes per second below `drop_offset`.
    pub before_bps: u64,
    /// Bytes per second from `drop_offset` on.
    pub after_bps: u64,
    /// Where the rate changes (bytes, at most `announce`).
    pub drop_offset: u64,
}

impl FaultSpec {
    /// A clean device of `announce` bytes (add faults with struct update syntax).
    pub fn clean(announce: u64) -> FaultSpec {
        FaultSpec {
            announce,
            ..Default::default()
        }
    }

    /// Bytes really stored.
    pub fn stored(&self) -> u64 {
        self.store.unwrap_or(self.announce)
    }

    fn check(&self) {
        let (n, m) = (self.announce, self.stored());
        assert!(
            n > 0 && n.is_multiple_of(BLOCK),
            "FaultSpec: announce {n} is not a positive multiple of 4 KiB"
        );
        assert!(
            m > 0 && m.is_multiple_of(BLOCK) && m <= n,
            "FaultSpec: store {m} is not a positive multiple of 4 KiB up to announce ({n})"
        );
        for (what, ranges) in [("eio", &self.eio), ("drop", &self.drop)] {
            for &(a, b) in ranges {
                assert!(a < b && b <= n, "FaultSpec: {what} range [{a}, {b}) is empty or beyond {n}");
            }
        }
        if let Some(p) = self.write_pace {
            assert!(
                p.before_bps > 0 && p.after_bps > 0 && p.drop_offset <= n,
                "FaultSpec: write pace {p:?} needs rates above 0 and an offset up to {n}"
            );
        }
        for &b in &self.flip {
            assert!(
                b.is_multiple_of(BLOCK) && b < n,
                "FaultSpec: flip block {b} is unaligned or beyond {n}"
            );
        }
    }

    /// The JSON object faultfs.py takes (`name` is the file's name).
    fn to_json(&self, name: &str) -> String {
        serde_json::json!({
            "name": name,
            "announce": self.announce,
            "store": self.stored(),
            "eio": self.eio.iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
            "eio_writes": self.eio_writes,
            "flip": self.flip,
            "drop": self.drop.iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
            "write_bps_before": self.write_pace.map(|p| p.before_bps),
            "write_bps_after": self.write_pace.map(|p| p.after_bps),
            "write_drop_offset": self.write_pace.map(|p| p.drop_offset),
            "hold": self.hold.iter().map(|&(a, b, ms)| [a, b, ms]).collect::<Vec<_>>(),
            "hold_log": self.hold_log,
        })
        .to_string()
    }
}

/// A faulty block device: `/dev/loopN` over a faultfs file (see the module doc).
///
/// Drop: `losetup -d`, unmount (retried while busy, then `umount -l`), the server is
/// reaped (killed if it does not exit by itself), the mount directory removed.
pub struct FaultDev {
    spec: FaultSpec,
    dir: PathBuf,
    file: PathBuf,
    loop_dev: Option<PathBuf>,
    major: u32,
    minor: u32,
    child: Option<Child>,
}

static SWEEP: Once = Once::new();

impl FaultDev {
    /// Mount faultfs with these faults and attach a loop device over its file. Panics if
    /// the server cannot start (e.g. python3-fusepy is missing), the file does not
    /// appear within 15 s, or `losetup` fails; whatever was made is undone first.
    pub fn new(spec: FaultSpec) -> FaultDev {
        spec.check();
        SWEEP.call_once(|| {
            if rustix::process::geteuid().is_root() {
                sweep_stale_faultdevs();
            }
        });
        let dir = std::env::temp_dir().join(unique_name(KIND));
        fs::create_dir(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        let name = format!("{}.img", dir.file_name().expect("dir name").to_string_lossy());
        let mut dev = FaultDev {
            file: dir.join(&name),
            dir,
            loop_dev: None,
            major: 0,
            minor: 0,
            child: None,
            spec,
        };
        // From here on a panic drops `dev`, which undoes whatever was made.
        // The configuration goes through stdin: a long list of faults could pass the
        // kernel's limit on one argument (128 KiB).
        let mut child = Command::new(PYTHON)
            .arg(FAULTFS_SCRIPT)
            .arg(&dev.dir)
            .args(["--config", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {PYTHON} {FAULTFS_SCRIPT}: {e}"));
        let stdin = child.stdin.take();
        dev.child = Some(child);
        let mut stdin = stdin.expect("stdin pipe");
        // An error here (the server died) shows in wait_ready with its exit status.
        let _ = stdin.write_all(dev.spec.to_json(&name).as_bytes());
        drop(stdin);
        dev.wait_ready();
        dev.attach();
        dev
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                self.child = None;
                if status.code() == Some(EXIT_NO_FUSEPY) {
                    panic!("python3-fusepy is not installed (apt-get install python3-fusepy)");
                }
                panic!("faultfs.py exited ({status}) before {} appeared", self.file.display());
            }
            if is_mountpoint(&self.dir)
                && let Ok(m) = fs::metadata(&self.file)
            {
                assert_eq!(m.len(), self.spec.announce, "{}: wrong size", self.file.display());
                return;
            }
            if Instant::now() >= deadline {
                panic!("{} did not appear within {READY_TIMEOUT:?}", self.file.display());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn attach(&mut self) {
        let dev = losetup_buffered(&self.file).unwrap_or_else(|e| panic!("{e}"));
        self.loop_dev = Some(dev.clone());
        // devtmpfs creates new nodes asynchronously for freshly allocated loop devices.
        if !retry(50, Duration::from_millis(20), || dev.exists()) {
            panic!("{} did not appear", dev.display());
        }
        (self.major, self.minor) = dev_numbers(&dev);
        let sysfs_size: u64 = fs::read_to_string(format!("/sys/block/{}/size", self.kernel_name()))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        assert_eq!(sysfs_size * 512, self.spec.announce, "{} has the wrong size", dev.display());
        // With EIO ranges: one loop request, one FUSE request (see MAX_REQUEST_KB).
        // Without, the default, also if a loop device of a killed test kept the cap.
        let knob = max_sectors_knob(&dev);
        let want = if self.spec.eio.is_empty() { 0 } else { MAX_REQUEST_KB };
        write_sysfs(&knob, &want.to_string()).unwrap_or_else(|e| panic!("write {want} to {knob}: {e}"));
        if want != 0 {
            let set = fs::read_to_string(&knob).unwrap_or_default();
            assert_eq!(set.trim(), want.to_string(), "{knob} did not take {want}");
        }
    }

    /// The loop device (`/dev/loopN`).
    pub fn path(&self) -> &Path {
        self.loop_dev.as_deref().expect("attached")
    }

    /// The announced size in bytes (the device's size).
    pub fn size(&self) -> u64 {
        self.spec.announce
    }

    /// Bytes really stored (the wrap modulus).
    pub fn stored(&self) -> u64 {
        self.spec.stored()
    }

    pub fn spec(&self) -> &FaultSpec {
        &self.spec
    }

    /// The FUSE mount point.
    pub fn mount_dir(&self) -> &Path {
        &self.dir
    }

    /// The FUSE file under the loop device.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Server process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The byte of flip block `block` that reads back flipped (by [`FLIP_MASK`]).
    pub fn flipped_byte(block: u64) -> u64 {
        block + FLIP_POS
    }

    /// Where offset `o` is really stored (`o % store`).
    pub fn stored_at(&self, o: u64) -> u64 {
        o % self.stored()
    }

    /// The server's store (its memfd, as `/proc/<pid>/fd/<n>`): read it to see what is
    /// really stored, past every fault; its `st_blocks` is the memory it takes.
    pub fn store_file(&self) -> Option<PathBuf> {
        let fds = PathBuf::from(format!("/proc/{}/fd", self.pid()?));
        fs::read_dir(&fds)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| fs::read_link(p).is_ok_and(|t| t.to_string_lossy().starts_with("/memfd:faultfs-store")))
    }

    /// Memory the store takes, in bytes (allocated pages of the memfd).
    pub fn store_allocated(&self) -> Option<u64> {
        self.store_file().and_then(|p| fs::metadata(p).ok()).map(|m| m.blocks() * 512)
    }
}

impl BlockDev for FaultDev {
    fn dev_path(&self) -> &Path {
        self.path()
    }
    fn dev_numbers(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

/// The name of the file behind loop device `dev` (from sysfs; after a lazy unmount of
/// its filesystem the path is cut short, the name stays), `None` if it is not attached.
pub(super) fn backing_name(dev: &Path) -> Option<String> {
    let kname = dev.file_name()?.to_string_lossy().into_owned();
    let back = fs::read_to_string(format!("/sys/block/{kname}/loop/backing_file")).ok()?;
    let back = back.trim().trim_end_matches(" (deleted)");
    Some(base_name(back).to_string())
}

/// `losetup --find --show --direct-io=off FILE`: a loop device doing buffered I/O on a
/// FUSE file (opened with FOPEN_DIRECT_IO, so every request reaches the server). Err:
/// what losetup said.
pub(super) fn losetup_buffered(file: &Path) -> Result<PathBuf, String> {
    // losetup retries internally when another process grabs the same free device;
    // retry a few more times on top of that for heavily parallel runs.
    let mut last_err = String::new();
    for _ in 0..5 {
        let out = Command::new("losetup")
            .args(["--find", "--show", "--direct-io=off"])
            .arg(file)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run losetup: {e}"))?;
        if out.status.success() {
            return Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        }
        last_err = String::from_utf8_lossy(&out.stderr).into_owned();
        thread::sleep(Duration::from_millis(100));
    }
    Err(format!("losetup --find --show {} failed: {last_err}", file.display()))
}

/// `queue/max_sectors_kb` of a block device; 0 written to it restores the default.
pub(super) fn max_sectors_knob(dev: &Path) -> String {
    format!(
        "/sys/block/{}/queue/max_sectors_kb",
        dev.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    )
}

/// `<linux/loop.h>`: detach (autoclear on last close when still open elsewhere).
const LOOP_CLR_FD: libc::c_ulong = 0x4C01;

/// Detach loop device `dev` if its backing file is named `file_name`; true if it was.
///
/// A path alone is not enough: a device detached behind our back may already serve
/// another test. So the device is opened first and checked while held open (a device
/// held open cannot be detached and reused under us), then LOOP_CLR_FD marks it for
/// detaching on last close, which is ours, unless someone else still holds it (then it
/// goes when they close it: autoclear). Its request size is reset to the default
/// first: the loop device keeps it when it is reused (see [`MAX_REQUEST_KB`]).
pub fn detach_loop_if_backed_by(dev: &Path, file_name: &str) -> bool {
    let Ok(f) = File::open(dev) else { return false };
    if backing_name(dev).as_deref() != Some(file_name) {
        return false;
    }
    let knob = max_sectors_knob(dev);
    if let Err(e) = write_sysfs(&knob, "0") {
        eprintln!("emu cleanup: write 0 to {knob}: {e}");
    }
    // SAFETY: an ioctl without an argument on an open loop device.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), LOOP_CLR_FD as _, 0) };
    if r != 0 {
        eprintln!("emu cleanup: LOOP_CLR_FD {}: {}", dev.display(), io::Error::last_os_error());
    }
    drop(f);
    r == 0
}

/// Unmount, retried while busy, then lazily.
pub(super) fn unmount(dir: &Path) {
    let quiet = |args: &[&str]| try_silently(Command::new("umount").args(args).arg(dir)).unwrap_or(false);
    if is_mountpoint(dir) && !retry(20, Duration::from_millis(100), || quiet(&[]) || !is_mountpoint(dir)) {
        eprintln!("emu cleanup: {} busy, lazy unmount", dir.display());
        run_quiet(Command::new("umount").arg("-l").arg(dir));
    }
}

pub(super) fn remove_dir(dir: &Path) {
    if let Err(e) = fs::remove_dir(dir)
        && e.kind() != io::ErrorKind::NotFound
    {
        eprintln!("emu cleanup: rmdir {}: {e}", dir.display());
    }
}

impl Drop for FaultDev {
    fn drop(&mut self) {
        if let Some(dev) = self.loop_dev.take() {
            let name = self.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            detach_loop_if_backed_by(&dev, &name);
        }
        unmount(&self.dir);
        // Unmounted (and the loop device gone), libfuse's loop ends and the server exits.
        if let Some(mut c) = self.child.take() {
            let deadline = Instant::now() + EXIT_TIMEOUT;
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                    _ => {
                        eprintln!("emu cleanup: faultfs server {} did not exit, killing it", c.id());
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        remove_dir(&self.dir);
    }
}

/// A name (mount directory or file) of a FUSE device of kind `kind` (`faultfs`,
/// `cachefs`) whose owner process is gone.
fn is_stale_fuse(name: &str, kind: &str) -> bool {
    let base = name.strip_suffix(".img").unwrap_or(name);
    if !base.ends_with(&format!("-{kind}")) {
        return false;
    }
    let owner = base
        .strip_prefix(PREFIX)
        .and_then(|s| s.strip_prefix('-'))
        .and_then(|s| s.split('-').next())
        .and_then(|p| p.parse::<u32>().ok());
    match owner {
        Some(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
        None => false,
    }
}

fn base_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// Remove what faultdevs of dead test processes left behind: loop devices over their
/// files (found by the file's name, which survives a lazy unmount), their mounts and
/// directories, and their servers. Serialized with the other sweepers by the same
/// exclusive flock on /dev/shm. Runs once per process before its first `FaultDev`.
pub fn sweep_stale_faultdevs() {
    sweep_stale_fuse_devs(KIND, "faultfs.py");
}

/// [`sweep_stale_faultdevs`] for the FUSE devices of kind `kind` served by `script`
/// (faultfs.py's and cachefs.py's, named alike).
pub(super) fn sweep_stale_fuse_devs(kind: &str, script: &str) {
    let Ok(lock) = File::open(SHM_DIR) else { return };
    // SAFETY: flock on a valid fd; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return;
    }
    let stale = |name: &str| is_stale_fuse(name, kind);
    // 1. Loop devices first: they hold the FUSE file, and so the mount.
    for e in fs::read_dir("/sys/block").into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let dev = PathBuf::from(format!("/dev/{n}"));
        if let Some(back) = n.starts_with("loop").then(|| backing_name(&dev)).flatten()
            && stale(&back)
        {
            eprintln!("emu sweep: detaching stale {} ({back})", dev.display());
            detach_loop_if_backed_by(&dev, &back);
        }
    }
    // 2. Their mounts and directories.
    for m in mount_points() {
        if stale(&m.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()) {
            eprintln!("emu sweep: unmounting stale {}", m.display());
            run_quiet(Command::new("umount").arg("-l").arg(&m));
        }
    }
    for e in fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten() {
        if stale(&e.file_name().to_string_lossy()) && !is_mountpoint(&e.path()) {
            let _ = fs::remove_dir(e.path());
        }
    }
    // 3. Servers still running for a dead owner (normally they clean up and exit by
    //    themselves; one that did not is stuck): `python3 <script> <stale dir> ...`.
    let suffix = format!("/{script}");
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|&b| b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if args.len() > 2 && args[1].ends_with(&suffix) && stale(base_name(args[2].trim_end_matches('/'))) {
            eprintln!("emu sweep: killing stale {kind} server {pid} ({})", args[2]);
            // SAFETY: kill(2) with a pid read from /proc; no memory is involved.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    drop(lock);
}
