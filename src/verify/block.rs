//! The stamped block: what `iolab verify` and `iolab capacity` write, and
//! how a block read back is classified.
//!
//! Every [`BLOCK`] (4 KiB) carries a 40-byte header and 4056 bytes of
//! payload. All fields are little-endian `u64`s:
//!
//! | bytes | field | |
//! |---|---|---|
//! | 0..8 | magic | [`MAGIC`], the ASCII text `iolabVB1` (greppable in a hex dump) |
//! | 8..16 | offset | the block's own byte offset on the target |
//! | 16..24 | pass | random per verify run or probe ([`classify`] tells passes apart) |
//! | 24..32 | generation | a sequence number within the pass (a probe's round) |
//! | 32..40 | checksum | [`block_hash`] of the whole block with this field zeroed |
//! | 40..4096 | payload | 507 words from [`payload_word`]`(pass, offset, i)` |
//!
//! The payload is SplitMix64 in counter mode keyed by (pass, offset): word
//! `i` is `splitmix64(key + i·γ)`. It is as incompressible as the write pool
//! of [`crate::io::buffers`] (every block differs, nothing repeats), yet
//! nothing needs storing: a reader regenerates what any (pass, offset)
//! should hold, so a block read back can be checked word for word.
//!
//! Why both a checksum and a regenerable payload: the payload check needs
//! the (pass, offset) a block claims, which only a trustworthy header
//! gives; the checksum is what makes the header trustworthy (it covers the
//! header and the payload), so a block from another pass or another offset
//! is recognised as *valid* — stale or misplaced — rather than as damage.

use crate::io::rng::{GOLDEN_GAMMA, splitmix64};
use serde::{Deserialize, Serialize};

/// The unit of verification: every block is stamped and classified alone.
pub const BLOCK: usize = 4096;
/// [`BLOCK`] as a byte offset.
pub const BLOCK_U64: u64 = BLOCK as u64;
/// `iolabVB1` read as a little-endian `u64` (verify block, format 1).
pub const MAGIC: u64 = u64::from_le_bytes(*b"iolabVB1");

/// Words in a block.
const WORDS: usize = BLOCK / 8;
/// Header words: magic, offset, pass, generation, checksum.
pub const HEADER_WORDS: usize = 5;
/// The checksum's word.
const SUM: usize = 4;
/// A header whose magic differs from [`MAGIC`] in at most this many bits is
/// still "ours, damaged" ([`BlockState::Corrupted`]): a few flipped bits are
/// corruption, while unrelated data differs in about 32 bits of 64.
const MAGIC_MAX_FLIPS: u32 = 8;

/// What a block read back turned out to be, against the offset it was read
/// from and the pass that wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockState {
    /// This pass's block for this offset, intact.
    Good,
    /// Ours but damaged: the magic (or enough of it, or the header's fields,
    /// or some payload word) says it is a stamped block, yet the checksum
    /// fails or the payload is not what its (pass, offset) generates.
    Corrupted,
    /// A valid block of this pass written for another offset: the address
    /// wraps or aliases (`written_for` is where that block was meant to go).
    Misplaced { written_for: u64 },
    /// A valid block written for this offset by another pass (the write did
    /// not land, old data came back); with [`classify_generation`], also
    /// this pass's block from an earlier generation (`pass` is then ours).
    Stale { pass: u64 },
    /// All zeros, or all 0xFF (erased flash): nothing was stored.
    Blank,
    /// Anything else: data that was never a stamped block.
    Garbage,
    /// The read failed (EIO). [`classify`] never returns it; the caller
    /// records it so the tally counts it.
    Unreadable,
}

/// A [`BlockState`] without its fields: what tallies count by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Good,
    Corrupted,
    Misplaced,
    Stale,
    Blank,
    Garbage,
    Unreadable,
}

impl Class {
    /// Every class, in the order summaries list them.
    pub const ALL: [Class; 7] = [
        Class::Good,
        Class::Corrupted,
        Class::Misplaced,
        Class::Stale,
        Class::Blank,
        Class::Garbage,
        Class::Unreadable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Class::Good => "good",
            Class::Corrupted => "corrupted",
            Class::Misplaced => "misplaced",
            Class::Stale => "stale",
            Class::Blank => "blank",
            Class::Garbage => "garbage",
            Class::Unreadable => "unreadable",
        }
    }
}

impl BlockState {
    pub fn class(self) -> Class {
        match self {
            BlockState::Good => Class::Good,
            BlockState::Corrupted => Class::Corrupted,
            BlockState::Misplaced { .. } => Class::Misplaced,
            BlockState::Stale { .. } => Class::Stale,
            BlockState::Blank => Class::Blank,
            BlockState::Garbage => Class::Garbage,
            BlockState::Unreadable => Class::Unreadable,
        }
    }

    pub fn is_good(self) -> bool {
        self == BlockState::Good
    }
}

/// A block's header as stored (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub magic: u64,
    pub offset: u64,
    pub pass: u64,
    pub generation: u64,
    pub checksum: u64,
}

impl Header {
    /// The header fields of `block` (at least [`HEADER_WORDS`] words), whatever they hold.
    pub fn read(block: &[u8]) -> Header {
        let w = |i: usize| word_at(block, i);
        Header {
            magic: w(0),
            offset: w(1),
            pass: w(2),
            generation: w(3),
            checksum: w(SUM),
        }
    }

    /// The header of a stamped block (its magic intact), checksum unchecked.
    pub fn of_stamped(block: &[u8]) -> Option<Header> {
        let h = Header::read(block);
        (h.magic == MAGIC).then_some(h)
    }
}

#[inline(always)]
fn word_at(block: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(block[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
}

// ------------------------------------------------------------------ payload

/// The payload key of (pass, offset): both pass through SplitMix64's
/// finalizer, so neighbouring offsets and passes give unrelated streams.
#[inline]
fn payload_key(pass: u64, offset: u64) -> u64 {
    splitmix64(pass ^ splitmix64(offset ^ 0x7061_796c_6f61_6421))
}

/// Payload word `i` (`HEADER_WORDS..512`) of the block (pass, offset).
#[inline(always)]
fn payload_word_keyed(key: u64, i: usize) -> u64 {
    splitmix64(key.wrapping_add((i as u64).wrapping_mul(GOLDEN_GAMMA)))
}

/// Payload word `i` (a word index in the block, `5..512`) that (pass,
/// offset) generates.
pub fn payload_word(pass: u64, offset: u64, i: usize) -> u64 {
    payload_word_keyed(payload_key(pass, offset), i)
}

// ----------------------------------------------------------------- checksum

/// The 64×64→128-bit multiply folded to 64 bits (wyhash's `mum`).
#[inline(always)]
fn mum(a: u64, b: u64) -> u64 {
    let r = (a as u128).wrapping_mul(b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

/// wyhash's secrets: odd, with balanced bits.
const K: [u64; 4] = [
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
    0x8ebc_6af0_9c88_c6e3,
    0x5899_65cc_7537_4cc3,
];

/// The block checksum: a wyhash-style multiply-fold over the 512 words, in
/// four independent lanes of two words per step, each lane chained (its
/// state is an input of its next step, so order matters: two swapped
/// sectors change the sum), then the lanes folded together.
///
/// Why this and not another hash: it must run at memory speed beside the
/// payload generator (a `fill` of several GB/s per core), which rules out
/// FNV's byte-at-a-time loop (about 1 GB/s); one 128-bit multiply per 16
/// bytes in four independent lanes keeps the multiplier busy instead of
/// waiting on it. It detects accidental damage (flipped bits, zeroed or
/// erased sectors, torn and swapped sectors, another block's data) with a
/// miss probability near 2^-64 per block; it is not meant to resist a
/// device forging blocks on purpose, which no checksum without a secret
/// could. No crate: xxh3 or wyhash from crates.io would be as fast, but
/// the format must stay byte-for-byte stable with iolab's own version, and
/// this is twenty lines.
fn hash_words(w: &[u64; WORDS]) -> u64 {
    let mut h = Lanes::new();
    for c in w.chunks_exact(8) {
        h.eat(c.try_into().expect("8 words"));
    }
    h.finish()
}

/// The checksum's state: four chained lanes (see [`hash_words`]).
struct Lanes([u64; 4]);

impl Lanes {
    #[inline(always)]
    fn new() -> Lanes {
        Lanes(K)
    }

    #[inline(always)]
    fn eat(&mut self, c: &[u64; 8]) {
        let s = &mut self.0;
        s[0] = mum(c[0] ^ K[0], c[1] ^ s[0]);
        s[1] = mum(c[2] ^ K[1], c[3] ^ s[1]);
        s[2] = mum(c[4] ^ K[2], c[5] ^ s[2]);
        s[3] = mum(c[6] ^ K[3], c[7] ^ s[3]);
    }

    #[inline(always)]
    fn finish(self) -> u64 {
        let s = self.0;
        mum(mum(s[0] ^ K[1], s[1] ^ K[2]) ^ BLOCK as u64, mum(s[2] ^ K[3], s[3] ^ K[0]))
    }
}

/// The words of a block (little-endian).
fn load(block: &[u8]) -> [u64; WORDS] {
    let mut w = [0u64; WORDS];
    for (d, c) in w.iter_mut().zip(block.chunks_exact(8)) {
        *d = u64::from_le_bytes(c.try_into().expect("8 bytes"));
    }
    w
}

/// The checksum of `block` (one [`BLOCK`]) with its checksum field taken
/// as zero: what a stamped block stores in bytes 32..40.
pub fn block_hash(block: &[u8]) -> u64 {
    assert_eq!(block.len(), BLOCK, "a block is {BLOCK} bytes");
    let mut w = load(block);
    w[SUM] = 0;
    hash_words(&w)
}

/// A pass id for a new verify or probe: 8 bytes of `/dev/urandom` (the
/// time and pid mixed, where it cannot be read), so no earlier pass on the
/// same device is likely to share it and its blocks read back as stale.
pub fn new_pass() -> u64 {
    use std::io::Read;
    let mut b = [0u8; 8];
    match std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)) {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            splitmix64(t ^ ((std::process::id() as u64) << 32))
        }
    }
}

// --------------------------------------------------------------------- fill

/// Stamp `buf` (a multiple of [`BLOCK`]) as the blocks at `first_offset`,
/// `first_offset + BLOCK`, … of pass `pass`, generation 0.
pub fn fill(buf: &mut [u8], first_offset: u64, pass: u64) {
    fill_generation(buf, first_offset, pass, 0);
}

/// [`fill`] with a generation (a probe's round, a verify's repetition),
/// stored in the header and checked by [`classify_generation`].
pub fn fill_generation(buf: &mut [u8], first_offset: u64, pass: u64, generation: u64) {
    assert!(
        buf.len().is_multiple_of(BLOCK),
        "verify buffers are whole {BLOCK}-byte blocks, not {}",
        buf.len()
    );
    for (k, block) in buf.chunks_exact_mut(BLOCK).enumerate() {
        stamp(block, first_offset.wrapping_add(k as u64 * BLOCK_U64), pass, generation);
    }
}

/// One block: generate, checksum and store eight words at a time (one
/// pass over the block, the words never leave registers before the store).
#[inline]
fn stamp(block: &mut [u8], offset: u64, pass: u64, generation: u64) {
    let key = payload_key(pass, offset);
    let mut h = Lanes::new();
    for (j, out) in block.chunks_exact_mut(64).enumerate() {
        let mut c = [0u64; 8];
        if j == 0 {
            c[..HEADER_WORDS].copy_from_slice(&[MAGIC, offset, pass, generation, 0]);
            for (i, x) in c.iter_mut().enumerate().skip(HEADER_WORDS) {
                *x = payload_word_keyed(key, i);
            }
        } else {
            for (i, x) in c.iter_mut().enumerate() {
                *x = payload_word_keyed(key, j * 8 + i);
            }
        }
        h.eat(&c);
        for (o, x) in out.chunks_exact_mut(8).zip(c) {
            o.copy_from_slice(&x.to_le_bytes());
        }
    }
    block[SUM * 8..SUM * 8 + 8].copy_from_slice(&h.finish().to_le_bytes());
}

// ----------------------------------------------------------------- classify

/// What `block` (one [`BLOCK`], read from `expected_offset`) is, for a
/// verify or probe of pass `pass`. The checks, in order:
///
/// 1. all zeros or all 0xFF: [`BlockState::Blank`];
/// 2. the magic intact: the checksum must hold and the payload must be what
///    the header's own (pass, offset) generates, else
///    [`BlockState::Corrupted`]; then another pass is
///    [`BlockState::Stale`], another offset [`BlockState::Misplaced`], and
///    otherwise [`BlockState::Good`];
/// 3. no magic, but a magic a few bits off, or the header's pass and offset
///    both ours, or any payload word where (pass, expected_offset) would
///    put it (a torn or partly overwritten block): [`BlockState::Corrupted`];
/// 4. anything else: [`BlockState::Garbage`].
pub fn classify(block: &[u8], expected_offset: u64, pass: u64) -> BlockState {
    assert_eq!(block.len(), BLOCK, "a block is {BLOCK} bytes");
    let h = Header::read(block);
    if h.magic == MAGIC {
        return if !intact(block, &h) {
            BlockState::Corrupted
        } else if h.pass != pass {
            BlockState::Stale { pass: h.pass }
        } else if h.offset != expected_offset {
            BlockState::Misplaced { written_for: h.offset }
        } else {
            BlockState::Good
        };
    }
    let w = load(block);
    if w.iter().all(|&x| x == 0) || w.iter().all(|&x| x == u64::MAX) {
        return BlockState::Blank;
    }
    let near_magic = (h.magic ^ MAGIC).count_ones() <= MAGIC_MAX_FLIPS;
    let our_fields = h.offset == expected_offset && h.pass == pass;
    let key = payload_key(pass, expected_offset);
    if near_magic || our_fields || (HEADER_WORDS..WORDS).any(|i| w[i] == payload_word_keyed(key, i)) {
        BlockState::Corrupted
    } else {
        BlockState::Garbage
    }
}

/// Whether a block with our magic holds its checksum and the payload its
/// header's own (pass, offset) generates: one pass, eight words at a time.
fn intact(block: &[u8], h: &Header) -> bool {
    let key = payload_key(h.pass, h.offset);
    let mut lanes = Lanes::new();
    let mut diff = 0u64;
    for (j, chunk) in block.chunks_exact(64).enumerate() {
        let mut c = [0u64; 8];
        for (x, b) in c.iter_mut().zip(chunk.chunks_exact(8)) {
            *x = u64::from_le_bytes(b.try_into().expect("8 bytes"));
        }
        let mut g = [0u64; 8];
        for (i, x) in g.iter_mut().enumerate() {
            *x = payload_word_keyed(key, j * 8 + i);
        }
        if j == 0 {
            c[SUM] = 0;
            g[..HEADER_WORDS].copy_from_slice(&c[..HEADER_WORDS]);
        }
        for (x, y) in c.iter().zip(g) {
            diff |= x ^ y;
        }
        lanes.eat(&c);
    }
    diff == 0 && lanes.finish() == h.checksum
}

/// [`classify`], and this pass's intact block for this offset counts as
/// [`BlockState::Good`] only if it carries `generation`; an earlier (or
/// other) generation of it is [`BlockState::Stale`] with our own pass: the
/// latest write did not land, an older one came back.
pub fn classify_generation(block: &[u8], expected_offset: u64, pass: u64, generation: u64) -> BlockState {
    match classify(block, expected_offset, pass) {
        BlockState::Good if Header::read(block).generation != generation => BlockState::Stale { pass },
        s => s,
    }
}

#[cfg(test)]
#[path = "block_tests.rs"]
mod tests;
