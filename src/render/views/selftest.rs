//! `iolab selftest`: each check against its emulated limit (the limit,
//! what iolab measured, the error, iolab's CPU per I/O, ok or not), the
//! throttle used and the checks skipped, then the verdict.

use crate::base::units::Unit;
use crate::render::view::{Block, Cell, Column, Heading, Note, Section, Table, Tone, View};
use crate::selftest::{CaseResult, SelftestReport};

/// The self-test's view.
pub fn view(s: &SelftestReport) -> View {
    let mut sec = Section::new("selftest", "selftest", Heading::Outline("Each figure against its limit".into()));
    sec.push(Block::Table(table(s)));
    let mut notes = vec![Note::plain(format!(
        "Throttle: {}. A scan's figure is its slowest zone. CPU per I/O: iolab's user + system time, every thread.",
        s.throttle
    ))];
    notes.extend(s.skipped.iter().map(|why| Note::plain(format!("skipped: {why}"))));
    sec.push(Block::Notes(notes));
    let verdict = if s.passed {
        format!("PASS: every figure within ±{}% of its limit.", s.tolerance_pct)
    } else {
        let bad = s.cases.iter().filter(|c| !c.ok).count();
        format!("FAIL: {bad} figure(s) outside ±{}% of the limit.", s.tolerance_pct)
    };
    sec.push(Block::paragraph(Tone::Verdict { alert: !s.passed }, verdict));
    View {
        title: "iolab selftest: each figure against its emulated limit".into(),
        sections: vec![sec],
    }
}

/// The unit of a check's limit: the document names it "bytes/s" or "IOPS".
fn unit(c: &CaseResult) -> Unit {
    if c.unit == Unit::BytesPerSec.as_str() {
        Unit::BytesPerSec
    } else {
        Unit::Iops
    }
}

/// A row per check: the spreadsheet's records too.
fn table(s: &SelftestReport) -> Table {
    let mut t = Table::new(vec![
        Column::text("Check", "check"),
        Column::text("Device", "device"),
        Column::text("Unit", "unit"),
        Column::figure("Limit", "limit"),
        Column::figure("Measured", "measured"),
        Column::figure("Error %", "error_pct"),
        Column::figure("CPU per I/O", "cpu_ns_per_io"),
        Column::text("Result", "result"),
    ]);
    t.records = true;
    for c in &s.cases {
        let u = unit(c);
        t.row(vec![
            Cell::text(&c.name),
            Cell::text(&c.device),
            Cell::Unit(u),
            Cell::in_unit(c.limit, u),
            Cell::in_unit(c.measured, u),
            Cell::signed_percent(c.error_pct, 2),
            Cell::or_empty(c.cpu_us_per_io, |us| Cell::latency(us * 1e3)),
            Cell::text(if c.ok { "ok" } else { "OUTSIDE" }),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use crate::render::{Document, Exporter, Html, Text};
    use crate::selftest::{CaseResult, SelftestReport};

    fn case(name: &str, device: &str, bps: bool, limit: f64, measured: f64, cpu: Option<f64>) -> CaseResult {
        let error_pct = (measured - limit) / limit * 100.0;
        CaseResult {
            name: name.into(),
            device: device.into(),
            limit,
            unit: if bps { "bytes/s" } else { "IOPS" },
            measured,
            error_pct,
            cpu_us_per_io: cpu,
            ok: error_pct.abs() <= 3.0,
        }
    }

    /// The checks of docs/verify.md's example, one of them made to fail, zram skipped.
    fn report(fail: bool) -> SelftestReport {
        let mut cases = vec![
            case("read 128K QD1", "loop over tmpfs", true, 41_943_040.0, 42_073_047.0, Some(15.3)),
            case("randread 4K QD32", "loop over tmpfs", false, 2000.0, 1968.0, Some(2.6)),
            case(
                "scan, 4 zones of 128K reads at QD4",
                "loop over tmpfs",
                true,
                41_943_040.0,
                41_720_000.0,
                None,
            ),
        ];
        if fail {
            cases[1] = case("randread 4K QD32", "loop over tmpfs", false, 2000.0, 1800.0, Some(2.6));
        }
        SelftestReport {
            throttle: "cgroup v1 blkio".into(),
            tolerance_pct: 3.0,
            passed: cases.iter().all(|c| c.ok),
            cases,
            skipped: vec!["zram: no zram module".into()],
        }
    }

    fn all_views(s: &SelftestReport) -> String {
        super::super::lines_formats(Document::Selftest(s))
    }

    #[test]
    fn a_passing_selftest_in_every_format() {
        snapshot!("selftest", "a_passing_selftest_in_every_format", all_views(&report(false)));
    }

    #[test]
    fn a_failing_selftest_names_what_is_outside() {
        let out = all_views(&report(true));
        assert!(
            out.contains("OUTSIDE") && out.contains("FAIL: 1 figure(s) outside ±3% of the limit."),
            "{out}"
        );
        assert!(out.contains("| -10.00 |"), "the error, signed: {out}");
        assert!(
            out.contains("randread 4K QD32,loop over tmpfs,IOPS,2000,1800,-10,2600,OUTSIDE\r\n"),
            "{out}"
        );
    }

    #[test]
    fn bandwidths_follow_the_units_asked_for() {
        let s = report(false);
        let st = crate::render::Style {
            units: crate::base::units::BwUnit::Mib,
            color: false,
        };
        let out = Text(st).export(Document::Selftest(&s)).unwrap();
        assert!(out.contains("MiB/s") && out.contains("40.0"), "{out}");
    }

    #[test]
    fn the_page_is_a_checked_page_with_the_verdict() {
        let page = Html.export(Document::Selftest(&report(true))).unwrap();
        crate::render::svg::tests::check::well_formed_page(&page).unwrap();
        assert!(page.contains("<p class=\"alert selftest-verdict\">FAIL: 1 figure(s)"), "{page}");
        assert!(
            page.contains("<td>OUTSIDE</td>") || page.contains("<td class=\"t\">OUTSIDE</td>"),
            "{page}"
        );
    }
}
