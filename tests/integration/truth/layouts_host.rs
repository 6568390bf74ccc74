//! Ground truth for `iolab layouts` (issue 26): a limit on the host's side is told
//! apart from a path the members share. Model: btrfs does a reading process's I/O in
//! that process's context, so iolab held to 5% of one CPU (a CFS quota in a cpu cgroup
//! of its own) issues its reads no faster than that CPU share lets it, on one disk and
//! on a stripe of two alike: the stripe reads about 1× one disk, not the 2× a stripe
//! gives, while its members, which could serve far more, sit idle most of the time. The
//! verdict is then `layout_host_limit` (the members idle), never `layout_shared_path`
//! (members kept busy by a path they share: `truth::layouts`' second setup).
//!
//! Root and mkfs.btrfs; under `CI=true` it runs, never skips.

use crate::common::emu::{LoopDev, MIB};
use crate::common::{iolab_as, json_of};
use std::path::PathBuf;
use std::time::Duration;

/// A cpu cgroup of the test's own, with a CFS quota, removed when dropped
/// (after the processes in it have exited).
struct CpuQuota(PathBuf);

impl CpuQuota {
    fn new(percent: u64) -> CpuQuota {
        let path = PathBuf::from(format!("/sys/fs/cgroup/cpu/iolab-test-host-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        let q = CpuQuota(path);
        // A short period (the kernel's shortest quota is 1 ms: 5% of 20 ms), so a
        // 2 s run spans 100 periods: with 100 ms periods (20 a run) where a run
        // started and ended in them moved its rate by up to 30%, and the verdict
        // was lost in the noise (1 CI run in 1, 1 in 2 here).
        let period = 20_000;
        std::fs::write(q.0.join("cpu.cfs_period_us"), period.to_string()).unwrap();
        std::fs::write(q.0.join("cpu.cfs_quota_us"), (period * percent / 100).to_string()).unwrap();
        q
    }
}

impl Drop for CpuQuota {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_stripe_held_back_by_the_host_is_not_called_a_shared_path() {
    need_root!();
    need_tool!("mkfs.btrfs");
    let q = CpuQuota::new(5);
    let (a, b) = (LoopDev::new_sparse(300 * MIB), LoopDev::new_sparse(300 * MIB));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("iolab.toml");
    std::fs::write(
        &config,
        "[suites.seqread]\njobs = [{ rw = \"read\", bs = \"128k\", qd = 4, name = \"SEQ128K Q4\" }]\n",
    )
    .unwrap();
    // The shell joins the cgroup, then becomes iolab.
    let join = format!("echo $$ > {}/cgroup.procs && exec \"$0\" \"$@\"", q.0.display());
    let mut cmd = iolab_as(&["sh", "-c", &join]);
    cmd.arg("--config")
        .arg(&config)
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "btrfs,btrfs-raid0", "--suite", "seqread"])
        .args(["--runs", "3", "--duration", "2s", "--size", "100MiB", "--warmup", "0"])
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let t = &v["tests"][0];
    let ratio = t["ratios"][1].as_f64().unwrap();
    let findings: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["text"].as_str().unwrap().to_string()))
        .collect();
    note!("the test: {t}");
    note!(
        "5% of a CPU: one disk {:.1} MB/s, raid0 {:.1} MB/s: {ratio:.2}×; {findings:?}",
        t["values"][0].as_f64().unwrap() / 1e6,
        t["values"][1].as_f64().unwrap() / 1e6
    );
    assert!(ratio < 1.5, "the stripe read {ratio:.2}× one disk: the quota did not hold it back");
    let host = findings.iter().find(|(r, _)| r == "layout_host_limit");
    assert!(host.is_some(), "no layout_host_limit: {findings:?}");
    assert!(host.unwrap().1.contains("idle"), "{host:?}");
    assert!(!findings.iter().any(|(r, _)| r == "layout_shared_path"), "{findings:?}");
}
