//! A comparison: the runs, the findings (the cache question first), and
//! per unit the tests side by side with each run's 95% interval.

use super::{CHART_H, CHART_W, Grid, Out, escape, to_mb};
use crate::compare::{Comparison, TestComparison, Unit};
use crate::judge::Code;
use crate::judge::thresholds::{MIN_RUNS_FOR_NOISE, NOISE_CONFIDENCE};
use crate::render::svg::{Axis, BarChart, BarSeries};
use crate::units::{fmt_capacity, fmt_ns, fmt_time_ratio, signed_diff};

pub(super) fn section(o: &mut Out, c: &Comparison) {
    o.open("comparison", "comparison", 2, "Comparison");
    let b = c.baseline_index();
    let prices = c.has_prices();

    let mut runs = Grid::new(&[("Run", false), ("Id", true), ("Role", false)]);
    if prices {
        runs.col("Price", true);
        runs.col("Capacity", true);
        runs.col("Price per GB", true);
    }
    for (i, r) in c.runs.iter().enumerate() {
        let mut row = vec![
            r.name(),
            r.id.to_string(),
            if i == b {
                "baseline".into()
            } else {
                "compared with the baseline".into()
            },
        ];
        if prices {
            row.push(r.price.map(|p| format!("${p:.2}")).unwrap_or_else(|| "–".into()));
            row.push(r.capacity_bytes.map(fmt_capacity).unwrap_or_else(|| "unknown".into()));
            row.push(r.price_per_gb.map(|p| format!("${p:.3}/GB")).unwrap_or_else(|| "–".into()));
        }
        runs.row(row);
    }
    o.body
        .push_str(&runs.html(Some("The runs compared (GB = 10^9 bytes of device capacity)")));

    if !c.findings.is_empty() {
        o.body.push_str("<div class=\"findings\">\n<h3>Findings</h3>\n<ul>\n");
        // The cache question first: it is what a comparison of two devices is usually for.
        let key = |f: &&crate::judge::Diagnostic| f.code == Code::CacheCandidate;
        for f in c.findings.iter().filter(key).chain(c.findings.iter().filter(|f| !key(f))) {
            w!(
                o.body,
                "<li class=\"{}\" data-code=\"{}\">{}</li>\n",
                if key(&f) { "key" } else { f.severity.as_str() },
                escape(f.code.as_str()),
                escape(&f.message)
            );
        }
        o.body.push_str("</ul>\n</div>\n");
    }

    for unit in [Unit::BytesPerSec, Unit::Iops, Unit::Seconds] {
        let tests: Vec<&TestComparison> = c.tests.iter().filter(|t| t.unit == unit).collect();
        if !tests.is_empty() {
            bars(o, c, unit, &tests);
        }
    }
    w!(
        o.body,
        "<p class=\"units\">Values are medians over each run's measured runs; MB/s = 10^6 bytes/s. \"vs base\": the difference to the baseline ({}); for times the difference is in speed (baseline time / time). \"≈ … (noise)\": the {:.0}% bootstrap interval of the ratio contains no difference; \"(?)\": fewer than {MIN_RUNS_FOR_NOISE} measured runs on a side, so the noise is unknown. The whiskers are that interval of the ratio to the baseline, drawn at the baseline's value times its ends (for times: the baseline's time divided by them); the baseline has none.</p>\n",
        escape(&c.runs[b].name()),
        NOISE_CONFIDENCE * 100.0
    );
    o.close();
}

/// The "vs base" text: the difference, marked when it is noise or its noise unknown.
fn diff(t: &TestComparison, i: usize) -> String {
    let Some(r) = t.ratios[i] else { return "n/a".into() };
    let d = match t.unit {
        Unit::Seconds if r > 0.0 => fmt_time_ratio(r),
        _ => signed_diff(r),
    };
    match t.within_noise[i] {
        Some(true) => format!("≈ {d} (noise)"),
        Some(false) => d,
        None => format!("{d} (?)"),
    }
}

/// A value in the chart's unit: MB/s, IOPS or seconds.
fn shown(v: f64, unit: Unit) -> f64 {
    match unit {
        Unit::BytesPerSec => to_mb(v),
        Unit::Iops | Unit::Seconds => v,
    }
}

fn number(v: f64, unit: Unit) -> String {
    match unit {
        Unit::BytesPerSec => format!("{:.1}", to_mb(v)),
        Unit::Iops => format!("{v:.0}"),
        Unit::Seconds => format!("{v:.4}"),
    }
}

/// The tests of one unit side by side: one group of bars per run.
fn bars(o: &mut Out, c: &Comparison, unit: Unit, tests: &[&TestComparison]) {
    let b = c.baseline_index();
    let (title, axis, label) = match unit {
        Unit::BytesPerSec => ("Throughput tests", Axis::linear("Throughput", "MB/s"), "MB/s"),
        Unit::Iops => ("IOPS tests", Axis::linear("I/Os per second", "IOPS"), "IOPS"),
        Unit::Seconds => ("Timed tests (lower is faster)", Axis::linear("Time", "s"), "s"),
    };
    let cats: Vec<String> = tests.iter().map(|t| t.test.clone()).collect();
    let mut chart = BarChart::new(title, cats, axis);
    chart.width = CHART_W;
    chart.height = CHART_H + 20;
    let names: Vec<String> = c
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| if i == b { format!("{} (baseline)", r.name()) } else { r.name() })
        .collect();
    for (i, name) in names.iter().enumerate() {
        let values = tests.iter().map(|t| Some(shown(t.values[i], unit))).collect();
        let mut g = BarSeries::new(name.clone(), values);
        if i != b {
            g = g.with_whiskers(
                tests
                    .iter()
                    .map(|t| t.value_interval(i, b).map(|(lo, hi)| (shown(lo, unit), shown(hi, unit))))
                    .collect(),
            );
        }
        chart.groups.push(g);
    }

    let has_p99 = tests.iter().any(|t| t.p99_ns.iter().any(Option::is_some));
    let prices = tests.iter().any(|t| t.mbs_per_price.iter().any(Option::is_some));
    let mut table = Grid::new(&[("Test", false)]);
    for (i, r) in c.runs.iter().enumerate() {
        let n = r.name();
        table.col(format!("{} {label}", names[i]), true);
        if i != b {
            table.col(format!("{n} vs base"), true);
            table.col(format!("{n} 95% interval, {label}"), true);
        }
        if has_p99 {
            table.col(format!("{n} p99"), true);
        }
        if prices {
            table.col(format!("{n} MB/s per $"), true);
        }
        table.col(format!("{n} warnings"), false);
    }
    for t in tests {
        let mut row = vec![t.test.clone()];
        for i in 0..c.runs.len() {
            row.push(number(t.values[i], unit));
            if i != b {
                row.push(diff(t, i));
                row.push(
                    t.value_interval(i, b)
                        .map(|(lo, hi)| format!("{}–{}", number(lo, unit), number(hi, unit)))
                        .unwrap_or_else(|| "–".into()),
                );
            }
            if has_p99 {
                row.push(t.p99_ns.get(i).copied().flatten().map(fmt_ns).unwrap_or_else(|| "–".into()));
            }
            if prices {
                row.push(t.mbs_per_price[i].map(|v| format!("{v:.2}")).unwrap_or_else(|| "–".into()));
            }
            row.push(t.warnings[i].join(", "));
        }
        table.row(row);
    }
    let caption = format!(
        "{title}: each run's median ({label}), one bar per run; whiskers: the 95% interval of its ratio to the baseline, applied to the baseline's value. Differences: {}.",
        tests
            .iter()
            .map(|t| {
                let d: Vec<String> = (0..c.runs.len())
                    .filter(|&i| i != b)
                    .map(|i| format!("{} {}", c.runs[i].name(), diff(t, i)))
                    .collect();
                format!("{} {}", t.test, d.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    );
    o.figure("compare-bars", &chart.to_svg(), &caption, &table, false);
}
