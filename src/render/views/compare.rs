//! A comparison of stored runs: the tests side by side (each run's median,
//! its difference to the baseline as a [`Cell::Ratio`], its CPU cost and
//! what a MB/s costs), the legend, the findings (the cache question
//! first), and on a page the runs compared and per unit the tests as bars
//! with each run's 95% interval as whiskers. Its CSV is a row per test and
//! run with the raw figures.

use crate::base::thresholds::{MIN_RUNS_FOR_NOISE, NOISE_CONFIDENCE};
use crate::base::units::Unit;
use crate::base::units::fmt_capacity;
use crate::compare::{Comparison, TestComparison};
use crate::judge::class::Family;
use crate::render::view::{
    Axis, BarSeries, Block, Cell, Chart, Column, Detail, Heading, Item, Line, List, Note, Quantity, Ratio, Section, Span, Table, View,
};

/// The comparison as every format shows it.
pub fn view(c: &Comparison) -> View {
    let mut s = Section::new("comparison", "comparison", Heading::Outline("Comparison".into()));
    s.push(Block::only(Detail::Page, Block::Table(runs(c))));
    if let Some(t) = configurations(c) {
        s.push(Block::Table(t));
    }
    s.push(Block::Table(side_by_side(c)));
    if let Some(t) = classes(c) {
        s.push(Block::Table(t));
    }
    s.push(Block::only(Detail::Raw, Block::Table(records(c))));
    s.push(Block::Notes(legend(c)));
    s.push(Block::List(findings(c)));
    for unit in [Unit::BytesPerSec, Unit::Iops, Unit::Seconds] {
        let tests: Vec<&TestComparison> = c.tests.iter().filter(|t| t.unit == unit).collect();
        if !tests.is_empty() {
            s.push(Block::only(Detail::Page, Block::Chart(Box::new(bars(c, unit, &tests)))));
        }
    }
    s.push(Block::only(
        Detail::Page,
        Block::Notes(vec![Note::plain(
            "The whiskers are the 95% interval of the ratio to the baseline, drawn at the baseline's value times its ends (for times: the baseline's time divided by them); the baseline has none.",
        )]),
    ));
    View {
        title: format!("iolab comparison of {} runs", c.runs.len()),
        sections: vec![s],
    }
}

/// What headers and bars call run `i`: its name, "(baseline)" after the baseline's.
fn heading(c: &Comparison, i: usize) -> String {
    let name = c.runs[i].name();
    if i == c.baseline_index() {
        format!("{name} (baseline)")
    } else {
        name
    }
}

/// Run `i`'s difference to the baseline: noise marked, a time's read as a time.
fn vs_base(t: &TestComparison, i: usize) -> Cell {
    match t.ratios[i] {
        Some(value) => Cell::Ratio(Ratio {
            value,
            interval: t.ci[i].map(|[lo, hi]| (lo, hi)),
            noise: t.within_noise[i],
            time: t.unit == Unit::Seconds,
        }),
        None => Cell::text("n/a"),
    }
}

/// A figure that may be unknown, with `d` decimals.
fn number(v: Option<f64>, d: usize) -> Cell {
    Cell::or_empty(v.filter(|x| x.is_finite()), |x| Cell::number(x, d))
}

/// The runs compared and their roles (a page's; the lines say it in the legend).
fn runs(c: &Comparison) -> Table {
    let b = c.baseline_index();
    let mut t = Table::new(vec![
        Column::text("Run", "run"),
        Column::figure("Id", "run_id"),
        Column::text("Role", "role"),
    ]);
    for (i, r) in c.runs.iter().enumerate() {
        let role = if i == b { "baseline" } else { "compared with the baseline" };
        t.row(vec![Cell::text(r.name()), Cell::Count(r.id.unsigned_abs()), Cell::text(role)]);
    }
    t
}

/// The configurations `iolab layouts` built, one row each: the layout, its
/// members, its settings, the capacity it offered, and with prices what a
/// usable GB of it costs. `None` when no run was built by `layouts`.
fn configurations(c: &Comparison) -> Option<Table> {
    if c.runs.iter().all(|r| r.layout.is_none()) {
        return None;
    }
    let prices = c.has_prices();
    let mut cols = vec![
        Column::text("Configuration", "configuration"),
        Column::text("Layout", "layout"),
        Column::figure("Members", "members"),
        Column::text("Devices", "devices"),
        Column::text("Settings", "settings"),
        Column::figure("Usable", "usable_bytes"),
    ];
    if prices {
        cols.push(Column::figure("Price", "price"));
        cols.push(Column::figure("Price per usable GB", "price_per_gb"));
    }
    let mut t = Table::new(cols);
    for r in &c.runs {
        let l = r.layout.as_ref();
        let mut row = vec![
            Cell::text(r.name()),
            Cell::text(l.map(|l| l.kind.clone()).unwrap_or_default()),
            Cell::or_empty(l.map(|l| u64::from(l.members)), Cell::Count),
            Cell::text(l.map(|l| l.devices.join(" ")).unwrap_or_default()),
            Cell::text(l.map(|l| l.settings.join(" ")).unwrap_or_default()),
            Cell::or_empty(l.and_then(|l| l.usable_bytes), Cell::Bytes),
        ];
        if prices {
            row.push(number(r.price, 2));
            row.push(number(l.and(r.price_per_gb), 3));
        }
        t.row(row);
    }
    Some(t)
}

/// Cards and sticks: for runs of the sdcard suite, the class each family
/// meets and the first class above it with the figure that misses; for
/// verify runs whose writes fell, the speed before, the sustained speed
/// and where it fell. A row per run.
fn classes(c: &Comparison) -> Option<Table> {
    let families: Vec<Family> = Family::ALL
        .into_iter()
        .filter(|f| c.runs.iter().any(|r| r.classes.iter().any(|v| v.family == *f)))
        .collect();
    let drops = c.runs.iter().any(|r| r.write_drop.is_some());
    if families.is_empty() && !drops {
        return None;
    }
    let mut cols = vec![Column::text("Run", "run")];
    cols.extend(
        families
            .iter()
            .map(|f| Column::text(f.label(), f.label().to_lowercase().replace(' ', "_"))),
    );
    if !families.is_empty() {
        cols.push(Column::text("Next class missed", "next_missed"));
    }
    if drops {
        cols.push(Column::bandwidth("Cache", "write_cache_bw_bytes_per_s"));
        cols.push(Column::bandwidth("Sustained", "sustained_write_bw_bytes_per_s"));
        cols.push(Column::figure("Writes fell after", "write_drop_offset_bytes"));
    }
    let mut t = Table::new(cols);
    for r in &c.runs {
        let mut row = vec![Cell::text(r.name())];
        let verdict = |f: &Family| r.classes.iter().find(|v| v.family == *f);
        row.extend(families.iter().map(|f| match verdict(f) {
            Some(v) => Cell::text(v.met.clone().unwrap_or_else(|| "none".into())),
            None => Cell::Empty,
        }));
        if !families.is_empty() {
            let next: Vec<&str> = families
                .iter()
                .filter_map(|f| verdict(f).and_then(|v| v.misses.first()).map(|m| m.text.as_str()))
                .collect();
            row.push(Cell::text(next.join("; ")));
        }
        if drops {
            let d = r.write_drop.as_ref();
            row.push(Cell::or_empty(d.map(|d| d.before_bps), Cell::bandwidth_coarse));
            row.push(Cell::or_empty(d.map(|d| d.after_bps), Cell::bandwidth_coarse));
            row.push(Cell::or_empty(d.map(|d| d.at_offset), Cell::Bytes));
        }
        t.row(row);
    }
    Some(t)
}

/// A row per test, each run's figures side by side; with prices, a row of
/// prices per GB.
fn side_by_side(c: &Comparison) -> Table {
    let b = c.baseline_index();
    let prices = c.has_prices();
    let mut cols = vec![Column::text("Test", "test"), Column::text("Unit", "unit")];
    for (i, r) in c.runs.iter().enumerate() {
        let name = r.name();
        cols.push(Column::figure(heading(c, i), format!("run_{}_value", r.id)));
        if i != b {
            cols.push(Column::figure(format!("{name} vs base"), format!("run_{}_ratio", r.id)));
        }
        cols.push(Column::figure(
            format!("{name} CPU/100MB/s"),
            format!("run_{}_cpu_pct_per_100mbs", r.id),
        ));
        if prices {
            cols.push(Column::figure(format!("{name} MB/s per $"), format!("run_{}_mbs_per_price", r.id)));
        }
    }
    let mut table = Table::new(cols);
    for t in &c.tests {
        let mut row = vec![Cell::text(&t.test), Cell::Unit(t.unit)];
        for i in 0..c.runs.len() {
            row.push(Cell::in_unit(t.values[i], t.unit));
            if i != b {
                row.push(vs_base(t, i));
            }
            row.push(number(t.cpu_pct_per_100mbs[i], 2));
            if prices {
                row.push(number(t.mbs_per_price[i], 2));
            }
        }
        table.row(row);
    }
    if prices {
        let mut row = vec![Cell::text("Price per GB"), Cell::text("$/GB")];
        for (i, r) in c.runs.iter().enumerate() {
            row.push(match (r.price, r.price_per_gb) {
                (_, Some(p)) => Cell::number(p, 3),
                (Some(_), None) => Cell::text("capacity?"),
                (None, None) => Cell::Empty,
            });
            // The run's other columns: vs base (not for the baseline), CPU, per $.
            let rest = if i == b { 2 } else { 3 };
            row.extend(std::iter::repeat_n(Cell::Empty, rest));
        }
        table.row(row);
    }
    table
}

/// A row per test and run, raw: the comparison's records (CSV). Values in
/// the test's unit (bytes/s, IOPS or s), warnings as codes separated by `;`.
fn records(c: &Comparison) -> Table {
    let mut t = Table::new(vec![
        Column::text("Test", "test"),
        Column::text("Job", "job"),
        Column::text("Direction", "direction"),
        Column::text("Unit", "unit"),
        Column::figure("Run", "run_id"),
        Column::text("Label", "label"),
        Column::text("Baseline", "baseline"),
        Column::figure("Value", "value"),
        Column::figure("Ratio", "ratio"),
        Column::figure("Interval low", "ci_low"),
        Column::figure("Interval high", "ci_high"),
        Column::text("Within noise", "within_noise"),
        Column::figure("Measured runs", "measured_runs"),
        Column::figure("CPU/100MB/s", "cpu_pct_per_100mbs"),
        Column::figure("Price", "price"),
        Column::figure("Capacity", "capacity_bytes"),
        Column::figure("Price per GB", "price_per_gb"),
        Column::figure("MB/s per $", "mbs_per_price"),
        Column::text("Warnings", "warnings"),
    ]);
    t.records = true;
    for test in &c.tests {
        for (i, r) in c.runs.iter().enumerate() {
            let ci = test.ci[i];
            t.row(vec![
                Cell::text(&test.test),
                Cell::text(&test.job),
                Cell::text(test.direction.as_str()),
                Cell::Unit(test.unit),
                Cell::Count(r.id.unsigned_abs()),
                Cell::text(r.label.clone().unwrap_or_default()),
                Cell::text((r.id == c.baseline).to_string()),
                Cell::in_unit(test.values[i], test.unit),
                number(test.ratios[i], 2),
                number(ci.map(|x| x[0]), 3),
                number(ci.map(|x| x[1]), 3),
                Cell::text(test.within_noise[i].map(|b| b.to_string()).unwrap_or_default()),
                Cell::Count(test.measured_runs[i] as u64),
                number(test.cpu_pct_per_100mbs[i], 2),
                number(r.price, 2),
                Cell::or_empty(r.capacity_bytes, Cell::Bytes),
                number(r.price_per_gb, 3),
                number(test.mbs_per_price[i], 2),
                Cell::text(test.warnings[i].join(";")),
            ]);
        }
    }
    t
}

/// The lines under the table: the baseline and units, "vs base", the CPU
/// cost, the prices.
fn legend(c: &Comparison) -> Vec<Note> {
    let mut v = vec![
        Note::plain(
            Line::new()
                .text(format!("Baseline: {}. ", c.runs[c.baseline_index()].name()))
                .span(Span::BwDefinition)
                .text(
                    "; values are medians over each run's measured runs; for times (s) the difference is in speed (baseline time / time).",
                ),
        ),
        Note::plain(format!(
            "vs base: difference of the medians; \"≈ … (noise)\": its {:.0}% bootstrap interval contains no difference; \"(?)\": fewer than {MIN_RUNS_FOR_NOISE} measured runs on a side, noise unknown.",
            NOISE_CONFIDENCE * 100.0
        )),
        Note::plain("CPU/100MB/s: iolab's CPU % (all threads) per 100 MB/s moved."),
    ];
    if c.has_prices() {
        let mut l = Line::new().text("Prices: ");
        for (k, r) in c.runs.iter().enumerate() {
            if k > 0 {
                l = l.text("; ");
            }
            l = match (r.price, r.capacity_bytes) {
                (Some(p), Some(cap)) => l
                    .text(format!("{} $", r.name()))
                    .number(Cell::number(p, 2))
                    .text(format!(" for {} = $", fmt_capacity(cap)))
                    .number(number(r.price_per_gb, 3))
                    .text("/GB"),
                (Some(p), None) => l
                    .text(format!("{} $", r.name()))
                    .number(Cell::number(p, 2))
                    .text(" (capacity unknown)"),
                (None, _) => l.text(format!("{}: no price", r.name())),
            };
        }
        let of = if c.runs.iter().any(|r| r.layout.is_some()) {
            "usable capacity (what the built filesystem or pool offered)"
        } else {
            "device capacity"
        };
        v.push(Note::plain(l.text(format!(". GB = 10^9 bytes of {of}."))));
    }
    v
}

/// The findings, those that lead first ([`crate::compare::findings::leads`]:
/// the cache question, whether two engines agree, unless their figures are
/// untrustworthy): they are what a comparison is usually for.
fn findings(c: &Comparison) -> List {
    let key = |f: &&crate::judge::Diagnostic| crate::compare::findings::leads(f);
    let mut l = List::new("findings", "Findings");
    for f in c.findings.iter().filter(key).chain(c.findings.iter().filter(|f| !key(f))) {
        l.item(Item::from(f).key(key(&f)));
    }
    l
}

/// The tests of one unit side by side: a group of bars per run, the
/// others' whiskers their 95% interval; the numbers beside them.
fn bars(c: &Comparison, unit: Unit, tests: &[&TestComparison]) -> Chart {
    let b = c.baseline_index();
    let (title, y, label) = match unit {
        Unit::BytesPerSec => ("Throughput tests", Axis::linear("Throughput", Quantity::Bandwidth), Span::BwUnit),
        Unit::Iops => (
            "IOPS tests",
            Axis::linear("I/Os per second", Quantity::Number("IOPS".into())),
            Span::Text("IOPS".into()),
        ),
        Unit::Seconds => (
            "Timed tests (lower is faster)",
            Axis::linear("Time", Quantity::Seconds),
            Span::Text("s".into()),
        ),
    };
    let mut chart = Chart::bars("compare-bars", title, tests.iter().map(|t| t.test.clone()).collect(), y);
    for i in 0..c.runs.len() {
        let mut g = BarSeries::new(heading(c, i), tests.iter().map(|t| Some(t.values[i])).collect());
        if i != b {
            g = g.with_whiskers(tests.iter().map(|t| t.value_interval(i, b)).collect());
        }
        chart.group(g);
    }
    chart.numbers = numbers(c, unit, tests);
    let mut caption = Line::new().text(format!("{title}: each run's median (")).span(label).text(
        "), one bar per run; whiskers: the 95% interval of its ratio to the baseline, applied to the baseline's value. Differences: ",
    );
    for (k, t) in tests.iter().enumerate() {
        caption = caption.text(format!("{}{}", if k > 0 { "; " } else { "" }, t.test));
        for (n, i) in (0..c.runs.len()).filter(|&i| i != b).enumerate() {
            let sep = if n > 0 { ", " } else { " " };
            caption = caption.text(format!("{sep}{} ", c.runs[i].name())).figure(vs_base(t, i));
        }
    }
    chart.caption = caption.text(".");
    chart
}

/// The numbers of a unit's bars: each run's value, difference and interval,
/// p99 and MB/s per $ where any run has them, warnings.
fn numbers(c: &Comparison, unit: Unit, tests: &[&TestComparison]) -> Table {
    let b = c.baseline_index();
    let has_p99 = tests.iter().any(|t| t.p99_ns.iter().any(Option::is_some));
    let prices = tests.iter().any(|t| t.mbs_per_price.iter().any(Option::is_some));
    let in_unit = |label: String, key: String| match unit {
        Unit::BytesPerSec => Column::bandwidth(label, key),
        Unit::Iops => Column::figure(format!("{label} IOPS"), key),
        Unit::Seconds => Column::figure(format!("{label} s"), key),
    };
    let mut cols = vec![Column::text("Test", "test")];
    for (i, r) in c.runs.iter().enumerate() {
        let n = r.name();
        cols.push(in_unit(heading(c, i), format!("run_{}_value", r.id)));
        if i != b {
            cols.push(Column::figure(format!("{n} vs base"), format!("run_{}_ratio", r.id)));
            cols.push(in_unit(format!("{n} 95% interval (low / high)"), format!("run_{}_interval", r.id)));
        }
        if has_p99 {
            cols.push(Column::figure(format!("{n} p99"), format!("run_{}_p99_ns", r.id)));
        }
        if prices {
            cols.push(Column::figure(format!("{n} MB/s per $"), format!("run_{}_mbs_per_price", r.id)));
        }
        cols.push(Column::text(format!("{n} warnings"), format!("run_{}_warnings", r.id)));
    }
    let mut table = Table::new(cols);
    for t in tests {
        let mut row = vec![Cell::text(&t.test)];
        for i in 0..c.runs.len() {
            row.push(Cell::in_unit(t.values[i], unit));
            if i != b {
                row.push(vs_base(t, i));
                row.push(Cell::or_empty(t.value_interval(i, b), |(lo, hi)| {
                    Cell::Several(vec![Cell::in_unit(lo, unit), Cell::in_unit(hi, unit)])
                }));
            }
            if has_p99 {
                row.push(Cell::or_empty(t.p99_ns.get(i).copied().flatten(), Cell::latency));
            }
            if prices {
                row.push(number(t.mbs_per_price[i], 2));
            }
            row.push(Cell::text(t.warnings[i].join(", ")));
        }
        table.row(row);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::units::signed_diff;
    use crate::render::view::{Fmt, Place};

    fn test_of(unit: Unit, ratio: Option<f64>, noise: Option<bool>) -> TestComparison {
        TestComparison {
            test: "t".into(),
            job: "t".into(),
            direction: crate::summary::Direction::Read,
            unit,
            values: vec![1.0, 1.0],
            ratios: vec![Some(1.0), ratio],
            within_noise: vec![Some(true), noise],
            ci: vec![None, None],
            measured_runs: vec![3, 3],
            cpu_pct_per_100mbs: vec![None, None],
            mbs_per_price: vec![None, None],
            warnings: vec![Vec::new(), Vec::new()],
            p99_ns: Vec::new(),
            latency: Vec::new(),
            cache_probe: false,
            log_probe: None,
        }
    }

    #[test]
    fn differences_are_signed_and_marked() {
        assert_eq!(signed_diff(1.21), "+21%");
        assert_eq!(signed_diff(0.5), "−50%");
        assert_eq!(signed_diff(1.002), "±0%");
        assert_eq!(signed_diff(2.0), "2.00x");
        let diff = |unit, ratio, noise| vs_base(&test_of(unit, ratio, noise), 1).human(&Fmt::TEXT, Place::Column);
        assert_eq!(diff(Unit::BytesPerSec, Some(1.02), Some(true)), "≈ +2% (noise)");
        assert_eq!(diff(Unit::BytesPerSec, Some(1.21), Some(false)), "+21%");
        assert_eq!(diff(Unit::BytesPerSec, Some(1.21), None), "+21% (?)");
        assert_eq!(diff(Unit::BytesPerSec, None, None), "n/a");
        assert_eq!(diff(Unit::Seconds, Some(0.25), Some(false)), "×4.00 time");
    }

    #[test]
    fn csv_quotes_what_needs_it() {
        use crate::render::csv::csv_field;
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
