//! What verify's unit tests share: a simulated device ([`sim`]).

pub(crate) mod sim;
