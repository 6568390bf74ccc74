//! The pure core of `iolab verify` and `iolab capacity` (issue 15): no I/O.
//!
//! - [`block`]: the stamped 4 KiB block — its layout, [`fill`] to write
//!   it, [`classify`] to say what a block read back is ([`BlockState`]).
//! - [`tally`]: a verify pass summed up as it is read ([`VerifyTally`]):
//!   bytes per class, bad ranges, the usable size and a [`Verdict`].
//! - [`flush`]: `iolab flush`'s plan of stamped generations, its log, and
//!   the check of what a device kept after a power cut ([`flush::FlushTally`]).
//! - [`probe`]: the capacity probe, a state machine the I/O layer drives
//!   round by round ([`Probe`]), and the save-and-restore bookkeeping for a
//!   probe that must not destroy data ([`Backup`]).
//!
//! The verdict's thresholds live with all the others in
//! [`crate::base::thresholds`].

pub mod block;
pub mod flush;
pub mod probe;
pub mod tally;

pub use block::{BLOCK, BlockState, Class, Header, block_hash, classify, classify_generation, fill, fill_generation, new_pass};
pub use probe::{Backup, Probe, ProbeReport, ProbeVerdict, Round, probe_offsets};
pub use tally::{BadRange, ClassBytes, Verdict, VerifySummary, VerifyTally, verdict};

#[cfg(test)]
mod tests;
