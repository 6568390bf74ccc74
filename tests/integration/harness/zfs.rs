//! Self-test of the live ZFS ([`crate::common::emu::zfs`]), no iolab: every layout shows
//! up in `zpool status` as asked; a throttled member delivers its limit through the
//! daemon (a file read back after an export and import, from the disk, not the ARC); and
//! nothing is left behind, after a normal drop, after a panic, and after a test process
//! is killed (the sweep at the next lab's start).
//!
//! Root, and zfs-fuse (`scripts/test` installs it): under `CI=true` they run, never skip.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::emu::zfs::{DAEMON_RECORD, KSTAT_DIR, Member, Pidfd, Pool, Vdev, imported_pools, process_alive, running_daemon};
use crate::common::emu::{BlockDev, Disk, Layout, MIB, Role, ZfsLab, output_with_timeout, unique_name};
use crate::truth::accuracy::TIMEOUT;
use crate::truth::accuracy::report::assert_near;

macro_rules! need_zfs {
    () => {
        need_root!();
        need_tool!("zfs-fuse");
        need_tool!("zpool");
        need_tool!("zfs");
    };
}

/// The vdev tree `zpool status` should show for `pool`, from the layout asked for and the
/// members' kernel names (not from anything the lab says about the pool).
fn expected_tree(pool: &Pool, layout: Layout, log: bool, cache: bool) -> Vec<Vdev> {
    let names = |role: Role| -> Vec<String> { pool.members_of(role).map(|m| m.kernel_name()).collect() };
    let mut want = vec![Vdev::new(0, pool.name())];
    let data = names(Role::Data);
    assert_eq!(data.len(), layout.disks());
    match layout.keyword() {
        None => want.extend(data.iter().map(|n| Vdev::new(1, n))),
        Some(k) => {
            want.push(Vdev::new(1, format!("{k}-0")));
            want.extend(data.iter().map(|n| Vdev::new(2, n)));
        }
    }
    if log {
        want.push(Vdev::new(0, "logs"));
        want.extend(names(Role::Log).iter().map(|n| Vdev::new(1, n)));
    }
    if cache {
        want.push(Vdev::new(0, "cache"));
        want.extend(names(Role::Cache).iter().map(|n| Vdev::new(1, n)));
    }
    want
}

/// Each member's MAJ:MIN is its kernel device's (`/sys/block/NAME/dev`).
fn check_member_numbers(m: &Member) {
    let sys = fs::read_to_string(format!("/sys/block/{}/dev", m.kernel_name())).unwrap_or_default();
    assert_eq!(sys.trim(), m.majmin(), "{} numbers", m.dev_path().display());
}

fn fstype_at(dir: &Path) -> Option<String> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter(|l| l.split(' ').nth(4) == Some(&*dir.to_string_lossy()))
        .filter_map(|l| l.split(" - ").nth(1)?.split(' ').next().map(str::to_string))
        .next_back()
}

/// Mount ids at /zfs-kstat, to tell a mount of ours from one that was there before.
fn kstat_mount_ids() -> BTreeSet<String> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    text.lines()
        .filter(|l| l.split(' ').nth(4) == Some(KSTAT_DIR))
        .filter_map(|l| l.split(' ').next().map(str::to_string))
        .collect()
}

#[test]
fn zfs_lab_makes_every_layout() {
    need_zfs!();
    let t0 = Instant::now();
    let lab = ZfsLab::start();
    note!(
        "daemon pid {} ({}), {:?}; answered in {:.0} ms",
        lab.daemon_pid(),
        if lab.started_daemon() {
            "started by the lab"
        } else {
            "already running"
        },
        lab.daemon_args(),
        lab.daemon_start_time().as_secs_f64() * 1e3
    );
    assert!(
        lab.cgroup().procs().contains(&lab.daemon_pid()),
        "the daemon is not in the lab's cgroup"
    );
    let disk = Disk::new(64 * MIB);
    let cases: &[(Layout, bool, bool)] = &[
        (Layout::Single, false, false),
        (Layout::Stripe(2), false, false),
        (Layout::Mirror(2), false, false),
        (Layout::Mirror(3), false, false),
        (Layout::RaidZ1(3), false, false),
        (Layout::RaidZ2(4), false, false),
        (Layout::Mirror(2), true, true),
    ];
    for &(layout, log, cache) in cases {
        let t = Instant::now();
        let mut b = lab.pool(layout, disk);
        if log {
            b = b.log(disk);
        }
        if cache {
            b = b.cache(disk);
        }
        let pool = b.create();
        let created = t.elapsed();
        let got = pool.vdev_tree();
        let want = expected_tree(&pool, layout, log, cache);
        assert_eq!(got, want, "{layout:?} (log {log}, cache {cache}):\n{}", pool.status());
        assert_eq!(fstype_at(pool.mountpoint()).as_deref(), Some("fuse.zfs"), "{layout:?} mount");
        pool.members().iter().for_each(check_member_numbers);
        let name = pool.name().to_string();
        let t = Instant::now();
        drop(pool);
        note!(
            "{layout:?}{}{}: created in {:.0} ms, gone in {:.0} ms",
            if log { " + log" } else { "" },
            if cache { " + cache" } else { "" },
            created.as_secs_f64() * 1e3,
            t.elapsed().as_secs_f64() * 1e3
        );
        assert!(!imported_pools().contains(&name), "{name} still imported after its drop");
    }
    // The ARC's maximum the lab asks for (64 MiB), when the lab started the daemon.
    if lab.started_daemon() {
        assert_eq!(
            lab.arcstat("c_max"),
            Some(64 * MIB),
            "arcstats/c_max of a daemon started with --max-arc-size 64"
        );
    }
    drop(lab);
    note!("all layouts in {:.2} s", t0.elapsed().as_secs_f64());
}

/// `dd iflag=direct bs=512K` of a 64 MiB file on a single disk throttled to 20 MiB/s for
/// reads, after an export and import (the ARC holds none of it): the figure is the
/// member's limit, ±3 %; the member read at least the file. Also checks a child
/// dataset's properties and the member's `O_DIRECT` after the import (`Pool::import`).
#[test]
fn zfs_single_disk_reads_at_its_limit_after_export_import() {
    need_zfs!();
    need_tool!("dd");
    const LIMIT: u64 = 20 * MIB;
    const SIZE: u64 = 64 * MIB;
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Single, Disk::new(256 * MIB).read_bps(LIMIT)).create();
    let ds = pool.dataset("data", &[("recordsize", "128K"), ("primarycache", "metadata"), ("atime", "off")]);
    assert_eq!(ds.get("recordsize"), "128K");
    assert_eq!(ds.get("primarycache"), "metadata");
    assert_eq!(ds.mountpoint(), pool.mountpoint().join("data"));
    let file = ds.mountpoint().join("file");
    write_pseudo_random(&file, SIZE);
    pool.export();
    pool.import();
    let member = &pool.members()[0];
    let before = lab.cgroup().io_count(member);
    lab.cgroup().settle();
    let t = Instant::now();
    let out = output_with_timeout(
        Command::new("dd")
            .arg(format!("if={}", file.display()))
            .args(["of=/dev/null", "bs=512K", "iflag=direct", "status=none"]),
        TIMEOUT,
    );
    let secs = t.elapsed().as_secs_f64();
    assert!(out.status.success(), "dd failed: {}", String::from_utf8_lossy(&out.stderr));
    let after = lab.cgroup().io_count(member);
    let (read, ios) = (after.read_bytes - before.read_bytes, after.read_ios - before.read_ios);
    note!(
        "dd read {SIZE} B in {secs:.3} s ({:.2} MiB/s); the member read {read} B in {ios} I/Os ({:.2} MiB/s over the same time)",
        SIZE as f64 / secs / MIB as f64,
        read as f64 / secs / MIB as f64
    );
    assert!(read >= SIZE, "the member read {read} B of a {SIZE} B file: the ARC answered");
    assert_near("dd of a file on the pool [B/s]", SIZE as f64 / secs, LIMIT as f64, 0.03);
}

/// `size` bytes of pseudo-random data (no compression or zero detection helps), fsynced.
fn write_pseudo_random(path: &Path, size: u64) {
    let mut f = fs::File::create(path).unwrap_or_else(|e| panic!("create {}: {e}", path.display()));
    let mut buf = vec![0u8; MIB as usize];
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for block in 0..size / MIB {
        for chunk in buf.chunks_exact_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&(x ^ block).to_le_bytes());
        }
        f.write_all(&buf).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
    f.sync_all().unwrap_or_else(|e| panic!("fsync {}: {e}", path.display()));
}

/// What a lab and its pool made, to look for afterwards.
#[derive(Debug)]
struct Made {
    pools: Vec<String>,
    loops: Vec<(String, PathBuf)>,
    mountpoints: Vec<PathBuf>,
    cgroup: PathBuf,
    daemon: u32,
    started_daemon: bool,
}

impl Made {
    fn of(lab: &ZfsLab, pools: &[&Pool]) -> Made {
        Made {
            pools: pools.iter().map(|p| p.name().to_string()).collect(),
            loops: pools
                .iter()
                .flat_map(|p| p.members())
                .map(|m| (m.kernel_name(), m.dev().backing_file().to_path_buf()))
                .collect(),
            mountpoints: pools.iter().map(|p| p.mountpoint().to_path_buf()).collect(),
            cgroup: lab.cgroup().path().to_path_buf(),
            daemon: lab.daemon_pid(),
            started_daemon: lab.started_daemon(),
        }
    }

    /// Everything exists (before the drop, or after a kill).
    fn assert_alive(&self) {
        let imported = imported_pools();
        for p in &self.pools {
            assert!(imported.contains(p), "{p} is not imported");
        }
        for (name, file) in &self.loops {
            assert_eq!(loop_backing(name).as_deref(), Some(&*file.to_string_lossy()), "{name}");
        }
        assert!(self.cgroup.exists(), "{} missing", self.cgroup.display());
        assert!(process_alive(self.daemon), "the daemon (pid {}) is not running", self.daemon);
    }

    /// Nothing is left: no pool, loop device, backing file, mount, cgroup; no daemon or
    /// kstat mount of ours when we started the daemon (`kstat_before`: the mounts at
    /// /zfs-kstat and whether the directory existed before the lab).
    fn assert_gone(&self, kstat_before: &(BTreeSet<String>, bool)) {
        let imported = imported_pools();
        for p in &self.pools {
            assert!(!imported.contains(p), "{p} still imported");
        }
        let losetup = Command::new("losetup").arg("-a").output().expect("losetup -a");
        let losetup = String::from_utf8_lossy(&losetup.stdout);
        for (name, file) in &self.loops {
            let b = loop_backing(name).unwrap_or_default();
            assert!(!b.starts_with(&*file.to_string_lossy()), "{name} still attached to {b}");
            assert!(
                !losetup.contains(&*file.to_string_lossy()),
                "losetup -a still lists {}",
                file.display()
            );
            assert!(!file.exists(), "{} still exists", file.display());
        }
        for m in &self.mountpoints {
            assert!(fstype_at(m).is_none(), "{} still mounted", m.display());
            assert!(!m.exists(), "{} still exists", m.display());
        }
        assert!(!self.cgroup.exists(), "{} still exists", self.cgroup.display());
        if self.started_daemon {
            assert!(
                !process_alive(self.daemon),
                "the daemon we started (pid {}) still runs",
                self.daemon
            );
            assert_ne!(running_daemon(), Some(self.daemon), "the daemon's lock is still held");
            let (mounts, existed) = kstat_before;
            let left: Vec<_> = kstat_mount_ids().difference(mounts).cloned().collect();
            assert!(left.is_empty(), "kstat mounts of ours left at {KSTAT_DIR}: {left:?}");
            if !existed {
                assert!(!Path::new(KSTAT_DIR).exists(), "{KSTAT_DIR} left behind");
            }
            assert!(!Path::new(DAEMON_RECORD).exists(), "{DAEMON_RECORD} left behind");
        } else {
            // A daemon that was running goes back to where it was.
            let cg = fs::read_to_string(format!("/proc/{}/cgroup", self.daemon)).unwrap_or_default();
            assert!(
                !cg.contains(&*self.cgroup.file_name().unwrap().to_string_lossy()),
                "the daemon is still in the lab's cgroup: {cg}"
            );
        }
    }
}

fn loop_backing(kernel_name: &str) -> Option<String> {
    fs::read_to_string(format!("/sys/block/{kernel_name}/loop/backing_file"))
        .ok()
        .map(|s| s.trim().to_string())
}

fn kstat_state() -> (BTreeSet<String>, bool) {
    // A dead FUSE mount there (a daemon killed earlier) answers ENOTCONN, which
    // `exists` takes for absent: the directory is there all the same.
    let existed = Path::new(KSTAT_DIR).exists() || crate::common::emu::zfs::kstat_mount_is_dead();
    (kstat_mount_ids(), existed)
}

/// A lab with a throttled mirror, a log and a cache device, and a dataset with a file
/// open on it; or `panic_at_end`, with all of it alive.
fn make_everything(panic_at_end: bool) -> Made {
    let lab = ZfsLab::start();
    let disk = Disk::new(64 * MIB).read_bps(50 * MIB).write_bps(50 * MIB);
    let pool = lab.pool(Layout::Mirror(2), disk).log(disk).cache(disk).create();
    let single = lab.pool(Layout::Single, disk).create();
    let ds = pool.dataset("busy", &[]);
    // Closed as the test ends or unwinds, before the pools go (a file still open on a
    // pool when it drops keeps it busy: see `Pool`'s drop).
    let mut f = fs::File::create(ds.mountpoint().join("open")).expect("create a file on the pool");
    f.write_all(b"x").expect("write");
    let made = Made::of(&lab, &[&pool, &single]);
    made.assert_alive();
    if panic_at_end {
        panic!("deliberate panic with the lab, two pools and an open file alive");
    }
    made
}

#[test]
fn zfs_lab_leaves_nothing_behind() {
    need_zfs!();
    let before = kstat_state();
    let t = Instant::now();
    let made = make_everything(false);
    made.assert_gone(&before);
    note!(
        "nothing left of {:?} (daemon {} by the lab) after {:.2} s",
        made.pools,
        if made.started_daemon { "started" } else { "not started" },
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn zfs_lab_cleans_up_when_a_test_panics() {
    need_zfs!();
    let before = kstat_state();
    let daemon_before = running_daemon();
    // Panic with everything alive, then look for anything of this test's that is left.
    let r = std::panic::catch_unwind(|| make_everything(true));
    assert!(r.is_err(), "the closure should have panicked");
    let prefix = format!("{}-{}-", crate::common::emu::PREFIX, std::process::id());
    let test = "zfs_lab_cleans_up_when_a_test_panics";
    let ours = |n: &str| n.starts_with(&prefix) && n.contains(test);
    let pools: Vec<_> = imported_pools().into_iter().filter(|n| ours(n)).collect();
    assert!(pools.is_empty(), "pools left: {pools:?}");
    for dir in ["/dev/shm", "/sys/fs/cgroup/blkio", &*std::env::temp_dir().to_string_lossy()] {
        let left: Vec<_> = crate::common::emu::list_dir(Path::new(dir))
            .into_iter()
            .filter(|n| ours(n))
            .collect();
        assert!(left.is_empty(), "left in {dir}: {left:?}");
    }
    for e in fs::read_dir("/sys/block").unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(b) = loop_backing(&n) {
            assert!(!b.contains(test), "{n} still attached to {b}");
        }
    }
    let (mounts, existed) = &before;
    assert!(
        kstat_mount_ids().difference(mounts).next().is_none(),
        "a kstat mount of ours is left"
    );
    assert!(*existed || !Path::new(KSTAT_DIR).exists(), "{KSTAT_DIR} left behind");
    assert_eq!(
        running_daemon(),
        daemon_before,
        "the daemon running before (if any) is not the one running after"
    );
    note!("nothing left after a panic");
}

/// Set for the child process of `zfs_sweep_cleans_up_after_a_killed_test`: the file it
/// writes what it made to.
const CHILD_VAR: &str = "IOLAB_TEST_ZFS_KILLED_CHILD";

/// Not a test of its own: the process that `zfs_sweep_cleans_up_after_a_killed_test`
/// starts and kills. It makes a lab and a pool, says what it made, and waits.
#[test]
#[ignore = "the child of zfs_sweep_cleans_up_after_a_killed_test (does nothing on its own)"]
fn zfs_killed_child() {
    let Some(out) = std::env::var_os(CHILD_VAR) else {
        note!("{CHILD_VAR} is not set: nothing to do");
        return;
    };
    let lab = ZfsLab::start();
    let disk = Disk::new(64 * MIB).read_bps(30 * MIB);
    let pool = lab.pool(Layout::Mirror(2), disk).create();
    let ds = pool.dataset("d", &[("primarycache", "metadata")]);
    fs::write(ds.mountpoint().join("f"), b"x").expect("write on the pool");
    let made = Made::of(&lab, &[&pool]);
    let mut text = format!(
        "cgroup={}\ndaemon={}\nstarted={}\n",
        made.cgroup.display(),
        made.daemon,
        made.started_daemon as u8
    );
    for p in &made.pools {
        text += &format!("pool={p}\n");
    }
    for (n, f) in &made.loops {
        text += &format!("loop={n} {}\n", f.display());
    }
    for m in &made.mountpoints {
        text += &format!("mount={}\n", m.display());
    }
    let tmp = PathBuf::from(format!("{}.tmp", out.to_string_lossy()));
    fs::write(&tmp, text).expect("write the child's report");
    fs::rename(&tmp, &out).expect("rename the child's report");
    thread::sleep(Duration::from_secs(120));
}

/// A test process killed with its lab alive leaves a pool, its members, the cgroup (with
/// the daemon in it) and the daemon it started; the next lab's start sweeps all of it.
#[test]
fn zfs_sweep_cleans_up_after_a_killed_test() {
    need_zfs!();
    let before = kstat_state();
    let report = std::env::temp_dir().join(unique_name("report"));
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "harness::zfs::zfs_killed_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, &report)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start the child test");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !report.exists() {
        if let Some(s) = child.try_wait().expect("try_wait") {
            panic!("the child test exited ({s}) before it made its lab");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child test did not make its lab within 60 s");
        }
        thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("SIGKILL the child");
    child.wait().expect("reap the child");
    let text = fs::read_to_string(&report).expect("the child's report");
    let _ = fs::remove_file(&report);
    let get = |k: &'static str| text.lines().filter_map(move |l| l.strip_prefix(k)?.strip_prefix('='));
    let made = Made {
        pools: get("pool").map(str::to_string).collect(),
        loops: get("loop")
            .map(|l| {
                let (n, f) = l.split_once(' ').expect("loop=NAME FILE");
                (n.to_string(), PathBuf::from(f))
            })
            .collect(),
        mountpoints: get("mount").map(PathBuf::from).collect(),
        cgroup: PathBuf::from(get("cgroup").next().expect("cgroup")),
        daemon: get("daemon").next().and_then(|v| v.parse().ok()).expect("daemon"),
        started_daemon: get("started").next() == Some("1"),
    };
    note!("the killed child left: {made:?}");
    made.assert_alive();
    let t = Instant::now();
    let lab = ZfsLab::start();
    let swept = t.elapsed();
    if made.started_daemon {
        assert_ne!(lab.daemon_pid(), made.daemon, "the dead test's daemon is still the one in use");
    }
    drop(lab);
    made.assert_gone(&before);
    note!("the next lab's start swept it all in {:.0} ms", swept.as_secs_f64() * 1e3);
}

/// The sweep's wait for a killed daemon: a process whose leader thread has exited shows
/// as a zombie (`process_alive` is false) while its other threads still run and hold its
/// files — for zfs-fuse, /dev/fuse, so its kstat mount still answers, and the sweep took
/// it for another daemon's and left it, with the directory it made ("/zfs-kstat left
/// behind" on a fresh machine). [`Pidfd::wait_exited`] returns only once the last thread
/// is gone: here a python3 whose main thread exits at once and whose other thread holds
/// the pipe for 1.5 s.
#[test]
fn zfs_sweep_waits_until_every_thread_of_the_daemon_is_gone() {
    need_tool!("python3");
    let script = "import ctypes, os, sys, threading, time\n\
                  def rest():\n    time.sleep(1.5)\n    os._exit(0)\n\
                  threading.Thread(target=rest).start()\n\
                  ctypes.CDLL(None).syscall(int(sys.argv[1]), 0)\n";
    let mut child = Command::new("python3")
        .args(["-c", script, &libc::SYS_exit.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start python3");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let pidfd = Pidfd::open(pid).expect("a pidfd of the child");
    let t0 = Instant::now();
    while process_alive(pid) {
        assert!(t0.elapsed() < Duration::from_secs(10), "the child's main thread did not exit");
        thread::sleep(Duration::from_millis(5));
    }
    let leader_gone = t0.elapsed();
    let eof_now = |out: &std::process::ChildStdout| {
        let mut p = libc::pollfd {
            fd: out.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll(2) on one valid pollfd, without waiting.
        unsafe { libc::poll(&mut p, 1, 0) > 0 }
    };
    assert!(
        !eof_now(&out),
        "the pipe closed as the leader exited: the test shows nothing (the thread should hold it 1.5 s)"
    );
    assert!(pidfd.wait_exited(Duration::from_secs(10)), "the child did not exit within 10 s");
    let all_gone = t0.elapsed();
    assert!(
        eof_now(&out),
        "wait_exited returned while a thread of the process still held its files"
    );
    let mut rest = Vec::new();
    assert_eq!(out.read_to_end(&mut rest).expect("read the pipe"), 0, "EOF: every thread gone");
    child.wait().expect("reap the child");
    note!(
        "the leader was a zombie after {:.0} ms, the last thread gone after {:.0} ms",
        leader_gone.as_secs_f64() * 1e3,
        all_gone.as_secs_f64() * 1e3
    );
}
