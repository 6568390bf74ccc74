//! Each configuration's devices checked again before every step that writes
//! them, and every teardown step of every layout guarded.

use super::tests::Fake;
use super::*;
use crate::plan::layouts::{Config, Fs, Layout, MdLevel, RunNames, ZfsVdev};
use crate::targets::journal::Guard;
use crate::targets::journal::tests::over;

fn config(name: &str, layout: Layout, devices: &[&str]) -> Config {
    Config {
        name: name.into(),
        layout,
        devices: devices.iter().map(PathBuf::from).collect(),
        properties: Vec::new(),
        tags: Vec::new(),
    }
}

fn fake(devices: &[(&str, u64)]) -> Fake {
    let f = Fake::default();
    *f.devices.borrow_mut() = devices.iter().map(|(p, ino)| (p.to_string(), over(*ino))).collect();
    f
}

/// The plan ran for hours: during the first configuration's measurement
/// the disk at /dev/loop3 reset and came back under another name, and a new
/// disk took /dev/loop3. The configurations on loop3 stop with the reason,
/// before anything is written; the one on loop4 is built and measured.
#[test]
fn a_device_that_is_not_the_one_checked_stops_its_configurations_and_the_rest_go_on() {
    let names = RunNames::under_run("r1");
    let configs = [
        buildable(&config("ext4", Layout::Single(Fs::Ext4), &["/dev/loop3"]), 1, &names),
        buildable(
            &config(
                "btrfs-raid1",
                Layout::BtrfsRaid(crate::plan::layouts::BtrfsProfile::Raid1),
                &["/dev/loop3", "/dev/loop4"],
            ),
            2,
            &names,
        ),
        buildable(&config("xfs", Layout::Single(Fs::Xfs), &["/dev/loop4"]), 3, &names),
        buildable(&config("xfs@loop3", Layout::Single(Fs::Xfs), &["/dev/loop3"]), 4, &names),
    ];
    let d = tempfile::tempdir().unwrap();
    let sys = fake(&[("/dev/loop3", 30), ("/dev/loop4", 40)]);
    let stop = Stop::default();
    let mut measured = Vec::new();
    let mut measure = |c: &Buildable| -> Result<()> {
        measured.push(c.name.clone());
        if c.name == "ext4" {
            *sys.devices.borrow_mut() = vec![
                ("/dev/loop3".into(), over(99)),
                ("/dev/loop4".into(), over(40)),
                ("/dev/loop7".into(), over(30)),
            ];
        }
        Ok(())
    };
    let out = run_each(&configs, d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
    assert_eq!(measured, ["ext4", "xfs"]);
    let why = |i: usize| out[i].failed.as_ref().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        why(1).starts_with("btrfs-raid1: stopped before `mkfs.btrfs")
            && why(1).contains("/dev/loop3 is another device now: the one checked (loop over /dev/shm/30.img (inode 30)) is /dev/loop7"),
        "{}",
        why(1)
    );
    assert!(
        why(3).starts_with("xfs@loop3: not built on /dev/loop3: /dev/loop3 is another device now"),
        "{}",
        why(3)
    );
    let ran = sys.ran.borrow();
    assert!(!ran.iter().any(|l| l.starts_with("mkfs.btrfs")), "{ran:?}");
    assert!(
        ran.iter().any(|l| l.starts_with("mkfs.xfs") && l.ends_with("/dev/loop4")),
        "{ran:?}"
    );
    assert!(
        !ran.iter().any(|l| l.starts_with("mkfs.xfs") && l.ends_with("/dev/loop3")),
        "{ran:?}"
    );
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0, "no journal left");
}

/// The safety check runs again right before each step that writes a
/// device, not once for the plan: a device mounted in the meantime stops
/// the configuration that would write it.
#[test]
fn each_write_is_preceded_by_the_safety_check_of_its_devices() {
    let names = RunNames::under_run("r1");
    let configs = [
        buildable(&config("ext4", Layout::Single(Fs::Ext4), &["/dev/loop3"]), 1, &names),
        buildable(
            &config("zfs-mirror2", Layout::Zfs(ZfsVdev::Mirror), &["/dev/loop3", "/dev/loop4"]),
            2,
            &names,
        ),
    ];
    let d = tempfile::tempdir().unwrap();
    let sys = fake(&[("/dev/loop3", 30), ("/dev/loop4", 40)]);
    let stop = Stop::default();
    let mut measure = |c: &Buildable| -> Result<()> {
        if c.name == "ext4" {
            sys.refused
                .borrow_mut()
                .push(("/dev/loop4".into(), "loop4 is mounted at /media/usb".into()));
        }
        Ok(())
    };
    let out = run_each(&configs, d.path(), "r1", &sys, &stop, false, &mut measure).unwrap();
    assert_eq!(*sys.checked.borrow(), ["/dev/loop3", "/dev/loop3", "/dev/loop4"]);
    let why = out[1].failed.as_ref().unwrap().to_string();
    assert!(
        why.starts_with("zfs-mirror2: stopped before `zpool create -f") && why.ends_with("`: loop4 is mounted at /media/usb"),
        "{why}"
    );
    assert!(!sys.ran.borrow().iter().any(|l| l.starts_with("zpool create")));
}

#[test]
fn a_device_with_no_identity_is_built_on_by_no_configuration() {
    let names = RunNames::under_run("r1");
    let configs = [buildable(&config("ext4", Layout::Single(Fs::Ext4), &["/dev/loop3"]), 1, &names)];
    let d = tempfile::tempdir().unwrap();
    let sys = fake(&[]);
    let out = run_each(&configs, d.path(), "r1", &sys, &Stop::default(), false, &mut |_: &Buildable| Ok(())).unwrap();
    let why = out[0].failed.as_ref().unwrap().to_string();
    assert!(why.contains("/dev/loop3 is not a block device sysfs knows"), "{why}");
    assert!(sys.ran.borrow().is_empty());
}

/// No teardown step that names a device runs unguarded, for every layout;
/// md's and LVM's per member, with the array's name and the PV's UUID the
/// build gave them; each names the build step that makes what it undoes.
#[test]
fn every_teardown_step_that_touches_a_device_carries_a_guard_of_the_runs_own() {
    let names = RunNames::under_run("abc123");
    let devs = ["/dev/loop3", "/dev/loop4", "/dev/loop5"];
    let layouts = [
        Layout::Single(Fs::Ext4),
        Layout::Single(Fs::Btrfs),
        Layout::BtrfsRaid(crate::plan::layouts::BtrfsProfile::Raid1),
        Layout::Zfs(ZfsVdev::Raidz(1)),
        Layout::Md(MdLevel::Raid5, Fs::Xfs),
        Layout::LvmStripe(Fs::Ext4),
    ];
    for layout in layouts {
        let n = if layout.single_device() { 1 } else { 3 };
        let b = buildable(&config("c", layout, &devs[..n]), 2, &names);
        for u in &b.teardown {
            let touches = u.action.line().contains("/dev/");
            assert!(
                !touches || !matches!(u.guard, Guard::Always | Guard::Never { .. }),
                "{layout:?}: `{}` is unguarded",
                u.action.line()
            );
            if touches {
                let k = u
                    .after
                    .unwrap_or_else(|| panic!("{layout:?}: `{}` names no build step", u.action.line()));
                assert!(k >= 2 && k <= b.build.len(), "{layout:?}: `{}` after step {k}", u.action.line());
            }
        }
    }
    let md = buildable(&config("md", Layout::Md(MdLevel::Raid5, Fs::Xfs), &devs), 2, &names);
    let zero: Vec<&Guard> = md
        .teardown
        .iter()
        .filter(|u| u.action.line().starts_with("mdadm --zero-superblock"))
        .map(|u| &u.guard)
        .collect();
    assert_eq!(
        zero,
        devs.map(|d| Guard::MdMember {
            device: d.into(),
            name: names.object(2)
        })
        .iter()
        .collect::<Vec<_>>()
    );
    let stop = md.teardown.iter().find(|u| u.action.line().starts_with("mdadm --stop")).unwrap();
    assert_eq!(
        stop.guard,
        Guard::Node {
            path: format!("/dev/md/{}", names.object(2))
        }
    );
    let lvm = buildable(&config("lvm", Layout::LvmStripe(Fs::Ext4), &devs[..2]), 2, &names);
    for (m, d) in devs[..2].iter().enumerate() {
        let uuid = names.pv_uuid(2, m);
        let create = lvm
            .build
            .iter()
            .position(|a| a.line().contains("pvcreate") && a.line().ends_with(d))
            .unwrap();
        assert!(lvm.build[create].line().contains(&format!("--uuid {uuid}")));
        let remove = lvm
            .teardown
            .iter()
            .find(|u| u.action.line() == format!("lvm pvremove -ff -y {d}"))
            .unwrap();
        assert_eq!(
            remove.guard,
            Guard::LvmPv {
                device: d.to_string(),
                uuid
            }
        );
        assert_eq!(remove.after, Some(create + 1));
    }
    let vg = lvm.teardown.iter().find(|u| u.action.line().starts_with("lvm vgremove")).unwrap();
    assert_eq!(vg.guard, Guard::VolumeGroup { name: names.object(2) });
}

/// md's build fails at `mdadm --create` (no md in this kernel): the
/// teardown skips what was never built, the journal is gone, and a later
/// run has nothing to retry.
#[test]
fn an_md_build_that_failed_at_its_create_leaves_no_journal() {
    struct NoMd(Fake);
    impl System for NoMd {
        fn pool_imported(&self, n: &str) -> bool {
            self.0.pool_imported(n)
        }
        fn mount_source(&self, at: &str) -> Option<String> {
            self.0.mount_source(at)
        }
        fn probe(&self, d: &str) -> Option<crate::targets::journal::Probe> {
            self.0.probe(d)
        }
        fn volume_group(&self, n: &str) -> bool {
            self.0.volume_group(n)
        }
        // The array's node would exist if an array were assembled; with a
        // live guard of Always the stop would run and fail.
        fn node_exists(&self, _: &str) -> bool {
            true
        }
        fn identity(&self, p: &str) -> Option<crate::device::identity::Identity> {
            self.0.identity(p)
        }
        fn resolve(&self, r: &crate::device::identity::Identity, p: &str) -> crate::device::identity::Resolved {
            self.0.resolve(r, p)
        }
        fn check_device(&self, d: &str, f: bool) -> std::result::Result<(), String> {
            self.0.check_device(d, f)
        }
        fn act(&self, a: &Action) -> std::result::Result<(), String> {
            self.0.ran.borrow_mut().push(a.line());
            match a.line().starts_with("mdadm") {
                true => Err("mdadm: /dev/md/x: no md support in this kernel".into()),
                false => Ok(()),
            }
        }
    }
    let names = RunNames::under_run("r1");
    let configs = [buildable(
        &config("md-raid1", Layout::Md(MdLevel::Raid1, Fs::Ext4), &["/dev/loop3", "/dev/loop4"]),
        1,
        &names,
    )];
    let d = tempfile::tempdir().unwrap();
    let sys = NoMd(fake(&[("/dev/loop3", 30), ("/dev/loop4", 40)]));
    let out = run_each(&configs, d.path(), "r1", &sys, &Stop::default(), false, &mut |_: &Buildable| Ok(())).unwrap();
    assert!(
        out[0]
            .failed
            .as_ref()
            .unwrap()
            .to_string()
            .contains("cannot build: `mdadm --create")
    );
    assert!(out[0].torn_down(), "{:?}", out[0].teardown);
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0, "the journal is unwound to its end");
    let ran = sys.0.ran.borrow();
    assert!(
        !ran.iter().any(|l| l.starts_with("wipefs -a /dev/md") || l.starts_with("umount")),
        "{ran:?}"
    );
}

/// A signature of the run's own left on a device (a teardown step that could
/// not wipe it) does not stop the next configuration; another one does.
#[test]
fn only_a_signature_of_the_runs_own_is_built_over() {
    let names = RunNames::under_run("r1");
    let configs = [
        buildable(&config("ext4", Layout::Single(Fs::Ext4), &["/dev/loop3"]), 1, &names),
        buildable(&config("xfs", Layout::Single(Fs::Xfs), &["/dev/loop4"]), 2, &names),
    ];
    let d = tempfile::tempdir().unwrap();
    let sys = fake(&[("/dev/loop3", 30), ("/dev/loop4", 40)]);
    *sys.labels.borrow_mut() = vec![("/dev/loop3".into(), names.label()), ("/dev/loop4".into(), "home".into())];
    let out = run_each(&configs, d.path(), "r1", &sys, &Stop::default(), false, &mut |_: &Buildable| Ok(())).unwrap();
    assert!(out[0].failed.is_none(), "{:?}", out[0].failed);
    let why = out[1].failed.as_ref().unwrap().to_string();
    assert!(
        why.ends_with("`: /dev/loop4 carries a filesystem labelled home (pass --force if it is really unused)"),
        "{why}"
    );
    // With --force the user's signature is theirs to give.
    let d = tempfile::tempdir().unwrap();
    let out = run_each(&configs[1..], d.path(), "r1", &sys, &Stop::default(), true, &mut |_: &Buildable| {
        Ok(())
    })
    .unwrap();
    assert!(out[0].failed.is_none(), "{:?}", out[0].failed);
}
