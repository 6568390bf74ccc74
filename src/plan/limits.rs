//! Every rule on what a plan may ask for, defined once. The command line's
//! parsers, [`super::JobSpec::validate`] and the other plans' `validate`
//! all call these, so a flag, a config file and a remote host get the same
//! answer in the same words.

use crate::base::units::fmt_bs;

/// Smallest transfer and its granule: O_DIRECT needs whole sectors.
pub const BS_GRANULE: u64 = 512;
/// Largest transfer: each worker holds `queue depth` buffers of it.
pub const MAX_BS: u64 = 64 << 20;
/// I/Os in flight per thread (io_uring's ring; psync emulates it with threads).
pub const MAX_QD: u32 = 4096;
/// Threads of one job, each with its own queue.
pub const MAX_THREADS: u32 = 256;
/// Measured runs per test.
pub const MAX_RUNS: u32 = 1000;
/// Steady-state rounds at the most.
pub const MAX_ROUNDS: u32 = 1000;
/// Surface-scan zones at the most.
pub const MAX_ZONES: u32 = 100_000;

/// Free space `iolab verify` leaves in a directory it fills: at least
/// [`VERIFY_MARGIN_MIN`], and one part in [`VERIFY_MARGIN_PARTS`] of the free
/// space. The files' own metadata (extent trees, FAT chains) needs some,
/// and a filesystem filled to the last block starves every other writer on
/// it while the check runs; 0.1% of a 128 GB stick is 128 MB left unchecked.
pub const VERIFY_MARGIN_MIN: u64 = 16 << 20;
/// See [`VERIFY_MARGIN_MIN`].
pub const VERIFY_MARGIN_PARTS: u64 = 1000;

/// The free space `iolab verify` leaves unwritten in a directory with `free` bytes free.
pub fn verify_free_margin(free: u64) -> u64 {
    (free / VERIFY_MARGIN_PARTS).max(VERIFY_MARGIN_MIN)
}

/// A transfer size: a positive multiple of [`BS_GRANULE`], at most [`MAX_BS`].
pub fn check_bs(v: u64) -> Result<u64, String> {
    if v == 0 {
        return Err("block size must be greater than 0".into());
    }
    if !v.is_multiple_of(BS_GRANULE) {
        // 4kB is 4000 bytes: name the binary unit that was likely meant.
        let units = [
            ("TB", "T", "TiB", 4),
            ("GB", "G", "GiB", 3),
            ("MB", "M", "MiB", 2),
            ("kB", "k", "KiB", 1),
        ];
        let meant = units
            .into_iter()
            .find(|&(.., power)| v.is_multiple_of(1000u64.pow(power)))
            .map(|(decimal, short, long, power)| {
                let n = v / 1000u64.pow(power);
                let binary = n.saturating_mul(1u64 << (10 * power));
                format!(" ({n}{decimal}: {decimal} is a power of 1000; for {binary} bytes write {n}{short} or {n}{long})")
            })
            .unwrap_or_default();
        return Err(format!("block size must be a multiple of {BS_GRANULE} bytes, got {v}{meant}"));
    }
    if v > MAX_BS {
        return Err(format!("block size above {} is not supported", fmt_bs(MAX_BS)));
    }
    Ok(v)
}

/// A count between 1 and `max`, named for the message (`queue depth`, `threads`).
pub fn check_count(what: &str, v: u32, max: u32) -> Result<u32, String> {
    if v == 0 || v > max {
        return Err(format!("{what} must be between 1 and {max}, got {v}"));
    }
    Ok(v)
}

pub fn check_qd(v: u32) -> Result<u32, String> {
    check_count("queue depth", v, MAX_QD)
}

pub fn check_threads(v: u32) -> Result<u32, String> {
    check_count("threads", v, MAX_THREADS)
}

/// A percentage of reads.
pub fn check_mix_read(v: u8) -> Result<u8, String> {
    if v > 100 {
        return Err(format!("the read percentage must be between 0 and 100, got {v}"));
    }
    Ok(v)
}

/// A sync mode (`--sync`) makes writes durable: a job that writes nothing has none.
pub fn check_sync(sync: super::SyncMode, writes: bool) -> Result<(), String> {
    if !sync.is_none() && !writes {
        return Err(format!(
            "--sync {} makes each write durable, and this job does not write (--rw write, randwrite, rw or randrw)",
            sync.as_str()
        ));
    }
    Ok(())
}

/// Parse-and-check helpers for front ends that read text (the command line).
pub mod parse {
    use super::*;

    pub fn bs(s: &str) -> Result<u64, String> {
        check_bs(crate::base::units::parse_size(s)?)
    }
    fn count(s: &str) -> Result<u32, String> {
        s.trim().parse::<u32>().map_err(|_| format!("'{s}' is not a whole number"))
    }
    pub fn qd(s: &str) -> Result<u32, String> {
        check_qd(count(s)?)
    }
    pub fn threads(s: &str) -> Result<u32, String> {
        check_threads(count(s)?)
    }
    pub fn runs(s: &str) -> Result<u32, String> {
        check_count("runs", count(s)?, MAX_RUNS)
    }
    pub fn zones(s: &str) -> Result<u32, String> {
        check_count("zones", count(s)?, MAX_ZONES)
    }
    /// A size, in any unit [`crate::base::units::parse_size`] reads, above 0.
    pub fn nonzero_size(s: &str) -> Result<u64, String> {
        match crate::base::units::parse_size(s)? {
            0 => Err("size must be greater than 0".into()),
            v => Ok(v),
        }
    }
    /// A duration ([`crate::base::units::parse_duration`]) above 0.
    pub fn nonzero_duration(s: &str) -> Result<std::time::Duration, String> {
        match crate::base::units::parse_duration(s)? {
            d if d.is_zero() => Err("duration must be greater than 0".into()),
            d => Ok(d),
        }
    }
    /// `--max-rounds`: at least one steady-state window, at most [`MAX_ROUNDS`].
    pub fn rounds(s: &str) -> Result<u32, String> {
        let v: u32 = count(s)?;
        let min = crate::base::thresholds::DEFAULT_WINDOW as u32;
        if !(min..=MAX_ROUNDS).contains(&v) {
            return Err(format!("rounds must be between {min} and {MAX_ROUNDS}, got {v}"));
        }
        Ok(v)
    }
    pub fn mix_read(s: &str) -> Result<u8, String> {
        let v = s
            .trim()
            .parse::<u8>()
            .map_err(|_| format!("'{s}' is not a percentage from 0 to 100"))?;
        check_mix_read(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_sizes() {
        assert!(check_bs(0).is_err());
        assert!(check_bs(1000).is_err());
        assert!(check_bs(MAX_BS + BS_GRANULE).is_err());
        assert_eq!(check_bs(MAX_BS), Ok(MAX_BS));
        assert_eq!(parse::bs("4k"), Ok(4096));
    }

    /// Issue 36: `--bs 4kB` is 4000 bytes; the error names what works.
    #[test]
    fn a_decimal_block_size_names_the_binary_one() {
        let e = parse::bs("4kB").unwrap_err();
        assert_eq!(
            e,
            "block size must be a multiple of 512 bytes, got 4000 (4kB: kB is a power of 1000; for 4096 bytes write 4k or 4KiB)"
        );
        assert!(parse::bs("1MB").unwrap_err().ends_with("for 1048576 bytes write 1M or 1MiB)"));
        assert_eq!(check_bs(1000).unwrap_err().matches("4k").count(), 0);
        assert_eq!(check_bs(700).unwrap_err(), "block size must be a multiple of 512 bytes, got 700");
    }

    #[test]
    fn depths_and_threads_have_one_limit_each() {
        assert!(parse::qd("0").is_err());
        assert_eq!(parse::qd("4096"), Ok(4096));
        assert_eq!(parse::qd("4097").unwrap_err(), "queue depth must be between 1 and 4096, got 4097");
        assert_eq!(parse::threads("256"), Ok(256));
        assert!(parse::threads("257").is_err());
        assert!(parse::mix_read("101").is_err());
        assert_eq!(parse::mix_read("0"), Ok(0));
    }
}
