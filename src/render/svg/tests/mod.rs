pub(crate) mod check;

use super::axis::*;
use super::text::*;
use super::*;
use check::well_formed;

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

/// The text of each `<g class="series" …>…</g></g>` block, in order.
fn series_blocks(svg: &str) -> Vec<&str> {
    svg.split("<g class=\"series\"")
        .skip(1)
        .map(|b| &b[..b.find("</g></g>").unwrap()])
        .collect()
}

fn attr<'a>(el: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let i = el.find(&key).unwrap_or_else(|| panic!("no {name} in {el}")) + key.len();
    &el[i..i + el[i..].find('"').unwrap()]
}

fn scan_chart(points: usize) -> LineChart {
    let mut c = LineChart::new(
        "Sequential read across the disk",
        Axis::linear("Position", "GiB"),
        Axis::linear("Throughput", "MB/s").from_zero(),
    );
    let pts: Vec<(f64, f64)> = (0..points).map(|i| (i as f64 * 9.31, 1834.567 - i as f64 * 9.876_543)).collect();
    c.series.push(Series::new("read", pts));
    c.hlines = vec![HLine::new("min", 857.1), HLine::new("avg", 1345.8), HLine::new("max", 1834.6)];
    c
}

fn assert_ok(svg: &str) {
    if let Err(e) = well_formed(svg) {
        panic!("not well-formed: {e}\n{svg}");
    }
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "), "{svg}");
    // Nothing outside the document: one URL (the namespace), no links, images, fonts or scripts.
    assert_eq!(count(svg, "http"), 1, "{svg}");
    for bad in ["href", "url(", "<image", "<script", "@font-face", "<style", "NaN", "inf"] {
        assert!(!svg.contains(bad), "{bad} in {svg}");
    }
    let id = attr(svg, "aria-labelledby");
    let (t, d) = id.split_once(' ').unwrap();
    assert!(svg.contains(&format!("<title id=\"{t}\">")) && svg.contains(&format!("<desc id=\"{d}\">")));
    assert!(svg.contains("role=\"img\""));
}

#[test]
fn point_counts_equal_data_lengths() {
    let mut c = LineChart::new("t", Axis::linear("x", ""), Axis::linear("y", "MB/s"));
    let lens = [7usize, 1, 30];
    for (k, &n) in lens.iter().enumerate() {
        let pts = (0..n).map(|i| (i as f64, (i * (k + 1)) as f64)).collect();
        let style = [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots][k];
        c.series.push(Series::new(format!("s{k}"), pts).with_style(style));
    }
    c.series
        .push(Series::new("steps", vec![(0.0, 1.0), (1.0, 3.0), (2.0, 2.0)]).with_style(SeriesStyle::Step));
    let svg = c.to_svg();
    assert_ok(&svg);
    let blocks = series_blocks(&svg);
    assert_eq!(blocks.len(), 4);
    for (block, n) in blocks.iter().zip([7, 1, 30, 3]) {
        assert_eq!(count(block, "class=\"pt\""), n, "{block}");
        assert_eq!(count(block, "<title>"), n);
    }
    assert_eq!(attr(&svg, "data-points"), "41");
    assert_eq!(count(&svg, "class=\"pt\""), 41);
    // The step series draws horizontal-then-vertical segments.
    assert!(blocks[3].contains("d=\"M") && blocks[3].contains('h') && blocks[3].contains('v'));
    // A dots-only series has no line.
    assert!(!blocks[1].contains("<path"));
}

#[test]
fn tooltips_carry_the_exact_value() {
    let svg = scan_chart(100).to_svg();
    assert!(svg.contains("<title>0 GiB: 1834.57 MB/s</title>"), "{svg}");
    assert!(svg.contains("<title>9.31 GiB: 1824.69 MB/s</title>"));
    assert_eq!(exact(1234.5678), "1234.57");
    assert_eq!(exact(999_999.7), "1000000");
    assert_eq!(exact(97.0), "97");
    assert_eq!(exact(-0.5), "-0.5");
    assert_eq!(exact(0.000_123_4), "0.0001234");
    assert_eq!(exact(1.5e-7), "1.5e-7");
    assert_eq!(exact(2.5e16), "2.5e16");
}

#[test]
fn coordinates_have_at_most_one_decimal() {
    assert_eq!(N(12.0).to_string(), "12");
    assert_eq!(N(12.345).to_string(), "12.3");
    assert_eq!(N(-0.04).to_string(), "0");
    assert_eq!(N(-0.5).to_string(), "-0.5");
    assert_eq!(N(f64::NAN).to_string(), "0");
    let mut c = scan_chart(100);
    c.series
        .push(Series::new("dots", vec![(1.234, 1000.0 / 3.0), (2.0, 1e3 / 7.0)]).with_style(SeriesStyle::LineDots));
    let svg = c.to_svg();
    let mut seen = 0;
    for a in [" d=\"", " cx=\"", " cy=\"", " x=\"", " y=\"", " width=\"", " height=\""] {
        for v in svg.split(a).skip(1).map(|t| &t[..t.find('"').unwrap()]) {
            for num in v.split(|c: char| !(c.is_ascii_digit() || c == '.')).filter(|t| !t.is_empty()) {
                seen += 1;
                assert!(num.split_once('.').is_none_or(|(_, d)| d.len() == 1), "{a}{v}");
            }
        }
    }
    assert!(seen > 500, "{seen}");
}

#[test]
fn linear_ticks_are_nice() {
    assert_eq!(linear_ticks(0.0, 97.0, 6), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    assert_eq!(linear_ticks(0.0, 97.0, 10).len(), 6); // 11 ticks of 10 are too many: 20 apart
    assert_eq!(linear_ticks(0.0, 1.0, 6), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
    assert_eq!(linear_ticks(0.1, 0.7, 4), vec![0.0, 0.5, 1.0]); // 0.2 apart would take 5
    assert_eq!(linear_ticks(-3.0, 7.0, 6), vec![-5.0, 0.0, 5.0, 10.0]);
    assert_eq!(
        linear_ticks(1200.0, 1900.0, 8),
        vec![1200.0, 1300.0, 1400.0, 1500.0, 1600.0, 1700.0, 1800.0, 1900.0]
    );
    // Through the axis layout, a 250 px tall axis over 0..97 gets the same ticks.
    let lay = layout(&Axis::linear("y", "").from_zero(), Some((3.0, 97.0)), 280.0, 30.0, false);
    let v: Vec<f64> = lay.ticks.iter().map(|t| t.0).collect();
    assert_eq!(v, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
    assert_eq!((lay.lo, lay.hi), (0.0, 100.0));
}

/// Issue 16, found by the importer's property test at 100,000 cases: an
/// axis over a few denormals (an imported IOPS of 5e-324) made the first
/// decade `log10(0)`, and `i32::MIN - 1` overflowed.
#[test]
fn issue_16_regression_ticks_of_denormal_ranges() {
    for (lo, hi) in [
        (0.0, 5e-324),
        (5e-324, 1e-323),
        (-5e-324, 5e-324),
        (0.0, f64::MIN_POSITIVE),
        (0.0, f64::MAX),
        (-f64::MAX, f64::MAX),
    ] {
        for max in [0, 2, 6, 100] {
            let (v, _) = nice_ticks(lo, hi, max);
            assert!(!v.is_empty() && v.iter().all(|t| t.is_finite()), "{lo} {hi} {max}: {v:?}");
        }
    }
}

#[test]
fn tick_labels_read_well() {
    let l = |lo, hi, max| {
        let (v, k) = nice_ticks(lo, hi, max);
        si_labels(&v, k.unwrap())
    };
    assert_eq!(l(0.0, 1.0, 6), ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    assert_eq!(l(0.0, 97.0, 6), ["0", "20", "40", "60", "80", "100"]);
    assert_eq!(l(0.0, 480_000.0, 6), ["0", "100k", "200k", "300k", "400k", "500k"]);
    assert_eq!(
        l(10_000.0, 13_000.0, 7),
        ["10.0k", "10.5k", "11.0k", "11.5k", "12.0k", "12.5k", "13.0k"]
    );
    assert_eq!(l(0.0, 2.5e6, 6), ["0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"]);
    let dec: Vec<String> = [0.001, 0.1, 1.0, 100.0, 1e3, 1e5, 1e6, 1e9, 1e-5]
        .iter()
        .map(|&v| decade_label(v))
        .collect();
    assert_eq!(dec, ["0.001", "0.1", "1", "100", "1k", "100k", "1M", "1G", "1e-5"]);
    let p2: Vec<String> = [1.0, 32.0, 1024.0, 1048576.0, 0.5].iter().map(|&v| power_of_two_label(v)).collect();
    assert_eq!(p2, ["1", "32", "1024", "1M", "0.5"]);
    let bs = Axis::log2("Block size", "").with_format(TickFormat::Binary);
    assert_eq!(tick_labels(&bs, &[4096.0, 131072.0, 1048576.0], None), ["4K", "128K", "1M"]);
}

#[test]
fn log_ticks_are_decades() {
    assert_eq!(log_ticks(1e3, 5e6, 10.0, 10), vec![1e3, 1e4, 1e5, 1e6, 1e7]);
    assert_eq!(log_ticks(1e3, 1e6, 10.0, 10), vec![1e3, 1e4, 1e5, 1e6]);
    assert_eq!(log_ticks(200.0, 800.0, 10.0, 10), vec![100.0, 1000.0]);
    // Too many decades for the room: every second one, still covering the range.
    assert_eq!(log_ticks(1.0, 1e9, 10.0, 6), vec![1.0, 1e2, 1e4, 1e6, 1e8, 1e10]);
    assert_eq!(
        log_ticks(1.0, 256.0, 2.0, 10),
        vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
    );
    assert_eq!(log_ticks(1.0, 1024.0, 2.0, 6), vec![1.0, 4.0, 16.0, 64.0, 256.0, 1024.0]);
    assert!(log_ticks(0.0, 10.0, 10.0, 5).is_empty());
    let lay = layout(&Axis::log10("IOPS", ""), Some((1e3, 5e6)), 40.0, 600.0, true);
    let labels: Vec<&str> = lay.ticks.iter().map(|t| t.1.as_str()).collect();
    assert_eq!(labels, ["1k", "10k", "100k", "1M", "10M"]);
    assert_eq!((lay.lo, lay.hi), (1e3, 1e7));
}

/// Asserts that neighbouring labels (centre x, width) are at least half their widths plus a gap apart.
fn assert_apart(at: &[(f64, f64)]) {
    for p in at.windows(2) {
        let need = (p[0].1 + p[1].1) / 2.0 + GAP;
        assert!((p[1].0 - p[0].0).abs() >= need, "{:?} and {:?} overlap", p[0], p[1]);
    }
}

/// The x tick labels of a rendered chart: (centre x, width of the widest line, lines).
fn x_labels(svg: &str) -> Vec<(f64, f64, Vec<String>)> {
    let xs = svg.split("<g class=\"ticks-x\"").nth(1).unwrap();
    let xs = &xs[..xs.find("</g>").unwrap()];
    xs.split("<text")
        .skip(1)
        .map(|t| {
            let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
            let unescape = |t: &str| {
                t.replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&amp;", "&")
            };
            let lines: Vec<String> = body
                .split("<tspan")
                .map(|l| unescape(&l[l.find('>').map_or(0, |i| i + 1)..].replace("</tspan>", "")))
                .collect();
            let width = lines.iter().map(|l| text_width(l)).fold(0.0, f64::max);
            (attr(t, "x").parse().unwrap(), width, lines)
        })
        .collect()
}

#[test]
fn category_labels_never_overlap() {
    let placed = |c: &[CatLabel]| c.iter().map(|l| (l.x, l.width())).collect::<Vec<_>>();
    let forty: Vec<String> = (1..=40).map(|i| format!("zone {i}")).collect();
    let shown = category_labels(&forty, 60.0, 560.0);
    assert!(shown.len() < 40 && shown.len() >= 5, "{}", shown.len());
    assert_eq!(shown[0].index, 0);
    let k = shown[1].index - shown[0].index;
    assert!(shown.windows(2).all(|p| p[1].index - p[0].index == k), "every k-th label");
    assert_apart(&placed(&shown));
    assert!(
        shown.iter().all(|l| l.lines == [forty[l.index].clone()]),
        "short labels are not cut"
    );

    let three: Vec<String> = ["seq read 1M Q8T1", "random read 4K Q32T16 with a long name", "seq write"]
        .map(String::from)
        .to_vec();
    for width in [560.0, 300.0, 120.0, 30.0] {
        let shown = category_labels(&three, 60.0, width);
        assert_apart(&placed(&shown));
        assert!(shown.iter().all(|l| l.width() <= MAX_LABEL_W));
    }
    assert_eq!(category_labels(&three, 60.0, 560.0).len(), 3);
    let lines: Vec<usize> = category_labels(&three, 60.0, 560.0).iter().map(|l| l.lines.len()).collect();
    assert_eq!(lines, [1, 2, 1], "only the long label is broken");
    // Wrapping in two lines keeps all labels of a battery when one line each would not fit.
    let battery: Vec<String> = [
        "SEQ1M Q8T1",
        "SEQ1M Q1T1",
        "RND4K Q32T16",
        "RND4K Q1T1",
        "SEQ128K Q32T1",
        "RND4K Q8T8",
        "mixed 70/30",
        "fsync",
    ]
    .map(String::from)
    .to_vec();
    let shown = category_labels(&battery, 60.0, 560.0);
    assert_eq!(shown.len(), 8);
    assert_eq!(shown[0].lines, ["SEQ1M", "Q8T1"]);
    assert_eq!(shown[7].lines, ["fsync"]);
    assert_apart(&placed(&shown));

    // And in rendered charts: few categories with wide labels on a narrow chart, a battery, forty zones.
    for (cats, width) in [(three, 200), (battery, 640), (forty, 400)] {
        let mut c = BarChart::new("t", cats.clone(), Axis::linear("Throughput", "MB/s"));
        c.width = width;
        c.groups.push(BarSeries::new("a", cats.iter().map(|_| Some(1.0)).collect()));
        let svg = c.to_svg();
        assert_ok(&svg);
        let at = x_labels(&svg);
        assert!(!at.is_empty());
        assert_apart(&at.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>());
        assert!(
            at.iter().all(|l| l.0 - l.1 / 2.0 >= 0.0 && l.0 + l.1 / 2.0 <= f64::from(width)),
            "inside the chart: {at:?}"
        );
    }
}

#[test]
fn numeric_tick_labels_never_overlap() {
    for width in [160u32, 240, 400, 640, 1200] {
        for (lo, hi) in [(0.0, 97.0), (0.0, 3.0e12), (1.0e3, 5.0e6), (-0.5, 0.25)] {
            let lay = layout(&Axis::linear("x", ""), Some((lo, hi)), 50.0, f64::from(width) - 20.0, true);
            assert_apart(&lay.ticks.iter().map(|t| (lay.px(t.0), text_width(&t.1))).collect::<Vec<_>>());
            assert!(!lay.ticks.is_empty());
        }
    }
    // A line chart with three x values (three zones) on a narrow chart.
    let mut c = LineChart::new("", Axis::linear("Position", "GiB"), Axis::linear("MB/s", ""));
    c.width = 160;
    c.series.push(Series::new("r", vec![(0.0, 100.0), (465.76, 90.0), (931.51, 80.0)]));
    let svg = c.to_svg();
    assert_ok(&svg);
    let at = x_labels(&svg);
    assert!(at.len() >= 2);
    assert_apart(&at.iter().map(|l| (l.0, l.1)).collect::<Vec<_>>());
    assert!(
        at.iter().all(|l| l.0 - l.1 / 2.0 >= 0.0 && l.0 + l.1 / 2.0 <= 160.0),
        "inside the chart: {at:?}"
    );
}

#[test]
fn every_text_is_escaped() {
    let nasty = "<b>R&D \"fast\" 'disk'</b>\u{1}";
    let mut c = LineChart::new(nasty, Axis::linear(nasty, nasty), Axis::linear(nasty, ""));
    c.series.push(Series::new(nasty, vec![(1.0, 2.0), (2.0, 3.0)]));
    c.series.push(Series::new("b", vec![(1.0, 1.0)]));
    c.hlines.push(HLine::new(nasty, 2.5));
    c.bands.push(Band::new(nasty, 1.0, 1.5));
    c.markers.push(Marker::new(nasty, 1.2));
    let svg = c.to_svg();
    assert_ok(&svg);
    assert!(!svg.contains("<b>") && !svg.contains("R&D"));
    assert!(svg.contains("&lt;b&gt;R&amp;D &quot;fast&quot; &#39;disk&#39;&lt;/b&gt;\u{FFFD}"));
    let mut b = BarChart::new(nasty, vec![nasty.to_string()], Axis::linear(nasty, nasty));
    b.groups
        .push(BarSeries::new(nasty, vec![Some(1.0)]).with_whiskers(vec![Some((0.5, 1.5))]));
    b.references.push(Reference {
        label: nasty.into(),
        values: vec![Some(1.2)],
    });
    b.hlines.push(HLine::new(nasty, 1.0));
    let svg = b.to_svg();
    assert_ok(&svg);
    assert!(!svg.contains("<b>") && !svg.contains("R&D"));
}

#[test]
fn a_100_point_chart_fits_the_budget() {
    let svg = scan_chart(100).to_svg();
    assert_ok(&svg);
    assert!(svg.len() < 12_000, "{} bytes", svg.len());
    assert_eq!(count(&svg, "class=\"pt\""), 100);
    assert_eq!(count(&svg, "class=\"hline\""), 3);
    // One series: no legend.
    assert!(!svg.contains("class=\"legend\""));
}

#[test]
fn edge_cases_do_not_panic_and_are_described() {
    // No series at all, and an empty one.
    let mut c = LineChart::new("empty", Axis::linear("x", ""), Axis::log10("y", ""));
    assert!(c.to_svg().contains("no data"));
    c.series.push(Series::new("none", vec![]));
    let svg = c.to_svg();
    assert_ok(&svg);
    assert!(svg.contains("class=\"no-data\"") && svg.contains("No data."));
    assert_eq!(attr(&svg, "data-points"), "0");
    assert!(svg.contains("class=\"axis\""));

    // A single point, and all-equal values: visible, axes open around them.
    for pts in [
        vec![(5.0, 42.0)],
        vec![(1.0, 7.0), (2.0, 7.0), (3.0, 7.0)],
        vec![(0.0, 0.0), (0.0, 0.0)],
    ] {
        let n = pts.len();
        let mut c = LineChart::new("one", Axis::linear("x", ""), Axis::linear("y", ""));
        c.series.push(Series::new("s", pts));
        let svg = c.to_svg();
        assert_ok(&svg);
        assert_eq!(count(&svg, "class=\"pt\""), n);
    }
    let mut c = LineChart::new("one", Axis::linear("x", ""), Axis::linear("y", ""));
    c.series.push(Series::new("s", vec![(5.0, 42.0)]));
    assert!(c.to_svg().contains("<path class=\"pt\" d=\"M"), "a lone point on a line is shown");
    assert!(c.to_svg().contains("stroke-opacity=\"1\""), "a lone point on a line is shown");

    // Zeros, negatives, NaN and infinities on a log axis: skipped and said so.
    let mut c = LineChart::new("lat", Axis::log2("Queue depth", ""), Axis::log10("Latency", "µs"));
    c.series.push(Series::new(
        "p99",
        vec![
            (1.0, 80.0),
            (2.0, 0.0),
            (4.0, -3.0),
            (8.0, f64::NAN),
            (16.0, f64::INFINITY),
            (0.0, 5.0),
            (32.0, 900.0),
        ],
    ));
    c.hlines.push(HLine::new("zero", 0.0));
    c.markers.push(Marker::new("nan", f64::NAN));
    c.bands.push(Band::new("neg", -1.0, 4.0));
    let svg = c.to_svg();
    assert_ok(&svg);
    assert_eq!(count(&svg, "class=\"pt\""), 2);
    let desc = &svg[svg.find("<desc").unwrap()..svg.find("</desc>").unwrap()];
    assert!(desc.contains("2 non-finite points skipped"), "{desc}");
    assert!(desc.contains("3 points with a zero or negative value skipped"), "{desc}");
    assert!(desc.contains("line &#39;zero&#39; (0) cannot be drawn"), "{desc}");
    assert!(
        desc.contains("marker &#39;nan&#39;") && desc.contains("band &#39;neg&#39;"),
        "{desc}"
    );

    // Values near the largest f64, and the smallest.
    for ys in [
        [1.6536355187606985e308, -8.081003773969927e35],
        [f64::MAX, f64::MAX],
        [f64::MIN_POSITIVE, 5e-324],
    ] {
        for y in [Axis::linear("y", ""), Axis::log10("y", "")] {
            let mut c = LineChart::new("huge", Axis::linear("x", ""), y);
            c.series.push(Series::new("s", vec![(0.0, ys[0]), (1.0, ys[1])]));
            assert_ok(&c.to_svg());
        }
    }

    // Fixed ranges the data exceed; absurdly small charts.
    let mut c = scan_chart(10);
    c.y = c.y.with_range(Some(0.0), Some(1000.0));
    c.width = 1;
    c.height = 1;
    let svg = c.to_svg();
    assert_ok(&svg);
    assert!(svg.contains("drawn at its edge"));

    // Bar charts: nothing, missing values, ragged groups, log axis.
    let mut b = BarChart::new("", vec![], Axis::linear("y", ""));
    assert_ok(&b.to_svg());
    b.categories = vec!["a".into(), "b".into()];
    b.groups.push(BarSeries::new("g", vec![None, Some(f64::NAN), Some(3.0)]));
    b.groups
        .push(BarSeries::new("h", vec![]).with_whiskers(vec![Some((f64::NAN, 1.0))]));
    let svg = b.to_svg();
    assert_ok(&svg);
    assert_eq!(attr(&svg, "data-points"), "0");
    assert!(svg.contains("no data") && svg.contains("beyond the last category"));
    b.y = Axis::log10("y", "");
    b.groups[0].values = vec![Some(0.0), Some(10.0)];
    let svg = b.to_svg();
    assert_ok(&svg);
    assert_eq!(count(&svg, "class=\"bar\""), 1);
    assert!(svg.contains("1 value skipped: zero, negative"));
}

#[test]
fn bars_whiskers_and_references() {
    let cats: Vec<String> = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T16", "RND4K Q1T1"]
        .map(String::from)
        .to_vec();
    let mut c = BarChart::new("Read", cats, Axis::linear("Throughput", "MB/s"));
    c.groups.push(
        BarSeries::new("run A", vec![Some(3500.0), Some(2100.0), Some(900.0), Some(60.5)]).with_whiskers(vec![
            Some((3400.0, 3600.0)),
            None,
            Some((850.0, 950.0)),
            Some((58.0, 63.0)),
        ]),
    );
    c.groups
        .push(BarSeries::new("run B", vec![Some(3300.0), None, Some(1000.0), Some(55.0)]));
    c.references.push(Reference {
        label: "ideal sum".into(),
        values: vec![Some(7000.0), None, None, None],
    });
    c.hlines.push(HLine::new("limit", 4000.0));
    let svg = c.to_svg();
    assert_ok(&svg);
    assert_eq!(count(&svg, "class=\"bar\""), 7);
    assert_eq!(attr(&svg, "data-points"), "7");
    assert_eq!(count(&svg, "class=\"whisker\""), 3);
    assert_eq!(count(&svg, "class=\"ref\""), 1);
    assert!(
        svg.contains("<title>SEQ1M Q8T1, run A: 3500 MB/s (interval 3400 to 3600)</title>"),
        "{svg}"
    );
    assert!(svg.contains("class=\"legend\"") && svg.contains(">ideal sum</text>"));
    // The y axis reaches the reference and starts at zero.
    let labels = svg.split("<g class=\"ticks-y\"").nth(1).unwrap();
    assert!(labels.contains(">0</text>") && labels.contains(">7000</text>"), "{labels}");
    // Bars stand on the zero line.
    let base: Vec<f64> = svg
        .split("<rect class=\"bar\"")
        .skip(1)
        .map(|r| attr(r, "y").parse::<f64>().unwrap() + attr(r, "height").parse::<f64>().unwrap())
        .collect();
    assert!(base.windows(2).all(|p| (p[0] - p[1]).abs() < 0.15), "{base:?}");
    // The two groups differ in colour.
    let fills: Vec<&str> = svg.split("<g class=\"bars\"").skip(1).map(|g| attr(g, "fill")).collect();
    assert_eq!(fills, [PALETTE[0], PALETTE[1]]);
}

#[test]
fn several_series_get_a_legend_and_distinct_dashes() {
    let mut c = LineChart::new("Runs", Axis::linear("Time", "s"), Axis::linear("Throughput", "MB/s"));
    c.series.push(Series::new("read", vec![(0.0, 1.0), (1.0, 2.0)]));
    c.series.push(Series::new("write", vec![(0.0, 2.0), (1.0, 1.0)]));
    c.bands.push(Band::new("warm-up", 0.0, 0.2));
    c.bands.push(Band::new("run 1", 0.2, 1.0));
    c.markers.push(Marker::new("write cliff", 0.6));
    let svg = c.to_svg();
    assert_ok(&svg);
    assert!(svg.contains("class=\"legend\"") && svg.contains(">read</text>") && svg.contains(">write</text>"));
    let blocks = series_blocks(&svg);
    assert!(!blocks[0].contains("stroke-dasharray"));
    assert!(blocks[1].contains("stroke-dasharray=\"6 3\""));
    assert_ne!(attr(blocks[0], "stroke"), attr(blocks[1], "stroke"));
    assert_eq!(count(&svg, "class=\"band\""), 2);
    assert!(svg.contains(">run 1</text>") && svg.contains(">write cliff</text>"));
    assert!(svg.contains("class=\"axis-label\""));
    assert!(svg.contains(">Throughput (MB/s)</text>"));
}

#[test]
fn ids_differ_between_charts() {
    let a = scan_chart(10).to_svg();
    let b = scan_chart(11).to_svg();
    assert_ne!(attr(&a, "aria-labelledby"), attr(&b, "aria-labelledby"));
    assert_eq!(a, scan_chart(10).to_svg(), "the output is deterministic");
}

// ---- the output, byte for byte
//
// Representative charts, each kept as an insta snapshot, and a corpus
// of generated charts kept as one digest: the snapshots were recorded by
// the single-file writer before it became a folder, so the refactoring
// is proven to leave every byte as it was.

fn milliseconds(v: f64) -> String {
    format!("{:.0} ms", v * 1e3)
}

/// Lines: log axes, reference lines, bands and markers, every style, ranges the data exceed.
fn representative_lines() -> Vec<(&'static str, LineChart)> {
    let mut out = Vec::new();

    // Latency against block size: log2 x in bytes, log10 y, a skipped zero, a limit.
    let mut c = LineChart::new(
        "Latency by block size",
        Axis::log2("Block size", "").with_format(TickFormat::Binary),
        Axis::log10("Latency", "µs"),
    );
    let sizes = [4096.0, 8192.0, 16384.0, 65536.0, 131072.0, 1048576.0];
    c.series.push(
        Series::new(
            "p50",
            sizes
                .iter()
                .zip([80.0, 85.0, 97.0, 180.0, 310.0, 2100.0])
                .map(|(&x, y)| (x, y))
                .collect(),
        )
        .with_style(SeriesStyle::LineDots),
    );
    c.series.push(Series::new(
        "p99",
        sizes
            .iter()
            .zip([900.0, 0.0, 1500.0, 4000.0, 9000.0, 60000.0])
            .map(|(&x, y)| (x, y))
            .collect(),
    ));
    c.hlines.push(HLine::new("SLO", 10000.0));
    out.push(("line_log_axes", c));

    // A latency distribution: percentiles on a log10 x, steps.
    let mut c = LineChart::new(
        "Latency distribution",
        Axis::log10("Latency", "µs"),
        Axis::linear("Percentile", "%"),
    );
    let pts = (0..40)
        .map(|i| (10f64.powf(1.0 + i as f64 * 0.11), (i as f64 * 2.6).min(99.99)))
        .collect();
    c.series.push(Series::new("read", pts).with_style(SeriesStyle::Step));
    out.push(("line_log_x_steps", c));

    // A scan curve with min, average and max lines.
    out.push(("line_reference_lines", scan_chart(100)));

    // A timeline: four series in every style, bands, markers crowding the right edge, a narrow legend.
    let mut c = LineChart::new(
        "Throughput over time",
        Axis::linear("Time", "s"),
        Axis::linear("Throughput", "MB/s").from_zero(),
    );
    c.width = 420;
    for (k, style) in [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots, SeriesStyle::Step]
        .into_iter()
        .enumerate()
    {
        let pts = (0..25).map(|i| (i as f64, 100.0 + (k * 37 + i * 13 % 29) as f64)).collect();
        c.series
            .push(Series::new(format!("job number {k} with a long name"), pts).with_style(style));
    }
    c.series.push(Series::new("coloured", vec![(3.0, 50.0), (9.0, 60.0)]).with_color(5));
    c.bands = vec![
        Band::new("warm-up", 0.0, 2.0),
        Band::new("run 1", 2.0, 12.0),
        Band::new("run 2 with a label too long", 12.0, 14.0),
    ];
    c.markers = vec![
        Marker::new("write cliff", 6.0),
        Marker::new("second", 6.5),
        Marker::new("third", 7.0),
        Marker::new("fourth, no row left", 7.2),
        Marker::new("near the end", 23.5),
    ];
    c.hlines = vec![HLine::new("", 120.0), HLine::new("close", 121.0), HLine::new("closer", 122.0)];
    out.push(("line_bands_markers_styles", c));

    // A fixed range the data exceed, fixed and custom tick formats, breaks in the line.
    let mut c = LineChart::new(
        "Fixed range",
        Axis::linear("Elapsed", "").with_format(TickFormat::Custom(milliseconds)),
        Axis::linear("Rate", "IOPS")
            .with_range(Some(0.0), Some(1000.0))
            .with_format(TickFormat::Fixed(1)),
    );
    c.series.push(Series::new(
        "r",
        vec![
            (0.0, 10.0),
            (0.1, 1500.0),
            (0.2, f64::NAN),
            (0.3, 400.0),
            (0.4, f64::INFINITY),
            (0.5, -20.0),
            (0.6, 300.0),
        ],
    ));
    out.push(("line_fixed_range_breaks", c));

    // Large numbers: SI prefixes on both axes.
    let mut c = LineChart::new("Big", Axis::linear("Bytes", "B"), Axis::linear("IOPS", ""));
    c.series.push(Series::new(
        "s",
        (0..12).map(|i| (i as f64 * 2.5e11, 1.2e4 + i as f64 * 3.3e5)).collect(),
    ));
    out.push(("line_si_prefixes", c));

    out
}

/// Lines at the edges: nothing, an empty series on a log axis, one point, equal values, a 1 × 1 chart, no titles.
fn edge_case_lines() -> Vec<(&'static str, LineChart)> {
    let mut out = Vec::new();
    out.push((
        "line_no_series",
        LineChart::new("empty", Axis::linear("x", ""), Axis::linear("y", "")),
    ));
    let mut c = LineChart::new("empty series", Axis::linear("x", ""), Axis::log10("y", "ms"));
    c.series.push(Series::new("none", vec![]));
    out.push(("line_empty_series_log", c));
    let mut c = LineChart::new("one", Axis::linear("x", "s"), Axis::linear("y", "MB/s"));
    c.series.push(Series::new("s", vec![(5.0, 42.0)]));
    out.push(("line_one_point", c));
    let mut c = LineChart::new("one on log axes", Axis::log2("QD", ""), Axis::log10("IOPS", ""));
    c.series.push(Series::new("s", vec![(8.0, 42000.0)]).with_style(SeriesStyle::Dots));
    out.push(("line_one_point_log", c));
    let mut c = LineChart::new("equal", Axis::linear("x", ""), Axis::linear("y", ""));
    c.series.push(Series::new("s", vec![(1.0, 7.0), (2.0, 7.0), (3.0, 7.0)]));
    c.series.push(Series::new("zeros", vec![(0.0, 0.0), (0.0, 0.0)]));
    out.push(("line_equal_values", c));
    let mut c = scan_chart(10);
    c.width = 1;
    c.height = 1;
    out.push(("line_tiny", c));
    let mut c = LineChart::new("", Axis::linear("", ""), Axis::linear("", ""));
    c.series.push(Series::new("", vec![(0.0, 1.0), (1.0, 2.0)]));
    out.push(("line_untitled", c));
    out
}

/// Bars: groups with whiskers and references, many categories, log and negative axes, edge cases.
fn representative_bars() -> Vec<(&'static str, BarChart)> {
    let mut out = Vec::new();
    let battery: Vec<String> = [
        "SEQ1M Q8T1",
        "SEQ1M Q1T1",
        "RND4K Q32T16",
        "RND4K Q1T1",
        "SEQ128K Q32T1",
        "RND4K Q8T8",
        "mixed 70/30",
        "fsync",
    ]
    .map(String::from)
    .to_vec();
    let mut c = BarChart::new("Read", battery.clone(), Axis::linear("Throughput", "MB/s"));
    c.groups.push(
        BarSeries::new(
            "run A",
            vec![
                Some(3500.0),
                Some(2100.0),
                Some(900.0),
                Some(60.5),
                Some(3100.0),
                Some(700.0),
                Some(400.0),
                Some(0.4),
            ],
        )
        .with_whiskers(vec![Some((3400.0, 3600.0)), None, Some((950.0, 850.0)), Some((58.0, 63.0))]),
    );
    c.groups.push(BarSeries::new(
        "run B",
        vec![Some(3300.0), None, Some(1000.0), Some(55.0), Some(2900.0)],
    ));
    c.groups
        .push(BarSeries::new("run C", vec![Some(3200.0); 8]).with_whiskers(vec![Some((3000.0, 3300.0)); 8]));
    c.references.push(Reference {
        label: "ideal sum".into(),
        values: vec![Some(7000.0), None, Some(2000.0)],
    });
    c.hlines.push(HLine::new("limit", 4000.0));
    out.push(("bars_grouped_whiskers", c));

    let zones: Vec<String> = (1..=40).map(|i| format!("zone {i} of the disk with a long name")).collect();
    let mut c = BarChart::new("Zones", zones, Axis::linear("Throughput", "MB/s").from_zero());
    c.width = 400;
    c.groups
        .push(BarSeries::new("read", (0..40).map(|i| Some(1800.0 - i as f64 * 20.0)).collect()));
    out.push(("bars_many_categories", c));

    let mut c = BarChart::new("Log", vec!["a".into(), "b".into(), "c".into(), "d".into()], Axis::log10("IOPS", ""));
    c.groups.push(
        BarSeries::new("g", vec![Some(0.0), Some(10.0), Some(1e6), Some(10.05)]).with_whiskers(vec![
            None,
            Some((5.0, 20.0)),
            Some((-1.0, 2e6)),
            None,
        ]),
    );
    c.groups.push(BarSeries {
        color: Some(3),
        ..BarSeries::new("h", vec![Some(100.0), Some(f64::NAN), None, Some(3.0), Some(4.0)])
    });
    c.hlines.push(HLine::new("negative", -5.0));
    out.push(("bars_log_axis", c));

    let mut c = BarChart::new(
        "Signed",
        vec!["gain".into(), "loss".into(), "tiny".into()],
        Axis::linear("Change", "%").with_range(None, Some(50.0)),
    );
    c.groups.push(BarSeries::new("delta", vec![Some(80.0), Some(-30.0), Some(-0.01)]));
    out.push(("bars_signed_range", c));

    let mut c = BarChart::new("", vec!["only".into()], Axis::linear("", ""));
    c.groups.push(BarSeries::new("g", vec![Some(1.0)]));
    out.push(("bars_one", c));
    out.push(("bars_empty", BarChart::new("nothing", vec![], Axis::linear("y", ""))));
    out
}

#[test]
fn representative_charts_are_written_as_before() {
    let nasty = "<b>R&D \"fast\" 'disk'</b>\u{1}\n";
    let mut line = LineChart::new(nasty, Axis::linear(nasty, nasty), Axis::linear(nasty, ""));
    line.series.push(Series::new(nasty, vec![(1.0, 2.0), (2.0, 3.0)]));
    line.series.push(Series::new("b", vec![(1.0, 1.0)]));
    line.hlines.push(HLine::new(nasty, 2.5));
    line.bands.push(Band::new(nasty, 1.0, 1.5));
    line.markers.push(Marker::new(nasty, 1.2));
    let mut bars = BarChart::new(nasty, vec![nasty.to_string()], Axis::linear(nasty, nasty));
    bars.groups
        .push(BarSeries::new(nasty, vec![Some(1.0)]).with_whiskers(vec![Some((0.5, 1.5))]));
    bars.references.push(Reference {
        label: nasty.into(),
        values: vec![Some(1.2)],
    });
    let charts = representative_lines()
        .into_iter()
        .chain(edge_case_lines())
        .map(|(n, c)| (n, c.to_svg()))
        .chain(representative_bars().into_iter().map(|(n, c)| (n, c.to_svg())))
        .chain([("escaped_line", line.to_svg()), ("escaped_bars", bars.to_svg())]);
    insta::with_settings!({snapshot_path => "snapshots", omit_expression => true}, {
        let mut n = 0;
        for (name, svg) in charts {
            assert_ok(&svg);
            insta::assert_snapshot!(name, svg);
            n += 1;
        }
        assert_eq!(n, 21, "one snapshot per chart in src/render/svg/snapshots/");
    });
}

/// A small deterministic generator (xorshift64*), for the corpus.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A value of any sign and magnitude, sometimes zero, non-finite or repeated.
    fn value(&mut self) -> f64 {
        match self.below(20) {
            0 => 0.0,
            1 => f64::NAN,
            2 => f64::INFINITY,
            3 => 42.0,
            k => {
                let sign = if k < 6 { -1.0 } else { 1.0 };
                let mag = (self.below(2400) as f64 - 1200.0) / 100.0;
                sign * 10f64.powf(mag) * (1.0 + self.below(1000) as f64 / 1000.0)
            }
        }
    }
    fn axis(&mut self, label: &str) -> Axis {
        let mut a = match self.below(3) {
            0 => Axis::linear(label, "u"),
            1 => Axis::log10(label, ""),
            _ => Axis::log2(label, "B"),
        };
        a.format = match self.below(5) {
            0 => TickFormat::Fixed(self.below(3) as usize),
            1 => TickFormat::Binary,
            2 => TickFormat::Custom(milliseconds),
            _ => TickFormat::Auto,
        };
        match self.below(4) {
            0 => a.from_zero(),
            1 => {
                let (lo, hi) = (self.value(), self.value());
                a.with_range(Some(lo), Some(hi))
            }
            _ => a,
        }
    }
    fn text(&mut self) -> String {
        let words = [
            "read",
            "SEQ1M Q8T1",
            "a rather long label for a category",
            "<&>",
            "",
            "µs",
            "zone 12",
        ];
        (0..self.below(3) + 1)
            .map(|_| words[self.below(words.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn generated_line(g: &mut Gen) -> LineChart {
    let mut c = LineChart::new(g.text(), g.axis("x"), g.axis("y"));
    c.width = 100 + g.below(900) as u32;
    c.height = 80 + g.below(400) as u32;
    for k in 0..g.below(5) {
        let ascending = g.below(2) == 0;
        let pts = (0..g.below(60))
            .map(|i| (if ascending { i as f64 * 1.7 + 1.0 } else { g.value() }, g.value()))
            .collect();
        let style = [SeriesStyle::Line, SeriesStyle::Dots, SeriesStyle::LineDots, SeriesStyle::Step][g.below(4) as usize];
        let mut s = Series::new(format!("s{k} {}", g.text()), pts).with_style(style);
        if g.below(4) == 0 {
            s = s.with_color(g.below(9) as usize);
        }
        c.series.push(s);
    }
    for _ in 0..g.below(4) {
        c.hlines.push(HLine::new(g.text(), g.value()));
    }
    for _ in 0..g.below(3) {
        let (a, b) = (g.value(), g.value());
        c.bands.push(Band::new(g.text(), a, b));
    }
    for _ in 0..g.below(4) {
        c.markers.push(Marker::new(g.text(), g.value()));
    }
    c
}

fn generated_bars(g: &mut Gen) -> BarChart {
    let n = g.below(30) as usize;
    let cats = (0..n).map(|_| g.text()).collect();
    let mut c = BarChart::new(g.text(), cats, g.axis("y"));
    c.width = 100 + g.below(900) as u32;
    c.height = 80 + g.below(400) as u32;
    for k in 0..g.below(5) {
        let values = (0..g.below(n as u64 + 3))
            .map(|_| if g.below(6) == 0 { None } else { Some(g.value()) })
            .collect();
        let mut s = BarSeries::new(format!("g{k}"), values);
        if g.below(2) == 0 {
            let w = (0..g.below(n as u64 + 3))
                .map(|_| if g.below(4) == 0 { None } else { Some((g.value(), g.value())) })
                .collect();
            s = s.with_whiskers(w);
        }
        if g.below(4) == 0 {
            s.color = Some(g.below(9) as usize);
        }
        c.groups.push(s);
    }
    for _ in 0..g.below(3) {
        c.hlines.push(HLine::new(g.text(), g.value()));
    }
    for _ in 0..g.below(3) {
        let values = (0..g.below(n as u64 + 2))
            .map(|_| if g.below(3) == 0 { None } else { Some(g.value()) })
            .collect();
        c.references.push(Reference { label: g.text(), values });
    }
    c
}

/// 600 generated charts of every kind, their bytes summed up in one digest (FNV-1a, 64 bits).
#[test]
fn a_corpus_of_generated_charts_is_written_as_before() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let (mut bytes, mut hash) = (0usize, 0xcbf2_9ce4_8422_2325u64);
    let mut points = 0usize;
    for i in 0..600 {
        let svg = if i % 2 == 0 {
            generated_line(&mut g).to_svg()
        } else {
            generated_bars(&mut g).to_svg()
        };
        // Well-formed, not `assert_ok`: a line at a non-finite value is noted in the description as "(inf)".
        if let Err(e) = well_formed(&svg) {
            panic!("chart {i} not well-formed: {e}\n{svg}");
        }
        points += attr(&svg, "data-points").parse::<usize>().unwrap();
        bytes += svg.len();
        for b in svg.bytes() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let digest = format!("600 charts, {points} points, {bytes} bytes, FNV-1a 64: {hash:016x}");
    insta::with_settings!({snapshot_path => "snapshots", omit_expression => true}, {
        insta::assert_snapshot!(digest);
    });
}

proptest::proptest! {
    #[test]
    fn linear_ticks_cover_the_range(lo in -1e9f64..1e9, span in 1e-6f64..1e9, max in 2usize..=10) {
        let hi = lo + span;
        let t = linear_ticks(lo, hi, max);
        proptest::prop_assert!(t.len() >= 2, "{t:?}");
        proptest::prop_assert!(t.len() <= max.max(3), "{t:?}");
        proptest::prop_assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
        let tol = (t[1] - t[0]) * 1e-6;
        proptest::prop_assert!(t[0] <= lo + tol && *t.last().unwrap() >= hi - tol, "{lo} {hi} {t:?}");
    }

    #[test]
    fn log_ticks_cover_the_range(a in -12f64..12.0, decades in 0.0f64..15.0, max in 2usize..=10, two: bool) {
        let base: f64 = if two { 2.0 } else { 10.0 };
        let (lo, hi) = (base.powf(a), base.powf(a + decades));
        let t = log_ticks(lo, hi, base, max);
        proptest::prop_assert!(t.len() >= 2 && t.len() <= max, "{t:?}");
        proptest::prop_assert!(t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
        proptest::prop_assert!(t[0] <= lo * (1.0 + 1e-9) && *t.last().unwrap() >= hi * (1.0 - 1e-9), "{lo} {hi} {t:?}");
    }

    #[test]
    fn any_bar_chart_is_well_formed(
        cats in proptest::collection::vec("\\PC{0,24}", 0..30),
        a in proptest::collection::vec(proptest::option::of(proptest::num::f64::ANY), 0..30),
        b in proptest::collection::vec(proptest::option::of(-1e4f64..1e6), 0..30),
        log: bool,
        w in 100u32..900,
    ) {
        let y = if log { Axis::log10("y", "u") } else { Axis::linear("y", "u") };
        let mut c = BarChart::new("p", cats.clone(), y);
        c.width = w;
        c.groups.push(BarSeries::new("a", a.clone()));
        let whiskers = b.iter().map(|v| v.map(|v| (v * 0.9, v * 1.1))).collect();
        c.groups.push(BarSeries::new("b", b.clone()).with_whiskers(whiskers));
        let svg = c.to_svg();
        proptest::prop_assert!(well_formed(&svg).is_ok(), "{svg}");
        proptest::prop_assert!(!svg.contains("NaN") && !svg.contains("inf"));
        let ok = |v: &Option<f64>| v.is_some_and(|v| v.is_finite() && (!log || v > 0.0));
        let drawable = a.iter().take(cats.len()).filter(|v| ok(v)).count() + b.iter().take(cats.len()).filter(|v| ok(v)).count();
        proptest::prop_assert_eq!(count(&svg, "class=\"bar\""), drawable);
        let at: Vec<(f64, f64)> = x_labels(&svg).iter().map(|l| (l.0, l.1)).collect();
        for p in at.windows(2) {
            proptest::prop_assert!(p[1].0 - p[0].0 >= (p[0].1 + p[1].1) / 2.0 + GAP - 0.2, "{at:?}");
        }
    }

    #[test]
    fn numeric_labels_never_overlap(lo in -1e12f64..1e12, span in 1e-3f64..1e13, len in 20f64..1500.0, log: bool) {
        let axis = if log { Axis::log10("x", "") } else { Axis::linear("x", "") };
        let lo = if log { lo.abs().max(1e-3) } else { lo };
        let lay = layout(&axis, Some((lo, lo + span)), 40.0, 40.0 + len, true);
        proptest::prop_assert!(!lay.ticks.is_empty());
        proptest::prop_assert!(lay.labels_fit(true), "{lay:?}");
    }

    #[test]
    fn any_line_chart_is_well_formed(ys in proptest::collection::vec(proptest::num::f64::ANY, 0..40), log: bool, w in 100u32..900) {
        let y = if log { Axis::log10("y", "u") } else { Axis::linear("y", "u") };
        let mut c = LineChart::new("p", Axis::linear("x", ""), y);
        c.width = w;
        c.series.push(Series::new("s", ys.iter().enumerate().map(|(i, &v)| (i as f64, v)).collect()));
        let svg = c.to_svg();
        proptest::prop_assert!(well_formed(&svg).is_ok(), "{svg}");
        proptest::prop_assert!(!svg.contains("NaN") && !svg.contains("inf"));
        let drawable = ys.iter().filter(|&&v| v.is_finite() && (!log || v > 0.0)).count();
        proptest::prop_assert_eq!(count(&svg, "class=\"pt\""), drawable);
    }
}

/// Issue 24: no function of the writer over 120 lines. A function runs
/// from its `fn` line to the `}` at the same indentation.
#[test]
fn no_function_is_over_120_lines() {
    let files = [
        ("mod.rs", include_str!("../mod.rs")),
        ("axis.rs", include_str!("../axis.rs")),
        ("text.rs", include_str!("../text.rs")),
        ("frame.rs", include_str!("../frame.rs")),
        ("line.rs", include_str!("../line.rs")),
        ("bar.rs", include_str!("../bar.rs")),
        ("check.rs", include_str!("check.rs")),
    ];
    let mut seen = 0;
    for (file, src) in files {
        let mut open: Option<(usize, usize, &str)> = None; // indentation, first line, the line
        for (i, line) in src.lines().enumerate() {
            let code = line.trim_start();
            let indent = line.len() - code.len();
            match open {
                None => {
                    let sig = ["fn ", "pub fn ", "pub(super) fn ", "pub(crate) fn ", "const fn "];
                    if sig.iter().any(|s| code.starts_with(s)) && !code.ends_with(';') && !code.ends_with('}') {
                        open = Some((indent, i, code));
                    }
                }
                Some((at, first, sig)) if code == "}" && indent == at => {
                    let len = i - first + 1;
                    assert!(len <= 120, "{file}: `{sig}` is {len} lines");
                    seen += 1;
                    open = None;
                }
                Some(_) => {}
            }
        }
        assert!(open.is_none(), "{file}: a function without its end");
    }
    assert!(seen > 80, "only {seen} functions found");
}
