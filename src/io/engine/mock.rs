//! A deterministic engine over a virtual clock, for exact tests of the
//! driver loop and everything downstream (bandwidth, IOPS, percentiles,
//! per-second samples).
//!
//! It models a device with `servers` independent servers, each taking a
//! fixed `service_ns` per I/O (plus `per_byte_ns` per byte): an I/O starts
//! when a server is free and completes `service` later. `submit_and_reap`
//! advances the shared virtual clock to the earliest completion.
//!
//! [`MockFault`]s make the I/O at an offset fail, or hold it for a while
//! (a device that answers one request late), for the tests of what a
//! worker does on the way out.

use super::{Clock, Done, Engine, Io};
use std::cell::Cell;
use std::io;
use std::rc::Rc;

/// A clock that only moves when the mock engine moves it.
#[derive(Clone, Default)]
pub struct MockClock(Rc<Cell<u64>>);

impl MockClock {
    pub fn advance_to(&self, t: u64) {
        if t > self.0.get() {
            self.0.set(t);
        }
    }
}

impl Clock for MockClock {
    fn now_ns(&self) -> u64 {
        self.0.get()
    }
}

/// What the mock does to the I/O at one offset.
#[derive(Clone, Copy, Debug)]
pub enum MockFault {
    /// It completes in the usual time with this errno.
    Fail(i32),
    /// It completes this many ns after it was queued, on no server.
    Hold(u64),
    /// It completes in the usual time, with only this many bytes.
    Short(i32),
}

pub struct MockEngine {
    clock: MockClock,
    depth: usize,
    service_ns: u64,
    per_byte_ns: f64,
    servers: Vec<u64>,
    /// (completion time, slot, result)
    inflight: Vec<(u64, u32, i32)>,
    /// Faults by offset (empty but in tests).
    pub faults: Vec<(u64, MockFault)>,
    /// The call of `submit_and_reap` (from 1) that fails itself, as a
    /// ring that cannot submit would; the calls after it work.
    pub submit_error_at: Option<u32>,
    reaps: u32,
    /// Flushes asked for (`sync`).
    pub syncs: u32,
    /// What a flush costs: `sync` moves the clock on by it, and a `dsync`
    /// write takes it on top of its service time.
    pub sync_ns: u64,
}

impl MockEngine {
    pub fn new(clock: MockClock, depth: usize, servers: usize, service_ns: u64, per_byte_ns: f64) -> Self {
        MockEngine {
            clock,
            depth,
            service_ns,
            per_byte_ns,
            servers: vec![0; servers.max(1)],
            inflight: Vec::new(),
            faults: Vec::new(),
            submit_error_at: None,
            reaps: 0,
            syncs: 0,
            sync_ns: 0,
        }
    }

    /// I/Os queued whose completion has not been reaped.
    pub fn pending(&self) -> usize {
        self.inflight.len()
    }
}

impl Engine for MockEngine {
    fn depth(&self) -> usize {
        self.depth
    }

    fn queue(&mut self, io: Io) -> io::Result<()> {
        let now = self.clock.now_ns();
        let fault = self.faults.iter().find(|f| f.0 == io.offset).map(|f| f.1);
        if let Some(MockFault::Hold(ns)) = fault {
            self.inflight.push((now + ns, io.slot, io.len as i32));
            return Ok(());
        }
        let (i, free_at) = self.servers.iter().copied().enumerate().min_by_key(|&(_, t)| t).unwrap();
        let start = free_at.max(now);
        // A write with O_DSYNC completes once stored: the device flushes after it.
        let flush = if io.dsync { self.sync_ns } else { 0 };
        let end = start + self.service_ns + (self.per_byte_ns * io.len as f64) as u64 + flush;
        self.servers[i] = end;
        let result = match fault {
            Some(MockFault::Fail(errno)) => -errno,
            Some(MockFault::Short(bytes)) => bytes,
            _ => io.len as i32,
        };
        self.inflight.push((end, io.slot, result));
        Ok(())
    }

    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        self.reaps += 1;
        if self.submit_error_at == Some(self.reaps) {
            return Err(io::Error::from_raw_os_error(libc::ENOMEM));
        }
        self.inflight.sort_by_key(|&(t, _, _)| std::cmp::Reverse(t));
        let want = min.min(self.inflight.len());
        let mut reaped = 0;
        while let Some(&(t, slot, result)) = self.inflight.last() {
            if reaped >= want && t > self.clock.now_ns() {
                break;
            }
            self.clock.advance_to(t);
            self.inflight.pop();
            out.push(Done { slot, result });
            reaped += 1;
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.syncs += 1;
        self.clock.advance_to(self.clock.now_ns() + self.sync_ns);
        Ok(())
    }

    /// Nothing is cancellable: every I/O in flight completes in its time.
    fn drain(&mut self, progress: &mut dyn FnMut(u64)) -> io::Result<()> {
        if let Some(last) = self.inflight.iter().map(|i| i.0).max() {
            self.clock.advance_to(last);
            progress(self.inflight.len() as u64);
            self.inflight.clear();
        }
        Ok(())
    }
}
