//! The terminal view of a [`DeviceReport`]: the chain as a tree (like
//! `lsblk`), a `Key: value` block per physical device (like `smartctl -i`),
//! then the hints. Formats only; computes nothing.

use crate::device::DeviceFacts;
use crate::device::{ChainNode, DeviceReport, NodeKind, TargetKind, Vdev, ZfsInfo};
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
        let _ = writeln!(s, "Layout:     {}", layout_words(l));
    }
    if let Some(z) = &r.zfs {
        let _ = writeln!(s, "ZFS:        {}", zfs_words(z));
        if let Some(arc) = arc_words(z) {
            let _ = writeln!(s, "ARC:        {arc}");
        }
    }
    s.push('\n');
    if r.chain.is_empty() {
        s.push_str("No block device under this target.\n");
    } else {
        for n in &r.chain {
            tree(&mut s, n, "", "");
        }
    }
    if let Some(z) = &r.zfs {
        if z.vdevs.is_empty() {
            let _ = writeln!(
                s,
                "\nZFS vdevs unknown: `zpool` did not run (state from /proc/spl/kstat/zfs/{}/state)",
                z.pool
            );
        } else {
            s.push_str("\nZFS vdevs (zpool status -P):\n");
            let mut class = "data";
            for v in &z.vdevs {
                if v.class != class {
                    class = &v.class;
                    let _ = writeln!(s, "  {class}");
                }
                vdev_lines(&mut s, v, if class == "data" { 2 } else { 4 });
            }
        }
    }
    for d in &r.devices {
        s.push('\n');
        device_block(&mut s, d);
    }
    if !r.throttles.is_empty() {
        s.push_str("\nThrottle limits (cgroup):\n");
        for t in &r.throttles {
            let _ = writeln!(s, "  {} ({}): {}  [{} {}]", t.device, t.dev, limits(t), controller(t), t.cgroup);
        }
    }
    if !r.io_weights.is_empty() {
        let _ = writeln!(s, "\nI/O weights (cgroup v2 io.weight): {}", weights(r));
    }
    if !r.hints.is_empty() {
        s.push_str("\nHints:\n");
        for h in &r.hints {
            let _ = writeln!(s, "  - {} [{}]", h.message, h.code);
        }
    }
    s
}

/// Where the limits of a throttle are set.
fn controller(t: &crate::device::Throttle) -> &'static str {
    if t.controller == "io.max" {
        "cgroup v2 io.max in"
    } else {
        "blkio cgroup"
    }
}

/// The `io.weight` entries: `CGROUP default N, DEVICE N; ...`, deepest first.
fn weights(r: &DeviceReport) -> String {
    let mut levels: Vec<(String, Vec<String>)> = Vec::new();
    for w in &r.io_weights {
        let item = match &w.device {
            Some(d) => format!("{d} {}", w.weight),
            None => format!("default {}", w.weight),
        };
        match levels.iter_mut().find(|(c, _)| *c == w.cgroup) {
            Some((_, items)) => items.push(item),
            None => levels.push((w.cgroup.clone(), vec![item])),
        }
    }
    levels
        .iter()
        .map(|(c, items)| format!("{c} {}", items.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// "zfs raidz2 over 6 devices", "zfs mirror over 4 devices in 2 groups".
fn layout_words(l: &crate::device::LayoutInfo) -> String {
    let groups = match l.groups {
        Some(g) if g > 1 => format!(" in {g} groups"),
        _ => String::new(),
    };
    format!("{} {} over {} devices{groups}", l.by, l.profile, l.members)
}

/// "pool tank (DEGRADED), dataset tank/data, compression lz4, OpenZFS 2.1.5".
fn zfs_words(z: &ZfsInfo) -> String {
    let mut s = format!("pool {}", z.pool);
    if let Some(st) = &z.state {
        let _ = write!(s, " ({st})");
    }
    let _ = write!(s, ", dataset {}", z.dataset);
    if let Some(c) = &z.compression {
        let _ = write!(s, ", compression {c}");
    }
    if let Some(v) = &z.version {
        let _ = write!(s, ", OpenZFS {v}");
    }
    s
}

/// The ARC's size and maximum, and what that means for O_DIRECT.
fn arc_words(z: &ZfsInfo) -> Option<String> {
    let direct = match z.direct_io_ignored {
        Some(true) => "O_DIRECT ignored (reads can come from the ARC)".to_string(),
        Some(false) => format!("O_DIRECT honoured (direct={})", z.direct.as_deref().unwrap_or("standard")),
        None => "O_DIRECT: unknown (OpenZFS version unknown)".to_string(),
    };
    let size = match (z.arc_size_bytes, z.arc_max_bytes) {
        (Some(a), Some(m)) => format!("{} of up to {}", fmt_bytes(a), fmt_bytes(m)),
        (Some(a), None) => fmt_bytes(a),
        (None, Some(m)) => format!("up to {}", fmt_bytes(m)),
        (None, None) => return Some(direct),
    };
    Some(format!("{size}; {direct}"))
}

/// A vdev as a line: a leaf by its kernel name and path, an interior vdev by its name.
fn vdev_name(v: &Vdev) -> String {
    match &v.device {
        Some(d) => format!("{d} ({})", v.name),
        None => v.name.clone(),
    }
}

fn vdev_lines(s: &mut String, v: &Vdev, indent: usize) {
    let _ = writeln!(s, "{:indent$}{}  {}", "", vdev_name(v), v.state);
    for c in &v.children {
        vdev_lines(s, c, indent + 2);
    }
}

/// An md array in words: "raid1, 1 of 2 missing: vdb1 in_sync, vdc1 faulty".
fn md_words(n: &ChainNode) -> Option<String> {
    let md = n.md.as_ref()?;
    let level = md.level.as_deref().or(n.md_level.as_deref()).unwrap_or("md");
    let size = match (md.degraded, md.raid_disks) {
        (Some(d), Some(t)) if d > 0 => format!("{d} of {t} missing"),
        (_, Some(t)) => format!("{t} disks"),
        _ => "disks unknown".to_string(),
    };
    let members: Vec<String> = md.members.iter().map(|m| format!("{} {}", m.name, m.state)).collect();
    let sync = md
        .sync_action
        .as_deref()
        .filter(|a| *a != "idle")
        .map(|a| format!(", {a}"))
        .unwrap_or_default();
    Some(format!("{level}, {size}{sync}: {}", members.join(", ")))
}

/// What the tree line says after a node's size: dm name (an LVM volume and
/// its dm target), md level and members, the loop device's file, its holders.
fn node_extra(n: &ChainNode) -> String {
    let mut extra = String::new();
    let target = n.dm_target.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
    match (&n.lvm, &n.dm_name) {
        (Some(lv), _) => {
            let _ = write!(extra, "  LVM {lv}{target}");
        }
        (None, Some(name)) => {
            let _ = write!(extra, "  {name}{target}");
        }
        _ => {}
    }
    if let Some(md) = md_words(n) {
        let _ = write!(extra, "  {md}");
    } else if let Some(level) = &n.md_level {
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
    use super::markdown::md_cell;
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
        let _ = writeln!(s, "**Layout** {}  ", layout_words(l));
    }
    if let Some(z) = &r.zfs {
        let mut line = format!("**ZFS** pool `{}`", z.pool);
        if let Some(st) = &z.state {
            let _ = write!(line, " ({st})");
        }
        let _ = write!(line, ", dataset `{}`", z.dataset.replace('`', "'"));
        if let Some(c) = &z.compression {
            let _ = write!(line, ", compression {c}");
        }
        if let Some(v) = &z.version {
            let _ = write!(line, ", OpenZFS {v}");
        }
        if let Some(arc) = arc_words(z) {
            let _ = write!(line, "; ARC {arc}");
        }
        let _ = writeln!(s, "{}  ", md_cell(&line));
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
    if let Some(z) = r.zfs.as_ref().filter(|z| !z.vdevs.is_empty()) {
        s.push_str("\n| Vdev | Class | Kind | State |\n| --- | --- | --- | --- |\n");
        fn rows(v: &Vdev, depth: usize, out: &mut Vec<Vec<String>>) {
            let indent = if depth == 0 {
                String::new()
            } else {
                format!("{}└ ", "\u{a0}\u{a0}".repeat(depth - 1))
            };
            out.push(vec![
                format!("{indent}{}", vdev_name(v)),
                v.class.clone(),
                v.kind.clone(),
                v.state.clone(),
            ]);
            for c in &v.children {
                rows(c, depth + 1, out);
            }
        }
        let mut out = Vec::new();
        for v in &z.vdevs {
            rows(v, 0, &mut out);
        }
        for cells in out {
            s.push_str(&row(cells));
        }
    }
    if !r.throttles.is_empty() {
        s.push_str("\n**Throttle limits** (cgroup)\n\n");
        for t in &r.throttles {
            s.push_str(&format!(
                "- {} ({}): {} [{} {}]\n",
                t.device,
                t.dev,
                md_cell(&limits(t)),
                controller(t),
                t.cgroup
            ));
        }
    }
    if !r.io_weights.is_empty() {
        s.push_str(&format!("\n**I/O weights** (cgroup v2 io.weight): {}\n", md_cell(&weights(r))));
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
pub const CSV_HEADER: [&str; 25] = [
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
    "layout",
    "member_of",
    "member_state",
];

/// For each physical device: the names on its way up the chain (itself,
/// its partition, the md array...), found by walking the chain.
fn paths(chain: &[ChainNode]) -> Vec<(String, Vec<&ChainNode>)> {
    fn walk<'a>(n: &'a ChainNode, above: &mut Vec<&'a ChainNode>, out: &mut Vec<(String, Vec<&'a ChainNode>)>) {
        above.push(n);
        if n.physical {
            out.push((n.name.clone(), above.clone()));
        }
        for c in &n.children {
            walk(c, above, out);
        }
        above.pop();
    }
    let mut out = Vec::new();
    for n in chain {
        walk(n, &mut Vec::new(), &mut out);
    }
    out
}

/// What a physical device is a member of, and its state there: a ZFS vdev
/// (`tank raidz2-0`, `tank logs`) or an md array (`md0`).
fn membership(r: &DeviceReport, device: &str) -> (String, String) {
    for (name, path) in paths(&r.chain) {
        if name != device {
            continue;
        }
        let on_path = |n: &str| path.iter().any(|p| p.name == n);
        if let Some(z) = &r.zfs {
            for top in &z.vdevs {
                let mut leaves = Vec::new();
                fn collect<'a>(v: &'a Vdev, out: &mut Vec<&'a Vdev>) {
                    if v.children.is_empty() {
                        out.push(v);
                    }
                    for c in &v.children {
                        collect(c, out);
                    }
                }
                collect(top, &mut leaves);
                if let Some(leaf) = leaves.iter().find(|l| l.device.as_deref().is_some_and(on_path)) {
                    let group = if top.children.is_empty() {
                        if top.class == "data" {
                            z.pool.clone()
                        } else {
                            format!("{} {}", z.pool, top.class)
                        }
                    } else {
                        format!("{} {}", z.pool, top.name)
                    };
                    return (group, leaf.state.clone());
                }
            }
        }
        for n in &path {
            if let Some(m) = n.md.as_ref().and_then(|md| md.members.iter().find(|m| on_path(&m.name))) {
                return (n.name.clone(), m.state.clone());
            }
        }
    }
    (String::new(), String::new())
}

/// The CSV view: one row per physical device under the target (one row with
/// empty device columns when there is none), raw values.
pub fn csv(r: &DeviceReport) -> String {
    use super::csv::csv_field;
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
            let (member_of, state) = membership(r, &d.name);
            row.extend([opt(r.layout.as_ref().map(|l| format!("{} {}", l.by, l.profile))), member_of, state]);
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
