//! A small, fast PRNG (xoshiro256++, seeded by SplitMix64).
//!
//! Hand-rolled on purpose: it sits on the per-I/O hot path (random offsets,
//! read/write mix) where a call must cost a few instructions, and it must be
//! reproducible from a seed. Statistical quality far beyond what offset
//! selection needs; not for cryptography.

/// SplitMix64's increment (2^64 / the golden ratio, odd).
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finalizer: a bijective mix of all 64 bits, so nearby inputs
/// (a counter, an id) give unrelated outputs. [`Rng::new`] applies it to
/// successive multiples of [`GOLDEN_GAMMA`]; it also hashes ids to seeds.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(GOLDEN_GAMMA);
            splitmix64(x)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is < n / 2^64).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let v = self.next_u64().to_le_bytes();
        let n = rest.len();
        rest.copy_from_slice(&v[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(42);
        let mut hits = [0u32; 10];
        for _ in 0..100_000 {
            let v = r.below(10);
            hits[v as usize] += 1;
        }
        for h in hits {
            assert!((9_000..11_000).contains(&h), "{hits:?}");
        }
    }

    /// The reference SplitMix64 sequence from seed 0 (Vigna's splitmix64.c).
    #[test]
    fn splitmix64_matches_the_reference() {
        let mut x = 0u64;
        let got: Vec<u64> = (0..3)
            .map(|_| {
                x = x.wrapping_add(GOLDEN_GAMMA);
                splitmix64(x)
            })
            .collect();
        assert_eq!(got, [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f]);
    }

    #[test]
    fn reproducible() {
        let a: Vec<u64> = {
            let mut r = Rng::new(5);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::new(5);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
    }
}
