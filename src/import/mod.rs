//! Importing results of other tools into iolab's run document
//! ([`crate::summary::Report`]), so they can be stored and compared with
//! iolab's own runs.
//!
//! - [`parse_fio_json`]: fio 3.x `--output-format=json` / `json+` output
//!   (see [`fio`] for how each field is mapped and what fio does not record).

pub mod fio;

pub use fio::parse_fio_json;
