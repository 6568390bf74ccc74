//! One job on iolab's virtual device and clock, as long as asked, through
//! the summary, the store and every renderer; prints what it cost as one
//! JSON line. `bench/scale` runs it for 10 minutes and for 24 hours of
//! virtual time, each in its own process, and compares their peak RSS.
//!
//! `cargo run --release --example virtual_run -- SECONDS STORE OUTDIR`

use iolab::experiment::virtual_run::{VirtualRequest, run};
use iolab::measure::VirtualDevice;
use iolab::plan::{JobSpec, Limit, Repeat, Runs, Rw};
use iolab::render::{Document, Format, Style, exporter};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [secs, store, out] = args.as_slice() else {
        eprintln!("usage: virtual_run SECONDS STORE OUTDIR");
        std::process::exit(2);
    };
    let secs: u64 = secs.parse().expect("SECONDS is a number");
    let out = std::path::Path::new(out);
    std::fs::create_dir_all(out).expect("the output directory");
    let t0 = Instant::now();
    // 1 MiB sequential reads at depth 8 on 8 servers of 40 ms: 200 MiB/s,
    // 200 I/Os a virtual second (a day is 17 million I/Os).
    let req = VirtualRequest {
        spec: JobSpec {
            name: "SEQ1M Q8T1".into(),
            rw: Rw::Read,
            bs: 1 << 20,
            qd: 8,
            threads: 1,
            mix_read: 70,
            limit: Limit::Time(Duration::from_secs(secs)),
            span: 64 << 30,
            offset: 0,
            direct: true,
            engine: iolab::io::engine::EngineKind::IoUring,
            timing: Default::default(),
            sync: Default::default(),
        },
        repeat: Repeat {
            runs: Runs::Fixed(1),
            warmup: Duration::ZERO,
            interval: Default::default(),
            steady: None,
        },
        device: VirtualDevice {
            name: "vdisk0".into(),
            servers: 8,
            service_ns: 40_000_000,
            per_byte_ns: 0.0,
        },
    };
    let outcome = run(&req).expect("the virtual run");
    let measured_s = t0.elapsed().as_secs_f64();
    stage("measured");
    let report = outcome.report;
    let store_path = std::path::Path::new(store);
    let before = std::fs::metadata(store_path).map_or(0, |m| m.len());
    let mut db = iolab::store::Store::open(store_path).expect("the store");
    let id = db.save(&report, Some("virtual"), &[], true).expect("saved");
    drop(db);
    stage("stored");
    let wal = store_path.with_extension("db-wal");
    let after = std::fs::metadata(store_path).map_or(0, |m| m.len()) + std::fs::metadata(&wal).map_or(0, |m| m.len());
    let style = Style {
        units: Default::default(),
        color: false,
    };
    let mut sizes = Vec::new();
    for f in Format::ALL {
        let text = exporter(f, style).export(Document::Run(&report, None)).unwrap_or_default();
        let path = out.join(format!("run.{}", f.name()));
        std::fs::write(&path, &text).expect("written");
        sizes.push(format!("\"{}_bytes\":{}", f.name(), text.len()));
        stage(f.name());
    }
    let hwm = peak_rss_kib();
    println!(
        "{{\"virtual_s\":{secs},\"run_id\":{id},\"measure_s\":{measured_s:.3},\"total_s\":{:.3},\"peak_rss_kib\":{hwm},\"store_bytes_added\":{},{}}}",
        t0.elapsed().as_secs_f64(),
        after.saturating_sub(before),
        sizes.join(",")
    );
}

/// The process's peak resident set so far (`VmHWM`), in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
}

/// With `IOLAB_SCALE_STAGES` set: the peak RSS after each stage, on stderr.
fn stage(name: &str) {
    if std::env::var_os("IOLAB_SCALE_STAGES").is_some() {
        eprintln!("{name}: peak {} KiB", peak_rss_kib());
    }
}
