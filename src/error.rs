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
    /// data that did not read back, `capacity` a fake size. Exit status 3.
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
