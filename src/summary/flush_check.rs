//! The result of `iolab flush` (issue 37): a run that wrote stamped
//! generations and logged each acknowledged flush, or a check of what the
//! device kept ([`crate::verify::flush::FlushFindings`]).

use crate::verify::flush::{FlushFindings, FlushPlan};
use serde::{Deserialize, Serialize};

/// What the run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlushAction {
    /// Wrote generations of stamped blocks, each ended by a flush, and logged each acknowledged one.
    Write,
    /// Read back every block the log says was acknowledged (`--check`).
    Check,
}

/// The time of the flushes of a run, each from its call to its return.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlushTimes {
    /// The fastest flush.
    #[schemars(extend("x-unit" = "s"))]
    pub min_s: f64,
    /// The median flush.
    #[schemars(extend("x-unit" = "s"))]
    pub median_s: f64,
    /// The slowest flush.
    #[schemars(extend("x-unit" = "s"))]
    pub max_s: f64,
}

impl FlushTimes {
    /// The min, median and max of `secs` (`None` when empty).
    pub fn of(secs: &[f64]) -> Option<FlushTimes> {
        let mut v = secs.to_vec();
        v.sort_by(f64::total_cmp);
        Some(FlushTimes {
            min_s: *v.first()?,
            median_s: crate::judge::stats::median(&v),
            max_s: *v.last()?,
        })
    }
}

/// `iolab flush`, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlushReport {
    /// A write run, or the check of its log.
    pub action: FlushAction,
    /// The log file of acknowledged generations.
    pub log: String,
    /// The pass id stamped into every block (random per run; a check's is the log's).
    #[schemars(extend("x-unit" = "nonce"))]
    pub pass: u64,
    /// Which blocks each generation writes.
    pub plan: FlushPlan,
    /// Acknowledged generations a verdict needs (every extent written twice).
    #[schemars(extend("x-unit" = "count"))]
    pub enough_generations: u64,
    /// Generations acknowledged: by this run's flushes (write), or in the log (check).
    #[schemars(extend("x-unit" = "count"))]
    pub acknowledged_generations: u64,
    /// Seconds writing, flushes included (write).
    #[schemars(extend("x-unit" = "s"))]
    pub write_s: Option<f64>,
    /// The flushes' times (write).
    pub flush_times: Option<FlushTimes>,
    /// The error that ended the writes: the device went away or failed (the power cut, when it is the device's own).
    pub device_error: Option<String>,
    /// The log's last line was torn (a crash while it was written) and is not counted (check).
    pub torn_tail: bool,
    /// What the blocks read back as, and the verdict (check).
    pub findings: Option<FlushFindings>,
    /// The device under the target, as `device_identity` names it.
    pub device: Option<String>,
    /// The writer stopped by itself and wrote so as the log's last line
    /// (`done`: its `--generations` were written; `interrupted`: Ctrl-C):
    /// no power was cut while it wrote, so a check of that log shows that
    /// the log and the device agree, not that a flush survives a power
    /// cut. Absent when the log ends without it (the run was cut short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_ended: Option<String>,
}

impl FlushReport {
    /// Whether this is a check of a run that a power cut (or a crash)
    /// ended: evidence about the flush, not only about the log.
    pub fn after_a_cut(&self) -> bool {
        self.action == FlushAction::Check && self.findings.is_some() && self.writer_ended.is_none()
    }

    /// Whether the device failed the check: a flush lied.
    pub fn failed(&self) -> bool {
        self.findings.as_ref().is_some_and(|f| f.verdict.failed())
    }
}
