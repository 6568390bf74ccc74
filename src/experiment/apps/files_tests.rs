use super::*;
use crate::base::signals::Stop;
use std::cell::RefCell;
use std::collections::HashSet;

/// A scratch directory on tmpfs when there is one (fast, and syncfs there
/// does not wait for other writers of the root disk).
pub(crate) fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).expect("tempdir in /dev/shm")
    } else {
        tempfile::tempdir().expect("tempdir")
    }
}

pub(crate) fn is_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).expect("read_dir").next().is_none()
}

fn opts(files: u64) -> FilesOpts {
    FilesOpts {
        files,
        seed: 7,
        cold: false,
    }
}

/// `f` with a copy of `meter` whose phase progress goes to a callback.
pub(crate) fn with_progress<T>(meter: &Meter, progress: &dyn Fn(&str, u64, u64), f: impl FnOnce(&Meter) -> T) -> T {
    let obs = |e: crate::base::progress::Event| {
        if let crate::base::progress::Event::Phase { label, done, total } = e {
            progress(label, done, total)
        }
    };
    f(&Meter {
        observer: &obs,
        ..meter.clone()
    })
}

/// The workload with its phase progress seen through a callback.
fn run(dir: &Path, o: &FilesOpts, meter: &Meter, progress: &dyn Fn(&str, u64, u64)) -> crate::base::error::Result<Vec<PhaseSamples>> {
    with_progress(meter, progress, |m| super::run(dir, o, m))
}

#[test]
fn sizes_are_deterministic_and_follow_the_mix() {
    let a = sizes(100_000, 1);
    assert_eq!(a, sizes(100_000, 1));
    assert_ne!(a[..100], sizes(100, 2)[..]);
    assert_eq!(a[..1000], sizes(1000, 1)[..], "a smaller tree is a prefix of a larger one");
    assert!(a.iter().all(|&s| (1 << 10..4 << 20).contains(&s)));
    let share = |lo: u64, hi: u64| a.iter().filter(|&&s| (lo..hi).contains(&s)).count() as f64 / a.len() as f64;
    assert!((0.89..0.91).contains(&share(1 << 10, 16 << 10)), "{}", share(1 << 10, 16 << 10));
    assert!((0.09..0.10).contains(&share(16 << 10, 256 << 10)));
    assert!((0.004..0.006).contains(&share(256 << 10, 4 << 20)));
    let mean = a.iter().sum::<u64>() as f64 / a.len() as f64 / 1024.0;
    assert!((19.0..23.0).contains(&mean), "mean {mean} KiB");
    let mut sorted = a.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2] as f64 / 1024.0;
    assert!((4.0..7.0).contains(&median), "median {median} KiB");
}

/// No two 4 KiB blocks of file data are equal, across files and rewrites
/// (nothing to deduplicate), and each file starts on a fresh stamp.
#[test]
fn file_data_never_repeats() {
    let mut d = data(3);
    let mut seen = HashSet::new();
    // Enough data to wrap the pool twice.
    let sizes = sizes(2000, 3);
    let mut total = 0;
    while total < 2 * POOL as u64 {
        for &s in &sizes {
            for block in d.next(s as usize).chunks(4096) {
                assert!(seen.insert(block.to_vec()), "a 4K block repeated");
            }
            total += s;
        }
    }
}

#[test]
fn all_phases_in_order_then_nothing_left() {
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    let calls = RefCell::new(Vec::new());
    let n = 1000;
    let out = run(tmp.path(), &opts(n), &meter, &|p, d, t| {
        calls.borrow_mut().push((p.to_string(), d, t))
    })
    .expect("run");
    let names: Vec<_> = out.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["create", "stat", "read", "rewrite", "delete"]);
    let sz = sizes(n, 7);
    let total: u64 = sz.iter().sum();
    let rewrite_bytes: u64 = (0..n).filter(|&i| rewritten(i)).map(|i| sz[i as usize]).sum();
    let got: Vec<_> = out.iter().map(|p| (p.files, p.bytes)).collect();
    assert_eq!(got, [(n, total), (n, 0), (n, total), (100, rewrite_bytes), (n, 0)]);
    assert!(out.iter().all(|p| !p.cold && p.wall_ns > 0));
    assert!(is_empty(tmp.path()), "the tree was left behind");
    let calls = calls.into_inner();
    assert!(calls.contains(&("create".into(), 0, n)));
    assert!(calls.contains(&("delete".into(), n, n)));
    assert!(calls.iter().all(|(_, d, t)| d <= t));
}

/// The tree is as described: 64 files per leaf directory, 64 leaves per top
/// directory, the sizes of [`sizes`]; looked at through a stop right after create.
#[test]
fn layout_matches_the_description() {
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    let n = 64 * 64 + 100;
    let seen = RefCell::new(None);
    let err = run(tmp.path(), &opts(n), &meter, &|p, _, _| {
        if p == "stat" && seen.borrow().is_none() {
            let root = std::fs::read_dir(tmp.path()).unwrap().next().unwrap().unwrap().path();
            assert!(root.file_name().unwrap().to_str().unwrap().starts_with("iolab-files-"));
            let marker = std::ffi::OsStr::new(crate::target::leftovers::MARKER);
            let tops: Vec<_> = std::fs::read_dir(&root)
                .unwrap()
                .flatten()
                .filter(|e| e.file_name() != marker)
                .collect();
            assert!(root.join(marker).is_file(), "the owner marker");
            let leaves0 = std::fs::read_dir(root.join("000")).unwrap().count();
            let files = std::fs::read_dir(root.join("001/01")).unwrap().count();
            let last = std::fs::metadata(root.join(format!("001/01/{:07}", n - 1))).unwrap().len();
            *seen.borrow_mut() = Some((tops.len(), leaves0, files, last));
            stop.request();
        }
    })
    .unwrap_err();
    assert!(matches!(err, crate::base::error::Error::Interrupted(_)), "{err}");
    assert_eq!(seen.into_inner(), Some((2, 64, 36, sizes(n, 7)[n as usize - 1])));
    assert!(is_empty(tmp.path()));
}

/// A stop request in the middle of any phase ends the run with
/// `Interrupted` and removes the whole tree.
#[test]
fn stop_mid_phase_cleans_up() {
    for phase in ["create", "stat", "read", "rewrite", "delete"] {
        let tmp = scratch();
        let stop = Stop::default();
        let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
        let err = run(tmp.path(), &opts(3000), &meter, &|p, d, _| {
            if p == phase && d == 0 {
                stop.request();
            }
        })
        .unwrap_err();
        assert!(
            matches!(err, crate::base::error::Error::Interrupted(libc::SIGINT)),
            "{phase}: {err}"
        );
        assert!(is_empty(tmp.path()), "{phase}: the tree was left behind");
    }
}

#[test]
fn refuses_nothing_and_too_much() {
    let tmp = scratch();
    let stop = Stop::default();
    let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
    let e = run(tmp.path(), &opts(0), &meter, &|_, _, _| {}).unwrap_err();
    assert!(matches!(e, crate::base::error::Error::Usage(_)), "{e}");
    let e = run(Path::new("/nonexistent/iolab"), &opts(10), &meter, &|_, _, _| {}).unwrap_err();
    assert!(matches!(e, crate::base::error::Error::Usage(_)), "{e}");
    // Half of 2^64 bytes fits nowhere this test runs.
    let vfs = rustix::fs::statvfs(tmp.path()).unwrap();
    if vfs.f_blocks > 0 {
        assert!(space::check(tmp.path(), u64::MAX / 2, 1, "x", None).is_err());
    }
    assert!(is_empty(tmp.path()));
}

/// Issue 16: the tree of an application suite is private (0700, where a
/// plain mkdir gives 0755 under the usual umask, or 0777 under umask 0),
/// so in a shared directory nobody can plant a link inside it; it is gone
/// when dropped.
#[test]
fn issue_16_scratch_tree_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch();
    let s = Scratch::create(d.path(), "iolab-test").unwrap();
    let mode = std::fs::metadata(&s.root).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o700);
    drop(s);
    assert!(is_empty(d.path()));
}
