//! Read jobs on a ZFS dataset: the facts [`crate::judge::zfs::choose`]
//! decides from (the pool's caches, the job's plan, what iolab may do),
//! and what it chose, done just before the job: dropping the kernel's
//! caches, exporting and importing the pool ([`crate::targets::zfs`]). The
//! choice is recorded with the job (`zfs_read`), and a figure no method
//! could make the disks' is labelled cached (`zfs_arc_cached`).

use crate::base::error::Result;
use crate::base::progress::{Event, Level, Observer};
use crate::device::{SysRoot, ZfsInfo};
use crate::judge::zfs::{Implementation, ReadFacts, ReadMethod, ZfsRead, choose, export_failed};
use crate::plan::{JobSpec, Limit, Repeat};
use crate::targets::Target;
use crate::targets::zfs::{Cycled, Reimport, Zpool, export_refusal};

/// Tries of an export that found the pool busy, [`BUSY_PAUSE`] apart.
const BUSY_TRIES: u32 = 5;
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

/// What iolab knows and may do about the ZFS pool under a target.
#[derive(Clone, Debug, PartialEq)]
pub struct ZfsSide {
    pub implementation: Implementation,
    pub pool: String,
    /// `iolab info`'s pool, when it found one.
    pub info: Option<ZfsInfo>,
    /// iolab may drop the kernel's caches (root).
    pub can_drop_caches: bool,
    /// `--allow-export`.
    pub allow_export: bool,
    /// Why the pool may not be exported even so.
    pub export_refused: Option<String>,
}

impl ZfsSide {
    /// For a target on a ZFS dataset (of either implementation); `None` elsewhere.
    pub fn of(target: &Target, allow_export: bool, sys: &SysRoot) -> Option<ZfsSide> {
        let fs = target.info.filesystem.as_ref()?;
        let implementation = Implementation::of_fstype(&fs.fstype)?;
        let info = target.info.info.as_ref().and_then(|r| r.zfs.clone());
        let pool = match &info {
            Some(z) => z.pool.clone(),
            None => fs.source.split('/').next().unwrap_or(&fs.source).to_string(),
        };
        let members_known = info.as_ref().is_some_and(|z| !z.leaves().is_empty());
        let export_refused = allow_export
            .then(|| export_refusal(&pool, &crate::device::mounts(sys), members_known, target.reopen_path().is_some()))
            .flatten();
        Some(ZfsSide {
            implementation,
            pool,
            info,
            can_drop_caches: super::cold::can_drop_caches(),
            allow_export,
            export_refused,
        })
    }

    /// The facts for a read job `spec`, repeated as `repeat`, over `span`
    /// bytes, in O_DIRECT (`direct`) or not.
    pub fn facts(&self, spec: &JobSpec, repeat: &Repeat, span: u64, direct: bool) -> ReadFacts {
        let z = self.info.as_ref();
        let runs = u64::from(repeat.runs.max());
        // Bytes the job moves in all, when its plan bounds them.
        // Bytes each run moves, when its plan bounds them.
        let per_run = match spec.limit {
            Limit::Time(_) => None,
            Limit::Bytes(b) => Some(b),
            Limit::Span => Some(span),
        };
        let total = match spec.limit {
            _ if repeat.steady_for(spec).is_some() => None,
            Limit::Time(_) => None,
            Limit::Bytes(b) => b.checked_mul(runs),
            Limit::Span => span.checked_mul(runs),
        };
        ReadFacts {
            implementation: self.implementation,
            pool: self.pool.clone(),
            arc_max: z.and_then(|z| z.arc_max_bytes),
            direct_io: direct && z.is_some_and(|z| z.direct_io_ignored == Some(false)),
            member_page_cache: z.and_then(|z| z.members_through_page_cache()),
            cache_devices: z.is_some_and(|z| z.vdevs.iter().any(|v| v.class == "cache")),
            l2arc_persistent: self.implementation == Implementation::OpenZfs
                && z.and_then(|z| z.version.as_deref())
                    .and_then(crate::device::major_minor)
                    .is_none_or(|(m, _)| m >= 2),
            span,
            reads_once: crate::judge::zfs::reads_once(!spec.rw.is_random(), !repeat.warmup.is_zero(), total, span),
            // One worker: a run that read at most its span read each byte once
            // (several sequential workers each stream through a part of it).
            runs_apart: repeat.steady_for(spec).is_none()
                && crate::measure::layout(spec).0 == 1
                && crate::judge::zfs::runs_apart(
                    !spec.rw.is_random(),
                    repeat.runs.max() + u32::from(!repeat.warmup.is_zero()),
                    per_run,
                    span,
                ),
            can_drop_caches: self.can_drop_caches,
            allow_export: self.allow_export,
            export_refused: self.export_refused.clone(),
        }
    }

    /// Before a job `spec` (repeated as `repeat`) that reads `span` bytes
    /// of `target`: choose and do ([`ZfsSide::prepare`]) with the live
    /// `zpool` and `drop_caches`. `None` for a job that does not read.
    pub fn before(&self, target: &Target, spec: &JobSpec, repeat: &Repeat, span: u64, observer: &dyn Observer) -> Result<Option<ZfsRead>> {
        if !spec.rw.reads() {
            return Ok(None);
        }
        let facts = self.facts(spec, repeat, span, spec.direct && target.info.direct);
        let zpool = crate::targets::zfs::LiveZpool;
        self.prepare(target, &facts, &spec.name, &zpool, &super::cold::drop_caches, observer)
            .map(Some)
    }

    /// Export and import the pool under `target` (and drop the kernel's
    /// caches while it is away, when `drop`): `Some(why)` when the export
    /// was refused (a busy pool), the pool then left as it was.
    pub fn cycle(&self, target: &Target, drop: bool, zpool: &dyn Zpool, drop_caches: &dyn Fn() -> Result<()>) -> Result<Option<String>> {
        let leaves: Vec<&str> = self.info.iter().flat_map(|z| z.leaves()).map(|v| v.name.as_str()).collect();
        let re = Reimport::of(zpool, &self.pool, &leaves);
        // A pass's engine that just closed can hold the file a moment longer
        // (an io_uring ring is torn down after close returns): a busy pool
        // is tried again before it counts as refused.
        for tries_left in (0..BUSY_TRIES).rev() {
            let mut dropped = Ok(());
            let cycled = target.cycle_pool(zpool, &re, || {
                if drop {
                    dropped = drop_caches();
                }
            })?;
            dropped?;
            match cycled {
                Cycled::Refused(why) if tries_left > 0 && why.contains("busy") => std::thread::sleep(BUSY_PAUSE),
                Cycled::Refused(why) => return Ok(Some(why)),
                Cycled::Done => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Before each pass of a job run apart ([`ReadMethod::ExportEachRun`])
    /// but the first: the same export and import. A refused export labels
    /// the figure cached from then on (`read`), and nothing more is exported.
    pub fn between_runs(&self, target: &Target, read: &mut ZfsRead, zpool: &dyn Zpool, drop_caches: &dyn Fn() -> Result<()>) -> Result<()> {
        if read.method != ReadMethod::ExportEachRun {
            return Ok(());
        }
        if let Some(why) = self.cycle(target, read.dropped_caches, zpool, drop_caches)? {
            *read = export_failed(read, &self.pool, &why);
        }
        Ok(())
    }

    /// Choose the method for the job `name` from `facts` and do it on
    /// `target`: drop the kernel's caches, export and import the pool. An
    /// export refused when tried (a busy pool) labels the figure instead.
    pub fn prepare(
        &self,
        target: &Target,
        facts: &ReadFacts,
        name: &str,
        zpool: &dyn Zpool,
        drop_caches: &dyn Fn() -> Result<()>,
        observer: &dyn Observer,
    ) -> Result<ZfsRead> {
        let mut read = choose(facts);
        if matches!(read.method, ReadMethod::ExportImport | ReadMethod::ExportEachRun) {
            observer.event(Event::Notice {
                level: Level::Note,
                text: &format!("exporting and importing pool {} to empty its ARC before \"{name}\"", self.pool),
            });
            if let Some(why) = self.cycle(target, read.dropped_caches, zpool, drop_caches)? {
                read = export_failed(&read, &self.pool, &why);
                if read.dropped_caches {
                    drop_caches()?;
                }
            }
        } else if read.dropped_caches {
            drop_caches()?;
        }
        if read.method == ReadMethod::Cached {
            observer.event(Event::Notice {
                level: Level::Warning,
                text: &format!(
                    "\"{name}\" reads from ZFS pool {} and its figure will be labelled cached: {}",
                    self.pool, read.reason
                ),
            });
        }
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Rw;
    use std::time::Duration;

    fn side(info: serde_json::Value) -> ZfsSide {
        ZfsSide {
            implementation: Implementation::ZfsFuse,
            pool: "tpool".into(),
            info: Some(serde_json::from_value(info).unwrap()),
            can_drop_caches: true,
            allow_export: true,
            export_refused: None,
        }
    }

    fn pool() -> serde_json::Value {
        serde_json::json!({
            "pool": "tpool", "dataset": "tpool", "state": "ONLINE", "source": "zpool status",
            "vdevs": [{"name": "mirror-0", "kind": "mirror", "class": "data", "state": "ONLINE", "children": [
                {"name": "/dev/loop3", "kind": "disk", "class": "data", "state": "ONLINE"},
                {"name": "/dev/loop4", "kind": "disk", "class": "data", "state": "ONLINE"}]}],
            "layout": "mirror", "compression": null, "arc_size_bytes": 1048576, "arc_max_bytes": 104857600,
            "version": null, "direct_io_ignored": null
        })
    }

    fn job(rw: Rw, limit: Limit) -> JobSpec {
        JobSpec::custom(crate::plan::Custom {
            rw,
            bs: 128 << 10,
            qd: 4,
            threads: 1,
            mix_read: 70,
            limit,
            direct: true,
            engine: crate::io::engine::EngineKind::IoUring,
        })
    }

    fn repeat(runs: u32, warmup: Duration) -> Repeat {
        Repeat::fixed(runs, warmup, Duration::ZERO)
    }

    #[test]
    fn one_sequential_pass_reads_once_and_a_timed_one_does_not() {
        let s = side(pool());
        let span = 96 << 20;
        let once = s.facts(&job(Rw::Read, Limit::Span), &repeat(1, Duration::ZERO), span, true);
        assert!(once.reads_once);
        assert_eq!(once.arc_max, Some(100 << 20));
        assert!(!once.direct_io && !once.cache_devices && !once.l2arc_persistent);
        assert_eq!(choose(&once).method, ReadMethod::ExportImport);
        // Twice the span, a warm-up, a time limit or random reads: not once.
        assert!(
            !s.facts(&job(Rw::Read, Limit::Span), &repeat(2, Duration::ZERO), span, true)
                .reads_once
        );
        assert!(
            !s.facts(&job(Rw::Read, Limit::Span), &repeat(1, Duration::from_secs(1)), span, true)
                .reads_once
        );
        let timed = s.facts(
            &job(Rw::Read, Limit::Time(Duration::from_secs(2))),
            &repeat(1, Duration::ZERO),
            span,
            true,
        );
        assert!(!timed.reads_once);
        // With --allow-export (as `side` has it) a timed run is run apart:
        // exported before it, and checked afterwards to have read at most its span.
        assert!(timed.runs_apart);
        assert_eq!(choose(&timed).method, ReadMethod::ExportEachRun);
        assert_eq!(
            choose(&ReadFacts {
                allow_export: false,
                ..timed.clone()
            })
            .method,
            ReadMethod::Cached
        );
        assert!(
            !s.facts(&job(Rw::Randread, Limit::Bytes(1 << 20)), &repeat(1, Duration::ZERO), span, true)
                .reads_once
        );
        assert!(
            s.facts(&job(Rw::Read, Limit::Bytes(48 << 20)), &repeat(2, Duration::ZERO), span, true)
                .reads_once
        );
    }

    #[test]
    fn openzfs_facts_direct_io_and_a_persistent_l2arc() {
        let mut info = pool();
        info["version"] = "2.3.1-1".into();
        info["direct_io_ignored"] = false.into();
        info["vdevs"].as_array_mut().unwrap().push(serde_json::json!(
            {"name": "/dev/nvme0n1", "kind": "disk", "class": "cache", "state": "ONLINE"}
        ));
        let s = ZfsSide {
            implementation: Implementation::OpenZfs,
            ..side(info)
        };
        let f = s.facts(
            &job(Rw::Randread, Limit::Time(Duration::from_secs(2))),
            &repeat(3, Duration::ZERO),
            1 << 30,
            true,
        );
        assert!(f.direct_io && f.cache_devices && f.l2arc_persistent);
        assert_eq!(choose(&f).method, ReadMethod::DirectIo);
        // Buffered: the ARC again.
        assert!(
            !s.facts(&job(Rw::Randread, Limit::Span), &repeat(1, Duration::ZERO), 1 << 30, false)
                .direct_io
        );
        assert_eq!(crate::device::major_minor("zfs-0.8.3"), Some((0, 8)));
    }

    /// A `zpool` that answers every command (or refuses the export), and records them.
    struct Fake {
        calls: std::cell::RefCell<Vec<String>>,
        busy: bool,
    }

    impl Zpool for Fake {
        fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
            self.calls.borrow_mut().push(args.join(" "));
            match args[0] {
                "export" if self.busy => Err("cannot unmount '/tpool': pool or dataset is busy".into()),
                "get" => Ok(format!("tpool {} - default\n", args[1])),
                _ => Ok(String::new()),
            }
        }
    }

    /// What was chosen and done, the `zpool` commands run and how often the
    /// kernel's caches were dropped, for a target file of 1 MiB.
    fn prepared(facts: &ReadFacts, busy: bool) -> (ZfsRead, Vec<String>, u32) {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("data");
        std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
        let req = crate::targets::OpenRequest {
            path: file,
            size: None,
            write: false,
            allow_destroy: false,
            force: false,
            buffered: false,
            max_bs: 4096,
            continue_on_error: false,
            allow_export: true,
        };
        let sys = SysRoot::default();
        let t = crate::targets::open(&req, &sys, &crate::base::signals::Stop::default(), &crate::base::progress::Silent).unwrap();
        let zpool = Fake {
            calls: Default::default(),
            busy,
        };
        let drops = std::cell::Cell::new(0);
        let drop = || {
            drops.set(drops.get() + 1);
            Ok(())
        };
        let s = side(pool());
        let mut r = s
            .prepare(&t, facts, "SEQ128K read", &zpool, &drop, &crate::base::progress::Silent)
            .unwrap();
        // A job run apart: two more passes, each after an export and import.
        for _ in 0..2 {
            s.between_runs(&t, &mut r, &zpool, &drop).unwrap();
        }
        (r, zpool.calls.into_inner(), drops.get())
    }

    /// Issue 37: a sequential read of several timed runs is run apart, the
    /// pool exported and imported before each pass; a busy pool mid-job
    /// labels it cached and nothing more is tried.
    #[test]
    fn issue_37_timed_sequential_runs_are_cycled_before_each_pass() {
        let _journals = crate::targets::zfs::Journals;
        let s = side(pool());
        let timed = s.facts(
            &job(Rw::Read, Limit::Time(Duration::from_secs(2))),
            &repeat(3, Duration::ZERO),
            96 << 20,
            true,
        );
        assert!(timed.runs_apart && !timed.reads_once);
        let (r, calls, drops) = prepared(&timed, false);
        assert_eq!((r.method, r.dropped_caches, drops), (ReadMethod::ExportEachRun, true, 3));
        assert_eq!(calls.iter().filter(|c| c.starts_with("export")).count(), 3, "{calls:?}");
        assert_eq!(calls.iter().filter(|c| c.starts_with("import")).count(), 3, "{calls:?}");
        // Busy from the start: labelled at once, exports tried 5 times, never again.
        let (r, calls, _) = prepared(&timed, true);
        assert_eq!(r.method, ReadMethod::Cached);
        assert_eq!(calls.iter().filter(|c| c.starts_with("export")).count(), 5, "{calls:?}");
        // Random reads re-read within a run: not run apart.
        let random = s.facts(
            &job(Rw::Randread, Limit::Time(Duration::from_secs(2))),
            &repeat(3, Duration::ZERO),
            96 << 20,
            true,
        );
        assert!(!random.runs_apart);
    }

    #[test]
    fn what_was_chosen_is_done_before_the_job() {
        let _journals = crate::targets::zfs::Journals;
        let s = side(pool());
        let once = s.facts(&job(Rw::Read, Limit::Span), &repeat(1, Duration::ZERO), 96 << 20, true);
        // The pool exported and imported, the kernel's caches dropped while it was away.
        let (r, calls, drops) = prepared(&once, false);
        assert_eq!((r.method, r.dropped_caches, drops), (ReadMethod::ExportImport, true, 1));
        assert_eq!(
            calls,
            [
                "get guid tpool",
                "get cachefile tpool",
                "get altroot tpool",
                "export tpool",
                "import -d /dev tpool"
            ]
        );
        // A busy pool: labelled, and the caches dropped all the same.
        let (r, calls, drops) = prepared(&once, true);
        assert_eq!((r.method, drops), (ReadMethod::Cached, 1));
        assert!(r.reason.contains("pool or dataset is busy"), "{}", r.reason);
        assert!(!calls.iter().any(|c| c.starts_with("import")));
        // A job that reads its span again: labelled, nothing exported.
        let timed = s.facts(
            &job(Rw::Randread, Limit::Time(Duration::from_secs(2))),
            &repeat(3, Duration::ZERO),
            96 << 20,
            true,
        );
        let (r, calls, drops) = prepared(&timed, false);
        assert_eq!((r.method, drops), (ReadMethod::Cached, 1));
        assert!(calls.is_empty());
        // Without root nothing is dropped.
        let (r, _, drops) = prepared(
            &ReadFacts {
                can_drop_caches: false,
                ..timed
            },
            false,
        );
        assert_eq!((r.dropped_caches, drops), (false, 0));
    }
}
