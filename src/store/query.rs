//! `iolab list` as one SQL query: the filters (`--label`, `--tag`,
//! `--device`, `--since`) and the page (`--limit`, `--offset`) in its
//! WHERE and LIMIT, each run's tags gathered in the same query, and no
//! document read. Also what the filters need kept beside the document: each
//! run's device names, written at save time and backfilled by schema step v3.

use super::{Result, RunSummary, Store};
use crate::summary::Report;
use rusqlite::types::Value;
use std::collections::BTreeSet;

/// Filters of `iolab list`; every one given must hold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Substring of the label (case-sensitive).
    pub label: Option<String>,
    /// Every one of these `key=value` tags must be present.
    pub tags: Vec<(String, String)>,
    /// A device of the run: a kernel name (`sdb`, `loop3`; `/dev/` may
    /// lead), a model or a serial, as the run's document names them.
    pub device: Option<String>,
    /// Runs started at or after this UTC time, `YYYY-MM-DDTHH:MM:SS`
    /// ([`parse_since`]).
    pub since: Option<String>,
    /// Which runs of those kept: all of them by default.
    pub page: Page,
}

/// `--limit N --offset M`: at most `limit` runs (None: all), after skipping
/// the first `offset`, in id order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Page {
    pub limit: Option<u64>,
    pub offset: u64,
}

/// `--since`: an RFC 3339 date (`2026-01-31`, midnight UTC) or date and time
/// (`2026-01-31T12:00:00Z`, `2026-01-31 12:00:00`; UTC), or a time ago
/// (`7d`, `12h`, `1h 30m`, `2weeks`). Gives the instant as
/// `YYYY-MM-DDTHH:MM:SS` (UTC), which a stored `started_at` at or after it
/// sorts at or after.
pub fn parse_since(s: &str) -> std::result::Result<String, String> {
    parse_since_at(s, std::time::SystemTime::now())
}

/// [`parse_since`] with "now" given.
pub fn parse_since_at(s: &str, now: std::time::SystemTime) -> std::result::Result<String, String> {
    let t = s.trim();
    let bad = || format!("'{s}' is not a date (2026-01-31), a UTC date and time (2026-01-31T12:00:00Z) or a time ago (7d, 12h)");
    let at = if t.as_bytes().first().is_some_and(|b| b.is_ascii_digit()) && t.contains('-') {
        let full = if t.len() == 10 { format!("{t}T00:00:00Z") } else { t.to_string() };
        humantime::parse_rfc3339_weak(&full).map_err(|_| bad())?
    } else {
        let ago = humantime::parse_duration(t).map_err(|_| bad())?;
        now.checked_sub(ago).ok_or_else(bad)?
    };
    let secs = at
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| format!("'{s}' is before 1970"))?
        .as_secs();
    let stamp = crate::base::units::rfc3339(secs);
    Ok(stamp.trim_end_matches('Z').to_string())
}

/// The names a run's devices go by in `--device`: each device's kernel name
/// (and a target given as `/dev/NAME`), and the models, serials and WWIDs
/// the document knows (empty ones left out).
pub(super) fn device_names(report: &Report) -> BTreeSet<String> {
    let t = &report.target;
    let mut out = BTreeSet::new();
    let mut add = |s: Option<&str>| {
        if let Some(s) = s.map(str::trim).filter(|s| !s.is_empty()) {
            out.insert(s.to_string());
        }
    };
    // A device node given as the target (an imported fio job's filename
    // too, whose document knows no devices): its name.
    if let Some(node) = t.path.strip_prefix("/dev/").filter(|n| !n.is_empty() && !n.contains('/')) {
        add(Some(node));
    }
    for d in &t.devices {
        add(Some(&d.name));
        add(d.partition_of.as_deref());
        add(d.model.as_deref());
    }
    for f in t.info.iter().flat_map(|i| &i.devices) {
        add(Some(&f.name));
        add(f.model.as_deref());
        add(f.serial.as_deref());
        add(f.wwid.as_deref());
    }
    out
}

pub(super) fn insert_devices(tx: &rusqlite::Transaction, id: i64, report: &Report) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("INSERT OR IGNORE INTO run_devices (run_id, name) VALUES (?1, ?2)")?;
    for n in device_names(report) {
        st.execute(rusqlite::params![id, n])?;
    }
    super::verifies::insert_verify(tx, id, report)
}

/// v2 → v3: fill the device and verify tables from the stored documents.
pub(super) fn backfill_devices(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    let mut st = tx.prepare("SELECT id, document FROM runs")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let doc: String = r.get(1)?;
        // A document this version cannot read keeps its run without device rows.
        if let Ok(report) = serde_json::from_str::<Report>(&doc) {
            insert_devices(tx, id, &report)?;
        }
    }
    Ok(())
}

/// The query and its parameters for `filter`.
fn list_sql(filter: &Filter) -> (String, Vec<Value>) {
    let mut sql = String::from(
        "SELECT r.id, r.label, r.started_at, r.kind, r.target, r.complete,
            (SELECT json_group_array(json_array(t.key, t.value) ORDER BY t.key) FROM tags t WHERE t.run_id = r.id)
         FROM runs r WHERE 1",
    );
    let mut args: Vec<Value> = Vec::new();
    let mut arg = |sql: &mut String, clause: &str, v: Value| {
        args.push(v);
        sql.push_str(&clause.replace('?', &format!("?{}", args.len())));
    };
    if let Some(l) = &filter.label {
        arg(&mut sql, " AND instr(r.label, ?) > 0", Value::Text(l.clone()));
    }
    for (k, v) in &filter.tags {
        arg(
            &mut sql,
            " AND r.id IN (SELECT run_id FROM tags WHERE key = ?",
            Value::Text(k.clone()),
        );
        arg(&mut sql, " AND value = ?)", Value::Text(v.clone()));
    }
    if let Some(d) = &filter.device {
        let d = d.trim();
        let d = d.strip_prefix("/dev/").unwrap_or(d);
        arg(
            &mut sql,
            " AND r.id IN (SELECT run_id FROM run_devices WHERE name = ?)",
            Value::Text(d.to_string()),
        );
    }
    if let Some(s) = &filter.since {
        // A start that is not a time (an old fio document's "unknown") is
        // never "since": stamps start with a digit, and ':' sorts after '9'.
        arg(&mut sql, " AND r.started_at >= ? AND r.started_at < ':'", Value::Text(s.clone()));
    }
    sql.push_str(" ORDER BY r.id");
    let p = filter.page;
    if p.limit.is_some() || p.offset > 0 {
        let limit = p.limit.map_or(-1, |l| l.min(i64::MAX as u64) as i64);
        arg(&mut sql, " LIMIT ?", Value::Integer(limit));
        arg(&mut sql, " OFFSET ?", Value::Integer(p.offset.min(i64::MAX as u64) as i64));
    }
    (sql, args)
}

impl Store {
    /// The runs `filter` keeps, in id order: one query, no document read.
    pub fn list(&self, filter: &Filter) -> Result<Vec<RunSummary>> {
        let (sql, args) = list_sql(filter);
        let mut st = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(rusqlite::params_from_iter(args), |r| {
                let mut s = super::summary_from_row(r)?;
                let tags: Option<String> = r.get(6)?;
                s.tags = match tags {
                    Some(t) => serde_json::from_str(&t)
                        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(6, rusqlite::types::Type::Text, Box::new(e)))?,
                    None => Vec::new(),
                };
                Ok(s)
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<std::result::Result<_, _>>().map_err(|e| self.err(e))
    }

    /// How many runs `filter` keeps (its page included).
    pub fn count(&self, filter: &Filter) -> Result<u64> {
        let (sql, args) = list_sql(filter);
        let n: i64 = self
            .conn
            .query_row(&format!("SELECT count(*) FROM ({sql})"), rusqlite::params_from_iter(args), |r| {
                r.get(0)
            })
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
    }

    /// SQLite's plan for `filter`'s query, one line per step (for the
    /// scale benchmark and the tests of the indexes).
    pub fn list_plan(&self, filter: &Filter) -> Result<Vec<String>> {
        let (sql, args) = list_sql(filter);
        let mut st = self.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).map_err(|e| self.err(e))?;
        let rows = st
            .query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
            .map_err(|e| self.err(e))?;
        rows.collect::<std::result::Result<_, _>>().map_err(|e| self.err(e))
    }
}
