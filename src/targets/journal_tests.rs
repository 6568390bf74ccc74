//! The journal's unit tests: unwinding, guards, devices found again, the sweep.

use super::*;
use std::cell::RefCell;

/// A system with pools, mounts, labels, signatures and devices (each
/// path with what sits there now), recording what it runs; a command
/// whose first word is `fail` fails.
#[derive(Default)]
pub(crate) struct Fake {
    pub pools: Vec<String>,
    pub mounts: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    pub probes: Vec<(String, Probe)>,
    pub devices: Vec<(String, Identity)>,
    pub ran: RefCell<Vec<String>>,
}

/// A loop device's identity: over file `ino`.
pub(crate) fn over(ino: u64) -> Identity {
    Identity {
        size: 1 << 26,
        backing: Some(crate::device::identity::Backing {
            file: format!("/dev/shm/{ino}.img"),
            dev: 1,
            ino,
        }),
        ..Identity::default()
    }
}

impl System for Fake {
    fn pool_imported(&self, name: &str) -> bool {
        self.pools.iter().any(|p| p == name)
    }
    fn mount_source(&self, at: &str) -> Option<String> {
        self.mounts.iter().find(|(a, _)| a == at).map(|(_, s)| s.clone())
    }
    fn probe(&self, device: &str) -> Option<Probe> {
        if let Some((_, p)) = self.probes.iter().find(|(d, _)| d == device) {
            return Some(p.clone());
        }
        let label = self.labels.iter().find(|(d, _)| d == device).map(|(_, l)| l.clone())?;
        Some(Probe {
            label: Some(label),
            ..Probe::default()
        })
    }
    fn volume_group(&self, _: &str) -> bool {
        false
    }
    fn node_exists(&self, _: &str) -> bool {
        false
    }
    fn identity(&self, path: &str) -> Option<Identity> {
        self.devices.iter().find(|(p, _)| p == path).map(|(_, i)| i.clone())
    }
    fn resolve(&self, recorded: &Identity, path: &str) -> Resolved {
        if self.identity(path).is_some_and(|i| recorded.matches(&i)) {
            return Resolved::Same;
        }
        match self.devices.iter().find(|(_, i)| recorded.matches(i)) {
            Some((p, _)) => Resolved::Moved(p.clone()),
            None => Resolved::Gone(format!("{path} is now another device")),
        }
    }
    fn check_device(&self, _: &str, _: bool) -> std::result::Result<(), String> {
        Ok(())
    }
    fn act(&self, action: &Action) -> std::result::Result<(), String> {
        let line = action.line();
        self.ran.borrow_mut().push(line.clone());
        if line.starts_with("fail") {
            Err("it failed".into())
        } else {
            Ok(())
        }
    }
}

fn undo(what: &str, argv: &str, guard: Guard) -> Undo {
    Undo {
        what: what.into(),
        action: Action::run(argv.split(' ')),
        guard,
        best_effort: false,
        after: None,
    }
}

fn no_progress() -> Progress {
    Progress {
        devices: Vec::new(),
        started: None,
        done: None,
    }
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn steps() -> Vec<Undo> {
    vec![
        undo(
            "wipe loop3",
            "wipefs -a /dev/loop3",
            Guard::Label {
                device: "/dev/loop3".into(),
                label: "iolab-abc".into(),
            },
        ),
        undo(
            "wipe loop4",
            "wipefs -a /dev/loop4",
            Guard::Label {
                device: "/dev/loop4".into(),
                label: "iolab-abc".into(),
            },
        ),
        undo(
            "pool iolab-abc",
            "zpool destroy iolab-abc",
            Guard::Pool { name: "iolab-abc".into() },
        ),
        undo(
            "mount /run/x",
            "umount /run/x",
            Guard::Mount {
                at: "/run/x".into(),
                source: "/dev/loop5".into(),
            },
        ),
    ]
}

#[test]
fn unwound_newest_first_and_only_where_the_guard_holds() {
    let d = dir();
    let mut j = Journal::create(d.path(), "abc").unwrap();
    for s in steps() {
        j.push(s).unwrap();
    }
    // On disk before anything is undone, in order.
    let on_disk: Record = serde_json::from_str(&std::fs::read_to_string(j.path()).unwrap()).unwrap();
    assert_eq!(on_disk.undo, steps());
    assert_eq!(on_disk.owner, crate::targets::owner::of_self());
    let sys = Fake {
        pools: vec!["iolab-abc".into()],
        // Mounted from another source: not ours any more.
        mounts: vec![("/run/x".into(), "/dev/sdz".into())],
        // loop4 now carries somebody else's filesystem.
        labels: vec![("/dev/loop3".into(), "iolab-abc".into()), ("/dev/loop4".into(), "home".into())],
        ..Fake::default()
    };
    let path = j.path().to_path_buf();
    let out = j.unwind(&sys, "t");
    assert_eq!(*sys.ran.borrow(), ["zpool destroy iolab-abc", "wipefs -a /dev/loop3"]);
    let outcomes: Vec<&Outcome> = out.iter().map(|(_, o)| o).collect();
    assert_eq!(outcomes[1], &Outcome::Done);
    assert!(matches!(outcomes[0], Outcome::Skipped(w) if w.contains("/dev/sdz")), "{outcomes:?}");
    assert!(matches!(outcomes[2], Outcome::Skipped(w) if w.contains("home")), "{outcomes:?}");
    assert!(!path.exists(), "a journal fully unwound is removed");
}

#[test]
fn a_failed_step_is_tried_again_then_stops_the_unwinding_and_keeps_the_journal() {
    let d = dir();
    let mut j = Journal::create(d.path(), "abc").unwrap();
    j.push(undo("members", "wipefs -a /dev/loop3", Guard::Always)).unwrap();
    j.push(undo("pool", "fail destroy", Guard::Always)).unwrap();
    j.push(undo("mount", "umount /run/x", Guard::Always)).unwrap();
    let path = j.path().to_path_buf();
    let sys = Fake::default();
    let out = j.unwind(&sys, "t");
    assert_eq!(
        *sys.ran.borrow(),
        ["umount /run/x", "fail destroy", "fail destroy", "fail destroy"],
        "tried {UNDO_TRIES} times, and the members of a pool still there are not wiped"
    );
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].1, Outcome::Failed("it failed".into()));
    let left: Record = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        left.undo,
        [
            undo("members", "wipefs -a /dev/loop3", Guard::Always),
            undo("pool", "fail destroy", Guard::Always)
        ]
    );
    assert!(Journal::create(d.path(), "abc").is_err(), "one journal per run id");
}

#[test]
fn a_best_effort_step_that_fails_does_not_stop_the_unwinding() {
    let mut forget = undo("registration", "fail btrfs device scan --forget /dev/loop3", Guard::Always);
    forget.best_effort = true;
    let steps = vec![undo("members", "wipefs -a /dev/loop3", Guard::Always), forget];
    let sys = Fake::default();
    let (out, left) = unwind_steps(steps, &no_progress(), &sys, "t");
    assert_eq!(sys.ran.borrow().len(), 2, "tried once, then the wipe");
    assert!(matches!(out[0].1, Outcome::Failed(_)));
    assert_eq!(out[1].1, Outcome::Done);
    assert!(left.is_empty());
}

#[test]
fn the_zfs_labels_are_at_both_ends() {
    const K: u64 = 1024;
    // 100 MiB + 100 KiB: the end labels sit below 100 MiB + 0 KiB rounded to 256 KiB.
    let size = 100 * K * K + 100 * K;
    assert_eq!(zfs_label_ranges(size), [(0, 512 * K), (100 * K * K - 512 * K, 612 * K)]);
    assert_eq!(zfs_label_ranges(1024 * K), [(0, 512 * K), (512 * K, 512 * K)]);
}

#[test]
fn a_step_refused_for_a_moment_is_done_on_a_later_try() {
    struct Busy(RefCell<u32>);
    impl System for Busy {
        fn pool_imported(&self, _: &str) -> bool {
            true
        }
        fn mount_source(&self, _: &str) -> Option<String> {
            None
        }
        fn probe(&self, _: &str) -> Option<Probe> {
            None
        }
        fn volume_group(&self, _: &str) -> bool {
            false
        }
        fn node_exists(&self, _: &str) -> bool {
            false
        }
        fn identity(&self, _: &str) -> Option<Identity> {
            None
        }
        fn resolve(&self, _: &Identity, _: &str) -> Resolved {
            Resolved::Same
        }
        fn check_device(&self, _: &str, _: bool) -> std::result::Result<(), String> {
            Ok(())
        }
        fn act(&self, _: &Action) -> std::result::Result<(), String> {
            let mut n = self.0.borrow_mut();
            *n += 1;
            if *n < UNDO_TRIES { Err("pool is busy".into()) } else { Ok(()) }
        }
    }
    let (out, left) = unwind_steps(
        vec![undo("pool", "zpool destroy p", Guard::Always)],
        &no_progress(),
        &Busy(RefCell::new(0)),
        "t",
    );
    assert_eq!(out[0].1, Outcome::Done);
    assert!(left.is_empty());
}

#[test]
fn the_sweep_unwinds_only_the_journals_of_runs_that_are_gone() {
    let d = dir();
    let write = |name: &str, owner: &str, steps: Vec<Undo>| {
        let mut r = Record::new(owner.into());
        r.undo = steps;
        write_atomic(&d.path().join(name), &r).unwrap();
    };
    write(
        "dead.json",
        "8@100@b1",
        vec![undo("pool", "zpool destroy iolab-dead", Guard::Pool { name: "iolab-dead".into() })],
    );
    write(
        "live.json",
        "7@100@b1",
        vec![undo("pool", "zpool destroy iolab-live", Guard::Always)],
    );
    write(
        "doubt.json",
        "8@?@?",
        vec![undo("pool", "zpool destroy iolab-doubt", Guard::Always)],
    );
    std::fs::write(d.path().join("torn.json"), "{\"owner\": ").unwrap();
    std::fs::write(d.path().join("notes.txt"), "not a journal").unwrap();
    let now = |pid: u32| (pid == 7).then(|| "7@100@b1".to_string());
    let sys = Fake {
        pools: vec!["iolab-dead".into()],
        ..Fake::default()
    };
    let swept = sweep(d.path(), &now, &sys);
    assert_eq!(*sys.ran.borrow(), ["zpool destroy iolab-dead"]);
    let names: Vec<String> = swept
        .iter()
        .map(|s| s.journal.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["dead.json", "torn.json"]);
    assert!(matches!(&swept[1].steps[0].1, Outcome::Failed(w) if w.contains("cannot be read")));
    assert!(!d.path().join("dead.json").exists());
    for kept in ["live.json", "doubt.json", "torn.json", "notes.txt"] {
        assert!(d.path().join(kept).exists(), "{kept}");
    }
}

fn md_member(array: &str) -> Probe {
    Probe {
        kind: Some("linux_raid_member".into()),
        label: Some(format!("lab:{array}")),
        uuid: Some("0b3c5e6f-1111-2222-3333-444455556666".into()),
    }
}

fn pv(uuid: &str) -> Probe {
    Probe {
        kind: Some("LVM2_member".into()),
        label: None,
        uuid: Some(uuid.into()),
    }
}

#[test]
fn an_md_members_superblock_is_zeroed_only_while_it_names_the_runs_array() {
    let zero = |dev: &str| {
        undo(
            &format!("the md superblock on {dev}"),
            &format!("mdadm --zero-superblock {dev}"),
            Guard::MdMember {
                device: dev.into(),
                name: "iolab-abc-1".into(),
            },
        )
    };
    let steps = vec![zero("/dev/sdb"), zero("/dev/sdc"), zero("/dev/sdd"), zero("/dev/sde")];
    let sys = Fake {
        probes: vec![
            ("/dev/sdb".into(), md_member("iolab-abc-1")),
            // A user's array, not yet assembled, on a disk that took the name.
            ("/dev/sdc".into(), md_member("home")),
            // A filesystem labelled with the array's name is not an md member.
            (
                "/dev/sdd".into(),
                Probe {
                    kind: Some("ext4".into()),
                    label: Some("iolab-abc-1".into()),
                    uuid: None,
                },
            ),
        ],
        ..Fake::default()
    };
    let (out, left) = unwind_steps(steps, &no_progress(), &sys, "t");
    assert_eq!(*sys.ran.borrow(), ["mdadm --zero-superblock /dev/sdb"]);
    assert!(left.is_empty());
    let why = |i: usize| match &out[i].1 {
        Outcome::Skipped(w) => w.clone(),
        o => panic!("{o:?}"),
    };
    assert!(why(0).contains("carries no md superblock"), "{}", why(0));
    assert!(why(1).contains("carries ext4"), "{}", why(1));
    assert!(why(2).contains("lab:home, not iolab-abc-1"), "{}", why(2));
    assert_eq!(out[3].1, Outcome::Done);
}

#[test]
fn a_physical_volume_is_removed_only_while_it_has_the_uuid_the_run_gave_it() {
    let ours = "aaaaaa-bbbb-cccc-dddd-eeee-ffff-gggggg";
    let remove = |dev: &str| {
        undo(
            &format!("the physical volume {dev}"),
            &format!("lvm pvremove -ff -y {dev}"),
            Guard::LvmPv {
                device: dev.into(),
                uuid: ours.into(),
            },
        )
    };
    let sys = Fake {
        probes: vec![
            ("/dev/sdb".into(), pv(ours)),
            // A user's inactive volume group's PV.
            ("/dev/sdc".into(), pv("zzzzzz-yyyy-xxxx-wwww-vvvv-uuuu-tttttt")),
        ],
        ..Fake::default()
    };
    let (out, _) = unwind_steps(vec![remove("/dev/sdb"), remove("/dev/sdc")], &no_progress(), &sys, "t");
    assert_eq!(*sys.ran.borrow(), ["lvm pvremove -ff -y /dev/sdb"]);
    assert!(matches!(&out[0].1, Outcome::Skipped(w) if w.contains("zzzzzz")), "{out:?}");
}

/// Two loop devices attached again in the other order after a reboot: each
/// step runs on the device it was written for, at its new path, and a device
/// that is not found any more is left alone and named.
#[test]
fn a_replayed_step_follows_its_device_to_its_new_path_or_leaves_it_alone() {
    let d = dir();
    let mut j = Journal::create(d.path(), "abc").unwrap();
    j.record_devices(vec![
        Recorded {
            path: "/dev/loop3".into(),
            identity: over(30),
        },
        Recorded {
            path: "/dev/loop4".into(),
            identity: over(40),
        },
        Recorded {
            path: "/dev/loop5".into(),
            identity: over(50),
        },
    ])
    .unwrap();
    let zero = |dev: &str| Undo {
        what: format!("the md superblock on {dev}"),
        action: Action::run(["mdadm", "--zero-superblock", dev]),
        guard: Guard::MdMember {
            device: dev.into(),
            name: "iolab-abc-1".into(),
        },
        best_effort: false,
        after: None,
    };
    for dev in ["/dev/loop3", "/dev/loop4", "/dev/loop5"] {
        j.push(zero(dev)).unwrap();
    }
    let sys = Fake {
        // Swapped: loop3 is now file 40 and loop4 file 30; file 50 is not attached,
        // and loop5 is somebody else's md member of the same name.
        devices: vec![
            ("/dev/loop3".into(), over(40)),
            ("/dev/loop4".into(), over(30)),
            ("/dev/loop5".into(), over(99)),
        ],
        probes: vec![
            ("/dev/loop3".into(), md_member("iolab-abc-1")),
            ("/dev/loop4".into(), md_member("iolab-abc-1")),
            ("/dev/loop5".into(), md_member("iolab-abc-1")),
        ],
        ..Fake::default()
    };
    let out = j.unwind(&sys, "t");
    assert_eq!(
        *sys.ran.borrow(),
        ["mdadm --zero-superblock /dev/loop3", "mdadm --zero-superblock /dev/loop4"],
        "each on its own device, and nothing on loop5"
    );
    assert!(matches!(&out[0].1, Outcome::LeftAlone(w) if w.contains("/dev/loop5")), "{out:?}");
    assert_eq!(out[1].0.what, "the md superblock on /dev/loop4 (/dev/loop4, now /dev/loop3)");
    assert_eq!(out[1].0.action, Action::run(["mdadm", "--zero-superblock", "/dev/loop3"]));
    assert_eq!(out[2].0.action, Action::run(["mdadm", "--zero-superblock", "/dev/loop4"]));
    assert_eq!(
        out[2].0.guard,
        Guard::MdMember {
            device: "/dev/loop4".into(),
            name: "iolab-abc-1".into()
        }
    );
    assert!(out[1..].iter().all(|(_, o)| *o == Outcome::Done), "{out:?}");
}

/// A build that failed at its second step (the array was never created):
/// the steps that undo the array and what was built on it are skipped, not
/// tried and failed by every later run; the one of the step that failed is
/// tried, and its failure does not keep the journal.
#[test]
fn a_build_that_stopped_early_unwinds_to_the_end() {
    let d = dir();
    let mut j = Journal::create(d.path(), "abc").unwrap();
    let step = |what: &str, argv: &str, after: usize| Undo {
        after: Some(after),
        ..undo(what, argv, Guard::Always)
    };
    j.push(step("the directory", "rmdir /run/x", 1)).unwrap();
    j.push(step("the members", "fail mdadm --zero-superblock /dev/loop3", 2)).unwrap();
    j.push(step("the array", "fail mdadm --stop /dev/md/iolab-abc-1", 2)).unwrap();
    j.push(step("the filesystem", "fail wipefs -a /dev/md/iolab-abc-1", 3)).unwrap();
    j.push(step("the mount", "fail umount /run/x", 4)).unwrap();
    j.started(1).unwrap();
    j.done(1).unwrap();
    j.started(2).unwrap();
    // `mdadm --create` failed: the build stops here.
    let path = j.path().to_path_buf();
    let sys = Fake::default();
    let out = j.unwind(&sys, "t");
    assert_eq!(
        *sys.ran.borrow(),
        [
            "fail mdadm --stop /dev/md/iolab-abc-1",
            "fail mdadm --zero-superblock /dev/loop3",
            "rmdir /run/x"
        ],
        "what step 2 may have made is tried once each, what steps 3 and 4 make not at all"
    );
    assert!(matches!(&out[0].1, Outcome::Skipped(w) if w.contains("never built")), "{out:?}");
    assert!(matches!(&out[1].1, Outcome::Skipped(w) if w.contains("never built")), "{out:?}");
    assert!(
        matches!(&out[2].1, Outcome::Skipped(w) if w.contains("left nothing to undo")),
        "{out:?}"
    );
    assert_eq!(out[4].1, Outcome::Done);
    assert!(!path.exists(), "the journal is unwound to its end, not left for every later run");
}

#[test]
fn a_journal_of_the_previous_version_is_read_and_unwound_as_before() {
    // As iolab 0.2 wrote it: no devices, no build progress, no `after`.
    let text = r#"{"owner": "8@100@b1", "undo": [
        {"what": "pool iolab-old-1", "action": {"do": "run", "argv": ["zpool", "destroy", "-f", "iolab-old-1"]},
         "guard": {"kind": "pool", "name": "iolab-old-1"}},
        {"what": "the directory /run/iolab/layouts-old", "action": {"do": "remove_dir", "path": "/run/iolab/layouts-old"},
         "guard": {"kind": "always"}, "best_effort": true}]}"#;
    let d = dir();
    std::fs::write(d.path().join("old.json"), text).unwrap();
    let sys = Fake {
        pools: vec!["iolab-old-1".into()],
        ..Fake::default()
    };
    let swept = sweep(d.path(), &|_| None, &sys);
    assert_eq!(*sys.ran.borrow(), ["rmdir /run/iolab/layouts-old", "zpool destroy -f iolab-old-1"]);
    assert!(swept[0].steps.iter().all(|(_, o)| *o == Outcome::Done), "{swept:?}");
}

#[test]
fn blkids_export_lines_are_read() {
    let p = parse_probe("DEVNAME=/dev/loop3\nLABEL=lab:iolab-abc-1\nUUID=0b3c\nTYPE=linux_raid_member\nUSAGE=raid\n");
    assert_eq!(p.kind.as_deref(), Some("linux_raid_member"));
    assert_eq!(p.label.as_deref(), Some("lab:iolab-abc-1"));
    assert_eq!(p.uuid.as_deref(), Some("0b3c"));
    assert_eq!(parse_probe(""), Probe::default());
}
