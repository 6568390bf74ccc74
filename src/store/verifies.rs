//! The store's query for `iolab capacity`: the verify runs kept earlier,
//! each with its device's identity (a failed one vetoes "genuine" on its
//! device, [`crate::judge::capacity`]).

use super::Store;
use crate::judge::capacity::EarlierVerify;
use std::path::Path;

/// The earlier verify runs, and the warning to give when the store could
/// not be read (the probe goes on without them).
#[derive(Debug, Default)]
pub struct EarlierVerifies {
    pub runs: Vec<EarlierVerify>,
    pub warning: Option<String>,
}

impl Store {
    /// Every stored verify run that names its device, oldest first.
    pub fn earlier_verifies(&self) -> super::Result<Vec<EarlierVerify>> {
        Ok(self
            .runs_of_kind("verify")?
            .iter()
            .filter_map(|r| {
                let v = r.verify()?;
                Some(EarlierVerify {
                    run_id: r.run_id?,
                    started_at: r.started_at.clone(),
                    device: v.device.clone()?,
                    verdict: v.summary.verdict,
                    message: v.summary.message.clone(),
                })
            })
            .collect())
    }
}

/// The verify runs in the store at `db`. The store is opened (made if
/// missing), except an in-memory one, or a missing one with `--no-store`
/// (then there are none); one that cannot be read gives a warning.
pub fn earlier_verifies(db: &Path, no_store: bool) -> EarlierVerifies {
    if db.as_os_str() == ":memory:" || (no_store && !db.exists()) {
        return EarlierVerifies::default();
    }
    match Store::open(db).and_then(|s| s.earlier_verifies()) {
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
