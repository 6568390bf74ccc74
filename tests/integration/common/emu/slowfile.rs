//! [`SlowFile`]: a read-only file on FUSE whose read rate is a known function of the
//! offset, like a hard disk whose outer zones are fast and inner zones slow.
//!
//! The filesystem is `tests/integration/common/slowfs.py` (fusepy, run by `/usr/bin/python3`): one
//! file whose rate falls (or rises) linearly from `start_bps` at offset 0 to `end_bps`
//! at the end. All reads share one virtual device clock, so reading `[lo, hi)` back to
//! back takes `∫ dx / rate(x)` over the range whatever the request size or queue depth:
//! [`SlowFile::expected_bps`] is that figure in closed form. The server forgives up to
//! 5 ms of each gap between consecutive requests of one open file (the kernel cuts reads
//! into 128 KiB requests and sends them one by one; their turnaround would otherwise
//! cost 4-7%); a measurement that opens the file itself starts with no credit.
//! O_DIRECT opens work (through the kernel's FUSE direct I/O path, no page cache), and
//! so do buffered ones, which the server also serves uncached (no readahead).
//! Content: the byte at offset `x` is `(x % 251) + 1` ([`SlowFile::byte_at`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::mounts::is_mountpoint;
use super::names::unique_name;
use super::proc::{retry, run_quiet, try_silently};

const PYTHON: &str = "/usr/bin/python3";
const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/integration/common/slowfs.py");
const FILE_NAME: &str = "disk.img";
/// slowfs.py's exit status when fusepy cannot be imported.
const EXIT_NO_FUSEPY: i32 = 3;
const READY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long the server may take to exit by itself once unmounted.
const EXIT_TIMEOUT: Duration = Duration::from_secs(3);

/// A FUSE-mounted file of `size` bytes whose read rate goes linearly from `start_bps`
/// (offset 0) to `end_bps` (offset `size`), in bytes per second.
///
/// Drop: `fusermount -u` (retried while busy, then `umount -l`), the server process is
/// reaped (killed if it does not exit by itself), and the mount directory removed.
pub struct SlowFile {
    dir: PathBuf,
    file: PathBuf,
    size: u64,
    start_bps: f64,
    end_bps: f64,
    child: Option<Child>,
}

impl SlowFile {
    /// Mount a new slow file. Panics if the server cannot start (e.g. python3-fusepy is
    /// missing) or the file does not appear within 15 s.
    pub fn new(size: u64, start_bps: f64, end_bps: f64) -> SlowFile {
        assert!(size > 0, "SlowFile: size must be positive");
        assert!(
            start_bps.is_finite() && end_bps.is_finite() && start_bps > 0.0 && end_bps > 0.0,
            "SlowFile: rates must be positive and finite ({start_bps}, {end_bps})"
        );
        let dir = std::env::temp_dir().join(unique_name("slowfs"));
        fs::create_dir(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        let mut sf = SlowFile {
            file: dir.join(FILE_NAME),
            dir,
            size,
            start_bps,
            end_bps,
            child: None,
        };
        // From here on a panic drops `sf`, which unmounts, reaps and removes the dir.
        let child = Command::new(PYTHON)
            .arg(SCRIPT)
            .arg(&sf.dir)
            .arg(size.to_string())
            .arg(format!("{start_bps}"))
            .arg(format!("{end_bps}"))
            .args(["--name", FILE_NAME])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {PYTHON} {SCRIPT}: {e}"));
        sf.child = Some(child);
        sf.wait_ready();
        sf
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
                panic!("slowfs.py exited ({status}) before {} appeared", self.file.display());
            }
            if is_mountpoint(&self.dir)
                && let Ok(m) = fs::metadata(&self.file)
            {
                assert_eq!(m.len(), self.size, "{}: wrong size", self.file.display());
                return;
            }
            if Instant::now() >= deadline {
                panic!("{} did not appear within {READY_TIMEOUT:?}", self.file.display());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The file.
    pub fn path(&self) -> PathBuf {
        self.file.clone()
    }

    /// The mount point (the file's directory).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Server process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(|c| c.id())
    }

    /// Read rate at `offset`, bytes per second.
    pub fn rate_at(&self, offset: u64) -> f64 {
        self.start_bps + self.slope() * offset as f64
    }

    /// The file's content: the byte at `offset`.
    pub fn byte_at(offset: u64) -> u8 {
        (offset % 251) as u8 + 1
    }

    /// Seconds the device needs for `[lo, hi)`: `∫ dx / rate(x)`.
    pub fn expected_secs(&self, lo: u64, hi: u64) -> f64 {
        assert!(lo <= hi && hi <= self.size, "range {lo}..{hi} outside 0..{}", self.size);
        let (k, ra) = (self.slope(), self.rate_at(lo));
        let len = (hi - lo) as f64;
        if k == 0.0 {
            len / ra
        } else {
            // ln(rate(hi) / rate(lo)) / k, accurate also for a nearly flat profile
            (k * len / ra).ln_1p() / k
        }
    }

    /// Average rate of reading `[lo, hi)` back to back, bytes per second:
    /// `(hi - lo) / ∫ dx / rate(x)` (the rate at `lo` for an empty range).
    pub fn expected_bps(&self, lo: u64, hi: u64) -> f64 {
        if hi == lo {
            return self.rate_at(lo);
        }
        (hi - lo) as f64 / self.expected_secs(lo, hi)
    }

    fn slope(&self) -> f64 {
        (self.end_bps - self.start_bps) / self.size as f64
    }
}

impl Drop for SlowFile {
    fn drop(&mut self) {
        let quiet = |prog: &str, args: &[&str]| try_silently(Command::new(prog).args(args).arg(&self.dir));
        // fusermount comes with the `fuse` package; as root plain umount does the same.
        let fusermount = || quiet("fusermount", &["-u"]).or_else(|_| quiet("umount", &[])).unwrap_or(false);
        if is_mountpoint(&self.dir) && !retry(20, Duration::from_millis(100), || fusermount() || !is_mountpoint(&self.dir)) {
            eprintln!("emu cleanup: {} busy, lazy unmount", self.dir.display());
            run_quiet(Command::new("umount").arg("-l").arg(&self.dir));
        }
        // Unmounted, libfuse's loop ends and the server exits by itself.
        if let Some(mut c) = self.child.take() {
            let deadline = Instant::now() + EXIT_TIMEOUT;
            loop {
                match c.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
                    _ => {
                        eprintln!("emu cleanup: slowfs server {} did not exit, killing it", c.id());
                        let _ = c.kill();
                        let _ = c.wait();
                        break;
                    }
                }
            }
        }
        if let Err(e) = fs::remove_dir(&self.dir)
            && e.kind() != io::ErrorKind::NotFound
        {
            eprintln!("emu cleanup: rmdir {}: {e}", self.dir.display());
        }
    }
}
