//! Tests of the scale verdicts: the ground truth of issue 6 as exact cases,
//! the thresholds at their boundaries, and edge cases that must not panic.

use super::*;
use proptest::prelude::*;

const MB: f64 = 1e6;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn pt(x: u32, bw: f64) -> SweepPoint {
    SweepPoint {
        x,
        bw_bytes: bw,
        iops: bw / 4096.0,
        lat_mean_ns: f64::NAN,
        cpu_busy: None,
    }
}

fn sweep(xs: &[u32], bws: &[f64]) -> Vec<SweepPoint> {
    xs.iter().zip(bws).map(|(&x, &bw)| pt(x, bw)).collect()
}

const QDS: [u32; 6] = [1, 2, 4, 8, 16, 32];

fn roundtrips<T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(v: &T) {
    let json = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(&back, v);
}

// ---- formats ----

#[test]
fn ratios_are_formatted_for_sentences() {
    assert_eq!(fmt_ratio(1.0), "1.00×");
    assert_eq!(fmt_ratio(1.0249), "1.02×");
    assert_eq!(fmt_ratio(6.3), "6.30×");
    assert_eq!(fmt_ratio(12.54), "12.5×");
    assert_eq!(fmt_ratio(150.4), "150×");
    assert_eq!(fmt_ratio(f64::NAN), "?×");
    assert_eq!(fmt_ratio(f64::INFINITY), "?×");
    assert_eq!(fmt_pct(0.6617), "66%");
    assert_eq!(fmt_pct(f64::NAN), "?%");
    assert_eq!(fmt_mbs(40.3e6), "40.3 MB/s");
    assert_eq!(fmt_multiple(3.0), "3");
    assert_eq!(fmt_multiple(1.5), "1.5");
    assert_eq!(fmt_multiple(2.4074), "2.41");
}

// ---- sweeps ----

#[test]
fn zram_depth_scales_with_a_knee() {
    // Unthrottled zram: queueing works up to about QD8, then levels off.
    let v = sweep_verdict(Dimension::Depth, &sweep(&QDS, &[1.0e9, 1.9e9, 3.5e9, 5.8e9, 6.2e9, 6.3e9]));
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.points, 6);
    assert_eq!((v.base_x, v.best_x, v.top_x), (Some(1), Some(32), Some(32)));
    assert!(close(v.gain.unwrap(), 6.3));
    assert!(close(v.top_gain.unwrap(), 6.3));
    // From QD8 (5.8) nothing reaches 5.8 × 1.15 = 6.67; from QD4 (3.5) QD8 does.
    assert_eq!(v.knee_x, Some(8));
    assert_eq!(v.text, "QD32 gives 6.30× QD1: command queueing works; the knee is at QD8");
    roundtrips(&v);
}

#[test]
fn iops_throttle_depth_does_not_help() {
    // A pure rate limiter: the same IOPS at every depth (±1% noise), and
    // the latency grows with the depth because commands wait in a queue.
    let bws = [4.00e6, 4.03e6, 3.98e6, 4.01e6, 3.99e6, 4.02e6];
    let mut points = sweep(&QDS, &bws);
    for p in &mut points {
        p.lat_mean_ns = 1e6 * p.x as f64;
    }
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.kind, SweepKind::DoesNotHelp);
    assert_eq!(v.best_x, Some(2));
    assert_eq!(v.knee_x, Some(1));
    assert!(close(v.latency_ratio.unwrap(), 32.0));
    assert_eq!(
        v.text,
        "QD32 gives 1.00× QD1 at 32.0× the latency: depth does not help; the device or its bridge serialises commands, or a rate limit caps it"
    );
    roundtrips(&v);
}

#[test]
fn depth_verdict_uses_iops_when_no_bandwidth_is_known() {
    let points: Vec<SweepPoint> = QDS
        .iter()
        .map(|&x| SweepPoint {
            x,
            bw_bytes: f64::NAN,
            iops: 1000.0 * x.min(4) as f64,
            lat_mean_ns: 100_000.0,
            cpu_busy: None,
        })
        .collect();
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.knee_x, Some(4));
    assert!(close(v.gain.unwrap(), 4.0));
    assert_eq!(v.best_x, Some(4));
}

#[test]
fn threads_scale_with_a_knee_at_two() {
    let v = sweep_verdict(Dimension::Threads, &sweep(&[1, 2, 4, 8], &[100e6, 180e6, 188e6, 190e6]));
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.knee_x, Some(2));
    assert_eq!(v.text, "8 threads give 1.90× 1 thread: more threads help; the knee is at 2 threads");
}

#[test]
fn still_growing_at_the_end_has_no_knee() {
    let v = sweep_verdict(Dimension::Depth, &sweep(&[1, 2, 4, 8], &[1.0, 2.0, 4.0, 8.0]));
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.knee_x, None);
    assert_eq!(v.knee_cpu_busy, None);
    assert_eq!(
        v.text,
        "QD8 gives 8.00× QD1: command queueing works; still growing at QD8, so a deeper queue may give more"
    );
    let t = sweep_verdict(Dimension::Threads, &sweep(&[1, 2], &[1.0, 1.9]));
    assert_eq!(t.knee_x, None);
    assert!(
        t.text.ends_with("still growing at 2 threads, so more threads may give more"),
        "{}",
        t.text
    );
}

#[test]
fn slow_steady_growth_puts_no_early_knee() {
    // 8% per doubling: no single doubling reaches 15%, but six of them give
    // 1.59×; the knee is where the rest of the sweep adds less than 15%.
    let xs = [1, 2, 4, 8, 16, 32, 64];
    let bws: Vec<f64> = (0..7).map(|i| 1.08f64.powi(i)).collect();
    let v = sweep_verdict(Dimension::Depth, &sweep(&xs, &bws));
    assert_eq!(v.kind, SweepKind::Scales);
    // 1.08² = 1.1664 ≥ 1.15 two steps on; 1.08 < 1.15 one step on.
    assert_eq!(v.knee_x, Some(32));
}

#[test]
fn gain_threshold_is_inclusive() {
    let at = sweep_verdict(Dimension::Depth, &sweep(&[1, 32], &[100.0, 115.0]));
    assert_eq!(at.kind, SweepKind::Scales);
    assert_eq!(at.knee_x, None);
    let below = sweep_verdict(Dimension::Depth, &sweep(&[1, 32], &[100.0, 114.9]));
    assert_eq!(below.kind, SweepKind::DoesNotHelp);
    assert_eq!(below.knee_x, Some(1));
}

#[test]
fn more_threads_that_slow_a_disk_hurt() {
    let v = sweep_verdict(Dimension::Threads, &sweep(&[1, 2, 4, 8], &[100e6, 80e6, 60e6, 50e6]));
    assert_eq!(v.kind, SweepKind::Hurts);
    assert_eq!(v.best_x, Some(1));
    assert_eq!(v.knee_x, Some(1));
    assert!(close(v.top_gain.unwrap(), 0.5));
    assert_eq!(
        v.text,
        "8 threads give 0.50× 1 thread: more threads hurt; the streams compete (a disk seeking between them, or contention in the path)"
    );
    // 0.86 of the first point is within noise: does not help, not hurts.
    let flat = sweep_verdict(Dimension::Threads, &sweep(&[1, 8], &[100.0, 86.0]));
    assert_eq!(flat.kind, SweepKind::DoesNotHelp);
    let at = sweep_verdict(Dimension::Depth, &sweep(&[1, 8], &[100.0, 85.0]));
    assert_eq!(at.kind, SweepKind::Hurts);
    assert!(at.text.contains("more depth hurts"), "{}", at.text);
}

#[test]
fn a_fall_after_the_best_point_is_reported() {
    let v = sweep_verdict(Dimension::Threads, &sweep(&[1, 2, 4, 8, 16], &[100.0, 200.0, 300.0, 310.0, 200.0]));
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.best_x, Some(8));
    assert_eq!(v.knee_x, Some(4));
    assert!(close(v.top_gain.unwrap(), 2.0));
    assert_eq!(
        v.text,
        "8 threads give 3.10× 1 thread: more threads help; the knee is at 4 threads; past 8 threads throughput falls (16 threads give 0.65× its rate)"
    );
}

#[test]
fn threads_that_stop_at_a_saturated_cpu_are_cpu_bound() {
    let mut points = sweep(&[1, 2, 4, 8, 16], &[100.0, 200.0, 390.0, 400.0, 405.0]);
    for (p, cpu) in points.iter_mut().zip([0.12, 0.25, 0.93, 0.97, 1.0]) {
        p.cpu_busy = Some(cpu);
    }
    let v = sweep_verdict(Dimension::Threads, &points);
    assert_eq!(v.kind, SweepKind::CpuBound);
    assert_eq!(v.knee_x, Some(4));
    assert_eq!(v.knee_cpu_busy, Some(0.93));
    assert_eq!(
        v.text,
        "16 threads give 4.05× 1 thread, but the CPU was 93% busy at 4 threads, where throughput stopped growing: the limit is the CPU, not the device"
    );
}

#[test]
fn a_cpu_saturated_at_qd1_makes_flat_depth_cpu_bound() {
    let mut points = sweep(&QDS, &[1e9; 6]);
    for p in &mut points {
        p.cpu_busy = Some(0.99);
    }
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.kind, SweepKind::CpuBound);
    assert_eq!(v.knee_x, Some(1));
    assert!(v.text.contains("CPU was 99% busy at QD1"), "{}", v.text);
    assert!(!v.text.contains("serialises"), "{}", v.text);
}

#[test]
fn a_cpu_that_saturates_only_past_the_knee_is_not_the_limit() {
    // The device levelled off at QD8 with the CPU at half; deeper queues
    // only burned more CPU.
    let mut points = sweep(&QDS, &[1.0, 2.0, 4.0, 8.0, 8.1, 8.2]);
    for (p, cpu) in points.iter_mut().zip([0.1, 0.2, 0.3, 0.5, 0.9, 0.95]) {
        p.cpu_busy = Some(cpu);
    }
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.kind, SweepKind::Scales);
    assert_eq!(v.knee_x, Some(8));
    assert_eq!(v.knee_cpu_busy, Some(0.5));
}

#[test]
fn unknown_cpu_is_never_cpu_bound() {
    let mut points = sweep(&QDS, &[1e9; 6]);
    points[0].cpu_busy = Some(f64::NAN);
    points[1].cpu_busy = Some(-1.0);
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.kind, SweepKind::DoesNotHelp);
    assert_eq!(v.knee_cpu_busy, None);
    roundtrips(&v);
}

#[test]
fn order_does_not_matter_and_repeats_are_averaged() {
    let sorted = sweep_verdict(Dimension::Depth, &sweep(&[1, 2, 4, 8], &[1.0, 2.0, 3.0, 3.1]));
    let shuffled = sweep_verdict(Dimension::Depth, &sweep(&[8, 2, 1, 4], &[3.1, 2.0, 1.0, 3.0]));
    assert_eq!(sorted, shuffled);
    let repeated = sweep_verdict(Dimension::Depth, &sweep(&[1, 1, 2, 4, 8], &[0.5, 1.5, 2.0, 3.0, 3.1]));
    assert_eq!(repeated, sorted);
}

#[test]
fn unusable_points_are_dropped() {
    let mut points = sweep(&[0, 1, 2, 4, 8, 16], &[9e9, 1.0, f64::NAN, -3.0, 4.0, f64::INFINITY]);
    points.push(pt(32, 4.1));
    let v = sweep_verdict(Dimension::Depth, &points);
    assert_eq!(v.points, 3);
    assert_eq!((v.base_x, v.best_x, v.top_x), (Some(1), Some(32), Some(32)));
    assert_eq!(v.knee_x, Some(8));
}

#[test]
fn sweeps_with_nothing_to_judge_are_inconclusive() {
    let empty = sweep_verdict(Dimension::Depth, &[]);
    assert_eq!(empty.kind, SweepKind::Inconclusive);
    assert_eq!((empty.points, empty.base_x, empty.gain, empty.knee_x), (0, None, None, None));
    assert_eq!(empty.text, "no usable measurement: nothing to judge");
    roundtrips(&empty);

    let one = sweep_verdict(Dimension::Threads, &[pt(4, 100.0)]);
    assert_eq!(one.kind, SweepKind::Inconclusive);
    assert_eq!((one.base_x, one.best_x, one.top_x), (Some(4), Some(4), Some(4)));
    assert_eq!(one.gain, None);
    assert_eq!(one.text, "only 4 threads was measured: a sweep needs two or more points");

    let zeros = sweep_verdict(Dimension::Depth, &sweep(&QDS, &[0.0; 6]));
    assert_eq!(zeros.kind, SweepKind::Inconclusive);
    assert_eq!(zeros.text, "no throughput at any point: nothing to judge");
    roundtrips(&zeros);

    let zero_base = sweep_verdict(Dimension::Depth, &sweep(&[1, 2], &[0.0, 5.0]));
    assert_eq!(zero_base.kind, SweepKind::Inconclusive);
    assert_eq!(zero_base.gain, None);
    assert_eq!(zero_base.best_x, Some(2));
    assert_eq!(zero_base.text, "no throughput at QD1: nothing to compare with");
    roundtrips(&zero_base);

    let nans = sweep_verdict(Dimension::Depth, &sweep(&QDS, &[f64::NAN; 6]));
    assert_eq!(nans.kind, SweepKind::Inconclusive);
    assert_eq!(nans.points, 0);
}

#[test]
fn sweep_verdict_serialises_with_snake_case_kinds() {
    let v = sweep_verdict(Dimension::Depth, &sweep(&[1, 2], &[1.0, 1.0]));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["kind"], "does_not_help");
    assert_eq!(json["dimension"], "depth");
    assert_eq!(json["knee_x"], 1);
}

// ---- targets together ----

fn rates(alone: &[f64]) -> Vec<TargetRate> {
    alone
        .iter()
        .enumerate()
        .map(|(i, &a)| TargetRate {
            name: format!("loop{i}"),
            alone_bps: a,
            together_bps: None,
        })
        .collect()
}

#[test]
fn independent_devices_scale() {
    // Ground truth: three loop devices each throttled to 20 MB/s.
    let v = together_verdict(&rates(&[20.0 * MB, 20.0 * MB, 20.0 * MB]), 59.5 * MB, Some(0.05));
    assert_eq!(v.kind, TogetherKind::Scales);
    assert_eq!(v.n, 3);
    assert!(close(v.sum_alone.unwrap(), 60.0 * MB));
    assert!(close(v.efficiency.unwrap(), 59.5 / 60.0));
    assert!(close(v.vs_one.unwrap(), 2.975));
    assert_eq!(v.ceiling_bps, None);
    assert!(
        v.text.starts_with("3 devices together give 2.9")
            && v.text.ends_with("× one device (99% of the sum of their solo rates): they scale"),
        "{}",
        v.text
    );
    roundtrips(&v);
}

#[test]
fn a_shared_bus_above_one_device_is_a_shared_path_with_its_ceiling() {
    // Ground truth: three 20 MB/s devices behind a 40 MB/s bus gave 20.3
    // alone and 40.3 together: 66% of the sum, 1.99× one device. The
    // aggregate is the bus's ceiling and the verdict states it.
    let v = together_verdict(&rates(&[20.3 * MB; 3]), 40.3 * MB, Some(0.1));
    assert_eq!(v.kind, TogetherKind::SharedPath);
    assert!(close(v.efficiency.unwrap(), 40.3 / 60.9));
    assert!(close(v.vs_one.unwrap(), 40.3 / 20.3));
    assert_eq!(v.ceiling_bps, Some(40.3 * MB));
    assert!((v.ceiling_bps.unwrap() / (40.0 * MB) - 1.0).abs() <= 0.05);
    assert_eq!(
        v.text,
        "3 devices together give 1.99× one device (66% of the sum of their solo rates): a shared path (bus, bridge, controller) caps them at about 40.3 MB/s together"
    );
}

#[test]
fn a_shared_path_no_faster_than_one_device_says_so() {
    // Seed 004: a USB bridge passing one command at a time.
    let v = together_verdict(&rates(&[20.0 * MB; 3]), 20.4 * MB, None);
    assert_eq!(v.kind, TogetherKind::SharedPath);
    assert_eq!(
        v.text,
        "3 devices together give 1.02× one device (34% of the sum of their solo rates): a shared path (bus, bridge, controller) limits them to about one device's rate, 20.4 MB/s together"
    );
}

#[test]
fn a_saturated_cpu_is_named_instead_of_the_bus() {
    let v = together_verdict(&rates(&[1000.0 * MB; 3]), 1500.0 * MB, Some(0.97));
    assert_eq!(v.kind, TogetherKind::CpuBound);
    assert_eq!(v.ceiling_bps, None);
    assert_eq!(
        v.text,
        "3 devices together give 1.50× one device (50% of the sum of their solo rates), but the CPU was 97% busy: the CPU, not a shared bus or controller, is the likely limit"
    );
    // Below the CPU threshold the bus is blamed.
    let w = together_verdict(&rates(&[1000.0 * MB; 3]), 1500.0 * MB, Some(0.89));
    assert_eq!(w.kind, TogetherKind::SharedPath);
    // An unknown CPU figure blames nothing on the CPU.
    let u = together_verdict(&rates(&[1000.0 * MB; 3]), 1500.0 * MB, Some(f64::NAN));
    assert_eq!(u.kind, TogetherKind::SharedPath);
    assert_eq!(u.cpu_busy, None);
    roundtrips(&u);
}

#[test]
fn scaling_with_a_busy_cpu_warns_about_more_devices() {
    let v = together_verdict(&rates(&[100.0 * MB; 2]), 195.0 * MB, Some(0.92));
    assert_eq!(v.kind, TogetherKind::Scales);
    assert!(
        v.text
            .ends_with("they scale; the CPU was 92% busy, so more devices would be limited by it"),
        "{}",
        v.text
    );
}

#[test]
fn more_than_the_sum_is_flagged() {
    let v = together_verdict(&rates(&[100.0 * MB; 2]), 240.0 * MB, None);
    assert_eq!(v.kind, TogetherKind::Scales);
    assert!(v.text.contains("more than the sum"), "{}", v.text);
}

#[test]
fn efficiency_threshold_is_inclusive() {
    let at = together_verdict(&rates(&[100.0, 100.0]), 170.0, None);
    assert!(close(at.efficiency.unwrap(), 0.85));
    assert_eq!(at.kind, TogetherKind::Scales);
    let below = together_verdict(&rates(&[100.0, 100.0]), 169.0, None);
    assert_eq!(below.kind, TogetherKind::SharedPath);
}

#[test]
fn some_targets_slowed_and_others_not_is_partial() {
    // sda and sdb behind one bridge, sdc on its own controller.
    let targets = vec![
        TargetRate {
            name: "sda".into(),
            alone_bps: 100.0 * MB,
            together_bps: Some(50.0 * MB),
        },
        TargetRate {
            name: "sdb".into(),
            alone_bps: 100.0 * MB,
            together_bps: Some(52.0 * MB),
        },
        TargetRate {
            name: "sdc".into(),
            alone_bps: 100.0 * MB,
            together_bps: Some(99.0 * MB),
        },
    ];
    let v = together_verdict(&targets, 201.0 * MB, None);
    assert_eq!(v.kind, TogetherKind::Partial);
    assert_eq!(v.targets[2].kept, Some(0.99));
    assert_eq!(
        v.text,
        "3 devices together give 2.01× one device (67% of the sum of their solo rates): sda, sdb fell to 50%, 52% of their solo rate while sdc kept its own; they share a path (bus, bridge, controller) the others do not use"
    );
    // All slowed alike: one shared path.
    let mut alike = targets.clone();
    alike[2].together_bps = Some(51.0 * MB);
    assert_eq!(together_verdict(&alike, 153.0 * MB, None).kind, TogetherKind::SharedPath);
    // Only one slowed.
    let mut one = targets.clone();
    one[1].together_bps = Some(99.0 * MB);
    let v = together_verdict(&one, 248.0 * MB, None);
    assert_eq!(v.kind, TogetherKind::Partial);
    assert!(
        v.text.ends_with(
            "sda fell to 50% of its solo rate while sdb, sdc kept theirs; something on its path (bus, bridge, controller) is shared"
        ),
        "{}",
        v.text
    );
    // One per-target figure missing: the pattern cannot be read.
    let mut unknown = targets;
    unknown[0].together_bps = None;
    assert_eq!(together_verdict(&unknown, 201.0 * MB, None).kind, TogetherKind::SharedPath);
}

#[test]
fn a_missing_aggregate_is_the_sum_of_the_per_target_figures() {
    let mut targets = rates(&[100.0, 100.0]);
    targets[0].together_bps = Some(98.0);
    targets[1].together_bps = Some(97.0);
    let v = together_verdict(&targets, f64::NAN, None);
    assert_eq!(v.together, Some(195.0));
    assert_eq!(v.kind, TogetherKind::Scales);
}

#[test]
fn together_with_nothing_to_judge_is_inconclusive() {
    let none = together_verdict(&[], 100.0, None);
    assert_eq!(none.kind, TogetherKind::Inconclusive);
    assert_eq!((none.n, none.sum_alone, none.efficiency), (0, None, None));
    assert_eq!(none.text, "no targets: nothing to judge");
    roundtrips(&none);

    let one = together_verdict(&rates(&[100.0]), 100.0, None);
    assert_eq!(one.kind, TogetherKind::Inconclusive);
    assert_eq!(one.efficiency, Some(1.0));
    assert_eq!(one.text, "one target: run two or more to see whether they scale together");

    let nan_alone = together_verdict(&rates(&[100.0, f64::NAN, -1.0]), 200.0, None);
    assert_eq!(nan_alone.kind, TogetherKind::Inconclusive);
    assert_eq!(nan_alone.sum_alone, None);
    assert_eq!(nan_alone.targets[1].alone_bps, None);
    assert_eq!(nan_alone.text, "no solo figure for loop1, loop2: cannot judge the run together");
    roundtrips(&nan_alone);

    let zero_alone = together_verdict(&rates(&[0.0, 0.0]), 10.0, None);
    assert_eq!(zero_alone.kind, TogetherKind::Inconclusive);
    assert_eq!(zero_alone.efficiency, None);
    roundtrips(&zero_alone);

    let no_together = together_verdict(&rates(&[100.0, 100.0]), f64::INFINITY, None);
    assert_eq!(no_together.kind, TogetherKind::Inconclusive);
    assert_eq!(no_together.together, None);

    let zero_together = together_verdict(&rates(&[100.0, 100.0]), 0.0, None);
    assert_eq!(zero_together.kind, TogetherKind::SharedPath);
    assert_eq!(zero_together.efficiency, Some(0.0));
}

// ---- layouts ----

fn layout(layout: Layout, members: u32, rw: Rw, in_flight: u32, layout_mbs: f64, member_mbs: f64) -> LayoutRun {
    LayoutRun {
        layout,
        name: format!("btrfs {}", layout.name()),
        members,
        copies: None,
        rw,
        in_flight,
        layout_bps: layout_mbs * MB,
        member_bps: member_mbs * MB,
        cpu_busy: None,
    }
}

#[test]
fn raid0_reads_three_times_one_member() {
    let v = layout_verdict(&layout(Layout::Raid0, 3, Rw::Read, 1, 59.4, 20.0));
    assert_eq!(v.kind, LayoutCheck::AsExpected);
    assert_eq!((v.expected_low, v.expected_high), (Some(3.0), Some(3.0)));
    assert!(close(v.measured.unwrap(), 2.97));
    assert_eq!(
        v.text,
        "btrfs raid0 over 3 devices reads 2.97× one member (expected ≈3×): the layout delivers"
    );
    roundtrips(&v);
}

#[test]
fn raid0_no_faster_than_one_member_is_below_expected() {
    let v = layout_verdict(&layout(Layout::Raid0, 3, Rw::Write, 8, 21.0, 20.0));
    assert_eq!(v.kind, LayoutCheck::BelowExpected);
    assert!(
        v.text
            .starts_with("btrfs raid0 over 3 devices writes 1.05× one member (expected ≈3×): the layout does not deliver")
    );
    assert!(v.text.contains("share a path"), "{}", v.text);
    // The tolerance: 3 × 0.85 = 2.55 is the least accepted.
    assert_eq!(
        layout_verdict(&layout(Layout::Raid0, 3, Rw::Read, 1, 51.0, 20.0)).kind,
        LayoutCheck::AsExpected
    );
    assert_eq!(
        layout_verdict(&layout(Layout::Raid0, 3, Rw::Read, 1, 50.9, 20.0)).kind,
        LayoutCheck::BelowExpected
    );
}

#[test]
fn raid0_below_expected_with_a_busy_cpu_names_the_cpu() {
    let mut run = layout(Layout::Raid0, 3, Rw::Read, 1, 30.0, 20.0);
    run.cpu_busy = Some(0.95);
    let v = layout_verdict(&run);
    assert_eq!(v.kind, LayoutCheck::CpuBound);
    assert!(v.text.contains("the CPU was 95% busy"), "{}", v.text);
}

#[test]
fn raid1_writes_once_per_member() {
    // Ground truth: btrfs raid1 over three devices writes ≈ 1× one member.
    let v = layout_verdict(&layout(Layout::Raid1, 3, Rw::Write, 1, 19.5, 20.0));
    assert_eq!(v.kind, LayoutCheck::AsExpected);
    assert_eq!((v.expected_low, v.expected_high), (Some(1.0), Some(1.0)));
    assert_eq!(
        v.text,
        "btrfs raid1 over 3 devices writes 0.97× one member (expected ≈1×): the layout delivers"
    );
    // A mirror whose members all hold every block never writes faster than one.
    let mut md = layout(Layout::Raid1, 3, Rw::Write, 8, 20.0, 20.0);
    md.copies = Some(3);
    assert_eq!(expected_multiple(Layout::Raid1, 3, Some(3), Rw::Write, 8), Some((1.0, 1.0)));
    assert_eq!(layout_verdict(&md).kind, LayoutCheck::AsExpected);
    // btrfs raid1 keeps two copies, so parallel writers may reach 1.5×.
    assert_eq!(expected_multiple(Layout::Raid1, 3, None, Rw::Write, 8), Some((1.0, 1.5)));
    md.layout_bps = 40.0 * MB;
    assert_eq!(layout_verdict(&md).kind, LayoutCheck::AboveExpected);
}

#[test]
fn raid1_single_stream_reads_from_one_mirror_and_that_is_accepted() {
    // btrfs picks the mirror by pid: one reader reads at one member's rate,
    // at QD1 and at QD8 alike.
    let qd1 = layout_verdict(&layout(Layout::Raid1, 3, Rw::Read, 1, 20.1, 20.0));
    assert_eq!(qd1.kind, LayoutCheck::AsExpected);
    assert_eq!((qd1.expected_low, qd1.expected_high), (Some(1.0), Some(1.0)));
    let qd8 = layout_verdict(&layout(Layout::Raid1, 3, Rw::Read, 8, 20.1, 20.0));
    assert_eq!(qd8.kind, LayoutCheck::AsExpected);
    assert_eq!((qd8.expected_low, qd8.expected_high), (Some(1.0), Some(3.0)));
    assert_eq!(
        qd8.text,
        "btrfs raid1 over 3 devices reads 1.00× one member (expected 1–3×): the layout delivers"
    );
    // Parallel readers spread over all mirrors.
    let parallel = layout_verdict(&layout(Layout::Raid1, 3, Rw::Randread, 8, 57.0, 20.0));
    assert_eq!(parallel.kind, LayoutCheck::AsExpected);
    assert!(parallel.text.contains("(random, 8 in flight; expected 1–3×)"), "{}", parallel.text);
}

#[test]
fn raid10_writes_half_and_reads_up_to_all_members() {
    assert_eq!(expected_multiple(Layout::Raid10, 4, None, Rw::Write, 1), Some((2.0, 2.0)));
    assert_eq!(expected_multiple(Layout::Raid10, 4, None, Rw::Read, 1), Some((2.0, 2.0)));
    assert_eq!(expected_multiple(Layout::Raid10, 4, None, Rw::Read, 8), Some((2.0, 4.0)));
    let (lo, hi) = expected_multiple(Layout::Raid10, 4, None, Rw::Randread, 8).unwrap();
    assert!(close(lo, 2.0 * (1.0 - 0.5f64.powi(8))));
    assert_eq!(hi, 4.0);
    assert_eq!(
        layout_verdict(&layout(Layout::Raid10, 4, Rw::Write, 1, 39.0, 20.0)).kind,
        LayoutCheck::AsExpected
    );
    assert_eq!(
        layout_verdict(&layout(Layout::Raid10, 4, Rw::Write, 1, 80.0, 20.0)).kind,
        LayoutCheck::AboveExpected
    );
}

#[test]
fn random_io_on_a_stripe_depends_on_what_is_in_flight() {
    // One random I/O at a time uses one member.
    assert_eq!(expected_multiple(Layout::Raid0, 3, None, Rw::Randread, 1), Some((1.0, 1.0)));
    // Four random I/Os over three members keep 2.41 busy on average.
    let (lo, hi) = expected_multiple(Layout::Raid0, 3, None, Rw::Randwrite, 4).unwrap();
    assert!(close(lo, 3.0 * (1.0 - (2.0f64 / 3.0).powi(4))));
    assert_eq!(hi, 3.0);
    let v = layout_verdict(&layout(Layout::Raid0, 3, Rw::Randwrite, 4, 50.0, 20.0));
    assert_eq!(v.kind, LayoutCheck::AsExpected);
    assert!(v.text.contains("(random, 4 in flight; expected 2.41–3×)"), "{}", v.text);
    // In flight 0 is taken as 1.
    assert_eq!(expected_multiple(Layout::Raid0, 3, None, Rw::Randread, 0), Some((1.0, 1.0)));
}

#[test]
fn mixed_patterns_span_reads_and_writes() {
    assert_eq!(expected_multiple(Layout::Raid1, 2, None, Rw::Rw, 4), Some((1.0, 2.0)));
    let v = layout_verdict(&layout(Layout::Raid1, 2, Rw::Rw, 4, 30.0, 20.0));
    assert_eq!(v.kind, LayoutCheck::AsExpected);
    assert!(v.text.contains("reads and writes 1.50× one member"), "{}", v.text);
}

#[test]
fn single_and_unknown_layouts() {
    let mut single = layout(Layout::Single, 1, Rw::Read, 1, 20.0, 20.0);
    single.name = String::new();
    let v = layout_verdict(&single);
    assert_eq!(v.kind, LayoutCheck::AsExpected);
    assert_eq!(
        v.text,
        "the single device reads 1.00× one member (expected ≈1×): the layout delivers"
    );
    let unknown = layout_verdict(&LayoutRun {
        name: "raidz1".into(),
        ..layout(Layout::Unknown, 3, Rw::Read, 1, 40.0, 20.0)
    });
    assert_eq!(unknown.kind, LayoutCheck::Inconclusive);
    assert_eq!(unknown.measured, Some(2.0));
    assert_eq!(unknown.expected_low, None);
    assert_eq!(
        unknown.text,
        "raidz1 over 3 devices reads 2.00× one member (no expectation for this layout)"
    );
    roundtrips(&unknown);
}

#[test]
fn layouts_with_nothing_to_judge_are_inconclusive() {
    for (layout_mbs, member_mbs) in [(20.0, 0.0), (20.0, f64::NAN), (f64::NAN, 20.0), (-1.0, 20.0), (20.0, f64::INFINITY)] {
        let v = layout_verdict(&layout(Layout::Raid0, 3, Rw::Read, 1, layout_mbs, member_mbs));
        assert_eq!(v.kind, LayoutCheck::Inconclusive, "{layout_mbs} {member_mbs}");
        assert_eq!(v.measured, None);
        roundtrips(&v);
    }
    let none = layout_verdict(&layout(Layout::Raid0, 0, Rw::Read, 1, 20.0, 20.0));
    assert_eq!(none.kind, LayoutCheck::Inconclusive);
    assert_eq!(none.text, "btrfs raid0 over 0 devices reads 1.00× one member (no members given)");
    // More copies than members are clamped, not divided by.
    assert_eq!(expected_multiple(Layout::Raid10, 2, Some(5), Rw::Write, 1), Some((1.0, 1.0)));
    assert_eq!(expected_multiple(Layout::Raid1, 2, Some(0), Rw::Write, 4), Some((1.0, 2.0)));
}

#[test]
fn layout_serialises_lowercase() {
    let v = layout_verdict(&layout(Layout::Raid10, 4, Rw::Write, 1, 40.0, 20.0));
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["layout"], "raid10");
    assert_eq!(json["kind"], "as_expected");
}

// ---- properties ----

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0..1e10f64,
        1 => Just(0.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1.0),
        1 => any::<f64>(),
    ]
}

fn any_cpu() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![Just(None), (0.0..1.2f64).prop_map(Some), Just(Some(f64::NAN))]
}

fn any_point() -> impl Strategy<Value = SweepPoint> {
    (0u32..80, any_f64(), any_f64(), any_f64(), any_cpu()).prop_map(|(x, bw_bytes, iops, lat_mean_ns, cpu_busy)| SweepPoint {
        x,
        bw_bytes,
        iops,
        lat_mean_ns,
        cpu_busy,
    })
}

fn finite_or_none(v: Option<f64>) -> bool {
    v.is_none_or(f64::is_finite)
}

proptest! {
    #[test]
    fn sweeps_never_panic_and_read_back(points in prop::collection::vec(any_point(), 0..10), threads in any::<bool>()) {
        let d = if threads { Dimension::Threads } else { Dimension::Depth };
        let v = sweep_verdict(d, &points);
        prop_assert!(!v.text.is_empty());
        prop_assert!(finite_or_none(v.gain) && finite_or_none(v.top_gain) && finite_or_none(v.latency_ratio));
        if let Some(g) = v.gain {
            prop_assert!(g >= 1.0);
            prop_assert!(v.top_gain.unwrap() <= g);
        }
        if let (Some(k), Some(b)) = (v.knee_x, v.best_x) {
            prop_assert!(k <= b && Some(k) >= v.base_x);
        }
        let at_base = v.knee_x.is_some() && v.knee_x == v.base_x;
        match v.kind {
            SweepKind::DoesNotHelp | SweepKind::Hurts => prop_assert!(at_base),
            SweepKind::Scales => prop_assert!(!at_base && v.gain.unwrap() >= MIN_GAIN * (1.0 - 1e-12)),
            SweepKind::CpuBound => prop_assert!(v.knee_cpu_busy.unwrap() >= CPU_SATURATED),
            SweepKind::Inconclusive => prop_assert!(v.gain.is_none()),
        }
        roundtrips(&v);
    }

    #[test]
    fn together_never_panics_and_efficiency_is_not_negative(
        alone in prop::collection::vec((any_f64(), prop::option::of(any_f64())), 0..6),
        together in any_f64(),
        cpu in any_cpu(),
    ) {
        let targets: Vec<TargetRate> = alone
            .iter()
            .enumerate()
            .map(|(i, &(a, t))| TargetRate { name: format!("t{i}"), alone_bps: a, together_bps: t })
            .collect();
        let v = together_verdict(&targets, together, cpu);
        prop_assert!(!v.text.is_empty());
        prop_assert_eq!(v.n, targets.len());
        prop_assert!(finite_or_none(v.efficiency) && finite_or_none(v.vs_one) && finite_or_none(v.sum_alone));
        if let Some(e) = v.efficiency {
            prop_assert!(e >= 0.0);
            prop_assert!(close(v.vs_one.unwrap(), e * v.n as f64));
        }
        if v.kind != TogetherKind::Inconclusive {
            prop_assert!(v.n >= 2 && v.efficiency.is_some());
        }
        if v.kind == TogetherKind::Scales {
            prop_assert!(v.efficiency.unwrap() >= SCALES_MIN_EFFICIENCY);
        }
        roundtrips(&v);
    }

    #[test]
    fn layouts_never_panic_and_expectations_are_ordered(
        kind in prop_oneof![Just(Layout::Single), Just(Layout::Raid0), Just(Layout::Raid1), Just(Layout::Raid10), Just(Layout::Unknown)],
        members in 0u32..12,
        copies in prop::option::of(0u32..6),
        rw in prop_oneof![Just(Rw::Read), Just(Rw::Write), Just(Rw::Randread), Just(Rw::Randwrite), Just(Rw::Rw), Just(Rw::Randrw)],
        in_flight in 0u32..300,
        layout_bps in any_f64(),
        member_bps in any_f64(),
        cpu in any_cpu(),
    ) {
        if let Some((lo, hi)) = expected_multiple(kind, members, copies, rw, in_flight) {
            prop_assert!(lo.is_finite() && hi.is_finite());
            prop_assert!(1.0 <= lo && lo <= hi, "{lo} {hi}");
            prop_assert!(hi <= members.max(1) as f64 + 1e-12);
        }
        let v = layout_verdict(&LayoutRun { layout: kind, name: String::new(), members, copies, rw, in_flight, layout_bps, member_bps, cpu_busy: cpu });
        prop_assert!(!v.text.is_empty());
        prop_assert!(finite_or_none(v.measured));
        roundtrips(&v);
    }
}

// ---- verdicts on untrustworthy figures (issue 37) ----

/// Whose figures carry which codes: ("loop1", "memory_device,high_cv").
fn untrusted(pairs: &[(&str, &str)]) -> Distrust {
    let mut d = Distrust::new();
    for (whose, codes) in pairs {
        d.add(whose, &codes.split(',').map(String::from).collect::<Vec<_>>());
    }
    d
}

/// Issue 37's case: two RAM-backed loop devices, 17,452 MB/s each alone
/// and 23,955.9 together, were said to share a bus. On memory devices'
/// figures no shared path is named: the verdict is withheld, the figures stay.
#[test]
fn no_shared_path_is_named_on_memory_devices_figures() {
    let mut v = together_verdict(&rates(&[17_452.0 * MB; 2]), 23_955.9 * MB, Some(0.5));
    assert_eq!(v.kind, TogetherKind::SharedPath, "{}", v.text);
    v.withhold(&untrusted(&[("loop0", "memory_device"), ("loop1", "memory_device,high_cv")]));
    assert_eq!(v.kind, TogetherKind::Inconclusive);
    assert_eq!(v.ceiling_bps, None);
    assert!(close(v.together.unwrap(), 23_955.9 * MB) && close(v.efficiency.unwrap(), 23_955.9 / 34_904.0));
    assert_eq!(
        v.text,
        "2 devices together give 1.37× one device (69% of the sum of their solo rates), 23955.9 MB/s together; no verdict: loop0 carries memory_device (the device is memory-backed: memory speed); loop1 carries memory_device, high_cv (the runs varied by more than 10%), so these figures are not the devices' speed"
    );
    assert!(!v.text.contains("shared path"));
    roundtrips(&v);
}

/// The boundary: nothing untrustworthy (or only `cpu_bound`, which the
/// verdicts weigh themselves) leaves a verdict as it was.
#[test]
fn a_verdict_stands_when_nothing_under_it_is_untrustworthy_but_the_cpu() {
    let base = together_verdict(&rates(&[1000.0 * MB; 3]), 1500.0 * MB, Some(0.97));
    assert_eq!(base.kind, TogetherKind::CpuBound);
    for d in [Distrust::new(), untrusted(&[("loop0", "cpu_bound")])] {
        let mut v = base.clone();
        v.withhold(&d);
        assert_eq!(v, base);
    }
    let mut v = base.clone();
    v.withhold(&untrusted(&[("loop2", "cpu_bound,cache_answered")]));
    assert_eq!(v.kind, TogetherKind::Inconclusive);
    assert!(
        v.text
            .contains("loop2 carries cache_answered (a cache answered instead of the device)"),
        "{}",
        v.text
    );
    assert!(!v.text.contains("cpu_bound"), "{}", v.text);
    // An inconclusive verdict has nothing to withhold.
    let mut one = together_verdict(&rates(&[100.0 * MB]), 100.0 * MB, None);
    let before = one.clone();
    one.withhold(&untrusted(&[("loop0", "memory_device")]));
    assert_eq!(one, before);
}

#[test]
fn a_sweep_on_a_memory_device_keeps_its_gain_but_gives_no_verdict() {
    let mut v = sweep_verdict(Dimension::Depth, &sweep(&[1, 32], &[500.0 * MB, 2000.0 * MB]));
    assert_eq!(v.kind, SweepKind::Scales);
    v.withhold(&untrusted(&[("/dev/zram0", "memory_device")]));
    assert_eq!(v.kind, SweepKind::Inconclusive);
    assert_eq!((v.gain, v.knee_x), (Some(4.0), None));
    assert_eq!(
        v.text,
        "QD32 gives 4.00× QD1; no verdict: /dev/zram0 carries memory_device (the device is memory-backed: memory speed), so these figures are not the devices' speed"
    );
    let mut kept = sweep_verdict(Dimension::Threads, &sweep(&[1, 2], &[100.0 * MB, 101.0 * MB]));
    let before = kept.clone();
    kept.withhold(&untrusted(&[("sdb", "cpu_bound")]));
    assert_eq!(kept, before);
}

#[test]
fn a_layout_on_a_cache_answered_figure_gives_no_verdict() {
    let mut v = layout_verdict(&layout(Layout::Raid0, 2, Rw::Read, 8, 900.0, 100.0));
    assert_eq!(v.kind, LayoutCheck::AboveExpected);
    v.withhold(&untrusted(&[("/mnt/r0", "cache_answered")]));
    assert_eq!(v.kind, LayoutCheck::Inconclusive);
    assert_eq!(v.measured, Some(9.0));
    assert!(
        v.text
            .starts_with("btrfs raid0 over 2 devices reads 9.00× one member (expected ≈2×); no verdict: /mnt/r0 carries cache_answered"),
        "{}",
        v.text
    );
}
