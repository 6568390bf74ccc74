//! The terminal view of a [`DeviceReport`]: the chain as a tree (like
//! `lsblk`), a `Key: value` block per physical device (like `smartctl -i`),
//! then the hints. Formats only; computes nothing.

use crate::device::DeviceFacts;
use crate::device::{ChainNode, DeviceReport, NodeKind, TargetKind};
use crate::units::{fmt_bytes, fmt_mbs};
use std::fmt::Write;

/// What a target is, in words: "mount point", "whole block device".
pub(crate) fn target_kind(k: TargetKind) -> &'static str {
    match k {
        TargetKind::File => "file",
        TargetKind::Directory => "directory",
        TargetKind::MountPoint => "mount point",
        TargetKind::Disk => "whole block device",
        TargetKind::Partition => "partition",
        TargetKind::StackedDevice => "stacked block device",
        TargetKind::Other => "special file",
    }
}

fn node_kind(k: NodeKind) -> &'static str {
    match k {
        NodeKind::Disk => "disk",
        NodeKind::Partition => "part",
        NodeKind::Loop => "loop",
        NodeKind::Dm => "dm",
        NodeKind::Md => "md",
        NodeKind::Zram => "zram",
    }
}

/// The throttle limits of one device, e.g. "reads 41.9 MB/s / 500 IOPS".
fn limits(t: &crate::device::Throttle) -> String {
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
    parts.join(", ")
}

pub fn render_info(r: &DeviceReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: {}", r.path, target_kind(r.kind));
    if let Some(fs) = &r.filesystem {
        let _ = writeln!(s, "Filesystem: {} on {}, mounted at {}", fs.fstype, fs.source, fs.mount_point);
        let _ = writeln!(s, "Options:    {} ({})", fs.options, fs.super_options);
        let mut flags = Vec::new();
        if let Some(c) = &fs.compression {
            flags.push(format!("compress {c}"));
        }
        for (on, name) in [
            (fs.cow, "copy-on-write"),
            (fs.sync, "sync"),
            (fs.noatime, "noatime"),
            (fs.read_only, "read-only"),
        ] {
            if on {
                flags.push(name.to_string());
            }
        }
        if !flags.is_empty() {
            let _ = writeln!(s, "Flags:      {}", flags.join(", "));
        }
    }
    if let Some(l) = &r.layout {
        let _ = writeln!(s, "Layout:     {} {} over {} devices", l.by, l.profile, l.members);
    }
    s.push('\n');
    if r.chain.is_empty() {
        s.push_str("No block device under this target.\n");
    } else {
        for n in &r.chain {
            tree(&mut s, n, "", "");
        }
    }
    for d in &r.devices {
        s.push('\n');
        device_block(&mut s, d);
    }
    if !r.throttles.is_empty() {
        s.push_str("\nThrottle limits (blkio cgroup):\n");
        for t in &r.throttles {
            let _ = writeln!(s, "  {} ({}): {}  [cgroup {}]", t.device, t.dev, limits(t), t.cgroup);
        }
    }
    if !r.hints.is_empty() {
        s.push_str("\nHints:\n");
        for h in &r.hints {
            let _ = writeln!(s, "  - {} [{}]", h.message, h.code);
        }
    }
    s
}

/// What the tree line says after a node's size: dm name, md level, the
/// loop device's file, its holders.
fn node_extra(n: &ChainNode) -> String {
    let mut extra = String::new();
    if let Some(name) = &n.dm_name {
        let _ = write!(extra, "  {name}");
    }
    if let Some(level) = &n.md_level {
        let _ = write!(extra, "  {level}");
    }
    if let Some(l) = &n.loop_info {
        let dio = match l.dio {
            Some(true) => "direct I/O",
            Some(false) => "buffered",
            None => "direct I/O unknown",
        };
        let _ = write!(extra, "  file {} ({dio})", l.backing_file);
        if let Some(fs) = &l.backing_filesystem {
            let _ = write!(extra, " on {} {}", fs.fstype, fs.mount_point);
        }
    }
    if !n.holders.is_empty() {
        let _ = write!(extra, "  held by {}", n.holders.join(","));
    }
    extra
}

fn tree(s: &mut String, n: &ChainNode, first: &str, rest: &str) {
    let kind = node_kind(n.kind);
    let extra = node_extra(n);
    let _ = writeln!(
        s,
        "{first}{:<width$} {:>8}  {kind:<4} {:>11}{extra}",
        n.name,
        n.dev,
        fmt_bytes(n.size_bytes),
        width = 16usize.saturating_sub(first.chars().count())
    );
    let count = n.children.len();
    for (i, c) in n.children.iter().enumerate() {
        let last = i + 1 == count;
        let (f, r) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
        tree(s, c, &format!("{rest}{f}"), &format!("{rest}{r}"));
    }
}

fn device_block(s: &mut String, d: &DeviceFacts) {
    let _ = writeln!(s, "{} ({})", d.name, d.sysfs_path);
    let mut kv = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            let _ = writeln!(s, "  {:<20} {v}", format!("{k}:"));
        }
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    kv("Transport", Some(d.transport.label().to_string()));
    kv("Link speed", d.link_speed.clone());
    kv("USB bridge", d.usb_bridge.clone());
    kv("Vendor", d.vendor.clone());
    kv("Model", d.model.clone());
    kv("Firmware", d.firmware.clone());
    kv("Serial", d.serial.clone());
    kv("WWID", d.wwid.clone());
    kv("Size", Some(format!("{} ({} bytes)", fmt_bytes(d.size_bytes), d.size_bytes)));
    let sectors = match (d.logical_block_size, d.physical_block_size) {
        (Some(l), Some(p)) => Some(format!("{l} bytes logical, {p} bytes physical")),
        (Some(l), None) => Some(format!("{l} bytes logical")),
        _ => None,
    };
    kv("Sector size", sectors);
    kv("Rotational", d.rotational.map(yes_no));
    kv(
        "Queue depth",
        d.queue_depth.map(|q| {
            if q == 1 {
                "1 (no command queueing)".to_string()
            } else {
                q.to_string()
            }
        }),
    );
    kv("Hardware queues", d.hw_queues.map(|q| q.to_string()));
    kv("nr_requests", d.nr_requests.map(|q| q.to_string()));
    kv("Scheduler", d.scheduler.clone());
    let cache = d.write_cache.as_ref().map(|w| match d.volatile_write_cache {
        Some(true) => format!("{w} (volatile cache on)"),
        _ => w.clone(),
    });
    kv("Write cache", cache);
    kv(
        "Discard",
        d.discard.map(|on| {
            if on {
                format!("yes (up to {})", fmt_bytes(d.discard_max_bytes.unwrap_or(0)))
            } else {
                "no".into()
            }
        }),
    );
    kv("Memory-backed", d.memory_backed.then(|| "yes".to_string()));
}

/// Every node of the chain, depth first, with its depth (0: under the target).
fn nodes(chain: &[ChainNode]) -> Vec<(usize, &ChainNode)> {
    fn walk<'a>(n: &'a ChainNode, depth: usize, out: &mut Vec<(usize, &'a ChainNode)>) {
        out.push((depth, n));
        for c in &n.children {
            walk(c, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    for n in chain {
        walk(n, 0, &mut out);
    }
    out
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "–".into())
}

/// The Markdown view: the target, the chain as a table (depth as
/// indentation), one row per physical device, the throttles, the hints.
pub fn markdown(r: &DeviceReport) -> String {
    use super::compare::md_cell;
    let row = |cells: Vec<String>| format!("| {} |\n", cells.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | "));
    let mut s = format!("**Target** `{}`: {}  \n", r.path.replace('`', "'"), target_kind(r.kind));
    if let Some(fs) = &r.filesystem {
        let _ = writeln!(
            s,
            "**Filesystem** {} on `{}`, mounted at `{}` ({})  ",
            fs.fstype, fs.source, fs.mount_point, fs.options
        );
    }
    if let Some(l) = &r.layout {
        let _ = writeln!(s, "**Layout** {} {} over {} devices  ", l.by, l.profile, l.members);
    }
    s.push('\n');
    if r.chain.is_empty() {
        s.push_str("No block device under this target.\n");
    } else {
        s.push_str("| Device | Number | Kind | Size | Notes |\n| --- | --- | --- | ---: | --- |\n");
        for (depth, n) in nodes(&r.chain) {
            // Non-breaking spaces: Markdown keeps them, so the tree shows.
            let indent = if depth == 0 {
                String::new()
            } else {
                format!("{}└ ", "\u{a0}\u{a0}".repeat(depth - 1))
            };
            s.push_str(&row(vec![
                format!("{indent}{}", n.name),
                n.dev.clone(),
                node_kind(n.kind).into(),
                fmt_bytes(n.size_bytes),
                node_extra(n).trim().to_string(),
            ]));
        }
    }
    if !r.devices.is_empty() {
        s.push_str("\n| Physical device | Transport | Model | Size | Rotational | Queue depth | Scheduler | Write cache | Discard |\n");
        s.push_str("| --- | --- | --- | ---: | --- | ---: | --- | --- | --- |\n");
        for d in &r.devices {
            let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
            s.push_str(&row(vec![
                d.name.clone(),
                d.transport.label().into(),
                or_dash(
                    [d.vendor.clone(), d.model.clone()]
                        .into_iter()
                        .flatten()
                        .reduce(|a, b| format!("{a} {b}")),
                ),
                fmt_bytes(d.size_bytes),
                or_dash(d.rotational.map(yes_no)),
                or_dash(d.queue_depth.map(|q| q.to_string())),
                or_dash(d.scheduler.clone()),
                or_dash(d.write_cache.clone()),
                or_dash(d.discard.map(yes_no)),
            ]));
        }
    }
    if !r.throttles.is_empty() {
        s.push_str("\n**Throttle limits** (blkio cgroup)\n\n");
        for t in &r.throttles {
            s.push_str(&format!(
                "- {} ({}): {} [cgroup {}]\n",
                t.device,
                t.dev,
                md_cell(&limits(t)),
                t.cgroup
            ));
        }
    }
    if !r.hints.is_empty() {
        s.push_str("\n**Hints**\n\n");
        for h in &r.hints {
            s.push_str(&format!("- {} [{}]\n", md_cell(&h.message), h.code));
        }
    }
    s
}

/// Column names of [`csv`].
pub const CSV_HEADER: [&str; 22] = [
    "target",
    "target_kind",
    "fstype",
    "mount_point",
    "device",
    "dev",
    "transport",
    "vendor",
    "model",
    "firmware",
    "serial",
    "size_bytes",
    "logical_block_size",
    "physical_block_size",
    "rotational",
    "link_speed",
    "queue_depth",
    "nr_requests",
    "scheduler",
    "write_cache",
    "discard",
    "memory_backed",
];

/// The CSV view: one row per physical device under the target (one row with
/// empty device columns when there is none), raw values.
pub fn csv(r: &DeviceReport) -> String {
    use super::compare::csv_field;
    let opt = |v: Option<String>| v.unwrap_or_default();
    let fs = r.filesystem.as_ref();
    let head = vec![
        r.path.clone(),
        target_kind(r.kind).to_string(),
        opt(fs.map(|f| f.fstype.clone())),
        opt(fs.map(|f| f.mount_point.clone())),
    ];
    let mut rows: Vec<Vec<String>> = r
        .devices
        .iter()
        .map(|d| {
            let mut row = head.clone();
            row.extend([
                d.name.clone(),
                d.dev.clone(),
                d.transport.label().to_string(),
                opt(d.vendor.clone()),
                opt(d.model.clone()),
                opt(d.firmware.clone()),
                opt(d.serial.clone()),
                d.size_bytes.to_string(),
                opt(d.logical_block_size.map(|v| v.to_string())),
                opt(d.physical_block_size.map(|v| v.to_string())),
                opt(d.rotational.map(|v| v.to_string())),
                opt(d.link_speed.clone()),
                opt(d.queue_depth.map(|v| v.to_string())),
                opt(d.nr_requests.map(|v| v.to_string())),
                opt(d.scheduler.clone()),
                opt(d.write_cache.clone()),
                opt(d.discard.map(|v| v.to_string())),
                d.memory_backed.to_string(),
            ]);
            row
        })
        .collect();
    if rows.is_empty() {
        let mut row = head;
        row.resize(CSV_HEADER.len(), String::new());
        rows.push(row);
    }
    let mut s = CSV_HEADER.join(",") + "\r\n";
    for row in rows {
        s.push_str(&row.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        s.push_str("\r\n");
    }
    s
}
