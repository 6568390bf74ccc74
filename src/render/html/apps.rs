//! Application workloads: a timed command's runs (`iolab time`) and the
//! phases of the `files` and `git` suites, with what the device saw.

use super::{CHART_H, CHART_W, Grid, Out, diagnostics, facts, mbs};
use crate::render::svg::{Axis, BarChart, BarSeries, HLine};
use crate::summary::Report;
use crate::summary::apps::{AppReport, TimeReport};
use crate::units::fmt_bytes;

fn opt_bytes(b: Option<u64>) -> String {
    b.map(fmt_bytes).unwrap_or_else(|| "–".into())
}

/// Bytes in MB (10^6 bytes), for chart values.
fn to_mb(b: u64) -> f64 {
    b as f64 / 1e6
}

/// A seconds axis: log when the values span more than 20×, so the short ones stay visible.
fn seconds_axis(label: &str, values: impl Iterator<Item = f64>) -> Axis {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if hi > 0.0 && hi / lo > 20.0 {
        Axis::log10(label, "s")
    } else {
        Axis::linear(label, "s")
    }
}

pub(super) fn time(o: &mut Out, r: &Report, t: &TimeReport, rid: &str) {
    o.open("time", &format!("{rid}-time"), 3, "Timed command");
    let mut items = vec![
        ("Command", t.command.clone()),
        ("In", t.cwd.clone()),
        (
            "Caches",
            if t.cold {
                "emptied before each run (cold)".to_string()
            } else {
                "kept between runs (warm)".to_string()
            },
        ),
        ("Warm-up runs", t.warmup_runs.to_string()),
    ];
    if let Some(p) = &t.prepare {
        items.push(("Prepare", p.clone()));
    }
    if let Some(c) = &t.cleanup {
        items.push(("Cleanup", c.clone()));
    }
    match &t.named() {
        Some(n) if !t.devices.is_empty() => items.push(("Devices measured", format!("{} (named by {n})", t.devices.join(", ")))),
        None if !t.devices.is_empty() => items.push(("Busiest devices", t.devices.join(", "))),
        _ => {}
    }
    let moved = crate::device::sum_activity(t.runs.iter().map(|r| r.devices.as_slice()));
    if !moved.is_empty() {
        let lines: Vec<String> = moved.iter().map(crate::render::apps::activity_line).collect();
        items.push(("Devices that moved (all runs)", lines.join("; ")));
    }
    let w = &t.wall_s;
    items.push((
        "Time (mean ± σ)",
        format!(
            "{:.3} s ± {:.3} s (median {:.3} s, min {:.3} s, max {:.3} s) over {} run{}; user {:.3} s, system {:.3} s",
            w.mean,
            w.stddev,
            w.median,
            w.min,
            w.max,
            t.runs.len(),
            if t.runs.len() == 1 { "" } else { "s" },
            t.user_s.mean,
            t.sys_s.mean
        ),
    ));
    facts(o, &items);
    diagnostics(o, "warnings", &r.run_warnings().collect::<Vec<_>>());
    if t.runs.is_empty() {
        o.close();
        return;
    }
    let cats: Vec<String> = (1..=t.runs.len()).map(|i| format!("run {i}")).collect();
    let mut chart = BarChart::new("Wall time of each run", cats.clone(), Axis::linear("Wall time", "s"));
    chart.width = CHART_W;
    chart.height = CHART_H;
    chart
        .groups
        .push(BarSeries::new("wall time", t.runs.iter().map(|r| Some(r.wall_s)).collect()));
    let (lo, hi) = w.sigma_band();
    chart.hlines.push(HLine::new("mean", w.mean));
    if t.runs.len() > 1 && w.stddev > 0.0 {
        chart.hlines.push(HLine::new("−σ", lo));
        chart.hlines.push(HLine::new("+σ", hi));
    }
    let mut table = Grid::new(&[
        ("Run", false),
        ("Wall s", true),
        ("User s", true),
        ("Sys s", true),
        ("Device", false),
        ("Device read", true),
        ("Device written", true),
        ("Device busy s", true),
        ("Exit", true),
    ]);
    for (i, (c, x)) in cats.iter().zip(&t.runs).enumerate() {
        table.row(vec![
            c.clone(),
            format!("{:.3}", x.wall_s),
            format!("{:.3}", x.user_s),
            format!("{:.3}", x.sys_s),
            crate::render::apps::run_device(t, i),
            opt_bytes(x.device_read_bytes),
            opt_bytes(x.device_write_bytes),
            x.device_busy_s.map(|b| format!("{b:.3}")).unwrap_or_else(|| "–".into()),
            x.exit_code.to_string(),
        ]);
    }
    let caption = format!(
        "Wall time of each run in the order they ran; dashed lines: the mean ({:.3} s) and one standard deviation either side ({:.3} s).",
        w.mean, w.stddev
    );
    o.figure("time-runs", &chart.to_svg(), &caption, &table, false);

    // What the device saw in each run.
    if t.runs
        .iter()
        .any(|x| x.device_read_bytes.is_some() || x.device_write_bytes.is_some())
    {
        let mut chart = BarChart::new("What the device moved in each run", cats.clone(), Axis::linear("Device I/O", "MB"));
        chart.width = CHART_W;
        chart.height = CHART_H;
        chart.groups.push(BarSeries::new(
            "read",
            t.runs.iter().map(|x| x.device_read_bytes.map(to_mb)).collect(),
        ));
        chart.groups.push(BarSeries::new(
            "written",
            t.runs.iter().map(|x| x.device_write_bytes.map(to_mb)).collect(),
        ));
        let mut table = Grid::new(&[("Run", false), ("Read MB", true), ("Written MB", true)]);
        for (c, x) in cats.iter().zip(&t.runs) {
            let mb = |b: Option<u64>| b.map(|b| format!("{:.3}", to_mb(b))).unwrap_or_else(|| "–".into());
            table.row(vec![c.clone(), mb(x.device_read_bytes), mb(x.device_write_bytes)]);
        }
        let caption = match t.named() {
            Some(n) => format!(
                "Bytes read from and written to the device named by {n} ({}) during each run, MB = 10^6 bytes (/proc/diskstats).",
                t.devices.first().map(String::as_str).unwrap_or("none")
            ),
            None => "Bytes read from and written to each run's busiest device (the table names it) during the run, MB = 10^6 bytes (/proc/diskstats).".into(),
        };
        o.figure("time-runs", &chart.to_svg(), &caption, &table, false);
    }
    o.close();
}

pub(super) fn app(o: &mut Out, r: &Report, a: &AppReport, rid: &str) {
    o.open("app", &format!("{rid}-app"), 3, &format!("Workload: {}", a.workload));
    let params: Vec<String> = a.params.iter().map(|(k, v)| format!("{k} {v}")).collect();
    facts(
        o,
        &[
            ("Workload", format!("{} ({})", a.workload, params.join(", "))),
            ("Runs", a.runs.to_string()),
            (
                "Caches",
                if a.cold {
                    "emptied before the phases marked cold".to_string()
                } else {
                    "kept (warm)".to_string()
                },
            ),
        ],
    );
    diagnostics(o, "warnings", &r.run_warnings().collect::<Vec<_>>());
    if a.phases.is_empty() {
        o.close();
        return;
    }
    let cats: Vec<String> = a.phases.iter().map(|p| p.name.clone()).collect();
    let runs = a.phases.iter().map(|p| p.wall_s_runs.len()).max().unwrap_or(0);
    let y = seconds_axis("Wall time", a.phases.iter().flat_map(|p| p.wall_s_runs.iter().copied()));
    let log = y.scale != crate::render::svg::Scale::Linear;
    let mut chart = BarChart::new("Wall time of each phase, run by run", cats.clone(), y);
    chart.width = CHART_W;
    chart.height = CHART_H;
    for k in 0..runs {
        chart.groups.push(BarSeries::new(
            format!("run {}", k + 1),
            a.phases.iter().map(|p| p.wall_s_runs.get(k).copied()).collect(),
        ));
    }
    // The mean of each phase last, its whisker one standard deviation either side.
    chart.groups.push(
        BarSeries::new("mean ± σ", a.phases.iter().map(|p| Some(p.wall_s.mean)).collect())
            .with_whiskers(a.phases.iter().map(|p| (runs > 1).then(|| p.wall_s.sigma_band())).collect()),
    );
    let mut table = Grid::new(&[("Phase", false), ("Cache", false), ("Files", true), ("Data", true)]);
    for k in 0..runs {
        table.col(format!("Run {} s", k + 1), true);
    }
    for (c, n) in [
        ("Mean s", true),
        ("σ s", true),
        ("Median s", true),
        ("Files/s", true),
        ("MB/s", true),
        ("Device read", true),
        ("Device written", true),
    ] {
        table.col(c, n);
    }
    for p in &a.phases {
        let mut row = vec![
            p.name.clone(),
            if p.cold { "cold" } else { "warm" }.into(),
            p.files.to_string(),
            fmt_bytes(p.bytes),
        ];
        for k in 0..runs {
            row.push(p.wall_s_runs.get(k).map(|s| format!("{s:.4}")).unwrap_or_else(|| "–".into()));
        }
        row.extend([
            format!("{:.4}", p.wall_s.mean),
            format!("{:.4}", p.wall_s.stddev),
            format!("{:.4}", p.wall_s.median),
            format!("{:.0}", p.files_per_s),
            mbs(p.bytes_per_s, 1),
            opt_bytes(p.device_read_bytes),
            opt_bytes(p.device_write_bytes),
        ]);
        table.row(row);
    }
    let caption = format!(
        "Wall time of each phase, one bar per run side by side{}, then the mean over the runs with one standard deviation either side as a whisker.",
        if log {
            " (log scale: the phases differ by orders of magnitude)"
        } else {
            ""
        }
    );
    o.figure("app-phases", &chart.to_svg(), &caption, &table, false);

    if a.phases
        .iter()
        .any(|p| p.device_read_bytes.is_some() || p.device_write_bytes.is_some())
    {
        let mut chart = BarChart::new(
            "What the device moved in each phase",
            cats.clone(),
            Axis::linear("Device I/O", "MB"),
        );
        chart.width = CHART_W;
        chart.height = CHART_H;
        chart.groups.push(BarSeries::new(
            "read",
            a.phases.iter().map(|p| p.device_read_bytes.map(to_mb)).collect(),
        ));
        chart.groups.push(BarSeries::new(
            "written",
            a.phases.iter().map(|p| p.device_write_bytes.map(to_mb)).collect(),
        ));
        let mut table = Grid::new(&[("Phase", false), ("Read MB", true), ("Written MB", true)]);
        for p in &a.phases {
            let mb = |b: Option<u64>| b.map(|b| format!("{:.3}", to_mb(b))).unwrap_or_else(|| "–".into());
            table.row(vec![p.name.clone(), mb(p.device_read_bytes), mb(p.device_write_bytes)]);
        }
        let caption = "Bytes the top device under the directory read and wrote in each phase, median over the runs, MB = 10^6 bytes (/proc/diskstats).";
        o.figure("app-phases", &chart.to_svg(), caption, &table, false);
    }
    o.close();
}
