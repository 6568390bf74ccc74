//! Every threshold iolab judges by, each defined once, with what it means
//! and why it has its value. The detectors, the messages that state a
//! threshold and the help texts all read them from here.
//!
//! Most limits sit just above the run-to-run noise of the devices iolab is
//! tested on: emulated throttled devices and real disks both show ±5–10%
//! between runs, so a rule does not flip with the noise.

// ------------------------------------------------------------ job warnings

/// `high_cv`: a coefficient of variation of bandwidth across runs above
/// this fraction makes the job's median noisy. Repeated runs of the same
/// job on a quiet device stay within ±5–10%; more spread than that means
/// something else moved the figure (background I/O, a cache, thermal
/// throttling), and the median of a few runs is not a stable value.
/// Exclusive: exactly 10% is not flagged.
pub const HIGH_CV: f64 = 0.10;

/// `cache_answered` / `device_extra`: the device cross-check accepts this
/// relative difference between the bytes the device saw and the bytes the
/// job moved. Read-ahead, metadata and journaling add a few percent, and
/// diskstats and the job's counters are read a moment apart; beyond 10% the
/// device did not do the job's I/O (a cache answered, fewer bytes) or did
/// other work besides (more bytes). Exclusive at both ends.
pub const DEVICE_TOLERANCE: f64 = 0.10;

/// `at_throttle`: a job's figure at or above this fraction of a cgroup
/// throttle's limit on a device under the target (bytes or I/Os per
/// second, in the job's direction) was set by the throttle, not the
/// device. The kernel's throttle delivers its limit within a few percent
/// once its dispatch has settled (iolab's ground truth holds ±3%), and
/// the runs' spread on a quiet device is within [`HIGH_CV`]; a device
/// slower than the limit lands clearly below it. Inclusive.
pub const THROTTLE_AT_LIMIT: f64 = 0.90;

/// `device_extra`: the device must also have moved more than this many
/// bytes beyond the job's before extra I/O is reported, so a tiny job on a
/// device with a few metadata writes is not flagged for a relative excess
/// of a handful of blocks.
pub const DEVICE_EXTRA_MIN_BYTES: u64 = 1 << 20;

/// `other_device`: a device outside the target's (or the named) devices
/// must have moved more than this many bytes before iolab says the I/O
/// went there. A quiet system disk writes a few hundred kilobytes of logs
/// and journal in a few seconds; a mebibyte is above that and far below
/// any workload worth timing. Exclusive.
pub const OTHER_DEVICE_MIN_BYTES: u64 = 1 << 20;

/// `cpu_bound` and the scale verdicts: the CPU counts as saturated from
/// this busy fraction of the CPUs the work could use (for a job: as many
/// as it has worker threads, at most the machine's). Accounting of
/// interrupts, io_uring workers and sampling intervals is never exact, and
/// a CPU that is 90% busy has no headroom left for more I/O. Inclusive.
pub const CPU_SATURATED: f64 = 0.90;

/// `uneven_threads`: the gap between the first and the last worker thread
/// finishing may be at most this fraction of the last one's finishing time.
/// The figures divide by the last-done time, so a thread that finished
/// early left the device with less work for the rest of the run; while the
/// gap is at most a tenth of the run, that lowers the figure by less than
/// the run-to-run noise. Exclusive: exactly 10% is not flagged.
pub const UNEVEN_THREADS: f64 = 0.10;

/// `device_depth_short`: a job's device that had, on average, fewer than
/// this fraction of the I/Os the job asked to keep in flight (QD ×
/// threads) did not get the depth asked for: the figure is the pace of
/// iolab's loop, not the device's at that depth. The time a completion
/// waits to be reaped and refilled, the ramp at a run's start and the
/// drain at its end cost a few I/Os of the depth; half of it is a gap no
/// such cost explains, and one that matters: a device whose rate grows
/// with depth then delivers as little as half of what was asked of it.
/// (Measured before issue 38's engine fix, on a direct-I/O loop device
/// over the virtio disk: io_uring at QD32 kept 12–27 in flight, at QD8
/// 3.8–5.8.) Exclusive.
pub const DEPTH_SHORT: f64 = 0.5;

/// `device_depth_short`: the device's requests must number at least this
/// fraction of the job's I/Os before its depth is judged. Fewer means the
/// block layer merged the job's I/Os into larger requests (sequential I/O
/// is merged while it waits in a plugged queue) or something else answered
/// some of them: either way fewer requests stand for the same I/Os, and a
/// count of requests in flight says nothing of how deep the job queued.
/// Within [`DEVICE_TOLERANCE`] of the job's, as the device cross-check
/// accepts them. Inclusive.
pub const DEPTH_UNMERGED: f64 = 1.0 - DEVICE_TOLERANCE;

// ------------------------------------------------------------ flush too fast

/// `flush_too_fast`: the fastest read of the same target in the same run,
/// times this factor, is taken as the most the device can store per
/// second. Reads are an upper bound on the sustained write rate of nearly
/// every device (flash reads a page far faster than it programs one, an
/// SLC cache is read as fast as it is written, a disk reads and writes a
/// track alike), but they are measured, not known: runs of a quiet device
/// spread by up to [`HIGH_CV`], and a disk or an SSD writes sequentially
/// within 10% of what it reads. 25% above the fastest read run covers both,
/// so an honest device that stores as fast as it reads is never taken for
/// one whose cache answered.
pub const FLUSH_BOUND_SLACK: f64 = 1.25;

/// `flush_too_fast`: the flush must have had at least this long to do
/// (the bytes written beyond what the device could store by the time the
/// flush began, at the bound above) before its own time is judged. Below
/// it a flush's time is scheduling and timer noise (a busy machine delays
/// a syscall's return by milliseconds) and a job too short to tell.
/// Inclusive.
pub const FLUSH_NEEDED_MIN_NS: u64 = 100_000_000;

/// `flush_too_fast`: a flush that took less than this fraction of the time
/// it needed did not store what it acknowledged. An honest flush takes at
/// least the whole of it (the bound is an upper bound on the store rate),
/// so half leaves the other half for error in the bound, and a lying flush
/// (a fraction of a millisecond: the virtual disk, zfs-fuse) is
/// far below it. Exclusive.
pub const FLUSH_TOO_FAST_FRACTION: f64 = 0.5;

/// `flush_too_fast` in a run that only wrote (a plain write job): the
/// bound needs a read of the same target, so iolab reads it for this long
/// after the last job (sequential 1 MiB, 8 in flight, O_DIRECT, over what
/// the jobs wrote), and the figure serves as the bound only. Two seconds
/// pass the read-ahead and a queue's ramp, and cost little beside the jobs.
pub const FLUSH_REFERENCE_READ: std::time::Duration = std::time::Duration::from_secs(2);

// ------------------------------------------------------------------- ZFS

/// A read job on ZFS is measured "past the caches" when its span is at
/// least this many times the bytes the caches that survive between its
/// reads can hold (the ARC's maximum, plus any other cache that is neither
/// emptied nor bounded: see `judge::zfs`). With a span S and caches of A
/// bytes, at most about A/S of random reads can hit: the caches hold at
/// most A of the S bytes the reads land on uniformly; a sequential pass
/// over more than the caches finds what it reads again evicted. At
/// 1/[`DEVICE_TOLERANCE`] (10×) the caches answer at most the share of
/// the bytes the device cross-check already tolerates, so a figure that
/// passes the cross-check is the disks'. Inclusive.
pub const ZFS_SPAN_PAST_CACHE: f64 = 1.0 / DEVICE_TOLERANCE;

/// `zfs_write_amplification`: the bytes a pool's member disks wrote per
/// byte the job wrote may differ from the layout's model (`judge::zfs`,
/// data and parity only) by this fraction before iolab says so. ZFS also
/// writes metadata: a 128-byte block pointer per record in indirect blocks
/// kept in two copies (0.2% at 128K records), and per transaction group
/// (every 5 s) the MOS, space maps and the uberblocks of four labels per
/// disk, a few hundred KiB against the 100 MB a disk of 20 MB/s writes in
/// that time; diskstats and the job's counters are also read a moment
/// apart. That is a few percent; 10% covers it, and stays under a third of
/// the smallest difference the check must tell apart: a 3-way mirror that
/// wrote on two members (2/3 of the model: −33%), RAID-Z1 of 3's parity
/// against none (1.5× against 1.0×). Exclusive at both ends.
pub const ZFS_WRITE_MODEL_TOLERANCE: f64 = 0.10;

/// `zfs_member_uneven`: a member of a ZFS vdev that moved less than this
/// fraction of the bytes its busiest peer in the same vdev moved (or
/// nothing) is named. Within a mirror every child writes every block, so
/// their writes match but for a transaction group in flight at the run's
/// edges; RAID-Z spreads each record's data and parity columns over all
/// its members, starting at a column that moves with the block's offset;
/// and a mirror read with more than one I/O in flight is spread over the
/// children (zfs-fuse, measured here on a 3-way mirror at QD4: shares
/// 0.32/0.36/0.32, the least 0.89 of the most). Half is far below all of
/// those, and far above a member that does nothing (offlined in a 3-way
/// mirror, measured: it wrote 0 of a write job's bytes, its peers half
/// each; `tests/integration/truth/zfs.rs`). A member far slower than its
/// peers moves the same bytes on zfs-fuse (one of three at 2 MiB/s, the
/// others at 20: writes 0.334/0.334/0.333, reads at QD4 0.36/0.34/0.30
/// and at QD1 0.32/0.37/0.31, the pool at its pace): bytes do not show it,
/// and this share does not judge it. Exclusive.
pub const ZFS_MEMBER_MIN_SHARE: f64 = 0.5;

/// `zfs_member_uneven` judges a vdev only when its busiest member moved at
/// least this many bytes in the direction: with less, a few records (128
/// KiB each by default) and a transaction group's metadata make the split
/// uneven by chance.
pub const ZFS_MEMBER_MIN_BYTES: u64 = 8 << 20;

/// `zfs_recordsize_mismatch`: a job on a ZFS dataset is flagged when the
/// dataset's recordsize is at least this many times the job's block size
/// and its I/O lands on whole records it does not fill (random reads and
/// writes; reads of any kind when `primarycache` keeps no data: the model
/// is `judge::zfs::record_amplification`'s). The disks then move up to
/// recordsize/bs times the job's bytes. Recordsizes and block sizes are
/// powers of two, so the nearest mismatch is 2×: a record one step above
/// the application's I/O is a common deliberate choice (fewer block
/// pointers, a better compression ratio), and at 2× a disk bound by its
/// seeks (8 ms against 1 ms to move 128 KiB) hides most of it. From 4× a
/// disk bound by bandwidth (an SSD, a USB bridge, a throttle) delivers at
/// most a quarter of the job's bytes it would with matching records, far
/// outside any noise, and the 4 KiB and 8 KiB I/O of databases and virtual
/// disks on the default 128 KiB records (32×, 16×) are well past it.
/// Inclusive: a record of exactly 4 × bs is flagged.
pub const ZFS_RECORD_MISMATCH: u64 = 4;

// ------------------------------------------------------------ steady state

/// The number of rounds the steady-state rules are applied to (the SNIA
/// PTS "measurement window"): five rounds is the PTS choice, enough for a
/// least-squares slope to mean something, few enough to reach in a run.
pub const DEFAULT_WINDOW: usize = 5;

/// Data-excursion rule: the window's largest minus smallest result may be
/// at most this percentage of the window's mean (the SNIA PTS value: it
/// bounds the round-to-round scatter). Inclusive.
pub const MAX_RANGE_PCT: f64 = 20.0;

/// Slope-excursion rule: the least-squares line through the window may
/// change by at most this percentage of the window's mean from its first
/// round to its last (the SNIA PTS value: it catches a device still
/// drifting by a few percent per round). Inclusive.
pub const MAX_SLOPE_EXCURSION_PCT: f64 = 10.0;

// ------------------------------------------------------ settling (runs auto)

/// `--runs auto`: a test's windows have settled when their coefficient of
/// variation is at most this. 3% is a third of [`HIGH_CV`]: well inside the
/// ±5–10% that separate runs of a quiet device, so a settled median does not
/// move by more than the figures' own rounding when the test runs on.
/// Inclusive.
pub const SETTLE_CV: f64 = 0.03;

/// `--runs auto`: ... or when the 95% interval of their median reaches at
/// most this fraction of the median on either side (see
/// [`crate::judge::settle`]): a figure known to ±2% is known better than
/// the device repeats itself from day to day. Inclusive.
pub const SETTLE_HALF_WIDTH: f64 = 0.02;

/// The confidence of that interval: the usual 95%.
pub const SETTLE_CONFIDENCE: f64 = 0.95;

/// `--runs auto`: fewest windows a test runs. Three is the fewest with a
/// median that one odd window cannot move, and a spread worth stating.
pub const SETTLE_MIN_WINDOWS: u32 = 3;

/// `--runs auto`: most windows a test runs unless `auto:MAX` says
/// otherwise. Ten windows of 2 s bound a test that never settles to 20 s
/// (four times its usual length); from 9 windows on the median's interval
/// drops the extremes, so one bad window no longer keeps a test from
/// settling.
pub const SETTLE_MAX_WINDOWS: u32 = 10;

// -------------------------------------------------------------- write cliff

/// Fewest seconds on each side of a cliff: a median of fewer is just a
/// sample or two, and a "cliff" in the last second or two of a run cannot
/// be told apart from a dip.
pub const MIN_SIDE: usize = 3;

/// The median after the cliff may be at most this fraction of the median
/// before it (i.e. throughput drops by at least 30%). Smaller changes are
/// within what run-to-run variation and background work produce. Inclusive.
pub const MAX_AFTER_RATIO: f64 = 0.70;

/// At least this fraction of the seconds after the cliff must lie below the
/// midpoint between the two medians: throughput must *stay* down, not
/// merely have a low median because the timeline after the split is noisy.
pub const MIN_SETTLED_FRACTION: f64 = 0.80;

// ----------------------------------------------------------- timed commands

/// `outliers`: a modified z-score (Iglewicz and Hoaglin) above this marks a
/// run as an outlier. 3.5 is their recommended cut-off; the score uses the
/// median absolute deviation, so it is robust to the outlier itself,
/// unlike a z-score on the mean. Exclusive.
pub const OUTLIER_Z: f64 = 3.5;

/// `outliers`: fewest runs to look for outliers in. With fewer the median
/// absolute deviation is too coarse to call anything an outlier (of 3
/// runs, one always looks like one).
pub const MIN_FOR_OUTLIERS: usize = 5;

/// `first_run_slower`: the first run is "slower" when it took more than
/// this many times the median of the others. Caches it filled served the
/// rest (a page cache, a drive's cache), so the runs do not measure the
/// same thing; 1.5× is far outside the few percent timed runs vary by.
/// Exclusive.
pub const FIRST_RUN_SLOWER: f64 = 1.5;

// -------------------------------------------------------------------- scan

/// `scan_curve`: an outer-to-inner change (the first tenth of the zones
/// against the last) of at least this percentage gets a note: the job's
/// median then hides a real difference (a hard disk's inner zones are
/// 30–45% slower), while smaller changes are within run-to-run noise.
/// Inclusive.
pub const CURVE_NOTE_PCT: f64 = 10.0;

// ---------------------------------------------------------------- compare

/// A difference is within the noise when the ratio's bootstrap interval at
/// this two-sided confidence contains 1.0: the usual 95%, so about one
/// comparison in twenty of two identical devices is called a difference.
pub const NOISE_CONFIDENCE: f64 = 0.95;

/// Fewest measured runs on each side for the noise to be known: one run
/// has no spread to resample, so below this "within noise" is unknown.
pub const MIN_RUNS_FOR_NOISE: usize = 2;

/// `cpu_cost`: a median CPU-per-MB/s ratio at least this far from 1 (this
/// many times, or its inverse) is reported. CPU per MB/s is the ratio of
/// two figures that each carry ±5–10% of run-to-run noise, so the same
/// build on the same device can differ by up to about 20%; a quarter more
/// is beyond that. Inclusive.
pub const CPU_NOTABLE: f64 = 1.25;

// ------------------------------------------------------------------ cache

/// `cache_candidate`: one device is worth putting in front of another as a
/// cache (L2ARC, bcache, a ZFS SLOG) when, at the access a cache serves
/// (4K, queue depth 1), it gives at least this many times the other's IOPS
/// outside the noise, with a lower p99 latency. Caching costs a device and
/// its own management; less than twice the speed rarely pays for that.
pub const CACHE_MIN_GAIN: f64 = 2.0;

// ------------------------------------------------------------------ scale

/// Smallest gain (best throughput ÷ throughput at the smallest depth or
/// thread count) that counts as "more helps". Both figures carry ±5–10% of
/// run-to-run noise, so two measurements of the same rate can differ by
/// about 10%; 15% is beyond that. The same value places the knee (see
/// [`SweepVerdict::knee_x`](crate::judge::scale::SweepVerdict::knee_x)), so "does
/// not help" is exactly "the knee is at the first point".
pub const MIN_GAIN: f64 = 1.15;

/// A figure at most this fraction of a reference is "clearly lower": the
/// mirror image of [`MIN_GAIN`]. Used for "more depth hurts" (the last
/// point against the first) and for a fall after the best point.
pub const FALL_RATIO: f64 = 0.85;

/// Several targets "scale" when together they deliver at least this
/// fraction of the sum of their solo rates. The ground truth (independent
/// throttled devices) lands within ±5% of the sum; 85% leaves room for
/// that noise on each solo figure and on the aggregate, and for the small
/// real cost of running several jobs at once (shared interrupts, memory).
pub const SCALES_MIN_EFFICIENCY: f64 = 0.85;

/// An aggregate at most this many times the mean solo rate is "no better
/// than one device" (seed `004`: a USB bridge passing one command at a
/// time). Only the wording depends on it; the kind is
/// [`TogetherKind::SharedPath`](crate::judge::scale::TogetherKind::SharedPath)
/// either way.
pub const ONE_DEVICE_MAX: f64 = 1.25;

/// In a run together, a target that keeps at least this fraction of its
/// solo rate was not slowed (same reasoning as [`SCALES_MIN_EFFICIENCY`]).
pub const KEPT_MIN: f64 = 0.85;

/// A layout is "as expected" when its multiple of one member lies within
/// this fraction below the expected low and above the expected high. The
/// two figures compared each carry ±5–10% of noise, and a real layout pays
/// for checksums, metadata and chunk allocation; 15% covers both without
/// accepting a stripe that delivers one member's rate less than 2× (a
/// raid0 of two members must reach 1.7×).
pub const LAYOUT_TOLERANCE: f64 = 0.15;

/// `layout_host_limit` against `layout_shared_path`: a layout that falls
/// short of its multiple is judged by its members' pace while busy, the
/// layout's rate ÷ (members × their mean busy fraction), in units of one
/// disk's rate. A member that works on its own serves at about one disk's
/// pace while it has I/O in flight (1, less the noise of io_ticks' 1 ms
/// grain); members that share a path wait on it with I/O in flight, so
/// they are busy and slow (n members behind one path, each busy all the
/// time: 1/n; measured 0.34 for three btrfs members and 0.65 for three
/// zfs-fuse members, which keep fewer requests queued). At or above this
/// pace the members served as fast as one disk whenever they had work,
/// and were idle the rest of the time: the host (its CPU, the filesystem's
/// own I/O path, too few requests in flight) set the pace. Inclusive.
/// On emulated disks whose throttle sits at the member itself, a request
/// waiting in the throttle does not count as busy; only a path below the
/// members (their backing) shows as busy there, as a real shared bus does.
pub const MEMBER_PACE: f64 = 0.75;

// ------------------------------------------------------------------ hosts

/// `outlier_host`: a host is off the group on a test when its figure
/// differs from the median host's by at least this percentage (of the
/// median host's). Identical servers running the same plan differ by a
/// few percent (firmware, placement, thermal state), and each figure
/// carries the ±5–10% run-to-run noise of its device, so two measurements
/// of one rate can be about 10% apart; 15% is beyond both, the same margin
/// as [`MIN_GAIN`] and [`LAYOUT_TOLERANCE`]. Below it the hosts agree
/// (`hosts_agree`); at or above it a host is named only when it also lies
/// outside the others' noise (see `judge::hosts`). Inclusive.
pub const OUTLIER_MIN_PCT: f64 = 15.0;

// --------------------------------------------------------- verify, capacity

/// `iolab verify`: the smallest period called a wrap. Blocks misplaced by
/// multiples of one distance mean the device ignores address bits or maps
/// addresses modulo its real size; real counterfeit devices wrap at their
/// flash size (gigabytes), and flash is allocated in erase blocks of
/// 128 KiB and more, while a controller misdirecting a few writes puts
/// them a block or a few away. A period below 1 MiB is misdirection
/// (corruption), not a smaller device. Inclusive.
pub const WRAP_MIN_PERIOD: u64 = 1 << 20;

/// `iolab verify`: the least a fake-capacity pattern must cover — the bytes
/// misplaced by a wrap, or the bad bytes of a lost tail — before
/// the device is called fake. A counterfeit lacks gigabytes; a tail of a
/// few lost blocks is a write that did not land (a missing flush, a torn
/// last write), which [`LostWrites`](crate::verify::Verdict::LostWrites)
/// names better. Inclusive.
pub const FAKE_MIN_BYTES: u64 = 1 << 20;

/// `iolab flush`: the acknowledged generations a verdict needs, in cycles
/// (a cycle writes every extent of the plan once). After one cycle an
/// acknowledged write that is lost reads back as blank or another run's
/// data; after two, as an older generation of this run too, which says how
/// far back the device lost what it acknowledged. The progress line says
/// when this many are acknowledged: a power cut before is still judged,
/// on fewer blocks.
pub const FLUSH_VERDICT_CYCLES: u64 = 2;

/// `iolab verify`: the share of the bad bytes a wrap must explain (as
/// misplaced blocks) to be the verdict. A fake's address map is exact, so
/// on a fake nearly every bad block is misplaced; when more than half of
/// the damage is something else, the device is broken in another way
/// first, and that verdict is the one to read. Inclusive.
pub const FAKE_MIN_SHARE: f64 = 0.5;

/// `iolab verify`: a lost tail — the device keeps data up to an offset and
/// not beyond — needs at least this share of the bytes from the first bad
/// block to the end to be bad. A fake keeps nothing there, but one that
/// funnels every write beyond its size onto a few blocks leaves those few
/// reading back good (each holds the last block written to it), so "all"
/// would miss it; a genuine device with failing blocks has them scattered,
/// far below this share of everything after the first. Inclusive.
pub const FAKE_TAIL_SHARE: f64 = 0.99;

/// `iolab capacity`: the alignment of the safe partition size on a fake.
/// The real size is rounded down to a multiple of this, and one unit is
/// kept for the partition table: fdisk, parted and Windows start the first
/// partition at 1 MiB and size partitions in whole MiB, so a partition of
/// the safe size starting there ends at or below the real size. (No
/// threshold decides "unstable": a block that reads back differently twice
/// with nothing written in between is never noise.)
pub const PARTITION_ALIGN: u64 = 1 << 20;

// ------------------------------------------------------- faults during a run

/// A target that completes no I/O for this long (and whose block devices
/// complete none either) has stopped answering: a hung device, a dead
/// network filesystem, a stopped FUSE daemon. The run stops with an error
/// instead of waiting for ever. A healthy device completes an I/O in
/// milliseconds, a busy disk or a saturated USB bridge in well under a
/// second; Linux itself gives a SCSI or NVMe command 30 s before it starts
/// error recovery, so a device silent for that long is already being
/// treated as failed by the kernel. Inclusive. Tests shorten it with the
/// test knob `IOLAB_TEST_STALL_TIMEOUT` (a duration; see [`crate::io::stall`]).
pub const STALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

// ------------------------------------------------- SD and application classes

/// The SD Association's MB: 10^6 bytes, as its class bars are written.
pub const SD_MB: f64 = 1e6;

/// One class bar: the class's name, and what it asks of the card. `None`:
/// the class sets no bar on that figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassBar {
    pub name: &'static str,
    /// Sustained sequential write, bytes per second.
    pub seq_write: Option<f64>,
    /// 4 KiB random reads per second.
    pub rand_read_iops: Option<f64>,
    /// 4 KiB random writes per second.
    pub rand_write_iops: Option<f64>,
}

const fn write_bar(name: &'static str, mb_s: f64) -> ClassBar {
    ClassBar {
        name,
        seq_write: Some(mb_s * SD_MB),
        rand_read_iops: None,
        rand_write_iops: None,
    }
}

const fn app_bar(name: &'static str, read_iops: f64, write_iops: f64) -> ClassBar {
    ClassBar {
        name,
        seq_write: Some(10.0 * SD_MB),
        rand_read_iops: Some(read_iops),
        rand_write_iops: Some(write_iops),
    }
}

/// Speed Class: the minimum sequential write the logo promises (2, 4, 6, 10 MB/s).
pub const SPEED_CLASSES: [ClassBar; 4] = [
    write_bar("C2", 2.0),
    write_bar("C4", 4.0),
    write_bar("C6", 6.0),
    write_bar("C10", 10.0),
];
/// UHS Speed Class: U1 10 MB/s, U3 30 MB/s of sequential write.
pub const UHS_CLASSES: [ClassBar; 2] = [write_bar("U1", 10.0), write_bar("U3", 30.0)];
/// Video Speed Class: that many MB/s of sustained sequential write.
pub const VIDEO_CLASSES: [ClassBar; 5] = [
    write_bar("V6", 6.0),
    write_bar("V10", 10.0),
    write_bar("V30", 30.0),
    write_bar("V60", 60.0),
    write_bar("V90", 90.0),
];
/// Application Performance Class: 4 KiB random read and write IOPS, and
/// 10 MB/s of sustained sequential write. A1 at queue depth 1; A2 is meant
/// with the host's command queueing (and the card's cache) in use.
pub const APP_CLASSES: [ClassBar; 2] = [app_bar("A1", 1500.0, 500.0), app_bar("A2", 4000.0, 2000.0)];

/// `--suite sdcard`: the sequential tests cover at most this many bytes...
pub const SDCARD_REGION_MAX: u64 = 2 << 30;
/// ...or this share of the device, whichever is smaller (`--full`: all of
/// it). Enough to pass any card's write cache of a few hundred MB several
/// times over, short enough to finish on a 10 MB/s card in minutes.
pub const SDCARD_REGION_SHARE: f64 = 0.10;

// ------------------------------------------- verify: the speed across the device

/// `iolab verify`: fewest regions on each side of a speed drop. One region
/// is 1% of the device: a single slow region at the end (a stall, a
/// garbage-collection pause) cannot show that the speed stays down, and a
/// single fast region at the start is as likely a warm-up as a cache.
pub const CURVE_MIN_SIDE: usize = 2;

/// The median rate after a speed drop may be at most this fraction of the
/// median before it (the speed halves at least). A write cache that fills
/// up (SLC in front of TLC or QLC, a DRAM buffer) costs a factor of 3 to
/// 10; noise from region to region on a healthy device is within ±15%,
/// and a disk's outer-to-inner slope is at most about 2:1 spread over the
/// whole range (which [`CURVE_STEP_WINDOW`] rejects anyway). Inclusive.
pub const CURVE_MAX_AFTER_RATIO: f64 = 0.50;

/// At least this fraction of the regions after the drop must be below the
/// midpoint of the two medians, and of those before it above: the speed
/// must *stay* down, not merely have a low median after a noisy split.
pub const CURVE_MIN_SETTLED_FRACTION: f64 = 0.80;

/// The share of the device (in regions of 1%: 5 regions) within which a
/// drop must happen: the median of the regions this close before the
/// point and that of those this close after it must differ by at least
/// [`CURVE_MIN_STEP_SHARE`] of the whole drop. A cache that fills up drops
/// the speed at once; a slope over the whole range (a disk's zones, a
/// device slowing as it fills) is no "point" to name.
pub const CURVE_STEP_WINDOW: f64 = 0.05;

/// See [`CURVE_STEP_WINDOW`]: the part of the drop that must happen within
/// the window around the point. Inclusive.
pub const CURVE_MIN_STEP_SHARE: f64 = 0.50;
