//! The SD Association's classes as `run --suite sdcard` measured them: for
//! each family (Speed Class, UHS Speed Class, Video Speed Class, Application
//! Performance Class) the highest class met, and for each class above it the
//! figure that misses.
//!
//! A class is met only when the lower end of each of its figures' intervals
//! ([`median_ci`]: the runs' spread) clears the bar: a card that measures
//! exactly at a bar, or whose runs straddle it, is not called a member. A
//! figure with a single run has no interval and meets nothing.
//!
//! A class a figure clears is withheld, not met, when that figure is one
//! iolab calls untrustworthy (its job carries `memory_device`,
//! `cache_answered`...: [`super::trust`]); a figure that misses still says so.
//!
//! A2 is meant with the host's command queueing: its IOPS are taken at the
//! suite's deep queue. Behind a reader that cannot queue (USB bulk-only
//! transport, a SCSI queue depth of 1) a card that misses A2 is said to be
//! out of reach through that reader, not "not A2".
//!
//! Pure: figures in, verdicts out. The bars are `base::thresholds`'.

use super::stats::{median, median_ci};
use super::trust::Distrust;
use crate::base::thresholds::{APP_CLASSES, ClassBar, SD_MB, SPEED_CLASSES, UHS_CLASSES, VIDEO_CLASSES};
use serde::{Deserialize, Serialize};

/// Which of the suite's figures a bar is set on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Sustained sequential write (bytes/s).
    SeqWrite,
    /// Sequential read (bytes/s); no class sets a bar on it.
    SeqRead,
    /// 4 KiB random reads per second at queue depth 1.
    RandRead,
    /// 4 KiB random writes per second at queue depth 1.
    RandWrite,
    /// 4 KiB random reads per second at the deep queue (A2).
    RandReadDeep,
    /// 4 KiB random writes per second at the deep queue (A2).
    RandWriteDeep,
}

impl Figure {
    pub const ALL: [Figure; 6] = [
        Figure::SeqWrite,
        Figure::SeqRead,
        Figure::RandRead,
        Figure::RandWrite,
        Figure::RandReadDeep,
        Figure::RandWriteDeep,
    ];
    /// How a verdict names it.
    pub fn label(self) -> &'static str {
        match self {
            Figure::SeqWrite => "sustained write",
            Figure::SeqRead => "sequential read",
            Figure::RandRead => "random read",
            Figure::RandWrite => "random write",
            Figure::RandReadDeep => "queued random read",
            Figure::RandWriteDeep => "queued random write",
        }
    }
    /// A rate in bytes/s (false: I/Os per second).
    pub fn is_bandwidth(self) -> bool {
        matches!(self, Figure::SeqWrite | Figure::SeqRead)
    }
    /// `12.3 MB/s` (10^6 bytes, the SD Association's MB) or `1,520 IOPS`.
    pub fn fmt(self, v: f64) -> String {
        if self.is_bandwidth() {
            crate::base::units::fmt_mbs(v)
        } else {
            format!("{v:.0} IOPS")
        }
    }
}

/// One measured figure: its per-run values' median and interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measured {
    /// Which figure it is.
    pub figure: Figure,
    /// The test it comes from (`RND4K Q1T1 write`).
    pub test: String,
    /// The median over the runs.
    #[schemars(extend("x-unit" = "B/s|IOPS"))]
    pub median: f64,
    /// The low end of the median's 95% interval (`null`: fewer than two runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "B/s|IOPS"))]
    pub lo: Option<f64>,
    /// The high end of the median's 95% interval (`null`: fewer than two runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-unit" = "B/s|IOPS"))]
    pub hi: Option<f64>,
    /// Runs measured.
    #[schemars(extend("x-unit" = "count"))]
    pub runs: usize,
    /// The warnings of its job that make it untrustworthy as the card's
    /// speed (`memory_device`, `cache_answered`...): a class it clears is
    /// then withheld, not met.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untrusted: Vec<String>,
}

impl Measured {
    /// From one test's per-run values (none finite: `None`).
    pub fn of(figure: Figure, test: &str, runs: &[f64]) -> Option<Measured> {
        let v: Vec<f64> = runs.iter().copied().filter(|x| x.is_finite()).collect();
        let ci = median_ci(&v);
        (!v.is_empty()).then(|| Measured {
            figure,
            test: test.to_string(),
            median: median(&v),
            lo: ci.map(|c| c.0),
            hi: ci.map(|c| c.1),
            runs: v.len(),
            untrusted: Vec::new(),
        })
    }

    /// The same, with the untrustworthy codes of the job it comes from.
    pub fn untrusted(mut self, codes: Vec<String>) -> Measured {
        self.untrusted = codes;
        self
    }
    /// The median's interval, when there is one.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.lo.zip(self.hi)
    }
    /// `31.2 MB/s (30.4–32.0)`, or with `(1 run)` when there is no interval.
    pub fn text(&self) -> String {
        match self.interval() {
            Some((lo, hi)) => format!("{} ({}–{})", self.figure.fmt(self.median), self.figure.fmt(lo), self.figure.fmt(hi)),
            None => format!("{} (1 run, no interval)", self.figure.fmt(self.median)),
        }
    }
}

/// What the reader the card sits behind can do, from `info`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reader {
    /// The reader and bus as `info` names them (`USB (usb-storage) 0bda:0129 Realtek USB2.0-CRW, 480 Mbit/s`).
    pub name: String,
    /// `false`: it passes one command at a time (USB bulk-only, queue
    /// depth 1), so A2's queued figures cannot be reached through it;
    /// `null`: not known.
    pub queues: Option<bool>,
    /// Why `queues` is what it is.
    pub why: String,
}

/// A class family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    Speed,
    Uhs,
    Video,
    Application,
}

impl Family {
    pub const ALL: [Family; 4] = [Family::Speed, Family::Uhs, Family::Video, Family::Application];
    pub fn label(self) -> &'static str {
        match self {
            Family::Speed => "Speed Class",
            Family::Uhs => "UHS Speed Class",
            Family::Video => "Video Speed Class",
            Family::Application => "Application Performance Class",
        }
    }
    pub fn bars(self) -> &'static [ClassBar] {
        match self {
            Family::Speed => &SPEED_CLASSES,
            Family::Uhs => &UHS_CLASSES,
            Family::Video => &VIDEO_CLASSES,
            Family::Application => &APP_CLASSES,
        }
    }
}

/// Why one class is not met.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Miss {
    /// The class (`A1`).
    pub class: String,
    /// The figure that misses.
    pub figure: Figure,
    /// The bar.
    #[schemars(extend("x-unit" = "B/s|IOPS"))]
    pub bar: f64,
    /// The figure's median and interval as measured (`null`: not measured).
    pub measured: Option<Measured>,
    /// The class cannot be reached through this reader (A2 behind one that
    /// cannot queue): the card may hold it elsewhere.
    #[serde(default)]
    pub unreachable: bool,
    /// The line: `not A1: random write 300 IOPS < 500`.
    pub text: String,
}

/// One family's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FamilyVerdict {
    /// The family judged.
    pub family: Family,
    /// The highest class met (`null`: none).
    pub met: Option<String>,
    /// Each class above it, and the figure that misses.
    pub misses: Vec<Miss>,
    /// The verdict in one line: `meets V30; not V60: sustained write 35.0 MB/s < 60`.
    pub text: String,
}

/// `run --suite sdcard`'s verdict: the figures, then a verdict per family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassReport {
    /// The suite's figures, each with its interval.
    pub figures: Vec<Measured>,
    /// The reader the card was measured through.
    pub reader: Reader,
    /// Each family's verdict: Speed, UHS, Video, Application.
    pub families: Vec<FamilyVerdict>,
    /// What the verdicts mean: iolab's conditions, not the SD Association's.
    pub caveat: String,
}

/// The caveat every class verdict carries.
pub fn caveat(reader: &str) -> String {
    format!(
        "as iolab measured it on this host through {reader}: the SD Association tests a card freshly formatted by its formatter, \
         writing whole allocation units, in a host at a known bus mode"
    )
}

/// The figures a bar is checked against: A2's IOPS at the deep queue.
fn figure_for(deep: bool, f: Figure) -> Figure {
    match (deep, f) {
        (true, Figure::RandRead) => Figure::RandReadDeep,
        (true, Figure::RandWrite) => Figure::RandWriteDeep,
        _ => f,
    }
}

/// A2 is the one class meant with the host's command queueing.
fn queued(bar: &ClassBar) -> bool {
    bar.name == "A2"
}

/// The first figure of `bar` that does not clear it, as a [`Miss`]; else
/// the first that clears it on a figure iolab calls untrustworthy (the
/// class is then withheld: no class is met on a cache's or memory's speed).
fn miss(bar: &ClassBar, figures: &[Measured], reader: &Reader) -> Option<Miss> {
    let deep = queued(bar);
    let wants = [
        (Figure::SeqWrite, bar.seq_write),
        (Figure::RandRead, bar.rand_read_iops),
        (Figure::RandWrite, bar.rand_write_iops),
    ];
    let mut withheld: Option<Miss> = None;
    for (f, want) in wants {
        let Some(want) = want else { continue };
        let f = figure_for(deep, f);
        let m = figures.iter().find(|m| m.figure == f);
        let unreachable = deep && reader.queues == Some(false);
        let text = match m {
            None => format!("not {}: {} not measured", bar.name, f.label()),
            Some(m) => match m.interval() {
                Some((lo, _)) if lo >= want => {
                    if withheld.is_none() && !m.untrusted.is_empty() {
                        let mut d = Distrust::new();
                        d.add(&format!("{} {}", f.label(), f.fmt(m.median)), &m.untrusted);
                        withheld = Some(Miss {
                            class: bar.name.to_string(),
                            figure: f,
                            bar: want,
                            measured: Some(m.clone()),
                            unreachable: false,
                            text: format!("{} withheld: {}, so it is not the card's speed", bar.name, d.sentence()),
                        });
                    }
                    continue;
                }
                None => format!(
                    "{} unknown: {} {} from one run (no interval; use --runs 2 or more)",
                    bar.name,
                    f.label(),
                    f.fmt(m.median)
                ),
                Some((lo, hi)) if m.median >= want => format!(
                    "{} not shown: {} {} (95% interval {}–{}) does not clear {} with its spread",
                    bar.name,
                    f.label(),
                    f.fmt(m.median),
                    f.fmt(lo),
                    f.fmt(hi),
                    f.fmt(want)
                ),
                Some(_) => format!("not {}: {} {} < {}", bar.name, f.label(), f.fmt(m.median), bare(f, want)),
            },
        };
        let text = if unreachable {
            format!(
                "{} cannot be reached through {} ({}): {}",
                bar.name,
                reader.name,
                reader.why,
                text.split_once(": ").map_or(text.as_str(), |(_, rest)| rest)
            )
        } else {
            text
        };
        return Some(Miss {
            class: bar.name.to_string(),
            figure: f,
            bar: want,
            measured: m.cloned(),
            unreachable,
            text,
        });
    }
    withheld
}

/// A bar without its unit when the unit was just said (`< 500`, `< 60`).
fn bare(f: Figure, want: f64) -> String {
    if f.is_bandwidth() {
        format!("{}", want / SD_MB)
    } else {
        format!("{want:.0}")
    }
}

/// One family: the highest class met, and what misses above it.
pub fn family(fam: Family, figures: &[Measured], reader: &Reader) -> FamilyVerdict {
    let checked: Vec<(&ClassBar, Option<Miss>)> = fam.bars().iter().map(|b| (b, miss(b, figures, reader))).collect();
    // The highest class whose bars are all cleared, with every class below it met too
    // (bars rise along a family).
    let met_count = checked.iter().take_while(|(_, m)| m.is_none()).count();
    let met = met_count.checked_sub(1).map(|i| checked[i].0.name.to_string());
    let misses: Vec<Miss> = checked.into_iter().skip(met_count).filter_map(|(_, m)| m).collect();
    let head = match &met {
        Some(c) => format!("meets {c}"),
        None => "meets none".to_string(),
    };
    let text = std::iter::once(head)
        .chain(misses.iter().map(|m| m.text.clone()))
        .collect::<Vec<_>>()
        .join("; ");
    FamilyVerdict {
        family: fam,
        met,
        misses,
        text,
    }
}

/// Every family's verdict from the suite's figures.
pub fn judge(figures: Vec<Measured>, reader: Reader) -> ClassReport {
    let families = Family::ALL.iter().map(|&f| family(f, &figures, &reader)).collect();
    ClassReport {
        caveat: caveat(&reader.name),
        figures,
        reader,
        families,
    }
}

#[cfg(test)]
#[path = "class_tests.rs"]
mod tests;
