//! The devices under a stream's target second by second: `/proc/diskstats`
//! read once a second and at every window boundary, so each window gets its
//! devices' bytes per second (`RunSamples::device_seconds`), and the
//! watchdog sees the devices' progress while the workers wait.
//!
//! A stream may last a day: only the target's devices are kept, and of each
//! reading only the two counters the series needs (24 bytes per device per
//! second, not a copy of every device's counters: that grew by ~3 KB a
//! second on a machine with 20 block devices).

use super::Snapshot;
use crate::device::{DiskCounters, SysRoot};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// `/proc/diskstats` read once a second through a stream (on a grid that
/// restarts at every window), and at every window boundary, so each window
/// gets its devices' bytes second by second.
pub(crate) struct Seconds {
    /// The devices followed, in the order of `sectors`' rows.
    names: Vec<String>,
    /// When each reading was taken, ns since the stream's start, in time order.
    times: Vec<u64>,
    /// Per reading, per device (`names.len()` entries a reading): sectors
    /// read and written, or `None` when the device was not in the table.
    sectors: Vec<Option<(u64, u64)>>,
    /// I/Os the devices had completed at the last reading.
    last_ios: u64,
}

impl Seconds {
    pub(crate) fn new(first: &Snapshot, names: &[String]) -> Seconds {
        Seconds::starting(&first.disks, names)
    }

    /// Following `names`, from a first reading at 0.
    pub(crate) fn starting(disks: &HashMap<String, DiskCounters>, names: &[String]) -> Seconds {
        let mut s = Seconds {
            names: names.to_vec(),
            times: Vec::new(),
            sectors: Vec::new(),
            last_ios: 0,
        };
        s.push(0, disks);
        s
    }

    /// Keep a reading taken at `t_ns`.
    pub(crate) fn push(&mut self, t_ns: u64, disks: &HashMap<String, DiskCounters>) {
        self.times.push(t_ns);
        let mut ios = 0u64;
        for n in &self.names {
            let c = disks.get(n);
            self.sectors.push(c.map(|c| (c.read_sectors, c.write_sectors)));
            ios = c.map_or(ios, |c| ios.wrapping_add(c.read_ios.wrapping_add(c.write_ios)));
        }
        self.last_ios = ios;
    }

    /// Read the counters if a second of the window that started at
    /// `window_start` has passed since the last reading; return how long
    /// until the next one is due.
    pub(super) fn sample(&mut self, sys: &SysRoot, base: Instant, window_start: Duration) -> Duration {
        const SECOND: u64 = 1_000_000_000;
        let now = base.elapsed().as_nanos() as u64;
        let ws = window_start.as_nanos() as u64;
        let last = self.times.last().copied().unwrap_or(0);
        // The next second of this window's grid after the last reading.
        let next = ws + ((last.max(ws) - ws) / SECOND + 1) * SECOND;
        if now >= next {
            self.push(now, &crate::device::diskstats(sys));
            return Duration::from_nanos(SECOND - (now - next).min(SECOND - 1));
        }
        Duration::from_nanos(next - now)
    }

    /// I/Os the devices followed completed, as of the last reading: life
    /// while the workers' own completions wait (a long flush).
    pub(super) fn progress(&self) -> u64 {
        self.last_ios
    }

    pub(super) fn boundary(&mut self, t_ns: u64, snap: &Snapshot) {
        self.push(t_ns, &snap.disks);
    }

    /// The devices followed, interval by interval between the readings in
    /// `[start, end]` (ns since the stream's start). An interval where a
    /// device was missing from either reading counts 0 bytes.
    pub(crate) fn series(&self, start: u64, end: u64) -> Vec<crate::samples::DiskSeries> {
        let k = self.names.len();
        let inside: Vec<usize> = (0..self.times.len())
            .filter(|&i| self.times[i] >= start && self.times[i] <= end)
            .collect();
        if inside.len() < 2 {
            return Vec::new();
        }
        self.names
            .iter()
            .enumerate()
            .map(|(d, name)| {
                let mut s = crate::samples::DiskSeries {
                    name: name.clone(),
                    read_bytes: Vec::with_capacity(inside.len() - 1),
                    write_bytes: Vec::with_capacity(inside.len() - 1),
                };
                for w in inside.windows(2) {
                    let (r, wr) = match (self.sectors[w[0] * k + d], self.sectors[w[1] * k + d]) {
                        (Some(a), Some(b)) => (b.0.saturating_sub(a.0) * 512, b.1.saturating_sub(a.1) * 512),
                        _ => (0, 0),
                    };
                    s.read_bytes.push(r);
                    s.write_bytes.push(wr);
                }
                s
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disks(rows: &[(&str, u64, u64)]) -> HashMap<String, DiskCounters> {
        rows.iter()
            .map(|&(n, r, w)| {
                (
                    n.to_string(),
                    DiskCounters {
                        read_ios: r,
                        read_sectors: r,
                        write_ios: w,
                        write_sectors: w,
                        busy_ms: 0,
                        queue_ms: 0,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn each_window_gets_its_devices_bytes_second_by_second() {
        let names = vec!["sdb".to_string(), "gone".to_string()];
        let mut s = Seconds::starting(&disks(&[("sdb", 0, 0), ("sda", 9, 9)]), &names);
        s.push(1_000_000_000, &disks(&[("sdb", 2, 4)]));
        s.push(2_000_000_000, &disks(&[("sdb", 6, 4)]));
        s.push(2_500_000_000, &disks(&[("sdb", 7, 5)]));
        let all = s.series(0, u64::MAX);
        assert_eq!(all[0].name, "sdb");
        assert_eq!(all[0].read_bytes, vec![1024, 2048, 512]);
        assert_eq!(all[0].write_bytes, vec![2048, 0, 512]);
        // A device missing from the table counts nothing, as before.
        assert_eq!(all[1].read_bytes, vec![0, 0, 0]);
        // A window gets only the intervals between its own readings.
        let second = s.series(1_000_000_000, 2_000_000_000);
        assert_eq!(second[0].read_bytes, vec![2048]);
        assert!(s.series(2_100_000_000, u64::MAX).is_empty(), "one reading is no interval");
        assert_eq!(s.progress(), 7 + 5);
    }

    #[test]
    fn a_day_of_readings_keeps_only_the_followed_devices() {
        // 20 devices in the table, one followed: what a day's stream keeps.
        let names = vec!["loop7".to_string()];
        let table: Vec<(String, u64, u64)> = (0..20).map(|i| (format!("dev{i}"), i, i)).collect();
        let rows: Vec<(&str, u64, u64)> = table.iter().map(|(n, r, w)| (n.as_str(), *r, *w)).collect();
        let mut d = disks(&rows);
        let mut s = Seconds::starting(&d, &names);
        for t in 1..=86_400u64 {
            d.insert(
                "loop7".into(),
                DiskCounters {
                    read_sectors: t * 8,
                    ..Default::default()
                },
            );
            s.push(t * 1_000_000_000, &d);
        }
        assert_eq!(s.sectors.len(), 86_401);
        let series = s.series(0, u64::MAX);
        assert_eq!(series[0].read_bytes.len(), 86_400);
        assert!(series[0].read_bytes[1..].iter().all(|&b| b == 4096));
    }
}
