//! zfs-fuse: ZFS in a user-space daemon behind FUSE (Debian's `zfs-fuse`,
//! pool version 23). One daemon per machine serves every pool: it opens
//! the member devices itself, so it is the process that issues the pool's
//! I/O (its cgroup's limits apply to the members), and its caches are its
//! own: the ARC (`max-arc-size`), a vdev cache per leaf (`vdev-cache-size`,
//! default 10 MiB: reads of up to 16 KiB are read as 64 KiB and kept) and
//! the high-level prefetch (`zfs-prefetch-disable` turns it off). Unless
//! `disable-block-cache` is set, the kernel also caches the files of its
//! datasets above it (`zfs_operations.c`: each open file's FUSE
//! `direct_io` is `!block_cache`), so reads without O_DIRECT can come from
//! the kernel's page cache and never reach the daemon (seen here: a file
//! read twice after it was written, with no ARC hit; after `drop_caches`,
//! the ARC's). Members that are block devices are opened with O_DIRECT
//! whatever the setting (`vn_open` in libsolkerncompat adds it for block
//! devices), file vdevs without it.
//!
//! Where each fact comes from (zfs-fuse 0.7, `src/zfs-fuse/main.c`):
//! - the daemon: the first process whose `/proc/PID/comm` is `zfs-fuse`
//!   and whose `/proc/PID/cmdline` is not empty (a zombie's is);
//! - its settings: `read_cfg` reads `/etc/zfs/zfsrc` first, one option a
//!   line (`name = value`, or words: the first gets `--` prepended, `-` if
//!   it is one letter; `#` starts a comment), then `parse_args` reads the
//!   command line (getopt_long: `--name value`, `--name=value`, unique
//!   prefixes, `-m 100`, `-m100`); the last value wins, flags only turn on;
//! - whether each member goes through the kernel's page cache: the daemon's
//!   open file's flags (`/proc/PID/fdinfo/FD`, `flags:` in octal) without
//!   O_DIRECT;
//! - the ARC: its kstats, one file per value under its own FUSE mount
//!   (type `fuse`, source `kstat`, at `/zfs-kstat`): `zfs/arcstats/size`, `c_max`.

use super::SysRoot;
use serde::{Deserialize, Serialize};
use std::fs;

/// The zfs-fuse daemon and its caching settings.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZfsFuseDaemon {
    /// Its process id.
    #[schemars(extend("x-unit" = "pid"))]
    pub pid: u32,
    /// Its command line after the program's name.
    pub args: Vec<String>,
    /// The settings of `/etc/zfs/zfsrc` (as the file is now; the daemon read
    /// it when it started, before its command line), comments left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zfsrc: Vec<String>,
    /// The kernel caches the files of its datasets (no `disable-block-cache`:
    /// FUSE `direct_io` off), so reads without O_DIRECT can come from the
    /// kernel's page cache, above ZFS. (Its block-device members are opened
    /// with O_DIRECT either way: see [`super::Vdev::page_cache`].)
    pub block_cache: bool,
    /// `max-arc-size`; `None`: the compiled-in default.
    #[schemars(extend("x-unit" = "bytes"))]
    pub max_arc_size_bytes: Option<u64>,
    /// `vdev-cache-size`, per leaf vdev (10 MiB unless set; 0: off).
    #[schemars(extend("x-unit" = "bytes"))]
    pub vdev_cache_bytes: u64,
    /// The high-level prefetch is on (no `zfs-prefetch-disable`).
    pub prefetch: bool,
}

impl ZfsFuseDaemon {
    /// The zfsrc lines that set its caches (block cache, ARC, vdev cache, prefetch).
    pub fn caching_zfsrc(&self) -> Vec<&str> {
        self.zfsrc
            .iter()
            .filter(|l| {
                zfsrc_args(l)
                    .first()
                    .and_then(|o| option_name(o))
                    .is_some_and(|n| CACHING.contains(&n))
            })
            .map(String::as_str)
            .collect()
    }
}

/// The options that set the daemon's caches.
const CACHING: [&str; 4] = ["disable-block-cache", "max-arc-size", "vdev-cache-size", "zfs-prefetch-disable"];

/// zfs-fuse's long options and whether each takes a value (`longopts` in main.c).
const LONG: [(&str, bool); 16] = [
    ("no-daemon", false),
    ("no-kstat-mount", false),
    ("log-uberblocks", false),
    ("min-uberblock-txg", true),
    ("disable-block-cache", false),
    ("disable-page-cache", false),
    ("pidfile", true),
    ("max-arc-size", true),
    ("zfs-prefetch-disable", false),
    ("vdev-cache-size", true),
    ("fuse-attr-timeout", true),
    ("fuse-entry-timeout", true),
    ("fuse-mount-options", true),
    ("help", false),
    ("stack-size", true),
    ("enable-xattr", false),
];

/// Short options with a value (`hp:a:e:m:nxo:u:v:s:`) and their long names.
const SHORT: [(char, &str); 8] = [
    ('p', "pidfile"),
    ('a', "fuse-attr-timeout"),
    ('e', "fuse-entry-timeout"),
    ('m', "max-arc-size"),
    ('o', "fuse-mount-options"),
    ('u', "min-uberblock-txg"),
    ('v', "vdev-cache-size"),
    ('s', "stack-size"),
];

/// The long name of the option an argument starts: `--name`, `--name=V`,
/// a unique prefix of a long name, or a short option (`-m`, `-m100`; in a
/// cluster, the first letter that takes a value). `None` for anything else.
fn option_name(arg: &str) -> Option<&'static str> {
    if let Some(long) = arg.strip_prefix("--") {
        let name = long.split_once('=').map_or(long, |(n, _)| n);
        let exact = LONG.iter().find(|(n, _)| *n == name);
        let hits: Vec<&(&str, bool)> = LONG.iter().filter(|(n, _)| n.starts_with(name)).collect();
        return exact.or((hits.len() == 1).then(|| hits[0])).map(|(n, _)| *n);
    }
    let shorts = arg.strip_prefix('-')?;
    shorts.chars().find_map(|c| SHORT.iter().find(|(s, _)| *s == c).map(|(_, n)| *n))
}

/// The settings that decide the daemon's caching, as options set them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    pub disable_block_cache: bool,
    pub max_arc_mib: Option<u64>,
    pub vdev_cache_mib: u64,
    pub prefetch_disable: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            disable_block_cache: false,
            max_arc_mib: None,
            vdev_cache_mib: 10,
            prefetch_disable: false,
        }
    }
}

impl Settings {
    fn set(&mut self, name: &str, value: Option<&str>) {
        let num = || value.and_then(|v| v.trim().parse::<u64>().ok());
        match name {
            "disable-block-cache" => self.disable_block_cache = true,
            "zfs-prefetch-disable" => self.prefetch_disable = true,
            // main.c refuses values outside 16..16384 (the daemon would not have started).
            "max-arc-size" => self.max_arc_mib = num().or(self.max_arc_mib),
            "vdev-cache-size" => self.vdev_cache_mib = num().unwrap_or(self.vdev_cache_mib),
            _ => {}
        }
    }

    /// Apply options as getopt_long reads them (see [`option_name`]).
    pub(crate) fn apply(&mut self, args: &[String]) {
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            i += 1;
            let Some(name) = option_name(a) else { continue };
            let takes = LONG.iter().any(|(n, t)| *n == name && *t);
            // The value: after `=`, the rest of a short cluster, or the next argument.
            let inline = if a.starts_with("--") {
                a.split_once('=').map(|(_, v)| v)
            } else {
                let shorts = &a[1..];
                shorts
                    .char_indices()
                    .find(|(_, c)| SHORT.iter().any(|(s, n)| s == c && *n == name))
                    .map(|(k, c)| &shorts[k + c.len_utf8()..])
                    .filter(|rest| !rest.is_empty())
            };
            let value = if takes && inline.is_none() {
                i += 1;
                args.get(i - 1).map(String::as_str)
            } else {
                inline
            };
            self.set(name, value);
        }
    }

    /// Apply the lines of a zfsrc file, each as `read_cfg` turns it into options.
    pub(crate) fn apply_zfsrc(&mut self, lines: &[String]) {
        for l in lines {
            self.apply(&zfsrc_args(l));
        }
    }
}

/// The settings lines of a zfsrc file (no comments, no blank lines).
pub(crate) fn zfsrc_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// One zfsrc line as the options `read_cfg` makes of it: `name = value`
/// (the name in `[a-z-]`, the value up to a `#`), else its words up to
/// one starting with `#`, the first with dashes prepended.
fn zfsrc_args(line: &str) -> Vec<String> {
    let line = line.trim();
    let name_end = line.find(|c: char| !(c.is_ascii_lowercase() || c == '-')).unwrap_or(line.len());
    let after = line[name_end..].trim_start();
    if name_end > 0
        && let Some(value) = after.strip_prefix('=')
    {
        let value = value.split('#').next().unwrap_or("").trim();
        return vec![format!("--{}", &line[..name_end]), value.to_string()];
    }
    let mut words: Vec<String> = line
        .split_whitespace()
        .take_while(|w| !w.starts_with('#'))
        .map(str::to_string)
        .collect();
    if let Some(first) = words.first_mut()
        && !first.starts_with('-')
    {
        *first = format!("{}{first}", if first.chars().count() > 1 { "--" } else { "-" });
    }
    words
}

/// The running zfs-fuse daemon's pid: a process named `zfs-fuse` with a
/// command line (zombies have none), the lowest pid if several.
pub(crate) fn find(root: &SysRoot) -> Option<u32> {
    let mut pids: Vec<u32> = fs::read_dir(root.path("proc"))
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|pid: &u32| {
            root.read(&format!("proc/{pid}/comm")).as_deref() == Some("zfs-fuse")
                && fs::read(root.path(&format!("proc/{pid}/cmdline"))).is_ok_and(|c| !c.is_empty())
        })
        .collect();
    pids.sort_unstable();
    pids.first().copied()
}

/// The daemon `pid`'s settings, from its command line and the zfsrc file.
pub(crate) fn daemon(root: &SysRoot, pid: u32) -> ZfsFuseDaemon {
    let cmdline = fs::read(root.path(&format!("proc/{pid}/cmdline"))).unwrap_or_default();
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .skip(1)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let zfsrc = root.read("etc/zfs/zfsrc").map(|t| zfsrc_lines(&t)).unwrap_or_default();
    let mut s = Settings::default();
    s.apply_zfsrc(&zfsrc);
    s.apply(&args);
    ZfsFuseDaemon {
        pid,
        args,
        zfsrc,
        block_cache: !s.disable_block_cache,
        max_arc_size_bytes: s.max_arc_mib.map(|m| m << 20),
        vdev_cache_bytes: s.vdev_cache_mib << 20,
        prefetch: !s.prefetch_disable,
    }
}

/// The files process `pid` has open, each with whether it was opened with
/// O_DIRECT (`fd/N` links and `fdinfo/N`'s octal `flags:`).
pub(crate) fn open_files(root: &SysRoot, pid: u32) -> Vec<(String, bool)> {
    let Ok(rd) = fs::read_dir(root.path(&format!("proc/{pid}/fd"))) else {
        return Vec::new();
    };
    let mut out: Vec<(String, bool)> = rd
        .flatten()
        .filter_map(|e| {
            let target = fs::read_link(e.path()).ok()?.to_string_lossy().into_owned();
            let fd = e.file_name().to_string_lossy().into_owned();
            let info = root.read(&format!("proc/{pid}/fdinfo/{fd}"))?;
            let flags = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())?;
            Some((target, flags & libc::O_DIRECT as u32 != 0))
        })
        .collect();
    out.sort();
    out
}

/// Where zfs-fuse's kstats are mounted: the `fuse` mount of source `kstat`
/// in `mountinfo`, else `/zfs-kstat`.
pub(crate) fn kstat_dir(mountinfo: &[super::FsInfo]) -> String {
    mountinfo
        .iter()
        .find(|m| m.fstype == "fuse" && m.source == "kstat")
        .map(|m| m.mount_point.clone())
        .unwrap_or_else(|| "/zfs-kstat".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Debian's /etc/zfs/zfsrc of zfs-fuse 0.7.0-25 (settings and some comments).
    const DEBIAN: &str = "# vdev-cache-size : size of the prefetch cache for each vdev defined\n\
        vdev-cache-size = 10\n\n# Maximum arc size : this is the main cache for zfs in Mb\n\
        max-arc-size = 100\n\
        zfs-prefetch-disable\n\
        # disable-block-cache\n\
        fuse-attr-timeout = 3600\n\
        fuse-mount-options = default_permissions\n";

    #[test]
    fn debians_zfsrc_then_the_command_line() {
        let lines = zfsrc_lines(DEBIAN);
        assert_eq!(lines[0], "vdev-cache-size = 10");
        assert_eq!(lines.len(), 5);
        let mut s = Settings::default();
        s.apply_zfsrc(&lines);
        assert_eq!(
            s,
            Settings {
                disable_block_cache: false,
                max_arc_mib: Some(100),
                vdev_cache_mib: 10,
                prefetch_disable: true
            }
        );
        // The command line comes after: its values win, its flags add.
        s.apply(&strings(&["-n", "--disable-block-cache", "--max-arc-size", "256", "-v0"]));
        assert_eq!(
            s,
            Settings {
                disable_block_cache: true,
                max_arc_mib: Some(256),
                vdev_cache_mib: 0,
                prefetch_disable: true
            }
        );
    }

    #[test]
    fn getopt_forms() {
        let read = |a: &[&str]| {
            let mut s = Settings::default();
            s.apply(&strings(a));
            s
        };
        assert_eq!(read(&["--max-arc-size=64"]).max_arc_mib, Some(64));
        assert_eq!(read(&["-m", "64"]).max_arc_mib, Some(64));
        assert_eq!(read(&["-nm64"]).max_arc_mib, Some(64));
        // A unique prefix is the option; an ambiguous one is nothing.
        assert!(read(&["--disable-b"]).disable_block_cache);
        assert!(!read(&["--disable"]).disable_block_cache);
        assert!(read(&["--zfs-prefetch-disable"]).prefetch_disable);
        // A value that is another option's name is still the value.
        assert_eq!(read(&["-p", "--disable-block-cache"]), Settings::default());
        assert_eq!(zfsrc_args("max-arc-size=512 # MiB"), strings(&["--max-arc-size", "512"]));
        assert_eq!(zfsrc_args("m 512"), strings(&["-m", "512"]));
        assert_eq!(zfsrc_args("disable-block-cache # on"), strings(&["--disable-block-cache"]));
    }
}
