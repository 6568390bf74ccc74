//! `scale`: depth and thread sweeps, several targets alone and together, a
//! layout against its member; one line per finished point on stderr.

use super::bench::{Ui, check_alignment, check_json_path, cpus, deliver, host, open_request, open_target};
use super::*;
use crate::experiment::scale as scaling;
use crate::judge::scale::Layout;
use crate::plan::scale::{DEFAULT_QD_SWEEP, ScalePlan};
use crate::summary::scale::LayoutUsed;

#[derive(Args, Debug)]
pub(super) struct ScaleArgs {
    /// Targets: directories (a test file in each), files, or block devices (read-only unless --rw writes)
    #[arg(required = true, num_args = 1..)]
    targets: Vec<PathBuf>,
    /// Access pattern of every point
    #[arg(long, value_enum, default_value = "randread")]
    rw: Rw,
    /// Block size per I/O
    #[arg(long, default_value = "4k", value_parser = parse_bs)]
    bs: u64,
    /// Queue depths to sweep on each target (default with one target and no --threads-sweep: 1,2,4,8,16,32,64)
    #[arg(long, value_name = "QD,...", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    qd_sweep: Vec<u32>,
    /// Thread counts to sweep on each target, each thread one I/O at a time (ThreadMark's concurrent transfers)
    #[arg(long, value_name = "N,...", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    threads_sweep: Vec<u32>,
    /// Queue depth of the comparison job: each target alone, all together, the --vs member
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=4096))]
    qd: u32,
    /// Threads of the comparison job (and of the depth sweep)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
    /// One member of the (first) target's layout, or a target on an identical device: measured alone with the comparison job, for the layout verdict
    #[arg(long, value_name = "TARGET")]
    vs: Option<PathBuf>,
    /// The first target's layout, when iolab cannot read it (btrfs profiles and md levels are read from sysfs)
    #[arg(long, value_enum, requires = "vs")]
    layout: Option<LayoutArg>,
    /// With --layout: number of member devices
    #[arg(long, requires = "layout", value_parser = clap::value_parser!(u32).range(1..=1024))]
    members: Option<u32>,
    /// With --layout raid1/raid10: copies of each block (default 2)
    #[arg(long, requires = "layout", value_parser = clap::value_parser!(u32).range(1..=1024))]
    copies: Option<u32>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum LayoutArg {
    Single,
    Raid0,
    Raid1,
    Raid10,
}

pub(super) fn scale(a: &ScaleArgs, db: &std::path::Path) -> Result<()> {
    let c = &a.common;
    check_json_path(&c.out)?;
    let stop = Stop::install();
    let ui = Ui::new();
    let sys = SysRoot::default();
    let started_at = units::now_rfc3339();
    let writes = a.rw.writes();
    let max_bs = a.bs;
    let mut targets = Vec::with_capacity(a.targets.len());
    for p in &a.targets {
        let t = open_target(&open_request(p, &c.target, writes, max_bs), &sys, &stop, &ui)?;
        check_alignment(&t, [a.bs].into_iter())?;
        targets.push(t);
    }
    let member = match &a.vs {
        Some(p) => {
            let t = open_target(&open_request(p, &c.target, writes, max_bs), &sys, &stop, &ui)?;
            check_alignment(&t, [a.bs].into_iter())?;
            Some(t)
        }
        None => None,
    };
    let layout = member.as_ref().and_then(|_| layout_used(a, &targets[0]));
    if a.vs.is_some() && layout.is_none() {
        eprintln!(
            "iolab: note: no multi-device layout found under {}; give --layout and --members for a layout verdict",
            a.targets[0].display()
        );
    }
    let qd_sweep = if a.qd_sweep.is_empty() && a.threads_sweep.is_empty() && a.targets.len() == 1 && a.vs.is_none() {
        DEFAULT_QD_SWEEP.to_vec()
    } else {
        a.qd_sweep.clone()
    };
    let plan = ScalePlan {
        rw: a.rw,
        bs: a.bs,
        mix_read: c.mix_read,
        qd_sweep,
        threads_sweep: a.threads_sweep.clone(),
        qd: a.qd,
        threads: a.threads,
        limit: Limit::Time(c.duration),
        repeat: c.repeat(),
        direct: !c.target.buffered,
        engine: c.target.engine,
    };
    let live = LivePoints;
    let samples = scaling::run(&targets, member.as_ref(), &plan, &stop, &live)?;
    let cpus = cpus();
    let (section, jobs) = summary::scale::scale_report(&plan, &samples, &targets, member.as_ref(), layout, cpus);
    ui.finish();
    let report = Report {
        run_id: None,
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "scale".into(),
        started_at,
        host: host(cpus),
        target: targets[0].info.clone(),
        settings: Settings {
            runs: plan.repeat.runs,
            warmup_s: plan.repeat.warmup.as_secs_f64(),
            interval_s: plan.repeat.interval.as_secs_f64(),
            suite: None,
            steady_state: plan.repeat.steady,
        },
        jobs,
        interrupted: samples.interrupted.is_some(),
        scan: None,
        scale: Some(section),
        time: None,
        app: None,
    };
    drop(targets);
    drop(member);
    deliver(report, &c.out, db, samples.interrupted)
}

/// The layout the verdict assumes: given on the command line, else read
/// from sysfs (btrfs profile, md level) under the first target.
fn layout_used(a: &ScaleArgs, first: &target::Target) -> Option<LayoutUsed> {
    if let Some(l) = a.layout {
        let layout = match l {
            LayoutArg::Single => Layout::Single,
            LayoutArg::Raid0 => Layout::Raid0,
            LayoutArg::Raid1 => Layout::Raid1,
            LayoutArg::Raid10 => Layout::Raid10,
        };
        return Some(LayoutUsed {
            layout,
            name: format!("{l:?}").to_lowercase(),
            members: a.members.unwrap_or(2),
            copies: a.copies,
            source: "given".into(),
        });
    }
    let info = first.info.info.as_ref()?.layout.as_ref()?;
    let (layout, copies) = scaling::layout_of(info);
    Some(LayoutUsed {
        layout,
        name: format!("{} {}", info.by, info.profile),
        members: info.members,
        copies,
        source: "detected".into(),
    })
}

/// One line per finished point on stderr.
struct LivePoints;

impl Observer for LivePoints {
    fn event(&self, ev: Event<'_>) {
        if let Event::PointDone { label, bw_bytes, iops } = ev {
            eprintln!("{label:<40} {:>10.1} MB/s {:>10.0} IOPS", bw_bytes / 1e6, iops);
        }
    }
}
