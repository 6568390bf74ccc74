//! Running external commands: checked setup commands, quiet cleanup commands, retries,
//! and children with a timeout.

use std::io::Read;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

fn describe(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// Run a setup command; panic with its output if it fails. Returns trimmed stdout.
pub fn run_checked(cmd: &mut Command) -> String {
    let what = describe(cmd);
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{what}`: {e}"));
    if !out.status.success() {
        panic!(
            "`{what}` failed ({}):\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Run a command with no input or output, as a step that is retried until
/// it succeeds (an unmount, a detach); `Err` when it could not be started.
pub(super) fn try_silently(cmd: &mut Command) -> std::io::Result<bool> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
}

/// Run a cleanup command without panicking; returns whether it succeeded.
pub(super) fn run_quiet(cmd: &mut Command) -> bool {
    match cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).output() {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!(
                "emu cleanup: `{}` failed: {}",
                describe(cmd),
                String::from_utf8_lossy(&o.stderr).trim()
            );
            false
        }
        Err(e) => {
            eprintln!("emu cleanup: cannot run `{}`: {e}", describe(cmd));
            false
        }
    }
}

/// Retry `f` until it returns true or `tries` attempts passed, sleeping `pause` in between.
pub(super) fn retry(tries: u32, pause: Duration, mut f: impl FnMut() -> bool) -> bool {
    for i in 0..tries {
        if f() {
            return true;
        }
        if i + 1 < tries {
            thread::sleep(pause);
        }
    }
    false
}

/// Spawn `cmd` with piped stdout/stderr and wait at most `timeout`. On timeout the child
/// is killed and this panics with whatever it printed. Never leaves a child behind.
pub fn output_with_timeout(cmd: &mut Command, timeout: Duration) -> Output {
    let what = describe(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot spawn `{what}`: {e}"));
    let mut so = child.stdout.take().expect("stdout pipe");
    let mut se = child.stderr.take().expect("stderr pipe");
    let t_out = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let deadline = Instant::now() + timeout;
    let status: ExitStatus = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("waiting for `{what}` failed: {e}");
            }
        }
        if Instant::now() >= deadline {
            let tree = tree_of(child.id());
            let state = processes(&tree);
            let _ = child.kill();
            let _ = child.wait();
            // Its children too, which would otherwise run on and hold its pipes open.
            for pid in &tree[1..] {
                let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            }
            let stdout = t_out.join().unwrap_or_default();
            let stderr = t_err.join().unwrap_or_default();
            panic!(
                "`{what}` did not finish within {timeout:?}; killed.\nstdout: {}\nstderr: {}\nwhere it was when killed:\n{state}",
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().unwrap_or_default(),
        stderr: t_err.join().unwrap_or_default(),
    }
}

/// A process and its descendants (children first found, then theirs), from /proc.
pub fn tree_of(root: u32) -> Vec<u32> {
    let mut all: Vec<(u32, u32)> = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The fields after the command's name (which may hold spaces): state, ppid, ...
        let after = stat.rsplit_once(')').map_or("", |(_, a)| a);
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|x| x.parse().ok()) {
            all.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(all.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    tree
}

/// Where processes are, read from /proc while they still run, for a test that timed
/// out: each one's command line, its CPU cgroup's throttling, and each thread's state,
/// user and system time, the kernel function it waits in and (as root) its kernel
/// stack. What a hang's report needs to name its cause, since a killed process tells
/// nothing.
pub fn processes(pids: &[u32]) -> String {
    let read = |p: String| std::fs::read_to_string(p).unwrap_or_default();
    let mut out = String::new();
    for pid in pids {
        let cmd = read(format!("/proc/{pid}/cmdline")).replace('\0', " ");
        out.push_str(&format!("process {pid}: {}\n", cmd.trim()));
        for line in read(format!("/proc/{pid}/cgroup")).lines() {
            let Some((_, path)) = line.split_once(":cpu,cpuacct:").or_else(|| line.split_once(":cpu:")) else {
                continue;
            };
            let stat = read(format!("/sys/fs/cgroup/cpu{path}/cpu.stat"));
            out.push_str(&format!(
                "  cpu cgroup {path}: {}\n",
                stat.split_whitespace().collect::<Vec<_>>().join(" ")
            ));
        }
        let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
        for t in tasks {
            let tid = t.file_name().to_string_lossy().into_owned();
            let stat = read(format!("/proc/{pid}/task/{tid}/stat"));
            let (name, after) = stat.split_once(" (").and_then(|(_, r)| r.rsplit_once(')')).unwrap_or(("?", ""));
            let f: Vec<&str> = after.split_whitespace().collect();
            let field = |k: usize| f.get(k).copied().unwrap_or("?");
            // After the name: 0 state, 11 utime, 12 stime (clock ticks).
            out.push_str(&format!(
                "  thread {tid} ({name}) {} user {} sys {} ticks, waiting in {}\n",
                field(0),
                field(11),
                field(12),
                read(format!("/proc/{pid}/task/{tid}/wchan"))
            ));
            for frame in read(format!("/proc/{pid}/task/{tid}/stack")).lines().take(8) {
                out.push_str(&format!("    {frame}\n"));
            }
        }
    }
    out
}
