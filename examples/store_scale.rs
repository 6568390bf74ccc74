//! Build a results store of many runs from real iolab documents, for
//! measuring the store's commands at scale (issue 27):
//!
//! ```text
//! cargo run --release --example store_scale -- OUT.db COUNT [--day-long N]
//! ```
//!
//! Every run is one of the iolab documents in `tests/fixtures/` (runs,
//! jobs, scans, a scale, time and capacity runs, documents of 0.1.0), saved
//! with `Store::save` as iolab saves a run, each with its own device names
//! and models, label, tags, start (spread over two years, in id order) and
//! completeness. `--day-long N` also stores N runs whose jobs carry a day
//! (86,400 seconds) of per-second samples, to measure `show` of a day-long
//! run. Prints how long the build took and the store's size.
//!
//! ```text
//! cargo run --release --example store_scale -- --plans DB
//! ```
//!
//! prints, for each of `iolab list`'s filters, SQLite's query plan and the
//! time of `Store::list` alone (the best of 5; no rendering, no process start).

use iolab::store::Store;
use iolab::summary::Report;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

const DOCS: &[&str] = &[
    "tests/fixtures/render/demo.json",
    "tests/fixtures/render/demoB.json",
    "tests/fixtures/render/dd.json",
    "tests/fixtures/render/mix.json",
    "tests/fixtures/render/steady.json",
    "tests/fixtures/render/scan.json",
    "tests/fixtures/render/scale.json",
    "tests/fixtures/render/files.json",
    "tests/fixtures/render/time.json",
    "tests/fixtures/render/time2.json",
    "tests/fixtures/render/capacity-genuine.json",
    "tests/fixtures/render/capacity-fake.json",
    "tests/fixtures/legacy/0.1.0/doc-1.json",
    "tests/fixtures/legacy/0.1.0/doc-3.json",
];

const DEVICES: &[(&str, Option<&str>)] = &[
    ("sda", Some("Samsung SSD 870 EVO 1TB")),
    ("sdb", Some("SanDisk Ultra USB 3.0")),
    ("sdc", Some("Kingston A400")),
    ("sdd", None),
    ("nvme0n1", Some("WD Blue SN570 1TB")),
    ("nvme1n1", Some("Samsung SSD 980 PRO 2TB")),
    ("loop0", None),
    ("loop3", None),
    ("zram0", None),
    ("dm-0", None),
];

const LABELS: &[Option<&str>] = &[
    Some("usb stick"),
    Some("SATA SSD"),
    Some("NVMe scratch"),
    Some("ZFS mirror over USB"),
    Some("nightly"),
    None,
];

const FS: &[&str] = &["ext4", "xfs", "btrfs", "zfs"];

fn usage() -> ! {
    eprintln!("usage: store_scale OUT.db COUNT [--day-long N] | store_scale --plans DB");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--plans") {
        return plans(Path::new(args.get(1).unwrap_or_else(|| usage())));
    }
    let (Some(out), Some(count)) = (args.first(), args.get(1).and_then(|c| c.parse::<usize>().ok())) else {
        usage()
    };
    let day_long = match args.get(2).map(String::as_str) {
        Some("--day-long") => args.get(3).and_then(|n| n.parse::<usize>().ok()).unwrap_or_else(|| usage()),
        None => 0,
        Some(_) => usage(),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs: Vec<Value> = DOCS
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
        })
        .collect();
    let out = PathBuf::from(out);
    let mut store = Store::open(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let start = Instant::now();
    // 2024-01-01T00:00:00Z, and two years after it.
    let (first, span) = (1_704_067_200u64, 2 * 365 * 86_400u64);
    for i in 0..count {
        let mut doc = docs[i % docs.len()].clone();
        let (dev, model) = DEVICES[(i / docs.len() + i) % DEVICES.len()];
        let when = first + span * i as u64 / count.max(1) as u64 + (i as u64 * 7919) % 3600;
        doc["started_at"] = iolab::base::units::rfc3339(when).into();
        set_device(&mut doc, dev, model);
        let report: Report = serde_json::from_value(doc).expect("a fixture document is a run");
        let label = LABELS[i % LABELS.len()].map(|l| format!("{l} #{}", i % 50));
        let mut tags = vec![
            ("host".to_string(), format!("lab{:02}", i % 32)),
            ("fs".to_string(), FS[i % FS.len()].to_string()),
            ("batch".to_string(), (i / 100).to_string()),
        ];
        if i % 7 == 0 {
            tags.push(("ort".into(), "Zürich".into()));
        }
        if i % 11 == 0 {
            tags.push(("opt".into(), "queue=mq-deadline".into()));
        }
        store
            .save(&report, label.as_deref(), &tags, i % 50 != 49)
            .unwrap_or_else(|e| panic!("run {i}: {e}"));
    }
    for d in 0..day_long {
        let mut doc = docs[0].clone();
        set_device(&mut doc, "sdb", Some("SanDisk Ultra USB 3.0"));
        doc["started_at"] = iolab::base::units::rfc3339(first + span + d as u64 * 86_400).into();
        day_of_seconds(&mut doc);
        let report: Report = serde_json::from_value(doc).expect("the day-long document is a run");
        let id = store
            .save(&report, Some("soak: a day"), &[("soak".into(), "24h".into())], true)
            .unwrap_or_else(|e| panic!("day-long run {d}: {e}"));
        eprintln!("day-long run stored as run {id}");
    }
    let took = start.elapsed();
    let bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    println!(
        "{} runs ({} day-long) into {} in {:.1} s; {:.1} MB",
        count + day_long,
        day_long,
        out.display(),
        took.as_secs_f64(),
        bytes as f64 / 1e6
    );
}

/// The run's devices become `dev` (with `model`): the first device's name
/// and model when the document has devices, else one device.
fn set_device(doc: &mut Value, dev: &str, model: Option<&str>) {
    let devices = &mut doc["target"]["devices"];
    match devices.as_array_mut() {
        Some(list) if !list.is_empty() => {
            list[0]["name"] = dev.into();
            list[0]["model"] = model.into();
        }
        _ => {
            *devices = json!([{
                "name": dev, "major": 8, "minor": 16, "partition_of": null, "size_bytes": 1u64 << 40,
                "logical_block_size": 512, "rotational": false, "model": model, "backing_file": null, "memory": false
            }]);
        }
    }
}

/// Each measured run of each job gets a day of per-second samples: its own
/// seconds repeated to 86,400.
fn day_of_seconds(doc: &mut Value) {
    for job in doc["jobs"].as_array_mut().into_iter().flatten() {
        for run in job["runs"].as_array_mut().into_iter().flatten() {
            for key in ["read_bytes_per_s", "write_bytes_per_s"] {
                let s = &mut run["samples"][key];
                let seen: Vec<Value> = s.as_array().cloned().unwrap_or_default();
                if !seen.is_empty() {
                    *s = Value::Array(seen.iter().cycle().take(86_400).cloned().collect());
                }
            }
        }
    }
}

/// Each filter's plan and the time of `Store::list` alone.
fn plans(db: &Path) {
    use iolab::store::{Filter, Page, parse_since};
    let st = Store::open(db).unwrap_or_else(|e| panic!("{}: {e}", db.display()));
    let tag = |k: &str, v: &str| (k.to_string(), v.to_string());
    let page = Page {
        limit: Some(50),
        offset: 0,
    };
    let cases: Vec<(&str, Filter)> = vec![
        ("(none)", Filter::default()),
        ("--limit 50", Filter { page, ..Filter::default() }),
        (
            "--tag fs=ext4",
            Filter {
                tags: vec![tag("fs", "ext4")],
                ..Filter::default()
            },
        ),
        (
            "--tag batch=7",
            Filter {
                tags: vec![tag("batch", "7")],
                ..Filter::default()
            },
        ),
        (
            "--label \"usb stick\"",
            Filter {
                label: Some("usb stick".into()),
                ..Filter::default()
            },
        ),
        (
            "--device sdb",
            Filter {
                device: Some("sdb".into()),
                ..Filter::default()
            },
        ),
        (
            "--since 2025-12-01",
            Filter {
                since: Some(parse_since("2025-12-01").unwrap()),
                ..Filter::default()
            },
        ),
    ];
    for (name, f) in cases {
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..5 {
            let t = Instant::now();
            n = st.list(&f).unwrap().len();
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
        }
        println!("{name}: {n} runs, Store::list {best:.1} ms");
        for line in st.list_plan(&f).unwrap() {
            println!("    {line}");
        }
    }
}
