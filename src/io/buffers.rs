//! Aligned I/O memory and the data written to devices.
//!
//! Truthful writes need data a device cannot compress or deduplicate, yet
//! generating fresh random bytes for every write makes the benchmark itself
//! CPU-bound (fio's `refill_buffers` did that to KDiskMark). So the write
//! data comes from a pool of random bytes generated once, read through a
//! window that advances by one block per write, and every 4 KiB of each
//! block is *stamped* with a 64-bit counter and the worker's seed just
//! before it is queued. The stamp costs 16 bytes of stores per 4 KiB, and it
//! makes every 4 KiB block ever written distinct, so block-level dedup finds
//! nothing, while the rest stays random, so compression finds nothing.

use crate::io::rng::{GOLDEN_GAMMA, Rng};
use std::alloc::{Layout, alloc_zeroed, dealloc};

/// Alignment for O_DIRECT: enough for every logical block size in use (512, 4096).
pub const ALIGN: usize = 4096;
/// Granularity of the anti-dedup stamp.
pub const STAMP_EVERY: usize = 4096;
/// The pool repeats (apart from the stamps) every pool length, so it must be
/// longer than any unit a filesystem compresses on its own (btrfs: 128 KiB
/// extents; ZFS: the record, usually at most 1 MiB). 16 MiB per worker, but
/// never more than [`POOL_BUDGET`] over all workers nor less than 1 MiB.
const MAX_MIN_POOL: usize = 16 << 20;
const MIN_MIN_POOL: usize = 1 << 20;
pub const POOL_BUDGET: usize = 256 << 20;

/// The smallest write pool each of `workers` workers gets.
pub fn min_pool(workers: usize) -> usize {
    (POOL_BUDGET / workers.max(1)).clamp(MIN_MIN_POOL, MAX_MIN_POOL)
}

/// One aligned, zeroed, heap allocation.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
}

// The buffer is plain memory owned by one worker; the engine only sees raw pointers into it.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let len = len.max(ALIGN).next_multiple_of(ALIGN);
        let layout = Layout::from_size_align(len, ALIGN).expect("valid layout");
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory allocating {len} bytes of I/O buffers");
        AlignedBuf { ptr, len }
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: we own len bytes at ptr.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: we own len bytes at ptr.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with the same layout in new().
        unsafe { dealloc(self.ptr, Layout::from_size_align_unchecked(self.len, ALIGN)) }
    }
}

/// Write data: random bytes generated once, handed out through a window
/// that advances with every use, each 4 KiB of a window stamped with a
/// counter and the seed as it is handed out (see the module documentation).
/// The same mechanism serves block writes ([`Buffers::next_write`]) and the
/// files of the application workloads ([`WriteData::next`]).
pub struct WriteData {
    pool: AlignedBuf,
    pos: usize,
    counter: u64,
    seed: u64,
}

impl WriteData {
    /// A pool of `len` random bytes (rounded up to [`ALIGN`]) from `seed`.
    pub fn new(len: usize, seed: u64) -> Self {
        let mut pool = AlignedBuf::new(len);
        Rng::new(seed ^ GOLDEN_GAMMA).fill(pool.as_mut_slice());
        WriteData {
            pool,
            pos: 0,
            counter: 0,
            seed,
        }
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.pool.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.pool.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The next `len` bytes of data (at most the pool's length), stamped
    /// so every 4 KiB from the window's start is unique. The window follows
    /// the previous one, or starts over at the pool's start when it would
    /// run past the end: a window never wraps.
    #[inline]
    pub fn next_ptr(&mut self, len: usize) -> *mut u8 {
        assert!(len <= self.pool.len(), "a window of {len} bytes in a pool of {}", self.pool.len());
        if self.pos + len > self.pool.len() {
            self.pos = 0;
        }
        // SAFETY: pos + len <= pool.len().
        let p = unsafe { self.pool.as_ptr().add(self.pos) };
        self.pos += len;
        let mut off = 0;
        while off + 16 <= len {
            self.counter = self.counter.wrapping_add(1);
            // SAFETY: off + 16 <= len, inside the window; unaligned writes are fine.
            unsafe {
                std::ptr::write_unaligned(p.add(off) as *mut u64, self.counter);
                std::ptr::write_unaligned(p.add(off + 8) as *mut u64, self.seed);
            }
            off += STAMP_EVERY;
        }
        p
    }

    /// [`WriteData::next_ptr`] as a slice, for writes through `std::io`.
    pub fn next(&mut self, len: usize) -> &[u8] {
        let p = self.next_ptr(len);
        // SAFETY: next_ptr returned a window of len bytes inside the pool, borrowed with self.
        unsafe { std::slice::from_raw_parts(p, len) }
    }
}

/// The memory one worker does I/O from and into.
pub struct Buffers {
    /// Write data, read through an advancing window.
    pub pool: WriteData,
    /// One `bs`-sized slot per queue entry for reads.
    pub reads: AlignedBuf,
    bs: usize,
}

impl Buffers {
    /// `writes`/`reads` say which directions the job has, so a pure read job
    /// does not pay for a write pool and vice versa.
    pub fn new(bs: usize, depth: usize, seed: u64, reads: bool, writes: bool) -> Self {
        Self::with_pool(bs, depth, seed, reads, writes, MAX_MIN_POOL)
    }

    /// Like [`Buffers::new`] with the write pool at least `min_pool` bytes (see [`min_pool`]).
    pub fn with_pool(bs: usize, depth: usize, seed: u64, reads: bool, writes: bool, min_pool: usize) -> Self {
        let pool_len = if writes {
            (2 * depth * bs).max(min_pool).next_multiple_of(bs)
        } else {
            ALIGN
        };
        let reads = AlignedBuf::new(if reads { depth * bs } else { ALIGN });
        Buffers {
            pool: WriteData::new(pool_len, seed),
            reads,
            bs,
        }
    }

    /// The read slot for queue entry `slot`.
    #[inline]
    pub fn read_slot(&self, slot: usize) -> *mut u8 {
        debug_assert!((slot + 1) * self.bs <= self.reads.len());
        // SAFETY: in bounds, see above.
        unsafe { self.reads.as_ptr().add(slot * self.bs) }
    }

    /// The next block of write data, stamped so it is unique.
    #[inline]
    pub fn next_write(&mut self) -> *mut u8 {
        self.pool.next_ptr(self.bs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn pool_budget_bounds_memory() {
        assert_eq!(min_pool(1), 16 << 20);
        assert_eq!(min_pool(64), 4 << 20);
        assert_eq!(min_pool(512), 1 << 20);
    }

    #[test]
    fn buffers_are_aligned() {
        let b = Buffers::new(4096, 8, 1, true, true);
        assert_eq!(b.pool.as_ptr() as usize % ALIGN, 0);
        assert_eq!(b.read_slot(3) as usize % ALIGN, 0);
    }

    /// Every 4 KiB block written is distinct, even after the pool wraps around.
    #[test]
    fn write_blocks_never_repeat() {
        let bs = 64 * 1024;
        let mut b = Buffers::new(bs, 1, 7, false, true);
        let wraps = b.pool.len() / bs * 2 + 3;
        let mut seen = HashSet::new();
        for _ in 0..wraps {
            let p = b.next_write();
            let block = unsafe { std::slice::from_raw_parts(p, bs) };
            for chunk in block.chunks(STAMP_EVERY) {
                assert!(seen.insert(chunk.to_vec()), "a 4K block repeated");
            }
        }
    }

    /// The data does not compress: a crude order-0 entropy estimate near 8 bits/byte.
    #[test]
    fn write_data_is_incompressible() {
        let mut b = Buffers::new(1 << 20, 1, 3, false, true);
        let p = b.next_write();
        let data = unsafe { std::slice::from_raw_parts(p, 1 << 20) };
        let mut counts = [0u64; 256];
        for &x in data {
            counts[x as usize] += 1;
        }
        let n = data.len() as f64;
        let h: f64 = counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.log2()
            })
            .sum();
        assert!(h > 7.99, "entropy {h} bits/byte");
    }
}
