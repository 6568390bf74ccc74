//! The plan as `iolab layouts --dry-run` prints it: the configurations
//! with their devices and tags, the refusals, the time estimate, then each
//! configuration's exact commands.

use super::{BUILD_TEARDOWN, Capabilities, LayoutPlan, RunNames, TestFileSize, Workload, commands, estimate, estimate_total};
use std::fmt::Write;
use std::time::Duration;

/// `1h 05m`, `14m 30s`, `45s`.
fn long(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, _) => format!("{h}h {m:02}m"),
    }
}

/// What the machine has, in one line.
fn machine(caps: &Capabilities) -> String {
    let zfs = caps.zfs.map_or("none", |z| z.name());
    let yes = |b: bool| if b { "yes" } else { "no" };
    let tools: Vec<&str> = caps.tools.iter().map(String::as_str).collect();
    format!(
        "this machine: ZFS {zfs}; md {}; device-mapper {}; tools: {}",
        yes(caps.md),
        yes(caps.dm),
        if tools.is_empty() { "none".into() } else { tools.join(" ") }
    )
}

/// The whole dry run; `runs`: what runs on each configuration, in words;
/// `test_file`: its size, when iolab sized it for these devices.
pub fn dry_run(
    plan: &LayoutPlan,
    caps: &Capabilities,
    w: Workload,
    runs: &str,
    test_file: Option<&TestFileSize>,
    names: &RunNames,
) -> String {
    let mut o = String::new();
    let n = plan.configs.len();
    let _ = writeln!(o, "dry run of iolab layouts: nothing is built, written or destroyed");
    let _ = writeln!(o, "{}", machine(caps));
    let _ = writeln!(o, "run id {}; mounts under {}", names.id, names.root.display());
    let _ = writeln!(o);
    let _ = writeln!(o, "{n} configuration{}:", if n == 1 { "" } else { "s" });
    let width = plan.configs.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for (i, c) in plan.configs.iter().enumerate() {
        let devs: Vec<String> = c.devices.iter().map(|d| d.display().to_string()).collect();
        let tags: Vec<String> = c.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mark = if i == 0 { " (baseline)" } else { "" };
        let _ = writeln!(o, "  {:>2}. {:width$}  on {}{mark}", i + 1, c.name, devs.join(" "));
        let _ = writeln!(o, "      {:width$}  tags {}", "", tags.join(" "));
    }
    if !plan.refusals.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "refused ({}):", plan.refusals.len());
        for r in &plan.refusals {
            let _ = writeln!(o, "  {}: {}", r.name, r.reason);
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "on each configuration: {runs}");
    if let Some(t) = test_file {
        let _ = writeln!(o, "{}", t.line());
    }
    let _ = writeln!(
        o,
        "estimate: about {} in all; each configuration {} = {} tests × {} + {} to build, empty caches and tear down",
        long(estimate_total(plan, w)),
        long(estimate(w)),
        w.tests,
        long(w.per_test),
        long(BUILD_TEARDOWN)
    );
    for (i, c) in plan.configs.iter().enumerate() {
        let cmds = commands(c, i + 1, names);
        let _ = writeln!(o);
        let _ = writeln!(o, "{}. {}", i + 1, c.name);
        let _ = writeln!(o, "  build:");
        for s in &cmds.build {
            let _ = writeln!(o, "    {}", s.line());
        }
        let _ = writeln!(o, "  teardown (also after a failure or a signal):");
        for s in &cmds.teardown {
            let _ = writeln!(o, "    {}", s.line());
        }
    }
    o
}
