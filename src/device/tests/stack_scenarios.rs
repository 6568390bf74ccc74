//! `describe` on the stacks this kernel cannot build (see
//! [`super::fixtures::stacks`]): ZFS pools from captured `zpool status -P`
//! and `zfs get` outputs or, without the commands, from kstat alone; LVM
//! logical volumes over disks and over an md array; a degraded md raid1;
//! cgroup v2 limits. The views show all of it.

use super::fixtures::{Captured, Fx, stack_commands, stacks};
use super::scenarios::has_row;
use crate::device::model::{DeviceReport, NodeKind};
use crate::device::report::{Stat, describe_stat};
use crate::device::zfs::{Commands, NoCommands};
use crate::render::{Csv, Document, Exporter, Markdown, Text};
use std::path::Path;

fn dir(fx: &Fx, cmds: &dyn Commands, path: &str, dev: (u32, u32)) -> DeviceReport {
    describe_stat(&fx.root(), cmds, path, Path::new(path), Stat::Dir { dev })
}

fn codes(r: &DeviceReport) -> Vec<String> {
    r.hints.iter().map(|h| h.code.to_string()).collect()
}

/// `iolab info`'s views of `r`: the terminal's, Markdown, CSV.
fn render_info(r: &DeviceReport) -> String {
    Text::default().export(Document::Device(r)).unwrap()
}

fn markdown(r: &DeviceReport) -> String {
    Markdown(crate::base::units::BwUnit::Mb).export(Document::Device(r)).unwrap()
}

fn csv(r: &DeviceReport) -> String {
    Csv.export(Document::Device(r)).unwrap()
}

#[test]
fn zfs_raidz2_pool_from_zpool_status() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/tank/data", (0, 52));
    let z = r.zfs.as_ref().expect("a ZFS report");
    assert_eq!(
        (z.pool.as_str(), z.dataset.as_str(), z.source.as_str()),
        ("tank", "tank/data", "zpool status")
    );
    assert_eq!(z.state.as_deref(), Some("DEGRADED"));
    let classes: Vec<(&str, &str, &str)> = z
        .vdevs
        .iter()
        .map(|v| (v.name.as_str(), v.kind.as_str(), v.class.as_str()))
        .collect();
    assert_eq!(
        classes,
        [
            ("raidz2-0", "raidz2", "data"),
            ("/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456-part2", "disk", "logs"),
            ("/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456-part3", "disk", "cache"),
            ("/dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-CA0M7-part1", "disk", "spares"),
        ]
    );
    let raidz = &z.vdevs[0];
    let members: Vec<(Option<&str>, &str)> = raidz.children.iter().map(|c| (c.device.as_deref(), c.state.as_str())).collect();
    assert_eq!(
        members,
        [
            (Some("sdg1"), "ONLINE"),
            (Some("sdh1"), "ONLINE"),
            (Some("sdi1"), "ONLINE"),
            (Some("sdj1"), "ONLINE"),
            (Some("sdk1"), "ONLINE"),
            (Some("sdl1"), "FAULTED")
        ]
    );
    assert_eq!(z.vdevs[3].state, "AVAIL");
    assert_eq!(z.layout.as_deref(), Some("raidz2"));
    assert_eq!((z.arc_size_bytes, z.arc_max_bytes), (Some(3 << 30), Some(8233222144)));
    assert_eq!(
        (z.version.as_deref(), z.direct_io_ignored),
        (Some("2.1.5-1ubuntu6~22.04.1"), Some(true))
    );
    // The chain: every member partition down to its disk; the physical devices: the disks.
    let tops: Vec<&str> = r.chain.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        tops,
        ["sdg1", "sdh1", "sdi1", "sdj1", "sdk1", "sdl1", "nvme0n1p2", "nvme0n1p3", "sdm1"]
    );
    assert_eq!(r.chain[0].children[0].name, "sdg");
    let disks: Vec<&str> = r.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(disks, ["sdg", "sdh", "sdi", "sdj", "sdk", "sdl", "nvme0n1", "sdm"]);
    // Compression from `zfs get`, copy-on-write from the type.
    let fs = r.filesystem.as_ref().unwrap();
    assert_eq!((fs.compression.as_deref(), fs.compress, fs.cow), (Some("lz4"), true, true));
    let l = r.layout.as_ref().unwrap();
    assert_eq!(
        (l.by.as_str(), l.profile.as_str(), l.members, l.groups),
        ("zfs", "raidz2", 6, Some(1))
    );
    assert_eq!(
        codes(&r),
        [
            "fs-compresses",
            "fs-cow",
            "rotational",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "volatile-write-cache",
            "rotational",
            "volatile-write-cache",
            "zfs-direct-ignored",
            "degraded"
        ]
    );
    let direct = r.hints.iter().find(|h| h.code == "zfs-direct-ignored").unwrap();
    assert_eq!(
        direct.message,
        "OpenZFS 2.1.5-1ubuntu6~22.04.1 ignores O_DIRECT (Direct I/O came in 2.3): reads can come from the ARC (now 3.00 GiB, up to 7.67 GiB) at memory speed, not from the pool's disks; test a span well over the ARC's maximum, or use OpenZFS 2.3 or later with direct=standard."
    );
    let degraded = r.hints.iter().find(|h| h.code == "degraded").unwrap();
    assert!(
        degraded.message.starts_with("pool tank is DEGRADED (sdl1 FAULTED)"),
        "{}",
        degraded.message
    );
}

#[test]
fn zfs_mirrors_feed_the_layout_logic() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/fast", (0, 53));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!(z.layout.as_deref(), Some("mirror"));
    assert_eq!(z.compression, None, "compression=off");
    assert!(r.filesystem.as_ref().unwrap().compression.is_none());
    let l = r.layout.as_ref().unwrap();
    assert_eq!((l.profile.as_str(), l.members, l.groups), ("mirror", 4, Some(2)));
    // Two 2-way mirrors striped: a RAID10 of two copies, for the scale verdicts.
    assert_eq!(
        crate::experiment::scale::layout_of(l),
        (crate::judge::scale::Layout::Raid10, Some(2))
    );
    assert!(!codes(&r).contains(&"degraded".to_string()));
}

#[test]
fn zfs_without_the_commands_falls_back_to_kstat() {
    let fx = stacks();
    let r = dir(&fx, &NoCommands, "/tank/data", (0, 52));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!((z.source.as_str(), z.state.as_deref()), ("kstat", Some("DEGRADED")));
    assert!(z.vdevs.is_empty() && z.layout.is_none() && z.compression.is_none());
    assert_eq!(z.arc_max_bytes, Some(8233222144));
    assert!(r.chain.is_empty() && r.layout.is_none());
    assert!(codes(&r).contains(&"zfs-direct-ignored".to_string()));
    let text = render_info(&r);
    assert!(
        text.lines()
            .any(|l| l.starts_with("│ ZFS ") && l.contains("┆ pool tank (DEGRADED), dataset tank/data")),
        "{text}"
    );
    assert!(text.contains("ZFS vdevs unknown: zpool did not run"), "{text}");
}

#[test]
fn zfs_2_3_honours_o_direct_unless_disabled() {
    let fx = stacks();
    fx.file("sys/module/zfs/version", "2.3.1-1\n");
    let on = Captured::new()
        .file("zpool status -P fast", "zpool-status-P-fast-mirrors.txt")
        .file("zfs get -H -p -o value compression fast", "zfs-get-compression-fast.txt");
    let r = dir(&fx, &on, "/fast", (0, 53));
    assert_eq!(r.zfs.as_ref().unwrap().direct_io_ignored, Some(false));
    assert!(!codes(&r).contains(&"zfs-direct-ignored".to_string()));
    // `direct=disabled` (asked only from 2.3 on): ignored again.
    struct Disabled(Captured);
    impl Commands for Disabled {
        fn run(&self, program: &str, args: &[&str]) -> Option<String> {
            if args.contains(&"direct") {
                return Some("disabled\n".into());
            }
            self.0.run(program, args)
        }
    }
    let r = dir(&fx, &Disabled(on), "/fast", (0, 53));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!((z.direct.as_deref(), z.direct_io_ignored), (Some("disabled"), Some(true)));
    let h = r.hints.iter().find(|h| h.code == "zfs-direct-ignored").unwrap();
    assert!(
        h.message.starts_with("fast has direct=disabled: ZFS ignores O_DIRECT"),
        "{}",
        h.message
    );
}

#[test]
fn lvm_striped_volume_down_to_its_disks() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/srv/lvm", (253, 1));
    let lv = &r.chain[0];
    assert_eq!((lv.name.as_str(), lv.kind), ("dm-1", NodeKind::Dm));
    assert_eq!(lv.lvm.as_deref(), Some("vg0/lv-data"));
    assert!(lv.dm_uuid.as_deref().unwrap().starts_with("LVM-"));
    assert_eq!(lv.dm_target.as_deref(), Some("striped"));
    let pvs: Vec<&str> = lv.children.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(pvs, ["vdd", "vde"]);
    assert_eq!(r.devices.len(), 2);
    let l = r.layout.as_ref().unwrap();
    assert_eq!((l.by.as_str(), l.profile.as_str(), l.members), ("lvm", "striped", 2));
    assert_eq!(crate::experiment::scale::layout_of(l), (crate::judge::scale::Layout::Raid0, None));
    // Without dmsetup (not root), the chain is the same and the layout is not guessed.
    let r = dir(&fx, &NoCommands, "/srv/lvm", (253, 1));
    assert_eq!(r.chain[0].dm_target, None);
    assert_eq!(r.layout.as_ref().map(|l| l.profile.as_str()), Some("unknown"));
}

#[test]
fn lvm_over_a_degraded_md_raid1() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/home", (253, 2));
    let lv = &r.chain[0];
    assert_eq!((lv.lvm.as_deref(), lv.dm_target.as_deref()), (Some("vg1/home"), Some("linear")));
    let md = &lv.children[0];
    assert_eq!(
        (md.name.as_str(), md.kind, md.md_level.as_deref()),
        ("md0", NodeKind::Md, Some("raid1"))
    );
    let info = md.md.as_ref().unwrap();
    assert_eq!(
        (info.raid_disks, info.degraded, info.array_state.as_deref()),
        (Some(2), Some(1), Some("clean"))
    );
    let states: Vec<(&str, Option<&str>, &str)> = info
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.slot.as_deref(), m.state.as_str()))
        .collect();
    assert_eq!(states, [("vdb1", Some("0"), "in_sync"), ("vdc1", Some("none"), "faulty")]);
    // LV → PV (md0) → partitions → disks.
    assert_eq!(md.children[0].name, "vdb1");
    assert_eq!(md.children[0].children[0].name, "vdb");
    let disks: Vec<&str> = r.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(disks, ["vdb", "vdc"]);
    // A linear LV on one PV spreads nothing: the layout is the md array's under it.
    let l = r.layout.as_ref().unwrap();
    assert_eq!((l.by.as_str(), l.profile.as_str(), l.members), ("md", "raid1", 2));
    assert_eq!(
        crate::experiment::scale::layout_of(l),
        (crate::judge::scale::Layout::Raid1, Some(2))
    );
    let h = r.hints.iter().find(|h| h.code == "degraded").expect("md0 is degraded");
    assert_eq!(
        h.message,
        "md0 (raid1) is degraded: 1 of 2 members missing (vdc1 faulty); figures are those of the degraded array, not of the whole layout."
    );
    // The md array itself as the target: its level is the layout.
    let b = describe_stat(
        &fx.root(),
        &NoCommands,
        "/dev/md0",
        Path::new("/dev/md0"),
        Stat::Block { rdev: (9, 0) },
    );
    let l = b.layout.as_ref().unwrap();
    assert_eq!((l.by.as_str(), l.profile.as_str(), l.members), ("md", "raid1", 2));
}

#[test]
fn views_show_the_stacks() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/tank/data", (0, 52));
    let text = render_info(&r);
    assert!(
        has_row(
            &text,
            &[
                "ZFS",
                "pool tank (DEGRADED), dataset tank/data, compression lz4, OpenZFS 2.1.5-1ubuntu6~22.04.1"
            ]
        ),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("│ ARC ") && l.contains("┆ 3.00 GiB of up to 7.67 GiB; O_DIRECT ignored")),
        "{text}"
    );
    assert!(has_row(&text, &["Layout", "zfs raidz2 over 6 devices"]), "{text}");
    assert!(has_row(&text, &["raidz2-0", "data", "raidz2", "DEGRADED"]), "{text}");
    assert!(
        has_row(
            &text,
            &[
                "└─\u{a0}sdl1 (/dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-CA0L6-part1)",
                "data",
                "disk",
                "FAULTED"
            ]
        ),
        "{text}"
    );
    assert!(
        has_row(
            &text,
            &[
                "nvme0n1p2 (/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456-part2)",
                "logs"
            ]
        ),
        "{text}"
    );
    let md = markdown(&r);
    assert!(md.contains("| ZFS | pool `tank` (DEGRADED), dataset `tank/data`"), "{md}");
    assert!(md.contains("| raidz2-0 | data | raidz2 | DEGRADED |"), "{md}");
    let c = csv(&r);
    let head = c.lines().next().unwrap();
    assert!(head.ends_with(",layout,member_of,member_state"), "{head}");
    assert!(
        c.lines()
            .any(|l| l.starts_with("/tank/data,") && l.contains(",sdl,") && l.ends_with(",zfs raidz2,tank raidz2-0,FAULTED")),
        "{c}"
    );
    let home = dir(&fx, &stack_commands(), "/home", (253, 2));
    let text = render_info(&home);
    assert!(text.contains("dm-2") && text.contains("LVM vg1/home (linear)"), "{text}");
    assert!(
        text.contains("md0") && text.contains("raid1, 1 of 2 missing: vdb1 in_sync, vdc1 faulty"),
        "{text}"
    );
    let c = csv(&home);
    assert!(c.lines().any(|l| l.contains(",vdc,") && l.ends_with(",md raid1,md0,faulty")), "{c}");
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["zfs"]["vdevs"][0]["children"][5]["state"], "FAULTED");
    assert_eq!(v["layout"]["groups"], 1);
    let v = serde_json::to_value(&home).unwrap();
    assert_eq!(v["chain"][0]["lvm"], "vg1/home");
    assert_eq!(v["chain"][0]["children"][0]["md"]["members"][1]["state"], "faulty");
}

#[test]
fn a_job_on_zfs_watches_the_pools_member_disks() {
    let fx = stacks();
    let root = fx.root();
    // No block device of its own: the chain of a zfs mount is empty.
    let r = dir(&fx, &stack_commands(), "/fast", (0, 53));
    let s = crate::device::served(&root, Vec::new(), Some(&r));
    let names: Vec<&str> = s.devices.iter().map(|d| d.name.as_str()).collect();
    // The leaves are partitions (vdf1..vdi1): folded into their disks.
    assert_eq!(names, ["vdf", "vdg", "vdh", "vdi"]);
    assert!(s.devices.iter().all(|d| d.partition_of.is_none() && d.logical_block_size == 512));
    assert_eq!(s.zfs_pool.as_deref(), Some("fast"));
    // raidz2: the six data disks (the faulted one too); not the log, cache or spare.
    let t = dir(&fx, &stack_commands(), "/tank/data", (0, 52));
    let tank = crate::device::served(&root, Vec::new(), Some(&t));
    let names: Vec<&str> = tank.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["sdg", "sdh", "sdi", "sdj", "sdk", "sdl"]);
    // Without `zpool`: no members, no pool, and the job keeps `no_block_device`.
    let k = dir(&fx, &NoCommands, "/tank/data", (0, 52));
    assert_eq!(crate::device::served(&root, Vec::new(), Some(&k)), crate::device::Served::default());
    // A chain, when there is one, is kept as it is.
    let chain = vec![crate::device::block_dev(&root, 254, 80).unwrap()];
    assert_eq!(crate::device::served(&root, chain.clone(), Some(&r)).devices, chain);

    // The cross-check over two diskstats readings of the members, as a job's run takes them.
    let names: Vec<String> = s.devices.iter().map(|d| d.name.clone()).collect();
    let stats = |sectors: [(u64, u64); 4]| {
        let mut text = String::new();
        for (i, (n, (rd, wr))) in ["vdf", "vdg", "vdh", "vdi"].iter().zip(sectors).enumerate() {
            let minor = 80 + 16 * i as u32;
            // The disk and its partition 1 (which the disk's counters include).
            for (m, name) in [(minor, n.to_string()), (minor + 1, format!("{n}1"))] {
                text.push_str(&format!("254 {m} {name} {} 0 {rd} 10 {} 0 {wr} 10 0 20 20\n", rd / 8, wr / 8));
            }
        }
        fx.file("proc/diskstats", &text);
        crate::device::diskstats(&root)
    };
    let run = |job_r: u64, job_w: u64, after: [(u64, u64); 4]| {
        let before = stats([(1000, 1000); 4]);
        let later = stats(after.map(|(r, w)| (1000 + r, 1000 + w)));
        let mut r = crate::samples::RunSamples {
            devices: crate::device::delta(&before, &later, &names),
            ..Default::default()
        };
        r.read.all_bytes = job_r;
        r.write.all_bytes = job_w;
        let d = crate::summary::job::device_report(&[r], s.zfs_pool.as_deref()).unwrap();
        crate::summary::cross_check(&d)
            .iter()
            .map(|w| w.code.to_string())
            .collect::<Vec<_>>()
    };
    const GIB: u64 = 1 << 30;
    const SECTORS_PER_GIB: u64 = GIB / 512;
    // The job read 1 GiB and wrote 1 GiB; the members moved nothing: the ARC.
    assert_eq!(run(GIB, GIB, [(0, 0); 4]), ["cache_answered", "cache_answered"]);
    // The members read 1 GiB between them (a mirror reads each block from one
    // side) and wrote it twice (each mirror's two members): the disks did it.
    let half = SECTORS_PER_GIB / 2;
    assert!(run(GIB, GIB, [(half, half), (0, half), (half / 2, half), (half / 2, half)]).is_empty());
}

/// Every view of every fixture stack (text, Markdown, CSV) names its layout
/// and each physical disk under it, in the CSV one row per disk with that
/// layout.
#[test]
fn every_view_names_each_stacks_layout_and_disks() {
    let fx = stacks();
    for (p, dev, layout, disks) in [
        (
            "/tank/data",
            (0, 52),
            "zfs raidz2 over 6 devices",
            // The raidz2's six, the log and cache device, the spare.
            &["sdg", "sdh", "sdi", "sdj", "sdk", "sdl", "nvme0n1", "sdm"][..],
        ),
        (
            "/fast",
            (0, 53),
            "zfs mirror over 4 devices in 2 groups",
            &["vdf", "vdg", "vdh", "vdi"],
        ),
        ("/home", (253, 2), "md raid1 over 2 devices", &["vdb", "vdc"]),
        ("/srv/lvm", (253, 1), "lvm striped over 2 devices", &["vdd", "vde"]),
    ] {
        let r = dir(&fx, &stack_commands(), p, dev);
        let (text, md, c) = (render_info(&r), markdown(&r), csv(&r));
        assert!(has_row(&text, &["Layout", layout]), "{p}: {text}");
        assert!(md.contains(&format!("| Layout | {layout} |")), "{p}: {md}");
        let short = layout.split(" over ").next().unwrap();
        let mut lines = c.lines();
        let head: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        for d in disks {
            assert!(text.contains(&format!("\n{d} (/sys/devices/")), "{p}: no {d} in\n{text}");
            assert!(md.contains(&format!("\n| {d} | ")), "{p}: no {d} in\n{md}");
            assert!(
                rows.iter()
                    .any(|r| r[col("target")] == p && r[col("device")] == *d && r[col("layout")] == short),
                "{p}: no row for {d} with layout {short:?} in\n{c}"
            );
        }
        assert_eq!(rows.len(), disks.len(), "{p}: one CSV row per physical disk\n{c}");
    }
}

#[test]
fn openzfs_properties_ashift_and_the_hints_they_give() {
    let fx = stacks();
    let r = dir(&fx, &stack_commands(), "/tank/data", (0, 52));
    let z = r.zfs.as_ref().unwrap();
    assert_eq!(z.implementation.as_deref(), Some("openzfs"));
    let p = z.dataset_properties.as_ref().unwrap();
    assert_eq!(
        (
            p.recordsize_bytes,
            p.compression.as_deref(),
            p.sync.as_deref(),
            p.primarycache.as_deref(),
            p.atime.as_deref()
        ),
        (Some(1 << 20), Some("lz4"), Some("standard"), Some("all"), Some("off"))
    );
    // From the first member's label; the log, cache and spare are not asked.
    assert_eq!((z.vdevs[0].ashift, z.ashift, z.vdevs[1].ashift), (Some(12), Some(12), None));
    assert_eq!((z.daemon.as_ref(), z.pool_version), (None, None));
    assert!(z.leaves().iter().all(|l| l.page_cache.is_none()));
    // OpenZFS's compression hint has no zfs-fuse sentence.
    let c = r.hints.iter().find(|h| h.code == "fs-compresses").unwrap();
    assert!(c.message.ends_with("after the CPU time spent trying."), "{}", c.message);
    let text = render_info(&r);
    assert!(
        has_row(
            &text,
            &[
                "Dataset",
                "recordsize 1.00 MiB, compression lz4, sync standard, primarycache all, atime off, logbias latency, copies 1, ashift 12 (4.00 KiB blocks)"
            ]
        ),
        "{text}"
    );
    assert!(has_row(&text, &["raidz2-0", "data", "raidz2", "DEGRADED", "ashift 12"]), "{text}");
    // sync=disabled and primarycache=metadata, as another dataset would have them.
    struct Tuned(Captured);
    impl Commands for Tuned {
        fn run(&self, program: &str, args: &[&str]) -> Option<String> {
            let out = self.0.run(program, args)?;
            Some(if args.contains(&"property,value") {
                out.replace("sync\tstandard", "sync\tdisabled")
                    .replace("primarycache\tall", "primarycache\tmetadata")
            } else {
                out
            })
        }
    }
    let r = dir(&fx, &Tuned(stack_commands()), "/tank/data", (0, 52));
    assert_eq!(
        r.hints.iter().find(|h| h.code == "zfs-sync").unwrap().message,
        "tank/data has sync=disabled: ZFS acknowledges fsync, O_SYNC and O_DSYNC writes before they are stored, so flush and synchronous-write figures are memory's, and a crash loses the last seconds of writes."
    );
    assert_eq!(
        r.hints.iter().find(|h| h.code == "zfs-primarycache").unwrap().message,
        "tank/data has primarycache=metadata: the ARC keeps only metadata, so every read of file data goes to the disks, and a read smaller than a record reads the whole record (recordsize 1.00 MiB: a 4 KiB random read moves 1.00 MiB from the disks, 256x)."
    );
    // Without the one-call form (an implementation that refuses it), one property at a time.
    let one = Captured::new()
        .file("zpool status -P tank", "zpool-status-P-tank-raidz2-degraded.txt")
        .file("zfs get -H -p -o value compression tank/data", "zfs-get-compression-tank-data.txt");
    let r = dir(&fx, &one, "/tank/data", (0, 52));
    let p = r.zfs.as_ref().unwrap().dataset_properties.clone().unwrap();
    assert_eq!((p.compression.as_deref(), p.recordsize_bytes, p.sync), (Some("lz4"), None, None));
}
