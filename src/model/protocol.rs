//! The worker protocol: one JSON object per line, requests on the worker's stdin, replies on
//! its stdout. The worker is a child process so that a kernel that faults or hangs takes only
//! the worker down.

use crate::model::Lesson;
use crate::model::results::{DeviceInfo, Peak, PtxasReport, VariantResult};
use crate::model::sizes::CheckSizes;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The stage a worker names while it compiles a variant (`Reply::Stage`): the client
/// gives a compile longer silence than a running kernel.
pub const COMPILING: &str = "compiling";

/// How to get NVRTC and nvdisasm on a machine with no toolkit: both ship as Python wheels.
pub const PIP_HINT: &str = "pip install nvidia-cuda-nvrtc nvidia-cuda-nvdisasm";

/// How to get CUDA's headers (cuda_fp16.h, cuda/std/...) for NVRTC without a toolkit: the
/// runtime wheel carries CUDA's own, the CCCL wheel libcu++, CUB and Thrust.
pub const HEADERS_PIP_HINT: &str = "pip install nvidia-cuda-runtime nvidia-cuda-cccl";

/// The architecture kernels are compiled for when no GPU says otherwise: the H100 the
/// recordings come from.
pub const FALLBACK_ARCH: &str = "sm_90";

/// The environment variable through which the client tells every worker it starts which
/// GPU to open, so the number survives a restart.
pub const DEVICE_ENV: &str = "GPULAB_DEVICE";

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
    /// 0: the lesson's sample, every stride-th cluster from the first. Else the traced
    /// clusters are drawn by a hash of their index and this seed, anywhere in the grid: a
    /// kernel that behaves the taught way only where a sample usually looks (block 0, every
    /// stride-th block, all but a share of them) cannot know where the trace looks.
    /// Exercise checks draw one afresh per check, so that every variant of one grid is
    /// traced in the same blocks and their figures compare.
    #[serde(default)]
    pub sample_seed: u32,
    /// The most records a GPU trace may take before its sample shrinks to fewer whole
    /// clusters (0: as many as the GPU holds). The host's analysis of a trace takes about
    /// three seconds a million records: a check's wide sample at another size is kept
    /// to a budget rather than analysed for half a minute.
    #[serde(default)]
    pub trace_records: u32,
    /// On the CPU interpreter, a variant's run at the CPU size has its clocks read the
    /// block's steps; where its output came out right it runs there once more with them
    /// reading 7 times the steps, and is wrong if a figure it measures with a clock
    /// (cycles, ns) did not grow with them: a figure must be what the clock read
    /// (exercise checks).
    #[serde(default)]
    pub clock_checked: bool,
    /// The clock figures (measures by name) a check judges per access, each access at
    /// least one timed load: where `clock_checked` holds, a variant whose output came out
    /// right runs once more with every load on its timed lines holding its warp's clocks
    /// back by a fixed number of cycles, and is wrong if such a figure grew by less than
    /// that an access. A figure scaled by 7/8 grows with a faster clock as a true one
    /// does, but by 7/8 of a delay; one whose clock reads hold no access, not at all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delays_checked: Vec<String>,
    /// On the CPU interpreter, a variant whose output came out right at the CPU size runs
    /// there once more with each cluster's warps taking their turns last to first, and is
    /// wrong if its output then differs: warps that hand values over through shared memory
    /// with nothing ordering them come out right in one order only (exercise checks).
    #[serde(default)]
    pub order_checked: bool,
    /// On the CPU interpreter, a variant that makes a compare-and-swap and whose output
    /// came out right runs once more with each thread's first swap on a word another
    /// thread has updated failing (`interp::block::CasInterference`), and is wrong if its
    /// output then differs: a swap made once, never retried, loses updates on a GPU.
    #[serde(default)]
    pub swaps_checked: bool,
    /// On the CPU interpreter, a variant whose output came out right at the CPU size runs
    /// there again for each of its load sites of this space, with the values it loads
    /// there perturbed (or each atomic site, its updates left out), and its result says
    /// how much of its loading feeds the output (`VariantResult::perturbed`; exercise
    /// checks of a tile read for show, of atomics made for show). One run of its own for
    /// each space and kind of site asked, so that an exercise can ask several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perturb: Vec<crate::model::results::Perturbing>,
    /// Timing budget per variant.
    pub max_runs: u32,
    pub max_ms: f64,
    /// At most this many blocks per launch (0: the lesson's grid). A rerun under
    /// compute-sanitizer is many times slower, and the first faulting access is what it
    /// is for, so a few blocks do.
    #[serde(default)]
    pub max_blocks: u32,
    /// Give every output a poisoned guard zone past its end, and call a variant that writes
    /// into it wrong: a missing bounds check that the output alone would not show.
    #[serde(default)]
    pub guard: bool,
    /// Keep this run's inputs in the worker and use them again for the next run that asks
    /// and has the same buffers (a learner's edit loop); outputs are poisoned every launch
    /// all the same.
    #[serde(default)]
    pub keep_inputs: bool,
    /// Check the output (false: only the trace is wanted, of a kernel whose output was just
    /// checked on the same inputs).
    #[serde(default = "yes")]
    pub check: bool,
    /// Run on the CPU interpreter instead of a GPU: the lesson itself is traced, and its
    /// outputs are checked at the sizes given, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<CpuRun>,
    /// What the run is for, as the other gpulab processes waiting for the same GPU are told
    /// ("2 ahead: a recording, an exercise check").
    #[serde(default)]
    pub job: JobKind,
    /// Flush the L2 before every timed launch of every variant (the lab's cold-L2 key), as
    /// a variant's own `cold_l2` does for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cold_l2: bool,
}

/// What a turn on a shared GPU is taken for: written in the turn's ticket, so whoever
/// waits behind it can be told what they wait for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// `gpulab run`, or `r` in the lab.
    #[default]
    Run,
    /// `gpulab ex check`, or a save in the lab's exercise.
    ExerciseCheck,
    /// `gpulab record`.
    Recording,
    /// A rerun under compute-sanitizer.
    Memcheck,
    /// A ticket that does not say (another version of gpulab wrote it).
    Other,
}

impl JobKind {
    /// The name a ticket carries; `Other` is never written.
    pub fn word(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::ExerciseCheck => "exercise_check",
            JobKind::Recording => "recording",
            JobKind::Memcheck => "memcheck",
            JobKind::Other => "other",
        }
    }

    /// The kind a ticket names; anything else (a ticket is written by whoever shares the
    /// folder) is `Other`, so no text of theirs reaches a learner's screen.
    pub fn from_word(w: &str) -> JobKind {
        [
            JobKind::Run,
            JobKind::ExerciseCheck,
            JobKind::Recording,
            JobKind::Memcheck,
        ]
        .into_iter()
        .find(|k| k.word() == w)
        .unwrap_or(JobKind::Other)
    }
}

/// One job ahead in the queue for a GPU: its process and what it is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedJob {
    pub pid: u32,
    pub job: JobKind,
}

/// A run on the CPU interpreter (no times): its sampled blocks traced at the lesson's size
/// and, where there are sizes to check at, its outputs checked there against the
/// reference; without them the outputs are not checked, which the results say.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuRun {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckSizes>,
}

fn yes() -> bool {
    true
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            variants: Vec::new(),
            time: true,
            trace: true,
            trace_blocks: 0,
            sample_seed: 0,
            trace_records: 0,
            clock_checked: false,
            delays_checked: Vec::new(),
            order_checked: false,
            swaps_checked: false,
            perturb: Vec::new(),
            max_runs: 200,
            max_ms: 1500.0,
            max_blocks: 0,
            guard: false,
            keep_inputs: false,
            check: true,
            cpu: None,
            job: JobKind::Run,
            cold_l2: false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// What the worker can do here: the GPU (if any) and NVRTC.
    Hello { device: u32 },
    /// Which CUDA tools this machine has, and where; opens no GPU.
    Tools,
    /// Compile every variant and report ptxas figures; no GPU needed.
    Compile { lesson: Box<Lesson>, arch: String },
    /// Compile, check, time and trace on the GPU.
    Run {
        lesson: Box<Lesson>,
        options: RunOptions,
    },
    /// Build one variant as a run would and disassemble the CUBIN (nvdisasm, with source
    /// lines); no GPU needed.
    Sass {
        lesson: Box<Lesson>,
        variant: String,
        arch: String,
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
    Tools {
        tools: Toolkit,
    },
    /// nvdisasm's listing of a variant's CUBIN, or why there is none.
    Sass {
        variant: String,
        listing: Result<String, String>,
    },
    /// What the worker is doing now; also proves it is alive.
    Stage {
        variant: String,
        stage: String,
    },
    Peak {
        peak: Peak,
    },
    /// The worker waits for its turn on a GPU other gpulab processes share (`variant` empty:
    /// for the lesson's setup): the jobs ahead, oldest first (the first has the GPU). Sent
    /// when the queue moves and every second while it does not (so the wait is never taken
    /// for a hang); once the turn comes, `ahead` is empty and `waited_ms` says how long the
    /// wait was. A turn taken at once sends nothing.
    Queue {
        variant: String,
        ahead: Vec<QueuedJob>,
        #[serde(default)]
        waited_ms: f64,
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
    /// Another process computed on the GPU while `variant` was timed: `noise` says who and
    /// how much, for `VariantResult::noise`. Sent after the variant's figures, once NVML's
    /// samples for its timed runs are in (they come up to a second late); never for a
    /// variant timed undisturbed.
    Noise {
        variant: String,
        noise: String,
    },
    /// The request is finished.
    Done,
    /// A CUDA error that poisons the context (illegal address, launch failure): the worker
    /// exits after sending it, and the next request starts a fresh one.
    Fault {
        variant: Option<String>,
        message: String,
        /// The driver's name for the error ("CUDA_ERROR_ILLEGAL_ADDRESS"), which decides
        /// the advice and the kind of loss: sent as itself, never read back out of the words.
        #[serde(default)]
        code: Option<String>,
    },
    /// A request the worker could not do (no GPU, bad lesson); the worker stays up.
    Error {
        message: String,
    },
    /// Never sent by a worker: the client's word that the worker was lost on `variant` (a
    /// fault, a hang, a crash), in words for the learner. The rest of the run goes on in a
    /// fresh worker, so this is the variant's status, not the run's.
    Lost {
        variant: String,
        error: String,
        /// What kind of loss: the CUDA error's name (`CUDA_ERROR_ILLEGAL_ADDRESS`),
        /// `timeout` or `crashed`; a fault can be rerun under compute-sanitizer.
        failure: crate::model::results::Failure,
    },
}

/// The CUDA tools the worker found, as `doctor` shows them and `check` needs them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Toolkit {
    /// Folders searched, in order.
    pub searched: Vec<SearchedDir>,
    /// NVRTC's version and where it was loaded from, or why it is missing.
    pub nvrtc: Result<NvrtcFound, String>,
    pub nvdisasm: Option<PathBuf>,
    pub ncu: Option<PathBuf>,
    pub compute_sanitizer: Option<PathBuf>,
    /// cuBLAS, the GEMM capstone's yardstick (where it was found).
    #[serde(default)]
    pub cublas: Option<PathBuf>,
    /// Header folders given to NVRTC (empty: only the lab's stand-ins for <cstdint> and
    /// <cstdio>; <cuda_fp16.h> will not be found).
    #[serde(default)]
    pub include_dirs: Vec<PathBuf>,
    /// How a kernel's compile is confined (None where NVRTC is missing).
    #[serde(default)]
    pub confined: Option<CompileConfinement>,
}

/// Whether the kernel's Landlock confines a compile to CUDA's headers, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompileConfinement {
    pub enforced: bool,
    pub words: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchedDir {
    /// Why it was searched ("$CUDA_HOME", "Python wheels" ...).
    pub why: String,
    pub dir: PathBuf,
    pub present: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NvrtcFound {
    /// "13.0"; empty when the library loaded but would not say.
    pub version: String,
    /// The file it was loaded from, or the loader path.
    pub from: String,
}
