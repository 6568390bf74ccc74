//! Application-level workloads, timed with a cold cache: a real command
//! (`iolab time`), and the built-in many-small-files and git workloads
//! (`iolab run --suite files|git`).
//!
//! What the seeds' authors felt was file-system and application level
//! (seed 004 timed a real `git pull`; seed 003 used FAB and Winstone), so
//! these workloads report phases in seconds, files/s and MB/s, with what
//! really reached the device next to each.
//!
//! [`Meter`] is what every workload measures with: it empties the caches
//! before a cold phase, and reads the clock, the CPU (iolab's and its
//! children's: `git` runs as a child) and `/proc/diskstats` around it.

pub mod files;
pub mod git;

use crate::device::{self, DiskCounters, SysRoot};
use crate::error::{Error, Result, failed, usage};
use crate::samples::{CpuTimes, DiskDelta, SysCpu};
use crate::signals::Stop;
use std::collections::HashMap;
use std::time::Instant;

/// What one phase of a workload did and cost.
#[derive(Clone, Debug, Default)]
pub struct PhaseSamples {
    pub name: String,
    /// Files (or other units the phase counts: commits, checkouts) handled.
    pub files: u64,
    /// Bytes of file data the phase read or wrote (as the application sees them).
    pub bytes: u64,
    pub wall_ns: u64,
    /// iolab's own CPU plus that of the children it waited for.
    pub cpu: CpuTimes,
    pub sys: SysCpu,
    /// What reached the devices under the working directory.
    pub devices: Vec<DiskDelta>,
    /// Whether the caches were emptied right before the phase.
    pub cold: bool,
}

/// Measures phases of a workload on the devices that serve a directory.
pub struct Meter<'a> {
    pub sys: SysRoot,
    /// diskstats names to read, top first.
    pub devices: Vec<String>,
    pub stop: &'a Stop,
}

/// CPU of this process and of its waited-for children.
fn cpu_with_children() -> CpuTimes {
    let (own, kids) = (crate::measure::cpu::process_now(), crate::measure::cpu::children_now());
    CpuTimes {
        usr_ns: own.usr_ns + kids.usr_ns,
        sys_ns: own.sys_ns + kids.sys_ns,
    }
}

/// Whether this process may empty the kernel's caches.
pub fn can_drop_caches() -> bool {
    rustix::process::geteuid().is_root()
}

/// Write dirty data back, then drop the page cache, dentries and inodes,
/// so the next access goes to the device. Needs root; refused otherwise
/// (a "cold" figure measured warm would be a lie).
pub fn drop_caches() -> Result<()> {
    if !can_drop_caches() {
        return Err(usage(
            "emptying the caches needs root (it writes /proc/sys/vm/drop_caches); run as root, or measure warm without --cold",
        ));
    }
    rustix::fs::sync();
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").map_err(|e| failed(format!("cannot drop caches: {e}")))
}

impl<'a> Meter<'a> {
    /// A meter for the devices under `dir` (all of them: a loop device and
    /// the device under its file, each member of a multi-device filesystem).
    pub fn for_dir(dir: &std::path::Path, stop: &'a Stop) -> Meter<'a> {
        let sys = SysRoot::default();
        let devices = device::device_of_path(&sys, dir)
            .map(|(ma, mi)| device::chain_for_dev(&sys, ma, mi))
            .unwrap_or_default()
            .into_iter()
            .map(|d| d.name)
            .collect();
        Meter { sys, devices, stop }
    }

    pub fn check_stop(&self) -> Result<()> {
        match self.stop.signal() {
            Some(sig) => Err(Error::Interrupted(sig)),
            None if self.stop.requested() => Err(Error::Interrupted(libc::SIGINT)),
            None => Ok(()),
        }
    }

    fn snap(&self) -> (Instant, CpuTimes, SysCpu, HashMap<String, DiskCounters>) {
        (
            Instant::now(),
            cpu_with_children(),
            crate::measure::cpu::system_now(),
            device::diskstats(&self.sys),
        )
    }

    /// Run `f` as one measured phase; `f` returns the files and bytes it
    /// handled. With `cold`, the caches are emptied first (not timed).
    pub fn phase(&self, name: &str, cold: bool, f: impl FnOnce() -> Result<(u64, u64)>) -> Result<PhaseSamples> {
        self.check_stop()?;
        if cold {
            drop_caches()?;
        }
        let a = self.snap();
        let (files, bytes) = f()?;
        let b = self.snap();
        Ok(PhaseSamples {
            name: name.to_string(),
            files,
            bytes,
            wall_ns: (b.0 - a.0).as_nanos() as u64,
            cpu: crate::measure::cpu::process_delta(a.1, b.1),
            sys: crate::measure::cpu::system_delta(a.2, b.2),
            devices: device::delta(&a.3, &b.3, &self.devices),
            cold,
        })
    }
}
