//! [`layout_verdict`]: whether a stripe or mirror gives the textbook multiple.

use super::*;

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
    pub(super) fn name(self) -> &'static str {
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
