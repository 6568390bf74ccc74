//! Tests of the stamped block: the layout, each class, damage of every
//! shape, incompressibility and speed.

use super::*;
use crate::io::rng::Rng;
use proptest::prelude::*;
use std::collections::HashSet;
use std::time::Instant;

const PASS: u64 = 0x5eed_f00d_b10c_0005;

fn stamped(offset: u64, pass: u64) -> Vec<u8> {
    let mut b = vec![0u8; BLOCK];
    fill(&mut b, offset, pass);
    b
}

fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len];
    Rng::new(seed).fill(&mut b);
    b
}

#[test]
fn the_layout_is_as_documented() {
    let b = stamped(3 * BLOCK_U64, PASS);
    assert_eq!(&b[0..8], b"iolabVB1");
    assert_eq!(u64::from_le_bytes(b[8..16].try_into().unwrap()), 3 * BLOCK_U64);
    assert_eq!(u64::from_le_bytes(b[16..24].try_into().unwrap()), PASS);
    assert_eq!(u64::from_le_bytes(b[24..32].try_into().unwrap()), 0, "fill writes generation 0");
    assert_eq!(u64::from_le_bytes(b[32..40].try_into().unwrap()), block_hash(&b));
    for i in [HEADER_WORDS, 100, 511] {
        let w = u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(w, payload_word(PASS, 3 * BLOCK_U64, i), "word {i}");
    }
    let h = Header::of_stamped(&b).unwrap();
    assert_eq!((h.offset, h.pass, h.generation), (3 * BLOCK_U64, PASS, 0));
    assert_eq!(Header::of_stamped(&[0u8; BLOCK]), None);
}

/// The format is on disk: a block written by one iolab must classify in the
/// next. These figures pin the checksum and the payload generator.
#[test]
fn the_format_is_stable() {
    let b = stamped(1 << 30, 42);
    assert_eq!(block_hash(&b), 0x3724_54cf_cabf_6e8d, "checksum of (1 GiB, pass 42)");
    assert_eq!(payload_word(42, 1 << 30, HEADER_WORDS), 0x88ae_5045_50bf_db09);
}

#[test]
fn a_buffer_of_many_blocks_stamps_consecutive_offsets() {
    let mut buf = vec![0u8; 8 * BLOCK];
    fill_generation(&mut buf, 1 << 20, PASS, 7);
    for (k, b) in buf.chunks_exact(BLOCK).enumerate() {
        let off = (1 << 20) + k as u64 * BLOCK_U64;
        assert_eq!(classify(b, off, PASS), BlockState::Good);
        assert_eq!(Header::read(b).generation, 7);
        assert_eq!(b, &stamped_gen(off, PASS, 7)[..], "one buffer or block by block: the same bytes");
    }
}

fn stamped_gen(offset: u64, pass: u64, generation: u64) -> Vec<u8> {
    let mut b = vec![0u8; BLOCK];
    fill_generation(&mut b, offset, pass, generation);
    b
}

#[test]
#[should_panic(expected = "whole 4096-byte blocks")]
fn a_partial_block_is_refused() {
    fill(&mut [0u8; BLOCK + 512], 0, PASS);
}

#[test]
fn good_misplaced_and_stale() {
    let b = stamped(5 * BLOCK_U64, PASS);
    assert_eq!(classify(&b, 5 * BLOCK_U64, PASS), BlockState::Good);
    assert_eq!(
        classify(&b, (1 << 30) + 5 * BLOCK_U64, PASS),
        BlockState::Misplaced {
            written_for: 5 * BLOCK_U64
        }
    );
    assert_eq!(classify(&b, 5 * BLOCK_U64, PASS + 1), BlockState::Stale { pass: PASS });
    // Another pass wins over another offset: it is old data either way.
    assert_eq!(classify(&b, 0, PASS + 1), BlockState::Stale { pass: PASS });
}

#[test]
fn generations() {
    let b = stamped_gen(0, PASS, 3);
    assert_eq!(classify(&b, 0, PASS), BlockState::Good, "classify accepts any generation");
    assert_eq!(classify_generation(&b, 0, PASS, 3), BlockState::Good);
    assert_eq!(classify_generation(&b, 0, PASS, 4), BlockState::Stale { pass: PASS });
    assert_eq!(
        classify_generation(&b, BLOCK_U64, PASS, 4),
        BlockState::Misplaced { written_for: 0 }
    );
}

#[test]
fn blank_is_zeros_or_erased_flash() {
    assert_eq!(classify(&[0u8; BLOCK], 0, PASS), BlockState::Blank);
    assert_eq!(classify(&[0xffu8; BLOCK], 0, PASS), BlockState::Blank);
    let mut almost = [0u8; BLOCK];
    almost[4095] = 1;
    assert_eq!(classify(&almost, 0, PASS), BlockState::Garbage, "one stray byte is not blank");
}

#[test]
fn garbage_is_anything_unrelated() {
    assert_eq!(classify(&random_bytes(1, BLOCK), 0, PASS), BlockState::Garbage);
    assert_eq!(classify(&[0x55u8; BLOCK], 0, PASS), BlockState::Garbage);
    // The benchmark's own write data (counter and seed stamps) is not a verify block.
    let mut pool = crate::io::buffers::WriteData::new(1 << 20, 9);
    assert_eq!(classify(pool.next(BLOCK), 0, PASS), BlockState::Garbage);
    // Text, as a filesystem would leave.
    let text: Vec<u8> = b"lorem ipsum dolor sit amet ".iter().copied().cycle().take(BLOCK).collect();
    assert_eq!(classify(&text, 0, PASS), BlockState::Garbage);
}

#[test]
fn damaged_sectors_are_corruption() {
    let off = 77 * BLOCK_U64;
    let good = stamped(off, PASS);
    for sector in 0..8 {
        for fillv in [0x00u8, 0xff] {
            let mut b = good.clone();
            b[sector * 512..(sector + 1) * 512].fill(fillv);
            assert_eq!(classify(&b, off, PASS), BlockState::Corrupted, "sector {sector} set to {fillv:#x}");
        }
        // The sector from another pass's block for the same offset (a torn write).
        let mut b = good.clone();
        let old = stamped(off, PASS ^ 1);
        b[sector * 512..(sector + 1) * 512].copy_from_slice(&old[sector * 512..(sector + 1) * 512]);
        assert_eq!(classify(&b, off, PASS), BlockState::Corrupted, "sector {sector} stale");
    }
    let mut swapped = good.clone();
    let (a, rest) = swapped.split_at_mut(2048);
    a[1024..1536].swap_with_slice(&mut rest[0..512]);
    assert_eq!(classify(&swapped, off, PASS), BlockState::Corrupted, "two sectors swapped");
}

#[test]
fn a_damaged_misplaced_block_is_corruption_not_misplacement() {
    let mut b = stamped(0, PASS);
    b[2000] ^= 4;
    assert_eq!(classify(&b, 1 << 30, PASS), BlockState::Corrupted);
}

/// A header whose checksum holds but whose payload is not what it claims
/// (another offset's payload under this header): corrupted, not good.
#[test]
fn a_valid_checksum_over_the_wrong_payload_is_corruption() {
    let mut b = stamped(0, PASS);
    let other = stamped(BLOCK_U64, PASS);
    b[40..].copy_from_slice(&other[40..]);
    let sum = block_hash(&b);
    b[32..40].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(classify(&b, 0, PASS), BlockState::Corrupted);
}

#[test]
fn a_header_lost_but_payload_ours_is_corruption() {
    let off = 9 * BLOCK_U64;
    let mut b = stamped(off, PASS);
    b[..40].copy_from_slice(&random_bytes(3, 40));
    assert_eq!(classify(&b, off, PASS), BlockState::Corrupted);
    // The same block read where it was not meant to be: nothing says it is ours.
    assert_eq!(classify(&b, off + BLOCK_U64, PASS), BlockState::Garbage);
}

#[test]
fn a_header_of_ours_over_garbage_is_corruption() {
    let mut b = random_bytes(5, BLOCK);
    b[8..16].copy_from_slice(&(3 * BLOCK_U64).to_le_bytes());
    b[16..24].copy_from_slice(&PASS.to_le_bytes());
    assert_eq!(classify(&b, 3 * BLOCK_U64, PASS), BlockState::Corrupted);
}

proptest! {
    /// Any single flipped bit anywhere in a block is caught, whatever the
    /// offset and pass, and never mistaken for another valid state.
    #[test]
    fn any_flipped_bit_is_corruption(off_block in 0u64..1 << 28, pass: u64, bit in 0usize..BLOCK * 8) {
        let off = off_block * BLOCK_U64;
        let mut b = stamped(off, pass);
        prop_assert_eq!(classify(&b, off, pass), BlockState::Good);
        b[bit / 8] ^= 1 << (bit % 8);
        prop_assert_eq!(classify(&b, off, pass), BlockState::Corrupted);
    }

    /// A stamped block read at any other offset names the one it was written for.
    #[test]
    fn misplacement_names_the_right_offset(a in 0u64..1 << 30, b in 0u64..1 << 30, pass: u64) {
        prop_assume!(a != b);
        let blk = stamped(a * BLOCK_U64, pass);
        prop_assert_eq!(classify(&blk, b * BLOCK_U64, pass), BlockState::Misplaced { written_for: a * BLOCK_U64 });
    }

    /// Random data is garbage (never good, misplaced or stale).
    #[test]
    fn random_data_is_garbage(seed: u64, off_block in 0u64..1 << 30, pass: u64) {
        prop_assert_eq!(classify(&random_bytes(seed, BLOCK), off_block * BLOCK_U64, pass), BlockState::Garbage);
    }
}

/// Neither compression nor dedup finds anything: order-0 entropy near 8
/// bits per byte, no 8-byte word repeated across 1 MiB of blocks, and two
/// passes over the same offsets share no payload word.
#[test]
fn the_data_is_incompressible_and_unique() {
    let mut buf = vec![0u8; 1 << 20];
    fill(&mut buf, 0, PASS);
    let mut counts = [0u64; 256];
    for &x in &buf {
        counts[x as usize] += 1;
    }
    let n = buf.len() as f64;
    let h: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64 / n) * (c as f64 / n).log2())
        .sum();
    assert!(h > 7.99, "entropy {h} bits/byte");

    let mut seen = HashSet::new();
    for b in buf.chunks_exact(BLOCK) {
        for w in b[HEADER_WORDS * 8..].chunks_exact(8) {
            assert!(seen.insert(w.to_vec()), "a payload word repeats");
        }
    }
    let mut other = vec![0u8; 1 << 20];
    fill(&mut other, 0, PASS + 1);
    for b in other.chunks_exact(BLOCK) {
        for w in b[HEADER_WORDS * 8..].chunks_exact(8) {
            assert!(!seen.contains(w), "two passes share a payload word");
        }
    }
}

/// Bytes per second of `f` over `len` bytes, best of a few tries (the
/// machine may be busy).
fn rate(len: usize, mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            len as f64 / t.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

/// `fill` and `classify` speed, printed (not asserted: a busy machine is
/// not a failure): `cargo test --release --lib verify::block::tests::speed
/// -- --ignored --nocapture`.
#[test]
#[ignore]
fn speed() {
    let len = 32 << 20;
    let mut buf = vec![0u8; len];
    let fill_rate = rate(len, || fill(&mut buf, 0, PASS));
    let check_rate = rate(len, || {
        for (k, b) in buf.chunks_exact(BLOCK).enumerate() {
            assert!(classify(b, k as u64 * BLOCK_U64, PASS).is_good());
        }
    });
    println!("fill {:.2} GB/s, classify {:.2} GB/s", fill_rate / 1e9, check_rate / 1e9);
}
