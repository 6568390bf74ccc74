//! What is measured: a directory (iolab makes its own test file there), an
//! existing file, or a block device.
//!
//! Safety rules live here, before any I/O:
//! - a test file is created *unlinked* (`O_TMPFILE`, or created and unlinked
//!   at once where that is unsupported), so it disappears when iolab exits,
//!   however it exits, SIGKILL included; its space is checked first;
//! - an existing file or a block device is written only with `--allow-destroy`;
//!   a block device is then checked by [`crate::targets::safety`] (mounted, swap,
//!   held, signatures) and opened `O_EXCL`, which the kernel refuses while it
//!   (or a partition of it) is mounted or held by anyone else.
//!
//! O_DIRECT is requested by default; when the filesystem refuses it, the
//! target falls back to buffered I/O and says so ([`Target::direct_fallback`]).

pub mod dataset;
pub mod error;
mod faults;
pub mod files;
pub mod journal;
pub mod leftovers;
pub mod owner;
pub mod safety;
pub mod signatures;
pub mod space;
mod testfile;
pub mod watch;
pub mod zfs;

use error::TargetError;
pub(crate) use testfile::anonymous_file;
use testfile::{NamedTestFile, PrefillRequest, create_named_test_file, create_test_file, prefill};

use crate::base::error::{Result, failed, usage};
use crate::base::progress::{Event, Level, Observer};
use crate::base::signals::Stop;
use crate::base::units::fmt_bytes;
use crate::device::{self, BlockDev, FsInfo, SysRoot};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// Default size of the test file made in a directory.
pub const DEFAULT_TEST_FILE: u64 = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A directory: iolab measures its own test file inside it.
    Directory,
    File,
    BlockDevice,
}

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct OpenRequest {
    pub path: PathBuf,
    /// Bytes to use (test file size, or a limit on an existing file/device).
    pub size: Option<u64>,
    pub write: bool,
    pub allow_destroy: bool,
    /// Write even over a partition table or filesystem signature (never over a mount, swap or a holder).
    pub force: bool,
    pub buffered: bool,
    /// Largest block size any job will use (the span must hold one per worker).
    pub max_bs: u64,
    /// Count failed I/O instead of stopping at the first (`--continue-on-error`).
    pub continue_on_error: bool,
    /// The user allows an export and import of a ZFS pool under the target
    /// (`--allow-export`): on ZFS the test file then has a name to be
    /// reopened by ([`zfs`]).
    pub allow_export: bool,
}

/// The target as the user chose it, before an experiment knows whether it
/// writes and how large its transfers are.
#[derive(Clone, Debug)]
pub struct Choice {
    pub path: PathBuf,
    /// Bytes to use (test file size, or a limit on an existing file/device).
    pub size: Option<u64>,
    /// The page cache instead of O_DIRECT.
    pub buffered: bool,
    pub allow_destroy: bool,
    pub force: bool,
    /// Count failed I/O per direction instead of stopping at the first
    /// (`--continue-on-error`, fio's `continue_on_error`).
    pub continue_on_error: bool,
    /// A ZFS pool under the target may be exported and imported to empty
    /// its ARC before a read job (`--allow-export`).
    pub allow_export: bool,
}

impl Choice {
    /// What to open for jobs that write (or not) with transfers up to `max_bs`.
    pub fn request(&self, write: bool, max_bs: u64) -> OpenRequest {
        OpenRequest {
            path: self.path.clone(),
            size: self.size,
            write,
            allow_destroy: self.allow_destroy,
            force: self.force,
            buffered: self.buffered,
            max_bs,
            continue_on_error: self.continue_on_error,
            allow_export: self.allow_export,
        }
    }
}

/// Description of the target, recorded in every result.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetInfo {
    /// The target as given.
    pub path: String,
    /// What the target is.
    pub kind: Kind,
    /// True when iolab measured its own (prefilled, removed) test file.
    pub test_file: bool,
    /// Bytes of the target the jobs address.
    #[schemars(extend("x-unit" = "bytes"))]
    pub span_bytes: u64,
    /// O_DIRECT was in effect (false: buffered, said in the warnings).
    pub direct: bool,
    /// The filesystem the target is on (`null` for a block device).
    pub filesystem: Option<FsInfo>,
    /// Block devices serving the target, top first (a loop device before the
    /// device under its backing file); on ZFS, the pool's data member disks.
    pub devices: Vec<BlockDev>,
    /// The ZFS pool whose data member disks `devices` are: the device
    /// cross-check sums their counters ([`device::served`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zfs_pool: Option<String>,
    /// A filesystem over several devices (btrfs raid) whose members `devices`
    /// are: the device cross-check sums their counters, as a pool's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members_of: Option<String>,
    /// What `iolab info` says about the target: the full chain, each physical
    /// device's facts, the throttles that apply, and the hints.
    pub info: Option<device::DeviceReport>,
}

impl TargetInfo {
    /// A directory a workload runs in through its filesystem (no test file,
    /// no span, no O_DIRECT): `time` and the application suites.
    pub fn directory(sys: &SysRoot, dir: &Path, devices: Vec<BlockDev>) -> TargetInfo {
        TargetInfo {
            path: std::fs::canonicalize(dir).unwrap_or(dir.to_path_buf()).display().to_string(),
            kind: Kind::Directory,
            test_file: false,
            span_bytes: 0,
            direct: false,
            filesystem: device::filesystem_of(sys, dir),
            devices,
            zfs_pool: None,
            members_of: None,
            info: device::describe(sys, dir).ok(),
        }
    }
}

/// What the results read of an open target: its description and how it
/// is opened, as plain facts ([`Target::facts`]). The summaries take these,
/// never the open target.
#[derive(Clone, Copy, Debug)]
pub struct TargetFacts<'a> {
    pub info: &'a TargetInfo,
    /// O_DIRECT was asked for but the target refused it.
    pub direct_fallback: bool,
    /// The descriptor is in O_DIRECT mode.
    pub direct: bool,
}

/// An open target, ready for jobs.
pub struct Target {
    /// Closed on drop, unless [`Target::abandon`]ed.
    file: std::mem::ManuallyDrop<File>,
    pub info: TargetInfo,
    /// O_DIRECT was asked for but the target refused it.
    pub direct_fallback: bool,
    /// diskstats names to cross-check, top first.
    pub device_names: Vec<String>,
    /// Atomic so a `Target` can be shared with the threads of several
    /// targets measured at once (`iolab scale`).
    direct_now: std::sync::atomic::AtomicBool,
    /// Whether the target takes non-blocking I/O ([`probe_nowait`]).
    nowait: bool,
    /// Whether its requests pass an I/O scheduler ([`device::scheduled`]).
    scheduled: bool,
    /// Count failed I/O instead of stopping at the first (`--continue-on-error`).
    pub continue_on_error: bool,
    /// Free bytes of a directory's filesystem before iolab made its test
    /// file there (for the message when the filesystem fills up anyway).
    pub free_before: Option<u64>,
    /// A thread of iolab's is stuck in the kernel on the target: the
    /// descriptor it uses stays open until the process exits.
    abandoned: std::sync::atomic::AtomicBool,
    /// Whether the target is still there ([`watch`]); replaced when the
    /// target is reopened after a ZFS pool's export and import.
    watch: std::sync::Mutex<Option<watch::Watch>>,
    /// The test file's name, when it has one ([`NamedTestFile`]: on ZFS
    /// with `--allow-export`); removed when the target is dropped.
    named: Option<NamedTestFile>,
}

impl Drop for Target {
    fn drop(&mut self) {
        if !self.abandoned() {
            // SAFETY: dropped once, here; never used again.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.file) };
        }
        // Abandoned: closing could block for ever too (a FUSE flush), and a
        // stuck thread may still use the descriptor: it goes with the process.
    }
}

impl Target {
    /// Its facts as they stand now, for the summaries.
    pub fn facts(&self) -> TargetFacts<'_> {
        TargetFacts {
            info: &self.info,
            direct_fallback: self.direct_fallback,
            direct: self.direct(),
        }
    }
    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }
    /// The descriptor, borrowed for the calls of [`crate::io::sys`].
    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
    pub fn span(&self) -> u64 {
        self.info.span_bytes
    }
    /// Whether the target takes non-blocking I/O: if not, io_uring hands
    /// every I/O to a worker thread of its own ([`probe_nowait`]).
    pub fn nowait(&self) -> bool {
        self.nowait
    }
    /// Whether the requests of the device under the target pass an I/O
    /// scheduler (its queue's `scheduler` is not `none`).
    pub fn scheduled(&self) -> bool {
        self.scheduled
    }
    /// Whether memory serves the target: a zram or RAM disk, or a file on
    /// tmpfs or ramfs. Its I/O costs CPU, not device time.
    pub fn memory_served(&self) -> bool {
        self.info.devices.first().is_some_and(|d| d.memory)
            || self
                .info
                .filesystem
                .as_ref()
                .is_some_and(|f| matches!(f.fstype.as_str(), "tmpfs" | "ramfs"))
    }
    /// Whether the descriptor is in O_DIRECT mode right now.
    pub fn direct(&self) -> bool {
        self.direct_now.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Switch O_DIRECT on or off for the next job (a suite may mix buffered
    /// and direct jobs). Returns what the target now does: asking for
    /// O_DIRECT where the filesystem refuses it leaves it buffered.
    pub fn use_direct(&self, want: bool) -> bool {
        if want != self.direct() {
            let ok = set_direct(&self.file, want);
            self.direct_now.store(ok && want, std::sync::atomic::Ordering::Relaxed);
        }
        self.direct()
    }

    /// With O_DIRECT every transfer must be a multiple of the device's
    /// logical block size.
    pub fn check_alignment(&self, sizes: impl IntoIterator<Item = u64>) -> Result<()> {
        if self.direct()
            && let Some(d) = self.info.devices.first()
        {
            for bs in sizes {
                if bs % d.logical_block_size as u64 != 0 {
                    return Err(usage(format!(
                        "block size {} is not a multiple of {}'s logical block size ({})",
                        crate::base::units::fmt_bs(bs),
                        d.name,
                        d.logical_block_size
                    )));
                }
            }
        }
        Ok(())
    }

    /// Give up on the target: a thread of iolab's is stuck in the kernel on
    /// it. Its descriptor is never closed (a late I/O must not land on a
    /// reused number); nothing else should touch it.
    pub fn abandon(&self) {
        self.abandoned.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn abandoned(&self) -> bool {
        self.abandoned.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `PATH: why`, once the target went away during the run ([`watch`]).
    pub fn gone(&self) -> Option<String> {
        self.watch
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .and_then(watch::Watch::gone)
    }

    /// I/Os completed so far by the block devices under the target: life,
    /// while a call on the target itself has not returned yet.
    pub fn device_progress(&self, sys: &SysRoot) -> u64 {
        if self.device_names.is_empty() {
            return 0;
        }
        let stats = device::diskstats(sys);
        self.device_names
            .iter()
            .filter_map(|n| stats.get(n))
            .map(|c| c.read_ios.wrapping_add(c.write_ios))
            .fold(0u64, u64::wrapping_add)
    }

    /// `f` on the target's descriptor, on a thread of its own, waited for
    /// while it or the devices under the target make progress
    /// ([`crate::io::stall::bounded`]). On a stall the target is abandoned
    /// and the error says what was being done (`doing`: "flushing written
    /// data in \"SEQ1M Q8T1 write\"").
    pub fn bounded<T: Send + 'static>(
        &self,
        sys: &SysRoot,
        doing: &str,
        f: impl FnOnce(BorrowedFd<'static>) -> T + Send + 'static,
    ) -> Result<T> {
        let fd = self.fd();
        // SAFETY: the descriptor stays open while `f` runs: the target outlives
        // a call that returns, and one that does not abandons it, which keeps
        // the descriptor open until the process exits (see `abandon`).
        let f = move || f(unsafe { BorrowedFd::borrow_raw(fd) });
        crate::io::stall::bounded(crate::io::stall::timeout(), || self.device_progress(sys), f).map_err(|s| {
            self.abandon();
            self.stalled(doing, s.0)
        })
    }

    /// Make written data durable, then drop the target's pages from the page
    /// cache, so a buffered read pass starts cold. (DONTNEED only drops clean
    /// pages, hence the sync first.)
    /// Bounded like every wait on the target ([`Target::bounded`]).
    pub fn drop_cache(&self) -> Result<()> {
        let r = self.bounded(&SysRoot::default(), "dropping its pages from the page cache", |fd| {
            let _ = crate::io::sys::fdatasync(fd);
            crate::io::sys::drop_pages(fd)
        })?;
        if let Err(r) = r {
            return Err(failed(format!("posix_fadvise(DONTNEED) failed: {}", r)));
        }
        Ok(())
    }
}

/// Filesystems that are views of the kernel, not storage: their files and
/// directories are never a target (`/proc/sysrq-trigger` with
/// `--allow-destroy` must not be written).
const KERNEL_FILESYSTEMS: &[(u32, &str)] = &[
    (0x9fa0, "proc (/proc)"),
    (0x6265_6572, "sysfs (/sys)"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6265_6570, "configfs"),
    (0xcafe_4a11, "bpf"),
    (0xde5e_81e4, "efivarfs"),
    (0x6165_676c, "pstore"),
];

/// The kernel filesystem `path` is on, if it is on one.
fn kernel_filesystem(path: &Path) -> Option<&'static str> {
    let st = rustix::fs::statfs(path).ok()?;
    let magic = st.f_type as u32;
    KERNEL_FILESYSTEMS.iter().find(|(m, _)| *m == magic).map(|(_, n)| *n)
}

/// Refuse, with the reason, what cannot be storage: a FIFO, a socket, a
/// character device, or a file or directory of a kernel filesystem
/// (`/proc`, `/sys`). `md` is `path`'s metadata (links followed).
pub fn refuse_non_storage(path: &Path, md: &std::fs::Metadata) -> Result<()> {
    let ft = md.file_type();
    let kind = if ft.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_char_device() {
        Some("a character device (such as /dev/null, /dev/zero or a terminal)")
    } else {
        None
    };
    let why = match kind {
        Some(k) => Some(format!("it is {k}")),
        None if ft.is_file() || ft.is_dir() => kernel_filesystem(path).map(|fs| format!("it is on {fs}, a view of the kernel")),
        None => None,
    };
    match why {
        Some(why) => Err(usage(format!(
            "refusing {}: {why}, not storage; iolab measures a directory, a regular file or a block device",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// Open (and for a directory, create and prefill) the target.
///
/// A symbolic link is judged as what it points to (a link to a block device
/// is that device: the safety rules apply to it), and what is opened is
/// checked to be what was judged (a link swapped in between is refused).
/// Writing through a link another user owns is refused
/// ([`crate::base::paths::planted_link`]).
pub fn open(req: &OpenRequest, root: &SysRoot, stop: &Stop, observer: &dyn Observer) -> Result<Target> {
    let resolved = resolve(req)?;
    let (real, path) = (&resolved.real, &resolved.shown);
    let ft = resolved.md.file_type();
    let Opened {
        kind,
        file,
        span,
        test_file,
        free_before,
        named,
    } = if ft.is_dir() {
        open_directory(req, &resolved, root, observer)?
    } else if ft.is_file() {
        open_file(req, &resolved)?
    } else if ft.is_block_device() {
        open_block_device(req, &resolved, root)?
    } else {
        return Err(usage(format!(
            "{} is not a directory, a regular file or a block device",
            path.display()
        )));
    };
    if span < req.max_bs {
        return Err(usage(format!(
            "the target span ({}) is smaller than the block size ({})",
            fmt_bytes(span),
            fmt_bytes(req.max_bs)
        )));
    }

    let (direct, direct_fallback) = choose_direct(req, &file, span, path, observer);
    // What `iolab info` says, first: on ZFS its pool's member disks are the devices to watch.
    let report = device::describe(root, real).ok();
    let device::Served {
        devices,
        zfs_pool,
        members_of,
    } = device::served(root, device::chain_of_path(root, real), report.as_ref());
    let device_names: Vec<String> = devices.iter().map(|d| d.name.clone()).collect();
    let file = if test_file {
        let progress = || {
            let stats = device::diskstats(root);
            device_names
                .iter()
                .filter_map(|n| stats.get(n))
                .map(|c| c.read_ios.wrapping_add(c.write_ios))
                .fold(0u64, u64::wrapping_add)
        };
        let req = PrefillRequest {
            size: span,
            direct,
            stop,
            observer,
            dir: path,
            free_before,
        };
        prefill(file, &req, progress)?
    } else {
        file
    };

    set_noatime(&file);
    let nowait = probe_nowait(&file, span);
    let scheduled = devices.first().is_some_and(|d| device::scheduled(root, d));
    let filesystem = if kind == Kind::BlockDevice {
        None
    } else {
        device::filesystem_of(root, real)
    };
    let info = TargetInfo {
        path: std::fs::canonicalize(real).unwrap_or_else(|_| real.clone()).display().to_string(),
        kind,
        test_file,
        span_bytes: span,
        direct,
        filesystem,
        devices,
        zfs_pool,
        members_of,
        info: report,
    };
    let watch = watch::Identity::of(Path::new(&info.path), &file).map(|id| watch::Watch::start(Path::new(&info.path), id));
    Ok(Target {
        file: std::mem::ManuallyDrop::new(file),
        info,
        direct_fallback,
        device_names,
        direct_now: std::sync::atomic::AtomicBool::new(direct),
        nowait,
        scheduled,
        continue_on_error: req.continue_on_error,
        free_before,
        abandoned: std::sync::atomic::AtomicBool::new(false),
        watch: std::sync::Mutex::new(watch),
        named,
    })
}

/// The target as [`open`] found it: its metadata (links followed), the
/// path it opens (a link resolved) and the path its messages name.
struct Resolved {
    md: std::fs::Metadata,
    real: PathBuf,
    shown: PathBuf,
}

/// What the target given is (following links): a missing target and one
/// that cannot be looked at are the user's to fix (exit status 2).
pub fn metadata_of(given: &Path) -> std::result::Result<std::fs::Metadata, TargetError> {
    std::fs::metadata(given).map_err(|source| {
        let path = given.to_path_buf();
        match source.kind() {
            std::io::ErrorKind::NotFound => TargetError::Missing { path, source },
            _ => TargetError::Access { path, source },
        }
    })
}

/// Find the target: refuse what cannot be storage, resolve a link, and
/// refuse writing through a link another user planted.
fn resolve(req: &OpenRequest) -> Result<Resolved> {
    let given = &req.path;
    let md = metadata_of(given)?;
    refuse_non_storage(given, &md)?;
    let linked = std::fs::symlink_metadata(given).is_ok_and(|l| l.file_type().is_symlink());
    let real = if linked {
        std::fs::canonicalize(given).map_err(|source| TargetError::Resolve {
            path: given.to_path_buf(),
            source,
        })?
    } else {
        given.clone()
    };
    // Messages name the link and what it points to.
    let shown = if linked {
        PathBuf::from(format!("{} (-> {})", given.display(), real.display()))
    } else {
        given.clone()
    };
    if req.write && !md.is_dir() {
        crate::base::paths::refuse_planted_link(given, &format!("write to {}", given.display())).map_err(usage)?;
    }
    Ok(Resolved { md, real, shown })
}

/// What [`open`] opened, before the O_DIRECT choice and the prefill.
struct Opened {
    kind: Kind,
    file: File,
    span: u64,
    test_file: bool,
    /// A directory's free space before the test file was made.
    free_before: Option<u64>,
    /// The test file by its name (reopened after a pool's export and import).
    named: Option<NamedTestFile>,
}

/// A directory: create its test file (named on ZFS when the pool may be
/// exported, after sweeping a killed run's leftovers; else unlinked).
fn open_directory(req: &OpenRequest, r: &Resolved, root: &SysRoot, observer: &dyn Observer) -> Result<Opened> {
    let (path, real) = (&r.shown, &r.real);
    refuse_read_only(path, Kind::Directory, true, fs_read_only(real), false)?;
    let size = req.size.unwrap_or(DEFAULT_TEST_FILE);
    let free_before = rustix::fs::statvfs(real.as_path()).ok().map(|v| v.f_bavail * v.f_frsize);
    let on_zfs = device::filesystem_of(root, real).is_some_and(|f| crate::judge::zfs::Implementation::of_fstype(&f.fstype).is_some());
    let mut named = None;
    let file = if req.allow_export && on_zfs {
        // Reopened by its name after an export and import of the pool.
        if let Some(text) = leftovers::notice(&leftovers::sweep(real)) {
            observer.event(Event::Notice {
                level: Level::Note,
                text: &text,
            });
        }
        let (file, n) = create_named_test_file(real, size)?;
        named = Some(n);
        file
    } else {
        create_test_file(real, size)?
    };
    Ok(Opened {
        kind: Kind::Directory,
        file,
        span: size,
        test_file: true,
        free_before,
        named,
    })
}

/// A regular file: its size covers the span, and it is overwritten only
/// with `--allow-destroy`.
fn open_file(req: &OpenRequest, r: &Resolved) -> Result<Opened> {
    let (path, real, md) = (&r.shown, &r.real, &r.md);
    let len = md.len();
    let span = req.size.unwrap_or(len);
    if span > len {
        return Err(usage(format!(
            "{} is {} but --size asks for {}; iolab does not grow existing files (give a directory to get a test file of any size)",
            path.display(),
            fmt_bytes(len),
            fmt_bytes(span)
        )));
    }
    if req.write && !req.allow_destroy {
        return Err(usage(format!(
            "refusing to write to existing file {}: its contents would be overwritten; pass --allow-destroy if that is intended, or give a directory",
            path.display()
        )));
    }
    refuse_read_only(path, Kind::File, req.write, req.write && fs_read_only(real), false)?;
    let file = open_existing(real, req.write, false)?;
    same_file(&file, md, path)?;
    Ok(Opened {
        kind: Kind::File,
        file,
        span,
        test_file: false,
        free_before: None,
        named: None,
    })
}

/// A block device: written only with `--allow-destroy` and when the
/// safety rules allow, claimed with O_EXCL; its size covers the span.
fn open_block_device(req: &OpenRequest, r: &Resolved, root: &SysRoot) -> Result<Opened> {
    let (path, real, md) = (&r.shown, &r.real, &r.md);
    if req.write && !req.allow_destroy {
        return Err(usage(format!(
            "refusing to write to block device {}: every byte on it would be destroyed; pass --allow-destroy if that is intended (read-only tests need no flag)",
            path.display()
        )));
    }
    if req.write {
        // The device the node stands for, whatever the path's name.
        let rdev = std::os::unix::fs::MetadataExt::rdev(md);
        let (major, minor) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
        refuse_read_only(path, Kind::BlockDevice, true, false, device_read_only(real, root, major, minor))?;
        let refusals = crate::targets::safety::check(root, major, minor);
        crate::targets::safety::verdict(&refusals, req.force)
            .map_err(|why| usage(format!("refusing to write to {}: {why}", path.display())))?;
    }
    let file = open_existing(real, req.write, true)?;
    same_file(&file, md, path)?;
    let len = block_size(&file)?;
    let span = req.size.unwrap_or(len);
    if span > len {
        return Err(usage(format!(
            "--size {} is larger than {} ({})",
            fmt_bytes(span),
            path.display(),
            fmt_bytes(len)
        )));
    }
    Ok(Opened {
        kind: Kind::BlockDevice,
        file,
        span,
        test_file: false,
        free_before: None,
        named: None,
    })
}

/// Turn O_DIRECT on unless `--buffered`, keep it only if a read through it
/// works, and say so when falling back. Returns (direct, fell back).
fn choose_direct(req: &OpenRequest, file: &File, span: u64, path: &Path, observer: &dyn Observer) -> (bool, bool) {
    let mut direct = false;
    let mut direct_fallback = false;
    if !req.buffered {
        direct = set_direct(file, true);
        if direct && !probe_direct(file, span) {
            set_direct(file, false);
            direct = false;
        }
        direct_fallback = !direct;
    }

    if direct_fallback {
        observer.event(Event::Notice {
            level: Level::Warning,
            text: &format!(
                "{} does not support O_DIRECT; falling back to BUFFERED I/O. Results are labelled direct: false; the page cache is dropped before every read pass.",
                path.display()
            ),
        });
    }
    (direct, direct_fallback)
}

/// Whether the filesystem holding `path` is mounted read-only.
fn fs_read_only(path: &Path) -> bool {
    rustix::fs::statvfs(path).is_ok_and(|v| v.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY))
}

/// Whether a block device refuses writes: `BLKROGET` (what `blockdev --getro`
/// reads: `blockdev --setro`, a read-only loop device) or sysfs `ro` (the
/// driver's or a write-protect switch's).
fn device_read_only(path: &Path, root: &SysRoot, major: u32, minor: u32) -> bool {
    let sysfs = root
        .read(&format!("sys/dev/block/{major}:{minor}/ro"))
        .is_some_and(|v| v.trim() == "1");
    let ioctl = File::open(path).is_ok_and(|f| crate::io::sys::block_read_only(&f).unwrap_or(false));
    sysfs || ioctl
}

/// Refuse, before anything is written, what a read-only target cannot do:
/// a directory needs its test file written even to read; a file or a block
/// device only when the jobs write. `fs_ro`: the filesystem is mounted
/// read-only; `dev_ro`: the block device is read-only.
fn refuse_read_only(path: &Path, kind: Kind, write: bool, fs_ro: bool, dev_ro: bool) -> Result<()> {
    let p = path.display();
    match kind {
        Kind::Directory if fs_ro => Err(usage(format!(
            "cannot create a test file in {p}: its filesystem is mounted read-only (iolab writes its test file even to read; give a file or a block device to measure reads only)"
        ))),
        Kind::File if write && fs_ro => Err(usage(format!("refusing to write to {p}: its filesystem is mounted read-only"))),
        Kind::BlockDevice if write && dev_ro => Err(usage(format!(
            "refusing to write to {p}: the device is read-only (blockdev --getro says 1: set by blockdev --setro, a read-only loop device, the driver or a write-protect switch)"
        ))),
        _ => Ok(()),
    }
}

/// The opened `file` is what `md` described (the same inode, the same
/// device node): a path swapped between the checks and the open is refused.
fn same_file(file: &File, md: &std::fs::Metadata, path: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let now = file.metadata().map_err(|source| TargetError::Stat {
        path: path.to_path_buf(),
        source,
    })?;
    if now.dev() != md.dev() || now.ino() != md.ino() || now.rdev() != md.rdev() {
        return Err(usage(format!(
            "refusing {}: it changed while iolab opened it (replaced, or a link pointed elsewhere)",
            path.display()
        )));
    }
    Ok(())
}

fn open_existing(path: &Path, write: bool, block: bool) -> Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(write);
    if write && block {
        use std::os::unix::fs::OpenOptionsExt;
        // For a block device O_EXCL means "claim it": the kernel refuses while it
        // or one of its partitions is mounted or held (md, dm, swap...).
        o.custom_flags(libc::O_EXCL);
    }
    o.open(path).map_err(|source| {
        let path = path.to_path_buf();
        match source.raw_os_error() {
            Some(libc::EBUSY) => TargetError::InUse { path, source }.into(),
            _ => TargetError::Open { path, source }.into(),
        }
    })
}

fn block_size(f: &File) -> Result<u64> {
    device::block_device_size(f).map_err(|source| TargetError::DeviceSize { source }.into())
}

pub(crate) fn set_direct(f: &File, on: bool) -> bool {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    fcntl_getfl(f)
        .and_then(|fl| fcntl_setfl(f, if on { fl | OFlags::DIRECT } else { fl - OFlags::DIRECT }))
        .is_ok()
}

/// Reads through the target's descriptor leave its access time alone (as
/// fio does on devices): no atime check per read, and no metadata write a
/// read test did not ask for. Needs ownership or CAP_FOWNER; without them
/// the descriptor stays as it was.
fn set_noatime(f: &File) {
    use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
    if let Ok(fl) = fcntl_getfl(f) {
        let _ = fcntl_setfl(f, fl | OFlags::NOATIME);
    }
}

/// Whether the target takes non-blocking I/O (the kernel's FMODE_NOWAIT):
/// one 4K `preadv2(RWF_NOWAIT)` at offset 0, which only a target without it
/// refuses with EOPNOTSUPP (zram and tmpfs on Linux 6.18). io_uring tries every
/// I/O on such a target inline first, fails, and hands it to an io-wq
/// worker; knowing it, the engine hands it over at once
/// ([`crate::io::engine::uring`]). Any other outcome (data, EAGAIN, an
/// error) counts as "takes it", which leaves io_uring's default alone.
pub(crate) fn probe_nowait(f: &File, span: u64) -> bool {
    let len = 4096.min(span as usize).max(512);
    let mut buf = crate::io::buffers::AlignedBuf::new(len);
    let r = crate::io::sys::read_at_nowait(f, buf.as_mut_slice(), 0);
    r.map_or_else(|e| e.raw_os_error() != Some(libc::EOPNOTSUPP), |_| true)
}

/// Some filesystems accept O_DIRECT at open time and fail at the first I/O;
/// one aligned read tells. A target of zero length cannot be probed, and is
/// rejected earlier anyway.
pub(crate) fn probe_direct(f: &File, span: u64) -> bool {
    let len = 4096.min(span as usize).max(512);
    let mut buf = crate::io::buffers::AlignedBuf::new(len);
    let r = crate::io::sys::read_at(f, buf.as_mut_slice(), 0);
    r.map_or_else(|e| e.raw_os_error() != Some(libc::EINVAL), |_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_blocking_io_is_told_apart_from_its_absence() {
        // ext4 (the crate's disk here) takes non-blocking I/O, direct or not.
        let scratch = |dir: &str| {
            let mut f = tempfile::NamedTempFile::new_in(dir).unwrap();
            std::io::Write::write_all(&mut f, &[7u8; 8192]).unwrap();
            f
        };
        let f = scratch(env!("CARGO_MANIFEST_DIR"));
        let file = File::open(f.path()).unwrap();
        assert!(probe_nowait(&file, 8192), "a file on the crate's own filesystem");
        set_noatime(&file);
        let fl = rustix::fs::fcntl_getfl(&file).unwrap();
        assert!(
            fl.contains(rustix::fs::OFlags::NOATIME),
            "our own file's reads leave its atime alone"
        );
        // tmpfs does not (up to Linux 6.18 at least), so io_uring hands every
        // I/O on it to io-wq.
        let shm = Path::new("/dev/shm");
        if rustix::fs::statfs(shm).is_ok_and(|v| v.f_type == libc::TMPFS_MAGIC) {
            let f = scratch("/dev/shm");
            let file = File::open(f.path()).unwrap();
            assert!(!probe_nowait(&file, 8192), "tmpfs answers RWF_NOWAIT with EOPNOTSUPP");
        }
    }

    #[test]
    fn a_target_that_cannot_be_opened_keeps_the_systems_error_as_its_cause() {
        let open = |path: &Path| {
            let req = OpenRequest {
                path: path.to_path_buf(),
                size: None,
                write: false,
                allow_destroy: false,
                force: false,
                buffered: false,
                max_bs: 4096,
                continue_on_error: false,
                allow_export: false,
            };
            super::open(&req, &SysRoot::default(), &Stop::default(), &crate::base::progress::Silent)
                .err()
                .unwrap()
        };
        let e = open(Path::new("/nonexistent/iolab"));
        match e.cause::<TargetError>() {
            Some(TargetError::Missing { path, source }) => {
                assert_eq!(path, Path::new("/nonexistent/iolab"));
                assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.exit_code(), 2);
        // Not a directory on the way: the system's errno, not a made-up word.
        let file = tempfile::NamedTempFile::new().unwrap();
        let e = open(&file.path().join("below"));
        match e.cause::<TargetError>() {
            Some(TargetError::Access { source, .. }) => assert_eq!(source.raw_os_error(), Some(libc::ENOTDIR)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn read_only_targets_are_refused_only_for_what_they_cannot_do() {
        let p = Path::new("/mnt/ro");
        let msg = |k, w, fs, dev| refuse_read_only(p, k, w, fs, dev).err().map(|e| (e.exit_code(), e.to_string()));
        // A directory needs its test file even to read.
        let (code, m) = msg(Kind::Directory, false, true, false).unwrap();
        assert_eq!(code, 2);
        assert!(
            m.starts_with("cannot create a test file in /mnt/ro: its filesystem is mounted read-only"),
            "{m}"
        );
        assert!(msg(Kind::Directory, true, false, false).is_none());
        // A file or a device: only writing is refused.
        assert!(msg(Kind::File, false, true, false).is_none());
        assert_eq!(
            msg(Kind::File, true, true, false).unwrap().1,
            "refusing to write to /mnt/ro: its filesystem is mounted read-only"
        );
        assert!(msg(Kind::BlockDevice, false, false, true).is_none());
        let (code, m) = msg(Kind::BlockDevice, true, false, true).unwrap();
        assert_eq!(code, 2);
        assert!(m.starts_with("refusing to write to /mnt/ro: the device is read-only"), "{m}");
    }

    #[test]
    fn a_writable_tmp_is_not_read_only() {
        let d = tempfile::tempdir().unwrap();
        assert!(!fs_read_only(d.path()));
    }

    fn refusal(p: &Path) -> String {
        let md = std::fs::metadata(p).unwrap();
        refuse_non_storage(p, &md).unwrap_err().to_string()
    }

    #[test]
    fn issue_16_fifo_socket_char_device_and_proc_are_refused_with_a_reason() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo");
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::RUSR, 0).unwrap();
        assert!(refusal(&fifo).contains("it is a FIFO (named pipe), not storage"));
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(refusal(&sock).contains("it is a socket, not storage"));
        assert!(refusal(Path::new("/dev/null")).contains("it is a character device"));
        assert!(refusal(Path::new("/proc/self/status")).contains("it is on proc (/proc), a view of the kernel"));
        assert!(refusal(Path::new("/proc")).contains("proc (/proc)"));
        assert!(refusal(Path::new("/sys/kernel")).contains("sysfs (/sys)"));
        let md = std::fs::metadata(d.path()).unwrap();
        assert!(refuse_non_storage(d.path(), &md).is_ok());
    }
}
