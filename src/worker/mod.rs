//! The worker: the child process that does all GPU work, behind a JSON-lines protocol. The
//! only code that touches `cuda/` and the trace instrumentation.

pub mod hostdata;
pub mod runner;
pub mod server;
