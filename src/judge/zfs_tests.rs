//! The ZFS rules at their numbers: the layouts' write model, the choice of
//! a read method, and the two warnings.

use super::*;
use crate::judge::Severity;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

#[test]
fn raidz_allocates_data_parity_and_padding_sectors() {
    // RAID-Z1 of 3, 128K records, ashift 12: 32 data sectors, 16 parity, 48 in all (even).
    assert_eq!(raidz_sectors(128 << 10, 12, 1, 3), 48);
    // 8K records: 2 data + 1 parity, rounded up to a multiple of 2.
    assert_eq!(raidz_sectors(8 << 10, 12, 1, 3), 4);
    // 4K records: one data sector and its parity.
    assert_eq!(raidz_sectors(4 << 10, 12, 1, 3), 2);
    // RAID-Z1 of 4 at 128K: 32 + ceil(32/3) = 43, padded to 44.
    assert_eq!(raidz_sectors(128 << 10, 12, 1, 4), 44);
    // RAID-Z2 of 6 at 128K: 32 + 2 × 8 = 48, a multiple of 3.
    assert_eq!(raidz_sectors(128 << 10, 12, 2, 6), 48);
    // RAID-Z2 of 4 at 16K: 4 + 2 × 2 = 8, padded to 9.
    assert_eq!(raidz_sectors(16 << 10, 12, 2, 4), 9);
    // RAID-Z3 of 5 at 128K: 32 + 3 × 16 = 80, a multiple of 4.
    assert_eq!(raidz_sectors(128 << 10, 12, 3, 5), 80);
    // 512-byte sectors: 256 data + 128 parity.
    assert_eq!(raidz_sectors(128 << 10, 9, 1, 3), 384);
}

#[test]
fn the_layouts_write_model() {
    let z1_3 = Redundancy::RaidZ { parity: 1, disks: 3 };
    assert_eq!(write_ratio(z1_3, 128 << 10, 12), 1.5);
    assert_eq!(write_ratio(z1_3, 8 << 10, 12), 2.0, "small records: parity and padding");
    assert_eq!(write_ratio(z1_3, 4 << 10, 12), 2.0);
    assert_eq!(write_ratio(z1_3, 128 << 10, 9), 1.5);
    assert_eq!(write_ratio(Redundancy::RaidZ { parity: 1, disks: 4 }, 128 << 10, 12), 1.375);
    assert_eq!(write_ratio(Redundancy::RaidZ { parity: 2, disks: 4 }, 16 << 10, 12), 2.25);
    assert_eq!(write_ratio(Redundancy::RaidZ { parity: 2, disks: 6 }, 128 << 10, 12), 1.5);
    assert_eq!(write_ratio(Redundancy::Mirror { copies: 3 }, 128 << 10, 12), 3.0);
    assert_eq!(write_ratio(Redundancy::Mirror { copies: 2 }, 8 << 10, 12), 2.0);
    assert_eq!(write_ratio(Redundancy::Stripe, 128 << 10, 12), 1.0);
    // A block smaller than a sector still takes the whole sector.
    assert_eq!(write_ratio(Redundancy::Stripe, 512, 12), 8.0);
    assert_eq!(write_ratio(Redundancy::Mirror { copies: 2 }, 512, 12), 16.0);
    assert_eq!(Redundancy::Mirror { copies: 3 }.describe(), "3-way mirror");
    assert_eq!(z1_3.describe(), "raidz1 of 3 disks");
}

#[test]
fn random_writes_smaller_than_a_record_may_rewrite_it_whole() {
    let m3 = Redundancy::Mirror { copies: 3 };
    assert_eq!(
        expected_writes(m3, 128 << 10, 12, 128 << 10, true),
        WriteExpectation { low: 3.0, high: 3.0 }
    );
    assert_eq!(
        expected_writes(m3, 128 << 10, 12, 4 << 10, false),
        WriteExpectation { low: 3.0, high: 3.0 },
        "sequential writes fill whole records"
    );
    assert_eq!(
        expected_writes(m3, 128 << 10, 12, 4 << 10, true),
        WriteExpectation { low: 3.0, high: 96.0 }
    );
    assert_eq!(
        expected_writes(m3, 8 << 10, 12, 1 << 20, true),
        WriteExpectation { low: 3.0, high: 3.0 },
        "a write of several whole records"
    );
}

#[test]
fn the_write_model_is_judged_with_its_tolerance() {
    let z = WriteExpectation { low: 1.5, high: 1.5 };
    let model = "raidz1 of 3 disks, 128K records, ashift 12";
    assert_eq!(write_model("zpool t (a+b+c)", model, z, 1.5), None);
    // 10% either way is within (metadata), exclusive.
    assert_eq!(write_model("zpool t (a+b+c)", model, z, 1.65), None);
    assert_eq!(write_model("zpool t (a+b+c)", model, z, 1.35), None);
    let more = write_model("zpool t (a+b+c)", model, z, 1.66).unwrap();
    assert_eq!(more.code, "zfs_write_amplification");
    assert_eq!(more.severity, Severity::Warning);
    assert!(
        more.message.starts_with(
            "zpool t (a+b+c) wrote 1.66× the bytes the job wrote, where the layout predicts 1.50× (raidz1 of 3 disks, 128K records, ashift 12): more"
        ) && more.message.contains("ZIL"),
        "{}",
        more.message
    );
    let fewer = write_model("zpool t (a+b+c)", model, WriteExpectation { low: 3.0, high: 3.0 }, 2.0).unwrap();
    assert!(fewer.message.contains("predicts 3.00×") && fewer.message.contains(": fewer: a member that did not write"));
    // Less than once is `cache_answered`'s to say.
    assert_eq!(write_model("p", model, WriteExpectation { low: 3.0, high: 3.0 }, 0.5), None);
    // A range: anywhere in it is fine.
    let range = WriteExpectation { low: 3.0, high: 96.0 };
    assert_eq!(write_model("p", model, range, 40.0), None);
    assert!(
        write_model("p", model, range, 110.0)
            .unwrap()
            .message
            .contains("predicts 3.00–96.00×")
    );
}

#[test]
fn the_model_says_what_it_assumed() {
    let z = Redundancy::RaidZ { parity: 1, disks: 3 };
    assert_eq!(
        model_words(z, 128 << 10, 12, true, true),
        "raidz1 of 3 disks, 128K records, ashift 12"
    );
    assert_eq!(
        model_words(z, ASSUMED_RECORD, ASSUMED_ASHIFT, false, false),
        "raidz1 of 3 disks, 128K records, ashift 12; the record size and ashift were unknown, so the model assumed 128K records and ashift 12"
    );
    assert!(
        model_words(z, 8 << 10, ASSUMED_ASHIFT, true, false)
            .ends_with("; the ashift was unknown, so the model assumed 128K records and ashift 12")
    );
}

/// zfs-fuse on Debian: ARC of 100 MiB, members' page cache unknown (taken as yes), run as root.
fn fuse(span: u64) -> ReadFacts {
    ReadFacts {
        implementation: Implementation::ZfsFuse,
        pool: "tpool".into(),
        arc_max: Some(100 * MIB),
        direct_io: false,
        member_page_cache: None,
        cache_devices: false,
        l2arc_persistent: false,
        span,
        reads_once: false,
        runs_apart: false,
        can_drop_caches: true,
        allow_export: false,
        export_refused: None,
    }
}

/// OpenZFS 2.2 with an ARC of 8 GiB.
fn openzfs(span: u64) -> ReadFacts {
    ReadFacts {
        implementation: Implementation::OpenZfs,
        pool: "tank".into(),
        arc_max: Some(8 * GIB),
        l2arc_persistent: true,
        ..fuse(span)
    }
}

#[test]
fn direct_io_needs_nothing_else() {
    let f = ReadFacts {
        direct_io: true,
        ..openzfs(GIB)
    };
    assert!(caches(&f).is_empty());
    let r = choose(&f);
    assert_eq!(r.method, ReadMethod::DirectIo);
    assert!(!r.dropped_caches && r.reason.contains("bypass the ARC"));
    assert_eq!(arc_cached(&r, "the ARC"), None);
}

#[test]
fn a_span_ten_times_the_arc_is_enough_inclusive() {
    let r = choose(&openzfs(80 * GIB));
    assert_eq!(r.method, ReadMethod::SpanPastArc);
    assert!(!r.dropped_caches, "OpenZFS keeps no member data in the kernel's cache");
    assert_eq!(
        r.reason,
        "the span (80.00 GiB) is at least 10× the ARC's maximum (8.00 GiB): at most about 10% of the reads could hit it"
    );
    assert_eq!(choose(&openzfs(80 * GIB - MIB)).method, ReadMethod::Cached);
    let r = choose(&openzfs(60 * GIB));
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(
        r.reason.starts_with(
            "the span (60.00 GiB) is less than 10× the ARC's maximum (8.00 GiB): up to about 13% of random reads could hit it"
        ) && r.reason.contains("a span of at least 80.00 GiB would do (--size)")
            && r.reason.ends_with("; an export and import of pool tank would not help"),
        "{}",
        r.reason
    );
    let w = arc_cached(&r, "the ARC").unwrap();
    assert_eq!(w.code, "zfs_arc_cached");
    assert_eq!(w.severity, Severity::Untrustworthy);
    assert!(
        w.message
            .starts_with("CACHED: these reads may have been answered by the ARC, so the read figure is labelled cached"),
        "{}",
        w.message
    );
}

#[test]
fn members_read_through_the_page_cache_make_the_cache_unbounded() {
    // Members read without O_DIRECT (file vdevs), or not known not to be:
    // their page cache holds what the daemon read, so a span past the ARC
    // is not enough for random reads.
    let r = choose(&fuse(GIB));
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(r.reason.starts_with("the kernel's page cache of the members"), "{}", r.reason);
    assert!(r.dropped_caches, "dropped anyway: it empties it at the start");
    // Every member O_DIRECT (zfs-fuse's block devices): 10× the ARC is enough, and nothing is dropped.
    let off = ReadFacts {
        member_page_cache: Some(false),
        ..fuse(1000 * MIB)
    };
    let r = choose(&off);
    assert_eq!((r.method, r.dropped_caches), (ReadMethod::SpanPastArc, false));
    let r = choose(&ReadFacts { span: 999 * MIB, ..off });
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(r.reason.contains("a span of at least 1000.00 MiB would do"), "{}", r.reason);
    // One sequential pass after dropping the kernel's caches: the members' page cache
    // is empty at the start and never read twice; the ARC's maximum is still
    // less than a tenth of the span.
    let once = ReadFacts {
        reads_once: true,
        runs_apart: false,
        ..fuse(GIB)
    };
    let r = choose(&once);
    assert_eq!((r.method, r.dropped_caches), (ReadMethod::SpanPastArc, true));
    assert!(
        r.reason.ends_with("; the kernel's caches were dropped before the job"),
        "{}",
        r.reason
    );
    // Without root the kernel's caches stay.
    let r = choose(&ReadFacts {
        can_drop_caches: false,
        ..once
    });
    assert_eq!((r.method, r.dropped_caches), (ReadMethod::Cached, false));
    assert!(r.reason.contains("emptying it needs root"), "{}", r.reason);
}

#[test]
fn an_export_empties_the_arc_for_a_job_that_reads_once_with_consent() {
    let small = ReadFacts {
        reads_once: true,
        runs_apart: false,
        ..fuse(96 * MIB)
    };
    // No consent: labelled, and told what would help.
    let r = choose(&small);
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(r.reason.contains("with --allow-export"), "{}", r.reason);
    let allowed = ReadFacts {
        allow_export: true,
        ..small.clone()
    };
    let r = choose(&allowed);
    assert_eq!((r.method.clone(), r.dropped_caches), (ReadMethod::ExportImport, true));
    assert!(
        r.reason.starts_with("pool tpool was exported and imported before the job"),
        "{}",
        r.reason
    );
    // The ARC's maximum need not be known: emptied is emptied.
    let unknown = ReadFacts {
        arc_max: None,
        ..allowed.clone()
    };
    assert_eq!(choose(&unknown).method, ReadMethod::ExportImport);
    // Refused (the pool holds /): labelled, with why.
    let r = choose(&ReadFacts {
        export_refused: Some("it holds the root filesystem".into()),
        ..allowed.clone()
    });
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(
        r.reason.ends_with("pool tpool is not exported: it holds the root filesystem"),
        "{}",
        r.reason
    );
    // A job that reads its span again: the ARC fills during it.
    let r = choose(&ReadFacts {
        reads_once: false,
        runs_apart: false,
        member_page_cache: Some(false),
        ..allowed.clone()
    });
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(
        r.reason.ends_with("; an export and import of pool tpool would not help"),
        "{}",
        r.reason
    );
    // Without consent, the export is suggested only where it would help.
    let r = choose(&small);
    assert!(
        r.reason
            .ends_with("an export and import of pool tpool would empty the ARC, with --allow-export (its mounts disappear for a moment)"),
        "{}",
        r.reason
    );
    let r = choose(&fuse(GIB));
    assert!(
        r.reason.ends_with("; an export and import of pool tpool would not help"),
        "{}",
        r.reason
    );
    // The export failed when tried.
    let failed = export_failed(&choose(&allowed), "tpool", "pool is busy");
    assert_eq!(failed.method, ReadMethod::Cached);
    assert!(failed.dropped_caches);
    assert_eq!(
        failed.reason,
        "`zpool export tpool` failed (pool is busy), so the ARC kept what it held"
    );
}

#[test]
fn a_persistent_l2arc_survives_an_export() {
    let f = ReadFacts {
        cache_devices: true,
        reads_once: true,
        runs_apart: false,
        allow_export: true,
        ..openzfs(GIB)
    };
    let r = choose(&f);
    assert_eq!(r.method, ReadMethod::Cached);
    assert!(
        r.reason
            .contains("the cache device (L2ARC) can answer (nothing iolab does empties it)"),
        "{}",
        r.reason
    );
    // Before OpenZFS 2.0 (and in zfs-fuse) an import starts it empty.
    let r = choose(&ReadFacts {
        l2arc_persistent: false,
        ..f
    });
    assert_eq!(r.method, ReadMethod::ExportImport);
}

/// Issue 37: a sequential read of several timed runs (the layouts' read
/// jobs) stayed labelled cached unless its span was 10× the ARC, because the
/// pool was exported once per job. Run apart, each run starts cold.
#[test]
fn issue_37_several_timed_runs_are_each_made_cold_apart() {
    let timed = ReadFacts {
        reads_once: false,
        runs_apart: true,
        allow_export: true,
        ..fuse(96 * MIB)
    };
    let r = choose(&timed);
    assert_eq!((r.method.clone(), r.dropped_caches), (ReadMethod::ExportEachRun, true));
    assert!(r.method.is_cold());
    assert!(
        r.reason
            .starts_with("pool tpool was exported and imported before each run of the job"),
        "{}",
        r.reason
    );
    assert_eq!(ReadMethod::parse("export_each_run"), ReadMethod::ExportEachRun);
    // Without consent, or refused: still labelled, as before.
    assert_eq!(
        choose(&ReadFacts {
            allow_export: false,
            ..timed.clone()
        })
        .method,
        ReadMethod::Cached
    );
    let refused = ReadFacts {
        export_refused: Some("it holds the root filesystem".into()),
        ..timed.clone()
    };
    assert_eq!(choose(&refused).method, ReadMethod::Cached);
    // A job that reads once needs one export, not one per run.
    assert_eq!(
        choose(&ReadFacts {
            reads_once: true,
            ..timed.clone()
        })
        .method,
        ReadMethod::ExportImport
    );
    // A cache the export does not empty still answers (a persistent L2ARC).
    let l2 = ReadFacts {
        cache_devices: true,
        l2arc_persistent: true,
        ..timed.clone()
    };
    assert_eq!(choose(&l2).method, ReadMethod::Cached);
    // A span past the ARC needs no export at all, where nothing unbounded
    // (the members' page cache of zfs-fuse's file vdevs) can answer.
    let past = ReadFacts {
        span: GIB,
        member_page_cache: Some(false),
        ..timed.clone()
    };
    assert_eq!(choose(&past).method, ReadMethod::SpanPastArc);
    // Where it can, the caches are dropped while the pool is away, before each run.
    let r = choose(&ReadFacts {
        span: GIB,
        ..timed.clone()
    });
    assert_eq!((r.method, r.dropped_caches), (ReadMethod::ExportEachRun, true));

    // Which jobs can run apart: sequential, more than one pass or timed, no
    // run planned past its span.
    assert!(runs_apart(true, 3, None, GIB), "three timed runs");
    assert!(runs_apart(true, 1, None, GIB), "one timed run: checked afterwards");
    assert!(runs_apart(true, 2, Some(GIB), GIB), "two runs of the span each");
    assert!(!runs_apart(true, 2, Some(GIB + 1), GIB), "a run past its span");
    assert!(!runs_apart(true, 1, Some(MIB), GIB), "one bounded pass: reads_once covers it");
    assert!(!runs_apart(false, 3, None, GIB), "random reads land twice within a run");

    // Afterwards: a timed run that read more than its span wrapped around.
    let chosen = choose(&timed);
    assert_eq!(wrapped_run(&chosen, &[90 * MIB, 96 * MIB], 96 * MIB), None);
    let w = wrapped_run(&chosen, &[90 * MIB, 96 * MIB + 4096, 80 * MIB], 96 * MIB).unwrap();
    assert_eq!(w.method, ReadMethod::Cached);
    assert!(w.dropped_caches);
    assert!(w.reason.starts_with("run 2 read 96.00 MiB of a 96.00 MiB span"), "{}", w.reason);
    assert_eq!(wrapped_run(&choose(&ReadFacts { reads_once: true, ..timed }), &[GIB], MIB), None);
}

#[test]
fn reading_once_is_a_bounded_sequential_pass() {
    assert!(reads_once(true, false, Some(GIB), GIB));
    assert!(!reads_once(true, false, Some(GIB + 1), GIB));
    assert!(!reads_once(true, false, None, GIB), "time-limited: unknown");
    assert!(!reads_once(true, true, Some(MIB), GIB), "a warm-up reads first");
    assert!(!reads_once(false, false, Some(MIB), GIB), "random reads land twice");
}

#[test]
fn the_read_cross_check_names_the_caches_of_each_implementation() {
    assert!(read_caches(Implementation::OpenZfs, None).starts_with("the ARC, which OpenZFS before 2.3"));
    assert!(read_caches(Implementation::ZfsFuse, None).contains("page cache of the members"));
    assert!(!read_caches(Implementation::ZfsFuse, Some(false)).contains("page cache"));
    assert_eq!(Implementation::of_fstype("fuse.zfs"), Some(Implementation::ZfsFuse));
    assert_eq!(Implementation::of_fstype("zfs"), Some(Implementation::OpenZfs));
    assert_eq!(Implementation::of_fstype("ext4"), None);
}

#[test]
fn read_methods_keep_their_names() {
    for m in ReadMethod::KNOWN {
        assert_eq!(ReadMethod::parse(m.as_str()), m);
        assert_eq!(serde_json::to_value(&m).unwrap(), serde_json::json!(m.as_str()));
    }
    let later: ZfsRead = serde_json::from_value(serde_json::json!({"method": "snapshot", "reason": "r"})).unwrap();
    assert_eq!(later.method, ReadMethod::Other("snapshot".into()));
    assert!(!later.dropped_caches && !later.method.is_cold());
    assert_eq!(
        serde_json::to_value(&later).unwrap(),
        serde_json::json!({"method": "snapshot", "reason": "r"})
    );
}

#[test]
fn writes_on_zfs_fuse_are_labelled_unflushed_and_only_there() {
    let d = unflushed_writes(Implementation::ZfsFuse, true).expect("zfs-fuse's fsync is no barrier");
    assert_eq!(d.code, Code::ZfsFuseUnflushed);
    assert!(d.message.starts_with("UNFLUSHED: zfs-fuse acknowledges fsync"), "{}", d.message);
    assert_eq!(unflushed_writes(Implementation::ZfsFuse, false), None, "a read job");
    assert_eq!(
        unflushed_writes(Implementation::OpenZfs, true),
        None,
        "OpenZFS's fsync commits the ZIL"
    );
}

/// A top-level vdev of `kind` whose members moved `(read, write)` MiB each.
fn vdev(kind: &str, moved: &[(u64, u64)]) -> VdevMoved {
    VdevMoved {
        name: format!("{kind}-0"),
        kind: kind.into(),
        members: moved
            .iter()
            .enumerate()
            .map(|(i, &(r, w))| MemberMoved {
                name: format!("loop{i}"),
                state: Some(if r + w == 0 { "OFFLINE" } else { "ONLINE" }.into()),
                read_bytes: r * MIB,
                write_bytes: w * MIB,
            })
            .collect(),
    }
}

#[test]
fn a_mirror_member_that_wrote_nothing_or_far_less_is_named() {
    // One member offline: two wrote the job's 64 MiB each, it nothing.
    let v = uneven_members("tank", &[vdev("mirror", &[(0, 64), (0, 64), (0, 0)])], 4, true);
    let d = v.finding.expect("an offline mirror member");
    assert_eq!(d.code, Code::ZfsMemberUneven);
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.message
            .contains("in mirror-0 of zpool tank, loop2 (OFFLINE) wrote 0 B (0%) of the 64.00 MiB loop0 wrote"),
        "{}",
        d.message
    );
    assert!(d.message.contains("a mirror writes every block on every child"), "{}", d.message);
    // Far slower: under half of the busiest peer. Exactly half is not.
    assert!(
        uneven_members("t", &[vdev("mirror", &[(0, 40), (0, 40), (0, 19)])], 1, true)
            .finding
            .is_some()
    );
    assert_eq!(
        uneven_members("t", &[vdev("mirror", &[(0, 40), (0, 40), (0, 20)])], 1, true),
        MemberVerdict::default()
    );
    // Even: nothing.
    assert_eq!(
        uneven_members("t", &[vdev("mirror", &[(0, 64), (0, 63), (0, 64)])], 4, true),
        MemberVerdict::default()
    );
}

#[test]
fn mirror_reads_are_judged_only_with_more_than_one_in_flight() {
    // Measured on zfs-fuse at QD4: shares 0.34/0.34/0.32 — even.
    let even = vdev("mirror", &[(34, 0), (34, 0), (32, 0)]);
    assert_eq!(uneven_members("t", std::slice::from_ref(&even), 4, true), MemberVerdict::default());
    // At QD1 one member may read it all: explained, not a finding.
    let one = vdev("mirror", &[(96, 0), (0, 0), (0, 0)]);
    let v = uneven_members("t", std::slice::from_ref(&one), 1, true);
    assert_eq!(v.finding, None);
    assert!(v.explained.unwrap().starts_with("a mirror read with one I/O in flight"));
    // With four in flight the same split is a finding.
    let d = uneven_members("t", std::slice::from_ref(&one), 4, true).finding.unwrap();
    assert!(
        d.message
            .contains("loop1 (OFFLINE) read 0 B (0%) and loop2 (OFFLINE) read 0 B (0%)"),
        "{}",
        d.message
    );
    // Reads a cache may have answered are not judged at all.
    assert_eq!(uneven_members("t", &[one], 4, false), MemberVerdict::default());
}

#[test]
fn raidz_spreads_both_ways_and_stripes_are_not_judged() {
    let d = uneven_members("t", &[vdev("raidz1", &[(30, 48), (30, 48), (3, 5)])], 1, true)
        .finding
        .unwrap();
    assert!(d.message.contains("loop2 read 3.00 MiB (10%)"), "{}", d.message);
    assert!(d.message.contains("loop2 wrote 5.00 MiB (10%)"), "{}", d.message);
    assert!(d.message.contains("RAID-Z spreads"), "{}", d.message);
    // Plain disks side by side: each its own top-level vdev, allocation by free space.
    let stripe = [vdev("disk", &[(0, 64)]), vdev("disk", &[(0, 0)])];
    assert_eq!(uneven_members("t", &stripe, 4, true), MemberVerdict::default());
    // Too little moved to judge: under ZFS_MEMBER_MIN_BYTES on the busiest member.
    assert_eq!(
        uneven_members("t", &[vdev("mirror", &[(0, 7), (0, 7), (0, 0)])], 4, true),
        MemberVerdict::default()
    );
}

/// `zfs_recordsize_mismatch` at its edges: from a record 4× the block size
/// (inclusive), for the directions that move whole records they do not fill.
#[test]
fn a_recordsize_far_above_the_block_size_is_flagged_for_random_io() {
    use crate::plan::Rw;
    const K: u64 = 1 << 10;
    let fires = |record: u64, pc: Option<&str>, rw: Rw, bs: u64, span: u64| recordsize_mismatch("tank/data", record, pc, rw, bs, span);
    // 4K random reads on 128K records: 32×, with the numbers and the fix.
    let d = fires(128 * K, None, Rw::Randread, 4 * K, 64 * MIB).expect("fires");
    assert_eq!(d.code, Code::ZfsRecordsizeMismatch);
    assert_eq!(d.severity, Severity::Warning);
    for want in [
        "tank/data has recordsize=128K",
        "random reads are 4K",
        "up to 32×",
        "zfs create -o recordsize=4K tank/data/scratch",
        "zfs set recordsize=4K DATASET",
        "--bs 128K",
    ] {
        assert!(d.message.contains(want), "{want:?} not in {}", d.message);
    }
    assert!(!d.message.contains("primarycache"), "{}", d.message);
    // The edge: exactly 4× fires, 2× does not; nor equal or larger blocks.
    assert!(fires(128 * K, None, Rw::Randwrite, 32 * K, 64 * MIB).is_some_and(|d| d.message.contains("up to 4×")));
    assert!(fires(128 * K, None, Rw::Randwrite, 64 * K, 64 * MIB).is_none());
    assert!(fires(128 * K, None, Rw::Randread, 128 * K, 64 * MIB).is_none());
    assert!(
        fires(8 * K, None, Rw::Randwrite, 128 * K, 64 * MIB).is_none(),
        "bs > recordsize is not flagged"
    );
    // A block size that is no power of two: the factor and the record to match.
    let d = fires(128 * K, None, Rw::Randwrite, 12 * K, 64 * MIB).unwrap();
    assert!(
        d.message.contains("up to 10.7×") && d.message.contains("recordsize=16K"),
        "{}",
        d.message
    );
    // Random writes: read first, written whole.
    let w = fires(128 * K, None, Rw::Randwrite, 8 * K, 64 * MIB).unwrap();
    assert!(
        w.message.contains("random writes are 8K") && w.message.contains("up to 16×"),
        "{}",
        w.message
    );
    assert!(w.message.contains("reads its 128K record first"), "{}", w.message);
    let rw = fires(128 * K, None, Rw::Randrw, 4 * K, 64 * MIB).unwrap();
    assert!(rw.message.contains("random reads and writes are 4K"), "{}", rw.message);
    // Sequential I/O fills whole records: not flagged while the ARC keeps data.
    for pc in [None, Some("all")] {
        for rw in [Rw::Read, Rw::Write, Rw::Rw] {
            assert!(fires(128 * K, pc, rw, 4 * K, 64 * MIB).is_none(), "{rw:?} {pc:?}");
        }
    }
    // primarycache=metadata or none: every read reads its record again, sequential too; writes still not.
    for pc in ["metadata", "none"] {
        let d = fires(128 * K, Some(pc), Rw::Read, 4 * K, 64 * MIB).unwrap();
        assert!(d.message.contains(&format!("primarycache={pc} keeps no data")), "{}", d.message);
        assert!(
            d.message.contains("reads are 4K") && d.message.ends_with("or set primarycache=all"),
            "{}",
            d.message
        );
        let mixed = fires(128 * K, Some(pc), Rw::Rw, 4 * K, 64 * MIB).unwrap();
        assert!(
            mixed.message.contains("this job's reads are 4K") && !mixed.message.contains("write"),
            "{}",
            mixed.message
        );
        assert!(fires(128 * K, Some(pc), Rw::Write, 4 * K, 64 * MIB).is_none());
    }
    // A span of one record or less: the file is one block of about its own size.
    assert!(fires(128 * K, None, Rw::Randread, 4 * K, 128 * K).is_none());
    assert!(fires(128 * K, None, Rw::Randread, 4 * K, 128 * K + 4 * K).is_some());
    assert!(fires(128 * K, None, Rw::Randread, 0, 64 * MIB).is_none());
}

#[test]
fn record_amplification_is_record_over_block() {
    assert_eq!(record_amplification(128 << 10, 4 << 10), 32.0);
    assert_eq!(record_amplification(1 << 20, 4 << 10), 256.0);
    assert_eq!(record_amplification(8 << 10, 0), 8192.0);
}
