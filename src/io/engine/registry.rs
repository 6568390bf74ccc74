//! Every engine iolab drives, registered in one place, as fio registers
//! its `ioengine_ops`: the [`EngineKind`] that names it, its row of facts in
//! [`ENGINES`] (its name, fio's engine doing the same, how it lays a job's
//! queue out over threads) and its constructor in [`EngineKind::open`].
//! The planner, the runner, fio's job file, the result model, the command
//! line and the configuration file all read an engine's facts from here.
//!
//! Adding an engine: its file beside this one (an [`Engine`]), a variant of
//! [`EngineKind`] (and in [`EngineKind::ALL`], whose length the compiler
//! holds to [`ENGINES`]'s), its row in [`ENGINES`] and its arm in
//! [`EngineKind::open`].

use super::Engine;
use super::psync::Psync;
use super::uring::Uring;
use crate::io::buffers::Buffers;
use serde::{Deserialize, Serialize};
use std::io;
use std::os::fd::RawFd;

/// An engine iolab drives; its name (`--engine`, the configuration file,
/// every document) is its row's [`Ops::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// Linux io_uring: one ring per thread, registered file and buffers.
    #[value(name = "io_uring")]
    IoUring,
    /// pread/pwrite; a queue depth above 1 is emulated with one thread per slot.
    Psync,
}

/// How an engine spreads a job of `threads` threads at queue depth `qd`
/// over worker threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each thread keeps its own queue of `qd` I/Os in flight (io_uring: a
    /// ring each).
    Queue,
    /// A thread has one I/O in flight at a time, so a depth above 1 runs as
    /// that many threads (psync: `threads x qd` workers of depth 1).
    ThreadPerSlot,
}

impl Layout {
    /// Worker threads and the queue depth of each for `threads` threads at
    /// depth `qd`.
    pub fn workers(self, threads: u32, qd: u32) -> (u32, u32) {
        match self {
            Layout::Queue => (threads, qd),
            Layout::ThreadPerSlot => (threads * qd, 1),
        }
    }
}

/// An engine's facts: its row in the registry.
#[derive(Clone, Copy, Debug)]
pub struct Ops {
    pub kind: EngineKind,
    /// Its name on the command line, in the configuration file and in documents.
    pub name: &'static str,
    /// fio's engine doing the same (`ioengine=`) ...
    pub fio: &'static str,
    /// ... and the options that make fio do it the same way, one a line.
    pub fio_options: &'static [&'static str],
    /// How a job's queue is laid out over worker threads.
    pub layout: Layout,
    /// Whether the kernel may serve its I/O in worker threads of its own
    /// (io_uring's io-wq), which the runner can place on the submitting
    /// thread's CPU (see [`crate::measure::placement`]).
    pub kernel_workers: bool,
}

/// The registry: one row per engine, in `--engine`'s order.
pub const ENGINES: [Ops; 2] = [
    Ops {
        kind: EngineKind::IoUring,
        name: "io_uring",
        fio: "io_uring",
        fio_options: &["fixedbufs=1", "registerfiles=1"],
        layout: Layout::Queue,
        kernel_workers: true,
    },
    Ops {
        kind: EngineKind::Psync,
        name: "psync",
        fio: "psync",
        fio_options: &[],
        layout: Layout::ThreadPerSlot,
        kernel_workers: false,
    },
];

/// What an engine is opened on, for one worker thread (with the worker's
/// buffers, given apart).
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// The target's descriptor.
    pub fd: RawFd,
    /// The I/Os this instance keeps in flight ([`Layout::workers`]).
    pub depth: usize,
    /// Pin the thread (and the kernel's workers for it) to this CPU.
    pub colocate: Option<usize>,
    /// Whether the target takes non-blocking I/O.
    pub nowait: bool,
    /// Submit after this many queued I/Os; 0: when waiting
    /// ([`crate::measure::placement::submit_each`]).
    pub submit_each: usize,
}

/// What runs on an opened engine. Generic over the engine, so that each
/// engine's loop is compiled on its own (no dynamic call per I/O).
pub trait Driver {
    type Out;
    /// Drive `engine`, or report why it could not be opened.
    fn drive<E: Engine>(self, engine: io::Result<E>, bufs: &mut Buffers) -> Self::Out;
}

impl EngineKind {
    /// Every engine, in the registry's order.
    pub const ALL: [EngineKind; ENGINES.len()] = [EngineKind::IoUring, EngineKind::Psync];

    /// The engine's row in [`ENGINES`].
    pub fn ops(self) -> &'static Ops {
        ENGINES
            .iter()
            .find(|o| o.kind == self)
            .expect("every engine has its row in ENGINES")
    }

    /// Its name (`io_uring`, `psync`).
    pub fn as_str(self) -> &'static str {
        self.ops().name
    }

    /// Every engine's name, for a message: `io_uring or psync`.
    pub fn names() -> String {
        EngineKind::ALL.map(EngineKind::as_str).join(" or ")
    }

    /// Open the engine on `setup` with the worker's `bufs`, and hand it to
    /// `driver`: the constructor of each engine.
    pub fn open<D: Driver>(self, setup: Setup, bufs: &mut Buffers, driver: D) -> D::Out {
        match self {
            EngineKind::IoUring => {
                let engine =
                    Uring::new(setup.fd, setup.depth, bufs, setup.colocate, setup.nowait).map(|u| u.submitting_each(setup.submit_each));
                driver.drive(engine, bufs)
            }
            EngineKind::Psync => driver.drive(Ok(Psync::new(setup.fd)), bufs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    /// One row per engine, and the row's name is the one clap and serde
    /// use (the command line, the configuration file, the documents).
    #[test]
    fn every_engine_has_one_row_whose_name_is_its_name_everywhere() {
        assert_eq!(EngineKind::value_variants(), EngineKind::ALL.as_slice());
        for k in EngineKind::ALL {
            assert_eq!(ENGINES.iter().filter(|o| o.kind == k).count(), 1, "{k:?}");
            let name = k.ops().name;
            assert_eq!(k.to_possible_value().unwrap().get_name(), name);
            assert_eq!(serde_json::to_value(k).unwrap(), serde_json::json!(name));
            assert_eq!(serde_json::from_value::<EngineKind>(serde_json::json!(name)).unwrap(), k);
        }
    }

    #[test]
    fn a_thread_per_slot_engine_runs_its_depth_as_threads() {
        assert_eq!(Layout::Queue.workers(2, 8), (2, 8));
        assert_eq!(Layout::ThreadPerSlot.workers(2, 8), (16, 1));
    }
}
