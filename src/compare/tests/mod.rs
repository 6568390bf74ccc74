//! End-to-end tests of the engine and its renderers on synthetic reports.

pub(crate) mod fixtures;
mod layouts;

use super::*;
use crate::base::units::BwUnit;
use crate::render::{Csv, Document, Exporter, Markdown, Style, Text};
use fixtures::{J, rand, report, run, seq};

/// The comparison in the terminal, Markdown and CSV, as `iolab compare` prints it.
fn render_table(c: &Comparison, units: BwUnit) -> String {
    Text(Style { units, color: false }).export(Document::Comparison(c)).unwrap()
}

fn render_markdown(c: &Comparison, units: BwUnit) -> String {
    Markdown(units).export(Document::Comparison(c)).unwrap()
}

fn render_csv(c: &Comparison) -> String {
    Csv.export(Document::Comparison(c)).unwrap()
}

fn two_x() -> Vec<RunRef> {
    vec![
        run(
            1,
            "WD Blue",
            vec![
                seq("SEQ1M Q8T1 read", &[100.0, 110.0, 90.0]),
                rand("RND4K Q1T1 read", &[1000.0, 1010.0, 990.0]),
            ],
        ),
        run(
            2,
            "Samsung 990",
            vec![
                seq("SEQ1M Q8T1 read", &[200.0, 220.0, 180.0]),
                rand("RND4K Q1T1 read", &[1005.0, 995.0, 1002.0]),
            ],
        ),
    ]
}

#[test]
fn a_known_2x_difference_is_a_win() {
    let c = compare(&two_x(), 1).unwrap();
    assert_eq!(c.baseline, 1);
    assert_eq!(c.tests.len(), 2);
    let t = &c.tests[0];
    assert_eq!(t.test, "SEQ1M Q8T1 read");
    assert_eq!(t.unit, Unit::BytesPerSec);
    assert_eq!(t.values, vec![100e6, 200e6]);
    assert_eq!(t.ratios, vec![Some(1.0), Some(2.0)]);
    assert_eq!(t.within_noise, vec![Some(true), Some(false)]);
    assert_eq!(t.ci[0], None);
    let [lo, hi] = t.ci[1].unwrap();
    assert!(lo > 1.0 && hi > lo, "{lo}..{hi}");
    assert_eq!(c.tests[1].unit, Unit::Iops);
    let win = c.findings.iter().find(|f| f.code == "biggest_win").expect("a win");
    assert_eq!(
        win.message,
        "Biggest win: Samsung 990 on SEQ1M Q8T1 read, 2.0x faster than WD Blue (200.0 MB/s vs 100.0 MB/s)."
    );
    assert!(!c.findings.iter().any(|f| f.code == "biggest_loss"));
}

#[test]
fn a_difference_inside_the_noise_is_no_win() {
    let c = compare(&two_x(), 1).unwrap();
    let t = &c.tests[1]; // IOPS [1000,1010,990] vs [1005,995,1002]
    assert_eq!(t.within_noise[1], Some(true));
    assert!((t.ratios[1].unwrap() - 1.002).abs() < 1e-9);
    // No win or loss on it; only the cache rule speaks about it, to say no.
    for f in c.findings.iter().filter(|f| f.subject.as_deref() == Some("RND4K Q1T1 read")) {
        assert_eq!(f.code, "cache_candidate");
        assert!(f.message.contains("is not worth it"), "{}", f.message);
    }

    let runs = vec![
        run(1, "A", vec![seq("S read", &[100.0, 110.0, 90.0])]),
        run(2, "B", vec![seq("S read", &[105.0, 95.0, 102.0])]),
    ];
    let c = compare(&runs, 1).unwrap();
    assert_eq!(c.tests[0].within_noise, vec![Some(true), Some(true)]);
    assert!(!c.findings.iter().any(|f| f.code == "biggest_win" || f.code == "biggest_loss"));
    assert!(c.findings.iter().any(|f| f.code == "all_within_noise"));
    assert!(render_table(&c, crate::base::units::BwUnit::Mb).contains("≈ +2% (noise)"));
}

#[test]
fn three_runs_and_another_baseline() {
    let mut runs = two_x();
    runs.push(run(
        3,
        "",
        vec![
            seq("SEQ1M Q8T1 read", &[50.0, 51.0, 49.0]),
            rand("RND4K Q1T1 read", &[500.0, 505.0, 495.0]),
        ],
    ));
    let c = compare(&runs, 2).unwrap();
    let t = &c.tests[0];
    assert_eq!(t.ratios, vec![Some(0.5), Some(1.0), Some(0.25)]);
    assert_eq!(t.within_noise, vec![Some(false), Some(true), Some(false)]);
    assert_eq!(c.runs[2].name(), "run 3");
    let loss = c.findings.iter().find(|f| f.code == "biggest_loss").unwrap();
    assert_eq!(loss.run, Some(3));
    assert!(loss.message.contains("75% slower than Samsung 990"), "{}", loss.message);
}

#[test]
fn single_run_sides_have_unknown_noise() {
    let runs = vec![
        run(1, "A", vec![seq("S read", &[100.0])]),
        run(2, "B", vec![seq("S read", &[200.0, 201.0, 199.0])]),
    ];
    let c = compare(&runs, 1).unwrap();
    let t = &c.tests[0];
    assert_eq!(t.ratios[1], Some(2.0));
    assert_eq!(t.within_noise[1], None);
    assert_eq!(t.ci[1], None);
    assert_eq!(t.measured_runs, vec![1, 3]);
    assert!(!c.findings.iter().any(|f| f.code == "biggest_win"));
    let u = c.findings.iter().find(|f| f.code == "noise_unknown").unwrap();
    assert!(u.message.contains("noise unknown on 1 test"), "{}", u.message);
    assert!(render_table(&c, crate::base::units::BwUnit::Mb).contains("2.00x (?)"));
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["tests"][0]["within_noise"], serde_json::json!([true, null]));
}

#[test]
fn tests_in_only_one_run_are_left_out_and_mixed_jobs_split() {
    let runs = vec![
        run(
            1,
            "A",
            vec![
                seq("SEQ1M Q8T1 read", &[100.0, 101.0]),
                seq("SEQ1M Q1T1 read", &[80.0, 81.0]),
                J::mixed("RND4K Q32T1 mix R70/W30", true, &[700.0, 710.0], &[300.0, 310.0]),
            ],
        ),
        run(
            2,
            "B",
            vec![
                J::mixed("RND4K Q32T1 mix R70/W30", true, &[700.0, 710.0], &[300.0, 310.0]),
                seq("SEQ1M Q8T1 read", &[100.0, 101.0]),
                seq("RND4K Q1T1 read", &[80.0, 81.0]),
            ],
        ),
    ];
    let c = compare(&runs, 2).unwrap();
    let names: Vec<&str> = c.tests.iter().map(|t| t.test.as_str()).collect();
    assert_eq!(
        names,
        ["SEQ1M Q8T1 read", "RND4K Q32T1 mix R70/W30 read", "RND4K Q32T1 mix R70/W30 write"]
    );
    assert_eq!(c.tests[2].direction, Direction::Write);
    assert_eq!(c.tests[2].unit, Unit::Iops);
    assert_eq!(c.tests[2].values, vec![305.0, 305.0]);
}

#[test]
fn bad_input_is_refused() {
    let runs = two_x();
    assert!(compare(&runs, 7).unwrap_err().contains("baseline run 7"));
    assert!(compare(&runs[..1], 1).is_err());
    let dup = vec![runs[0].clone(), runs[0].clone()];
    assert!(compare(&dup, 1).unwrap_err().contains("twice"));
}

#[test]
fn csv_has_one_header_and_a_row_per_test_and_run() {
    let mut runs = two_x();
    runs[1].label = Some("Samsung, 990 \"Pro\"".into());
    let c = compare(&runs, 1).unwrap();
    let csv = render_csv(&c);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 2);
    assert!(lines[0].starts_with("test,job,direction,unit,run_id,label,baseline,value,ratio"));
    assert_eq!(lines.iter().filter(|l| l.starts_with("test,")).count(), 1);
    assert!(lines[1].starts_with("SEQ1M Q8T1 read,SEQ1M Q8T1 read,read,bytes/s,1,WD Blue,true,100000000,1,,,true,3,"));
    assert!(lines[2].starts_with("SEQ1M Q8T1 read,SEQ1M Q8T1 read,read,bytes/s,2,\"Samsung, 990 \"\"Pro\"\"\",false,200000000,2,"));
    assert!(lines[2].contains(",false,3,"), "{}", lines[2]);
}

#[test]
fn markdown_is_a_valid_table() {
    let mut runs = two_x();
    runs[0].label = Some("a|b".into());
    let c = compare(&runs, 1).unwrap();
    let md = render_markdown(&c, crate::base::units::BwUnit::Mb);
    let rows: Vec<&str> = md.lines().take_while(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), 2 + c.tests.len());
    let cells = |l: &str| l.replace("\\|", "").matches('|').count() - 1;
    let n = cells(rows[0]);
    assert_eq!(n, 2 + 3 + 2); // test, unit; baseline: value, cpu; other: value, vs, cpu
    assert!(rows.iter().all(|r| cells(r) == n), "{md}");
    assert!(
        rows[1]
            .split('|')
            .filter(|s| !s.is_empty())
            .all(|s| s.trim().trim_matches(':') == "---")
    );
    assert!(rows[0].contains("a\\|b (baseline)"));
    assert!(rows[2].contains("| 2.00x |"), "{md}");
    assert!(md.contains("\n- Biggest win: Samsung 990"));
}

#[test]
fn prices_give_price_per_gb_and_mbs_per_price() {
    let mut runs = two_x();
    runs[0].price = Some(50.0);
    runs[0].capacity_bytes = Some(1_000_000_000_000);
    runs[1].price = Some(200.0);
    runs[1].report = report(
        &[
            seq("SEQ1M Q8T1 read", &[200.0, 220.0, 180.0]),
            rand("RND4K Q1T1 read", &[1005.0, 995.0, 1002.0]),
        ],
        Some(2_000_000_000_000),
    );
    let c = compare(&runs, 1).unwrap();
    assert_eq!(c.runs[0].price_per_gb, Some(0.05));
    assert_eq!(c.runs[1].capacity_bytes, Some(2_000_000_000_000));
    assert_eq!(c.runs[1].price_per_gb, Some(0.1));
    assert_eq!(c.tests[0].mbs_per_price, vec![Some(2.0), Some(1.0)]);
    let table = render_table(&c, crate::base::units::BwUnit::Mb);
    assert!(table.contains("Price per GB"), "{table}");
    assert!(table.contains("0.050") && table.contains("0.100"), "{table}");
    assert!(table.contains("WD Blue $50.00 for 1.00 TB = $0.050/GB"), "{table}");
    let md = render_markdown(&c, crate::base::units::BwUnit::Mb);
    let rows: Vec<&str> = md.lines().take_while(|l| l.starts_with('|')).collect();
    let n = rows[0].matches('|').count();
    assert!(rows.iter().all(|r| r.matches('|').count() == n), "{md}");
    // Without a capacity the price per GB is unknown, not invented from the span.
    runs[0].capacity_bytes = None;
    let c = compare(&runs, 1).unwrap();
    assert_eq!(c.runs[0].price_per_gb, None);
    assert!(render_table(&c, crate::base::units::BwUnit::Mb).contains("capacity unknown"));
}

#[test]
fn json_document_has_the_documented_shape() {
    let c = compare(&two_x(), 1).unwrap();
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["baseline"], 1);
    assert_eq!(v["runs"][1]["id"], 2);
    assert_eq!(v["runs"][1]["label"], "Samsung 990");
    assert_eq!(v["tests"][0]["test"], "SEQ1M Q8T1 read");
    assert_eq!(v["tests"][0]["unit"], "bytes/s");
    assert_eq!(v["tests"][1]["unit"], "IOPS");
    assert_eq!(v["tests"][0]["ratios"], serde_json::json!([1.0, 2.0]));
    assert_eq!(v["tests"][0]["within_noise"], serde_json::json!([true, false]));
    assert!(v["findings"][0]["text"].is_string());
}

#[test]
fn price_list_matches_label_then_serial_then_model() {
    let mut r = report(&[seq("SEQ1M Q8T1 read", &[100.0])], None);
    let mut info: crate::device::DeviceReport =
        serde_json::from_str(&std::fs::read_to_string("tests/fixtures/render/info.json").unwrap()).unwrap();
    info.devices[0].vendor = Some("ATA".into());
    info.devices[0].model = Some("WDC WD10EZEX-08WN4A0".into());
    let (serial, model) = (info.devices[0].serial.clone().unwrap(), "ata wdc wd10ezex-08wn4a0".to_string());
    r.target.info = Some(info);
    let e = |key: &str, price: f64| ListedPrice {
        key: key.into(),
        price,
        capacity_bytes: None,
    };
    let list = [e(&model, 1.0), e(&format!("  {}  ", serial.to_uppercase()), 2.0), e("My Disk", 3.0)];
    assert_eq!(listed_price(&list, Some("my  disk"), &r).unwrap().price, 3.0, "label first");
    assert_eq!(listed_price(&list, Some("other"), &r).unwrap().price, 2.0, "then serial");
    assert_eq!(listed_price(&list[..1], None, &r).unwrap().price, 1.0, "then model");
    assert!(listed_price(&list[2..], None, &r).is_none());
    r.target.info = None;
    assert!(listed_price(&list[..2], None, &r).is_none(), "no devices, no match");
}

/// Figures so far apart that their ratio overflows (found by the schema check
/// of a property test's document: an infinite interval bound went out as
/// `null` where the schema has a number): the ratio and its interval are
/// unknown, never infinite, and the JSON document holds no infinity.
#[test]
fn a_ratio_that_overflows_is_unknown_not_infinite() {
    let runs = vec![
        run(1, "tiny", vec![seq("SEQ1M Q8T1 read", &[1e-300, 2e-300, 1.5e-300])]),
        run(2, "huge", vec![seq("SEQ1M Q8T1 read", &[1e300, 2e300, 1.5e300])]),
    ];
    let c = compare(&runs, 1).unwrap();
    let t = &c.tests[0];
    assert_eq!(t.ratios, vec![Some(1.0), None]);
    assert_eq!(t.ci, vec![None, None]);
    let json = crate::render::Json.export(Document::Comparison(&c)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["tests"][0]["ratios"][1], serde_json::Value::Null, "unknown, as the schema allows");
    assert_eq!(v["tests"][0]["ci"], serde_json::json!([null, null]));
}

#[test]
fn the_baseline_is_found_and_prices_are_noticed() {
    let info = |id: i64, price: Option<f64>| RunInfo {
        id,
        label: None,
        price,
        capacity_bytes: None,
        price_per_gb: None,
        layout: None,
        classes: Vec::new(),
        write_drop: None,
        power_cut: None,
    };
    let mut c = Comparison {
        baseline: 7,
        runs: vec![info(3, None), info(7, None)],
        tests: vec![],
        findings: vec![],
    };
    assert_eq!(c.baseline_index(), 1);
    assert!(!c.has_prices());
    c.runs[0].price = Some(10.0);
    assert!(c.has_prices());
    c.baseline = 99;
    assert_eq!(c.baseline_index(), 0);
}
