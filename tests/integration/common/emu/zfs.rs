//! A live ZFS: zfs-fuse pools over throttled loop devices, so every member has a known
//! read and write limit. [`ZfsLab`] is the guard of the daemon and of its throttle group;
//! [`Pool`] (made by [`ZfsLab::pool`]) is the guard of one pool and its members.
//!
//! ```ignore
//! let lab = ZfsLab::start();
//! let pool = lab.pool(Layout::Mirror(3), Disk::new(128 * MIB).read_bps(20 * MIB)).create();
//! let data = pool.dataset("data", &[("recordsize", "128K"), ("primarycache", "metadata")]);
//! // ... write under data.mountpoint(), pool.export(), pool.import(), measure ...
//! let seen = lab.cgroup().io_count(&pool.members()[0]);
//! ```
//!
//! # The daemon
//!
//! zfs-fuse serves every pool of the machine from one process (its socket is
//! `/var/run/zfs/zfs_socket`; it holds a POSIX lock on [`DAEMON_LOCK`] while it runs,
//! which is how the lab finds it). [`ZfsLab::start`] uses a daemon that already runs, and
//! otherwise starts one with [`DAEMON_ARGS`]:
//!
//! * `-n`: in the foreground, as the lab's child (its pid is the daemon's);
//! * `--disable-block-cache`: members are opened `O_DIRECT`, so every read of a member
//!   reaches the member (and its throttle) instead of the kernel's cache of the device,
//!   and every write reaches it from the daemon's own threads, not (in part) from the
//!   kernel's writeback threads, which the cgroup v1 throttle does not charge to the
//!   daemon's group. Every pool checks that the
//!   daemon holds each of its members `O_DIRECT`, so a daemon started without it (by
//!   someone else) fails the pool's creation instead of yielding wrong figures;
//! * `--max-arc-size 64`: the ARC's maximum is 64 MiB (`/zfs-kstat/zfs/arcstats/c_max`
//!   reads 67108864), so a span well past it stays small;
//! * `--vdev-cache-size 0`: no vdev cache, which would turn reads of 16 KiB or less into
//!   64 KiB reads of the member;
//! * `--zfs-prefetch-disable`: no read-ahead of ZFS's own; a member reads what ZFS needs.
//!
//! The daemon also reads `/etc/zfs/zfsrc` (Debian's sets the same prefetch option, a
//! 100 MiB ARC and a 10 MiB vdev cache, which the arguments override, and FUSE attribute
//! and entry timeouts of an hour). A daemon the lab did not start keeps its own options:
//! read the ARC's maximum with [`ZfsLab::arcstat`] rather than assuming 64 MiB.
//!
//! It answers `zpool list` 60-140 ms after it starts. Asked to stop with SIGTERM it
//! sleeps about 3.5 s in its shutdown (threads that wake once a second; with a file
//! open on a pool it had not stopped after 30 s), so the lab stops a daemon of its own
//! with SIGKILL, once its pools are destroyed (nothing is left to write): immediate, and
//! nothing of the daemon's survives except its kstat mount, which the lab then unmounts.
//! A daemon the lab started but that serves a pool of someone else's by then is left
//! running.
//!
//! Its kstats appear at `/zfs-kstat` (a FUSE mount of the daemon's, one file per stat:
//! `/zfs-kstat/zfs/arcstats/size`) once the first pool is created or imported.
//!
//! # The throttle
//!
//! The daemon issues the members' I/O, so the lab makes a blkio cgroup of its own and
//! moves the daemon (all its threads: `cgroup.procs`) into it; each member's limits are
//! rules of that group. On drop the daemon goes back to the cgroup it was in. Counters
//! of the group ([`Cgroup::io_count`]) are per device and outlive a pool (a later pool
//! may get the same loop device): use differences. The kernel's 1 MiB artefact of the
//! throttle (exactly-1 MiB `O_DIRECT` reads pass at half the limit) applies to the
//! members' I/O as to any other; ZFS's I/Os are at most a record (128 KiB).
//!
//! # Serialised, and clean
//!
//! There is one daemon and a daemon is in one cgroup at a time, so labs take turns: the
//! lab holds an exclusive `flock` on [`LOCK_FILE`] for its lifetime (threads of one test
//! binary and separate processes alike). Everything is undone in `Drop`, which also runs
//! while a failing test unwinds: pools destroyed, members detached and their files
//! removed, the daemon moved back, the cgroup removed, and a daemon the lab started
//! stopped and its `/zfs-kstat` mount (and directory, when it made it) removed.
//!
//! A test process that is killed leaves all that behind. The lab records the daemon it
//! starts in [`DAEMON_RECORD`] (its pid, start time and the owner's pid); at the start of
//! every lab, and in the stale-resource sweep of any test process when no lab is running,
//! pools whose names carry a dead owner's pid are destroyed, and a daemon a dead test
//! process started is stopped. (The rest — loop devices, backing files, cgroups, mount
//! directories — is the ordinary sweep's.)
//!
//! # Names
//!
//! Pools are named like every resource of the harness,
//! `iolab-test-<pid>-<counter>-<test>-zpool`, created with `-o cachefile=none` (the
//! daemon does not remember them: a pool that is not destroyed does not come back
//! FAULTED at the next start) and mounted under the temporary directory, at
//! `iolab-test-<pid>-<counter>-<test>-zfs`. `zpool status` shows members as `loopN`, after
//! an import too ([`Pool::import`] scans `/dev`, as a plain `zpool import` does).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::BLKIO_ROOT;
use super::blockdev::{BlockDev, write_sysfs};
use super::cgroup::{Cgroup, Limit};
use super::loopdev::LoopDev;
use super::mounts::{is_mountpoint, mount_points};
use super::names::unique_name;
use super::sweep::{is_stale, sweep_stale};
use super::{MIB, PREFIX};

/// How the lab starts a daemon when none runs (see the module's documentation).
pub const DAEMON_ARGS: &[&str] = &[
    "-n",
    "--disable-block-cache",
    "--max-arc-size",
    "64",
    "--vdev-cache-size",
    "0",
    "--zfs-prefetch-disable",
];

/// The file a running zfs-fuse holds a POSIX write lock on (one daemon per machine).
pub const DAEMON_LOCK: &str = "/var/lock/zfs/zfs_lock";
/// Where zfs-fuse mounts its kstats.
pub const KSTAT_DIR: &str = "/zfs-kstat";
/// The harness's own state: the lock labs take turns on, the record of the daemon a
/// lab started, and that daemon's output.
pub const RUN_DIR: &str = "/run/iolab-test-zfs";
pub const LOCK_FILE: &str = "/run/iolab-test-zfs/lock";
pub const DAEMON_RECORD: &str = "/run/iolab-test-zfs/daemon";
const DAEMON_LOG: &str = "/run/iolab-test-zfs/daemon.log";

/// zfs-fuse refuses members under 64 MiB.
const MIN_MEMBER: u64 = 64 * MIB;
/// How long any one zpool/zfs command may take before the lab gives up on it.
const CMD_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a lab waits for another lab (of this or another process) to finish.
const LOCK_WAIT: Duration = Duration::from_secs(600);

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/// Runs `program args`, killed after `timeout`; never panics. Ok(stdout) on success,
/// Err(what failed, with stderr) otherwise.
fn run(program: &str, args: &[&OsStr], timeout: Duration) -> Result<String, String> {
    let what = std::iter::once(program.to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{what}`: {e}"))?;
    let (mut so, mut se) = (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
    let t_out = thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let t_err = thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("`{what}` did not finish within {timeout:?}; killed"));
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("waiting for `{what}`: {e}"));
            }
        }
    };
    let (out, err) = (t_out.join().unwrap_or_default(), t_err.join().unwrap_or_default());
    match status {
        Ok(s) if s.success() => Ok(out),
        Ok(s) => Err(format!("`{what}` failed ({s}): {}", err.trim())),
        Err(e) => Err(e),
    }
}

fn os<S: AsRef<OsStr> + ?Sized>(s: &S) -> &OsStr {
    s.as_ref()
}

/// `zpool ARGS`, Ok(stdout) or Err(message).
fn zpool(args: &[&OsStr]) -> Result<String, String> {
    run("zpool", args, CMD_TIMEOUT)
}

/// `zfs ARGS`, Ok(stdout) or Err(message).
fn zfs(args: &[&OsStr]) -> Result<String, String> {
    run("zfs", args, CMD_TIMEOUT)
}

/// Retries `f` every 250 ms until it succeeds or `within` has passed; the last result.
fn retrying<T>(within: Duration, mut f: impl FnMut() -> Result<T, String>) -> Result<T, String> {
    let deadline = Instant::now() + within;
    loop {
        match f() {
            Ok(v) => return Ok(v),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => thread::sleep(Duration::from_millis(250)),
        }
    }
}

/// Names of the imported pools; empty when no daemon answers.
pub fn imported_pools() -> Vec<String> {
    zpool(&[os("list"), os("-H"), os("-o"), os("name")])
        .map(|s| s.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect())
        .unwrap_or_default()
}

/// `zpool destroy -f NAME`, retried for a few seconds: straight after an import zfs-fuse
/// may answer "pool is busy" for a moment (and for as long as a file is open on the pool:
/// `-f` does not help then).
fn destroy_pool(name: &str) -> Result<(), String> {
    retrying(Duration::from_secs(5), || zpool(&[os("destroy"), os("-f"), os(name)]).map(drop))
}

// ---------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------

/// The pid holding zfs-fuse's lock: the running daemon (of this mount namespace), if any.
pub fn running_daemon() -> Option<u32> {
    let f = File::open(DAEMON_LOCK).ok()?;
    // SAFETY: a zeroed `flock` is a valid value; F_GETLK fills it in.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl F_GETLK on a valid fd with a valid struct.
    if unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETLK, &mut fl) } != 0 {
        return None;
    }
    (fl.l_type != libc::F_UNLCK as libc::c_short && fl.l_pid > 0).then_some(fl.l_pid as u32)
}

/// The start time of `pid` (field 22 of `/proc/PID/stat`), to tell it from a later
/// process with a reused pid; None when it is gone or a zombie.
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // After the state come fields 4..; the start time is field 22.
    rest.nth(22 - 4)?.parse().ok()
}

/// Whether `pid` runs (a zombie does not). A process whose leader is a zombie may
/// still have threads running: [`Pidfd::wait_exited`] waits for the last.
pub fn process_alive(pid: u32) -> bool {
    start_time(pid).is_some()
}

/// A process named by a pidfd: a signal sent through it reaches that process and never
/// a later one with the same pid, and it polls readable once every thread has exited.
pub struct Pidfd(std::os::fd::OwnedFd);

impl Pidfd {
    /// None when `pid` is gone (reaped) or the kernel has no pidfds.
    pub fn open(pid: u32) -> Option<Pidfd> {
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).ok()?)?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
            .ok()
            .map(Pidfd)
    }

    /// SIGKILL; an error (the process already gone) is no error here.
    pub fn kill(&self) {
        let _ = rustix::process::pidfd_send_signal(&self.0, rustix::process::Signal::KILL);
    }

    /// Waits until every thread of the process has exited (reaped or not), for at most
    /// `within`; whether it has.
    pub fn wait_exited(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            let mut pfd = libc::pollfd {
                fd: self.0.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = i32::try_from(left.as_millis()).unwrap_or(i32::MAX);
            // SAFETY: poll(2) on one valid pollfd.
            match unsafe { libc::poll(&mut pfd, 1, ms) } {
                n if n > 0 => return true,
                0 => return false,
                _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
                _ => return false,
            }
        }
    }
}

/// The blkio cgroup of `pid`, as a path under the hierarchy ("/" for the root).
fn blkio_cgroup_of(pid: u32) -> Option<String> {
    fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?.lines().find_map(|l| {
        let mut it = l.splitn(3, ':');
        let (_, ctrl, path) = (it.next()?, it.next()?, it.next()?);
        ctrl.split(',').any(|c| c == "blkio").then(|| path.to_string())
    })
}

/// Moves `pid` (all its threads) into the blkio cgroup at `path` (under the hierarchy).
fn move_to_cgroup(pid: u32, path: &str) -> io::Result<()> {
    let dir = Path::new(BLKIO_ROOT).join(path.trim_start_matches('/'));
    write_sysfs(dir.join("cgroup.procs"), &pid.to_string())
}

/// Whether the daemon `pid` holds `dev` open, and every time with `O_DIRECT`.
fn holds_direct(pid: u32, dev: &Path) -> Result<(), String> {
    let mut found = 0;
    let dir = format!("/proc/{pid}/fd");
    for e in fs::read_dir(&dir).map_err(|e| format!("{dir}: {e}"))?.flatten() {
        if fs::read_link(e.path()).ok().as_deref() != Some(dev) {
            continue;
        }
        let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", e.file_name().to_string_lossy())).unwrap_or_default();
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            .unwrap_or(0);
        if flags & libc::O_DIRECT as u32 == 0 {
            return Err(format!(
                "the zfs-fuse daemon (pid {pid}) holds {} without O_DIRECT (flags {flags:o}): it reads \
                 members through the kernel's cache, so their limits would not hold; stop it, or \
                 start it with --disable-block-cache",
                dev.display()
            ));
        }
        found += 1;
    }
    if found == 0 {
        return Err(format!("the zfs-fuse daemon (pid {pid}) does not hold {} open", dev.display()));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The kstat mount
// ---------------------------------------------------------------------------

/// A FUSE mount at /zfs-kstat whose daemon is gone answers ENOTCONN.
pub fn kstat_mount_is_dead() -> bool {
    matches!(fs::metadata(KSTAT_DIR), Err(e) if e.raw_os_error() == Some(libc::ENOTCONN))
}

/// After a daemon of ours is gone: unmount what is left of its kstat mount (a dead FUSE
/// mount; a live one is another daemon's and stays), and remove the directory when the
/// daemon made it.
fn clean_kstat(made_dir: bool) {
    for _ in 0..4 {
        if !kstat_mount_is_dead() {
            break;
        }
        let ok = run("umount", &[os(KSTAT_DIR)], CMD_TIMEOUT).is_ok();
        if !ok && let Err(e) = run("umount", &[os("-l"), os(KSTAT_DIR)], CMD_TIMEOUT) {
            eprintln!("zfs cleanup: {e}");
        }
    }
    if made_dir
        && !is_mountpoint(Path::new(KSTAT_DIR))
        && let Err(e) = fs::remove_dir(KSTAT_DIR)
        && e.kind() != io::ErrorKind::NotFound
    {
        eprintln!("zfs cleanup: rmdir {KSTAT_DIR}: {e}");
    }
}

// ---------------------------------------------------------------------------
// The record of a daemon a lab started
// ---------------------------------------------------------------------------

/// What [`DAEMON_RECORD`] says: a daemon a lab started, so that a later sweep can stop
/// it when that lab's process was killed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    pid: u32,
    start_time: u64,
    owner: u32,
    made_kstat_dir: bool,
}

impl Record {
    fn write(&self) {
        let text = format!(
            "pid={}\nstart_time={}\nowner={}\nmade_kstat_dir={}\n",
            self.pid, self.start_time, self.owner, self.made_kstat_dir as u8
        );
        let tmp = format!("{DAEMON_RECORD}.tmp");
        fs::write(&tmp, text)
            .and_then(|()| fs::rename(&tmp, DAEMON_RECORD))
            .unwrap_or_else(|e| panic!("write {DAEMON_RECORD}: {e}"));
    }

    fn read() -> Option<Record> {
        let text = fs::read_to_string(DAEMON_RECORD).ok()?;
        let get = |k: &str| -> Option<u64> {
            text.lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
                .and_then(|v| v.trim().parse().ok())
        };
        Some(Record {
            pid: get("pid")? as u32,
            start_time: get("start_time")?,
            owner: get("owner")? as u32,
            made_kstat_dir: get("made_kstat_dir")? != 0,
        })
    }

    /// Removes the record if it is still this one.
    fn remove(&self) {
        if Record::read().as_ref() == Some(self) {
            let _ = fs::remove_file(DAEMON_RECORD);
        }
    }
}

// ---------------------------------------------------------------------------
// The lock and the sweep
// ---------------------------------------------------------------------------

fn open_lock() -> io::Result<File> {
    fs::create_dir_all(RUN_DIR)?;
    fs::OpenOptions::new().create(true).truncate(false).write(true).open(LOCK_FILE)
}

fn try_flock(f: &File) -> bool {
    // SAFETY: flock on a valid fd.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Takes the labs' lock, waiting for the lab holding it.
fn take_lock() -> File {
    let f = open_lock().unwrap_or_else(|e| panic!("open {LOCK_FILE}: {e}"));
    let t0 = Instant::now();
    let mut said = false;
    while !try_flock(&f) {
        if !said {
            eprintln!("zfs lab: waiting for another lab to finish ({LOCK_FILE})");
            said = true;
        }
        assert!(t0.elapsed() < LOCK_WAIT, "no turn at {LOCK_FILE} within {LOCK_WAIT:?}");
        thread::sleep(Duration::from_millis(50));
    }
    f
}

/// The sweep's part for ZFS, when no lab runs (called by `sweep_stale`): destroys pools
/// of dead test processes and stops a daemon a dead test process started.
pub(super) fn sweep_stale_zfs() {
    if running_daemon().is_none() && !Path::new(DAEMON_RECORD).exists() {
        return;
    }
    let Ok(lock) = open_lock() else { return };
    if try_flock(&lock) {
        sweep_locked();
    }
}

/// The ZFS sweep proper; the caller holds the labs' lock.
fn sweep_locked() {
    let daemon = running_daemon();
    if let Some(pid) = daemon {
        for name in imported_pools().into_iter().filter(|n| is_stale(n)) {
            eprintln!("zfs sweep: destroying stale pool {name}");
            if let Err(e) = destroy_pool(&name) {
                eprintln!("zfs sweep: {e}");
            }
        }
        // A daemon left in the cgroup of a dead lab goes back to the root group (where
        // it was before, unless someone else had moved it).
        if let Some(cg) = blkio_cgroup_of(pid)
            && is_stale(cg.rsplit('/').next().unwrap_or_default())
        {
            eprintln!("zfs sweep: moving zfs-fuse (pid {pid}) out of stale cgroup {cg}");
            if let Err(e) = move_to_cgroup(pid, "/") {
                eprintln!("zfs sweep: {e}");
            }
        }
    }
    let Some(rec) = Record::read() else { return };
    if rec.owner == std::process::id() || process_alive(rec.owner) {
        return;
    }
    if daemon == Some(rec.pid) && start_time(rec.pid) == Some(rec.start_time) {
        let left = imported_pools();
        if !left.is_empty() {
            eprintln!(
                "zfs sweep: the daemon (pid {}) of dead test process {} still serves {left:?}: left running",
                rec.pid, rec.owner
            );
            return;
        }
        eprintln!("zfs sweep: stopping zfs-fuse (pid {}) of dead test process {}", rec.pid, rec.owner);
        // Through a pidfd opened before the start time is checked again: the signal
        // cannot reach a later process that reused the pid.
        if let Some(pidfd) = Pidfd::open(rec.pid)
            && start_time(rec.pid) == Some(rec.start_time)
        {
            pidfd.kill();
            // Not `process_alive`: the killed daemon's leader is a zombie at once, while
            // its other threads (one in a throttled member's read, say) may still be
            // exiting, holding /dev/fuse, so its kstat mount still answers and
            // `clean_kstat` would take it for another daemon's and leave it (and the
            // directory it made). Its last thread gone, the mount is dead.
            if !pidfd.wait_exited(Duration::from_secs(10)) {
                eprintln!("zfs sweep: zfs-fuse (pid {}) did not exit", rec.pid);
                return;
            }
        }
    }
    clean_kstat(rec.made_kstat_dir);
    rec.remove();
}

// ---------------------------------------------------------------------------
// The daemon
// ---------------------------------------------------------------------------

/// The zfs-fuse daemon the lab works with; stops it on drop if the lab started it.
struct Daemon {
    pid: u32,
    /// Some when the lab started it.
    child: Option<Child>,
    record: Option<Record>,
    started_in: Duration,
}

impl Daemon {
    /// The running daemon, or a new one with [`DAEMON_ARGS`].
    fn find_or_start() -> Daemon {
        if let Some(pid) = running_daemon() {
            // It may be starting up: wait until it answers.
            retrying(Duration::from_secs(10), || zpool(&[os("list")]).map(drop))
                .unwrap_or_else(|e| panic!("zfs-fuse (pid {pid}) runs but does not answer: {e}"));
            return Daemon {
                pid,
                child: None,
                record: None,
                started_in: Duration::ZERO,
            };
        }
        // A dead kstat mount (of a daemon killed earlier) would keep ours from mounting.
        if kstat_mount_is_dead() {
            eprintln!("zfs lab: unmounting a dead {KSTAT_DIR}");
            clean_kstat(false);
        }
        let made_kstat_dir = !Path::new(KSTAT_DIR).exists();
        let log = File::create(DAEMON_LOG).unwrap_or_else(|e| panic!("create {DAEMON_LOG}: {e}"));
        let t0 = Instant::now();
        // In a process group of its own: zfs-fuse exits on SIGHUP, and a
        // terminal's hang-up or Ctrl-C must reach the tests, not the daemon
        // (the lab stops it itself, also when the tests are interrupted).
        let child = Command::new("zfs-fuse")
            .args(DAEMON_ARGS)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("dup log"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start zfs-fuse: {e}"));
        let pid = child.id();
        let record = Record {
            pid,
            start_time: start_time(pid).unwrap_or(0),
            owner: std::process::id(),
            made_kstat_dir,
        };
        record.write();
        // The guard exists from here on: a panic below stops the daemon.
        let mut d = Daemon {
            pid,
            child: Some(child),
            record: Some(record),
            started_in: Duration::ZERO,
        };
        let deadline = t0 + Duration::from_secs(15);
        loop {
            if let Some(Ok(Some(status))) = d.child.as_mut().map(|c| c.try_wait()) {
                let log = fs::read_to_string(DAEMON_LOG).unwrap_or_default();
                d.child = None;
                panic!("zfs-fuse exited at start-up ({status}); its output:\n{log}");
            }
            if running_daemon() == Some(pid) && zpool(&[os("list")]).is_ok() {
                break;
            }
            assert!(Instant::now() < deadline, "zfs-fuse (pid {pid}) did not answer within 15 s");
            thread::sleep(Duration::from_millis(10));
        }
        d.started_in = t0.elapsed();
        d
    }

    /// Stops a daemon the lab started, with SIGKILL (see the module's documentation),
    /// then unmounts its dead kstat mount and removes its record and log. Only this
    /// process's pools may still be imported (a pool whose destroy failed: it goes with
    /// the daemon, its members are being removed anyway); with a pool of someone else's
    /// imported on it the daemon is left running, and its record stays for the sweep.
    fn stop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        let ours = format!("{PREFIX}-{}-", std::process::id());
        let (mine, others): (Vec<String>, Vec<String>) = imported_pools().into_iter().partition(|n| n.starts_with(&ours));
        if !others.is_empty() {
            eprintln!(
                "zfs cleanup: zfs-fuse (pid {}) serves pools that are not ours ({others:?}): left running",
                self.pid
            );
            return;
        }
        if !mine.is_empty() {
            eprintln!("zfs cleanup: stopping zfs-fuse with pools of ours still imported: {mine:?}");
        }
        let _ = child.kill();
        let _ = child.wait();
        if let Some(rec) = self.record.take() {
            clean_kstat(rec.made_kstat_dir);
            rec.remove();
        }
        let _ = fs::remove_file(DAEMON_LOG);
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

// ---------------------------------------------------------------------------
// The lab
// ---------------------------------------------------------------------------

/// A live ZFS for one test: the zfs-fuse daemon (started if none runs), in a blkio
/// cgroup of the lab's own that holds the members' limits. Labs take turns (one at a
/// time on the machine). Pools are made with [`ZfsLab::pool`] and borrow the lab, so
/// they are gone before it. Drop: leftover pools of this process destroyed, the daemon
/// moved back to its cgroup, the cgroup removed, the daemon stopped if the lab started
/// it (see the module's documentation).
pub struct ZfsLab {
    // Field order is drop order: the cgroup (emptied by `drop`) goes before the daemon
    // stops, and the lock is released last.
    cgroup: Cgroup,
    previous_cgroup: String,
    daemon: Daemon,
    _lock: File,
}

impl ZfsLab {
    /// Takes the labs' lock, sweeps up after killed tests, finds or starts the daemon
    /// and moves it into a new cgroup.
    pub fn start() -> ZfsLab {
        let lock = take_lock();
        // Leftovers of killed tests: their pools and daemon first, then (the ordinary
        // sweep, whose ZFS step this lab's lock skips) their loop devices, cgroups and
        // mount directories.
        sweep_locked();
        sweep_stale();
        let daemon = Daemon::find_or_start();
        let previous_cgroup = blkio_cgroup_of(daemon.pid).unwrap_or_else(|| "/".to_string());
        let cgroup = Cgroup::new();
        let lab = ZfsLab {
            cgroup,
            previous_cgroup,
            daemon,
            _lock: lock,
        };
        move_to_cgroup(lab.daemon.pid, &format!("/{}", lab.cgroup.name()))
            .unwrap_or_else(|e| panic!("move zfs-fuse (pid {}) into {}: {e}", lab.daemon.pid, lab.cgroup.name()));
        assert!(
            lab.cgroup.procs().contains(&lab.daemon.pid),
            "zfs-fuse (pid {}) is not in {} after moving it",
            lab.daemon.pid,
            lab.cgroup.name()
        );
        lab
    }

    /// A pool of `layout` whose data members are each `disk`; add a log or a cache
    /// device with the builder's methods, then [`PoolBuilder::create`].
    pub fn pool(&self, layout: Layout, disk: Disk) -> PoolBuilder<'_> {
        PoolBuilder {
            lab: self,
            layout,
            disk,
            log: None,
            cache: None,
        }
    }

    /// The group the daemon is in while the lab lives: the members' limits and counters.
    pub fn cgroup(&self) -> &Cgroup {
        &self.cgroup
    }

    pub fn daemon_pid(&self) -> u32 {
        self.daemon.pid
    }

    /// Whether this lab started the daemon (and will stop it).
    pub fn started_daemon(&self) -> bool {
        self.daemon.child.is_some()
    }

    /// How long the daemon this lab started took to answer (zero when it was running).
    pub fn daemon_start_time(&self) -> Duration {
        self.daemon.started_in
    }

    /// The daemon's command line.
    pub fn daemon_args(&self) -> Vec<String> {
        fs::read(format!("/proc/{}/cmdline", self.daemon.pid))
            .unwrap_or_default()
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect()
    }

    /// One ARC statistic (`/zfs-kstat/zfs/arcstats/NAME`: `size`, `c_max`, `hits`, ...);
    /// None until the daemon has mounted its kstats (at the first pool).
    pub fn arcstat(&self, name: &str) -> Option<u64> {
        fs::read_to_string(Path::new(KSTAT_DIR).join("zfs/arcstats").join(name))
            .ok()
            .and_then(|s| s.trim().parse().ok())
    }
}

impl Drop for ZfsLab {
    fn drop(&mut self) {
        // Pools of this process that outlived their guard (a leaked `Pool`).
        // One try each: a pool whose own drop could not destroy it for seconds is busy
        // (a file still open on it); a daemon of the lab's own takes it along when it
        // stops.
        let ours = format!("{PREFIX}-{}-", std::process::id());
        for name in imported_pools().into_iter().filter(|n| n.starts_with(&ours)) {
            eprintln!("zfs cleanup: destroying leftover pool {name}");
            if let Err(e) = zpool(&[os("destroy"), os("-f"), os(&name)]) {
                eprintln!("zfs cleanup: {e}");
            }
        }
        if process_alive(self.daemon.pid)
            && let Err(e) = move_to_cgroup(self.daemon.pid, &self.previous_cgroup).or_else(|_| move_to_cgroup(self.daemon.pid, "/"))
        {
            eprintln!(
                "zfs cleanup: move zfs-fuse (pid {}) out of {}: {e}",
                self.daemon.pid,
                self.cgroup.name()
            );
        }
        // Then the fields: the cgroup is removed, the daemon stopped if ours, the lock
        // released.
    }
}

// ---------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------

/// How the data members are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One disk.
    Single,
    /// N disks, striped.
    Stripe(usize),
    /// An N-way mirror.
    Mirror(usize),
    /// RAID-Z1 of N disks.
    RaidZ1(usize),
    /// RAID-Z2 of N disks.
    RaidZ2(usize),
}

impl Layout {
    /// How many data members.
    pub fn disks(self) -> usize {
        match self {
            Layout::Single => 1,
            Layout::Stripe(n) | Layout::Mirror(n) | Layout::RaidZ1(n) | Layout::RaidZ2(n) => n,
        }
    }

    /// The `zpool create` keyword of the top-level vdev (none for a single disk or a
    /// stripe); `zpool status` names the vdev `KEYWORD-0`.
    pub fn keyword(self) -> Option<&'static str> {
        match self {
            Layout::Single | Layout::Stripe(_) => None,
            Layout::Mirror(_) => Some("mirror"),
            Layout::RaidZ1(_) => Some("raidz1"),
            Layout::RaidZ2(_) => Some("raidz2"),
        }
    }
}

/// One member's size and limits (bytes/s in the lab's cgroup; None: unthrottled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disk {
    pub size: u64,
    pub read_bps: Option<u64>,
    pub write_bps: Option<u64>,
}

impl Disk {
    /// An unthrottled member of `size` bytes (at least 64 MiB, a multiple of 4 KiB): a
    /// loop device over a sparse file in /dev/shm.
    pub fn new(size: u64) -> Disk {
        Disk {
            size,
            read_bps: None,
            write_bps: None,
        }
    }

    pub fn read_bps(self, bps: u64) -> Disk {
        Disk {
            read_bps: Some(bps),
            ..self
        }
    }

    pub fn write_bps(self, bps: u64) -> Disk {
        Disk {
            write_bps: Some(bps),
            ..self
        }
    }
}

/// What a member is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Data,
    Log,
    Cache,
}

/// A member of a pool: its loop device ([`BlockDev`]: path, kernel name, MAJ:MIN), its
/// role and its limits.
pub struct Member {
    role: Role,
    disk: Disk,
    dev: LoopDev,
}

impl Member {
    pub fn role(&self) -> Role {
        self.role
    }

    pub fn disk(&self) -> Disk {
        self.disk
    }

    pub fn dev(&self) -> &LoopDev {
        &self.dev
    }
}

impl BlockDev for Member {
    fn dev_path(&self) -> &Path {
        self.dev.dev_path()
    }
    fn dev_numbers(&self) -> (u32, u32) {
        self.dev.dev_numbers()
    }
}

/// A pool being described; [`PoolBuilder::create`] makes it.
pub struct PoolBuilder<'lab> {
    lab: &'lab ZfsLab,
    layout: Layout,
    disk: Disk,
    log: Option<Disk>,
    cache: Option<Disk>,
}

impl<'lab> PoolBuilder<'lab> {
    /// A separate intent-log device.
    pub fn log(self, disk: Disk) -> Self {
        PoolBuilder { log: Some(disk), ..self }
    }

    /// A cache (L2ARC) device.
    pub fn cache(self, disk: Disk) -> Self {
        PoolBuilder { cache: Some(disk), ..self }
    }

    /// Makes the members, sets their limits, creates the pool (`cachefile=none`, mounted
    /// under the temporary directory) and checks the daemon holds every member
    /// `O_DIRECT`. Panics on any failure, after undoing what it did.
    pub fn create(self) -> Pool<'lab> {
        let specs = std::iter::repeat_n((Role::Data, self.disk), self.layout.disks())
            .chain(self.log.map(|d| (Role::Log, d)))
            .chain(self.cache.map(|d| (Role::Cache, d)));
        let mut pool = Pool {
            lab: self.lab,
            name: unique_name("zpool"),
            mountpoint: std::env::temp_dir().join(unique_name("zfs")),
            layout: self.layout,
            members: Vec::new(),
        };
        for (role, disk) in specs {
            assert!(
                disk.size >= MIN_MEMBER,
                "a zfs-fuse member needs at least 64 MiB, not {}",
                disk.size
            );
            let member = Member {
                role,
                disk,
                dev: LoopDev::new_sparse(disk.size),
            };
            // In the list first, so that the pool's drop clears its limits.
            pool.members.push(member);
            let m = pool.members.last().unwrap();
            if let Some(bps) = disk.read_bps {
                self.lab.cgroup.limit(m, Limit::ReadBps(bps));
            }
            if let Some(bps) = disk.write_bps {
                self.lab.cgroup.limit(m, Limit::WriteBps(bps));
            }
        }
        let mut args: Vec<&OsStr> = vec![
            os("create"),
            os("-o"),
            os("cachefile=none"),
            os("-m"),
            pool.mountpoint.as_os_str(),
            os(&pool.name),
        ];
        args.extend(self.layout.keyword().map(os));
        let path = |r: Role| pool.members.iter().filter(move |m| m.role == r).map(|m| m.dev_path().as_os_str());
        args.extend(path(Role::Data));
        if self.log.is_some() {
            args.push(os("log"));
            args.extend(path(Role::Log));
        }
        if self.cache.is_some() {
            args.push(os("cache"));
            args.extend(path(Role::Cache));
        }
        zpool(&args).unwrap_or_else(|e| panic!("{e}"));
        pool.check_imported();
        pool
    }
}

/// A child dataset of a pool (destroyed with the pool).
#[derive(Clone, Debug)]
pub struct Dataset {
    name: String,
    mountpoint: PathBuf,
}

impl Dataset {
    /// `POOL/CHILD`.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    /// One property's value (`zfs get -H -o value PROP`).
    pub fn get(&self, prop: &str) -> String {
        zfs(&[os("get"), os("-H"), os("-o"), os("value"), os(prop), os(&self.name)])
            .unwrap_or_else(|e| panic!("{e}"))
            .trim()
            .to_string()
    }
}

/// One line of the configuration in `zpool status`: the vdev's name and its depth (the
/// pool, `logs` and `cache` are at depth 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vdev {
    pub depth: usize,
    pub name: String,
}

impl Vdev {
    pub fn new(depth: usize, name: impl Into<String>) -> Vdev {
        Vdev { depth, name: name.into() }
    }
}

/// An imported pool of the lab. Drop: destroyed (if imported), its members' limits
/// cleared, its members detached and their files removed, its mount directory removed.
/// A file still open on the pool keeps it busy (`zpool destroy -f` fails, for 5 s of
/// retries); a daemon the lab started then takes the pool along when it stops, one that
/// was running keeps it until a later test process's sweep. Close files first.
pub struct Pool<'lab> {
    lab: &'lab ZfsLab,
    name: String,
    mountpoint: PathBuf,
    layout: Layout,
    // Dropped (detached) after `Pool::drop` has destroyed the pool.
    members: Vec<Member>,
}

impl Pool<'_> {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the pool's root dataset is mounted.
    pub fn mountpoint(&self) -> &Path {
        &self.mountpoint
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Every member: the data members in order, then the log, then the cache device.
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// The members of one role.
    pub fn members_of(&self, role: Role) -> impl Iterator<Item = &Member> {
        self.members.iter().filter(move |m| m.role == role)
    }

    /// `zfs create -o K=V ... POOL/CHILD`; mounted under the pool's mount point.
    pub fn dataset(&self, child: &str, props: &[(&str, &str)]) -> Dataset {
        let name = format!("{}/{child}", self.name);
        let opts: Vec<String> = props.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec![os("create")];
        for o in &opts {
            args.extend([os("-o"), os(o)]);
        }
        args.push(os(&name));
        zfs(&args).unwrap_or_else(|e| panic!("{e}"));
        let mut ds = Dataset {
            name,
            mountpoint: PathBuf::new(),
        };
        ds.mountpoint = PathBuf::from(ds.get("mountpoint"));
        assert!(
            is_mountpoint(&ds.mountpoint),
            "{} is not mounted at {}",
            ds.name,
            ds.mountpoint.display()
        );
        ds
    }

    /// `zpool status NAME`.
    pub fn status(&self) -> String {
        zpool(&[os("status"), os(&self.name)]).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The configuration of `zpool status`, one [`Vdev`] a line, the header excluded.
    pub fn vdev_tree(&self) -> Vec<Vdev> {
        parse_status_tree(&self.status())
    }

    /// Whether the daemon has the pool imported.
    pub fn is_imported(&self) -> bool {
        imported_pools().contains(&self.name)
    }

    /// `zpool offline NAME MEMBER`: the pool goes on DEGRADED, and ZFS sends the member
    /// no I/O until it is brought online (the pool is destroyed as it is).
    pub fn offline(&self, m: &Member) {
        zpool(&[os("offline"), os(&self.name), m.dev_path().as_os_str()]).unwrap_or_else(|e| panic!("{e}"));
    }

    /// `zpool export NAME` (retried while the pool is busy); its mounts disappear and the
    /// ARC forgets its blocks.
    pub fn export(&self) {
        retrying(Duration::from_secs(8), || zpool(&[os("export"), os(&self.name)]).map(drop)).unwrap_or_else(|e| panic!("{e}"));
        assert!(!self.is_imported(), "{} still imported after its export", self.name);
    }

    /// `zpool import -d /dev -o cachefile=none NAME`, as a user's plain import (which
    /// scans /dev); checks the daemon holds the members `O_DIRECT` again.
    pub fn import(&self) {
        zpool(&[os("import"), os("-d"), os("/dev"), os("-o"), os("cachefile=none"), os(&self.name)]).unwrap_or_else(|e| panic!("{e}"));
        self.check_imported();
    }

    fn check_imported(&self) {
        assert!(self.is_imported(), "{} is not imported", self.name);
        assert!(
            mount_points().iter().any(|m| m == &self.mountpoint),
            "{} is not mounted at {}",
            self.name,
            self.mountpoint.display()
        );
        for m in &self.members {
            holds_direct(self.lab.daemon.pid, m.dev_path()).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

impl Drop for Pool<'_> {
    fn drop(&mut self) {
        if self.is_imported()
            && let Err(e) = destroy_pool(&self.name)
        {
            eprintln!("zfs cleanup: {e}");
        }
        if let Err(e) = fs::remove_dir(&self.mountpoint)
            && e.kind() != io::ErrorKind::NotFound
        {
            eprintln!("zfs cleanup: rmdir {}: {e}", self.mountpoint.display());
        }
        // The lab's cgroup lives on: a later member on the same loop device must not
        // inherit these limits ("MAJ:MIN 0" removes a rule).
        for m in &self.members {
            for (limit, file) in [
                (m.disk.read_bps, "blkio.throttle.read_bps_device"),
                (m.disk.write_bps, "blkio.throttle.write_bps_device"),
            ] {
                if limit.is_some() {
                    let _ = write_sysfs(self.lab.cgroup.path().join(file), &format!("{} 0", m.majmin()));
                }
            }
        }
        // `members` drop now: each loop device is detached and its file removed.
    }
}

/// The configuration section of `zpool status`: from the line after the `NAME STATE
/// READ WRITE CKSUM` header to the next blank line; depth = indentation / 2.
pub fn parse_status_tree(status: &str) -> Vec<Vdev> {
    let mut out = Vec::new();
    let mut lines = status.lines().skip_while(|l| !l.trim_start().starts_with("NAME"));
    let Some(header) = lines.next() else { return out };
    let base = header.len() - header.trim_start().len();
    for l in lines {
        if l.trim().is_empty() {
            break;
        }
        let indent = l.len() - l.trim_start().len();
        let name = l.split_whitespace().next().unwrap_or_default();
        out.push(Vdev::new(indent.saturating_sub(base) / 2, name));
    }
    out
}
