//! What a fault during a run says: one line that names the target, what
//! iolab was doing (the job, the offset, the direction), the errno by name,
//! and for a full filesystem how much room was needed and was free.
//! The sentences are pure functions of those facts, tested below.

use super::{Kind, Target};
use crate::base::units::{fmt_bs, fmt_bytes, fmt_duration};
use crate::io::engine::Dir;
use crate::io::errno::{describe, is_no_space};
use std::io;
use std::time::Duration;

fn dir_word(d: Dir) -> &'static str {
    match d {
        Dir::Read => "read",
        Dir::Write => "write",
    }
}

/// The room a full filesystem needed, for the end of the message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Room {
    /// iolab's test file of `size` bytes, allocated in full while `free_before` were free.
    TestFile { size: u64, free_before: u64 },
    /// An existing file whose `span` bytes are written; `free_now` free at the failure.
    File { span: u64, free_now: Option<u64> },
}

/// `I/O error on TARGET in "JOB" at offset N (read of 1M): Input/output error (EIO)`,
/// and for a full filesystem what it needed.
pub(crate) fn io_failure(target: &str, job: &str, dir: Dir, offset: u64, len: u32, err: &io::Error, room: Option<Room>) -> String {
    let what = format!("in \"{job}\" at offset {offset} ({} of {})", dir_word(dir), fmt_bs(len as u64));
    if !is_no_space(err.raw_os_error()) {
        return format!("I/O error on {target} {what}: {}", describe(err));
    }
    let need = match room {
        Some(Room::TestFile { size, free_before }) => format!(
            " (the {} test file was allocated in full before the run, with {} free; rewriting it on a copy-on-write filesystem needs up to {} more, and {} were left: another writer or the filesystem's copies took the rest)",
            fmt_bytes(size),
            fmt_bytes(free_before),
            fmt_bytes(size),
            fmt_bytes(free_before.saturating_sub(size))
        ),
        Some(Room::File { span, free_now }) => format!(
            " (writing {} of it needs up to {} of free space where the file has holes or its filesystem copies on write{})",
            fmt_bytes(span),
            fmt_bytes(span),
            free_now.map(|f| format!("; {} free now", fmt_bytes(f))).unwrap_or_default()
        ),
        None => String::new(),
    };
    format!("no space left on {target} {what}: {}{need}", describe(err))
}

/// Prefilling iolab's test file in `dir` failed at `offset`.
pub(crate) fn prefill_failure(dir: &str, size: u64, offset: u64, err: &io::Error, free_before: Option<u64>) -> String {
    if is_no_space(err.raw_os_error()) {
        let free = free_before
            .map(|f| format!(", {} were free when iolab checked", fmt_bytes(f)))
            .unwrap_or_default();
        return format!(
            "not enough space in {dir}: prefilling the {} test file stopped at offset {offset}: {} ({} needed{free}: another writer or the filesystem's own overhead took the rest; use --size)",
            fmt_bytes(size),
            describe(err),
            fmt_bytes(size)
        );
    }
    format!("I/O error on {dir} prefilling the test file at offset {offset}: {}", describe(err))
}

/// Nothing completed for `still` while `doing`.
pub(crate) fn stalled(target: &str, doing: &str, still: Duration, fuse_connection: Option<u32>) -> String {
    let abort = fuse_connection
        .map(|n| format!(" (this FUSE filesystem's connection is aborted with: echo 1 > /sys/fs/fuse/connections/{n}/abort)"))
        .unwrap_or_default();
    format!(
        "no I/O completed on {target} for {} while {doing}: the target stopped answering (a hung device, a dead network filesystem or FUSE daemon); iolab can only exit once the kernel lets go of the I/O in flight{abort}",
        fmt_duration(Duration::from_secs(still.as_secs().max(1)))
    )
}

impl Target {
    /// The error of an I/O that failed in `job`.
    pub fn io_failure(&self, job: &str, dir: Dir, offset: u64, len: u32, err: &io::Error) -> String {
        let room = match (self.info.kind, self.free_before) {
            (Kind::Directory, Some(free_before)) => Some(Room::TestFile {
                size: self.span(),
                free_before,
            }),
            (Kind::File, _) => Some(Room::File {
                span: self.span(),
                free_now: rustix::fs::statvfs(self.info.path.as_str()).ok().map(|v| v.f_bavail * v.f_frsize),
            }),
            _ => None,
        };
        io_failure(&self.info.path, job, dir, offset, len, err, room)
    }

    /// The error of a flush (`fdatasync`) that failed in `job`.
    pub fn flush_failure(&self, job: &str, err: &io::Error) -> String {
        let word = if is_no_space(err.raw_os_error()) {
            "no space left on"
        } else {
            "I/O error on"
        };
        format!("{word} {} in \"{job}\" flushing written data: {}", self.info.path, describe(err))
    }

    /// The error of a target that stopped answering while iolab was `doing` something.
    pub fn stalled(&self, doing: &str, still: Duration) -> crate::base::error::Error {
        let fuse = self
            .info
            .filesystem
            .as_ref()
            .filter(|f| f.fstype == "fuse" || f.fstype.starts_with("fuse."))
            .filter(|f| f.dev.0 == 0)
            .map(|f| f.dev.1);
        crate::base::error::failed(stalled(&self.info.path, doing, still, fuse))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_the_target_the_job_the_offset_and_the_errno() {
        let eio = io::Error::from_raw_os_error(libc::EIO);
        assert_eq!(
            io_failure("/dev/loop3", "SEQ1M Q8T1 read", Dir::Read, 8388608, 1 << 20, &eio, None),
            "I/O error on /dev/loop3 in \"SEQ1M Q8T1 read\" at offset 8388608 (read of 1M): Input/output error (EIO)"
        );
        let short = io::Error::new(io::ErrorKind::UnexpectedEof, "short transfer: 512 of 4096 bytes");
        assert!(io_failure("/f", "j", Dir::Write, 0, 4096, &short, None).ends_with("(write of 4K): short transfer: 512 of 4096 bytes"));
    }

    #[test]
    fn a_full_filesystem_says_what_was_needed_and_free() {
        let nospc = io::Error::from_raw_os_error(libc::ENOSPC);
        let m = io_failure(
            "/mnt/b",
            "SEQ1M Q8T1 write",
            Dir::Write,
            5 << 20,
            1 << 20,
            &nospc,
            Some(Room::TestFile {
                size: 40 << 20,
                free_before: 44 << 20,
            }),
        );
        assert!(m.starts_with("no space left on /mnt/b in \"SEQ1M Q8T1 write\" at offset 5242880 (write of 1M): No space left on device (ENOSPC) (the 40.00 MiB test file"), "{m}");
        assert!(m.contains("needs up to 40.00 MiB more, and 4.00 MiB were left"), "{m}");
        let m = io_failure(
            "/f.img",
            "j",
            Dir::Write,
            0,
            4096,
            &nospc,
            Some(Room::File {
                span: 64 << 20,
                free_now: Some(0),
            }),
        );
        assert!(m.ends_with("writing 64.00 MiB of it needs up to 64.00 MiB of free space where the file has holes or its filesystem copies on write; 0 B free now)"), "{m}");
        let m = prefill_failure("/mnt/x", 30 << 20, 31326208, &nospc, Some(30 << 20));
        assert_eq!(
            m,
            "not enough space in /mnt/x: prefilling the 30.00 MiB test file stopped at offset 31326208: No space left on device (ENOSPC) (30.00 MiB needed, 30.00 MiB were free when iolab checked: another writer or the filesystem's own overhead took the rest; use --size)"
        );
        let m = prefill_failure("/mnt/x", 30 << 20, 4096, &io::Error::from_raw_os_error(libc::EIO), None);
        assert_eq!(
            m,
            "I/O error on /mnt/x prefilling the test file at offset 4096: Input/output error (EIO)"
        );
    }

    #[test]
    fn a_stall_says_how_long_and_how_to_free_a_fuse_connection() {
        let m = stalled("/mnt/f/disk.img", "reading in \"j\"", Duration::from_millis(30_200), Some(57));
        assert!(
            m.starts_with("no I/O completed on /mnt/f/disk.img for 30s while reading in \"j\": the target stopped answering"),
            "{m}"
        );
        assert!(
            m.ends_with("(this FUSE filesystem's connection is aborted with: echo 1 > /sys/fs/fuse/connections/57/abort)"),
            "{m}"
        );
        assert!(!stalled("/dev/sdb", "x", Duration::from_secs(30), None).contains("FUSE filesystem's"));
    }
}
