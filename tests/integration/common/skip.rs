//! No silent pass: a test that cannot check its claim says why, of what kind, and is
//! counted.
//!
//! - [`Kind::Tool`] and [`Kind::Privilege`]: this machine lacks a program or root.
//!   `scripts/test` installs every tool the tests use and CI runs as root, so under
//!   `CI=true` such a skip fails the test instead.
//! - [`Kind::Kernel`]: a fact of the running kernel (a feature it does not have). A skip
//!   everywhere, CI included; the reason names the fact.
//!
//! Tests use the macros of `common/mod.rs`: `need_root!()`, `need_tool!("fio")` and
//! `skip!(Kernel, "this kernel ...")`, which end the test; a test that skips only a part
//! of its checks calls [`record`] and goes on. Every skip is printed with the test's name
//! and, when `$IOLAB_TEST_SKIPS` names a file, appended to it as one line
//! `TEST<tab>KIND<tab>REASON`: `scripts/test` sets it and lists the skips at the end.
//! (The library's unit tests write the same lines: `skip_for_missing_tool` in
//! `src/base/testknob.rs`.)

use std::io::Write;
use std::process::Command;

/// The file every skip is appended to, when set.
pub const SKIPS_VAR: &str = "IOLAB_TEST_SKIPS";

/// Why a test could not check its claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A program the test needs is not installed: a failure under `CI=true`.
    Tool,
    /// The test needs root: a failure under `CI=true`.
    Privilege,
    /// The running kernel lacks what the test needs: a skip even under `CI=true`.
    Kernel,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Privilege => "privilege",
            Kind::Kernel => "kernel",
        }
    }
}

/// True under `CI=true` (or `CI=1`), where only a kernel fact may skip.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// The running test's full name (`truth::scan::scan_of_...`): libtest names each
/// test's thread after it.
fn test_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_string()
}

/// Counts the running test (or a part of it) as skipped for `reason`. Under `CI=true` a
/// missing tool or privilege panics here instead: the test fails.
pub fn record(kind: Kind, reason: &str) {
    let test = test_name();
    if ci() && kind != Kind::Kernel {
        panic!(
            "CI=true but {test} cannot run: {reason} (missing {}: scripts/test installs every tool \
             and CI runs as root, so this is not skipped)",
            kind.as_str()
        );
    }
    eprintln!("[{test}] skipped ({}): {reason}", kind.as_str());
    if let Some(path) = std::env::var_os(SKIPS_VAR).filter(|p| !p.is_empty()) {
        // One write of one short line to a file opened for appending: lines of tests
        // running in parallel do not interleave.
        let line = format!("{test}\t{}\t{}\n", kind.as_str(), reason.replace(['\t', '\n'], " "));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            panic!("cannot record the skip in {}: {e}", path.to_string_lossy());
        }
    }
}

/// True when the tests run as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// True when `tool --version` runs and succeeds, or, for a tool without a `--version`
/// (zfs-fuse's `zfs-fuse`, `zpool` and `zfs`), when an executable of that name is on `PATH`.
pub fn have_tool(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success()) || on_path(tool)
}

/// True when a directory of `PATH` holds an executable file named `tool`.
fn on_path(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else { return false };
    std::env::split_paths(&path).any(|d| std::fs::metadata(d.join(tool)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}
