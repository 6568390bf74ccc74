//! A run's header: who ran what, where and when; the target, its device
//! chain, the physical devices' key facts and the hints of `iolab info`.

use super::{Grid, Out, diagnostics, escape};
use crate::device::{ChainNode, DeviceReport, NodeKind};
use crate::render::info::target_kind;
use crate::store::RunSummary;
use crate::summary::Report;
use crate::summary::figures::IoMode;
use crate::target::Kind;
use crate::units::{fmt_bytes, fmt_mbs};

pub(super) fn section(o: &mut Out, r: &Report, s: Option<&RunSummary>, rid: &str) {
    o.open("run-header", &format!("{rid}-header"), 3, "Run and target");
    if r.interrupted {
        o.body.push_str(
            "<p class=\"alert interrupted\">INTERRUPTED: a signal stopped this run; only what finished before it is shown.</p>\n",
        );
    }
    if let Some(e) = &r.error {
        w!(
            o.body,
            "<p class=\"alert interrupted\">STOPPED BY AN ERROR: only what finished before it is shown. {}</p>\n",
            escape(e)
        );
    }
    if let Some(s) = s.filter(|s| !s.complete) {
        w!(
            o.body,
            "<p class=\"alert incomplete\">INCOMPLETE: stored run {} did not finish.</p>\n",
            s.id
        );
    }

    // Each fact: (name, value as HTML).
    let mut items: Vec<(&str, String)> = Vec::new();
    let text = |v: &str| escape(v);
    if let Some(id) = s.map(|s| s.id).or(r.run_id) {
        items.push(("Run id", id.to_string()));
    }
    if let Some(s) = s {
        if let Some(l) = &s.label {
            items.push(("Label", text(l)));
        }
        if !s.tags.is_empty() {
            let tags: Vec<String> = s
                .tags
                .iter()
                .map(|(k, v)| format!("<code>{}={}</code>", text(k), text(v)))
                .collect();
            items.push(("Tags", tags.join(" ")));
        }
    }
    items.push(("Started", text(&format!("{} (UTC)", r.started_at))));
    items.push((
        "Host",
        text(&format!(
            "{} · Linux {} · {} CPU{}",
            r.host.hostname,
            r.host.kernel,
            r.host.cpus,
            if r.host.cpus == 1 { "" } else { "s" }
        )),
    ));
    items.push(("iolab", text(&r.iolab_version)));
    let suite = r.settings.suite.as_ref().map(|s| format!(" · suite {s}")).unwrap_or_default();
    items.push((
        "Command",
        if r.argv.is_empty() {
            format!(
                "<code>iolab {}</code>{} (a document of iolab 0.1 or an import: the subcommand and its settings, not the whole command line)",
                text(&r.command),
                text(&suite)
            )
        } else {
            format!("<code>{}</code>", text(&shell_line(&r.argv)))
        },
    ));
    let applies = r.time().is_none() && r.app().is_none();
    if applies {
        let mut set = format!(
            "{} measured, warm-up {} s, {}; latency {}",
            r.settings.runs_text(),
            r.settings.warmup_s,
            r.settings.interval_text(),
            r.settings.latency.as_text()
        );
        if let Some(st) = &r.settings.steady_state {
            w!(
                set,
                "; steady state: rounds until the last {} agree (at most {})",
                st.window,
                st.max_rounds
            );
        }
        items.push(("Settings", text(&set)));
    }
    let t = &r.target;
    let kind = match t.kind {
        Kind::Directory if t.test_file => "directory (iolab's own test file in it, removed afterwards)",
        Kind::Directory => "directory",
        Kind::File => "file",
        Kind::BlockDevice => "block device",
    };
    items.push(("Target", format!("<code>{}</code> {}", text(&t.path), text(&format!("· {kind}")))));
    if let Some(fs) = &t.filesystem {
        items.push((
            "Filesystem",
            text(&format!(
                "{} on {}, mounted at {} ({}; {})",
                fs.fstype, fs.source, fs.mount_point, fs.options, fs.super_options
            )),
        ));
    }
    if applies {
        items.push(("Span", text(&fmt_bytes(t.span_bytes))));
        let mode = match r.io_mode() {
            IoMode::Direct => "O_DIRECT (the page cache bypassed)".to_string(),
            IoMode::Buffered => {
                "<strong class=\"loud\">BUFFERED: through the page cache, so figures may be memory speed</strong>".to_string()
            }
            IoMode::Mixed => "<strong class=\"loud\">MIXED: some tests O_DIRECT, some BUFFERED through the page cache</strong>".to_string(),
        };
        items.push(("I/O", mode));
    }
    if !t.devices.is_empty() {
        let devs: Vec<String> = t
            .devices
            .iter()
            .map(|d| {
                let mut s = format!("{} ({})", d.name, fmt_bytes(d.size_bytes));
                if let Some(b) = &d.backing_file {
                    w!(s, " on file {b}");
                }
                if d.memory {
                    s.push_str(", memory-backed");
                }
                s
            })
            .collect();
        items.push(("Block devices", text(&devs.join(", then "))));
    }
    o.body.push_str("<dl class=\"facts\">\n");
    for (k, v) in &items {
        w!(o.body, "<dt>{}</dt><dd>{v}</dd>\n", escape(k));
    }
    o.body.push_str("</dl>\n");

    if let Some(info) = &t.info {
        device(o, info);
    }
    o.close();
}

/// What `iolab info` found: chain, physical devices, throttles, hints.
fn device(o: &mut Out, d: &DeviceReport) {
    o.body.push_str("<h4>Devices under the target</h4>\n");
    let mut line = format!("{}: {}", d.path, target_kind(d.kind));
    if let Some(l) = &d.layout {
        w!(line, "; layout {} {} over {} devices", l.by, l.profile, l.members);
    }
    w!(o.body, "<p>{}</p>\n", escape(&line));
    if let Some(z) = &d.zfs {
        let mut zl = format!("ZFS pool {}", z.pool);
        if let Some(st) = &z.state {
            w!(zl, " ({st})");
        }
        w!(zl, ", dataset {}", z.dataset);
        if let Some(c) = &z.compression {
            w!(zl, ", compression {c}");
        }
        if let Some(v) = &z.version {
            w!(zl, ", OpenZFS {v}");
        }
        if let Some(m) = z.arc_max_bytes {
            w!(zl, "; ARC up to {}", fmt_bytes(m));
        }
        if z.direct_io_ignored != Some(false) {
            zl.push_str("; O_DIRECT ignored: reads can come from the ARC");
        }
        w!(o.body, "<p>{}</p>\n", escape(&zl));
    }
    if d.chain.is_empty() {
        o.body.push_str("<p>No block device under this target.</p>\n");
    } else {
        o.body.push_str("<ul class=\"chain\">\n");
        for n in &d.chain {
            chain_node(&mut o.body, n);
        }
        o.body.push_str("</ul>\n");
    }
    if !d.devices.is_empty() {
        let mut g = Grid::new(&[
            ("Physical device", false),
            ("Transport", false),
            ("Model", false),
            ("Size", true),
            ("Rotational", false),
            ("Queue depth", true),
            ("HW queues", true),
            ("Scheduler", false),
            ("Write cache", false),
            ("Discard", false),
            ("Link", false),
        ]);
        let dash = |v: Option<String>| v.unwrap_or_else(|| "–".into());
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        for f in &d.devices {
            let model = [f.vendor.clone(), f.model.clone()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
            g.row(vec![
                if f.memory_backed {
                    format!("{} (memory-backed)", f.name)
                } else {
                    f.name.clone()
                },
                f.transport.label().to_string(),
                if model.is_empty() { "–".into() } else { model },
                fmt_bytes(f.size_bytes),
                dash(f.rotational.map(yes_no)),
                dash(f.queue_depth.map(|q| q.to_string())),
                dash(f.hw_queues.map(|q| q.to_string())),
                dash(f.scheduler.clone()),
                dash(f.write_cache.as_ref().map(|w| match f.volatile_write_cache {
                    Some(true) => format!("{w} (volatile)"),
                    _ => w.clone(),
                })),
                dash(f.discard.map(yes_no)),
                dash(f.link_speed.clone().or(f.usb_bridge.clone())),
            ]);
        }
        o.body.push_str(&g.html(Some("Physical devices")));
    }
    if !d.throttles.is_empty() {
        o.body.push_str("<p>Throttle limits (cgroup):</p>\n<ul>\n");
        for t in &d.throttles {
            let mut parts = Vec::new();
            for (what, bps, iops) in [("reads", t.read_bps, t.read_iops), ("writes", t.write_bps, t.write_iops)] {
                let v: Vec<String> = [bps.map(|b| fmt_mbs(b as f64)), iops.map(|i| format!("{i} IOPS"))]
                    .into_iter()
                    .flatten()
                    .collect();
                if !v.is_empty() {
                    parts.push(format!("{what} {}", v.join(" / ")));
                }
            }
            w!(
                o.body,
                "<li>{}</li>\n",
                escape(&format!(
                    "{} ({}): {} [{} {}]",
                    t.device,
                    t.dev,
                    parts.join(", "),
                    if t.controller == "io.max" {
                        "cgroup v2 io.max in"
                    } else {
                        "blkio cgroup"
                    },
                    t.cgroup
                ))
            );
        }
        o.body.push_str("</ul>\n");
    }
    if !d.hints.is_empty() {
        o.body.push_str("<p>Hints:</p>\n");
        diagnostics(o, "hints", &d.hints.iter().collect::<Vec<_>>());
    }
}

fn chain_node(s: &mut String, n: &ChainNode) {
    let mut line = format!("{} {} {} {}", n.name, n.dev, node_kind(n.kind), fmt_bytes(n.size_bytes));
    if let Some(name) = &n.dm_name {
        w!(line, " · {name}");
    }
    if let Some(level) = &n.md_level {
        w!(line, " · {level}");
    }
    if let Some(l) = &n.loop_info {
        let dio = match l.dio {
            Some(true) => "direct I/O",
            Some(false) => "buffered",
            None => "direct I/O unknown",
        };
        w!(line, " · file {} ({dio})", l.backing_file);
        if let Some(fs) = &l.backing_filesystem {
            w!(line, " on {} {}", fs.fstype, fs.mount_point);
        }
    }
    if n.physical {
        line.push_str(" · physical");
    }
    w!(s, "<li>{}", escape(&line));
    if !n.children.is_empty() {
        s.push_str("<ul>");
        for c in &n.children {
            chain_node(s, c);
        }
        s.push_str("</ul>");
    }
    s.push_str("</li>\n");
}

fn node_kind(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Disk => "disk",
        NodeKind::Partition => "partition",
        NodeKind::Loop => "loop",
        NodeKind::Dm => "device-mapper",
        NodeKind::Md => "md",
        NodeKind::Zram => "zram",
    }
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
mod shell_tests {
    #[test]
    fn command_lines_are_quoted_as_a_shell_takes_them() {
        let argv: Vec<String> = ["iolab", "run", "/mnt/my disk", "--label", "it's", "--size", "1GiB"]
            .map(String::from)
            .into();
        assert_eq!(super::shell_line(&argv), "iolab run '/mnt/my disk' --label 'it'\\''s' --size 1GiB");
    }
}
