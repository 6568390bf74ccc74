pub(crate) mod fixtures;
mod scenarios;
mod stack_scenarios;
mod zfs_fuse_scenarios;

use super::*;

#[test]
fn a_btrfs_file_whose_device_number_is_not_its_mounts_is_on_that_mount() {
    // A fresh btrfs on loop5: mountinfo says 0:41, its files' st_dev 0:42.
    let mounts: Vec<FsInfo> = [
        "26 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw",
        "47 27 0:41 / /tmp/trbtrfs rw,relatime - btrfs /dev/loop5 rw,ssd,space_cache=v2,subvolid=5,subvol=/",
    ]
    .iter()
    .filter_map(|l| parse_mountinfo_line(l))
    .collect();
    let mount_holding = |p: &Path, dev| mount_for(&mounts, p, Some(dev)).or_else(|| btrfs_mount_for(&mounts, p));
    let m = mount_holding(Path::new("/tmp/trbtrfs/iolab-test-1/f"), (0, 42)).unwrap();
    assert_eq!((m.fstype.as_str(), m.source.as_str()), ("btrfs", "/dev/loop5"));
    // The device number still decides where it names a mount: ext4's file is ext4's.
    let m = mount_holding(Path::new("/tmp/trbtrfs/x"), (259, 2)).unwrap();
    assert_eq!(m.fstype, "ext4");
}

#[test]
fn the_devices_of_a_btrfs_are_read_from_sysfs() {
    let d = tempfile::tempdir().unwrap();
    let dev = |fsid: &str, name: &str, number: &str| {
        let p = d.path().join(format!("sys/fs/btrfs/{fsid}/devices/{name}"));
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("dev"), format!("{number}\n")).unwrap();
    };
    dev("11111111-aaaa", "loop7", "7:7");
    dev("22222222-bbbb", "loop4", "7:4");
    dev("22222222-bbbb", "loop3", "7:3");
    dev("22222222-bbbb", "loop5", "7:5");
    std::fs::create_dir_all(d.path().join("sys/fs/btrfs/features")).unwrap();
    let root = SysRoot(d.path().to_path_buf());
    assert_eq!(btrfs_devices(&root, (7, 4)), ["loop3", "loop4", "loop5"]);
    assert_eq!(btrfs_devices(&root, (7, 7)), ["loop7"]);
    assert!(btrfs_devices(&root, (8, 0)).is_empty());
    assert!(btrfs_devices(&SysRoot(d.path().join("none")), (7, 4)).is_empty());
}

#[test]
fn mountinfo_line() {
    let l = "36 25 7:3 / /mnt/my\\040disk rw,noatime shared:1 - ext4 /dev/loop3 rw,data=ordered";
    let m = parse_mountinfo_line(l).unwrap();
    assert_eq!(m.fstype, "ext4");
    assert_eq!(m.mount_point, "/mnt/my disk");
    assert_eq!(m.source, "/dev/loop3");
    assert_eq!(m.dev, (7, 3));
    assert_eq!(m.options, "rw,noatime");
    assert_eq!(m.super_options, "rw,data=ordered");
}

#[test]
fn a_btrfs_subvolume_is_found_by_its_mount_point_not_its_device_number() {
    let all: Vec<FsInfo> = [
        "27 1 254:0 / / rw - ext4 /dev/vda rw",
        "45 27 0:39 / /run/iolab/x rw,relatime - btrfs /dev/loop5 rw,subvolid=5,subvol=/",
        "46 27 0:50 / /mnt/t rw - tmpfs tmpfs rw",
    ]
    .iter()
    .filter_map(|l| parse_mountinfo_line(l))
    .collect();
    // `stat` says 0:40 for the subvolume; mountinfo 0:39 for the filesystem.
    let p = Path::new("/run/iolab/x/iolab-test.tmp");
    assert!(mount_for(&all, p, Some((0, 40))).is_none());
    assert_eq!(btrfs_mount_for(&all, p).unwrap().source, "/dev/loop5");
    // Only btrfs: an unknown number on tmpfs or ext4 stays unknown.
    assert!(btrfs_mount_for(&all, Path::new("/mnt/t/f")).is_none());
    assert!(btrfs_mount_for(&all, Path::new("/srv/f")).is_none());
}

#[test]
fn live_root_filesystem_resolves() {
    // Every Linux machine has a root filesystem; it must resolve to *some* mount.
    let fs = filesystem_of(&SysRoot::default(), Path::new("/")).expect("root fs");
    assert_eq!(fs.mount_point, "/");
}
