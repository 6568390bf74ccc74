//! What the workers of one stream share with the thread that runs it:
//! the cut that ends the stream early (`--runs auto`), each worker's
//! closed windows as it publishes them, and the stream's latency
//! histograms.
//!
//! Nothing here is touched per I/O but a relaxed load of the cut: a worker
//! publishes a window's bytes once, when the window closes, and hands its
//! latencies over in batches ([`LatBuf`]).

use crate::samples::histogram::new_histogram;
use hdrhistogram::Histogram;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// No cut: the stream runs to its last window.
const NO_CUT: usize = usize::MAX;

/// Latencies a worker gathers before it adds them to the stream's
/// histogram: one lock per this many I/Os, 8 KiB per direction.
const LAT_BATCH: usize = 1024;

/// One stream's shared state, made by the thread that runs the stream.
pub struct StreamShared {
    cut: AtomicUsize,
    /// Per worker: its closed windows.
    pub live: Vec<Live>,
    pub lat: LatSink,
}

impl StreamShared {
    pub fn new(workers: usize, windows: usize) -> StreamShared {
        StreamShared {
            cut: AtomicUsize::new(NO_CUT),
            live: (0..workers).map(|_| Live::new(windows)).collect(),
            lat: LatSink::new(windows),
        }
    }

    /// End the stream after window `k` (0-based): the workers stop issuing
    /// when it ends, and what completes after it is drain (latency and the
    /// device cross-check only).
    pub fn cut_after(&self, k: usize) {
        self.cut.store(k, Ordering::Release);
    }

    /// The window the stream ends with, if it was cut.
    #[inline]
    pub fn cut(&self) -> Option<usize> {
        match self.cut.load(Ordering::Relaxed) {
            NO_CUT => None,
            k => Some(k),
        }
    }

    /// Windows every worker has closed.
    pub fn closed(&self) -> usize {
        self.live.iter().map(Live::closed).min().unwrap_or(0)
    }

    /// Bytes (read, written) of window `w` over all workers; only
    /// meaningful once every worker has closed it.
    pub fn window_bytes(&self, w: usize) -> (u64, u64) {
        self.live.iter().fold((0, 0), |(r, wr), l| {
            let (a, b) = l.bytes(w);
            (r + a, wr + b)
        })
    }
}

/// A worker's closed windows: their bytes, published once per window.
pub struct Live {
    bytes: Vec<[AtomicU64; 2]>,
    closed: AtomicUsize,
}

impl Live {
    fn new(windows: usize) -> Live {
        Live {
            bytes: (0..windows).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]).collect(),
            closed: AtomicUsize::new(0),
        }
    }

    /// Window `w` is over for this worker, with these bytes in it.
    pub fn publish(&self, w: usize, read: u64, written: u64) {
        if let Some(b) = self.bytes.get(w) {
            b[0].store(read, Ordering::Relaxed);
            b[1].store(written, Ordering::Relaxed);
        }
        self.closed.fetch_max(w + 1, Ordering::Release);
    }

    /// The worker is done: every window counts as closed.
    pub fn close_all(&self) {
        self.closed.store(usize::MAX, Ordering::Release);
    }

    pub fn closed(&self) -> usize {
        self.closed.load(Ordering::Acquire)
    }

    fn bytes(&self, w: usize) -> (u64, u64) {
        self.bytes
            .get(w)
            .map_or((0, 0), |b| (b[0].load(Ordering::Relaxed), b[1].load(Ordering::Relaxed)))
    }
}

/// The stream's latency histograms, one per window and direction, made
/// when the first latency arrives. One set per stream instead of one per
/// worker: a histogram of this range is 270 KB, and a psync job at QD32
/// with 16 threads has 512 workers.
pub struct LatSink {
    hists: Vec<[Mutex<Option<Histogram<u64>>>; 2]>,
}

impl LatSink {
    fn new(windows: usize) -> LatSink {
        LatSink {
            hists: (0..windows).map(|_| [Mutex::new(None), Mutex::new(None)]).collect(),
        }
    }

    fn add(&self, w: usize, dir: usize, values: &[u64]) {
        let Some(slot) = self.hists.get(w) else { return };
        let mut h = slot[dir].lock().unwrap_or_else(|e| e.into_inner());
        let h = h.get_or_insert_with(new_histogram);
        for &v in values {
            h.saturating_record(v.max(1));
        }
    }

    /// Window `w`'s histogram of one direction (0 read, 1 write), taken out.
    pub fn take(&self, w: usize, dir: usize) -> Option<Histogram<u64>> {
        self.hists.get(w)?[dir].lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A worker's latencies on their way to the [`LatSink`], all of one window.
pub struct LatBuf<'a> {
    sink: &'a LatSink,
    win: usize,
    vals: [Vec<u64>; 2],
}

impl<'a> LatBuf<'a> {
    pub fn new(sink: &'a LatSink) -> LatBuf<'a> {
        LatBuf {
            sink,
            win: 0,
            vals: [Vec::with_capacity(LAT_BATCH), Vec::with_capacity(LAT_BATCH)],
        }
    }

    /// One latency of direction `dir` (0 read, 1 write) in the current window.
    #[inline]
    pub fn push(&mut self, dir: usize, lat_ns: u64) {
        let v = &mut self.vals[dir];
        v.push(lat_ns);
        if v.len() == LAT_BATCH {
            self.sink.add(self.win, dir, v);
            v.clear();
        }
    }

    /// The latencies from now on belong to window `w`.
    pub fn window(&mut self, w: usize) {
        if w != self.win {
            self.flush();
            self.win = w;
        }
    }

    pub fn flush(&mut self) {
        for (dir, v) in self.vals.iter_mut().enumerate() {
            if !v.is_empty() {
                self.sink.add(self.win, dir, v);
                v.clear();
            }
        }
    }
}

impl Drop for LatBuf<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_counts_once_every_worker_has_closed_it() {
        let s = StreamShared::new(2, 4);
        s.live[0].publish(0, 10, 1);
        assert_eq!(s.closed(), 0);
        s.live[1].publish(0, 5, 2);
        s.live[1].publish(1, 7, 0);
        assert_eq!(s.closed(), 1);
        assert_eq!(s.window_bytes(0), (15, 3));
        s.live[0].close_all();
        assert_eq!(s.closed(), 2);
        assert_eq!(s.cut(), None);
        s.cut_after(1);
        assert_eq!(s.cut(), Some(1));
    }

    #[test]
    fn latencies_reach_their_window_in_batches_and_at_the_end() {
        let s = StreamShared::new(1, 3);
        {
            let mut b = LatBuf::new(&s.lat);
            for i in 0..(LAT_BATCH as u64 + 5) {
                b.push(0, 100 + i);
            }
            b.window(2);
            b.push(1, 7);
        }
        let h0 = s.lat.take(0, 0).unwrap();
        assert_eq!(h0.len(), LAT_BATCH as u64 + 5);
        assert!(s.lat.take(1, 0).is_none());
        assert_eq!(s.lat.take(2, 1).unwrap().len(), 1);
        assert!(s.lat.take(2, 1).is_none(), "taken once");
    }
}
