//! The backup file of a capacity probe that must not destroy data: every
//! block the probe overwrites, saved before the round that writes it, so a
//! crash, a power cut or `kill -9` loses nothing (`iolab capacity
//! --restore FILE` writes it back).
//!
//! # Format (version 1)
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | [`MAGIC`], the ASCII text `iolabCB1` |
//! | 8..12 | `H`: the header's length, little-endian `u32` |
//! | 12..12+H | the header, JSON ([`BackupHeader`]: device identity, node, size, pass, …) |
//! | then | records of [`RECORD`] bytes each, in the order the blocks were saved |
//!
//! A record: the block's byte offset (`u64` LE), flags (`u64` LE; bit 0:
//! the block could not be read, its data is zeros and is not restored),
//! the block's [`BLOCK`] bytes, then a checksum (`u64` LE, [`record_sum`]
//! of the rest of the record).
//!
//! # Why a torn last record is safe to ignore
//!
//! The probe appends a round's records, then `fsync`s the file, and only
//! then writes to the device. A record cut short (or failing its checksum)
//! at the end of the file was being appended when the process died, so the
//! round that would have overwritten its block never started: the device
//! still holds that block's data. A bad record followed by good ones is
//! damage to the file, and the file is refused.
//!
//! # Restore order
//!
//! Blocks go back in the reverse order of saving (see
//! [`crate::verify::Backup`]: on a fake, two offsets sharing storage both
//! saved the block's content, and only the first one saved read it before
//! the probe wrote there; written last, its copy is what stays).

use crate::io::rng::splitmix64;
use crate::verify::BLOCK;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The file's first 8 bytes: `iolabCB1` (capacity backup, format 1).
pub const MAGIC: &[u8; 8] = b"iolabCB1";
/// Bytes per record: offset, flags, the block, checksum.
pub const RECORD: usize = 8 + 8 + BLOCK + 8;
/// Record flag: the block could not be read (nothing to restore).
const UNREADABLE: u64 = 1;
/// The largest header accepted (a header is a few hundred bytes).
const MAX_HEADER: u32 = 1 << 16;
/// Backup files are named `capacity-*.bak`.
const PREFIX: &str = "capacity-";
const SUFFIX: &str = ".bak";

/// What the backup belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupHeader {
    /// The device's identity ([`crate::summary::verify::device_identity`]), when it has one.
    pub device: Option<String>,
    /// The device node the probe opened.
    pub path: String,
    /// The device's size in bytes.
    pub size: u64,
    /// The probe's pass: blocks stamped with it are the probe's, not the device's data.
    pub pass: u64,
    pub created: String,
    pub iolab_version: String,
    pub pid: u32,
}

impl BackupHeader {
    /// Whether this backup was saved from the device `device` (identity) of `size` bytes at `path`:
    /// the identity when both have one, else the node; the size always.
    pub fn is_for(&self, device: Option<&str>, path: &str, size: u64) -> bool {
        let same = match (self.device.as_deref(), device) {
            (Some(a), Some(b)) => a == b,
            _ => self.path == path,
        };
        same && self.size == size
    }
}

/// Whether a device identity ([`crate::summary::verify::device_identity`])
/// names one device only: a serial number, a WWID, or a loop device's
/// backing file. A model and size (`model:`) is shared by two identical
/// sticks without a serial number, and a node and size (`dev:`) by any
/// device that takes that node.
pub fn names_one_device(identity: &str) -> bool {
    ["serial:", "wwid:", "loop:"].iter().any(|p| identity.starts_with(p))
}

/// Why a backup may not be written to a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotItsDevice {
    /// Another identity, or another size.
    Other,
    /// The same weak identity (model and size, node and size) or none, so
    /// the device may be another one like it: needs the node the backup
    /// was saved from (`same_node`) and `--force`.
    Unsure { same_node: bool },
}

impl BackupHeader {
    /// May this backup be written to the device `device` (identity) of
    /// `size` bytes at `path`? The size must match. An identity that names
    /// one device ([`names_one_device`]) decides alone (the device may have
    /// another node now). A weaker one, or none, is not enough: only the
    /// node the backup was saved from, with `force`.
    pub fn restore_to(&self, device: Option<&str>, path: &str, size: u64, force: bool) -> Result<(), NotItsDevice> {
        if self.size != size {
            return Err(NotItsDevice::Other);
        }
        let same_node = self.path == path;
        match (self.device.as_deref(), device) {
            (Some(a), Some(b)) if a != b => Err(NotItsDevice::Other),
            (Some(a), Some(_)) if names_one_device(a) => Ok(()),
            // The same weak identity: another device like it may be there.
            (Some(_), Some(_)) if same_node && force => Ok(()),
            (Some(_), Some(_)) => Err(NotItsDevice::Unsure { same_node }),
            // An identity missing on either side: the node, and --force.
            _ if same_node && force => Ok(()),
            _ if same_node => Err(NotItsDevice::Unsure { same_node }),
            _ => Err(NotItsDevice::Other),
        }
    }
}

/// One saved block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub offset: u64,
    /// `None`: the block could not be read before the probe wrote it.
    pub data: Option<Vec<u8>>,
}

/// The checksum of a record's offset, flags and block: SplitMix64's
/// finaliser chained over the words (not a CRC: no crate, and it need
/// only catch a torn or damaged record, not an adversary).
pub fn record_sum(offset: u64, flags: u64, data: &[u8]) -> u64 {
    let mut h = splitmix64(0x6361_7061_6369_7479 ^ offset);
    h = splitmix64(h ^ flags);
    for w in data.chunks_exact(8) {
        h = splitmix64(h ^ u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    h
}

fn encode(offset: u64, data: Option<&[u8]>) -> Vec<u8> {
    static ZEROS: [u8; BLOCK] = [0; BLOCK];
    let (flags, block) = match data {
        Some(d) => (0, d),
        None => (UNREADABLE, &ZEROS[..]),
    };
    assert_eq!(block.len(), BLOCK, "a record holds one block");
    let mut r = Vec::with_capacity(RECORD);
    r.extend_from_slice(&offset.to_le_bytes());
    r.extend_from_slice(&flags.to_le_bytes());
    r.extend_from_slice(block);
    r.extend_from_slice(&record_sum(offset, flags, block).to_le_bytes());
    r
}

/// A backup file being written.
pub struct Writer {
    file: File,
    path: PathBuf,
    pending: Vec<u8>,
    pub records: u64,
}

impl Writer {
    /// Create the file in `dir` (made if missing, 0700) as
    /// `capacity-<device node name>-<time>-<pid>.bak`, mode 0600 (it holds
    /// the device's data), write the header, and make the file and its
    /// directory entry durable.
    pub fn create(dir: &Path, header: &BackupHeader) -> io::Result<Writer> {
        if !dir.is_dir() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
        }
        // Said in messages and kept in the report: absolute, whatever the working directory.
        let dir = &dir.canonicalize()?;
        let node = Path::new(&header.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stamp: String = header.created.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        let path = dir.join(format!("{PREFIX}{node}-{stamp}-{}{SUFFIX}", header.pid));
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)?;
        let json = serde_json::to_vec(header).expect("the header serialises");
        let mut head = Vec::with_capacity(12 + json.len());
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&(json.len() as u32).to_le_bytes());
        head.extend_from_slice(&json);
        file.write_all(&head)?;
        file.sync_all()?;
        File::open(dir)?.sync_all()?;
        Ok(Writer {
            file,
            path,
            pending: Vec::new(),
            records: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Queue one block (`None`: it could not be read); [`Writer::sync`] writes.
    pub fn append(&mut self, offset: u64, data: Option<&[u8]>) {
        self.pending.extend_from_slice(&encode(offset, data));
        self.records += 1;
    }

    /// Write what was appended and make it durable: after this returns,
    /// the blocks may be overwritten.
    pub fn sync(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            self.file.write_all(&self.pending)?;
            self.pending.clear();
        }
        self.file.sync_data()
    }
}

/// A backup file read back.
#[derive(Clone, Debug)]
pub struct BackupFile {
    pub header: BackupHeader,
    /// In the order they were saved.
    pub records: Vec<Record>,
    /// Bytes of a torn last record that were ignored (see the module documentation).
    pub torn_bytes: u64,
}

fn bad(path: &Path, why: impl std::fmt::Display) -> String {
    format!("{} is not a usable iolab capacity backup: {why}", path.display())
}

/// Read the header of the file at `path`.
fn read_header(f: &mut File, path: &Path) -> Result<BackupHeader, String> {
    let mut head = [0u8; 12];
    f.read_exact(&mut head)
        .map_err(|e| bad(path, format!("cannot read its header ({e})")))?;
    if &head[..8] != MAGIC {
        return Err(bad(path, "it does not start with iolabCB1"));
    }
    let n = u32::from_le_bytes(head[8..12].try_into().expect("4 bytes"));
    if n > MAX_HEADER {
        return Err(bad(path, format!("its header claims {n} bytes")));
    }
    let mut json = vec![0u8; n as usize];
    f.read_exact(&mut json)
        .map_err(|e| bad(path, format!("its header is cut short ({e})")))?;
    serde_json::from_slice(&json).map_err(|e| bad(path, format!("its header does not parse ({e})")))
}

/// Read a backup file: its header and every whole record (a torn last one is ignored).
pub fn read(path: &Path) -> Result<BackupFile, String> {
    let mut f = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let header = read_header(&mut f, path)?;
    let mut rest = Vec::new();
    f.read_to_end(&mut rest)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut records = Vec::with_capacity(rest.len() / RECORD);
    let mut torn_bytes = 0;
    let mut at = 0;
    while at < rest.len() {
        let r = &rest[at..(at + RECORD).min(rest.len())];
        let last = at + RECORD >= rest.len();
        let word = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().expect("8 bytes"));
        let whole = r.len() == RECORD;
        let valid = whole && {
            let (offset, flags) = (word(0), word(8));
            record_sum(offset, flags, &r[16..16 + BLOCK]) == word(16 + BLOCK) && flags & !UNREADABLE == 0
        };
        if !valid {
            if last {
                torn_bytes = r.len() as u64;
                break;
            }
            return Err(bad(
                path,
                format!("record {} (byte {}) is damaged and others follow it", records.len(), at),
            ));
        }
        let (offset, flags) = (word(0), word(8));
        records.push(Record {
            offset,
            data: (flags & UNREADABLE == 0).then(|| r[16..16 + BLOCK].to_vec()),
        });
        at += RECORD;
    }
    Ok(BackupFile {
        header,
        records,
        torn_bytes,
    })
}

/// The backup files in `dir` left for the device `device` (identity) of
/// `size` bytes at `path`: a probe that was killed before it restored.
pub fn pending_for(dir: &Path, device: Option<&str>, path: &str, size: u64) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(SUFFIX))
        })
        .filter(|p| {
            File::open(p)
                .ok()
                .and_then(|mut f| read_header(&mut f, p).ok())
                .is_some_and(|h| h.is_for(device, path, size))
        })
        .collect();
    found.sort();
    found
}

/// Where the backup file goes when `--backup-dir` names no place: beside
/// the results store `db`, or with an in-memory store (or one without a
/// directory) `$XDG_STATE_HOME/iolab`, else `~/.local/state/iolab`, else
/// `/var/tmp/iolab`. `env` reads the environment.
pub fn default_dir(db: &Path, env: impl Fn(&str) -> Option<std::ffi::OsString>) -> PathBuf {
    if db.as_os_str() != ":memory:"
        && let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty())
    {
        return dir.to_path_buf();
    }
    let var = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_STATE_HOME")
        .or_else(|| var("HOME").map(|h| h.join(".local/state")))
        .unwrap_or_else(|| "/var/tmp".into())
        .join("iolab")
}

/// Remove the backup file and make its removal durable.
pub fn remove(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_backups_go_beside_the_store_else_in_the_state_dir() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| std::ffi::OsString::from(v))
        };
        let none = env(&[]);
        assert_eq!(
            default_dir(Path::new("/home/u/.local/share/iolab/results.db"), none),
            Path::new("/home/u/.local/share/iolab")
        );
        let both = env(&[("XDG_STATE_HOME", "/st"), ("HOME", "/home/u")]);
        assert_eq!(default_dir(Path::new(":memory:"), both), Path::new("/st/iolab"));
        // A store named without a directory has none to be beside.
        assert_eq!(default_dir(Path::new("results.db"), both), Path::new("/st/iolab"));
        let home = env(&[("XDG_STATE_HOME", ""), ("HOME", "/home/u")]);
        assert_eq!(default_dir(Path::new(":memory:"), home), Path::new("/home/u/.local/state/iolab"));
        assert_eq!(default_dir(Path::new(":memory:"), none), Path::new("/var/tmp/iolab"));
    }

    fn header(device: Option<&str>) -> BackupHeader {
        BackupHeader {
            device: device.map(Into::into),
            path: "/dev/loop7".into(),
            size: 4 << 30,
            pass: 0x1234,
            created: "2026-11-22T18:31:20Z".into(),
            iolab_version: "0.2.0".into(),
            pid: 42,
        }
    }

    fn block(seed: u8) -> Vec<u8> {
        (0..BLOCK).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    fn write(dir: &Path, h: &BackupHeader, recs: &[(u64, Option<Vec<u8>>)]) -> PathBuf {
        let mut w = Writer::create(dir, h).unwrap();
        for (o, d) in recs {
            w.append(*o, d.as_deref());
        }
        w.sync().unwrap();
        w.path().to_path_buf()
    }

    #[test]
    fn round_trip() {
        let t = tempfile::tempdir().unwrap();
        let h = header(Some("loop:/tmp/x.img:4294967296"));
        let recs = vec![(0, Some(block(1))), (1 << 30, None), (4096, Some(block(2)))];
        let p = write(&t.path().join("sub"), &h, &recs);
        assert!(
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("capacity-loop7-20261122T183120Z-42")
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(
            std::fs::metadata(&p).unwrap().len(),
            12 + serde_json::to_vec(&h).unwrap().len() as u64 + 3 * RECORD as u64
        );
        let b = read(&p).unwrap();
        assert_eq!(b.header, h);
        assert_eq!(b.torn_bytes, 0);
        let got: Vec<(u64, Option<Vec<u8>>)> = b.records.into_iter().map(|r| (r.offset, r.data)).collect();
        assert_eq!(got, recs);
    }

    #[test]
    fn appends_are_written_by_sync_only() {
        let t = tempfile::tempdir().unwrap();
        let mut w = Writer::create(t.path(), &header(None)).unwrap();
        w.append(0, Some(&block(3)));
        assert!(read(w.path()).unwrap().records.is_empty());
        w.sync().unwrap();
        assert_eq!(read(w.path()).unwrap().records.len(), 1);
    }

    #[test]
    fn a_torn_last_record_is_ignored_a_damaged_middle_one_refused() {
        let t = tempfile::tempdir().unwrap();
        let recs = vec![(0, Some(block(1))), (8192, Some(block(2)))];
        let p = write(t.path(), &header(None), &recs);
        let len = std::fs::metadata(&p).unwrap().len();
        // Cut into the last record: it is ignored.
        let f = OpenOptions::new().write(true).open(&p).unwrap();
        f.set_len(len - 100).unwrap();
        let b = read(&p).unwrap();
        assert_eq!(b.records.len(), 1);
        assert_eq!(b.torn_bytes, RECORD as u64 - 100);
        // A flipped byte in the first of two whole records: refused.
        let mut other = header(Some("other"));
        other.pid = 43;
        let p = write(t.path(), &other, &recs);
        let mut bytes = std::fs::read(&p).unwrap();
        let first = bytes.len() - 2 * RECORD + 20;
        bytes[first] ^= 1;
        std::fs::write(&p, &bytes).unwrap();
        let e = read(&p).unwrap_err();
        assert!(e.contains("record 0") && e.contains("damaged"), "{e}");
    }

    #[test]
    fn not_a_backup_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("x.bak");
        std::fs::write(&p, b"iolabVB1 something else entirely").unwrap();
        assert!(read(&p).unwrap_err().contains("iolabCB1"));
        std::fs::write(&p, b"iolab").unwrap();
        assert!(read(&p).unwrap_err().contains("header"));
    }

    #[test]
    fn a_backup_names_its_device_and_size() {
        let h = header(Some("serial:ABC"));
        assert!(h.is_for(Some("serial:ABC"), "/dev/sdz", 4 << 30));
        // Another device, or the same one with another size: not this backup's.
        assert!(!h.is_for(Some("serial:XYZ"), "/dev/loop7", 4 << 30));
        assert!(!h.is_for(Some("serial:ABC"), "/dev/loop7", 1 << 30));
        // Without an identity on either side, the node decides.
        let bare = header(None);
        assert!(bare.is_for(Some("serial:ABC"), "/dev/loop7", 4 << 30));
        assert!(!bare.is_for(None, "/dev/loop8", 4 << 30));
    }

    /// Two identical sticks without a serial number share `model:MODEL:SIZE`:
    /// the identity alone must not send one's backup to the other.
    #[test]
    fn a_model_and_size_alone_do_not_choose_the_device_to_restore() {
        let size = 4 << 30;
        let h = header(Some("model:Cruzer Blade:4294967296"));
        let id = Some("model:Cruzer Blade:4294967296");
        // The other stick, at another node: never, --force or not.
        for force in [false, true] {
            assert_eq!(
                h.restore_to(id, "/dev/sdc", size, force),
                Err(NotItsDevice::Unsure { same_node: false })
            );
        }
        // The same node: only with --force (another stick may have taken it).
        assert_eq!(
            h.restore_to(id, "/dev/loop7", size, false),
            Err(NotItsDevice::Unsure { same_node: true })
        );
        assert_eq!(h.restore_to(id, "/dev/loop7", size, true), Ok(()));
        // A node and size is no better; no identity at all neither.
        let h = header(Some("dev:/dev/loop7:4294967296"));
        assert!(h.restore_to(Some("dev:/dev/loop7:4294967296"), "/dev/loop7", size, false).is_err());
        assert_eq!(h.restore_to(Some("dev:/dev/loop7:4294967296"), "/dev/loop7", size, true), Ok(()));
        let bare = header(None);
        assert_eq!(
            bare.restore_to(Some("serial:ABC"), "/dev/loop7", size, false),
            Err(NotItsDevice::Unsure { same_node: true })
        );
        assert_eq!(bare.restore_to(None, "/dev/loop8", size, true), Err(NotItsDevice::Other));
        // A serial number, a WWID or a loop device's backing file names one device, at any node.
        for id in ["serial:ABC", "wwid:naa.5000c500a1b2c3d4", "loop:/a.img:4294967296"] {
            let h = header(Some(id));
            assert_eq!(h.restore_to(Some(id), "/dev/sdq", size, false), Ok(()), "{id}");
            assert_eq!(h.restore_to(Some(id), "/dev/sdq", 1 << 30, true), Err(NotItsDevice::Other));
            assert_eq!(h.restore_to(Some("serial:XYZ"), "/dev/loop7", size, true), Err(NotItsDevice::Other));
        }
    }

    #[test]
    fn pending_backups_of_a_device_are_found() {
        let t = tempfile::tempdir().unwrap();
        let mine = write(t.path(), &header(Some("loop:/a.img:4294967296")), &[(0, Some(block(1)))]);
        let mut other = header(Some("loop:/b.img:4294967296"));
        other.pid = 43;
        write(t.path(), &other, &[]);
        std::fs::write(t.path().join("capacity-junk.bak"), b"junk").unwrap();
        assert_eq!(
            pending_for(t.path(), Some("loop:/a.img:4294967296"), "/dev/loop9", 4 << 30),
            vec![mine.clone()]
        );
        assert!(pending_for(t.path(), Some("loop:/c.img:4294967296"), "/dev/loop7", 4 << 30).is_empty());
        remove(&mine).unwrap();
        assert!(pending_for(t.path(), Some("loop:/a.img:4294967296"), "/dev/loop9", 4 << 30).is_empty());
    }
}
