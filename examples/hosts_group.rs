//! A group of hosts from `fio --client` JSON, as `iolab run --hosts` makes
//! it: parsed, each host's sections merged into tests, grouped, judged and
//! rendered in all five formats; prints the time each step took as one JSON
//! line. `bench/scale` runs it on 32 hosts.
//!
//! `cargo run --release --example hosts_group -- FIO_CLIENT_JSON`

use iolab::render::{Document, Format, Style, exporter};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: hosts_group FIO_CLIENT_JSON");
        std::process::exit(2);
    });
    let text = std::fs::read_to_string(&path).expect("the fio document");
    let t0 = Instant::now();
    let parsed = iolab::import::parse_fio_client_json(&text).expect("fio --client JSON");
    let reports: Vec<(String, iolab::summary::Report)> = parsed
        .into_iter()
        .map(|(h, r)| (h.unwrap_or_default(), iolab::summary::fio::merge_fio_sections(r)))
        .collect();
    let hosts: Vec<(String, Option<&iolab::summary::Report>, Option<String>)> =
        reports.iter().map(|(h, r)| (h.clone(), Some(r), None)).collect();
    let group = iolab::summary::hosts::hosts_report(&hosts);
    let grouped = t0.elapsed();
    let style = Style {
        units: Default::default(),
        color: false,
    };
    let mut sizes = Vec::new();
    for f in Format::ALL {
        let out = exporter(f, style).export(Document::Hosts(&group)).unwrap_or_default();
        sizes.push(format!("\"{}_bytes\":{}", f.name(), out.len()));
    }
    let table = exporter(Format::Table, style).export(Document::Hosts(&group)).unwrap_or_default();
    // The tables' lines (drawn with box characters); verdicts are prose and wrap.
    let widest = table
        .lines()
        .filter(|l| l.starts_with(['┌', '│', '╞', '└', '├']))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    if std::env::var_os("IOLAB_SHOW").is_some() {
        eprintln!("{table}");
    }
    println!(
        "{{\"hosts\":{},\"tests\":{},\"grouped_ms\":{:.1},\"total_ms\":{:.1},\"widest_table_line\":{widest},{}}}",
        group.hosts.len(),
        group.tests.len(),
        grouped.as_secs_f64() * 1e3,
        t0.elapsed().as_secs_f64() * 1e3,
        sizes.join(",")
    );
}
