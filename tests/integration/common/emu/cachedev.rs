//! [`CacheDev`]: a block device with a volatile write cache over slow media — the ground
//! truth of `iolab flush` and of the too-fast-flush finding. A loop device over a FUSE
//! file served by `tests/integration/common/cachefs.py` (see its header for the model).
//!
//! * Writes land in a cache of [`CacheSpec::cache`] bytes at once (as fast as the server
//!   goes) while it has room; a write waits while it is full, as a real drive's do. The
//!   media stores cached 4 KiB blocks at [`CacheSpec::media_bps`] on a virtual clock, in
//!   write order ([`FlushMode::Honest`], [`FlushMode::Lie`]) or newest first
//!   ([`FlushMode::Reorder`]). Reads return the newest data (cache, then media).
//! * A flush (fdatasync or a FUA write on the loop device: the loop driver's flush
//!   reaches the server as a FUSE fsync) returns when the cache has stored every write
//!   before it (Honest: the drain time), or at once (Lie, Reorder), plus
//!   [`CacheSpec::flush_ms`] either way. `cache: 0` is write-through: each write is
//!   answered when the media has stored it, and a flush costs `flush_ms` only.
//! * [`CacheDev::power_cut`] drops what the cache holds, fails the writes and flushes in
//!   flight, and says which blocks lost their newest write; afterwards the device serves
//!   the media and takes writes as before. [`CacheDev::power_cut_with`] runs a closure
//!   (killing the writer) at the cut's instant: from the freeze until the cut nothing is
//!   answered or stored, so the cut and the kill are one instant, as pulling a plug is.
//!   The power then stays off (writes fail) until the loop device has no write in
//!   flight: what the dead writer had queued in the block layer is lost too, never
//!   stored after the cut.
//!
//! The loop device's requests are capped at [`MAX_REQUEST_KB`], so each is one FUSE
//! request: a write failed by a cut fails whole (never a short write the loop driver
//! would report as success). The server is controlled through a file `control` beside
//! the disk file (one command per open, a JSON answer).
//!
//! Cleanup as [`FaultDev`](super::faultdev::FaultDev)'s: Drop fails whatever still
//! waits, detaches the loop device (if still over our file), unmounts, reaps the server
//! and removes the mount directory; a killed test's server cleans up after it by itself
//! (it watches its parent), and [`sweep_stale_cachedevs`] removes what a killed test
//! and server left (run once per process before its first `CacheDev`).

use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::blockdev::{BlockDev, dev_numbers, write_sysfs};
use super::faultdev::{
    MAX_REQUEST_KB, detach_loop_if_backed_by, losetup_buffered, max_sectors_knob, remove_dir, sweep_stale_fuse_devs, unmount,
};
use super::mounts::is_mountpoint;
use super::names::unique_name;
use super::proc::retry;

const PYTHON: &str = "/usr/bin/python3";
/// The server script.
pub const CACHEFS_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/integration/common/cachefs.py");
/// The kind in the mount directory's unique name; the file is `<dir name>.img`.
const KIND: &str = "cachefs";
const SCRIPT_NAME: &str = "cachefs.py";
/// The control file beside the disk file (cachefs.py's `CONTROL`).
const CONTROL: &str = "control";
/// cachefs.py's exit status when fusepy cannot be imported.
const EXIT_NO_FUSEPY: i32 = 3;
const READY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the server may take to exit by itself once unmounted.
const EXIT_TIMEOUT: Duration = Duration::from_secs(3);
/// After a cut the power stays off until the loop device has had no write in flight
/// for this long (what the dead writer had queued has failed)...
const IDLE_FOR: Duration = Duration::from_millis(10);
/// ...or at most this long.
const POWER_OFF_MAX: Duration = Duration::from_secs(5);
/// The cache's granule: sizes are multiples of it, dropped blocks are its offsets.
pub const BLOCK: u64 = 4096;

/// What a flush does, and in which order the media stores cached writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushMode {
    /// A flush returns when every write before it is stored (it takes the drain time);
    /// the media stores in write order.
    Honest,
    /// A flush returns at once, whatever the cache holds; the media stores in write
    /// order (what it holds is always a prefix of what was written).
    Lie,
    /// A flush returns at once, and the media stores the newest cached write first, so
    /// across flushes an older acknowledged block stays cached (and is lost at a power
    /// cut) while newer ones are stored.
    Reorder,
}

impl FlushMode {
    fn name(self) -> &'static str {
        match self {
            FlushMode::Honest => "honest",
            FlushMode::Lie => "lie",
            FlushMode::Reorder => "reorder",
        }
    }
}

/// The emulated drive.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheSpec {
    /// The device's size in bytes (a multiple of 4096).
    pub size: u64,
    /// The volatile cache's size in bytes (a multiple of 4096; 0: write-through).
    pub cache: u64,
    /// The media's store rate in bytes per second (the cache drains at this rate).
    pub media_bps: f64,
    pub flush: FlushMode,
    /// Latency added to every flush, in ms (a known flush cost); default 0.
    pub flush_ms: f64,
    /// The media's read rate in bytes per second: reads of blocks the cache does not
    /// hold are paced at it, one request after another; default 0, reads not paced.
    pub read_bps: f64,
}

impl CacheSpec {
    pub fn new(size: u64, cache: u64, media_bps: f64, flush: FlushMode) -> CacheSpec {
        CacheSpec {
            size,
            cache,
            media_bps,
            flush,
            flush_ms: 0.0,
            read_bps: 0.0,
        }
    }

    /// The same drive, its media read at `bps` bytes per second (see [`CacheSpec::read_bps`]).
    pub fn reads_at(mut self, bps: f64) -> CacheSpec {
        self.read_bps = bps;
        self
    }

    /// Seconds the media takes to store `bytes`.
    pub fn media_secs(&self, bytes: u64) -> f64 {
        bytes as f64 / self.media_bps
    }

    fn check(&self) {
        assert!(
            self.size > 0 && self.size.is_multiple_of(BLOCK),
            "CacheSpec: size {} is not a positive multiple of 4 KiB",
            self.size
        );
        assert!(
            self.cache.is_multiple_of(BLOCK),
            "CacheSpec: cache {} is not a multiple of 4 KiB",
            self.cache
        );
        assert!(
            self.media_bps.is_finite() && self.media_bps > 0.0,
            "CacheSpec: media_bps {} is not a positive rate",
            self.media_bps
        );
        assert!(
            self.flush_ms.is_finite() && (0.0..=60_000.0).contains(&self.flush_ms),
            "CacheSpec: flush_ms {} is not 0 to 60000",
            self.flush_ms
        );
        assert!(
            self.read_bps.is_finite() && self.read_bps >= 0.0,
            "CacheSpec: read_bps {} is not a rate (0: not paced)",
            self.read_bps
        );
    }

    /// The JSON object cachefs.py takes (`name` is the disk file's name).
    fn to_json(&self, name: &str) -> String {
        serde_json::json!({
            "name": name,
            "size": self.size,
            "cache": self.cache,
            "media_bps": self.media_bps,
            "flush": self.flush.name(),
            "flush_ms": self.flush_ms,
            "read_bps": self.read_bps,
        })
        .to_string()
    }
}

/// What a power cut lost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct PowerCut {
    /// The 4 KiB blocks whose newest write (acknowledged or not) was lost: cached, or in
    /// flight at the cut (byte offsets, sorted). The media may hold an older version of
    /// a block (read the device to see what it holds now).
    pub dropped: Vec<u64>,
}

impl PowerCut {
    /// Did the block at byte offset `block` lose its newest write?
    pub fn lost(&self, block: u64) -> bool {
        self.dropped.binary_search(&block).is_ok()
    }
}

/// The server's counters (since it started).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct CacheStats {
    /// Bytes the media stored.
    pub stored_bytes: u64,
    /// Bytes of writes answered.
    pub accepted_bytes: u64,
    /// Writes answered (FUSE requests: up to 124 KiB each).
    pub writes: u64,
    /// Flushes seen (FUSE fsyncs of the disk file).
    pub flushes: u64,
    /// Flushes answered while writes from before them were still cached: the lies.
    pub flushes_with_data_cached: u64,
    /// The answered flushes' time in the server, from each one's arrival to its answer
    /// (ns): the emulator's share of what a writer times (the rest is the host's path
    /// through the loop device and FUSE).
    pub flush_ns: u64,
    /// Bytes cached now (not stored yet).
    pub cached_bytes: u64,
    /// Power cuts.
    pub cuts: u64,
    /// Blocks the power cuts dropped.
    pub dropped_blocks: u64,
    /// Frozen (inside [`CacheDev::power_cut_with`]).
    pub frozen: bool,
    /// Off: cut and not on again (inside [`CacheDev::power_cut_with`]).
    pub off: bool,
}

/// A block device with a volatile write cache (see the module doc).
pub struct CacheDev {
    spec: CacheSpec,
    dir: PathBuf,
    file: PathBuf,
    loop_dev: Option<PathBuf>,
    major: u32,
    minor: u32,
    child: Option<Child>,
}

static SWEEP: Once = Once::new();

impl CacheDev {
    /// Mount cachefs and attach a loop device over its file. Panics if the server cannot
    /// start (e.g. python3-fusepy is missing), the file does not appear within 15 s, or
    /// `losetup` fails; whatever was made is undone first.
    pub fn new(spec: CacheSpec) -> CacheDev {
        spec.check();
        SWEEP.call_once(|| {
            if rustix::process::geteuid().is_root() {
                sweep_stale_cachedevs();
            }
        });
        let dir = std::env::temp_dir().join(unique_name(KIND));
        fs::create_dir(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        let name = format!("{}.img", dir.file_name().expect("dir name").to_string_lossy());
        let mut dev = CacheDev {
            file: dir.join(&name),
            dir,
            loop_dev: None,
            major: 0,
            minor: 0,
            child: None,
            spec,
        };
        // From here on a panic drops `dev`, which undoes whatever was made.
        let mut child = Command::new(PYTHON)
            .arg(CACHEFS_SCRIPT)
            .arg(&dev.dir)
            .args(["--config", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {PYTHON} {CACHEFS_SCRIPT}: {e}"));
        let stdin = child.stdin.take();
        dev.child = Some(child);
        // An error here (the server died) shows in wait_ready with its exit status.
        let _ = stdin.expect("stdin pipe").write_all(dev.spec.to_json(&name).as_bytes());
        dev.wait_ready();
        dev.attach();
        dev
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                self.child = None;
                if status.code() == Some(EXIT_NO_FUSEPY) {
                    panic!("python3-fusepy is not installed (apt-get install python3-fusepy)");
                }
                panic!("cachefs.py exited ({status}) before {} appeared", self.file.display());
            }
            if is_mountpoint(&self.dir)
                && let Ok(m) = fs::metadata(&self.file)
            {
                assert_eq!(m.len(), self.spec.size, "{}: wrong size", self.file.display());
                return;
            }
            if Instant::now() >= deadline {
                panic!("{} did not appear within {READY_TIMEOUT:?}", self.file.display());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn attach(&mut self) {
        let dev = losetup_buffered(&self.file).unwrap_or_else(|e| panic!("{e}"));
        self.loop_dev = Some(dev.clone());
        // devtmpfs creates new nodes asynchronously for freshly allocated loop devices.
        if !retry(50, Duration::from_millis(20), || dev.exists()) {
            panic!("{} did not appear", dev.display());
        }
        (self.major, self.minor) = dev_numbers(&dev);
        let sysfs_size: u64 = fs::read_to_string(format!("/sys/block/{}/size", self.kernel_name()))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        assert_eq!(sysfs_size * 512, self.spec.size, "{} has the wrong size", dev.display());
        // One loop request, one FUSE request: a write a cut fails, fails whole.
        let knob = max_sectors_knob(&dev);
        write_sysfs(&knob, &MAX_REQUEST_KB.to_string()).unwrap_or_else(|e| panic!("write {MAX_REQUEST_KB} to {knob}: {e}"));
        let set = fs::read_to_string(&knob).unwrap_or_default();
        assert_eq!(set.trim(), MAX_REQUEST_KB.to_string(), "{knob} did not take {MAX_REQUEST_KB}");
    }

    /// The loop device (`/dev/loopN`).
    pub fn path(&self) -> &Path {
        self.loop_dev.as_deref().expect("attached")
    }

    /// The device's size in bytes.
    pub fn size(&self) -> u64 {
        self.spec.size
    }

    pub fn spec(&self) -> &CacheSpec {
        &self.spec
    }

    /// The FUSE mount point.
    pub fn mount_dir(&self) -> &Path {
        &self.dir
    }

    /// The FUSE file under the loop device.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Server process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// One control command and its JSON answer.
    fn try_command(&self, cmd: &str) -> Result<serde_json::Value, String> {
        let ctl = self.dir.join(CONTROL);
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&ctl)
            .map_err(|e| format!("open {}: {e}", ctl.display()))?;
        f.write_all(cmd.as_bytes())
            .map_err(|e| format!("{cmd} to {}: {e}", ctl.display()))?;
        // The answer is read from the start (the write moved the file position).
        f.seek(SeekFrom::Start(0)).map_err(|e| format!("seek {}: {e}", ctl.display()))?;
        let mut answer = String::new();
        f.read_to_string(&mut answer)
            .map_err(|e| format!("the answer to {cmd} from {}: {e}", ctl.display()))?;
        serde_json::from_str(&answer).map_err(|e| format!("the answer to {cmd} ({answer:?}): {e}"))
    }

    fn command<T: for<'de> Deserialize<'de>>(&self, cmd: &str) -> T {
        let v = self.try_command(cmd).unwrap_or_else(|e| panic!("cachefs: {e}"));
        serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("cachefs: the answer to {cmd} ({v}): {e}"))
    }

    /// Cut the power: drop everything the cache holds, fail the writes and flushes in
    /// flight (EIO), and say which blocks lost their newest write. Afterwards the device
    /// serves reads from the media and takes writes as before.
    pub fn power_cut(&self) -> PowerCut {
        self.power_cut_with(|| ())
    }

    /// [`power_cut`](Self::power_cut) with `at_cut` run at the cut's instant: the device
    /// freezes first (blocks due are stored, then nothing more is stored and no write or
    /// flush is answered), `at_cut` runs (send the writer SIGKILL here; do not wait for
    /// it to die: its I/O in flight ends only at the cut), then the cut. The device is
    /// frozen while `at_cut` runs, so [`stats`](Self::stats) and
    /// [`pending_blocks`](Self::pending_blocks) there see what the cut will drop.
    pub fn power_cut_with(&self, at_cut: impl FnOnce()) -> PowerCut {
        /// Cuts (and powers on) if `at_cut` panics: a frozen device would hold its
        /// writers forever.
        struct CutOnUnwind<'a>(&'a CacheDev);
        impl Drop for CutOnUnwind<'_> {
            fn drop(&mut self) {
                if thread::panicking() {
                    let _ = self.0.try_command("cut");
                    let _ = self.0.try_command("on");
                }
            }
        }
        let _: serde_json::Value = self.command("freeze");
        let guard = CutOnUnwind(self);
        at_cut();
        drop(guard);
        let mut cut: PowerCut = self.command("cut");
        // The power stays off (writes fail) until what the writer had queued in the block
        // layer before the cut has failed too: the later pieces of a split request must
        // not be stored after the cut. Their blocks were in flight at the cut: dropped.
        let deadline = Instant::now() + POWER_OFF_MAX;
        let mut idle_since = Instant::now();
        loop {
            let now = Instant::now();
            if self.writes_in_flight() != 0 {
                idle_since = now;
            } else if now.duration_since(idle_since) >= IDLE_FOR {
                break;
            }
            if now >= deadline {
                eprintln!(
                    "cachedev: {} still had writes in flight {POWER_OFF_MAX:?} after a power cut",
                    self.path().display()
                );
                break;
            }
            thread::sleep(Duration::from_millis(1));
        }
        let late: PowerCut = self.command("on");
        cut.dropped.extend(late.dropped);
        cut.dropped.sort_unstable();
        cut.dropped.dedup();
        cut
    }

    /// Write requests the loop device has in flight (`/sys/block/loopN/inflight`).
    fn writes_in_flight(&self) -> u64 {
        fs::read_to_string(format!("/sys/block/{}/inflight", self.kernel_name()))
            .ok()
            .and_then(|s| s.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
            .unwrap_or(0)
    }

    /// The server's counters.
    pub fn stats(&self) -> CacheStats {
        self.command("stats")
    }

    /// The blocks whose newest write is cached now (byte offsets, sorted): what a power
    /// cut would drop (with the writes in flight). Exact inside `power_cut_with`'s
    /// closure, where the device is frozen.
    pub fn pending_blocks(&self) -> Vec<u64> {
        #[derive(Deserialize)]
        struct Pending {
            pending: Vec<u64>,
        }
        self.command::<Pending>("pending").pending
    }
}

impl BlockDev for CacheDev {
    fn dev_path(&self) -> &Path {
        self.path()
    }
    fn dev_numbers(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl Drop for CacheDev {
    fn drop(&mut self) {
        // Whatever still waits (a test that failed with the cache full or frozen) fails
        // now, so the loop device and the mount can let go.
        if self.child.is_some() {
            let _ = self.try_command("stop");
        }
        if let Some(dev) = self.loop_dev.take() {
            let name = self.file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            detach_loop_if_backed_by(&dev, &name);
        }
        unmount(&self.dir);
        // Unmounted (and the loop device gone), libfuse's loop ends and the server exits.
        if let Some(mut c) = self.child.take() {
            let deadline = Instant::now() + EXIT_TIMEOUT;
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                    _ => {
                        eprintln!("emu cleanup: cachefs server {} did not exit, killing it", c.id());
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        remove_dir(&self.dir);
    }
}

/// Remove what cachedevs of dead test processes left behind (loop devices over their
/// files, their mounts, directories and servers), as [`sweep_stale_faultdevs`] does for
/// faultdevs. Runs once per process before its first `CacheDev`.
///
/// [`sweep_stale_faultdevs`]: super::faultdev::sweep_stale_faultdevs
pub fn sweep_stale_cachedevs() {
    sweep_stale_fuse_devs(KIND, SCRIPT_NAME);
}
