//! The worker's turns on its GPU: each stretch of GPU work asks for one, and the client
//! hears the queue as it moves (`Reply::Queue`), so a learner whose run stalls behind
//! another's sees why.

use super::Sink;
use super::gpu_turn::{self, GpuTurn, Hold};
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

    /// The GPU's PCI address, where the driver gave it.
    pub fn bus(&self) -> Option<&str> {
        self.bus.as_deref()
    }

    fn file_name(&self) -> Option<String> {
        self.bus.as_ref().map(|b| b.replace(':', "-"))
    }

    /// List this worker among the GPU's gpulab users, once: as soon as it holds a context
    /// (whatever the driver does there is not another learner's noise), and at the latest
    /// before its first turn. The other workers' NVML watches see it listed well before
    /// its samples come, which is up to a second after it computed.
    pub fn register(&self) {
        if let Some(name) = self.file_name() {
            self.registered
                .get_or_init(|| turn_queue::register_user(&self.dir, &name).is_ok());
        }
    }

    /// This worker's turn for `job`'s work on `variant` (empty: the lesson's setup), held
    /// as `hold` says, telling the client where it waits. None when turns cannot be
    /// arranged (said as a stage): the work goes on, as on a GPU of its own.
    pub fn take(&self, (job, hold): (JobKind, Hold), variant: &str, send: Sink) -> Option<GpuTurn> {
        let bus = self.bus.as_deref()?;
        // Listed before it first computes, so nobody takes its work for noise.
        self.register();
        let taken = GpuTurn::take_held(&self.dir, bus, (job, hold), |ahead| {
            send(Reply::Queue {
                variant: variant.to_string(),
                ahead: ahead.to_vec(),
                waited_ms: 0.0,
            })
        });
        match taken {
            Ok(mut turn) => {
                turn.label(variant);
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

    /// The gpulab workers computing on this GPU (this one included), asked anew at each
    /// call: their work is in turns of its own, never inside another's timed runs. A
    /// closure of its own, for the thread that gathers NVML's samples (`worker::noise`).
    pub fn ours(&self) -> impl FnMut() -> Vec<u32> + Send + 'static {
        let dir = self.dir.clone();
        let name = self.file_name();
        move || {
            let mut pids = match &name {
                Some(name) => turn_queue::users(&dir, name),
                None => Vec::new(),
            };
            pids.push(std::process::id());
            pids
        }
    }
}
