//! The jobs of a run (`run`, `job`, an import; the jobs of a scan or a
//! scale too): the CrystalDiskMark-style summary, one row per test for
//! screens and one per test and direction for documents and spreadsheets;
//! the lines under it (target, units, what each test cost, steady state,
//! warnings, what stopped the run); and per test, on a page, its
//! throughput timeline, latency distribution and member devices.

use crate::base::units::fmt_bs;
use crate::plan::SyncMode;
use crate::render::envelope;
use crate::render::view::{
    Axis, Badge, Band, Block, Cell, Chart, Column, Detail, HLine, Heading, Latency, Line, Marker, Note, NoteTone, Quantity, Row, Scale,
    Section, Series, SeriesStyle, Span, Table, Ticks, Tone, Warning,
};
use crate::summary::figures::{IoMode, WarningGroup};
use crate::summary::{JobReport, Report, Samples};

/// How iolab's CPU % is measured, as every legend says it.
pub const CPU_LEGEND: &str = "CPU % = iolab's user+sys time (all threads) per wall time.";

/// The summary: the warnings several tests share (on a page, above the
/// table), the table, and its legend (on a page, under it). `records`:
/// its rows are the run's records (not a scan's, whose zones are).
pub fn summary(r: &Report, records: bool) -> Section {
    let mut s = Section::new("summary", "summary", Heading::Outline("Summary".into()));
    let groups = r.warning_groups();
    let shared: Vec<&WarningGroup> = groups.iter().filter(|g| g.jobs.len() > 1).collect();
    s.push(Block::only(
        Detail::Page,
        Block::Warnings(shared.iter().map(|g| group_warning(r, g)).collect()),
    ));
    s.push(Block::only(Detail::Brief, Block::Table(per_test(r, &shared))));
    let mut rows = per_direction(r);
    rows.records = records;
    s.push(Block::only(Detail::Full, Block::Table(rows)));
    let mut legend = vec![
        Note::plain(units_legend()),
        Note::plain(format!(
            "Figures are medians over each test's measured runs ({} unless the test says otherwise).",
            r.settings.runs_text()
        )),
    ];
    legend.extend(latency_note(r).map(Note::plain));
    legend.push(Note::plain(
        Line::new()
            .text("IOPS: reads and writes together. p99: the slower direction's 99th percentile completion latency. The bar behind a ")
            .span(Span::BwUnit)
            .text(" figure is its share of the fastest on this page."),
    ));
    s.push(Block::only(Detail::Page, Block::Notes(legend)));
    s
}

/// "MB/s = 10^6 bytes/s. CPU % = …".
fn units_legend() -> Line {
    Line::new().span(Span::BwDefinition).text(". ").text(CPU_LEGEND)
}

/// A warning of the run's jobs, with the tests that carry it.
fn group_warning(r: &Report, g: &WarningGroup) -> Warning {
    let severity = r
        .jobs()
        .iter()
        .flat_map(|j| &j.warnings)
        .find(|w| w.code == g.code)
        .map_or(crate::judge::Severity::Warning, |w| w.severity);
    Warning {
        code: g.code.to_string(),
        severity,
        scope: Some(if g.all { "all tests".into() } else { g.jobs.join(", ") }),
        message: g.message.to_string(),
    }
}

/// A job's warning codes, each once, with the first message of each.
fn badges(j: &JobReport) -> Vec<Badge> {
    j.warning_codes()
        .into_iter()
        .map(|code| {
            let w = j.warnings.iter().find(|w| w.code == code).expect("a code of the job's");
            Badge {
                code: code.to_string(),
                severity: w.severity,
                message: w.message.clone(),
            }
        })
        .collect()
}

/// A p99 as a cell: an upper bound when completions were reaped in
/// batches, `off` when no latency was taken.
fn p99(j: &JobReport, ns: Option<u64>) -> Cell {
    match ns {
        Some(p) if j.latency_bounded() => Cell::Latency(Latency::UpperBound(p as f64)),
        Some(p) => Cell::latency(p as f64),
        None if j.latency == "off" => Cell::Latency(Latency::Off),
        None => Cell::Empty,
    }
}

/// The columns both forms of the summary have, each worded once.
fn columns() -> [Column; 6] {
    [
        Column::text("Test", "test"),
        Column::figure("IOPS", "iops"),
        Column::figure("p99 latency", "p99_latency_ns"),
        Column::figure("CPU %", "cpu_pct"),
        Column::text("Spread (min–max, CV)", "spread"),
        Column::text("Warnings", "warnings"),
    ]
}

/// One row per test: reads and writes side by side, the slower p99, the
/// spread of each direction; the warnings only one test carries under its row.
fn per_test(r: &Report, shared: &[&WarningGroup]) -> Table {
    let [test, iops, p99_col, cpu, spread, warnings] = columns();
    let first = r.latency_first();
    let mut t = Table::new(lead_with_latency(
        first,
        vec![
            test,
            Column::bandwidth("Read", "read_bw_bytes_per_s"),
            Column::bandwidth("Write", "write_bw_bytes_per_s"),
            iops,
            p99_col,
            cpu,
            spread,
            warnings.only(Detail::Page),
        ],
        1,
        latency_columns,
    ));
    t.headline = true;
    for j in r.jobs() {
        let own = j
            .warnings
            .iter()
            .filter(|w| !shared.iter().any(|g| w.code == g.code && g.message == w.message))
            .map(Warning::from)
            .collect();
        let cells = vec![
            Cell::text(marked_name(j)),
            Cell::or_empty(j.read.as_ref(), |d| Cell::bandwidth(d.bw_bytes)),
            Cell::or_empty(j.write.as_ref(), |d| Cell::bandwidth(d.bw_bytes)),
            Cell::number(j.iops(), 0),
            p99(j, j.p99_ns()),
            Cell::percent(j.cpu_pct(), 1),
            Cell::Several(j.bw_spreads().into_iter().map(Cell::Spread).collect()),
            Cell::Codes(badges(j)),
        ];
        t.row(Row {
            cells: lead_with_latency(first, cells, 1, || {
                [p99(j, j.slower_ns(|l| l.p50)), p99(j, j.slower_ns(|l| l.p99_9))]
            }),
            warnings: own,
        });
    }
    t
}

/// The p50 and p99.9 columns a table gets when it leads with latency.
fn latency_columns() -> [Column; 2] {
    [
        Column::figure("p50 latency", "p50_latency_ns"),
        Column::figure("p99.9 latency", "p99_9_latency_ns"),
    ]
}

/// A row of a summary table (its columns, or a row's cells, in the order of
/// [`columns`] with p99 fifth), led by latency when `first`
/// ([`Report::latency_first`]: sync writes, whose question is how long each
/// waits): p50, p99 and p99.9 at `at`, before bandwidth and IOPS. The p50
/// and p99.9 come from `more`.
fn lead_with_latency<T>(first: bool, mut row: Vec<T>, at: usize, more: impl FnOnce() -> [T; 2]) -> Vec<T> {
    if first {
        let p99 = row.remove(4);
        let [p50, p99_9] = more();
        row.insert(at, p99_9);
        row.insert(at, p99);
        row.insert(at, p50);
    }
    row
}

/// A test's name in the summary for screens, marked when its read figure
/// is labelled cached (ZFS's ARC may have answered: `zfs_arc_cached`).
fn marked_name(j: &JobReport) -> String {
    if j.read_cached() {
        format!("{} [CACHED]", j.name)
    } else {
        j.name.clone()
    }
}

/// On ZFS, how a test's reads were kept from the caches (or that they
/// could not be), and its members' writes per data byte against the
/// layout's model: one line each, for the footer and the test's section
/// (the footer then has the members' lines, the section their table: [`members_of`]).
pub fn zfs_lines(j: &JobReport) -> Vec<Line> {
    use crate::judge::zfs::ReadMethod;
    let mut out = Vec::new();
    if let Some(r) = &j.zfs_read {
        let how = match &r.method {
            ReadMethod::DirectIo => "OpenZFS's Direct I/O",
            ReadMethod::SpanPastArc => "a span past the ARC",
            ReadMethod::ExportImport => "an export and import of the pool",
            ReadMethod::ExportEachRun => "an export and import of the pool before each run",
            ReadMethod::Cached | ReadMethod::Other(_) => "",
        };
        out.push(Line::new().text(match &r.method {
            ReadMethod::Cached => format!(
                "{}: reads on ZFS: CACHED, the read figure is not the disks' (zfs_arc_cached says why).",
                j.name
            ),
            ReadMethod::Other(m) => format!("{}: reads on ZFS: {m} ({}).", j.name, r.reason),
            _ => format!("{}: reads on ZFS kept from the caches by {how}: {}.", j.name, r.reason),
        }));
    }
    if let Some(w) = j.device.as_ref().and_then(|d| d.zfs_writes.as_ref()) {
        let x = |v: f64| Cell::Number { value: v, decimals: 2 };
        let mut l = Line::new()
            .text(format!("{}: writes on ZFS: the members wrote ", j.name))
            .figure(x(w.measured_ratio))
            .text("× the data; the layout predicts ")
            .figure(x(w.expected_ratio));
        if let Some(max) = w.expected_max_ratio {
            l = l.text("–").figure(x(max));
        }
        out.push(l.text(format!("× ({}).", w.model)));
    }
    out
}

/// On ZFS, the test's data members over its measured runs, in the
/// directions the test moved (lines for the footer, a table for its section).
fn members_of(j: &JobReport) -> Option<super::members::Members<'_>> {
    let d = j.device.as_ref()?;
    Some(super::members::Members {
        who: Some(&j.name),
        list: &d.zfs_members,
        unjudged: d.zfs_members_unjudged.as_deref(),
        read: j.read.is_some(),
        write: j.write.is_some(),
    })
}

/// One row per test and direction, with the raw spread for spreadsheets.
fn per_direction(r: &Report) -> Table {
    let [test, iops, p99_col, cpu, spread, warnings] = columns();
    let first = r.latency_first();
    let mut t = Table::new(lead_with_latency(
        first,
        vec![
            test,
            Column::text("Direction", "direction"),
            Column::bandwidth("", "bw_bytes_per_s"),
            iops,
            p99_col,
            cpu,
            spread.only(Detail::Human),
            Column::figure("Slowest run", "bw_min_bytes_per_s").only(Detail::Raw),
            Column::figure("Fastest run", "bw_max_bytes_per_s").only(Detail::Raw),
            Column::figure("CV %", "bw_cv_pct").only(Detail::Raw),
            warnings,
        ],
        2,
        latency_columns,
    ));
    for j in r.jobs() {
        for d in j.direction_figures() {
            let raw = |v: Option<f64>| Cell::or_empty(v, Cell::bandwidth);
            let lat = |pick: fn(&crate::summary::Latency) -> u64| p99(j, d.figures.lat_ns.as_ref().map(pick));
            let cells = vec![
                Cell::text(&j.name),
                Cell::text(d.direction),
                Cell::bandwidth(d.figures.bw_bytes),
                Cell::number(d.figures.iops, 0),
                lat(|l| l.p99),
                Cell::percent(j.cpu_pct(), 1),
                Cell::Spread(d.spread),
                raw(d.spread.map(|s| s.min)),
                raw(d.spread.map(|s| s.max)),
                Cell::or_empty(d.spread.map(|s| s.cv_pct()), |v| Cell::percent(v, 1)),
                Cell::Codes(badges(j)),
            ];
            t.row(lead_with_latency(first, cells, 2, || [lat(|l| l.p50), lat(|l| l.p99_9)]));
        }
    }
    t
}

/// The note under a table whose latencies were not each I/O's own.
pub fn latency_note(report: &Report) -> Option<String> {
    let jobs = report.jobs();
    let bounded = jobs.iter().find(|j| j.latency_bounded()).map(|j| j.latency.as_str());
    let off = jobs.iter().any(|j| j.latency == "off");
    match (bounded, off) {
        (Some(b), _) => Some(format!(
            "Latency ≤: completions were reaped in batches (--latency {b}), so each latency is an upper bound (its batch's end), not the I/O's own."
        )),
        (None, true) => Some("No latency: it was not taken (--latency off); bandwidth and IOPS only.".into()),
        _ => None,
    }
}

/// "Target: /mnt/x, ext4, device sda": the target, its filesystem and top device.
pub fn target(r: &Report) -> Line {
    let t = &r.target;
    let mut l = Line::new().text("Target: ").code(&t.path);
    if let Some(fs) = &t.filesystem {
        l = l.text(format!(", {}", fs.fstype));
    }
    if let Some(d) = t.devices.first() {
        l = l.text(format!(", device {}", d.name));
    }
    l
}

/// "Target: /mnt/x, ext4, device sda · span 1.00 GiB · O_DIRECT · 3 runs per test".
fn target_line(r: &Report) -> Line {
    let t = &r.target;
    let l = target(r);
    let mode = match r.io_mode() {
        IoMode::Direct => "O_DIRECT",
        IoMode::Mixed => "O_DIRECT and BUFFERED jobs",
        IoMode::Buffered => "BUFFERED",
    };
    l.text(" · span ")
        .figure(Cell::Bytes(t.span_bytes))
        .text(format!(" · {mode} · {}", r.settings.runs_text()))
}

/// "Throttled: loop0 reads 21.0 MB/s (blkio cgroup /lab)": each cgroup
/// throttle on a device under the target, which every figure ran under.
fn throttle_lines(r: &Report) -> impl Iterator<Item = Line> + '_ {
    let throttles = r.target.info.as_ref().map(|i| i.throttles.as_slice()).unwrap_or_default();
    throttles.iter().map(|t| {
        Line::new()
            .text(format!("Throttled: {} ", t.device))
            .and(super::info::limits(t))
            .text(format!(" ({})", t.place()))
    })
}

/// "randread 4K Q32T1: loop1 had 27.3 I/Os in flight on average (p99 32,
/// max 32) of QD32 asked": the queue depth the test's device had, when
/// known; `named`: led by the test's name (a line under the tables).
fn depth_line(j: &JobReport, named: bool) -> Option<Line> {
    let d = j.device_depth.as_ref()?;
    let mean = d.mean?;
    let lead = if named { format!("{}: ", j.name) } else { String::new() };
    let mut l = Line::new()
        .text(format!("{lead}{} had ", d.device))
        .figure(Cell::number(mean, 1))
        .text(" I/Os in flight on average");
    if let (Some(p99), Some(max)) = (d.p99, d.max) {
        l = l.text(format!(" (p99 {p99}, max {max})"));
    }
    let asked = if j.threads > 1 {
        format!("{} (QD{} × {} threads)", j.qd.saturating_mul(j.threads), j.qd, j.threads)
    } else {
        format!("QD{}", j.qd)
    };
    Some(l.text(format!(" of {asked} asked.")))
}

/// What a test limited by size cost: its time and iolab's and the system's CPU.
fn cost_line(j: &JobReport) -> Line {
    let c = &j.cpu;
    let s = |v: f64| Cell::seconds(v, 2);
    let p = |v: f64| Cell::percent(v, 0);
    Line::new()
        .text(format!("{}: ", j.name))
        .figure(Cell::Bytes(j.limit_bytes.unwrap_or(0)))
        .text(" in ")
        .figure(s(c.real_s))
        .text(" real, ")
        .figure(s(c.usr_s))
        .text(" user, ")
        .figure(s(c.sys_s))
        .text(" sys (iolab); system CPU ")
        .figure(p(c.system_idle_pct))
        .text(" idle, ")
        .figure(p(c.system_sys_pct))
        .text(" sys, ")
        .figure(p(c.system_iowait_pct))
        .text(" iowait")
}

/// Whether a test reached steady state (SNIA's rule), and its rounds.
fn steady_line(j: &JobReport, sd: &crate::summary::SteadyReport) -> Line {
    let mut l = Line::new().text(format!("{}: ", j.name));
    l = if sd.reached {
        l.text("steady state at ").figure(Cell::bandwidth(sd.value_bw_bytes.unwrap_or(0.0)))
    } else {
        l.text("NOT steady")
    };
    l = l
        .text(format!(
            " after {} round(s) (SNIA rule over the last {}: range ",
            sd.rounds, sd.window
        ))
        .figure(Cell::percent(sd.range_pct.unwrap_or(f64::NAN), 1))
        .text(", slope excursion ")
        .figure(Cell::percent(sd.slope_excursion_pct.unwrap_or(f64::NAN), 1))
        .text(format!("); figures are those {} rounds. Rounds, ", sd.window))
        .span(Span::BwUnit)
        .text(":");
    for &b in &sd.round_bw_bytes {
        l = l.text(" ").number(Cell::bandwidth_coarse(b));
    }
    l
}

/// The lines under the tables: target, units, costs, steady state,
/// warnings, what stopped the run. A page says these in its header and
/// legends.
pub fn footer(r: &Report) -> Section {
    let mut s = Section::new("footer", "footer", Heading::None).only(Detail::Lines);
    let mut notes = vec![Note::plain(target_line(r))];
    notes.extend(throttle_lines(r).map(Note::plain));
    notes.push(Note::plain(units_legend()));
    notes.extend(latency_note(r).map(Note::plain));
    let limited = r.jobs().iter().filter(|j| j.duration_s.is_none() && r.scan().is_none());
    notes.extend(limited.map(|j| Note::plain(cost_line(j))));
    notes.extend(
        r.jobs()
            .iter()
            .filter_map(|j| j.steady.as_ref().map(|sd| Note::plain(steady_line(j, sd)))),
    );
    notes.extend(
        r.jobs()
            .iter()
            .flat_map(|j| zfs_lines(j).into_iter().chain(members_of(j).map(|m| m.lines()).unwrap_or_default()))
            .map(Note::plain),
    );
    notes.extend(r.jobs().iter().filter_map(|j| depth_line(j, true)).map(Note::plain));
    s.push(Block::Notes(notes));
    s.push(Block::Warnings(r.warning_groups().iter().map(|g| group_warning(r, g)).collect()));
    let mut stops = Vec::new();
    if r.interrupted {
        stops.push(Note::new(NoteTone::Stopped, "interrupted: only the tests above finished"));
    }
    if let Some(e) = &r.error {
        stops.push(Note::new(
            NoteTone::Failed,
            format!("stopped by an error: only the tests above finished: {e}"),
        ));
    }
    s.push(Block::Notes(stops));
    s
}

// ------------------------------------------------------------ per test, on a page

/// One section per test: what it ran, its warnings, and its charts.
pub fn per_test_sections(r: &Report) -> Option<Section> {
    let jobs = r.jobs();
    if jobs.is_empty() {
        return None;
    }
    let mut s = Section::new("jobs", "jobs", Heading::Outline("Per test".into())).only(Detail::Page);
    // The per-second charts share the page's points ([`fold_seconds`]): count
    // them first (each built and dropped), then fold each as it is built, so
    // a day-long run never holds all its charts' seconds at once.
    let count: usize = jobs.iter().map(|j| second_charts(r, j).count()).sum();
    let share = envelope::share(count);
    for (k, j) in jobs.iter().enumerate() {
        let mut js = Section::new("job", format!("job-{}", k + 1), Heading::Outline(j.name.clone()));
        js.push(Block::paragraph(Tone::Muted, job_facts(j)));
        if let Some(l) = depth_line(j, false) {
            js.push(Block::paragraph(Tone::Plain, l));
        }
        for l in zfs_lines(j) {
            js.push(Block::paragraph(Tone::Plain, l));
        }
        for b in members_of(j).map(|m| m.blocks()).unwrap_or_default() {
            js.push(b);
        }
        js.push(Block::Warnings(j.warnings.iter().map(Warning::from).collect()));
        let zones_job = r.scan_zones_job().is_some_and(|z| std::ptr::eq(z, j));
        if zones_job {
            js.push(Block::paragraph(
                Tone::Plain,
                "Each run of this test is one zone of the surface scan: its throughput is the scan curve above.",
            ));
        }
        let mut seconds = second_charts(r, j).map(|c| Block::Chart(Box::new(fold_seconds(c, share))));
        // A sync write's question is how long it waits: its latency before its timeline.
        if !zones_job && j.sync.is_none() {
            js.blocks.extend(seconds.next());
        }
        if r.scan_access_job().is_some_and(|a| std::ptr::eq(a, j)) {
            js.push(Block::paragraph(
                Tone::Plain,
                "Its latency distribution is the access-time chart of the surface scan above.",
            ));
        } else if let Some(c) = latency(j, "latency", "Completion latency") {
            js.push(Block::Chart(Box::new(c)));
        }
        js.blocks.extend(seconds);
        s.sections.push(js);
    }
    Some(s)
}

/// A test's charts of a point per second, in the order they are drawn:
/// its timeline (none for a scan's zones), then its member devices' when
/// it has several (or is a point of a scale). Lazy: each is built when taken.
fn second_charts<'a>(r: &'a Report, j: &'a JobReport) -> impl Iterator<Item = Chart> + 'a {
    let zones_job = r.scan_zones_job().is_some_and(|z| std::ptr::eq(z, j));
    let timeline = (!zones_job).then(|| timeline(j)).flatten().into_iter();
    let members = std::iter::once(()).filter_map(move |()| {
        let devices = device_names(j);
        if devices.len() >= 2 || (r.scale().is_some() && !devices.is_empty()) {
            members(j, &devices)
        } else {
            None
        }
    });
    timeline.chain(members)
}

/// Folds a per-second chart: together a page's draw at most
/// [`envelope::MAX_PAGE_POINTS`], each at most `share` of them (see
/// [`envelope::fold_to`]), and a folded one says so.
fn fold_seconds(mut c: Chart, share: usize) -> Chart {
    if let Some(f) = envelope::fold_to(&mut c, 0.0, 1.0, share) {
        c.caption = std::mem::take(&mut c.caption).text(f.sentence("second", "The JSON document holds"));
    }
    c
}

/// "randread 4K, QD32 × 8 threads, io_uring, O_DIRECT, 30 s per run, span 1.00 GiB, 3 measured runs".
fn job_facts(j: &JobReport) -> Line {
    let mut l = Line::new().text(format!("{} {}", j.rw, fmt_bs(j.bs)));
    if let Some(m) = j.mix_read {
        l = l.text(format!(" ({m}% reads)"));
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    l = l.text(format!(
        ", QD{} × {} thread{}, {}",
        j.qd,
        j.threads,
        plural(j.threads as usize),
        j.engine
    ));
    if j.workers != j.threads {
        l = l.text(format!(" ({} workers)", j.workers));
    }
    l = l.text(if j.direct { ", O_DIRECT" } else { ", BUFFERED (page cache)" });
    l = l.text(match j.sync {
        SyncMode::None => "",
        SyncMode::Dsync => ", each write with O_DSYNC",
        SyncMode::Fsync => ", an fdatasync after each write (in its latency)",
    });
    if let Some(d) = j.duration_s {
        l = l.text(format!(", {d} s per run"));
    } else if let Some(b) = j.limit_bytes {
        l = l.text(", ").figure(Cell::Bytes(b)).text(" per run");
    }
    l = l.text(", span ").figure(Cell::Bytes(j.span_bytes));
    if j.offset_bytes > 0 {
        l = l.text(" from ").figure(Cell::Bytes(j.offset_bytes));
    }
    l.text(format!(", {} measured run{}", j.runs.len(), plural(j.runs.len())))
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
fn timeline(j: &JobReport) -> Option<Chart> {
    let round = if j.steady.is_some() { "round" } else { "run" };
    let mut windows: Vec<Window> = j
        .warmup
        .iter()
        .map(|w| Window {
            label: "warm-up".into(),
            samples: w,
        })
        .collect();
    for (i, r) in j.runs.iter().enumerate() {
        windows.push(Window {
            label: format!("{round} {}", i + 1),
            samples: &r.samples,
        });
    }
    let has_read = windows.iter().any(|w| !w.samples.read_bytes_per_s.is_empty());
    let has_write = windows.iter().any(|w| !w.samples.write_bytes_per_s.is_empty());
    if !has_read && !has_write {
        return None;
    }
    let mut c = Chart::lines(
        "timeline",
        format!("{}: throughput per second", j.name),
        Axis::linear("Time", Quantity::Seconds).from_zero(),
        Axis::linear("Throughput", Quantity::Bandwidth).from_zero(),
    );
    let mut cols = vec![Column::text("Window", "window"), Column::figure("Second", "second")];
    let dirs: Vec<(bool, usize)> = vec![(has_read, 0), (has_write, 1)];
    if has_read {
        cols.push(Column::bandwidth("Read", "read_bw_bytes_per_s"));
    }
    if has_write {
        cols.push(Column::bandwidth("Write", "write_bw_bytes_per_s"));
    }
    c.numbers = Table::new(cols);
    c.numbers.grouped = true;
    let mut points: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    // Where each window starts and ends on the time axis, s.
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    // A chart past the bound is folded, its numbers replaced by buckets
    // ([`envelope::fold_to`]): its per-second rows are not built for nothing
    // (a day's rows took 12 MiB).
    let total: usize = windows.iter().map(|w| w.seconds()).sum::<usize>() * dirs.iter().filter(|d| d.0).count();
    let rows = total <= envelope::MAX_DRAWN_POINTS;
    let mut at = 0usize;
    for w in &windows {
        let n = w.seconds();
        starts.push(at);
        ends.push(at + n);
        if n > 0 {
            c.bands.push(Band::new(w.label.clone(), at as f64, (at + n) as f64));
        }
        for t in 0..n {
            let mut row = vec![Cell::text(&w.label), Cell::Count(t as u64 + 1)];
            for &(on, d) in &dirs {
                let v = if d == 0 {
                    &w.samples.read_bytes_per_s
                } else {
                    &w.samples.write_bytes_per_s
                };
                if on {
                    // A second's figure is drawn at its middle.
                    v.get(t)
                        .into_iter()
                        .for_each(|&b| points[d].push(((at + t) as f64 + 0.5, b as f64)));
                    if rows {
                        row.push(Cell::or_empty(v.get(t), |&b| Cell::bandwidth_coarse(b as f64)));
                    }
                }
            }
            if rows {
                c.numbers.row(row);
            }
        }
        at += n;
    }
    // The time axis ends with the last second.
    if let crate::render::view::Plot::Lines { x, .. } = &mut c.plot {
        x.max = Some(at as f64);
    }
    let [read, write] = points;
    if has_read {
        c.series(Series::new("read", read).with_color(0));
    }
    if has_write {
        c.series(Series::new("write", write).with_color(3));
    }
    c.caption = timeline_caption(j, round, &starts, &ends, &mut c.markers, &mut c.hlines);
    Some(c)
}

/// What a timeline shows: its windows, write cliffs and steady state (marked on it as well).
fn timeline_caption(
    j: &JobReport,
    round: &str,
    starts: &[usize],
    ends: &[usize],
    markers: &mut Vec<Marker>,
    hlines: &mut Vec<HLine>,
) -> Line {
    let mut l = Line::new()
        .text("Throughput in each second (")
        .span(Span::BwDefinition)
        .text("), drawn at the middle of the second: ")
        .text(if j.warmup.is_some() {
            "the discarded warm-up, then each measured "
        } else {
            "each measured "
        })
        .text(format!("{round} back to back (pauses between them left out)."));
    let first_run = usize::from(j.warmup.is_some());
    for (i, r) in j.runs.iter().enumerate() {
        if let Some(c) = &r.write_cliff {
            let x = starts[first_run + i] + c.at_second;
            markers.push(Marker::new(format!("write cliff ({round} {})", i + 1), x as f64));
            l = l
                .text(format!(" Write cliff in {round} {} after {} s: ", i + 1, c.at_second))
                .number(Cell::bandwidth_coarse(c.before_bps))
                .text(" → ")
                .figure(Cell::bandwidth_coarse(c.after_bps))
                .text(" (")
                .figure(Cell::percent(c.drop_pct, 0))
                .text(" lower).");
        }
    }
    let Some(st) = &j.steady else { return l };
    let first = st.rounds.saturating_sub(st.window);
    if let Some(&x) = starts.get(first_run + first) {
        markers.push(Marker::new(format!("last {} rounds", st.window), x as f64));
    }
    if let Some(v) = st.value_bw_bytes {
        hlines.push(HLine::new(if st.reached { "steady" } else { "window mean" }, v));
    }
    match (st.reached, st.steady_at_round) {
        (true, Some(n)) => {
            if let Some(&x) = ends.get((first_run + n).saturating_sub(1)) {
                markers.push(Marker::new(format!("steady at round {n}"), x as f64));
            }
            l.text(format!(" Steady state reached at round {n} of {}: ", st.rounds))
                .figure(Cell::bandwidth_coarse(st.value_bw_bytes.unwrap_or(f64::NAN)))
                .text(format!(" over the last {} rounds.", st.window))
        }
        _ => l.text(format!(
            " NOT steady after {} of at most {} rounds; the figures are the last {} rounds.",
            st.rounds, st.max_rounds, st.window
        )),
    }
}

/// The percentiles drawn, with their labels.
const PERCENTILES: [&str; 6] = ["p50", "p90", "p99", "p99.9", "p99.99", "max"];

/// A job's latency distribution: the percentile curve of each direction,
/// on a log axis. Also a scan's access time (`kind`, `title`).
pub fn latency(j: &JobReport, kind: &str, title: &str) -> Option<Chart> {
    let dirs: Vec<(&str, &crate::summary::Latency, usize)> = [("read", &j.read, 0), ("write", &j.write, 3)]
        .into_iter()
        .filter_map(|(n, d, c)| d.as_ref().and_then(|d| d.lat_ns.as_ref()).map(|l| (n, l, c)))
        .collect();
    if dirs.is_empty() {
        return None;
    }
    let mut c = Chart::lines(
        kind,
        format!("{}: {}", j.name, title.to_lowercase()),
        Axis::linear("Percentile", Quantity::Number(String::new())).ticks(Ticks::Named(PERCENTILES.map(String::from).to_vec())),
        Axis::new("Latency", Quantity::Latency, Scale::Log10),
    );
    let mut cols = vec![Column::text("Percentile", "percentile")];
    for (name, l, color) in &dirs {
        let pts = percentiles(l).iter().enumerate().map(|(i, &ns)| (i as f64, ns as f64)).collect();
        c.series(Series::new(*name, pts).with_style(SeriesStyle::LineDots).with_color(*color));
        cols.push(Column::figure(capital(name), format!("{name}_ns")));
    }
    c.numbers = Table::new(cols);
    let mut rows: Vec<(&str, Vec<f64>)> = vec![("min", dirs.iter().map(|d| d.1.min as f64).collect())];
    rows.push(("mean", dirs.iter().map(|d| d.1.mean).collect()));
    for (i, p) in PERCENTILES.iter().enumerate() {
        rows.push((p, dirs.iter().map(|d| percentiles(d.1)[i] as f64).collect()));
    }
    for (name, v) in rows {
        let mut row = vec![Cell::text(name)];
        row.extend(v.into_iter().map(Cell::latency));
        c.numbers.row(row);
    }
    c.caption = Line::from(format!(
        "{title} percentiles (log scale), medians over the measured runs: the share of I/Os that completed within each time; max is the slowest."
    ));
    Some(c)
}

fn percentiles(l: &crate::summary::Latency) -> [u64; 6] {
    [l.p50, l.p90, l.p99, l.p99_9, l.p99_99, l.max]
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
fn members(j: &JobReport, names: &[&str]) -> Option<Chart> {
    let dirs: Vec<&str> = [("read", j.read.is_some()), ("write", j.write.is_some())]
        .into_iter()
        .filter(|d| d.1)
        .map(|d| d.0)
        .collect();
    if dirs.is_empty() {
        return None;
    }
    let mut c = Chart::lines(
        "members",
        format!("{}: each device per second", j.name),
        Axis::linear("Time", Quantity::Seconds).from_zero(),
        Axis::linear("Device throughput", Quantity::Bandwidth).from_zero(),
    );
    let mut cols = vec![Column::text("Run", "run"), Column::figure("Second", "second")];
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for n in names {
        for d in &dirs {
            let name = if dirs.len() > 1 { format!("{n} {d}") } else { n.to_string() };
            cols.push(Column::bandwidth(name.clone(), format!("{name}_bw_bytes_per_s")));
            series.push((name, Vec::new()));
        }
    }
    c.numbers = Table::new(cols);
    c.numbers.grouped = true;
    // As the timeline's: past the bound the chart is folded, and its rows are not built.
    let total: usize = j
        .runs
        .iter()
        .map(|r| {
            r.device_seconds
                .iter()
                .map(|d| d.read_bytes.len().max(d.write_bytes.len()))
                .max()
                .unwrap_or(0)
        })
        .sum::<usize>()
        * series.len();
    let rows = total <= envelope::MAX_DRAWN_POINTS;
    let mut any = false;
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
        c.bands.push(Band::new(format!("run {}", i + 1), at as f64, (at + secs) as f64));
        for t in 0..secs {
            let mut row = vec![Cell::text(format!("run {}", i + 1)), Cell::Count(t as u64 + 1)];
            let mut k = 0;
            for n in names {
                let dev = r.device_seconds.iter().find(|d| d.name == *n);
                for d in &dirs {
                    let v = dev.and_then(|dev| if *d == "read" { &dev.read_bytes } else { &dev.write_bytes }.get(t));
                    if let Some(&b) = v {
                        series[k].1.push(((at + t) as f64 + 0.5, b as f64));
                    }
                    if rows {
                        row.push(Cell::or_empty(v, |&b| Cell::bandwidth_coarse(b as f64)));
                    }
                    k += 1;
                }
            }
            if rows {
                c.numbers.row(row);
            }
            any = true;
        }
        at += secs;
    }
    if !any {
        return None;
    }
    if let crate::render::view::Plot::Lines { x, .. } = &mut c.plot {
        x.max = Some(at as f64);
    }
    for (i, (name, pts)) in series.into_iter().enumerate() {
        c.series(Series::new(name, pts).with_color(i));
    }
    c.caption = Line::new()
        .text("What each block device under the target moved in each second of the measured runs (")
        .span(Span::BwUnit)
        .text(", from /proc/diskstats): a layout that leaves a member idle, or a mirror that reads from one member only, shows here.");
    Some(c)
}
