//! The journal of what a layouts run built (`iolab::targets::journal`), against the live
//! system: a killed run's journal (its owner a process that is gone) is unwound by the
//! next run's sweep, and each undo step runs only where its guard still holds. A zfs-fuse
//! pool of the run's name is destroyed and its members (whose ZFS label names that pool)
//! wiped; a device that now carries another filesystem's label is left byte for byte;
//! the journal of a live owner is not touched.
//!
//! Root, zfs-fuse and blkid; under `CI=true` it runs, never skips.

use crate::common::emu::{Disk, Layout, LoopDev, MIB, ZfsLab, unique_name};
use iolab::targets::journal::{Action, Guard, Live, Outcome, System, Undo, sweep, zfs_label_ranges};
use std::os::unix::fs::FileExt;
use std::process::Command;

fn digest(dev: &std::path::Path) -> String {
    let out = Command::new("md5sum").arg(dev).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split(' ').next().unwrap().to_string()
}

fn write_journal(dir: &std::path::Path, name: &str, owner: &str, undo: &[Undo]) {
    let text = serde_json::json!({"owner": owner, "undo": undo});
    std::fs::write(dir.join(name), text.to_string()).unwrap();
}

#[test]
fn a_killed_runs_journal_is_unwound_only_where_its_guards_hold() {
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("blkid");
    need_tool!("wipefs");
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Mirror(2), Disk::new(128 * MIB)).create();
    let name = pool.name().to_string();
    let members: Vec<String> = pool.members().iter().map(|m| m.dev().path().display().to_string()).collect();
    // What the guards read, live: the pool is imported, its members' ZFS label names it.
    assert!(Live.pool_imported(&name));
    for m in &members {
        assert_eq!(Live.label(m).as_deref(), Some(name.as_str()), "{m}");
    }
    // A device that has since become somebody else's: ext4 labelled "home".
    let other = LoopDev::new(64 * MIB);
    let other_path = other.path().display().to_string();
    let mk = Command::new("mkfs.ext4")
        .args(["-F", "-q", "-L", "home"])
        .arg(other.path())
        .status()
        .unwrap();
    assert!(mk.success());
    let before = digest(other.path());

    let dir = std::env::temp_dir().join(unique_name("journal"));
    std::fs::create_dir(&dir).unwrap();
    // A process that is gone, as the killed run.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let label = |device: &str, label: &str| Guard::Label {
        device: device.into(),
        label: label.into(),
    };
    let mut undo: Vec<Undo> = members
        .iter()
        .map(|m| Undo {
            what: format!("the labels on {m}"),
            action: Action::Wipe {
                device: m.clone(),
                zfs_labels: true,
            },
            guard: label(m, &name),
            best_effort: false,
            after: None,
        })
        .collect();
    undo.push(Undo {
        what: format!("the labels on {other_path}"),
        action: Action::Wipe {
            device: other_path.clone(),
            zfs_labels: true,
        },
        guard: label(&other_path, &name),
        best_effort: false,
        after: None,
    });
    undo.push(Undo {
        what: format!("pool {name}"),
        action: Action::run(["zpool", "destroy", &name]),
        guard: Guard::Pool { name: name.clone() },
        best_effort: false,
        after: None,
    });
    write_journal(&dir, "killed.json", &format!("{dead}@1@{}", boot.trim()), &undo);
    // A live run's journal (this process) would destroy the pool too: never run.
    let me = iolab::targets::owner::of_self();
    write_journal(&dir, "live.json", &me, &undo[undo.len() - 1..]);

    let swept = sweep(&dir, &iolab::targets::owner::of, &Live);
    let _ = std::fs::remove_file(dir.join("live.json"));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
    let _ = std::fs::remove_dir(&dir);
    assert_eq!(swept.len(), 1, "{swept:?}");
    let steps: Vec<(&str, &Outcome)> = swept[0].steps.iter().map(|(u, o)| (u.what.as_str(), o)).collect();
    note!("{steps:?}");
    // Newest first: the pool, then the devices.
    assert_eq!(steps[0].1, &Outcome::Done, "{steps:?}");
    assert!(matches!(steps[1].1, Outcome::Skipped(w) if w.contains("home")), "{steps:?}");
    assert!(steps[2..].iter().all(|(_, o)| **o == Outcome::Done), "{steps:?}");
    assert!(left.is_empty(), "the killed run's journal is left: {left:?}");
    assert!(!Live.pool_imported(&name));
    for m in &members {
        assert_eq!(Live.label(m), None, "{m} still carries a label");
        // All four ZFS labels are zeros, the two at the end too.
        let f = std::fs::File::open(m).unwrap();
        let size = f.metadata().unwrap().len().max(128 * MIB);
        for (at, len) in zfs_label_ranges(size) {
            let mut buf = vec![1u8; len as usize];
            f.read_exact_at(&mut buf, at).unwrap();
            assert!(buf.iter().all(|&b| b == 0), "{m}: bytes {at}+{len} are not zeros");
        }
    }
    assert_eq!(digest(other.path()), before, "the other filesystem's device was written");
    assert_eq!(Live.label(&other_path).as_deref(), Some("home"));
}

/// Two loop devices over files `a` and `b`, detached and attached again the other way
/// round (as disks renamed after a reboot); detached and removed on drop.
struct Swappable {
    files: [std::path::PathBuf; 2],
    devs: [String; 2],
}

impl Swappable {
    fn new(size: u64) -> Swappable {
        let files = [0, 1].map(|_| std::path::Path::new("/dev/shm").join(format!("{}.img", unique_name("swap"))));
        for f in &files {
            let mut file = std::fs::File::create(f).unwrap();
            crate::common::emu::fill_pseudo_random(&mut file, size).unwrap();
        }
        let mut s = Swappable {
            files,
            devs: [String::new(), String::new()],
        };
        for i in 0..2 {
            let out = Command::new("losetup")
                .args(["--find", "--show"])
                .arg(&s.files[i])
                .output()
                .unwrap();
            assert!(out.status.success(), "losetup: {}", String::from_utf8_lossy(&out.stderr));
            s.devs[i] = String::from_utf8_lossy(&out.stdout).trim().to_string();
        }
        s
    }

    /// Detach both, then attach file `a` at `b`'s device and `b` at `a`'s.
    fn swap(&mut self) {
        for d in &self.devs {
            assert!(Command::new("losetup").arg("-d").arg(d).status().unwrap().success());
        }
        for (dev, file) in [(&self.devs[0], &self.files[1]), (&self.devs[1], &self.files[0])] {
            // A detach completes asynchronously: try for a few seconds.
            let ok = (0..50).any(|_| {
                let ok = Command::new("losetup").arg(dev).arg(file).status().unwrap().success();
                if !ok {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                ok
            });
            assert!(ok, "cannot attach {} at {dev} again", file.display());
        }
        self.files.swap(0, 1);
    }
}

impl Drop for Swappable {
    fn drop(&mut self) {
        for d in &self.devs {
            let _ = Command::new("losetup").arg("-d").arg(d).status();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

/// A killed `iolab layouts` run built md RAID 1 on two loop devices, then the machine
/// rebooted and the loop devices came back in the other order: the device at the
/// recorded path is now the user's. Its journal, swept by the next run, must not zero
/// the superblock of the device that now sits at the recorded path (before the fix:
/// `mdadm --zero-superblock` ran unguarded on the recorded paths), and a step whose
/// guard holds follows its device to its new path: the ext4 of the run's own label the
/// killed run left is wiped where it is now, and the user's device is left byte for
/// byte. This kernel has no md: the journal's `mdadm` is a stand-in that zeroes the
/// first MiB of each device it is given, as the real one would zero a superblock.
#[test]
fn a_journal_replayed_after_the_devices_were_renamed_never_writes_the_device_now_at_the_recorded_path() {
    use iolab::plan::layouts::{Config, Fs, Layout as L, MdLevel, RunNames};
    need_root!();
    need_tool!("losetup");
    need_tool!("blkid");
    need_tool!("wipefs");
    need_tool!("mkfs.ext4");
    let mut loops = Swappable::new(64 * MIB);
    let (first, second) = (loops.devs[0].clone(), loops.devs[1].clone());
    let names = RunNames::under_run(&unique_name("swap").replace('-', ""));
    let config = Config {
        name: "md-raid1+ext4".into(),
        layout: L::Md(MdLevel::Raid1, Fs::Ext4),
        devices: vec![first.clone().into(), second.clone().into()],
        properties: Vec::new(),
        tags: Vec::new(),
    };
    let b = iolab::experiment::layouts::buildable(&config, 1, &names);
    // The stand-in for mdadm.
    let tools = tempfile::tempdir().unwrap();
    let mdadm = tools.path().join("mdadm");
    std::fs::write(
        &mdadm,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in /dev/loop*) dd if=/dev/zero of=\"$a\" bs=1M count=1 conv=notrunc,fsync 2>/dev/null;; esac; done\n",
    )
    .unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(&mut std::fs::metadata(&mdadm).unwrap().permissions(), 0o755);
    std::fs::set_permissions(&mdadm, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let with_stand_in = |u: &Undo| {
        let mut u = u.clone();
        if let Action::Run { argv } = &mut u.action
            && argv[0] == "mdadm"
        {
            argv[0] = mdadm.display().to_string();
        }
        u
    };
    // What the killed run left on the first device: an ext4 of its own label (its md
    // array never existed on this kernel; the filesystem stands for what it built).
    let mk = Command::new("mkfs.ext4")
        .args(["-F", "-q", "-L", &names.label()])
        .arg(&first)
        .status()
        .unwrap();
    assert!(mk.success());
    // The journal as the killed run wrote it: devices, teardown, every build step done.
    let dir = tempfile::tempdir().unwrap();
    {
        let mut j = iolab::targets::journal::Journal::create(dir.path(), "killed").unwrap();
        let recorded: Vec<iolab::targets::journal::Recorded> = [&first, &second]
            .iter()
            .map(|p| iolab::targets::journal::Recorded {
                path: p.to_string(),
                identity: Live.identity(p).expect("a loop device has an identity"),
            })
            .collect();
        j.record_devices(recorded).unwrap();
        let mut teardown: Vec<Undo> = b.teardown.iter().map(with_stand_in).collect();
        // The member wipes stand for what the run built there: its filesystem's label.
        for u in &mut teardown {
            if let Guard::Label { label, .. } = &mut u.guard {
                *label = names.label();
            }
        }
        for u in teardown.iter().rev() {
            j.push(u.clone()).unwrap();
        }
        for n in 1..=b.build.len() {
            j.started(n).unwrap();
            j.done(n).unwrap();
        }
    }
    // Owned by a process that is gone.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let path = dir.path().join("killed.json");
    let mut record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record["owner"] = serde_json::json!(format!("{dead}@1@{}", boot.trim()));
    std::fs::write(&path, record.to_string()).unwrap();

    loops.swap();
    // Now `first` holds the user's file (random data, no signature) and `second` the
    // killed run's ext4.
    assert_eq!(Live.label(&second).as_deref(), Some(names.label().as_str()));
    let user_before = digest(std::path::Path::new(&first));
    let swept = sweep(dir.path(), &iolab::targets::owner::of, &Live);
    let steps: Vec<(&str, &Outcome)> = swept[0].steps.iter().map(|(u, o)| (u.what.as_str(), o)).collect();
    note!("{steps:?}");
    assert_eq!(
        digest(std::path::Path::new(&first)),
        user_before,
        "the device now at {first} was written: {steps:?}"
    );
    assert_eq!(
        Live.label(&second),
        None,
        "the killed run's filesystem, now at {second}, is left: {steps:?}"
    );
    let followed = swept[0].steps.iter().find(|(u, _)| {
        matches!(&u.action, Action::Wipe { device, .. } if *device == second) && u.what.contains(&format!("{first}, now {second}"))
    });
    assert!(
        followed.is_some_and(|(_, o)| *o == Outcome::Done),
        "the wipe did not follow its device: {steps:?}"
    );
    assert!(!path.exists(), "the journal is left: {steps:?}");
}

/// A device the killed run built on that is not attached any more, while another file
/// sits at its path: every step naming it is left alone, and says why.
#[test]
fn a_journal_replayed_after_its_device_was_replaced_leaves_it_alone_and_says_so() {
    need_root!();
    need_tool!("losetup");
    need_tool!("blkid");
    need_tool!("wipefs");
    let loops = Swappable::new(16 * MIB);
    let dev = loops.devs[0].clone();
    let mut identity = Live.identity(&dev).unwrap();
    // Recorded over another file, which is not attached now.
    identity.backing.as_mut().unwrap().ino ^= 0x5a5a;
    let dir = tempfile::tempdir().unwrap();
    {
        let mut j = iolab::targets::journal::Journal::create(dir.path(), "killed").unwrap();
        j.record_devices(vec![iolab::targets::journal::Recorded {
            path: dev.clone(),
            identity,
        }])
        .unwrap();
        j.push(Undo {
            what: format!("the signatures on {dev}"),
            action: Action::Wipe {
                device: dev.clone(),
                zfs_labels: true,
            },
            guard: Guard::Label {
                device: dev.clone(),
                label: "iolab-000000".into(),
            },
            best_effort: false,
            after: None,
        })
        .unwrap();
    }
    let path = dir.path().join("killed.json");
    let mut record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record["owner"] = serde_json::json!("1@1@not-this-boot");
    std::fs::write(&path, record.to_string()).unwrap();
    let before = digest(std::path::Path::new(&dev));
    let swept = sweep(dir.path(), &iolab::targets::owner::of, &Live);
    assert_eq!(digest(std::path::Path::new(&dev)), before);
    let (_, outcome) = &swept[0].steps[0];
    assert!(
        matches!(outcome, Outcome::LeftAlone(why) if why.starts_with(&format!("{dev} is now loop over /dev/shm/"))),
        "{outcome:?}"
    );
}

/// `--allow-export`: the user's pool is exported and imported again around the run's
/// open target. A first SIGINT, then a second one while the pool is away (held there by
/// the test knob), must not leave the pool exported: the second waits for the import,
/// then the run exits 130; no export journal is left. Before the fix the second SIGINT
/// exited at once and the pool stayed exported.
#[test]
fn a_second_sigint_while_the_pool_is_exported_waits_for_its_import() {
    use crate::common::iolab;
    need_root!();
    need_tool!("zfs-fuse");
    need_tool!("zpool");
    need_tool!("zfs");
    let lab = ZfsLab::start();
    let pool = lab.pool(Layout::Single, Disk::new(128 * MIB)).create();
    let name = pool.name().to_string();
    let dir = pool.mountpoint().to_path_buf();
    std::fs::write(dir.join("file"), vec![7u8; MIB as usize]).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let flag = tmp.path().join("paused");
    let mut child = iolab()
        .current_dir(&dir)
        .args(["time", "--cold", "--allow-export", "--runs", "1", "--", "cat", "file"])
        .env("IOLAB_TEST_PAUSE_AT", format!("zfs-exported:{}", flag.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !flag.exists() {
        assert!(t0.elapsed().as_secs() < 60, "the run never exported the pool");
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it exported the pool");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let exported = !Live.pool_imported(&name);
    for _ in 0..2 {
        // SAFETY: kill(2) of our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let imported = Live.pool_imported(&name);
    if !imported {
        // Put it back for the lab's own cleanup before failing.
        let dirs: Vec<String> = pool
            .members()
            .iter()
            .map(|m| m.dev().path().parent().unwrap().display().to_string())
            .collect();
        let mut import = Command::new("zpool");
        import.arg("import");
        for d in dirs {
            import.args(["-d", &d]);
        }
        let _ = import.arg(&name).status();
    }
    let journals: Vec<String> = std::fs::read_dir(iolab::targets::zfs::EXPORT_JOURNALS)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!("export-{name}-")))
                .collect()
        })
        .unwrap_or_default();
    // A failed run's journal would name a pool the lab destroys: never left to others.
    for j in &journals {
        let _ = std::fs::remove_file(std::path::Path::new(iolab::targets::zfs::EXPORT_JOURNALS).join(j));
    }
    note!("status {status:?}, exported while paused: {exported}; stderr: {stderr}");
    assert!(exported, "the pool was not exported at the test knob's point");
    assert!(imported, "the pool {name} was left exported (status {status:?}): {stderr}");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(journals.is_empty(), "export journals left: {journals:?}");
}
