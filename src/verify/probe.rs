//! The capacity probe (`iolab capacity`): how much of an announced size a
//! device really stores, found in seconds with a few thousand stamped
//! blocks instead of a full write and read (f3probe's idea).
//!
//! # The device model
//!
//! A device keeps blocks `[0, M)` as its own storage; from `M` on, a block
//! does not hold what is written there. It either *aliases*: it shares
//! storage with another block, so a later write to one replaces the other
//! (a wrap at M, ignored address bits, all overflow writes funnelled onto
//! a few blocks), or it *loses* writes: it reads back zeros, 0xFF,
//! garbage, old data or an error. The probe finds `M` to within the
//! granularity; a genuine device has `M` = the announced size.
//!
//! Two offsets below `M` never share storage, so whenever a block reads
//! back as the stamp of another offset written after it (or, not written
//! itself, holds another offset's stamp), the higher of the two is at or
//! beyond `M`; and a block that loses its own write (reads back anything
//! else) is beyond `M`. Those two rules are all the probe concludes "bad"
//! from, so a bad conclusion is sound whatever the device does. "Good" is
//! weaker: a block beyond `M` reads back as itself when nothing written
//! after it shares its storage, so the probe arranges its writes so that
//! something does.
//!
//! # The rounds
//!
//! Each [`Round`] writes stamped blocks in a stated order, then reads
//! blocks back; the I/O layer runs it and hands the states to
//! [`Probe::observe`].
//!
//! 1. **Scout.** Written from the highest offset down (so on a wrap the
//!    lower block, written later, survives and the higher one reads back
//!    misplaced):
//!    - every `c·2^k` for `c` in 1, 3, 5, 7 (every power of two and three
//!      between): under a wrap at any power of two, or at `c·2^k`, each of
//!      them beyond the wrap lands on another of them, and ignored address
//!      bits map them onto each other too;
//!    - a *comb*: `teeth` blocks at `0, u, 2u, …`, and the last
//!      [`RUN_BLOCKS`] blocks of the device (a funnel onto fewer blocks than
//!      that shows collisions).
//!
//!    Then it reads those back, and *reads* (without writing) offsets `u`-
//!    aligned and `teeth·u` apart from the top down (baby steps, giant
//!    steps): for a wrap at any multiple `M` of `u`, the read in
//!    `[M, M + teeth·u)` lands on a tooth and returns that tooth's stamp,
//!    which names `M` exactly. `u` is the smallest power of two that keeps
//!    teeth × reads within [`COMB_CELLS`]: 4 KiB up to 16 GiB, 32 KiB for
//!    128 GiB, 512 KiB for 2 TiB.
//! 2. **Nothing bad**: genuine. Otherwise the boundary lies in `(0, U]`,
//!    `U` the lowest bad offset seen.
//! 3. **Bisection**: each round tests one point `x` in `(L, U)`: it writes
//!    `x`, then [`RUN_BLOCKS`]` − 1` blocks after it (a funnel maps them onto
//!    `x`'s storage), then `x − d` for each alias distance `d` seen so far
//!    (on a wrap at `d`, `x − d` is `x`'s storage) and `x − d/2^i` for the
//!    smallest one (the comb sees a period `M` that is not a multiple of
//!    `u` only at `2^i·M`, the first multiple that is), and reads them all.
//!    `x` good raises `L`; anything bad lowers `U`. An alias distance
//!    inside `(L, U]` is tested first, with the block below it, so a wrap
//!    is pinned to the block in two rounds. It stops when `U − L` is at
//!    most the granularity: `M` lies in `[L + BLOCK, U]`.
//!
//! What it cannot see: a wrap at a period `M` that is not a multiple of
//! `u`, unless one `c·2^k` lands on another or `2^i·M`, its first multiple
//! that is, lies below the announced size ([`ProbeReport::unit`] says which
//! periods are covered; in the simulator, about one such wrap in five on
//! 128 GiB is found, and the rest are called genuine); a funnel onto
//! [`RUN_BLOCKS`] or more blocks beyond `M`; and a cache that answers reads
//! of blocks the device never stored (the I/O layer must bypass or flush
//! it: O_DIRECT, and reads only after all writes of a round). Whatever it
//! finds, it never overstates: `real_bytes ≤ M ≤ bad_from` held for every
//! device the tests threw at it, those outside the contract included.
//!
//! # Saving what it overwrites
//!
//! Each round's writes are known before the round runs, so the I/O layer
//! can save them first and write them back at the end ([`Backup`]);
//! [`Probe::max_writes`] bounds how many that can be.

use super::block::{BLOCK_U64, BlockState};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Blocks written per test point (and at the device's top in the scout):
/// `x` first, then the rest, so a device funnelling everything beyond `M`
/// onto fewer blocks than this overwrites `x`. 16 blocks are 64 KiB.
pub const RUN_BLOCKS: u64 = 16;
/// The most comb teeth the scout writes (4 MiB of stamps).
pub const MAX_TEETH: u64 = 1024;
/// Teeth × giant-step reads the comb may cost: it covers `COMB_CELLS`
/// multiples of the unit `u`, so `u` grows with the device above 16 GiB
/// (4 Mi × 4 KiB). Reads are cheap and harmless; 4096 of them on a slow
/// USB stick take a few seconds.
pub const COMB_CELLS: u64 = 1 << 22;
/// Alias distances kept (the smallest), each written below every test point.
pub const MAX_DISTANCES: usize = 8;
/// Bisection rounds spent testing an alias distance and the block below it
/// (two for the first distance, two more if a halving reveals a smaller one).
const MAX_PINS: u64 = 4;
/// The odd multipliers of the scout's powers of two.
const MULTIPLIERS: [u64; 4] = [1, 3, 5, 7];
/// A granularity to use when the user names none.
pub const DEFAULT_GRANULARITY: u64 = 1 << 20;

/// One round of the probe for the I/O layer to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The round's number from 0: stamp with
    /// [`fill_generation`](super::fill_generation)`(buf, offset, pass, generation)`.
    pub generation: u64,
    /// Offsets to stamp, in this order, each write complete before the next
    /// is issued (on an aliasing device the later write must win). A write
    /// that fails is not fatal: its read will say the block is bad.
    pub writes: Vec<u64>,
    /// Offsets to read after all writes, ascending, each classified with
    /// [`classify_generation`](super::classify_generation)`(block, offset,
    /// pass, generation)` (a read error: [`BlockState::Unreadable`]).
    pub reads: Vec<u64>,
}

/// What the probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProbeVerdict {
    /// Every probed block read back as itself.
    Genuine,
    /// The device keeps at least `real_bytes` (every test below read back as
    /// itself) and block `bad_from` did not; the real size lies between,
    /// which is at most the granularity wide (wider only on a device
    /// outside the model, when the rounds run out). `alias_distance`: the smallest
    /// distance seen between two offsets sharing storage (the period of a
    /// wrap), `None` when blocks were lost rather than aliased.
    Fake {
        /// Every test below this read back as itself.
        #[schemars(extend("x-unit" = "bytes"))]
        real_bytes: u64,
        /// The lowest offset found bad.
        #[schemars(extend("x-unit" = "bytes"))]
        bad_from: u64,
        /// The period of the wrap (`null`: blocks were lost, not aliased).
        #[schemars(extend("x-unit" = "bytes"))]
        alias_distance: Option<u64>,
    },
}

/// The probe's result and what it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProbeReport {
    /// The announced size, in bytes.
    #[schemars(extend("x-unit" = "bytes"))]
    pub announced: u64,
    /// The precision asked for (rounded to whole blocks).
    #[schemars(extend("x-unit" = "bytes"))]
    pub granularity: u64,
    /// Wraps at any multiple of this are found wherever they are.
    #[schemars(extend("x-unit" = "bytes"))]
    pub unit: u64,
    /// What the probe found.
    pub verdict: ProbeVerdict,
    /// Rounds of writes and reads.
    #[schemars(extend("x-unit" = "count"))]
    pub rounds: u32,
    /// Block writes issued (a block written in two rounds counts twice).
    #[schemars(extend("x-unit" = "count"))]
    pub blocks_written: u64,
    /// Distinct offsets written: what a backup holds.
    #[schemars(extend("x-unit" = "count"))]
    pub distinct_blocks_written: u64,
    /// Block reads issued.
    #[schemars(extend("x-unit" = "count"))]
    pub blocks_read: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Scout,
    Test { point: u64 },
    Done,
}

/// The probe as a state machine: [`Probe::round`] says what to do,
/// [`Probe::observe`] takes what the device did, until
/// [`Probe::report`] is ready. [`Probe::run`] drives it with a closure.
#[derive(Clone, Debug)]
pub struct Probe {
    announced: u64,
    /// The probed end: the announced size in whole blocks.
    end: u64,
    granularity: u64,
    unit: u64,
    teeth: u64,
    /// L: the highest offset tested good.
    good: u64,
    /// U: the lowest offset known bad (`end`: none).
    bad: u64,
    distances: BTreeSet<u64>,
    pins: u64,
    phase: Phase,
    round: Option<Round>,
    rounds: u32,
    written: u64,
    distinct: HashSet<u64>,
    read: u64,
    scout_writes: u64,
    report: Option<ProbeReport>,
}

/// The probe of a device announcing `announced` bytes, to find its real
/// size to within `granularity` bytes (rounded up to whole blocks; e.g.
/// [`DEFAULT_GRANULARITY`], or a thousandth of the size).
pub fn probe_offsets(announced: u64, granularity: u64) -> Probe {
    Probe::new(announced, granularity)
}

/// ⌈√n⌉.
fn ceil_sqrt(n: u64) -> u64 {
    let mut r = (n as f64).sqrt() as u64;
    while r * r < n {
        r += 1;
    }
    while r > 0 && (r - 1) * (r - 1) >= n {
        r -= 1;
    }
    r
}

impl Probe {
    pub fn new(announced: u64, granularity: u64) -> Probe {
        let end = announced / BLOCK_U64 * BLOCK_U64;
        let granularity = granularity.max(BLOCK_U64).next_multiple_of(BLOCK_U64).min(end.max(BLOCK_U64));
        let mut unit = BLOCK_U64;
        while end / unit > COMB_CELLS {
            unit *= 2;
        }
        let teeth = ceil_sqrt(end.div_ceil(unit)).clamp(1, MAX_TEETH);
        let mut p = Probe {
            announced,
            end,
            granularity,
            unit,
            teeth,
            good: 0,
            bad: end,
            distances: BTreeSet::new(),
            pins: 0,
            phase: Phase::Scout,
            round: None,
            rounds: 0,
            written: 0,
            distinct: HashSet::new(),
            read: 0,
            scout_writes: 0,
            report: None,
        };
        if end == 0 {
            p.finish(ProbeVerdict::Genuine);
        } else {
            let r = p.scout_round();
            p.scout_writes = r.writes.len() as u64;
            p.round = Some(r);
        }
        p
    }

    /// Wraps at any multiple of this many bytes are found wherever they are.
    pub fn unit(&self) -> u64 {
        self.unit
    }

    /// The round to run now; `None` when the probe is done.
    pub fn round(&self) -> Option<&Round> {
        self.round.as_ref()
    }

    /// The result, once done.
    pub fn report(&self) -> Option<&ProbeReport> {
        self.report.as_ref()
    }

    /// The most distinct blocks the probe can write: the scout's, and
    /// [`RUN_BLOCKS`] + [`MAX_DISTANCES`] + log2(u / BLOCK) per bisection round.
    pub fn max_writes(&self) -> u64 {
        self.scout_writes + self.max_test_rounds() * (RUN_BLOCKS + MAX_DISTANCES as u64 + self.halvings())
    }

    /// log2(u / BLOCK): how many halvings of a distance the test rounds try.
    fn halvings(&self) -> u64 {
        (self.unit / BLOCK_U64).trailing_zeros() as u64
    }

    /// Bisection rounds at most: each midpoint round leaves at most half
    /// the blocks between L and U (rounded up), so `bits(end / BLOCK)` of
    /// them reach one block, plus the pins.
    fn max_test_rounds(&self) -> u64 {
        let bits = 64 - (self.end / BLOCK_U64).leading_zeros() as u64;
        bits + MAX_PINS
    }

    /// Runs the probe to the end: `device` runs each round (writes in
    /// order, then reads) and returns the read states in order.
    pub fn run(mut self, mut device: impl FnMut(&Round) -> Vec<BlockState>) -> ProbeReport {
        while let Some(r) = self.round.clone() {
            let states = device(&r);
            self.observe(&states);
        }
        self.report.expect("a finished probe has a report")
    }

    /// The scout: the powers of two and between, the comb, the top run,
    /// written from the top down; read back with the giant steps.
    fn scout_round(&self) -> Round {
        let (end, b) = (self.end, BLOCK_U64);
        let mut w = BTreeSet::new();
        w.insert(0);
        for c in MULTIPLIERS {
            let mut p = b;
            while let Some(o) = c.checked_mul(p).filter(|&o| o < end) {
                w.insert(o);
                p *= 2;
            }
        }
        for i in 0..self.teeth {
            let o = i * self.unit;
            if o < end {
                w.insert(o);
            }
        }
        for k in 1..=RUN_BLOCKS.min(end / b) {
            w.insert(end - k * b);
        }
        let mut reads = w.clone();
        let step = self.teeth * self.unit;
        let mut g = (end - b) / self.unit * self.unit;
        while g >= step {
            reads.insert(g);
            g -= step;
        }
        Round {
            generation: 0,
            writes: w.into_iter().rev().collect(),
            reads: reads.into_iter().collect(),
        }
    }

    /// The bisection's test of `x`: `x`, the rest of its run, then `x − d`
    /// for the alias distances.
    fn test_round(&self, x: u64) -> Round {
        let b = BLOCK_U64;
        let mut writes = vec![x];
        let mut seen: HashSet<u64> = HashSet::from([x]);
        // Above x, also beyond U: a funnel maps the blocks after x onto x's
        // storage only if they are there (below x, at most `slots - 1` of
        // them share nothing with it). A companion that overwrites x makes x
        // bad (see `observe`) once x lies a run or more from the start; below
        // that (a device that stores less than a run) a companion beyond U,
        // known bad already, could overwrite x without telling anything.
        let run = RUN_BLOCKS * b;
        let above = if x >= run { self.end } else { self.bad.min(self.end) };
        let mut c = x + b;
        while (writes.len() as u64) < RUN_BLOCKS && c < above {
            writes.push(c);
            seen.insert(c);
            c += b;
        }
        // Near the end there is no room above: take the blocks below x (still
        // above L; at or beyond M they funnel too, below it they are harmless).
        let mut c = x;
        while (writes.len() as u64) < RUN_BLOCKS && c > self.good + b {
            c -= b;
            writes.push(c);
            seen.insert(c);
        }
        for &d in &self.distances {
            if d <= x && seen.insert(x - d) {
                writes.push(x - d);
            }
        }
        // The smallest distance halved: the comb sees a period that is not a
        // multiple of u only at its first multiple that is, 2^i times it.
        if let Some(&d) = self.distances.first() {
            let mut p = d;
            for _ in 0..self.halvings() {
                p /= 2;
                if p == 0 || !p.is_multiple_of(BLOCK_U64) {
                    break;
                }
                if p <= x && seen.insert(x - p) {
                    writes.push(x - p);
                }
            }
        }
        let mut reads = writes.clone();
        reads.sort_unstable();
        Round {
            generation: self.rounds as u64,
            writes,
            reads,
        }
    }

    fn add_distance(&mut self, d: u64) {
        self.distances.insert(d);
        while self.distances.len() > MAX_DISTANCES {
            self.distances.pop_last();
        }
    }

    /// The states of the current round's reads, in order.
    pub fn observe(&mut self, states: &[BlockState]) {
        let round = self.round.take().expect("observe a round that was asked for");
        assert_eq!(states.len(), round.reads.len(), "one state per read");
        self.rounds += 1;
        self.written += round.writes.len() as u64;
        self.distinct.extend(round.writes.iter().copied());
        self.read += round.reads.len() as u64;

        // Where each offset was written in the round's order.
        let position: HashMap<u64, usize> = round.writes.iter().enumerate().map(|(i, &o)| (o, i)).collect();
        let mut lowest_bad = u64::MAX;
        let mut state_of_point = None;
        let point = match self.phase {
            Phase::Scout => 0,
            Phase::Test { point } => point,
            Phase::Done => unreachable!("no round after the end"),
        };
        for (&off, &st) in round.reads.iter().zip(states) {
            if off == point {
                state_of_point = Some(st);
            }
            match st {
                BlockState::Good => {}
                BlockState::Misplaced { written_for } => {
                    let overwritten = match (position.get(&off), position.get(&written_for)) {
                        (Some(i), Some(j)) => j > i,
                        (Some(_), None) => false,
                        (None, _) => true,
                    };
                    // Overwritten by a later write (or not written and holding
                    // another's stamp): the two share storage, and two offsets
                    // below M never do, so the higher one is bad. The tested
                    // point overwritten by its own run (the blocks after it)
                    // is bad itself once it lies a run or more from the
                    // start: a funnel shares storage only beyond M, and a
                    // wrap or an ignored address bit maps a block onto one
                    // less than a run above it only when M is below a run.
                    // Written but holding a stamp not written after it: its
                    // write was lost.
                    let run = RUN_BLOCKS * BLOCK_U64;
                    let own_run = off == point && off >= run && written_for > off && written_for - off < run;
                    lowest_bad = lowest_bad.min(if overwritten && !own_run { off.max(written_for) } else { off });
                    if off != written_for {
                        self.add_distance(off.abs_diff(written_for));
                    }
                }
                // A block that lost its own write is bad.
                _ if position.contains_key(&off) => lowest_bad = lowest_bad.min(off),
                // An offset not written this round: whatever it holds says nothing.
                _ => {}
            }
        }
        self.bad = self.bad.min(lowest_bad);
        let point_good = state_of_point == Some(BlockState::Good);

        match self.phase {
            Phase::Scout => {
                if !point_good || self.bad == 0 {
                    self.bad = 0;
                    return self.finish_fake(0);
                }
                if self.bad >= self.end {
                    return self.finish(ProbeVerdict::Genuine);
                }
                self.good = 0;
            }
            Phase::Test { point } => {
                if point_good && point < self.bad {
                    self.good = self.good.max(point);
                }
            }
            Phase::Done => unreachable!(),
        }
        self.next_test();
    }

    /// The next test point, or the end.
    fn next_test(&mut self) {
        let b = BLOCK_U64;
        if self.bad <= self.good {
            // Out of the model (a good block above a bad one seen later):
            // trust nothing above the bad one.
            return self.finish_fake(self.bad);
        }
        if self.bad - self.good <= self.granularity || self.rounds as u64 > self.max_test_rounds() {
            // Done, or (on a device outside the model, where a round may
            // move a bound by less than half) out of rounds: the interval
            // found so far, wider than the granularity.
            return self.finish_fake(self.good + b);
        }
        let (good, bad) = (self.good, self.bad);
        let mut x = None;
        // Pin a distance as a wrap's period, unless it is below the
        // granularity (a funnel's, or a wrap the bisection resolves anyway).
        if self.pins < MAX_PINS {
            let g = self.granularity;
            x = self.distances.iter().copied().find(|&d| d >= g && d > good && d < bad);
            if x.is_none() && bad >= g && self.distances.contains(&bad) && bad - b > good {
                x = Some(bad - b);
            }
            if x.is_some() {
                self.pins += 1;
            }
        }
        let x = x.unwrap_or_else(|| good + ((bad - good) / b / 2).max(1) * b);
        self.round = Some(self.test_round(x));
        self.phase = Phase::Test { point: x };
    }

    fn finish_fake(&mut self, real_bytes: u64) {
        let v = ProbeVerdict::Fake {
            real_bytes,
            bad_from: self.bad,
            alias_distance: self.distances.first().copied(),
        };
        self.finish(v);
    }

    fn finish(&mut self, verdict: ProbeVerdict) {
        self.phase = Phase::Done;
        self.round = None;
        self.report = Some(ProbeReport {
            announced: self.announced,
            granularity: self.granularity,
            unit: self.unit,
            verdict,
            rounds: self.rounds,
            blocks_written: self.written,
            distinct_blocks_written: self.distinct.len() as u64,
            blocks_read: self.read,
        });
    }
}

/// Save-before-write bookkeeping for a probe that must leave the device as
/// it found it (without `--allow-destroy`): before each round, read and
/// keep [`Backup::to_save`]; at the end, write the kept blocks back in
/// [`Backup::restore_order`].
///
/// The order matters on a fake. Two offsets sharing one block both read
/// back that block's content when saved, but only the first one saved read
/// it before the probe wrote there. Restoring in the reverse order of
/// saving writes that pristine copy last, so it is what the block holds.
#[derive(Clone, Debug, Default)]
pub struct Backup {
    order: Vec<u64>,
    seen: HashSet<u64>,
}

impl Backup {
    pub fn new() -> Backup {
        Backup::default()
    }

    /// The offsets of `round`'s writes not saved yet, in the order they
    /// will be written: read and keep each before the round writes anything.
    pub fn to_save(&mut self, round: &Round) -> Vec<u64> {
        let new: Vec<u64> = round.writes.iter().copied().filter(|&o| self.seen.insert(o)).collect();
        self.order.extend(&new);
        new
    }

    /// Every saved offset, in the order to write them back.
    pub fn restore_order(&self) -> impl Iterator<Item = u64> + '_ {
        self.order.iter().rev().copied()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

#[cfg(test)]
#[path = "probe_tests.rs"]
mod tests;
