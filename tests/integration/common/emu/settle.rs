//! Timing against the blkio throttle: [`Cgroup::settle`] puts a group's throttle in a
//! known state, and [`Cgroup::read_burst`] measures what that state lets through at once.
//!
//! How the throttle hands out bytes (block/blk-throttle.c, kernel 6.18; seen by tracing
//! `block:block_bio_queue` while `cat` and `dd` read a 20 MiB/s loop device):
//!
//! * Reads are granted per slice of 100 ms: t into a slice a group may have had
//!   `limit × t` rounded **up** to the slice's end. A fresh slice lets one slice's worth
//!   (q = limit × 100 ms, 2 MiB at 20 MiB/s) through at once (`cat` sent 8 × 256 KiB
//!   bios in its first millisecond), and every further q when its slice begins. From a
//!   fresh slice, N bytes take between (N − q) / limit (N a whole number of slices) and
//!   N / limit (a few bytes more): a cold `cat` of 40 MiB took 1.92 s, and 2.01 s when it
//!   also read a 1 KiB inode block evicted by the drop of the caches.
//! * A slice outlives the group's last I/O by 100–200 ms (its end is rounded up to the
//!   100 ms jiffies grid), and writing a limit starts one. A reader that comes while a
//!   slice is alive inherits it and whatever the group left unused while idle: from
//!   nothing to two slices' worth at once, the next 0–100 ms later. N bytes then take
//!   anywhere from N / limit − 0.3 s to N / limit, depending on the group's last 200 ms.
//!   The runs of `iolab time --cold` start 60–120 ms after the previous one ends (iolab
//!   drops the caches in between), and a test's first run came within 100 ms of its
//!   limit being written: cold `cat`s of 40 MiB took 1.86–1.99 s.
//!
//! After [`SETTLE`] without I/O in the group there is no slice left, and the next reader
//! starts a fresh one: it then takes from (N − q) / limit to N / limit, plus its own
//! start-up, and [`Cgroup::read_burst`] measures q on the device and group at hand.

use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::thread;
use std::time::{Duration, Instant};

use super::blockdev::{BlockDev, write_sysfs};
use super::cgroup::Cgroup;
use super::{KIB, MIB};

/// The throttle's slice (`DFL_THROTL_SLICE`, HZ/10; older kernels used 20 ms on
/// non-rotational queues, which only makes the burst smaller).
pub const THROTTLE_SLICE: Duration = Duration::from_millis(100);

/// Idle time after which a group has no slice left: a slice ends at most two slices after
/// the group's last dispatch (or one after a limit was written); one more for the timer.
pub const SETTLE: Duration = Duration::from_millis(300);

/// Reads of the probe: O_DIRECT, so each is one bio the throttle sees as it is issued;
/// small enough to measure q finely, few enough (16 for 2 MiB) to be read well within
/// the first slice even on a busy machine.
const PROBE_BIO: u64 = 128 * KIB;

/// What a settled group's throttle lets through at once: one slice's worth, q.
#[derive(Clone, Copy, Debug)]
pub struct Burst {
    /// Bytes read within the first slice.
    pub bytes: u64,
    /// The longest a read of the probe waited (for the next slice: up to 100 ms).
    pub waited: Duration,
    /// The group's read limit on the device, bytes/s.
    pub limit: u64,
}

impl Burst {
    /// Seconds a cold sequential read of `size` bytes takes from a settled group, not
    /// counting the reader's start-up: from `(size − q) / limit` (size a whole number of
    /// slices) to `size / limit` (a few bytes more).
    pub fn secs_range(&self, size: u64) -> (f64, f64) {
        let limit = self.limit as f64;
        ((size as f64 - self.bytes as f64) / limit, size as f64 / limit)
    }
}

impl std::fmt::Display for Burst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:.2} MiB at once, then a read waited {:.0} ms (a slice at {:.1} MiB/s is {:.2} MiB)",
            self.bytes as f64 / MIB as f64,
            self.waited.as_secs_f64() * 1e3,
            self.limit as f64 / MIB as f64,
            self.limit as f64 * THROTTLE_SLICE.as_secs_f64() / MIB as f64
        )
    }
}

impl Cgroup {
    /// Wait until the throttle has no slice left for this group (nothing in the group may
    /// do I/O meanwhile): the next reader starts a fresh one.
    pub fn settle(&self) {
        thread::sleep(SETTLE);
    }

    /// A shell command that settles, for `iolab time --prepare` (iolab runs it before it
    /// drops the caches, untimed): every run then starts on a fresh slice.
    pub fn settle_command() -> String {
        format!("sleep {:.3}", SETTLE.as_secs_f64())
    }

    /// [`SETTLE`] as an iolab duration, for `--interval` (the pause before each job and
    /// each run after the first): each of those then starts on a fresh slice.
    pub fn settle_interval() -> String {
        format!("{}ms", SETTLE.as_millis())
    }

    /// The group's read limit (`blkio.throttle.read_bps_device`) on `dev`.
    pub fn read_bps(&self, dev: &dyn BlockDev) -> u64 {
        let file = self.path().join("blkio.throttle.read_bps_device");
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let key = dev.majmin();
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no read limit for {key} in {}: {text:?}", file.display()))
    }

    /// Measure, in this group, what its throttle lets through at once when settled:
    /// settle, then read `dev` from its start in 128 KiB O_DIRECT reads (no page cache;
    /// a mounted filesystem on it is not disturbed) from a thread that joins the group,
    /// for a slice and a half, and count what was read within the first slice: the next
    /// slice's bytes come no earlier than its start, 100 ms in. Settles again before it
    /// returns.
    ///
    /// Panics unless every byte went through the throttle and the burst is more than
    /// nothing and at most one slice's worth: anything else means the group was not
    /// settled, and a test would expect the wrong time.
    pub fn read_burst(&self, dev: &dyn BlockDev) -> Burst {
        let limit = self.read_bps(dev);
        let slice = (limit as f64 * THROTTLE_SLICE.as_secs_f64()) as u64;
        // Stop after two slices' worth and a bio even if the throttle holds nothing back.
        let most = 2 * slice + PROBE_BIO;
        let before = self.io_count(dev).read_bytes;
        self.settle();
        let tasks = self.path().join("tasks");
        let path = dev.dev_path().to_path_buf();
        let (bytes, waited, read) = thread::scope(|s| {
            s.spawn(|| {
                // cgroup v1 moves just this thread; it leaves the group when it exits.
                // SAFETY: gettid has no preconditions.
                let tid = unsafe { libc::gettid() };
                write_sysfs(&tasks, &tid.to_string()).unwrap_or_else(|e| panic!("join {}: {e}", tasks.display()));
                let f = OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_DIRECT)
                    .open(&path)
                    .unwrap_or_else(|e| panic!("open {} O_DIRECT: {e}", path.display()));
                let mut raw = vec![0u8; (PROBE_BIO + 4096) as usize];
                let at = raw.as_ptr().align_offset(4096);
                let buf = &mut raw[at..at + PROBE_BIO as usize];
                // The slice starts with the first read (at most a jiffy, 4 ms, before
                // `t0`); the first read that waits for the next one ends after 100 ms.
                let first = THROTTLE_SLICE * 9 / 10;
                let (mut read, mut in_first, mut waited) = (0u64, 0u64, Duration::ZERO);
                let t0 = Instant::now();
                while read < most && t0.elapsed() < THROTTLE_SLICE * 3 / 2 {
                    let t = Instant::now();
                    let n = f.read_at(buf, read).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
                    assert_eq!(n as u64, PROBE_BIO, "short read of {}", path.display());
                    read += n as u64;
                    waited = waited.max(t.elapsed());
                    if t0.elapsed() < first {
                        in_first = read;
                    }
                }
                (in_first, waited, read)
            })
            .join()
            .expect("the probe thread panicked")
        });
        let through = self.io_count(dev).read_bytes - before;
        self.settle();
        let burst = Burst { bytes, waited, limit };
        assert!(
            through >= read,
            "only {through} of the probe's {read} bytes went through the throttle of {}",
            self.name()
        );
        assert!(
            bytes > 0 && bytes <= slice + PROBE_BIO,
            "a settled throttle gave {burst}: a fresh slice gives at most one slice's worth"
        );
        burst
    }
}
