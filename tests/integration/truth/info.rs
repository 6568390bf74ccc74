//! `iolab info` on real targets of this machine: the root filesystem,
//! /dev/shm, a loop device, zram, a btrfs raid1 over three loop devices, and
//! a device throttled by the caller's blkio cgroup. (Fixture sysfs trees for
//! hardware this machine lacks are unit tests in `src/device/`.)
//!
//! Needs root for everything but the first two; skips without root except
//! under `CI=true`.

use crate::common::emu::{BlockDev, Cgroup, Limit, LoopDev, Mount, Zram, run_checked};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

use crate::common::{iolab as iolab_cmd, iolab_in};

fn info(cmd: &mut Command, target: &Path) -> Value {
    let out = cmd.arg("info").arg(target).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "iolab info {}: {}",
        target.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("iolab info --json prints one JSON document")
}

fn info_of(target: &Path) -> Value {
    info(&mut iolab_cmd(), target)
}

fn hint_codes(v: &Value) -> Vec<String> {
    v["hints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["code"].as_str().unwrap().to_string())
        .collect()
}

fn chain_names(v: &Value) -> Vec<String> {
    fn walk(n: &Value, out: &mut Vec<String>) {
        out.push(n["name"].as_str().unwrap().to_string());
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    for n in v["chain"].as_array().unwrap() {
        walk(n, &mut out);
    }
    out
}

/// The filesystem type /proc/mounts gives for the mount point `/`.
fn root_fstype() -> String {
    let m = std::fs::read_to_string("/proc/mounts").unwrap();
    m.lines()
        .rfind(|l| l.split(' ').nth(1) == Some("/"))
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .to_string()
}

#[test]
fn file_on_the_root_filesystem() {
    let dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let f = dir.path().join("f");
    std::fs::write(&f, b"x").unwrap();
    let v = info_of(&f);
    assert_eq!(v["kind"], "file");
    assert_eq!(v["filesystem"]["fstype"], root_fstype());
    assert_eq!(v["filesystem"]["mount_point"], "/");
    if v["filesystem"]["source"].as_str().unwrap().starts_with("/dev/") {
        // A block device serves /: the chain reaches it and facts are read.
        let names = chain_names(&v);
        assert!(!names.is_empty(), "{v:#}");
        let dev = &v["devices"][0];
        assert!(dev["size_bytes"].as_u64().unwrap() > 0);
        assert!(dev["logical_block_size"].as_u64().unwrap() >= 512);
        assert_ne!(dev["transport"], "unknown", "{dev:#}");
    }
}

#[test]
fn dev_shm_is_memory() {
    let v = info_of(Path::new("/dev/shm"));
    assert_eq!(v["filesystem"]["fstype"], "tmpfs");
    assert!(v["chain"].as_array().unwrap().is_empty());
    assert!(hint_codes(&v).contains(&"memory-backed".to_string()), "{v:#}");
    // The terminal view says it in words too.
    let out = iolab_cmd().args(["info", "/dev/shm"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("RAM"));
}

#[test]
fn loop_device_over_a_shm_file() {
    need_root!();
    let dev = LoopDev::new_sparse(16 << 20);
    let v = info_of(dev.path());
    let node = &v["chain"][0];
    assert_eq!(node["kind"], "loop", "{v:#}");
    assert_eq!(node["name"], dev.path().file_name().unwrap().to_str().unwrap());
    assert_eq!(node["loop"]["backing_file"], dev.backing_file().to_str().unwrap());
    assert_eq!(node["loop"]["dio"], false);
    assert_eq!(v["devices"][0]["transport"], "loop");
    let hints = hint_codes(&v);
    assert!(
        hints.contains(&"loop-buffered".to_string()) && hints.contains(&"memory-backed".to_string()),
        "{hints:?}"
    );
}

#[test]
fn zram_device() {
    need_root!();
    let z = Zram::new(32 << 20);
    let v = info_of(z.path());
    assert_eq!(v["chain"][0]["kind"], "zram", "{v:#}");
    assert_eq!(v["devices"][0]["transport"], "zram");
    assert_eq!(v["devices"][0]["memory_backed"], true);
    assert_eq!(v["devices"][0]["size_bytes"], 32 << 20);
}

#[test]
fn btrfs_raid1_over_three_loop_devices() {
    need_root!();
    let devs: Vec<LoopDev> = (0..3).map(|_| LoopDev::new_sparse(256 << 20)).collect();
    let paths: Vec<&Path> = devs.iter().map(|d| d.path()).collect();
    run_checked(
        Command::new("mkfs.btrfs")
            .args(["-f", "-q", "-d", "raid1", "-m", "raid1"])
            .args(&paths),
    );
    let opts = format!(
        "device={},device={},device={}",
        paths[0].display(),
        paths[1].display(),
        paths[2].display()
    );
    let m = Mount::new(paths[0], Some(&opts));
    let dir = m.dir().to_path_buf();
    let v = info_of(&dir);
    assert_eq!(v["filesystem"]["fstype"], "btrfs");
    assert_eq!(v["filesystem"]["cow"], true);
    let names = chain_names(&v);
    for d in &devs {
        let n = d.path().file_name().unwrap().to_str().unwrap().to_string();
        assert!(names.contains(&n), "member {n} missing from chain {names:?}");
    }
    assert!(hint_codes(&v).contains(&"fs-cow".to_string()));
    // A member that is not the mount source is still in use: refused even with --force.
    let before = std::fs::read(devs[2].backing_file()).unwrap();
    let out = iolab_cmd()
        .arg("job")
        .arg(paths[2])
        .args([
            "--rw",
            "write",
            "--duration",
            "200ms",
            "--runs",
            "1",
            "--warmup",
            "0s",
            "--allow-destroy",
            "--force",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("member of the mounted btrfs"), "{stderr}");
    assert!(std::fs::read(devs[2].backing_file()).unwrap() == before, "the member changed");
    // The run JSON carries the same document under target.info.
    let out = iolab_cmd()
        .arg("job")
        .arg(&dir)
        .args([
            "--rw",
            "read",
            "--bs",
            "128k",
            "--size",
            "8MiB",
            "--duration",
            "200ms",
            "--runs",
            "1",
            "--warmup",
            "0s",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["target"]["info"]["chain"], v["chain"]);
}

#[test]
fn throttle_of_the_callers_cgroup_is_reported() {
    need_root!();
    let dev = LoopDev::new_sparse(16 << 20);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::ReadBps(30_000_000));
    let mut cmd = iolab_in(&cg);
    let v = info(&mut cmd, dev.path());
    let t = &v["throttles"][0];
    assert_eq!(t["read_bps"], 30_000_000, "{v:#}");
    assert_eq!(t["dev"], dev.majmin());
    let h = v["hints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["code"] == "cgroup-throttle")
        .expect("throttle hint");
    assert!(h["text"].as_str().unwrap().contains("30.0 MB/s"), "{h}");
}
