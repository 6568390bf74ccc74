//! The group of a many-hosts run: per unit, a bar per host and test with
//! the median host as a reference mark, the numbers, and the verdicts.

use super::{CHART_H, CHART_W, Grid, Out, escape};
use crate::render::svg::{Axis, BarChart, BarSeries, Reference};
use crate::summary::hosts::{HostsReport, HostsTest};
use crate::units::Unit;

/// A figure as the chart shows it: MB/s for bytes/s.
fn shown(v: f64, unit: Unit) -> f64 {
    if unit == Unit::BytesPerSec { v / 1e6 } else { v }
}

fn number(v: f64, unit: Unit) -> String {
    match unit {
        Unit::BytesPerSec => format!("{:.1}", v / 1e6),
        Unit::Iops => format!("{v:.0}"),
        Unit::Seconds => format!("{v:.3}"),
    }
}

pub(super) fn section(o: &mut Out, h: &HostsReport) {
    o.open("hosts", "hosts", 2, "Hosts side by side");
    if !h.verdicts.is_empty() {
        o.body.push_str("<div class=\"findings\"><h3>Verdicts</h3>\n<ul>\n");
        for v in &h.verdicts {
            w!(o.body, "<li><code>{}</code> {}</li>\n", escape(v.code.as_str()), escape(&v.message));
        }
        o.body.push_str("</ul></div>\n");
    }
    for unit in [Unit::BytesPerSec, Unit::Iops, Unit::Seconds] {
        let tests: Vec<&HostsTest> = h.tests.iter().filter(|t| t.unit == unit).collect();
        if !tests.is_empty() {
            bars(o, h, unit, &tests);
        }
    }
    o.body.push_str("</section>\n");
}

fn bars(o: &mut Out, h: &HostsReport, unit: Unit, tests: &[&HostsTest]) {
    let (title, axis, label) = match unit {
        Unit::BytesPerSec => ("Throughput per host", Axis::linear("Throughput", "MB/s"), "MB/s"),
        Unit::Iops => ("IOPS per host", Axis::linear("I/Os per second", "IOPS"), "IOPS"),
        Unit::Seconds => ("Time per host", Axis::linear("Time", "s"), "s"),
    };
    let cats: Vec<String> = tests.iter().map(|t| t.test.clone()).collect();
    let mut chart = BarChart::new(title, cats, axis);
    chart.width = CHART_W;
    chart.height = CHART_H + 20;
    for (i, e) in h.hosts.iter().enumerate() {
        let values = tests.iter().map(|t| t.values[i].map(|v| shown(v, unit))).collect();
        chart.groups.push(BarSeries::new(e.host.clone(), values));
    }
    chart.references.push(Reference {
        label: "median host".into(),
        values: tests.iter().map(|t| Some(shown(t.median_host, unit))).collect(),
    });
    let mut table = Grid::new(&[("Test", false)]);
    for e in &h.hosts {
        table.col(format!("{} {label}", e.host), true);
    }
    for c in ["Sum", "Median host", "Min", "Max", "CV %"] {
        table.col(
            format!("{c}{}", if c == "CV %" { String::new() } else { format!(" {label}") }),
            true,
        );
    }
    table.col("Outliers", false);
    for t in tests {
        let mut row = vec![t.test.clone()];
        row.extend(t.values.iter().map(|v| v.map(|v| number(v, unit)).unwrap_or_else(|| "–".into())));
        row.extend([t.sum, t.median_host, t.min, t.max].map(|v| number(v, unit)));
        row.push(format!("{:.1}", t.cv * 100.0));
        row.push(t.outliers.join(", "));
        table.row(row);
    }
    let caption = format!("{title}: each host's median over its runs ({label}); the dashed mark is the median host.");
    o.figure("hosts-bars", &chart.to_svg(), &caption, &table, false);
}
