//! `iolab capacity` in every format: the terminal table, Markdown and CSV
//! (the HTML section is `html/capacity.rs`). One list of facts,
//! [`facts`], feeds the table, Markdown and HTML. Formats only.

use super::Style;
use super::compare::csv_field;
use crate::summary::Report;
use crate::summary::capacity::{CapacityReport, CapacityVerdict};
use crate::units::{fmt_bs, fmt_bytes};

/// "1.00 GiB (1073741824 bytes)".
fn exact(b: u64) -> String {
    format!("{} ({b} bytes)", fmt_bytes(b))
}

/// The verdict's one word for tables.
pub fn verdict_name(c: &CapacityReport) -> &'static str {
    c.verdict.as_ref().map(CapacityVerdict::name).unwrap_or("interrupted")
}

/// The facts of a capacity run, in order, as (name, value) text.
pub fn facts(r: &Report, c: &CapacityReport) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = Vec::new();
    v.push(("Verdict", verdict_name(c).to_string()));
    v.push(("Device", r.target.path.clone()));
    if let Some(id) = &c.device {
        v.push(("Identity", id.clone()));
    }
    v.push(("Announced size", exact(c.announced_bytes)));
    match &c.verdict {
        Some(CapacityVerdict::Fake {
            real_bytes,
            first_bad_byte,
            safe_partition_bytes,
            alias_distance,
        }) => {
            v.push(("Real size (at least)", exact(*real_bytes)));
            v.push(("First bad byte", exact(*first_bad_byte)));
            v.push((
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
                v.push(("Wraps every", exact(*d)));
            }
        }
        Some(CapacityVerdict::Genuine) => v.push(("Real size", exact(c.announced_bytes))),
        _ => {}
    }
    if let Some(e) = &c.earlier_verify {
        v.push(("Earlier verify", format!("run {} ({}): {}", e.run_id, e.started_at, e.message)));
    }
    v.push((
        "Granularity",
        format!(
            "{}{}",
            fmt_bs(c.probe.as_ref().map(|p| p.granularity).unwrap_or(c.granularity)),
            c.probe
                .as_ref()
                .map(|p| format!(" (a wrap at any multiple of {} shows)", fmt_bs(p.unit)))
                .unwrap_or_default()
        ),
    ));
    if let Some(p) = &c.probe {
        v.push((
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
    v.push((
        "Bytes written",
        format!(
            "{} (probe {}, restore {})",
            fmt_bytes(c.bytes_written),
            fmt_bytes(c.probe_bytes_written),
            fmt_bytes(c.restore_bytes_written)
        ),
    ));
    v.push(("Bytes read", fmt_bytes(c.bytes_read)));
    v.push(("Time", format!("probe {:.2} s, restore {:.2} s", c.probe_s, c.restore_s)));
    v.push((
        "I/O",
        if c.direct {
            "O_DIRECT (past the page cache), fdatasync after each round's writes".to_string()
        } else {
            "BUFFERED (O_DIRECT refused): page cache dropped before each round's reads".to_string()
        },
    ));
    v.push((
        "Device data",
        match &c.backup {
            None => "overwritten (--allow-destroy)".to_string(),
            Some(b)
                if !b.kept && b.unreadable + b.differing_beyond + b.differing + b.restore_write_errors == 0 && b.blocks == b.verified =>
            {
                format!(
                    "{} block(s) saved, written back and read back as saved (backup file removed)",
                    b.blocks
                )
            }
            Some(b) => {
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
        },
    ));
    v.push((
        "Errors",
        if c.read_errors + c.write_errors == 0 {
            "none".to_string()
        } else {
            let first = |o: Option<u64>| o.map(|o| format!(" (first at {})", exact(o))).unwrap_or_default();
            format!(
                "{} read error(s){}, {} write error(s){}",
                c.read_errors,
                first(c.first_read_error),
                c.write_errors,
                first(c.first_write_error)
            )
        },
    ));
    if let Some(cf) = &c.confirmation {
        let unstable = cf.unstable();
        v.push((
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

/// The terminal view: the verdict's sentence, then the facts.
pub fn table(r: &Report, c: &CapacityReport, st: Style) -> String {
    let mut s = format!("Capacity probe of {}\n", r.target.path);
    s.push_str(&if c.failed() { st.paint(&c.message) } else { c.message.clone() });
    s.push('\n');
    let mut t = super::text_table();
    for (k, v) in facts(r, c) {
        t.add_row(vec![k.to_string(), v]);
    }
    s.push_str(&format!("{t}\n"));
    if r.interrupted {
        s.push_str("interrupted: the probe did not finish\n");
    }
    s
}

/// The Markdown view: the sentence, then a two-column table.
pub fn markdown(r: &Report, c: &CapacityReport) -> String {
    use super::compare::md_cell;
    let mut s = format!("**{}**\n\n| | |\n|---|---|\n", md_cell(&c.message));
    for (k, v) in facts(r, c) {
        s.push_str(&format!("| {} | {} |\n", md_cell(k), md_cell(&v)));
    }
    s
}

/// The CSV view: one header row, one row of raw figures (bytes, seconds).
pub fn csv(r: &Report, c: &CapacityReport) -> String {
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
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
    let header = [
        "device",
        "identity",
        "verdict",
        "announced_bytes",
        "real_bytes",
        "first_bad_byte",
        "safe_partition_bytes",
        "alias_distance",
        "granularity",
        "rounds",
        "bytes_written",
        "probe_bytes_written",
        "restore_bytes_written",
        "bytes_read",
        "probe_s",
        "restore_s",
        "direct",
        "destructive",
        "read_errors",
        "write_errors",
        "earlier_verify_run",
        "message",
    ];
    let row = [
        r.target.path.clone(),
        c.device.clone().unwrap_or_default(),
        verdict_name(c).to_lowercase(),
        c.announced_bytes.to_string(),
        opt(real),
        opt(bad),
        opt(safe),
        opt(alias),
        c.probe.as_ref().map(|p| p.granularity).unwrap_or(c.granularity).to_string(),
        opt(c.probe.as_ref().map(|p| p.rounds as u64)),
        c.bytes_written.to_string(),
        c.probe_bytes_written.to_string(),
        c.restore_bytes_written.to_string(),
        c.bytes_read.to_string(),
        c.probe_s.to_string(),
        c.restore_s.to_string(),
        c.direct.to_string(),
        c.destructive.to_string(),
        c.read_errors.to_string(),
        c.write_errors.to_string(),
        opt(c.earlier_verify.as_ref().map(|e| e.run_id as u64)),
        c.message.clone(),
    ];
    let mut s = header.join(",");
    s.push_str("\r\n");
    s.push_str(&row.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(","));
    s.push_str("\r\n");
    s
}

#[cfg(test)]
mod tests {
    use crate::render::{Csv, Document, Exporter, Html, Json, Markdown, Text};
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
        let d = Document::Run(r, None);
        format!(
            "{}--- markdown\n{}--- csv\n{}",
            Text::default().export(d).unwrap(),
            Markdown(crate::units::BwUnit::Mb).export(d).unwrap(),
            Csv.export(d).unwrap()
        )
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
        insta::assert_snapshot!(all_views(&r));
    }

    #[test]
    fn a_genuine_device_in_every_format() {
        let r = report("genuine");
        assert_eq!(r.failed_check(), None);
        insta::assert_snapshot!(all_views(&r));
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
