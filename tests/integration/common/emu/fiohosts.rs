//! [`FioHosts`]: simulated hosts for fio's client/server mode, each a network namespace
//! with a `fio --server` serving its own throttled loop device.
//!
//! Per host `hN` (N from 1):
//!
//! * a [`LoopDev`] of the given size (a prefilled file in `/dev/shm`), made before the
//!   server starts: `ip netns exec` gives the server a snapshot of the mount namespace,
//!   in which `/dev/loopM` then exists;
//! * a [`Cgroup`] with `blkio.throttle.read_bps_device` = the host's limit on that device;
//! * a network namespace (`iolab-test-<pid>-<counter>-<test>-fio_hN`) joined to the root
//!   namespace by a veth pair `il<pid>x<instance>h<N>` (root side, `10.X.N.1/30`) and
//!   `il<pid>x<instance>p<N>` (namespace side, `10.X.N.2/30`), with `lo` up; X (one per
//!   harness instance, 128–254) is claimed under the sweeps' lock on `/dev/shm` among
//!   the second octets no address or route of the root namespace uses, so parallel tests
//!   never share a subnet, and a process does not reuse one until it has gone round;
//! * `fio --server=10.X.N.2` (default port 8765, that address only), started already in
//!   its cgroup (the child joins it between fork and exec, see [`Cgroup::command`]) and in
//!   a session of its own, through `ip netns exec NS stdbuf -oL fio …` (which exec each
//!   other: the child is the server). Every process the server forks (one per
//!   connection, then a backend and the job, which calls `setsid`) inherits the cgroup,
//!   so the throttle applies to the jobs it runs. Its output goes to a log file in
//!   `/dev/shm` ([`FioHosts::log`]). Ready when its namespace shows a socket listening on
//!   `10.X.N.2:8765` (`/proc/<server>/net/tcp`, what `ss -ltn` reads there), within 5 s:
//!   fio exits 0 even when it cannot bind.
//!
//! fio's client names each host in `client_stats[].hostname` by the address given to
//! `--client` (all namespaces share one UTS name), and its results arrive in completion
//! order: match them by address. A host whose server was stopped ([`FioHosts::stop`])
//! makes the client print `fio: connect: Connection refused` and
//! `fio: failed to connect to 10.X.N.2:8765` on stderr; the others still run, and the
//! client still exits 0. A frozen host ([`FioHosts::freeze`]) makes the client print
//! `Client <10.X.N.2>: timeout on SEND_ETA` (on stdout, before the JSON) after ~5 s.
//!
//! Stopping a host: SIGKILL every pid in its cgroup's `cgroup.procs`, again until the
//! group is empty (killing the process group would miss the job, in a session of its
//! own), then reap the server. Drop then removes, in order: the cgroup, the root-side
//! veth (which takes its peer along), the namespace, the loop device and its file, the
//! log. All of it also while a test panics, and twice is harmless. The server's children
//! linger as zombies until init reaps them (1–2 s here). [`FioHosts::footprint`] names
//! every resource, and [`Footprint::leftovers`] lists those still there after the drop
//! (waiting up to 5 s for those zombies).
//!
//! A killed test process leaves its hosts behind; the first [`FioHosts::new`] of a later
//! process kills the processes in stale namespaces (`ip netns pids`), deletes those
//! namespaces and stale veths (owner pid in the name), then the general sweep
//! ([`super::sweep_stale`]) takes their cgroups, loop devices and files.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::cgroup::{Cgroup, IoCount, Limit};
use super::loopdev::LoopDev;
use super::names::unique_name;
use super::proc::{retry, run_checked, run_quiet};
use super::settle::SETTLE;
use super::{MIB, PREFIX, SHM_DIR};

/// fio's default server port.
pub const FIO_PORT: u16 = 8765;
/// How long a server may take to listen.
const READY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long killing a host's processes may take (a job finishing a throttled read).
const KILL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long [`Footprint::leftovers`] waits for killed processes to be reaped: the
/// children of a killed server are reaped by init, which here polls every 1–2 s.
const REAP_TIMEOUT: Duration = Duration::from_secs(5);
/// Second octets of the `10.X.0.0/16` subnets the harness may claim.
const SUBNETS: std::ops::RangeInclusive<u32> = 128..=254;
/// Root-side interface names start with this (then the owner pid in hex).
const IF_PREFIX: &str = "il";
/// Where `ip netns` keeps its names.
const NETNS_DIR: &str = "/run/netns";

/// One simulated host.
#[derive(Clone, Debug)]
pub struct FioHost {
    /// `h1`, `h2`, …
    pub name: String,
    /// The server's address, for `fio --client=ADDR` (and fio's `hostname` in its JSON).
    pub addr: String,
    /// The host's loop device (`/dev/loopM`), as the server sees it too.
    pub device: PathBuf,
    /// The read limit of the host's cgroup on `device`, bytes/s.
    pub limit_bps: u64,
}

/// The root-side view of one host's network: a namespace and a veth pair with addresses.
/// Drop: delete the root-side veth (its peer goes with it), then the namespace.
struct HostNet {
    ns: String,
    host_if: String,
    peer_if: String,
}

impl HostNet {
    /// Namespace `ns`, veth `host_if` (root side, `host_ip/30`) – `peer_if` (in `ns`,
    /// `peer_ip/30`), all up, and `lo` up in `ns`.
    fn new(ns: String, host_if: String, peer_if: String, host_ip: &str, peer_ip: &str) -> HostNet {
        run_checked(Command::new("ip").args(["netns", "add", &ns]));
        // The guard exists from here on: a failing step below undoes the ones before.
        let net = HostNet { ns, host_if, peer_if };
        let (ns, h, p) = (&net.ns, &net.host_if, &net.peer_if);
        run_checked(Command::new("ip").args(["link", "add", h, "type", "veth", "peer", "name", p]));
        run_checked(Command::new("ip").args(["link", "set", p, "netns", ns]));
        run_checked(Command::new("ip").args(["addr", "add", &format!("{host_ip}/30"), "dev", h]));
        run_checked(Command::new("ip").args(["link", "set", h, "up"]));
        run_checked(Command::new("ip").args(["-n", ns, "addr", "add", &format!("{peer_ip}/30"), "dev", p]));
        run_checked(Command::new("ip").args(["-n", ns, "link", "set", p, "up"]));
        run_checked(Command::new("ip").args(["-n", ns, "link", "set", "lo", "up"]));
        net
    }
}

fn link_exists(name: &str) -> bool {
    Path::new("/sys/class/net").join(name).exists()
}

fn netns_exists(name: &str) -> bool {
    Path::new(NETNS_DIR).join(name).exists()
}

impl Drop for HostNet {
    fn drop(&mut self) {
        // Deleting either end of a veth deletes both; the peer may still be in the root
        // namespace if the setup failed before moving it.
        for name in [&self.host_if, &self.peer_if] {
            if link_exists(name) {
                run_quiet(Command::new("ip").args(["link", "del", name]));
            }
        }
        if netns_exists(&self.ns) {
            run_quiet(Command::new("ip").args(["netns", "del", &self.ns]));
        }
    }
}

/// A file in `/dev/shm` for a server's output; removed on drop.
struct LogFile(PathBuf);

impl Drop for LogFile {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_file(&self.0)
            && e.kind() != io::ErrorKind::NotFound
        {
            eprintln!("emu cleanup: rm {}: {e}", self.0.display());
        }
    }
}

/// One host's resources. Drop: kill and reap its processes, then the fields go in
/// declaration order: cgroup (empty by then), network, loop device and file, log.
struct Server {
    host: FioHost,
    /// The server's main process (while it has not been reaped).
    child: Option<Child>,
    /// Every pid killed in the group (for [`FioHosts::footprint`]).
    killed: BTreeSet<u32>,
    cgroup: Cgroup,
    net: HostNet,
    lo: LoopDev,
    log: LogFile,
}

impl Server {
    /// SIGKILL everything in the group until it is empty, then reap the server.
    fn kill(&mut self) {
        let deadline = Instant::now() + KILL_TIMEOUT;
        loop {
            let procs = self.cgroup.procs();
            if procs.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                eprintln!(
                    "emu cleanup: {} ({}): processes {procs:?} survive SIGKILL",
                    self.host.name, self.host.addr
                );
                break;
            }
            for pid in procs {
                signal(pid, libc::SIGKILL);
                self.killed.insert(pid);
            }
            thread::sleep(Duration::from_millis(10));
        }
        if let Some(mut c) = self.child.take() {
            self.killed.insert(c.id());
            let reaped = retry((KILL_TIMEOUT.as_millis() / 10) as u32, Duration::from_millis(10), || {
                !matches!(c.try_wait(), Ok(None))
            });
            if !reaped {
                eprintln!("emu cleanup: fio server {} of {} did not exit", c.id(), self.host.name);
            }
        }
    }

    /// Pids in the group now.
    fn pids(&self) -> Vec<u32> {
        self.cgroup.procs()
    }

    /// Wait until the server listens on its address, in its namespace.
    fn wait_ready(&mut self) {
        let Some(pid) = self.child.as_ref().map(Child::id) else {
            panic!("{}: no server", self.host.name)
        };
        let tcp = format!("/proc/{pid}/net/tcp");
        let want = listen_key(&self.host.addr, FIO_PORT);
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(c) = self.child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                self.child = None;
                panic!(
                    "fio --server={} ({}) exited ({status}) before it listened: {}",
                    self.host.addr,
                    self.host.name,
                    self.log_text().trim()
                );
            }
            let table = fs::read_to_string(&tcp).unwrap_or_default();
            if table.lines().skip(1).any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 3 && f[1] == want && f[3] == "0A"
            }) {
                return;
            }
            if Instant::now() >= deadline {
                panic!(
                    "fio --server={} ({}) did not listen on port {FIO_PORT} within {READY_TIMEOUT:?}: {}",
                    self.host.addr,
                    self.host.name,
                    self.log_text().trim()
                );
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    fn log_text(&self) -> String {
        fs::read_to_string(&self.log.0).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        // What it killed may linger as zombies until init reaps them (its children, once
        // the server is gone): harmless, [`Footprint::leftovers`] waits for that.
        let alive: Vec<u32> = self.killed.iter().copied().filter(|&p| is_live_fio(p)).collect();
        if !alive.is_empty() {
            eprintln!("emu cleanup: {}: fio processes {alive:?} still run", self.host.name);
        }
        // Then the fields: cgroup, network, loop device and file, log.
    }
}

/// `/proc/net/tcp`'s `local_address` of `addr:port` (the address as the kernel's u32,
/// printed in hex: its bytes reversed on little-endian machines).
fn listen_key(addr: &str, port: u16) -> String {
    let ip: std::net::Ipv4Addr = addr.parse().unwrap_or_else(|e| panic!("bad address {addr}: {e}"));
    format!("{:08X}:{port:04X}", u32::from_ne_bytes(ip.octets()))
}

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: kill(2) has no memory-safety preconditions; a vanished pid gives ESRCH.
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

/// A fio process (or its zombie) with this pid exists.
fn is_fio(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "fio")
}

/// A fio process with this pid runs (is not a zombie).
fn is_live_fio(pid: u32) -> bool {
    is_fio(pid) && proc_state(pid).is_some_and(|s| s != 'Z')
}

/// A process's state letter (`R`, `S`, `D`, `T`, `Z`, …) from `/proc/<pid>/stat`.
fn proc_state(pid: u32) -> Option<char> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name, which is in parentheses and may contain anything.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The sweeps' exclusive `flock` on `/dev/shm`: while it is held no sweep of any
/// process runs. Held while a subnet is picked and its addresses assigned (not a lock on
/// `/run/netns`: `ip netns add` locks that one itself). Never take it in a thread that
/// has not made a harness name yet (its first one runs the general sweep).
pub struct SweepLock(File);

impl SweepLock {
    pub fn take() -> SweepLock {
        let f = File::open(SHM_DIR).unwrap_or_else(|e| panic!("open {SHM_DIR}: {e}"));
        // SAFETY: flock on a valid fd; released when the file is closed.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(rc, 0, "flock {SHM_DIR}: {}", io::Error::last_os_error());
        SweepLock(f)
    }
}

/// Harness instances made by this process.
static INSTANCE: AtomicU32 = AtomicU32::new(0);

/// Second octets X for which the root namespace has an address or route in 10.X.0.0/16.
fn used_subnets() -> BTreeSet<u32> {
    let addrs = run_checked(Command::new("ip").args(["-o", "-4", "addr", "show"]));
    let routes = run_checked(Command::new("ip").args(["-4", "route", "show", "table", "all"]));
    let words = addrs.lines().filter_map(|l| l.split_whitespace().nth(3));
    let dsts = routes.lines().filter_map(|l| l.split_whitespace().find(|w| w.starts_with("10.")));
    words
        .chain(dsts)
        .filter_map(|w| {
            let mut o = w.split(['.', '/']);
            (o.next() == Some("10")).then(|| o.next()?.parse().ok()).flatten()
        })
        .collect()
}

/// Pick a free 10.X.0.0/16 (the caller holds the [`SweepLock`] until its addresses are
/// assigned), starting at a place that differs per process and per instance.
fn free_subnet(instance: u32) -> u32 {
    let used = used_subnets();
    let span = SUBNETS.end() - SUBNETS.start() + 1;
    let start = (std::process::id().wrapping_mul(37) + instance) % span;
    (0..span)
        .map(|k| SUBNETS.start() + (start + k) % span)
        .find(|x| !used.contains(x))
        .unwrap_or_else(|| panic!("no free 10.X.0.0/16 with X in {SUBNETS:?}: {used:?}"))
}

/// `il<pid hex>x<instance hex><side><host hex>`: at most 15 characters (IFNAMSIZ − 1).
fn if_name(instance: u32, side: char, host: usize) -> String {
    let name = format!("{IF_PREFIX}{:x}x{instance:x}{side}{host:x}", std::process::id());
    assert!(name.len() <= 15, "interface name {name} is longer than 15 characters");
    name
}

/// Owner pid of a root-side interface name made by [`if_name`].
fn if_owner(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(IF_PREFIX)?.split_once('x')?;
    let (inst, host) = rest.split_once(['h', 'p'])?;
    let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
    if !hex(inst) || !hex(host) {
        return None;
    }
    u32::from_str_radix(pid, 16).ok()
}

/// Owner pid of a harness name (`iolab-test-<pid>-...`).
fn name_owner(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.strip_prefix('-')?.split('-').next()?.parse().ok()
}

fn is_stale_owner(pid: Option<u32>) -> bool {
    pid.is_some_and(|p| p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists())
}

/// Names in `ip netns list` (`NAME` or `NAME (id: N)`).
fn netns_names() -> Vec<String> {
    run_checked(Command::new("ip").args(["netns", "list"]))
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Interface names of the root namespace (`ip -o link show`: `N: NAME[@PEER]: …`).
fn link_names() -> Vec<String> {
    run_checked(Command::new("ip").args(["-o", "link", "show"]))
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .map(|n| n.split('@').next().unwrap_or(n).to_string())
        .collect()
}

static SWEEP: Once = Once::new();

/// Remove the hosts of dead harness processes: kill what runs in their namespaces, delete
/// the namespaces and their veths. Their cgroups, loop devices and files are the general
/// sweep's. Under the same `flock` on `/dev/shm` as the general sweep.
pub fn sweep_stale_fio_hosts() {
    let Ok(lock) = File::open(SHM_DIR) else { return };
    // SAFETY: flock on a valid fd; released when `lock` is closed.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return;
    }
    for ns in netns_names() {
        if !is_stale_owner(name_owner(&ns)) {
            continue;
        }
        eprintln!("emu sweep: removing stale network namespace {ns}");
        for _ in 0..50 {
            let out = Command::new("ip").args(["netns", "pids", &ns]).stdin(Stdio::null()).output();
            let pids: Vec<u32> = out
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .split_whitespace()
                        .filter_map(|p| p.parse().ok())
                        .collect()
                })
                .unwrap_or_default();
            if pids.is_empty() {
                break;
            }
            for p in pids {
                signal(p, libc::SIGKILL);
            }
            thread::sleep(Duration::from_millis(20));
        }
        run_quiet(Command::new("ip").args(["netns", "del", &ns]));
    }
    for name in link_names() {
        if is_stale_owner(if_owner(&name)) {
            eprintln!("emu sweep: removing stale interface {name}");
            run_quiet(Command::new("ip").args(["link", "del", &name]));
        }
    }
    drop(lock);
}

/// Simulated hosts, each a network namespace with `fio --server` on its own throttled
/// loop device. Drop: every host's processes killed, its cgroup, veth, namespace, loop
/// device and files removed.
pub struct FioHosts {
    hosts: Vec<FioHost>,
    servers: Vec<Server>,
}

impl FioHosts {
    /// One host per limit (MiB/s, read), each serving a loop device of
    /// `device_size_mib` MiB; the hosts are `h1`, `h2`, … in that order.
    pub fn new(limits_mib_s: &[u64], device_size_mib: u64) -> FioHosts {
        assert!(
            !limits_mib_s.is_empty() && limits_mib_s.len() < 256,
            "FioHosts: 1 to 255 hosts, not {}",
            limits_mib_s.len()
        );
        assert!(limits_mib_s.iter().all(|&l| l > 0), "FioHosts: limits must be positive");
        SWEEP.call_once(sweep_stale_fio_hosts);
        let t0 = Instant::now();
        let instance = INSTANCE.fetch_add(1, Ordering::Relaxed);
        // Devices first (the slow part, outside the lock), and before the servers start.
        let los: Vec<LoopDev> = limits_mib_s.iter().map(|_| LoopDev::new(device_size_mib * MIB)).collect();
        let t_dev = t0.elapsed();
        // Names first: the first harness name of a process runs the general sweep, which
        // takes the same lock.
        let names: Vec<(String, String, String)> = (1..=limits_mib_s.len())
            .map(|n| {
                (
                    unique_name(&format!("fio-h{n}")),
                    if_name(instance, 'h', n),
                    if_name(instance, 'p', n),
                )
            })
            .collect();
        let (nets, x) = {
            let _lock = SweepLock::take();
            let x = free_subnet(instance);
            let nets: Vec<HostNet> = (1..)
                .zip(names)
                .map(|(n, (ns, h, p))| HostNet::new(ns, h, p, &format!("10.{x}.{n}.1"), &format!("10.{x}.{n}.2")))
                .collect();
            (nets, x)
        };
        let t_net = t0.elapsed();
        let mut servers = Vec::with_capacity(limits_mib_s.len());
        for (((n, &mib), lo), net) in (1..).zip(limits_mib_s).zip(los).zip(nets) {
            let host = FioHost {
                name: format!("h{n}"),
                addr: format!("10.{x}.{n}.2"),
                device: lo.path().to_path_buf(),
                limit_bps: mib * MIB,
            };
            let cgroup = Cgroup::new();
            cgroup.limit(&lo, Limit::ReadBps(host.limit_bps));
            let log = LogFile(Path::new(SHM_DIR).join(format!("{}.log", unique_name(&format!("fio-h{n}-log")))));
            let out = File::create(&log.0).unwrap_or_else(|e| panic!("create {}: {e}", log.0.display()));
            let err = out.try_clone().unwrap_or_else(|e| panic!("dup {}: {e}", log.0.display()));
            let mut cmd = cgroup.command("ip");
            cmd.args(["netns", "exec", &net.ns, "stdbuf", "-oL", "fio"])
                .arg(format!("--server={}", host.addr))
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err);
            // SAFETY: setsid(2) is async-signal-safe; runs after the child joined the group.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::setsid() < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let child = cmd
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start fio --server={}: {e}", host.addr));
            servers.push(Server {
                host,
                child: Some(child),
                killed: BTreeSet::new(),
                cgroup,
                net,
                lo,
                log,
            });
        }
        // The servers start side by side; then wait for each.
        for s in &mut servers {
            s.wait_ready();
        }
        eprintln!(
            "[{}] fio hosts 10.{x}.N.2 ready in {:.0} ms (devices {:.0} ms, namespaces {:.0} ms, servers {:.0} ms)",
            super::current_test_name(),
            t0.elapsed().as_secs_f64() * 1e3,
            t_dev.as_secs_f64() * 1e3,
            (t_net - t_dev).as_secs_f64() * 1e3,
            (t0.elapsed() - t_net).as_secs_f64() * 1e3,
        );
        FioHosts {
            hosts: servers.iter().map(|s| s.host.clone()).collect(),
            servers,
        }
    }

    /// The hosts, `h1` first.
    pub fn hosts(&self) -> &[FioHost] {
        &self.hosts
    }

    fn server(&self, i: usize) -> &Server {
        self.servers
            .get(i)
            .unwrap_or_else(|| panic!("no host {i}: there are {}", self.servers.len()))
    }

    /// Kill host `i`'s server and everything it runs, now (a dead host: its address
    /// refuses connections). The namespace and device stay until drop. Idempotent.
    pub fn stop(&mut self, i: usize) {
        let n = self.servers.len();
        self.servers
            .get_mut(i)
            .unwrap_or_else(|| panic!("no host {i}: there are {n}"))
            .kill();
    }

    /// Stop (SIGSTOP) every process of host `i`'s server, and whatever it forks meanwhile:
    /// a hung host (connections are accepted by the kernel, nothing answers).
    pub fn freeze(&self, i: usize) {
        let s = self.server(i);
        let ok = retry(200, Duration::from_millis(10), || {
            let pids = s.pids();
            let mut all = true;
            for pid in pids {
                if !matches!(proc_state(pid), Some('T' | 't') | None) {
                    signal(pid, libc::SIGSTOP);
                    all = false;
                }
            }
            all
        });
        assert!(ok, "{}: could not stop all of {:?}", s.host.name, s.pids());
    }

    /// Resume (SIGCONT) every process of host `i`'s server.
    pub fn thaw(&self, i: usize) {
        for pid in self.server(i).pids() {
            signal(pid, libc::SIGCONT);
        }
    }

    /// Pids in host `i`'s cgroup: the server, a child per connection, a backend and the
    /// job of a running job.
    pub fn pids(&self, i: usize) -> Vec<u32> {
        self.server(i).pids()
    }

    /// Whether every process of host `i` is stopped (state `T`), and there is one.
    pub fn is_frozen(&self, i: usize) -> bool {
        let pids = self.pids(i);
        !pids.is_empty() && pids.iter().all(|&p| matches!(proc_state(p), Some('T' | 't')))
    }

    /// What host `i`'s throttle counted on its device: the bytes its jobs read.
    pub fn io_count(&self, i: usize) -> IoCount {
        let s = self.server(i);
        s.cgroup.io_count(&s.lo)
    }

    /// Host `i`'s cgroup (e.g. for [`Cgroup::read_burst`]).
    pub fn cgroup(&self, i: usize) -> &Cgroup {
        &self.server(i).cgroup
    }

    /// Host `i`'s network namespace, for `ip netns exec`.
    pub fn netns(&self, i: usize) -> &str {
        &self.server(i).net.ns
    }

    /// What host `i`'s server printed so far.
    pub fn log(&self, i: usize) -> String {
        self.server(i).log_text()
    }

    /// Wait until no host's throttle has a slice left (no host may do I/O meanwhile):
    /// the next reader on each starts a fresh one (see [`Cgroup::settle`]).
    pub fn settle(&self) {
        thread::sleep(SETTLE);
    }

    /// Every resource of the hosts, to check after drop that none is left.
    pub fn footprint(&self) -> Footprint {
        Footprint {
            netns: self.servers.iter().map(|s| s.net.ns.clone()).collect(),
            links: self
                .servers
                .iter()
                .flat_map(|s| [s.net.host_if.clone(), s.net.peer_if.clone()])
                .collect(),
            cgroups: self.servers.iter().map(|s| s.cgroup.path().to_path_buf()).collect(),
            files: self
                .servers
                .iter()
                .flat_map(|s| [s.lo.backing_file().to_path_buf(), s.log.0.clone()])
                .collect(),
            addrs: self.hosts.iter().map(|h| h.addr.clone()).collect(),
            pids: self
                .servers
                .iter()
                .flat_map(|s| s.pids().into_iter().chain(s.killed.iter().copied()))
                .collect(),
        }
    }
}

/// The names of every resource of a [`FioHosts`], taken before it is dropped.
#[derive(Clone, Debug)]
pub struct Footprint {
    pub netns: Vec<String>,
    /// Both ends of each veth.
    pub links: Vec<String>,
    pub cgroups: Vec<PathBuf>,
    /// Loop devices' backing files and the servers' logs.
    pub files: Vec<PathBuf>,
    pub addrs: Vec<String>,
    pub pids: BTreeSet<u32>,
}

impl Footprint {
    /// What is still there, one line each: namespaces (`ip netns list`), interfaces
    /// (`ip link`), loop devices over the files (`losetup -a`), cgroups, files, fio
    /// processes serving one of the addresses or with one of the pids (`pgrep -a fio`),
    /// and addresses or routes in the root namespace.
    pub fn leftovers(&self) -> Vec<String> {
        let mut left = Vec::new();
        let ns = netns_names();
        left.extend(
            self.netns
                .iter()
                .filter(|n| ns.contains(n))
                .map(|n| format!("network namespace {n}")),
        );
        let links = link_names();
        left.extend(self.links.iter().filter(|n| links.contains(n)).map(|n| format!("interface {n}")));
        let loops = run_checked(Command::new("losetup").arg("-a"));
        for f in &self.files {
            let f = f.to_string_lossy();
            left.extend(loops.lines().filter(|l| l.contains(&*f)).map(|l| format!("loop device {l}")));
        }
        left.extend(
            self.cgroups
                .iter()
                .filter(|c| c.exists())
                .map(|c| format!("cgroup {}", c.display())),
        );
        left.extend(self.files.iter().filter(|f| f.exists()).map(|f| format!("file {}", f.display())));
        left.extend(self.fio_processes());
        let addrs = run_checked(Command::new("ip").args(["-o", "-4", "addr", "show"]));
        let routes = run_checked(Command::new("ip").args(["-4", "route", "show"]));
        for a in &self.addrs {
            // The root side of 10.X.N.2 is 10.X.N.1, its route 10.X.N.0/30.
            let net = a.rsplit_once('.').map(|(n, _)| format!("{n}.")).unwrap_or_default();
            left.extend(
                addrs
                    .lines()
                    .chain(routes.lines())
                    .filter(|l| l.split_whitespace().any(|w| w.starts_with(&net)))
                    .map(|l| format!("address or route {}", l.trim())),
            );
        }
        left
    }

    /// fio processes serving one of the addresses or with one of the pids (`pgrep -a
    /// fio`). Zombies, which init reaps in its own time, are waited for (up to 5 s).
    fn fio_processes(&self) -> Vec<String> {
        let deadline = Instant::now() + REAP_TIMEOUT;
        loop {
            // pgrep exits 1 when nothing matches.
            let out = Command::new("pgrep")
                .args(["-a", "fio"])
                .output()
                .map(|o| o.stdout)
                .unwrap_or_default();
            let mut zombies = true;
            let mut left = Vec::new();
            for l in String::from_utf8_lossy(&out).lines() {
                let Some(pid) = l.split_whitespace().next().and_then(|p| p.parse::<u32>().ok()) else {
                    continue;
                };
                let serves = self
                    .addrs
                    .iter()
                    .any(|a| l.split_whitespace().any(|w| w == format!("--server={a}")));
                if serves || self.pids.contains(&pid) {
                    // Gone since pgrep saw it: reaped.
                    let Some(state) = proc_state(pid) else { continue };
                    zombies &= state == 'Z';
                    left.push(format!("process {l} (state {state})"));
                }
            }
            if left.is_empty() || !zombies || Instant::now() >= deadline {
                return left;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Another host for a test that needs one on the network (`iolab flush --listen`): a
/// network namespace joined to the root one by a veth pair, `host_ip` on the root side
/// and `peer_ip` inside, named and swept like [`FioHosts`]' hosts. Drop removes the veth
/// pair and the namespace (also while a test panics).
pub struct NetHost {
    net: HostNet,
    /// The root side's address.
    pub host_ip: String,
    /// The address inside the namespace.
    pub peer_ip: String,
}

impl NetHost {
    /// A new namespace named after `tag`.
    pub fn new(tag: &str) -> NetHost {
        SWEEP.call_once(sweep_stale_fio_hosts);
        let instance = INSTANCE.fetch_add(1, Ordering::Relaxed);
        let ns = unique_name(&format!("fio-{tag}"));
        let _lock = SweepLock::take();
        let x = free_subnet(instance);
        let (host_ip, peer_ip) = (format!("10.{x}.1.1"), format!("10.{x}.1.2"));
        let net = HostNet::new(ns, if_name(instance, 'h', 1), if_name(instance, 'p', 1), &host_ip, &peer_ip);
        NetHost { net, host_ip, peer_ip }
    }

    /// The namespace's name, for `ip netns exec`.
    pub fn ns(&self) -> &str {
        &self.net.ns
    }
}
