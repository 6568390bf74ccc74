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
        lat_ns: Latency {
            mean: 1.0,
            min: 1,
            max: 1,
            p50: 1,
            p90: 1,
            p99: 1,
            p99_9: 1,
            p99_99: 1,
        },
        bw_min: None,
        bw_max: None,
        bw_cv: None,
        errors: None,
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
    d.others = vec![crate::device::DeviceActivity {
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
