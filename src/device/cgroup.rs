//! Throttle limits that apply to a process (iolab itself, or the one that
//! issues a device's I/O for it: zfs-fuse's daemon), from both cgroup
//! hierarchies: v1 `blkio.throttle.{read,write}_{bps,iops}_device` and the
//! unified (v2) hierarchy's `io.max`, in the process's cgroup and every
//! parent (a bio has to pass each level, so the smallest limit wins); and,
//! for the record, the v2 `io.weight` of each level.
//!
//! Formats, from the kernel's Documentation/admin-guide/cgroup-v2.rst
//! ("IO Interface Files"): `io.max` lines are `MAJ:MIN rbps=N wbps=N
//! riops=N wiops=N`, each `max` when unlimited; `io.weight` is `default N`
//! then `MAJ:MIN N` overrides (1–10000, on non-root cgroups only). v1
//! files are `MAJ:MIN VALUE` lines (Documentation/admin-guide/cgroup-v1/blkio-controller.rst).

use super::SysRoot;
use super::model::{IoWeight, Throttle};
use std::collections::HashMap;

const FILES: [&str; 4] = ["read_bps", "write_bps", "read_iops", "write_iops"];
/// The `io.max` keys, in the order of [`FILES`].
const IO_MAX_KEYS: [&str; 4] = ["rbps", "wbps", "riops", "wiops"];

/// Limits on one device at one level: read bps, write bps, read IOPS, write IOPS.
type Limits = [Option<u64>; 4];
/// A device number, `MAJ:MIN`.
type Dev = (u32, u32);

/// The process whose cgroup's limits apply to a device's I/O.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Issuer {
    /// iolab itself (`/proc/self`).
    Iolab,
    /// Another process, which issues the I/O for iolab: its pid and what it is (`zfs-fuse`).
    Process(u32, String),
}

impl Issuer {
    fn proc_dir(&self) -> String {
        match self {
            Issuer::Iolab => "proc/self".into(),
            Issuer::Process(pid, _) => format!("proc/{pid}"),
        }
    }
    /// How a [`Throttle`] names it: `None` for iolab, `zfs-fuse (pid 812)`.
    fn label(&self) -> Option<String> {
        match self {
            Issuer::Iolab => None,
            Issuer::Process(pid, what) => Some(format!("{what} (pid {pid})")),
        }
    }
}

/// The process's cgroup in the hierarchy of controller `ctrl` (v1: the line
/// listing it; `None`: the unified hierarchy's `0::` line).
fn own_cgroup(root: &SysRoot, who: &Issuer, ctrl: Option<&str>) -> Option<String> {
    let text = root.read(&format!("{}/cgroup", who.proc_dir()))?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (id, ctrls, path) = (f.next()?, f.next()?, f.next()?);
        let hit = match ctrl {
            Some(c) => ctrls.split(',').any(|x| x == c),
            None => id == "0" && ctrls.is_empty(),
        };
        hit.then(|| path.to_string())
    })
}

/// Where a hierarchy is mounted, and which hierarchy path that mount shows:
/// v1 the `cgroup` mount with `ctrl` in its options, else the `cgroup2` mount.
fn mount_of(root: &SysRoot, ctrl: Option<&str>) -> Option<(String, String)> {
    let text = root.read("proc/self/mountinfo").unwrap_or_default();
    for l in text.lines() {
        let Some((pre, post)) = l.split_once(" - ") else { continue };
        let pre: Vec<&str> = pre.split(' ').collect();
        let post: Vec<&str> = post.split(' ').collect();
        let hit = match ctrl {
            Some(c) => post.first() == Some(&"cgroup") && post.get(2).is_some_and(|o| o.split(',').any(|x| x == c)),
            None => post.first() == Some(&"cgroup2"),
        };
        if hit && pre.len() > 4 {
            return Some((pre[4].to_string(), pre[3].to_string()));
        }
    }
    None
}

/// `MAJ:MIN VALUE` lines.
fn parse_limits(text: &str) -> HashMap<(u32, u32), u64> {
    text.lines()
        .filter_map(|l| {
            let (dev, v) = l.trim().split_once(char::is_whitespace)?;
            Some((parse_dev(dev)?, v.trim().parse().ok()?))
        })
        .collect()
}

fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (ma, mi) = s.split_once(':')?;
    Some((ma.parse().ok()?, mi.parse().ok()?))
}

/// `io.max`: `MAJ:MIN rbps=N wbps=max riops=N wiops=max` lines; `max` and
/// absent keys are no limit.
fn parse_io_max(text: &str) -> HashMap<(u32, u32), Limits> {
    text.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let dev = parse_dev(words.next()?)?;
            let mut lim: Limits = [None; 4];
            for w in words {
                let Some((k, v)) = w.split_once('=') else { continue };
                if let Some(i) = IO_MAX_KEYS.iter().position(|x| *x == k) {
                    lim[i] = v.parse().ok();
                }
            }
            Some((dev, lim))
        })
        .collect()
}

/// `io.weight`: the `default N` line and the `MAJ:MIN N` overrides.
fn parse_io_weight(text: &str) -> (Option<u32>, Vec<(Dev, u32)>) {
    let mut default = None;
    let mut devs = Vec::new();
    for l in text.lines() {
        let Some((k, v)) = l.trim().split_once(char::is_whitespace) else {
            continue;
        };
        let Ok(w) = v.trim().parse::<u32>() else { continue };
        if k == "default" {
            default = Some(w);
        } else if let Some(d) = parse_dev(k) {
            devs.push((d, w));
        }
    }
    (default, devs)
}

/// The cgroup and its parents, deepest first: `/a/b`, `/a`, `/`.
fn ancestry(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = path.trim_end_matches('/').to_string();
    while !p.is_empty() {
        out.push(p.clone());
        p.truncate(p.rfind('/').unwrap_or(0));
    }
    out.push("/".to_string());
    out
}

/// The directories of the process's cgroup and its parents in one
/// hierarchy, deepest first, with the cgroup path of each.
fn levels(root: &SysRoot, who: &Issuer, ctrl: Option<&str>, default_mount: &str) -> Option<(String, Vec<(String, String)>)> {
    let cg = own_cgroup(root, who, ctrl)?;
    let (mount, mount_root) = mount_of(root, ctrl).unwrap_or_else(|| (default_mount.to_string(), "/".to_string()));
    let dirs = ancestry(&cg)
        .into_iter()
        .filter_map(|level| {
            let rel = level.strip_prefix(mount_root.trim_end_matches('/'))?;
            Some((
                level.clone(),
                format!("{}/{}", mount.trim_end_matches('/'), rel.trim_start_matches('/')),
            ))
        })
        .collect();
    Some((cg, dirs))
}

/// The smallest of each limit over the levels; `None` when no level limits any.
fn smallest(levels: &[HashMap<(u32, u32), Limits>], dev: (u32, u32)) -> Option<Limits> {
    let min = |k: usize| levels.iter().filter_map(|l| l.get(&dev)?[k]).filter(|&v| v > 0).min();
    let lim = [min(0), min(1), min(2), min(3)];
    lim.iter().any(Option::is_some).then_some(lim)
}

/// The throttle limits on each of `devs` (name, major:minor) for the
/// process `who`, v1 blkio then v2 `io.max`; devices without any limit are left out.
pub(crate) fn throttles(root: &SysRoot, who: &Issuer, devs: &[(String, (u32, u32))]) -> Vec<Throttle> {
    let mut out = Vec::new();
    let mut add = |controller: &str, cg: &str, per_level: Vec<HashMap<(u32, u32), Limits>>| {
        for (name, dev) in devs {
            if let Some(l) = smallest(&per_level, *dev) {
                out.push(Throttle {
                    device: name.clone(),
                    dev: format!("{}:{}", dev.0, dev.1),
                    cgroup: cg.to_string(),
                    read_bps: l[0],
                    write_bps: l[1],
                    read_iops: l[2],
                    write_iops: l[3],
                    controller: controller.to_string(),
                    issuer: who.label(),
                });
            }
        }
    };
    if let Some((cg, dirs)) = levels(root, who, Some("blkio"), "/sys/fs/cgroup/blkio") {
        let per_level = dirs
            .iter()
            .map(|(_, dir)| {
                let files = FILES.map(|f| parse_limits(&root.read(&format!("{dir}/blkio.throttle.{f}_device")).unwrap_or_default()));
                let mut m: HashMap<(u32, u32), Limits> = HashMap::new();
                for (k, f) in files.iter().enumerate() {
                    for (dev, v) in f {
                        m.entry(*dev).or_insert([None; 4])[k] = Some(*v);
                    }
                }
                m
            })
            .collect();
        add("blkio", &cg, per_level);
    }
    if let Some((cg, dirs)) = levels(root, who, None, "/sys/fs/cgroup") {
        let per_level = dirs
            .iter()
            .map(|(_, dir)| parse_io_max(&root.read(&format!("{dir}/io.max")).unwrap_or_default()))
            .collect();
        add("io.max", &cg, per_level);
    }
    out
}

/// The v2 `io.weight` of the process's cgroup and each parent that has one
/// (deepest first): each level's default, and its overrides for `devs`.
pub(crate) fn io_weights(root: &SysRoot, who: &Issuer, devs: &[(String, (u32, u32))]) -> Vec<IoWeight> {
    let Some((_, dirs)) = levels(root, who, None, "/sys/fs/cgroup") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (level, dir) in dirs {
        let Some(text) = root.read(&format!("{dir}/io.weight")) else {
            continue;
        };
        let (default, per_dev) = parse_io_weight(&text);
        if let Some(w) = default {
            out.push(IoWeight {
                cgroup: level.clone(),
                device: None,
                dev: None,
                weight: w,
            });
        }
        for (dev, w) in per_dev {
            if let Some((name, _)) = devs.iter().find(|(_, d)| *d == dev) {
                out.push(IoWeight {
                    cgroup: level.clone(),
                    device: Some(name.clone()),
                    dev: Some(format!("{}:{}", dev.0, dev.1)),
                    weight: w,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestry_walks_up() {
        assert_eq!(ancestry("/a/b"), vec!["/a/b", "/a", "/"]);
        assert_eq!(ancestry("/"), vec!["/"]);
    }

    #[test]
    fn limit_lines() {
        let m = parse_limits("8:0 31457280\n7:3 1000\nbad\n");
        assert_eq!(m.get(&(8, 0)), Some(&31457280));
        assert_eq!(m.get(&(7, 3)), Some(&1000));
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn nested_cgroups_smallest_limit_wins() {
        let fx = super::super::tests::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "7:blkio:/lab/job\n4:memory:/x\n");
        fx.file(
            "sys/fs/cgroup/blkio/lab/blkio.throttle.read_bps_device",
            "8:0 31457280\n7:3 5000000\n",
        );
        fx.file("sys/fs/cgroup/blkio/lab/job/blkio.throttle.read_bps_device", "8:0 62914560\n");
        fx.file("sys/fs/cgroup/blkio/lab/job/blkio.throttle.write_iops_device", "8:0 500\n");
        let t = throttles(&fx.root(), &Issuer::Iolab, &[("sda".into(), (8, 0)), ("sdb".into(), (8, 16))]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].read_bps, Some(31457280));
        assert_eq!(t[0].write_iops, Some(500));
        assert_eq!(t[0].write_bps, None);
        assert_eq!(t[0].cgroup, "/lab/job");
    }

    #[test]
    fn mount_root_is_stripped() {
        let fx = super::super::tests::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "7:blkio,cpu:/ctr/inner\n");
        fx.file(
            "proc/self/mountinfo",
            "38 31 0:35 /ctr /cg/blk rw,relatime - cgroup cgroup rw,cpu,blkio\n",
        );
        fx.file("cg/blk/inner/blkio.throttle.write_bps_device", "7:3 1048576\n");
        let t = throttles(&fx.root(), &Issuer::Iolab, &[("loop3".into(), (7, 3))]);
        assert_eq!(t[0].write_bps, Some(1048576));
    }

    /// A systemd machine on the unified hierarchy (cgroup2 on /sys/fs/cgroup),
    /// the process in a session scope under two limited slices. The file
    /// formats are those of the kernel's Documentation/admin-guide/cgroup-v2.rst
    /// ("io.max": `8:16 rbps=2097152 wbps=max riops=max wiops=120`; "io.weight":
    /// `default 100` then `MAJ:MIN WEIGHT` overrides; io.max is absent on the root).
    fn unified() -> super::super::tests::fixtures::Fx {
        let fx = super::super::tests::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "0::/user.slice/user-1000.slice/session-3.scope\n");
        fx.file(
            "proc/self/mountinfo",
            "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
        );
        let base = "sys/fs/cgroup";
        fx.file(&format!("{base}/cgroup.controllers"), "cpuset cpu io memory pids\n");
        fx.file(
            &format!("{base}/user.slice/io.max"),
            "8:0 rbps=31457280 wbps=max riops=max wiops=max\n259:0 rbps=max wbps=104857600 riops=max wiops=max\n",
        );
        fx.file(&format!("{base}/user.slice/io.weight"), "default 100\n");
        fx.file(
            &format!("{base}/user.slice/user-1000.slice/io.max"),
            "8:0 rbps=62914560 wbps=max riops=500 wiops=max\n",
        );
        fx.file(&format!("{base}/user.slice/user-1000.slice/io.weight"), "default 100\n");
        fx.file(&format!("{base}/user.slice/user-1000.slice/session-3.scope/io.max"), "");
        fx.file(
            &format!("{base}/user.slice/user-1000.slice/session-3.scope/io.weight"),
            "default 200\n8:0 50\n",
        );
        fx
    }

    #[test]
    fn io_max_lines_and_weights_parse() {
        let m = parse_io_max("8:16 rbps=2097152 wbps=max riops=max wiops=120\n7:3 wiops=max\nbad line\n");
        assert_eq!(m[&(8, 16)], [Some(2097152), None, None, Some(120)]);
        assert_eq!(m[&(7, 3)], [None; 4]);
        assert_eq!(m.len(), 2);
        assert_eq!(parse_io_weight("default 100\n8:0 50\n"), (Some(100), vec![((8, 0), 50)]));
        assert_eq!(parse_io_weight(""), (None, vec![]));
    }

    #[test]
    fn unified_hierarchy_smallest_io_max_along_the_path_and_the_weights() {
        let fx = unified();
        let devs = [
            ("sda".to_string(), (8, 0)),
            ("nvme0n1".to_string(), (259, 0)),
            ("sdb".to_string(), (8, 16)),
        ];
        let t = throttles(&fx.root(), &Issuer::Iolab, &devs);
        assert_eq!(t.len(), 2, "{t:?}");
        let sda = &t[0];
        assert_eq!((sda.device.as_str(), sda.controller.as_str()), ("sda", "io.max"));
        assert_eq!(sda.cgroup, "/user.slice/user-1000.slice/session-3.scope");
        // 30 MiB/s from user.slice beats the scope's parent's 60 MiB/s; IOPS from the parent.
        assert_eq!(
            (sda.read_bps, sda.write_bps, sda.read_iops, sda.write_iops),
            (Some(31457280), None, Some(500), None)
        );
        assert_eq!((t[1].device.as_str(), t[1].write_bps), ("nvme0n1", Some(104857600)));
        let w = io_weights(&fx.root(), &Issuer::Iolab, &devs);
        let flat: Vec<(&str, Option<&str>, u32)> = w.iter().map(|w| (w.cgroup.as_str(), w.device.as_deref(), w.weight)).collect();
        assert_eq!(
            flat,
            [
                ("/user.slice/user-1000.slice/session-3.scope", None, 200),
                ("/user.slice/user-1000.slice/session-3.scope", Some("sda"), 50),
                ("/user.slice/user-1000.slice", None, 100),
                ("/user.slice", None, 100),
            ]
        );
    }

    #[test]
    fn hybrid_hierarchies_give_both_limits() {
        // systemd's hybrid layout: v1 controllers, the unified tree on /sys/fs/cgroup/unified.
        let fx = super::super::tests::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "12:blkio:/lab\n0::/lab\n");
        fx.file(
            "proc/self/mountinfo",
            "30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n\
             33 25 0:29 / /sys/fs/cgroup/blkio rw,nosuid - cgroup cgroup rw,blkio\n",
        );
        fx.file("sys/fs/cgroup/blkio/lab/blkio.throttle.write_bps_device", "7:3 1048576\n");
        fx.file("sys/fs/cgroup/unified/lab/io.max", "7:3 rbps=max wbps=max riops=300 wiops=max\n");
        let t = throttles(&fx.root(), &Issuer::Iolab, &[("loop3".into(), (7, 3))]);
        let got: Vec<(&str, Option<u64>, Option<u64>)> = t.iter().map(|t| (t.controller.as_str(), t.write_bps, t.read_iops)).collect();
        assert_eq!(got, [("blkio", Some(1048576), None), ("io.max", None, Some(300))]);
        // A v2 cgroup line without an io controller's files: nothing.
        assert!(io_weights(&fx.root(), &Issuer::Iolab, &[("loop3".into(), (7, 3))]).is_empty());
    }
}
