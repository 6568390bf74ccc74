//! `iolab flush`: after a write run, what was acknowledged and how long the
//! flushes took (and what to do next); after a check, the verdict (an
//! alert when a flush lied), the facts, what the lost blocks read back as
//! and their ranges.

use crate::render::view::{Block, Cell, Column, Detail, Fact, Heading, Line, Note, NoteTone, Section, Table, Tone};
use crate::summary::Report;
use crate::summary::flush_check::{FlushAction, FlushReport};
use crate::verify::flush::{FlushFindings, FlushVerdict};

/// Lost ranges listed (the JSON document has all it kept).
pub const SHOWN_RANGES: usize = 20;

/// The verdict in a few words.
pub fn verdict_word(v: FlushVerdict) -> &'static str {
    match v {
        FlushVerdict::Honest => "HONEST",
        FlushVerdict::Lied => "THE FLUSH LIED",
        FlushVerdict::Reordered => "THE FLUSH LIED, OUT OF ORDER",
        FlushVerdict::NothingAcknowledged => "NOT CHECKED",
    }
}

/// The flush run's sections.
pub fn sections(r: &Report, f: &FlushReport) -> Vec<Section> {
    let heading = Heading::Outline("Flush: does the device keep what a flush acknowledged?".into());
    let mut s = Section::new("flush", "flush", heading);
    match &f.findings {
        Some(x) => {
            // The sentence may open with the verdict's own words.
            let m = x.message.strip_prefix("the flush lied: ").unwrap_or(&x.message);
            let line = format!("{}: {m}", verdict_word(x.verdict));
            s.push(Block::paragraph(Tone::Verdict { alert: x.verdict.failed() }, line));
        }
        None => s.push(Block::paragraph(Tone::Plain, written(r, f))),
    }
    s.push(Block::Facts(facts(f)));
    match &f.findings {
        Some(x) if x.lost_blocks > 0 => s.sections.push(ranges(x)),
        // Nothing lost: the run in one row is what a spreadsheet gets.
        _ => s.push(Block::only(Detail::Raw, Block::Table(figures(f)))),
    }
    vec![s, footer(r)]
}

/// What a write run did, and what comes next.
fn written(r: &Report, f: &FlushReport) -> Line {
    let enough = if f.acknowledged_generations >= f.enough_generations {
        "enough for a verdict"
    } else {
        "fewer than a verdict needs: a check judges fewer blocks"
    };
    let ended = match (&f.device_error, r.interrupted) {
        (Some(e), _) => format!("; the device stopped answering ({e}): the power cut?"),
        (None, true) => "; stopped by a signal".to_string(),
        (None, false) => String::new(),
    };
    Line::new()
        .text(format!(
            "{} generation(s) written and acknowledged by their flush, each logged ({enough}: {}){ended}; check them with ",
            f.acknowledged_generations, f.enough_generations
        ))
        .code(format!("iolab flush {} --check --log {}", r.target.path, f.log))
}

/// The plan, the log and the figures.
fn facts(f: &FlushReport) -> Vec<Fact> {
    let p = &f.plan;
    let mut out = vec![
        Fact::new(
            "Plan",
            Line::new()
                .text(format!("{} extents of ", p.extents))
                .figure(Cell::Bytes(p.extent_bytes()))
                .text(format!(
                    " spread over the first {}, {} per generation (each extent written again every {} generations), pass {:016x}",
                    crate::base::units::fmt_bytes(p.span_bytes),
                    p.batch_extents,
                    p.cycle(),
                    f.pass
                )),
        ),
        Fact::new(
            "Log",
            Line::new().code(&f.log).text(if f.torn_tail {
                " (its last line was torn, and is not counted)"
            } else {
                ""
            }),
        ),
        Fact::new(
            "Acknowledged",
            format!(
                "{} generation(s); a verdict needs {}",
                f.acknowledged_generations, f.enough_generations
            ),
        ),
    ];
    if let Some(t) = &f.flush_times {
        out.push(Fact::new(
            "Flush time",
            Line::new()
                .text("min ")
                .figure(Cell::seconds(t.min_s, 6))
                .text(", median ")
                .figure(Cell::seconds(t.median_s, 6))
                .text(", max ")
                .figure(Cell::seconds(t.max_s, 6)),
        ));
    }
    if let Some(w) = f.write_s {
        out.push(Fact::new("Written in", Line::new().figure(Cell::seconds(w, 1))));
    }
    if let Some(x) = &f.findings {
        out.push(Fact::new(
            "Read back",
            format!(
                "{} acknowledged block(s): {} intact, {} with a later write, {} lost ({} stale)",
                x.acknowledged_blocks, x.intact_blocks, x.newer_blocks, x.lost_blocks, x.stale_blocks
            ),
        ));
        if x.in_flight_blocks > 0 {
            out.push(Fact::new(
                "In flight",
                format!(
                    "{} block(s) of the generation after the last acknowledged one, {} of them stored (never acknowledged: no promise)",
                    x.in_flight_blocks, x.in_flight_landed
                ),
            ));
        }
    }
    if let Some(d) = &f.device {
        out.push(Fact::new("Device", d.as_str()));
    }
    if f.action == FlushAction::Write {
        out.push(Fact::new(
            "Mode",
            "write: generations of stamped blocks, each flushed and then logged",
        ));
    }
    out
}

/// The run in one row (the records of CSV when no range was lost).
fn figures(f: &FlushReport) -> Table {
    let mut t = Table::new(vec![
        Column::text("Action", "action"),
        Column::figure("Acknowledged generations", "acknowledged_generations"),
        Column::figure("Enough for a verdict", "enough_generations"),
        Column::figure("Fastest flush", "flush_min_s"),
        Column::figure("Median flush", "flush_median_s"),
        Column::figure("Slowest flush", "flush_max_s"),
        Column::figure("Acknowledged blocks", "acknowledged_blocks"),
        Column::figure("Lost blocks", "lost_blocks"),
        Column::text("Verdict", "verdict"),
    ]);
    t.records = true;
    let x = f.findings.as_ref();
    let secs = |s: f64| Cell::seconds(s, 6);
    t.row(vec![
        Cell::text(match f.action {
            FlushAction::Write => "write",
            FlushAction::Check => "check",
        }),
        Cell::Count(f.acknowledged_generations),
        Cell::Count(f.enough_generations),
        Cell::or_empty(f.flush_times.as_ref().map(|t| t.min_s), secs),
        Cell::or_empty(f.flush_times.as_ref().map(|t| t.median_s), secs),
        Cell::or_empty(f.flush_times.as_ref().map(|t| t.max_s), secs),
        Cell::or_empty(x.map(|x| x.acknowledged_blocks), Cell::Count),
        Cell::or_empty(x.map(|x| x.lost_blocks), Cell::Count),
        Cell::text(x.map_or("", |x| verdict_word(x.verdict))),
    ]);
    t
}

/// The first [`SHOWN_RANGES`] lost ranges and what they hold.
fn ranges(x: &FlushFindings) -> Section {
    let heading = Heading::Shown("Acknowledged blocks lost (byte offsets, [from, to))".into());
    let mut s = Section::new("flush-ranges", "flush-ranges", heading);
    let mut t = Table::new(vec![
        Column::figure("Lost from", "from"),
        Column::figure("To", "to"),
        Column::text("Reads back as", "class"),
        Column::figure("Bytes", "bytes"),
        Column::text("Acknowledged in", "acked"),
        Column::text("Holds", "found"),
    ]);
    t.records = true;
    for r in x.ranges.iter().take(SHOWN_RANGES) {
        let gens = |a: u64, b: u64| {
            if a == b {
                format!("generation {a}")
            } else {
                format!("generations {a}-{b}")
            }
        };
        t.row(vec![
            Cell::Count(r.from),
            Cell::Count(r.to),
            Cell::text(r.class.as_str()),
            Cell::Bytes(r.to - r.from),
            Cell::text(gens(r.acked_from, r.acked_to)),
            Cell::text(match (r.found_from, r.found_to) {
                (Some(a), Some(b)) => gens(a, b),
                _ => String::new(),
            }),
        ]);
    }
    s.push(Block::Table(t));
    let more = (x.ranges.len().saturating_sub(SHOWN_RANGES) as u64) + x.ranges_dropped;
    if more > 0 {
        let line = Line::new()
            .text(format!("… and {more} more range(s): "))
            .code("--format json")
            .text(" lists those kept");
        s.push(Block::Notes(vec![Note::plain(line)]));
    }
    s
}

/// The lines under the tables: the target, and an error that stopped the run.
fn footer(r: &Report) -> Section {
    let mut s = Section::new("footer", "footer", Heading::None).only(Detail::Lines);
    s.push(Block::Notes(vec![Note::plain(super::jobs::target(r))]));
    if let Some(e) = &r.error {
        let stop = Note::new(NoteTone::Failed, format!("stopped by an error: {e}"));
        s.push(Block::Notes(vec![stop]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Document, Format, Style, exporter};
    use crate::summary::Body;
    use crate::summary::tests::fixtures;
    use crate::verify::Class;
    use crate::verify::flush::{Expect, FlushPlan, FlushTally, Found};

    fn report(lost: bool) -> Report {
        let plan = FlushPlan::new(64 << 20, 1 << 20).unwrap();
        let mut t = FlushTally::new();
        let ex = Expect {
            acked: Some(9),
            in_flight: None,
        };
        for k in 0..64u64 {
            let found = if lost && (10..13).contains(&k) {
                Found::Other(Class::Blank)
            } else {
                Found::Ours(9)
            };
            t.push(k * 4096, ex, found);
        }
        let mut r = fixtures::report("h", Some(4), &[]);
        r.command = "flush".into();
        r.target.path = "/dev/sdz".into();
        r.body = Body::Flush(FlushReport {
            action: FlushAction::Check,
            log: "/root/flush.log".into(),
            pass: 0xabc,
            plan,
            enough_generations: plan.enough_generations(),
            acknowledged_generations: 10,
            write_s: None,
            flush_times: None,
            device_error: None,
            torn_tail: false,
            findings: Some(t.summary(Some(9))),
            device: Some("serial:ABC".into()),
            writer_ended: None,
        });
        r
    }

    fn export(r: &Report, f: Format) -> String {
        exporter(f, Style::default()).export(Document::Run(r, None)).expect("a view")
    }

    fn text(r: &Report) -> String {
        export(r, Format::Table)
    }

    #[test]
    fn a_lie_is_an_alert_with_its_ranges_and_an_honest_device_is_not() {
        let lied = report(true);
        assert!(lied.failed_check().is_some());
        let t = text(&lied);
        assert!(t.contains("THE FLUSH LIED: 3 block(s)"), "{t}");
        assert!(t.contains("40960") && t.contains("53248") && t.contains("blank"), "{t}");
        let honest = report(false);
        assert!(honest.failed_check().is_none());
        let t = text(&honest);
        assert!(t.contains("HONEST: every acknowledged block is there"), "{t}");
        assert!(!t.contains("lost (byte offsets"), "{t}");
        for f in Format::ALL {
            assert!(!export(&lied, f).is_empty(), "{f:?}");
        }
    }
}
