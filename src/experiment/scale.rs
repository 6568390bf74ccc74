//! Concurrency experiments: queue-depth and thread sweeps on each target,
//! several targets alone and then all at once, a layout against one of its
//! members. The measuring is ordinary jobs run by [`crate::measure::Runner`];
//! [`verdict`] judges the figures.
//!
//! Targets run "together" each on their own threads, started at the same
//! moment; every job's discarded warm-up covers the few milliseconds by
//! which their starts differ, so the measured windows overlap.

use crate::judge::scale as verdict;

use super::{Context, Measured, cpus, until_stopped};
use crate::base::error::{Error, Result};
use crate::base::progress::{Event, Level, Observer, Silent};
use crate::base::signals::Stop;
use crate::measure::{JobSamples, Point, Runner, ScaleSamples};
use crate::plan::scale::*;
use crate::samples::PointKind;
use crate::summary::scale::LayoutUsed;
use crate::summary::{self, Body, Settings};
use crate::targets::{self, Choice, Target};
use verdict::Layout;

/// The layout and copies a btrfs profile or md level stands for.
/// btrfs `single` over several devices allocates whole chunks to one
/// device at a time, so one file sees one device: 1×, as `Single`.
pub fn layout_of(info: &crate::device::LayoutInfo) -> (verdict::Layout, Option<u32>) {
    use verdict::Layout;
    let md = info.by == "md";
    match (info.by.as_str(), info.profile.as_str()) {
        // A ZFS pool of plain vdevs stripes; mirrors copy on each member,
        // several mirror vdevs stripe over them.
        ("zfs", "stripe") | ("lvm" | "dm", "striped") => return (Layout::Raid0, None),
        ("zfs", "mirror") => {
            return match info.groups.filter(|g| *g > 1) {
                Some(g) => (Layout::Raid10, Some(info.members / g)),
                None => (Layout::Raid1, Some(info.members)),
            };
        }
        ("lvm" | "dm", "raid1") => return (Layout::Raid1, Some(info.members)),
        _ => {}
    }
    match info.profile.as_str() {
        "single" | "dup" | "linear" => (Layout::Single, None),
        "raid0" => (Layout::Raid0, None),
        // md raid1 mirrors on every member; btrfs raid1 keeps two copies.
        "raid1" if md => (Layout::Raid1, Some(info.members)),
        "raid1" => (Layout::Raid1, Some(2)),
        "raid1c3" => (Layout::Raid1, Some(3)),
        "raid1c4" => (Layout::Raid1, Some(4)),
        "raid10" => (Layout::Raid10, Some(2)),
        _ => (Layout::Unknown, None),
    }
}

/// A target's tag in job names: nothing when there is one target.
fn tag(i: usize, n: usize, kind: PointKind) -> String {
    match kind {
        PointKind::Member => " · member".into(),
        PointKind::Together => format!(" · t{} together", i + 1),
        _ if n > 1 => format!(" · t{}", i + 1),
        _ => String::new(),
    }
}

/// A layout given on the command line, when iolab cannot read it.
#[derive(Clone, Debug)]
pub struct GivenLayout {
    pub layout: Layout,
    pub members: u32,
    pub copies: Option<u32>,
}

/// `iolab scale` as the user asks for it.
#[derive(Clone, Debug)]
pub struct ScaleRequest {
    pub targets: Vec<Choice>,
    /// One member of the first target's layout (or an identical device), for the layout verdict.
    pub member: Option<Choice>,
    pub layout: Option<GivenLayout>,
    /// With no sweep and no comparison, one target gets [`DEFAULT_QD_SWEEP`].
    pub plan: ScalePlan,
}

impl ScaleRequest {
    pub fn validate(&self) -> Result<()> {
        self.plan.validate(self.targets.len())
    }

    /// The plan as run: the default depth sweep where nothing else was asked.
    pub fn effective_plan(&self) -> ScalePlan {
        let mut plan = self.plan.clone();
        if plan.qd_sweep.is_empty() && plan.threads_sweep.is_empty() && self.targets.len() == 1 && self.member.is_none() {
            plan.qd_sweep = DEFAULT_QD_SWEEP.to_vec();
        }
        plan
    }
}

pub(super) fn run(r: &ScaleRequest, ctx: &Context) -> Result<Measured> {
    let plan = r.effective_plan();
    let open = |c: &Choice| -> Result<Target> {
        let t = targets::open(&c.request(plan.rw.writes(), plan.bs), &ctx.sys, ctx.stop, ctx.observer)?;
        t.check_alignment([plan.bs])?;
        Ok(t)
    };
    let targets = r.targets.iter().map(open).collect::<Result<Vec<_>>>()?;
    let member = r.member.as_ref().map(open).transpose()?;
    let layout = member.as_ref().and_then(|_| layout_used(r.layout.as_ref(), &targets[0]));
    if member.is_some() && layout.is_none() {
        ctx.observer.event(Event::Notice {
            level: Level::Note,
            text: &format!(
                "no multi-device layout found under {}; give --layout and --members for a layout verdict",
                r.targets[0].path.display()
            ),
        });
    }
    let mut samples = ScaleSamples::default();
    let interrupted = until_stopped(|| measure(&targets, member.as_ref(), &plan, ctx, &mut samples))?;
    let (scale, jobs) = summary::scale::scale_report(
        &plan,
        &samples,
        &targets.iter().map(Target::facts).collect::<Vec<_>>(),
        member.as_ref().map(Target::facts),
        layout,
        cpus(),
    );
    let info = targets[0].info.clone();
    drop(targets);
    drop(member);
    Ok(Measured {
        command: "scale",
        target: info,
        settings: Settings::of(&plan.repeat, None, plan.timing),
        body: Body::Scale { scale, jobs },
        interrupted,
        failed: None,
    })
}

/// The layout the verdict assumes: given, else read from sysfs (btrfs
/// profile, md level) under the first target.
fn layout_used(given: Option<&GivenLayout>, first: &Target) -> Option<LayoutUsed> {
    if let Some(g) = given {
        return Some(LayoutUsed {
            layout: g.layout,
            name: format!("{:?}", g.layout).to_lowercase(),
            members: g.members,
            copies: g.copies,
            source: "given".into(),
        });
    }
    let info = first.info.info.as_ref()?.layout.as_ref()?;
    let (layout, copies) = layout_of(info);
    Some(LayoutUsed {
        layout,
        name: format!("{} {}", info.by, info.profile),
        members: info.members,
        copies,
        source: "detected".into(),
    })
}

/// Run the experiments in order: per target its sweeps, then each target
/// alone and all together (several targets), then the member alone (a
/// layout check). A sweep point that is also the comparison job is not
/// run twice. Each point lands in `out` as it finishes.
pub fn measure(targets: &[Target], member: Option<&Target>, plan: &ScalePlan, ctx: &Context, out: &mut ScaleSamples) -> Result<()> {
    plan.validate(targets.len())?;
    let n = targets.len();
    let observer = ctx.observer;
    let one = |out: &mut ScaleSamples, t: &Target, i: usize, kind: PointKind, qd: u32, threads: u32| -> Result<()> {
        let runner = Runner {
            target: t,
            stop: ctx.stop,
            observer,
            sys: ctx.sys.clone(),
        };
        let spec = plan.spec(qd, threads, &tag(i, n, kind));
        let j = runner.run_job(&spec, &plan.repeat)?;
        emit(observer, &spec.name, std::slice::from_ref(&j));
        out.points.push(Point {
            kind,
            targets: vec![i],
            qd,
            threads,
            jobs: vec![j],
        });
        Ok(())
    };
    let has = |out: &ScaleSamples, i: usize, qd: u32, threads: u32| {
        out.points
            .iter()
            .any(|p| p.targets == [i] && p.qd == qd && p.threads == threads && p.kind != PointKind::Member)
    };
    for (i, t) in targets.iter().enumerate() {
        for &qd in &plan.qd_sweep {
            one(out, t, i, PointKind::Depth, qd, plan.threads)?;
        }
        for &th in &plan.threads_sweep {
            if !has(out, i, 1, th) {
                one(out, t, i, PointKind::Threads, 1, th)?;
            }
        }
    }
    if n > 1 || member.is_some() {
        for (i, t) in targets.iter().enumerate() {
            if !has(out, i, plan.qd, plan.threads) {
                one(out, t, i, PointKind::Alone, plan.qd, plan.threads)?;
            }
        }
    }
    if n > 1 {
        let jobs = together(targets, plan, ctx.stop)?;
        emit(observer, &format!("all {n} targets together"), &jobs);
        out.points.push(Point {
            kind: PointKind::Together,
            targets: (0..n).collect(),
            qd: plan.qd,
            threads: plan.threads,
            jobs,
        });
    }
    if let Some(m) = member {
        one(out, m, n, PointKind::Member, plan.qd, plan.threads)?;
    }
    Ok(())
}

/// The same job on every target at once, one thread group per target.
/// Their windows must overlap, so `--runs auto` runs its fewest windows on
/// every target instead of stopping each where it settles.
fn together(targets: &[Target], plan: &ScalePlan, stop: &Stop) -> Result<Vec<JobSamples>> {
    let n = targets.len();
    let repeat = plan.repeat.as_fixed();
    let repeat = &repeat;
    let results: Vec<Result<JobSamples>> = std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .enumerate()
            .map(|(i, t)| {
                s.spawn(move || {
                    let runner = Runner {
                        target: t,
                        stop,
                        observer: &Silent,
                        sys: crate::device::SysRoot::default(),
                    };
                    let r = runner.run_job(&plan.spec(plan.qd, plan.threads, &tag(i, n, PointKind::Together)), repeat);
                    if r.is_err() {
                        // One target failing or interrupted stops the others.
                        stop.request();
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(crate::base::error::failed("a target's thread panicked")))
            })
            .collect()
    });
    let mut jobs = Vec::with_capacity(n);
    let mut first_err = None;
    for r in results {
        match r {
            Ok(j) => jobs.push(j),
            Err(e) => {
                // Prefer a real failure over the interruption it caused.
                if first_err.is_none() || matches!(first_err, Some(Error::Interrupted(_))) {
                    first_err = Some(e);
                }
            }
        }
    }
    match first_err {
        Some(e) => match stop.signal() {
            Some(sig) => Err(Error::Interrupted(sig)),
            None => Err(e),
        },
        None => Ok(jobs),
    }
}

/// Bytes/s and I/Os per second of jobs that ran at the same time: the
/// sums of their per-job medians.
pub fn aggregate(jobs: &[JobSamples]) -> (f64, f64) {
    jobs.iter().fold((0.0, 0.0), |(b, i), j| {
        let runs: Vec<(f64, f64)> = j
            .runs
            .iter()
            .map(|r| {
                let s = r.wall_ns.max(1) as f64 / 1e9;
                ((r.read.bytes + r.write.bytes) as f64 / s, (r.read.ios + r.write.ios) as f64 / s)
            })
            .collect();
        let bw = crate::summary::median(&runs.iter().map(|r| r.0).collect::<Vec<_>>());
        let io = crate::summary::median(&runs.iter().map(|r| r.1).collect::<Vec<_>>());
        (b + bw.max(0.0), i + io.max(0.0))
    })
}

fn emit(observer: &dyn Observer, label: &str, jobs: &[JobSamples]) {
    let (bw, iops) = aggregate(jobs);
    observer.event(Event::PointDone { label, bw_bytes: bw, iops });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::engine::EngineKind;
    use crate::plan::{Limit, Repeat, Rw};
    use std::time::Duration;

    fn plan() -> ScalePlan {
        ScalePlan {
            rw: Rw::Randread,
            bs: 4096,
            mix_read: 70,
            qd_sweep: vec![1, 8, 32],
            threads_sweep: vec![],
            qd: 8,
            threads: 1,
            limit: Limit::Time(Duration::from_secs(1)),
            repeat: Repeat::fixed(1, Duration::ZERO, Duration::ZERO),
            direct: true,
            engine: EngineKind::IoUring,
            timing: Default::default(),
        }
    }

    #[test]
    fn job_names_tell_targets_apart() {
        let p = plan();
        assert_eq!(p.spec(8, 1, &tag(0, 1, PointKind::Depth)).name, "randread 4K Q8T1");
        assert_eq!(p.spec(8, 1, &tag(1, 3, PointKind::Alone)).name, "randread 4K Q8T1 · t2");
        assert_eq!(p.spec(8, 1, &tag(2, 3, PointKind::Together)).name, "randread 4K Q8T1 · t3 together");
        assert_eq!(p.spec(8, 1, &tag(1, 1, PointKind::Member)).name, "randread 4K Q8T1 · member");
    }

    #[test]
    fn bad_plans_are_refused() {
        assert!(plan().validate(0).is_err());
        let mut p = plan();
        p.qd_sweep = vec![0, 1];
        assert!(p.validate(1).is_err());
        assert!(plan().validate(2).is_ok());
    }
}
