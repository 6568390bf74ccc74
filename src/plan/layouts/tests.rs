use super::*;

/// Every tool, both kernel drivers, and `zfs` as given.
fn caps(zfs: Option<ZfsImpl>, md: bool, dm: bool) -> Capabilities {
    Capabilities {
        tools: TOOLS.iter().map(|t| t.to_string()).collect(),
        zfs,
        md,
        dm,
    }
}

/// Everything a Linux server could have.
fn full() -> Capabilities {
    caps(Some(ZfsImpl::OpenZfs), true, true)
}

/// This machine: zfs-fuse, no md, no device-mapper.
fn here() -> Capabilities {
    caps(Some(ZfsImpl::ZfsFuse), false, false)
}

fn devs(n: usize) -> Vec<PathBuf> {
    (0..n).map(|i| PathBuf::from(format!("/dev/loop{}", i + 10))).collect()
}

fn req(n: usize, names: &str) -> Request {
    Request {
        devices: devs(n),
        names: names.split(',').filter(|s| !s.is_empty()).map(String::from).collect(),
        ..Request::default()
    }
}

fn names(p: &LayoutPlan) -> Vec<&str> {
    p.configs.iter().map(|c| c.name.as_str()).collect()
}

fn refused(p: &LayoutPlan) -> Vec<&str> {
    p.refusals.iter().map(|r| r.name.as_str()).collect()
}

#[test]
fn the_default_plan_follows_the_device_count() {
    // (devices, configurations built with every capability)
    let table: [(usize, &[&str]); 5] = [
        (1, &["ext4", "xfs", "btrfs", "zfs"]),
        (
            2,
            &[
                "ext4",
                "xfs",
                "btrfs",
                "zfs",
                "zfs-stripe2",
                "zfs-mirror2",
                "btrfs-raid0",
                "btrfs-raid1",
                "md-raid0+ext4",
                "md-raid0+xfs",
                "md-raid1+ext4",
                "md-raid1+xfs",
                "lvm-stripe+ext4",
                "lvm-stripe+xfs",
            ],
        ),
        (
            3,
            &[
                "ext4",
                "xfs",
                "btrfs",
                "zfs",
                "zfs-stripe3",
                "zfs-mirror3",
                "zfs-raidz1-3",
                "btrfs-raid0",
                "btrfs-raid1",
                "md-raid0+ext4",
                "md-raid0+xfs",
                "md-raid1+ext4",
                "md-raid1+xfs",
                "md-raid5+ext4",
                "md-raid5+xfs",
                "lvm-stripe+ext4",
                "lvm-stripe+xfs",
            ],
        ),
        (
            4,
            &[
                "ext4",
                "xfs",
                "btrfs",
                "zfs",
                "zfs-stripe4",
                "zfs-mirror4",
                "zfs-raidz1-4",
                "zfs-raidz2-4",
                "btrfs-raid0",
                "btrfs-raid1",
                "btrfs-raid10",
                "md-raid0+ext4",
                "md-raid0+xfs",
                "md-raid1+ext4",
                "md-raid1+xfs",
                "md-raid5+ext4",
                "md-raid5+xfs",
                "md-raid6+ext4",
                "md-raid6+xfs",
                "lvm-stripe+ext4",
                "lvm-stripe+xfs",
            ],
        ),
        (
            5,
            &[
                "ext4",
                "xfs",
                "btrfs",
                "zfs",
                "zfs-stripe5",
                "zfs-mirror5",
                "zfs-raidz1-5",
                "zfs-raidz2-5",
                "zfs-raidz3-5",
                "btrfs-raid0",
                "btrfs-raid1",
                "btrfs-raid10",
                "md-raid0+ext4",
                "md-raid0+xfs",
                "md-raid1+ext4",
                "md-raid1+xfs",
                "md-raid5+ext4",
                "md-raid5+xfs",
                "md-raid6+ext4",
                "md-raid6+xfs",
                "lvm-stripe+ext4",
                "lvm-stripe+xfs",
            ],
        ),
    ];
    for (n, want) in table {
        let p = plan(&req(n, ""), &full()).unwrap();
        assert_eq!(names(&p), want, "{n} devices");
        assert!(p.refusals.is_empty(), "{n} devices: {:?}", p.refusals);
        assert_eq!(p.baseline().unwrap().devices, devs(1), "the baseline is on the first device");
        for c in &p.configs {
            let want = if c.layout.single_device() { 1 } else { n };
            assert_eq!(c.devices, devs(want), "{}", c.name);
        }
    }
}

#[test]
fn what_the_machine_lacks_is_refused_with_its_reason() {
    let p = plan(&req(3, ""), &here()).unwrap();
    assert_eq!(
        names(&p),
        [
            "ext4",
            "xfs",
            "btrfs",
            "zfs",
            "zfs-stripe3",
            "zfs-mirror3",
            "zfs-raidz1-3",
            "btrfs-raid0",
            "btrfs-raid1"
        ]
    );
    assert_eq!(
        refused(&p),
        [
            "md-raid0+ext4",
            "md-raid0+xfs",
            "md-raid1+ext4",
            "md-raid1+xfs",
            "md-raid5+ext4",
            "md-raid5+xfs",
            "lvm-stripe+ext4",
            "lvm-stripe+xfs"
        ]
    );
    assert!(p.refusals[0].reason.contains("no md driver"), "{}", p.refusals[0].reason);
    assert!(p.refusals[7].reason.contains("no device-mapper"), "{}", p.refusals[7].reason);

    let mut no_tools = full();
    no_tools.tools.retain(|t| t != "mkfs.xfs" && t != "mdadm");
    no_tools.zfs = None;
    let p = plan(&req(2, "xfs,zfs,md-raid1+ext4,ext4"), &no_tools).unwrap();
    assert_eq!(names(&p), ["ext4"]);
    let reasons: Vec<(&str, &str)> = p.refusals.iter().map(|r| (r.name.as_str(), r.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            ("xfs", "not on PATH: mkfs.xfs"),
            (
                "zfs",
                "no ZFS here: neither the zfs kernel module (/sys/module/zfs) nor a running zfs-fuse daemon"
            ),
            ("md-raid1+ext4", "not on PATH: mdadm"),
        ]
    );
}

#[test]
fn try_names_are_built_refused_or_a_usage_error() {
    // (devices, --try, built, refused)
    let table: [(usize, &str, &[&str], &[&str]); 8] = [
        (3, "zfs-raidz1", &["zfs-raidz1-3"], &[]),
        (
            4,
            "zfs,zfs-stripe2,zfs-raidz1-3,zfs-raidz1-4",
            &["zfs", "zfs-stripe2", "zfs-raidz1-3", "zfs-raidz1-4"],
            &[],
        ),
        (3, "zfs-raidz2", &[], &["zfs-raidz2"]),
        (3, "zfs-raidz2-4", &[], &["zfs-raidz2-4"]),
        (3, "zfs-mirror1", &[], &["zfs-mirror1"]),
        (3, "btrfs-raid10,btrfs-raid1", &["btrfs-raid1"], &["btrfs-raid10"]),
        (1, "ext4,zfs-mirror", &["ext4"], &["zfs-mirror"]),
        (3, "md-raid5+ext4,ext4", &["ext4"], &["md-raid5+ext4"]),
    ];
    for (n, list, built, refusals) in table {
        let p = plan(&req(n, list), &here()).unwrap();
        assert_eq!(names(&p), built, "--try {list}");
        assert_eq!(refused(&p), refusals, "--try {list}");
    }
    let p = plan(&req(3, "zfs-raidz2"), &here()).unwrap();
    assert_eq!(p.refusals[0].reason, "needs at least 4 devices; 3 given");
    let p = plan(&req(3, "zfs-raidz2-4"), &here()).unwrap();
    assert_eq!(p.refusals[0].reason, "needs 4 devices; 3 given");
    for bad in ["zfs-raid5", "ext3", "zfs-raidz4", "md-raid5", "btrfs-raid12"] {
        let e = plan(&req(4, bad), &full()).unwrap_err();
        assert!(
            e.starts_with(&format!("--try {bad}: no such configuration; these are: ext4, xfs")),
            "{e}"
        );
        assert!(e.contains("zfs-raidz1[-N]") && e.contains("lvm-stripe+xfs"), "{e}");
    }
}

#[test]
fn each_puts_single_device_configurations_on_every_device() {
    let r = Request {
        each: true,
        ..req(2, "ext4,zfs-mirror")
    };
    let p = plan(&r, &here()).unwrap();
    assert_eq!(names(&p), ["ext4@loop10", "ext4@loop11", "zfs-mirror2"]);
    assert_eq!(p.configs[1].devices, [PathBuf::from("/dev/loop11")]);
    assert_eq!(
        p.configs[1].tags,
        [("layout".into(), "ext4".into()), ("device".into(), "loop11".into())]
    );
}

fn tags(c: &Config) -> Vec<String> {
    c.tags.iter().map(|(k, v)| format!("{k}={v}")).collect()
}

#[test]
fn a_sweep_multiplies_only_the_configurations_it_applies_to() {
    let r = Request {
        zfs: vec![
            ("recordsize".into(), vec!["8K".into(), "128K".into()]),
            ("compression".into(), vec!["off".into(), "lzjb".into()]),
        ],
        mount_options: vec!["noatime".into(), "noatime,discard".into()],
        ..req(2, "ext4,zfs-mirror")
    };
    let p = plan(&r, &here()).unwrap();
    assert_eq!(
        names(&p),
        [
            "ext4/mount-options=noatime",
            "ext4/mount-options=noatime,discard",
            "zfs-mirror2/recordsize=8K/compression=off",
            "zfs-mirror2/recordsize=8K/compression=lzjb",
            "zfs-mirror2/recordsize=128K/compression=off",
            "zfs-mirror2/recordsize=128K/compression=lzjb",
        ]
    );
    assert_eq!(tags(&p.configs[1]), ["layout=ext4", "mount-options=noatime,discard"]);
    assert_eq!(tags(&p.configs[3]), ["layout=zfs-mirror2", "recordsize=8K", "compression=lzjb"]);
}

#[test]
fn zfs_sweep_values_the_implementation_lacks_are_refused() {
    // (implementation, key, value, refused with)
    let table = [
        (ZfsImpl::ZfsFuse, "compression", "lz4", Some("compression=lz4: zfs-fuse has no lz4")),
        (
            ZfsImpl::ZfsFuse,
            "compression",
            "zstd-3",
            Some("compression=zstd-3: zfs-fuse has no zstd-3"),
        ),
        (ZfsImpl::ZfsFuse, "recordsize", "128K", None),
        (
            ZfsImpl::ZfsFuse,
            "recordsize",
            "1M",
            Some("recordsize=1M: zfs-fuse takes a power of two from 512 to 128K"),
        ),
        (ZfsImpl::ZfsFuse, "sync", "always", Some("sync: zfs-fuse has no sync property")),
        (ZfsImpl::OpenZfs, "compression", "lz4", None),
        (ZfsImpl::OpenZfs, "recordsize", "1M", None),
        (
            ZfsImpl::OpenZfs,
            "recordsize",
            "12K",
            Some("recordsize=12K: OpenZFS takes a power of two from 512 to 16M"),
        ),
        (ZfsImpl::OpenZfs, "sync", "always", None),
    ];
    for (imp, key, value, want) in table {
        assert_eq!(imp.refusal(key, value).as_deref(), want, "{imp:?} {key}={value}");
    }
    let r = Request {
        zfs: vec![("compression".into(), vec!["off".into(), "lz4".into()])],
        ..req(1, "zfs")
    };
    let p = plan(&r, &here()).unwrap();
    assert_eq!(names(&p), ["zfs/compression=off"]);
    assert_eq!(refused(&p), ["zfs/compression=lz4"]);
}

#[test]
fn malformed_requests_are_usage_errors() {
    let table: [(Request, &str); 5] = [
        (Request::default(), "layouts needs at least one device"),
        (
            Request {
                devices: vec!["/dev/a".into(), "/dev/a".into()],
                ..Request::default()
            },
            "/dev/a is given twice",
        ),
        (
            Request {
                zfs: vec![("dedup".into(), vec!["on".into()])],
                ..req(1, "")
            },
            "--zfs dedup: not a property iolab sweeps; these are: recordsize, compression, sync, atime, checksum, logbias, primarycache",
        ),
        (
            Request {
                zfs: vec![("sync".into(), vec!["always".into()]), ("sync".into(), vec!["standard".into()])],
                ..req(1, "")
            },
            "--zfs sync is given twice: give its values once, comma-separated",
        ),
        (
            Request {
                zfs: vec![("recordsize".into(), vec!["".into()])],
                ..req(1, "")
            },
            "--zfs recordsize: values are a comma list, e.g. --zfs recordsize=V1,V2",
        ),
    ];
    for (r, want) in table {
        assert_eq!(plan(&r, &full()).unwrap_err(), want);
    }
}

#[test]
fn the_estimate_is_tests_times_their_length_plus_the_allowance() {
    let w = Workload {
        tests: 4,
        per_test: Duration::from_secs(10),
    };
    assert_eq!(estimate(w), Duration::from_secs(40) + BUILD_TEARDOWN);
    let p = plan(&req(3, "ext4,zfs,zfs-raidz1"), &here()).unwrap();
    assert_eq!(estimate_total(&p, w), (Duration::from_secs(40) + BUILD_TEARDOWN) * 3);
    let d = Workload::default_suite();
    assert_eq!(
        d.tests,
        6 + 8,
        "the sustained suite (8K, 64K, 128K; buffered and O_DIRECT) and the default battery"
    );
    assert_eq!(d.per_test, Duration::from_secs(1 + 10 * 2 + 5));
}

#[path = "commands_tests.rs"]
mod commands_tests;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Issue 36: on three 320 MiB disks the default 1 GiB test file fits no configuration;
/// the plan cuts it to the smallest one's room (a mirror or RAID-Z2 holds one disk's
/// worth) before anything is built, and says so.
#[test]
fn the_test_file_is_cut_to_the_smallest_configuration_of_three_320_mib_disks() {
    let p = plan(&req(3, ""), &here()).unwrap();
    let t = test_file_size(&p, |_| Some(320 * MIB), None, GIB).unwrap().expect("sized");
    let room = 320 * (100 - METADATA_MARGIN_PCT) / 100 * MIB;
    assert_eq!((t.bytes, t.data), (room, 320 * MIB), "{t:?}");
    assert_eq!(t.cut_from, Some(GIB));
    // The first configuration with one disk's worth of data: the baseline, ext4.
    assert_eq!(t.smallest, "ext4");
    for c in &p.configs {
        let sizes = vec![320 * MIB; c.devices.len()];
        assert!(
            c.layout.data_capacity(&sizes) * (100 - METADATA_MARGIN_PCT) / 100 >= t.bytes,
            "{} does not hold {}",
            c.name,
            t.bytes
        );
    }
    let line = t.line();
    assert!(
        line.starts_with("test file: 224.00 MiB on each configuration, not the default 1.00 GiB"),
        "{line}"
    );
    assert!(line.contains("ext4 would not hold (320.00 MiB of data less"), "{line}");
    let text = dry_run(
        &p,
        &here(),
        Workload::default_suite(),
        "sustained+default",
        Some(&t),
        &RunNames::under_run("t1"),
    );
    assert!(text.contains(&format!("\n{line}\n")), "{text}");
}

#[test]
fn a_size_asked_for_that_a_configuration_cannot_hold_is_refused_in_the_plan() {
    let p = plan(&req(3, "zfs-stripe3,zfs-mirror3"), &here()).unwrap();
    assert_eq!(names(&p), ["zfs-stripe3", "zfs-mirror3"]);
    let size = |_: &Path| Some(320 * MIB);
    // The stripe holds 3 disks' worth, the mirror one: 512 MiB fits the first only.
    let e = test_file_size(&p, size, Some(512 * MIB), GIB).unwrap_err();
    assert!(
        e.contains("--size 512.00 MiB does not fit zfs-mirror3") && e.contains("give --size 224.00 MiB or less"),
        "{e}"
    );
    let ok = test_file_size(&p, size, Some(200 * MIB), GIB).unwrap().unwrap();
    assert_eq!((ok.bytes, ok.cut_from, ok.smallest.as_str()), (200 * MIB, None, "zfs-mirror3"));
    // Large disks: the default stands.
    let big = test_file_size(&p, |_| Some(100 * GIB), None, GIB).unwrap().unwrap();
    assert_eq!((big.bytes, big.cut_from), (GIB, None));
    // A device whose size is unknown (a dry run of paths that do not exist): no sizing.
    assert_eq!(test_file_size(&p, |_| None, None, GIB), Ok(None));
}

#[test]
fn each_layout_holds_its_data_once() {
    let s = [100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB];
    let cases = [
        (Layout::Single(Fs::Ext4), 1, 100),
        (Layout::Zfs(ZfsVdev::Stripe), 3, 300),
        (Layout::Zfs(ZfsVdev::Mirror), 3, 100),
        (Layout::Zfs(ZfsVdev::Raidz(1)), 4, 300),
        (Layout::Zfs(ZfsVdev::Raidz(3)), 4, 100),
        (Layout::BtrfsRaid(BtrfsProfile::Raid0), 2, 200),
        (Layout::BtrfsRaid(BtrfsProfile::Raid1), 2, 100),
        (Layout::BtrfsRaid(BtrfsProfile::Raid1), 3, 100),
        (Layout::BtrfsRaid(BtrfsProfile::Raid10), 4, 200),
        (Layout::Md(MdLevel::Raid5, Fs::Xfs), 4, 300),
        (Layout::Md(MdLevel::Raid6, Fs::Xfs), 4, 200),
        (Layout::LvmStripe(Fs::Ext4), 2, 200),
    ];
    for (layout, n, want) in cases {
        assert_eq!(layout.data_capacity(&s[..n]), want * MIB, "{layout:?} of {n}");
    }
    // Uneven members count at the smallest's size.
    assert_eq!(Layout::BtrfsRaid(BtrfsProfile::Raid1).data_capacity(&[1000, 100, 100]), 100);
    assert_eq!(Layout::Zfs(ZfsVdev::Mirror).data_capacity(&[1000, 100]), 100);
}
