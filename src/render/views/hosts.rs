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

/// The group's view.
pub fn view(h: &HostsReport) -> View {
    let mut s = Section::new("hosts", "hosts", Heading::Outline("Hosts side by side".into()));
    s.push(Block::Table(table(h)));
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
    cols.extend([
        Column::figure("Sum", "sum"),
        Column::figure("Median host", "median_host"),
        Column::figure("Min", "min"),
        Column::figure("Max", "max"),
        Column::figure("CV %", "cv_pct"),
        Column::text("Outliers", "outliers"),
    ]);
    let mut t = Table::new(cols);
    for test in &h.tests {
        let u = test.unit;
        let mut row = vec![Cell::text(&test.test), Cell::Unit(u)];
        row.extend(test.values.iter().map(|v| Cell::or_empty(*v, |v| Cell::in_unit(v, u))));
        row.extend([test.sum, test.median_host, test.min, test.max].map(|v| Cell::in_unit(v, u)));
        row.push(Cell::percent(test.cv * 100.0, 1));
        row.push(Cell::text(test.outliers.join(", ")));
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
