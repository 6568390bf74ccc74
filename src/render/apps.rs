//! Tables for application workloads: `iolab time` runs and the phases of
//! the `files` and `git` suites. Formatting only.

use crate::summary::apps::{AppReport, TimeReport};
use crate::units::{bw, fmt_bytes};
use comfy_table::{Cell, CellAlignment};

fn right(v: String) -> Cell {
    Cell::new(v).set_alignment(CellAlignment::Right)
}

fn opt_bytes(b: Option<u64>) -> String {
    b.map(fmt_bytes).unwrap_or_else(|| "–".into())
}

/// The columns of a timed command's runs, in the terminal and in Markdown.
pub const TIME_COLUMNS: [&str; 9] = [
    "Run",
    "Wall s",
    "User s",
    "Sys s",
    "Device",
    "Device read",
    "Device written",
    "Device busy s",
    "Exit",
];

/// One row per run, then hyperfine's summary line.
pub fn time_table(t: &TimeReport) -> String {
    let mut tab = super::text_table();
    tab.set_header(TIME_COLUMNS.to_vec());
    for (i, r) in t.runs.iter().enumerate() {
        tab.add_row(vec![
            right((i + 1).to_string()),
            right(format!("{:.3}", r.wall_s)),
            right(format!("{:.3}", r.user_s)),
            right(format!("{:.3}", r.sys_s)),
            Cell::new(run_device(t, i)),
            right(opt_bytes(r.device_read_bytes)),
            right(opt_bytes(r.device_write_bytes)),
            right(r.device_busy_s.map(|b| format!("{b:.2}")).unwrap_or_else(|| "–".into())),
            right(r.exit_code.to_string()),
        ]);
    }
    let w = &t.wall_s;
    format!(
        "Command: {} (in {}){}\n{tab}\n{}Time (mean ± σ): {:.3} s ± {:.3} s   [median {:.3} s, min {:.3} s … max {:.3} s]   User: {:.3} s, System: {:.3} s   {} run(s), {}\n",
        t.command,
        t.cwd,
        match (&t.prepare, &t.cleanup) {
            (None, None) => String::new(),
            (p, c) => format!(
                "\n{}{}",
                p.as_ref().map(|p| format!("Prepare: {p}  ")).unwrap_or_default(),
                c.as_ref().map(|c| format!("Cleanup: {c}")).unwrap_or_default()
            ),
        },
        moved_lines(t),
        w.mean,
        w.stddev,
        w.median,
        w.min,
        w.max,
        t.user_s.mean,
        t.sys_s.mean,
        t.runs.len(),
        if t.cold {
            "caches emptied before each run"
        } else {
            "warm (caches kept)"
        }
    )
}

/// The device a run's figures are from: the one named (`--device`,
/// `--cwd`), or the busiest; "none" when no device moved.
pub fn run_device(t: &TimeReport, i: usize) -> String {
    let r = &t.runs[i];
    if let Some(d) = &r.device {
        return d.clone();
    }
    // Documents before 0.2 (no totals) name no device per run: it was the report's first.
    if r.total_read_bytes.is_none()
        && r.device_read_bytes.is_some()
        && let Some(d) = t.devices.first()
    {
        return d.clone();
    }
    "none".into()
}

/// One device's line: what it moved, where it sits in a stack.
pub fn activity_line(d: &crate::device::DeviceActivity) -> String {
    let mut s = format!(
        "{}: read {}, written {}, busy {:.2} s",
        d.name,
        fmt_bytes(d.read_bytes),
        fmt_bytes(d.write_bytes),
        d.busy_s
    );
    if !d.partitions.is_empty() {
        s.push_str(&format!(" (through {})", d.partitions.join(", ")));
    }
    if !d.on.is_empty() {
        s.push_str(&format!("; on {}", d.on.join(", ")));
    }
    s
}

/// Every device that moved, summed over the runs, and the total over the
/// bottom devices; nothing when no run recorded devices.
fn moved_lines(t: &TimeReport) -> String {
    let all = crate::device::sum_activity(t.runs.iter().map(|r| r.devices.as_slice()));
    if all.is_empty() {
        return String::new();
    }
    let how = match t.named() {
        Some(n) => format!("figures above: the device named by {n}"),
        None => "figures above: each run's device that did the command's reads, else its busiest".into(),
    };
    let mut s = format!("Devices that moved, all {} run(s) ({how}):\n", t.runs.len());
    for d in &all {
        s.push_str(&format!("  {}\n", activity_line(d)));
    }
    let (r, w) = crate::device::bottom_total(&all);
    s.push_str(&format!(
        "  Total over the bottom devices (each byte once): read {}, written {}\n",
        fmt_bytes(r),
        fmt_bytes(w)
    ));
    s
}

/// One row per phase: time, rates, and what the device saw.
pub fn app_table(a: &AppReport, st: super::Style) -> String {
    let mut tab = super::text_table();
    tab.set_header(vec![
        "Phase",
        "Cache",
        "Files",
        "Data",
        "Seconds (median)",
        "Spread (min–max)",
        "Files/s",
        st.units.label(),
        "Device read",
        "Device written",
    ]);
    for p in &a.phases {
        tab.add_row(vec![
            Cell::new(&p.name),
            Cell::new(if p.cold { "cold" } else { "warm" }),
            right(p.files.to_string()),
            right(fmt_bytes(p.bytes)),
            right(format!("{:.3}", p.wall_s.median)),
            right(match p.wall_s_spread() {
                Some((min, max)) => format!("{min:.3}–{max:.3}"),
                None => "1 run".into(),
            }),
            right(format!("{:.0}", p.files_per_s)),
            right(bw(p.bytes_per_s, st.units, 2)),
            right(opt_bytes(p.device_read_bytes)),
            right(opt_bytes(p.device_write_bytes)),
        ]);
    }
    let params: Vec<String> = a.params.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let mut moved = String::new();
    for p in a.phases.iter().filter(|p| !p.devices.is_empty()) {
        let lines: Vec<String> = p.devices.iter().map(activity_line).collect();
        moved.push_str(&format!("  {}: {}\n", p.name, lines.join("; ")));
    }
    if !moved.is_empty() {
        moved.insert_str(0, "Devices that moved (median over runs):\n");
    }
    format!(
        "Workload: {} ({}) · {} run(s)\n{tab}\n{moved}",
        a.workload,
        params.join(", "),
        a.runs
    )
}
