//! Which block devices did the work between two `/proc/diskstats`
//! readings, and how they stack, so a figure is never attributed to an
//! idle device and never counted twice.
//!
//! The rules:
//! - A partition's I/O is also counted by its disk (the kernel adds every
//!   request to both), so partitions are folded into their disk and named
//!   there (`partitions`), never listed on their own.
//! - A stacked device (a loop device over a file, device-mapper and md over
//!   their slaves) keeps its *own* counters: what was asked of it. The
//!   devices it is built on are named in `on`, and count what reached them.
//! - Sums over a run add the *bottom* devices only (those built on no other
//!   block device: disks, zram, a loop device over a memory filesystem), so
//!   bytes that pass through a stack are counted once, where they land.
//! - The device a single figure is read from (the "busiest") is chosen among
//!   the *top* devices (those no other moving device is built on): the one
//!   that moved the most bytes.

use super::sysfs::{self, Blk};
use super::{DiskCounters, SysRoot, mount_for, mounts};
use crate::samples::DeviceActivity;
use std::collections::HashMap;
use std::path::Path;

fn moved(a: &DiskCounters, b: &DiskCounters) -> bool {
    b.read_sectors > a.read_sectors || b.write_sectors > a.write_sectors || b.read_ios > a.read_ios || b.write_ios > a.write_ios
}

fn activity_of(name: &str, a: &DiskCounters, b: &DiskCounters) -> DeviceActivity {
    DeviceActivity {
        name: name.to_string(),
        read_bytes: b.read_sectors.saturating_sub(a.read_sectors) * 512,
        write_bytes: b.write_sectors.saturating_sub(a.write_sectors) * 512,
        read_ios: b.read_ios.saturating_sub(a.read_ios),
        write_ios: b.write_ios.saturating_sub(a.write_ios),
        busy_s: b.busy_ms.saturating_sub(a.busy_ms) as f64 / 1e3,
        ..Default::default()
    }
}

/// A device's disk name: the disk for a partition, else the device itself.
fn disk_name(b: &Blk) -> String {
    b.disk().map_or_else(|| b.name.clone(), |d| d.name)
}

/// The disks a device is built on: its slaves, or the device under a loop
/// device's backing file (none when that file is on a memory filesystem).
pub(crate) fn lower_disks(root: &SysRoot, b: &Blk) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |n: String| {
        if n != b.name && !out.contains(&n) {
            out.push(n);
        }
    };
    for s in b.slaves() {
        add(disk_name(&s));
    }
    if let Some(file) = b.attr("loop/backing_file") {
        let file = file.strip_suffix(" (deleted)").unwrap_or(&file).to_string();
        if let Some(under) = backing_device(root, Path::new(&file)) {
            add(disk_name(&under));
        }
    }
    out
}

/// The block device a loop device's backing file lives on. Live, the file's
/// own device number decides; under a fixture root, the longest mount point.
fn backing_device(root: &SysRoot, file: &Path) -> Option<Blk> {
    if root.0 == Path::new("/") {
        let (ma, mi) = super::device_of_path(root, file)?;
        return sysfs::by_dev(root, (ma, mi));
    }
    let m = mount_for(&mounts(root), file, None)?;
    (m.dev.0 != 0)
        .then(|| sysfs::by_dev(root, m.dev))
        .flatten()
        .or_else(|| sysfs::by_source(root, &m.source))
}

/// Every block device whose counters moved from `before` to `after`,
/// partitions folded into their disks, each with the devices it is built
/// on; the busiest first (bytes, then busy time, then name).
pub fn activity(root: &SysRoot, before: &HashMap<String, DiskCounters>, after: &HashMap<String, DiskCounters>) -> Vec<DeviceActivity> {
    let mut whole: Vec<DeviceActivity> = Vec::new();
    let mut parts: Vec<(String, DeviceActivity)> = Vec::new();
    let mut names: Vec<&String> = after.keys().collect();
    names.sort();
    for name in names {
        let (Some(a), Some(b)) = (before.get(name), after.get(name)) else {
            continue;
        };
        if !moved(a, b) {
            continue;
        }
        let mut d = activity_of(name, a, b);
        match sysfs::by_name(root, name) {
            Some(blk) if blk.is_partition() => {
                if let Some(disk) = blk.disk() {
                    parts.push((disk.name, d));
                    continue;
                }
                d.bottom = true;
            }
            Some(blk) => {
                d.on = lower_disks(root, &blk);
                d.bottom = d.on.is_empty();
            }
            // Gone from sysfs (detached meanwhile): nothing known under it.
            None => d.bottom = true,
        }
        whole.push(d);
    }
    for (disk, p) in parts {
        match whole.iter_mut().find(|d| d.name == disk) {
            Some(d) => d.partitions.push(p.name),
            // The disk's own line did not move (it always should): keep the partition's figures.
            None => whole.push(DeviceActivity { bottom: true, ..p }),
        }
    }
    sort_busiest(&mut whole);
    whole
}

fn sort_busiest(v: &mut [DeviceActivity]) {
    v.sort_by(|a, b| {
        b.bytes()
            .cmp(&a.bytes())
            .then(b.busy_s.total_cmp(&a.busy_s))
            .then(a.name.cmp(&b.name))
    });
}

/// Every device in `list` that another one in it is built on, however deep.
fn lowers_of(list: &[DeviceActivity]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut todo: Vec<&str> = list.iter().flat_map(|d| d.on.iter().map(String::as_str)).collect();
    while let Some(n) = todo.pop() {
        if out.contains(&n) {
            continue;
        }
        out.push(n);
        if let Some(d) = list.iter().find(|d| d.name == n) {
            todo.extend(d.on.iter().map(String::as_str));
        }
    }
    out
}

/// The top devices of `list`: those no other device in it is built on.
pub fn tops(list: &[DeviceActivity]) -> Vec<&DeviceActivity> {
    let lower = lowers_of(list);
    list.iter().filter(|d| !lower.contains(&d.name.as_str())).collect()
}

/// The device a single figure is read from when none is named: of the top
/// devices, the one that moved the most bytes (then: the longest busy).
pub fn busiest(list: &[DeviceActivity]) -> Option<&DeviceActivity> {
    tops(list).into_iter().max_by(|a, b| {
        a.bytes()
            .cmp(&b.bytes())
            .then(a.busy_s.total_cmp(&b.busy_s))
            .then(b.name.cmp(&a.name))
    })
}

/// Bytes read and written by the bottom devices only: what reached storage
/// (or memory-backed devices), each byte once however deep the stack.
pub fn bottom_total(list: &[DeviceActivity]) -> (u64, u64) {
    list.iter()
        .filter(|d| d.bottom)
        .fold((0, 0), |(r, w), d| (r + d.read_bytes, w + d.write_bytes))
}

/// The device a run's single figures are read from when none is named.
/// When the work itself read more than `min` bytes from storage
/// (`own_read`: the kernel's per-task I/O accounting, which counts a read
/// where it is submitted, whatever device serves it), the top device whose
/// reads come closest to that: other programs' I/O on another device does
/// not take its place. Else (a command that wrote, or read from caches) the
/// busiest top device.
pub fn pick(list: &[DeviceActivity], own_read: u64, min: u64) -> Option<&DeviceActivity> {
    if own_read > min {
        let dist = |d: &DeviceActivity| d.read_bytes.abs_diff(own_read);
        let closest = tops(list)
            .into_iter()
            .filter(|d| d.read_bytes > 0)
            .min_by(|a, b| dist(a).cmp(&dist(b)).then(b.bytes().cmp(&a.bytes())).then(a.name.cmp(&b.name)));
        if closest.is_some() {
            return closest;
        }
    }
    busiest(list)
}

/// The top devices of `list` that have nothing to do with the `named` ones
/// (kernel names, partitions included): not named, not a disk of a named
/// partition, not built on a named device, not under one.
pub fn elsewhere<'a>(list: &'a [DeviceActivity], named: &[String]) -> Vec<&'a DeviceActivity> {
    let is_named = |d: &DeviceActivity| named.contains(&d.name) || d.partitions.iter().any(|p| named.contains(p));
    let related = |d: &DeviceActivity| {
        is_named(d)
            || d.on
                .iter()
                .any(|o| named.contains(o) || list.iter().any(|n| &n.name == o && is_named(n)))
            || list.iter().any(|n| is_named(n) && n.on.contains(&d.name))
    };
    tops(list).into_iter().filter(|d| !related(d)).collect()
}

/// Sum `runs` device by device (by name), in the order of the total bytes.
pub fn sum_activity<'a>(runs: impl IntoIterator<Item = &'a [DeviceActivity]>) -> Vec<DeviceActivity> {
    let mut out: Vec<DeviceActivity> = Vec::new();
    for run in runs {
        for d in run {
            match out.iter_mut().find(|o| o.name == d.name) {
                Some(o) => {
                    o.read_bytes += d.read_bytes;
                    o.write_bytes += d.write_bytes;
                    o.read_ios += d.read_ios;
                    o.write_ios += d.write_ios;
                    o.busy_s += d.busy_s;
                    for p in &d.partitions {
                        if !o.partitions.contains(p) {
                            o.partitions.push(p.clone());
                        }
                    }
                }
                None => out.push(d.clone()),
            }
        }
    }
    sort_busiest(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::super::diskstats::parse_diskstats;
    use super::super::tests::fixtures::{Fx, machine};
    use super::*;

    /// `/proc/diskstats` lines: major minor name, then reads completed,
    /// merged, sectors read, ms reading, writes completed, merged, sectors
    /// written, ms writing, in flight, io_ticks (ms), weighted ms
    /// (Documentation/admin-guide/iostats.rst, fields 1–11).
    fn stats(lines: &[(&str, u64, u64, u64, u64, u64)]) -> HashMap<String, DiskCounters> {
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (n, rio, rsec, wio, wsec, ticks))| {
                format!("   8 {i:>7} {n} {rio} 0 {rsec} 0 {wio} 0 {wsec} 0 0 {ticks} 0 0 0 0 0 0 0\n")
            })
            .collect();
        parse_diskstats(&text)
    }

    fn names(v: &[DeviceActivity]) -> Vec<&str> {
        v.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn partitions_fold_into_their_disk_and_idle_devices_are_hidden() {
        let fx = machine();
        let before = stats(&[
            ("sda", 10, 80, 0, 0, 5),
            ("sda1", 10, 80, 0, 0, 5),
            ("nvme0n1", 0, 0, 0, 0, 0),
            ("zram0", 1, 8, 0, 0, 0),
        ]);
        // 4 MiB read through sda1 (counted again by sda); nvme0n1 idle; zram0 idle.
        let after = stats(&[
            ("sda", 42, 80 + 8192, 0, 0, 1205),
            ("sda1", 42, 80 + 8192, 0, 0, 1205),
            ("nvme0n1", 0, 0, 0, 0, 0),
            ("zram0", 1, 8, 0, 0, 0),
        ]);
        let a = activity(&fx.root(), &before, &after);
        assert_eq!(names(&a), ["sda"]);
        assert_eq!(a[0].read_bytes, 4 << 20);
        assert_eq!((a[0].read_ios, a[0].partitions.clone()), (32, vec!["sda1".to_string()]));
        assert!((a[0].busy_s - 1.2).abs() < 1e-9);
        assert!(a[0].bottom && a[0].on.is_empty());
        assert_eq!(bottom_total(&a), (4 << 20, 0));
        assert_eq!(busiest(&a).map(|d| d.name.as_str()), Some("sda"));
    }

    #[test]
    fn a_loop_device_over_a_file_is_shown_on_its_disk_and_counted_once() {
        // loop0's file is on /data (sda1): 8 MiB read from loop0, 8 MiB of it reached sda.
        let fx = machine();
        let before = stats(&[
            ("loop0", 0, 0, 0, 0, 0),
            ("sda", 0, 0, 0, 0, 0),
            ("sda1", 0, 0, 0, 0, 0),
            ("sdb", 0, 0, 0, 0, 0),
        ]);
        let after = stats(&[
            ("loop0", 64, 16384, 0, 0, 300),
            ("sda", 64, 16384, 3, 24, 400),
            ("sda1", 64, 16384, 3, 24, 400),
            ("sdb", 0, 0, 1, 8, 1),
        ]);
        let a = activity(&fx.root(), &before, &after);
        assert_eq!(names(&a), ["sda", "loop0", "sdb"]);
        let lp = a.iter().find(|d| d.name == "loop0").unwrap();
        assert_eq!((lp.on.clone(), lp.bottom), (vec!["sda".to_string()], false));
        // Totals: the bottom devices only (sda, sdb), not loop0 again.
        assert_eq!(bottom_total(&a), (8 << 20, 24 * 512 + 8 * 512));
        // The figure comes from the top of the stack (loop0), though sda moved a little more.
        assert_eq!(busiest(&a).map(|d| d.name.as_str()), Some("loop0"));
        assert_eq!(names(&tops(&a).into_iter().cloned().collect::<Vec<_>>()), ["loop0", "sdb"]);
        // Named loop0: sda is under it, so only sdb is "elsewhere"; named sda1, loop0 is built on it.
        assert_eq!(
            names(&elsewhere(&a, &["loop0".into()]).into_iter().cloned().collect::<Vec<_>>()),
            ["sdb"]
        );
        assert_eq!(
            names(&elsewhere(&a, &["sda1".into()]).into_iter().cloned().collect::<Vec<_>>()),
            ["sdb"]
        );
        // The command read 8 MiB itself: loop0 matches (and is the top of the stack).
        assert_eq!(pick(&a, 8 << 20, 1 << 20).map(|d| d.name.as_str()), Some("loop0"));
    }

    #[test]
    fn device_mapper_over_a_partition_and_loop_over_tmpfs() {
        let fx = machine();
        let before = stats(&[
            ("dm-0", 0, 0, 0, 0, 0),
            ("sdb", 0, 0, 0, 0, 0),
            ("sdb1", 0, 0, 0, 0, 0),
            ("loop1", 0, 0, 0, 0, 0),
        ]);
        let after = stats(&[
            ("dm-0", 0, 0, 10, 2048, 50),
            ("sdb", 0, 0, 10, 2048, 60),
            ("sdb1", 0, 0, 10, 2048, 60),
            ("loop1", 5, 40, 0, 0, 1),
        ]);
        let a = activity(&fx.root(), &before, &after);
        let dm = a.iter().find(|d| d.name == "dm-0").unwrap();
        assert_eq!(dm.on, ["sdb"]);
        let sdb = a.iter().find(|d| d.name == "sdb").unwrap();
        assert_eq!((sdb.partitions.clone(), sdb.bottom), (vec!["sdb1".to_string()], true));
        // loop1's file is on tmpfs: nothing under it, so it is a bottom device itself.
        let lp = a.iter().find(|d| d.name == "loop1").unwrap();
        assert!(lp.bottom && lp.on.is_empty());
        assert_eq!(bottom_total(&a), (40 * 512, 2048 * 512));
        assert_eq!(busiest(&a).map(|d| d.name.as_str()), Some("dm-0"));
        // Named sdb (the disk under dm-0): dm-0 is built on it, so not elsewhere.
        assert_eq!(
            names(&elsewhere(&a, &["sdb".into()]).into_iter().cloned().collect::<Vec<_>>()),
            ["loop1"]
        );
    }

    #[test]
    fn the_figures_follow_the_commands_own_reads_not_a_busier_device() {
        // A cold `cat` of 48 MiB on loop3 while other programs read 60 MB from vda.
        let d = |n: &str, r: u64| DeviceActivity {
            name: n.into(),
            read_bytes: r,
            bottom: true,
            ..Default::default()
        };
        let a = vec![d("vda", 60_000_000), d("loop3", 48 << 20)];
        assert_eq!(busiest(&a).map(|d| d.name.as_str()), Some("vda"));
        assert_eq!(pick(&a, 48 << 20, 1 << 20).map(|d| d.name.as_str()), Some("loop3"));
        // Nothing read by the command itself (warm, or it only wrote): the busiest.
        assert_eq!(pick(&a, 0, 1 << 20).map(|d| d.name.as_str()), Some("vda"));
        assert_eq!(pick(&[], 48 << 20, 1 << 20), None);
    }

    #[test]
    fn devices_unknown_to_sysfs_still_count() {
        let fx = Fx::new();
        let before = stats(&[("vdz", 0, 0, 0, 0, 0)]);
        let after = stats(&[("vdz", 1, 8, 0, 0, 0)]);
        let a = activity(&fx.root(), &before, &after);
        assert_eq!((a[0].name.as_str(), a[0].read_bytes, a[0].bottom), ("vdz", 4096, true));
        // A device that appears between the readings has no "before": not counted.
        assert!(activity(&fx.root(), &HashMap::new(), &after).is_empty());
    }

    #[test]
    fn runs_sum_by_device() {
        let d = |n: &str, r: u64| DeviceActivity {
            name: n.into(),
            read_bytes: r,
            busy_s: 0.5,
            bottom: true,
            ..Default::default()
        };
        let runs = [vec![d("sda", 10), d("vda", 1)], vec![d("vda", 30)]];
        let s = sum_activity(runs.iter().map(Vec::as_slice));
        assert_eq!(names(&s), ["vda", "sda"]);
        assert_eq!((s[0].read_bytes, s[0].busy_s), (31, 1.0));
    }
}
