//! What makes a timed command or an app-suite phase cold (`--cold`), and
//! when it is not. Elsewhere dropping the kernel's caches is enough; on ZFS
//! it is not (the ARC is ZFS's own and `drop_caches` leaves it), so the one
//! way is an export and import of the pool, done only with the user's
//! consent (`--allow-export`). A run that could not be made cold says so
//! (`not_cold`), never silently warm. Pure: the experiment does what
//! [`plan`] says and reports with [`after_export`].

use super::diagnostic::{Code, Diagnostic};
use super::zfs::Implementation;
use crate::samples::{ColdMethod, ColdRecord};

/// What iolab knows and may do about the ZFS pool under a directory.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolFacts {
    pub implementation: Implementation,
    pub pool: String,
    /// `--allow-export`.
    pub allow_export: bool,
    /// Why the pool may not be exported even so (it holds `/`, its members are unknown).
    pub export_refused: Option<String>,
    /// The pool has cache devices (L2ARC).
    pub cache_devices: bool,
    /// Its L2ARC keeps its contents across an import (OpenZFS ≥ 2.0).
    pub l2arc_persistent: bool,
}

fn record(method: ColdMethod, reason: impl Into<String>) -> ColdRecord {
    ColdRecord {
        method,
        reason: Some(reason.into()),
    }
}

/// How to empty the caches before a cold run on a directory of `pool`
/// (`None`: not on ZFS): `drop_caches`, an export and import (to be tried,
/// then reported with [`after_export`]), or nothing (`none`, with why).
pub fn plan(pool: Option<&PoolFacts>) -> ColdRecord {
    let Some(p) = pool else {
        return ColdRecord {
            method: ColdMethod::DropCaches,
            reason: None,
        };
    };
    if !p.allow_export {
        return record(
            ColdMethod::None,
            format!(
                "on ZFS pool {}, dropping the kernel's caches leaves the ARC full, and emptying it needs an export and import of the pool (--allow-export: its mounts disappear for a moment)",
                p.pool
            ),
        );
    }
    if let Some(why) = &p.export_refused {
        return record(ColdMethod::None, format!("pool {} is not exported to empty its ARC: {why}", p.pool));
    }
    record(
        ColdMethod::ExportImport,
        format!(
            "pool {} exported and imported (its ARC emptied, its mounts' cached pages with them), its members' cached pages dropped meanwhile",
            p.pool
        ),
    )
}

/// What an export and import planned by [`plan`] made of the run: `Err`
/// holds `zpool export`'s refusal (a busy pool, files held open).
pub fn after_export(p: &PoolFacts, planned: ColdRecord, exported: Result<(), String>) -> ColdRecord {
    match exported {
        Err(why) => record(
            ColdMethod::None,
            format!("`zpool export {}` failed ({why}), so the ARC kept what it held", p.pool),
        ),
        Ok(()) if p.cache_devices && p.l2arc_persistent => record(
            ColdMethod::None,
            format!(
                "pool {} was exported and imported, but its cache devices keep their contents across an import (persistent L2ARC, OpenZFS 2.0 and later), so reads may come from them",
                p.pool
            ),
        ),
        Ok(()) => planned,
    }
}

/// The record of a report from its runs' (oldest first): their common
/// method, or the first run that was not cold (`run K of N: …`).
pub fn summarize(runs: &[Option<&ColdRecord>]) -> Option<ColdRecord> {
    let known: Vec<(usize, &ColdRecord)> = runs.iter().enumerate().filter_map(|(k, r)| r.map(|r| (k, r))).collect();
    let (_, first) = known.first()?;
    if known.iter().all(|(_, r)| r.method == first.method) {
        return Some((*first).clone());
    }
    let (k, cold_not) = known.iter().find(|(_, r)| r.method == ColdMethod::None)?;
    Some(ColdRecord {
        method: ColdMethod::None,
        reason: Some(format!(
            "run {} of {}: {}",
            k + 1,
            runs.len(),
            cold_not.reason.as_deref().unwrap_or("not cold")
        )),
    })
}

/// `not_cold`: `--cold` was asked for and some of `runs` (`what`: "runs",
/// "phase clone") were not made cold.
pub fn not_cold(what: &str, runs: &[Option<&ColdRecord>]) -> Option<Diagnostic> {
    let warm: Vec<&ColdRecord> = runs.iter().flatten().copied().filter(|r| r.method == ColdMethod::None).collect();
    let first = warm.first()?;
    Some(Diagnostic::new(
        Code::NotCold,
        format!(
            "NOT COLD: {} of {} {what} ran with caches that may answer: {}",
            warm.len(),
            runs.len(),
            first.reason.as_deref().unwrap_or("nothing emptied them")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> PoolFacts {
        PoolFacts {
            implementation: Implementation::ZfsFuse,
            pool: "tpool".into(),
            allow_export: true,
            export_refused: None,
            cache_devices: false,
            l2arc_persistent: false,
        }
    }

    #[test]
    fn off_zfs_drop_caches_is_enough() {
        assert_eq!(plan(None).method, ColdMethod::DropCaches);
    }

    #[test]
    fn on_zfs_only_an_allowed_export_makes_it_cold() {
        let p = pool();
        let planned = plan(Some(&p)).method;
        assert_eq!(planned, ColdMethod::ExportImport);
        let no = PoolFacts {
            allow_export: false,
            ..pool()
        };
        let r = plan(Some(&no));
        assert_eq!(r.method, ColdMethod::None);
        assert!(r.reason.unwrap().contains("--allow-export"));
        let root = PoolFacts {
            export_refused: Some("it holds the root filesystem".into()),
            ..pool()
        };
        let r = plan(Some(&root));
        assert_eq!(r.method, ColdMethod::None);
        assert!(r.reason.unwrap().contains("root filesystem"));
    }

    #[test]
    fn a_busy_pool_or_a_persistent_l2arc_is_not_cold() {
        let p = pool();
        let planned = plan(Some(&p));
        assert_eq!(after_export(&p, planned.clone(), Ok(())), planned);
        let busy = after_export(&p, planned.clone(), Err("pool is busy".into()));
        assert_eq!(busy.method, ColdMethod::None);
        assert!(busy.reason.unwrap().contains("pool is busy"));
        let l2 = PoolFacts {
            cache_devices: true,
            l2arc_persistent: true,
            ..pool()
        };
        let r = after_export(&l2, plan(Some(&l2)), Ok(()));
        assert_eq!(r.method, ColdMethod::None);
        assert!(r.reason.unwrap().contains("persistent L2ARC"));
        // zfs-fuse's (or an old OpenZFS's) cache device is emptied by the import.
        let old = PoolFacts {
            cache_devices: true,
            ..pool()
        };
        assert_eq!(after_export(&old, plan(Some(&old)), Ok(())).method, ColdMethod::ExportImport);
    }

    #[test]
    fn one_warm_run_makes_the_record_and_the_warning() {
        let p = pool();
        let cold = plan(Some(&p));
        let warm = after_export(&p, cold.clone(), Err("pool is busy".into()));
        let runs = [Some(&cold), Some(&warm), Some(&cold)];
        let s = summarize(&runs).unwrap();
        assert_eq!(s.method, ColdMethod::None);
        assert!(s.reason.unwrap().starts_with("run 2 of 3: "));
        let w = not_cold("runs", &runs).unwrap();
        assert_eq!(w.code, Code::NotCold);
        assert!(w.message.starts_with("NOT COLD: 1 of 3 runs"), "{}", w.message);
        assert_eq!(summarize(&[Some(&cold), Some(&cold)]), Some(cold.clone()));
        assert!(not_cold("runs", &[Some(&cold)]).is_none());
        assert!(summarize(&[None, None]).is_none());
    }
}
