//! The contract of iolab's JSON documents: one JSON Schema per kind of
//! document, generated from the types that are serialised (`schemars`,
//! under the serialisation contract: a field skipped when empty is not
//! required, an `Option` written as `null` is), with every object strict
//! (`additionalProperties: false`) and every number carrying its unit
//! (`x-unit`, one of [`UNITS`]).
//!
//! Every document names its schema in a top-level `schema` field,
//! `iolab/KIND/VERSION` ([`Kind::id`]); `iolab schema KIND` prints the
//! schema whose title is that name (and whose `$id` is its URN,
//! `urn:iolab:KIND:VERSION`). The committed copies under
//! `schema/` at the top of the repository are checked against the types by
//! a unit test, so a document cannot change without its schema.
//!
//! Runs stored by iolab 0.2.0 and earlier have no `schema` field, and
//! `show` prints a stored run as it was stored: in the run kinds the field
//! is therefore optional (it is required in the others, [`Tagged`]).

pub mod reference;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

use crate::base::document::Kind;

#[cfg(test)]
mod tests;

/// The sections of a run document, one per kind.
const SECTIONS: [&str; 7] = ["scan", "scale", "time", "app", "verify", "capacity", "flush"];

/// The units `x-unit` may name. Every number in every document has one.
pub const UNITS: &[(&str, &str)] = &[
    ("bytes", "a size or an amount of data, in bytes"),
    ("B/s", "bytes per second"),
    ("IOPS", "I/O operations per second"),
    ("ns", "nanoseconds"),
    ("us", "microseconds"),
    ("s", "seconds"),
    ("%", "a percentage: 100 is the whole"),
    (
        "ratio",
        "a quotient of two figures of one unit: 1.0 is equal (a coefficient of variation, a speed-up)",
    ),
    (
        "B/s|IOPS",
        "bytes per second for a sequential figure, I/Os per second for a random one (its `figure` says which)",
    ),
    ("count", "a number of things (I/Os, runs, threads, hosts, blocks, queue slots)"),
    ("id", "a stored run's id in the results store"),
    ("index", "a position: a zone's, a round's (as the field says, from 0 or 1)"),
    ("errno", "a Linux error number (EIO is 5)"),
    ("status", "a process's exit status"),
    ("dev", "a device number's major or minor"),
    ("nonce", "a random number that tells one pass's blocks from another's"),
    ("price", "an amount of money, in the user's currency"),
    ("price/GB", "an amount of money per 10^9 bytes of capacity"),
    ("MB/s/price", "10^6 bytes per second per unit of money"),
    ("weight", "a cgroup io.weight (1-10000, 100 the default)"),
    ("pid", "a process id"),
    ("log2", "a power of two's exponent (ZFS's ashift: 12 is 4096 bytes)"),
    ("of unit", "in the unit named by the object's own `unit` field"),
];

/// The schema of `kind`, as `iolab schema KIND` prints it.
pub fn schema(kind: Kind) -> Value {
    let generator = || SchemaSettings::draft2020_12().for_serialize().into_generator();
    let root = match kind {
        k if k.is_run() => {
            let mut s = generator().into_root_schema_for::<crate::summary::Report>();
            run_kind(&mut s, kind);
            s
        }
        Kind::Hosts => generator().into_root_schema_for::<Tagged<crate::summary::hosts::HostsReport>>(),
        Kind::Comparison => generator().into_root_schema_for::<Tagged<crate::compare::Comparison>>(),
        Kind::Info => generator().into_root_schema_for::<Tagged<crate::device::DeviceReport>>(),
        Kind::List => generator().into_root_schema_for::<Vec<Tagged<crate::store::ListEntry>>>(),
        Kind::Selftest => generator().into_root_schema_for::<Tagged<crate::selftest::SelftestReport>>(),
        _ => unreachable!("every kind is covered"),
    };
    let mut v = root.to_value();
    let obj = v.as_object_mut().expect("a root schema is an object");
    let defs = obj.remove("$defs");
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        obj.remove("$schema")
            .unwrap_or(json!("https://json-schema.org/draft/2020-12/schema")),
    );
    out.insert("$id".into(), json!(kind.uri()));
    out.insert("title".into(), json!(kind.id()));
    out.insert(
        "description".into(),
        json!(format!(
            "iolab's {} document: {} (written by {}).",
            kind.name(),
            kind.about(),
            kind.written_by()
        )),
    );
    obj.remove("title");
    obj.remove("description");
    out.extend(std::mem::take(obj));
    if let Some(defs) = defs {
        out.insert("$defs".into(), defs);
    }
    let mut v = Value::Object(out);
    prune_definitions(&mut v);
    strict(&mut v);
    describe_tags(&mut v);
    plain_links(&mut v);
    v
}

/// Doc comments become descriptions, and their rustdoc links
/// (``[`crate::judge::zfs::write_ratio`]``) mean nothing to a reader of the
/// schema: each becomes plain code naming the item, from its type on
/// (`` `Vdev::ashift` ``) or its last segment (`` `write_ratio` ``).
fn plain_links(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(d)) = o.get_mut("description") {
                *d = unlink(d);
            }
            o.values_mut().for_each(plain_links);
        }
        Value::Array(a) => a.iter_mut().for_each(plain_links),
        _ => {}
    }
}

fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[`") {
        let Some(len) = rest[at + 2..].find("`]") else { break };
        let path = &rest[at + 2..at + 2 + len];
        let segments: Vec<&str> = path.split("::").collect();
        let from = segments
            .iter()
            .position(|s| s.starts_with(|c: char| c.is_ascii_uppercase()))
            .unwrap_or(segments.len() - 1);
        out.push_str(&rest[..at]);
        out.push('`');
        out.push_str(&segments[from..].join("::"));
        out.push('`');
        rest = &rest[at + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// The tag of an internally tagged enum (`"kind": "fake"`) is a property
/// schemars writes itself, without a doc comment to give it one.
fn describe_tags(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Object(props)) = o.get_mut("properties") {
                for p in props.values_mut().filter_map(Value::as_object_mut) {
                    if let Some(Value::String(c)) = p.get("const").cloned()
                        && !p.contains_key("description")
                    {
                        p.insert("description".into(), json!(format!("Which of the alternatives this is: `{c}`.")));
                    }
                }
            }
            o.values_mut().for_each(describe_tags);
        }
        Value::Array(a) => a.iter_mut().for_each(describe_tags),
        _ => {}
    }
}

/// `iolab schema KIND`: the schema, pretty-printed, with a final newline
/// (as the committed file under `schema/` is).
pub fn text(kind: Kind) -> String {
    serde_json::to_string_pretty(&schema(kind)).expect("a schema serialises") + "\n"
}

/// `iolab schema`: the kinds, their versions and the commands that write them.
pub fn listing() -> String {
    let mut t = format!("{:<11} {:<20} {}\n", "KIND", "SCHEMA", "WRITTEN BY");
    for k in Kind::ALL {
        t += &format!("{:<11} {:<20} {}\n", k.name(), k.id(), k.written_by());
    }
    t + "\n`iolab schema KIND` prints a kind's JSON Schema; every document names its own in its \"schema\" field.\n"
}

/// The run document narrowed to `kind`: its `schema` field names the kind,
/// its section is required and the other kinds' sections are absent.
fn run_kind(s: &mut Schema, kind: Kind) {
    let props = s
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .expect("the run document has properties");
    props.insert("schema".into(), tag_schema(kind, false).to_value());
    for section in SECTIONS {
        if Some(section) != kind.section() {
            props.remove(section);
        }
    }
    // The class verdicts come with `run --suite sdcard` only (optional there).
    if kind != Kind::Run {
        props.remove("classes");
    }
    if matches!(kind, Kind::Time | Kind::App | Kind::Verify | Kind::Capacity | Kind::Flush) {
        props.insert(
            "jobs".into(),
            json!({
                "description": "Always empty in this kind: its figures are in its own section.",
                "type": "array",
                "maxItems": 0,
            }),
        );
    }
    if let Some(section) = kind.section() {
        let required = s
            .ensure_object()
            .entry("required")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .expect("required is an array");
        required.push(json!(section));
    }
}

/// Every object with named properties takes no others: a field added to a
/// document without its schema fails validation. (Maps, objects without
/// named properties, keep their `additionalProperties` schema.)
fn strict(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.contains_key("properties") && !o.contains_key("additionalProperties") {
                o.insert("additionalProperties".into(), Value::Bool(false));
            }
            o.values_mut().for_each(strict);
        }
        Value::Array(a) => a.iter_mut().for_each(strict),
        _ => {}
    }
}

/// Drop the definitions no longer reachable from the root (a run kind
/// without the other kinds' sections).
fn prune_definitions(v: &mut Value) {
    let Some(defs) = v.get("$defs").and_then(Value::as_object).cloned() else {
        return;
    };
    let mut reached = std::collections::BTreeSet::new();
    let mut todo: Vec<Value> = vec![Value::Object(
        v.as_object()
            .expect("a schema")
            .iter()
            .filter(|(k, _)| *k != "$defs")
            .map(|(k, x)| (k.clone(), x.clone()))
            .collect(),
    )];
    while let Some(x) = todo.pop() {
        for r in refs(&x) {
            if let Some(name) = r.strip_prefix("#/$defs/")
                && reached.insert(name.to_string())
                && let Some(d) = defs.get(name)
            {
                todo.push(d.clone());
            }
        }
    }
    let kept: Map<String, Value> = defs.into_iter().filter(|(k, _)| reached.contains(k)).collect();
    let obj = v.as_object_mut().expect("a schema");
    if kept.is_empty() {
        obj.remove("$defs");
    } else {
        obj.insert("$defs".into(), Value::Object(kept));
    }
}

/// Every `$ref` in `v`.
fn refs(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(x) = stack.pop() {
        match x {
            Value::Object(o) => {
                if let Some(Value::String(r)) = o.get("$ref") {
                    out.push(r.clone());
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    out
}

/// The schema of a document's `schema` field.
fn tag_schema(kind: Kind, required: bool) -> Schema {
    let why = if required {
        String::new()
    } else {
        " Absent in runs stored by iolab 0.2.0 and earlier, which `show` prints as they were stored.".to_string()
    };
    schemars::json_schema!({
        "description": format!("The document's schema and its version: `iolab schema {}` prints it.{why}", kind.name()),
        "type": "string",
        "const": kind.id(),
    })
}

/// A type written as a whole document of one kind (for `list`: as each
/// entry of the array), through [`Tagged`].
pub trait Versioned: Serialize + JsonSchema {
    const KIND: Kind;
}

impl Versioned for crate::summary::hosts::HostsReport {
    const KIND: Kind = Kind::Hosts;
}
impl Versioned for crate::compare::Comparison {
    const KIND: Kind = Kind::Comparison;
}
impl Versioned for crate::device::DeviceReport {
    const KIND: Kind = Kind::Info;
}
impl Versioned for crate::store::ListEntry {
    const KIND: Kind = Kind::List;
}
impl Versioned for crate::selftest::SelftestReport {
    const KIND: Kind = Kind::Selftest;
}

/// A document as written: `"schema": "iolab/KIND/N"` first, then the
/// document's own fields. (The type itself carries no tag: `iolab info`'s
/// report is also a part of every run, where it names no schema.)
pub struct Tagged<'a, T: Versioned>(&'a T);

impl<'a, T: Versioned> Tagged<'a, T> {
    pub fn new(doc: &'a T) -> Tagged<'a, T> {
        Tagged(doc)
    }
}

impl<T: Versioned> Serialize for Tagged<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a, T> {
            schema: String,
            #[serde(flatten)]
            doc: &'a T,
        }
        Wire {
            schema: T::KIND.id(),
            doc: self.0,
        }
        .serialize(s)
    }
}

impl<T: Versioned> JsonSchema for Tagged<'_, T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        format!("iolab::schema::Tagged<{}>", T::schema_id()).into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let mut s = T::json_schema(g);
        let obj = s.ensure_object();
        obj.entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("a document's properties")
            .insert("schema".into(), tag_schema(T::KIND, true).to_value());
        obj.entry("required")
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .expect("a document's required fields")
            .insert(0, json!("schema"));
        s
    }
}
