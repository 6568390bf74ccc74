use super::*;
use crate::plan::layouts::Fs;

fn r(value: f64, lo: f64, hi: f64) -> Ratio {
    Ratio { value, ci: Some((lo, hi)) }
}

fn stripe(ratio: Ratio, rw: Rw, busy: Option<f64>) -> VsOneDisk<'static> {
    let layout = Layout::Zfs(ZfsVdev::Stripe);
    VsOneDisk {
        config: "zfs-stripe2",
        one_disk: "zfs",
        layout,
        shape: Shape::of(layout, 2),
        test: "SEQ128K Q4",
        rw,
        in_flight: 4,
        ratio,
        members_busy: busy,
        cpu_busy: Some(0.3),
    }
}

#[test]
fn shapes_follow_the_layouts() {
    let s = Shape::of(Layout::Zfs(ZfsVdev::Mirror), 3);
    assert_eq!((s.kind, s.copies, s.parity), (Kind::Raid1, Some(3), 0));
    assert_eq!(s.describe(Layout::Zfs(ZfsVdev::Mirror)), "a 3-way mirror");
    let s = Shape::of(Layout::BtrfsRaid(BtrfsProfile::Raid1), 3);
    assert_eq!(s.copies, Some(2), "btrfs raid1 keeps two copies on any count");
    let s = Shape::of(Layout::Zfs(ZfsVdev::Raidz(1)), 4);
    assert_eq!((s.kind, s.parity), (Kind::Unknown, 1));
    assert_eq!(s.describe(Layout::Zfs(ZfsVdev::Raidz(1))), "RAID-Z1 of 4");
    assert!(!Shape::of(Layout::Single(Fs::Ext4), 1).multi());
    assert_eq!(Shape::of(Layout::Md(MdLevel::Raid6, Fs::Xfs), 5).parity, 2);
}

#[test]
fn a_stripe_at_one_disk_with_busy_members_shares_a_path() {
    let d = vs_one_disk(&stripe(r(1.01, 0.98, 1.04), Rw::Read, Some(0.97))).unwrap();
    assert_eq!(d.code, Code::LayoutSharedPath);
    assert!(
        d.message.contains("zfs-stripe2 (a stripe of 2) reads 1.01× [0.98–1.04] zfs"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("expected ≈2×") && d.message.contains("share a path"),
        "{}",
        d.message
    );
    assert_eq!(d.subject.as_deref(), Some("SEQ128K Q4"));
    // Busy unknown: the path is still the likely reason.
    let d = vs_one_disk(&stripe(r(1.01, 0.98, 1.04), Rw::Read, None)).unwrap();
    assert_eq!(d.code, Code::LayoutSharedPath);
}

#[test]
fn a_stripe_short_of_its_multiple_with_idle_members_is_the_hosts_limit() {
    // A stripe of two at 1.38× one disk, its members busy 55% of the time:
    // while busy each moved 1.38 / (2 × 0.55) = 1.25× one disk's rate.
    let d = vs_one_disk(&stripe(r(1.38, 1.30, 1.45), Rw::Write, Some(0.55))).unwrap();
    assert_eq!(d.code, Code::LayoutHostLimit);
    assert!(
        d.message.contains("idle 45% of the time and, while busy, moved 1.25×"),
        "{}",
        d.message
    );
    // At the threshold pace the members kept pace: the host.
    let at = 1.38 / (2.0 * MEMBER_PACE);
    let d = vs_one_disk(&stripe(r(1.38, 1.30, 1.45), Rw::Write, Some(at))).unwrap();
    assert_eq!(d.code, Code::LayoutHostLimit);
    // Busy about half the time, yet each slower than one disk (zfs-fuse's
    // three members behind one path: 0.99 / (3 × 0.51) = 0.65): the path.
    let mut three = stripe(r(0.99, 0.90, 1.10), Rw::Read, Some(0.51));
    three.shape = Shape::of(Layout::Zfs(ZfsVdev::Stripe), 3);
    let d = vs_one_disk(&three).unwrap();
    assert_eq!(d.code, Code::LayoutSharedPath);
    assert!(d.message.contains("busy 51% of the time, yet moving 0.65×"), "{}", d.message);
    // A saturated CPU is the host's limit whatever the members did.
    let mut v = stripe(r(1.0, 0.95, 1.05), Rw::Read, Some(0.99));
    v.cpu_busy = Some(0.97);
    let d = vs_one_disk(&v).unwrap();
    assert_eq!(d.code, Code::LayoutHostLimit);
    assert!(d.message.contains("CPU (97% busy)"), "{}", d.message);
}

#[test]
fn a_verdict_needs_an_interval_that_supports_it() {
    // The median is short of 1.7× but the interval reaches into the tolerance.
    assert!(vs_one_disk(&stripe(r(1.6, 1.4, 1.75), Rw::Read, Some(1.0))).is_none());
    // No interval (one run a side): no verdict.
    let one = Ratio { value: 1.0, ci: None };
    assert!(vs_one_disk(&stripe(one, Rw::Read, Some(1.0))).is_none());
    // As expected only when the whole interval sits inside the band.
    let d = vs_one_disk(&stripe(r(2.02, 1.97, 2.06), Rw::Read, Some(1.0))).unwrap();
    assert_eq!(d.code, Code::LayoutDelivers);
    assert!(vs_one_disk(&stripe(r(2.02, 1.6, 2.4), Rw::Read, Some(1.0))).is_none());
    // Above the band: a cache.
    let d = vs_one_disk(&stripe(r(3.0, 2.8, 3.2), Rw::Read, Some(1.0))).unwrap();
    assert_eq!(d.code, Code::LayoutAbove);
}

#[test]
fn a_mirror_reads_in_the_seeds_words() {
    let layout = Layout::Zfs(ZfsVdev::Mirror);
    let v = VsOneDisk {
        config: "zfs-mirror3",
        one_disk: "zfs",
        layout,
        shape: Shape::of(layout, 3),
        test: "SEQ128K Q4",
        rw: Rw::Read,
        in_flight: 4,
        ratio: r(2.9, 2.8, 3.0),
        members_busy: Some(0.9),
        cpu_busy: None,
    };
    let d = vs_one_disk(&v).unwrap();
    assert_eq!(d.code, Code::LayoutDelivers);
    assert!(
        d.message.contains("(a 3-way mirror) reads 2.90× [2.80–3.00] zfs, expected 1–3×"),
        "{}",
        d.message
    );
}

#[test]
fn raidz_writes_below_one_disk_are_parity() {
    let layout = Layout::Zfs(ZfsVdev::Raidz(1));
    let mut v = VsOneDisk {
        config: "zfs-raidz1-3",
        one_disk: "zfs",
        layout,
        shape: Shape::of(layout, 3),
        test: "SEQ8K write",
        rw: Rw::Write,
        in_flight: 1,
        ratio: r(0.62, 0.58, 0.66),
        members_busy: None,
        cpu_busy: None,
    };
    let d = vs_one_disk(&v).unwrap();
    assert_eq!(d.code, Code::LayoutParity);
    assert!(d.message.contains("writes 0.62× [0.58–0.66] zfs: parity"), "{}", d.message);
    v.ratio = r(1.8, 1.7, 1.9);
    let d = vs_one_disk(&v).unwrap();
    assert_eq!(d.code, Code::LayoutDelivers);
    assert!(d.message.contains("2 data members"), "{}", d.message);
    v.ratio = r(0.98, 0.9, 1.05);
    assert!(vs_one_disk(&v).is_none(), "within noise of one disk: nothing to say");
}

#[test]
fn a_property_names_its_biggest_change_outside_the_noise() {
    let p = PropertyEffect {
        config: "zfs",
        key: "recordsize",
        value: "8K",
        against: "128K",
        tests: vec![
            ("SEQ8K write", r(1.9, 1.8, 2.02)),
            ("SEQ64K write", r(1.02, 0.97, 1.06)),
            ("SEQ128K write", r(0.7, 0.65, 0.75)),
        ],
    };
    let d = property_effect(&p).unwrap();
    assert_eq!(d.code, Code::LayoutProperty);
    assert_eq!(
        d.message,
        "recordsize=8K against recordsize=128K on zfs: SEQ8K write 1.90× [1.80–2.02], 2 of 3 test(s) outside the noise"
    );
    let none = PropertyEffect {
        tests: vec![("SEQ64K write", r(1.02, 0.97, 1.06))],
        ..p.clone()
    };
    assert!(
        property_effect(&none)
            .unwrap()
            .message
            .ends_with("no test differs outside the noise (1 test(s))")
    );
    let unknown = PropertyEffect {
        tests: vec![("SEQ64K write", Ratio { value: 1.5, ci: None })],
        ..p
    };
    assert!(property_effect(&unknown).is_none());
}

#[test]
fn the_best_configuration_and_those_within_noise_of_it() {
    let s = |config, score, vs_best: Vec<Ratio>| Standing { config, score, vs_best };
    let standings = vec![
        s("ext4", 1.0, vec![r(0.5, 0.45, 0.55)]),
        s("zfs-stripe2", 1.95, vec![]),
        s("zfs-mirror2", 1.9, vec![r(0.97, 0.9, 1.04)]),
    ];
    let d = best(&standings, "ext4", 11).unwrap();
    assert_eq!(d.code, Code::LayoutBest);
    assert_eq!(
        d.message,
        "The best configuration for this suite is zfs-stripe2 (1.95× ext4, geometric mean over 11 test(s)), within noise of zfs-mirror2"
    );
    let alone = vec![s("ext4", 1.0, vec![]), s("zfs", 0.8, vec![r(0.8, 0.7, 0.9)])];
    let d = best(&alone, "ext4", 3).unwrap();
    assert!(
        d.message.contains("is ext4 (the baseline, over 3 test(s)): no other"),
        "{}",
        d.message
    );
    let unknown = vec![s("ext4", 1.0, vec![]), s("zfs", 0.99, vec![Ratio { value: 0.99, ci: None }])];
    assert!(
        best(&unknown, "ext4", 1)
            .unwrap()
            .message
            .contains("whether zfs is as good is unknown")
    );
    assert!(best(&alone[..1], "ext4", 3).is_none());
}

#[test]
fn geometric_means() {
    assert!((geometric_mean([2.0, 0.5]).unwrap() - 1.0).abs() < 1e-12);
    assert!((geometric_mean([4.0]).unwrap() - 4.0).abs() < 1e-12);
    assert_eq!(geometric_mean([]), None);
    assert_eq!(geometric_mean([1.0, 0.0]), None);
}
