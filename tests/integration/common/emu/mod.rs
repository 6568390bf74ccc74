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
//! * [`dd_overwrite`] – a reference measured side by side where the limit is not the truth
//!   (buffered writes timed to fsync: see `reference`).
//! * [`SlowFile`]  – a read-only FUSE file whose read rate is a known function of the offset
//!   (fast outer zones, slow inner ones), served by `tests/integration/common/slowfs.py`.
//! * [`CacheDev`]  – a drive with a volatile write cache over slow media, whose flushes are
//!   honest, lie or reorder, and a power cut on demand (`cachefs.py`; see `cachedev`).
//! * [`ZfsLab`]    – a live ZFS: the zfs-fuse daemon in a throttle group of its own, and
//!   [`zfs::Pool`]s of every layout over throttled loop devices (see `zfs`).
//!
//! Timing against a throttle: the blkio throttle grants bytes in 100 ms slices, so what a
//! transfer gets early depends on the group's last 200 ms. [`Cgroup::settle`] waits that
//! out (each transfer then starts a fresh slice), and [`Cgroup::read_burst`] measures
//! what a fresh slice gives a cold reader for free (see `settle`).
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
//!   owner pid no longer exists (ZFS pools and a zfs-fuse daemon such a process started,
//!   mounts, cgroups, loop devices, zram devices, files), under an exclusive `flock` so
//!   two sweepers never race each other.
//!
//! Layout: `names` (the test's name, unique names), `proc` (running commands), `blockdev`
//! (the [`BlockDev`] trait, sysfs writes), one file per guard kind (`loopdev`, `zram`,
//! `cgroup`, `mounts`, `slowfile`, `zfs`), `settle` (the throttle's slices: settling a
//! group and measuring its burst), and `sweep` (leftovers of killed processes). Everything
//! public is re-exported here, so callers just `use crate::common::emu::{...}` (the ZFS
//! lab's pools, members and datasets from `emu::zfs`).

mod blockdev;
pub mod cachedev;
mod cgroup;
pub mod faultdev;
pub mod fiohosts;
mod loopdev;
mod mounts;
mod names;
mod proc;
mod reference;
mod settle;
mod slowfile;
mod sweep;
pub mod zfs;
mod zram;

// Each test binary uses only part of the harness (see `common/mod.rs`), so a
// re-export one of them leaves unused is expected.
#[allow(unused_imports)]
pub use self::{
    blockdev::BlockDev,
    cachedev::{CacheDev, CacheSpec, CacheStats, FlushMode, PowerCut},
    cgroup::{Cgroup, IoCount, Limit},
    loopdev::{LoopDev, fill_pseudo_random},
    mounts::{Ext4Mount, Mount, Tmpfs, list_dir},
    names::{current_test_name, unique_name},
    proc::{output_with_timeout, run_checked},
    reference::{DdWrite, dd_overwrite},
    settle::{Burst, SETTLE, THROTTLE_SLICE},
    slowfile::SlowFile,
    sweep::sweep_stale,
    zfs::{Disk, Layout, Role, ZfsLab},
    zram::Zram,
};

/// Every resource the harness creates carries this prefix.
pub const PREFIX: &str = "iolab-test";
const SHM_DIR: &str = "/dev/shm";
const BLKIO_ROOT: &str = "/sys/fs/cgroup/blkio";
const ZRAM_CONTROL: &str = "/sys/class/zram-control";

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;
