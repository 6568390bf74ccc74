//! `iolab capacity DEVICE`: is the announced size real? (f3probe's
//! question, answered in seconds.)
//!
//! The plan is [`crate::verify::Probe`]'s: rounds of stamped 4 KiB blocks
//! at chosen offsets. This module runs them on the device:
//!
//! - the device is opened `O_DIRECT` and `O_EXCL`; anything but a block
//!   device is refused. Without O_DIRECT (refused by the driver) the I/O is
//!   buffered, said loudly, labelled, and the device's page cache is
//!   dropped (`BLKFLSBUF`, `posix_fadvise(DONTNEED)`) between each round's
//!   writes and its reads;
//! - each write is one `pwrite` of one block, complete before the next
//!   (on an aliasing device the later write must win); `fdatasync` after
//!   the round's writes; then the reads, each one `pread`, classified with
//!   [`classify_generation`]. A failed write or read is not fatal: the
//!   block is bad, and the verdict weighs where the errors were;
//! - **without `--allow-destroy`** every block is read and saved before
//!   the round that overwrites it, in memory and in a backup file
//!   ([`backup`]) that is flushed to disk *before* the round writes. At the
//!   end — also after an error and after SIGINT/SIGTERM — the blocks are
//!   written back (reverse order of saving, see [`crate::verify::Backup`]),
//!   flushed, read back and checked, and the file is deleted. A crash or
//!   `kill -9` leaves the file: `iolab capacity --restore FILE` writes it
//!   back ([`restore_file`]), and a new probe of that device is refused
//!   until then (it would save the probe's stamps as the device's data).
//!   Signatures (a filesystem, a partition table) do not refuse this mode,
//!   since the data is restored; a mount, swap or a holder does;
//! - after the probe, a **confirmation**: the last round's blocks are read
//!   again with nothing written in between (a stable device answers the
//!   same), and two blocks below the boundary are written afresh and read
//!   back one at a time. Then [`crate::judge::capacity::judge`] gives the
//!   verdict, never "genuine" when an earlier verify of the same device
//!   (stored, same identity) was not clean.
//!
//! # Test knob
//!
//! `IOLAB_TEST_CAPACITY_HOOK` (unset in normal use): `pause-after-round=N`
//! waits up to a minute after round N (0 is the first), saying so in a
//! notice, so a test can signal the process mid-probe;
//! `kill-after-round=N` sends the process SIGKILL there (a crash, for the
//! `--restore` test). Only with the cargo feature `test-hooks` (see
//! `base::testknob`).

pub mod backup;
mod restore;

pub use restore::{RestoreSummary, Restored, restore_file};

use super::{Context, Measured};
use crate::base::error::{Error, Result, failed, usage};
use crate::base::progress::{Event, Level};
use crate::io::buffers::AlignedBuf;
use crate::io::sys;
use crate::judge::capacity::{CapacityFacts, ChangedBlock, Confirmation, EarlierVerify, judge};
use crate::summary::capacity::{BackupFacts, CapacityReport};
use crate::summary::verify::device_identity;
use crate::summary::{Body, Settings};
use crate::targets::{self, OpenRequest, Target};
use crate::verify::{BLOCK, Backup, BlockState, Probe, ProbeVerdict, Round, classify_generation, fill_generation};
use backup::{BackupHeader, Record};
use restore::{AfterRestore, restore_saved};
use std::collections::HashSet;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const B: u64 = BLOCK as u64;
/// The test knob (see the module documentation).
#[cfg(feature = "test-hooks")]
pub const TEST_HOOK_ENV: &str = "IOLAB_TEST_CAPACITY_HOOK";

/// A capacity probe as the user asks for it.
#[derive(Clone, Debug)]
pub struct CapacityRequest {
    /// The block device.
    pub device: PathBuf,
    /// Overwrite without saving and restoring (faster).
    pub allow_destroy: bool,
    /// With `allow_destroy`: write over a partition table or filesystem signature.
    pub force: bool,
    /// The precision of the real size, in bytes (rounded up to whole 4 KiB blocks).
    pub granularity: u64,
    /// Where the backup file goes (not on the device: it must not be mounted).
    pub backup_dir: PathBuf,
    /// Stored verify runs of devices (each with its identity): a failed one
    /// of this device vetoes "genuine".
    pub earlier: Vec<EarlierVerify>,
}

impl CapacityRequest {
    pub fn validate(&self) -> Result<()> {
        if self.granularity < B {
            return Err(usage(format!(
                "--granularity must be at least 4 KiB (one block), got {}",
                self.granularity
            )));
        }
        Ok(())
    }
}

// ------------------------------------------------------------------ device

/// The device's descriptor and one aligned block of memory.
struct Dev<'t> {
    fd: BorrowedFd<'t>,
    direct: bool,
    buf: AlignedBuf,
}

impl<'t> Dev<'t> {
    fn new(t: &'t Target) -> Dev<'t> {
        Dev {
            fd: t.as_fd(),
            direct: t.direct(),
            buf: AlignedBuf::new(BLOCK),
        }
    }

    /// Write the buffer at `off` (one block).
    fn write_buf(&self, off: u64) -> std::io::Result<()> {
        sys::write_all_at(self.fd, self.buf.as_slice(), off).map_err(|e| match e {
            sys::PosError::NoSpace { done, .. } => std::io::Error::other(format!("short write ({done} of {BLOCK} bytes)")),
            e => e.into(),
        })
    }

    /// Stamp and write the block at `off`.
    fn stamp(&mut self, off: u64, pass: u64, generation: u64) -> std::io::Result<()> {
        fill_generation(self.buf.as_mut_slice(), off, pass, generation);
        self.write_buf(off)
    }

    /// Write `data` (one block) at `off`.
    fn write(&mut self, off: u64, data: &[u8]) -> std::io::Result<()> {
        self.buf.as_mut_slice().copy_from_slice(data);
        self.write_buf(off)
    }

    /// Read the block at `off` into the buffer.
    fn read(&mut self, off: u64) -> std::io::Result<&[u8]> {
        sys::read_exact_at(self.fd, self.buf.as_mut_slice(), off).map_err(|e| match e {
            sys::PosError::Eof { done, .. } => std::io::Error::other(format!("short read ({done} of {BLOCK} bytes)")),
            e => e.into(),
        })?;
        Ok(self.buf.as_slice())
    }

    /// Make the writes durable (`fdatasync`, which also flushes the
    /// device's cache); buffered, also drop the device's page cache so the
    /// reads that follow reach the device.
    fn flush(&self) -> std::io::Result<()> {
        sys::fdatasync(self.fd)?;
        if !self.direct {
            let _ = sys::block_flush_buffers(self.fd);
            let _ = sys::drop_pages(self.fd);
        }
        Ok(())
    }
}

/// Open `path` for the probe: a block device only; the safety rules (with
/// signatures allowed when the data is restored); `O_EXCL`; O_DIRECT.
fn open_device(path: &Path, allow_destroy: bool, force: bool, ctx: &Context) -> Result<Target> {
    let md = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => usage(format!("{} does not exist", path.display())),
        _ => usage(format!("cannot access {}: {e}", path.display())),
    })?;
    if !md.file_type().is_block_device() {
        return Err(usage(format!(
            "{} is not a block device: `iolab capacity` checks the size a device announces (a USB stick, an SD card, a disk); use `iolab verify` for a file or a directory",
            path.display()
        )));
    }
    let rdev = std::os::unix::fs::MetadataExt::rdev(&md);
    let refusals = targets::safety::check(&ctx.sys, rustix::fs::major(rdev), rustix::fs::minor(rdev));
    // Restored data makes a signature no reason to refuse; a mount, swap or holder always is.
    let signatures_ok = !allow_destroy || force;
    if let Err(why) = targets::safety::verdict(&refusals, signatures_ok) {
        let hint = if allow_destroy && refusals.iter().all(|r| r.forceable()) {
            ", or leave out --allow-destroy: the probe then saves and restores every block it overwrites"
        } else {
            ""
        };
        return Err(usage(format!("refusing to write to {}: {why}{hint}", path.display())));
    }
    let req = OpenRequest {
        path: path.to_path_buf(),
        size: None,
        write: true,
        allow_destroy: true,
        force: true,
        buffered: false,
        max_bs: B,
        continue_on_error: false,
        allow_export: false,
    };
    let t = targets::open(&req, &ctx.sys, ctx.stop, ctx.observer)?;
    if let Some(d) = t.info.devices.first()
        && d.logical_block_size as u64 > B
    {
        return Err(usage(format!(
            "{} has {}-byte logical blocks: the probe writes 4 KiB blocks",
            path.display(),
            d.logical_block_size
        )));
    }
    Ok(t)
}

// ------------------------------------------------------------ test knob

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
enum Hook {
    None,
    Pause(u32),
    Kill(u32),
}

#[cfg(feature = "test-hooks")]
fn hook() -> Hook {
    let Ok(v) = std::env::var(TEST_HOOK_ENV) else { return Hook::None };
    let n = |p: &str| v.strip_prefix(p).and_then(|n| n.parse().ok());
    match (n("pause-after-round="), n("kill-after-round=")) {
        (Some(r), _) => Hook::Pause(r),
        (_, Some(r)) => Hook::Kill(r),
        _ => Hook::None,
    }
}

/// Without `test-hooks`: none.
#[cfg(not(feature = "test-hooks"))]
fn hook() -> Hook {
    Hook::None
}

// ------------------------------------------------------------ the run

/// What the run counted as it went.
#[derive(Default)]
struct Tally {
    read_errors: Vec<u64>,
    write_errors: Vec<u64>,
    good_reads: Vec<u64>,
    blocks_written: u64,
    blocks_read: u64,
}

/// The saved blocks: [`Backup`]'s order, the blocks in memory, the file.
struct Saver {
    order: Backup,
    records: Vec<Record>,
    file: backup::Writer,
    unreadable: u64,
}

impl Saver {
    /// Save every block of `writes` not saved yet: read it, keep it,
    /// append it to the file, and flush the file. Only then may they be written.
    fn save(&mut self, writes: &Round, dev: &mut Dev, tally: &mut Tally) -> Result<()> {
        for off in self.order.to_save(writes) {
            tally.blocks_read += 1;
            let data = match dev.read(off) {
                Ok(b) => Some(b.to_vec()),
                Err(_) => {
                    tally.read_errors.push(off);
                    self.unreadable += 1;
                    None
                }
            };
            self.file.append(off, data.as_deref());
            self.records.push(Record { offset: off, data });
        }
        self.file.sync().map_err(|e| {
            failed(format!(
                "cannot write the backup file {}: {e} (nothing of this round was written)",
                self.file.path().display()
            ))
        })
    }
}

/// The last round the probe ran: its generation, the offsets it read and
/// what each held.
type LastRound = (u64, Vec<u64>, Vec<BlockState>);

/// What the rounds and the confirmation work on: the device, this pass,
/// the saved blocks (none with `--allow-destroy`), the counts so far and
/// the last round.
struct Probing<'t> {
    dev: Dev<'t>,
    pass: u64,
    saver: Option<Saver>,
    tally: Tally,
    last: Option<LastRound>,
}

/// The probe's rounds on the device. Keeps the last round's reads and
/// their states in `p.last` (for the confirmation); an interruption or an
/// error unwinds (the caller restores).
fn run_rounds(probe: &mut Probe, p: &mut Probing, ctx: &Context, hook: Hook, est: u64) -> Result<()> {
    while let Some(round) = probe.round().cloned() {
        ctx.stop.check()?;
        let g = round.generation;
        ctx.observer.event(Event::Phase {
            label: &format!(
                "capacity probe: round {} ({} writes, {} reads)",
                g + 1,
                round.writes.len(),
                round.reads.len()
            ),
            done: g,
            total: est.max(g + 1),
        });
        if let Some(s) = p.saver.as_mut() {
            s.save(&round, &mut p.dev, &mut p.tally)?;
        }
        let written: HashSet<u64> = round.writes.iter().copied().collect();
        for &off in &round.writes {
            ctx.stop.check()?;
            p.tally.blocks_written += 1;
            if p.dev.stamp(off, p.pass, g).is_err() {
                p.tally.write_errors.push(off);
            }
        }
        if let Err(e) = p.dev.flush() {
            ctx.observer.event(Event::Notice {
                level: Level::Warning,
                text: &format!("fdatasync after round {} failed: {e}", g + 1),
            });
        }
        let mut states = Vec::with_capacity(round.reads.len());
        for &off in &round.reads {
            ctx.stop.check()?;
            p.tally.blocks_read += 1;
            let s = match p.dev.read(off) {
                Ok(b) => classify_generation(b, off, p.pass, g),
                Err(_) => {
                    p.tally.read_errors.push(off);
                    BlockState::Unreadable
                }
            };
            if s == BlockState::Good && written.contains(&off) {
                p.tally.good_reads.push(off);
            }
            states.push(s);
        }
        probe.observe(&states);
        p.last = Some((g, round.reads.clone(), states));
        after_round(hook, g, ctx)?;
    }
    // A stop asked for during the last round: no confirmation, no verdict.
    ctx.stop.check()
}

/// The test knob after round `g`: pause (and stop if a signal came) or crash.
fn after_round(hook: Hook, g: u64, ctx: &Context) -> Result<()> {
    match hook {
        Hook::Pause(n) if n as u64 == g => {
            ctx.observer.event(Event::Notice {
                level: Level::Note,
                text: &format!("test hook: paused after round {n} (pid {})", std::process::id()),
            });
            ctx.stop.sleep(Duration::from_secs(60));
            ctx.stop.check()?;
        }
        Hook::Kill(n) if n as u64 == g => {
            // kill(2) on this very process: the crash the hook simulates.
            let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
        }
        _ => {}
    }
    Ok(())
}

/// The confirmation (see the module documentation): the last round read
/// again, then blocks below the boundary written afresh one at a time.
fn confirm(probe: &Probe, p: &mut Probing) -> Result<Confirmation> {
    let mut c = Confirmation::default();
    let report = probe.report().expect("a finished probe");
    if let Some((g, reads, before)) = &p.last {
        for (&off, &b) in reads.iter().zip(before) {
            p.tally.blocks_read += 1;
            c.reread_blocks += 1;
            let after = match p.dev.read(off) {
                Ok(blk) => classify_generation(blk, off, p.pass, *g),
                Err(_) => BlockState::Unreadable,
            };
            if after != b {
                c.changed.push(ChangedBlock {
                    offset: off,
                    before: b.class(),
                    after: after.class(),
                });
            }
        }
    }
    let top = match report.verdict {
        ProbeVerdict::Genuine => report.announced / B * B,
        ProbeVerdict::Fake { real_bytes, .. } => real_bytes,
    };
    let mut fresh: Vec<u64> = Vec::new();
    if top >= B {
        fresh.push(top - B);
        let half = top / 2 / B * B;
        if half + B < top {
            fresh.push(half);
        }
    }
    let g = report.rounds as u64;
    for off in fresh {
        let round = Round {
            generation: g,
            writes: vec![off],
            reads: vec![off],
        };
        if let Some(s) = p.saver.as_mut() {
            s.save(&round, &mut p.dev, &mut p.tally)?;
        }
        p.tally.blocks_written += 1;
        if p.dev.stamp(off, p.pass, g).is_err() {
            p.tally.write_errors.push(off);
        }
        let _ = p.dev.flush();
        p.tally.blocks_read += 1;
        let s = match p.dev.read(off) {
            Ok(b) => classify_generation(b, off, p.pass, g),
            Err(_) => BlockState::Unreadable,
        };
        c.fresh.push((off, s.class()));
    }
    Ok(c)
}

/// Refuse a saving probe of a device whose earlier probe left a backup
/// that was never written back.
fn refuse_pending(r: &CapacityRequest, identity: Option<&str>, node: &str, announced: u64) -> Result<()> {
    if let Some(p) = backup::pending_for(&r.backup_dir, identity, node, announced).first() {
        return Err(usage(format!(
            "a probe of {node} was interrupted before it restored the device's data, which is saved in {}: run `iolab capacity --restore {}` first (a new probe would save the old probe's blocks as the device's data)",
            p.display(),
            p.display()
        )));
    }
    Ok(())
}

/// The latest stored verify of this device that did not end clean.
fn earlier_failure(r: &CapacityRequest, identity: Option<&String>) -> Option<EarlierVerify> {
    identity.and_then(|id| {
        r.earlier
            .iter()
            .filter(|e| &e.device == id && e.verdict != crate::verify::Verdict::Clean)
            .max_by_key(|e| e.run_id)
            .cloned()
    })
}

/// Create the backup file for `header` in `--backup-dir`, with room for the
/// `max_writes` blocks the probe can overwrite, before the first one is.
fn start_backup(r: &CapacityRequest, header: &BackupHeader, max_writes: u64) -> Result<Saver> {
    let file = backup::Writer::create(&r.backup_dir, header).map_err(|e| {
        failed(format!(
            "cannot create the backup file in {}: {e} (nothing was written)",
            r.backup_dir.display()
        ))
    })?;
    // Room for every block the probe can write, before the first one is.
    let need = max_writes * backup::RECORD as u64;
    let dir = file.path().parent().unwrap_or(Path::new("/")).to_path_buf();
    if let Err(e) = targets::space::check(
        &dir,
        need,
        0,
        "the backup of the blocks the probe overwrites",
        Some("choose another --backup-dir, or pass --allow-destroy"),
    ) {
        let _ = backup::remove(file.path());
        return Err(e);
    }
    Ok(Saver {
        order: Backup::new(),
        records: Vec::new(),
        file,
        unreadable: 0,
    })
}

/// The boundary beyond which a restored block need not read back: the
/// device keeps nothing there (none when the probe did not finish).
fn restore_boundary(probe: &Probe) -> Option<u64> {
    match probe.report().map(|p| p.verdict) {
        Some(ProbeVerdict::Fake { bad_from, .. }) => Some(bad_from),
        Some(ProbeVerdict::Genuine) => Some(u64::MAX),
        None => None,
    }
}

/// The error that ended the probe, saying where the device's data is now.
fn with_data_note(e: Error, backup: Option<&BackupFacts>, allow_destroy: bool) -> Error {
    let keep = backup
        .filter(|b| b.kept)
        .map(|b| format!("; the device's saved data is kept in {}", b.path))
        .unwrap_or_else(|| {
            if allow_destroy {
                String::new()
            } else {
                "; the blocks it overwrote are restored".to_string()
            }
        });
    match e {
        Error::Usage(m) => usage(format!("{m}{keep}")),
        Error::Check(m) => Error::Check(m),
        other => failed(format!("{other}{keep}")),
    }
}

/// The message of a probe cut short after `rounds` rounds.
fn interrupted_message(rounds: u64, allow_destroy: bool, backup: Option<&BackupFacts>) -> String {
    format!(
        "interrupted after {rounds} round(s): no verdict{}",
        if allow_destroy {
            String::new()
        } else if backup.is_some_and(|b| b.kept) {
            "; the saved data is kept (see above)".to_string()
        } else {
            "; every block it overwrote is restored".to_string()
        }
    )
}

/// The header of the backup file of a probe of `path` in pass `pass`.
fn backup_header(device: Option<String>, path: String, size: u64, pass: u64) -> BackupHeader {
    BackupHeader {
        device,
        path,
        size,
        pass,
        created: crate::base::units::now_rfc3339(),
        iolab_version: env!("CARGO_PKG_VERSION").to_string(),
        pid: std::process::id(),
    }
}

/// What the probe, its confirmation and the restore after them left, for the report.
struct Finished {
    confirmation: Option<Confirmation>,
    probe_s: f64,
    probe_blocks_written: u64,
    restored: Option<AfterRestore>,
    /// The signal that cut the probe short.
    interrupted: Option<i32>,
}

/// Run the probe's rounds and the confirmation, then write the saved
/// blocks back (also after an error or a signal). An error other than a
/// signal is returned, saying where the device's data is.
fn probe_device(r: &CapacityRequest, probe: &mut Probe, p: &mut Probing, announced: u64, ctx: &Context) -> Result<Finished> {
    let t0 = Instant::now();
    // Rounds to expect, for the progress bar: the scout, a bisection down to the granularity, the pins.
    let est = 1 + (64 - (announced / r.granularity.max(B)).max(1).leading_zeros()) as u64 + 4;
    let mut outcome = run_rounds(probe, p, ctx, hook(), est);
    let mut confirmation = None;
    if outcome.is_ok() && probe.report().is_some() {
        match confirm(probe, p) {
            Ok(c) => confirmation = Some(c),
            Err(e) => outcome = Err(e),
        }
    }
    let probe_s = t0.elapsed().as_secs_f64();
    let probe_blocks_written = p.tally.blocks_written;

    let first_bad = restore_boundary(probe);
    let restored = p.saver.take().map(|s| restore_saved(s, &mut p.dev, p.pass, first_bad, ctx));
    let interrupted = match outcome {
        Ok(()) => None,
        Err(Error::Interrupted(sig)) => Some(sig),
        Err(e) => return Err(with_data_note(e, restored.as_ref().map(|a| &a.facts), r.allow_destroy)),
    };
    Ok(Finished {
        confirmation,
        probe_s,
        probe_blocks_written,
        restored,
        interrupted,
    })
}

pub(super) fn run(r: &CapacityRequest, ctx: &Context) -> Result<Measured> {
    let target = open_device(&r.device, r.allow_destroy, r.force, ctx)?;
    let identity = device_identity(&target.info);
    let announced = target.span();
    let node = target.info.path.clone();
    if !r.allow_destroy {
        refuse_pending(r, identity.as_deref(), &node, announced)?;
    }
    let earlier = earlier_failure(r, identity.as_ref());
    let dev = Dev::new(&target);
    if !dev.direct {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: "capacity: without O_DIRECT every round's reads follow a flush and BLKFLSBUF of the device's page cache; a cache inside the device can still answer",
        });
    }
    let pass = crate::verify::new_pass();
    let mut probe = Probe::new(announced, r.granularity);
    let saver = if r.allow_destroy {
        None
    } else {
        let header = backup_header(identity.clone(), node.clone(), announced, pass);
        Some(start_backup(r, &header, probe.max_writes())?)
    };
    let mut p = Probing {
        dev,
        pass,
        saver,
        tally: Tally::default(),
        last: None,
    };

    let f = probe_device(r, &mut probe, &mut p, announced, ctx)?;
    let (restore_written, restore_read, restore_s, mismatches_below, backup_facts) = match f.restored {
        Some(a) => (a.res.written, a.res.blocks_read, a.res.seconds, a.below, Some(a.facts)),
        None => (0, 0, 0.0, Vec::new(), None),
    };
    let tally = &p.tally;
    let (verdict, message) = match probe.report() {
        Some(pr) if f.interrupted.is_none() => {
            let j = judge(&CapacityFacts {
                probe: pr,
                read_errors: &tally.read_errors,
                write_errors: &tally.write_errors,
                good_reads: &tally.good_reads,
                confirmation: f.confirmation.as_ref(),
                restore_mismatches: &mismatches_below,
                earlier: earlier.as_ref(),
            });
            (Some(j.verdict), j.message)
        }
        _ => {
            let rounds = p.last.as_ref().map(|l| l.0 + 1).unwrap_or(0);
            (None, interrupted_message(rounds, r.allow_destroy, backup_facts.as_ref()))
        }
    };
    let first = |v: &[u64]| v.iter().copied().min();
    let report = CapacityReport {
        device: identity,
        announced_bytes: announced,
        granularity: r.granularity,
        pass,
        direct: p.dev.direct,
        destructive: r.allow_destroy,
        probe: probe.report().cloned(),
        confirmation: f.confirmation,
        verdict,
        message,
        read_errors: tally.read_errors.len() as u64,
        first_read_error: first(&tally.read_errors),
        write_errors: tally.write_errors.len() as u64,
        first_write_error: first(&tally.write_errors),
        probe_bytes_written: f.probe_blocks_written * B,
        restore_bytes_written: restore_written * B,
        bytes_written: (f.probe_blocks_written + restore_written) * B,
        bytes_read: (tally.blocks_read + restore_read) * B,
        probe_s: f.probe_s,
        restore_s,
        backup: backup_facts,
        earlier_verify: earlier,
    };
    let info = target.info.clone();
    drop(target);
    Ok(Measured {
        command: "capacity",
        target: info,
        settings: Settings::one_pass(),
        body: Body::Capacity(report),
        interrupted: f.interrupted,
        failed: None,
    })
}
