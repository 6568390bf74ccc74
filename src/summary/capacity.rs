//! The result of `iolab capacity`: the probe's report, the verdict on the
//! device, what it cost (bytes written and read, seconds), and what
//! happened to the data it overwrote (the backup and its restore).

pub use crate::judge::capacity::{CapacityVerdict, ChangedBlock, Confirmation, Damage, EarlierVerify};
use crate::verify::ProbeReport;
use serde::{Deserialize, Serialize};

/// `iolab capacity`, as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CapacityReport {
    /// The device, as [`device_identity`](super::verify::device_identity) names it.
    pub device: Option<String>,
    /// The size the device announces, in bytes.
    #[schemars(extend("x-unit" = "bytes"))]
    pub announced_bytes: u64,
    /// The precision asked for (`--granularity`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub granularity: u64,
    /// The pass id stamped into every block (random per probe).
    #[schemars(extend("x-unit" = "nonce"))]
    pub pass: u64,
    /// Reads bypassed the caches with O_DIRECT; false: buffered, with the
    /// device's page cache dropped (BLKFLSBUF, fadvise) between writing and
    /// reading, and labelled so.
    pub direct: bool,
    /// `--allow-destroy`: the overwritten blocks were not saved nor restored.
    pub destructive: bool,
    /// The probe's own report (`None`: stopped before it finished).
    pub probe: Option<ProbeReport>,
    /// The re-read of the boundary after the probe.
    pub confirmation: Option<Confirmation>,
    /// The verdict (`None`: stopped before there was one).
    pub verdict: Option<CapacityVerdict>,
    /// One sentence for the user.
    pub message: String,
    /// Reads and writes that failed, and the first of each.
    #[schemars(extend("x-unit" = "count"))]
    pub read_errors: u64,
    /// Where the first read failed (offset).
    #[schemars(extend("x-unit" = "bytes"))]
    pub first_read_error: Option<u64>,
    /// Writes that failed.
    #[schemars(extend("x-unit" = "count"))]
    pub write_errors: u64,
    /// Where the first write failed (offset).
    #[schemars(extend("x-unit" = "bytes"))]
    pub first_write_error: Option<u64>,
    /// Bytes written by the probe and its confirmation.
    #[schemars(extend("x-unit" = "bytes"))]
    pub probe_bytes_written: u64,
    /// Bytes written back by the restore.
    #[schemars(extend("x-unit" = "bytes"))]
    pub restore_bytes_written: u64,
    /// Every byte written: the probe's and the restore's.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes_written: u64,
    /// Every byte read: the saves, the probe's reads, the confirmation, the restore's read-back.
    #[schemars(extend("x-unit" = "bytes"))]
    pub bytes_read: u64,
    /// Seconds from the first save to the verdict (saves and confirmation included).
    #[schemars(extend("x-unit" = "s"))]
    pub probe_s: f64,
    /// Seconds writing the saved blocks back and reading them again.
    #[schemars(extend("x-unit" = "s"))]
    pub restore_s: f64,
    /// What was saved and restored (`None` with `--allow-destroy`).
    pub backup: Option<BackupFacts>,
    /// An earlier verify of this device that was not clean: a capacity run
    /// never calls such a device genuine.
    pub earlier_verify: Option<EarlierVerify>,
}

/// The save-and-restore of a probe without `--allow-destroy`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BackupFacts {
    /// The backup file, written and flushed before each round's writes.
    pub path: String,
    /// Blocks saved (each before the round that overwrote it).
    #[schemars(extend("x-unit" = "count"))]
    pub blocks: u64,
    /// Blocks that could not be read to be saved (read errors: nothing to restore).
    #[schemars(extend("x-unit" = "count"))]
    pub unreadable: u64,
    /// Blocks written back.
    #[schemars(extend("x-unit" = "count"))]
    pub restored: u64,
    /// Blocks written back whose write failed.
    #[schemars(extend("x-unit" = "count"))]
    pub restore_write_errors: u64,
    /// Blocks that read back as the restore expected.
    #[schemars(extend("x-unit" = "count"))]
    pub verified: u64,
    /// Blocks that did not, at or beyond the first bad byte: a fake keeps nothing there.
    #[schemars(extend("x-unit" = "count"))]
    pub differing_beyond: u64,
    /// Blocks that did not, below it: the restore failed there.
    #[schemars(extend("x-unit" = "count"))]
    pub differing: u64,
    /// The backup file was kept (the restore did not finish or did not verify):
    /// `iolab capacity --restore PATH` writes it back.
    pub kept: bool,
}

impl CapacityReport {
    /// The check failed: fake, damaged or suspect.
    pub fn failed(&self) -> bool {
        self.verdict.as_ref().is_some_and(CapacityVerdict::failed)
    }

    /// The real size (the announced one when genuine), when there is a verdict that knows it.
    pub fn real_bytes(&self) -> Option<u64> {
        match self.verdict.as_ref()? {
            CapacityVerdict::Genuine | CapacityVerdict::Suspect { .. } => Some(self.announced_bytes),
            CapacityVerdict::Fake { real_bytes, .. } => Some(*real_bytes),
            CapacityVerdict::Damaged { .. } => None,
        }
    }
}
