//! The error type of the command line, mapped to exit statuses.

/// Why iolab stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: a missing target, an impossible size, a refused write. Exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Stopped by SIGINT or SIGTERM. Exit status 128 + signal.
    #[error("interrupted by {}", signal_name(*.0))]
    Interrupted(i32),
    /// Something failed while measuring. Exit status 1.
    #[error("{0}")]
    Failed(String),
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
    Error::Usage(msg.into())
}

pub fn failed(msg: impl Into<String>) -> Error {
    Error::Failed(msg.into())
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

pub type Result<T> = std::result::Result<T, Error>;
