//! Free space: refuse to start what would fill the filesystem, before any
//! byte is written (the test file of a directory target, the trees of the
//! application workloads).

use crate::base::error::{Result, usage};
use crate::base::units::fmt_bytes;
use std::path::Path;

/// Check that the filesystem of `dir` has `bytes` of free space (block
/// rounding is the caller's to include) and `inodes` free inodes for
/// `what` (said in the message: "`what` needs …"). `advice` ends the
/// message when bytes are short ("use --size").
///
/// A filesystem that keeps no block or inode count (ramfs; btrfs for
/// inodes) reports 0 in all: there is nothing to check.
pub fn check(dir: &Path, bytes: u64, inodes: u64, what: &str, advice: Option<&str>) -> Result<()> {
    let vfs = rustix::fs::statvfs(dir).map_err(|e| super::error::TargetError::Filesystem {
        dir: dir.to_path_buf(),
        source: e.into(),
    })?;
    let avail = vfs.f_bavail * vfs.f_frsize;
    if vfs.f_blocks > 0 && bytes > avail {
        let advice = advice.map(|a| format!(" ({a})")).unwrap_or_default();
        return Err(usage(format!(
            "not enough free space in {}: {what} needs {}, {} available{advice}",
            dir.display(),
            fmt_bytes(bytes),
            fmt_bytes(avail)
        )));
    }
    if vfs.f_files > 0 && inodes > vfs.f_favail {
        return Err(usage(format!(
            "not enough free inodes in {}: {what} needs {inodes}, {} available",
            dir.display(),
            vfs.f_favail
        )));
    }
    Ok(())
}

/// The size of the filesystem `dir` is on (0 when it keeps no count).
pub fn filesystem_bytes(dir: &Path) -> Result<u64> {
    let vfs = rustix::fs::statvfs(dir).map_err(|e| super::error::TargetError::Filesystem {
        dir: dir.to_path_buf(),
        source: e.into(),
    })?;
    Ok(vfs.f_blocks.saturating_mul(vfs.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_much_is_refused_with_the_advice() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let vfs = rustix::fs::statvfs(tmp.path()).unwrap();
        if vfs.f_blocks > 0 {
            // Half of 2^64 bytes fits nowhere this test runs.
            let e = check(tmp.path(), u64::MAX / 2, 0, "the test file", Some("use --size")).unwrap_err();
            let m = e.to_string();
            assert!(m.starts_with("not enough free space in "), "{m}");
            assert!(
                m.contains(": the test file needs ") && m.ends_with(" available (use --size)"),
                "{m}"
            );
            let m = check(tmp.path(), u64::MAX / 2, 1, "x", None).unwrap_err().to_string();
            assert!(m.ends_with(" available"), "{m}");
        }
        assert!(check(tmp.path(), 0, 0, "nothing", None).is_ok());
        assert!(matches!(
            check(Path::new("/nonexistent/iolab"), 0, 0, "x", None),
            Err(crate::base::error::Error::Usage(_))
        ));
    }
}
