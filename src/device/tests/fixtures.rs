//! Fixture sysfs/procfs trees for tests: a tempdir used as [`SysRoot`] with
//! the directories, attribute files and relative symlinks real sysfs has.

use crate::device::SysRoot;
use crate::device::zfs::{Answer, Commands};
use std::fs;
use std::path::{Component, Path, PathBuf};

pub(crate) struct Fx {
    dir: tempfile::TempDir,
}

impl Fx {
    pub fn new() -> Fx {
        Fx {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    pub fn root(&self) -> SysRoot {
        SysRoot(self.dir.path().to_path_buf())
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel.trim_start_matches('/'))
    }

    /// Write a file (creating its directories); sysfs attributes end in a newline.
    pub fn file(&self, rel: &str, content: &str) {
        self.bytes(rel, content.as_bytes());
    }

    pub fn bytes(&self, rel: &str, content: &[u8]) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }

    pub fn mkdir(&self, rel: &str) {
        fs::create_dir_all(self.path(rel)).unwrap();
    }

    /// A relative symlink at `link` to `target` (both relative to the root),
    /// shaped like sysfs's own (`../../devices/...`).
    pub fn link(&self, link: &str, target: &str) {
        let lp = Path::new(link.trim_start_matches('/'));
        let up = lp
            .parent()
            .map_or(0, |p| p.components().filter(|c| matches!(c, Component::Normal(_))).count());
        let rel: PathBuf = std::iter::repeat_n(Path::new(".."), up)
            .collect::<PathBuf>()
            .join(target.trim_start_matches('/'));
        let abs = self.path(link);
        fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(rel, abs).unwrap();
    }

    /// A symlink at `link` (relative to the root) to the absolute path
    /// `target`, as `/proc/PID/fd/N` links are (read, never followed).
    pub fn symlink_abs(&self, link: &str, target: &str) {
        let abs = self.path(link);
        fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, abs).unwrap();
    }

    /// Append a line to `/proc/self/mountinfo`.
    pub fn mount(&self, line: &str) {
        let p = self.path("proc/self/mountinfo");
        let mut text = fs::read_to_string(&p).unwrap_or_default();
        text.push_str(line);
        text.push('\n');
        self.file("proc/self/mountinfo", &text);
    }

    /// A block device directory at `devpath` (relative to the root, e.g.
    /// `sys/devices/.../block/sda`) with `dev`, `size`, `holders/`, `slaves/`
    /// and the `/sys/dev/block`, `/sys/class/block` links.
    fn blockdev(&self, devpath: &str, dev: (u32, u32), sectors: u64) -> String {
        let name = devpath.rsplit('/').next().unwrap().to_string();
        self.file(&format!("{devpath}/dev"), &format!("{}:{}\n", dev.0, dev.1));
        self.file(&format!("{devpath}/size"), &format!("{sectors}\n"));
        self.mkdir(&format!("{devpath}/holders"));
        self.mkdir(&format!("{devpath}/slaves"));
        self.link(&format!("sys/dev/block/{}:{}", dev.0, dev.1), devpath);
        self.link(&format!("sys/class/block/{name}"), devpath);
        name
    }

    /// A whole disk: the block device, its `queue/` attributes, `/sys/block/NAME`
    /// and, when it sits under a device (`.../block/NAME` or `nvme0/nvme0n1`),
    /// the `device` link to it.
    pub fn disk(&self, devpath: &str, dev: (u32, u32), sectors: u64, queue: &[(&str, &str)]) {
        let name = self.blockdev(devpath, dev, sectors);
        self.link(&format!("sys/block/{name}"), devpath);
        for (k, v) in queue {
            self.file(&format!("{devpath}/queue/{k}"), &format!("{v}\n"));
        }
        if !devpath.contains("/virtual/") {
            let parent = Path::new(devpath).parent().unwrap();
            let parent = if parent.ends_with("block") {
                parent.parent().unwrap()
            } else {
                parent
            };
            self.link(&format!("{devpath}/device"), &parent.to_string_lossy());
        }
    }

    /// A partition of the disk at `disk_devpath`.
    pub fn part(&self, disk_devpath: &str, name: &str, dev: (u32, u32), number: u32, sectors: u64) -> String {
        let p = format!("{disk_devpath}/{name}");
        self.blockdev(&p, dev, sectors);
        self.file(&format!("{p}/partition"), &format!("{number}\n"));
        p
    }

    /// Link `from`'s `holders/` to `to` and `to`'s `slaves/` to `from`.
    pub fn stack(&self, from: &str, to: &str) {
        let (fname, tname) = (from.rsplit('/').next().unwrap(), to.rsplit('/').next().unwrap());
        self.link(&format!("{from}/holders/{tname}"), to);
        self.link(&format!("{to}/slaves/{fname}"), from);
    }

    /// A driver directory and the device's `driver` link to it.
    pub fn driver(&self, device: &str, bus: &str, driver: &str) {
        let d = format!("sys/bus/{bus}/drivers/{driver}");
        self.mkdir(&d);
        self.link(&format!("{device}/driver"), &d);
    }
}

pub(crate) const USB_UAS: &str = "sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb";
pub(crate) const USB_STICK: &str = "sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/host7/target7:0:0/7:0:0:0/block/sdc";
pub(crate) const NVME: &str = "sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/nvme0n1";
pub(crate) const DM: &str = "sys/devices/virtual/block/dm-0";
pub(crate) const BTRFS_FSID: &str = "0f8b3a52-6c3e-4d1b-9d3a-1f2e3d4c5b6a";

/// A SCSI disk behind an ATA port `ata{port}` (SATA link speed, NCQ depth 32).
#[allow(clippy::too_many_arguments)]
fn sata(fx: &Fx, port: u32, host: u32, name: &str, dev: (u32, u32), model: &str, serial: &str, rotational: &str) -> String {
    let pci = "sys/devices/pci0000:00/0000:00:17.0";
    let sdev = format!("{pci}/ata{port}/host{host}/target{host}:0:0/{host}:0:0:0");
    let devpath = format!("{sdev}/block/{name}");
    let q = [
        ("rotational", rotational),
        ("logical_block_size", "512"),
        ("physical_block_size", "4096"),
        ("scheduler", "none [mq-deadline] kyber bfq"),
        ("nr_requests", "64"),
        ("write_cache", "write back"),
        ("discard_max_bytes", if rotational == "1" { "0" } else { "2147450880" }),
    ];
    fx.disk(&devpath, dev, 7814037168, &q);
    fx.file(&format!("{sdev}/vendor"), "ATA     \n");
    fx.file(&format!("{sdev}/model"), &format!("{model:<16}\n"));
    fx.file(&format!("{sdev}/rev"), "0A82\n");
    fx.file(&format!("{sdev}/queue_depth"), "32\n");
    fx.file(&format!("{sdev}/wwid"), &format!("t10.ATA     {model:<40}{serial}\n"));
    let mut page = vec![0u8, 0x80, 0, 20];
    page.extend_from_slice(format!("{serial:>20}").as_bytes());
    fx.bytes(&format!("{sdev}/vpd_pg80"), &page);
    fx.driver(&sdev, "scsi", "sd");
    let link = format!("{pci}/ata{port}/link{port}/ata_link/link{port}");
    fx.file(&format!("{link}/sata_spd"), "6.0 Gbps\n");
    fx.link(&format!("sys/class/ata_link/link{port}"), &link);
    devpath
}

/// A USB disk: the USB device (`bus-port`), its interface bound to `driver`, the SCSI host.
#[allow(clippy::too_many_arguments)]
fn usb(fx: &Fx, devpath: &str, dev: (u32, u32), driver: &str, speed: &str, qd: &str, rotational: &str, ids: (&str, &str, &str, &str)) {
    let sdev = devpath.rsplit_once("/block/").unwrap().0;
    let host = Path::new(sdev).parent().unwrap().parent().unwrap();
    let iface = host.parent().unwrap();
    let usbdev = iface.parent().unwrap();
    let (host, iface, usbdev) = (host.to_string_lossy(), iface.to_string_lossy(), usbdev.to_string_lossy());
    let q = [
        ("rotational", rotational),
        ("logical_block_size", "512"),
        ("physical_block_size", "512"),
        ("scheduler", "none [mq-deadline]"),
        ("nr_requests", "60"),
        ("write_cache", "write through"),
        ("discard_max_bytes", "0"),
    ];
    fx.disk(devpath, dev, 61071360, &q);
    fx.file(&format!("{sdev}/vendor"), "Generic \n");
    fx.file(&format!("{sdev}/model"), &format!("{}\n", ids.3));
    fx.file(&format!("{sdev}/rev"), "1.00\n");
    fx.file(&format!("{sdev}/queue_depth"), &format!("{qd}\n"));
    fx.driver(sdev, "scsi", "sd");
    fx.driver(&iface, "usb", driver);
    let hn = host.rsplit('/').next().unwrap();
    fx.file(&format!("{host}/scsi_host/{hn}/proc_name"), &format!("{driver}\n"));
    fx.file(&format!("{usbdev}/speed"), &format!("{speed}\n"));
    fx.file(&format!("{usbdev}/idVendor"), &format!("{}\n", ids.0));
    fx.file(&format!("{usbdev}/idProduct"), &format!("{}\n", ids.1));
    fx.file(&format!("{usbdev}/manufacturer"), &format!("{}\n", ids.2));
    fx.file(&format!("{usbdev}/product"), &format!("{}\n", ids.3));
    fx.file(&format!("{usbdev}/serial"), "000000000000A1B2\n");
}

/// One machine with every fixture device:
/// - `sda` SATA HDD (NCQ 32, 6.0 Gbps), `sda1` ext4 on `/data`;
/// - `sdb` USB/uas SSD, `sdb1` under `dm-0` (`vg-data`), ext4 on `/media/crypt`;
/// - `sdc` USB/usb-storage stick (queue depth 1), `sdc1` vfat on `/media/stick`, read-throttled by the blkio cgroup;
/// - `nvme0n1` (8 queues), `nvme0n1p1` ext4 on `/`;
/// - `loop0` over `/data/images/disk.img` (dio 0), ext4 on `/mnt/img`; `loop1` over `/dev/shm/ram.img` (dio 1);
/// - `zram0`;
/// - btrfs raid1 over `sdd`, `sde`, `sdf` (SATA SSDs) on `/pool`, `compress=zstd:3`.
pub(crate) fn machine() -> Fx {
    let fx = Fx::new();
    let sda = sata(&fx, 3, 2, "sda", (8, 0), "WDC WD40EFRX-68N32N0", "WD-WCC7K1234567", "1");
    fx.part(&sda, "sda1", (8, 1), 1, 7814035120);

    usb(
        &fx,
        USB_UAS,
        (8, 16),
        "uas",
        "5000",
        "30",
        "0",
        ("174c", "55aa", "ASMedia", "Portable SSD"),
    );
    let sdb1 = fx.part(USB_UAS, "sdb1", (8, 17), 1, 61069312);
    fx.disk(DM, (253, 0), 61036544, &[("rotational", "0"), ("write_cache", "write through")]);
    fx.file(&format!("{DM}/dm/name"), "vg-data\n");
    fx.stack(&sdb1, DM);

    usb(
        &fx,
        USB_STICK,
        (8, 32),
        "usb-storage",
        "480",
        "1",
        "1",
        ("0781", "5567", "SanDisk", "Cruzer Blade"),
    );
    fx.part(USB_STICK, "sdc1", (8, 33), 1, 61069312);

    let nq = [
        ("rotational", "0"),
        ("logical_block_size", "512"),
        ("physical_block_size", "512"),
        ("scheduler", "[none] mq-deadline kyber bfq"),
        ("nr_requests", "1023"),
        ("write_cache", "write back"),
        ("discard_max_bytes", "2199023255040"),
    ];
    fx.disk(NVME, (259, 0), 1953525168, &nq);
    for i in 0..8 {
        fx.file(&format!("{NVME}/mq/{i}/nr_tags"), "1023\n");
    }
    fx.file(&format!("{NVME}/wwid"), "eui.002538b21102a5c1\n");
    let ctrl = "sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0";
    fx.file(&format!("{ctrl}/model"), "Samsung SSD 980 PRO 1TB                 \n");
    fx.file(&format!("{ctrl}/serial"), "S5GXNF0R123456      \n");
    fx.file(&format!("{ctrl}/firmware_rev"), "5B2QGXA7\n");
    fx.file(
        "sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/current_link_speed",
        "16.0 GT/s PCIe\n",
    );
    fx.file("sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/current_link_width", "4\n");
    fx.part(NVME, "nvme0n1p1", (259, 1), 1, 1953523120);

    let lq = [
        ("rotational", "0"),
        ("scheduler", "[none] mq-deadline"),
        ("write_cache", "write back"),
        ("nr_requests", "128"),
    ];
    for (n, file, dio) in [(0u32, "/data/images/disk.img", "0"), (1, "/dev/shm/ram.img", "1")] {
        let p = format!("sys/devices/virtual/block/loop{n}");
        fx.disk(&p, (7, n), 2097152, &lq);
        fx.file(&format!("{p}/loop/backing_file"), &format!("{file}\n"));
        fx.file(&format!("{p}/loop/dio"), &format!("{dio}\n"));
        fx.file(&format!("{p}/loop/offset"), "0\n");
    }

    let zq = [
        ("rotational", "0"),
        ("write_cache", "write through"),
        ("logical_block_size", "4096"),
        ("physical_block_size", "4096"),
    ];
    fx.disk("sys/devices/virtual/block/zram0", (251, 0), 8388608, &zq);

    for (i, name) in ["sdd", "sde", "sdf"].iter().enumerate() {
        let p = sata(
            &fx,
            4 + i as u32,
            3 + i as u32,
            name,
            (8, 48 + 16 * i as u32),
            "Samsung SSD 870 EVO 4TB",
            &format!("S6BCNS0T10000{i}"),
            "0",
        );
        fx.link(&format!("sys/fs/btrfs/{BTRFS_FSID}/devices/{name}"), &p);
    }
    fx.mkdir("sys/fs/btrfs/features");
    // Data chunks: mostly raid1, a leftover single chunk from mkfs.
    fx.file(
        &format!("sys/fs/btrfs/{BTRFS_FSID}/allocation/data/raid1/total_bytes"),
        "3221225472\n",
    );
    fx.file(
        &format!("sys/fs/btrfs/{BTRFS_FSID}/allocation/data/single/total_bytes"),
        "8388608\n",
    );

    for l in [
        "27 1 259:1 / / rw,relatime - ext4 /dev/nvme0n1p1 rw,errors=remount-ro",
        "22 27 0:21 / /proc rw,relatime - proc proc rw",
        "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw",
        "25 27 0:23 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size=8G",
        "38 23 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio",
        "40 27 8:1 / /data rw,noatime - ext4 /dev/sda1 rw",
        "41 27 253:0 / /media/crypt rw,relatime - ext4 /dev/mapper/vg-data rw",
        "42 27 8:33 / /media/stick rw,relatime - vfat /dev/sdc1 rw,fmask=0022",
        "43 27 7:0 / /mnt/img rw,relatime - ext4 /dev/loop0 rw",
        "44 27 0:45 / /pool rw,noatime - btrfs /dev/sdd rw,compress=zstd:3,space_cache=v2,subvolid=5,subvol=/",
    ] {
        fx.mount(l);
    }
    fx.file("proc/self/cgroup", "9:name=systemd:/\n7:blkio:/lab\n4:memory:/lab\n0::/\n");
    fx.file("sys/fs/cgroup/blkio/blkio.throttle.read_bps_device", "");
    fx.file("sys/fs/cgroup/blkio/lab/blkio.throttle.read_bps_device", "8:32 30000000\n");
    fx.file("sys/fs/cgroup/blkio/lab/blkio.throttle.write_iops_device", "8:32 200\n");
    fx
}

/// Captured outputs of commands, from files under `tests/fixtures/device/`
/// (each starts with a comment citing the format's source, ended by a line
/// of dashes, which is stripped).
pub(crate) struct Captured(Vec<(String, String)>, Vec<(String, Answer)>);

impl Captured {
    pub fn new() -> Captured {
        Captured(Vec::new(), Vec::new())
    }

    /// `cmdline` (program and arguments, space-separated) prints the fixture file `name`.
    pub fn file(mut self, cmdline: &str, name: &str) -> Captured {
        let path = format!("{}/tests/fixtures/device/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let body = match text.find("\n# ---") {
            Some(i) => text[i + 1..].split_once('\n').map_or("", |(_, rest)| rest).to_string(),
            None => text,
        };
        self.0.push((cmdline.to_string(), body));
        self
    }

    /// `cmdline` answers `answer` (fails, or does not answer in time).
    pub fn answer(mut self, cmdline: &str, answer: Answer) -> Captured {
        self.1.push((cmdline.to_string(), answer));
        self
    }
}

impl Commands for Captured {
    fn run(&self, program: &str, args: &[&str]) -> Option<String> {
        self.ask(program, args).output()
    }

    fn ask(&self, program: &str, args: &[&str]) -> Answer {
        let line = std::iter::once(program).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
        if let Some((_, a)) = self.1.iter().find(|(c, _)| *c == line) {
            return a.clone();
        }
        self.0
            .iter()
            .find(|(c, _)| *c == line)
            .map_or(Answer::Missing, |(_, out)| Answer::Output(out.clone()))
    }
}

/// The commands of the stacks in [`stacks`], as captured in `tests/fixtures/device/`.
pub(crate) fn stack_commands() -> Captured {
    Captured::new()
        .file("zpool status -P tank", "zpool-status-P-tank-raidz2-degraded.txt")
        .file("zpool status -P fast", "zpool-status-P-fast-mirrors.txt")
        .file(
            "zfs get -H -p -o property,value recordsize,compression,sync,primarycache,atime,logbias,copies tank/data",
            "zfs-get-props-tank-data.txt",
        )
        .file("zfs get -H -p -o value compression tank/data", "zfs-get-compression-tank-data.txt")
        .file(
            "zdb -l /dev/disk/by-id/ata-WDC_WD40EFZX-68AWUN0_WD-CA0G1-part1",
            "zdb-l-tank-sdg1.txt",
        )
        .file("zfs get -H -p -o value compression fast", "zfs-get-compression-fast.txt")
        .file("dmsetup table vg0-lv--data", "dmsetup-table-vg0-lv--data.txt")
        .file("dmsetup table vg1-home", "dmsetup-table-vg1-home.txt")
}

/// A virtio disk `vdX` on PCI slot `slot` (as QEMU/KVM guests have them).
fn virtio(fx: &Fx, slot: u32, name: &str, dev: (u32, u32), sectors: u64) -> String {
    let p = format!("sys/devices/pci0000:00/0000:00:{slot:02x}.0/virtio{slot}/block/{name}");
    let q = [
        ("rotational", "1"),
        ("logical_block_size", "512"),
        ("physical_block_size", "512"),
        ("scheduler", "[none] mq-deadline"),
        ("write_cache", "write back"),
    ];
    fx.disk(&p, dev, sectors, &q);
    p
}

/// A `/dev` node under the root for `by_source` (a plain file: only its
/// name matters to a fixture) and, when `by_id` is given, the
/// `/dev/disk/by-id` link to it.
fn dev_node(fx: &Fx, name: &str, by_id: Option<&str>) {
    fx.file(&format!("dev/{name}"), "");
    if let Some(id) = by_id {
        fx.link(&format!("dev/disk/by-id/{id}"), &format!("dev/{name}"));
    }
}

/// The fixture [`machine`] with the stacks this kernel cannot build:
/// - ZFS pool `tank`: raidz2 over `sdg1`..`sdl1` (SATA HDDs, `sdl1`
///   FAULTED: the pool is DEGRADED), a log on `nvme0n1p2`, a cache on
///   `nvme0n1p3`, a spare `sdm1`; dataset `tank/data` (lz4) on `/tank/data`;
///   OpenZFS 2.1.5, ARC 3.0 GiB of 7.7 GiB;
/// - ZFS pool `fast`: two mirrors over `vdf1`+`vdg1`, `vdh1`+`vdi1`, on `/fast`;
/// - md `md0`: raid1 over `vdb1` and `vdc1` (`vdc1` faulty: degraded), an
///   LVM PV for `vg1`, whose linear LV `home` (`dm-2`) holds ext4 on `/home`;
/// - LVM `vg0/lv-data` (`dm-1`, dm name `vg0-lv--data`) striped over the
///   whole disks `vdd` and `vde`, xfs on `/srv/lvm`.
///
/// sysfs layouts from the kernel's documentation: md's
/// Documentation/admin-guide/md.rst (`md/level`, `md/raid_disks`,
/// `md/degraded`, `md/array_state`, `md/sync_action`, `md/dev-XXX/{state,slot}`),
/// device-mapper's Documentation/ABI/testing/sysfs-block-dm (`dm/name`,
/// `dm/uuid`, `dm/suspended`), `holders/` and `slaves/` links
/// (Documentation/ABI/stable/sysfs-block); LVM's dm UUIDs are `LVM-` then the
/// VG's and the LV's 32-character UUIDs (LVM2 `UUID_PREFIX`). The kstat files
/// follow OpenZFS's formats (see `device/zfs.rs`).
pub(crate) fn stacks() -> Fx {
    let fx = machine();
    // ---- tank: six SATA HDDs (partition 1 of each whole disk), log and cache on the NVMe.
    for (i, (name, serial)) in [
        ("sdg", "G1"),
        ("sdh", "H2"),
        ("sdi", "I3"),
        ("sdj", "J4"),
        ("sdk", "K5"),
        ("sdl", "L6"),
        ("sdm", "M7"),
    ]
    .iter()
    .enumerate()
    {
        let major_minor = (8, 96 + 16 * i as u32);
        let p = sata(
            &fx,
            7 + i as u32,
            8 + i as u32,
            name,
            major_minor,
            "WDC WD40EFZX-68AWUN0",
            &format!("WD-CA0{serial}"),
            "1",
        );
        let part = format!("{name}1");
        fx.part(&p, &part, (8, major_minor.1 + 1), 1, 7814035120);
        dev_node(&fx, &part, Some(&format!("ata-WDC_WD40EFZX-68AWUN0_WD-CA0{serial}-part1")));
    }
    for (n, minor) in [(2u32, 2u32), (3, 3)] {
        let part = format!("nvme0n1p{n}");
        fx.part(NVME, &part, (259, minor), n, 33554432);
        dev_node(&fx, &part, Some(&format!("nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456-part{n}")));
    }
    fx.mount("50 27 0:52 / /tank/data rw,noatime shared:30 - zfs tank/data rw,xattr,posixacl,casesensitive");
    fx.file("proc/spl/kstat/zfs/tank/state", "DEGRADED\n");
    fx.file(
        "proc/spl/kstat/zfs/arcstats",
        "13 1 0x01 147 39984 2934061855 1045993874963\n\
         name                            type data\n\
         hits                            4    91255270\n\
         misses                          4    1812904\n\
         c                               4    4116611072\n\
         c_min                           4    257288192\n\
         c_max                           4    8233222144\n\
         size                            4    3221225472\n",
    );
    fx.file("sys/module/zfs/version", "2.1.5-1ubuntu6~22.04.1\n");
    // ---- fast: two mirrors over four virtio disks.
    for (i, name) in ["vdf", "vdg", "vdh", "vdi"].iter().enumerate() {
        let minor = 80 + 16 * i as u32;
        let p = virtio(&fx, 10 + i as u32, name, (254, minor), 1048576000);
        let part = format!("{name}1");
        fx.part(&p, &part, (254, minor + 1), 1, 1048571904);
        dev_node(&fx, &part, None);
    }
    fx.mount("51 27 0:53 / /fast rw,relatime shared:31 - zfs fast rw,xattr,noacl");
    fx.file("proc/spl/kstat/zfs/fast/state", "ONLINE\n");
    // ---- md0 raid1 over vdb1 + vdc1 (vdc1 failed), the PV of vg1; vg1/home on it.
    let vdb = virtio(&fx, 6, "vdb", (254, 16), 41943040);
    let vdc = virtio(&fx, 7, "vdc", (254, 32), 41943040);
    let vdb1 = fx.part(&vdb, "vdb1", (254, 17), 1, 41940992);
    let vdc1 = fx.part(&vdc, "vdc1", (254, 33), 1, 41940992);
    let md = "sys/devices/virtual/block/md0";
    fx.disk(md, (9, 0), 41938944, &[("rotational", "1")]);
    for (k, v) in [
        ("level", "raid1"),
        ("raid_disks", "2"),
        ("degraded", "1"),
        ("array_state", "clean"),
        ("sync_action", "idle"),
    ] {
        fx.file(&format!("{md}/md/{k}"), &format!("{v}\n"));
    }
    for (part, path, state, slot) in [("vdb1", &vdb1, "in_sync", "0"), ("vdc1", &vdc1, "faulty", "none")] {
        fx.file(&format!("{md}/md/dev-{part}/state"), &format!("{state}\n"));
        fx.file(&format!("{md}/md/dev-{part}/slot"), &format!("{slot}\n"));
        fx.link(&format!("{md}/md/dev-{part}/block"), path);
        fx.stack(path, md);
    }
    let home = "sys/devices/virtual/block/dm-2";
    fx.disk(home, (253, 2), 41938944, &[("rotational", "1")]);
    fx.file(&format!("{home}/dm/name"), "vg1-home\n");
    fx.file(
        &format!("{home}/dm/uuid"),
        "LVM-Xq3mZ1sB8kW0cT5vN2pR7yL4dF6gH9jAeU1oI3pK5sD7fG9hJ2kL4mN6bV8cX0zQ\n",
    );
    fx.file(&format!("{home}/dm/suspended"), "0\n");
    fx.stack(md, home);
    fx.mount("52 27 253:2 / /home rw,relatime shared:32 - ext4 /dev/mapper/vg1-home rw");
    // ---- vg0/lv-data striped over the whole disks vdd and vde.
    let vdd = virtio(&fx, 8, "vdd", (254, 48), 41943040);
    let vde = virtio(&fx, 9, "vde", (254, 64), 41943040);
    let lv = "sys/devices/virtual/block/dm-1";
    fx.disk(lv, (253, 1), 83886080, &[("rotational", "1")]);
    fx.file(&format!("{lv}/dm/name"), "vg0-lv--data\n");
    fx.file(
        &format!("{lv}/dm/uuid"),
        "LVM-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xYz2A4c6E8g0I2k4M6o8Q0s2U4w6Y8a0C2\n",
    );
    fx.file(&format!("{lv}/dm/suspended"), "0\n");
    fx.stack(&vdd, lv);
    fx.stack(&vde, lv);
    fx.mount("53 27 253:1 / /srv/lvm rw,relatime shared:33 - xfs /dev/mapper/vg0-lv--data rw,attr2,inode64");
    fx
}

/// A machine running zfs-fuse as the captures in `tests/fixtures/device/`
/// were taken (`*zfs-fuse*`): loop devices over files in `/dev/shm`, the
/// daemon (pid 4242, started as Debian's init script does, without
/// `--disable-block-cache`; its open members' flags as seen here: block
/// devices with O_DIRECT, `02140002`, the file vdev without, `02100002`)
/// in the blkio cgroup `/zfsd`, which limits `loop0` and `loop1`
/// to 20 MiB/s; iolab in `/lab`, which limits `loop0` to 1 MiB/s (not the
/// daemon's limit: it must not show). A zombie `zfs-fuse` (pid 4100, an
/// empty command line) is left from an earlier daemon. Pools (see
/// [`zfs_fuse_commands`]):
/// - `zfsinfo-mc` on `/zfsinfo-mc`: a mirror of `loop0`, `loop1`, log `loop3`,
///   cache `loop2`; its child `zfsinfo-mc/tuned` on `/zfsinfo-mc/tuned`;
/// - `zfsinfo-rz` on `/zfsinfo-rz`: raidz1 of `loop8`..`loop10`, spare `loop4`;
/// - `zfsinfo-m3` on `/zfsinfo-m3`: a 3-way mirror of `loop11`..`loop13`, `loop13` offline;
/// - `zfsinfo-fv` on `/zfsinfo-fv`: one file vdev, `/dev/shm/zfsinfo-file.img`.
///
/// The kstats (`/zfs-kstat`, a FUSE mount of type `fuse`, source `kstat`)
/// and the mounts are as zfs-fuse 0.7.0 made them here.
pub(crate) fn zfs_fuse_machine() -> Fx {
    let fx = Fx::new();
    virtio(&fx, 2, "vda", (254, 0), 536870912);
    let lq = [
        ("rotational", "0"),
        ("logical_block_size", "512"),
        ("physical_block_size", "512"),
        ("scheduler", "[none] mq-deadline"),
        ("write_cache", "write back"),
        ("nr_requests", "128"),
    ];
    let loops: [(u32, &str); 11] = [
        (0, "zfsinfo-m0"),
        (1, "zfsinfo-m1"),
        (2, "zfsinfo-m2"),
        (3, "zfsinfo-m3"),
        (4, "zfsinfo-m4"),
        (8, "zfsinfo-m5"),
        (9, "zfsinfo-m6"),
        (10, "zfsinfo-m7"),
        (11, "zfsinfo-m8"),
        (12, "zfsinfo-m9"),
        (13, "zfsinfo-m10"),
    ];
    let pid = 4242;
    for (fd, (n, file)) in loops.iter().enumerate() {
        let p = format!("sys/devices/virtual/block/loop{n}");
        fx.disk(&p, (7, *n), 262144, &lq);
        fx.file(&format!("{p}/loop/backing_file"), &format!("/dev/shm/{file}.img\n"));
        fx.file(&format!("{p}/loop/dio"), "0\n");
        fx.file(&format!("{p}/loop/offset"), "0\n");
        dev_node(&fx, &format!("loop{n}"), None);
        // The daemon's open member (the spare too): a block device, with O_DIRECT.
        fx.symlink_abs(&format!("proc/{pid}/fd/{}", 11 + fd), &format!("/dev/loop{n}"));
        fx.file(
            &format!("proc/{pid}/fdinfo/{}", 11 + fd),
            "pos:\t0\nflags:\t02140002\nmnt_id:\t27\n",
        );
    }
    fx.file("dev/shm/zfsinfo-file.img", "");
    fx.symlink_abs(&format!("proc/{pid}/fd/30"), "/dev/shm/zfsinfo-file.img");
    fx.file(&format!("proc/{pid}/fdinfo/30"), "pos:\t0\nflags:\t02100002\nmnt_id:\t25\n");
    fx.symlink_abs(&format!("proc/{pid}/fd/8"), "/dev/fuse");
    fx.file(&format!("proc/{pid}/fdinfo/8"), "pos:\t0\nflags:\t0100002\nmnt_id:\t5\n");
    fx.file(&format!("proc/{pid}/comm"), "zfs-fuse\n");
    fx.bytes(
        &format!("proc/{pid}/cmdline"),
        b"/usr/sbin/zfs-fuse\0--pidfile\0/var/run/zfs-fuse.pid\0",
    );
    fx.file(&format!("proc/{pid}/cgroup"), "9:name=systemd:/\n7:blkio:/zfsd\n4:memory:/\n0::/\n");
    fx.file("proc/4100/comm", "zfs-fuse\n");
    fx.bytes("proc/4100/cmdline", b"");
    fx.file("proc/4100/cgroup", "7:blkio:/other\n0::/\n");
    fx.file(
        "etc/zfs/zfsrc",
        "# zfs-fuse's settings, read by the daemon before its command line\n\
         vdev-cache-size = 10\n\
         max-arc-size = 100\n\
         zfs-prefetch-disable\n\
         # disable-block-cache\n\
         fuse-attr-timeout = 3600\n\
         fuse-entry-timeout = 3600\n\
         fuse-mount-options = default_permissions\n",
    );
    fx.file("zfs-kstat/zfs/arcstats/size", "22044672\n");
    fx.file("zfs-kstat/zfs/arcstats/c_max", "104857600\n");
    fx.file("proc/self/cgroup", "9:name=systemd:/\n7:blkio:/lab\n4:memory:/lab\n0::/\n");
    fx.file("sys/fs/cgroup/blkio/lab/blkio.throttle.read_bps_device", "7:0 1048576\n");
    let mib20 = "7:0 20971520\n7:1 20971520\n";
    fx.file("sys/fs/cgroup/blkio/zfsd/blkio.throttle.read_bps_device", mib20);
    fx.file("sys/fs/cgroup/blkio/zfsd/blkio.throttle.write_bps_device", mib20);
    for l in [
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
        "22 27 0:21 / /proc rw,relatime - proc proc rw",
        "23 27 0:22 / /sys rw,relatime - sysfs sysfs rw",
        "25 27 0:23 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw",
        "38 23 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio",
        "43 27 0:39 / /zfs-kstat rw,nosuid,nodev,relatime - fuse kstat rw,user_id=0,group_id=0,allow_other",
        "44 27 0:40 / /zfsinfo-mc rw,relatime - fuse.zfs zfsinfo-mc rw,user_id=0,group_id=0,default_permissions,allow_other",
        "45 27 0:41 / /zfsinfo-rz rw,relatime - fuse.zfs zfsinfo-rz rw,user_id=0,group_id=0,default_permissions,allow_other",
        "46 27 0:42 / /zfsinfo-m3 rw,relatime - fuse.zfs zfsinfo-m3 rw,user_id=0,group_id=0,default_permissions,allow_other",
        "47 27 0:43 / /zfsinfo-fv rw,relatime - fuse.zfs zfsinfo-fv rw,user_id=0,group_id=0,default_permissions,allow_other",
        "48 44 0:44 / /zfsinfo-mc/tuned rw,relatime - fuse.zfs zfsinfo-mc/tuned rw,user_id=0,group_id=0,default_permissions,allow_other",
    ] {
        fx.mount(l);
    }
    fx
}

/// The commands of [`zfs_fuse_machine`], as captured from zfs-fuse in
/// `tests/fixtures/device/`. What is not here fails, as `zpool status -P`,
/// `zfs get` with `sync` and `zpool get -H` do on zfs-fuse.
pub(crate) fn zfs_fuse_commands() -> Captured {
    const PROPS: &str = "zfs get -H -p -o property,value recordsize,compression,primarycache,atime,logbias,copies";
    Captured::new()
        .file("zpool status zfsinfo-mc", "zpool-status-zfs-fuse-mirror-log-cache.txt")
        .file("zpool status zfsinfo-rz", "zpool-status-zfs-fuse-raidz1-spare.txt")
        .file("zpool status zfsinfo-m3", "zpool-status-zfs-fuse-mirror3-offline.txt")
        .file("zpool status zfsinfo-fv", "zpool-status-zfs-fuse-file.txt")
        .file("zpool get version zfsinfo-mc", "zpool-get-version-zfs-fuse.txt")
        .file(&format!("{PROPS} zfsinfo-mc"), "zfs-get-props-zfs-fuse-mc.txt")
        .file(&format!("{PROPS} zfsinfo-mc/tuned"), "zfs-get-props-zfs-fuse-tuned.txt")
        .file("zdb -l /dev/loop0", "zdb-l-zfs-fuse-loop0.txt")
}
