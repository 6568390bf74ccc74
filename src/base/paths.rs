//! Files named by the user, or made by iolab in places others can write
//! (`/tmp`, `/dev/shm`): read only what is a file, and never write through
//! a symbolic link planted by another user.
//!
//! - [`read_text`]: a document, configuration or hosts file is read only
//!   from a regular file or a pipe, at most [`MAX_INPUT_BYTES`]; a device
//!   (`/dev/zero` would never end), a socket or a directory is refused with
//!   its kind named.
//! - [`planted_link`]: the rule on symbolic links. A link on the way to a
//!   file iolab writes is followed only when it belongs to the user running
//!   iolab or to root; a link owned by anyone else is what an attacker
//!   plants in a shared directory (`/tmp/results.db -> /etc/shadow`) and is
//!   refused (the kernel's `fs.protected_symlinks` does the same in sticky
//!   directories only, and only when it is switched on).
//! - [`create_new`]: a file iolab names itself (a fallback test file, a fio
//!   job file, the selftest's image) is created `O_CREAT|O_EXCL|O_NOFOLLOW`:
//!   nothing that exists at the name, a link included, is ever opened.
//! - [`create_output`]: a file the user names for output (`-o`, `--json
//!   PATH`, `report -o`, `man --dir`): created if missing (`O_EXCL`), else
//!   opened `O_NOFOLLOW` unless the link is the user's own, and refused
//!   when it is a block device, or another user's file in a sticky
//!   world-writable directory.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The largest document iolab reads (fio's json+ of a long run is tens of MB).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// What a file is, for a message: `a FIFO (named pipe)`, `a character device`.
pub fn kind_of(md: &Metadata) -> &'static str {
    let ft = md.file_type();
    if ft.is_file() {
        "a regular file"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// The text of the file at `path` (`what` names it in errors: "the
/// configuration file"): a regular file or a pipe (`/dev/stdin`, `<(fio
/// ...)`), UTF-8, at most [`MAX_INPUT_BYTES`].
pub fn read_text(path: &Path, what: &str) -> Result<String, String> {
    let cannot = |e: std::io::Error| format!("cannot read {what} {}: {e}", path.display());
    // Checked before opening: opening a device can itself do something (a
    // tape rewinds, a watchdog starts).
    let md = std::fs::metadata(path).map_err(cannot)?;
    let readable = |md: &Metadata| md.is_file() || md.file_type().is_fifo();
    if !readable(&md) {
        return Err(format!("cannot read {what} {}: it is {}, not a file", path.display(), kind_of(&md)));
    }
    let f = File::open(path).map_err(cannot)?;
    let md = f.metadata().map_err(cannot)?;
    if !readable(&md) {
        return Err(format!("cannot read {what} {}: it is {}, not a file", path.display(), kind_of(&md)));
    }
    let mut bytes = Vec::new();
    f.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "cannot read {what} {}: it is larger than {} (not a document iolab reads)",
            path.display(),
            crate::base::units::fmt_bytes(MAX_INPUT_BYTES)
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "cannot read {what} {}: it is not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// The first symbolic link on the way to `path` (its own name included)
/// that belongs neither to the user running iolab nor to root, with its
/// owner's uid. Components that do not exist end the walk.
pub fn planted_link(path: &Path) -> Option<(PathBuf, u32)> {
    let euid = rustix::process::geteuid().as_raw();
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let mut p = PathBuf::new();
    for c in abs.components() {
        p.push(c);
        match std::fs::symlink_metadata(&p) {
            Ok(md) if md.file_type().is_symlink() => {
                if md.uid() != euid && md.uid() != 0 {
                    return Some((p, md.uid()));
                }
                // A trusted link: go on from where it points.
                match std::fs::canonicalize(&p) {
                    Ok(real) => p = real,
                    Err(_) => return None,
                }
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// The refusal for a planted link on the way to `path`; `action` says what
/// was refused, path included (`write /tmp/x`, `use /tmp/x as the results store`).
pub fn refuse_planted_link(path: &Path, action: &str) -> Result<(), String> {
    match planted_link(path) {
        Some((link, uid)) => Err(format!(
            "refusing to {action}: {} is a symbolic link owned by another user (uid {uid}); iolab does not follow links that others can plant in shared directories",
            link.display()
        )),
        None => Ok(()),
    }
}

/// A new file at `path`, readable and writable, `mode` before the umask:
/// `O_CREAT|O_EXCL|O_NOFOLLOW`, so whatever exists at the name (a file, a
/// link, a dangling link) makes it fail with `AlreadyExists` instead of
/// being opened.
pub fn create_new(path: &Path, mode: u32) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// A sticky directory anyone may write in (`/tmp`, `/dev/shm`, `/var/tmp`).
fn shared_dir(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| {
        let mode = m.permissions().mode();
        mode & 0o1000 != 0 && mode & 0o002 != 0
    })
}

/// Open `path` to write a result into it, emptied: see the module's text.
pub fn create_output(path: &Path) -> Result<File, String> {
    let refuse = |why: String| format!("refusing to write {}: {why}", path.display());
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    refuse_planted_link(path, &format!("write {}", path.display()))?;
    match create_new(path, 0o644) {
        Ok(f) => return Ok(f),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => return Err(cannot(e)),
    }
    let link = std::fs::symlink_metadata(path).map_err(cannot)?.file_type().is_symlink();
    // Through a link (the user's own or root's, checked above): what it
    // points to; a dangling one gets its file created, as a plain write would.
    let md = match std::fs::metadata(path) {
        Ok(md) => Some(md),
        Err(e) if link && e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(cannot(e)),
    };
    if let Some(md) = &md {
        if md.file_type().is_block_device() {
            return Err(refuse("it is a block device: a report written there would destroy its data".into()));
        }
        let euid = rustix::process::geteuid().as_raw();
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if md.is_file() && md.uid() != euid && md.uid() != 0 && shared_dir(dir) {
            return Err(refuse(format!(
                "it belongs to another user (uid {}) in the shared directory {}",
                md.uid(),
                dir.display()
            )));
        }
    }
    let mut o = OpenOptions::new();
    o.write(true).create(md.is_none()).mode(0o644);
    // Not a link when checked: one swapped in since is ELOOP, not followed.
    o.custom_flags(if link {
        libc::O_CLOEXEC
    } else {
        libc::O_CLOEXEC | libc::O_NOFOLLOW
    });
    let f = o.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => refuse("it became a symbolic link while iolab opened it".into()),
        _ => cannot(e),
    })?;
    let now = f.metadata().map_err(cannot)?;
    if md.as_ref().is_some_and(|md| now.dev() != md.dev() || now.ino() != md.ino()) || now.file_type().is_block_device() {
        return Err(refuse("it changed while iolab opened it".into()));
    }
    if now.is_file() {
        f.set_len(0).map_err(cannot)?;
    }
    Ok(f)
}

/// Write `bytes` to `path` through [`create_output`].
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut f = create_output(path)?;
    f.write_all(bytes)
        .and_then(|_| f.flush())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A sticky world-writable directory, like /tmp.
    fn shared() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        d
    }

    fn lchown(p: &Path, uid: u32) {
        std::os::unix::fs::lchown(p, Some(uid), Some(uid)).unwrap();
    }

    fn root() -> bool {
        rustix::process::geteuid().is_root()
    }

    #[test]
    fn issue_16_read_text_refuses_what_is_not_a_file() {
        for (p, kind) in [("/dev/zero", "a character device"), ("/", "a directory")] {
            let e = read_text(Path::new(p), "the document").unwrap_err();
            assert!(e.contains(kind) && e.contains(p), "{e}");
        }
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("bin");
        std::fs::write(&bin, [b'{', 0xff]).unwrap();
        assert!(read_text(&bin, "x").unwrap_err().contains("not UTF-8"));
        let ok = d.path().join("ok");
        std::fs::write(&ok, "{}").unwrap();
        assert_eq!(read_text(&ok, "x").unwrap(), "{}");
    }

    #[test]
    fn issue_16_output_never_follows_a_link_planted_by_another_user() {
        if !root() {
            return; // lchown to another user needs root
        }
        let d = shared();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = d.path().join("out.json");
        symlink(&victim, &link).unwrap();
        lchown(&link, 65534);
        let e = create_output(&link).unwrap_err();
        assert!(e.contains("symbolic link owned by another user (uid 65534)"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // A dangling planted link: nothing is created where it points.
        let gone = d.path().join("gone");
        let dangling = d.path().join("new.json");
        symlink(&gone, &dangling).unwrap();
        lchown(&dangling, 65534);
        assert!(create_output(&dangling).is_err());
        assert!(!gone.exists());
        // The user's own link is followed, dangling or not.
        let mine = d.path().join("mine.json");
        symlink(&victim, &mine).unwrap();
        write_output(&mine, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "new");
        let later = d.path().join("later.json");
        symlink(d.path().join("made-later"), &later).unwrap();
        write_output(&later, b"x").unwrap();
        assert_eq!(std::fs::read_to_string(d.path().join("made-later")).unwrap(), "x");
        // Another user's file in a shared directory is not written into.
        let theirs = d.path().join("theirs.json");
        std::fs::write(&theirs, "theirs").unwrap();
        lchown(&theirs, 65534);
        assert!(create_output(&theirs).unwrap_err().contains("belongs to another user"));
        assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "theirs");
        // A new file, and one of ours that exists, are written (emptied first).
        let fresh = d.path().join("fresh.json");
        write_output(&fresh, b"12345").unwrap();
        write_output(&fresh, b"ab").unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "ab");
    }

    #[test]
    fn issue_16_create_new_opens_nothing_that_exists() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = d.path().join("x");
        symlink(&victim, &link).unwrap();
        assert_eq!(create_new(&link, 0o600).unwrap_err().kind(), ErrorKind::AlreadyExists);
        let dangling = d.path().join("y");
        symlink(d.path().join("nothing"), &dangling).unwrap();
        assert_eq!(create_new(&dangling, 0o600).unwrap_err().kind(), ErrorKind::AlreadyExists);
        assert!(!d.path().join("nothing").exists());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn issue_16_output_to_a_block_device_is_refused() {
        // Any block device node will do; none is opened.
        let Some(dev) = ["/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1"]
            .into_iter()
            .map(Path::new)
            .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()))
        else {
            return;
        };
        assert!(create_output(dev).unwrap_err().contains("block device"));
    }
}
