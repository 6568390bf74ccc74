//! `iolab verify`: write every block of a device (or a directory's free
//! space), read it back and say what each block turned out to be.
//!
//! The blocks are [`crate::verify::block`]'s stamped 4 KiB blocks, written
//! in ascending order in requests of `bs`, then read back in the same
//! order and classified one by one into a [`VerifyTally`]: good,
//! corrupted, misplaced (the address wraps or aliases), stale, blank,
//! garbage or unreadable. The range is cut into zones (by default one per
//! 1% of it, each at least 4 MiB), each timed on the way out (its flush
//! included) and on the way back: the write and read curve users ask f3
//! for, across the whole capacity, and where it drops and stays down
//! ([`crate::judge::curve`]). The flush per zone is the cost: a hundred
//! `fdatasync`s, each after 1% of the writes.
//!
//! Truth:
//! - writes and reads use O_DIRECT; where the target refuses it, the page
//!   cache is flushed and dropped before reading, and the result says
//!   `buffered` (a loud notice too);
//! - generating the stamps runs on its own thread, ahead of the writes,
//!   and classifying runs behind the reads, so neither times the CPU;
//! - a request that fails is retried block by block, so an unreadable (or
//!   unwritable) stretch is known to the block;
//! - `--cold-wait` lets go of the device between writing and reading
//!   (unplug, replug: a device's own RAM cache cannot answer the reads).
//!
//! Safety: a block device is written only with `--allow-destroy` and the
//! rules of [`crate::targets::safety`]; a directory gets files of its own
//! ([`FileSet`]), never more than the free space less a margin, removed
//! afterwards whatever happens.

use super::{Context, Measured, until_stopped};
use crate::base::error::{Result, failed, usage};
use crate::base::progress::{Event, Level};
use crate::base::signals::Stop;
use crate::base::units::fmt_bytes;
use crate::io::buffers::AlignedBuf;
use crate::io::sys;
use crate::plan::limits;
use crate::summary::verify::{VerifyLayout, VerifyReport, VerifyZone, default_zones, device_identity};
use crate::summary::{Body, Settings};
use crate::targets::files::{FileSet, VERIFY_FILE_BYTES};
use crate::targets::{self, Choice, Kind, Target, TargetInfo};
use crate::verify::block::BLOCK_U64;
use crate::verify::{BLOCK, BlockState, VerifyTally, classify, fill};
use std::os::fd::{BorrowedFd, RawFd};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Buffers in flight between the stamping thread and the writer (and the
/// reader and the classifier): enough to keep the device busy while the
/// other side works on one.
const PIPELINE: usize = 4;

/// How long to wait between writing and reading back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColdWait {
    /// Until the user presses Enter on the terminal.
    Prompt,
    /// A fixed time.
    For(Duration),
}

impl ColdWait {
    /// `--cold-wait`'s value: `enter`, or a duration above 0.
    pub fn parse(s: &str) -> std::result::Result<ColdWait, String> {
        match s {
            "enter" => Ok(ColdWait::Prompt),
            _ => crate::plan::limits::parse::nonzero_duration(s).map(ColdWait::For),
        }
    }
}

/// `iolab verify` as the user asks for it.
#[derive(Clone, Debug)]
pub struct VerifyRequest {
    /// A block device or a directory; `size` caps the bytes verified.
    pub target: Choice,
    /// Bytes per request.
    pub bs: u64,
    /// Zones, each timed on its own; `None`: one per 1% of the range, each
    /// at least 4 MiB ([`default_zones`]).
    pub zones: Option<u32>,
    pub cold_wait: Option<ColdWait>,
}

impl VerifyRequest {
    pub fn validate(&self) -> Result<()> {
        limits::check_bs(self.bs).map_err(usage)?;
        if !self.bs.is_multiple_of(BLOCK_U64) {
            return Err(usage(format!(
                "verify writes whole {BLOCK}-byte blocks: --bs must be a multiple of 4 KiB, got {}",
                self.bs
            )));
        }
        if let Some(z) = self.zones {
            limits::check_count("zones", z, limits::MAX_ZONES).map_err(usage)?;
        }
        if let Some(s) = self.target.size
            && (s == 0 || !s.is_multiple_of(BLOCK_U64))
        {
            return Err(usage(format!("--size must be a positive multiple of 4 KiB, got {s}")));
        }
        Ok(())
    }
}

/// The bytes being verified: the device itself or a directory's files.
enum Media {
    Device(Box<Target>),
    Files(FileSet),
}

impl Media {
    fn layout(&self) -> VerifyLayout {
        match self {
            Media::Device(_) => VerifyLayout::Device,
            Media::Files(f) => VerifyLayout::Files {
                dir: f.dir().display().to_string(),
                file_bytes: f.file_bytes(),
                files: f.count() as u64,
            },
        }
    }

    fn direct(&self) -> bool {
        match self {
            Media::Device(t) => t.direct(),
            Media::Files(f) => f.direct(),
        }
    }

    fn file_bytes(&self) -> Option<u64> {
        match self {
            Media::Device(_) => None,
            Media::Files(f) => Some(f.file_bytes()),
        }
    }

    fn fd_for_read(&self, off: u64) -> Option<(BorrowedFd<'_>, u64)> {
        match self {
            Media::Device(t) => Some((t.as_fd(), off)),
            Media::Files(f) => f.fd_for_read(off),
        }
    }

    /// Flush the data written so far (the file or device holding `off`).
    fn sync_at(&self, off: u64) -> std::io::Result<()> {
        match self {
            Media::Device(t) => sys::fdatasync(t.as_fd()),
            Media::Files(f) => f.sync_at(off),
        }
    }

    /// Everything on stable storage, and (buffered) out of the page cache.
    fn flush_for_reading(&self) -> Result<()> {
        let r = match self {
            Media::Device(t) if t.direct() => self.sync_at(0),
            Media::Device(t) => t.drop_cache().map_err(|e| std::io::Error::other(e.to_string())),
            Media::Files(f) => f.flush(!f.direct()),
        };
        r.map_err(|source| VerifyError::ReadBackFlush { source }.into())
    }
}

/// A request: `[off, off + len)`, inside one zone and one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunk {
    off: u64,
    len: usize,
    zone: usize,
}

/// The requests over `[0, end)` in order, cut at zone edges and file edges.
#[derive(Clone)]
struct Chunks<'a> {
    at: u64,
    end: u64,
    bs: u64,
    file_bytes: Option<u64>,
    zones: &'a [(u64, u64)],
    zone: usize,
}

impl Iterator for Chunks<'_> {
    type Item = Chunk;
    fn next(&mut self) -> Option<Chunk> {
        if self.at >= self.end {
            return None;
        }
        while self.zone + 1 < self.zones.len() && self.at >= self.zones[self.zone].0 + self.zones[self.zone].1 {
            self.zone += 1;
        }
        let (zo, zb) = self.zones[self.zone];
        let mut to = (self.at + self.bs).min(self.end).min(zo + zb);
        if let Some(fb) = self.file_bytes {
            to = to.min((self.at / fb + 1) * fb);
        }
        let c = Chunk {
            off: self.at,
            len: (to - self.at) as usize,
            zone: self.zone,
        };
        self.at = to;
        Some(c)
    }
}

/// `n` zones over `[0, bytes)`, whole blocks each (the last takes the rest).
fn zones(bytes: u64, n: u32) -> Vec<(u64, u64)> {
    let blocks = bytes / BLOCK_U64;
    let n = (n as u64).clamp(1, blocks.max(1));
    let per = blocks / n * BLOCK_U64;
    (0..n)
        .map(|i| {
            let off = i * per;
            let len = if i + 1 == n { bytes - off } else { per };
            (off, len)
        })
        .collect()
}

/// What a verify has found so far (kept as it goes, so a stop keeps it).
struct State {
    pass: u64,
    planned: u64,
    written: u64,
    zones: Vec<(u64, u64)>,
    write_bw: Vec<Option<f64>>,
    read_bw: Vec<Option<f64>>,
    bad: Vec<u64>,
    write_s: f64,
    read_s: f64,
    write_errors: u64,
    first_write_error: Option<u64>,
    cold_wait_s: Option<f64>,
    tally: VerifyTally,
}

impl State {
    /// Nothing found yet: a new pass over `planned` bytes in `zones`.
    fn new(planned: u64, zones: Vec<(u64, u64)>) -> State {
        let n = zones.len();
        State {
            pass: crate::verify::new_pass(),
            planned,
            written: 0,
            zones,
            write_bw: vec![None; n],
            read_bw: vec![None; n],
            bad: vec![0; n],
            write_s: 0.0,
            read_s: 0.0,
            write_errors: 0,
            first_write_error: None,
            cold_wait_s: None,
            tally: VerifyTally::new(),
        }
    }

    /// The report of what was found, judged, with the bytes' layout and
    /// whether the I/O was direct, of a verify of `info` in blocks of `bs`.
    fn report(&self, bs: u64, layout: VerifyLayout, direct: bool, info: &TargetInfo) -> VerifyReport {
        let mut report = VerifyReport {
            pass: self.pass,
            bs,
            planned_bytes: self.planned,
            written_bytes: self.written,
            layout,
            direct,
            cold_wait_s: self.cold_wait_s,
            write_s: self.write_s,
            read_s: self.read_s,
            write_errors: self.write_errors,
            first_write_error: self.first_write_error,
            zones: self
                .zones
                .iter()
                .enumerate()
                .map(|(i, &(offset, bytes))| VerifyZone {
                    offset,
                    bytes,
                    write_bw_bytes: self.write_bw[i],
                    read_bw_bytes: self.read_bw[i],
                    bad_bytes: self.bad[i],
                })
                .collect(),
            write_drop: None,
            read_drop: None,
            summary: self.tally.summary(),
            device: device_identity(info),
        };
        report.judge_curve();
        report
    }
}

/// Open what verify writes: a block device as a target, or a directory
/// as a set of files (after sweeping a killed run's leftovers). Returns
/// them with the target's facts and the bytes to verify.
fn open_media(r: &VerifyRequest, md: &std::fs::Metadata, ctx: &Context) -> Result<(Media, TargetInfo, u64)> {
    let path = &r.target.path;
    if md.file_type().is_block_device() {
        let t = targets::open(&r.target.request(true, r.bs), &ctx.sys, ctx.stop, ctx.observer)?;
        let planned = t.span() / BLOCK_U64 * BLOCK_U64;
        let info = t.info.clone();
        Ok((Media::Device(Box::new(t)), info, planned))
    } else if md.is_dir() {
        if let Some(text) = crate::targets::leftovers::notice(&crate::targets::leftovers::sweep(path)) {
            ctx.observer.event(Event::Notice {
                level: Level::Note,
                text: &text,
            });
        }
        let planned = directory_bytes(path, r.target.size)?;
        let files = FileSet::new(path, VERIFY_FILE_BYTES, r.cold_wait.is_some(), !r.target.buffered)?;
        let mut info = TargetInfo::directory(&ctx.sys, path, crate::device::chain_of_path(&ctx.sys, path));
        info.test_file = true;
        info.span_bytes = planned;
        Ok((Media::Files(files), info, planned))
    } else {
        Err(usage(format!(
            "{} is not a directory or a block device: verify fills a directory's free space with files of its own, or writes a whole device (--allow-destroy)",
            path.display()
        )))
    }
}

/// Why a verify run failed once its target was accepted: the system's
/// error, and where in the run it happened. Each gives exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("flushing before the read-back: {source}")]
    ReadBackFlush { source: std::io::Error },
    #[error("flushing the writes before {}: {source}", fmt_bytes(*end))]
    ZoneFlush { end: u64, source: std::io::Error },
    /// A write whose descriptor went bad: no block of it can be trusted.
    #[error("writing at {offset}: {source}")]
    Write { offset: u64, source: std::io::Error },
    #[error("cannot open the terminal: {source}")]
    Terminal { source: std::io::Error },
    #[error("reading the terminal: {source}")]
    TerminalRead { source: std::io::Error },
}

impl From<VerifyError> for crate::base::error::Error {
    fn from(e: VerifyError) -> Self {
        crate::base::error::failed_by(e)
    }
}

pub(super) fn run(r: &VerifyRequest, ctx: &Context) -> Result<Measured> {
    let path = &r.target.path;
    let md = targets::metadata_of(path)?;
    targets::refuse_non_storage(path, &md)?;
    if r.cold_wait == Some(ColdWait::Prompt) && !tty_available() {
        return Err(usage(
            "--cold-wait without a duration waits for Enter on a terminal, and there is none; give a duration (--cold-wait 30s)",
        ));
    }
    let (mut media, info, planned) = open_media(r, &md, ctx)?;
    if planned == 0 {
        return Err(usage(format!("{} has no whole {BLOCK}-byte block to verify", path.display())));
    }
    let zs = zones(planned, r.zones.unwrap_or_else(|| default_zones(planned)));
    let mut st = State::new(planned, zs);
    if r.target.buffered {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: "--buffered: writes and reads go through the page cache, which is flushed and dropped before the read-back",
        });
    } else if !media.direct() {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: &format!(
                "{} does not support O_DIRECT: verify reads BUFFERED after flushing and dropping the page cache; the result is labelled buffered",
                path.display()
            ),
        });
    }
    // How the bytes were laid out, as of the last phase that ran (a stop
    // during the cold wait leaves no media to ask).
    let mut facts = (media.layout(), media.direct());
    let interrupted = until_stopped(|| {
        let result = write_phase(&mut media, r.bs, &mut st, ctx);
        facts = (media.layout(), media.direct());
        result?;
        media.flush_for_reading()?;
        let media = match r.cold_wait {
            Some(w) => {
                let t0 = Instant::now();
                let m = cold_wait(media, w, r, ctx);
                st.cold_wait_s = Some(t0.elapsed().as_secs_f64());
                m?
            }
            None => media,
        };
        let result = read_phase(&media, r.bs, &mut st, ctx);
        facts = (media.layout(), media.direct());
        result
    })?;
    let (layout, direct) = facts;
    let mut info = info;
    info.direct = direct;
    let report = st.report(r.bs, layout, direct, &info);
    Ok(Measured {
        command: "verify",
        target: info,
        settings: Settings::one_pass(),
        body: Body::Verify(report),
        interrupted,
        failed: None,
    })
}

/// The bytes to verify in directory `dir`: `--size`, or the free space
/// less [`limits::verify_free_margin`], in whole blocks.
fn directory_bytes(dir: &Path, size: Option<u64>) -> Result<u64> {
    let vfs = rustix::fs::statvfs(dir).map_err(|e| crate::targets::error::TargetError::Filesystem {
        dir: dir.to_path_buf(),
        source: e.into(),
    })?;
    let free = vfs.f_bavail * vfs.f_frsize;
    let usable = free.saturating_sub(limits::verify_free_margin(free)) / BLOCK_U64 * BLOCK_U64;
    match size {
        Some(s) if s > usable => Err(usage(format!(
            "--size {} is more than the free space of {} less the margin ({} of {} free)",
            fmt_bytes(s),
            dir.display(),
            fmt_bytes(usable),
            fmt_bytes(free)
        ))),
        Some(s) => Ok(s),
        None if usable == 0 => Err(usage(format!(
            "{} has {} free, nothing to verify after the margin of {}",
            dir.display(),
            fmt_bytes(free),
            fmt_bytes(limits::verify_free_margin(free))
        ))),
        None => Ok(usable),
    }
}

/// `pwrite` all of `buf` at `off`; a write that stores nothing is ENOSPC.
fn pwrite_all(fd: BorrowedFd<'_>, buf: &[u8], off: u64) -> std::io::Result<()> {
    Ok(sys::write_all_at(fd, buf, off)?)
}

/// `pread` all of `buf` at `off`; a short read (the end) is an error.
fn pread_all(fd: BorrowedFd<'_>, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    Ok(sys::read_exact_at(fd, buf, off)?)
}

/// Write the stamped blocks in order, a zone at a time, each zone timed
/// from its first request to its flush. Stamps are made ahead on another
/// thread. A filesystem that fills up early ends the range there.
fn write_phase(media: &mut Media, bs: u64, st: &mut State, ctx: &Context) -> Result<()> {
    let zones = st.zones.clone();
    let end = st.planned;
    let chunks = Chunks {
        at: 0,
        end,
        bs,
        file_bytes: media.file_bytes(),
        zones: &zones,
        zone: 0,
    };
    let pass = st.pass;
    let stop = ctx.stop;
    let t_all = Instant::now();
    let result = std::thread::scope(|s| -> Result<()> {
        let (full_tx, full_rx) = mpsc::sync_channel::<(Chunk, AlignedBuf)>(PIPELINE);
        let (free_tx, free_rx) = mpsc::channel::<AlignedBuf>();
        for _ in 0..PIPELINE {
            let _ = free_tx.send(AlignedBuf::new(bs as usize));
        }
        let gen_chunks = chunks.clone();
        s.spawn(move || {
            for c in gen_chunks {
                let Ok(mut buf) = free_rx.recv() else { return };
                fill(&mut buf.as_mut_slice()[..c.len], c.off, pass);
                if full_tx.send((c, buf)).is_err() {
                    return;
                }
            }
        });
        // Seconds inside write calls for the current zone: the device's
        // time, not the time spent waiting for stamps.
        let mut busy = Duration::ZERO;
        for (c, buf) in full_rx.iter() {
            stop.check()?;
            let data = &buf.as_slice()[..c.len];
            let t0 = Instant::now();
            let written = write_chunk(media, c, data, st)?;
            busy += t0.elapsed();
            match written {
                Written::All => {}
                Written::Full(at) => {
                    st.planned = at;
                    st.written = at;
                    st.zones.truncate(c.zone + 1);
                    st.zones[c.zone].1 = at - st.zones[c.zone].0;
                    ctx.observer.event(Event::Notice {
                        level: Level::Note,
                        text: &format!("the filesystem is full at {}: verifying what was written", fmt_bytes(at)),
                    });
                    finish_zone(media, c.zone, at, busy, st)?;
                    return Ok(());
                }
            }
            let _ = free_tx.send(buf);
            st.written = c.off + c.len as u64;
            ctx.observer.event(Event::Phase {
                label: "writing",
                done: st.written,
                total: end,
            });
            let (zo, zb) = st.zones[c.zone];
            if st.written == zo + zb {
                finish_zone(media, c.zone, st.written, std::mem::take(&mut busy), st)?;
            }
        }
        Ok(())
    });
    st.write_s = t_all.elapsed().as_secs_f64();
    let n = st.zones.len();
    st.write_bw.truncate(n);
    st.read_bw.truncate(n);
    st.bad.truncate(n);
    result
}

/// Flush the zone just written and record its rate: the time in its
/// writes (`busy`) and in the flush.
fn finish_zone(media: &Media, z: usize, end: u64, busy: Duration, st: &mut State) -> Result<()> {
    let t0 = Instant::now();
    media
        .sync_at(end.saturating_sub(1))
        .map_err(|source| VerifyError::ZoneFlush { end, source })?;
    let secs = (busy + t0.elapsed()).as_secs_f64();
    let bytes = end - st.zones[z].0;
    st.write_bw[z] = (secs > 0.0 && bytes > 0).then(|| bytes as f64 / secs);
    Ok(())
}

enum Written {
    All,
    /// The filesystem is full from this logical offset on.
    Full(u64),
}

/// One request; on an error, each block alone (so a failing stretch is
/// known to the block). O_DIRECT refused at the first write (some
/// filesystems accept the flag and fail the I/O) falls back to buffered.
fn write_chunk(media: &mut Media, c: Chunk, data: &[u8], st: &mut State) -> Result<Written> {
    let fd_of = |m: &mut Media, off: u64| -> Result<(RawFd, u64)> {
        match m {
            Media::Device(t) => Ok((t.fd(), off)),
            Media::Files(f) => f.fd_for_write(off),
        }
    };
    let (fd, at) = fd_of(media, c.off)?;
    // The descriptor of the file just made sure of, borrowed for each write.
    let write = |m: &Media, data: &[u8], at: u64| match m.fd_for_read(c.off) {
        Some((fd, _)) => pwrite_all(fd, data, at),
        None => Err(std::io::Error::from_raw_os_error(libc::EBADF)),
    };
    let mut e = match write(media, data, at) {
        Ok(()) => return Ok(Written::All),
        Err(e) => e,
    };
    if e.raw_os_error() == Some(libc::EINVAL)
        && let Media::Files(f) = media
        && f.direct()
    {
        f.set_direct(false);
        match write(media, data, at) {
            Ok(()) => return Ok(Written::All),
            Err(e2) => e = e2,
        }
    }
    if matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EFBIG) | Some(libc::EDQUOT)) && media.file_bytes().is_some() {
        return Ok(Written::Full(full_at(fd, c, at)));
    }
    if e.raw_os_error() == Some(libc::EBADF) {
        return Err(VerifyError::Write { offset: c.off, source: e }.into());
    }
    for (k, block) in data.chunks_exact(BLOCK).enumerate() {
        let off = c.off + k as u64 * BLOCK_U64;
        if let Err(be) = write(media, block, at + k as u64 * BLOCK_U64) {
            if matches!(be.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EFBIG)) && media.file_bytes().is_some() {
                return Ok(Written::Full(off));
            }
            st.write_errors += 1;
            st.first_write_error.get_or_insert(off);
        }
    }
    Ok(Written::All)
}

/// Where a full filesystem ended the range: the whole blocks of the
/// request's file that are there (a short write may have stored some).
fn full_at(fd: RawFd, c: Chunk, at: u64) -> u64 {
    let len = std::fs::metadata(format!("/proc/self/fd/{fd}")).map(|m| m.len()).unwrap_or(at);
    let stored = len.clamp(at, at + c.len as u64);
    c.off + (stored - at) / BLOCK_U64 * BLOCK_U64
}

/// Read everything written, in order, and classify every block. Reads run
/// on their own thread, each zone timed from its first request to its
/// last completion; the classification follows behind.
fn read_phase(media: &Media, bs: u64, st: &mut State, ctx: &Context) -> Result<()> {
    enum Msg {
        Data(Chunk, AlignedBuf, Vec<u64>),
        Zone(usize, f64),
    }
    let zones = st.zones.clone();
    let end = st.planned;
    let chunks = Chunks {
        at: 0,
        end,
        bs,
        file_bytes: media.file_bytes(),
        zones: &zones,
        zone: 0,
    };
    let stop: &Stop = ctx.stop;
    let t_all = Instant::now();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Msg>(PIPELINE);
        let (free_tx, free_rx) = mpsc::channel::<AlignedBuf>();
        for _ in 0..PIPELINE {
            let _ = free_tx.send(AlignedBuf::new(bs as usize));
        }
        s.spawn(move || {
            // (zone, seconds inside its read calls): the device's time, not
            // the time spent waiting for the classifier.
            let mut zone: Option<(usize, Duration)> = None;
            for c in chunks {
                if stop.requested() {
                    return;
                }
                if let Some((z, busy)) = zone
                    && z != c.zone
                {
                    let _ = tx.send(Msg::Zone(z, busy.as_secs_f64()));
                    zone = None;
                }
                let Ok(mut buf) = free_rx.recv() else { return };
                let t0 = Instant::now();
                let bad = read_chunk(media, c, &mut buf.as_mut_slice()[..c.len]);
                zone.get_or_insert((c.zone, Duration::ZERO)).1 += t0.elapsed();
                if tx.send(Msg::Data(c, buf, bad)).is_err() {
                    return;
                }
            }
            if let Some((z, busy)) = zone {
                let _ = tx.send(Msg::Zone(z, busy.as_secs_f64()));
            }
        });
        for m in rx.iter() {
            match m {
                Msg::Zone(z, secs) => {
                    let (zo, zb) = st.zones[z];
                    let bytes = zb.min(end.saturating_sub(zo));
                    st.read_bw[z] = (secs > 0.0 && bytes > 0).then(|| bytes as f64 / secs);
                }
                Msg::Data(c, buf, bad) => {
                    classify_chunk(c, &buf.as_slice()[..c.len], &bad, st);
                    let _ = free_tx.send(buf);
                    ctx.observer.event(Event::Phase {
                        label: "reading back",
                        done: c.off + c.len as u64,
                        total: end,
                    });
                }
            }
        }
    });
    st.read_s = t_all.elapsed().as_secs_f64();
    stop.check()
}

/// Read one request; on an error, each block alone. Returns the offsets
/// of the blocks that could not be read.
fn read_chunk(media: &Media, c: Chunk, buf: &mut [u8]) -> Vec<u64> {
    let Some((fd, at)) = media.fd_for_read(c.off) else {
        return (0..c.len as u64 / BLOCK_U64).map(|k| c.off + k * BLOCK_U64).collect();
    };
    if pread_all(fd, buf, at).is_ok() {
        return Vec::new();
    }
    let mut bad = Vec::new();
    for (k, block) in buf.chunks_exact_mut(BLOCK).enumerate() {
        if pread_all(fd, block, at + k as u64 * BLOCK_U64).is_err() {
            bad.push(c.off + k as u64 * BLOCK_U64);
        }
    }
    bad
}

/// Classify every block of a request read back, into the tally and its zone.
fn classify_chunk(c: Chunk, data: &[u8], unreadable: &[u64], st: &mut State) {
    for (k, block) in data.chunks_exact(BLOCK).enumerate() {
        let off = c.off + k as u64 * BLOCK_U64;
        let state = if unreadable.binary_search(&off).is_ok() {
            BlockState::Unreadable
        } else {
            classify(block, off, st.pass)
        };
        if !state.is_good() {
            st.bad[c.zone] += BLOCK_U64;
        }
        st.tally.push(off, state);
    }
}

/// Let go of the device for the wait, then open it again: nothing it
/// cached on its own side survives an unplug.
fn cold_wait(media: Media, w: ColdWait, r: &VerifyRequest, ctx: &Context) -> Result<Media> {
    let what = match w {
        ColdWait::Prompt => "press Enter to read back".to_string(),
        ColdWait::For(d) => format!("reading back in {}", humantime::format_duration(d)),
    };
    let (media, size) = match media {
        Media::Device(t) => {
            let size = t.span();
            drop(t);
            (None, Some(size))
        }
        Media::Files(mut f) => {
            f.close()?;
            (Some(f), None)
        }
    };
    ctx.observer.event(Event::Notice {
        level: Level::Note,
        text: &format!(
            "written and flushed; {} is let go: unplug and replug it now if you can (its own cache then cannot answer); {what}",
            r.target.path.display()
        ),
    });
    match w {
        ColdWait::Prompt => wait_for_enter(ctx.stop)?,
        ColdWait::For(d) => {
            ctx.stop.sleep(d);
            ctx.stop.check()?;
        }
    }
    match (media, size) {
        (Some(mut f), _) => {
            f.reopen()?;
            Ok(Media::Files(f))
        }
        (None, Some(size)) => {
            let mut req = r.target.request(false, r.bs);
            req.size = None;
            let t = targets::open(&req, &ctx.sys, ctx.stop, ctx.observer)?;
            if t.info.kind != Kind::BlockDevice || t.span() < size {
                return Err(failed(format!(
                    "{} came back as {} (was {}): not the device that was written",
                    r.target.path.display(),
                    fmt_bytes(t.span()),
                    fmt_bytes(size)
                )));
            }
            Ok(Media::Device(Box::new(t)))
        }
        (None, None) => unreachable!("a device has a size"),
    }
}

fn tty_available() -> bool {
    std::fs::File::open("/dev/tty").is_ok()
}

/// Whether `fd` has something to read within `wait` (`poll`).
fn readable_within(fd: impl std::os::fd::AsFd, wait: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut p = [PollFd::new(&fd, PollFlags::IN)];
    let wait = rustix::time::Timespec::try_from(wait).ok();
    poll(&mut p, wait.as_ref()).is_ok_and(|n| n > 0)
}

/// Wait for a line on the terminal, waking for a stop request.
fn wait_for_enter(stop: &Stop) -> Result<()> {
    use std::io::Read;
    let mut tty = std::fs::File::open("/dev/tty").map_err(|source| VerifyError::Terminal { source })?;
    loop {
        stop.check()?;
        if readable_within(&tty, Duration::from_millis(100)) {
            let mut b = [0u8; 256];
            match tty.read(&mut b) {
                Ok(0) => return Err(failed("the terminal closed during --cold-wait")),
                Ok(k) if b[..k].contains(&b'\n') => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => return Err(VerifyError::TerminalRead { source }.into()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(end: u64, bs: u64, fb: Option<u64>, zs: &[(u64, u64)]) -> Vec<Chunk> {
        Chunks {
            at: 0,
            end,
            bs,
            file_bytes: fb,
            zones: zs,
            zone: 0,
        }
        .collect()
    }

    #[test]
    fn zones_are_whole_blocks_and_cover_the_range() {
        let z = zones(10 * 4096 + 4096, 3);
        assert_eq!(z, vec![(0, 3 * 4096), (3 * 4096, 3 * 4096), (6 * 4096, 5 * 4096)]);
        assert_eq!(zones(8192, 100).len(), 2, "never more zones than blocks");
        assert_eq!(zones(4096, 1), vec![(0, 4096)]);
    }

    #[test]
    fn chunks_stop_at_zone_and_file_edges() {
        let zs = zones(40 << 10, 2); // 20 KiB each
        let c = all(40 << 10, 16 << 10, None, &zs);
        let v: Vec<(u64, usize, usize)> = c.iter().map(|c| (c.off >> 10, c.len >> 10, c.zone)).collect();
        assert_eq!(v, vec![(0, 16, 0), (16, 4, 0), (20, 16, 1), (36, 4, 1)]);
        let c = all(40 << 10, 16 << 10, Some(12 << 10), &zs);
        let v: Vec<(u64, usize)> = c.iter().map(|c| (c.off >> 10, c.len >> 10)).collect();
        assert_eq!(v, vec![(0, 12), (12, 8), (20, 4), (24, 12), (36, 4)]);
        let total: usize = c.iter().map(|c| c.len).sum();
        assert_eq!(total, 40 << 10);
    }

    #[test]
    fn classified_blocks_land_in_their_zone() {
        let zs = zones(4 * 4096, 2);
        let mut st = State {
            pass: 7,
            planned: 4 * 4096,
            written: 4 * 4096,
            zones: zs,
            write_bw: vec![None; 2],
            read_bw: vec![None; 2],
            bad: vec![0; 2],
            write_s: 0.0,
            read_s: 0.0,
            write_errors: 0,
            first_write_error: None,
            cold_wait_s: None,
            tally: VerifyTally::new(),
        };
        let mut z = vec![0u8; 2 * 4096];
        fill(&mut z, 0, 7);
        classify_chunk(
            Chunk {
                off: 0,
                len: 2 * 4096,
                zone: 0,
            },
            &z,
            &[4096],
            &mut st,
        );
        let mut buf = vec![0u8; 2 * 4096];
        fill(&mut buf, 2 * 4096, 7);
        buf[4096 + 100] ^= 1;
        classify_chunk(
            Chunk {
                off: 2 * 4096,
                len: 2 * 4096,
                zone: 1,
            },
            &buf,
            &[],
            &mut st,
        );
        assert_eq!(st.bad, vec![4096, 4096]);
        let s = st.tally.summary();
        assert_eq!(s.bytes.corrupted, 4096);
        assert_eq!(s.bytes.unreadable, 4096);
        assert_eq!(s.first_bad, Some(4096));
        assert_eq!(s.bytes.good, 2 * 4096);
    }
}
