//! Steady state and write cliff detection (being written).
