//! Emptying a ZFS pool's ARC the one way there is: exporting the pool and
//! importing it again, around iolab's own open target (`--allow-export`).
//!
//! The ARC keeps what the prefill wrote and what earlier tests read, and
//! `drop_caches` does not empty it. An export closes the pool (its
//! datasets are unmounted, its ARC buffers freed) and an import opens it
//! cold. A pool cannot be exported while a file on it is open, so iolab
//! closes its own for that moment: the descriptor's number is kept (it
//! points at `/dev/null` meanwhile) and the file is reopened by its name,
//! with the same flags (O_DIRECT, O_NOATIME), once the pool is back. A test
//! file in a directory has a name only for this (`iolab-test-…`, see
//! [`super::leftovers`]); an existing file is reopened by its path.
//!
//! The pool comes back exactly as it was: imported by its GUID (so no
//! other exported pool of the same name is taken instead), from the
//! directories its members are in (`-d`, so file vdevs are found), with
//! its cache file and alternate root kept (a pool made with
//! `cachefile=none` is not remembered afterwards). An import that fails
//! is retried; one that never succeeds fails the run with the command that
//! imports it by hand.
//!
//! The commands run through [`Zpool`], so unit tests use a fake; the live
//! behaviour is tested against zfs-fuse pools (`tests/integration`).

use super::Target;
use crate::base::error::{Result, failed};
use crate::device::FsInfo;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `zpool` with arguments: its standard output, or why it failed
/// (its standard error, or that it could not run or timed out).
pub trait Zpool {
    fn run(&self, args: &[&str]) -> std::result::Result<String, String>;
}

/// The live `zpool` command, given [`ZPOOL_TIMEOUT`].
pub struct LiveZpool;

/// How long one `zpool` command may take: an import scans the members'
/// directories and replays the pool's intent log.
pub const ZPOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// How often, and how far apart, a failed import is tried again: a pool
/// just exported can answer "busy" for a moment.
const IMPORT_TRIES: u32 = 3;
const IMPORT_PAUSE: Duration = if cfg!(test) {
    Duration::from_millis(10)
} else {
    Duration::from_secs(2)
};

/// How long the reimported dataset may take to be mounted again.
const MOUNT_WAIT: Duration = Duration::from_secs(20);

impl Zpool for LiveZpool {
    fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
        run_tool("zpool", args)
    }
}

/// The live `zfs` command (datasets and snapshots), through the same
/// trait and with the same timeout as [`LiveZpool`].
pub struct LiveZfs;

impl Zpool for LiveZfs {
    fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
        run_tool("zfs", args)
    }
}

/// Run `program` (`zpool` or `zfs`) with `args`: its standard output, or
/// why it failed, within [`ZPOOL_TIMEOUT`].
fn run_tool(program: &str, args: &[&str]) -> std::result::Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let pipe = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let out = pipe(child.stdout.take().map(|o| Box::new(o) as Box<dyn Read + Send>));
    let err = pipe(child.stderr.take().map(|e| Box::new(e) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() < ZPOOL_TIMEOUT => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{program} {} took more than {} s", args.join(" "), ZPOOL_TIMEOUT.as_secs()));
            }
        }
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if status.success() {
        Ok(out)
    } else {
        let why = err.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
        Err(if why.is_empty() { status.to_string() } else { why })
    }
}

/// A pool property from `zpool get PROP POOL`'s table (`NAME PROPERTY
/// VALUE SOURCE`, with or without a header; both implementations print it
/// so): `None` when unset (`-`) or not there.
pub fn parse_get(text: &str, pool: &str, prop: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        (w.len() >= 3 && w[0] == pool && w[1] == prop && w[2] != "-").then(|| w[2].to_string())
    })
}

/// How to import a pool again exactly as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reimport {
    pub pool: String,
    /// The pool's GUID: what is imported (no other pool of its name).
    pub guid: Option<String>,
    /// The directories its members are in (`-d`), in the pool's order.
    pub dirs: Vec<String>,
    /// `none` or a path: kept with `-o cachefile=`; `None`: the default.
    pub cachefile: Option<String>,
    /// An alternate root, kept with `-R`.
    pub altroot: Option<String>,
}

impl Reimport {
    /// What to ask of `zpool` before the export: the pool's GUID, cache
    /// file and alternate root; `leaves`: its members' paths (every class:
    /// logs and caches must be found too).
    pub fn of(zpool: &dyn Zpool, pool: &str, leaves: &[&str]) -> Reimport {
        let get = |prop: &str| zpool.run(&["get", prop, pool]).ok().and_then(|t| parse_get(&t, pool, prop));
        let mut dirs: Vec<String> = Vec::new();
        for leaf in leaves.iter().filter(|l| l.starts_with('/')) {
            let dir = Path::new(leaf)
                .parent()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|| "/".into());
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        Reimport {
            pool: pool.to_string(),
            guid: get("guid"),
            dirs,
            cachefile: get("cachefile").filter(|c| !c.is_empty()),
            altroot: get("altroot"),
        }
    }

    /// `zpool`'s arguments for the import.
    pub fn args(&self) -> Vec<String> {
        let mut a = vec!["import".to_string()];
        for d in &self.dirs {
            a.extend(["-d".to_string(), d.clone()]);
        }
        if let Some(c) = &self.cachefile {
            a.extend(["-o".to_string(), format!("cachefile={c}")]);
        }
        if let Some(r) = &self.altroot {
            a.extend(["-R".to_string(), r.clone()]);
        }
        a.push(self.guid.clone().unwrap_or_else(|| self.pool.clone()));
        a
    }

    /// The import as a command line, for the message when it fails.
    pub fn command(&self) -> String {
        format!("zpool {}", self.args().join(" "))
    }
}

/// Why `pool` may not be exported, if it may not: it holds the root
/// filesystem (`mounts`), its members are unknown (`zpool status` did not
/// list them: iolab could not be sure to import it again), or the target
/// has no name to be reopened by after the import.
pub fn export_refusal(pool: &str, mounts: &[FsInfo], members_known: bool, reopenable: bool) -> Option<String> {
    let of_pool =
        |m: &&FsInfo| crate::judge::zfs::Implementation::of_fstype(&m.fstype).is_some() && m.source.split('/').next() == Some(pool);
    if mounts.iter().filter(of_pool).any(|m| m.mount_point == "/") {
        return Some("it holds the root filesystem".into());
    }
    if !members_known {
        return Some("its members are unknown (`zpool status` did not list them), so iolab could not be sure to import it again".into());
    }
    if !reopenable {
        return Some("the target has no name iolab could reopen it by after the import".into());
    }
    None
}

/// What came of [`Target::cycle_pool`].
#[derive(Debug, PartialEq, Eq)]
pub enum Cycled {
    /// Exported, imported, and the target reopened.
    Done,
    /// `zpool export` refused (a busy pool): nothing changed; why.
    Refused(String),
}

/// The flags a reopened descriptor keeps: its access mode, O_DIRECT and O_NOATIME.
fn reopen_flags(status: libc::c_int) -> libc::c_int {
    (status & libc::O_ACCMODE) | (status & (libc::O_DIRECT | libc::O_NOATIME)) | libc::O_CLOEXEC
}

/// `path` opened with `flags` (without O_NOATIME where the owner's right
/// to it is missing).
fn open_with(path: &Path, flags: libc::c_int) -> std::io::Result<std::fs::File> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    for f in [flags, flags & !libc::O_NOATIME] {
        // SAFETY: a valid C string; the descriptor is owned by the File.
        let fd = unsafe { libc::open(c.as_ptr(), f) };
        if fd >= 0 {
            return Ok(unsafe { std::fs::File::from_raw_fd(fd) });
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EPERM) {
            return Err(e);
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::EPERM))
}

/// Put `from` in the place of descriptor number `to` (atomically, close-on-exec).
fn replace_fd(from: &impl AsRawFd, to: libc::c_int) -> std::io::Result<()> {
    // SAFETY: both are open descriptors of this process; dup3 closes what `to` was.
    if unsafe { libc::dup3(from.as_raw_fd(), to, libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Where the journals of pools iolab exported live (root only, kept
/// across a reboot): one per export, from before the export until the
/// import, holding the command that imports the pool again.
pub const EXPORT_JOURNALS: &str = "/var/lib/iolab/exports";

/// The directory of the export journals: [`EXPORT_JOURNALS`], or in unit
/// tests one of the test's own (per thread: each test runs in one), which
/// the test removes ([`Journals`]).
fn export_journals() -> PathBuf {
    if cfg!(test) {
        let test = std::thread::current().name().unwrap_or("main").replace("::", "-");
        std::env::temp_dir().join(format!("iolab-unit-exports-{}-{test}", std::process::id()))
    } else {
        PathBuf::from(EXPORT_JOURNALS)
    }
}

/// In a unit test that exports a pool: removes the test's export journals
/// ([`export_journals`]) when the test ends, passed or failed.
#[cfg(test)]
pub(crate) struct Journals;

#[cfg(test)]
impl Drop for Journals {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(export_journals());
    }
}

/// Export `re.pool` and import it again, running `between` while it is
/// away; nothing of iolab's may be open on it. `Ok(Refused)` when the
/// export was refused (the pool is as it was); an import that never
/// succeeds is an error, with the command that imports it by hand.
///
/// The window is journalled like a layout ([`super::journal`]): before the
/// export, a journal holding the import (guarded: only while no pool of
/// that name is imported) is written, and it is removed once the pool is
/// back. A run killed in between leaves it, and the next export (of any
/// pool, by any run) first imports what a run that is gone left exported;
/// so does `iolab layouts`. A second SIGINT in the window does not exit at
/// once: it waits for the import ([`crate::base::signals::hold`]). An
/// export that cannot be journalled is not made (`Refused`).
pub fn export_import(zpool: &dyn Zpool, re: &Reimport, between: impl FnOnce()) -> Result<Cycled> {
    export_import_in(zpool, re, &export_journals(), between)
}

/// [`export_import`] with its journals in `journals`.
pub fn export_import_in(zpool: &dyn Zpool, re: &Reimport, journals: &Path, between: impl FnOnce()) -> Result<Cycled> {
    use super::journal::{Action, Guard, Journal, Undo};
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CYCLES: AtomicUsize = AtomicUsize::new(0);
    sweep_exports(zpool, journals);
    let _hold = crate::base::signals::hold();
    let name = format!(
        "export-{}-{}-{}",
        crate::plan::layouts::file_slug(&re.pool),
        std::process::id(),
        CYCLES.fetch_add(1, Ordering::Relaxed)
    );
    let mut argv = vec!["zpool".to_string()];
    argv.extend(re.args());
    let journal = Journal::create(journals, &name).and_then(|mut j| {
        j.push(Undo {
            what: format!("pool {}, exported by iolab to empty its ARC", re.pool),
            action: Action::Run { argv },
            guard: Guard::PoolExported { name: re.pool.clone() },
            best_effort: false,
            after: None,
        })?;
        Ok(j)
    });
    let journal = match journal {
        Ok(j) => j,
        Err(e) => return Ok(Cycled::Refused(format!("its export could not be journalled ({e})"))),
    };
    if let Err(why) = zpool.run(&["export", &re.pool]) {
        journal.discard();
        return Ok(Cycled::Refused(why));
    }
    crate::base::testknob::pause_at("zfs-exported");
    between();
    let mut last = String::new();
    for i in 0..IMPORT_TRIES {
        if i > 0 {
            std::thread::sleep(IMPORT_PAUSE);
        }
        let args = re.args();
        match zpool.run(&args.iter().map(String::as_str).collect::<Vec<_>>()) {
            Ok(_) => {
                last.clear();
                break;
            }
            Err(why) => last = why,
        }
    }
    if !last.is_empty() {
        // The journal stays: the next run tries the import again.
        return Err(failed(format!(
            "pool {} was exported to empty its ARC and could not be imported again ({last}): import it with `{}`",
            re.pool,
            re.command()
        )));
    }
    journal.discard();
    Ok(Cycled::Done)
}

/// Import again the pools that runs which are gone left exported (their
/// export journals in `journals`): what was imported, or could not be, in
/// words.
pub fn sweep_exports(zpool: &dyn Zpool, journals: &Path) -> Vec<String> {
    use super::journal::{Outcome, sweep};
    let mut said = Vec::new();
    for s in sweep(journals, &super::owner::of, &ZpoolSystem(zpool)) {
        for (u, o) in &s.steps {
            match o {
                Outcome::Done => said.push(format!("imported again: {}, left exported by a killed run", u.what)),
                Outcome::Failed(e) => said.push(format!("could not import {} again ({e}): see {}", u.what, s.journal.display())),
                Outcome::Skipped(_) | Outcome::LeftAlone(_) => {}
            }
        }
    }
    said
}

/// A [`super::journal::System`] that knows only pools, through a [`Zpool`]:
/// what the export journals need. Everything else fails closed.
struct ZpoolSystem<'a>(&'a dyn Zpool);

impl super::journal::System for ZpoolSystem<'_> {
    fn pool_imported(&self, name: &str) -> bool {
        self.0
            .run(&["list", "-H", "-o", "name", name])
            .is_ok_and(|o| o.lines().any(|l| l.trim() == name))
    }
    fn mount_source(&self, _: &str) -> Option<String> {
        None
    }
    fn probe(&self, _: &str) -> Option<super::journal::Probe> {
        None
    }
    fn volume_group(&self, _: &str) -> bool {
        false
    }
    fn node_exists(&self, _: &str) -> bool {
        false
    }
    fn identity(&self, _: &str) -> Option<crate::device::identity::Identity> {
        None
    }
    fn resolve(&self, _: &crate::device::identity::Identity, path: &str) -> crate::device::identity::Resolved {
        crate::device::identity::Resolved::Gone(format!("{path}: no device is looked at here"))
    }
    fn check_device(&self, device: &str, _: bool) -> std::result::Result<(), String> {
        Err(format!("{device}: no device is checked here"))
    }
    fn act(&self, action: &super::journal::Action) -> std::result::Result<(), String> {
        match action {
            super::journal::Action::Run { argv } if argv.first().is_some_and(|a| a == "zpool") => {
                let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
                self.0.run(&args).map(|_| ())
            }
            other => Err(format!("`{}` is not a zpool command", other.line())),
        }
    }
}

impl Target {
    /// The name the target is reopened by after an export: its named test
    /// file, or the file it is; `None` for an unnamed test file or a device.
    pub fn reopen_path(&self) -> Option<PathBuf> {
        match (&self.named, self.info.kind) {
            (Some(n), _) => Some(n.file.clone()),
            (None, super::Kind::File) => Some(PathBuf::from(&self.info.path)),
            _ => None,
        }
    }

    /// Export `re.pool` and import it again with the target closed, running
    /// `between` while the pool is away (dropping the kernel's caches).
    /// `Ok(Refused)` when the export was refused: the target is as it was.
    /// An import that never succeeds, or a target not found again after it,
    /// is an error: the run cannot go on.
    pub fn cycle_pool(&self, zpool: &dyn Zpool, re: &Reimport, between: impl FnOnce()) -> Result<Cycled> {
        let Some(path) = self.reopen_path() else {
            return Ok(Cycled::Refused("the target has no name to be reopened by".into()));
        };
        let fd = self.fd();
        // SAFETY: fcntl and fstat on our own open descriptor.
        let status = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        let ino = self.file.metadata().map(|m| std::os::unix::fs::MetadataExt::ino(&m)).ok();
        let flags = reopen_flags(status.max(0));
        let cannot = |what: &str, e: &dyn std::fmt::Display| failed(format!("{what} {}: {e}", path.display()));
        // While the pool is away: no watching (its mount disappears), and
        // the descriptor's number held by /dev/null.
        *self.watch.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let null = std::fs::File::open("/dev/null").map_err(|e| cannot("cannot open /dev/null to close", &e))?;
        replace_fd(&null, fd).map_err(|e| cannot("cannot close", &e))?;
        let cycled = export_import(zpool, re, between)?;
        self.reopen(&path, flags, ino, fd)?;
        Ok(cycled)
    }

    /// Reopen the target at `path` into descriptor number `fd`, waiting
    /// for its mount to come back, and watch it again.
    fn reopen(&self, path: &Path, flags: libc::c_int, ino: Option<u64>, fd: libc::c_int) -> Result<()> {
        let start = Instant::now();
        let file = loop {
            match open_with(path, flags) {
                Ok(f) => break f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && start.elapsed() < MOUNT_WAIT => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => {
                    return Err(failed(format!(
                        "the target {} was not there again after its pool's import: {e}",
                        path.display()
                    )));
                }
            }
        };
        let now = file.metadata().map(|m| std::os::unix::fs::MetadataExt::ino(&m)).ok();
        if ino.is_some() && now != ino {
            return Err(failed(format!(
                "the target {} is another file after its pool's import (inode {} instead of {})",
                path.display(),
                now.unwrap_or(0),
                ino.unwrap_or(0)
            )));
        }
        replace_fd(&file, fd).map_err(|source| super::error::TargetError::Reopen {
            path: path.to_path_buf(),
            source,
        })?;
        let watched = Path::new(&self.info.path);
        *self.watch.lock().unwrap_or_else(|p| p.into_inner()) =
            super::watch::Identity::of(watched, &*self.file).map(|id| super::watch::Watch::start(watched, id));
        Ok(())
    }
}

#[cfg(test)]
#[path = "zfs_tests.rs"]
mod tests;
