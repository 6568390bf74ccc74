//! `iolab info`: the target and its filesystem, the device chain under it
//! (a row per device, indented as a tree, like `lsblk`), the ZFS vdevs,
//! the physical devices (a row each in documents and on a page, and in the
//! formats of lines each device's sheet, like `smartctl -i`), the
//! throttles and weights that apply, and the hints. A run's page header
//! shows the same facts of its target ([`device_sections`], [`filesystem`],
//! [`storage_facts`]).

use crate::device::{ChainNode, DeviceFacts, DeviceReport, FsFacts, NodeKind, TargetKind, Throttle, Vdev, ZfsFuseDaemon, ZfsInfo};
use crate::render::view::{Block, Cell, Column, Detail, Fact, Heading, Item, Line, List, Section, Table, Tone, View};

/// What `iolab info` found.
pub fn view(d: &DeviceReport) -> View {
    let mut target = Section::new("target", "target", Heading::None);
    target.push(Block::Facts(target_facts(d)));
    target.push(Block::only(Detail::Raw, Block::Table(records(d))));
    let mut sections = vec![target];
    sections.extend(device_sections(d));
    View {
        title: format!("iolab info: {}", d.path),
        sections,
    }
}

/// What a target is, in words: "mount point", "whole block device".
fn target_kind(k: TargetKind) -> &'static str {
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

/// The target, its filesystem, and how its data is laid out.
fn target_facts(d: &DeviceReport) -> Vec<Fact> {
    let mut v = vec![Fact::new(
        "Target",
        Line::new().code(&d.path).text(format!(": {}", target_kind(d.kind))),
    )];
    if let Some(fs) = &d.filesystem {
        v.extend(filesystem(&fs.fstype, &fs.source, &fs.mount_point, &fs.options, &fs.super_options));
        v.extend(flags(fs));
    }
    v.extend(storage_facts(d));
    v
}

/// A filesystem's facts: what it is, on what, mounted where, with which options.
pub fn filesystem(fstype: &str, source: &str, mount_point: &str, options: &str, super_options: &str) -> Vec<Fact> {
    vec![
        Fact::new(
            "Filesystem",
            Line::new()
                .text(format!("{fstype} on "))
                .code(source)
                .text(", mounted at ")
                .code(mount_point),
        ),
        Fact::new("Options", format!("{options} ({super_options})")),
    ]
}

/// What the filesystem does to data: compression, copy-on-write, sync...
fn flags(fs: &FsFacts) -> Option<Fact> {
    let mut flags: Vec<String> = fs.compression.iter().map(|c| format!("compress {c}")).collect();
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
    (!flags.is_empty()).then(|| Fact::new("Flags", flags.join(", ")))
}

/// How the data is spread (a layout over several devices, a ZFS pool and its ARC).
pub fn storage_facts(d: &DeviceReport) -> Vec<Fact> {
    let mut v = Vec::new();
    if let Some(l) = &d.layout {
        let groups = match l.groups {
            Some(g) if g > 1 => format!(" in {g} groups"),
            _ => String::new(),
        };
        v.push(Fact::new(
            "Layout",
            format!("{} {} over {} devices{groups}", l.by, l.profile, l.members),
        ));
    }
    if let Some(z) = &d.zfs {
        v.push(Fact::new("ZFS", zfs_line(z)));
        if let Some(p) = zfs_properties(z) {
            v.push(Fact::new("Dataset", p));
        }
        v.push(Fact::new("ARC", arc_words(z)));
        if let Some(daemon) = &z.daemon {
            v.push(Fact::new("zfs-fuse", daemon_words(daemon)));
            v.push(Fact::new("Settings", daemon_settings(daemon)));
        }
    }
    v
}

/// The dataset's properties a benchmark depends on, and the pool's ashift:
/// "recordsize 128.00 KiB, compression off, sync standard, ...".
fn zfs_properties(z: &ZfsInfo) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(p) = &z.dataset_properties {
        let words = [
            p.recordsize_bytes
                .map(|r| format!("recordsize {}", crate::base::units::fmt_bytes(r))),
            p.compression.as_ref().map(|c| format!("compression {c}")),
            p.sync.as_ref().map(|c| format!("sync {c}")),
            p.primarycache.as_ref().map(|c| format!("primarycache {c}")),
            p.atime.as_ref().map(|c| format!("atime {c}")),
            p.logbias.as_ref().map(|c| format!("logbias {c}")),
            p.copies.map(|c| format!("copies {c}")),
        ];
        parts.extend(words.into_iter().flatten());
    }
    if let Some(a) = z.ashift {
        parts.push(format!("ashift {a} ({} blocks)", crate::base::units::fmt_bytes(1u64 << a.min(63))));
    }
    if let Some(d) = &z.direct {
        parts.push(format!("direct {d}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// zfs-fuse's daemon and its caches, in words.
fn daemon_words(d: &ZfsFuseDaemon) -> String {
    let mib = |b: u64| crate::base::units::fmt_bytes(b);
    let block = if d.block_cache {
        "files cached by the kernel (no disable-block-cache)"
    } else {
        "files not cached by the kernel (disable-block-cache)"
    };
    let arc = match d.max_arc_size_bytes {
        Some(m) => format!("max-arc-size {}", mib(m)),
        None => "max-arc-size: compiled-in default".into(),
    };
    let vdev = if d.vdev_cache_bytes == 0 {
        "vdev cache off".to_string()
    } else {
        format!("vdev cache {} per member", mib(d.vdev_cache_bytes))
    };
    let prefetch = if d.prefetch { "prefetch on" } else { "prefetch off" };
    format!("pid {}; {block}; {arc}; {vdev}; {prefetch}", d.pid)
}

/// Where the daemon's settings come from: its command line, then zfsrc.
fn daemon_settings(d: &ZfsFuseDaemon) -> Line {
    let mut l = if d.args.is_empty() {
        Line::new().text("no options on its command line")
    } else {
        Line::new().text("command line ").code(d.args.join(" "))
    };
    let zfsrc = d.caching_zfsrc();
    if !zfsrc.is_empty() {
        l = l.text(", after /etc/zfs/zfsrc ").code(zfsrc.join("; "));
    }
    l
}

/// "pool `tank` (DEGRADED), dataset `tank/data`, compression lz4, OpenZFS 2.1.5".
fn zfs_line(z: &ZfsInfo) -> Line {
    let mut l = Line::new().text("pool ").code(&z.pool);
    if let Some(st) = &z.state {
        l = l.text(format!(" ({st})"));
    }
    l = l.text(", dataset ").code(&z.dataset);
    if let Some(c) = &z.compression {
        l = l.text(format!(", compression {c}"));
    }
    if let Some(v) = &z.version {
        l = l.text(format!(", OpenZFS {v}"));
    }
    if z.implementation.as_deref() == Some("zfs-fuse") {
        l = l.text(", zfs-fuse");
        if let Some(v) = z.pool_version {
            l = l.text(format!(" (pool version {v})"));
        }
    }
    l
}

/// The ARC's size and maximum, and what that means for O_DIRECT.
fn arc_words(z: &ZfsInfo) -> Line {
    let direct = match z.direct_io_ignored {
        Some(true) if z.implementation.as_deref() == Some("zfs-fuse") => {
            "O_DIRECT served through the ARC (reads can come from it)".to_string()
        }
        Some(true) => "O_DIRECT ignored (reads can come from the ARC)".to_string(),
        Some(false) => format!("O_DIRECT honoured (direct={})", z.direct.as_deref().unwrap_or("standard")),
        None => "O_DIRECT: unknown (OpenZFS version unknown)".to_string(),
    };
    let b = |v: u64| Cell::Bytes(v);
    let size = match (z.arc_size_bytes, z.arc_max_bytes) {
        (Some(a), Some(m)) => Line::new().figure(b(a)).text(" of up to ").figure(b(m)),
        (Some(a), None) => Line::new().figure(b(a)),
        (None, Some(m)) => Line::new().text("up to ").figure(b(m)),
        (None, None) => return Line::new().text(direct),
    };
    size.text(format!("; {direct}"))
}

/// The parts under the target: the chain (and ZFS vdevs), the physical
/// devices, then the lists of throttles, weights and hints.
pub fn device_sections(d: &DeviceReport) -> Vec<Section> {
    let mut chain = Section::new("chain", "chain", Heading::Shown("Devices under the target".into()));
    if d.chain.is_empty() {
        chain.push(Block::paragraph(Tone::Plain, "No block device under this target."));
    } else {
        chain.push(Block::Table(chain_table(&d.chain)));
    }
    if let Some(z) = &d.zfs {
        chain.sections.push(vdevs(z));
    }
    let mut v = vec![chain];
    if !d.devices.is_empty() {
        let mut devices = Section::new("devices", "devices", Heading::Shown("Physical devices".into()));
        // A row per device for documents and the page; the terminal has
        // each device's sheet (Markdown both).
        let t = devices_table(&d.devices);
        devices.push(Block::only(Detail::Full, Block::Table(t.clone())));
        devices.push(Block::only(Detail::Page, Block::Table(t)));
        devices.sections.extend(d.devices.iter().map(|f| sheet(f).only(Detail::Lines)));
        v.push(devices);
    }
    let mut lists = Section::new("limits", "limits", Heading::None);
    lists.push(Block::List(throttles(&d.throttles)));
    lists.push(Block::List(weights(d)));
    let mut hints = List::new("hints", "Hints");
    for h in &d.hints {
        hints.item(h);
    }
    lists.push(Block::List(hints));
    v.push(lists);
    v
}

// ------------------------------------------------------------ the chain

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

/// A tree's lines as `lsblk` draws them, with no-break spaces so that
/// every format keeps the indentation: each row's prefix, depth first.
fn tree<T>(roots: &[T], children: impl Fn(&T) -> &[T] + Copy) -> Vec<(String, &T)> {
    fn walk<'a, T>(n: &'a T, first: String, rest: &str, children: impl Fn(&T) -> &[T] + Copy, out: &mut Vec<(String, &'a T)>) {
        out.push((first, n));
        let kids = children(n);
        for (i, c) in kids.iter().enumerate() {
            let (f, r) = if i + 1 == kids.len() {
                ("└─\u{a0}", "\u{a0}\u{a0}\u{a0}")
            } else {
                ("├─\u{a0}", "│\u{a0}\u{a0}")
            };
            walk(c, format!("{rest}{f}"), &format!("{rest}{r}"), children, out);
        }
    }
    let mut out = Vec::new();
    for n in roots {
        walk(n, String::new(), "", children, &mut out);
    }
    out
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

/// What a device's row says after its size: its dm name (an LVM volume
/// and its dm target), md level and members, a loop device's file, its holders.
fn node_notes(n: &ChainNode) -> String {
    let mut notes = Vec::new();
    let target = n.dm_target.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
    match (&n.lvm, &n.dm_name) {
        (Some(lv), _) => notes.push(format!("LVM {lv}{target}")),
        (None, Some(name)) => notes.push(format!("{name}{target}")),
        _ => {}
    }
    if let Some(md) = md_words(n).or_else(|| n.md_level.clone()) {
        notes.push(md);
    }
    if let Some(l) = &n.loop_info {
        let dio = match l.dio {
            Some(true) => "direct I/O",
            Some(false) => "buffered",
            None => "direct I/O unknown",
        };
        let on = l
            .backing_filesystem
            .as_ref()
            .map(|fs| format!(" on {} {}", fs.fstype, fs.mount_point))
            .unwrap_or_default();
        notes.push(format!("file {} ({dio}){on}", l.backing_file));
    }
    if !n.holders.is_empty() {
        notes.push(format!("held by {}", n.holders.join(",")));
    }
    notes.join("; ")
}

fn chain_table(chain: &[ChainNode]) -> Table {
    let mut t = Table::new(vec![
        Column::text("Device", "device"),
        Column::text("Number", "dev"),
        Column::text("Kind", "kind"),
        Column::figure("Size", "size_bytes"),
        Column::text("Notes", "notes"),
    ]);
    for (prefix, n) in tree(chain, |n: &ChainNode| &n.children) {
        t.row(vec![
            Cell::text(format!("{prefix}{}", n.name)),
            Cell::text(&n.dev),
            Cell::text(node_kind(n.kind)),
            Cell::Bytes(n.size_bytes),
            Cell::text(node_notes(n)),
        ]);
    }
    t
}

/// The pool's vdevs as `zpool status` lists them, or why they are unknown.
fn vdevs(z: &ZfsInfo) -> Section {
    let fuse = z.implementation.as_deref() == Some("zfs-fuse");
    if z.vdevs.is_empty() {
        let mut s = Section::new("zfs", "vdevs", Heading::None);
        let why = Line::new().text("ZFS vdevs unknown: ").code("zpool");
        let why = if fuse {
            why.text(" did not answer (is the zfs-fuse daemon running?)")
        } else {
            why.text(format!(" did not run (state from /proc/spl/kstat/zfs/{}/state)", z.pool))
        };
        s.push(Block::paragraph(Tone::Plain, why));
        return s;
    }
    let command = if fuse { "zpool status" } else { "zpool status -P" };
    let mut s = Section::new("zfs", "vdevs", Heading::Shown(format!("ZFS vdevs ({command})")));
    let mut t = Table::new(vec![
        Column::text("Vdev", "vdev"),
        Column::text("Class", "class"),
        Column::text("Kind", "kind"),
        Column::text("State", "state"),
        Column::text("Notes", "notes"),
    ]);
    for (prefix, v) in tree(&z.vdevs, |v: &Vdev| &v.children) {
        let name = match &v.device {
            Some(d) if *d != v.name => format!("{d} ({})", v.name),
            _ => v.name.clone(),
        };
        let notes: Vec<String> = [
            v.ashift.map(|a| format!("ashift {a}")),
            v.page_cache
                .map(|p| if p { "through the page cache" } else { "O_DIRECT" }.to_string()),
        ]
        .into_iter()
        .flatten()
        .collect();
        t.row(vec![
            Cell::text(format!("{prefix}{name}")),
            Cell::text(&v.class),
            Cell::text(&v.kind),
            Cell::text(&v.state),
            Cell::text(notes.join(", ")),
        ]);
    }
    s.push(Block::Table(t));
    s
}

// ------------------------------------------------------------ physical devices

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// A word or nothing.
fn word(v: Option<impl Into<String>>) -> Cell {
    Cell::or_empty(v, |s| Cell::text(s))
}

/// The write cache's mode, and whether the cache is volatile.
fn write_cache(f: &DeviceFacts) -> Option<String> {
    f.write_cache.as_ref().map(|w| match f.volatile_write_cache {
        Some(true) => format!("{w} (volatile)"),
        _ => w.clone(),
    })
}

/// A row per physical device: its key facts.
fn devices_table(devices: &[DeviceFacts]) -> Table {
    let mut t = Table::new(vec![
        Column::text("Physical device", "device"),
        Column::text("Transport", "transport"),
        Column::text("Model", "model"),
        Column::figure("Size", "size_bytes"),
        Column::text("Rotational", "rotational"),
        Column::figure("Queue depth", "queue_depth"),
        Column::figure("HW queues", "hw_queues"),
        Column::text("Scheduler", "scheduler"),
        Column::text("Write cache", "write_cache"),
        Column::text("Discard", "discard"),
        Column::text("Link", "link"),
    ]);
    for f in devices {
        let model = [f.vendor.clone(), f.model.clone()]
            .into_iter()
            .flatten()
            .reduce(|a, b| format!("{a} {b}"));
        let memory = if f.memory_backed { " (memory-backed)" } else { "" };
        t.row(vec![
            Cell::text(format!("{}{memory}", f.name)),
            Cell::text(f.transport.label()),
            word(model),
            Cell::Bytes(f.size_bytes),
            word(f.rotational.map(yes_no)),
            Cell::or_empty(f.queue_depth, |q| Cell::Count(q.into())),
            Cell::or_empty(f.hw_queues, |q| Cell::Count(q.into())),
            word(f.scheduler.clone()),
            word(write_cache(f)),
            word(f.discard.map(yes_no)),
            word(f.link_speed.clone().or(f.usb_bridge.clone())),
        ]);
    }
    t
}

/// One device's sheet, as `smartctl -i` gives it: every fact known.
fn sheet(f: &DeviceFacts) -> Section {
    let mut s = Section::new(
        "device",
        format!("device-{}", f.name),
        Heading::Shown(format!("{} ({})", f.name, f.sysfs_path)),
    );
    let mut v = vec![Fact::new("Transport", f.transport.label())];
    let mut add = |label: &str, value: Option<Line>| v.extend(value.map(|value| Fact::new(label, value)));
    let text = |s: &Option<String>| s.as_deref().map(Line::from);
    add("Link speed", text(&f.link_speed));
    add("USB bridge", text(&f.usb_bridge));
    add("Vendor", text(&f.vendor));
    add("Model", text(&f.model));
    add("Firmware", text(&f.firmware));
    add("Serial", text(&f.serial));
    add("WWID", text(&f.wwid));
    let exact = Line::new()
        .figure(Cell::Bytes(f.size_bytes))
        .text(format!(" ({} bytes)", f.size_bytes));
    add("Size", Some(exact));
    let sectors = match (f.logical_block_size, f.physical_block_size) {
        (Some(l), Some(p)) => Some(format!("{l} bytes logical, {p} bytes physical")),
        (Some(l), None) => Some(format!("{l} bytes logical")),
        _ => None,
    };
    add("Sector size", sectors.map(Line::from));
    add("Rotational", f.rotational.map(|r| yes_no(r).into()));
    let depth = |q: u32| {
        if q == 1 {
            "1 (no command queueing)".to_string()
        } else {
            q.to_string()
        }
    };
    add("Queue depth", f.queue_depth.map(|q| depth(q).into()));
    add("Hardware queues", f.hw_queues.map(|q| q.to_string().into()));
    add("nr_requests", f.nr_requests.map(|q| q.to_string().into()));
    add("Scheduler", text(&f.scheduler));
    add("Write cache", write_cache(f).map(Line::from));
    let discard = |on: bool| match on {
        true => Line::new()
            .text("yes (up to ")
            .figure(Cell::Bytes(f.discard_max_bytes.unwrap_or(0)))
            .text(")"),
        false => "no".into(),
    };
    add("Discard", f.discard.map(discard));
    add("Memory-backed", f.memory_backed.then(|| "yes".into()));
    s.push(Block::Facts(v));
    s
}

// ------------------------------------------------------------ limits and weights

/// A throttle's limits: "reads 41.9 MB/s / 500 IOPS, writes 10.0 MB/s".
pub(super) fn limits(t: &Throttle) -> Line {
    let mut l = Line::new();
    for (what, bps, iops) in [("reads", t.read_bps, t.read_iops), ("writes", t.write_bps, t.write_iops)] {
        if bps.is_none() && iops.is_none() {
            continue;
        }
        let lead = if l.is_empty() { format!("{what} ") } else { format!(", {what} ") };
        l = l.text(lead);
        if let Some(b) = bps {
            l = l.figure(Cell::bandwidth_coarse(b as f64));
        }
        if let Some(i) = iops {
            l = l.text(if bps.is_some() { " / " } else { "" }).number(Cell::Count(i)).text(" IOPS");
        }
    }
    l
}

/// The throttle limits that apply, per device, and where they are set.
fn throttles(throttles: &[Throttle]) -> List {
    let mut l = List::new("throttles", "Throttle limits (cgroup)");
    for t in throttles {
        let set = if t.controller == "io.max" {
            "cgroup v2 io.max in"
        } else {
            "blkio cgroup"
        };
        let whose = t.issuer.as_ref().map(|p| format!(", of {p}")).unwrap_or_default();
        let line = limits(t).text(format!(" [{set} {}{whose}]", t.cgroup));
        l.item(Item::new(line).subject(format!("{} ({})", t.device, t.dev)));
    }
    l
}

/// The `io.weight` entries, a cgroup each (deepest first): its default, its devices'.
fn weights(d: &DeviceReport) -> List {
    let mut levels: Vec<(&str, Vec<String>)> = Vec::new();
    for w in &d.io_weights {
        let item = match &w.device {
            Some(dev) => format!("{dev} {}", w.weight),
            None => format!("default {}", w.weight),
        };
        match levels.iter_mut().find(|(c, _)| *c == w.cgroup) {
            Some((_, items)) => items.push(item),
            None => levels.push((&w.cgroup, vec![item])),
        }
    }
    let mut l = List::new("weights", "I/O weights (cgroup v2 io.weight)");
    for (cgroup, items) in levels {
        l.item(Item::new(items.join(", ")).subject(cgroup));
    }
    l
}

// ------------------------------------------------------------ spreadsheets

/// A row per physical device (one with its device columns empty when there
/// is none), raw values: the target's columns, the device's, its membership.
fn records(d: &DeviceReport) -> Table {
    let keys = [
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
    let mut t = Table::new(keys.map(|k| Column::text(k, k)).into());
    t.records = true;
    let fs = d.filesystem.as_ref();
    let head = vec![
        Cell::text(&d.path),
        Cell::text(target_kind(d.kind)),
        word(fs.map(|f| f.fstype.clone())),
        word(fs.map(|f| f.mount_point.clone())),
    ];
    let flag = |b: Option<bool>| word(b.map(|b| b.to_string()));
    let count = |n: Option<u32>| Cell::or_empty(n, |n| Cell::Count(n.into()));
    for f in &d.devices {
        let mut row = head.clone();
        row.extend([
            Cell::text(&f.name),
            Cell::text(&f.dev),
            Cell::text(f.transport.label()),
            word(f.vendor.clone()),
            word(f.model.clone()),
            word(f.firmware.clone()),
            word(f.serial.clone()),
            Cell::Count(f.size_bytes),
            count(f.logical_block_size),
            count(f.physical_block_size),
            flag(f.rotational),
            word(f.link_speed.clone()),
            count(f.queue_depth),
            count(f.nr_requests),
            word(f.scheduler.clone()),
            word(f.write_cache.clone()),
            flag(f.discard),
            Cell::text(f.memory_backed.to_string()),
            word(d.layout.as_ref().map(|l| format!("{} {}", l.by, l.profile))),
        ]);
        let (member_of, state) = d.membership(&f.name).unzip();
        row.extend([word(member_of), word(state)]);
        t.row(row);
    }
    if d.devices.is_empty() {
        let mut row = head;
        row.resize(keys.len(), Cell::Empty);
        t.row(row);
    }
    t
}

#[cfg(test)]
mod tests {
    use crate::device::DeviceReport;
    use crate::render::{Csv, Document, Exporter, Markdown, Text};
    use serde_json::{Value, json};

    /// `iolab info /` as written (`tests/fixtures/render/info.json`), edited.
    fn info(edit: impl FnOnce(&mut Value)) -> DeviceReport {
        let path = format!("{}/tests/fixtures/render/info.json", env!("CARGO_MANIFEST_DIR"));
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        edit(&mut v);
        serde_json::from_value(v).unwrap()
    }

    fn node(name: &str, kind: &str, children: Vec<Value>) -> Value {
        json!({"name": name, "dev": "8:0", "kind": kind, "size_bytes": 1u64 << 30, "dm_name": null, "md_level": null,
               "loop": null, "holders": [], "physical": children.is_empty(), "children": children})
    }

    /// A volume over two partitions, each on its disk: the tree as `lsblk`
    /// draws it, kept by no-break spaces in the terminal and in Markdown.
    #[test]
    fn the_chain_is_a_tree_in_every_format() {
        let d = info(|v| {
            let a = node("sda1", "partition", vec![node("sda", "disk", vec![])]);
            let b = node("sdb1", "partition", vec![node("sdb", "disk", vec![])]);
            v["chain"] = json!([node("dm-0", "dm", vec![a, b])]);
        });
        let text = Text::default().export(Document::Device(&d)).unwrap();
        for row in [
            "│ dm-0 ",
            "│ ├─\u{a0}sda1 ",
            "│ │\u{a0}\u{a0}└─\u{a0}sda ",
            "│ └─\u{a0}sdb1 ",
            "│ \u{a0}\u{a0}\u{a0}└─\u{a0}sdb ",
        ] {
            assert!(text.lines().any(|l| l.starts_with(row)), "{row:?} in\n{text}");
        }
        let md = Markdown(crate::base::units::BwUnit::Mb).export(Document::Device(&d)).unwrap();
        assert!(md.contains("| │\u{a0}\u{a0}└─\u{a0}sda | 8:0 | disk | 1.00 GiB |  |"), "{md}");
    }

    /// Limits set by cgroup v2, IOPS only; weights a cgroup each.
    #[test]
    fn throttles_and_weights_are_lists() {
        let d = info(|v| {
            v["throttles"] = json!([{"device": "vda", "dev": "254:0", "cgroup": "/a", "read_bps": null, "write_bps": null,
                "read_iops": 500, "write_iops": null, "controller": "io.max"}]);
            v["io_weights"] = json!([
                {"cgroup": "/a/b", "device": null, "dev": null, "weight": 100},
                {"cgroup": "/a/b", "device": "vda", "dev": "254:0", "weight": 200},
                {"cgroup": "/a", "device": null, "dev": null, "weight": 50}
            ]);
        });
        let text = Text::default().export(Document::Device(&d)).unwrap();
        assert!(
            text.contains(
                "Throttle limits (cgroup):\n  - vda (254:0): reads 500 IOPS [cgroup v2 io.max in /a]\n\
                 I/O weights (cgroup v2 io.weight):\n  - /a/b: default 100, vda 200\n  - /a: default 50\nHints:\n"
            ),
            "{text}"
        );
        let md = Markdown(crate::base::units::BwUnit::Mb).export(Document::Device(&d)).unwrap();
        assert!(
            md.contains("**Throttle limits (cgroup)**\n\n- **vda (254:0)**: reads 500 IOPS [cgroup v2 io.max in /a]\n"),
            "{md}"
        );
    }

    /// No block device (tmpfs): the chain says so, and CSV still has the target's row.
    #[test]
    fn no_block_device() {
        let d = info(|v| {
            v["chain"] = json!([]);
            v["devices"] = json!([]);
        });
        let text = Text::default().export(Document::Device(&d)).unwrap();
        assert!(
            text.contains("Devices under the target\nNo block device under this target.\n"),
            "{text}"
        );
        assert!(!text.contains("Physical devices"), "{text}");
        let csv = Csv.export(Document::Device(&d)).unwrap();
        assert_eq!(csv.lines().nth(1), Some("/,mount point,ext4,/,,,,,,,,,,,,,,,,,,,,,"), "{csv}");
    }
}
