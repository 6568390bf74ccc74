//! Shared helpers for integration tests: running the binary (one way:
//! [`iolab`], or its variants for a cgroup, another user or a copy of the
//! binary) and reading its JSON, comparing figures, counted skips ([`skip`]),
//! the headless browser ([`browser`]), and `emu`, which builds emulated block devices
//! with known limits (loop devices over `/dev/shm`, zram, blkio-throttled
//! cgroups, ext4 and tmpfs mounts, a FUSE file) and tears them down again
//! through `Drop` guards.

// Not every area uses every helper of the harness.
#![allow(dead_code)]

pub mod browser;
pub mod emu;
pub mod skip;

use serde_json::Value;
use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The binary under test. Private: tests run it through [`iolab`] and its variants.
const IOLAB: &str = env!("CARGO_BIN_EXE_iolab");

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
/// so tests never touch the user's. A test that wants a store of its own sets
/// `IOLAB_DB` (or passes `--db`), one that wants a configuration sets
/// `XDG_CONFIG_HOME`, one that checks the default store removes `IOLAB_DB`:
/// each says so where it runs the command.
pub fn iolab() -> Command {
    sandboxed(Command::new(IOLAB))
}

/// [`iolab`] as a child of the blkio cgroup `cg`: it joins the group before
/// `exec`, so every I/O it does is throttled there.
pub fn iolab_in(cg: &emu::Cgroup) -> Command {
    sandboxed(cg.command(IOLAB))
}

/// [`iolab`] started by `wrapper`, a program and its arguments that runs a
/// command as another user (`setpriv --reuid=N --regid=N --clear-groups`).
pub fn iolab_as(wrapper: &[&str]) -> Command {
    run_by(wrapper, IOLAB.as_ref())
}

/// A copy of the binary under test that any user may run (the build
/// directory may be closed to them), in a directory the test owns.
pub struct IolabCopy(PathBuf);

impl IolabCopy {
    /// Copies the binary to `dir/iolab`, mode 0755.
    pub fn new(dir: &Path) -> IolabCopy {
        let bin = dir.join("iolab");
        std::fs::copy(IOLAB, &bin).unwrap_or_else(|e| panic!("copy {IOLAB} to {}: {e}", bin.display()));
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        IolabCopy(bin)
    }

    /// The copy, sandboxed like [`iolab`], started by `wrapper` (as in
    /// [`iolab_as`]) or, when `wrapper` is empty, directly.
    pub fn command(&self, wrapper: &[&str]) -> Command {
        run_by(wrapper, self.0.as_os_str())
    }
}

/// `wrapper… bin`, or `bin` when `wrapper` is empty; sandboxed.
fn run_by(wrapper: &[&str], bin: &OsStr) -> Command {
    let c = match wrapper.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).arg(bin);
            c
        }
        None => Command::new(bin),
    };
    sandboxed(c)
}

/// No results store on disk and no configuration file of the user's.
fn sandboxed(mut c: Command) -> Command {
    c.env("IOLAB_DB", ":memory:");
    c.env("XDG_CONFIG_HOME", "/nonexistent/iolab-tests-config");
    c
}

/// The binary's path, for a program of the suite's that runs iolab itself
/// (`scripts/validate-documents` asks it for its schemas). Tests run iolab
/// through [`iolab`] and its variants.
pub fn binary_for_scripts() -> &'static str {
    IOLAB
}

/// `got` is within `tol` (a fraction) of `want`.
pub fn within(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() <= tol
}

/// Runs `cmd` (an [`iolab`] command that asks for `--json -`), killed after
/// `timeout`; shows its stderr, insists on success and parses its stdout.
pub fn json_of(cmd: &mut Command, timeout: Duration) -> Value {
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
