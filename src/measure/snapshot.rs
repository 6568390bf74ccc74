//! Counter snapshots: the CPU (this process's, and optionally its waited-for
//! children's), the system-wide CPU, every block device's counters and the
//! clock, read together; two of them give what happened in between.
//!
//! One reading for every kind of measurement: the windows of a job
//! ([`super::Runner`]), the phases of an application workload
//! ([`crate::experiment::apps::Meter`]) and the runs of a timed command
//! ([`crate::experiment::time`]).

use super::cpu;
use crate::device::{self, DiskCounters, SysRoot};
use crate::samples::{CpuTimes, DiskDelta, SysCpu};
use std::collections::HashMap;
use std::time::Instant;

/// The counters at one moment.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// When the counters had been read (the clock is read last).
    pub at: Instant,
    pub cpu: CpuTimes,
    pub sys: SysCpu,
    /// `/proc/diskstats`, by device name.
    pub disks: HashMap<String, DiskCounters>,
}

/// What happened between two snapshots.
#[derive(Clone, Debug)]
pub struct Delta {
    pub elapsed_ns: u64,
    pub cpu: CpuTimes,
    pub sys: SysCpu,
    /// The devices asked for that both snapshots have, in the order asked.
    pub devices: Vec<DiskDelta>,
}

impl Snapshot {
    /// Read the counters now. `with_children` adds the CPU of the children
    /// this process has waited for (a workload that runs `git`).
    pub fn take(sys: &SysRoot, with_children: bool) -> Snapshot {
        let own = cpu::process_now();
        let cpu = if with_children {
            let kids = cpu::children_now();
            CpuTimes {
                usr_ns: own.usr_ns + kids.usr_ns,
                sys_ns: own.sys_ns + kids.sys_ns,
            }
        } else {
            own
        };
        let sys_cpu = cpu::system_now();
        let disks = device::diskstats(sys);
        Snapshot {
            at: Instant::now(),
            cpu,
            sys: sys_cpu,
            disks,
        }
    }

    /// From this snapshot to `later`, on the devices `names` (diskstats names).
    pub fn delta(&self, later: &Snapshot, names: &[String]) -> Delta {
        Delta {
            elapsed_ns: later.at.saturating_duration_since(self.at).as_nanos() as u64,
            cpu: cpu::process_delta(self.cpu, later.cpu),
            sys: cpu::system_delta(self.sys, later.sys),
            devices: device::delta(&self.disks, &later.disks, names),
        }
    }

    /// Every block device that moved from this snapshot to `later`, busiest
    /// first (partitions folded into their disks; see [`device::activity`]).
    pub fn moved(&self, later: &Snapshot, sys: &SysRoot) -> Vec<crate::samples::DeviceActivity> {
        device::activity(sys, &self.disks, &later.disks)
    }
}
