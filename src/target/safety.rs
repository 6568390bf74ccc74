//! Refusing to destroy data that was not given.
//!
//! Before iolab writes to a block device (already only with `--allow-destroy`)
//! it checks the device, each of its partitions and their holders, and
//! refuses, naming the reason, when any of them is:
//! - mounted (`/proc/self/mountinfo`), or a member of a mounted btrfs;
//! - active swap (`/proc/swaps`);
//! - held by another block device (md, dm/LVM, bcache: `holders/`);
//! - carrying a partition table or a filesystem/RAID/volume signature.
//!
//! `--force` overrides only the last rule: a signature may be stale, but a
//! mount, swap or a holder is data in use right now. (Opening the device
//! `O_EXCL` in [`crate::target`] additionally makes the kernel refuse while
//! anyone else holds it exclusively.)
//!
//! The signatures are read here from their magic bytes rather than through
//! libblkid: the list below covers what a disk given to a benchmark is likely
//! to carry, the check stays a pure function over two buffers (so every
//! signature has a unit test), and no C library or external tool is needed.

use crate::device::SysRoot;
use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes read from the start and from the end of a device.
pub const HEAD: usize = 1 << 20;
pub const TAIL: usize = 1 << 20;

/// Why a write was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Mounted { dev: String, at: String },
    Swap { dev: String },
    Held { dev: String, by: Vec<String> },
    BtrfsMember { dev: String, fsid: String },
    Signature { dev: String, what: Vec<&'static str> },
}

impl Refusal {
    /// Can `--force` override it?
    pub fn forceable(&self) -> bool {
        matches!(self, Refusal::Signature { .. })
    }

    pub fn message(&self) -> String {
        match self {
            Refusal::Mounted { dev, at } => format!("{dev} is mounted at {at}"),
            Refusal::Swap { dev } => format!("{dev} is in use as swap"),
            Refusal::Held { dev, by } => format!("{dev} is in use by {} (md, device-mapper/LVM or similar)", by.join(", ")),
            Refusal::BtrfsMember { dev, fsid } => format!("{dev} is a member of the mounted btrfs filesystem {fsid}"),
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
    // ZFS: uberblocks (magic 0x00bab10c) in the 128 KiB after the first label's first 128 KiB.
    let zfs = (0..128).any(|i| {
        let o = 128 * 1024 + i * 1024;
        let v = h.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()));
        v == Some(0x00ba_b10c) || v == Some(0x0cb1_ba00_0000_0000)
    });
    add(zfs, "a ZFS pool label");
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

/// Every reason not to write to the device `major:minor`, in order of severity
/// (the unforceable ones first). Empty: safe to write.
pub fn check(root: &SysRoot, major: u32, minor: u32) -> Vec<Refusal> {
    let devs = device_and_partitions(root, major, minor);
    let mut out = Vec::new();
    let mounts = crate::device::mounts(root);
    let swaps = fs::read_to_string(root.0.join("proc/swaps")).unwrap_or_default();
    for d in &devs {
        let node = format!("/dev/{}", d.name);
        if let Some(m) = mounts.iter().find(|m| m.dev == (d.major, d.minor) || m.source == node) {
            out.push(Refusal::Mounted {
                dev: d.name.clone(),
                at: m.mount_point.clone(),
            });
        }
        for line in swaps.lines().skip(1) {
            let Some(p) = line.split_whitespace().next() else { continue };
            if p == format!("/dev/{}", d.name) || same_device(p, d.major, d.minor) {
                out.push(Refusal::Swap { dev: d.name.clone() });
            }
        }
        let by: Vec<String> = fs::read_dir(d.sys.join("holders"))
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        if !by.is_empty() {
            out.push(Refusal::Held { dev: d.name.clone(), by });
        }
        if let Some(fsid) = btrfs_member(root, &d.name) {
            out.push(Refusal::BtrfsMember { dev: d.name.clone(), fsid });
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
}
