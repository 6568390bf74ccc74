//! What sysfs says about one device at the bottom of a chain: identity,
//! geometry, how it is attached and how its queue is set up.

use super::SysRoot;
use super::sysfs::{Blk, bracketed, read_trimmed, sys_path};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// How a device is attached, from its canonical sysfs path and driver links.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// USB Attached SCSI (driver `uas`): command queueing over USB.
    UsbUas,
    /// USB mass storage, bulk-only (driver `usb-storage`): one command at a time.
    UsbStorage,
    /// USB, bridge driver unknown.
    Usb,
    Sata,
    Sas,
    Scsi,
    Nvme,
    Virtio,
    VirtioScsi,
    Mmc,
    Loop,
    Zram,
    Ram,
    Dm,
    Md,
    Nbd,
    Virtual,
    Unknown,
}

impl Transport {
    pub fn label(self) -> &'static str {
        match self {
            Transport::UsbUas => "USB (uas)",
            Transport::UsbStorage => "USB (usb-storage)",
            Transport::Usb => "USB",
            Transport::Sata => "SATA",
            Transport::Sas => "SAS",
            Transport::Scsi => "SCSI",
            Transport::Nvme => "NVMe",
            Transport::Virtio => "virtio",
            Transport::VirtioScsi => "virtio-scsi",
            Transport::Mmc => "MMC/SD",
            Transport::Loop => "loop",
            Transport::Zram => "zram",
            Transport::Ram => "ram disk",
            Transport::Dm => "device-mapper",
            Transport::Md => "md RAID",
            Transport::Nbd => "network block device",
            Transport::Virtual => "virtual",
            Transport::Unknown => "unknown",
        }
    }
}

/// One device at the bottom of a chain, from sysfs only. `None` means sysfs
/// does not expose the value for this device.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
pub struct DeviceFacts {
    /// Kernel name (`sda`, `nvme0n1`).
    pub name: String,
    /// `major:minor`.
    pub dev: String,
    /// Canonical sysfs directory, e.g. `/sys/devices/pci0000:00/.../block/sda`.
    pub sysfs_path: String,
    /// How the device is attached.
    pub transport: Transport,
    /// Vendor.
    pub vendor: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// Firmware revision.
    pub firmware: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// World-wide identifier.
    pub wwid: Option<String>,
    /// For USB: `idVendor:idProduct manufacturer product` of the bridge.
    pub usb_bridge: Option<String>,
    /// The device's size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub size_bytes: u64,
    /// The logical block size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub logical_block_size: Option<u32>,
    /// The physical block size.
    #[schemars(extend("x-unit" = "bytes"))]
    pub physical_block_size: Option<u32>,
    /// A spinning disk (`queue/rotational`), when known.
    pub rotational: Option<bool>,
    /// Negotiated link speed: SATA `sata_spd`, USB `speed` in Mbit/s, PCIe for NVMe.
    pub link_speed: Option<String>,
    /// SCSI `device/queue_depth` (1 = no command queueing).
    #[schemars(extend("x-unit" = "count"))]
    pub queue_depth: Option<u32>,
    /// The block layer's queue size (`queue/nr_requests`).
    #[schemars(extend("x-unit" = "count"))]
    pub nr_requests: Option<u32>,
    /// The I/O scheduler in use (`queue/scheduler`).
    pub scheduler: Option<String>,
    /// `queue/write_cache` as the kernel says it (`write back`, `write through`).
    pub write_cache: Option<String>,
    /// A volatile write cache is on (`write back`): writes may sit in the device's RAM.
    pub volatile_write_cache: Option<bool>,
    /// The device takes discards (TRIM, UNMAP), when known.
    pub discard: Option<bool>,
    /// The largest discard the device takes (`queue/discard_max_bytes`).
    #[schemars(extend("x-unit" = "bytes"))]
    pub discard_max_bytes: Option<u64>,
    /// Hardware queues (`mq/*` of the disk), e.g. NVMe I/O queues.
    #[schemars(extend("x-unit" = "count"))]
    pub hw_queues: Option<u32>,
    /// The data lives in RAM (zram, ram disks, a loop device over tmpfs).
    pub memory_backed: bool,
}

/// Facts for a whole disk (or a leaf that has no disk above it).
pub(crate) fn device_facts(root: &SysRoot, b: &Blk) -> DeviceFacts {
    let sp = sys_path(root, &b.dir);
    let comps: Vec<&str> = sp.split('/').collect();
    let transport = transport(b, &comps);
    let dev_attr = |f: &str| b.attr(&format!("device/{f}"));
    let num = |f: &str| b.attr(f).and_then(|s| s.parse::<u64>().ok());
    let write_cache = b.attr("queue/write_cache");
    let discard_max_bytes = num("queue/discard_max_bytes");
    let usb_dev = usb_device_dir(b, &comps);
    DeviceFacts {
        name: b.name.clone(),
        dev: b.dev_string(),
        transport,
        vendor: dev_attr("vendor"),
        model: dev_attr("model"),
        firmware: dev_attr("rev").or_else(|| dev_attr("firmware_rev")),
        serial: dev_attr("serial")
            .or_else(|| b.attr("serial"))
            .or_else(|| vpd_serial(&b.dir.join("device/vpd_pg80")))
            .or_else(|| usb_dev.as_ref().and_then(|d| read_trimmed(&d.join("serial")))),
        wwid: dev_attr("wwid").or_else(|| b.attr("wwid")),
        usb_bridge: usb_dev.as_deref().and_then(usb_bridge),
        size_bytes: b.size_bytes(),
        logical_block_size: num("queue/logical_block_size").map(|v| v as u32),
        physical_block_size: num("queue/physical_block_size").map(|v| v as u32),
        rotational: b.attr("queue/rotational").map(|s| s == "1"),
        link_speed: link_speed(root, b, &comps, usb_dev.as_deref()),
        queue_depth: dev_attr("queue_depth").and_then(|s| s.parse().ok()),
        nr_requests: num("queue/nr_requests").map(|v| v as u32),
        scheduler: b.attr("queue/scheduler").and_then(|s| bracketed(&s)),
        volatile_write_cache: write_cache.as_deref().map(|s| s == "write back"),
        write_cache,
        discard: discard_max_bytes.map(|v| v > 0),
        discard_max_bytes,
        hw_queues: hw_queues(&b.dir.join("mq")),
        memory_backed: matches!(transport, Transport::Zram | Transport::Ram),
        sysfs_path: sp,
    }
}

/// `ataN`, `usbN`, `hostN`: a component that is `prefix` followed by digits.
fn numbered<'a>(c: &'a str, prefix: &str) -> Option<&'a str> {
    let n = c.strip_prefix(prefix)?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

fn driver_name(dir: &Path) -> Option<String> {
    let l = fs::read_link(dir.join("driver")).ok()?;
    Some(l.file_name()?.to_string_lossy().into_owned())
}

/// The directory of the path prefix up to (and including) component `i`.
fn prefix_dir(b: &Blk, comps: &[&str], i: usize) -> PathBuf {
    // `b.dir` ends with comps[1..]; climb back from the end.
    let mut d = b.dir.clone();
    for _ in i + 1..comps.len() {
        d.pop();
    }
    d
}

pub(crate) fn transport(b: &Blk, comps: &[&str]) -> Transport {
    let n = b.name.as_str();
    if b.dir.join("loop").is_dir() || (n.starts_with("loop") && comps.contains(&"virtual")) {
        return Transport::Loop;
    }
    if n.starts_with("zram") {
        return Transport::Zram;
    }
    if b.dir.join("dm").is_dir() {
        return Transport::Dm;
    }
    if b.dir.join("md").is_dir() {
        return Transport::Md;
    }
    if n.starts_with("nbd") {
        return Transport::Nbd;
    }
    if numbered(n, "ram").is_some() {
        return Transport::Ram;
    }
    if comps.iter().any(|c| numbered(c, "usb").is_some()) {
        let host = comps.iter().position(|c| numbered(c, "host").is_some());
        let proc_name = host.and_then(|i| read_trimmed(&prefix_dir(b, comps, i).join(format!("scsi_host/{}/proc_name", comps[i]))));
        let driver = host
            .filter(|&i| i > 0)
            .and_then(|i| driver_name(&prefix_dir(b, comps, i - 1)))
            .or(proc_name);
        return match driver.as_deref() {
            Some("uas") => Transport::UsbUas,
            Some("usb-storage") => Transport::UsbStorage,
            _ => Transport::Usb,
        };
    }
    if comps.iter().any(|c| numbered(c, "ata").is_some()) {
        return Transport::Sata;
    }
    if comps.contains(&"nvme") || comps.iter().any(|c| c.starts_with("nvme-subsys")) {
        return Transport::Nvme;
    }
    if comps.contains(&"mmc_host") || n.starts_with("mmcblk") {
        return Transport::Mmc;
    }
    if let Some(i) = comps.iter().position(|c| numbered(c, "host").is_some()) {
        if comps.iter().any(|c| c.starts_with("end_device-") || c.starts_with("port-")) {
            return Transport::Sas;
        }
        let proc_name = read_trimmed(&prefix_dir(b, comps, i).join(format!("scsi_host/{}/proc_name", comps[i])));
        return if proc_name.as_deref() == Some("virtio_scsi") {
            Transport::VirtioScsi
        } else {
            Transport::Scsi
        };
    }
    if comps.iter().any(|c| numbered(c, "virtio").is_some()) {
        return Transport::Virtio;
    }
    if comps.contains(&"virtual") {
        return Transport::Virtual;
    }
    Transport::Unknown
}

/// The USB device (not interface) directory above a USB disk: the component
/// before the interface (`2-1:1.0`) that precedes `hostN`.
fn usb_device_dir(b: &Blk, comps: &[&str]) -> Option<PathBuf> {
    comps.iter().position(|c| numbered(c, "usb").is_some())?;
    let host = comps.iter().position(|c| numbered(c, "host").is_some())?;
    (host >= 2).then(|| prefix_dir(b, comps, host - 2))
}

fn usb_bridge(dir: &Path) -> Option<String> {
    let r = |f: &str| read_trimmed(&dir.join(f));
    let id = format!("{}:{}", r("idVendor")?, r("idProduct")?);
    let words: Vec<String> = [Some(id), r("manufacturer"), r("product")].into_iter().flatten().collect();
    Some(words.join(" "))
}

fn link_speed(root: &SysRoot, b: &Blk, comps: &[&str], usb_dev: Option<&Path>) -> Option<String> {
    if let Some(d) = usb_dev {
        return read_trimmed(&d.join("speed")).map(|s| format!("{s} Mbit/s"));
    }
    if let Some(n) = comps.iter().find_map(|c| numbered(c, "ata")) {
        let i = comps.iter().position(|c| numbered(c, "ata").is_some())?;
        let spd = read_trimmed(&root.path(&format!("sys/class/ata_link/link{n}/sata_spd")))
            .or_else(|| read_trimmed(&prefix_dir(b, comps, i).join(format!("link{n}/ata_link/link{n}/sata_spd"))))?;
        return (spd != "<unknown>").then_some(spd);
    }
    if let Some(i) = comps.iter().position(|c| *c == "nvme") {
        let pci = prefix_dir(b, comps, i - 1);
        let speed = read_trimmed(&pci.join("current_link_speed"))?;
        let width = read_trimmed(&pci.join("current_link_width"));
        return Some(match width {
            Some(w) => format!("{speed} x{w}"),
            None => speed,
        });
    }
    None
}

/// The unit serial number from SCSI VPD page 0x80 (4-byte header, then ASCII).
fn vpd_serial(p: &Path) -> Option<String> {
    let b = fs::read(p).ok()?;
    let len = *b.get(3)? as usize;
    let s = String::from_utf8_lossy(b.get(4..(4 + len).min(b.len()))?).trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn hw_queues(mq: &Path) -> Option<u32> {
    let rd = fs::read_dir(mq).ok()?;
    let n = rd.flatten().filter(|e| e.path().is_dir()).count() as u32;
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_components() {
        assert_eq!(numbered("ata3", "ata"), Some("3"));
        assert_eq!(numbered("ata_link", "ata"), None);
        assert_eq!(numbered("usb", "usb"), None);
        assert_eq!(numbered("host10", "host"), Some("10"));
    }

    #[test]
    fn vpd_page_serial() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("vpd_pg80");
        let mut page = vec![0u8, 0x80, 0, 12];
        page.extend_from_slice(b"  WD-ABC1234");
        std::fs::write(&p, page).unwrap();
        assert_eq!(vpd_serial(&p).as_deref(), Some("WD-ABC1234"));
    }

    #[test]
    fn live_vda_is_virtio() {
        let root = SysRoot::default();
        let Some(b) = super::super::sysfs::by_name(&root, "vda") else {
            return;
        };
        let f = device_facts(&root, &b);
        assert_eq!(f.transport, Transport::Virtio);
        assert!(f.size_bytes > 0);
        assert!(f.logical_block_size.is_some());
    }
}
