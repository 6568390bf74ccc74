//! The kernel's block throttle, whichever interface the machine has: the
//! cgroup v1 blkio controller (`blkio.throttle.*_device`) or the cgroup v2
//! io controller (`io.max`). A [`Group`] is created empty, given limits on
//! one device, joined by the processes that must obey them, and removed
//! when dropped (its processes moved back to the root first).

use std::fs;
use std::path::{Path, PathBuf};

/// One limit on one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    ReadBps(u64),
    WriteBps(u64),
    ReadIops(u64),
    WriteIops(u64),
}

impl Limit {
    pub fn value(self) -> u64 {
        match self {
            Limit::ReadBps(v) | Limit::WriteBps(v) | Limit::ReadIops(v) | Limit::WriteIops(v) => v,
        }
    }
    fn v1_file(self) -> &'static str {
        match self {
            Limit::ReadBps(_) => "blkio.throttle.read_bps_device",
            Limit::WriteBps(_) => "blkio.throttle.write_bps_device",
            Limit::ReadIops(_) => "blkio.throttle.read_iops_device",
            Limit::WriteIops(_) => "blkio.throttle.write_iops_device",
        }
    }
    fn v2_key(self) -> &'static str {
        match self {
            Limit::ReadBps(_) => "rbps",
            Limit::WriteBps(_) => "wbps",
            Limit::ReadIops(_) => "riops",
            Limit::WriteIops(_) => "wiops",
        }
    }
}

/// Which throttle interface a machine offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// cgroup v1: `<root>/blkio` is a blkio hierarchy.
    V1(PathBuf),
    /// cgroup v2: `<root>` is the unified hierarchy with the io controller.
    V2(PathBuf),
}

/// The throttle under `cgroup_root` (`/sys/fs/cgroup` on a live system), or
/// why there is none.
pub fn detect(cgroup_root: &Path) -> Result<Kind, String> {
    let v1 = cgroup_root.join("blkio");
    if v1.join("blkio.throttle.read_bps_device").exists() {
        return Ok(Kind::V1(v1));
    }
    let controllers = fs::read_to_string(cgroup_root.join("cgroup.controllers")).unwrap_or_default();
    if controllers.split_whitespace().any(|c| c == "io") {
        return Ok(Kind::V2(cgroup_root.to_path_buf()));
    }
    Err(format!(
        "no block throttle: {} is not a cgroup v1 blkio hierarchy, and {} offers no io controller (cgroup v2)",
        v1.display(),
        cgroup_root.join("cgroup.controllers").display()
    ))
}

/// A throttle group of iolab's own.
#[derive(Debug)]
pub struct Group {
    kind: Kind,
    path: PathBuf,
}

impl Group {
    /// A new, empty group named `name`.
    pub fn create(kind: &Kind, name: &str) -> std::io::Result<Group> {
        let parent = match kind {
            Kind::V1(p) | Kind::V2(p) => p,
        };
        let path = parent.join(name);
        fs::create_dir(&path)?;
        if let Kind::V2(root) = kind {
            // The io controller must be enabled for the root's children.
            let _ = fs::write(root.join("cgroup.subtree_control"), "+io");
        }
        Ok(Group { kind: kind.clone(), path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Limit `dev` (`major:minor`) in this group.
    pub fn limit(&self, dev: (u32, u32), l: Limit) -> std::io::Result<()> {
        let (maj, min) = dev;
        match &self.kind {
            Kind::V1(_) => fs::write(self.path.join(l.v1_file()), format!("{maj}:{min} {}", l.value())),
            Kind::V2(_) => fs::write(self.path.join("io.max"), format!("{maj}:{min} {}={}", l.v2_key(), l.value())),
        }
    }

    /// The file a process joins the group through.
    pub fn procs_file(&self) -> PathBuf {
        self.path.join("cgroup.procs")
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let root = match &self.kind {
            Kind::V1(p) | Kind::V2(p) => p.clone(),
        };
        if let Ok(pids) = fs::read_to_string(self.procs_file()) {
            for pid in pids.split_whitespace() {
                let _ = fs::write(root.join("cgroup.procs"), pid);
            }
        }
        let _ = fs::remove_dir(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_limits_are_written_as_io_max() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("cgroup.controllers"), "cpuset cpu io memory pids\n").unwrap();
        let kind = detect(root.path()).unwrap();
        assert_eq!(kind, Kind::V2(root.path().to_path_buf()));
        let g = Group::create(&kind, "iolab-selftest-x").unwrap();
        g.limit((7, 3), Limit::ReadBps(41943040)).unwrap();
        assert_eq!(fs::read_to_string(g.path().join("io.max")).unwrap(), "7:3 rbps=41943040");
        g.limit((7, 3), Limit::WriteIops(1500)).unwrap();
        assert_eq!(fs::read_to_string(g.path().join("io.max")).unwrap(), "7:3 wiops=1500");
        assert_eq!(fs::read_to_string(root.path().join("cgroup.subtree_control")).unwrap(), "+io");
        let dir = g.path().to_path_buf();
        // In cgroupfs a group's files go with it; a fixture's must go first.
        fs::remove_file(dir.join("io.max")).unwrap();
        drop(g);
        assert!(!dir.exists(), "the group is removed");
    }

    #[test]
    fn v1_limits_go_to_the_blkio_files_and_no_throttle_says_why() {
        let root = tempfile::tempdir().unwrap();
        let blkio = root.path().join("blkio");
        fs::create_dir(&blkio).unwrap();
        fs::write(blkio.join("blkio.throttle.read_bps_device"), "").unwrap();
        let kind = detect(root.path()).unwrap();
        let g = Group::create(&kind, "g").unwrap();
        g.limit((254, 0), Limit::ReadIops(2000)).unwrap();
        assert_eq!(
            fs::read_to_string(g.path().join("blkio.throttle.read_iops_device")).unwrap(),
            "254:0 2000"
        );
        let none = tempfile::tempdir().unwrap();
        fs::write(none.path().join("cgroup.controllers"), "cpu memory\n").unwrap();
        let e = detect(none.path()).unwrap_err();
        assert!(e.contains("no block throttle") && e.contains("no io controller"), "{e}");
    }
}
