//! The devices under a stream's target second by second: `/proc/diskstats`
//! read once a second and at every window boundary, so each window gets its
//! devices' bytes per second (`RunSamples::device_seconds`), and the
//! watchdog sees the devices' progress while the workers wait.

use super::Snapshot;
use crate::device::SysRoot;
use std::time::{Duration, Instant};

/// `/proc/diskstats` read once a second through a stream (on a grid that
/// restarts at every window), and at every window boundary, so each window
/// gets its devices' bytes second by second.
pub(super) struct Seconds {
    /// (ns since the stream's start, the counters then), in time order.
    at: Vec<(u64, std::collections::HashMap<String, crate::device::DiskCounters>)>,
}

impl Seconds {
    pub(super) fn new(first: &Snapshot) -> Seconds {
        Seconds {
            at: vec![(0, first.disks.clone())],
        }
    }

    /// Read the counters if a second of the window that started at
    /// `window_start` has passed since the last reading; return how long
    /// until the next one is due.
    pub(super) fn sample(&mut self, sys: &SysRoot, base: Instant, window_start: Duration) -> Duration {
        const SECOND: u64 = 1_000_000_000;
        let now = base.elapsed().as_nanos() as u64;
        let ws = window_start.as_nanos() as u64;
        let last = self.at.last().map_or(0, |(t, _)| *t);
        // The next second of this window's grid after the last reading.
        let next = ws + ((last.max(ws) - ws) / SECOND + 1) * SECOND;
        if now >= next {
            self.at.push((now, crate::device::diskstats(sys)));
            return Duration::from_nanos(SECOND - (now - next).min(SECOND - 1));
        }
        Duration::from_nanos(next - now)
    }

    /// I/Os the devices `names` completed, as of the last reading: life
    /// while the workers' own completions wait (a long flush).
    pub(super) fn progress(&self, names: &[String]) -> u64 {
        self.at.last().map_or(0, |(_, disks)| {
            names
                .iter()
                .filter_map(|n| disks.get(n))
                .map(|c| c.read_ios.wrapping_add(c.write_ios))
                .fold(0u64, u64::wrapping_add)
        })
    }

    pub(super) fn boundary(&mut self, t_ns: u64, snap: &Snapshot) {
        self.at.push((t_ns, snap.disks.clone()));
    }

    /// The devices `names`, interval by interval between the readings in
    /// `[start, end]` (ns since the stream's start).
    pub(super) fn series(&self, start: u64, end: u64, names: &[String]) -> Vec<crate::samples::DiskSeries> {
        let inside: Vec<&(u64, _)> = self.at.iter().filter(|(t, _)| *t >= start && *t <= end).collect();
        names
            .iter()
            .map(|name| {
                let mut s = crate::samples::DiskSeries {
                    name: name.clone(),
                    ..Default::default()
                };
                for w in inside.windows(2) {
                    let d = crate::device::delta(&w[0].1, &w[1].1, std::slice::from_ref(name));
                    let (r, wr) = d.first().map_or((0, 0), |d| (d.read_bytes, d.write_bytes));
                    s.read_bytes.push(r);
                    s.write_bytes.push(wr);
                }
                s
            })
            .filter(|s| !s.read_bytes.is_empty())
            .collect()
    }
}
