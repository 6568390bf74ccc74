//! iolab's own test file in a directory: made unlinked (or named only as
//! long as it must be), after checking the space for it, and prefilled with
//! incompressible, non-repeating data so that no read hits a hole.

use super::error::TargetError;
use super::{faults, space};
use crate::base::error::{Error, Result, failed, usage};
use crate::base::progress::{Event, Observer};
use crate::base::signals::Stop;
use crate::base::units::fmt_bytes;
use crate::io::buffers::Buffers;
use crate::io::sys;
use std::fs::File;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};

/// Create an unlinked test file in `dir`, after checking the space for it.
pub(super) fn create_test_file(dir: &Path, size: u64) -> Result<File> {
    check_size(dir, size)?;
    reserve(anonymous_file(dir)?, dir, size)
}

/// A test file with a name, for as long as the run: iolab closes it while
/// a ZFS pool is exported and imported, and reopens it by that name
/// ([`super::zfs`]). It lives in a directory of its own,
/// `iolab-test-PID-NANOS`, marked with its owner, so that the next run
/// sweeps it away if this one is killed ([`super::leftovers`]); dropping
/// this removes both.
#[derive(Debug)]
pub(crate) struct NamedTestFile {
    pub dir: PathBuf,
    pub file: PathBuf,
}

impl Drop for NamedTestFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
        let _ = std::fs::remove_file(self.dir.join(super::leftovers::MARKER));
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// [`create_test_file`], but named ([`NamedTestFile`]).
pub(super) fn create_named_test_file(dir: &Path, size: u64) -> Result<(File, NamedTestFile)> {
    check_size(dir, size)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let sub = dir.join(format!("iolab-test-{}-{nanos}", std::process::id()));
    let cannot = |source: std::io::Error| TargetError::CreateTestFile {
        dir: dir.to_path_buf(),
        source,
    };
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(&sub).map_err(cannot)?;
    }
    let named = NamedTestFile {
        file: sub.join("test-file"),
        dir: sub,
    };
    super::leftovers::mark(&named.dir).map_err(cannot)?;
    let file = crate::base::paths::create_new(&named.file, 0o600).map_err(cannot)?;
    Ok((reserve(file, dir, size)?, named))
}

fn check_size(dir: &Path, size: u64) -> Result<()> {
    if size == 0 || !size.is_multiple_of(4096) {
        return Err(usage(format!("--size must be a positive multiple of 4 KiB, got {size}")));
    }
    space::check(dir, size, 0, "the test file", Some("use --size"))
}

/// Reserve the test file's `size` bytes in `dir`.
fn reserve(file: File, dir: &Path, size: u64) -> Result<File> {
    // Reserve the space now, so a full disk is an error before measuring, not during.
    if let Err(err) = sys::allocate(&file, size) {
        match err.raw_os_error() {
            Some(libc::ENOSPC) => {
                return Err(usage(format!(
                    "not enough free space in {} for a {} test file",
                    dir.display(),
                    fmt_bytes(size)
                )));
            }
            // Filesystems without fallocate: the prefill allocates.
            Some(libc::EOPNOTSUPP) => file.set_len(size).map_err(|source| TargetError::SizeTestFile { source })?,
            _ => {
                return Err(TargetError::Allocate {
                    dir: dir.to_path_buf(),
                    source: err,
                }
                .into());
            }
        }
    }
    Ok(file)
}

/// A file in `dir` that has no name, so it never outlives the process
/// (O_TMPFILE; where the filesystem lacks it, a file unlinked at once).
pub(crate) fn anonymous_file(dir: &Path) -> Result<File> {
    use rustix::fs::{Mode, OFlags};
    if dir.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(usage("path contains a NUL byte"));
    }
    let err = match rustix::fs::open(dir, OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC, Mode::from_raw_mode(0o600)) {
        Ok(fd) => return Ok(File::from(fd)),
        Err(e) => std::io::Error::from(e),
    };
    match err.raw_os_error() {
        // O_TMPFILE unsupported by this filesystem: create a named file and unlink it at once.
        Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL) => named_unlinked(dir),
        _ => Err(TargetError::CreateTestFile {
            dir: dir.to_path_buf(),
            source: err,
        }
        .into()),
    }
}

/// A named test file in `dir`, unlinked at once. The directory may be
/// everyone's (`/tmp`): the name is created `O_EXCL|O_NOFOLLOW`, so a file
/// or link planted at it is never opened; another name is tried instead.
fn named_unlinked(dir: &Path) -> Result<File> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut last = None;
    for n in 0..100 {
        let name = format!(".iolab-{}-{nanos}-{n}.tmp", std::process::id());
        match named_unlinked_as(dir, &name) {
            Ok(f) => return Ok(f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(source) => {
                return Err(TargetError::CreateTestFile {
                    dir: dir.to_path_buf(),
                    source,
                }
                .into());
            }
        }
    }
    Err(usage(format!(
        "cannot create a test file in {}: {}",
        dir.display(),
        last.map_or_else(String::new, |e| e.to_string())
    )))
}

/// [`named_unlinked`] under one name.
fn named_unlinked_as(dir: &Path, name: &str) -> std::io::Result<File> {
    let p = dir.join(name);
    let f = crate::base::paths::create_new(&p, 0o600)?;
    std::fs::remove_file(&p)?;
    Ok(f)
}

/// What [`prefill`] needs besides the file and the devices' progress.
pub(super) struct PrefillRequest<'a> {
    /// The bytes to write.
    pub size: u64,
    /// The file is open with O_DIRECT.
    pub direct: bool,
    /// Set by SIGINT/SIGTERM: the prefill stops.
    pub stop: &'a Stop,
    /// Told of the prefill's progress.
    pub observer: &'a dyn Observer,
    /// The directory the file is in (for the messages).
    pub dir: &'a Path,
    /// The free space before the file was made (for a message on a failed write).
    pub free_before: Option<u64>,
}

/// Fill the file with incompressible, non-repeating data so no read hits a
/// hole or an unwritten extent (which filesystems answer without the device).
///
/// The writing runs on a thread of its own, waited for while it (or the
/// devices under the target, `device_progress`) makes progress: a target
/// that stops answering fails the run after the stall timeout instead of
/// hanging it, and the descriptor is then never closed (see [`super::Target::abandon`]).
pub(super) fn prefill(file: File, req: &PrefillRequest, mut device_progress: impl FnMut() -> u64) -> Result<File> {
    use crate::io::stall::{Watchdog, beat, timeout};
    let PrefillRequest {
        size,
        direct,
        stop,
        observer,
        dir,
        free_before,
    } = *req;
    // SAFETY: the descriptor stays open while `fill` runs: `file` is
    // returned or dropped only after it ended, and forgotten (never closed)
    // when it stalls.
    let fd = unsafe { BorrowedFd::borrow_raw(file.as_raw_fd()) };
    let written = beat();
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let (written, stop) = (written.clone(), stop.clone());
        std::thread::spawn(move || {
            let _ = tx.send(fill(fd, size, direct, &stop, &written));
        });
    }
    let mut dog = Watchdog::new(timeout(), std::time::Instant::now());
    let outcome = loop {
        match rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(r) => break r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let done = written.get();
                observer.event(Event::Prefill { done, total: size });
                if let Some(still) = dog.check(std::time::Instant::now(), done.wrapping_add(device_progress())) {
                    // The thread may use the descriptor whenever its call returns.
                    std::mem::forget(file);
                    return Err(failed(faults::stalled(
                        &dir.display().to_string(),
                        "prefilling the test file",
                        still,
                        None,
                    )));
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break Err(Fill::Stopped),
        }
    };
    match outcome {
        Ok(()) => {
            observer.event(Event::Prefill { done: size, total: size });
            Ok(file)
        }
        Err(Fill::Stopped) => Err(match stop.signal() {
            Some(sig) => Error::Interrupted(sig),
            None => Error::Interrupted(libc::SIGINT),
        }),
        Err(Fill::Write { offset, err }) => Err(failed(faults::prefill_failure(
            &dir.display().to_string(),
            size,
            offset,
            &err,
            free_before,
        ))),
        Err(Fill::Sync(err)) => Err(failed(format!(
            "{} after prefilling the test file in {}: {}",
            if crate::io::errno::is_no_space(err.raw_os_error()) {
                "no space left (fdatasync)"
            } else {
                "fdatasync failed"
            },
            dir.display(),
            crate::io::errno::describe(&err)
        ))),
    }
}

/// Why [`fill`] stopped.
enum Fill {
    Stopped,
    Write { offset: u64, err: std::io::Error },
    Sync(std::io::Error),
}

/// The prefill's writes and its flush, on the descriptor `fd`; `written`
/// counts the bytes.
fn fill(fd: BorrowedFd<'_>, size: u64, direct: bool, stop: &Stop, written: &crate::io::stall::Beat) -> std::result::Result<(), Fill> {
    const CHUNK: u64 = 1 << 20;
    let chunk = CHUNK.min(size);
    let mut bufs = Buffers::new(chunk as usize, 1, 0x5eed_f111, false, true);
    let mut off = 0;
    while off < size {
        if stop.requested() {
            return Err(Fill::Stopped);
        }
        let len = chunk.min(size - off) as usize;
        let len = if direct { len.next_multiple_of(512) } else { len };
        sys::write_all_at(fd, bufs.pool.next(len), off).map_err(|e| Fill::Write {
            offset: e.at(),
            err: e.into(),
        })?;
        off += len as u64;
        written.add(len as u64);
        crate::base::testknob::pause_at("prefill");
    }
    sys::fdatasync(fd).map_err(Fill::Sync)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The named fallback (no O_TMPFILE) never opens what is planted at its
    /// name: a link to a victim stays a link, the victim untouched; another
    /// name is used.
    #[test]
    fn issue_16_test_file_fallback_never_follows_a_planted_link() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let name = ".iolab-planted.tmp";
        std::os::unix::fs::symlink(&victim, d.path().join(name)).unwrap();
        let e = named_unlinked_as(d.path(), name).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        std::os::unix::fs::symlink(d.path().join("nothing"), d.path().join(".dangling.tmp")).unwrap();
        assert_eq!(
            named_unlinked_as(d.path(), ".dangling.tmp").unwrap_err().kind(),
            std::io::ErrorKind::AlreadyExists
        );
        assert!(!d.path().join("nothing").exists());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // The fallback itself: a file without a name, nothing left behind.
        let mut f = named_unlinked(d.path()).unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        let mut names: Vec<_> = std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, [".dangling.tmp", ".iolab-planted.tmp", "victim"]);
    }

    /// A named test file lives in a marked directory of its own, which the
    /// next run would sweep if this one were killed, and is gone once dropped.
    #[test]
    fn a_named_test_file_is_marked_and_removed() {
        let d = tempfile::tempdir().unwrap();
        let (f, named) = create_named_test_file(d.path(), 1 << 20).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 1 << 20);
        let name = named.dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("iolab-test-{}-", std::process::id())), "{name}");
        assert!(named.file.is_file() && named.dir.join(super::super::leftovers::MARKER).is_file());
        assert!(super::super::leftovers::sweep(d.path()).is_empty(), "its owner is alive");
        drop(named);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
        assert!(
            create_named_test_file(d.path(), 1000).is_err(),
            "a size that is no multiple of 4 KiB"
        );
    }
}
