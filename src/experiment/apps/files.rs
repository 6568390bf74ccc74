//! The `files` workload: a tree of many small files, like a source tree,
//! created, stat'ed, read, partly rewritten and deleted (bonnie++'s
//! create/stat/delete, mdtest, elbencho's file trees).
//!
//! What it measures is the filesystem's metadata path as much as the
//! device: per file, a directory entry, an inode and a few data blocks.
//! Seed 004 found that synthetic block benchmarks showed no difference
//! where a real `git pull` did; a tree of small files is the part of such
//! a workload that needs no external data.
//!
//! Everything lives under one fresh directory `DIR/iolab-files-<pid>-<nanos>`,
//! removed by a guard when [`run`] returns, whether it succeeded, failed or
//! was interrupted (only SIGKILL leaves it behind).
//!
//! Layout: file `i` is `ROOT/<i / 4096>/<(i / 64) % 64>/<i>`, zero-padded
//! to 3, 2 and 7 digits (file 4195 is `ROOT/001/01/0004195`), so
//! [`FILES_PER_DIR`] files per leaf directory and [`FILES_PER_DIR`] leaf
//! directories per top directory: directories of source-tree size, never
//! one huge directory whose lookups would measure the directory index alone.

use super::{Meter, PhaseSamples};
use crate::base::error::{Result, failed, usage};
use crate::io::buffers::WriteData;
use crate::io::rng::Rng;
use crate::targets::space;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// What the workload does.
#[derive(Clone, Debug)]
pub struct FilesOpts {
    /// Number of files in the tree.
    pub files: u64,
    /// Seeds the size mix and the data.
    pub seed: u64,
    /// Empty the caches before the stat, read, rewrite and delete phases.
    pub cold: bool,
}

/// Files per leaf directory, and leaf directories per top directory.
pub const FILES_PER_DIR: u64 = 64;
/// Every `REWRITE_EVERY`-th file (index 0, 10, 20, …) is rewritten: 10%.
pub const REWRITE_EVERY: u64 = 10;
/// How often (in files) a phase looks at the stop flag.
const STOP_EVERY: u64 = 256;
/// How often (in files) a phase reports progress.
const PROGRESS_EVERY: u64 = 1000;

/// The size mix as size classes: (cumulative per-mille, smallest size,
/// octaves). A file falls in a class with its probability, then in one of
/// the class's octaves with equal probability, then uniformly within the
/// octave: log-uniform by octave, in integers only, so the sizes are the
/// same on every machine (no libm `exp` in the way).
///
/// - 90.0%: 1–16 KiB: source files, headers, makefiles;
/// - 9.5%: 16–256 KiB: large sources, generated tables, small images;
/// - 0.5%: 256 KiB–4 MiB: firmware blobs, big generated headers, archives.
///
/// The mean is about 20.8 KiB and the median about 5 KiB: a Linux source
/// tree has about 15 KiB per file on average with a median of a few KiB,
/// most files one or a few filesystem blocks, and a few large files that
/// hold a good part of the bytes. 20 000 files are about 400 MiB.
const MIX: [(u64, u64, u32); 3] = [(900, 1 << 10, 4), (995, 16 << 10, 4), (1000, 256 << 10, 4)];

/// The file sizes of a tree of `files` files for `seed`, in file order.
/// Deterministic: the same on every run and machine, so the bytes each
/// phase handles are known in advance (`sizes(..).iter().sum()`).
pub fn sizes(files: u64, seed: u64) -> Vec<u64> {
    let mut rng = Rng::new(seed ^ 0x6669_6c65_735f_6d69);
    (0..files)
        .map(|_| {
            let r = rng.below(1000);
            let &(_, lo, octaves) = MIX.iter().find(|c| r < c.0).expect("classes cover 0..1000");
            let base = lo << rng.below(octaves as u64);
            base + rng.below(base)
        })
        .collect()
}

/// Whether file `i` is one of those the rewrite phase overwrites.
pub fn rewritten(i: u64) -> bool {
    i.is_multiple_of(REWRITE_EVERY)
}

/// The directory of file `i` relative to the tree root: (top, leaf).
fn dir_of(i: u64) -> (u64, u64) {
    let leaf = i / FILES_PER_DIR;
    (leaf / FILES_PER_DIR, leaf % FILES_PER_DIR)
}

/// A fresh working directory, removed with everything in it when dropped:
/// on success, on error, and when a stop request unwinds the workload; it
/// carries its owner's marker ([`crate::targets::leftovers`]) for a SIGKILL.
pub(crate) struct Scratch {
    pub(crate) root: PathBuf,
}

impl Scratch {
    /// Create `dir/<prefix>-<pid>-<nanos>`. The nanoseconds keep two runs of
    /// one process apart, and `create_dir` fails rather than reuse a directory.
    pub(crate) fn create(dir: &Path, prefix: &str) -> Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let root = dir.join(format!("{prefix}-{}-{nanos}", std::process::id()));
        // Private (0700), whatever the umask: in a shared directory nobody
        // else can plant a link inside the tree (git's configuration is
        // written there by name).
        std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
            .create(&root)
            .map_err(|e| usage(format!("cannot create a directory in {}: {e}", dir.display())))?;
        let scratch = Scratch { root };
        // Its owner, so that a later run removes it if this one is killed.
        crate::targets::leftovers::mark(&scratch.root).map_err(|e| usage(format!("cannot write in {}: {e}", scratch.root.display())))?;
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Already gone after a complete run; any other failure cannot be
        // reported from here, and must not mask the error being returned.
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Paths in the tree.
struct Tree {
    dir: Scratch,
}

impl Tree {
    fn top(&self, top: u64) -> PathBuf {
        self.dir.root.join(format!("{top:03}"))
    }
    fn leaf(&self, i: u64) -> PathBuf {
        let (top, leaf) = dir_of(i);
        self.top(top).join(format!("{leaf:02}"))
    }
    fn file(&self, i: u64) -> PathBuf {
        self.leaf(i).join(format!("{i:07}"))
    }
}

/// Make everything written to the filesystem of `fs` durable: one
/// `syncfs`, as an untar or a checkout followed by `sync` would, instead
/// of an fsync per file, which no such application does. `fs` is opened
/// for it and closed again, so nothing of iolab's stays open between
/// phases (a ZFS pool is exported between them to empty its ARC).
pub(crate) fn syncfs(fs: &Path, dir: &Path) -> Result<()> {
    let fd = File::open(fs).map_err(|e| failed(format!("cannot open {} to sync it: {e}", fs.display())))?;
    rustix::fs::syncfs(&fd).map_err(|e| failed(format!("syncfs on {} failed: {e}", dir.display())))
}

/// The file data: [`crate::io::buffers`]' write data, as for block
/// writes: random bytes generated once, read through a window that advances
/// with every file, each 4 KiB of a file stamped with a counter and the
/// seed. Stamps sit at file offsets that are multiples of 4 KiB, where a
/// filesystem's blocks start, so no two blocks written are equal (nothing
/// to deduplicate), and the rest is random (nothing to compress). No copy:
/// each file is written straight from the pool.
fn data(seed: u64) -> WriteData {
    WriteData::new(POOL, seed)
}

/// The pool: at least as long as the largest file, so a file is one
/// window, and 8 MiB is longer than any unit a filesystem compresses on its
/// own (btrfs: 128 KiB; ZFS: a record).
const POOL: usize = 8 << 20;
/// Every size [`sizes`] draws is below this: the top class's smallest size
/// times 2 to its octaves.
const MAX_FILE: u64 = MIX[MIX.len() - 1].1 << MIX[MIX.len() - 1].2;
const _: () = assert!(MAX_FILE as usize <= POOL);

fn io_err(what: &str, path: &Path, e: std::io::Error) -> crate::base::error::Error {
    failed(format!("cannot {what} {}: {e}", path.display()))
}

/// Run the workload in a fresh directory under `dir`: phases `create`,
/// `stat`, `read`, `rewrite`, `delete`, in that order. `meter.progress(phase,
/// done, total)` is called at the start and end of each phase and every
/// 1000 files in between.
///
/// Per phase, `files` and `bytes` are:
/// - `create`: every file and all its data, written then made durable by
///   `syncfs` inside the timing (never cold: there is nothing to read);
/// - `stat`: every file, 0 bytes (metadata only; each size is checked);
/// - `read`: every file and all its data, read to the end;
/// - `rewrite`: the 10% of files [`rewritten`] says, overwritten in place
///   (same size, new data, no truncation) and made durable by `syncfs`;
/// - `delete`: every file (its directories are removed too but not
///   counted), 0 bytes, made durable by `syncfs`.
///
/// `opts.cold` empties the caches before every phase but `create`, so
/// stat and read go to the device for inodes, directories and data.
pub fn run(dir: &Path, opts: &FilesOpts, meter: &Meter) -> Result<Vec<PhaseSamples>> {
    let n = opts.files;
    if n == 0 {
        return Err(usage("the files suite needs at least one file (--files)"));
    }
    let sizes = sizes(n, opts.seed);
    let leaves = n.div_ceil(FILES_PER_DIR);
    let tops = leaves.div_ceil(FILES_PER_DIR);
    let need: u64 = sizes.iter().map(|s| s.next_multiple_of(4096)).sum::<u64>() + (leaves + tops + 1) * 4096;
    space::check(dir, need, n + leaves + tops + 1, &format!("a tree of {n} files"), None)?;
    // Opened on the parent, which outlives the tree: syncfs after the delete too.
    File::open(dir).map_err(|e| usage(format!("cannot open {}: {e}", dir.display())))?;
    let mut data = data(opts.seed);
    let tree = Tree {
        dir: Scratch::create(dir, "iolab-files")?,
    };
    let total: u64 = sizes.iter().sum();
    let p = Phases {
        tree: &tree,
        sizes: &sizes,
        n,
        dir,
        meter,
    };
    let rewrites = n.div_ceil(REWRITE_EVERY);
    let out = vec![
        meter.phase("create", false, || p.create(&mut data, total))?,
        meter.phase("stat", opts.cold, || p.stat())?,
        meter.phase("read", opts.cold, || p.read())?,
        meter.phase("rewrite", opts.cold, || p.rewrite(&mut data, rewrites))?,
        meter.phase("delete", opts.cold, || p.delete())?,
    ];
    drop(tree);
    Ok(out)
}

/// The phases of the files suite, over one tree of files.
struct Phases<'a> {
    tree: &'a Tree,
    /// Each file's size.
    sizes: &'a [u64],
    /// Files.
    n: u64,
    /// The directory the tree is in (it outlives the tree: `syncfs` after the delete too).
    dir: &'a Path,
    meter: &'a Meter<'a>,
}

impl Phases<'_> {
    /// Between files: a stop checked, progress shown, now and then.
    fn tick(&self, name: &str, i: u64, of: u64) -> Result<()> {
        if i.is_multiple_of(STOP_EVERY) {
            self.meter.stop.check()?;
        }
        if i.is_multiple_of(PROGRESS_EVERY) {
            self.meter.progress(name, i, of);
        }
        Ok(())
    }

    /// Every file written, in directories of [`FILES_PER_DIR`].
    fn create(&self, data: &mut WriteData, total: u64) -> Result<(u64, u64)> {
        for i in 0..self.n {
            self.tick("create", i, self.n)?;
            if i.is_multiple_of(FILES_PER_DIR) {
                let (top, leaf) = dir_of(i);
                if leaf == 0 {
                    let p = self.tree.top(top);
                    std::fs::create_dir(&p).map_err(|e| io_err("create", &p, e))?;
                }
                let p = self.tree.leaf(i);
                std::fs::create_dir(&p).map_err(|e| io_err("create", &p, e))?;
            }
            let p = self.tree.file(i);
            let mut f = File::options()
                .write(true)
                .create_new(true)
                .open(&p)
                .map_err(|e| io_err("create", &p, e))?;
            f.write_all(data.next(self.sizes[i as usize] as usize))
                .map_err(|e| io_err("write", &p, e))?;
        }
        syncfs(self.dir, &self.tree.dir.root)?;
        self.meter.progress("create", self.n, self.n);
        Ok((self.n, total))
    }

    /// Every file's metadata, its size checked.
    fn stat(&self) -> Result<(u64, u64)> {
        for i in 0..self.n {
            self.tick("stat", i, self.n)?;
            let p = self.tree.file(i);
            let md = std::fs::symlink_metadata(&p).map_err(|e| io_err("stat", &p, e))?;
            if md.len() != self.sizes[i as usize] {
                return Err(failed(format!(
                    "{} has {} bytes, {} were written",
                    p.display(),
                    md.len(),
                    self.sizes[i as usize]
                )));
            }
        }
        self.meter.progress("stat", self.n, self.n);
        Ok((self.n, 0))
    }

    /// Every file read to its end, its size checked.
    fn read(&self) -> Result<(u64, u64)> {
        let mut buf = vec![0u8; 1 << 20];
        let mut bytes = 0;
        for i in 0..self.n {
            self.tick("read", i, self.n)?;
            let p = self.tree.file(i);
            let mut f = File::open(&p).map_err(|e| io_err("open", &p, e))?;
            let mut got = 0;
            loop {
                match f.read(&mut buf) {
                    Ok(0) => break,
                    Ok(k) => got += k as u64,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io_err("read", &p, e)),
                }
            }
            if got != self.sizes[i as usize] {
                return Err(failed(format!(
                    "read {got} bytes from {}, {} were written",
                    p.display(),
                    self.sizes[i as usize]
                )));
            }
            bytes += got;
        }
        self.meter.progress("read", self.n, self.n);
        Ok((self.n, bytes))
    }

    /// One file in [`REWRITE_EVERY`] overwritten in place.
    fn rewrite(&self, data: &mut WriteData, rewrites: u64) -> Result<(u64, u64)> {
        let mut bytes = 0;
        for done in 0..rewrites {
            self.tick("rewrite", done, rewrites)?;
            let i = done * REWRITE_EVERY;
            let p = self.tree.file(i);
            let mut f = File::options().write(true).open(&p).map_err(|e| io_err("open", &p, e))?;
            let len = self.sizes[i as usize];
            f.write_all(data.next(len as usize)).map_err(|e| io_err("write", &p, e))?;
            bytes += len;
        }
        syncfs(self.dir, &self.tree.dir.root)?;
        self.meter.progress("rewrite", rewrites, rewrites);
        Ok((rewrites, bytes))
    }

    /// Every file and directory removed.
    fn delete(&self) -> Result<(u64, u64)> {
        for i in 0..self.n {
            self.tick("delete", i, self.n)?;
            let p = self.tree.file(i);
            std::fs::remove_file(&p).map_err(|e| io_err("delete", &p, e))?;
            let last = i + 1 == self.n;
            if last || (i + 1).is_multiple_of(FILES_PER_DIR) {
                let p = self.tree.leaf(i);
                std::fs::remove_dir(&p).map_err(|e| io_err("remove", &p, e))?;
                let (top, leaf) = dir_of(i);
                if last || leaf + 1 == FILES_PER_DIR {
                    let p = self.tree.top(top);
                    std::fs::remove_dir(&p).map_err(|e| io_err("remove", &p, e))?;
                }
            }
        }
        let marker = self.tree.dir.root.join(crate::targets::leftovers::MARKER);
        std::fs::remove_file(&marker).map_err(|e| io_err("remove", &marker, e))?;
        std::fs::remove_dir(&self.tree.dir.root).map_err(|e| io_err("remove", &self.tree.dir.root, e))?;
        syncfs(self.dir, self.dir)?;
        self.meter.progress("delete", self.n, self.n);
        Ok((self.n, 0))
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
                let marker = std::ffi::OsStr::new(crate::targets::leftovers::MARKER);
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
}
