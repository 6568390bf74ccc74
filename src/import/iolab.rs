//! iolab's own run document (what `--json` and `show --json` print, see
//! docs/json.md and [`crate::summary`]'s `document.rs`) → the
//! [`Report`] it describes, so a run measured on another machine (or by a
//! colleague) joins the local store and compares with local runs.
//!
//! The document is kept as it is: its host, command, `started_at`, target
//! and figures; only `run_id` is reset (the store gives a new one). A
//! document of a newer iolab loads as long as the fields this iolab knows
//! keep their meaning: fields it does not know are ignored (serde's
//! default; no struct of the document denies unknown fields), unknown
//! warning codes, patterns and engines are kept as written. They are not
//! kept in the store, which holds the document as this iolab writes it.

use crate::summary::Report;
use serde_json::{Map, Value};

/// The sections of a run document; a run has `jobs` or one of the others.
const SECTIONS: [&str; 5] = ["jobs", "scan", "scale", "time", "app"];

/// Read an iolab run document (text before the JSON object and after it is skipped).
pub fn parse_iolab_json(text: &str) -> Result<Report, String> {
    from_doc(super::find_object(text, &["iolab_version"], "an iolab JSON document")?)
}

/// An object already found: check that it is a run document, then load it.
pub(super) fn from_doc(doc: Map<String, Value>) -> Result<Report, String> {
    let version = match doc.get("iolab_version") {
        Some(Value::String(v)) => v.clone(),
        Some(_) => return Err("not an iolab run document: \"iolab_version\" is not a string".into()),
        None => return Err("not an iolab run document: no \"iolab_version\"".into()),
    };
    if !SECTIONS.iter().any(|k| doc.contains_key(*k)) {
        return Err(format!(
            "an iolab {version} document without any of {}: not a run (import the JSON of `iolab show ID --json` or `--json`)",
            SECTIONS.map(|s| format!("\"{s}\"")).join(", ")
        ));
    }
    let mut report: Report = serde_json::from_value(Value::Object(doc))
        .map_err(|e| format!("an iolab {version} run document that this iolab cannot load: {e}"))?;
    report.run_id = None;
    Ok(report)
}

/// `an iolab 0.2.0 document from HOST` (or, for a run it had imported from
/// fio, `an iolab document of a fio-3.33 import from HOST`).
pub(super) fn describe(r: &Report) -> String {
    if r.command.starts_with("import:") {
        format!("an iolab document of a {} import from {}", r.iolab_version, r.host.hostname)
    } else {
        format!("an iolab {} document from {}", r.iolab_version, r.host.hostname)
    }
}
