//! Shared helpers for integration tests.
//!
//! `emu` builds emulated block devices with known limits (loop devices over
//! `/dev/shm`, zram, blkio-throttled cgroups, ext4 and tmpfs mounts) and tears
//! them down again through `Drop` guards.

// Each integration-test binary compiles this module on its own and uses only
// part of it.
#![allow(dead_code)]

pub mod emu;

/// True when fio is installed. Under `CI=true` a missing fio is an error
/// (scripts/test installs it); elsewhere the test says `skipping` (with its
/// name in front) and the fio checks are skipped.
pub fn have_fio(skipping: &str) -> bool {
    let ok = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but fio is not installed: the harness cannot be validated"
        );
        eprintln!("[{}] {skipping}", emu::current_test_name());
    }
    ok
}
