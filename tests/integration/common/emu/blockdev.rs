//! Block-device basics shared by the guards: the [`BlockDev`] trait the throttle keys on,
//! device numbers of a `/dev` node, and single-write sysfs/cgroup file updates.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

pub(super) fn write_sysfs(path: impl AsRef<Path>, value: &str) -> io::Result<()> {
    // One write(2) call: sysfs and cgroup files parse each write on its own.
    let mut f = fs::OpenOptions::new().write(true).open(path.as_ref())?;
    f.write_all(value.as_bytes())
}

pub(super) fn dev_numbers(path: &Path) -> (u32, u32) {
    let md = fs::metadata(path).unwrap_or_else(|e| panic!("stat {}: {e}", path.display()));
    assert!(md.file_type().is_block_device(), "{} is not a block device", path.display());
    let rdev = md.rdev();
    // Linux dev_t encoding (glibc gnu_dev_major/minor).
    let major = (((rdev >> 32) & 0xffff_f000) | ((rdev >> 8) & 0x0000_0fff)) as u32;
    let minor = (((rdev >> 12) & 0xffff_ff00) | (rdev & 0x0000_00ff)) as u32;
    (major, minor)
}

/// Anything the blkio throttle can limit.
pub trait BlockDev {
    /// `/dev/...` node.
    fn dev_path(&self) -> &Path;
    /// (major, minor) from the node's `st_rdev`.
    fn dev_numbers(&self) -> (u32, u32);
    /// `MAJ:MIN`, the key of blkio throttle files.
    fn majmin(&self) -> String {
        let (a, b) = self.dev_numbers();
        format!("{a}:{b}")
    }
    /// Kernel name (`loop3`, `zram1`).
    fn kernel_name(&self) -> String {
        self.dev_path().file_name().unwrap().to_string_lossy().into_owned()
    }
}
