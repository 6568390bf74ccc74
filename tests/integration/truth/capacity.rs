//! `iolab capacity` on the faulty device ([`FaultDev`]): a 4 GiB device that
//! stores 1 GiB is found fake with its real size (to the probe's
//! granularity) in under a minute, an honest one genuine; without
//! `--allow-destroy` the device's content is unchanged (a SHA-256 of all it
//! stores before and after; a byte-for-byte copy for the honest 4 GiB one),
//! also after SIGTERM in the
//! middle of the probe, and after `kill -9` once `--restore` has run; a
//! mounted device and a regular file are refused; an earlier stored verify
//! that found the device lying vetoes "genuine".
//!
//! Needs root (FUSE, loop devices, mkfs, mount). Without root the tests
//! print a skip notice, except under `CI=true`, where they fail instead.
//! Every test uses a store (and so a backup directory) of its own in a
//! temporary directory. They run one at a time: each holds up to 4 GiB of
//! device in memory, and the time limit is asserted.

use crate::common::emu::faultdev::{FaultDev, FaultSpec};
use crate::common::emu::{LoopDev, MIB, Mount, output_with_timeout, run_checked};
use crate::common::iolab;
use serde_json::Value;
use std::io::{BufRead, BufReader};

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

const GIB: u64 = 1024 * MIB;
/// The probe's default granularity (`verify::probe::DEFAULT_GRANULARITY`).
const GRANULARITY: u64 = MIB;
/// The limit for the fake 4 GiB device.
const LIMIT: Duration = Duration::from_secs(60);

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// A store (and backup directory) of the test's own.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        Lab {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }
    /// `iolab capacity DEV --db DB --json - EXTRA`.
    fn capacity(&self, dev: &Path, extra: &[&str]) -> Command {
        let mut c = iolab();
        c.arg("capacity")
            .arg(dev)
            .arg("--db")
            .arg(self.db())
            .args(["--json", "-"])
            .args(extra);
        c
    }
    /// Backup files left in the store's directory.
    fn backups(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("capacity-"))
            .collect();
        v.sort();
        v
    }
}

fn run(cmd: &mut Command) -> Output {
    let out = output_with_timeout(cmd, Duration::from_secs(300));
    note!("stderr: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// The faulty device's store (the FUSE server's memfd): what the device
/// really holds, past every fault. On a fake it is all the device's content
/// (every announced offset reads one of its bytes), so comparing it compares
/// the device; and it is read at memory speed, not through FUSE.
fn store_of(d: &FaultDev) -> PathBuf {
    d.store_file().expect("the faulty device's store")
}

/// Fill the whole store of `d` with pseudo-random data (AES-CTR from a seed,
/// by openssl: fast and incompressible), then drop the loop device's cache.
fn fill(d: &FaultDev, seed: u64) {
    run_checked(Command::new("sh").arg("-c").arg(format!(
        "openssl enc -aes-128-ctr -pass pass:{seed} -nosalt -pbkdf2 < /dev/zero 2>/dev/null | head -c {} | dd of='{}' conv=notrunc bs=4M iflag=fullblock status=none",
        d.stored(),
        store_of(d).display()
    )));
    run_checked(Command::new("blockdev").arg("--flushbufs").arg(d.path()));
}

/// SHA-256 of everything `d` stores.
fn content(d: &FaultDev) -> String {
    let out = run_checked(Command::new("sha256sum").arg(store_of(d)));
    out.split_whitespace().next().expect("a hash").to_string()
}

/// SHA-256 of the first `len` bytes of `dev`, read with O_DIRECT (past every cache).
fn sha256(dev: &Path, len: u64) -> String {
    assert!(len.is_multiple_of(4 * MIB));
    let out = run_checked(Command::new("sh").arg("-c").arg(format!(
        "dd if='{}' iflag=direct bs=4M count={} status=none | sha256sum",
        dev.display(),
        len / (4 * MIB)
    )));
    out.split_whitespace().next().expect("a hash").to_string()
}

/// A fake 4 GiB device storing 1 GiB, its storage full of random data.
fn fake_4g_1g() -> FaultDev {
    let d = FaultDev::new(FaultSpec {
        announce: 4 * GIB,
        store: Some(GIB),
        ..FaultSpec::clean(4 * GIB)
    });
    fill(&d, 0xfa4e);
    d
}

/// The fake's verdict is right: real size within the granularity below 1 GiB, first bad byte at most one granularity above.
fn assert_fake_1g(v: &Value) {
    let c = &v["capacity"];
    let verdict = &c["verdict"];
    assert_eq!(verdict["kind"], "fake", "{c:#}");
    let real = verdict["real_bytes"].as_u64().unwrap();
    let bad = verdict["first_bad_byte"].as_u64().unwrap();
    assert!(
        real <= GIB && real + GRANULARITY >= GIB,
        "real size {real} not within {GRANULARITY} below 1 GiB"
    );
    assert!(
        (GIB..=GIB + GRANULARITY).contains(&bad),
        "first bad byte {bad} not in [1 GiB, 1 GiB + {GRANULARITY}]"
    );
    assert!(bad - real <= GRANULARITY);
    assert_eq!(verdict["alias_distance"].as_u64(), Some(GIB), "{c:#}");
    let safe = verdict["safe_partition_bytes"].as_u64().unwrap();
    assert!(
        safe > 0 && MIB + safe <= real,
        "safe partition {safe} from 1 MiB passes the real size {real}"
    );
    assert!(c["bytes_written"].as_u64().unwrap() > 0);
    assert!(c["message"].as_str().unwrap().starts_with("FAKE"), "{c:#}");
    // The interruption tests stop it after the first round (the scout): in the middle.
    assert!(c["probe"]["rounds"].as_u64().unwrap() >= 2, "{c:#}");
    note!(
        "{} rounds, {} bytes written, {} read; probe {:.2} s, restore {:.2} s",
        c["probe"]["rounds"],
        c["bytes_written"],
        c["bytes_read"],
        c["probe_s"].as_f64().unwrap(),
        c["restore_s"].as_f64().unwrap()
    );
}

#[test]
fn capacity_finds_a_fake_4gib_device_storing_1gib_and_leaves_it_unchanged() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = fake_4g_1g();
    let before = content(&dev);
    let t0 = Instant::now();
    let out = run(&mut lab.capacity(dev.path(), &[]));
    let took = t0.elapsed();
    note!("capacity of a 4 GiB device storing 1 GiB, without --allow-destroy: {took:.1?}");
    assert_eq!(out.status.code(), Some(3), "a fake device exits 3");
    let v = json(&out);
    assert_fake_1g(&v);
    let c = &v["capacity"];
    assert_eq!(c["destructive"], false);
    assert_eq!(c["direct"], true);
    let b = &c["backup"];
    assert!(b["blocks"].as_u64().unwrap() > 0 && b["blocks"] == b["restored"], "{b:#}");
    assert_eq!(b["kept"], false);
    assert_eq!(b["differing"], 0);
    assert!(c["restore_bytes_written"].as_u64().unwrap() > 0);
    assert!(lab.backups().is_empty(), "backup left: {:?}", lab.backups());
    assert!(took < LIMIT, "took {took:?}, over {LIMIT:?}");
    assert_eq!(content(&dev), before, "the device's content changed");
    // The stderr line is the verdict (exit 3 says why).
    assert!(String::from_utf8_lossy(&out.stderr).contains("iolab: FAKE"));
}

#[test]
fn capacity_with_allow_destroy_finds_a_fake_device_faster() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = fake_4g_1g();
    let t0 = Instant::now();
    let out = run(&mut lab.capacity(dev.path(), &["--allow-destroy"]));
    let took = t0.elapsed();
    note!("capacity of a 4 GiB device storing 1 GiB, --allow-destroy: {took:.1?}");
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    assert_fake_1g(&v);
    let c = &v["capacity"];
    assert_eq!(c["destructive"], true);
    assert!(c["backup"].is_null());
    assert_eq!(c["restore_bytes_written"], 0);
    assert!(took < LIMIT, "took {took:?}");
    // Stored like any run.
    let list = output_with_timeout(iolab().args(["list", "--json", "--db"]).arg(lab.db()), Duration::from_secs(30));
    let runs: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs[0]["kind"], "capacity", "{runs:#}");
}

#[test]
fn capacity_calls_an_honest_1gib_device_genuine_and_leaves_it_unchanged() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = FaultDev::new(FaultSpec::clean(GIB));
    fill(&dev, 0x600d);
    // A byte-for-byte copy and `cmp` are faster than two hashes, and exact.
    let copy = tempfile::NamedTempFile::new_in("/dev/shm").unwrap();
    run_checked(Command::new("cp").arg(store_of(&dev)).arg(copy.path()));
    let t0 = Instant::now();
    let out = run(&mut lab.capacity(dev.path(), &[]));
    note!("capacity of an honest 1 GiB device: {:.1?}", t0.elapsed());
    assert_eq!(out.status.code(), Some(0), "genuine exits 0");
    let v = json(&out);
    let c = &v["capacity"];
    assert_eq!(c["verdict"]["kind"], "genuine", "{c:#}");
    assert!(c["message"].as_str().unwrap().starts_with("genuine"));
    assert_eq!(c["backup"]["differing"], 0);
    assert!(c["confirmation"]["changed"].as_array().unwrap().is_empty());
    assert!(lab.backups().is_empty());
    let same = Command::new("cmp").arg("-s").arg(store_of(&dev)).arg(copy.path()).status().unwrap();
    assert!(same.success(), "the device's content changed");
    // The same, destroying, is genuine too.
    let out = run(&mut lab.capacity(dev.path(), &["--allow-destroy", "--no-store"]));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["capacity"]["verdict"]["kind"], "genuine");
}

/// A running `iolab capacity` (killed on drop if it is still running).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `cmd` with the test hook `hook`; return once it says it paused (or exits).
fn start_paused(mut cmd: Command, hook: &str) -> (Running, Vec<String>) {
    cmd.env("IOLAB_TEST_CAPACITY_HOOK", hook)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Running(cmd.spawn().expect("spawn iolab"));
    let err = child.0.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => {
                let paused = l.contains("test hook: paused");
                lines.push(l);
                if paused {
                    break;
                }
            }
            Err(_) => panic!("iolab did not pause: {lines:#?}"),
        }
    }
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in rx {});
    (child, lines)
}

#[test]
fn sigterm_in_the_middle_of_a_probe_restores_the_device_and_exits_143() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = fake_4g_1g();
    let before = content(&dev);
    let (mut child, _) = start_paused(lab.capacity(dev.path(), &[]), "pause-after-round=0");
    assert!(!lab.backups().is_empty(), "the backup file exists while the probe runs");
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.0.id() as i32, libc::SIGTERM) };
    let mut stdout = child.0.stdout.take().unwrap();
    let mut doc = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut doc).unwrap();
    let status = child.0.wait().unwrap();
    assert_eq!(status.code(), Some(143), "SIGTERM: 128 + 15");
    let v: Value = serde_json::from_slice(&doc).unwrap();
    assert_eq!(v["interrupted"], true);
    let c = &v["capacity"];
    assert!(c["verdict"].is_null(), "{c:#}");
    assert!(c["message"].as_str().unwrap().contains("restored"), "{c:#}");
    assert_eq!(c["backup"]["kept"], false);
    assert!(lab.backups().is_empty());
    assert_eq!(content(&dev), before, "the device's content changed");
}

#[test]
fn after_kill_9_restore_puts_the_data_back() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = fake_4g_1g();
    let before = content(&dev);
    let mut cmd = lab.capacity(dev.path(), &[]);
    cmd.env("IOLAB_TEST_CAPACITY_HOOK", "kill-after-round=0");
    let out = run(&mut cmd);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(libc::SIGKILL), "the hook kills the process");
    let files = lab.backups();
    assert_eq!(files.len(), 1, "{files:?}");
    let file = &files[0];
    assert_ne!(content(&dev), before, "the probe's stamps are on the device");

    // A new probe of the device is refused until the backup is restored.
    let out = run(&mut lab.capacity(dev.path(), &[]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--restore") && err.contains(&*file.to_string_lossy()), "{err}");
    // Another device is refused as the restore's target.
    let other = LoopDev::new_sparse(64 * MIB);
    let out = run(iolab().args(["capacity", "--restore"]).arg(file).arg(other.path()));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("was saved from"));

    let out = run(iolab().args(["capacity", "--restore"]).arg(file));
    assert!(out.status.success(), "restore failed");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("restored ") && said.contains("read back as saved"), "{said}");
    assert!(!file.exists(), "the backup is removed once restored");
    assert_eq!(content(&dev), before, "the restore did not put the data back");
}

/// A device whose content is hashed (64 MiB loop devices: cheap).
fn checksum(dev: &Path) -> String {
    sha256(dev, 64 * MIB)
}

#[test]
fn capacity_is_refused_on_a_mounted_device_and_a_regular_file() {
    need_root!();
    let lab = Lab::new();
    let dev = LoopDev::new_sparse(64 * MIB);
    run_checked(Command::new("mkfs.ext4").args(["-F", "-q"]).arg(dev.path()));
    {
        let _m = Mount::new(dev.path(), None);
        let before = checksum(dev.path());
        for extra in [&[][..], &["--allow-destroy", "--force"][..]] {
            let out = run(&mut lab.capacity(dev.path(), extra));
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
            assert!(err.contains("refusing to write") && err.contains("is mounted at"), "{err}");
            assert!(out.stdout.is_empty());
        }
        assert_eq!(checksum(dev.path()), before);
    }
    // Unmounted, the filesystem's signature refuses a destroying probe ...
    let before = checksum(dev.path());
    let out = run(&mut lab.capacity(dev.path(), &["--allow-destroy"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ext2/3/4") && err.contains("leave out --allow-destroy"), "{err}");
    assert_eq!(checksum(dev.path()), before);
    // ... but not one that restores what it overwrites.
    let out = run(&mut lab.capacity(dev.path(), &[]));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json(&out)["capacity"]["verdict"]["kind"], "genuine");
    assert_eq!(checksum(dev.path()), before, "the filesystem changed");
    run_checked(Command::new("fsck.ext4").args(["-n", "-f"]).arg(dev.path()));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("disk.img");
    std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
    let out = run(&mut lab.capacity(&file, &[]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("is not a block device"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn an_earlier_verify_that_found_the_device_lying_vetoes_genuine() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    let dev = FaultDev::new(FaultSpec::clean(256 * MIB));
    let out = run(&mut lab.capacity(dev.path(), &["--no-store"]));
    assert_eq!(out.status.code(), Some(0));
    let first = json(&out);
    let identity = first["capacity"]["device"].as_str().expect("an identity").to_string();
    let backing = dev.file().to_string_lossy().into_owned();
    assert_eq!(identity, format!("loop:{backing}:{}", 256 * MIB));

    // An earlier verify of the same device that found it fake, as an iolab document.
    let mut doc = first.clone();
    let o = doc.as_object_mut().unwrap();
    o.remove("capacity");
    o.insert("command".into(), "verify".into());
    o.insert("interrupted".into(), false.into());
    o.insert(
        "verify".into(),
        serde_json::json!({
            "pass": 1, "bs": 1048576, "planned_bytes": 256 * MIB, "written_bytes": 256 * MIB,
            "layout": {"kind": "device"}, "direct": true, "cold_wait_s": null,
            "write_s": 2.0, "read_s": 1.0, "write_errors": 0, "first_write_error": null, "zones": [],
            "summary": {
                "from": 0, "to": 256 * MIB,
                "bytes": {"good": 64 * MIB, "corrupted": 0, "misplaced": 192 * MIB, "stale": 0, "blank": 0, "garbage": 0, "unreadable": 0},
                "first_bad": 64 * MIB, "usable_bytes": 64 * MIB, "good_bytes": 64 * MIB,
                "ranges": [], "ranges_dropped": 0,
                "verdict": {"kind": "fake_capacity", "real_bytes": 64 * MIB},
                "message": "fake capacity: the device stores 64.00 MiB of the 256.00 MiB it announces"
            },
            "device": identity,
        }),
    );
    let file = lab.dir.path().join("verify.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let out = run(iolab().arg("import").arg(&file).arg("--db").arg(lab.db()));
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("stored as run 1"));

    let out = run(&mut lab.capacity(dev.path(), &[]));
    assert_eq!(out.status.code(), Some(3), "never genuine after a failed verify");
    let c = &json(&out)["capacity"];
    assert_eq!(c["verdict"]["kind"], "suspect", "{c:#}");
    assert_eq!(c["verdict"]["verify_run"], 1);
    assert_eq!(c["earlier_verify"]["run_id"], 1);
    let msg = c["message"].as_str().unwrap();
    assert!(msg.contains("verify run 1") && msg.contains("stores 64.00 MiB"), "{msg}");
}

#[test]
fn capacity_finds_an_odd_real_size_to_the_granularity_asked_for() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    // Neither a power of two nor a multiple of the comb's teeth: the bisection finds it.
    let stored = GIB + 37 * MIB + 12 * 1024;
    let dev = FaultDev::new(FaultSpec {
        announce: 4 * GIB,
        store: Some(stored),
        ..FaultSpec::clean(4 * GIB)
    });
    let g = 256 * 1024;
    let out = run(&mut lab.capacity(dev.path(), &["--allow-destroy", "--granularity", "256K"]));
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    let c = &v["capacity"];
    assert_eq!(c["verdict"]["kind"], "fake", "{c:#}");
    let real = c["verdict"]["real_bytes"].as_u64().unwrap();
    let bad = c["verdict"]["first_bad_byte"].as_u64().unwrap();
    assert!(real <= stored && stored <= bad && bad - real <= g, "[{real}, {bad}] for {stored}");
    assert_eq!(c["probe"]["granularity"], g);
    note!(
        "real size {real}, first bad {bad} for {stored} stored, {} rounds",
        c["probe"]["rounds"]
    );
}

#[test]
fn read_errors_in_the_middle_of_an_honest_device_are_damage_not_a_smaller_size() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    // 2 GiB is one of the probe's powers of two: its read fails, the blocks above it read back.
    let dev = FaultDev::new(FaultSpec {
        eio: vec![(2 * GIB, 2 * GIB + MIB)],
        ..FaultSpec::clean(4 * GIB)
    });
    let out = run(&mut lab.capacity(dev.path(), &[]));
    assert_eq!(out.status.code(), Some(3));
    let v = json(&out);
    let c = &v["capacity"];
    assert_eq!(c["verdict"]["kind"], "damaged", "{c:#}");
    assert_eq!(c["verdict"]["damage"]["kind"], "bad_region", "{c:#}");
    assert_eq!(c["verdict"]["damage"]["from"], 2 * GIB);
    assert!(c["read_errors"].as_u64().unwrap() >= 1);
    // The block that could not be read could not be saved either; everything else was restored.
    let b = &c["backup"];
    assert_eq!(b["unreadable"], 1, "{b:#}");
    assert_eq!(b["differing"], 0, "{b:#}");
    assert_eq!(b["kept"], false);
    assert!(lab.backups().is_empty());
    assert!(c["message"].as_str().unwrap().starts_with("DAMAGED"), "{c:#}");
}

#[test]
fn a_real_verify_that_found_lost_writes_vetoes_genuine() {
    need_root!();
    let _one = alone();
    let lab = Lab::new();
    // Writes to a few blocks that none of the probe's offsets touch are lost: the probe
    // passes, a full verify does not.
    let lost = 150 * MIB + 12 * 1024;
    let dev = FaultDev::new(FaultSpec {
        drop: vec![(lost, lost + 64 * 1024)],
        ..FaultSpec::clean(256 * MIB)
    });
    let out = run(iolab()
        .arg("verify")
        .arg(dev.path())
        .args(["--allow-destroy", "--json", "-", "--db"])
        .arg(lab.db()));
    assert_eq!(out.status.code(), Some(3), "verify finds the lost writes");
    let verify = json(&out);
    let verify_id = verify["run_id"].as_i64().expect("stored");
    let out = run(&mut lab.capacity(dev.path(), &[]));
    assert_eq!(out.status.code(), Some(3), "never genuine after a failed verify");
    let c = &json(&out)["capacity"];
    assert_eq!(c["probe"]["verdict"]["kind"], "genuine", "the probe alone passes: {c:#}");
    assert_eq!(c["verdict"]["kind"], "suspect", "{c:#}");
    assert_eq!(c["verdict"]["verify_run"], verify_id);
    assert_eq!(c["earlier_verify"]["device"], verify["verify"]["device"]);
    assert!(c["message"].as_str().unwrap().contains(&format!("verify run {verify_id}")));
}
