//! Tests of merging fio's sections back into tests: synthetic reports, and
//! a real fio 3.33 run of an iolab plan (2 tests × 2 runs).

use super::*;
use crate::summary::tests::fixtures::{J, MB, report};
use crate::summary::{DirReport, median};
use serde_json::Value;

fn job<'a>(r: &'a Report, name: &str) -> &'a JobReport {
    r.jobs().iter().find(|j| j.name == name).unwrap_or_else(|| panic!("no job {name}"))
}

fn json(j: &JobReport) -> Value {
    serde_json::to_value(j).unwrap()
}

/// The median of a figure over the directions given.
fn med(dirs: &[&DirReport], f: fn(&DirReport) -> f64) -> f64 {
    median(&dirs.iter().map(|d| f(d)).collect::<Vec<_>>())
}

#[test]
fn section_names_read_back() {
    for (test, k) in [("SEQ1M Q8T1 read", 1), ("RND4K Q32T16 read", 12), ("a@2", 3), ("7", 7)] {
        assert_eq!(section_of(&section_name(test, k)), Some((test, k)), "{test} {k}");
    }
    for name in ["SEQ1M Q8T1 read", "x@0", "x@01", "@1", "", "RND4K Q32T1"] {
        assert_eq!(section_of(name), None, "{name}");
    }
}

#[test]
fn sections_merge_in_run_order_with_medians_and_spread() {
    let r = report(
        "h1",
        None,
        &[
            J::read("SEQ1M Q8T1 read@2", &[300.0 * MB]),
            J::read("plain", &[50.0 * MB, 60.0 * MB]),
            J::read("SEQ1M Q8T1 read@1", &[100.0 * MB]),
            J::new("RND4K Q4T1 mix@1", "randrw", &[1000.0], &[400.0]),
            J::read("SEQ1M Q8T1 read@3", &[200.0 * MB]),
            J::new("RND4K Q4T1 mix@2", "randrw", &[1100.0], &[420.0]),
        ],
    );
    let plain = json(job(&r, "plain"));
    let m = merge_fio_sections(r);
    let names: Vec<&str> = m.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(
        names,
        ["SEQ1M Q8T1 read", "plain", "RND4K Q4T1 mix"],
        "a test takes its first section's place"
    );
    assert_eq!(m.settings.runs, 3, "the most runs of a test");
    assert_eq!(json(job(&m, "plain")), plain, "a job that is no section passes unchanged");

    let seq = job(&m, "SEQ1M Q8T1 read");
    let bw: Vec<f64> = seq.runs.iter().map(|r| r.read.as_ref().unwrap().bw_bytes).collect();
    assert_eq!(bw, [100.0 * MB, 300.0 * MB, 200.0 * MB], "runs in k order");
    let read = seq.read.as_ref().unwrap();
    assert_eq!(read.bw_bytes, 200.0 * MB);
    assert_eq!((read.bw_min, read.bw_max), (Some(100.0 * MB), Some(300.0 * MB)));
    assert!((read.bw_cv.unwrap() - 0.5).abs() < 1e-9);
    let runs: Vec<&DirReport> = seq.runs.iter().map(|r| r.read.as_ref().unwrap()).collect();
    assert_eq!(read.iops, med(&runs, |d| d.iops));
    assert_eq!(
        read.lat_ns.as_ref().unwrap().p99,
        runs[2].lat_ns.as_ref().unwrap().p99,
        "the median run's p99 (200 MB/s)"
    );
    assert_eq!(seq.cpu.usr_pct, 2.0, "the median run's CPU");
    assert!(seq.write.is_none());
    assert_eq!((seq.rw.as_str(), seq.bs, seq.qd), ("read", 1 << 20, 8));
    // A CV of 50% is judged as for iolab's own jobs.
    assert_eq!(seq.warning_codes(), ["high_cv"]);
    assert_eq!(
        seq.warnings[0].message,
        "read bandwidth varied 50% between runs: use more --runs or a longer --duration"
    );

    let mix = job(&m, "RND4K Q4T1 mix");
    assert_eq!(mix.runs.len(), 2);
    assert_eq!(mix.read.as_ref().unwrap().iops, 1050.0);
    assert_eq!(mix.write.as_ref().unwrap().iops, 410.0);
    assert_eq!(mix.mix_read, Some(70));
    assert!(mix.warnings.is_empty(), "{:?}", mix.warnings);
}

#[test]
fn warnings_are_united_once_each_and_the_spread_judged_again() {
    let r = report(
        "h1",
        None,
        &[
            J::read("T@1", &[100.0 * MB])
                .warn("fio_cpu_per_thread", "CPU 1%")
                .warn("buffered", "buffered I/O")
                .warn("high_cv", "stale"),
            J::read("T@2", &[101.0 * MB])
                .warn("buffered", "buffered I/O")
                .warn("fio_cpu_per_thread", "CPU 2%"),
        ],
    );
    let m = merge_fio_sections(r);
    let t = job(&m, "T");
    let w: Vec<(&str, &str)> = t.warnings.iter().map(|w| (w.code.as_str(), w.message.as_str())).collect();
    assert_eq!(
        w,
        [("fio_cpu_per_thread", "CPU 1%"), ("buffered", "buffered I/O")],
        "a section's high_cv is judged again on the merged runs (1% here: none); fio's CPU note once per test"
    );
}

#[test]
fn repeated_run_numbers_and_plain_reports_pass_unchanged() {
    let r = report(
        "h1",
        None,
        &[
            J::read("T@1", &[100.0 * MB]),
            J::read("T@1", &[200.0 * MB]),
            J::read("U@1", &[5.0 * MB]),
        ],
    );
    let m = merge_fio_sections(r);
    let names: Vec<&str> = m.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["T@1", "T@1", "U"], "T's sections are not one plan's; U is a one-run test");
    assert_eq!(m.settings.runs, 1);

    let r = report("h1", None, &[J::read("SEQ1M Q8T1 read", &[1.0, 2.0, 3.0])]);
    let before = serde_json::to_value(&r).unwrap();
    let mut m = merge_fio_sections(r);
    assert_eq!(serde_json::to_value(&m).unwrap(), before);
    m.settings.runs = 7;
    assert_eq!(merge_fio_sections(m).settings.runs, 7, "unchanged when nothing merges");
}

/// fio 3.33 ran iolab's plan (`iolab run --suite` of a sequential read and
/// a random 70/30 mix, 2 runs each, 500 ms, 16 MiB in /dev/shm):
/// tests/fixtures/fio/sections-2x2.{fio,json}. fio reads `#` in a job file
/// as the start of a comment, so the fixture's sections are spelled
/// `NAME@k`; here they are named as the plan names them.
fn real_fio() -> (Report, Vec<Value>) {
    let path = format!("{}/tests/fixtures/fio/sections-2x2.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    let mut r = crate::import::parse_fio_json(&text).unwrap();
    let Body::Jobs(jobs) = &mut r.body else { panic!("fio gives jobs") };
    for j in jobs.iter_mut() {
        let (test, k) = j.name.rsplit_once('@').expect("NAME@k");
        j.name = section_name(test, k.parse().unwrap());
    }
    let raw: Value = serde_json::from_str(&text).unwrap();
    (r, raw["jobs"].as_array().unwrap().clone())
}

#[test]
fn a_real_fio_run_merges_into_the_plans_tests() {
    let (r, raw) = real_fio();
    assert_eq!(r.jobs().len(), 4);
    let m = merge_fio_sections(r.clone());
    let names: Vec<&str> = m.jobs().iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["SEQ1M Q8T1 read", "RND4K Q4T1 mix"]);
    assert_eq!(m.settings.runs, 2);

    // Each test's figures are the medians of its sections' figures, as fio printed them.
    let fio = |i: usize, d: &str, k: &str| raw[i][d][k].as_f64().unwrap();
    for (t, first, dirs) in [(0, 0, &["read"][..]), (1, 2, &["read", "write"][..])] {
        let job = &m.jobs()[t];
        assert_eq!(job.runs.len(), 2);
        for d in dirs {
            let merged = if *d == "read" { job.read.as_ref() } else { job.write.as_ref() }.unwrap();
            let bw = [fio(first, d, "bw_bytes"), fio(first + 1, d, "bw_bytes")];
            let iops = [fio(first, d, "iops"), fio(first + 1, d, "iops")];
            assert_eq!(merged.bw_bytes, median(&bw), "{} {d}", job.name);
            assert_eq!(merged.iops, median(&iops), "{} {d}", job.name);
            assert_eq!(merged.bw_min, Some(bw[0].min(bw[1])));
            assert_eq!(merged.bw_max, Some(bw[0].max(bw[1])));
            assert_eq!(merged.bw_cv, Some(crate::judge::stats::cv(&bw)));
            let ios = [fio(first, d, "total_ios"), fio(first + 1, d, "total_ios")];
            assert_eq!(merged.ios, median(&ios).round() as u64);
            // The runs are the sections, in order.
            for (run, bw) in job.runs.iter().zip(bw) {
                let run = if *d == "read" { run.read.as_ref() } else { run.write.as_ref() };
                assert_eq!(run.unwrap().bw_bytes, bw);
            }
        }
        // The other fields are the first section's.
        let section = &r.jobs()[first];
        assert_eq!(
            (
                job.rw.as_str(),
                job.bs,
                job.qd,
                job.threads,
                job.mix_read,
                job.direct,
                job.engine.as_str()
            ),
            (
                section.rw.as_str(),
                section.bs,
                section.qd,
                section.threads,
                section.mix_read,
                section.direct,
                section.engine.as_str()
            )
        );
        // Warnings: every section's, each once (fio's CPU note, which quotes
        // each section's figures, once per test).
        for w in r.jobs()[first..first + 2].iter().flat_map(|s| &s.warnings) {
            let same = |x: &&crate::judge::Diagnostic| x.code == w.code && (x.code == "fio_cpu_per_thread" || x.message == w.message);
            assert_eq!(
                job.warnings.iter().filter(same).count(),
                1,
                "{} [{}] {}",
                job.name,
                w.code,
                w.message
            );
        }
        assert!(!job.warning_codes().contains(&"high_cv"), "runs within 10%");
    }
    let seq = &m.jobs()[0];
    assert_eq!(
        (seq.rw.as_str(), seq.bs, seq.qd, seq.engine.as_str()),
        ("read", 1 << 20, 8, "io_uring")
    );
    assert!(seq.write.is_none());
    let mix = &m.jobs()[1];
    assert_eq!((mix.rw.as_str(), mix.bs, mix.qd, mix.mix_read), ("randrw", 4096, 4, Some(70)));
}
