//! (to be written)

pub mod ptxas;
