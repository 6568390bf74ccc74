//! The export and import around an open target, with a fake `zpool` that
//! takes the target's directory away (as an export unmounts it) and puts
//! it back (as an import mounts it again).

use super::*;
use crate::base::progress::Silent;
use crate::base::signals::Stop;
use crate::device::SysRoot;
use std::cell::RefCell;

/// A `zpool` whose export renames `dir` away and whose import renames it
/// back; each can be made to fail. Records every call.
struct Fake {
    dir: PathBuf,
    calls: RefCell<Vec<String>>,
    export_fails: Option<&'static str>,
    imports_fail: u32,
}

impl Fake {
    fn new(dir: &Path) -> Fake {
        Fake {
            dir: dir.to_path_buf(),
            calls: RefCell::new(Vec::new()),
            export_fails: None,
            imports_fail: 0,
        }
    }
    fn away(&self) -> PathBuf {
        self.dir.with_extension("exported")
    }
}

impl Zpool for Fake {
    fn run(&self, args: &[&str]) -> std::result::Result<String, String> {
        self.calls.borrow_mut().push(args.join(" "));
        match args[0] {
            "get" => Ok(format!(
                "NAME   PROPERTY  VALUE  SOURCE\ntpool  {}  {}  default\n",
                args[1],
                match args[1] {
                    "guid" => "1234567890",
                    "cachefile" => "none",
                    _ => "-",
                }
            )),
            "export" => match self.export_fails {
                Some(why) => Err(why.into()),
                None => std::fs::rename(&self.dir, self.away())
                    .map(|_| String::new())
                    .map_err(|e| e.to_string()),
            },
            "import" => {
                let n = self.calls.borrow().iter().filter(|c| c.starts_with("import")).count() as u32;
                if n <= self.imports_fail {
                    return Err("cannot import 'tpool': pool is busy".into());
                }
                std::fs::rename(self.away(), &self.dir)
                    .map(|_| String::new())
                    .map_err(|e| e.to_string())
            }
            "list" if self.dir.exists() => Ok(format!("{}\n", args[args.len() - 1])),
            "list" => Err(format!("cannot open '{}': no such pool", args[args.len() - 1])),
            _ => Err("unknown".into()),
        }
    }
}

/// A 64 KiB file of known bytes in `dir/pool`, opened read-only as a target.
fn target_in(dir: &Path) -> (Target, PathBuf) {
    let pool = dir.join("pool");
    std::fs::create_dir(&pool).unwrap();
    let file = pool.join("data");
    std::fs::write(&file, (0..65536u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>()).unwrap();
    let req = crate::targets::OpenRequest {
        path: file.clone(),
        size: None,
        write: false,
        allow_destroy: false,
        force: false,
        buffered: false,
        max_bs: 4096,
        continue_on_error: false,
        allow_export: true,
    };
    let t = crate::targets::open(&req, &SysRoot::default(), &Stop::default(), &Silent).unwrap();
    (t, pool)
}

fn byte_at(t: &Target, off: i64) -> u8 {
    let buf = crate::io::buffers::AlignedBuf::new(4096);
    // SAFETY: buf holds 4096 bytes.
    let r = unsafe { libc::pread64(t.fd(), buf.as_ptr() as *mut _, 4096, off & !4095) };
    assert_eq!(r, 4096, "{}", std::io::Error::last_os_error());
    // SAFETY: 4096 bytes were read into it.
    unsafe { *buf.as_ptr().add((off & 4095) as usize) }
}

fn status(t: &Target) -> libc::c_int {
    // SAFETY: fcntl on an open descriptor.
    unsafe { libc::fcntl(t.fd(), libc::F_GETFL) }
}

#[test]
fn the_target_is_closed_around_the_export_and_reopened_in_its_place() {
    let _journals = Journals;
    let d = tempfile::tempdir().unwrap();
    let (t, pool) = target_in(d.path());
    let (fd, flags) = (t.fd(), status(&t));
    let zpool = Fake::new(&pool);
    let re = Reimport::of(&zpool, "tpool", &["/var/tmp/m1", "/var/tmp/m2", "/dev/loop3"]);
    assert_eq!(
        re.command(),
        "zpool import -d /var/tmp -d /dev -o cachefile=none 1234567890",
        "by GUID, from the members' directories, still not remembered"
    );
    let mut between = false;
    assert_eq!(t.cycle_pool(&zpool, &re, || between = true).unwrap(), Cycled::Done);
    assert!(between, "the kernel's caches are dropped while the pool is away");
    let calls = zpool.calls.borrow().clone();
    assert_eq!(
        calls[3..],
        ["export tpool", "import -d /var/tmp -d /dev -o cachefile=none 1234567890"]
    );
    // The same descriptor number, the same file, the same flags (O_DIRECT if it had it).
    assert_eq!(t.fd(), fd);
    assert_eq!(status(&t), flags);
    assert_eq!(byte_at(&t, 1000), (1000 % 251) as u8);
    // SAFETY: fcntl on an open descriptor.
    let fdflags = unsafe { libc::fcntl(t.fd(), libc::F_GETFD) };
    assert_ne!(fdflags & libc::FD_CLOEXEC, 0, "still close-on-exec");
    assert_eq!(t.gone(), None, "watched again, and not gone");
}

#[test]
fn a_busy_pool_is_left_alone_and_the_target_goes_on() {
    let _journals = Journals;
    let d = tempfile::tempdir().unwrap();
    let (t, pool) = target_in(d.path());
    let mut zpool = Fake::new(&pool);
    zpool.export_fails = Some("cannot unmount '/tpool': pool or dataset is busy");
    let re = Reimport::of(&zpool, "tpool", &[]);
    let r = t
        .cycle_pool(&zpool, &re, || panic!("nothing between: the pool never left"))
        .unwrap();
    assert_eq!(r, Cycled::Refused("cannot unmount '/tpool': pool or dataset is busy".into()));
    assert!(!zpool.calls.borrow().iter().any(|c| c.starts_with("import")));
    assert_eq!(byte_at(&t, 70), 70);
}

#[test]
fn an_import_is_tried_again_and_a_lost_pool_fails_the_run_with_the_command() {
    let _journals = Journals;
    let d = tempfile::tempdir().unwrap();
    let (t, pool) = target_in(d.path());
    let mut zpool = Fake::new(&pool);
    zpool.imports_fail = 2;
    let re = Reimport::of(&zpool, "tpool", &["/var/tmp/m1"]);
    assert_eq!(t.cycle_pool(&zpool, &re, || {}).unwrap(), Cycled::Done, "the third try imports it");
    assert_eq!(byte_at(&t, 4097), (4097 % 251) as u8);

    let d = tempfile::tempdir().unwrap();
    let (t, pool) = target_in(d.path());
    let mut zpool = Fake::new(&pool);
    zpool.imports_fail = 10;
    let re = Reimport::of(&zpool, "tpool", &["/var/tmp/m1"]);
    let e = t.cycle_pool(&zpool, &re, || {}).unwrap_err().to_string();
    assert_eq!(
        e,
        "pool tpool was exported to empty its ARC and could not be imported again (cannot import 'tpool': pool is busy): import it with `zpool import -d /var/tmp -o cachefile=none 1234567890`"
    );
    std::fs::rename(zpool.away(), &pool).unwrap();
}

#[test]
fn an_unnamed_target_is_not_cycled() {
    let _journals = Journals;
    let d = tempfile::tempdir().unwrap();
    let req = crate::targets::OpenRequest {
        path: d.path().to_path_buf(),
        size: Some(1 << 20),
        write: false,
        allow_destroy: false,
        force: false,
        buffered: false,
        max_bs: 4096,
        continue_on_error: false,
        // Not ZFS: the test file has no name even so.
        allow_export: true,
    };
    let t = crate::targets::open(&req, &SysRoot::default(), &Stop::default(), &Silent).unwrap();
    assert_eq!(t.reopen_path(), None);
    let zpool = Fake::new(d.path());
    let re = Reimport::of(&zpool, "tpool", &[]);
    assert!(matches!(t.cycle_pool(&zpool, &re, || {}).unwrap(), Cycled::Refused(_)));
    assert!(!zpool.calls.borrow().iter().any(|c| c.starts_with("export")));
}

#[test]
fn zpool_get_reads_either_implementations_table() {
    let openzfs = "NAME  PROPERTY   VALUE                SOURCE\ntank  guid       5720307283437263458  -\n";
    assert_eq!(parse_get(openzfs, "tank", "guid").as_deref(), Some("5720307283437263458"));
    assert_eq!(parse_get("tank\tcachefile\t-\tdefault\n", "tank", "cachefile"), None);
    assert_eq!(
        parse_get("tank\taltroot\t/mnt\tlocal\n", "tank", "altroot").as_deref(),
        Some("/mnt")
    );
    assert_eq!(parse_get(openzfs, "other", "guid"), None);
    // An alternate root and the default cache file.
    let re = Reimport {
        pool: "tank".into(),
        guid: None,
        dirs: vec![],
        cachefile: None,
        altroot: Some("/mnt".into()),
    };
    assert_eq!(re.command(), "zpool import -R /mnt tank");
}

#[test]
fn a_pool_is_not_exported_when_it_holds_root_or_cannot_come_back() {
    let m = |fstype: &str, source: &str, at: &str| FsInfo {
        fstype: fstype.into(),
        mount_point: at.into(),
        source: source.into(),
        options: String::new(),
        super_options: String::new(),
        dev: (0, 40),
    };
    let mounts = [
        m("zfs", "rpool/ROOT/debian", "/"),
        m("fuse.zfs", "tpool", "/tpool"),
        m("ext4", "/dev/sda1", "/boot"),
    ];
    assert_eq!(
        export_refusal("rpool", &mounts, true, true).as_deref(),
        Some("it holds the root filesystem")
    );
    assert_eq!(export_refusal("tpool", &mounts, true, true), None);
    assert!(
        export_refusal("tpool", &mounts, false, true)
            .unwrap()
            .starts_with("its members are unknown")
    );
    assert!(export_refusal("tpool", &mounts, true, false).unwrap().contains("no name"));
}

/// The window between the export and the import is journalled: a run
/// killed in it (here: its journal found while the pool is away) leaves
/// the import written down, and the next export, of any pool, imports
/// first what a run that is gone left exported.
#[test]
fn a_run_killed_while_the_pool_is_away_leaves_the_import_for_the_next_run() {
    let d = tempfile::tempdir().unwrap();
    let journals = d.path().join("exports");
    let pool = d.path().join("tpool");
    std::fs::create_dir(&pool).unwrap();
    let zpool = Fake::new(&pool);
    let re = Reimport::of(&zpool, "tpool", &["/var/tmp/m1"]);
    let mut left = Vec::new();
    let cycled = export_import_in(&zpool, &re, &journals, || {
        for e in std::fs::read_dir(&journals).unwrap() {
            left.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
        }
    })
    .unwrap();
    assert_eq!(cycled, Cycled::Done);
    assert_eq!(left.len(), 1, "while the pool is away its import is journalled");
    let record: serde_json::Value = serde_json::from_str(&left[0]).unwrap();
    assert_eq!(
        record["undo"][0]["action"]["argv"],
        serde_json::json!(["zpool", "import", "-d", "/var/tmp", "-o", "cachefile=none", "1234567890"])
    );
    assert_eq!(std::fs::read_dir(&journals).unwrap().count(), 0, "and no more once it is back");

    // The journal a killed run left, the pool exported.
    std::fs::rename(&pool, zpool.away()).unwrap();
    let mut killed = record.clone();
    killed["owner"] = serde_json::json!("1@1@another-boot");
    std::fs::write(journals.join("export-tpool-1-0.json"), killed.to_string()).unwrap();
    let other = Reimport {
        pool: "other".into(),
        guid: None,
        dirs: Vec::new(),
        cachefile: None,
        altroot: None,
    };
    let zpool2 = Fake::new(&pool);
    *zpool2.calls.borrow_mut() = Vec::new();
    let said = sweep_exports(&zpool2, &journals);
    assert!(pool.exists(), "the pool was not imported again: {:?}", zpool2.calls.borrow());
    assert_eq!(
        said,
        ["imported again: pool tpool, exported by iolab to empty its ARC, left exported by a killed run"]
    );
    assert_eq!(std::fs::read_dir(&journals).unwrap().count(), 0);
    // Imported already: nothing to do, and the journal goes.
    std::fs::write(journals.join("export-tpool-1-0.json"), killed.to_string()).unwrap();
    zpool2.calls.borrow_mut().clear();
    let _ = export_import_in(&zpool2, &other, &journals, || {});
    assert!(
        !zpool2.calls.borrow().iter().any(|c| c.starts_with("import -d")),
        "{:?}",
        zpool2.calls.borrow()
    );
    assert_eq!(std::fs::read_dir(&journals).unwrap().count(), 0);
}

/// An import that never succeeds keeps its journal: the next run tries it.
#[test]
fn a_pool_that_could_not_be_imported_keeps_its_journal() {
    let d = tempfile::tempdir().unwrap();
    let journals = d.path().join("exports");
    let pool = d.path().join("tpool");
    std::fs::create_dir(&pool).unwrap();
    let mut zpool = Fake::new(&pool);
    zpool.imports_fail = 10;
    let re = Reimport::of(&zpool, "tpool", &[]);
    assert!(export_import_in(&zpool, &re, &journals, || {}).is_err());
    assert_eq!(std::fs::read_dir(&journals).unwrap().count(), 1);
    // A refused export leaves none.
    let d = tempfile::tempdir().unwrap();
    let journals = d.path().join("exports");
    let mut zpool = Fake::new(&pool);
    zpool.export_fails = Some("busy");
    assert_eq!(
        export_import_in(&zpool, &re, &journals, || {}).unwrap(),
        Cycled::Refused("busy".into())
    );
    assert_eq!(std::fs::read_dir(&journals).unwrap().count(), 0);
}
