//! `scan`: the surface scan, with the curve drawn on stderr as zones finish.

use super::bench::{Ui, check_alignment, check_json_path, cpus, deliver, host, open_request, open_target};
use super::*;
use crate::experiment::scan as scanning;
use crate::plan::scan::{Position, ScanPlan, ZoneAmount};

#[derive(Args, Debug)]
pub(super) struct ScanArgs {
    /// A block device (read-only by default: safe even while mounted), a file, or a directory (a test file is made there)
    target: PathBuf,
    /// Zones from the first byte to the last
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    zones: u32,
    /// Bytes measured at the start of each zone
    #[arg(long, default_value = "64MiB", value_parser = parse_nonzero_size)]
    window: u64,
    /// Measure each zone for this long instead of --window bytes
    #[arg(long, value_parser = parse_nonzero_duration, conflicts_with = "window")]
    zone_time: Option<Duration>,
    /// Random 4K reads at QD1 over the range for the access time (0 to skip)
    #[arg(long, default_value_t = 1000)]
    access: u32,
    /// Transfer size of the zone reads (or writes)
    #[arg(long, default_value = "1M", value_parser = parse_bs)]
    bs: u64,
    /// Transfers in flight during the zone reads
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    qd: u32,
    /// Start of the scanned range: a percentage (10%) or an offset (100GiB)
    #[arg(long, default_value = "0%", value_parser = Position::parse)]
    from: Position,
    /// End of the scanned range: a percentage (50%) or an offset
    #[arg(long, default_value = "100%", value_parser = Position::parse)]
    to: Position,
    /// Discarded lead-in at each zone (the seek there, a throttle's banked credit)
    #[arg(long, default_value = "200ms", value_parser = units::parse_duration)]
    zone_warmup: Duration,
    /// Skip the burst-rate measurement
    #[arg(long)]
    no_burst: bool,
    /// Write the zones instead of reading them: destroys the data (needs --allow-destroy on a file or device)
    #[arg(long)]
    write: bool,
    #[command(flatten)]
    target_args: TargetArgs,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn scan(a: &ScanArgs, db: &std::path::Path) -> Result<()> {
    let stop = Stop::install();
    let ui = Ui::new();
    check_json_path(&a.out)?;
    let req = open_request(&a.target, &a.target_args, a.write, a.bs);
    let sys = SysRoot::default();
    let started_at = units::now_rfc3339();
    let target = open_target(&req, &sys, &stop, &ui)?;
    check_alignment(&target, [a.bs, crate::plan::scan::ACCESS_BS].into_iter())?;
    let span = target.span();
    let plan = ScanPlan {
        zones: a.zones,
        amount: match a.zone_time {
            Some(d) => ZoneAmount::Time(d),
            None => ZoneAmount::Window(a.window),
        },
        bs: a.bs,
        qd: a.qd,
        from: a.from.resolve(span, a.bs),
        to: a.to.resolve(span, a.bs),
        write: a.write,
        access: a.access,
        zone_warmup: a.zone_warmup,
        burst: !a.no_burst,
        direct: !a.target_args.buffered,
        engine: a.target_args.engine,
    };
    plan.validate()?;
    if a.access > 0 && !target.direct() {
        eprintln!("iolab: note: without O_DIRECT the access time includes the page cache's read-ahead");
    }
    let live = LiveCurve::default();
    let runner = Runner {
        target: &target,
        stop: &stop,
        observer: &live,
        sys,
    };
    let samples = scanning::run(&runner, &plan)?;
    let cpus = cpus();
    let (section, jobs) = summary::scan::scan_report(&plan, &samples, &target, cpus);
    let report = Report {
        run_id: None,
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: "scan".into(),
        started_at,
        host: host(cpus),
        target: target.info.clone(),
        settings: Settings {
            runs: 1,
            warmup_s: plan.zone_warmup.as_secs_f64(),
            interval_s: 0.0,
            suite: None,
            steady_state: None,
        },
        jobs,
        interrupted: samples.interrupted.is_some(),
        scan: Some(section),
        scale: None,
        time: None,
        app: None,
    };
    ui.finish();
    drop(target);
    deliver(report, &a.out, db, samples.interrupted)
}

/// Prints one line per finished zone on stderr: the curve, turned sideways,
/// growing as the scan moves inward. The bars are scaled to the first zone
/// (the outer zone is usually the fastest) so every line uses the same scale.
#[derive(Default)]
struct LiveCurve {
    full: Cell<f64>,
}

impl Observer for LiveCurve {
    fn event(&self, ev: Event<'_>) {
        if let Event::ZoneDone {
            index,
            of,
            offset,
            bw_bytes,
        } = ev
        {
            if self.full.get() <= 0.0 {
                self.full.set(bw_bytes * 1.25);
            }
            eprintln!("{}", render::chart::zone_line(index, of, offset, bw_bytes, self.full.get()));
        }
    }
}
