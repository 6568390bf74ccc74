//! `iolab scale`'s figures: one row per sweep or comparison point, and the
//! verdicts of [`crate::judge::scale`] on them.

use super::{JobReport, job_report};
use crate::judge::scale::{
    Dimension, Layout, LayoutRun, LayoutVerdict, SweepPoint, SweepVerdict, TargetRate, TogetherVerdict, layout_verdict, sweep_verdict,
    together_verdict,
};
use crate::judge::trust::{Distrust, untrusted_warnings};
use crate::measure::ScaleSamples;
use crate::plan::scale::ScalePlan;
use crate::samples::PointKind;
use crate::targets::TargetFacts;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ScaleReport {
    /// The access pattern of every point.
    pub rw: String,
    /// Block size: bytes per I/O.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bs: u64,
    /// The targets, in the order of the `tN` tags in job names.
    pub targets: Vec<String>,
    /// The layout's member measured alone (`--vs`).
    pub member: Option<String>,
    /// The layout the verdict assumed, and where it came from.
    pub layout: Option<LayoutUsed>,
    /// Every point measured, in order.
    pub points: Vec<ScalePoint>,
    /// What the sweeps and comparisons say.
    pub verdicts: Vec<ScaleVerdict>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct LayoutUsed {
    /// The layout.
    pub layout: Layout,
    /// As the user reads it: `btrfs raid0`.
    pub name: String,
    /// Member devices.
    #[schemars(extend("x-unit" = "count"))]
    pub members: u32,
    /// Copies of each block the layout keeps, when known.
    #[schemars(extend("x-unit" = "count"))]
    pub copies: Option<u32>,
    /// `detected` (sysfs) or `given` (command line).
    pub source: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ScalePoint {
    /// What the point measured.
    pub kind: PointKind,
    /// The targets that ran at once.
    pub targets: Vec<String>,
    /// Queue depth per thread.
    #[schemars(extend("x-unit" = "count"))]
    pub qd: u32,
    /// Threads per target.
    #[schemars(extend("x-unit" = "count"))]
    pub threads: u32,
    /// Sum over the targets that ran at once (medians over runs).
    #[schemars(extend("x-unit" = "B/s"))]
    pub bw_bytes: f64,
    /// I/Os per second, summed over the targets.
    #[schemars(extend("x-unit" = "IOPS"))]
    pub iops: f64,
    /// Mean completion latency over all their I/Os.
    #[schemars(extend("x-unit" = "ns"))]
    pub lat_ns: f64,
    /// iolab's CPU time (all threads) during the point, as a fraction of
    /// the CPUs its worker threads could use (1.0: CPU-bound).
    #[schemars(extend("x-unit" = "ratio"))]
    pub cpu_busy: f64,
    /// Each target's own bytes/s (one entry unless `together`).
    #[schemars(extend("x-unit" = "B/s"))]
    pub target_bw_bytes: Vec<f64>,
}

/// One verdict, tagged with what it judges.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScaleVerdict {
    Depth {
        /// The target swept.
        target: String,
        /// What the sweep says.
        verdict: SweepVerdict,
    },
    Threads {
        /// The target swept.
        target: String,
        /// What the sweep says.
        verdict: SweepVerdict,
    },
    Together {
        /// What running them together says.
        verdict: TogetherVerdict,
    },
    Layout {
        /// The layout measured.
        target: String,
        /// One of its members, measured alone (`--vs`).
        member: String,
        /// What the layout gives against its member.
        verdict: LayoutVerdict,
    },
}

impl ScaleVerdict {
    /// The sentence the user reads.
    pub fn text(&self) -> &str {
        match self {
            ScaleVerdict::Depth { verdict, .. } | ScaleVerdict::Threads { verdict, .. } => &verdict.text,
            ScaleVerdict::Together { verdict } => &verdict.text,
            ScaleVerdict::Layout { verdict, .. } => &verdict.text,
        }
    }
    pub fn subject(&self) -> &str {
        match self {
            ScaleVerdict::Depth { target, .. } | ScaleVerdict::Threads { target, .. } | ScaleVerdict::Layout { target, .. } => target,
            ScaleVerdict::Together { .. } => "together",
        }
    }
}

/// The figures, the verdicts, and every job as a [`JobReport`] (so each
/// point has its device cross-check, CPU cost and warnings, and runs of
/// `scale` compare with each other job by job). A verdict whose points
/// carry a warning that makes a figure untrustworthy (a memory device, a
/// cache: [`crate::judge::trust`]) is withheld, its figures kept.
pub fn scale_report(
    plan: &ScalePlan,
    s: &ScaleSamples,
    targets: &[TargetFacts],
    member: Option<TargetFacts>,
    layout: Option<LayoutUsed>,
    cpus: usize,
) -> (ScaleReport, Vec<JobReport>) {
    let target_of = |i: usize| -> Option<TargetFacts> { targets.get(i).copied().or(member) };
    let name_of = |i: usize| -> String { target_of(i).map(|t| t.info.path.clone()).unwrap_or_default() };
    let mut jobs = Vec::new();
    let mut points = Vec::new();
    // Per point: whose figures are untrustworthy, and why (`judge::trust`).
    let mut distrust: Vec<Distrust> = Vec::new();
    for p in &s.points {
        let reports: Vec<JobReport> = p
            .jobs
            .iter()
            .zip(&p.targets)
            .map(|(j, &i)| job_report(j, target_of(i).expect("a point's target exists"), cpus))
            .collect();
        let mut untrusted = Distrust::new();
        for (r, &i) in reports.iter().zip(&p.targets) {
            untrusted.add(&name_of(i), &untrusted_warnings(&r.warnings));
        }
        distrust.push(untrusted);
        points.push(point_of(p, &reports, p.targets.iter().map(|&i| name_of(i)).collect(), cpus));
        jobs.extend(reports);
    }

    let verdicts = verdicts(
        plan,
        &points,
        &distrust,
        &(0..targets.len()).map(name_of).collect::<Vec<_>>(),
        layout.as_ref(),
    );
    let report = ScaleReport {
        rw: plan.rw.as_str().into(),
        bs: plan.bs,
        targets: targets.iter().map(|t| t.info.path.clone()).collect(),
        member: member.map(|m| m.info.path.clone()),
        layout,
        points,
        verdicts,
    };
    (report, jobs)
}

/// One point's figures from its jobs' reports (`names`: its targets').
fn point_of(p: &crate::measure::Point, reports: &[JobReport], names: Vec<String>, cpus: usize) -> ScalePoint {
    let mut bw = Vec::new();
    let (mut iops, mut lat_sum, mut ios) = (0.0, 0.0, 0u64);
    for r in reports {
        let mut b = 0.0;
        for d in [&r.read, &r.write].into_iter().flatten() {
            b += d.bw_bytes;
            iops += d.iops;
            if let Some(l) = &d.lat_ns {
                lat_sum += l.mean * d.ios as f64;
                ios += d.ios;
            }
        }
        bw.push(b);
    }
    ScalePoint {
        kind: p.kind,
        targets: names,
        qd: p.qd,
        threads: p.threads,
        bw_bytes: bw.iter().sum(),
        iops,
        lat_ns: if ios > 0 { lat_sum / ios as f64 } else { 0.0 },
        // iolab's own CPU (every thread, io_uring workers included) over
        // the CPUs its threads could use: other programs' load must not
        // make a device-bound point look CPU-bound.
        cpu_busy: {
            let workers: u32 = reports.iter().map(|r| r.workers).sum();
            let usable = (workers.max(1) as f64).min(cpus.max(1) as f64);
            reports.iter().map(|r| r.cpu.busy_cpus() / usable).fold(0.0, f64::max)
        },
        target_bw_bytes: bw,
    }
}

/// The verdicts on a run's points: each target's depth and threads
/// sweeps, the targets together, the layout against its member; each
/// withheld where a point under it is untrustworthy (`distrust`, per
/// point). `names`: the targets', in order.
fn verdicts(
    plan: &ScalePlan,
    points: &[ScalePoint],
    distrust: &[Distrust],
    names: &[String],
    layout: Option<&LayoutUsed>,
) -> Vec<ScaleVerdict> {
    let mut verdicts = Vec::new();
    // The untrustworthy figures of the points `at` (indices into `points`).
    let under = |at: &[usize]| -> Distrust {
        let mut d = Distrust::new();
        for &k in at {
            for (whose, codes) in &distrust[k].figures {
                d.add(whose, codes);
            }
        }
        d
    };
    // A sweep's points on target i, and the indices of the points they come from.
    let sweep_of = |name: &String, pick: &dyn Fn(&ScalePoint) -> Option<u32>| -> (Vec<SweepPoint>, Vec<usize>) {
        let mut v: Vec<(SweepPoint, usize)> = points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.targets.as_slice() == std::slice::from_ref(name) && p.kind != PointKind::Member)
            .filter_map(|(k, p)| {
                pick(p).map(|x| {
                    (
                        SweepPoint {
                            x,
                            bw_bytes: p.bw_bytes,
                            iops: p.iops,
                            lat_mean_ns: p.lat_ns,
                            cpu_busy: Some(p.cpu_busy),
                        },
                        k,
                    )
                })
            })
            .collect();
        v.sort_by_key(|(p, _)| p.x);
        v.dedup_by_key(|(p, _)| p.x);
        v.into_iter().unzip()
    };
    for name in names {
        let (depth, at) = sweep_of(name, &|p| {
            (p.kind == PointKind::Depth && p.threads == plan.threads && plan.qd_sweep.contains(&p.qd)).then_some(p.qd)
        });
        if depth.len() >= 2 {
            let mut verdict = sweep_verdict(Dimension::Depth, &depth);
            verdict.withhold(&under(&at));
            verdicts.push(ScaleVerdict::Depth {
                target: name.clone(),
                verdict,
            });
        }
        let (threads, at) = sweep_of(name, &|p| {
            (p.qd == 1 && plan.threads_sweep.contains(&p.threads) && matches!(p.kind, PointKind::Depth | PointKind::Threads))
                .then_some(p.threads)
        });
        if threads.len() >= 2 {
            let mut verdict = sweep_verdict(Dimension::Threads, &threads);
            verdict.withhold(&under(&at));
            verdicts.push(ScaleVerdict::Threads {
                target: name.clone(),
                verdict,
            });
        }
    }
    // The comparison job on target i alone: a sweep point or an alone point.
    let alone = |i: usize| -> Option<usize> {
        points.iter().position(|p| {
            p.targets.as_slice() == std::slice::from_ref(&names[i])
                && p.kind != PointKind::Member
                && p.qd == plan.qd
                && p.threads == plan.threads
        })
    };
    if let Some(ti) = points.iter().position(|p| p.kind == PointKind::Together) {
        let t = &points[ti];
        let rates: Vec<TargetRate> = (0..names.len())
            .map(|i| TargetRate {
                name: names[i].clone(),
                alone_bps: alone(i).map_or(f64::NAN, |k| points[k].bw_bytes),
                together_bps: t.target_bw_bytes.get(i).copied(),
            })
            .collect();
        let mut verdict = together_verdict(&rates, t.bw_bytes, Some(t.cpu_busy));
        let at: Vec<usize> = (0..names.len()).filter_map(alone).chain([ti]).collect();
        verdict.withhold(&under(&at));
        verdicts.push(ScaleVerdict::Together { verdict });
    }
    if let (Some(l), Some(mi), Some(li)) = (layout, points.iter().position(|p| p.kind == PointKind::Member), alone(0)) {
        let (m, lay) = (&points[mi], &points[li]);
        let mut verdict = layout_verdict(&LayoutRun {
            layout: l.layout,
            name: l.name.clone(),
            members: l.members,
            copies: l.copies,
            rw: plan.rw,
            in_flight: plan.qd * plan.threads,
            layout_bps: lay.bw_bytes,
            member_bps: m.bw_bytes,
            cpu_busy: Some(lay.cpu_busy),
        });
        verdict.withhold(&under(&[li, mi]));
        verdicts.push(ScaleVerdict::Layout {
            target: names[0].clone(),
            member: m.targets[0].clone(),
            verdict,
        });
    }
    verdicts
}
