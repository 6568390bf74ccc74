//! The configuration file: defaults for the measuring commands and user
//! suites made of jobs.
//!
//! ```toml
//! [defaults]
//! size = "4GiB"
//! runs = 5
//! duration = "10s"
//! [prices]                       # for compare's $/GB and MB/s per $
//! "Samsung SSD 870 EVO 1TB" = 59.99   # a device model, serial, or run label
//! "usb stick A" = { price = 12.5, capacity = "128GB" }
//! [suites.our-nightly]
//! description = "what the lab runs every night"
//! jobs = [
//!   { rw = "read", bs = "1M", qd = 8 },
//!   { rw = "randread", bs = "4k", qd = 32, threads = 4 },
//! ]
//! ```
//!
//! Everything here is checked when the file is read: unknown keys, wrong
//! types, sizes and durations that do not parse, and every job of every
//! suite (with [`JobSpec::validate`], so the messages are the flags'). A
//! problem is one error naming the file, the line and column, and the key.
//! Where the file is found, and how its defaults are merged with the
//! command line, is the command line's business.

use crate::base::error::{Result, usage};
use crate::base::units;
use crate::compare::ListedPrice;
use crate::plan::{Common, EngineKind, JobSpec, Limit, Rw, SuiteName, limits};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// A configuration file, read and checked.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Where it was read from (named in errors and in `iolab suites`).
    pub path: PathBuf,
    pub defaults: Defaults,
    /// User suites, in the file's order.
    pub suites: Vec<UserSuite>,
    /// `[prices]`: what devices cost, in the file's order (see [`crate::compare::listed_price`]).
    pub prices: Vec<ListedPrice>,
}

/// `[defaults]`: each one applies where the command line gives no value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defaults {
    pub size: Option<u64>,
    pub runs: Option<crate::plan::Runs>,
    pub duration: Option<Duration>,
    pub warmup: Option<Duration>,
    pub interval: Option<crate::plan::Interval>,
    /// How each I/O's latency is taken (`exact`, `batch`, `batch=N`, `off`).
    pub latency: Option<crate::plan::Timing>,
    /// The results store (`~/` is the home directory; a relative path is
    /// relative to the configuration file's directory).
    pub db: Option<PathBuf>,
    pub engine: Option<EngineKind>,
}

/// A suite defined in the configuration file.
#[derive(Clone, Debug, PartialEq)]
pub struct UserSuite {
    pub name: String,
    pub description: String,
    pub jobs: Vec<UserJob>,
}

/// One job of a user suite: its shape; the length, span, engine and
/// O_DIRECT come from the command (and the defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct UserJob {
    /// Its name in the results (default: as `iolab job` names it, `randread 4K Q32T1`).
    pub name: Option<String>,
    pub rw: Rw,
    pub bs: u64,
    pub qd: u32,
    pub threads: u32,
    /// Percentage of reads of a mixed job (default: `--mix-read`).
    pub mix_read: Option<u8>,
}

impl UserSuite {
    /// The suite's jobs, in the file's order, with `common`'s settings.
    pub fn jobs(&self, common: &Common) -> Vec<JobSpec> {
        self.jobs
            .iter()
            .map(|j| {
                let mut s = JobSpec::custom(
                    j.rw,
                    j.bs,
                    j.qd,
                    j.threads,
                    j.mix_read.unwrap_or(common.mix_read),
                    common.limit,
                    common.direct,
                    common.engine,
                );
                if let Some(n) = &j.name {
                    s.name = n.clone();
                }
                s.span = common.span;
                s.timing = common.timing;
                s
            })
            .collect()
    }
}

impl Config {
    /// Read and check the file at `path`.
    pub fn load(path: &Path) -> Result<Config> {
        let text = crate::base::paths::read_text(path, "the configuration file").map_err(usage)?;
        Config::parse(&text, path)
    }

    /// Check `text`, read from `path` (named in the errors).
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let at = |offset: usize, msg: &str| usage(located(text, path, offset, msg));
        let raw: RawConfig = toml::from_str(text).map_err(|e| at(e.span().map_or(0, |s| s.start), e.message()))?;
        let d = raw.defaults.unwrap_or_default();
        let defaults = Defaults {
            size: d.size.map(|s| s.0),
            runs: d.runs.map(|r| r.0),
            duration: d.duration.map(|s| s.0),
            warmup: d.warmup.map(|s| s.0),
            interval: d.interval.map(|s| s.0),
            latency: d.latency.map(|s| s.0),
            db: d.db.map(|p| resolve(&p, path)),
            engine: d.engine,
        };
        let mut raw_suites: Vec<(String, Spanned<RawSuite>)> = raw.suites.into_iter().collect();
        raw_suites.sort_by_key(|(_, s)| s.span().start);
        let mut suites = Vec::new();
        for (name, s) in raw_suites {
            let start = s.span().start;
            if SuiteName::all().iter().any(|b| b.as_str() == name) {
                return Err(at(start, &format!("suite {name} is a built-in suite: choose another name")));
            }
            let s = s.into_inner();
            if s.jobs.is_empty() {
                return Err(at(start, &format!("suite {name} has no jobs")));
            }
            let mut jobs = Vec::new();
            for j in s.jobs {
                let jstart = j.span().start;
                let j = j.into_inner();
                let job = UserJob {
                    name: j.name,
                    rw: j.rw,
                    bs: j.bs.0,
                    qd: j.qd.unwrap_or(1),
                    threads: j.threads.unwrap_or(1),
                    mix_read: j.mix_read,
                };
                let one = UserSuite {
                    name: name.clone(),
                    description: String::new(),
                    jobs: vec![job.clone()],
                };
                for spec in one.jobs(&check_common()) {
                    spec.validate().map_err(|e| at(jstart, &format!("in [suites.{name}]: job {e}")))?;
                }
                jobs.push(job);
            }
            suites.push(UserSuite {
                name,
                description: s.description.unwrap_or_default(),
                jobs,
            });
        }
        let mut raw_prices: Vec<(String, Spanned<RawPrice>)> = raw.prices.into_iter().collect();
        raw_prices.sort_by_key(|(_, p)| p.span().start);
        let mut prices = Vec::new();
        for (key, p) in raw_prices {
            let start = p.span().start;
            let (price, capacity) = match p.into_inner() {
                RawPrice::Price(v) => (v, None),
                RawPrice::Full { price, capacity } => (price, capacity.map(|c| c.0)),
            };
            if !(price.is_finite() && price > 0.0) {
                return Err(at(
                    start,
                    &format!("in [prices]: the price of \"{key}\" must be positive, got {price}"),
                ));
            }
            prices.push(ListedPrice {
                key,
                price,
                capacity_bytes: capacity,
            });
        }
        Ok(Config {
            path: path.to_path_buf(),
            defaults,
            suites,
            prices,
        })
    }

    /// The user suite called `name`.
    pub fn suite(&self, name: &str) -> Option<&UserSuite> {
        self.suites.iter().find(|s| s.name == name)
    }
}

/// The settings jobs are checked with when the file is read (the real ones
/// come from the command).
fn check_common() -> Common {
    Common {
        limit: Limit::Time(Duration::from_secs(1)),
        span: 0,
        direct: true,
        engine: EngineKind::IoUring,
        mix_read: 70,
        timing: Default::default(),
        transfers: Vec::new(),
    }
}

impl Config {
    /// The configuration file in effect: `given` (`--config PATH`, which
    /// must exist), else the default one if it exists: under sudo the
    /// invoking user's (`sudo_home()`, their home), else [`default_path_from`]
    /// the environment.
    pub fn in_effect(given: Option<&Path>, sudo_home: impl FnOnce() -> Option<PathBuf>) -> Result<Option<Config>> {
        if let Some(p) = given {
            return Config::load(p).map(Some);
        }
        let default = match sudo_home() {
            Some(home) => Some(home.join(".config/iolab/config.toml")),
            None => default_path_from(|k| std::env::var_os(k)),
        };
        let Some(p) = default else { return Ok(None) };
        match std::fs::metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => Config::load(&p).map(Some),
        }
    }
}

/// The default configuration file: `$XDG_CONFIG_HOME/iolab/config.toml`,
/// else `~/.config/iolab/config.toml`; none without either variable.
pub fn default_path_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(x) = get("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(x).join("iolab/config.toml"));
    }
    get("HOME").map(|h| PathBuf::from(h).join(".config/iolab/config.toml"))
}

/// Every suite `--suite` accepts: the built-in ones, then the file's.
pub fn suite_names(cfg: Option<&Config>) -> Vec<String> {
    let user = cfg.into_iter().flat_map(|c| c.suites.iter().map(|s| s.name.clone()));
    SuiteName::all().iter().map(|s| s.as_str().to_string()).chain(user).collect()
}

/// Where user suites come from, for messages about suites.
pub fn user_suites_note(cfg: Option<&Config>) -> String {
    match cfg {
        Some(c) if !c.suites.is_empty() => format!(
            "user suites ({}): {}",
            c.path.display(),
            c.suites.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
        Some(c) => format!("{} defines no suites", c.path.display()),
        None => "no configuration file: user suites are defined under [suites.NAME] in $XDG_CONFIG_HOME/iolab/config.toml or --config PATH"
            .into(),
    }
}

/// The message for an unknown suite, in one line.
pub fn unknown_suite_message(name: &str, cfg: Option<&Config>) -> String {
    format!(
        "no suite '{name}': built-in suites are {}; {}",
        SuiteName::all().map(|s| s.as_str()).join(", "),
        user_suites_note(cfg)
    )
}

/// `~/x` under the home directory; a relative path next to the file.
fn resolve(p: &str, file: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
    {
        return PathBuf::from(home).join(rest);
    }
    let p = PathBuf::from(p);
    if p.is_relative() && p.as_os_str() != ":memory:" {
        file.parent().map(|d| d.join(&p)).unwrap_or(p)
    } else {
        p
    }
}

/// `path:line:column: message`, naming the key at `offset` and its table.
fn located(text: &str, path: &Path, offset: usize, msg: &str) -> String {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..offset].chars().count() + 1;
    let msg = msg.trim();
    // The table: the last header before the line (a header's own errors
    // are its parent's).
    let section = text[..line_start]
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            l.starts_with('[')
                .then(|| l.trim_start_matches('[').split(']').next().unwrap_or("").trim().to_string())
        })
        .next_back();
    // The key whose value is at `offset`, if it is a value.
    let key = (!msg.starts_with("unknown field"))
        .then(|| text[line_start..offset].rfind('='))
        .flatten()
        .and_then(|i| {
            let k = text[line_start..line_start + i].trim_end();
            let k: String = k
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '"'))
                .collect();
            let k: String = k.chars().rev().collect();
            (!k.is_empty()).then_some(k)
        });
    let table = |s: &str| {
        if s.is_empty() {
            "the top level".to_string()
        } else {
            format!("[{s}]")
        }
    };
    let body = match (&section, key) {
        (_, _) if msg.starts_with("in [") => msg.to_string(),
        (Some(s), None) if msg.starts_with("unknown field") => match msg.split_once(", expected") {
            Some((a, b)) => format!("{a} in {}, expected{b}", table(s)),
            None => format!("{msg} in {}", table(s)),
        },
        (None, None) if msg.starts_with("unknown field") => match msg.split_once(", expected") {
            Some((a, b)) => format!("{a} at the top level, expected{b}"),
            None => msg.to_string(),
        },
        (Some(s), Some(k)) => format!("{k} in {}: {msg}", table(s)),
        (None, Some(k)) => format!("{k}: {msg}"),
        (_, None) => msg.to_string(),
    };
    format!("{}:{line}:{col}: {body}", path.display())
}

// ------------------------------------------------------------ the file's shape

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    defaults: Option<RawDefaults>,
    #[serde(default)]
    suites: BTreeMap<String, Spanned<RawSuite>>,
    #[serde(default)]
    prices: BTreeMap<String, Spanned<RawPrice>>,
}

/// A price: `59.99`, or `{ price = 12.5, capacity = "128GB" }`.
#[derive(Deserialize)]
#[serde(untagged, expecting = "a price such as 59.99, or { price = 59.99, capacity = \"1TB\" }")]
enum RawPrice {
    Price(f64),
    Full { price: f64, capacity: Option<NonzeroSize> },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    size: Option<NonzeroSize>,
    runs: Option<RunsValue>,
    duration: Option<NonzeroDuration>,
    warmup: Option<AnyDuration>,
    interval: Option<IntervalValue>,
    latency: Option<LatencyValue>,
    db: Option<String>,
    engine: Option<EngineKind>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    description: Option<String>,
    jobs: Vec<Spanned<RawJob>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    name: Option<String>,
    rw: Rw,
    bs: BlockSize,
    qd: Option<u32>,
    threads: Option<u32>,
    mix_read: Option<u8>,
}

/// A value given as text (`"4k"`, `"1m30s"`) or as a number, checked by `parse`.
fn text_or_number<'de, D: serde::Deserializer<'de>, T>(
    d: D,
    what: &'static str,
    parse: fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<T, D::Error> {
    struct V<T>(&'static str, fn(&str) -> std::result::Result<T, String>);
    impl<T> serde::de::Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "{}", self.0)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<T, E> {
            (self.1)(v).map_err(E::custom)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<T, E> {
            self.visit_str(&v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<T, E> {
            self.visit_str(&v.to_string())
        }
    }
    d.deserialize_any(V(what, parse))
}

macro_rules! checked {
    ($name:ident, $t:ty, $what:literal, $parse:expr) => {
        struct $name($t);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                text_or_number(d, $what, $parse).map($name)
            }
        }
    };
}

checked!(NonzeroSize, u64, "a size such as \"4GiB\"", |s| match units::parse_size(s)? {
    0 => Err("size must be greater than 0".into()),
    v => Ok(v),
});
checked!(BlockSize, u64, "a block size such as \"4k\"", limits::parse::bs);
checked!(
    NonzeroDuration,
    Duration,
    "a duration such as \"10s\"",
    |s| match units::parse_duration(s)? {
        d if d.is_zero() => Err("duration must be greater than 0".into()),
        d => Ok(d),
    }
);
checked!(AnyDuration, Duration, "a duration such as \"1s\"", units::parse_duration);

checked!(
    RunsValue,
    crate::plan::Runs,
    "a number of runs such as 5, or \"auto\"",
    crate::plan::Runs::parse
);
checked!(
    IntervalValue,
    crate::plan::Interval,
    "a duration such as \"1s\", or \"auto\"",
    crate::plan::Interval::parse
);
checked!(
    LatencyValue,
    crate::plan::Timing,
    "a latency mode: \"exact\", \"batch\", \"batch=N\" or \"off\"",
    crate::plan::Timing::parse
);

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[defaults]
size = "4GiB"
runs = 5
duration = "1m30s"
warmup = "0"
interval = "500ms"
engine = "psync"
db = "/var/lib/iolab.db"

[suites.our-nightly]
description = "what the lab runs every night"
jobs = [
  { rw = "read", bs = "1M", qd = 8 },
  { rw = "randread", bs = "4k", qd = 32, threads = 4 },
  { rw = "randwrite", bs = "4k", qd = 1, name = "RND4K Q1T1 write" },
]

[suites.aaa]
jobs = [{ rw = "randrw", bs = 4096, mix_read = 50 }]
"#;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("/etc/x/config.toml"))
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn runs_interval_and_latency_take_auto_and_modes() {
        let c = parse("[defaults]\nruns = \"auto:20\"\ninterval = \"auto\"\nlatency = \"batch=8\"\n").unwrap();
        assert_eq!(c.defaults.runs, Some(crate::plan::Runs::Auto { max: 20 }));
        assert_eq!(c.defaults.interval, Some(crate::plan::Interval::Auto));
        assert_eq!(c.defaults.latency, Some(crate::plan::Timing::Batch(Some(8))));
        let e = err("[defaults]\nlatency = \"sometimes\"\n");
        assert!(
            e.contains("2:11: latency in [defaults]: \"sometimes\" is not a latency mode: exact, batch, batch=N or off"),
            "{e}"
        );
    }

    #[test]
    fn good_file() {
        let c = parse(GOOD).unwrap();
        assert_eq!(
            c.defaults,
            Defaults {
                size: Some(4 << 30),
                runs: Some(crate::plan::Runs::Fixed(5)),
                duration: Some(Duration::from_secs(90)),
                warmup: Some(Duration::ZERO),
                interval: Some(crate::plan::Interval::Fixed(Duration::from_millis(500))),
                latency: None,
                db: Some(PathBuf::from("/var/lib/iolab.db")),
                engine: Some(EngineKind::Psync),
            }
        );
        let names: Vec<&str> = c.suites.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["our-nightly", "aaa"], "the file's order");
        let s = c.suite("our-nightly").unwrap();
        assert_eq!(s.description, "what the lab runs every night");
        assert_eq!(s.jobs.len(), 3);
        assert_eq!(c.suite("aaa").unwrap().jobs[0].bs, 4096);
    }

    #[test]
    fn empty_file_is_no_settings() {
        let c = parse("").unwrap();
        assert_eq!(c.defaults, Defaults::default());
        assert!(c.suites.is_empty());
    }

    #[test]
    fn user_suite_to_jobs() {
        let c = parse(GOOD).unwrap();
        let common = Common {
            limit: Limit::Time(Duration::from_millis(200)),
            span: 16 << 20,
            direct: false,
            engine: EngineKind::Psync,
            mix_read: 70,
            timing: crate::plan::Timing::Off,
            transfers: Vec::new(),
        };
        let jobs = c.suite("our-nightly").unwrap().jobs(&common);
        let got: Vec<(&str, Rw, u64, u32, u32)> = jobs.iter().map(|j| (j.name.as_str(), j.rw, j.bs, j.qd, j.threads)).collect();
        assert_eq!(
            got,
            [
                ("read 1M Q8T1", Rw::Read, 1 << 20, 8, 1),
                ("randread 4K Q32T4", Rw::Randread, 4096, 32, 4),
                ("RND4K Q1T1 write", Rw::Randwrite, 4096, 1, 1),
            ]
        );
        assert!(
            jobs.iter()
                .all(|j| j.limit == common.limit && !j.direct && j.engine == EngineKind::Psync && j.span == 16 << 20)
        );
        assert_eq!(jobs[0].mix_read, 70);
        assert_eq!(c.suite("aaa").unwrap().jobs(&common)[0].mix_read, 50);
    }

    /// Issue 12: the documentation's example file (docs/run.md since issue
    /// 24) is a good file.
    #[test]
    fn issue_12_readme_example_file_parses() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/run.md")).unwrap();
        let start = readme.find("```toml\n").expect("a TOML example") + "```toml\n".len();
        let end = start + readme[start..].find("```").unwrap();
        let c = parse(&readme[start..end]).unwrap();
        assert_eq!(c.suite("our-nightly").unwrap().jobs.len(), 3);
        assert_eq!(c.prices.len(), 2);
    }

    #[test]
    fn price_list() {
        let c = parse("[prices]\n\"Samsung SSD 870 EVO 1TB\" = 59.99\nstick = { price = 12, capacity = \"128GB\" }\nb = 3\n").unwrap();
        let got: Vec<(&str, f64, Option<u64>)> = c.prices.iter().map(|p| (p.key.as_str(), p.price, p.capacity_bytes)).collect();
        assert_eq!(
            got,
            [
                ("Samsung SSD 870 EVO 1TB", 59.99, None),
                ("stick", 12.0, Some(128_000_000_000)),
                ("b", 3.0, None)
            ],
            "the file's order"
        );
        let e = err("[prices]\na = 1\nb = -2\n");
        assert!(
            e.starts_with("/etc/x/config.toml:3:5: in [prices]: the price of \"b\" must be positive"),
            "{e}"
        );
        let e = err("[prices]\na = \"cheap\"\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:5: a in [prices]: ") && e.contains("a price such as 59.99"),
            "{e}"
        );
        let e = err("[prices]\na = { price = 3, capacity = \"big\" }\n");
        assert!(e.starts_with("/etc/x/config.toml:2:5:"), "{e}");
    }

    #[test]
    fn bad_toml() {
        let e = err("[defaults]\nsize = \"4GiB\nruns = 3\n");
        assert!(e.starts_with("/etc/x/config.toml:2:"), "{e}");
    }

    #[test]
    fn unknown_key() {
        let e = err("[defaults]\nruns = 3\nsze = \"1G\"\n");
        assert!(
            e.starts_with("/etc/x/config.toml:3:1: unknown field `sze` in [defaults], expected"),
            "{e}"
        );
        assert!(e.contains("size"), "{e}");
        let e = err("[suites.x]\njobs = [\n  { rw = \"read\", bs = \"1M\", depth = 8 },\n]\n");
        assert!(
            e.starts_with("/etc/x/config.toml:3:29: unknown field `depth` in [suites.x], expected one of `name`, `rw`"),
            "{e}"
        );
        let e = err("[price]\nx = 1\n");
        assert!(
            e.starts_with("/etc/x/config.toml:1:2: unknown field `price` at the top level"),
            "{e}"
        );
    }

    #[test]
    fn wrong_type() {
        let e = err("[defaults]\nruns = \"five\"\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:8: runs in [defaults]: 'five' is not a whole number"),
            "{e}"
        );
        let e = err("[defaults]\nsize = true\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:8: size in [defaults]: invalid type: boolean `true`, expected a size"),
            "{e}"
        );
        let e = err("[suites.x]\ndescription = 3\njobs = [{ rw = \"read\", bs = \"4k\" }]\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:15: description in [suites.x]: invalid type: integer `3`, expected a string"),
            "{e}"
        );
        let e = err("[defaults]\nengine = \"spdk\"\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:10: engine in [defaults]: unknown variant `spdk`"),
            "{e}"
        );
    }

    #[test]
    fn bad_values() {
        let e = err("[defaults]\nsize = \"4q\"\n");
        assert!(
            e.starts_with("/etc/x/config.toml:2:8: size in [defaults]: invalid size unit 'q'"),
            "{e}"
        );
        let e = err("[defaults]\nduration = \"0s\"\n");
        assert!(e.contains("2:12: duration in [defaults]: duration must be greater than 0"), "{e}");
        let e = err("[defaults]\nruns = 0\n");
        assert!(e.contains("2:8: runs in [defaults]: runs must be between 1 and 1000, got 0"), "{e}");
        let e = err("[suites.x]\njobs = [{ rw = \"read\", bs = \"1000\" }]\n");
        assert!(
            e.contains("2:29: bs in [suites.x]: block size must be a multiple of 512 bytes, got 1000"),
            "{e}"
        );
    }

    #[test]
    fn invalid_job() {
        let e = err("[suites.x]\njobs = [\n  { rw = \"read\", bs = \"1M\" },\n  { rw = \"read\", bs = \"4k\", qd = 0 },\n]\n");
        assert_eq!(
            e,
            "/etc/x/config.toml:4:3: in [suites.x]: job read 4K Q0T1: queue depth must be between 1 and 4096, got 0"
        );
        let e = err("[suites.x]\njobs = [{ rw = \"read\", bs = \"4k\", threads = 300, name = \"big\" }]\n");
        assert!(
            e.ends_with("in [suites.x]: job big: threads must be between 1 and 256, got 300"),
            "{e}"
        );
        let e = err("[suites.x]\njobs = []\n");
        assert!(e.contains("suite x has no jobs"), "{e}");
        let e = err("[suites.nvme]\njobs = [{ rw = \"read\", bs = \"4k\" }]\n");
        assert!(e.contains("suite nvme is a built-in suite"), "{e}");
    }

    #[test]
    fn default_path() {
        let env =
            |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| OsString::from(p.1));
        assert_eq!(
            default_path_from(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/iolab/config.toml"))
        );
        assert_eq!(
            default_path_from(env(&[("XDG_CONFIG_HOME", ""), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.config/iolab/config.toml"))
        );
        assert_eq!(default_path_from(env(&[])), None);
    }

    /// Hostile values for a key of the file.
    const HOSTILE: &[&str] = &[
        "0",
        "-1",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "1e308",
        "-1e308",
        "1e400",
        "nan",
        "+nan",
        "-nan",
        "inf",
        "+inf",
        "-inf",
        "0.5",
        "-0.0",
        "0x7fffffffffffffff",
        "0o777",
        "0b1",
        "1_000",
        "true",
        "1979-05-27T07:32:00Z",
        "07:32:00",
        "\"\"",
        "\"0\"",
        "\"-1s\"",
        "\"1e400\"",
        "\"18446744073709551616\"",
        "\"99999999999999T\"",
        "\"5000000000000000000s 1ns\"",
        "\"NaN\"",
        "\"inf\"",
        "\"4q\"",
        "\"~/\"",
        "\"\\u0000\"",
        "'''\nx'''",
        "[]",
        "[1, \"a\"]",
        "{}",
        "{ price = nan }",
        "{ price = 1, capacity = \"0\" }",
        "{ price = 1, capacity = -1 }",
        "[{ rw = \"read\", bs = \"4k\", qd = 4294967296 }]",
        "[{ rw = \"randrw\", bs = \"4k\", mix_read = 255 }]",
        "[{ rw = \"randrw\", bs = \"4k\", mix_read = 256 }]",
        "[{ rw = \"write\", bs = 0 }]",
        "[{ rw = \"write\", bs = 67109376 }]",
    ];

    /// Text to splice into a file: a hostile value, a key, a header, a
    /// duplicate, deep nesting.
    fn splice() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            4 => proptest::sample::select(HOSTILE).prop_map(str::to_string),
            1 => proptest::sample::select(&["\n[defaults]\n", "\n[suites.x]\n", "\n[prices]\n", "\n[[suites]]\n", "\nruns = 3\n", "\n[defaults]\nruns = 1\nruns = 2\n", "=", "\"", "[", "]", "{", "}", ",", "\n", "#"][..]).prop_map(str::to_string),
            1 => (prop_oneof![Just(129usize), Just(10_000), 1usize..200], any::<bool>()).prop_map(|(d, arrays)| {
                if arrays { format!("{}1{}", "[".repeat(d), "]".repeat(d)) } else { format!("{}1{}", "{ a = ".repeat(d), " }".repeat(d)) }
            }),
            1 => ".{0,12}",
        ]
    }

    /// What to do to a good file: put `text` after the `=` of a line, in
    /// place of the line, or at a byte; or cut the file at a byte.
    #[derive(Clone, Debug)]
    enum Edit {
        Value(proptest::sample::Index, String),
        Line(proptest::sample::Index, String),
        Insert(proptest::sample::Index, String),
        Truncate(proptest::sample::Index),
    }

    fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Value(i, t)),
            1 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Line(i, t)),
            1 => (any::<proptest::sample::Index>(), splice()).prop_map(|(i, t)| Edit::Insert(i, t)),
            1 => any::<proptest::sample::Index>().prop_map(Edit::Truncate),
        ]
    }

    fn apply(text: &str, e: &Edit) -> String {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let floor = |s: &str, mut i: usize| {
            i = i.min(s.len());
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        match e {
            Edit::Value(i, t) if !lines.is_empty() => {
                let n = i.index(lines.len());
                let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                if let Some(eq) = out[n].find('=') {
                    out[n] = format!("{}= {t}\n", &out[n][..eq]);
                }
                out.concat()
            }
            Edit::Line(i, t) if !lines.is_empty() => {
                let n = i.index(lines.len());
                let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                out[n] = format!("{t}\n");
                out.concat()
            }
            Edit::Insert(i, t) => {
                let at = floor(text, i.index(text.len() + 1));
                format!("{}{t}{}", &text[..at], &text[at..])
            }
            Edit::Truncate(i) => text[..floor(text, i.index(text.len() + 1))].to_string(),
            _ => text.to_string(),
        }
    }

    /// The good files: this module's, the documentation's example
    /// (docs/run.md), prices.
    fn good_files() -> Vec<String> {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/run.md")).unwrap();
        let start = readme.find("```toml\n").unwrap() + "```toml\n".len();
        let end = start + readme[start..].find("```").unwrap();
        vec![
            GOOD.to_string(),
            readme[start..end].to_string(),
            "[prices]\n\"Samsung SSD 870 EVO 1TB\" = 59.99\nstick = { price = 12, capacity = \"128GB\" }\n".to_string(),
        ]
    }

    proptest::proptest! {
        #![proptest_config(crate::import::proptests::config())]

        /// Issue 16: a configuration file mutated every way (wrong types,
        /// huge, negative and non-finite numbers, broken syntax, duplicate
        /// keys and tables, deep nesting, truncation) is read or refused
        /// with a located message; it never panics.
        #[test]
        fn issue_16_mutated_config_files_never_panic(
            which in 0usize..3,
            edits in proptest::collection::vec(edit(), 1..4),
        ) {
            let mut text = good_files()[which].clone();
            for e in &edits {
                text = apply(&text, e);
            }
            match parse(&text) {
                Ok(c) => {
                    // What the commands do with it.
                    for s in &c.suites {
                        for spec in s.jobs(&check_common()) {
                            proptest::prop_assert!(spec.validate().is_ok());
                        }
                    }
                    let _ = crate::deliver::suites(Some(&c));
                }
                Err(e) => {
                    let e = e.to_string();
                    proptest::prop_assert!(e.starts_with("/etc/x/config.toml:"), "{}", e);
                }
            }
        }
    }

    /// Issue 16: 10,000 nested arrays or inline tables are an error (the
    /// TOML parser's recursion limit), not a stack overflow.
    #[test]
    fn issue_16_deeply_nested_config_is_an_error() {
        for v in [
            format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000)),
            format!("{}1{}", "{ a = ".repeat(10_000), " }".repeat(10_000)),
        ] {
            for text in [
                format!("[defaults]\nruns = {v}\n"),
                format!("[suites.x]\njobs = {v}\n"),
                format!("x = {v}\n"),
            ] {
                let e = err(&text);
                assert!(e.starts_with("/etc/x/config.toml:"), "{e}");
            }
        }
        let deep_header = format!("[{}]\n", vec!["a"; 10_000].join("."));
        assert!(err(&deep_header).starts_with("/etc/x/config.toml:"));
    }

    #[test]
    fn db_paths() {
        let c = Config::parse("[defaults]\ndb = \"runs.db\"\n", Path::new("/etc/iolab/config.toml")).unwrap();
        assert_eq!(c.defaults.db, Some(PathBuf::from("/etc/iolab/runs.db")));
    }
}
