//! A reference measured side by side: what `dd` gets from the same device, through the
//! same cgroup, for the same bytes, where the device's limit is not the truth.
//!
//! Buffered writes timed to their final fsync are the case. Under cgroup v1 the
//! throttle charges a write to the group of the task that issues the bio: writeback by
//! the kernel's flusher threads is charged to the root group (unthrottled), what the
//! writer's own `fsync` issues to the writer's group. A 128 MiB transfer stays below the
//! dirty thresholds, so nothing is written back before the fsync and the group is charged
//! every byte (checked here with `blkio.throttle.io_service_bytes`): the fsync runs at the
//! limit. But the clock also runs while the writes only fill the page cache and the
//! device idles, and how long that takes depends on the transfer size and the kernel's
//! page-cache path, not on the device: `dd bs=8k conv=fdatasync` of 128 MiB at 20 MiB/s came
//! in 5–7% under the limit here. The truth for iolab's buffered figure is therefore what
//! an independent tool measures for the same work in the same conditions: `dd` with
//! `conv=fdatasync`, as iolab's clock stops at its fdatasync.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use super::blockdev::BlockDev;
use super::cgroup::Cgroup;
use super::loopdev::{ShmFile, fill_pseudo_random};
use super::names::unique_name;
use super::proc::output_with_timeout;
use super::{MIB, SHM_DIR};

/// What `dd` measured for a buffered overwrite.
#[derive(Clone, Debug)]
pub struct DdWrite {
    /// The median over the passes of bytes written / dd's own time from its first write
    /// to the end of its fdatasync, bytes/s.
    pub bps: f64,
    /// Each pass's figure, bytes/s.
    pub passes: Vec<f64>,
    /// The fewest bytes the group's throttle charged for one pass.
    pub charged: u64,
}

/// Overwrites `bytes` of a prefilled file in `dir` (on `dev`) `passes` times with `dd
/// bs=BS conv=notrunc,fdatasync` run inside `cg`, from pseudo-random data in `/dev/shm`:
/// the same work as the runs of an iolab buffered sequential write job timed to
/// fdatasync (iolab also prefills its test file, so both overwrite allocated blocks).
/// The group is settled before each pass, so each starts on a fresh slice of the
/// throttle, as iolab's runs do with `--interval`. The file is removed afterwards.
pub fn dd_overwrite(cg: &Cgroup, dev: &dyn BlockDev, dir: &Path, bs: u64, bytes: u64, passes: usize) -> DdWrite {
    assert!(passes > 0);
    assert!(bytes.is_multiple_of(bs) && bs.is_multiple_of(4096));
    let src = ShmFile(Path::new(SHM_DIR).join(format!("{}.src", unique_name("dd"))));
    {
        let mut f = File::create_new(&src.0).unwrap_or_else(|e| panic!("create {}: {e}", src.0.display()));
        fill_pseudo_random(&mut f, bytes).unwrap_or_else(|e| panic!("fill {}: {e}", src.0.display()));
    }
    let dst = RemoveOnDrop(dir.join(unique_name("dd")));
    // Prefill with O_DIRECT (outside the group: this is set-up, not the measurement),
    // so the measured pass overwrites blocks that are already allocated.
    {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_DIRECT)
            .open(&dst.0)
            .unwrap_or_else(|e| panic!("create {}: {e}", dst.0.display()));
        copy_direct(&src.0, &mut f, bytes);
        f.sync_all().unwrap_or_else(|e| panic!("fsync {}: {e}", dst.0.display()));
    }
    let mut figures = Vec::with_capacity(passes);
    let mut charged = u64::MAX;
    for _ in 0..passes {
        let before = cg.io_count(dev).write_bytes;
        cg.settle();
        let mut cmd = cg.command("dd");
        cmd.env("LC_ALL", "C")
            .arg(format!("if={}", src.0.display()))
            .arg(format!("of={}", dst.0.display()))
            .arg(format!("bs={bs}"))
            .arg(format!("count={}", bytes / bs))
            .arg("conv=notrunc,fdatasync")
            .stdin(Stdio::null());
        let out = output_with_timeout(&mut cmd, Duration::from_secs(bytes / MIB + 60));
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "dd failed: {said}");
        let elapsed = dd_seconds(&said).unwrap_or_else(|| panic!("no time in dd's report: {said}"));
        figures.push(bytes as f64 / elapsed);
        charged = charged.min(cg.io_count(dev).write_bytes - before);
    }
    let mut sorted = figures.clone();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let bps = if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    };
    DdWrite {
        bps,
        passes: figures,
        charged,
    }
}

/// dd's own clock, from its last line (`N bytes (…) copied, 6.79 s, 19.8 MB/s` under
/// `LC_ALL=C`): it starts after dd has opened its files and stops after the fsync, so
/// the start-up of the process is not counted, as iolab's clock does not count its own.
fn dd_seconds(report: &str) -> Option<f64> {
    let line = report.lines().rev().find(|l| l.contains(" copied, "))?;
    let after = line.split(" copied, ").nth(1)?;
    after.split(' ').next()?.parse().ok()
}

/// `bytes` of `src` into `dst` (opened O_DIRECT) in aligned 1 MiB pieces.
fn copy_direct(src: &Path, dst: &mut File, bytes: u64) {
    use std::io::{Read, Write};
    let layout = std::alloc::Layout::from_size_align(MIB as usize, 4096).unwrap();
    // SAFETY: the layout has a non-zero size; the buffer is freed below.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    assert!(!ptr.is_null());
    // SAFETY: `ptr` points to MIB initialised (zeroed) bytes owned by this function.
    let buf = unsafe { std::slice::from_raw_parts_mut(ptr, MIB as usize) };
    let mut s = File::open(src).unwrap_or_else(|e| panic!("open {}: {e}", src.display()));
    let mut left = bytes;
    while left > 0 {
        let n = left.min(MIB) as usize;
        s.read_exact(&mut buf[..n]).expect("read the source");
        dst.write_all(&buf[..n]).expect("O_DIRECT prefill");
        left -= n as u64;
    }
    // SAFETY: allocated above with this layout, not used after.
    unsafe { std::alloc::dealloc(ptr, layout) };
}

struct RemoveOnDrop(std::path::PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_file(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            eprintln!("emu cleanup: rm {}: {e}", self.0.display());
        }
    }
}
