//! The harnesses' own self-tests, independent of iolab: if one fails, a
//! failure elsewhere is not iolab's fault. The emulated devices and the
//! blkio throttle (`emu`), cross-checked with fio (`fio_check`); the FUSE
//! file with a known rate profile (`slowfile`); the faulty device that lies
//! about its capacity, fails, flips or loses (`faultdev`); fio hosts in
//! network namespaces (`netns`); a live ZFS, zfs-fuse over throttled loop
//! devices (`zfs`); and the headless browser the report's tests drive
//! (`browser`). Each also proves it leaves nothing behind.

mod browser;
mod cachedev;
mod emu;
mod faultdev;
mod fio_check;
mod netns;
mod slowfile;
mod zfs;
