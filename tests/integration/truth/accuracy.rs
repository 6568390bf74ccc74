//! Accuracy tests: run the real `iolab` binary inside a blkio-throttled cgroup on an
//! emulated block device whose limits are known, and check what it reports.
//!
//! Ground truth: the blkio throttle caps a cgroup's I/O on one device at
//! `min(bps / bs, iops)` I/Os per second. The limits below stay at most half of what
//! the unthrottled device does, so the throttle, not the device, sets the pace.
//! Blocks on loop devices stay <= 512 KiB (the loop driver splits larger requests and
//! the throttle then counts them twice); zram is fine at 1 MiB.
//!
//! Needs root (loop devices, cgroups). Without root the tests print a skip notice,
//! except under `CI=true`, where they fail instead.
//!
//! The ground truth itself is checked in `harness::emu` (the throttle, the guards) and
//! `harness::fio_check` (every case here run through fio instead of iolab:
//! `cargo test --test integration harness::fio_check -- --ignored`).
//!
//! Layout: this file holds the shared constants and every `#[test]` (so test names stay
//! free of module paths); the code lives in `accuracy/`: `report` (running iolab, reading
//! its JSON), `cases` (the throttled raw-device cases and the demo suite) and
//! `fs_targets` (buffered ext4, tmpfs).

use crate::common::emu::{KIB, Limit, MIB};
use cases::{Case, Dev, case, run_case};
use std::time::Duration;

/// Kill a hung iolab after this long; a normal run here takes ~5 s.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);
/// Tolerance of the job-level (median) figure against the throttle limit.
pub(crate) const TOL: f64 = 0.03;
/// Tolerance of each measured run.
const RUN_TOL: f64 = 0.05;
/// Tolerance of buffered figures (readahead / writeback granularity).
const BUFFERED_TOL: f64 = 0.05;
/// Little's law: mean latency ~= in-flight I/Os / IOPS.
const LITTLE_TOL: f64 = 0.10;

/// Measured runs per case, and the short-run flags every case uses.
const RUNS: usize = 2;
const SHORT: &[&str] = &["--runs", "2", "--warmup", "1s", "--interval", "0s", "--duration", "2s"];

pub(crate) mod cases;
mod fs_targets;
pub(crate) mod report;

// ---------------------------------------------------------------------------
// Direct-I/O accuracy cases (cases.rs)
// ---------------------------------------------------------------------------

const LOOP_SEQ: Dev = Dev::Loop(512 * MIB);
const LOOP_RAND: Dev = Dev::Loop(256 * MIB);
const ZRAM: Dev = Dev::Zram(256 * MIB);

macro_rules! accuracy_cases {
    ($($name:ident => $case:expr;)*) => {
        $(
            #[test]
            fn $name() {
                run_case(stringify!($name), &$case);
            }
        )*
        /// Every case, for the fio validation of the harness.
        pub(crate) const ALL_CASES: &[(&str, Case)] = &[$((stringify!($name), $case),)*];
    };
}

accuracy_cases! {
    // Sequential, bandwidth limit (two limit sets each, 128 KiB and 512 KiB blocks).
    seq_read_128k_qd8_loop_read_bps_100mib => case(LOOP_SEQ, "read", 128 * KIB, 8, &[Limit::ReadBps(100 * MIB)]);
    seq_read_512k_qd4_loop_read_bps_40mib => case(LOOP_SEQ, "read", 512 * KIB, 4, &[Limit::ReadBps(40 * MIB)]);
    seq_write_128k_qd8_loop_write_bps_80mib => case(LOOP_SEQ, "write", 128 * KIB, 8, &[Limit::WriteBps(80 * MIB)]);
    seq_write_512k_qd4_loop_write_bps_30mib => case(LOOP_SEQ, "write", 512 * KIB, 4, &[Limit::WriteBps(30 * MIB)]);

    // Random 4K, IOPS limit, QD1 and QD32.
    randread_4k_qd1_loop_read_iops_2000 => case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(2000)]);
    randread_4k_qd1_loop_read_iops_6000 => case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(6000)]);
    randread_4k_qd32_loop_read_iops_12000 => case(LOOP_RAND, "randread", 4 * KIB, 32, &[Limit::ReadIops(12000)]);
    randread_4k_qd32_loop_read_iops_40000 => case(LOOP_RAND, "randread", 4 * KIB, 32, &[Limit::ReadIops(40000)]);
    randwrite_4k_qd1_loop_write_iops_2500 => case(LOOP_RAND, "randwrite", 4 * KIB, 1, &[Limit::WriteIops(2500)]);
    randwrite_4k_qd1_loop_write_iops_6000 => case(LOOP_RAND, "randwrite", 4 * KIB, 1, &[Limit::WriteIops(6000)]);
    randwrite_4k_qd32_loop_write_iops_12000 => case(LOOP_RAND, "randwrite", 4 * KIB, 32, &[Limit::WriteIops(12000)]);
    randwrite_4k_qd32_loop_write_iops_40000 => case(LOOP_RAND, "randwrite", 4 * KIB, 32, &[Limit::WriteIops(40000)]);

    // Both limits set: expected = min(bps / bs, iops).
    randread_4k_qd8_loop_bps_binds_before_iops => case(LOOP_RAND, "randread", 4 * KIB, 8, &[Limit::ReadBps(8 * MIB), Limit::ReadIops(5000)]);
    randread_16k_qd8_loop_iops_binds_before_bps => case(LOOP_RAND, "randread", 16 * KIB, 8, &[Limit::ReadBps(200 * MIB), Limit::ReadIops(3000)]);

    // Mixed: 70 % reads, the read limit binds: 7000 reads/s + 3000 writes/s.
    randrw_4k_qd32_mix70_loop_read_iops_7000 => Case { mix_read: Some(70), ..case(LOOP_RAND, "randrw", 4 * KIB, 32, &[Limit::ReadIops(7000), Limit::WriteIops(6000)]) };

    // psync: several threads share one cgroup limit.
    randread_4k_psync_4threads_loop_read_iops_4000 => Case { engine: "psync", threads: 4, ..case(LOOP_RAND, "randread", 4 * KIB, 1, &[Limit::ReadIops(4000)]) };
    seq_write_128k_psync_loop_write_bps_50mib => Case { engine: "psync", ..case(LOOP_SEQ, "write", 128 * KIB, 1, &[Limit::WriteBps(50 * MIB)]) };

    // zram throttles correctly even at 1 MiB blocks.
    seq_read_1m_qd4_zram_read_bps_200mib => case(ZRAM, "read", 1024 * KIB, 4, &[Limit::ReadBps(200 * MIB)]);
    seq_write_1m_qd4_zram_write_bps_100mib => case(ZRAM, "write", 1024 * KIB, 4, &[Limit::WriteBps(100 * MIB)]);
    randread_4k_qd32_zram_read_iops_20000 => case(ZRAM, "randread", 4 * KIB, 32, &[Limit::ReadIops(20000)]);
}

#[test]
fn suite_demo_on_zram_each_job_at_its_limit() {
    cases::suite_demo_on_zram_each_job_at_its_limit();
}

// ---------------------------------------------------------------------------
// Directory targets: buffered ext4, tmpfs (fs_targets.rs)
// ---------------------------------------------------------------------------

#[test]
fn buffered_seq_read_ext4_reports_device_limit_not_page_cache() {
    fs_targets::buffered_seq_read_ext4_reports_device_limit_not_page_cache();
}

#[test]
fn buffered_seq_write_ext4_reports_device_limit_not_page_cache() {
    fs_targets::buffered_seq_write_ext4_reports_device_limit_not_page_cache();
}

#[test]
fn buffered_randread_small_file_rehits_cache_warns_cache_answered() {
    fs_targets::buffered_randread_small_file_rehits_cache_warns_cache_answered();
}

#[test]
fn buffered_seq_read_small_cached_file_warns_cache_answered() {
    fs_targets::buffered_seq_read_small_cached_file_warns_cache_answered();
}

#[test]
fn tmpfs_directory_target_warns_no_block_device() {
    fs_targets::tmpfs_directory_target_warns_no_block_device();
}
