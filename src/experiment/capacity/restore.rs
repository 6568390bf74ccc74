//! Writing the saved blocks back: after a probe ([`restore_saved`]), and
//! from a backup file with `iolab capacity --restore FILE` ([`restore_file`]).

use super::backup::{self, NotItsDevice, Record};
use super::{Dev, Saver, open_device};
use crate::base::error::{Result, failed, usage};
use crate::base::progress::{Event, Level};
use crate::base::units::fmt_bytes;
use crate::experiment::Context;
use crate::summary::capacity::BackupFacts;
use crate::summary::verify::device_identity;
use crate::verify::Header;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A block of this pass: the probe's, not the device's data.
fn is_ours(block: &[u8], pass: u64) -> bool {
    Header::of_stamped(block).is_some_and(|h| h.pass == pass)
}

/// What a restore did.
#[derive(Debug, Default)]
pub struct Restored {
    pub written: u64,
    pub write_errors: u64,
    pub verified: u64,
    /// Offsets that did not read back as the restore expected.
    pub mismatches: Vec<u64>,
    pub blocks_read: u64,
    pub seconds: f64,
}

/// Write `records` (in the order they were saved) back in reverse order,
/// flush, and read each back: a block that held the device's own data
/// must read back as saved, and none may still hold a stamp of `pass`.
/// (A block saved holding the probe's stamp was saved after the probe
/// wrote to its storage through an alias; the first-saved alias holds the
/// original, and is written back last.)
fn restore_records(dev: &mut Dev, records: &[Record], pass: u64) -> Restored {
    let t0 = Instant::now();
    let mut r = Restored::default();
    for rec in records.iter().rev() {
        if let Some(d) = &rec.data {
            match dev.write(rec.offset, d) {
                Ok(()) => r.written += 1,
                Err(_) => r.write_errors += 1,
            }
        }
    }
    if dev.flush().is_err() {
        r.write_errors += 1;
    }
    let mut seen = HashSet::new();
    for rec in records {
        let Some(saved) = &rec.data else { continue };
        if !seen.insert(rec.offset) {
            continue;
        }
        r.blocks_read += 1;
        let ok = match dev.read(rec.offset) {
            Ok(got) if is_ours(saved, pass) => !is_ours(got, pass),
            Ok(got) => got == &saved[..],
            Err(_) => false,
        };
        if ok {
            r.verified += 1;
        } else {
            r.mismatches.push(rec.offset);
        }
    }
    r.seconds = t0.elapsed().as_secs_f64();
    r
}

/// What the restore after a probe did: the restore, the offsets below the
/// boundary that read back differently, and the facts for the report.
pub(super) struct AfterRestore {
    pub(super) res: Restored,
    pub(super) below: Vec<u64>,
    pub(super) facts: BackupFacts,
}

/// Write the saved blocks back after the probe, say how it went, and remove
/// the backup file when every block below `first_bad` verified.
pub(super) fn restore_saved(s: Saver, dev: &mut Dev, pass: u64, first_bad: Option<u64>, ctx: &Context) -> AfterRestore {
    let path = s.file.path().to_path_buf();
    ctx.observer.event(Event::Notice {
        level: Level::Note,
        text: &format!(
            "restoring the {} block(s) the probe overwrote (saved in {}; if this is cut short, `iolab capacity --restore {}` finishes it)",
            s.records.len(),
            path.display(),
            path.display()
        ),
    });
    ctx.observer.event(Event::Phase {
        label: "capacity: restoring",
        done: 0,
        total: 1,
    });
    let res = restore_records(dev, &s.records, pass);
    let boundary = first_bad.unwrap_or(0);
    let (beyond, below): (Vec<u64>, Vec<u64>) = res.mismatches.iter().partition(|&&o| o >= boundary);
    let kept = res.write_errors > 0 || !below.is_empty();
    if kept {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: &format!(
                "the restore did not verify ({} write error(s), {} block(s) read back differently{}): the saved data is kept in {}; `iolab capacity --restore {}` writes it back again",
                res.write_errors,
                below.len(),
                if first_bad.is_none() { "" } else { " below the real size" },
                path.display(),
                path.display()
            ),
        });
    } else if let Err(e) = backup::remove(&path) {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: &format!(
                "the device is restored, but its backup {} could not be removed: {e}",
                path.display()
            ),
        });
    }
    let facts = BackupFacts {
        path: path.display().to_string(),
        blocks: s.records.len() as u64,
        unreadable: s.unreadable,
        restored: res.written,
        restore_write_errors: res.write_errors,
        verified: res.verified,
        differing_beyond: beyond.len() as u64,
        differing: below.len() as u64,
        kept,
    };
    AfterRestore { res, below, facts }
}

/// What `iolab capacity --restore FILE` did.
#[derive(Clone, Debug)]
pub struct RestoreSummary {
    pub file: PathBuf,
    pub device: String,
    /// Records in the file (unreadable ones included), and those written back.
    pub blocks: u64,
    pub restored: u64,
    pub verified: u64,
    /// Bytes of a torn last record ignored (its round never wrote).
    pub torn_bytes: u64,
    pub seconds: f64,
}

/// Write a backup file back to its device (`device`, or the node the file
/// names), after checking that the device is the one it was saved from
/// ([`backup::BackupHeader::restore_to`]: the size, and an identity that names one
/// device; an identity of model and size alone, or none, only at the same
/// node and with `force`); read every block back; delete the file when all
/// verify. The device must not be mounted, swap or held.
pub fn restore_file(file: &Path, device: Option<&Path>, force: bool, ctx: &Context) -> Result<RestoreSummary> {
    let b = backup::read(file).map_err(usage)?;
    let path = device.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(&b.header.path));
    let target = open_device(&path, false, false, ctx)?;
    let identity = device_identity(&target.info);
    let saved = format!(
        "{} was saved from {} ({}, {} bytes)",
        file.display(),
        b.header.path,
        b.header.device.as_deref().unwrap_or("no identity"),
        b.header.size
    );
    match b.header.restore_to(identity.as_deref(), &target.info.path, target.span(), force) {
        Ok(()) => {}
        Err(NotItsDevice::Other) => {
            return Err(usage(format!(
                "{saved}, not from {} ({}, {} bytes): refusing to write it there (if that device has another name now, give it: `iolab capacity --restore FILE DEVICE`)",
                target.info.path,
                identity.as_deref().unwrap_or("no identity"),
                target.span()
            )));
        }
        Err(NotItsDevice::Unsure { same_node: true }) => {
            return Err(usage(format!(
                "{saved}, which names no serial number: another device of the same model and size at {} would be overwritten; pass --force if it is the one the probe ran on",
                target.info.path
            )));
        }
        Err(NotItsDevice::Unsure { same_node: false }) => {
            return Err(usage(format!(
                "{saved}, which names no serial number: {} may be another device of the same model and size; refusing to write it there, --force or not (only the node it was saved from, with --force)",
                target.info.path
            )));
        }
    }
    let mut dev = Dev::new(&target);
    let res = restore_records(&mut dev, &b.records, b.header.pass);
    if res.write_errors > 0 || !res.mismatches.is_empty() {
        return Err(failed(format!(
            "restoring {} to {}: {} write error(s), {} of {} block(s) did not read back as saved (the first at {}); the file is kept (on a fake device, blocks beyond its real size cannot keep data)",
            file.display(),
            target.info.path,
            res.write_errors,
            res.mismatches.len(),
            res.verified + res.mismatches.len() as u64,
            res.mismatches.iter().min().map(|&o| fmt_bytes(o)).unwrap_or_else(|| "–".into()),
        )));
    }
    backup::remove(file).map_err(|e| {
        failed(format!(
            "{} is restored, but {} could not be removed: {e}",
            target.info.path,
            file.display()
        ))
    })?;
    Ok(RestoreSummary {
        file: file.to_path_buf(),
        device: target.info.path.clone(),
        blocks: b.records.len() as u64,
        restored: res.written,
        verified: res.verified,
        torn_bytes: b.torn_bytes,
        seconds: res.seconds,
    })
}
