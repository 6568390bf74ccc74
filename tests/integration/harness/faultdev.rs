//! Self-test of the [`FaultDev`] harness (a loop device over a FUSE file that lies about
//! its capacity, fails reads, flips bits or loses writes): each fault does exactly what
//! the spec says, seen through the loop device with O_DIRECT (our own reads and writes,
//! and `dd`), no page cache hides one, a clean device round-trips, the device is fast
//! enough for a capacity probe and a verify pass, and nothing is left behind — after a
//! drop, a panic, a killed test process (the server cleans up after it) or a killed
//! test process and server (the sweep does).
//!
//! Needs root (FUSE mounts, loop devices). Without root the tests print a skip notice,
//! except under `CI=true`, where they fail instead.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::emu::faultdev::{
    BLOCK, FAULTFS_SCRIPT, FLIP_MASK, FLIP_POS, FaultDev, FaultSpec, MAX_REQUEST_KB, WritePace, detach_loop_if_backed_by,
    sweep_stale_faultdevs,
};
use crate::common::emu::{BlockDev, MIB, output_with_timeout, unique_name};

const GIB: u64 = 1024 * MIB;

/// The timing tests run alone (2 CPUs); the others share.
static TIMING: RwLock<()> = RwLock::new(());

fn shared() -> RwLockReadGuard<'static, ()> {
    TIMING.read().unwrap_or_else(|e| e.into_inner())
}

fn alone() -> RwLockWriteGuard<'static, ()> {
    TIMING.write().unwrap_or_else(|e| e.into_inner())
}

// ---- I/O helpers -------------------------------------------------------------------

/// A 4 KiB-aligned buffer of `len` bytes.
pub(super) struct Aligned {
    v: Vec<u8>,
    skip: usize,
    len: usize,
}

impl Aligned {
    pub(super) fn new(len: usize) -> Aligned {
        let v = vec![0u8; len + 4096];
        let skip = v.as_ptr().align_offset(4096);
        Aligned { v, skip, len }
    }
    pub(super) fn buf(&mut self) -> &mut [u8] {
        &mut self.v[self.skip..self.skip + self.len]
    }
}

pub(super) fn open_direct(p: &Path, write: bool) -> File {
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_DIRECT)
        .open(p)
        .unwrap_or_else(|e| panic!("O_DIRECT open {}: {e}", p.display()))
}

/// O_DIRECT write of `data` at `off` (one request if it fits the device's limits).
fn write_direct(p: &Path, off: u64, data: &[u8]) -> io::Result<()> {
    write_direct_shifted(p, off, data, 0)
}

/// The same from a buffer `shift` bytes past a page boundary (O_DIRECT needs 512).
fn write_direct_shifted(p: &Path, off: u64, data: &[u8], shift: usize) -> io::Result<()> {
    let f = open_direct(p, true);
    let mut a = Aligned::new(data.len() + shift);
    a.buf()[shift..].copy_from_slice(data);
    f.write_all_at(&a.buf()[shift..], off)
}

/// O_DIRECT read of `len` bytes at `off` (one pread).
fn read_direct(p: &Path, off: u64, len: usize) -> io::Result<Vec<u8>> {
    let f = open_direct(p, false);
    let mut a = Aligned::new(len);
    let n = f.read_at(a.buf(), off)?;
    assert_eq!(n, len, "short O_DIRECT read of {len} at {off} from {}", p.display());
    Ok(a.buf().to_vec())
}

fn must_read(p: &Path, off: u64, len: usize) -> Vec<u8> {
    read_direct(p, off, len).unwrap_or_else(|e| panic!("O_DIRECT read of {len} at {off}: {e}"))
}

fn must_write(p: &Path, off: u64, data: &[u8]) {
    write_direct(p, off, data).unwrap_or_else(|e| panic!("O_DIRECT write of {} at {off}: {e}", data.len()))
}

/// `len` pseudo-random bytes, different for each `seed` (never all zeros).
pub(super) fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ seed.wrapping_mul(0xff51_afd7_ed55_8ccd) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Offsets (relative to the buffers) where `a` and `b` differ.
fn diffs(a: &[u8], b: &[u8]) -> Vec<usize> {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).enumerate().filter(|(_, (x, y))| x != y).map(|(i, _)| i).collect()
}

fn dd(args: &[String]) -> Output {
    output_with_timeout(Command::new("dd").args(args), Duration::from_secs(120))
}

pub(super) fn dd_ok(args: &[String]) -> String {
    let out = dd(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "dd {args:?} failed: {err}");
    err
}

/// Bytes per second from dd's summary line (`N bytes (...) copied, S s, ...`).
fn dd_rate(stderr: &str) -> f64 {
    let line = stderr.lines().find(|l| l.contains(" copied, ")).expect("dd summary line");
    let bytes: f64 = line.split(' ').next().and_then(|s| s.parse().ok()).expect("bytes");
    let secs: f64 = line
        .split(" copied, ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("seconds");
    bytes / secs
}

pub(super) fn a(s: impl Into<String>) -> String {
    s.into()
}

pub(super) fn mounted(dir: &Path) -> bool {
    let d = dir.to_string_lossy();
    fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split(' ').nth(4) == Some(&*d))
}

/// Loop devices whose backing file's name is `file_name` (also after a lazy unmount).
pub(super) fn loops_over(file_name: &str) -> Vec<String> {
    let out = Command::new("losetup").arg("-a").output().expect("losetup -a");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(file_name))
        .map(str::to_string)
        .collect()
}

/// A process is gone (or a zombie nobody reaped yet).
pub(super) fn gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')),
    }
}

pub(super) fn wait_until(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !f() {
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        thread::sleep(Duration::from_millis(50));
    }
}

/// What a FUSE device (a [`FaultDev`], a `CacheDev`) consists of, to check it is all gone.
pub(super) struct Parts {
    pub(super) dev: PathBuf,
    pub(super) dir: PathBuf,
    pub(super) file_name: String,
    pub(super) pid: u32,
}

impl Parts {
    fn of(d: &FaultDev) -> Parts {
        Parts {
            dev: d.path().to_path_buf(),
            dir: d.mount_dir().to_path_buf(),
            file_name: d.file().file_name().unwrap().to_string_lossy().into_owned(),
            pid: d.pid().expect("server pid"),
        }
    }

    pub(super) fn assert_gone(&self) {
        assert!(!mounted(&self.dir), "{} still mounted", self.dir.display());
        let proc_mounts = fs::read_to_string("/proc/mounts").unwrap_or_default();
        assert!(
            !proc_mounts.contains(&*self.dir.to_string_lossy()),
            "{} in /proc/mounts",
            self.dir.display()
        );
        assert_eq!(
            loops_over(&self.file_name),
            Vec::<String>::new(),
            "loop devices left over the faultfs file"
        );
        assert!(gone(self.pid), "server {} still running", self.pid);
        assert!(!self.dir.exists(), "{} still exists", self.dir.display());
        // The loop device's request size is back to the default (unless it already
        // serves someone else, who may have set it).
        let k = self.dev.file_name().unwrap().to_string_lossy().into_owned();
        let free = || !Path::new(&format!("/sys/block/{k}/loop/backing_file")).exists();
        if free() {
            let kb = fs::read_to_string(format!("/sys/block/{k}/queue/max_sectors_kb")).unwrap_or_default();
            if free() {
                assert_ne!(kb.trim(), MAX_REQUEST_KB.to_string(), "{k} kept the capped request size");
            }
        }
    }
}

// ---- the faults --------------------------------------------------------------------

/// A clean device is a block device of the announced size that stores every byte.
#[test]
fn faultdev_clean_round_trip() {
    need_root!();
    let _g = shared();
    let size = 64 * MIB;
    let d = FaultDev::new(FaultSpec::clean(size));
    assert!(fs::metadata(d.path()).expect("stat").file_type().is_block_device());
    let out = Command::new("blockdev")
        .arg("--getsize64")
        .arg(d.path())
        .output()
        .expect("blockdev");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), size.to_string());
    assert_eq!((d.size(), d.stored()), (size, size));
    let kb = fs::read_to_string(format!("/sys/block/{}/queue/max_sectors_kb", d.kernel_name())).expect("max_sectors_kb");
    assert_ne!(kb.trim(), MAX_REQUEST_KB.to_string(), "a device without EIO ranges is capped");

    // Every byte, written and read back with O_DIRECT in 1 MiB requests.
    for i in 0..size / MIB {
        must_write(d.path(), i * MIB, &pattern(i, MIB as usize));
    }
    for i in 0..size / MIB {
        assert!(
            must_read(d.path(), i * MIB, MIB as usize) == pattern(i, MIB as usize),
            "MiB {i} differs"
        );
    }
    // dd with oflag=direct / iflag=direct, unaligned to the 128 KiB FUSE requests.
    let tmp = std::env::temp_dir().join(unique_name("pattern"));
    let back = std::env::temp_dir().join(unique_name("readback"));
    let data = pattern(99, 3 * MIB as usize + 12 * 1024);
    fs::write(&tmp, &data).expect("write pattern file");
    dd_ok(&[
        a(format!("if={}", tmp.display())),
        a(format!("of={}", d.path().display())),
        a("bs=4k"),
        a("seek=777"),
        a("oflag=direct"),
        a("conv=notrunc"),
    ]);
    dd_ok(&[
        a(format!("if={}", d.path().display())),
        a(format!("of={}", back.display())),
        a("bs=4k"),
        a("skip=777"),
        a(format!("count={}", data.len() / 4096)),
        a("iflag=direct"),
    ]);
    let got = fs::read(&back).expect("read back");
    let _ = fs::remove_file(&tmp);
    let _ = fs::remove_file(&back);
    assert!(got == data, "dd round trip differs");
}

/// Fake capacity: a 4 GiB device that stores 1 GiB; offset o lands at o mod 1 GiB.
#[test]
fn faultdev_wraps_onto_the_start() {
    need_root!();
    let _g = shared();
    let (n, m) = (4 * GIB, GIB);
    let d = FaultDev::new(FaultSpec {
        announce: n,
        store: Some(m),
        ..Default::default()
    });
    assert_eq!((d.size(), d.stored(), d.stored_at(m + 4096)), (n, m, 4096));
    let blk = |seed| pattern(seed, BLOCK as usize);
    must_write(d.path(), 0, &blk(1));
    must_write(d.path(), 4096, &blk(2));
    // The block written at M + 4096 ...
    must_write(d.path(), m + 4096, &blk(3));
    // ... reads back at 4096, which now holds it (the old block is gone), and at every
    // M-th offset after; the block at 0 is untouched.
    for off in [4096, m + 4096, 2 * m + 4096, 3 * m + 4096] {
        assert!(
            must_read(d.path(), off, 4096) == blk(3),
            "block at {off} is not the one written at M + 4096"
        );
    }
    assert!(must_read(d.path(), 0, 4096) == blk(1), "block 0 changed");
    // dd near the end lands near the start too; a request across M is split.
    let tmp = std::env::temp_dir().join(unique_name("pattern"));
    fs::write(&tmp, pattern(4, 16 * 4096)).expect("write pattern file");
    let seek = (n - 8 * 4096) / 4096; // the last 8 blocks, then 8 past the end: dd stops
    let out = dd(&[
        a(format!("if={}", tmp.display())),
        a(format!("of={}", d.path().display())),
        a("bs=4k"),
        a(format!("seek={seek}")),
        a("oflag=direct"),
        a("conv=notrunc"),
    ]);
    let _ = fs::remove_file(&tmp);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("8+0 records out"), "dd past the end: {err}");
    assert!(
        must_read(d.path(), m - 8 * 4096, 8 * 4096) == pattern(4, 8 * 4096),
        "the last 8 blocks of the device are not at the end of the store"
    );
    let across = must_read(d.path(), m - 4096, 3 * 4096);
    assert!(across[..4096] == pattern(4, 8 * 4096)[7 * 4096..] && across[4096..8192] == blk(1) && across[8192..] == blk(3));
    // Sparse: the store takes the blocks written, not the gigabyte.
    let used = d.store_allocated().expect("store allocation");
    assert!(used <= MIB, "store takes {used} bytes after 11 blocks were written");
}

/// The worst case of a capacity probe: write every block of a 4 GiB device that stores
/// 1 GiB, stamped with its offset, then read every block back: each holds the stamp of
/// the last lap that wrapped onto it. Well within the 60 s a probe may take.
#[test]
fn faultdev_full_pass_on_a_fake_4gib_device() {
    need_root!();
    let _g = alone();
    let (n, m) = (4 * GIB, GIB);
    let d = FaultDev::new(FaultSpec {
        announce: n,
        store: Some(m),
        ..Default::default()
    });
    let chunk = 4 * MIB as usize;
    let filler = pattern(7, BLOCK as usize);
    let stamp = |buf: &mut [u8], off: u64| {
        for (i, b) in buf.chunks_exact_mut(BLOCK as usize).enumerate() {
            b.copy_from_slice(&filler);
            b[..8].copy_from_slice(&(off + i as u64 * BLOCK).to_le_bytes());
        }
    };
    let f = open_direct(d.path(), true);
    let mut a = Aligned::new(chunk);
    let t0 = Instant::now();
    let mut off = 0;
    while off < n {
        stamp(a.buf(), off);
        f.write_all_at(a.buf(), off).unwrap_or_else(|e| panic!("write at {off}: {e}"));
        off += chunk as u64;
    }
    let write_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut off = 0;
    let mut bad = 0u64;
    while off < n {
        f.read_exact_at(a.buf(), off).unwrap_or_else(|e| panic!("read at {off}: {e}"));
        for (i, b) in a.buf().chunks_exact(BLOCK as usize).enumerate() {
            let want = (off + i as u64 * BLOCK) % m + 3 * m;
            if b[..8] != want.to_le_bytes() || b[8..] != filler[8..] {
                bad += 1;
            }
        }
        off += chunk as u64;
    }
    let read_s = t1.elapsed().as_secs_f64();
    let mbs = |s: f64| n as f64 / s / 1e6;
    note!(
        "4 GiB device storing 1 GiB, O_DIRECT 4 MiB requests: wrote all in {write_s:.1} s ({:.0} MB/s), read all in {read_s:.1} s ({:.0} MB/s)",
        mbs(write_s),
        mbs(read_s)
    );
    assert_eq!(bad, 0, "blocks without the stamp of the last lap");
    let used = d.store_allocated().expect("store allocation");
    assert!(used <= m, "store takes {used} bytes, more than the {m} it stores");
    assert!(write_s + read_s < 60.0, "a full write + read pass took {:.1} s", write_s + read_s);
}

/// dd's sequential O_DIRECT rates through the loop device, for the record; a verify of
/// 256 MiB must take seconds, not minutes.
#[test]
fn faultdev_speed() {
    need_root!();
    let _g = alone();
    let size = 256 * MIB;
    let d = FaultDev::new(FaultSpec::clean(size));
    let dev = d.path().display().to_string();
    let mut slowest = f64::INFINITY;
    for (bs, count) in [("1M", 256), ("128k", 2048), ("4k", 8192)] {
        let w = dd_rate(&dd_ok(&[
            a("if=/dev/zero"),
            a(format!("of={dev}")),
            a(format!("bs={bs}")),
            a(format!("count={count}")),
            a("oflag=direct"),
        ]));
        let r = dd_rate(&dd_ok(&[
            a(format!("if={dev}")),
            a("of=/dev/null"),
            a(format!("bs={bs}")),
            a(format!("count={count}")),
            a("iflag=direct"),
        ]));
        note!("dd bs={bs:>4} O_DIRECT: write {:.0} MB/s, read {:.0} MB/s", w / 1e6, r / 1e6);
        if bs == "1M" {
            slowest = w.min(r);
        }
    }
    let secs = size as f64 / slowest;
    assert!(secs < 30.0, "256 MiB at 1 MiB requests takes {secs:.1} s");
}

/// A write pace: dd's O_DIRECT writes of 1 MiB through the loop device take the
/// virtual clock's time within 3%, before the drop offset, after it and across it
/// (the ground truth of `truth::verify`'s write cache).
#[test]
fn faultdev_paces_writes_by_offset() {
    need_root!();
    let _g = alone();
    let (before, after) = (100_000_000u64, 25_000_000u64);
    let d = FaultDev::new(FaultSpec {
        write_pace: Some(WritePace {
            before_bps: before,
            after_bps: after,
            drop_offset: 32 * MIB,
        }),
        ..FaultSpec::clean(64 * MIB)
    });
    let dev = d.path().display().to_string();
    // [from, to) in MiB, and the seconds the pace gives it.
    for (from, to) in [(0u64, 24u64), (40, 48), (28, 36)] {
        let fast = (32.min(to).saturating_sub(from) * MIB) as f64;
        let slow = ((to - from) * MIB) as f64 - fast;
        let want = fast / before as f64 + slow / after as f64;
        // Idle first, longer than the pace's slack: each range is a stream of its own.
        thread::sleep(Duration::from_millis(100));
        // dd's own clock: from its first write to its last (not its start-up).
        let rate = dd_rate(&dd_ok(&[
            a("if=/dev/zero"),
            a(format!("of={dev}")),
            a("bs=1M"),
            a(format!("seek={from}")),
            a(format!("count={}", to - from)),
            a("oflag=direct"),
        ]));
        let got = ((to - from) * MIB) as f64 / rate;
        note!("[{from}, {to}) MiB written in {got:.3} s, paced {want:.3} s");
        assert!((got / want - 1.0).abs() <= 0.03, "[{from}, {to}) MiB: {got:.3} s, want {want:.3} s");
    }
}

/// EIO: a read touching [a, b) fails, whole (never short); writes there succeed unless
/// `eio_writes`, then they fail too.
/// A held range answers late, by the time asked, and logs the answer; the
/// blocks beside it answer at once (issue 36's device that keeps one read).
#[test]
fn faultdev_holds_a_read() {
    need_root!();
    let _g = shared();
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("held");
    let held = 2 * MIB;
    let d = FaultDev::new(FaultSpec {
        hold: vec![(held, held + 4096, 700)],
        hold_log: Some(log.clone()),
        ..FaultSpec::clean(16 * MIB)
    });
    let t = Instant::now();
    must_read(d.path(), held - 4096, 4096);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "a block beside the hold waited {:?}",
        t.elapsed()
    );
    assert!(!log.exists(), "an unheld read was logged");
    let t = Instant::now();
    let before = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    must_read(d.path(), held, 4096);
    assert!(t.elapsed() >= Duration::from_millis(700), "the held read took {:?}", t.elapsed());
    let text = fs::read_to_string(&log).expect("the hold's log");
    let ns: u64 = text
        .strip_prefix(&format!("answered {held} "))
        .and_then(|r| r.trim().parse().ok())
        .unwrap_or_else(|| panic!("log: {text:?}"));
    let before = before.tv_sec as u64 * 1_000_000_000 + before.tv_nsec as u64;
    assert!(ns >= before + 700_000_000, "answered at {ns}, asked at {before}");
}

#[test]
fn faultdev_eio_range() {
    need_root!();
    let _g = shared();
    let (lo, hi) = (8 * MIB + 12 * 1024, 8 * MIB + 20 * 1024);
    let d = FaultDev::new(FaultSpec {
        announce: 64 * MIB,
        eio: vec![(lo, hi)],
        ..Default::default()
    });
    let dev = d.path().display().to_string();
    let knob = |d: &FaultDev| fs::read_to_string(format!("/sys/block/{}/queue/max_sectors_kb", d.kernel_name())).expect("max_sectors_kb");
    assert_eq!(
        knob(&d).trim(),
        MAX_REQUEST_KB.to_string(),
        "requests of a device with EIO ranges are not capped"
    );
    // dd reading 4 KiB blocks from 8 MiB stops at lo with "Input/output error".
    let out = dd(&[
        a(format!("if={dev}")),
        a("of=/dev/null"),
        a("bs=4k"),
        a("skip=2048"),
        a("count=8"),
        a("iflag=direct"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "dd read through the EIO range succeeded: {err}");
    assert!(err.contains("Input/output error"), "dd: {err}");
    assert!(
        err.contains("3+0 records in") && err.contains("12288 bytes"),
        "dd did not stop at 8 MiB + 12 KiB: {err}"
    );
    // Byte-exact edges, and a 1 MiB request that starts before the range fails whole.
    for (off, len, fails) in [
        (lo - 4096, 4096, false),
        (lo, 4096, true),
        (hi - 4096, 4096, true),
        (hi, 4096, false),
        (lo - 512, 512, false),
        (lo, 512, true),
        (hi - 512, 512, true),
        (hi, 512, false),
        (8 * MIB, MIB as usize, true),
        (7 * MIB + 512 * 1024, MIB as usize, true),
        (7 * MIB, MIB as usize, false),
        (9 * MIB, MIB as usize, false),
    ] {
        for _ in 0..2 {
            match read_direct(d.path(), off, len) {
                Ok(_) => assert!(!fails, "read of {len} at {off} succeeded"),
                Err(e) => {
                    assert!(fails, "read of {len} at {off}: {e}");
                    assert_eq!(e.raw_os_error(), Some(libc::EIO), "read of {len} at {off}: {e}");
                }
            }
        }
    }
    // Writes into the range are stored (reads still fail; the store holds them).
    let data = pattern(5, 64 * 1024);
    must_write(d.path(), 8 * MIB, &data);
    let store = File::open(d.store_file().expect("store")).expect("open store");
    let mut held = vec![0u8; data.len()];
    store.read_exact_at(&mut held, 8 * MIB).expect("read store");
    assert!(held == data, "a write over the EIO range was not stored");

    // With eio_writes, dd writing through the range fails with EIO at the range.
    let w = FaultDev::new(FaultSpec {
        announce: 64 * MIB,
        eio: vec![(lo, hi)],
        eio_writes: true,
        ..Default::default()
    });
    let wdev = w.path().display().to_string();
    let out = dd(&[
        a("if=/dev/zero"),
        a(format!("of={wdev}")),
        a("bs=4k"),
        a("seek=2048"),
        a("count=8"),
        a("oflag=direct"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("Input/output error"), "dd write: {err}");
    assert!(err.contains("3+0 records out"), "dd write did not stop at 8 MiB + 12 KiB: {err}");
    // Big writes over the range fail however the block layer cuts them (it depends on
    // the buffer's pages), from aligned and merely 512-aligned buffers.
    for (off, len) in [
        (7 * MIB + 512 * 1024, MIB),
        (8 * MIB, 128 * 1024),
        (lo - 60 * 1024, 128 * 1024),
        (6 * MIB, 4 * MIB),
    ] {
        for shift in [0, 512, 3584] {
            for round in 0..5 {
                let e = write_direct_shifted(w.path(), off, &pattern(6, len as usize), shift).expect_err(&format!(
                    "write of {len} at {off} (buffer +{shift}, round {round}) over the range succeeded"
                ));
                assert_eq!(e.raw_os_error(), Some(libc::EIO), "write of {len} at {off}: {e}");
            }
        }
    }
    must_write(w.path(), 9 * MIB, &pattern(6, MIB as usize));
}

/// A flipped block: exactly one bit of one byte differs, on every read, whatever the
/// request; the stored data is intact; no cache keeps a clean (or a flipped) copy.
#[test]
fn faultdev_flips_one_bit() {
    need_root!();
    let _g = shared();
    let b1 = 16 * MIB;
    let b2 = 16 * MIB + 12 * 1024;
    let d = FaultDev::new(FaultSpec {
        announce: 64 * MIB,
        flip: vec![b1, b2],
        ..Default::default()
    });
    assert_eq!(FaultDev::flipped_byte(b1), b1 + FLIP_POS);
    let data = pattern(8, MIB as usize);
    must_write(d.path(), b1, &data);
    let one_bit = |got: &[u8], want: &[u8], at: &[u64], base: u64| {
        let want_at: Vec<usize> = at.iter().map(|&b| (FaultDev::flipped_byte(b) - base) as usize).collect();
        assert_eq!(diffs(got, want), want_at, "differing bytes");
        for &i in &want_at {
            assert_eq!(got[i] ^ want[i], FLIP_MASK, "not exactly bit {FLIP_MASK:#x} at {i}");
        }
    };
    for round in 0..5 {
        one_bit(&must_read(d.path(), b1, 4096), &data[..4096], &[b1], b1);
        one_bit(&must_read(d.path(), b2, 4096), &data[12 * 1024..16 * 1024], &[b2], b2);
        one_bit(&must_read(d.path(), b1, MIB as usize), &data, &[b1, b2], b1);
        // A read of just the flipped byte's sector, and of the block's other sectors.
        let s = FaultDev::flipped_byte(b1) / 512 * 512;
        one_bit(&must_read(d.path(), s, 512), &data[(s - b1) as usize..][..512], &[b1], s);
        assert!(
            must_read(d.path(), b1 + 2048, 2048) == data[2048..4096],
            "round {round}: bytes past the flip"
        );
    }
    // The store holds the data as written.
    let store = File::open(d.store_file().expect("store")).expect("open store");
    let mut held = vec![0u8; data.len()];
    store.read_exact_at(&mut held, b1).expect("read store");
    assert!(held == data, "the stored data changed");
    // dd reads it flipped too.
    let back = std::env::temp_dir().join(unique_name("readback"));
    for _ in 0..2 {
        dd_ok(&[
            a(format!("if={}", d.path().display())),
            a(format!("of={}", back.display())),
            a("bs=4k"),
            a(format!("skip={}", b1 / 4096)),
            a("count=1"),
            a("iflag=direct"),
        ]);
        one_bit(&fs::read(&back).expect("dd output"), &data[..4096], &[b1], b1);
    }
    let _ = fs::remove_file(&back);
    // Buffered reads of the FUSE file (FOPEN_DIRECT_IO: no page cache) are flipped
    // every time, and so is a buffered read of the loop device after its cache is
    // dropped.
    let f = File::open(d.file()).expect("open the FUSE file");
    for _ in 0..3 {
        let mut got = vec![0u8; 4096];
        f.read_exact_at(&mut got, b1).expect("buffered read of the FUSE file");
        one_bit(&got, &data[..4096], &[b1], b1);
    }
    for _ in 0..2 {
        let out = Command::new("blockdev")
            .arg("--flushbufs")
            .arg(d.path())
            .output()
            .expect("blockdev");
        assert!(out.status.success(), "blockdev --flushbufs failed");
        let mut got = vec![0u8; 4096];
        File::open(d.path())
            .expect("open loop")
            .read_exact_at(&mut got, b1)
            .expect("buffered read");
        one_bit(&got, &data[..4096], &[b1], b1);
    }
}

/// Many flips (every block of 128 MiB: a configuration of ~300 KB, more than one
/// command-line argument may hold): a full read finds each, and only each.
#[test]
fn faultdev_flips_every_block() {
    need_root!();
    let _g = shared();
    let size = 128 * MIB;
    let d = FaultDev::new(FaultSpec {
        announce: size,
        flip: (0..size).step_by(BLOCK as usize).collect(),
        ..Default::default()
    });
    let f = open_direct(d.path(), false);
    let mut a = Aligned::new(MIB as usize);
    let mut want = vec![0u8; BLOCK as usize];
    want[FLIP_POS as usize] = FLIP_MASK;
    let t0 = Instant::now();
    for off in (0..size).step_by(MIB as usize) {
        f.read_exact_at(a.buf(), off).unwrap_or_else(|e| panic!("read at {off}: {e}"));
        for (i, b) in a.buf().chunks_exact(BLOCK as usize).enumerate() {
            assert!(
                b == want.as_slice(),
                "block at {} is not zeros with one flipped bit",
                off + i as u64 * BLOCK
            );
        }
    }
    note!("read 128 MiB with a flip in every block in {:.2} s", t0.elapsed().as_secs_f64());
}

/// Lost writes: reported written, not stored; reads return what was there before.
#[test]
fn faultdev_drops_writes() {
    need_root!();
    let _g = shared();
    let (n, m) = (64 * MIB, 32 * MIB);
    let dl = 4 * MIB; // [dl, dl + 64 KiB) is dropped
    let old = MIB; // [m + old, m + old + 4 KiB) is dropped: it lands on `old`
    let d = FaultDev::new(FaultSpec {
        announce: n,
        store: Some(m),
        drop: vec![(dl, dl + 64 * 1024), (m + old, m + old + 4096)],
        ..Default::default()
    });
    // dd writes 192 KiB over the 64 KiB range: success, and only the outside is stored.
    let base = dl - 64 * 1024;
    let data = pattern(10, 192 * 1024);
    let tmp = std::env::temp_dir().join(unique_name("pattern"));
    fs::write(&tmp, &data).expect("write pattern file");
    let err = dd_ok(&[
        a(format!("if={}", tmp.display())),
        a(format!("of={}", d.path().display())),
        a("bs=192k"),
        a(format!("seek={base}")),
        a("oflag=direct,seek_bytes"),
        a("conv=notrunc"),
    ]);
    let _ = fs::remove_file(&tmp);
    assert!(err.contains("1+0 records out"), "dd: {err}");
    for _ in 0..3 {
        let got = must_read(d.path(), base, data.len());
        assert!(got[..64 * 1024] == data[..64 * 1024], "bytes before the dropped range");
        assert!(got[64 * 1024..128 * 1024].iter().all(|&b| b == 0), "the dropped range holds data");
        assert!(got[128 * 1024..] == data[128 * 1024..], "bytes after the dropped range");
    }
    // Old data stays: `old` is written, then a dropped write lands on it (through the wrap).
    let q = pattern(11, 4096);
    must_write(d.path(), old, &q);
    must_write(d.path(), m + old, &pattern(12, 4096));
    assert!(must_read(d.path(), old, 4096) == q, "a dropped write changed the old data");
    assert!(must_read(d.path(), m + old, 4096) == q, "a dropped write is served back");
    // No cache serves a dropped write: not the FUSE file's (buffered write + read of the
    // file itself), not the loop device's once flushed (buffered write, fsync, flush).
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(d.file())
        .expect("open the FUSE file");
    f.write_all_at(&pattern(13, 8192), dl).expect("buffered write to the FUSE file");
    let mut got = vec![0u8; 8192];
    f.read_exact_at(&mut got, dl).expect("buffered read of the FUSE file");
    assert!(got.iter().all(|&b| b == 0), "the FUSE file served a dropped write");
    let lf = OpenOptions::new().read(true).write(true).open(d.path()).expect("open loop");
    lf.write_all_at(&pattern(14, 8192), dl).expect("buffered write to the loop device");
    lf.sync_all().expect("fsync the loop device");
    let out = Command::new("blockdev")
        .arg("--flushbufs")
        .arg(d.path())
        .output()
        .expect("blockdev");
    assert!(out.status.success(), "blockdev --flushbufs failed");
    lf.read_exact_at(&mut got, dl).expect("buffered read of the loop device");
    assert!(got.iter().all(|&b| b == 0), "the loop device served a dropped write after a flush");
    assert!(
        must_read(d.path(), dl, 8192).iter().all(|&b| b == 0),
        "O_DIRECT read of a dropped write"
    );
}

// ---- cleanup -----------------------------------------------------------------------

fn every_fault() -> FaultSpec {
    FaultSpec {
        announce: 256 * MIB,
        store: Some(64 * MIB),
        eio: vec![(MIB, MIB + 4096)],
        eio_writes: true,
        flip: vec![2 * MIB],
        drop: vec![(3 * MIB, 4 * MIB)],
        write_pace: None,
        hold: vec![(5 * MIB, 5 * MIB + 4096, 1)],
        hold_log: None,
    }
}

/// Drop leaves nothing: no mount, no loop device, no server, no directory — also when
/// the test panics, and when parts are already gone (Drop is idempotent).
#[test]
fn faultdev_drop_leaves_nothing() {
    need_root!();
    let _g = shared();
    let d = FaultDev::new(every_fault());
    let parts = Parts::of(&d);
    assert!(mounted(&parts.dir) && !loops_over(&parts.file_name).is_empty() && !gone(parts.pid));
    must_write(&parts.dev, 0, &pattern(1, 4096));
    drop(d);
    parts.assert_gone();

    // A panicking test.
    let seen: Mutex<Option<Parts>> = Mutex::new(None);
    let r = std::panic::catch_unwind(|| {
        let d = FaultDev::new(every_fault());
        *seen.lock().unwrap() = Some(Parts::of(&d));
        panic!("test failure with a FaultDev alive");
    });
    assert!(r.is_err());
    seen.lock().unwrap().take().expect("parts").assert_gone();

    // Loop device detached and FUSE unmounted behind the guard's back (by someone who
    // restores the request size: the guard no longer can, the device is not its own).
    let d = FaultDev::new(every_fault());
    let parts = Parts::of(&d);
    fs::write(format!("/sys/block/{}/queue/max_sectors_kb", d.kernel_name()), "0").expect("reset max_sectors_kb");
    assert!(
        Command::new("losetup")
            .arg("-d")
            .arg(&parts.dev)
            .status()
            .expect("losetup")
            .success()
    );
    assert!(Command::new("umount").arg("-l").arg(&parts.dir).status().expect("umount").success());
    drop(d);
    parts.assert_gone();

    // Still open when dropped (a child that did not exit): detached on last close.
    let d = FaultDev::new(every_fault());
    let parts = Parts::of(&d);
    let held = File::open(&parts.dev).expect("open loop");
    drop(d);
    drop(held);
    wait_until("loop device autocleared", Duration::from_secs(5), || {
        loops_over(&parts.file_name).is_empty()
    });
    parts.assert_gone();
}

/// A faultfs server started by hand under `dir`, with a loop device over its file;
/// whatever happens, the test undoes it all (server killed by pid, loop detached,
/// mount removed, directory removed).
struct ByHand {
    dir: PathBuf,
    file: PathBuf,
    server: Option<Child>,
    server_pid: u32,
    dev: Option<PathBuf>,
}

impl ByHand {
    /// Server under `dir` (named like a FaultDev's), as a child of this process or,
    /// with `via_shell`, as the child of a `sh` that is this process's child.
    fn start(dir: PathBuf, via_shell: bool) -> ByHand {
        fs::create_dir(&dir).expect("mkdir");
        let name = format!("{}.img", dir.file_name().unwrap().to_string_lossy());
        let cfg = format!(r#"{{"name": "{name}", "announce": {}}}"#, 64 * MIB);
        let pidfile = dir.with_extension("pid");
        let server = if via_shell {
            Command::new("sh")
                .arg("-c")
                .arg(r#"/usr/bin/python3 "$0" "$1" --config "$2" & echo $! > "$3"; wait"#)
                .args([Path::new(FAULTFS_SCRIPT), &dir, Path::new(&cfg), &pidfile])
                .stdin(Stdio::null())
                .spawn()
        } else {
            Command::new("/usr/bin/python3")
                .arg(FAULTFS_SCRIPT)
                .arg(&dir)
                .args(["--config", &cfg])
                .stdin(Stdio::null())
                .spawn()
        }
        .expect("start faultfs.py");
        let mut h = ByHand {
            file: dir.join(name),
            dir,
            server_pid: server.id(),
            server: Some(server),
            dev: None,
        };
        wait_until("faultfs mounted", Duration::from_secs(15), || h.file.exists());
        if via_shell {
            h.server_pid = fs::read_to_string(&pidfile).expect("pid file").trim().parse().expect("pid");
            let _ = fs::remove_file(&pidfile);
        }
        let out = Command::new("losetup")
            .args(["--find", "--show", "--direct-io=off"])
            .arg(&h.file)
            .output()
            .expect("losetup");
        assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
        h.dev = Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
        h
    }

    fn file_name(&self) -> String {
        self.file.file_name().unwrap().to_string_lossy().into_owned()
    }

    fn parts(&self) -> Parts {
        Parts {
            dev: self.dev.clone().unwrap(),
            dir: self.dir.clone(),
            file_name: self.file_name(),
            pid: self.server_pid,
        }
    }
}

impl Drop for ByHand {
    fn drop(&mut self) {
        if let Some(dev) = &self.dev {
            detach_loop_if_backed_by(dev, &self.file_name());
        }
        if mounted(&self.dir) {
            let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        }
        if !gone(self.server_pid) {
            // SAFETY: kill(2) of the server this test started.
            unsafe { libc::kill(self.server_pid as i32, libc::SIGKILL) };
        }
        if let Some(mut c) = self.server.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = fs::remove_dir(&self.dir);
    }
}

/// A dead pid (a reaped child) put into a harness name in place of ours.
pub(super) fn stale_name(kind: &str) -> String {
    let mut t = Command::new("true").spawn().expect("spawn true");
    let dead = t.id();
    t.wait().expect("wait true");
    unique_name(kind).replacen(&std::process::id().to_string(), &dead.to_string(), 1)
}

/// The test process is killed (here: the server's parent, a shell): the server
/// notices, detaches the loop device over its file, unmounts, removes the mount
/// directory and exits by itself.
#[test]
fn faultdev_orphaned_server_cleans_up() {
    need_root!();
    let _g = shared();
    let mut h = ByHand::start(std::env::temp_dir().join(unique_name("faultfs")), true);
    let parts = h.parts();
    must_write(&parts.dev, 0, &pattern(1, 4096));
    let mut shell = h.server.take().expect("shell");
    shell.kill().expect("kill the shell");
    shell.wait().expect("reap the shell");
    wait_until("orphaned server cleaned up", Duration::from_secs(10), || {
        !mounted(&parts.dir) && loops_over(&parts.file_name).is_empty() && gone(parts.pid) && !parts.dir.exists()
    });
    parts.assert_gone();
}

/// Leftovers of a killed test process are swept: a faultfs whose server was killed too
/// (a dead FUSE connection under an attached loop device), and one whose server still
/// runs (its parent alive, so it does not clean up by itself).
#[test]
fn stale_faultdev_is_swept() {
    need_root!();
    let _g = shared();
    let mut dead = ByHand::start(std::env::temp_dir().join(stale_name("faultfs")), false);
    let mut alive = ByHand::start(std::env::temp_dir().join(stale_name("faultfs")), false);
    let mut server = dead.server.take().expect("server");
    server.kill().expect("kill the server");
    server.wait().expect("reap the server");
    assert!(
        mounted(&dead.dir) && !loops_over(&dead.file_name()).is_empty(),
        "leftovers not in place"
    );
    assert!(
        read_direct(dead.dev.as_ref().unwrap(), 0, 4096).is_err(),
        "a dead server still serves"
    );

    sweep_stale_faultdevs();
    let mut server = alive.server.take().expect("server");
    wait_until("swept server exits", Duration::from_secs(10), || {
        server.try_wait().expect("try_wait").is_some()
    });
    for h in [&dead, &alive] {
        h.parts().assert_gone();
    }
}
