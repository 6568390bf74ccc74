//! The ground floor: what every stage above uses and nothing above it is
//! needed for. It imports only `std` and crates.
//!
//! - [`error`]: the error type, mapped to exit statuses.
//! - [`document`]: the kinds of document iolab writes, with their schema ids.
//! - [`units`]: sizes, durations and rates, parsed and formatted.
//! - [`thresholds`]: every threshold iolab judges by, each defined once
//!   (read by plan, io, verify, judge and the help texts).
//! - [`signals`]: SIGINT/SIGTERM as a stop every loop checks.
//! - [`progress`]: the events an experiment sends its observer.
//! - [`paths`]: files named by the user or made in shared places, read and
//!   written safely.
//! - [`testknob`]: hooks for iolab's own tests, inert unless set.

pub mod document;
pub mod error;
pub mod paths;
pub mod progress;
pub mod signals;
#[doc(hidden)]
pub mod testknob;
pub mod thresholds;
pub mod units;
