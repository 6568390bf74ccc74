//! The store's query for `iolab capacity`: the verify runs kept earlier,
//! each with its device's identity (a failed one vetoes "genuine" on its
//! device, [`crate::judge::capacity`]).

use super::Store;
use crate::judge::capacity::EarlierVerify;
use crate::summary::Report;
use std::path::Path;

/// The earlier verify runs, and the warning to give when the store could
/// not be read (the probe goes on without them).
#[derive(Debug, Default)]
pub struct EarlierVerifies {
    pub runs: Vec<EarlierVerify>,
    pub warning: Option<String>,
}

impl Store {
    /// Every stored verify run that names its device, oldest first: read
    /// from the `verifies` table (one small row per verify run), so the cost
    /// does not grow with the store's other runs and no document is parsed.
    pub fn earlier_verifies(&self) -> super::Result<Vec<EarlierVerify>> {
        self.verifies_where("", [])
    }

    /// The stored verify runs of one device identity
    /// ([`device_identity`](crate::summary::verify::device_identity)), oldest first.
    pub fn earlier_verifies_of(&self, device: &str) -> super::Result<Vec<EarlierVerify>> {
        self.verifies_where("WHERE v.device = ?1", [device])
    }

    fn verifies_where<P: rusqlite::Params>(&self, clause: &str, args: P) -> super::Result<Vec<EarlierVerify>> {
        let sql = format!(
            "SELECT v.run_id, r.started_at, v.device, v.verdict, v.message FROM verifies v JOIN runs r ON r.id = v.run_id {clause} ORDER BY v.run_id"
        );
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(args, |r| {
                let verdict: String = r.get(3)?;
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, verdict, r.get(4)?))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (run_id, started_at, device, verdict, message) = row.map_err(|e| self.err(e))?;
            // A verdict this version cannot read (a newer iolab's) is skipped,
            // as a document it cannot read is.
            if let Ok(verdict) = serde_json::from_str(&verdict) {
                out.push(EarlierVerify {
                    run_id,
                    started_at,
                    device,
                    verdict,
                    message,
                });
            }
        }
        Ok(out)
    }
}

/// A verify run that names its device: its row in `verifies` (at save time
/// and in the v3 backfill).
pub(super) fn insert_verify(tx: &rusqlite::Transaction, id: i64, report: &Report) -> rusqlite::Result<()> {
    let Some(v) = report.verify() else { return Ok(()) };
    let Some(device) = &v.device else { return Ok(()) };
    let verdict = serde_json::to_string(&v.summary.verdict).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    tx.prepare_cached("INSERT OR REPLACE INTO verifies (run_id, device, verdict, message) VALUES (?1, ?2, ?3, ?4)")?
        .execute(rusqlite::params![id, device, verdict, v.summary.message])?;
    Ok(())
}

/// The verify runs in the store at `db`. The store is opened (made if
/// missing), except an in-memory one, or a missing one with `--no-store`
/// (then there are none); one that cannot be read gives a warning.
pub fn earlier_verifies(db: &Path, no_store: bool) -> EarlierVerifies {
    if db.as_os_str() == ":memory:" || (no_store && !db.exists()) {
        return EarlierVerifies::default();
    }
    match Store::open_read(db).and_then(|s| s.earlier_verifies()) {
        Ok(runs) => EarlierVerifies { runs, warning: None },
        Err(e) => EarlierVerifies {
            runs: Vec::new(),
            warning: Some(format!(
                "WARNING: cannot read earlier verify runs ({e}): one that found this device lying cannot veto \"genuine\""
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::Body;
    use crate::summary::tests::fixtures;
    use crate::summary::verify::{VerifyLayout, VerifyReport};
    use crate::verify::{BlockState, VerifyTally};

    /// A verify run of 1 MiB on `device`: every block good, or one corrupted.
    fn verify_run(device: Option<&str>, corrupt: bool) -> crate::summary::Report {
        let mut t = VerifyTally::new();
        t.push_blocks(0, 256, BlockState::Good);
        if corrupt {
            t.push(256 * 4096, BlockState::Garbage);
        }
        let mut r = fixtures::report("h", None, &[]);
        r.command = "verify".into();
        r.body = Body::Verify(VerifyReport {
            pass: 1,
            bs: 1 << 20,
            planned_bytes: 1 << 20,
            written_bytes: 1 << 20,
            layout: VerifyLayout::Device,
            direct: true,
            cold_wait_s: None,
            write_s: 0.1,
            read_s: 0.1,
            write_errors: 0,
            first_write_error: None,
            zones: Vec::new(),
            write_drop: None,
            read_drop: None,
            summary: t.summary(),
            device: device.map(str::to_string),
        });
        r
    }

    #[test]
    fn earlier_verifies_are_the_stored_verify_runs_that_name_their_device() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        // No store yet: with --no-store there is none to read, and none is made.
        assert!(earlier_verifies(&db, true).runs.is_empty());
        assert!(!db.exists());
        // A store without verify runs: none, and no warning.
        let mut st = Store::open(&db).unwrap();
        st.save(&fixtures::report("h", None, &[fixtures::J::read("SEQ1M", &[1e8])]), None, &[], true)
            .unwrap();
        let got = earlier_verifies(&db, false);
        assert!(got.runs.is_empty() && got.warning.is_none(), "{got:?}");
        // Verify runs: each that names its device, with its id and verdict.
        let clean = st.save(&verify_run(Some("usb:A:1"), false), None, &[], true).unwrap();
        st.save(&verify_run(None, true), None, &[], true).unwrap();
        let bad = st.save(&verify_run(Some("usb:B:1"), true), None, &[], true).unwrap();
        let got = earlier_verifies(&db, true);
        assert!(got.warning.is_none());
        let runs: Vec<(i64, &str, bool)> = got
            .runs
            .iter()
            .map(|v| (v.run_id, v.device.as_str(), v.verdict == crate::verify::Verdict::Clean))
            .collect();
        assert_eq!(runs, vec![(clean, "usb:A:1", true), (bad, "usb:B:1", false)]);
        // An in-memory store has none.
        assert!(earlier_verifies(Path::new(":memory:"), false).runs.is_empty());
        // One device's, and none left of a deleted run.
        let of_b: Vec<i64> = st.earlier_verifies_of("usb:B:1").unwrap().iter().map(|v| v.run_id).collect();
        assert_eq!(of_b, [bad]);
        assert!(st.earlier_verifies_of("usb:C:1").unwrap().is_empty());
        st.delete(bad).unwrap();
        assert!(st.earlier_verifies_of("usb:B:1").unwrap().is_empty());
    }

    /// A store of schema v2 keeps its verify runs' verdicts for `capacity`:
    /// the v3 step fills the table from their documents.
    #[test]
    fn the_v3_step_backfills_the_verify_runs() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        {
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch(super::super::MIGRATIONS[0]).unwrap();
            c.execute_batch(super::super::MIGRATIONS[1]).unwrap();
            c.pragma_update(None, "user_version", 2).unwrap();
            for (kind, r) in [("verify", verify_run(Some("usb:A:1"), true)), ("verify", verify_run(None, true))] {
                c.execute(
                    "INSERT INTO runs (started_at, saved_at, kind, target, label, complete, host, kernel, iolab_version, document)
                     VALUES ('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', ?1, '/x', NULL, 1, 'h', 'k', '0.2.0', ?2)",
                    [kind, &serde_json::to_string(&r).unwrap()],
                )
                .unwrap();
            }
        }
        let got = earlier_verifies(&db, false);
        assert!(got.warning.is_none(), "{got:?}");
        let runs: Vec<(i64, &str)> = got.runs.iter().map(|v| (v.run_id, v.device.as_str())).collect();
        assert_eq!(runs, [(1, "usb:A:1")]);
    }

    /// The verify table is all the lookup reads: a stored document that no
    /// longer parses does not hide its run's verdict, and the other runs'
    /// documents are never read.
    #[test]
    fn earlier_verifies_read_no_document() {
        let mut st = Store::open(Path::new(":memory:")).unwrap();
        let bad = st.save(&verify_run(Some("usb:B:1"), true), None, &[], true).unwrap();
        st.conn.execute("UPDATE runs SET document = 'not a document'", []).unwrap();
        let got = st.earlier_verifies().unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].run_id, got[0].device.as_str()), (bad, "usb:B:1"));
        assert_ne!(got[0].verdict, crate::verify::Verdict::Clean);
        assert_eq!(got[0].started_at, "2026-01-01T00:00:00Z");
    }

    #[test]
    fn an_unreadable_store_is_a_warning_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("r.db");
        std::fs::write(&db, b"not an SQLite file, and long enough to be read as one: ........................................................................................................").unwrap();
        let got = earlier_verifies(&db, false);
        assert!(got.runs.is_empty());
        let w = got.warning.expect("a warning");
        assert!(
            w.starts_with("WARNING: cannot read earlier verify runs (") && w.contains("veto \"genuine\""),
            "{w}"
        );
    }
}
