//! Issue 37: no verdict rests on a figure iolab itself calls untrustworthy,
//! as a new user met them: `scale` of two RAM-backed loop devices named a
//! shared bus, `compare` of ext4 against tmpfs led with tmpfs as a cache,
//! and `compare` of an iolab run and a `--engine fio` run said "20%
//! slower" where docs/fio.md promised whether the two agree.
//!
//! Needs root; skips without it except under `CI=true`.

use crate::common::emu::{Cgroup, Ext4Mount, Limit, LoopDev, MIB, Tmpfs};
use crate::common::{iolab, iolab_in, json_of, json_out};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `cmd` with the store `db`, short measured runs, and its JSON document.
fn measured(mut cmd: Command, db: &Path, runs: &str, label: &str) -> Value {
    cmd.env("IOLAB_DB", db);
    cmd.args(["--runs", runs, "--duration", "1s", "--warmup", "0s", "--interval", "0s"]);
    cmd.args(["--label", label, "--json", "-"]);
    json_of(&mut cmd, Duration::from_secs(120))
}

/// The findings of `iolab compare 1 2` in the store `db`.
fn findings(db: &Path) -> Vec<Value> {
    let out = iolab()
        .env("IOLAB_DB", db)
        .args(["compare", "1", "2", "--format", "json"])
        .output()
        .unwrap();
    json_out(&out)["findings"].as_array().unwrap().clone()
}

/// Two loop devices over files in /dev/shm (the harness's loop devices, as
/// the user's `losetup` of a file in /dev/shm): memory, 17,452 MB/s each on
/// the user's machine. Each job says so (`memory_device`), and `scale` names
/// no shared path on their figures: the verdict is withheld, its figures kept.
#[test]
fn issue_37_scale_of_two_ram_backed_loop_devices_names_no_shared_path() {
    need_root!();
    let devs: Vec<LoopDev> = (0..2).map(|_| LoopDev::new(64 * MIB)).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = iolab();
    cmd.arg("scale").args(devs.iter().map(|d| d.path()));
    cmd.args(["--rw", "read", "--bs", "512k", "--qd", "4"]);
    let v = measured(cmd, &dir.path().join("r.db"), "1", "ram");
    for j in v["jobs"].as_array().unwrap() {
        let codes: Vec<&str> = j["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w["code"].as_str())
            .collect();
        assert!(codes.contains(&"memory_device"), "{}: {codes:?}", j["name"]);
    }
    let verdict = v["scale"]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["kind"] == "together")
        .unwrap_or_else(|| panic!("no together verdict: {}", v["scale"]["verdicts"]));
    let vd = &verdict["verdict"];
    note!("together: {}", vd["text"]);
    assert_eq!(vd["kind"], "inconclusive", "{vd}");
    let text = vd["text"].as_str().unwrap();
    assert!(!text.contains("shared path"), "{text}");
    assert!(text.contains("no verdict: ") && text.contains("memory_device"), "{text}");
    assert!(
        vd["together"].as_f64().unwrap() > 0.0 && vd["efficiency"].as_f64().is_some(),
        "{vd}"
    );
    assert!(vd["ceiling_bps"].is_null(), "{vd}");
}

/// ext4 (on a loop device held at 2,000 read IOPS: its figures are the
/// throttle's, so trusted) against tmpfs (no block device: memory). The
/// cache question is answered, with the caveat and the untrustworthy
/// severity, and the HTML report leads with nothing in bold.
#[test]
fn issue_37_compare_of_ext4_against_tmpfs_does_not_lead_with_tmpfs_as_a_cache() {
    need_root!();
    let ext4 = Ext4Mount::new(128 * MIB);
    let tmpfs = Tmpfs::new(64 * MIB);
    let cg = Cgroup::new();
    cg.limit(ext4.dev(), Limit::ReadIops(2000));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let job = |mut c: Command, target: &Path| {
        c.arg("job").arg(target);
        c.args(["--rw", "randread", "--bs", "4k", "--qd", "1", "--size", "16MiB"]);
        c
    };
    cg.settle();
    let a = measured(job(iolab_in(&cg), ext4.dir()), &db, "3", "ext4");
    let b = measured(job(iolab(), tmpfs.dir()), &db, "3", "tmpfs");
    note!(
        "ext4 {:.0} IOPS, tmpfs {:.0} IOPS",
        a["jobs"][0]["read"]["iops"].as_f64().unwrap(),
        b["jobs"][0]["read"]["iops"].as_f64().unwrap()
    );
    let f = findings(&db);
    let cache = f
        .iter()
        .find(|x| x["rule"] == "cache_candidate")
        .unwrap_or_else(|| panic!("no cache_candidate: {f:#?}"));
    note!("cache: {}", cache["text"]);
    assert_eq!(cache["severity"], "untrustworthy", "{cache}");
    assert!(
        cache["text"].as_str().unwrap().contains("Caveat: tmpfs carries no_block_device"),
        "{cache}"
    );

    let html = dir.path().join("compare.html");
    let out = iolab()
        .env("IOLAB_DB", &db)
        .args(["report", "1", "2", "-o"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    let list = &page[page.find("<div class=\"findings\">").expect("a findings list")..];
    let list = &list[..list.find("</div>").unwrap()];
    assert!(!list.contains("class=\"key\""), "nothing leads on untrustworthy figures: {list}");
    assert!(
        list.contains("<li data-code=\"cache_candidate\"><span class=\"badge untrustworthy\">"),
        "{list}"
    );
    drop(cg);
}

/// One plan on one throttled loop device, run by iolab and then by fio
/// (`--engine fio`): `compare` says whether the two agree within the noise
/// (as the bootstrap interval of the test's ratio says), and sets no CPU
/// figure of fio's threads against iolab's whole process.
#[test]
fn issue_37_compare_of_two_engines_says_whether_they_agree() {
    need_root!();
    need_tool!("fio");
    let dev = LoopDev::new(128 * MIB);
    let cg = Cgroup::new();
    cg.limit(&dev, Limit::ReadBps(30 * MIB));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    for engine in ["io_uring", "fio"] {
        cg.settle();
        let mut c = iolab_in(&cg);
        c.arg("job").arg(dev.path());
        c.args(["--rw", "read", "--bs", "512k", "--qd", "4", "--engine", engine]);
        measured(c, &db, "3", engine);
    }
    let out = iolab()
        .env("IOLAB_DB", &db)
        .args(["compare", "1", "2", "--format", "json"])
        .output()
        .unwrap();
    let c = json_out(&out);
    let within = c["tests"][0]["within_noise"][1]
        .as_bool()
        .expect("3 runs a side: the noise is known");
    let f = c["findings"].as_array().unwrap();
    let engines: Vec<&Value> = f.iter().filter(|x| x["rule"].as_str().unwrap().starts_with("engines_")).collect();
    assert_eq!(engines.len(), 1, "{f:#?}");
    let e = engines[0];
    note!("{}: {}", e["rule"], e["text"]);
    assert_eq!(e["rule"], if within { "engines_agree" } else { "engines_differ" }, "{c:#}");
    let text = e["text"].as_str().unwrap();
    assert!(
        text.starts_with("fio (fio, io_uring) and io_uring (iolab, io_uring) ran the same plan on "),
        "{text}"
    );
    if !within {
        assert!(text.contains(" is ") && text.contains("95% interval of the ratio"), "{text}");
    }
    for x in f.iter().filter(|x| x["rule"] == "cpu_cost") {
        let t = x["text"].as_str().unwrap();
        assert!(t.starts_with("CPU is not compared: fio's figure is fio's"), "{t}");
    }
    drop(cg);
}

/// The log-device (SLOG) verdict rests on the sync suite and on the stored
/// power-cut check of the faster device: two loop devices over files on
/// /var/tmp (not memory), the second held at 50 write IOPS, each with the
/// sync suite. A check of a log whose writer ended it itself (`--generations`)
/// is no power-cut check: `compare` says none is stored. A check of a log
/// whose writer was killed mid-run (as a power cut stops it) is one:
/// `compare` finds it in the store by the device's identity and names its day.
#[test]
fn issue_37_the_slog_verdict_names_the_stored_power_cut_check_of_the_device() {
    need_root!();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let fast = LoopDev::new_in(Path::new("/var/tmp"), 64 * MIB);
    let slow = LoopDev::new_in(Path::new("/var/tmp"), 64 * MIB);
    let cg = Cgroup::new();
    cg.limit(&slow, Limit::WriteIops(50));
    let sync = |mut cmd: Command, dev: &LoopDev, label: &str| {
        cmd.arg("run").arg(dev.path()).args(["--suite", "sync", "--allow-destroy"]);
        measured(cmd, &db, "1", label)
    };
    sync(iolab(), &fast, "fast");
    sync(iolab_in(&cg), &slow, "slow");
    // The logs on another device than the one under test (tmpfs), as `flush` insists.
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let flush = |log: &Path| {
        let mut cmd = iolab();
        cmd.env("IOLAB_DB", &db).arg("flush").arg(fast.path()).arg("--log").arg(log);
        cmd
    };
    let check = |log: &Path| {
        let out = flush(log).args(["--check", "--json", "-"]).output().unwrap();
        let v = json_out(&out);
        note!("check: {}", v["flush"]["findings"]["message"]);
        v
    };
    let log_verdict = || {
        let fs = findings(&db);
        let m = fs
            .iter()
            .filter_map(|f| f["text"].as_str())
            .find(|m| m.contains("As a sync-write log (ZFS SLOG) for slow, fast"))
            .map(str::to_string);
        m.unwrap_or_else(|| panic!("no log-device verdict: {fs:?}"))
    };

    // The writer ends by itself: no power cut.
    let done = shm.path().join("done.log");
    json_out(
        &flush(&done)
            .args(["--allow-destroy", "--generations", "20", "--json", "-"])
            .output()
            .unwrap(),
    );
    let v = check(&done);
    assert_eq!(v["flush"]["writer_ended"], "done", "{v}");
    let m = log_verdict();
    note!("{m}");
    assert!(m.contains("is fit: 4K sync writes"), "{m}");
    assert!(m.contains("no power-cut check of it is stored"), "{m}");

    // The writer killed mid-run, as a power cut stops it.
    let cut = shm.path().join("cut.log");
    let mut writer = flush(&cut).arg("--allow-destroy").spawn().unwrap();
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(&cut).map_or(0, |t| t.lines().count()) < 10 {
        assert!(t0.elapsed() < Duration::from_secs(60), "the writer acknowledged nothing in 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
    let v = check(&cut);
    assert!(v["flush"]["writer_ended"].is_null(), "{v}");
    let m = log_verdict();
    note!("{m}");
    let today = String::from_utf8(Command::new("date").args(["-u", "+%F"]).output().unwrap().stdout).unwrap();
    assert!(
        m.contains(&format!("a power-cut check on {} found every acknowledged write", today.trim())),
        "{m}"
    );
}
