//! Walking sysfs block-device directories: by number or name, partitions to
//! disks, holders and slaves. Every path is read under a [`SysRoot`].

use super::SysRoot;
use std::fs;
use std::path::{Path, PathBuf};

/// One block device as sysfs shows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Blk {
    /// Kernel name (`sda1`, `dm-0`, `loop3`).
    pub name: String,
    pub dev: (u32, u32),
    /// Canonical directory of the device (under the root).
    pub dir: PathBuf,
}

impl Blk {
    pub fn dev_string(&self) -> String {
        format!("{}:{}", self.dev.0, self.dev.1)
    }
    /// A file of this device's directory, trimmed; `None` if absent or empty.
    pub fn attr(&self, rel: &str) -> Option<String> {
        read_trimmed(&self.dir.join(rel))
    }
    pub fn is_partition(&self) -> bool {
        self.dir.join("partition").exists()
    }
    /// The whole disk a partition belongs to (its parent directory).
    pub fn disk(&self) -> Option<Blk> {
        if self.is_partition() { from_dir(self.dir.parent()?) } else { None }
    }
    pub fn slaves(&self) -> Vec<Blk> {
        links_in(&self.dir.join("slaves"))
    }
    pub fn holders(&self) -> Vec<Blk> {
        links_in(&self.dir.join("holders"))
    }
    /// Size in bytes (`size` is always in 512-byte sectors).
    pub fn size_bytes(&self) -> u64 {
        self.attr("size").and_then(|s| s.parse::<u64>().ok()).unwrap_or(0) * 512
    }
}

pub(crate) fn read_trimmed(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// A block device from its sysfs directory (which holds `dev`).
pub(crate) fn from_dir(dir: &Path) -> Option<Blk> {
    let dir = fs::canonicalize(dir).ok()?;
    let (ma, mi) = read_trimmed(&dir.join("dev"))?
        .split_once(':')
        .map(|(a, b)| (a.to_string(), b.to_string()))?;
    Some(Blk {
        name: dir.file_name()?.to_string_lossy().into_owned(),
        dev: (ma.parse().ok()?, mi.parse().ok()?),
        dir,
    })
}

/// The block device `major:minor` (`/sys/dev/block/M:m`).
pub(crate) fn by_dev(root: &SysRoot, dev: (u32, u32)) -> Option<Blk> {
    from_dir(&root.path(&format!("sys/dev/block/{}:{}", dev.0, dev.1)))
}

/// The block device with kernel name `name` (`/sys/class/block/NAME`).
pub(crate) fn by_name(root: &SysRoot, name: &str) -> Option<Blk> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    from_dir(&root.path(&format!("sys/class/block/{name}"))).or_else(|| from_dir(&root.path(&format!("sys/block/{name}"))))
}

/// The block device a `/dev/...` mount source names: the device number of
/// the node under the root if it is there, else the name its symlinks lead
/// to (`/dev/mapper/x` → `../dm-0`), else the name looked up in sysfs
/// (device-mapper names through `dm/name`).
pub(crate) fn by_source(root: &SysRoot, source: &str) -> Option<Blk> {
    let rel = source.strip_prefix("/dev/")?;
    if let Ok(md) = fs::metadata(root.path(source)) {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        if md.file_type().is_block_device()
            && let Some(b) = by_dev(root, (rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev())))
        {
            return Some(b);
        }
    }
    let real = fs::canonicalize(root.path(source)).ok();
    let name = real
        .as_deref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    if let Some(b) = name.as_deref().and_then(|n| by_name(root, n)) {
        return Some(b);
    }
    if let Some(dm) = rel.strip_prefix("mapper/") {
        let entries = fs::read_dir(root.path("sys/block")).ok()?;
        return entries
            .flatten()
            .filter_map(|e| from_dir(&e.path()))
            .find(|b| b.attr("dm/name").as_deref() == Some(dm));
    }
    by_name(root, rel)
}

/// The devices an entry directory (`holders/`, `slaves/`, btrfs `devices/`) links to, sorted by name.
pub(crate) fn links_in(dir: &Path) -> Vec<Blk> {
    let mut out: Vec<Blk> = fs::read_dir(dir)
        .map(|rd| rd.flatten().filter_map(|e| from_dir(&e.path())).collect())
        .unwrap_or_default();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The device directory as the live system names it (`/sys/devices/...`).
pub(crate) fn sys_path(root: &SysRoot, dir: &Path) -> String {
    let base = fs::canonicalize(&root.0).unwrap_or_else(|_| root.0.clone());
    match dir.strip_prefix(&base) {
        Ok(rel) => format!("/{}", rel.display()),
        Err(_) => dir.display().to_string(),
    }
}

/// The members of the mounted btrfs whose source device is `source`
/// (`/sys/fs/btrfs/<fsid>/devices/*`), or nothing if no fsid lists it.
pub(crate) fn btrfs_members(root: &SysRoot, source: &Blk) -> Vec<Blk> {
    let Ok(fsids) = fs::read_dir(root.path("sys/fs/btrfs")) else {
        return Vec::new();
    };
    for fsid in fsids.flatten() {
        let members = links_in(&fsid.path().join("devices"));
        if members.iter().any(|m| m.dev == source.dev) {
            return members;
        }
    }
    Vec::new()
}

/// The data profile of the btrfs filesystem `source` belongs to: of the
/// profiles under `allocation/data/` (`single`, `raid0`, `raid1`, ...), the
/// one holding the most bytes (a filesystem converted with `balance` may
/// hold a little of the old one).
pub(crate) fn btrfs_data_profile(root: &SysRoot, source: &Blk) -> Option<String> {
    let fsids = fs::read_dir(root.path("sys/fs/btrfs")).ok()?;
    for fsid in fsids.flatten() {
        if !links_in(&fsid.path().join("devices")).iter().any(|m| m.dev == source.dev) {
            continue;
        }
        let profiles = fs::read_dir(fsid.path().join("allocation/data")).ok()?;
        return profiles
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| {
                let total: u64 = fs::read_to_string(e.path().join("total_bytes"))
                    .ok()
                    .and_then(|t| t.trim().parse().ok())
                    .unwrap_or(0);
                (total, e.file_name().to_string_lossy().into_owned())
            })
            .max()
            .map(|(_, name)| name);
    }
    None
}

/// The selected entry of a sysfs choice list (`none [mq-deadline] kyber`).
pub(crate) fn bracketed(s: &str) -> Option<String> {
    if let (Some(a), Some(b)) = (s.find('['), s.find(']')) {
        return (a < b).then(|| s[a + 1..b].to_string());
    }
    let w: Vec<&str> = s.split_whitespace().collect();
    (w.len() == 1).then(|| w[0].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed_choice() {
        assert_eq!(bracketed("none [mq-deadline] kyber bfq").as_deref(), Some("mq-deadline"));
        assert_eq!(bracketed("[none] mq-deadline").as_deref(), Some("none"));
        assert_eq!(bracketed("none").as_deref(), Some("none"));
        assert_eq!(bracketed("none kyber"), None);
    }

    #[test]
    fn live_sys_path_and_lookup() {
        let root = SysRoot::default();
        let Some(b) = by_name(&root, "loop0") else { return };
        assert_eq!(b.dev.0, 7);
        assert_eq!(sys_path(&root, &b.dir), "/sys/devices/virtual/block/loop0");
        assert_eq!(by_dev(&root, b.dev), Some(b.clone()));
        assert_eq!(by_source(&root, "/dev/loop0"), Some(b));
    }
}
