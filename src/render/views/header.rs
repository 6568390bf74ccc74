//! A run's header on its page: whether it stopped short, who ran what,
//! where and when, the target and its filesystem, then what `iolab info`
//! found under it ([`super::info`]'s sections). Only a page shows it: the
//! formats of lines say the target in the run's footer.

use super::info;
use crate::render::view::{Block, Cell, Detail, Fact, Heading, Line, Note, NoteTone, Section};
use crate::store::RunSummary;
use crate::summary::Report;
use crate::summary::figures::IoMode;
use crate::targets::Kind;

/// The header of run `r`, stored as `s` when it was.
pub fn section(r: &Report, s: Option<&RunSummary>) -> Section {
    let mut h = Section::new("run-header", "header", Heading::Outline("Run and target".into())).only(Detail::Page);
    let mut alerts = Vec::new();
    if r.interrupted {
        alerts.push(Note::new(
            NoteTone::Stopped,
            "INTERRUPTED: a signal stopped this run; only what finished before it is shown.",
        ));
    }
    if let Some(e) = &r.error {
        alerts.push(Note::new(
            NoteTone::Failed,
            format!("STOPPED BY AN ERROR: only what finished before it is shown. {e}"),
        ));
    }
    if let Some(s) = s.filter(|s| !s.complete) {
        alerts.push(Note::new(
            NoteTone::Stopped,
            format!("INCOMPLETE: stored run {} did not finish.", s.id),
        ));
    }
    h.push(Block::Notes(alerts));
    let mut facts = run_facts(r, s);
    facts.extend(target_facts(r));
    if let Some(d) = &r.target.info {
        facts.extend(info::storage_facts(d));
    }
    h.push(Block::Facts(facts));
    if let Some(d) = &r.target.info {
        h.sections.extend(info::device_sections(d));
    }
    h
}

/// Which run, when, on which host, by which command and settings.
fn run_facts(r: &Report, s: Option<&RunSummary>) -> Vec<Fact> {
    let mut v = Vec::new();
    if let Some(id) = s.map(|s| s.id).or(r.run_id) {
        v.push(Fact::new("Run id", Line::new().number(Cell::Count(id as u64))));
    }
    if let Some(s) = s {
        if let Some(l) = &s.label {
            v.push(Fact::new("Label", l.as_str()));
        }
        if !s.tags.is_empty() {
            let mut tags = Line::new();
            for (i, (k, val)) in s.tags.iter().enumerate() {
                tags = tags.text(if i == 0 { "" } else { " " }).code(format!("{k}={val}"));
            }
            v.push(Fact::new("Tags", tags));
        }
    }
    v.push(Fact::new("Started", format!("{} (UTC)", r.started_at)));
    let cpus = if r.host.cpus == 1 { "" } else { "s" };
    v.push(Fact::new(
        "Host",
        format!("{} · Linux {} · {} CPU{cpus}", r.host.hostname, r.host.kernel, r.host.cpus),
    ));
    v.push(Fact::new("iolab", r.iolab_version.as_str()));
    let command = if r.argv.is_empty() {
        let suite = r.settings.suite.as_ref().map(|s| format!(" · suite {s}")).unwrap_or_default();
        Line::new().code(format!("iolab {}", r.command)).text(format!(
            "{suite} (a document of iolab 0.1 or an import: the subcommand and its settings, not the whole command line)"
        ))
    } else {
        Line::new().code(shell_line(&r.argv))
    };
    v.push(Fact::new("Command", command));
    if applies(r) {
        let mut set = format!(
            "{} measured, warm-up {} s, {}; latency {}",
            r.settings.runs_text(),
            r.settings.warmup_s,
            r.settings.interval_text(),
            r.settings.latency.as_text()
        );
        if let Some(st) = &r.settings.steady_state {
            set.push_str(&format!(
                "; steady state: rounds until the last {} agree (at most {})",
                st.window, st.max_rounds
            ));
        }
        v.push(Fact::new("Settings", set));
    }
    v
}

/// Whether the run's jobs have settings, a span and an I/O mode: not a
/// timed command's or a workload's, which work through the filesystem.
fn applies(r: &Report) -> bool {
    r.time().is_none() && r.app().is_none()
}

/// The target as the run used it: what it is, its filesystem, the span
/// the jobs address, O_DIRECT or not, the block devices that served it.
fn target_facts(r: &Report) -> Vec<Fact> {
    let t = &r.target;
    let kind = match t.kind {
        Kind::Directory if t.test_file => "directory (iolab's own test file in it, removed afterwards)",
        Kind::Directory => "directory",
        Kind::File => "file",
        Kind::BlockDevice => "block device",
    };
    let mut v = vec![Fact::new("Target", Line::new().code(&t.path).text(format!(" · {kind}")))];
    if let Some(fs) = &t.filesystem {
        v.extend(info::filesystem(
            &fs.fstype,
            &fs.source,
            &fs.mount_point,
            &fs.options,
            &fs.super_options,
        ));
    }
    if applies(r) {
        v.push(Fact::new("Span", Line::new().figure(Cell::Bytes(t.span_bytes))));
        v.push(match r.io_mode() {
            IoMode::Direct => Fact::new("I/O", "O_DIRECT (the page cache bypassed)"),
            IoMode::Buffered => Fact::loud("I/O", "BUFFERED: through the page cache, so figures may be memory speed"),
            IoMode::Mixed => Fact::loud("I/O", "MIXED: some tests O_DIRECT, some BUFFERED through the page cache"),
        });
    }
    if !t.devices.is_empty() {
        let mut devs = Line::new();
        for (i, d) in t.devices.iter().enumerate() {
            let file = d.backing_file.as_ref().map(|b| format!(" on file {b}")).unwrap_or_default();
            let memory = if d.memory { ", memory-backed" } else { "" };
            devs = devs
                .text(format!("{}{} (", if i == 0 { "" } else { ", then " }, d.name))
                .figure(Cell::Bytes(d.size_bytes))
                .text(format!("){file}{memory}"));
        }
        v.push(Fact::new("Block devices", devs));
    }
    v
}

/// A command line as a shell would take it back: words with blanks or
/// shell characters in single quotes.
fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use crate::render::{Document, Exporter, Html, Markdown, Text};
    use crate::summary::Report;

    fn report(name: &str) -> Report {
        let path = format!("{}/tests/fixtures/render/{name}.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// The page's header holds `iolab info`'s chain, table of physical
    /// devices and hints (not the per-device sheets of the formats of
    /// lines); the other formats have no header.
    #[test]
    fn the_header_is_the_pages_with_the_targets_devices() {
        let r = report("time");
        let page = Html.export(Document::Run(&r, None)).unwrap();
        let header = &page[page.find("<section class=\"run-header\"").unwrap()..page.find("<section class=\"time\"").unwrap()];
        assert!(
            header.contains("<dt>Filesystem</dt><dd>ext4 on <code>/dev/vda</code>, mounted at <code>/</code></dd>"),
            "{header}"
        );
        assert!(header.contains("<section class=\"chain\" id=\"run-1-chain\">\n<h4>Devices under the target</h4>"));
        assert!(header.contains("<th scope=\"col\" class=\"t\">Physical device</th>") && !header.contains("Serial"));
        assert!(
            header.contains("<div class=\"hints\">\n<p class=\"list-title\">Hints</p>"),
            "{header}"
        );
        for other in [
            Text::default().export(Document::Run(&r, None)).unwrap(),
            Markdown(crate::base::units::BwUnit::Mb).export(Document::Run(&r, None)).unwrap(),
        ] {
            assert!(!other.contains("Run and target") && !other.contains("Physical device"), "{other}");
        }
    }

    #[test]
    fn command_lines_are_quoted_as_a_shell_takes_them() {
        let argv: Vec<String> = ["iolab", "run", "/mnt/my disk", "--label", "it's", "--size", "1GiB"]
            .map(String::from)
            .into();
        assert_eq!(super::shell_line(&argv), "iolab run '/mnt/my disk' --label 'it'\\''s' --size 1GiB");
    }
}
