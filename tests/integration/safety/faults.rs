//! Issue 16: faults during a run. Each case ends in one line on stderr that
//! names the target and the cause, the documented exit status, nothing left
//! behind (test files gone and their space back, devices and mounts
//! released), the store consistent, and the tests that finished kept.
//!
//! - an I/O error (EIO) in a read job and in a write job, stopping at the
//!   offset, or counted per direction with `--continue-on-error`;
//! - a full filesystem (ENOSPC) while prefilling and in a write job;
//! - a target that goes away: a killed FUSE daemon, a hung one (the stall
//!   watchdog, shortened by `IOLAB_TEST_STALL_TIMEOUT`), a lazy unmount;
//! - a read-only filesystem or block device: refused before starting;
//! - a store on a full or read-only disk: the result printed, exit 4.
//!
//! Needs root (loop devices, FUSE, mounts); under `CI=true` the tests run,
//! never skip.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::emu::faultdev::{FaultDev, FaultSpec};
use crate::common::emu::{Ext4Mount, LoopDev, MIB, Mount, Tmpfs, output_with_timeout, run_checked};
use crate::common::iolab;
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(120);
/// The EIO range of the faulty devices: the 9th MiB.
const EIO: (u64, u64) = (8 * MIB, 9 * MIB);

/// A short job's flags: one run, no warm-up, no pause.
const SHORT: [&str; 8] = ["--runs", "1", "--warmup", "0", "--interval", "0", "--duration", "2s"];

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one line of stderr (besides the store's `stored as run` note).
fn one_line(out: &Output) -> String {
    let err = stderr_of(out);
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("iolab: stored as run")).collect();
    assert_eq!(lines.len(), 1, "one line on stderr, got: {err}");
    lines[0].to_string()
}

/// `iolab job TARGET ARGS... -q` with a timeout.
fn job(target: &Path, args: &[&str]) -> Output {
    let mut c = iolab();
    c.arg("job").arg(target).args(args).arg("-q");
    output_with_timeout(&mut c, TIMEOUT)
}

/// The number in `line` after `word` (`at offset N`).
fn number_after(line: &str, word: &str) -> u64 {
    let at = line.find(word).unwrap_or_else(|| panic!("no '{word}' in: {line}")) + word.len();
    line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("no number after '{word}' in: {line}"))
}

fn free_bytes(dir: &Path) -> u64 {
    let v = rustix::fs::statvfs(dir).expect("statvfs");
    v.f_bavail * v.f_frsize
}

/// `syncfs` (a copy-on-write filesystem returns an unlinked file's space at
/// its next commit), then the free space, polled until it is at least
/// `want - slack` or 10 s have passed.
fn free_space_returns(dir: &Path, want: u64, slack: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(d) = std::fs::File::open(dir) {
            // SAFETY: syncfs on an open descriptor.
            unsafe { libc::syncfs(d.as_raw_fd()) };
        }
        let free = free_bytes(dir);
        if free + slack >= want || Instant::now() >= deadline {
            return free;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The runs in a store, and its `PRAGMA integrity_check`.
fn store_state(db: &Path) -> (Vec<(i64, bool, usize)>, String) {
    let c = rusqlite::Connection::open(db).expect("open the store");
    let check: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("integrity_check");
    let mut st = c
        .prepare("SELECT r.id, r.complete, (SELECT COUNT(*) FROM jobs j WHERE j.run_id = r.id) FROM runs r ORDER BY r.id")
        .expect("query");
    let runs = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize)))
        .expect("rows")
        .map(Result::unwrap)
        .collect();
    (runs, check)
}

/// Whether nobody holds `dev` (a filesystem on it would): it opens `O_EXCL`.
fn released(dev: &Path) -> bool {
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_EXCL).open(dev).is_ok()
}

fn kill(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a process this test started.
    unsafe { libc::kill(pid as i32, sig) };
}

/// A running iolab, killed and reaped on drop (a failing test leaves nothing).
struct Running(Child);
impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A stopped FUSE server, continued on drop (so nothing stays blocked on it).
struct Resume(u32);
impl Drop for Resume {
    fn drop(&mut self) {
        kill(self.0, libc::SIGCONT);
    }
}

/// `blockdev --setrw` on drop: a loop device is reused by later tests.
struct ReadOnly(PathBuf);
impl ReadOnly {
    fn set(dev: &Path) -> ReadOnly {
        run_checked(Command::new("blockdev").arg("--setro").arg(dev));
        ReadOnly(dev.to_path_buf())
    }
}
impl Drop for ReadOnly {
    fn drop(&mut self) {
        let _ = Command::new("blockdev").arg("--setrw").arg(&self.0).status();
    }
}

/// Remount read-write on drop, so the guard under it can unmount normally.
struct Remounted(PathBuf);
impl Remounted {
    fn read_only(dir: &Path) -> Remounted {
        run_checked(Command::new("mount").args(["-o", "remount,ro"]).arg(dir));
        Remounted(dir.to_path_buf())
    }
}
impl Drop for Remounted {
    fn drop(&mut self) {
        let _ = Command::new("mount").args(["-o", "remount,rw"]).arg(&self.0).status();
    }
}

/// Wait for `child` to exit, at most `limit`; its exit code and how long that took.
fn wait_for(child: &mut Child, limit: Duration) -> (Option<i32>, Duration) {
    let t = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            return (s.code(), t.elapsed());
        }
        assert!(t.elapsed() < limit, "iolab did not exit within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn faulty(eio_writes: bool) -> FaultDev {
    FaultDev::new(FaultSpec {
        eio: vec![EIO],
        eio_writes,
        ..FaultSpec::clean(64 * MIB)
    })
}

// ------------------------------------------------------------------- EIO

#[test]
fn issue_16_eio_in_a_read_job_stops_it_at_the_offset_with_the_errno() {
    need_root!();
    let dev = faulty(false);
    let out = job(dev.path(), &[&["--rw", "read", "--bs", "1M", "--qd", "4"][..], &SHORT].concat());
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(1), "{line}");
    let want = format!("iolab: I/O error on {} in \"read 1M Q4T1\" at offset ", dev.path().display());
    assert!(line.starts_with(&want), "{line}");
    assert!(line.ends_with("(read of 1M): Input/output error (EIO)"), "{line}");
    // Sequential 1M reads: the first that touches the range is the one at its start.
    assert_eq!(number_after(&line, "at offset "), EIO.0, "{line}");
    assert!(out.stdout.is_empty(), "nothing finished, nothing printed");
}

#[test]
fn issue_16_eio_in_a_write_job_stops_it_at_the_offset_with_the_errno() {
    need_root!();
    let dev = faulty(true);
    let db = tempfile::tempdir().unwrap();
    let store = db.path().join("results.db");
    let args = [
        &["--rw", "randwrite", "--bs", "64k", "--qd", "4", "--allow-destroy", "--db"][..],
        &[store.to_str().unwrap()],
        &SHORT,
    ]
    .concat();
    let out = job(dev.path(), &args);
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(1), "{line}");
    assert!(line.contains("in \"randwrite 64K Q4T1\" at offset "), "{line}");
    assert!(line.ends_with("(write of 64K): Input/output error (EIO)"), "{line}");
    let off = number_after(&line, "at offset ");
    assert!((EIO.0..EIO.1).contains(&off), "offset {off} outside the EIO range: {line}");
    // Nothing finished, so nothing was stored; the store is whole.
    if store.exists() {
        let (runs, check) = store_state(&store);
        assert_eq!((runs.len(), check.as_str()), (0, "ok"));
    }
}

/// A battery whose second test hits the EIO range: the first is kept,
/// printed and stored as incomplete, then the error, exit status 1.
#[test]
fn issue_16_eio_in_the_second_test_keeps_the_first() {
    need_root!();
    let dev = faulty(false);
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("config.toml");
    std::fs::write(
        &config,
        "[suites.faulty]\njobs = [\n  { rw = \"write\", bs = \"1M\", qd = 4, name = \"first write\" },\n  { rw = \"read\", bs = \"1M\", qd = 4, name = \"then read\" },\n]\n",
    )
    .unwrap();
    let store = tmp.path().join("results.db");
    let json = tmp.path().join("run.json");
    let mut c = iolab();
    c.arg("run")
        .arg(dev.path())
        .args(["--suite", "faulty", "--allow-destroy", "-q"])
        .args(SHORT)
        .arg("--config")
        .arg(&config)
        .arg("--db")
        .arg(&store)
        .arg("--json")
        .arg(&json);
    let out = output_with_timeout(&mut c, TIMEOUT);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "iolab: I/O error on {} in \"then read\" at offset {}",
            dev.path().display(),
            EIO.0
        )),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line (-q: no `stored as` note): {err}");
    // The table of what finished, and its line saying why the rest did not.
    let table = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("│ ")).collect();
    assert!(rows.iter().any(|l| l.starts_with("│ first write")), "{table}");
    assert!(!rows.iter().any(|l| l.starts_with("│ then read")), "{table}");
    assert!(
        table.contains("stopped by an error: only the tests above finished: I/O error on"),
        "{table}"
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["jobs"][0]["name"], "first write");
    assert!(doc["jobs"][0]["write"]["ios"].as_u64().unwrap() > 0);
    assert!(doc["error"].as_str().unwrap().contains("(EIO)"), "{doc}");
    // Stored as incomplete, with its one test; the store is whole.
    let (runs, check) = store_state(&store);
    assert_eq!(check, "ok");
    assert_eq!(runs, vec![(1, false, 1)]);
}

#[test]
fn issue_16_continue_on_error_counts_errors_per_direction() {
    need_root!();
    let dev = faulty(true);
    let args = [
        &[
            "--rw",
            "randrw",
            "--bs",
            "64k",
            "--qd",
            "4",
            "--allow-destroy",
            "--continue-on-error",
            "--json",
            "-",
        ][..],
        &SHORT,
    ]
    .concat();
    let out = job(dev.path(), &args);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &doc["jobs"][0];
    for dir in ["read", "write"] {
        let e = &j[dir]["errors"];
        assert!(e["count"].as_u64().unwrap() > 0, "{dir}: {j}");
        let off = e["first_offset"].as_u64().unwrap();
        // 64K blocks: the first failing one touches the range.
        assert!((EIO.0..EIO.1).contains(&off), "{dir}: first offset {off}");
        assert_eq!(e["first_errno"], libc::EIO);
        assert_eq!(e["first_error"], "Input/output error (EIO)");
        // Figures of the I/O that succeeded.
        assert!(j[dir]["ios"].as_u64().unwrap() > 0 && j[dir]["bw_bytes"].as_f64().unwrap() > 0.0);
    }
    let codes: Vec<&str> = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(&codes[..2], ["io_errors", "io_errors"], "{codes:?}");
    let first = j["warnings"][0]["message"].as_str().unwrap();
    assert!(first.ends_with("the figures count only the I/O that succeeded"), "{first}");
    // The views say it too (stderr repeats the warnings when stdout is JSON).
    assert!(
        err.contains("warning [io_errors] randrw 64K Q4T1: ") && err.contains(" reads failed (the first at offset "),
        "{err}"
    );
    assert!(err.contains(" writes failed (the first at offset "), "{err}");
}

// ---------------------------------------------------------------- ENOSPC

/// ext2 keeps no extents, so no `fallocate`: the prefill allocates, and the
/// file's indirect blocks do not fit beside data that takes all the free
/// space the check saw. The test file is gone afterwards: its space is back.
#[test]
fn issue_16_enospc_while_prefilling_removes_the_test_file() {
    need_root!();
    let dev = LoopDev::new_sparse(32 * MIB);
    run_checked(
        Command::new("mkfs.ext2")
            .args(["-q", "-F", "-m", "0", "-b", "4096"])
            .arg(dev.path()),
    );
    let m = Mount::new(dev.path(), None);
    let before = free_bytes(m.dir());
    let size = before / 4096 * 4096;
    let out = job(m.dir(), &[&["--rw", "read", "--size", &size.to_string()][..], &SHORT].concat());
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(1), "{line}");
    let dir = m.dir().display();
    assert!(
        line.starts_with(&format!("iolab: not enough space in {dir}: prefilling the "))
            && line.contains(": No space left on device (ENOSPC) ("),
        "{line}"
    );
    assert!(
        line.contains(" needed, ") && line.contains(" were free when iolab checked"),
        "{line}"
    );
    assert_eq!(free_space_returns(m.dir(), before, 0), before, "the test file's space came back");
    assert_eq!(crate::common::emu::list_dir(m.dir()), ["lost+found"], "no file left");
}

/// btrfs copies on write: the test file is allocated in full, but rewriting
/// it needs room beside it, which a nearly full filesystem does not have.
#[test]
fn issue_16_enospc_in_a_write_job_removes_the_test_file() {
    need_root!();
    let dev = LoopDev::new_sparse(128 * MIB);
    run_checked(Command::new("mkfs.btrfs").args(["-q", "-f"]).arg(dev.path()));
    let m = Mount::new(dev.path(), None);
    let before = free_bytes(m.dir());
    let size = before * 9 / 10 / MIB * MIB;
    let out = job(
        m.dir(),
        &[
            &["--rw", "write", "--bs", "1M", "--qd", "4", "--size", &size.to_string()][..],
            &SHORT,
        ]
        .concat(),
    );
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(1), "{line}");
    assert!(
        line.starts_with(&format!(
            "iolab: no space left on {} in \"write 1M Q4T1\" at offset ",
            m.dir().display()
        )),
        "{line}"
    );
    assert!(line.contains("(write of 1M): No space left on device (ENOSPC) (the "), "{line}");
    assert!(
        line.contains("test file was allocated in full before the run, with ") && line.contains(" more, and "),
        "{line}"
    );
    let after = free_space_returns(m.dir(), before, MIB);
    assert!(after + MIB >= before, "free space {after} did not come back to {before}");
    assert!(crate::common::emu::list_dir(m.dir()).is_empty(), "no file left");
}

// ------------------------------------------------------- the target goes away

/// The FUSE server under a loop device is killed mid-run: the reads fail
/// (EIO through the loop device) and the run ends at once.
#[test]
fn issue_16_a_killed_fuse_daemon_is_a_clear_error_not_a_hang() {
    need_root!();
    let dev = FaultDev::new(FaultSpec::clean(64 * MIB));
    let mut c = iolab();
    c.arg("job")
        .arg(dev.path())
        .args([
            "--rw",
            "randread",
            "--qd",
            "4",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--duration",
            "60s",
            "-q",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut run = Running(c.spawn().unwrap());
    std::thread::sleep(Duration::from_millis(1500));
    kill(dev.pid().expect("server"), libc::SIGKILL);
    let (code, took) = wait_for(&mut run.0, Duration::from_secs(20));
    let mut err = String::new();
    run.0.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let line = err.trim_end();
    assert_eq!(line.lines().count(), 1, "{err}");
    assert!(
        line.starts_with(&format!(
            "iolab: I/O error on {} in \"randread 4K Q4T1\" at offset ",
            dev.path().display()
        )),
        "{line}"
    );
    assert!(line.ends_with("(read of 4K): Input/output error (EIO)"), "{line}");
}

/// The FUSE server stops answering (SIGSTOP) while iolab reads its file:
/// after the stall timeout iolab says so, naming the file and how to abort
/// the connection; done, iolab exits.
#[test]
fn issue_16_a_hung_fuse_daemon_stops_the_run_after_the_stall_timeout() {
    need_root!();
    let dev = FaultDev::new(FaultSpec::clean(64 * MIB));
    let server = dev.pid().expect("server");
    // Now, while the daemon answers a stat.
    let fuse_dev = std::fs::metadata(dev.mount_dir()).unwrap().dev();
    let mut c = iolab();
    c.arg("job")
        .arg(dev.file())
        .args([
            "--rw",
            "randread",
            "--qd",
            "2",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--duration",
            "60s",
            "-q",
        ])
        .env("IOLAB_TEST_STALL_TIMEOUT", "1s")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut run = Running(c.spawn().unwrap());
    let (tx, rx) = mpsc::channel();
    let stderr = run.0.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    std::thread::sleep(Duration::from_millis(1500));
    kill(server, libc::SIGSTOP);
    let _resume = Resume(server);
    let stopped = Instant::now();
    let line = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("a line on stderr while the daemon is stopped");
    let file = dev.file().display();
    assert!(
        line.starts_with(&format!(
            "iolab: no I/O completed on {file} for 1s while running \"randread 4K Q2T1\": the target stopped answering"
        )),
        "{line}"
    );
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "the watchdog took {:?}",
        stopped.elapsed()
    );
    // The way out it names: aborting this mount's FUSE connection (numbered
    // by the filesystem's device number; fusectl need not be mounted here).
    let abort = line.split("echo 1 > ").nth(1).expect("the abort command").trim_end_matches(')');
    assert_eq!(abort, format!("/sys/fs/fuse/connections/{}/abort", rustix::fs::minor(fuse_dev)));
    // The daemon answers again: iolab lets go and exits.
    kill(server, libc::SIGCONT);
    let (code, _) = wait_for(&mut run.0, Duration::from_secs(20));
    assert_eq!(code, Some(1));
    assert!(rx.try_iter().next().is_none(), "one line");
}

/// The directory's filesystem is unmounted lazily under the running job:
/// iolab notices within a second or two, stops, and lets go of the device.
#[test]
fn issue_16_a_lazily_unmounted_directory_stops_the_run_and_is_released() {
    need_root!();
    let m = Ext4Mount::new(64 * MIB);
    let mut c = iolab();
    c.arg("job")
        .arg(m.dir())
        .args([
            "--size",
            "16M",
            "--rw",
            "randread",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--duration",
            "60s",
            "-q",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut run = Running(c.spawn().unwrap());
    std::thread::sleep(Duration::from_millis(1500));
    run_checked(Command::new("umount").arg("-l").arg(m.dir()));
    let (code, took) = wait_for(&mut run.0, Duration::from_secs(20));
    let mut err = String::new();
    run.0.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(
        err.trim_end(),
        format!(
            "iolab: the target went away in \"randread 4K Q1T1\": {}: its filesystem was unmounted (lazily: iolab's open file kept it alive)",
            m.dir().display()
        )
    );
    // The filesystem really went with iolab's test file: nothing holds the device.
    let t = Instant::now();
    while !released(m.dev().path()) {
        assert!(t.elapsed() < Duration::from_secs(10), "{} is still held", m.dev().path().display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ------------------------------------------------------------- read-only

#[test]
fn issue_16_a_read_only_filesystem_is_refused_before_starting() {
    need_root!();
    let m = Ext4Mount::new(64 * MIB);
    let file = m.dir().join("data.img");
    std::fs::write(&file, vec![7u8; MIB as usize]).unwrap();
    let _ro = Remounted::read_only(m.dir());
    // A directory: even reading needs a test file.
    let out = job(m.dir(), &[&["--rw", "read"][..], &SHORT].concat());
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert_eq!(
        line,
        format!(
            "iolab: cannot create a test file in {}: its filesystem is mounted read-only (iolab writes its test file even to read; give a file or a block device to measure reads only)",
            m.dir().display()
        )
    );
    // A file on it: writing is refused, reading works.
    let out = job(&file, &[&["--rw", "write", "--allow-destroy"][..], &SHORT].concat());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        one_line(&out),
        format!(
            "iolab: refusing to write to {}: its filesystem is mounted read-only",
            file.display()
        )
    );
    let out = job(&file, &[&["--rw", "read", "--duration", "200ms"][..], &SHORT[..6]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(m.user_entries(), ["data.img"]);
}

#[test]
fn issue_16_a_read_only_block_device_is_refused_before_starting() {
    need_root!();
    let dev = LoopDev::new(16 * MIB);
    let before = std::fs::read(dev.path()).unwrap();
    let _ro = ReadOnly::set(dev.path());
    let out = job(dev.path(), &[&["--rw", "write", "--allow-destroy"][..], &SHORT].concat());
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert!(
        line.starts_with(&format!(
            "iolab: refusing to write to {}: the device is read-only",
            dev.path().display()
        )),
        "{line}"
    );
    assert!(out.stdout.is_empty());
    // Reading a read-only device is fine.
    let out = job(
        dev.path(),
        &[&["--rw", "read", "--bs", "64k", "--duration", "200ms"][..], &SHORT[..6]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(std::fs::read(dev.path()).unwrap() == before, "the device changed");
}

// ----------------------------------------------------------------- the store

/// A store on a small tmpfs with one run in it, and a device to read.
struct StoreCase {
    fs: Tmpfs,
    dev: LoopDev,
    out: tempfile::TempDir,
}

impl StoreCase {
    fn new() -> StoreCase {
        let case = StoreCase {
            fs: Tmpfs::new(2 * MIB),
            dev: LoopDev::new(16 * MIB),
            out: tempfile::tempdir().unwrap(),
        };
        let first = case.read(&["--json", "-"]);
        assert_eq!(first.status.code(), Some(0), "{}", stderr_of(&first));
        case
    }

    fn db(&self) -> PathBuf {
        self.fs.dir().join("results.db")
    }

    fn read(&self, extra: &[&str]) -> Output {
        let mut c = iolab();
        c.arg("job")
            .arg(self.dev.path())
            .args([
                "--rw",
                "read",
                "--bs",
                "64k",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--duration",
                "200ms",
                "-q",
                "--db",
            ])
            .arg(self.db())
            .args(extra);
        output_with_timeout(&mut c, TIMEOUT)
    }

    /// The run is printed, its JSON written, then one line names the store
    /// and the state of its disk (`why`); exit 4.
    fn check_not_saved(&self, why: &str) {
        let json = self.out.path().join("run.json");
        let out = self.read(&["--json", json.to_str().unwrap()]);
        let line = one_line(&out);
        assert_eq!(out.status.code(), Some(4), "{line}");
        let want = format!("iolab: the run was not saved in {}: ", self.db().display());
        assert!(line.starts_with(&want) && line.ends_with(why), "{line}");
        let table = String::from_utf8_lossy(&out.stdout);
        assert!(table.contains("read 64K Q1T1"), "the table is printed: {table}");
        let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert!(doc["jobs"][0]["read"]["ios"].as_u64().unwrap() > 0);
        assert!(doc["run_id"].is_null(), "not stored: no run id");
    }

    /// The store is whole and holds the first run only.
    fn check_consistent(&self) {
        let (runs, check) = store_state(&self.db());
        assert_eq!(check, "ok");
        assert_eq!(runs, vec![(1, true, 1)]);
    }
}

#[test]
fn issue_16_a_full_store_disk_still_prints_the_result_and_exits_4() {
    need_root!();
    let case = StoreCase::new();
    // Fill the store's filesystem.
    let fill = case.fs.dir().join("fill");
    let _ = Command::new("dd")
        .arg("if=/dev/zero")
        .arg(format!("of={}", fill.display()))
        .args(["bs=4k", "status=none"])
        .status();
    assert_eq!(free_bytes(case.fs.dir()), 0);
    case.check_not_saved(" (its filesystem is full)");
    std::fs::remove_file(&fill).unwrap();
    case.check_consistent();
}

#[test]
fn issue_16_a_read_only_store_disk_still_prints_the_result_and_exits_4() {
    need_root!();
    let case = StoreCase::new();
    {
        let _ro = Remounted::read_only(case.fs.dir());
        case.check_not_saved(" (its filesystem is mounted read-only)");
    }
    case.check_consistent();
}

// ------------------------------------------------- buffers and in-flight I/O

/// Puts a block device's `queue/nomerges` back as it was.
struct NoMerges(PathBuf, String);

impl NoMerges {
    fn set(dev: &Path) -> NoMerges {
        let name = dev.file_name().expect("a device name").to_string_lossy().into_owned();
        let knob = PathBuf::from(format!("/sys/block/{name}/queue/nomerges"));
        let was = std::fs::read_to_string(&knob).expect("read nomerges").trim().to_string();
        std::fs::write(&knob, "2").expect("write nomerges");
        NoMerges(knob, was)
    }
}

impl Drop for NoMerges {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, &self.1);
    }
}

/// The `NAME NS` lines of a marks file (IOLAB_TEST_MARKS, faultfs's hold_log).
fn marks(path: &Path, name: &str) -> Vec<u64> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix(name))
        .filter_map(|rest| rest.split_whitespace().last()?.parse().ok())
        .collect()
}

/// Issue 36: a read fails (EIO) while the next one, already submitted, is
/// held by the device for 3 s. iolab reports the failure, but frees the
/// worker's io_uring buffers only after that held read has completed:
/// before, the worker returned at the failure, its engine and buffers were
/// dropped with the read in flight, and its late completion wrote into freed
/// (reusable) memory.
#[test]
fn issue_36_buffers_are_freed_only_after_the_last_completion() {
    need_root!();
    const HOLD_MS: u64 = 3000;
    let tmp = tempfile::tempdir().unwrap();
    let (held_log, iolab_marks) = (tmp.path().join("held"), tmp.path().join("marks"));
    // The first read of the 2nd MiB fails; the one after it is held.
    let (bad, held) = (MIB, MIB + 4096);
    let dev = FaultDev::new(FaultSpec {
        eio: vec![(bad, bad + 4096)],
        hold: vec![(held, held + 4096, HOLD_MS)],
        hold_log: Some(held_log.clone()),
        ..FaultSpec::clean(64 * MIB)
    });
    // One request per read, so the failing read and the held one stay apart.
    let _nomerges = NoMerges::set(dev.path());
    let mut c = iolab();
    c.arg("job")
        .arg(dev.path())
        .args(["--rw", "read", "--bs", "4k", "--qd", "8", "--engine", "io_uring"])
        .args(SHORT)
        .arg("-q")
        .env("IOLAB_TEST_MARKS", &iolab_marks);
    let t = Instant::now();
    let out = output_with_timeout(&mut c, TIMEOUT);
    let ended = t.elapsed();
    let line = one_line(&out);
    assert_eq!(out.status.code(), Some(1), "{line}");
    assert!(line.contains(&format!("at offset {bad} ")), "{line}");
    // The device answers the held read in its own time, iolab gone or not.
    let by = Instant::now() + Duration::from_millis(HOLD_MS) + Duration::from_secs(10);
    let mut answered = marks(&held_log, &format!("answered {held} "));
    while answered.is_empty() && Instant::now() < by {
        std::thread::sleep(Duration::from_millis(50));
        answered = marks(&held_log, &format!("answered {held} "));
    }
    assert_eq!(answered.len(), 1, "the held read was answered once: {answered:?}");
    let freed = marks(&iolab_marks, "buffers-free ");
    assert_eq!(freed.len(), 1, "one worker's buffers freed: {freed:?}");
    assert!(
        freed[0] > answered[0],
        "the buffers were freed {:.3} s before the held read was answered",
        (answered[0] - freed[0]) as f64 / 1e9
    );
    assert!(ended >= Duration::from_millis(HOLD_MS), "iolab ended {ended:?} after it started");
}

/// Issue 36: a store on a read-only mount could not be read: `iolab list`
/// failed with "unable to open database file" (exit 1), `label` the same
/// with no reason. Reading needs no write access (a WAL store without its
/// `-shm`, which cannot be made there, is opened immutable); each write says
/// why it cannot; and nothing on the mount changes.
#[test]
fn issue_36_a_read_only_store_is_read_and_a_write_says_why_not() {
    need_root!();
    let case = StoreCase::new();
    let _ro = Remounted::read_only(case.fs.dir());
    let files = |dir: &Path| crate::common::emu::list_dir(dir);
    let before = files(case.fs.dir());
    assert_eq!(before, ["results.db"], "a closed WAL store: no -wal, no -shm");
    let db = case.db();
    let run = |args: &[&str]| {
        let mut c = iolab();
        c.args(args).arg("--db").arg(&db);
        output_with_timeout(&mut c, TIMEOUT)
    };
    let list = run(&["list", "--json"]);
    assert_eq!(list.status.code(), Some(0), "{}", stderr_of(&list));
    let runs: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    let show = run(&["show", "1", "--json"]);
    assert_eq!(show.status.code(), Some(0), "{}", stderr_of(&show));
    let doc: Value = serde_json::from_slice(&show.stdout).unwrap();
    assert_eq!(doc["run_id"], 1);
    let report = run(&["report", "1", "-o", "-"]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr_of(&report));
    assert!(String::from_utf8_lossy(&report.stdout).starts_with("<!DOCTYPE html>"));
    let want = format!(
        "iolab: results store {} cannot be written: its filesystem is mounted read-only",
        db.display()
    );
    for args in [&["label", "1", "x"][..], &["tag", "1", "k=v"], &["delete", "1"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        assert_eq!(one_line(&out), want, "{args:?}");
    }
    assert_eq!(files(case.fs.dir()), before);
}
