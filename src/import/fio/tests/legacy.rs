//! fio's older JSON shapes and its client/server output.
//!
//! The `v*.json` fixtures were written for iolab by
//! `tests/fixtures/fio/make_legacy.py` (seeded synthetic latencies put
//! through fio's histogram buckets and percentile rule) in the shape of the
//! release each is named after, key by key as that release's `stat.c`
//! (`show_thread_status_json`, `add_ddir_status_json`), `json.c` (float
//! precision) and `diskutil.c` print them; each test names its release. `client-*.json` are real captures of fio 3.33
//! `--client` runs against three (one) throttled servers on this project's
//! machine.

use crate::import::fio::stats::{BW_KIB, KIB_BYTES, LAT_US, NO_TOTAL_IOS};
use crate::import::fio::*;
use crate::summary::{DirReport, JobReport};
use crate::targets::Kind;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/fio/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn raw(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).unwrap()
}

const LEGACY: [&str; 6] = [
    "v2.0.10_seqread.json",
    "v2.1.10_randrw.json",
    "v2.2.10_two_jobs.json",
    "v2.21_jsonplus_seqwrite.json",
    "v3.1_randread_nopct.json",
    "v3.5_psync_fsync.json",
];

/// fio's percentile `p` of a latency object, whichever way the release
/// printed the key (`"50.00"` before 2.0.14, `"50.000000"` after).
fn pct(lat: &Value, p: f64) -> Option<u64> {
    let m = lat.get("percentile")?.as_object()?;
    m.iter()
        .find(|(k, _)| k.parse::<f64>().is_ok_and(|k| (k - p).abs() < 1e-9))
        .and_then(|(_, v)| v.as_u64())
}

/// Every figure equals the fixture's number after unit conversion: bytes
/// from KiB without `io_kbytes`, bytes/s from KiB/s without `bw_bytes`,
/// ns from µs for `clat`, I/Os from iops x runtime without `total_ios`.
fn check_units(name: &str) -> Vec<JobReport> {
    let r = parse_fio_json(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let raw = raw(name);
    let raw_jobs = raw["jobs"].as_array().unwrap();
    assert_eq!(r.jobs().len(), raw_jobs.len(), "{name}");
    assert_eq!(r.iolab_version, raw["fio version"].as_str().unwrap());
    for (j, rj) in r.jobs().iter().zip(raw_jobs) {
        assert_eq!(j.name, rj["jobname"].as_str().unwrap());
        for (dir, ours) in [("read", &j.read), ("write", &j.write)] {
            let f = &rj[dir];
            if f["io_bytes"].as_u64().unwrap() == 0 {
                assert!(ours.is_none(), "{name} {} {dir}", j.name);
                continue;
            }
            let d: &DirReport = ours.as_ref().unwrap_or_else(|| panic!("{name} {} {dir} missing", j.name));
            let io_bytes = f["io_bytes"].as_u64().unwrap();
            let want_bytes = if f.get("io_kbytes").is_some() { io_bytes } else { io_bytes * 1024 };
            assert_eq!(d.bytes, want_bytes, "{name} {dir} bytes");
            let iops = f["iops"].as_f64().unwrap();
            assert_eq!(d.iops, iops);
            let want_ios = match f.get("total_ios") {
                Some(n) => n.as_u64().unwrap(),
                None => (iops * f["runtime"].as_f64().unwrap() / 1e3).round() as u64,
            };
            assert_eq!(d.ios, want_ios, "{name} {dir} ios");
            let want_bw = match f.get("bw_bytes") {
                Some(b) => b.as_f64().unwrap(),
                None => f["bw"].as_f64().unwrap() * 1024.0,
            };
            assert_eq!(d.bw_bytes, want_bw, "{name} {dir} bw");
            let (c, scale) = match f.get("clat_ns") {
                Some(c) => (c, 1),
                None => (&f["clat"], 1000),
            };
            assert_eq!(d.lat_ns.as_ref().unwrap().min, c["min"].as_u64().unwrap() * scale);
            assert_eq!(d.lat_ns.as_ref().unwrap().max, c["max"].as_u64().unwrap() * scale);
            assert_eq!(d.lat_ns.as_ref().unwrap().mean, c["mean"].as_f64().unwrap() * scale as f64);
            for (ours, p) in [
                (d.lat_ns.as_ref().unwrap().p50, 50.0),
                (d.lat_ns.as_ref().unwrap().p90, 90.0),
                (d.lat_ns.as_ref().unwrap().p99, 99.0),
                (d.lat_ns.as_ref().unwrap().p99_9, 99.9),
                (d.lat_ns.as_ref().unwrap().p99_99, 99.99),
            ] {
                // No percentile printed (clat_percentiles=0): 0, and said so.
                assert_eq!(ours, pct(c, p).map_or(0, |v| v * scale), "{name} {} {dir} p{p}", j.name);
            }
        }
        assert_eq!(j.runs.len(), 1);
        assert_eq!((&j.runs[0].read, &j.runs[0].write), (&j.read, &j.write));
    }
    r.jobs().to_vec()
}

fn legacy_note(j: &JobReport) -> Option<&str> {
    j.warnings.iter().find(|w| w.code == "fio_legacy").map(|w| w.message.as_str())
}

#[test]
fn every_legacy_fixture_matches_fio_numbers_after_unit_conversion() {
    for name in LEGACY {
        check_units(name);
    }
}

/// fio 2.0.10, fio's first JSON: `io_bytes` in KiB, integer `bw` (KiB/s)
/// and `iops`, no `total_ios`, µs `clat` with percentile keys `"50.00"`
/// (`%2.2f`) and three `"0.00"` slots, no options, no timestamp, floats
/// printed with 2 decimals.
#[test]
fn fio_2_0_10_sequential_read() {
    let text = fixture("v2.0.10_seqread.json");
    assert!(text.contains("\"50.00\" : 980") && text.contains("\"io_bytes\" : 1263744"));
    let r = parse_fio_json(&text).unwrap();
    assert_eq!(r.iolab_version, "fio-2.0.10");
    assert_eq!(r.started_at, "unknown");
    assert_eq!((r.target.path.as_str(), r.target.kind), ("unknown", Kind::File));
    let j = &check_units("v2.0.10_seqread.json")[0];
    let d = j.read.as_ref().unwrap();
    // 1263744 KiB; 987 iops x 10001 ms; 126361 KiB/s; p50 980 µs.
    assert_eq!((d.bytes, d.ios, d.bw_bytes, d.iops), (1_294_073_856, 9871, 129_393_664.0, 987.0));
    assert_eq!(
        (
            d.lat_ns.as_ref().unwrap().p50,
            d.lat_ns.as_ref().unwrap().p99_99,
            d.lat_ns.as_ref().unwrap().max
        ),
        (980_000, 48_384_000, 48_213_000)
    );
    assert!((d.lat_ns.as_ref().unwrap().mean - 1_050_410.0).abs() < 1e-6);
    // What fio did not print is inferred, and said so.
    assert_eq!((j.rw.as_str(), j.bs, j.qd, j.threads), ("read", 128 << 10, 1, 1));
    assert_eq!((j.engine.as_str(), j.direct), ("unknown", false));
    assert!(!j.warnings.iter().any(|w| w.code == "buffered"), "direct is unknown, not buffered");
    assert!(!j.warnings.iter().any(|w| w.code == "fio_percentile_nearest"));
    let note = legacy_note(j).expect("fio_legacy");
    for part in [
        KIB_BYTES,
        NO_TOTAL_IOS,
        BW_KIB,
        LAT_US,
        "no job options (fio before 2.3)",
        "fio-2.0.10's JSON",
    ] {
        assert!(note.contains(part), "{part} not in {note}");
    }
    let w = j.warnings.iter().find(|w| w.code == "fio_legacy").unwrap();
    assert_eq!(w.severity, crate::judge::Severity::Info);
    assert_eq!(j.runs[0].wall_ns, 10_001_000_000);
}

/// fio 2.1.10: `"%f"` percentile keys, `bw_agg` the mean; otherwise as 2.0.10.
/// A 70/30 random read/write job: the mix comes from the I/O counts.
#[test]
fn fio_2_1_10_mixed_job_infers_rw_and_mix() {
    let j = &check_units("v2.1.10_randrw.json")[0];
    assert_eq!((j.rw.as_str(), j.mix_read, j.bs), ("rw", Some(70), 4096));
    let (r, w) = (j.read.as_ref().unwrap(), j.write.as_ref().unwrap());
    // 2374 and 1016 iops over 30001 ms (fio did 71234 and 30511).
    assert_eq!((r.ios, w.ios), (71_222, 30_481));
    assert_eq!((r.bytes, w.bytes), (71_234 * 4096, 30_511 * 4096));
    assert!(legacy_note(j).unwrap().contains("rw rw inferred from the directions"));
    // CPU: fio's per-thread figures as printed (one thread).
    assert_eq!((j.cpu.usr_pct, j.cpu.sys_pct), (4.56, 12.34));
}

/// fio 2.2.10: `total_ios` (since 2.1.14), float `iops` (since 2.2.6, printed
/// `%.2f`), `timestamp` (since 2.2.5), `eta`/`elapsed`; still KiB, µs, no options.
#[test]
fn fio_2_2_10_two_jobs_with_counts_and_timestamp() {
    let r = parse_fio_json(&fixture("v2.2.10_two_jobs.json")).unwrap();
    assert_eq!(r.started_at, rfc3339(1_443_700_000));
    let jobs = check_units("v2.2.10_two_jobs.json");
    let (a, b) = (&jobs[0], &jobs[1]);
    assert_eq!((a.rw.as_str(), a.bs), ("read", 4096));
    assert_eq!((b.rw.as_str(), b.bs), ("write", 1 << 20));
    let d = a.read.as_ref().unwrap();
    assert_eq!((d.ios, d.bytes, d.iops), (812_345, 812_345 * 4096, 81_234.5));
    let note = legacy_note(a).unwrap();
    assert!(
        note.contains(KIB_BYTES) && note.contains(LAT_US) && !note.contains(NO_TOTAL_IOS),
        "{note}"
    );
    assert!(r.jobs().iter().all(|j| j.device.is_none()), "disk_util is shared by the two jobs");
}

/// fio 2.21, json+: `io_bytes` in bytes with `io_kbytes` (2.21 fixed it),
/// job and global options (since 2.3), `bins` keyed by latency value (since
/// 2.20); still µs, no `bw_bytes`, `"0.00"` slots.
#[test]
fn fio_2_21_json_plus_with_options() {
    let text = fixture("v2.21_jsonplus_seqwrite.json");
    assert!(text.contains("\"bins\"") && text.contains("\"io_kbytes\""));
    let r = parse_fio_json(&text).unwrap();
    assert_eq!((r.target.path.as_str(), r.target.kind), ("/dev/sdc", Kind::BlockDevice));
    let j = &check_units("v2.21_jsonplus_seqwrite.json")[0];
    assert_eq!(
        (j.rw.as_str(), j.bs, j.qd, j.engine.as_str(), j.direct),
        ("write", 1 << 20, 8, "libaio", true)
    );
    assert_eq!(j.duration_s, Some(10.0));
    let w = j.write.as_ref().unwrap();
    assert_eq!((w.bytes, w.ios), (5301 << 20, 5301));
    let note = legacy_note(j).unwrap();
    assert!(note.contains(BW_KIB) && note.contains(LAT_US), "{note}");
    assert!(!note.contains(KIB_BYTES) && !note.contains("no job options"), "{note}");
}

/// fio 3.1: nanoseconds (`clat_ns`, since 2.99), no `bw_bytes` (3.2 added
/// it), `"0.00"` slots (until 3.3). The second job ran with
/// `clat_percentiles=0`: its percentile object is twenty `"0.00": 0`.
#[test]
fn fio_3_1_nanoseconds_and_a_job_without_percentiles() {
    let text = fixture("v3.1_randread_nopct.json");
    assert_eq!(text.matches("\"0.00\" : 0").count(), 3 + 3 + 3 + 20 + 20 + 20);
    let jobs = check_units("v3.1_randread_nopct.json");
    let (a, b) = (&jobs[0], &jobs[1]);
    let d = a.read.as_ref().unwrap();
    assert_eq!(
        (d.lat_ns.as_ref().unwrap().p50, d.lat_ns.as_ref().unwrap().p99_99),
        (78_336, 232_448)
    );
    assert_eq!(d.bw_bytes, 321_629.0 * 1024.0);
    let note = legacy_note(a).unwrap();
    assert!(
        note.contains(BW_KIB) && !note.contains(LAT_US) && !note.contains(KIB_BYTES),
        "{note}"
    );
    assert!(!a.warnings.iter().any(|w| w.code == "fio_percentile_nearest"));
    // No percentile printed: zeros, said so; never "from fio's 0th".
    let e = b.read.as_ref().unwrap();
    assert_eq!((e.lat_ns.as_ref().unwrap().p50, e.lat_ns.as_ref().unwrap().p99_99), (0, 0));
    assert!(e.lat_ns.as_ref().unwrap().mean > 0.0);
    let w = b.warnings.iter().find(|w| w.code == "fio_percentile_nearest").unwrap();
    assert!(
        w.message.contains("p50: none printed") && !w.message.contains("0th"),
        "{}",
        w.message
    );
}

/// fio 3.5: `bw_bytes` (since 3.2), no `"0.00"` slots (since 3.4), a `sync`
/// direction (fsync latencies, since 3.4: not imported), no `job_runtime`
/// (since 3.8). Nothing of it is an older shape.
#[test]
fn fio_3_5_psync_with_fsync() {
    let r = parse_fio_json(&fixture("v3.5_psync_fsync.json")).unwrap();
    assert_eq!((r.target.path.as_str(), r.target.kind), ("/srv/data/fsync.test", Kind::File));
    assert_eq!(r.target.span_bytes, 80 << 20);
    let j = &check_units("v3.5_psync_fsync.json")[0];
    assert!(legacy_note(j).is_none(), "{:?}", j.warnings);
    assert_eq!((j.engine.as_str(), j.rw.as_str()), ("psync", "write"));
    assert!(j.read.is_none());
    assert_eq!(j.runs[0].wall_ns, 7_843_000_000);
    assert!(j.warnings.iter().any(|w| w.code == "buffered"));
}

/// fio up to 3.3 printed unused percentile slots as `"0.00": 0`, the key
/// repeated: the JSON parses (the last duplicate kept), and the slot is
/// never taken for a percentile, wherever it stands.
#[test]
fn repeated_zero_percentile_keys_parse_and_are_never_picked() {
    let lat = |pcts: &str| {
        format!(
            r#"{{"fio version": "fio-3.1", "jobs": [{{"jobname": "j", "job options": {{"rw": "read"}},
            "read": {{"io_bytes": 4096000, "io_kbytes": 4000, "bw": 4000, "iops": 1000.0, "runtime": 1000, "total_ios": 1000,
            "clat_ns": {{"min": 10, "max": 90000, "mean": 500.0, "stddev": 1.0, "percentile": {{{pcts}}}}}}}}}]}}"#
        )
    };
    // The slots first, between and last; fio only ever put them last.
    let text = lat(r#""0.00": 0, "50.000000": 400, "0.00": 0, "90.000000": 700, "99.000000": 900, "0.00": 0"#);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["jobs"][0]["read"]["clat_ns"]["percentile"].as_object().unwrap().len(), 4);
    let r = parse_fio_json(&text).unwrap();
    let l = r.jobs()[0].read.as_ref().unwrap().lat_ns.as_ref().unwrap();
    // p50 is the 50th, not the "0.00" slot; the tail is the nearest printed, named.
    assert_eq!((l.p50, l.p90, l.p99, l.p99_9, l.p99_99), (400, 700, 900, 900, 900));
    let w = &r.jobs()[0]
        .warnings
        .iter()
        .find(|w| w.code == "fio_percentile_nearest")
        .unwrap()
        .message;
    assert!(w.contains("p99_9 from fio's 99th") && !w.contains("0th"), "{w}");
}

#[test]
fn unified_rw_reporting_mixed_direction() {
    let doc = |rw: &str| {
        format!(
            r#"{{"fio version": "fio-3.33", "jobs": [{{"jobname": "m", "job options": {{"rw": "{rw}"}},
            "mixed": {{"io_bytes": 8192, "io_kbytes": 8, "bw_bytes": 8192, "bw": 8, "iops": 2.0, "runtime": 1000, "total_ios": 2,
            "clat_ns": {{"min": 1, "max": 2, "mean": 1.5, "percentile": {{"50.000000": 1}}}}}}}}]}}"#
        )
    };
    let r = parse_fio_json(&doc("randread")).unwrap();
    assert_eq!(r.jobs()[0].read.as_ref().unwrap().ios, 2);
    let r = parse_fio_json(&doc("write")).unwrap();
    assert_eq!(r.jobs()[0].write.as_ref().unwrap().bytes, 8192);
    let e = parse_fio_json(&doc("randrw")).unwrap_err();
    assert!(e.contains("unified_rw_reporting"), "{e}");
}

#[test]
fn fio_version_strings() {
    assert_eq!(fio_version("fio-2.0.10"), Some((2, 0, 10)));
    assert_eq!(fio_version("fio-3.33"), Some((3, 33, 0)));
    assert_eq!(fio_version("fio-3.35-12-gabcdef"), Some((3, 35, 0)));
    assert_eq!(fio_version("fio-2.2"), Some((2, 2, 0)));
    assert_eq!(fio_version("fio (unknown version)"), None);
    assert!(options_unprinted("fio-2.2.13") && !options_unprinted("fio-2.3") && !options_unprinted("weird"));
}

// ---- client/server output

/// The three servers of the capture were throttled to 20, 20 and 10 MiB/s
/// (its per-second bandwidth samples, `bw_min` = `bw_max`, show those rates).
#[test]
fn client_document_gives_one_report_per_host_in_order() {
    let hosts = parse_fio_client_json(&fixture("client-3hosts.json")).unwrap();
    let names: Vec<_> = hosts.iter().map(|(h, _)| h.as_deref().unwrap()).collect();
    assert_eq!(names, ["10.201.2.2", "10.201.1.2", "10.201.3.2"]);
    let mib = (1u64 << 20) as f64;
    for ((host, r), (rate, dev)) in hosts.iter().zip([(20.0, "/dev/loop1"), (20.0, "/dev/loop0"), (10.0, "/dev/loop2")]) {
        assert_eq!(r.host.hostname, *host.as_ref().unwrap());
        assert_eq!(r.command, "import:fio");
        assert_eq!(r.iolab_version, "fio-3.33");
        assert_eq!((r.target.path.as_str(), r.target.kind), (dev, Kind::BlockDevice));
        assert_eq!(r.jobs().len(), 1, "one job per host, not the All clients sum");
        let j = &r.jobs()[0];
        assert_eq!(
            (j.name.as_str(), j.rw.as_str(), j.bs, j.qd, j.engine.as_str(), j.direct),
            ("seqread", "read", 512 << 10, 4, "libaio", true)
        );
        let bw = j.read.as_ref().unwrap().bw_bytes / mib;
        assert!((bw / rate - 1.0).abs() < 0.03, "{host:?}: {bw:.2} MiB/s, throttled to {rate}");
        // Its own disk_util entry only (no sectors in fio 3.33: a warning).
        let du = j.warnings.iter().find(|w| w.code == "fio_disk_util").unwrap();
        let own = dev.trim_start_matches("/dev/");
        assert!(
            du.message.contains(own) && du.message.matches("loop").count() == 1,
            "{}",
            du.message
        );
        assert!(legacy_note(j).is_none());
    }
    let e = parse_fio_json(&fixture("client-3hosts.json")).unwrap_err();
    assert!(e.contains("parse_fio_client_json") && e.contains("one result per host"), "{e}");
    let e = parse_fio_client_json(&fixture("two_jobs_randread_write.json")).unwrap_err();
    assert!(e.contains("no \"client_stats\""), "{e}");
}

/// fio's `All clients` entry: bytes and I/Os are the hosts' sums; its
/// bandwidth and IOPS are the sums over the longest runtime (fio's own
/// integer division), not the sum of the hosts' rates.
#[test]
fn all_clients_entry_is_the_sum_of_the_hosts() {
    let raw = raw("client-3hosts.json");
    let stats = raw["client_stats"].as_array().unwrap();
    let all = stats.iter().find(|s| s["jobname"] == "All clients").unwrap();
    assert!(std::ptr::eq(all, stats.last().unwrap()), "fio prints the sum last");
    let hosts = parse_fio_client_json(&fixture("client-3hosts.json")).unwrap();
    let reads: Vec<&DirReport> = hosts.iter().map(|(_, r)| r.jobs()[0].read.as_ref().unwrap()).collect();
    let bytes: u64 = reads.iter().map(|d| d.bytes).sum();
    let ios: u64 = reads.iter().map(|d| d.ios).sum();
    let a = &all["read"];
    assert_eq!(bytes, a["io_bytes"].as_u64().unwrap());
    assert_eq!(ios, a["total_ios"].as_u64().unwrap());
    let runtime = stats[..3].iter().map(|s| s["read"]["runtime"].as_u64().unwrap()).max().unwrap();
    assert_eq!(runtime, a["runtime"].as_u64().unwrap());
    assert_eq!(bytes * 1000 / runtime, a["bw_bytes"].as_u64().unwrap());
    assert!((ios as f64 * 1000.0 / runtime as f64 - a["iops"].as_f64().unwrap()).abs() < 1e-6);
    let usr: f64 = stats[..3].iter().map(|s| s["job_runtime"].as_f64().unwrap()).sum();
    assert_eq!(usr, all["job_runtime"].as_f64().unwrap());
    // The sum of the hosts' rates is more: they did not all run as long.
    let rate_sum: f64 = reads.iter().map(|d| d.bw_bytes).sum();
    assert!(rate_sum > a["bw_bytes"].as_f64().unwrap());
}

#[test]
fn client_document_of_one_host_has_no_sum() {
    let hosts = parse_fio_client_json(&fixture("client-1host.json")).unwrap();
    assert_eq!(hosts.len(), 1);
    let (h, r) = &hosts[0];
    assert_eq!(h.as_deref(), Some("10.201.1.2"));
    assert_eq!(r.started_at, rfc3339(1_795_363_499));
    let j = &r.jobs()[0];
    assert_eq!(j.read.as_ref().unwrap().bytes, 65_011_712);
    assert!(j.warnings.iter().any(|w| w.code == "fio_disk_util" && w.message.contains("loop0")));
}

/// Entries without a host name (fio issue #515; or an empty one) are one
/// client each, in the document's order, with no disk_util.
#[test]
fn client_entries_without_host_are_taken_in_order() {
    let mut doc = raw("client-3hosts.json");
    for s in doc["client_stats"].as_array_mut().unwrap() {
        let s = s.as_object_mut().unwrap();
        s.remove("hostname");
        s.remove("port");
    }
    doc["client_stats"][1]["hostname"] = "".into();
    let hosts = parse_fio_client_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    assert_eq!(hosts.len(), 3);
    let files: Vec<_> = hosts.iter().map(|(_, r)| r.target.path.as_str()).collect();
    assert_eq!(files, ["/dev/loop1", "/dev/loop0", "/dev/loop2"]);
    for (h, r) in &hosts {
        assert!(h.is_none());
        assert_eq!(r.host.hostname, "unknown");
        assert!(!r.jobs()[0].warnings.iter().any(|w| w.code == "fio_disk_util"));
    }
}

/// fio 3.39 with several servers (commit 6f771553): `global options` is an
/// array, one object per server with its hostname and port. Two jobs on one
/// server stay one report; two servers on one host are told apart by port.
#[test]
fn client_global_options_per_server_and_jobs_grouped() {
    let mut doc = raw("client-3hosts.json");
    let globals: Vec<Value> = ["10.201.2.2", "10.201.1.2", "10.201.3.2"]
        .iter()
        .zip(["64k", "128k", "1m"])
        .map(|(h, bs)| {
            serde_json::json!({"hostname": h, "port": 8765, "ioengine": "libaio", "direct": "1", "rw": "read", "bs": bs, "iodepth": "4"})
        })
        .collect();
    doc["global options"] = Value::Array(globals);
    let hosts = parse_fio_client_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    let bs: Vec<u64> = hosts.iter().map(|(_, r)| r.jobs()[0].bs).collect();
    assert_eq!(bs, [64 << 10, 128 << 10, 1 << 20]);

    // A second job on the first server, and the third server on another port of the first host.
    let stats = doc["client_stats"].as_array_mut().unwrap();
    let mut second = stats[0].clone();
    second["jobname"] = "seqread-2".into();
    stats.insert(2, second);
    stats[3]["hostname"] = "10.201.2.2".into();
    stats[3]["port"] = 8766.into();
    let hosts = parse_fio_client_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    let names: Vec<_> = hosts.iter().map(|(h, r)| (h.clone().unwrap(), r.jobs().len())).collect();
    assert_eq!(
        names,
        [
            ("10.201.2.2:8765".to_string(), 2),
            ("10.201.1.2".to_string(), 1),
            ("10.201.2.2:8766".to_string(), 1)
        ]
    );
}
