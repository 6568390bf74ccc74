//! What iolab refuses and what it leaves behind: the refusal matrix of block
//! devices in use or carrying data, each left byte for byte unchanged
//! (`refusals`); hostile and malformed input: targets that are not storage,
//! planted links, damaged stores (`hostile`); faults during a run: EIO,
//! ENOSPC, a target that goes away or is read-only (`faults`); and signals
//! at any moment of any command (`signals`); a check that cannot look fails
//! closed (`failclosed`); `flush`'s refusals, its log on the device's disk among them (`flush`).

mod failclosed;
mod faults;
mod flush;
mod hostile;
mod journal;
mod layouts;
mod refusals;
mod signals;
