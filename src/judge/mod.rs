//! Judgement: every rule that turns figures into a verdict or a warning.
//! The thresholds those rules use are in [`crate::base::thresholds`], each
//! defined once.
//! Pure functions over figures; no I/O.
//!
//! - [`diagnostic`]: the one type of warnings, hints and findings.
//! - [`job`]: a measured job's warnings, one small rule each.
//! - [`depth`]: a job whose device had far fewer I/Os in flight than it asked for.
//! - [`apps`]: warnings on timed commands and app-suite phases.
//! - [`capacity`]: `iolab capacity`'s verdict (genuine, fake, damaged, suspect).
//! - [`scan`]: the scan curve note.
//! - [`steady`] and [`cliff`]: steady state across rounds, the write cliff in a run.
//! - [`flush`]: a flush that returned sooner than the device could store what it acknowledged.
//! - [`curve`]: where `verify`'s speed across the device drops and stays down.
//! - [`settle`]: when a test's windows have settled (`--runs auto`).
//! - [`scale`]: depth, thread, together and layout verdicts.
//! - [`layouts`]: `iolab layouts`' verdicts: a layout against one disk, a property sweep, the best configuration.
//! - [`hosts`]: one plan on many hosts: outliers, agreement, failed hosts.
//! - [`cold`]: what makes a timed run cold (`drop_caches`, a ZFS export and import) or not.
//! - [`stats`]: median and coefficient of variation, shared with `summary`.
//! - [`zfs`]: ZFS's read caches (which method keeps them out) and its layouts' write model.
//! - [`trust`]: whether a figure may carry a verdict (its untrustworthy codes), and the caveat when it does not.

pub mod apps;
pub mod capacity;
pub mod class;
pub mod cliff;
pub mod cold;
pub mod curve;
pub mod depth;
pub mod diagnostic;
pub mod flush;
pub mod hosts;
pub mod job;
pub mod layouts;
pub mod scale;
pub mod scan;
pub mod settle;
pub mod stats;
pub mod steady;
pub mod trust;
pub mod zfs;

pub use diagnostic::{Code, Diagnostic, Severity};

#[cfg(test)]
mod tests {
    /// Equal up to a relative 1e-9 (an absolute one near zero).
    pub fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }
}
