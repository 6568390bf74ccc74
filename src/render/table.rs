//! The terminal views of a run: the result table (CrystalDiskMark's units,
//! MB = 10^6 bytes) with its footer, the list of stored runs, and the line
//! above a stored run. Formats only.

use super::{Style, apps, chart};
use crate::summary::figures::IoMode;
use crate::summary::{JobReport, Report};
use crate::units::{fmt_bs, fmt_bytes, fmt_ns, pct};
use comfy_table::{Cell, CellAlignment};

/// Bandwidth in the tables' unit: two decimals of MB/s, as CrystalDiskMark.
fn mbs(bps: f64, st: Style) -> String {
    crate::units::bw(bps, st.units, 2)
}

/// The result table: one row per job, CrystalDiskMark's units (MB = 10^6
/// bytes) unless `st` says otherwise.
pub fn table(report: &Report, st: Style) -> String {
    if let Some(c) = report.capacity() {
        return super::capacity::table(report, c, st);
    }
    if let Some(t) = report.time() {
        let mut s = apps::time_table(t);
        s.push_str(&footer(report, st));
        return s;
    }
    if let Some(a) = report.app() {
        let mut s = apps::app_table(a, st);
        s.push_str(&footer(report, st));
        return s;
    }
    if let Some(v) = report.verify() {
        let mut s = super::verify::table(v, report.interrupted, st);
        s.push_str(&footer(report, st));
        return s;
    }
    if let Some(sc) = report.scale() {
        let mut s = scale_table(sc, st);
        s.push_str(&footer(report, st));
        return s;
    }
    let unit = st.units.label();
    let mut t = super::text_table();
    t.set_header(vec![
        "Test".to_string(),
        format!("Read {unit}"),
        format!("Write {unit}"),
        "IOPS".into(),
        "p99 latency".into(),
        "CPU %".into(),
        "Spread (min–max, CV)".into(),
    ]);
    for j in report.jobs() {
        t.add_row(vec![
            Cell::new(&j.name),
            Cell::new(j.read.as_ref().map(|r| mbs(r.bw_bytes, st)).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(j.write.as_ref().map(|w| mbs(w.bw_bytes, st)).unwrap_or_default()).set_alignment(CellAlignment::Right),
            Cell::new(format!("{:.0}", j.iops())).set_alignment(CellAlignment::Right),
            Cell::new(super::p99_cell(j)).set_alignment(CellAlignment::Right),
            Cell::new(format!("{:.1}", j.cpu_pct())).set_alignment(CellAlignment::Right),
            Cell::new(spread(j, st)),
        ]);
    }
    let mut s = format!("{t}\n");
    if let Some(scan) = report.scan() {
        s.push_str(&scan_section(scan, st));
    }
    s.push_str(&footer(report, st));
    s
}

/// `iolab scale`: one row per point (the jobs that ran at once), then the verdicts.
fn scale_table(sc: &crate::summary::scale::ScaleReport, st: Style) -> String {
    use crate::samples::PointKind;
    let mut t = super::text_table();
    t.set_header(vec![
        "Point",
        "Target",
        "QD",
        "Threads",
        st.units.label(),
        "IOPS",
        "Mean latency",
        "iolab CPU busy %",
    ]);
    let short = |p: &str| -> String {
        match sc.target_number(p) {
            Some(n) => format!("t{n} {p}"),
            None => p.to_string(),
        }
    };
    for p in &sc.points {
        let kind = p.kind_name();
        let target = if p.kind == PointKind::Together {
            format!("all {}", p.targets.len())
        } else {
            p.targets.first().map(|t| short(t)).unwrap_or_default()
        };
        let right = |v: String| Cell::new(v).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(kind),
            Cell::new(target),
            right(p.qd.to_string()),
            right(p.threads.to_string()),
            right(mbs(p.bw_bytes, st)),
            right(format!("{:.0}", p.iops)),
            right(super::lat_cell(p.lat_ns)),
            right(pct(p.cpu_busy, 0)),
        ]);
    }
    let mut s = format!(
        "{} {} · {}\n{t}\n",
        sc.rw,
        fmt_bs(sc.bs),
        if sc.targets.len() > 1 {
            sc.targets
                .iter()
                .enumerate()
                .map(|(i, p)| format!("t{} = {p}", i + 1))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            sc.targets.join("")
        }
    );
    if let Some(l) = &sc.layout {
        s.push_str(&format!(
            "Layout: {} over {} devices ({}){}\n",
            l.name,
            l.members,
            l.source,
            sc.member
                .as_ref()
                .map(|m| format!("; member measured alone: {m}"))
                .unwrap_or_default()
        ));
    }
    if !sc.verdicts.is_empty() {
        s.push_str("Verdicts:\n");
        for v in &sc.verdicts {
            s.push_str(&st.paint(&format!("  - {}: {}", v.subject(), v.text())));
            s.push('\n');
        }
    }
    s
}

/// The surface scan under the table: the curve, then its figures.
fn scan_section(sc: &crate::summary::scan::ScanReport, st: Style) -> String {
    let mut s = String::new();
    let amount = match (sc.bytes_per_zone(), sc.zone_time_s) {
        (Some(b), _) => format!("{} per zone", fmt_bytes(b)),
        (None, Some(t)) => format!("{t}s per zone"),
        _ => String::new(),
    };
    s.push_str(&format!(
        "\nSurface scan ({}, {} zones of {}, {amount}, {} Q{}):\n",
        sc.direction,
        sc.zones.len(),
        fmt_bytes(sc.zone_bytes),
        fmt_bs(sc.bs),
        sc.qd,
    ));
    let u = st.units.label();
    s.push_str(&chart::curve(sc, 72, 12, st.units));
    s.push_str(&format!(
        "Transfer rate: min {} {u} (at {}), max {} {u} (at {}), average {} {u}; last zone {:.1}% {} than the first\n",
        mbs(sc.min, st),
        fmt_bytes(sc.min_offset),
        mbs(sc.max, st),
        fmt_bytes(sc.max_offset),
        mbs(sc.avg, st),
        sc.drop_pct.abs(),
        if sc.drop_pct >= 0.0 { "slower" } else { "faster" }
    ));
    if let Some(a) = &sc.access_ns {
        s.push_str(&format!(
            "Access time (random 4K reads at QD1 over the range, {} reads): mean {}, median {}, p99 {}, max {}\n",
            a.ios,
            fmt_ns(a.mean),
            fmt_ns(a.p50 as f64),
            fmt_ns(a.p99 as f64),
            fmt_ns(a.max as f64)
        ));
    }
    if let Some(b) = sc.burst_bw_bytes {
        s.push_str(&format!(
            "Burst rate (1 MiB read again and again): {} {}\n",
            mbs(b, st),
            st.units.label()
        ));
    }
    s
}

fn spread(j: &JobReport, st: Style) -> String {
    let parts: Vec<String> = j
        .bw_spreads()
        .into_iter()
        .map(|s| match s {
            Some(s) => format!("{}–{}, {}%", mbs(s.min, st), mbs(s.max, st), pct(s.cv, 1)),
            None => "1 run".to_string(),
        })
        .collect();
    parts.join(" / ")
}

fn footer(r: &Report, st: Style) -> String {
    let unit = st.units.definition();
    let mut s = String::new();
    let t = &r.target;
    let dev = t.devices.first().map(|d| format!(", device {}", d.name)).unwrap_or_default();
    let fs = t.filesystem.as_ref().map(|f| format!(", {}", f.fstype)).unwrap_or_default();
    if r.verify().is_some() {
        s.push_str(&format!("Target: {}{}{}\n{unit}.\n", t.path, fs, dev));
        return s;
    }
    if r.time().is_some() || r.app().is_some() {
        // Application workloads work through the filesystem: no span, no O_DIRECT.
        s.push_str(&format!("Target: {}{}{}\n", t.path, fs, dev));
        let which = match r.time().map(|tr| tr.named()) {
            Some(None) => "those of each run's Device (the one that did the command's reads, else the busiest)".to_string(),
            Some(Some(n)) if n != "the working directory" => format!("the top device named by {n}"),
            _ => "the top device under the directory".to_string(),
        };
        s.push_str(&format!("{unit}. Device figures are {which} (/proc/diskstats).\n"));
        for w in r.run_warnings() {
            s.push_str(&st.paint(&format!("warning [{}]: {}", w.code, w.message)));
            s.push('\n');
        }
        if r.interrupted {
            s.push_str("interrupted: only the runs above finished\n");
        }
        return s;
    }
    s.push_str(&format!(
        "Target: {}{}{} · span {} · {} · {}\n",
        t.path,
        fs,
        dev,
        fmt_bytes(t.span_bytes),
        match r.io_mode() {
            IoMode::Direct => "O_DIRECT",
            IoMode::Mixed => "O_DIRECT and BUFFERED jobs",
            IoMode::Buffered => "BUFFERED",
        },
        r.settings.runs_text()
    ));
    s.push_str(&format!("{unit}. CPU % = iolab's user+sys time (all threads) per wall time.\n"));
    if let Some(n) = super::latency_note(r) {
        s.push_str(&n);
        s.push('\n');
    }
    for j in r.jobs().iter().filter(|j| j.duration_s.is_none() && r.scan().is_none()) {
        let c = &j.cpu;
        s.push_str(&format!(
            "{}: {} in {:.2} s real, {:.2} s user, {:.2} s sys (iolab); system CPU {:.0}% idle, {:.0}% sys, {:.0}% iowait\n",
            j.name,
            fmt_bytes(j.limit_bytes.unwrap_or(0)),
            c.real_s,
            c.usr_s,
            c.sys_s,
            c.system_idle_pct,
            c.system_sys_pct,
            c.system_iowait_pct
        ));
    }
    for j in r.jobs() {
        if let Some(sd) = &j.steady {
            let rounds: Vec<String> = sd.round_bw_bytes.iter().map(|&b| crate::units::bw(b, st.units, 1)).collect();
            s.push_str(&format!(
                "{}: {} after {} round(s) (SNIA rule over the last {}: range {:.1}%, slope excursion {:.1}%); figures are those {} rounds. Rounds, {}: {}\n",
                j.name,
                if sd.reached {
                    format!(
                        "steady state at {} {}",
                        mbs(sd.value_bw_bytes.unwrap_or(0.0), st),
                        st.units.label()
                    )
                } else {
                    "NOT steady".to_string()
                },
                sd.rounds,
                sd.window,
                sd.range_pct.unwrap_or(f64::NAN),
                sd.slope_excursion_pct.unwrap_or(f64::NAN),
                sd.window,
                st.units.label(),
                rounds.join(" ")
            ));
        }
    }
    for g in r.warning_groups() {
        let scope = if g.all { "all tests".to_string() } else { g.jobs.join(", ") };
        s.push_str(&st.paint(&format!("warning [{}] ({scope}): {}", g.code, g.message)));
        s.push('\n');
    }
    if r.interrupted {
        s.push_str("interrupted: only the tests above finished\n");
    }
    if let Some(e) = &r.error {
        s.push_str(&st.paint(&format!("stopped by an error: only the tests above finished: {e}")));
        s.push('\n');
    }
    s
}

/// `iolab list`: one line per stored run.
pub fn run_list(runs: &[crate::store::RunSummary]) -> String {
    if runs.is_empty() {
        return "no stored runs\n".to_string();
    }
    let mut t = super::text_table();
    t.set_header(vec!["ID", "Started (UTC)", "Kind", "Label", "Tags", "Target"]);
    for r in runs {
        let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let label = r.label.clone().unwrap_or_default() + if r.complete { "" } else { " (incomplete)" };
        t.add_row(vec![
            r.id.to_string(),
            r.started_at.clone(),
            r.kind.clone(),
            label,
            tags.join(" "),
            r.target.clone(),
        ]);
    }
    format!("{t}\n")
}

/// The lines above a stored run's table.
pub fn run_header(r: &crate::store::RunSummary) -> String {
    let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "Run {} · {} · {}{}{}{}\n",
        r.id,
        r.started_at,
        r.kind,
        r.label.as_ref().map(|l| format!(" · \"{l}\"")).unwrap_or_default(),
        if tags.is_empty() {
            String::new()
        } else {
            format!(" · {}", tags.join(" "))
        },
        if r.complete { "" } else { " · INCOMPLETE (interrupted)" }
    )
}
