//! The worker's turns on its GPU: each stretch of GPU work asks for one, and the client
//! hears the queue as it moves (`Reply::Queue`), so a learner whose run stalls behind
//! another's sees why.

use super::Sink;
use super::gpu_turn::{self, GpuTurn};
use super::turn_queue;
use crate::model::protocol::{JobKind, Reply};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Turns on one GPU, in the shared turn folder.
pub struct Turns {
    dir: PathBuf,
    /// The GPU's PCI address; None: the driver would not say, and there are no turns.
    bus: Option<String>,
    /// Whether this worker is listed among the GPU's gpulab users (done at the first turn).
    registered: OnceLock<bool>,
}

impl Turns {
    /// Turns on the GPU at `bus` ("0000:17:00.0"), in `GPULAB_LOCK_DIR` or the default.
    pub fn new(bus: Option<String>) -> Turns {
        Turns {
            dir: gpu_turn::default_dir(),
            bus,
            registered: OnceLock::new(),
        }
    }

    fn file_name(&self) -> Option<String> {
        self.bus.as_ref().map(|b| b.replace(':', "-"))
    }

    /// This worker's turn for `job`'s work on `variant` (empty: the lesson's setup),
    /// telling the client where it waits. None when turns cannot be arranged (said as a
    /// stage): the work goes on, as on a GPU of its own.
    pub fn take(&self, job: JobKind, variant: &str, send: Sink) -> Option<GpuTurn> {
        let bus = self.bus.as_deref()?;
        let name = self.file_name()?;
        // Listed before it first computes, so nobody takes its work for noise.
        self.registered
            .get_or_init(|| turn_queue::register_user(&self.dir, &name).is_ok());
        let taken = GpuTurn::take(&self.dir, bus, job, |ahead| {
            send(Reply::Queue {
                variant: variant.to_string(),
                ahead: ahead.to_vec(),
                waited_ms: 0.0,
            })
        });
        match taken {
            Ok(turn) => {
                if let Some(w) = turn.waited() {
                    send(Reply::Queue {
                        variant: variant.to_string(),
                        ahead: Vec::new(),
                        waited_ms: w.as_secs_f64() * 1e3,
                    });
                }
                Some(turn)
            }
            Err(e) => {
                send(Reply::Stage {
                    variant: variant.to_string(),
                    stage: format!("timing without taking turns: {e}"),
                });
                None
            }
        }
    }

    /// The gpulab workers computing on this GPU (this one included): their work is in
    /// turns of its own, never inside another's timed runs.
    pub fn ours(&self) -> Vec<u32> {
        let mut pids = match self.file_name() {
            Some(name) => turn_queue::users(&self.dir, &name),
            None => Vec::new(),
        };
        pids.push(std::process::id());
        pids
    }
}
