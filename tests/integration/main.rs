//! iolab's integration tests, in one binary (as ripgrep does): the harness
//! in [`common`] is compiled and linked once, not once per file. One folder
//! per kind of claim; run a group or an area by its path, e.g.
//! `cargo test --test integration truth::` or
//! `cargo test --test integration truth::scan::`.
//!
//! - [`cli`]: the command line as a user meets it: arguments and their
//!   errors, the configuration file, output formats, the results store (and
//!   sudo's), shell completions and man pages, and every kind of JSON document
//!   against its schema (python3-jsonschema). Mostly fast, mostly unprivileged.
//! - [`safety`]: what iolab refuses and what it leaves behind: the refusal
//!   matrix on block devices, hostile and malformed input, faults during a run
//!   (EIO, ENOSPC, a target gone), signals at any moment.
//! - [`truth`]: ground truth against emulated devices whose limits are known
//!   (throttled loop devices, zram, FUSE files, fio hosts in namespaces): every
//!   figure iolab reports (runs, sustained writes, cliffs, steady state, scans,
//!   scale, application runs and their attribution, capacity, verify, selftest,
//!   `--engine fio`, many hosts, memory, CPU, `info` on real stacks) must land
//!   on the emulated truth.
//! - [`harness`]: the harnesses' own self-tests, independent of iolab: the
//!   emulated devices and the throttle (also cross-checked with fio), the
//!   FUSE slow file and faulty device, the fio hosts in network namespaces,
//!   the headless browser.
//! - [`browser`]: the HTML report in headless chromium.
//! - [`package`]: iolab as it is shipped: `--version`, and the .deb
//!   installed with dpkg (man pages, completions in their shells), then
//!   removed without a trace.
//!
//! One way to run iolab: [`common::iolab`] (an in-memory store, no
//! configuration file of the user's), [`common::iolab_in`] for a child of a
//! blkio cgroup, [`common::iolab_as`] and [`common::IolabCopy`] for another
//! user.
//!
//! No silent pass: a test that cannot check its claim says why with
//! [`common::skip`] (`need_root!()`, `need_tool!("fio")`, `skip!(Kernel, ..)`)
//! and is counted. A missing tool or privilege is a failure under `CI=true`
//! (scripts/test installs every tool, CI runs as root); a fact of this kernel
//! is a skip everywhere, named. `scripts/test` lists every skip at the end.

#[macro_use]
mod common;

mod browser;
mod cli;
mod harness;
mod package;
mod safety;
mod truth;
