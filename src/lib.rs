//! iolab: a storage test lab in one binary.
//!
//! Data flows plan → target → engine → samples → summary → render:
//! [`plan`] says what to run, [`target`] opens what to run it on (with
//! [`safety`] refusing to destroy data in use or unrecognised),
//! [`measure`] drives [`engine`]s through [`worker`] loops and collects
//! [`samples`], [`summary`] turns them into figures and warnings, and
//! [`render`] prints them. [`cli`] wires it together for the binary.

pub mod apps;
pub mod buffers;
pub mod cli;
pub mod compare;
pub mod cpu;
pub mod device;
pub mod engine;
pub mod error;
pub mod import;
pub mod measure;
pub mod plan;
pub mod render;
pub mod rng;
pub mod safety;
pub mod samples;
pub mod scale;
pub mod scan;
pub mod signals;
pub mod steady;
pub mod store;
pub mod summary;
pub mod target;
pub mod units;
pub mod worker;
