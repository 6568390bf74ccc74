//! Issue 38: the queue depth a job's device actually had is a figure of
//! every run (`device_depth`: the mean from diskstats' time in queue, the
//! p99 and max of `/sys/block/DEV/inflight` sampled every 10 ms), and a
//! job whose device had far fewer I/Os in flight than it asked for carries
//! `device_depth_short`.
//!
//! On a loop device doing direct I/O to a file on /var/tmp (the ext4 root
//! on the virtio disk: requests complete asynchronously, through
//! interrupts), io_uring at QD32 must keep at least 90% of 32 in flight on
//! average: a ratio within one run, not a timing. The same figure from a
//! QD8 run shows the check would catch a depth that fell short. On zram
//! (each I/O completes inside the call that submitted it) the count is
//! about the CPUs busy in it whatever iolab queues: no finding there, nor
//! at QD1; on tmpfs there is no device and no figure.

use crate::common::emu::{LoopDev, Tmpfs, Zram};
use crate::common::{iolab, json_of};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// The least mean depth at QD32 on the direct-I/O loop device: issue 38's
/// acceptance, 90% of the depth asked for.
const AT_LEAST: f64 = 0.9;

/// The reads of the QD32 check: 64 KiB. Between the device's completion
/// of a read and the next one's submission is the host's own time (the
/// interrupt, the loop worker's completion, the wake-up of the issuer),
/// which no engine avoids: at 4 KiB (100k IOPS here, 0.32 ms a read) it
/// held fio's own io_uring at 29.1 of 32 (91%), iolab's release build at
/// 30.1-30.3 and its debug build, which the tests run, at 28.9-29.4, so a
/// host twice as slow would fail any engine. At 64 KiB (21k IOPS, 1.5 ms a
/// read) the debug build keeps 31.3 in flight: what is left short is then
/// the engine's own, as a refill that waits for a batch (75% at half a
/// queue) or a submission held back.
const CHECK_BS: &str = "64k";

/// `iolab job TARGET --rw randread --bs BS --qd QD --size 64MiB
/// --duration 2s --runs 1 --warmup 0 --no-store --json -` plus `more`:
/// the job's JSON.
fn job(target: &Path, bs: &str, qd: u32, more: &[&str]) -> Value {
    let qd = qd.to_string();
    let mut cmd = iolab();
    cmd.arg("job")
        .arg(target)
        .args(["--rw", "randread", "--bs", bs, "--qd", &qd, "--size", "64MiB"])
        .args(["--duration", "2s", "--runs", "1", "--warmup", "0", "--no-store", "--json", "-"])
        .args(more);
    let doc = json_of(&mut cmd, Duration::from_secs(120));
    doc["jobs"][0].clone()
}

fn codes(job: &Value) -> Vec<String> {
    job["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_string())
        .collect()
}

/// The job's mean depth, checked to be the device's own and consistent
/// with its samples and its one run's.
fn mean_depth(job: &Value, device: &str) -> f64 {
    let d = &job["device_depth"];
    assert_eq!(d["device"], device, "{d}");
    let mean = d["mean"].as_f64().unwrap_or_else(|| panic!("no mean depth: {d}"));
    assert!(d["samples"].as_u64().unwrap() >= 100, "2 s sampled every 10 ms: {d}");
    let (p99, max) = (d["p99"].as_f64().unwrap(), d["max"].as_f64().unwrap());
    assert!(p99 <= max, "{d}");
    assert_eq!(job["runs"][0]["device_depth"], *d, "one run: the job's figure is the run's");
    mean
}

fn direct_loop() -> LoopDev {
    LoopDev::new_in(Path::new("/var/tmp"), 64 * MIB)
}

fn kernel_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn issue_38_io_uring_keeps_qd32_in_flight_on_a_direct_io_loop_device() {
    need_root!();
    let lo = direct_loop();
    let name = kernel_name(lo.path());
    assert_eq!(
        std::fs::read_to_string(format!("/sys/block/{name}/loop/dio")).unwrap().trim(),
        "1",
        "the loop device does direct I/O to its file"
    );
    let j = job(lo.path(), CHECK_BS, 32, &[]);
    let mean = mean_depth(&j, &name);
    eprintln!("QD32 on {name}: {} (IOPS {})", j["device_depth"], j["read"]["iops"]);
    // The control: at QD8 the same figure is about 8, never 32: a depth
    // that fell short is seen, and the check below would fail on it.
    let j8 = job(lo.path(), CHECK_BS, 8, &[]);
    let mean8 = mean_depth(&j8, &name);
    eprintln!("QD8 on {name}: {}", j8["device_depth"]);
    assert!(
        mean8 <= 8.5 && j8["device_depth"]["max"].as_u64().unwrap() <= 8,
        "{}",
        j8["device_depth"]
    );
    assert!(mean8 < AT_LEAST * 32.0, "the check catches a device with 8 in flight");
    assert!(
        mean >= AT_LEAST * 32.0,
        "asked for QD32, {name} had {mean:.1} in flight on average ({}): under {AT_LEAST} of the depth asked",
        j["device_depth"]
    );
    assert!(!codes(&j).contains(&"device_depth_short".to_string()), "{:?}", j["warnings"]);
}

#[test]
fn issue_38_no_depth_finding_at_qd1_nor_on_zram_and_no_figure_without_a_device() {
    need_root!();
    // QD1: nothing to fall short of.
    let lo = direct_loop();
    let j = job(lo.path(), "4k", 1, &[]);
    let mean = mean_depth(&j, &kernel_name(lo.path()));
    assert!(mean <= 1.05, "one I/O in flight at most: {}", j["device_depth"]);
    assert!(!codes(&j).contains(&"device_depth_short".to_string()), "{:?}", j["warnings"]);
    drop(lo);
    // zram completes each I/O in the call that submitted it: its count is
    // the CPUs busy in it, far under 32 (the finding's own bar), and says
    // nothing of iolab's queue.
    let z = Zram::new(64 * MIB);
    let j = job(z.path(), "4k", 32, &[]);
    let mean = mean_depth(&j, &kernel_name(z.path()));
    eprintln!("QD32 on zram: {}", j["device_depth"]);
    assert!(mean < 16.0, "zram's count stays low whatever iolab queues: {}", j["device_depth"]);
    let c = codes(&j);
    assert!(
        c.contains(&"memory_device".to_string()) && !c.contains(&"device_depth_short".to_string()),
        "{c:?}"
    );
    drop(z);
    // tmpfs: no block device, no figure (never a 0).
    let t = Tmpfs::new(128 * MIB);
    let j = job(t.dir(), "4k", 32, &[]);
    assert!(j.get("device_depth").is_none(), "{}", j["device_depth"]);
    assert!(j["runs"][0].get("device_depth").is_none());
}
