//! The journal of what a layouts run built (`iolab::target::journal`), against the live
//! system: a killed run's journal (its owner a process that is gone) is unwound by the
//! next run's sweep, and each undo step runs only where its guard still holds. A zfs-fuse
//! pool of the run's name is destroyed and its members (whose ZFS label names that pool)
//! wiped; a device that now carries another filesystem's label is left byte for byte;
//! the journal of a live owner is not touched.
//!
//! Root, zfs-fuse and blkid; under `CI=true` it runs, never skips.

use crate::common::emu::{Disk, Layout, LoopDev, MIB, ZfsLab, unique_name};
use iolab::target::journal::{Action, Guard, Live, Outcome, System, Undo, sweep, zfs_label_ranges};
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
    let me = iolab::target::owner::of_self();
    write_journal(&dir, "live.json", &me, &undo[undo.len() - 1..]);

    let swept = sweep(&dir, &iolab::target::owner::of, &Live);
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
