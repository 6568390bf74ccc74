//! Tests of the verify tally: counting, ranges, the usable size, the
//! memory bound, each verdict at its thresholds, and whole passes over
//! simulated devices.

use super::*;
use crate::base::thresholds::{FAKE_MIN_BYTES, FAKE_MIN_SHARE, FAKE_TAIL_SHARE, WRAP_MIN_PERIOD};
use crate::verify::tests::sim::{Lost, Map, SimDevice};
use proptest::prelude::*;

const B: u64 = BLOCK_U64;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const GOOD: BlockState = BlockState::Good;

/// A tally of runs `(blocks, state)` pushed from offset 0.
fn tally(runs: &[(u64, BlockState)]) -> VerifyTally {
    let mut t = VerifyTally::new();
    let mut off = 0;
    for &(n, s) in runs {
        t.push_blocks(off, n, s);
        off += n * B;
    }
    t
}

fn mis(written_for: u64) -> BlockState {
    BlockState::Misplaced { written_for }
}

#[test]
fn a_clean_pass() {
    let mut t = VerifyTally::new();
    for k in 0..100 {
        t.push(k * B, GOOD);
    }
    assert_eq!(t.bytes().good, 100 * B);
    assert_eq!(t.bytes().bad(), 0);
    assert_eq!(t.first_bad(), None);
    assert_eq!(t.usable_bytes(), 100 * B);
    assert_eq!(t.good_bytes(), 100 * B);
    assert!(t.ranges().is_empty());
    assert_eq!(verdict(&t), Verdict::Clean);
    assert_eq!(t.summary().message, "all 400.00 KiB read back as written");
}

#[test]
fn every_class_is_counted_and_ranged() {
    let states = [
        GOOD,
        BlockState::Corrupted,
        mis(9 * B),
        BlockState::Stale { pass: 7 },
        BlockState::Blank,
        BlockState::Garbage,
        BlockState::Unreadable,
    ];
    let mut t = VerifyTally::new();
    for (k, &s) in states.iter().enumerate() {
        t.push(k as u64 * B, s);
    }
    for c in Class::ALL {
        assert_eq!(t.bytes().get(c), B, "{c:?}");
    }
    assert_eq!(t.bytes().total(), 7 * B);
    assert_eq!(t.bytes().bad(), 6 * B);
    assert_eq!(t.first_bad(), Some(B));
    assert_eq!(t.usable_bytes(), B);
    let r = t.ranges();
    assert_eq!(r.len(), 6, "{r:?}");
    assert_eq!(
        r.iter().map(|r| r.class).collect::<Vec<_>>(),
        &Class::ALL[1..],
        "one range per class, in order"
    );
    assert_eq!(r[1].written_for_from, Some(9 * B));
    assert_eq!(r[2].pass, Some(7));
    assert!(r.iter().all(|r| r.bytes() == B));
}

#[test]
fn consecutive_blocks_of_a_class_merge() {
    let t = tally(&[
        (2, GOOD),
        (3, BlockState::Blank),
        (1, BlockState::Blank),
        (1, GOOD),
        (2, BlockState::Blank),
        (2, BlockState::Garbage),
    ]);
    let r = t.ranges();
    assert_eq!(
        r.iter().map(|r| (r.from / B, r.to / B, r.class)).collect::<Vec<_>>(),
        [(2, 6, Class::Blank), (7, 9, Class::Blank), (9, 11, Class::Garbage)]
    );
}

#[test]
fn misplaced_blocks_merge_only_while_they_continue() {
    let mut t = VerifyTally::new();
    // Blocks 0..3 written for 100..103: one range.
    for k in 0..3 {
        t.push(k * B, mis((100 + k) * B));
    }
    // Block 3 written for 50: a new range (the distance changed).
    t.push(3 * B, mis(50 * B));
    // Block 4 written for 51: continues it.
    t.push(4 * B, mis(51 * B));
    // Block 5 written for 51 again (two offsets onto one block): new range.
    t.push(5 * B, mis(51 * B));
    let r = t.ranges();
    assert_eq!(
        r.iter()
            .map(|r| (r.from / B, r.to / B, r.written_for_from.unwrap() / B))
            .collect::<Vec<_>>(),
        [(0, 3, 100), (3, 5, 50), (5, 6, 51)]
    );
}

#[test]
fn stale_blocks_merge_only_within_one_pass() {
    let t = tally(&[
        (2, BlockState::Stale { pass: 1 }),
        (2, BlockState::Stale { pass: 2 }),
        (1, BlockState::Stale { pass: 2 }),
    ]);
    let r = t.ranges();
    assert_eq!(
        r.iter().map(|r| (r.bytes() / B, r.pass)).collect::<Vec<_>>(),
        [(2, Some(1)), (3, Some(2))]
    );
}

#[test]
fn a_pass_may_start_anywhere() {
    let mut t = VerifyTally::new();
    t.push_blocks(GIB, 10, GOOD);
    t.push(GIB + 10 * B, BlockState::Blank);
    assert_eq!(t.start(), GIB);
    assert_eq!(t.end(), GIB + 11 * B);
    assert_eq!(t.usable_bytes(), 10 * B);
    assert_eq!(t.first_bad(), Some(GIB + 10 * B));
}

#[test]
#[should_panic(expected = "verify blocks come in order")]
fn blocks_out_of_order_are_refused() {
    let mut t = VerifyTally::new();
    t.push(0, GOOD);
    t.push(2 * B, GOOD);
}

/// A device bad in every other block keeps MAX_RANGES ranges, counts the
/// rest, and every byte still counts.
#[test]
fn memory_stays_bounded() {
    let mut t = VerifyTally::new();
    let n = 2 * MAX_RANGES as u64 + 100;
    for k in 0..n {
        t.push(2 * k * B, GOOD);
        t.push((2 * k + 1) * B, BlockState::Corrupted);
    }
    assert_eq!(t.ranges().len(), MAX_RANGES + 1, "the kept ranges and the open one");
    assert_eq!(t.ranges_dropped(), n - MAX_RANGES as u64 - 1);
    assert_eq!(t.bytes().corrupted, n * B);
    assert_eq!(t.bytes().good, n * B);
    assert_eq!(t.ranges()[0].from, B, "the first ones are kept");
}

// ------------------------------------------------------------------ verdicts

/// A wrap at M of an announced k·M, written in ascending order: every
/// block's storage holds the last one written to it, so the top M reads
/// good and each M below reads back the top one's blocks.
fn wrap_pass(m: u64, announced: u64) -> VerifyTally {
    let mut t = VerifyTally::new();
    let top = (announced - 1) / m * m; // where the last (partial) copy starts
    let mut off = 0;
    while off < top {
        let len = m.min(top - off).min(announced - top);
        // [off, off+len) aliases [top, top+len): misplaced, written for top..
        t.push_blocks(off, len / B, mis(top + (off % m)));
        if len < m {
            // The part of this copy beyond the top copy's reach: its own last writer.
            t.push_blocks(off + len, (m - len) / B, GOOD);
        }
        off += m;
    }
    t.push_blocks(top, (announced - top) / B, GOOD);
    t
}

#[test]
fn a_wrap_at_a_power_of_two_is_fake_capacity() {
    // 8 GiB of 128 GiB: fifteen copies misplaced, the top one good.
    let t = wrap_pass(8 * GIB, 128 * GIB);
    assert_eq!(t.bytes().misplaced, 120 * GIB);
    assert_eq!(t.good_bytes(), 8 * GIB);
    assert_eq!(t.usable_bytes(), 0, "the front was overwritten by the wrap");
    assert_eq!(t.first_bad(), Some(0));
    assert_eq!(t.misplaced_period(), Some(8 * GIB));
    assert_eq!(t.ranges().len(), 15);
    assert_eq!(t.ranges()[0].written_for_from, Some(120 * GIB));
    assert_eq!(
        t.ranges()[14].written_for_from,
        Some(128 * GIB - 8 * GIB),
        "the copy just below the top"
    );
    assert_eq!(verdict(&t), Verdict::FakeCapacity { real_bytes: 8 * GIB });
    let s = t.summary();
    assert!(s.message.contains("wrap every 8.00 GiB"), "{}", s.message);
    assert!(s.message.contains("keeps about 8.00 GiB of 128.00 GiB"), "{}", s.message);
}

/// 3 GiB of 4 GiB: one misplaced range whose blocks were written for from + M.
#[test]
fn a_wrap_at_a_non_power_of_two() {
    let t = wrap_pass(3 * GIB, 4 * GIB);
    let r = t.ranges();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].from, r[0].to, r[0].class), (0, GIB, Class::Misplaced));
    assert_eq!(r[0].written_for_from, Some(3 * GIB), "written_for_from = from + M");
    assert_eq!(t.good_bytes(), 3 * GIB);
    assert_eq!(verdict(&t), Verdict::FakeCapacity { real_bytes: 3 * GIB });
}

#[test]
fn a_lost_tail_is_fake_capacity() {
    for lost in [
        BlockState::Blank,
        BlockState::Garbage,
        BlockState::Unreadable,
        BlockState::Stale { pass: 3 },
    ] {
        let t = tally(&[(GIB / B, GOOD), (3 * GIB / B, lost)]);
        assert_eq!(t.usable_bytes(), GIB);
        assert_eq!(t.first_bad(), Some(GIB));
        assert_eq!(verdict(&t), Verdict::FakeCapacity { real_bytes: GIB }, "{lost:?}");
        assert!(
            t.summary().message.contains("keeps only the first 1.00 GiB of 4.00 GiB"),
            "{}",
            t.summary().message
        );
    }
}

#[test]
fn a_lost_tail_needs_its_share_bad() {
    // 1 GiB good, then 99 MiB lost and 1 MiB good: 99% of the tail bad.
    let at_share = tally(&[(GIB / B, GOOD), (99 * MIB / B, BlockState::Blank), (MIB / B, GOOD)]);
    let tail = (at_share.end() - GIB) as f64;
    assert!(at_share.bytes().bad() as f64 >= FAKE_TAIL_SHARE * tail, "at the threshold");
    assert_eq!(verdict(&at_share), Verdict::FakeCapacity { real_bytes: GIB });
    // One block less lost, one more good: below it.
    let below = tally(&[(GIB / B, GOOD), (99 * MIB / B - 1, BlockState::Blank), (MIB / B + 1, GOOD)]);
    assert!((below.bytes().bad() as f64) < FAKE_TAIL_SHARE * tail);
    assert_eq!(verdict(&below), Verdict::LostWrites);
    // Half the tail good: scattered losses, not a smaller device.
    let half = tally(&[(GIB / B, GOOD), (50 * MIB / B, BlockState::Blank), (50 * MIB / B, GOOD)]);
    assert_eq!(verdict(&half), Verdict::LostWrites);
}

#[test]
fn a_lost_tail_needs_its_size() {
    let at = tally(&[(GIB / B, GOOD), (FAKE_MIN_BYTES / B, BlockState::Blank)]);
    assert_eq!(verdict(&at), Verdict::FakeCapacity { real_bytes: GIB }, "inclusive");
    let below = tally(&[(GIB / B, GOOD), (FAKE_MIN_BYTES / B - 1, BlockState::Blank)]);
    assert_eq!(verdict(&below), Verdict::LostWrites, "a few lost last blocks are lost writes");
    let nothing_good = tally(&[(GIB / B, BlockState::Blank)]);
    assert_eq!(
        verdict(&nothing_good),
        Verdict::LostWrites,
        "a device that keeps nothing has no real size to name"
    );
}

#[test]
fn a_wrap_needs_its_period() {
    // Misplaced by exactly WRAP_MIN_PERIOD: a wrap.
    let p = WRAP_MIN_PERIOD;
    let at = tally(&[(p / B, mis(p)), (p / B, GOOD)]);
    assert_eq!(verdict(&at), Verdict::FakeCapacity { real_bytes: p });
    // Misplaced by one block less: misdirected writes.
    let below = tally(&[((p - B) / B, mis(p - B)), ((p - B) / B, GOOD)]);
    assert_eq!(below.misplaced_period(), Some(p - B));
    assert_eq!(verdict(&below), Verdict::Corrupt);
    // Two distances whose gcd is one block.
    let mixed = tally(&[(256, mis(GIB)), (256, mis(2 * GIB + 2 * MIB + B)), (GIB / B, GOOD)]);
    assert_eq!(mixed.misplaced_period(), Some(B));
    assert_eq!(verdict(&mixed), Verdict::Corrupt);
}

#[test]
fn a_wrap_needs_its_size_and_share() {
    // Less than FAKE_MIN_BYTES misplaced, however far: corruption.
    let small = tally(&[(FAKE_MIN_BYTES / B - 1, mis(GIB)), (GIB / B, GOOD)]);
    assert_eq!(verdict(&small), Verdict::Corrupt);
    // Misplaced exactly FAKE_MIN_SHARE of the bad bytes (the rest corrupted, scattered): a wrap.
    assert_eq!(FAKE_MIN_SHARE, 0.5);
    let half = tally(&[
        (256, mis(GIB)),
        (GIB / B, GOOD),
        (1, BlockState::Corrupted),
        (1, GOOD),
        (255, BlockState::Corrupted),
    ]);
    assert_eq!(half.bytes().misplaced, half.bytes().corrupted);
    assert_eq!(
        verdict(&half),
        Verdict::FakeCapacity {
            real_bytes: half.good_bytes()
        }
    );
    // One block more of damage: mainly broken, and that is the verdict.
    let more = tally(&[
        (256, mis(GIB)),
        (GIB / B, GOOD),
        (1, BlockState::Corrupted),
        (1, GOOD),
        (256, BlockState::Corrupted),
    ]);
    assert_eq!(verdict(&more), Verdict::Corrupt);
}

#[test]
fn scattered_damage_verdicts() {
    let corrupt = tally(&[(100, GOOD), (1, BlockState::Corrupted), (100, GOOD)]);
    assert_eq!(verdict(&corrupt), Verdict::Corrupt);
    assert!(
        corrupt
            .summary()
            .message
            .starts_with("data corrupted: 4.00 KiB came back wrong (first at offset 409600)")
    );
    let garbage = tally(&[(100, GOOD), (1, BlockState::Garbage), (100, GOOD)]);
    assert_eq!(verdict(&garbage), Verdict::Corrupt);
    let misdirected = tally(&[(100, GOOD), (1, mis(5 * B)), (100, GOOD)]);
    assert_eq!(verdict(&misdirected), Verdict::Corrupt);
    let lost = tally(&[
        (100, GOOD),
        (3, BlockState::Blank),
        (10, GOOD),
        (1, BlockState::Stale { pass: 1 }),
        (100, GOOD),
    ]);
    assert_eq!(verdict(&lost), Verdict::LostWrites);
    assert!(lost.summary().message.starts_with("writes lost: 16.00 KiB came back blank or old"));
    let eio = tally(&[(100, GOOD), (8, BlockState::Unreadable), (100, GOOD)]);
    assert_eq!(verdict(&eio), Verdict::Unreadable);
    assert_eq!(eio.summary().message, "32.00 KiB could not be read (first at offset 409600)");
    // Silent damage is named before lost writes and read errors.
    let all = tally(&[
        (100, GOOD),
        (1, BlockState::Blank),
        (1, GOOD),
        (1, BlockState::Unreadable),
        (1, GOOD),
        (1, BlockState::Corrupted),
        (100, GOOD),
    ]);
    assert_eq!(verdict(&all), Verdict::Corrupt);
    let lost_and_eio = tally(&[
        (100, GOOD),
        (1, BlockState::Unreadable),
        (1, GOOD),
        (1, BlockState::Blank),
        (100, GOOD),
    ]);
    assert_eq!(verdict(&lost_and_eio), Verdict::LostWrites);
}

#[test]
fn the_summary_serialises_and_reads_back() {
    let t = wrap_pass(3 * GIB, 4 * GIB);
    let s = t.summary();
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["verdict"], serde_json::json!({"kind": "fake_capacity", "real_bytes": 3 * GIB}));
    assert_eq!(json["ranges"][0]["class"], "misplaced");
    assert_eq!(json["bytes"]["misplaced"], GIB);
    let back: VerifySummary = serde_json::from_value(json).unwrap();
    assert_eq!(back, s);
    assert_eq!(serde_json::to_value(Verdict::Clean).unwrap(), serde_json::json!({"kind": "clean"}));
}

// ------------------------------------------------------- whole simulated passes

const SIM: u64 = 16 * MIB;

fn sim_verdict(map: Map) -> (Verdict, VerifyTally) {
    let mut dev = SimDevice::new(SIM, map).with_old_data();
    let t = dev.verify(0x7e57);
    (verdict(&t), t)
}

#[test]
fn simulated_passes() {
    let (v, t) = sim_verdict(Map::Honest);
    assert_eq!(v, Verdict::Clean);
    assert_eq!(t.usable_bytes(), SIM);

    // Four addresses per block.
    let (v, t) = sim_verdict(Map::Wrap { real: 4 * MIB });
    assert_eq!(v, Verdict::FakeCapacity { real_bytes: 4 * MIB });
    assert_eq!(t.misplaced_period(), Some(4 * MIB));
    assert_eq!(t.ranges().len(), 3, "{:?}", t.ranges());

    let (v, t) = sim_verdict(Map::Wrap { real: 12 * MIB });
    assert_eq!(v, Verdict::FakeCapacity { real_bytes: 12 * MIB });
    assert_eq!(t.ranges()[0].written_for_from, Some(12 * MIB));

    // Address bits 21 and 23 ignored: 4 MiB of distinct storage, 2 MiB as a prefix.
    let (v, t) = sim_verdict(Map::IgnoreBits {
        mask: (1 << 21) | (1 << 23),
    });
    assert_eq!(v, Verdict::FakeCapacity { real_bytes: 4 * MIB });
    assert_eq!(t.misplaced_period(), Some(2 * MIB));

    for reads in [Lost::Zeros, Lost::Ones, Lost::Garbage, Lost::Eio, Lost::Stale(99)] {
        let (v, t) = sim_verdict(Map::Lose { real: 5 * MIB, reads });
        assert_eq!(v, Verdict::FakeCapacity { real_bytes: 5 * MIB }, "{reads:?}");
        assert_eq!(t.usable_bytes(), 5 * MIB);
    }

    // Everything beyond 6 MiB onto 4 blocks: the last 4 blocks read good.
    let (v, t) = sim_verdict(Map::Funnel { real: 6 * MIB, slots: 4 });
    assert_eq!(t.good_bytes(), 6 * MIB + 4 * B);
    assert_eq!(v, Verdict::FakeCapacity { real_bytes: 6 * MIB });
}

proptest! {
    /// Whatever the states: bytes add up, the ranges are exactly the bad
    /// blocks (in order, disjoint, none that should have merged with the
    /// next), and the usable size ends at the first bad block.
    #[test]
    fn ranges_are_exactly_the_bad_blocks(states in prop::collection::vec(0u8..9, 1..300)) {
        let mut t = VerifyTally::new();
        let mut bad = Vec::new();
        for (k, &s) in states.iter().enumerate() {
            let off = k as u64 * B;
            let st = match s {
                0..=2 => GOOD,
                3 => BlockState::Corrupted,
                4 => mis(off + GIB),
                5 => mis(7 * B),
                6 => BlockState::Stale { pass: (k % 2) as u64 },
                7 => BlockState::Blank,
                _ => BlockState::Unreadable,
            };
            if !st.is_good() {
                bad.push(off);
            }
            t.push(off, st);
        }
        prop_assert_eq!(t.bytes().total(), states.len() as u64 * B);
        prop_assert_eq!(t.bytes().bad(), bad.len() as u64 * B);
        prop_assert_eq!(t.first_bad(), bad.first().copied());
        prop_assert_eq!(t.usable_bytes(), bad.first().copied().unwrap_or(states.len() as u64 * B));
        let ranges = t.ranges();
        let covered: Vec<u64> = ranges.iter().flat_map(|r| (r.from / B..r.to / B).map(|k| k * B)).collect();
        prop_assert_eq!(covered, bad);
        for w in ranges.windows(2) {
            prop_assert!(w[0].to <= w[1].from);
            if w[0].to == w[1].from && w[0].class == w[1].class {
                prop_assert!(matches!(w[0].class, Class::Misplaced | Class::Stale), "{:?}", w);
            }
        }
    }
}
