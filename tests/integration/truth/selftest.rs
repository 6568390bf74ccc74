//! `iolab selftest` (issue 15): on this machine every figure lands within
//! ±3% of its emulated limit and nothing is left behind; with the limits
//! made unreachable it fails and says which; without root it says why.

use crate::common::{iolab, iolab_as};
use std::process::Command;

/// The two self-tests measure: never at once.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// What the self-test run by process `pid` left behind.
fn leftovers(pid: u32) -> Vec<String> {
    let me = format!("iolab-selftest-{pid}");
    let mut v = Vec::new();
    let loops = String::from_utf8_lossy(&Command::new("losetup").arg("-a").output().unwrap().stdout).to_string();
    v.extend(loops.lines().filter(|l| l.contains(&me)).map(String::from));
    for dir in ["/sys/fs/cgroup/blkio", "/dev/shm"] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().to_string();
                if n.starts_with(&me) {
                    v.push(format!("{dir}/{n}"));
                }
            }
        }
    }
    v
}

#[test]
fn issue_15_selftest_passes_here_and_leaves_nothing() {
    need_root!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let child = iolab()
        .args(["selftest", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    note!("{}", serde_json::to_string_pretty(&v["cases"]).unwrap());
    assert!(out.status.success(), "{err}\n{v}");
    assert_eq!(v["passed"], true);
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 5, "{cases:?}");
    for c in cases {
        assert!(c["error_pct"].as_f64().unwrap().abs() <= 3.0, "{c}");
    }
    assert!(leftovers(pid).is_empty(), "{:?}", leftovers(pid));
}

#[test]
fn issue_15_selftest_fails_with_the_reason_when_a_limit_is_unreachable() {
    need_root!();
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let child = iolab()
        .arg("selftest")
        .env("IOLAB_TEST_SELFTEST_LIMIT_SCALE", "1000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("selftest failed:") && err.contains("outside ±3% of its limit"),
        "{err}"
    );
    assert!(text.contains("OUTSIDE") && text.contains("FAIL:"), "{text}");
    assert!(leftovers(pid).is_empty(), "{:?}", leftovers(pid));
}

#[test]
fn issue_15_selftest_without_root_says_why() {
    let out = iolab_as(&["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg("selftest")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("selftest needs root"), "{err}");
}
