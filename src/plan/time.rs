//! What `iolab time` runs, resolved: the command, its directory and the
//! devices measured.

use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct TimeOpts {
    /// The program and its arguments.
    pub command: Vec<String>,
    pub cold: bool,
    pub runs: u32,
    /// Runs before the measured ones, not counted (after their own prepare/cold step).
    pub warmup: u32,
    /// Run with `sh -c` before each run (and warm-up), untimed.
    pub prepare: Option<String>,
    /// Run with `sh -c` after each run, untimed.
    pub cleanup: Option<String>,
    /// Where the command runs; its devices are the ones measured.
    pub cwd: PathBuf,
    /// diskstats names of the devices to measure, top first.
    pub devices: Vec<String>,
    /// Let the command's output through (default: discarded, as hyperfine does).
    pub show_output: bool,
    /// Keep going when the command exits non-zero.
    pub ignore_failure: bool,
}
