//! One test per job rule, at its exact boundaries.

use super::*;
use crate::judge::Severity;
use crate::judge::steady::steady_state;

const MIB: u64 = 1 << 20;

#[test]
fn buffered_says_why_the_page_cache_was_in_the_path() {
    assert_eq!(buffered(true, false, "/mnt"), None);
    let asked = buffered(false, false, "/mnt").unwrap();
    assert_eq!(asked.code, "buffered");
    assert_eq!(asked.severity, Severity::Info);
    assert!(
        asked.message.starts_with("buffered I/O: the page cache is in the path"),
        "{}",
        asked.message
    );
    let refused = buffered(false, true, "/mnt").unwrap();
    assert_eq!(refused.code, "buffered_fallback");
    assert!(refused.message.starts_with("/mnt refused O_DIRECT"), "{}", refused.message);
}

#[test]
fn no_block_device_names_the_filesystem() {
    assert_eq!(no_block_device("/x", true, Some("tmpfs")), None);
    let tmpfs = no_block_device("/dev/shm", false, Some("tmpfs")).unwrap();
    assert_eq!(tmpfs.code, "no_block_device");
    assert!(
        tmpfs.message.contains("(filesystem tmpfs)") && tmpfs.message.ends_with("(here: memory)"),
        "{}",
        tmpfs.message
    );
    let fuse = no_block_device("/f", false, None).unwrap();
    assert!(
        fuse.message.contains("(filesystem unknown)") && !fuse.message.contains("here: memory"),
        "{}",
        fuse.message
    );
}

#[test]
fn no_block_device_on_zfs_says_why_the_members_are_unknown() {
    let w = no_block_device("/tank/data", false, Some("zfs")).unwrap();
    assert_eq!(w.code, "no_block_device");
    assert!(
        w.message.contains("(filesystem zfs)")
            && w.message.contains("the ARC")
            && w.message.contains("member disks are unknown")
            && w.message.contains("install the ZFS utilities")
            && w.message.contains("run as root"),
        "{}",
        w.message
    );
    let f = no_block_device("/tpool", false, Some("fuse.zfs")).unwrap();
    assert!(
        f.message.contains("(filesystem fuse.zfs)")
            && f.message.contains("(on zfs-fuse, its ARC's)")
            && f.message.contains("`zpool status` did not answer (is the zfs-fuse daemon running?"),
        "{}",
        f.message
    );
}

#[test]
fn pool_cross_check_sums_reads_and_judges_writes_from_below() {
    const ARC: &str = "the ARC, which OpenZFS before 2.3 uses even with O_DIRECT";
    let m = 1u64 << 20;
    let name = "zpool fast (vdf+vdg+vdh+vdi)";
    // Reads: the members' sum against the job, both ways.
    assert_eq!(pool_cross_check(name, "read", 100 * m, 100 * m, ARC), None);
    let arc = pool_cross_check(name, "read", 100 * m, 0, ARC).unwrap();
    assert_eq!(arc.code, "cache_answered");
    assert!(
        arc.message.starts_with(name)
            && arc.message.ends_with(&format!(
                "(on ZFS: {ARC}; test a span well over the ARC's maximum, or let iolab export and import the pool: --allow-export)"
            )),
        "{}",
        arc.message
    );
    // the members' page cache is named where it may have answered.
    let fuse = crate::judge::zfs::read_caches(crate::judge::zfs::Implementation::ZfsFuse, None);
    let block = pool_cross_check(name, "read", 100 * m, 0, fuse).unwrap();
    assert!(block.message.contains("page cache of the members"), "{}", block.message);
    assert_eq!(pool_cross_check(name, "read", 100 * m, 400 * m, ARC).unwrap().code, "device_extra");
    // Writes: a mirror's two copies (or parity, metadata) are no warning...
    assert_eq!(pool_cross_check(name, "written", 100 * m, 200 * m, ARC), None);
    assert_eq!(pool_cross_check(name, "written", 100 * m, 100 * m, ARC), None);
    // ...but less than once is the ARC holding dirty data.
    let w = pool_cross_check(name, "written", 100 * m, 30 * m, ARC).unwrap();
    assert_eq!(w.code, "cache_answered");
    assert!(w.message.contains("30%"), "{}", w.message);
}

#[test]
fn memory_device_only_for_a_memory_backed_top_device() {
    assert_eq!(memory_device("sda", false), None);
    let w = memory_device("zram0", true).unwrap();
    assert_eq!(w.code, "memory_device");
    assert_eq!(w.message, "zram0 is a memory-backed block device: figures are memory speed");
}

#[test]
fn cross_check_boundaries() {
    assert_eq!(cross_check("loop9", "read", 0, 50 * MIB), None, "no job bytes: nothing to check");
    // Exactly 90% and 110% are within the tolerance.
    assert_eq!(cross_check("loop9", "read", 100 * MIB, 90 * MIB), None);
    assert_eq!(cross_check("loop9", "read", 100 * MIB, 110 * MIB), None);
    let cache = cross_check("loop9", "read", 100 * MIB, 89 * MIB).unwrap();
    assert_eq!(cache.code, "cache_answered");
    assert_eq!(
        cache.message,
        "loop9 saw only 89% of the bytes the job read: a cache answered (page cache, filesystem or device cache) or the filesystem compressed; this is not the device's speed"
    );
    let extra = cross_check("loop9", "written", 100 * MIB, 111 * MIB).unwrap();
    assert_eq!(
        (extra.code, extra.message.as_str()),
        (
            Code::DeviceExtra,
            "loop9 saw 111% of the bytes the job written: other I/O on the device, read-ahead, journaling or write amplification"
        )
    );
    // Twice the bytes, but only 1 MiB extra: too little to mention; one byte more is not.
    assert_eq!(cross_check("loop9", "written", MIB, 2 * MIB), None);
    assert_eq!(cross_check("loop9", "written", MIB, 2 * MIB + 1).unwrap().code, "device_extra");
}

#[test]
fn high_cv_is_exclusive_at_the_threshold() {
    assert_eq!(high_cv("read", None), None);
    assert_eq!(high_cv("read", Some(HIGH_CV)), None);
    let w = high_cv("write", Some(0.1001)).unwrap();
    assert_eq!(w.code, "high_cv");
    assert_eq!(
        w.message,
        "write bandwidth varied 10% between runs: use more --runs or a longer --duration"
    );
}

#[test]
fn cpu_bound_is_inclusive_and_counts_usable_cpus() {
    // One worker on a big machine: 0.9 of one CPU is saturated, just below is not.
    assert_eq!(cpu_bound(0.9, 1, 16).unwrap().code, "cpu_bound");
    assert_eq!(cpu_bound(0.89, 1, 16), None);
    // Eight workers on two CPUs: only two are usable.
    assert!(cpu_bound(1.8, 8, 2).is_some());
    assert_eq!(cpu_bound(1.79, 8, 2), None);
    assert_eq!(
        cpu_bound(0.95, 1, 4).unwrap().message,
        "iolab kept 0.95 CPUs busy with 1 worker thread(s): the figure may be limited by the CPU, not the device"
    );
}

#[test]
fn write_cliff_names_the_run_and_the_rates() {
    assert_eq!(write_cliff(1, None), None);
    let c = Cliff {
        at_second: 10,
        before_bps: 1e9,
        after_bps: 3e8,
        drop_pct: 70.0,
    };
    let w = write_cliff(2, Some(&c)).unwrap();
    assert_eq!(w.code, "write_cliff");
    assert_eq!(
        w.message,
        "write throughput fell 70% after 10 s in run 2 (1000.0 → 300.0 MB/s) and stayed lower: a cache filled up; the sustained rate is the lower one"
    );
}

#[test]
fn not_steady_states_the_rule() {
    assert_eq!(not_steady(&steady_state(&[1000.0; 6], 5), 5), None);
    let st = steady_state(&[1000.0, 1100.0, 1200.0, 1300.0, 1400.0, 1500.0], 5);
    let w = not_steady(&st, 5).unwrap();
    assert_eq!(w.code, "not_steady");
    assert_eq!(
        w.message,
        "no steady state after 6 rounds (last 5: range 31% of the mean, slope excursion 31%; the rule asks ≤20% and ≤10%): the figures are the last 5 rounds, still moving; use more --max-rounds or a longer --duration"
    );
    // Too few rounds to judge: the figures are unknown.
    let w = not_steady(&steady_state(&[1000.0; 3], 5), 5).unwrap();
    assert!(w.message.contains("range NaN% of the mean, slope excursion NaN%"), "{}", w.message);
}

#[test]
fn psync_threads_only_above_qd1() {
    assert_eq!(psync_threads(EngineKind::Psync, 1, 1), None);
    assert_eq!(psync_threads(EngineKind::IoUring, 32, 1), None);
    let w = psync_threads(EngineKind::Psync, 4, 4).unwrap();
    assert_eq!(w.code, "psync_threads");
    assert_eq!(w.message, "psync has no queue: QD4 emulated with 4 threads");
}

#[test]
fn uneven_threads_is_exclusive_at_a_tenth() {
    let s = 1_000_000_000;
    // A 1 s gap in a 10 s run is exactly a tenth: fine; one nanosecond more is not.
    assert_eq!(uneven_threads(2, 9 * s, 10 * s), None);
    let w = uneven_threads(2, 9 * s - 1, 10 * s).unwrap();
    assert_eq!(w.code, "uneven_threads");
    assert_eq!(
        w.message,
        "threads finished unevenly (first at 9.00s, last at 10.00s): figures use the last-done time"
    );
    assert_eq!(uneven_threads(1, 0, 10 * s), None, "one thread cannot be uneven");
    assert_eq!(uneven_threads(4, 0, 0), None, "nothing finished");
}

#[test]
fn an_idle_device_and_another_device_that_did_the_work_are_said() {
    let idle = cross_check("loop9", "read", 100 * MIB, 0).unwrap();
    assert_eq!(idle.code, "cache_answered");
    assert!(
        idle.message.starts_with("loop9 was idle while the job read 100.00 MiB"),
        "{}",
        idle.message
    );
    // The bytes went to sdb: named, in place of cache_answered.
    let w = device_elsewhere("loop9", "read", 100 * MIB, 0, Some(("sdb", 100 * MIB))).unwrap();
    assert_eq!(w.code, "other_device");
    assert!(
        w.message
            .starts_with("loop9 was idle while the job read 100.00 MiB, and sdb (not under the target) read 100.00 MiB meanwhile"),
        "{}",
        w.message
    );
    let w = device_elsewhere("loop9", "written", 100 * MIB, 40 * MIB, Some(("sdb", 54 * MIB))).unwrap();
    assert!(
        w.message.starts_with("loop9 saw only 40.00 MiB while the job written"),
        "{}",
        w.message
    );
    // The other device moved too little of what is missing, or the target saw enough: nothing.
    assert_eq!(device_elsewhere("loop9", "read", 100 * MIB, 0, Some(("sdb", 80 * MIB))), None);
    assert_eq!(
        device_elsewhere("loop9", "read", 100 * MIB, 95 * MIB, Some(("sdb", 100 * MIB))),
        None
    );
    assert_eq!(device_elsewhere("loop9", "read", 100 * MIB, 0, None), None);
    assert_eq!(
        device_elsewhere("loop9", "read", MIB / 2, 0, Some(("sdb", MIB))),
        None,
        "1 MiB elsewhere is noise"
    );
}

#[test]
fn io_errors_counts_the_failures_and_says_the_figures_exclude_them() {
    assert_eq!(io_errors("read", 0, 0, ""), None);
    let one = io_errors("write", 1, 4096, "Input/output error (EIO)").unwrap();
    assert_eq!(one.code, "io_errors");
    assert_eq!(one.severity, Severity::Untrustworthy);
    assert_eq!(
        one.message,
        "1 write failed (the first at offset 4096: Input/output error (EIO)); the figures count only the I/O that succeeded"
    );
    let many = io_errors("read", 42, 8388608, "Input/output error (EIO)").unwrap();
    assert!(
        many.message.starts_with("42 reads failed (the first at offset 8388608"),
        "{}",
        many.message
    );
}

#[test]
fn not_settled_names_the_spread_and_how_to_settle() {
    use crate::judge::settle::judge;
    let settled = judge(&[100.0, 101.0, 99.0]);
    assert!(not_settled("read", &settled, 10).is_none());
    let drifting: Vec<f64> = (0..10).map(|i| 100.0 - 3.0 * i as f64).collect();
    let d = not_settled("write", &judge(&drifting), 10).unwrap();
    assert_eq!(d.code, Code::NotSettled);
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.message.starts_with("write bandwidth did not settle in 10 windows (CV "),
        "{}",
        d.message
    );
    assert!(d.message.contains("the 95% interval of their median ±"), "{}", d.message);
    assert!(d.message.contains("CV ≤ 3% or an interval within ±2%"), "{}", d.message);
    assert!(d.message.contains("--runs auto:20"), "{}", d.message);
    // Below six windows there is no interval to state.
    let d = not_settled("read", &judge(&[100.0, 80.0, 120.0]), 3).unwrap();
    assert!(!d.message.contains("interval of their median"), "{}", d.message);
}

#[test]
fn at_throttle_is_inclusive_at_the_threshold_and_names_the_limit() {
    let t = ThrottleLimit {
        device: "loop0",
        place: "blkio cgroup /lab",
        bps: Some(20_000_000),
        iops: None,
    };
    // 90% of the limit is the throttle's; just under is the device's (or something else's).
    let at = at_throttle("read", 18_000_000.0, 36.0, &t).unwrap();
    assert_eq!(at.code, Code::AtThrottle);
    assert_eq!(at.severity, Severity::Warning);
    assert_eq!(
        at.message,
        "read 18.0 MB/s is at the throttle on loop0 (blkio cgroup /lab: reads to 20.0 MB/s): the figure is the cgroup's limit, not the device's"
    );
    assert!(at_throttle("read", 17_999_999.0, 36.0, &t).is_none());
    // An I/O limit is judged on IOPS; a limit of 0 (none) never matches.
    let iops = ThrottleLimit {
        bps: None,
        iops: Some(500),
        ..t.clone()
    };
    let w = at_throttle("write", 2_048_000.0, 499.0, &iops).unwrap();
    assert!(w.message.starts_with("write 499 IOPS is at the throttle on loop0"), "{}", w.message);
    assert!(w.message.contains("writes to 500 IOPS"), "{}", w.message);
    assert!(at_throttle("write", 2_048_000.0, 449.0, &iops).is_none());
    let none = ThrottleLimit {
        bps: Some(0),
        iops: None,
        ..t
    };
    assert!(at_throttle("read", 1e9, 1e6, &none).is_none());
}

/// Issue 37: a memory device's figures are memory speed unless a throttle
/// set every one of them (the suite's throttled loop devices over /dev/shm).
#[test]
fn a_throttle_sets_a_jobs_figures_only_when_it_capped_every_direction() {
    // (reads, read capped, writes, write capped)
    assert!(throttle_set_every_figure(true, true, false, false));
    assert!(throttle_set_every_figure(false, false, true, true));
    assert!(throttle_set_every_figure(true, true, true, true));
    assert!(!throttle_set_every_figure(true, false, false, false), "reads below the throttle");
    assert!(!throttle_set_every_figure(true, true, true, false), "a mixed job's writes below it");
    assert!(!throttle_set_every_figure(false, false, false, false), "no figure at all");
}
