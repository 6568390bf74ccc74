//! A write cliff on an emulated device: the blkio write limit drops from
//! 100 MiB/s to 30 MiB/s four seconds into a run (as when an SLC cache
//! fills up); iolab must report where, and both rates.
//!
//! Needs root; skips without it except under `CI=true`.

use crate::common::emu::{Cgroup, Limit, LoopDev, output_with_timeout};
use crate::common::iolab_in;
use std::time::Duration;

const MIB: u64 = 1 << 20;

#[test]
fn write_cliff_on_an_emulated_device_is_found_where_the_limit_drops() {
    need_root!();
    let dev = LoopDev::new_sparse(1024 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::WriteBps(100 * MIB));
    let mut cmd = iolab_in(&cg);
    cmd.arg("job").arg(dev.path());
    cmd.args([
        "--rw",
        "write",
        "--bs",
        "512k",
        "--qd",
        "4",
        "--duration",
        "8s",
        "--runs",
        "1",
        "--warmup",
        "0s",
    ]);
    cmd.args(["--allow-destroy", "--json", "-"]);
    let out = std::thread::scope(|s| {
        let h = s.spawn(|| output_with_timeout(&mut cmd, Duration::from_secs(60)));
        std::thread::sleep(Duration::from_millis(4000));
        cg.limit(&dev, Limit::WriteBps(30 * MIB));
        h.join().unwrap()
    });
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = &v["jobs"][0];
    let run = &job["runs"][0];
    let timeline: Vec<u64> = run["samples"]["write_bytes_per_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() / MIB)
        .collect();
    eprintln!("MiB per second: {timeline:?}; cliff: {}", run["write_cliff"]);
    let c = &run["write_cliff"];
    let at = c["at_second"].as_u64().expect("a cliff was found");
    assert!((4..=5).contains(&at), "cliff at {at} s, the limit dropped at 4 s");
    let before = c["before_bps"].as_f64().unwrap() / (100 * MIB) as f64;
    let after = c["after_bps"].as_f64().unwrap() / (30 * MIB) as f64;
    assert!((0.95..=1.05).contains(&before), "before: {before} of the first limit");
    assert!((0.95..=1.05).contains(&after), "after: {after} of the second limit");
    assert!(job["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "write_cliff"));
}
