//! Findings: plain sentences under the comparison, each from one small rule.
//!
//! A difference counts as a win or a loss only when it is known to be
//! outside the noise (its interval excludes 1.0); differences with unknown
//! noise are reported separately, with that caveat. Each finding is a
//! [`Diagnostic`] whose code is the rule that made it, whose `run` is the
//! run it is about (never the baseline, except for `untrustworthy`) and
//! whose subject is the test it is about, when it is about one.

use super::{Comparison, RunInfo, TestComparison};
use crate::base::thresholds::{CACHE_MIN_GAIN, CPU_NOTABLE, MIN_RUNS_FOR_NOISE};
use crate::base::units::{fmt_ns, fmt_value, signed_diff};
use crate::judge::{Code, Diagnostic};
use crate::summary::Direction;
use crate::summary::median;

/// Every rule, in the order the findings are shown.
pub fn all(c: &Comparison) -> Vec<Diagnostic> {
    let mut f = no_common_tests(c);
    f.extend(direction_summary(c));
    f.extend(biggest(c, true));
    f.extend(biggest(c, false));
    f.extend(all_within_noise(c));
    f.extend(noise_unknown(c));
    f.extend(cpu_cost(c));
    f.extend(cache_candidate(c));
    f.extend(latency_modes_differ(c));
    f.extend(untrustworthy(c));
    f
}

fn base(c: &Comparison) -> (usize, &RunInfo) {
    let b = c.baseline_index();
    (b, &c.runs[b])
}

/// The runs that are not the baseline, with their index.
fn others(c: &Comparison) -> impl Iterator<Item = (usize, &RunInfo)> {
    let b = base(c).0;
    c.runs.iter().enumerate().filter(move |(i, _)| *i != b)
}

/// "21% faster", "50% slower", "2.1x faster".
pub fn words(ratio: f64) -> String {
    if ratio >= 2.0 {
        return format!("{ratio:.1}x faster");
    }
    let pct = (ratio - 1.0).abs() * 100.0;
    let pct = if pct < 1.0 { format!("{pct:.1}%") } else { format!("{pct:.0}%") };
    format!("{pct} {}", if ratio >= 1.0 { "faster" } else { "slower" })
}

fn n_tests(n: usize) -> String {
    if n == 1 { "1 test".into() } else { format!("{n} tests") }
}

/// The codes that make a figure untrustworthy as the device's speed, with
/// why, in the order findings name them.
fn untrustworthy_codes() -> impl Iterator<Item = (&'static Code, String)> {
    Code::ALL.iter().filter_map(|code| code.untrustworthy().map(|why| (code, why)))
}

fn untrusted_codes(t: &TestComparison, i: usize) -> Vec<&'static str> {
    untrustworthy_codes()
        .map(|(code, _)| code.as_str())
        .filter(|code| t.warnings[i].iter().any(|w| w == code))
        .collect()
}

/// A finding made by rule `code` about `run` and, when about one, `test`.
fn finding(code: Code, run: Option<i64>, test: Option<String>, text: impl Into<String>) -> Diagnostic {
    Diagnostic {
        subject: test,
        run,
        ..Diagnostic::new(code, text)
    }
}

/// " Caveat: ..." when either side of a difference carries an untrustworthy warning.
fn caveat(c: &Comparison, t: &TestComparison, i: usize) -> String {
    let (b, _) = base(c);
    let mut parts = Vec::new();
    for k in [i, b] {
        let codes = untrusted_codes(t, k);
        if !codes.is_empty() {
            parts.push(format!("{} carries {} here", c.runs[k].name(), codes.join(", ")));
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" Caveat: {}.", parts.join("; "))
    }
}

/// The runs share no test at all.
pub fn no_common_tests(c: &Comparison) -> Vec<Diagnostic> {
    if !c.tests.is_empty() {
        return Vec::new();
    }
    vec![finding(
        Code::NoCommonTests,
        None,
        None,
        "The runs share no test (same job name and direction): nothing to compare.",
    )]
}

/// Per run: the median ratio of each direction's tests that are outside the
/// noise ("writes 50% slower, reads 21% slower").
pub fn direction_summary(c: &Comparison) -> Vec<Diagnostic> {
    let (_, b) = base(c);
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let mut parts = Vec::new();
        for (d, plural) in [(Direction::Read, "reads"), (Direction::Write, "writes")] {
            let tests: Vec<&TestComparison> = c.tests.iter().filter(|t| t.direction == d).collect();
            if tests.is_empty() {
                continue;
            }
            let outside: Vec<f64> = tests.iter().filter(|t| t.outside_noise(i)).filter_map(|t| t.ratios[i]).collect();
            let known = tests.iter().filter(|t| t.within_noise[i].is_some()).count();
            if outside.is_empty() {
                parts.push(if known > 0 {
                    format!("{plural} within noise")
                } else {
                    format!("{plural} noise unknown (single runs)")
                });
                continue;
            }
            let faster = outside.iter().filter(|x| **x > 1.0).count();
            let slower = outside.len() - faster;
            let m = median(&outside);
            let mut s = if faster > 0 && slower > 0 {
                format!("{plural} mixed ({faster} faster, {slower} slower; median {})", words(m))
            } else {
                format!("{plural} {}", words(m))
            };
            if outside.len() < tests.len() {
                s.push_str(&format!(
                    " ({} of {} tests; the rest within noise{})",
                    outside.len(),
                    tests.len(),
                    if known < tests.len() { " or unknown" } else { "" }
                ));
            }
            parts.push(s);
        }
        if parts.is_empty() {
            continue;
        }
        out.push(finding(
            Code::DirectionSummary,
            Some(r.id),
            None,
            format!("{} vs {}: {}.", r.name(), b.name(), parts.join(", ")),
        ));
    }
    out
}

/// The largest (`win`) or smallest ratio outside the noise, over all tests and runs.
pub fn biggest(c: &Comparison, win: bool) -> Vec<Diagnostic> {
    let (b, base_run) = base(c);
    let mut best: Option<(f64, &TestComparison, usize)> = None;
    for t in &c.tests {
        for (i, _) in others(c) {
            let Some(r) = t.ratios[i] else { continue };
            if !t.outside_noise(i) || (win && r <= 1.0) || (!win && r >= 1.0) {
                continue;
            }
            if best.is_none_or(|(x, _, _)| if win { r > x } else { r < x }) {
                best = Some((r, t, i));
            }
        }
    }
    let Some((r, t, i)) = best else { return Vec::new() };
    let run = &c.runs[i];
    vec![finding(
        if win { Code::BiggestWin } else { Code::BiggestLoss },
        Some(run.id),
        Some(t.test.clone()),
        format!(
            "Biggest {}: {} on {}, {} than {} ({} vs {}).{}",
            if win { "win" } else { "loss" },
            run.name(),
            t.test,
            words(r),
            base_run.name(),
            fmt_value(t.values[i], t.unit),
            fmt_value(t.values[b], t.unit),
            caveat(c, t, i)
        ),
    )]
}

/// Per run: no difference is known to be outside the noise.
pub fn all_within_noise(c: &Comparison) -> Vec<Diagnostic> {
    let (_, b) = base(c);
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let known = c.tests.iter().filter(|t| t.within_noise[i].is_some()).count();
        if known == 0 || c.tests.iter().any(|t| t.outside_noise(i)) {
            continue;
        }
        let unknown = c.tests.len() - known;
        out.push(finding(
            Code::AllWithinNoise,
            Some(r.id),
            None,
            format!(
                "{} and {} differ by no more than the noise on {}{}.",
                r.name(),
                b.name(),
                if unknown == 0 {
                    format!("every test ({known})")
                } else {
                    n_tests(known)
                },
                if unknown > 0 {
                    format!(" ({unknown} more with noise unknown)")
                } else {
                    String::new()
                }
            ),
        ));
    }
    out
}

/// Per run: differences whose noise is unknown (fewer than 2 runs on a side).
pub fn noise_unknown(c: &Comparison) -> Vec<Diagnostic> {
    let (_, b) = base(c);
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let unknown: Vec<(&TestComparison, f64)> = c
            .tests
            .iter()
            .filter(|t| t.within_noise[i].is_none())
            .filter_map(|t| t.ratios[i].map(|x| (t, x)))
            .collect();
        let Some((t, x)) = unknown.iter().copied().max_by(|a, b| a.1.ln().abs().total_cmp(&b.1.ln().abs())) else {
            continue;
        };
        out.push(finding(
            Code::NoiseUnknown,
            Some(r.id),
            (unknown.len() == 1).then(|| t.test.clone()),
            format!(
                "{} vs {}: noise unknown on {} (fewer than {MIN_RUNS_FOR_NOISE} measured runs on a side), so a difference there may not be real (largest: {} on {}); measure with --runs 3 or more.",
                r.name(),
                b.name(),
                n_tests(unknown.len()),
                signed_diff(x),
                t.test
            ),
        ));
    }
    out
}

/// Per run: the median over jobs of its CPU % per 100 MB/s relative to the
/// baseline's, when at least [`CPU_NOTABLE`] apart.
pub fn cpu_cost(c: &Comparison) -> Vec<Diagnostic> {
    let (b, base_run) = base(c);
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let mut jobs: Vec<&str> = Vec::new();
        let mut ratios = Vec::new();
        for t in &c.tests {
            if jobs.contains(&t.job.as_str()) {
                continue; // a mixed job's two tests share one CPU figure
            }
            jobs.push(&t.job);
            if let (Some(x), Some(y)) = (t.cpu_pct_per_100mbs[i], t.cpu_pct_per_100mbs[b])
                && x > 0.0
                && y > 0.0
            {
                ratios.push(x / y);
            }
        }
        if ratios.is_empty() {
            continue;
        }
        let m = median(&ratios);
        let (more, less, factor) = if m >= CPU_NOTABLE {
            (r.name(), base_run.name(), m)
        } else if m <= 1.0 / CPU_NOTABLE {
            (base_run.name(), r.name(), 1.0 / m)
        } else {
            continue;
        };
        out.push(finding(
            Code::CpuCost,
            Some(r.id),
            None,
            format!(
                "{more} uses {factor:.1}x the CPU per MB/s of {less} (median over {} job(s)).",
                ratios.len()
            ),
        ));
    }
    out
}

/// Per run against the baseline (seed 001's question): is the faster of
/// the two worth it as a cache for the slower one? A read cache (L2ARC,
/// bcache) serves small random reads one at a time, so the answer is in the
/// 4K QD1 random read test: at least [`CACHE_MIN_GAIN`] times the IOPS,
/// outside the noise, and a lower p99. A sync-write log (ZFS SLOG) is judged
/// by the 4K QD1 random write latency when the runs have it.
pub fn cache_candidate(c: &Comparison) -> Vec<Diagnostic> {
    let b = base(c).0;
    let probe = |d: Direction| c.tests.iter().find(|t| t.cache_probe && t.direction == d);
    let Some(read) = probe(Direction::Read) else { return Vec::new() };
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let Some(ratio) = read.ratios[i].filter(|r| *r > 0.0) else {
            continue;
        };
        // fast, slow: indices into the runs.
        let (fast, slow, gain) = if ratio >= 1.0 { (i, b, ratio) } else { (b, i, 1.0 / ratio) };
        let (fname, sname) = (&c.runs[fast].name(), &c.runs[slow].name());
        let iops = |k: usize| format!("{:.0}", read.values[k]);
        // Latencies taken in different ways (an upper bound, none) are not compared.
        let p99 = |t: &TestComparison, k: usize| t.p99_ns.get(k).copied().flatten().filter(|_| t.latencies_comparable(fast, slow));
        let lat = |t: &TestComparison| match (p99(t, fast), p99(t, slow)) {
            (Some(f), Some(s)) => format!(", p99 {} vs {}", fmt_ns(f), fmt_ns(s)),
            _ => String::new(),
        };
        let lower_p99 = matches!((p99(read, fast), p99(read, slow)), (Some(f), Some(s)) if f < s);
        let numbers = format!(
            "4K QD1 random reads at {gain:.1}x the IOPS ({} vs {}{})",
            iops(fast),
            iops(slow),
            lat(read)
        );
        // Without comparable latencies the verdict rests on the IOPS alone.
        let latency_known = read.latencies_comparable(fast, slow);
        let mut text = if read.outside_noise(i) && gain >= CACHE_MIN_GAIN && (lower_p99 || !latency_known) {
            format!("As a read cache for {sname} (L2ARC, bcache), {fname} is worth it: {numbers}.")
        } else if read.within_noise[i] == Some(true) {
            format!(
                "As a read cache for {sname}, {fname} is not worth it: its 4K QD1 random reads are no faster outside the noise ({numbers})."
            )
        } else {
            format!(
                "As a read cache for {sname}, {fname} is not worth it: {numbers}; a cache pays from {CACHE_MIN_GAIN:.0}x with a lower p99{}.",
                if read.within_noise[i].is_none() {
                    ", and the noise is unknown"
                } else {
                    ""
                }
            )
        };
        if let Some(w) = probe(Direction::Write)
            && let (Some(f), Some(s)) = (p99(w, fast), p99(w, slow))
        {
            let verdict = if s / f >= CACHE_MIN_GAIN { "would help" } else { "would not help" };
            text.push_str(&format!(
                " As a sync-write log (ZFS SLOG) it {verdict}: 4K QD1 write p99 {} vs {} (iolab flushes once per run, not after every write, so both are lower bounds).",
                fmt_ns(f),
                fmt_ns(s)
            ));
        }
        out.push(finding(Code::CacheCandidate, Some(r.id), Some(read.test.clone()), text));
    }
    out
}

/// Per run against the baseline: the tests whose latencies the two runs
/// took in different ways (each I/O's own, an upper bound from batched
/// reaping, none). An upper bound is not a latency, so no latency finding
/// compares them, and this says so.
pub fn latency_modes_differ(c: &Comparison) -> Vec<Diagnostic> {
    let b = base(c).0;
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let tests: Vec<&TestComparison> = c
            .tests
            .iter()
            .filter(|t| t.latency.get(i) != t.latency.get(b) && !t.latency.is_empty())
            .collect();
        let Some(t) = tests.first() else { continue };
        out.push(finding(
            Code::LatencyModesDiffer,
            Some(r.id),
            None,
            format!(
                "{} took latencies as {} and {} as {} ({}): their latencies are not compared, only bandwidth and IOPS",
                r.name(),
                t.latency[i],
                c.runs[b].name(),
                t.latency[b],
                n_tests(tests.len())
            ),
        ));
    }
    out
}

/// Per run and warning code: the tests whose figures cannot be trusted as the device's speed.
pub fn untrustworthy(c: &Comparison) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, r) in c.runs.iter().enumerate() {
        for (code, why) in untrustworthy_codes() {
            let tests: Vec<&str> = c
                .tests
                .iter()
                .filter(|t| t.warnings[i].iter().any(|w| w == code.as_str()))
                .map(|t| t.test.as_str())
                .collect();
            if tests.is_empty() {
                continue;
            }
            let which = if tests.len() == c.tests.len() && tests.len() > 1 {
                "every test".to_string()
            } else {
                tests.join(", ")
            };
            out.push(finding(
                Code::Untrustworthy,
                Some(r.id),
                (tests.len() == 1).then(|| tests[0].to_string()),
                format!(
                    "{}: {which} carries {code} ({why}); those figures are not trustworthy as the device's speed.",
                    r.name()
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{J, rand, run, seq};
    use super::super::{RunRef, compare};
    use super::*;

    fn cmp(runs: &[RunRef]) -> Comparison {
        compare(runs, runs[0].id).unwrap()
    }

    fn rules<'a>(c: &'a Comparison, rule: &str) -> Vec<&'a Diagnostic> {
        c.findings.iter().filter(|f| f.code == rule).collect()
    }

    #[test]
    fn words_read_naturally() {
        assert_eq!(words(1.21), "21% faster");
        assert_eq!(words(0.5), "50% slower");
        assert_eq!(words(2.1), "2.1x faster");
        assert_eq!(words(1.004), "0.4% faster");
    }

    #[test]
    fn direction_summary_takes_the_median_outside_noise() {
        let a = run(
            1,
            "A",
            vec![
                seq("SEQ1M Q8T1 read", &[1000.0, 1010.0, 990.0]),
                rand("RND4K Q1T1 read", &[100.0, 101.0, 99.0]),
                seq("SEQ1M Q8T1 write", &[800.0, 810.0, 790.0]),
            ],
        );
        let b = run(
            2,
            "B",
            vec![
                seq("SEQ1M Q8T1 read", &[800.0, 810.0, 790.0]),
                rand("RND4K Q1T1 read", &[70.0, 71.0, 69.0]),
                seq("SEQ1M Q8T1 write", &[400.0, 405.0, 395.0]),
            ],
        );
        let c = cmp(&[a, b]);
        let f = rules(&c, "direction_summary");
        assert_eq!(f.len(), 1);
        // read ratios 0.8 and 0.7 -> median 0.75
        assert_eq!(f[0].message, "B vs A: reads 25% slower, writes 50% slower.");
    }

    #[test]
    fn direction_summary_says_within_noise_and_counts_partial() {
        let a = run(
            1,
            "A",
            vec![
                seq("S1 read", &[100.0, 110.0, 90.0]),
                seq("S2 read", &[100.0, 101.0, 99.0]),
                seq("S1 write", &[100.0, 110.0, 90.0]),
            ],
        );
        let b = run(
            2,
            "B",
            vec![
                seq("S1 read", &[105.0, 95.0, 102.0]),
                seq("S2 read", &[150.0, 151.0, 149.0]),
                seq("S1 write", &[105.0, 95.0, 102.0]),
            ],
        );
        let c = cmp(&[a, b]);
        let f = rules(&c, "direction_summary");
        assert_eq!(
            f[0].message,
            "B vs A: reads 50% faster (1 of 2 tests; the rest within noise), writes within noise."
        );
    }

    #[test]
    fn biggest_win_and_loss_skip_noise() {
        let a = run(
            1,
            "A",
            vec![
                seq("S1 read", &[100.0, 110.0, 90.0]),
                seq("S2 read", &[100.0, 101.0, 99.0]),
                seq("S3 read", &[100.0, 101.0, 99.0]),
            ],
        );
        let b = run(
            2,
            "B",
            vec![
                seq("S1 read", &[300.0, 30.0, 100.0]), // huge ratio spread: noise
                seq("S2 read", &[130.0, 131.0, 129.0]),
                seq("S3 read", &[60.0, 61.0, 59.0]),
            ],
        );
        let c = cmp(&[a, b]);
        let w = rules(&c, "biggest_win");
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].subject.as_deref(), Some("S2 read"));
        assert_eq!(
            w[0].message,
            "Biggest win: B on S2 read, 30% faster than A (130.0 MB/s vs 100.0 MB/s)."
        );
        let l = rules(&c, "biggest_loss");
        assert_eq!(l[0].subject.as_deref(), Some("S3 read"));
        assert!(l[0].message.contains("40% slower"), "{}", l[0].message);
    }

    #[test]
    fn win_on_a_warned_test_carries_a_caveat() {
        let a = run(1, "A", vec![seq("S1 read", &[100.0, 101.0, 99.0])]);
        let b = run(2, "B", vec![seq("S1 read", &[300.0, 301.0, 299.0]).warn("cache_answered")]);
        let c = cmp(&[a, b]);
        let w = rules(&c, "biggest_win");
        assert!(w[0].message.ends_with("Caveat: B carries cache_answered here."), "{}", w[0].message);
        let u = rules(&c, "untrustworthy");
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].run, Some(2));
        assert_eq!(u[0].subject.as_deref(), Some("S1 read"));
        assert!(u[0].message.starts_with("B: S1 read carries cache_answered"), "{}", u[0].message);
    }

    #[test]
    fn untrustworthy_names_run_and_tests_and_ignores_harmless_codes() {
        let a = run(
            1,
            "A",
            vec![
                seq("S1 read", &[100.0, 101.0]).warn("high_cv").warn("psync_threads"),
                seq("S2 read", &[100.0, 101.0]).warn("high_cv"),
                seq("S3 read", &[100.0, 101.0]).warn("device_extra"),
            ],
        );
        let b = run(
            2,
            "B",
            vec![
                seq("S1 read", &[100.0, 101.0]),
                seq("S2 read", &[100.0, 101.0]),
                seq("S3 read", &[100.0, 101.0]),
            ],
        );
        let c = cmp(&[a, b]);
        let u = rules(&c, "untrustworthy");
        assert_eq!(u.len(), 1, "{u:?}");
        assert_eq!(u[0].run, Some(1));
        assert!(u[0].message.starts_with("A: S1 read, S2 read carries high_cv"), "{}", u[0].message);
    }

    #[test]
    fn cache_candidate_says_whether_the_faster_device_pays_as_a_cache() {
        let runs = vec![
            run(
                1,
                "HDD",
                vec![
                    rand("RND4K Q1T1 read", &[150.0, 152.0, 148.0]).p99(12_000_000),
                    rand("RND4K Q1T1 write", &[140.0, 141.0, 139.0]).p99(9_000_000),
                ],
            ),
            run(
                2,
                "SSD",
                vec![
                    rand("RND4K Q1T1 read", &[9000.0, 9100.0, 8900.0]).p99(210_000),
                    rand("RND4K Q1T1 write", &[20000.0, 20100.0, 19900.0]).p99(60_000),
                ],
            ),
            run(
                3,
                "HDD2",
                vec![
                    rand("RND4K Q1T1 read", &[160.0, 161.0, 159.0]).p99(11_000_000),
                    rand("RND4K Q1T1 write", &[140.0, 141.0, 139.0]).p99(9_000_000),
                ],
            ),
        ];
        let c = crate::compare::compare(&runs, 1).unwrap();
        let f: Vec<&Diagnostic> = c.findings.iter().filter(|f| f.code == Code::CacheCandidate).collect();
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].run, Some(2));
        assert_eq!(
            f[0].message,
            "As a read cache for HDD (L2ARC, bcache), SSD is worth it: 4K QD1 random reads at 60.0x the IOPS (9000 vs 150, p99 210.0 µs vs 12.00 ms). As a sync-write log (ZFS SLOG) it would help: 4K QD1 write p99 60.0 µs vs 9.00 ms (iolab flushes once per run, not after every write, so both are lower bounds)."
        );
        assert!(
            f[1].message
                .starts_with("As a read cache for HDD, HDD2 is not worth it: 4K QD1 random reads at 1.1x the IOPS (160 vs 150"),
            "{}",
            f[1].message
        );
        assert!(
            f[1].message.contains("a cache pays from 2x with a lower p99") && f[1].message.contains("would not help"),
            "{}",
            f[1].message
        );
        // No 4K QD1 random read test, no finding.
        let runs = vec![
            run(1, "a", vec![seq("S read", &[1.0, 2.0])]),
            run(2, "b", vec![seq("S read", &[3.0, 4.0])]),
        ];
        assert!(
            crate::compare::compare(&runs, 1)
                .unwrap()
                .findings
                .iter()
                .all(|f| f.code != Code::CacheCandidate)
        );
    }

    #[test]
    fn cpu_cost_reports_notable_ratios_either_way() {
        let mk = |id, name: &str, cpu: f64| {
            run(
                id,
                name,
                vec![
                    seq("S1 read", &[100.0, 101.0]).cpu(cpu),
                    J::mixed("M mix", true, &[50.0, 51.0], &[20.0, 21.0]).cpu(cpu),
                ],
            )
        };
        let c = cmp(&[mk(1, "A", 1.0), mk(2, "B", 2.1), mk(3, "C", 0.5), mk(4, "D", 1.1)]);
        let f = rules(&c, "cpu_cost");
        let texts: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            texts,
            [
                "B uses 2.1x the CPU per MB/s of A (median over 2 job(s)).",
                "A uses 2.0x the CPU per MB/s of C (median over 2 job(s)).",
            ]
        );
    }

    #[test]
    fn all_within_noise_and_noise_unknown() {
        let a = run(1, "A", vec![seq("S1 read", &[100.0, 110.0, 90.0]), seq("S2 read", &[100.0])]);
        let b = run(2, "B", vec![seq("S1 read", &[105.0, 95.0, 102.0]), seq("S2 read", &[140.0])]);
        let c = cmp(&[a, b]);
        let f = rules(&c, "all_within_noise");
        assert_eq!(
            f[0].message,
            "B and A differ by no more than the noise on 1 test (1 more with noise unknown)."
        );
        let u = rules(&c, "noise_unknown");
        assert_eq!(u.len(), 1);
        assert!(u[0].message.contains("(largest: +40% on S2 read)"), "{}", u[0].message);
        assert!(rules(&c, "biggest_win").is_empty());
    }

    #[test]
    fn no_common_tests_is_said() {
        let a = run(1, "A", vec![seq("S1 read", &[100.0, 101.0])]);
        let b = run(2, "B", vec![seq("S2 read", &[100.0, 101.0])]);
        let c = cmp(&[a, b]);
        assert!(c.tests.is_empty());
        assert_eq!(rules(&c, "no_common_tests").len(), 1);
        assert_eq!(c.findings.len(), 1);
    }
}
