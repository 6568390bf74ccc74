//! Progress: what an experiment tells its caller while it runs. Measuring
//! code never prints; it sends [`Event`]s to an [`Observer`]. The terminal
//! view (`render::progress`) is one observer, [`Silent`] another (tests,
//! `--quiet`).

use std::time::Duration;

/// Which pass of a job is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    Warmup,
    /// Measured run `n` of `of` (1-based).
    Run {
        n: u32,
        of: u32,
    },
    /// Measured window `n` of `--runs auto`, of at most `max`.
    Window {
        n: u32,
        max: u32,
    },
}

/// Progress events, for a progress bar or a log.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Prefill {
        done: u64,
        total: u64,
    },
    PassStart {
        job: &'a str,
        pass: Pass,
        planned: Option<Duration>,
    },
    /// Time since the current pass started.
    Tick {
        elapsed: Duration,
    },
    Interval {
        planned: Duration,
    },
    JobDone {
        job: &'a str,
    },
    /// A point of `iolab scale` finished (see [`crate::experiment::scale`]): the
    /// aggregate of the jobs that ran at once.
    PointDone {
        label: &'a str,
        bw_bytes: f64,
        iops: f64,
    },
    /// A timed command is running (see [`crate::experiment::time`]): time
    /// since it started, and the device's current rate when known.
    Command {
        label: &'a str,
        elapsed: Duration,
        /// The top device under the working directory and its current bytes/s.
        device: Option<(&'a str, f64)>,
    },
    /// A phase of a built-in workload is under way (see [`crate::experiment::apps`]).
    Phase {
        label: &'a str,
        done: u64,
        total: u64,
    },
    /// Something the user should know now, not only in the result: O_DIRECT
    /// refused, caches that cannot be emptied, a layout not found.
    Notice {
        level: Level,
        text: &'a str,
    },
    /// The measured time ahead, as planned (for a progress bar).
    Planned {
        total: Duration,
    },
    /// A surface-scan zone finished (see [`crate::experiment::scan`]).
    ZoneDone {
        index: u32,
        of: u32,
        offset: u64,
        bw_bytes: f64,
    },
}

/// How loud a [`Event::Notice`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Worth knowing; the figures are still what they claim.
    Note,
    /// The figures mean less than usual (buffered I/O, warm caches).
    Warning,
}

/// Receives [`Event`]s as an experiment runs (on the thread that runs it).
pub trait Observer {
    fn event(&self, ev: Event<'_>);
}

/// Any closure over events is an observer (tests, small adapters).
impl<F: Fn(Event<'_>)> Observer for F {
    fn event(&self, ev: Event<'_>) {
        self(ev)
    }
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {
    fn event(&self, _: Event<'_>) {}
}
