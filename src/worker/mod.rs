//! The worker: GPU work in a child process, behind a JSON-lines protocol.

pub mod client;
pub mod collect;
pub mod protocol;
pub mod runner;
pub mod server;
