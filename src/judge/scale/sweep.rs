//! [`sweep_verdict`]: whether more queue depth or threads give more.

use super::*;

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
