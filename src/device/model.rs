//! The model of what `iolab info` finds about a target ([`DeviceReport`]):
//! the target's kind, its filesystem's facts, the chain of block devices
//! down to the physical ones, throttles and `io.weight` entries, the
//! layout over several devices. [`super::report`] fills it in, with
//! [`super::cgroup`]'s throttles and [`super::hints`]' hints, which read it.

use super::FsInfo;
use super::facts::DeviceFacts;
use super::zfs::ZfsInfo;
use serde::{Deserialize, Serialize};

/// What the target path is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    File,
    Directory,
    MountPoint,
    /// A whole block device (disk, zram, ...).
    Disk,
    Partition,
    /// A block device built on others (loop, device-mapper, md).
    StackedDevice,
    Other,
}

/// The filesystem holding the target, with what its options mean for a benchmark.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct FsFacts {
    /// Filesystem type (`ext4`, `btrfs`, `zfs`...).
    pub fstype: String,
    /// Where it is mounted.
    pub mount_point: String,
    /// What is mounted (a device, a dataset).
    pub source: String,
    /// Per-mount options (`rw,noatime`).
    pub options: String,
    /// Filesystem options (`compress=zstd:3,space_cache=v2`).
    pub super_options: String,
    /// The filesystem compresses data it writes.
    pub compress: bool,
    /// The compression setting (`zstd:3`, `force:lzo`), when the options show it.
    pub compression: Option<String>,
    /// Copy-on-write data (btrfs without `nodatacow`, zfs, bcachefs).
    pub cow: bool,
    /// Mounted `sync`.
    pub sync: bool,
    /// Mounted `noatime`.
    pub noatime: bool,
    /// Mounted read-only.
    pub read_only: bool,
    /// Data lives in memory (tmpfs, ramfs).
    pub memory: bool,
}

impl FsFacts {
    pub(crate) fn from_mount(m: &FsInfo) -> FsFacts {
        let opts: Vec<&str> = m.options.split(',').chain(m.super_options.split(',')).collect();
        let has = |o: &str| opts.contains(&o);
        let value = |k: &str| opts.iter().find_map(|o| o.strip_prefix(k)).map(str::to_string);
        let compression = match m.fstype.as_str() {
            "btrfs" => value("compress-force=")
                .map(|v| format!("force:{v}"))
                .or_else(|| value("compress=")),
            "bcachefs" => value("compression=").or_else(|| value("background_compression=")),
            _ => None,
        }
        .filter(|v| v != "no" && v != "none" && v != "force:no" && v != "force:none");
        let cow = match m.fstype.as_str() {
            "btrfs" => !has("nodatacow"),
            "zfs" | "fuse.zfs" | "bcachefs" => true,
            _ => false,
        };
        FsFacts {
            fstype: m.fstype.clone(),
            mount_point: m.mount_point.clone(),
            source: m.source.clone(),
            options: m.options.clone(),
            super_options: m.super_options.clone(),
            compress: compression.is_some(),
            compression,
            cow,
            sync: has("sync"),
            noatime: has("noatime"),
            read_only: m.options.split(',').any(|o| o == "ro"),
            memory: matches!(m.fstype.as_str(), "tmpfs" | "ramfs"),
        }
    }
}

/// What kind of block device a chain node is.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Disk,
    Partition,
    Loop,
    Dm,
    Md,
    Zram,
}

/// A loop device's backing file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct LoopInfo {
    /// The file behind the loop device.
    pub backing_file: String,
    /// `loop/dio`: direct I/O to the backing file (else through its page cache).
    pub dio: Option<bool>,
    /// Where the device starts in its backing file (`loop/offset`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub offset: u64,
    /// The filesystem the backing file lives on.
    pub backing_filesystem: Option<FsFacts>,
}

/// One block device in the chain; `children` are what it is built on
/// (a partition's disk, slaves, btrfs members, the device under a loop's file).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ChainNode {
    /// Kernel name (`sda`, `dm-0`, `md127`).
    pub name: String,
    /// `major:minor`.
    pub dev: String,
    /// What the device is.
    pub kind: NodeKind,
    /// The device's size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub size_bytes: u64,
    /// Device-mapper name (`dm/name`).
    pub dm_name: Option<String>,
    /// md RAID level (`md/level`).
    pub md_level: Option<String>,
    /// Device-mapper UUID (`dm/uuid`; LVM's start `LVM-`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dm_uuid: Option<String>,
    /// The LVM logical volume this dm device is (`VG/LV`, from its dm name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lvm: Option<String>,
    /// The dm table's target (`linear`, `striped`, `raid1`, `crypt`, `thin`...),
    /// from `dmsetup table` when it may run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dm_target: Option<String>,
    /// An md array's geometry and members' states.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub md: Option<MdInfo>,
    /// For a loop device: its backing file and how it is read.
    #[serde(rename = "loop")]
    pub loop_info: Option<LoopInfo>,
    /// Devices built on this one (`holders/`).
    pub holders: Vec<String>,
    /// A bottom of the chain: its facts are in `devices`.
    pub physical: bool,
    /// The devices this one is built on.
    pub children: Vec<ChainNode>,
}

/// Throttle limits on one device for the process that issues its I/O
/// (iolab, or zfs-fuse's daemon for its pools' members): the smallest of
/// each over its cgroup and the parents, in one hierarchy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Throttle {
    /// Kernel name of the throttled device.
    pub device: String,
    /// `major:minor`.
    pub dev: String,
    /// The issuing process's cgroup in that hierarchy (its parents were read too).
    pub cgroup: String,
    /// The read limit in bytes per second.
    #[schemars(extend("x-unit" = "B/s"))]
    pub read_bps: Option<u64>,
    /// The write limit in bytes per second.
    #[schemars(extend("x-unit" = "B/s"))]
    pub write_bps: Option<u64>,
    /// The read limit in I/Os per second.
    #[schemars(extend("x-unit" = "IOPS"))]
    pub read_iops: Option<u64>,
    /// The write limit in I/Os per second.
    #[schemars(extend("x-unit" = "IOPS"))]
    pub write_iops: Option<u64>,
    /// Where the limits are set: `blkio` (cgroup v1 `blkio.throttle.*`) or
    /// `io.max` (cgroup v2). Documents before 0.2 knew blkio only.
    #[serde(default = "blkio")]
    pub controller: String,
    /// The process whose cgroup this is when it is not iolab: the one that
    /// issues the device's I/O (`zfs-fuse (pid 812)` for its pools' members).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
}

fn blkio() -> String {
    "blkio".into()
}

impl Throttle {
    /// Where the limits are set, in words: `blkio cgroup /lab`,
    /// `cgroup v2 io.max in /lab`.
    pub fn place(&self) -> String {
        match self.controller.as_str() {
            "io.max" => format!("cgroup v2 io.max in {}", self.cgroup),
            _ => format!("blkio cgroup {}", self.cgroup),
        }
    }
}

/// One cgroup v2 `io.weight` entry on the process's path: a level's default
/// weight, or its override for a device of the chain (for the record: a
/// weight shares a contended device among sibling groups, it limits nothing).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct IoWeight {
    /// The cgroup whose `io.weight` it is.
    pub cgroup: String,
    /// The device an override is for; `None`: the level's default.
    pub device: Option<String>,
    /// `major:minor` of the device an override is for.
    pub dev: Option<String>,
    /// The weight.
    #[schemars(extend("x-unit" = "weight"))]
    pub weight: u32,
}

/// Everything `iolab info` knows about a target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct DeviceReport {
    /// The target as given.
    pub target: String,
    /// Its canonical path.
    pub path: String,
    /// What the target is.
    pub kind: TargetKind,
    /// The filesystem the target is on (`null` for a block device).
    pub filesystem: Option<FsFacts>,
    /// Top-level devices under the target (several for a multi-device btrfs).
    pub chain: Vec<ChainNode>,
    /// The physical devices at the bottom of the chain.
    pub devices: Vec<DeviceFacts>,
    /// Throttle limits on any device of the chain.
    pub throttles: Vec<Throttle>,
    /// `{"code", "subject", "text"}` each.
    #[serde(with = "crate::judge::diagnostic::hint_shape")]
    #[schemars(schema_with = "crate::judge::diagnostic::hint_shape::schema")]
    pub hints: Vec<crate::judge::Diagnostic>,
    /// How the data is spread over several devices (btrfs profile, md level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<LayoutInfo>,
    /// The cgroup v2 `io.weight` entries on the process's path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub io_weights: Vec<IoWeight>,
    /// The ZFS dataset, pool and vdevs under the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs: Option<ZfsInfo>,
}

/// An md array, from its `md/` directory (the kernel's
/// Documentation/admin-guide/md.rst, "MD devices in sysfs").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct MdInfo {
    /// The RAID level (`md/level`).
    pub level: Option<String>,
    /// `md/raid_disks`: the members the array is made of when whole.
    #[schemars(extend("x-unit" = "count"))]
    pub raid_disks: Option<u32>,
    /// `md/degraded`: how many of those are missing.
    #[schemars(extend("x-unit" = "count"))]
    pub degraded: Option<u32>,
    /// `md/array_state` (`clean`, `active`, `read-auto`...).
    pub array_state: Option<String>,
    /// `md/sync_action` (`idle`, `resync`, `recover`, `check`...).
    pub sync_action: Option<String>,
    /// The array's members.
    pub members: Vec<MdMember>,
}

/// One member of an md array (`md/dev-NAME/`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct MdMember {
    /// Kernel name.
    pub name: String,
    /// `slot`: its role in the array, `none` for a spare or a failed member.
    pub slot: Option<String>,
    /// `state`: comma-separated flags (`in_sync`, `faulty`, `spare`, `write_error`...).
    pub state: String,
}

/// A multi-device layout under the target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct LayoutInfo {
    /// Who lays the data out: `btrfs` or `md`.
    pub by: String,
    /// The profile or level as that layer names it: `raid0`, `raid1`, `raid1c3`, `raid10`, `single`, `dup`, `raid5`...
    /// (ZFS: `stripe`, `mirror`, `raidz1`..; LVM: the dm target, `linear`, `striped`, `raid1`..)
    pub profile: String,
    /// Member devices.
    #[schemars(extend("x-unit" = "count"))]
    pub members: u32,
    /// Top-level groups the members form (ZFS: data vdevs, e.g. 2 for two mirrors striped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "count"))]
    pub groups: Option<u32>,
}

impl DeviceReport {
    /// What physical device `device` is a member of, and its state there:
    /// a ZFS vdev (`tank raidz2-0`; `tank` for a disk of its own in the
    /// data class, `tank logs` in another) or an md array (`md0`), by the
    /// names on its ways up the chain; `None` when it is neither.
    pub fn membership(&self, device: &str) -> Option<(String, String)> {
        paths_up(&self.chain, device).into_iter().find_map(|path| {
            let on_path = |n: &str| path.iter().any(|p| p.name == n);
            let zfs = self.zfs.iter().flat_map(|z| z.vdevs.iter().map(move |top| (z, top)));
            for (z, top) in zfs {
                let mut leaves = Vec::new();
                top.leaves(&mut leaves);
                if let Some(leaf) = leaves.iter().find(|l| l.device.as_deref().is_some_and(on_path)) {
                    let group = match (top.children.is_empty(), top.class.as_str()) {
                        (true, "data") => z.pool.clone(),
                        (true, class) => format!("{} {class}", z.pool),
                        (false, _) => format!("{} {}", z.pool, top.name),
                    };
                    return Some((group, leaf.state.clone()));
                }
            }
            path.iter().find_map(|n| {
                let m = n.md.as_ref()?.members.iter().find(|m| on_path(&m.name))?;
                Some((n.name.clone(), m.state.clone()))
            })
        })
    }
}

/// Each way from the top of the chain down to the physical device `name`.
fn paths_up<'a>(chain: &'a [ChainNode], name: &str) -> Vec<Vec<&'a ChainNode>> {
    fn walk<'a>(n: &'a ChainNode, name: &str, above: &mut Vec<&'a ChainNode>, out: &mut Vec<Vec<&'a ChainNode>>) {
        above.push(n);
        if n.physical && n.name == name {
            out.push(above.clone());
        }
        for c in &n.children {
            walk(c, name, above, out);
        }
        above.pop();
    }
    let mut out = Vec::new();
    for n in chain {
        walk(n, name, &mut Vec::new(), &mut out);
    }
    out
}
