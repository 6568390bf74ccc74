//! Figures on a ZFS pool: a job's members' writes per data byte against
//! the layout's model ([`ZfsWrites`]), and each data member with what it
//! moved ([`ZfsMember`], grouped once by [`group_members`] for jobs,
//! `time` and the app suites), from `iolab info`'s pool ([`ZfsInfo`]).

use crate::device::ZfsInfo;
use serde::{Deserialize, Serialize};

/// One data member of a ZFS pool over a job's or a timed command's
/// measured runs, or in an app suite's phase (the median over its runs).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZfsMember {
    /// Its kernel device name (as in a job's `lower`, a run's `devices`).
    pub name: String,
    /// Its top-level vdev as `zpool status` names it (`mirror-0`, `raidz1-0`, or the member itself).
    pub vdev: String,
    /// Its state in `zpool status` when it was found (`ONLINE`, `OFFLINE`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Bytes it read over the measured runs (a phase: the median).
    #[schemars(extend("x-unit" = "bytes"))]
    pub read_bytes: u64,
    /// Bytes it wrote over the measured runs (a phase: the median).
    #[schemars(extend("x-unit" = "bytes"))]
    pub write_bytes: u64,
    /// Its share of all the members' reads (absent when they read nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "ratio"))]
    pub read_share: Option<f64>,
    /// Its share of all the members' writes (absent when they wrote nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "ratio"))]
    pub write_share: Option<f64>,
}

/// A ZFS pool's member disks' writes against its layout's model
/// ([`crate::judge::zfs::write_ratio`]: a stripe writes each byte once, an
/// n-way mirror n times, RAID-Z its data sectors plus parity, rounded up to
/// whole groups).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct ZfsWrites {
    /// The model in words: the layout, record size and ashift, and what it
    /// assumed where ZFS did not say ("raidz1 of 3 disks, 128K records, ashift 12").
    pub model: String,
    /// The record size the model used.
    #[schemars(extend("x-unit" = "bytes"))]
    pub record_bytes: u64,
    /// The sector size the model used (2^ashift).
    #[schemars(extend("x-unit" = "bytes"))]
    pub sector_bytes: u64,
    /// The record size or the ashift was unknown, and assumed (128K, 12).
    #[serde(default, skip_serializing_if = "is_false")]
    pub assumed: bool,
    /// Bytes the members should write per byte of data: for whole records.
    #[schemars(extend("x-unit" = "ratio"))]
    pub expected_ratio: f64,
    /// The most they should write per byte when random writes smaller than
    /// a record each rewrite their whole record (absent: `expected_ratio`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "ratio"))]
    pub expected_max_ratio: Option<f64>,
    /// What they wrote per byte the job wrote (`write_bytes` / `job_write_bytes`).
    #[schemars(extend("x-unit" = "ratio"))]
    pub measured_ratio: f64,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What a job's figures need to know of the ZFS under its target.
pub(crate) struct ZfsTarget<'a> {
    /// `iolab info`'s pool, when it found one.
    pub(crate) info: Option<&'a ZfsInfo>,
    /// The caches a shortfall of the members' reads names.
    pub(crate) caches: &'static str,
    pub(crate) implementation: crate::judge::zfs::Implementation,
}

impl<'a> ZfsTarget<'a> {
    pub(crate) fn of(t: &'a crate::targets::TargetInfo) -> ZfsTarget<'a> {
        use crate::judge::zfs::{Implementation, read_caches};
        let info = t.info.as_ref().and_then(|r| r.zfs.as_ref());
        let implementation = t
            .filesystem
            .as_ref()
            .and_then(|f| Implementation::of_fstype(&f.fstype))
            .unwrap_or(Implementation::OpenZfs);
        ZfsTarget {
            info,
            caches: read_caches(implementation, info.and_then(|z| z.members_through_page_cache())),
            implementation,
        }
    }
}

/// How a pool's data vdevs keep data, for the write model: `None` unless
/// they are all alike (plain disks, mirrors of one width, RAID-Z of one
/// parity and width; not dRAID).
pub(crate) fn redundancy(z: &ZfsInfo) -> Option<crate::judge::zfs::Redundancy> {
    use crate::judge::zfs::Redundancy;
    let width = |v: &crate::device::Vdev| u32::try_from(v.children.len()).unwrap_or(u32::MAX);
    let mut each = z.vdevs.iter().filter(|v| v.class == "data").map(|v| match v.kind.as_str() {
        "disk" | "file" => Some(Redundancy::Stripe),
        "mirror" => Some(Redundancy::Mirror { copies: width(v).max(1) }),
        k => k
            .strip_prefix("raidz")
            .and_then(|p| p.parse().ok())
            .filter(|&p| width(v) > p)
            .map(|parity| Redundancy::RaidZ { parity, disks: width(v) }),
    });
    let first = each.next()??;
    each.all(|r| r == Some(first)).then_some(first)
}

/// The members' writes per data byte against the layout's model, for a
/// job that wrote `job_written` bytes (the members `written`) on a pool
/// whose layout iolab knows.
pub(crate) fn zfs_writes(written: u64, job_written: u64, z: &ZfsInfo, spec: &crate::plan::JobSpec) -> Option<ZfsWrites> {
    use crate::judge::zfs::{ASSUMED_ASHIFT, ASSUMED_RECORD, expected_writes, model_words};
    if job_written == 0 {
        return None;
    }
    let layout = redundancy(z)?;
    let recordsize = z.dataset_properties.as_ref().and_then(|p| p.recordsize_bytes);
    let record = recordsize.unwrap_or(ASSUMED_RECORD);
    let ashift = z.ashift.unwrap_or(ASSUMED_ASHIFT);
    let e = expected_writes(layout, record, ashift, spec.bs, spec.rw.is_random());
    Some(ZfsWrites {
        model: model_words(layout, record, ashift, recordsize.is_some(), z.ashift.is_some()),
        record_bytes: record,
        sector_bytes: 1 << ashift,
        assumed: recordsize.is_none() || z.ashift.is_none(),
        expected_ratio: e.low,
        expected_max_ratio: (e.high > e.low).then_some(e.high),
        measured_ratio: written as f64 / job_written as f64,
    })
}

/// What one device moved, as [`group_members`] reads it: its kernel name
/// and the bytes it read and wrote (a job's `lower`, a timed run's or an
/// app phase's `devices`).
pub type Moved<'a> = (&'a str, u64, u64);

/// What a list of devices says of a pool member missing from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// The list is the pool's devices as the target's chain found them
    /// (a job's `lower`): a member missing from it is not known, and left out.
    Served,
    /// The list is every device that moved (a timed run's, a phase's): a
    /// member missing from it moved nothing, and is listed with zeros.
    Moved,
}

/// The pool's data members by top-level vdev, with what each moved (from
/// `moved`, whose names are whole disks: a leaf on a partition is matched
/// to its disk, each device once), and the same per member with its
/// shares of the members' bytes. Defined once for jobs, `time` and the app
/// suites.
pub fn group_members(z: &ZfsInfo, moved: &[Moved], listing: Listing) -> (Vec<crate::judge::zfs::VdevMoved>, Vec<ZfsMember>) {
    use crate::judge::zfs::{MemberMoved, VdevMoved};
    let mut taken = vec![false; moved.len()];
    let mut out = Vec::new();
    for top in z.vdevs.iter().filter(|v| v.class == "data") {
        let mut leaves = Vec::new();
        top.leaves(&mut leaves);
        let mut v = VdevMoved {
            name: top.name.clone(),
            kind: top.kind.clone(),
            members: Vec::new(),
        };
        for leaf in leaves {
            let Some(dev) = leaf.device.as_deref() else { continue };
            let found = (0..moved.len())
                .find(|&i| !taken[i] && moved[i].0 == dev)
                .or_else(|| (0..moved.len()).find(|&i| !taken[i] && partition_of(dev, moved[i].0)));
            let (name, read_bytes, write_bytes) = match (found, listing) {
                (Some(i), _) => {
                    taken[i] = true;
                    moved[i]
                }
                (None, Listing::Moved) => (dev, 0, 0),
                (None, Listing::Served) => continue,
            };
            v.members.push(MemberMoved {
                name: name.to_string(),
                state: Some(leaf.state.clone()).filter(|s| !s.is_empty()),
                read_bytes,
                write_bytes,
            });
        }
        if !v.members.is_empty() {
            out.push(v);
        }
    }
    let (reads, writes) = out
        .iter()
        .flat_map(|v| &v.members)
        .fold((0u64, 0u64), |(r, w), m| (r + m.read_bytes, w + m.write_bytes));
    let share = |b: u64, of: u64| (of > 0).then(|| b as f64 / of as f64);
    let members = out
        .iter()
        .flat_map(|v| {
            v.members.iter().map(|m| ZfsMember {
                name: m.name.clone(),
                vdev: v.name.clone(),
                state: m.state.clone(),
                read_bytes: m.read_bytes,
                write_bytes: m.write_bytes,
                read_share: share(m.read_bytes, reads),
                write_share: share(m.write_bytes, writes),
            })
        })
        .collect();
    (out, members)
}

/// `part` is a partition of the whole disk `disk` by the kernel's naming:
/// `sda1` of `sda`, `nvme0n1p1` of `nvme0n1`, `loop0p1` of `loop0` (so a
/// `loop1` that moved is not taken for a `loop10` that did not).
fn partition_of(part: &str, disk: &str) -> bool {
    let Some(rest) = part.strip_prefix(disk) else { return false };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match disk.bytes().last() {
        Some(b) if b.is_ascii_digit() => rest.strip_prefix('p').is_some_and(digits),
        Some(_) => digits(rest),
        None => false,
    }
}

/// In-flight I/O of a timed command or an app suite's phase, for
/// [`crate::judge::zfs::uneven_members`]: unknown (iolab does not issue
/// their I/O), so taken as 1, the depth at which a mirror's reads may come
/// from one child at a time. A mirror's uneven reads are then explained
/// (`zfs_members_unjudged`), never flagged; RAID-Z's and every write are judged.
pub const APP_IN_FLIGHT: u32 = 1;

/// A pool's members over a timed command's runs or an app phase, judged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppMembers {
    /// Each data member with what it moved and its shares.
    pub members: Vec<ZfsMember>,
    /// Why an uneven split was not judged (the reads of runs the ARC may
    /// have answered; a layout's read policy).
    pub unjudged: Option<String>,
    /// `zfs_member_uneven`, when a member did far less than its peers.
    pub finding: Option<crate::judge::Diagnostic>,
}

/// The members of `z` in `moved` (every device that moved over the runs),
/// judged with [`APP_IN_FLIGHT`]. Reads are judged only when `arc_emptied`:
/// every run was cold by an export and import of the pool
/// ([`crate::samples::ColdMethod::ExportImport`]); otherwise the ARC may
/// have answered them (`drop_caches` leaves it), and `unjudged` says so
/// when the members read anything.
pub fn app_members(z: &ZfsInfo, moved: &[Moved], arc_emptied: bool) -> AppMembers {
    let (vdevs, members) = group_members(z, moved, Listing::Moved);
    if members.is_empty() {
        return AppMembers::default();
    }
    let verdict = crate::judge::zfs::uneven_members(&z.pool, &vdevs, APP_IN_FLIGHT, arc_emptied);
    let read = members.iter().any(|m| m.read_bytes > 0);
    let warm = (!arc_emptied && read).then_some(
        "the reads are judged only on runs an export and import of the pool made cold (--cold --allow-export), and these were not: the ARC may have answered them",
    );
    let unjudged: Vec<&str> = warm.into_iter().chain(verdict.explained.as_deref()).collect();
    AppMembers {
        members,
        unjudged: (!unjudged.is_empty()).then(|| unjudged.join("; ")),
        finding: verdict.finding,
    }
}

#[cfg(test)]
pub(super) mod tests {
    //! The members listed by vdev, and the write model.

    use super::*;
    use crate::plan::Limit;
    use crate::summary::job::tests::pool_run;
    use crate::summary::job::{cross_check, device_report, zfs_members};

    /// Two 2-way mirrors over vdf..vdi (one leaf on a partition, one
    /// offline): each member under its vdev with its shares, for the
    /// member lines and `uneven_members`.
    #[test]
    fn a_pools_members_are_listed_by_vdev_with_their_shares() {
        const M: u64 = 1 << 20;
        let mut z = pool_info(&[("mirror", 2), ("mirror", 2)]);
        for (leaf, dev) in z
            .vdevs
            .iter_mut()
            .flat_map(|v| v.children.iter_mut())
            .zip(["vdf", "vdg1", "vdh", "vdi"])
        {
            leaf.device = Some(dev.into());
        }
        z.vdevs[1].children[1].state = "OFFLINE".into();
        let run = pool_run(0, 200 * M, [(0, 200 * M), (0, 200 * M), (0, 200 * M), (0, 0)]);
        let mut d = device_report(&[run], Some("tpool")).unwrap();
        let vdevs = zfs_members(&mut d, &z);
        let names: Vec<(&str, &str, u64)> = d
            .zfs_members
            .iter()
            .map(|m| (m.vdev.as_str(), m.name.as_str(), m.write_bytes))
            .collect();
        assert_eq!(
            names,
            [
                ("mirror-0", "vdf", 200 * M),
                ("mirror-0", "vdg", 200 * M),
                ("mirror-1", "vdh", 200 * M),
                ("mirror-1", "vdi", 0)
            ]
        );
        let shares: Vec<Option<f64>> = d.zfs_members.iter().map(|m| m.write_share).collect();
        assert_eq!(shares, [Some(1.0 / 3.0), Some(1.0 / 3.0), Some(1.0 / 3.0), Some(0.0)]);
        assert!(d.zfs_members.iter().all(|m| m.read_share.is_none()), "nothing read");
        assert_eq!(d.zfs_members[3].state.as_deref(), Some("OFFLINE"));
        let v = crate::judge::zfs::uneven_members("tpool", &vdevs, 1, true);
        let f = v.finding.expect("vdi wrote nothing in its mirror");
        assert!(
            f.message.contains("in mirror-1 of zpool tpool, vdi (OFFLINE) wrote 0 B (0%)"),
            "{}",
            f.message
        );
    }

    /// A pool of `tops` (each `(kind, members)`), as `iolab info` finds it.
    pub(in crate::summary) fn pool_info(tops: &[(&str, usize)]) -> crate::device::ZfsInfo {
        let vdevs: Vec<serde_json::Value> = tops
            .iter()
            .enumerate()
            .map(|(i, (kind, n))| {
                let children: Vec<serde_json::Value> = (0..*n)
                    .map(|k| serde_json::json!({"name": format!("/dev/vd{i}{k}"), "kind": "disk", "class": "data", "state": "ONLINE"}))
                    .collect();
                serde_json::json!({"name": format!("{kind}-{i}"), "kind": kind, "class": "data", "state": "ONLINE", "children": children})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "pool": "tpool", "dataset": "tpool", "state": "ONLINE", "source": "zpool status", "vdevs": vdevs,
            "layout": null, "compression": null, "arc_size_bytes": null, "arc_max_bytes": null, "version": null,
            "direct_io_ignored": null
        }))
        .unwrap()
    }

    #[test]
    fn the_write_model_reads_the_pools_layout() {
        use crate::judge::zfs::Redundancy;
        assert_eq!(redundancy(&pool_info(&[("mirror", 3)])), Some(Redundancy::Mirror { copies: 3 }));
        assert_eq!(
            redundancy(&pool_info(&[("raidz1", 3), ("raidz1", 3)])),
            Some(Redundancy::RaidZ { parity: 1, disks: 3 })
        );
        assert_eq!(
            redundancy(&pool_info(&[("mirror", 2), ("mirror", 3)])),
            None,
            "mirrors of two widths"
        );
        assert_eq!(redundancy(&pool_info(&[("draid1", 5)])), None, "dRAID is not modelled");
        assert_eq!(redundancy(&pool_info(&[])), None);
        let mut stripe = pool_info(&[]);
        stripe.vdevs = serde_json::from_value(serde_json::json!([
            {"name": "/var/tmp/a", "kind": "file", "class": "data", "state": "ONLINE"},
            {"name": "/var/tmp/b", "kind": "file", "class": "data", "state": "ONLINE"},
            {"name": "/var/tmp/c", "kind": "file", "class": "logs", "state": "ONLINE"}
        ]))
        .unwrap();
        assert_eq!(redundancy(&stripe), Some(Redundancy::Stripe));
    }

    #[test]
    fn a_pools_writes_are_judged_against_its_layout() {
        const M: u64 = 1 << 20;
        let spec = |rw: crate::plan::Rw, bs: u64| {
            crate::plan::JobSpec::custom(crate::plan::Custom {
                rw,
                bs,
                qd: 4,
                threads: 1,
                mix_read: 70,
                limit: Limit::Span,
                direct: true,
                engine: crate::io::engine::EngineKind::IoUring,
            })
        };
        // RAID-Z1 of 3 (the recordsize and ashift unknown: 128K and 12 assumed): 1.5×.
        let z = pool_info(&[("raidz1", 3)]);
        let run = |written: u64| {
            let mut r = pool_run(0, 100 * M, [(0, written / 3), (0, written / 3), (0, written / 3), (0, 0)]);
            r.devices.truncate(3);
            r
        };
        let mut d = device_report(&[run(150 * M)], Some("tpool")).unwrap();
        d.zfs_writes = zfs_writes(d.write_bytes, d.job_write_bytes, &z, &spec(crate::plan::Rw::Write, 128 << 10));
        let w = d.zfs_writes.clone().unwrap();
        assert_eq!((w.expected_ratio, w.expected_max_ratio, w.measured_ratio), (1.5, None, 1.5));
        assert_eq!((w.record_bytes, w.sector_bytes, w.assumed), (128 << 10, 4096, true));
        assert_eq!(
            w.model,
            "raidz1 of 3 disks, 128K records, ashift 12; the record size and ashift were unknown, so the model assumed 128K records and ashift 12"
        );
        assert!(cross_check(&d).is_empty(), "{:?}", cross_check(&d));
        // Written once only: not the layout.
        let mut d = device_report(&[run(100 * M)], Some("tpool")).unwrap();
        d.zfs_writes = zfs_writes(d.write_bytes, d.job_write_bytes, &z, &spec(crate::plan::Rw::Write, 128 << 10));
        let w = cross_check(&d);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "zfs_write_amplification");
        assert!(
            w[0].message.starts_with(
                "zpool tpool (vdf+vdg+vdh) wrote 1.00× the bytes the job wrote, where the layout predicts 1.50× (raidz1 of 3 disks"
            ),
            "{}",
            w[0].message
        );
        // Known recordsize and ashift: 8K records on RAID-Z1 of 3 write 2×.
        let mut small = z.clone();
        small.dataset_properties = Some(crate::device::ZfsProperties {
            recordsize_bytes: Some(8 << 10),
            ..Default::default()
        });
        small.ashift = Some(12);
        let mut d = device_report(&[run(200 * M)], Some("tpool")).unwrap();
        d.zfs_writes = zfs_writes(d.write_bytes, d.job_write_bytes, &small, &spec(crate::plan::Rw::Randwrite, 8 << 10));
        let w = d.zfs_writes.clone().unwrap();
        assert_eq!((w.expected_ratio, w.assumed), (2.0, false));
        assert_eq!(w.model, "raidz1 of 3 disks, 8K records, ashift 12");
        assert!(cross_check(&d).is_empty());
        // Random 4K writes into 8K records: up to a whole record each.
        let w = zfs_writes(d.write_bytes, d.job_write_bytes, &small, &spec(crate::plan::Rw::Randwrite, 4 << 10)).unwrap();
        assert_eq!((w.expected_ratio, w.expected_max_ratio), (2.0, Some(4.0)));
        // A job that did not write has no write model; the JSON leaves it out.
        let reads = device_report(&[pool_run(100 * M, 0, [(100 * M, 0); 4])], Some("tpool")).unwrap();
        assert_eq!(
            zfs_writes(
                reads.write_bytes,
                reads.job_write_bytes,
                &z,
                &spec(crate::plan::Rw::Read, 128 << 10)
            ),
            None
        );
        assert!(serde_json::to_value(&reads).unwrap().get("zfs_writes").is_none());
    }

    /// A pool of `tops` whose leaves are the kernel devices `devs`, in order.
    pub(in crate::summary) fn pool_on(tops: &[(&str, usize)], devs: &[&str]) -> crate::device::ZfsInfo {
        let mut z = pool_info(tops);
        for (leaf, dev) in z.vdevs.iter_mut().flat_map(|v| v.children.iter_mut()).zip(devs) {
            leaf.device = Some(dev.to_string());
        }
        z
    }

    #[test]
    fn partitions_are_matched_to_their_disk_by_the_kernels_naming() {
        assert!(partition_of("sda1", "sda") && partition_of("vdg12", "vdg"));
        assert!(partition_of("nvme0n1p2", "nvme0n1") && partition_of("loop0p1", "loop0"));
        assert!(!partition_of("loop10", "loop1"), "another loop device");
        assert!(!partition_of("sdab", "sda") && !partition_of("sda", "sda") && !partition_of("nvme0n1", "nvme0"));
    }

    /// A timed command on a 3-way mirror over loop devices: the list is
    /// every device that moved, so a member missing from it moved nothing
    /// (and a `loop1` that moved is not the idle `loop10`); a job's list
    /// leaves an unknown member out.
    #[test]
    fn members_are_grouped_from_what_moved() {
        const M: u64 = 1 << 20;
        let z = pool_on(&[("mirror", 3)], &["loop10", "loop11", "loop12"]);
        let moved: Vec<Moved> = vec![
            ("vda", 5 * M, 9 * M),
            ("loop1", 64 * M, 0),
            ("loop11", 60 * M, 0),
            ("loop12", 40 * M, 0),
        ];
        let (vdevs, members) = group_members(&z, &moved, Listing::Moved);
        let got: Vec<(&str, &str, u64, Option<f64>)> = members
            .iter()
            .map(|m| (m.name.as_str(), m.vdev.as_str(), m.read_bytes, m.read_share))
            .collect();
        assert_eq!(
            got,
            [
                ("loop10", "mirror-0", 0, Some(0.0)),
                ("loop11", "mirror-0", 60 * M, Some(0.6)),
                ("loop12", "mirror-0", 40 * M, Some(0.4))
            ]
        );
        assert!(members.iter().all(|m| m.write_share.is_none()), "no member wrote");
        assert_eq!((vdevs.len(), vdevs[0].kind.as_str(), vdevs[0].members.len()), (1, "mirror", 3));
        let (_, served) = group_members(&z, &moved, Listing::Served);
        assert_eq!(served.len(), 2, "{served:?}");
    }

    /// `time` and the app suites: one I/O in flight assumed, so a mirror's
    /// uneven reads are explained, never flagged; warm reads are not judged
    /// (and the text says why); writes and RAID-Z reads are judged.
    #[test]
    fn app_runs_members_are_judged_with_one_in_flight_and_cold_reads_only() {
        const M: u64 = 1 << 20;
        let mirror = pool_on(&[("mirror", 3)], &["loop10", "loop11", "loop12"]);
        let reads: Vec<Moved> = vec![("loop10", 96 * M, 0), ("loop11", 0, 0), ("loop12", 0, 0)];
        let cold = app_members(&mirror, &reads, true);
        assert_eq!(cold.members.len(), 3);
        assert_eq!(cold.finding, None);
        assert!(
            cold.unjudged
                .as_deref()
                .unwrap()
                .starts_with("a mirror read with one I/O in flight"),
            "{:?}",
            cold.unjudged
        );
        let warm = app_members(&mirror, &reads, false);
        assert_eq!(warm.finding, None);
        let why = warm.unjudged.unwrap();
        assert!(
            why.starts_with("the reads are judged only on runs an export and import of the pool made cold")
                && why.contains("the ARC may have answered them"),
            "{why}"
        );
        // A mirror member that wrote nothing is a finding, warm or cold.
        let writes: Vec<Moved> = vec![("loop10", 0, 50 * M), ("loop11", 0, 50 * M)];
        let w = app_members(&mirror, &writes, false);
        assert_eq!(w.unjudged, None, "nothing read");
        let f = w.finding.expect("loop12 wrote nothing");
        assert!(
            f.message.contains("in mirror-0 of zpool tpool, loop12 wrote 0 B (0%)"),
            "{}",
            f.message
        );
        // RAID-Z spreads reads: a cold run's idle member is a finding.
        let raidz = pool_on(&[("raidz1", 3)], &["sdb", "sdc", "sdd"]);
        let r = app_members(&raidz, &[("sdb", 40 * M, 0), ("sdc", 40 * M, 0)], true);
        assert!(r.finding.is_some() && r.unjudged.is_none(), "{r:?}");
        // Members that moved nothing are listed; a pool without data vdevs lists none.
        assert_eq!(app_members(&raidz, &[], true).members.len(), 3);
        let none = pool_on(&[], &[]);
        assert_eq!(app_members(&none, &reads, true), AppMembers::default());
    }
}
