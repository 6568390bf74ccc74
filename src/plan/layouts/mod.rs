//! `iolab layouts`: which configurations of the devices given to build,
//! measure and tear down, in which order, and which are refused and why.
//! Pure: the devices are paths, the machine is a [`Capabilities`] the
//! `device` stage filled in, and nothing here reads or writes anything.
//!
//! Names. A configuration's stable name says what it is: `ext4`, `xfs`,
//! `btrfs` and `zfs` on one device; `zfs-stripeN`, `zfs-mirrorN` and
//! `zfs-raidzL-N` over the first N devices given; `btrfs-raid0`,
//! `btrfs-raid1`, `btrfs-raid10`, `md-raidL+FS` (L: 0, 1, 5, 6; FS: ext4,
//! xfs) and `lvm-stripe+FS` over every device. With `--each` a
//! single-device name carries its device (`ext4@sdb`), and a sweep adds
//! its settings (`zfs-mirror3/recordsize=8K`).

mod commands;
mod text;

pub use commands::{Commands, Region, RunNames, Step, ZFS_LABEL_ALIGN, ZFS_LABELS_AT_EACH_END, commands, file_slug};
pub use text::dry_run;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A filesystem iolab makes with its own `mkfs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fs {
    Ext4,
    Xfs,
    Btrfs,
}

impl Fs {
    pub fn name(self) -> &'static str {
        match self {
            Fs::Ext4 => "ext4",
            Fs::Xfs => "xfs",
            Fs::Btrfs => "btrfs",
        }
    }
    /// The program that makes it.
    pub fn mkfs(self) -> &'static str {
        match self {
            Fs::Ext4 => "mkfs.ext4",
            Fs::Xfs => "mkfs.xfs",
            Fs::Btrfs => "mkfs.btrfs",
        }
    }
}

/// How a ZFS pool lays its devices out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZfsVdev {
    /// One device.
    Single,
    /// Every device a top-level vdev of its own.
    Stripe,
    /// One mirror of every device.
    Mirror,
    /// One RAID-Z vdev of every device, with this many parity devices (1-3).
    Raidz(u8),
}

/// A btrfs profile over several devices (data and metadata alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BtrfsProfile {
    Raid0,
    Raid1,
    Raid10,
}

impl BtrfsProfile {
    pub fn name(self) -> &'static str {
        match self {
            BtrfsProfile::Raid0 => "raid0",
            BtrfsProfile::Raid1 => "raid1",
            BtrfsProfile::Raid10 => "raid10",
        }
    }
}

/// An md RAID level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdLevel {
    Raid0,
    Raid1,
    Raid5,
    Raid6,
}

impl MdLevel {
    pub fn number(self) -> u8 {
        match self {
            MdLevel::Raid0 => 0,
            MdLevel::Raid1 => 1,
            MdLevel::Raid5 => 5,
            MdLevel::Raid6 => 6,
        }
    }
}

/// What a configuration is, whatever devices and settings it gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A filesystem on one device.
    Single(Fs),
    /// A ZFS pool (its root dataset mounted).
    Zfs(ZfsVdev),
    /// One btrfs filesystem over several devices.
    BtrfsRaid(BtrfsProfile),
    /// An md array with a filesystem on it.
    Md(MdLevel, Fs),
    /// An LVM logical volume striped over every device, with a filesystem on it.
    LvmStripe(Fs),
}

/// Every layout iolab knows, in the order of a default plan.
const ALL_LAYOUTS: [Layout; 20] = {
    use BtrfsProfile as B;
    use Fs::*;
    use Layout::*;
    use MdLevel as M;
    [
        Single(Ext4),
        Single(Xfs),
        Single(Btrfs),
        Zfs(ZfsVdev::Single),
        Zfs(ZfsVdev::Stripe),
        Zfs(ZfsVdev::Mirror),
        Zfs(ZfsVdev::Raidz(1)),
        Zfs(ZfsVdev::Raidz(2)),
        Zfs(ZfsVdev::Raidz(3)),
        BtrfsRaid(B::Raid0),
        BtrfsRaid(B::Raid1),
        BtrfsRaid(B::Raid10),
        Md(M::Raid0, Ext4),
        Md(M::Raid0, Xfs),
        Md(M::Raid1, Ext4),
        Md(M::Raid1, Xfs),
        Md(M::Raid5, Ext4),
        Md(M::Raid5, Xfs),
        Md(M::Raid6, Ext4),
        Md(M::Raid6, Xfs),
    ]
};

/// The two LVM layouts, after [`ALL_LAYOUTS`] in a default plan.
const LVM_LAYOUTS: [Layout; 2] = [Layout::LvmStripe(Fs::Ext4), Layout::LvmStripe(Fs::Xfs)];

fn every_layout() -> impl Iterator<Item = Layout> {
    ALL_LAYOUTS.into_iter().chain(LVM_LAYOUTS)
}

impl Layout {
    /// The name without a device count: `zfs-raidz1`, `md-raid5+ext4`.
    pub fn base_name(self) -> String {
        match self {
            Layout::Single(fs) => fs.name().to_string(),
            Layout::Zfs(ZfsVdev::Single) => "zfs".into(),
            Layout::Zfs(ZfsVdev::Stripe) => "zfs-stripe".into(),
            Layout::Zfs(ZfsVdev::Mirror) => "zfs-mirror".into(),
            Layout::Zfs(ZfsVdev::Raidz(p)) => format!("zfs-raidz{p}"),
            Layout::BtrfsRaid(p) => format!("btrfs-{}", p.name()),
            Layout::Md(l, fs) => format!("md-raid{}+{}", l.number(), fs.name()),
            Layout::LvmStripe(fs) => format!("lvm-stripe+{}", fs.name()),
        }
    }

    /// The name with `n` devices: ZFS's multi-device layouts say their
    /// count (`zfs-stripe2`, `zfs-raidz1-3`), the others use every device.
    pub fn name(self, n: usize) -> String {
        match self {
            Layout::Zfs(ZfsVdev::Stripe | ZfsVdev::Mirror) => format!("{}{n}", self.base_name()),
            Layout::Zfs(ZfsVdev::Raidz(_)) => format!("{}-{n}", self.base_name()),
            _ => self.base_name(),
        }
    }

    /// Whether it lives on one device (`--each` repeats these per device).
    pub fn single_device(self) -> bool {
        matches!(self, Layout::Single(_) | Layout::Zfs(ZfsVdev::Single))
    }

    /// Whether `--zfs` sweeps apply to it.
    pub fn is_zfs(self) -> bool {
        matches!(self, Layout::Zfs(_))
    }

    /// The fewest devices it can be built on: the one place these rules live.
    pub fn min_devices(self) -> usize {
        match self {
            Layout::Single(_) | Layout::Zfs(ZfsVdev::Single) => 1,
            Layout::Zfs(ZfsVdev::Stripe | ZfsVdev::Mirror) => 2,
            Layout::Zfs(ZfsVdev::Raidz(p)) => usize::from(p) + 2,
            Layout::BtrfsRaid(BtrfsProfile::Raid0 | BtrfsProfile::Raid1) => 2,
            Layout::BtrfsRaid(BtrfsProfile::Raid10) => 4,
            Layout::Md(MdLevel::Raid0 | MdLevel::Raid1, _) => 2,
            Layout::Md(MdLevel::Raid5, _) => 3,
            Layout::Md(MdLevel::Raid6, _) => 4,
            Layout::LvmStripe(_) => 2,
        }
    }

    /// The filesystem `mount` sees, if iolab mounts one (`--mount-options` applies).
    pub fn mounted_fs(self) -> Option<Fs> {
        match self {
            Layout::Single(fs) | Layout::Md(_, fs) | Layout::LvmStripe(fs) => Some(fs),
            Layout::BtrfsRaid(_) => Some(Fs::Btrfs),
            Layout::Zfs(_) => None,
        }
    }

    /// Programs it needs on PATH, to build and to tear down.
    fn tools(self) -> Vec<&'static str> {
        let mut t = vec!["wipefs"];
        match self {
            Layout::Single(Fs::Btrfs) | Layout::BtrfsRaid(_) => t.extend(["mkfs.btrfs", "btrfs"]),
            Layout::Single(fs) => t.push(fs.mkfs()),
            Layout::Zfs(_) => t.push("zpool"),
            Layout::Md(_, fs) => t.extend(["mdadm", fs.mkfs()]),
            Layout::LvmStripe(fs) => t.extend(["lvm", fs.mkfs()]),
        }
        t
    }

    /// Why this machine cannot build it, or `None` when it can.
    pub fn refusal(self, caps: &Capabilities) -> Option<String> {
        let missing: Vec<&str> = self.tools().into_iter().filter(|t| !caps.tools.contains(*t)).collect();
        let kernel = match self {
            Layout::Zfs(_) if caps.zfs.is_none() => {
                Some("no ZFS here: neither the zfs kernel module (/sys/module/zfs) nor a running zfs-fuse daemon")
            }
            Layout::Md(..) if !caps.md => Some("the kernel has no md driver (no /proc/mdstat, no /sys/module/md_mod)"),
            Layout::LvmStripe(_) if !caps.dm => {
                Some("the kernel has no device-mapper (not in /proc/misc, no /sys/class/misc/device-mapper)")
            }
            _ => None,
        };
        let tools = (!missing.is_empty()).then(|| format!("not on PATH: {}", missing.join(", ")));
        match (kernel, tools) {
            (None, None) => None,
            (Some(k), None) => Some(k.to_string()),
            (None, Some(t)) => Some(t),
            (Some(k), Some(t)) => Some(format!("{k}; {t}")),
        }
    }
}

/// A ZFS implementation: their properties differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZfsImpl {
    /// The kernel module (`/sys/module/zfs`).
    OpenZfs,
    /// The FUSE daemon (pool version 23): no lz4 or zstd, recordsize at
    /// most 128K, no `sync` property.
    ZfsFuse,
}

impl ZfsImpl {
    pub fn name(self) -> &'static str {
        match self {
            ZfsImpl::OpenZfs => "OpenZFS",
            ZfsImpl::ZfsFuse => "zfs-fuse",
        }
    }
    /// The largest `recordsize` it takes.
    pub fn max_recordsize(self) -> u64 {
        match self {
            ZfsImpl::OpenZfs => 16 << 20,
            ZfsImpl::ZfsFuse => 128 << 10,
        }
    }
    /// Why it cannot take `key=value`, or `None` when it can (as far as
    /// iolab knows: `zfs` itself has the last word when the pool is made).
    pub fn refusal(self, key: &str, value: &str) -> Option<String> {
        let fuse = self == ZfsImpl::ZfsFuse;
        match key {
            "recordsize" => match crate::base::units::parse_size(value) {
                Ok(b) if b.is_power_of_two() && (512..=self.max_recordsize()).contains(&b) => None,
                _ => Some(format!(
                    "recordsize={value}: {} takes a power of two from 512 to {}",
                    self.name(),
                    crate::base::units::fmt_bs(self.max_recordsize())
                )),
            },
            "compression" if fuse && (value == "lz4" || value.starts_with("zstd")) => {
                Some(format!("compression={value}: zfs-fuse has no {value}"))
            }
            "sync" if fuse => Some("sync: zfs-fuse has no sync property".into()),
            _ => None,
        }
    }
}

/// The ZFS properties `--zfs` may sweep (dataset properties, set with
/// `zpool create -O`).
pub const ZFS_SWEEP_KEYS: [&str; 7] = ["recordsize", "compression", "sync", "atime", "checksum", "logbias", "primarycache"];

/// What this machine has: programs on PATH and kernel support. Filled in by
/// `device::tools::capabilities`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// The programs found on PATH, by name (`mkfs.ext4`, `zpool`, `mdadm`, `lvm`, `wipefs`, `btrfs`).
    pub tools: BTreeSet<String>,
    /// The ZFS implementation that would serve a new pool.
    pub zfs: Option<ZfsImpl>,
    /// The md driver is in the kernel.
    pub md: bool,
    /// device-mapper is in the kernel.
    pub dm: bool,
}

/// The programs [`Capabilities::tools`] is asked about.
pub const TOOLS: [&str; 9] = [
    "mkfs.ext4",
    "mkfs.xfs",
    "mkfs.btrfs",
    "btrfs",
    "zpool",
    "zfs",
    "mdadm",
    "lvm",
    "wipefs",
];

/// One configuration to build, measure and tear down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Stable and unique in its plan: `zfs-mirror3/recordsize=8K`, `ext4@sdb`.
    pub name: String,
    pub layout: Layout,
    /// The devices it is built on, in the order given.
    pub devices: Vec<PathBuf>,
    /// The settings of the sweeps that apply to it: ZFS properties
    /// (`recordsize`=`8K`) or `mount-options`.
    pub properties: Vec<(String, String)>,
    /// Tags of its stored runs: `layout=NAME` (without the settings), `device=`
    /// with `--each`, and one per setting.
    pub tags: Vec<(String, String)>,
}

/// A configuration that was asked for (or would have been in the default
/// plan) and cannot be built, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub name: String,
    pub reason: String,
}

/// The plan: configurations in the order they run, the first the baseline
/// the others are compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutPlan {
    pub configs: Vec<Config>,
    pub refusals: Vec<Refusal>,
}

impl LayoutPlan {
    pub fn baseline(&self) -> Option<&Config> {
        self.configs.first()
    }
}

/// What the user asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The devices, the first the baseline's.
    pub devices: Vec<PathBuf>,
    /// `--try`: configuration names; empty: every one the devices and the machine allow.
    pub names: Vec<String>,
    /// `--each`: single-device configurations on every device, not only the first.
    pub each: bool,
    /// `--zfs KEY=V1,V2` (repeatable): values to sweep, per property.
    pub zfs: Vec<(String, Vec<String>)>,
    /// `--mount-options OPTS` (repeatable): each a set of mount options to sweep.
    pub mount_options: Vec<String>,
}

/// A name of `--try`, understood: the layout and how many devices (`None`: every one).
pub fn parse_name(name: &str) -> Option<(Layout, Option<usize>)> {
    for layout in every_layout() {
        let base = layout.base_name();
        if name == base {
            return Some((layout, None));
        }
        if let Some(rest) = name.strip_prefix(&base) {
            let count = match layout {
                Layout::Zfs(ZfsVdev::Stripe | ZfsVdev::Mirror) => rest,
                Layout::Zfs(ZfsVdev::Raidz(_)) => match rest.strip_prefix('-') {
                    Some(r) => r,
                    None => continue,
                },
                _ => continue,
            };
            if let Ok(n) = count.parse::<usize>() {
                return Some((layout, Some(n)));
            }
        }
    }
    None
}

/// The names `--try` takes, for its usage error.
pub fn valid_names() -> String {
    let names: Vec<String> = every_layout()
        .map(|l| match l {
            Layout::Zfs(ZfsVdev::Stripe | ZfsVdev::Mirror) => format!("{}[N]", l.base_name()),
            Layout::Zfs(ZfsVdev::Raidz(_)) => format!("{}[-N]", l.base_name()),
            _ => l.base_name(),
        })
        .collect();
    names.join(", ")
}

/// The short name of a device in configuration names and tags: `/dev/sdb` → `sdb`.
pub fn device_name(dev: &Path) -> String {
    dev.file_name()
        .map_or_else(|| dev.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Every combination of the sweeps, in the order given (one empty set when there are none).
fn combinations(sweeps: &[(String, Vec<String>)]) -> Vec<Vec<(String, String)>> {
    let mut out = vec![Vec::new()];
    for (key, values) in sweeps {
        out = out
            .into_iter()
            .flat_map(|prefix: Vec<(String, String)>| {
                values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push((key.clone(), v.clone()));
                    p
                })
            })
            .collect();
    }
    out
}

/// Checks the request's shape: devices, sweep keys and values.
fn check(req: &Request) -> Result<(), String> {
    if req.devices.is_empty() {
        return Err("layouts needs at least one device".into());
    }
    let mut seen = BTreeSet::new();
    for d in &req.devices {
        if !seen.insert(d) {
            return Err(format!("{} is given twice", d.display()));
        }
    }
    let mut keys = BTreeSet::new();
    for (key, values) in &req.zfs {
        if !ZFS_SWEEP_KEYS.contains(&key.as_str()) {
            return Err(format!(
                "--zfs {key}: not a property iolab sweeps; these are: {}",
                ZFS_SWEEP_KEYS.join(", ")
            ));
        }
        if !keys.insert(key) {
            return Err(format!("--zfs {key} is given twice: give its values once, comma-separated"));
        }
        if values.is_empty() || values.iter().any(|v| v.is_empty() || v.contains(['/', '='])) {
            return Err(format!("--zfs {key}: values are a comma list, e.g. --zfs {key}=V1,V2"));
        }
    }
    if req.mount_options.iter().any(|o| o.contains(['/', ' '])) {
        return Err("--mount-options: a set of options is a comma list without spaces or slashes".into());
    }
    Ok(())
}

/// One entry before the sweeps: a layout on its devices.
struct Base {
    layout: Layout,
    devices: Vec<PathBuf>,
    /// `--each`: the single device it is named after.
    each: Option<String>,
}

/// The plan for `req` on a machine with `caps`. An unknown name in `--try`
/// or a malformed request is an `Err` (a usage error); a configuration that
/// cannot be built is a [`Refusal`], never dropped: named in `--try`, for
/// whatever reason; in the default plan, for what this machine lacks (one
/// the device count does not allow is not in the default plan).
pub fn plan(req: &Request, caps: &Capabilities) -> Result<LayoutPlan, String> {
    check(req)?;
    let n = req.devices.len();
    let mut refusals = Vec::new();
    let mut bases = Vec::new();
    let push = |layout: Layout, count: usize, bases: &mut Vec<Base>| {
        if layout.single_device() {
            let on: &[PathBuf] = if req.each { &req.devices } else { &req.devices[..1] };
            for d in on {
                let each = req.each.then(|| device_name(d));
                bases.push(Base {
                    layout,
                    devices: vec![d.clone()],
                    each,
                });
            }
        } else {
            bases.push(Base {
                layout,
                devices: req.devices[..count].to_vec(),
                each: None,
            });
        }
    };
    if req.names.is_empty() {
        for layout in every_layout() {
            let count = if layout.single_device() { 1 } else { n };
            if count >= layout.min_devices() {
                push(layout, count, &mut bases);
            }
        }
    } else {
        for name in &req.names {
            let (layout, count) =
                parse_name(name).ok_or_else(|| format!("--try {name}: no such configuration; these are: {}", valid_names()))?;
            let count = match (layout.single_device(), count) {
                (true, _) => 1,
                (false, Some(c)) => c,
                (false, None) => n,
            };
            if count > n {
                refusals.push(Refusal {
                    name: name.clone(),
                    reason: format!("needs {count} devices; {n} given"),
                });
            } else if count < layout.min_devices() {
                refusals.push(Refusal {
                    name: name.clone(),
                    reason: format!(
                        "needs at least {} devices; {count} {}",
                        layout.min_devices(),
                        if count == n { "given" } else { "named" }
                    ),
                });
            } else {
                push(layout, count, &mut bases);
            }
        }
    }
    let mounts: Vec<Vec<(String, String)>> = if req.mount_options.is_empty() {
        vec![Vec::new()]
    } else {
        req.mount_options
            .iter()
            .map(|o| vec![("mount-options".to_string(), o.clone())])
            .collect()
    };
    let zfs_sets = combinations(&req.zfs);
    let mut configs: Vec<Config> = Vec::new();
    for b in bases {
        let base_name = b.layout.name(b.devices.len());
        let full = match &b.each {
            Some(dev) => format!("{base_name}@{dev}"),
            None => base_name.clone(),
        };
        if let Some(reason) = b.layout.refusal(caps) {
            if !refusals.iter().any(|r| r.name == full) {
                refusals.push(Refusal { name: full, reason });
            }
            continue;
        }
        let sets = if b.layout.is_zfs() { &zfs_sets } else { &mounts };
        for props in sets {
            let mut name = full.clone();
            for (k, v) in props {
                name.push_str(&format!("/{k}={v}"));
            }
            let unsupported = match (b.layout, caps.zfs) {
                (Layout::Zfs(_), Some(imp)) => props.iter().find_map(|(k, v)| imp.refusal(k, v)),
                _ => None,
            };
            if let Some(reason) = unsupported {
                refusals.push(Refusal { name, reason });
                continue;
            }
            if configs.iter().any(|c| c.name == name) {
                continue;
            }
            let mut tags = vec![("layout".to_string(), base_name.clone())];
            if let Some(dev) = &b.each {
                tags.push(("device".into(), dev.clone()));
            }
            tags.extend(props.iter().cloned());
            configs.push(Config {
                name,
                layout: b.layout,
                devices: b.devices.clone(),
                properties: props.clone(),
                tags,
            });
        }
    }
    Ok(LayoutPlan { configs, refusals })
}

/// The share (percent) of a configuration's data capacity ([`Layout::data_capacity`])
/// that the test file leaves to the filesystem's own metadata when iolab sizes it: an
/// ext4 journal and reserved blocks, an XFS log, btrfs's metadata chunks, a ZFS pool's
/// labels and slop space. Free right after mkfs on 320 MiB members (`statvfs`, as iolab
/// checks it): ext4 84%, XFS 74.4%, btrfs 74.7%, btrfs raid1 of 2 87%, zfs-fuse single
/// and mirror 88%, RAID-Z1 of 3 93%, a btrfs raid0 of 3 88%.
pub const METADATA_MARGIN_PCT: u64 = 30;

impl Layout {
    /// What members of `sizes` bytes (one per device, in the order given) hold of data
    /// once laid out this way, before the filesystem's own metadata: the mirrors and
    /// parity taken out, every member counted at the smallest's size where the layout
    /// stripes or mirrors them evenly.
    pub fn data_capacity(self, sizes: &[u64]) -> u64 {
        let n = sizes.len() as u64;
        let least = sizes.iter().copied().min().unwrap_or(0);
        let sum: u64 = sizes.iter().sum();
        match self {
            Layout::Single(_) | Layout::Zfs(ZfsVdev::Single) => least,
            Layout::Zfs(ZfsVdev::Stripe) => sum,
            Layout::Zfs(ZfsVdev::Mirror) | Layout::Md(MdLevel::Raid1, _) => least,
            Layout::Zfs(ZfsVdev::Raidz(p)) => n.saturating_sub(u64::from(p)) * least,
            Layout::BtrfsRaid(BtrfsProfile::Raid0) => sum,
            // Two copies of every block on two different devices, counted in whole
            // pairs: btrfs's own estimate of the free space is that cautious (a raid1
            // of three 320 MiB members: `statvfs` offers 263 MiB, not 480).
            Layout::BtrfsRaid(BtrfsProfile::Raid1 | BtrfsProfile::Raid10) => n / 2 * least,
            Layout::Md(MdLevel::Raid0, _) | Layout::LvmStripe(_) => n * least,
            Layout::Md(MdLevel::Raid5, _) => n.saturating_sub(1) * least,
            Layout::Md(MdLevel::Raid6, _) => n.saturating_sub(2) * least,
        }
    }
}

/// The test file every configuration gets: the size asked for, or the default cut to
/// what the smallest configuration holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFileSize {
    pub bytes: u64,
    /// The configuration with the least room, its data capacity
    /// ([`Layout::data_capacity`]) and that room: the capacity less
    /// [`METADATA_MARGIN_PCT`], in whole MiB.
    pub smallest: String,
    pub data: u64,
    pub room: u64,
    /// The default, when it did not fit and `bytes` is the room instead.
    pub cut_from: Option<u64>,
}

impl TestFileSize {
    /// One line for the plan and the run's output.
    pub fn line(&self) -> String {
        use crate::base::units::fmt_bytes;
        match self.cut_from {
            Some(default) => format!(
                "test file: {} on each configuration, not the default {}, which {} would not hold ({} of data less {METADATA_MARGIN_PCT}% for its metadata)",
                fmt_bytes(self.bytes),
                fmt_bytes(default),
                self.smallest,
                fmt_bytes(self.data),
            ),
            None => format!(
                "test file: {} on each configuration (the smallest, {}, holds {})",
                fmt_bytes(self.bytes),
                self.smallest,
                fmt_bytes(self.room)
            ),
        }
    }
}

/// The test file's size for a plan whose devices are `size_of` bytes: `asked` (`--size`)
/// when every configuration holds it, else a refusal naming the one that does not; without
/// `asked`, `default` cut to the smallest configuration's room (its data capacity less
/// [`METADATA_MARGIN_PCT`], in whole MiB). `Ok(None)` when a device's size is unknown (a
/// dry run of paths that do not exist): nothing to size by.
pub fn test_file_size(
    plan: &LayoutPlan,
    size_of: impl Fn(&Path) -> Option<u64>,
    asked: Option<u64>,
    default: u64,
) -> Result<Option<TestFileSize>, String> {
    const MIB: u64 = 1 << 20;
    let mut smallest: Option<(u64, u64, &str)> = None;
    for c in &plan.configs {
        let Some(sizes) = c.devices.iter().map(|d| size_of(d)).collect::<Option<Vec<u64>>>() else {
            return Ok(None);
        };
        let data = c.layout.data_capacity(&sizes);
        let room = u128::from(data / MIB) * u128::from(100 - METADATA_MARGIN_PCT) / 100;
        let room = u64::try_from(room).unwrap_or(u64::MAX / MIB) * MIB;
        if smallest.is_none_or(|(r, ..)| room < r) {
            smallest = Some((room, data, &c.name));
        }
    }
    let Some((room, data, name)) = smallest else { return Ok(None) };
    let fmt = crate::base::units::fmt_bytes;
    if room == 0 {
        return Err(format!("layouts: {name} leaves no room for a test file on these devices"));
    }
    match asked {
        Some(s) if s > room => Err(format!(
            "layouts: --size {} does not fit {name}, which holds about {} once its metadata is made: give --size {} or less (nothing was built)",
            fmt(s),
            fmt(room),
            fmt(room)
        )),
        Some(s) => Ok(Some(TestFileSize {
            bytes: s,
            smallest: name.to_string(),
            data,
            room,
            cut_from: None,
        })),
        None => Ok(Some(TestFileSize {
            bytes: default.min(room),
            smallest: name.to_string(),
            data,
            room,
            cut_from: (room < default).then_some(default),
        })),
    }
}

/// What runs on each configuration, for the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Tests per configuration.
    pub tests: u32,
    /// The time one test takes (a time-bound test: at most).
    pub per_test: Duration,
}

impl Workload {
    /// Seed `002`'s three fsync-terminated sequential writes (8K, 64K,
    /// 128K) plus the default battery, each at most its warm-up (1 s, the
    /// `--warmup` default), `--runs auto`'s most windows and the rest after
    /// a test that writes. The sustained writes cover their whole span, so
    /// on a large or slow device they take longer than this.
    pub fn default_suite() -> Workload {
        use super::{AUTO_REST, Listed, Runs, SuiteName};
        let runs = Runs::default();
        let common = Listed::common();
        let tests = SuiteName::Sustained.jobs(&common).len() + SuiteName::Default.jobs(&common).len();
        Workload {
            tests: tests as u32,
            per_test: Duration::from_secs(1) + runs.default_duration() * runs.max() + AUTO_REST,
        }
    }
}

/// What building a configuration, emptying its caches between tests and
/// tearing it down cost, on top of its tests: mkfs or `zpool create`, the
/// wipes, and a pool export and import per test.
pub const BUILD_TEARDOWN: Duration = Duration::from_secs(30);

/// The time one configuration takes: `tests × per_test + BUILD_TEARDOWN`.
/// The one place this formula lives; [`estimate_total`] sums it.
pub fn estimate(w: Workload) -> Duration {
    w.per_test * w.tests + BUILD_TEARDOWN
}

/// The whole plan's time: [`estimate`] per configuration it builds.
pub fn estimate_total(plan: &LayoutPlan, w: Workload) -> Duration {
    estimate(w) * plan.configs.len() as u32
}

#[cfg(test)]
mod tests;
