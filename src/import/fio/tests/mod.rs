mod legacy;

use super::options::{normalize_rw, parse_fio_size, parse_secs};
use super::*;
use crate::targets::Kind;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/fio/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const FIXTURES: [&str; 5] = [
    "two_jobs_randread_write.json",
    "jsonplus_randwrite.json",
    "randrw_grouped.json",
    "psync_note_prefix.txt",
    "psync_loop_blockdev.json",
];

/// The raw fio JSON object of a fixture (after any leading text).
fn raw(name: &str) -> Value {
    Value::Object(find_document(&fixture(name)).unwrap())
}

/// Every figure of every job equals fio's own number, and the run equals the job.
fn check_against_raw(name: &str) {
    let text = fixture(name);
    let r = parse_fio_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let raw = raw(name);
    let raw_jobs = raw["jobs"].as_array().unwrap();
    assert_eq!(r.jobs().len(), raw_jobs.len(), "{name}");
    assert_eq!(r.command, "import:fio");
    assert_eq!(r.iolab_version, raw["fio version"].as_str().unwrap());
    for (j, rj) in r.jobs().iter().zip(raw_jobs) {
        assert_eq!(j.name, rj["jobname"].as_str().unwrap());
        for (dir, ours) in [("read", &j.read), ("write", &j.write)] {
            let f = &rj[dir];
            if f["total_ios"].as_u64().unwrap() == 0 {
                assert!(ours.is_none(), "{name} {} {dir}", j.name);
                continue;
            }
            let d = ours.as_ref().unwrap_or_else(|| panic!("{name} {} {dir} missing", j.name));
            assert_eq!(d.ios, f["total_ios"].as_u64().unwrap());
            assert_eq!(d.bytes, f["io_bytes"].as_u64().unwrap());
            assert_eq!(d.bw_bytes, f["bw_bytes"].as_f64().unwrap());
            assert_eq!(d.iops, f["iops"].as_f64().unwrap());
            let c = &f["clat_ns"];
            assert_eq!(d.lat_ns.as_ref().unwrap().p50, c["percentile"]["50.000000"].as_u64().unwrap());
            assert_eq!(d.lat_ns.as_ref().unwrap().p99, c["percentile"]["99.000000"].as_u64().unwrap());
            assert_eq!(d.lat_ns.as_ref().unwrap().p99_99, c["percentile"]["99.990000"].as_u64().unwrap());
            assert_eq!(d.lat_ns.as_ref().unwrap().mean, c["mean"].as_f64().unwrap());
            assert_eq!(d.lat_ns.as_ref().unwrap().min, c["min"].as_u64().unwrap());
            assert_eq!(d.lat_ns.as_ref().unwrap().max, c["max"].as_u64().unwrap());
            assert_eq!((d.bw_min, d.bw_max, d.bw_cv), (None, None, None));
        }
        assert_eq!(j.runs.len(), 1);
        assert_eq!(j.runs[0].read, j.read);
        assert_eq!(j.runs[0].write, j.write);
        assert_eq!(j.runs[0].cpu, j.cpu);
        assert!(j.warnings.iter().any(|w| w.code == "fio_cpu_per_thread"));
        assert!(!j.warnings.iter().any(|w| w.code == "fio_percentile_nearest"), "{:?}", j.warnings);
    }
}

#[test]
fn every_fixture_matches_fio_numbers() {
    for name in FIXTURES {
        check_against_raw(name);
    }
}

#[test]
fn two_jobs_options_and_document() {
    let r = parse_fio_json(&fixture("two_jobs_randread_write.json")).unwrap();
    assert_eq!(r.iolab_version, "fio-3.33");
    assert_eq!(r.started_at, rfc3339(1_795_271_289));
    assert_eq!(r.started_at, "2026-11-21T14:28:09Z");
    assert_eq!(r.host.hostname, "unknown");
    assert_eq!(r.target.path, "/tmp/iolab-fio-fx/data.bin");
    assert_eq!(r.target.kind, Kind::File);
    assert!(!r.target.test_file && r.target.direct);
    assert_eq!(r.target.span_bytes, 64 << 20);
    assert_eq!(r.settings.runs, 1);
    let (a, b) = (&r.jobs()[0], &r.jobs()[1]);
    assert_eq!(
        (a.name.as_str(), a.rw.as_str(), a.bs, a.qd),
        ("randread-4k-qd32", "randread", 4096, 32)
    );
    assert_eq!((b.name.as_str(), b.rw.as_str(), b.bs, b.qd), ("write-1m", "write", 1 << 20, 4));
    assert_eq!((a.engine.as_str(), a.direct, a.threads, a.workers), ("io_uring", true, 1, 1));
    assert_eq!(a.mix_read, None);
    assert_eq!(a.duration_s, Some(1.0));
    assert!(a.write.is_none() && b.read.is_none());
    // The raw numbers, spelled out once.
    let rd = a.read.as_ref().unwrap();
    assert_eq!(
        (rd.bytes, rd.ios, rd.bw_bytes, rd.iops),
        (330_354_688, 80_653, 330_024_663.0, 80_572.427572)
    );
    assert_eq!(rd.lat_ns.as_ref().unwrap().p99, 1_286_144);
    assert_eq!((a.cpu.usr_pct, a.cpu.sys_pct), (3.4, 39.7));
    assert_eq!(a.runs[0].wall_ns, 1_001_000_000);
    // disk_util has no bytes in fio 3.33, and two jobs share it.
    assert!(a.device.is_none());
    let du = a.warnings.iter().find(|w| w.code == "fio_disk_util").unwrap();
    assert!(du.message.contains("vda read_ios 80653 write_ios 3722"), "{}", du.message);
}

#[test]
fn randrw_group_has_mix_threads_and_both_directions() {
    let r = parse_fio_json(&fixture("randrw_grouped.json")).unwrap();
    let j = &r.jobs()[0];
    assert_eq!(
        (j.rw.as_str(), j.mix_read, j.threads, j.workers, j.qd),
        ("randrw", Some(70), 2, 2, 16)
    );
    assert!(j.read.is_some() && j.write.is_some());
    // Per-thread CPU (1.95 + 21.4 averaged over 2000 ms of thread time) as % of one CPU over 1001 ms.
    assert!((j.cpu.usr_pct - 1.95 * 2000.0 / 1001.0).abs() < 1e-9, "{}", j.cpu.usr_pct);
    let mbs = (j.read.as_ref().unwrap().bw_bytes + j.write.as_ref().unwrap().bw_bytes) / 1e6;
    let per = j.cpu.pct_per_100mbs.unwrap();
    assert!((per - (j.cpu.usr_pct + j.cpu.sys_pct) / (mbs / 100.0)).abs() < 1e-9);
}

#[test]
fn json_plus_parses_with_bins() {
    let text = fixture("jsonplus_randwrite.json");
    assert!(text.contains("\"bins\""));
    let r = parse_fio_json(&text).unwrap();
    let w = r.jobs()[0].write.as_ref().unwrap();
    assert_eq!(
        w.ios,
        raw("jsonplus_randwrite.json")["jobs"][0]["write"]["total_ios"].as_u64().unwrap()
    );
    assert_eq!(r.jobs()[0].rw, "randwrite");
}

#[test]
fn leading_note_is_skipped_and_sync_iodepth_flagged() {
    let text = fixture("psync_note_prefix.txt");
    assert!(text.starts_with("note: both iodepth"));
    let r = parse_fio_json(&text).unwrap();
    let j = &r.jobs()[0];
    assert_eq!((j.engine.as_str(), j.qd, j.bs, j.rw.as_str()), ("psync", 4, 128 << 10, "read"));
    assert!(j.warnings.iter().any(|w| w.code == "fio_sync_iodepth"));
}

#[test]
fn block_device_target() {
    let r = parse_fio_json(&fixture("psync_loop_blockdev.json")).unwrap();
    assert_eq!(r.target.path, "/dev/loop0");
    assert_eq!(r.target.kind, Kind::BlockDevice);
    assert_eq!(r.target.span_bytes, 0);
    let j = &r.jobs()[0];
    assert!(j.device.is_none());
    assert!(j.warnings.iter().any(|w| w.code == "fio_disk_util" && w.message.contains("loop0")));
    assert!(j.warnings.iter().any(|w| w.message.contains("no byte counts")));
}

#[test]
fn disk_util_with_sectors_becomes_the_device() {
    let mut doc = raw("psync_loop_blockdev.json");
    let ios = doc["jobs"][0]["write"]["total_ios"].as_u64().unwrap();
    let bytes = doc["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    let du = doc["disk_util"][0].as_object_mut().unwrap();
    du.insert("read_sectors".into(), 0.into());
    du.insert("write_sectors".into(), (bytes / 512).into());
    let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    let j = &r.jobs()[0];
    let d = j.device.as_ref().expect("device");
    assert_eq!((d.name.as_str(), d.write_bytes, d.job_write_bytes), ("loop0", bytes, bytes));
    assert_eq!(d.write_ios, doc["disk_util"][0]["write_ios"].as_u64().unwrap());
    assert!(ios > 0);
    assert_eq!(j.runs[0].device.as_ref().unwrap().write_bytes, bytes);
    assert!(!j.warnings.iter().any(|w| w.code == "fio_disk_util" || w.code == "cache_answered"));

    // Far fewer bytes at the device than the job moved: a cache answered.
    doc["disk_util"][0]["write_sectors"] = (bytes / 512 / 10).into();
    let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    assert!(r.jobs()[0].warnings.iter().any(|w| w.code == "cache_answered"));
}

#[test]
fn trailing_text_is_ignored() {
    let text = fixture("two_jobs_randread_write.json") + "\nfio: file hash not empty on exit\n";
    assert_eq!(parse_fio_json(&text).unwrap().jobs().len(), 2);
}

#[test]
fn garbage_gives_clear_errors() {
    let e = parse_fio_json("hello\nworld\n").unwrap_err();
    assert!(e.contains("no line starts a JSON object"), "{e}");
    let e = parse_fio_json("fio: oops\n{ \"jobs\" : [ \n").unwrap_err();
    assert!(e.contains("does not parse"), "{e}");
    let e = parse_fio_json("{\"foo\": 1}").unwrap_err();
    assert!(e.contains("no \"jobs\""), "{e}");
    let e = parse_fio_json("{\"jobs\": []}").unwrap_err();
    assert!(e.contains("no jobs"), "{e}");
    let e = parse_fio_json("{\"jobs\": [{\"jobname\": \"x\", \"read\": {\"total_ios\": 5}}]}").unwrap_err();
    assert!(e.contains("job 'x': read: no \"io_bytes\""), "{e}");
    assert!(parse_fio_json("").is_err());
    // A truncated file: the job objects inside are not taken for the document.
    let text = fixture("two_jobs_randread_write.json");
    let e = parse_fio_json(&text[..text.len() / 2]).unwrap_err();
    assert!(e.contains("does not parse"), "{e}");
}

#[test]
fn report_round_trips_through_json() {
    for name in FIXTURES {
        let r = parse_fio_json(&fixture(name)).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        let back: Report = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v, "{name}");
    }
}

#[test]
fn nearest_percentile_is_used_and_named() {
    let mut doc = raw("psync_loop_blockdev.json");
    let pct = doc["jobs"][0]["write"]["clat_ns"]["percentile"].as_object_mut().unwrap();
    let p9995 = pct["99.950000"].as_u64().unwrap();
    pct.remove("99.990000");
    let r = parse_fio_json(&serde_json::to_string(&doc).unwrap()).unwrap();
    let j = &r.jobs()[0];
    assert_eq!(j.write.as_ref().unwrap().lat_ns.as_ref().unwrap().p99_99, p9995);
    let w = j.warnings.iter().find(|w| w.code == "fio_percentile_nearest").unwrap();
    assert!(w.message.contains("p99_99 from fio's 99.95th"), "{}", w.message);
}

#[test]
fn sizes_times_names_and_dates() {
    assert_eq!(parse_fio_size("4k"), Some(4096));
    assert_eq!(parse_fio_size("1M"), Some(1 << 20));
    assert_eq!(parse_fio_size("64MiB"), Some(64 << 20));
    assert_eq!(parse_fio_size("512"), Some(512));
    assert_eq!(parse_fio_size("50%"), None);
    assert_eq!(parse_secs("1"), Some(1.0));
    assert_eq!(parse_secs("500ms"), Some(0.5));
    assert_eq!(parse_secs("2m"), Some(120.0));
    assert_eq!(normalize_rw("readwrite"), "rw");
    assert_eq!(normalize_rw("randread:8"), "randread");
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(rfc3339(1_795_222_200), "2026-11-21T00:50:00Z");
}

/// Issue 36: counting each job's clones compared every job with every
/// other one. 100,000 jobs (of names seen one, two or three times, in two
/// groups) are counted in well under a second, also in a debug build on a
/// busy machine (a pass over 10^10 pairs would take minutes), and each
/// count is what the comparison of every pair gives.
#[test]
fn clone_counting_is_linear_in_the_jobs() {
    let jobs: Vec<Value> = (0..100_000u64)
        .map(|i| serde_json::json!({ "jobname": format!("job{}", i / 3 + i % 2), "groupid": i % 7 / 6 }))
        .collect();
    let refs: Vec<&Value> = jobs.iter().collect();
    let t = std::time::Instant::now();
    let counts = clone_counts(&refs);
    let took = t.elapsed();
    assert!(took < std::time::Duration::from_secs(1), "100,000 jobs counted in {took:?}");
    // Against the pairwise count, on a sample.
    for i in (0..refs.len()).step_by(997) {
        let pairwise = refs
            .iter()
            .filter(|j| j.get("jobname") == refs[i].get("jobname") && j.get("groupid") == refs[i].get("groupid"))
            .count() as u32;
        assert_eq!(counts[i], pairwise, "job {i}");
    }
    eprintln!("100,000 jobs: clones counted in {took:?}");
}

/// Clone counts tell values apart as fio's JSON has them: a missing name,
/// a number for a name, 1 and 1.0.
#[test]
fn clone_counts_of_odd_values() {
    let jobs: Vec<Value> = [
        serde_json::json!({ "jobname": "a", "groupid": 0 }),
        serde_json::json!({ "jobname": "a", "groupid": 0 }),
        serde_json::json!({ "jobname": "a", "groupid": 1 }),
        serde_json::json!({ "groupid": 0 }),
        serde_json::json!({ "jobname": 1, "groupid": 0 }),
        serde_json::json!({ "jobname": "1", "groupid": 0 }),
        serde_json::json!({ "jobname": "b", "groupid": 1.0 }),
        serde_json::json!({ "jobname": "b", "groupid": 1 }),
    ]
    .into();
    let refs: Vec<&Value> = jobs.iter().collect();
    assert_eq!(clone_counts(&refs), [2, 2, 1, 1, 1, 1, 1, 1]);
}
