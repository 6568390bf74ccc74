//! `device_depth_short`: the device under a job had far fewer I/Os in
//! flight than the job asked for, so its figure is the pace of iolab's own
//! loop, not the device's at that depth (issue 38: an engine that reaped
//! and refilled its queue in bursts delivered 0.80–0.89× of fio's IOPS at
//! the same nominal depth; nothing in the document said so).
//!
//! The rule judges only where the block layer's count of requests in
//! flight measures how deep iolab queued:
//!
//! - the device holds its requests while they are served asynchronously
//!   (an interrupt completes them: a disk, NVMe, virtio, a loop device
//!   doing direct I/O to its file). A memory-backed device (zram, a RAM
//!   disk, pmem, a loop device over tmpfs) completes each I/O inside the
//!   call that submitted it, and a loop device without direct I/O serves
//!   its requests one at a time through its file's page cache: there the
//!   count is what the device's own service allows (about one per CPU
//!   busy in it), whatever depth iolab keeps, and says nothing of iolab;
//! - the job used O_DIRECT (buffered I/O: the page cache decides what
//!   reaches the device, and when);
//! - the device's requests were the job's I/Os, one each
//!   ([`DEPTH_UNMERGED`]): merged requests stand for several I/Os;
//! - no cgroup throttle held the job at its limit (`at_throttle`): a
//!   throttle holds I/Os above the device, where they are not counted;
//! - the job asked for more than one I/O in flight, and the device's mean
//!   depth is known (its diskstats keep the time in queue).
//!
//! What the device can hold bounds what was asked: a queue of
//! `nr_requests` (64 on a SATA disk's mq-deadline) counts no more, and
//! the I/Os beyond it wait for a free request where no count sees them, as
//! they would for any program. So the depth asked is judged as at most the
//! device's `nr_requests` (`capacity`), and QD128 on that disk is short
//! only below 32.

use super::diagnostic::{Code, Diagnostic};
use crate::base::thresholds::{DEPTH_SHORT, DEPTH_UNMERGED};

/// What [`depth_short`] judges, over a job's measured runs.
#[derive(Clone, Copy, Debug)]
pub struct DepthFacts<'a> {
    /// The device whose queue this is.
    pub device: &'a str,
    /// The job's queue depth and threads (`--qd`, `--threads`).
    pub qd: u32,
    pub threads: u32,
    /// Its mean I/Os in flight (diskstats' time in queue over the runs'
    /// time); `None`: not known.
    pub mean: Option<f64>,
    /// The 99th percentile of its in-flight samples, when taken.
    pub p99: Option<u32>,
    /// The device holds requests while they are served asynchronously
    /// ([`queued`]).
    pub queued: bool,
    /// The job used O_DIRECT.
    pub direct: bool,
    /// Requests the device completed, and I/Os the job completed (the
    /// drain after each run's end included), over the same runs.
    pub device_ios: u64,
    pub job_ios: u64,
    /// A figure of the job sat at a cgroup throttle's limit.
    pub throttled: bool,
    /// The most requests the device's queue holds (`queue/nr_requests`),
    /// when known.
    pub capacity: Option<u32>,
}

/// Whether a device's count of requests in flight can show how deep its
/// submitter queued: not `memory`-backed, and not a loop device without
/// direct I/O (`loop_dio`: `Some(false)`; see the module's rule).
pub fn queued(memory: bool, loop_dio: Option<bool>) -> bool {
    !memory && loop_dio != Some(false)
}

/// `device_depth_short`: under the module's conditions, the device's mean
/// depth below [`DEPTH_SHORT`] of QD × threads.
pub fn depth_short(f: &DepthFacts) -> Option<Diagnostic> {
    let asked = f.qd.saturating_mul(f.threads);
    let held = f.capacity.filter(|c| *c > 0).map_or(asked, |c| asked.min(c));
    let mean = f.mean?;
    let judged =
        asked > 1 && f.queued && f.direct && !f.throttled && f.job_ios > 0 && f.device_ios as f64 >= DEPTH_UNMERGED * f.job_ios as f64;
    if !judged || mean >= DEPTH_SHORT * f64::from(held) {
        return None;
    }
    let mut asked_text = if f.threads > 1 {
        format!("{asked} in flight (QD{} × {} threads)", f.qd, f.threads)
    } else {
        format!("QD{asked}")
    };
    if held < asked {
        asked_text.push_str(&format!(" (its queue holds {held})"));
    }
    let p99 = f.p99.map(|p| format!(" (p99 {p})")).unwrap_or_default();
    Some(Diagnostic::new(
        Code::DeviceDepthShort,
        format!(
            "asked for {asked_text}, {} had {mean:.1} in flight on average{p99}: the figure is iolab's, not the disk's at that depth",
            f.device
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// QD32 asked, 15.9 in flight on average on a virtio disk, every
    /// request one of the job's.
    fn facts() -> DepthFacts<'static> {
        DepthFacts {
            device: "vda",
            qd: 32,
            threads: 1,
            mean: Some(15.9),
            p99: Some(27),
            queued: true,
            direct: true,
            device_ios: 100_000,
            job_ios: 100_000,
            throttled: false,
            capacity: None,
        }
    }

    /// A SATA disk whose queue holds 64: QD128 is judged against 64, so 40
    /// in flight is not short and 20 is, said with the queue's size; a
    /// queue deeper than the depth asked changes nothing.
    #[test]
    fn the_depth_asked_is_bounded_by_what_the_queue_holds() {
        let sata = |mean| DepthFacts {
            device: "sda",
            qd: 128,
            mean: Some(mean),
            p99: None,
            capacity: Some(64),
            ..facts()
        };
        assert!(depth_short(&sata(40.0)).is_none(), "40 of the 64 the queue holds");
        let d = depth_short(&sata(20.0)).expect("20 of 64");
        assert!(
            d.message
                .starts_with("asked for QD128 (its queue holds 64), sda had 20.0 in flight on average:"),
            "{}",
            d.message
        );
        assert!(
            depth_short(&DepthFacts {
                capacity: Some(1023),
                ..facts()
            })
            .is_some(),
            "an NVMe queue: still 15.9 of 32"
        );
        assert!(
            depth_short(&DepthFacts {
                capacity: Some(0),
                ..facts()
            })
            .is_some(),
            "a capacity of 0 is not known"
        );
    }

    #[test]
    fn a_device_at_under_half_the_depth_asked_is_named() {
        let d = depth_short(&facts()).expect("15.9 of 32");
        assert_eq!(d.code, Code::DeviceDepthShort);
        assert_eq!(
            d.message,
            "asked for QD32, vda had 15.9 in flight on average (p99 27): the figure is iolab's, not the disk's at that depth"
        );
        // The boundary: exactly half is not short.
        assert!(
            depth_short(&DepthFacts {
                mean: Some(16.0),
                ..facts()
            })
            .is_none()
        );
        // Threads multiply the depth asked; no samples, no p99.
        let d = depth_short(&DepthFacts {
            qd: 8,
            threads: 4,
            p99: None,
            ..facts()
        })
        .unwrap();
        assert!(
            d.message
                .starts_with("asked for 32 in flight (QD8 × 4 threads), vda had 15.9 in flight on average:"),
            "{}",
            d.message
        );
    }

    #[test]
    fn nothing_is_said_where_the_count_cannot_show_iolabs_depth() {
        let none = |f: DepthFacts| assert!(depth_short(&f).is_none(), "{f:?}");
        // QD1: nothing to fall short of.
        none(DepthFacts {
            qd: 1,
            mean: Some(0.4),
            ..facts()
        });
        // Not known: never a 0 taken for a figure.
        none(DepthFacts { mean: None, ..facts() });
        // zram, a RAM disk, a loop device over tmpfs, or one without direct I/O.
        none(DepthFacts {
            queued: queued(true, None),
            mean: Some(1.0),
            ..facts()
        });
        none(DepthFacts {
            queued: queued(false, Some(false)),
            mean: Some(1.0),
            ..facts()
        });
        // Buffered I/O, a throttle at its limit.
        none(DepthFacts { direct: false, ..facts() });
        none(DepthFacts {
            throttled: true,
            ..facts()
        });
        // Sequential 4K merged into fewer, larger requests: 89% of the job's I/Os.
        none(DepthFacts {
            device_ios: 89_000,
            ..facts()
        });
        // At 90% they are the job's own: judged.
        assert!(
            depth_short(&DepthFacts {
                device_ios: 90_000,
                ..facts()
            })
            .is_some()
        );
        // A disk and a loop device doing direct I/O are queued.
        assert!(queued(false, None) && queued(false, Some(true)));
    }
}
