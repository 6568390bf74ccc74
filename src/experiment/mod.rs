//! The kinds of experiment iolab runs, each as ordinary jobs (or timed
//! phases) measured by [`crate::measure`].

pub mod apps;
pub mod scale;
pub mod scan;
pub mod time;
