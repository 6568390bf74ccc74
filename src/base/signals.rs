//! SIGINT/SIGTERM: the first one asks every loop to stop at its next
//! iteration (so the run ends cleanly and reports what finished); a second
//! SIGINT exits at once. Test files never outlive the process either way:
//! they are created unlinked (see [`crate::targets`]); the one exception, a
//! test file on ZFS with `--allow-export`, has a name the next run sweeps
//! away ([`crate::targets::leftovers`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// A second SIGINT or SIGTERM this long after the first exits at once;
/// one sooner is the same request delivered again. `timeout -s INT` sends
/// its signal to the process and then to its process group, a shell may
/// pass a terminal's Ctrl-C on as well: the one interrupt arrives twice,
/// microseconds apart, or milliseconds on a busy machine, and was taken for
/// a second one (an exit with status 130, nothing printed or stored).
pub const AGAIN_AFTER: Duration = Duration::from_millis(500);

/// Windows a second signal must not cut (see [`hold`]), and the signal that
/// came in one, to exit with once the last closes.
static HELD: AtomicUsize = AtomicUsize::new(0);
static PENDING: AtomicUsize = AtomicUsize::new(0);

/// While the returned [`Hold`] lives, a second SIGINT or SIGTERM does not
/// exit at once: it waits until the window closes (the last `Hold` is
/// dropped), then exits with its status. For what must not be left half
/// done: a user's pool exported until it is imported again.
pub fn hold() -> Hold {
    HELD.fetch_add(1, Ordering::SeqCst);
    Hold(())
}

/// A window a second signal waits for; see [`hold`].
pub struct Hold(());

impl Drop for Hold {
    fn drop(&mut self) {
        if HELD.fetch_sub(1, Ordering::SeqCst) == 1 {
            let sig = PENDING.load(Ordering::SeqCst);
            if sig != 0 {
                signal_hook::low_level::exit(128 + sig as i32);
            }
        }
    }
}

#[derive(Clone, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    sig: Arc<AtomicUsize>,
    /// When the first signal came (monotonic nanoseconds, never 0), or 0.
    first: Arc<AtomicU64>,
}

/// What a signal does, given when the first one came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// The first: ask every loop to stop.
    Stop,
    /// The same interrupt again (within [`AGAIN_AFTER`]): nothing more.
    Same,
    /// A second request: exit at once.
    Exit,
}

/// The action for a signal at `now` (monotonic nanoseconds, above 0),
/// recording it in `first` when it is the first.
fn action(first: &AtomicU64, now: u64) -> Action {
    match first.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => Action::Stop,
        Err(t0) if now.saturating_sub(t0) >= AGAIN_AFTER.as_nanos() as u64 => Action::Exit,
        Err(_) => Action::Same,
    }
}

/// Monotonic nanoseconds, never 0 (async-signal-safe: `clock_gettime`).
fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
        .max(1)
}

impl Stop {
    /// A stop flag wired to SIGINT and SIGTERM: the first one sets it, the
    /// same one delivered again within [`AGAIN_AFTER`] is passed over, and
    /// a later one exits at once (128 + the signal), saying so on stderr.
    pub fn install() -> Stop {
        let s = Stop::default();
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let (flag, signo, first) = (s.flag.clone(), s.sig.clone(), s.first.clone());
            let handler = move || match action(&first, now_ns()) {
                Action::Stop => {
                    signo.store(sig as usize, Ordering::SeqCst);
                    flag.store(true, Ordering::SeqCst);
                }
                Action::Same => {}
                Action::Exit => {
                    // Written first: a window held by `hold` that closes meanwhile sees it.
                    PENDING.store(sig as usize, Ordering::SeqCst);
                    let held = HELD.load(Ordering::SeqCst) != 0;
                    let line: &[u8] = match (sig == signal_hook::consts::SIGINT, held) {
                        (true, false) => b"iolab: a second SIGINT: exiting at once, without keeping or printing this run\n",
                        (false, false) => b"iolab: a second SIGTERM: exiting at once, without keeping or printing this run\n",
                        (true, true) => b"iolab: a second SIGINT: exiting once what must not be left half done is undone\n",
                        (false, true) => b"iolab: a second SIGTERM: exiting once what must not be left half done is undone\n",
                    };
                    let _ = rustix::io::write(rustix::stdio::stderr(), line);
                    if !held {
                        signal_hook::low_level::exit(128 + sig);
                    }
                }
            };
            // SAFETY: the handler only uses atomics, clock_gettime(2),
            // write(2) and _exit(2), all async-signal-safe; it allocates nothing.
            let _ = unsafe { signal_hook::low_level::register(sig, handler) };
        }
        s
    }

    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    pub fn requested(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The signal that asked to stop, if any.
    pub fn signal(&self) -> Option<i32> {
        self.requested()
            .then(|| self.sig.load(Ordering::Relaxed) as i32)
            .filter(|&s| s != 0)
    }

    /// `Err(Interrupted)` once a stop was asked for (SIGINT when no signal
    /// did it): the error measuring code returns to unwind to the
    /// experiment runner, which turns it into an interrupted result.
    pub fn check(&self) -> crate::base::error::Result<()> {
        match self.signal() {
            Some(sig) => Err(crate::base::error::Error::Interrupted(sig)),
            None if self.requested() => Err(crate::base::error::Error::Interrupted(libc::SIGINT)),
            None => Ok(()),
        }
    }

    /// Stop without a signal (tests, internal errors).
    pub fn request(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Sleep up to `d`, waking early when a stop is requested.
    pub fn sleep(&self, d: std::time::Duration) {
        let end = std::time::Instant::now() + d;
        while !self.requested() {
            let now = std::time::Instant::now();
            if now >= end {
                break;
            }
            std::thread::sleep((end - now).min(std::time::Duration::from_millis(50)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_36_the_same_interrupt_delivered_twice_is_one_stop() {
        let first = AtomicU64::new(0);
        let t0 = 5_000_000_000;
        assert_eq!(action(&first, t0), Action::Stop);
        // timeout(1)'s second delivery, microseconds to milliseconds later.
        assert_eq!(action(&first, t0 + 3_000), Action::Same);
        assert_eq!(action(&first, t0 + 20_000_000), Action::Same);
        // A second request, later: exit at once.
        let again = t0 + AGAIN_AFTER.as_nanos() as u64;
        assert_eq!(action(&first, again), Action::Exit);
        assert_eq!(first.load(Ordering::SeqCst), t0, "the first signal's time is kept");
    }
}
