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

use super::{Context, Measured, cpus, until_cut};
use crate::base::error::{Result, usage};
use crate::base::progress::{Event, Level};
use crate::io::engine::EngineKind;
use crate::measure::Runner;
use crate::measure::ScanSamples;
use crate::plan::limits;
use crate::plan::scan::*;
use crate::summary::scan::zone_rate;
use crate::summary::{self, Body, Settings};
use crate::targets::{self, Choice};
use std::time::Duration;

/// A surface scan as the user asks for it; the range is resolved against
/// the target once it is open.
#[derive(Clone, Debug)]
pub struct ScanRequest {
    pub target: Choice,
    pub zones: u32,
    pub amount: ZoneAmount,
    pub bs: u64,
    pub qd: u32,
    pub from: Position,
    pub to: Position,
    pub write: bool,
    pub access: u32,
    pub zone_warmup: Duration,
    pub burst: bool,
    pub engine: EngineKind,
}

impl ScanRequest {
    pub fn validate(&self) -> Result<()> {
        limits::check_count("zones", self.zones, limits::MAX_ZONES).map_err(usage)?;
        limits::check_bs(self.bs).map_err(usage)?;
        limits::check_qd(self.qd).map_err(usage)?;
        match self.amount {
            ZoneAmount::Window(0) => Err(usage("the zone window must be greater than 0")),
            ZoneAmount::Time(d) if d.is_zero() => Err(usage("the zone time must be greater than 0")),
            _ => Ok(()),
        }
    }

    /// The plan on a target of `span` bytes.
    pub fn plan(&self, span: u64) -> ScanPlan {
        ScanPlan {
            zones: self.zones,
            amount: self.amount,
            bs: self.bs,
            qd: self.qd,
            from: self.from.resolve(span, self.bs),
            to: self.to.resolve(span, self.bs),
            write: self.write,
            access: self.access,
            zone_warmup: self.zone_warmup,
            burst: self.burst,
            direct: !self.target.buffered,
            engine: self.engine,
        }
    }
}

pub(super) fn run(r: &ScanRequest, ctx: &Context) -> Result<Measured> {
    let target = targets::open(&r.target.request(r.write, r.bs), &ctx.sys, ctx.stop, ctx.observer)?;
    target.check_alignment([r.bs, ACCESS_BS])?;
    let plan = r.plan(target.span());
    plan.validate()?;
    ctx.observer.event(Event::Notice {
        level: Level::Note,
        text: &plan.outline(),
    });
    if plan.access > 0 && !target.direct() {
        ctx.observer.event(Event::Notice {
            level: Level::Note,
            text: "without O_DIRECT the access time includes the page cache's read-ahead",
        });
    }
    let runner = Runner {
        target: &target,
        stop: ctx.stop,
        observer: ctx.observer,
        sys: ctx.sys.clone(),
    };
    let mut samples = ScanSamples::default();
    let zfs = super::zfs::ZfsSide::of(&target, r.target.allow_export, &ctx.sys);
    let cut = until_cut(|| measure(&runner, &plan, &mut samples, zfs.as_ref()))?;
    let (scan, jobs) = summary::scan::scan_report(&plan, &samples, target.facts(), cpus());
    let info = target.info.clone();
    drop(target);
    Ok(Measured {
        command: "scan",
        target: info,
        settings: Settings {
            runs: 1,
            warmup_s: plan.zone_warmup.as_secs_f64(),
            interval_s: 0.0,
            suite: None,
            steady_state: None,
            ..Settings::default()
        },
        body: Body::Scan { scan, jobs },
        interrupted: cut.interrupted,
        failed: cut.failed,
    })
}

/// Run the scan: zones outer to inner (reporting each as it completes),
/// then the access time, then the burst rate; each part lands in `out`
/// as it finishes. On ZFS (`zfs`), each part's reads are kept from the ARC
/// or labelled cached ([`super::zfs`]), once before the zones (they read
/// the whole range between them) and once before each other part.
pub fn measure(runner: &Runner, plan: &ScanPlan, out: &mut ScanSamples, zfs: Option<&super::zfs::ZfsSide>) -> Result<()> {
    plan.validate()?;
    let repeat = plan.repeat();
    let zones = plan.zone_list();
    let of = zones.len() as u32;
    let range = plan.to - plan.from;
    let before = |spec: &crate::plan::JobSpec, span: u64| match zfs {
        Some(z) => z.before(runner.target, spec, &repeat, span, runner.observer),
        None => Ok(None),
    };
    let mut zone_read = None;
    for (k, z) in zones.iter().enumerate() {
        if k == 0 {
            zone_read = before(&plan.zone_spec(z), range)?;
        }
        let mut j = runner.run_job(&plan.zone_spec(z), &repeat)?;
        j.zfs_read = zone_read.clone();
        // A zone is summarised, never merged again: keep its latency's
        // figures, not its histogram (256 KiB each; 10,000 zones kept 5 GiB).
        for r in j.runs.iter_mut().chain(j.warmup.as_mut()) {
            r.compact_latency();
        }
        runner.observer.event(Event::ZoneDone {
            index: z.index,
            of,
            offset: z.offset,
            bw_bytes: zone_rate(&j),
        });
        out.zones.push((*z, j));
    }
    if let Some(spec) = plan.access_spec() {
        let read = before(&spec, spec.span)?;
        let mut j = runner.run_job(&spec, &repeat)?;
        j.zfs_read = read;
        out.access = Some(j);
    }
    if let Some(spec) = plan.burst_spec() {
        let read = before(&spec, spec.span)?;
        let mut j = runner.run_job(&spec, &repeat)?;
        j.zfs_read = read;
        out.burst = Some(j);
    }
    Ok(())
}
