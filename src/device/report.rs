//! `describe`: a target path resolved to its filesystem, the chain of block
//! devices down to the physical ones, their facts, throttle limits and hints.

use super::cgroup::Issuer;
use super::facts::{DeviceFacts, device_facts};
use super::hints::hints;
use super::model::{ChainNode, DeviceReport, FsFacts, LayoutInfo, LoopInfo, MdInfo, MdMember, NodeKind, TargetKind};
use super::sysfs::{self, Blk};
use super::zfs::{self, Commands, LiveCommands, NoCommands, ZfsInfo};
use super::{FsInfo, SysRoot, cgroup, mount_for, mounts};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The file-type and device numbers of the target, as `stat` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stat {
    File { dev: (u32, u32) },
    Dir { dev: (u32, u32) },
    Block { rdev: (u32, u32) },
    Other { dev: (u32, u32) },
}

fn split(d: u64) -> (u32, u32) {
    (rustix::fs::major(d), rustix::fs::minor(d))
}

/// Describe what serves `path`: a file, directory, mount point, partition,
/// whole or stacked block device. Only the target itself is `stat`ed on the
/// live system; everything else is read under `root`, and the read-only
/// `zpool`/`zfs`/`dmsetup` commands run only for a live root (and only for
/// a ZFS or device-mapper stack).
pub fn describe(root: &SysRoot, path: &Path) -> Result<DeviceReport, String> {
    if root.0 == Path::new("/") {
        describe_with(root, &LiveCommands, path)
    } else {
        describe_with(root, &NoCommands, path)
    }
}

/// [`describe`] with the commands given.
pub fn describe_with(root: &SysRoot, cmds: &dyn Commands, path: &Path) -> Result<DeviceReport, String> {
    let md = fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let canon = fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let ft = md.file_type();
    let stat = if ft.is_block_device() {
        Stat::Block { rdev: split(md.rdev()) }
    } else if ft.is_dir() {
        Stat::Dir { dev: split(md.dev()) }
    } else if ft.is_file() {
        Stat::File { dev: split(md.dev()) }
    } else {
        Stat::Other { dev: split(md.dev()) }
    };
    Ok(describe_stat(root, cmds, &path.display().to_string(), &canon, stat))
}

/// [`describe`] with the target's `stat` already taken (fixture tests pass their own).
pub(crate) fn describe_stat(root: &SysRoot, cmds: &dyn Commands, target: &str, canon: &Path, stat: Stat) -> DeviceReport {
    let mounts = mounts(root);
    let mut w = Walk {
        root,
        cmds,
        mounts: &mounts,
        seen: Vec::new(),
        zfs: Vec::new(),
    };
    let (kind, filesystem, chain) = match stat {
        Stat::Block { rdev } => {
            let top = sysfs::by_dev(root, rdev);
            let kind = match top.as_ref().map(node_kind) {
                Some(NodeKind::Partition) => TargetKind::Partition,
                Some(NodeKind::Loop | NodeKind::Dm | NodeKind::Md) => TargetKind::StackedDevice,
                _ => TargetKind::Disk,
            };
            let fs = mounts
                .iter()
                .rev()
                .find(|m| m.dev == rdev || sysfs::by_source(root, &m.source).is_some_and(|b| b.dev == rdev));
            (
                kind,
                fs.map(FsFacts::from_mount),
                top.map(|b| vec![w.node(&b, 0)]).unwrap_or_default(),
            )
        }
        Stat::File { dev } | Stat::Dir { dev } | Stat::Other { dev } => {
            let fs = mount_for(&mounts, canon, Some(dev)).or_else(|| mount_for(&mounts, canon, None));
            let kind = match stat {
                Stat::File { .. } => TargetKind::File,
                Stat::Dir { .. } if fs.as_ref().is_some_and(|m| Path::new(&m.mount_point) == canon) => TargetKind::MountPoint,
                Stat::Dir { .. } => TargetKind::Directory,
                _ => TargetKind::Other,
            };
            let chain = fs.as_ref().map(|m| w.roots_for_mount(m, 0)).unwrap_or_default();
            (kind, fs.as_ref().map(FsFacts::from_mount), chain)
        }
    };
    let mut filesystem = filesystem;
    // The target's own ZFS dataset (a loop device's file on ZFS has its own).
    let zfs = filesystem
        .as_ref()
        .filter(|f| zfs::is_zfs(&f.fstype))
        .and_then(|f| w.zfs.iter().find(|z| z.dataset == f.source).cloned());
    if let (Some(fs), Some(z)) = (filesystem.as_mut(), zfs.as_ref())
        && let Some(c) = &z.compression
    {
        fs.compression = Some(c.clone());
        fs.compress = true;
    }
    let mut devices: Vec<DeviceFacts> = Vec::new();
    let mut all: Vec<(String, (u32, u32))> = Vec::new();
    collect(root, &chain, false, &mut devices, &mut all);
    // On a zfs-fuse dataset the daemon issues every member's I/O: its cgroup's limits apply.
    let issuer = match zfs.as_ref().and_then(|z| z.daemon.as_ref()) {
        Some(d) => Issuer::Process(d.pid, "zfs-fuse".into()),
        None => Issuer::Iolab,
    };
    let mut report = DeviceReport {
        target: target.to_string(),
        path: canon.display().to_string(),
        kind,
        zfs,
        filesystem,
        throttles: cgroup::throttles(root, &issuer, &all),
        io_weights: cgroup::io_weights(root, &issuer, &all),
        chain,
        devices,
        hints: Vec::new(),
        layout: None,
    };
    report.layout = layout(root, &report);
    report.hints = hints(&report);
    report
}

/// The btrfs data profile (from sysfs), the ZFS pool's data vdevs, or,
/// below single-device layers (a linear LV, dm-crypt), an md level or the dm
/// target of a device-mapper device over several devices (LVM striped, raid
/// and mirrored volumes).
fn layout(root: &SysRoot, r: &DeviceReport) -> Option<LayoutInfo> {
    if let Some(fs) = r.filesystem.as_ref().filter(|f| f.fstype == "btrfs") {
        let source = sysfs::by_source(root, &fs.source)?;
        let profile = sysfs::btrfs_data_profile(root, &source)?;
        return Some(LayoutInfo {
            by: "btrfs".into(),
            profile,
            members: r.chain.len() as u32,
            groups: None,
        });
    }
    if let Some(z) = &r.zfs {
        return Some(LayoutInfo {
            by: "zfs".into(),
            profile: z.layout.clone()?,
            members: z.data_leaves().len() as u32,
            groups: Some(z.data_groups() as u32),
        });
    }
    let spreads = |n: &ChainNode| {
        let t = n.dm_target.as_deref();
        n.kind == NodeKind::Dm
            && (n.children.len() > 1 || matches!(t, Some("striped" | "mirror")) || t.is_some_and(|t| t.starts_with("raid")))
    };
    // Through single-child layers (a linear LV, dm-crypt, a partition) down to what spreads the data.
    let mut top = r.chain.first()?;
    while top.md_level.is_none() && !spreads(top) && top.children.len() == 1 && matches!(top.kind, NodeKind::Dm | NodeKind::Partition) {
        top = &top.children[0];
    }
    if let Some(level) = top.md_level.clone() {
        return Some(LayoutInfo {
            by: "md".into(),
            members: top.md.as_ref().and_then(|m| m.raid_disks).unwrap_or(top.children.len() as u32),
            profile: level,
            groups: None,
        });
    }
    spreads(top).then(|| LayoutInfo {
        by: if top.lvm.is_some() { "lvm" } else { "dm" }.into(),
        profile: top.dm_target.clone().unwrap_or_else(|| "unknown".into()),
        members: dm_members(top),
        groups: None,
    })
}

fn node_kind(b: &Blk) -> NodeKind {
    if b.is_partition() {
        NodeKind::Partition
    } else if b.dir.join("loop").is_dir() {
        NodeKind::Loop
    } else if b.dir.join("dm").is_dir() {
        NodeKind::Dm
    } else if b.dir.join("md").is_dir() {
        NodeKind::Md
    } else if b.name.starts_with("zram") {
        NodeKind::Zram
    } else {
        NodeKind::Disk
    }
}

/// Leaves → device facts (once each); every device → the throttle lookup list.
fn collect(root: &SysRoot, nodes: &[ChainNode], on_memory: bool, devices: &mut Vec<DeviceFacts>, all: &mut Vec<(String, (u32, u32))>) {
    for n in nodes {
        let Some(dev) = n.dev.split_once(':').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?))) else {
            continue;
        };
        if !all.iter().any(|(_, d)| *d == dev) {
            all.push((n.name.clone(), dev));
        }
        let memory = on_memory
            || n.loop_info
                .as_ref()
                .and_then(|l| l.backing_filesystem.as_ref())
                .is_some_and(|f| f.memory);
        if n.physical
            && !devices.iter().any(|d| d.dev == n.dev)
            && let Some(b) = sysfs::by_dev(root, dev)
        {
            let mut f = device_facts(root, &b);
            f.memory_backed |= memory;
            devices.push(f);
        }
        collect(root, &n.children, memory, devices, all);
    }
}

/// The LVM `VG/LV` of a dm device whose UUID carries LVM's `LVM-` prefix:
/// LVM names the dm device `VG-LV` with each `-` inside a name doubled
/// (LVM2 `libdm`'s dm name building), so the first single `-` splits them.
fn lvm_name(b: &Blk) -> Option<String> {
    b.attr("dm/uuid").filter(|u| u.starts_with("LVM-"))?;
    let name = b.attr("dm/name")?;
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'-' {
            if bytes.get(i + 1) == Some(&b'-') {
                i += 2;
                continue;
            }
            let (vg, lv) = (&name[..i], &name[i + 1..]);
            return Some(format!("{}/{}", vg.replace("--", "-"), lv.replace("--", "-")));
        }
        i += 1;
    }
    None
}

/// The target of a dm table (`dmsetup table`: `START LENGTH TARGET ARGS`
/// per segment; the kernel's Documentation/admin-guide/device-mapper/):
/// the first segment's, with a `raid` target's RAID type (`raid1`, `raid5_ls`
/// → `raid5`) and a `mirror` as `raid1`.
pub(crate) fn dm_target(table: &str) -> Option<String> {
    let w: Vec<&str> = table.lines().next()?.split_whitespace().collect();
    let target = *w.get(2)?;
    Some(match target {
        "raid" => {
            let t = w.get(3)?;
            t.split('_').next().unwrap_or(t).to_string()
        }
        "mirror" => "raid1".to_string(),
        t => t.to_string(),
    })
}

/// The members a dm device spreads data over: its slaves, except that an
/// LVM RAID volume's slaves are its sub-volumes in pairs, `LV_rmeta_N`
/// (metadata) and `LV_rimage_N` (data): only the images count.
fn dm_members(n: &ChainNode) -> u32 {
    let images = n
        .children
        .iter()
        .filter(|c| c.lvm.as_deref().or(c.dm_name.as_deref()).is_some_and(|l| l.contains("_rimage_")))
        .count();
    if images > 0 { images as u32 } else { n.children.len() as u32 }
}

/// An md array's `md/` attributes and its members' `md/dev-*/` states.
fn md_info(b: &Blk) -> MdInfo {
    let num = |f: &str| b.attr(f).and_then(|v| v.parse().ok());
    let mut members: Vec<MdMember> = fs::read_dir(b.dir.join("md"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().strip_prefix("dev-")?.to_string();
                    let rd = |f: &str| sysfs::read_trimmed(&e.path().join(f));
                    Some(MdMember {
                        name,
                        slot: rd("slot"),
                        state: rd("state").unwrap_or_default(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    members.sort_by(|a, b| a.name.cmp(&b.name));
    MdInfo {
        level: b.attr("md/level"),
        raid_disks: num("md/raid_disks"),
        degraded: num("md/degraded"),
        array_state: b.attr("md/array_state"),
        sync_action: b.attr("md/sync_action"),
        members,
    }
}

struct Walk<'a> {
    root: &'a SysRoot,
    cmds: &'a dyn Commands,
    mounts: &'a [FsInfo],
    seen: Vec<(u32, u32)>,
    /// The ZFS datasets met on the way, each once.
    zfs: Vec<ZfsInfo>,
}

const MAX_DEPTH: usize = 16;

impl Walk<'_> {
    /// The top devices of a mounted filesystem: its own device number if
    /// that is a block device, else the mount source (for btrfs: all members).
    fn roots_for_mount(&mut self, m: &FsInfo, depth: usize) -> Vec<ChainNode> {
        let source = sysfs::by_source(self.root, &m.source);
        let tops: Vec<Blk> = if zfs::is_zfs(&m.fstype) {
            if !self.zfs.iter().any(|z| z.dataset == m.source) {
                self.zfs.push(zfs::describe(self.root, self.cmds, &m.source, &m.fstype));
            }
            let z = self.zfs.iter().find(|z| z.dataset == m.source).expect("just added");
            let mut tops: Vec<Blk> = Vec::new();
            for b in z.leaves().iter().filter_map(|v| sysfs::by_name(self.root, v.device.as_deref()?)) {
                if !tops.iter().any(|t| t.dev == b.dev) {
                    tops.push(b);
                }
            }
            tops
        } else if m.fstype == "btrfs" {
            let members = source.as_ref().map(|s| sysfs::btrfs_members(self.root, s)).unwrap_or_default();
            if members.is_empty() {
                source.into_iter().collect()
            } else {
                members
            }
        } else if let Some(b) = (m.dev.0 != 0).then(|| sysfs::by_dev(self.root, m.dev)).flatten() {
            vec![b]
        } else {
            source.into_iter().collect()
        };
        tops.iter().map(|b| self.node(b, depth)).collect()
    }

    fn node(&mut self, b: &Blk, depth: usize) -> ChainNode {
        let kind = node_kind(b);
        // `seen` holds the ancestors: a device met again below itself ends the walk.
        let looped = self.seen.contains(&b.dev) || depth > MAX_DEPTH;
        self.seen.push(b.dev);
        let mut loop_info = None;
        let children = if looped {
            Vec::new()
        } else if kind == NodeKind::Partition {
            b.disk().map(|d| vec![self.node(&d, depth + 1)]).unwrap_or_default()
        } else if kind == NodeKind::Loop {
            let (info, kids) = self.loop_backing(b, depth);
            loop_info = info;
            kids
        } else {
            b.slaves().iter().map(|s| self.node(s, depth + 1)).collect()
        };
        self.seen.pop();
        ChainNode {
            name: b.name.clone(),
            dev: b.dev_string(),
            kind,
            size_bytes: b.size_bytes(),
            dm_name: b.attr("dm/name"),
            md_level: b.attr("md/level"),
            dm_uuid: b.attr("dm/uuid"),
            lvm: lvm_name(b),
            dm_target: (kind == NodeKind::Dm)
                .then(|| b.attr("dm/name"))
                .flatten()
                .and_then(|n| self.cmds.run("dmsetup", &["table", &n]))
                .and_then(|t| dm_target(&t)),
            md: (kind == NodeKind::Md).then(|| md_info(b)),
            loop_info,
            holders: b.holders().into_iter().map(|h| h.name).collect(),
            physical: children.is_empty() && kind != NodeKind::Partition,
            children,
        }
    }

    /// A loop device's backing file, and the devices under that file.
    fn loop_backing(&mut self, b: &Blk, depth: usize) -> (Option<LoopInfo>, Vec<ChainNode>) {
        let Some(file) = b.attr("loop/backing_file") else {
            return (None, Vec::new());
        };
        let file = file.strip_suffix(" (deleted)").unwrap_or(&file).to_string();
        let path = PathBuf::from(&file);
        // Live, the file's own device number picks among stacked mounts; in a fixture it is not there.
        let live_dev = (self.root.0 == Path::new("/"))
            .then(|| fs::metadata(&path).ok())
            .flatten()
            .map(|m| split(m.dev()));
        let fs = live_dev
            .and_then(|d| mount_for(self.mounts, &path, Some(d)))
            .or_else(|| mount_for(self.mounts, &path, None));
        let kids = fs.as_ref().map(|m| self.roots_for_mount(m, depth + 1)).unwrap_or_default();
        let info = LoopInfo {
            backing_file: file,
            dio: b.attr("loop/dio").map(|s| s == "1"),
            offset: b.attr("loop/offset").and_then(|s| s.parse().ok()).unwrap_or(0),
            backing_filesystem: fs.as_ref().map(FsFacts::from_mount),
        };
        (Some(info), kids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mount(fstype: &str, options: &str, super_options: &str) -> FsInfo {
        FsInfo {
            fstype: fstype.into(),
            mount_point: "/m".into(),
            source: "/dev/sda1".into(),
            options: options.into(),
            super_options: super_options.into(),
            dev: (8, 1),
        }
    }

    #[test]
    fn fs_flags_from_options() {
        let f = FsFacts::from_mount(&mount("btrfs", "rw,noatime", "rw,compress=zstd:3,space_cache=v2"));
        assert!(f.compress && f.cow && f.noatime && !f.sync && !f.read_only);
        assert_eq!(f.compression.as_deref(), Some("zstd:3"));
        let f = FsFacts::from_mount(&mount("btrfs", "rw", "rw,compress-force=lzo,nodatacow"));
        assert_eq!(f.compression.as_deref(), Some("force:lzo"));
        assert!(!f.cow);
        let f = FsFacts::from_mount(&mount("ext4", "ro,sync,relatime", "ro"));
        assert!(f.sync && f.read_only && !f.compress && !f.cow && !f.noatime);
        assert!(FsFacts::from_mount(&mount("zfs", "rw", "rw,xattr")).cow);
        assert!(FsFacts::from_mount(&mount("tmpfs", "rw", "rw")).memory);
        let f = FsFacts::from_mount(&mount("bcachefs", "rw", "rw,compression=lz4"));
        assert!(f.compress && f.cow);
    }

    #[test]
    fn live_root_on_block_device() {
        let root = SysRoot::default();
        let r = describe(&root, Path::new("/")).expect("describe /");
        assert_eq!(r.kind, TargetKind::MountPoint);
        let fs = r.filesystem.as_ref().expect("root filesystem");
        if fs.source.starts_with("/dev/") && sysfs::by_source(&root, &fs.source).is_some() {
            assert!(!r.chain.is_empty(), "{r:#?}");
            assert!(!r.devices.is_empty(), "{r:#?}");
        }
        if fs.source == "/dev/vda" {
            assert_eq!(fs.fstype, "ext4");
            assert_eq!(r.devices[0].name, "vda");
            assert_eq!(r.devices[0].transport, super::super::Transport::Virtio);
        }
    }

    #[test]
    fn live_dev_shm_has_no_block_device() {
        let Ok(r) = describe(&SysRoot::default(), Path::new("/dev/shm")) else {
            return;
        };
        if r.filesystem.as_ref().is_some_and(|f| f.fstype == "tmpfs") {
            assert!(r.chain.is_empty());
            assert!(r.hints.iter().any(|h| h.code == "memory-backed"));
        }
    }

    #[test]
    fn missing_target_is_an_error() {
        assert!(describe(&SysRoot::default(), Path::new("/no/such/iolab/path")).is_err());
    }

    #[test]
    fn lvm_raid_members_are_its_images_and_dm_tables_name_the_target() {
        let node = |name: &str, children: Vec<ChainNode>| ChainNode {
            name: name.into(),
            dev: "253:0".into(),
            kind: NodeKind::Dm,
            size_bytes: 0,
            dm_name: Some(name.into()),
            md_level: None,
            dm_uuid: None,
            lvm: None,
            dm_target: None,
            md: None,
            loop_info: None,
            holders: vec![],
            physical: children.is_empty(),
            children,
        };
        let sub = ["vg-r_rmeta_0", "vg-r_rimage_0", "vg-r_rmeta_1", "vg-r_rimage_1"].map(|n| node(n, vec![]));
        assert_eq!(dm_members(&node("vg-r", sub.to_vec())), 2);
        assert_eq!(dm_members(&node("vg-s", vec![node("a", vec![]), node("b", vec![])])), 2);
        assert_eq!(
            dm_target("0 2097152 raid raid5_ls 3 128 region_size 4096 3 - 254:1 - 254:2 - 254:3\n").as_deref(),
            Some("raid5")
        );
        assert_eq!(dm_target("0 100 mirror core 1 1024 2 8:16 0 8:32 0").as_deref(), Some("raid1"));
        assert_eq!(dm_target("").as_deref(), None);
    }
}
