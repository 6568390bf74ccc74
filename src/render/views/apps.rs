//! Application workloads: `iolab time` (a real command, run by run) and
//! the phases of the `files` and `git` suites, with what the devices saw.
//! Their runs (or phases) are the records: a table in the formats of
//! lines and spreadsheets, and on a page the numbers of bar charts of the
//! wall times (the mean and one standard deviation as lines or whiskers)
//! and of what the device moved. Then the devices that moved, as a list.

use super::members::Members;
use crate::render::view::{
    Axis, BarSeries, Block, Cell, Chart, Column, Detail, HLine, Heading, Item, Line, List, Note, NoteTone, Quantity, Scale, Section, Span,
    Table, Tone, Warning,
};
use crate::samples::ColdMethod;
use crate::samples::DeviceActivity;
use crate::summary::Report;
use crate::summary::apps::{AppReport, TimeReport};

/// Wall times are drawn on a log axis when the longest is more than this
/// many times the shortest, so the short ones stay visible.
const LOG_SPAN: f64 = 20.0;

/// A device's figures: "read 8.00 KiB, written 0 B, busy 0.01 s (through
/// vda1); on sda".
fn activity(d: &DeviceActivity) -> Line {
    let mut l = Line::new()
        .text("read ")
        .figure(Cell::Bytes(d.read_bytes))
        .text(", written ")
        .figure(Cell::Bytes(d.write_bytes))
        .text(", busy ")
        .figure(Cell::seconds(d.busy_s, 2));
    if !d.partitions.is_empty() {
        l = l.text(format!(" (through {})", d.partitions.join(", ")));
    }
    if !d.on.is_empty() {
        l = l.text(format!("; on {}", d.on.join(", ")));
    }
    l
}

/// Whose figures the Device columns hold, as the lines under the table say it.
fn device_figures(r: &Report) -> Line {
    let which = match r.time().map(TimeReport::named) {
        Some(None) => "those of each run's Device (the one that did the command's reads, else the busiest)".to_string(),
        Some(Some(n)) if n != "the working directory" => format!("the top device named by {n}"),
        _ => "the top device under the directory".to_string(),
    };
    Line::from(format!("Device figures are {which} (/proc/diskstats)."))
}

/// The lines under the tables: the target, the units, whose device
/// figures, the warnings and what stopped the runs. A page says these in
/// its header and its sections.
fn footer(r: &Report) -> Section {
    let mut s = Section::new("footer", "footer", Heading::None).only(Detail::Lines);
    let units = Line::new().span(Span::BwDefinition).text(". ").and(device_figures(r));
    let mut notes = vec![Note::plain(super::jobs::target(r)), Note::plain(units)];
    notes.extend(members(r).iter().flat_map(Members::lines).map(Note::plain));
    s.push(Block::Notes(notes));
    s.push(Block::Warnings(r.run_warnings().map(Warning::from).collect()));
    let mut stops = Vec::new();
    if r.interrupted {
        stops.push(Note::new(NoteTone::Stopped, "interrupted: only the runs above finished"));
    }
    if let Some(e) = &r.error {
        let stop = format!("stopped by an error: only the runs above finished: {e}");
        stops.push(Note::new(NoteTone::Failed, stop));
    }
    s.push(Block::Notes(stops));
    s
}

/// On ZFS, the pool's data members a timed command's runs moved, or each
/// phase's (named by the phase), in the directions they moved.
fn members(r: &Report) -> Vec<Members<'_>> {
    let time = r
        .time()
        .map(|t| Members::moved(None, &t.zfs_members, t.zfs_members_unjudged.as_deref()));
    let phases = r
        .app()
        .into_iter()
        .flat_map(|a| &a.phases)
        .map(|p| Members::moved(Some(p.name.as_str()), &p.zfs_members, p.zfs_members_unjudged.as_deref()));
    time.into_iter()
        .chain(phases)
        .filter(|m| !m.list.is_empty() || m.unjudged.is_some())
        .collect()
}

/// On a page: the members' tables, each under a line saying whose.
fn page_members(r: &Report) -> Vec<Block> {
    members(r)
        .iter()
        .flat_map(|m| {
            let whose = match m.who {
                Some(phase) => format!(
                    "ZFS members in phase {phase} (median over runs; zpool iostat -v's question: did every member work, and evenly?)"
                ),
                None => "ZFS members over the measured runs (zpool iostat -v's question: did every member work, and evenly?)".to_string(),
            };
            std::iter::once(Block::paragraph(Tone::Plain, whose)).chain(m.blocks())
        })
        .map(|b| Block::only(Detail::Page, b))
        .collect()
}

/// The run's warnings, on a page (the formats of lines have them in the footer).
fn page_warnings(r: &Report) -> Block {
    Block::only(Detail::Page, Block::Warnings(r.run_warnings().map(Warning::from).collect()))
}

/// Bytes read and written, a bar group each, by category (`what`: "Run",
/// "Phase"); `None` when no category has a figure.
fn moved_chart(kind: &str, title: &str, what: &str, cats: Vec<String>, figures: Vec<(Option<u64>, Option<u64>)>) -> Option<Chart> {
    if figures.iter().all(|f| f.0.is_none() && f.1.is_none()) {
        return None;
    }
    let mut c = Chart::bars(kind, title, cats.clone(), Axis::linear("Device I/O", Quantity::Bytes));
    let bytes = |v: Option<u64>| v.map(|b| b as f64);
    c.group(BarSeries::new("read", figures.iter().map(|f| bytes(f.0)).collect()));
    c.group(BarSeries::new("written", figures.iter().map(|f| bytes(f.1)).collect()));
    let mut t = Table::new(vec![
        Column::text(what, "name"),
        Column::figure("Read", "read_bytes"),
        Column::figure("Written", "write_bytes"),
    ]);
    for (name, (read, written)) in cats.into_iter().zip(figures) {
        t.row(vec![
            Cell::Text(name),
            Cell::or_empty(read, Cell::Bytes),
            Cell::or_empty(written, Cell::Bytes),
        ]);
    }
    c.numbers = t;
    Some(c)
}

// ------------------------------------------------------------ iolab time

/// A timed command's sections: the command, its runs, the devices that
/// moved and the summary line, then the lines under them.
pub fn time_sections(r: &Report, t: &TimeReport) -> Vec<Section> {
    let mut s = Section::new("time", "time", Heading::Outline("Timed command".into()));
    let command = Line::new().text("Command: ").code(&t.command).text(" (in ").code(&t.cwd).text(")");
    s.push(Block::paragraph(Tone::Plain, command));
    let steps: Vec<Line> = [("Prepare: ", &t.prepare), ("Cleanup: ", &t.cleanup)]
        .into_iter()
        .filter_map(|(what, cmd)| cmd.as_ref().map(|c| Line::new().text(what).code(c)))
        .collect();
    if let Some(first) = steps.first() {
        let line = steps[1..].iter().fold(first.clone(), |l, next| l.text("  ").and(next.clone()));
        s.push(Block::paragraph(Tone::Plain, line));
    }
    super::drawn(&mut s, runs_table(t), (!t.runs.is_empty()).then(|| wall_chart(t)));
    if let Some(c) = run_moved_chart(t) {
        s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
    }
    s.push(Block::List(time_moved(t)));
    s.push(Block::paragraph(Tone::Plain, time_line(t)));
    for b in page_members(r) {
        s.push(b);
    }
    s.push(page_warnings(r));
    s.push(Block::only(Detail::Page, Block::Notes(vec![Note::plain(device_figures(r))])));
    vec![s, footer(r)]
}

/// A row per run: times, the device's figures and the exit status; for
/// spreadsheets also the device named apart, the totals and every device
/// that moved.
fn runs_table(t: &TimeReport) -> Table {
    let mut table = Table::new(vec![
        Column::figure("Run", "run"),
        Column::figure("Wall s", "wall_s"),
        Column::figure("User s", "user_s"),
        Column::figure("Sys s", "sys_s"),
        Column::text("Device", "device").only(Detail::Human),
        Column::figure("Device read", "device_read_bytes"),
        Column::figure("Device written", "device_write_bytes"),
        Column::figure("Device busy s", "device_busy_s"),
        Column::figure("Exit", "exit_code"),
        Column::text("Device", "device").only(Detail::Raw),
        Column::figure("Total read", "total_read_bytes").only(Detail::Raw),
        Column::figure("Total written", "total_write_bytes").only(Detail::Raw),
        Column::text("Devices that moved", "devices_moved").only(Detail::Raw),
    ]);
    table.records = true;
    let bytes = |b: Option<u64>| Cell::or_empty(b, Cell::Bytes);
    for (i, x) in t.runs.iter().enumerate() {
        let device = t.run_device(i);
        table.row(vec![
            Cell::Count(i as u64 + 1),
            Cell::seconds(x.wall_s, 3),
            Cell::seconds(x.user_s, 3),
            Cell::seconds(x.sys_s, 3),
            Cell::text(device.unwrap_or("none")),
            bytes(x.device_read_bytes),
            bytes(x.device_write_bytes),
            Cell::or_empty(x.device_busy_s, |b| Cell::seconds(b, 2)),
            Cell::number(f64::from(x.exit_code), 0),
            Cell::or_empty(device, Cell::text),
            bytes(x.total_read_bytes),
            bytes(x.total_write_bytes),
            Cell::text(x.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>().join(" ")),
        ]);
    }
    table
}

/// The runs' names on a chart's axis.
fn run_names(t: &TimeReport) -> Vec<String> {
    (1..=t.runs.len()).map(|i| format!("run {i}")).collect()
}

/// Each run's wall time, with the mean and one standard deviation either side as lines.
fn wall_chart(t: &TimeReport) -> Chart {
    let w = &t.wall_s;
    let y = Axis::linear("Wall time", Quantity::Seconds);
    let mut c = Chart::bars("time-runs", "Wall time of each run", run_names(t), y);
    c.group(BarSeries::new("wall time", t.runs.iter().map(|r| Some(r.wall_s)).collect()));
    c.hlines.push(HLine::new("mean", w.mean));
    if t.runs.len() > 1 && w.stddev > 0.0 {
        let (lo, hi) = w.sigma_band();
        c.hlines.push(HLine::new("−σ", lo));
        c.hlines.push(HLine::new("+σ", hi));
    }
    c.caption = Line::new()
        .text("Wall time of each run in the order they ran; dashed lines: the mean (")
        .figure(Cell::seconds(w.mean, 3))
        .text(") and one standard deviation either side (")
        .figure(Cell::seconds(w.stddev, 3))
        .text(").");
    c
}

/// What the device moved in each run.
fn run_moved_chart(t: &TimeReport) -> Option<Chart> {
    let figures = t.runs.iter().map(|x| (x.device_read_bytes, x.device_write_bytes)).collect();
    let mut c = moved_chart("time-runs", "What the device moved in each run", "Run", run_names(t), figures)?;
    c.caption = Line::from(match t.named() {
        Some(n) => format!(
            "Bytes read from and written to the device named by {n} ({}) during each run (/proc/diskstats).",
            t.devices.first().map(String::as_str).unwrap_or("none")
        ),
        None => "Bytes read from and written to each run's device (the table names it) during the run (/proc/diskstats).".into(),
    });
    Some(c)
}

/// Every device that moved, summed over the runs, and the total over the
/// bottom devices; empty when no run recorded devices.
fn time_moved(t: &TimeReport) -> List {
    let how = match t.named() {
        Some(n) => format!("figures above: the device named by {n}"),
        None => "figures above: each run's device that did the command's reads, else its busiest".into(),
    };
    let mut l = List::new("moved", format!("Devices that moved, all {} run(s) ({how})", t.runs.len()));
    let all = t.moved();
    for d in &all {
        l.item(Item::new(activity(d)).subject(d.name.clone()));
    }
    if !all.is_empty() {
        let (read, written) = t.moved_bottom_total();
        let total = Line::new()
            .text("read ")
            .figure(Cell::Bytes(read))
            .text(", written ")
            .figure(Cell::Bytes(written));
        l.item(Item::new(total).subject("Total over the bottom devices (each byte once)"));
    }
    l
}

/// hyperfine's line: "Time (mean ± σ): 0.054 s ± 0.003 s   [median …]   User: …, System: …   3 run(s), warm (caches kept)".
fn time_line(t: &TimeReport) -> Line {
    let s = |v: f64| Cell::seconds(v, 3);
    let w = &t.wall_s;
    let mut l = Line::new()
        .text("Time (mean ± σ): ")
        .figure(s(w.mean))
        .text(" ± ")
        .figure(s(w.stddev))
        .text("   [median ")
        .figure(s(w.median))
        .text(", min ")
        .figure(s(w.min))
        .text(" … max ")
        .figure(s(w.max))
        .text("]   User: ")
        .figure(s(t.user_s.mean))
        .text(", System: ")
        .figure(s(t.sys_s.mean))
        .text(format!("   {} run(s), ", t.runs.len()))
        .text(match (t.cold, t.cold_by.as_ref().map(|c| c.method)) {
            (false, _) => "warm (caches kept)",
            (true, Some(ColdMethod::None)) => "NOT cold: --cold asked, caches that answer were kept (not_cold)",
            (true, Some(ColdMethod::ExportImport)) => "caches emptied before each run (ZFS pool exported and imported)",
            (true, _) => "caches emptied before each run",
        });
    if t.warmup_runs > 0 {
        l = l.text(format!(", after {} warm-up run(s)", t.warmup_runs));
    }
    l
}

// ------------------------------------------------------------ the files and git suites

/// A workload's sections: what ran, its phases, the devices that moved,
/// then the lines under them.
pub fn app_sections(r: &Report, a: &AppReport) -> Vec<Section> {
    let mut s = Section::new("app", "app", Heading::Outline(format!("Workload: {}", a.workload)));
    let params: Vec<String> = a.params.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let what = format!("Workload: {} ({}) · {} run(s)", a.workload, params.join(", "), a.runs);
    s.push(Block::paragraph(Tone::Plain, what));
    super::drawn(&mut s, phases_table(a), (!a.phases.is_empty()).then(|| phases_chart(a)));
    if let Some(c) = phase_moved_chart(a) {
        s.push(Block::only(Detail::Page, Block::Chart(Box::new(c))));
    }
    s.push(Block::List(app_moved(a)));
    for b in page_members(r) {
        s.push(b);
    }
    s.push(page_warnings(r));
    vec![s, footer(r)]
}

/// A row per phase: what it did, its time, rates and what the device saw;
/// on a page each run's time, the mean and σ; for spreadsheets the
/// fastest and slowest run.
fn phases_table(a: &AppReport) -> Table {
    let runs = a.most_runs();
    let mut cols = vec![
        Column::text("Phase", "phase"),
        Column::text("Cache", "cache"),
        Column::figure("Files", "files"),
        Column::figure("Data", "bytes"),
    ];
    for k in 1..=runs {
        cols.push(Column::figure(format!("Run {k} s"), format!("wall_s_run_{k}")).only(Detail::Page));
    }
    cols.extend([
        Column::figure("Mean s", "wall_s_mean").only(Detail::Page),
        Column::figure("σ s", "wall_s_stddev").only(Detail::Page),
        Column::figure("Seconds (median)", "wall_s_median"),
        Column::figure("Spread (min–max)", "wall_s_spread").only(Detail::Lines),
        Column::figure("Fastest s", "wall_s_min").only(Detail::Raw),
        Column::figure("Slowest s", "wall_s_max").only(Detail::Raw),
        Column::figure("Files/s", "files_per_s"),
        Column::bandwidth("", "bytes_per_s"),
        Column::figure("Device read", "device_read_bytes"),
        Column::figure("Device written", "device_write_bytes"),
    ]);
    let mut t = Table::new(cols);
    t.records = true;
    let fine = |s: f64| Cell::seconds(s, 4);
    for p in &a.phases {
        let mut row = vec![
            Cell::text(&p.name),
            Cell::text(match (p.cold, p.cold_by.as_ref().map(|c| c.method)) {
                (false, _) => "warm",
                (true, Some(ColdMethod::None)) => "NOT cold",
                (true, _) => "cold",
            }),
            Cell::Count(p.files),
            Cell::Bytes(p.bytes),
        ];
        row.extend((0..runs).map(|k| Cell::or_empty(p.wall_s_runs.get(k).copied(), fine)));
        row.extend([
            fine(p.wall_s.mean),
            fine(p.wall_s.stddev),
            Cell::seconds(p.wall_s.median, 3),
            Cell::range(p.wall_s_spread().map(|(lo, hi)| (Cell::seconds(lo, 3), Cell::seconds(hi, 3)))),
            Cell::seconds(p.wall_s.min, 3),
            Cell::seconds(p.wall_s.max, 3),
            Cell::number(p.files_per_s, 0),
            Cell::bandwidth(p.bytes_per_s),
            Cell::or_empty(p.device_read_bytes, Cell::Bytes),
            Cell::or_empty(p.device_write_bytes, Cell::Bytes),
        ]);
        t.row(row);
    }
    t
}

/// What the device moved in each phase.
fn phase_moved_chart(a: &AppReport) -> Option<Chart> {
    let cats = a.phases.iter().map(|p| p.name.clone()).collect();
    let figures = a.phases.iter().map(|p| (p.device_read_bytes, p.device_write_bytes)).collect();
    let mut c = moved_chart("app-phases", "What the device moved in each phase", "Phase", cats, figures)?;
    c.caption =
        Line::from("Bytes the top device under the directory read and wrote in each phase, median over the runs (/proc/diskstats).");
    Some(c)
}

/// Each phase's wall time run by run, then the mean with one standard
/// deviation either side as a whisker.
fn phases_chart(a: &AppReport) -> Chart {
    let log = a.wall_s_extent().is_some_and(|(lo, hi)| hi / lo > LOG_SPAN);
    let scale = if log { Scale::Log10 } else { Scale::Linear };
    let y = Axis::new("Wall time", Quantity::Seconds, scale);
    let cats = a.phases.iter().map(|p| p.name.clone()).collect();
    let mut c = Chart::bars("app-phases", "Wall time of each phase, run by run", cats, y);
    let runs = a.most_runs();
    for k in 0..runs {
        let values = a.phases.iter().map(|p| p.wall_s_runs.get(k).copied()).collect();
        c.group(BarSeries::new(format!("run {}", k + 1), values));
    }
    let means = a.phases.iter().map(|p| Some(p.wall_s.mean)).collect();
    let whiskers = a.phases.iter().map(|p| (runs > 1).then(|| p.wall_s.sigma_band())).collect();
    c.group(BarSeries::new("mean ± σ", means).with_whiskers(whiskers));
    c.caption = Line::from(format!(
        "Wall time of each phase, one bar per run side by side{}, then the mean over the runs with one standard deviation either side as a whisker.",
        if log {
            " (log scale: the phases differ by orders of magnitude)"
        } else {
            ""
        }
    ));
    c
}

/// The devices each phase moved (medians over the runs); empty when none was recorded.
fn app_moved(a: &AppReport) -> List {
    let mut l = List::new("moved", "Devices that moved (median over runs)");
    for p in a.phases.iter().filter(|p| !p.devices.is_empty()) {
        let mut line = Line::new();
        for (k, d) in p.devices.iter().enumerate() {
            if k > 0 {
                line = line.text("; ");
            }
            line = line.text(format!("{}: ", d.name)).and(activity(d));
        }
        l.item(Item::new(line).subject(p.name.clone()));
    }
    l
}

#[cfg(test)]
mod tests {
    use crate::render::{Document, Format, Style, exporter};
    use crate::summary::Report;
    use serde_json::{Value, json};

    fn fixture(name: &str) -> Value {
        let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    fn export(v: &Value, f: Format) -> String {
        let r: Report = serde_json::from_value(v.clone()).expect("an edited fixture parses");
        exporter(f, Style::default()).export(Document::Run(&r, None)).expect("a view")
    }

    /// Two devices that moved: a disk through its partition, and a device on it.
    fn moved() -> Value {
        json!([
            {"name": "vda", "read_bytes": 4096, "write_bytes": 8192, "read_ios": 1, "write_ios": 2,
             "busy_s": 0.01, "partitions": ["vda1"], "bottom": true},
            {"name": "dm-0", "read_bytes": 4096, "write_bytes": 0, "read_ios": 1, "write_ios": 0,
             "busy_s": 0.0, "on": ["vda"]}
        ])
    }

    #[test]
    fn a_timed_command_lists_the_devices_that_moved_in_every_format() {
        let mut v = fixture("time");
        for r in v["time"]["runs"].as_array_mut().unwrap() {
            r["devices"] = moved();
            r["device"] = json!("vda");
            r["total_read_bytes"] = json!(4096);
            r["total_write_bytes"] = json!(8192);
        }
        v["time"]["named_by"] = json!("--device vda");
        let text = export(&v, Format::Table);
        let list = "Devices that moved, all 3 run(s) (figures above: the device named by --device vda):\n  \
                    - vda: read 12.00 KiB, written 24.00 KiB, busy 0.03 s (through vda1)\n  \
                    - dm-0: read 12.00 KiB, written 0 B, busy 0.00 s; on vda\n  \
                    - Total over the bottom devices (each byte once): read 12.00 KiB, written 24.00 KiB\n\
                    Time (mean ± σ): ";
        assert!(text.contains(list), "{text}");
        assert!(text.contains("Device figures are the top device named by --device vda"), "{text}");
        let md = export(&v, Format::Markdown);
        assert!(md.contains("**Devices that moved, all 3 run(s)"), "{md}");
        assert!(
            md.contains("- **dm-0**: read 12.00 KiB, written 0 B, busy 0.00 s; on vda\n"),
            "{md}"
        );
        let csv = export(&v, Format::Csv);
        assert!(
            csv.contains("\r\n1,0.05754811,0,0.001713,8192,0,0,0,vda,4096,8192,vda dm-0\r\n"),
            "{csv}"
        );
        let html = export(&v, Format::Html);
        assert!(html.contains("<div class=\"moved\">\n<p class=\"list-title\">Devices that moved, all 3 run(s)"));
        assert!(html.contains("<li><strong>vda</strong>: read 12.00 KiB"), "{html}");
    }

    #[test]
    fn what_ran_before_and_after_and_what_stopped_it() {
        let mut v = fixture("time");
        v["time"]["cleanup"] = json!("rm -f x");
        v["time"]["warmup_runs"] = json!(2);
        v["time"]["runs"][1]["device_busy_s"] = Value::Null;
        v["error"] = json!("the command could not start");
        let text = export(&v, Format::Table);
        assert!(text.starts_with("Command: sleep 0.05 (in /tmp/fx)\nCleanup: rm -f x\n"), "{text}");
        assert!(text.contains("3 run(s), warm (caches kept), after 2 warm-up run(s)\n"), "{text}");
        assert!(
            text.ends_with("stopped by an error: only the runs above finished: the command could not start\n"),
            "{text}"
        );
        let md = export(&v, Format::Markdown);
        assert!(md.contains("Cleanup: `rm -f x`\n"), "{md}");
        assert!(md.contains("| 2 | 0.052 | 0.001 | 0.000 | vda | 4.15 MiB | 0 B | – | 0 |"), "{md}");
        assert!(md.contains("*stopped by an error: only the runs above finished: the command could not start*"));
    }

    #[test]
    fn a_workload_lists_the_devices_each_phase_moved() {
        let mut v = fixture("files");
        v["app"]["phases"][2]["devices"] = moved();
        let text = export(&v, Format::Table);
        assert!(
            text.contains(
                "Devices that moved (median over runs):\n  - read: vda: read 4.00 KiB, written 8.00 KiB, busy 0.01 s \
                 (through vda1); dm-0: read 4.00 KiB, written 0 B, busy 0.00 s; on vda\nTarget: "
            ),
            "{text}"
        );
        let md = export(&v, Format::Markdown);
        assert!(md.contains("- **read**: vda: read 4.00 KiB"), "{md}");
        // One run: no spread, no whisker.
        let mut one = fixture("files");
        for p in one["app"]["phases"].as_array_mut().unwrap() {
            let first = p["wall_s_runs"][0].clone();
            p["wall_s_runs"] = json!([first]);
        }
        one["app"]["runs"] = json!(1);
        let text = export(&one, Format::Table);
        assert!(text.contains("┆            1 run ┆"), "{text}");
        let html = export(&one, Format::Html);
        assert!(html.contains("data-series=\"mean ± σ\"") && !html.contains("class=\"whisker\""));
        assert!(html.contains("<th scope=\"col\">Run 1 s</th>") && !html.contains("Run 2 s"));
    }

    /// Three members of a mirror, one idle.
    fn members() -> Value {
        json!([
            {"name": "loop10", "vdev": "mirror-0", "state": "ONLINE", "read_bytes": 100663296, "write_bytes": 0, "read_share": 1.0},
            {"name": "loop11", "vdev": "mirror-0", "state": "ONLINE", "read_bytes": 0, "write_bytes": 0, "read_share": 0.0},
            {"name": "loop12", "vdev": "mirror-0", "state": "OFFLINE", "read_bytes": 0, "write_bytes": 0, "read_share": 0.0}
        ])
    }

    #[test]
    fn a_timed_command_on_zfs_lists_its_members_in_the_footer_and_on_a_page() {
        let mut v = fixture("time");
        v["time"]["zfs_members"] = members();
        v["time"]["zfs_members_unjudged"] = json!("a mirror read with one I/O in flight may come from one child at a time");
        let text = export(&v, Format::Table);
        let lines = "Member loop10 (mirror-0): read 96.00 MiB (100% of the members').\n\
                     Member loop11 (mirror-0): read 0 B (0% of the members').\n\
                     Member loop12 (mirror-0, OFFLINE): read 0 B (0% of the members').\n\
                     Members not judged for evenness: a mirror read with one I/O in flight may come from one child at a time.\n";
        assert!(text.contains(lines), "{text}");
        let html = export(&v, Format::Html);
        assert!(html.contains("ZFS members over the measured runs"), "{html}");
        assert!(
            html.contains("<th scope=\"col\">Share of reads</th>") && !html.contains("Share of writes"),
            "{html}"
        );
        assert!(html.contains("Members not judged for evenness: a mirror read"), "{html}");
        // Off ZFS the view is as it was.
        assert!(!export(&fixture("time"), Format::Table).contains("Member"));
    }

    #[test]
    fn a_workloads_phases_on_zfs_list_their_members() {
        let mut v = fixture("files");
        v["app"]["phases"][2]["zfs_members"] = members();
        let text = export(&v, Format::Table);
        assert!(
            text.contains("read: member loop10 (mirror-0): read 96.00 MiB (100% of the members').\n"),
            "{text}"
        );
        let html = export(&v, Format::Html);
        assert!(html.contains("ZFS members in phase read (median over runs"), "{html}");
    }
}
