//! Shared helpers for integration tests: running the binary and reading its
//! JSON, comparing figures, and `emu`, which builds emulated block devices
//! with known limits (loop devices over `/dev/shm`, zram, blkio-throttled
//! cgroups, ext4 and tmpfs mounts, a FUSE file) and tears them down again
//! through `Drop` guards.

// Not every area uses every helper of the harness.
#![allow(dead_code)]

pub mod browser;
pub mod emu;
pub mod skip;

use serde_json::Value;
use std::process::{Command, Output};
use std::time::Duration;

/// The binary under test.
pub const IOLAB: &str = env!("CARGO_BIN_EXE_iolab");

/// eprintln with the test's name in front: tests may run in parallel and their lines interleave.
macro_rules! note {
    ($($t:tt)*) => {
        eprintln!("[{}] {}", $crate::common::emu::current_test_name(), format!($($t)*))
    };
}

/// Ends the test as skipped (counted, see [`skip`]) for a reason of a [`skip::Kind`]:
/// `skip!(Kernel, "this kernel made no partition devices for {dev}")`. Under `CI=true`
/// only a `Kernel` fact skips; a missing `Tool` or `Privilege` fails the test.
macro_rules! skip {
    ($kind:ident, $($reason:tt)+) => {{
        $crate::common::skip::record($crate::common::skip::Kind::$kind, &format!($($reason)+));
        return;
    }};
}

/// Root, or the test is skipped (a missing privilege: a failure under `CI=true`).
macro_rules! need_root {
    () => {
        if !$crate::common::skip::is_root() {
            skip!(Privilege, "needs root");
        }
    };
}

/// `tool` installed, or the test is skipped (a missing tool: a failure under `CI=true`).
macro_rules! need_tool {
    ($tool:expr) => {
        if !$crate::common::skip::have_tool($tool) {
            skip!(Tool, "{} is not installed", $tool);
        }
    };
}

/// The binary, with an in-memory results store and no configuration file,
/// so tests never touch the user's.
pub fn iolab() -> Command {
    let mut c = Command::new(IOLAB);
    c.env("IOLAB_DB", ":memory:");
    // Nor the user's configuration file (tests that want one set their own).
    c.env("XDG_CONFIG_HOME", "/nonexistent/iolab-tests-config");
    c
}

/// `got` is within `tol` (a fraction) of `want`.
pub fn within(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() <= tol
}

/// Runs `cmd` (which asks for `--json -`; without `IOLAB_DB` of its own it
/// gets an in-memory store), killed after `timeout`; shows its stderr,
/// insists on success and parses its stdout.
pub fn json_of(cmd: &mut Command, timeout: Duration) -> Value {
    if !cmd.get_envs().any(|(k, _)| k == "IOLAB_DB") {
        cmd.env("IOLAB_DB", ":memory:");
    }
    let out = emu::output_with_timeout(cmd, timeout);
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    json_out(&out)
}

/// The JSON a finished, successful command printed.
pub fn json_out(out: &Output) -> Value {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "iolab failed ({}): {err}", out.status);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}
