//! The JSON document of a run, as every iolab version has written it:
//! metadata, `jobs`, and one optional section per kind of experiment.
//! [`Report`] is (de)serialised through it, so the typed model can change
//! without changing the file format, and documents of earlier versions
//! (and their stores) keep loading.

use super::{Body, Host, JobReport, Report, Settings, apps, capacity, scale, scan, verify};
use crate::target::TargetInfo;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
pub(super) struct Document {
    #[serde(default)]
    run_id: Option<i64>,
    iolab_version: String,
    command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    argv: Vec<String>,
    started_at: String,
    host: Host,
    target: TargetInfo,
    settings: Settings,
    #[serde(default)]
    jobs: Vec<JobReport>,
    #[serde(default)]
    interrupted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scan: Option<scan::ScanReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scale: Option<scale::ScaleReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<apps::TimeReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    app: Option<apps::AppReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verify: Option<verify::VerifyReport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<capacity::CapacityReport>,
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
        } else {
            Body::Jobs(d.jobs)
        };
        Report {
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
        let (mut scan, mut scale, mut time, mut app, mut verify, mut capacity) = (None, None, None, None, None, None);
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
        };
        Document {
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
        }
    }
}
