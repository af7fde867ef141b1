//! The worker: the child process that does all GPU work, behind a JSON-lines protocol. The
//! only code that touches `cuda/` and the trace instrumentation.

pub mod clocks;
pub mod compile;
mod copy_peak;
pub mod device_compare;
mod disk_cache;
pub mod fake;
pub mod gpu_turn;
pub mod hostdata;
pub mod interpreted;
pub mod kept;
pub mod l2;
pub mod launch;
pub mod measure;
pub mod module_state;
pub mod noise;
pub mod outputs;
pub mod runner;
pub mod sass;
pub mod server;
pub mod sgemm_ref;
pub mod textures;
pub mod timing;
pub mod tools;
pub mod traced;
pub mod transfer;
pub mod turn_queue;
pub mod turns;
pub mod variant;

/// Where a request's replies go, one at a time, as they come.
pub type Sink<'a> = &'a mut dyn FnMut(crate::model::protocol::Reply);
