//! [`Cgroup`]: a blkio (cgroup v1) group with throttle [`Limit`]s, a `Command` builder
//! whose child joins the group before `exec`, and the group's [`IoCount`] counters.

use std::ffi::{CString, OsStr};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::BLKIO_ROOT;
use super::blockdev::{BlockDev, write_sysfs};
use super::names::unique_name;
use super::proc::retry;

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

pub(super) fn remove_cgroup(path: &Path) -> bool {
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
