//! What this machine can build for `iolab layouts`: programs on PATH,
//! md and device-mapper in the kernel, and which ZFS implementation would
//! serve a new pool. Read under a [`SysRoot`]; the plan itself
//! ([`crate::plan::layouts`]) stays pure.

use super::SysRoot;
use crate::plan::layouts::{Capabilities, TOOLS, ZfsImpl};
use std::ffi::OsStr;
use std::path::Path;

/// Whether `name` is an executable file in one of `path`'s directories.
fn on_path(name: &str, path: &OsStr) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path)
        .any(|dir| std::fs::metadata(dir.join(name)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

fn exists(root: &SysRoot, rel: &str) -> bool {
    Path::new(&root.0).join(rel.trim_start_matches('/')).exists()
}

/// md: `/proc/mdstat` (the driver is loaded or built in) or `/sys/module/md_mod`.
fn has_md(root: &SysRoot) -> bool {
    exists(root, "/proc/mdstat") || exists(root, "/sys/module/md_mod")
}

/// device-mapper: a `device-mapper` line in `/proc/misc`, or its class device.
fn has_dm(root: &SysRoot) -> bool {
    let misc = root.read("/proc/misc").unwrap_or_default();
    misc.lines().any(|l| l.split_whitespace().nth(1) == Some("device-mapper")) || exists(root, "/sys/class/misc/device-mapper")
}

/// The kernel module first (it serves `zpool` when loaded), else a running
/// zfs-fuse daemon with its binary on PATH.
fn zfs_impl(root: &SysRoot, path: &OsStr) -> Option<ZfsImpl> {
    if exists(root, "/sys/module/zfs") {
        Some(ZfsImpl::OpenZfs)
    } else if on_path("zfs-fuse", path) && super::zfs_fuse::find(root).is_some() {
        Some(ZfsImpl::ZfsFuse)
    } else {
        None
    }
}

/// The capabilities of the machine under `root`, its programs looked up in `path` (`$PATH`).
pub fn capabilities(root: &SysRoot, path: &OsStr) -> Capabilities {
    Capabilities {
        tools: TOOLS.iter().filter(|t| on_path(t, path)).map(|t| t.to_string()).collect(),
        zfs: zfs_impl(root, path),
        md: has_md(root),
        dm: has_dm(root),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn touch(dir: &Path, rel: &str, text: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn tools_kernel_drivers_and_the_zfs_implementation_are_read_from_the_system() {
        let t = tempfile::tempdir().unwrap();
        let (root, bin) = (t.path().join("root"), t.path().join("bin"));
        touch(&bin, "mkfs.ext4", "", 0o755);
        touch(&bin, "zpool", "", 0o755);
        touch(&bin, "zfs-fuse", "", 0o755);
        touch(&bin, "mdadm", "", 0o644); // not executable: not a tool
        fs::create_dir_all(&root).unwrap();
        let path = bin.as_os_str();
        let sys = SysRoot(root.clone());
        let c = capabilities(&sys, path);
        assert_eq!(c.tools.iter().map(String::as_str).collect::<Vec<_>>(), ["mkfs.ext4", "zpool"]);
        assert_eq!(
            (c.zfs, c.md, c.dm),
            (None, false, false),
            "zfs-fuse installed but not running: no ZFS"
        );

        touch(&root, "proc/misc", " 58 memory_bandwidth\n236 device-mapper\n", 0o644);
        touch(&root, "sys/module/md_mod/refcnt", "0", 0o644);
        touch(&root, "proc/4242/comm", "zfs-fuse", 0o644);
        touch(&root, "proc/4242/cmdline", "/usr/sbin/zfs-fuse\0", 0o644);
        let c = capabilities(&sys, path);
        assert_eq!((c.zfs, c.md, c.dm), (Some(ZfsImpl::ZfsFuse), true, true));

        fs::create_dir_all(root.join("sys/module/zfs")).unwrap();
        assert_eq!(capabilities(&sys, path).zfs, Some(ZfsImpl::OpenZfs), "the kernel module wins");

        let bare = SysRoot(t.path().join("empty"));
        touch(&t.path().join("empty"), "sys/class/misc/device-mapper/dev", "10:236", 0o644);
        touch(&t.path().join("empty"), "proc/mdstat", "Personalities :\n", 0o644);
        let c = capabilities(&bare, OsStr::new(""));
        assert!(c.tools.is_empty());
        assert_eq!((c.zfs, c.md, c.dm), (None, true, true));
    }
}
