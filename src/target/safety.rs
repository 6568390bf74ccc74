//! Refusing to destroy data that was not given.
//!
//! Before iolab writes to a block device (already only with `--allow-destroy`)
//! it checks the device, each of its partitions and their holders, and
//! refuses, naming the reason, when any of them is:
//! - mounted (`/proc/self/mountinfo`), or a member of a mounted btrfs;
//! - active swap (`/proc/swaps`);
//! - held by another block device (md, dm/LVM, bcache: `holders/`);
//! - a member of an imported ZFS pool, OpenZFS or zfs-fuse (`zpool status`,
//!   and the zfs-fuse daemon's open descriptors), or of an md array
//!   (`/sys/block/mdN/md/dev-*`, `/proc/mdstat`), even where `holders/`
//!   does not show it: see [`crate::device::live_members`];
//! - carrying a partition table or a filesystem/RAID/volume signature,
//!   ZFS labels at the device's end included (an exported pool whose first
//!   labels were wiped is still importable from its last two).
//!
//! `--force` overrides only the last rule: a signature may be stale, but a
//! mount, swap, a holder or a live pool or array is data in use right now,
//! and iolab destroys only what it built itself. (Opening the device
//! `O_EXCL` in [`crate::target`] additionally makes the kernel refuse while
//! anyone else holds it exclusively.)
//!
//! A btrfs counts as in use while `/sys/fs/btrfs/<fsid>/` lists the device:
//! the kernel creates that directory when the filesystem is mounted and
//! removes it at the unmount, so it is a live filesystem. A btrfs that is
//! only registered (`btrfs device scan`, udev) but not mounted is not held
//! by anyone (the scan keeps no device open, and the list of scanned
//! devices is not in sysfs): its superblock is a signature, forceable like
//! any unmounted filesystem's. (Checked on Linux 6.18: after `btrfs device
//! scan` of a new btrfs no `/sys/fs/btrfs/<fsid>` exists; mounted, its
//! `devices/` lists the loop device; unmounted, the directory is gone.)
//!
//! An LVM physical volume is in use while a logical volume on it is active:
//! the LV's dm device is then its holder. A PV of a volume group with no
//! active LV is held by nobody, and its `LABELONE`/`LVM2` label is a
//! signature (forceable).
//!
//! [`check_all`] checks a list of devices at once (the layouts runner, before
//! it builds anything): every refusal of every device, and the same device
//! given twice (two paths to one `major:minor`, or a disk and its partition).
//!
//! The signatures are read here from their magic bytes rather than through
//! libblkid: the list below covers what a disk given to a benchmark is likely
//! to carry, the check stays a pure function over two buffers (so every
//! signature has a unit test), and no C library or external tool is needed.

use crate::device::{Commands, LiveCommands, LiveUse, NoCommands, SysRoot};
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes read from the start and from the end of a device.
pub const HEAD: usize = 1 << 20;
pub const TAIL: usize = 1 << 20;
/// A ZFS label's size (`sizeof (vdev_label_t)`).
const ZFS_LABEL: usize = 256 * 1024;

/// Why a write was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Mounted {
        dev: String,
        at: String,
    },
    Swap {
        dev: String,
    },
    Held {
        dev: String,
        by: Vec<String>,
    },
    BtrfsMember {
        dev: String,
        fsid: String,
    },
    /// A leaf of an imported ZFS pool (either implementation).
    ZfsMember {
        dev: String,
        pool: String,
    },
    /// Held open by the zfs-fuse daemon, its pool not known (`zpool` did not answer).
    ZfsFuseOpen {
        dev: String,
        pid: u32,
    },
    /// A member of an md array that `holders/` does not show.
    MdMember {
        dev: String,
        array: String,
    },
    /// Two of the paths given are one device.
    SameDevice {
        dev: String,
        first: String,
        second: String,
    },
    /// A path given is a partition of another device given.
    PartitionOfGiven {
        part: String,
        disk: String,
    },
    /// A path given is not a block device (or cannot be looked at).
    NotBlockDevice {
        path: String,
        why: String,
    },
    Signature {
        dev: String,
        what: Vec<&'static str>,
    },
}

impl Refusal {
    /// Can `--force` override it?
    pub fn forceable(&self) -> bool {
        // Exhaustive, so that a new reason has to say whether it is.
        match self {
            Refusal::Signature { .. } => true,
            Refusal::Mounted { .. }
            | Refusal::Swap { .. }
            | Refusal::Held { .. }
            | Refusal::BtrfsMember { .. }
            | Refusal::ZfsMember { .. }
            | Refusal::ZfsFuseOpen { .. }
            | Refusal::MdMember { .. }
            | Refusal::SameDevice { .. }
            | Refusal::PartitionOfGiven { .. }
            | Refusal::NotBlockDevice { .. } => false,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Refusal::Mounted { dev, at } => format!("{dev} is mounted at {at}"),
            Refusal::Swap { dev } => format!("{dev} is in use as swap"),
            Refusal::Held { dev, by } => format!("{dev} is in use by {} (md, device-mapper/LVM or similar)", by.join(", ")),
            Refusal::BtrfsMember { dev, fsid } => format!("{dev} is a member of the mounted btrfs filesystem {fsid}"),
            Refusal::ZfsMember { dev, pool } => format!("{dev} is a member of the imported ZFS pool {pool}"),
            Refusal::ZfsFuseOpen { dev, pid } => {
                format!("{dev} is held open by the zfs-fuse daemon (pid {pid}): a member of one of its imported pools")
            }
            Refusal::MdMember { dev, array } => format!("{dev} is a member of the md array {array}"),
            Refusal::SameDevice { dev, first, second } => {
                format!("{first} and {second} are the same device ({dev}): give each device once")
            }
            Refusal::PartitionOfGiven { part, disk } => format!("{part} is a partition of {disk}, which is also given"),
            Refusal::NotBlockDevice { path, why } => format!("{path} {why}"),
            Refusal::Signature { dev, what } => format!("{dev} carries {} (pass --force if it is really unused)", what.join(", ")),
        }
    }
}

/// Read-only facts about a block device's data, for [`detect`].
pub struct Sample<'a> {
    pub head: &'a [u8],
    pub tail: &'a [u8],
    pub size: u64,
}

fn at(b: &[u8], off: usize, magic: &[u8]) -> bool {
    b.get(off..off + magic.len()) == Some(magic)
}

fn le32(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

/// The signatures found in a device's first and last bytes, by name.
pub fn detect(s: &Sample) -> Vec<&'static str> {
    let h = s.head;
    let mut found = Vec::new();
    let mut add = |cond: bool, name: &'static str| {
        if cond && !found.contains(&name) {
            found.push(name);
        }
    };
    // Partition tables.
    let gpt = at(h, 512, b"EFI PART") || at(h, 4096, b"EFI PART");
    add(gpt, "a GPT partition table");
    let tail_gpt = s.tail.len() >= 512 && at(s.tail, s.tail.len() - 512, b"EFI PART");
    add(tail_gpt, "a GPT partition table (backup header)");
    let boot_sig = at(h, 510, &[0x55, 0xAA]);
    let fat = at(h, 54, b"FAT12") || at(h, 54, b"FAT16") || at(h, 82, b"FAT32") || at(h, 54, b"FAT   ");
    add(fat && boot_sig, "a FAT filesystem");
    let mbr_entries = (0..4).any(|i| {
        let e = 446 + 16 * i;
        h.get(e + 4).is_some_and(|&t| t != 0) && h.get(e).is_some_and(|&f| f == 0 || f == 0x80)
    });
    // A GPT disk's protective MBR is part of the GPT, not a second table.
    add(boot_sig && !fat && !gpt && mbr_entries, "an MBR partition table");
    // Filesystems.
    add(at(h, 1024 + 56, &[0x53, 0xEF]), "an ext2/3/4 filesystem");
    add(at(h, 0, b"XFSB"), "an XFS filesystem");
    add(at(h, 65536 + 64, b"_BHRfS_M"), "a btrfs filesystem");
    add(at(h, 3, b"NTFS    "), "an NTFS filesystem");
    add(at(h, 3, b"EXFAT   "), "an exFAT filesystem");
    add(le32(h, 1024) == Some(0xF2F5_2010), "an F2FS filesystem");
    add(at(h, 32769, b"CD001"), "an ISO 9660 filesystem");
    add(at(h, 0, b"LUKS\xba\xbe"), "a LUKS encrypted volume");
    add(
        at(h, 4096 - 10, b"SWAPSPACE2") || at(h, 4096 - 10, b"SWAP-SPACE"),
        "a swap signature",
    );
    // Volume managers and RAID.
    add(
        (0..4).any(|sec| at(h, 512 * sec, b"LABELONE") && at(h, 512 * sec + 24, b"LVM2")),
        "an LVM physical volume",
    );
    let md_magic = 0xa92b_4efc_u32;
    add(
        le32(h, 0) == Some(md_magic) || le32(h, 4096) == Some(md_magic),
        "an md RAID superblock",
    );
    // md 1.0 sits 8 KiB (4 KiB aligned) before the end; 0.90 in the last 64 KiB-aligned 64 KiB.
    let tail_off = |dev_off: u64| -> Option<usize> {
        let start = s.size.checked_sub(s.tail.len() as u64)?;
        dev_off.checked_sub(start).map(|o| o as usize)
    };
    let md10 = (s.size.saturating_sub(8192)) & !4095;
    let md090 = (s.size & !65535).saturating_sub(65536);
    let md_tail = [md10, md090]
        .iter()
        .any(|&o| tail_off(o).and_then(|o| le32(s.tail, o)) == Some(md_magic));
    add(md_tail, "an md RAID superblock");
    // ZFS: four 256 KiB labels, two at the start and two at the end of the
    // device's size rounded down to 256 KiB (`vdev_label_offset`); each has
    // its uberblock ring (magic 0x00bab10c, one per KiB at least) in its
    // second 128 KiB. An exported pool whose start was wiped still imports
    // from the last two.
    let ring = |b: &[u8], label: usize| {
        (0..128).any(|i| {
            let o = label + ZFS_LABEL / 2 + i * 1024;
            let v = b.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()));
            v == Some(0x00ba_b10c) || v == Some(0x0cb1_ba00_0000_0000)
        })
    };
    add(ring(h, 0) || ring(h, ZFS_LABEL), "a ZFS pool label");
    let end = s.size & !(ZFS_LABEL as u64 - 1);
    let tail_labels = [end.checked_sub(2 * ZFS_LABEL as u64), end.checked_sub(ZFS_LABEL as u64)];
    let zfs_tail = tail_labels.iter().flatten().any(|&o| tail_off(o).is_some_and(|t| ring(s.tail, t)));
    add(zfs_tail, "a ZFS pool label");
    found
}

/// Read the head and tail of a device node.
pub fn sample(path: &Path) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
    let f = fs::File::open(path)?;
    let size = crate::device::block_device_size(&f).unwrap_or(0);
    sample_range(&f, 0, size)
}

/// Read the head and tail of `len` bytes at `base` of an open device.
fn sample_range(f: &fs::File, base: u64, size: u64) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
    let read = |off: u64, len: usize| -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let n = f.read_at(&mut buf[done..], base + off + done as u64)?;
            if n == 0 {
                break;
            }
            done += n;
        }
        buf.truncate(done);
        Ok(buf)
    };
    let head = read(0, HEAD.min(size as usize))?;
    let tail_len = TAIL.min(size as usize);
    let tail = read(size - tail_len as u64, tail_len)?;
    Ok((head, tail, size))
}

/// A block device as sysfs names it, with its partitions.
#[derive(Debug, Clone)]
pub struct DevNode {
    pub name: String,
    pub major: u32,
    pub minor: u32,
    /// The `/sys/class/block/NAME` directory.
    pub sys: PathBuf,
    /// `/dev/NAME`, for reading signatures.
    pub node: PathBuf,
    /// For a partition: the whole disk's node and the partition's byte range
    /// on it, so it can be read even where no node exists for the partition.
    pub on_disk: Option<(PathBuf, u64, u64)>,
}

impl DevNode {
    /// Head and tail of this device's data.
    pub fn sample(&self) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
        match &self.on_disk {
            Some((disk, start, len)) if !self.node.exists() => sample_range(&fs::File::open(disk)?, *start, *len),
            _ => sample(&self.node),
        }
    }
}

/// The device `major:minor` and, for a whole disk, its partitions.
pub fn device_and_partitions(root: &SysRoot, major: u32, minor: u32) -> Vec<DevNode> {
    let link = root.0.join(format!("sys/dev/block/{major}:{minor}"));
    let Ok(real) = fs::canonicalize(&link) else { return Vec::new() };
    let mut out = vec![node_at(root, &real)].into_iter().flatten().collect::<Vec<_>>();
    if !real.join("partition").exists()
        && let Ok(rd) = fs::read_dir(&real)
    {
        let mut parts: Vec<DevNode> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("partition").exists())
            .filter_map(|p| node_at(root, &p))
            .collect();
        parts.sort_by(|a, b| a.name.cmp(&b.name));
        out.extend(parts);
    }
    out
}

fn node_at(root: &SysRoot, dir: &Path) -> Option<DevNode> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let dev = fs::read_to_string(dir.join("dev")).ok()?;
    let (ma, mi) = dev.trim().split_once(':')?;
    let sectors = |f: &str| fs::read_to_string(dir.join(f)).ok().and_then(|v| v.trim().parse::<u64>().ok());
    let on_disk = dir.join("partition").exists().then(|| {
        let disk = dir.parent()?.file_name()?.to_string_lossy().into_owned();
        Some((root.0.join("dev").join(disk), sectors("start")? * 512, sectors("size")? * 512))
    });
    let on_disk = on_disk.flatten();
    Some(DevNode {
        node: root.0.join("dev").join(&name),
        on_disk,
        name,
        major: ma.parse().ok()?,
        minor: mi.parse().ok()?,
        sys: dir.to_path_buf(),
    })
}

/// The commands to ask on `root`: the live ones on the live system, none
/// on a fixture tree (whose pools are not the machine's).
fn commands_for(root: &SysRoot) -> &'static dyn Commands {
    if root.0 == Path::new("/") { &LiveCommands } else { &NoCommands }
}

/// What the system says about every device, read once for all of them.
struct System {
    mounts: Vec<crate::device::FsInfo>,
    swaps: String,
    live: Vec<((u32, u32), LiveUse)>,
}

impl System {
    fn read(root: &SysRoot, cmds: &dyn Commands) -> System {
        System {
            mounts: crate::device::mounts(root),
            swaps: fs::read_to_string(root.0.join("proc/swaps")).unwrap_or_default(),
            live: crate::device::live_members(root, cmds),
        }
    }
}

/// Every reason not to write to the device `major:minor`, in order of severity
/// (the unforceable ones first). Empty: safe to write. On the live system
/// `zpool` is asked for its pools' members.
pub fn check(root: &SysRoot, major: u32, minor: u32) -> Vec<Refusal> {
    check_with(root, commands_for(root), major, minor)
}

/// [`check`], asking `cmds` for the ZFS pools.
pub fn check_with(root: &SysRoot, cmds: &dyn Commands, major: u32, minor: u32) -> Vec<Refusal> {
    check_in(root, &System::read(root, cmds), major, minor)
}

fn check_in(root: &SysRoot, sys: &System, major: u32, minor: u32) -> Vec<Refusal> {
    let devs = device_and_partitions(root, major, minor);
    let mut out = Vec::new();
    for d in &devs {
        let node = format!("/dev/{}", d.name);
        if let Some(m) = sys.mounts.iter().find(|m| m.dev == (d.major, d.minor) || m.source == node) {
            out.push(Refusal::Mounted {
                dev: d.name.clone(),
                at: m.mount_point.clone(),
            });
        }
        for line in sys.swaps.lines().skip(1) {
            let Some(p) = line.split_whitespace().next() else { continue };
            if p == format!("/dev/{}", d.name) || same_device(p, d.major, d.minor) {
                out.push(Refusal::Swap { dev: d.name.clone() });
            }
        }
        let by: Vec<String> = fs::read_dir(d.sys.join("holders"))
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        if let Some(fsid) = btrfs_member(root, &d.name) {
            out.push(Refusal::BtrfsMember { dev: d.name.clone(), fsid });
        }
        let uses: Vec<&LiveUse> = sys
            .live
            .iter()
            .filter(|(dev, _)| *dev == (d.major, d.minor))
            .map(|(_, u)| u)
            .collect();
        let mut in_pool = false;
        for u in &uses {
            match u {
                LiveUse::ZfsPool(pool) => {
                    in_pool = true;
                    let r = Refusal::ZfsMember {
                        dev: d.name.clone(),
                        pool: pool.clone(),
                    };
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
                LiveUse::Md(array) if !by.contains(array) => {
                    let r = Refusal::MdMember {
                        dev: d.name.clone(),
                        array: array.clone(),
                    };
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
                _ => {}
            }
        }
        if !in_pool && let Some(LiveUse::ZfsFuse(pid)) = uses.iter().find(|u| matches!(u, LiveUse::ZfsFuse(_))) {
            out.push(Refusal::ZfsFuseOpen {
                dev: d.name.clone(),
                pid: *pid,
            });
        }
        if !by.is_empty() {
            out.push(Refusal::Held { dev: d.name.clone(), by });
        }
    }
    for d in &devs {
        if let Ok((head, tail, size)) = d.sample() {
            let what = detect(&Sample {
                head: &head,
                tail: &tail,
                size,
            });
            if !what.is_empty() {
                out.push(Refusal::Signature { dev: d.name.clone(), what });
            }
        }
    }
    out
}

/// The device number of a path given: its block device node; in a fixture
/// root (whose `/dev` holds plain files), the device the `/dev/...` name
/// stands for in the root's sysfs.
fn given_device(root: &SysRoot, path: &Path) -> Result<(u32, u32), Refusal> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let live = root.0 == Path::new("/");
    let under = match path.strip_prefix("/") {
        Ok(rel) => root.0.join(rel),
        Err(_) => path.to_path_buf(),
    };
    let md = fs::metadata(&under);
    if let Ok(md) = &md
        && md.file_type().is_block_device()
    {
        return Ok((rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev())));
    }
    if !live && let Some(dev) = crate::device::block_device_by_path(root, &path.to_string_lossy()) {
        return Ok(dev);
    }
    Err(Refusal::NotBlockDevice {
        path: path.display().to_string(),
        why: match md {
            Ok(_) => "is not a block device".into(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist".into(),
            Err(e) => format!("cannot be looked at: {e}"),
        },
    })
}

/// Check every device given before anything is built: `Ok` when iolab may
/// destroy all of them, else every refusal `--force` (`force`) does not
/// override, of every device, at once. A device given twice, or a disk
/// and one of its partitions, is refused too.
pub fn check_all(root: &SysRoot, devices: &[PathBuf], force: bool) -> Result<(), Vec<Refusal>> {
    check_all_with(root, commands_for(root), devices, force)
}

/// [`check_all`], asking `cmds` for the ZFS pools.
pub fn check_all_with(root: &SysRoot, cmds: &dyn Commands, devices: &[PathBuf], force: bool) -> Result<(), Vec<Refusal>> {
    let sys = System::read(root, cmds);
    let mut out = Vec::new();
    let mut seen: Vec<(String, (u32, u32), Vec<DevNode>)> = Vec::new();
    for p in devices {
        let shown = p.display().to_string();
        let dev = match given_device(root, p) {
            Ok(d) => d,
            Err(r) => {
                out.push(r);
                continue;
            }
        };
        let nodes = device_and_partitions(root, dev.0, dev.1);
        let name = nodes.first().map_or_else(|| format!("{}:{}", dev.0, dev.1), |n| n.name.clone());
        if let Some((first, ..)) = seen.iter().find(|(_, d, _)| *d == dev) {
            out.push(Refusal::SameDevice {
                dev: name,
                first: first.clone(),
                second: shown,
            });
            continue;
        }
        for (other, odev, onodes) in &seen {
            if onodes.iter().skip(1).any(|n| (n.major, n.minor) == dev) {
                out.push(Refusal::PartitionOfGiven {
                    part: shown.clone(),
                    disk: other.clone(),
                });
            } else if nodes.iter().skip(1).any(|n| (n.major, n.minor) == *odev) {
                out.push(Refusal::PartitionOfGiven {
                    part: other.clone(),
                    disk: shown.clone(),
                });
            }
        }
        out.extend(check_in(root, &sys, dev.0, dev.1).into_iter().filter(|r| !(force && r.forceable())));
        seen.push((shown, dev, nodes));
    }
    if out.is_empty() { Ok(()) } else { Err(out) }
}

fn same_device(path: &str, major: u32, minor: u32) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    fs::metadata(path)
        .is_ok_and(|m| m.file_type().is_block_device() && rustix::fs::major(m.rdev()) == major && rustix::fs::minor(m.rdev()) == minor)
}

/// The fsid of a mounted btrfs that lists `name` among its devices.
fn btrfs_member(root: &SysRoot, name: &str) -> Option<String> {
    let rd = fs::read_dir(root.0.join("sys/fs/btrfs")).ok()?;
    rd.flatten()
        .find(|e| e.path().join("devices").join(name).exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
}

/// The verdict for a write: `Ok` or the one-line reason to refuse.
pub fn verdict(refusals: &[Refusal], force: bool) -> Result<(), String> {
    match refusals.iter().find(|r| !(force && r.forceable())) {
        None => Ok(()),
        Some(r) => Err(r.message()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_with(patches: &[(usize, &[u8])]) -> Vec<u8> {
        let mut h = vec![0u8; HEAD];
        for (off, bytes) in patches {
            h[*off..*off + bytes.len()].copy_from_slice(bytes);
        }
        h
    }

    fn detect_head(patches: &[(usize, &[u8])]) -> Vec<&'static str> {
        let h = sample_with(patches);
        detect(&Sample {
            head: &h,
            tail: &[0u8; 4096],
            size: 64 << 20,
        })
    }

    #[test]
    fn blank_device_has_no_signature() {
        assert!(detect_head(&[]).is_empty());
        let noise: Vec<u8> = (0..HEAD).map(|i| (i * 7 % 251) as u8).collect();
        assert!(
            detect(&Sample {
                head: &noise,
                tail: &noise[..4096],
                size: 1 << 30
            })
            .is_empty()
        );
    }

    #[test]
    fn partition_tables() {
        assert_eq!(
            detect_head(&[(512, b"EFI PART"), (510, &[0x55, 0xAA]), (446 + 4, &[0xEE])]),
            ["a GPT partition table"]
        );
        assert_eq!(detect_head(&[(510, &[0x55, 0xAA]), (446 + 4, &[0x83])]), ["an MBR partition table"]);
        // A boot signature with no partition entry is not a partition table.
        assert!(detect_head(&[(510, &[0x55, 0xAA])]).is_empty());
    }

    #[test]
    fn filesystems() {
        assert_eq!(detect_head(&[(1080, &[0x53, 0xEF])]), ["an ext2/3/4 filesystem"]);
        assert_eq!(detect_head(&[(0, b"XFSB")]), ["an XFS filesystem"]);
        assert_eq!(detect_head(&[(65600, b"_BHRfS_M")]), ["a btrfs filesystem"]);
        assert_eq!(detect_head(&[(82, b"FAT32"), (510, &[0x55, 0xAA])]), ["a FAT filesystem"]);
        assert_eq!(detect_head(&[(4086, b"SWAPSPACE2")]), ["a swap signature"]);
        assert_eq!(detect_head(&[(3, b"NTFS    ")]), ["an NTFS filesystem"]);
        assert_eq!(detect_head(&[(0, b"LUKS\xba\xbe")]), ["a LUKS encrypted volume"]);
    }

    #[test]
    fn volume_managers_and_raid() {
        assert_eq!(detect_head(&[(512, b"LABELONE"), (536, b"LVM2 001")]), ["an LVM physical volume"]);
        assert_eq!(detect_head(&[(4096, &0xa92b_4efc_u32.to_le_bytes())]), ["an md RAID superblock"]);
        assert_eq!(
            detect_head(&[(128 * 1024 + 3 * 1024, &0x00ba_b10c_u64.to_le_bytes())]),
            ["a ZFS pool label"]
        );
        // md 1.0: near the end of the device.
        let size: u64 = 64 << 20;
        let mut tail = vec![0u8; TAIL];
        let off = (((size - 8192) & !4095) - (size - TAIL as u64)) as usize;
        tail[off..off + 4].copy_from_slice(&0xa92b_4efc_u32.to_le_bytes());
        assert_eq!(
            detect(&Sample {
                head: &[0u8; 4096],
                tail: &tail,
                size
            }),
            ["an md RAID superblock"]
        );
    }

    #[test]
    fn force_overrides_only_signatures() {
        let sig = Refusal::Signature {
            dev: "loop9".into(),
            what: vec!["an XFS filesystem"],
        };
        let mnt = Refusal::Mounted {
            dev: "loop9p1".into(),
            at: "/mnt".into(),
        };
        assert!(verdict(std::slice::from_ref(&sig), false).unwrap_err().contains("XFS"));
        assert!(verdict(std::slice::from_ref(&sig), true).is_ok());
        assert!(verdict(&[sig, mnt.clone()], true).unwrap_err().contains("mounted at /mnt"));
        assert!(verdict(&[Refusal::Swap { dev: "x".into() }], true).is_err());
        assert!(
            verdict(
                &[Refusal::Held {
                    dev: "x".into(),
                    by: vec!["dm-0".into()]
                }],
                true
            )
            .is_err()
        );
        assert!(verdict(&[], false).is_ok());
    }

    /// Partitions, holders, mounts and swap from a fixture tree.
    #[test]
    fn fixture_tree_refusals() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        let disk = r.join("sys/devices/virtual/block/sdz");
        for (dir, dev) in [(disk.clone(), "8:0"), (disk.join("sdz1"), "8:1"), (disk.join("sdz2"), "8:2")] {
            fs::create_dir_all(dir.join("holders")).unwrap();
            fs::write(dir.join("dev"), format!("{dev}\n")).unwrap();
        }
        fs::write(disk.join("sdz1/partition"), "1\n").unwrap();
        fs::write(disk.join("sdz2/partition"), "2\n").unwrap();
        fs::create_dir_all(disk.join("sdz2/holders/md0")).unwrap();
        fs::create_dir_all(r.join("sys/dev/block")).unwrap();
        std::os::unix::fs::symlink(&disk, r.join("sys/dev/block/8:0")).unwrap();
        fs::create_dir_all(r.join("proc/self")).unwrap();
        fs::write(r.join("proc/self/mountinfo"), "30 1 8:1 / /srv rw,relatime - ext4 /dev/sdz1 rw\n").unwrap();
        fs::write(
            r.join("proc/swaps"),
            "Filename Type Size Used Priority\n/dev/sdz9 partition 1 0 -2\n",
        )
        .unwrap();
        let root = SysRoot(r.to_path_buf());
        let names: Vec<String> = device_and_partitions(&root, 8, 0).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["sdz", "sdz1", "sdz2"]);
        let refusals = check(&root, 8, 0);
        assert!(
            refusals.contains(&Refusal::Mounted {
                dev: "sdz1".into(),
                at: "/srv".into()
            }),
            "{refusals:?}"
        );
        assert!(
            refusals.contains(&Refusal::Held {
                dev: "sdz2".into(),
                by: vec!["md0".into()]
            }),
            "{refusals:?}"
        );
        assert!(verdict(&refusals, true).is_err());
    }

    /// A ZFS label's uberblock magic at the ring of the label at `label`.
    fn put_uberblock(buf: &mut [u8], label: usize) {
        let o = label + ZFS_LABEL / 2 + 5 * 1024;
        buf[o..o + 8].copy_from_slice(&0x00ba_b10c_u64.to_le_bytes());
    }

    #[test]
    fn zfs_labels_at_the_start_and_at_the_end() {
        // The second label alone (the first wiped).
        let mut head = vec![0u8; HEAD];
        put_uberblock(&mut head, ZFS_LABEL);
        let tail = vec![0u8; TAIL];
        let size: u64 = (64 << 20) + 100 * 1024;
        assert_eq!(
            detect(&Sample {
                head: &head,
                tail: &tail,
                size
            }),
            ["a ZFS pool label"]
        );
        // The head wiped whole: labels 2 and 3 sit before the size rounded down to 256 KiB.
        let end = size & !(ZFS_LABEL as u64 - 1);
        let start = size - TAIL as u64;
        for label in [end - 2 * ZFS_LABEL as u64, end - ZFS_LABEL as u64] {
            let mut tail = vec![0u8; TAIL];
            put_uberblock(&mut tail, (label - start) as usize);
            assert_eq!(
                detect(&Sample {
                    head: &[0u8; HEAD],
                    tail: &tail,
                    size
                }),
                ["a ZFS pool label"],
                "label at {label}"
            );
        }
        // The same bytes where no label sits (unrounded size) are no label.
        let mut tail = vec![0u8; TAIL];
        put_uberblock(&mut tail, TAIL - ZFS_LABEL - 100 * 1024 + 512);
        assert!(
            detect(&Sample {
                head: &[0u8; HEAD],
                tail: &tail,
                size
            })
            .is_empty()
        );
    }

    /// Paths of a fixture root's `/dev` names.
    fn given(names: &[&str]) -> Vec<PathBuf> {
        names.iter().map(|n| PathBuf::from(format!("/dev/{n}"))).collect()
    }

    #[test]
    fn live_pools_arrays_and_btrfs_are_not_forceable() {
        use crate::device::tests::fixtures::{self, Fx};
        // zfs-fuse: loop0..3 in pool zfsinfo-mc; loop4 open by the daemon only (no `zpool list` answer for it).
        let fx = fixtures::zfs_fuse_machine();
        let cmds = fixtures::zfs_fuse_commands().file("zpool list -H -o name", "zpool-list-zfs-fuse.txt");
        let r = check_with(&fx.root(), &cmds, 7, 1);
        assert_eq!(
            r,
            [Refusal::ZfsMember {
                dev: "loop1".into(),
                pool: "zfsinfo-mc".into()
            }]
        );
        assert_eq!(r[0].message(), "loop1 is a member of the imported ZFS pool zfsinfo-mc");
        let r = check_with(&fx.root(), &cmds, 7, 4);
        assert_eq!(
            r,
            [Refusal::ZfsFuseOpen {
                dev: "loop4".into(),
                pid: 4242
            }]
        );
        assert!(verdict(&r, true).unwrap_err().contains("zfs-fuse daemon (pid 4242)"));

        // OpenZFS: `zpool status -P` paths.
        let fx = fixtures::stacks();
        let cmds = fixtures::stack_commands().file("zpool list -H -o name", "zpool-list-openzfs.txt");
        let vdf = crate::device::block_device_by_path(&fx.root(), "/dev/vdf").unwrap();
        let r = check_with(&fx.root(), &cmds, vdf.0, vdf.1);
        assert!(
            r.contains(&Refusal::ZfsMember {
                dev: "vdf1".into(),
                pool: "fast".into()
            }),
            "{r:?}"
        );

        // An md member without holders, and a mounted btrfs's member.
        let fx = Fx::new();
        fx.disk("sys/devices/virtual/block/loop5", (7, 5), 1 << 17, &[]);
        fx.disk("sys/devices/virtual/block/loop6", (7, 6), 1 << 17, &[]);
        fx.disk("sys/devices/virtual/block/md9", (9, 9), 1 << 17, &[]);
        fx.link(
            "sys/devices/virtual/block/md9/md/dev-loop5/block",
            "sys/devices/virtual/block/loop5",
        );
        fx.link("sys/fs/btrfs/0b1e5c00-fsid/devices/loop6", "sys/devices/virtual/block/loop6");
        let root = fx.root();
        let none = crate::device::NoCommands;
        let r = check_with(&root, &none, 7, 5);
        assert_eq!(
            r,
            [Refusal::MdMember {
                dev: "loop5".into(),
                array: "md9".into()
            }]
        );
        assert_eq!(r[0].message(), "loop5 is a member of the md array md9");
        // Held through `holders/` too: said once, as a holder.
        fx.link("sys/devices/virtual/block/loop5/holders/md9", "sys/devices/virtual/block/md9");
        let r = check_with(&root, &none, 7, 5);
        assert_eq!(
            r,
            [Refusal::Held {
                dev: "loop5".into(),
                by: vec!["md9".into()]
            }]
        );
        let r = check_with(&root, &none, 7, 6);
        assert_eq!(
            r,
            [Refusal::BtrfsMember {
                dev: "loop6".into(),
                fsid: "0b1e5c00-fsid".into()
            }]
        );
        for r in [
            Refusal::ZfsMember {
                dev: "a".into(),
                pool: "p".into(),
            },
            Refusal::ZfsFuseOpen { dev: "a".into(), pid: 1 },
            Refusal::MdMember {
                dev: "a".into(),
                array: "md0".into(),
            },
            Refusal::BtrfsMember {
                dev: "a".into(),
                fsid: "f".into(),
            },
        ] {
            assert!(!r.forceable(), "{r:?}");
            assert!(verdict(std::slice::from_ref(&r), true).is_err());
        }

        // All of them at once, and --force changes nothing.
        let all = check_all_with(&root, &none, &given(&["loop5", "loop6"]), true).unwrap_err();
        assert_eq!(all.len(), 2, "{all:?}");
    }

    #[test]
    fn check_all_refuses_a_device_given_twice() {
        use crate::device::tests::fixtures::Fx;
        let fx = Fx::new();
        let disk = "sys/devices/pci0000:00/0000:00:05.0/virtio3/block/vdz";
        fx.disk(disk, (254, 16), 1 << 20, &[]);
        fx.part(disk, "vdz1", (254, 17), 1, 1 << 19);
        fx.disk("sys/devices/virtual/block/loop7", (7, 7), 1 << 17, &[]);
        fx.file("dev/vdz", "");
        fx.link("dev/disk/by-id/virtio-lab", "dev/vdz");
        let root = fx.root();
        let none = crate::device::NoCommands;
        assert_eq!(check_all_with(&root, &none, &given(&["vdz", "loop7"]), false), Ok(()));
        let r = check_all_with(&root, &none, &given(&["vdz", "loop7", "disk/by-id/virtio-lab"]), false).unwrap_err();
        assert_eq!(
            r,
            [Refusal::SameDevice {
                dev: "vdz".into(),
                first: "/dev/vdz".into(),
                second: "/dev/disk/by-id/virtio-lab".into()
            }]
        );
        assert_eq!(
            r[0].message(),
            "/dev/vdz and /dev/disk/by-id/virtio-lab are the same device (vdz): give each device once"
        );
        let r = check_all_with(&root, &none, &given(&["vdz1", "vdz"]), true).unwrap_err();
        assert_eq!(
            r,
            [Refusal::PartitionOfGiven {
                part: "/dev/vdz1".into(),
                disk: "/dev/vdz".into()
            }]
        );
        let r = check_all_with(&root, &none, &given(&["nothere"]), true).unwrap_err();
        assert_eq!(r[0].message(), "/dev/nothere does not exist");
    }
}
