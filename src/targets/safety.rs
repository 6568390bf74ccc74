//! Refusing to destroy data that was not given.
//!
//! Before iolab writes to a block device (already only with `--allow-destroy`)
//! it checks the device, each of its partitions and their holders, and
//! refuses, naming the reason, when any of them is:
//! - mounted (`/proc/self/mountinfo`), or a member of a mounted btrfs;
//! - active swap (`/proc/swaps`);
//! - held by another block device (md, dm/LVM, bcache: `holders/`), or the
//!   backing file of a loop device (`/sys/block/loopN/loop/backing_file`:
//!   a loop device opens it without `O_EXCL` and registers no holder);
//! - a member of an imported ZFS pool, OpenZFS or zfs-fuse (`zpool status`,
//!   and the zfs-fuse daemon's open descriptors), or of an md array
//!   (`/sys/block/mdN/md/dev-*`, `/proc/mdstat`), even where `holders/`
//!   does not show it: see [`crate::device::live_members`];
//! - carrying a partition table or a filesystem/RAID/volume/encryption
//!   signature: what util-linux's probe finds ([`super::signatures`]:
//!   `wipefs --no-act --json`, the authority), and what iolab's own magic
//!   numbers find ([`detect`]: ZFS labels at the device's end included, as
//!   an exported pool whose first labels were wiped is still importable
//!   from its last two).
//!
//! `--force` overrides only the last rule: a signature may be stale, but a
//! mount, swap, a holder or a live pool or array is data in use right now,
//! and iolab destroys only what it built itself. (Opening the device
//! `O_EXCL` in [`crate::targets`] additionally makes the kernel refuse while
//! anyone else holds it exclusively.)
//!
//! The check fails closed: what cannot be looked at is a refusal with its
//! reason, never a pass. A device with no sysfs entry (or no `holders/`),
//! or a `zpool` that does not answer in time (or fails while ZFS runs), may
//! be in use: refused, `--force` or not ([`Refusal::Unverified`]). A head or
//! tail that cannot be read, a size that cannot be read, or a util-linux
//! probe that is missing or fails leaves the signatures unknown: refused
//! unless `--force` ([`Refusal::Unreadable`], [`Refusal::ProbeFailed`]),
//! which says to destroy whatever the device carries.
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
//! iolab's own signatures are read from their magic bytes: the list below
//! covers what a disk given to a benchmark is likely to carry, and stays a
//! pure function over two buffers (so every signature has a unit test).
//! util-linux's probe runs as a program (no C library is linked), behind
//! [`Contents`], so the unit tests need neither util-linux nor a device.

use crate::device::{Commands, LiveCommands, LiveUse, NoCommands, SysRoot};
use crate::targets::signatures::{self, Found};
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
    /// The backing file of the loop device `by` (which reads and writes it).
    LoopBacking {
        dev: String,
        by: String,
    },
    /// Whether the device is in use could not be found out (no sysfs
    /// entry; `zpool` did not answer in time): it may be.
    Unverified {
        dev: String,
        why: String,
    },
    /// Its size, first or last MiB could not be read: its signatures are unknown.
    Unreadable {
        dev: String,
        why: String,
    },
    /// util-linux's probe (`wipefs`) is missing or failed: its signatures are unknown.
    ProbeFailed {
        dev: String,
        why: String,
    },
    /// Signatures util-linux's probe found that iolab's own magic numbers
    /// did not (`a crypto_LUKS signature at byte 16384`).
    Probed {
        dev: String,
        found: Vec<String>,
    },
}

impl Refusal {
    /// Can `--force` override it?
    pub fn forceable(&self) -> bool {
        // Exhaustive, so that a new reason has to say whether it is.
        match self {
            Refusal::Signature { .. } | Refusal::Probed { .. } | Refusal::Unreadable { .. } | Refusal::ProbeFailed { .. } => true,
            Refusal::LoopBacking { .. } | Refusal::Unverified { .. } => false,
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
            Refusal::LoopBacking { dev, by } => format!("{dev} is in use as the backing file of the loop device {by}"),
            Refusal::Unverified { dev, why } => format!("cannot tell whether {dev} is in use: {why}"),
            Refusal::Unreadable { dev, why } => {
                format!("cannot read {dev} to look for signatures: {why} (pass --force if it is really unused)")
            }
            Refusal::ProbeFailed { dev, why } => {
                format!("cannot tell what {dev} carries: wipefs (util-linux) {why} (pass --force if it is really unused)")
            }
            Refusal::Probed { dev, found } => format!(
                "{dev} carries {} (found by util-linux's wipefs; pass --force if it is really unused)",
                found.join(", ")
            ),
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

/// Read the head and tail of a device node. A size that cannot be read
/// (`BLKGETSIZE64`) and a read that ends early are errors.
pub fn sample(path: &Path) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
    let f = open_for_reading(path)?;
    let size = crate::device::block_device_size(&f).map_err(|e| std::io::Error::new(e.kind(), format!("its size cannot be read: {e}")))?;
    sample_range(&f, 0, size)
}

fn open_for_reading(path: &Path) -> std::io::Result<fs::File> {
    fs::File::open(path).map_err(|e| std::io::Error::new(e.kind(), format!("opening {}: {e}", path.display())))
}

/// Read the head and tail of `len` bytes at `base` of an open device.
fn sample_range(f: &fs::File, base: u64, size: u64) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
    let read = |off: u64, len: usize| -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        let mut done = 0;
        while done < len {
            let at = base + off + done as u64;
            let n = f
                .read_at(&mut buf[done..], at)
                .map_err(|e| std::io::Error::new(e.kind(), format!("reading {len} bytes at byte {}: {e}", base + off)))?;
            if n == 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("the device ends at byte {at}, before the {size} bytes it announces"),
                ));
            }
            done += n;
        }
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
            Some((disk, start, len)) if !self.node.exists() => sample_range(&open_for_reading(disk)?, *start, *len),
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

/// What is on a device, for the signature rules: its bytes (for iolab's
/// own magic numbers) and util-linux's probe. Behind a trait so the unit
/// tests need neither a device nor util-linux.
pub trait Contents {
    /// The device's first and last MiB and its size ([`DevNode::sample`]).
    fn sample(&self, d: &DevNode) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)>;
    /// util-linux's signatures on it; `Err`: why the probe could not say,
    /// in words after "wipefs" ([`signatures::wipefs`]).
    fn probe(&self, d: &DevNode) -> Result<Vec<Found>, String>;
}

/// The live system's devices: read from their nodes, probed by `wipefs`.
pub struct LiveContents;

impl Contents for LiveContents {
    fn sample(&self, d: &DevNode) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
        d.sample()
    }
    fn probe(&self, d: &DevNode) -> Result<Vec<Found>, String> {
        signatures::wipefs(&LiveCommands, &d.node)
    }
}

/// A fixture tree's devices, which have no data: empty, nothing found.
pub struct NoContents;

impl Contents for NoContents {
    fn sample(&self, _: &DevNode) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
        Ok((Vec::new(), Vec::new(), 0))
    }
    fn probe(&self, _: &DevNode) -> Result<Vec<Found>, String> {
        Ok(Vec::new())
    }
}

/// The contents to read on `root`: the live devices on the live system,
/// none on a fixture tree (whose `/dev` holds no devices).
fn contents_for(root: &SysRoot) -> &'static dyn Contents {
    if root.0 == Path::new("/") { &LiveContents } else { &NoContents }
}

/// What the system says about every device, read once for all of them.
struct System {
    mounts: Vec<crate::device::FsInfo>,
    swaps: String,
    live: Vec<((u32, u32), LiveUse)>,
    /// Why some live memberships may be missing (`zpool list did not answer within 5 s`).
    unknown: Vec<String>,
}

impl System {
    fn read(root: &SysRoot, cmds: &dyn Commands) -> System {
        let live = crate::device::live_members_checked(root, cmds);
        System {
            mounts: crate::device::mounts(root),
            swaps: fs::read_to_string(root.0.join("proc/swaps")).unwrap_or_default(),
            live: live.members,
            unknown: live.unknown,
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
    check_using(root, cmds, contents_for(root), major, minor)
}

/// [`check`], asking `cmds` for the ZFS pools and reading the devices' data through `contents`.
pub fn check_using(root: &SysRoot, cmds: &dyn Commands, contents: &dyn Contents, major: u32, minor: u32) -> Vec<Refusal> {
    check_in(root, &System::read(root, cmds), contents, major, minor)
}

fn check_in(root: &SysRoot, sys: &System, contents: &dyn Contents, major: u32, minor: u32) -> Vec<Refusal> {
    let devs = device_and_partitions(root, major, minor);
    let mut out = Vec::new();
    let Some(top) = devs.first() else {
        return vec![Refusal::Unverified {
            dev: format!("{major}:{minor}"),
            why: format!(
                "the device has no entry in /sys/dev/block ({major}:{minor}), so its partitions, holders and mounts cannot be looked at"
            ),
        }];
    };
    for why in &sys.unknown {
        out.push(Refusal::Unverified {
            dev: top.name.clone(),
            why: why.clone(),
        });
    }
    for d in &devs {
        in_use(root, sys, d, &mut out);
    }
    for d in &devs {
        signed(contents, d, &mut out);
    }
    out
}

/// What uses device (or partition) `d` now: a mount, swap, a holder, a
/// btrfs filesystem, a live ZFS pool or zfs-fuse, an md array, a loop device.
fn in_use(root: &SysRoot, sys: &System, d: &DevNode, out: &mut Vec<Refusal>) {
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
    let by: Vec<String> = match fs::read_dir(d.sys.join("holders")) {
        Ok(rd) => rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect(),
        Err(e) => {
            out.push(Refusal::Unverified {
                dev: d.name.clone(),
                why: format!("its holders cannot be read ({}: {e})", d.sys.join("holders").display()),
            });
            Vec::new()
        }
    };
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
            LiveUse::Loop(lo) => {
                let r = Refusal::LoopBacking {
                    dev: d.name.clone(),
                    by: lo.clone(),
                };
                if !out.contains(&r) {
                    out.push(r);
                }
            }
            LiveUse::Md(_) | LiveUse::ZfsFuse(_) => {}
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

/// What device (or partition) `d` carries: a signature iolab knows, or
/// one util-linux's probe finds; or why its data could not be read.
fn signed(contents: &dyn Contents, d: &DevNode, out: &mut Vec<Refusal>) {
    let what = match contents.sample(d) {
        Ok((head, tail, size)) => detect(&Sample {
            head: &head,
            tail: &tail,
            size,
        }),
        Err(e) => {
            out.push(Refusal::Unreadable {
                dev: d.name.clone(),
                why: e.to_string(),
            });
            Vec::new()
        }
    };
    let probed = contents.probe(d);
    if !what.is_empty() {
        out.push(Refusal::Signature {
            dev: d.name.clone(),
            what: what.clone(),
        });
    }
    match probed {
        Ok(found) => {
            let mut more: Vec<String> = Vec::new();
            for f in found.iter().filter(|f| !signatures::explained_by(&f.kind, &what)) {
                let said = f.describe();
                if !more.contains(&said) {
                    more.push(said);
                }
            }
            if !more.is_empty() {
                out.push(Refusal::Probed {
                    dev: d.name.clone(),
                    found: more,
                });
            }
        }
        Err(why) => out.push(Refusal::ProbeFailed { dev: d.name.clone(), why }),
    }
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
    check_all_using(root, cmds, contents_for(root), devices, force)
}

/// [`check_all`], asking `cmds` for the ZFS pools and reading the devices' data through `contents`.
pub fn check_all_using(
    root: &SysRoot,
    cmds: &dyn Commands,
    contents: &dyn Contents,
    devices: &[PathBuf],
    force: bool,
) -> Result<(), Vec<Refusal>> {
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
        out.extend(
            check_in(root, &sys, contents, dev.0, dev.1)
                .into_iter()
                .filter(|r| !(force && r.forceable())),
        );
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
#[path = "safety_tests.rs"]
mod tests;
