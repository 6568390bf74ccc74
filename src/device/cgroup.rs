//! blkio (cgroup v1) throttle limits that apply to the calling process.
//!
//! The process's blkio cgroup comes from `/proc/self/cgroup`; the limits
//! from `blkio.throttle.{read,write}_{bps,iops}_device` in that cgroup and
//! every parent (a bio has to pass each level, so the smallest limit wins).

use super::SysRoot;
use super::report::Throttle;
use std::collections::HashMap;

const FILES: [&str; 4] = ["read_bps", "write_bps", "read_iops", "write_iops"];

/// The process's blkio cgroup path (`/` for the root group).
fn blkio_cgroup(root: &SysRoot) -> Option<String> {
    let text = root.read("proc/self/cgroup")?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, ctrl, path) = (f.next()?, f.next()?, f.next()?);
        ctrl.split(',').any(|c| c == "blkio").then(|| path.to_string())
    })
}

/// Where the blkio hierarchy is mounted, and which hierarchy path that mount shows.
fn blkio_mount(root: &SysRoot) -> (String, String) {
    let text = root.read("proc/self/mountinfo").unwrap_or_default();
    for l in text.lines() {
        let Some((pre, post)) = l.split_once(" - ") else { continue };
        let pre: Vec<&str> = pre.split(' ').collect();
        let post: Vec<&str> = post.split(' ').collect();
        let is_blkio = post.first() == Some(&"cgroup") && post.get(2).is_some_and(|o| o.split(',').any(|c| c == "blkio"));
        if is_blkio && pre.len() > 4 {
            return (pre[4].to_string(), pre[3].to_string());
        }
    }
    ("/sys/fs/cgroup/blkio".to_string(), "/".to_string())
}

/// `MAJ:MIN VALUE` lines.
fn parse_limits(text: &str) -> HashMap<(u32, u32), u64> {
    text.lines()
        .filter_map(|l| {
            let (dev, v) = l.trim().split_once(char::is_whitespace)?;
            let (ma, mi) = dev.split_once(':')?;
            Some(((ma.parse().ok()?, mi.parse().ok()?), v.trim().parse().ok()?))
        })
        .collect()
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

/// The throttle limits on each of `devs` (name, major:minor) for the calling
/// process; devices without any limit are left out.
pub(crate) fn throttles(root: &SysRoot, devs: &[(String, (u32, u32))]) -> Vec<Throttle> {
    let Some(cg) = blkio_cgroup(root) else { return Vec::new() };
    let (mount, mount_root) = blkio_mount(root);
    let mut levels: Vec<[HashMap<(u32, u32), u64>; 4]> = Vec::new();
    for level in ancestry(&cg) {
        let Some(rel) = level.strip_prefix(mount_root.trim_end_matches('/')) else {
            continue;
        };
        let dir = format!("{}/{}", mount.trim_end_matches('/'), rel.trim_start_matches('/'));
        levels.push(FILES.map(|f| parse_limits(&root.read(&format!("{dir}/blkio.throttle.{f}_device")).unwrap_or_default())));
    }
    let mut out = Vec::new();
    for (name, dev) in devs {
        let min = |k: usize| levels.iter().filter_map(|l| l[k].get(dev).copied()).filter(|&v| v > 0).min();
        let t = Throttle {
            device: name.clone(),
            dev: format!("{}:{}", dev.0, dev.1),
            cgroup: cg.clone(),
            read_bps: min(0),
            write_bps: min(1),
            read_iops: min(2),
            write_iops: min(3),
        };
        if t.read_bps.is_some() || t.write_bps.is_some() || t.read_iops.is_some() || t.write_iops.is_some() {
            out.push(t);
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
        let fx = super::super::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "7:blkio:/lab/job\n4:memory:/x\n");
        fx.file(
            "sys/fs/cgroup/blkio/lab/blkio.throttle.read_bps_device",
            "8:0 31457280\n7:3 5000000\n",
        );
        fx.file("sys/fs/cgroup/blkio/lab/job/blkio.throttle.read_bps_device", "8:0 62914560\n");
        fx.file("sys/fs/cgroup/blkio/lab/job/blkio.throttle.write_iops_device", "8:0 500\n");
        let t = throttles(&fx.root(), &[("sda".into(), (8, 0)), ("sdb".into(), (8, 16))]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].read_bps, Some(31457280));
        assert_eq!(t[0].write_iops, Some(500));
        assert_eq!(t[0].write_bps, None);
        assert_eq!(t[0].cgroup, "/lab/job");
    }

    #[test]
    fn mount_root_is_stripped() {
        let fx = super::super::fixtures::Fx::new();
        fx.file("proc/self/cgroup", "7:blkio,cpu:/ctr/inner\n");
        fx.file(
            "proc/self/mountinfo",
            "38 31 0:35 /ctr /cg/blk rw,relatime - cgroup cgroup rw,cpu,blkio\n",
        );
        fx.file("cg/blk/inner/blkio.throttle.write_bps_device", "7:3 1048576\n");
        let t = throttles(&fx.root(), &[("loop3".into(), (7, 3))]);
        assert_eq!(t[0].write_bps, Some(1048576));
    }
}
