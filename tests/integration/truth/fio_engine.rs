//! `--engine fio` (issue 14): the same plan run by fio lands on the
//! emulated device's limit like iolab's own engine, one after the other on
//! the same throttled loop device, and `iolab compare` of the two runs
//! finds no difference outside the noise; the job file iolab emits is the
//! one fio runs. (fio starts each run as a new job after a stonewall, and a
//! settled blkio throttle lets the first moments of a new stream through at
//! once: 3 s runs keep that burst to about 1.5%.)

use crate::common::emu::{Cgroup, Limit, LoopDev, MIB};
use crate::common::{iolab, iolab_in, json_out, within};
use serde_json::Value;
use std::process::Command;

fn run(cg: &Cgroup, dev: &LoopDev, db: &std::path::Path, engine: &str) -> Value {
    let _ = dev;
    cg.settle();
    let out = iolab_in(cg)
        .env("IOLAB_DB", db)
        .args(["job"])
        .arg(dev.path())
        .args(["--rw", "read", "--bs", "512k", "--qd", "4", "--runs", "3", "--duration", "3s"])
        .args([
            "--warmup",
            "1s",
            "--interval",
            "0s",
            "--engine",
            engine,
            "--label",
            engine,
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{engine}: {}", String::from_utf8_lossy(&out.stderr));
    json_out(&out)
}

#[test]
fn issue_14_fio_engine_and_iolab_agree_on_the_limit() {
    need_root!();
    need_tool!("fio");
    let dev = LoopDev::new(256 * MIB);
    let cg = Cgroup::new();
    let limit = 30 * MIB;
    cg.limit(&dev, Limit::ReadBps(limit));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    let ours = run(&cg, &dev, &db, "io_uring");
    let fio = run(&cg, &dev, &db, "fio");
    let bw = |v: &Value| v["jobs"][0]["read"]["bw_bytes"].as_f64().unwrap();
    note!(
        "iolab {:.3} MiB/s, fio {:.3} MiB/s, limit 30 MiB/s",
        bw(&ours) / MIB as f64,
        bw(&fio) / MIB as f64
    );
    assert!(within(bw(&ours), limit as f64, 0.03), "iolab {}", bw(&ours));
    assert!(within(bw(&fio), limit as f64, 0.03), "fio {}", bw(&fio));
    assert!(within(bw(&fio), bw(&ours), 0.03), "fio {} vs iolab {}", bw(&fio), bw(&ours));
    // fio's run is an iolab run: three measured runs of one test, by fio.
    let job = &fio["jobs"][0];
    assert_eq!(job["name"], ours["jobs"][0]["name"]);
    assert_eq!(job["runs"].as_array().unwrap().len(), 3);
    assert!(job["engine"].as_str().unwrap().starts_with("fio:"), "{}", job["engine"]);
    // compare: no difference outside the noise.
    let cmp = iolab()
        .env("IOLAB_DB", &db)
        .args(["compare", "1", "2", "--format", "json"])
        .output()
        .unwrap();
    let c = json_out(&cmp);
    let t = &c["tests"][0];
    assert!(within(t["ratios"][1].as_f64().unwrap(), 1.0, 0.03), "{t}");
}

/// The job file `--emit fio` prints is accepted by fio for every suite's
/// shape, and names its sections so that they read back.
#[test]
fn issue_14_emitted_job_file_runs_in_fio() {
    need_tool!("fio");
    // fio writes its data file (iolab-fio.test) in `dir`: a TempDir, removed with all
    // it holds on drop, also when an assertion below fails.
    let dir = tempfile::Builder::new().prefix("iolab-emit-").tempdir_in("/dev/shm").unwrap();
    let out = iolab()
        .args(["run"])
        .arg(dir.path())
        .args([
            "--suite",
            "demo",
            "--size",
            "16MiB",
            "--runs",
            "2",
            "--duration",
            "300ms",
            "--warmup",
            "0s",
        ])
        .args(["--interval", "0s", "--emit", "fio"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = dir.path().join("demo.fio");
    std::fs::write(&file, &out.stdout).unwrap();
    let fio = Command::new("fio").arg("--output-format=json").arg(&file).output().unwrap();
    assert!(fio.status.success(), "{}", String::from_utf8_lossy(&fio.stderr));
    let v: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["SEQ1M Q8T1 read@1", "SEQ1M Q8T1 read@2", "SEQ1M Q8T1 write@1", "SEQ1M Q8T1 write@2"]
    );
}
