//! The surface scan: HD Tach's transfer-rate curve from the first byte of a
//! target to the last, its access time, and its burst rate.
//!
//! A scan is a plan of ordinary jobs run by [`crate::measure::Runner`]: one
//! sequential job per zone (a window at the start of the zone), one random
//! 4K QD1 job spread over the whole range for the access time, and one small
//! repeated read for the burst rate. Reusing the job machinery means every
//! zone gets the same truth checks as any other job: O_DIRECT, the device
//! cross-check, CPU accounting.
//!
//! Each zone starts with a short discarded warm-up in the same stream. A
//! drive seeking to the zone, or a throttle that banked credit while the
//! previous zone's threads were torn down, would otherwise flatter or
//! penalise the first fraction of a second of a short window.

use crate::error::{Error, Result};
use crate::measure::{Event, JobSamples, Runner};
use crate::plan::scan::*;

/// What a scan measured.
#[derive(Debug)]
pub struct ScanSamples {
    pub zones: Vec<(Zone, JobSamples)>,
    pub access: Option<JobSamples>,
    pub burst: Option<JobSamples>,
    /// The signal that stopped the scan early, if any: what is above finished.
    pub interrupted: Option<i32>,
}

/// Run the scan: zones outer to inner (reporting each as it completes),
/// then the access time, then the burst rate.
pub fn run(runner: &Runner, plan: &ScanPlan) -> Result<ScanSamples> {
    plan.validate()?;
    let mut out = ScanSamples {
        zones: Vec::new(),
        access: None,
        burst: None,
        interrupted: None,
    };
    let repeat = plan.repeat();
    let zones = plan.zone_list();
    let of = zones.len() as u32;
    let stopped = |e: Error, out: &mut ScanSamples| match e {
        Error::Interrupted(sig) => {
            out.interrupted = Some(sig);
            Ok(())
        }
        e => Err(e),
    };
    for z in &zones {
        match runner.run_job(&plan.zone_spec(z), &repeat) {
            Ok(j) => {
                let bw = zone_rate(&j);
                runner.observer.event(Event::ZoneDone {
                    index: z.index,
                    of,
                    offset: z.offset,
                    bw_bytes: bw,
                });
                out.zones.push((*z, j));
            }
            Err(e) => {
                stopped(e, &mut out)?;
                return Ok(out);
            }
        }
    }
    for (spec, slot) in [(plan.access_spec(), 0), (plan.burst_spec(), 1)] {
        let Some(spec) = spec else { continue };
        match runner.run_job(&spec, &repeat) {
            Ok(j) if slot == 0 => out.access = Some(j),
            Ok(j) => out.burst = Some(j),
            Err(e) => {
                stopped(e, &mut out)?;
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// Bytes per second of a zone's measured window.
pub fn zone_rate(j: &JobSamples) -> f64 {
    j.runs
        .first()
        .map(|r| (r.read.bytes + r.write.bytes) as f64 / (r.wall_ns.max(1) as f64 / 1e9))
        .unwrap_or(0.0)
}
