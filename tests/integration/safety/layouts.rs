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
    if let Ok(entries) = std::fs::read_dir("/run/iolab") {
        let dirs: Vec<_> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("layouts-"))
            .collect();
        assert!(dirs.is_empty(), "directories left: {dirs:?}");
    }
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

/// SIGTERM at moments spread over a run (while the first configuration is built or
/// measured, while the second is): the run stops after the current configuration's
/// teardown and nothing is left.
#[test]
fn sigterm_at_any_moment_leaves_nothing() {
    need_root!();
    need_tool!("mkfs.ext4");
    need_tool!("mkfs.btrfs");
    need_tool!("blkid");
    for delay_ms in [150u64, 900, 2500, 4500] {
        let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
        let child = iolab()
            .arg("layouts")
            .arg(a.path())
            .arg(b.path())
            .args(["--allow-destroy", "--try", "ext4,btrfs-raid1"])
            .args([
                "--suite",
                "dd",
                "--bs",
                "128K",
                "--runs",
                "2",
                "--duration",
                "1s",
                "--size",
                "32MiB",
            ])
            .args(["--no-store", "--quiet"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
        let out = child.wait_with_output().unwrap();
        note!("SIGTERM after {delay_ms} ms: exit {:?}", out.status.code());
        assert!(
            matches!(out.status.code(), Some(0) | Some(143)),
            "after {delay_ms} ms: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        nothing_left(&[&a, &b]);
    }
}

/// SIGKILL in the middle of a ZFS configuration leaves its pool imported and mounted;
/// the next run unwinds the killed run's journal first (pool destroyed, members wiped),
/// then runs, and nothing is left.
#[test]
fn after_sigkill_the_next_run_finishes_the_teardown() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("blkid");
    let lab = ZfsLab::start();
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut child = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs-mirror2"])
        .args([
            "--suite",
            "dd",
            "--bs",
            "128K",
            "--runs",
            "3",
            "--duration",
            "2s",
            "--size",
            "32MiB",
        ])
        .args(["--no-store", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the pool, then a little more: the suite is running on it.
    let start = std::time::Instant::now();
    let pool = loop {
        let out = Command::new("zpool").args(["list", "-H", "-o", "name"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if let Some(p) = text.lines().find(|l| l.starts_with("iolab-") && !l.starts_with("iolab-test-")) {
            break p.to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no pool was built");
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = Command::new("zpool").args(["list", "-H", "-o", "name", &pool]).output().unwrap();
    assert!(
        listed.status.success(),
        "the killed run's pool {pool} is gone already: the test proves nothing"
    );
    let out = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs"])
        .args(SHORT)
        .args(["--no-store"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    note!("{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("undone, left by a killed run: pool {pool}")), "{err}");
    nothing_left(&[&a, &b]);
}
