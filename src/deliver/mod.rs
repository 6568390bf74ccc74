//! Delivery, the last stage: what a command writes, where, and how it ends.
//!
//! Every result leaves through here. A measured run is kept in the store,
//! then printed ([`run`]); a many-hosts run is kept per host and printed as
//! a group ([`hosts`]); stored runs are loaded, priced, compared and printed
//! ([`stored`]). Each function returns a [`Delivery`]: the lines for stderr
//! and the documents for stdout or files, in the order they are to be
//! written, and the error the command ends with (its exit status). The
//! front end ([`crate::cli`]) only writes them, so a test sees what a
//! command would write, and how it would end, without a process.

mod layouts;
mod measured;
pub mod stored;

pub use layouts::layouts;
pub use measured::{Request, hosts, restored, run, selftest};

use crate::base::error::{Error, Result, failed, usage};
use crate::base::units::BwUnit;
use crate::config::Config;
use crate::plan::{Listed, listing};
use crate::render::{self, Document, Format, Style};
use std::path::{Path, PathBuf};

/// One thing to write.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A line for stderr, as it is to be printed.
    Say(String),
    /// A text for stdout (`to: None`) or for the file `to`.
    Write { to: Option<PathBuf>, text: String },
}

/// What a command writes, in order, and the error it ends with (`None`:
/// exit status 0). A write that fails ends the command there, with its
/// error.
#[derive(Debug, Default)]
pub struct Delivery {
    pub steps: Vec<Step>,
    pub exit: Option<Error>,
}

impl Delivery {
    /// The steps `f` adds, ending with the error it returns.
    fn collect(f: impl FnOnce(&mut Delivery) -> Result<()>) -> Delivery {
        let mut d = Delivery::default();
        if let Err(e) = f(&mut d) {
            d.exit = Some(e);
        }
        d
    }

    /// `text` on stdout, and nothing else.
    pub fn print(text: String) -> Delivery {
        Delivery {
            steps: vec![Step::Write { to: None, text }],
            exit: None,
        }
    }

    /// `iolab: LINE` on stderr.
    fn say(&mut self, line: impl std::fmt::Display) {
        self.steps.push(Step::Say(format!("iolab: {line}")));
    }

    /// `doc` as `x` says: `--json PATH` writes the JSON document to PATH
    /// and the table to stdout, `--json -` the JSON document alone to
    /// stdout; without `--json`, its format to its file or stdout.
    fn export(&mut self, x: &Export, doc: Document, out: Stdout) -> Result<()> {
        for one in x.writes() {
            self.export_one(&one, doc, out)?;
        }
        Ok(())
    }

    /// `doc` in `x`'s format, to its file or stdout (`x.json` is not read).
    fn export_one(&mut self, x: &Export, doc: Document, out: Stdout) -> Result<()> {
        let file = x.file();
        let style = Style {
            units: x.units,
            color: file.is_none() && out.color,
        };
        let text = render::exporter(x.format, style).export(doc).ok_or_else(|| {
            usage(format!(
                "--format {} has no view of {}; use --format {}",
                x.format.name(),
                doc.name(),
                render::formats_of(doc).replace(", ", "|")
            ))
        })?;
        self.steps.push(Step::Write {
            to: file.map(Path::to_path_buf),
            text,
        });
        Ok(())
    }

    /// A run's warnings on stderr (for when stdout does not carry its table).
    fn warn(&mut self, report: &crate::summary::Report) {
        for line in render::warning_lines(report) {
            self.say(line);
        }
    }
}

/// How a document is written: `--format`, `-o`, `--units`, `--json`, the
/// same on every command that writes one.
#[derive(Clone, Debug, PartialEq)]
pub struct Export {
    pub format: Format,
    /// The file to write (`None` or `-`: stdout).
    pub output: Option<PathBuf>,
    pub units: BwUnit,
    /// `--json PATH`: the JSON document to PATH, and the table still on
    /// stdout; `--json -`: the JSON document alone on stdout. It stands
    /// for `--format` and `-o` (clap refuses them together).
    pub json: Option<PathBuf>,
}

impl Export {
    /// The same with `--format json`.
    pub fn or_json(&self, json: bool) -> Export {
        let mut x = self.clone();
        if json {
            x.format = Format::Json;
        }
        x
    }

    /// The file to write, when not stdout.
    pub fn file(&self) -> Option<&Path> {
        self.output.as_deref().filter(|p| p.as_os_str() != "-")
    }

    /// The file `--json` writes, when not stdout.
    pub fn json_file(&self) -> Option<&Path> {
        self.json.as_deref().filter(|p| p.as_os_str() != "-")
    }

    /// The documents to write, in order, each without `--json`: with
    /// `--json PATH` the JSON to PATH and then the table on stdout, with
    /// `--json -` the JSON on stdout, else this one.
    pub fn writes(&self) -> Vec<Export> {
        let plain = |format, output| Export {
            format,
            output,
            units: self.units,
            json: None,
        };
        match (&self.json, self.json_file()) {
            (None, _) => vec![plain(self.format, self.output.clone())],
            (Some(_), None) => vec![plain(Format::Json, None)],
            (Some(_), Some(p)) => vec![plain(Format::Json, Some(p.to_path_buf())), plain(Format::Table, None)],
        }
    }

    /// Whether stdout carries the document's table (else a run's warnings
    /// go to stderr).
    pub fn table_on_stdout(&self) -> bool {
        self.writes().iter().any(|x| x.format == Format::Table && x.file().is_none())
    }

    /// What can be checked before anything is measured: every file to
    /// write is in a directory that exists.
    pub fn check(&self) -> Result<()> {
        for (what, p) in [("JSON", self.json_file()), ("output", self.file())] {
            let Some(p) = p else { continue };
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
            if parent.is_some_and(|d| !d.is_dir()) {
                return Err(usage(format!(
                    "cannot write {what} to {}: its directory does not exist",
                    p.display()
                )));
            }
        }
        Ok(())
    }
}

/// What the process's stdout is: a terminal (`iolab report` then writes a
/// file), coloured (a terminal without `NO_COLOR`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stdout {
    pub terminal: bool,
    pub color: bool,
}

impl Stdout {
    /// This process's stdout.
    pub fn detect() -> Stdout {
        use std::io::IsTerminal;
        let terminal = std::io::stdout().is_terminal();
        Stdout {
            terminal,
            color: render::use_color(terminal, std::env::var_os("NO_COLOR").as_deref()),
        }
    }
}

/// Run `f` (a measurement) under the stop flag (SIGINT, SIGTERM) with the
/// live view on stderr (silent when `quiet`), cleared when it returns.
pub fn live<T>(quiet: bool, units: BwUnit, f: impl FnOnce(&crate::experiment::Context) -> T) -> T {
    let stop = crate::base::signals::Stop::install();
    let view = render::progress::Terminal::new(quiet, units);
    let ctx = crate::experiment::Context {
        stop: &stop,
        observer: &view,
        sys: crate::device::SysRoot::default(),
    };
    let result = f(&ctx);
    view.finish();
    result
}

/// Write `bytes` to the file a user named; a refused path (a planted link,
/// a block device) is a usage error.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::base::paths::write_output(path, bytes).map_err(|e| if e.starts_with("refusing") { usage(e) } else { failed(e) })
}

/// How a run whose result was printed ends: the error its exit status
/// comes from, and the lesser ones, said on stderr before it. A signal
/// first (128+N), then the error that stopped the run (1), then a device
/// that failed its check (3), then a store that could not keep the result (4).
pub fn ending(
    interrupted: Option<i32>,
    failed: Option<Error>,
    check: Option<String>,
    not_saved: Option<Error>,
) -> (Option<Error>, Vec<Error>) {
    let mut all: Vec<Error> = [interrupted.map(Error::Interrupted), failed, check.map(Error::Check), not_saved]
        .into_iter()
        .flatten()
        .collect();
    if all.is_empty() {
        return (None, all);
    }
    let exit = all.remove(0);
    (Some(exit), all)
}

/// `iolab suites`: the built-in suites, then the configuration file's,
/// each with where it comes from.
pub fn suites(config: Option<&Config>) -> Delivery {
    let mut all = Listed::built_in();
    if let Some(c) = config {
        all.extend(c.suites.iter().map(|s| Listed {
            name: s.name.clone(),
            description: s.description.clone(),
            source: c.path.display().to_string(),
            jobs: s.jobs(&Listed::common()),
        }));
    }
    Delivery::print(listing(&all))
}

/// `iolab info TARGET`: what iolab finds about a target that exists.
pub fn info(target: &Path, x: &Export, out: Stdout) -> Delivery {
    Delivery::collect(|d| {
        if !target.exists() {
            return Err(usage(format!("target {} does not exist", target.display())));
        }
        let report = crate::device::describe(&crate::device::SysRoot::default(), target)
            .map_err(|e| usage(format!("cannot describe {}: {e}", target.display())))?;
        d.export(x, Document::Device(&report), out)
    })
}

#[cfg(test)]
mod tests;
