//! CPU accounting.
//!
//! Process CPU comes from `getrusage(RUSAGE_SELF)`, which sums every thread
//! of the thread group, including exited ones and the io_uring `iou-wrk`
//! workers the kernel creates inside the process. (fio reports per-thread
//! `RUSAGE_THREAD` figures, so work punted to io-wq workers is missing from
//! them.) System-wide busy/idle comes from the first line of `/proc/stat`.

use crate::samples::{CpuTimes, SysCpu};

pub fn process_now() -> CpuTimes {
    usage(libc::RUSAGE_SELF)
}

/// CPU of the children this process has waited for (a timed command, git).
pub fn children_now() -> CpuTimes {
    usage(libc::RUSAGE_CHILDREN)
}

fn usage(who: libc::c_int) -> CpuTimes {
    rusage_times(&crate::io::sys::rusage(who))
}

/// Bytes this process (and, `with_children`, the children it waited for)
/// read from storage, from the kernel's per-task I/O accounting
/// (`ru_inblock`, 512-byte units: a read is counted when its bio is
/// submitted, whichever device it goes to; page-cache hits are not).
pub fn storage_read_bytes(with_children: bool) -> u64 {
    let blocks = |who| crate::io::sys::rusage(who).ru_inblock.max(0) as u64;
    let own = blocks(libc::RUSAGE_SELF);
    (if with_children { own + blocks(libc::RUSAGE_CHILDREN) } else { own }) * 512
}

/// User and system time of a `rusage` (from `getrusage` or `wait4`).
pub fn rusage_times(ru: &libc::rusage) -> CpuTimes {
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    CpuTimes {
        usr_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
    }
}

pub fn process_delta(a: CpuTimes, b: CpuTimes) -> CpuTimes {
    CpuTimes {
        usr_ns: b.usr_ns.saturating_sub(a.usr_ns),
        sys_ns: b.sys_ns.saturating_sub(a.sys_ns),
    }
}

pub fn system_now() -> SysCpu {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|t| parse_proc_stat(&t))
        .unwrap_or_default()
}

pub fn parse_proc_stat(text: &str) -> Option<SysCpu> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    if v.len() < 5 {
        return None;
    }
    // user nice system idle iowait irq softirq steal (guest times are already in user)
    let total: u64 = v.iter().take(8).sum();
    Some(SysCpu {
        total,
        idle: v[3],
        iowait: v[4],
        system: v[2] + v.get(5).unwrap_or(&0) + v.get(6).unwrap_or(&0),
        user: v[0] + v[1],
    })
}

pub fn system_delta(a: SysCpu, b: SysCpu) -> SysCpu {
    SysCpu {
        total: b.total.saturating_sub(a.total),
        idle: b.idle.saturating_sub(a.idle),
        iowait: b.iowait.saturating_sub(a.iowait),
        system: b.system.saturating_sub(a.system),
        user: b.user.saturating_sub(a.user),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_parses() {
        let s = parse_proc_stat("cpu  100 5 50 800 20 3 2 0 0 0\ncpu0 1 2 3 4 5\n").unwrap();
        assert_eq!(s.total, 980);
        assert_eq!(s.idle, 800);
        assert_eq!(s.iowait, 20);
        assert_eq!(s.system, 55);
        assert_eq!(s.user, 105);
    }

    /// Time burnt in another thread counts: the figure covers the whole process.
    /// The thread spins until its own CPU clock says 200 ms (not the wall
    /// clock: on a busy machine a 200 ms wall-clock spin gets less CPU).
    #[test]
    fn process_cpu_includes_other_threads() {
        let a = process_now();
        std::thread::spawn(|| {
            let mut x = 0u64;
            loop {
                let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
                if t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64 >= 200_000_000 {
                    break x;
                }
                for _ in 0..10_000 {
                    x = x.wrapping_add(std::hint::black_box(1));
                }
            }
        })
        .join()
        .unwrap();
        let d = process_delta(a, process_now());
        assert!(d.usr_ns + d.sys_ns >= 190_000_000, "{d:?}");
    }
}
