//! Issue 16: hostile and malformed input. A panic is one line and exit
//! status 70; a target that is not storage (a FIFO, a socket, a character
//! device, a file of /proc or /sys) is refused with its reason; a link to a
//! block device is judged as that device; a link planted by another user is
//! never followed for a write (the results store, `-o`, a target); a store
//! that is damaged, truncated, another program's, from a newer iolab or
//! locked by another process is a one-line error that names the file and
//! leaves it byte for byte as it was. Every case checks what is left behind.
//!
//! Root-only cases (loop devices, files owned by another user) run under
//! `CI=true` and skip with a notice elsewhere.

use crate::common::emu::{LoopDev, Mount, list_dir, output_with_timeout, run_checked};
use crate::common::iolab;
use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const T: Duration = Duration::from_secs(60);

/// A hash of the whole file or device.
fn checksum(p: &Path) -> u64 {
    let mut f = std::fs::File::open(p).unwrap();
    let mut h = DefaultHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        h.write(&buf[..n]);
    }
    h.finish()
}

fn run(cmd: &mut Command) -> Output {
    output_with_timeout(cmd, T)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit status `code` and one line on stderr containing every one of `want`.
fn assert_one_line(o: &Output, code: i32, want: &[&str]) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "exit status; stderr: {e}");
    assert_eq!(e.trim_end().lines().count(), 1, "one line: {e}");
    for w in want {
        assert!(e.contains(w), "'{w}' not in: {e}");
    }
    e
}

/// A short job on `target` with `extra` flags.
fn job(target: &Path, extra: &[&str]) -> Command {
    let mut c = iolab();
    c.arg("job").arg(target);
    c.args([
        "--duration",
        "200ms",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--size",
        "4MiB",
    ]);
    c.args(extra);
    c
}

/// A directory like /tmp: anyone may write in it; `sticky` as /tmp is, or
/// not (then the kernel's fs.protected_symlinks does not apply at all).
fn shared_dir(sticky: bool) -> tempfile::TempDir {
    let d = tempfile::Builder::new().prefix("iolab-hostile-").tempdir().unwrap();
    let mode = if sticky { 0o1777 } else { 0o777 };
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    d
}

/// `link` -> `to`, owned by `nobody` (uid 65534): planted by another user.
fn plant(link: &Path, to: &Path) {
    std::os::unix::fs::symlink(to, link).unwrap();
    std::os::unix::fs::lchown(link, Some(65534), Some(65534)).unwrap();
}

// ------------------------------------------------------------ panics

#[test]
fn issue_16_a_panic_is_one_line_and_exit_status_70() {
    for (knob, what) in [
        ("main", "a deliberate panic to test the panic hook"),
        ("thread", "a deliberate panic in a thread"),
    ] {
        let o = run(iolab().env_remove("RUST_BACKTRACE").env("IOLAB_TEST_PANIC", knob).arg("list"));
        let e = assert_one_line(
            &o,
            70,
            &[
                "iolab: internal error: ",
                what,
                " at src/cli/panic.rs:",
                "please report it to the iolab developers with the command line",
            ],
        );
        assert!(e.starts_with("iolab: internal error: "), "{e}");
    }
    // RUST_BACKTRACE asks for the backtrace: the same line first, then it.
    let o = run(iolab().env("RUST_BACKTRACE", "1").env("IOLAB_TEST_PANIC", "main").arg("list"));
    assert_eq!(o.status.code(), Some(70));
    let e = stderr(&o);
    assert!(e.starts_with("iolab: internal error: ") && e.lines().count() > 3, "{e}");
}

// ------------------------------------------------------------ targets that are not storage

#[test]
fn issue_16_a_fifo_target_is_refused_for_every_command() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .unwrap();
    for cmd in [
        job(&fifo, &[]),
        job(&fifo, &["--rw", "write", "--allow-destroy"]),
        {
            let mut c = iolab();
            c.arg("scan").arg(&fifo);
            c
        },
        {
            let mut c = iolab();
            c.arg("verify").arg(&fifo);
            c
        },
    ] {
        let mut cmd = cmd;
        let o = run(&mut cmd);
        assert_one_line(&o, 2, &["refusing ", "it is a FIFO (named pipe), not storage"]);
        assert!(o.stdout.is_empty());
    }
    assert_eq!(list_dir(d.path()), ["fifo"], "nothing left behind");
}

#[test]
fn issue_16_a_socket_target_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let sock = d.path().join("sock");
    let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let o = run(&mut job(&sock, &[]));
    assert_one_line(&o, 2, &["it is a socket, not storage"]);
    assert_eq!(list_dir(d.path()), ["sock"]);
}

#[test]
fn issue_16_a_character_device_target_is_refused() {
    for (dev, extra) in [("/dev/null", &["--rw", "write", "--allow-destroy"][..]), ("/dev/zero", &[])] {
        let o = run(&mut job(Path::new(dev), extra));
        assert_one_line(&o, 2, &[&format!("refusing {dev}: it is a character device")]);
    }
    let o = run(iolab().args(["verify", "/dev/zero", "--allow-destroy"]));
    assert_one_line(&o, 2, &["refusing /dev/zero: it is a character device"]);
}

#[test]
fn issue_16_proc_and_sys_targets_are_refused() {
    // A file of /proc with --allow-destroy: refused before it is opened.
    let o = run(&mut job(Path::new("/proc/self/status"), &["--rw", "write", "--allow-destroy"]));
    assert_one_line(
        &o,
        2,
        &["refusing /proc/self/status: it is on proc (/proc), a view of the kernel, not storage"],
    );
    // A directory of /proc or /sys: no test file is made there.
    let o = run(&mut job(Path::new("/proc/self"), &[]));
    assert_one_line(&o, 2, &["refusing /proc/self: it is on proc (/proc)"]);
    let o = run(iolab().args(["verify", "/sys/kernel"]));
    assert_one_line(&o, 2, &["refusing /sys/kernel: it is on sysfs (/sys)"]);
}

// ------------------------------------------------------------ links

/// A link to a mounted loop device is that device: the safety rules refuse
/// the write, naming the mount; the device is unchanged.
#[test]
fn issue_16_a_link_to_a_mounted_device_is_refused_for_writes() {
    need_root!();
    let dev = LoopDev::new_sparse(64 << 20);
    run_checked(Command::new("mkfs.ext4").args(["-F", "-q"]).arg(dev.path()));
    // Read-only: a mounted ext4 writes by itself for a while (its first
    // journal commit, lazy init), which the hash would take for iolab's.
    let _m = Mount::new(dev.path(), Some("ro"));
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("disk");
    std::os::unix::fs::symlink(dev.path(), &link).unwrap();
    let before = checksum(dev.path());
    for extra in [&[][..], &["--force"]] {
        let flags = [&["--rw", "randwrite", "--allow-destroy"][..], extra].concat();
        let o = run(&mut job(&link, &flags));
        assert_one_line(
            &o,
            2,
            &[
                &format!("refusing to write to {} (-> {})", link.display(), dev.path().display()),
                "is mounted at",
            ],
        );
    }
    assert_eq!(checksum(dev.path()), before, "the device changed although iolab refused");
    assert_eq!(list_dir(d.path()), ["disk"]);
}

/// A link to an unused loop device is written with --allow-destroy, and the
/// result names the device itself.
#[test]
fn issue_16_a_link_to_an_unused_device_is_written_as_that_device() {
    need_root!();
    let dev = LoopDev::new(16 << 20);
    let d = tempfile::tempdir().unwrap();
    let link = d.path().join("disk");
    std::os::unix::fs::symlink(dev.path(), &link).unwrap();
    let o = run(&mut job(&link, &["--rw", "randwrite", "--allow-destroy", "--json", "-"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["target"]["path"], dev.path().display().to_string());
    assert_eq!(v["target"]["kind"], "block_device");
    assert!(v["jobs"][0]["write"]["ios"].as_u64().unwrap() > 0);
    assert_eq!(list_dir(d.path()), ["disk"]);
}

/// A file written with --allow-destroy through a link another user planted:
/// refused, the file it points to unchanged.
#[test]
fn issue_16_a_target_link_planted_by_another_user_is_not_written_through() {
    need_root!();
    let d = shared_dir(false);
    let victim = tempfile::tempdir().unwrap();
    let file = victim.path().join("data.img");
    std::fs::write(&file, vec![0x5au8; 8 << 20]).unwrap();
    let link = d.path().join("data.img");
    plant(&link, &file);
    let before = checksum(&file);
    let o = run(&mut job(&link, &["--rw", "write", "--allow-destroy"]));
    assert_one_line(
        &o,
        2,
        &["refusing to write to", "is a symbolic link owned by another user (uid 65534)"],
    );
    assert_eq!(checksum(&file), before);
    assert_eq!(list_dir(d.path()), ["data.img"]);
}

/// `--db /tmp/x` where x is a link another user planted: refused (exit 2),
/// whether it points to a file (never opened, never changed) or nowhere
/// (nothing created there). The user's own link is followed.
#[test]
fn issue_16_a_store_link_planted_by_another_user_is_refused() {
    need_root!();
    let d = shared_dir(true);
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, "precious, not a database").unwrap();
    let before = checksum(&victim);
    let link = d.path().join("results.db");
    plant(&link, &victim);
    let o = run(iolab().env("IOLAB_DB", &link).arg("list"));
    assert_one_line(
        &o,
        2,
        &[
            "refusing to use",
            "as the results store",
            "symbolic link owned by another user (uid 65534)",
        ],
    );
    assert_eq!(checksum(&victim), before);
    // Dangling: SQLite would have created the file it points to.
    let nothing = elsewhere.path().join("created-by-root.db");
    let dangling = d.path().join("dangling.db");
    plant(&dangling, &nothing);
    let o = run(iolab().arg("--db").arg(&dangling).arg("list"));
    assert_one_line(&o, 2, &["symbolic link owned by another user"]);
    assert!(!nothing.exists(), "a file was created through the planted link");
    assert_eq!(list_dir(d.path()), ["dangling.db", "results.db"]);
    assert_eq!(list_dir(elsewhere.path()), ["victim"]);
    // The user's own link is theirs to use.
    let mine = d.path().join("mine.db");
    std::os::unix::fs::symlink(elsewhere.path().join("mine-real.db"), &mine).unwrap();
    let o = run(iolab().arg("--db").arg(&mine).arg("list"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(elsewhere.path().join("mine-real.db").is_file());
}

/// `-o /tmp/x` where x is a link another user planted: refused, the file it
/// points to unchanged; another user's file in a sticky directory too.
#[test]
fn issue_16_an_output_link_planted_by_another_user_is_refused() {
    need_root!();
    let d = shared_dir(false);
    let elsewhere = tempfile::tempdir().unwrap();
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let link = d.path().join("list.json");
    plant(&link, &victim);
    for args in [&["list", "-o"][..], &["list", "--format", "json", "--output"]] {
        let o = run(iolab().args(args).arg(&link));
        assert_one_line(&o, 2, &["refusing to write", "symbolic link owned by another user (uid 65534)"]);
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let sticky = shared_dir(true);
    let theirs = sticky.path().join("report.html");
    std::fs::write(&theirs, "theirs").unwrap();
    std::os::unix::fs::lchown(&theirs, Some(65534), Some(65534)).unwrap();
    let o = run(iolab().args(["list", "-o"]).arg(&theirs));
    assert_one_line(&o, 2, &["belongs to another user (uid 65534)"]);
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs");
}

// ------------------------------------------------------------ input files

#[test]
fn issue_16_input_files_that_are_not_files_are_refused() {
    let o = run(iolab().args(["import", "/dev/zero"]));
    assert_one_line(
        &o,
        2,
        &["cannot read the document to import /dev/zero: it is a character device, not a file"],
    );
    let o = run(iolab().args(["--config", "/dev/zero", "list"]));
    assert_one_line(&o, 2, &["cannot read the configuration file /dev/zero: it is a character device"]);
    let o = run(iolab().args(["job", ".", "--hosts-file", "/dev/zero"]));
    assert_one_line(&o, 2, &["cannot read the hosts file /dev/zero: it is a character device"]);
    let o = run(iolab().args(["import", "/"]));
    assert_one_line(&o, 2, &["it is a directory, not a file"]);
}

#[test]
fn issue_16_a_deeply_nested_document_is_one_error() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("deep.json");
    std::fs::write(&f, format!("{{\"jobs\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000))).unwrap();
    let o = run(iolab().arg("import").arg(&f));
    assert_one_line(&o, 2, &["recursion limit exceeded"]);
}

#[test]
fn issue_16_arguments_that_are_not_utf8_are_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    for args in [vec![bad], vec![std::ffi::OsStr::new("job"), bad, std::ffi::OsStr::new("--bs"), bad]] {
        let o = run(iolab().args(args));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(!stderr(&o).contains("internal error"));
    }
}

// ------------------------------------------------------------ the store

/// A store with a few runs in a directory of its own (imported: no measuring).
struct Store {
    dir: tempfile::TempDir,
}

impl Store {
    fn new() -> Store {
        let dir = tempfile::Builder::new().prefix("iolab-hostile-store-").tempdir().unwrap();
        let s = Store { dir };
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        for f in [
            "render/demo.json",
            "render/scan.json",
            "render/scale.json",
            "render/mix.json",
            "fio/client-3hosts.json",
        ] {
            let o = run(s.cmd().arg("import").arg(format!("{fixtures}/{f}")));
            assert!(o.status.success(), "{}", stderr(&o));
        }
        assert_eq!(s.files(), ["results.db"], "a closed store is one file");
        s
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("results.db")
    }
    fn cmd(&self) -> Command {
        let mut c = iolab();
        c.env("IOLAB_DB", self.db());
        c
    }
    fn files(&self) -> Vec<String> {
        list_dir(self.dir.path())
    }
    /// Every command that opens the store fails with one line naming it and
    /// `want`, exit status 1; the file is unchanged and nothing is left beside it.
    fn assert_refused(&self, want: &str) {
        let before = checksum(&self.db());
        for args in [
            &["list"][..],
            &["show", "1"],
            &["label", "1", "x"],
            &["tag", "1", "k=v"],
            &["delete", "1"],
        ] {
            let o = run(self.cmd().args(args));
            let db = self.db().display().to_string();
            assert_one_line(&o, 1, &[&db, want]);
        }
        let o = run(self
            .cmd()
            .arg("import")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/render/demo.json")));
        assert_one_line(&o, 1, &[want]);
        assert_eq!(checksum(&self.db()), before, "the store changed");
        assert_eq!(self.files(), ["results.db"], "files left beside the store");
    }
}

#[test]
fn issue_16_a_store_of_random_bytes_is_refused_unchanged() {
    let s = Store::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let bytes: Vec<u8> = (0..64 << 10)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(s.db(), bytes).unwrap();
    s.assert_refused("file is not a database: not an SQLite file, or a damaged one (the file is left as it is)");
}

#[test]
fn issue_16_a_truncated_store_is_refused_unchanged() {
    let s = Store::new();
    let len = std::fs::metadata(s.db()).unwrap().len();
    assert!(len >= 64 << 10, "the store is too small to cut: {len}");
    let f = std::fs::OpenOptions::new().write(true).open(s.db()).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);
    s.assert_refused("database disk image is malformed: the file is damaged (truncated or overwritten)");
}

#[test]
fn issue_16_a_store_from_a_newer_iolab_is_refused_unchanged() {
    let s = Store::new();
    {
        let c = rusqlite::Connection::open(s.db()).unwrap();
        c.pragma_update(None, "user_version", 99).unwrap();
    }
    assert_eq!(s.files(), ["results.db"]);
    s.assert_refused(&format!(
        "has schema version 99, newer than this iolab understands ({}): it was written by a newer iolab",
        iolab::store::SCHEMA_VERSION
    ));
}

#[test]
fn issue_16_another_programs_database_is_refused_unchanged() {
    let s = Store::new();
    std::fs::remove_file(s.db()).unwrap();
    {
        let c = rusqlite::Connection::open(s.db()).unwrap();
        c.execute_batch("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('x');")
            .unwrap();
    }
    s.assert_refused("is an SQLite database of another program (1 table(s), no iolab schema): not a results store");
}

/// Another process holds the store's write lock for longer than the busy
/// timeout: writing commands fail with one line saying so, reading ones
/// still work (WAL); nothing is changed or left behind.
#[test]
fn issue_16_a_store_locked_by_another_process_is_a_clear_error() {
    let s = Store::new();
    let before = checksum(&s.db());
    let holder = rusqlite::Connection::open(s.db()).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let busy = |args: &[&str]| {
        let t0 = std::time::Instant::now();
        let o = run(s.cmd().env("IOLAB_TEST_STORE_BUSY_TIMEOUT_MS", "300").args(args));
        (o, t0.elapsed())
    };
    for args in [&["label", "1", "x"][..], &["tag", "1", "k=v"], &["delete", "1"]] {
        let (o, took) = busy(args);
        assert_one_line(
            &o,
            1,
            &[
                &s.db().display().to_string(),
                "database is locked: another process held it for longer than the busy timeout (300ms)",
            ],
        );
        assert!(
            took >= Duration::from_millis(300),
            "gave up after {took:?}, before the busy timeout"
        );
    }
    let (o, _) = busy(&["list"]);
    assert!(o.status.success(), "reading is not blocked by a writer: {}", stderr(&o));
    // An exclusive lock on the file itself: readers wait too, then give up.
    holder
        .execute_batch("ROLLBACK; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE runs SET label = label")
        .unwrap();
    let (o, _) = busy(&["list"]);
    assert_one_line(&o, 1, &["database is locked", "busy timeout (300ms)"]);
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    assert_eq!(checksum(&s.db()), before, "the store changed");
    assert_eq!(s.files(), ["results.db"]);
    // Once free, the same command works.
    let o = run(s.cmd().args(["label", "1", "x"]));
    assert!(o.status.success(), "{}", stderr(&o));
}
