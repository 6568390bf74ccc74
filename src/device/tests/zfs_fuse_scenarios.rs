//! `describe` on zfs-fuse datasets (see [`super::fixtures::zfs_fuse_machine`]):
//! pools from captured `zpool status` outputs of zfs-fuse 0.7.0, their
//! members down to the loop devices, the daemon's caches and cgroup, the
//! hints, the views, and the members a job's cross-check watches.

use super::fixtures::{Fx, zfs_fuse_commands, zfs_fuse_machine};
use super::scenarios::has_row;
use crate::device::model::{DeviceReport, NodeKind};
use crate::device::report::{Stat, describe_stat};
use crate::device::zfs::{Commands, NoCommands, ZfsInfo};
use crate::render::{Document, Exporter, Text};
use std::path::Path;

fn dir(fx: &Fx, cmds: &dyn Commands, path: &str, dev: (u32, u32)) -> DeviceReport {
    describe_stat(&fx.root(), cmds, path, Path::new(path), Stat::Dir { dev })
}

fn codes(r: &DeviceReport) -> Vec<String> {
    r.hints.iter().map(|h| h.code.to_string()).collect()
}

fn hint<'a>(r: &'a DeviceReport, code: &str) -> &'a str {
    &r.hints
        .iter()
        .find(|h| h.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", codes(r)))
        .message
}

fn mc(fx: &Fx) -> DeviceReport {
    dir(fx, &zfs_fuse_commands(), "/zfsinfo-mc", (0, 40))
}

/// (name, class, kind, state, device) of every vdev, depth first.
fn flat(z: &ZfsInfo) -> Vec<(String, String, String, String, Option<String>)> {
    fn walk(v: &crate::device::Vdev, out: &mut Vec<(String, String, String, String, Option<String>)>) {
        out.push((v.name.clone(), v.class.clone(), v.kind.clone(), v.state.clone(), v.device.clone()));
        for c in &v.children {
            walk(c, out);
        }
    }
    let mut out = Vec::new();
    for v in &z.vdevs {
        walk(v, &mut out);
    }
    out
}

fn row(name: &str, class: &str, kind: &str, state: &str, dev: Option<&str>) -> (String, String, String, String, Option<String>) {
    (name.into(), class.into(), kind.into(), state.into(), dev.map(str::to_string))
}

#[test]
fn a_mirror_with_log_and_cache_down_to_its_loop_devices() {
    let fx = zfs_fuse_machine();
    let r = mc(&fx);
    let z = r.zfs.as_ref().expect("a ZFS report for a fuse.zfs mount");
    assert_eq!(
        (z.implementation.as_deref(), z.pool.as_str(), z.dataset.as_str(), z.source.as_str()),
        (Some("zfs-fuse"), "zfsinfo-mc", "zfsinfo-mc", "zpool status")
    );
    assert_eq!(
        (z.state.as_deref(), z.pool_version, z.version.as_deref()),
        (Some("ONLINE"), Some(23), None)
    );
    assert_eq!(
        flat(z),
        [
            row("mirror-0", "data", "mirror", "ONLINE", None),
            row("loop0", "data", "disk", "ONLINE", Some("loop0")),
            row("loop1", "data", "disk", "ONLINE", Some("loop1")),
            row("loop3", "logs", "disk", "ONLINE", Some("loop3")),
            row("loop2", "cache", "disk", "ONLINE", Some("loop2")),
        ]
    );
    // ashift from the label (zdb -l /dev/loop0), the properties without sync.
    assert_eq!((z.vdevs[0].ashift, z.ashift), (Some(12), Some(12)));
    let p = z.dataset_properties.as_ref().unwrap();
    assert_eq!(
        (
            p.recordsize_bytes,
            p.compression.as_deref(),
            p.sync.as_deref(),
            p.primarycache.as_deref(),
            p.atime.as_deref(),
            p.logbias.as_deref(),
            p.copies
        ),
        (Some(131072), Some("off"), None, Some("all"), Some("on"), Some("latency"), Some(1))
    );
    assert_eq!(z.compression, None);
    assert_eq!((z.arc_size_bytes, z.arc_max_bytes), (Some(22044672), Some(104857600)));
    assert_eq!(z.direct_io_ignored, Some(true));
    // The daemon: not the zombie; Debian's zfsrc then its command line.
    let d = z.daemon.as_ref().unwrap();
    assert_eq!(d.pid, 4242);
    assert_eq!(d.args, ["--pidfile", "/var/run/zfs-fuse.pid"]);
    assert_eq!(
        (d.block_cache, d.max_arc_size_bytes, d.vdev_cache_bytes, d.prefetch),
        (true, Some(100 << 20), 10 << 20, false)
    );
    assert_eq!(
        d.caching_zfsrc(),
        ["vdev-cache-size = 10", "max-arc-size = 100", "zfs-prefetch-disable"]
    );
    let mut leaves = Vec::new();
    for v in &z.vdevs {
        v.leaves(&mut leaves);
    }
    // Block devices: opened with O_DIRECT whatever the daemon's settings.
    assert!(leaves.iter().all(|l| l.page_cache == Some(false)), "{leaves:?}");
    // The chain: every member, a loop device over its file; each one's facts.
    let tops: Vec<(&str, NodeKind)> = r.chain.iter().map(|n| (n.name.as_str(), n.kind)).collect();
    assert_eq!(
        tops,
        [
            ("loop0", NodeKind::Loop),
            ("loop1", NodeKind::Loop),
            ("loop3", NodeKind::Loop),
            ("loop2", NodeKind::Loop)
        ]
    );
    assert_eq!(r.chain[0].loop_info.as_ref().unwrap().backing_file, "/dev/shm/zfsinfo-m0.img");
    let devices: Vec<&str> = r.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(devices, ["loop0", "loop1", "loop3", "loop2"]);
    assert!(r.devices.iter().all(|d| d.transport == crate::device::Transport::Loop));
    let l = r.layout.as_ref().unwrap();
    assert_eq!(
        (l.by.as_str(), l.profile.as_str(), l.members, l.groups),
        ("zfs", "mirror", 2, Some(1))
    );
    assert_eq!(r.membership("loop3"), Some(("zfsinfo-mc logs".to_string(), "ONLINE".to_string())));
    assert!(r.filesystem.as_ref().unwrap().cow);
}

#[test]
fn the_limits_are_the_daemons_cgroups_not_iolabs() {
    let fx = zfs_fuse_machine();
    let r = mc(&fx);
    type Row<'a> = (&'a str, &'a str, Option<u64>, Option<u64>, Option<&'a str>);
    let t: Vec<Row> = r
        .throttles
        .iter()
        .map(|t| (t.device.as_str(), t.cgroup.as_str(), t.read_bps, t.write_bps, t.issuer.as_deref()))
        .collect();
    // iolab's own /lab limits loop0 to 1 MiB/s: that limit is not on the daemon's I/O.
    assert_eq!(
        t,
        [
            ("loop0", "/zfsd", Some(20971520), Some(20971520), Some("zfs-fuse (pid 4242)")),
            ("loop1", "/zfsd", Some(20971520), Some(20971520), Some("zfs-fuse (pid 4242)")),
        ]
    );
    assert_eq!(
        hint(&r, "cgroup-throttle"),
        "loop0 is throttled for zfs-fuse (pid 4242), which issues its I/O, by blkio cgroup /zfsd: reads to 21.0 MB/s, writes to 21.0 MB/s."
    );
    // On a filesystem that is not zfs-fuse's, iolab's cgroup is the one.
    fx.mount("49 27 7:4 / /mnt/other rw - ext4 /dev/loop4 rw");
    let other = describe_stat(
        &fx.root(),
        &NoCommands,
        "/mnt/other",
        Path::new("/mnt/other"),
        Stat::Dir { dev: (7, 4) },
    );
    assert!(other.throttles.is_empty(), "{:?}", other.throttles);
    fx.file("sys/fs/cgroup/blkio/lab/blkio.throttle.read_bps_device", "7:4 1048576\n");
    let other = describe_stat(
        &fx.root(),
        &NoCommands,
        "/mnt/other",
        Path::new("/mnt/other"),
        Stat::Dir { dev: (7, 4) },
    );
    assert_eq!(
        (other.throttles[0].cgroup.as_str(), other.throttles[0].issuer.as_deref()),
        ("/lab", None)
    );
}

#[test]
fn hints_name_the_arc_and_the_page_cache_above_it() {
    let fx = zfs_fuse_machine();
    let r = mc(&fx);
    assert_eq!(
        hint(&r, "zfs-direct-ignored"),
        "zfs-fuse accepts O_DIRECT and serves it through its ARC: reads can come from the ARC (now 21.02 MiB, up to 100.00 MiB) at memory speed, not from the pool's disks; test a span well over the ARC's maximum, or export and import the pool to empty the ARC (dropping the kernel's caches does not)."
    );
    assert_eq!(
        hint(&r, "zfs-fuse-page-cache"),
        "zfs-fuse (pid 4242) runs without disable-block-cache: the kernel caches the files of its datasets, so reads without O_DIRECT (buffered jobs, `iolab time`, the app suites) can come from RAM without reaching ZFS; dropping the kernel's caches (drop_caches) empties that cache, not the ARC under it. O_DIRECT reads skip it and go to the ARC."
    );
    let c = codes(&r);
    assert!(
        !c.iter()
            .any(|c| ["zfs-member-page-cache", "zfs-sync", "zfs-primarycache", "fs-compresses"].contains(&c.as_str())),
        "{c:?}"
    );
    // Started with --disable-block-cache: the kernel does not cache its files.
    fx.bytes("proc/4242/cmdline", b"zfs-fuse\0-n\0--disable-block-cache\0");
    let r = mc(&fx);
    let z = r.zfs.as_ref().unwrap();
    assert!(!z.daemon.as_ref().unwrap().block_cache);
    assert!(!codes(&r).contains(&"zfs-fuse-page-cache".to_string()), "{:?}", codes(&r));
    assert!(codes(&r).contains(&"zfs-direct-ignored".to_string()));
}

#[test]
fn a_tuned_child_dataset_gzip_8k_records_metadata_only() {
    let fx = zfs_fuse_machine();
    let r = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-mc/tuned", (0, 44));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!((z.pool.as_str(), z.dataset.as_str()), ("zfsinfo-mc", "zfsinfo-mc/tuned"));
    // The pool's members, whichever dataset.
    assert_eq!(r.devices.len(), 4);
    let p = z.dataset_properties.as_ref().unwrap();
    assert_eq!(
        (
            p.recordsize_bytes,
            p.compression.as_deref(),
            p.primarycache.as_deref(),
            p.atime.as_deref()
        ),
        (Some(8192), Some("gzip"), Some("metadata"), Some("off"))
    );
    assert_eq!(r.filesystem.as_ref().unwrap().compression.as_deref(), Some("gzip"));
    assert_eq!(
        hint(&r, "fs-compresses"),
        "fuse.zfs compresses what it writes (gzip): measure with random data only. iolab always writes random, incompressible data, so its figures are for data that does not compress. ZFS stores a record compressed only when that saves at least an eighth of it: incompressible data is stored as it is, after the CPU time spent trying. zfs-fuse compresses in its daemon, in user space: with gzip, writes can be bound by the daemon's CPU rather than by the disks."
    );
    assert_eq!(
        hint(&r, "zfs-primarycache"),
        "zfsinfo-mc/tuned has primarycache=metadata: the ARC keeps only metadata, so every read of file data goes to the disks, and a read smaller than a record reads the whole record (recordsize 8.00 KiB: a 4 KiB random read moves 8.00 KiB from the disks, 2x)."
    );
}

#[test]
fn raidz1_with_a_spare_and_a_degraded_3_way_mirror() {
    let fx = zfs_fuse_machine();
    let r = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-rz", (0, 41));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!(
        flat(z),
        [
            row("raidz1-0", "data", "raidz1", "ONLINE", None),
            row("loop8", "data", "disk", "ONLINE", Some("loop8")),
            row("loop9", "data", "disk", "ONLINE", Some("loop9")),
            row("loop10", "data", "disk", "ONLINE", Some("loop10")),
            row("loop4", "spares", "disk", "AVAIL", Some("loop4")),
        ]
    );
    let l = r.layout.as_ref().unwrap();
    assert_eq!((l.profile.as_str(), l.members), ("raidz1", 3));
    // Not asked: no version, no properties, no ashift (the captures do not have them).
    assert_eq!((z.pool_version, z.ashift, z.dataset_properties.is_none()), (None, None, true));
    assert!(!codes(&r).contains(&"degraded".to_string()));

    let r = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-m3", (0, 42));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!((z.state.as_deref(), z.layout.as_deref()), (Some("DEGRADED"), Some("mirror")));
    assert_eq!(z.vdevs[0].children[2].state, "OFFLINE");
    assert!(
        hint(&r, "degraded").starts_with("pool zfsinfo-m3 is DEGRADED (loop13 OFFLINE)"),
        "{}",
        hint(&r, "degraded")
    );
    assert_eq!(r.layout.as_ref().unwrap().members, 3);
}

#[test]
fn a_file_vdev_is_a_file_through_the_page_cache() {
    let fx = zfs_fuse_machine();
    let r = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-fv", (0, 43));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!(flat(z), [row("shm/zfsinfo-file.img", "data", "file", "ONLINE", None)]);
    assert_eq!(z.vdevs[0].page_cache, Some(true));
    assert!(r.chain.is_empty());
    assert_eq!(
        hint(&r, "zfs-member-page-cache"),
        "zfs-fuse (pid 4242) has /dev/shm/zfsinfo-file.img open without O_DIRECT, so its I/O goes through the kernel's page cache: reads can come from RAM under the ARC, and writes wait there until ZFS flushes them; dropping the kernel's caches (drop_caches) empties that cache, not the ARC."
    );
    // With disable-block-cache too (as seen: no O_DIRECT on a file vdev).
    fx.bytes("proc/4242/cmdline", b"zfs-fuse\0--disable-block-cache\0");
    let r = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-fv", (0, 43));
    assert!(codes(&r).contains(&"zfs-member-page-cache".to_string()));
    // No block device to watch: a job keeps `no_block_device`.
    assert_eq!(
        crate::device::served(&fx.root(), Vec::new(), Some(&r)),
        crate::device::Served::default()
    );
}

#[test]
fn without_an_answer_from_zpool_nothing_is_guessed() {
    let fx = zfs_fuse_machine();
    let r = dir(&fx, &NoCommands, "/zfsinfo-mc", (0, 40));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!((z.source.as_str(), z.state.as_deref()), ("none", None));
    assert!(z.vdevs.is_empty() && r.chain.is_empty() && z.dataset_properties.is_none());
    // The kstats are the daemon's: not read when it did not answer `zpool`.
    assert_eq!((z.arc_size_bytes, z.arc_max_bytes), (None, None));
    let text = Text::default().export(Document::Device(&r)).unwrap();
    assert!(
        text.contains("ZFS vdevs unknown: zpool did not answer (is the zfs-fuse daemon running?)"),
        "{text}"
    );
}

#[test]
fn a_job_on_zfs_fuse_watches_its_loop_members() {
    let fx = zfs_fuse_machine();
    let root = fx.root();
    let r = mc(&fx);
    let s = crate::device::served(&root, Vec::new(), Some(&r));
    let names: Vec<&str> = s.devices.iter().map(|d| d.name.as_str()).collect();
    // The data members only: not the log or the cache device.
    assert_eq!(names, ["loop0", "loop1"]);
    assert_eq!(s.zfs_pool.as_deref(), Some("zfsinfo-mc"));
    let rz = dir(&fx, &zfs_fuse_commands(), "/zfsinfo-rz", (0, 41));
    let names: Vec<String> = crate::device::served(&root, Vec::new(), Some(&rz))
        .devices
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, ["loop8", "loop9", "loop10"]);
}

#[test]
fn the_view_shows_pool_dataset_arc_and_daemon() {
    let fx = zfs_fuse_machine();
    let r = mc(&fx);
    let text = Text::default().export(Document::Device(&r)).unwrap();
    for cells in [
        &["ZFS", "pool zfsinfo-mc (ONLINE), dataset zfsinfo-mc, zfs-fuse (pool version 23)"][..],
        &[
            "Dataset",
            "recordsize 128.00 KiB, compression off, primarycache all, atime on, logbias latency, copies 1, ashift 12 (4.00 KiB blocks)",
        ],
        &[
            "ARC",
            "21.02 MiB of up to 100.00 MiB; O_DIRECT served through the ARC (reads can come from it)",
        ],
        &[
            "zfs-fuse",
            "pid 4242; files cached by the kernel (no disable-block-cache); max-arc-size 100.00 MiB; vdev cache 10.00 MiB per member; prefetch off",
        ],
        &[
            "Settings",
            "command line --pidfile /var/run/zfs-fuse.pid, after /etc/zfs/zfsrc vdev-cache-size = 10; max-arc-size = 100; zfs-prefetch-disable",
        ],
        &["mirror-0", "data", "mirror", "ONLINE", "ashift 12"],
        &["├─\u{a0}loop0", "data", "disk", "ONLINE", "O_DIRECT"],
        &["loop2", "cache", "disk", "ONLINE", "O_DIRECT"],
    ] {
        assert!(has_row(&text, cells), "no row {cells:?} in\n{text}");
    }
    assert!(text.contains("ZFS vdevs (zpool status)\n"), "{text}");
    // A daemon started bare: its settings are zfsrc's.
    fx.bytes("proc/4242/cmdline", b"zfs-fuse\0");
    let bare = Text::default().export(Document::Device(&mc(&fx))).unwrap();
    assert!(
        has_row(
            &bare,
            &[
                "Settings",
                "no options on its command line, after /etc/zfs/zfsrc vdev-cache-size = 10; max-arc-size = 100; zfs-prefetch-disable"
            ]
        ),
        "{bare}"
    );
    assert!(
        text.contains("loop0 (7:0): reads 21.0 MB/s, writes 21.0 MB/s [blkio cgroup /zfsd, of zfs-fuse (pid 4242)]"),
        "{text}"
    );
    // The document keeps it all, and reads back.
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["zfs"]["implementation"], "zfs-fuse");
    assert_eq!(v["zfs"]["daemon"]["block_cache"], true);
    assert_eq!(v["zfs"]["vdevs"][0]["children"][0]["page_cache"], false);
    assert_eq!(v["throttles"][0]["issuer"], "zfs-fuse (pid 4242)");
    let back: DeviceReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
}

#[test]
fn a_zfs_document_from_before_loads() {
    // iolab 0.1's ZFS object: none of the new fields.
    let old = serde_json::json!({
        "pool": "tank", "dataset": "tank/data", "state": "ONLINE", "source": "zpool status",
        "vdevs": [{"name": "/dev/sda1", "kind": "disk", "class": "data", "state": "ONLINE", "device": "sda1"}],
        "layout": "stripe", "compression": null, "arc_size_bytes": 1, "arc_max_bytes": 2,
        "version": "2.1.5", "direct_io_ignored": true
    });
    let z: ZfsInfo = serde_json::from_value(old).unwrap();
    assert_eq!(
        (z.implementation, z.dataset_properties, z.daemon, z.ashift),
        (None, None, None, None)
    );
    assert_eq!(z.vdevs[0].page_cache, None);
}
