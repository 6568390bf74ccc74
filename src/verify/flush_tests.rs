//! Tests of `iolab flush`'s core: the plan, the log (a round trip, a torn
//! last line, a damaged one), and the classification on a simulated
//! device with a volatile write cache: honest, lying, reordering.

use super::*;
use crate::verify::block::{BLOCK, fill_generation};
use std::collections::{BTreeSet, HashMap};

const PASS: u64 = 0xf105_0000_0000_0037;
const MIB: u64 = 1 << 20;

fn plan() -> FlushPlan {
    // 4 MiB, 128 KiB per generation: 64 extents of 64 KiB, 2 per generation.
    FlushPlan::new(4 * MIB, 128 << 10).unwrap()
}

#[test]
fn the_plan_spreads_each_generation_and_rewrites_every_extent_each_cycle() {
    let p = plan();
    assert_eq!((p.extent_blocks, p.extents, p.batch_extents), (16, 64, 2));
    assert_eq!(p.cycle(), 32);
    assert_eq!(p.enough_generations(), 2 * 32);
    assert!(p.extent_offset(p.extents - 1) + p.extent_bytes() <= p.span_bytes);
    // Over a cycle, every extent is written exactly once.
    let mut seen = vec![0u32; p.extents as usize];
    for g in 0..p.cycle() {
        let batch: Vec<u64> = p.extents_of(g).collect();
        assert_eq!(batch.len(), 2);
        assert_ne!(batch[0], batch[1], "a batch writes distinct extents");
        // Spread: the two extents of a batch are far apart.
        assert!(batch[0].abs_diff(batch[1]) >= 8, "{batch:?}");
        for e in batch {
            seen[e as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
    // latest_writes is what a scan of every generation gives.
    for last in [0, 5, 31, 32, 77] {
        let mut brute = vec![None; p.extents as usize];
        for g in 0..=last {
            for e in p.extents_of(g) {
                brute[e as usize] = Some(g);
            }
        }
        assert_eq!(p.latest_writes(last), brute, "last {last}");
    }
    // A big device: at most MAX_EXTENTS, spread over all of it.
    let big = FlushPlan::new(1 << 40, MIB).unwrap();
    assert_eq!((big.extents, big.batch_extents), (MAX_EXTENTS, 16));
    assert!(big.extent_offset(MAX_EXTENTS - 1) > (1 << 40) / 2);
}

#[test]
fn a_plan_too_big_for_the_device_is_refused() {
    assert!(FlushPlan::new(MIB, MIB).unwrap_err().contains("too small"));
    assert!(FlushPlan::new(4 * MIB, 1000).is_err(), "not whole blocks");
    assert!(FlushPlan::new(4 * MIB, 0).is_err());
}

fn log_text(acked: u64) -> String {
    let h = LogHeader {
        pass: PASS,
        plan: plan(),
        device: Some("model:Cruzer Blade 100%:4194304".into()),
    };
    let mut t = header_line(&h);
    for g in 0..acked {
        t += &ack_line(g, g as f64 * 0.01);
    }
    t
}

#[test]
fn the_log_reads_back_as_written() {
    let log = parse_log(&log_text(40)).unwrap();
    assert_eq!(log.header.pass, PASS);
    assert_eq!(log.header.plan, plan());
    assert_eq!(log.header.device.as_deref(), Some("model:Cruzer Blade 100%:4194304"));
    assert_eq!(log.last_acked, Some(39));
    assert!(!log.torn_tail);
    let none = parse_log(&log_text(0)).unwrap();
    assert_eq!(none.last_acked, None);
}

/// A writer that stopped by itself says so in its last line; a log cut
/// short by a power cut has none. Nothing may follow it, and it must count
/// the generations the log holds.
#[test]
fn the_writers_end_line_says_no_power_was_cut() {
    assert_eq!(parse_log(&log_text(40)).unwrap().ended, None);
    let done = log_text(40) + &end_line(40, "done");
    let log = parse_log(&done).unwrap();
    assert_eq!((log.last_acked, log.ended.as_deref()), (Some(39), Some("done")));
    let none = parse_log(&(log_text(0) + &end_line(0, "interrupted"))).unwrap();
    assert_eq!((none.last_acked, none.ended.as_deref()), (None, Some("interrupted")));
    let after = done.clone() + &ack_line(40, 1.0);
    assert!(parse_log(&after).unwrap_err().contains("after the writer's end line"));
    let miscounted = log_text(40) + &end_line(39, "done");
    assert!(parse_log(&miscounted).unwrap_err().contains("ends the run after 39"));
    // Torn, it is no end: the writer died while writing it.
    let torn = &done[..done.len() - 5];
    let log = parse_log(torn).unwrap();
    assert_eq!((log.ended, log.torn_tail), (None, true));
}

#[test]
fn a_torn_last_line_is_left_out_and_said() {
    let text = log_text(40);
    // Cut inside the last line: no newline.
    let torn = &text[..text.len() - 10];
    let log = parse_log(torn).unwrap();
    assert_eq!(log.last_acked, Some(38));
    assert!(log.torn_tail);
    // A whole last line whose bytes are damaged (a torn sector): the same.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let last = lines.pop().unwrap();
    lines.push(last.replace("ack 39", "ack 3\0"));
    let log = parse_log(&(lines.join("\n") + "\n")).unwrap();
    assert_eq!(log.last_acked, Some(38));
    assert!(log.torn_tail);
}

#[test]
fn a_damaged_or_foreign_log_is_an_error() {
    let text = log_text(10);
    let damaged = text.replacen("ack 4 ", "ack 5 ", 1);
    assert!(
        parse_log(&damaged).unwrap_err().contains("line 6 is damaged"),
        "{:?}",
        parse_log(&damaged)
    );
    // A line that skips a generation, with a valid checksum: not one run's log.
    let mut gap = log_text(3);
    gap += &ack_line(7, 1.0);
    assert!(parse_log(&gap).unwrap_err().contains("generation 7"));
    assert!(parse_log("").unwrap_err().contains("empty"));
    assert!(parse_log("hello\n").unwrap_err().contains("not an iolab flush log"));
    let bad_header = text.replacen("stride=", "stride=9", 1);
    assert!(parse_log(&bad_header).unwrap_err().contains("header"));
}

/// A device with a volatile write cache, block by block: writes go to the
/// cache in order; `drain` stores some (oldest first, or newest first for
/// a reordering device); `cut` drops the rest and says which.
struct Sim {
    plan: FlushPlan,
    media: HashMap<u64, Vec<u8>>,
    cache: Vec<(u64, u64, Vec<u8>)>,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            plan: plan(),
            media: HashMap::new(),
            cache: Vec::new(),
        }
    }

    fn write(&mut self, g: u64) {
        let p = self.plan;
        for e in p.extents_of(g) {
            let off = p.extent_offset(e);
            let mut buf = vec![0u8; p.extent_bytes() as usize];
            fill_generation(&mut buf, off, PASS, g);
            for (k, b) in buf.chunks_exact(BLOCK).enumerate() {
                self.cache.push((off + k as u64 * BLOCK_U64, g, b.to_vec()));
            }
        }
    }

    fn drain(&mut self, blocks: usize, newest_first: bool) {
        for _ in 0..blocks.min(self.cache.len()) {
            let (o, _, b) = if newest_first {
                self.cache.pop().unwrap()
            } else {
                self.cache.remove(0)
            };
            self.media.insert(o, b);
        }
    }

    /// The writes dropped: (offset, generation).
    fn cut(&mut self) -> Vec<(u64, u64)> {
        std::mem::take(&mut self.cache).into_iter().map(|(o, g, _)| (o, g)).collect()
    }

    fn check(&self, last_acked: Option<u64>) -> FlushFindings {
        let p = self.plan;
        let mut t = FlushTally::with_plan(p);
        for (off, ex) in p.expectations(last_acked) {
            for k in 0..p.extent_blocks {
                let o = off + k * BLOCK_U64;
                let b = self.media.get(&o).cloned().unwrap_or_else(|| vec![0u8; BLOCK]);
                t.push(o, ex, found(&b, o, PASS));
            }
        }
        t.summary(last_acked)
    }
}

fn lost_blocks(f: &FlushFindings) -> BTreeSet<u64> {
    f.ranges.iter().flat_map(|r| (r.from..r.to).step_by(BLOCK)).collect()
}

#[test]
fn an_honest_device_keeps_every_acknowledged_block() {
    let mut d = Sim::new();
    for g in 0..80 {
        d.write(g);
        d.drain(usize::MAX, false);
    }
    // Generation 80 in flight at the cut: half of it stored.
    d.write(80);
    d.drain(16, false);
    let dropped = d.cut();
    assert_eq!(dropped.len(), 16);
    let f = d.check(Some(79));
    assert_eq!(f.verdict, FlushVerdict::Honest, "{}", f.message);
    assert!(!f.verdict.failed());
    assert_eq!(f.acknowledged_blocks, 64 * 16, "every extent was acknowledged");
    assert_eq!(f.lost_blocks, 0);
    assert_eq!(f.intact_blocks + f.newer_blocks, f.acknowledged_blocks);
    assert_eq!(f.newer_blocks, 16, "the stored half of generation 80");
    assert_eq!((f.in_flight_blocks, f.in_flight_landed), (32, 16));
    assert!(f.ranges.is_empty());
    assert!(
        f.message.starts_with("every acknowledged block is there: 1024 block(s)"),
        "{}",
        f.message
    );
}

#[test]
fn a_lying_device_loses_exactly_the_acknowledged_blocks_it_dropped() {
    let mut d = Sim::new();
    // The media stores 31 blocks while 32 are written: the flush lies, and
    // the cache grows by a block per generation.
    for g in 0..80 {
        d.write(g);
        d.drain(31, false);
    }
    let dropped = d.cut();
    assert_eq!(dropped.len(), 80);
    let truth: BTreeSet<u64> = dropped.iter().filter(|(_, g)| *g <= 79).map(|(o, _)| *o).collect();
    let f = d.check(Some(79));
    assert_eq!(f.verdict, FlushVerdict::Lied, "{}", f.message);
    assert!(f.verdict.failed());
    assert_eq!(lost_blocks(&f), truth, "block for block");
    assert_eq!(f.lost_blocks, 80);
    assert_eq!(f.reordered_blocks, 0, "in order: nothing newer survived");
    // Generation 77's second extent and 78-79 were dropped.
    assert_eq!(f.oldest_lost_generation, Some(77));
    assert_eq!(f.generations_back, Some(2));
    // Each holds the write of the cycle before: 32 generations back.
    assert_eq!((f.stale_blocks, f.max_stale_back), (80, Some(32)), "{f:?}");
    assert!(f.message.starts_with("the flush lied: 80 block(s)"), "{}", f.message);
    assert!(f.message.contains("generation 77 of 80"), "{}", f.message);
}

#[test]
fn a_reordering_device_is_named_as_such() {
    let mut d = Sim::new();
    // Newest first: an older acknowledged write stays in the cache while
    // later ones reach the media.
    for g in 0..80 {
        d.write(g);
        d.drain(16, true);
    }
    d.cut();
    let f = d.check(Some(79));
    assert_eq!(f.verdict, FlushVerdict::Reordered, "{}", f.message);
    assert!(f.verdict.failed());
    assert!(f.reordered_blocks > 0);
    assert!(f.message.contains("out of order"), "{}", f.message);
}

/// What the emulated reordering drive left at a cut (issue 37): only the
/// last generation's acknowledged blocks lost, but they hold a write two
/// cycles old, so the write of the cycle between was lost too while every
/// later generation was stored: out of order, though nothing newer than the
/// last acknowledged generation survived.
#[test]
fn a_lost_write_older_than_the_last_acknowledged_one_is_reordering() {
    let mut d = Sim::new();
    for g in 0..80 {
        d.write(g);
        d.drain(usize::MAX, false);
    }
    let p = d.plan;
    let e = p.extents_of(79).next().unwrap();
    let writes: Vec<u64> = (0..80).filter(|&g| p.extents_of(g).any(|x| x == e)).collect();
    assert_eq!(writes, vec![15, 47, 79]);
    assert_eq!(p.next_write(e, Some(15), 79), Some(47));
    assert_eq!(p.next_write(e, None, 79), Some(15));
    let off = p.extent_offset(e);
    assert_eq!(p.extent_at(off + 4096), Some(e));
    assert_eq!(p.extent_at(p.extent_offset(p.extents)), None, "past the last extent");
    // The media still holds generation 15 there: 47's and 79's writes were lost.
    let mut buf = vec![0u8; p.extent_bytes() as usize];
    fill_generation(&mut buf, off, PASS, 15);
    for (k, b) in buf.chunks_exact(BLOCK).enumerate() {
        d.media.insert(off + k as u64 * BLOCK_U64, b.to_vec());
    }
    let f = d.check(Some(79));
    assert_eq!(f.oldest_lost_generation, Some(79));
    assert_eq!(f.oldest_lost_write, Some(47));
    assert_eq!(f.verdict, FlushVerdict::Reordered, "{}", f.message);
    // Generations 48 to 78 wrote 31 x 2 extents of 16 blocks, and 79 its other one.
    assert_eq!(f.reordered_blocks, (31 * 2 + 1) * 16, "{f:?}");
    assert!(f.message.contains("generation 47's acknowledged writes were lost"), "{}", f.message);
}

#[test]
fn nothing_acknowledged_is_nothing_to_judge() {
    let mut d = Sim::new();
    d.write(0);
    d.cut();
    let f = d.check(None);
    assert_eq!(f.verdict, FlushVerdict::NothingAcknowledged);
    assert!(!f.verdict.failed());
    assert_eq!(f.acknowledged_blocks, 0);
    assert_eq!(f.in_flight_blocks, 32);
}

#[test]
fn adjacent_lost_blocks_of_one_class_make_one_range() {
    let ex = Expect {
        acked: Some(5),
        in_flight: None,
    };
    let mut t = FlushTally::new();
    t.push(0, ex, Found::Other(Class::Blank));
    t.push(4096, ex, Found::Other(Class::Blank));
    t.push(8192, ex, Found::Ours(3));
    t.push(12288, ex, Found::Ours(5));
    t.push(16384, ex, Found::Other(Class::Blank));
    let f = t.summary(Some(5));
    let r: Vec<(u64, u64, Class)> = f.ranges.iter().map(|r| (r.from, r.to, r.class)).collect();
    assert_eq!(
        r,
        vec![(0, 8192, Class::Blank), (8192, 12288, Class::Stale), (16384, 20480, Class::Blank)]
    );
    assert_eq!(f.ranges[1].found_from, Some(3));
    assert_eq!((f.lost_blocks, f.stale_blocks, f.intact_blocks), (4, 1, 1));
    assert_eq!(f.max_stale_back, Some(2));
    // A block of generation 5 survived while generation 5's were lost: same generation, no reordering.
    assert_eq!(f.verdict, FlushVerdict::Lied);
}
