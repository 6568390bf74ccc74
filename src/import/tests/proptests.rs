//! Issue 16: hostile input never panics the importer. Every fixture iolab
//! imports (fio's JSON of every version, fio `--client` documents, iolab's
//! own documents of 0.1.0 and now) is mutated — truncated, values swapped
//! for other types, huge and negative numbers, `NaN`/`Infinity` tokens,
//! deep nesting, duplicate keys, removed keys, random edits — and fed to
//! [`parse_import`] and the three parsers under it. Any `Err` is fine; a
//! panic fails. A document that *is* accepted then goes where an imported
//! run goes: encoded for the store and loaded back, stored in and loaded
//! from an SQLite store, every exporter, and a comparison with itself.
//!
//! Cases: `PROPTEST_CASES` (proptest's own variable), default
//! [`crate::base::testknob::PROPTEST_CASES`].
//! `PROPTEST_CASES=100000 cargo test --release --lib import::tests::proptests`
//! is the long run.

use crate::import::*;
use crate::render::{self, Format};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;
use std::sync::OnceLock;

/// One fixture: its name, the text before the JSON object (fio's notes),
/// the object, and the text after it.
struct Fixture {
    name: String,
    text: String,
    prefix: String,
    doc: Value,
}

/// Every document fixture under `tests/fixtures` that `iolab import` reads.
fn fixtures() -> &'static [Fixture] {
    static ALL: OnceLock<Vec<Fixture>> = OnceLock::new();
    ALL.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut out = Vec::new();
        for dir in ["fio", "render", "legacy/0.1.0"] {
            let mut names: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    let n = p.file_name().unwrap().to_string_lossy();
                    n.ends_with(".json") || n.ends_with(".txt") && dir == "fio"
                })
                .collect();
            names.sort();
            for p in names {
                let text = std::fs::read_to_string(&p).unwrap();
                let Some(at) = text.find("\n{").map(|i| i + 1).or((text.starts_with('{')).then_some(0)) else {
                    continue;
                };
                let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
                let Some(Ok(doc)) = stream.next() else { continue };
                out.push(Fixture {
                    name: format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                    prefix: text[..at].to_string(),
                    text,
                    doc,
                });
            }
        }
        assert!(out.len() >= 30, "fixtures: {}", out.len());
        out
    })
}

/// A value put where another was.
#[derive(Clone, Debug)]
enum Hostile {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    /// Written into the text as is: numbers JSON cannot hold exactly, or
    /// tokens that are not JSON at all.
    Raw(&'static str),
    Str(String),
    EmptyArray,
    EmptyObject,
    /// `depth` nested arrays (or objects), written into the text.
    Deep(usize, bool),
}

const RAW: &[&str] = &[
    "18446744073709551616",
    "18446744073709551615",
    "-9223372036854775809",
    "-9223372036854775808",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e999",
    "-1e999",
    "5e-324",
    "-0",
    "-0.0",
    "0.0",
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "inf",
    "nan",
    "340282366920938463463374607431768211456",
    "0x10",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "\"\\ud800\"",
    "\"\\u0000\"",
    "undefined",
    "[,]",
    "{,}",
];

const STRINGS: &[&str] = &[
    "",
    " ",
    "0",
    "-1",
    "1e400",
    "NaN",
    "inf",
    "18446744073709551616",
    "99999999999999999999p",
    "4k",
    "0k",
    "1,2,3",
    ",",
    "%",
    "50%",
    "randrw:8",
    "readwrite",
    "trimwrite",
    "io_uring",
    "/dev/",
    "/dev/shm/x",
    "fio-",
    "fio-99999999999.9.9",
    "fio-3.35-12-gabcdef",
    "fio-.",
    "unknown",
    "1s",
    "1.5.5",
    "∞",
    "é",
    "\u{0}",
    "9223372036854775808",
    "4294967296",
    "256",
    "-9223372036854775808",
];

fn hostile() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        Just(Hostile::Null),
        any::<bool>().prop_map(Hostile::Bool),
        prop_oneof![Just(i64::MIN), Just(-1i64), Just(0), Just(1), Just(i64::MAX), any::<i64>()].prop_map(Hostile::Int),
        prop_oneof![Just(u64::MAX), Just(u64::MAX / 2 + 1), Just(1u64 << 53), any::<u64>()].prop_map(Hostile::Uint),
        prop_oneof![
            Just(f64::MAX),
            Just(f64::MIN),
            Just(f64::MIN_POSITIVE),
            Just(5e-324),
            Just(-5e-324),
            Just(-0.5),
            Just(0.5),
            Just(1e-300),
            Just(1e20),
            Just(-1e20),
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ]
        .prop_map(Hostile::Float),
        prop::sample::select(RAW).prop_map(Hostile::Raw),
        prop_oneof![
            prop::sample::select(STRINGS).prop_map(str::to_string),
            ".{0,12}",
            "[0-9]{1,30}[kKmMgGtTpP]?",
        ]
        .prop_map(Hostile::Str),
        Just(Hostile::EmptyArray),
        Just(Hostile::EmptyObject),
        (prop_oneof![Just(10_000usize), Just(129), Just(127), 1usize..300], any::<bool>()).prop_map(|(d, a)| Hostile::Deep(d, a)),
    ]
}

/// What to do to the document.
#[derive(Clone, Debug)]
enum Mutation {
    /// Put a hostile value at a node.
    Replace(Index, Hostile),
    /// Remove a node (a key of its object, an element of its array).
    Remove(Index),
    /// Give an object a second copy of one of its keys, with a hostile value,
    /// before (`true`) or after the original.
    Duplicate(Index, Index, Hostile, bool),
    /// Swap the values of two nodes.
    Swap(Index, Index),
    /// Put a hostile number at a number, or a hostile string at a string
    /// (fio's options are strings): where the parsers do arithmetic.
    Leaf(Index, Hostile),
}

/// What to do to the text, after the document is written out.
#[derive(Clone, Debug)]
enum TextEdit {
    Truncate(Index),
    /// Replace a character by another.
    Char(Index, char),
    /// Cut a range out.
    Cut(Index, Index),
    /// Insert a token.
    Insert(Index, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<Index>(), hostile()).prop_map(|(i, h)| Mutation::Replace(i, h)),
        1 => any::<Index>().prop_map(Mutation::Remove),
        1 => (any::<Index>(), any::<Index>(), hostile(), any::<bool>()).prop_map(|(i, k, h, b)| Mutation::Duplicate(i, k, h, b)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        4 => (any::<Index>(), leaf()).prop_map(|(i, h)| Mutation::Leaf(i, h)),
    ]
}

/// A number or a string, for [`Mutation::Leaf`].
fn leaf() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        prop_oneof![Just(i64::MIN), Just(-1i64), Just(0), any::<i64>()].prop_map(Hostile::Int),
        prop_oneof![
            Just(u64::MAX),
            Just(u64::MAX / 512 + 1),
            Just(u64::MAX / 1_000_000 + 1),
            Just(1u64 << 53),
            any::<u64>()
        ]
        .prop_map(Hostile::Uint),
        prop_oneof![
            Just(f64::MAX),
            Just(1e308),
            Just(-1e308),
            Just(1e-300),
            Just(5e-324),
            Just(f64::MIN_POSITIVE),
            Just(0.5),
            any::<f64>().prop_filter("finite", |f| f.is_finite())
        ]
        .prop_map(Hostile::Float),
        prop::sample::select(RAW).prop_map(Hostile::Raw),
        prop_oneof![
            prop::sample::select(STRINGS).prop_map(str::to_string),
            "[0-9]{1,400}(\\.[0-9]{1,5})?[kKmMgGtTpPsdh]?",
            ".{0,12}",
        ]
        .prop_map(Hostile::Str),
    ]
}

fn text_edit() -> impl Strategy<Value = TextEdit> {
    prop_oneof![
        any::<Index>().prop_map(TextEdit::Truncate),
        (
            any::<Index>(),
            prop_oneof![
                Just('{'),
                Just('}'),
                Just('['),
                Just(']'),
                Just('"'),
                Just(','),
                Just(':'),
                Just('\n'),
                any::<char>()
            ]
        )
            .prop_map(|(i, c)| TextEdit::Char(i, c)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| TextEdit::Cut(a, b)),
        (any::<Index>(), prop::sample::select(RAW)).prop_map(|(i, t)| TextEdit::Insert(i, t)),
    ]
}

/// A JSON pointer to every node of `v` (the root excluded).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        _ => {}
    }
}

/// Placeholders stand for what a `Value` cannot hold; they are swapped for
/// the raw text once the document is written out.
struct Raw(Vec<String>);

impl Raw {
    fn value(&mut self, h: &Hostile) -> Value {
        match h {
            Hostile::Null => Value::Null,
            Hostile::Bool(b) => Value::Bool(*b),
            Hostile::Int(i) => Value::from(*i),
            Hostile::Uint(u) => Value::from(*u),
            Hostile::Float(f) => Value::from(*f),
            Hostile::Str(s) => Value::String(s.clone()),
            Hostile::EmptyArray => Value::Array(Vec::new()),
            Hostile::EmptyObject => Value::Object(Map::new()),
            Hostile::Raw(t) => self.hold(t.to_string()),
            Hostile::Deep(d, arrays) => {
                let (open, close) = if *arrays { ("[", "]") } else { ("{\"a\":", "}") };
                let text = format!("{}1{}", open.repeat(*d), close.repeat(*d));
                self.hold(text)
            }
        }
    }
    fn hold(&mut self, text: String) -> Value {
        self.0.push(text);
        Value::String(format!("\u{1}iolab-raw-{}\u{1}", self.0.len() - 1))
    }
    fn write(&self, v: &Value, pretty: bool) -> String {
        let mut s = if pretty {
            serde_json::to_string_pretty(v).unwrap()
        } else {
            serde_json::to_string(v).unwrap()
        };
        for (i, t) in self.0.iter().enumerate() {
            s = s.replace(&format!("\"\\u0001iolab-raw-{i}\\u0001\""), t);
        }
        s
    }
}

fn apply(doc: &mut Value, m: &Mutation, raw: &mut Raw) {
    let mut ptrs = Vec::new();
    pointers(doc, String::new(), &mut ptrs);
    if ptrs.is_empty() {
        return;
    }
    match m {
        Mutation::Leaf(i, h) => {
            // Numbers get numbers, strings strings (a raw token goes anywhere).
            let want_str = matches!(h, Hostile::Str(_));
            let leaves: Vec<&String> = ptrs
                .iter()
                .filter(|p| match doc.pointer(p) {
                    Some(Value::Number(_)) => !want_str,
                    Some(Value::String(_)) => want_str || matches!(h, Hostile::Raw(_)),
                    _ => false,
                })
                .collect();
            if leaves.is_empty() {
                return;
            }
            let p = i.get(&leaves).to_string();
            let v = raw.value(h);
            *doc.pointer_mut(&p).unwrap() = v;
        }
        Mutation::Replace(i, h) => {
            let v = raw.value(h);
            if let Some(n) = doc.pointer_mut(i.get(&ptrs).as_str()) {
                *n = v;
            }
        }
        Mutation::Remove(i) => {
            let p = i.get(&ptrs);
            let (parent, last) = p.rsplit_once('/').unwrap();
            let last = last.replace("~1", "/").replace("~0", "~");
            match doc.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(&last);
                }
                Some(Value::Array(a)) => {
                    if let Ok(k) = last.parse::<usize>()
                        && k < a.len()
                    {
                        a.remove(k);
                    }
                }
                _ => {}
            }
        }
        Mutation::Duplicate(i, k, h, before) => {
            // The object at the chosen node, or the one holding it.
            let p = i.get(&ptrs).to_string();
            let target = match doc.pointer(&p) {
                Some(Value::Object(_)) => p,
                _ => p.rsplit_once('/').unwrap().0.to_string(),
            };
            let v = raw.value(h);
            if let Some(Value::Object(m)) = doc.pointer_mut(&target) {
                let keys: Vec<String> = m.keys().cloned().collect();
                if keys.is_empty() {
                    return;
                }
                let key = k.get(&keys).clone();
                // The duplicate key is written into the text: a placeholder key here.
                let marker = raw.hold(serde_json::to_string(&key).unwrap());
                let Value::String(marker) = marker else { unreachable!() };
                let mut fresh = Map::new();
                if *before {
                    fresh.insert(marker, v);
                    fresh.extend(std::mem::take(m));
                } else {
                    fresh.extend(std::mem::take(m));
                    fresh.insert(marker, v);
                }
                *m = fresh;
            }
        }
        Mutation::Swap(a, b) => {
            let (pa, pb) = (a.get(&ptrs).to_string(), b.get(&ptrs).to_string());
            // A node and one of its descendants cannot swap.
            if pa.starts_with(&pb) || pb.starts_with(&pa) {
                return;
            }
            let va = doc.pointer(&pa).cloned();
            let vb = doc.pointer(&pb).cloned();
            if let (Some(va), Some(vb)) = (va, vb) {
                *doc.pointer_mut(&pa).unwrap() = vb;
                *doc.pointer_mut(&pb).unwrap() = va;
            }
        }
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn edit(text: &mut String, e: &TextEdit) {
    if text.is_empty() {
        return;
    }
    let at = |i: &Index, s: &str| floor(s, i.index(s.len() + 1));
    match e {
        TextEdit::Truncate(i) => {
            let n = at(i, text);
            text.truncate(n);
        }
        TextEdit::Char(i, c) => {
            let n = floor(text, i.index(text.len()));
            let end = n + text[n..].chars().next().map_or(0, char::len_utf8);
            text.replace_range(n..end, &c.to_string());
        }
        TextEdit::Cut(a, b) => {
            let (x, y) = (at(a, text), at(b, text));
            text.replace_range(x.min(y)..x.max(y), "");
        }
        TextEdit::Insert(i, t) => {
            let n = at(i, text);
            text.insert_str(n, t);
        }
    }
}

/// Everything an imported document goes through; any panic fails.
pub(crate) fn check(text: &str) {
    let _ = fio::parse_fio_json(text);
    let _ = fio::parse_fio_client_json(text);
    let _ = iolab::parse_iolab_json(text);
    if let Ok(imported) = parse_import(text) {
        for run in &imported.runs {
            exercise(&run.report);
        }
    }
}

/// What `iolab import`, `show`, `compare` and `report` do with an accepted run.
pub(crate) fn exercise(r: &crate::summary::Report) {
    let doc = serde_json::to_string(r).expect("an accepted run encodes");
    let back: crate::summary::Report =
        serde_json::from_str(&doc).unwrap_or_else(|e| panic!("an accepted run does not load back from its document: {e}\n{doc}"));
    thread_local! {
        static STORE: std::cell::RefCell<crate::store::Store> =
            std::cell::RefCell::new(crate::store::Store::open(std::path::Path::new(":memory:")).unwrap());
    }
    let stored = STORE.with(|s| {
        let mut s = s.borrow_mut();
        let id = s
            .save(r, Some("label"), &[("k".into(), "v".into())], !r.interrupted)
            .expect("an accepted run is stored");
        let stored = s.load(id).expect("a stored run loads");
        s.delete(id).unwrap();
        stored
    });
    for (report, summary) in [(r, None), (&back, Some(&stored.summary)), (&stored.report, Some(&stored.summary))] {
        for f in Format::ALL {
            let _ = render::exporter(f, render::Style::default()).export(render::Document::Run(report, summary));
        }
    }
    let _ = crate::render::warning_lines(r);
    let _ = r.failed_check();
    let refs = [1, 2].map(|id| crate::compare::RunRef {
        id,
        label: None,
        price: Some(10.0),
        capacity_bytes: None,
        report: r.clone(),
        built: None,
        power_cut: None,
    });
    if let Ok(c) = crate::compare::compare(&refs, 1) {
        for f in Format::ALL {
            let _ = render::exporter(f, render::Style::default()).export(render::Document::Comparison(&c));
        }
    }
}

/// A fixture, mutated.
fn mutated() -> impl Strategy<Value = (usize, String)> {
    let n = fixtures().len();
    (
        0..n,
        prop::collection::vec(mutation(), 0..8),
        prop::collection::vec(text_edit(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(i, ms, edits, pretty)| {
            let f = &fixtures()[i];
            let mut doc = f.doc.clone();
            let mut raw = Raw(Vec::new());
            for m in &ms {
                apply(&mut doc, m, &mut raw);
            }
            let mut text = format!("{}{}", f.prefix, raw.write(&doc, pretty));
            for e in &edits {
                edit(&mut text, e);
            }
            (i, text)
        })
}

proptest! {
    #![proptest_config(crate::base::testknob::proptest_config())]

    /// Mutated documents of every fixture: structure, values and text.
    #[test]
    fn issue_16_mutated_fixtures_never_panic((_i, text) in mutated()) {
        check(&text);
    }

    /// Every fixture cut at a random byte (a file still being written, a
    /// copy that stopped).
    #[test]
    fn issue_16_truncated_fixtures_never_panic(i in 0..fixtures().len(), at in any::<Index>()) {
        let t = &fixtures()[i].text;
        check(&t[..floor(t, at.index(t.len() + 1))]);
    }
}

/// Every fixture truncated at every byte, once (the random cut above finds
/// the same ones only by chance).
#[test]
fn issue_16_every_truncation_of_a_small_fixture_is_an_error_or_a_run() {
    // The smallest of each kind: fio 2.0.10, fio 3.x, a client document and iolab's own.
    for name in [
        "fio/v2.0.10_seqread.json",
        "fio/psync_loop_blockdev.json",
        "fio/client-1host.json",
        "render/info.json",
    ] {
        let f = fixtures().iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name}"));
        let step = if cfg!(debug_assertions) { 7 } else { 1 };
        for n in (0..=f.text.len()).step_by(step) {
            check(&f.text[..floor(&f.text, n)]);
        }
    }
}

/// serde_json's recursion limit turns 10,000 nested arrays (or objects) into
/// an error, not a stack overflow, wherever they sit in the document.
#[test]
fn issue_16_deep_nesting_is_an_error_not_a_stack_overflow() {
    for deep in ["[".repeat(10_000), "{\"a\":".repeat(10_000)] {
        for text in [
            deep.clone(),
            format!("{{\"jobs\": {deep}"),
            format!("{{\"fio version\": \"fio-3.33\", \"jobs\": [{{\"jobname\": \"x\", \"read\": {deep}}}]}}"),
            format!("{{\"iolab_version\": \"0.2.0\", \"jobs\": {deep}}}"),
            format!("note\n{}", "{\n".repeat(10_000)),
        ] {
            let e = parse_import(&text).expect_err("deep nesting is refused");
            assert!(!e.is_empty());
            check(&text);
        }
    }
}

/// Duplicate keys: serde_json keeps the last, as fio's old repeated
/// `"0.00"` percentile slots rely on; either way a run or an error.
#[test]
fn issue_16_duplicate_keys_are_read_as_the_last() {
    let f = fixtures().iter().find(|f| f.name == "fio/psync_loop_blockdev.json").unwrap();
    let text = f.text.replacen("\"jobs\"", "\"jobs\" : 3, \"jobs\"", 1);
    assert!(parse_import(&text).is_ok());
    let text = f.text.replacen("\"jobs\"", "\"jobs\" : [], \"jobs\" : 3, \"jobs\"", 1);
    assert!(parse_import(&text).is_ok());
    let bad = f.text.replacen("\"jobs\" : [", "\"jobs\" : 3, \"zzz\" : [", 1);
    assert!(parse_import(&bad).is_err());
}

// ------------------------------------------------------------ regressions

/// A fixture's document with `edits` (JSON pointer, new value) applied, as text.
fn edited(name: &str, edits: &[(&str, Value)]) -> String {
    let f = fixtures().iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name}"));
    let mut doc = f.doc.clone();
    for (p, v) in edits {
        match doc.pointer_mut(p) {
            Some(n) => *n = v.clone(),
            None => {
                // A new key of an existing object.
                let (parent, key) = p.rsplit_once('/').unwrap();
                doc.pointer_mut(parent)
                    .unwrap()
                    .as_object_mut()
                    .unwrap()
                    .insert(key.to_string(), v.clone());
            }
        }
    }
    format!("{}{}", f.prefix, serde_json::to_string_pretty(&doc).unwrap())
}

/// Found by `issue_16_mutated_fixtures_never_panic`: a direction's
/// `runtime` (ms) above u64::MAX / 10^6 overflowed the run's wall time in
/// nanoseconds (a panic in debug builds, a wrapped, wrong time in release).
#[test]
fn issue_16_regression_runtime_beyond_u64_nanoseconds() {
    let text = edited(
        "fio/psync_loop_blockdev.json",
        &[("/jobs/0/write/runtime", Value::from(u64::MAX / 1000))],
    );
    let e = parse_import(&text).unwrap_err();
    assert!(e.contains("is not a possible one"), "{e}");
    check(&text);
}

/// Found reading the importer while writing the suite: fio's sector
/// counts times 512 overflowed; such a `disk_util` now counts as one
/// without byte counts (no device cross-check, warning `fio_disk_util`).
#[test]
fn issue_16_regression_disk_sectors_beyond_u64_bytes() {
    let text = edited(
        "fio/psync_loop_blockdev.json",
        &[
            ("/disk_util/0/read_sectors", Value::from(u64::MAX / 512 + 1)),
            ("/disk_util/0/write_sectors", Value::from(100u64)),
        ],
    );
    let r = parse_import(&text).unwrap();
    let j = &r.runs[0].report.jobs()[0];
    assert!(j.device.is_none());
    assert!(j.warnings.iter().any(|w| w.code == "fio_disk_util"));
    check(&text);
}

/// Found reading the importer: fio 2.0's block size is inferred from the
/// bytes and I/Os of both directions, whose sum overflowed.
#[test]
fn issue_16_regression_inferred_block_size_of_huge_counts() {
    let big = Value::from(u64::MAX / 1024);
    let text = edited(
        "fio/v2.0.10_seqread.json",
        &[
            ("/jobs/0/read/io_bytes", big.clone()),
            ("/jobs/0/write/io_bytes", big),
            ("/jobs/0/write/iops", Value::from(1)),
            ("/jobs/0/write/runtime", Value::from(1000)),
        ],
    );
    check(&text);
}

/// Found by the round trip in [`exercise`]: fio 2.x's `bw` (KiB/s) of
/// 1e308 is infinite in bytes/s; the run was stored with `null` there and
/// `iolab show` could not load it back. Now the import is refused.
#[test]
fn issue_16_regression_infinite_bandwidth_is_refused() {
    let text = edited("fio/v2.0.10_seqread.json", &[("/jobs/0/read/bw", Value::from(1e308))]);
    let e = parse_import(&text).unwrap_err();
    assert!(e.contains("out of range"), "{e}");
    let text = edited("fio/v2.0.10_seqread.json", &[("/jobs/0/read/clat/mean", Value::from(1e308))]);
    assert!(parse_import(&text).unwrap_err().contains("out of range"));
    check(&text);
}

/// Found by the round trip in [`exercise`]: a `runtime` option of 400
/// digits parsed as an infinite duration (stored as `null`, then unreadable).
#[test]
fn issue_16_regression_option_of_400_digits() {
    let digits = format!("1{}", "0".repeat(400));
    let text = edited(
        "fio/psync_loop_blockdev.json",
        &[
            ("/global options/runtime", Value::from(digits.clone())),
            ("/global options/ramp_time", Value::from(digits)),
        ],
    );
    let r = parse_import(&text).unwrap();
    let report = &r.runs[0].report;
    assert_eq!(report.jobs()[0].duration_s, None);
    assert_eq!(report.settings.warmup_s, 0.0);
    exercise(report);
}

/// Found by `issue_16_mutated_fixtures_never_panic` at 100,000 cases: an
/// IOPS of 5e-324 (the smallest denormal) imports, and the HTML report's
/// chart axis over it overflowed (`render::svg`'s ticks).
#[test]
fn issue_16_regression_denormal_iops_renders() {
    let text = edited("fio/two_jobs_randread_write.json", &[("/jobs/0/read/iops", Value::from(5e-324))]);
    check(&text);
}
