//! The built-in suites (CrystalDiskMark's batteries, the sustained and dd
//! transfers, the application workloads) and how they expand into jobs.

use super::{JobSpec, Limit, Region, Rw, SyncMode};
use crate::base::units::fmt_bs;
use crate::io::engine::EngineKind;
use serde::{Deserialize, Serialize};

/// One test of a suite, before it is split into directions.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct SuiteTest {
    pub random: bool,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
}

impl SuiteTest {
    const fn seq(bs: u64, qd: u32, threads: u32) -> Self {
        SuiteTest {
            random: false,
            bs,
            qd,
            threads,
        }
    }
    const fn rnd(bs: u64, qd: u32, threads: u32) -> Self {
        SuiteTest {
            random: true,
            bs,
            qd,
            threads,
        }
    }
    /// CrystalDiskMark's label, e.g. `SEQ1M Q8T1` or `RND4K Q32T16`.
    pub fn label(&self) -> String {
        let kind = if self.random { "RND" } else { "SEQ" };
        format!("{kind}{} Q{}T{}", fmt_bs(self.bs), self.qd, self.threads)
    }
}

/// A built-in suite. Its name and its one-line description
/// ([`SuiteName::description`]) are what `--help`, `iolab suites` and the
/// documents show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteName {
    Default,
    Peak,
    Real,
    Demo,
    Nvme,
    Mix,
    Random512k,
    Sustained,
    Dd,
    Files,
    Git,
    Sdcard,
    Sync,
}

/// The command line's view: each value with its description, defined once.
impl clap::ValueEnum for SuiteName {
    fn value_variants<'a>() -> &'a [Self] {
        &SUITES
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()).help(self.description()))
    }
}

/// What `--suite` names: a built-in suite, or another name, which the
/// configuration file must define.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SuiteChoice {
    BuiltIn(SuiteName),
    User(String),
}

impl SuiteChoice {
    /// A built-in suite's name is that suite; any other name a user suite's.
    pub fn parse(s: &str) -> SuiteChoice {
        match SuiteName::all().into_iter().find(|b| b.as_str() == s) {
            Some(b) => SuiteChoice::BuiltIn(b),
            None => SuiteChoice::User(s.to_string()),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            SuiteChoice::BuiltIn(b) => b.as_str(),
            SuiteChoice::User(s) => s,
        }
    }
    /// The region its jobs address, `full` asked for (`--full`): only the
    /// sdcard suite has a region to widen.
    pub fn region(&self, full: bool) -> Result<Region, String> {
        match self {
            SuiteChoice::BuiltIn(b @ SuiteName::Sdcard) => Ok(b.region(full)),
            _ if full => Err(format!(
                "--full applies to the sdcard suite (suite {} addresses the whole target already, or --size of it)",
                self.as_str()
            )),
            _ => Ok(Region::Whole),
        }
    }
}

const SUITES: [SuiteName; 13] = {
    use SuiteName::*;
    [
        Default, Peak, Real, Demo, Nvme, Mix, Random512k, Sustained, Dd, Files, Git, Sdcard, Sync,
    ]
};

const K: u64 = 1024;
const M: u64 = 1024 * 1024;
/// `sdcard`'s sequential transfers: half a MiB, the recording unit the
/// SD Association's Video Speed Class writes in (and clear of this kernel's
/// throttle artefact at exactly 1 MiB).
const SDCARD_SEQ_BS: u64 = 512 * K;
/// `sdcard`'s deep queue for A2, the depth a command-queueing host keeps.
pub const SDCARD_DEEP_QD: u32 = 32;
/// `sync`'s transfer sizes: a ZFS intent log's small records and a
/// database's pages (4K to 16K), and ZFS's default record (128K).
const SYNC_SIZES: [u64; 4] = [4 * K, 8 * K, 16 * K, 128 * K];

impl SuiteName {
    pub fn all() -> [SuiteName; 13] {
        SUITES
    }
    /// An application workload (phases in seconds), not a list of jobs.
    pub fn is_app(self) -> bool {
        matches!(self, SuiteName::Files | SuiteName::Git)
    }
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteName::Default => "default",
            SuiteName::Peak => "peak",
            SuiteName::Real => "real",
            SuiteName::Demo => "demo",
            SuiteName::Nvme => "nvme",
            SuiteName::Mix => "mix",
            SuiteName::Random512k => "random512k",
            SuiteName::Sustained => "sustained",
            SuiteName::Dd => "dd",
            SuiteName::Files => "files",
            SuiteName::Git => "git",
            SuiteName::Sdcard => "sdcard",
            SuiteName::Sync => "sync",
        }
    }
    pub fn description(self) -> &'static str {
        match self {
            SuiteName::Default => "CrystalDiskMark default: sequential and random, deep and shallow queues",
            SuiteName::Peak => "peak performance: deep queues only",
            SuiteName::Real => "real world: queue depth 1 only",
            SuiteName::Demo => "one quick sequential test",
            SuiteName::Nvme => "CrystalDiskMark NVMe SSD profile",
            SuiteName::Mix => "default tests as mixed I/O, 70% reads / 30% writes",
            SuiteName::Random512k => "random 512K at queue depth 1 (CrystalDiskMark 3's Random 512KB)",
            SuiteName::Sustained => "sustained sequential writes of the whole span at 8K/64K/128K, buffered and O_DIRECT, timed to fsync",
            SuiteName::Dd => "dd-style: write the whole span through the page cache, then read it back cold (128K)",
            SuiteName::Files => "many small files (--files, default 20000): create + fsync, then cold stat, read, rewrite 10%, delete",
            SuiteName::Git => "a generated git history (--commits, default 300): local clone, checkout far back and forward, cold",
            SuiteName::Sdcard => {
                "SD/USB class verdicts: sustained 512K write over min(2 GiB, 10%) (--full: all), read, 4K random at Q1 and Q32"
            }
            SuiteName::Sync => {
                "sync writes at QD1 (4K, 8K, 16K, 128K), each with O_DSYNC, then each followed by an fdatasync: what a ZFS SLOG or a database waits for; latency first"
            }
        }
    }
    pub fn tests(self) -> Vec<SuiteTest> {
        use SuiteTest as T;
        let default = vec![T::seq(M, 8, 1), T::seq(M, 1, 1), T::rnd(4 * K, 32, 1), T::rnd(4 * K, 1, 1)];
        match self {
            SuiteName::Default | SuiteName::Mix => default,
            SuiteName::Peak => vec![T::seq(M, 8, 1), T::rnd(4 * K, 32, 1)],
            SuiteName::Real => vec![T::seq(M, 1, 1), T::rnd(4 * K, 1, 1)],
            SuiteName::Demo => vec![T::seq(M, 8, 1)],
            SuiteName::Nvme => vec![T::seq(M, 8, 1), T::seq(128 * K, 32, 1), T::rnd(4 * K, 32, 16), T::rnd(4 * K, 1, 1)],
            SuiteName::Random512k => vec![T::rnd(512 * K, 1, 1)],
            SuiteName::Sustained => vec![T::seq(8 * K, 1, 1), T::seq(64 * K, 1, 1), T::seq(128 * K, 1, 1)],
            SuiteName::Dd => vec![T::seq(128 * K, 1, 1)],
            SuiteName::Sdcard => vec![T::seq(SDCARD_SEQ_BS, 1, 1), T::rnd(4 * K, 1, 1), T::rnd(4 * K, SDCARD_DEEP_QD, 1)],
            SuiteName::Sync => SYNC_SIZES.iter().map(|&bs| T::seq(bs, 1, 1)).collect(),
            SuiteName::Files | SuiteName::Git => Vec::new(),
        }
    }
    /// Does the suite write to the target?
    pub fn writes(self) -> bool {
        true
    }

    /// How much of the target its jobs address: `sdcard` the sustained
    /// region unless `full`, every other suite the whole target.
    pub fn region(self, full: bool) -> Region {
        match self {
            SuiteName::Sdcard if !full => Region::Sustained,
            _ => Region::Whole,
        }
    }

    /// Expand into jobs in CrystalDiskMark's order: all reads, then all writes
    /// (or one mixed job per test for `mix`).
    pub fn jobs(self, common: &Common) -> Vec<JobSpec> {
        let mut tests = self.tests();
        if matches!(self, SuiteName::Sustained | SuiteName::Dd) && !common.transfers.is_empty() {
            tests = common.transfers.iter().map(|&bs| SuiteTest::seq(bs, 1, 1)).collect();
        }
        let mk = |t: &SuiteTest, rw: Rw, suffix: &str| JobSpec {
            name: format!("{} {suffix}", t.label()),
            rw,
            bs: t.bs,
            qd: t.qd,
            threads: t.threads,
            mix_read: common.mix_read,
            limit: common.limit,
            span: common.span,
            offset: 0,
            direct: common.direct,
            engine: common.engine,
            timing: common.timing,
            sync: Default::default(),
        };
        let pass = |bs: u64, rw: Rw, direct: bool, name: String| JobSpec {
            name,
            rw,
            bs,
            qd: 1,
            threads: 1,
            mix_read: common.mix_read,
            limit: Limit::Span,
            span: common.span,
            offset: 0,
            direct,
            engine: common.engine,
            timing: common.timing,
            sync: Default::default(),
        };
        match self {
            SuiteName::Sustained => {
                let mut v: Vec<JobSpec> = tests
                    .iter()
                    .map(|t| pass(t.bs, Rw::Write, false, format!("SUSTAINED {} buffered", fmt_bs(t.bs))))
                    .collect();
                v.extend(
                    tests
                        .iter()
                        .map(|t| pass(t.bs, Rw::Write, true, format!("SUSTAINED {} direct", fmt_bs(t.bs)))),
                );
                return v;
            }
            SuiteName::Dd => {
                // One write-then-read pair per transfer size.
                return tests
                    .iter()
                    .flat_map(|t| {
                        [
                            pass(t.bs, Rw::Write, false, format!("DD write {}", fmt_bs(t.bs))),
                            pass(t.bs, Rw::Read, false, format!("DD read {}", fmt_bs(t.bs))),
                        ]
                    })
                    .collect();
            }
            SuiteName::Sync => {
                // Each size with O_DSYNC, then with a flush after each write,
                // side by side: sequential, as a log is written.
                return tests
                    .iter()
                    .flat_map(|t| {
                        [SyncMode::Dsync, SyncMode::Fsync].map(|sync| JobSpec {
                            name: format!("SYNC{} Q1T1 write {}", fmt_bs(t.bs), sync.as_str()),
                            sync,
                            ..mk(t, Rw::Write, "write")
                        })
                    })
                    .collect();
            }
            SuiteName::Sdcard => {
                // The sustained write first, on the region it then reads back;
                // the random tests address that region too (written, so no
                // read lands on flash that was never written), writes last.
                let (seq, random) = (&tests[0], &tests[1..]);
                let mut v = vec![
                    pass(seq.bs, Rw::Write, common.direct, format!("{} write", seq.label())),
                    pass(seq.bs, Rw::Read, common.direct, format!("{} read", seq.label())),
                ];
                v.extend(random.iter().map(|t| mk(t, Rw::Randread, "read")));
                v.extend(random.iter().map(|t| mk(t, Rw::Randwrite, "write")));
                return v;
            }
            _ => {}
        }
        if self == SuiteName::Mix {
            let suffix = format!("mix R{}/W{}", common.mix_read, 100 - common.mix_read);
            return tests
                .iter()
                .map(|t| mk(t, if t.random { Rw::Randrw } else { Rw::Rw }, &suffix))
                .collect();
        }
        let reads = tests.iter().map(|t| mk(t, if t.random { Rw::Randread } else { Rw::Read }, "read"));
        let writes = tests
            .iter()
            .map(|t| mk(t, if t.random { Rw::Randwrite } else { Rw::Write }, "write"));
        reads.chain(writes).collect()
    }
}

/// Settings shared by every job of a suite.
#[derive(Clone, Debug)]
pub struct Common {
    pub limit: Limit,
    pub span: u64,
    pub direct: bool,
    pub engine: EngineKind,
    pub mix_read: u8,
    /// How each I/O's latency is taken.
    pub timing: crate::plan::Timing,
    /// Transfer sizes replacing the suite's own (`sustained`: the list;
    /// `dd`: one size). Empty: the suite's defaults.
    pub transfers: Vec<u64>,
}

/// One suite as `iolab suites` lists it: where it comes from (`built-in`,
/// or the configuration file's path) and its jobs.
#[derive(Clone, Debug)]
pub struct Listed {
    pub name: String,
    pub description: String,
    pub source: String,
    pub jobs: Vec<JobSpec>,
}

impl Listed {
    /// The settings jobs are listed with: 5 s runs, O_DIRECT, io_uring, 70% reads.
    pub fn common() -> Common {
        Common {
            limit: Limit::Time(std::time::Duration::from_secs(5)),
            span: 0,
            direct: true,
            engine: EngineKind::IoUring,
            mix_read: 70,
            timing: Default::default(),
            transfers: Vec::new(),
        }
    }

    /// Every built-in suite.
    pub fn built_in() -> Vec<Listed> {
        SuiteName::all()
            .into_iter()
            .map(|s| Listed {
                name: s.as_str().to_string(),
                description: s.description().to_string(),
                source: "built-in".to_string(),
                jobs: s.jobs(&Listed::common()),
            })
            .collect()
    }
}

/// `iolab suites`: each suite's name, description and source, then its
/// jobs, one a line, each described by [`super::describe`].
pub fn listing(all: &[Listed]) -> String {
    let w = all.iter().map(|a| a.name.chars().count()).max().unwrap_or(0).max(8);
    let mut s = String::new();
    for l in all {
        let description = if l.description.is_empty() {
            String::new()
        } else {
            format!("{} ", l.description)
        };
        s.push_str(&format!("{:<w$} {description}({})\n", l.name, l.source));
        for j in &l.jobs {
            s.push_str(&format!("{:w$} {:<26} {}\n", "", j.name, super::describe(j)));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn common() -> Common {
        Common {
            limit: Limit::Time(Duration::from_secs(5)),
            span: 1 << 30,
            direct: true,
            engine: EngineKind::IoUring,
            mix_read: 70,
            timing: Default::default(),
            transfers: Vec::new(),
        }
    }

    #[test]
    fn transfer_sizes_replace_the_sustained_and_dd_defaults() {
        let c = Common {
            transfers: vec![512, 4 * K, 1024 * K],
            ..common()
        };
        let names: Vec<String> = SuiteName::Sustained.jobs(&c).into_iter().map(|j| j.name).collect();
        assert_eq!(names[0], "SUSTAINED 512 buffered");
        assert_eq!(names[5], "SUSTAINED 1M direct");
        let c = Common {
            transfers: vec![512],
            ..common()
        };
        let d = SuiteName::Dd.jobs(&c);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].name, "DD write 512");
        assert!(d.iter().all(|j| j.bs == 512));
        // Other suites keep their CrystalDiskMark sizes.
        assert_eq!(SuiteName::Default.jobs(&c)[0].bs, M);
    }

    #[test]
    fn default_suite_is_reads_then_writes_in_cdm_order() {
        let names: Vec<String> = SuiteName::Default.jobs(&common()).into_iter().map(|j| j.name).collect();
        assert_eq!(
            names,
            [
                "SEQ1M Q8T1 read",
                "SEQ1M Q1T1 read",
                "RND4K Q32T1 read",
                "RND4K Q1T1 read",
                "SEQ1M Q8T1 write",
                "SEQ1M Q1T1 write",
                "RND4K Q32T1 write",
                "RND4K Q1T1 write"
            ]
        );
    }

    #[test]
    fn nvme_suite_matches_crystaldiskmark() {
        let labels: Vec<String> = SuiteName::Nvme.tests().iter().map(|t| t.label()).collect();
        assert_eq!(labels, ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]);
    }

    #[test]
    fn mix_suite_is_mixed_70_30() {
        let jobs = SuiteName::Mix.jobs(&common());
        assert_eq!(jobs.len(), 4);
        assert_eq!(jobs[0].rw, Rw::Rw);
        assert_eq!(jobs[2].rw, Rw::Randrw);
        assert_eq!(jobs[2].name, "RND4K Q32T1 mix R70/W30");
        assert_eq!(jobs[2].rw.read_pct(jobs[2].mix_read), 70);
    }

    #[test]
    fn random512k_suite_is_one_random_test_each_way() {
        let names: Vec<String> = SuiteName::Random512k.jobs(&common()).into_iter().map(|j| j.name).collect();
        assert_eq!(names, ["RND512K Q1T1 read", "RND512K Q1T1 write"]);
    }

    #[test]
    fn sustained_and_dd_suites_are_whole_span_passes() {
        let s = SuiteName::Sustained.jobs(&common());
        let names: Vec<&str> = s.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SUSTAINED 8K buffered",
                "SUSTAINED 64K buffered",
                "SUSTAINED 128K buffered",
                "SUSTAINED 8K direct",
                "SUSTAINED 64K direct",
                "SUSTAINED 128K direct"
            ]
        );
        assert!(s.iter().all(|j| j.limit == Limit::Span && j.rw == Rw::Write && j.qd == 1));
        assert_eq!(s.iter().filter(|j| j.direct).count(), 3);
        let d = SuiteName::Dd.jobs(&common());
        assert_eq!((d[0].rw, d[1].rw), (Rw::Write, Rw::Read));
        assert!(d.iter().all(|j| !j.direct && j.bs == 128 * K && j.limit == Limit::Span));
    }

    #[test]
    fn sdcard_suite_writes_its_region_first_then_reads_it() {
        let jobs = SuiteName::Sdcard.jobs(&common());
        let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SEQ512K Q1T1 write",
                "SEQ512K Q1T1 read",
                "RND4K Q1T1 read",
                "RND4K Q32T1 read",
                "RND4K Q1T1 write",
                "RND4K Q32T1 write"
            ]
        );
        assert!(jobs[..2].iter().all(|j| j.limit == Limit::Span && j.direct));
        assert!(
            jobs[2..]
                .iter()
                .all(|j| j.limit == Limit::Time(Duration::from_secs(5)) && j.bs == 4 * K)
        );
        assert_eq!(SuiteName::Sdcard.region(false), Region::Sustained);
        assert_eq!(SuiteName::Sdcard.region(true), Region::Whole);
        assert_eq!(SuiteName::Default.region(false), Region::Whole);
        assert_eq!(SuiteChoice::parse("sdcard").region(true), Ok(Region::Whole));
        assert!(
            SuiteChoice::parse("default")
                .region(true)
                .unwrap_err()
                .starts_with("--full applies to the sdcard suite")
        );
        assert!(SuiteChoice::parse("mine").region(true).is_err(), "a user suite has no region");
        assert_eq!(SuiteChoice::parse("mine").region(false), Ok(Region::Whole));
    }

    #[test]
    fn sync_suite_writes_each_size_with_o_dsync_then_with_a_flush_after_each_write() {
        let jobs = SuiteName::Sync.jobs(&common());
        let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "SYNC4K Q1T1 write dsync",
                "SYNC4K Q1T1 write fsync",
                "SYNC8K Q1T1 write dsync",
                "SYNC8K Q1T1 write fsync",
                "SYNC16K Q1T1 write dsync",
                "SYNC16K Q1T1 write fsync",
                "SYNC128K Q1T1 write dsync",
                "SYNC128K Q1T1 write fsync"
            ]
        );
        let modes: Vec<SyncMode> = jobs.iter().map(|j| j.sync).collect();
        assert_eq!(modes, [SyncMode::Dsync, SyncMode::Fsync].repeat(4));
        assert!(
            jobs.iter()
                .all(|j| j.rw == Rw::Write && j.qd == 1 && j.threads == 1 && j.direct && j.limit == common().limit)
        );
        assert!(jobs.iter().all(|j| j.validate().is_ok()));
        assert_eq!(SuiteChoice::parse("sync"), SuiteChoice::BuiltIn(SuiteName::Sync));
        assert!(listing(&Listed::built_in()).contains("SYNC16K Q1T1 write fsync"));
        // Every other suite's jobs write as the device takes them.
        for s in SuiteName::all().into_iter().filter(|s| *s != SuiteName::Sync) {
            assert!(s.jobs(&common()).iter().all(|j| j.sync == SyncMode::None), "{}", s.as_str());
        }
    }

    #[test]
    fn peak_real_demo() {
        assert_eq!(SuiteName::Peak.jobs(&common()).len(), 4);
        assert_eq!(SuiteName::Real.tests()[1].label(), "RND4K Q1T1");
        assert_eq!(SuiteName::Demo.jobs(&common()).len(), 2);
    }
}
