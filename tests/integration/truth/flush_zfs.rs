//! `iolab flush` on a live zfs-fuse (issue 37): a loop device over a file on
//! a zfs-fuse dataset, written by `iolab flush`; the power cut emulated by
//! SIGKILL to the daemon and the writer at once (no sync, no export), then
//! the daemon restarted, the pool imported (its intent log replayed) and the
//! same file checked.
//!
//! What it found: every acknowledged block is there, cut after cut. zfs-fuse's
//! fsync, fast as it is (about a millisecond here), is a barrier against a
//! crash of the daemon: what it acknowledged had reached the pool's file. (A
//! power cut of the host would also drop that file's unflushed pages and the
//! virtual disk's cache: a daemon kill does not test those.)
//!
//! The daemon is a private one, in a mount namespace of its own (its socket
//! and lock on tmpfs there), so the machine's zfs-fuse, and the tests that
//! use it, are never touched; the pool is kept out of any cache file.
//! Needs root, zfs-fuse, unshare and nsenter.

use crate::common::emu::{output_with_timeout, run_checked, unique_name};
use crate::common::iolab_as;
use ::iolab::verify::flush::parse_log;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);
const POOL_FILE: u64 = 256 << 20;
const DEVICE: &str = "32M";
/// Acknowledged generations before each cut.
const ACKS: [usize; 2] = [60, 150];

/// A mount namespace of its own (held by a `sleep`), with a zfs-fuse daemon
/// in it, one pool on a file, and the loop devices made over files on it.
/// Drop: loop devices detached, pool destroyed, daemon and holder killed;
/// the namespace's mounts go with its last process.
struct PrivateZfs {
    holder: Child,
    daemon: Option<Child>,
    dir: tempfile::TempDir,
    pool: String,
    loops: Vec<String>,
}

impl PrivateZfs {
    fn new() -> PrivateZfs {
        let holder = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sleep", "infinity"])
            .stdin(Stdio::null())
            .spawn()
            .expect("unshare");
        let mut z = PrivateZfs {
            holder,
            daemon: None,
            dir: tempfile::tempdir().unwrap(),
            pool: unique_name("flushzfs"),
            loops: Vec::new(),
        };
        let mine = std::fs::read_link("/proc/self/ns/mnt").unwrap();
        let t0 = Instant::now();
        while std::fs::read_link(format!("/proc/{}/ns/mnt", z.holder.id())).ok().as_ref() == Some(&mine) {
            assert!(t0.elapsed() < TIMEOUT, "unshare made no mount namespace");
            std::thread::sleep(Duration::from_millis(5));
        }
        z.run(&["mkdir", "-p", "/run/zfs", "/run/lock/zfs"]);
        z.run(&["mount", "-t", "tmpfs", "tmpfs", "/run/zfs"]);
        z.run(&["mount", "-t", "tmpfs", "tmpfs", "/run/lock/zfs"]);
        z.start();
        let disk = z.path("disk.img");
        std::fs::File::create(&disk).unwrap().set_len(POOL_FILE).unwrap();
        let mnt = z.path("mnt");
        let pool = z.pool.clone();
        z.run(&["zpool", "create", "-f", "-o", "cachefile=none", "-m", s(&mnt), &pool, s(&disk)]);
        z
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `nsenter` into the namespace: a wrapper for a command.
    fn enter(&self) -> Vec<String> {
        ["nsenter", "-t", &self.holder.id().to_string(), "-m", "--"]
            .map(String::from)
            .to_vec()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("nsenter");
        c.args(&self.enter()[1..]).args(args);
        c
    }

    fn run(&self, args: &[&str]) -> String {
        run_checked(&mut self.command(args))
    }

    /// Start the daemon and wait until it answers.
    fn start(&mut self) {
        let child = self
            .command(&["zfs-fuse", "-n", "--no-kstat-mount", "--disable-block-cache"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("zfs-fuse");
        self.daemon = Some(child);
        let t0 = Instant::now();
        while !self.command(&["zpool", "list"]).output().is_ok_and(|o| o.status.success()) {
            assert!(t0.elapsed() < Duration::from_secs(15), "zfs-fuse did not answer");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A loop device over a new file of `size` on the pool's dataset.
    fn device(&mut self, name: &str, size: &str) -> String {
        let file = self.path("mnt").join(name);
        self.run(&["truncate", "-s", size, s(&file)]);
        self.attach(&file)
    }

    fn attach(&mut self, file: &Path) -> String {
        let dev = self.run(&["losetup", "-f", "--show", s(file)]).trim().to_string();
        self.loops.push(dev.clone());
        dev
    }

    fn detach(&mut self, dev: &str) {
        let _ = Command::new("losetup").args(["-d", dev]).status();
        self.loops.retain(|d| d != dev);
    }

    /// The cut: SIGKILL to the daemon and `writer` back to back.
    fn kill_daemon_and(&mut self, writer: &mut Child) {
        let mut daemon = self.daemon.take().expect("a running daemon");
        daemon.kill().unwrap();
        let _ = writer.kill();
        daemon.wait().unwrap();
        let _ = writer.wait();
        let mnt = self.path("mnt");
        let _ = self.command(&["umount", "-l", s(&mnt)]).status();
    }

    /// After a cut: the daemon back, the pool imported (unless it imported
    /// itself), its dataset mounted.
    fn restart(&mut self) {
        self.start();
        let pool = self.pool.clone();
        let imported = self.command(&["zpool", "list", &pool]).output().is_ok_and(|o| o.status.success());
        if !imported {
            let dir = self.dir.path().to_path_buf();
            self.run(&["zpool", "import", "-o", "cachefile=none", "-f", "-d", s(&dir), &pool]);
        }
        let _ = self.command(&["zfs", "mount", "-a"]).status();
    }
}

impl Drop for PrivateZfs {
    fn drop(&mut self) {
        for dev in std::mem::take(&mut self.loops) {
            let _ = Command::new("losetup").args(["-d", &dev]).status();
        }
        if let Some(mut d) = self.daemon.take() {
            let mnt = self.path("mnt");
            let _ = self.command(&["umount", s(&mnt)]).status();
            let _ = self.command(&["zpool", "destroy", "-f", &self.pool]).output();
            let _ = d.kill();
            let _ = d.wait();
        }
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn issue_37_zfs_fuse_keeps_what_its_fsync_acknowledged_when_the_daemon_dies() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("nsenter");
    for (i, acks) in ACKS.into_iter().enumerate() {
        let mut z = PrivateZfs::new();
        let dev = z.device("dev.img", DEVICE);
        let log = z.path("flush.log");
        let enter = z.enter();
        let enter: Vec<&str> = enter.iter().map(String::as_str).collect();
        let mut writer = iolab_as(&enter)
            .arg("flush")
            .arg(&dev)
            .arg("--log")
            .arg(&log)
            .args(["--allow-destroy", "--batch", "256K", "-q", "--no-store"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < acks + 1 {
            if t0.elapsed() > TIMEOUT || writer.try_wait().unwrap().is_some() {
                let _ = writer.kill();
                let out = writer.wait_with_output().unwrap();
                panic!(
                    "cut {i}: the writer did not log {acks} generations: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        z.kill_daemon_and(&mut writer);
        z.detach(&dev);
        let logged = parse_log(&std::fs::read_to_string(&log).unwrap()).unwrap();
        let last = logged.last_acked.expect("acknowledged generations");
        z.restart();
        let file = z.path("mnt").join("dev.img");
        let dev = z.attach(&file);
        let mut c = iolab_as(&enter);
        c.arg("flush")
            .arg(&dev)
            .arg("--check")
            .arg("--log")
            .arg(&log)
            .args(["--json", "-", "-q"]);
        let out = output_with_timeout(&mut c, TIMEOUT);
        let doc: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("cut {i}: no document ({e}): {}", String::from_utf8_lossy(&out.stderr)));
        let f = &doc["flush"]["findings"];
        eprintln!("zfs-fuse cut {i} after {} acknowledged: {}", last + 1, f["message"]);
        assert_eq!(out.status.code(), Some(0), "cut {i}: {f}");
        assert_eq!(f["verdict"], "honest", "cut {i}: {f}");
        assert_eq!(f["lost_blocks"].as_u64(), Some(0), "cut {i}");
        assert_eq!(f["last_acknowledged"].as_u64(), Some(last), "cut {i}");
        assert!(
            f["acknowledged_blocks"].as_u64().unwrap() >= (last + 1).min(128) * 64,
            "cut {i}: {f}"
        );
        let pool = z.pool.clone();
        drop(z);
        // No table of pools on the machine names ours.
        for cache in ["/var/lib/zfs/zpool.cache", "/etc/zfs/zpool.cache"] {
            let kept = std::fs::read(cache).unwrap_or_default();
            assert!(!kept.windows(pool.len()).any(|w| w == pool.as_bytes()), "{pool} is in {cache}");
        }
    }
}
