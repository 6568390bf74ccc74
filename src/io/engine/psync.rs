//! Synchronous pread/pwrite engine, depth 1 per instance.
//!
//! A queue depth above 1 is emulated by the job runner with one thread per
//! queue slot, which is what a synchronous engine can honestly offer.
//! A write marked `dsync` is a `pwritev2` with `RWF_DSYNC`.

use super::{Dir, Done, Engine, Io};
use crate::io::sys;
use std::io;
use std::os::fd::{BorrowedFd, RawFd};

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
        // SAFETY: the descriptor is open while the engine lives (the target
        // outlives its workers); `buf` points to `io.len` bytes of the
        // worker's Buffers, valid for the call. (Raw pointers, not slices: a
        // shared write pool's other writers may stamp the same bytes.)
        let r = unsafe {
            let fd = BorrowedFd::borrow_raw(self.fd);
            match io.dir {
                Dir::Read => sys::read_at_raw(fd, io.buf, io.len as usize, io.offset),
                Dir::Write => sys::write_at_raw(fd, io.buf, io.len as usize, io.offset, io.dsync),
            }
        };
        let res = match r {
            Ok(n) => n as i32,
            Err(e) => -e.raw_os_error().unwrap_or(libc::EIO),
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
        // SAFETY: the descriptor is open while the engine lives (see `queue`).
        sys::fdatasync(unsafe { BorrowedFd::borrow_raw(self.fd) })
    }
}
