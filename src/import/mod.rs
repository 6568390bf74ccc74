//! Importing results into iolab's run document ([`crate::summary::Report`]),
//! so they can be stored and compared with iolab's own runs.
//!
//! - [`parse_fio_json`]: fio's `--output-format=json` / `json+` output, every
//!   shape from fio 2.0.10 (fio's first JSON) onward (see [`fio`] for how
//!   each field is mapped, per fio version, and what fio does not record).
//! - [`parse_fio_client_json`]: fio's client/server output (`fio --client`,
//!   `"client_stats"`): one report per host.
//! - [`parse_iolab_json`]: iolab's own run document (`--json`, `show
//!   --json`), e.g. from another machine.
//! - [`parse_import`]: any of these, told apart by their keys; what
//!   `iolab import` stores.

pub mod fio;
pub mod iolab;
#[cfg(test)]
mod tests;

pub use fio::{parse_fio_client_json, parse_fio_json};
pub use iolab::parse_iolab_json;

use crate::summary::Report;
use serde_json::{Map, Value};

/// What a file given to `iolab import` held: the runs to store, in order.
#[derive(Debug)]
pub struct Imported {
    /// What kind of document it was, in a line for the user
    /// (`a fio --client document of 3 hosts: one run per host, ...`), when
    /// that is worth saying before the runs.
    pub note: Option<String>,
    pub runs: Vec<ImportedRun>,
}

/// One run to store.
#[derive(Debug)]
pub struct ImportedRun {
    pub report: Report,
    /// Tags the document itself gives the run (`host=...` for each host of
    /// a fio client document), set after the user's own.
    pub tags: Vec<(String, String)>,
    /// What the run is, for `stored as run N in DB (...)`.
    pub what: String,
}

/// Read a document to import: iolab's own run document (it has
/// `iolab_version` and one of `jobs`, `scan`, `scale`, `time`, `app`),
/// fio's client/server output (`client_stats`), or fio's JSON output
/// (`jobs`). Text before the JSON object (fio's notes) and after it is skipped.
///
/// A fio client document gives one run per host, in the document's order,
/// each tagged `host=<hostname>` (`host=client-N`, N counting from 1, when
/// the fio that wrote it recorded no host name); fio's `All clients`
/// aggregate is not stored.
pub fn parse_import(text: &str) -> Result<Imported, String> {
    let doc = find_object(text, &["iolab_version", "client_stats", "jobs"], "fio or iolab JSON")?;
    if doc.contains_key("iolab_version") {
        let report = iolab::from_doc(doc)?;
        let what = iolab::describe(&report);
        return Ok(Imported {
            note: None,
            runs: vec![ImportedRun {
                report,
                tags: Vec::new(),
                what,
            }],
        });
    }
    if doc.contains_key("client_stats") {
        let hosts = fio::client_reports(&doc)?;
        let n = hosts.len();
        let unnamed = hosts.iter().filter(|(h, _)| h.is_none()).count();
        let runs: Vec<ImportedRun> = hosts
            .into_iter()
            .enumerate()
            .map(|(i, (host, report))| {
                let tag = host.clone().unwrap_or_else(|| format!("client-{}", i + 1));
                let what = format!(
                    "{} job(s) from {} on {}, tagged host={tag}",
                    report.jobs().len(),
                    report.iolab_version,
                    host.as_deref().unwrap_or("a host fio did not name")
                );
                ImportedRun {
                    report,
                    tags: vec![("host".to_string(), tag)],
                    what,
                }
            })
            .collect();
        let mut note = if n == 1 {
            "a fio --client document of 1 host: its run is tagged host=<hostname>".to_string()
        } else {
            format!(
                "a fio --client document of {n} hosts: one run per host, each tagged host=<hostname>; fio's \"All clients\" sum is not stored"
            )
        };
        if unnamed > 0 {
            note.push_str(&format!(
                "; {unnamed} result(s) carry no host name: tagged host=client-N in the document's order"
            ));
        }
        return Ok(Imported { note: Some(note), runs });
    }
    let report = fio::from_doc(&doc)?;
    let what = format!("{} job(s) from {}", report.jobs().len(), report.iolab_version);
    Ok(Imported {
        note: None,
        runs: vec![ImportedRun {
            report,
            tags: Vec::new(),
            what,
        }],
    })
}

/// The first JSON object in `text` that starts a line and has one of `keys`;
/// anything after it is ignored. Without one, the first object that parses
/// (its error names what is missing) or the first parse error. (Lines
/// inside a JSON object that does not parse, e.g. a truncated file, also
/// start with `{`: they are never taken for the document, so the parse
/// error is what is reported.) `what` names the expected input in errors.
pub(crate) fn find_object(text: &str, keys: &[&str], what: &str) -> Result<Map<String, Value>, String> {
    let mut first_err = None;
    let mut other = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if !trimmed.starts_with('{') {
            continue;
        }
        let at = start + (line.len() - trimmed.len());
        let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(m))) if keys.iter().any(|k| m.contains_key(*k)) => return Ok(m),
            Some(Ok(Value::Object(m))) => {
                other.get_or_insert(m);
            }
            Some(Err(e)) => {
                first_err.get_or_insert(e.to_string());
            }
            _ => {}
        }
    }
    match (first_err, other) {
        (Some(e), _) => Err(format!("not {what}: the JSON object does not parse: {e}")),
        (None, Some(m)) => Ok(m),
        (None, None) => Err(format!(
            "not {what}: no line starts a JSON object (run fio with --output-format=json, or iolab with --json)"
        )),
    }
}
