//! `iolab layouts` on emulated disks: each configuration built, measured and torn down,
//! the runs compared, and nothing left: no pool, no mount, no btrfs registration, no
//! journal, and no signature iolab wrote on the devices. A device in use stops the whole
//! plan before anything is built.
//!
//! Root; zfs-fuse for the ZFS case. Under `CI=true` they run, never skip.

use crate::common::emu::{Disk, Layout, LoopDev, MIB, ZfsLab};
use crate::common::{iolab, json_of};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A short battery: the dd suite at 128K, one run of one second over 32 MiB.
const SHORT: [&str; 12] = [
    "--suite",
    "dd",
    "--bs",
    "128K",
    "--runs",
    "1",
    "--duration",
    "1s",
    "--size",
    "32MiB",
    "--warmup",
    "0",
];

fn signature(dev: &Path) -> String {
    let out = Command::new("blkid").arg("-p").arg(dev).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Nothing of a layouts run is left: no mount or pool of iolab's, no journal, no signature.
fn nothing_left(devs: &[&LoopDev]) {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mounts.contains("/run/iolab/layouts-"), "a mount is left: {mounts}");
    for d in devs {
        assert_eq!(signature(d.path()), "", "{} still carries a signature", d.path().display());
    }
    if let Ok(entries) = std::fs::read_dir("/var/lib/iolab/layouts") {
        let ours: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
        assert!(ours.is_empty(), "journals left: {ours:?}");
    }
    let pools = Command::new("zpool").args(["list", "-H", "-o", "name"]).output();
    if let Ok(p) = pools {
        let text = String::from_utf8_lossy(&p.stdout);
        assert!(
            !text.lines().any(|l| l.starts_with("iolab-") && !l.starts_with("iolab-test-")),
            "{text}"
        );
    }
}

fn digest(dev: &Path) -> String {
    let out = Command::new("md5sum").arg(dev).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split(' ').next().unwrap().to_string()
}

#[test]
fn ext4_against_btrfs_raid1_built_measured_compared_and_torn_down() {
    need_root!();
    need_tool!("mkfs.ext4");
    need_tool!("mkfs.btrfs");
    need_tool!("blkid");
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut cmd = iolab();
    cmd.arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "ext4,btrfs-raid1"])
        .args(SHORT)
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let labels: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["ext4", "btrfs-raid1"], "{}", v["runs"]);
    let tests: Vec<&str> = v["tests"].as_array().unwrap().iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert!(tests.contains(&"DD write 128K") && tests.contains(&"DD read 128K"), "{tests:?}");
    nothing_left(&[&a, &b]);
    // btrfs forgot the devices: a scan lists neither.
    let show = Command::new("btrfs").args(["filesystem", "show"]).output().unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    for d in [&a, &b] {
        assert!(!show.contains(&*d.path().display().to_string()), "{show}");
    }
}

#[test]
fn zfs_single_against_a_mirror_built_by_iolab_and_destroyed() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("blkid");
    let lab = ZfsLab::start();
    // The lab's own pool keeps the daemon's lab alive; iolab builds its pools beside it.
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut cmd = iolab();
    cmd.arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs,zfs-mirror2"])
        .args(SHORT)
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let labels: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["zfs", "zfs-mirror2"], "{}", v["runs"]);
    nothing_left(&[&a, &b]);
}

#[test]
fn a_device_in_use_stops_the_whole_plan_before_anything_is_built() {
    need_root!();
    need_tool!("mkfs.ext4");
    let (a, b) = (LoopDev::new(64 * MIB), LoopDev::new_sparse(64 * MIB));
    let mk = Command::new("mkfs.ext4").args(["-F", "-q"]).arg(b.path()).status().unwrap();
    assert!(mk.success());
    let dir = tempfile::tempdir().unwrap();
    let m = Command::new("mount").arg(b.path()).arg(dir.path()).status().unwrap();
    assert!(m.success());
    let before = digest(a.path());
    let out = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--force", "--try", "ext4,btrfs-raid1"])
        .args(SHORT)
        .args(["--no-store"])
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(dir.path()).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("layouts builds nothing") && err.contains("mounted"), "{err}");
    assert_eq!(digest(a.path()), before, "the free device was written");
}
