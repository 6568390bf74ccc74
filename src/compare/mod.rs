//! Comparing stored runs: the engine behind `iolab compare`.
//!
//! Pure: stored [`Report`]s in, a [`Comparison`] out (which is also the
//! `--format json` document; its view for every other format is built in
//! `render/views/compare.rs`). No I/O, no printing.
//!
//! - A *test* is a job name plus a direction: a read-only or write-only job
//!   is one test named after the job ("SEQ1M Q8T1 read"); a mixed job gives
//!   two ("RND4K Q32T1 mix R70/W30 read" and "... write"). Only tests every
//!   compared run has are kept.
//! - Each test has one unit: bytes/s for sequential jobs, IOPS for random
//!   ones (`rw` starting with `rand`). Values are the stored medians.
//! - Ratios are value / baseline value. Whether a difference is within the
//!   noise comes from each side's measured runs, not the medians: see
//!   [`stats`] (a seeded 95% bootstrap interval of the ratio of medians; an
//!   interval containing 1.0 is noise). With fewer than 2 runs on a side it
//!   is unknown (`null`). The baseline's own entry is ratio 1.0,
//!   `within_noise: true`, `ci: null`.
//! - Findings are plain sentences, each from one rule in [`findings`]. A
//!   finding on figures iolab calls untrustworthy carries the caveat and the
//!   `untrustworthy` severity, and never leads ([`findings::leads`]).

pub mod findings;

pub mod layouts;

pub mod stats;

#[cfg(test)]
mod tests;

use crate::base::units::Unit;
use crate::summary::{DirReport, Direction, JobReport, Report};
use serde::Serialize;

/// One stored run to compare, with what the user said about it.
#[derive(Clone, Debug)]
pub struct RunRef {
    pub id: i64,
    pub label: Option<String>,
    /// What the device cost (`--price ID=59.99`), in the user's currency.
    pub price: Option<f64>,
    /// The device's capacity, when known better than the report says.
    pub capacity_bytes: Option<u64>,
    pub report: Report,
    /// What `iolab layouts` built the run on (then the layout verdicts).
    pub built: Option<layouts::Built>,
    /// The latest stored power-cut check (`iolab flush --check`) of the
    /// run's device, found by the caller in the store: the log-device
    /// verdict rests on it.
    pub power_cut: Option<PowerCutCheck>,
}

/// One line of the configuration file's price list: what a device cost
/// (and, optionally, its capacity for $/GB when the device size misleads,
/// e.g. a USB stick's marketing size).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedPrice {
    /// A run's label, or a physical device's serial or model, as `iolab info` shows them.
    pub key: String,
    pub price: f64,
    pub capacity_bytes: Option<u64>,
}

/// The price-list entry for a run: the first entry whose key is the run's
/// label, else one of its physical devices' serial, else their model (with
/// or without the vendor). Case and surrounding blanks do not matter.
pub fn listed_price<'a>(list: &'a [ListedPrice], label: Option<&str>, report: &Report) -> Option<&'a ListedPrice> {
    let devices = report.target.info.as_ref().map(|i| i.devices.as_slice()).unwrap_or_default();
    let serials = devices.iter().filter_map(|d| d.serial.clone());
    let candidates: Vec<Vec<String>> = vec![label.map(str::to_string).into_iter().collect(), serials.collect(), models(devices)];
    first_listed(list, &candidates)
}

/// A device's models as a price list may name them: the model, and the
/// vendor with the model.
fn models(devices: &[crate::device::DeviceFacts]) -> Vec<String> {
    devices
        .iter()
        .flat_map(|d| {
            let full = d.vendor.as_ref().zip(d.model.as_ref()).map(|(v, m)| format!("{v} {m}"));
            [d.model.clone(), full].into_iter().flatten()
        })
        .collect()
}

/// The first entry of `list` whose key is one of the first group of
/// `candidates` that has a match (case and blanks aside).
fn first_listed<'a>(list: &'a [ListedPrice], candidates: &[Vec<String>]) -> Option<&'a ListedPrice> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    candidates.iter().find_map(|keys| {
        let keys: Vec<String> = keys.iter().map(|k| norm(k)).collect();
        list.iter().find(|e| keys.contains(&norm(&e.key)))
    })
}

/// The price-list entry for one member device of a configuration `iolab
/// layouts` built: its name (`sdb`, `/dev/sdb`), else its serial, else its
/// model, as `facts` (what `iolab info` found on it, when it did) give them.
pub fn device_price<'a>(list: &'a [ListedPrice], device: &str, facts: Option<&crate::device::DeviceFacts>) -> Option<&'a ListedPrice> {
    let short = device.rsplit('/').next().unwrap_or(device).to_string();
    let candidates: Vec<Vec<String>> = vec![
        vec![device.to_string(), short],
        facts.and_then(|f| f.serial.clone()).into_iter().collect(),
        facts.map(|f| models(std::slice::from_ref(f))).unwrap_or_default(),
    ];
    first_listed(list, &candidates)
}

/// The comparison, and the `iolab compare --format json` document.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct Comparison {
    /// Id of the run every ratio is relative to.
    #[schemars(extend("x-unit" = "id"))]
    pub baseline: i64,
    /// The runs in the order given.
    pub runs: Vec<RunInfo>,
    /// One entry per test all runs share, in the first run's job order.
    pub tests: Vec<TestComparison>,
    /// `{"rule", "run", "test", "text"}` each.
    #[serde(with = "crate::judge::diagnostic::finding_shape")]
    #[schemars(schema_with = "crate::judge::diagnostic::finding_shape::schema")]
    pub findings: Vec<crate::judge::Diagnostic>,
}

impl Comparison {
    /// Position of the baseline in [`Comparison::runs`] (the first run if the
    /// baseline is missing).
    pub fn baseline_index(&self) -> usize {
        self.runs.iter().position(|r| r.id == self.baseline).unwrap_or(0)
    }

    /// Whether any run has a price (then prices and MB/s per price are shown).
    pub fn has_prices(&self) -> bool {
        self.runs.iter().any(|r| r.price.is_some())
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct RunInfo {
    /// The stored run's id.
    #[schemars(extend("x-unit" = "id"))]
    pub id: i64,
    /// The run's label.
    pub label: Option<String>,
    /// What the device cost (`--price`, the price list).
    #[schemars(extend("x-unit" = "price"))]
    pub price: Option<f64>,
    /// `RunRef::capacity_bytes`, else the size of the first physical device
    /// `iolab info` found under the target (not the tested span).
    #[schemars(extend("x-unit" = "bytes"))]
    pub capacity_bytes: Option<u64>,
    /// Price per 10^9 bytes of capacity.
    #[schemars(extend("x-unit" = "price/GB"))]
    pub price_per_gb: Option<f64>,
    /// The configuration `iolab layouts` built the run on (its
    /// `capacity_bytes` then is the usable capacity, its price the members').
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<layouts::BuiltLayout>,
    /// A run of the sdcard suite: each class family's verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<crate::judge::class::FamilyVerdict>,
    /// A verify run whose writes fell and stayed down (a write cache filling up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_drop: Option<crate::judge::curve::SpeedDrop>,
    /// What a stored power-cut check of the run's device found (`flush
    /// --check` after a power cut): the log-device verdict rests on it too,
    /// unfit when it lost acknowledged blocks; absent when none is stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_cut: Option<PowerCutCheck>,
}

/// A power-cut check of a device (`flush --check` after the power
/// was cut while it wrote): whether every write a flush acknowledged was
/// found again. A sync-write log that loses acknowledged writes loses data.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct PowerCutCheck {
    /// When the check ran (`YYYY-MM-DD`).
    pub date: String,
    /// Acknowledged blocks found lost or stale (0: every acknowledged write was found).
    #[schemars(extend("x-unit" = "count"))]
    pub lost_blocks: u64,
}

impl RunInfo {
    /// What headers and findings call the run: its label, else "run ID".
    pub fn name(&self) -> String {
        match &self.label {
            Some(l) if !l.trim().is_empty() => l.clone(),
            _ => format!("run {}", self.id),
        }
    }
}

/// One test across all runs; every vector has one entry per run, in order.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct TestComparison {
    /// The test: the job's name, plus the direction for a mixed job.
    pub test: String,
    /// The job the test comes from (several tests share a mixed job).
    pub job: String,
    /// The direction the test measures.
    pub direction: Direction,
    /// The unit of `values`: `bytes/s` (sequential), `IOPS` (random) or `s` (timed commands, workload phases).
    pub unit: Unit,
    /// Median over the run's measured runs, in `unit`.
    #[schemars(extend("x-unit" = "of unit"))]
    pub values: Vec<f64>,
    /// value / baseline value (`null` when the baseline value is 0).
    #[schemars(extend("x-unit" = "ratio"))]
    pub ratios: Vec<Option<f64>>,
    /// The ratio's 95% interval contains 1.0; `null`: unknown (fewer than 2
    /// measured runs on a side). The baseline's own entry is `true`.
    pub within_noise: Vec<Option<bool>>,
    /// The ratio's 95% bootstrap interval `[low, high]`.
    #[schemars(extend("x-unit" = "ratio"))]
    pub ci: Vec<Option<[f64; 2]>>,
    /// How many measured runs each figure is the median of.
    #[schemars(extend("x-unit" = "count"))]
    pub measured_runs: Vec<usize>,
    /// iolab's CPU % per 100 MB/s for the job (a mixed job's two tests share it).
    #[schemars(extend("x-unit" = "%"))]
    pub cpu_pct_per_100mbs: Vec<Option<f64>>,
    /// This test's MB/s per unit of price (when a price is given).
    #[schemars(extend("x-unit" = "MB/s/price"))]
    pub mbs_per_price: Vec<Option<f64>>,
    /// Warning codes the job carries in each run.
    pub warnings: Vec<Vec<String>>,
    /// The p99 completion latency (ns) of the direction, median over runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-unit" = "ns"))]
    pub p99_ns: Vec<Option<f64>>,
    /// How each run took the job's latencies (`exact`, `batch=N`, `off`).
    #[serde(default, skip_serializing_if = "all_exact")]
    pub latency: Vec<String>,
    /// The job is random 4K at queue depth 1 with one thread: the access a
    /// cache in front of a slower device serves.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cache_probe: bool,
    /// The job writes 4K at queue depth 1 with one thread, each write made
    /// durable before it completes (`dsync`, `fsync`: the sync suite's): what
    /// a sync-write log (a ZFS SLOG) serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_probe: Option<crate::plan::SyncMode>,
}

impl TestComparison {
    /// The difference to the baseline is known to be outside the noise.
    pub fn outside_noise(&self, i: usize) -> bool {
        self.within_noise[i] == Some(false) && self.ratios[i].is_some()
    }

    /// Whether runs `a` and `b` took this test's latencies the same way,
    /// each I/O's own: only then are their latencies compared.
    pub fn latencies_comparable(&self, a: usize, b: usize) -> bool {
        let mode = |k: usize| self.latency.get(k).map_or("exact", String::as_str);
        mode(a) == "exact" && mode(b) == "exact"
    }

    /// Run `i`'s 95% interval in the test's unit (bytes/s, IOPS, seconds):
    /// the interval of its ratio to the baseline (run `baseline`) applied to
    /// the baseline's value. A ratio of times is a speed-up (baseline time /
    /// time), so its interval [lo, hi] is the time from baseline / hi to
    /// baseline / lo. `None` for the baseline itself and where the interval
    /// is unknown.
    pub fn value_interval(&self, i: usize, baseline: usize) -> Option<(f64, f64)> {
        let [lo, hi] = (*self.ci.get(i)?)?;
        let base = *self.values.get(baseline)?;
        if i == baseline || !base.is_finite() {
            return None;
        }
        match self.unit {
            Unit::Seconds if lo > 0.0 && hi > 0.0 => Some((base / hi, base / lo)),
            Unit::Seconds => None,
            Unit::BytesPerSec | Unit::Iops => Some((base * lo, base * hi)),
        }
    }
}

fn all_exact(v: &[String]) -> bool {
    v.iter().all(|m| m == "exact")
}

fn dir(job: &JobReport, d: Direction) -> Option<&DirReport> {
    match d {
        Direction::Read => job.read.as_ref(),
        Direction::Write => job.write.as_ref(),
        Direction::App => None,
    }
}

fn is_random(job: &JobReport) -> bool {
    job.rw.is_random()
}

fn is_mixed(job: &JobReport) -> bool {
    job.rw.is_mixed() || (job.read.is_some() && job.write.is_some())
}

fn figure(d: &DirReport, unit: Unit) -> f64 {
    match unit {
        Unit::BytesPerSec => d.bw_bytes,
        Unit::Iops | Unit::Seconds => d.iops,
    }
}

/// Per-run figures of one direction of a job, in `unit`.
fn per_run(job: &JobReport, d: Direction, unit: Unit) -> Vec<f64> {
    job.runs
        .iter()
        .filter_map(|r| match d {
            Direction::Read => r.read.as_ref(),
            Direction::Write => r.write.as_ref(),
            Direction::App => None,
        })
        .map(|r| figure(r, unit))
        .collect()
}

fn capacity(r: &RunRef) -> Option<u64> {
    let usable = r.built.as_ref().and_then(|b| b.usable_bytes);
    r.capacity_bytes.or(usable).filter(|c| *c > 0).or_else(|| {
        r.report
            .target
            .info
            .as_ref()
            .and_then(|i| i.devices.first())
            .map(|d| d.size_bytes)
            .filter(|c| *c > 0)
    })
}

fn run_info(r: &RunRef) -> RunInfo {
    let price = r.price.filter(|p| p.is_finite() && *p > 0.0);
    let capacity_bytes = capacity(r);
    RunInfo {
        id: r.id,
        label: r.label.clone(),
        price,
        capacity_bytes,
        price_per_gb: price.zip(capacity_bytes).map(|(p, c)| p / (c as f64 / 1e9)),
        layout: r.built.as_ref().map(layouts::Built::info),
        classes: crate::summary::classes::of(&r.report).map(|c| c.families).unwrap_or_default(),
        write_drop: r.report.verify().and_then(|v| v.write_drop.clone()),
        power_cut: r.power_cut.clone(),
    }
}

fn find_job<'a>(report: &'a Report, name: &str, random: bool, d: Direction) -> Option<&'a JobReport> {
    report
        .jobs()
        .iter()
        .find(|j| j.name == name && is_random(j) == random && dir(j, d).is_some())
}

/// Compare `runs` against the one whose id is `baseline_id`.
pub fn compare(runs: &[RunRef], baseline_id: i64) -> Result<Comparison, String> {
    if runs.len() < 2 {
        return Err("compare needs at least two runs".into());
    }
    for (i, r) in runs.iter().enumerate() {
        if runs[..i].iter().any(|o| o.id == r.id) {
            return Err(format!("run {} is given twice", r.id));
        }
    }
    let b = runs
        .iter()
        .position(|r| r.id == baseline_id)
        .ok_or_else(|| format!("baseline run {baseline_id} is not one of the compared runs"))?;
    let infos: Vec<RunInfo> = runs.iter().map(run_info).collect();

    let mut tests = Vec::new();
    for job in runs[0].report.jobs() {
        for d in [Direction::Read, Direction::Write] {
            if dir(job, d).is_none() {
                continue;
            }
            let random = is_random(job);
            let jobs: Option<Vec<&JobReport>> = runs.iter().map(|r| find_job(&r.report, &job.name, random, d)).collect();
            let Some(jobs) = jobs else { continue };
            let test = if is_mixed(job) {
                format!("{} {}", job.name, d.as_str())
            } else {
                job.name.clone()
            };
            if tests.iter().any(|t: &TestComparison| t.test == test) {
                continue; // a duplicate job name in the first run
            }
            tests.push(test_comparison(test, job.name.clone(), d, random, &jobs, &infos, b));
        }
    }
    tests.extend(timed_tests(runs, b));
    let mut c = Comparison {
        baseline: baseline_id,
        runs: infos,
        tests,
        findings: Vec::new(),
    };
    // The layout verdicts answer the question a layouts run asks: first.
    let mut f = layouts::findings(runs, &c.tests, b);
    // Two engines on one plan and target: whether they agree, before the rest.
    f.extend(findings::engines(runs, &c).into_iter().map(|d| findings::guard(&c, d)));
    f.extend(findings::all(&c));
    c.findings = f;
    Ok(c)
}

/// A test besides the jobs: (name, unit, direction, samples).
type OtherTest = (String, Unit, Direction, Vec<f64>);

/// The tests a report has besides its jobs, as (name, unit, direction,
/// samples): seconds per run of `time: COMMAND` (`iolab time`) and of
/// `WORKLOAD: PHASE` (the files and git suites); the zones' write and read
/// rates of `verify` (a zone is a sample: the spread along the device).
fn other(report: &Report) -> Vec<OtherTest> {
    let mut v = Vec::new();
    if let Some(t) = report.time() {
        v.push((
            format!("time: {}", t.command),
            Unit::Seconds,
            Direction::App,
            t.runs.iter().map(|r| r.wall_s).collect(),
        ));
    }
    if let Some(a) = report.app() {
        for p in &a.phases {
            v.push((
                format!("{}: {}", a.workload, p.name),
                Unit::Seconds,
                Direction::App,
                p.wall_s_runs.clone(),
            ));
        }
    }
    if let Some(x) = report.verify() {
        let w: Vec<f64> = x.zones.iter().filter_map(|z| z.write_bw_bytes).collect();
        let r: Vec<f64> = x.zones.iter().filter_map(|z| z.read_bw_bytes).collect();
        for (name, d, s) in [("verify: write", Direction::Write, w), ("verify: read", Direction::Read, r)] {
            if !s.is_empty() {
                v.push((name.to_string(), Unit::BytesPerSec, d, s));
            }
        }
    }
    v
}

/// The tests besides jobs that every run has, compared by their unit
/// (time: speed-up, baseline time / time; rates: rate / baseline rate).
fn timed_tests(runs: &[RunRef], b: usize) -> Vec<TestComparison> {
    let all: Vec<Vec<OtherTest>> = runs.iter().map(|r| other(&r.report)).collect();
    let mut out = Vec::new();
    for (name, unit, direction, _) in &all[0] {
        let samples: Option<Vec<Vec<f64>>> = all
            .iter()
            .map(|t| t.iter().find(|(n, ..)| n == name).map(|(.., s)| s.clone()))
            .collect();
        // A test some run has no measured run of (a phase an interrupted
        // run never reached) has no figure to compare: left out, as a test
        // a run lacks is (its median would be NaN, written as null).
        let Some(samples) = samples.filter(|s| s.iter().all(|x| !x.is_empty())) else {
            continue;
        };
        let values: Vec<f64> = samples.iter().map(|s| crate::summary::median(s)).collect();
        let Ratios { ratios, within_noise, ci } = ratios(&values, &samples, b, *unit);
        out.push(TestComparison {
            test: name.clone(),
            job: name.clone(),
            direction: *direction,
            unit: *unit,
            measured_runs: samples.iter().map(Vec::len).collect(),
            cpu_pct_per_100mbs: vec![None; runs.len()],
            mbs_per_price: vec![None; runs.len()],
            warnings: vec![Vec::new(); runs.len()],
            p99_ns: Vec::new(),
            latency: Vec::new(),
            cache_probe: false,
            log_probe: None,
            values,
            ratios,
            within_noise,
            ci,
        });
    }
    out
}

/// The ratios of one test's figures to the baseline's, with their noise verdicts.
struct Ratios {
    ratios: Vec<Option<f64>>,
    within_noise: Vec<Option<bool>>,
    ci: Vec<Option<[f64; 2]>>,
}

/// Each run's ratio to the baseline (run `b`) from `values` (the medians),
/// and its 95% interval from `samples` (each run's per-run figures).
///
/// The ratio is value / baseline value, or for [`Unit::Seconds`] (lower is
/// better) the speed-up, baseline time / time: so that > 1 means better in
/// every unit. The interval is that of the same ratio of medians, so for a
/// speed-up with the roles swapped. A ratio is unknown (`null`) when its
/// divisor is not a positive number; its interval then is too. The
/// baseline's own entry is within the noise, with no interval.
fn ratios(values: &[f64], samples: &[Vec<f64>], b: usize, unit: Unit) -> Ratios {
    let lower_is_better = unit == Unit::Seconds;
    let mut out = Ratios {
        ratios: Vec::with_capacity(values.len()),
        within_noise: Vec::with_capacity(values.len()),
        ci: Vec::with_capacity(values.len()),
    };
    for i in 0..values.len() {
        // Numerator over divisor, as figures and as samples.
        let (num, div) = if lower_is_better { (b, i) } else { (i, b) };
        let (n, d) = (values[num], values[div]);
        let ratio = (d.is_finite() && d > 0.0 && n.is_finite()).then(|| n / d).filter(|r| r.is_finite());
        out.ratios.push(ratio);
        if i == b {
            out.within_noise.push(Some(true));
            out.ci.push(None);
            continue;
        }
        let interval = ratio.and(stats::ratio_ci(&samples[div], &samples[num]));
        out.within_noise.push(interval.map(|(lo, hi)| lo <= 1.0 && 1.0 <= hi));
        out.ci.push(interval.map(|(lo, hi)| [lo, hi]));
    }
    out
}

fn test_comparison(
    test: String,
    job: String,
    d: Direction,
    random: bool,
    jobs: &[&JobReport],
    infos: &[RunInfo],
    b: usize,
) -> TestComparison {
    let unit = if random { Unit::Iops } else { Unit::BytesPerSec };
    let medians: Vec<&DirReport> = jobs.iter().map(|j| dir(j, d).expect("checked")).collect();
    let first = jobs[0];
    let cache_probe = random && first.bs == 4096 && first.qd == 1 && first.threads == 1;
    let log_probe =
        (d == Direction::Write && first.bs == 4096 && first.qd == 1 && first.threads == 1 && !first.sync.is_none()).then_some(first.sync);
    let values: Vec<f64> = medians.iter().map(|m| figure(m, unit)).collect();
    let samples: Vec<Vec<f64>> = jobs.iter().map(|j| per_run(j, d, unit)).collect();
    let Ratios { ratios, within_noise, ci } = ratios(&values, &samples, b, unit);
    TestComparison {
        test,
        job,
        direction: d,
        unit,
        measured_runs: samples.iter().map(Vec::len).collect(),
        cpu_pct_per_100mbs: jobs.iter().map(|j| j.cpu.pct_per_100mbs).collect(),
        mbs_per_price: medians
            .iter()
            .zip(infos)
            .map(|(m, r)| r.price.map(|p| m.bw_bytes / 1e6 / p))
            .collect(),
        warnings: jobs
            .iter()
            .map(|j| {
                let mut codes: Vec<String> = Vec::new();
                for w in &j.warnings {
                    if !codes.iter().any(|c| w.code == c.as_str()) {
                        codes.push(w.code.to_string());
                    }
                }
                codes
            })
            .collect(),
        p99_ns: medians
            .iter()
            .map(|m| m.lat_ns.as_ref().map(|l| l.p99 as f64).filter(|&p| p > 0.0))
            .collect(),
        latency: jobs.iter().map(|j| j.latency.clone()).collect(),
        cache_probe,
        log_probe,
        values,
        ratios,
        within_noise,
        ci,
    }
}
