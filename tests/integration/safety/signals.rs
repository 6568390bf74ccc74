//! Signals at any moment (issue 16): `run`, `scan`, `scale`, `time`, the files and git
//! suites and `verify` are each killed with SIGINT, SIGTERM and SIGKILL at 5 random
//! moments (seeded, printed), plus once exactly during the prefill, the flush that ends a
//! write window and the store transaction (held there by the `IOLAB_TEST_PAUSE_AT` test
//! knob). After each: no panic, the documented exit status, no file or directory of
//! iolab's left in the target (what SIGKILL leaves carries its owner marker, and the
//! next run removes it and says so), the store passes `PRAGMA integrity_check`, every
//! stored run interrupted by a signal is marked incomplete, and every complete one
//! came from a run that exited 0. Issue 36: also SIGINT delivered twice a moment apart
//! (as `timeout -s INT` does: to the process, then to its group), which is one
//! interrupt: the run ends as after one SIGINT, says so and keeps what finished.

use crate::common::iolab;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Moments per command and signal.
const MOMENTS: usize = 5;
/// SIGKILL last: what it leaves stays until a run gets far enough to sweep
/// it, and a shot of another signal that lands before that (1 ms after the
/// start) would find it there.
const SIGNALS: [(i32, &str); 4] = [
    (libc::SIGINT, "SIGINT"),
    (libc::SIGTERM, "SIGTERM"),
    (TWICE, "SIGINT twice"),
    (libc::SIGKILL, "SIGKILL"),
];
/// Not a signal: SIGINT, then SIGINT again [`TWICE_GAP`] later.
const TWICE: i32 = -libc::SIGINT;
/// The gap between the two deliveries of [`TWICE`]: long enough for the
/// first to be handled, far shorter than a second Ctrl-C.
const TWICE_GAP: Duration = Duration::from_millis(20);

/// The signal `sig` stands for ([`TWICE`] is SIGINT).
fn real(sig: i32) -> i32 {
    sig.abs()
}
/// A run that outlives this after its signal has hung.
const HANG: Duration = Duration::from_secs(20);

/// One command under fire, in its own directory and store.
struct Case {
    name: &'static str,
    args: fn(&Path) -> Vec<String>,
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn with_dir(head: &[&str], dir: &Path, tail: &[&str]) -> Vec<String> {
    let mut v = s(head);
    v.push(dir.display().to_string());
    v.extend(s(tail));
    v
}

const QUICK: [&str; 8] = ["--size", "8MiB", "--duration", "100ms", "--warmup", "0s", "--interval", "0s"];

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "run",
            args: |d| with_dir(&["run"], d, &[&["--suite", "demo", "--runs", "1"][..], &QUICK].concat()),
        },
        Case {
            name: "scan",
            args: |d| {
                with_dir(
                    &["scan"],
                    d,
                    &[
                        "--size",
                        "16MiB",
                        "--zones",
                        "4",
                        "--window",
                        "1MiB",
                        "--access",
                        "20",
                        "--zone-warmup",
                        "0s",
                    ],
                )
            },
        },
        Case {
            name: "scale",
            args: |d| with_dir(&["scale"], d, &[&["--qd-sweep", "1,4", "--runs", "1"][..], &QUICK].concat()),
        },
        Case {
            name: "time",
            args: |d| {
                let mut v = s(&["time", "--runs", "3", "--cwd"]);
                v.push(d.display().to_string());
                v.extend(s(&["--", "sh", "-c", "head -c 4000000 /dev/urandom | cksum > /dev/null"]));
                v
            },
        },
        Case {
            name: "files",
            args: |d| with_dir(&["run"], d, &["--suite", "files", "--files", "200", "--runs", "1"]),
        },
        Case {
            name: "git",
            args: |d| with_dir(&["run"], d, &["--suite", "git", "--commits", "3", "--runs", "1"]),
        },
        Case {
            name: "verify",
            args: |d| with_dir(&["verify"], d, &["--size", "8M", "--cold-wait", "100ms"]),
        },
    ]
}

/// A directory and a store of the case's own, on tmpfs.
struct Env {
    tmp: tempfile::TempDir,
}

impl Env {
    fn new(name: &str) -> Env {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("iolab-signals-{name}-"))
            .tempdir_in("/dev/shm")
            .unwrap();
        std::fs::create_dir(tmp.path().join("t")).unwrap();
        Env { tmp }
    }
    fn dir(&self) -> PathBuf {
        self.tmp.path().join("t")
    }
    fn db(&self) -> PathBuf {
        self.tmp.path().join("results.db")
    }
    fn cmd(&self, args: &[String]) -> Command {
        let mut c = iolab();
        c.args(args)
            .env("IOLAB_DB", self.db())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    }
    /// What iolab left in the target directory.
    fn left(&self) -> Vec<String> {
        std::fs::read_dir(self.dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    }
}

/// One run, signalled `after` its start (or at the test knob's point). Returns its
/// exit status (or the signal that ended it), how long it ran, and its stderr.
fn shoot(env: &Env, args: &[String], sig: i32, after: Duration, pause_at: Option<&str>) -> (Option<i32>, Option<i32>, f64, String) {
    let mut c = env.cmd(args);
    let flag = env.tmp.path().join("paused");
    let _ = std::fs::remove_file(&flag);
    if let Some(p) = pause_at {
        c.env("IOLAB_TEST_PAUSE_AT", format!("{p}:{}", flag.display()));
    }
    let mut child = c.spawn().unwrap();
    let t0 = Instant::now();
    if pause_at.is_some() {
        while !flag.exists() {
            assert!(t0.elapsed() < HANG, "{args:?} never reached {pause_at:?}");
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(100));
    } else {
        std::thread::sleep(after);
    }
    // SAFETY: kill(2) of our own child (it may have exited: ESRCH is fine).
    unsafe { libc::kill(child.id() as i32, real(sig)) };
    if sig == TWICE {
        std::thread::sleep(TWICE_GAP);
        // SAFETY: as above.
        unsafe { libc::kill(child.id() as i32, real(sig)) };
    }
    let mut stderr = String::new();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            use std::io::Read;
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            use std::os::unix::process::ExitStatusExt;
            return (st.code(), st.signal(), t0.elapsed().as_secs_f64(), stderr);
        }
        if t0.elapsed() > HANG + after {
            let _ = child.kill();
            panic!("{args:?} still running {HANG:?} after {}", signame(sig));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A run that ended with 128 + the signal said why: iolab's handler saw it
/// (an exit without a word is a process that had none, or took one
/// interrupt for two).
fn said_interrupted(sig: i32, err: &str, what: &str) {
    let name = if real(sig) == libc::SIGINT { "SIGINT" } else { "SIGTERM" };
    assert!(
        err.contains(&format!("interrupted by {name}")),
        "{what}: exited without a word: {err:?}"
    );
    assert!(!err.contains("exiting at once"), "{what}: one interrupt taken for two: {err}");
}

fn signame(sig: i32) -> &'static str {
    SIGNALS.iter().find(|s| s.0 == sig).map(|s| s.1).unwrap_or("?")
}

/// The store is sound and says the truth about each run: every complete run
/// came from a run that exited 0, except that a SIGKILL may land after the
/// store's commit, while the result is printed (`killed_late_ok`): then one
/// more complete run is fine, and `complete_exits` counts it.
fn check_store(env: &Env, complete_exits: &mut usize, killed_late_ok: bool, what: &str) {
    if !env.db().exists() {
        assert_eq!(*complete_exits, 0, "{what}: runs finished but no store");
        return;
    }
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(ok, "ok", "{what}: integrity_check");
    let mut st = conn.prepare("SELECT complete, document FROM runs").unwrap();
    let rows: Vec<(bool, String)> = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().flatten().collect();
    for (complete, doc) in &rows {
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        assert_eq!(
            v["interrupted"].as_bool().unwrap_or(false),
            !complete,
            "{what}: a run's complete flag and its document disagree"
        );
    }
    let complete = rows.iter().filter(|r| r.0).count();
    if killed_late_ok && complete == *complete_exits + 1 {
        *complete_exits += 1;
    }
    assert_eq!(complete, *complete_exits, "{what}: complete runs stored vs runs that exited 0");
}

/// Every name iolab may leave after a SIGKILL must be a directory of its
/// own: marked, or still empty. A SIGKILL can land between the `mkdir` of a
/// directory and the write of its owner marker (two system calls: no order
/// of them closes that gap); the sweep judges an unmarked directory by the
/// pid in its name (`target::leftovers`), and the run after the torture must
/// remove it like any other leftover.
fn check_left(env: &Env, sig: i32, what: &str) {
    for name in env.left() {
        let p = env.dir().join(&name);
        let marked = p.join(".iolab-owner").is_file();
        let inside: Vec<String> = std::fs::read_dir(&p)
            .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        assert!(
            sig == libc::SIGKILL && name.starts_with("iolab-") && (marked || inside.is_empty()),
            "{what}: left {name} behind (marked: {marked}; holds {inside:?})"
        );
    }
}

/// A small deterministic generator for the moments (the seed is printed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn torture(case: &Case, seed: u64, log: &Mutex<Vec<String>>) {
    let env = Env::new(case.name);
    let args = (case.args)(&env.dir());
    // How long an undisturbed run takes here: the faster of two (the first
    // pays for cold caches); both are complete runs in the store.
    let mut full = Duration::MAX;
    for _ in 0..2 {
        let t0 = Instant::now();
        let out = env.cmd(&args).output().unwrap();
        assert!(out.status.success(), "{}: {}", case.name, String::from_utf8_lossy(&out.stderr));
        full = full.min(t0.elapsed());
    }
    let mut complete_exits = 2;
    let mut rng = Lcg(seed ^ case.name.len() as u64);
    let mut stats = Vec::new();
    for &(sig, sname) in &SIGNALS {
        let (mut early, mut late) = (0, 0);
        for k in 0..MOMENTS {
            let after = full.mul_f64(rng.next() * 1.1);
            let what = format!("{} {sname} #{k} at {:.0} ms", case.name, after.as_secs_f64() * 1000.0);
            let (code, by, _, err) = shoot(&env, &args, sig, after, None);
            assert!(!err.contains("panicked"), "{what}: {err}");
            let what = format!(
                "{what} (exit {code:?}, signal {by:?}, stderr {:?})",
                err.lines().last().unwrap_or("")
            );
            match (code, by) {
                (Some(0), _) => {
                    complete_exits += 1;
                    late += 1;
                }
                (Some(c), _) if c == 128 + real(sig) => {
                    said_interrupted(sig, &err, &what);
                    early += 1
                }
                (None, Some(s)) if s == real(sig) => early += 1,
                other => panic!("{what}: ended with {other:?}: {err}"),
            }
            check_left(&env, sig, &what);
            check_store(&env, &mut complete_exits, sig == libc::SIGKILL, &what);
        }
        stats.push(format!("{sname}: {early} cut short, {late} done first"));
    }
    // Held at each point the knob knows, then signalled there.
    let points: &[&str] = match case.name {
        "run" => &["prefill", "flush", "store"],
        "scan" | "scale" => &["prefill", "store"],
        _ => &["store"],
    };
    for point in points {
        for &(sig, sname) in &SIGNALS {
            let what = format!("{} {sname} during {point}", case.name);
            let (code, by, _, err) = shoot(&env, &args, sig, Duration::ZERO, Some(point));
            assert!(!err.contains("panicked"), "{what}: {err}");
            match (code, by) {
                // A signal during the store transaction: the run had finished and is kept whole.
                (Some(0), _) if *point == "store" => complete_exits += 1,
                (Some(c), _) if c == 128 + real(sig) => said_interrupted(sig, &err, &what),
                (None, Some(s)) if s == real(sig) => {}
                other => panic!("{what}: ended with {other:?}: {err}"),
            }
            check_left(&env, sig, &what);
            check_store(&env, &mut complete_exits, false, &what);
        }
    }
    // What SIGKILL left, the next run removes, and says so.
    let leftovers = env.left().len();
    let out = env.cmd(&args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: the run after: {err}", case.name);
    complete_exits += 1;
    if leftovers > 0 {
        assert!(
            err.contains("left by an iolab run") || err.contains("left by iolab runs"),
            "{}: {err}",
            case.name
        );
    }
    assert!(
        env.left().is_empty(),
        "{}: still left after the next run: {:?}",
        case.name,
        env.left()
    );
    check_store(&env, &mut complete_exits, false, case.name);
    let line = format!(
        "{}: undisturbed {:.2} s; {}; {leftovers} SIGKILL leftover(s) removed by the next run",
        case.name,
        full.as_secs_f64(),
        stats.join(", ")
    );
    note!("{line}");
    log.lock().unwrap().push(line);
}

#[test]
fn issue_16_signals_at_any_moment_leave_nothing_and_a_sound_store() {
    let seed = std::env::var("IOLAB_SIGNAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    note!("seed {seed} (IOLAB_SIGNAL_SEED={seed} repeats the moments)");
    let have_git = Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success());
    let log = Mutex::new(Vec::new());
    // IOLAB_SIGNAL_CASES=git,verify: only those (to chase one).
    let only = std::env::var("IOLAB_SIGNAL_CASES").ok();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.name != "git" || have_git)
        .filter(|c| only.as_deref().is_none_or(|o| o.split(',').any(|n| n == c.name)))
        .collect();
    // Three threads (each run waits on its signal as much as it computes):
    // git, the slowest, alone; the others in two groups of about equal time.
    let groups: [&[&str]; 3] = [&["git"], &["run", "scan", "time"], &["files", "scale", "verify"]];
    std::thread::scope(|s| {
        for names in groups {
            let log = &log;
            let mine: Vec<&Case> = cases.iter().filter(|c| names.contains(&c.name)).collect();
            s.spawn(move || {
                for c in mine {
                    torture(c, seed, log);
                }
            });
        }
    });
    assert_eq!(log.into_inner().unwrap().len(), cases.len());
}

/// Issue 36: `timeout -s INT 6 iolab run DIR ...` sometimes printed and
/// stored nothing, exit status 130: timeout signals the process and then its
/// group, and when the first delivery was handled before the second was
/// sent, the second counted as "a second SIGINT: exit at once". Held at each
/// point of the run (the prefill, the flush, the store transaction), SIGINT
/// twice, 20 ms apart, is one interrupt: the run says so and keeps what
/// finished (during the store transaction, the finished run whole).
#[test]
fn issue_36_sigint_delivered_twice_a_moment_apart_is_one_interrupt() {
    let case = &cases()[0];
    assert_eq!(case.name, "run");
    let env = Env::new("twice");
    let args = (case.args)(&env.dir());
    let mut complete_exits = 0;
    for point in ["prefill", "flush", "store"] {
        let what = format!("SIGINT twice during {point}");
        let (code, by, _, err) = shoot(&env, &args, TWICE, Duration::ZERO, Some(point));
        match (code, by) {
            (Some(0), _) if point == "store" => {
                assert!(err.contains("stored as run"), "{what}: {err}");
                complete_exits += 1;
            }
            (Some(130), _) => said_interrupted(TWICE, &err, &what),
            other => panic!("{what}: ended with {other:?}: {err:?}"),
        }
        check_left(&env, libc::SIGINT, &what);
        check_store(&env, &mut complete_exits, false, &what);
    }
}

/// A second SIGINT that is a second request (later than the same one
/// delivered again could be) still exits at once, and says so.
#[test]
fn issue_36_a_second_sigint_later_exits_at_once_and_says_so() {
    let env = Env::new("again");
    let args = (cases()[0].args)(&env.dir());
    let mut c = env.cmd(&args);
    let flag = env.tmp.path().join("paused");
    c.env("IOLAB_TEST_PAUSE_AT", format!("prefill:{}", flag.display()));
    let child = c.spawn().unwrap();
    let t0 = Instant::now();
    while !flag.exists() {
        assert!(t0.elapsed() < HANG, "never reached the prefill");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Both inside the prefill's pause (1 s), 600 ms apart.
    // SAFETY: kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(600));
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("a second SIGINT: exiting at once"), "{err}");
}
