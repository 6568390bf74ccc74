//! The system calls iolab makes on files and block devices outside an
//! engine's ring, in one place: positional transfers (one call, or all of
//! a buffer), flushes, `posix_fadvise` and the block ioctls. rustix's safe
//! calls where it has them; the ioctls it has no safe call for are the
//! only `unsafe` here.
//!
//! Every call retries `EINTR` (a signal that iolab handles, SIGINT, must
//! not fail an I/O; the stop flag ends the loops around them).

use rustix::io::Errno;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

/// Retry `f` while it fails with `EINTR`.
fn again<T>(mut f: impl FnMut() -> rustix::io::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(Errno::INTR) => continue,
            r => return r.map_err(io::Error::from),
        }
    }
}

/// One `pread` of up to `buf.len()` bytes at `off`: the bytes read (0 at
/// the end).
#[inline]
pub fn read_at(fd: impl AsFd, buf: &mut [u8], off: u64) -> io::Result<usize> {
    again(|| rustix::io::pread(fd.as_fd(), &mut *buf, off))
}

/// One `pwrite` of up to `buf.len()` bytes at `off`: the bytes written.
#[inline]
pub fn write_at(fd: impl AsFd, buf: &[u8], off: u64) -> io::Result<usize> {
    again(|| rustix::io::pwrite(fd.as_fd(), buf, off))
}

/// One `pwritev2` with `RWF_DSYNC`: stored before it returns, as if the
/// file were opened with `O_DSYNC`.
#[inline]
pub fn write_at_dsync(fd: impl AsFd, buf: &[u8], off: u64) -> io::Result<usize> {
    let iov = [io::IoSlice::new(buf)];
    again(|| rustix::io::pwritev2(fd.as_fd(), &iov, off, rustix::io::ReadWriteFlags::DSYNC))
}

/// One `preadv2` with `RWF_NOWAIT`: `EAGAIN` where it would block, and
/// `EOPNOTSUPP` where the file takes no non-blocking I/O at all.
pub fn read_at_nowait(fd: impl AsFd, buf: &mut [u8], off: u64) -> io::Result<usize> {
    let fd = fd.as_fd();
    again(|| rustix::io::preadv2(fd, &mut [io::IoSliceMut::new(&mut *buf)], off, rustix::io::ReadWriteFlags::NOWAIT))
}

/// Retry the libc call `f` (-1 and errno on failure) while it fails with
/// `EINTR`.
fn again_libc(mut f: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let r = f();
        if r >= 0 {
            return Ok(r as usize);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

/// [`read_at`] into memory that is not a slice (an engine's buffers).
///
/// # Safety
/// `buf` points to `len` bytes the kernel may write for the whole call.
#[inline]
pub unsafe fn read_at_raw(fd: BorrowedFd<'_>, buf: *mut u8, len: usize, off: u64) -> io::Result<usize> {
    let fd = fd.as_raw_fd();
    // SAFETY: the caller's promise on `buf`; `fd` is borrowed, so open.
    again_libc(|| unsafe { libc::pread64(fd, buf.cast(), len, off as i64) })
}

/// [`write_at`] (or, `dsync`, [`write_at_dsync`]) from memory that is not
/// a slice: an engine's write pool, which other writers may stamp while
/// the call runs.
///
/// # Safety
/// `buf` points to `len` bytes readable for the whole call.
#[inline]
pub unsafe fn write_at_raw(fd: BorrowedFd<'_>, buf: *const u8, len: usize, off: u64, dsync: bool) -> io::Result<usize> {
    let fd = fd.as_raw_fd();
    let iov = libc::iovec {
        iov_base: buf as *mut _,
        iov_len: len,
    };
    // SAFETY: the caller's promise on `buf`; `fd` is borrowed, so open.
    again_libc(|| unsafe {
        match dsync {
            true => libc::pwritev2(fd, &iov, 1, off as libc::off_t, libc::RWF_DSYNC),
            false => libc::pwrite64(fd, buf.cast(), len, off as i64),
        }
    })
}

/// Which way a transfer went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Read => "read",
            Op::Write => "write",
        })
    }
}

/// A transfer of a whole buffer that did not complete: where, how far it
/// got, and why.
#[derive(Debug, thiserror::Error)]
pub enum PosError {
    /// The system call failed (after `done` bytes of the buffer).
    #[error("{op} of {len} bytes at offset {offset}: {source}")]
    Os {
        op: Op,
        offset: u64,
        len: usize,
        done: usize,
        #[source]
        source: io::Error,
    },
    /// The file or device ended `done` bytes into the read.
    #[error("end of data after {done} of {len} bytes read at offset {offset}")]
    Eof { offset: u64, len: usize, done: usize },
    /// A write stored nothing (a full filesystem), `done` bytes in.
    #[error("nothing written after {done} of {len} bytes at offset {offset}")]
    NoSpace { offset: u64, len: usize, done: usize },
}

impl PosError {
    /// Bytes of the buffer transferred before it stopped.
    pub fn done(&self) -> usize {
        match *self {
            PosError::Os { done, .. } | PosError::Eof { done, .. } | PosError::NoSpace { done, .. } => done,
        }
    }

    /// The offset where it stopped: the start plus [`PosError::done`].
    pub fn at(&self) -> u64 {
        let offset = match *self {
            PosError::Os { offset, .. } | PosError::Eof { offset, .. } | PosError::NoSpace { offset, .. } => offset,
        };
        offset + self.done() as u64
    }
}

/// The cause as a plain `io::Error`: the system call's own error, an end of
/// data as `UnexpectedEof`, a write that stored nothing as `ENOSPC`.
impl From<PosError> for io::Error {
    fn from(e: PosError) -> io::Error {
        match e {
            PosError::Os { source, .. } => source,
            PosError::Eof { .. } => io::Error::from(io::ErrorKind::UnexpectedEof),
            PosError::NoSpace { .. } => io::Error::from_raw_os_error(libc::ENOSPC),
        }
    }
}

/// Read all of `buf` at `off`, through short reads; the end of the file or
/// device before the buffer is full is [`PosError::Eof`].
pub fn read_exact_at(fd: impl AsFd, buf: &mut [u8], off: u64) -> Result<(), PosError> {
    let (fd, len) = (fd.as_fd(), buf.len());
    let mut done = 0;
    while done < len {
        match read_at(fd, &mut buf[done..], off + done as u64) {
            Ok(0) => return Err(PosError::Eof { offset: off, len, done }),
            Ok(n) => done += n,
            Err(source) => {
                return Err(PosError::Os {
                    op: Op::Read,
                    offset: off,
                    len,
                    done,
                    source,
                });
            }
        }
    }
    Ok(())
}

/// Write all of `buf` at `off`, through short writes; a write that stores
/// nothing is [`PosError::NoSpace`].
pub fn write_all_at(fd: impl AsFd, buf: &[u8], off: u64) -> Result<(), PosError> {
    let (fd, len) = (fd.as_fd(), buf.len());
    let mut done = 0;
    while done < len {
        match write_at(fd, &buf[done..], off + done as u64) {
            Ok(0) => return Err(PosError::NoSpace { offset: off, len, done }),
            Ok(n) => done += n,
            Err(source) => {
                return Err(PosError::Os {
                    op: Op::Write,
                    offset: off,
                    len,
                    done,
                    source,
                });
            }
        }
    }
    Ok(())
}

/// `fdatasync`: the data written so far (and what finds it) on stable
/// storage, the device's volatile cache flushed.
pub fn fdatasync(fd: impl AsFd) -> io::Result<()> {
    let fd = fd.as_fd();
    again(|| rustix::fs::fdatasync(fd))
}

/// `fsync`: like [`fdatasync`], with all of the file's metadata.
pub fn fsync(fd: impl AsFd) -> io::Result<()> {
    let fd = fd.as_fd();
    again(|| rustix::fs::fsync(fd))
}

/// `posix_fadvise(DONTNEED)` on the whole file: drop its clean pages from
/// the page cache (dirty ones stay: flush first).
pub fn drop_pages(fd: impl AsFd) -> io::Result<()> {
    let fd = fd.as_fd();
    again(|| rustix::fs::fadvise(fd, 0, None, rustix::fs::Advice::DontNeed))
}

/// `fallocate` of `len` bytes from the start: the file's blocks reserved
/// (and its size set), so a full filesystem fails here, not in the middle
/// of a measurement.
pub fn allocate(fd: impl AsFd, len: u64) -> io::Result<()> {
    let fd = fd.as_fd();
    again(|| rustix::fs::fallocate(fd, rustix::fs::FallocateFlags::empty(), 0, len))
}

/// `<linux/fs.h>` BLKROGET = _IO(0x12, 94).
const BLKROGET: libc::c_ulong = 0x125e;
/// `<linux/fs.h>` BLKFLSBUF = _IO(0x12, 97).
const BLKFLSBUF: libc::c_ulong = 0x1261;
/// `<linux/fs.h>` BLKGETSIZE64 = _IOR(0x12, 114, size_t).
const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;

/// Size in bytes of a block device (`BLKGETSIZE64`).
pub fn block_size_bytes(fd: impl AsFd) -> io::Result<u64> {
    let fd = fd.as_fd().as_raw_fd();
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is
    // valid for the call; `fd` is borrowed, so open.
    again_libc(|| unsafe { libc::ioctl(fd, BLKGETSIZE64, &mut size as *mut u64) } as isize)?;
    Ok(size)
}

/// Whether a block device is set read-only (`BLKROGET`: what
/// `blockdev --getro` reads).
pub fn block_read_only(fd: impl AsFd) -> io::Result<bool> {
    let fd = fd.as_fd().as_raw_fd();
    let mut ro: libc::c_int = 0;
    // SAFETY: BLKROGET writes one int through the pointer, valid for the
    // call; `fd` is borrowed, so open.
    again_libc(|| unsafe { libc::ioctl(fd, BLKROGET as _, &mut ro as *mut libc::c_int) } as isize)?;
    Ok(ro != 0)
}

/// Write back and drop a block device's buffer cache (`BLKFLSBUF`, what
/// `blockdev --flushbufs` does).
pub fn block_flush_buffers(fd: impl AsFd) -> io::Result<()> {
    let fd = fd.as_fd().as_raw_fd();
    // SAFETY: BLKFLSBUF takes no argument; `fd` is borrowed, so open.
    again_libc(|| unsafe { libc::ioctl(fd, BLKFLSBUF as _, 0) } as isize).map(drop)
}

// Processes and accounts: the calls rustix has no safe form of.

/// `getrusage(who)`: `RUSAGE_SELF`, `RUSAGE_CHILDREN` or `RUSAGE_THREAD`.
pub fn rusage(who: libc::c_int) -> libc::rusage {
    // SAFETY: rusage is plain data, all zeros a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer; getrusage cannot fail with a valid `who`.
    unsafe { libc::getrusage(who, &mut ru) };
    ru
}

/// `wait4(pid)`, retrying `EINTR`: the child's wait status and resource
/// usage. Reaps it.
pub fn wait4(pid: libc::pid_t) -> io::Result<(libc::c_int, libc::rusage)> {
    let mut status = 0;
    // SAFETY: rusage is plain data, all zeros a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointers for the call.
    again_libc(|| unsafe { libc::wait4(pid, &mut status, 0, &mut ru) } as isize)?;
    Ok((status, ru))
}

/// A user's account, from the C library (`getpwnam_r`: `/etc/passwd`,
/// or wherever NSS looks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passwd {
    pub uid: u32,
    pub gid: u32,
    pub home: std::path::PathBuf,
}

/// The passwd entry of `name`, if the C library knows it.
pub fn passwd_of(name: &str) -> Option<Passwd> {
    use std::ffi::{CStr, CString};
    use std::os::unix::ffi::OsStrExt;
    let cname = CString::new(name).ok()?;
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: passwd is plain data (null pointers), all zeros a valid value.
        let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the call; `buf` outlives the reads of `pw` below.
        let rc = unsafe { libc::getpwnam_r(cname.as_ptr(), &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut result) };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || result.is_null() || pw.pw_dir.is_null() {
            return None;
        }
        // SAFETY: getpwnam_r succeeded, so pw_dir points to a NUL-terminated string inside `buf`.
        let dir = unsafe { CStr::from_ptr(pw.pw_dir) };
        return Some(Passwd {
            uid: pw.pw_uid,
            gid: pw.pw_gid,
            home: std::ffi::OsStr::from_bytes(dir.to_bytes()).into(),
        });
    }
}

/// `cmd`'s process dies with this one (`PR_SET_PDEATHSIG`, SIGKILL), and
/// does not start at all if this one is already gone.
pub fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls between fork and exec: prctl,
    // getppid and _exit.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() != parent {
                libc::_exit(127);
            }
            Ok(())
        });
    }
}

/// `cmd`'s process joins a cgroup before it runs: `0` (itself) written to
/// `procs`, the group's `cgroup.procs` (or v1 `tasks`). Fails the spawn
/// when it cannot.
pub fn join_cgroup_at_exec(cmd: &mut std::process::Command, procs: &std::path::Path) {
    use std::os::unix::process::CommandExt;
    let procs = std::ffi::CString::new(procs.as_os_str().as_encoded_bytes()).expect("no NUL in a path");
    // SAFETY: only async-signal-safe calls between fork and exec: open,
    // write of "0" (the calling process) and close.
    unsafe {
        cmd.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
            libc::close(fd);
            if ok { Ok(()) } else { Err(io::Error::last_os_error()) }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> std::fs::File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        f
    }

    #[test]
    fn a_read_past_the_end_is_an_end_of_data_with_its_offset() {
        let f = file_of(&[7u8; 6000]);
        let mut buf = vec![0u8; 4096];
        // 1904 bytes are there from 4096 on: a short read, then the end.
        let e = read_exact_at(&f, &mut buf, 4096).unwrap_err();
        assert!(
            matches!(
                e,
                PosError::Eof {
                    offset: 4096,
                    len: 4096,
                    done: 1904
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.at(), 6000);
        assert!(buf[..1904].iter().all(|&b| b == 7), "the bytes that were there are read");
        assert_eq!(e.to_string(), "end of data after 1904 of 4096 bytes read at offset 4096");
        assert_eq!(io::Error::from(e).kind(), io::ErrorKind::UnexpectedEof);
        // One call says how much it got, without an error.
        assert_eq!(read_at(&f, &mut buf, 4096).unwrap(), 1904);
        assert_eq!(read_at(&f, &mut buf, 6000).unwrap(), 0);
    }

    #[test]
    fn what_is_written_at_an_offset_reads_back_there() {
        let f = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        write_all_at(&f, &data, 1 << 20).unwrap();
        fdatasync(&f).unwrap();
        fsync(&f).unwrap();
        drop_pages(&f).unwrap();
        let mut back = vec![0u8; data.len()];
        read_exact_at(&f, &mut back, 1 << 20).unwrap();
        assert_eq!(back, data);
        // The hole before it reads as zeros.
        let mut hole = [1u8; 512];
        read_exact_at(&f, &mut hole, 4096).unwrap();
        assert_eq!(hole, [0u8; 512]);
        assert_eq!(write_at_dsync(&f, &data[..100], 0).unwrap(), 100);
        assert_eq!(f.metadata().unwrap().len(), (1 << 20) + data.len() as u64);
    }

    #[test]
    fn a_failed_call_keeps_its_cause_and_says_where() {
        // Read-only: every write fails with EBADF.
        let path = tempfile::NamedTempFile::new().unwrap();
        let f = std::fs::File::open(path.path()).unwrap();
        let e = write_all_at(&f, &[1u8; 512], 8192).unwrap_err();
        assert!(
            matches!(
                e,
                PosError::Os {
                    op: Op::Write,
                    offset: 8192,
                    len: 512,
                    done: 0,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.at(), 8192);
        let ebadf = io::Error::from_raw_os_error(libc::EBADF);
        assert_eq!(e.to_string(), format!("write of 512 bytes at offset 8192: {ebadf}"));
        // Converted back, the cause is the system call's, unchanged.
        assert_eq!(io::Error::from(e).raw_os_error(), Some(libc::EBADF));
        let nospace = io::Error::from(PosError::NoSpace {
            offset: 0,
            len: 1,
            done: 0,
        });
        assert_eq!(nospace.raw_os_error(), Some(libc::ENOSPC));
    }

    #[test]
    fn block_ioctls_on_a_regular_file_fail_with_the_kernels_error() {
        let f = tempfile::tempfile().unwrap();
        assert_eq!(block_size_bytes(&f).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
        assert_eq!(block_read_only(&f).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
        assert_eq!(block_flush_buffers(&f).unwrap_err().raw_os_error(), Some(libc::ENOTTY));
    }
}
