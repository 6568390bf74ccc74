//! What `iolab time` runs: a command, how often, how cold, and where.

use std::path::PathBuf;

/// A command timed hyperfine-style.
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
    /// Where the command runs (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// The device whose figures are shown, instead of the busiest: a block
    /// device name (`sdb`), its `/dev` path, or a path whose device is meant.
    pub device: Option<PathBuf>,
    /// Let the command's output through (default: discarded, as hyperfine does).
    pub show_output: bool,
    /// Keep going when the command exits non-zero.
    pub ignore_failure: bool,
    /// `--allow-export`: with `cold` on ZFS, the pool is exported and
    /// imported before each run to empty its ARC.
    pub allow_export: bool,
}

/// Where a timed command runs and which devices are measured, once resolved.
#[derive(Clone, Debug)]
pub struct Place {
    pub cwd: PathBuf,
    /// diskstats names of the named devices, top first (empty when none is named).
    pub devices: Vec<String>,
    /// How the devices were named (`--device sdb`, `--cwd /srv`); `None`:
    /// each run's figures come from the device that moved the most.
    pub named_by: Option<String>,
}

impl TimeOpts {
    pub fn validate(&self) -> crate::base::error::Result<()> {
        use crate::base::error::usage;
        if self.command.is_empty() {
            return Err(usage("no command to time: give it after `--`"));
        }
        super::limits::check_count("runs", self.runs, super::limits::MAX_RUNS).map_err(usage)?;
        Ok(())
    }
}
