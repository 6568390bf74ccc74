//! The summary of a verify pass: block states in, bytes per class, the
//! first bad offset, bad ranges, the usable size and a verdict out.
//!
//! A pass writes stamped blocks over the whole range in ascending order,
//! then reads them back in order; [`VerifyTally::push`] takes each block's
//! state as it is classified. Memory stays bounded on a multi-TB device:
//! the tally keeps counters, the range being extended and at most
//! [`MAX_RANGES`] closed ranges (later ones are only counted), never a
//! per-block vector.

use super::block::{BLOCK_U64, BlockState, Class};
use crate::base::thresholds::{FAKE_MIN_BYTES, FAKE_MIN_SHARE, FAKE_TAIL_SHARE, WRAP_MIN_PERIOD};
use crate::base::units::fmt_bytes;
use serde::{Deserialize, Serialize};

/// Closed bad ranges kept; beyond this they are counted in
/// [`VerifyTally::ranges_dropped`] (their bytes still count by class). A
/// device bad in more places than this is summed up by its figures, not by
/// a list nobody reads; 4096 ranges are about 200 KB.
pub const MAX_RANGES: usize = 4096;

/// Bytes per class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassBytes {
    /// Bytes that read back as written.
    #[schemars(extend("x-unit" = "bytes"))]
    pub good: u64,
    /// Bytes of blocks that came back damaged.
    #[schemars(extend("x-unit" = "bytes"))]
    pub corrupted: u64,
    /// Bytes of blocks written for another offset.
    #[schemars(extend("x-unit" = "bytes"))]
    pub misplaced: u64,
    /// Bytes of blocks from an earlier pass.
    #[schemars(extend("x-unit" = "bytes"))]
    pub stale: u64,
    /// Bytes of blocks that came back all zeros or all ones.
    #[schemars(extend("x-unit" = "bytes"))]
    pub blank: u64,
    /// Bytes of blocks holding unrelated data.
    #[schemars(extend("x-unit" = "bytes"))]
    pub garbage: u64,
    /// Bytes of blocks whose read failed.
    #[schemars(extend("x-unit" = "bytes"))]
    pub unreadable: u64,
}

impl ClassBytes {
    pub fn get(&self, c: Class) -> u64 {
        match c {
            Class::Good => self.good,
            Class::Corrupted => self.corrupted,
            Class::Misplaced => self.misplaced,
            Class::Stale => self.stale,
            Class::Blank => self.blank,
            Class::Garbage => self.garbage,
            Class::Unreadable => self.unreadable,
        }
    }

    fn get_mut(&mut self, c: Class) -> &mut u64 {
        match c {
            Class::Good => &mut self.good,
            Class::Corrupted => &mut self.corrupted,
            Class::Misplaced => &mut self.misplaced,
            Class::Stale => &mut self.stale,
            Class::Blank => &mut self.blank,
            Class::Garbage => &mut self.garbage,
            Class::Unreadable => &mut self.unreadable,
        }
    }

    /// Every byte that did not read back good.
    pub fn bad(&self) -> u64 {
        self.total() - self.good
    }

    pub fn total(&self) -> u64 {
        Class::ALL.iter().map(|&c| self.get(c)).sum()
    }
}

/// Consecutive blocks of one class, `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BadRange {
    /// Where the range starts (offset).
    #[schemars(extend("x-unit" = "bytes"))]
    pub from: u64,
    /// Where it ends (offset, exclusive).
    #[schemars(extend("x-unit" = "bytes"))]
    pub to: u64,
    /// What the range's blocks read back as.
    pub class: Class,
    /// Misplaced: the offset the block at `from` was written for; each
    /// further block of the range was written for the next one, so a wrap
    /// at M shows as one range with `written_for_from = from + M`.
    #[schemars(extend("x-unit" = "bytes"))]
    pub written_for_from: Option<u64>,
    /// Stale: the pass the range's blocks came from (one pass per range).
    #[schemars(extend("x-unit" = "nonce"))]
    pub pass: Option<u64>,
}

impl BadRange {
    pub fn bytes(&self) -> u64 {
        self.to - self.from
    }

    /// Whether the block at `offset` in state `s` continues this range.
    fn continues(&self, offset: u64, s: BlockState) -> bool {
        self.to == offset
            && self.class == s.class()
            && match s {
                BlockState::Misplaced { written_for } => {
                    self.written_for_from.map(|w| w.wrapping_add(offset - self.from)) == Some(written_for)
                }
                BlockState::Stale { pass } => self.pass == Some(pass),
                _ => true,
            }
    }
}

/// A verify pass's block states, summed up as they come.
#[derive(Clone, Debug, Default)]
pub struct VerifyTally {
    /// Where the pass started, and the end of the last block pushed.
    start: Option<u64>,
    end: u64,
    bytes: ClassBytes,
    first_bad: Option<u64>,
    ranges: Vec<BadRange>,
    open: Option<BadRange>,
    ranges_dropped: u64,
    /// The greatest common divisor of |written_for − offset| over every
    /// misplaced block (0: none): a wrap at M makes every such distance a
    /// multiple of M.
    misplaced_gcd: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl VerifyTally {
    pub fn new() -> VerifyTally {
        VerifyTally::default()
    }

    /// The state of the block at `offset`. Blocks come in order, each
    /// starting where the previous one ended (the first anywhere).
    pub fn push(&mut self, offset: u64, state: BlockState) {
        self.push_blocks(offset, 1, state);
    }

    /// `count` consecutive blocks from `offset`, all in `state` (a whole
    /// read request that came back good, a range that failed to read). For
    /// `Misplaced`, `written_for` is the first block's and each next block
    /// was written for the next offset.
    pub fn push_blocks(&mut self, offset: u64, count: u64, state: BlockState) {
        if count == 0 {
            return;
        }
        if self.start.is_none() {
            self.start = Some(offset);
            self.end = offset;
        }
        assert!(
            offset == self.end,
            "verify blocks come in order: {offset} after a block ending at {}",
            self.end
        );
        let len = count * BLOCK_U64;
        *self.bytes.get_mut(state.class()) += len;
        self.end = offset + len;
        if state.is_good() {
            self.close();
            return;
        }
        self.first_bad.get_or_insert(offset);
        if let BlockState::Misplaced { written_for } = state {
            self.misplaced_gcd = gcd(self.misplaced_gcd, written_for.abs_diff(offset));
        }
        match &mut self.open {
            Some(r) if r.continues(offset, state) => r.to += len,
            _ => {
                self.close();
                self.open = Some(BadRange {
                    from: offset,
                    to: offset + len,
                    class: state.class(),
                    written_for_from: match state {
                        BlockState::Misplaced { written_for } => Some(written_for),
                        _ => None,
                    },
                    pass: match state {
                        BlockState::Stale { pass } => Some(pass),
                        _ => None,
                    },
                });
            }
        }
    }

    fn close(&mut self) {
        if let Some(r) = self.open.take() {
            if self.ranges.len() < MAX_RANGES {
                self.ranges.push(r);
            } else {
                self.ranges_dropped += 1;
            }
        }
    }

    /// Where the pass started (the first block pushed).
    pub fn start(&self) -> u64 {
        self.start.unwrap_or(0)
    }

    /// The end of the last block pushed.
    pub fn end(&self) -> u64 {
        self.end
    }

    pub fn bytes(&self) -> &ClassBytes {
        &self.bytes
    }

    /// The offset of the first block that did not read back good.
    pub fn first_bad(&self) -> Option<u64> {
        self.first_bad
    }

    /// The bad ranges, in order: the first [`MAX_RANGES`] closed ones and
    /// the one still open.
    pub fn ranges(&self) -> Vec<BadRange> {
        self.ranges.iter().chain(self.open.iter()).copied().collect()
    }

    /// Closed bad ranges beyond [`MAX_RANGES`], not listed.
    pub fn ranges_dropped(&self) -> u64 {
        self.ranges_dropped
    }

    /// The largest prefix of good blocks: bytes from the start to the first
    /// bad block (all of it when none is bad).
    pub fn usable_bytes(&self) -> u64 {
        self.first_bad.unwrap_or(self.end) - self.start()
    }

    /// Every byte that read back good, wherever it is.
    pub fn good_bytes(&self) -> u64 {
        self.bytes.good
    }

    /// The greatest common divisor of the misplaced blocks' distances from
    /// where they were written for (`None`: nothing misplaced).
    pub fn misplaced_period(&self) -> Option<u64> {
        (self.misplaced_gcd > 0).then_some(self.misplaced_gcd)
    }

    /// The period of a wrap, when the misplaced blocks show one: at least
    /// [`FAKE_MIN_BYTES`] misplaced, at least [`FAKE_MIN_SHARE`] of the bad
    /// bytes, every distance a multiple of a period of at least
    /// [`WRAP_MIN_PERIOD`].
    pub fn wrap_period(&self) -> Option<u64> {
        let b = &self.bytes;
        let p = self.misplaced_period()?;
        (p >= WRAP_MIN_PERIOD && b.misplaced >= FAKE_MIN_BYTES && b.misplaced as f64 >= FAKE_MIN_SHARE * b.bad() as f64).then_some(p)
    }

    /// Where a lost tail starts, when there is one: from the first bad
    /// block to the end, at least [`FAKE_TAIL_SHARE`] of the bytes are bad,
    /// at least [`FAKE_MIN_BYTES`] of them, and some good bytes come first.
    pub fn lost_tail(&self) -> Option<u64> {
        let first_bad = self.first_bad?;
        let bad = self.bytes.bad();
        (first_bad > self.start() && bad >= FAKE_MIN_BYTES && bad as f64 >= FAKE_TAIL_SHARE * (self.end - first_bad) as f64)
            .then_some(first_bad)
    }

    /// The summary, with its verdict.
    pub fn summary(&self) -> VerifySummary {
        let v = verdict(self);
        VerifySummary {
            from: self.start(),
            to: self.end,
            bytes: self.bytes,
            first_bad: self.first_bad,
            usable_bytes: self.usable_bytes(),
            good_bytes: self.good_bytes(),
            ranges: self.ranges(),
            ranges_dropped: self.ranges_dropped,
            message: v.sentence(self),
            verdict: v,
        }
    }
}

/// A verify pass as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifySummary {
    /// The verified range `[from, to)`.
    #[schemars(extend("x-unit" = "bytes"))]
    pub from: u64,
    /// Where the verified range ends (exclusive).
    #[schemars(extend("x-unit" = "bytes"))]
    pub to: u64,
    /// Bytes per class.
    pub bytes: ClassBytes,
    /// Where the first block that did not read back good is (offset).
    #[schemars(extend("x-unit" = "bytes"))]
    pub first_bad: Option<u64>,
    /// The largest prefix of good blocks.
    #[schemars(extend("x-unit" = "bytes"))]
    pub usable_bytes: u64,
    /// Every byte that read back good.
    #[schemars(extend("x-unit" = "bytes"))]
    pub good_bytes: u64,
    /// The bad ranges, in order (the first ones: see `ranges_dropped`).
    pub ranges: Vec<BadRange>,
    /// Bad ranges not listed in `ranges` (past the limit kept).
    #[schemars(extend("x-unit" = "count"))]
    pub ranges_dropped: u64,
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence for the user.
    pub message: String,
}

/// What a verify pass says about the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Verdict {
    /// Every block read back as written.
    Clean,
    /// The device stores less than it announces: it wraps (blocks come back
    /// misplaced by multiples of a period of at least [`WRAP_MIN_PERIOD`]),
    /// or everything from some offset on is lost. `real_bytes` is what it
    /// really keeps: the good bytes of a wrap (each real block holds the
    /// last block written to it, which reads back good where it was meant
    /// to go), the good prefix of a lost tail.
    FakeCapacity {
        /// What the device really keeps.
        #[schemars(extend("x-unit" = "bytes"))]
        real_bytes: u64,
    },
    /// Data came back wrong: damaged blocks, unrelated data, or blocks
    /// misplaced without a wrap's pattern.
    Corrupt,
    /// Writes did not land: blank or stale blocks where good ones were written.
    LostWrites,
    /// Only read errors.
    Unreadable,
}

/// The verdict on a verify pass of a whole device (written in ascending
/// order, then read), first match wins:
///
/// 1. nothing bad: [`Verdict::Clean`];
/// 2. a wrap ([`VerifyTally::wrap_period`]): at least [`FAKE_MIN_BYTES`]
///    misplaced, at least [`FAKE_MIN_SHARE`] of the bad bytes, and every
///    misplaced distance a multiple of one period of at least
///    [`WRAP_MIN_PERIOD`];
/// 3. a lost tail ([`VerifyTally::lost_tail`]): good blocks first, then
///    from the first bad block to the end at least [`FAKE_TAIL_SHARE`] bad
///    (of any class), at least [`FAKE_MIN_BYTES`] of it. A device that
///    funnels everything beyond its size onto a few blocks leaves those
///    few reading good at the very end, hence a share, not "all";
/// 4. silent damage — corrupted, garbage or misplaced blocks:
///    [`Verdict::Corrupt`], the worst kind, named even beside the others;
/// 5. blank or stale blocks: [`Verdict::LostWrites`];
/// 6. otherwise only read errors: [`Verdict::Unreadable`].
pub fn verdict(t: &VerifyTally) -> Verdict {
    let b = t.bytes();
    if b.bad() == 0 {
        return Verdict::Clean;
    }
    if t.wrap_period().is_some() {
        return Verdict::FakeCapacity { real_bytes: b.good };
    }
    if let Some(m) = t.lost_tail() {
        return Verdict::FakeCapacity { real_bytes: m };
    }
    if b.corrupted + b.garbage + b.misplaced > 0 {
        Verdict::Corrupt
    } else if b.blank + b.stale > 0 {
        Verdict::LostWrites
    } else {
        Verdict::Unreadable
    }
}

impl Verdict {
    /// The sentence the user reads, with the tally's figures.
    pub fn sentence(&self, t: &VerifyTally) -> String {
        let b = t.bytes();
        let at = |o: Option<u64>| o.map(|o| format!(" (first at offset {o})")).unwrap_or_default();
        match *self {
            Verdict::Clean => format!("all {} read back as written", fmt_bytes(b.total())),
            Verdict::FakeCapacity { real_bytes } => match t.wrap_period() {
                Some(p) => format!(
                    "fake capacity: the device keeps about {} of {}; addresses wrap every {} ({} came back from other offsets)",
                    fmt_bytes(real_bytes),
                    fmt_bytes(b.total()),
                    fmt_bytes(p),
                    fmt_bytes(b.misplaced)
                ),
                None => format!(
                    "fake capacity: the device keeps only the first {} of {}; what is written from offset {real_bytes} on does not read back",
                    fmt_bytes(real_bytes.saturating_sub(t.start())),
                    fmt_bytes(b.total())
                ),
            },
            Verdict::Corrupt => format!(
                "data corrupted: {} came back wrong{} ({} damaged, {} unrelated, {} from other offsets)",
                fmt_bytes(b.corrupted + b.garbage + b.misplaced),
                at(t.first_bad()),
                fmt_bytes(b.corrupted),
                fmt_bytes(b.garbage),
                fmt_bytes(b.misplaced)
            ),
            Verdict::LostWrites => format!(
                "writes lost: {} came back blank or old{}",
                fmt_bytes(b.blank + b.stale),
                at(t.first_bad())
            ),
            Verdict::Unreadable => format!("{} could not be read{}", fmt_bytes(b.unreadable), at(t.first_bad())),
        }
    }
}

#[cfg(test)]
#[path = "tally_tests.rs"]
mod tests;
