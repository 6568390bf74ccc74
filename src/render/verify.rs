//! The views of `iolab verify`: the verdict, bytes per class, the bad
//! ranges and the zones' write and read rates. The rows are built here
//! once and laid out by each format (table, Markdown, CSV, HTML). Formats
//! only: every figure comes from [`VerifyReport`].

use super::Style;
use crate::summary::verify::{VerifyLayout, VerifyReport};
use crate::units::{BwUnit, bw, fmt_bs, fmt_bytes};
use crate::verify::{BadRange, Class, Verdict};
use comfy_table::{Cell, CellAlignment};

/// Bad ranges listed in the table and Markdown views (the JSON document
/// has them all).
pub const SHOWN_RANGES: usize = 20;

/// The verdict in a few words, for headings and the list.
pub fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Clean => "CLEAN",
        Verdict::FakeCapacity { .. } => "FAKE CAPACITY",
        Verdict::Corrupt => "CORRUPT",
        Verdict::LostWrites => "LOST WRITES",
        Verdict::Unreadable => "UNREADABLE",
    }
}

/// The verdict line: its word and the summary's sentence.
pub fn verdict_line(v: &VerifyReport, interrupted: bool) -> String {
    let stopped = if interrupted {
        " (interrupted: only what was read back is judged)"
    } else {
        ""
    };
    if v.summary.bytes.total() == 0 {
        return "NOT CHECKED: nothing was read back (stopped before the read-back)".to_string();
    }
    // The sentence may open with the verdict's own words ("fake capacity: …").
    let m = &v.summary.message;
    let m = m.strip_prefix("fake capacity: ").unwrap_or(m);
    format!("{}: {m}{stopped}", verdict_word(&v.summary.verdict))
}

/// (what, value) facts about the pass, in the order every view lists them.
pub fn facts(v: &VerifyReport, units: BwUnit) -> Vec<(&'static str, String)> {
    let s = &v.summary;
    let mut f = Vec::new();
    let place = match &v.layout {
        VerifyLayout::Device => "the device, from its first byte".to_string(),
        VerifyLayout::Files { dir, file_bytes, files } => format!(
            "{files} file(s) of up to {} in {dir} (removed afterwards; offsets count through the files in order)",
            fmt_bytes(*file_bytes)
        ),
    };
    f.push((
        "Verified",
        format!(
            "{} of {} planned: {place}",
            fmt_bytes(s.to.saturating_sub(s.from)),
            fmt_bytes(v.planned_bytes)
        ),
    ));
    f.push((
        "Requests",
        format!(
            "{}, {}, pass {:016x}",
            fmt_bs(v.bs),
            if v.direct {
                "O_DIRECT"
            } else {
                "BUFFERED (page cache flushed and dropped before the read-back)"
            },
            v.pass
        ),
    ));
    f.push((
        "Write",
        format!(
            "{} in {:.1} s{}",
            fmt_bytes(v.written_bytes),
            v.write_s,
            match (v.write_errors, v.first_write_error) {
                (0, _) => String::new(),
                (n, Some(at)) => format!(", {n} block(s) failed to write, the first at offset {at}"),
                (n, None) => format!(", {n} block(s) failed to write"),
            }
        ),
    ));
    if let Some(w) = v.cold_wait_s {
        f.push((
            "Cold wait",
            format!("{w:.1} s between writing and reading back (the target was let go)"),
        ));
    }
    f.push((
        "Read back",
        format!("{} in {:.1} s", fmt_bytes(s.to.saturating_sub(s.from)), v.read_s),
    ));
    f.push((
        "First bad block",
        s.first_bad
            .map(|o| format!("offset {o} ({})", fmt_bytes(o)))
            .unwrap_or_else(|| "none".into()),
    ));
    f.push((
        "Usable",
        format!(
            "the first {} read back good ({} good in all)",
            fmt_bytes(s.usable_bytes),
            fmt_bytes(s.good_bytes)
        ),
    ));
    let (lo, hi) = rate_range(v, |z| z.write_bw_bytes);
    let (rlo, rhi) = rate_range(v, |z| z.read_bw_bytes);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        f.push((
            "Zone rates",
            format!(
                "write {}–{} {u}, read {}–{} {u}",
                bw(lo, units, 1),
                bw(hi, units, 1),
                rlo.map(|x| bw(x, units, 1)).unwrap_or_else(|| "–".into()),
                rhi.map(|x| bw(x, units, 1)).unwrap_or_else(|| "–".into()),
                u = units.label()
            ),
        ));
    }
    if let Some(d) = &v.device {
        f.push(("Device", d.clone()));
    }
    f
}

/// The lowest and highest rate over the zones (`None` where no zone has one).
fn rate_range(v: &VerifyReport, get: impl Fn(&crate::summary::verify::VerifyZone) -> Option<f64>) -> (Option<f64>, Option<f64>) {
    let r: Vec<f64> = v.zones.iter().filter_map(get).collect();
    (r.iter().copied().reduce(f64::min), r.iter().copied().reduce(f64::max))
}

/// A row per class that has bytes (good always): class, bytes, bytes exact, share.
pub fn class_rows(v: &VerifyReport) -> Vec<[String; 4]> {
    let b = &v.summary.bytes;
    let total = b.total().max(1) as f64;
    Class::ALL
        .iter()
        .filter(|&&c| c == Class::Good || b.get(c) > 0)
        .map(|&c| {
            [
                c.as_str().to_string(),
                fmt_bytes(b.get(c)),
                b.get(c).to_string(),
                format!("{:.2}%", b.get(c) as f64 * 100.0 / total),
            ]
        })
        .collect()
}

/// What a range's blocks were: the offset they were written for, or the pass.
pub fn range_note(r: &BadRange) -> String {
    match (r.written_for_from, r.pass) {
        (Some(w), _) => format!("written for offset {w} on"),
        (None, Some(p)) => format!("from pass {p:016x}"),
        _ => String::new(),
    }
}

/// A row per bad range (the first `max`): from, to, class, bytes, note.
pub fn range_rows(v: &VerifyReport, max: usize) -> Vec<[String; 5]> {
    v.summary
        .ranges
        .iter()
        .take(max)
        .map(|r| {
            [
                r.from.to_string(),
                r.to.to_string(),
                r.class.as_str().to_string(),
                fmt_bytes(r.bytes()),
                range_note(r),
            ]
        })
        .collect()
}

/// How many ranges a view leaves out after showing `max`.
pub fn ranges_left_out(v: &VerifyReport, max: usize) -> u64 {
    v.summary.ranges.len().saturating_sub(max) as u64 + v.summary.ranges_dropped
}

/// A row per zone: number, offset, write rate, read rate, bad bytes.
pub fn zone_rows(v: &VerifyReport, units: BwUnit) -> Vec<[String; 5]> {
    let rate = |x: Option<f64>| x.map(|b| bw(b, units, 1)).unwrap_or_else(|| "–".into());
    v.zones
        .iter()
        .enumerate()
        .map(|(i, z)| {
            [
                (i + 1).to_string(),
                fmt_bytes(z.offset),
                rate(z.write_bw_bytes),
                rate(z.read_bw_bytes),
                if z.bad_bytes == 0 { "0".into() } else { fmt_bytes(z.bad_bytes) },
            ]
        })
        .collect()
}

fn right(s: &str) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

/// The terminal view.
pub fn table(v: &VerifyReport, interrupted: bool, st: Style) -> String {
    let mut s = String::new();
    let line = verdict_line(v, interrupted);
    s.push_str(&if v.failed() { st.paint(&line) } else { line });
    s.push_str("\n\n");
    for (k, val) in facts(v, st.units) {
        s.push_str(&format!("{k}: {val}\n"));
    }
    let mut t = super::text_table();
    t.set_header(vec!["Class", "Bytes", "Share"]);
    for r in class_rows(v) {
        t.add_row(vec![Cell::new(&r[0]), right(&r[1]), right(&r[3])]);
    }
    s.push_str(&format!("\n{t}\n"));
    let ranges = range_rows(v, SHOWN_RANGES);
    if !ranges.is_empty() {
        let mut t = super::text_table();
        t.set_header(vec!["Bad from", "To", "Class", "Bytes", ""]);
        for r in &ranges {
            t.add_row(vec![right(&r[0]), right(&r[1]), Cell::new(&r[2]), right(&r[3]), Cell::new(&r[4])]);
        }
        s.push_str(&format!("\nBad ranges (byte offsets, [from, to)):\n{t}\n"));
        let more = ranges_left_out(v, SHOWN_RANGES);
        if more > 0 {
            s.push_str(&format!("… and {more} more range(s): --format json lists them\n"));
        }
    }
    let u = st.units.label();
    let mut t = super::text_table();
    t.set_header(vec![
        "Zone".to_string(),
        "From".into(),
        format!("Write {u}"),
        format!("Read {u}"),
        "Bad".into(),
    ]);
    for r in zone_rows(v, st.units) {
        t.add_row(vec![right(&r[0]), right(&r[1]), right(&r[2]), right(&r[3]), right(&r[4])]);
    }
    s.push_str(&format!("\n{t}\n"));
    s
}

/// The Markdown view.
pub fn markdown(v: &VerifyReport, interrupted: bool, units: BwUnit) -> String {
    let mut s = format!("**{}**\n\n", verdict_line(v, interrupted));
    for (k, val) in facts(v, units) {
        s.push_str(&format!("- {k}: {val}\n"));
    }
    s.push_str("\n| Class | Bytes | Exact | Share |\n|---|--:|--:|--:|\n");
    for r in class_rows(v) {
        s.push_str(&format!("| {} | {} | {} | {} |\n", r[0], r[1], r[2], r[3]));
    }
    let ranges = range_rows(v, SHOWN_RANGES);
    if !ranges.is_empty() {
        s.push_str("\n| Bad from | To | Class | Bytes | |\n|--:|--:|---|--:|---|\n");
        for r in &ranges {
            s.push_str(&format!("| {} | {} | {} | {} | {} |\n", r[0], r[1], r[2], r[3], r[4]));
        }
        let more = ranges_left_out(v, SHOWN_RANGES);
        if more > 0 {
            s.push_str(&format!("\n… and {more} more range(s) in the JSON document.\n"));
        }
    }
    let u = units.label();
    s.push_str(&format!("\n| Zone | From | Write {u} | Read {u} | Bad |\n|--:|--:|--:|--:|--:|\n"));
    for r in zone_rows(v, units) {
        s.push_str(&format!("| {} | {} | {} | {} | {} |\n", r[0], r[1], r[2], r[3], r[4]));
    }
    s
}

/// The CSV view's header and rows: a row per zone, raw units (the classes
/// and ranges are in the JSON document and the other views).
pub fn csv(v: &VerifyReport) -> (&'static [&'static str], Vec<Vec<String>>) {
    let num = |x: Option<f64>| x.filter(|f| f.is_finite()).map(|f| f.to_string()).unwrap_or_default();
    let rows = v
        .zones
        .iter()
        .enumerate()
        .map(|(i, z)| {
            vec![
                (i + 1).to_string(),
                z.offset.to_string(),
                z.bytes.to_string(),
                num(z.write_bw_bytes),
                num(z.read_bw_bytes),
                z.bad_bytes.to_string(),
            ]
        })
        .collect();
    (&["zone", "offset", "bytes", "write_bw_bytes", "read_bw_bytes", "bad_bytes"], rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Document, Format, exporter};
    use crate::summary::verify::VerifyZone;
    use crate::summary::{Body, Report, fixtures};
    use crate::verify::{BlockState, VerifyTally};

    const MIB: u64 = 1 << 20;

    /// A verify of 4 MiB on a device that wraps at 1 MiB (each lap reads back the
    /// last), with one unreadable block in the last lap.
    fn fake() -> Report {
        let mut t = VerifyTally::new();
        for lap in 0..4u64 {
            for k in 0..256u64 {
                let off = lap * MIB + k * 4096;
                let s = match lap {
                    3 if k == 7 => BlockState::Unreadable,
                    3 => BlockState::Good,
                    _ => BlockState::Misplaced {
                        written_for: 3 * MIB + k * 4096,
                    },
                };
                t.push(off, s);
            }
        }
        let mut r = fixtures::report("h", Some(4), &[]);
        r.command = "verify".into();
        r.body = Body::Verify(VerifyReport {
            pass: 0xabc,
            bs: MIB,
            planned_bytes: 4 * MIB,
            written_bytes: 4 * MIB,
            layout: VerifyLayout::Device,
            direct: true,
            cold_wait_s: None,
            write_s: 0.5,
            read_s: 0.25,
            write_errors: 0,
            first_write_error: None,
            zones: (0..4)
                .map(|i| VerifyZone {
                    offset: i * MIB,
                    bytes: MIB,
                    write_bw_bytes: Some(8e6),
                    read_bw_bytes: Some(16e6),
                    bad_bytes: if i == 3 { 4096 } else { MIB },
                })
                .collect(),
            summary: t.summary(),
            device: Some("loop:/x:4194304".into()),
        });
        r
    }

    fn export(r: &Report, f: Format) -> String {
        exporter(f, Style::default()).export(Document::Run(r, None)).expect("a view")
    }

    #[test]
    fn every_view_says_the_verdict_and_the_ranges() {
        let r = fake();
        let v = r.verify().unwrap();
        assert!(v.failed());
        assert_eq!(r.failed_check().as_deref(), Some(v.summary.message.as_str()));
        let table = export(&r, Format::Table);
        assert!(table.starts_with("FAKE CAPACITY: the device keeps about 1020.00 KiB"), "{table}");
        assert!(table.contains("misplaced") && table.contains("unreadable"), "{table}");
        assert!(table.contains("written for offset 3145728 on"), "{table}");
        assert!(
            table.contains("Write MB/s") && table.contains("8.0") && table.contains("16.0"),
            "{table}"
        );
        let md = export(&r, Format::Markdown);
        assert!(md.starts_with("**FAKE CAPACITY: "), "{md}");
        assert!(md.contains("| misplaced | 3.00 MiB | 3145728 | 75.00% |"), "{md}");
        let csv = export(&r, Format::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "zone,offset,bytes,write_bw_bytes,read_bw_bytes,bad_bytes");
        assert_eq!(lines[4], "4,3145728,1048576,8000000,16000000,4096");
        let html = export(&r, Format::Html);
        assert!(html.contains("<p class=\"alert\" role=\"alert\">FAKE CAPACITY"), "no alert");
        assert!(html.contains("data-chart=\"verify-curve\""));
        let json: serde_json::Value = serde_json::from_str(&export(&r, Format::Json)).unwrap();
        assert_eq!(json["verify"]["summary"]["verdict"]["kind"], "fake_capacity");
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back.verify(), r.verify(), "the document round-trips");
    }

    #[test]
    fn ranges_beyond_the_shown_are_counted() {
        let mut r = fake();
        let Body::Verify(v) = &mut r.body else { unreachable!() };
        v.summary.ranges = (0..25)
            .map(|i| BadRange {
                from: i * 8192,
                to: i * 8192 + 4096,
                class: Class::Corrupted,
                written_for_from: None,
                pass: None,
            })
            .collect();
        v.summary.ranges_dropped = 3;
        assert_eq!(range_rows(v, SHOWN_RANGES).len(), SHOWN_RANGES);
        assert_eq!(ranges_left_out(v, SHOWN_RANGES), 8);
        assert!(export(&r, Format::Table).contains("… and 8 more range(s)"));
    }
}
