//! ZFS under a target: a mounted dataset (`pool/fs`, the mount's source)
//! resolved to its pool, the pool's vdev tree and member devices, the ARC,
//! the dataset's properties and whether O_DIRECT is honoured, for the two
//! implementations on Linux: OpenZFS (the kernel module; mounts of type
//! `zfs`) and zfs-fuse (a FUSE daemon, [`super::zfs_fuse`]; mounts of type
//! `fuse.zfs`).
//!
//! Where each figure comes from, and the format it has there:
//! - the vdev tree: OpenZFS `zpool status -P POOL`, zfs-fuse `zpool status
//!   POOL` (it has no `-P`). OpenZFS `cmd/zpool/zpool_main.c`,
//!   `status_callback` and `print_status_config`: after `config:`, a header
//!   `NAME STATE READ WRITE CKSUM`, then one line per vdev, a tab and two
//!   spaces per level of depth before the name; top-level vdevs are named
//!   `TYPE-ID` (`mirror-0`, `raidz2-1`, dRAID `draid1:2d:4c:0s-0`), `-P`
//!   prints leaves as full paths; the classes `logs`, `special`, `dedup`,
//!   `cache` and `spares` follow as header lines of their own. zfs-fuse
//!   prints the same tree, its leaves' paths without their `/dev/` (`loop0`,
//!   a file `/dev/shm/f.img` as `shm/f.img`);
//! - without the `zpool` command (OpenZFS), the pool's state alone from
//!   `/proc/spl/kstat/zfs/POOL/state` (`module/zfs/spa_stats.c`,
//!   `spa_state_data`: the state name and a newline);
//! - the ARC's size and maximum: OpenZFS `/proc/spl/kstat/zfs/arcstats`
//!   (`size`, `c_max`; a named kstat: a header line, `name type data`, then
//!   one `NAME TYPE VALUE` line each: `module/os/linux/spl/spl-kstat.c`);
//!   zfs-fuse one file per value under its kstat mount;
//! - the dataset's properties from `zfs get -H -p -o property,value LIST
//!   DATASET` (man `zfs-get.8`: `-H` no header, tab-separated; `-p` exact
//!   numbers; the values in man `zfsprops.7`). zfs-fuse has no `sync`, and
//!   one unknown property fails the whole command: then without it, then
//!   one property at a time (`-o value`). OpenZFS 2.3 on: `direct`;
//! - each data vdev's ashift from its first leaf's label, `zdb -l PATH`
//!   (the label's `vdev_tree` has `ashift: N`; `zpool get ashift` says only
//!   what was asked at creation, 0 for the default);
//! - zfs-fuse's pool version from `zpool get version POOL` (a table:
//!   `NAME PROPERTY VALUE SOURCE`; zfs-fuse's `zpool get` has no `-H`);
//! - the OpenZFS module's version from `/sys/module/zfs/version`. OpenZFS
//!   added Direct I/O in 2.3.0 (commit "Adding Direct IO Support"): before
//!   it, O_DIRECT is accepted and ignored, so reads can come from the ARC
//!   (KDiskMark issue #148 measured RAM speed that way). zfs-fuse accepts
//!   O_DIRECT too and serves it through its ARC.
//!
//! The commands run through [`Commands`], so tests feed captured outputs.

use super::SysRoot;
use super::sysfs;
use super::zfs_fuse::{self, ZfsFuseDaemon};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a read-only command and returns its standard output, or `None`
/// when it is missing, fails or takes too long.
pub trait Commands {
    fn run(&self, program: &str, args: &[&str]) -> Option<String>;

    /// The command's whole answer, telling a missing program from one that
    /// failed or did not answer in time (for the checks that must fail
    /// closed). Implementations that cannot tell (captured outputs) answer
    /// [`Answer::Missing`] where [`Commands::run`] has no output.
    fn ask(&self, program: &str, args: &[&str]) -> Answer {
        self.run(program, args).map_or(Answer::Missing, Answer::Output)
    }
}

/// What a command answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// It ran and succeeded: its standard output.
    Output(String),
    /// The program is not there (not on `PATH`, or not executable).
    Missing,
    /// It ran and failed: its exit status and the last line it wrote on standard error.
    Failed { status: String, stderr: String },
    /// It did not finish within the time given ([`LIVE_TIMEOUT`]), and was killed.
    TimedOut(Duration),
}

impl Answer {
    pub fn output(self) -> Option<String> {
        match self {
            Answer::Output(s) => Some(s),
            _ => None,
        }
    }

    /// Why there is no output, in words after the command's name
    /// (`zpool list did not answer within 5 s`); `None` for an output.
    pub fn failure(&self) -> Option<String> {
        match self {
            Answer::Output(_) => None,
            Answer::Missing => Some("is not installed (not on PATH)".into()),
            Answer::Failed { status, stderr } if stderr.is_empty() => Some(format!("failed ({status})")),
            Answer::Failed { status, stderr } => Some(format!("failed ({status}): {stderr}")),
            Answer::TimedOut(d) => Some(format!("did not answer within {} s", d.as_secs_f64())),
        }
    }
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
        self.ask(program, args).output()
    }

    fn ask(&self, program: &str, args: &[&str]) -> Answer {
        ask_within(program, args, LIVE_TIMEOUT)
    }
}

/// A thread reading a child's pipe to its end.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Option<String>> {
    std::thread::spawn(move || {
        let mut s = String::new();
        pipe.and_then(|mut p| p.read_to_string(&mut s).ok()).map(|_| s)
    })
}

/// Run `program` with `args` (C locale, no input) for at most `limit`.
fn ask_within(program: &str, args: &[&str], limit: Duration) -> Answer {
    let spawned = Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied) => {
            return Answer::Missing;
        }
        Err(e) => {
            return Answer::Failed {
                status: "could not start".into(),
                stderr: e.to_string(),
            };
        }
    };
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(st)) => {
                let text = out.join().ok().flatten().unwrap_or_default();
                let stderr = err.join().ok().flatten().unwrap_or_default();
                if st.success() {
                    return Answer::Output(text);
                }
                let last = stderr.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or_default();
                return Answer::Failed {
                    status: st.to_string(),
                    stderr: last.to_string(),
                };
            }
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Answer::TimedOut(limit);
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Answer::Failed {
                    status: "could not be waited for".into(),
                    stderr: e.to_string(),
                };
            }
        }
    }
}

/// One vdev of the pool's tree.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct Vdev {
    /// As `zpool status` prints it: `mirror-0`, or a leaf's path (OpenZFS
    /// `-P`: in full; zfs-fuse: without `/dev/`, e.g. `loop0`).
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
    /// A top-level vdev's ashift (log2 of its smallest I/O), from a leaf's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "log2"))]
    pub ashift: Option<u32>,
    /// A leaf the process that issues its I/O has open without O_DIRECT,
    /// so its reads and writes go through the kernel's page cache (zfs-fuse:
    /// from the daemon's open files, where file vdevs are and block devices
    /// are not); `None`: not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<bool>,
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
    /// Where the tree came from: `zpool status`, `kstat` (no tree: state
    /// only) or `none` (zfs-fuse without an answer from `zpool`).
    pub source: String,
    /// Top-level vdevs of every class.
    pub vdevs: Vec<Vdev>,
    /// How data is laid out over the data vdevs: `stripe`, `mirror`,
    /// `raidz1`..`raidz3`, `draid1`.., or `mixed`.
    pub layout: Option<String>,
    /// The dataset's `compression` (`lz4`, `zstd-3`...; `None` when off or unknown).
    pub compression: Option<String>,
    /// The dataset's properties a benchmark depends on (`None`: `zfs get` did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_properties: Option<ZfsProperties>,
    /// The first data vdev's ashift (see [`Vdev::ashift`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "log2"))]
    pub ashift: Option<u32>,
    /// The dataset's `direct` property (OpenZFS 2.3 on: `standard`, `always`, `disabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct: Option<String>,
    /// The ARC's size now.
    #[schemars(extend("x-unit" = "bytes"))]
    pub arc_size_bytes: Option<u64>,
    /// The ARC's maximum size (`c_max`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub arc_max_bytes: Option<u64>,
    /// The OpenZFS kernel module's version (`2.1.5-1ubuntu6~22.04.1`).
    pub version: Option<String>,
    /// O_DIRECT is accepted but ignored (before OpenZFS 2.3, `direct=disabled`,
    /// zfs-fuse): reads may come from the ARC. `None` when the version is unknown.
    pub direct_io_ignored: Option<bool>,
    /// Which ZFS: `openzfs` (the kernel module, mounts of type `zfs`) or
    /// `zfs-fuse` (the FUSE daemon, mounts of type `fuse.zfs`). Documents
    /// before it knew OpenZFS only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// The pool's on-disk version (`zpool get version`): zfs-fuse's pools
    /// are version 23 (OpenZFS's feature-flag pools have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "count"))]
    pub pool_version: Option<u32>,
    /// zfs-fuse's daemon: the process that issues the pool's I/O, and its caches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon: Option<ZfsFuseDaemon>,
}

/// A dataset's properties that change what a benchmark measures (man
/// `zfsprops.7`), each `None` when unknown or, like `sync` on zfs-fuse,
/// not a property of that implementation.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZfsProperties {
    /// `recordsize`: the largest block of a file; smaller writes rewrite a whole record.
    #[schemars(extend("x-unit" = "bytes"))]
    pub recordsize_bytes: Option<u64>,
    /// `compression` as set (`off`, `on`, `lz4`, `gzip-6`...).
    pub compression: Option<String>,
    /// `sync`: `standard`, `always` (every write waits for the ZIL) or
    /// `disabled` (writes acknowledged before they are stored).
    pub sync: Option<String>,
    /// `primarycache`: what the ARC keeps of this dataset (`all`, `metadata`, `none`).
    pub primarycache: Option<String>,
    /// `atime`: reads update access times (`on`/`off`).
    pub atime: Option<String>,
    /// `logbias`: `latency` (sync writes through the log device) or `throughput`.
    pub logbias: Option<String>,
    /// `copies`: copies of each block within the pool's redundancy.
    #[schemars(extend("x-unit" = "count"))]
    pub copies: Option<u32>,
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
    /// Whether the data members are read through the kernel's page cache:
    /// `Some(true)` when one is (zfs-fuse opens block devices O_DIRECT, file
    /// vdevs not), `Some(false)` when every one is known not to be, `None`
    /// when unknown (the daemon's open files could not be read).
    pub fn members_through_page_cache(&self) -> Option<bool> {
        let leaves = self.data_leaves();
        if leaves.iter().any(|l| l.page_cache == Some(true)) {
            Some(true)
        } else if !leaves.is_empty() && leaves.iter().all(|l| l.page_cache == Some(false)) {
            Some(false)
        } else {
            None
        }
    }
    /// The number of top-level data vdevs.
    pub fn data_groups(&self) -> usize {
        self.vdevs.iter().filter(|v| v.class == "data").count()
    }
}

/// `major.minor` of an OpenZFS version string (`2.1.5-1ubuntu6` → (2, 1)).
pub fn major_minor(v: &str) -> Option<(u32, u32)> {
    let mut it = v.trim().trim_start_matches("zfs-").split(['.', '-']);
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// What `TYPE-ID` names a top-level or interior vdev's type; `None` for a leaf.
pub(crate) fn interior_kind(name: &str) -> Option<String> {
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

/// The vdev tree of `zpool status` output: the pool's state and its
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
        // A leaf outside /dev is a file; [`resolve`] looks at the others.
        let kind = interior_kind(&name).unwrap_or_else(|| {
            if name.starts_with('/') && !name.starts_with("/dev/") {
                "file"
            } else {
                "disk"
            }
            .to_string()
        });
        let v = Vdev {
            name,
            kind,
            class: class.clone(),
            state: vstate,
            device: None,
            ashift: None,
            page_cache: None,
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

/// A leaf's path: as printed when absolute, else under `/dev/` (zfs-fuse
/// and OpenZFS without `-P` print `sda1`, `loop0`, `shm/f.img`).
pub(crate) fn leaf_path(name: &str) -> String {
    if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/dev/{name}")
    }
}

/// Each leaf's block device; a leaf that is none but a regular file is a file vdev.
fn resolve(root: &SysRoot, v: &mut Vdev) {
    if v.children.is_empty() && interior_kind(&v.name).is_none() {
        let path = leaf_path(&v.name);
        v.device = sysfs::by_source(root, &path).map(|b| b.name);
        if v.device.is_some() {
            v.kind = "disk".into();
        } else if std::fs::metadata(root.path(&path)).is_ok_and(|m| m.is_file()) {
            v.kind = "file".into();
        }
    }
    for c in &mut v.children {
        resolve(root, c);
    }
}

/// The properties [`ZfsProperties`] holds, in the order asked.
const PROPERTIES: [&str; 7] = ["recordsize", "compression", "sync", "primarycache", "atime", "logbias", "copies"];

/// `zfs get -H -p -o property,value` lines: `NAME\tVALUE` (`-` is no value).
fn parse_properties(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            let v = v.trim();
            (!v.is_empty() && v != "-").then(|| (k.trim().to_string(), v.to_string()))
        })
        .collect()
}

/// The dataset's properties: all in one `zfs get`, else all but `sync`
/// (zfs-fuse has none, and an unknown property fails the command), else
/// one at a time. `None` when nothing answered.
fn properties(cmds: &dyn Commands, dataset: &str) -> Option<ZfsProperties> {
    let ask = |list: &[&str]| {
        cmds.run("zfs", &["get", "-H", "-p", "-o", "property,value", &list.join(","), dataset])
            .map(|t| parse_properties(&t))
            .filter(|p| !p.is_empty())
    };
    let without_sync: Vec<&str> = PROPERTIES.iter().copied().filter(|p| *p != "sync").collect();
    let got = ask(&PROPERTIES).or_else(|| ask(&without_sync)).unwrap_or_else(|| {
        PROPERTIES
            .iter()
            .filter_map(|p| {
                let v = cmds.run("zfs", &["get", "-H", "-p", "-o", "value", p, dataset])?;
                let v = v.trim();
                (!v.is_empty() && v != "-").then(|| (p.to_string(), v.to_string()))
            })
            .collect()
    });
    if got.is_empty() {
        return None;
    }
    let get = |k: &str| got.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    Some(ZfsProperties {
        recordsize_bytes: get("recordsize").and_then(|v| v.parse().ok()),
        compression: get("compression"),
        sync: get("sync"),
        primarycache: get("primarycache"),
        atime: get("atime"),
        logbias: get("logbias"),
        copies: get("copies").and_then(|v| v.parse().ok()),
    })
}

/// The `ashift` of the first label `zdb -l` prints (its `vdev_tree`'s).
fn label_ashift(text: &str) -> Option<u32> {
    text.lines().find_map(|l| l.trim().strip_prefix("ashift:")?.trim().parse().ok())
}

/// A pool's version from `zpool get version POOL`'s table (`NAME PROPERTY VALUE SOURCE`).
fn pool_version(text: &str) -> Option<u32> {
    text.lines().find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        (w.get(1) == Some(&"version")).then(|| w.get(2)?.parse().ok()).flatten()
    })
}

/// Whether a mount of type `fstype` is a ZFS dataset (OpenZFS or zfs-fuse).
pub fn is_zfs(fstype: &str) -> bool {
    fstype == "zfs" || fstype == "fuse.zfs"
}

/// Read a file under the root, giving up after [`LIVE_TIMEOUT`]: zfs-fuse's
/// kstats are served by its daemon, which may hang (the reader is left behind).
fn read_bounded(root: &SysRoot, rel: String) -> Option<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let root = root.clone();
    std::thread::spawn(move || {
        let _ = tx.send(root.read(&rel));
    });
    rx.recv_timeout(LIVE_TIMEOUT).ok().flatten()
}

/// What iolab can find out about the dataset `source` (the mount's source:
/// `pool/fs`) of a mount of type `fstype` (`zfs` or `fuse.zfs`).
pub(crate) fn describe(root: &SysRoot, cmds: &dyn Commands, source: &str, fstype: &str) -> ZfsInfo {
    let fuse = fstype == "fuse.zfs";
    let pool = source.split('/').next().unwrap_or(source).to_string();
    let args: &[&str] = if fuse { &["status", &pool] } else { &["status", "-P", &pool] };
    let status = cmds.run("zpool", args).and_then(|t| parse_status(&t));
    let answered = status.is_some();
    let (state, mut vdevs, from) = match status {
        Some((state, vdevs)) => (state, vdevs, "zpool status"),
        None if fuse => (None, Vec::new(), "none"),
        None => (root.read(&format!("proc/spl/kstat/zfs/{pool}/state")), Vec::new(), "kstat"),
    };
    for v in &mut vdevs {
        resolve(root, v);
        if v.class == "data" {
            let mut leaves = Vec::new();
            v.leaves(&mut leaves);
            let first = leaves.first().map(|l| leaf_path(&l.name));
            v.ashift = first.and_then(|p| cmds.run("zdb", &["-l", &p])).and_then(|t| label_ashift(&t));
        }
    }
    let ashift = vdevs.iter().find(|v| v.class == "data").and_then(|v| v.ashift);
    let properties = properties(cmds, source);
    let compression = properties.as_ref().and_then(|p| p.compression.clone()).filter(|c| c != "off");
    let (arc_size_bytes, arc_max_bytes, version, direct, direct_io_ignored, pool_version, daemon);
    if fuse {
        // The daemon answers the kstat mount: asked only when it answered `zpool`.
        let dir = zfs_fuse::kstat_dir(&super::mounts(root));
        let stat = |name: &str| {
            answered
                .then(|| read_bounded(root, format!("{dir}/zfs/arcstats/{name}")))
                .flatten()
                .and_then(|v| v.trim().parse().ok())
        };
        (arc_size_bytes, arc_max_bytes) = (stat("size"), stat("c_max"));
        version = None;
        direct = None;
        direct_io_ignored = Some(true);
        pool_version = cmds.run("zpool", &["get", "version", &pool]).and_then(|t| self::pool_version(&t));
        daemon = zfs_fuse::find(root).map(|pid| {
            let open = zfs_fuse::open_files(root, pid);
            for v in &mut vdevs {
                mark_page_cache(root, v, &open);
            }
            zfs_fuse::daemon(root, pid)
        });
    } else {
        let arc = root.read("proc/spl/kstat/zfs/arcstats").unwrap_or_default();
        (arc_size_bytes, arc_max_bytes) = (kstat_value(&arc, "size"), kstat_value(&arc, "c_max"));
        version = root.read("sys/module/zfs/version").filter(|v| !v.is_empty());
        let mm = version.as_deref().and_then(major_minor);
        // The `direct` property exists from 2.3 on (asking an older zfs for it fails).
        direct = mm.filter(|v| *v >= (2, 3)).and_then(|_| {
            cmds.run("zfs", &["get", "-H", "-p", "-o", "value", "direct", source])
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty() && v != "-")
        });
        direct_io_ignored = mm.map(|v| v < (2, 3) || direct.as_deref() == Some("disabled"));
        pool_version = None;
        daemon = None;
    }
    ZfsInfo {
        layout: layout(&vdevs),
        dataset: source.to_string(),
        pool,
        state: state.filter(|s| !s.is_empty()),
        source: from.to_string(),
        vdevs,
        compression,
        dataset_properties: properties,
        ashift,
        direct,
        arc_size_bytes,
        arc_max_bytes,
        version,
        direct_io_ignored,
        implementation: Some(if fuse { "zfs-fuse" } else { "openzfs" }.to_string()),
        pool_version,
        daemon,
    }
}

/// Each leaf the daemon has open: whether it goes through the page cache
/// (opened without O_DIRECT), matched by path or, for devices, by device.
fn mark_page_cache(root: &SysRoot, v: &mut Vdev, open: &[(String, bool)]) {
    if v.children.is_empty() {
        let path = leaf_path(&v.name);
        v.page_cache = open
            .iter()
            .find(|(p, _)| {
                *p == path || v.device.is_some() && p.starts_with("/dev/") && sysfs::by_source(root, p).map(|b| b.name) == v.device
            })
            .map(|(_, direct)| !direct);
    }
    for c in &mut v.children {
        mark_page_cache(root, c, open);
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
    fn property_lines_labels_versions_and_leaf_paths() {
        let got = parse_properties("recordsize\t131072\ncompression\toff\nsync\t-\nbad line\n");
        assert_eq!(
            got,
            [
                ("recordsize".to_string(), "131072".to_string()),
                ("compression".to_string(), "off".to_string())
            ]
        );
        let label = "------\nLABEL 0\n------\n    version: 23\n    vdev_tree:\n        type: 'mirror'\n        ashift: 9\n";
        assert_eq!(label_ashift(label), Some(9));
        assert_eq!(label_ashift("failed to unpack label 0\n"), None);
        assert_eq!(
            pool_version("NAME  PROPERTY  VALUE  SOURCE\nt     version   23     default\n"),
            Some(23)
        );
        // OpenZFS's feature-flag pools: `-`.
        assert_eq!(
            pool_version("NAME  PROPERTY  VALUE  SOURCE\nt     version   -      default\n"),
            None
        );
        assert_eq!(leaf_path("loop0"), "/dev/loop0");
        assert_eq!(leaf_path("shm/f.img"), "/dev/shm/f.img");
        assert_eq!(leaf_path("/dev/disk/by-id/x-part1"), "/dev/disk/by-id/x-part1");
        assert!(is_zfs("zfs") && is_zfs("fuse.zfs") && !is_zfs("fuse") && !is_zfs("zfs-fuse"));
        // A leaf's kind before it is resolved: outside /dev a file, else a disk.
        let (_, v) = parse_status("config:\n\n\tNAME STATE\n\tp ONLINE\n\t  /srv/f.img ONLINE\n\t  loop0 ONLINE\n").unwrap();
        assert_eq!((v[0].kind.as_str(), v[1].kind.as_str()), ("file", "disk"));
    }

    #[test]
    fn live_commands_time_out_and_fail_quietly() {
        assert_eq!(LiveCommands.run("/nonexistent/iolab-cmd", &[]), None);
        assert_eq!(LiveCommands.run("sh", &["-c", "echo hi"]).as_deref(), Some("hi\n"));
        assert_eq!(LiveCommands.run("sh", &["-c", "echo hi; exit 3"]), None);
        // The whole answer tells a missing program from a failed or a slow one.
        assert_eq!(LiveCommands.ask("/nonexistent/iolab-cmd", &[]), Answer::Missing);
        let failed = LiveCommands.ask("sh", &["-c", "echo one >&2; echo 'no pools' >&2; exit 3"]);
        assert_eq!(failed.failure().as_deref(), Some("failed (exit status: 3): no pools"), "{failed:?}");
        let slow = ask_within("sleep", &["5"], Duration::from_millis(200));
        assert_eq!(slow, Answer::TimedOut(Duration::from_millis(200)));
        assert_eq!(slow.failure().as_deref(), Some("did not answer within 0.2 s"));
    }
}
