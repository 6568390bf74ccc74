//! The kinds of document iolab writes (run, scan, ..., selftest): each
//! one's name, its schema's id and version, and the commands that write
//! it. A document names its own kind in its `schema` field; the schemas
//! themselves are generated in [`crate::schema`].

/// A kind of document iolab writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Kind {
    /// Jobs measured by `run` or `job`, or imported from fio.
    Run,
    /// A surface scan (`scan`).
    Scan,
    /// A sweep of depths, threads, sizes or targets (`scale`).
    Scale,
    /// A timed command (`time`).
    Time,
    /// An application workload (`run --suite files|git`).
    App,
    /// Every block written, read back and classified (`verify`).
    Verify,
    /// The probe of a device's real size (`capacity`).
    Capacity,
    /// Stamped generations and their acknowledged flushes, or the check after a power cut (`flush`).
    Flush,
    /// One plan run on many hosts (`run`/`job --hosts`).
    Hosts,
    /// Stored runs side by side (`compare`).
    Comparison,
    /// What `info` found about a target.
    Info,
    /// The stored runs (`list`), one entry each.
    List,
    /// Each figure of `selftest` against its emulated limit.
    Selftest,
}

impl Kind {
    /// Every kind, in `iolab schema`'s order.
    pub const ALL: [Kind; 13] = [
        Kind::Run,
        Kind::Scan,
        Kind::Scale,
        Kind::Time,
        Kind::App,
        Kind::Verify,
        Kind::Capacity,
        Kind::Flush,
        Kind::Hosts,
        Kind::Comparison,
        Kind::Info,
        Kind::List,
        Kind::Selftest,
    ];

    /// The name in the schema's id and in `iolab schema KIND`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Run => "run",
            Kind::Scan => "scan",
            Kind::Scale => "scale",
            Kind::Time => "time",
            Kind::App => "app",
            Kind::Verify => "verify",
            Kind::Capacity => "capacity",
            Kind::Flush => "flush",
            Kind::Hosts => "hosts",
            Kind::Comparison => "comparison",
            Kind::Info => "info",
            Kind::List => "list",
            Kind::Selftest => "selftest",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The version of the kind's schema: bumped on every change a reader
    /// of the previous version could not take (a field removed, renamed,
    /// retyped or given another unit); a new optional field is not one.
    pub fn version(self) -> u32 {
        match self {
            Kind::Run
            | Kind::Scan
            | Kind::Scale
            | Kind::Time
            | Kind::App
            | Kind::Verify
            | Kind::Capacity
            | Kind::Flush
            | Kind::Hosts
            | Kind::Comparison
            | Kind::Info
            | Kind::List
            | Kind::Selftest => 1,
        }
    }

    /// `iolab/KIND/VERSION`: the document's `schema` field, and the
    /// schema's title.
    pub fn id(self) -> String {
        format!("iolab/{}/{}", self.name(), self.version())
    }

    /// `urn:iolab:KIND:VERSION`: the same name as an absolute URI, the
    /// schema's `$id` (a relative `$id` does not resolve in validators).
    pub fn uri(self) -> String {
        format!("urn:iolab:{}:{}", self.name(), self.version())
    }

    /// The commands that write it.
    pub fn written_by(self) -> &'static str {
        match self {
            Kind::Run => "run, job, import (fio), show",
            Kind::Scan => "scan, show",
            Kind::Scale => "scale, show",
            Kind::Time => "time, show",
            Kind::App => "run --suite files|git, show",
            Kind::Verify => "verify, show",
            Kind::Capacity => "capacity, show",
            Kind::Flush => "flush, show",
            Kind::Hosts => "run --hosts, job --hosts",
            Kind::Comparison => "compare",
            Kind::Info => "info",
            Kind::List => "list",
            Kind::Selftest => "selftest",
        }
    }

    /// What the document is, in a few words.
    pub fn about(self) -> &'static str {
        match self {
            Kind::Run => "jobs measured by run or job, or imported from fio",
            Kind::Scan => "a surface scan: the rate per zone, access time, burst rate",
            Kind::Scale => "a sweep of depths, threads, sizes or targets, with its verdicts",
            Kind::Time => "a timed command",
            Kind::App => "an application workload's phases",
            Kind::Verify => "every block written, read back and classified",
            Kind::Capacity => "the probe of a device's real size, and its verdict",
            Kind::Flush => "stamped generations and the flushes that acknowledged them, or what a device kept of them after a power cut",
            Kind::Hosts => "one plan run on many hosts, side by side",
            Kind::Comparison => "stored runs side by side, with ratios and findings",
            Kind::Info => "what iolab found about a target",
            Kind::List => "the stored runs, one entry each (a JSON array)",
            Kind::Selftest => "each figure of the self-test against its emulated limit",
        }
    }

    /// The section a run document of this kind carries beside `jobs`.
    pub fn section(self) -> Option<&'static str> {
        match self {
            Kind::Scan => Some("scan"),
            Kind::Scale => Some("scale"),
            Kind::Time => Some("time"),
            Kind::App => Some("app"),
            Kind::Verify => Some("verify"),
            Kind::Capacity => Some("capacity"),
            Kind::Flush => Some("flush"),
            _ => None,
        }
    }

    /// A run document (`run`, `job`, `scan`... `capacity`): one shape, one
    /// section per kind.
    pub fn is_run(self) -> bool {
        matches!(
            self,
            Kind::Run | Kind::Scan | Kind::Scale | Kind::Time | Kind::App | Kind::Verify | Kind::Capacity | Kind::Flush
        )
    }
}
