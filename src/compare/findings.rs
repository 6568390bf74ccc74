//! Findings: plain sentences under the comparison, each from one small rule.
//!
//! A difference counts as a win or a loss only when it is known to be
//! outside the noise (its interval excludes 1.0); differences with unknown
//! noise are reported separately, with that caveat. Each finding is a
//! [`Diagnostic`] whose code is the rule that made it, whose `run` is the
//! run it is about (never the baseline, except for `untrustworthy`) and
//! whose subject is the test it is about, when it is about one.

use super::{Comparison, PowerCutCheck, RunInfo, RunRef, TestComparison};
use crate::base::thresholds::{CACHE_MIN_GAIN, CPU_NOTABLE, MIN_RUNS_FOR_NOISE};
use crate::base::units::{fmt_ns, fmt_ratio, fmt_value, signed_diff};
use crate::judge::trust::Distrust;
use crate::judge::{Code, Diagnostic, Severity};
use crate::plan::SyncMode;
use crate::summary::median;
use crate::summary::{Direction, JobReport, Report};

/// Every rule, in the order the findings are shown; a finding that rests
/// on figures iolab calls untrustworthy carries the caveat ([`guard`]).
pub fn all(c: &Comparison) -> Vec<Diagnostic> {
    rules(c).into_iter().map(|f| guard(c, f)).collect()
}

/// The rules' findings as they find them.
fn rules(c: &Comparison) -> Vec<Diagnostic> {
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

/// The rules whose findings are no verdict on the figures: they say what
/// cannot be compared, what CPU it cost, or list the untrustworthy figures
/// themselves.
const NOT_VERDICTS: &[Code] = &[
    Code::NoCommonTests,
    Code::NoiseUnknown,
    Code::LatencyModesDiffer,
    Code::CpuCost,
    Code::Untrustworthy,
];

/// What a caveat starts with, in every finding that carries one.
const CAVEAT: &str = " Caveat: ";

/// The figures a finding rests on that iolab calls untrustworthy (see
/// [`crate::judge::trust`]): its test (every test when it names none) in
/// the run it is about and in the baseline. Empty for a finding about no
/// run, and for the rules in [`NOT_VERDICTS`].
pub fn distrust(c: &Comparison, f: &Diagnostic) -> Distrust {
    let mut d = Distrust::new();
    if NOT_VERDICTS.contains(&f.code) {
        return d;
    }
    let Some(i) = f.run.and_then(|id| c.runs.iter().position(|r| r.id == id)) else {
        return d;
    };
    let b = c.baseline_index();
    for t in c.tests.iter().filter(|t| f.subject.as_deref().is_none_or(|s| s == t.test)) {
        for k in [i, b] {
            d.add(&c.runs[k].name(), &crate::judge::trust::untrusted_codes(&t.warnings[k]));
        }
    }
    d
}

/// A finding on figures iolab calls untrustworthy is marked so: its
/// severity becomes `untrustworthy` (so it never leads: [`leads`]) and,
/// unless its rule wrote one, it carries the caveat naming whose figures
/// and why.
pub fn guard(c: &Comparison, mut f: Diagnostic) -> Diagnostic {
    let d = distrust(c, &f);
    if d.is_empty() {
        return f;
    }
    f.severity = Severity::Untrustworthy;
    if !f.message.contains(CAVEAT) {
        f.message = format!(
            "{}{CAVEAT}{}: these figures are not the devices' speed.",
            f.message.trim_end(),
            d.sentence()
        );
    }
    f
}

/// Whether a finding leads the comparison (first, and bold on a page):
/// the answer to the question a comparison of two devices or two engines
/// is for, unless it rests on figures iolab calls untrustworthy.
pub fn leads(f: &Diagnostic) -> bool {
    matches!(f.code, Code::CacheCandidate | Code::EnginesAgree | Code::EnginesDiffer) && f.severity != Severity::Untrustworthy
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
        format!("{CAVEAT}{}.", parts.join("; "))
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

/// Whether run `k`'s CPU figure for test `t` counts fio's job threads only
/// (`fio_cpu_per_thread`: fio's `usr_cpu`/`sys_cpu`), not iolab's whole
/// process (every thread, io_uring's workers included).
fn cpu_per_thread(t: &TestComparison, k: usize) -> bool {
    t.warnings[k].iter().any(|w| Code::FioCpuPerThread == w.as_str())
}

/// Per run: the median over jobs of its CPU % per 100 MB/s relative to the
/// baseline's, when at least [`CPU_NOTABLE`] apart. Only like is set against
/// like: a job whose CPU one run took as fio's per-thread figure and the
/// other as iolab's whole process is not compared, and when that leaves no
/// job, the finding says why.
pub fn cpu_cost(c: &Comparison) -> Vec<Diagnostic> {
    let (b, base_run) = base(c);
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let mut jobs: Vec<&str> = Vec::new();
        let mut ratios = Vec::new();
        let mut unlike = false;
        for t in &c.tests {
            if jobs.contains(&t.job.as_str()) {
                continue; // a mixed job's two tests share one CPU figure
            }
            jobs.push(&t.job);
            if let (Some(x), Some(y)) = (t.cpu_pct_per_100mbs[i], t.cpu_pct_per_100mbs[b])
                && x > 0.0
                && y > 0.0
            {
                if cpu_per_thread(t, i) != cpu_per_thread(t, b) {
                    unlike = true;
                    continue;
                }
                ratios.push(x / y);
            }
        }
        if ratios.is_empty() {
            if unlike {
                let (fio, iolab) = if c.tests.iter().any(|t| cpu_per_thread(t, i)) {
                    (r.name(), base_run.name())
                } else {
                    (base_run.name(), r.name())
                };
                out.push(finding(
                    Code::CpuCost,
                    Some(r.id),
                    None,
                    format!(
                        "CPU is not compared: {fio}'s figure is fio's, of its job threads only (fio_cpu_per_thread), and {iolab}'s is iolab's whole process (every thread, io_uring's workers included)."
                    ),
                ));
            }
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
/// outside the noise, and a lower p99. A sync-write log (ZFS SLOG) is
/// judged by [`log_device`] when the runs have the sync suite's 4K sync
/// writes; without them, by the 4K QD1 random write p99, a lower bound.
/// Whether a verdict may rest on the figures is [`guard`]'s to say.
pub fn cache_candidate(c: &Comparison) -> Vec<Diagnostic> {
    let probe = |d: Direction| c.tests.iter().find(|t| t.cache_probe && t.direction == d);
    // With the sync suite's tests, the log verdict is their own finding.
    let write = probe(Direction::Write).filter(|_| log_probe(c).is_none());
    let mut out = probe(Direction::Read).map_or_else(Vec::new, |read| read_cache(c, read, write));
    out.extend(log_device(c));
    out
}

/// [`cache_candidate`]'s read-cache verdict on the 4K QD1 random read test
/// `read`, each with the lower-bound log verdict of the 4K QD1 random write
/// test `write` when there is one.
fn read_cache(c: &Comparison, read: &TestComparison, write: Option<&TestComparison>) -> Vec<Diagnostic> {
    let b = base(c).0;
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
        if let Some(w) = write
            && let (Some(f), Some(s)) = (p99(w, fast), p99(w, slow))
        {
            let verdict = if s / f >= CACHE_MIN_GAIN { "would help" } else { "would not help" };
            text.push_str(&format!(
                " As a sync-write log (ZFS SLOG) it {verdict}: 4K QD1 write p99 {} vs {} (iolab flushes once per run, not after every write, so both are lower bounds; the sync suite measures sync writes).",
                fmt_ns(f),
                fmt_ns(s)
            ));
        }
        out.push(finding(Code::CacheCandidate, Some(r.id), Some(read.test.clone()), text));
    }
    out
}

/// The sync suite's 4K QD1 sync-write test, for the log-device verdict: a
/// write and then a flush (`fsync`) is what ZFS's intent log does on a SLOG
/// (it writes its log blocks, then flushes the device's cache), so that
/// test first; O_DSYNC's (`dsync`) where it is the only one. Every test of
/// a comparison is one all its runs have.
fn log_probe(c: &Comparison) -> Option<&TestComparison> {
    let with = |m: SyncMode| c.tests.iter().find(|t| t.log_probe == Some(m));
    with(SyncMode::Fsync).or_else(|| with(SyncMode::Dsync))
}

/// Per run against the baseline: is the one of the two whose 4K sync
/// writes have the lower p99 fit as a sync-write log (ZFS SLOG) for the
/// other? The p99 is each write's time until stored (with O_DSYNC, or the
/// write and its flush), what the ZIL waits for: fit when it is at most
/// 1/[`CACHE_MIN_GAIN`] of the other's, unless a stored power-cut check
/// ([`RunInfo::power_cut`]) found it losing acknowledged writes, which
/// makes it unfit whatever its speed. On figures iolab calls
/// untrustworthy the verdict carries [`guard`]'s caveat and never leads.
pub fn log_device(c: &Comparison) -> Vec<Diagnostic> {
    let Some(t) = log_probe(c) else { return Vec::new() };
    let b = base(c).0;
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let p99 = |k: usize| t.p99_ns.get(k).copied().flatten();
        let (Some(x), Some(y)) = (p99(i), p99(b)) else { continue };
        if !t.latencies_comparable(i, b) {
            continue;
        }
        let (fast, slow, f, s) = if x <= y { (i, b, x, y) } else { (b, i, y, x) };
        let head = format!(
            "As a sync-write log (ZFS SLOG) for {}, {}",
            c.runs[slow].name(),
            c.runs[fast].name()
        );
        let how = match t.log_probe {
            Some(SyncMode::Fsync) => "a write, then fdatasync",
            _ => "O_DSYNC",
        };
        let figures = format!("4K sync writes ({how}) at p99 {} vs {}", fmt_ns(f), fmt_ns(s));
        let check = c.runs[fast].power_cut.as_ref();
        let text = if let Some(lost) = check.filter(|p| p.lost_blocks > 0) {
            format!(
                "{head} is not fit: the power-cut check on {} lost {} acknowledged blocks ({figures}).",
                lost.date, lost.lost_blocks
            )
        } else if s / f >= CACHE_MIN_GAIN {
            format!("{head} is fit: {figures}{}.", power_cut_clause(check))
        } else {
            format!("{head} is not fit: {figures}; a log pays from {CACHE_MIN_GAIN:.0}x lower p99.")
        };
        out.push(finding(Code::CacheCandidate, Some(r.id), Some(t.test.clone()), text));
    }
    out
}

/// What a fit log device's verdict says of the power-cut check of it: that
/// it found every acknowledged write, or that there is none yet.
fn power_cut_clause(check: Option<&PowerCutCheck>) -> String {
    match check {
        Some(p) => format!(", and a power-cut check on {} found every acknowledged write", p.date),
        None => ", if it keeps what it acknowledges: no power-cut check of it is stored (iolab flush --check)".into(),
    }
}

/// The engine a run's jobs ran on, as one name: iolab's own (`io_uring`,
/// `psync`) or fio's (`fio:io_uring`, as `--engine fio` stores it; a run
/// imported from fio's JSON is fio's whatever its engine). `None` when its
/// jobs ran on several, or it has none.
fn engine(r: &Report) -> Option<String> {
    let imported = r.command.starts_with("import:fio");
    let mut names = r.jobs().iter().map(|j| match j.engine.as_str() {
        e if imported && !e.starts_with("fio:") => format!("fio:{e}"),
        e => e.to_string(),
    });
    let first = names.next()?;
    names.all(|n| n == first).then_some(first)
}

/// "fio, io_uring" or "iolab, psync".
fn engine_label(e: &str) -> String {
    match e.strip_prefix("fio:") {
        Some(inner) => format!("fio, {inner}"),
        None => format!("iolab, {e}"),
    }
}

/// The same plan: the same jobs (name, pattern, block size, depth,
/// threads), in any order.
fn same_plan(a: &Report, b: &Report) -> bool {
    let shape = |j: &JobReport| (j.name.clone(), j.rw.as_str().to_string(), j.bs, j.qd, j.threads);
    let (ja, jb) = (a.jobs(), b.jobs());
    !ja.is_empty() && ja.len() == jb.len() && ja.iter().all(|x| jb.iter().any(|y| shape(y) == shape(x)))
}

/// Per run that ran the baseline's plan on the baseline's target with
/// another engine (`--engine fio` against iolab's own, `psync` against
/// `io_uring`): whether the two agree within the noise (each test's
/// bootstrap interval of the ratio contains 1), and where they do not, by
/// how much and which is faster. `engines_agree` when every test agrees;
/// `engines_differ` when one differs, or the noise is unknown (fewer than
/// [`MIN_RUNS_FOR_NOISE`] measured runs on a side), which it then says.
pub fn engines(runs: &[RunRef], c: &Comparison) -> Vec<Diagnostic> {
    let (b, base_run) = base(c);
    let Some(base_ref) = runs.get(b) else { return Vec::new() };
    let Some(base_engine) = engine(&base_ref.report) else {
        return Vec::new();
    };
    let tests: Vec<&TestComparison> = c.tests.iter().filter(|t| t.direction != Direction::App).collect();
    let mut out = Vec::new();
    for (i, r) in others(c) {
        let Some(other) = runs.get(i) else { continue };
        let Some(e) = engine(&other.report) else { continue };
        let path = &base_ref.report.target.path;
        if e == base_engine || tests.is_empty() || other.report.target.path != *path || !same_plan(&other.report, &base_ref.report) {
            continue;
        }
        let n = tests.len();
        let agree = tests.iter().filter(|t| t.within_noise[i] == Some(true)).count();
        let unknown = tests
            .iter()
            .filter(|t| t.within_noise[i].is_none() || t.ratios[i].is_none())
            .count();
        let differ: Vec<String> = tests
            .iter()
            .filter(|t| t.outside_noise(i))
            .map(|t| {
                let ci = t.ci[i].map_or(String::new(), |[lo, hi]| {
                    format!("; 95% interval of the ratio {}–{}", fmt_ratio(lo), fmt_ratio(hi))
                });
                format!(
                    "on {} {} is {} ({} vs {}{ci})",
                    t.test,
                    r.name(),
                    words(t.ratios[i].unwrap_or(f64::NAN)),
                    fmt_value(t.values[i], t.unit),
                    fmt_value(t.values[b], t.unit)
                )
            })
            .collect();
        let head = format!(
            "{} ({}) and {} ({}) ran the same plan on {path}",
            r.name(),
            engine_label(&e),
            base_run.name(),
            engine_label(&base_engine)
        );
        let unknown_tail = if unknown == 0 {
            String::new()
        } else {
            format!(
                "; on {} the noise is unknown (fewer than {MIN_RUNS_FOR_NOISE} measured runs on a side): measure with --runs 3 or more to tell",
                n_tests(unknown)
            )
        };
        let (code, text) = if agree == n {
            (Code::EnginesAgree, format!("{head}: they agree within noise on every test ({n})."))
        } else if !differ.is_empty() && agree == 0 {
            (
                Code::EnginesDiffer,
                format!("{head}: they differ: {}{unknown_tail}.", differ.join("; ")),
            )
        } else if !differ.is_empty() {
            (
                Code::EnginesDiffer,
                format!(
                    "{head}: they agree within noise on {agree} of {n} tests and differ on {}: {}{unknown_tail}.",
                    differ.len(),
                    differ.join("; ")
                ),
            )
        } else {
            (
                Code::EnginesDiffer,
                format!(
                    "{head}: whether they agree is not known{}{unknown_tail}.",
                    if agree > 0 {
                        format!("; they agree within noise on {agree} of {n} tests")
                    } else {
                        String::new()
                    }
                ),
            )
        };
        out.push(finding(code, Some(r.id), None, text));
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
#[path = "findings_tests.rs"]
mod tests;
