//! iolab as it is shipped: `--version` (`version`), and the .deb built by
//! `scripts/package-deb`, installed with dpkg, used and removed (`deb`).

mod deb;
mod version;
