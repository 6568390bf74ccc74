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
use crate::io::engine::EngineKind;
use crate::plan::{Common, Custom, JobSpec, Limit, Rw, SuiteName, limits};
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
                let mut s = JobSpec::custom(Custom {
                    rw: j.rw,
                    bs: j.bs,
                    qd: j.qd,
                    threads: j.threads,
                    mix_read: j.mix_read.unwrap_or(common.mix_read),
                    limit: common.limit,
                    direct: common.direct,
                    engine: common.engine,
                });
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
    // The table: the last header before the line. A header's own errors
    // (`[price]` misspelled) are its parent's: the header's name without
    // its last part, or the top level.
    let header = |l: &str| {
        let l = l.trim();
        l.starts_with('[')
            .then(|| l.trim_start_matches('[').split(']').next().unwrap_or("").trim().to_string())
    };
    let this_line = text[line_start..].lines().next().unwrap_or("");
    let section = match header(this_line) {
        Some(own) => own.rsplit_once('.').map(|(parent, _)| parent.trim().to_string()),
        None => text[..line_start].lines().filter_map(header).next_back(),
    };
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
mod tests;
