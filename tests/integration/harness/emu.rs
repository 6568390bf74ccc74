//! Self-test of the emulated devices ([`crate::common::emu`]), no iolab: a child joins its cgroup before `exec`, the throttle
//! really limits direct I/O, and every guard cleans up, after a normal drop and while a
//! test panics.

use std::path::Path;
use std::time::Instant;

use crate::common::emu::{BlockDev, Cgroup, Ext4Mount, KIB, Limit, LoopDev, MIB, Tmpfs, Zram, output_with_timeout};
use crate::truth::accuracy::TIMEOUT;
use crate::truth::accuracy::report::assert_near;

#[test]
fn harness_child_joins_cgroup_before_exec() {
    need_root!();
    let cg = Cgroup::new();
    let out = output_with_timeout(cg.command("cat").arg("/proc/self/cgroup"), TIMEOUT);
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(":blkio:/{}", cg.name());
    note!("child /proc/self/cgroup:\n{text}");
    assert!(text.lines().any(|l| l.ends_with(&want)), "child is not in {want}");
    assert!(cg.procs().is_empty(), "exited child still listed in the cgroup");
}

/// dd with O_DIRECT through the throttle: elapsed time and the cgroup's counters match
/// the configured bandwidth.
#[test]
fn harness_throttle_limits_direct_dd_on_loop() {
    need_root!();
    let lo = LoopDev::new(64 * MIB);
    let cg = Cgroup::new();
    let limit = 16 * MIB;
    cg.limit(&lo, Limit::ReadBps(limit));
    let count = 48u64; // 48 * 512 KiB = 24 MiB -> 1.5 s at 16 MiB/s
    let t0 = Instant::now();
    let out = output_with_timeout(
        cg.command("dd")
            .arg(format!("if={}", lo.path().display()))
            .args(["of=/dev/null", "bs=512k", "iflag=direct", "status=none"])
            .arg(format!("count={count}")),
        TIMEOUT,
    );
    let secs = t0.elapsed().as_secs_f64();
    assert!(out.status.success(), "dd failed: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = count * 512 * KIB;
    let seen = cg.io_count(&lo);
    note!("dd read {bytes} B in {secs:.3} s; cgroup saw {seen:?}");
    assert_eq!(seen.read_bytes, bytes, "throttle counters");
    // The throttle lets a small burst through at the start; 5 % covers it.
    assert_near("dd bw [B/s]", bytes as f64 / secs, limit as f64, 0.05);
}

/// A settled throttle lets the same burst through each time (one slice's worth, 2 MiB at
/// 20 MiB/s), whatever the group did before the pause: the ground truth of the timing
/// tests that settle before they measure (`truth::apps`).
#[test]
fn harness_settled_throttle_gives_the_same_burst_each_time() {
    need_root!();
    let lo = LoopDev::new_sparse(64 * MIB);
    let cg = Cgroup::new();
    cg.limit(&lo, Limit::ReadBps(20 * MIB));
    let first = cg.read_burst(&lo);
    // Keep the group busy (3 MiB, held back for a slice) right up to the pause: the
    // settle must undo this.
    let mut dd = cg.command("dd");
    dd.arg(format!("if={}", lo.path().display()));
    dd.args(["of=/dev/null", "bs=256k", "iflag=direct", "status=none", "skip=64", "count=12"]);
    let out = output_with_timeout(&mut dd, TIMEOUT);
    assert!(out.status.success(), "dd failed: {}", String::from_utf8_lossy(&out.stderr));
    let second = cg.read_burst(&lo);
    note!("settled bursts: {first}; {second}");
    assert_eq!(first.bytes, second.bytes, "different bursts: {first}; {second}");
}

fn loop_backing(kernel_name: &str) -> Option<String> {
    std::fs::read_to_string(format!("/sys/block/{kernel_name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}

struct Created {
    loop_name: String,
    loop_file: std::path::PathBuf,
    fs_loop_name: String,
    fs_loop_file: std::path::PathBuf,
    mount: std::path::PathBuf,
    tmpfs: std::path::PathBuf,
    cgroup: std::path::PathBuf,
    zram: u32,
}

/// Odd zram size, so a zram that another test hot_adds meanwhile is not mistaken for ours.
const PROBE_ZRAM_SIZE: u64 = 24 * MIB + 4 * KIB;

/// Creates one of each guard (plus a live child inside the cgroup when `child` is given)
/// and drops them all on return, or panics while they are alive.
fn create_everything(panic_at_end: bool, child: Option<&mut Option<std::process::Child>>) -> Created {
    let lo = LoopDev::new_sparse(16 * MIB);
    let z = Zram::new(PROBE_ZRAM_SIZE);
    let fs = Ext4Mount::new(64 * MIB);
    let t = Tmpfs::new(4 * MIB);
    let cg = Cgroup::new();
    cg.limit(&lo, Limit::ReadIops(1000));
    cg.limit(&z, Limit::WriteBps(MIB));
    // A child still running inside the cgroup when the guard drops: Drop must move it out.
    if let Some(slot) = child {
        let ch = cg.command("sleep").arg("30").spawn().expect("spawn sleep");
        assert_eq!(cg.procs(), vec![ch.id()], "child not in the cgroup");
        *slot = Some(ch);
    }
    let c = Created {
        loop_name: lo.kernel_name(),
        loop_file: lo.backing_file().to_path_buf(),
        fs_loop_name: fs.dev().kernel_name(),
        fs_loop_file: fs.dev().backing_file().to_path_buf(),
        mount: fs.dir().to_path_buf(),
        tmpfs: t.dir().to_path_buf(),
        cgroup: cg.path().to_path_buf(),
        zram: z.index(),
    };
    std::fs::write(fs.dir().join("busy"), b"x").unwrap();
    assert!(c.loop_file.exists() && c.cgroup.exists() && Path::new(&format!("/dev/zram{}", c.zram)).exists());
    if panic_at_end {
        panic!("deliberate panic with every resource alive");
    }
    c
}

fn assert_all_gone(c: &Created) {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    for (name, file) in [(&c.loop_name, &c.loop_file), (&c.fs_loop_name, &c.fs_loop_file)] {
        let b = loop_backing(name).unwrap_or_default();
        assert!(!b.starts_with(&*file.to_string_lossy()), "{name} still attached to {b}");
        assert!(!file.exists(), "backing file {} still exists", file.display());
    }
    for dir in [&c.mount, &c.tmpfs] {
        assert!(!mounts.contains(&*dir.to_string_lossy()), "{} still mounted", dir.display());
        assert!(!dir.exists(), "{} still exists", dir.display());
    }
    assert!(!c.cgroup.exists(), "{} still exists", c.cgroup.display());
    let ds = std::fs::read_to_string(format!("/sys/block/zram{}/disksize", c.zram)).unwrap_or_default();
    assert_ne!(ds.trim(), PROBE_ZRAM_SIZE.to_string(), "zram{} still configured", c.zram);
}

#[test]
fn harness_cleans_up_after_normal_drop() {
    need_root!();
    let mut child = None;
    let c = create_everything(false, Some(&mut child));
    let mut child = child.expect("child");
    let still_running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still_running, "the child should have outlived the cgroup guard");
    assert_all_gone(&c);
    note!(
        "  all resources removed: {} {} {} zram{}",
        c.loop_name,
        c.fs_loop_name,
        c.cgroup.display(),
        c.zram
    );
}

#[test]
fn harness_cleans_up_when_test_panics() {
    need_root!();
    // Learn the names first, then repeat with a panic and check nothing of the kind leaks:
    // the guards are recreated under new unique names, so look at what exists afterwards.
    let prefix = format!("{}-{}-", crate::common::emu::PREFIX, std::process::id());
    let ours_in = |dir: &str| -> Vec<String> {
        crate::common::emu::list_dir(Path::new(dir))
            .into_iter()
            .filter(|n| n.starts_with(&prefix) && n.contains("harness_cleans_up_when_test_panics"))
            .collect()
    };
    let r = std::panic::catch_unwind(|| create_everything(true, None));
    assert!(r.is_err(), "the closure should have panicked");
    assert!(ours_in("/dev/shm").is_empty(), "leaked in /dev/shm: {:?}", ours_in("/dev/shm"));
    assert!(
        ours_in("/sys/fs/cgroup/blkio").is_empty(),
        "leaked cgroups: {:?}",
        ours_in("/sys/fs/cgroup/blkio")
    );
    let tmp = std::env::temp_dir();
    assert!(ours_in(&tmp.to_string_lossy()).is_empty(), "leaked mount dirs in {}", tmp.display());
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(&prefix) || !mounts.contains("harness_cleans_up_when_test_panics"),
        "leaked mounts"
    );
    for e in std::fs::read_dir("/sys/block").unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(b) = loop_backing(&n) {
            assert!(!b.contains("harness_cleans_up_when_test_panics"), "{n} still attached to {b}");
        }
    }
    note!("nothing leaked after a panic");
}

/// A command that does not finish in time is killed, and the failure says where it and
/// its children were: a hang's cause is named by the report, not guessed afterwards.
#[test]
fn harness_timeout_reports_where_the_process_and_its_children_wait() {
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", "sleep 30 & wait"]);
    let started = Instant::now();
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        output_with_timeout(&mut cmd, std::time::Duration::from_millis(300))
    }));
    let message = match failed {
        Ok(_) => panic!("a 30 s command finished within 300 ms"),
        Err(e) => e.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(message.contains("did not finish within 300ms"), "{message}");
    assert!(message.contains("sh -c sleep 30 & wait"), "{message}");
    assert!(
        message.contains("process") && message.contains(": sleep 30"),
        "the child is named: {message}"
    );
    assert!(message.contains("(sleep) S user"), "its thread's state is told: {message}");
    // The grandchild was killed too: it held the pipes, so the failure would have
    // waited the 30 s for it.
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}
