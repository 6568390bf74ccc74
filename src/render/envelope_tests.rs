use super::*;
use crate::render::view::{Axis, Series};
use proptest::prelude::*;

/// A second-by-second series: `n` points at the middle of each second.
fn seconds(n: usize, f: impl Fn(usize) -> f64) -> Vec<(f64, f64)> {
    (0..n).map(|t| (t as f64 + 0.5, f(t))).collect()
}

fn timeline(series: &[(&str, Vec<(f64, f64)>)]) -> Chart {
    let mut c = Chart::lines(
        "timeline",
        "t",
        Axis::linear("Time", Quantity::Seconds).from_zero(),
        Axis::linear("Throughput", Quantity::Bandwidth).from_zero(),
    );
    for (name, pts) in series {
        c.series(Series::new(*name, pts.clone()));
    }
    c
}

fn drawn(c: &Chart) -> usize {
    match &c.plot {
        Plot::Lines { series, .. } => series.iter().map(|s| s.points.len()).sum(),
        Plot::Bars { .. } => 0,
    }
}

#[test]
fn a_100000_point_series_is_drawn_with_a_bounded_number_of_points() {
    let mut c = timeline(&[("read", seconds(100_000, |t| 1e8 + (t % 97) as f64 * 1e6))]);
    let f = fold(&mut c, 0.0, 1.0).expect("folded");
    assert_eq!(f.points, 100_000);
    assert!(drawn(&c) <= MAX_DRAWN_POINTS, "{} drawn", drawn(&c));
    assert!(drawn(&c) >= MAX_DRAWN_POINTS / 2, "{} drawn", drawn(&c));
    // 100,000 s in at most 2,000 buckets: 50 s each.
    assert_eq!(f.steps, 50);
    assert!(c.numbers.rows.len() <= TABLE_BUCKETS);
    // The page draws it bounded too: a point is about 130 bytes.
    let svg = crate::render::html::chart_svg(&c);
    assert!(svg.len() < 400_000, "{} bytes of SVG", svg.len());
    assert!(svg.contains(r#"class="envelope""#));
    crate::render::svg::tests::check::well_formed(&svg).unwrap();
}

#[test]
fn several_series_share_the_bound() {
    let pts = seconds(86_400, |t| (t % 13) as f64);
    let mut c = timeline(&[("a", pts.clone()), ("b", pts.clone()), ("c", pts.clone()), ("d", pts)]);
    let f = fold(&mut c, 0.0, 1.0).unwrap();
    assert!(drawn(&c) <= MAX_DRAWN_POINTS);
    assert_eq!(f.steps, 173); // ceil(86,400 / 500)
}

#[test]
fn a_one_second_spike_survives_in_its_buckets_max() {
    let mut pts = seconds(86_400, |_| 100.0);
    pts[43_210].1 = 9_000.0;
    pts[70_000].1 = 1.0;
    let mut c = timeline(&[("read", pts)]);
    fold(&mut c, 0.0, 1.0).unwrap();
    let Plot::Lines { series, .. } = &c.plot else { unreachable!() };
    let spread = series[0].spread.as_ref().unwrap();
    assert_eq!(spread.iter().map(|s| s.1).fold(0.0, f64::max), 9_000.0);
    assert_eq!(spread.iter().map(|s| s.0).fold(f64::INFINITY, f64::min), 1.0);
    // Its median stays with the many.
    assert!(series[0].points.iter().all(|p| p.1 == 100.0));
    // The table's coarse buckets keep it as well.
    let raw: Vec<f64> = c
        .numbers
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter_map(|c| c.raw().parse().ok())
        .collect();
    assert!(raw.contains(&9_000.0) && raw.contains(&1.0), "{raw:?}");
}

#[test]
fn a_short_series_is_left_as_it_is() {
    let pts = seconds(MAX_DRAWN_POINTS, |t| t as f64);
    let mut c = timeline(&[("read", pts.clone())]);
    assert_eq!(fold(&mut c, 0.0, 1.0), None);
    let Plot::Lines { series, .. } = &c.plot else { unreachable!() };
    assert_eq!(series[0].points, pts);
    assert!(series[0].spread.is_none());
}

#[test]
fn buckets_have_equal_width_and_an_exact_median() {
    let b = buckets(&[(0.5, 3.0), (1.5, 1.0), (2.5, 2.0), (3.5, 10.0), (6.5, 4.0)], 0.0, 4.0);
    assert_eq!(b.len(), 2);
    assert_eq!((b[0].t0, b[0].t1, b[0].n), (0.0, 4.0, 4));
    assert_eq!((b[0].min, b[0].median, b[0].max), (1.0, 2.5, 10.0));
    assert_eq!((b[1].t0, b[1].n, b[1].median), (4.0, 1, 4.0));
    assert_eq!(bucket_width(86_400.0, 2_000, 1.0), 44.0);
    assert_eq!(bucket_width(10.0, 2_000, 1.0), 1.0);
    assert!(envelope(&[], 10).is_empty());
}

proptest! {
    /// Every bucket keeps its points' exact min and max, every point is in
    /// one bucket, and there are never more buckets than asked.
    #[test]
    fn every_bucket_keeps_its_exact_min_and_max(
        ys in proptest::collection::vec(-1e12f64..1e12, 1..3_000),
        gaps in proptest::collection::vec(0.0f64..10.0, 1..3_000),
        max in 1usize..400,
    ) {
        let mut x = 0.0;
        let pts: Vec<(f64, f64)> = ys.iter().zip(gaps.iter().cycle()).map(|(&y, &g)| { x += g; (x, y) }).collect();
        let b = envelope(&pts, max);
        prop_assert!(b.len() <= max);
        prop_assert_eq!(b.iter().map(|b| b.n).sum::<usize>(), pts.len());
        // A bucket's min and max are values of points within it…
        let eps = 1e-6;
        for k in &b {
            let within = |y: f64| pts.iter().any(|p| p.1 == y && p.0 >= k.t0 - eps && p.0 <= k.t1 + eps);
            prop_assert!(within(k.min) && within(k.max), "{k:?}");
            prop_assert!(k.min <= k.median && k.median <= k.max);
        }
        // …and every point lies between the min and max of its bucket.
        for p in &pts {
            let ok = b.iter().any(|k| p.0 >= k.t0 - eps && p.0 <= k.t1 + eps && k.min <= p.1 && p.1 <= k.max);
            prop_assert!(ok, "{p:?} outside every bucket");
        }
        let all_max = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        prop_assert_eq!(b.iter().map(|k| k.max).fold(f64::NEG_INFINITY, f64::max), all_max);
    }
}
