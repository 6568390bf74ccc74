//! Ground truth for `iolab layouts` (issue 26): ZFS on two emulated disks that each read
//! at most 20 MiB/s on a link of their own (a throttle per member, in the cgroup of the
//! zfs-fuse daemon that issues their I/O). Model: a 128K sequential read with 4 in flight,
//! cold (iolab built the pool, so it exports and imports it before the read), reads one
//! disk's limit on one disk and both disks' on a stripe of two (ZFS spreads records over
//! top-level vdevs, and the reads in flight go to both at once): the stripe reads 2× one
//! disk, ±10%.
//!
//! The same two disks behind one shared path (their backing files on ext4 on a third
//! device the same throttle limits to one disk's 20 MiB/s, as a USB bridge that serves
//! one disk at a time: seed 002): the stripe reads what the path gives, 1× one disk
//! (±10%), and the comparison is what tells the two setups apart.
//!
//! Root and zfs-fuse; under `CI=true` it runs, never skips.

use crate::common::emu::{BlockDev, Disk, Ext4Mount, Layout, Limit, LoopDev, MIB, ZfsLab};
use crate::common::{iolab, json_of};
use std::time::Duration;

const LIMIT: u64 = 20 * MIB;

/// Removes the lab cgroup's rules for a device when dropped (the cgroup lives on).
struct Unthrottle<'a>(&'a crate::common::emu::Cgroup, String);

impl Drop for Unthrottle<'_> {
    fn drop(&mut self) {
        let _ = std::fs::write(self.0.path().join("blkio.throttle.read_bps_device"), format!("{} 0", self.1));
    }
}

/// `layouts --try zfs,zfs-stripe2` of a 128K read at QD4 on `a` and `b`: one disk's
/// figure and the stripe's, in B/s.
fn single_and_stripe(a: &LoopDev, b: &LoopDev) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("iolab.toml");
    std::fs::write(
        &config,
        "[suites.seqread]\njobs = [{ rw = \"read\", bs = \"128k\", qd = 4, name = \"SEQ128K Q4\" }]\n",
    )
    .unwrap();
    let mut cmd = iolab();
    cmd.arg("--config")
        .arg(&config)
        .arg("layouts")
        .arg(a.path())
        .arg(b.path())
        .args(["--allow-destroy", "--try", "zfs,zfs-stripe2", "--suite", "seqread"])
        .args(["--runs", "2", "--duration", "2s", "--size", "200MiB", "--warmup", "0"])
        .args(["--no-store", "--json", "-"]);
    let v = json_of(&mut cmd, Duration::from_secs(300));
    let values: Vec<f64> = v["tests"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    (values[0], values[1])
}

#[test]
fn a_zfs_stripe_reads_twice_one_disk_on_links_of_their_own_and_once_behind_a_shared_path() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    let lab = ZfsLab::start();
    let _keep = lab.pool(Layout::Single, Disk::new(64 * MIB)).create();
    let throttle = |devs: &[&dyn BlockDev]| -> Vec<Unthrottle> {
        devs.iter()
            .map(|d| {
                lab.cgroup().limit(*d, Limit::ReadBps(LIMIT));
                Unthrottle(lab.cgroup(), d.majmin())
            })
            .collect()
    };
    // Links of their own.
    let (a, b) = (LoopDev::new_sparse(512 * MIB), LoopDev::new_sparse(512 * MIB));
    let guards = throttle(&[&a, &b]);
    let (one, stripe) = single_and_stripe(&a, &b);
    drop(guards);
    let ratio = stripe / one;
    note!(
        "own links: one disk {:.2} MiB/s, stripe of 2 {:.2} MiB/s: {ratio:.3}× (model 2×)",
        one / MIB as f64,
        stripe / MIB as f64
    );
    assert!((one - LIMIT as f64).abs() <= LIMIT as f64 * 0.10, "one disk read {one} B/s");
    assert!(
        (ratio - 2.0).abs() <= 0.2,
        "the stripe read {ratio:.3}× one disk, the model says 2×"
    );
    drop((a, b));

    // One shared path.
    let bus = Ext4Mount::new(1200 * MIB);
    let (a, b) = (LoopDev::new_in(bus.dir(), 512 * MIB), LoopDev::new_in(bus.dir(), 512 * MIB));
    let guards = throttle(&[&a, &b, bus.dev()]);
    let (one, stripe) = single_and_stripe(&a, &b);
    drop(guards);
    let ratio = stripe / one;
    note!(
        "shared path: one disk {:.2} MiB/s, stripe of 2 {:.2} MiB/s: {ratio:.3}× (model 1×)",
        one / MIB as f64,
        stripe / MIB as f64
    );
    assert!((one - LIMIT as f64).abs() <= LIMIT as f64 * 0.10, "one disk read {one} B/s");
    assert!(
        (ratio - 1.0).abs() <= 0.1,
        "the stripe read {ratio:.3}× one disk behind one path, the model says 1×"
    );
}
