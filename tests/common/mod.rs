//! Shared helpers for integration tests.
//!
//! `emu` builds emulated block devices with known limits (loop devices over
//! `/dev/shm`, zram, blkio-throttled cgroups, ext4 and tmpfs mounts) and tears
//! them down again through `Drop` guards.

// Each integration-test binary compiles this module on its own and uses only
// part of it.
#![allow(dead_code)]

pub mod emu;
