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

impl SweepVerdict {
    /// Withholds the verdict when a figure of the sweep is untrustworthy
    /// (`distrust`: each point's target and its untrustworthy codes): the
    /// kind becomes `Inconclusive`, the knee goes, the gains stay as
    /// measured and the text says why. A verdict already inconclusive
    /// stays as it is.
    pub fn withhold(&mut self, distrust: &Distrust) {
        if self.kind == SweepKind::Inconclusive {
            return;
        }
        let d = self.dimension;
        let figures = match (self.best_x, self.base_x, self.gain) {
            (Some(best), Some(base), Some(g)) => format!("{} {} {}", d.gives(best), fmt_ratio(g), d.label(base)),
            _ => "the sweep was measured".to_string(),
        };
        if let Some(text) = withheld(&figures, distrust) {
            self.kind = SweepKind::Inconclusive;
            self.knee_x = None;
            self.knee_cpu_busy = None;
            self.text = text;
        }
    }
}

impl TogetherVerdict {
    /// Withholds the verdict when a figure under it (a target alone, or
    /// the run together) is untrustworthy, as [`SweepVerdict::withhold`]:
    /// no shared path is named on figures that are not the devices'.
    pub fn withhold(&mut self, distrust: &Distrust) {
        if self.kind == TogetherKind::Inconclusive {
            return;
        }
        let (Some(one), Some(eff), Some(agg)) = (self.vs_one, self.efficiency, self.together) else {
            return;
        };
        let figures = format!(
            "{} devices together give {} one device ({} of the sum of their solo rates), {} together",
            self.n,
            fmt_ratio(one),
            fmt_pct(eff),
            fmt_mbs(agg)
        );
        if let Some(text) = withheld(&figures, distrust) {
            self.kind = TogetherKind::Inconclusive;
            self.ceiling_bps = None;
            self.text = text;
        }
    }
}

impl LayoutVerdict {
    /// Withholds the verdict when the layout's or its member's figure is
    /// untrustworthy, as [`SweepVerdict::withhold`].
    pub fn withhold(&mut self, distrust: &Distrust) {
        if self.kind == LayoutCheck::Inconclusive {
            return;
        }
        // The text's head (what was measured against what was expected)
        // comes before its first ": ", as `layout_verdict` writes it.
        let figures = self.text.split_once(": ").map_or(self.text.as_str(), |(head, _)| head).to_string();
        if let Some(text) = withheld(&figures, distrust) {
            self.kind = LayoutCheck::Inconclusive;
            self.text = text;
        }
    }
}

// ------------------------------------------------------------------- sweeps

/// What a sweep varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Queue depth: I/Os in flight per thread.
    Depth,
    /// Worker threads, each with the same queue depth.
    Threads,
}

impl Dimension {
    /// How a point is named in a sentence: `QD8`, `8 threads`, `1 thread`.
    pub fn label(self, x: u32) -> String {
        match self {
            Dimension::Depth => format!("QD{x}"),
            Dimension::Threads if x == 1 => "1 thread".into(),
            Dimension::Threads => format!("{x} threads"),
        }
    }

    /// "QD32 gives", "8 threads give", "1 thread gives".
    fn gives(self, x: u32) -> String {
        let verb = if self == Dimension::Threads && x != 1 { "give" } else { "gives" };
        format!("{} {verb}", self.label(x))
    }
}

/// One point of a sweep, as measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The queue depth or thread count of this point; 0 is not a point.
    pub x: u32,
    /// Throughput in bytes/s.
    pub bw_bytes: f64,
    /// I/Os per second. Only used when no point has a positive `bw_bytes`
    /// (an import that knows only IOPS); at a fixed block size the two give
    /// the same ratios.
    pub iops: f64,
    /// Mean completion latency (ns); only reported, never judged.
    pub lat_mean_ns: f64,
    /// Busy fraction (0..1) of the CPU available to the point, counting
    /// iolab's threads and the kernel work done for them (io_uring workers,
    /// interrupts): busy CPU time ÷ (wall time × CPUs the point could use).
    /// The system-wide busy fraction is a fair value; a caller that knows
    /// the point ran fewer threads than there are CPUs may divide by
    /// min(threads, CPUs) instead, as the `cpu_bound` warning does, so a
    /// single saturated submitting thread counts. `None` or NaN: unknown.
    pub cpu_busy: Option<f64>,
}

/// What a sweep shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SweepKind {
    /// More depth or threads gives at least [`MIN_GAIN`] times the
    /// throughput of the first point; `knee_x` says where it stops helping
    /// (or `None`: still growing at the end of the sweep).
    Scales,
    /// Nothing in the sweep reaches [`MIN_GAIN`] times the first point: the
    /// device or its bridge serialises commands, or a rate limit caps it.
    DoesNotHelp,
    /// Nothing helps and the last point is at most [`FALL_RATIO`] of the
    /// first: more depth or threads makes it slower (a disk seeking
    /// between streams, contention in the path).
    Hurts,
    /// Throughput stopped growing (at the knee) while the CPU was at least
    /// [`CPU_SATURATED`] busy: the CPU is the limit, not the device.
    CpuBound,
    /// Too little to judge: no usable point, one point, or no throughput
    /// at the first point; or withheld: a point's figure is untrustworthy
    /// (a memory device, a cache: `judge::trust`).
    Inconclusive,
}

/// The verdict of [`sweep_verdict`] and the figures behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SweepVerdict {
    /// What was swept.
    pub dimension: Dimension,
    /// Usable points (distinct x with a finite, non-negative throughput).
    #[schemars(extend("x-unit" = "count"))]
    pub points: usize,
    /// The smallest x: the point everything is compared with.
    #[schemars(extend("x-unit" = "count"))]
    pub base_x: Option<u32>,
    /// The x with the highest throughput (the smallest such x on a tie).
    #[schemars(extend("x-unit" = "count"))]
    pub best_x: Option<u32>,
    /// The largest x.
    #[schemars(extend("x-unit" = "count"))]
    pub top_x: Option<u32>,
    /// Best throughput ÷ throughput at `base_x` (≥ 1).
    #[schemars(extend("x-unit" = "ratio"))]
    pub gain: Option<f64>,
    /// Throughput at `top_x` ÷ throughput at `base_x`: what the deepest
    /// point gives, which is below `gain` when throughput falls past the
    /// best point.
    #[schemars(extend("x-unit" = "ratio"))]
    pub top_gain: Option<f64>,
    /// The knee: the smallest swept x from which no larger swept x gives
    /// [`MIN_GAIN`] (15%) or more above it, i.e. the first point within
    /// noise of everything that follows. With a power-of-two sweep this
    /// means every doubling beyond the knee adds less than 15%, and so does
    /// all of them together (8% per doubling over six doublings is 1.59×,
    /// and no knee is placed before it). It is never beyond `best_x`;
    /// `Some(base_x)` exactly when the kind is `DoesNotHelp` or `Hurts`
    /// (or `CpuBound` from the start). `None` when the sweep never
    /// levelled off (the last point is still 15% above its predecessor,
    /// so a larger x may give more) or there is nothing to judge.
    #[schemars(extend("x-unit" = "count"))]
    pub knee_x: Option<u32>,
    /// CPU busy fraction at the knee, when known.
    #[schemars(extend("x-unit" = "ratio"))]
    pub knee_cpu_busy: Option<f64>,
    /// Mean latency at `top_x` ÷ mean latency at `base_x`. When depth does
    /// not help, latency grows with depth (commands wait in a queue), so
    /// this is about `top_x / base_x`.
    #[schemars(extend("x-unit" = "ratio"))]
    pub latency_ratio: Option<f64>,
    /// The verdict.
    pub kind: SweepKind,
    /// The sentence the user reads.
    pub text: String,
}

/// One usable point: throughput, latency and CPU reduced to what is judged.
struct Pt {
    x: u32,
    t: f64,
    lat: Option<f64>,
    cpu: Option<f64>,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64).filter(|m| m.is_finite())
}

/// The usable points, sorted by x, one per x. Points with x = 0 or a
/// throughput that is NaN, infinite or negative are dropped; repeats of the
/// same x are averaged (throughput, and whatever latency and CPU figures
/// are known).
fn usable_points(points: &[SweepPoint]) -> Vec<Pt> {
    let use_bw = points.iter().any(|p| p.x > 0 && p.bw_bytes.is_finite() && p.bw_bytes > 0.0);
    let value = |p: &SweepPoint| if use_bw { p.bw_bytes } else { p.iops };
    let mut raw: Vec<&SweepPoint> = points
        .iter()
        .filter(|p| p.x > 0 && value(p).is_finite() && value(p) >= 0.0)
        .collect();
    raw.sort_by_key(|p| p.x);
    raw.chunk_by(|a, b| a.x == b.x)
        .filter_map(|same| {
            let t = mean(same.iter().map(|p| value(p)))?;
            Some(Pt {
                x: same[0].x,
                t,
                lat: mean(same.iter().map(|p| p.lat_mean_ns).filter(|l| l.is_finite() && *l > 0.0)),
                cpu: mean(same.iter().filter_map(|p| known_cpu(p.cpu_busy))),
            })
        })
        .collect()
}

/// Judges one sweep of queue depth or threads on one target; see
/// [`SweepKind`] for the kinds and [`SweepVerdict::knee_x`] for the knee.
///
/// The order of the rules: nothing to judge ⇒ `Inconclusive`; the CPU
/// saturated where throughput stopped growing ⇒ `CpuBound` (checked before
/// the device verdicts, so a CPU limit is not blamed on the device or its
/// bridge); no point reaches [`MIN_GAIN`] ⇒ `DoesNotHelp`, or `Hurts` if
/// the last point fell to [`FALL_RATIO`] of the first; otherwise `Scales`.
/// The CPU is read at the knee, not later: if the device levelled off
/// first and only deeper points burned the CPU, the device is the limit.
///
/// Never panics: empty input, zeros, NaN and a single point all give an
/// `Inconclusive` verdict saying why.
pub fn sweep_verdict(dimension: Dimension, points: &[SweepPoint]) -> SweepVerdict {
    let pts = usable_points(points);
    let mut v = SweepVerdict {
        dimension,
        points: pts.len(),
        base_x: pts.first().map(|p| p.x),
        best_x: None,
        top_x: pts.last().map(|p| p.x),
        gain: None,
        top_gain: None,
        knee_x: None,
        knee_cpu_busy: None,
        latency_ratio: None,
        kind: SweepKind::Inconclusive,
        text: String::new(),
    };
    let (Some(base), Some(top)) = (pts.first(), pts.last()) else {
        v.text = "no usable measurement: nothing to judge".into();
        return v;
    };
    // The first point of the highest throughput (`max_by` keeps the last
    // of equals, so compare reversed indices).
    let best_i = (0..pts.len())
        .max_by(|&a, &b| pts[a].t.total_cmp(&pts[b].t).then(b.cmp(&a)))
        .unwrap_or(0);
    let best = &pts[best_i];
    v.best_x = Some(best.x);
    if pts.len() == 1 {
        v.text = format!("only {} was measured: a sweep needs two or more points", dimension.label(base.x));
        return v;
    }
    if best.t <= 0.0 {
        v.text = "no throughput at any point: nothing to judge".into();
        return v;
    }
    let (Some(gain), Some(top_gain)) = (ratio(best.t, base.t), ratio(top.t, base.t)) else {
        v.text = format!("no throughput at {}: nothing to compare with", dimension.label(base.x));
        return v;
    };
    v.gain = Some(gain);
    v.top_gain = Some(top_gain);
    v.latency_ratio = top.lat.zip(base.lat).and_then(|(t, b)| ratio(t, b));

    // Knee: the first point whose successors all stay below MIN_GAIN × it.
    let mut max_after = vec![f64::NEG_INFINITY; pts.len()];
    for i in (0..pts.len() - 1).rev() {
        max_after[i] = max_after[i + 1].max(pts[i + 1].t);
    }
    let knee_i = (0..pts.len())
        .find(|&i| max_after[i] < pts[i].t * MIN_GAIN)
        .unwrap_or(pts.len() - 1);
    let levelled_off = knee_i < pts.len() - 1;
    if levelled_off {
        v.knee_x = Some(pts[knee_i].x);
        v.knee_cpu_busy = pts[knee_i].cpu;
    }

    let d = dimension;
    let knee_cpu = v.knee_cpu_busy.filter(|c| *c >= CPU_SATURATED);
    if let (true, Some(cpu)) = (levelled_off, knee_cpu) {
        v.kind = SweepKind::CpuBound;
        v.text = format!(
            "{} {} {}, but the CPU was {} busy at {}, where throughput stopped growing: the limit is the CPU, not the device",
            d.gives(top.x),
            fmt_ratio(top_gain),
            d.label(base.x),
            fmt_pct(cpu),
            d.label(pts[knee_i].x)
        );
    } else if knee_i == 0 {
        // Same as gain < MIN_GAIN, decided by the comparison the knee uses
        // so that rounding in the division cannot split them.
        let hurts = top_gain <= FALL_RATIO;
        v.kind = if hurts { SweepKind::Hurts } else { SweepKind::DoesNotHelp };
        let latency = match (d, v.latency_ratio) {
            (Dimension::Depth, Some(l)) => format!(" at {} the latency", fmt_ratio(l)),
            _ => String::new(),
        };
        let why = match (d, hurts) {
            (Dimension::Depth, false) => "depth does not help; the device or its bridge serialises commands, or a rate limit caps it",
            (Dimension::Depth, true) => "more depth hurts; the device or its bridge handles a deep queue worse than a shallow one",
            (Dimension::Threads, false) => "more threads do not help; one thread already gets all the device or its path gives",
            (Dimension::Threads, true) => "more threads hurt; the streams compete (a disk seeking between them, or contention in the path)",
        };
        v.text = format!("{} {} {}{latency}: {why}", d.gives(top.x), fmt_ratio(top_gain), d.label(base.x));
    } else {
        v.kind = SweepKind::Scales;
        let works = match d {
            Dimension::Depth => "command queueing works",
            Dimension::Threads => "more threads help",
        };
        let knee = if levelled_off {
            format!("the knee is at {}", d.label(pts[knee_i].x))
        } else {
            let more = match d {
                Dimension::Depth => "a deeper queue",
                Dimension::Threads => "more threads",
            };
            format!("still growing at {}, so {more} may give more", d.label(top.x))
        };
        let fall = match ratio(top.t, best.t) {
            Some(r) if r <= FALL_RATIO => format!(
                "; past {} throughput falls ({} {} its rate)",
                d.label(best.x),
                d.gives(top.x),
                fmt_ratio(r)
            ),
            _ => String::new(),
        };
        v.text = format!("{} {} {}: {works}; {knee}{fall}", d.gives(best.x), fmt_ratio(gain), d.label(base.x));
    }
    v
}

// --------------------------------------------------------- targets together

/// One target's throughput alone and, when known, during the run together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRate {
    /// How the text names it (`sdb`, `/mnt/a`).
    pub name: String,
    /// Bytes/s when it ran alone.
    pub alone_bps: f64,
    /// Bytes/s it got while all targets ran at once; `None` if unknown.
    pub together_bps: Option<f64>,
}

/// What several targets at once show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TogetherKind {
    /// Together they deliver at least [`SCALES_MIN_EFFICIENCY`] of the sum
    /// of their solo rates.
    Scales,
    /// Below that, all of them slowed: something they all share (bus,
    /// bridge, controller) caps the aggregate, and the aggregate measured
    /// is that ceiling. This is the verdict whenever the efficiency is
    /// clearly below 1, whether the ceiling is about one device (seed
    /// `004`'s USB bridge) or more (seed `003`'s SCSI bus, or the shared
    /// bus emulation: 3 × 20.3 MB/s alone, 40.3 together = 66%, 1.99× one).
    SharedPath,
    /// Below that, and the per-target rates show that some targets kept
    /// their solo rate ([`KEPT_MIN`]) while others did not: a path shared
    /// by some of them only.
    Partial,
    /// Below that while the CPU was at least [`CPU_SATURATED`] busy: the CPU,
    /// not a bus, is the likely limit.
    CpuBound,
    /// Nothing to judge: fewer than two targets, or a solo or aggregate
    /// figure missing; or withheld: a figure under it is untrustworthy (a
    /// memory device, a cache: `judge::trust`).
    Inconclusive,
}

/// One target in a [`TogetherVerdict`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetOutcome {
    /// The target.
    pub name: String,
    /// `None` when the solo figure is not a finite, non-negative number.
    #[schemars(extend("x-unit" = "B/s"))]
    pub alone_bps: Option<f64>,
    /// The target's rate while all ran at once.
    #[schemars(extend("x-unit" = "B/s"))]
    pub together_bps: Option<f64>,
    /// `together_bps / alone_bps`: the share of its solo rate it kept.
    #[schemars(extend("x-unit" = "ratio"))]
    pub kept: Option<f64>,
}

/// The verdict of [`together_verdict`] and the figures behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TogetherVerdict {
    /// Number of targets.
    #[schemars(extend("x-unit" = "count"))]
    pub n: usize,
    /// Sum of the solo rates (bytes/s); `None` if one is missing.
    #[schemars(extend("x-unit" = "B/s"))]
    pub sum_alone: Option<f64>,
    /// The aggregate when all ran at once (bytes/s).
    #[schemars(extend("x-unit" = "B/s"))]
    pub together: Option<f64>,
    /// `together / sum_alone`: 1 is perfect scaling.
    #[schemars(extend("x-unit" = "ratio"))]
    pub efficiency: Option<f64>,
    /// `together / mean solo rate`: "N devices together give X× one
    /// device", where one device is the average of them.
    #[schemars(extend("x-unit" = "ratio"))]
    pub vs_one: Option<f64>,
    /// For `SharedPath`: the ceiling the shared path imposes, which is the
    /// aggregate measured (bytes/s).
    #[schemars(extend("x-unit" = "B/s"))]
    pub ceiling_bps: Option<f64>,
    /// CPU busy fraction during the run together, when known.
    #[schemars(extend("x-unit" = "ratio"))]
    pub cpu_busy: Option<f64>,
    /// Each target alone and together.
    pub targets: Vec<TargetOutcome>,
    /// The verdict.
    pub kind: TogetherKind,
    /// The sentence the user reads.
    pub text: String,
}

/// Judges several targets run alone and then all at once with the same
/// job. `together_bps` is the aggregate of the run together; if it is not
/// finite, the sum of the per-target `together_bps` is used when all are
/// known. `cpu_busy` is the busy fraction of the whole machine during the
/// run together.
///
/// Rules, in order: fewer than two targets or a missing figure ⇒
/// `Inconclusive`; efficiency ≥ [`SCALES_MIN_EFFICIENCY`] ⇒ `Scales`; the
/// CPU at least [`CPU_SATURATED`] busy ⇒ `CpuBound` (named before any
/// shared path, so a CPU-bound run is not blamed on the bus); some targets
/// kept their solo rate and others did not ⇒ `Partial`; else
/// `SharedPath`, with the aggregate as the ceiling.
///
/// The text says "devices" because that is the question the user asks,
/// even when the targets are directories on different filesystems.
pub fn together_verdict(targets: &[TargetRate], together_bps: f64, cpu_busy: Option<f64>) -> TogetherVerdict {
    let n = targets.len();
    let cpu = known_cpu(cpu_busy);
    let fine = |v: f64| v.is_finite() && v >= 0.0;
    let outcomes: Vec<TargetOutcome> = targets
        .iter()
        .map(|t| {
            let together = t.together_bps.filter(|v| fine(*v));
            TargetOutcome {
                name: t.name.clone(),
                alone_bps: Some(t.alone_bps).filter(|v| fine(*v)),
                together_bps: together,
                kept: together.and_then(|tg| ratio(tg, t.alone_bps)),
            }
        })
        .collect();
    let missing_alone: Vec<&str> = targets.iter().filter(|t| !fine(t.alone_bps)).map(|t| t.name.as_str()).collect();
    let sum_alone = (n > 0 && missing_alone.is_empty())
        .then(|| targets.iter().map(|t| t.alone_bps).sum::<f64>())
        .filter(|s| s.is_finite());
    let together = if fine(together_bps) {
        Some(together_bps)
    } else if n > 0 && outcomes.iter().all(|o| o.together_bps.is_some()) {
        Some(outcomes.iter().filter_map(|o| o.together_bps).sum::<f64>()).filter(|s| s.is_finite())
    } else {
        None
    };
    let efficiency = together.zip(sum_alone).and_then(|(t, s)| ratio(t, s));
    let vs_one = together.zip(sum_alone).and_then(|(t, s)| ratio(t, s / n as f64));
    let mut v = TogetherVerdict {
        n,
        sum_alone,
        together,
        efficiency,
        vs_one,
        ceiling_bps: None,
        cpu_busy: cpu,
        targets: outcomes,
        kind: TogetherKind::Inconclusive,
        text: String::new(),
    };
    let inconclusive = if n == 0 {
        Some("no targets: nothing to judge".to_string())
    } else if !missing_alone.is_empty() {
        Some(format!(
            "no solo figure for {}: cannot judge the run together",
            missing_alone.join(", ")
        ))
    } else if together.is_none() {
        Some("no figure for the run together: nothing to judge".to_string())
    } else if sum_alone.is_none_or(|s| s <= 0.0) {
        Some("the solo runs measured no throughput: nothing to compare with".to_string())
    } else if n == 1 {
        Some("one target: run two or more to see whether they scale together".to_string())
    } else {
        None
    };
    if let Some(text) = inconclusive {
        v.text = text;
        return v;
    }
    let (Some(eff), Some(one), Some(agg)) = (efficiency, vs_one, together) else {
        v.text = "no figure for the run together: nothing to judge".into();
        return v;
    };
    let head = format!(
        "{n} devices together give {} one device ({} of the sum of their solo rates)",
        fmt_ratio(one),
        fmt_pct(eff)
    );
    if eff >= SCALES_MIN_EFFICIENCY {
        v.kind = TogetherKind::Scales;
        let mut text = format!("{head}: they scale");
        if eff >= MIN_GAIN {
            text.push_str("; more than the sum: the solo runs were held back by something else, or a cache helped");
        }
        if let Some(c) = cpu.filter(|c| *c >= CPU_SATURATED) {
            text.push_str(&format!(
                "; the CPU was {} busy, so more devices would be limited by it",
                fmt_pct(c)
            ));
        }
        v.text = text;
        return v;
    }
    if let Some(c) = cpu.filter(|c| *c >= CPU_SATURATED) {
        v.kind = TogetherKind::CpuBound;
        v.text = format!(
            "{head}, but the CPU was {} busy: the CPU, not a shared bus or controller, is the likely limit",
            fmt_pct(c)
        );
        return v;
    }
    let all_known = v.targets.iter().all(|o| o.kept.is_some());
    let (kept, slowed): (Vec<&TargetOutcome>, Vec<&TargetOutcome>) = v.targets.iter().partition(|o| o.kept.is_some_and(|k| k >= KEPT_MIN));
    if all_known && !kept.is_empty() && !slowed.is_empty() {
        v.kind = TogetherKind::Partial;
        let names = |os: &[&TargetOutcome]| os.iter().map(|o| o.name.as_str()).collect::<Vec<_>>().join(", ");
        let shares = slowed.iter().map(|o| fmt_pct(o.kept.unwrap_or(0.0))).collect::<Vec<_>>().join(", ");
        // One slowed target shares something with a target outside this
        // run (or the system disk); several slowed ones share it together.
        let (their, why) = if slowed.len() == 1 {
            ("its", "something on its path (bus, bridge, controller) is shared")
        } else {
            ("their", "they share a path (bus, bridge, controller) the others do not use")
        };
        let kept_their = if kept.len() == 1 { "its own" } else { "theirs" };
        v.text = format!(
            "{head}: {} fell to {shares} of {their} solo rate while {} kept {kept_their}; {why}",
            names(&slowed),
            names(&kept)
        );
        return v;
    }
    v.kind = TogetherKind::SharedPath;
    v.ceiling_bps = Some(agg);
    v.text = if one <= ONE_DEVICE_MAX {
        format!(
            "{head}: a shared path (bus, bridge, controller) limits them to about one device's rate, {} together",
            fmt_mbs(agg)
        )
    } else {
        format!(
            "{head}: a shared path (bus, bridge, controller) caps them at about {} together",
            fmt_mbs(agg)
        )
    };
    v
}

// ------------------------------------------------------------------ layouts

/// How a target spreads its data over its members.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// One device: 1× itself.
    Single,
    /// Striped, one copy (btrfs raid0, md raid0, a ZFS pool of plain vdevs).
    Raid0,
    /// Mirrored, not striped: each block on `copies` members (md raid1 and
    /// ZFS mirrors: every member; btrfs raid1: 2, raid1c3: 3, raid1c4: 4).
    Raid1,
    /// Striped over mirrors: each block on `copies` members (2 for btrfs
    /// raid10 and md raid10 near-2), the stripe over members ÷ copies.
    Raid10,
    /// Anything else (raid5/6, raidz, a layout that could not be read): no
    /// expectation; the multiple is reported without a judgement.
    Unknown,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Single => "the single device",
            Layout::Raid0 => "raid0",
            Layout::Raid1 => "raid1",
            Layout::Raid10 => "raid10",
            Layout::Unknown => "the layout",
        }
    }
}

/// A layout's run and one member's run with the same job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayoutRun {
    pub layout: Layout,
    /// How the text names the layout (`btrfs raid0`); empty: the kind's name.
    pub name: String,
    /// Number of member devices.
    pub members: u32,
    /// Copies of each block for `Raid1` and `Raid10`; `None`:
    /// [`DEFAULT_COPIES`]. Clamped to 1..=members.
    pub copies: Option<u32>,
    /// The job's access pattern.
    pub rw: Rw,
    /// I/Os in flight (queue depth × threads); 0 is taken as 1.
    pub in_flight: u32,
    /// The layout's throughput (bytes/s).
    pub layout_bps: f64,
    /// One member's throughput alone with the same job (bytes/s).
    pub member_bps: f64,
    /// CPU busy fraction during the layout's run, when known.
    pub cpu_busy: Option<f64>,
}

/// How a layout compares with its textbook multiple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LayoutCheck {
    /// Within [`LAYOUT_TOLERANCE`] of the expected range.
    AsExpected,
    /// Below it: the members share a path, or one member is slower.
    BelowExpected,
    /// Below it while the CPU was at least [`CPU_SATURATED`] busy.
    CpuBound,
    /// Above it: a cache answered, or the member's figure is low.
    AboveExpected,
    /// No expectation (an unknown layout) or a figure missing; or
    /// withheld: a figure under it is untrustworthy (`judge::trust`).
    Inconclusive,
}

/// The verdict of [`layout_verdict`] and the figures behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LayoutVerdict {
    /// The layout judged.
    pub layout: Layout,
    /// Member devices.
    #[schemars(extend("x-unit" = "count"))]
    pub members: u32,
    /// The expected multiple of one member's rate, low and high end
    /// (see [`expected_multiple`]); `None` for an unknown layout.
    #[schemars(extend("x-unit" = "ratio"))]
    pub expected_low: Option<f64>,
    /// The high end of the expected multiple.
    #[schemars(extend("x-unit" = "ratio"))]
    pub expected_high: Option<f64>,
    /// Layout ÷ member, measured.
    #[schemars(extend("x-unit" = "ratio"))]
    pub measured: Option<f64>,
    /// The verdict.
    pub kind: LayoutCheck,
    /// The sentence the user reads.
    pub text: String,
}

/// How many of `w` equally likely columns `k` independent random I/Os keep
/// busy on average: w · (1 − (1 − 1/w)^k), the expected number of
/// non-empty bins. Four random I/Os over three members keep 2.41 of them
/// busy on average, not 3: often two I/Os land on the same member.
fn busy_columns(w: f64, k: u32) -> f64 {
    if w <= 1.0 {
        return w.max(0.0);
    }
    let k = k.max(1);
    let busy = w * (1.0 - (1.0 - 1.0 / w).powi(k.min(i32::MAX as u32) as i32));
    // Exactly 1 for one I/O, and never more than the columns or the I/Os,
    // whatever the rounding (3 · (1 − 2/3) is 0.999… in binary).
    busy.clamp(1.0, w.min(k as f64))
}

/// The textbook throughput of a layout as a multiple of one member's,
/// `(low, high)`, for `members` devices (`copies` as in [`LayoutRun`])
/// with `in_flight` I/Os of pattern `rw`. `None` for `Unknown` or no
/// members.
///
/// With N members, c copies, stripe width w = N / c and k in flight:
///
/// - **Single**: 1×.
/// - **Raid0** (w = N): sequential ≈ N× (a large request spans the whole
///   stripe, 1 MiB over btrfs's 64 KiB stripe elements, so every member
///   works even at QD1); random between the members k random I/Os keep
///   busy on average, w·(1 − (1 − 1/w)^k), and min(N, k). Reads and writes
///   alike.
/// - **Raid1**: writes 1× (every copy is written, the slowest member sets
///   the pace) up to min(N / c, k)× (btrfs raid1 over three devices keeps
///   two copies, and parallel writers may fill different chunk pairs).
///   Reads from 1× (a single reader is served by one mirror: btrfs picks
///   the mirror by process id, md sends a sequential stream to one disk)
///   to min(N, k)× (parallel readers spread over all mirrors).
/// - **Raid10**: writes like raid0 over w = N / c columns (each write goes
///   to all copies of its column), so sequential ≈ N/2× for two copies.
///   Reads from that (one mirror per column) to min(N, w·k)× sequential,
///   min(N, k)× random (every mirror busy).
///
/// Mixed patterns take the lower low and the higher high of reads and
/// writes: the mix lies somewhere between.
pub fn expected_multiple(layout: Layout, members: u32, copies: Option<u32>, rw: Rw, in_flight: u32) -> Option<(f64, f64)> {
    if members == 0 {
        return None;
    }
    let n = members as f64;
    let k = in_flight.max(1);
    let kf = k as f64;
    let c = copies.unwrap_or(DEFAULT_COPIES).clamp(1, members) as f64;
    let random = rw.is_random();
    // Striped over w columns, one copy of each written.
    let stripe = |w: f64| -> (f64, f64) { if random { (busy_columns(w, k), w.min(kf)) } else { (w, w) } };
    let range = |reads: bool| -> Option<(f64, f64)> {
        Some(match (layout, reads) {
            (Layout::Single, _) => (1.0, 1.0),
            (Layout::Raid0, _) => stripe(n),
            (Layout::Raid1, false) => (1.0, (n / c).min(kf).max(1.0)),
            (Layout::Raid1, true) => (1.0, n.min(kf)),
            (Layout::Raid10, false) => stripe(n / c),
            (Layout::Raid10, true) => {
                let (low, _) = stripe(n / c);
                let high = if random { n.min(kf) } else { n.min(n / c * kf) };
                (low, high.max(low))
            }
            (Layout::Unknown, _) => return None,
        })
    };
    let (r, w) = (rw.reads(), rw.writes());
    match (r.then(|| range(true)).flatten(), w.then(|| range(false)).flatten()) {
        (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
        (Some(a), None) | (None, Some(a)) => Some(a),
        (None, None) => None,
    }
}

/// Judges a layout against one member: the measured multiple against
/// [`expected_multiple`], with [`LAYOUT_TOLERANCE`] either side. Below the
/// range with the CPU at least [`CPU_SATURATED`] busy is `CpuBound`, so a
/// CPU limit is not blamed on the members' path.
pub fn layout_verdict(run: &LayoutRun) -> LayoutVerdict {
    let expected = expected_multiple(run.layout, run.members, run.copies, run.rw, run.in_flight);
    let measured = if run.layout_bps.is_finite() && run.layout_bps >= 0.0 {
        ratio(run.layout_bps, run.member_bps)
    } else {
        None
    };
    let mut v = LayoutVerdict {
        layout: run.layout,
        members: run.members,
        expected_low: expected.map(|e| e.0),
        expected_high: expected.map(|e| e.1),
        measured,
        kind: LayoutCheck::Inconclusive,
        text: String::new(),
    };
    let name = if run.name.trim().is_empty() {
        run.layout.name()
    } else {
        run.name.trim()
    };
    let subject = if run.layout == Layout::Single {
        name.to_string()
    } else if run.members == 1 {
        format!("{name} over 1 device")
    } else {
        format!("{name} over {} devices", run.members)
    };
    let verb = match (run.rw.reads(), run.rw.writes()) {
        (true, false) => "reads",
        (false, true) => "writes",
        _ => "reads and writes",
    };
    let Some(m) = measured else {
        v.text = format!("{subject}: no usable figure for the layout or its member, nothing to compare");
        return v;
    };
    let random = if run.rw.is_random() {
        format!("random, {} in flight; ", run.in_flight.max(1))
    } else {
        String::new()
    };
    let Some((low, high)) = expected else {
        let why = if run.members == 0 {
            "no members given"
        } else {
            "no expectation for this layout"
        };
        v.text = format!("{subject} {verb} {} one member ({random}{why})", fmt_ratio(m));
        return v;
    };
    let expect = if high - low < 0.05 * high {
        format!("≈{}×", fmt_multiple(high))
    } else {
        format!("{}–{}×", fmt_multiple(low), fmt_multiple(high))
    };
    let head = format!("{subject} {verb} {} one member ({random}expected {expect})", fmt_ratio(m));
    let cpu = known_cpu(run.cpu_busy).filter(|c| *c >= CPU_SATURATED);
    if m < low * (1.0 - LAYOUT_TOLERANCE) {
        if let Some(c) = cpu {
            v.kind = LayoutCheck::CpuBound;
            v.text = format!(
                "{head}: the layout falls short, and the CPU was {} busy: the CPU is the likely limit, not the members",
                fmt_pct(c)
            );
        } else {
            v.kind = LayoutCheck::BelowExpected;
            v.text = format!(
                "{head}: the layout does not deliver; its members share a path (bus, bridge, controller), or one member is slower than the one measured"
            );
        }
    } else if m > high * (1.0 + LAYOUT_TOLERANCE) {
        v.kind = LayoutCheck::AboveExpected;
        v.text = format!("{head}: more than the layout should give; a cache may have answered, or the member's own figure is low");
    } else {
        v.kind = LayoutCheck::AsExpected;
        v.text = format!("{head}: the layout delivers");
    }
    v
}

#[cfg(test)]
#[path = "scale_tests.rs"]
mod tests;
