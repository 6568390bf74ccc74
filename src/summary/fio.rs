//! fio's sections back into iolab's tests.
//!
//! A plan written as a fio job file ([`crate::plan::fio`]) has one section
//! per test *and* measured run, named by [`section_name`] (`NAME#k`), so fio
//! reports every run as a job of its own. [`merge_fio_sections`] turns those
//! back into one [`JobReport`] per test, as iolab's own runner would have
//! written it: the sections' runs in run order, the job's figures the
//! medians over them with the spread of bandwidth, and the spread judged
//! by the same rule (`high_cv`).

use super::job::{cpu_median, dir_median};
use super::{Body, DeviceReport, JobReport, Report, RunReport, cross_check};
use crate::judge::job as rules;
use crate::judge::{Code, Diagnostic};
use crate::plan::fio::section_name;
use std::collections::HashSet;

/// The test and the run number (1-based) of a section named by
/// [`section_name`]; `None` for any other name.
///
/// The inverse of `section_name` itself, not of its current spelling:
/// every number in `name` is tried as the run `k`, and it is the run when
/// `name` is `section_name(test, k)` for the rest of the name `test`. So
/// it follows any spelling that puts the run after the test's name.
pub fn section_of(name: &str) -> Option<(&str, u32)> {
    let digits = name.char_indices().filter(|(_, c)| c.is_ascii_digit());
    let mut found = None;
    for (start, _) in digits {
        if start > 0 && name.as_bytes()[start - 1].is_ascii_digit() {
            continue; // not the start of a number
        }
        let len = name[start..].bytes().take_while(u8::is_ascii_digit).count();
        let Ok(k) = name[start..start + len].parse::<u32>() else { continue };
        if k == 0 {
            continue;
        }
        let suffix = section_name("", k);
        if let Some(test) = name.strip_suffix(suffix.as_str())
            && !test.is_empty()
            && section_name(test, k) == name
        {
            found = Some((test, k));
        }
    }
    found
}

/// Merge the sections of each test into one job (see the module). Jobs
/// whose names are not [`section_name`]s pass through unchanged, and so
/// do a test's sections when a run number repeats (not one plan's
/// sections: e.g. fio's clones without `group_reporting`). A test takes
/// the place of its first section; the other fields of the job are its
/// lowest-numbered section's, its warnings those of all its sections (each
/// code and message once), `high_cv` judged on the merged runs, and the
/// device cross-check on the summed device when there is one.
/// `settings.runs` becomes the number of runs per test (the most of any
/// test); it is unchanged when nothing was merged.
pub fn merge_fio_sections(mut report: Report) -> Report {
    let jobs = match &mut report.body {
        Body::Jobs(jobs) | Body::Scan { jobs, .. } | Body::Scale { jobs, .. } => jobs,
        Body::Time(_) | Body::App(_) | Body::Verify(_) | Body::Capacity(_) | Body::Flush(_) => return report,
    };
    let (merged, runs) = merge_jobs(std::mem::take(jobs));
    *jobs = merged;
    if let Some(runs) = runs {
        report.settings.runs = runs;
    }
    report
}

/// A job that passes through, or the sections of one test.
enum Slot {
    Job(Box<JobReport>),
    Test(String, Vec<(u32, JobReport)>),
}

/// The merged jobs, and the most runs of a merged test (`None`: none merged).
fn merge_jobs(jobs: Vec<JobReport>) -> (Vec<JobReport>, Option<u32>) {
    let keys: Vec<Option<(String, u32)>> = jobs.iter().map(|j| section_of(&j.name).map(|(t, k)| (t.to_string(), k))).collect();
    let mut seen = HashSet::new();
    let repeated: HashSet<&str> = keys
        .iter()
        .flatten()
        .filter(|(t, k)| !seen.insert((t.as_str(), *k)))
        .map(|(t, _)| t.as_str())
        .collect();
    let mut slots: Vec<Slot> = Vec::new();
    for (job, key) in jobs.into_iter().zip(&keys) {
        match key {
            Some((test, k)) if !repeated.contains(test.as_str()) => {
                match slots.iter_mut().find_map(|s| match s {
                    Slot::Test(t, sections) if t == test => Some(sections),
                    _ => None,
                }) {
                    Some(sections) => sections.push((*k, job)),
                    None => slots.push(Slot::Test(test.clone(), vec![(*k, job)])),
                }
            }
            _ => slots.push(Slot::Job(Box::new(job))),
        }
    }
    let mut most: Option<u32> = None;
    let merged = slots
        .into_iter()
        .map(|slot| match slot {
            Slot::Job(job) => *job,
            Slot::Test(test, mut sections) => {
                sections.sort_by_key(|(k, _)| *k);
                let job = merge_test(test, sections.into_iter().map(|(_, j)| j).collect());
                most = most.max(Some(job.runs.len() as u32));
                job
            }
        })
        .collect();
    (merged, most)
}

/// One test from its sections, in run order (at least one).
fn merge_test(test: String, sections: Vec<JobReport>) -> JobReport {
    let runs: Vec<RunReport> = sections.iter().flat_map(|s| s.runs.iter().cloned()).collect();
    let device = summed_device(&sections);
    // Judged again below on the merged runs and the summed device.
    let rejudged = |c: &Code| *c == Code::HighCv || (device.is_some() && matches!(c, Code::CacheAnswered | Code::DeviceExtra));
    let mut warnings: Vec<Diagnostic> = Vec::new();
    for w in sections.iter().flat_map(|s| &s.warnings).filter(|w| !rejudged(&w.code)) {
        // fio's CPU note quotes each section's own figures: once per test is enough.
        let per_test = w.code == crate::judge::Code::FioCpuPerThread;
        if !warnings.iter().any(|x| x.code == w.code && (per_test || x.message == w.message)) {
            warnings.push(w.clone());
        }
    }
    warnings.extend(device.iter().flat_map(cross_check));
    let mut job = sections.into_iter().next().expect("a test has a section");
    if !runs.is_empty() {
        job.read = dir_median(&runs.iter().filter_map(|r| r.read.as_ref()).collect::<Vec<_>>());
        job.write = dir_median(&runs.iter().filter_map(|r| r.write.as_ref()).collect::<Vec<_>>());
        job.cpu = cpu_median(&runs);
    }
    warnings.extend(
        [
            rules::high_cv("read", job.read.as_ref().and_then(|r| r.bw_cv)),
            rules::high_cv("write", job.write.as_ref().and_then(|r| r.bw_cv)),
        ]
        .into_iter()
        .flatten(),
    );
    job.name = test;
    job.runs = runs;
    job.warnings = warnings;
    job.device = device;
    job
}

/// The sections' device counters summed, as iolab sums them over a job's
/// runs; `None` unless every section has the same device (fio gives one
/// only when its `disk_util` belongs to a single job). Devices further
/// down are summed when every section lists the same ones.
fn summed_device(sections: &[JobReport]) -> Option<DeviceReport> {
    let devices: Vec<&DeviceReport> = sections.iter().map(|s| s.device.as_ref()).collect::<Option<_>>()?;
    let (first, rest) = devices.split_first()?;
    if rest.iter().any(|d| d.name != first.name) {
        return None;
    }
    let mut sum = (*first).clone();
    let same_lower =
        |d: &DeviceReport| d.lower.len() == first.lower.len() && d.lower.iter().zip(&first.lower).all(|(a, b)| a.name == b.name);
    if !rest.iter().all(|d| same_lower(d)) {
        sum.lower.clear();
    }
    for d in rest {
        sum.read_bytes += d.read_bytes;
        sum.write_bytes += d.write_bytes;
        sum.read_ios += d.read_ios;
        sum.write_ios += d.write_ios;
        sum.job_read_bytes += d.job_read_bytes;
        sum.job_write_bytes += d.job_write_bytes;
        for (s, l) in sum.lower.iter_mut().zip(&d.lower) {
            s.read_bytes += l.read_bytes;
            s.write_bytes += l.write_bytes;
            s.read_ios += l.read_ios;
            s.write_ios += l.write_ios;
            s.busy_ns += l.busy_ns;
        }
    }
    Some(sum)
}

#[cfg(test)]
#[path = "fio_tests.rs"]
mod tests;
