//! The self-test's table: each check, its limit, what iolab measured, the
//! error and iolab's CPU per I/O, then the verdict. Formats only.

use crate::selftest::SelftestReport;
use crate::units::fmt_mbs;
use comfy_table::{Cell, CellAlignment};

fn figure(v: f64, unit: &str) -> String {
    if unit == "bytes/s" {
        format!("{} ({:.2} MiB/s)", fmt_mbs(v), v / (1u64 << 20) as f64)
    } else {
        format!("{v:.0} IOPS")
    }
}

pub fn table(s: &SelftestReport) -> String {
    let mut t = super::text_table();
    t.set_header(vec!["Check", "Device", "Limit", "Measured", "Error", "CPU per I/O", "Result"]);
    for c in &s.cases {
        let right = |x: String| Cell::new(x).set_alignment(CellAlignment::Right);
        t.add_row(vec![
            Cell::new(&c.name),
            Cell::new(&c.device),
            right(figure(c.limit, c.unit)),
            right(figure(c.measured, c.unit)),
            right(format!("{:+.2}%", c.error_pct)),
            right(c.cpu_us_per_io.map(|v| format!("{v:.1} µs")).unwrap_or_else(|| "–".into())),
            Cell::new(if c.ok { "ok" } else { "OUTSIDE" }),
        ]);
    }
    let mut out = format!("{t}\n");
    out.push_str(&format!(
        "Throttle: {}. A scan's figure is its slowest zone. CPU per I/O: iolab's user + system time, every thread.\n",
        s.throttle
    ));
    for why in &s.skipped {
        out.push_str(&format!("skipped: {why}\n"));
    }
    let bad = s.cases.iter().filter(|c| !c.ok).count();
    out.push_str(&if s.passed {
        format!("PASS: every figure within ±{}% of its limit.\n", s.tolerance_pct)
    } else {
        format!("FAIL: {bad} figure(s) outside ±{}% of the limit.\n", s.tolerance_pct)
    });
    out
}
