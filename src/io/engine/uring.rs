//! io_uring engine.
//!
//! Choices made for CPU efficiency (the engine must cost less CPU per I/O
//! than fio's):
//! - one ring per worker thread with `SINGLE_ISSUER | DEFER_TASKRUN`, so
//!   completions run in our own task when we wait, not through task-work
//!   interrupts (falls back to `COOP_TASKRUN`, then to no flags, on older kernels);
//! - the file is registered (no fd lookup/refcount per I/O) and so is all
//!   I/O memory (no page pinning per I/O); without the memlock allowance for
//!   fixed buffers it falls back to plain reads and writes;
//! - submission and waiting are one `io_uring_enter` per loop iteration,
//!   except where an I/O scheduler would hold a burst back: there each I/O
//!   is submitted as it is queued ([`Uring::submitting_each`]);
//! - the thread and the ring's io-wq workers can be put on one CPU (see
//!   [`Uring::new`] and [`crate::measure::placement`]);
//! - what is in flight is counted per submission and per wait, never per
//!   I/O, so that [`Engine::drain`] (and a drop) can wait for the last
//!   completion before the buffers may go: the kernel never writes into
//!   memory that has been freed and reused;
//! - on a target that cannot take non-blocking I/O (zram, tmpfs here),
//!   every I/O is marked for an io-wq worker at once (`IOSQE_ASYNC`), instead
//!   of being tried inline first only to fail and be handed over anyway
//!   (fio's `force_async=1`, which took fio's best profile from 391k to
//!   398k I/Os per CPU-second on zram, 4K random reads at QD32).
//!
//! A write marked `dsync` carries `RWF_DSYNC`: O_DSYNC for that write alone.

use super::{Dir, Done, Engine, Io};
use crate::io::buffers::Buffers;
use io_uring::{IoUring, opcode, squeue, types};
use std::io;
use std::os::fd::RawFd;

pub struct Uring {
    ring: IoUring,
    fd: RawFd,
    depth: usize,
    fixed_bufs: bool,
    /// `IOSQE_ASYNC` when the target cannot take non-blocking I/O.
    flags: squeue::Flags,
    /// I/Os submitted to the kernel whose completion has not been reaped.
    inflight: usize,
    /// Submit once this many I/Os are queued; 0: only when waiting
    /// ([`crate::measure::placement::submit_each`]).
    submit_each: usize,
}

/// The `user_data` of [`Engine::drain`]'s cancel requests; an I/O's is its
/// slot, below 2^32.
const CANCEL: u64 = 1 << 63;

impl Uring {
    /// `colocate`: pin the calling thread and the ring's io-wq workers to this
    /// CPU (when and why: [`crate::measure::placement`]). Targets that cannot
    /// do non-blocking I/O (zram, tmpfs, many filesystems for some
    /// operations) get every I/O handed to an io-wq worker thread, which
    /// inherits the affinity of the thread that made the ring.
    ///
    /// `nowait`: whether the target takes non-blocking I/O
    /// ([`crate::targets::Target::nowait`]); if not, every I/O goes straight
    /// to an io-wq worker.
    pub fn new(fd: RawFd, depth: usize, bufs: &Buffers, colocate: Option<usize>, nowait: bool) -> io::Result<Self> {
        if let Some(cpu) = colocate {
            let mut set = rustix::thread::CpuSet::new();
            set.set(cpu);
            // Before the ring exists, so the workers it creates inherit the CPU.
            rustix::thread::sched_setaffinity(None, &set)?;
        }
        let entries = (depth as u32).next_power_of_two().max(2);
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(entries)
            .or_else(|_| IoUring::builder().setup_coop_taskrun().build(entries))
            .or_else(|_| IoUring::new(entries))?;
        ring.submitter().register_files(&[fd])?;
        let iov = [
            libc::iovec {
                iov_base: bufs.pool.as_ptr() as *mut _,
                iov_len: bufs.pool.len(),
            },
            libc::iovec {
                iov_base: bufs.reads.as_ptr() as *mut _,
                iov_len: bufs.reads.len(),
            },
        ];
        // SAFETY: the buffers outlive the ring: the worker drops the engine before its Buffers.
        let fixed_bufs = unsafe { ring.submitter().register_buffers(&iov) }.is_ok();
        Ok(Uring {
            ring,
            fd,
            depth,
            fixed_bufs,
            flags: if nowait { squeue::Flags::empty() } else { squeue::Flags::ASYNC },
            inflight: 0,
            submit_each: 0,
        })
    }

    /// Submit as soon as `n` I/Os are queued (0: only when waiting for
    /// completions), where a burst of submissions would be held back
    /// ([`crate::measure::placement::submit_each`]).
    pub fn submitting_each(mut self, n: usize) -> Self {
        self.submit_each = n;
        self
    }

    fn push(&mut self, sqe: squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: the buffer referenced by the entry stays valid until its completion is reaped.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                return Ok(());
            }
            self.inflight += self.ring.submit()?;
        }
    }

    /// Submit what is queued without waiting; what the kernel could not take
    /// now (EBUSY: completions to reap first) stays queued for the next wait.
    fn submit_queued(&mut self) -> io::Result<usize> {
        loop {
            match self.ring.submit() {
                Ok(n) => return Ok(n),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(0),
                Err(e) => return Err(e),
            }
        }
    }

    /// I/Os queued or in flight whose completion has not been reaped.
    pub fn pending(&mut self) -> usize {
        self.inflight + self.ring.submission().len()
    }

    /// Submit what is queued and wait for `want` completions, through
    /// interruptions and a full completion queue; what was submitted is
    /// counted by [`Engine::drain`] itself.
    #[cold]
    fn enter(&mut self, want: usize) -> io::Result<()> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()), // reap first
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Uring {
    /// The kernel tears a ring down asynchronously after its fd is closed,
    /// and until then the registered file keeps the filesystem busy: an
    /// `umount` right after iolab exits would fail. Unregistering is
    /// synchronous, so the file is released before iolab goes on (or exits).
    ///
    /// Before that, nothing may be in flight: the buffers the engine was
    /// built on are freed right after it, and the kernel cancels and waits
    /// for what is left only after the ring's fd is closed, while a late
    /// completion still writes into that memory. So a drop drains first.
    /// A drain that fails (the ring itself broken) parks this thread for
    /// good rather than let memory the kernel may still write be freed: it
    /// is left behind like a worker stuck in the kernel ([`crate::io::stall`]).
    fn drop(&mut self) {
        if self.pending() > 0 && self.drain(&mut |_| ()).is_err() {
            loop {
                std::thread::park();
            }
        }
        let _ = self.ring.submitter().unregister_files();
        if self.fixed_bufs {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

impl Engine for Uring {
    fn depth(&self) -> usize {
        self.depth
    }

    #[inline]
    fn queue(&mut self, io: Io) -> io::Result<()> {
        let f = types::Fixed(0);
        // A write that completes only once stored: O_DSYNC for this write alone.
        let rw = if io.dsync { libc::RWF_DSYNC } else { 0 };
        let sqe = match (io.dir, self.fixed_bufs) {
            (Dir::Read, true) => opcode::ReadFixed::new(f, io.buf, io.len, io.region).offset(io.offset).build(),
            (Dir::Write, true) => opcode::WriteFixed::new(f, io.buf, io.len, io.region)
                .offset(io.offset)
                .rw_flags(rw)
                .build(),
            (Dir::Read, false) => opcode::Read::new(f, io.buf, io.len).offset(io.offset).build(),
            (Dir::Write, false) => opcode::Write::new(f, io.buf, io.len).offset(io.offset).rw_flags(rw).build(),
        };
        self.push(sqe.user_data(io.slot as u64).flags(self.flags))?;
        if self.submit_each > 0 && self.ring.submission().len() >= self.submit_each {
            self.inflight += self.submit_queued()?;
        }
        Ok(())
    }

    #[inline]
    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        loop {
            match self.ring.submit_and_wait(min) {
                Ok(n) => {
                    self.inflight += n;
                    break;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => break, // completions pending: reap them first
                Err(e) => return Err(e),
            }
        }
        let before = out.len();
        for cqe in self.ring.completion() {
            out.push(Done {
                slot: cqe.user_data() as u32,
                result: cqe.result(),
            });
        }
        self.inflight -= out.len() - before;
        Ok(())
    }

    /// Cancels each slot's I/O by its `user_data` (every kernel with
    /// io_uring has `IORING_OP_ASYNC_CANCEL`; a slot with nothing in flight
    /// answers ENOENT), then reaps until every submitted I/O has completed,
    /// cancelled or not: a read already at the device, or held by a FUSE
    /// daemon, cannot be cancelled and is waited for. That wait is bounded
    /// by whoever watches `progress`: the job's stall watchdog gives up on
    /// a worker stuck here and leaves it behind, buffers and all.
    #[cold]
    fn drain(&mut self, progress: &mut dyn FnMut(u64)) -> io::Result<()> {
        // Queued but not yet submitted: the kernel takes them before the cancels behind them.
        self.inflight += self.ring.submission().len();
        for slot in 0..self.depth as u64 {
            let sqe = opcode::AsyncCancel::new(slot).build().user_data(CANCEL | slot);
            // SAFETY: a cancel request references no memory.
            while unsafe { self.ring.submission().push(&sqe) }.is_err() {
                self.enter(0)?;
            }
        }
        // Each cancel answers once: the engine is clean again only when
        // those answers are in too (none may pass for an I/O's later).
        let mut cancels = self.depth;
        while self.inflight + cancels > 0 {
            self.enter(1)?;
            let mut n = 0;
            for c in self.ring.completion() {
                if c.user_data() & CANCEL == 0 {
                    n += 1;
                } else {
                    cancels -= 1;
                }
            }
            self.inflight -= n;
            if n > 0 {
                progress(n as u64);
            }
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        // SAFETY: plain syscall on a descriptor we were given open.
        if unsafe { libc::fdatasync(self.fd) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd};

    /// A ring with a read in flight on an empty pipe, which only a cancel ends.
    fn waiting_read(bufs: &Buffers, rd: RawFd) -> Uring {
        let mut u = Uring::new(rd, 2, bufs, None, true).expect("io_uring");
        let io = Io {
            slot: 0,
            dir: Dir::Read,
            offset: 0,
            len: 4096,
            buf: bufs.read_slot(0),
            region: 1,
            dsync: false,
        };
        u.queue(io).unwrap();
        let mut out = Vec::new();
        u.submit_and_reap(0, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(u.pending(), 1);
        u
    }

    /// The drain cancels what waits, counts its completion, and leaves
    /// nothing in flight; a drop with an I/O in flight does the same, so
    /// the read no longer takes what comes into the pipe afterwards.
    #[test]
    fn a_drain_or_a_drop_leaves_nothing_in_flight() {
        let mut fds = [0; 2];
        // SAFETY: a valid out-array of two descriptors, each then owned by a File.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let (mut rd, mut wr) = unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) };
        let bufs = Buffers::new(4096, 2, 1, true, false);
        let mut u = waiting_read(&bufs, rd.as_raw_fd());
        let mut seen = 0;
        u.drain(&mut |n| seen += n).unwrap();
        assert_eq!((u.pending(), seen), (0, 1));
        drop(u);
        drop(waiting_read(&bufs, rd.as_raw_fd()));
        wr.write_all(b"late").unwrap();
        let mut got = [0u8; 8];
        assert_eq!(rd.read(&mut got).unwrap(), 4, "a dropped ring's read took the data");
        assert!(
            bufs.reads.as_slice()[..4].iter().all(|&b| b == 0),
            "written into the buffers after the drop"
        );
    }
}
