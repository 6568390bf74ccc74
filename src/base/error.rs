//! The error type of the command line, mapped to exit statuses.

/// Why iolab stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: a missing target, an impossible size, a refused write. Exit status 2.
    #[error(transparent)]
    Usage(Message),
    /// Stopped by SIGINT or SIGTERM. Exit status 128 + signal.
    #[error("interrupted by {}", signal_name(*.0))]
    Interrupted(i32),
    /// Something failed while measuring. Exit status 1.
    #[error(transparent)]
    Failed(Message),
    /// The measurement worked and the device failed it: `verify` found
    /// data that did not read back, `capacity` a fake size, `flush` acknowledged
    /// writes lost. Exit status 3.
    #[error("{0}")]
    Check(String),
    /// The result was printed (and its JSON written where asked) but could
    /// not be kept in the results store: a full or read-only disk, a broken
    /// store. Exit status 4.
    #[error("{0}")]
    NotSaved(String),
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Interrupted(sig) => (128 + sig) as u8,
            Error::Failed(_) => 1,
            Error::Check(_) => 3,
            Error::NotSaved(_) => 4,
        }
    }
}

/// iolab's exit statuses (see [`Error::exit_code`]; 70 is a panic's): the
/// one table behind `--help`'s "Exit status" and the man page's EXIT STATUS.
pub const EXIT_STATUSES: &[(&str, &str)] = &[
    ("0", "Success."),
    ("1", "Failure: something failed while measuring or storing the result."),
    ("2", "Usage: bad arguments or input (a missing target), a refused write."),
    (
        "3",
        "The device failed a check: verify found data that did not read back as written, capacity found a fake size, flush found acknowledged writes lost (the result is kept).",
    ),
    (
        "4",
        "The result was printed (and its JSON written where asked) but not saved in the results store (a full or read-only disk); the message names the store.",
    ),
    (
        "70",
        "Internal error: a bug in iolab (a panic), said in one line; please report it.",
    ),
    ("128+N", "Interrupted by signal N (130: SIGINT); what finished is kept."),
];

pub fn usage(msg: impl Into<String>) -> Error {
    Error::Usage(Message::text(msg))
}

pub fn failed(msg: impl Into<String>) -> Error {
    Error::Failed(Message::text(msg))
}

/// A layer's typed error that gives exit status 2 (bad input), its cause kept.
pub fn usage_by(cause: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Usage(Message::caused(cause))
}

/// A layer's typed error that gives exit status 1 (a failure), its cause kept.
pub fn failed_by(cause: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Failed(Message::caused(cause))
}

/// What [`Error::Usage`] and [`Error::Failed`] say: a line of text, or a
/// layer's typed error (a `thiserror` enum of its own whose variants hold
/// the facts and the cause), whose message is the line. The chain of
/// causes ([`std::error::Error::source`]) goes from the line straight to
/// the layer's cause (an `io::Error`, a SQLite error), and [`Error::cause`]
/// gives the layer's error itself, to match on its variant.
#[derive(Debug)]
pub enum Message {
    Text(String),
    Caused(Box<dyn std::error::Error + Send + Sync + 'static>),
}

impl Message {
    /// A line of text, with no cause behind it.
    pub fn text(msg: impl Into<String>) -> Message {
        Message::Text(msg.into())
    }

    /// A layer's typed error.
    pub fn caused(cause: impl std::error::Error + Send + Sync + 'static) -> Message {
        Message::Caused(Box::new(cause))
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Text(t) => f.write_str(t),
            Message::Caused(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Message {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Message::Text(_) => None,
            // The layer's error says the line itself: its own cause is next.
            Message::Caused(e) => e.source(),
        }
    }
}

impl Error {
    /// The layer's typed error behind this one, if it is a `T`: what a
    /// test about the cause matches on, instead of the message's words.
    pub fn cause<T: std::error::Error + 'static>(&self) -> Option<&T> {
        match self {
            Error::Usage(Message::Caused(e)) | Error::Failed(Message::Caused(e)) => e.downcast_ref::<T>(),
            _ => None,
        }
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

pub type Result<T> = std::result::Result<T, Error>;
