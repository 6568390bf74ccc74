//! [`together_verdict`]: whether targets run at once give the sum of their solo rates.

use super::*;

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
    let outcomes = outcomes(targets);
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
    let inconclusive = inconclusive(n, &missing_alone, together, sum_alone);
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

/// A figure that can be judged: finite and not negative.
fn fine(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

/// Each target's figures alone and together, and the share it kept.
fn outcomes(targets: &[TargetRate]) -> Vec<TargetOutcome> {
    targets
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
        .collect()
}

/// Why `n` targets cannot be judged together, if they cannot.
fn inconclusive(n: usize, missing_alone: &[&str], together: Option<f64>, sum_alone: Option<f64>) -> Option<String> {
    if n == 0 {
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
