//! The surface scan's plan: zones from the first byte to the last, the
//! access-time job and the burst job, as ordinary [`JobSpec`]s.

use crate::base::error::{Result, usage};
use crate::base::units::fmt_bs;
use crate::io::engine::EngineKind;
use crate::plan::{JobSpec, Limit, Repeat, Rw};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How much of each zone is measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneAmount {
    /// This many bytes from the zone's start (clamped to the zone).
    Window(u64),
    /// This long from the zone's start (wrapping inside the zone if it is fast).
    Time(Duration),
}

/// A position on the target, as the user gave it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Position {
    /// Percent of the span (0–100).
    Percent(f64),
    Bytes(u64),
}

impl Position {
    /// `10%`, `50.5%`, or a size such as `100GiB`.
    pub fn parse(s: &str) -> std::result::Result<Position, String> {
        if let Some(p) = s.trim().strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| format!("'{s}' is not a percentage"))?;
            if !(0.0..=100.0).contains(&v) {
                return Err(format!("percentage must be between 0 and 100, got {v}"));
            }
            return Ok(Position::Percent(v));
        }
        crate::base::units::parse_size(s).map(Position::Bytes)
    }

    /// The byte offset in a span of `span` bytes, aligned down to `align`.
    pub fn resolve(self, span: u64, align: u64) -> u64 {
        let b = match self {
            Position::Percent(p) => (span as f64 * p / 100.0) as u64,
            Position::Bytes(b) => b.min(span),
        };
        b - b % align.max(1)
    }
}

/// Everything a scan does, resolved against the target.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScanPlan {
    pub zones: u32,
    pub amount: ZoneAmount,
    /// Transfer size and queue depth of the zone reads (or writes).
    pub bs: u64,
    pub qd: u32,
    /// The scanned byte range `[from, to)`.
    pub from: u64,
    pub to: u64,
    /// Write the zones instead of reading them (destroys data).
    pub write: bool,
    /// Random 4K reads for the access time (0: skip).
    pub access: u32,
    /// Discarded lead-in before each zone's window, in the same stream.
    pub zone_warmup: Duration,
    /// Measure the burst rate (only meaningful with O_DIRECT).
    pub burst: bool,
    pub direct: bool,
    pub engine: EngineKind,
}

/// Block size of the access-time reads, as HD Tach and HD Tune use.
pub const ACCESS_BS: u64 = 4096;
/// The burst rate reads this small region over and over: small enough for
/// any drive's cache, large enough for several requests in flight.
pub const BURST_REGION: u64 = 1 << 20;
const BURST_BS: u64 = 128 << 10;
const BURST_QD: u32 = 4;
const BURST_TIME: Duration = Duration::from_millis(500);

/// One zone of the scanned range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    pub index: u32,
    pub offset: u64,
    pub len: u64,
}

impl ScanPlan {
    /// The zones, outer (low offsets) to inner. Zone lengths are whole
    /// transfers; when the range is too small for `zones` zones of one
    /// transfer each, there are fewer zones.
    pub fn zone_list(&self) -> Vec<Zone> {
        let range = self.to.saturating_sub(self.from);
        let n = (self.zones as u64).min(range / self.bs).max(1);
        let len = (range / n / self.bs).max(1) * self.bs;
        (0..n)
            .map(|i| Zone {
                index: i as u32,
                offset: self.from + i * len,
                len,
            })
            .collect()
    }

    /// Check the plan against the target before any I/O.
    pub fn validate(&self) -> Result<()> {
        if self.to <= self.from {
            return Err(usage(format!(
                "the scanned range is empty (--from {} is not below --to {})",
                crate::base::units::fmt_bytes(self.from),
                crate::base::units::fmt_bytes(self.to)
            )));
        }
        if self.to - self.from < self.bs {
            return Err(usage(format!(
                "the scanned range ({}) is smaller than one transfer ({})",
                crate::base::units::fmt_bytes(self.to - self.from),
                fmt_bs(self.bs)
            )));
        }
        Ok(())
    }

    fn dir(&self) -> (Rw, &'static str) {
        if self.write { (Rw::Write, "write") } else { (Rw::Read, "read") }
    }

    /// The job measuring one zone.
    pub fn zone_spec(&self, z: &Zone) -> JobSpec {
        let (rw, what) = self.dir();
        JobSpec {
            name: format!("SCAN{} Q{}T1 {what} zone {}", fmt_bs(self.bs), self.qd, z.index),
            rw,
            bs: self.bs,
            qd: self.qd,
            threads: 1,
            mix_read: 100,
            limit: match self.amount {
                ZoneAmount::Window(b) => Limit::Bytes(b.min(z.len).max(self.bs)),
                ZoneAmount::Time(d) => Limit::Time(d),
            },
            span: z.len,
            offset: z.offset,
            direct: self.direct,
            engine: self.engine,
            timing: crate::plan::Timing::Exact,
            sync: Default::default(),
        }
    }

    /// The name under which the zones are reported as one job.
    pub fn zones_job_name(&self) -> String {
        format!("SCAN{} Q{}T1 {}", fmt_bs(self.bs), self.qd, self.dir().1)
    }

    /// Random 4K reads at QD1 over the whole range: the access time.
    pub fn access_spec(&self) -> Option<JobSpec> {
        (self.access > 0).then(|| JobSpec {
            name: "ACCESS 4K Q1T1 randread".into(),
            rw: Rw::Randread,
            bs: ACCESS_BS,
            qd: 1,
            threads: 1,
            mix_read: 100,
            limit: Limit::Bytes(self.access as u64 * ACCESS_BS),
            span: self.to - self.from,
            offset: self.from,
            direct: self.direct,
            engine: self.engine,
            timing: crate::plan::Timing::Exact,
            sync: Default::default(),
        })
    }

    /// The same small region read again and again: what the drive's cache
    /// and interface deliver (HD Tach's burst rate).
    pub fn burst_spec(&self) -> Option<JobSpec> {
        (self.burst && self.direct && self.to - self.from >= BURST_REGION).then(|| JobSpec {
            name: format!("BURST{} Q{BURST_QD}T1 read", fmt_bs(BURST_BS)),
            rw: Rw::Read,
            bs: BURST_BS,
            qd: BURST_QD,
            threads: 1,
            mix_read: 100,
            limit: Limit::Time(BURST_TIME),
            span: BURST_REGION,
            offset: self.from,
            direct: true,
            engine: self.engine,
            timing: crate::plan::Timing::Exact,
            sync: Default::default(),
        })
    }

    pub fn repeat(&self) -> Repeat {
        Repeat::fixed(1, self.zone_warmup, Duration::ZERO)
    }

    /// What the scan will take, known before it starts: the parts whose
    /// length is fixed and the bytes the zones read.
    pub fn estimate(&self) -> ScanEstimate {
        let zones = self.zone_list();
        let n = zones.len() as u32;
        let mut fixed = self.zone_warmup * n;
        let mut bytes = 0u64;
        for z in &zones {
            match self.zone_spec(z).limit {
                Limit::Bytes(b) => bytes += b,
                Limit::Time(d) => fixed += d,
                Limit::Span => bytes += z.len,
            }
        }
        if self.burst_spec().is_some() {
            fixed += BURST_TIME;
        }
        ScanEstimate {
            zones: n,
            zone_len: zones.first().map_or(0, |z| z.len),
            fixed,
            bytes,
            access: self.access_spec().map_or(0, |_| self.access),
        }
    }

    /// The plan in one line, printed before the scan starts (and by
    /// `--dry-run`): the zones, what is read of each, and the time it takes
    /// at [`ESTIMATE_RATES`] and [`ESTIMATE_ACCESS`].
    pub fn outline(&self) -> String {
        use crate::base::units::{fmt_bytes, fmt_duration, fmt_estimate};
        let e = self.estimate();
        let (_, what) = self.dir();
        let per_zone = match self.amount {
            ZoneAmount::Window(b) => format!("{} {what} at the start of each", fmt_bytes(b.min(e.zone_len).max(self.bs))),
            ZoneAmount::Time(d) => format!("{what} for {} at the start of each", fmt_duration(d)),
        };
        let lead = if self.zone_warmup.is_zero() {
            String::new()
        } else {
            format!(" after a {} lead-in", fmt_duration(self.zone_warmup))
        };
        let range = self.to - self.from;
        let share = if e.bytes > 0 {
            format!(
                " ({} in all, {:.2}% of the range)",
                fmt_bytes(e.bytes),
                e.bytes as f64 * 100.0 / range as f64
            )
        } else {
            String::new()
        };
        let mut then = Vec::new();
        if e.access > 0 {
            then.push(format!("{} random 4K reads", e.access));
        }
        if self.burst_spec().is_some() {
            then.push(format!("{} of burst reads", fmt_duration(BURST_TIME)));
        }
        let then = if then.is_empty() {
            String::new()
        } else {
            format!("; then {}", then.join(" and "))
        };
        let at = ESTIMATE_RATES
            .iter()
            .map(|&(rate, name)| format!("{} at {name}", fmt_estimate(e.at(rate))))
            .collect::<Vec<_>>()
            .join(", ");
        let access = if e.access > 0 {
            format!(
                ", and up to {} more for the random reads at {} each",
                match ESTIMATE_ACCESS * e.access {
                    d if d >= Duration::from_secs(1) => fmt_estimate(d),
                    d => fmt_duration(d),
                },
                fmt_duration(ESTIMATE_ACCESS)
            )
        } else {
            String::new()
        };
        format!(
            "scan plan: {} zones of {} from {} to {}; {per_zone}{lead}{share}{then}. It takes about {at}{access}",
            e.zones,
            fmt_bytes(e.zone_len),
            fmt_bytes(self.from),
            fmt_bytes(self.to),
        )
    }
}

/// A scan's length before it starts ([`ScanPlan::estimate`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScanEstimate {
    pub zones: u32,
    /// Bytes of each zone.
    pub zone_len: u64,
    /// Lead-ins, time-limited zones and the burst: as long whatever the device.
    pub fixed: Duration,
    /// Bytes the zones read (or write): as long as the device takes.
    pub bytes: u64,
    /// Random reads of the access time: one seek each on a disk.
    pub access: u32,
}

impl ScanEstimate {
    /// The fixed parts plus the zones' bytes at `rate` bytes a second (the access reads aside).
    pub fn at(&self, rate: f64) -> Duration {
        self.fixed + Duration::from_secs_f64(self.bytes as f64 / rate)
    }
}

/// The rates a scan's time is estimated at before it starts: a USB stick
/// or a disk's inner tracks, and a SATA SSD. The device's own rate is not
/// known until the first zone.
pub const ESTIMATE_RATES: [(f64, &str); 2] = [(100e6, "100 MB/s"), (500e6, "500 MB/s")];

/// One random read on a disk (seek and half a turn): the access reads'
/// worst case in the estimate. Flash answers in a fraction of it.
pub const ESTIMATE_ACCESS: Duration = Duration::from_millis(10);

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(from: u64, to: u64, zones: u32) -> ScanPlan {
        ScanPlan {
            zones,
            amount: ZoneAmount::Window(64 << 20),
            bs: 1 << 20,
            qd: 4,
            from,
            to,
            write: false,
            access: 1000,
            zone_warmup: Duration::from_millis(200),
            burst: true,
            direct: true,
            engine: EngineKind::IoUring,
        }
    }

    #[test]
    fn zones_tile_the_range_in_whole_transfers() {
        let p = plan(0, 1000 << 20, 100);
        let z = p.zone_list();
        assert_eq!(z.len(), 100);
        assert_eq!(z[0].offset, 0);
        assert_eq!(z[1].offset, 10 << 20);
        assert!(z.iter().all(|z| z.len == 10 << 20));
        assert_eq!(z[99].offset + z[99].len, 1000 << 20);
        // The window is clamped to the zone.
        assert_eq!(p.zone_spec(&z[3]).limit, Limit::Bytes(10 << 20));
        assert_eq!(p.zone_spec(&z[3]).offset, 30 << 20);
    }

    #[test]
    fn a_20_tb_disk_at_the_default_settings_is_planned_before_it_starts() {
        let p = plan(0, 20_000_000_000_000 / (1 << 20) * (1 << 20), 100);
        let e = p.estimate();
        assert_eq!(e.zones, 100);
        assert_eq!(e.bytes, 100 * (64 << 20));
        // 100 lead-ins of 200 ms and the 500 ms burst.
        assert_eq!(e.fixed, Duration::from_millis(20_500));
        assert_eq!(e.at(100e6).as_secs(), 20 + 67);
        let line = p.outline();
        assert!(
            line.starts_with("scan plan: 100 zones of 186.26 GiB from 0 B to 18.19 TiB;"),
            "{line}"
        );
        assert!(
            line.contains("64.00 MiB read at the start of each after a 200ms lead-in (6.25 GiB in all, 0.03% of the range)"),
            "{line}"
        );
        assert!(line.contains("then 1000 random 4K reads and 500ms of burst reads"), "{line}");
        assert!(
            line.contains("It takes about 1m 28s at 100 MB/s, 34s at 500 MB/s, and up to 10s more for the random reads at 10ms each"),
            "{line}"
        );
    }

    #[test]
    fn ten_thousand_zones_by_time_are_fixed_time() {
        let mut p = plan(0, 20_000_000_000_000 / (1 << 20) * (1 << 20), 10_000);
        p.amount = ZoneAmount::Time(Duration::from_millis(100));
        p.access = 0;
        p.burst = false;
        let e = p.estimate();
        assert_eq!((e.zones, e.bytes), (10_000, 0));
        assert_eq!(e.fixed, Duration::from_secs(10_000 * 3 / 10));
        assert!(!p.outline().contains("random"), "{}", p.outline());
    }

    #[test]
    fn a_small_range_gets_fewer_zones() {
        let z = plan(0, 5 << 20, 100).zone_list();
        assert_eq!(z.len(), 5);
        assert!(z.iter().all(|z| z.len == 1 << 20));
    }

    #[test]
    fn partial_ranges_start_at_from() {
        let span = 1u64 << 40;
        let from = Position::parse("10%").unwrap().resolve(span, 1 << 20);
        let to = Position::parse("50%").unwrap().resolve(span, 1 << 20);
        let p = plan(from, to, 4);
        let z = p.zone_list();
        assert_eq!(z[0].offset, from);
        assert!(z[3].offset + z[3].len <= to);
        assert_eq!(p.access_spec().unwrap().offset, from);
        assert_eq!(p.access_spec().unwrap().span, to - from);
        assert_eq!(Position::parse("2GiB").unwrap().resolve(span, 4096), 2 << 30);
        assert!(Position::parse("120%").is_err());
        assert!(Position::parse("x%").is_err());
    }

    #[test]
    fn empty_or_tiny_ranges_are_refused() {
        assert!(plan(10 << 20, 10 << 20, 4).validate().is_err());
        assert!(plan(0, 4096, 4).validate().is_err());
        assert!(plan(0, 1 << 30, 4).validate().is_ok());
    }

    #[test]
    fn burst_needs_o_direct() {
        let mut p = plan(0, 1 << 30, 4);
        assert!(p.burst_spec().is_some());
        p.direct = false;
        assert!(p.burst_spec().is_none());
    }
}
