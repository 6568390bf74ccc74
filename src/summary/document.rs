//! The JSON document of a run, as every iolab version has written it:
//! metadata, `jobs`, and one optional section per kind of experiment.
//! [`Report`] is (de)serialised through it, so the typed model can change
//! without changing the file format, and documents of earlier versions
//! (and their stores) keep loading.

use super::{Body, Host, JobReport, Report, Settings, apps, capacity, flush_check, scale, scan, verify};
use crate::targets::TargetInfo;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A run: metadata, the jobs in the order they ran, and the section of its
/// kind of experiment.
#[derive(Serialize, Deserialize, JsonSchema)]
pub(super) struct Document {
    /// The document's schema and its version (`iolab/run/1`); narrowed per
    /// kind by [`crate::schema`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema: Option<String>,
    /// The id under which the run is kept in the results store (`null` when not stored).
    #[serde(default)]
    #[schemars(extend("x-unit" = "id"))]
    run_id: Option<i64>,
    /// The iolab version that measured (or imported) the run.
    iolab_version: String,
    /// The subcommand (`iolab run`, `import:fio`).
    command: String,
    /// The command line as typed (absent in documents of iolab 0.1 and in imported runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    argv: Vec<String>,
    /// When the run started (RFC 3339, UTC).
    started_at: String,
    /// The machine that ran it.
    host: Host,
    /// What was measured.
    target: TargetInfo,
    /// How the tests were repeated.
    settings: Settings,
    /// The jobs in the order they ran (a scan's zones, access time and
    /// burst; every point of a scale).
    #[serde(default)]
    jobs: Vec<JobReport>,
    /// True when SIGINT/SIGTERM stopped the run: the document holds what finished.
    #[serde(default)]
    interrupted: bool,
    /// The error that stopped the run; the document holds the tests that finished before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// `scan`: the curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scan: Option<scan::ScanReport>,
    /// `scale`: the sweep points and verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<scale::ScaleReport>,
    /// `time`: the timed command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<apps::TimeReport>,
    /// `run --suite files|git`: the workload's phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    app: Option<apps::AppReport>,
    /// `verify`: every block written, read back and classified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verify: Option<verify::VerifyReport>,
    /// `capacity`: the probe of the device's real size, and its verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<capacity::CapacityReport>,
    /// `flush`: stamped generations and their acknowledged flushes, or the check after a power cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flush: Option<flush_check::FlushReport>,
    /// `run --suite sdcard`: the SD classes the jobs' figures meet and miss.
    /// Derived from `jobs` when the document is written (iolab judges a
    /// stored run again when it reads it: this is for other readers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    classes: Option<crate::judge::class::ClassReport>,
}

impl From<Document> for Report {
    fn from(d: Document) -> Report {
        // At most one section was ever written; the first present one decides.
        let body = if let Some(scan) = d.scan {
            Body::Scan { scan, jobs: d.jobs }
        } else if let Some(scale) = d.scale {
            Body::Scale { scale, jobs: d.jobs }
        } else if let Some(t) = d.time {
            Body::Time(t)
        } else if let Some(a) = d.app {
            Body::App(a)
        } else if let Some(v) = d.verify {
            Body::Verify(v)
        } else if let Some(c) = d.capacity {
            Body::Capacity(c)
        } else if let Some(f) = d.flush {
            Body::Flush(f)
        } else {
            Body::Jobs(d.jobs)
        };
        Report {
            names_schema: d.schema.is_some(),
            run_id: d.run_id,
            iolab_version: d.iolab_version,
            command: d.command,
            argv: d.argv,
            started_at: d.started_at,
            host: d.host,
            target: d.target,
            settings: d.settings,
            body,
            interrupted: d.interrupted,
            error: d.error,
        }
    }
}

impl From<Report> for Document {
    fn from(r: Report) -> Document {
        let schema = r.names_schema.then(|| r.schema_kind().id());
        let classes = super::classes::of(&r);
        let (mut scan, mut scale, mut time, mut app, mut verify, mut capacity) = (None, None, None, None, None, None);
        let mut flush = None;
        let jobs = match r.body {
            Body::Jobs(j) => j,
            Body::Scan { scan: s, jobs } => {
                scan = Some(s);
                jobs
            }
            Body::Scale { scale: s, jobs } => {
                scale = Some(s);
                jobs
            }
            Body::Time(t) => {
                time = Some(t);
                Vec::new()
            }
            Body::App(a) => {
                app = Some(a);
                Vec::new()
            }
            Body::Verify(v) => {
                verify = Some(v);
                Vec::new()
            }
            Body::Capacity(c) => {
                capacity = Some(c);
                Vec::new()
            }
            Body::Flush(f) => {
                flush = Some(f);
                Vec::new()
            }
        };
        Document {
            schema,
            run_id: r.run_id,
            iolab_version: r.iolab_version,
            command: r.command,
            argv: r.argv,
            started_at: r.started_at,
            host: r.host,
            target: r.target,
            settings: r.settings,
            jobs,
            interrupted: r.interrupted,
            error: r.error,
            scan,
            scale,
            time,
            app,
            verify,
            capacity,
            flush,
            classes,
        }
    }
}
