//! iolab's integration tests, in one binary (as ripgrep does): the harness
//! in [`common`] is compiled and linked once, not once per file.
//!
//! Each module is one area: `cli` (command-line behaviour), `config` (the
//! configuration file), `output` (formats, `-o`, `--quiet`), `store`,
//! `safety`, `faults` (faults during a run), `hostile` (malformed input, paths and stores), `info`, and the ground truth
//! on emulated devices with known limits (`accuracy`, `sustained`, `cliff`, `steady`, `scan`, `scale`,
//! `apps`, `attribution`), `capacity` and `verify` (on the faulty device), `signals`, `schema` (every kind of
//! JSON document against its schema, with python3-jsonschema), plus the harnesses' own checks (`slowfile_harness`,
//! `cpu_accounting`), and `memory` (a job's peak RSS with 512 workers). Root-only tests skip without root, except under
//! `CI=true`, where they must run. Run one area with
//! `cargo test --test integration scan::`.

#[macro_use]
mod common;

mod accuracy;
mod apps;
mod attribution;
mod browser;
mod capacity;
mod cli;
mod cliff;
mod config;
mod cpu_accounting;
mod faultdev_harness;
mod faults;
mod fio_engine;
mod hostile;
mod hosts;
mod info;
mod memory;
mod netns_harness;
mod output;
mod report;
mod safety;
mod scale;
mod scan;
mod schema;
mod selftest;
mod shell;
mod signals;
mod slowfile_harness;
mod steady;
mod store;
mod sudo;
mod sustained;
mod verify;
