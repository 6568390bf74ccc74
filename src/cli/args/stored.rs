//! The arguments of the commands that read the results store (`list`,
//! `show`, `compare`, `report`, `import`): the other side of the data flow
//! from the measuring commands in [`super`].

use super::*;

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only runs whose label contains TEXT
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Only runs with this tag (repeatable: all must match)
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    pub tag: Vec<(String, String)>,
    /// Only runs on this device: a kernel name (sdb, /dev/sdb, loop3), a model or a serial, as the
    /// run's document names its target and the devices under it
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Only runs started at or after this: a date (2026-01-31, midnight UTC), a UTC date and time
    /// (2026-01-31T12:00:00Z) or a time ago (7d, 12h, 2weeks)
    #[arg(long, value_name = "WHEN", value_parser = store::parse_since)]
    pub since: Option<String>,
    /// At most N runs (in id order, after --offset); by default all
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Skip the first N runs the filters keep
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub files: StoreArgs,
}

impl ListArgs {
    /// The store's filter for these flags.
    pub fn filter(&self) -> store::Filter {
        store::Filter {
            label: self.label.clone(),
            tags: self.tag.clone(),
            device: self.device.clone(),
            since: self.since.clone(),
            page: store::Page {
                limit: self.limit,
                offset: self.offset,
            },
        }
    }
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Stored run ids (two or more)
    #[arg(required = true, num_args = 2..)]
    pub ids: Vec<i64>,
    /// The run the others are measured against (default: the first)
    #[arg(long)]
    pub baseline: Option<i64>,
    /// Price of a run's device, e.g. --price 3=59.99 (repeatable; stored with the run)
    #[arg(long, value_name = "ID=PRICE", value_parser = store::parse_price)]
    pub price: Vec<(i64, f64)>,
    /// Capacity of a run's device for $/GB, e.g. --capacity 3=1TB (repeatable; stored with the run;
    /// default: the size of the device iolab found under the target)
    #[arg(long, value_name = "ID=SIZE", value_parser = store::parse_capacity)]
    pub capacity: Vec<(i64, u64)>,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub files: StoreArgs,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Stored run ids (the first column of `iolab list`); with two or more the report compares them
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<i64>,
    /// With several runs: the run the others are measured against (default: the first)
    #[arg(long)]
    pub baseline: Option<i64>,
    /// Write the report to PATH (`-`: stdout). Default: stdout when it is not a terminal, else
    /// iolab-report-ID[-ID...].html in the current directory
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub files: StoreArgs,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// fio's JSON output file (text before the JSON, such as fio's notes, is skipped), or an iolab
    /// run's JSON document (--json, show --json)
    pub file: PathBuf,
    /// A label for the stored run(s)
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// A tag for the stored run(s) (repeatable; a fio --client document's runs also get host=...)
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    pub tag: Vec<(String, String)>,
    #[command(flatten)]
    pub files: StoreArgs,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The stored run's id (the first column of `iolab list`)
    pub id: i64,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub files: StoreArgs,
}
