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
            let _ = child.kill();
            let _ = child.wait();
            let stdout = t_out.join().unwrap_or_default();
            let stderr = t_err.join().unwrap_or_default();
            panic!(
                "`{what}` did not finish within {timeout:?}; killed.\nstdout: {}\nstderr: {}",
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
