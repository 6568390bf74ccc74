//! `iolab layouts` on emulated disks: each configuration built, measured and torn down,
//! the runs compared, and nothing left: no pool, no mount, no btrfs registration, no
//! journal, and no signature iolab wrote on the devices. A device in use stops the whole
//! plan before anything is built.
//!
//! Root; zfs-fuse for the ZFS case. Under `CI=true` they run, never skip.

use crate::common::emu::{Disk, Layout, LoopDev, MIB, ZfsLab};
use crate::common::{iolab, json_of};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A short battery: the dd suite at 128K, one run of one second over 32 MiB.
const SHORT: [&str; 12] = [
    "--suite",
    "dd",
    "--bs",
    "128K",
    "--runs",
    "1",
    "--duration",
    "1s",
    "--size",
    "32MiB",
    "--warmup",
    "0",
];

fn signature(dev: &Path) -> String {
    let out = Command::new("blkid").arg("-p").arg(dev).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Nothing of a layouts run is left: no mount or pool of iolab's (imported, or found on
/// the devices by an import scan or in their labels), no btrfs filesystem on them, no
/// journal, no signature. Of every layouts run, or with `run` of that run only (other
/// tests may run `iolab layouts` at the same time).
fn nothing_left(devs: &[&LoopDev]) {
    nothing_left_of(devs, None)
}

fn nothing_left_of(devs: &[&LoopDev], run: Option<&str>) {
    let prefix = format!("layouts-{}", run.unwrap_or(""));
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mounts.contains(&format!("/run/iolab/{prefix}")), "a mount is left: {mounts}");
    for d in devs {
        let dev = format!(" {} ", d.path().display());
        assert!(!mounts.contains(&dev), "{} is mounted: {mounts}", d.path().display());
    }
    if let Ok(entries) = std::fs::read_dir("/run/iolab") {
        let dirs: Vec<_> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        assert!(dirs.is_empty(), "directories left: {dirs:?}");
    }
    for d in devs {
        assert_eq!(signature(d.path()), "", "{} still carries a signature", d.path().display());
    }
    if let Ok(entries) = std::fs::read_dir("/var/lib/iolab/layouts") {
        let ours: Vec<_> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| run.is_none_or(|r| n.starts_with(&format!("{r}-"))))
            .collect();
        assert!(ours.is_empty(), "journals left: {ours:?}");
    }
    // iolab's pools are iolab-RUNID-N; the ZFS lab's own are iolab-test-*.
    let pool = format!("iolab-{}", run.map(|r| format!("{r}-")).unwrap_or_default());
    let iolabs = |text: &str| text.lines().any(|l| l.contains(&pool) && !l.contains("iolab-test-"));
    let pools = Command::new("zpool").args(["list", "-H", "-o", "name"]).output();
    let zfs_answers = pools.as_ref().is_ok_and(|p| p.status.success());
    if let Ok(p) = pools {
        let text = String::from_utf8_lossy(&p.stdout);
        assert!(!iolabs(&text), "a pool is left imported: {text}");
    }
    if zfs_answers {
        // Not remembered: neither an import scan of the devices nor their labels find a pool.
        let scan = tempfile::tempdir().unwrap();
        for d in devs {
            std::os::unix::fs::symlink(d.path(), scan.path().join(d.path().file_name().unwrap())).unwrap();
        }
        let found = Command::new("zpool").arg("import").arg("-d").arg(scan.path()).output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&found.stdout),
            String::from_utf8_lossy(&found.stderr)
        );
        assert!(!text.contains("pool:"), "an importable pool is left on the devices: {text}");
        for d in devs {
            let labels = Command::new("zdb").arg("-l").arg(d.path()).output().unwrap();
            let text = String::from_utf8_lossy(&labels.stdout);
            assert!(
                !iolabs(&text),
                "{} still carries a ZFS label of iolab's: {text}",
                d.path().display()
            );
        }
    }
    if which("btrfs") {
        let show = Command::new("btrfs").args(["filesystem", "show"]).output().unwrap();
        let show = String::from_utf8_lossy(&show.stdout);
        for d in devs {
            let one = Command::new("btrfs").args(["filesystem", "show"]).arg(d.path()).output().unwrap();
            assert!(
                !one.status.success(),
                "btrfs finds a filesystem on {}: {}",
                d.path().display(),
                String::from_utf8_lossy(&one.stdout)
            );
            let path = d.path().display().to_string();
            assert!(
                !show.lines().any(|l| l.trim_end().ends_with(&format!("path {path}"))),
                "btrfs still lists {path}: {show}"
            );
        }
    }
}

fn which(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn digest(dev: &Path) -> String {
    let out = Command::new("md5sum").arg(dev).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split(' ').next().unwrap().to_string()
}

#[test]
fn ext4_against_btrfs_raid1_built_measured_compared_and_torn_down() {
    need_root!();
    need_tool!("mkfs.ext4");
    need_tool!("mkfs.btrfs");
    need_tool!("blkid");
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut cmd = iolab();
    cmd.arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "ext4,btrfs-raid1"])
        .args(SHORT)
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let labels: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["ext4", "btrfs-raid1"], "{}", v["runs"]);
    let tests: Vec<&str> = v["tests"].as_array().unwrap().iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert!(tests.contains(&"DD write 128K") && tests.contains(&"DD read 128K"), "{tests:?}");
    nothing_left(&[&a, &b]);
    // btrfs forgot the devices: a scan lists neither.
    let show = Command::new("btrfs").args(["filesystem", "show"]).output().unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    for d in [&a, &b] {
        assert!(!show.contains(&*d.path().display().to_string()), "{show}");
    }
}

#[test]
fn zfs_single_against_a_mirror_built_by_iolab_and_destroyed() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("blkid");
    let lab = ZfsLab::start();
    // The lab's own pool keeps the daemon's lab alive; iolab builds its pools beside it.
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut cmd = iolab();
    cmd.arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs,zfs-mirror2"])
        .args(SHORT)
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let labels: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["zfs", "zfs-mirror2"], "{}", v["runs"]);
    nothing_left(&[&a, &b]);
}

/// Issue 36: on three 320 MiB disks without `--size`, every configuration of the default
/// plan used to be built and then refused the default 1 GiB test file ("not enough free
/// space ... use --size"). The plan now cuts the test file to the smallest
/// configuration's room and says so; every configuration is measured.
#[test]
fn three_320_mib_disks_get_a_test_file_every_configuration_holds() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("mkfs.ext4");
    need_tool!("mkfs.xfs");
    need_tool!("mkfs.btrfs");
    need_tool!("blkid");
    let lab = ZfsLab::start();
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let devs: Vec<LoopDev> = (0..3).map(|_| LoopDev::new_sparse(320 * MIB)).collect();
    let dry = iolab()
        .arg("layouts")
        .args(devs.iter().map(|d| d.path()))
        .arg("--dry-run")
        .output()
        .unwrap();
    let dry = String::from_utf8_lossy(&dry.stdout).into_owned();
    let planned: Vec<String> = dry
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.trim_start().split_once(". ")?;
            (n.parse::<u32>().is_ok() && rest.contains(" on /dev/")).then(|| rest.split_whitespace().next().unwrap().to_string())
        })
        .collect();
    let line = "test file: 224.00 MiB on each configuration, not the default 1.00 GiB";
    assert!(dry.contains(line), "{dry}");
    assert!(
        planned.len() >= 5 && planned.iter().any(|c| c.starts_with("zfs-")),
        "{planned:?}\n{dry}"
    );
    let mut cmd = iolab();
    cmd.arg("layouts")
        .args(devs.iter().map(|d| d.path()))
        .args(["--allow-destroy", "--rw", "read", "--bs", "1M", "--qd", "4"])
        .args(["--runs", "1", "--duration", "1s", "--warmup", "0", "--interval", "0"])
        .args(["--no-store", "--json", "-"]);
    let out = crate::common::emu::output_with_timeout(&mut cmd, Duration::from_secs(600));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("not enough"), "{stderr}");
    assert!(stderr.contains(line), "the run says the size it chose: {stderr}");
    let v = crate::common::json_out(&out);
    let labels: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, planned, "every configuration measured: {stderr}");
    let t = v["tests"].as_array().unwrap().first().expect("a test");
    for (c, f) in planned.iter().zip(t["values"].as_array().unwrap()) {
        assert!(f.as_f64().is_some_and(|f| f > 0.0), "{c}: {f}");
    }
    nothing_left(&devs.iter().collect::<Vec<_>>());
}

#[test]
fn a_device_in_use_stops_the_whole_plan_before_anything_is_built() {
    need_root!();
    need_tool!("mkfs.ext4");
    let (a, b) = (LoopDev::new(64 * MIB), LoopDev::new_sparse(64 * MIB));
    let mk = Command::new("mkfs.ext4").args(["-F", "-q"]).arg(b.path()).status().unwrap();
    assert!(mk.success());
    let dir = tempfile::tempdir().unwrap();
    let m = Command::new("mount").arg(b.path()).arg(dir.path()).status().unwrap();
    assert!(m.success());
    let before = digest(a.path());
    let out = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--force", "--try", "ext4,btrfs-raid1"])
        .args(SHORT)
        .args(["--no-store"])
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(dir.path()).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("layouts builds nothing") && err.contains("mounted"), "{err}");
    assert_eq!(digest(a.path()), before, "the free device was written");
}

/// One moment of a layouts run a signal is sent at: the configurations tried, the test
/// knob's point the run is held at (`IOLAB_TEST_PAUSE_AT`, see `src/base/testknob.rs`),
/// what happens there, and the signal.
struct Moment {
    try_: &'static str,
    point: &'static str,
    what: &'static str,
    sig: i32,
}

impl Moment {
    /// The exit status: 128 + the signal, except during the last configuration's
    /// teardown: then every measurement is done and kept whole, and the run ends as
    /// finished (0), as a signal during the store transaction of `iolab run` does.
    fn exit(&self) -> i32 {
        let last = self.try_.split(',').count();
        if self.point.starts_with(&format!("layouts-teardown-{last}-")) {
            0
        } else {
            128 + self.sig
        }
    }
}

const TERM: i32 = libc::SIGTERM;
const INT: i32 = libc::SIGINT;

/// Signals at moments of each build, measurement and teardown step of ext4, btrfs raid1
/// and a ZFS mirror: each run is held at the named point (the step about to run), the
/// signal sent there, and the run must stop (its teardown whole, also when the signal
/// came during the teardown) with nothing left: no mount, pool (imported or importable),
/// btrfs filesystem, journal or signature, and the loop devices free once detached.
#[test]
fn a_signal_at_each_build_measure_and_teardown_step_leaves_nothing() {
    need_root!();
    need_tool!("mkfs.ext4");
    need_tool!("mkfs.btrfs");
    need_tool!("blkid");
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    let m = |try_, point, what, sig| Moment { try_, point, what, sig };
    // Build steps: 1 mkdir, 2 mkfs or zpool create, 3 mount. Teardown, in the order it
    // runs: ext4 umount, wipe, rmdir; btrfs raid1 umount, forget, forget, wipe, wipe,
    // rmdir; ZFS destroy, wipe (and zero the labels), wipe, rmdir.
    let moments = [
        m("ext4", "layouts-build-1-2", "ext4: mkfs.ext4", TERM),
        m("ext4", "layouts-build-1-3", "ext4: mount", INT),
        m("ext4", "flush", "ext4: the measurement (a write's flush)", TERM),
        m("ext4", "layouts-teardown-1-1", "ext4 teardown: umount", TERM),
        m("ext4", "layouts-teardown-1-2", "ext4 teardown: wipefs", INT),
        m("btrfs-raid1", "layouts-build-1-2", "btrfs-raid1: mkfs.btrfs", TERM),
        m(
            "btrfs-raid1",
            "layouts-measure-1",
            "btrfs-raid1: built, the measurement starting",
            TERM,
        ),
        m("btrfs-raid1", "layouts-teardown-1-1", "btrfs-raid1 teardown: umount", TERM),
        m(
            "btrfs-raid1",
            "layouts-teardown-1-3",
            "btrfs-raid1 teardown: btrfs device scan --forget",
            TERM,
        ),
        m(
            "btrfs-raid1",
            "layouts-teardown-1-5",
            "btrfs-raid1 teardown: wipefs of the 2nd",
            INT,
        ),
        m(
            "ext4,btrfs-raid1",
            "layouts-teardown-1-2",
            "the 1st configuration's teardown (ext4: wipefs), the 2nd not built yet",
            TERM,
        ),
        m(
            "ext4,btrfs-raid1",
            "layouts-build-2-3",
            "the 2nd configuration (btrfs-raid1): mount",
            TERM,
        ),
        m("zfs-mirror2", "layouts-build-1-2", "zfs-mirror2: zpool create", TERM),
        m("zfs-mirror2", "prefill", "zfs-mirror2: the measurement (a read's prefill)", INT),
        m("zfs-mirror2", "layouts-teardown-1-1", "zfs-mirror2 teardown: zpool destroy", TERM),
        m(
            "zfs-mirror2",
            "layouts-teardown-1-2",
            "zfs-mirror2 teardown: wipe and zero the 1st's labels",
            TERM,
        ),
    ];
    for mo in moments.iter().filter(|mo| !mo.try_.starts_with("zfs")) {
        signal_at(mo);
    }
    let lab = ZfsLab::start();
    // The lab's own pool keeps the daemon's lab alive; iolab builds its pools beside it.
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    for mo in moments.iter().filter(|mo| mo.try_.starts_with("zfs")) {
        signal_at(mo);
    }
}

/// One run of [`Moment`], its devices checked after it and then detached.
fn signal_at(mo: &Moment) {
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("paused");
    let mut child = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", mo.try_])
        .args(SHORT)
        .args(["--interval", "0s", "--no-store", "--quiet"])
        .env("IOLAB_TEST_PAUSE_AT", format!("{}:{}", mo.point, flag.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !flag.exists() {
        if let Some(st) = child.try_wait().unwrap() {
            panic!("{}: the run ended ({st}) without reaching {}", mo.what, mo.point);
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "{}: never reached {}", mo.what, mo.point);
        std::thread::sleep(Duration::from_millis(5));
    }
    let run = run_id_of(child.id());
    // The run holds there for a second: the signal arrives while it does.
    // SAFETY: kill(2) of our own child, which is held at the point.
    unsafe { libc::kill(child.id() as i32, mo.sig) };
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("{}: still running 3 minutes after the signal", mo.what);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut err = String::new();
    use std::io::Read;
    let _ = child.stderr.take().unwrap().read_to_string(&mut err);
    let code = status.code();
    note!(
        "{} ({}), {}: exit {code:?} after {:.1}s",
        mo.what,
        mo.point,
        if mo.sig == TERM { "SIGTERM" } else { "SIGINT" },
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(code, Some(mo.exit()), "{}: exit {status}: {err}", mo.what);
    assert!(!err.contains("was not undone"), "{}: {err}", mo.what);
    nothing_left_of(&[&a, &b], Some(&run));
    let held: Vec<(String, std::path::PathBuf)> = [&a, &b]
        .iter()
        .map(|d| {
            (
                d.path().file_name().unwrap().to_string_lossy().into_owned(),
                d.backing_file().to_path_buf(),
            )
        })
        .collect();
    drop((a, b));
    loop_devices_free(&held, mo.what);
}

/// The id of the layouts run of process `pid`, from the name of its journal
/// (`RUNID-CONFIG.json`, owned by `PID@...`), which exists from before its first build step.
fn run_id_of(pid: u32) -> String {
    let owner = format!("\"{pid}@");
    for e in std::fs::read_dir("/var/lib/iolab/layouts").unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        if text.contains(&owner) {
            let name = e.file_name().to_string_lossy().into_owned();
            return name.split('-').next().unwrap().to_string();
        }
    }
    panic!("no journal of pid {pid} in /var/lib/iolab/layouts");
}

/// The test's loop devices are detached once dropped: nothing iolab built holds them.
fn loop_devices_free(held: &[(String, std::path::PathBuf)], what: &str) {
    let start = std::time::Instant::now();
    loop {
        let still: Vec<&String> = held
            .iter()
            .filter(|(name, backing)| {
                std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file"))
                    .is_ok_and(|b| b.trim().trim_end_matches(" (deleted)") == backing.to_string_lossy())
            })
            .map(|(name, _)| name)
            .collect();
        if still.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: {still:?} still bound to the test's files: something holds them"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// SIGKILL in the middle of a ZFS configuration leaves its pool imported and mounted;
/// the next run unwinds the killed run's journal first (pool destroyed, members wiped),
/// then runs, and nothing is left.
#[test]
fn after_sigkill_the_next_run_finishes_the_teardown() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("blkid");
    let lab = ZfsLab::start();
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let (a, b) = (LoopDev::new_sparse(256 * MIB), LoopDev::new_sparse(256 * MIB));
    let mut child = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs-mirror2"])
        .args([
            "--suite",
            "dd",
            "--bs",
            "128K",
            "--runs",
            "3",
            "--duration",
            "2s",
            "--size",
            "32MiB",
        ])
        .args(["--no-store", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the pool, then a little more: the suite is running on it.
    let start = std::time::Instant::now();
    let pool = loop {
        let out = Command::new("zpool").args(["list", "-H", "-o", "name"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if let Some(p) = text.lines().find(|l| l.starts_with("iolab-") && !l.starts_with("iolab-test-")) {
            break p.to_string();
        }
        assert!(start.elapsed() < Duration::from_secs(60), "no pool was built");
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    child.wait().unwrap();
    let listed = Command::new("zpool").args(["list", "-H", "-o", "name", &pool]).output().unwrap();
    assert!(
        listed.status.success(),
        "the killed run's pool {pool} is gone already: the test proves nothing"
    );
    let out = iolab()
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs"])
        .args(SHORT)
        .args(["--no-store"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    note!("{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("undone, left by a killed run: pool {pool}")), "{err}");
    nothing_left(&[&a, &b]);
}
