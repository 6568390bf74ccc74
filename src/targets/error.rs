//! The targets' failures: each variant holds the facts (the path, the
//! directory) and the system's error as its cause, and says the one line a
//! user reads; [`TargetError::status`] decides whether it is bad input
//! (exit status 2) or a failure (1). A test about why an open failed
//! matches on the variant ([`crate::base::error::Error::cause`]) and on
//! the cause's kind, not on the message's words.

use crate::base::error::{Error, failed_by, usage_by};
use std::io;
use std::path::PathBuf;

/// Why a target could not be found, opened, sized or kept.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("target {} does not exist", path.display())]
    Missing { path: PathBuf, source: io::Error },
    #[error("cannot access target {}: {source}", path.display())]
    Access { path: PathBuf, source: io::Error },
    #[error("cannot resolve target {}: {source}", path.display())]
    Resolve { path: PathBuf, source: io::Error },
    #[error("refusing to write to {}: it is in use (mounted, swap, or held by another driver)", path.display())]
    InUse { path: PathBuf, source: io::Error },
    #[error("cannot open {}: {source}", path.display())]
    Open { path: PathBuf, source: io::Error },
    /// The target opened, then could not be looked at through its descriptor.
    #[error("cannot stat {}: {source}", path.display())]
    Stat { path: PathBuf, source: io::Error },
    #[error("BLKGETSIZE64 failed: {source}")]
    DeviceSize { source: io::Error },
    #[error("cannot stat filesystem of {}: {source}", dir.display())]
    Filesystem { dir: PathBuf, source: io::Error },
    #[error("cannot create a test file in {}: {source}", dir.display())]
    CreateTestFile { dir: PathBuf, source: io::Error },
    #[error("cannot size test file: {source}")]
    SizeTestFile { source: io::Error },
    #[error("cannot allocate the test file in {}: {source}", dir.display())]
    Allocate { dir: PathBuf, source: io::Error },
    /// The private directory of a run's files (verify's, capacity's).
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir { dir: PathBuf, source: io::Error },
    #[error("cannot write in {}: {source}", dir.display())]
    WriteIn { dir: PathBuf, source: io::Error },
    /// One of a run's files, in its private directory.
    #[error("cannot create {}: {source}", path.display())]
    CreateFile { path: PathBuf, source: io::Error },
    #[error("flushing the verify files: {source}")]
    FlushFiles { source: io::Error },
    #[error("{} is gone after the wait: {source}", path.display())]
    GoneAfterWait { path: PathBuf, source: io::Error },
    #[error("cannot reopen {}: {source}", path.display())]
    Reopen { path: PathBuf, source: io::Error },
    #[error("cannot make the journal directory {}: {source}", dir.display())]
    JournalDir { dir: PathBuf, source: io::Error },
}

/// Which exit status a [`TargetError`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Bad input: the target or its directory as given will not do (2).
    Usage,
    /// Something failed on a target that was accepted (1).
    Failed,
}

impl TargetError {
    /// Bad input or a failure: what the user gave, or what happened to it.
    pub fn status(&self) -> Status {
        use TargetError as T;
        match self {
            T::Missing { .. }
            | T::Access { .. }
            | T::Resolve { .. }
            | T::InUse { .. }
            | T::Open { .. }
            | T::Filesystem { .. }
            | T::CreateTestFile { .. }
            | T::CreateDir { .. }
            | T::WriteIn { .. } => Status::Usage,
            T::Stat { .. }
            | T::DeviceSize { .. }
            | T::SizeTestFile { .. }
            | T::Allocate { .. }
            | T::CreateFile { .. }
            | T::FlushFiles { .. }
            | T::GoneAfterWait { .. }
            | T::Reopen { .. }
            | T::JournalDir { .. } => Status::Failed,
        }
    }
}

impl From<TargetError> for Error {
    fn from(e: TargetError) -> Error {
        match e.status() {
            Status::Usage => usage_by(e),
            Status::Failed => failed_by(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_the_variants_and_the_cause_is_the_systems() {
        let e: Error = TargetError::Open {
            path: PathBuf::from("/dev/sdz"),
            source: io::Error::from_raw_os_error(libc::EACCES),
        }
        .into();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(e.to_string(), "cannot open /dev/sdz: Permission denied (os error 13)");
        assert!(matches!(e.cause::<TargetError>(), Some(TargetError::Open { .. })));
        let cause = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(
            cause.and_then(io::Error::raw_os_error),
            Some(libc::EACCES),
            "the chain goes to the errno"
        );
        let e: Error = TargetError::DeviceSize {
            source: io::Error::from_raw_os_error(libc::ENOTTY),
        }
        .into();
        assert_eq!(e.exit_code(), 1);
    }
}
