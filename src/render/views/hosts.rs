//! One plan on many hosts (`--hosts`): each host side by side per test,
//! the sum over the hosts, the median host and the spread across them,
//! the outliers; on a page a bar per host and test, per unit; then the
//! verdicts (an outlier host, hosts that agree, hosts that gave no result).
//! Spreadsheets get a row per test and host.

use crate::base::units::Unit;
use crate::render::view::{
    Axis, BarSeries, Block, Cell, Chart, Column, Detail, Heading, Line, List, Note, NoteTone, Quantity, Reference, Section, Span, Table,
    View,
};
use crate::summary::hosts::{HostsReport, HostsTest};

/// The most hosts a table shows side by side, a column each: past it
/// (nine hosts' columns make the terminal's table some 160 characters
/// wide) each host is a row instead, under a table of the tests across
/// them. Every table and chart of the group follows this one rule.
pub const MAX_HOST_COLUMNS: usize = 8;

/// Whether the group's hosts are rows rather than columns.
pub fn hosts_as_rows(h: &HostsReport) -> bool {
    h.hosts.len() > MAX_HOST_COLUMNS
}

/// The group's view.
pub fn view(h: &HostsReport) -> View {
    let mut s = Section::new("hosts", "hosts", Heading::Outline("Hosts side by side".into()));
    if hosts_as_rows(h) {
        s.push(Block::Table(across(h)));
        s.push(Block::Table(per_host(h)));
    } else {
        s.push(Block::Table(table(h)));
    }
    for unit in [Unit::BytesPerSec, Unit::Iops, Unit::Seconds] {
        let tests: Vec<&HostsTest> = h.tests.iter().filter(|t| t.unit == unit).collect();
        if !tests.is_empty() {
            s.push(Block::only(Detail::Page, Block::Chart(Box::new(bars(h, unit, &tests)))));
        }
    }
    s.push(Block::only(Detail::Raw, Block::Table(records(h))));
    s.push(Block::Notes(notes(h)));
    let mut verdicts = List::new("verdicts", "Verdicts");
    for v in &h.verdicts {
        verdicts.item(v);
    }
    s.push(Block::List(verdicts));
    View {
        title: format!("iolab: one plan on {} hosts", h.hosts.len()),
        sections: vec![s],
    }
}

/// A row per test: each host's value, then the sum, the median host, the
/// spread across hosts and the outliers.
fn table(h: &HostsReport) -> Table {
    let mut cols = vec![Column::text("Test", "test"), Column::text("Unit", "unit")];
    cols.extend(h.hosts.iter().map(|e| Column::figure(e.host.as_str(), e.host.as_str())));
    cols.extend(group_columns());
    let mut t = Table::new(cols);
    for test in &h.tests {
        let u = test.unit;
        let mut row = vec![Cell::text(&test.test), Cell::Unit(u)];
        row.extend(test.values.iter().map(|v| Cell::or_empty(*v, |v| Cell::in_unit(v, u))));
        row.extend(group_cells(test));
        t.row(row);
    }
    t
}

/// The group's figures of a test, in both layouts: the sum, the median
/// host, the spread across hosts and the outliers.
fn group_columns() -> [Column; 6] {
    [
        Column::figure("Sum", "sum"),
        Column::figure("Median host", "median_host"),
        Column::figure("Min", "min"),
        Column::figure("Max", "max"),
        Column::figure("CV %", "cv_pct"),
        Column::text("Outliers", "outliers"),
    ]
}

/// A test's cells under [`group_columns`].
fn group_cells(test: &crate::summary::hosts::HostsTest) -> Vec<Cell> {
    let u = test.unit;
    let mut cells: Vec<Cell> = [test.sum, test.median_host, test.min, test.max].map(|v| Cell::in_unit(v, u)).into();
    cells.push(Cell::percent(test.cv * 100.0, 1));
    cells.push(Cell::text(test.outliers.join(", ")));
    cells
}

/// With hosts as rows: a row per test, over the hosts (the side-by-side
/// table without the hosts' columns, and how many hosts reported).
fn across(h: &HostsReport) -> Table {
    let mut cols = vec![
        Column::text("Test", "test"),
        Column::text("Unit", "unit"),
        Column::figure("Hosts", "hosts"),
    ];
    cols.extend(group_columns());
    let mut t = Table::new(cols);
    for test in &h.tests {
        let u = test.unit;
        let reported = test.values.iter().flatten().count();
        let mut row = vec![
            Cell::text(&test.test),
            Cell::Unit(u),
            Cell::text(format!("{reported} of {}", h.hosts.len())),
        ];
        row.extend(group_cells(test));
        t.row(row);
    }
    t
}

/// With hosts as rows: a row per host, its value in each test (the unit
/// in the heading), its stored run (when any host's was stored), and the
/// tests it stands out on.
fn per_host(h: &HostsReport) -> Table {
    let stored = h.hosts.iter().any(|e| e.run_id.is_some());
    let mut cols = vec![Column::text("Host", "host")];
    cols.extend(h.tests.iter().map(|t| figures(&t.test, &t.test, t.unit)));
    if stored {
        cols.push(Column::figure("Run", "run_id"));
    }
    cols.push(Column::text("Outlier on", "outlier_on"));
    let mut t = Table::new(cols);
    for (i, e) in h.hosts.iter().enumerate() {
        let mut row = vec![Cell::text(&e.host)];
        row.extend(h.tests.iter().map(|t| Cell::or_empty(t.values[i], |v| Cell::in_unit(v, t.unit))));
        if stored {
            row.push(Cell::or_empty(e.run_id, |id| Cell::Count(id as u64)));
        }
        let on: Vec<&str> = h
            .tests
            .iter()
            .filter(|t| t.outliers.contains(&e.host))
            .map(|t| t.test.as_str())
            .collect();
        row.push(Cell::text(if e.ok { on.join(", ") } else { "no result".into() }));
        t.row(row);
    }
    t
}

/// A column of figures in `unit`, its unit in the heading.
fn figures(label: &str, key: &str, unit: Unit) -> Column {
    match unit {
        Unit::BytesPerSec => Column::bandwidth(label, key),
        Unit::Iops => Column::figure(format!("{label} IOPS"), key),
        Unit::Seconds => Column::figure(format!("{label} s"), key),
    }
}

/// The tests of one unit: a bar per host, the median host as a reference mark.
fn bars(h: &HostsReport, unit: Unit, tests: &[&HostsTest]) -> Chart {
    let (title, y, shown) = match unit {
        Unit::BytesPerSec => ("Throughput per host", Axis::linear("Throughput", Quantity::Bandwidth), Span::BwUnit),
        Unit::Iops => (
            "IOPS per host",
            Axis::linear("I/Os per second", Quantity::Number("IOPS".into())),
            Span::Text("IOPS".into()),
        ),
        Unit::Seconds => ("Time per host", Axis::linear("Time", Quantity::Seconds), Span::Text("s".into())),
    };
    let mut c = Chart::bars("hosts-bars", title, tests.iter().map(|t| t.test.clone()).collect(), y);
    c.caption = Line::new()
        .text(format!("{title}: each host's median over its runs ("))
        .span(shown)
        .text("); the dashed mark is the median host.");
    for (i, e) in h.hosts.iter().enumerate() {
        c.group(BarSeries::new(e.host.clone(), tests.iter().map(|t| t.values[i]).collect()));
    }
    c.reference(Reference {
        label: "median host".into(),
        values: tests.iter().map(|t| Some(t.median_host)).collect(),
    });
    if hosts_as_rows(h) {
        // A row per host, then the median host's.
        let mut cols = vec![Column::text("Host", "host")];
        cols.extend(tests.iter().map(|t| figures(&t.test, &t.test, unit)));
        c.numbers = Table::new(cols);
        for (i, e) in h.hosts.iter().enumerate() {
            let mut row = vec![Cell::text(&e.host)];
            row.extend(tests.iter().map(|t| Cell::or_empty(t.values[i], |v| Cell::in_unit(v, unit))));
            c.numbers.row(row);
        }
        let mut row = vec![Cell::text("median host")];
        row.extend(tests.iter().map(|t| Cell::in_unit(t.median_host, unit)));
        c.numbers.row(row);
        return c;
    }
    let mut cols = vec![Column::text("Test", "test")];
    cols.extend(h.hosts.iter().map(|e| figures(&e.host, &e.host, unit)));
    cols.push(figures("Median host", "median_host", unit));
    c.numbers = Table::new(cols);
    for t in tests {
        let mut row = vec![Cell::text(&t.test)];
        row.extend(t.values.iter().map(|v| Cell::or_empty(*v, |v| Cell::in_unit(v, unit))));
        row.push(Cell::in_unit(t.median_host, unit));
        c.numbers.row(row);
    }
    c
}

/// For spreadsheets: a row per test and host, raw figures in the test's unit.
fn records(h: &HostsReport) -> Table {
    let mut t = Table::new(
        [
            "test",
            "direction",
            "unit",
            "host",
            "run_id",
            "value",
            "outlier",
            "sum",
            "median_host",
            "cv_pct",
        ]
        .map(|k| Column::text(k, k))
        .into(),
    );
    t.records = true;
    for test in &h.tests {
        let u = test.unit;
        for (i, e) in h.hosts.iter().enumerate() {
            t.row(vec![
                Cell::text(&test.test),
                Cell::text(test.direction.as_str()),
                Cell::Unit(u),
                Cell::text(&e.host),
                Cell::or_empty(e.run_id, |id| Cell::Count(id as u64)),
                Cell::or_empty(test.values[i], |v| Cell::in_unit(v, u)),
                Cell::text(test.outliers.contains(&e.host).to_string()),
                Cell::in_unit(test.sum, u),
                Cell::in_unit(test.median_host, u),
                Cell::percent(test.cv * 100.0, 1),
            ]);
        }
    }
    t
}

/// The lines under the table: the units, the hosts that failed, the stored runs.
fn notes(h: &HostsReport) -> Vec<Note> {
    let mut v = vec![Note::plain(
        Line::new()
            .span(Span::BwDefinition)
            .text("; each host's value is the median of its measured runs."),
    )];
    if !h.complete {
        let failed = h.hosts.iter().filter(|e| !e.ok).count();
        v.push(Note::new(
            NoteTone::Failed,
            format!(
                "INCOMPLETE: {failed} of {} hosts gave no result; the sum and spread are over the others.",
                h.hosts.len()
            ),
        ));
    }
    if hosts_as_rows(h) {
        // Each host's row gives its stored run.
        return v;
    }
    let stored: Vec<String> = h
        .hosts
        .iter()
        .filter_map(|e| e.run_id.map(|id| format!("{} = run {id}", e.host)))
        .collect();
    if !stored.is_empty() {
        v.push(Note::plain(format!("Stored: {}.", stored.join(", "))));
    }
    v
}

#[cfg(test)]
mod tests {
    use crate::base::units::Unit;
    use crate::render::{Document, Exporter, Html};
    use crate::summary::Report;
    use crate::summary::hosts::{HostsReport, hosts_report};

    fn report(name: &str) -> Report {
        let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    /// The demo suite on four hosts: the third with other figures, the fourth unreachable.
    fn group() -> HostsReport {
        let (a, b) = (report("demo"), report("demoB"));
        hosts_report(&[
            ("h1".into(), Some(&a), None),
            ("h2".into(), Some(&a), None),
            ("h3".into(), Some(&b), None),
            ("h4".into(), None, Some("no fio server at h4:8765 (Connection refused)".into())),
        ])
    }

    #[test]
    fn a_group_in_every_format() {
        let h = group();
        snapshot!("hosts", "a_group_in_every_format", super::super::lines_formats(Document::Hosts(&h)));
    }

    /// Up to `MAX_HOST_COLUMNS` hosts are columns; one more, and each host is a row.
    #[test]
    fn hosts_turn_into_rows_past_the_most_columns() {
        let a = report("demo");
        for (n, rows) in [(super::MAX_HOST_COLUMNS, false), (super::MAX_HOST_COLUMNS + 1, true)] {
            let hosts: Vec<(String, Option<&Report>, Option<String>)> = (0..n).map(|i| (format!("h{i}"), Some(&a), None)).collect();
            let h = hosts_report(&hosts);
            assert_eq!(super::hosts_as_rows(&h), rows);
            let md = crate::render::Markdown(crate::base::units::BwUnit::Mb)
                .export(Document::Hosts(&h))
                .unwrap();
            let header = md.lines().any(|l| l.starts_with("| Host |"));
            assert_eq!(header, rows, "{n} hosts:\n{md}");
            let row = format!("| h{} |", n - 1);
            assert_eq!(md.lines().any(|l| l.starts_with(&row)), rows, "{n} hosts:\n{md}");
        }
    }

    #[test]
    fn the_page_draws_each_unit_and_lists_the_verdicts() {
        let h = group();
        let page = Html.export(Document::Hosts(&h)).unwrap();
        crate::render::svg::tests::check::well_formed_page(&page).unwrap();
        let charts = [Unit::BytesPerSec, Unit::Iops, Unit::Seconds]
            .iter()
            .filter(|&&u| h.tests.iter().any(|t| t.unit == u))
            .count();
        assert_eq!(page.matches("data-chart=\"hosts-bars\"").count(), charts, "a chart per unit");
        let values = h.tests.iter().flat_map(|t| &t.values).filter(|v| v.is_some()).count();
        assert_eq!(page.matches("class=\"bar\"").count(), values, "a bar per reporting host and test");
        assert!(
            page.contains("<p class=\"alert\">INCOMPLETE: 1 of 4 hosts gave no result"),
            "{page}"
        );
        assert!(
            page.contains("<li data-code=\"host_failed\"><span class=\"badge warning\">host_failed</span> h4: no result"),
            "{page}"
        );
    }
}
