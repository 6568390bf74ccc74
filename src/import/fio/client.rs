//! fio's client/server JSON (`fio --client=HOST ... --output-format=json`)
//! → one [`Report`] per host.
//!
//! The document (fio's `client.c`, since fio 2.1.4) has `"client_stats"`
//! where a plain run has `"jobs"`: one job object per job and server, each
//! with the server's `"hostname"` (as given to `--client`) and `"port"`, and,
//! with more than one server, a last entry named `"All clients"` that sums
//! them (bytes and I/Os summed, bandwidth over the longest runtime; it
//! carries the hostname of the server that reported last, so it is told
//! apart by its name). `"disk_util"` entries carry the hostname and port too.
//! `"global options"` is one object (before fio 3.39 the servers' global
//! options merged into it) or, from fio 3.39 with several servers, an array
//! of objects, each with the hostname and port of its server.

use super::{find_document, fio_report};
use crate::summary::Report;
use serde_json::{Map, Value};

/// fio's name for its sum over the servers.
const ALL_CLIENTS: &str = "All clients";

/// Parse fio's client/server JSON: one report per host, in the order the
/// hosts first appear in `client_stats`, without fio's `All clients` sum.
/// A host's jobs are the entries with its hostname and port; its report's
/// `host.hostname` is that hostname (`hostname:port` when two servers share
/// a hostname), and it is returned beside the report.
///
/// Hosts without a name: fio issue #515 reports `client_stats` entries that
/// carry no host (fio 3.2 and earlier). The source of every fio release
/// since client JSON appeared (2.1.4) adds `hostname` and `port` to each
/// entry, an empty hostname when the client had none; either way an entry
/// without a (non-empty) hostname cannot be matched to a server, so it is
/// taken as one client of its own, in the document's order: returned with
/// `None` (and `host.hostname` `"unknown"`), its job alone, no `disk_util`.
pub fn parse_fio_client_json(text: &str) -> Result<Vec<(Option<String>, Report)>, String> {
    client_reports(&find_document(text)?)
}

/// One server's entries.
struct Host<'a> {
    name: Option<String>,
    port: Option<u64>,
    jobs: Vec<&'a Value>,
}

pub(in crate::import) fn client_reports(doc: &Map<String, Value>) -> Result<Vec<(Option<String>, Report)>, String> {
    let stats = doc
        .get("client_stats")
        .and_then(Value::as_array)
        .ok_or("not fio --client output: no \"client_stats\" array (fio's plain JSON output: read it with parse_fio_json)")?;
    let mut hosts: Vec<Host> = Vec::new();
    for entry in stats {
        if entry.get("jobname").and_then(Value::as_str) == Some(ALL_CLIENTS) {
            continue;
        }
        let (name, port) = host_of(entry);
        match hosts.iter_mut().find(|h| name.is_some() && h.name == name && h.port == port) {
            Some(h) => h.jobs.push(entry),
            None => hosts.push(Host {
                name,
                port,
                jobs: vec![entry],
            }),
        }
    }
    if hosts.is_empty() {
        return Err("fio --client output without results of any host".into());
    }
    let disk_util: &[Value] = doc.get("disk_util").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    let mut out = Vec::with_capacity(hosts.len());
    for h in &hosts {
        let label = h.name.as_ref().map(|n| {
            let shared = hosts.iter().filter(|o| o.name.as_ref() == Some(n)).count() > 1;
            match h.port {
                Some(p) if shared => format!("{n}:{p}"),
                _ => n.clone(),
            }
        });
        let global = global_options(doc, h);
        let du: Vec<Value> = if h.name.is_some() {
            disk_util
                .iter()
                .filter(|d| host_of(d) == (h.name.clone(), h.port))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        let report = fio_report(doc, &h.jobs, &global, &du, label.as_deref())
            .map_err(|e| format!("host {}: {e}", label.as_deref().unwrap_or("(unnamed)")))?;
        out.push((label, report));
    }
    Ok(out)
}

/// An entry's server: its non-empty hostname and its port.
fn host_of(v: &Value) -> (Option<String>, Option<u64>) {
    let name = v
        .get("hostname")
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty())
        .map(str::to_string);
    (name, v.get("port").and_then(Value::as_u64))
}

/// The global options that apply to a host: the one object, or (fio 3.39+,
/// several servers) its server's element of the array, without the
/// hostname and port fio added to tell them apart.
fn global_options(doc: &Map<String, Value>, h: &Host) -> Map<String, Value> {
    match doc.get("global options") {
        Some(Value::Object(m)) => m.clone(),
        Some(Value::Array(list)) => list
            .iter()
            .find(|g| h.name.is_some() && host_of(g) == (h.name.clone(), h.port))
            .and_then(Value::as_object)
            .map(|m| {
                let mut m = m.clone();
                m.remove("hostname");
                m.remove("port");
                m
            })
            .unwrap_or_default(),
        _ => Map::new(),
    }
}
