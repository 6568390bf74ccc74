//! The result of `iolab verify`: what was written where, how fast each zone
//! went, and what every block read back as ([`crate::verify::VerifySummary`]).
//!
//! Also [`device_identity`]: the name under which a device's verify results
//! are found again (by `iolab capacity`, which never calls a device genuine
//! when an earlier verify found it lying).

use crate::judge::curve::{SpeedDrop, speed_drop};
use crate::targets::{Kind, TargetInfo};
use crate::verify::VerifySummary;
use serde::{Deserialize, Serialize};

/// How the verified bytes were laid out on the target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VerifyLayout {
    /// The block device itself, from offset 0.
    Device,
    /// Files in a directory made for the purpose (removed afterwards):
    /// logical offset `o` is byte `o % file_bytes` of file number
    /// `o / file_bytes` (named `NNNN.iolab-verify`, from 0).
    Files {
        /// The directory the files are in.
        dir: String,
        /// The size of each file.
        #[schemars(extend("x-unit" = "bytes"))]
        file_bytes: u64,
        /// Files written.
        #[schemars(extend("x-unit" = "count"))]
        files: u64,
    },
}

/// One zone of the verified range: the write and read rate there (the
/// curve f3 users draw by hand) and its bad bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyZone {
    /// Where the zone starts.
    #[schemars(extend("x-unit" = "bytes"))]
    pub offset: u64,
    /// The zone's size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes: u64,
    /// Bytes per second writing the zone, its flush included (`None`: not written, e.g. interrupted).
    #[schemars(extend("x-unit" = "B/s"))]
    pub write_bw_bytes: Option<f64>,
    /// Bytes per second reading it back (`None`: not read).
    #[schemars(extend("x-unit" = "B/s"))]
    pub read_bw_bytes: Option<f64>,
    /// Bytes of the zone that did not read back good.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bad_bytes: u64,
}

/// `iolab verify`, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VerifyReport {
    /// The pass id stamped into every block (random per run).
    #[schemars(extend("x-unit" = "nonce"))]
    pub pass: u64,
    /// Bytes per request.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bs: u64,
    /// The bytes planned: the device, or the free space minus the margin (or `--size`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub planned_bytes: u64,
    /// Bytes written (less than planned when the filesystem filled up early, or on a stop).
    #[schemars(extend("x-unit" = "bytes"))]
    pub written_bytes: u64,
    /// Where the blocks were written.
    pub layout: VerifyLayout,
    /// Reads bypassed the page cache (O_DIRECT); false: buffered, with the
    /// caches dropped before reading, and labelled so.
    pub direct: bool,
    /// Seconds waited between writing and reading (`--cold-wait`), if any.
    #[schemars(extend("x-unit" = "s"))]
    pub cold_wait_s: Option<f64>,
    /// Seconds writing, flushes included.
    #[schemars(extend("x-unit" = "s"))]
    pub write_s: f64,
    /// Seconds reading back.
    #[schemars(extend("x-unit" = "s"))]
    pub read_s: f64,
    /// Writes that failed (EIO), and where the first one was.
    #[schemars(extend("x-unit" = "count"))]
    pub write_errors: u64,
    /// Where the first write failed (offset).
    #[schemars(extend("x-unit" = "bytes"))]
    pub first_write_error: Option<u64>,
    /// Each zone's rates and bad bytes, in order: a region of 1% of the
    /// range by default (at least 4 MiB), so the zones draw the speed
    /// across the whole capacity.
    pub zones: Vec<VerifyZone>,
    /// Where the zones' write rate drops and stays down (a write cache
    /// filling up), by [`crate::judge::curve::speed_drop`]; `None`: it does
    /// not (or too few zones were written to tell).
    #[serde(default)]
    pub write_drop: Option<SpeedDrop>,
    /// The same for the read-back rate.
    #[serde(default)]
    pub read_drop: Option<SpeedDrop>,
    /// What every block read back as, and the verdict.
    pub summary: VerifySummary,
    /// The device under the target, as [`device_identity`] names it.
    pub device: Option<String>,
}

impl VerifyReport {
    /// Whether the device failed: anything but a clean verdict.
    pub fn failed(&self) -> bool {
        self.summary.verdict != crate::verify::Verdict::Clean
    }

    /// Judge the curve: [`VerifyReport::write_drop`] and
    /// [`VerifyReport::read_drop`] from the zones' rates.
    pub fn judge_curve(&mut self) {
        let along =
            |rate: fn(&VerifyZone) -> Option<f64>| -> Vec<(u64, Option<f64>)> { self.zones.iter().map(|z| (z.offset, rate(z))).collect() };
        self.write_drop = speed_drop(&along(|z| z.write_bw_bytes));
        self.read_drop = speed_drop(&along(|z| z.read_bw_bytes));
    }
}

/// The default number of zones (regions) for `planned` bytes: one per 1%
/// of the range, each at least [`MIN_REGION_BYTES`], at least one.
pub fn default_zones(planned: u64) -> u32 {
    (planned / MIN_REGION_BYTES).clamp(1, REGIONS as u64) as u32
}

/// The regions of a verify by default: 1% of the range each.
pub const REGIONS: u32 = 100;
/// The smallest region by default: a smaller one is timed over too few
/// requests (with its flush) to say its speed.
pub const MIN_REGION_BYTES: u64 = 4 << 20;

/// A stable name for the device under a target, so that results on it are
/// found again: its serial or WWID when the kernel knows one (the same
/// stick on another port or host), else its model and size, else (a loop
/// device) its backing file and size, else its node and size. A partition
/// or a filesystem names its whole disk: a lying stick lies whichever
/// partition was checked.
pub fn device_identity(t: &TargetInfo) -> Option<String> {
    let top = t.devices.first()?;
    let whole = top.partition_of.as_deref().unwrap_or(&top.name);
    let facts = t
        .info
        .as_ref()
        .and_then(|r| r.devices.iter().find(|f| f.name == whole || f.name == top.name));
    let whole_dev = t.devices.iter().find(|d| d.name == whole).unwrap_or(top);
    let size = whole_dev.size_bytes;
    if let Some(f) = facts {
        if let Some(s) = f.serial.as_deref().filter(|s| !s.trim().is_empty()) {
            return Some(format!("serial:{}", s.trim()));
        }
        if let Some(w) = f.wwid.as_deref().filter(|s| !s.trim().is_empty()) {
            return Some(format!("wwid:{}", w.trim()));
        }
    }
    if let Some(b) = &top.backing_file {
        return Some(format!("loop:{b}:{size}"));
    }
    let model = facts.and_then(|f| f.model.as_deref()).or(whole_dev.model.as_deref());
    if let Some(m) = model.filter(|m| !m.trim().is_empty()) {
        return Some(format!("model:{}:{size}", m.trim()));
    }
    let node = if t.kind == Kind::BlockDevice {
        t.path.clone()
    } else {
        format!("/dev/{whole}")
    };
    Some(format!("dev:{node}:{size}"))
}

/// The device under a target as people know it, where its
/// [`device_identity`] is no name they would recognise: a loop device as
/// `/dev/loop3 (backing /dev/shm/x.img)`, not `loop:/dev/shm/x.img:SIZE`
/// (that string stays the identity the store matches runs by).
pub fn device_name(t: &TargetInfo) -> Option<String> {
    let top = t.devices.first()?;
    let b = top.backing_file.as_deref()?;
    Some(format!("/dev/{} (backing {b})", top.name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::BlockDev;

    fn dev(name: &str, part_of: Option<&str>, backing: Option<&str>, model: Option<&str>) -> BlockDev {
        BlockDev {
            name: name.into(),
            major: 8,
            minor: 0,
            partition_of: part_of.map(Into::into),
            size_bytes: 1 << 30,
            logical_block_size: 512,
            rotational: None,
            model: model.map(Into::into),
            backing_file: backing.map(Into::into),
            memory: false,
        }
    }

    fn target(kind: Kind, devices: Vec<BlockDev>) -> TargetInfo {
        TargetInfo {
            path: "/dev/sdb".into(),
            kind,
            test_file: false,
            span_bytes: 1 << 30,
            direct: true,
            filesystem: None,
            devices,
            zfs_pool: None,
            members_of: None,
            info: None,
        }
    }

    #[test]
    fn a_loop_device_is_named_by_its_backing_file() {
        let t = target(Kind::BlockDevice, vec![dev("loop3", None, Some("/tmp/x.img"), None)]);
        assert_eq!(device_identity(&t).as_deref(), Some("loop:/tmp/x.img:1073741824"));
    }

    /// Issue 36: verify printed the identity, `loop:/tmp/x.img:1073741824`.
    #[test]
    fn a_loop_device_is_shown_by_its_node_and_backing_file() {
        let t = target(Kind::BlockDevice, vec![dev("loop3", None, Some("/tmp/x.img"), None)]);
        assert_eq!(device_name(&t).as_deref(), Some("/dev/loop3 (backing /tmp/x.img)"));
        let disk = target(Kind::BlockDevice, vec![dev("sdb", None, None, Some("Stick"))]);
        assert_eq!(device_name(&disk), None, "a disk is named by its identity");
    }

    #[test]
    fn a_partition_names_its_whole_disk() {
        let t = target(
            Kind::Directory,
            vec![dev("sdb1", Some("sdb"), None, None), dev("sdb", None, None, Some("Cruzer "))],
        );
        assert_eq!(device_identity(&t).as_deref(), Some("model:Cruzer:1073741824"));
        let bare = target(Kind::Directory, vec![dev("sdb1", Some("sdb"), None, None)]);
        assert_eq!(device_identity(&bare).as_deref(), Some("dev:/dev/sdb:1073741824"));
    }

    #[test]
    fn no_device_no_identity() {
        assert_eq!(device_identity(&target(Kind::Directory, vec![])), None);
    }
}
