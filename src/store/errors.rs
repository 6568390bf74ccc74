//! The store's failures in the command's terms: which exit status each
//! gives, and the line that says a result was not kept.

use super::StoreError;
use crate::base::error::{Error, failed_by, usage_by};
use std::path::Path;

/// A run that is not in the store, or a path iolab will not use as one,
/// is the user's mistake (exit status 2); anything else failed (1).
impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        match e {
            StoreError::NotFound(_) | StoreError::Refused(_) => usage_by(e),
            _ => failed_by(e),
        }
    }
}

/// `the run was not saved in STORE: REASON` (exit status 4), with why the
/// store's disk may have refused when that can be seen.
pub fn not_saved(db: &Path, e: &StoreError) -> Error {
    let reason = match e {
        StoreError::Sql { source, .. } => source.to_string(),
        StoreError::ReadOnly { .. } => "the store cannot be written".to_string(),
        StoreError::Busy {
            source, waited, timeout, ..
        } => super::busy_message(source, *waited, *timeout),
        other => other.to_string(),
    };
    Error::NotSaved(format!("the run was not saved in {}: {reason}{}", db.display(), disk_state(db)))
}

/// Why the store's disk may have refused: ` (its filesystem is mounted
/// read-only)`, ` (its filesystem is full)`, or nothing.
fn disk_state(db: &Path) -> &'static str {
    let Some(v) = db
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .and_then(|d| rustix::fs::statvfs(d).ok())
    else {
        return "";
    };
    // Root may write into the blocks kept for it; others may not.
    let free = if rustix::process::geteuid().is_root() {
        v.f_bfree
    } else {
        v.f_bavail
    };
    if v.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
        " (its filesystem is mounted read-only)"
    } else if v.f_blocks > 0 && free == 0 {
        " (its filesystem is full)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_16_a_full_store_is_exit_status_4_and_named() {
        let e = not_saved(
            Path::new("/full/results.db"),
            &StoreError::Sql {
                path: "/full/results.db".into(),
                source: rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(13), Some("database or disk is full".into())),
            },
        );
        assert_eq!(e.exit_code(), 4);
        assert_eq!(e.to_string(), "the run was not saved in /full/results.db: database or disk is full");
    }

    #[test]
    fn a_missing_run_is_a_usage_error_a_broken_store_a_failure() {
        assert_eq!(Error::from(StoreError::NotFound(7)).exit_code(), 2);
        assert_eq!(Error::from(StoreError::Refused("refusing x".into())).exit_code(), 2);
        assert_eq!(Error::from(StoreError::Invalid("bad".into())).exit_code(), 1);
    }
}
