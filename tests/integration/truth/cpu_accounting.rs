//! iolab's CPU figure covers every thread of the process, including the
//! io_uring `iou-wrk` workers the kernel runs for it when a file cannot be
//! read without blocking (tmpfs with O_DIRECT, zram, ...). A per-thread
//! figure (what fio reports) misses that work.

use iolab::io::buffers::Buffers;
use iolab::io::engine::RealClock;
use iolab::io::engine::uring::Uring;
use iolab::io::stream::StreamShared;
use iolab::io::worker::{Pass, Shared, WorkerPlan, drive};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;

fn rusage(who: i32) -> u64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut ru) };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(ru.ru_utime) + us(ru.ru_stime)
}

fn iou_workers() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|c| c.starts_with("iou-wrk"))
        .count()
}

#[test]
fn process_cpu_includes_io_uring_kernel_workers() {
    let mut f = tempfile::tempfile_in("/dev/shm").unwrap();
    let chunk = vec![0x5au8; 1 << 20];
    for _ in 0..32 {
        f.write_all(&chunk).unwrap();
    }
    let fd = f.as_raw_fd();
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if libc::fcntl(fd, libc::F_SETFL, fl | libc::O_DIRECT) != 0 {
            skip!(Kernel, "this kernel's tmpfs has no O_DIRECT");
        }
    }
    let bufs_depth = 32;
    let mut bufs = Buffers::new(4096, bufs_depth, 1, true, false);
    let mut eng = Uring::new(fd, bufs_depth, &bufs, None, true).unwrap();
    let plan = WorkerPlan {
        bs: 4096,
        random: true,
        read_pct: 100,
        start: 0,
        len: 32 << 20,
        seed: 9,
        continue_on_error: false,
        batch: 1,
        timed: true,
        sync: Default::default(),
    };
    let pass = Pass {
        windows: vec![700_000_000],
        ..Default::default()
    };
    let (self0, thread0) = (rusage(libc::RUSAGE_SELF), rusage(libc::RUSAGE_THREAD));
    let clock = RealClock::new(std::time::Instant::now());
    let stream = StreamShared::new(1, 1);
    let stop = AtomicBool::new(false);
    let beat = Default::default();
    let sh = Shared {
        stop: &stop,
        beat: &beat,
        stream: &stream,
        index: 0,
    };
    let s = drive(&mut eng, &clock, &mut bufs, &plan, &pass, &sh).unwrap();
    let workers = iou_workers();
    let (self1, thread1) = (rusage(libc::RUSAGE_SELF), rusage(libc::RUSAGE_THREAD));
    let (proc_us, thread_us) = (self1 - self0, thread1 - thread0);
    eprintln!(
        "{} reads; process {proc_us} µs CPU, this thread {thread_us} µs, {workers} iou-wrk threads",
        s[0].read.ios
    );
    assert!(s[0].read.ios > 1000);
    if workers == 0 {
        skip!(
            Kernel,
            "this kernel needed no io-wq workers for O_DIRECT reads of tmpfs: nothing to compare"
        );
    }
    // The kernel workers did real work, and the process figure carries it.
    assert!(
        proc_us as f64 > thread_us as f64 * 1.2,
        "process {proc_us} µs vs thread {thread_us} µs"
    );
    // And iolab's own accounting function is the process figure.
    let a = iolab::measure::cpu::process_now();
    assert!(a.usr_ns + a.sys_ns >= self1 * 1000 - 1_000_000);
}
