//! Issue 17: a job's memory does not grow with its workers. psync at QD32
//! with 16 threads is 512 worker threads; each once had its own latency
//! histograms (270 KB each, per window and direction) and its own 16 MiB
//! pool of write data: 1.1 GB. Now the stream keeps one histogram per
//! window and direction, and the workers share one pool of write data
//! 16 MiB beyond what they can have in flight. The peak RSS (from `wait4`,
//! every thread) must stay within 64 MiB plus the data in flight.

use crate::common::emu::{Zram, require_root};
use crate::common::iolab;

const MIB: u64 = 1 << 20;

/// The peak RSS in MiB of iolab running `args`, and its JSON document.
/// The child is reaped by `wait4` (for its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak_rss(args: &[&str]) -> (f64, serde_json::Value) {
    let child = iolab().args(args).stdout(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id() as i32;
    let mut out = child.stdout.unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid pointers.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "iolab {args:?} failed");
    (ru.ru_maxrss as f64 / 1024.0, serde_json::from_str(&text).unwrap())
}

#[test]
fn issue_17_psync_qd32_with_16_threads_stays_within_64_mib() {
    if !require_root() {
        return;
    }
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
