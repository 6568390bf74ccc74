//! Synchronous pread/pwrite engine, depth 1 per instance.
//!
//! A queue depth above 1 is emulated by the job runner with one thread per
//! queue slot, which is what a synchronous engine can honestly offer.
//! A write marked `dsync` is a `pwritev2` with `RWF_DSYNC`.

use super::{Dir, Done, Engine, Io};
use std::io;
use std::os::fd::RawFd;

pub struct Psync {
    fd: RawFd,
    done: Option<Done>,
}

impl Psync {
    pub fn new(fd: RawFd) -> Self {
        Psync { fd, done: None }
    }
}

impl Engine for Psync {
    fn depth(&self) -> usize {
        1
    }

    #[inline]
    fn queue(&mut self, io: Io) -> io::Result<()> {
        debug_assert!(self.done.is_none(), "psync has depth 1");
        let res = loop {
            // SAFETY: buf points to io.len valid bytes owned by the worker's Buffers.
            let r = unsafe {
                match io.dir {
                    Dir::Read => libc::pread64(self.fd, io.buf as *mut _, io.len as usize, io.offset as i64),
                    Dir::Write if io.dsync => {
                        let iov = libc::iovec {
                            iov_base: io.buf as *mut _,
                            iov_len: io.len as usize,
                        };
                        libc::pwritev2(self.fd, &iov, 1, io.offset as libc::off_t, libc::RWF_DSYNC)
                    }
                    Dir::Write => libc::pwrite64(self.fd, io.buf as *const _, io.len as usize, io.offset as i64),
                }
            };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                break -e.raw_os_error().unwrap_or(libc::EIO);
            }
            break r as i32;
        };
        self.done = Some(Done {
            slot: io.slot,
            result: res,
        });
        Ok(())
    }

    #[inline]
    fn submit_and_reap(&mut self, _min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        out.extend(self.done.take());
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        // SAFETY: plain syscall.
        if unsafe { libc::fdatasync(self.fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
