//! What block devices did: `/proc/diskstats` snapshots and their differences.

use super::SysRoot;
use crate::samples::DiskDelta;
use std::collections::HashMap;

/// Counters of one device from /proc/diskstats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub read_ios: u64,
    pub read_sectors: u64,
    pub write_ios: u64,
    pub write_sectors: u64,
    /// Milliseconds the device had I/O in flight (`io_ticks`).
    pub busy_ms: u64,
    /// Milliseconds its I/Os spent in flight, summed over them (the
    /// "weighted time spent doing I/Os", `time_in_queue`): over an
    /// interval, divided by its length, the mean number in flight.
    pub queue_ms: u64,
}

/// Read /proc/diskstats (sectors there are always 512 bytes).
pub fn diskstats(root: &SysRoot) -> HashMap<String, DiskCounters> {
    let text = root.read("proc/diskstats").unwrap_or_default();
    parse_diskstats(&text)
}

pub fn parse_diskstats(text: &str) -> HashMap<String, DiskCounters> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 10 {
                return None;
            }
            let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
            Some((
                f[2].to_string(),
                DiskCounters {
                    read_ios: n(3),
                    read_sectors: n(5),
                    write_ios: n(7),
                    write_sectors: n(9),
                    busy_ms: if f.len() > 12 { n(12) } else { 0 },
                    queue_ms: if f.len() > 13 { n(13) } else { 0 },
                },
            ))
        })
        .collect()
}

/// A device's in-flight counter (`/sys/class/block/NAME/inflight`, which
/// partitions have too): reads and writes the block layer holds for it now.
/// Opened once and read again from offset 0 at each sample (sysfs gives the
/// value afresh on every read from the start); `None` where it cannot be
/// opened (no such device, no sysfs).
pub fn open_inflight(root: &SysRoot, name: &str) -> Option<std::fs::File> {
    std::fs::File::open(root.path(&format!("sys/class/block/{name}/inflight"))).ok()
}

/// Reads plus writes in flight from the text of an `inflight` file
/// (`"       3        1"`); `None` if it is not two counts.
pub fn parse_inflight(text: &str) -> Option<u32> {
    let mut f = text.split_whitespace().map(|v| v.parse::<u32>().ok());
    let (r, w) = (f.next()??, f.next()??);
    f.next().is_none().then(|| r.saturating_add(w))
}

/// Difference of two diskstats snapshots for the named devices.
pub fn delta(before: &HashMap<String, DiskCounters>, after: &HashMap<String, DiskCounters>, names: &[String]) -> Vec<DiskDelta> {
    names
        .iter()
        .filter_map(|n| {
            let (a, b) = (before.get(n)?, after.get(n)?);
            Some(DiskDelta {
                name: n.clone(),
                read_bytes: b.read_sectors.saturating_sub(a.read_sectors) * 512,
                write_bytes: b.write_sectors.saturating_sub(a.write_sectors) * 512,
                read_ios: b.read_ios.saturating_sub(a.read_ios),
                write_ios: b.write_ios.saturating_sub(a.write_ios),
                busy_ns: b.busy_ms.saturating_sub(a.busy_ms) * 1_000_000,
                queue_ns: b.queue_ms.saturating_sub(a.queue_ms) * 1_000_000,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diskstats_delta_in_bytes() {
        let a = parse_diskstats("   7       3 loop3 10 0 80 5 20 0 160 9 0 1 2\n 254 0 vda 1 0 8 0 1 0 8 0 0 0 0");
        let b = parse_diskstats("   7       3 loop3 15 0 120 5 30 0 400 9 0 1 32\n 254 0 vda 1 0 8 0 1 0 8 0 0 0 0");
        let d = delta(&a, &b, &["loop3".to_string(), "missing".to_string()]);
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0],
            DiskDelta {
                busy_ns: 0,
                // Field 11, the time in queue: 30 ms more.
                queue_ns: 30_000_000,
                name: "loop3".into(),
                read_bytes: 40 * 512,
                write_bytes: 240 * 512,
                read_ios: 5,
                write_ios: 10
            }
        );
    }

    #[test]
    fn inflight_is_reads_plus_writes() {
        assert_eq!(parse_inflight("       3        1\n"), Some(4));
        assert_eq!(parse_inflight("0 0"), Some(0));
        assert_eq!(parse_inflight(""), None);
        assert_eq!(parse_inflight("3"), None);
        assert_eq!(parse_inflight("3 x"), None);
        assert_eq!(parse_inflight("1 2 3"), None);
    }
}
