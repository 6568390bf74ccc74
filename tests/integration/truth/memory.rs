//! Issue 17: a job's memory does not grow with its workers. psync at QD32
//! with 16 threads is 512 worker threads; each once had its own latency
//! histograms (270 KB each, per window and direction) and its own 16 MiB
//! pool of write data: 1.1 GB. Now the stream keeps one histogram per
//! window and direction, and the workers share one pool of write data
//! 16 MiB beyond what they can have in flight. The peak RSS (the process's
//! `VmHWM`, every thread) must stay within 64 MiB plus the data in flight.

use crate::common::emu::Zram;
use crate::common::iolab;

const MIB: u64 = 1 << 20;

/// The peak RSS in MiB of iolab running `args`, and its JSON document.
///
/// Read from the process's own `VmHWM` (/proc/PID/status) while the run is
/// held just before it ends (the test knob `IOLAB_TEST_PAUSE_AT=store`: the
/// measuring is over, the process still alive). Not `ru_maxrss`: a process
/// started by `posix_spawn` (vfork) carries the high-water mark of the
/// parent's memory it ran on until `exec` (the test binary's, hundreds of
/// MiB under `cargo test`), and wait4 reports that.
fn peak_rss(args: &[&str]) -> (f64, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("held");
    let child = iolab()
        .args(args)
        .env("IOLAB_TEST_PAUSE_AT", format!("store:{}", flag.display()))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !flag.exists() {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "iolab {args:?} never reached the store"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let hwm_kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "iolab {args:?} failed");
    (hwm_kb / 1024.0, serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn issue_17_psync_qd32_with_16_threads_stays_within_64_mib() {
    need_root!();
    let z = Zram::new(256 * MIB);
    let dev = z.path().to_string_lossy().into_owned();
    for rw in ["randread", "randwrite"] {
        let (rss, doc) = peak_rss(&[
            "job",
            &dev,
            "--rw",
            rw,
            "--bs",
            "4k",
            "--engine",
            "psync",
            "--qd",
            "32",
            "--threads",
            "16",
            "--runs",
            "2",
            "--duration",
            "500ms",
            "--warmup",
            "200ms",
            "--allow-destroy",
            "--json",
            "-",
        ]);
        let job = &doc["jobs"][0];
        assert_eq!(job["workers"], 512, "{rw}: psync emulates QD32 x 16 threads with 512 workers");
        let dir = if rw == "randread" { "read" } else { "write" };
        assert!(job[dir]["ios"].as_u64().unwrap() > 1000, "{rw}: the workers did I/O: {}", job[dir]);
        // 512 workers with one 4 KiB I/O each in flight: 2 MiB.
        let limit = 64.0 + 2.0;
        note!("{rw}: peak RSS {rss:.1} MiB with 512 workers (limit {limit} MiB)");
        assert!(rss <= limit, "{rw}: peak RSS {rss:.1} MiB > {limit} MiB");
    }
}
