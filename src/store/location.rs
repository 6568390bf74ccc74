//! Where the results store lives, and who owns the files iolab creates for it.
//!
//! Under `sudo`, `HOME` and `XDG_DATA_HOME` are root's, yet the run belongs to
//! the user who typed the command: with no `--db` and no `$IOLAB_DB`, the
//! store is that user's (`<home>/.local/share/iolab/results.db`, the home from
//! the passwd database), and what iolab creates for it is handed to them.
//! The rule itself ([`default_location_from`]) is pure: the effective uid,
//! the environment and the passwd lookup are parameters.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A passwd entry: what [`default_location_from`] needs to know of a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub uid: u32,
    pub gid: u32,
    pub home: PathBuf,
}

/// The user who ran iolab through `sudo`, to whom the store belongs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SudoUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub home: PathBuf,
}

/// The default store: its path and, under sudo, the user it belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub owner: Option<SudoUser>,
}

/// Where the store lives: `$IOLAB_DB`, else (under sudo) the invoking user's
/// `~/.local/share/iolab/results.db`, else `$XDG_DATA_HOME/iolab/results.db`,
/// else `~/.local/share/iolab/results.db`.
pub fn default_location() -> Location {
    // A user whose home does not exist (a system account) keeps root's store:
    // iolab does not create homes.
    let lookup = |name: &str| lookup_user(name).filter(|a| a.home.is_dir());
    default_location_from(rustix::process::geteuid().as_raw(), |k| std::env::var_os(k), lookup)
}

/// [`default_location`] with the effective uid, the environment and the
/// passwd lookup given as parameters.
///
/// The sudo rule applies only when all of these hold: the effective uid is 0,
/// `SUDO_USER` names an existing user other than root, and `SUDO_UID` and
/// `SUDO_GID` are numbers, `SUDO_UID` being that user's uid. Otherwise the
/// `SUDO_*` variables are ignored.
pub fn default_location_from(euid: u32, env: impl Fn(&str) -> Option<OsString>, lookup: impl Fn(&str) -> Option<Account>) -> Location {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(p) = get("IOLAB_DB") {
        return Location {
            path: PathBuf::from(p),
            owner: None,
        };
    }
    if let Some(user) = sudo_user(euid, &get, lookup) {
        return Location {
            path: user.home.join(".local/share/iolab/results.db"),
            owner: Some(user),
        };
    }
    Location {
        path: plain_path(&get),
        owner: None,
    }
}

/// The store of an unprivileged process: `$IOLAB_DB`, else
/// `$XDG_DATA_HOME/iolab/results.db`, else `~/.local/share/iolab/results.db`
/// (the `SUDO_*` variables play no part here; see [`default_location_from`]).
pub fn default_path_from(env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    get("IOLAB_DB").map(PathBuf::from).unwrap_or_else(|| plain_path(&get))
}

fn plain_path(get: &impl Fn(&str) -> Option<OsString>) -> PathBuf {
    let base = get("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| get("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("iolab").join("results.db")
}

fn sudo_user(euid: u32, get: &impl Fn(&str) -> Option<OsString>, lookup: impl Fn(&str) -> Option<Account>) -> Option<SudoUser> {
    if euid != 0 {
        return None;
    }
    let name = get("SUDO_USER")?.into_string().ok()?;
    let num = |k: &str| get(k)?.to_str()?.trim().parse::<u32>().ok();
    let (uid, gid) = (num("SUDO_UID")?, num("SUDO_GID")?);
    let account = lookup(&name)?;
    // root that sudo'ed to root keeps root's store; a SUDO_UID that is not
    // SUDO_USER's is not trusted to name the owner.
    if uid == 0 || account.uid != uid || !account.home.is_absolute() {
        return None;
    }
    Some(SudoUser {
        name,
        uid,
        gid,
        home: account.home,
    })
}

/// The passwd entry of `name`.
///
/// A dynamically linked iolab asks the C library (`getpwnam_r`: every source
/// `/etc/nsswitch.conf` names, files, LDAP, sssd...). A statically linked one
/// (`-C target-feature=+crt-static`, `scripts/build-static`) does not: glibc's
/// static `getpwnam_r` loads the NSS modules (`libnss_*.so`) at run time,
/// and they must come from the very glibc it was linked with (another one
/// fails or crashes). It reads `/etc/passwd` itself instead
/// ([`passwd_entry`]), so under sudo it finds the invoking user when they
/// are listed there, and otherwise keeps root's store.
pub fn lookup_user(name: &str) -> Option<Account> {
    #[cfg(target_feature = "crt-static")]
    {
        passwd_entry(&std::fs::read("/etc/passwd").ok()?, name)
    }
    #[cfg(not(target_feature = "crt-static"))]
    {
        getpwnam(name)
    }
}

/// The entry of `name` in the text of a passwd file (`passwd(5)`: lines of
/// `name:password:uid:gid:gecos:home:shell`), the first one as glibc's files
/// source reads it. Comments, NIS markers (`+`, `-`) and lines with too few
/// fields or non-numeric ids are passed over.
#[cfg(any(test, target_feature = "crt-static"))]
pub fn passwd_entry(text: &[u8], name: &str) -> Option<Account> {
    use std::os::unix::ffi::OsStrExt;
    text.split(|&b| b == b'\n').find_map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.first().is_none_or(|b| matches!(b, b'#' | b'+' | b'-')) {
            return None;
        }
        let f: Vec<&[u8]> = line.split(|&b| b == b':').collect();
        if f.len() < 7 || f[0] != name.as_bytes() {
            return None;
        }
        let num = |b: &[u8]| std::str::from_utf8(b).ok()?.parse::<u32>().ok();
        Some(Account {
            uid: num(f[2])?,
            gid: num(f[3])?,
            home: PathBuf::from(std::ffi::OsStr::from_bytes(f[5])),
        })
    })
}

/// The passwd entry of `name` from the C library (`getpwnam_r`).
#[cfg(not(target_feature = "crt-static"))]
fn getpwnam(name: &str) -> Option<Account> {
    crate::io::sys::passwd_of(name).map(|p| Account {
        uid: p.uid,
        gid: p.gid,
        home: p.home,
    })
}

/// A path SQLite would not read as a file name (`:memory:`, `file:` URIs, the empty temp database).
pub(crate) fn is_special(path: &Path) -> bool {
    let s = path.as_os_str().as_encoded_bytes();
    s.is_empty() || s == b":memory:" || s.starts_with(b"file:")
}

/// Refuse a store path iolab must not open: one through a symbolic link
/// planted by another user (`--db /tmp/x`, x -> a file of root's: SQLite
/// would create or overwrite what it points to), or one that exists and is
/// not a file (SQLite would wait forever on a FIFO).
pub(crate) fn refuse(path: &Path) -> Result<(), String> {
    if is_special(path) {
        return Ok(());
    }
    crate::base::paths::refuse_planted_link(path, &format!("use {} as the results store", path.display()))?;
    match std::fs::metadata(path) {
        Ok(md) if !md.is_file() => Err(format!(
            "refusing to use {} as the results store: it is {}, not a file",
            path.display(),
            crate::base::paths::kind_of(&md)
        )),
        _ => Ok(()),
    }
}

/// Why iolab cannot write the existing store at `path`, if it cannot: its
/// filesystem is mounted read-only, the file is not writable, or its
/// directory is not (SQLite creates the store's `-wal` and `-shm` files
/// there). None for a path that does not exist or that SQLite names.
pub(crate) fn why_unwritable(path: &Path) -> Option<String> {
    use rustix::fs::{Access, StatVfsMountFlags, access, statvfs};
    if is_special(path) || !path.exists() {
        return None;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if statvfs(dir).is_ok_and(|v| v.f_flag.contains(StatVfsMountFlags::RDONLY)) {
        return Some("its filesystem is mounted read-only".into());
    }
    if let Err(e) = access(path, Access::WRITE_OK) {
        return Some(format!("the file is not writable ({})", std::io::Error::from(e)));
    }
    if let Err(e) = access(dir, Access::WRITE_OK) {
        return Some(format!(
            "its directory {} is not writable ({}), and SQLite keeps the store's -wal and -shm files there",
            dir.display(),
            std::io::Error::from(e)
        ));
    }
    None
}

/// The SQLite URI that opens the store at `path` for reading only: with
/// `mode=ro` when its `-shm` file exists (another process may be writing
/// through it), else `immutable=1`: a WAL store needs its `-shm` even to be
/// read, and where the directory is read-only none can be made, so SQLite is
/// told that nothing changes the file (nothing can: the store is read-only
/// here and no writer has it open).
pub(crate) fn read_only_uri(path: &Path) -> String {
    let mut shm = path.as_os_str().to_owned();
    shm.push("-shm");
    let query = if Path::new(&shm).exists() { "mode=ro" } else { "immutable=1" };
    let mut uri = String::from(if path.is_absolute() { "file://" } else { "file:" });
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_graphic() && !matches!(b, b'%' | b'?' | b'#') {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    format!("{uri}?{query}")
}

/// Create what is missing of the store at `path`: its directories (0700) and
/// the empty database file (0600), each handed to `owner` when given. What
/// exists already is left as it is, owner and mode.
///
/// Everything is made and handed over through directory file descriptors
/// (`mkdirat`, then `fchownat` with `AT_SYMLINK_NOFOLLOW` on the name just
/// made, `openat` with `O_NOFOLLOW` to go down), never by path: under sudo,
/// a user who swaps a directory iolab just made for a symbolic link gets
/// the link itself handed to them and the store refused, not root's chown
/// of what the link points to. Under sudo the walk starts at the user's
/// home and follows no link below it.
pub(crate) fn prepare(path: &Path, owner: Option<&SudoUser>) -> Result<(), String> {
    prepare_with(path, owner, |_| {})
}

/// [`prepare`], calling `made` with each directory's path right after it
/// is made (the tests' seam for a link planted there).
fn prepare_with(path: &Path, owner: Option<&SudoUser>, made: impl Fn(&Path)) -> Result<(), String> {
    use rustix::fs::{AtFlags, Mode, OFlags, chownat, fchmod, fchown, mkdirat, open, openat};
    use rustix::io::Errno;
    if is_special(path) {
        return Ok(());
    }
    if let Some(user) = owner {
        refuse_links(path, &user.home)?;
    }
    let ids = owner.map(|u| (rustix::fs::Uid::from_raw(u.uid), rustix::fs::Gid::from_raw(u.gid)));
    let give = |u: &SudoUser, p: &Path, e: Errno| format!("cannot give {} to {}: {}", p.display(), u.name, std::io::Error::from(e));
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| format!("{} does not name a file", path.display()))?;
    // Where the walk starts, and the names below it.
    let start = match owner {
        Some(u) if dir.starts_with(&u.home) => u.home.clone(),
        _ => dir
            .ancestors()
            .find(|d| d.as_os_str().is_empty() || d.is_dir())
            .unwrap_or(dir)
            .to_path_buf(),
    };
    let below: Vec<&std::ffi::OsStr> = dir
        .strip_prefix(&start)
        .map_err(|_| format!("cannot create {}", dir.display()))?
        .iter()
        .collect();
    let start = if start.as_os_str().is_empty() {
        Path::new(".")
    } else {
        start.as_path()
    };
    let dir_flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
    let mut fd =
        open(start, dir_flags, Mode::empty()).map_err(|e| format!("cannot open {}: {}", start.display(), std::io::Error::from(e)))?;
    let mut at = start.to_path_buf();
    for c in below {
        at.push(c);
        match mkdirat(&fd, c, Mode::from_raw_mode(0o700)) {
            Ok(()) => {
                made(&at);
                if let (Some(u), Some((uid, gid))) = (owner, ids) {
                    chownat(&fd, c, Some(uid), Some(gid), AtFlags::SYMLINK_NOFOLLOW).map_err(|e| give(u, &at, e))?;
                }
            }
            Err(Errno::EXIST) => {} // there already, or another iolab was quicker
            Err(e) => return Err(format!("cannot create {}: {}", at.display(), std::io::Error::from(e))),
        }
        fd = match openat(&fd, c, dir_flags | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(f) => f,
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(format!(
                    "refusing to use {}: {} is not a directory (a symbolic link?)",
                    path.display(),
                    at.display()
                ));
            }
            Err(e) => return Err(format!("cannot open {}: {}", at.display(), std::io::Error::from(e))),
        };
    }
    // O_EXCL: create the file only if nothing (not even a dangling link) is there.
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match openat(&fd, name, flags, Mode::from_raw_mode(0o600)) {
        Ok(f) => {
            // Exactly 0600 whatever the umask, and the owner before SQLite writes a byte.
            fchmod(&f, Mode::from_raw_mode(0o600))
                .map_err(|e| format!("cannot set the mode of {}: {}", path.display(), std::io::Error::from(e)))?;
            if let (Some(u), Some((uid, gid))) = (owner, ids) {
                fchown(&f, Some(uid), Some(gid)).map_err(|e| give(u, path, e))?;
            }
            Ok(())
        }
        Err(Errno::EXIST) => Ok(()),
        Err(e) => Err(format!("cannot create {}: {}", path.display(), std::io::Error::from(e))),
    }
}

/// As root in another user's home: no symbolic link below the home on the
/// way to the store, so the user cannot point root's writes elsewhere.
fn refuse_links(path: &Path, home: &Path) -> Result<(), String> {
    let Ok(rest) = path.strip_prefix(home) else {
        return Ok(());
    };
    let mut p = home.to_path_buf();
    for c in rest.components() {
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!("refusing to use {}: {} is a symbolic link", path.display(), p.display()));
            }
            Ok(_) => {}
            Err(_) => break, // missing from here on: iolab creates it
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passwd_file_gives_the_first_entry_of_the_name() {
        let text = b"# comment\nroot:x:0:0:root:/root:/bin/bash\n+alice::::::\n-alice\nalicex:x:7:7::/home/alicex:/bin/sh\n\
alice:x:bad:1000::/home/nope:/bin/sh\nalice:x:1000\nalice:x:1000:1001:Alice A,,,:/home/alice:/bin/bash\r\n\
alice:x:2000:2000::/home/second:/bin/sh\nodd:x:5:5::/home/\xffodd:/bin/sh";
        let alice = passwd_entry(text, "alice").expect("alice is listed");
        assert_eq!(
            alice,
            Account {
                uid: 1000,
                gid: 1001,
                home: PathBuf::from("/home/alice"),
            }
        );
        assert_eq!(passwd_entry(text, "root").map(|a| a.uid), Some(0));
        assert_eq!(passwd_entry(text, "bob"), None);
        assert_eq!(passwd_entry(text, "ali"), None);
        assert_eq!(passwd_entry(text, ""), None);
        use std::os::unix::ffi::OsStrExt;
        assert_eq!(passwd_entry(text, "odd").unwrap().home.as_os_str().as_bytes(), b"/home/\xffodd");
    }

    /// The file read by hand agrees with the C library on this machine's
    /// users listed there (a static build reads the file; a dynamic one asks glibc).
    #[cfg(not(target_feature = "crt-static"))]
    #[test]
    fn the_passwd_file_agrees_with_getpwnam() {
        let text = std::fs::read("/etc/passwd").expect("/etc/passwd is readable");
        let names: Vec<String> = String::from_utf8_lossy(&text)
            .lines()
            .filter_map(|l| {
                l.split(':')
                    .next()
                    .filter(|n| !n.is_empty() && !n.starts_with(['#', '+', '-']))
                    .map(str::to_string)
            })
            .collect();
        assert!(names.iter().any(|n| n == "root"), "{names:?}");
        for n in &names {
            assert_eq!(passwd_entry(&text, n), getpwnam(n), "{n}");
        }
    }

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    fn alice(name: &str) -> Option<Account> {
        (name == "alice").then(|| Account {
            uid: 1000,
            gid: 1000,
            home: PathBuf::from("/home/alice"),
        })
    }

    const SUDO: &[(&str, &str)] = &[
        ("HOME", "/root"),
        ("XDG_DATA_HOME", "/root/.xdg"),
        ("SUDO_USER", "alice"),
        ("SUDO_UID", "1000"),
        ("SUDO_GID", "1001"),
    ];

    #[test]
    fn under_sudo_the_store_is_the_invoking_users() {
        let loc = default_location_from(0, env(SUDO), alice);
        assert_eq!(loc.path, Path::new("/home/alice/.local/share/iolab/results.db"));
        assert_eq!(
            loc.owner,
            Some(SudoUser {
                name: "alice".into(),
                uid: 1000,
                gid: 1001,
                home: PathBuf::from("/home/alice"),
            })
        );
    }

    #[test]
    fn not_root_ignores_sudo_user() {
        let loc = default_location_from(1000, env(SUDO), alice);
        assert_eq!(loc.path, Path::new("/root/.xdg/iolab/results.db"));
        assert_eq!(loc.owner, None);
    }

    #[test]
    fn iolab_db_wins_over_sudo() {
        const E: &[(&str, &str)] = &[
            ("IOLAB_DB", "/x/r.db"),
            ("HOME", "/root"),
            ("SUDO_USER", "alice"),
            ("SUDO_UID", "1000"),
            ("SUDO_GID", "1000"),
        ];
        let loc = default_location_from(0, env(E), alice);
        assert_eq!(loc.path, Path::new("/x/r.db"));
        assert_eq!(loc.owner, None);
    }

    #[test]
    fn unknown_sudo_user_gives_roots_normal_path() {
        const E: &[(&str, &str)] = &[
            ("HOME", "/root"),
            ("SUDO_USER", "mallory"),
            ("SUDO_UID", "1000"),
            ("SUDO_GID", "1000"),
        ];
        let loc = default_location_from(0, env(E), alice);
        assert_eq!(loc.path, Path::new("/root/.local/share/iolab/results.db"));
        assert_eq!(loc.owner, None);
    }

    #[test]
    fn incomplete_or_inconsistent_sudo_variables_are_ignored() {
        const NO_UID: &[(&str, &str)] = &[("HOME", "/root"), ("SUDO_USER", "alice"), ("SUDO_GID", "1000")];
        const NO_GID: &[(&str, &str)] = &[("HOME", "/root"), ("SUDO_USER", "alice"), ("SUDO_UID", "1000")];
        const WRONG_UID: &[(&str, &str)] = &[
            ("HOME", "/root"),
            ("SUDO_USER", "alice"),
            ("SUDO_UID", "1234"),
            ("SUDO_GID", "1000"),
        ];
        const ROOT: &[(&str, &str)] = &[("HOME", "/root"), ("SUDO_USER", "root"), ("SUDO_UID", "0"), ("SUDO_GID", "0")];
        let root_of = |_: &str| {
            Some(Account {
                uid: 0,
                gid: 0,
                home: PathBuf::from("/root"),
            })
        };
        for e in [NO_UID, NO_GID, WRONG_UID] {
            assert_eq!(
                default_location_from(0, env(e), alice),
                Location {
                    path: PathBuf::from("/root/.local/share/iolab/results.db"),
                    owner: None
                },
                "{e:?}"
            );
        }
        assert_eq!(default_location_from(0, env(ROOT), root_of).owner, None);
    }

    #[test]
    fn default_path_from_is_the_unprivileged_rule() {
        assert_eq!(default_path_from(env(SUDO)), Path::new("/root/.xdg/iolab/results.db"));
        assert_eq!(
            default_path_from(env(&[("IOLAB_DB", ""), ("HOME", "/h")])),
            Path::new("/h/.local/share/iolab/results.db")
        );
    }

    #[test]
    fn root_exists_in_passwd() {
        let root = lookup_user("root").expect("root is in passwd");
        assert_eq!(root.uid, 0);
        assert!(root.home.is_absolute());
        assert_eq!(lookup_user("no-such-user-iolab-xyz"), None);
    }

    #[test]
    fn read_only_uris_escape_the_path_and_say_how_to_read() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a b?#%\u{e9}.db");
        let uri = read_only_uri(&db);
        let want = format!("file://{}/a%20b%3F%23%25%C3%A9.db?immutable=1", dir.path().display());
        assert_eq!(uri, want);
        std::fs::write(dir.path().join("a b?#%\u{e9}.db-shm"), b"").unwrap();
        assert!(read_only_uri(&db).ends_with("?mode=ro"));
        assert_eq!(read_only_uri(Path::new("r.db")), "file:r.db?immutable=1");
    }

    /// Issue 36: under sudo, the store's directories were made with `mkdir`
    /// and then chowned by path, so the user could swap one just made for a
    /// symbolic link and have root chown what it points to. Through
    /// directory descriptors, the link (not its target) is what is handed
    /// over, the store is refused, and nothing is made through the link.
    #[test]
    fn issue_36_a_link_planted_after_a_directory_is_made_is_not_followed() {
        if !rustix::process::geteuid().is_root() {
            eprintln!("skipped: chown needs root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let victim = tmp.path().join("victim");
        std::fs::create_dir(&home).unwrap();
        std::fs::create_dir(&victim).unwrap();
        let user = SudoUser {
            name: "alice".into(),
            uid: 4242,
            gid: 4243,
            home: home.clone(),
        };
        let db = home.join(".local/share/iolab/results.db");
        let plant = |made: &Path| {
            if made == home.join(".local") {
                std::fs::rename(made, home.join("moved")).unwrap();
                std::os::unix::fs::symlink(&victim, made).unwrap();
            }
        };
        let e = prepare_with(&db, Some(&user), plant).unwrap_err();
        assert!(e.contains("refusing") && e.contains(".local"), "{e}");
        use std::os::unix::fs::MetadataExt;
        let v = std::fs::metadata(&victim).unwrap();
        assert_eq!((v.uid(), v.gid()), (0, 0), "the link's target keeps its owner");
        assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0, "nothing made through the link");
        let link = std::fs::symlink_metadata(home.join(".local")).unwrap();
        assert!(link.file_type().is_symlink());
        assert_eq!(link.uid(), 4242, "the link itself went to the user");
        // Undisturbed, every directory and the file are the user's, private.
        std::fs::remove_file(home.join(".local")).unwrap();
        prepare(&db, Some(&user)).unwrap();
        for p in [
            home.join(".local"),
            home.join(".local/share"),
            home.join(".local/share/iolab"),
            db.clone(),
        ] {
            let m = std::fs::metadata(&p).unwrap();
            assert_eq!((m.uid(), m.gid()), (4242, 4243), "{}", p.display());
            assert_eq!(m.mode() & 0o777, if p == db { 0o600 } else { 0o700 }, "{}", p.display());
        }
    }

    #[test]
    fn prepare_creates_private_files_and_leaves_existing_ones() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a/b/results.db");
        prepare(&db, None).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&db), 0o600);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        // An existing store keeps its mode.
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
        prepare(&db, None).unwrap();
        assert_eq!(mode(&db), 0o644);
        assert!(is_special(Path::new(":memory:")));
        prepare(Path::new(":memory:"), None).unwrap();
        assert!(!Path::new(":memory:").exists());
    }
}
