//! SIGINT/SIGTERM: the first one asks every loop to stop at its next
//! iteration (so the run ends cleanly and reports what finished); a second
//! SIGINT exits at once. Test files never outlive the process either way:
//! they are created unlinked (see [`crate::target`]); the one exception, a
//! test file on ZFS with `--allow-export`, has a name the next run sweeps
//! away ([`crate::target::leftovers`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
            // the second signal exits immediately.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, s.flag.clone());
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
