//! util-linux's word on what a device carries: `wipefs --no-act --json
//! NODE`, which runs libblkid's probes for every filesystem, RAID, volume
//! manager, encryption and partition-table signature it knows (LUKS with its
//! secondary headers, BitLocker, APFS, bcache, VDO, Ceph, ...) and, unlike
//! `blkid -p`, lists every one it finds instead of giving up on two. It
//! reads only, and opens the device without `O_EXCL`, so it answers for a
//! mounted or held device too.
//!
//! [`crate::targets::safety`] takes this as the authority and keeps its own
//! magic numbers for what the probe misses (ZFS labels at the tail of an
//! exported pool whose start was wiped); a signature both find is named
//! once, in iolab's words ([`explained_by`]).
//!
//! The JSON (util-linux `misc-utils/wipefs.c`, since 2.29): an object with
//! `signatures`, an array of objects with `device`, `offset` (a string,
//! `0x438`), `type` (libblkid's name: `ext4`, `crypto_LUKS`, `gpt`,
//! `PMBR`, ...), `uuid` and `label`. Nothing found: an empty array (older
//! versions print nothing at all).

use crate::device::{Answer, Commands};
use std::path::Path;

/// One signature util-linux found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// libblkid's name for it (`crypto_LUKS`, `minix`, `gpt`).
    pub kind: String,
    /// Its byte offset on the device.
    pub offset: u64,
}

impl Found {
    /// `a crypto_LUKS signature at byte 16384`.
    pub fn describe(&self) -> String {
        let an = self.kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
        format!("{} {} signature at byte {}", if an { "an" } else { "a" }, self.kind, self.offset)
    }
}

/// Ask util-linux (`wipefs --no-act --json NODE`, run by `cmds`) what the
/// device node carries. `Err`: why it could not say, in words after
/// "wipefs" (`is not installed (not on PATH)`).
pub fn wipefs(cmds: &dyn Commands, node: &Path) -> Result<Vec<Found>, String> {
    let node = node.to_string_lossy();
    match cmds.ask("wipefs", &["--no-act", "--json", &node]) {
        Answer::Output(text) => parse_wipefs(&text),
        other => Err(other.failure().unwrap_or_default()),
    }
}

/// The signatures in `wipefs --json`'s output.
pub fn parse_wipefs(text: &str) -> Result<Vec<Found>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let bad = |why: &str| format!("printed output iolab cannot read ({why})");
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(&e.to_string()))?;
    let list = v
        .get("signatures")
        .and_then(|s| s.as_array())
        .ok_or_else(|| bad("no \"signatures\" array"))?;
    list.iter()
        .map(|s| {
            let kind = s
                .get("type")
                .and_then(|t| t.as_str())
                .ok_or_else(|| bad("a signature without a type"))?;
            let offset = s
                .get("offset")
                .and_then(|o| o.as_str())
                .ok_or_else(|| bad("a signature without an offset"))?;
            let offset = match offset.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => offset.parse(),
            }
            .map_err(|_| bad(&format!("offset {offset:?}")))?;
            Ok(Found {
                kind: kind.to_string(),
                offset,
            })
        })
        .collect()
}

/// Whether iolab's own check named the signature libblkid calls `kind`
/// (one of `own`, the names [`crate::targets::safety::detect`] gives), so
/// that it is said once.
pub fn explained_by(kind: &str, own: &[&str]) -> bool {
    // Each of iolab's names, and libblkid's names for the same thing.
    const SAME: [(&str, &[&str]); 16] = [
        ("a GPT partition table", &["gpt", "PMBR"]),
        ("a GPT partition table (backup header)", &["gpt"]),
        ("an MBR partition table", &["dos"]),
        ("a FAT filesystem", &["vfat", "msdos"]),
        ("an ext2/3/4 filesystem", &["ext2", "ext3", "ext4", "ext4dev", "jbd"]),
        ("an XFS filesystem", &["xfs", "xfs_external_log"]),
        ("a btrfs filesystem", &["btrfs"]),
        ("an NTFS filesystem", &["ntfs"]),
        ("an exFAT filesystem", &["exfat"]),
        ("an F2FS filesystem", &["f2fs"]),
        ("an ISO 9660 filesystem", &["iso9660"]),
        ("a LUKS encrypted volume", &["crypto_LUKS"]),
        ("a swap signature", &["swap", "swsuspend"]),
        ("an LVM physical volume", &["LVM2_member"]),
        ("an md RAID superblock", &["linux_raid_member"]),
        ("a ZFS pool label", &["zfs_member"]),
    ];
    own.iter()
        .any(|name| SAME.iter().any(|(n, kinds)| n == name && kinds.contains(&kind)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wipefs --no-act --json` of util-linux 2.38.1 on a loop device
    /// holding a LUKS2 secondary header at 16 KiB, then a minix filesystem.
    const LUKS2_SECONDARY: &str = "{\n   \"signatures\": [\n      {\n         \"device\": \"loop1\",\n         \"offset\": \"0x4000\",\n         \"type\": \"crypto_LUKS\",\n         \"uuid\": null,\n         \"label\": null\n      }\n   ]\n}\n";
    const TWO: &str = r#"{"signatures": [{"device":"loop1","offset":"0x438","type":"ext4","uuid":"21cf","label":null},
        {"device":"loop1","offset":"0x410","type":"minix","uuid":null,"label":null}]}"#;

    #[test]
    fn wipefs_json() {
        assert_eq!(
            parse_wipefs(LUKS2_SECONDARY),
            Ok(vec![Found {
                kind: "crypto_LUKS".into(),
                offset: 0x4000
            }])
        );
        let two = parse_wipefs(TWO).unwrap();
        assert_eq!(
            two.iter().map(Found::describe).collect::<Vec<_>>(),
            ["an ext4 signature at byte 1080", "a minix signature at byte 1040"]
        );
        assert_eq!(parse_wipefs("{\n   \"signatures\": [\n\n   ]\n}\n"), Ok(vec![]));
        assert_eq!(parse_wipefs(""), Ok(vec![]));
        assert!(
            parse_wipefs("wipefs: unrecognized option '--json'")
                .unwrap_err()
                .contains("cannot read")
        );
        assert!(parse_wipefs(r#"{"signatures":[{"type":"ext4","offset":"zz"}]}"#).is_err());
    }

    /// Fake answers for `wipefs`.
    struct Says(Answer);
    impl Commands for Says {
        fn run(&self, _: &str, _: &[&str]) -> Option<String> {
            self.0.clone().output()
        }
        fn ask(&self, program: &str, args: &[&str]) -> Answer {
            assert_eq!((program, args), ("wipefs", &["--no-act", "--json", "/dev/sdz"][..]));
            self.0.clone()
        }
    }

    #[test]
    fn wipefs_missing_failing_or_slow_is_an_error() {
        let node = Path::new("/dev/sdz");
        assert_eq!(
            wipefs(&Says(Answer::Missing), node),
            Err("is not installed (not on PATH)".to_string())
        );
        let failed = Answer::Failed {
            status: "exit status: 1".into(),
            stderr: "wipefs: error: /dev/sdz: probing initialization failed: Input/output error".into(),
        };
        assert!(wipefs(&Says(failed), node).unwrap_err().contains("Input/output error"));
        let slow = Answer::TimedOut(std::time::Duration::from_secs(5));
        assert_eq!(wipefs(&Says(slow), node), Err("did not answer within 5 s".to_string()));
        assert_eq!(wipefs(&Says(Answer::Output(LUKS2_SECONDARY.into())), node).unwrap().len(), 1);
    }

    #[test]
    fn own_names_explain_libblkids() {
        assert!(explained_by("ext4", &["an ext2/3/4 filesystem"]));
        assert!(explained_by("PMBR", &["a GPT partition table"]));
        assert!(!explained_by("crypto_LUKS", &["an ext2/3/4 filesystem"]));
        assert!(!explained_by("minix", &[]));
    }
}
