//! Which block devices really serve a target, and what they did.
//!
//! A file resolves to its filesystem (`/proc/self/mountinfo`), the
//! filesystem to its block device, a partition to its disk, and a loop
//! device to its backing file, which resolves in turn. All paths are read
//! under a root directory so tests can use captured fixture trees.

mod activity;
mod cgroup;
mod diskstats;
mod facts;
mod hints;
pub mod identity;
mod members;
mod model;
mod report;
mod sysfs;
pub mod tools;
mod zfs;
mod zfs_fuse;

pub use activity::{activity, bottom_total, busiest, elsewhere, pick, sum_activity, tops};
pub use diskstats::{DiskCounters, delta, diskstats, open_inflight, parse_diskstats, parse_inflight};
pub use facts::{DeviceFacts, Transport};
pub use hints::hints;
pub use members::{LiveMembers, LiveUse, block_device_by_path, live_members, live_members_checked};
pub use model::{ChainNode, DeviceReport, FsFacts, IoWeight, LayoutInfo, LoopInfo, MdInfo, MdMember, NodeKind, TargetKind, Throttle};
pub use report::{describe, describe_with};
pub use zfs::{Answer, Commands, LiveCommands, NoCommands, Vdev, ZfsInfo, ZfsProperties, is_zfs, major_minor};
pub use zfs_fuse::ZfsFuseDaemon;

use serde::{Deserialize, Serialize};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Where `/sys` and `/proc` are found ("/" on a live system).
#[derive(Clone, Debug)]
pub struct SysRoot(pub PathBuf);

impl Default for SysRoot {
    fn default() -> Self {
        SysRoot(PathBuf::from("/"))
    }
}

impl SysRoot {
    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel.trim_start_matches('/'))
    }
    pub(crate) fn read(&self, rel: &str) -> Option<String> {
        fs::read_to_string(self.path(rel)).ok().map(|s| s.trim().to_string())
    }
}

/// The filesystem a path lives on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct FsInfo {
    /// Filesystem type (`ext4`, `btrfs`, `zfs`...).
    pub fstype: String,
    /// Where it is mounted.
    pub mount_point: String,
    /// What is mounted (a device, a dataset).
    pub source: String,
    /// Per-mount options (`rw,noatime`).
    pub options: String,
    /// The filesystem's own (super block) options, e.g. btrfs `compress=zstd:3`.
    pub super_options: String,
    /// `major:minor` of the device the filesystem reports (0:N for virtual and some multi-device filesystems).
    #[schemars(extend("x-unit" = "dev"))]
    pub dev: (u32, u32),
}

/// One block device in the chain that serves a target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct BlockDev {
    /// Kernel name (`sda`, `loop3`, `dm-0`).
    pub name: String,
    /// The device number's major.
    #[schemars(extend("x-unit" = "dev"))]
    pub major: u32,
    /// The device number's minor.
    #[schemars(extend("x-unit" = "dev"))]
    pub minor: u32,
    /// The whole disk this partition belongs to.
    pub partition_of: Option<String>,
    /// The device's size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub size_bytes: u64,
    /// The logical block size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub logical_block_size: u32,
    /// A spinning disk (`queue/rotational`), when known.
    pub rotational: Option<bool>,
    /// The device's model, when sysfs says.
    pub model: Option<String>,
    /// For a loop device: the file behind it.
    pub backing_file: Option<String>,
    /// Memory-backed: zram, a RAM disk, pmem, or a loop device whose
    /// backing file is on tmpfs or ramfs (`/dev/shm`).
    pub memory: bool,
}

/// Parse one line of /proc/self/mountinfo.
fn parse_mountinfo_line(line: &str) -> Option<FsInfo> {
    let (pre, post) = line.split_once(" - ")?;
    let pre: Vec<&str> = pre.split(' ').collect();
    let post: Vec<&str> = post.split(' ').collect();
    let (maj, min) = pre.get(2)?.split_once(':')?;
    Some(FsInfo {
        fstype: post.first()?.to_string(),
        source: unescape(post.get(1)?),
        options: pre.get(5)?.to_string(),
        super_options: post.get(2).map(|s| s.to_string()).unwrap_or_default(),
        mount_point: unescape(pre.get(4)?),
        dev: (maj.parse().ok()?, min.parse().ok()?),
    })
}

fn unescape(s: &str) -> String {
    // mountinfo escapes space, tab, newline and backslash as \ooo.
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c)) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The filesystem holding `path` (the mount with the device number of `path`
/// whose mount point is the longest prefix of the canonical path; on
/// btrfs, see [`btrfs_mount_for`]).
pub fn filesystem_of(root: &SysRoot, path: &Path) -> Option<FsInfo> {
    let md = fs::metadata(path).ok()?;
    let dev = (rustix::fs::major(md.dev()), rustix::fs::minor(md.dev()));
    let canon = fs::canonicalize(path).ok()?;
    let all = mounts(root);
    mount_for(&all, &canon, Some(dev)).or_else(|| btrfs_mount_for(&all, &canon))
}

/// The btrfs mount holding `path` whatever its device number: btrfs gives
/// every subvolume an anonymous device number of its own (`stat` of a
/// mount point says 0:40 where mountinfo says 0:39), so the number alone
/// finds no mount for it. Only the longest mount point over `path` is
/// taken, and only when it is btrfs.
fn btrfs_mount_for(mounts: &[FsInfo], path: &Path) -> Option<FsInfo> {
    mount_for(mounts, path, None).filter(|m| m.fstype == "btrfs")
}

/// Every mount in `/proc/self/mountinfo` under `root`, in the kernel's order.
pub fn mounts(root: &SysRoot) -> Vec<FsInfo> {
    let text = root.read("proc/self/mountinfo").unwrap_or_default();
    text.lines().filter_map(parse_mountinfo_line).collect()
}

/// The mount holding `path`: the longest mount point that is a prefix of it,
/// among the mounts with device number `dev` if one is given. Of equal mount
/// points the last (the one mounted on top) wins.
fn mount_for(mounts: &[FsInfo], path: &Path, dev: Option<(u32, u32)>) -> Option<FsInfo> {
    mounts
        .iter()
        .filter(|m| dev.is_none_or(|d| m.dev == d) && path.starts_with(&m.mount_point))
        .max_by_key(|m| m.mount_point.len())
        .cloned()
}

/// Size in bytes of an open block device (`BLKGETSIZE64`).
pub fn block_device_size(f: &std::fs::File) -> std::io::Result<u64> {
    crate::io::sys::block_size_bytes(f)
}

/// Describe the block device `major:minor` from sysfs.
pub fn block_dev(root: &SysRoot, major: u32, minor: u32) -> Option<BlockDev> {
    let link = root.path(&format!("sys/dev/block/{major}:{minor}"));
    let real = fs::canonicalize(&link).ok()?;
    let name = real.file_name()?.to_string_lossy().into_owned();
    let is_part = real.join("partition").exists();
    let disk_dir = if is_part { real.parent()?.to_path_buf() } else { real.clone() };
    let disk = disk_dir.file_name()?.to_string_lossy().into_owned();
    let rd = |p: &Path| fs::read_to_string(p).ok().map(|s| s.trim().to_string());
    let sectors: u64 = rd(&real.join("size")).and_then(|s| s.parse().ok()).unwrap_or(0);
    let q = disk_dir.join("queue");
    let backing_file = rd(&disk_dir.join("loop/backing_file")).filter(|s| !s.is_empty());
    let memory = disk.starts_with("zram")
        || disk.starts_with("ram")
        || disk.starts_with("pmem")
        || backing_file.as_deref().is_some_and(|f| on_memory_fs(root, f));
    Some(BlockDev {
        partition_of: is_part.then(|| disk.clone()),
        size_bytes: sectors * 512,
        logical_block_size: rd(&q.join("logical_block_size")).and_then(|s| s.parse().ok()).unwrap_or(512),
        rotational: rd(&q.join("rotational")).map(|s| s == "1"),
        model: rd(&disk_dir.join("device/model")).filter(|s| !s.is_empty()),
        backing_file,
        memory,
        name,
        major,
        minor,
    })
}

/// Whether a loop device's backing `file` (as sysfs gives it, perhaps with
/// " (deleted)") is on tmpfs or ramfs, as `info` decides it
/// (`report::loop_backing`): live, the file's own device number picks
/// among stacked mounts; under a fixture root (or a deleted file), the
/// longest mount point over it.
fn on_memory_fs(root: &SysRoot, file: &str) -> bool {
    let path = Path::new(file.strip_suffix(" (deleted)").unwrap_or(file));
    let all = mounts(root);
    let live_dev = (root.0 == Path::new("/"))
        .then(|| fs::metadata(path).ok())
        .flatten()
        .map(|m| (rustix::fs::major(m.dev()), rustix::fs::minor(m.dev())));
    live_dev
        .and_then(|d| mount_for(&all, path, Some(d)))
        .or_else(|| mount_for(&all, path, None))
        .is_some_and(|m| matches!(m.fstype.as_str(), "tmpfs" | "ramfs"))
}

/// The device number of the block device with kernel name `name` (`sdb`, `loop3`, `dm-0`).
pub fn dev_of_name(root: &SysRoot, name: &str) -> Option<(u32, u32)> {
    sysfs::by_name(root, name).map(|b| b.dev)
}

/// The chain of block devices serving `path` (see [`device_of_path`] and
/// [`chain_for_dev`]), top first; empty when no block device serves it.
pub fn chain_of_path(root: &SysRoot, path: &Path) -> Vec<BlockDev> {
    device_of_path(root, path)
        .map(|(ma, mi)| chain_for_dev(root, ma, mi))
        .unwrap_or_default()
}

/// The chain of block devices serving a device number, top first: the device
/// itself, then (for a loop device) the devices under its backing file.
pub fn chain_for_dev(root: &SysRoot, major: u32, minor: u32) -> Vec<BlockDev> {
    let mut out = Vec::new();
    let mut next = Some((major, minor));
    while let Some((ma, mi)) = next.take() {
        if out.len() > 8 || out.iter().any(|d: &BlockDev| d.major == ma && d.minor == mi) {
            break;
        }
        let Some(dev) = block_dev(root, ma, mi) else { break };
        if let Some(file) = &dev.backing_file {
            next = device_of_path(root, Path::new(file));
        }
        out.push(dev);
    }
    out
}

/// The whole disks under the data vdevs of a ZFS pool (each leaf's
/// partition folded into its disk, as [`activity`] folds them), each once,
/// in the pool's order. Empty when the pool's tree is unknown (`zpool` did
/// not run) or no leaf is a block device (file vdevs).
pub fn zfs_member_disks(root: &SysRoot, z: &ZfsInfo) -> Vec<BlockDev> {
    let mut out: Vec<BlockDev> = Vec::new();
    for leaf in z.data_leaves() {
        let Some(b) = leaf.device.as_deref().and_then(|n| sysfs::by_name(root, n)) else {
            continue;
        };
        let disk = b.disk().unwrap_or(b);
        if out.iter().any(|d| (d.major, d.minor) == disk.dev) {
            continue;
        }
        if let Some(d) = block_dev(root, disk.dev.0, disk.dev.1) {
            out.push(d);
        }
    }
    out
}

/// The block devices a measuring target's figures are cross-checked
/// against, and the ZFS pool when they are its members.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Served {
    /// Top first; for a ZFS dataset, the pool's data member disks, side by side.
    pub devices: Vec<BlockDev>,
    /// The ZFS pool whose member disks `devices` are (their counters are summed).
    pub zfs_pool: Option<String>,
    /// Another filesystem over several devices whose members `devices` are
    /// (`btrfs on /dev/loop5`; their counters are summed, as a pool's are).
    pub members_of: Option<String>,
}

/// What serves a target: its block device chain (`chain`, from
/// [`chain_of_path`]), or, for a dataset on ZFS (which has no block device
/// of its own), the data member disks of its pool as `report` (from
/// [`describe`]) found them.
pub fn served(root: &SysRoot, chain: Vec<BlockDev>, report: Option<&DeviceReport>) -> Served {
    if chain.is_empty()
        && let Some(z) = report.and_then(|r| r.zfs.as_ref())
    {
        let devices = zfs_member_disks(root, z);
        let zfs_pool = (!devices.is_empty()).then(|| z.pool.clone());
        return Served {
            devices,
            zfs_pool,
            members_of: None,
        };
    }
    if let Some(r) = report.filter(|r| r.layout.as_ref().is_some_and(|l| l.by == "btrfs" && l.members >= 2)) {
        // btrfs over several devices: the mount source is one member of
        // them; `info`'s chain starts at each.
        let mut devices: Vec<BlockDev> = Vec::new();
        for node in &r.chain {
            let Some(b) = sysfs::by_name(root, &node.name) else { continue };
            if devices.iter().any(|d| (d.major, d.minor) == b.dev) {
                continue;
            }
            devices.extend(block_dev(root, b.dev.0, b.dev.1));
        }
        if devices.len() >= 2 {
            let source = r.filesystem.as_ref().map_or_else(String::new, |f| format!(" on {}", f.source));
            return Served {
                devices,
                zfs_pool: None,
                members_of: Some(format!("btrfs{source}")),
            };
        }
    }
    Served {
        devices: chain,
        zfs_pool: None,
        members_of: None,
    }
}

/// Whether requests to `dev` pass an I/O scheduler: the queue of its whole
/// disk names one other than `none` (`queue/scheduler`). Unknown: no.
pub fn scheduled(root: &SysRoot, dev: &BlockDev) -> bool {
    sysfs::by_dev(root, (dev.major, dev.minor))
        .map(|b| b.disk().unwrap_or(b))
        .and_then(|b| b.attr("queue/scheduler"))
        .and_then(|s| sysfs::bracketed(&s))
        .is_some_and(|s| s != "none")
}

/// The block device number a path's data lives on, if any: the device
/// itself for a block special file, else the filesystem's device (following
/// the mount source for filesystems with anonymous device numbers, like btrfs).
pub fn device_of_path(root: &SysRoot, path: &Path) -> Option<(u32, u32)> {
    let md = fs::metadata(path).ok()?;
    use std::os::unix::fs::FileTypeExt;
    if md.file_type().is_block_device() {
        return Some((rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev())));
    }
    let dev = (rustix::fs::major(md.dev()), rustix::fs::minor(md.dev()));
    if dev.0 != 0 && root.path(&format!("sys/dev/block/{}:{}", dev.0, dev.1)).exists() {
        return Some(dev);
    }
    let fsinfo = filesystem_of(root, path)?;
    if fsinfo.source.starts_with("/dev/") {
        let smd = fs::metadata(&fsinfo.source).ok()?;
        if smd.file_type().is_block_device() {
            let dev = (rustix::fs::major(smd.rdev()), rustix::fs::minor(smd.rdev()));
            // A btrfs of several devices is mounted by one of them, which
            // serves only part of its I/O: no one device to cross-check.
            if fsinfo.fstype == "btrfs" && btrfs_devices(root, dev).len() > 1 {
                return None;
            }
            return Some(dev);
        }
    }
    None
}

/// The kernel names of the devices of the btrfs filesystem that device
/// `dev` belongs to (`/sys/fs/btrfs/UUID/devices/NAME`, each with its
/// `dev`), in name order; empty when it belongs to none.
pub fn btrfs_devices(root: &SysRoot, dev: (u32, u32)) -> Vec<String> {
    let want = format!("{}:{}", dev.0, dev.1);
    let Ok(filesystems) = fs::read_dir(root.path("sys/fs/btrfs")) else {
        return Vec::new();
    };
    for f in filesystems.flatten() {
        let Ok(devices) = fs::read_dir(f.path().join("devices")) else {
            continue;
        };
        let mut names: Vec<(String, Option<String>)> = devices
            .flatten()
            .map(|d| {
                let number = fs::read_to_string(d.path().join("dev")).ok().map(|v| v.trim().to_string());
                (d.file_name().to_string_lossy().into_owned(), number)
            })
            .collect();
        if names.iter().any(|(_, n)| n.as_deref() == Some(want.as_str())) {
            names.sort();
            return names.into_iter().map(|(n, _)| n).collect();
        }
    }
    Vec::new()
}

#[cfg(test)]
pub(crate) mod tests;
