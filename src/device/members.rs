//! Which block devices are members of something live: an imported ZFS pool
//! (either implementation) or an md array. These hold a device without
//! necessarily showing in its sysfs `holders/` (which lists only stacked
//! block devices: dm, md, bcache), so [`crate::targets::safety`] asks here.
//!
//! Where each fact comes from:
//! - imported ZFS pools: `zpool list -H -o name` names them, then each
//!   pool's `zpool status -P POOL` (OpenZFS: leaves as full paths) or,
//!   where `-P` fails, `zpool status POOL` (zfs-fuse: leaves without their
//!   `/dev/`, see [`super::zfs`]); every leaf, spares and cache included,
//!   resolved to its block device under the root. OpenZFS opens its
//!   members exclusively but registers no holder; zfs-fuse opens them
//!   without `O_EXCL`, so nothing in the kernel says they are taken;
//! - zfs-fuse's open members: the daemon ([`super::zfs_fuse::find`]) holds
//!   each member open for as long as its pool is imported, so a `/dev/…`
//!   link under `/proc/PID/fd` is a member even when `zpool` cannot be run
//!   or answers too slowly (cheap, and exact: an exported pool's devices
//!   are closed);
//! - md arrays: `/sys/block/mdN/md/dev-*/block` (each member's device,
//!   spares and failed members included) and `/proc/mdstat` (`md0 : active
//!   raid1 sdb1[1] sda1[0]`: the words with `[`), which also lists arrays
//!   that are assembled but inactive, whose members show no holder;
//! - loop devices over a block device: `/sys/block/loopN/loop/backing_file`
//!   names the file a loop device reads and writes, and when that file is a
//!   block device node the device is in use (a loop device opens its
//!   backing file without `O_EXCL` and registers no holder).
//!
//! What could not be found out is said too ([`LiveMembers::unknown`]): a
//! `zpool` that does not answer in time, or fails while ZFS is running,
//! leaves every device's membership unknown, and the safety check refuses
//! rather than guess.

use super::zfs::{self, Answer, Commands};
use super::{SysRoot, sysfs, zfs_fuse};
use std::fs;

/// What a device is a live member of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveUse {
    /// A leaf (data, log, cache or spare) of the imported ZFS pool named.
    ZfsPool(String),
    /// Held open by the zfs-fuse daemon (pid): a member of one of its pools.
    ZfsFuse(u32),
    /// A member (active, spare or failed) of the md array named (`md0`).
    Md(String),
    /// The backing file of the loop device named (`loop2`).
    Loop(String),
}

/// Every live membership found, and what could not be looked at.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveMembers {
    /// `(major, minor)` of the member and what it belongs to (a device may appear more than once).
    pub members: Vec<((u32, u32), LiveUse)>,
    /// Why some memberships may be missing, one line each (`zpool list did
    /// not answer within 5 s`): any device may then be a member of something.
    pub unknown: Vec<String>,
}

/// Every live membership on the system: `(major, minor)` of the member
/// and what it belongs to. A device may appear more than once. What could
/// not be asked is left out: see [`live_members_checked`].
pub fn live_members(root: &SysRoot, cmds: &dyn Commands) -> Vec<((u32, u32), LiveUse)> {
    live_members_checked(root, cmds).members
}

/// [`live_members`], with the reasons some may be missing.
pub fn live_members_checked(root: &SysRoot, cmds: &dyn Commands) -> LiveMembers {
    let mut unknown = Vec::new();
    let mut members = zfs_pool_members(root, cmds, &mut unknown);
    members.extend(zfs_fuse_open(root));
    members.extend(md_members(root));
    members.extend(loop_backings(root));
    LiveMembers { members, unknown }
}

/// The device number a `/dev/...` path names in the root's sysfs (through
/// its symlinks, or by the kernel name), for a root without device nodes.
pub fn block_device_by_path(root: &SysRoot, path: &str) -> Option<(u32, u32)> {
    sysfs::by_source(root, path).map(|b| b.dev)
}

/// Whether ZFS runs here, so that a `zpool` that fails means pools not
/// known rather than none: the OpenZFS module is loaded, or the zfs-fuse
/// daemon runs.
fn zfs_running(root: &SysRoot) -> bool {
    root.path("sys/module/zfs").exists() || zfs_fuse::find(root).is_some()
}

/// Pools OpenZFS has imported, by their kstat directories
/// (`/proc/spl/kstat/zfs/POOL/`), for when `zpool` is not there to ask.
fn openzfs_kstat_pools(root: &SysRoot) -> Vec<String> {
    let Ok(rd) = fs::read_dir(root.path("proc/spl/kstat/zfs")) else {
        return Vec::new();
    };
    let mut pools: Vec<String> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    pools.sort();
    pools
}

/// The leaves of every imported pool `zpool` reports. Where `zpool` could
/// not say (too slow; failed while ZFS runs; missing while OpenZFS has
/// pools imported), the reason goes to `unknown`.
fn zfs_pool_members(root: &SysRoot, cmds: &dyn Commands, unknown: &mut Vec<String>) -> Vec<((u32, u32), LiveUse)> {
    let list = match cmds.ask("zpool", &["list", "-H", "-o", "name"]) {
        Answer::Output(list) => list,
        Answer::Missing => {
            let pools = openzfs_kstat_pools(root);
            if !pools.is_empty() {
                unknown.push(format!(
                    "ZFS has the pool(s) {} imported, but zpool is not installed to say which devices they use",
                    pools.join(", ")
                ));
            }
            return Vec::new();
        }
        a @ Answer::TimedOut(_) => {
            unknown.push(format!("zpool list {}", a.failure().unwrap_or_default()));
            return Vec::new();
        }
        a @ Answer::Failed { .. } => {
            if zfs_running(root) {
                unknown.push(format!("zpool list {}", a.failure().unwrap_or_default()));
            }
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for pool in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
        // OpenZFS's `-P` first; zfs-fuse has no `-P`.
        let status = match cmds.ask("zpool", &["status", "-P", pool]) {
            Answer::Output(t) => Ok(t),
            a @ Answer::TimedOut(_) => Err(format!("zpool status -P {pool} {}", a.failure().unwrap_or_default())),
            _ => cmds
                .ask("zpool", &["status", pool])
                .output()
                .ok_or_else(|| format!("zpool status {pool} gave no answer (the pool was listed by zpool list)")),
        };
        let tops = match status.map(|t| zfs::parse_status(&t)) {
            Ok(Some((_, tops))) => tops,
            Ok(None) => {
                unknown.push(format!("zpool status {pool} printed no vdev tree iolab can read"));
                continue;
            }
            Err(why) => {
                unknown.push(why);
                continue;
            }
        };
        let mut leaves = Vec::new();
        for t in &tops {
            t.leaves(&mut leaves);
        }
        for leaf in leaves.iter().filter(|l| zfs::interior_kind(&l.name).is_none()) {
            if let Some(b) = sysfs::by_source(root, &zfs::leaf_path(&leaf.name)) {
                out.push((b.dev, LiveUse::ZfsPool(pool.to_string())));
            }
        }
    }
    out
}

/// Every loop device whose backing file is a block device, as that
/// device's use (`/sys/block/loopN/loop/backing_file`: the path the file
/// was opened by, with ` (deleted)` after it once the path is gone).
fn loop_backings(root: &SysRoot) -> Vec<((u32, u32), LiveUse)> {
    let Ok(rd) = fs::read_dir(root.path("sys/block")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(text) = fs::read_to_string(e.path().join("loop/backing_file")) else {
            continue;
        };
        let file = text.trim_end_matches('\n');
        let file = file.strip_suffix(" (deleted)").unwrap_or(file);
        if let Some(dev) = backing_device(root, file) {
            out.push((dev, LiveUse::Loop(name)));
        }
    }
    out.sort_by(|a, b| (a.0, format!("{:?}", a.1)).cmp(&(b.0, format!("{:?}", b.1))));
    out
}

/// The block device a loop device's backing file is, if it is one: the
/// node's device number under the root, else (a fixture root, or a node
/// since removed) the `/dev/...` name looked up in sysfs.
fn backing_device(root: &SysRoot, file: &str) -> Option<(u32, u32)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    if let Ok(md) = fs::metadata(root.path(file)) {
        if md.file_type().is_block_device() {
            return Some((rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev())));
        }
        if md.file_type().is_file() {
            return None;
        }
    }
    sysfs::by_source(root, file).map(|b| b.dev)
}

/// The block devices the zfs-fuse daemon has open.
fn zfs_fuse_open(root: &SysRoot) -> Vec<((u32, u32), LiveUse)> {
    let Some(pid) = zfs_fuse::find(root) else { return Vec::new() };
    let Ok(rd) = fs::read_dir(root.path(&format!("proc/{pid}/fd"))) else {
        return Vec::new();
    };
    let mut out: Vec<((u32, u32), LiveUse)> = rd
        .flatten()
        .filter_map(|e| fs::read_link(e.path()).ok())
        .filter_map(|t| {
            let t = t.to_string_lossy().into_owned();
            t.starts_with("/dev/").then_some(t)
        })
        .filter_map(|t| sysfs::by_source(root, &t))
        .map(|b| (b.dev, LiveUse::ZfsFuse(pid)))
        .collect();
    out.sort_by_key(|(d, _)| *d);
    out.dedup();
    out
}

/// The members of every md array, from sysfs and `/proc/mdstat`.
fn md_members(root: &SysRoot) -> Vec<((u32, u32), LiveUse)> {
    let mut out = Vec::new();
    if let Ok(rd) = fs::read_dir(root.path("sys/block")) {
        for e in rd.flatten() {
            let array = e.file_name().to_string_lossy().into_owned();
            let Ok(members) = fs::read_dir(e.path().join("md")) else { continue };
            for m in members.flatten() {
                if m.file_name().to_string_lossy().starts_with("dev-")
                    && let Some(b) = sysfs::from_dir(&m.path().join("block"))
                {
                    out.push((b.dev, LiveUse::Md(array.clone())));
                }
            }
        }
    }
    for (array, member) in parse_mdstat(&root.read("proc/mdstat").unwrap_or_default()) {
        if let Some(b) = sysfs::by_name(root, &member) {
            out.push((b.dev, LiveUse::Md(array)));
        }
    }
    out.sort_by(|a, b| (a.0, format!("{:?}", a.1)).cmp(&(b.0, format!("{:?}", b.1))));
    out.dedup();
    out
}

/// `(array, member)` pairs of `/proc/mdstat`: each array's line is
/// `mdN : STATE [LEVEL] MEMBER[N][(F|S|W|R)] ...` (drivers/md/md.c, `md_seq_show`).
fn parse_mdstat(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in text.lines() {
        let Some((array, rest)) = l.split_once(" : ") else { continue };
        let array = array.trim();
        if !array.starts_with("md") {
            continue;
        }
        for w in rest.split_whitespace() {
            if let Some((name, _)) = w.split_once('[')
                && !name.is_empty()
            {
                out.push((array.to_string(), name.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::fixtures::{self, Captured, Fx};
    use std::time::Duration;

    #[test]
    fn mdstat_members() {
        let text = "Personalities : [raid1] [raid6]\n\
                    md127 : inactive sdd[0](S)\n      1048576 blocks super 1.2\n\n\
                    md0 : active raid1 sdb1[1] sda1[0](F)\n      1047552 blocks super 1.2 [2/1] [_U]\n\n\
                    unused devices: <none>\n";
        assert_eq!(
            parse_mdstat(text),
            [
                ("md127".to_string(), "sdd".to_string()),
                ("md0".into(), "sdb1".into()),
                ("md0".into(), "sda1".into())
            ]
        );
    }

    #[test]
    fn md_member_from_sysfs_without_holders() {
        let fx = Fx::new();
        fx.disk("sys/devices/virtual/block/loop5", (7, 5), 1 << 17, &[]);
        fx.disk("sys/devices/virtual/block/md9", (9, 9), 1 << 17, &[]);
        fx.link(
            "sys/devices/virtual/block/md9/md/dev-loop5/block",
            "sys/devices/virtual/block/loop5",
        );
        assert_eq!(md_members(&fx.root()), [((7, 5), LiveUse::Md("md9".into()))]);
        // From /proc/mdstat alone (an inactive array shows no `md/dev-*`).
        let fx = Fx::new();
        fx.disk("sys/devices/virtual/block/loop6", (7, 6), 1 << 17, &[]);
        fx.file(
            "proc/mdstat",
            "Personalities :\nmd127 : inactive loop6[0](S)\n      65536 blocks super 1.2\n",
        );
        assert_eq!(md_members(&fx.root()), [((7, 6), LiveUse::Md("md127".into()))]);
    }

    #[test]
    fn zfs_fuse_pools_and_open_members() {
        let fx = fixtures::zfs_fuse_machine();
        let cmds = fixtures::zfs_fuse_commands().file("zpool list -H -o name", "zpool-list-zfs-fuse.txt");
        let found = live_members(&fx.root(), &cmds);
        // loop0 and loop1: the mirror of zfsinfo-mc; loop3 its log; loop2 its cache.
        for (n, pool) in [(0, "zfsinfo-mc"), (1, "zfsinfo-mc"), (2, "zfsinfo-mc"), (3, "zfsinfo-mc")] {
            assert!(found.contains(&((7, n), LiveUse::ZfsPool(pool.into()))), "loop{n}: {found:?}");
        }
        // Every member the daemon has open, pool or not; not its /dev/fuse nor a file vdev.
        for n in [0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13] {
            assert!(found.contains(&((7, n), LiveUse::ZfsFuse(4242))), "loop{n}: {found:?}");
        }
        assert_eq!(found.iter().filter(|(_, u)| matches!(u, LiveUse::ZfsFuse(_))).count(), 11);
        // Without `zpool` the daemon's descriptors still tell.
        assert_eq!(live_members(&fx.root(), &Captured::new()).len(), 11);
    }

    #[test]
    fn openzfs_pool_leaves_by_full_path() {
        let fx = fixtures::stacks();
        let cmds = fixtures::stack_commands().file("zpool list -H -o name", "zpool-list-openzfs.txt");
        let found = live_members(&fx.root(), &cmds);
        let fast: Vec<String> = found
            .iter()
            .filter(|(_, u)| *u == LiveUse::ZfsPool("fast".into()))
            .filter_map(|(d, _)| sysfs::by_dev(&fx.root(), *d).map(|b| b.name))
            .collect();
        assert_eq!(fast, ["vdf1", "vdg1", "vdh1", "vdi1"]);
        assert!(found.iter().any(|(_, u)| *u == LiveUse::ZfsPool("tank".into())), "{found:?}");
    }

    #[test]
    fn a_loop_device_over_a_block_device_uses_it() {
        let fx = Fx::new();
        for n in 5..=8 {
            fx.disk(&format!("sys/devices/virtual/block/loop{n}"), (7, n), 1 << 17, &[]);
        }
        fx.part("sys/devices/virtual/block/loop5", "loop5p1", (259, 0), 1, 1 << 16);
        // loop6 over loop5; loop7 over loop5's partition, whose node was since removed; loop8 over a file.
        fx.file("sys/devices/virtual/block/loop6/loop/backing_file", "/dev/loop5\n");
        fx.file("sys/devices/virtual/block/loop7/loop/backing_file", "/dev/loop5p1 (deleted)\n");
        fx.file("sys/devices/virtual/block/loop8/loop/backing_file", "/dev/shm/loop5\n");
        fx.file("dev/shm/loop5", "");
        assert_eq!(
            loop_backings(&fx.root()),
            [((7, 5), LiveUse::Loop("loop6".into())), ((259, 0), LiveUse::Loop("loop7".into()))]
        );
    }

    /// A `zpool` that does not answer, or fails while ZFS runs, leaves every
    /// device's membership unknown; a `zpool` that fails where no ZFS runs
    /// (zfs-fuse installed, its daemon stopped) means no pools.
    #[test]
    fn a_zpool_that_cannot_say_makes_memberships_unknown() {
        let list = "zpool list -H -o name";
        let slow = Answer::TimedOut(Duration::from_secs(5));
        let failed = Answer::Failed {
            status: "exit status: 1".into(),
            stderr: "connect: Connection refused".into(),
        };
        let fx = Fx::new();
        let root = fx.root();
        let found = live_members_checked(&root, &Captured::new().answer(list, slow.clone()));
        assert_eq!(found.unknown, ["zpool list did not answer within 5 s"]);
        assert!(
            live_members_checked(&root, &Captured::new().answer(list, failed.clone()))
                .unknown
                .is_empty()
        );
        assert!(live_members_checked(&root, &Captured::new()).unknown.is_empty());
        // The OpenZFS module loaded: a failing zpool cannot say; a missing one, with pools in kstat, neither.
        fx.file("sys/module/zfs/version", "2.2.2-1\n");
        let found = live_members_checked(&root, &Captured::new().answer(list, failed));
        assert_eq!(found.unknown, ["zpool list failed (exit status: 1): connect: Connection refused"]);
        assert!(live_members_checked(&root, &Captured::new()).unknown.is_empty());
        fx.file("proc/spl/kstat/zfs/tank/state", "ONLINE\n");
        fx.file("proc/spl/kstat/zfs/arcstats", "");
        assert_eq!(
            live_members_checked(&root, &Captured::new()).unknown,
            ["ZFS has the pool(s) tank imported, but zpool is not installed to say which devices they use"]
        );
        // A pool listed whose status does not come in time.
        let fx = fixtures::zfs_fuse_machine();
        let cmds = fixtures::zfs_fuse_commands()
            .answer(list, Answer::Output("zfsinfo-mc\nzfsinfo-rz\n".into()))
            .answer("zpool status -P zfsinfo-rz", slow);
        let found = live_members_checked(&fx.root(), &cmds);
        assert_eq!(found.unknown, ["zpool status -P zfsinfo-rz did not answer within 5 s"]);
        assert!(found.members.contains(&((7, 0), LiveUse::ZfsPool("zfsinfo-mc".into()))));
    }
}
