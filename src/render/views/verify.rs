//! `iolab verify`: the verdict (an alert when the device failed), where
//! the write or read speed drops and stays down (the document's
//! `write_drop` and `read_drop`), the pass's facts, what each block read
//! back as, the bad ranges, and the write and read rate of every zone (a
//! line of block characters for each and a table where lines are the
//! format, and on a page a curve with the table as its numbers and the
//! drop marked); the zones are the records.

use crate::base::units::fmt_bs;
use crate::judge::curve::SpeedDrop;
use crate::render::view::{
    Axis, Block, Cell, Chart, Column, Detail, Fact, Heading, Line, Marker, Note, NoteTone, Quantity, Section, Series, SeriesStyle, Span,
    Table, Tone,
};
use crate::summary::Report;
use crate::summary::verify::{VerifyLayout, VerifyReport, VerifyZone};
use crate::verify::{BadRange, Class, Verdict};

/// The text curves' widest: a hundred regions in two per character.
const SPARK_WIDTH: usize = 50;

/// Bad ranges listed (the JSON document has all it kept).
pub const SHOWN_RANGES: usize = 20;

/// The verdict in a few words.
pub fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Clean => "CLEAN",
        Verdict::FakeCapacity { .. } => "FAKE CAPACITY",
        Verdict::Corrupt => "CORRUPT",
        Verdict::LostWrites => "LOST WRITES",
        Verdict::Unreadable => "UNREADABLE",
    }
}

/// The verify's sections: what it found, then the lines under it.
pub fn sections(r: &Report, v: &VerifyReport) -> Vec<Section> {
    let heading = Heading::Outline("Verify: every block written and read back".into());
    let mut s = Section::new("verify", "verify", heading);
    s.push(Block::paragraph(Tone::Verdict { alert: v.failed() }, verdict(v, r.interrupted)));
    for (drop, what) in [(&v.write_drop, Rate::Write), (&v.read_drop, Rate::Read)] {
        if let Some(d) = drop {
            s.push(Block::paragraph(Tone::Plain, drop_line(v, d, what)));
        }
    }
    s.push(Block::Facts(facts(r, v)));
    s.sections.push(classes(v));
    if !v.summary.ranges.is_empty() {
        s.sections.push(ranges(v));
    }
    s.sections.push(zones(v));
    vec![s, footer(r)]
}

/// "FAKE CAPACITY: the device keeps about …", or why nothing was judged.
fn verdict(v: &VerifyReport, interrupted: bool) -> String {
    if v.summary.bytes.total() == 0 {
        return "NOT CHECKED: nothing was read back (stopped before the read-back)".to_string();
    }
    // The sentence may open with the verdict's own words ("fake capacity: …").
    let m = &v.summary.message;
    let m = m.strip_prefix("fake capacity: ").unwrap_or(m);
    let stopped = if interrupted {
        " (interrupted: only what was read back is judged)"
    } else {
        ""
    };
    format!("{}: {m}{stopped}", verdict_word(&v.summary.verdict))
}

/// Which rate a speed drop is of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rate {
    Write,
    Read,
}

/// "writes fell from 92.0 to 11.0 MB/s after 24.6 GB (19% of the device):
/// a write cache; sustained writes run at 11.0 MB/s".
fn drop_line(v: &VerifyReport, d: &SpeedDrop, what: Rate) -> Line {
    let range = v.zones.last().map_or(v.planned_bytes, |z| z.offset + z.bytes).max(1);
    let of = match v.layout {
        VerifyLayout::Device => "of the device",
        VerifyLayout::Files { .. } => "of the verified range",
    };
    let line = Line::new()
        .text(match what {
            Rate::Write => "writes fell from ",
            Rate::Read => "reads fell from ",
        })
        .number(Cell::bandwidth_coarse(d.before_bps))
        .text(" to ")
        .figure(Cell::bandwidth_coarse(d.after_bps))
        .text(format!(
            " after {} ({}% {of})",
            decimal_position(d.at_offset),
            (d.at_offset as f64 * 100.0 / range as f64).round()
        ));
    match what {
        Rate::Write => line
            .text(": a write cache; sustained writes run at ")
            .figure(Cell::bandwidth_coarse(d.after_bps)),
        Rate::Read => line.text(", and stayed there to the end"),
    }
}

/// A position in decimal units, as devices are sold (MB = 10^6 bytes):
/// `24.6 GB`, `268 MB`.
fn decimal_position(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.2} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else {
        format!("{:.0} MB", b / 1e6)
    }
}

/// What was verified, how, and what came back.
fn facts(r: &Report, v: &VerifyReport) -> Vec<Fact> {
    let s = &v.summary;
    let bytes = Cell::Bytes;
    let place = match &v.layout {
        VerifyLayout::Device => Line::from("the device, from its first byte"),
        VerifyLayout::Files { dir, file_bytes, files } => Line::new()
            .text(format!("{files} file(s) of up to "))
            .figure(bytes(*file_bytes))
            .text(" in ")
            .code(dir)
            .text(" (removed afterwards; offsets count through the files in order)"),
    };
    let verified = Line::new().figure(bytes(v.verified_bytes()));
    let mut f = vec![
        Fact::new(
            "Verified",
            verified
                .clone()
                .text(" of ")
                .figure(bytes(v.planned_bytes))
                .text(" planned: ")
                .and(place),
        ),
        Fact::new(
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
        ),
    ];
    let mut write = Line::new()
        .figure(bytes(v.written_bytes))
        .text(" in ")
        .figure(Cell::seconds(v.write_s, 1));
    write = match (v.write_errors, v.first_write_error) {
        (0, _) => write,
        (n, Some(at)) => write.text(format!(", {n} block(s) failed to write, the first at offset {at}")),
        (n, None) => write.text(format!(", {n} block(s) failed to write")),
    };
    f.push(Fact::new("Write", write));
    if let Some(w) = v.cold_wait_s {
        let wait = Line::new()
            .figure(Cell::seconds(w, 1))
            .text(" between writing and reading back (the target was let go)");
        f.push(Fact::new("Cold wait", wait));
    }
    f.push(Fact::new("Read back", verified.text(" in ").figure(Cell::seconds(v.read_s, 1))));
    let first_bad = match s.first_bad {
        Some(o) => Line::new().text(format!("offset {o} (")).figure(bytes(o)).text(")"),
        None => Line::from("none"),
    };
    f.push(Fact::new("First bad block", first_bad));
    let usable = Line::new()
        .text("the first ")
        .figure(bytes(s.usable_bytes))
        .text(" read back good (")
        .figure(bytes(s.good_bytes))
        .text(" good in all)");
    f.push(Fact::new("Usable", usable));
    if let Some(w) = v.write_rates() {
        let mut rates = Line::new().text("write ").and(rate_range(w));
        rates = match v.read_rates() {
            Some(r) => rates.text(", read ").and(rate_range(r)),
            None => rates.text(", nothing read back"),
        };
        f.push(Fact::new("Zone rates", rates));
    }
    // The device as people know it (a loop device by its node and
    // file); the identity the store matches runs by where that is a name.
    let known = crate::summary::verify::device_name(&r.target);
    if let Some(d) = known.as_ref().or(v.device.as_ref()) {
        f.push(Fact::new("Device", d.as_str()));
    }
    f
}

/// "651.7–1168.4 MB/s".
fn rate_range((lo, hi): (f64, f64)) -> Line {
    Line::new()
        .number(Cell::bandwidth_coarse(lo))
        .text("–")
        .figure(Cell::bandwidth_coarse(hi))
}

/// A row per class that has bytes (good always): its bytes, exactly, and its share.
fn classes(v: &VerifyReport) -> Section {
    let heading = Heading::Shown("What each 4 KiB block read back as".into());
    let mut s = Section::new("verify-classes", "verify-classes", heading);
    let mut t = Table::new(vec![
        Column::text("Class", "class"),
        Column::figure("Bytes", "bytes"),
        Column::figure("Exact bytes", "exact_bytes"),
        Column::figure("Share %", "share_pct"),
    ]);
    let b = &v.summary.bytes;
    for c in Class::ALL.into_iter().filter(|&c| c == Class::Good || b.get(c) > 0) {
        t.row(vec![
            Cell::text(c.as_str()),
            Cell::Bytes(b.get(c)),
            Cell::Count(b.get(c)),
            Cell::percent(v.class_share_pct(c), 2),
        ]);
    }
    s.push(Block::Table(t));
    s
}

/// What a range's blocks held: the offset they were written for, or the pass.
fn range_note(r: &BadRange) -> String {
    match (r.written_for_from, r.pass) {
        (Some(w), _) => format!("written for offset {w} on"),
        (None, Some(p)) => format!("from pass {p:016x}"),
        _ => String::new(),
    }
}

/// The first [`SHOWN_RANGES`] bad ranges, and how many more there are.
fn ranges(v: &VerifyReport) -> Section {
    let heading = Heading::Shown("Bad ranges (byte offsets, [from, to))".into());
    let mut s = Section::new("verify-ranges", "verify-ranges", heading);
    let mut t = Table::new(vec![
        Column::figure("Bad from", "from"),
        Column::figure("To", "to"),
        Column::text("Class", "class"),
        Column::figure("Bytes", "bytes"),
        Column::text("", "note"),
    ]);
    for r in v.summary.ranges.iter().take(SHOWN_RANGES) {
        t.row(vec![
            Cell::Count(r.from),
            Cell::Count(r.to),
            Cell::text(r.class.as_str()),
            Cell::Bytes(r.bytes()),
            Cell::text(range_note(r)),
        ]);
    }
    s.push(Block::Table(t));
    let (listed, dropped) = (v.ranges_beyond(SHOWN_RANGES), v.summary.ranges_dropped);
    let more = match (listed, dropped) {
        (0, 0) => None,
        (n, 0) => Some(
            Line::new()
                .text(format!("… and {n} more range(s): "))
                .code("--format json")
                .text(" lists them"),
        ),
        (0, d) => Some(Line::from(format!("… and {d} more range(s), not kept"))),
        (n, d) => Some(
            Line::new()
                .text(format!("… and {} more range(s): ", n + d))
                .code("--format json")
                .text(format!(" lists {n}, {d} were not kept")),
        ),
    };
    s.push(Block::Notes(more.map(Note::plain).into_iter().collect()));
    s
}

/// Every zone's rates and bad bytes: a table, and on a page the curve of
/// its rates with the table as its numbers. The zones are the records.
fn zones(v: &VerifyReport) -> Section {
    let heading = Heading::Shown("Write and read rate of each zone".into());
    let mut s = Section::new("verify-zones", "verify-zones", heading);
    let mut t = Table::new(vec![
        Column::figure("Zone", "zone"),
        Column::figure("From", "offset"),
        Column::figure("Bytes", "bytes").only(Detail::Raw),
        Column::bandwidth("Write", "write_bw_bytes"),
        Column::bandwidth("Read", "read_bw_bytes"),
        Column::figure("Bad", "bad_bytes"),
    ]);
    t.records = true;
    for (i, z) in v.zones.iter().enumerate() {
        t.row(vec![
            Cell::Count(i as u64 + 1),
            Cell::Bytes(z.offset),
            Cell::Bytes(z.bytes),
            Cell::or_empty(z.write_bw_bytes, Cell::bandwidth_coarse),
            Cell::or_empty(z.read_bw_bytes, Cell::bandwidth_coarse),
            // No bad byte reads as a plain 0.
            if z.bad_bytes == 0 {
                Cell::Count(0)
            } else {
                Cell::Bytes(z.bad_bytes)
            },
        ]);
    }
    if v.zones.len() > 1 {
        let curve_of = |rate: fn(&VerifyZone) -> Option<f64>| -> Vec<Option<f64>> { v.zones.iter().map(rate).collect() };
        let mut lines = Vec::new();
        for (label, rates, range) in [
            ("Write curve", curve_of(|z| z.write_bw_bytes), v.write_rates()),
            ("Read curve", curve_of(|z| z.read_bw_bytes), v.read_rates()),
        ] {
            if let Some(r) = range {
                let spark = crate::render::chart::sparkline(&rates, SPARK_WIDTH);
                lines.push(Fact::new(label, Line::new().code(spark).text(" min–max ").and(rate_range(r))));
            }
        }
        s.push(Block::only(Detail::Lines, Block::Facts(lines)));
    }
    let origin = v.zones.first().map_or(0, |z| z.offset) as f64;
    let step = v.zones.first().map_or(1, |z| z.bytes.max(1)) as f64;
    super::drawn_along(&mut s, t, curve(v), origin, step, "zone");
    s
}

/// The write and read rate of every zone against its position.
fn curve(v: &VerifyReport) -> Option<Chart> {
    if v.write_rates().is_none() && v.read_rates().is_none() {
        return None;
    }
    let mut c = Chart::lines(
        "verify-curve",
        "Write and read rate across the verified range",
        Axis::linear("Position", Quantity::Bytes),
        Axis::linear("Rate", Quantity::Bandwidth).from_zero(),
    );
    let style = if v.zones.len() <= 40 {
        SeriesStyle::LineDots
    } else {
        SeriesStyle::Line
    };
    let write = v.zones.iter().filter_map(|z| z.write_bw_bytes.map(|b| (z.offset as f64, b)));
    let read = v.zones.iter().filter_map(|z| z.read_bw_bytes.map(|b| (z.offset as f64, b)));
    for (k, (name, pts)) in [("write", write.collect::<Vec<_>>()), ("read", read.collect())]
        .into_iter()
        .enumerate()
    {
        if !pts.is_empty() {
            c.series(Series::new(name, pts).with_style(style).with_color(k));
        }
    }
    for (drop, what) in [(&v.write_drop, "writes"), (&v.read_drop, "reads")] {
        if let Some(d) = drop {
            c.markers.push(Marker::new(format!("{what} fall"), d.at_offset as f64));
        }
    }
    c.caption = Line::new()
        .text(format!(
            "The write rate (each zone's writes and its flush) and the read-back rate of each of the {} zones, ",
            v.zones.len()
        ))
        .span(Span::BwDefinition)
        .text(", at the position where the zone starts.");
    Some(c)
}

/// The lines under the tables: the target, the unit, and an error that stopped the pass.
fn footer(r: &Report) -> Section {
    let mut s = Section::new("footer", "footer", Heading::None).only(Detail::Lines);
    s.push(Block::Notes(vec![
        Note::plain(super::jobs::target(r)),
        Note::plain(Line::new().span(Span::BwDefinition).text(".")),
    ]));
    if let Some(e) = &r.error {
        let stop = Note::new(NoteTone::Failed, format!("stopped by an error: {e}"));
        s.push(Block::Notes(vec![stop]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Document, Format, Style, exporter};
    use crate::summary::Body;
    use crate::summary::tests::fixtures;
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
            write_drop: None,
            read_drop: None,
            summary: t.summary(),
            device: Some("loop:/x:4194304".into()),
        });
        r
    }

    fn export(r: &Report, f: Format) -> String {
        exporter(f, Style::default()).export(Document::Run(r, None)).expect("a view")
    }

    /// Issue 36: a loop device was shown as its identity,
    /// `loop:/x:4194304`; every format names it `/dev/loop3 (backing /x)`.
    #[test]
    fn a_loop_device_is_named_as_people_know_it() {
        let mut r = fake();
        r.target.devices = vec![crate::device::BlockDev {
            name: "loop3".into(),
            major: 7,
            minor: 3,
            partition_of: None,
            size_bytes: 4 * MIB,
            logical_block_size: 512,
            rotational: None,
            model: None,
            backing_file: Some("/x".into()),
            memory: true,
        }];
        for f in [Format::Table, Format::Markdown, Format::Html] {
            let out = export(&r, f);
            assert!(out.contains("/dev/loop3 (backing /x)"), "{}: {out}", f.name());
            assert!(!out.contains("loop:/x:4194304"), "{}: {out}", f.name());
        }
        assert_eq!(
            r.verify().unwrap().device.as_deref(),
            Some("loop:/x:4194304"),
            "the identity is kept"
        );
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
        assert!(md.contains("| Class | Bytes | Exact bytes | Share % |"), "{md}");
        assert!(md.contains("| misplaced | 3.00 MiB | 3145728 | 75.00 |"), "{md}");
        let csv = export(&r, Format::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "zone,offset,bytes,write_bw_bytes,read_bw_bytes,bad_bytes");
        assert_eq!(lines[4], "4,3145728,1048576,8000000,16000000,4096");
        let html = export(&r, Format::Html);
        assert!(html.contains("<p class=\"alert verify-verdict\">FAKE CAPACITY"), "no alert");
        assert!(html.contains("data-chart=\"verify-curve\""));
        let json: serde_json::Value = serde_json::from_str(&export(&r, Format::Json)).unwrap();
        assert_eq!(json["verify"]["summary"]["verdict"]["kind"], "fake_capacity");
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back.verify(), r.verify(), "the document round-trips");
    }

    /// Issue 27: a verify of 10,000 zones lists buckets of zones in the
    /// formats of lines and draws them folded on a page; CSV and JSON keep
    /// every zone.
    #[test]
    fn a_verify_of_10000_zones_is_folded_but_in_its_records() {
        let mut r = fake();
        let Body::Verify(v) = &mut r.body else { unreachable!() };
        v.zones = (0..10_000u64)
            .map(|i| VerifyZone {
                offset: i * MIB,
                bytes: MIB,
                write_bw_bytes: Some(8e6 + (i % 13) as f64 * 1e5),
                read_bw_bytes: Some(if i == 4_321 { 1e5 } else { 16e6 }),
                bad_bytes: 0,
            })
            .collect();
        for f in [Format::Table, Format::Markdown] {
            let out = export(&r, f);
            assert!(out.contains("10,000 zones are too many to list one by one"), "{out}");
            assert!(out.lines().count() < 150, "{} lines", out.lines().count());
            // The slow zone's read is its bucket's min.
            let row = out
                .lines()
                .find(|l| l.contains("4.10 GiB") && l.contains("4.31 GiB"))
                .unwrap_or_default();
            assert!(row.contains("0.10"), "{out}");
        }
        let html = export(&r, Format::Html);
        assert!(html.len() < 600_000, "{} bytes", html.len());
        assert!(html.contains("each point drawn is the min/median/max of 10 zones"), "caption");
        let csv = export(&r, Format::Csv);
        assert_eq!(csv.lines().count(), 1 + 10_000);
        assert!(csv.lines().nth(4_322).unwrap().ends_with(",100000,0"), "the slow zone's row");
    }

    /// Issue 28: a hundred regions whose writes fall to a quarter at 19%:
    /// every format names the drop the same way, the terminal and Markdown
    /// draw both curves in a line, the page marks the point on its chart.
    #[test]
    fn a_write_cache_is_named_in_every_format() {
        let mut r = fake();
        let Body::Verify(v) = &mut r.body else { unreachable!() };
        let region = 246_000_000u64;
        v.planned_bytes = 100 * region;
        v.zones = (0..100u64)
            .map(|i| VerifyZone {
                offset: i * region,
                bytes: region,
                write_bw_bytes: Some(if i < 19 { 92e6 } else { 11e6 }),
                read_bw_bytes: Some(150e6),
                bad_bytes: 0,
            })
            .collect();
        v.judge_curve();
        assert_eq!(v.write_drop.as_ref().map(|d| d.at_region), Some(19));
        assert_eq!(v.read_drop, None);
        let said = "writes fell from 92.0 to 11.0 MB/s after 4.7 GB (19% of the device): a write cache; sustained writes run at 11.0 MB/s";
        let table = export(&r, Format::Table);
        assert!(table.contains(said), "{table}");
        // Two regions a character: the 10th holds the last fast one and the first slow one.
        let spark = format!("{}▄{}", "█".repeat(9), "▁".repeat(40));
        assert!(table.contains("Write curve") && table.contains(&spark), "{table}");
        assert!(table.contains(&"█".repeat(50)), "the flat read curve: {table}");
        let md = export(&r, Format::Markdown);
        assert!(md.contains(said) && md.contains(&spark), "{md}");
        let html = export(&r, Format::Html);
        assert!(html.contains(said), "the page names it");
        assert!(html.contains("writes fall"), "the chart marks it");
        let json: serde_json::Value = serde_json::from_str(&export(&r, Format::Json)).unwrap();
        assert_eq!(json["verify"]["write_drop"]["at_offset"], 19 * region);
        assert_eq!(json["verify"]["write_drop"]["after_bps"], 11e6);
        assert!(json["verify"]["read_drop"].is_null());
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
        assert_eq!(v.ranges_beyond(SHOWN_RANGES), 5);
        let table = export(&r, Format::Table);
        assert!(
            table.contains("… and 8 more range(s): --format json lists 5, 3 were not kept"),
            "{table}"
        );
        let shown = |out: &str| out.lines().filter(|l| l.contains("corrupted")).count();
        assert_eq!(shown(&table), SHOWN_RANGES, "{table}");
        assert_eq!(shown(&export(&r, Format::Markdown)), SHOWN_RANGES);
        let r = {
            let mut r = r;
            let Body::Verify(v) = &mut r.body else { unreachable!() };
            v.summary.ranges_dropped = 0;
            r
        };
        assert!(export(&r, Format::Table).contains("… and 5 more range(s): --format json lists them"));
    }

    #[test]
    fn a_clean_pass_is_no_alert_and_an_empty_one_is_not_checked() {
        let mut r = fake();
        let Body::Verify(v) = &mut r.body else { unreachable!() };
        let mut t = VerifyTally::new();
        t.push_blocks(0, 1024, BlockState::Good);
        v.summary = t.summary();
        v.zones[0].read_bw_bytes = None;
        let html = export(&r, Format::Html);
        assert!(html.contains("<p class=\"verify-verdict\">CLEAN: "), "{html}");
        let table = export(&r, Format::Table);
        assert!(!table.contains("Bad ranges"), "{table}");
        let md = export(&r, Format::Markdown);
        assert!(md.contains("| 1 | 0 B | 8.0 | – | 1.00 MiB |"), "an unread zone: {md}");
        let Body::Verify(v) = &mut r.body else { unreachable!() };
        v.summary = VerifyTally::new().summary();
        r.interrupted = true;
        assert!(export(&r, Format::Table).starts_with("NOT CHECKED: nothing was read back"));
    }
}
