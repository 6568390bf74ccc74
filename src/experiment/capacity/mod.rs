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

use super::{Context, Measured};
use crate::base::error::{Error, Result, failed, usage};
use crate::base::progress::{Event, Level};
use crate::base::units::fmt_bytes;
use crate::io::buffers::AlignedBuf;
use crate::io::sys;
use crate::judge::capacity::{CapacityFacts, ChangedBlock, Confirmation, EarlierVerify, judge};
use crate::summary::capacity::{BackupFacts, CapacityReport};
use crate::summary::verify::device_identity;
use crate::summary::{Body, Settings};
use crate::targets::{self, OpenRequest, Target};
use crate::verify::{BLOCK, Backup, BlockState, Header, Probe, ProbeVerdict, Round, classify_generation, fill_generation};
use backup::{BackupHeader, NotItsDevice, Record};
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

/// A block of this pass: the probe's, not the device's data.
fn is_ours(block: &[u8], pass: u64) -> bool {
    Header::of_stamped(block).is_some_and(|h| h.pass == pass)
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

/// The probe's rounds on the device. Returns the last round's reads and
/// their states (for the confirmation); an interruption or an error
/// unwinds (the caller restores).
#[allow(clippy::too_many_arguments)]
fn run_rounds(
    probe: &mut Probe,
    dev: &mut Dev,
    pass: u64,
    saver: &mut Option<Saver>,
    tally: &mut Tally,
    last: &mut Option<(u64, Vec<u64>, Vec<BlockState>)>,
    ctx: &Context,
    hook: Hook,
    est: u64,
) -> Result<()> {
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
        if let Some(s) = saver.as_mut() {
            s.save(&round, dev, tally)?;
        }
        let written: HashSet<u64> = round.writes.iter().copied().collect();
        for &off in &round.writes {
            ctx.stop.check()?;
            tally.blocks_written += 1;
            if dev.stamp(off, pass, g).is_err() {
                tally.write_errors.push(off);
            }
        }
        if let Err(e) = dev.flush() {
            ctx.observer.event(Event::Notice {
                level: Level::Warning,
                text: &format!("fdatasync after round {} failed: {e}", g + 1),
            });
        }
        let mut states = Vec::with_capacity(round.reads.len());
        for &off in &round.reads {
            ctx.stop.check()?;
            tally.blocks_read += 1;
            let s = match dev.read(off) {
                Ok(b) => classify_generation(b, off, pass, g),
                Err(_) => {
                    tally.read_errors.push(off);
                    BlockState::Unreadable
                }
            };
            if s == BlockState::Good && written.contains(&off) {
                tally.good_reads.push(off);
            }
            states.push(s);
        }
        probe.observe(&states);
        *last = Some((g, round.reads.clone(), states));
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
    }
    // A stop asked for during the last round: no confirmation, no verdict.
    ctx.stop.check()
}

/// The confirmation (see the module documentation): the last round read
/// again, then blocks below the boundary written afresh one at a time.
fn confirm(
    probe: &Probe,
    dev: &mut Dev,
    pass: u64,
    saver: &mut Option<Saver>,
    tally: &mut Tally,
    last: &Option<(u64, Vec<u64>, Vec<BlockState>)>,
) -> Result<Confirmation> {
    let mut c = Confirmation::default();
    let report = probe.report().expect("a finished probe");
    if let Some((g, reads, before)) = last {
        for (&off, &b) in reads.iter().zip(before) {
            tally.blocks_read += 1;
            c.reread_blocks += 1;
            let after = match dev.read(off) {
                Ok(blk) => classify_generation(blk, off, pass, *g),
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
        if let Some(s) = saver.as_mut() {
            s.save(&round, dev, tally)?;
        }
        tally.blocks_written += 1;
        if dev.stamp(off, pass, g).is_err() {
            tally.write_errors.push(off);
        }
        let _ = dev.flush();
        tally.blocks_read += 1;
        let s = match dev.read(off) {
            Ok(b) => classify_generation(b, off, pass, g),
            Err(_) => BlockState::Unreadable,
        };
        c.fresh.push((off, s.class()));
    }
    Ok(c)
}

pub(super) fn run(r: &CapacityRequest, ctx: &Context) -> Result<Measured> {
    let target = open_device(&r.device, r.allow_destroy, r.force, ctx)?;
    let identity = device_identity(&target.info);
    let announced = target.span();
    let node = target.info.path.clone();
    if !r.allow_destroy
        && let Some(p) = backup::pending_for(&r.backup_dir, identity.as_deref(), &node, announced).first()
    {
        return Err(usage(format!(
            "a probe of {node} was interrupted before it restored the device's data, which is saved in {}: run `iolab capacity --restore {}` first (a new probe would save the old probe's blocks as the device's data)",
            p.display(),
            p.display()
        )));
    }
    let earlier = identity.as_ref().and_then(|id| {
        r.earlier
            .iter()
            .filter(|e| &e.device == id && e.verdict != crate::verify::Verdict::Clean)
            .max_by_key(|e| e.run_id)
            .cloned()
    });
    let mut dev = Dev::new(&target);
    if !dev.direct {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: "capacity: without O_DIRECT every round's reads follow a flush and BLKFLSBUF of the device's page cache; a cache inside the device can still answer",
        });
    }
    let pass = crate::verify::new_pass();
    let mut probe = Probe::new(announced, r.granularity);
    let mut tally = Tally::default();
    let mut saver = if r.allow_destroy {
        None
    } else {
        let header = BackupHeader {
            device: identity.clone(),
            path: node.clone(),
            size: announced,
            pass,
            created: crate::base::units::now_rfc3339(),
            iolab_version: env!("CARGO_PKG_VERSION").to_string(),
            pid: std::process::id(),
        };
        let file = backup::Writer::create(&r.backup_dir, &header).map_err(|e| {
            failed(format!(
                "cannot create the backup file in {}: {e} (nothing was written)",
                r.backup_dir.display()
            ))
        })?;
        // Room for every block the probe can write, before the first one is.
        let need = probe.max_writes() * backup::RECORD as u64;
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
        Some(Saver {
            order: Backup::new(),
            records: Vec::new(),
            file,
            unreadable: 0,
        })
    };

    let t0 = Instant::now();
    let mut last = None;
    // Rounds to expect, for the progress bar: the scout, a bisection down to the granularity, the pins.
    let est = 1 + (64 - (announced / r.granularity.max(B)).max(1).leading_zeros()) as u64 + 4;
    let mut outcome = run_rounds(&mut probe, &mut dev, pass, &mut saver, &mut tally, &mut last, ctx, hook(), est);
    let mut confirmation = None;
    if outcome.is_ok() && probe.report().is_some() {
        match confirm(&probe, &mut dev, pass, &mut saver, &mut tally, &last) {
            Ok(c) => confirmation = Some(c),
            Err(e) => outcome = Err(e),
        }
    }
    let probe_s = t0.elapsed().as_secs_f64();
    let probe_blocks_written = tally.blocks_written;

    // The boundary beyond which a restored block need not read back: the device keeps nothing there.
    let first_bad = match probe.report().map(|p| p.verdict) {
        Some(ProbeVerdict::Fake { bad_from, .. }) => Some(bad_from),
        Some(ProbeVerdict::Genuine) => Some(u64::MAX),
        None => None,
    };
    let mut restored = None;
    let mut backup_facts = None;
    if let Some(s) = saver.take() {
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
        let res = restore_records(&mut dev, &s.records, pass);
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
        backup_facts = Some(BackupFacts {
            path: path.display().to_string(),
            blocks: s.records.len() as u64,
            unreadable: s.unreadable,
            restored: res.written,
            restore_write_errors: res.write_errors,
            verified: res.verified,
            differing_beyond: beyond.len() as u64,
            differing: below.len() as u64,
            kept,
        });
        restored = Some((res, below));
    }
    let interrupted = match outcome {
        Ok(()) => None,
        Err(Error::Interrupted(sig)) => Some(sig),
        Err(e) => {
            let keep = backup_facts
                .as_ref()
                .filter(|b| b.kept)
                .map(|b| format!("; the device's saved data is kept in {}", b.path))
                .unwrap_or_else(|| {
                    if r.allow_destroy {
                        String::new()
                    } else {
                        "; the blocks it overwrote are restored".to_string()
                    }
                });
            return Err(match e {
                Error::Usage(m) => usage(format!("{m}{keep}")),
                Error::Check(m) => Error::Check(m),
                other => failed(format!("{other}{keep}")),
            });
        }
    };

    let (restore_written, restore_read, restore_s, mismatches_below) = match &restored {
        Some((res, below)) => (res.written, res.blocks_read, res.seconds, below.clone()),
        None => (0, 0, 0.0, Vec::new()),
    };
    let (verdict, message) = match probe.report() {
        Some(p) if interrupted.is_none() => {
            let j = judge(&CapacityFacts {
                probe: p,
                read_errors: &tally.read_errors,
                write_errors: &tally.write_errors,
                good_reads: &tally.good_reads,
                confirmation: confirmation.as_ref(),
                restore_mismatches: &mismatches_below,
                earlier: earlier.as_ref(),
            });
            (Some(j.verdict), j.message)
        }
        _ => (
            None,
            format!(
                "interrupted after {} round(s): no verdict{}",
                last.as_ref().map(|l| l.0 + 1).unwrap_or(0),
                if r.allow_destroy {
                    String::new()
                } else if backup_facts.as_ref().is_some_and(|b| b.kept) {
                    "; the saved data is kept (see above)".to_string()
                } else {
                    "; every block it overwrote is restored".to_string()
                }
            ),
        ),
    };
    let first = |v: &[u64]| v.iter().copied().min();
    let report = CapacityReport {
        device: identity,
        announced_bytes: announced,
        granularity: r.granularity,
        pass,
        direct: dev.direct,
        destructive: r.allow_destroy,
        probe: probe.report().cloned(),
        confirmation,
        verdict,
        message,
        read_errors: tally.read_errors.len() as u64,
        first_read_error: first(&tally.read_errors),
        write_errors: tally.write_errors.len() as u64,
        first_write_error: first(&tally.write_errors),
        probe_bytes_written: probe_blocks_written * B,
        restore_bytes_written: restore_written * B,
        bytes_written: (probe_blocks_written + restore_written) * B,
        bytes_read: (tally.blocks_read + restore_read) * B,
        probe_s,
        restore_s,
        backup: backup_facts,
        earlier_verify: earlier,
    };
    let info = target.info.clone();
    drop(target);
    Ok(Measured {
        command: "capacity",
        target: info,
        settings: Settings {
            runs: 1,
            warmup_s: 0.0,
            interval_s: 0.0,
            suite: None,
            steady_state: None,
            ..Settings::default()
        },
        body: Body::Capacity(report),
        interrupted,
        failed: None,
    })
}

// ------------------------------------------------------------ --restore

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
/// ([`BackupHeader::restore_to`]: the size, and an identity that names one
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
