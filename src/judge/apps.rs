//! Warnings on timed runs of a command (`iolab time`) and on the phases of
//! the app suites: hyperfine's outliers and a first run slower than the
//! rest, a missing device, a failing command.

use super::diagnostic::{Code, Diagnostic};
use super::stats::median;
use super::thresholds::{FIRST_RUN_SLOWER, MIN_FOR_OUTLIERS, OUTLIER_Z};

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
}
