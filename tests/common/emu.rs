//! Emulated block devices with known limits: the ground truth for accuracy tests.
//!
//! Pieces (each one is an RAII guard; drop order undoes creation order):
//!
//! * [`LoopDev`]   – a loop device over a file in `/dev/shm`.
//! * [`Zram`]      – a zram device of our own (`hot_add`/`hot_remove`; zram0 is never touched).
//! * [`Cgroup`]    – a blkio (cgroup v1) group with `blkio.throttle.*_device` limits, and a
//!   `Command` builder whose child joins the group before `exec`.
//! * [`Ext4Mount`] – ext4 (lazy init off) on its own loop device, mounted on a fresh directory.
//! * [`Tmpfs`]     – a small tmpfs mounted on a fresh directory.
//!
//! Cleanup guarantees:
//!
//! * Every guard undoes its work in `Drop`, which also runs while a failing test unwinds.
//!   `Drop` never panics (a panic while unwinding would abort and leak everything else);
//!   problems are reported on stderr instead.
//! * Composite guards own their parts (`Ext4Mount` owns its `LoopDev`; `LoopDev` owns its
//!   backing file), so the parts go away in reverse order no matter how the caller
//!   declares its variables. Independent guards in a test are dropped in reverse
//!   declaration order by Rust; declare the device before the cgroup that limits it.
//! * Names are unique per process, per guard and per test:
//!   `iolab-test-<pid>-<counter>-<test name>-<kind>`. Tests may run as threads of one
//!   binary (cargo test) or as separate processes (nextest).
//! * A process killed before its guards run (timeout, SIGKILL) leaves its resources
//!   behind. The first guard created by any later test process sweeps up leftovers whose
//!   owner pid no longer exists (mounts, cgroups, loop devices, zram devices, files), under
//!   an exclusive `flock` so two sweepers never race each other.

use std::ffi::{CString, OsStr};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Every resource the harness creates carries this prefix.
pub const PREFIX: &str = "iolab-test";
const SHM_DIR: &str = "/dev/shm";
const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";
const ZRAM_CONTROL: &str = "/sys/class/zram-control";

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------
// Root check, names, command helpers
// ---------------------------------------------------------------------------

/// True when the tests can run. Not root: print a skip notice and return false,
/// except under `CI=true`, where skipping is not allowed and this panics.
pub fn require_root() -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    let ci = std::env::var("CI")
        .map(|v| v.eq_ignore_ascii_case("true") || v == "1")
        .unwrap_or(false);
    if ci {
        panic!(
            "CI=true but not running as root: the emulated-device tests need root \
             (loop devices, cgroups) and must not be skipped under CI"
        );
    }
    eprintln!("skipping: needs root (loop devices, cgroups)");
    false
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Name of the running test: libtest names each test's thread after the test.
pub fn current_test_name() -> String {
    let name = thread::current().name().unwrap_or("unnamed").to_string();
    let last = name.rsplit("::").next().unwrap_or("unnamed").to_string();
    if last == "main" { "unnamed".to_string() } else { last }
}

/// `iolab-test-<pid>-<counter>-<test name>-<kind>`, safe for file, cgroup and mount names.
pub fn unique_name(kind: &str) -> String {
    sweep_stale_once();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let clean = |s: &str, max: usize| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .take(max)
            .collect()
    };
    format!(
        "{PREFIX}-{}-{n}-{}-{}",
        std::process::id(),
        clean(&current_test_name(), 60),
        clean(kind, 16)
    )
}

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Run a setup command; panic with its output if it fails. Returns trimmed stdout.
pub fn run_checked(cmd: &mut Command) -> String {
    let what = describe(cmd);
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{what}`: {e}"));
    if !out.status.success() {
        panic!(
            "`{what}` failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Run a cleanup command without panicking; returns whether it succeeded.
fn run_quiet(cmd: &mut Command) -> bool {
    match cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!(
                "emu cleanup: `{}` failed: {}",
                describe(cmd),
                String::from_utf8_lossy(&o.stderr).trim()
            );
            false
        }
        Err(e) => {
            eprintln!("emu cleanup: cannot run `{}`: {e}", describe(cmd));
            false
        }
    }
}

/// Retry `f` until it returns true or `tries` attempts passed, sleeping `pause` in between.
fn retry(tries: u32, pause: Duration, mut f: impl FnMut() -> bool) -> bool {
    for i in 0..tries {
        if f() {
            return true;
        }
        if i + 1 < tries {
            thread::sleep(pause);
        }
    }
    false
}

/// Spawn `cmd` with piped stdout/stderr and wait at most `timeout`. On timeout the child
/// is killed and this panics with whatever it printed. Never leaves a child behind.
pub fn output_with_timeout(cmd: &mut Command, timeout: Duration) -> Output {
    let what = describe(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn `{what}`: {e}"));
    let mut so = child.stdout.take().expect("stdout pipe");
    let mut se = child.stderr.take().expect("stderr pipe");
    let t_out = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + timeout;
    let status: ExitStatus = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("waiting for `{what}` failed: {e}");
            }
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = t_out.join().unwrap_or_default();
            let stderr = t_err.join().unwrap_or_default();
            panic!(
                "`{what}` did not finish within {timeout:?}; killed.\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
    }
}

fn write_sysfs(path: impl AsRef<Path>, value: &str) -> io::Result<()> {
    // One write(2) call: sysfs and cgroup files parse each write on its own.
    let mut f = fs::OpenOptions::new().write(true).open(path.as_ref())?;
    f.write_all(value.as_bytes())
}

fn dev_numbers(path: &Path) -> (u32, u32) {
    let md = fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display()));
    assert!(md.file_type().is_block_device(), "{} is not a block device", path.display());
    let rdev = md.rdev();
    // Linux dev_t encoding (glibc gnu_dev_major/minor).
    let major = (((rdev >> 32) & 0xffff_f000) | ((rdev >> 8) & 0x0000_0fff)) as u32;
    let minor = (((rdev >> 12) & 0xffff_ff00) | (rdev & 0x0000_00ff)) as u32;
    (major, minor)
}

/// Anything the blkio throttle can limit.
pub trait BlockDev {
    /// `/dev/...` node.
    fn dev_path(&self) -> &Path;
    /// (major, minor) from the node's `st_rdev`.
    fn dev_numbers(&self) -> (u32, u32);
    /// `MAJ:MIN`, the key of blkio throttle files.
    fn majmin(&self) -> String {
        let (a, b) = self.dev_numbers();
        format!("{a}:{b}")
    }
    /// Kernel name (`loop3`, `zram1`).
    fn kernel_name(&self) -> String {
        self.dev_path().file_name().unwrap().to_string_lossy().into_owned()
    }
}

// ---------------------------------------------------------------------------
// Loop device over /dev/shm
// ---------------------------------------------------------------------------

/// A file in `/dev/shm`, removed on drop.
struct ShmFile(PathBuf);

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
fn fill_pseudo_random(f: &mut File, size: u64) -> io::Result<()> {
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

    fn create(size: u64, prefill: bool) -> LoopDev {
        assert!(size > 0 && size.is_multiple_of(4096), "loop size must be a multiple of 4 KiB");
        let backing = ShmFile(Path::new(SHM_DIR).join(format!("{}.img", unique_name("loop"))));
        {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&backing.0)
                .unwrap_or_else(|e| panic!("create {}: {e}", backing.0.display()));
            if prefill {
                fill_pseudo_random(&mut f, size).unwrap_or_else(|e| panic!("fill {}: {e}", backing.0.display()));
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
            Command::new("losetup")
                .arg("-d")
                .arg(&path)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        }) {
            run_quiet(Command::new("losetup").arg("-d").arg(&path));
        }
        // `backing` (the /dev/shm file) is removed when the field drops, after this.
    }
}

// ---------------------------------------------------------------------------
// zram
// ---------------------------------------------------------------------------

/// A zram device of our own. Drop: `reset`, then `hot_remove`.
/// A marker file in /dev/shm records the index so a crashed run's device can be swept.
pub struct Zram {
    index: u32,
    path: PathBuf,
    major: u32,
    minor: u32,
    size: u64,
    marker: PathBuf,
}

impl Zram {
    pub fn new(size: u64) -> Zram {
        assert!(
            Path::new(ZRAM_CONTROL).join("hot_add").exists(),
            "zram-control not available (modprobe zram?)"
        );
        let marker = Path::new(SHM_DIR).join(format!("{}.zram", unique_name("zram")));
        let idx_s =
            fs::read_to_string(Path::new(ZRAM_CONTROL).join("hot_add")).unwrap_or_else(|e| panic!("read {ZRAM_CONTROL}/hot_add: {e}"));
        let index: u32 = idx_s.trim().parse().unwrap_or_else(|e| panic!("hot_add returned {idx_s:?}: {e}"));
        assert_ne!(index, 0, "hot_add returned zram0, which is not ours");
        let mut z = Zram {
            index,
            path: PathBuf::from(format!("/dev/zram{index}")),
            major: 0,
            minor: 0,
            size,
            marker,
        };
        let _ = fs::write(&z.marker, format!("{index}\n"));
        write_sysfs(format!("/sys/block/zram{index}/disksize"), &size.to_string())
            .unwrap_or_else(|e| panic!("set zram{index} disksize: {e}"));
        if !retry(50, Duration::from_millis(20), || z.path.exists()) {
            panic!("{} did not appear", z.path.display());
        }
        (z.major, z.minor) = dev_numbers(&z.path);
        z
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

impl BlockDev for Zram {
    fn dev_path(&self) -> &Path {
        &self.path
    }
    fn dev_numbers(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

fn zram_remove(index: u32) -> bool {
    let reset = format!("/sys/block/zram{index}/reset");
    let ok_reset = retry(50, Duration::from_millis(100), || write_sysfs(&reset, "1").is_ok());
    if !ok_reset {
        eprintln!("emu cleanup: could not reset zram{index} (busy?)");
    }
    let hr = Path::new(ZRAM_CONTROL).join("hot_remove");
    let ok = retry(50, Duration::from_millis(100), || write_sysfs(&hr, &index.to_string()).is_ok());
    if !ok {
        eprintln!("emu cleanup: could not hot_remove zram{index}");
    }
    ok
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Marker first: if we die halfway, the device leaks, but a sweeper never resets
        // an index that hot_add may already have handed to someone else.
        let _ = fs::remove_file(&self.marker);
        zram_remove(self.index);
    }
}

// ---------------------------------------------------------------------------
// blkio cgroup (v1) with throttle limits
// ---------------------------------------------------------------------------

/// One blkio throttle rule.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    ReadBps(u64),
    WriteBps(u64),
    ReadIops(u64),
    WriteIops(u64),
}

impl Limit {
    fn file(self) -> (&'static str, u64) {
        match self {
            Limit::ReadBps(v) => ("blkio.throttle.read_bps_device", v),
            Limit::WriteBps(v) => ("blkio.throttle.write_bps_device", v),
            Limit::ReadIops(v) => ("blkio.throttle.read_iops_device", v),
            Limit::WriteIops(v) => ("blkio.throttle.write_iops_device", v),
        }
    }
}

/// What the throttle layer saw for one device in this cgroup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoCount {
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub read_ios: u64,
    pub write_ios: u64,
}

/// A blkio cgroup at `/sys/fs/cgroup/blkio/<unique name>/`.
/// Drop: move leftover tasks to the root group, then `rmdir`.
pub struct Cgroup {
    path: PathBuf,
}

impl Cgroup {
    pub fn new() -> Cgroup {
        assert!(
            Path::new(BLKIO_ROOT).join("tasks").exists(),
            "{BLKIO_ROOT} is not a mounted cgroup v1 blkio hierarchy"
        );
        let path = Path::new(BLKIO_ROOT).join(unique_name("cg"));
        fs::create_dir(&path).unwrap_or_else(|e| panic!("mkdir {}: {e}", path.display()));
        Cgroup { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn name(&self) -> String {
        self.path.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Set one throttle rule for `dev` (`MAJ:MIN VALUE`) and check the kernel took it.
    pub fn limit(&self, dev: &dyn BlockDev, limit: Limit) -> &Self {
        let (file, value) = limit.file();
        let line = format!("{} {value}", dev.majmin());
        write_sysfs(self.path.join(file), &line).unwrap_or_else(|e| panic!("write {line:?} to {}/{file}: {e}", self.path.display()));
        let now = fs::read_to_string(self.path.join(file)).unwrap_or_default();
        assert!(
            now.lines().any(|l| l.trim() == line),
            "{file} does not show {line:?} after writing it: {now:?}"
        );
        self
    }

    /// A `Command` whose child moves itself into this cgroup between fork and exec.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let procs = CString::new(self.path.join("cgroup.procs").as_os_str().as_bytes()).expect("cgroup path contains NUL");
        let mut cmd = Command::new(program);
        // SAFETY: the closure only calls async-signal-safe functions (open/write/close)
        // and does not allocate; `procs` was built before the fork.
        unsafe {
            cmd.pre_exec(move || join_cgroup(&procs));
        }
        cmd
    }

    /// Counters of the throttle layer for `dev` in this cgroup (bytes and I/Os that went
    /// through the limits). Proof that a child really ran inside the group.
    pub fn io_count(&self, dev: &dyn BlockDev) -> IoCount {
        let key = dev.majmin();
        let parse = |file: &str| -> (u64, u64) {
            let text = fs::read_to_string(self.path.join(file)).unwrap_or_default();
            let (mut r, mut w) = (0, 0);
            for l in text.lines() {
                let mut it = l.split_whitespace();
                if it.next() != Some(key.as_str()) {
                    continue;
                }
                match (it.next(), it.next().and_then(|v| v.parse::<u64>().ok())) {
                    (Some("Read"), Some(v)) => r = v,
                    (Some("Write"), Some(v)) => w = v,
                    _ => {}
                }
            }
            (r, w)
        };
        let (read_bytes, write_bytes) = parse("blkio.throttle.io_service_bytes");
        let (read_ios, write_ios) = parse("blkio.throttle.io_serviced");
        IoCount {
            read_bytes,
            write_bytes,
            read_ios,
            write_ios,
        }
    }

    /// Pids currently in the group.
    pub fn procs(&self) -> Vec<u32> {
        fs::read_to_string(self.path.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }
}

/// Runs in the forked child: write "0" (= the writing process) to `cgroup.procs`.
fn join_cgroup(procs: &CString) -> io::Result<()> {
    // SAFETY: plain syscalls on a valid NUL-terminated path and a static buffer.
    unsafe {
        let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, b"0".as_ptr().cast(), 1);
        let err = io::Error::last_os_error();
        libc::close(fd);
        if n != 1 {
            return Err(err);
        }
    }
    Ok(())
}

fn remove_cgroup(path: &Path) -> bool {
    let root_tasks = Path::new(BLKIO_ROOT).join("tasks");
    retry(50, Duration::from_millis(100), || {
        // Move every leftover thread out, then try to remove the (now empty) group.
        if let Ok(tasks) = fs::read_to_string(path.join("tasks")) {
            for t in tasks.split_whitespace() {
                let _ = write_sysfs(&root_tasks, t);
            }
        }
        match fs::remove_dir(path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(_) => false,
        }
    })
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        if !remove_cgroup(&self.path) {
            eprintln!("emu cleanup: could not rmdir {}", self.path.display());
        }
    }
}

// ---------------------------------------------------------------------------
// Mounts: ext4 on a loop device, tmpfs
// ---------------------------------------------------------------------------

fn make_mount_dir(kind: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(unique_name(kind));
    fs::create_dir(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    dir
}

/// Unmount (retry while busy, lazy as a last resort) and remove the directory.
fn unmount_and_remove(dir: &Path) {
    let quiet = |args: &[&str]| {
        Command::new("umount")
            .args(args)
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
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
fn mount_points() -> Vec<PathBuf> {
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

fn is_mountpoint(dir: &Path) -> bool {
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

// ---------------------------------------------------------------------------
// Sweeping leftovers of killed test processes
// ---------------------------------------------------------------------------

/// Owner pid encoded in a harness name (`iolab-test-<pid>-...`).
fn owner_pid(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.strip_prefix('-')?.split('-').next()?.parse().ok()
}

/// A harness name whose owner process is gone.
fn is_stale(name: &str) -> bool {
    match owner_pid(name) {
        Some(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
        None => false,
    }
}

fn file_name_of(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

static SWEEP: Once = Once::new();

fn sweep_stale_once() {
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
