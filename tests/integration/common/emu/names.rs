//! What things are called: the running test's name, and the unique
//! `iolab-test-<pid>-<counter>-<test name>-<kind>` names of every resource.

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

use super::PREFIX;
use super::sweep::sweep_stale_once;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Name of the running test: libtest names each test's thread after the test.
pub fn current_test_name() -> String {
    let name = thread::current().name().unwrap_or("unnamed").to_string();
    let last = name.rsplit("::").next().unwrap_or("unnamed").to_string();
    if last == "main" { "unnamed".to_string() } else { last }
}

/// `iolab-test-<pid>-<counter>-<test name>-<kind>`, safe for file, cgroup and mount names.
pub fn unique_name(kind: &str) -> String {
    sweep_stale_once();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let clean = |s: &str, max: usize| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .take(max)
            .collect()
    };
    format!(
        "{PREFIX}-{}-{n}-{}-{}",
        std::process::id(),
        clean(&current_test_name(), 60),
        clean(kind, 16)
    )
}
