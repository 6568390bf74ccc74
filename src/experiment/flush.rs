//! `iolab flush` (issue 37): does a device keep what a flush acknowledged?
//! diskchecker.pl's and wbtest's question.
//!
//! Writing ([`FlushRun::Write`]): generations of stamped blocks
//! ([`crate::verify::block`]) at the offsets of a [`FlushPlan`] (spread over
//! the device, every extent written again each cycle), each generation's
//! batch written with O_DIRECT and ended by `fdatasync`; when the flush
//! returns, the generation is appended to the log, and the log is flushed
//! before the next batch starts. The log must be on another device than
//! the target (refused otherwise): a power cut must not take both. The
//! user cuts the device's power while it runs; the progress line says when
//! enough generations are acknowledged for a verdict. An I/O error on the
//! device ends the writes without failing the run: that is the cut.
//!
//! Checking ([`FlushRun::Check`]): the log read back
//! ([`crate::verify::flush::parse_log`]), then every block the log says was
//! acknowledged (and those of the generation in flight at the cut) read
//! with O_DIRECT and judged ([`FlushTally`]): honest, lied (acknowledged
//! blocks lost or stale) or reordered. Without a power cut, a check proves
//! that the log and the device agree.

use super::{Context, Measured, until_stopped};
use crate::base::error::{Result, failed, usage};
use crate::base::progress::{Event, Level};
use crate::device::{BlockDev, SysRoot};
use crate::io::buffers::AlignedBuf;
use crate::io::sys;
use crate::summary::flush_check::{FlushAction, FlushReport, FlushTimes};
use crate::summary::verify::device_identity;
use crate::summary::{Body, Settings};
use crate::targets::{self, Choice, Target};
use crate::verify::block::{BLOCK, BLOCK_U64, fill_generation};
use crate::verify::flush::{
    EXTENT_BLOCKS, FlushPlan, FlushTally, LogHeader, ack_line, end_line, found, header_line, parse_ack_line, parse_end_line,
    parse_header_line, parse_log,
};
use crate::verify::{Class, new_pass};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `iolab flush` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushRun {
    /// Write generations until `generations` are acknowledged (`None`:
    /// until stopped or cut), each about `batch` bytes.
    Write { generations: Option<u64>, batch: u64 },
    /// Read back what the log says was acknowledged.
    Check,
}

/// Where the log of acknowledged generations goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogPlace {
    /// A file on this host, on another disk than the target's.
    File(PathBuf),
    /// `iolab flush --listen` on another host (`HOST:PORT`).
    Host(String),
}

impl LogPlace {
    /// The log as messages and the report name it.
    pub fn shown(&self) -> String {
        match self {
            LogPlace::File(p) => p.display().to_string(),
            LogPlace::Host(h) => format!("{h} (iolab flush --listen)"),
        }
    }

    /// What to run after the power cut, with the device back.
    fn check_command(&self, target: &Path) -> String {
        match self {
            LogPlace::File(p) => format!("iolab flush {} --check --log {}", target.display(), p.display()),
            LogPlace::Host(_) => format!(
                "iolab flush {} --check --log FILE, FILE a copy of the listener's log",
                target.display()
            ),
        }
    }
}

/// `iolab flush` as the user asks for it.
#[derive(Clone, Debug)]
pub struct FlushRequest {
    /// The block device; `size` caps the span the extents are spread over.
    pub target: Choice,
    /// Where the acknowledged generations are logged.
    pub log: LogPlace,
    pub run: FlushRun,
}

impl FlushRequest {
    pub fn validate(&self) -> Result<()> {
        if let FlushRun::Write { generations, batch } = self.run {
            if batch == 0 || !batch.is_multiple_of(BLOCK_U64) {
                return Err(usage(format!("--batch must be a positive multiple of 4 KiB, got {batch}")));
            }
            if generations == Some(0) {
                return Err(usage("--generations must be at least 1"));
            }
        }
        if self.run == FlushRun::Check
            && let LogPlace::Host(_) = self.log
        {
            return Err(usage("--check reads a log file (--log FILE): copy the listener's log here"));
        }
        if let Some(s) = self.target.size
            && (s == 0 || !s.is_multiple_of(BLOCK_U64))
        {
            return Err(usage(format!("--size must be a positive multiple of 4 KiB, got {s}")));
        }
        Ok(())
    }
}

pub(super) fn run(r: &FlushRequest, ctx: &Context) -> Result<Measured> {
    let path = &r.target.path;
    let md = targets::metadata_of(path)?;
    targets::refuse_non_storage(path, &md)?;
    if !md.file_type().is_block_device() {
        return Err(usage(format!(
            "{} is not a block device: flush writes stamped blocks to a device (a disk, a stick, a partition) whose power is then cut, and reads them back",
            path.display()
        )));
    }
    match r.run {
        FlushRun::Write { generations, batch } => {
            let dev = (rustix::fs::major(md.rdev()), rustix::fs::minor(md.rdev()));
            write(r, ctx, dev, generations, batch)
        }
        FlushRun::Check => check(r, ctx),
    }
}

/// The whole disk a device of the chain is part of (`sdb` for `sdb1`).
fn whole(d: &BlockDev) -> &str {
    d.partition_of.as_deref().unwrap_or(&d.name)
}

/// Where the log may go: a new file, in an existing directory, on no disk
/// that serves the target (device number `dev`). Returns whether the log
/// is in memory (tmpfs: a power cut of this machine loses it).
fn check_log_place(sys: &SysRoot, log: &Path, target: &Path, dev: (u32, u32)) -> Result<bool> {
    if std::fs::symlink_metadata(log).is_ok() {
        return Err(usage(format!(
            "the log {} exists: it holds another run's acknowledgements (check them with --check, or remove the file)",
            log.display()
        )));
    }
    let dir = match log.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(usage(format!("the log's directory {} does not exist", dir.display())));
    }
    let target_chain = crate::device::chain_for_dev(sys, dev.0, dev.1);
    let disks: Vec<&str> = target_chain.iter().map(whole).collect();
    let log_chain = crate::device::chain_of_path(sys, &dir);
    if let Some(d) = log_chain.iter().find(|d| disks.contains(&whole(d))) {
        return Err(usage(format!(
            "refusing to keep the log {} on /dev/{}, which also holds {}: a power cut would take the log with the device; put the log on another disk",
            log.display(),
            whole(d),
            target.display()
        )));
    }
    let in_memory =
        log_chain.is_empty() && crate::device::filesystem_of(sys, &dir).is_some_and(|f| matches!(f.fstype.as_str(), "tmpfs" | "ramfs"));
    Ok(in_memory)
}

/// The log, open for appending: each line on stable storage (a file here,
/// flushed; or kept by the listener on another host, which answers once it
/// is) before the next batch starts.
enum Log {
    File {
        file: std::fs::File,
        path: PathBuf,
    },
    Host {
        stream: TcpStream,
        answers: BufReader<TcpStream>,
        addr: String,
    },
}

/// How long a connection to the log host may take, and its answer to a line.
const HOST_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the log of acknowledged flushes could not be made, reached, kept
/// or read: the file or the host and the system's error, and the exit
/// status each gives ([`LogError::usage`]).
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot create the log {}: {source}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot reach the log host {addr}: {source}")]
    Unreachable { addr: String, source: std::io::Error },
    #[error("writing the log {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
    #[error("the log host {addr} did not keep a line: {source}")]
    NotKept { addr: String, source: std::io::Error },
    #[error("cannot listen on port {port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error("listening on port {port}: {source}")]
    Listen { port: u16, source: std::io::Error },
    #[error("the connection from {peer}: {source}")]
    Connection {
        peer: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot read the log {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
}

impl LogError {
    /// Whether the user's choice will not do (exit status 2: a log that
    /// cannot be created or read, a host not reached, a port not taken),
    /// rather than a run that then failed (1).
    pub fn usage(&self) -> bool {
        matches!(
            self,
            LogError::Create { .. } | LogError::Unreachable { .. } | LogError::Bind { .. } | LogError::Read { .. }
        )
    }
}

impl From<LogError> for crate::base::error::Error {
    fn from(e: LogError) -> Self {
        if e.usage() {
            crate::base::error::usage_by(e)
        } else {
            crate::base::error::failed_by(e)
        }
    }
}
/// The longest line a listener takes: a header with a long device identity.
const MAX_LINE: usize = 4096;

impl Log {
    /// A new log file (it must not exist).
    fn create(path: &Path) -> Result<Log> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o644)
            .open(path)
            .map_err(|source| LogError::Create {
                path: path.to_path_buf(),
                source,
            })?;
        // The new name itself on stable storage.
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(Log::File {
            file,
            path: path.to_path_buf(),
        })
    }

    /// A connection to `iolab flush --listen` at `addr` (`HOST:PORT`).
    fn connect(addr: &str) -> Result<Log> {
        let refused = |source: std::io::Error| LogError::Unreachable {
            addr: addr.to_string(),
            source,
        };
        let to = addr
            .to_socket_addrs()
            .map_err(refused)?
            .next()
            .ok_or_else(|| refused(std::io::Error::new(std::io::ErrorKind::NotFound, "no address")))?;
        let stream = TcpStream::connect_timeout(&to, HOST_TIMEOUT).map_err(refused)?;
        let _ = stream.set_nodelay(true);
        stream.set_read_timeout(Some(HOST_TIMEOUT)).map_err(refused)?;
        let answers = BufReader::new(stream.try_clone().map_err(refused)?);
        Ok(Log::Host {
            stream,
            answers,
            addr: addr.to_string(),
        })
    }

    fn append(&mut self, line: &str) -> Result<()> {
        match self {
            Log::File { file, path } => file.write_all(line.as_bytes()).and_then(|()| file.sync_data()).map_err(|source| {
                LogError::Write {
                    path: path.clone(),
                    source,
                }
                .into()
            }),
            Log::Host { stream, answers, addr } => {
                let lost = |source: std::io::Error| LogError::NotKept {
                    addr: addr.clone(),
                    source,
                };
                stream.write_all(line.as_bytes()).map_err(lost)?;
                let mut answer = String::new();
                answers.read_line(&mut answer).map_err(lost)?;
                match answer.as_str() {
                    "ok\n" => Ok(()),
                    "" => Err(lost(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "it closed the connection")).into()),
                    a => Err(lost(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("it answered {:?}", a.trim_end()),
                    ))
                    .into()),
                }
            }
        }
    }
}

/// `iolab flush --listen PORT --log FILE`: keep the log of a writer on
/// another host (`--log-host`), so that a power cut of the writer's whole
/// machine leaves it. One run per listener: its header, then its
/// acknowledgements in order, each line checked, appended to FILE and
/// flushed, and only then answered `ok`. Ends when the writer's connection
/// closes (its run ended, or its power was cut); returns what was kept.
pub fn listen(port: u16, log: &Path, ctx: &Context) -> Result<String> {
    if std::fs::symlink_metadata(log).is_ok() {
        return Err(usage(format!(
            "the log {} exists: it holds another run's acknowledgements (check them with --check, or remove the file)",
            log.display()
        )));
    }
    let listener = TcpListener::bind(("0.0.0.0", port)).map_err(|source| LogError::Bind { port, source })?;
    listener.set_nonblocking(true).map_err(|source| LogError::Listen { port, source })?;
    ctx.observer.event(Event::Notice {
        level: Level::Note,
        text: &format!(
            "listening on port {port}, the log going to {}: on the writer, run iolab flush DEVICE --allow-destroy --log-host THIS-HOST:{port}",
            log.display()
        ),
    });
    let (stream, peer) = loop {
        ctx.stop.check()?;
        match listener.accept() {
            Ok(s) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => ctx.stop.sleep(Duration::from_millis(50)),
            Err(source) => return Err(LogError::Listen { port, source }.into()),
        }
    };
    drop(listener);
    let broken = |source: std::io::Error| LogError::Connection { peer, source };
    stream.set_nonblocking(false).map_err(broken)?;
    stream.set_read_timeout(Some(Duration::from_millis(100))).map_err(broken)?;
    let mut reader = BufReader::new(stream.try_clone().map_err(broken)?);
    let mut answers = stream;
    let mut file: Option<Log> = None;
    let mut last: Option<u64> = None;
    let mut ended = false;
    let mut buf: Vec<u8> = Vec::new();
    loop {
        ctx.stop.check()?;
        let n = match reader.by_ref().take((MAX_LINE + 1 - buf.len()) as u64).read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // A reset: the writer's host went down.
            Err(_) => break,
        };
        if n == 0 && buf.is_empty() {
            break;
        }
        if !buf.ends_with(b"\n") {
            if buf.len() > MAX_LINE {
                return Err(failed(format!(
                    "{peer} sent a line of more than {MAX_LINE} bytes: not an iolab flush writer"
                )));
            }
            if n == 0 {
                // The connection closed inside a line: torn, not kept.
                break;
            }
            continue;
        }
        let line = std::str::from_utf8(&buf[..buf.len() - 1])
            .map_err(|_| failed(format!("{peer} sent a line that is not text: not an iolab flush writer")))?;
        match &mut file {
            None => {
                parse_header_line(line).map_err(|e| failed(format!("{peer} is not an iolab flush writer: {e}")))?;
                let mut f = Log::create(log)?;
                f.append(&format!("{line}\n"))?;
                file = Some(f);
            }
            Some(f) => {
                let want = last.map_or(0, |a| a + 1);
                // An acknowledgement, or the writer's end line after the last one.
                let ack = match (parse_ack_line(line), parse_end_line(line)) {
                    (Some(g), None) if g == want && !ended => true,
                    (None, Some((n, _))) if n == want && !ended => false,
                    _ => {
                        return Err(failed(format!(
                            "{peer} sent {line:?} where the acknowledgement of generation {want} was due"
                        )));
                    }
                };
                f.append(&format!("{line}\n"))?;
                if ack {
                    last = Some(want);
                } else {
                    ended = true;
                }
            }
        }
        buf.clear();
        if answers.write_all(b"ok\n").is_err() {
            break;
        }
    }
    let kept = last.map_or(0, |a| a + 1);
    Ok(match file {
        None => format!("iolab: {peer} sent no log; {} was not made", log.display()),
        Some(_) => format!(
            "iolab: kept {kept} acknowledged generation(s) from {peer} in {}; with the device back on the writer, check them there with a copy of this file: iolab flush DEVICE --check --log FILE",
            log.display()
        ),
    })
}

/// `fdatasync` on the target.
fn flush_device(t: &Target) -> std::io::Result<()> {
    sys::fdatasync(t.as_fd())
}

/// Open the device for the writer's `batch`, with O_DIRECT or not at all.
fn open_direct(r: &FlushRequest, ctx: &Context, batch: u64) -> Result<Target> {
    let max_bs = EXTENT_BLOCKS.min(batch / BLOCK_U64).max(1) * BLOCK_U64;
    let t = targets::open(&r.target.request(true, max_bs), &ctx.sys, ctx.stop, ctx.observer)?;
    if !t.direct() {
        return Err(usage(format!(
            "{} does not take O_DIRECT: flush writes past the page cache, so that only the device's flush stands between a write and its storage",
            r.target.path.display()
        )));
    }
    Ok(t)
}

/// Stamp and write generation `g`'s extents, one buffer each; the first
/// failed write ends it, and says where.
fn write_extents(t: &Target, plan: &FlushPlan, bufs: &mut [AlignedBuf], pass: u64, g: u64) -> std::result::Result<(), String> {
    let mut wrote = Ok(());
    for (buf, e) in bufs.iter_mut().zip(plan.extents_of(g)) {
        let off = plan.extent_offset(e);
        fill_generation(buf.as_mut_slice(), off, pass, g);
        wrote = sys::write_all_at(t.as_fd(), buf.as_slice(), off)
            .map_err(|e| format!("writing generation {g} at offset {off}: {}", std::io::Error::from(e)));
        if wrote.is_err() {
            break;
        }
    }
    wrote
}

/// Show the count of acknowledged generations, and say once, when there
/// are `enough`, that the power may be cut and what to run after.
fn say_acknowledged(ctx: &Context, acked: u64, enough: u64, next: &str) {
    let label = if acked >= enough {
        format!("{acked} generations acknowledged: enough for a verdict, cut the power now")
    } else {
        format!("generations acknowledged (a verdict needs {enough})")
    };
    ctx.observer.event(Event::Phase {
        label: &label,
        done: acked.min(enough),
        total: enough,
    });
    if acked == enough {
        ctx.observer.event(Event::Notice {
            level: Level::Note,
            text: &format!(
                "{enough} generations acknowledged, enough for a verdict: cut the device's power now (pull its cable or plug) while it writes; then, with it back, run: {next}"
            ),
        });
    }
}

/// How the writer ended, for the log's end line: none when the device
/// stopped answering (the cut), else interrupted or done.
fn ending(device_error: bool, interrupted: bool) -> Option<&'static str> {
    match (device_error, interrupted) {
        (true, _) => None,
        (false, true) => Some("interrupted"),
        (false, false) => Some("done"),
    }
}

fn write(r: &FlushRequest, ctx: &Context, dev: (u32, u32), generations: Option<u64>, batch: u64) -> Result<Measured> {
    let (in_memory, host) = match &r.log {
        LogPlace::File(p) => (check_log_place(&ctx.sys, p, &r.target.path, dev)?, None),
        // Reached before the device is opened: nothing is written without a log.
        LogPlace::Host(h) => (false, Some(Log::connect(h)?)),
    };
    let t = open_direct(r, ctx, batch)?;
    let plan = FlushPlan::new(t.span(), batch).map_err(usage)?;
    let pass = new_pass();
    let device = device_identity(&t.info);
    let mut log = match (&r.log, host) {
        (_, Some(h)) => h,
        (LogPlace::File(p), None) => Log::create(p)?,
        (LogPlace::Host(_), None) => unreachable!("a log host is connected first"),
    };
    log.append(&header_line(&LogHeader {
        pass,
        plan,
        device: device.clone(),
    }))?;
    let log_name = r.log.shown();
    let next = r.log.check_command(&r.target.path);
    if in_memory {
        ctx.observer.event(Event::Notice {
            level: Level::Warning,
            text: &format!(
                "the log {log_name} is in memory: cut only the device's power (its cable), not this machine's, or the log goes with it (or keep it on another host: --log-host)"
            ),
        });
    }
    let enough = plan.enough_generations();
    let mut bufs: Vec<AlignedBuf> = (0..plan.batch_extents)
        .map(|_| AlignedBuf::new(plan.extent_bytes() as usize))
        .collect();
    let mut flushes: Vec<f64> = Vec::new();
    let mut acked = 0u64;
    let mut device_error = None;
    let t0 = Instant::now();
    let interrupted = until_stopped(|| {
        for g in 0.. {
            if generations.is_some_and(|n| g >= n) {
                return Ok(());
            }
            ctx.stop.check()?;
            let wrote = write_extents(&t, &plan, &mut bufs, pass, g);
            let f0 = Instant::now();
            let flushed = wrote.and_then(|()| flush_device(&t).map_err(|e| format!("flushing generation {g}: {e}")));
            if let Err(e) = flushed {
                ctx.observer.event(Event::Notice {
                    level: Level::Warning,
                    text: &format!(
                        "the device stopped answering after {acked} acknowledged generation(s) ({e}); if its power was cut, plug it back in and run: {next}"
                    ),
                });
                device_error = Some(e);
                return Ok(());
            }
            flushes.push(f0.elapsed().as_secs_f64());
            log.append(&ack_line(g, t0.elapsed().as_secs_f64()))?;
            acked = g + 1;
            say_acknowledged(ctx, acked, enough, &next);
        }
        Ok(())
    })?;
    let write_s = t0.elapsed().as_secs_f64();
    // A writer that stopped by itself says so, so that a check of its log
    // is not taken for a check after a power cut; one the device stopped
    // (the cut) or a kill leaves the log without it.
    let writer_ended = ending(device_error.is_some(), interrupted.is_some());
    if let Some(why) = writer_ended {
        log.append(&end_line(acked, why))?;
    }
    let report = FlushReport {
        action: FlushAction::Write,
        log: log_name,
        pass,
        plan,
        enough_generations: enough,
        acknowledged_generations: acked,
        write_s: Some(write_s),
        flush_times: FlushTimes::of(&flushes),
        device_error,
        torn_tail: false,
        findings: None,
        device,
        writer_ended: writer_ended.map(str::to_string),
    };
    let mut info = t.info.clone();
    info.direct = t.direct();
    Ok(Measured {
        command: "flush",
        target: info,
        settings: Settings::one_pass(),
        body: Body::Flush(report),
        interrupted,
        failed: None,
    })
}

fn check(r: &FlushRequest, ctx: &Context) -> Result<Measured> {
    let LogPlace::File(path) = &r.log else {
        return Err(usage("--check reads a log file (--log FILE): copy the listener's log here"));
    };
    let text = std::fs::read(path).map_err(|source| LogError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8_lossy(&text);
    let log = parse_log(&text).map_err(|e| usage(format!("the log {}: {e}", path.display())))?;
    let plan = log.header.plan;
    let mut req = r.target.request(false, plan.extent_bytes());
    req.size = None;
    let t = targets::open(&req, &ctx.sys, ctx.stop, ctx.observer)?;
    if !t.direct() {
        return Err(usage(format!(
            "{} does not take O_DIRECT: a check must read the device, not the page cache",
            r.target.path.display()
        )));
    }
    if t.span() < plan.span_bytes {
        return Err(usage(format!(
            "{} holds {} bytes, and the log's run wrote over {}: not the device the log is of",
            r.target.path.display(),
            t.span(),
            plan.span_bytes
        )));
    }
    let device = device_identity(&t.info);
    if let (Some(now), Some(then)) = (&device, &log.header.device)
        && now != then
    {
        return Err(usage(format!(
            "the log {} is of device {then}, and {} is {now}: give the device the log was written on",
            path.display(),
            r.target.path.display()
        )));
    }
    let pass = log.header.pass;
    let expect = plan.expectations(log.last_acked);
    let mut tally = FlushTally::with_plan(plan);
    let mut buf = AlignedBuf::new(plan.extent_bytes() as usize);
    let total = expect.len() as u64;
    let interrupted = until_stopped(|| {
        for (i, (off, ex)) in expect.iter().enumerate() {
            ctx.stop.check()?;
            let data = buf.as_mut_slice();
            let whole_ok = sys::read_exact_at(t.as_fd(), data, *off).is_ok();
            for (k, block) in data.chunks_exact_mut(BLOCK).enumerate() {
                let o = off + k as u64 * BLOCK_U64;
                let readable = whole_ok || sys::read_exact_at(t.as_fd(), block, o).is_ok();
                let f = if readable {
                    found(block, o, pass)
                } else {
                    crate::verify::flush::Found::Other(Class::Unreadable)
                };
                tally.push(o, *ex, f);
            }
            ctx.observer.event(Event::Phase {
                label: "reading back the acknowledged blocks",
                done: i as u64 + 1,
                total,
            });
        }
        Ok(())
    })?;
    let mut findings = tally.summary(log.last_acked);
    if let Some(why) = &log.ended {
        findings.message.push_str(&format!(
            "; no power was cut while it wrote (the writer ended its log itself: {why}), so this shows that the log and the device agree, not that a flush survives a power cut"
        ));
    }
    let report = FlushReport {
        action: FlushAction::Check,
        log: path.display().to_string(),
        pass,
        plan,
        enough_generations: plan.enough_generations(),
        acknowledged_generations: log.last_acked.map_or(0, |a| a + 1),
        write_s: None,
        flush_times: None,
        device_error: None,
        torn_tail: log.torn_tail,
        findings: Some(findings),
        device,
        writer_ended: log.ended.clone(),
    };
    let mut info = t.info.clone();
    info.direct = t.direct();
    Ok(Measured {
        command: "flush",
        target: info,
        settings: Settings::one_pass(),
        body: Body::Flush(report),
        interrupted,
        failed: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, part_of: Option<&str>) -> BlockDev {
        BlockDev {
            name: name.into(),
            major: 8,
            minor: 0,
            partition_of: part_of.map(Into::into),
            size_bytes: 1 << 30,
            logical_block_size: 512,
            rotational: None,
            model: None,
            backing_file: None,
            memory: false,
        }
    }

    #[test]
    fn a_log_that_cannot_be_made_or_kept_says_why_with_the_systems_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("flush.log");
        std::fs::write(&path, "another run's\n").unwrap();
        // Never over another run's log.
        let e = Log::create(&path).err().unwrap();
        match e.cause::<LogError>() {
            Some(LogError::Create { path: p, source }) => {
                assert_eq!(p, &path);
                assert_eq!(source.kind(), std::io::ErrorKind::AlreadyExists);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string().starts_with(&format!("cannot create the log {}: ", path.display())),
            "{e}"
        );
        // A host that answers anything but "ok" did not keep the line: a failure of the run.
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let host = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(s.try_clone().unwrap()).read_line(&mut line).unwrap();
            s.write_all(b"no\n").unwrap();
        });
        let mut log = Log::connect(&addr).unwrap();
        let e = log.append("a line\n").err().unwrap();
        host.join().unwrap();
        match e.cause::<LogError>() {
            Some(LogError::NotKept { source, .. }) => assert_eq!(source.kind(), std::io::ErrorKind::InvalidData),
            other => panic!("{other:?}"),
        }
        assert_eq!(e.exit_code(), 1);
        assert_eq!(
            e.to_string(),
            format!("the log host {addr} did not keep a line: it answered \"no\"")
        );
    }

    #[test]
    fn a_partition_is_judged_by_its_whole_disk() {
        assert_eq!(whole(&dev("sdb1", Some("sdb"))), "sdb");
        assert_eq!(whole(&dev("loop3", None)), "loop3");
    }

    #[test]
    fn a_request_of_odd_sizes_is_refused() {
        let req = |run: FlushRun, size: Option<u64>| FlushRequest {
            target: Choice {
                path: "/dev/null".into(),
                size,
                buffered: false,
                allow_destroy: true,
                force: false,
                continue_on_error: false,
                allow_export: false,
            },
            log: LogPlace::File("/tmp/x".into()),
            run,
        };
        let w = |batch: u64, generations: Option<u64>| FlushRun::Write { generations, batch };
        assert!(req(w(1 << 20, None), None).validate().is_ok());
        assert!(req(w(1000, None), None).validate().is_err());
        assert!(req(w(1 << 20, Some(0)), None).validate().is_err());
        assert!(req(FlushRun::Check, Some(5000)).validate().is_err());
        assert!(req(FlushRun::Check, None).validate().is_ok());
        let mut remote = req(FlushRun::Check, None);
        remote.log = LogPlace::Host("h:1".into());
        assert!(remote.validate().is_err(), "a check reads a file");
        remote.run = w(1 << 20, None);
        assert!(remote.validate().is_ok());
    }
}
