//! The files `iolab verify` fills a directory with (f3write's and h2testw's
//! way of checking a device through its filesystem).
//!
//! Two ways to hold them, both leaving nothing behind:
//! - **anonymous** (the default): each file is made without a name
//!   (`O_TMPFILE`, or created and unlinked at once), so even `kill -9`
//!   frees the space: the files live as long as the process holds them;
//! - **named** (`--cold-wait`, where iolab lets go of every file while the
//!   user unplugs the device): `NNNN.iolab-verify` in a directory of their
//!   own, `iolab-verify-PID-NANOS`, removed when the set is dropped (on
//!   success, on an error, after a first SIGINT or SIGTERM; after a SIGKILL
//!   the next run removes them: [`super::leftovers`]).

use super::error::TargetError;
use crate::base::error::{Result, failed};
use std::fs::{File, OpenOptions};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::{Path, PathBuf};

/// Bytes per file: f3's 1 GB files, as a power of two (FAT32 takes files
/// up to 4 GiB − 1; smaller files lose little when the last one is cut
/// short by a full filesystem).
pub const VERIFY_FILE_BYTES: u64 = 1 << 30;
/// The files' suffix.
pub const VERIFY_FILE_SUFFIX: &str = "iolab-verify";

/// A directory's verify files, numbered from 0.
pub struct FileSet {
    dir: PathBuf,
    /// The named files' own directory (`None`: anonymous files).
    named: Option<PathBuf>,
    file_bytes: u64,
    files: Vec<File>,
    /// Files ever created (their names exist in the named directory).
    created: usize,
    direct: bool,
}

impl FileSet {
    /// A set in `dir` of files of `file_bytes` each, named or anonymous;
    /// O_DIRECT when `direct` (see [`FileSet::direct`]).
    pub fn new(dir: &Path, file_bytes: u64, named: bool, direct: bool) -> Result<FileSet> {
        let named = if named {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let sub = dir.join(format!("iolab-verify-{}-{nanos}", std::process::id()));
            // Private (0700): nobody else can plant a name inside it.
            std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
                .create(&sub)
                .map_err(|source| TargetError::CreateDir { dir: sub.clone(), source })?;
            if let Err(source) = super::leftovers::mark(&sub) {
                let _ = std::fs::remove_dir(&sub);
                return Err(TargetError::WriteIn { dir: sub, source }.into());
            }
            Some(sub)
        } else {
            None
        };
        Ok(FileSet {
            dir: dir.to_path_buf(),
            named,
            file_bytes,
            files: Vec::new(),
            created: 0,
            direct,
        })
    }

    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// Where the files are: their own directory when named, else the target.
    pub fn dir(&self) -> &Path {
        self.named.as_deref().unwrap_or(&self.dir)
    }

    /// Whether the files use O_DIRECT (false once the filesystem refused it).
    pub fn direct(&self) -> bool {
        self.direct
    }

    /// Files ever created.
    pub fn count(&self) -> usize {
        self.created
    }

    fn path_of(&self, idx: usize) -> Option<PathBuf> {
        self.named.as_ref().map(|d| d.join(format!("{idx:04}.{VERIFY_FILE_SUFFIX}")))
    }

    /// The descriptor holding logical offset `off`, and the offset in that
    /// file; the file is created when it is the next one.
    pub fn fd_for_write(&mut self, off: u64) -> Result<(RawFd, u64)> {
        let idx = (off / self.file_bytes) as usize;
        while self.files.len() <= idx {
            let f = match self.path_of(self.files.len()) {
                Some(p) => crate::base::paths::create_new(&p, 0o600).map_err(|source| TargetError::CreateFile { path: p, source })?,
                None => super::anonymous_file(&self.dir)?,
            };
            if self.direct && !super::set_direct(&f, true) {
                self.set_direct(false);
            }
            self.files.push(f);
            self.created = self.files.len();
        }
        Ok((self.files[idx].as_raw_fd(), off % self.file_bytes))
    }

    /// The descriptor for reading logical offset `off` (its file must exist).
    pub fn fd_for_read(&self, off: u64) -> Option<(BorrowedFd<'_>, u64)> {
        let idx = (off / self.file_bytes) as usize;
        self.files.get(idx).map(|f| (f.as_fd(), off % self.file_bytes))
    }

    /// O_DIRECT on or off for every open file (and those to come).
    pub fn set_direct(&mut self, on: bool) {
        self.direct = on;
        for f in &self.files {
            super::set_direct(f, on);
        }
    }

    /// Flush every open file; with buffered I/O also drop its pages, so
    /// reads come from the device.
    pub fn flush(&self, drop_pages: bool) -> std::io::Result<()> {
        for f in &self.files {
            f.sync_data()?;
            if drop_pages {
                let _ = crate::io::sys::drop_pages(f);
            }
        }
        Ok(())
    }

    /// Flush the file holding `off`.
    pub fn sync_at(&self, off: u64) -> std::io::Result<()> {
        match self.files.get((off / self.file_bytes) as usize) {
            Some(f) => f.sync_data(),
            None => Ok(()),
        }
    }

    /// Let go of every file (named sets only: anonymous files would vanish).
    pub fn close(&mut self) -> Result<()> {
        if self.named.is_none() {
            return Err(failed("anonymous verify files cannot be closed and found again"));
        }
        self.flush(false).map_err(|source| TargetError::FlushFiles { source })?;
        self.files.clear();
        Ok(())
    }

    /// Open every created file again, read-only (after [`FileSet::close`]).
    pub fn reopen(&mut self) -> Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        self.files.clear();
        for idx in 0..self.created {
            let p = self.path_of(idx).expect("only named sets are closed");
            let mut o = OpenOptions::new();
            o.read(true);
            if self.direct {
                o.custom_flags(libc::O_DIRECT);
            }
            let f = o
                .open(&p)
                .map_err(|source| TargetError::GoneAfterWait { path: p.clone(), source })?;
            self.files.push(f);
        }
        Ok(())
    }
}

impl Drop for FileSet {
    fn drop(&mut self) {
        self.files.clear();
        if let Some(sub) = &self.named {
            for idx in 0..self.created {
                if let Some(p) = self.path_of(idx) {
                    let _ = std::fs::remove_file(p);
                }
            }
            let _ = std::fs::remove_file(sub.join(super::leftovers::MARKER));
            let _ = std::fs::remove_dir(sub);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::sys;

    fn write(set: &mut FileSet, off: u64, data: &[u8]) {
        set.fd_for_write(off).unwrap();
        let (fd, at) = set.fd_for_read(off).unwrap();
        sys::write_all_at(fd, data, at).unwrap();
    }

    #[test]
    fn named_files_are_found_again_and_removed_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let mut set = FileSet::new(tmp.path(), 8192, true, false).unwrap();
        write(&mut set, 0, &[1; 8192]);
        write(&mut set, 8192 + 4096, &[2; 4096]);
        assert_eq!(set.count(), 2);
        let sub = set.dir().to_path_buf();
        assert!(sub.join("0001.iolab-verify").is_file());
        set.close().unwrap();
        set.reopen().unwrap();
        let (fd, at) = set.fd_for_read(8192 + 4096).unwrap();
        assert_eq!(at, 4096);
        let mut b = [0u8; 4096];
        sys::read_exact_at(fd, &mut b, at).unwrap();
        assert_eq!(b, [2; 4096]);
        drop(set);
        assert!(!sub.exists(), "the named directory outlived the set");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn anonymous_files_leave_no_name() {
        let tmp = tempfile::tempdir().unwrap();
        let mut set = FileSet::new(tmp.path(), 4096, false, false).unwrap();
        write(&mut set, 0, &[1; 4096]);
        write(&mut set, 4096, &[1; 4096]);
        assert_eq!(set.count(), 2);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        assert!(set.close().is_err());
    }
}
