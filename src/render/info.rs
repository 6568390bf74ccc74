//! The terminal view of a [`DeviceReport`]: the chain as a tree (like
//! `lsblk`), a `Key: value` block per physical device (like `smartctl -i`),
//! then the hints. Formats only; computes nothing.

use crate::device::DeviceFacts;
use crate::device::{ChainNode, DeviceReport, NodeKind, TargetKind};
use crate::units::{fmt_bytes, fmt_mbs};
use std::fmt::Write;

pub fn render_info(r: &DeviceReport) -> String {
    let mut s = String::new();
    let kind = match r.kind {
        TargetKind::File => "file",
        TargetKind::Directory => "directory",
        TargetKind::MountPoint => "mount point",
        TargetKind::Disk => "whole block device",
        TargetKind::Partition => "partition",
        TargetKind::StackedDevice => "stacked block device",
        TargetKind::Other => "special file",
    };
    let _ = writeln!(s, "{}: {kind}", r.path);
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
            let _ = writeln!(s, "  {} ({}): {}  [cgroup {}]", t.device, t.dev, parts.join(", "), t.cgroup);
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

fn tree(s: &mut String, n: &ChainNode, first: &str, rest: &str) {
    let kind = match n.kind {
        NodeKind::Disk => "disk",
        NodeKind::Partition => "part",
        NodeKind::Loop => "loop",
        NodeKind::Dm => "dm",
        NodeKind::Md => "md",
        NodeKind::Zram => "zram",
    };
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
