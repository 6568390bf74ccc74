//! Self-test of the [`FioHosts`] harness (simulated hosts for fio's client/server mode:
//! a network namespace, a veth pair, a throttled loop device and `fio --server` each):
//! one client run over three hosts gets each host's limit, matched by address; dropping
//! the hosts (also while a job runs, a host is frozen, or the test panics) leaves no
//! namespace, interface, cgroup, loop device, file or fio process; a stopped host is
//! named by the client while the others still report; a frozen host does no I/O until
//! thawed; and the hosts of a dead test process are swept.
//!
//! Needs root (namespaces, loop devices, cgroups) and fio. Without root the tests print a
//! skip notice, except under `CI=true`, where they fail instead (and so does a missing
//! fio).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::emu::fiohosts::{FIO_PORT, FioHost, FioHosts, Footprint, SweepLock, sweep_stale_fio_hosts};
use crate::common::emu::{MIB, output_with_timeout, unique_name};
use crate::common::within;
use serde_json::Value;

/// Tolerance of each host's bandwidth against its limit.
const TOL: f64 = 0.03;
/// Kill a hung fio client after this long; a run here takes ~5 s.
const TIMEOUT: Duration = Duration::from_secs(60);
const DEVICE_MIB: u64 = 64;

/// Client runs take turns: the bandwidth check must not share the 2 CPUs with another
/// test's fio jobs. Setting hosts up and tearing them down runs in parallel.
static CLIENTS: Mutex<()> = Mutex::new(());

fn clients() -> MutexGuard<'static, ()> {
    CLIENTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A directory of job files in `/dev/shm`, removed on drop.
struct JobDir(PathBuf);

impl JobDir {
    fn new() -> JobDir {
        let d = Path::new("/dev/shm").join(unique_name("fio-jobs"));
        fs::create_dir(&d).unwrap_or_else(|e| panic!("mkdir {}: {e}", d.display()));
        JobDir(d)
    }

    /// A job file for `host`: 512 KiB O_DIRECT sequential reads of its device, for
    /// `runtime` seconds. (1 MiB reads would get half the limit: the loop driver splits
    /// them and the throttle counts them twice.)
    fn job(&self, host: &FioHost, runtime: u32) -> PathBuf {
        let p = self.0.join(format!("{}.fio", host.name));
        let text = format!(
            "[{}]\nfilename={}\nrw=read\nbs=512k\ndirect=1\nioengine=libaio\niodepth=1\ntime_based\nruntime={runtime}\n",
            host.name,
            host.device.display()
        );
        fs::write(&p, text).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        p
    }

    /// `fio --client=ADDR JOB …` over `hosts`, JSON output.
    fn client(&self, hosts: &[FioHost], runtime: u32) -> Command {
        let mut c = Command::new("fio");
        for h in hosts {
            c.arg(format!("--client={}", h.addr)).arg(self.job(h, runtime));
        }
        c.arg("--output-format=json");
        c
    }
}

impl Drop for JobDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The client's JSON (its stdout may start with lines of its own, e.g. a timeout).
fn client_json(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text
        .find("\n{")
        .map(|i| i + 1)
        .or_else(|| text.starts_with('{').then_some(0))
        .unwrap_or_else(|| panic!("no JSON in fio's output: {text}"));
    serde_json::from_str(&text[at..]).unwrap_or_else(|e| panic!("bad JSON from fio ({e}): {text}"))
}

/// The `client_stats` entry of the host at `addr` (entries come in completion order).
fn stats_of<'a>(doc: &'a Value, addr: &str) -> Option<&'a Value> {
    doc["client_stats"]
        .as_array()?
        .iter()
        .find(|c| c["hostname"] == addr && c["jobname"] != "All clients")
}

fn assert_clean(fp: &Footprint) {
    let left = fp.leftovers();
    assert!(left.is_empty(), "left behind: {left:#?}");
}

/// Kills and reaps a background client whatever happens.
struct Client(Child);

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Wait until host `i` has read something, i.e. its job is running.
fn wait_for_io(hosts: &FioHosts, i: usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while hosts.io_count(i).read_bytes == 0 {
        assert!(Instant::now() < deadline, "{} did not start reading", hosts.hosts()[i].name);
        thread::sleep(Duration::from_millis(20));
    }
}

/// One client run over three hosts at 20, 20 and 10 MiB/s: each host's `read.bw_bytes`
/// is its limit within ±3%, and its throttle counted at least the bytes it reported.
#[test]
fn netns_three_hosts_deliver_their_limits() {
    need_root!();
    need_tool!("fio");
    let t0 = Instant::now();
    let hosts = FioHosts::new(&[20, 20, 10], DEVICE_MIB);
    let setup = t0.elapsed();
    let jobs = JobDir::new();
    let out = {
        let _turn = clients();
        hosts.settle();
        output_with_timeout(&mut jobs.client(hosts.hosts(), 3), TIMEOUT)
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fio client failed ({}): {err}", out.status);
    let doc = client_json(&out);
    let mib = MIB as f64;
    let mut bad = Vec::new();
    for (i, h) in hosts.hosts().iter().enumerate() {
        let s = stats_of(&doc, &h.addr).unwrap_or_else(|| panic!("no client_stats for {} ({}): {doc}", h.name, h.addr));
        assert_eq!(s["jobname"], h.name.as_str(), "job of {}", h.addr);
        assert_eq!(s["error"], 0, "{} reported an error", h.name);
        let bw = s["read"]["bw_bytes"].as_f64().expect("read.bw_bytes");
        let io = s["read"]["io_bytes"].as_u64().expect("read.io_bytes");
        let seen = hosts.io_count(i).read_bytes;
        note!(
            "{} {} {}: {:.2} MiB/s, limit {:.0} ({:+.2}%); {} MiB read, throttle saw {} MiB",
            h.name,
            h.addr,
            h.device.display(),
            bw / mib,
            h.limit_bps as f64 / mib,
            (bw / h.limit_bps as f64 - 1.0) * 100.0,
            io / MIB,
            seen / MIB
        );
        assert!(seen >= io, "{}: the throttle saw {seen} bytes, fio read {io}", h.name);
        if !within(bw, h.limit_bps as f64, TOL) {
            bad.push(format!("{}: {:.2} vs {:.2} MiB/s", h.name, bw / mib, h.limit_bps as f64 / mib));
        }
    }
    let fp = hosts.footprint();
    let t1 = Instant::now();
    drop(hosts);
    note!(
        "3 hosts: setup {:.0} ms, teardown {:.0} ms",
        setup.as_secs_f64() * 1e3,
        t1.elapsed().as_secs_f64() * 1e3
    );
    assert_clean(&fp);
    assert!(bad.is_empty(), "outside ±{}%: {bad:?}", TOL * 100.0);
}

/// Dropping the hosts while a job runs on one (its job process in a session of its own)
/// and another is frozen leaves nothing behind; nor does a test that panics.
#[test]
fn netns_hosts_leave_nothing_behind() {
    need_root!();
    need_tool!("fio");
    let hosts = FioHosts::new(&[20, 20], DEVICE_MIB);
    let fp0 = {
        let jobs = JobDir::new();
        let _turn = clients();
        let h0 = hosts.hosts()[0].clone();
        let _client = Client(
            jobs.client(&[h0], 30)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start fio client"),
        );
        wait_for_io(&hosts, 0);
        hosts.freeze(1);
        assert!(hosts.is_frozen(1), "host 1 is not frozen: {:?}", hosts.pids(1));
        let running = hosts.pids(0);
        // The server, the connection's child, the backend and the job.
        assert!(running.len() >= 3, "host 0 runs only {running:?}");
        // While the hosts live, their footprint finds each: 2 namespaces, 2 root-side
        // veths, 2 loop devices, 2 cgroups, 4 files, 2 addresses, 2 routes, the processes.
        let fp = hosts.footprint();
        let live = fp.leftovers();
        assert!(
            live.len() >= 16 + running.len() + hosts.pids(1).len(),
            "the footprint misses live resources: {live:#?}"
        );
        let t = Instant::now();
        drop(hosts);
        note!(
            "2 hosts (one reading, one frozen): teardown {:.0} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        fp
    };
    assert_clean(&fp0);

    // A panicking test: the hosts go away while it unwinds.
    let (tx, rx) = mpsc::channel();
    let name = thread::current().name().unwrap_or("netns_hosts_leave_nothing_behind").to_string();
    let panicked = thread::Builder::new()
        .name(name)
        .spawn(move || {
            let hosts = FioHosts::new(&[10], DEVICE_MIB);
            tx.send(hosts.footprint()).expect("send footprint");
            panic!("deliberate panic with live fio hosts");
        })
        .expect("spawn")
        .join();
    assert!(panicked.is_err(), "the thread did not panic");
    let fp1 = rx.recv().expect("footprint");
    assert_clean(&fp1);
}

/// A stopped host: its processes are gone at once, the client names it
/// (`failed to connect to ADDR:8765`), and the other hosts' results are in the JSON.
#[test]
fn netns_stopped_host_is_named_and_the_others_report() {
    need_root!();
    need_tool!("fio");
    let mut hosts = FioHosts::new(&[20, 20, 10], DEVICE_MIB);
    let t = Instant::now();
    hosts.stop(1);
    note!("stop(1) took {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    assert!(hosts.pids(1).is_empty(), "host 1 still runs {:?}", hosts.pids(1));
    hosts.stop(1);
    let jobs = JobDir::new();
    let out = {
        let _turn = clients();
        output_with_timeout(&mut jobs.client(hosts.hosts(), 1), TIMEOUT)
    };
    let err = String::from_utf8_lossy(&out.stderr);
    note!("client exit {}; stderr:\n{}", out.status, err.trim());
    let dead = &hosts.hosts()[1];
    assert!(
        err.contains(&format!("failed to connect to {}:{FIO_PORT}", dead.addr)) && err.contains("Connection refused"),
        "the client does not name the dead host {}: {err}",
        dead.addr
    );
    let doc = client_json(&out);
    assert!(stats_of(&doc, &dead.addr).is_none(), "results from the dead host: {doc}");
    for i in [0, 2] {
        let h = &hosts.hosts()[i];
        let s = stats_of(&doc, &h.addr).unwrap_or_else(|| panic!("no client_stats for {} ({}): {doc}", h.name, h.addr));
        let io = s["read"]["io_bytes"].as_u64().expect("read.io_bytes");
        assert!(io > 0 && hosts.io_count(i).read_bytes >= io, "{}: read {io} bytes", h.name);
    }
    let fp = hosts.footprint();
    drop(hosts);
    assert_clean(&fp);
}

/// A frozen host does no I/O and its job resumes when thawed.
#[test]
fn netns_frozen_host_does_no_io_until_thawed() {
    need_root!();
    need_tool!("fio");
    let hosts = FioHosts::new(&[20], DEVICE_MIB);
    let jobs = JobDir::new();
    let _turn = clients();
    let mut cmd = jobs.client(hosts.hosts(), 4);
    let client = thread::spawn(move || output_with_timeout(&mut cmd, TIMEOUT));
    wait_for_io(&hosts, 0);
    let t = Instant::now();
    hosts.freeze(0);
    note!("freeze(0) took {:.1} ms; pids {:?}", t.elapsed().as_secs_f64() * 1e3, hosts.pids(0));
    assert!(hosts.is_frozen(0), "not frozen: {:?}", hosts.pids(0));
    // A read already queued at the throttle may still complete.
    thread::sleep(Duration::from_millis(200));
    let before = hosts.io_count(0).read_bytes;
    thread::sleep(Duration::from_secs(1));
    let after = hosts.io_count(0).read_bytes;
    hosts.thaw(0);
    assert_eq!(before, after, "a frozen host read {} bytes", after - before);
    assert!(!hosts.is_frozen(0), "still frozen after thaw");
    let out = client.join().expect("the client's thread panicked");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fio client failed ({}): {err}", out.status);
    let doc = client_json(&out);
    let h = &hosts.hosts()[0];
    let s = stats_of(&doc, &h.addr).unwrap_or_else(|| panic!("no client_stats for {}: {doc}", h.addr));
    let io = s["read"]["io_bytes"].as_u64().expect("read.io_bytes");
    let end = hosts.io_count(0).read_bytes;
    note!(
        "frozen at {} MiB; the job read {} MiB in all, {} MiB after the thaw",
        after / MIB,
        io / MIB,
        (end - after) / MIB
    );
    assert!(end > after, "no I/O after the thaw");
    assert!(io > 0 && end >= io, "the client reports {io} bytes, the throttle saw {end}");
}

/// Hand-made leftovers of a dead process, removed if the sweep did not (a failing test).
struct FakeStale {
    ns: String,
    link: String,
}

impl Drop for FakeStale {
    fn drop(&mut self) {
        let quiet = |args: &[&str]| {
            let _ = Command::new("ip").args(args).stderr(Stdio::null()).status();
        };
        if Path::new("/sys/class/net").join(&self.link).exists() {
            quiet(&["link", "del", &self.link]);
        }
        if Path::new("/run/netns").join(&self.ns).exists() {
            quiet(&["netns", "del", &self.ns]);
        }
    }
}

/// The hosts of a dead test process (a namespace and a veth whose names carry its pid,
/// with a process inside) are swept by the next harness.
#[test]
fn netns_stale_hosts_are_swept() {
    need_root!();
    // A pid that no longer exists: a child that has been reaped.
    let mut t = Command::new("true").spawn().expect("spawn true");
    let dead = t.id();
    t.wait().expect("wait true");
    let ns = unique_name("fio-h1").replacen(&std::process::id().to_string(), &dead.to_string(), 1);
    let (h, p) = (format!("il{dead:x}x0h1"), format!("il{dead:x}x0p1"));
    // No sweep (another test's first hosts, another process) may see the leftovers half
    // made: a namespace swept before the process enters it would leave that running.
    let lock = SweepLock::take();
    let ip = |args: &[&str]| {
        let ok = Command::new("ip").args(args).status().is_ok_and(|s| s.success());
        assert!(ok, "ip {args:?} failed");
    };
    let _fake = FakeStale {
        ns: ns.clone(),
        link: h.clone(),
    };
    ip(&["netns", "add", &ns]);
    ip(&["link", "add", &h, "type", "veth", "peer", "name", &p]);
    ip(&["link", "set", &p, "netns", &ns]);
    let mut inside = Client(
        Command::new("ip")
            .args(["netns", "exec", &ns, "sleep", "60"])
            .stdin(Stdio::null())
            .spawn()
            .expect("start sleep in the namespace"),
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while fs::read_link(format!("/proc/{}/exe", inside.0.id())).is_ok_and(|e| !e.ends_with("sleep")) {
        assert!(Instant::now() < deadline, "sleep did not start in {ns}");
        thread::sleep(Duration::from_millis(10));
    }
    drop(lock);
    // A fresh harness process would sweep in its first FioHosts::new; call it directly.
    sweep_stale_fio_hosts();
    let deadline = Instant::now() + Duration::from_secs(5);
    while inside.0.try_wait().expect("try_wait").is_none() {
        assert!(Instant::now() < deadline, "the sweep left the process in {ns} running");
        thread::sleep(Duration::from_millis(20));
    }
    let fp = Footprint {
        netns: vec![ns],
        links: vec![h, p],
        cgroups: Vec::new(),
        files: Vec::new(),
        addrs: Vec::new(),
        pids: Default::default(),
    };
    assert_clean(&fp);
}
