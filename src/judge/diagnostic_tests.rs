//! Tests of the codes, severities and the three JSON shapes.

use super::*;
use serde_json::{Value, json};

#[test]
fn every_code_round_trips_through_its_string() {
    let mut seen = std::collections::HashSet::new();
    for c in Code::ALL {
        assert!(seen.insert(c.as_str()), "{c} twice");
        assert_eq!(&Code::parse(c.as_str()), c);
        assert_eq!(serde_json::to_value(c).unwrap(), Value::String(c.as_str().into()));
    }
    assert_eq!(Code::CacheAnswered.as_str(), "cache_answered");
    assert_eq!(Code::UsbNoUas.as_str(), "usb-no-uas");
    assert_eq!(Code::BiggestWin.as_str(), "biggest_win");
    assert_eq!(Code::CacheAnswered, "cache_answered");
}

#[test]
fn unknown_codes_are_kept_not_refused() {
    let c: Code = serde_json::from_value(json!("from_the_future")).unwrap();
    assert_eq!(c, Code::Other("from_the_future".into()));
    assert_eq!(c.to_string(), "from_the_future");
    assert_eq!(c.severity(), Severity::Warning);
    assert_eq!(c.untrustworthy(), None);
}

/// The codes that make a figure untrustworthy, their order and reasons are
/// those comparison findings have always named (`other_device` since 0.2).
#[test]
fn untrustworthy_codes_in_order_with_their_reasons() {
    let listed: Vec<(&str, String)> = Code::ALL
        .iter()
        .filter_map(|c| c.untrustworthy().map(|why| (c.as_str(), why)))
        .collect();
    let expected = [
        ("cache_answered", "a cache answered instead of the device"),
        ("other_device", "the I/O went to another device than the one the figures name"),
        ("buffered_fallback", "O_DIRECT was refused, so the page cache was in the path"),
        ("no_block_device", "no block device serves the target: memory or cache speed"),
        ("memory_device", "the device is memory-backed: memory speed"),
        ("high_cv", "the runs varied by more than 10%"),
        ("cpu_bound", "iolab's CPU, not the device, may have been the limit"),
        ("io_errors", "some of its I/O failed: the figures count only the I/O that succeeded"),
    ];
    assert_eq!(listed, expected.iter().map(|(c, w)| (*c, w.to_string())).collect::<Vec<_>>());
    for c in Code::ALL {
        if c.untrustworthy().is_some() {
            assert_eq!(c.severity(), Severity::Untrustworthy, "{c}");
        }
    }
}

#[test]
fn severities_order_and_read_leniently() {
    assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Untrustworthy);
    let d: Diagnostic = serde_json::from_value(json!({"code": "psync_threads", "message": "m", "severity": "dire"})).unwrap();
    assert_eq!(d.severity, Severity::Info, "an unknown severity falls back to the code's");
    let d: Diagnostic = serde_json::from_value(json!({"code": "psync_threads", "message": "m", "severity": "untrustworthy"})).unwrap();
    assert_eq!(d.severity, Severity::Untrustworthy, "a stated severity wins");
}

/// A severity other than the code's default is written, and read back.
#[test]
fn only_a_severity_other_than_the_default_is_written() {
    let mut d = Diagnostic::new(Code::PsyncThreads, "m");
    assert!(serde_json::to_value(&d).unwrap().get("severity").is_none());
    d.severity = Severity::Warning;
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["severity"], "warning");
    assert_eq!(serde_json::from_value::<Diagnostic>(v).unwrap(), d);
}

#[test]
fn warning_shape_is_unchanged_and_reads_old_documents() {
    let old = json!({"code": "cache_answered", "message": "loop9 saw only 10%"});
    let d: Diagnostic = serde_json::from_value(old.clone()).unwrap();
    assert_eq!(d, Diagnostic::new(Code::CacheAnswered, "loop9 saw only 10%"));
    assert_eq!(d.severity, Severity::Untrustworthy);
    assert_eq!(serde_json::to_value(&d).unwrap(), old, "written exactly as before");
    let unknown = json!({"code": "from_the_future", "message": "m"});
    let d: Diagnostic = serde_json::from_value(unknown.clone()).unwrap();
    assert_eq!(d.code, Code::Other("from_the_future".into()));
    assert_eq!(serde_json::to_value(&d).unwrap(), unknown);
    let about = Diagnostic::new(Code::Outliers, "m").about("clone");
    assert_eq!(serde_json::to_value(&about).unwrap()["subject"], "clone");
    let back: Diagnostic = serde_json::from_value(serde_json::to_value(&about).unwrap()).unwrap();
    assert_eq!(back, about);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Hints {
    #[serde(with = "hint_shape")]
    hints: Vec<Diagnostic>,
}

#[test]
fn hint_shape_keeps_code_subject_text() {
    let old = json!({"hints": [{"code": "usb-no-uas", "subject": "sdc", "text": "one command at a time"}]});
    let h: Hints = serde_json::from_value(old.clone()).unwrap();
    assert_eq!(h.hints, [Diagnostic::new(Code::UsbNoUas, "one command at a time").about("sdc")]);
    assert_eq!(serde_json::to_value(&h).unwrap(), old);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Findings {
    #[serde(with = "finding_shape")]
    findings: Vec<Diagnostic>,
}

#[test]
fn finding_shape_keeps_rule_run_test_text() {
    let f = Findings {
        findings: vec![
            Diagnostic::new(Code::BiggestWin, "Biggest win").about("S1 read").on_run(Some(2)),
            Diagnostic::new(Code::NoCommonTests, "nothing"),
        ],
    };
    let v = serde_json::to_value(&f).unwrap();
    assert_eq!(
        v,
        json!({"findings": [
            {"rule": "biggest_win", "run": 2, "test": "S1 read", "text": "Biggest win"},
            {"rule": "no_common_tests", "run": null, "test": null, "text": "nothing"},
        ]})
    );
    assert_eq!(serde_json::from_value::<Findings>(v).unwrap(), f);
}
