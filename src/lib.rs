//! iolab: a storage test lab in one binary.
pub mod cli;
pub mod compare;
pub mod config;
pub mod deliver;
pub mod device;
pub mod error;
pub mod experiment;
pub mod import;
pub mod io;
pub mod judge;
pub mod measure;
pub mod paths;
pub mod plan;
pub mod progress;
pub mod render;
pub mod samples;
pub mod schema;
pub mod selftest;
pub mod signals;
pub mod store;
pub mod summary;
pub mod target;
#[doc(hidden)]
pub mod testknob;
pub mod units;
pub mod verify;
