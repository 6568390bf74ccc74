//! Ground truth: iolab run on emulated devices whose limits are known
//! (blkio-throttled loop devices and zram, ext4 and tmpfs on them, FUSE files
//! with a known rate profile or known faults, fio servers in network
//! namespaces), and every figure it reports held to that truth, mostly within
//! ±3%: jobs and suites (`accuracy`), sustained and buffered writes
//! (`sustained`), write cliffs (`cliff`), steady state (`steady`), scans
//! (`scan`), scaling over devices (`scale`), application runs (`apps`) and
//! which device did their work (`attribution`), fake capacity (`capacity`),
//! verify's findings (`verify`), whether a device keeps what a flush acknowledged (`flush`, against power cuts `flush_cut`, on zfs-fuse `flush_zfs`), a flush that lies named in a write job (`flush_finding`), `time --cold` on a live ZFS pool (`zfs_cold`), `iolab selftest` (`selftest`), `--engine fio`
//! (`fio_engine`), many hosts (`hosts`), a job's memory (`memory`), the
//! process CPU figure (`cpu_accounting`), the queue depth a job's device
//! had and the finding when it fell short (`depth`), `iolab info` on the real
//! stacks of this machine (`info`), and live zfs-fuse pools: info, reads
//! that are the disks' or labelled cached, the write model (`zfs`), and a
//! recordsize far above a job's block size (`zfs_hints`); sync writes made durable
//! one by one, and the sync suite's latency on a known flush cost (`sync`); `iolab layouts`' ratios
//! and verdicts (`layouts`), a host's limit told from a shared path
//! (`layouts_host`), and seed 002's table reproduced by `bench/seed002 --quick`
//! (`seed002`).

pub(crate) mod accuracy;
mod apps;
mod attribution;
mod capacity;
mod classes;
mod cliff;
mod cpu_accounting;
mod depth;
mod fio_engine;
mod flush;
mod flush_cut;
mod flush_finding;
mod flush_zfs;
mod hosts;
mod info;
mod layouts;
mod layouts_host;
mod memory;
mod scale;
mod scan;
mod seed002;
mod selftest;
mod steady;
mod sustained;
mod sync;
mod verify;
mod zfs;
mod zfs_cold;
mod zfs_hints;
