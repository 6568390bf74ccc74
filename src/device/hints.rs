//! Plain-word hints about what a target's devices and filesystem mean for
//! benchmark figures. Each rule is a small function with a stable `code`.

use super::facts::{DeviceFacts, Transport};
use super::model::{ChainNode, DeviceReport, Throttle};
use super::zfs::ZfsInfo;
use crate::judge::{Code, Diagnostic};

/// A hint: `code`, the device (or mount point) it is about, the sentence.
fn hint(code: Code, subject: &str, text: String) -> Diagnostic {
    Diagnostic::new(code, text).about(subject)
}

/// Every hint for a report, in a fixed order: filesystem, devices, ZFS,
/// loop devices and md arrays, throttles.
pub fn hints(r: &DeviceReport) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(fs) = &r.filesystem {
        let subject = fs.mount_point.as_str();
        if fs.memory {
            out.push(hint(
                Code::MemoryBacked,
                subject,
                format!(
                    "{subject} is {}: the data lives in RAM, so figures measure memory and CPU, not storage.",
                    fs.fstype
                ),
            ));
        }
        if let Some(c) = &fs.compression {
            out.push(hint(
                Code::FsCompresses,
                subject,
                format!(
                    "{} compresses what it writes ({c}): measure with random data only. iolab always writes random, incompressible data, so its figures are for data that does not compress.{}",
                    fs.fstype,
                    r.zfs.as_ref().map(zfs_compression).unwrap_or_default()
                ),
            ));
        }
        if fs.cow {
            out.push(hint(
                Code::FsCow,
                subject,
                format!(
                    "{} is copy-on-write: rewrites fragment the test file, so later runs can be slower than the first.",
                    fs.fstype
                ),
            ));
        }
        if fs.sync {
            out.push(hint(
                Code::FsSync,
                subject,
                format!("{subject} is mounted with sync: every write waits for the device."),
            ));
        }
    }
    for d in &r.devices {
        out.extend(
            [usb_no_uas(d), queue_depth_1(d), rotational(d), memory_device(d), volatile_cache(d)]
                .into_iter()
                .flatten(),
        );
    }
    if let Some(z) = &r.zfs {
        out.extend(
            [
                zfs_direct(z),
                zfs_fuse_page_cache(z),
                zfs_member_page_cache(z),
                zfs_sync(z),
                zfs_primarycache(z),
                zfs_degraded(z),
            ]
            .into_iter()
            .flatten(),
        );
    }
    walk(&r.chain, &mut |n| {
        out.extend([loop_buffered(n), md_degraded(n)].into_iter().flatten())
    });
    out.extend(r.throttles.iter().map(throttled));
    out
}

fn is_fuse(z: &ZfsInfo) -> bool {
    z.implementation.as_deref() == Some("zfs-fuse")
}

/// What ZFS does with data that does not compress, added to `fs-compresses`.
/// ZFS keeps a compressed block only when it saves an eighth of it
/// (`zio_compress_data`: `d_len = s_len - (s_len >> 3)`, in OpenZFS and zfs-fuse).
fn zfs_compression(z: &ZfsInfo) -> String {
    let mut s = " ZFS stores a record compressed only when that saves at least an eighth of it: incompressible data is stored as it is, after the CPU time spent trying.".to_string();
    if is_fuse(z) {
        let on = z.dataset_properties.as_ref().and_then(|p| p.compression.as_deref()) == Some("on");
        s.push_str(&format!(
            " zfs-fuse compresses in its daemon, in user space{}: with gzip, writes can be bound by the daemon's CPU rather than by the disks.",
            if on { " (on is lzjb there)" } else { "" }
        ));
    }
    s
}

/// O_DIRECT is ignored on this dataset: reads can come from the ARC.
fn zfs_direct(z: &ZfsInfo) -> Option<Diagnostic> {
    if z.direct_io_ignored == Some(false) {
        return None;
    }
    let bytes = crate::base::units::fmt_bytes;
    let arc = match (z.arc_size_bytes, z.arc_max_bytes) {
        (Some(s), Some(m)) => format!(" (now {}, up to {})", bytes(s), bytes(m)),
        (Some(s), None) => format!(" (now {})", bytes(s)),
        _ => String::new(),
    };
    let why = match (is_fuse(z), z.version.as_deref(), z.direct.as_deref()) {
        (true, _, _) => "zfs-fuse accepts O_DIRECT and serves it through its ARC".to_string(),
        (_, _, Some("disabled")) => format!("{} has direct=disabled: ZFS ignores O_DIRECT", z.dataset),
        (_, Some(v), _) => format!("OpenZFS {v} ignores O_DIRECT (Direct I/O came in 2.3)"),
        (_, None, _) => "the OpenZFS version is unknown, and before 2.3 ZFS ignores O_DIRECT".to_string(),
    };
    let advice = if is_fuse(z) {
        "test a span well over the ARC's maximum, or export and import the pool to empty the ARC (dropping the kernel's caches does not)"
    } else {
        "test a span well over the ARC's maximum, or use OpenZFS 2.3 or later with direct=standard"
    };
    Some(hint(
        Code::ZfsDirectIgnored,
        &z.dataset,
        format!("{why}: reads can come from the ARC{arc} at memory speed, not from the pool's disks; {advice}."),
    ))
}

/// zfs-fuse has members open without O_DIRECT (file vdevs): the kernel's
/// page cache of each sits under the ARC.
fn zfs_member_page_cache(z: &ZfsInfo) -> Option<Diagnostic> {
    let d = z.daemon.as_ref()?;
    let cached: Vec<String> = z
        .leaves()
        .iter()
        .filter(|v| v.page_cache == Some(true))
        .map(|v| v.device.clone().unwrap_or_else(|| super::zfs::leaf_path(&v.name)))
        .collect();
    if cached.is_empty() {
        return None;
    }
    Some(hint(
        Code::ZfsMemberPageCache,
        &z.pool,
        format!(
            "zfs-fuse (pid {}) has {} open without O_DIRECT, so its I/O goes through the kernel's page cache: reads can come from RAM under the ARC, and writes wait there until ZFS flushes them; dropping the kernel's caches (drop_caches) empties that cache, not the ARC.",
            d.pid,
            cached.join(", ")
        ),
    ))
}

/// zfs-fuse without `disable-block-cache`: the kernel caches its datasets'
/// files above it (FUSE `direct_io` off).
fn zfs_fuse_page_cache(z: &ZfsInfo) -> Option<Diagnostic> {
    let d = z.daemon.as_ref().filter(|d| d.block_cache)?;
    Some(hint(
        Code::ZfsFusePageCache,
        &z.dataset,
        format!(
            "zfs-fuse (pid {}) runs without disable-block-cache: the kernel caches the files of its datasets, so reads without O_DIRECT (buffered jobs, `iolab time`, the app suites) can come from RAM without reaching ZFS; dropping the kernel's caches (drop_caches) empties that cache, not the ARC under it. O_DIRECT reads skip it and go to the ARC.",
            d.pid
        ),
    ))
}

/// `sync=disabled` or `sync=always` on the dataset.
fn zfs_sync(z: &ZfsInfo) -> Option<Diagnostic> {
    let sync = z.dataset_properties.as_ref()?.sync.as_deref()?;
    let what = match sync {
        "disabled" => {
            "ZFS acknowledges fsync, O_SYNC and O_DSYNC writes before they are stored, so flush and synchronous-write figures are memory's, and a crash loses the last seconds of writes"
        }
        "always" => {
            "every write waits for the ZFS intent log (on the log device if the pool has one) before it is acknowledged, so buffered writes are as slow as synchronous ones"
        }
        _ => return None,
    };
    Some(hint(Code::ZfsSync, &z.dataset, format!("{} has sync={sync}: {what}.", z.dataset)))
}

/// `primarycache=metadata` or `none`: no file data in the ARC, and a read
/// smaller than a record reads the whole record (its checksum covers the block).
fn zfs_primarycache(z: &ZfsInfo) -> Option<Diagnostic> {
    let p = z.dataset_properties.as_ref()?;
    let pc = p.primarycache.as_deref()?;
    let keeps = match pc {
        "metadata" => "the ARC keeps only metadata",
        "none" => "the ARC keeps neither data nor metadata",
        _ => return None,
    };
    let bytes = crate::base::units::fmt_bytes;
    let record = match p.recordsize_bytes {
        Some(r) if r > 4096 => format!(
            " (recordsize {}: a 4 KiB random read moves {} from the disks, {:.0}x)",
            bytes(r),
            bytes(r),
            crate::judge::zfs::record_amplification(r, 4096)
        ),
        Some(r) => format!(" (recordsize {})", bytes(r)),
        None => String::new(),
    };
    Some(hint(
        Code::ZfsPrimarycache,
        &z.dataset,
        format!(
            "{} has primarycache={pc}: {keeps}, so every read of file data goes to the disks, and a read smaller than a record reads the whole record{record}.",
            z.dataset
        ),
    ))
}

/// The pool is not ONLINE: which vdevs are not.
fn zfs_degraded(z: &ZfsInfo) -> Option<Diagnostic> {
    let state = z.state.as_deref()?;
    if state == "ONLINE" {
        return None;
    }
    let bad: Vec<String> = z
        .leaves()
        .into_iter()
        .filter(|v| !matches!(v.state.as_str(), "ONLINE" | "AVAIL" | "INUSE"))
        .map(|v| format!("{} {}", v.device.as_deref().unwrap_or(&v.name), v.state))
        .collect();
    Some(hint(
        Code::Degraded,
        &z.pool,
        format!(
            "pool {} is {state}{}: figures are those of the pool as it is now (reconstructing or resilvering), not of the whole layout.",
            z.pool,
            if bad.is_empty() {
                String::new()
            } else {
                format!(" ({})", bad.join(", "))
            }
        ),
    ))
}

/// An md array runs with members missing or failed.
fn md_degraded(n: &ChainNode) -> Option<Diagnostic> {
    let md = n.md.as_ref()?;
    let faulty: Vec<&str> = md
        .members
        .iter()
        .filter(|m| m.state.split(',').any(|f| f == "faulty"))
        .map(|m| m.name.as_str())
        .collect();
    let missing = md.degraded.unwrap_or(0);
    if missing == 0 && faulty.is_empty() {
        return None;
    }
    let level = md.level.as_deref().unwrap_or("md");
    let of = md.raid_disks.map(|d| format!(" of {d}")).unwrap_or_default();
    let sync = md
        .sync_action
        .as_deref()
        .filter(|a| *a != "idle")
        .map(|a| format!(", {a} running"))
        .unwrap_or_default();
    Some(hint(
        Code::Degraded,
        &n.name,
        format!(
            "{} ({level}) is degraded: {missing}{of} members missing{}{sync}; figures are those of the degraded array, not of the whole layout.",
            n.name,
            if faulty.is_empty() {
                String::new()
            } else {
                format!(" ({} faulty)", faulty.join(", "))
            }
        ),
    ))
}

fn walk(nodes: &[ChainNode], f: &mut impl FnMut(&ChainNode)) {
    for n in nodes {
        f(n);
        walk(&n.children, f);
    }
}

fn usb_no_uas(d: &DeviceFacts) -> Option<Diagnostic> {
    (d.transport == Transport::UsbStorage).then(|| {
        hint(
            Code::UsbNoUas,
            &d.name,
            format!(
                "{} is USB mass storage without UAS (driver usb-storage): one command at a time; queue depth and several disks on this bridge will not add speed.",
                d.name
            ),
        )
    })
}

/// Queue depth 1 on anything but usb-storage (whose hint already says so).
fn queue_depth_1(d: &DeviceFacts) -> Option<Diagnostic> {
    (d.queue_depth == Some(1) && d.transport != Transport::UsbStorage).then(|| {
        hint(
            Code::QueueDepth1,
            &d.name,
            format!(
                "{} has queue depth 1: no command queueing, so deeper queues will not add speed.",
                d.name
            ),
        )
    })
}

fn rotational(d: &DeviceFacts) -> Option<Diagnostic> {
    (d.rotational == Some(true) && !d.memory_backed).then(|| {
        let virt = if matches!(d.transport, Transport::Virtio | Transport::VirtioScsi) {
            " (virtual disks often report this whatever backs them)"
        } else {
            ""
        };
        hint(
            Code::Rotational,
            &d.name,
            format!("{} reports a rotating disk{virt}: random 4K is seek-bound.", d.name),
        )
    })
}

fn memory_device(d: &DeviceFacts) -> Option<Diagnostic> {
    d.memory_backed.then(|| {
        hint(
            Code::MemoryBacked,
            &d.name,
            format!("{} is backed by RAM: figures measure memory and CPU, not storage.", d.name),
        )
    })
}

fn volatile_cache(d: &DeviceFacts) -> Option<Diagnostic> {
    (d.volatile_write_cache == Some(true) && !d.memory_backed).then(|| {
        hint(
            Code::VolatileWriteCache,
            &d.name,
            format!(
                "{} has a volatile write cache on (write back): flush before trusting write figures. iolab flushes (fdatasync) at the end of every measured window and counts the time.",
                d.name
            ),
        )
    })
}

fn loop_buffered(n: &ChainNode) -> Option<Diagnostic> {
    let l = n.loop_info.as_ref()?;
    (l.dio == Some(false)).then(|| {
        hint(
            Code::LoopBuffered,
            &n.name,
            format!(
                "{} does not use direct I/O on {}: the backing file's page cache sits underneath, so reads can come from RAM and writes are absorbed before they reach the disk.",
                n.name, l.backing_file
            ),
        )
    })
}

fn throttled(t: &Throttle) -> Diagnostic {
    let whom = match &t.issuer {
        Some(p) => format!("for {p}, which issues its I/O,"),
        None => "for this process".to_string(),
    };
    let mb = |v: u64| crate::base::units::fmt_mbs(v as f64);
    let part = |what: &str, bps: Option<u64>, iops: Option<u64>| {
        let v: Vec<String> = [bps.map(mb), iops.map(|i| format!("{i} IOPS"))].into_iter().flatten().collect();
        (!v.is_empty()).then(|| format!("{what} to {}", v.join(" / ")))
    };
    let parts: Vec<String> = [part("reads", t.read_bps, t.read_iops), part("writes", t.write_bps, t.write_iops)]
        .into_iter()
        .flatten()
        .collect();
    hint(
        Code::CgroupThrottle,
        &t.device,
        format!("{} is throttled {whom} by {}: {}.", t.device, t.place(), parts.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::super::model::{FsFacts, LoopInfo, NodeKind, TargetKind};
    use super::*;

    fn dev(name: &str) -> DeviceFacts {
        DeviceFacts {
            name: name.into(),
            dev: "8:0".into(),
            sysfs_path: String::new(),
            transport: Transport::Sata,
            vendor: None,
            model: None,
            firmware: None,
            serial: None,
            wwid: None,
            usb_bridge: None,
            size_bytes: 0,
            logical_block_size: None,
            physical_block_size: None,
            rotational: Some(false),
            link_speed: None,
            queue_depth: Some(32),
            nr_requests: None,
            scheduler: None,
            write_cache: None,
            volatile_write_cache: Some(false),
            discard: None,
            discard_max_bytes: None,
            hw_queues: None,
            memory_backed: false,
        }
    }

    fn report(devices: Vec<DeviceFacts>) -> DeviceReport {
        DeviceReport {
            layout: None,
            target: "/x".into(),
            path: "/x".into(),
            kind: TargetKind::File,
            filesystem: None,
            chain: Vec::new(),
            devices,
            throttles: Vec::new(),
            hints: Vec::new(),
            io_weights: Vec::new(),
            zfs: None,
        }
    }

    fn codes(r: &DeviceReport) -> Vec<String> {
        hints(r).iter().map(|h| h.code.to_string()).collect()
    }

    #[test]
    fn quiet_ssd_has_no_hints() {
        assert!(codes(&report(vec![dev("sda")])).is_empty());
    }

    #[test]
    fn usb_storage_says_one_command_not_also_qd1() {
        let mut d = dev("sdc");
        d.transport = Transport::UsbStorage;
        d.queue_depth = Some(1);
        let h = hints(&report(vec![d]));
        assert_eq!(h.iter().map(|h| h.code.as_str()).collect::<Vec<_>>(), ["usb-no-uas"]);
        assert!(h[0].message.contains("one command at a time"));
    }

    #[test]
    fn uas_is_not_flagged() {
        let mut d = dev("sdb");
        d.transport = Transport::UsbUas;
        assert!(codes(&report(vec![d])).is_empty());
    }

    #[test]
    fn queue_depth_one() {
        let mut d = dev("sda");
        d.queue_depth = Some(1);
        let h = hints(&report(vec![d]));
        assert_eq!(h[0].code, "queue-depth-1");
        assert!(h[0].message.contains("no command queueing"));
    }

    #[test]
    fn rotational_is_seek_bound() {
        let mut d = dev("sda");
        d.rotational = Some(true);
        let h = hints(&report(vec![d.clone()]));
        assert_eq!(h[0].code, "rotational");
        assert!(h[0].message.contains("seek-bound") && !h[0].message.contains("virtual"));
        d.transport = Transport::Virtio;
        assert!(hints(&report(vec![d]))[0].message.contains("virtual disks"));
    }

    #[test]
    fn volatile_cache_and_memory() {
        let mut d = dev("nvme0n1");
        d.volatile_write_cache = Some(true);
        let h = hints(&report(vec![d.clone()]));
        assert_eq!(h[0].code, "volatile-write-cache");
        assert!(h[0].message.contains("iolab flushes"));
        d.memory_backed = true;
        assert_eq!(codes(&report(vec![d])), ["memory-backed"]);
    }

    #[test]
    fn filesystem_rules() {
        let mut r = report(vec![]);
        let m = super::super::FsInfo {
            fstype: "btrfs".into(),
            mount_point: "/pool".into(),
            source: "/dev/sdd".into(),
            options: "rw,sync".into(),
            super_options: "rw,compress=zstd:3".into(),
            dev: (0, 45),
        };
        r.filesystem = Some(FsFacts::from_mount(&m));
        assert_eq!(codes(&r), ["fs-compresses", "fs-cow", "fs-sync"]);
        assert!(hints(&r)[0].message.contains("iolab always writes random"));
        assert!(hints(&r)[1].message.contains("rewrites fragment"));
    }

    #[test]
    fn loop_without_direct_io() {
        let mut r = report(vec![]);
        let info = LoopInfo {
            backing_file: "/img".into(),
            dio: Some(false),
            offset: 0,
            backing_filesystem: None,
        };
        let node = ChainNode {
            name: "loop0".into(),
            dev: "7:0".into(),
            kind: NodeKind::Loop,
            size_bytes: 0,
            dm_name: None,
            md_level: None,
            dm_uuid: None,
            lvm: None,
            dm_target: None,
            md: None,
            loop_info: Some(info),
            holders: vec![],
            physical: true,
            children: vec![],
        };
        r.chain = vec![node.clone()];
        assert_eq!(codes(&r), ["loop-buffered"]);
        assert!(hints(&r)[0].message.contains("page cache sits underneath"));
        r.chain[0].loop_info.as_mut().unwrap().dio = Some(true);
        assert!(codes(&r).is_empty());
    }

    #[test]
    fn throttle_in_mb_and_iops() {
        let t = Throttle {
            device: "loop3".into(),
            dev: "7:3".into(),
            cgroup: "/lab".into(),
            read_bps: Some(30_000_000),
            write_bps: None,
            read_iops: None,
            write_iops: Some(500),
            controller: "blkio".into(),
            issuer: None,
        };
        let h = throttled(&t);
        assert_eq!(h.code, "cgroup-throttle");
        assert_eq!(
            h.message,
            "loop3 is throttled for this process by blkio cgroup /lab: reads to 30.0 MB/s, writes to 500 IOPS."
        );
        let v2 = Throttle {
            controller: "io.max".into(),
            cgroup: "/user.slice/bench".into(),
            read_iops: Some(1000),
            write_iops: None,
            ..t
        };
        assert_eq!(
            throttled(&v2).message,
            "loop3 is throttled for this process by cgroup v2 io.max in /user.slice/bench: reads to 30.0 MB/s / 1000 IOPS."
        );
    }
}
