//! The safety check fails closed (issue 36): what it cannot look at is a
//! refusal with its reason, never a pass. A loop device over the target
//! makes it in use; util-linux's probe names the signatures iolab's own
//! magic numbers do not know, and without util-linux (or with a `zpool`
//! that does not answer) the write is refused. Each case wrote the device
//! and exited 0 before the fix.
//!
//! Needs root (loop devices, mount, FUSE). The fake `wipefs` and `zpool`
//! are scripts in a temporary directory put first on iolab's `PATH`.

use super::refusals::{assert_refused, assert_writes, quiet_mount};
use crate::common::emu::faultdev::{FaultDev, FaultSpec};
use crate::common::emu::{LoopDev, MIB, run_checked};
use crate::common::iolab as iolab_cmd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SIZE: u64 = 64 << 20;

/// A loop device over another block device; detached on drop.
struct LoopOver(PathBuf);

impl LoopOver {
    fn new(dev: &Path) -> LoopOver {
        let out = run_checked(Command::new("losetup").args(["--find", "--show"]).arg(dev));
        LoopOver(PathBuf::from(out.trim()))
    }

    fn name(&self) -> String {
        self.0.file_name().unwrap().to_string_lossy().into_owned()
    }
}

impl Drop for LoopOver {
    fn drop(&mut self) {
        if let Err(e) = Command::new("losetup").arg("-d").arg(&self.0).status() {
            eprintln!("cleanup: losetup -d {}: {e}", self.0.display());
        }
    }
}

/// The case: `losetup /dev/loopB /dev/loopA`, an ext4 on loopB,
/// mounted; `iolab job /dev/loopA --rw write --allow-destroy --force` wrote
/// loopA under the mounted filesystem and exited 0.
#[test]
fn a_loop_device_over_the_target_makes_it_in_use_even_with_force() {
    need_root!();
    let base = LoopDev::new_sparse(SIZE);
    let upper = LoopOver::new(base.path());
    run_checked(
        Command::new("mkfs.ext4")
            .args(["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"])
            .arg(&upper.0),
    );
    let _m = quiet_mount(&upper.0);
    let name = base.path().file_name().unwrap().to_string_lossy().into_owned();
    assert_refused(
        base.path(),
        &["--force"],
        &format!("{name} is in use as the backing file of the loop device {}", upper.name()),
    );
}

/// The first or the last MiB of the device fails to read (EIO), so its
/// signatures cannot be looked for: refused unless `--force`.
#[test]
fn an_unreadable_head_or_tail_is_refused_unless_forced() {
    need_root!();
    for (where_, eio) in [("head", (4096, 8192)), ("tail", (SIZE - 8192, SIZE - 4096))] {
        let dev = FaultDev::new(FaultSpec {
            eio: vec![eio],
            ..FaultSpec::clean(SIZE)
        });
        let name = dev.path().file_name().unwrap().to_string_lossy().into_owned();
        let out = write_job(dev.path(), &[], None);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{where_}: expected a refusal; stderr: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{where_}: one line: {stderr}");
        assert!(
            stderr.contains(&format!(
                "refusing to write to {}: cannot read {name} to look for signatures",
                dev.path().display()
            )) && stderr.contains("Input/output error")
                && stderr.contains("pass --force"),
            "{where_}: {stderr}"
        );
        let out = write_job(dev.path(), &["--force"], None);
        assert!(
            out.status.success(),
            "{where_}: --force writes: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A LUKS2 volume whose primary header is gone still opens from its
/// secondary header at 16 KiB (`cryptsetup repair`); iolab's own magic
/// looks for LUKS at byte 0 only, util-linux finds it. The header is written
/// by hand (cryptsetup is not installed): the magic `SKUL\xba\xbe`, version
/// 2 and the header's own offset at byte 256, big-endian, which is what
/// libblkid checks.
#[test]
fn a_signature_only_util_linux_knows_is_refused() {
    need_root!();
    need_tool!("wipefs");
    let dev = LoopDev::new_sparse(SIZE);
    let mut header = vec![0u8; 512];
    header[..6].copy_from_slice(b"SKUL\xba\xbe");
    header[6..8].copy_from_slice(&2u16.to_be_bytes());
    header[256..264].copy_from_slice(&0x4000u64.to_be_bytes());
    write_at(dev.path(), 0x4000, &header);
    assert_refused(
        dev.path(),
        &[],
        "a crypto_LUKS signature at byte 16384 (found by util-linux's wipefs",
    );
    assert_writes(dev.path(), &["--force"]);

    // And a filesystem iolab has no magic number for.
    need_tool!("mkfs.minix");
    let dev = LoopDev::new_sparse(SIZE);
    run_checked(Command::new("mkfs.minix").arg(dev.path()));
    assert_refused(dev.path(), &[], "a minix signature at byte 1040");
}

/// Without util-linux's `wipefs` (missing, or failing) nothing says what the
/// device carries: refused with the reason, unless `--force`.
#[test]
fn without_util_linux_the_signature_check_fails_closed() {
    need_root!();
    let dev = LoopDev::new_sparse(SIZE);
    let name = dev.path().file_name().unwrap().to_string_lossy().into_owned();
    let empty = tempfile::tempdir().unwrap();
    let out = write_job(dev.path(), &[], Some(empty.path().as_os_str().to_owned()));
    refused(
        &out,
        &format!("cannot tell what {name} carries: wipefs (util-linux) is not installed (not on PATH)"),
    );
    let fake = FakePrograms::new(&[("wipefs", "echo 'wipefs: error: probing initialization failed' >&2; exit 1")]);
    let out = write_job(dev.path(), &[], Some(fake.path()));
    refused(
        &out,
        &format!(
            "cannot tell what {name} carries: wipefs (util-linux) failed (exit status: 1): wipefs: error: probing initialization failed"
        ),
    );
    let out = write_job(dev.path(), &["--force"], Some(fake.path()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A `zpool` that hangs (a pool with a dead disk) cannot say which devices
/// its pools use: refused even with `--force`, after iolab's 5 s limit.
#[test]
fn a_zpool_that_does_not_answer_is_refused_even_with_force() {
    need_root!();
    let dev = LoopDev::new_sparse(SIZE);
    let name = dev.path().file_name().unwrap().to_string_lossy().into_owned();
    let fake = FakePrograms::new(&[("zpool", "exec sleep 60")]);
    let out = write_job(dev.path(), &["--force"], Some(fake.path()));
    refused(
        &out,
        &format!("cannot tell whether {name} is in use: zpool list did not answer within 5 s"),
    );
}

/// Expect a one-line refusal with status 2 containing `why`.
fn refused(out: &Output, why: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected a refusal; stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("refusing to write") && stderr.contains(why),
        "expected '{why}' in: {stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// A short write job, with `path` as iolab's `PATH` when given.
fn write_job(dev: &Path, extra: &[&str], path: Option<std::ffi::OsString>) -> Output {
    let mut cmd = iolab_cmd();
    cmd.arg("job").arg(dev).args([
        "--rw",
        "write",
        "--bs",
        "64k",
        "--duration",
        "200ms",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--allow-destroy",
        "--json",
        "-",
    ]);
    cmd.args(extra);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().unwrap()
}

/// Scripts standing in for programs, in a directory of their own, which
/// [`FakePrograms::path`] puts before the real `PATH`.
struct FakePrograms(tempfile::TempDir);

impl FakePrograms {
    fn new(programs: &[(&str, &str)]) -> FakePrograms {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in programs {
            let p = dir.path().join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        FakePrograms(dir)
    }

    fn path(&self) -> std::ffi::OsString {
        let mut p = self.0.path().as_os_str().to_owned();
        p.push(":");
        p.push(std::env::var_os("PATH").unwrap_or_default());
        p
    }
}

fn write_at(dev: &Path, offset: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(dev).unwrap();
    f.write_all_at(bytes, offset).unwrap();
    f.sync_all().unwrap();
    assert!(bytes.len() as u64 <= MIB);
}
