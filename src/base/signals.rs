//! SIGINT/SIGTERM: the first one asks every loop to stop at its next
//! iteration (so the run ends cleanly and reports what finished); a second
//! SIGINT exits at once. Test files never outlive the process either way:
//! they are created unlinked (see [`crate::target`]); the one exception, a
//! test file on ZFS with `--allow-export`, has a name the next run sweeps
//! away ([`crate::target::leftovers`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
}

impl Stop {
    /// A stop flag wired to SIGINT and SIGTERM.
    pub fn install() -> Stop {
        let s = Stop::default();
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registered first, so it sees the flag as it was before this signal:
            // the second signal exits immediately, or, inside a window held
            // by `hold`, once it closes. Only atomics and _exit: async-signal-safe.
            let flag = s.flag.clone();
            // SAFETY: the action only loads and stores atomics and calls _exit.
            let _ = unsafe {
                signal_hook::low_level::register(sig, move || {
                    if flag.load(Ordering::SeqCst) {
                        // Written first: a window that closes meanwhile sees it.
                        PENDING.store(sig as usize, Ordering::SeqCst);
                        if HELD.load(Ordering::SeqCst) == 0 {
                            signal_hook::low_level::exit(128 + sig);
                        }
                    }
                })
            };
            let _ = signal_hook::flag::register_usize(sig, s.sig.clone(), sig as usize);
            let _ = signal_hook::flag::register(sig, s.flag.clone());
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
