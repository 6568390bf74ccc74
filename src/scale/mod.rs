//! Concurrency experiments (issue 6): queue-depth and thread sweeps, several
//! targets at once, layouts against their members, and the verdicts.

pub mod verdict;
