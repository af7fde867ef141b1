//! The worker protocol: one JSON object per line, requests on the worker's stdin, replies on
//! its stdout. The worker is a child process so that a kernel that faults or hangs takes only
//! the worker down.

use crate::model::Lesson;
use crate::model::results::{DeviceInfo, Peak, PtxasReport, VariantResult};
use serde::{Deserialize, Serialize};

/// The architecture kernels are compiled for when no GPU says otherwise: the H100 the
/// recordings come from.
pub const FALLBACK_ARCH: &str = "sm_90";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunOptions {
    /// Variants to run; empty means all. The reference runs regardless (for the check).
    pub variants: Vec<String>,
    /// Measure times (false: compile and check only).
    pub time: bool,
    /// Trace memory accesses.
    pub trace: bool,
    /// Override the lesson's sampled block count (0: the lesson's).
    pub trace_blocks: u32,
    /// Timing budget per variant.
    pub max_runs: u32,
    pub max_ms: f64,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            variants: Vec::new(),
            time: true,
            trace: true,
            trace_blocks: 0,
            max_runs: 200,
            max_ms: 1500.0,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// What the worker can do here: the GPU (if any) and NVRTC.
    Hello { device: u32 },
    /// Compile every variant and report ptxas figures; no GPU needed.
    Compile { lesson: Box<Lesson>, arch: String },
    /// Compile, check, time and trace on the GPU.
    Run {
        lesson: Box<Lesson>,
        options: RunOptions,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    Hello {
        device: Option<DeviceInfo>,
        /// Why there is no GPU, in words.
        no_gpu: Option<String>,
        /// NVRTC version, or why it is missing.
        nvrtc: Result<String, String>,
    },
    /// What the worker is doing now; also proves it is alive.
    Stage {
        variant: String,
        stage: String,
    },
    Peak {
        peak: Peak,
    },
    Compiled {
        variant: String,
        ptxas: Option<PtxasReport>,
        error: Option<String>,
    },
    Sample {
        variant: String,
        ms: f64,
    },
    Variant {
        result: Box<VariantResult>,
    },
    /// The request is finished.
    Done,
    /// A CUDA error that poisons the context (illegal address, launch failure): the worker
    /// exits after sending it, and the next request starts a fresh one.
    Fault {
        variant: Option<String>,
        message: String,
    },
    /// A request the worker could not do (no GPU, bad lesson); the worker stays up.
    Error {
        message: String,
    },
}
