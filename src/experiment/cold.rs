//! `--cold` done on a directory: what [`crate::judge::cold::plan`] chose,
//! before each timed run (`iolab time`) or app-suite phase. Off ZFS the
//! kernel's caches are dropped; on ZFS, with `--allow-export`, the pool is
//! exported and imported (its ARC emptied), and while it is away the
//! kernel's cached pages of its members are dropped ([`evict_members`]).
//! Not the whole page cache: the export unmounts the pool's datasets (their
//! cached pages and inodes go with them), and dropping everything else
//! would make the run re-read the command's programs and libraries, and
//! iolab's own, from the root disk inside the timed run: a cold figure of
//! the pool would then carry the root disk's speed and its noise (seed 004
//! timed `git pull` after an export and import only). Nothing of iolab's may be open on the pool then: the
//! app suites open nothing between phases, and iolab's own working
//! directory, when it is on the pool, is left for `/` around the export.
//! A run that could not be made cold is recorded so (`none`, with why),
//! and said once on the live view.

use crate::base::error::{Result, failed, usage};
use crate::base::progress::{Event, Level, Observer};
use crate::device::{self, FsInfo, SysRoot};
use crate::judge::cold::{PoolFacts, after_export, plan};
use crate::judge::zfs::Implementation;
use crate::samples::{ColdMethod, ColdRecord};
use crate::targets::zfs::{Cycled, Reimport, Zpool, export_import, export_refusal};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the pool's dataset may take to be mounted again after the import.
const MOUNT_WAIT: Duration = Duration::from_secs(20);

/// Empties the caches under one directory the way its filesystem needs.
pub struct Cooler {
    dir: PathBuf,
    sys: SysRoot,
    /// The directory's mount, to wait for after an import.
    mount: Option<FsInfo>,
    /// On ZFS: the pool's facts and its members' paths (for the import).
    pool: Option<(PoolFacts, Vec<String>)>,
    /// Reasons already told the observer.
    said: RefCell<Vec<String>>,
}

impl Cooler {
    /// For runs in `dir` (or on the file `dir`); `allow_export`: `--allow-export`.
    pub fn for_dir(sys: &SysRoot, dir: &Path, allow_export: bool) -> Cooler {
        let mount = device::filesystem_of(sys, dir);
        let pool = mount.as_ref().and_then(|fs| {
            let implementation = Implementation::of_fstype(&fs.fstype)?;
            let info = device::describe(sys, dir).ok().and_then(|r| r.zfs);
            let pool = match &info {
                Some(z) => z.pool.clone(),
                None => fs.source.split('/').next().unwrap_or(&fs.source).to_string(),
            };
            let leaves: Vec<String> = info.iter().flat_map(|z| z.leaves()).map(|v| v.name.clone()).collect();
            let export_refused = allow_export
                .then(|| export_refusal(&pool, &device::mounts(sys), !leaves.is_empty(), true))
                .flatten();
            let z = info.as_ref();
            let facts = PoolFacts {
                implementation,
                pool,
                allow_export,
                export_refused,
                cache_devices: z.is_some_and(|z| z.vdevs.iter().any(|v| v.class == "cache")),
                l2arc_persistent: implementation == Implementation::OpenZfs
                    && z.and_then(|z| z.version.as_deref())
                        .and_then(|v| device::major_minor(v).map(|(major, _)| major))
                        .is_none_or(|m| m >= 2),
            };
            Some((facts, leaves))
        });
        Cooler {
            dir: dir.to_path_buf(),
            sys: sys.clone(),
            mount,
            pool,
            said: RefCell::new(Vec::new()),
        }
    }

    /// For a command run in `cwd` on `args`: the first of `cwd` and the
    /// arguments that name an existing path (relative ones under `cwd`)
    /// that is on ZFS decides (a file on a pool read from elsewhere is
    /// cold only once its pool's ARC is emptied); else `cwd`.
    pub fn for_command(sys: &SysRoot, cwd: &Path, args: &[String], allow_export: bool) -> Cooler {
        let on_zfs = |p: &Path| device::filesystem_of(sys, p).is_some_and(|fs| Implementation::of_fstype(&fs.fstype).is_some());
        let paths = std::iter::once(cwd.to_path_buf()).chain(args.iter().map(|a| cwd.join(a)).filter(|p| p.exists()));
        let dir = paths.into_iter().find(|p| on_zfs(p)).unwrap_or_else(|| cwd.to_path_buf());
        Cooler::for_dir(sys, &dir, allow_export)
    }

    /// The pool's facts when the directory is on ZFS.
    pub fn pool(&self) -> Option<&PoolFacts> {
        self.pool.as_ref().map(|(p, _)| p)
    }

    /// Empty the caches with the live `zpool`, `drop_caches` and [`evict_members`].
    pub fn cool(&self, observer: &dyn Observer) -> Result<ColdRecord> {
        self.cool_with(&crate::targets::zfs::LiveZpool, &drop_caches, &evict_members, observer)
    }

    /// Empty the caches: what was done, or why the run is not cold.
    /// `drop_caches` empties the kernel's caches (off ZFS, and on a pool
    /// that is not exported); `evict` drops the cached pages of a pool's
    /// members while it is away.
    pub fn cool_with(
        &self,
        zpool: &dyn Zpool,
        drop_caches: &dyn Fn() -> Result<()>,
        evict: &dyn Fn(&[&str]) -> Result<()>,
        observer: &dyn Observer,
    ) -> Result<ColdRecord> {
        let planned = plan(self.pool());
        let rec = match &self.pool {
            Some((p, leaves)) if planned.method == ColdMethod::ExportImport => {
                let leaves: Vec<&str> = leaves.iter().map(String::as_str).collect();
                let re = Reimport::of(zpool, &p.pool, &leaves);
                let away = Away::leave(&self.sys, &p.pool)?;
                let mut dropped = Ok(());
                let cycled = export_import(zpool, &re, || dropped = evict(&leaves));
                let back = match &cycled {
                    Ok(Cycled::Done) => self.wait_mounted(),
                    _ => Ok(()),
                };
                away.back()?;
                back?;
                match cycled? {
                    Cycled::Done => {
                        dropped?;
                        after_export(p, planned, Ok(()))
                    }
                    Cycled::Refused(why) => {
                        drop_caches()?;
                        after_export(p, planned, Err(why))
                    }
                }
            }
            _ => {
                drop_caches()?;
                planned
            }
        };
        if rec.method == ColdMethod::None
            && let Some(why) = &rec.reason
            && !self.said.borrow().contains(why)
        {
            observer.event(Event::Notice {
                level: Level::Warning,
                text: &format!("NOT COLD: {why}"),
            });
            self.said.borrow_mut().push(why.clone());
        }
        Ok(rec)
    }

    /// Wait for the directory's mount to be back after the import.
    fn wait_mounted(&self) -> Result<()> {
        let Some(m) = &self.mount else { return Ok(()) };
        let start = Instant::now();
        loop {
            let now = device::filesystem_of(&self.sys, &self.dir);
            if now.as_ref().is_some_and(|n| n.mount_point == m.mount_point && n.fstype == m.fstype) && self.dir.exists() {
                return Ok(());
            }
            if start.elapsed() > MOUNT_WAIT {
                return Err(failed(format!(
                    "{} was not mounted again {} s after its pool's import",
                    m.mount_point,
                    MOUNT_WAIT.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// iolab's own working directory, left for `/` while its pool is away
/// (a process's working directory holds its filesystem busy).
struct Away(Option<PathBuf>);

impl Away {
    fn leave(sys: &SysRoot, pool: &str) -> Result<Away> {
        let Ok(cwd) = std::env::current_dir() else {
            return Ok(Away(None));
        };
        let on_pool = device::filesystem_of(sys, &cwd)
            .is_some_and(|fs| Implementation::of_fstype(&fs.fstype).is_some() && fs.source.split('/').next() == Some(pool));
        if !on_pool {
            return Ok(Away(None));
        }
        std::env::set_current_dir("/").map_err(|source| ColdError::Leave { dir: cwd.clone(), source })?;
        Ok(Away(Some(cwd)))
    }

    fn back(self) -> Result<()> {
        match self.0 {
            Some(d) => std::env::set_current_dir(&d).map_err(|source| ColdError::Return { dir: d.clone(), source }.into()),
            None => Ok(()),
        }
    }
}

/// Why the caches could not be emptied before a cold run: what iolab was
/// doing and the system's error. Each gives exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum ColdError {
    #[error("cannot leave {} for its pool's export: {source}", dir.display())]
    Leave { dir: std::path::PathBuf, source: std::io::Error },
    #[error("cannot return to {} after its pool's import: {source}", dir.display())]
    Return { dir: std::path::PathBuf, source: std::io::Error },
    #[error("cannot open pool member {leaf} to drop its cached pages: {source}")]
    OpenMember { leaf: String, source: std::io::Error },
    #[error("cannot drop the cached pages of pool member {leaf}: {source}")]
    DropMember { leaf: String, source: std::io::Error },
    #[error("cannot drop caches: {source}")]
    DropCaches { source: std::io::Error },
}

impl From<ColdError> for crate::base::error::Error {
    fn from(e: ColdError) -> Self {
        crate::base::error::failed_by(e)
    }
}

/// Whether this process may empty the kernel's caches.
pub fn can_drop_caches() -> bool {
    rustix::process::geteuid().is_root()
}

/// Drop the kernel's cached pages of a pool's members (its leaves'
/// paths; names that are not paths, or paths gone, are skipped) with
/// `posix_fadvise(DONTNEED)`. Called while the pool is exported: nothing
/// writes to them then, so every page is clean and goes. zfs-fuse reads
/// file members through the page cache; block members (zfs-fuse opens them
/// `O_DIRECT`, OpenZFS bypasses the page cache) have nothing there, and
/// the call costs nothing.
pub fn evict_members(leaves: &[&str]) -> Result<()> {
    for leaf in leaves.iter().filter(|l| l.starts_with('/')) {
        let f = match std::fs::File::open(leaf) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(ColdError::OpenMember {
                    leaf: leaf.to_string(),
                    source,
                }
                .into());
            }
        };
        if let Err(source) = crate::io::sys::drop_pages(&f) {
            return Err(ColdError::DropMember {
                leaf: leaf.to_string(),
                source,
            }
            .into());
        }
    }
    Ok(())
}

/// Write dirty data back, then drop the page cache, dentries and inodes,
/// so the next access goes to the device. Needs root; refused otherwise
/// (a "cold" figure measured warm would be a lie).
pub fn drop_caches() -> Result<()> {
    if !can_drop_caches() {
        return Err(usage(
            "emptying the caches needs root (it writes /proc/sys/vm/drop_caches); run as root, or measure warm without --cold",
        ));
    }
    rustix::fs::sync();
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").map_err(|source| ColdError::DropCaches { source }.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A `zpool` that answers `get` with nothing and refuses or accepts the export.
    struct Fake {
        refuse: Option<&'static str>,
        calls: RefCell<Vec<String>>,
    }

    impl Zpool for Fake {
        fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
            self.calls.borrow_mut().push(args.join(" "));
            match (args[0], self.refuse) {
                ("export", Some(why)) => Err(why.into()),
                ("get", _) => Ok(String::new()),
                _ => Ok(String::new()),
            }
        }
    }

    fn cooler(facts: Option<PoolFacts>) -> Cooler {
        Cooler {
            dir: PathBuf::from("/nonexistent-iolab-dir"),
            sys: SysRoot::default(),
            mount: None,
            pool: facts.map(|f| (f, vec!["/dev/loop3".to_string()])),
            said: RefCell::new(Vec::new()),
        }
    }

    fn facts(allow_export: bool) -> PoolFacts {
        PoolFacts {
            implementation: Implementation::ZfsFuse,
            pool: "tpool-iolab-fake".into(),
            allow_export,
            export_refused: None,
            cache_devices: false,
            l2arc_persistent: false,
        }
    }

    /// The record, the drops of the kernel's caches and the evictions of members' pages.
    fn run(c: &Cooler, z: &Fake) -> (ColdRecord, u32, u32) {
        let drops = Cell::new(0);
        let evicted = Cell::new(0);
        let r = c
            .cool_with(
                z,
                &|| {
                    drops.set(drops.get() + 1);
                    Ok(())
                },
                &|leaves| {
                    assert_eq!(leaves, ["/dev/loop3"]);
                    evicted.set(evicted.get() + 1);
                    Ok(())
                },
                &crate::base::progress::Silent,
            )
            .unwrap();
        (r, drops.get(), evicted.get())
    }

    #[test]
    fn off_zfs_the_caches_are_dropped() {
        let z = Fake {
            refuse: None,
            calls: RefCell::new(Vec::new()),
        };
        let (r, drops, evicted) = run(&cooler(None), &z);
        assert_eq!((r.method, drops, evicted), (ColdMethod::DropCaches, 1, 0));
        assert!(z.calls.borrow().is_empty());
    }

    #[test]
    fn on_zfs_with_consent_the_pool_is_exported_and_imported() {
        let _journals = crate::targets::zfs::Journals;
        let z = Fake {
            refuse: None,
            calls: RefCell::new(Vec::new()),
        };
        // The members' pages, not the whole page cache (the command's programs stay cached).
        let (r, drops, evicted) = run(&cooler(Some(facts(true))), &z);
        assert_eq!((r.method, drops, evicted), (ColdMethod::ExportImport, 0, 1));
        let calls = z.calls.borrow();
        assert!(calls.contains(&"export tpool-iolab-fake".to_string()), "{calls:?}");
        assert!(calls.iter().any(|c| c == "import -d /dev tpool-iolab-fake"), "{calls:?}");
    }

    #[test]
    fn without_consent_or_with_a_busy_pool_it_is_not_cold() {
        let _journals = crate::targets::zfs::Journals;
        let z = Fake {
            refuse: None,
            calls: RefCell::new(Vec::new()),
        };
        let (r, drops, evicted) = run(&cooler(Some(facts(false))), &z);
        // The kernel's caches are still dropped; the ARC is not emptied and the run says so.
        assert_eq!((r.method, drops, evicted), (ColdMethod::None, 1, 0));
        assert!(z.calls.borrow().is_empty());
        let busy = Fake {
            refuse: Some("cannot unmount '/tpool': Device or resource busy"),
            calls: RefCell::new(Vec::new()),
        };
        let (r, drops, evicted) = run(&cooler(Some(facts(true))), &busy);
        assert_eq!((r.method, drops, evicted), (ColdMethod::None, 1, 0));
        assert!(r.reason.unwrap().contains("busy"));
        assert!(!busy.calls.borrow().iter().any(|c| c.starts_with("import")));
    }
}
