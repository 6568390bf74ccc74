//! Application workloads, not yet turned into views (see
//! [`super::view`]'s recipe): the terminal, Markdown and CSV of `iolab
//! time` runs and of the phases of the `files` and `git` suites, called
//! from `render/legacy.rs`. Formatting only.

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

/// A timed command's runs in Markdown: the command, a row per run, the
/// devices that moved and the summary line.
pub fn time_markdown(t: &TimeReport) -> String {
    use super::markdown::{grid, md_cell};
    let rows: Vec<Vec<String>> = t
        .runs
        .iter()
        .enumerate()
        .map(|(i, x)| {
            vec![
                (i + 1).to_string(),
                format!("{:.3}", x.wall_s),
                format!("{:.3}", x.user_s),
                format!("{:.3}", x.sys_s),
                run_device(t, i),
                opt_bytes(x.device_read_bytes),
                opt_bytes(x.device_write_bytes),
                x.device_busy_s.map(|b| format!("{b:.2}")).unwrap_or_else(|| "–".into()),
                x.exit_code.to_string(),
            ]
        })
        .collect();
    let mut s = format!("Command: `{}`\n\n", t.command.replace('`', "'"));
    let mut right = [true; 9];
    right[4] = false;
    let head: Vec<String> = TIME_COLUMNS.iter().map(|c| c.to_string()).collect();
    s.push_str(&grid(&head, &right, &rows));
    let all = crate::device::sum_activity(t.runs.iter().map(|r| r.devices.as_slice()));
    if !all.is_empty() {
        s.push_str("\nDevices that moved (all runs):\n\n");
        for d in &all {
            s.push_str(&format!("- {}\n", md_cell(&activity_line(d))));
        }
    }
    s.push_str(&format!(
        "\nTime (mean ± σ): {:.3} s ± {:.3} s, median {:.3} s, min {:.3} s, max {:.3} s  \n",
        t.wall_s.mean, t.wall_s.stddev, t.wall_s.median, t.wall_s.min, t.wall_s.max
    ));
    s
}

/// A workload's phases in Markdown.
pub fn app_markdown(a: &AppReport, unit: crate::units::BwUnit) -> String {
    let rows: Vec<Vec<String>> = a
        .phases
        .iter()
        .map(|p| {
            vec![
                p.name.clone(),
                if p.cold { "cold" } else { "warm" }.into(),
                p.files.to_string(),
                fmt_bytes(p.bytes),
                format!("{:.3}", p.wall_s.median),
                match p.wall_s_spread() {
                    Some((min, max)) => format!("{min:.3}–{max:.3}"),
                    None => "1 run".into(),
                },
                format!("{:.0}", p.files_per_s),
                bw(p.bytes_per_s, unit, 2),
                opt_bytes(p.device_read_bytes),
                opt_bytes(p.device_write_bytes),
            ]
        })
        .collect();
    let head: Vec<String> = [
        "Phase",
        "Cache",
        "Files",
        "Data",
        "Seconds (median)",
        "Spread (min–max)",
        "Files/s",
        unit.label(),
        "Device read",
        "Device written",
    ]
    .iter()
    .map(|c| c.to_string())
    .collect();
    let mut s = format!("Workload: {} · {} run(s)\n\n", a.workload, a.runs);
    s.push_str(&super::markdown::grid(
        &head,
        &[false, false, true, true, true, true, true, true, true, true],
        &rows,
    ));
    s.push('\n');
    s
}

/// A figure as a spreadsheet reads it back exactly; empty when unknown.
fn num(v: f64) -> String {
    if v.is_finite() { v.to_string() } else { String::new() }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// A timed command's runs as CSV.
pub fn time_csv(t: &TimeReport) -> String {
    let rows = t.runs.iter().enumerate().map(|(i, x)| {
        vec![
            (i + 1).to_string(),
            num(x.wall_s),
            num(x.user_s),
            num(x.sys_s),
            opt(x.device_read_bytes),
            opt(x.device_write_bytes),
            opt(x.device_busy_s),
            x.exit_code.to_string(),
            Some(run_device(t, i)).filter(|d| d != "none").unwrap_or_default(),
            opt(x.total_read_bytes),
            opt(x.total_write_bytes),
            x.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(" "),
        ]
    });
    super::csv::lines(
        &[
            "run",
            "wall_s",
            "user_s",
            "sys_s",
            "device_read_bytes",
            "device_write_bytes",
            "device_busy_s",
            "exit_code",
            "device",
            "total_read_bytes",
            "total_write_bytes",
            "devices_moved",
        ],
        rows,
    )
}

/// A workload's phases as CSV.
pub fn app_csv(a: &AppReport) -> String {
    let rows = a.phases.iter().map(|p| {
        vec![
            p.name.clone(),
            if p.cold { "cold" } else { "warm" }.into(),
            p.files.to_string(),
            p.bytes.to_string(),
            num(p.wall_s.median),
            num(p.wall_s.min),
            num(p.wall_s.max),
            num(p.files_per_s),
            num(p.bytes_per_s),
            opt(p.device_read_bytes),
            opt(p.device_write_bytes),
        ]
    });
    super::csv::lines(
        &[
            "phase",
            "cache",
            "files",
            "bytes",
            "wall_s_median",
            "wall_s_min",
            "wall_s_max",
            "files_per_s",
            "bytes_per_s",
            "device_read_bytes",
            "device_write_bytes",
        ],
        rows,
    )
}
