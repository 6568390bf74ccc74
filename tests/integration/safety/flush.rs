//! `iolab flush` refuses before it writes a byte (issue 37): a device
//! without `--allow-destroy`, a log on a disk that also holds the device
//! (a power cut would take both), a log that already exists (another run's
//! acknowledgements), a target that is not a block device, and a mounted
//! device. Each refusal is one line, exit status 2, the device unchanged
//! and no log made.
//!
//! Needs root (loop devices, mkfs, mount).

use crate::common::emu::{Ext4Mount, LoopDev, MIB};
use crate::common::iolab;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::io::Read;
use std::path::Path;

fn checksum(p: &Path) -> u64 {
    let mut f = std::fs::File::open(p).unwrap();
    let mut h = DefaultHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        h.write(&buf[..n]);
    }
    h.finish()
}

/// `iolab flush DEV --log LOG` plus `extra`: refused with status 2 in one
/// line containing each of `why`, `dev` unchanged, and no log left.
fn refused(dev: &Path, log: &Path, extra: &[&str], why: &[&str]) {
    let before = checksum(dev);
    let existed = log.exists();
    let out = iolab()
        .arg("flush")
        .arg(dev)
        .arg("--log")
        .arg(log)
        .args(["--generations", "3", "--json", "-"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for w in why {
        assert!(err.contains(w), "expected {w:?} in: {err}");
    }
    assert!(out.stdout.is_empty());
    assert_eq!(checksum(dev), before, "{} changed although iolab refused", dev.display());
    if !existed {
        assert!(!log.exists(), "a refused run left its log {}", log.display());
    }
}

#[test]
fn issue_37_flush_refuses_a_device_without_allow_destroy() {
    need_root!();
    let dev = LoopDev::new(32 * MIB);
    let dir = tempfile::tempdir().unwrap();
    refused(
        dev.path(),
        &dir.path().join("flush.log"),
        &[],
        &["refusing to write", "--allow-destroy"],
    );
}

#[test]
fn issue_37_flush_refuses_a_log_on_the_disk_that_holds_the_device() {
    need_root!();
    // The device under test is a loop device over a file of this ext4, and
    // the log would go on the same ext4: one power cut takes both.
    let fs = Ext4Mount::new(96 * MIB);
    let dev = LoopDev::new_in(fs.dir(), 32 * MIB);
    let log = fs.dir().join("flush.log");
    let disk = fs.dev().path().file_name().unwrap().to_string_lossy().into_owned();
    refused(
        dev.path(),
        &log,
        &["--allow-destroy"],
        &["refusing to keep the log", &format!("/dev/{disk}"), "another disk"],
    );
    // A log on another disk is taken.
    let elsewhere = tempfile::tempdir_in("/dev/shm").unwrap();
    let out = iolab()
        .arg("flush")
        .arg(dev.path())
        .arg("--log")
        .arg(elsewhere.path().join("flush.log"))
        .args(["--allow-destroy", "--generations", "2", "--batch", "64KiB", "--json", "-", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn issue_37_flush_refuses_a_log_that_exists() {
    need_root!();
    let dev = LoopDev::new(32 * MIB);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flush.log");
    std::fs::write(&log, "another run\n").unwrap();
    refused(dev.path(), &log, &["--allow-destroy"], &["exists", "--check"]);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "another run\n", "the log is untouched");
}

#[test]
fn issue_37_flush_refuses_what_is_not_a_free_block_device() {
    need_root!();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("flush.log");
    let out = iolab()
        .arg("flush")
        .arg(dir.path())
        .arg("--log")
        .arg(&log)
        .args(["--allow-destroy"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is not a block device"), "{err}");
    assert!(!log.exists());
    // A mounted device: the safety rules of every write.
    let fs = Ext4Mount::new(64 * MIB);
    refused(
        fs.dev().path(),
        &log,
        &["--allow-destroy", "--force"],
        &["refusing to write", "mounted"],
    );
}
