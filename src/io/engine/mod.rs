//! I/O engines behind one interface.
//!
//! The interface follows fio's `ioengine_ops` split into *queue* and *reap*,
//! because that is the one shape that fits both kinds of engine: an async
//! engine (io_uring) only records the request in `queue` and does the work in
//! `submit_and_reap`; a synchronous engine (psync) performs the I/O inside
//! `queue` and hands the finished completion back from `submit_and_reap`.
//! The driver loop in [`crate::io::worker`] is therefore the same for every engine,
//! and so is the timing.
//!
//! Which engines there are, and what iolab knows about each, is the
//! [`registry`]'s.

pub mod mock;
pub mod psync;
pub mod registry;
pub mod uring;

pub use registry::{Driver, ENGINES, EngineKind, Layout, Ops, Setup};

use std::io;

/// Direction of one I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

/// One request handed to an engine.
#[derive(Clone, Copy, Debug)]
pub struct Io {
    /// Slot index in `0..depth`; comes back in the completion.
    pub slot: u32,
    pub dir: Dir,
    pub offset: u64,
    pub len: u32,
    /// Start of the data; lies inside the [`crate::io::buffers::Buffers`] the engine was built with.
    pub buf: *mut u8,
    /// Which registered buffer region `buf` lies in (0 = write pool, 1 = read slots).
    pub region: u16,
    /// A write that completes only once stored (`RWF_DSYNC`, as if the
    /// file were opened with O_DSYNC): [`SyncMode::Dsync`].
    pub dsync: bool,
}

/// How each write of a job is made durable (`--sync` of `iolab job`, the sync
/// suite). Every write job also ends each run with a flush (fdatasync);
/// these modes make each write durable on its own, as a database's commit
/// or ZFS's intent log (the ZIL, on a SLOG) waits for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// Writes as the device accepts them; one flush at the end of each run.
    #[default]
    None,
    /// Each write with O_DSYNC (`RWF_DSYNC`): it completes once stored.
    Dsync,
    /// Each write followed by an fdatasync, whose time counts in the
    /// write's latency (a write, then a flush: a database's commit).
    Fsync,
}

impl SyncMode {
    /// `none`, `dsync`, `fsync`: as the command line, the documents and job names write it.
    pub fn as_str(self) -> &'static str {
        match self {
            SyncMode::None => "none",
            SyncMode::Dsync => "dsync",
            SyncMode::Fsync => "fsync",
        }
    }
    /// No write of its own made durable (the default, left out of documents).
    pub fn is_none(&self) -> bool {
        *self == SyncMode::None
    }
}

/// A finished request: the slot and the kernel's result (bytes, or -errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    pub slot: u32,
    pub result: i32,
}

/// One engine instance serves one worker thread.
pub trait Engine {
    /// How many I/Os this instance can have in flight.
    fn depth(&self) -> usize;
    /// Queue one I/O. A synchronous engine performs it here.
    fn queue(&mut self, io: Io) -> io::Result<()>;
    /// Submit what is queued and wait until at least `min` I/Os have
    /// completed (fewer only if fewer are in flight); append them to `out`.
    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()>;
    /// Make everything written so far durable: fdatasync of a file, a cache
    /// flush for a block device.
    fn sync(&mut self) -> io::Result<()>;
    /// On the way out only (a failure, a drop): cancel what the kernel can
    /// still cancel of the I/Os in flight, and wait until every I/O ever
    /// queued has completed, calling `progress` with each batch of
    /// completions (so the stall watchdog sees a drain that moves). Once
    /// this returns `Ok`, no I/O uses the worker's buffers and they may be
    /// freed; until then they may not, even after an error. Its
    /// completions are not reported: the stream has already failed. A
    /// synchronous engine has nothing in flight between calls.
    fn drain(&mut self, progress: &mut dyn FnMut(u64)) -> io::Result<()> {
        let _ = progress;
        Ok(())
    }
}

/// Nanosecond clock used by the driver loop; a trait so that the mock engine
/// can drive a virtual clock and tests can check exact figures.
pub trait Clock {
    fn now_ns(&self) -> u64;
}

/// The real monotonic clock.
pub struct RealClock {
    base: std::time::Instant,
}

impl RealClock {
    pub fn new(base: std::time::Instant) -> Self {
        RealClock { base }
    }
}

impl Clock for RealClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}
