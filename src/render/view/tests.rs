//! The four renderers of a [`View`] on one small view that has every kind
//! of block and every [`Detail`]: each format shows what its `SHOWS` list
//! says and writes each cell its way.

use super::*;
use crate::base::units::BwUnit;
use crate::render::{Style, csv, markdown, text};

fn warning(code: &str, scope: Option<&str>) -> Warning {
    Warning {
        code: code.into(),
        severity: Severity::Warning,
        scope: scope.map(String::from),
        message: format!("{code} happened"),
    }
}

/// A view with a headline table for screens, complete rows for documents
/// (the records, with a raw column), facts, a chart, notes and warnings.
fn sample() -> View {
    let mut summary = Section::new("summary", "summary", Heading::Outline("Summary".into()));
    summary.push(Block::only(Detail::Page, Block::Warnings(vec![warning("shared", Some("a, b"))])));
    let mut brief = Table::new(vec![
        Column::text("Test", "test"),
        Column::bandwidth("Read", "read_bw_bytes_per_s"),
        Column::figure("p99 latency", "p99_latency_ns"),
        Column::text("Warnings", "warnings").only(Detail::Page),
    ]);
    brief.headline = true;
    brief.row(Row {
        cells: vec![
            Cell::text("a | b"),
            Cell::bandwidth(2.0e9),
            Cell::Latency(Latency::UpperBound(1.5e6)),
            Cell::Codes(vec![Badge {
                code: "own".into(),
                severity: Severity::Untrustworthy,
                message: "own happened".into(),
            }]),
        ],
        warnings: vec![warning("own", None)],
    });
    brief.row(vec![Cell::text("c"), Cell::Empty, Cell::Latency(Latency::Off), Cell::Codes(vec![])]);
    summary.push(Block::only(Detail::Brief, Block::Table(brief)));
    let mut full = Table::new(vec![
        Column::text("Test", "test"),
        Column::bandwidth("", "bw_bytes_per_s"),
        Column::figure("Seconds", "seconds").only(Detail::Human),
        Column::figure("Wall ns", "wall_ns").only(Detail::Raw),
    ]);
    full.records = true;
    full.row(vec![
        Cell::text("a, \"b\""),
        Cell::bandwidth(1.5e9),
        Cell::seconds(0.25, 3),
        Cell::Count(250_000_000),
    ]);
    summary.push(Block::only(Detail::Full, Block::Table(full)));
    summary.push(Block::only(
        Detail::Page,
        Block::Notes(vec![Note::plain("A legend beside the table.")]),
    ));

    let mut part = Section::new("part", "part", Heading::Shown("A part".into()));
    part.push(Block::paragraph(Tone::Verdict { alert: true }, "BAD: the part failed"));
    part.push(Block::Facts(vec![Fact::new(
        "Size",
        Line::new().figure(Cell::Bytes(1 << 30)).text(" at ").figure(Cell::bandwidth(1e8)),
    )]));
    let mut chart = Chart::lines(
        "curve",
        "A curve",
        Axis::linear("Position", Quantity::Bytes).range(Some(0.0), Some(4.0 * (1u64 << 20) as f64)),
        Axis::linear("Rate", Quantity::Bandwidth).from_zero(),
    );
    chart.series(Series::new(
        "read",
        vec![(0.0, 2e8), (1048576.0, 1e8), (2097152.0, 1.5e8), (3145728.0, 1e8)],
    ));
    chart.numbers = Table::new(vec![Column::figure("Zone", "zone"), Column::bandwidth("", "bw")]);
    chart.numbers.row(vec![Cell::Count(1), Cell::bandwidth(2e8)]);
    chart.caption = Line::new().text("Rates (").span(Span::BwDefinition).text(").");
    part.push(Block::Chart(Box::new(chart)));

    let mut footer = Section::new("footer", "footer", Heading::None).only(Detail::Lines);
    footer.push(Block::Notes(vec![
        Note::plain(Line::new().text("Target: ").code("/mnt/x")),
        Note::plain(Line::new().span(Span::BwDefinition).text(".")),
    ]));
    footer.push(Block::Warnings(vec![warning("shared", Some("a, b")), warning("own", Some("a"))]));
    footer.push(Block::Notes(vec![Note::new(
        NoteTone::Stopped,
        "interrupted: only the tests above finished",
    )]));
    View {
        title: "A sample".into(),
        sections: vec![summary, part, footer],
    }
}

fn html(v: &View) -> String {
    crate::render::html::view_page(v)
}

/// The page's body, each chart's SVG left out (its own tests pin it).
fn body(page: &str) -> String {
    let mut s = &page[page.find("<h1>").expect("a title")..page.find("</main>").expect("a body")];
    let mut out = String::new();
    while let Some(a) = s.find("<svg") {
        out.push_str(&s[..a]);
        out.push_str("<svg/>");
        s = &s[s.find("</svg>").expect("svg closed") + "</svg>".len()..];
    }
    out + s
}

#[test]
fn each_format_shows_its_details() {
    let v = sample();
    let t = text::render(&v, Style::default());
    assert!(t.contains("Read MB/s") && t.contains("≤ 1.50 ms") && t.contains("off"), "{t}");
    assert!(
        !t.contains("Summary") && t.contains("\nA part\n"),
        "outline headings are for pages: {t}"
    );
    assert!(
        !t.contains("Wall ns") && !t.contains("Seconds"),
        "the complete rows are not the terminal's: {t}"
    );
    assert!(!t.contains("legend") && !t.contains("own happened\n│"), "{t}");
    assert!(
        t.contains("warning [own] (a): own happened") && t.contains("MB/s against position"),
        "{t}"
    );
    let md = markdown::render(&v, BwUnit::Mib);
    assert!(md.contains("| Test | MiB/s | Seconds |") && !md.contains("Wall ns"), "{md}");
    assert!(
        md.contains("| a, \"b\" | 1430.51 | 0.250 |") && md.contains("| 1 | 190.73 |"),
        "{md}"
    );
    assert!(
        md.contains("Target: `/mnt/x`  \nMiB/s = 2^20 bytes/s.\n") && md.contains("*interrupted: only"),
        "{md}"
    );
    assert!(
        !md.contains("Read MiB/s") && !md.contains("legend") && md.contains("**A part**"),
        "{md}"
    );
    let csv = csv::render(&v).expect("records");
    assert_eq!(csv, "test,bw_bytes_per_s,wall_ns\r\n\"a, \"\"b\"\"\",1500000000,250000000\r\n");
    let page = html(&v);
    assert!(
        page.contains("<table class=\"cdm\">") && page.contains("style=\"--w:100.0%\""),
        "{page}"
    );
    assert!(
        page.contains("<tr class=\"notes\">") && page.contains("<li>[own] own happened</li>"),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"scope\">(a, b)</span>") && page.contains("A legend beside"),
        "{page}"
    );
    assert!(page.contains("a &#124; b") || page.contains("a | b"), "{page}");
    assert!(page.contains("<p class=\"alert part-verdict\">BAD") && page.contains("<dt>Size</dt><dd>1.00 GiB at 100.00 MB/s</dd>"));
    assert!(
        page.contains("data-chart=\"curve\"") && page.contains("Rates (MB/s = 10^6 bytes/s)."),
        "{page}"
    );
    assert!(
        !page.contains("Target:") && !page.contains("Seconds"),
        "lines and complete rows are not the page's: {page}"
    );
}

#[test]
fn one_view_in_four_formats() {
    let v = sample();
    let all = format!(
        "{}--- markdown\n{}\n--- csv\n{}--- html\n{}",
        text::render(&v, Style::default()),
        markdown::render(&v, BwUnit::Mb),
        csv::render(&v).unwrap(),
        body(&html(&v))
    );
    insta::with_settings!({snapshot_path => "../snapshots"}, {
        insta::assert_snapshot!(all);
    });
}

/// A titled list with a subject, a key item and a judge's code, and a list
/// without a title, as each format lays them out (CSV: not at all).
#[test]
fn a_list_in_every_format() {
    let mut verdicts = List::new("verdicts", "Verdicts");
    verdicts.item(
        Item::new(Line::new().text("QD4 gives ").figure(Cell::bandwidth(2e9)))
            .subject("t1 /dev/a|b, queue depth")
            .key(true),
    );
    verdicts.item(&crate::judge::Diagnostic::new(crate::judge::Code::HighCv, "the runs <varied>").about("sda"));
    let mut untitled = List::new("moved", Line::new());
    untitled.item("sda: read 1.00 MiB");
    let mut s = Section::new("part", "part", Heading::Shown("A part".into()));
    s.push(Block::List(verdicts));
    s.push(Block::List(untitled));
    s.push(Block::List(List::new("empty", "Nothing")));
    let v = View {
        title: "Lists".into(),
        sections: vec![s],
    };
    assert_eq!(
        text::render(&v, Style::default()),
        "A part\nVerdicts:\n  - t1 /dev/a|b, queue depth: QD4 gives 2000.00 MB/s\n  - the runs <varied> [high_cv]\n  - sda: read 1.00 MiB\n",
        "an empty list is left out"
    );
    let painted = text::render(
        &v,
        Style {
            color: true,
            ..Style::default()
        },
    );
    assert!(
        painted.contains("\x1b[33m  - t1 /dev/a|b, queue depth: QD4") && painted.contains("\n  - the runs"),
        "{painted}"
    );
    assert_eq!(
        markdown::render(&v, BwUnit::Mib),
        "**A part**\n\n**Verdicts**\n\n- **t1 /dev/a\\|b, queue depth**: QD4 gives 1907.35 MiB/s\n- the runs &lt;varied&gt; [high_cv]\n\n- sda: read 1.00 MiB\n"
    );
    assert_eq!(csv::render(&v), None, "a list is no record");
    let page = body(&html(&v));
    assert!(
        page.contains(
            "<div class=\"verdicts\">\n<p class=\"list-title\">Verdicts</p>\n<ul class=\"list\">\n<li class=\"key\"><strong>t1 /dev/a|b, queue depth</strong>: QD4 gives 2000.00 MB/s</li>\n<li data-code=\"high_cv\"><span class=\"badge untrustworthy\">high_cv</span> the runs &lt;varied&gt;</li>\n</ul>\n</div>\n"
        ),
        "{page}"
    );
    assert!(
        page.contains("<div class=\"moved\">\n<ul class=\"list\">\n<li>sda: read 1.00 MiB</li>") && !page.contains("Nothing"),
        "{page}"
    );
    crate::render::svg::tests::check::well_formed_page(&html(&v)).unwrap();
}

/// A bar chart with whiskers and a reference: drawn on a page in MB/s, its
/// numbers a table in Markdown, nothing in the terminal.
#[test]
fn a_bar_chart_in_every_format() {
    let mut c = Chart::bars(
        "pair",
        "Alone and together",
        vec!["a".into(), "b".into()],
        Axis::linear("Throughput", Quantity::Bandwidth),
    );
    c.group(BarSeries::new("alone", vec![Some(2e8), Some(1e8)]));
    c.group(BarSeries::new("together", vec![Some(1.5e8), None]).with_whiskers(vec![Some((1.4e8, 1.6e8)), None]));
    c.reference(Reference {
        label: "ideal".into(),
        values: vec![None, Some(3e8)],
    });
    c.numbers = Table::new(vec![Column::text("Target", "target"), Column::bandwidth("Alone", "alone")]);
    c.numbers.row(vec![Cell::text("a"), Cell::bandwidth(2e8)]);
    let mut s = Section::new("part", "part", Heading::Outline("Bars".into()));
    s.push(Block::Chart(Box::new(c)));
    let v = View {
        title: "Bars".into(),
        sections: vec![s],
    };
    assert_eq!(text::render(&v, Style::default()), "", "no text curve for bars");
    assert_eq!(
        markdown::render(&v, BwUnit::Mb),
        "| Target | Alone MB/s |\n| --- | ---: |\n| a | 200.00 |\n"
    );
    let page = html(&v);
    crate::render::svg::tests::check::well_formed_page(&page).unwrap();
    assert_eq!(page.matches("class=\"bar\"").count(), 3, "a bar per known value: {page}");
    assert_eq!(page.matches("class=\"whisker\"").count(), 1, "{page}");
    assert_eq!(page.matches("class=\"ref\"").count(), 1, "{page}");
    assert!(
        page.contains("<title>a, together: 150 MB/s (interval 140 to 160)</title>"),
        "values and whiskers in MB/s: {page}"
    );
}

/// A loud fact beside a plain one: bold in Markdown, `<strong class="loud">`
/// on a page, its words alone in the terminal, nothing in CSV.
#[test]
fn a_loud_fact_in_every_format() {
    let mut s = Section::new("head", "head", Heading::Outline("Head".into()));
    s.push(Block::Facts(vec![
        Fact::new("Target", Line::new().code("/mnt/a b")),
        Fact::loud("I/O", "BUFFERED: through the page cache"),
    ]));
    let v = View {
        title: "Facts".into(),
        sections: vec![s],
    };
    let text = text::render(&v, Style::default());
    assert!(text.contains("┆ BUFFERED: through the page cache │"), "{text}");
    assert_eq!(
        markdown::render(&v, BwUnit::Mb),
        "| | |\n|---|---|\n| Target | `/mnt/a b` |\n| I/O | **BUFFERED: through the page cache** |\n"
    );
    assert_eq!(csv::render(&v), None);
    let page = html(&v);
    assert!(
        page.contains("<dt>Target</dt><dd><code>/mnt/a b</code></dd>\n<dt>I/O</dt><dd><strong class=\"loud\">BUFFERED: through the page cache</strong></dd>"),
        "{page}"
    );
    crate::render::svg::tests::check::well_formed_page(&page).unwrap();
}
