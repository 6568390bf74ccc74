//! The jobs of a run: the CrystalDiskMark-style summary table, then per
//! job its throughput timeline, latency distribution and member devices.

use super::{CHART_H, CHART_W, Grid, Out, badge, diagnostics, escape, lat, latency_unit, mbs, to_mb};
use crate::render::svg::{Axis, Band, HLine, LineChart, Marker, Series, SeriesStyle, TickFormat};
use crate::summary::{JobReport, Latency, Report, Samples};
use crate::units::{fmt_bs, fmt_bytes, pct};

/// The summary table: one row per test with read and write MB/s (a bar
/// behind each, proportional to the fastest on the page), IOPS, p99, CPU,
/// the spread over runs and the warnings, each in its test's row.
pub(super) fn summary(o: &mut Out, r: &Report, rid: &str) {
    o.open("summary", &format!("{rid}-summary"), 3, "Summary");
    let jobs = r.jobs();
    let groups = r.warning_groups();
    // A warning several tests carry is said once, above the table, with the
    // tests; each row has the codes of its warnings, and the messages only
    // it carries right under it.
    let shared: Vec<_> = groups.iter().filter(|g| g.jobs.len() > 1).collect();
    if !shared.is_empty() {
        o.body.push_str("<ul class=\"warnings\">\n");
        for g in &shared {
            let sev = jobs
                .iter()
                .flat_map(|j| &j.warnings)
                .find(|w| w.code == g.code)
                .map(|w| w.severity)
                .unwrap_or(crate::judge::Severity::Warning);
            let scope = if g.all { "every test".to_string() } else { g.jobs.join(", ") };
            w!(
                o.body,
                "<li>{} {} <span class=\"scope\">({})</span></li>\n",
                badge(g.code, sev, None),
                escape(g.message),
                escape(&scope)
            );
        }
        o.body.push_str("</ul>\n");
    }
    let widest = jobs
        .iter()
        .flat_map(|j| j.directions())
        .map(|d| d.bw_bytes)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let s = &mut o.body;
    s.push_str("<div class=\"scroll\"><table class=\"cdm\">\n<thead><tr><th scope=\"col\">Test</th><th scope=\"col\" class=\"n\">Read MB/s</th><th scope=\"col\" class=\"n\">Write MB/s</th><th scope=\"col\" class=\"n\">IOPS</th><th scope=\"col\" class=\"n\">p99 latency</th><th scope=\"col\" class=\"n\">CPU %</th><th scope=\"col\">Spread (min–max MB/s, CV)</th><th scope=\"col\">Warnings</th></tr></thead>\n<tbody>\n");
    for j in jobs {
        w!(s, "<tr><td class=\"test\">{}</td>", escape(&j.name));
        for d in [&j.read, &j.write] {
            match d {
                Some(d) => {
                    let share = if widest > 0.0 && d.bw_bytes.is_finite() {
                        (d.bw_bytes / widest * 100.0).clamp(0.0, 100.0)
                    } else {
                        0.0
                    };
                    w!(s, "<td class=\"n bar\" style=\"--w:{share:.1}%\">{}</td>", mbs(d.bw_bytes, 2));
                }
                None => s.push_str("<td class=\"n\">–</td>"),
            }
        }
        w!(
            s,
            "<td class=\"n\">{:.0}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td>",
            j.iops(),
            Some(crate::render::p99_cell(j))
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| "–".into()),
            j.cpu_pct()
        );
        let spread: Vec<String> = j
            .direction_figures()
            .iter()
            .map(|f| match f.spread {
                Some(sp) => format!("{} {}–{}, CV {}%", f.direction, mbs(sp.min, 1), mbs(sp.max, 1), pct(sp.cv, 1)),
                None => format!("{}: 1 run", f.direction),
            })
            .collect();
        w!(s, "<td class=\"spread\">{}</td><td>", escape(&spread.join("; ")));
        for code in j.warning_codes() {
            let w = j.warnings.iter().find(|w| w.code == code).expect("a code of the job's");
            s.push_str(&badge(code, w.severity, Some(&w.message)));
        }
        s.push_str("</td></tr>\n");
        // The messages of the job's own warnings, right under its row.
        let own: Vec<_> = j
            .warnings
            .iter()
            .filter(|w| !shared.iter().any(|g| w.code == g.code && g.message == w.message))
            .collect();
        if !own.is_empty() {
            s.push_str("<tr class=\"notes\"><td></td><td colspan=\"7\"><ul>");
            for w in own {
                w!(s, "<li>[{}] {}</li>", escape(w.code.as_str()), escape(&w.message));
            }
            s.push_str("</ul></td></tr>\n");
        }
    }
    s.push_str("</tbody></table></div>\n");
    let runs = r.settings.runs_text();
    let lat_note = crate::render::latency_note(r)
        .map(|n| format!(" {}", escape(&n)))
        .unwrap_or_default();
    w!(
        s,
        "<p class=\"units\">MB/s = 10^6 bytes/s. Figures are medians over each test's measured runs ({runs} unless the test says otherwise).{lat_note} IOPS: reads and writes together. p99: the slower direction's 99th percentile completion latency. CPU %: iolab's user + system time (all threads) per wall time, in % of one CPU. The bar behind a MB/s figure is its share of the fastest on this page.</p>\n"
    );
    o.close();
}

/// One section per job: what it ran, its warnings, and its charts.
pub(super) fn job_sections(o: &mut Out, r: &Report, rid: &str) {
    let jobs = r.jobs();
    if jobs.is_empty() {
        return;
    }
    o.open("jobs", &format!("{rid}-jobs"), 3, "Per test");
    for (k, j) in jobs.iter().enumerate() {
        o.open("job", &format!("{rid}-job-{}", k + 1), 4, &j.name);
        w!(o.body, "<p class=\"sub\">{}</p>\n", escape(&job_facts(j)));
        diagnostics(o, "warnings", &j.warnings.iter().collect::<Vec<_>>());
        if r.scan_zones_job().is_some_and(|z| std::ptr::eq(z, j)) {
            o.body
                .push_str("<p>Each run of this test is one zone of the surface scan: its throughput is the scan curve above.</p>\n");
        } else {
            timeline(o, j);
        }
        if r.scan_access_job().is_some_and(|a| std::ptr::eq(a, j)) {
            o.body
                .push_str("<p>Its latency distribution is the access-time chart of the surface scan above.</p>\n");
        } else {
            latency(o, j, "latency", "Completion latency");
        }
        let devices = device_names(j);
        if devices.len() >= 2 || (r.scale().is_some() && !devices.is_empty()) {
            members(o, j, &devices);
        }
        o.close();
    }
    o.close();
}

/// "randread 4K, QD32 × 8 threads, io_uring, O_DIRECT, 30 s per run, span 1.00 GiB, 3 runs".
fn job_facts(j: &JobReport) -> String {
    let mut s = format!("{} {}", j.rw, fmt_bs(j.bs));
    if let Some(m) = j.mix_read {
        w!(s, " ({m}% reads)");
    }
    w!(
        s,
        ", QD{} × {} thread{}, {}",
        j.qd,
        j.threads,
        if j.threads == 1 { "" } else { "s" },
        j.engine
    );
    if j.workers != j.threads {
        w!(s, " ({} workers)", j.workers);
    }
    s.push_str(if j.direct { ", O_DIRECT" } else { ", BUFFERED (page cache)" });
    if let Some(d) = j.duration_s {
        w!(s, ", {d} s per run");
    } else if let Some(b) = j.limit_bytes {
        w!(s, ", {} per run", fmt_bytes(b));
    }
    w!(s, ", span {}", fmt_bytes(j.span_bytes));
    if j.offset_bytes > 0 {
        w!(s, " from {}", fmt_bytes(j.offset_bytes));
    }
    w!(s, ", {} measured run{}", j.runs.len(), if j.runs.len() == 1 { "" } else { "s" });
    s
}

/// One stretch of the timeline: a warm-up or a run.
struct Window<'a> {
    label: String,
    samples: &'a Samples,
}

impl Window<'_> {
    fn seconds(&self) -> usize {
        self.samples.read_bytes_per_s.len().max(self.samples.write_bytes_per_s.len())
    }
}

/// Throughput per second over the warm-up and the runs, back to back.
fn timeline(o: &mut Out, j: &JobReport) {
    let round = if j.steady.is_some() { "round" } else { "run" };
    let mut windows: Vec<Window> = Vec::new();
    if let Some(w) = &j.warmup {
        windows.push(Window {
            label: "warm-up".into(),
            samples: w,
        });
    }
    for (i, r) in j.runs.iter().enumerate() {
        windows.push(Window {
            label: format!("{round} {}", i + 1),
            samples: &r.samples,
        });
    }
    let has_read = windows.iter().any(|w| !w.samples.read_bytes_per_s.is_empty());
    let has_write = windows.iter().any(|w| !w.samples.write_bytes_per_s.is_empty());
    if !has_read && !has_write {
        return;
    }

    let mut chart = LineChart::new(
        format!("{}: throughput per second", j.name),
        Axis::linear("Time", "s").from_zero(),
        Axis::linear("Throughput", "MB/s").from_zero(),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    let mut table = Grid::new(&[("Window", false), ("Second", true)]).grouped();
    if has_read {
        table.col("Read MB/s", true);
    }
    if has_write {
        table.col("Write MB/s", true);
    }
    let (mut read, mut write) = (Vec::new(), Vec::new());
    // Where each window starts and ends on the time axis, s.
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    let mut at = 0usize;
    for w in &windows {
        starts.push(at);
        let n = w.seconds();
        ends.push(at + n);
        if n > 0 {
            chart.bands.push(Band::new(w.label.clone(), at as f64, (at + n) as f64));
        }
        for t in 0..n {
            // A second's figure is drawn at its middle.
            let x = (at + t) as f64 + 0.5;
            let mut row = vec![w.label.clone(), (t + 1).to_string()];
            for (on, v, pts) in [
                (has_read, &w.samples.read_bytes_per_s, &mut read),
                (has_write, &w.samples.write_bytes_per_s, &mut write),
            ] {
                if !on {
                    continue;
                }
                match v.get(t) {
                    Some(&b) => {
                        pts.push((x, to_mb(b as f64)));
                        row.push(mbs(b as f64, 1));
                    }
                    None => row.push("–".into()),
                }
            }
            table.row(row);
        }
        at += n;
    }
    // The time axis ends with the last second.
    chart.x = chart.x.with_range(Some(0.0), Some(at as f64));
    if has_read {
        chart.series.push(Series::new("read", read).with_color(0));
    }
    if has_write {
        chart.series.push(Series::new("write", write).with_color(3));
    }

    let mut caption = String::from("Throughput in each second (MB/s = 10^6 bytes/s), drawn at the middle of the second: ");
    caption.push_str(if j.warmup.is_some() {
        "the discarded warm-up, then each measured "
    } else {
        "each measured "
    });
    w!(caption, "{round} back to back (pauses between them left out).");
    let first_run = usize::from(j.warmup.is_some());
    for (i, r) in j.runs.iter().enumerate() {
        if let Some(c) = &r.write_cliff {
            let x = starts[first_run + i] + c.at_second;
            chart
                .markers
                .push(Marker::new(format!("write cliff ({round} {})", i + 1), x as f64));
            w!(
                caption,
                " Write cliff in {round} {} after {} s: {} → {} MB/s ({:.0}% lower).",
                i + 1,
                c.at_second,
                mbs(c.before_bps, 1),
                mbs(c.after_bps, 1),
                c.drop_pct
            );
        }
    }
    if let Some(st) = &j.steady {
        let first = st.rounds.saturating_sub(st.window);
        if let Some(&x) = starts.get(first_run + first) {
            chart.markers.push(Marker::new(format!("last {} rounds", st.window), x as f64));
        }
        if let Some(v) = st.value_bw_bytes {
            let label = if st.reached { "steady" } else { "window mean" };
            chart.hlines.push(HLine::new(label, to_mb(v)));
        }
        match (st.reached, st.steady_at_round) {
            (true, Some(n)) => {
                w!(
                    caption,
                    " Steady state reached at round {n} of {}: {} MB/s over the last {} rounds.",
                    st.rounds,
                    mbs(st.value_bw_bytes.unwrap_or(f64::NAN), 1),
                    st.window
                );
                if let Some(&x) = ends.get((first_run + n).saturating_sub(1)) {
                    chart.markers.push(Marker::new(format!("steady at round {n}"), x as f64));
                }
            }
            _ => w!(
                caption,
                " NOT steady after {} of at most {} rounds; the figures are the last {} rounds.",
                st.rounds,
                st.max_rounds,
                st.window
            ),
        }
    }
    let long = table.rows.len() > 12;
    o.figure("timeline", &chart.to_svg(), &caption, &table, long);
}

/// The percentiles drawn, with their labels.
const PERCENTILES: [&str; 6] = ["p50", "p90", "p99", "p99.9", "p99.99", "max"];

fn percentile_label(v: f64) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-9 || !(0.0..6.0).contains(&i) {
        return String::new();
    }
    PERCENTILES[i as usize].to_string()
}

fn percentiles(l: &Latency) -> [u64; 6] {
    [l.p50, l.p90, l.p99, l.p99_9, l.p99_99, l.max]
}

/// A job's latency distribution: the percentile curve of each direction,
/// on a log axis. Also used for the scan's access time (`kind`).
pub(super) fn latency(o: &mut Out, j: &JobReport, kind: &str, title: &str) {
    let dirs: Vec<(&str, &Latency, usize)> = [("read", &j.read, 0), ("write", &j.write, 3)]
        .into_iter()
        .filter_map(|(n, d, c)| d.as_ref().and_then(|d| d.lat_ns.as_ref()).map(|l| (n, l, c)))
        .collect();
    if dirs.is_empty() {
        return;
    }
    let typical = dirs.iter().map(|d| d.1.p50 as f64).fold(0.0, f64::max);
    let (unit, div) = latency_unit(typical);
    let mut chart = LineChart::new(
        format!("{}: {}", j.name, title.to_lowercase()),
        Axis::linear("Percentile", "").with_format(TickFormat::Custom(percentile_label)),
        Axis::log10("Latency", unit),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    let mut table = Grid::new(&[("Percentile", false)]);
    for (name, d, c) in &dirs {
        let pts = percentiles(d)
            .iter()
            .enumerate()
            .map(|(i, &ns)| (i as f64, ns as f64 / div))
            .collect();
        chart
            .series
            .push(Series::new(*name, pts).with_style(SeriesStyle::LineDots).with_color(*c));
        table.col(format!("{} {unit}", capital(name)), true);
    }
    let mut rows: Vec<(&str, Vec<f64>)> = vec![("min", dirs.iter().map(|d| d.1.min as f64).collect())];
    rows.push(("mean", dirs.iter().map(|d| d.1.mean).collect()));
    for (i, p) in PERCENTILES.iter().enumerate() {
        rows.push((p, dirs.iter().map(|d| percentiles(d.1)[i] as f64).collect()));
    }
    for (name, v) in rows {
        let mut row = vec![name.to_string()];
        row.extend(v.iter().map(|&ns| lat(ns, div)));
        table.row(row);
    }
    let caption = format!(
        "{title} percentiles ({unit}, log scale), medians over the measured runs: the share of I/Os that completed within each time; max is the slowest."
    );
    o.figure(kind, &chart.to_svg(), &caption, &table, false);
}

fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The distinct device names in a job's per-second device figures, in order.
fn device_names(j: &JobReport) -> Vec<&str> {
    let mut v: Vec<&str> = Vec::new();
    for r in &j.runs {
        for d in &r.device_seconds {
            if !v.contains(&d.name.as_str()) {
                v.push(&d.name);
            }
        }
    }
    v
}

/// What each device under the target moved per second, like `zpool iostat -v 1`.
fn members(o: &mut Out, j: &JobReport, names: &[&str]) {
    let dirs: Vec<&str> = [("read", j.read.is_some()), ("write", j.write.is_some())]
        .into_iter()
        .filter(|d| d.1)
        .map(|d| d.0)
        .collect();
    if dirs.is_empty() {
        return;
    }
    let mut chart = LineChart::new(
        format!("{}: each device per second", j.name),
        Axis::linear("Time", "s").from_zero(),
        Axis::linear("Device throughput", "MB/s").from_zero(),
    );
    chart.width = CHART_W;
    chart.height = CHART_H;
    let mut table = Grid::new(&[("Run", false), ("Second", true)]).grouped();
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for n in names {
        for d in &dirs {
            let name = if dirs.len() > 1 { format!("{n} {d}") } else { n.to_string() };
            table.col(format!("{name} MB/s"), true);
            series.push((name, Vec::new()));
        }
    }
    let mut at = 0usize;
    for (i, r) in j.runs.iter().enumerate() {
        let secs = r
            .device_seconds
            .iter()
            .map(|d| d.read_bytes.len().max(d.write_bytes.len()))
            .max()
            .unwrap_or(0);
        if secs == 0 {
            continue;
        }
        chart.bands.push(Band::new(format!("run {}", i + 1), at as f64, (at + secs) as f64));
        for t in 0..secs {
            let mut row = vec![format!("run {}", i + 1), (t + 1).to_string()];
            let mut k = 0;
            for n in names {
                let dev = r.device_seconds.iter().find(|d| d.name == *n);
                for d in &dirs {
                    let v = dev.and_then(|dev| if *d == "read" { &dev.read_bytes } else { &dev.write_bytes }.get(t));
                    match v {
                        Some(&b) => {
                            series[k].1.push(((at + t) as f64 + 0.5, to_mb(b as f64)));
                            row.push(mbs(b as f64, 1));
                        }
                        None => row.push("–".into()),
                    }
                    k += 1;
                }
            }
            table.row(row);
        }
        at += secs;
    }
    if table.rows.is_empty() {
        return;
    }
    chart.x = chart.x.with_range(Some(0.0), Some(at as f64));
    for (i, (name, pts)) in series.into_iter().enumerate() {
        chart.series.push(Series::new(name, pts).with_color(i));
    }
    let caption = "What each block device under the target moved in each second of the measured runs (MB/s, from /proc/diskstats): a layout that leaves a member idle, or a mirror that reads from one member only, shows here.";
    let long = table.rows.len() > 12;
    o.figure("members", &chart.to_svg(), caption, &table, long);
}
