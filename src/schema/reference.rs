//! `docs/json-reference.md`: every field of every document, generated from
//! the same schemas `iolab schema KIND` prints (so from the types), with
//! its type, unit and description. A unit test holds the committed page
//! equal to [`markdown`]; `IOLAB_BLESS=1` rewrites it.

use super::{UNITS, schema};
use crate::base::document::Kind;
use serde_json::Value;
use std::collections::BTreeMap;

/// The page.
pub fn markdown() -> String {
    let mut out = String::from(
        "# JSON reference\n\n\
         Generated from the types by `cargo test --lib schema::reference` (with `IOLAB_BLESS=1` it \
         rewrites this page); do not edit. Each document's JSON Schema is `iolab schema KIND`, \
         and [json.md](json.md) says how to read them. A field marked *optional* may be absent; \
         *or null* may be `null`. Units are listed at the end.\n\n",
    );
    let kinds: Vec<Kind> = Kind::ALL.into_iter().collect();
    out += "Documents:";
    for k in &kinds {
        out += &format!(" [{}](#{}),", k.name(), anchor(k.name()));
    }
    out.pop();
    out += ".\n\n";
    // Every definition once, under Types; one that differs in a later kind
    // is listed under that kind instead.
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    for &k in &kinds {
        let s = schema(k);
        out += &format!("## {}\n\n`{}`: {}\n\n", k.name(), k.id(), description(&s));
        out += &table(&s);
        for (name, d) in s.get("$defs").and_then(Value::as_object).into_iter().flatten() {
            match defs.get(name) {
                None => {
                    defs.insert(name.clone(), d.clone());
                }
                Some(seen) if seen == d => {}
                Some(_) => {
                    out += &format!("### {} `{name}`\n\n{}\n\n", k.name(), description(d));
                    out += &table(d);
                }
            }
        }
    }
    out += "## Types\n\nThe objects and values the documents above refer to.\n\n";
    for (name, d) in &defs {
        out += &format!("### {name}\n\n");
        let about = description(d);
        if !about.is_empty() {
            out += &format!("{about}\n\n");
        }
        if d.get("properties").is_some() {
            out += &table(d);
        } else {
            out += &format!("{}\n\n", type_of(d));
        }
    }
    out += "## Units\n\n| unit | meaning |\n|---|---|\n";
    for (u, meaning) in UNITS {
        out += &format!("| `{u}` | {} |\n", cell(meaning));
    }
    out
}

/// A heading's anchor as GitHub makes it.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// A description on one line, for a table cell or a paragraph.
fn description(v: &Value) -> String {
    v.get("description")
        .and_then(Value::as_str)
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A table of `obj`'s properties (nested objects' fields as `a.b`).
fn table(obj: &Value) -> String {
    let mut rows = Vec::new();
    rows_of(obj, "", &mut rows);
    if rows.is_empty() {
        return format!("{}\n\n", type_of(obj));
    }
    let mut t = String::from("| field | type | unit | description |\n|---|---|---|---|\n");
    for r in rows {
        t += &r;
    }
    t + "\n"
}

fn rows_of(obj: &Value, prefix: &str, rows: &mut Vec<String>) {
    let Some(props) = obj.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, p) in props {
        let path = format!("{prefix}{name}");
        let mut ty = type_of(p);
        if !required.contains(&name.as_str()) {
            ty += ", optional";
        }
        let unit = p
            .get("x-unit")
            .and_then(Value::as_str)
            .map(|u| format!("`{u}`"))
            .unwrap_or_default();
        rows.push(format!("| `{path}` | {} | {unit} | {} |\n", cell(&ty), cell(&description(p))));
        if p.get("properties").is_some() {
            rows_of(p, &format!("{path}."), rows);
        }
        if let Some(items) = p.get("items").filter(|i| i.get("properties").is_some()) {
            rows_of(items, &format!("{path}[]."), rows);
        }
    }
}

/// A schema's type in words: `integer`, `string or null`, `array of [Job](#job)`.
fn type_of(v: &Value) -> String {
    let Some(o) = v.as_object() else { return "any".into() };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("[{name}](#{})", anchor(name));
    }
    if let Some(c) = o.get("const") {
        return format!("`{c}`");
    }
    if let Some(e) = o.get("enum").and_then(Value::as_array) {
        let vals: Vec<String> = e.iter().map(|x| format!("`{x}`")).collect();
        return format!("one of {}", vals.join(", "));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = o.get(key).and_then(Value::as_array) {
            let mut seen: Vec<String> = Vec::new();
            for a in alts {
                let t = type_of(a);
                if !seen.contains(&t) {
                    seen.push(t);
                }
            }
            return seen.join(" or ");
        }
    }
    let types: Vec<String> = match o.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        return if o.contains_key("properties") {
            "object".into()
        } else {
            "any".into()
        };
    }
    types
        .iter()
        .map(|t| match t.as_str() {
            "array" => match (o.get("items"), o.get("prefixItems")) {
                (_, Some(Value::Array(p))) => format!("[{}]", p.iter().map(type_of).collect::<Vec<_>>().join(", ")),
                (Some(i), _) => format!("array of {}", type_of(i)),
                _ => "array".into(),
            },
            "object" => match o.get("additionalProperties") {
                Some(a) if a.is_object() => format!("map of {}", type_of(a)),
                _ => "object".into(),
            },
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The committed page is what the schemas generate.
    #[test]
    fn the_committed_json_reference_is_the_generated_one() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/json-reference.md");
        let page = markdown();
        if std::env::var_os("IOLAB_BLESS").is_some() {
            std::fs::write(&path, &page).unwrap();
        }
        assert!(
            std::fs::read_to_string(&path).ok().as_deref() == Some(page.as_str()),
            "docs/json-reference.md is stale: regenerate it with\n    IOLAB_BLESS=1 cargo test --lib schema::reference"
        );
    }

    #[test]
    fn every_kind_and_the_card_verdicts_are_on_it() {
        let page = markdown();
        for k in Kind::ALL {
            assert!(page.contains(&format!("## {}\n", k.name())), "{}", k.name());
        }
        for needle in ["`classes`", "### ClassReport", "`families`", "### Miss", "### BuiltLayout"] {
            assert!(page.contains(needle), "{needle} missing");
        }
    }
}
