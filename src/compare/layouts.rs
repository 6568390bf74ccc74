//! The comparison of configurations `iolab layouts` built: the figures its
//! verdicts need, taken from the runs (each multi-device configuration
//! against one disk of its kind, each property of a sweep against another
//! value of it, every configuration against the best), and the verdicts
//! themselves from [`crate::judge::layouts`]. Pure: runs in, findings out.

use super::{RunRef, TestComparison, find_job, other, ratios};
use crate::base::units::Unit;
use crate::judge::Diagnostic;
use crate::judge::layouts::{PropertyEffect, Ratio, Shape, Standing, VsOneDisk, best, geometric_mean, property_effect, vs_one_disk};
use crate::plan::layouts::{Fs, Layout, ZfsVdev};
use crate::summary::{Direction, JobReport};
use serde::Serialize;

/// What `iolab layouts` built a run on, as the comparison needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Built {
    pub layout: Layout,
    /// How many devices it spreads over.
    pub members: u32,
    /// The member devices' names (`loop3`, `sdb`), in the order given
    /// (empty when not known).
    pub devices: Vec<String>,
    /// The sweep's settings (`recordsize`=`8K`, `mount-options`=`noatime`).
    pub properties: Vec<(String, String)>,
    /// The capacity the built filesystem or pool offers (statvfs of its
    /// mount point right after it was built), when known.
    pub usable_bytes: Option<u64>,
}

/// A configuration's column in the comparison document.
#[derive(Clone, Debug, Serialize, PartialEq, schemars::JsonSchema)]
pub struct BuiltLayout {
    /// The layout without its device count: `zfs-mirror`, `btrfs-raid1`, `md-raid5+ext4`.
    pub kind: String,
    /// How many devices it spreads over.
    #[schemars(extend("x-unit" = "count"))]
    pub members: u32,
    /// The member devices, in the order given.
    pub devices: Vec<String>,
    /// The sweep's settings, `KEY=VALUE`.
    pub settings: Vec<String>,
    /// The capacity the built filesystem or pool offered (`statvfs` of its mount point).
    #[schemars(extend("x-unit" = "bytes"))]
    pub usable_bytes: Option<u64>,
}

impl Built {
    pub fn info(&self) -> BuiltLayout {
        BuiltLayout {
            kind: self.layout.base_name(),
            members: self.members,
            devices: self.devices.clone(),
            settings: self.properties.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            usable_bytes: self.usable_bytes,
        }
    }

    fn shape(&self) -> Shape {
        Shape::of(self.layout, self.members)
    }

    /// The single-device layout of the same kind: ZFS's is `zfs`, btrfs's
    /// `btrfs`, an md array's or LVM stripe's its filesystem on one disk.
    fn one_disk_kind(&self) -> Layout {
        match self.layout {
            Layout::Zfs(_) => Layout::Zfs(ZfsVdev::Single),
            Layout::BtrfsRaid(_) => Layout::Single(Fs::Btrfs),
            Layout::Md(_, fs) | Layout::LvmStripe(fs) => Layout::Single(fs),
            Layout::Single(_) => self.layout,
        }
    }
}

/// Each run's per-run figures of test `t`, in its unit.
fn samples(runs: &[RunRef], t: &TestComparison) -> Vec<Vec<f64>> {
    runs.iter()
        .map(|r| match t.direction {
            Direction::App => other(&r.report)
                .into_iter()
                .find(|(n, ..)| *n == t.test)
                .map(|(.., s)| s)
                .unwrap_or_default(),
            d => find_job(&r.report, &t.job, t.unit == Unit::Iops, d)
                .map(|j| super::per_run(j, d, t.unit))
                .unwrap_or_default(),
        })
        .collect()
}

/// A verdict on figures a warning calls untrustworthy (a cache answered,
/// the ARC, no block device...: [`crate::judge::trust`]) says so, and its
/// severity is `untrustworthy`: " Caveat: zfs-stripe2 carries
/// zfs_arc_cached." The verdict stands on the figures as measured.
fn caveat(d: Diagnostic, t: &TestComparison, runs: &[(usize, &String)]) -> Diagnostic {
    caveat_all(d, std::slice::from_ref(t), runs)
}

/// The same for a verdict on several tests (the best configuration): the
/// untrustworthy codes each of `runs` carries on any of `tests`.
fn caveat_all(mut d: Diagnostic, tests: &[TestComparison], runs: &[(usize, &String)]) -> Diagnostic {
    let parts: Vec<String> = runs
        .iter()
        .filter_map(|&(k, name)| {
            let mut codes: Vec<String> = Vec::new();
            for c in tests.iter().flat_map(|t| crate::judge::trust::untrusted_codes(&t.warnings[k])) {
                if !codes.contains(&c) {
                    codes.push(c);
                }
            }
            (!codes.is_empty()).then(|| format!("{name} carries {}", codes.join(", ")))
        })
        .collect();
    if !parts.is_empty() {
        d.severity = crate::judge::Severity::Untrustworthy;
        d.message = format!("{}. Caveat: {}: these figures may not be the disks'", d.message, parts.join("; "));
    }
    d
}

/// Run `i` against run `j` on a test: ratio (above 1: better) and interval.
fn pair(t: &TestComparison, s: &[Vec<f64>], i: usize, j: usize) -> Option<Ratio> {
    let r = ratios(&t.values, s, j, t.unit);
    let value = r.ratios[i]?;
    Some(Ratio {
        value,
        ci: r.ci[i].map(|[a, b]| (a, b)),
    })
}

/// How busy a job's members were: the mean of each member's time with I/O
/// in flight over the measured runs' time (only with two members or more
/// and a known time).
fn members_busy(job: &JobReport) -> Option<f64> {
    let wall: u64 = job.runs.iter().map(|r| r.wall_ns).sum();
    let lower = &job.device.as_ref()?.lower;
    if lower.len() < 2 || wall == 0 || lower.iter().all(|m| m.busy_ns == 0) {
        return None;
    }
    let mean = lower.iter().map(|m| m.busy_ns as f64 / wall as f64).sum::<f64>() / lower.len() as f64;
    Some(mean.min(1.0))
}

/// Per direction, the test the layout verdict is given on: the sequential
/// test with the most bytes in flight (else the random one), the job's.
fn judged_tests(tests: &[TestComparison], first: &RunRef) -> Vec<usize> {
    let mut out = Vec::new();
    for d in [Direction::Read, Direction::Write] {
        let best = tests
            .iter()
            .enumerate()
            .filter(|(_, t)| t.direction == d)
            .filter_map(|(k, t)| {
                let j = find_job(&first.report, &t.job, t.unit == Unit::Iops, d)?;
                let seq = !j.rw.is_random() && !j.rw.is_mixed();
                Some((k, (seq, j.bs * u64::from(j.qd) * u64::from(j.threads))))
            })
            .max_by_key(|(k, key)| (*key, std::cmp::Reverse(*k)));
        out.extend(best.map(|(k, _)| k));
    }
    out
}

/// The layout verdicts of a comparison whose runs `iolab layouts` built
/// (`built[i]` for `runs[i]`; empty when none was): each multi-device
/// configuration against one disk of its kind with the same settings,
/// each property against the other values of its sweep, and the best
/// configuration.
pub fn findings(runs: &[RunRef], tests: &[TestComparison], baseline: usize) -> Vec<Diagnostic> {
    let built: Vec<Option<&Built>> = runs.iter().map(|r| r.built.as_ref()).collect();
    if built.iter().all(Option::is_none) || tests.is_empty() {
        return Vec::new();
    }
    let names: Vec<String> = runs
        .iter()
        .map(|r| r.label.clone().unwrap_or_else(|| format!("run {}", r.id)))
        .collect();
    let all: Vec<Vec<Vec<f64>>> = tests.iter().map(|t| samples(runs, t)).collect();
    let mut out = Vec::new();

    // A layout against one disk of its kind.
    for (i, b) in built.iter().enumerate() {
        let Some(b) = b.filter(|b| b.shape().multi()) else { continue };
        let one = built.iter().position(|o| {
            o.is_some_and(|o| o.layout == b.one_disk_kind() && o.properties == b.properties && o.devices.first() == b.devices.first())
        });
        let one = one.or_else(|| {
            built
                .iter()
                .position(|o| o.is_some_and(|o| o.layout == b.one_disk_kind() && o.properties == b.properties))
        });
        let Some(j) = one else { continue };
        for k in judged_tests(tests, &runs[i]) {
            let t = &tests[k];
            let Some(job) = find_job(&runs[i].report, &t.job, t.unit == Unit::Iops, t.direction) else {
                continue;
            };
            let (Some(ratio), Some(rw)) = (pair(t, &all[k], i, j), job.rw.known().copied()) else {
                continue;
            };
            let v = VsOneDisk {
                config: &names[i],
                one_disk: &names[j],
                layout: b.layout,
                shape: b.shape(),
                test: &t.test,
                rw,
                in_flight: job.qd.max(1) * job.threads.max(1),
                ratio,
                members_busy: members_busy(job),
                cpu_busy: Some(job.cpu.system_busy_pct / 100.0).filter(|c| c.is_finite() && *c > 0.0),
            };
            out.extend(vs_one_disk(&v).map(|d| caveat(d, t, &[(i, &names[i]), (j, &names[j])]).on_run(Some(runs[i].id))));
        }
    }

    // A property against the other values of its sweep.
    for (i, b) in built.iter().enumerate() {
        let Some(b) = b else { continue };
        for (j, o) in built.iter().enumerate().take(i) {
            let Some(o) = o.filter(|o| o.layout == b.layout && o.devices == b.devices) else {
                continue;
            };
            if o.properties.len() != b.properties.len() {
                continue;
            }
            let differ: Vec<usize> = (0..b.properties.len()).filter(|&p| b.properties[p] != o.properties[p]).collect();
            let [p] = differ[..] else { continue };
            let (key, value) = &b.properties[p];
            if o.properties[p].0 != *key {
                continue;
            }
            let config = names[i].split('/').next().unwrap_or(&names[i]).to_string();
            let effect = PropertyEffect {
                config: &config,
                key,
                value,
                against: &o.properties[p].1,
                tests: tests
                    .iter()
                    .enumerate()
                    .filter_map(|(k, t)| Some((t.test.as_str(), pair(t, &all[k], i, j)?)))
                    .collect(),
            };
            let shown = |d: Diagnostic| match tests.iter().find(|t| d.subject.as_deref() == Some(t.test.as_str())) {
                Some(t) => caveat(d, t, &[(i, &names[i]), (j, &names[j])]),
                None => d,
            };
            out.extend(property_effect(&effect).map(|d| shown(d).on_run(Some(runs[i].id))));
        }
    }

    // The best for the suite.
    let scores: Vec<f64> = (0..runs.len())
        .map(|i| geometric_mean(tests.iter().map(|t| t.ratios[i].unwrap_or(f64::NAN))).unwrap_or(f64::NAN))
        .collect();
    if let Some(top) = (0..runs.len())
        .filter(|&i| scores[i].is_finite())
        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
    {
        let standings: Vec<Standing> = (0..runs.len())
            .map(|i| Standing {
                config: &names[i],
                score: scores[i],
                vs_best: if i == top {
                    Vec::new()
                } else {
                    tests
                        .iter()
                        .enumerate()
                        .map(|(k, t)| pair(t, &all[k], i, top).unwrap_or(Ratio { value: f64::NAN, ci: None }))
                        .collect()
                },
            })
            .collect();
        // The best rests on its own figures and the baseline's (its score's divisor).
        let mut under: Vec<(usize, &String)> = vec![(top, &names[top])];
        if baseline != top {
            under.push((baseline, &names[baseline]));
        }
        out.extend(best(&standings, &names[baseline], tests.len()).map(|d| caveat_all(d, tests, &under)));
    }
    out
}

/// The tag a run `iolab layouts` stored carries its usable capacity in
/// (bytes, [`Built::usable_bytes`]), for `iolab compare` of stored runs.
pub const USABLE_TAG: &str = "usable";

/// The layout of a stored run from its tags (`layout=zfs-mirror3` and the
/// sweep's settings) and its report (the members `iolab info` found), for
/// `iolab compare` of runs `iolab layouts` stored. `None` without a
/// `layout` tag iolab knows.
pub fn from_tags(tags: &[(String, String)], report: &crate::summary::Report) -> Option<Built> {
    let name = &tags.iter().find(|(k, _)| k == "layout")?.1;
    // `zfs-mirror3/recordsize=8K`, `ext4@sdb`: the layout's name first.
    let name = name.split(['/', '@']).next().unwrap_or(name);
    let (layout, count) = crate::plan::layouts::parse_name(name)?;
    let info = report.target.info.as_ref();
    let devices: Vec<String> = info.map(|i| i.devices.iter().map(|d| d.name.clone()).collect()).unwrap_or_default();
    let members = if layout.single_device() {
        1
    } else {
        count
            .or_else(|| info.and_then(|i| i.layout.as_ref()).map(|l| l.members as usize))
            .unwrap_or(devices.len())
    };
    let properties = tags
        .iter()
        .filter(|(k, _)| crate::plan::layouts::ZFS_SWEEP_KEYS.contains(&k.as_str()) || k == "mount-options")
        .cloned()
        .collect();
    let usable_bytes = tags
        .iter()
        .find(|(k, _)| k == USABLE_TAG)
        .and_then(|(_, v)| v.parse().ok())
        .filter(|b| *b > 0);
    Some(Built {
        layout,
        members: members as u32,
        devices,
        properties,
        usable_bytes,
    })
}
