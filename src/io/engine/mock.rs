//! A deterministic engine over a virtual clock, for exact tests of the
//! driver loop and everything downstream (bandwidth, IOPS, percentiles,
//! per-second samples).
//!
//! It models a device with `servers` independent servers, each taking a
//! fixed `service_ns` per I/O (plus `per_byte_ns` per byte): an I/O starts
//! when a server is free and completes `service` later. `submit_and_reap`
//! advances the shared virtual clock to the earliest completion.

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

pub struct MockEngine {
    clock: MockClock,
    depth: usize,
    service_ns: u64,
    per_byte_ns: f64,
    servers: Vec<u64>,
    /// (completion time, slot, len)
    inflight: Vec<(u64, u32, u32)>,
    pub syncs: u32,
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
            syncs: 0,
            sync_ns: 0,
        }
    }
}

impl Engine for MockEngine {
    fn depth(&self) -> usize {
        self.depth
    }

    fn queue(&mut self, io: Io) -> io::Result<()> {
        let now = self.clock.now_ns();
        let (i, free_at) = self.servers.iter().copied().enumerate().min_by_key(|&(_, t)| t).unwrap();
        let start = free_at.max(now);
        let end = start + self.service_ns + (self.per_byte_ns * io.len as f64) as u64;
        self.servers[i] = end;
        self.inflight.push((end, io.slot, io.len));
        Ok(())
    }

    fn submit_and_reap(&mut self, min: usize, out: &mut Vec<Done>) -> io::Result<()> {
        self.inflight.sort_by_key(|&(t, _, _)| std::cmp::Reverse(t));
        let want = min.min(self.inflight.len());
        let mut reaped = 0;
        while let Some(&(t, slot, len)) = self.inflight.last() {
            if reaped >= want && t > self.clock.now_ns() {
                break;
            }
            self.clock.advance_to(t);
            self.inflight.pop();
            out.push(Done { slot, result: len as i32 });
            reaped += 1;
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        self.syncs += 1;
        self.clock.advance_to(self.clock.now_ns() + self.sync_ns);
        Ok(())
    }
}
