//! Judgement: every rule that turns figures into a verdict or a warning,
//! and every threshold those rules use. Pure functions over figures; no I/O.

pub mod scale;
pub mod steady;
