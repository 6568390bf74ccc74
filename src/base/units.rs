//! Parsing and formatting of sizes and durations.
//!
//! Sizes follow the storage convention users type into fio and dd: a bare
//! `k`/`m`/`g`/`t` suffix and the IEC forms (`KiB`, `MiB`, ...) are powers of
//! 1024; the SI forms with a `B` (`kB`, `MB`, `GB`) are powers of 1000 (fio,
//! unlike iolab, reads those as 1024 too unless `kb_base=1000`). Block
//! sizes like `4k` and `1M` therefore mean 4096 and 1048576 bytes, as in
//! CrystalDiskMark. Throughput is reported in MB/s = 10^6 bytes/s unless
//! `--units` ([`BwUnit`]) asks the terminal table for MiB/s or GB/s.

use std::time::Duration;

/// Parse a size such as `4k`, `1M`, `256MiB`, `1GB`, `512`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("invalid size '{s}': expected a number with an optional unit like 4k, 1MiB, 1GB"))?;
    let mult: u64 = match suffix.trim() {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" => 1 << 10,
        "m" | "M" | "MiB" | "Mi" => 1 << 20,
        "g" | "G" | "GiB" | "Gi" => 1 << 30,
        "t" | "T" | "TiB" | "Ti" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        other => {
            // `4kb`, `1mb`: the binary unit is what block sizes and most
            // sizes mean; the decimal one (`kB`) is said second.
            let binary = match other.to_ascii_lowercase().as_str() {
                "kb" | "kib" => Some(('k', "KiB", "kB", 10)),
                "mb" | "mib" => Some(('M', "MiB", "MB", 20)),
                "gb" | "gib" => Some(('G', "GiB", "GB", 30)),
                "tb" | "tib" => Some(('T', "TiB", "TB", 40)),
                _ => None,
            };
            return Err(match binary {
                Some((short, long, decimal, shift)) => {
                    let bytes = (num * (1u64 << shift) as f64) as u64;
                    format!(
                        "invalid size unit '{other}' in '{s}': write {num}{short} or {num}{long} ({bytes} bytes), or {num}{decimal} for powers of 1000"
                    )
                }
                None => format!("invalid size unit '{other}' in '{s}' (use k, M, G, T, KiB, MiB, GiB, kB, MB, GB)"),
            });
        }
    };
    let v = num * mult as f64;
    if !v.is_finite() || v > u64::MAX as f64 {
        return Err(format!("size '{s}' is too large"));
    }
    if v.fract() != 0.0 {
        return Err(format!("size '{s}' is not a whole number of bytes"));
    }
    Ok(v as u64)
}

/// Parse a duration: a number with one unit (`5s`, `1.5s`, `200ms`, `2m`,
/// `1h`, `us`), a bare number of seconds (`3`, `0`), or what people write
/// (`1m30s`, `1h 30m`, `2h`, through `humantime`).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("invalid duration '{s}': it cannot be negative"));
    }
    if let Some(d) = simple_duration(t) {
        return d.ok_or_else(|| format!("invalid duration '{s}': at most {MAX_DURATION_S} seconds"));
    }
    let d = humantime::parse_duration(t).map_err(|_| format!("invalid duration '{s}': expected e.g. 5s, 1.5s, 500ms, 1m30s, 2h"))?;
    if d.as_secs_f64() >= MAX_DURATION_S as f64 {
        return Err(format!("invalid duration '{s}': at most {MAX_DURATION_S} seconds"));
    }
    Ok(d)
}

/// The longest duration [`parse_duration`] accepts (about 31 years): times a
/// thousand runs and rounds, a plan's total still fits a `Duration`, and a
/// deadline an `Instant`.
pub const MAX_DURATION_S: u64 = 1_000_000_000;

/// One number with one unit, or none (seconds). `None`: not of that form;
/// `Some(None)`: of that form but not a duration.
fn simple_duration(t: &str) -> Option<Option<Duration>> {
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let num: f64 = num.parse().ok()?;
    let secs = match suffix.trim() {
        "" | "s" | "sec" => num,
        "ms" => num / 1e3,
        "us" => num / 1e6,
        "m" | "min" => num * 60.0,
        "h" => num * 3600.0,
        _ => return None,
    };
    Some((0.0..MAX_DURATION_S as f64).contains(&secs).then(|| Duration::from_secs_f64(secs)))
}

/// The rule of [`parse_size`] in a line, for help texts.
pub const SIZE_RULE: &str = "k/K/KiB, M/MiB, G/GiB, T/TiB are powers of 1024; kB/KB, MB, GB, TB are powers of 1000 (1GB = 10^9 bytes)";

/// The one-line note for a size given in decimal units (`kB`, `MB`, `GB`,
/// `TB`), which fio would read as binary; `None` for any other size.
pub fn decimal_size_note(s: &str) -> Option<String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let suffix = t[split..].trim();
    matches!(suffix, "kB" | "KB" | "MB" | "GB" | "TB").then(|| {
        format!(
            "note: '{t}' is in decimal units ({suffix} = powers of 1000); fio reads {suffix} as binary (1GB = 2^30 bytes) unless kb_base=1000 — use KiB/MiB/GiB for the same size in both"
        )
    })
}

/// Format a byte count compactly in binary units, the way block sizes are named (`4K`, `1M`, `128K`).
pub fn fmt_bs(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (m, u) in UNITS {
        if bytes >= m && bytes.is_multiple_of(m) {
            return format!("{}{}", bytes / m, u);
        }
    }
    format!("{bytes}")
}

/// Format a byte count with IEC units for humans (`1.00 GiB`).
pub fn fmt_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.2} {}", UNITS[i])
    }
}

/// Format nanoseconds as a latency with a sensible unit.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Format a duration for humans (`5s`, `1.5s`, `250ms`).
pub fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 || s == 0.0 {
        format!("{}s", trim_float(s))
    } else {
        format!("{}ms", trim_float(s * 1e3))
    }
}

/// An estimate for humans, to the second: `1m 28s`, `2h 5m`, `3s`.
pub fn fmt_estimate(d: Duration) -> String {
    let secs = d.as_secs_f64().round() as u64;
    if secs == 0 {
        return "under 1s".into();
    }
    humantime::format_duration(Duration::from_secs(secs)).to_string()
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// UTC timestamp like `2026-11-21T12:50:00Z` (civil-from-days, no time crate needed for this one line).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// A Unix time as an RFC 3339 UTC timestamp.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

// ------------------------------------------------------------ figures

#[derive(Clone, Copy, Debug, serde::Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub enum Unit {
    /// Sequential tests: bytes per second (shown as MB/s, MB = 10^6 bytes).
    #[serde(rename = "bytes/s")]
    BytesPerSec,
    /// Random tests: I/Os per second.
    #[serde(rename = "IOPS")]
    Iops,
    /// Timed commands and workload phases: seconds, lower is better. Their
    /// ratio is the speed-up, baseline time / time, so that > 1 means
    /// faster for every unit.
    #[serde(rename = "s")]
    Seconds,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::BytesPerSec => "bytes/s",
            Unit::Iops => "IOPS",
            Unit::Seconds => "s",
        }
    }
}

/// Unicode minus, as in "−50%".
const MINUS: char = '\u{2212}';

/// The unit a figure is shown in; bandwidth in `bw`.
pub fn unit_label(u: Unit, bw: BwUnit) -> &'static str {
    match u {
        Unit::BytesPerSec => bw.label(),
        Unit::Iops => "IOPS",
        Unit::Seconds => "s",
    }
}

/// A figure in the test's display unit (bandwidth in `bw`), without the unit.
pub fn fmt_number(v: f64, u: Unit, bw_unit: BwUnit) -> String {
    match u {
        Unit::BytesPerSec => bw(v, bw_unit, 1),
        Unit::Iops => format!("{v:.0}"),
        Unit::Seconds => format!("{v:.3}"),
    }
}

/// "1234.5 MB/s", "45000 IOPS".
pub fn fmt_value(v: f64, u: Unit) -> String {
    format!("{} {}", fmt_number(v, u, BwUnit::Mb), unit_label(u, BwUnit::Mb))
}

/// A speed-up (baseline time / time) read as a time: `0.25` → `×4.00 time`.
pub fn fmt_time_ratio(speedup: f64) -> String {
    format!("×{:.2} time", 1.0 / speedup)
}

/// "+21%", "−50%", "±0%", or "2.10x" from double on.
pub fn signed_diff(ratio: f64) -> String {
    if ratio >= 2.0 {
        return format!("{ratio:.2}x");
    }
    let pct = ((ratio - 1.0) * 100.0).round();
    if pct == 0.0 {
        "±0%".into()
    } else if pct > 0.0 {
        format!("+{pct:.0}%")
    } else {
        format!("{MINUS}{:.0}%", -pct)
    }
}

/// A ratio as the verdicts write it: `1.02×`, `6.30×`, `12.5×`, `150×`;
/// `?×` when it is not finite. Two decimals below 10 so that "1.02×" (no
/// help) and "1.15×" (the threshold) stay apart.
pub fn fmt_ratio(r: f64) -> String {
    if !r.is_finite() {
        "?×".into()
    } else if r.abs() < 10.0 {
        format!("{r:.2}×")
    } else if r.abs() < 100.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.0}×")
    }
}

/// A fraction as a whole percentage: `0.664` → `66%`.
pub fn fmt_pct(f: f64) -> String {
    if f.is_finite() { format!("{}%", pct(f, 0)) } else { "?%".into() }
}

/// A fraction as a percentage, the number only: `pct(0.1234, 1)` → `12.3`.
pub fn pct(f: f64, decimals: usize) -> String {
    format!("{:.decimals$}", f * 100.0)
}

/// Bytes per second as MB/s (10^6 bytes, as everywhere in iolab).
pub fn fmt_mbs(bps: f64) -> String {
    format!("{} MB/s", mbs(bps, 1))
}

/// Bytes per second in MB/s (10^6 bytes), the number only, with `decimals`
/// decimals: for columns headed "MB/s".
pub fn mbs(bps: f64, decimals: usize) -> String {
    bw(bps, BwUnit::Mb, decimals)
}

/// The bandwidth unit of the terminal tables (`--units`); documents keep bytes/s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BwUnit {
    /// MB/s = 10^6 bytes/s, as CrystalDiskMark.
    #[default]
    Mb,
    /// MiB/s = 2^20 bytes/s.
    Mib,
    /// GB/s = 10^9 bytes/s.
    Gb,
}

impl BwUnit {
    /// Bytes per second in one unit.
    pub fn bytes(self) -> f64 {
        match self {
            BwUnit::Mb => 1e6,
            BwUnit::Mib => (1u64 << 20) as f64,
            BwUnit::Gb => 1e9,
        }
    }

    /// The column label: `MB/s`, `MiB/s`, `GB/s`.
    pub fn label(self) -> &'static str {
        match self {
            BwUnit::Mb => "MB/s",
            BwUnit::Mib => "MiB/s",
            BwUnit::Gb => "GB/s",
        }
    }

    /// The footer's definition: `MB/s = 10^6 bytes/s`.
    pub fn definition(self) -> &'static str {
        match self {
            BwUnit::Mb => "MB/s = 10^6 bytes/s",
            BwUnit::Mib => "MiB/s = 2^20 bytes/s",
            BwUnit::Gb => "GB/s = 10^9 bytes/s",
        }
    }
}

/// Bytes per second in `unit`, the number only. `decimals` are those of
/// MB/s and MiB/s; GB/s, a thousand times coarser, gets two more, so that
/// every unit shows the same precision.
pub fn bw(bps: f64, unit: BwUnit, decimals: usize) -> String {
    let d = if unit == BwUnit::Gb { decimals + 2 } else { decimals };
    format!("{:.d$}", bps / unit.bytes())
}

/// A device's capacity in decimal units, as drives are sold: `1.00 TB`, `512.1 GB`.
pub fn fmt_capacity(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.2} TB", b / 1e12)
    } else {
        format!("{:.1} GB", b / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 36: `4kb` suggested `kB` (4000 bytes, which no block size
    /// takes); the binary unit comes first, with its bytes.
    #[test]
    fn a_lowercase_b_suggests_the_binary_unit() {
        let e = parse_size("4kb").unwrap_err();
        assert_eq!(
            e,
            "invalid size unit 'kb' in '4kb': write 4k or 4KiB (4096 bytes), or 4kB for powers of 1000"
        );
        assert!(parse_size("1gb").unwrap_err().contains("write 1G or 1GiB (1073741824 bytes)"));
        assert!(parse_size("2Mb").unwrap_err().contains("write 2M or 2MiB"));
        assert!(parse_size("4xb").unwrap_err().contains("(use k, M"));
    }

    #[test]
    fn sizes_binary_and_decimal() {
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("256MiB").unwrap(), 256 << 20);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("1GB").unwrap(), 1_000_000_000);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert!(parse_size("").is_err());
        assert!(parse_size("x").is_err());
        assert!(parse_size("4q").is_err());
        assert!(parse_size("0.3").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("5s").unwrap(), Duration::from_secs(5));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("5x").is_err());
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("200ms").unwrap(), Duration::from_millis(200));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1h 30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("1s500ms").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("-1m30s").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("1m30x").is_err());
    }

    #[test]
    fn decimal_sizes_get_a_note() {
        for s in ["1GB", "500MB", "4kB", "1TB", "4KB"] {
            assert!(decimal_size_note(s).is_some_and(|n| n.contains("kb_base=1000")), "{s}");
        }
        for s in ["1G", "1GiB", "4k", "512", "16MiB"] {
            assert_eq!(decimal_size_note(s), None, "{s}");
        }
    }

    #[test]
    fn rfc3339_known_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_bs(4096), "4K");
        assert_eq!(fmt_bs(1 << 20), "1M");
        assert_eq!(fmt_bs(128 << 10), "128K");
        assert_eq!(fmt_bs(512), "512");
        assert_eq!(fmt_bytes(1 << 30), "1.00 GiB");
        assert_eq!(fmt_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(fmt_duration(Duration::from_secs(5)), "5s");
    }

    #[test]
    fn figures() {
        assert_eq!(mbs(1_234_567_890.0, 2), "1234.57");
        assert_eq!(mbs(1_234_567_890.0, 1), "1234.6");
        assert_eq!(mbs(f64::NAN, 1), "NaN");
        assert_eq!(fmt_mbs(52_428_800.0), "52.4 MB/s");
        assert_eq!(fmt_number(1_619_001_344.0, Unit::BytesPerSec, BwUnit::Mb), "1619.0");
        assert_eq!(pct(0.1234, 1), "12.3");
        assert_eq!(pct(0.975, 0), "98");
        assert_eq!(fmt_pct(0.664), "66%");
        assert_eq!(fmt_pct(f64::NAN), "?%");
        assert_eq!(fmt_time_ratio(0.25), "×4.00 time");
        assert_eq!(fmt_capacity(1_000_204_886_016), "1.00 TB");
        assert_eq!(fmt_capacity(512_110_190_592), "512.1 GB");
        assert_eq!(bw(1_234_567_890.0, BwUnit::Mb, 2), "1234.57");
        assert_eq!(bw(1_234_567_890.0, BwUnit::Mib, 2), "1177.38");
        assert_eq!(bw(1_234_567_890.0, BwUnit::Gb, 2), "1.2346");
        assert_eq!(BwUnit::Mib.definition(), "MiB/s = 2^20 bytes/s");
    }

    proptest::proptest! {
        #[test]
        fn fmt_bs_roundtrips(k in 1u64..4096) {
            let b = k * 512;
            proptest::prop_assert_eq!(parse_size(&fmt_bs(b)).unwrap(), b);
        }
    }

    /// Text shaped like a size or a duration, often broken: digits (up to
    /// 400 of them), fractions, exponents, signs, spaces, real and unknown
    /// units, several parts (`1h 30m`); or any text at all.
    fn size_or_duration_like() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        const UNITS: &[&str] = &[
            "", "b", "B", "k", "K", "KiB", "kiB", "Ki", "m", "M", "MiB", "Mi", "g", "G", "GiB", "t", "T", "TiB", "kB", "KB", "MB", "GB",
            "TB", "PB", "q", "s", "sec", "secs", "ms", "us", "µs", "ns", "m", "min", "mins", "h", "hr", "d", "day", "w", "week", "M",
            "month", "y", "year", "%", "e", "E", "e308", "e-5", ".", "..", " ", "\t", "∞",
        ];
        let part = (
            prop_oneof![
                Just(String::new()),
                Just("-".to_string()),
                Just("+".to_string()),
                Just(" ".to_string())
            ],
            prop_oneof![
                "[0-9]{0,3}",
                "[0-9]{15,25}",
                "[0-9]{300,400}",
                Just("18446744073709551615".to_string()),
                Just("18446744073709551616".to_string()),
                Just("NaN".to_string()),
                Just("inf".to_string()),
                Just("1e308".to_string()),
            ],
            prop_oneof![Just(String::new()), "\\.[0-9]{0,20}"],
            proptest::sample::select(UNITS),
        )
            .prop_map(|(sign, int, frac, unit)| format!("{sign}{int}{frac}{unit}"));
        prop_oneof![
            4 => proptest::collection::vec(part, 1..4).prop_map(|p| p.join(" ")),
            1 => proptest::collection::vec(".{0,6}", 1..4).prop_map(|p| p.concat()),
            1 => ".{0,30}",
        ]
    }

    proptest::proptest! {
        #![proptest_config(crate::base::testknob::proptest_config())]

        /// Issue 16: every text parser of sizes, durations, counts and the
        /// options built on them returns a value or an error.
        #[test]
        fn issue_16_size_and_duration_parsers_never_panic(s in size_or_duration_like()) {
            use crate::plan::limits::parse as limit;
            if let Ok(v) = parse_size(&s) {
                let _ = (fmt_bs(v), fmt_bytes(v), fmt_capacity(v));
            }
            if let Ok(d) = parse_duration(&s) {
                // What a plan does with a duration: a deadline, a thousand runs of it.
                proptest::prop_assert!(d.as_secs() < MAX_DURATION_S);
                let _ = std::time::Instant::now() + d;
                let _ = d * crate::plan::limits::MAX_RUNS * crate::plan::limits::MAX_ROUNDS;
                let _ = fmt_duration(d);
            }
            let _ = decimal_size_note(&s);
            let _ = (limit::bs(&s), limit::qd(&s), limit::threads(&s), limit::runs(&s), limit::zones(&s), limit::mix_read(&s));
            if let Ok(p) = crate::plan::scan::Position::parse(&s) {
                for (span, align) in [(0, 0), (0, 4096), (u64::MAX, 1), (1 << 30, 1 << 20)] {
                    let _ = p.resolve(span, align);
                }
            }
            let _ = crate::store::parse_tag(&s);
            let _ = crate::experiment::fio::HostSpec::parse(&s);
        }

        /// Issue 16: every formatter takes any number.
        #[test]
        fn issue_16_formatters_never_panic(b in proptest::num::u64::ANY, f in proptest::num::f64::ANY) {
            let _ = (fmt_bs(b), fmt_bytes(b), fmt_capacity(b), rfc3339(b), fmt_duration(Duration::from_nanos(b)));
            let _ = (fmt_ns(f), fmt_ratio(f), fmt_pct(f), pct(f, 3), signed_diff(f), fmt_time_ratio(f), fmt_mbs(f));
            for u in [Unit::BytesPerSec, Unit::Iops, Unit::Seconds] {
                for w in [BwUnit::Mb, BwUnit::Mib, BwUnit::Gb] {
                    let _ = (fmt_number(f, u, w), fmt_value(f, u));
                }
            }
        }
    }

    /// Issue 16, found by the suite above: `humantime` reads
    /// `5000000000000000000s 1ns` (some 158 billion years), and a plan
    /// made of it overflowed `Duration` (times the runs, summed over the
    /// tests) and `Instant` (a deadline).
    #[test]
    fn issue_16_durations_beyond_the_longest_are_refused() {
        for s in [
            "5000000000000000000s 1ns",
            "18446744073709551615s",
            "1000000000s",
            "31710y 1d",
            "999999999999999",
        ] {
            let e = parse_duration(s).unwrap_err();
            assert!(e.contains("at most 1000000000 seconds") || e.contains("expected"), "{s}: {e}");
        }
        assert_eq!(parse_duration("999999999s").unwrap(), Duration::from_secs(999_999_999));
        assert_eq!(parse_duration("30y").unwrap().as_secs(), 30 * 31_557_600);
    }
}
