//! The in-flight count of the device under a stream's target, sampled by
//! the main thread while it waits on the workers (the loop that already
//! reads the devices once a second, [`super::Seconds`]): every
//! [`EVERY`], into the window under way, so each window gets how many
//! I/Os the device held (`RunSamples::inflight`: its p99 and max; the mean
//! comes from diskstats' time in queue, `DiskDelta::queue_ns`).
//!
//! A day-long stream keeps one small table per window (samples by count),
//! never the samples themselves.

use crate::device::{SysRoot, open_inflight, parse_inflight};
use crate::samples::InflightSamples;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

/// How often the in-flight count is read: often enough for a p99 of a
/// one-second run (100 samples), rare enough to cost nothing measurable
/// (one `pread` of a sysfs file, a few microseconds).
pub(super) const EVERY: Duration = Duration::from_millis(10);

/// The in-flight counter of one device, and the samples of each window.
pub(super) struct Inflight {
    file: File,
    device: String,
    next: Instant,
    windows: Vec<InflightSamples>,
}

impl Inflight {
    /// Follow the first of `names` (the device the job's figures are
    /// cross-checked against); `None` with no device, or no counter to read.
    pub(super) fn open(sys: &SysRoot, names: &[String]) -> Option<Inflight> {
        let device = names.first()?;
        let file = open_inflight(sys, device)?;
        Some(Inflight {
            file,
            device: device.clone(),
            next: Instant::now(),
            windows: Vec::new(),
        })
    }

    /// Read the count into window `k` if a sample is due; return how long
    /// until the next one is.
    pub(super) fn sample(&mut self, k: usize) -> Duration {
        let now = Instant::now();
        if now < self.next {
            return self.next - now;
        }
        let mut buf = [0u8; 64];
        if let Ok(n) = self.file.read_at(&mut buf, 0)
            && let Some(v) = std::str::from_utf8(&buf[..n]).ok().and_then(parse_inflight)
        {
            if self.windows.len() <= k {
                self.windows.resize_with(k + 1, || InflightSamples::new(&self.device));
            }
            self.windows[k].record(v);
        }
        // On a grid, so a late wake-up does not stretch every later interval.
        while self.next <= now {
            self.next += EVERY;
        }
        self.next - now
    }

    /// Window `k`'s samples; `None` if it has none.
    pub(super) fn take(&mut self, k: usize) -> Option<InflightSamples> {
        self.windows.get_mut(k).map(std::mem::take).filter(|s| s.samples() > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under a fixture root whose `inflight` file says 5 and 2: each due
    /// sample lands in its window, a window without samples has none, and a
    /// device without the file is followed by nobody.
    #[test]
    fn samples_land_in_their_window() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("sys/class/block/vdz");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("inflight"), "       5        2\n").unwrap();
        let sys = SysRoot(dir.path().to_path_buf());
        assert!(Inflight::open(&sys, &["nosuch".to_string()]).is_none());
        assert!(Inflight::open(&sys, &[]).is_none());
        let mut f = Inflight::open(&sys, &["vdz".to_string(), "vda".to_string()]).unwrap();
        let wait = f.sample(1);
        assert!(wait > Duration::ZERO && wait <= EVERY);
        std::thread::sleep(EVERY);
        f.sample(1);
        let w = f.take(1).unwrap();
        assert_eq!((w.device.as_str(), w.samples(), w.max()), ("vdz", 2, Some(7)));
        assert!(f.take(0).is_none() && f.take(1).is_none() && f.take(9).is_none());
    }
}
