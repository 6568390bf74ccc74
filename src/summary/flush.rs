//! `flush_too_fast` over a run's jobs on one target ([`crate::judge::flush`]):
//! the run's read tests give the bound on how fast the device stores, and
//! each test that wrote is judged on it, run by run. A pass over the whole
//! run, after its last job: a battery writes after it reads. A run with no
//! read test (a plain write job) gets a read of its own after its jobs
//! ([`reference_extent`] says where; the runner reads it), whose figure
//! serves as the bound only.

use super::{JobReport, Named};
use crate::judge::flush::{ReadFigure, StoreBound, Tail, Writes, flush_too_fast, store_bound};
use crate::judge::{Code, Diagnostic, Severity};
use crate::targets::TargetInfo;

/// Warnings that say a read figure was set by something other than the
/// device: it is then no bound on what the device does.
const CAPPED: [Code; 5] = [
    Code::AtThrottle,
    Code::CpuBound,
    Code::DeviceDepthShort,
    Code::IoErrors,
    Code::OtherDevice,
];

/// Bytes of the target a run's writes must cover before a read of them is
/// worth taking as a bound: less, and no flush could owe
/// [`FLUSH_NEEDED_MIN_NS`](crate::base::thresholds::FLUSH_NEEDED_MIN_NS) at
/// any rate a read of them would show.
const REFERENCE_MIN_SPAN: u64 = 16 << 20;

/// Where a run that wrote but has no read test of its own should read for
/// its bound, as (offset, span): from the first writing job's offset, over
/// the bytes of its span the run's writes can have reached (the most one
/// job wrote, whole MiB), so the read meets written blocks rather than
/// holes. None when the run has a read test (its reads are the bound),
/// wrote nothing, wrote under 16 MiB, or when no bound would be taken anyway
/// (a memory-backed target, throttled reads: see [`store_bound_of`]).
pub fn reference_extent(jobs: &[JobReport], target: &TargetInfo) -> Option<(u64, u64)> {
    if jobs.iter().any(|j| j.write.is_none() && j.read.is_some()) || memory_backed(target) || reads_throttled(target) {
        return None;
    }
    let first = jobs.iter().find(|j| j.write.is_some())?;
    let written = jobs
        .iter()
        .filter(|j| j.write.is_some())
        .map(|j| j.runs.iter().filter_map(|r| r.write.as_ref()).map(|w| w.bytes).sum::<u64>())
        .max()?;
    let span = first.span_bytes.min(written) / (1 << 20) * (1 << 20);
    (span >= REFERENCE_MIN_SPAN).then_some((first.offset_bytes, span))
}

/// Adds `flush_too_fast` to each job of `jobs` (one run of iolab's own
/// engines on `target`) whose flush returned sooner than the run's reads
/// allow, after its other figure-breaking warnings. `reference` is the
/// read taken for a run without read tests ([`reference_extent`]): a
/// bound like them, and no job of the run.
pub fn judge_flushes(jobs: &mut [JobReport], target: &TargetInfo, reference: Option<&JobReport>) {
    let Some(bound) = store_bound_of(jobs, target, reference) else {
        return;
    };
    let device = target.devices.first().map_or(target.path.as_str(), |d| d.name.as_str());
    for job in jobs.iter_mut() {
        if let Some(d) = judge_job(job, device, &bound) {
            let at = job
                .warnings
                .iter()
                .rposition(|w| w.severity == Severity::Untrustworthy)
                .map_or(0, |i| i + 1);
            job.warnings.insert(at, d);
        }
    }
}

/// How fast the device stores at most, from the run's read tests (not the
/// mixed ones: their reads share the device with writes). None on a
/// memory-backed target (memory is its own storage, named `memory_device`
/// or `no_block_device` where iolab sees it) and where a cgroup throttles
/// the reads of a device under the target (the reads are the limit's).
pub fn store_bound_of(jobs: &[JobReport], target: &TargetInfo, reference: Option<&JobReport>) -> Option<StoreBound> {
    if memory_backed(target) || reads_throttled(target) {
        return None;
    }
    let reads: Vec<ReadFigure> = jobs
        .iter()
        .chain(reference)
        .filter(|j| j.write.is_none())
        .filter_map(|j| {
            let job = j.read.as_ref()?;
            let fastest = j
                .runs
                .iter()
                .filter_map(|r| r.read.as_ref().map(|d| d.bw_bytes))
                .fold(job.bw_max.unwrap_or(job.bw_bytes), f64::max);
            Some(ReadFigure {
                test: &j.name,
                bps: fastest,
                capped: j.warnings.iter().any(|w| CAPPED.contains(&w.code)),
            })
        })
        .collect();
    store_bound(&reads)
}

/// The target lives in memory: a memory device (zram), a loop device over
/// a file in tmpfs, or a test file in tmpfs.
fn memory_backed(t: &TargetInfo) -> bool {
    t.devices.iter().any(|d| d.memory)
        || t.filesystem
            .as_ref()
            .is_some_and(|f| matches!(f.fstype.as_str(), "tmpfs" | "ramfs"))
        || t.info
            .as_ref()
            .is_some_and(|i| i.devices.iter().any(|d| d.memory_backed) || i.filesystem.as_ref().is_some_and(|f| f.memory))
}

fn reads_throttled(t: &TargetInfo) -> bool {
    t.info
        .as_ref()
        .is_some_and(|i| i.throttles.iter().any(|th| th.read_bps.is_some() || th.read_iops.is_some()))
}

/// The first of a job's runs (those its figures describe) whose flush was
/// too fast. Not judged: a job that did not write, one whose flush another
/// rule speaks of (`zfs_fuse_unflushed`), one whose threads finished
/// unevenly (its writes' spread over the span is unknown), one of an
/// unknown pattern (an import).
fn judge_job(job: &JobReport, device: &str, bound: &StoreBound) -> Option<Diagnostic> {
    job.write.as_ref()?;
    let skip = [Code::FlushTooFast, Code::ZfsFuseUnflushed, Code::UnevenThreads];
    if job.warnings.iter().any(|w| skip.contains(&w.code)) {
        return None;
    }
    let Named::Known(rw) = &job.rw else {
        return None;
    };
    let writes = Writes {
        span: job.span_bytes,
        bs: job.bs,
        random: rw.is_random(),
        workers: job.workers,
        in_flight: job.bs.saturating_mul(u64::from(job.qd)).saturating_mul(u64::from(job.threads)),
    };
    // With steady-state rounds the figures describe the last window only.
    let first = job.steady.as_ref().map_or(0, |s| job.runs.len().saturating_sub(s.window));
    job.runs.iter().enumerate().skip(first).find_map(|(i, r)| {
        let w = r.write.as_ref()?;
        // The flush began when the window ended, or after the last
        // completion when the workers flushed themselves: the later.
        let before = r.wall_ns.saturating_sub(r.sync_ns).max(r.last_done_ns);
        flush_too_fast(
            device,
            i + 1,
            r.sync_ns,
            &tails(w.bytes, &r.samples.write_bytes_per_s, before),
            &writes,
            bound,
        )
    })
}

/// A run's writes up to where its flush began (`before_ns` from the run's
/// start): all of them, and those of its last seconds (bin `j` holds what
/// completed after `j` s).
fn tails(bytes: u64, bins: &[u64], before_ns: u64) -> Vec<Tail> {
    let mut out = vec![Tail { bytes, over_ns: before_ns }];
    let mut sum = 0u64;
    for j in (1..bins.len()).rev() {
        sum += bins[j];
        let start = j as u64 * 1_000_000_000;
        if before_ns > start {
            out.push(Tail {
                bytes: sum,
                over_ns: before_ns - start,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::tests::fixtures::{J, report};

    const GIB: u64 = 1 << 30;

    /// The battery on its virtual disk: reads at 1,042 MB/s, writes
    /// at 2,331 MB/s for 5 s (the fixture's runs), the flush in 0.3 ms, on
    /// a test file of `span` bytes.
    fn battery(span: u64, flush_ns: u64, read_warning: Option<&str>) -> (Vec<JobReport>, TargetInfo) {
        let mut read = J::read("SEQ1M Q8T1 read", &[1_000e6, 1_042e6]);
        if let Some(code) = read_warning {
            read = read.warn(code, "m");
        }
        let r = report("vm", None, &[read, J::new("SEQ1M Q8T1 write", "write", &[], &[2_331e6])]);
        let mut jobs = r.jobs().to_vec();
        jobs[1].span_bytes = span;
        for run in &mut jobs[1].runs {
            run.sync_ns = flush_ns;
            run.wall_ns = 5_000_000_000 + flush_ns;
        }
        (jobs, r.target)
    }

    fn codes(j: &JobReport) -> Vec<&str> {
        j.warnings.iter().map(|w| w.code.as_str()).collect()
    }

    #[test]
    fn a_battery_names_the_write_its_reads_show_was_too_fast() {
        let (mut jobs, target) = battery(16 * GIB, 300_000, None);
        judge_flushes(&mut jobs, &target, None);
        assert_eq!(codes(&jobs[0]), Vec::<&str>::new(), "the read is not judged");
        assert_eq!(codes(&jobs[1]), ["flush_too_fast"]);
        let m = &jobs[1].warnings[0].message;
        // 11.66 GB in 5 s against 1,302.5 MB/s (the fastest read run, + 25%): 3.9 s owed.
        assert!(
            m.contains("returned in 300.0 µs after 10.85 GiB were written in the 5.00 s before it (2331.0 MB/s)")
                && m.contains("/dev/nvme0n1 stores at most 1302.5 MB/s (its fastest read, SEQ1M Q8T1 read at 1042.0 MB/s, + 25%)")
                && m.contains("needed at least 3.9"),
            "{m}"
        );
    }

    #[test]
    fn an_honest_flush_a_plain_write_job_or_a_capped_read_gets_nothing() {
        // The flush took the time: honest.
        let (mut jobs, target) = battery(16 * GIB, 4_000_000_000, None);
        judge_flushes(&mut jobs, &target, None);
        assert!(jobs.iter().all(|j| j.warnings.is_empty()));
        // No read in the run: no bound (a cliff is none: an SLC cache is flash).
        let (mut jobs, target) = battery(16 * GIB, 300_000, None);
        let mut alone = jobs.split_off(1);
        judge_flushes(&mut alone, &target, None);
        assert!(alone[0].warnings.is_empty());
        // The fastest read was the throttle's or the CPU's.
        for code in ["at_throttle", "cpu_bound"] {
            let (mut jobs, target) = battery(16 * GIB, 300_000, Some(code));
            judge_flushes(&mut jobs, &target, None);
            assert_eq!(codes(&jobs[1]), Vec::<&str>::new(), "{code}");
        }
    }

    /// A run of one write job gets a read of its own after it: where it
    /// reads, and the write judged on its figure as on a battery's read.
    #[test]
    fn a_plain_write_job_is_judged_on_the_read_taken_after_it() {
        let (jobs, target) = battery(16 * GIB, 300_000, None);
        let mut alone = jobs[1..].to_vec();
        let written: u64 = alone[0].runs.iter().map(|r| r.write.as_ref().unwrap().bytes).sum();
        let (offset, span) = reference_extent(&alone, &target).expect("a write job alone needs a reference");
        assert_eq!(offset, alone[0].offset_bytes);
        assert_eq!(span, written / (1 << 20) * (1 << 20), "what the job wrote, whole MiB");
        judge_flushes(&mut alone, &target, Some(&jobs[0]));
        assert_eq!(codes(&alone[0]), ["flush_too_fast"]);
        assert!(
            alone[0].warnings[0]
                .message
                .contains("its fastest read, SEQ1M Q8T1 read at 1042.0 MB/s")
        );
        // A flush that took the time it needed is honest, reference or not.
        let (jobs, target) = battery(16 * GIB, 4_000_000_000, None);
        let mut alone = jobs[1..].to_vec();
        judge_flushes(&mut alone, &target, Some(&jobs[0]));
        assert!(alone[0].warnings.is_empty());
    }

    #[test]
    fn no_reference_read_where_the_run_reads_or_none_would_be_a_bound() {
        // The battery reads: its reads are the bound.
        let (jobs, target) = battery(16 * GIB, 300_000, None);
        assert_eq!(reference_extent(&jobs, &target), None);
        // Nothing written.
        assert_eq!(reference_extent(&jobs[..1], &target), None);
        // Under 16 MiB written: no flush could owe 100 ms.
        let (jobs, target) = battery(8 << 20, 300_000, None);
        assert_eq!(reference_extent(&jobs[1..], &target), None);
        // A memory-backed target.
        let (jobs, mut target) = battery(16 * GIB, 300_000, None);
        target.filesystem = Some(crate::device::FsInfo {
            fstype: "tmpfs".into(),
            mount_point: "/dev/shm".into(),
            source: "tmpfs".into(),
            options: "rw".into(),
            super_options: "rw".into(),
            dev: (0, 30),
        });
        assert_eq!(reference_extent(&jobs[1..], &target), None);
    }

    /// The default 1 GiB test file, written over four times a run: a cache
    /// that merges overwrites owes 1 GiB, which 5 s at the bound store.
    #[test]
    fn a_test_file_written_over_and_over_is_no_evidence() {
        let (mut jobs, target) = battery(GIB, 300_000, None);
        judge_flushes(&mut jobs, &target, None);
        assert!(jobs[1].warnings.is_empty());
    }

    #[test]
    fn a_memory_backed_target_is_its_own_storage() {
        let (mut jobs, mut target) = battery(16 * GIB, 300_000, None);
        target.filesystem = Some(crate::device::FsInfo {
            fstype: "tmpfs".into(),
            mount_point: "/dev/shm".into(),
            source: "tmpfs".into(),
            options: "rw".into(),
            super_options: "rw".into(),
            dev: (0, 30),
        });
        judge_flushes(&mut jobs, &target, None);
        assert!(jobs[1].warnings.is_empty());
    }

    /// After the warnings that break the figure, before the others; once.
    #[test]
    fn the_finding_goes_after_the_untrustworthy_warnings_and_only_once() {
        let (mut jobs, target) = battery(16 * GIB, 300_000, None);
        jobs[1].warnings = vec![Diagnostic::new(Code::CacheAnswered, "c"), Diagnostic::new(Code::WriteCliff, "w")];
        judge_flushes(&mut jobs, &target, None);
        judge_flushes(&mut jobs, &target, None);
        assert_eq!(codes(&jobs[1]), ["cache_answered", "flush_too_fast", "write_cliff"]);
    }

    #[test]
    fn the_last_seconds_count_from_where_the_flush_began() {
        let t = tails(30, &[10, 10, 10], 2_500_000_000);
        assert_eq!(
            t,
            [
                Tail {
                    bytes: 30,
                    over_ns: 2_500_000_000
                },
                Tail {
                    bytes: 10,
                    over_ns: 500_000_000
                },
                Tail {
                    bytes: 20,
                    over_ns: 1_500_000_000
                },
            ]
        );
        // A bin that starts after the flush began says nothing.
        assert_eq!(tails(20, &[10, 10], 900_000_000).len(), 1);
    }
}
