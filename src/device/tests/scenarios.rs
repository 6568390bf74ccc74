//! `describe` on the fixture machine (see [`super::fixtures::machine`]).

use super::fixtures::{Fx, machine};
use crate::device::Transport;
use crate::device::model::{DeviceReport, NodeKind, TargetKind};
use crate::device::report::{Stat, describe_stat};
use crate::device::zfs::NoCommands;
use std::path::Path;

fn file(fx: &Fx, path: &str, dev: (u32, u32)) -> DeviceReport {
    describe_stat(&fx.root(), &NoCommands, path, Path::new(path), Stat::File { dev })
}

fn codes(r: &DeviceReport) -> Vec<String> {
    r.hints.iter().map(|h| h.code.to_string()).collect()
}

#[test]
fn sata_disk_with_ncq() {
    let fx = machine();
    let r = describe_stat(&fx.root(), &NoCommands, "/data", Path::new("/data"), Stat::Dir { dev: (8, 1) });
    assert_eq!(r.kind, TargetKind::MountPoint);
    assert_eq!(r.filesystem.as_ref().unwrap().fstype, "ext4");
    assert!(r.filesystem.as_ref().unwrap().noatime);
    assert_eq!(r.chain.len(), 1);
    assert_eq!((r.chain[0].name.as_str(), r.chain[0].kind), ("sda1", NodeKind::Partition));
    assert_eq!(r.chain[0].children[0].name, "sda");
    assert!(!r.chain[0].physical && r.chain[0].children[0].physical);
    let d = &r.devices[0];
    assert_eq!(r.devices.len(), 1);
    assert_eq!(d.transport, Transport::Sata);
    assert_eq!(
        d.sysfs_path,
        "/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sda"
    );
    assert_eq!(d.link_speed.as_deref(), Some("6.0 Gbps"));
    assert_eq!(d.queue_depth, Some(32));
    assert_eq!(d.rotational, Some(true));
    assert_eq!(d.vendor.as_deref(), Some("ATA"));
    assert_eq!(d.model.as_deref(), Some("WDC WD40EFRX-68N32N0"));
    assert_eq!(d.firmware.as_deref(), Some("0A82"));
    assert_eq!(d.serial.as_deref(), Some("WD-WCC7K1234567"));
    assert_eq!(d.size_bytes, 7814037168 * 512);
    assert_eq!((d.logical_block_size, d.physical_block_size), (Some(512), Some(4096)));
    assert_eq!(d.scheduler.as_deref(), Some("mq-deadline"));
    assert_eq!(d.nr_requests, Some(64));
    assert_eq!(d.volatile_write_cache, Some(true));
    assert_eq!(d.discard, Some(false));
    assert_eq!(d.hw_queues, None);
    assert_eq!(codes(&r), ["rotational", "volatile-write-cache"]);
    assert!(r.throttles.is_empty());
}

#[test]
fn usb_uas_disk_under_device_mapper() {
    let fx = machine();
    let r = file(&fx, "/media/crypt/f", (253, 0));
    let dm = &r.chain[0];
    assert_eq!(
        (dm.name.as_str(), dm.kind, dm.dm_name.as_deref()),
        ("dm-0", NodeKind::Dm, Some("vg-data"))
    );
    let part = &dm.children[0];
    assert_eq!(part.name, "sdb1");
    assert_eq!(part.holders, ["dm-0"]);
    assert_eq!(part.children[0].name, "sdb");
    let d = &r.devices[0];
    assert_eq!(d.transport, Transport::UsbUas);
    assert_eq!(d.link_speed.as_deref(), Some("5000 Mbit/s"));
    assert_eq!(d.usb_bridge.as_deref(), Some("174c:55aa ASMedia Portable SSD"));
    assert_eq!(d.serial.as_deref(), Some("000000000000A1B2"));
    assert_eq!(d.queue_depth, Some(30));
    assert!(codes(&r).is_empty(), "{:?}", r.hints);
    // The dm source also resolves through /dev/mapper when the target is the mount's block device.
    let b = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/dm-0",
        Path::new("/dev/dm-0"),
        Stat::Block { rdev: (253, 0) },
    );
    assert_eq!(b.kind, TargetKind::StackedDevice);
    assert_eq!(b.filesystem.unwrap().mount_point, "/media/crypt");
}

#[test]
fn usb_storage_stick_is_throttled() {
    let fx = machine();
    let r = file(&fx, "/media/stick/a.bin", (8, 33));
    let d = &r.devices[0];
    assert_eq!(d.name, "sdc");
    assert_eq!(d.transport, Transport::UsbStorage);
    assert_eq!(d.queue_depth, Some(1));
    assert_eq!(d.link_speed.as_deref(), Some("480 Mbit/s"));
    assert_eq!(r.throttles.len(), 1);
    assert_eq!(
        (r.throttles[0].device.as_str(), r.throttles[0].read_bps, r.throttles[0].write_iops),
        ("sdc", Some(30_000_000), Some(200))
    );
    assert_eq!(codes(&r), ["usb-no-uas", "rotational", "cgroup-throttle"]);
    assert!(r.hints[2].message.contains("reads to 30.0 MB/s, writes to 200 IOPS"));
}

#[test]
fn nvme_namespace_partition() {
    let fx = machine();
    let r = file(&fx, "/etc/hosts", (259, 1));
    assert_eq!(r.kind, TargetKind::File);
    assert_eq!(r.filesystem.as_ref().unwrap().mount_point, "/");
    assert_eq!(r.chain[0].children[0].name, "nvme0n1");
    let d = &r.devices[0];
    assert_eq!(d.transport, Transport::Nvme);
    assert_eq!(d.model.as_deref(), Some("Samsung SSD 980 PRO 1TB"));
    assert_eq!(d.firmware.as_deref(), Some("5B2QGXA7"));
    assert_eq!(d.serial.as_deref(), Some("S5GXNF0R123456"));
    assert_eq!(d.wwid.as_deref(), Some("eui.002538b21102a5c1"));
    assert_eq!(d.hw_queues, Some(8));
    assert_eq!(d.link_speed.as_deref(), Some("16.0 GT/s PCIe x4"));
    assert_eq!(d.scheduler.as_deref(), Some("none"));
    assert_eq!(d.discard, Some(true));
    assert_eq!(d.queue_depth, None);
    assert_eq!(codes(&r), ["volatile-write-cache"]);
}

#[test]
fn loop_device_down_to_its_disk() {
    let fx = machine();
    let r = file(&fx, "/mnt/img/x", (7, 0));
    let lp = &r.chain[0];
    assert_eq!(lp.kind, NodeKind::Loop);
    let info = lp.loop_info.as_ref().unwrap();
    assert_eq!(info.backing_file, "/data/images/disk.img");
    assert_eq!(info.dio, Some(false));
    assert_eq!(info.backing_filesystem.as_ref().unwrap().mount_point, "/data");
    assert_eq!(lp.children[0].name, "sda1");
    assert_eq!(lp.children[0].children[0].name, "sda");
    assert_eq!(r.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["sda"]);
    assert_eq!(codes(&r), ["rotational", "volatile-write-cache", "loop-buffered"]);

    let b = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/loop0",
        Path::new("/dev/loop0"),
        Stat::Block { rdev: (7, 0) },
    );
    assert_eq!(b.kind, TargetKind::StackedDevice);
    assert_eq!(b.filesystem.unwrap().mount_point, "/mnt/img");
}

#[test]
fn loop_over_tmpfs_is_memory() {
    let fx = machine();
    let r = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/loop1",
        Path::new("/dev/loop1"),
        Stat::Block { rdev: (7, 1) },
    );
    assert!(r.filesystem.is_none());
    assert!(r.chain[0].children.is_empty() && r.chain[0].physical);
    assert_eq!(
        r.chain[0].loop_info.as_ref().unwrap().backing_filesystem.as_ref().unwrap().fstype,
        "tmpfs"
    );
    let d = &r.devices[0];
    assert_eq!((d.transport, d.memory_backed), (Transport::Loop, true));
    assert_eq!(codes(&r), ["memory-backed"]);
}

/// Issue 37: a loop device over a file in `/dev/shm` serves a measured
/// target from memory, as `info` says: its `BlockDev` is memory-backed (so
/// its jobs get `memory_device`); one over a file on a disk is not.
#[test]
fn a_loop_device_over_tmpfs_is_a_memory_device_for_the_target_too() {
    let fx = machine();
    let root = fx.root();
    let over_shm = crate::device::block_dev(&root, 7, 1).unwrap();
    assert_eq!(over_shm.backing_file.as_deref(), Some("/dev/shm/ram.img"));
    assert!(over_shm.memory, "loop1 over /dev/shm: {over_shm:?}");
    let over_disk = crate::device::block_dev(&root, 7, 0).unwrap();
    assert_eq!(over_disk.backing_file.as_deref(), Some("/data/images/disk.img"));
    assert!(!over_disk.memory, "loop0 over a file on a disk: {over_disk:?}");
    // The chain a target on it is served by starts with it.
    assert!(crate::device::chain_for_dev(&root, 7, 1)[0].memory);
}

#[test]
fn zram_whole_device() {
    let fx = machine();
    let r = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/zram0",
        Path::new("/dev/zram0"),
        Stat::Block { rdev: (251, 0) },
    );
    assert_eq!(r.kind, TargetKind::Disk);
    assert_eq!(r.chain[0].kind, NodeKind::Zram);
    let d = &r.devices[0];
    assert_eq!(
        (d.transport, d.memory_backed, d.scheduler.as_deref()),
        (Transport::Zram, true, None)
    );
    assert_eq!(d.logical_block_size, Some(4096));
    assert_eq!(codes(&r), ["memory-backed"]);
}

#[test]
fn btrfs_raid1_over_three_devices() {
    let fx = machine();
    let r = file(&fx, "/pool/vm/disk.qcow2", (0, 45));
    let fs = r.filesystem.as_ref().unwrap();
    assert!(fs.cow && fs.compress && fs.noatime);
    assert_eq!(fs.compression.as_deref(), Some("zstd:3"));
    let names: Vec<&str> = r.chain.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["sdd", "sde", "sdf"]);
    assert_eq!(r.devices.len(), 3);
    assert!(
        r.devices
            .iter()
            .all(|d| d.transport == Transport::Sata && d.rotational == Some(false) && d.discard == Some(true))
    );
    assert_eq!(r.devices[2].link_speed.as_deref(), Some("6.0 Gbps"));
    assert_eq!(&codes(&r)[..2], ["fs-compresses", "fs-cow"]);
    let l = r.layout.as_ref().expect("a btrfs layout");
    assert_eq!((l.by.as_str(), l.profile.as_str(), l.members), ("btrfs", "raid1", 3));
}

#[test]
fn tmpfs_directory_has_no_chain() {
    let fx = machine();
    let r = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/shm/d",
        Path::new("/dev/shm/d"),
        Stat::Dir { dev: (0, 23) },
    );
    assert_eq!(r.kind, TargetKind::Directory);
    assert!(r.chain.is_empty() && r.devices.is_empty());
    assert_eq!(codes(&r), ["memory-backed"]);
}

/// Whether a table of `text` has a row whose cells start with `cells`.
pub(super) fn has_row(text: &str, cells: &[&str]) -> bool {
    text.lines().any(|l| {
        let row: Vec<&str> = l.trim_matches('│').split('┆').map(|c| c.trim_matches(' ')).collect();
        row.len() >= cells.len() && row.iter().zip(cells).all(|(a, b)| a == b)
    })
}

#[test]
fn view_reads_like_lsblk_and_smartctl() {
    let fx = machine();
    let r = file(&fx, "/mnt/img/x", (7, 0));
    let text = crate::render::Exporter::export(&crate::render::Text::default(), crate::render::Document::Device(&r)).unwrap();
    assert!(has_row(&text, &["Target", "/mnt/img/x: file"]), "{text}");
    assert!(has_row(&text, &["Filesystem", "ext4 on /dev/loop0, mounted at /mnt/img"]), "{text}");
    // The chain as lsblk draws it (no-break spaces keep the tree in every format).
    assert!(has_row(&text, &["loop0", "7:0", "loop", "1.00 GiB"]), "{text}");
    assert!(has_row(&text, &["└─\u{a0}sda1", "8:1", "part"]), "{text}");
    assert!(has_row(&text, &["\u{a0}\u{a0}\u{a0}└─\u{a0}sda", "8:0", "disk"]), "{text}");
    assert!(text.contains("file /data/images/disk.img (buffered) on ext4 /data"), "{text}");
    // Each physical device's sheet, as smartctl -i gives it.
    assert!(has_row(&text, &["Transport", "SATA"]), "{text}");
    assert!(has_row(&text, &["Link speed", "6.0 Gbps"]), "{text}");
    assert!(has_row(&text, &["Queue depth", "32"]), "{text}");
    assert!(text.contains("Hints:\n  - "), "{text}");
    assert!(text.contains("[loop-buffered]"), "{text}");
}

#[test]
fn json_shape_is_stable() {
    let fx = machine();
    let r = file(&fx, "/media/stick/a.bin", (8, 33));
    let v = serde_json::to_value(&r).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    for k in ["target", "path", "kind", "filesystem", "chain", "devices", "throttles", "hints"] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
    assert_eq!(v["kind"], "file");
    assert_eq!(v["chain"][0]["kind"], "partition");
    assert_eq!(v["chain"][0]["children"][0]["dev"], "8:32");
    assert_eq!(v["devices"][0]["transport"], "usb-storage");
    assert_eq!(v["hints"][0]["code"], "usb-no-uas");
    assert_eq!(v["throttles"][0]["read_bps"], 30_000_000);
}

/// `scheduled` reads the whole disk's queue for a partition: sda1's disk
/// has mq-deadline, the NVMe drive `none`, a device-mapper device none at all.
#[test]
fn a_partition_is_scheduled_as_its_disk_is() {
    let fx = machine();
    let dev = |major, minor| crate::device::BlockDev {
        name: String::new(),
        major,
        minor,
        partition_of: None,
        size_bytes: 0,
        logical_block_size: 512,
        rotational: None,
        model: None,
        backing_file: None,
        memory: false,
    };
    assert!(crate::device::scheduled(&fx.root(), &dev(8, 1)), "sda1 on sda's mq-deadline");
    assert!(crate::device::scheduled(&fx.root(), &dev(8, 0)));
    assert!(!crate::device::scheduled(&fx.root(), &dev(259, 0)), "nvme0n1: none");
    assert!(!crate::device::scheduled(&fx.root(), &dev(253, 0)), "dm-0: no scheduler file");
    assert!(!crate::device::scheduled(&fx.root(), &dev(99, 99)), "no such device");
}
