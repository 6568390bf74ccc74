//! Verdicts on the configurations `iolab layouts` built (pure functions),
//! in the seeds' words: what a stripe, a mirror or RAID-Z gives over one
//! disk of the same kind, what a property sweep changed, and which
//! configuration is best for the suite.
//!
//! Each verdict is stated only when the 95% intervals support it (the
//! interval of the ratio, from the runs on both sides, lies wholly on one
//! side of the line the verdict draws); with fewer than two runs a side
//! there is no interval and no verdict. The layout-against-one-disk rule is
//! `scale`'s ([`crate::judge::scale::layout_verdict`]: the textbook multiple
//! and its tolerance), not a second copy of it; what this module adds is
//! the interval, the seeds' wording, and telling a shared path apart from
//! a limit on the host's side by the members' pace while they were busy.

use super::scale::{Layout as Kind, LayoutCheck, LayoutRun, layout_verdict};
use super::{Code, Diagnostic};
use crate::base::thresholds::{LAYOUT_TOLERANCE, MEMBER_PACE};
use crate::base::units::{fmt_pct, fmt_ratio};
use crate::plan::Rw;
use crate::plan::layouts::{BtrfsProfile, Layout, MdLevel, ZfsVdev};

/// A configuration's figure against another's on one test: the ratio of
/// their medians (above 1: better, also for times) and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ratio {
    pub value: f64,
    /// `None`: fewer than two runs on a side.
    pub ci: Option<(f64, f64)>,
}

impl Ratio {
    /// The whole interval lies below `x`.
    pub fn below(&self, x: f64) -> bool {
        self.ci.is_some_and(|(_, hi)| hi < x)
    }
    /// The whole interval lies above `x`.
    pub fn above(&self, x: f64) -> bool {
        self.ci.is_some_and(|(lo, _)| lo > x)
    }
    /// The interval lies within `[lo, hi]`.
    pub fn within(&self, lo: f64, hi: f64) -> bool {
        self.ci.is_some_and(|(a, b)| a >= lo && b <= hi)
    }
    /// Known to differ from 1× (outside the noise).
    pub fn differs(&self) -> bool {
        self.below(1.0) || self.above(1.0)
    }
    /// The interval contains 1× (within the noise).
    pub fn same(&self) -> bool {
        self.ci.is_some_and(|(a, b)| a <= 1.0 && 1.0 <= b)
    }
    /// `1.95× [1.90–2.01]`.
    fn text(&self) -> String {
        match self.ci {
            Some((lo, hi)) => format!("{} [{:.2}–{:.2}]", fmt_ratio(self.value), lo, hi),
            None => fmt_ratio(self.value),
        }
    }
}

/// How a configuration spreads its data: `scale`'s kind, its members,
/// copies of each block, and parity members (RAID-Z, md raid5/6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub kind: Kind,
    pub members: u32,
    pub copies: Option<u32>,
    pub parity: u32,
}

impl Shape {
    /// The shape of `layout` over `members` devices.
    pub fn of(layout: Layout, members: u32) -> Shape {
        let (kind, copies, parity) = match layout {
            Layout::Single(_) | Layout::Zfs(ZfsVdev::Single) => (Kind::Single, None, 0),
            Layout::Zfs(ZfsVdev::Stripe)
            | Layout::BtrfsRaid(BtrfsProfile::Raid0)
            | Layout::Md(MdLevel::Raid0, _)
            | Layout::LvmStripe(_) => (Kind::Raid0, None, 0),
            Layout::Zfs(ZfsVdev::Mirror) | Layout::Md(MdLevel::Raid1, _) => (Kind::Raid1, Some(members), 0),
            Layout::BtrfsRaid(BtrfsProfile::Raid1) => (Kind::Raid1, Some(2), 0),
            Layout::BtrfsRaid(BtrfsProfile::Raid10) => (Kind::Raid10, Some(2), 0),
            Layout::Zfs(ZfsVdev::Raidz(p)) => (Kind::Unknown, None, u32::from(p)),
            Layout::Md(MdLevel::Raid5, _) => (Kind::Unknown, None, 1),
            Layout::Md(MdLevel::Raid6, _) => (Kind::Unknown, None, 2),
        };
        Shape {
            kind,
            members,
            copies,
            parity,
        }
    }

    /// Whether it spreads over several devices (only those are judged
    /// against one disk).
    pub fn multi(&self) -> bool {
        self.kind != Kind::Single && self.members >= 2
    }

    /// The seeds' words: `a stripe of 2`, `a 3-way mirror`, `RAID-Z1 of 4`.
    pub fn describe(&self, layout: Layout) -> String {
        let n = self.members;
        match layout {
            Layout::Zfs(ZfsVdev::Stripe) => format!("a stripe of {n}"),
            Layout::Zfs(ZfsVdev::Mirror) | Layout::Md(MdLevel::Raid1, _) => format!("a {n}-way mirror"),
            Layout::Zfs(ZfsVdev::Raidz(p)) => format!("RAID-Z{p} of {n}"),
            Layout::BtrfsRaid(p) => format!("btrfs {} over {n}", p.name()),
            Layout::Md(l, _) => format!("md raid{} over {n}", l.number()),
            Layout::LvmStripe(_) => format!("an LVM stripe over {n}"),
            Layout::Single(_) | Layout::Zfs(ZfsVdev::Single) => "one disk".into(),
        }
    }
}

/// A multi-device configuration against one disk of the same kind (the
/// same filesystem or ZFS, the same settings) on one test.
#[derive(Clone, Debug, PartialEq)]
pub struct VsOneDisk<'a> {
    /// The configuration (`zfs-stripe2`) and its reference (`zfs`).
    pub config: &'a str,
    pub one_disk: &'a str,
    pub layout: Layout,
    pub shape: Shape,
    /// The test (`SEQ128K Q4`), its pattern and its I/Os in flight.
    pub test: &'a str,
    pub rw: Rw,
    pub in_flight: u32,
    /// The configuration's figure ÷ the one disk's.
    pub ratio: Ratio,
    /// How busy its members were while the test ran (mean of each
    /// member's time with I/O in flight ÷ the test's time), when known.
    pub members_busy: Option<f64>,
    /// How busy the host's CPUs were, when known.
    pub cpu_busy: Option<f64>,
}

fn verb(rw: Rw) -> &'static str {
    match (rw.reads(), rw.writes()) {
        (true, false) => "reads",
        (false, true) => "writes",
        _ => "reads and writes",
    }
}

/// An expected multiple as the text gives it: `≈2×`, `1–3×`.
fn expected_text(low: f64, high: f64) -> String {
    let m = |v: f64| {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if high - low < 0.05 * high {
        format!("≈{}×", m(high))
    } else {
        format!("{}–{}×", m(low), m(high))
    }
}

/// The verdict on a multi-device configuration against one disk, or
/// `None` when the interval does not support one (or there is none):
///
/// - striped and mirrored layouts: `scale`'s expected multiple with its
///   tolerance. Wholly below it: `layout_host_limit` when the CPU was
///   saturated, or when the members served at least `MEMBER_PACE` of one
///   disk's rate while busy and were idle the rest of the time (the host
///   set the pace: its CPU, a filesystem's own I/O path, too few requests
///   in flight); else `layout_shared_path` (the members had I/O in flight
///   and still moved less than one disk does: a bus, a bridge, a
///   controller they share, or one slower member; also when their busy
///   time is unknown). Wholly within it:
///   `layout_delivers`; wholly above: `layout_above`.
/// - parity layouts (RAID-Z, md raid5/6): writes wholly below 1× are
///   `layout_parity`; a figure wholly above 1× is `layout_delivers` with
///   its data members; anything else is not judged (no textbook multiple:
///   small writes pay a whole stripe, large ones spread over the data
///   members).
pub fn vs_one_disk(v: &VsOneDisk) -> Option<Diagnostic> {
    let (ci_lo, ci_hi) = v.ratio.ci?;
    if !(v.shape.multi() && v.ratio.value.is_finite() && ci_lo.is_finite() && ci_hi.is_finite()) {
        return None;
    }
    let what = v.shape.describe(v.layout);
    let head = format!("{}: {} ({what}) {} {} {}", v.test, v.config, verb(v.rw), v.ratio.text(), v.one_disk);
    let d = |code: Code, text: String| Some(Diagnostic::new(code, text).about(v.test.to_string()));
    if v.shape.parity > 0 {
        let data = v.shape.members.saturating_sub(v.shape.parity);
        return if v.rw.writes() && !v.rw.reads() && v.ratio.below(1.0) {
            d(
                Code::LayoutParity,
                format!(
                    "{head}: parity: every write also writes {} parity block(s), and a write smaller than a stripe costs a whole one",
                    v.shape.parity
                ),
            )
        } else if v.ratio.above(1.0) {
            d(Code::LayoutDelivers, format!("{head}: its data is spread over {data} data members"))
        } else {
            None
        };
    }
    let verdict = layout_verdict(&LayoutRun {
        layout: v.shape.kind,
        name: v.config.to_string(),
        members: v.shape.members,
        copies: v.shape.copies,
        rw: v.rw,
        in_flight: v.in_flight,
        layout_bps: v.ratio.value,
        member_bps: 1.0,
        cpu_busy: v.cpu_busy,
    });
    let (low, high) = (verdict.expected_low?, verdict.expected_high?);
    let expect = expected_text(low, high);
    let (floor, ceiling) = (low * (1.0 - LAYOUT_TOLERANCE), high * (1.0 + LAYOUT_TOLERANCE));
    // Each member's rate while it had I/O in flight, in one disk's rates.
    let busy = v.members_busy.filter(|b| b.is_finite() && *b > 0.0);
    let pace = busy.map(|b| v.ratio.value / (f64::from(v.shape.members) * b));
    match verdict.kind {
        LayoutCheck::BelowExpected | LayoutCheck::CpuBound if v.ratio.below(floor) => {
            if verdict.kind == LayoutCheck::CpuBound {
                let cpu = v.cpu_busy.map_or_else(String::new, |c| format!(" ({} busy)", fmt_pct(c)));
                d(
                    Code::LayoutHostLimit,
                    format!("{head}, expected {expect}: the host's CPU{cpu} set the pace, not the members' path"),
                )
            } else if let (Some(b), Some(p)) = (busy, pace.filter(|p| *p >= MEMBER_PACE)) {
                d(
                    Code::LayoutHostLimit,
                    format!(
                        "{head}, expected {expect}: the members were idle {} of the time and, while busy, moved {:.2}× one disk's rate each, so no shared path held them back: the host (its CPU, the filesystem's own I/O path, too few requests in flight) set the pace",
                        fmt_pct(1.0 - b.min(1.0)),
                        p
                    ),
                )
            } else {
                let busy = match (busy, pace) {
                    (Some(b), Some(p)) => format!(
                        " (busy {} of the time, yet moving {p:.2}× one disk's rate each while busy)",
                        fmt_pct(b.min(1.0))
                    ),
                    _ => String::new(),
                };
                d(
                    Code::LayoutSharedPath,
                    format!(
                        "{head}, expected {expect}: the members{busy} share a path (a bus, a bridge, a controller), or one member is slower than the others"
                    ),
                )
            }
        }
        LayoutCheck::AsExpected if v.ratio.within(floor, ceiling) => {
            d(Code::LayoutDelivers, format!("{head}, expected {expect}: the layout delivers"))
        }
        LayoutCheck::AboveExpected if v.ratio.above(ceiling) => d(
            Code::LayoutAbove,
            format!("{head}, expected {expect}: more than the layout gives; a cache answered, or the one disk's figure is low"),
        ),
        _ => None,
    }
}

/// One property of a sweep against another value of it, the rest of the
/// configuration the same: each shared test's ratio (`value`'s figure ÷
/// `against`'s).
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyEffect<'a> {
    /// The configuration without the property (`zfs-mirror3`).
    pub config: &'a str,
    pub key: &'a str,
    pub value: &'a str,
    pub against: &'a str,
    pub tests: Vec<(&'a str, Ratio)>,
}

/// `layout_property`: the test the property changed most, outside the
/// noise, and how many others it changed ("recordsize=8K against
/// recordsize=128K on zfs: SEQ8K write 1.90× [1.80–2.02], 2 of 11 tests
/// outside the noise"), or that it changed none; `None` when no test has
/// an interval.
pub fn property_effect(p: &PropertyEffect) -> Option<Diagnostic> {
    let known: Vec<&(&str, Ratio)> = p
        .tests
        .iter()
        .filter(|(_, r)| r.ci.is_some() && r.value.is_finite() && r.value > 0.0)
        .collect();
    if known.is_empty() {
        return None;
    }
    let outside: Vec<&&(&str, Ratio)> = known.iter().filter(|(_, r)| r.differs()).collect();
    let head = format!("{}={} against {}={} on {}", p.key, p.value, p.key, p.against, p.config);
    let Some((test, r)) = outside
        .iter()
        .max_by(|a, b| a.1.value.ln().abs().total_cmp(&b.1.value.ln().abs()))
        .map(|x| **x)
    else {
        return Some(Diagnostic::new(
            Code::LayoutProperty,
            format!("{head}: no test differs outside the noise ({} test(s))", known.len()),
        ));
    };
    Some(
        Diagnostic::new(
            Code::LayoutProperty,
            format!(
                "{head}: {test} {}, {} of {} test(s) outside the noise",
                r.text(),
                outside.len(),
                known.len()
            ),
        )
        .about(test.to_string()),
    )
}

/// A configuration's standing in the suite: the geometric mean of its
/// ratios to the baseline over the tests every configuration has, and its
/// ratio to the best configuration on each of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing<'a> {
    pub config: &'a str,
    pub score: f64,
    /// Against the best configuration, test by test (empty for the best).
    pub vs_best: Vec<Ratio>,
}

/// The geometric mean of ratios (each > 0), `None` when there are none.
pub fn geometric_mean(ratios: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    for r in ratios {
        if !(r.is_finite() && r > 0.0) {
            return None;
        }
        sum += r.ln();
        n += 1;
    }
    (n > 0).then(|| (sum / f64::from(n)).exp())
}

/// `layout_best`: "the best configuration for this suite is X (1.95× the
/// baseline, geometric mean over 11 tests), within noise of Y" — a rival
/// is within noise when no test tells it from the best (every interval
/// contains 1×); one with a test whose interval is unknown is said to be
/// undecided. `best` is the index of the highest score; `None` with fewer
/// than two configurations.
pub fn best(standings: &[Standing], baseline: &str, tests: usize) -> Option<Diagnostic> {
    if standings.len() < 2 || tests == 0 {
        return None;
    }
    let (bi, b) = standings
        .iter()
        .enumerate()
        .filter(|(_, s)| s.score.is_finite())
        .max_by(|a, b| a.1.score.total_cmp(&b.1.score))?;
    let rivals: Vec<&Standing> = standings.iter().enumerate().filter(|(i, _)| *i != bi).map(|(_, s)| s).collect();
    let near: Vec<&str> = rivals
        .iter()
        .filter(|s| !s.vs_best.is_empty() && s.vs_best.iter().all(Ratio::same))
        .map(|s| s.config)
        .collect();
    let unknown: Vec<&str> = rivals
        .iter()
        .filter(|s| s.vs_best.is_empty() || s.vs_best.iter().any(|r| r.ci.is_none()))
        .filter(|s| !s.vs_best.iter().any(Ratio::differs))
        .map(|s| s.config)
        .collect();
    let score = if b.config == baseline {
        format!("the baseline, over {tests} test(s)")
    } else {
        format!("{} {baseline}, geometric mean over {tests} test(s)", fmt_ratio(b.score))
    };
    let tail = if !near.is_empty() {
        format!(", within noise of {}", near.join(", "))
    } else if !unknown.is_empty() {
        format!(
            "; whether {} is as good is unknown (fewer than two runs to tell the noise)",
            unknown.join(", ")
        )
    } else {
        ": no other comes within noise of it on every test".into()
    };
    Some(Diagnostic::new(
        Code::LayoutBest,
        format!("The best configuration for this suite is {} ({score}){tail}", b.config),
    ))
}

#[cfg(test)]
#[path = "layouts_tests.rs"]
mod tests;
