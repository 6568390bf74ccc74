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
fn live_root_filesystem_resolves() {
    // Every Linux machine has a root filesystem; it must resolve to *some* mount.
    let fs = filesystem_of(&SysRoot::default(), Path::new("/")).expect("root fs");
    assert_eq!(fs.mount_point, "/");
}
