//! The results store: every run, kept in one SQLite file.
//!
//! The run's JSON document (what `--json` prints) is stored whole and is the
//! source of truth, so `iolab show ID --json` returns exactly what the run
//! printed. Beside it, a per-job summary table serves listing and
//! comparison queries. The schema lives in [`MIGRATIONS`] only: the database
//! records its version in `PRAGMA user_version`, and opening it applies the
//! missing steps in order, in one transaction each.
//!
//! Concurrency and crashes: WAL journaling with a busy timeout lets several
//! iolab processes save at once; each save is one transaction, so a process
//! killed while saving leaves either the whole run or nothing. Every writing
//! transaction takes the write lock when it begins (`BEGIN IMMEDIATE`, see
//! [`Store::write`]): a transaction that began as a reader and then asked
//! for the write lock would get SQLite's "database is locked" at once,
//! without waiting, whenever another process was writing (SQLite refuses
//! that upgrade rather than risk a deadlock). The switch of a new store to
//! WAL is such an upgrade inside SQLite, so it is retried within the busy
//! timeout ([`Store::enable_wal`]).

use crate::summary::Report;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod errors;
mod flushes;
mod location;
mod query;
mod verifies;
pub use errors::not_saved;
pub use flushes::FlushCheck;
pub use location::{Account, Location, SudoUser, default_location, default_location_from, default_path_from, lookup_user};
pub use query::{Filter, Page, parse_since};
pub use verifies::{EarlierVerifies, earlier_verifies};

/// Schema steps; step `i` takes the database from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: runs and their tags.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at TEXT NOT NULL,
        saved_at TEXT NOT NULL,
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        label TEXT,
        complete INTEGER NOT NULL,
        host TEXT NOT NULL,
        kernel TEXT NOT NULL,
        iolab_version TEXT NOT NULL,
        document TEXT NOT NULL
    );
    CREATE TABLE tags (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );",
    // v2: per-job summaries for queries (backfilled from the documents), and a price per run.
    "ALTER TABLE runs ADD COLUMN price REAL;
    ALTER TABLE runs ADD COLUMN capacity_bytes INTEGER;
    CREATE TABLE jobs (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        name TEXT NOT NULL,
        rw TEXT NOT NULL,
        bs INTEGER NOT NULL,
        qd INTEGER NOT NULL,
        threads INTEGER NOT NULL,
        read_bw REAL,
        read_iops REAL,
        write_bw REAL,
        write_iops REAL,
        cpu_pct_per_100mbs REAL,
        PRIMARY KEY (run_id, idx)
    );
    CREATE INDEX jobs_name ON jobs(name);",
    // v3: what `iolab list` filters on without reading documents: each run's
    // devices (kernel names, models, serials), and the verify runs' device
    // identities for `iolab capacity` (both backfilled from the documents).
    "CREATE TABLE run_devices (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        PRIMARY KEY (run_id, name)
    ) WITHOUT ROWID;
    CREATE INDEX run_devices_name ON run_devices(name);
    CREATE TABLE verifies (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        device TEXT NOT NULL,
        verdict TEXT NOT NULL,
        message TEXT NOT NULL
    );
    CREATE INDEX verifies_device ON verifies(device);
    CREATE INDEX tags_key_value ON tags(key, value);
    CREATE INDEX runs_started_at ON runs(started_at);",
];

pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// How long a command waits for another process's write to the store:
/// 30 s, or `IOLAB_TEST_STORE_BUSY_TIMEOUT_MS` (a knob for iolab's own
/// tests, only with the cargo feature `test-hooks`; see `base::testknob`).
pub fn busy_timeout() -> Duration {
    #[cfg(feature = "test-hooks")]
    if let Some(ms) = std::env::var("IOLAB_TEST_STORE_BUSY_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return Duration::from_millis(ms);
    }
    Duration::from_secs(30)
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("results store {path}: {}", sql_message(source))]
    Sql { path: String, source: rusqlite::Error },
    /// Another process held the lock this store operation needed: how long
    /// this one waited, and the busy timeout it would have waited.
    #[error("results store {path}: {}", busy_message(source, *waited, *timeout))]
    Busy {
        path: String,
        source: rusqlite::Error,
        waited: Duration,
        timeout: Duration,
    },
    #[error("no run {0} in the store")]
    NotFound(i64),
    #[error("{0}")]
    Invalid(String),
    /// A path iolab will not use as a store (a planted link, not a file).
    #[error("{0}")]
    Refused(String),
    /// A store iolab may read but not write, and why.
    #[error("results store {path} cannot be written: {why}")]
    ReadOnly { path: String, why: String },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// SQLite's error in the store's terms: what a damaged or busy file means.
fn sql_message(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode::*;
    let left = "(the file is left as it is)";
    match e.sqlite_error_code() {
        Some(NotADatabase) => format!("{e}: not an SQLite file, or a damaged one {left}"),
        Some(DatabaseCorrupt) => format!("{e}: the file is damaged (truncated or overwritten) {left}"),
        Some(DatabaseBusy | DatabaseLocked) => format!("{e}: another process is writing it; try again when it is done {left}"),
        _ => e.to_string(),
    }
}

/// A busy store in the store's terms, true to what happened: a wait that
/// ran out, or a lock SQLite refused without waiting.
fn busy_message(e: &rusqlite::Error, waited: Duration, timeout: Duration) -> String {
    let fmt = crate::base::units::fmt_duration;
    let left = "(the file is left as it is)";
    if waited >= timeout {
        format!(
            "{e}: another process held it for longer than the busy timeout ({}); try again when it is done {left}",
            fmt(timeout)
        )
    } else {
        format!(
            "{e}: another process was writing it, and SQLite refused the lock after {} without waiting out the busy timeout ({}); try again {left}",
            fmt(Duration::from_millis(waited.as_millis() as u64)),
            fmt(timeout)
        )
    }
}

/// `source` from an operation on the store at `path` that began at `since`:
/// a busy store ([`StoreError::Busy`]) says how long it waited of `busy`.
fn failure(path: &str, busy: Duration, since: Instant, source: rusqlite::Error) -> StoreError {
    let path = path.to_string();
    if is_busy(&source) {
        StoreError::Busy {
            path,
            source,
            waited: since.elapsed(),
            timeout: busy,
        }
    } else {
        StoreError::Sql { path, source }
    }
}

/// An error of a statement inside a [`Store::write`] transaction (which
/// holds the write lock already).
fn sql_error(path: &str, source: rusqlite::Error) -> StoreError {
    StoreError::Sql {
        path: path.to_string(),
        source,
    }
}

/// Whether `e` is SQLite's "database is locked" (busy) or "table is locked".
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// One line of `iolab list`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunSummary {
    pub id: i64,
    pub label: Option<String>,
    pub tags: Vec<(String, String)>,
    pub started_at: String,
    pub kind: String,
    pub target: String,
    pub complete: bool,
}

/// A stored run in `iolab list --format json` (the list is an array of
/// these, each [`crate::schema::Tagged`]): the summary with its tags as an object (the last value of a
/// key given twice), fields in the order they have always been written.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ListEntry {
    /// Whether the run finished (not interrupted, no error).
    pub complete: bool,
    /// The run's id in the store (`iolab show ID`).
    #[schemars(extend("x-unit" = "id"))]
    pub id: i64,
    /// The kind of run: the subcommand that made it (`run`, `scan`, `import:fio`...).
    pub kind: String,
    /// The run's label (`--label`, `iolab label`).
    pub label: Option<String>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// Its tags (`--tag KEY=VALUE`, `iolab tag`).
    pub tags: std::collections::BTreeMap<String, String>,
    /// What was measured: the target's path.
    pub target: String,
}

impl RunSummary {
    /// The run as an entry of `iolab list --format json`.
    pub fn entry(&self) -> ListEntry {
        ListEntry {
            complete: self.complete,
            id: self.id,
            kind: self.kind.clone(),
            label: self.label.clone(),
            started_at: self.started_at.clone(),
            tags: self.tags.iter().cloned().collect(),
            target: self.target.clone(),
        }
    }
}

/// A stored run: its summary and its document.
#[derive(Clone, Debug)]
pub struct StoredRun {
    pub summary: RunSummary,
    pub price: Option<f64>,
    pub capacity_bytes: Option<u64>,
    pub report: Report,
}

pub struct Store {
    conn: Connection,
    path: String,
    /// How long an operation waits for another process's lock.
    busy: Duration,
}

/// Where the store lives: see [`default_location`].
pub fn default_path() -> PathBuf {
    default_location().path
}

/// The user the store at `path` is kept for: under sudo, when `path` is the
/// default store (the invoking user's), that user; otherwise none.
pub fn sudo_owner_of(path: &Path) -> Option<SudoUser> {
    let loc = default_location();
    loc.owner.filter(|_| loc.path == path)
}

/// Parse `key=value`.
pub fn parse_tag(s: &str) -> std::result::Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("tag '{s}' is not of the form key=value")),
    }
}

/// `ID=PRICE` (`--price 3=59.99`; a leading `$` is allowed): a positive price.
pub fn parse_price(s: &str) -> std::result::Result<(i64, f64), String> {
    let (id, p) = s
        .split_once('=')
        .ok_or_else(|| format!("price '{s}' is not of the form ID=PRICE"))?;
    let id = id.trim().parse().map_err(|_| format!("'{id}' is not a run id"))?;
    let p: f64 = p
        .trim()
        .trim_start_matches('$')
        .parse()
        .map_err(|_| format!("'{p}' is not a price"))?;
    if !(p.is_finite() && p > 0.0) {
        return Err(format!("price must be positive, got {p}"));
    }
    Ok((id, p))
}

/// `ID=SIZE` (`--capacity 3=1TB`): a size above 0.
pub fn parse_capacity(s: &str) -> std::result::Result<(i64, u64), String> {
    let (id, c) = s
        .split_once('=')
        .ok_or_else(|| format!("capacity '{s}' is not of the form ID=SIZE"))?;
    let id = id.trim().parse().map_err(|_| format!("'{id}' is not a run id"))?;
    Ok((id, crate::plan::limits::parse::nonzero_size(c)?))
}

impl Store {
    /// Open (creating it and its directory if needed) and bring the schema up
    /// to date. What iolab creates is private to its owner: directories 0700,
    /// the database 0600 (SQLite gives its WAL and SHM files the database's
    /// mode and owner). Under sudo, the default store is created for the
    /// invoking user ([`sudo_owner_of`]).
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_for(path, sudo_owner_of(path).as_ref())
    }

    /// [`Store::open`], handing what it creates to `owner` when given.
    pub fn open_for(path: &Path, owner: Option<&SudoUser>) -> Result<Store> {
        Store::open_waiting(path, owner, busy_timeout())
    }

    /// [`Store::open_for`], waiting up to `busy` for another process's lock.
    pub(crate) fn open_waiting(path: &Path, owner: Option<&SudoUser>, busy: Duration) -> Result<Store> {
        let p = path.display().to_string();
        let sql = |source| StoreError::Sql { path: p.clone(), source };
        location::refuse(path).map_err(StoreError::Refused)?;
        if let Some(why) = location::why_unwritable(path) {
            return Err(StoreError::ReadOnly { path: p, why });
        }
        location::prepare(path, owner).map_err(StoreError::Invalid)?;
        let mut flags = rusqlite::OpenFlags::default();
        if owner.is_some() {
            // As root in someone else's home: never follow a link planted as the store.
            flags |= rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        }
        let conn = Connection::open_with_flags(path, flags).map_err(sql)?;
        conn.busy_timeout(busy).map_err(sql)?;
        // A store is data, not code: its schema may not call functions with
        // side effects (a crafted file planted as the store).
        conn.pragma_update(None, "trusted_schema", false).map_err(sql)?;
        // Before anything is written (the journal mode included): a file
        // that is not an SQLite database, a damaged one, another program's
        // database and a newer iolab's store are refused as they are.
        let mut store = Store {
            conn,
            path: p.clone(),
            busy,
        };
        store.check_schema()?;
        store.enable_wal()?;
        store.conn.pragma_update(None, "foreign_keys", true).map_err(sql)?;
        store.migrate()?;
        Ok(store)
    }

    /// Open the store to read it (`list`, `show`, `compare`, `report`): as
    /// [`Store::open`] where iolab may write it, else read-only
    /// ([`location::read_only_uri`]), without changing a byte. A read-only
    /// store of an older schema, which iolab cannot bring up to date, is
    /// refused with the reason.
    pub fn open_read(path: &Path) -> Result<Store> {
        let Some(why) = location::why_unwritable(path) else {
            return Store::open(path);
        };
        location::refuse(path).map_err(StoreError::Refused)?;
        let p = path.display().to_string();
        let sql = |source| StoreError::Sql { path: p.clone(), source };
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
            | rusqlite::OpenFlags::SQLITE_OPEN_URI
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX
            | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(location::read_only_uri(path), flags).map_err(sql)?;
        let busy = busy_timeout();
        conn.busy_timeout(busy).map_err(sql)?;
        conn.pragma_update(None, "trusted_schema", false).map_err(sql)?;
        let store = Store { conn, path: p, busy };
        store.check_schema()?;
        let v = store.version()?;
        if v < SCHEMA_VERSION {
            return Err(StoreError::Invalid(format!(
                "results store {} has schema version {v}, older than this iolab's ({SCHEMA_VERSION}), and cannot be brought up to date: it cannot be written ({why})",
                store.path
            )));
        }
        Ok(store)
    }

    /// WAL journaling, switched on once (the mode is kept in the file).
    /// The switch reads the file's header and then writes it: SQLite asks
    /// for the write lock as a reader there, and answers "database is
    /// locked" at once, without its busy handler, when another process
    /// switching the same new store holds it. So iolab waits itself, within
    /// the busy timeout.
    fn enable_wal(&self) -> Result<()> {
        let mode: String = self
            .conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        let t0 = Instant::now();
        loop {
            match self
                .conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
            {
                Ok(_) => return Ok(()),
                Err(e) if is_busy(&e) && t0.elapsed() < self.busy => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(self.fail(e, t0)),
            }
        }
    }

    /// The store is one this iolab can use: readable as a database, its
    /// schema not newer than [`SCHEMA_VERSION`], and (at version 0) without
    /// tables of another program. Reads only.
    fn check_schema(&self) -> Result<()> {
        let (v, tables): (i64, i64) = self
            .conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| self.err(e))?;
        if v < 0 || v as usize > SCHEMA_VERSION {
            return Err(StoreError::Invalid(format!(
                "results store {} has schema version {v}, newer than this iolab understands ({SCHEMA_VERSION}): it was written by a newer iolab; upgrade iolab (the store is left as it is)",
                self.path
            )));
        }
        if v == 0 && tables > 0 {
            return Err(StoreError::Invalid(format!(
                "{} is an SQLite database of another program ({tables} table(s), no iolab schema): not a results store; give iolab a path of its own (the file is left as it is)",
                self.path
            )));
        }
        Ok(())
    }

    /// The error of a statement that only reads. A reader that finds the
    /// store locked waits in SQLite's busy handler up to the busy timeout
    /// before it is told "locked": SQLite refuses a lock at once only to a
    /// reader that asks for the write lock, which every write avoids by
    /// taking it first ([`Store::write`]). So a busy read waited it out.
    fn err(&self, source: rusqlite::Error) -> StoreError {
        if is_busy(&source) {
            return StoreError::Busy {
                path: self.path.clone(),
                source,
                waited: self.busy,
                timeout: self.busy,
            };
        }
        StoreError::Sql {
            path: self.path.clone(),
            source,
        }
    }

    /// `source`, from an operation that began at `since`: a busy store says
    /// how long it waited.
    fn fail(&self, source: rusqlite::Error, since: Instant) -> StoreError {
        failure(&self.path, self.busy, since, source)
    }

    /// Run `f` in one writing transaction that takes the write lock when it
    /// begins (`BEGIN IMMEDIATE`, waiting up to the busy timeout for it), so
    /// no statement in it asks for that lock as a reader. `f` is given the
    /// store's path, to name in its errors.
    fn write<T>(&mut self, f: impl FnOnce(&rusqlite::Transaction, &str) -> Result<T>) -> Result<T> {
        let t0 = Instant::now();
        let (path, busy) = (self.path.clone(), self.busy);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| failure(&path, busy, t0, e))?;
        let out = f(&tx, &path)?;
        tx.commit().map_err(|e| failure(&path, busy, t0, e))?;
        Ok(out)
    }

    pub fn version(&self) -> Result<usize> {
        let v: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(v as usize)
    }

    fn migrate(&mut self) -> Result<()> {
        // Up to date (the usual case): no write lock taken, so reading the
        // store works while another iolab saves.
        if self.version()? == SCHEMA_VERSION {
            return Ok(());
        }
        loop {
            // Each step re-reads the version inside its writing transaction, so two
            // processes opening an old store at once do not both apply a step.
            let done = self.write(|tx, path| {
                let step = |e| sql_error(path, e);
                let v: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(step)?;
                let v = v as usize;
                if v > SCHEMA_VERSION {
                    return Err(StoreError::Invalid(format!(
                        "{path} has schema version {v}, newer than this iolab understands ({SCHEMA_VERSION}); upgrade iolab"
                    )));
                }
                if v == SCHEMA_VERSION {
                    return Ok(true);
                }
                tx.execute_batch(MIGRATIONS[v]).map_err(step)?;
                match v {
                    1 => backfill_jobs(tx).map_err(step)?,
                    2 => query::backfill_devices(tx).map_err(step)?,
                    _ => {}
                }
                tx.pragma_update(None, "user_version", (v + 1) as i64).map_err(step)?;
                Ok(false)
            })?;
            if done {
                return Ok(());
            }
        }
    }

    /// Save a run in one transaction; returns its id.
    pub fn save(&mut self, report: &Report, label: Option<&str>, tags: &[(String, String)], complete: bool) -> Result<i64> {
        let doc = serde_json::to_string(report).map_err(|e| StoreError::Invalid(format!("cannot encode the run: {e}")))?;
        crate::base::testknob::keep_document(report.schema_kind(), &doc);
        self.write(|tx, path| {
            let sql = |e| sql_error(path, e);
            tx.execute(
                "INSERT INTO runs (started_at, saved_at, kind, target, label, complete, host, kernel, iolab_version, document)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    report.started_at,
                    crate::base::units::now_rfc3339(),
                    report.command,
                    report.target.path,
                    label,
                    complete,
                    report.host.hostname,
                    report.host.kernel,
                    report.iolab_version,
                    doc
                ],
            )
            .map_err(sql)?;
            let id = tx.last_insert_rowid();
            for (k, v) in tags {
                tx.execute(
                    "INSERT OR REPLACE INTO tags (run_id, key, value) VALUES (?1, ?2, ?3)",
                    params![id, k, v],
                )
                .map_err(sql)?;
            }
            insert_jobs(tx, id, report).map_err(sql)?;
            query::insert_devices(tx, id, report).map_err(sql)?;
            fault_injection_pause();
            crate::base::testknob::pause_at("store");
            Ok(id)
        })
    }

    pub fn load(&self, id: i64) -> Result<StoredRun> {
        let row = self
            .conn
            .query_row(
                "SELECT id, label, started_at, kind, target, complete, price, capacity_bytes, document FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        summary_from_row(r)?,
                        r.get::<_, Option<f64>>(6)?,
                        r.get::<_, Option<i64>>(7)?,
                        r.get::<_, String>(8)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.err(e))?
            .ok_or(StoreError::NotFound(id))?;
        let (mut summary, price, capacity, doc) = row;
        summary.tags = self.tags(id)?;
        let mut report: Report =
            serde_json::from_str(&doc).map_err(|e| StoreError::Invalid(format!("run {id}: the stored document does not parse: {e}")))?;
        report.run_id = Some(id);
        Ok(StoredRun {
            summary,
            price,
            capacity_bytes: capacity.map(|c| c as u64),
            report,
        })
    }

    fn tags(&self, id: i64) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT key, value FROM tags WHERE run_id = ?1 ORDER BY key")
            .map_err(|e| self.err(e))?;
        let rows = st.query_map([id], |r| Ok((r.get(0)?, r.get(1)?))).map_err(|e| self.err(e))?;
        rows.collect::<std::result::Result<_, _>>().map_err(|e| self.err(e))
    }

    pub fn delete(&mut self, id: i64) -> Result<()> {
        self.change(id, "DELETE FROM runs WHERE id = ?1", params![id])
    }

    pub fn set_label(&mut self, id: i64, label: &str) -> Result<()> {
        self.change(id, "UPDATE runs SET label = ?2 WHERE id = ?1", params![id, label])
    }

    pub fn set_tag(&mut self, id: i64, key: &str, value: &str) -> Result<()> {
        self.write(|tx, path| {
            let exists = tx
                .query_row("SELECT 1 FROM runs WHERE id = ?1", [id], |_| Ok(()))
                .optional()
                .map_err(|e| sql_error(path, e))?;
            if exists.is_none() {
                return Err(StoreError::NotFound(id));
            }
            tx.execute(
                "INSERT OR REPLACE INTO tags (run_id, key, value) VALUES (?1, ?2, ?3)",
                params![id, key, value],
            )
            .map_err(|e| sql_error(path, e))?;
            Ok(())
        })
    }

    pub fn set_price(&mut self, id: i64, price: f64) -> Result<()> {
        self.change(id, "UPDATE runs SET price = ?2 WHERE id = ?1", params![id, price])
    }

    pub fn set_capacity(&mut self, id: i64, bytes: u64) -> Result<()> {
        self.change(id, "UPDATE runs SET capacity_bytes = ?2 WHERE id = ?1", params![id, bytes as i64])
    }

    /// One statement on run `id` in its own writing transaction; no row
    /// changed is [`StoreError::NotFound`].
    fn change(&mut self, id: i64, statement: &str, args: &[&dyn rusqlite::ToSql]) -> Result<()> {
        let n = self.write(|tx, path| tx.execute(statement, args).map_err(|e| sql_error(path, e)))?;
        if n == 0 { Err(StoreError::NotFound(id)) } else { Ok(()) }
    }

    /// `PRAGMA integrity_check` says "ok".
    pub fn integrity_ok(&self) -> Result<bool> {
        let s: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(s == "ok")
    }
}

/// A run's summary from a row that starts with `id, label, started_at, kind, target, complete`
/// (tags are read separately).
fn summary_from_row(r: &rusqlite::Row) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: r.get(0)?,
        label: r.get(1)?,
        tags: Vec::new(),
        started_at: r.get(2)?,
        kind: r.get(3)?,
        target: r.get(4)?,
        complete: r.get(5)?,
    })
}

fn insert_jobs(tx: &rusqlite::Transaction, id: i64, report: &Report) -> rusqlite::Result<()> {
    for (i, j) in report.jobs().iter().enumerate() {
        tx.execute(
            "INSERT INTO jobs (run_id, idx, name, rw, bs, qd, threads, read_bw, read_iops, write_bw, write_iops, cpu_pct_per_100mbs)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                id,
                i as i64,
                j.name,
                j.rw.as_str(),
                j.bs as i64,
                j.qd,
                j.threads,
                j.read.as_ref().map(|d| d.bw_bytes),
                j.read.as_ref().map(|d| d.iops),
                j.write.as_ref().map(|d| d.bw_bytes),
                j.write.as_ref().map(|d| d.iops),
                j.cpu.pct_per_100mbs
            ],
        )?;
    }
    Ok(())
}

/// v1 → v2: fill the new jobs table from the stored documents.
fn backfill_jobs(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    let docs: Vec<(i64, String)> = {
        let mut st = tx.prepare("SELECT id, document FROM runs")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?
    };
    for (id, doc) in docs {
        // A document this version cannot read keeps its run; it just has no job rows.
        if let Ok(report) = serde_json::from_str::<Report>(&doc) {
            insert_jobs(tx, id, &report)?;
        }
    }
    Ok(())
}

/// Testing hook: `IOLAB_TEST_SAVE_PAUSE_MS` makes a save wait inside its
/// transaction, so a test can kill iolab mid-save and check that the store
/// keeps no half-written run. Unset in normal use; only with the cargo
/// feature `test-hooks` (see `base::testknob`).
#[cfg(feature = "test-hooks")]
fn fault_injection_pause() {
    if let Some(ms) = std::env::var("IOLAB_TEST_SAVE_PAUSE_MS").ok().and_then(|v| v.parse::<u64>().ok()) {
        eprintln!("iolab: fault injection: pausing {ms} ms inside the save transaction");
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// Without `test-hooks`: nothing.
#[cfg(not(feature = "test-hooks"))]
fn fault_injection_pause() {}

#[cfg(test)]
mod tests;
