//! `iolab capacity`: the verdict's sentence (loud unless genuine), the
//! probe's facts (sizes, costs, what happened to the device's data), and
//! for spreadsheets one record of raw figures.

use crate::base::units::fmt_bs;
use crate::render::view::{Block, Cell, Column, Detail, Fact, Heading, Line, Note, NoteTone, Section, Table, Tone};
use crate::summary::Report;
use crate::summary::capacity::{BackupFacts, CapacityReport, CapacityVerdict};

/// The verdict's one word for tables.
pub fn verdict_name(c: &CapacityReport) -> &'static str {
    c.verdict.as_ref().map(CapacityVerdict::name).unwrap_or("interrupted")
}

/// The probe's section.
pub fn section(r: &Report, c: &CapacityReport) -> Section {
    let heading = Heading::Shown(format!("Capacity probe of {}", r.target.path));
    let mut s = Section::new("capacity", "capacity", heading);
    s.push(Block::paragraph(Tone::Verdict { alert: c.failed() }, c.message.as_str()));
    s.push(Block::Facts(facts(r, c)));
    s.push(Block::only(Detail::Raw, Block::Table(record(r, c))));
    if r.interrupted {
        // A page says it in its header.
        let stopped = Note::new(NoteTone::Stopped, "interrupted: the probe did not finish");
        s.push(Block::only(Detail::Lines, Block::Notes(vec![stopped])));
    }
    s
}

/// "1.00 GiB (1073741824 bytes)".
fn exact(b: u64) -> Line {
    Line::new().figure(Cell::Bytes(b)).text(format!(" ({b} bytes)"))
}

/// The facts of a capacity run, in order.
fn facts(r: &Report, c: &CapacityReport) -> Vec<Fact> {
    let mut v = vec![Fact::new("Verdict", verdict_name(c)), Fact::new("Device", r.target.path.as_str())];
    if let Some(id) = &c.device {
        v.push(Fact::new("Identity", id.as_str()));
    }
    v.push(Fact::new("Announced size", exact(c.announced_bytes)));
    match &c.verdict {
        Some(CapacityVerdict::Fake {
            real_bytes,
            first_bad_byte,
            safe_partition_bytes,
            alias_distance,
        }) => {
            v.push(Fact::new("Real size (at least)", exact(*real_bytes)));
            v.push(Fact::new("First bad byte", exact(*first_bad_byte)));
            v.push(Fact::new(
                "Safe partition",
                if *safe_partition_bytes > 0 {
                    format!(
                        "{} ({safe_partition_bytes} bytes) from 1 MiB, MBR (dos) table",
                        fmt_bs(*safe_partition_bytes)
                    )
                } else {
                    "none".to_string()
                },
            ));
            if let Some(d) = alias_distance {
                v.push(Fact::new("Wraps every", exact(*d)));
            }
        }
        Some(CapacityVerdict::Genuine) => v.push(Fact::new("Real size", exact(c.announced_bytes))),
        _ => {}
    }
    if let Some(e) = &c.earlier_verify {
        v.push(Fact::new(
            "Earlier verify",
            format!("run {} ({}): {}", e.run_id, e.started_at, e.message),
        ));
    }
    let unit = c
        .probe
        .as_ref()
        .map(|p| format!(" (a wrap at any multiple of {} shows)", fmt_bs(p.unit)));
    v.push(Fact::new(
        "Granularity",
        format!("{}{}", fmt_bs(granularity(c)), unit.unwrap_or_default()),
    ));
    if let Some(p) = &c.probe {
        v.push(Fact::new(
            "Probe",
            format!(
                "{} round{}, {} block writes ({} distinct), {} block reads",
                p.rounds,
                if p.rounds == 1 { "" } else { "s" },
                p.blocks_written,
                p.distinct_blocks_written,
                p.blocks_read
            ),
        ));
    }
    v.extend(costs(c));
    v.push(Fact::new("Device data", device_data(c.backup.as_ref())));
    v.push(Fact::new("Errors", errors(c)));
    if let Some(cf) = &c.confirmation {
        let unstable = cf.unstable();
        v.push(Fact::new(
            "Confirmation",
            format!(
                "{} block(s) read again, {} written afresh below the boundary: {}",
                cf.reread_blocks,
                cf.fresh.len(),
                if unstable.is_empty() {
                    "same answers".to_string()
                } else {
                    format!("{} answered differently", unstable.len())
                }
            ),
        ));
    }
    v
}

/// The block size the probe worked in.
fn granularity(c: &CapacityReport) -> u64 {
    c.probe.as_ref().map(|p| p.granularity).unwrap_or(c.granularity)
}

/// What the probe wrote, read and took, and how it reached the device.
fn costs(c: &CapacityReport) -> Vec<Fact> {
    let b = Cell::Bytes;
    vec![
        Fact::new(
            "Bytes written",
            Line::new()
                .figure(b(c.bytes_written))
                .text(" (probe ")
                .figure(b(c.probe_bytes_written))
                .text(", restore ")
                .figure(b(c.restore_bytes_written))
                .text(")"),
        ),
        Fact::new("Bytes read", Line::new().figure(b(c.bytes_read))),
        Fact::new(
            "Time",
            Line::new()
                .text("probe ")
                .figure(Cell::seconds(c.probe_s, 2))
                .text(", restore ")
                .figure(Cell::seconds(c.restore_s, 2)),
        ),
        Fact::new(
            "I/O",
            if c.direct {
                "O_DIRECT (past the page cache), fdatasync after each round's writes"
            } else {
                "BUFFERED (O_DIRECT refused): page cache dropped before each round's reads"
            },
        ),
    ]
}

/// What happened to the data the probe overwrote.
fn device_data(backup: Option<&BackupFacts>) -> String {
    let Some(b) = backup else {
        return "overwritten (--allow-destroy)".to_string();
    };
    if !b.kept && b.unreadable + b.differing_beyond + b.differing + b.restore_write_errors == 0 && b.blocks == b.verified {
        return format!(
            "{} block(s) saved, written back and read back as saved (backup file removed)",
            b.blocks
        );
    }
    let mut s = format!(
        "{} block(s) saved, {} written back, {} read back as saved",
        b.blocks, b.restored, b.verified
    );
    if b.unreadable > 0 {
        s.push_str(&format!(", {} unreadable before the probe", b.unreadable));
    }
    if b.differing_beyond > 0 {
        s.push_str(&format!(
            ", {} beyond the real size differ (the device keeps nothing there)",
            b.differing_beyond
        ));
    }
    if b.differing > 0 || b.restore_write_errors > 0 {
        s.push_str(&format!(", {} differ and {} write(s) failed", b.differing, b.restore_write_errors));
    }
    if b.kept {
        s.push_str(&format!("; KEPT in {}: `iolab capacity --restore {}`", b.path, b.path));
    } else {
        s.push_str(&format!("; backup {} removed", b.path));
    }
    s
}

fn errors(c: &CapacityReport) -> Line {
    if c.read_errors + c.write_errors == 0 {
        return Line::from("none");
    }
    let first = |l: Line, o: Option<u64>| match o {
        Some(o) => l.text(" (first at ").and(exact(o)).text(")"),
        None => l,
    };
    let l = first(Line::new().text(format!("{} read error(s)", c.read_errors)), c.first_read_error);
    first(l.text(format!(", {} write error(s)", c.write_errors)), c.first_write_error)
}

/// One row of raw figures (bytes, seconds), for spreadsheets.
fn record(r: &Report, c: &CapacityReport) -> Table {
    let (real, bad, safe, alias) = match &c.verdict {
        Some(CapacityVerdict::Fake {
            real_bytes,
            first_bad_byte,
            safe_partition_bytes,
            alias_distance,
        }) => (
            Some(*real_bytes),
            Some(*first_bad_byte),
            Some(*safe_partition_bytes),
            *alias_distance,
        ),
        Some(CapacityVerdict::Genuine) => (Some(c.announced_bytes), None, None, None),
        _ => (None, None, None, None),
    };
    let bytes = |v: Option<u64>| Cell::or_empty(v, Cell::Bytes);
    let count = |v: u64| Cell::Count(v);
    let cols: Vec<(&str, Cell)> = vec![
        ("device", Cell::text(&r.target.path)),
        ("identity", Cell::text(c.device.clone().unwrap_or_default())),
        ("verdict", Cell::text(verdict_name(c).to_lowercase())),
        ("announced_bytes", Cell::Bytes(c.announced_bytes)),
        ("real_bytes", bytes(real)),
        ("first_bad_byte", bytes(bad)),
        ("safe_partition_bytes", bytes(safe)),
        ("alias_distance", bytes(alias)),
        ("granularity", Cell::Bytes(granularity(c))),
        ("rounds", Cell::or_empty(c.probe.as_ref(), |p| count(p.rounds as u64))),
        ("bytes_written", Cell::Bytes(c.bytes_written)),
        ("probe_bytes_written", Cell::Bytes(c.probe_bytes_written)),
        ("restore_bytes_written", Cell::Bytes(c.restore_bytes_written)),
        ("bytes_read", Cell::Bytes(c.bytes_read)),
        ("probe_s", Cell::seconds(c.probe_s, 2)),
        ("restore_s", Cell::seconds(c.restore_s, 2)),
        ("direct", Cell::text(c.direct.to_string())),
        ("destructive", Cell::text(c.destructive.to_string())),
        ("read_errors", count(c.read_errors)),
        ("write_errors", count(c.write_errors)),
        (
            "earlier_verify_run",
            Cell::or_empty(c.earlier_verify.as_ref(), |e| count(e.run_id as u64)),
        ),
        ("message", Cell::text(&c.message)),
    ];
    let mut t = Table::new(cols.iter().map(|(k, _)| Column::text(*k, *k)).collect());
    t.records = true;
    t.row(cols.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
    t
}

#[cfg(test)]
mod tests {
    use crate::render::{Document, Exporter, Html, Json};
    use crate::summary::Report;
    use serde_json::Value;

    /// A capacity run as iolab wrote it (`tests/fixtures/render/capacity-*.json`).
    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/render/capacity-{name}.json", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn report(name: &str) -> Report {
        serde_json::from_str(&fixture(name)).expect("fixture parses")
    }

    fn all_views(r: &Report) -> String {
        super::super::lines_formats(Document::Run(r, None))
    }

    #[test]
    fn json_gives_back_the_document_byte_for_byte() {
        for name in ["fake", "genuine"] {
            let r = report(name);
            assert!(Json.export(Document::Run(&r, None)).unwrap() == fixture(name), "{name}");
        }
    }

    #[test]
    fn a_fake_device_in_every_format() {
        let r = report("fake");
        assert!(r.failed_check().is_some_and(|m| m.starts_with("FAKE")));
        snapshot!("capacity", "a_fake_device_in_every_format", all_views(&r));
    }

    #[test]
    fn a_genuine_device_in_every_format() {
        let r = report("genuine");
        assert_eq!(r.failed_check(), None);
        snapshot!("capacity", "a_genuine_device_in_every_format", all_views(&r));
    }

    #[test]
    fn an_interrupted_probe_and_a_kept_backup() {
        let mut v: Value = serde_json::from_str(&fixture("fake")).unwrap();
        v["interrupted"] = true.into();
        let c = &mut v["capacity"];
        c["verdict"] = Value::Null;
        c["probe"] = Value::Null;
        c["confirmation"] = Value::Null;
        c["message"] = "interrupted after 1 round(s): no verdict; the saved data is kept (see above)".into();
        c["backup"]["kept"] = true.into();
        c["backup"]["differing"] = 3.into();
        let r: Report = serde_json::from_value(v).unwrap();
        assert_eq!(
            r.failed_check(),
            None,
            "no verdict, no failed check: the signal sets the exit status"
        );
        let out = all_views(&r);
        assert!(out.contains("interrupted"), "{out}");
        assert!(out.contains("KEPT in /tmp/") && out.contains("iolab capacity --restore"), "{out}");
        assert!(out.contains(",interrupted,4294967296,,,"), "{out}");
    }

    #[test]
    fn the_html_section_says_the_verdict_and_the_facts() {
        let r = report("fake");
        let html = Html.export(Document::Run(&r, None)).unwrap();
        assert!(html.contains("<section class=\"capacity\" id=\"run-1-capacity\">"), "{html}");
        assert!(
            html.contains("<p class=\"alert capacity-verdict\">FAKE: announces 4.00 GiB"),
            "{html}"
        );
        assert!(html.contains("<dt>Safe partition</dt><dd>1023M (1072693248 bytes) from 1 MiB, MBR (dos) table</dd>"));
        let g = report("genuine");
        let html = Html.export(Document::Run(&g, None)).unwrap();
        assert!(html.contains("<p class=\"capacity-verdict\">genuine: "), "{html}");
    }
}
