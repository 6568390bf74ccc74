//! Issue 36: labels, job names, host names and warnings that iolab did not
//! write (an imported document, a fio server) reach no human format with a
//! control character, a Markdown tag or a CSV formula.

use super::tests::{edited, report};
use super::{Csv, Document, Exporter, Markdown, Text, warning_lines};
use crate::base::units::BwUnit;
use crate::compare::{RunRef, compare};
use crate::store::RunSummary;
use proptest::prelude::*;
use serde_json::json;

/// Text with what a hostile name would carry: escape and OSC sequences,
/// carriage returns, C1 controls, DEL, bidi overrides, tags and formulas.
fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\x1b[2J".to_string()),
        Just("\x1b]8;;http://x\x07link\x1b]8;;\x07".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\t".to_string()),
        Just("\u{9b}31m".to_string()),
        Just("\u{7f}".to_string()),
        Just("\u{202e}".to_string()),
        Just("<script>".to_string()),
        Just("=cmd|' /C calc'!A0".to_string()),
        Just("+1".to_string()),
        Just("-2+3".to_string()),
        Just("@SUM(1)".to_string()),
        Just("|".to_string()),
        "[a-z ]{0,6}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(piece, 1..6).prop_map(|v| v.concat())
}

/// A report whose every outside string is `s`: job names, warnings, host, target.
fn hostile_report(name: &str, s: &str) -> crate::summary::Report {
    edited(name, |v| {
        v["host"]["hostname"] = json!(s);
        v["target"]["path"] = json!(s);
        for (i, j) in v["jobs"].as_array_mut().unwrap().iter_mut().enumerate() {
            j["name"] = json!(format!("{s}{i}"));
            j["warnings"] = json!([{ "code": s, "message": s }]);
        }
    })
}

/// A character no human format may print: a control (but the line ends
/// each format writes itself), DEL, C1, a bidi override.
fn unsafe_in(out: &str, line_end: &str) -> Option<char> {
    out.replace(line_end, "")
        .chars()
        .find(|&c| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
}

/// The fields of CSV text (RFC 4180: quoted fields, `""` a quote).
fn csv_fields(text: &str) -> Vec<String> {
    let (mut fields, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',' | '\n', false) => fields.push(std::mem::take(&mut cur)),
            ('\r', false) => {}
            (c, _) => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

fn check(what: &str, out: &str, line_end: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        unsafe_in(out, line_end).is_none(),
        "{what}: {:?} in {out:?}",
        unsafe_in(out, line_end)
    );
    Ok(())
}

proptest! {
    #[test]
    fn no_human_format_prints_a_hostile_name_raw(s in hostile()) {
        let (a, b) = (hostile_report("demo", &s), hostile_report("demoB", &s));
        let summary = RunSummary {
            id: 1,
            label: Some(s.clone()),
            tags: vec![(s.clone(), s.clone())],
            started_at: s.clone(),
            kind: "run".into(),
            target: s.clone(),
            complete: true,
        };
        let runs = [summary.clone()];
        let refs = [(&a, 1), (&b, 2)].map(|(r, id)| RunRef {
            id,
            label: Some(s.clone()),
            price: None,
            capacity_bytes: None,
            report: r.clone(),
            built: None,
            power_cut: None,
        });
        let c = compare(&refs, 1).unwrap();
        let hosts = crate::summary::hosts::hosts_report(&[
            (s.clone(), Some(&a), None),
            (format!("{s}2"), None, Some(s.clone())),
        ]);
        let docs = [
            Document::Run(&a, Some(&summary)),
            Document::Runs(&runs),
            Document::Comparison(&c),
            Document::Hosts(&hosts),
        ];
        for doc in docs {
            let name = doc.name();
            check(name, &Text::default().export(doc).unwrap(), "\n")?;
            let md = Markdown(BwUnit::Mb).export(doc).unwrap();
            check(name, &md, "\n")?;
            // Outside code spans (which Markdown shows as they are).
            let prose: String = md.split('`').step_by(2).collect();
            prop_assert!(!prose.contains(['<', '>']), "{name}: a tag in Markdown: {md}");
            if let Some(csv) = Csv.export(doc) {
                check(name, &csv, "\r\n")?;
                for f in csv_fields(&csv) {
                    let formula = f.trim_start().starts_with(['=', '+', '-', '@']) && f.trim().parse::<f64>().is_err();
                    prop_assert!(!formula, "{name}: a formula in CSV: {f:?}");
                }
            }
        }
        check("warning lines", &warning_lines(&a).join("\n"), "\n")?;
    }
}

/// The fixtures' own text is unchanged by the cleaning (no control
/// character in it to replace).
#[test]
fn iolab_s_own_text_passes_unchanged() {
    let r = report("mix");
    let text = Text::default().export(Document::Run(&r, None)).unwrap();
    assert_eq!(super::clean::terminal(&text.replace('\n', " ")), text.replace('\n', " "));
}
