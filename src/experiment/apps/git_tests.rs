use super::*;
use crate::base::signals::Stop;
use crate::experiment::apps::files::tests::{is_empty, scratch, with_progress};
use std::cell::RefCell;

fn have_git() -> bool {
    let ok = find_git().is_ok();
    if !ok {
        crate::base::testknob::skip_for_missing_tool("git");
    }
    ok
}

fn opts(commits: u32, files: u32) -> GitOpts {
    GitOpts {
        commits,
        files,
        seed: 11,
        cold: false,
    }
}

/// Files and bytes of a working tree, `.git` left out.
fn worktree(dir: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() && e.file_name() != ".git" {
                stack.push(e.path());
            } else if t.is_file() {
                files += 1;
                bytes += e.metadata().unwrap().len();
            }
        }
    }
    (files, bytes)
}

/// The workload with its phase progress seen through a callback.
fn run(dir: &Path, o: &GitOpts, meter: &Meter, progress: &dyn Fn(&str, u64, u64)) -> crate::base::error::Result<Vec<PhaseSamples>> {
    with_progress(meter, progress, |m| super::run(dir, o, m))
}

#[test]
fn plan_of_the_defaults() {
    let p = plan(&opts(300, 3000));
    assert_eq!(p, plan(&opts(300, 3000)), "deterministic");
    assert_eq!((p.commits, p.old_commit, p.head_files), (300, 30, 3000));
    // 10% into the history the tree has grown a tenth of the way from 1500 to 3000.
    assert_eq!(p.old_files, 1500 + 1500 * 29 / 299);
    // Moving between the two rewrites most of the tree: a big pull.
    assert!(p.changed_files > p.head_files * 8 / 10, "{p:?}");
    let mean = p.head_bytes / p.head_files;
    assert!((4 << 10..9 << 10).contains(&mean), "mean file size {mean}");
    assert!(p.to_new_bytes <= p.head_bytes && p.to_old_bytes <= p.old_bytes);
    assert_ne!(
        p,
        plan(&GitOpts {
            seed: 12,
            ..opts(300, 3000)
        })
    );
}

/// Blobs differ in every version, have the planned size and end in a newline.
#[test]
fn blobs_are_distinct_text() {
    let h = History::new(&opts(10, 100));
    let mut a = Vec::new();
    let mut b = Vec::new();
    h.blob(5, 1, 3000, &mut a);
    h.blob(5, 2, 3000, &mut b);
    assert_eq!((a.len(), b.len()), (3000, 3000));
    assert_ne!(a, b);
    assert!(a.starts_with(format!("/* {} r1 */\n", h.path(5)).as_bytes()));
    assert!(a.iter().all(|&c| c == b'\n' || c.is_ascii_graphic() || c == b' '));
    assert_eq!(a.last(), Some(&b'\n'));
}

#[test]
fn all_phases_in_order_then_nothing_left() {
    if !have_git() {
        return;
    }
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    let o = opts(40, 300);
    let p = plan(&o);
    let trees = RefCell::new(Vec::new());
    let out = run(tmp.path(), &o, &meter, &|phase, done, _| {
        // Before each checkout: look at the clone's working tree.
        if phase.starts_with("checkout") && done == 0 {
            let work = std::fs::read_dir(tmp.path()).unwrap().next().unwrap().unwrap().path();
            trees.borrow_mut().push(worktree(&work.join("clone")));
        }
    })
    .expect("run");
    let names: Vec<_> = out.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["generate", "clone", "checkout-old", "checkout-new"]);
    let files: Vec<_> = out.iter().map(|s| s.files).collect();
    assert_eq!(files, [p.head_files, p.head_files, p.changed_files, p.changed_files]);
    // Object stores: at least a pack, compressed below the raw blobs but not to nothing.
    for s in &out[..2] {
        assert!(
            s.bytes > p.head_bytes + p.blob_bytes / 2 && s.bytes < p.head_bytes + 2 * p.blob_bytes,
            "{s:?} {p:?}"
        );
    }
    assert_eq!((out[2].bytes, out[3].bytes), (p.to_old_bytes, p.to_new_bytes));
    assert_eq!(trees.into_inner(), [(p.head_files, p.head_bytes), (p.old_files, p.old_bytes)]);
    assert!(is_empty(tmp.path()), "the work directory was left behind");
}

/// Same seed, same repository: the same commit ids (tags too).
#[test]
fn repository_is_deterministic() {
    if !have_git() {
        return;
    }
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    let git = Git::new(find_git().unwrap(), &tmp.path().join("home")).unwrap();
    let ids = |name: &str, seed: u64| {
        let h = History::new(&GitOpts { seed, ..opts(15, 80) });
        let repo = tmp.path().join(name);
        generate(&git, &repo, &h, &meter).unwrap();
        let out = Command::new(&git.exe)
            .args(["rev-parse", "main", "old"])
            .current_dir(&repo)
            .env_clear()
            .envs(git.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let a = ids("a", 1);
    assert_eq!(a.lines().count(), 2);
    assert_eq!(a, ids("b", 1));
    assert_ne!(a, ids("c", 2));
}

/// A stop request in any phase, also while git runs, ends the run with
/// `Interrupted` and removes everything.
#[test]
fn stop_mid_phase_cleans_up() {
    if !have_git() {
        return;
    }
    for phase in ["generate", "clone", "checkout-old", "checkout-new"] {
        let tmp = scratch();
        let stop = Stop::default();
        let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
        let err = run(tmp.path(), &opts(30, 200), &meter, &|p, d, _| {
            if p == phase && d == 0 {
                stop.request();
            }
        })
        .unwrap_err();
        assert!(
            matches!(err, crate::base::error::Error::Interrupted(libc::SIGINT)),
            "{phase}: {err}"
        );
        assert!(is_empty(tmp.path()), "{phase}: the work directory was left behind");
    }
}

#[test]
fn refuses_too_short_a_history() {
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    for o in [opts(1, 100), opts(10, 0)] {
        let e = run(tmp.path(), &o, &meter, &|_, _, _| {}).unwrap_err();
        assert!(matches!(e, crate::base::error::Error::Usage(_)), "{e}");
    }
    assert!(is_empty(tmp.path()));
}
