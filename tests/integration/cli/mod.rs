//! The command line as a user meets it: arguments and their errors, what a
//! run prints and leaves behind (`usage`), the configuration file (`config`),
//! one convention for output formats (`output`), the results store
//! (`store`), the store of the invoking user under sudo (`sudo`), fio job
//! files (`fio_files`), the shell completions and man pages (`shell`), no
//! `flush_too_fast` on an honest device (`flush`), and verdicts that must not
//! rest on untrustworthy figures (`verdicts`).

mod config;
mod fio_files;
mod flush;
mod layouts;
mod output;
mod schema;
pub(crate) mod shell;
mod store;
mod sudo;
mod usage;
mod verdicts;
