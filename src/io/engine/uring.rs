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
//! - submission and waiting are one `io_uring_enter` per loop iteration;
//! - the thread and the ring's io-wq workers can be put on one CPU (see
//!   [`Uring::new`] and [`crate::measure::placement`]);
//! - on a target that cannot take non-blocking I/O (zram, tmpfs here),
//!   every I/O is marked for an io-wq worker at once (`IOSQE_ASYNC`), instead
//!   of being tried inline first only to fail and be handed over anyway
//!   (fio's `force_async=1`, which took fio's best profile from 391k to
//!   398k I/Os per CPU-second on zram, 4K random reads at QD32).

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
}

impl Uring {
    /// `colocate`: pin the calling thread and the ring's io-wq workers to this
    /// CPU (when and why: [`crate::measure::placement`]). Targets that cannot
    /// do non-blocking I/O (zram, tmpfs, many filesystems for some
    /// operations) get every I/O handed to an io-wq worker thread, which
    /// inherits the affinity of the thread that made the ring.
    ///
    /// `nowait`: whether the target takes non-blocking I/O
    /// ([`crate::target::Target::nowait`]); if not, every I/O goes straight
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
        })
    }

    fn push(&mut self, sqe: squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: the buffer referenced by the entry stays valid until its completion is reaped.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                return Ok(());
            }
            self.ring.submit()?;
        }
    }
}

impl Drop for Uring {
    /// The kernel tears a ring down asynchronously after its fd is closed,
    /// and until then the registered file keeps the filesystem busy: an
    /// `umount` right after iolab exits would fail. Unregistering is
    /// synchronous, so the file is released before iolab goes on (or exits).
    fn drop(&mut self) {
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
        let sqe = match (io.dir, self.fixed_bufs) {
            (Dir::Read, true) => opcode::ReadFixed::new(f, io.buf, io.len, io.region).offset(io.offset).build(),
            (Dir::Write, true) => opcode::WriteFixed::new(f, io.buf, io.len, io.region).offset(io.offset).build(),
            (Dir::Read, false) => opcode::Read::new(f, io.buf, io.len).offset(io.offset).build(),
            (Dir::Write, false) => opcode::Write::new(f, io.buf, io.len).offset(io.offset).build(),
        };
        self.push(sqe.user_data(io.slot as u64).flags(self.flags))
    }

    #[inline]
    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        loop {
            match self.ring.submit_and_wait(min) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => break, // completions pending: reap them first
                Err(e) => return Err(e),
            }
        }
        for cqe in self.ring.completion() {
            out.push(Done {
                slot: cqe.user_data() as u32,
                result: cqe.result(),
            });
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
