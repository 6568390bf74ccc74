//! Warnings on timed runs of a command (`iolab time`) and on the phases of
//! the app suites: hyperfine's outliers and a first run slower than the
//! rest, a missing device, a failing command.

use super::diagnostic::{Code, Diagnostic};
use super::stats::median;
use crate::base::thresholds::{DEVICE_TOLERANCE, FIRST_RUN_SLOWER, MIN_FOR_OUTLIERS, OTHER_DEVICE_MIN_BYTES, OUTLIER_Z};

/// Scales the median absolute deviation to the standard deviation of a
/// normal distribution (Iglewicz and Hoaglin's modified z-score).
const MAD_TO_Z: f64 = 0.6745;

/// Indices of outliers by the modified z-score 0.6745 (x − median) / MAD
/// above [`OUTLIER_Z`]; none among fewer than [`MIN_FOR_OUTLIERS`] values.
pub fn outliers(v: &[f64]) -> Vec<usize> {
    if v.len() < MIN_FOR_OUTLIERS {
        return Vec::new();
    }
    let med = median(v);
    let dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
    let mad = median(&dev);
    if mad <= 0.0 {
        return Vec::new();
    }
    v.iter()
        .enumerate()
        .filter(|(_, x)| (MAD_TO_Z * (*x - med) / mad).abs() > OUTLIER_Z)
        .map(|(i, _)| i)
        .collect()
}

/// `first_run_slower`: the first of `walls` (seconds, oldest first) took
/// more than [`FIRST_RUN_SLOWER`] times the median of the others. `cold`:
/// caches were emptied before each run.
pub fn first_run_slower(walls: &[f64], cold: bool) -> Option<Diagnostic> {
    let (first, others) = walls.split_first().filter(|(_, o)| !o.is_empty())?;
    let rest = median(others);
    (rest > 0.0 && *first > FIRST_RUN_SLOWER * rest).then(|| {
        Diagnostic::new(
            Code::FirstRunSlower,
            format!(
                "the first run took {first:.3} s, {:.1}× the others' median ({rest:.3} s): it filled caches the later runs used{}",
                first / rest,
                if cold {
                    " even with the caches emptied before each run (a device's own cache?)"
                } else {
                    "; time with --cold (as root) to measure the device every run, or add --warmup runs to measure it warm"
                }
            ),
        )
    })
}

/// `outliers`: the runs [`outliers`] finds in `walls`.
pub fn outlier_runs(walls: &[f64]) -> Option<Diagnostic> {
    let o = outliers(walls);
    if o.is_empty() {
        return None;
    }
    let which: Vec<String> = o.iter().map(|i| format!("run {} ({:.3} s)", i + 1, walls[*i])).collect();
    Some(Diagnostic::new(
        Code::Outliers,
        format!(
            "statistical outliers: {}; other programs or background I/O may have interfered; use more --runs",
            which.join(", ")
        ),
    ))
}

/// `no_block_device` for a timed command: nothing under `cwd` to count
/// device bytes and busy time on.
pub fn no_device_measured(cwd: &str, has_block_device: bool) -> Option<Diagnostic> {
    (!has_block_device).then(|| {
        Diagnostic::new(
            Code::NoBlockDevice,
            format!("no block device serves {cwd}: device bytes and busy time are not measured"),
        )
    })
}

/// `command_failed`: some run exited non-zero (kept with `--ignore-failure`).
pub fn command_failed(exit_codes: impl IntoIterator<Item = i32>) -> Option<Diagnostic> {
    exit_codes.into_iter().any(|c| c != 0).then(|| {
        Diagnostic::new(
            Code::CommandFailed,
            "the command exited non-zero in some runs (--ignore-failure): those times may not be a complete job",
        )
    })
}

/// What one run read: from the named device (its top device), from storage
/// as the work itself counted it (the kernel's per-task I/O accounting,
/// whatever device), and from each top device outside the named one.
pub struct RunReads<'a> {
    pub named: u64,
    pub own: u64,
    pub others: Vec<(&'a str, u64)>,
}

/// `other_device` for a named device (`--device`, `--cwd`, a suite's
/// directory): in some run `work` (the command, the phase) read more than [`OTHER_DEVICE_MIN_BYTES`]
/// from storage, the named device's reads are off that by more than
/// [`DEVICE_TOLERANCE`], and a device outside it read what is missing (or
/// all of it) within the same tolerance: the reads went there. A device
/// that is merely busier (other programs) is not enough.
pub fn named_device_elsewhere<'a>(named: &str, work: &str, runs: &[RunReads<'a>]) -> Option<Diagnostic> {
    let hit = |r: &RunReads<'a>| -> Option<(&'a str, u64)> {
        let m = r.own as f64;
        if r.own <= OTHER_DEVICE_MIN_BYTES || (r.named as f64 - m).abs() <= DEVICE_TOLERANCE * m {
            return None;
        }
        let targets: Vec<u64> = std::iter::once(r.own).chain((r.named < r.own).then(|| r.own - r.named)).collect();
        let dist = |b: u64| targets.iter().map(|t| t.abs_diff(b)).min().unwrap_or(u64::MAX);
        let (n, b) = r
            .others
            .iter()
            .copied()
            .filter(|(_, b)| *b > OTHER_DEVICE_MIN_BYTES)
            .min_by_key(|(_, b)| dist(*b))?;
        (dist(b) as f64 <= DEVICE_TOLERANCE * m).then_some((n, b))
    };
    let hits: Vec<(usize, &RunReads<'a>, (&'a str, u64))> = runs.iter().enumerate().filter_map(|(i, r)| Some((i, r, hit(r)?))).collect();
    let &(i, r, (other, bytes)) = hits.iter().max_by_key(|h| h.2.1)?;
    let fmt = crate::base::units::fmt_bytes;
    let what = if r.named < r.own {
        format!("{named} read {} of the {} {work} read from storage", fmt(r.named), fmt(r.own))
    } else {
        format!(
            "{named} read {}, more than the {} {work} read from storage",
            fmt(r.named),
            fmt(r.own)
        )
    };
    Some(Diagnostic::new(
        Code::OtherDevice,
        format!(
            "{what} in run {}, and {other} (outside it) read {}: the reads went to {other}{}; each run's device list shows every device that moved",
            i + 1,
            fmt(bytes),
            if hits.len() > 1 {
                format!(" (so in {} of {} runs)", hits.len(), runs.len())
            } else {
                String::new()
            }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_use_the_median_absolute_deviation() {
        assert_eq!(outliers(&[1.0, 1.01, 0.99, 1.02, 0.98, 5.0]), vec![5]);
        assert!(outliers(&[1.0, 1.0, 1.0, 1.0, 1.0]).is_empty());
        assert!(outliers(&[0.31, 0.39, 0.40]).is_empty(), "too few runs to judge");
        assert!(outliers(&[1.0, 2.0]).is_empty());
    }

    #[test]
    fn outlier_z_is_exclusive() {
        // Median 2, MAD 1: x = 2 + 3.5 / 0.6745 scores exactly OUTLIER_Z.
        let v = |x: f64| [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, x];
        let at = 2.0 + OUTLIER_Z / MAD_TO_Z;
        assert_eq!(MAD_TO_Z * (at - 2.0), OUTLIER_Z);
        assert!(outliers(&v(at)).is_empty());
        assert_eq!(outliers(&v(at * 1.001)), vec![6]);
        let w = outlier_runs(&v(20.0)).unwrap();
        assert_eq!(w.code, "outliers");
        assert_eq!(
            w.message,
            "statistical outliers: run 7 (20.000 s); other programs or background I/O may have interfered; use more --runs"
        );
        assert_eq!(outlier_runs(&v(3.0)), None);
    }

    #[test]
    fn first_run_slower_is_exclusive_at_one_and_a_half() {
        assert_eq!(first_run_slower(&[], false), None);
        assert_eq!(first_run_slower(&[10.0], false), None, "one run has no others");
        assert_eq!(first_run_slower(&[1.5, 1.0, 1.0], false), None);
        let w = first_run_slower(&[1.51, 1.0, 1.0], false).unwrap();
        assert_eq!(w.code, "first_run_slower");
        assert_eq!(
            w.message,
            "the first run took 1.510 s, 1.5× the others' median (1.000 s): it filled caches the later runs used; time with --cold (as root) to measure the device every run, or add --warmup runs to measure it warm"
        );
        let cold = first_run_slower(&[3.0, 1.0, 1.0], true).unwrap();
        assert!(
            cold.message
                .ends_with("even with the caches emptied before each run (a device's own cache?)")
        );
        assert_eq!(first_run_slower(&[3.0, 0.0, 0.0], false), None, "no time to compare with");
    }

    #[test]
    fn no_device_and_failed_command() {
        assert_eq!(no_device_measured("/w", true), None);
        assert_eq!(
            no_device_measured("/w", false).unwrap().message,
            "no block device serves /w: device bytes and busy time are not measured"
        );
        assert_eq!(command_failed([0, 0]), None);
        assert_eq!(command_failed([0, 1]).unwrap().code, "command_failed");
    }

    #[test]
    fn named_device_elsewhere_needs_the_works_own_reads_to_be_missing_there() {
        const MB: u64 = 1 << 20;
        let run = |named: u64, own: u64, others: Vec<(&'static str, u64)>| RunReads { named, own, others };
        // cat read 48 MiB from loop2 while the named vda read 2 MiB: said, naming loop2.
        let w = named_device_elsewhere("vda", "the command", &[run(2 * MB, 49 * MB, vec![("loop2", 48 * MB)])]).unwrap();
        assert_eq!(w.code, "other_device");
        assert!(
            w.message.starts_with("vda read 2.00 MiB of the 49.00 MiB the command read from storage in run 1, and loop2 (outside it) read 48.00 MiB: the reads went to loop2"),
            "{}",
            w.message
        );
        // The named device read it (within 10%): nothing, however busy another device was.
        assert!(named_device_elsewhere("loop2", "the command", &[run(48 * MB, 49 * MB, vec![("vda", 60 * MB)])]).is_none());
        // The named device read more (other programs) and another read exactly the command's share.
        let w = named_device_elsewhere("vda", "the command", &[run(60 * MB, 48 * MB, vec![("loop2", 48 * MB)])]).unwrap();
        assert!(w.message.contains("more than the 48.00 MiB"), "{}", w.message);
        // Warm (the command read nothing from storage): nothing to say.
        assert!(named_device_elsewhere("vda", "the command", &[run(0, 0, vec![("loop2", 48 * MB)])]).is_none());
        // A busier device whose reads do not match what is missing: not named.
        assert!(named_device_elsewhere("vda", "the command", &[run(2 * MB, 49 * MB, vec![("loop2", 90 * MB)])]).is_none());
        // At most 1 MiB elsewhere is noise.
        assert!(named_device_elsewhere("vda", "the phase", &[run(0, 2 * MB, vec![("loop2", MB)])]).is_none());
        // Several runs: the worst named, and how many.
        let w = named_device_elsewhere(
            "vda",
            "the command",
            &[
                run(2 * MB, 49 * MB, vec![("loop2", 48 * MB)]),
                run(49 * MB, 49 * MB, vec![]),
                run(0, 50 * MB, vec![("loop2", 50 * MB)]),
            ],
        )
        .unwrap();
        assert!(
            w.message.contains("in run 3") && w.message.contains("(so in 2 of 3 runs)"),
            "{}",
            w.message
        );
    }
}
