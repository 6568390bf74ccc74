use super::*;

fn run_names() -> RunNames {
    RunNames {
        id: "t1".into(),
        root: PathBuf::from("/run/iolab/layouts-t1"),
    }
}

fn config(layout: Layout, n: usize, properties: &[(&str, &str)]) -> Config {
    Config {
        name: layout.name(n),
        layout,
        devices: devs(n),
        properties: properties.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        tags: Vec::new(),
    }
}

fn lines(steps: &[Step]) -> Vec<String> {
    steps.iter().map(Step::line).collect()
}

const ZERO_START: &str = "(iolab) zero the first 512 KiB of";
const ZERO_END: &str = "(iolab) zero the last 512 KiB of";

#[test]
fn each_kind_has_its_exact_build_and_teardown() {
    // (configuration, build, teardown), each a line per step
    let dir = |n: &str| format!("/run/iolab/layouts-t1/02-{n}");
    let table: Vec<(Config, Vec<String>, Vec<String>)> = vec![
        (
            config(Layout::Single(Fs::Ext4), 1, &[]),
            vec![
                format!("mkdir -p {}", dir("ext4")),
                "mkfs.ext4 -L iolab-6a5e16 -F -q -E lazy_itable_init=0,lazy_journal_init=0 /dev/loop10".into(),
                format!("mount /dev/loop10 {}", dir("ext4")),
            ],
            vec![format!("umount {}", dir("ext4")), "wipefs -a /dev/loop10".into(), format!("rmdir {}", dir("ext4"))],
        ),
        (
            config(Layout::Single(Fs::Xfs), 1, &[("mount-options", "noatime,discard")]),
            vec![
                format!("mkdir -p {}", dir("xfs")),
                "mkfs.xfs -L iolab-6a5e16 -f -q /dev/loop10".into(),
                format!("mount -o noatime,discard /dev/loop10 {}", dir("xfs")),
            ],
            vec![format!("umount {}", dir("xfs")), "wipefs -a /dev/loop10".into(), format!("rmdir {}", dir("xfs"))],
        ),
        (
            config(Layout::Single(Fs::Btrfs), 1, &[]),
            vec![
                format!("mkdir -p {}", dir("btrfs")),
                "mkfs.btrfs -L iolab-6a5e16 -f -q /dev/loop10".into(),
                format!("mount /dev/loop10 {}", dir("btrfs")),
            ],
            vec![
                format!("umount {}", dir("btrfs")),
                "btrfs device scan --forget /dev/loop10".into(),
                "wipefs -a /dev/loop10".into(),
                format!("rmdir {}", dir("btrfs")),
            ],
        ),
        (
            config(Layout::BtrfsRaid(BtrfsProfile::Raid1), 2, &[]),
            vec![
                format!("mkdir -p {}", dir("btrfs-raid1")),
                "mkfs.btrfs -L iolab-6a5e16 -f -q -d raid1 -m raid1 /dev/loop10 /dev/loop11".into(),
                format!("mount -o device=/dev/loop10,device=/dev/loop11 /dev/loop10 {}", dir("btrfs-raid1")),
            ],
            vec![
                format!("umount {}", dir("btrfs-raid1")),
                "btrfs device scan --forget /dev/loop10".into(),
                "btrfs device scan --forget /dev/loop11".into(),
                "wipefs -a /dev/loop10".into(),
                "wipefs -a /dev/loop11".into(),
                format!("rmdir {}", dir("btrfs-raid1")),
            ],
        ),
        (
            config(Layout::Zfs(ZfsVdev::Mirror), 3, &[("recordsize", "8K")]),
            vec![
                format!("mkdir -p {}", dir("zfs-mirror3")),
                format!(
                    "zpool create -f -o cachefile=none -m {} -O atime=off -O recordsize=8K iolab-t1-2 mirror /dev/loop10 /dev/loop11 /dev/loop12",
                    dir("zfs-mirror3")
                ),
            ],
            {
                let mut t = vec!["zpool destroy -f iolab-t1-2".to_string()];
                t.extend((10..13).map(|i| format!("wipefs -a /dev/loop{i}")));
                for i in 10..13 {
                    t.push(format!("{ZERO_START} /dev/loop{i} (ZFS labels 0 and 1)"));
                    t.push(format!(
                        "{ZERO_END} /dev/loop{i} below its size rounded down to 256 KiB, to its end (ZFS labels 2 and 3)"
                    ));
                }
                t.push(format!("rmdir {}", dir("zfs-mirror3")));
                t
            },
        ),
        (
            config(Layout::Zfs(ZfsVdev::Stripe), 2, &[("atime", "on")]),
            vec![
                format!("mkdir -p {}", dir("zfs-stripe2")),
                format!("zpool create -f -o cachefile=none -m {} -O atime=on iolab-t1-2 /dev/loop10 /dev/loop11", dir("zfs-stripe2")),
            ],
            Vec::new(),
        ),
        (
            config(Layout::Zfs(ZfsVdev::Raidz(2)), 4, &[]),
            vec![
                format!("mkdir -p {}", dir("zfs-raidz2-4")),
                format!(
                    "zpool create -f -o cachefile=none -m {} -O atime=off iolab-t1-2 raidz2 /dev/loop10 /dev/loop11 /dev/loop12 /dev/loop13",
                    dir("zfs-raidz2-4")
                ),
            ],
            Vec::new(),
        ),
        (
            config(Layout::Md(MdLevel::Raid5, Fs::Ext4), 3, &[]),
            vec![
                format!("mkdir -p {}", dir("md-raid5_ext4")),
                "mdadm --create /dev/md/iolab-t1-2 --run --level=5 --raid-devices=3 --metadata=1.2 --assume-clean /dev/loop10 /dev/loop11 /dev/loop12".into(),
                "mkfs.ext4 -L iolab-6a5e16 -F -q -E lazy_itable_init=0,lazy_journal_init=0 /dev/md/iolab-t1-2".into(),
                format!("mount /dev/md/iolab-t1-2 {}", dir("md-raid5_ext4")),
            ],
            vec![
                format!("umount {}", dir("md-raid5_ext4")),
                "wipefs -a /dev/md/iolab-t1-2".into(),
                "mdadm --stop /dev/md/iolab-t1-2".into(),
                "mdadm --zero-superblock /dev/loop10".into(),
                "mdadm --zero-superblock /dev/loop11".into(),
                "mdadm --zero-superblock /dev/loop12".into(),
                "wipefs -a /dev/loop10".into(),
                "wipefs -a /dev/loop11".into(),
                "wipefs -a /dev/loop12".into(),
                format!("rmdir {}", dir("md-raid5_ext4")),
            ],
        ),
        (
            config(Layout::Md(MdLevel::Raid0, Fs::Xfs), 2, &[]),
            vec![
                format!("mkdir -p {}", dir("md-raid0_xfs")),
                "mdadm --create /dev/md/iolab-t1-2 --run --level=0 --raid-devices=2 --metadata=1.2 /dev/loop10 /dev/loop11".into(),
                "mkfs.xfs -L iolab-6a5e16 -f -q /dev/md/iolab-t1-2".into(),
                format!("mount /dev/md/iolab-t1-2 {}", dir("md-raid0_xfs")),
            ],
            Vec::new(),
        ),
        (
            config(Layout::LvmStripe(Fs::Xfs), 2, &[("mount-options", "noatime")]),
            vec![
                format!("mkdir -p {}", dir("lvm-stripe_xfs")),
                format!("lvm pvcreate -ff -y --norestorefile --uuid {} /dev/loop10", run_names().pv_uuid(2, 0)),
                format!("lvm pvcreate -ff -y --norestorefile --uuid {} /dev/loop11", run_names().pv_uuid(2, 1)),
                "lvm vgcreate iolab-t1-2 /dev/loop10 /dev/loop11".into(),
                "lvm lvcreate -y -n lv -i 2 -I 64k -l 100%FREE iolab-t1-2".into(),
                "mkfs.xfs -L iolab-6a5e16 -f -q /dev/iolab-t1-2/lv".into(),
                format!("mount -o noatime /dev/iolab-t1-2/lv {}", dir("lvm-stripe_xfs")),
            ],
            vec![
                format!("umount {}", dir("lvm-stripe_xfs")),
                "wipefs -a /dev/iolab-t1-2/lv".into(),
                "lvm vgremove -f iolab-t1-2".into(),
                "lvm pvremove -ff -y /dev/loop10".into(),
                "lvm pvremove -ff -y /dev/loop11".into(),
                "wipefs -a /dev/loop10".into(),
                "wipefs -a /dev/loop11".into(),
                format!("rmdir {}", dir("lvm-stripe_xfs")),
            ],
        ),
    ];
    for (c, build, teardown) in table {
        let cmds = commands(&c, 2, &run_names());
        assert_eq!(lines(&cmds.build), build, "{}", c.name);
        if !teardown.is_empty() {
            assert_eq!(lines(&cmds.teardown), teardown, "{}", c.name);
        }
    }
}

#[test]
fn every_device_written_on_is_wiped_and_zfs_devices_at_both_ends() {
    let caps = full();
    for layout in every_layout() {
        let n = layout.min_devices().max(2).min(if layout.single_device() { 1 } else { 5 });
        let c = config(layout, n, &[]);
        let t = commands(&c, 1, &run_names()).teardown;
        for d in &c.devices {
            assert!(
                t.contains(&Step::Run(vec!["wipefs".into(), "-a".into(), d.display().to_string()])),
                "{}",
                c.name
            );
            let zeroed = |region| t.contains(&Step::Zero { device: d.clone(), region });
            assert_eq!(zeroed(Region::Start), layout.is_zfs(), "{}", c.name);
            assert_eq!(zeroed(Region::End), layout.is_zfs(), "{}", c.name);
        }
        assert_eq!(t.last(), Some(&Step::RemoveDir(run_names().mount_dir(1, &c))), "{}", c.name);
        assert!(layout.refusal(&caps).is_none(), "{}", c.name);
    }
    assert_eq!(ZFS_LABELS_AT_EACH_END, 2 * ZFS_LABEL_ALIGN, "two labels of 256 KiB at each end");
}

#[test]
fn names_of_what_a_run_builds_carry_its_id() {
    let p = plan(&req(3, "zfs,zfs-raidz1,md-raid1+ext4"), &full()).unwrap();
    let n = run_names();
    assert_eq!(n.object(3), "iolab-t1-3");
    let dirs: Vec<PathBuf> = p.configs.iter().enumerate().map(|(i, c)| n.mount_dir(i + 1, c)).collect();
    assert_eq!(
        dirs,
        ["01-zfs", "02-zfs-raidz1-3", "03-md-raid1_ext4"].map(|d| PathBuf::from("/run/iolab/layouts-t1").join(d))
    );
}

#[test]
fn the_dry_run_of_three_loop_devices() {
    let r = Request {
        zfs: vec![("recordsize".into(), vec!["8K".into(), "128K".into()])],
        ..req(3, "")
    };
    let p = plan(&r, &here()).unwrap();
    insta::assert_snapshot!(dry_run(
        &p,
        &here(),
        Workload::default_suite(),
        "sustained+default",
        None,
        &run_names()
    ));
}

#[test]
fn each_physical_volume_gets_a_uuid_of_the_runs_own_in_lvms_format() {
    let n = run_names();
    let u = n.pv_uuid(2, 0);
    let groups: Vec<usize> = u.split('-').map(str::len).collect();
    assert_eq!(groups, [6, 4, 4, 4, 4, 4, 6], "{u}");
    assert!(u.chars().all(|c| c == '-' || c.is_ascii_alphanumeric()), "{u}");
    assert_eq!(u, n.pv_uuid(2, 0), "the same run, configuration and member: the same UUID");
    let all = [n.pv_uuid(2, 1), n.pv_uuid(3, 0), RunNames::under_run("t2").pv_uuid(2, 0)];
    assert!(all.iter().all(|o| *o != u), "{u} {all:?}");
}
