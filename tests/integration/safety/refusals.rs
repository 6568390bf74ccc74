//! The refusal matrix: iolab must not write to a block device that is in use
//! or carries data it was not told to destroy, and each refusal leaves the
//! device byte-for-byte unchanged (checked with a hash of the whole device).
//!
//! Needs root (loop devices, mkfs, mount, swapon). Without root the tests
//! print a skip notice, except under `CI=true`, where they fail instead.

use crate::common::emu::{LoopDev, MIB, Mount, run_checked};
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::iolab as iolab_cmd;

const SIZE: u64 = 64 << 20;

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

/// A short write job on `dev` with extra flags.
fn write_job(dev: &Path, extra: &[&str]) -> Output {
    iolab_cmd()
        .args(["job"])
        .arg(dev)
        .args([
            "--rw",
            "randwrite",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--duration",
            "200ms",
            "--runs",
            "1",
            "--warmup",
            "0s",
        ])
        .args(["--interval", "0s", "--allow-destroy", "--json", "-"])
        .args(extra)
        .output()
        .unwrap()
}

/// Expect a one-line refusal with status 2 mentioning `why`, and the device unchanged.
pub(super) fn assert_refused(dev: &Path, extra: &[&str], why: &str) {
    let before = checksum(dev);
    let out = write_job(dev, extra);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "expected a refusal for {} {extra:?}; stderr: {stderr}",
        dev.display()
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("refusing to write") && stderr.contains(why),
        "expected '{why}' in: {stderr}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(checksum(dev), before, "{} changed although iolab refused", dev.display());
}

pub(super) fn assert_writes(dev: &Path, extra: &[&str]) {
    let out = write_job(dev, extra);
    assert!(
        out.status.success(),
        "expected the job to run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["jobs"][0]["write"]["ios"].as_u64().unwrap() > 0);
}

fn mkfs(dev: &Path, cmd: &str, args: &[&str]) {
    run_checked(Command::new(cmd).args(args).arg(dev));
}

#[test]
fn blank_device_is_written() {
    need_root!();
    let dev = LoopDev::new(SIZE);
    assert_writes(dev.path(), &[]);
}

#[test]
fn formatted_devices_are_refused_and_unchanged() {
    need_root!();
    // Sizes: each tool's minimum (XFS wants 300 MB, btrfs ~114 MiB); sparse, so cheap.
    let cases: [(&str, &[&str], &str, u64); 5] = [
        ("mkfs.ext4", &["-F", "-q"], "ext2/3/4", SIZE),
        ("mkfs.xfs", &["-f", "-q"], "XFS", 320 << 20),
        ("mkfs.btrfs", &["-f", "-q"], "btrfs", 128 << 20),
        ("mkfs.vfat", &[], "FAT", SIZE),
        ("mkswap", &[], "swap signature", SIZE),
    ];
    for (cmd, args, why, size) in cases {
        let dev = LoopDev::new_sparse(size);
        mkfs(dev.path(), cmd, args);
        assert_refused(dev.path(), &[], why);
    }
}

#[test]
fn partitioned_devices_are_refused_and_unchanged() {
    need_root!();
    for (label, why) in [("gpt", "GPT partition table"), ("dos", "MBR partition table")] {
        let dev = LoopDev::new_sparse(SIZE);
        let mut sfdisk = Command::new("sfdisk");
        sfdisk.arg("--quiet").arg(dev.path()).stdin(std::process::Stdio::piped());
        let mut child = sfdisk.spawn().unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("label: {label}\n,16M\n,\n").as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success(), "sfdisk {label}");
        assert_refused(dev.path(), &[], why);
    }
}

#[test]
fn force_overrides_a_signature() {
    need_root!();
    let dev = LoopDev::new_sparse(SIZE);
    mkfs(
        dev.path(),
        "mkfs.ext4",
        &["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
    );
    assert_refused(dev.path(), &[], "ext2/3/4");
    assert_writes(dev.path(), &["--force"]);
}

/// Mounted read-write (the dangerous case), then frozen (`fsfreeze`) while
/// the device is hashed: freezing flushes what the mount wrote and stops the
/// kernel's own late writes (journal commits, superblock updates), which two
/// fresh-clone CI runs once took for iolab's. A frozen filesystem blocks only
/// its own writes, not a write to the block device under it, so iolab could
/// still change the device if it failed to refuse. Thawed before unmounting.
pub(super) struct QuietMount {
    // Field order is drop order: thaw, then unmount.
    _frozen: Frozen,
    _mount: Mount,
}

struct Frozen(PathBuf);
impl Drop for Frozen {
    fn drop(&mut self) {
        let _ = Command::new("fsfreeze").arg("-u").arg(&self.0).status();
    }
}

pub(super) fn quiet_mount(dev: &Path) -> QuietMount {
    let mount = Mount::new(dev, Some("commit=3600"));
    run_checked(Command::new("fsfreeze").arg("-f").arg(mount.dir()));
    QuietMount {
        _frozen: Frozen(mount.dir().to_path_buf()),
        _mount: mount,
    }
}

#[test]
fn mounted_device_is_refused_even_with_force() {
    need_root!();
    let dev = LoopDev::new_sparse(SIZE);
    mkfs(
        dev.path(),
        "mkfs.ext4",
        &["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
    );
    let _m = quiet_mount(dev.path());
    assert_refused(dev.path(), &["--force"], "is mounted at");
}

/// A second loop device over the same file, with partition scanning, so its
/// partitions get device nodes; detached on drop.
struct PartLoop(PathBuf);
impl Drop for PartLoop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.0).status();
    }
}

#[test]
fn device_with_a_mounted_partition_is_refused_even_with_force() {
    need_root!();
    let base = LoopDev::new_sparse(SIZE);
    let mut child = Command::new("sfdisk")
        .arg("--quiet")
        .arg(base.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"label: gpt\n,24M\n,\n").unwrap();
    assert!(child.wait().unwrap().success());
    let out = run_checked(Command::new("losetup").args(["-P", "--find", "--show"]).arg(base.backing_file()));
    let disk = PartLoop(PathBuf::from(out.trim()));
    let part = PathBuf::from(format!("{}p1", disk.0.display()));
    let appeared = || {
        (0..20).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            part.exists()
        })
    };
    // Some kernels do not scan partitions on loop devices (`losetup -P`, `blockdev
    // --rereadpt`: EINVAL; this one among them), but still add the ones named to them
    // one by one (`partx -a`, the BLKPG ioctl).
    if !part.exists() && !appeared() {
        let _ = Command::new("partx").arg("-a").arg(&disk.0).status();
    }
    if !part.exists() && !appeared() {
        // The rule itself is covered by the unit test target::safety::tests::fixture_tree_refusals.
        skip!(
            Kernel,
            "this kernel made no partition devices for {} (neither losetup -P nor partx -a)",
            disk.0.display()
        );
    }
    mkfs(&part, "mkfs.ext4", &["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"]);
    let _m = quiet_mount(&part);
    let name = part.file_name().unwrap().to_string_lossy().into_owned();
    assert_refused(&disk.0, &["--force"], &format!("{name} is mounted at"));
}

/// Swap is switched off on drop.
struct Swap(PathBuf);
impl Drop for Swap {
    fn drop(&mut self) {
        let _ = Command::new("swapoff").arg(&self.0).status();
    }
}

/// A small swap area over a file on the build's disk, never over shmem: the
/// kernel may swap shmem pages out to an active swap area (this machine runs
/// DAMON reclaim), and a swap area whose loop device is backed by shmem then
/// waits on itself (seen here: the reclaimer, the loop worker and the reader
/// stuck in D state until a reboot). The kernel may also write an active swap
/// area at any time, so what is checked is the refusal and the swap
/// signature, not a checksum of the whole device.
#[test]
fn active_swap_is_refused_even_with_force() {
    need_root!();
    let dev = LoopDev::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")), MIB);
    mkfs(dev.path(), "mkswap", &[]);
    let signature = || {
        let mut page = vec![0u8; 4096];
        std::fs::File::open(dev.path()).unwrap().read_exact(&mut page).unwrap();
        page[4086..].to_vec()
    };
    assert_eq!(signature(), b"SWAPSPACE2", "mkswap made a swap area");
    run_checked(Command::new("swapon").arg(dev.path()));
    let _s = Swap(dev.path().to_path_buf());
    let out = write_job(dev.path(), &["--force"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected a refusal; stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("refusing to write") && stderr.contains("in use as swap"),
        "{stderr}"
    );
    assert_eq!(signature(), b"SWAPSPACE2", "the swap area is still one");
}

#[test]
fn device_held_exclusively_by_another_process_is_refused() {
    need_root!();
    let dev = LoopDev::new(SIZE);
    // Another process claims the device exclusively (as a mount or md would).
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import os,sys,time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print('held', flush=True); time.sleep(30)",
        ])
        .arg(dev.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = [0u8; 5];
    holder.stdout.take().unwrap().read_exact(&mut line).unwrap();
    assert_refused(dev.path(), &["--force"], "in use");
    let _ = holder.kill();
    let _ = holder.wait();
}

#[test]
fn existing_file_is_refused_without_consent_and_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("data.img");
    std::fs::write(&f, vec![0x5au8; 4 << 20]).unwrap();
    let before = checksum(&f);
    let out = iolab_cmd()
        .arg("job")
        .arg(&f)
        .args(["--rw", "write", "--duration", "200ms", "--runs", "1", "--warmup", "0s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-destroy"));
    assert_eq!(checksum(&f), before);
}

#[test]
fn force_without_allow_destroy_is_a_usage_error() {
    let out = iolab_cmd().args(["job", "/dev/null", "--rw", "write", "--force"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // clap's whole message names the missing flag (issue 12).
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the following required arguments were not provided") && err.contains("--allow-destroy"),
        "{err}"
    );
}

/// zfs-fuse, `zpool` and `zfs` on PATH (`scripts/test` installs them), and root.
macro_rules! need_zfs {
    () => {
        need_root!();
        need_tool!("zfs-fuse");
        need_tool!("zpool");
        need_tool!("zfs");
    };
}

#[test]
fn member_of_a_live_zfs_pool_is_refused_even_with_force() {
    use crate::common::emu::{Disk, Layout, ZfsLab};
    need_zfs!();
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Mirror(2), Disk::new(64 * MIB)).create();
    let member = pool.members()[1].dev().path().to_path_buf();
    // zfs-fuse opens its members without O_EXCL and registers no holder:
    // only the pool's own word (and the daemon's descriptors) tell.
    assert_refused(
        &member,
        &["--force"],
        &format!("is a member of the imported ZFS pool {}", pool.name()),
    );
    let status = pool.status();
    assert!(status.contains("state: ONLINE"), "{status}");
    assert!(pool.is_imported());
}

#[test]
fn exported_pool_label_at_the_end_is_a_signature() {
    use crate::common::emu::{Disk, Layout, ZfsLab};
    use std::io::{Seek, SeekFrom, Write};
    need_zfs!();
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    pool.export();
    let dev = pool.members()[0].dev().path().to_path_buf();
    // The first two labels wiped: the pool still imports from the last two.
    let mut f = std::fs::OpenOptions::new().write(true).open(&dev).unwrap();
    f.seek(SeekFrom::Start(0)).unwrap();
    f.write_all(&vec![0u8; 512 << 10]).unwrap();
    f.sync_all().unwrap();
    drop(f);
    // ZFS itself still finds the pool in the labels at the end.
    let zdb = Command::new("zdb").arg("-l").arg(&dev).output().unwrap();
    let labels = String::from_utf8_lossy(&zdb.stdout);
    assert!(
        labels.contains(&format!("name: '{}'", pool.name())),
        "zdb -l finds no label of {} after the wipe: {labels}",
        pool.name()
    );
    assert_refused(&dev, &[], "a ZFS pool label");
    assert_writes(&dev, &["--force"]);
}
