//! The exact commands that build a configuration and tear it down, as
//! argument lists (nothing here runs them).
//!
//! Teardown undoes the build in reverse and then wipes every device iolab
//! wrote on: `wipefs -a` erases the signatures libblkid finds. A ZFS
//! device needs more: ZFS keeps four copies of its label, two in the first
//! 512 KiB and two in the last 512 KiB below the device's size rounded down
//! to 256 KiB (the label size), and `wipefs -a` erases only the magic at
//! the offsets libblkid reports, which can leave labels that `zpool import`
//! still finds. So iolab itself writes zeros over both ends
//! ([`Step::Zero`]): it knows the device's size when it runs, which a pure
//! plan does not, and it needs no `zpool labelclear` (zfs-fuse has none).

use super::{Config, Fs, Layout, MdLevel, ZfsVdev};
use std::path::{Path, PathBuf};

/// Bytes of ZFS labels at each end of a device: two labels of 256 KiB.
pub const ZFS_LABELS_AT_EACH_END: u64 = 512 << 10;
/// A ZFS label's size; the end labels sit below the size rounded down to it.
pub const ZFS_LABEL_ALIGN: u64 = 256 << 10;

/// Where zeros are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The first [`ZFS_LABELS_AT_EACH_END`] bytes.
    Start,
    /// From [`ZFS_LABELS_AT_EACH_END`] below the size rounded down to
    /// [`ZFS_LABEL_ALIGN`] to the device's end (at most 768 KiB).
    End,
}

/// One step of a build or a teardown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A program and its arguments.
    Run(Vec<String>),
    /// A mount point iolab makes (and [`Step::RemoveDir`] removes).
    MakeDir(PathBuf),
    RemoveDir(PathBuf),
    /// iolab writes zeros there itself (O_DIRECT, then fdatasync).
    Zero {
        device: PathBuf,
        region: Region,
    },
}

impl Step {
    /// As a shell line (for `--dry-run`); the iolab steps in words.
    pub fn line(&self) -> String {
        match self {
            Step::Run(argv) => argv.join(" "),
            Step::MakeDir(d) => format!("mkdir -p {}", d.display()),
            Step::RemoveDir(d) => format!("rmdir {}", d.display()),
            Step::Zero {
                device,
                region: Region::Start,
            } => {
                format!("(iolab) zero the first 512 KiB of {} (ZFS labels 0 and 1)", device.display())
            }
            Step::Zero {
                device,
                region: Region::End,
            } => format!(
                "(iolab) zero the last 512 KiB of {} below its size rounded down to 256 KiB, to its end (ZFS labels 2 and 3)",
                device.display()
            ),
        }
    }
}

/// The names one run gives what it builds: unique per run, so nothing of
/// another run (or of the user) is ever taken for iolab's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunNames {
    /// The run's id (letters and digits).
    pub id: String,
    /// The run's directory; each configuration is mounted in a directory under it.
    pub root: PathBuf,
}

/// Where a run's mount points go: `RUN_DIR/layouts-ID/`.
pub const RUN_DIR: &str = "/run/iolab";

impl RunNames {
    /// The names of run `id` (letters and digits), mounted under [`RUN_DIR`].
    pub fn under_run(id: &str) -> RunNames {
        RunNames {
            id: id.to_string(),
            root: Path::new(RUN_DIR).join(format!("layouts-{id}")),
        }
    }
    /// The label iolab writes on every filesystem the run makes: `iolab-`
    /// and 6 hex digits of a hash of the run's id (12 characters, XFS's
    /// limit). The teardown wipes a device only while it carries it.
    pub fn label(&self) -> String {
        let h = self
            .id
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        format!("iolab-{:06x}", h & 0xff_ffff)
    }

    /// The pool, array or volume group of configuration `index` (from 1):
    /// `iolab-ID-N`.
    pub fn object(&self, index: usize) -> String {
        format!("iolab-{}-{index}", self.id)
    }
    /// The UUID iolab gives member `member` (from 0) of configuration
    /// `index`'s LVM physical volumes (`pvcreate --uuid`), so that the
    /// teardown's `pvremove` proves the volume is the run's before it runs:
    /// 32 letters and digits from a hash of the run's id, the configuration
    /// and the member, grouped 6-4-4-4-4-4-6 as LVM prints them.
    pub fn pv_uuid(&self, index: usize, member: usize) -> String {
        const CHARS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let seed = format!("{}/{index}/{member}", self.id);
        let mut h = seed
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        let mut chars = Vec::with_capacity(38);
        for i in 0..32 {
            if [6, 10, 14, 18, 22, 26].contains(&i) {
                chars.push(b'-');
            }
            // splitmix64's step: every character from fresh bits.
            h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = h;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chars.push(CHARS[(z % CHARS.len() as u64) as usize]);
        }
        String::from_utf8(chars).expect("ASCII")
    }

    /// Where configuration `index` is mounted: `ROOT/N-LAYOUT`.
    pub fn mount_dir(&self, index: usize, c: &Config) -> PathBuf {
        self.root.join(format!("{index:02}-{}", file_slug(&c.name)))
    }
}

/// A configuration's name as a file name holds it: a swept one carries `/`
/// and `=` (`zfs/recordsize=8K`), so every character other than an ASCII
/// letter, digit, `-` or `.` becomes `_` (`zfs_recordsize_8K`). Mount
/// directories and journals are named with it.
pub fn file_slug(name: &str) -> String {
    name.chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '.' {
                ch
            } else {
                '_'
            }
        })
        .collect()
}

/// The build and the teardown of one configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commands {
    pub build: Vec<Step>,
    /// Run in full after every build, also a failed or interrupted one
    /// (each step may then find nothing to undo).
    pub teardown: Vec<Step>,
}

fn run<S: AsRef<str>>(args: impl IntoIterator<Item = S>) -> Step {
    Step::Run(args.into_iter().map(|s| s.as_ref().to_string()).collect())
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// `mkfs` of `fs` on `dev`, forced (the device was checked) and quiet. ext4
/// initialises its inode tables and journal now, not in the background
/// after mounting, where they would write during the tests.
fn mkfs(fs: Fs, label: &str, devs: &[String], extra: &[&str]) -> Step {
    let mut a: Vec<String> = vec![fs.mkfs().into(), "-L".into(), label.into()];
    match fs {
        Fs::Ext4 => a.extend(["-F", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0"].map(String::from)),
        Fs::Xfs => a.extend(["-f", "-q"].map(String::from)),
        Fs::Btrfs => a.extend(["-f", "-q"].map(String::from)),
    }
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend(devs.iter().cloned());
    Step::Run(a)
}

/// `mount [-o OPTIONS] DEV DIR`, with the configuration's `mount-options`.
fn mount(c: &Config, dev: &str, dir: &Path, extra: &[String]) -> Step {
    let mut opts: Vec<String> = extra.to_vec();
    opts.extend(c.properties.iter().filter(|(k, _)| k == "mount-options").map(|(_, v)| v.clone()));
    let mut a = vec!["mount".to_string()];
    if !opts.is_empty() {
        a.extend(["-o".to_string(), opts.join(",")]);
    }
    a.extend([dev.to_string(), path(dir)]);
    Step::Run(a)
}

fn wipe(devs: &[String]) -> Vec<Step> {
    devs.iter().map(|d| run(["wipefs", "-a", d])).collect()
}

/// The commands of configuration `index` (from 1) of a plan.
pub fn commands(c: &Config, index: usize, names: &RunNames) -> Commands {
    let devs: Vec<String> = c.devices.iter().map(|d| path(d)).collect();
    let dir = names.mount_dir(index, c);
    let object = names.object(index);
    let label = names.label();
    let mut build = vec![Step::MakeDir(dir.clone())];
    let mut teardown = Vec::new();
    match c.layout {
        Layout::Single(fs) => {
            build.push(mkfs(fs, &label, &devs, &[]));
            build.push(mount(c, &devs[0], &dir, &[]));
            teardown.push(run(["umount", &path(&dir)]));
            if fs == Fs::Btrfs {
                teardown.push(run(["btrfs", "device", "scan", "--forget", &devs[0]]));
            }
            teardown.extend(wipe(&devs));
        }
        Layout::BtrfsRaid(p) => {
            build.push(mkfs(Fs::Btrfs, &label, &devs, &["-d", p.name(), "-m", p.name()]));
            let members: Vec<String> = devs.iter().map(|d| format!("device={d}")).collect();
            build.push(mount(c, &devs[0], &dir, &members));
            teardown.push(run(["umount", &path(&dir)]));
            for d in &devs {
                teardown.push(run(["btrfs", "device", "scan", "--forget", d]));
            }
            teardown.extend(wipe(&devs));
        }
        Layout::Zfs(vdev) => {
            let mut a: Vec<String> = ["zpool", "create", "-f", "-o", "cachefile=none", "-m"].map(String::from).to_vec();
            a.push(path(&dir));
            if !c.properties.iter().any(|(k, _)| k == "atime") {
                a.extend(["-O".into(), "atime=off".into()]);
            }
            for (k, v) in &c.properties {
                a.extend(["-O".into(), format!("{k}={v}")]);
            }
            a.push(object.clone());
            match vdev {
                ZfsVdev::Single | ZfsVdev::Stripe => {}
                ZfsVdev::Mirror => a.push("mirror".into()),
                ZfsVdev::Raidz(p) => a.push(format!("raidz{p}")),
            }
            a.extend(devs.iter().cloned());
            build.push(Step::Run(a));
            teardown.push(run(["zpool", "destroy", "-f", &object]));
            teardown.extend(wipe(&devs));
            for d in &c.devices {
                teardown.push(Step::Zero {
                    device: d.clone(),
                    region: Region::Start,
                });
                teardown.push(Step::Zero {
                    device: d.clone(),
                    region: Region::End,
                });
            }
        }
        Layout::Md(level, fs) => {
            let md = format!("/dev/md/{object}");
            let mut a: Vec<String> = vec!["mdadm".into(), "--create".into(), md.clone(), "--run".into()];
            a.push(format!("--level={}", level.number()));
            a.push(format!("--raid-devices={}", devs.len()));
            a.push("--metadata=1.2".into());
            // No initial resync: it would read and write the members during the tests.
            if level != MdLevel::Raid0 {
                a.push("--assume-clean".into());
            }
            a.extend(devs.iter().cloned());
            build.push(Step::Run(a));
            build.push(mkfs(fs, &label, std::slice::from_ref(&md), &[]));
            build.push(mount(c, &md, &dir, &[]));
            teardown.push(run(["umount", &path(&dir)]));
            teardown.push(run(["wipefs", "-a", &md]));
            teardown.push(run(["mdadm", "--stop", &md]));
            // One member at a time: each is checked to be the array's before it is zeroed.
            for d in &devs {
                teardown.push(run(["mdadm", "--zero-superblock", d]));
            }
            teardown.extend(wipe(&devs));
        }
        Layout::LvmStripe(fs) => {
            let lv = format!("/dev/{object}/lv");
            // Each physical volume with a UUID of the run's, which its `pvremove` checks.
            for (m, d) in devs.iter().enumerate() {
                let uuid = names.pv_uuid(index, m);
                build.push(run(["lvm", "pvcreate", "-ff", "-y", "--norestorefile", "--uuid", &uuid, d]));
            }
            let mut vg: Vec<String> = vec!["lvm".into(), "vgcreate".into(), object.clone()];
            vg.extend(devs.iter().cloned());
            build.push(Step::Run(vg));
            let stripes = devs.len().to_string();
            build.push(run([
                "lvm", "lvcreate", "-y", "-n", "lv", "-i", &stripes, "-I", "64k", "-l", "100%FREE", &object,
            ]));
            build.push(mkfs(fs, &label, std::slice::from_ref(&lv), &[]));
            build.push(mount(c, &lv, &dir, &[]));
            teardown.push(run(["umount", &path(&dir)]));
            teardown.push(run(["wipefs", "-a", &lv]));
            teardown.push(run(["lvm", "vgremove", "-f", &object]));
            for d in &devs {
                teardown.push(run(["lvm", "pvremove", "-ff", "-y", d]));
            }
            teardown.extend(wipe(&devs));
        }
    }
    teardown.push(Step::RemoveDir(dir));
    Commands { build, teardown }
}
