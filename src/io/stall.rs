//! Waiting on a target that may stop answering.
//!
//! A hung device, a dead network filesystem or a stopped FUSE daemon
//! leaves an I/O (or an `fdatasync`) blocked in the kernel for ever. iolab
//! never waits on such a call in the thread that reports: the call runs on
//! a thread of its own, which bumps a [`Beat`] as it completes work, and the
//! waiting thread gives up when neither that beat nor the completions of
//! the block devices under the target have moved for the stall timeout
//! ([`timeout`]). The blocked thread is then left behind; whoever owns what
//! it uses (the target's descriptor) must keep it open until the process
//! exits, so a call that returns late never lands on a reused descriptor.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Test knob: a shorter stall timeout (a duration, `2s`), so the tests of a
/// hung target do not wait 30 s. Not for normal use: only with the cargo
/// feature `test-hooks` (see `base::testknob`).
#[cfg(feature = "test-hooks")]
pub const TIMEOUT_ENV: &str = "IOLAB_TEST_STALL_TIMEOUT";

/// How long a target may complete nothing before it counts as hung:
/// [`crate::base::thresholds::STALL_TIMEOUT`], or the test knob `TIMEOUT_ENV`.
pub fn timeout() -> Duration {
    #[cfg(feature = "test-hooks")]
    if let Some(d) = std::env::var(TIMEOUT_ENV)
        .ok()
        .and_then(|v| crate::base::units::parse_duration(&v).ok())
        .filter(|d| !d.is_zero())
    {
        return d;
    }
    crate::base::thresholds::STALL_TIMEOUT
}

/// A progress counter one thread bumps and others read, alone on its
/// cache line so the workers' beats do not slow each other down. One
/// writer only: bumping is a plain load and store, no locked instruction
/// in the I/O loop.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Beat(AtomicU64);

impl Beat {
    /// Count `n` more pieces of work done.
    #[inline]
    pub fn add(&self, n: u64) {
        self.0.store(self.0.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Says when a progress count has stopped moving for `limit`.
#[derive(Debug)]
pub struct Watchdog {
    limit: Duration,
    last: Option<u64>,
    since: Instant,
}

impl Watchdog {
    pub fn new(limit: Duration, now: Instant) -> Watchdog {
        Watchdog {
            limit,
            last: None,
            since: now,
        }
    }

    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// Observe the count at `now`: how long it has been still, once that is
    /// at least the limit; `None` while it moves (or has not been still long).
    pub fn check(&mut self, now: Instant, progress: u64) -> Option<Duration> {
        if self.last != Some(progress) {
            self.last = Some(progress);
            self.since = now;
            return None;
        }
        let still = now.saturating_duration_since(self.since);
        (still >= self.limit).then_some(still)
    }
}

/// `work` ran longer than the stall timeout without progress; it is still
/// running (or blocked) on its own thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stalled(pub Duration);

/// Run `work` on a thread of its own and wait for it while `progress()`
/// moves (the work's own [`Beat`] plus whatever else shows life, such as
/// the devices' completions). After `limit` without progress give up and
/// leave the thread behind (see the module doc: what it uses must stay
/// valid). A panic in `work` is resumed here.
pub fn bounded<T: Send + 'static>(
    limit: Duration,
    mut progress: impl FnMut() -> u64,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stalled> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
        let _ = tx.send(r);
    });
    let mut dog = Watchdog::new(limit, Instant::now());
    let tick = (limit / 10).clamp(Duration::from_millis(10), Duration::from_millis(250));
    loop {
        match rx.recv_timeout(tick) {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("the thread sends before it ends"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(still) = dog.check(Instant::now(), progress()) {
                    return Err(Stalled(still));
                }
            }
        }
    }
}

/// A [`Beat`] to share with the thread of a [`bounded`] call.
pub fn beat() -> Arc<Beat> {
    Arc::new(Beat::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_fires_only_after_the_limit_without_progress() {
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let mut d = Watchdog::new(Duration::from_secs(30), t0);
        assert_eq!(d.check(t0, 5), None);
        assert_eq!(d.check(t0 + 29 * s, 5), None, "29 s still: not yet");
        assert_eq!(d.check(t0 + 30 * s, 5), Some(30 * s), "30 s still: inclusive");
        // Progress restarts the clock.
        assert_eq!(d.check(t0 + 31 * s, 6), None);
        assert_eq!(d.check(t0 + 60 * s, 6), None);
        assert_eq!(d.check(t0 + 61 * s, 6), Some(30 * s));
        // A count that goes backwards (a device's counters reset) is movement too.
        assert_eq!(d.check(t0 + 62 * s, 0), None);
    }

    #[test]
    fn bounded_returns_the_work_or_gives_up_on_a_stall() {
        assert_eq!(bounded(Duration::from_secs(5), || 0, || 42), Ok(42));
        let (_hold, wait) = mpsc::channel::<()>();
        let t = Instant::now();
        // Work that never ends and shows no progress: given up after the limit.
        let r = bounded(Duration::from_millis(200), || 7, move || wait.recv().is_ok());
        assert!(matches!(r, Err(Stalled(d)) if d >= Duration::from_millis(200)), "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(5));
        // Work that keeps beating is waited for past the limit.
        let b = beat();
        let b2 = b.clone();
        let r = bounded(
            Duration::from_millis(100),
            || b.get(),
            move || {
                for _ in 0..10 {
                    std::thread::sleep(Duration::from_millis(40));
                    b2.add(1);
                }
                "done"
            },
        );
        assert_eq!(r, Ok("done"));
    }

    #[test]
    fn the_test_knob_shortens_the_timeout() {
        // Read only here: the variable is not set in unit tests.
        if std::env::var_os(TIMEOUT_ENV).is_none() {
            assert_eq!(timeout(), crate::base::thresholds::STALL_TIMEOUT);
        }
    }
}
