//! Results that follow the user, not root: under sudo, the default store is
//! the invoking user's, created private (0600, directories 0700) and owned by
//! them; root's own store is not touched. And an ordinary user's run makes a
//! private store in their home.
//!
//! Needs root (it adds a throwaway system user, removed again by a guard).
//! Without root the tests print a skip notice, except under `CI=true`, where
//! they fail instead.

use crate::common::IolabCopy;
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

static SERIAL: AtomicU32 = AtomicU32::new(0);

/// A system user made for one test, removed (with its home) on drop.
struct TempUser {
    name: String,
    uid: u32,
    gid: u32,
    home: PathBuf,
}

impl TempUser {
    fn new() -> TempUser {
        let name = format!("iolab-t-{}-{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed));
        let st = Command::new("useradd")
            .args(["--create-home", "--shell", "/usr/sbin/nologin"])
            .arg(&name)
            .status()
            .expect("useradd runs");
        assert!(st.success(), "useradd {name} failed");
        // From here on the guard removes the user, whatever happens.
        let mut user = TempUser {
            name,
            uid: 0,
            gid: 0,
            home: PathBuf::new(),
        };
        let acct = iolab::store::lookup_user(&user.name).expect("the new user is in passwd");
        (user.uid, user.gid, user.home) = (acct.uid, acct.gid, acct.home);
        assert_ne!(user.uid, 0);
        note!(
            "made user {} (uid {}, gid {}, home {})",
            user.name,
            user.uid,
            user.gid,
            user.home.display()
        );
        user
    }

    fn store(&self) -> PathBuf {
        self.home.join(".local/share/iolab/results.db")
    }
}

impl Drop for TempUser {
    fn drop(&mut self) {
        let ok = Command::new("userdel")
            .args(["-r", &self.name])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("warning: userdel -r {} failed", self.name);
        }
    }
}

/// A scratch directory in /dev/shm: the job's target and a copy of the binary
/// that any user can run.
struct Scratch {
    dir: tempfile::TempDir,
    bin: IolabCopy,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::Builder::new().prefix("iolab-sudo-").tempdir_in("/dev/shm").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(dir.path().join("t")).unwrap();
        let bin = IolabCopy::new(dir.path());
        Scratch { dir, bin }
    }
    fn target(&self) -> PathBuf {
        self.dir.path().join("t")
    }
}

/// The tiny job, after `prefix` (a program and its arguments, or nothing).
/// These tests check the default store: no `IOLAB_DB`, no `XDG_DATA_HOME`
/// and no sudo variables of the caller's reach it.
fn job(prefix: &[&str], bin: &IolabCopy, target: &Path) -> Command {
    let mut c = bin.command(prefix);
    c.arg("job").arg(target);
    c.args([
        "--size",
        "8MiB",
        "--duration",
        "200ms",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--interval",
        "0s",
    ]);
    for k in ["IOLAB_DB", "XDG_DATA_HOME", "SUDO_USER", "SUDO_UID", "SUDO_GID", "SUDO_COMMAND"] {
        c.env_remove(k);
    }
    c
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "iolab failed: {err}");
    err
}

fn runs_in(db: &Path) -> i64 {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0)).unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// What is in root's own default store directory: name → (size, mtime).
fn roots_store() -> (Vec<bool>, BTreeMap<String, (u64, SystemTime)>) {
    let dirs = ["/root/.local", "/root/.local/share", "/root/.local/share/iolab"];
    let exist = dirs.iter().map(|d| Path::new(d).exists()).collect();
    let mut files = BTreeMap::new();
    if let Ok(rd) = std::fs::read_dir(dirs[2]) {
        for e in rd.flatten() {
            let m = e.metadata().unwrap();
            files.insert(e.file_name().to_string_lossy().to_string(), (m.len(), m.modified().unwrap()));
        }
    }
    (exist, files)
}

#[test]
fn under_sudo_the_run_is_stored_in_the_invoking_users_home() {
    need_root!();
    let user = TempUser::new();
    let scratch = Scratch::new();
    let db = user.store();
    let dirs = [".local", ".local/share", ".local/share/iolab"].map(|d| user.home.join(d));
    let existed: Vec<bool> = dirs.iter().map(|d| d.exists()).collect();
    let root_before = roots_store();

    let sudo = |c: &mut Command| {
        c.env("HOME", "/root")
            .env("SUDO_USER", &user.name)
            .env("SUDO_UID", user.uid.to_string())
            .env("SUDO_GID", user.gid.to_string())
            .env("SUDO_COMMAND", "/usr/local/bin/iolab job");
    };
    let mut c = job(&[], &scratch.bin, &scratch.target());
    sudo(&mut c);
    let err = ok(&c.output().unwrap());
    let want = format!("iolab: stored as run 1 in {} ({}'s store: run under sudo)", db.display(), user.name);
    assert!(err.contains(&want), "want {want:?} on stderr: {err}");

    // The run is in the user's store, which is theirs and private.
    assert_eq!(runs_in(&db), 1);
    let m = std::fs::metadata(&db).unwrap();
    assert_eq!((m.uid(), m.gid()), (user.uid, user.gid), "owner of {}", db.display());
    assert_eq!(mode(&db), 0o600);
    for (d, existed) in dirs.iter().zip(&existed) {
        let m = std::fs::metadata(d).unwrap();
        assert_eq!((m.uid(), m.gid()), (user.uid, user.gid), "owner of {}", d.display());
        if !existed {
            assert_eq!(mode(d), 0o700, "mode of {}", d.display());
        }
    }
    // While the store is open, SQLite's side files take its owner and mode.
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        let n: i64 = c.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 1);
        for side in ["results.db-wal", "results.db-shm"] {
            let p = db.with_file_name(side);
            let m = std::fs::metadata(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert_eq!((m.uid(), m.gid()), (user.uid, user.gid), "owner of {}", p.display());
            assert_eq!(mode(&p), 0o600, "mode of {}", p.display());
        }
    }
    // Nothing of this run went to root's store.
    assert_eq!(roots_store(), root_before, "root's store changed");

    // An existing store keeps its mode; the next run is added to it.
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut c = job(&[], &scratch.bin, &scratch.target());
    sudo(&mut c);
    let err = ok(&c.output().unwrap());
    assert!(err.contains("stored as run 2 in"), "{err}");
    assert_eq!(runs_in(&db), 2);
    assert_eq!(mode(&db), 0o640);
    let m = std::fs::metadata(&db).unwrap();
    assert_eq!((m.uid(), m.gid()), (user.uid, user.gid));
    assert_eq!(roots_store(), root_before, "root's store changed");
}

/// `--db` and `$IOLAB_DB` win over the sudo rule, and no ownership is handed out.
#[test]
fn under_sudo_iolab_db_still_wins() {
    need_root!();
    let user = TempUser::new();
    let scratch = Scratch::new();
    let db = scratch.dir.path().join("mine/results.db");
    let out = job(&[], &scratch.bin, &scratch.target())
        .env("HOME", "/root")
        .env("IOLAB_DB", &db)
        .env("SUDO_USER", &user.name)
        .env("SUDO_UID", user.uid.to_string())
        .env("SUDO_GID", user.gid.to_string())
        .output()
        .unwrap();
    let err = ok(&out);
    assert!(err.contains(&format!("iolab: stored as run 1 in {}\n", db.display())), "{err}");
    assert!(!err.contains("run under sudo"), "{err}");
    assert_eq!(std::fs::metadata(&db).unwrap().uid(), 0);
    assert_eq!(mode(&db), 0o600);
    assert!(!user.store().exists());
}

/// An ordinary user's run (no sudo) stores in their home, privately.
#[test]
fn a_plain_users_run_is_stored_privately_in_their_home() {
    need_root!();
    let user = TempUser::new();
    let scratch = Scratch::new();
    std::os::unix::fs::chown(scratch.target(), Some(user.uid), Some(user.gid)).unwrap();
    let (ruid, rgid) = (format!("--reuid={}", user.uid), format!("--regid={}", user.gid));
    let out = job(&["setpriv", &ruid, &rgid, "--init-groups"], &scratch.bin, &scratch.target())
        .env("HOME", &user.home)
        .current_dir("/")
        .output()
        .unwrap();
    let err = ok(&out);
    let db = user.store();
    assert!(err.contains(&format!("iolab: stored as run 1 in {}\n", db.display())), "{err}");
    assert_eq!(runs_in(&db), 1);
    let m = std::fs::metadata(&db).unwrap();
    assert_eq!((m.uid(), m.gid()), (user.uid, user.gid));
    assert_eq!(mode(&db), 0o600);
    assert_eq!(mode(&user.home.join(".local/share/iolab")), 0o700);
}
