//! What a SIGKILL leaves behind, and how the next run clears it.
//!
//! Test files have no name (`O_TMPFILE`), so they never outlive iolab. Some
//! things must have names: the application suites' trees (`iolab-files-…`,
//! `iolab-git-…`), `verify --cold-wait`'s files (`iolab-verify-…`) and the
//! test file of a run on ZFS with `--allow-export` (`iolab-test-…`: it is
//! reopened by its name after the pool is imported again).
//! They are removed on success, on errors and on SIGINT/SIGTERM; a SIGKILL
//! (or a power cut) leaves them. Each such directory carries a marker,
//! [`MARKER`], naming its owner: pid and the process's start time (a pid
//! alone may be reused by then). [`sweep`], run before iolab makes such a
//! directory, removes those whose owner is gone, and says which.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The owner marker inside a directory iolab made: `PID STARTTIME\n`.
pub const MARKER: &str = ".iolab-owner";
/// The prefixes of the directories iolab makes in a user's directory.
pub const PREFIXES: [&str; 4] = ["iolab-files", "iolab-git", "iolab-verify", "iolab-test"];

use super::owner::start_time;

/// Write the owner marker into `dir` (a directory this process just made).
pub fn mark(dir: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let start = start_time(pid).unwrap_or(0);
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).open(dir.join(MARKER))?;
    writeln!(f, "{pid} {start}")
}

/// Whether the owner named by a marker's text (or, without a marker, by the
/// directory's name `PREFIX-PID-NANOS`) may still be running.
fn owner_alive(marker: Option<&str>, name: &str) -> bool {
    let (pid, start) = match marker {
        Some(m) => {
            let mut it = m.split_whitespace();
            let pid = it.next().and_then(|p| p.parse::<u32>().ok());
            let start = it.next().and_then(|s| s.parse::<u64>().ok());
            match pid {
                Some(p) => (p, start),
                // A marker we cannot read: leave the directory alone.
                None => return true,
            }
        }
        None => match name.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok()) {
            Some(p) => (p, None),
            None => return true,
        },
    };
    match (start_time(pid), start) {
        (None, _) => false,
        // The pid is in use: the same process only if it started when the marker says.
        (Some(now), Some(then)) if then != 0 => now == then,
        (Some(_), _) => true,
    }
}

/// Whether `name` is one of iolab's directories: `PREFIX-PID-NANOS`.
fn ours(name: &str) -> bool {
    PREFIXES.iter().any(|p| {
        name.strip_prefix(p)
            .and_then(|r| r.strip_prefix('-'))
            .and_then(|r| r.split_once('-'))
            .is_some_and(|(pid, nanos)| {
                !pid.is_empty() && !nanos.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) && nanos.bytes().all(|b| b.is_ascii_digit())
            })
    })
}

/// Remove the directories in `parent` that an earlier iolab made and left
/// when it was killed (their owner is gone); returns what was removed.
/// Only iolab's own names are touched, only real directories (never
/// through a symlink), and never one whose owner may still run.
pub fn sweep(parent: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !ours(&name) || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = e.path();
        let marker = std::fs::read_to_string(path.join(MARKER)).ok();
        if owner_alive(marker.as_deref(), &name) {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// The notice for what [`sweep`] removed (`None`: nothing).
pub fn notice(removed: &[PathBuf]) -> Option<String> {
    match removed {
        [] => None,
        [one] => Some(format!("removed {}, left by an iolab run that was killed", one.display())),
        many => Some(format!(
            "removed {} directories left by iolab runs that were killed: {}",
            many.len(),
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_iolab_names_are_ours() {
        assert!(ours("iolab-files-123-456"));
        assert!(ours("iolab-verify-1-2"));
        assert!(ours("iolab-test-1-2"));
        assert!(!ours("iolab-files-123"));
        assert!(!ours("iolab-files-12a-456"));
        assert!(!ours("iolab-filesx-1-2"));
        assert!(!ours("photos"));
    }

    #[test]
    fn a_dead_owner_is_swept_and_a_live_one_kept() {
        let tmp = tempfile::tempdir().unwrap();
        // Ours, alive: this process.
        let mine = tmp.path().join(format!("iolab-files-{}-1", std::process::id()));
        std::fs::create_dir(&mine).unwrap();
        mark(&mine).unwrap();
        // A dead owner: a pid that cannot exist (above pid_max's hard limit).
        let dead = tmp.path().join("iolab-git-4999999-2");
        std::fs::create_dir_all(dead.join("a/b")).unwrap();
        std::fs::write(dead.join(MARKER), "4999999 12\n").unwrap();
        // A live pid with another start time: reused, so the owner is gone.
        let reused = tmp.path().join(format!("iolab-verify-{}-3", std::process::id()));
        std::fs::create_dir(&reused).unwrap();
        std::fs::write(reused.join(MARKER), format!("{} 1\n", std::process::id())).unwrap();
        // No marker (killed between mkdir and the marker): judged by the name.
        let unmarked = tmp.path().join("iolab-files-4999998-4");
        std::fs::create_dir(&unmarked).unwrap();
        // Not ours at all, and a symlink to a dead-looking name.
        let other = tmp.path().join("iolab-files-data");
        std::fs::create_dir(&other).unwrap();
        let link = tmp.path().join("iolab-files-4999997-5");
        std::os::unix::fs::symlink(&other, &link).unwrap();

        let mut removed = sweep(tmp.path());
        removed.sort();
        let mut want = vec![dead.clone(), reused.clone(), unmarked.clone()];
        want.sort();
        assert_eq!(removed, want);
        assert!(mine.is_dir() && other.is_dir() && link.exists());
        let n = notice(&removed).unwrap();
        assert!(n.starts_with("removed 3 directories left by iolab runs that were killed"), "{n}");
        assert_eq!(notice(&[]), None);
    }
}
