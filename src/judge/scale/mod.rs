//! Verdicts on whether depth, threads and devices scale (pure functions).
//!
//! `iolab scale` measures; this module judges. Three questions, each a
//! function of the numbers it is given (no I/O, no printing, no clock), so
//! every rule can be tested exactly:
//!
//! - [`sweep_verdict`]: does more queue depth (or more threads) give more
//!   throughput on one target, and where does it stop helping (the knee)?
//!   Seed `004`'s USB bridge passed one command at a time, so QD32 gave what
//!   QD1 gave; a device with working command queueing gives several times
//!   more.
//! - [`together_verdict`]: do several targets run at once deliver the sum
//!   of their solo rates, or does something they share (a bus, a bridge, a
//!   controller, the CPU) cap them? Seed `003`'s two disks on one SCSI bus
//!   gave 20.3 MB/s together, about 2 MB/s more than one alone.
//! - [`layout_verdict`]: does a stripe or mirror (btrfs raid0/raid1/raid10,
//!   md, ZFS) give the textbook multiple of one member's rate?
//!
//! Every verdict carries its figures and one sentence for the user; one
//! whose figures iolab calls untrustworthy (a memory device, a cache) is
//! withheld (`withhold`: inconclusive, the figures kept, the text says
//! why). Every
//! `f64` in a verdict is finite: a figure that cannot be computed (a zero
//! or missing baseline) is `None`, because JSON has no NaN and a stored
//! run document must read back. The thresholds are in
//! [`crate::base::thresholds`], each with the reason for its value; all of them
//! sit above the run-to-run noise of the devices iolab is tested on
//! (emulated throttled devices and real disks both show ±5–10% between
//! runs), so a verdict does not flip with the noise.

use crate::base::units::{fmt_mbs, fmt_pct, fmt_ratio};
use crate::judge::Code;
use crate::judge::trust::Distrust;
use crate::plan::Rw;
use serde::{Deserialize, Serialize};

use crate::base::thresholds::{CPU_SATURATED, FALL_RATIO, KEPT_MIN, LAYOUT_TOLERANCE, MIN_GAIN, ONE_DEVICE_MAX, SCALES_MIN_EFFICIENCY};

/// Copies of each block when a layout does not say: btrfs raid1 and
/// raid10, and md raid10's default "near 2", all keep two copies however
/// many devices there are.
pub const DEFAULT_COPIES: u32 = 2;

// ------------------------------------------------------------------ formats

/// An expected multiple without trailing zeros: `3`, `1.5`, `2.41`.
fn fmt_multiple(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A CPU figure that can be judged: finite and not negative.
fn known_cpu(c: Option<f64>) -> Option<f64> {
    c.filter(|c| c.is_finite() && *c >= 0.0)
}

/// `a / b` when both are finite, `b > 0` and the result is finite.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (a.is_finite() && b.is_finite() && b > 0.0).then(|| a / b).filter(|r| r.is_finite())
}

// ------------------------------------------------------------ withholding

/// What a verdict on untrustworthy figures says instead: the figures as
/// measured, and why no verdict rests on them. `None` when nothing under
/// it is untrustworthy once `cpu_bound` is left out (every verdict here
/// weighs the CPU itself, with [`CPU_SATURATED`]).
fn withheld(figures: &str, distrust: &Distrust) -> Option<String> {
    let d = distrust.without(&Code::CpuBound);
    (!d.is_empty()).then(|| {
        format!(
            "{figures}; no verdict: {}, so these figures are not the devices' speed",
            d.sentence()
        )
    })
}

mod layout;
mod sweep;
mod together;
pub use layout::*;
pub use sweep::*;
pub use together::*;

#[cfg(test)]
mod tests;
