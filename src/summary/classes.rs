//! `run --suite sdcard`'s class verdicts, derived from the run's jobs and
//! the reader `info` found under the target ([`crate::judge::class`] judges).
//! Derived, not stored: every view and every written document asks
//! [`of`], so a stored run is judged by this iolab's bars.

use super::{Body, JobReport, Report};
use crate::device::{DeviceFacts, Transport};
use crate::judge::class::{ClassReport, Figure, Measured, Reader, judge};
use crate::plan::SuiteName;

/// The verdicts of a run of the sdcard suite (`None` for any other run).
pub fn of(r: &Report) -> Option<ClassReport> {
    let Body::Jobs(jobs) = &r.body else { return None };
    if r.settings.suite.as_deref() != Some(SuiteName::Sdcard.as_str()) || jobs.is_empty() {
        return None;
    }
    let figures = Figure::ALL.iter().filter_map(|&f| measured(f, jobs)).collect();
    let device = r.target.info.as_ref().and_then(|i| i.devices.first());
    Some(judge(figures, reader(device)))
}

/// Which of the suite's jobs gives `f`, and its per-run values.
fn measured(f: Figure, jobs: &[JobReport]) -> Option<Measured> {
    use crate::plan::Rw;
    let (rw, deep) = match f {
        Figure::SeqWrite => (Rw::Write, false),
        Figure::SeqRead => (Rw::Read, false),
        Figure::RandRead => (Rw::Randread, false),
        Figure::RandWrite => (Rw::Randwrite, false),
        Figure::RandReadDeep => (Rw::Randread, true),
        Figure::RandWriteDeep => (Rw::Randwrite, true),
    };
    let job = jobs.iter().find(|j| j.rw.known() == Some(&rw) && (j.qd > 1) == deep)?;
    let values: Vec<f64> = job
        .runs
        .iter()
        .filter_map(|run| {
            let d = if rw.reads() { run.read.as_ref() } else { run.write.as_ref() }?;
            Some(if f.is_bandwidth() { d.bw_bytes } else { d.iops })
        })
        .collect();
    Measured::of(f, &job.name, &values).map(|m| m.untrusted(crate::judge::trust::untrusted_warnings(&job.warnings)))
}

/// The reader and bus as `info` names them, and whether it can queue.
pub fn reader(d: Option<&DeviceFacts>) -> Reader {
    let Some(d) = d else {
        return Reader {
            name: "a reader iolab could not identify".into(),
            queues: None,
            why: "no device facts".into(),
        };
    };
    let mut name = d.transport.label().to_string();
    for part in [d.usb_bridge.as_deref(), d.model.as_deref()].into_iter().flatten() {
        name.push(' ');
        name.push_str(part.trim());
    }
    if let Some(speed) = &d.link_speed {
        name.push_str(&format!(", link {speed}"));
    }
    name.push_str(&format!(" ({})", d.name));
    let (queues, why) = match (d.transport, d.queue_depth) {
        (Transport::UsbStorage, _) => (Some(false), "USB bulk-only transport: one command at a time".to_string()),
        (_, Some(1)) => (Some(false), "SCSI queue depth 1: one command at a time".to_string()),
        (Transport::Mmc, _) => (
            None,
            "sysfs does not show whether this MMC host runs the card's command queue".to_string(),
        ),
        (Transport::Usb | Transport::Unknown, _) => (None, "the bridge's driver is not known".to_string()),
        (_, Some(q)) => (Some(true), format!("queue depth {q}")),
        (t, None) => (Some(true), format!("{} queues in the block layer", t.label())),
    };
    Reader { name, queues, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(transport: Transport, queue_depth: Option<u32>) -> DeviceFacts {
        let mut d: DeviceFacts = serde_json::from_value(serde_json::json!({
            "name": "sdb", "dev": "8:16", "sysfs_path": "/sys/devices/x/block/sdb", "transport": "usb-storage",
            "vendor": null, "model": "SD/MMC", "firmware": null, "serial": null, "wwid": null,
            "usb_bridge": "0bda:0129 Realtek USB2.0-CRW", "size_bytes": 32_000_000_000u64,
            "logical_block_size": 512, "physical_block_size": 512, "rotational": false,
            "link_speed": "480 Mbit/s", "queue_depth": null, "nr_requests": 2, "scheduler": null,
            "write_cache": null, "volatile_write_cache": null, "discard": null, "discard_max_bytes": null,
            "hw_queues": null, "memory_backed": false
        }))
        .unwrap();
        d.transport = transport;
        d.queue_depth = queue_depth;
        d
    }

    #[test]
    fn the_reader_is_named_from_info_and_bulk_only_cannot_queue() {
        let r = reader(Some(&facts(Transport::UsbStorage, Some(1))));
        assert_eq!(
            r.name,
            "USB (usb-storage) 0bda:0129 Realtek USB2.0-CRW SD/MMC, link 480 Mbit/s (sdb)"
        );
        assert_eq!(r.queues, Some(false));
        assert!(r.why.contains("bulk-only"));
        assert_eq!(
            reader(Some(&facts(Transport::UsbUas, Some(1)))).queues,
            Some(false),
            "queue depth 1"
        );
        assert_eq!(reader(Some(&facts(Transport::UsbUas, Some(30)))).queues, Some(true));
        assert_eq!(reader(Some(&facts(Transport::Mmc, None))).queues, None);
        assert_eq!(reader(Some(&facts(Transport::Zram, None))).queues, Some(true));
        assert_eq!(reader(None).queues, None);
    }
}
