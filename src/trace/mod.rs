//! Tracing: instrument a variant's PTX so every load and store logs its lane addresses, then
//! decode the log and summarise it per instruction.

pub mod analyze;
pub mod census;
pub mod cross_block;
pub mod decode;
pub mod handover;
pub mod instrument;
mod repeat;
pub mod sample;
mod site_acc;
pub mod stream;
