//! `iolab capacity`'s verdict: the probe's answer ([`ProbeReport`]) weighed
//! against everything else the run saw — read and write errors, a
//! confirmation that reads the boundary again, the restore's read-back, and
//! an earlier `iolab verify` of the same device.
//!
//! The rules, first match wins ([`judge`]):
//!
//! 1. **Unstable** (damaged): a block read twice with nothing written in
//!    between gave two answers, or a block below the boundary written
//!    afresh did not read back as itself. The probe's conclusions rest on
//!    every answer being repeatable; without that no size can be trusted.
//! 2. **Restore mismatch** (damaged): a block below the boundary did not
//!    read back what the restore wrote there.
//! 3. **Read or write errors below the boundary** (damaged): the part the
//!    device really keeps fails. (Errors at or beyond the first bad byte
//!    are how some fakes answer for storage they do not have.)
//! 4. **A bad region with good blocks above it** (damaged): the probe found
//!    blocks that lost their data but no aliasing, and blocks above them
//!    read back as written. A fake that loses writes loses them to its end;
//!    a device that keeps data above a failing range is damaged there, not
//!    smaller. (With aliasing, good blocks above the boundary are expected:
//!    a wrapped block reads back as itself until its alias is written.)
//! 5. **Fake**, with the real size, the first bad byte and the safe
//!    partition size ([`safe_partition_bytes`]).
//! 6. **Suspect**: the probe found nothing, but an earlier verify of the
//!    same device did ([`EarlierVerify`]). A probe writes a few thousand
//!    blocks; a full pass that saw the device lie outweighs it. Never
//!    genuine then.
//! 7. **Genuine**.

use crate::base::thresholds::PARTITION_ALIGN;
use crate::base::units::fmt_bytes;
use crate::verify::{Class, ProbeReport, ProbeVerdict};
use serde::{Deserialize, Serialize};

/// What the probe, then the whole run, concluded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CapacityVerdict {
    /// Every probed block read back as itself, and nothing else says otherwise.
    Genuine,
    /// The device stores less than it announces.
    Fake {
        /// Every test below this read back as itself.
        #[schemars(extend("x-unit" = "bytes"))]
        real_bytes: u64,
        /// The lowest offset found bad: the real size lies in `[real_bytes, first_bad_byte]`.
        #[schemars(extend("x-unit" = "bytes"))]
        first_bad_byte: u64,
        /// A partition of at most this size, starting at 1 MiB, stays within the real size.
        #[schemars(extend("x-unit" = "bytes"))]
        safe_partition_bytes: u64,
        /// The period of the wrap, when blocks came back aliased (`None`: lost).
        #[schemars(extend("x-unit" = "bytes"))]
        alias_distance: Option<u64>,
    },
    /// The device's answers cannot be trusted: errors or instability below
    /// the boundary, or a bad region with good blocks above it.
    Damaged {
        /// What was wrong.
        damage: Damage,
    },
    /// The probe found nothing, but an earlier verify of this device did.
    Suspect {
        /// The stored verify run that found the device lying.
        #[schemars(extend("x-unit" = "id"))]
        verify_run: i64,
    },
}

impl CapacityVerdict {
    /// Short name for tables: genuine, FAKE, DAMAGED, SUSPECT.
    pub fn name(&self) -> &'static str {
        match self {
            CapacityVerdict::Genuine => "genuine",
            CapacityVerdict::Fake { .. } => "FAKE",
            CapacityVerdict::Damaged { .. } => "DAMAGED",
            CapacityVerdict::Suspect { .. } => "SUSPECT",
        }
    }

    /// Anything but genuine: the check failed (exit status 3).
    pub fn failed(&self) -> bool {
        *self != CapacityVerdict::Genuine
    }
}

/// Why a device is called damaged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Damage {
    /// `blocks` answered differently on confirmation, the first at `first`.
    Unstable {
        /// Blocks concerned.
        #[schemars(extend("x-unit" = "count"))]
        blocks: u64,
        /// Where the first one is (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        first: u64,
    },
    /// `blocks` below the boundary did not read back what the restore wrote.
    RestoreMismatch {
        /// Blocks concerned.
        #[schemars(extend("x-unit" = "count"))]
        blocks: u64,
        /// Where the first one is (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        first: u64,
    },
    /// Reads failed below the boundary.
    ReadErrors {
        /// I/Os that failed.
        #[schemars(extend("x-unit" = "count"))]
        count: u64,
        /// Where the first failure was (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        first: u64,
    },
    /// Writes failed below the boundary.
    WriteErrors {
        /// I/Os that failed.
        #[schemars(extend("x-unit" = "count"))]
        count: u64,
        /// Where the first failure was (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        first: u64,
    },
    /// Blocks from `from` on lost their data, yet the block at `good_at` above them kept its own.
    BadRegion {
        /// Where the bad region starts (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        from: u64,
        /// The block above it that kept its own data (offset).
        #[schemars(extend("x-unit" = "bytes"))]
        good_at: u64,
    },
}

/// A block read again during the confirmation that answered differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChangedBlock {
    /// Where the block is.
    #[schemars(extend("x-unit" = "bytes"))]
    pub offset: u64,
    /// What it read back as the first time.
    pub before: Class,
    /// What it read back as the second time.
    pub after: Class,
}

/// The confirmation after the probe: the last round's blocks read again
/// (nothing written in between, so a stable device answers the same), and
/// blocks below the boundary written afresh one at a time and read back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    /// Blocks read a second time.
    #[schemars(extend("x-unit" = "count"))]
    pub reread_blocks: u64,
    /// Those that answered differently.
    pub changed: Vec<ChangedBlock>,
    /// Blocks below the boundary written afresh and read back: (offset, what came back).
    #[schemars(extend("x-unit" = "bytes"))]
    pub fresh: Vec<(u64, Class)>,
}

impl Confirmation {
    /// Blocks that answered differently, or did not read back as written.
    pub fn unstable(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.changed.iter().map(|c| c.offset).collect();
        v.extend(self.fresh.iter().filter(|(_, c)| *c != Class::Good).map(|(o, _)| *o));
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// An earlier `iolab verify` of the same device (same
/// [`device_identity`](crate::summary::verify::device_identity)) that did
/// not end clean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EarlierVerify {
    /// The stored verify run.
    #[schemars(extend("x-unit" = "id"))]
    pub run_id: i64,
    /// When it ran (RFC 3339, UTC).
    pub started_at: String,
    /// The device identity both runs share.
    pub device: String,
    /// The verify's verdict, and its sentence.
    pub verdict: crate::verify::Verdict,
    /// The verify's sentence.
    pub message: String,
}

/// Everything the verdict weighs.
#[derive(Clone, Copy, Debug)]
pub struct CapacityFacts<'a> {
    pub probe: &'a ProbeReport,
    /// Offsets whose reads failed (the probe's, the saves', the confirmation's).
    pub read_errors: &'a [u64],
    /// Offsets whose writes failed.
    pub write_errors: &'a [u64],
    /// Offsets that read back as themselves in the round that wrote them.
    pub good_reads: &'a [u64],
    pub confirmation: Option<&'a Confirmation>,
    /// Offsets the restore wrote that did not read back as written (all of
    /// them; those at or beyond the first bad byte are expected on a fake).
    pub restore_mismatches: &'a [u64],
    /// The most recent earlier verify of this device that was not clean.
    pub earlier: Option<&'a EarlierVerify>,
}

/// The verdict and its sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct CapacityJudgement {
    pub verdict: CapacityVerdict,
    pub message: String,
}

/// The largest partition that is safe on a device keeping `real_bytes`:
/// rounded down to [`PARTITION_ALIGN`], less one unit for the partition
/// table in front (the first partition starts at 1 MiB). 0 when nothing
/// whole fits.
pub fn safe_partition_bytes(real_bytes: u64) -> u64 {
    (real_bytes / PARTITION_ALIGN * PARTITION_ALIGN).saturating_sub(PARTITION_ALIGN)
}

/// The offsets of `v` below `limit`: (count, first).
fn below(v: &[u64], limit: u64) -> Option<(u64, u64)> {
    let n = v.iter().filter(|&&o| o < limit).count() as u64;
    v.iter().copied().filter(|&o| o < limit).min().map(|first| (n, first))
}

/// The verdict of a capacity run (see the module documentation for the rules).
pub fn judge(f: &CapacityFacts) -> CapacityJudgement {
    let p = f.probe;
    // The boundary: what the device keeps for sure, and the first bad byte.
    let (boundary, first_bad, alias) = match p.verdict {
        ProbeVerdict::Genuine => (p.announced, None, None),
        ProbeVerdict::Fake {
            real_bytes,
            bad_from,
            alias_distance,
        } => (real_bytes, Some(bad_from), alias_distance),
    };
    let damaged = |damage: Damage| {
        let message = damage_message(&damage, p, f.earlier);
        CapacityJudgement {
            verdict: CapacityVerdict::Damaged { damage },
            message,
        }
    };
    if let Some(c) = f.confirmation {
        let u = c.unstable();
        if let Some(&first) = u.first() {
            return damaged(Damage::Unstable {
                blocks: u.len() as u64,
                first,
            });
        }
    }
    if let Some((blocks, first)) = below(f.restore_mismatches, boundary) {
        return damaged(Damage::RestoreMismatch { blocks, first });
    }
    if let Some((count, first)) = below(f.read_errors, boundary) {
        return damaged(Damage::ReadErrors { count, first });
    }
    if let Some((count, first)) = below(f.write_errors, boundary) {
        return damaged(Damage::WriteErrors { count, first });
    }
    if let Some(from) = first_bad
        && alias.is_none()
        && let Some(good_at) = f.good_reads.iter().copied().filter(|&o| o > from).min()
    {
        return damaged(Damage::BadRegion { from, good_at });
    }
    let mut verdict = match p.verdict {
        ProbeVerdict::Genuine => CapacityVerdict::Genuine,
        ProbeVerdict::Fake {
            real_bytes,
            bad_from,
            alias_distance,
        } => CapacityVerdict::Fake {
            real_bytes,
            first_bad_byte: bad_from,
            safe_partition_bytes: safe_partition_bytes(real_bytes),
            alias_distance,
        },
    };
    if verdict == CapacityVerdict::Genuine
        && let Some(e) = f.earlier
    {
        verdict = CapacityVerdict::Suspect { verify_run: e.run_id };
    }
    let message = verdict_message(&verdict, p, f.earlier);
    CapacityJudgement { verdict, message }
}

/// "1.00 GiB (1073741824)": a size for people, and the exact byte.
fn exact(b: u64) -> String {
    format!("{} ({b} bytes)", fmt_bytes(b))
}

fn verdict_message(v: &CapacityVerdict, p: &ProbeReport, earlier: Option<&EarlierVerify>) -> String {
    match v {
        CapacityVerdict::Genuine => format!(
            "genuine: every probed block of the announced {} read back as written ({} round{}; a wrap at any multiple of {} would have shown)",
            fmt_bytes(p.announced),
            p.rounds,
            if p.rounds == 1 { "" } else { "s" },
            crate::base::units::fmt_bs(p.unit)
        ),
        CapacityVerdict::Fake {
            real_bytes,
            first_bad_byte,
            safe_partition_bytes,
            alias_distance,
        } => {
            let how = match alias_distance {
                Some(d) => format!("writes there land on the data {} lower: the device wraps", fmt_bytes(*d)),
                None => "data written there does not come back".to_string(),
            };
            let safe = if *safe_partition_bytes > 0 {
                format!(
                    "use at most a {} partition starting at 1 MiB, in an MBR (dos) table (a GPT keeps its backup at the announced end, which the device does not store)",
                    crate::base::units::fmt_bs(*safe_partition_bytes)
                )
            } else {
                "nothing of it is usable".to_string()
            };
            let also = earlier
                .map(|e| format!("; verify run {} agrees: {}", e.run_id, e.message))
                .unwrap_or_default();
            format!(
                "FAKE: announces {} but stores about {}: every block tested below {} read back as written, the block at {} did not ({how}); {safe}{also}",
                fmt_bytes(p.announced),
                fmt_bytes(*real_bytes),
                exact(*real_bytes),
                exact(*first_bad_byte),
            )
        }
        CapacityVerdict::Suspect { verify_run } => {
            let e = earlier.expect("a suspect verdict has its verify");
            format!(
                "SUSPECT: the probe found every block of the announced {} in place, but verify run {verify_run} ({}) of this device found: {}; a probe writes a few thousand blocks and can miss what a full pass saw",
                fmt_bytes(p.announced),
                e.started_at,
                e.message
            )
        }
        CapacityVerdict::Damaged { damage } => damage_message(damage, p, earlier),
    }
}

fn damage_message(d: &Damage, p: &ProbeReport, earlier: Option<&EarlierVerify>) -> String {
    let what = match d {
        Damage::Unstable { blocks, first } => format!(
            "{blocks} block(s) answered differently when read again or did not read back as written on confirmation (the first at {}): the device's answers are unstable, so no size it shows can be trusted",
            exact(*first)
        ),
        Damage::RestoreMismatch { blocks, first } => format!(
            "{blocks} block(s) the restore wrote back below the real size did not read back as written (the first at {})",
            exact(*first)
        ),
        Damage::ReadErrors { count, first } => {
            format!(
                "{count} read(s) failed in the part the device keeps (the first at {})",
                exact(*first)
            )
        }
        Damage::WriteErrors { count, first } => {
            format!(
                "{count} write(s) failed in the part the device keeps (the first at {})",
                exact(*first)
            )
        }
        Damage::BadRegion { from, good_at } => format!(
            "blocks from {} on failed (read errors, or data that did not come back), yet the block at {} above them kept its own: a damaged region, not a smaller real size (announced {})",
            exact(*from),
            exact(*good_at),
            fmt_bytes(p.announced)
        ),
    };
    let also = earlier
        .map(|e| format!("; verify run {} of this device found: {}", e.run_id, e.message))
        .unwrap_or_default();
    format!("DAMAGED: {what}; `iolab verify` maps every bad block{also}")
}

#[cfg(test)]
#[path = "capacity_tests.rs"]
mod tests;
