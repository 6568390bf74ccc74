//! Ground truth on a live ZFS: zfs-fuse pools over blkio-throttled loop devices (see
//! [`crate::common::emu::zfs`]: the daemon issues the members' I/O, opens them
//! `O_DIRECT`, and runs with a 64 MiB ARC), and iolab held to what the members can do.
//!
//! * `info` names every member of a 3-way mirror, a RAID-Z1 of 3 and a pool with log and
//!   cache devices, with its kernel device and the limits of the daemon's cgroup; the
//!   layout, the ARC's maximum, the recordsize and the implementation.
//! * A 128K sequential read of a 3-way mirror with `--allow-export` is the disks': the
//!   members read at least the job's bytes, and the figure is no more than the three
//!   members deliver together (zfs-fuse spreads a QD4 sequential read over all three:
//!   measured, see the test). The same job timed (re-reading) without consent, and a 4K
//!   re-read of a small file, are labelled cached.
//! * 128K writes on a 3-way mirror and a RAID-Z1 of 3: iolab's model says 3.0 and 1.5
//!   bytes per byte of data, and the members, counted until they are still, wrote that
//!   within the model's tolerance. The same within a job's window (`measured_ratio`) does
//!   not hold on zfs-fuse, whose `fdatasync` is no barrier: that test is kept, ignored,
//!   with its figures (`zfs_write_job_window_is_the_members`).
//! * The members of a 3-way mirror: an even QD4 read raises no `zfs_member_uneven`; with
//!   one member offlined, a write job has it write nothing and the finding names it.
//! * `iolab time --cold --allow-export -- cat FILE` on a 3-way mirror lists all three
//!   members in `time.zfs_members`, their reads adding up to the file, each with a share.
//!
//! All of them take about 37 s here (`CI=true cargo test --test integration truth::zfs --
//! --test-threads=1`); figures and commands are in docs/zfs.md.
//!
//! Root, zfs-fuse, `zpool` and `zfs`: under `CI=true` they run, never skip. The ZFS lab's
//! lock serialises them with every other live-ZFS test.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use crate::common::emu::{BlockDev, Disk, Layout, MIB, Role, ZfsLab};
use crate::common::iolab;

macro_rules! need_zfs {
    () => {
        need_root!();
        need_tool!("zfs-fuse");
        need_tool!("zpool");
        need_tool!("zfs");
    };
}

/// iolab's tolerance of the device cross-check and of the write model
/// (`base::thresholds::{DEVICE_TOLERANCE, ZFS_WRITE_MODEL_TOLERANCE}`).
const DEVICE_TOLERANCE: f64 = 0.10;
const WRITE_MODEL_TOLERANCE: f64 = 0.10;

fn json_of(cmd: &mut Command, what: &str) -> Value {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn info(target: &Path) -> Value {
    json_of(iolab().arg("info").arg(target).arg("--json"), "iolab info --json")
}

/// `iolab job TARGET ARGS --format json`, its one job.
fn job(target: &Path, args: &[&str]) -> Value {
    let what = format!("iolab job {} {}", target.display(), args.join(" "));
    let v = json_of(iolab().arg("job").arg(target).args(args).args(["--format", "json"]), &what);
    v["jobs"][0].clone()
}

fn warning_codes(job: &Value) -> Vec<String> {
    job["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w["code"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Every leaf vdev of `info`'s tree: (name, kernel device, class).
fn leaves(v: &Value) -> Vec<(String, String, String)> {
    fn walk(n: &Value, out: &mut Vec<(String, String, String)>) {
        let kids = n["children"].as_array().filter(|k| !k.is_empty());
        match kids {
            Some(kids) => kids.iter().for_each(|k| walk(k, out)),
            None => out.push((
                n["name"].as_str().unwrap_or("").to_string(),
                n["device"].as_str().unwrap_or("").to_string(),
                n["class"].as_str().unwrap_or("").to_string(),
            )),
        }
    }
    let mut out = Vec::new();
    for top in v["zfs"]["vdevs"].as_array().expect("zfs.vdevs") {
        walk(top, &mut out);
    }
    out
}

/// `iolab info --json` of a live 3-way mirror, a RAID-Z1 of 3 and a 2-way mirror with a
/// log and a cache device: every member under its kernel name and class, with the
/// limits the lab set on the daemon's cgroup (each pool's its own, so none is mistaken
/// for another's), the layout, the ARC's maximum, the recordsize and the implementation.
#[test]
fn zfs_info_names_every_member_and_its_limit() {
    need_zfs!();
    let lab = ZfsLab::start();
    let arc_max = if lab.started_daemon() {
        64 * MIB
    } else {
        lab.arcstat("c_max").expect("arcstats/c_max of the running daemon")
    };
    let cases: &[(Layout, bool, &str, u64, u64)] = &[
        (Layout::Mirror(3), false, "mirror", 20 * MIB, 10 * MIB),
        (Layout::RaidZ1(3), false, "raidz1", 30 * MIB, 15 * MIB),
        (Layout::Mirror(2), true, "mirror", 40 * MIB, 25 * MIB),
    ];
    for &(layout, extras, profile, rbps, wbps) in cases {
        let t = Instant::now();
        let disk = Disk::new(64 * MIB).read_bps(rbps).write_bps(wbps);
        let mut b = lab.pool(layout, disk);
        if extras {
            b = b
                .log(Disk::new(64 * MIB).read_bps(rbps + MIB).write_bps(wbps + MIB))
                .cache(Disk::new(64 * MIB).read_bps(rbps + 2 * MIB).write_bps(wbps + 2 * MIB));
        }
        let pool = b.create();
        let v = info(pool.mountpoint());
        let z = &v["zfs"];
        let what = format!("{layout:?}{}", if extras { " + log + cache" } else { "" });
        assert_eq!(z["implementation"], "zfs-fuse", "{what}: {z}");
        assert_eq!(z["pool"], pool.name(), "{what}");
        assert_eq!(z["layout"], profile, "{what}");
        assert_eq!(z["state"], "ONLINE", "{what}");
        assert_eq!(z["arc_max_bytes"], arc_max, "{what}: ARC maximum");
        assert_eq!(z["dataset_properties"]["recordsize_bytes"], 128 * 1024, "{what}: recordsize");
        assert_eq!(z["daemon"]["pid"], lab.daemon_pid(), "{what}: the daemon");
        assert_eq!(v["layout"]["by"], "zfs", "{what}");
        assert_eq!(v["layout"]["profile"], profile, "{what}");
        assert_eq!(v["layout"]["members"], layout.disks(), "{what}: data members");
        let got = leaves(&v);
        let throttles = v["throttles"].as_array().expect("throttles");
        assert_eq!(got.len(), pool.members().len(), "{what}: leaves {got:?}");
        for m in pool.members() {
            let kname = m.kernel_name();
            let class = match m.role() {
                Role::Data => "data",
                Role::Log => "logs",
                Role::Cache => "cache",
            };
            assert!(
                got.iter().any(|(n, d, c)| n == &kname && d == &kname && c == class),
                "{what}: member {kname} ({class}) not in the vdev tree {got:?}"
            );
            let th = throttles
                .iter()
                .find(|t| t["device"] == kname.as_str())
                .unwrap_or_else(|| panic!("{what}: no throttle for {kname}: {throttles:?}"));
            let d = m.disk();
            assert_eq!(th["dev"], m.majmin(), "{what}: {kname}");
            assert_eq!(th["read_bps"], d.read_bps.unwrap(), "{what}: {kname} read limit");
            assert_eq!(th["write_bps"], d.write_bps.unwrap(), "{what}: {kname} write limit");
            assert_eq!(th["cgroup"], format!("/{}", lab.cgroup().name()), "{what}: {kname} cgroup");
            let issuer = th["issuer"].as_str().unwrap_or("");
            assert!(
                issuer.contains("zfs-fuse") && issuer.contains(&lab.daemon_pid().to_string()),
                "{what}: {kname} issuer {issuer:?}"
            );
        }
        note!(
            "{what}: {} leaves, limits of the daemon's cgroup, ARC max {} MiB, ashift {}, in {:.2} s",
            got.len(),
            arc_max / MIB,
            z["ashift"],
            t.elapsed().as_secs_f64()
        );
    }
}

/// A 128K QD4 sequential read of 96 MiB on a 3-way mirror whose members read at 20 MiB/s,
/// once, with `--allow-export`: iolab exports and imports the pool (`export_import`), the
/// members read at least the job's bytes (the cross-check's tolerance aside), and the
/// figure is no more than the three members together (3 × 20 MiB/s, +3 %). zfs-fuse's
/// mirror read policy, measured: every member reads a share of the pass (each at least a
/// quarter of the bytes), and the figure is more than two members could deliver — the
/// pass is spread over all three. Then, on the same pool, the same job timed (2 s of
/// re-reading, no consent) and a 4K random re-read of a 4 MiB file: both labelled cached
/// (`zfs_arc_cached`, method `cached`), the first because no method applies to a job that
/// re-reads a span under 10× the ARC, the second because the ARC holds all of it.
#[test]
fn zfs_mirror_read_is_the_disks_or_labelled_cached() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    const SIZE: &str = "96MiB";
    const BYTES: u64 = 96 * MIB;
    let lab = ZfsLab::start();
    // Writes unthrottled: only the job's prefill writes, and it is not what is measured.
    let pool = lab.pool(Layout::Mirror(3), Disk::new(256 * MIB).read_bps(LIMIT)).create();
    let mnt = pool.mountpoint();

    let args = [
        "--rw",
        "read",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--size",
        SIZE,
        "--bytes",
        SIZE,
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--allow-export",
    ];
    let t = Instant::now();
    let j = job(mnt, &args);
    let secs = t.elapsed().as_secs_f64();
    assert_eq!(j["zfs_read"]["method"], "export_import", "{}", j["zfs_read"]);
    let codes = warning_codes(&j);
    for bad in ["zfs_arc_cached", "cache_answered"] {
        assert!(
            !codes.contains(&bad.to_string()),
            "{bad} on a read after an export/import: {}",
            j["warnings"]
        );
    }
    let read = j["read"]["bytes"].as_u64().unwrap();
    assert_eq!(read, BYTES, "the job's bytes");
    let members = j["device"]["read_bytes"].as_u64().unwrap();
    let lower = j["device"]["lower"].as_array().expect("device.lower: the members");
    assert_eq!(lower.len(), 3, "three members in the cross-check: {lower:?}");
    let bw = j["read"]["bw_bytes"].as_f64().unwrap();
    let shares: Vec<f64> = lower.iter().map(|m| m["read_bytes"].as_f64().unwrap() / members as f64).collect();
    note!(
        "iolab job POOL {}: {:.2} MiB/s ({:.1} % of 3 × {} MiB/s); members read {members} B for {read} B, shares {:.3?}; {:.1} s with the export/import",
        args.join(" "),
        bw / MIB as f64,
        bw / (3 * LIMIT) as f64 * 100.0,
        LIMIT / MIB,
        shares,
        secs
    );
    assert!(
        members as f64 >= read as f64 * (1.0 - DEVICE_TOLERANCE),
        "the members read {members} B of the job's {read} B"
    );
    assert!(
        bw <= 3.0 * LIMIT as f64 * 1.03,
        "{bw:.0} B/s is more than three members at {LIMIT} B/s deliver"
    );
    assert!(
        bw > 2.0 * LIMIT as f64,
        "{bw:.0} B/s: no more than two members' worth; zfs-fuse's mirror read policy did not spread the pass (shares {shares:.3?})"
    );
    assert!(shares.iter().all(|&s| s >= 0.25), "a member read less than a quarter: {shares:.3?}");

    // The same job, timed: it re-reads its 96 MiB span, which the 64 MiB ARC can partly hold.
    let args = [
        "--rw",
        "read",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--size",
        SIZE,
        "--duration",
        "2s",
        "--runs",
        "1",
        "--warmup",
        "0s",
    ];
    let j = job(mnt, &args);
    note!(
        "iolab job POOL {}: {:.2} MiB/s, members read {} B of {} B: {}",
        args.join(" "),
        j["read"]["bw_bytes"].as_f64().unwrap() / MIB as f64,
        j["device"]["read_bytes"],
        j["read"]["bytes"],
        j["zfs_read"]["method"]
    );
    assert_eq!(j["zfs_read"]["method"], "cached", "{}", j["zfs_read"]);
    assert!(warning_codes(&j).contains(&"zfs_arc_cached".to_string()), "{}", j["warnings"]);

    // A 4K re-read of a small file.
    let args = [
        "--rw",
        "randread",
        "--bs",
        "4k",
        "--qd",
        "1",
        "--size",
        "4MiB",
        "--duration",
        "2s",
        "--runs",
        "1",
        "--warmup",
        "0s",
    ];
    let j = job(mnt, &args);
    note!(
        "iolab job POOL {}: {:.2} MiB/s, members read {} B of {} B: {}",
        args.join(" "),
        j["read"]["bw_bytes"].as_f64().unwrap() / MIB as f64,
        j["device"]["read_bytes"],
        j["read"]["bytes"],
        j["zfs_read"]["method"]
    );
    assert_eq!(j["zfs_read"]["method"], "cached", "{}", j["zfs_read"]);
    assert!(warning_codes(&j).contains(&"zfs_arc_cached".to_string()), "{}", j["warnings"]);
}

/// Issue 37: a read job of several timed runs on ZFS stayed labelled cached
/// unless its span was 10× the ARC, the pool being exported once per job.
/// With `--allow-export` each run now starts cold (the pool exported and
/// imported before it, the run on workers of its own), so every run is the
/// member's rate and the member read what the job read; a run that reads
/// past its span (it wrapped around) is labelled cached, with the run named.
#[test]
fn zfs_every_timed_run_is_cold_with_an_export_before_each() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Single, Disk::new(256 * MIB).read_bps(LIMIT)).create();
    let mnt = pool.mountpoint();
    // 3 runs of 2 s at 20 MiB/s: 40 MiB each, within the 96 MiB span; the
    // 64 MiB ARC would hold what run 1 read if the pool stayed imported.
    let args = [
        "--rw",
        "read",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--size",
        "96MiB",
        "--duration",
        "2s",
        "--runs",
        "3",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--allow-export",
    ];
    let t = Instant::now();
    let j = job(mnt, &args);
    let secs = t.elapsed().as_secs_f64();
    let runs = j["runs"].as_array().expect("runs");
    let per_run: Vec<f64> = runs.iter().map(|r| r["read"]["bw_bytes"].as_f64().unwrap() / MIB as f64).collect();
    note!(
        "iolab job POOL {}: {} runs at {per_run:.2?} MiB/s (limit {} MiB/s), members read {} B of {} B, {:.1} s: {}",
        args.join(" "),
        runs.len(),
        LIMIT / MIB,
        j["device"]["read_bytes"],
        j["read"]["bytes"],
        secs,
        j["zfs_read"]["reason"]
    );
    assert_eq!(j["zfs_read"]["method"], "export_each_run", "{}", j["zfs_read"]);
    let codes = warning_codes(&j);
    for bad in ["zfs_arc_cached", "cache_answered"] {
        assert!(!codes.contains(&bad.to_string()), "{bad}: {}", j["warnings"]);
    }
    assert_eq!(runs.len(), 3);
    for (i, bw) in per_run.iter().enumerate() {
        // The member's limit, never the ARC's speed (a cached run reads at
        // memory speed, hundreds of MiB/s). Up to +10%: after the idle of an
        // export and import the throttle grants its first 100 ms slice at
        // once (2 MiB of a 2 s run's 40 MiB).
        assert!(
            *bw <= LIMIT as f64 / MIB as f64 * 1.10,
            "run {}: {bw:.2} MiB/s is past the member's limit",
            i + 1
        );
        assert!(*bw >= LIMIT as f64 / MIB as f64 * 0.60, "run {}: {bw:.2} MiB/s", i + 1);
    }
    let read = j["read"]["bytes"].as_u64().unwrap();
    let members = j["device"]["read_bytes"].as_u64().unwrap();
    assert!(
        members as f64 >= read as f64 * (1.0 - DEVICE_TOLERANCE),
        "the member read {members} B of the job's {read} B: a cache answered"
    );

    // A run that reads past its span: labelled cached, the run named.
    let args = [
        "--rw",
        "read",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--size",
        "16MiB",
        "--duration",
        "2s",
        "--runs",
        "2",
        "--warmup",
        "0s",
        "--interval",
        "0s",
        "--allow-export",
    ];
    let j = job(mnt, &args);
    note!("iolab job POOL {}: {}", args.join(" "), j["zfs_read"]);
    assert_eq!(j["zfs_read"]["method"], "cached", "{}", j["zfs_read"]);
    let reason = j["zfs_read"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("run 1 read ") && reason.contains("of a 16.00 MiB span"),
        "{reason}"
    );
    assert!(warning_codes(&j).contains(&"zfs_arc_cached".to_string()), "{}", j["warnings"]);
}

/// The members' write counters summed.
fn members_written(lab: &ZfsLab, pool: &crate::common::emu::zfs::Pool) -> u64 {
    pool.members().iter().map(|m| lab.cgroup().io_count(m).write_bytes).sum()
}

/// What the members wrote during `f`, flushed by an export (zfs-fuse's `fsync` is no
/// barrier: its transaction groups reach the members when its write throttle or its
/// timer says, not when a caller syncs; an export writes everything out), less what an
/// export and import of the idle pool write (`idle`). The pool is imported again after.
fn written_through_export(lab: &ZfsLab, pool: &crate::common::emu::zfs::Pool, idle: u64, f: impl FnOnce()) -> u64 {
    let before = members_written(lab, pool);
    f();
    pool.export();
    let after = members_written(lab, pool);
    pool.import();
    (after - before).saturating_sub(idle)
}

const WRITE_ARGS: [&str; 13] = [
    "--rw", "write", "--bs", "128k", "--qd", "4", "--size", "64MiB", "--bytes", "64MiB", "--runs", "1", "--warmup",
];
const WRITE_BYTES: u64 = 64 * MIB;

/// The layout model against the live pool: a 128K write job of 64 MiB on a 3-way mirror
/// and on a RAID-Z1 of 3 (members at 20 MiB/s for writes). iolab's model says 3.0 and 1.5
/// bytes per data byte (`device.zfs_writes.expected_ratio`), and the members, counted
/// over the whole command and an export that writes out what is left (the prefill's
/// 64 MiB and the job's 64 MiB: see the next test for why not over the job's window),
/// wrote that within the model's tolerance.
#[test]
fn zfs_write_model_holds_on_a_live_pool() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    let lab = ZfsLab::start();
    for (layout, expected) in [(Layout::Mirror(3), 3.0), (Layout::RaidZ1(3), 1.5)] {
        let pool = lab.pool(layout, Disk::new(256 * MIB).write_bps(LIMIT)).create();
        // Everything of the creation out, then what an idle export and import write.
        pool.export();
        pool.import();
        let idle = written_through_export(&lab, &pool, 0, || ());
        let mut j = Value::Null;
        let written = written_through_export(&lab, &pool, idle, || {
            j = job(pool.mountpoint(), &[&WRITE_ARGS[..], &["0s"]].concat())
        });
        let zw = &j["device"]["zfs_writes"];
        assert_eq!(j["write"]["bytes"], WRITE_BYTES, "the job's bytes");
        let whole = written as f64 / (2 * WRITE_BYTES) as f64;
        note!(
            "{layout:?}: iolab job POOL {} 0s: model {} ({}); members wrote {written} B over the command and an export (prefill + job, {} B of data; an idle export's {idle} B taken off): {whole:.3}×",
            WRITE_ARGS.join(" "),
            zw["expected_ratio"],
            zw["model"],
            2 * WRITE_BYTES
        );
        assert_eq!(zw["expected_ratio"].as_f64(), Some(expected), "{layout:?} model: {zw}");
        // zfs-fuse's fsync is no barrier (next test): the figure says so, and the
        // window's member bytes are not judged against the model.
        let codes = warning_codes(&j);
        assert!(codes.contains(&"zfs_fuse_unflushed".to_string()), "{layout:?}: {}", j["warnings"]);
        assert!(
            !codes.contains(&"zfs_write_amplification".to_string()),
            "{layout:?}: {}",
            j["warnings"]
        );
        assert!(
            (whole - expected).abs() <= expected * WRITE_MODEL_TOLERANCE,
            "{layout:?}: the members wrote {whole:.3}× the data over the command, the model says {expected}×"
        );
    }
}

/// iolab's own figures of a write job on zfs-fuse: the members' bytes within the job's
/// window against the model (`measured_ratio`), and the figure no more than the members
/// can absorb (a mirror: one member's limit; RAID-Z1 of 3: two), with io_uring and
/// buffered. Does not hold on zfs-fuse: its `fsync` and `fdatasync` are no barrier (the
/// job's returns in 0.03-0.2 ms; `sync FILE` after an 8 MiB `dd` returned in 2-5 ms and
/// the members wrote nothing, then or in the next 3 s), so a job's window holds the tail
/// of the prefill's writes and misses the tail of its own (RAID-Z1 of 3, 64 MiB: measured
/// 1.72× with io_uring, 1.41× buffered at 43.3 MiB/s, more than the 40 MiB/s the two
/// data members' worth can absorb). Until a write job on zfs-fuse ends with a barrier
/// that waits for the transaction group, iolab labels its write figures unflushed
/// (`zfs_fuse_unflushed`, checked by the test above); run this with `--ignored` then.
#[test]
#[ignore = "zfs-fuse's fdatasync is no barrier: a write job's window is off by up to a transaction group (see the doc comment)"]
fn zfs_write_job_window_is_the_members() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    let lab = ZfsLab::start();
    for (layout, expected, data_disks) in [(Layout::Mirror(3), 3.0, 1.0), (Layout::RaidZ1(3), 1.5, 2.0)] {
        for extra in [&[][..], &["--buffered"][..]] {
            let pool = lab.pool(layout, Disk::new(256 * MIB).write_bps(LIMIT)).create();
            let j = job(pool.mountpoint(), &[&WRITE_ARGS[..], &["0s"], extra].concat());
            let zw = &j["device"]["zfs_writes"];
            let measured = zw["measured_ratio"]
                .as_f64()
                .unwrap_or_else(|| panic!("no zfs_writes: {}", j["device"]));
            let bw = j["write"]["bw_bytes"].as_f64().unwrap();
            note!(
                "{layout:?} {extra:?}: {:.2} MiB/s, sync {} ns; members wrote {measured:.3}× in the window against {expected}×",
                bw / MIB as f64,
                j["runs"][0]["sync_ns"]
            );
            assert!(
                bw <= data_disks * LIMIT as f64 * 1.03,
                "{layout:?} {extra:?}: {bw:.0} B/s is more than the members absorb ({data_disks} × {LIMIT} B/s)"
            );
            assert!(
                (measured - expected).abs() <= expected * WRITE_MODEL_TOLERANCE,
                "{layout:?} {extra:?}: the members wrote {measured:.3}× the job's bytes in its window, the model says {expected}× ({zw})"
            );
        }
    }
}

/// The members, second by second: a 3-way mirror of members at 20 MiB/s. A 128K read at
/// QD4 after an export and import is spread over the three (`device.zfs_members`: each
/// its share) and raises no `zfs_member_uneven`; with one member offlined (`zpool
/// offline`), a 128K write job has it write nothing while its peers write the data, and
/// the finding names it, as offline, in its mirror.
#[test]
fn zfs_member_that_does_nothing_is_named() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    let lab = ZfsLab::start();
    let pool = lab
        .pool(Layout::Mirror(3), Disk::new(256 * MIB).read_bps(LIMIT).write_bps(LIMIT))
        .create();
    let mnt = pool.mountpoint();
    let shares = |j: &Value, key: &str| -> Vec<(String, f64)> {
        j["device"]["zfs_members"]
            .as_array()
            .unwrap_or_else(|| panic!("no device.zfs_members: {}", j["device"]))
            .iter()
            .map(|m| (m["name"].as_str().unwrap().to_string(), m[key].as_f64().unwrap_or(0.0)))
            .collect()
    };
    let read = [
        "--rw",
        "read",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--size",
        "48MiB",
        "--bytes",
        "48MiB",
        "--runs",
        "1",
        "--warmup",
        "0s",
        "--allow-export",
    ];
    let j = job(mnt, &read);
    let s = shares(&j, "read_share");
    note!("even mirror: iolab job POOL {}: read shares {s:?}", read.join(" "));
    assert_eq!(j["zfs_read"]["method"], "export_import", "{}", j["zfs_read"]);
    assert_eq!(s.len(), 3, "every member: {s:?}");
    assert!(
        !warning_codes(&j).contains(&"zfs_member_uneven".to_string()),
        "an even mirror read at QD4: {}",
        j["warnings"]
    );

    let off = &pool.members()[2];
    pool.offline(off);
    let name = off.kernel_name();
    let write = [
        "--rw", "write", "--bs", "128k", "--qd", "4", "--size", "32MiB", "--bytes", "32MiB", "--runs", "1", "--warmup", "0s",
    ];
    let j = job(mnt, &write);
    let s = shares(&j, "write_share");
    note!("{name} offline: iolab job POOL {}: write shares {s:?}", write.join(" "));
    let offline: Vec<&str> = j["device"]["zfs_members"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["state"] == "OFFLINE")
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(offline, [name.as_str()], "info sees the member offline: {}", j["device"]);
    let share = s.iter().find(|(n, _)| *n == name).map(|x| x.1).unwrap();
    assert!(share < 0.05, "the offline member wrote {share:.3} of the members' bytes: {s:?}");
    let uneven: Vec<&str> = j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "zfs_member_uneven")
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert_eq!(uneven.len(), 1, "{}", j["warnings"]);
    assert!(
        uneven[0].contains(&format!("{name} (OFFLINE) wrote")) && uneven[0].contains("mirror-0"),
        "the finding names the member: {}",
        uneven[0]
    );
    assert_eq!(
        j["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["code"] == "zfs_member_uneven")
            .unwrap()["severity"],
        Value::Null,
        "a warning, at the code's own severity"
    );
}

/// The members of `iolab time` (issue 25, item 5): a cold `cat` of a 48 MiB file of
/// pseudo-random data on a 3-way mirror of members at 20 MiB/s, cold by export and
/// import (`--allow-export`). The report's `zfs_members` names all three members, their
/// reads add up to at least the file (the ARC was emptied), and each read a share of it
/// (zfs-fuse picks a mirror's child by the read's offset, so a sequential read at one
/// I/O in flight visits every child). A mirror read at one I/O in flight is not judged
/// for evenness: no `zfs_member_uneven` either way.
#[test]
fn zfs_time_cold_cat_lists_every_member_of_a_mirror() {
    need_zfs!();
    const LIMIT: u64 = 20 * MIB;
    const SIZE: u64 = 48 * MIB;
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Mirror(3), Disk::new(256 * MIB).read_bps(LIMIT)).create();
    let dir = pool.mountpoint().to_path_buf();
    let mut f = std::fs::File::create(dir.join("file")).unwrap();
    crate::common::emu::fill_pseudo_random(&mut f, SIZE).unwrap();
    f.sync_all().unwrap();
    drop(f);
    let names: Vec<String> = pool.members().iter().map(|m| m.kernel_name()).collect();
    let what = "iolab time --cold --allow-export --json - -- cat file";
    let v = json_of(
        iolab().current_dir(&dir).args([
            "time",
            "--cold",
            "--allow-export",
            "--runs",
            "1",
            "--json",
            "-",
            "--",
            "cat",
            "file",
        ]),
        what,
    );
    let t = &v["time"];
    assert_eq!(t["cold_by"]["method"], "export_import", "{}", t["cold_by"]);
    let members = t["zfs_members"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no time.zfs_members: {t}"));
    let got: Vec<(String, u64, f64)> = members
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["read_bytes"].as_u64().unwrap(),
                m["read_share"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    note!(
        "{what} on a 3-way mirror: members (name, read bytes, share) {got:?}; unjudged: {}",
        t["zfs_members_unjudged"]
    );
    let mut listed: Vec<&str> = got.iter().map(|m| m.0.as_str()).collect();
    listed.sort_unstable();
    let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
    want.sort_unstable();
    assert_eq!(listed, want, "every member of the mirror: {}", t["zfs_members"]);
    assert!(members.iter().all(|m| m["vdev"] == "mirror-0"), "{}", t["zfs_members"]);
    let read: u64 = got.iter().map(|m| m.1).sum();
    assert!(
        read >= SIZE,
        "the members read {read} B for a {SIZE} B file (the ARC answered?): {got:?}"
    );
    assert!(got.iter().all(|m| m.2 > 0.0), "every member read a share: {got:?}");
    assert!(
        !warning_codes(t).contains(&"zfs_member_uneven".to_string()),
        "a mirror's reads at one I/O in flight are not judged: {}",
        t["warnings"]
    );
}
