//! The I/O core: engines (io_uring, psync, a mock on a virtual clock), the
//! worker loop that keeps an engine's queue full and times every completion,
//! the aligned buffers with incompressible data, and the random generator
//! for offsets and the read/write mix. Nothing here knows about jobs,
//! suites or results: it moves bytes and records [`crate::samples`].

pub mod buffers;
pub mod engine;
pub mod errno;
pub mod rng;
pub mod stall;
pub mod stream;
pub mod sys;
pub mod worker;
