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
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Alignment for O_DIRECT: enough for every logical block size in use (512, 4096).
pub const ALIGN: usize = 4096;
/// Granularity of the anti-dedup stamp.
pub const STAMP_EVERY: usize = 4096;
/// Every window starts at a multiple of this, so the stamp's two words are
/// aligned for [`AtomicU64`]: chunks are whole multiples of it, block sizes
/// are ([`Buffers::with_pool`]), and [`WriteData::next`] rounds the window
/// it hands out up to it.
const STAMP_ALIGN: usize = std::mem::align_of::<AtomicU64>();
/// The private pool of [`Buffers::new`] (the prefill, tests): long enough
/// that nothing a filesystem compresses on its own (btrfs: 128 KiB
/// extents; ZFS: the record, usually at most 1 MiB) holds a repeat.
const PRIVATE_POOL: usize = 16 << 20;
/// A job's shared pool is this much longer than the data its workers can
/// have in flight, so a window is handed out again only long after its
/// write completed.
const POOL_SLACK: usize = 16 << 20;
/// A writer takes the pool in chunks of at most this (one atomic step per
/// chunk): consecutive writes of one worker come from one chunk, so a
/// sequential stream holds no repeat within any unit a filesystem
/// compresses (see [`PRIVATE_POOL`]) ...
const MAX_CHUNK: usize = 1 << 20;
/// ... and at least this, when many workers share the pool: still twice
/// btrfs's compressed extent.
const MIN_CHUNK: usize = 256 << 10;

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

/// Random bytes generated once, handed out in chunks to the writers that
/// share them: the workers of one job (see [`job_pool`]), or one writer
/// alone ([`WriteData::new`]).
///
/// Shared rather than one pool per worker so that memory does not grow
/// with the workers: psync at QD32 with 16 threads is 512 workers, and a
/// 16 MiB pool each was 8 GiB. Writers stamp the chunks they use
/// ([`WriteData::next_ptr`]) with atomic stores, so two writers that
/// meet in a chunk after the pool has wrapped around never race in the
/// Rust sense; the worst that can happen is a block written with the other
/// writer's stamp, which is still random, stamped data.
pub struct Pool {
    buf: AlignedBuf,
    chunk: usize,
    next: AtomicUsize,
}

// SAFETY: after `Pool::new` the bytes are only written through atomic
// stores (the stamps, `WriteData::next_ptr`) and read by the kernel; the
// cursor is atomic. Nothing hands out a reference into a shared pool.
unsafe impl Sync for Pool {}

impl Pool {
    /// `len` random bytes from `seed` (rounded up to a whole number of
    /// `chunk`s, each a multiple of [`ALIGN`]... or of the block size).
    pub fn new(len: usize, chunk: usize, seed: u64) -> Arc<Pool> {
        // Whole words: every chunk starts 8-aligned, as the stamps' atomic stores need.
        let chunk = chunk.max(1).next_multiple_of(STAMP_ALIGN);
        let mut buf = AlignedBuf::new(len.max(chunk).next_multiple_of(chunk));
        Rng::new(seed ^ GOLDEN_GAMMA).fill(buf.as_mut_slice());
        Arc::new(Pool {
            buf,
            chunk,
            next: AtomicUsize::new(0),
        })
    }

    /// The offset of the next chunk to write from.
    fn claim(&self) -> usize {
        let n = self.buf.len() / self.chunk;
        (self.next.fetch_add(1, Ordering::Relaxed) % n) * self.chunk
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.buf.as_ptr()
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

/// The shared write pool of a job's `workers`, each with `depth` writes of
/// `bs` bytes in flight: [`POOL_SLACK`] beyond those, at least
/// [`PRIVATE_POOL`], handed out in chunks of [`MIN_CHUNK`] to
/// [`MAX_CHUNK`] (never less than a block) so that there are about twice
/// as many chunks as workers. Memory is then 16 MiB plus the data in
/// flight, whatever the number of workers.
pub fn job_pool(bs: usize, workers: usize, depth: usize, seed: u64) -> Arc<Pool> {
    let in_flight = bs * workers.max(1) * depth.max(1);
    let len = (in_flight + POOL_SLACK).max(PRIVATE_POOL);
    let per = (len / (2 * workers.max(1))).clamp(MIN_CHUNK, MAX_CHUNK);
    let chunk = (per / bs).max(1) * bs;
    Pool::new(len, chunk, seed)
}

/// Write data: random bytes generated once ([`Pool`]), handed out through
/// a window that advances with every use, each 4 KiB of a window stamped
/// with a counter and the seed as it is handed out (see the module
/// documentation). The same mechanism serves block writes
/// ([`Buffers::next_write`]) and the files of the application workloads
/// ([`WriteData::next`]).
pub struct WriteData {
    pool: Arc<Pool>,
    /// The current window's start, and the end of the chunk it lies in.
    pos: usize,
    end: usize,
    counter: u64,
    seed: u64,
}

impl WriteData {
    /// A pool of its own: `len` random bytes (rounded up to [`ALIGN`]) from
    /// `seed`, one chunk, so windows run through all of it and start over.
    pub fn new(len: usize, seed: u64) -> Self {
        let len = len.max(ALIGN).next_multiple_of(ALIGN);
        Self::from_pool(Pool::new(len, len, seed), seed)
    }

    /// A writer on a pool shared with others, stamping with `seed`.
    pub fn from_pool(pool: Arc<Pool>, seed: u64) -> Self {
        WriteData {
            pool,
            pos: 0,
            end: 0,
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

    /// The next `len` bytes of data (at most a chunk), stamped so every
    /// 4 KiB from the window's start is unique. The window follows the
    /// previous one, or starts a new chunk when it would run past the
    /// current one's end: a window never wraps.
    ///
    /// The window starts where the previous one ended, so a caller whose
    /// lengths are not all multiples of [`STAMP_ALIGN`] must realign
    /// `pos` afterwards (as [`WriteData::next`] does); block writers use
    /// block sizes, which are ([`Buffers::with_pool`]).
    #[inline]
    fn next_ptr(&mut self, len: usize) -> *mut u8 {
        assert!(len <= self.pool.chunk, "a window of {len} bytes in chunks of {}", self.pool.chunk);
        debug_assert_eq!(self.pos % STAMP_ALIGN, 0, "an unaligned window");
        if self.pos + len > self.end {
            self.pos = self.pool.claim();
            self.end = self.pos + self.pool.chunk;
        }
        // SAFETY: pos + len <= end <= pool.len().
        let p = unsafe { self.pool.as_ptr().add(self.pos) };
        self.pos += len;
        let mut off = 0;
        while off + 16 <= len {
            self.counter = self.counter.wrapping_add(1);
            // SAFETY: off + 16 <= len, inside the window; the window starts at a
            // multiple of STAMP_ALIGN (see there) in a 4096-aligned buffer, and
            // off is a multiple of 4096, so both words are 8-aligned. Atomic
            // stores: another writer of a shared pool may stamp the same chunk
            // (see `Pool`).
            unsafe {
                AtomicU64::from_ptr(p.add(off) as *mut u64).store(self.counter.to_le(), Ordering::Relaxed);
                AtomicU64::from_ptr(p.add(off + 8) as *mut u64).store(self.seed.to_le(), Ordering::Relaxed);
            }
            off += STAMP_EVERY;
        }
        p
    }

    /// The next `len` bytes (any length up to a chunk) as a slice, for
    /// writes through `std::io`. Only for a pool of its own
    /// ([`WriteData::new`]): a shared pool's other writers stamp its
    /// chunks while the slice would live, so this panics on one, in
    /// release builds too (a check per call, never on the block path).
    pub fn next(&mut self, len: usize) -> &[u8] {
        assert!(
            Arc::get_mut(&mut self.pool).is_some(),
            "WriteData::next on a shared pool: another writer may stamp the slice"
        );
        let p = self.next_ptr(len);
        // The next window starts aligned again, whatever this one's length.
        self.pos = self.pos.next_multiple_of(STAMP_ALIGN);
        // SAFETY: next_ptr returned a window of len bytes inside the pool,
        // which only this writer uses (checked above), borrowed with self.
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
    /// Buffers with a write pool of their own. `writes`/`reads` say which
    /// directions the job has, so a pure read job does not pay for a write
    /// pool and vice versa.
    pub fn new(bs: usize, depth: usize, seed: u64, reads: bool, writes: bool) -> Self {
        let pool = if writes {
            let len = (2 * depth * bs).max(PRIVATE_POOL).next_multiple_of(bs);
            Pool::new(len, len, seed)
        } else {
            Pool::new(ALIGN, ALIGN, seed)
        };
        Self::with_pool(bs, depth, seed, reads, pool)
    }

    /// Buffers that write from `pool` (shared with the job's other workers,
    /// see [`job_pool`]), stamping with `seed`.
    pub fn with_pool(bs: usize, depth: usize, seed: u64, reads: bool, pool: Arc<Pool>) -> Self {
        // Consecutive windows of `bs` bytes stay aligned for the stamp (see STAMP_ALIGN).
        assert!(
            bs > 0 && bs.is_multiple_of(STAMP_ALIGN),
            "a block size of {bs} bytes is not a multiple of {STAMP_ALIGN}"
        );
        let reads = AlignedBuf::new(if reads { depth * bs } else { ALIGN });
        Buffers {
            pool: WriteData::from_pool(pool, seed),
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
    fn a_shared_pool_is_sixteen_mib_beyond_the_data_in_flight() {
        let p = job_pool(4096, 1, 1, 1);
        assert_eq!((p.len() >> 20, p.chunk), (17, 1 << 20), "one worker: 1 MiB chunks");
        // psync QD32 x 16 threads: 512 workers of 4 KiB.
        let p = job_pool(4096, 512, 1, 1);
        assert_eq!(p.chunk, MIN_CHUNK);
        assert!(p.len() <= 19 << 20, "{}", p.len());
        // 16 io_uring threads at QD32 of 1 MiB: 512 MiB in flight.
        let p = job_pool(1 << 20, 16, 32, 1);
        assert_eq!(p.len(), (512 + 16) << 20);
        assert_eq!(p.chunk, 1 << 20);
        // A block larger than a chunk is one chunk; chunks are whole blocks.
        assert_eq!(job_pool(4 << 20, 1, 1, 1).chunk, 4 << 20);
        assert_eq!(job_pool(3 * 512, 1, 1, 1).chunk % (3 * 512), 0);
    }

    /// Writers of a shared pool take different chunks, and each one's
    /// consecutive writes are consecutive bytes of its chunk.
    #[test]
    fn writers_of_a_shared_pool_take_chunks_in_turn() {
        let pool = Pool::new(4 << 20, 1 << 20, 5);
        let mut a = Buffers::with_pool(4096, 1, 1, false, pool.clone());
        let mut b = Buffers::with_pool(4096, 1, 2, false, pool.clone());
        let (a0, b0, a1) = (a.next_write(), b.next_write(), a.next_write());
        assert_eq!(b0 as usize - a0 as usize, 1 << 20);
        assert_eq!(a1 as usize - a0 as usize, 4096);
        assert_eq!(a0, pool.as_ptr());
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

    /// The files suite writes files of any size from one `WriteData`: every
    /// window still starts 8-aligned, so the stamps' atomic stores are
    /// sound (an odd length used to leave the next window, and its stamp,
    /// unaligned), and each window holds its stamp.
    #[test]
    fn windows_of_odd_lengths_stay_aligned_for_the_stamp() {
        let mut d = WriteData::new(64 << 10, 9);
        let pool = d.as_ptr() as usize;
        let mut seen = HashSet::new();
        for len in [1usize, 3, 17, 4095, 4097, 5000, 7, 12289, 16, 8191] {
            let w = d.next(len);
            let at = w.as_ptr() as usize;
            assert_eq!(at % 8, 0, "a window of {len} bytes at pool offset {}", at - pool);
            assert_eq!(w.len(), len);
            if len >= 16 {
                assert_eq!(&w[8..16], &9u64.to_le_bytes(), "the seed's word of the stamp");
                assert!(seen.insert(w[..8].to_vec()), "a counter repeated");
            }
        }
    }

    /// A slice of a shared pool would be stamped by the pool's other
    /// writers while it lives: refused, in release builds too.
    #[test]
    #[should_panic(expected = "shared pool")]
    fn a_slice_of_a_shared_pool_is_refused() {
        let pool = Pool::new(1 << 20, 1 << 20, 1);
        let mut d = WriteData::from_pool(pool.clone(), 1);
        let _ = d.next(4096);
    }

    #[test]
    #[should_panic(expected = "not a multiple of 8")]
    fn a_block_size_that_would_misalign_the_stamp_is_refused() {
        let _ = Buffers::new(4100, 1, 1, false, true);
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
