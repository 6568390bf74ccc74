//! The layout verdicts of a comparison of configurations `iolab layouts` built.

use super::fixtures::{run, seq};
use crate::compare::layouts::{Built, from_tags};
use crate::compare::{RunRef, compare};
use crate::plan::layouts::{Fs, Layout, ZfsVdev};

fn built(mut r: RunRef, layout: Layout, members: u32, props: &[(&str, &str)]) -> RunRef {
    r.built = Some(Built {
        layout,
        members,
        devices: (0..members).map(|k| format!("loop{k}")).collect(),
        properties: props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        usable_bytes: Some(u64::from(members) * 500_000_000),
    });
    r
}

fn rules(c: &crate::compare::Comparison) -> Vec<(String, Option<i64>, String)> {
    c.findings.iter().map(|f| (f.code.to_string(), f.run, f.message.clone())).collect()
}

#[test]
fn a_stripe_at_one_disks_rate_shares_a_path_and_one_at_twice_delivers() {
    let one = built(
        run(1, "zfs", vec![seq("SEQ128K", &[20.0, 20.1, 19.9])]),
        Layout::Zfs(ZfsVdev::Single),
        1,
        &[],
    );
    let shared = built(
        run(2, "zfs-stripe2", vec![seq("SEQ128K", &[20.2, 20.0, 20.3])]),
        Layout::Zfs(ZfsVdev::Stripe),
        2,
        &[],
    );
    let c = compare(&[one.clone(), shared], 1).unwrap();
    let f = rules(&c);
    assert_eq!(f[0].0, "layout_shared_path", "the layout verdict comes first: {f:?}");
    assert_eq!(f[0].1, Some(2));
    assert!(f[0].2.contains("zfs-stripe2 (a stripe of 2) reads 1.0"), "{f:?}");
    assert!(f.iter().any(|x| x.0 == "layout_best"), "{f:?}");
    assert_eq!(c.runs[1].layout.as_ref().unwrap().kind, "zfs-stripe");
    assert_eq!(c.runs[1].capacity_bytes, Some(1_000_000_000), "usable capacity");

    let own = built(
        run(2, "zfs-stripe2", vec![seq("SEQ128K", &[40.2, 40.0, 39.8])]),
        Layout::Zfs(ZfsVdev::Stripe),
        2,
        &[],
    );
    let c = compare(&[one, own], 1).unwrap();
    let f = rules(&c);
    assert_eq!(f[0].0, "layout_delivers", "{f:?}");
    assert!(!f.iter().any(|x| x.0 == "layout_shared_path"), "{f:?}");
    let best = f.iter().find(|x| x.0 == "layout_best").unwrap();
    assert!(
        best.2
            .starts_with("The best configuration for this suite is zfs-stripe2 (2.00× zfs"),
        "{best:?}"
    );
}

#[test]
fn a_layout_is_judged_against_one_disk_of_its_own_kind_only() {
    // ext4 is the baseline, but a ZFS stripe is not ext4 on two disks: no
    // single ZFS disk in the plan, so no layout verdict.
    let ext4 = built(
        run(1, "ext4", vec![seq("SEQ128K", &[20.0, 20.1])]),
        Layout::Single(Fs::Ext4),
        1,
        &[],
    );
    let stripe = built(
        run(2, "zfs-stripe2", vec![seq("SEQ128K", &[20.0, 20.1])]),
        Layout::Zfs(ZfsVdev::Stripe),
        2,
        &[],
    );
    let c = compare(&[ext4, stripe], 1).unwrap();
    assert!(
        !rules(&c).iter().any(|x| x.0.starts_with("layout_") && x.0 != "layout_best"),
        "{:?}",
        rules(&c)
    );
}

#[test]
fn a_property_sweep_names_what_it_changed() {
    let small = built(
        run(
            1,
            "zfs/recordsize=8K",
            vec![seq("SEQ8K write", &[19.0, 19.2, 18.9]), seq("SEQ128K write", &[20.0, 20.1, 19.9])],
        ),
        Layout::Zfs(ZfsVdev::Single),
        1,
        &[("recordsize", "8K")],
    );
    let big = built(
        run(
            2,
            "zfs/recordsize=128K",
            vec![seq("SEQ8K write", &[10.0, 10.1, 9.9]), seq("SEQ128K write", &[20.1, 20.0, 20.2])],
        ),
        Layout::Zfs(ZfsVdev::Single),
        1,
        &[("recordsize", "128K")],
    );
    let c = compare(&[small, big], 1).unwrap();
    let f = rules(&c);
    let p = f.iter().find(|x| x.0 == "layout_property").expect("a property finding");
    assert_eq!(p.1, Some(2));
    assert!(
        p.2.starts_with("recordsize=128K against recordsize=8K on zfs: SEQ8K write 0.5"),
        "{p:?}"
    );
    assert!(p.2.ends_with("1 of 2 test(s) outside the noise"), "{p:?}");
}

#[test]
fn a_stored_runs_layout_comes_from_its_tags() {
    let r = run(1, "x", vec![seq("SEQ128K", &[1.0])]).report;
    let t = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    let b = from_tags(
        &t(&[("layout", "zfs-mirror3/recordsize=8K"), ("recordsize", "8K"), ("group", "g")]),
        &r,
    )
    .unwrap();
    assert_eq!((b.layout, b.members), (Layout::Zfs(ZfsVdev::Mirror), 3));
    assert_eq!(b.properties, vec![("recordsize".to_string(), "8K".to_string())]);
    let b = from_tags(&t(&[("layout", "ext4@sdb")]), &r).unwrap();
    assert_eq!((b.layout, b.members), (Layout::Single(Fs::Ext4), 1));
    assert!(from_tags(&t(&[("layout", "nonsense")]), &r).is_none());
    assert!(from_tags(&t(&[("group", "g")]), &r).is_none());
}

#[test]
fn a_verdict_on_figures_a_cache_may_have_answered_says_so() {
    let one = built(
        run(1, "zfs", vec![seq("SEQ128K", &[20.0, 20.1, 19.9]).warn("zfs_arc_cached")]),
        Layout::Zfs(ZfsVdev::Single),
        1,
        &[],
    );
    let two = built(
        run(2, "zfs-stripe2", vec![seq("SEQ128K", &[20.2, 20.0, 20.3]).warn("zfs_arc_cached")]),
        Layout::Zfs(ZfsVdev::Stripe),
        2,
        &[],
    );
    let c = compare(&[one, two], 1).unwrap();
    let f = &c.findings[0];
    assert_eq!(f.code, "layout_shared_path");
    assert!(
        f.message
            .ends_with("Caveat: zfs-stripe2 carries zfs_arc_cached; zfs carries zfs_arc_cached: these figures may not be the disks'"),
        "{}",
        f.message
    );
    // Issue 37: every layout verdict on such figures is marked untrustworthy,
    // the best configuration's too, and none leads the comparison.
    assert_eq!(f.severity, crate::judge::Severity::Untrustworthy);
    let best = c.findings.iter().find(|f| f.code == "layout_best").unwrap();
    assert_eq!(best.severity, crate::judge::Severity::Untrustworthy);
    assert!(best.message.contains(". Caveat: "), "{}", best.message);
    assert!(best.message.contains("zfs carries zfs_arc_cached"), "{}", best.message);
    assert!(!c.findings.iter().any(crate::compare::findings::leads));
}
