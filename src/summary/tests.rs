//! Tests of the figures, spread and warnings.

use super::*;

fn dev(job_r: u64, dev_r: u64, job_w: u64, dev_w: u64) -> DeviceReport {
    DeviceReport {
        name: "loop9".into(),
        read_bytes: dev_r,
        write_bytes: dev_w,
        read_ios: 0,
        write_ios: 0,
        job_read_bytes: job_r,
        job_write_bytes: job_w,
        lower: vec![],
        zfs_pool: None,
        others: vec![],
    }
}

#[test]
fn cross_check_flags_cache_and_extra_io() {
    assert!(cross_check(&dev(100 << 20, 100 << 20, 0, 0)).is_empty());
    assert!(cross_check(&dev(100 << 20, 95 << 20, 50 << 20, 54 << 20)).is_empty());
    let w = cross_check(&dev(100 << 20, 10 << 20, 0, 0));
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, "cache_answered");
    assert!(w[0].message.contains("10%"), "{}", w[0].message);
    let w = cross_check(&dev(0, 0, 100 << 20, 150 << 20));
    assert_eq!(w[0].code, "device_extra");
}

/// A run whose writes fell from 1000 to 300 MB/s after 10 s carries the cliff.
#[test]
fn write_cliff_is_found_in_complete_seconds() {
    let mut r = RunSamples {
        wall_ns: 20_500_000_000,
        ..Default::default()
    };
    r.write.per_sec_bytes = [vec![1_000_000_000u64; 10], vec![300_000_000; 10], vec![1]].concat();
    let c = run_report(&r).write_cliff.expect("cliff");
    assert_eq!(c.at_second, 10);
    assert!((c.drop_pct - 70.0).abs() < 1e-9);
    // The partial 21st second alone is no cliff.
    let mut flat = RunSamples {
        wall_ns: 20_500_000_000,
        ..Default::default()
    };
    flat.write.per_sec_bytes = [vec![1_000_000_000u64; 20], vec![1]].concat();
    assert!(run_report(&flat).write_cliff.is_none());
}

#[test]
fn spread_is_reported_over_runs() {
    let mk = |bw: f64| DirReport {
        bytes: bw as u64,
        ios: 1,
        bw_bytes: bw,
        iops: 1.0,
        lat_ns: Some(Latency {
            mean: 1.0,
            min: 1,
            max: 1,
            p50: 1,
            p90: 1,
            p99: 1,
            p99_9: 1,
            p99_99: 1,
        }),
        bw_min: None,
        bw_max: None,
        bw_cv: None,
        errors: None,
        settle: None,
    };
    let (a, b, c) = (mk(100.0), mk(300.0), mk(200.0));
    let m = dir_median(&[&a, &b, &c]).unwrap();
    assert_eq!(m.bw_bytes, 200.0);
    assert_eq!(m.bw_min, Some(100.0));
    assert_eq!(m.bw_max, Some(300.0));
    assert!((m.bw_cv.unwrap() - 0.5).abs() < 1e-9);
}

#[test]
fn cross_check_names_a_device_outside_the_target_that_did_the_work() {
    let mut d = dev(100 << 20, 0, 0, 0);
    d.others = vec![crate::samples::DeviceActivity {
        name: "sdb".into(),
        read_bytes: 100 << 20,
        bottom: true,
        ..Default::default()
    }];
    let w = cross_check(&d);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, "other_device");
    assert!(
        w[0].message.contains("sdb (not under the target) read 100.00 MiB"),
        "{}",
        w[0].message
    );
    // Without it, the idle device is said to be idle.
    d.others.clear();
    assert!(cross_check(&d)[0].message.starts_with("loop9 was idle"));
}

/// A run on the ZFS pool `fast` (two mirrors over vdf..vdi): the job moved
/// `job_r`/`job_w` bytes, each member disk `per_member` (read, written).
fn pool_run(job_r: u64, job_w: u64, per_member: [(u64, u64); 4]) -> RunSamples {
    let mut r = RunSamples::default();
    r.read.all_bytes = job_r;
    r.write.all_bytes = job_w;
    r.devices = ["vdf", "vdg", "vdh", "vdi"]
        .iter()
        .zip(per_member)
        .map(|(n, (rd, wr))| crate::samples::DiskDelta {
            name: n.to_string(),
            read_bytes: rd,
            write_bytes: wr,
            read_ios: rd / 4096,
            write_ios: wr / 4096,
            busy_ns: 0,
        })
        .collect();
    r
}

#[test]
fn a_zfs_pool_is_cross_checked_on_its_members_summed() {
    const M: u64 = 1 << 20;
    // The ARC answered: the job read 400 MiB, the members nothing.
    let arc = device_report(&[pool_run(400 * M, 0, [(0, 0); 4])], Some("fast")).unwrap();
    assert_eq!(arc.name, "zpool fast (vdf+vdg+vdh+vdi)");
    assert_eq!(arc.zfs_pool.as_deref(), Some("fast"));
    let w = cross_check(&arc);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, "cache_answered");
    assert!(
        w[0].message
            .starts_with("zpool fast (vdf+vdg+vdh+vdi) was idle while the job read 400.00 MiB")
            && w[0].message.contains("ARC"),
        "{}",
        w[0].message
    );
    // The disks did the work: reads split over the members (one side of each
    // mirror here, 100 MiB each of 4 would do too), writes on every member of
    // a mirror: 2 × 200 MiB for a 200 MiB job is no `device_extra`.
    let fine = [(200 * M, 100 * M), (0, 100 * M), (150 * M, 100 * M), (50 * M, 100 * M)];
    let d = device_report(&[pool_run(400 * M, 200 * M, fine), pool_run(400 * M, 200 * M, fine)], Some("fast")).unwrap();
    assert_eq!((d.read_bytes, d.write_bytes), (800 * M, 800 * M));
    assert_eq!((d.job_read_bytes, d.job_write_bytes), (800 * M, 400 * M));
    // Every member listed, summed over the runs.
    let lower: Vec<(&str, u64)> = d.lower.iter().map(|l| (l.name.as_str(), l.read_bytes)).collect();
    assert_eq!(lower, [("vdf", 400 * M), ("vdg", 0), ("vdh", 300 * M), ("vdi", 100 * M)]);
    assert!(cross_check(&d).is_empty(), "{:?}", cross_check(&d));
    // Not the first member alone: vdf by itself read only half of it.
    let single = device_report(&[pool_run(400 * M, 200 * M, fine)], None).unwrap();
    assert_eq!(single.name, "vdf");
    assert_eq!(cross_check(&single)[0].code, "cache_answered");
    // Writes still in the ARC (dirty data): less than once on the members.
    let dirty = device_report(&[pool_run(0, 400 * M, [(0, 20 * M); 4])], Some("fast")).unwrap();
    let w = cross_check(&dirty);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, "cache_answered");
    assert!(w[0].message.contains("20%"), "{}", w[0].message);
    // A run's own device is the sum too.
    assert_eq!(members_sum(&pool_run(0, 0, fine).devices).unwrap().read_bytes, 400 * M);
}
