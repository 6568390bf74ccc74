//! Unit tests of [`super`]: the signatures, the refusals on fixture trees, and failing closed.

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

/// What a fake device holds: its first MiB (or why it cannot be read) and util-linux's answer.
struct Holds {
    head: Result<Vec<u8>, String>,
    probe: Result<Vec<Found>, String>,
}

impl Contents for Holds {
    fn sample(&self, _: &DevNode) -> std::io::Result<(Vec<u8>, Vec<u8>, u64)> {
        match &self.head {
            Ok(h) => Ok((h.clone(), vec![0u8; TAIL], 64 << 20)),
            Err(e) => Err(std::io::Error::other(e.clone())),
        }
    }
    fn probe(&self, _: &DevNode) -> Result<Vec<Found>, String> {
        self.probe.clone()
    }
}

fn found(kind: &str, offset: u64) -> Found {
    Found { kind: kind.into(), offset }
}

/// One loop device, loop5 (7:5), in a fixture tree.
fn one_loop() -> crate::device::tests::fixtures::Fx {
    let fx = crate::device::tests::fixtures::Fx::new();
    fx.disk("sys/devices/virtual/block/loop5", (7, 5), 1 << 17, &[]);
    fx
}

#[test]
fn a_device_that_cannot_be_looked_at_is_refused_even_with_force() {
    let fx = one_loop();
    let none = crate::device::NoCommands;
    // No sysfs entry: its partitions, holders and mounts are unknown.
    let r = check_with(&fx.root(), &none, 7, 99);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(matches!(&r[0], Refusal::Unverified { dev, .. } if dev == "7:99"), "{r:?}");
    assert_eq!(
        verdict(&r, true).unwrap_err(),
        "cannot tell whether 7:99 is in use: the device has no entry in /sys/dev/block (7:99), so its partitions, holders and mounts cannot be looked at"
    );
    // No holders/ to read.
    fs::remove_dir(fx.path("sys/devices/virtual/block/loop5/holders")).unwrap();
    let r = check_with(&fx.root(), &none, 7, 5);
    assert!(
        matches!(&r[..], [Refusal::Unverified { dev, why }] if dev == "loop5" && why.starts_with("its holders cannot be read")),
        "{r:?}"
    );
    assert!(verdict(&r, true).is_err());
}

#[test]
fn a_zpool_that_does_not_answer_is_refused_even_with_force() {
    use crate::device::Answer;
    use crate::device::tests::fixtures::Captured;
    let fx = one_loop();
    let slow = Captured::new().answer("zpool list -H -o name", Answer::TimedOut(std::time::Duration::from_secs(5)));
    let r = check_with(&fx.root(), &slow, 7, 5);
    assert_eq!(
        r,
        [Refusal::Unverified {
            dev: "loop5".into(),
            why: "zpool list did not answer within 5 s".into()
        }]
    );
    assert_eq!(
        verdict(&r, true).unwrap_err(),
        "cannot tell whether loop5 is in use: zpool list did not answer within 5 s"
    );
}

#[test]
fn a_loop_device_over_the_device_makes_it_in_use() {
    let fx = one_loop();
    fx.disk("sys/devices/virtual/block/loop6", (7, 6), 1 << 17, &[]);
    fx.file("sys/devices/virtual/block/loop6/loop/backing_file", "/dev/loop5\n");
    let r = check_with(&fx.root(), &crate::device::NoCommands, 7, 5);
    assert_eq!(
        r,
        [Refusal::LoopBacking {
            dev: "loop5".into(),
            by: "loop6".into()
        }]
    );
    assert_eq!(
        verdict(&r, true).unwrap_err(),
        "loop5 is in use as the backing file of the loop device loop6"
    );
}

#[test]
fn unreadable_data_or_a_failed_probe_is_refused_unless_forced() {
    let fx = one_loop();
    let none = crate::device::NoCommands;
    let unreadable = Holds {
        head: Err("reading 1048576 bytes at byte 0: Input/output error (os error 5)".into()),
        probe: Ok(vec![]),
    };
    let r = check_using(&fx.root(), &none, &unreadable, 7, 5);
    assert_eq!(
        verdict(&r, false).unwrap_err(),
        "cannot read loop5 to look for signatures: reading 1048576 bytes at byte 0: Input/output error (os error 5) (pass --force if it is really unused)"
    );
    assert!(verdict(&r, true).is_ok());
    let no_wipefs = Holds {
        head: Ok(vec![0u8; HEAD]),
        probe: Err("is not installed (not on PATH)".into()),
    };
    let r = check_using(&fx.root(), &none, &no_wipefs, 7, 5);
    assert_eq!(
        verdict(&r, false).unwrap_err(),
        "cannot tell what loop5 carries: wipefs (util-linux) is not installed (not on PATH) (pass --force if it is really unused)"
    );
    assert!(verdict(&r, true).is_ok());
}

#[test]
fn util_linux_names_what_iolabs_magic_does_not() {
    let fx = one_loop();
    let none = crate::device::NoCommands;
    // An ext4 both find is said once, in iolab's words; the LUKS2 secondary header only util-linux finds.
    let ext4 = sample_with(&[(1080, &[0x53, 0xEF])]);
    let both = Holds {
        head: Ok(ext4.clone()),
        probe: Ok(vec![found("ext4", 0x438), found("crypto_LUKS", 0x4000)]),
    };
    let r = check_using(&fx.root(), &none, &both, 7, 5);
    assert_eq!(
        r,
        [
            Refusal::Signature {
                dev: "loop5".into(),
                what: vec!["an ext2/3/4 filesystem"]
            },
            Refusal::Probed {
                dev: "loop5".into(),
                found: vec!["a crypto_LUKS signature at byte 16384".into()]
            }
        ]
    );
    assert_eq!(
        r[1].message(),
        "loop5 carries a crypto_LUKS signature at byte 16384 (found by util-linux's wipefs; pass --force if it is really unused)"
    );
    assert!(verdict(&r, true).is_ok());
    // What util-linux misses, iolab's own magic still finds (a ZFS label at the tail is tested above).
    let own_only = Holds {
        head: Ok(ext4),
        probe: Ok(vec![]),
    };
    assert_eq!(
        check_using(&fx.root(), &none, &own_only, 7, 5),
        [Refusal::Signature {
            dev: "loop5".into(),
            what: vec!["an ext2/3/4 filesystem"]
        }]
    );
}

#[test]
fn a_device_shorter_than_it_says_or_without_a_size_cannot_be_sampled() {
    let t = tempfile::tempdir().unwrap();
    let f = t.path().join("short");
    fs::write(&f, vec![0u8; 8192]).unwrap();
    let file = fs::File::open(&f).unwrap();
    let e = sample_range(&file, 0, 1 << 20).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    assert!(e.to_string().contains("ends at byte 8192"), "{e}");
    assert_eq!(sample_range(&file, 0, 8192).unwrap().0.len(), 8192);
    // A regular file has no block device size.
    let e = sample(&f).unwrap_err();
    assert!(e.to_string().starts_with("its size cannot be read"), "{e}");
}
