//! Where a result goes: the output options every measuring command shares
//! ([`OutputArgs`]: the progress, the stored run's label and tags),
//! how a result is printed ([`ExportArgs`], with `--json`'s
//! [`json_path`]), and the results store and configuration file
//! ([`StoreArgs`], [`ConfigArgs`]).

use super::*;

/// What happens to a result: shared by every command that measures.
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// No progress bars and no live zone or point lines: only the result (and warnings on stderr)
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub export: ExportArgs,
    /// Do not keep this run in the results store
    #[arg(long)]
    pub no_store: bool,
    /// A label for the stored run, e.g. "ZFS mirror over USB"
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// A tag for the stored run (repeatable), e.g. --tag bus=usb --tag fs=zfs
    #[arg(long, value_name = "KEY=VALUE", value_parser = store::parse_tag)]
    pub tag: Vec<(String, String)>,
    #[command(flatten)]
    pub files: StoreArgs,
}

/// The results store and the configuration file: every command that keeps
/// or reads runs.
#[derive(Args, Debug, Default, Clone)]
pub struct StoreArgs {
    /// Results store (default: $IOLAB_DB, else the configuration file's `db`, else
    /// $XDG_DATA_HOME/iolab/results.db; under sudo, the invoking user's)
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// The configuration file alone: `iolab suites`.
#[derive(Args, Debug, Default, Clone)]
pub struct ConfigArgs {
    /// Configuration file: defaults and user suites (default: $XDG_CONFIG_HOME/iolab/config.toml,
    /// else ~/.config/iolab/config.toml; command-line flags win over it)
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

/// How a result is printed: shared by every command that prints one, with
/// one meaning everywhere.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// The JSON document to PATH (the table still goes to stdout), or alone to stdout with `-`; a bare
    /// --json is `--json -` (put it after the command's other arguments, or write --json -)
    #[arg(
        long,
        value_name = "PATH|-",
        num_args = 0..=1,
        default_missing_value = "-",
        value_parser = json_path,
        conflicts_with_all = ["format", "output"]
    )]
    pub json: Option<PathBuf>,
    /// Output format: table (for people), json (the complete document), markdown (for issues), csv (for spreadsheets)
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write the output to PATH instead of stdout (`-`: stdout)
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// Bandwidth unit of tables, charts and live lines (table and markdown): mb (MB/s = 10^6 bytes/s, as
    /// CrystalDiskMark), mib (2^20 bytes/s), gb (10^9 bytes/s); JSON and CSV keep bytes/s
    #[arg(long, value_enum, default_value = "mb")]
    pub units: BwUnit,
}

impl ExportArgs {
    /// Where and how the document is written.
    pub fn to(&self) -> crate::deliver::Export {
        crate::deliver::Export {
            format: self.format,
            output: self.output.clone(),
            units: self.units,
            json: self.json.clone(),
        }
    }
}

/// `--json`'s PATH: a file to write, or `-`. A bare `--json` before the
/// command's own arguments would take the next one as its PATH, and every
/// command's arguments are run ids, directories or devices: those are
/// refused here, so that such a line fails instead of writing over them.
pub fn json_path(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    let is = |what: &str| {
        format!(
            "--json {s}: {s} is {what}, not a file to write the JSON to; give a file, or - for stdout, \
             or put a bare --json after the command's other arguments"
        )
    };
    if s.is_empty() {
        return Err("--json needs a file, or - for stdout".into());
    }
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(is("a run id"));
    }
    match std::fs::metadata(&p) {
        Ok(m) if m.is_dir() => Err(is("a directory")),
        Ok(m) if std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()) => Err(is("a block device")),
        _ => Ok(p),
    }
}
