//! The store's query of `iolab flush --check` runs (issue 37): each kept
//! check with its device and verdict, for the verdicts that rest on whether
//! a device keeps what a flush acknowledged (a log device's fitness in
//! `compare`). Flush runs are few: their documents are read, no table of
//! their own.

use super::Store;
use crate::summary::Report;
use crate::verify::flush::FlushVerdict;

/// A stored `iolab flush --check`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlushCheck {
    /// The stored run.
    pub run_id: i64,
    pub started_at: String,
    /// The device, as [`device_identity`](crate::summary::verify::device_identity) names it.
    pub device: Option<String>,
    pub verdict: FlushVerdict,
    /// Acknowledged blocks lost.
    pub lost_blocks: u64,
    /// The verdict in a sentence.
    pub message: String,
    /// The log's writer did not end it itself: a power cut (or a crash)
    /// stopped it, so the check is evidence about the flush.
    pub after_a_cut: bool,
}

impl FlushCheck {
    /// The day of the check, `YYYY-MM-DD` (runs start in UTC, RFC 3339).
    pub fn date(&self) -> &str {
        self.started_at.get(..10).unwrap_or(&self.started_at)
    }
}

impl Store {
    /// The latest stored power-cut check of `device` (as
    /// [`device_identity`](crate::summary::verify::device_identity) names
    /// it) that judged something: its [`date`](FlushCheck::date) and its
    /// [`lost_blocks`](FlushCheck::lost_blocks) (0: honest) are what
    /// `compare`'s verdict on a log device (SLOG) rests on. A check whose
    /// log held no acknowledged generation, or whose writer ended its log
    /// itself (no power was cut), is no evidence and is skipped.
    pub fn latest_power_cut_check(&self, device: &str) -> super::Result<Option<FlushCheck>> {
        Ok(self
            .flush_checks()?
            .into_iter()
            .rev()
            .find(|c| c.device.as_deref() == Some(device) && c.after_a_cut && c.verdict != FlushVerdict::NothingAcknowledged))
    }

    /// Every stored flush check, oldest first; a document this version
    /// cannot read is skipped, as elsewhere.
    pub fn flush_checks(&self) -> super::Result<Vec<FlushCheck>> {
        let mut st = self
            .conn
            .prepare("SELECT id, started_at, document FROM runs WHERE kind = 'flush' ORDER BY id")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (run_id, started_at, doc) = row.map_err(|e| self.err(e))?;
            let Ok(report) = serde_json::from_str::<Report>(&doc) else {
                continue;
            };
            let Some(f) = report.flush() else { continue };
            let Some(x) = &f.findings else { continue };
            out.push(FlushCheck {
                run_id,
                started_at,
                device: f.device.clone(),
                verdict: x.verdict,
                lost_blocks: x.lost_blocks,
                message: x.message.clone(),
                after_a_cut: f.after_a_cut(),
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::Body;
    use crate::summary::flush_check::{FlushAction, FlushReport};
    use crate::summary::tests::fixtures;
    use crate::verify::Class;
    use crate::verify::flush::{Expect, FlushPlan, FlushTally, Found};
    use std::path::Path;

    /// A flush run on `device`: a write (no findings), or a check that lost `lost` blocks of 8.
    fn flush_run(device: &str, check: Option<u64>) -> Report {
        let plan = FlushPlan::new(64 << 20, 1 << 20).unwrap();
        let findings = check.map(|lost| {
            let mut t = FlushTally::new();
            let ex = Expect {
                acked: Some(3),
                in_flight: None,
            };
            for k in 0..8u64 {
                let f = if k < lost { Found::Other(Class::Blank) } else { Found::Ours(3) };
                t.push(k * 4096, ex, f);
            }
            t.summary(Some(3))
        });
        let mut r = fixtures::report("h", None, &[]);
        r.command = "flush".into();
        r.body = Body::Flush(FlushReport {
            action: if check.is_some() { FlushAction::Check } else { FlushAction::Write },
            log: "/root/f.log".into(),
            pass: 1,
            plan,
            enough_generations: plan.enough_generations(),
            acknowledged_generations: 4,
            write_s: None,
            flush_times: None,
            device_error: None,
            torn_tail: false,
            findings,
            device: Some(device.into()),
            writer_ended: None,
        });
        r
    }

    #[test]
    fn the_stored_flush_checks_with_their_devices_and_verdicts() {
        let mut st = Store::open(Path::new(":memory:")).unwrap();
        st.save(&fixtures::report("h", None, &[fixtures::J::read("SEQ1M", &[1e8])]), None, &[], true)
            .unwrap();
        st.save(&flush_run("serial:A", None), None, &[], true).unwrap();
        let honest = st.save(&flush_run("serial:A", Some(0)), None, &[], true).unwrap();
        let lied = st.save(&flush_run("serial:B", Some(3)), None, &[], true).unwrap();
        let got = st.flush_checks().unwrap();
        let seen: Vec<(i64, &str, FlushVerdict, u64)> = got
            .iter()
            .map(|c| (c.run_id, c.device.as_deref().unwrap(), c.verdict, c.lost_blocks))
            .collect();
        assert_eq!(
            seen,
            vec![
                (honest, "serial:A", FlushVerdict::Honest, 0),
                (lied, "serial:B", FlushVerdict::Lied, 3)
            ],
            "the checks only, oldest first"
        );
        assert!(got[1].message.starts_with("the flush lied: 3 block(s)"), "{}", got[1].message);
    }

    /// Issue 37: `compare`'s SLOG verdict asks for a device's latest check:
    /// its day and the acknowledged blocks it lost.
    #[test]
    fn the_latest_power_cut_check_of_a_device() {
        let mut st = Store::open(Path::new(":memory:")).unwrap();
        let mut at = |r: Report, day: &str| {
            let mut r = r;
            r.started_at = format!("{day}T10:00:00Z");
            st.save(&r, None, &[], true).unwrap()
        };
        at(flush_run("serial:A", Some(2)), "2026-12-01");
        let honest = at(flush_run("serial:A", Some(0)), "2026-12-03");
        at(flush_run("serial:A", None), "2026-12-04");
        at(flush_run("serial:B", Some(5)), "2026-12-05");
        // A later check of a log whose writer ended it itself: no power cut, no evidence.
        let mut clean = flush_run("serial:A", Some(0));
        if let Body::Flush(f) = &mut clean.body {
            f.writer_ended = Some("done".into());
        }
        at(clean, "2026-12-06");
        let c = st.latest_power_cut_check("serial:A").unwrap().expect("a check of A");
        assert_eq!((c.run_id, c.date(), c.lost_blocks), (honest, "2026-12-03", 0));
        let b = st.latest_power_cut_check("serial:B").unwrap().unwrap();
        assert_eq!((b.date(), b.lost_blocks, b.verdict), ("2026-12-05", 5, FlushVerdict::Lied));
        assert_eq!(st.latest_power_cut_check("serial:C").unwrap(), None);
    }
}
