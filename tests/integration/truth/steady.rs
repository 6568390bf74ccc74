//! Steady state on an emulated device (issue 5): the write limit is high for
//! the first seconds, then drops and stays (a fresh flash device settling,
//! an SLC cache used up). With `--steady-state` iolab must keep running
//! rounds until the SNIA rule holds, and report the flat rate, not the burst.
//!
//! Needs root; skips without it except under `CI=true`.

use crate::common::emu::{Cgroup, Limit, LoopDev, output_with_timeout};
use crate::common::iolab_in;
use std::time::Duration;

const MIB: u64 = 1 << 20;

#[test]
fn steady_state_is_reached_after_an_early_change_and_reports_the_flat_rate() {
    need_root!();
    let dev = LoopDev::new_sparse(1024 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::WriteBps(80 * MIB));
    let mut cmd = iolab_in(&cg);
    cmd.arg("job").arg(dev.path());
    cmd.args(["--rw", "write", "--bs", "512k", "--qd", "4", "--duration", "1s", "--warmup", "0s"]);
    cmd.args([
        "--interval",
        "0",
        "--steady-state",
        "--max-rounds",
        "15",
        "--allow-destroy",
        "--json",
        "-",
    ]);
    let out = std::thread::scope(|s| {
        let h = s.spawn(|| output_with_timeout(&mut cmd, Duration::from_secs(90)));
        std::thread::sleep(Duration::from_millis(2500));
        cg.limit(&dev, Limit::WriteBps(25 * MIB));
        h.join().unwrap()
    });
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = &v["jobs"][0];
    let st = &job["steady"];
    let rounds: Vec<f64> = st["round_bw_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() / MIB as f64)
        .collect();
    eprintln!("rounds, MiB/s: {rounds:.1?}; steady: {st}");
    assert_eq!(st["reached"], true);
    assert!(rounds[0] > 70.0, "the first round ran at the first limit: {}", rounds[0]);
    // The limit dropped 2.5 s in: rounds 4.. are flat, so the first steady
    // window ends at round 7 or 8, and no more rounds run after it.
    let at = st["steady_at_round"].as_u64().unwrap();
    assert!((7..=8).contains(&at), "steady at round {at}");
    assert_eq!(rounds.len() as u64, at, "rounds stop once steady");
    let value = st["value_bw_bytes"].as_f64().unwrap() / (25 * MIB) as f64;
    assert!((0.95..=1.05).contains(&value), "steady value {value} of the flat limit");
    // The job's headline is the steady window, not the burst.
    let bw = job["write"]["bw_bytes"].as_f64().unwrap() / (25 * MIB) as f64;
    assert!((0.95..=1.05).contains(&bw), "headline {bw} of the flat limit");
    assert_eq!(v["settings"]["steady_state"]["window"], 5);
}

#[test]
fn steady_state_gives_up_after_max_rounds_and_says_so() {
    need_root!();
    let dev = LoopDev::new_sparse(512 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::WriteBps(40 * MIB));
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
        "500ms",
        "--warmup",
        "0s",
    ]);
    cmd.args(["--steady-state", "--max-rounds", "6", "--allow-destroy", "--json", "-"]);
    // Halve the limit every second: never steady within 6 rounds.
    let out = std::thread::scope(|s| {
        let h = s.spawn(|| output_with_timeout(&mut cmd, Duration::from_secs(60)));
        for mib in [20, 10, 5] {
            std::thread::sleep(Duration::from_millis(900));
            cg.limit(&dev, Limit::WriteBps(mib * MIB));
        }
        h.join().unwrap()
    });
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let job = &v["jobs"][0];
    assert_eq!(job["steady"]["reached"], false, "{}", job["steady"]);
    assert_eq!(job["steady"]["rounds"], 6);
    assert!(job["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "not_steady"));
}
