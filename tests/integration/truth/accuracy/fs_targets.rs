//! Directory targets on real filesystems: buffered I/O on ext4 over a throttled loop
//! device (device limit vs page cache, `cache_answered`), and tmpfs (`no_block_device`).

use super::SHORT;
use super::report::{assert_near, get, iolab, num, only_job, s, warning_codes};
use super::{BUFFERED_TOL, TOL};
use crate::common::emu::{Cgroup, Ext4Mount, KIB, Limit, MIB, Tmpfs, dd_overwrite};

// ---------------------------------------------------------------------------
// Buffered I/O on ext4 over a throttled loop device
// ---------------------------------------------------------------------------

/// ext4 on a 512 MiB loop device, plus a cgroup limiting that device.
fn ext4_rig(limits: &[Limit]) -> (Ext4Mount, Cgroup) {
    let fs = Ext4Mount::new(512 * MIB);
    let cg = Cgroup::new();
    for l in limits {
        cg.limit(&fs, *l);
    }
    (fs, cg)
}

fn buffered_job(fs: &Ext4Mount, rw: &str, bs: &str, size: &str, extra: &[&str]) -> Vec<String> {
    let mut a = s(&["job", &fs.dir().to_string_lossy(), "--rw", rw, "--bs", bs, "--qd", "1"]);
    a.extend(s(&["--size", size, "--buffered"]));
    a.extend(s(extra));
    a.extend(s(&["--json", "-"]));
    a
}

fn assert_cleaned_up(fs: &Ext4Mount) {
    let left = fs.user_entries();
    assert!(left.is_empty(), "iolab left files in its directory target: {left:?}");
}

/// Sequential buffered read of a file larger than everything the job reads: readahead
/// goes to the device, so the figure must be the device limit, not page-cache speed
/// (iolab must evict the prefilled file from the page cache before measuring).
pub(crate) fn buffered_seq_read_ext4_reports_device_limit_not_page_cache() {
    need_root!();
    let limit = 20 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    // Each run drops the caches and reads cold for 2 s, so each must start on a fresh
    // slice of the throttle (see common/emu/settle.rs): no warm-up right before run 1,
    // and a settling pause before run 2. After a 1 s warm-up, run 1 began one cache drop
    // after the warm-up's last read and inherited its slice's unused bytes: +1.6% and
    // +4.4% seen, up to 0.3 s of reads (+15%) possible. Settled, a run reads 40 MiB.
    let settle = Cgroup::settle_interval();
    let runs = ["--runs", "2", "--warmup", "0s", "--interval", &settle, "--duration", "2s"];
    // Reads at most 20 MiB/s * 4 s = 80 MiB of the 192 MiB file.
    let doc = iolab(Some(&cg), &buffered_job(&fs, "read", "128k", "192MiB", &runs));
    let job = only_job(&doc);
    assert_eq!(get(job, "direct").as_bool(), Some(false), "job.direct with --buffered");
    let bw = num(job, "read.bw_bytes");
    assert_near("buffered seq read bw_bytes", bw, limit as f64, BUFFERED_TOL);
    let codes = warning_codes(job);
    note!("warnings: {codes:?}, device: {}", get(job, "device"));
    assert!(
        !codes.iter().any(|c| c == "cache_answered"),
        "device did the reading, yet cache_answered: {codes:?}"
    );
    assert!(
        !codes.iter().any(|c| c == "no_block_device"),
        "ext4 on loop is a block device: {codes:?}"
    );
    assert!(
        cg.io_count(&fs).read_bytes as f64 >= num(job, "read.bytes"),
        "reads did not go through the cgroup"
    );
    assert_cleaned_up(&fs);
}

/// Sequential buffered write of a fixed amount: the figure must include getting the data
/// to the device (fsync / writeback). Its truth is not the device's limit but what `dd
/// conv=fdatasync` measures for the same bytes on the same device and cgroup, side by side
/// (the clock also runs while the writes only fill the page cache: see
/// `common/emu/reference.rs`), within the ground truth's ±3%.
pub(crate) fn buffered_seq_write_ext4_reports_device_limit_not_page_cache() {
    need_root!();
    let limit = 20 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::WriteBps(limit)]);
    // 2 s per run: a settling pause between runs starts each on a fresh slice of the
    // throttle (see common/emu/settle.rs); run 1 follows iolab's prefill, whose slice
    // it may inherit, so three runs, and the job's figure is their median.
    let settle = Cgroup::settle_interval();
    let doc = iolab(
        Some(&cg),
        &buffered_job(
            &fs,
            "write",
            "128k",
            // iolab prefills the file through the same throttle: keep it small.
            "48MiB",
            &["--bytes", "40MiB", "--runs", "3", "--warmup", "0s", "--interval", &settle],
        ),
    );
    let job = only_job(&doc);
    let bw = num(job, "write.bw_bytes");
    note!("warnings: {:?}, device: {}", warning_codes(job), get(job, "device"));
    assert_cleaned_up(&fs);
    // As many passes as iolab's runs, and their median as its figure.
    let dd = dd_overwrite(&cg, &fs, fs.dir(), 128 * KIB, 40 * MIB, 3);
    assert!(dd.charged >= 40 * MIB, "the group was charged {} of dd's 40 MiB", dd.charged);
    note!(
        "dd conv=fdatasync: {:.2} MiB/s {:?} (limit {} MiB/s)",
        dd.bps / MIB as f64,
        dd.passes,
        limit / MIB
    );
    assert_near("buffered seq write bw_bytes vs dd", bw, dd.bps, TOL);
    // Far from page-cache speed: the device's limit bounds it.
    assert!(bw <= limit as f64 * (1.0 + TOL), "{bw} bytes/s is above the device's limit");
    assert_cleaned_up(&fs);
}

/// Random 4K buffered reads in a small file: after the first pass every read is a
/// page-cache hit, the device sees far fewer bytes than the job, and iolab must say so.
pub(crate) fn buffered_randread_small_file_rehits_cache_warns_cache_answered() {
    need_root!();
    let limit = 8 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    let doc = iolab(Some(&cg), &buffered_job(&fs, "randread", "4k", "8MiB", SHORT));
    let job = only_job(&doc);
    let iops = num(job, "read.iops");
    let device_iops = limit as f64 / 4096.0;
    let codes = warning_codes(job);
    note!(
        "  read iops {iops:.0} vs device limit {device_iops:.0}; warnings {codes:?}; device {}",
        get(job, "device")
    );
    assert!(
        iops > 3.0 * device_iops,
        "expected page-cache hits well above the device limit, got {iops:.0} IOPS"
    );
    let devj = get(job, "device");
    assert!(devj.is_object(), "job.device must be filled for ext4 on a block device: {devj}");
    assert!(
        num(devj, "read_bytes") < num(job, "read.bytes"),
        "device read_bytes should be below the job's read bytes when the cache answers"
    );
    assert!(
        codes.iter().any(|c| c == "cache_answered"),
        "missing cache_answered warning: {codes:?}"
    );
    assert_cleaned_up(&fs);
}

/// The device cross-check on a sequential workload: a small file read over and over is
/// answered by the page cache, and the warning must fire there too.
pub(crate) fn buffered_seq_read_small_cached_file_warns_cache_answered() {
    need_root!();
    let limit = 10 * MIB;
    let (fs, cg) = ext4_rig(&[Limit::ReadBps(limit)]);
    let doc = iolab(Some(&cg), &buffered_job(&fs, "read", "128k", "4MiB", SHORT));
    let job = only_job(&doc);
    let bw = num(job, "read.bw_bytes");
    let codes = warning_codes(job);
    note!(
        "  read bw {bw:.0} B/s vs device limit {limit} B/s; warnings {codes:?}; device {}",
        get(job, "device")
    );
    assert!(
        bw > 3.0 * limit as f64,
        "a 4 MiB file re-read for seconds should be served from cache, got {bw:.0} B/s"
    );
    assert!(
        codes.iter().any(|c| c == "cache_answered"),
        "missing cache_answered warning: {codes:?}"
    );
    assert_cleaned_up(&fs);
}

// ---------------------------------------------------------------------------
// tmpfs: memory speed, not device speed
// ---------------------------------------------------------------------------

pub(crate) fn tmpfs_directory_target_warns_no_block_device() {
    need_root!();
    let t = Tmpfs::new(128 * MIB);
    let args = s(&[
        "job",
        &t.dir().to_string_lossy(),
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "1",
        "--size",
        "16MiB",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--duration",
        "1s",
        "--json",
        "-",
    ]);
    let doc = iolab(None, &args);
    let job = only_job(&doc);
    let codes = warning_codes(job);
    note!(
        "  read iops {:.0}; warnings {codes:?}; device {}",
        num(job, "read.iops"),
        get(job, "device")
    );
    assert!(
        codes.iter().any(|c| c == "no_block_device"),
        "tmpfs target must warn no_block_device: {codes:?}"
    );
    let left = t.entries();
    assert!(left.is_empty(), "iolab left files in the tmpfs directory: {left:?}");
}
