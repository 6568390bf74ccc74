//! A block device's stable identity: what it is, not what it is called
//! today. `/dev/sdb` names whichever disk the kernel found second at the
//! last boot, and a loop device whichever file was attached to it last; a
//! run that writes down what it built on `/dev/sdb` must find that disk
//! again (or nothing), never the disk that took its name.
//!
//! The identity is read from sysfs (under a [`SysRoot`], so fixture trees
//! test it): the WWN (`wwid`), else the serial with the model and the size;
//! the `/dev/disk/by-id` name where there is one (for messages); for a loop
//! device its backing file's device and inode number. A partition is its
//! disk's identity plus its number and start. A device with none of these
//! (no WWN, serial or backing file: two identical serial-less sticks) has a
//! weak identity: it matches only at the same path, never elsewhere.

use super::SysRoot;
use super::sysfs::{self, Blk};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file behind a loop device: where it lives (`st_dev`) and its inode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backing {
    pub file: String,
    pub dev: u64,
    pub ino: u64,
}

/// What a block device is, as sysfs says it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The World Wide Name (`wwid`), when the device has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Bytes.
    pub size: u64,
    /// Its `/dev/disk/by-id` name, when udev made one (for messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_id: Option<String>,
    /// For a loop device: the file behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing: Option<Backing>,
    /// For a partition: its number and first sector on its disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<(u32, u64)>,
}

/// Where a recorded device is today.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Still at the path it was recorded at.
    Same,
    /// Found at another path (the disk was renamed, the loop device re-attached).
    Moved(String),
    /// Not found: what sits at the recorded path now, or that nothing does.
    Gone(String),
}

impl Identity {
    /// The identity of the block device at `path` (a `/dev/...` node or a
    /// link to one); `None` when it is not a block device sysfs knows.
    pub fn of(root: &SysRoot, path: &str) -> Option<Identity> {
        let dev = device_number(root, path)?;
        of_blk(root, &sysfs::by_dev(root, dev)?)
    }

    /// Whether it names the device strongly enough to find it under another
    /// name: a WWN, a serial, or a loop device's backing file.
    pub fn strong(&self) -> bool {
        self.wwn.is_some() || self.serial.is_some() || self.backing.is_some()
    }

    /// Whether `other` is this device. Strong identities compare their
    /// strongest key (the backing file and size, the WWN, or the serial with
    /// the model and size); weak ones compare whole (and are used only at
    /// the recorded path: see [`resolve`]).
    pub fn matches(&self, other: &Identity) -> bool {
        if self.partition != other.partition {
            return false;
        }
        if let Some(b) = &self.backing {
            return other.backing.as_ref().is_some_and(|o| (o.dev, o.ino) == (b.dev, b.ino)) && self.size == other.size;
        }
        if let Some(w) = &self.wwn {
            return other.wwn.as_ref() == Some(w);
        }
        if self.serial.is_some() {
            return self.serial == other.serial && self.model == other.model && self.size == other.size;
        }
        !other.strong() && self.model == other.model && self.size == other.size
    }

    /// In words, for messages: `WWN …`, `serial … (MODEL, SIZE)`, `loop
    /// over FILE (inode N)`, or `MODEL, SIZE`.
    pub fn describe(&self) -> String {
        let size = crate::base::units::fmt_bytes(self.size);
        let model = self.model.as_deref().unwrap_or("no model");
        let what = if let Some(b) = &self.backing {
            format!("loop over {} (inode {})", b.file, b.ino)
        } else if let Some(w) = &self.by_id {
            format!("{w} ({model}, {size})")
        } else if let Some(w) = &self.wwn {
            format!("WWN {w} ({size})")
        } else if let Some(s) = &self.serial {
            format!("serial {s} ({model}, {size})")
        } else {
            format!("{model}, {size}")
        };
        match self.partition {
            Some((n, _)) => format!("partition {n} of {what}"),
            None => what,
        }
    }
}

/// Where the device recorded as `recorded` at `path` is today: still
/// there, at another path (`/dev/NAME`; strong identities only), or gone,
/// with what now sits at `path`.
pub fn resolve(root: &SysRoot, recorded: &Identity, path: &str) -> Resolved {
    let here = Identity::of(root, path);
    if here.as_ref().is_some_and(|h| recorded.matches(h)) {
        return Resolved::Same;
    }
    if recorded.strong()
        && let Some(found) = find(root, recorded)
    {
        return Resolved::Moved(found);
    }
    Resolved::Gone(match here {
        Some(h) => format!("{path} is now {}, not {}", h.describe(), recorded.describe()),
        None => format!("{path} is gone, and {} is not attached", recorded.describe()),
    })
}

/// The `/dev/NAME` of the device whose identity matches `recorded`.
fn find(root: &SysRoot, recorded: &Identity) -> Option<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.0.join("sys/class/block"))
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().find_map(|n| {
        let b = sysfs::by_name(root, &n)?;
        of_blk(root, &b).filter(|id| recorded.matches(id)).map(|_| format!("/dev/{n}"))
    })
}

fn of_blk(root: &SysRoot, b: &Blk) -> Option<Identity> {
    let disk = b.disk().unwrap_or_else(|| b.clone());
    let facts = super::facts::device_facts(root, &disk);
    let backing = disk.attr("loop/backing_file").and_then(|file| {
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::metadata(root.0.join(file.trim_start_matches('/'))).ok()?;
        Some(Backing {
            file,
            dev: md.dev(),
            ino: md.ino(),
        })
    });
    let partition = b.is_partition().then(|| {
        let n = b.attr("partition").and_then(|v| v.parse().ok()).unwrap_or(0);
        let start = b.attr("start").and_then(|v| v.parse().ok()).unwrap_or(0);
        (n, start)
    });
    Some(Identity {
        wwn: facts.wwid.filter(|w| !w.trim().is_empty()).map(|w| w.trim().to_string()),
        serial: facts.serial.filter(|s| !s.trim().is_empty()).map(|s| s.trim().to_string()),
        model: facts.model.map(|m| m.trim().to_string()).filter(|m| !m.is_empty()),
        size: b.size_bytes(),
        by_id: by_id(root, &b.name),
        backing,
        partition,
    })
}

/// The first `/dev/disk/by-id` name (sorted) that leads to kernel name `name`.
fn by_id(root: &SysRoot, name: &str) -> Option<String> {
    let dir = root.0.join("dev/disk/by-id");
    let mut links: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path())
                .ok()
                .and_then(|t| t.file_name().map(|f| f == name))
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    links.sort();
    links.into_iter().next()
}

/// The device number of the block device `path` names: its node's (on the
/// live system), else, in a fixture root whose `/dev` holds plain files,
/// the device its name stands for in the root's sysfs.
fn device_number(root: &SysRoot, path: &str) -> Option<(u32, u32)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let under = root.0.join(path.trim_start_matches('/'));
    if let Ok(md) = std::fs::metadata(&under)
        && md.file_type().is_block_device()
    {
        return Some((rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev())));
    }
    (root.0 != Path::new("/"))
        .then(|| super::block_device_by_path(root, path))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::fixtures::{Fx, machine};

    #[test]
    fn a_sata_disk_is_its_wwn_and_a_usb_stick_its_serial() {
        let fx = machine();
        let root = fx.root();
        let sda = Identity::of(&root, "/dev/sda").unwrap();
        assert!(sda.wwn.as_deref().unwrap().contains("WD-WCC7K1234567"), "{sda:?}");
        assert!(sda.strong());
        let part = Identity::of(&root, "/dev/sda1").unwrap();
        assert_eq!(part.partition.map(|p| p.0), Some(1));
        assert!(!part.matches(&sda) && !sda.matches(&part), "a partition is not its disk");
        let stick = Identity::of(&root, "/dev/sdc").unwrap();
        assert_eq!(stick.serial.as_deref(), Some("000000000000A1B2"), "{stick:?}");
        assert!(!stick.matches(&sda));
        assert_eq!(resolve(&root, &sda, "/dev/sda"), Resolved::Same);
        assert_eq!(Identity::of(&root, "/dev/nope"), None);
    }

    /// Two disks named the other way round after a reboot: each is found at
    /// its new name, and what sits at the old one is named.
    #[test]
    fn a_disk_that_took_another_name_is_found_there() {
        let fx = Fx::new();
        let disk = |name: &str, dev: (u32, u32), wwid: &str| {
            let p = format!(
                "sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:{}/block/{name}",
                dev.1
            );
            fx.disk(&p, dev, 1 << 21, &[]);
            let sdev = p.rsplit_once("/block/").unwrap().0.to_string();
            fx.file(&format!("{sdev}/model"), "SSD 1\n");
            fx.file(&format!("{sdev}/wwid"), &format!("{wwid}\n"));
            fx.file(&format!("dev/{name}"), "");
        };
        disk("sdb", (8, 16), "naa.5000000000000002");
        disk("sdc", (8, 32), "naa.5000000000000001");
        let root = fx.root();
        let mut recorded = Identity::of(&root, "/dev/sdc").unwrap();
        // Recorded when the first disk was sdb.
        recorded.wwn = Some("naa.5000000000000002".into());
        assert_eq!(resolve(&root, &recorded, "/dev/sdc"), Resolved::Moved("/dev/sdb".into()));
        recorded.wwn = Some("naa.5000000000000009".into());
        let Resolved::Gone(why) = resolve(&root, &recorded, "/dev/sdc") else {
            panic!("found a disk that is not there")
        };
        assert!(why.contains("/dev/sdc is now WWN naa.5000000000000001"), "{why}");
    }

    #[test]
    fn a_loop_device_is_its_backing_file_and_a_weak_identity_matches_only_in_place() {
        let fx = Fx::new();
        for (name, minor, file) in [("loop0", 0, "a.img"), ("loop1", 1, "b.img")] {
            let p = format!("sys/devices/virtual/block/{name}");
            fx.disk(&p, (7, minor), 2048, &[]);
            fx.file(&format!("{p}/loop/backing_file"), &format!("/images/{file}\n"));
            fx.file(&format!("images/{file}"), "x");
            fx.file(&format!("dev/{name}"), "");
        }
        let root = fx.root();
        let a = Identity::of(&root, "/dev/loop0").unwrap();
        let b = Identity::of(&root, "/dev/loop1").unwrap();
        assert!(a.backing.is_some() && !a.matches(&b));
        assert_eq!(resolve(&root, &b, "/dev/loop0"), Resolved::Moved("/dev/loop1".into()));
        // Model and size only: the same path or nothing.
        let weak = Identity {
            model: Some("Stick".into()),
            size: 1 << 20,
            ..Identity::default()
        };
        assert!(!weak.strong() && weak.matches(&weak.clone()));
        assert!(!weak.matches(&a), "a weak identity never matches a strong one");
        assert!(matches!(resolve(&root, &weak, "/dev/loop0"), Resolved::Gone(_)));
    }

    #[test]
    fn an_older_journals_identity_reads_with_defaults() {
        let id: Identity = serde_json::from_str(r#"{"size": 512}"#).unwrap();
        assert_eq!(id.size, 512);
        assert!(!id.strong());
    }
}
