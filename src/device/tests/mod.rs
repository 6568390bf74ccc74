pub(crate) mod fixtures;
mod scenarios;
mod stack_scenarios;
mod zfs_fuse_scenarios;

use super::*;

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
