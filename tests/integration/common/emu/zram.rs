//! [`Zram`]: a zram device of our own (`hot_add`/`hot_remove`; zram0 is never touched),
//! with a marker file in `/dev/shm` so the sweeper can find it after a crash.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::blockdev::{BlockDev, dev_numbers, write_sysfs};
use super::names::unique_name;
use super::proc::retry;
use super::{SHM_DIR, ZRAM_CONTROL};

/// A zram device of our own. Drop: `reset`, then `hot_remove`.
/// A marker file in /dev/shm records the index so a crashed run's device can be swept.
pub struct Zram {
    index: u32,
    path: PathBuf,
    major: u32,
    minor: u32,
    size: u64,
    marker: PathBuf,
}

impl Zram {
    pub fn new(size: u64) -> Zram {
        assert!(
            Path::new(ZRAM_CONTROL).join("hot_add").exists(),
            "zram-control not available (modprobe zram?)"
        );
        let marker = Path::new(SHM_DIR).join(format!("{}.zram", unique_name("zram")));
        let idx_s =
            fs::read_to_string(Path::new(ZRAM_CONTROL).join("hot_add")).unwrap_or_else(|e| panic!("read {ZRAM_CONTROL}/hot_add: {e}"));
        let index: u32 = idx_s.trim().parse().unwrap_or_else(|e| panic!("hot_add returned {idx_s:?}: {e}"));
        assert_ne!(index, 0, "hot_add returned zram0, which is not ours");
        let mut z = Zram {
            index,
            path: PathBuf::from(format!("/dev/zram{index}")),
            major: 0,
            minor: 0,
            size,
            marker,
        };
        let _ = fs::write(&z.marker, format!("{index}\n"));
        write_sysfs(format!("/sys/block/zram{index}/disksize"), &size.to_string())
            .unwrap_or_else(|e| panic!("set zram{index} disksize: {e}"));
        if !retry(50, Duration::from_millis(20), || z.path.exists()) {
            panic!("{} did not appear", z.path.display());
        }
        (z.major, z.minor) = dev_numbers(&z.path);
        z
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

impl BlockDev for Zram {
    fn dev_path(&self) -> &Path {
        &self.path
    }
    fn dev_numbers(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

pub(super) fn zram_remove(index: u32) -> bool {
    let reset = format!("/sys/block/zram{index}/reset");
    let ok_reset = retry(50, Duration::from_millis(100), || write_sysfs(&reset, "1").is_ok());
    if !ok_reset {
        eprintln!("emu cleanup: could not reset zram{index} (busy?)");
    }
    let hr = Path::new(ZRAM_CONTROL).join("hot_remove");
    let ok = retry(50, Duration::from_millis(100), || write_sysfs(&hr, &index.to_string()).is_ok());
    if !ok {
        eprintln!("emu cleanup: could not hot_remove zram{index}");
    }
    ok
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Marker first: if we die halfway, the device leaks, but a sweeper never resets
        // an index that hot_add may already have handed to someone else.
        let _ = fs::remove_file(&self.marker);
        zram_remove(self.index);
    }
}
