//! What the unit tests of summary, and of the stages that read its reports,
//! share: synthetic reports ([`fixtures`]).

pub(crate) mod fixtures;
