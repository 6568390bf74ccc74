use super::*;
use crate::summary::Report;
use std::path::PathBuf;

fn committed(kind: Kind) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(format!("{}.json", kind.name()))
}

/// The files under `schema/` are what the types generate: a document
/// cannot change without its committed schema changing in the same commit.
#[test]
fn the_committed_schemas_are_the_ones_the_types_generate() {
    let stale: Vec<Kind> = Kind::ALL
        .into_iter()
        .filter(|&k| std::fs::read_to_string(committed(k)).ok() != Some(text(k)))
        .collect();
    let commands: Vec<String> = stale
        .iter()
        .map(|k| format!("    cargo run -q -- schema {0} > schema/{0}.json", k.name()))
        .collect();
    assert!(
        stale.is_empty(),
        "the JSON documents of {} no longer match their committed schema.\n\
         If a reader of the committed version could not read the new documents (a field removed, \
         renamed, retyped, made required, or given another unit), first bump the kind's version \
         in Kind::version (src/base/document.rs); a new optional field needs no bump. Then regenerate:\n{}\n",
        stale.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "),
        commands.join("\n")
    );
}

/// Where `unit` applies in `v`: `Some(unit)` set by an `x-unit` above,
/// `None` on a fresh property.
fn walk_numbers(v: &Value, path: &str, unit: Option<&str>, described: bool, out: &mut Vec<String>) {
    let Some(o) = v.as_object() else { return };
    let unit = o.get("x-unit").and_then(Value::as_str).or(unit);
    let described = described || o.contains_key("description");
    if let Some(u) = o.get("x-unit") {
        match u.as_str() {
            Some(u) if UNITS.iter().any(|(name, _)| *name == u) => {}
            _ => out.push(format!("{path}: x-unit {u} is not one of schema::UNITS")),
        }
    }
    let types: Vec<&str> = match o.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.iter().any(|t| *t == "number" || *t == "integer") {
        if unit.is_none() {
            out.push(format!("{path}: a number without x-unit"));
        }
        if !described {
            out.push(format!("{path}: a number without a description"));
        }
    }
    for (k, x) in o {
        match k.as_str() {
            "properties" | "$defs" => {
                for (name, s) in x.as_object().into_iter().flatten() {
                    walk_numbers(s, &format!("{path}/{k}/{name}"), None, false, out);
                }
            }
            "items" | "additionalProperties" => walk_numbers(x, &format!("{path}/{k}"), unit, described, out),
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                for (i, s) in x.as_array().into_iter().flatten().enumerate() {
                    walk_numbers(s, &format!("{path}/{k}/{i}"), unit, described, out);
                }
            }
            _ => {}
        }
    }
}

/// Every number in every document says its unit (one of [`UNITS`]) and
/// what it is.
#[test]
fn every_number_has_a_unit_and_a_description() {
    let mut bad = Vec::new();
    for k in Kind::ALL {
        walk_numbers(&schema(k), k.name(), None, false, &mut bad);
    }
    assert!(
        bad.is_empty(),
        "{} numbers without a unit or a description:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// Every field of every document says what it is.
#[test]
fn every_field_has_a_description() {
    fn check(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (name, p) in o.get("properties").and_then(Value::as_object).into_iter().flatten() {
                    if p.get("description").is_none() {
                        out.push(format!("{path}/{name}"));
                    }
                }
                for (k, x) in o {
                    check(x, &format!("{path}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| check(x, &format!("{path}/{i}"), out)),
            _ => {}
        }
    }
    let mut bare = Vec::new();
    for k in Kind::ALL {
        check(&schema(k), k.name(), &mut bare);
    }
    assert!(bare.is_empty(), "fields without a doc comment: {bare:#?}");
}

/// The walk above finds what it looks for (a test of the test).
#[test]
fn a_number_without_a_unit_is_found() {
    let s = json!({"properties": {
        "a": {"type": "integer", "description": "a"},
        "b": {"type": "array", "x-unit": "bytes", "description": "b", "items": {"type": "integer"}},
        "c": {"type": ["number", "null"], "x-unit": "furlongs", "description": "c"},
        "d": {"type": "object", "x-unit": "s", "description": "d", "properties": {"e": {"type": "number", "x-unit": "s"}}},
    }});
    let mut bad = Vec::new();
    walk_numbers(&s, "t", None, false, &mut bad);
    assert_eq!(
        bad,
        [
            "t/properties/a: a number without x-unit",
            "t/properties/c: x-unit \"furlongs\" is not one of schema::UNITS",
            "t/properties/d/properties/e: a number without a description",
        ]
    );
}

/// Every object with named fields takes no others, so a field added
/// without its schema fails validation.
#[test]
fn every_object_is_strict() {
    fn check(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                if o.contains_key("properties") && o.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(path.to_string());
                }
                for (k, x) in o {
                    check(x, &format!("{path}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| check(x, &format!("{path}/{i}"), out)),
            _ => {}
        }
    }
    let mut loose = Vec::new();
    for k in Kind::ALL {
        check(&schema(k), k.name(), &mut loose);
    }
    assert!(loose.is_empty(), "objects that take any field: {loose:?}");
}

#[test]
fn each_schema_names_itself_and_every_reference_resolves() {
    for k in Kind::ALL {
        let s = schema(k);
        assert_eq!(s["$id"], k.uri());
        assert_eq!(k.uri(), format!("urn:{}", k.id().replace('/', ":")));
        assert_eq!(s["title"], k.id());
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        for r in refs(&s) {
            let name = r
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("{}: external reference {r}", k.name()));
            assert!(s["$defs"].get(name).is_some(), "{}: {r} is not defined", k.name());
        }
    }
}

#[test]
fn kinds_are_named_and_versioned_once() {
    for (i, k) in Kind::ALL.into_iter().enumerate() {
        assert_eq!(k as usize, i, "Kind::ALL is in declaration order");
        assert_eq!(Kind::parse(k.name()), Some(k));
        assert_eq!(k.id(), format!("iolab/{}/{}", k.name(), k.version()));
        use clap::ValueEnum;
        assert_eq!(
            k.to_possible_value().unwrap().get_name(),
            k.name(),
            "`iolab schema KIND` takes the name"
        );
    }
    let listing = listing();
    assert!(Kind::ALL.iter().all(|k| listing.contains(&k.id())), "{listing}");
}

/// The run kinds: one shape, each with its own section required and the
/// others absent.
#[test]
fn each_run_kind_has_its_own_section_only() {
    for k in Kind::ALL.into_iter().filter(|k| k.is_run()) {
        let s = schema(k);
        let props = s["properties"].as_object().unwrap();
        assert_eq!(props["schema"]["const"], k.id());
        for section in SECTIONS {
            assert_eq!(props.contains_key(section), k.section() == Some(section), "{}: {section}", k.name());
        }
        let required: Vec<&str> = s["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(!required.contains(&"schema"), "runs stored before schemas have none");
        if let Some(section) = k.section() {
            assert!(required.contains(&section), "{}", k.name());
        }
        assert!(required.contains(&"jobs") && required.contains(&"settings"), "{required:?}");
    }
    let info = schema(Kind::Info);
    let required: Vec<&str> = info["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(required.contains(&"schema") && required.contains(&"hints"), "{required:?}");
}

/// A run names its schema first; one read without the field (stored by
/// iolab 0.2.0 or earlier) is written back as it was.
#[test]
fn a_run_names_its_schema_unless_it_was_stored_without_one() {
    let legacy = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/legacy/0.1.0/doc-3.json")).unwrap();
    let mut r: Report = serde_json::from_str(&legacy).unwrap();
    assert!(!r.names_schema);
    let again = serde_json::to_value(&r).unwrap();
    assert_eq!(again, serde_json::from_str::<Value>(&legacy).unwrap());

    r.names_schema = true;
    let text = serde_json::to_string(&r).unwrap();
    let kind = r.schema_kind();
    assert_eq!(kind, Kind::Scan);
    assert!(text.starts_with(r#"{"schema":"iolab/scan/1","#), "{}", &text[..60]);
    let back: Report = serde_json::from_str(&text).unwrap();
    assert!(back.names_schema);
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
}

/// `iolab list --format json` keeps the entry it always wrote (the keys
/// in the same order), with its schema first.
#[test]
fn a_list_entry_is_the_object_it_always_was() {
    let r = crate::store::RunSummary {
        id: 7,
        label: Some("usb stick".into()),
        tags: vec![("z".into(), "1".into()), ("bus".into(), "usb".into()), ("z".into(), "2".into())],
        started_at: "2026-11-22T10:00:00Z".into(),
        kind: "run".into(),
        target: "/dev/sdb".into(),
        complete: true,
    };
    let text = serde_json::to_string_pretty(&[Tagged::new(&r.entry())]).unwrap();
    assert_eq!(
        text,
        r#"[
  {
    "schema": "iolab/list/1",
    "complete": true,
    "id": 7,
    "kind": "run",
    "label": "usb stick",
    "started_at": "2026-11-22T10:00:00Z",
    "tags": {
      "bus": "usb",
      "z": "2"
    },
    "target": "/dev/sdb"
  }
]"#
    );
}

#[test]
fn rustdoc_links_become_plain_code() {
    assert_eq!(
        super::unlink("see [`crate::judge::zfs::write_ratio`] and [`super::Vdev::page_cache`], [`MIN_GAIN`]."),
        "see `write_ratio` and `Vdev::page_cache`, `MIN_GAIN`."
    );
    assert_eq!(super::unlink("a [`broken link"), "a [`broken link");
    for kind in Kind::ALL {
        let text = super::text(kind);
        assert!(!text.contains("[`"), "{}: a rustdoc link in a description", kind.name());
    }
}
