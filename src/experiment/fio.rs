//! fio as an engine: the same plan, run by fio (`--engine fio`), locally
//! or on many hosts through fio's client/server mode. iolab plans, checks
//! the target, stores, compares and explains; fio executes.
//!
//! Locally the target is opened by iolab exactly as for its own engines
//! (the safety checks, and in a directory iolab's own prefilled, already
//! unlinked test file), and fio is pointed at it: a block device or file by
//! its path, the test file through `/proc/PID/fd/N`, so fio measures the
//! very bytes iolab would, and nothing is left behind however iolab exits.
//! fio reports one job per section (a test's measured run);
//! [`crate::summary::fio::merge_fio_sections`] makes them tests again.

use super::{Context, Measured, jobs::JobsRequest};
use crate::base::error::{Error, Result, failed, usage};
use crate::base::progress::Event;
use crate::plan::fio::{FioTarget, job_file};
use crate::summary::{self, Body, Named, Settings};
use crate::targets;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why fio could not be run: the system's error, and what iolab was doing.
#[derive(Debug, thiserror::Error)]
pub enum FioError {
    /// Not on PATH, or not executable (exit status 2: install it).
    #[error("--engine fio needs fio on PATH: {source}")]
    Missing { source: std::io::Error },
    #[error("cannot start fio: {source}")]
    Start { source: std::io::Error },
    #[error("waiting for fio: {source}")]
    Wait { source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    JobFile { path: PathBuf, source: std::io::Error },
}

impl From<FioError> for Error {
    fn from(e: FioError) -> Error {
        match e {
            FioError::Missing { .. } => crate::base::error::usage_by(e),
            _ => crate::base::error::failed_by(e),
        }
    }
}

/// fio's version string (`fio-3.33`), or why fio cannot be used.
pub fn local_version() -> Result<String> {
    let out = Command::new("fio")
        .arg("--version")
        .output()
        .map_err(|source| FioError::Missing { source })?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !v.starts_with("fio-") {
        return Err(failed(format!("`fio --version` said {v:?}")));
    }
    Ok(v)
}

/// A job file that is removed when dropped.
pub(crate) struct JobFile(pub PathBuf);

impl JobFile {
    /// In the temporary directory, shared with everyone: a new file
    /// (`O_EXCL|O_NOFOLLOW`), never one that exists at the name (a link
    /// planted there would have fio's job file written through it).
    pub(crate) fn write(tag: &str, text: &str) -> Result<JobFile> {
        use std::io::Write;
        let mut last = None;
        for n in 0..100 {
            let p = std::env::temp_dir().join(format!("iolab-{}-{tag}-{n}.fio", std::process::id()));
            match crate::base::paths::create_new(&p, 0o600) {
                Ok(mut f) => {
                    // Removed on drop, whatever happens next.
                    let file = JobFile(p);
                    f.write_all(text.as_bytes()).map_err(|source| FioError::JobFile {
                        path: file.0.clone(),
                        source,
                    })?;
                    return Ok(file);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(source) => return Err(FioError::JobFile { path: p, source }.into()),
            }
        }
        Err(failed(format!(
            "cannot create a fio job file in {}: {}",
            std::env::temp_dir().display(),
            last.map_or_else(String::new, |e| e.to_string())
        )))
    }
}

impl Drop for JobFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// What a fio process printed, and whether iolab stopped it.
pub(crate) struct FioOutput {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    /// The signal (SIGINT/SIGTERM) that made iolab stop fio early.
    pub interrupted: Option<i32>,
}

/// Run `fio ARGS` to its end, or until `deadline` (then it is killed and
/// that is an error), or until a signal asks iolab to stop (then fio gets
/// SIGINT, which makes it stop and still print what it measured).
pub(crate) fn run_fio(args: &[&std::ffi::OsStr], ctx: &Context, deadline: Duration) -> Result<FioOutput> {
    let mut child = Command::new("fio")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| FioError::Start { source })?;
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("piped")));
    let err = reader(Box::new(child.stderr.take().expect("piped")));
    let start = Instant::now();
    let mut interrupted = None;
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|source| FioError::Wait { source })? {
            break st;
        }
        if let Err(Error::Interrupted(sig)) = ctx.stop.check()
            && interrupted.is_none()
        {
            interrupted = Some(sig);
            signal(&child, rustix::process::Signal::INT);
        }
        let grace = if interrupted.is_some() {
            Duration::from_secs(10)
        } else {
            Duration::ZERO
        };
        if start.elapsed() > deadline + grace {
            let _ = child.kill();
            let _ = child.wait();
            let said = err.join().unwrap_or_default();
            return Err(failed(format!(
                "fio did not finish within {} s and was stopped{}",
                (deadline + grace).as_secs(),
                last_line(&said)
            )));
        }
        ctx.observer.event(Event::Tick { elapsed: start.elapsed() });
        std::thread::sleep(Duration::from_millis(100));
    };
    Ok(FioOutput {
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        success: status.success(),
        interrupted,
    })
}

fn signal(child: &Child, sig: rustix::process::Signal) {
    let _ = rustix::process::kill_process(rustix::process::Pid::from_child(child), sig);
}

/// ": LAST LINE" of what a tool said, or nothing.
pub(crate) fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| format!(": {l}"))
        .unwrap_or_default()
}

/// fio runs each test a fixed number of times: `--runs auto` becomes its
/// fewest, and the user is told.
fn auto_notice(repeat: &crate::plan::Repeat, ctx: &Context) {
    if repeat.runs.is_auto() {
        ctx.observer.event(Event::Notice {
            level: crate::base::progress::Level::Note,
            text: &format!(
                "fio cannot stop a test once its runs settle: --runs auto runs each test {} times",
                repeat.runs.min()
            ),
        });
    }
}

/// The jobs of `r`, run by fio on this host.
pub(super) fn run_local(r: &JobsRequest, ctx: &Context) -> Result<Measured> {
    let version = local_version()?;
    let max_bs = r.jobs.iter().map(|s| s.bs).max().unwrap_or(4096);
    let writes = r.jobs.iter().any(|s| s.rw.writes());
    let target = targets::open(&r.target.request(writes, max_bs), &ctx.sys, ctx.stop, ctx.observer)?;
    target.check_alignment(r.jobs.iter().map(|s| s.bs))?;
    let mut specs = r.jobs.clone();
    for s in &mut specs {
        s.span = s.extent(target.span()).1;
        // As iolab would run it: O_DIRECT when asked and the target takes it.
        s.direct = target.use_direct(s.direct);
    }
    let filename = if target.info.test_file {
        // iolab's unlinked, prefilled test file, reopened by fio.
        format!("/proc/{}/fd/{}", std::process::id(), target.fd())
    } else {
        target.info.path.clone()
    };
    let text = job_file(
        &specs,
        &r.repeat,
        &FioTarget::Path {
            filename,
            size: Some(target.span()),
        },
    )?;
    let file = JobFile::write("local", &text)?;
    auto_notice(&r.repeat, ctx);
    let planned = r.planned();
    ctx.observer.event(Event::Planned { total: planned });
    let out = run_fio(
        &["--output-format=json".as_ref(), file.0.as_os_str()],
        ctx,
        planned + Duration::from_secs(120),
    )?;
    let report = crate::import::parse_fio_json(&out.stdout)
        .map_err(|e| failed(format!("fio ({version}) gave no result: {e}{}", last_line(&out.stderr))))?;
    if !out.success && out.interrupted.is_none() {
        return Err(failed(format!("fio ({version}) failed{}", last_line(&out.stderr))));
    }
    let report = summary::fio::merge_fio_sections(report);
    let mut jobs: Vec<summary::JobReport> = report.jobs().to_vec();
    for j in &mut jobs {
        j.engine = Named::Other(format!("fio:{}", j.engine.as_str()));
    }
    let info = target.info.clone();
    drop(target);
    Ok(Measured {
        command: if r.suite.is_some() { "run" } else { "job" },
        target: info,
        settings: Settings::of(&r.repeat.as_fixed(), r.suite.clone(), r.timing()),
        body: Body::Jobs(jobs),
        interrupted: out.interrupted,
        failed: None,
    })
}

/// `--emit fio`: the experiment's jobs as a fio job file on the target it
/// names (a directory gets fio's own test file of `--size`, default 1 GiB;
/// a file or device is used as it is).
pub fn emit(exp: &super::Experiment) -> Result<String> {
    exp.validate()?;
    let super::Experiment::Jobs(req) = exp else {
        return Err(usage("this suite is an application workload: fio cannot run it"));
    };
    let path = &req.target.path;
    if path.as_os_str().is_empty() {
        return Err(usage("--emit fio needs a TARGET: the job file names it"));
    }
    // A path that is not UTF-8 would be written as another name.
    let named = path
        .to_str()
        .ok_or_else(|| usage(format!("{}: fio cannot be given a path that is not UTF-8", path.display())))?
        .to_string();
    let target = if path.is_dir() {
        FioTarget::Directory {
            dir: named,
            size: req.target.size.unwrap_or(crate::targets::DEFAULT_TEST_FILE),
        }
    } else {
        FioTarget::Path {
            filename: named,
            size: req.target.size,
        }
    };
    job_file(&req.jobs, &req.repeat, &target)
}

/// fio's server port when a host names none.
pub const FIO_PORT: u16 = 8765;

/// How long iolab waits for a host's fio server to accept a connection
/// (fio's client has no connect timeout of its own: an unreachable host
/// would hold every other host for minutes).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// One host of a many-hosts run: `fio --server` listening at `addr`
/// (`HOST` or `HOST:PORT`), measuring `path` there (else the request's).
#[derive(Clone, Debug, PartialEq)]
pub struct HostSpec {
    pub addr: String,
    pub path: Option<PathBuf>,
}

impl HostSpec {
    /// `HOST[:PORT][=PATH]`, as `--hosts` and a hosts file give it.
    pub fn parse(s: &str) -> std::result::Result<HostSpec, String> {
        let s = s.trim();
        let (addr, path) = match s.split_once('=') {
            Some((a, p)) if !p.trim().is_empty() => (a.trim(), Some(PathBuf::from(p.trim()))),
            Some(_) => return Err(format!("'{s}': no path after '='")),
            None => (s, None),
        };
        if addr.is_empty() || addr.contains(char::is_whitespace) {
            return Err(format!("'{s}' is not HOST[:PORT][=PATH]"));
        }
        if let Some((_, port)) = addr.rsplit_once(':')
            && port.parse::<u16>().is_err()
        {
            return Err(format!("'{port}' in '{addr}' is not a port"));
        }
        Ok(HostSpec {
            addr: addr.to_string(),
            path,
        })
    }

    /// (host, port) for connecting.
    fn endpoint(&self) -> (&str, u16) {
        match self.addr.rsplit_once(':') {
            Some((h, p)) => (h, p.parse().unwrap_or(FIO_PORT)),
            None => (&self.addr, FIO_PORT),
        }
    }

    /// fio's spelling: `HOST,PORT`.
    fn fio_client(&self) -> String {
        let (h, p) = self.endpoint();
        if p == FIO_PORT { h.to_string() } else { format!("{h},{p}") }
    }
}

/// A hosts file (`--hosts-file`): one `HOST[:PORT][=PATH]` per line, `#`
/// starting a comment; an error names the file and line.
pub fn read_hosts_file(f: &std::path::Path) -> Result<Vec<HostSpec>> {
    let text = crate::base::paths::read_text(f, "the hosts file").map_err(usage)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        out.push(HostSpec::parse(line).map_err(|e| usage(format!("{}:{}: {e}", f.display(), n + 1)))?);
    }
    if out.is_empty() {
        return Err(usage(format!("{} names no host", f.display())));
    }
    Ok(out)
}

/// One plan on many hosts at once.
#[derive(Clone, Debug)]
pub struct HostsRequest {
    /// The jobs; `jobs.target` is the path on every host that names none
    /// (an empty path: no TARGET was given, and every host must name one).
    pub jobs: JobsRequest,
    pub hosts: Vec<HostSpec>,
}

impl HostsRequest {
    /// `--hosts` for an experiment: suites of jobs only.
    pub fn new(exp: super::Experiment, hosts: Vec<HostSpec>) -> Result<HostsRequest> {
        match exp {
            super::Experiment::Jobs(jobs) => Ok(HostsRequest { jobs, hosts }),
            _ => Err(usage(
                "--hosts runs `run` and `job` suites of jobs; this suite is an application workload",
            )),
        }
    }

    /// The path each host measures: its own, else the TARGET; a host with
    /// neither is a usage error that names it.
    pub fn paths(&self) -> Result<Vec<PathBuf>> {
        let target = &self.jobs.target.path;
        self.hosts
            .iter()
            .map(|h| match &h.path {
                Some(p) => Ok(p.clone()),
                None if !target.as_os_str().is_empty() => Ok(target.clone()),
                None => Err(usage(format!(
                    "--hosts entry '{}' names no path and no TARGET is given: write it {}=PATH, or give a TARGET for the hosts without one",
                    h.addr, h.addr
                ))),
            })
            .collect()
    }
}

/// What each host gave: its report, or why it has none (the reason without
/// the host's name, which goes with it).
#[derive(Debug)]
pub struct HostsOutcome {
    pub runs: Vec<(String, std::result::Result<crate::summary::Report, String>)>,
    /// The signal that made iolab stop the run early.
    pub interrupted: Option<i32>,
    /// This host's fio, which every server matched.
    pub fio_version: String,
}

/// Can a TCP connection to the host's fio server be made at all?
fn reachable(h: &HostSpec) -> std::result::Result<(), String> {
    use std::net::{TcpStream, ToSocketAddrs};
    let (host, port) = h.endpoint();
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .collect();
    let mut last = String::from("no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("no fio server at {host}:{port} ({last})"))
}

/// The fio version a host's server runs: fio's client prints it when it
/// only parses a job file there (`fio=fio-3.33`).
fn server_version(h: &HostSpec, job: &std::path::Path) -> std::result::Result<String, String> {
    let out = Command::new("fio")
        .arg(format!("--client={}", h.fio_client()))
        .arg("--parse-only")
        .arg(job)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run fio: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    parse_server_version(&text).ok_or_else(|| format!("its fio server did not say its version{}", last_line(&text)))
}

/// `fio=fio-3.33` in fio's client output; a protocol mismatch reports no
/// version (fio says "version mismatch (101 != 97)").
pub fn parse_server_version(text: &str) -> Option<String> {
    text.split([' ', ',', '\n'])
        .find_map(|w| w.trim().strip_prefix("fio=").map(str::to_string))
        .filter(|v| v.starts_with("fio-"))
}

/// A server's fio must be this host's: fio's client and server speak a
/// protocol whose version changes with almost every fio release.
pub fn same_version(server: &str, local: &str) -> std::result::Result<(), String> {
    if server == local {
        Ok(())
    } else {
        Err(format!(
            "its fio server is {server}, this host's fio is {local}: fio's client and server must be the same version"
        ))
    }
}

/// Run `r` on every host at once through fio's client. A host that cannot
/// be reached, whose fio differs from this host's, or that gives no result
/// is named with the reason, and the other hosts' results are kept.
pub fn run_hosts(r: &HostsRequest, ctx: &Context) -> Result<HostsOutcome> {
    r.jobs.validate()?;
    if r.hosts.is_empty() {
        return Err(usage("no hosts"));
    }
    for (i, h) in r.hosts.iter().enumerate() {
        if r.hosts[..i].iter().any(|o| o.endpoint() == h.endpoint()) {
            return Err(usage(format!("host {} is given twice", h.addr)));
        }
    }
    let paths = r.paths()?;
    let version = local_version()?;
    let writes = r.jobs.jobs.iter().any(|s| s.rw.writes());
    let mut files = Vec::new();
    let mut runs: Vec<(String, std::result::Result<crate::summary::Report, String>)> = Vec::new();
    let mut ready: Vec<(&HostSpec, usize)> = Vec::new();
    for (i, (h, path)) in r.hosts.iter().zip(&paths).enumerate() {
        let p = path
            .to_str()
            .ok_or_else(|| usage(format!("{}: fio cannot be given a path that is not UTF-8", path.display())))?
            .to_string();
        // iolab cannot look at a remote device: writes to anything under
        // /dev need the user's explicit consent; fio refuses mounted ones.
        let device = p.starts_with("/dev/") && !p.starts_with("/dev/shm/");
        if writes && device && !r.jobs.target.allow_destroy {
            return Err(usage(format!(
                "{}: writing {p} on a remote host destroys its data: add --allow-destroy (fio refuses mounted devices itself)",
                h.addr
            )));
        }
        // iolab cannot look at a remote path: one under /dev is a device,
        // anything else a directory where fio makes the test file.
        let target = if device {
            FioTarget::Path {
                filename: p,
                size: r.jobs.target.size,
            }
        } else {
            FioTarget::Directory {
                dir: p,
                size: r.jobs.target.size.unwrap_or(crate::targets::DEFAULT_TEST_FILE),
            }
        };
        let text = job_file(&r.jobs.jobs, &r.jobs.repeat, &target)?;
        files.push(JobFile::write(&format!("host{i}"), &text)?);
        runs.push((h.addr.clone(), Err(String::new())));
        ready.push((h, i));
    }
    // Reachable, and the same fio: each check names the host.
    ready.retain(|&(h, i)| {
        let check = reachable(h)
            .and_then(|()| server_version(h, &files[i].0))
            .and_then(|v| same_version(&v, &version));
        match check {
            Ok(()) => true,
            Err(e) => {
                runs[i].1 = Err(e);
                false
            }
        }
    });
    if ready.is_empty() {
        return Ok(HostsOutcome {
            runs,
            interrupted: None,
            fio_version: version,
        });
    }
    let mut args: Vec<std::ffi::OsString> = vec!["--output-format=json".into()];
    for &(h, i) in &ready {
        args.push(format!("--client={}", h.fio_client()).into());
        args.push(files[i].0.clone().into());
    }
    let argv: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let planned = r.jobs.planned();
    auto_notice(&r.jobs.repeat, ctx);
    ctx.observer.event(Event::Planned { total: planned });
    let started_at = crate::base::units::now_rfc3339();
    let out = run_fio(&argv, ctx, planned + Duration::from_secs(120))?;
    let said = format!("{}\n{}", out.stdout, out.stderr);
    let parsed = crate::import::parse_fio_client_json(&out.stdout).unwrap_or_default();
    for &(h, i) in &ready {
        let name = h.fio_client().replace(',', ":");
        let got = parsed
            .iter()
            .find(|(host, _)| host.as_deref().is_some_and(|x| x == h.addr || x == name || x == h.endpoint().0));
        runs[i].1 = match got {
            Some((_, rep)) => {
                let mut rep = summary::fio::merge_fio_sections(rep.clone());
                rep.command = if r.jobs.suite.is_some() { "run" } else { "job" }.into();
                rep.started_at = started_at.clone();
                rep.host.hostname = h.addr.clone();
                rep.settings.suite = r.jobs.suite.clone();
                rep.settings.interval_s = r.jobs.repeat.interval.before_next(true).as_secs_f64();
                rep.settings.interval_auto = r.jobs.repeat.interval.is_auto();
                rep.interrupted = out.interrupted.is_some();
                Ok(rep)
            }
            None => Err(format!(
                "no result from its fio server{}",
                said.lines()
                    .rfind(|l| l.contains(h.endpoint().0))
                    .map(|l| format!(" (fio: {})", l.trim()))
                    .unwrap_or_default()
            )),
        };
    }
    Ok(HostsOutcome {
        runs,
        interrupted: out.interrupted,
        fio_version: version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_specs() {
        let h = HostSpec::parse("10.0.0.2").unwrap();
        assert_eq!(
            (h.endpoint(), h.path.clone(), h.fio_client()),
            (("10.0.0.2", FIO_PORT), None, "10.0.0.2".into())
        );
        let h = HostSpec::parse(" nas2:8799=/mnt/pool ").unwrap();
        assert_eq!(h.endpoint(), ("nas2", 8799));
        assert_eq!(h.fio_client(), "nas2,8799");
        assert_eq!(h.path, Some(PathBuf::from("/mnt/pool")));
        for bad in ["", "a b", "h:port", "h="] {
            assert!(HostSpec::parse(bad).is_err(), "{bad}");
        }
    }

    fn jobs(target: &str) -> JobsRequest {
        let spec = crate::plan::JobSpec::custom(crate::plan::Custom {
            rw: crate::plan::Rw::Read,
            bs: 1 << 20,
            qd: 1,
            threads: 1,
            mix_read: 70,
            limit: crate::plan::Limit::Time(Duration::from_secs(1)),
            direct: true,
            engine: crate::io::engine::EngineKind::IoUring,
        });
        JobsRequest {
            suite: None,
            target: targets::Choice {
                path: target.into(),
                size: None,
                buffered: false,
                allow_destroy: false,
                force: false,
                continue_on_error: false,
                allow_export: false,
            },
            jobs: vec![spec],
            repeat: crate::plan::Repeat::fixed(1, Duration::ZERO, Duration::ZERO),
            via_fio: true,
            region: Default::default(),
        }
    }

    fn hosts(list: &[&str]) -> Vec<HostSpec> {
        list.iter().map(|h| HostSpec::parse(h).unwrap()).collect()
    }

    /// Issue 24: with every host's own path no TARGET is needed; a host
    /// without one then is a usage error that names it.
    #[test]
    fn each_host_measures_its_own_path_else_the_target() {
        let exp = |t: &str| super::super::Experiment::Jobs(jobs(t));
        let r = HostsRequest::new(exp(""), hosts(&["a=/dev/x", "b:9000=/dev/y"])).unwrap();
        assert_eq!(r.paths().unwrap(), vec![PathBuf::from("/dev/x"), PathBuf::from("/dev/y")]);
        let r = HostsRequest::new(exp("/mnt"), hosts(&["a=/dev/x", "b"])).unwrap();
        assert_eq!(r.paths().unwrap(), vec![PathBuf::from("/dev/x"), PathBuf::from("/mnt")]);
        let r = HostsRequest::new(exp(""), hosts(&["a=/dev/x", "b:9000"])).unwrap();
        let e = r.paths().unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("--hosts entry 'b:9000' names no path"), "{e}");
        // Application workloads do not run through fio.
        let app = super::super::Experiment::Time(crate::experiment::time::TimeRequest {
            command: vec!["true".into()],
            cold: false,
            runs: 1,
            warmup: 0,
            prepare: None,
            cleanup: None,
            cwd: None,
            device: None,
            show_output: false,
            ignore_failure: false,
            allow_export: false,
        });
        assert_eq!(HostsRequest::new(app, hosts(&["a=/x"])).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn hosts_files_skip_comments_and_name_the_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hosts");
        std::fs::write(&f, "# the lab\nnas1=/dev/sdb  # left rack\n\n nas2:8799\n").unwrap();
        assert_eq!(read_hosts_file(&f).unwrap(), hosts(&["nas1=/dev/sdb", "nas2:8799"]));
        std::fs::write(&f, "nas1\nnas2:port\n").unwrap();
        let e = read_hosts_file(&f).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:2: ", f.display())), "{e}");
        std::fs::write(&f, "# nobody\n").unwrap();
        assert!(read_hosts_file(&f).unwrap_err().to_string().ends_with("names no host"));
    }

    #[test]
    fn emitted_job_files_name_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let exp = |t: &str| super::super::Experiment::Jobs(jobs(t));
        let text = emit(&exp(dir.path().to_str().unwrap())).unwrap();
        assert!(text.contains(&format!("directory={}", dir.path().display())), "{text}");
        let text = emit(&exp("/dev/null")).unwrap();
        assert!(text.contains("filename=/dev/null"), "{text}");
        assert_eq!(emit(&exp("")).unwrap_err().exit_code(), 2);
    }

    #[test]
    fn server_versions_from_fio_output() {
        let probe = "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1\n";
        assert_eq!(parse_server_version(probe).as_deref(), Some("fio-3.33"));
        let mismatch = "fio: bad server cmd version 101\nfio: client/server version mismatch (101 != 97)\n";
        assert_eq!(parse_server_version(mismatch), None);
        assert!(same_version("fio-3.33", "fio-3.33").is_ok());
        let e = same_version("fio-3.36", "fio-3.33").unwrap_err();
        assert!(e.contains("fio-3.36") && e.contains("fio-3.33"), "{e}");
    }
}
