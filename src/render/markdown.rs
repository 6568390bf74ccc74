//! The Markdown view of a run: the table people paste into issues, one row
//! per job and direction (CrystalDiskMark's columns, MB/s), with the units
//! line under it; runs of `time` and phases of application suites get their
//! own table. Formats only.

use super::compare::md_cell;
use crate::summary::Report;
use crate::units::{BwUnit, bw, fmt_bytes, fmt_ns, pct};

/// A GitHub-flavoured table; `right[i]`: column i holds figures.
fn grid(header: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut s = line(header.iter().map(|h| md_cell(h)).collect());
    s.push_str(&line(right.iter().map(|r| if *r { "---:" } else { "---" }.to_string()).collect()));
    for row in rows {
        s.push_str(&line(row.iter().map(|c| md_cell(c)).collect()));
    }
    s
}

fn opt_bytes(b: Option<u64>) -> String {
    b.map(fmt_bytes).unwrap_or_else(|| "–".into())
}

/// The whole Markdown view of a run.
pub fn run(r: &Report, unit: BwUnit) -> String {
    if let Some(c) = r.capacity() {
        return super::capacity::markdown(r, c);
    }
    let mbs = |v: f64, d: usize| bw(v, unit, d);
    let mut s = String::new();
    if let Some(t) = r.time() {
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
                    super::apps::run_device(t, i),
                    opt_bytes(x.device_read_bytes),
                    opt_bytes(x.device_write_bytes),
                    x.device_busy_s.map(|b| format!("{b:.2}")).unwrap_or_else(|| "–".into()),
                    x.exit_code.to_string(),
                ]
            })
            .collect();
        s.push_str(&format!("Command: `{}`\n\n", t.command.replace('`', "'")));
        let mut right = [true; 9];
        right[4] = false;
        s.push_str(&grid(&super::apps::TIME_COLUMNS, &right, &rows));
        let all = crate::device::sum_activity(t.runs.iter().map(|r| r.devices.as_slice()));
        if !all.is_empty() {
            s.push_str("\nDevices that moved (all runs):\n\n");
            for d in &all {
                s.push_str(&format!("- {}\n", md_cell(&super::apps::activity_line(d))));
            }
        }
        s.push_str(&format!(
            "\nTime (mean ± σ): {:.3} s ± {:.3} s, median {:.3} s, min {:.3} s, max {:.3} s  \n",
            t.wall_s.mean, t.wall_s.stddev, t.wall_s.median, t.wall_s.min, t.wall_s.max
        ));
    } else if let Some(v) = r.verify() {
        s.push_str(&super::verify::markdown(v, r.interrupted, unit));
        s.push('\n');
    } else if let Some(a) = r.app() {
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
                    mbs(p.bytes_per_s, 2),
                    opt_bytes(p.device_read_bytes),
                    opt_bytes(p.device_write_bytes),
                ]
            })
            .collect();
        s.push_str(&format!("Workload: {} · {} run(s)\n\n", a.workload, a.runs));
        s.push_str(&grid(
            &[
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
            ],
            &[false, false, true, true, true, true, true, true, true, true],
            &rows,
        ));
        s.push('\n');
    } else if let Some(sc) = r.scale() {
        let rows: Vec<Vec<String>> = sc
            .points
            .iter()
            .map(|p| {
                vec![
                    p.kind_name().to_string(),
                    p.targets.join(" + "),
                    p.qd.to_string(),
                    p.threads.to_string(),
                    mbs(p.bw_bytes, 2),
                    format!("{:.0}", p.iops),
                    crate::render::lat_cell(p.lat_ns),
                    pct(p.cpu_busy, 0),
                ]
            })
            .collect();
        s.push_str(&grid(
            &[
                "Point",
                "Target",
                "QD",
                "Threads",
                unit.label(),
                "IOPS",
                "Mean latency",
                "iolab CPU busy %",
            ],
            &[false, false, true, true, true, true, true, true],
            &rows,
        ));
        s.push('\n');
        for v in &sc.verdicts {
            s.push_str(&format!("- {}: {}\n", md_cell(v.subject()), md_cell(v.text())));
        }
        if !sc.verdicts.is_empty() {
            s.push('\n');
        }
    } else {
        let mut rows = Vec::new();
        for j in r.jobs() {
            for d in j.direction_figures() {
                rows.push(vec![
                    j.name.clone(),
                    d.direction.to_string(),
                    mbs(d.figures.bw_bytes, 2),
                    format!("{:.0}", d.figures.iops),
                    match d.figures.lat_ns.as_ref() {
                        Some(l) if j.latency_bounded() => format!("≤ {}", fmt_ns(l.p99 as f64)),
                        Some(l) => fmt_ns(l.p99 as f64),
                        None => "–".into(),
                    },
                    format!("{:.1}", j.cpu_pct()),
                    match d.spread {
                        Some(sp) => format!("{}–{}, {}%", mbs(sp.min, 2), mbs(sp.max, 2), pct(sp.cv, 1)),
                        None => "1 run".into(),
                    },
                    j.warning_codes().join(" "),
                ]);
            }
        }
        s.push_str(&grid(
            &[
                "Test",
                "Direction",
                unit.label(),
                "IOPS",
                "p99 latency",
                "CPU %",
                "Spread (min–max, CV)",
                "Warnings",
            ],
            &[false, false, true, true, true, true, false, false],
            &rows,
        ));
        s.push('\n');
        if let Some(sc) = r.scan() {
            s.push_str(&scan_section(sc, unit));
        }
    }
    s.push_str(&format!("Target: `{}`  \n", r.target.path.replace('`', "'")));
    s.push_str(&format!("{}.", unit.definition()));
    s.push_str(if r.time().is_some() || r.app().is_some() || r.verify().is_some() {
        "\n"
    } else {
        " CPU % = iolab's user+sys time (all threads) per wall time.\n"
    });
    if let Some(n) = super::latency_note(r) {
        s.push_str(&n);
        s.push('\n');
    }
    let warnings: Vec<String> = r
        .warning_groups()
        .iter()
        .map(|g| format!("{}: {}", g.code, g.message))
        .chain(r.run_warnings().map(|w| format!("{}: {}", w.code.as_str(), w.message)))
        .collect();
    if !warnings.is_empty() {
        s.push_str("\n**Warnings**\n\n");
        for w in warnings {
            s.push_str(&format!("- {}\n", md_cell(&w)));
        }
    }
    if r.interrupted && r.verify().is_none() {
        s.push_str("\n*Interrupted: only the rows above finished.*\n");
    }
    if let Some(e) = &r.error {
        s.push_str(&format!("\n*Stopped by an error: only the rows above finished: {}*\n", md_cell(e)));
    }
    s
}

/// A surface scan's section: its figures, then a row per zone.
fn scan_section(sc: &crate::summary::scan::ScanReport, unit: BwUnit) -> String {
    let mbs = |v: f64| bw(v, unit, 2);
    let u = unit.label();
    let mut s = format!(
        "**Surface scan** ({}, {} zones of {}, {} Q{}): min {} {u} at {}, max {} {u} at {}, average {} {u}, last zone {:.1}% {} than the first  \n",
        sc.direction,
        sc.zones.len(),
        fmt_bytes(sc.zone_bytes),
        crate::units::fmt_bs(sc.bs),
        sc.qd,
        mbs(sc.min),
        fmt_bytes(sc.min_offset),
        mbs(sc.max),
        fmt_bytes(sc.max_offset),
        mbs(sc.avg),
        sc.drop_pct.abs(),
        if sc.drop_pct >= 0.0 { "slower" } else { "faster" }
    );
    if let Some(a) = &sc.access_ns {
        s.push_str(&format!(
            "Access time ({} random 4K reads at QD1): mean {}, median {}, p99 {}, max {}  \n",
            a.ios,
            fmt_ns(a.mean),
            fmt_ns(a.p50 as f64),
            fmt_ns(a.p99 as f64),
            fmt_ns(a.max as f64)
        ));
    }
    if let Some(b) = sc.burst_bw_bytes {
        s.push_str(&format!("Burst rate: {} {u}  \n", mbs(b)));
    }
    s.push('\n');
    let rows: Vec<Vec<String>> = sc
        .zones
        .iter()
        .map(|z| {
            vec![
                (z.index + 1).to_string(),
                fmt_bytes(z.offset),
                fmt_bytes(z.bytes),
                format!("{:.3}", z.wall_ns as f64 / 1e9),
                mbs(z.bw_bytes),
            ]
        })
        .collect();
    s.push_str(&grid(&["Zone", "Offset", "Measured", "Seconds", u], &[true; 5], &rows));
    s.push('\n');
    s
}

/// `iolab list` as a Markdown table.
pub fn run_list(runs: &[crate::store::RunSummary]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.id.to_string(),
                r.started_at.clone(),
                r.kind.clone(),
                r.label.clone().unwrap_or_default(),
                r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
                format!("`{}`", r.target.replace('`', "'")),
                if r.complete { "yes" } else { "no (interrupted)" }.into(),
            ]
        })
        .collect();
    grid(
        &["ID", "Started (UTC)", "Kind", "Label", "Tags", "Target", "Complete"],
        &[true, false, false, false, false, false, false],
        &rows,
    )
}
