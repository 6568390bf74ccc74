//! ZFS under a target: a mounted dataset (`pool/fs`, the mount's source)
//! resolved to its pool, the pool's vdev tree and member disks, the ARC,
//! the dataset's compression and whether O_DIRECT is honoured.
//!
//! Where each figure comes from, and the format it has there:
//! - the vdev tree: `zpool status -P POOL` (OpenZFS `cmd/zpool/zpool_main.c`,
//!   `status_callback` and `print_status_config`: after `config:`, a header
//!   `NAME STATE READ WRITE CKSUM`, then one line per vdev, a tab and two
//!   spaces per level of depth before the name; top-level vdevs are named
//!   `TYPE-ID` (`mirror-0`, `raidz2-1`, dRAID `draid1:2d:4c:0s-0`), `-P`
//!   prints leaves as full paths; the classes `logs`, `special`, `dedup`,
//!   `cache` and `spares` follow as header lines of their own);
//! - without the `zpool` command, the pool's state alone from
//!   `/proc/spl/kstat/zfs/POOL/state` (`module/zfs/spa_stats.c`,
//!   `spa_state_data`: the state name and a newline);
//! - the ARC's size and maximum from `/proc/spl/kstat/zfs/arcstats`
//!   (`size`, `c_max`; a named kstat: a header line, `name type data`, then
//!   one `NAME TYPE VALUE` line each: `module/os/linux/spl/spl-kstat.c`);
//! - compression and (2.3 on) the Direct I/O setting from
//!   `zfs get -H -p -o value compression DATASET` (man `zfs-get.8`: `-H` no
//!   header, `-o value` the value alone; the values in man `zfsprops.7`);
//! - the module's version from `/sys/module/zfs/version`. OpenZFS added
//!   Direct I/O in 2.3.0 (commit "Adding Direct IO Support"): before it,
//!   O_DIRECT is accepted and ignored, so reads can come from the ARC
//!   (KDiskMark issue #148 measured RAM speed that way).
//!
//! The commands run through [`Commands`], so tests feed captured outputs.

use super::SysRoot;
use super::sysfs;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a read-only command and returns its standard output, or `None`
/// when it is missing, fails or takes too long.
pub trait Commands {
    fn run(&self, program: &str, args: &[&str]) -> Option<String>;
}

/// No commands at all (fixture roots, and where none may run).
pub struct NoCommands;

impl Commands for NoCommands {
    fn run(&self, _: &str, _: &[&str]) -> Option<String> {
        None
    }
}

/// The live system's commands, found on `PATH`, each given [`LIVE_TIMEOUT`]
/// (a pool with a dead disk can stall `zpool` for long).
pub struct LiveCommands;

/// How long a live command may take before iolab gives up on it.
pub const LIVE_TIMEOUT: Duration = Duration::from_secs(5);

impl Commands for LiveCommands {
    fn run(&self, program: &str, args: &[&str]) -> Option<String> {
        let mut child = Command::new(program)
            .args(args)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut out = child.stdout.take()?;
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            out.read_to_string(&mut s).ok().map(|_| s)
        });
        let start = Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(st)) => {
                    let text = reader.join().ok().flatten()?;
                    return st.success().then_some(text);
                }
                Ok(None) if start.elapsed() < LIVE_TIMEOUT => std::thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
                }
            }
        }
    }
}

/// One vdev of the pool's tree.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Vdev {
    /// As `zpool status -P` prints it: `mirror-0`, or a leaf's full path.
    pub name: String,
    /// `mirror`, `raidz1`..`raidz3`, `draid1`.., `replacing`, `spare`, or for leaves `disk`/`file`.
    pub kind: String,
    /// `data`, `logs`, `special`, `dedup`, `cache` or `spares`.
    pub class: String,
    /// `ONLINE`, `DEGRADED`, `FAULTED`, `OFFLINE`, `UNAVAIL`, `REMOVED`; spares `AVAIL`/`INUSE`.
    pub state: String,
    /// A leaf's kernel block device name, when sysfs shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The vdevs under it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Vdev>,
}

impl Vdev {
    /// Its leaves (member disks or files), itself when it has no children.
    pub fn leaves<'a>(&'a self, out: &mut Vec<&'a Vdev>) {
        if self.children.is_empty() {
            out.push(self);
        }
        for c in &self.children {
            c.leaves(out);
        }
    }
}

/// What iolab knows of the ZFS dataset under a target.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZfsInfo {
    /// The dataset's pool.
    pub pool: String,
    /// The dataset the target is on.
    pub dataset: String,
    /// The pool's state (`ONLINE`, `DEGRADED`, ...).
    pub state: Option<String>,
    /// Where the tree came from: `zpool status` or `kstat` (no tree: state only).
    pub source: String,
    /// Top-level vdevs of every class.
    pub vdevs: Vec<Vdev>,
    /// How data is laid out over the data vdevs: `stripe`, `mirror`,
    /// `raidz1`..`raidz3`, `draid1`.., or `mixed`.
    pub layout: Option<String>,
    /// The dataset's `compression` (`lz4`, `zstd-3`...; `None` when off or unknown).
    pub compression: Option<String>,
    /// The dataset's `direct` property (OpenZFS 2.3 on: `standard`, `always`, `disabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<String>,
    /// The ARC's size now.
    #[schemars(extend("x-unit" = "bytes"))]
    pub arc_size_bytes: Option<u64>,
    /// The ARC's maximum size (`c_max`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub arc_max_bytes: Option<u64>,
    /// The kernel module's version (`2.1.5-1ubuntu6~22.04.1`).
    pub version: Option<String>,
    /// O_DIRECT is accepted but ignored (before OpenZFS 2.3, or `direct=disabled`):
    /// reads may come from the ARC. `None` when the version is unknown.
    pub direct_io_ignored: Option<bool>,
    /// The dataset's `recordsize`: the size of a large file's blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "bytes"))]
    pub recordsize_bytes: Option<u64>,
    /// The pool's `ashift`: its data vdevs' sectors are 2^ashift bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "count"))]
    pub ashift: Option<u32>,
    /// zfs-fuse: the daemon reads its members through the kernel's page
    /// cache (it runs without `--disable-block-cache`). `None`: unknown, or OpenZFS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_cache: Option<bool>,
}

impl ZfsInfo {
    /// Every leaf vdev (member disk or file), data classes first.
    pub fn leaves(&self) -> Vec<&Vdev> {
        let mut out = Vec::new();
        for v in &self.vdevs {
            v.leaves(&mut out);
        }
        out
    }
    /// The leaves of the data vdevs only.
    pub fn data_leaves(&self) -> Vec<&Vdev> {
        let mut out = Vec::new();
        for v in self.vdevs.iter().filter(|v| v.class == "data") {
            v.leaves(&mut out);
        }
        out
    }
    /// The number of top-level data vdevs.
    pub fn data_groups(&self) -> usize {
        self.vdevs.iter().filter(|v| v.class == "data").count()
    }
}

/// `major.minor` of a version string (`2.1.5-1ubuntu6` → (2, 1)).
fn major_minor(v: &str) -> Option<(u32, u32)> {
    let mut it = v.trim().trim_start_matches("zfs-").split(['.', '-']);
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// What `TYPE-ID` names a top-level or interior vdev's type; `None` for a leaf.
fn interior_kind(name: &str) -> Option<String> {
    let (kind, id) = name.rsplit_once('-')?;
    if name.starts_with('/') || id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let base = kind.split(':').next().unwrap_or(kind);
    let known = ["mirror", "replacing", "spare", "raidz1", "raidz2", "raidz3", "root", "indirect"];
    if known.contains(&base) || base.starts_with("draid") {
        Some(base.to_string())
    } else {
        None
    }
}

/// The vdev tree of `zpool status -P` output: the pool's state and its
/// top-level vdevs with their classes. `None` when there is no `config:`.
pub(crate) fn parse_status(text: &str) -> Option<(Option<String>, Vec<Vdev>)> {
    let state = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("state:"))
        .map(|s| s.trim().to_string());
    let mut lines = text.lines().skip_while(|l| l.trim() != "config:").skip(1);
    // Up to and including the header.
    lines.by_ref().find(|l| l.split_whitespace().next() == Some("NAME"))?;
    let mut tops: Vec<Vdev> = Vec::new();
    // (depth, path of indices from tops) of the open interior vdevs.
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut class = "data".to_string();
    let mut started = false;
    for l in lines {
        if l.trim().is_empty() {
            if started {
                // A blank line ends the tree (then come `errors:` and the like).
                break;
            }
            continue;
        }
        let Some(rest) = l.strip_prefix('\t') else { break };
        started = true;
        let depth = rest.len() - rest.trim_start_matches(' ').len();
        let words: Vec<&str> = rest.split_whitespace().collect();
        if depth == 0 {
            // The pool's own line, or a class header (`logs`, `cache`, `spares`...).
            if words.len() == 1 {
                class = words[0].to_string();
            }
            stack.clear();
            continue;
        }
        let (mut name, vstate) = (words[0].to_string(), words.get(1).copied().unwrap_or("").to_string());
        // A missing leaf is shown by its GUID, then `was PATH`.
        if let Some(was) = words.iter().position(|w| *w == "was").and_then(|i| words.get(i + 1)) {
            name = was.to_string();
        }
        let kind = interior_kind(&name).unwrap_or_else(|| if name.starts_with("/dev/") { "disk" } else { "file" }.to_string());
        let v = Vdev {
            name,
            kind,
            class: class.clone(),
            state: vstate,
            device: None,
            children: Vec::new(),
        };
        while stack.last().is_some_and(|(d, _)| *d >= depth) {
            stack.pop();
        }
        let path = match stack.last() {
            None => {
                tops.push(v);
                vec![tops.len() - 1]
            }
            Some((_, p)) => {
                let mut node = &mut tops[p[0]];
                for &i in &p[1..] {
                    node = &mut node.children[i];
                }
                node.children.push(v);
                let mut p = p.clone();
                p.push(node.children.len() - 1);
                p
            }
        };
        stack.push((depth, path));
    }
    Some((state, tops))
}

/// The layout of the data vdevs: one word for all of them alike.
fn layout(tops: &[Vdev]) -> Option<String> {
    let kinds: Vec<&str> = tops
        .iter()
        .filter(|v| v.class == "data")
        .map(|v| match v.kind.as_str() {
            "disk" | "file" => "stripe",
            k => k,
        })
        .collect();
    let first = *kinds.first()?;
    Some(if kinds.iter().all(|k| *k == first) { first } else { "mixed" }.to_string())
}

/// A named kstat's value (`NAME TYPE VALUE` lines after two header lines).
fn kstat_value(text: &str, name: &str) -> Option<u64> {
    text.lines().skip(2).find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        (w.len() >= 3 && w[0] == name).then(|| w[2].parse().ok()).flatten()
    })
}

fn resolve(root: &SysRoot, v: &mut Vdev) {
    if v.children.is_empty() && v.name.starts_with("/dev/") {
        v.device = sysfs::by_source(root, &v.name).map(|b| b.name);
    }
    for c in &mut v.children {
        resolve(root, c);
    }
}

/// What iolab can find out about the dataset `source` (a zfs mount's source: `pool/fs`).
pub(crate) fn describe(root: &SysRoot, cmds: &dyn Commands, source: &str) -> ZfsInfo {
    let pool = source.split('/').next().unwrap_or(source).to_string();
    let status = cmds.run("zpool", &["status", "-P", &pool]).and_then(|t| parse_status(&t));
    let (state, mut vdevs, from) = match status {
        Some((state, vdevs)) => (state, vdevs, "zpool status"),
        None => (root.read(&format!("proc/spl/kstat/zfs/{pool}/state")), Vec::new(), "kstat"),
    };
    for v in &mut vdevs {
        resolve(root, v);
    }
    let prop = |name: &str| {
        cmds.run("zfs", &["get", "-H", "-p", "-o", "value", name, source])
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty() && v != "-")
    };
    let compression = prop("compression").filter(|c| c != "off");
    let arc = root.read("proc/spl/kstat/zfs/arcstats").unwrap_or_default();
    let version = root.read("sys/module/zfs/version").filter(|v| !v.is_empty());
    let mm = version.as_deref().and_then(major_minor);
    // The `direct` property exists from 2.3 on (asking an older zfs for it fails).
    let direct = mm.filter(|v| *v >= (2, 3)).and_then(|_| prop("direct"));
    let direct_io_ignored = mm.map(|v| v < (2, 3) || direct.as_deref() == Some("disabled"));
    ZfsInfo {
        layout: layout(&vdevs),
        dataset: source.to_string(),
        pool,
        state: state.filter(|s| !s.is_empty()),
        source: from.to_string(),
        vdevs,
        compression,
        direct,
        arc_size_bytes: kstat_value(&arc, "size"),
        arc_max_bytes: kstat_value(&arc, "c_max"),
        version,
        direct_io_ignored,
        recordsize_bytes: None,
        ashift: None,
        block_cache: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_vdev_names() {
        assert_eq!(major_minor("2.1.5-1ubuntu6~22.04.1"), Some((2, 1)));
        assert_eq!(major_minor("2.3.0-1"), Some((2, 3)));
        assert_eq!(major_minor("zfs-2.2.2"), Some((2, 2)));
        assert_eq!(major_minor("weird"), None);
        assert_eq!(interior_kind("mirror-0").as_deref(), Some("mirror"));
        assert_eq!(interior_kind("raidz2-1").as_deref(), Some("raidz2"));
        assert_eq!(interior_kind("draid1:2d:4c:0s-0").as_deref(), Some("draid1"));
        assert_eq!(interior_kind("/dev/disk/by-id/ata-X-part1"), None);
        assert_eq!(interior_kind("sda-1"), None);
    }

    #[test]
    fn kstat_named_values() {
        let text = "13 1 0x01 147 39984 2934061855 1045993874963\nname                            type data\nhits                            4    9125\nc_max                           4    8233222144\nsize                            4    1073741824\n";
        assert_eq!(kstat_value(text, "size"), Some(1 << 30));
        assert_eq!(kstat_value(text, "c_max"), Some(8233222144));
        assert_eq!(kstat_value(text, "nope"), None);
    }

    #[test]
    fn live_commands_time_out_and_fail_quietly() {
        assert_eq!(LiveCommands.run("/nonexistent/iolab-cmd", &[]), None);
        assert_eq!(LiveCommands.run("sh", &["-c", "echo hi"]).as_deref(), Some("hi\n"));
        assert_eq!(LiveCommands.run("sh", &["-c", "echo hi; exit 3"]), None);
    }
}
