//! `iolab time`: a real command timed like hyperfine does, with what a
//! storage user needs on top: caches emptied before each run (`--cold`;
//! on ZFS by an export and import of the pool, see [`super::cold`]),
//! untimed `--prepare`/`--cleanup` commands (a `git reset`, a snapshot
//! rollback), and the bytes, I/Os and busy time of every block device that
//! moved during each run (the figures of the busiest one, or of the device
//! named with `--device`/`--cwd`).
//!
//! The command is run directly (no shell) and waited for with `wait4`, so
//! its user and system time include every child it waited for; a blocking
//! waiter thread stamps the end the moment `wait4` returns, so progress
//! polling never adds to the wall time.

use super::{Context, Measured, until_stopped};
use crate::base::error::{Error, Result, failed, usage};
use crate::base::progress::{Event, Observer};
use crate::base::signals::Stop;
use crate::device::{self, DiskCounters, SysRoot};
use crate::measure::Snapshot;
pub use crate::plan::time::{Place, TimeOpts};
use crate::samples::CommandRun;
use crate::summary::{self, Body, Settings};
use crate::targets::TargetInfo;
use std::collections::HashMap;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `iolab time`: every device that moved is recorded; one may be named for the single figures.
pub type TimeRequest = TimeOpts;

impl TimeRequest {
    /// The plan's rules, and root for `--cold`.
    pub fn check(&self) -> Result<()> {
        self.validate()?;
        if self.cold && !crate::experiment::cold::can_drop_caches() {
            return Err(usage(
                "--cold needs root: emptying the caches writes /proc/sys/vm/drop_caches; run as root, or time warm runs without --cold",
            ));
        }
        Ok(())
    }
}

/// Why `iolab time` could not run or wait for a command: the system's
/// error and the command. A command that cannot be started is the user's
/// to fix (exit status 2); the rest give 1.
#[derive(Debug, thiserror::Error)]
pub enum TimeError {
    #[error("cannot read the current directory: {source}")]
    CurrentDir { source: std::io::Error },
    /// `--prepare` or `--cleanup`'s shell command.
    #[error("cannot run the {what} command: {source}")]
    Hook { what: String, source: std::io::Error },
    #[error("cannot run `{command}`: {source}")]
    Spawn { command: String, source: std::io::Error },
    #[error("waiting for the command failed: {source}")]
    Wait { source: std::io::Error },
}

impl From<TimeError> for crate::base::error::Error {
    fn from(e: TimeError) -> Self {
        match e {
            TimeError::Spawn { .. } => crate::base::error::usage_by(e),
            _ => crate::base::error::failed_by(e),
        }
    }
}

pub(super) fn run(r: &TimeRequest, ctx: &Context) -> Result<Measured> {
    let cwd = match &r.cwd {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|source| TimeError::CurrentDir { source })?,
    };
    if !cwd.is_dir() {
        return Err(usage(format!("{} is not a directory", cwd.display())));
    }
    let sys = &ctx.sys;
    let cwd_chain = device::chain_of_path(sys, &cwd);
    // Named devices (`--device`, else `--cwd`) give the single figures; with
    // neither, each run's busiest device does (every device that moved is recorded).
    let (named, named_by) = match (&r.device, &r.cwd) {
        (Some(d), _) => (named_device(sys, d)?, Some(format!("--device {}", d.display()))),
        (None, Some(_)) => (cwd_chain.clone(), Some(format!("--cwd {}", cwd.display()))),
        (None, None) => (Vec::new(), None),
    };
    let place = Place {
        cwd: cwd.clone(),
        devices: named.iter().map(|d| d.name.clone()).collect(),
        named_by,
    };
    let mut runs = Vec::new();
    let interrupted = until_stopped(|| measure(r, &place, sys, ctx, &mut runs))?;
    let devs = if r.device.is_some() { named } else { cwd_chain };
    // `iolab info`'s facts of the directory, its pool's layout among them.
    let target = TargetInfo::directory(sys, &cwd, devs);
    let zfs = target.info.as_ref().and_then(|i| i.zfs.as_ref());
    let body = Body::Time(summary::apps::time_report(r, &place, &runs, zfs));
    Ok(Measured {
        command: "time",
        target,
        settings: Settings {
            runs: r.runs,
            warmup_s: 0.0,
            interval_s: 0.0,
            suite: None,
            steady_state: None,
            ..Settings::default()
        },
        body,
        interrupted,
        failed: None,
    })
}

/// The devices `--device` names, top first: a kernel name (`sdb`, `loop3`),
/// a block device node, or any other path (the devices that serve it).
fn named_device(sys: &SysRoot, d: &std::path::Path) -> Result<Vec<device::BlockDev>> {
    use std::os::unix::fs::FileTypeExt;
    let text = d.to_string_lossy();
    if !text.contains('/')
        && let Some((ma, mi)) = device::dev_of_name(sys, &text)
    {
        return Ok(device::chain_for_dev(sys, ma, mi));
    }
    let md = std::fs::metadata(d).map_err(|e| {
        usage(format!(
            "cannot access {}: {e} (give a block device name such as sda, a /dev path, or a path on the device)",
            d.display()
        ))
    })?;
    let chain = device::chain_of_path(sys, d);
    if chain.is_empty() {
        return Err(usage(if md.file_type().is_block_device() {
            format!("{} is a block device sysfs does not show", d.display())
        } else {
            format!("no block device serves {}", d.display())
        }));
    }
    Ok(chain)
}

/// How often the live view hears of the device's current rate.
const TICK: Duration = Duration::from_millis(250);

fn sh(cmd: &str, place: &Place, what: &str) -> Result<()> {
    let st = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(&place.cwd)
        .stdin(Stdio::null())
        .status()
        .map_err(|source| TimeError::Hook {
            what: what.to_string(),
            source,
        })?;
    if !st.success() {
        return Err(failed(format!("the {what} command `{cmd}` failed ({st})")));
    }
    Ok(())
}

/// The device the live view follows from `a` to `b`, and its bytes
/// meanwhile: the named top device, or else the busiest one.
fn live_device(
    sys: &SysRoot,
    place: &Place,
    a: &HashMap<String, DiskCounters>,
    b: &HashMap<String, DiskCounters>,
) -> Option<(String, u64)> {
    match place.devices.first() {
        // The top device only: lower devices see the same bytes again.
        Some(n) => device::delta(a, b, std::slice::from_ref(n))
            .first()
            .map(|d| (n.clone(), d.read_bytes + d.write_bytes))
            .or(Some((n.clone(), 0))),
        None => device::busiest(&device::activity(sys, a, b)).map(|d| (d.name.clone(), d.bytes())),
    }
}

/// Run the warm-ups and the measured runs; each measured run lands in `out`.
pub fn measure(opts: &TimeOpts, place: &Place, sys: &SysRoot, ctx: &Context, out: &mut Vec<CommandRun>) -> Result<()> {
    let total = opts.warmup + opts.runs;
    let cooler = opts
        .cold
        .then(|| super::cold::Cooler::for_command(sys, &place.cwd, &opts.command[1..], opts.allow_export));
    for k in 0..total {
        let warm = k < opts.warmup;
        ctx.stop.check()?;
        if let Some(p) = &opts.prepare {
            sh(p, place, "prepare")?;
        }
        let cold_by = match &cooler {
            Some(c) => Some(c.cool(ctx.observer)?),
            None => None,
        };
        let label = if warm {
            format!("warm-up {}/{}", k + 1, opts.warmup)
        } else {
            format!("run {}/{}", k + 1 - opts.warmup, opts.runs)
        };
        let mut r = one(opts, place, sys, ctx.stop, ctx.observer, &label)?;
        r.cold_by = cold_by;
        if r.exit_code != 0 && !opts.ignore_failure {
            return Err(failed(format!(
                "`{}` exited with status {} in {label}; use --ignore-failure to time it anyway",
                opts.command.join(" "),
                r.exit_code
            )));
        }
        if !warm {
            out.push(r);
        }
        if let Some(c) = &opts.cleanup {
            sh(c, place, "cleanup")?;
        }
    }
    Ok(())
}

/// The timed command's process, held by a pidfd taken right after the
/// spawn: the waiter thread reaps the child with `wait4`, after which its
/// PID may belong to another process, so a stop never signals it by PID.
struct Running {
    /// `None` where the kernel has no pidfds (before 5.3): the command is
    /// then not signalled at all (a terminal's Ctrl-C reaches it anyway).
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Running {
    /// Hold `pid`, a child nobody has waited for yet.
    fn hold(pid: libc::pid_t) -> Running {
        let pidfd =
            rustix::process::Pid::from_raw(pid).and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
        Running { pidfd }
    }

    /// Ask the command to end (SIGTERM). A child that has already been
    /// reaped is not signalled (the kernel answers ESRCH): whether it was
    /// is the answer.
    fn terminate(&self) -> bool {
        self.pidfd
            .as_ref()
            .is_some_and(|fd| rustix::process::pidfd_send_signal(fd, rustix::process::Signal::TERM).is_ok())
    }
}

/// One timed run: spawn, wait (with live ticks), read the counters.
fn one(opts: &TimeOpts, place: &Place, sys: &SysRoot, stop: &Stop, observer: &dyn Observer, label: &str) -> Result<CommandRun> {
    let mut cmd = Command::new(&opts.command[0]);
    cmd.args(&opts.command[1..]).current_dir(&place.cwd).stdin(Stdio::null());
    if !opts.show_output {
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
    }
    let before = Snapshot::take(sys, false);
    let start = before.at;
    let child = cmd.spawn().map_err(|source| TimeError::Spawn {
        command: opts.command[0].clone(),
        source,
    })?;
    let pid = child.id() as libc::pid_t;
    // Before the waiter exists, so nobody can have reaped the child yet.
    let running = Running::hold(pid);
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let r = crate::io::sys::wait4(pid);
        let _ = tx.send((r, Instant::now()));
    });
    // `child` is not waited for through std: wait4 above reaps it.
    std::mem::forget(child);
    let mut last = (start, before.disks.clone());
    let mut killed = false;
    let (r, end) = loop {
        match rx.recv_timeout(TICK) {
            Ok(v) => break v,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if stop.requested() && !killed {
                    // The waiter may have reaped the child a moment ago: the pidfd
                    // signals this child or nothing, never a process that took its PID.
                    running.terminate();
                    killed = true;
                }
                let now = Instant::now();
                let disks = device::diskstats(sys);
                let live = live_device(sys, place, &last.1, &disks);
                let secs = (now - last.0).as_secs_f64().max(1e-3);
                last = (now, disks);
                observer.event(Event::Command {
                    label,
                    elapsed: now - start,
                    device: live.as_ref().map(|(n, b)| (n.as_str(), *b as f64 / secs)),
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(failed("the waiter thread died")),
        }
    };
    let _ = waiter.join();
    let after = Snapshot::take(sys, false);
    let (status, ru) = r.map_err(|source| TimeError::Wait { source })?;
    if killed || stop.signal().is_some() {
        return Err(Error::Interrupted(stop.signal().unwrap_or(libc::SIGINT)));
    }
    let st = std::process::ExitStatus::from_raw(status);
    let cpu = crate::measure::cpu::rusage_times(&ru);
    Ok(CommandRun {
        wall_ns: (end - start).as_nanos() as u64,
        usr_ns: cpu.usr_ns,
        sys_ns: cpu.sys_ns,
        exit_code: st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
        // The CPU is the command's own, from wait4: the devices come from the snapshots.
        devices: before.delta(&after, &place.devices).devices,
        moved: before.moved(&after, sys),
        own_read_bytes: ru.ru_inblock.max(0) as u64 * 512,
        own_write_bytes: ru.ru_oublock.max(0) as u64 * 512,
        cold_by: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Child;

    /// Reap `pid` as `one`'s waiter thread does.
    fn reap(pid: libc::pid_t) {
        crate::io::sys::wait4(pid).unwrap();
    }

    /// A process that takes PID `pid` (free again), as the kernel hands
    /// PIDs out again once they wrap around: `ns_last_pid` (root) makes the
    /// next fork get it. Other processes fork too, so a few tries.
    fn take_pid(pid: libc::pid_t) -> Option<Child> {
        for _ in 0..50 {
            if std::fs::write("/proc/sys/kernel/ns_last_pid", (pid - 1).to_string()).is_err() {
                return None;
            }
            let c = Command::new("sleep").arg("30").spawn().expect("spawn sleep");
            if c.id() as libc::pid_t == pid {
                return Some(c);
            }
            let mut c = c;
            let _ = c.kill();
            let _ = c.wait();
        }
        None
    }

    /// The waiter reaped the command just before a stop came: the stop
    /// must not signal whatever process now has the command's PID (a
    /// `kill(pid)` did).
    #[test]
    fn a_reaped_child_is_never_signalled_through_a_reused_pid() {
        if !rustix::process::geteuid().is_root() {
            // Taking a given PID (ns_last_pid) needs root; counted as a skip.
            crate::base::testknob::skip_for_missing_tool("root");
            return;
        }
        let child = Command::new("true").spawn().expect("spawn true");
        let pid = child.id() as libc::pid_t;
        let running = Running::hold(pid);
        std::mem::forget(child);
        reap(pid);
        let Some(mut other) = take_pid(pid) else {
            panic!("no process could take PID {pid} again (ns_last_pid)");
        };
        let signalled = running.terminate();
        std::thread::sleep(Duration::from_millis(200));
        let alive = other.try_wait().expect("try_wait").is_none();
        let _ = other.kill();
        let _ = other.wait();
        assert!(alive, "the process that took PID {pid} was signalled");
        assert!(!signalled, "a reaped child counts as signalled");
    }

    /// A child still running is signalled, and ends.
    #[test]
    fn a_running_child_is_terminated() {
        let mut child = Command::new("sleep").arg("30").spawn().expect("spawn sleep");
        let running = Running::hold(child.id() as libc::pid_t);
        assert!(running.terminate());
        let st = child.wait().expect("wait");
        assert_eq!(st.signal(), Some(libc::SIGTERM));
    }
}
