//! The pure core of `iolab flush` (issue 37): does a device keep what a
//! flush acknowledged? No I/O here.
//!
//! - [`FlushPlan`]: which stamped blocks each generation writes. The device
//!   is cut into [`FlushPlan::extents`] extents of a few blocks, spread
//!   over the span; generation `g` writes [`FlushPlan::batch_extents`] of
//!   them, chosen by a stride through them so that every batch is spread
//!   over the whole device, and every extent is written again a cycle
//!   later ([`FlushPlan::cycle`]): an acknowledged write that is lost then
//!   reads back as an older generation (stale), which says how far back.
//! - The log ([`header_line`], [`ack_line`], [`end_line`], [`parse_log`]):
//!   one header line naming the pass, the plan and the device, then one
//!   line per acknowledged generation, and an end line when the writer
//!   stopped by itself (no power cut), each with a checksum of its own
//!   text, so a line torn by a crash of the log's machine is told from a
//!   damaged log.
//! - [`FlushTally`]: the blocks read back after the power cut, each against
//!   what the log says was acknowledged there ([`Expect`]), summed up as
//!   [`FlushFindings`] with a [`FlushVerdict`]: honest, lied (acknowledged
//!   blocks lost or stale), or reordered (a later write survived where an
//!   earlier acknowledged one was lost: the device wrote across a flush out
//!   of order).
//!
//! The blocks are [`super::block`]'s: magic, offset, pass, generation,
//! checksum, regenerable payload.

use super::block::{BLOCK_U64, BlockState, Class, Header, classify};
use crate::base::thresholds::FLUSH_VERDICT_CYCLES;
use crate::base::units::fmt_bytes;
use crate::io::rng::splitmix64;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Blocks per extent at most: one 64 KiB write request each.
pub const EXTENT_BLOCKS: u64 = 16;
/// Extents at most: 1024 extents of 64 KiB are 64 MiB of the device,
/// enough places to find a lost write, few enough to read back in seconds.
pub const MAX_EXTENTS: u64 = 1024;
/// Lost ranges kept in [`FlushFindings::ranges`]; beyond, only counted.
pub const MAX_LOST_RANGES: usize = 10_000;
/// The log's first word, and its format's version.
pub const LOG_MAGIC: &str = "iolab-flush/1";

/// Which blocks each generation writes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlushPlan {
    /// The bytes of the device the extents are spread over.
    #[schemars(extend("x-unit" = "bytes"))]
    pub span_bytes: u64,
    /// Blocks (4 KiB) per extent: each extent is one write request.
    #[schemars(extend("x-unit" = "count"))]
    pub extent_blocks: u64,
    /// Extents spread over the span.
    #[schemars(extend("x-unit" = "count"))]
    pub extents: u64,
    /// Blocks from one extent's start to the next one's.
    #[schemars(extend("x-unit" = "count"))]
    pub spacing_blocks: u64,
    /// The step through the extents: generation g writes extent (k × stride) mod extents for k from g × batch_extents on.
    #[schemars(extend("x-unit" = "count"))]
    pub stride: u64,
    /// Extents each generation writes, before its flush.
    #[schemars(extend("x-unit" = "count"))]
    pub batch_extents: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl FlushPlan {
    /// The plan for a device of `span` bytes, each generation writing
    /// about `batch` bytes (a multiple of 4 KiB).
    pub fn new(span: u64, batch: u64) -> Result<FlushPlan, String> {
        if batch == 0 || !batch.is_multiple_of(BLOCK_U64) {
            return Err(format!("--batch must be a positive multiple of 4 KiB, got {batch}"));
        }
        let blocks = span / BLOCK_U64;
        let extent_blocks = EXTENT_BLOCKS.min(batch / BLOCK_U64);
        let extents = (blocks / extent_blocks).min(MAX_EXTENTS);
        let batch_extents = batch.div_ceil(extent_blocks * BLOCK_U64);
        if extents < 2 * batch_extents {
            return Err(format!(
                "the device ({}) is too small for a batch of {}: every generation must leave at least as much unwritten, so that later generations write the blocks again",
                fmt_bytes(span),
                fmt_bytes(batch)
            ));
        }
        let spacing_blocks = (blocks / extents) / extent_blocks * extent_blocks;
        let mut stride = ((extents as f64 * 0.618) as u64).max(1);
        while gcd(stride, extents) != 1 {
            stride += 1;
        }
        Ok(FlushPlan {
            span_bytes: span,
            extent_blocks,
            extents,
            spacing_blocks,
            stride,
            batch_extents,
        })
    }

    /// Bytes per extent.
    pub fn extent_bytes(&self) -> u64 {
        self.extent_blocks * BLOCK_U64
    }

    /// Where extent `e` starts on the device.
    pub fn extent_offset(&self, e: u64) -> u64 {
        e * self.spacing_blocks * BLOCK_U64
    }

    /// The extents generation `g` writes, in the order it writes them.
    pub fn extents_of(&self, g: u64) -> impl Iterator<Item = u64> + '_ {
        let from = g.wrapping_mul(self.batch_extents);
        (0..self.batch_extents).map(move |j| (from.wrapping_add(j) % self.extents) * self.stride % self.extents)
    }

    /// Generations until every extent has been written once more.
    pub fn cycle(&self) -> u64 {
        self.extents.div_ceil(self.batch_extents)
    }

    /// Acknowledged generations a verdict needs: every extent written
    /// [`FLUSH_VERDICT_CYCLES`] times, so a lost write reads back as an
    /// older generation of this run.
    pub fn enough_generations(&self) -> u64 {
        FLUSH_VERDICT_CYCLES * self.cycle()
    }

    /// The latest generation up to `last` that wrote each extent (`None`:
    /// none did).
    pub fn latest_writes(&self, last: u64) -> Vec<Option<u64>> {
        let mut out = vec![None; self.extents as usize];
        for g in last.saturating_sub(self.cycle() + 1)..=last {
            for e in self.extents_of(g) {
                out[e as usize] = Some(g);
            }
        }
        out
    }

    /// The extent that holds the byte at `offset`, if one does.
    pub fn extent_at(&self, offset: u64) -> Option<u64> {
        let spacing = self.spacing_blocks * BLOCK_U64;
        let e = offset / spacing;
        (e < self.extents && offset - e * spacing < self.extent_bytes()).then_some(e)
    }

    /// The first generation after `after` (from generation 0 when `None`)
    /// and up to `until` that wrote extent `e`.
    pub fn next_write(&self, e: u64, after: Option<u64>, until: u64) -> Option<u64> {
        (after.map_or(0, |a| a + 1)..=until).find(|&g| self.extents_of(g).any(|x| x == e))
    }

    /// Every extent the log's acknowledgements (up to `last_acked`) and the
    /// generation after it (possibly in flight at the cut) wrote, by offset:
    /// what [`FlushTally`] expects there.
    pub fn expectations(&self, last_acked: Option<u64>) -> Vec<(u64, Expect)> {
        let in_flight = last_acked.map_or(0, |a| a + 1);
        let acked = last_acked
            .map(|a| self.latest_writes(a))
            .unwrap_or_else(|| vec![None; self.extents as usize]);
        let mut flying = vec![false; self.extents as usize];
        for e in self.extents_of(in_flight) {
            flying[e as usize] = true;
        }
        let mut out: Vec<(u64, Expect)> = (0..self.extents)
            .filter(|&e| acked[e as usize].is_some() || flying[e as usize])
            .map(|e| {
                let expect = Expect {
                    acked: acked[e as usize],
                    in_flight: flying[e as usize].then_some(in_flight),
                };
                (self.extent_offset(e), expect)
            })
            .collect();
        out.sort_by_key(|(o, _)| *o);
        out
    }
}

// ---------------------------------------------------------------------- log

/// What the log's header says: the pass, the plan and the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogHeader {
    pub pass: u64,
    pub plan: FlushPlan,
    /// The device's identity ([`crate::summary::verify::device_identity`]).
    pub device: Option<String>,
}

/// A log read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlushLog {
    pub header: LogHeader,
    /// The last acknowledged generation (`None`: none was).
    pub last_acked: Option<u64>,
    /// The last line was torn (no newline, or its checksum fails): a crash
    /// while it was written; it is not counted.
    pub torn_tail: bool,
    /// The writer's own last line, when it stopped by itself: why
    /// (`done`: its `--generations` were written; `interrupted`: Ctrl-C).
    /// Then no power was cut while it wrote.
    pub ended: Option<String>,
}

/// The checksum of a line's text: a SplitMix64 fold over its bytes.
fn line_sum(text: &str) -> u64 {
    text.bytes().fold(0x6c6f_6766_6c75_7368, |h, b| splitmix64(h ^ b as u64))
}

/// `text sum=HEX\n`.
fn signed(text: String) -> String {
    let sum = line_sum(&text);
    format!("{text} sum={sum:016x}\n")
}

/// The text of a signed line, if its checksum holds.
fn verified(line: &str) -> Option<&str> {
    let (text, sum) = line.rsplit_once(" sum=")?;
    (u64::from_str_radix(sum, 16).ok()? == line_sum(text) && sum.len() == 16).then_some(text)
}

/// A device identity with its spaces, `%` and line breaks escaped, as one word.
fn escape(s: &str) -> String {
    s.replace('%', "%25").replace(' ', "%20").replace('\n', "%0A")
}

fn unescape(s: &str) -> String {
    s.replace("%20", " ").replace("%0A", "\n").replace("%25", "%")
}

/// The log's first line.
pub fn header_line(h: &LogHeader) -> String {
    let p = &h.plan;
    let mut text = format!(
        "{LOG_MAGIC} pass={:016x} span={} extent={} extents={} spacing={} stride={} batch={}",
        h.pass, p.span_bytes, p.extent_blocks, p.extents, p.spacing_blocks, p.stride, p.batch_extents
    );
    if let Some(d) = &h.device {
        text += &format!(" device={}", escape(d));
    }
    signed(text)
}

/// The line that says generation `g` was acknowledged, `secs` after the start.
pub fn ack_line(g: u64, secs: f64) -> String {
    signed(format!("ack {g} {secs:.3}"))
}

/// The writer's last line when it stops by itself, after `acked`
/// acknowledged generations: `end ACKED WHY` (`done`, `interrupted`).
/// A log that has it was not cut short by a power cut.
pub fn end_line(acked: u64, why: &str) -> String {
    signed(format!("end {acked} {why}"))
}

/// The end line's (acknowledged generations, why), if `line` is one and
/// its checksum holds.
pub fn parse_end_line(line: &str) -> Option<(u64, String)> {
    verified(line).and_then(|t| {
        let mut w = t.split(' ');
        (w.next() == Some("end")).then_some(())?;
        let n: u64 = w.next()?.parse().ok()?;
        let why = w.next().filter(|w| !w.is_empty())?.to_string();
        w.next().is_none().then_some((n, why))
    })
}

fn parse_header(text: &str) -> Result<LogHeader, String> {
    let mut words = text.split(' ');
    if words.next() != Some(LOG_MAGIC) {
        return Err(format!("not an iolab flush log (it does not start with {LOG_MAGIC})"));
    }
    let mut kv: BTreeMap<&str, &str> = BTreeMap::new();
    for w in words {
        let (k, v) = w.split_once('=').ok_or_else(|| format!("a header field without a value: {w}"))?;
        kv.insert(k, v);
    }
    let num = |k: &str| -> Result<u64, String> {
        kv.get(k)
            .ok_or_else(|| format!("the header has no {k}"))?
            .parse()
            .map_err(|_| format!("the header's {k} is not a number"))
    };
    let pass =
        u64::from_str_radix(kv.get("pass").ok_or("the header has no pass")?, 16).map_err(|_| "the header's pass is not hexadecimal")?;
    let plan = FlushPlan {
        span_bytes: num("span")?,
        extent_blocks: num("extent")?,
        extents: num("extents")?,
        spacing_blocks: num("spacing")?,
        stride: num("stride")?,
        batch_extents: num("batch")?,
    };
    let sane = plan.extent_blocks > 0
        && plan.extent_blocks <= EXTENT_BLOCKS
        && plan.extents > 0
        && plan.batch_extents > 0
        && plan.spacing_blocks >= plan.extent_blocks
        && plan.extents <= MAX_EXTENTS
        && plan.batch_extents.saturating_mul(2) <= plan.extents
        && plan
            .extents
            .checked_mul(plan.spacing_blocks)
            .and_then(|b| b.checked_mul(BLOCK_U64))
            .is_some_and(|b| b <= plan.span_bytes)
        && plan.stride < plan.extents.max(2)
        && gcd(plan.stride, plan.extents) == 1;
    if !sane {
        return Err("the header's plan does not fit its span".into());
    }
    Ok(LogHeader {
        pass,
        plan,
        device: kv.get("device").map(|d| unescape(d)),
    })
}

/// The header of a log's first line (without its newline), its checksum checked.
pub fn parse_header_line(line: &str) -> Result<LogHeader, String> {
    match verified(line) {
        Some(text) => parse_header(text),
        None if line.starts_with(LOG_MAGIC) => Err("its header line is damaged".into()),
        None => Err(format!("not an iolab flush log (it does not start with {LOG_MAGIC})")),
    }
}

/// The generation an acknowledgement line (without its newline) names, if
/// it is one and its checksum holds.
pub fn parse_ack_line(line: &str) -> Option<u64> {
    verified(line).and_then(|t| {
        let mut w = t.split(' ');
        (w.next() == Some("ack")).then_some(())?;
        let g: u64 = w.next()?.parse().ok()?;
        let _secs: f64 = w.next()?.parse().ok()?;
        w.next().is_none().then_some(g)
    })
}

/// Read a log: its header, then one acknowledgement per line, generations
/// 0, 1, 2… in order. A last line that is torn is left out and said
/// ([`FlushLog::torn_tail`]); a damaged line before it is an error (the
/// log cannot be trusted).
pub fn parse_log(text: &str) -> Result<FlushLog, String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut torn_tail = false;
    // A last line without its newline was being written when it stopped.
    if lines.last().is_some_and(|l| !l.ends_with('\n')) {
        lines.pop();
        torn_tail = true;
    }
    let n = lines.len();
    let mut it = lines.into_iter().map(|l| l.trim_end_matches('\n')).enumerate();
    let header = match it.next() {
        Some((_, l)) => parse_header_line(l)?,
        None => return Err("it is empty: the run stopped before its first line".into()),
    };
    let mut last_acked: Option<u64> = None;
    let mut ended: Option<String> = None;
    for (i, l) in it {
        if ended.is_some() {
            return Err(format!(
                "line {} comes after the writer's end line: the log is not one run's",
                i + 1
            ));
        }
        if let Some((n, why)) = parse_end_line(l) {
            if n != last_acked.map_or(0, |a| a + 1) {
                return Err(format!(
                    "line {} ends the run after {n} acknowledged generation(s), and the log holds {}",
                    i + 1,
                    last_acked.map_or(0, |a| a + 1)
                ));
            }
            ended = Some(why);
            continue;
        }
        match parse_ack_line(l) {
            Some(g) if g == last_acked.map_or(0, |a| a + 1) => last_acked = Some(g),
            Some(g) => {
                return Err(format!(
                    "line {} acknowledges generation {g} after {}: the log is not one run's",
                    i + 1,
                    last_acked.map_or("none".to_string(), |a| a.to_string())
                ));
            }
            None if i + 1 == n => torn_tail = true,
            None => return Err(format!("line {} is damaged", i + 1)),
        }
    }
    Ok(FlushLog {
        header,
        last_acked,
        torn_tail,
        ended,
    })
}

// ------------------------------------------------------------ classification

/// What the log says about an extent: the latest acknowledged generation
/// that wrote it, and the generation in flight at the cut, if it wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    pub acked: Option<u64>,
    pub in_flight: Option<u64>,
}

/// What a block read back as: a block of this run (intact, its own
/// offset) of some generation, or anything else by class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    Ours(u64),
    Other(Class),
}

/// Classify `block`, read at `offset`, for the run of `pass`.
pub fn found(block: &[u8], offset: u64, pass: u64) -> Found {
    match classify(block, offset, pass) {
        BlockState::Good => Found::Ours(Header::read(block).generation),
        s => Found::Other(s.class()),
    }
}

/// The verdict of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlushVerdict {
    /// Every acknowledged block read back as its latest acknowledged write (or a later one).
    Honest,
    /// Acknowledged blocks were lost or read back older: the flush returned before the data was stored.
    Lied,
    /// As lied, and a later write survived where an earlier acknowledged one was lost: writes were stored out of order across a flush.
    Reordered,
    /// The log holds no acknowledged generation: nothing to judge.
    NothingAcknowledged,
}

impl FlushVerdict {
    /// Whether the device failed the check (exit status 3).
    pub fn failed(self) -> bool {
        matches!(self, FlushVerdict::Lied | FlushVerdict::Reordered)
    }
}

/// A run of adjacent lost blocks of one class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LostRange {
    /// The first lost byte.
    #[schemars(extend("x-unit" = "bytes"))]
    pub from: u64,
    /// The byte after the last lost one.
    #[schemars(extend("x-unit" = "bytes"))]
    pub to: u64,
    /// What the blocks read back as (`stale`: an older write; see the generations).
    pub class: Class,
    /// The oldest acknowledged generation lost in the range.
    #[schemars(extend("x-unit" = "index"))]
    pub acked_from: u64,
    /// The newest acknowledged generation lost in the range.
    #[schemars(extend("x-unit" = "index"))]
    pub acked_to: u64,
    /// The oldest generation of this run found instead, when the blocks hold one.
    #[schemars(extend("x-unit" = "index"))]
    pub found_from: Option<u64>,
    /// The newest generation of this run found instead.
    #[schemars(extend("x-unit" = "index"))]
    pub found_to: Option<u64>,
}

/// A class and how many lost blocks read back as it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LostClass {
    /// What the blocks read back as (`stale`: an older write).
    pub class: Class,
    /// Blocks of this class.
    #[schemars(extend("x-unit" = "count"))]
    pub blocks: u64,
}

/// What a check found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FlushFindings {
    /// The last generation the log says was acknowledged (`null`: none).
    #[schemars(extend("x-unit" = "index"))]
    pub last_acknowledged: Option<u64>,
    /// Blocks (4 KiB) that some acknowledged generation wrote: each should hold its latest acknowledged write.
    #[schemars(extend("x-unit" = "count"))]
    pub acknowledged_blocks: u64,
    /// Of those, the blocks that hold it.
    #[schemars(extend("x-unit" = "count"))]
    pub intact_blocks: u64,
    /// Of those, the blocks that hold a later write (the generation in flight at the cut): kept, and more.
    #[schemars(extend("x-unit" = "count"))]
    pub newer_blocks: u64,
    /// Of those, the blocks that lost their acknowledged write.
    #[schemars(extend("x-unit" = "count"))]
    pub lost_blocks: u64,
    /// Of the lost, the blocks that hold an older generation of this run (stale).
    #[schemars(extend("x-unit" = "count"))]
    pub stale_blocks: u64,
    /// The lost blocks by what they read back as.
    pub lost_classes: Vec<LostClass>,
    /// The oldest acknowledged generation with a lost block.
    #[schemars(extend("x-unit" = "index"))]
    pub oldest_lost_generation: Option<u64>,
    /// Generations from the oldest lost one to the last acknowledged one (0: only the last was hit).
    #[schemars(extend("x-unit" = "count"))]
    pub generations_back: Option<u64>,
    /// The most generations a stale block went back (its acknowledged generation less the one it holds).
    #[schemars(extend("x-unit" = "count"))]
    pub max_stale_back: Option<u64>,
    /// The oldest acknowledged write that was lost: for a block that holds an older generation of this run, the write that followed that one; for a block that holds none, its acknowledged one.
    #[schemars(extend("x-unit" = "index"))]
    pub oldest_lost_write: Option<u64>,
    /// Blocks of this run that survived with a generation later than the oldest lost write's: stored out of order across a flush.
    #[schemars(extend("x-unit" = "count"))]
    pub reordered_blocks: u64,
    /// Blocks the generation in flight at the cut (never acknowledged) wrote.
    #[schemars(extend("x-unit" = "count"))]
    pub in_flight_blocks: u64,
    /// Of those, the blocks that hold it (no promise was made about them).
    #[schemars(extend("x-unit" = "count"))]
    pub in_flight_landed: u64,
    /// The lost blocks as ranges, by offset (at most 10,000).
    pub ranges: Vec<LostRange>,
    /// Ranges beyond those kept.
    #[schemars(extend("x-unit" = "count"))]
    pub ranges_dropped: u64,
    /// The verdict: honest, lied, reordered or nothing acknowledged.
    pub verdict: FlushVerdict,
    /// The verdict in a sentence.
    pub message: String,
}

/// The blocks of a check, pushed in ascending offset order.
#[derive(Debug, Default)]
pub struct FlushTally {
    /// The run's plan, which says which generations wrote a block: without
    /// it, a lost block's oldest lost write is taken as its acknowledged one.
    plan: Option<FlushPlan>,
    /// The oldest lost write of each extent already seen, by what it held.
    next_writes: BTreeMap<(u64, Option<u64>), Option<u64>>,
    oldest_lost_write: Option<u64>,
    acked: u64,
    intact: u64,
    newer: u64,
    lost: u64,
    stale: u64,
    classes: BTreeMap<Class, u64>,
    oldest_lost: Option<u64>,
    max_stale_back: Option<u64>,
    /// Generations of this run's blocks found, and how many blocks each.
    survivors: BTreeMap<u64, u64>,
    in_flight: u64,
    in_flight_landed: u64,
    ranges: Vec<LostRange>,
    ranges_dropped: u64,
    /// The last lost block's offset and class (to extend its range).
    last_lost: Option<(u64, Class)>,
}

impl FlushTally {
    pub fn new() -> FlushTally {
        FlushTally::default()
    }

    /// A tally that knows the run's plan, and so each lost block's oldest
    /// lost write (what tells a reordering device from one that loses the
    /// tail of what it was sent).
    pub fn with_plan(plan: FlushPlan) -> FlushTally {
        FlushTally {
            plan: Some(plan),
            ..FlushTally::default()
        }
    }

    /// The oldest write to the block at `offset`, acknowledged up to
    /// `acked`, that is not on the device, which holds generation `ours`
    /// (`None`: nothing of this run, and then `acked`).
    fn lost_write(&mut self, offset: u64, acked: u64, ours: Option<u64>) -> u64 {
        // A block that holds nothing of this run (blank, another run's,
        // garbage) does not say which of its writes went first: its
        // acknowledged one is the only one known lost.
        let (Some(plan), Some(_)) = (self.plan, ours) else {
            return acked;
        };
        let Some(e) = plan.extent_at(offset) else { return acked };
        *self
            .next_writes
            .entry((e, ours))
            .or_insert_with(|| plan.next_write(e, ours, acked))
            .get_or_insert(acked)
    }

    /// The block at `offset`, expected as `expect`, read back as `found`.
    pub fn push(&mut self, offset: u64, expect: Expect, found: Found) {
        if let Found::Ours(h) = found {
            *self.survivors.entry(h).or_default() += 1;
        }
        if let Some(f) = expect.in_flight {
            self.in_flight += 1;
            if found == Found::Ours(f) {
                self.in_flight_landed += 1;
            }
        }
        let Some(l) = expect.acked else { return };
        self.acked += 1;
        match found {
            Found::Ours(h) if h == l => self.intact += 1,
            Found::Ours(h) if h > l => self.newer += 1,
            Found::Ours(h) => self.lose(offset, l, Class::Stale, Some(h)),
            Found::Other(c) => self.lose(offset, l, c, None),
        }
    }

    fn lose(&mut self, offset: u64, acked: u64, class: Class, ours: Option<u64>) {
        self.lost += 1;
        *self.classes.entry(class).or_default() += 1;
        self.oldest_lost = Some(self.oldest_lost.map_or(acked, |o| o.min(acked)));
        let w = self.lost_write(offset, acked, ours);
        self.oldest_lost_write = Some(self.oldest_lost_write.map_or(w, |o| o.min(w)));
        if let Some(h) = ours {
            self.stale += 1;
            self.max_stale_back = Some(self.max_stale_back.unwrap_or(0).max(acked - h));
        }
        let extend = self.last_lost == Some((offset.wrapping_sub(BLOCK_U64), class)) && self.ranges_dropped == 0;
        self.last_lost = Some((offset, class));
        if extend && let Some(r) = self.ranges.last_mut() {
            r.to = offset + BLOCK_U64;
            r.acked_from = r.acked_from.min(acked);
            r.acked_to = r.acked_to.max(acked);
            if let Some(h) = ours {
                r.found_from = Some(r.found_from.map_or(h, |f| f.min(h)));
                r.found_to = Some(r.found_to.map_or(h, |f| f.max(h)));
            }
            return;
        }
        if self.ranges.len() >= MAX_LOST_RANGES {
            self.ranges_dropped += 1;
            return;
        }
        self.ranges.push(LostRange {
            from: offset,
            to: offset + BLOCK_U64,
            class,
            acked_from: acked,
            acked_to: acked,
            found_from: ours,
            found_to: ours,
        });
    }

    /// The findings, given the log's last acknowledged generation.
    pub fn summary(self, last_acknowledged: Option<u64>) -> FlushFindings {
        // A device that stores in the order it was sent loses a tail of
        // it: no block it kept holds a write later than one it lost.
        let reordered: u64 = self
            .oldest_lost_write
            .map_or(0, |o| self.survivors.range(o + 1..).map(|(_, n)| n).sum());
        let verdict = if last_acknowledged.is_none() || self.acked == 0 {
            FlushVerdict::NothingAcknowledged
        } else if self.lost == 0 {
            FlushVerdict::Honest
        } else if reordered > 0 {
            FlushVerdict::Reordered
        } else {
            FlushVerdict::Lied
        };
        let generations_back = match (last_acknowledged, self.oldest_lost) {
            (Some(a), Some(o)) => Some(a.saturating_sub(o)),
            _ => None,
        };
        let mut f = FlushFindings {
            last_acknowledged,
            acknowledged_blocks: self.acked,
            intact_blocks: self.intact,
            newer_blocks: self.newer,
            lost_blocks: self.lost,
            stale_blocks: self.stale,
            lost_classes: self
                .classes
                .into_iter()
                .map(|(class, blocks)| LostClass { class, blocks })
                .collect(),
            oldest_lost_generation: self.oldest_lost,
            oldest_lost_write: self.oldest_lost_write,
            generations_back,
            max_stale_back: self.max_stale_back,
            reordered_blocks: reordered,
            in_flight_blocks: self.in_flight,
            in_flight_landed: self.in_flight_landed,
            ranges: self.ranges,
            ranges_dropped: self.ranges_dropped,
            verdict,
            message: String::new(),
        };
        f.message = message(&f);
        f
    }
}

/// Blocks as "312 blocks (1.22 MiB)".
fn blocks(n: u64) -> String {
    format!("{n} block(s) ({})", fmt_bytes(n * BLOCK_U64))
}

/// The verdict in a sentence, with its figures.
fn message(f: &FlushFindings) -> String {
    let gens = f.last_acknowledged.map_or(0, |a| a + 1);
    match f.verdict {
        FlushVerdict::NothingAcknowledged => {
            "nothing to judge: the log holds no acknowledged generation (the run stopped before its first flush returned)".to_string()
        }
        FlushVerdict::Honest => format!(
            "every acknowledged block is there: {} of {gens} acknowledged generation(s) read back as written{}",
            blocks(f.acknowledged_blocks),
            if f.newer_blocks > 0 {
                format!(" ({} with the unacknowledged write that followed)", f.newer_blocks)
            } else {
                String::new()
            }
        ),
        FlushVerdict::Lied | FlushVerdict::Reordered => {
            let oldest = f.oldest_lost_generation.unwrap_or(0);
            let mut s = format!(
                "the flush lied: {} of {} acknowledged did not read back as written, in {} range(s); the oldest was acknowledged in generation {oldest} of {gens} ({} generation(s) before the last acknowledgement)",
                blocks(f.lost_blocks),
                blocks(f.acknowledged_blocks),
                f.ranges.len() as u64 + f.ranges_dropped,
                f.generations_back.unwrap_or(0),
            );
            if f.stale_blocks > 0 {
                s += &format!(
                    "; {} hold an older generation (up to {} back)",
                    f.stale_blocks,
                    f.max_stale_back.unwrap_or(0)
                );
            }
            if f.lost_blocks > f.stale_blocks {
                s += &format!("; {} hold other data (never written, or blank)", f.lost_blocks - f.stale_blocks);
            }
            if f.verdict == FlushVerdict::Reordered {
                s += &format!(
                    "; written out of order across a flush: {} of later generations survived while generation {}'s acknowledged writes were lost",
                    blocks(f.reordered_blocks),
                    f.oldest_lost_write.unwrap_or(oldest)
                );
            }
            s
        }
    }
}

#[cfg(test)]
#[path = "flush_tests.rs"]
mod tests;
