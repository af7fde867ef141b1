//! The CPU interpreter: the PTX NVRTC makes for a variant, run warp by warp on the host, so
//! a machine with no GPU still checks a kernel's output and traces its accesses exactly as
//! the GPU tracer logs them (same sites, same records, same analysis).
//!
//! Model: a block's warps run in lockstep per warp, with an active mask; a divergent branch
//! runs one side then the other, and the lanes meet again at the branch's immediate
//! post-dominator (where ptxas puts the reconvergence point for structured code). Blocks
//! run one after another. Weak-memory effects between warps are not modelled: a warp's
//! stores are seen at once by the others.

mod alu;
mod atomics;
pub mod block;
mod body;
mod calls;
mod cfg;
mod copies;
pub mod decode;
mod exec;
mod fast;
mod frame;
mod lanes;
pub mod lesson;
mod lex;
pub mod limits;
mod matrix;
mod mbarrier;
mod mbars;
pub mod mem;
mod memop;
mod opcode;
mod operand;
mod ops;
pub mod program;
mod schedule;
mod slice;
mod warp;

use std::sync::mpsc::Receiver;
use std::time::Instant;

use crate::analysis::limits::{Refusal, size};
use crate::analysis::races::ClusterGeom;
use crate::analysis::sass::SassError;
use crate::analysis::sass_map::Reshape;
use crate::trace::instrument::{self, Site};
use crate::trace::sample::BlockSample;
use crate::trace::stream::Streamed;
use block::{Launch, Trace};
use limits::{LOCAL_PER_THREAD, Limits, MAX_BLOCK, MAX_THREADS};
use mem::Memory;
use program::Program;
use schedule::run_cluster;

/// Where an instruction is: its PTX line and the kernel source line of the last `.loc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Place {
    pub ptx_line: u32,
    pub source_line: Option<u32>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source_line {
            Some(s) => write!(f, "source line {s}, PTX line {}", self.ptx_line),
            None => write!(f, "PTX line {}", self.ptx_line),
        }
    }
}

/// An instruction the interpreter does not model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub place: Place,
    pub text: String,
    pub why: Unmodelled,
}

/// Why a line of PTX is not interpreted, in the words the learner reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unmodelled(pub String);

impl From<&str> for Unmodelled {
    fn from(why: &str) -> Unmodelled {
        Unmodelled(why.to_string())
    }
}

impl From<String> for Unmodelled {
    fn from(why: String) -> Unmodelled {
        Unmodelled(why)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    #[error("the CPU interpreter does not run this kernel:\n{}", list(.0))]
    Unsupported(Vec<Unsupported>),
    #[error("the PTX has no kernel `{0}`")]
    NoKernel(String),
    #[error("tracing: {0}")]
    Instrument(String),
}

fn list(u: &[Unsupported]) -> String {
    let mut out: Vec<String> = u
        .iter()
        .take(20)
        .map(|u| format!("  {}: `{}`: {}", u.place, u.text, u.why))
        .collect();
    if u.len() > 20 {
        out.push(format!("  ... and {} more", u.len() - 20));
    }
    out.join("\n")
}

/// What a GPU stops a kernel with where the interpreter meets the same: the CUDA error a
/// GPU run reports, so a run on the CPU says the same words and stops the whole kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// An access outside every buffer and window.
    IllegalAddress,
    /// An access not aligned to its size (a float4 off a 16-byte boundary).
    MisalignedAddress,
    /// `trap` (`__trap()`): the GPU ends the kernel with an unspecified launch failure.
    Trap,
    /// `__assertfail` (a failed device-side `assert`).
    Assert,
}

impl Fault {
    /// The CUDA error a GPU reports for it, by name.
    pub fn cuda_error(self) -> &'static str {
        match self {
            Fault::IllegalAddress => "CUDA_ERROR_ILLEGAL_ADDRESS",
            Fault::MisalignedAddress => "CUDA_ERROR_MISALIGNED_ADDRESS",
            Fault::Trap => "CUDA_ERROR_LAUNCH_FAILED",
            Fault::Assert => "CUDA_ERROR_ASSERT",
        }
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// Something the interpreter stops on that a GPU would not name (a deadlock, an endless
    /// loop, a divergent barrier).
    Stopped,
    /// What a GPU faults on.
    Fault(Fault),
    /// A launch beyond the modelled GPU's limits, refused before it ran: nothing ran, and the
    /// block, warp and lanes mean nothing.
    Launch,
    /// Memory beyond the run's budget or the modelled GPU's, refused before it was taken.
    Memory,
    /// An instruction the interpreter does not model, reached by a lane: the kernel is
    /// one a GPU must run, which is no verdict on it.
    Unmodelled,
}

/// A run-time error with its place: block, warp, lanes and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.words())]
pub struct RunError {
    pub block: [u32; 3],
    pub warp: u32,
    pub lanes: u32,
    pub place: Option<Place>,
    pub why: String,
    pub halt: Halt,
}

impl RunError {
    /// A refusal before anything ran: a launch beyond a limit, or memory beyond one.
    pub fn refused(halt: Halt, why: String) -> RunError {
        RunError {
            block: [0; 3],
            warp: 0,
            lanes: 0,
            place: None,
            why,
            halt,
        }
    }

    fn words(&self) -> String {
        let at = format!(
            "block {:?}, warp {}, lane {}{}",
            self.block,
            self.warp,
            self.lanes.trailing_zeros(),
            self.place.map(|p| format!(", {p}")).unwrap_or_default()
        );
        match self.halt {
            Halt::Launch | Halt::Memory => self.why.clone(),
            // The error's name in parentheses, as a GPU's message ends, so the advice for
            // it is found the same way.
            Halt::Fault(f) => format!("{} ({at}) ({})", self.why, f.cuda_error()),
            Halt::Stopped | Halt::Unmodelled => format!("{} ({at})", self.why),
        }
    }
}

/// A decoded kernel and the trace sites its accesses log under.
#[derive(Debug)]
pub struct Kernel {
    pub prog: Program,
    pub entry: usize,
    pub sites: Vec<Site>,
    /// The statements this kernel may run that move memory in ways no site follows.
    pub unseen: Vec<crate::model::access::UnseenAccess>,
}

impl Kernel {
    /// The instructions the interpreter does not model, each with its place and why: a run
    /// is refused where a lane reaches one (`Halt::Unmodelled`), not before.
    pub fn unmodelled(&self) -> Vec<Unsupported> {
        (self.prog.funcs.iter().flat_map(|f| &f.instrs))
            .filter(|i| i.op == ops::Op::Unmodelled)
            .map(|i| Unsupported {
                place: i.place,
                text: i.text.clone(),
                why: opcode::why_unmodelled(&i.text),
            })
            .collect()
    }
}

/// Decode `ptx` for kernel `name`; instructions the tracer follows get the id of the site
/// the instrumenter gives them.
pub fn prepare(ptx: &str, name: &str) -> Result<Kernel, PrepareError> {
    let mut prog = decode::decode(ptx).map_err(PrepareError::Unsupported)?;
    let entry = (prog.funcs.iter())
        .position(|f| f.entry && f.name == name)
        .ok_or_else(|| PrepareError::NoKernel(name.to_string()))?;
    let instrument::Instrumented { sites, unseen, .. } =
        instrument::instrument(ptx).map_err(|e| PrepareError::Instrument(e.to_string()))?;
    let unseen = crate::model::access::UnseenAccess::of_kernel(&unseen, name);
    slice::mark(&mut prog, entry);
    let mut used = vec![false; sites.len()];
    for f in &mut prog.funcs {
        for ins in &mut f.instrs {
            ins.site = (sites.iter().enumerate())
                .find(|(k, s)| !used[*k] && s.ptx_line == ins.place.ptx_line && s.op == ins.text)
                .map(|(k, _)| {
                    used[k] = true;
                    k as u32
                });
            // A `cp.async` and a bulk copy make two sites, their read then their write: the
            // write's is the next.
            if let (Some(k), ops::Op::CpAsync { .. } | ops::Op::BulkCopy) = (ins.site, ins.op)
                && let Some(u) = used.get_mut(k as usize + 1)
            {
                *u = true;
            }
        }
    }
    Ok(Kernel {
        prog,
        entry,
        sites,
        unseen,
    })
}

/// Which blocks run, and which of them are traced.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The blocks traced (the GPU tracer's sample).
    pub trace: Option<BlockSample>,
    /// Run only the traced blocks (a trace at the lesson's size), not the whole grid.
    pub traced_only: bool,
    /// Warp instructions a block may take.
    pub budget: u64,
    /// Keep every record as well as the summary (tests and tools).
    pub keep_records: bool,
    /// Shared accesses the SASS makes in pieces, counted as it makes them.
    pub shapes: Vec<crate::analysis::sass_map::Reshape>,
    /// The modelled GPU's limits and the run's memory budget.
    pub limits: Limits,
}

/// The cluster (its linear index among the grid's clusters) block `b` is in.
fn cluster_of(launch: &Launch, b: u64) -> u64 {
    let [gx, gy, _] = launch.grid.map(u64::from);
    let [cx, cy, cz] = launch.cluster.map(|c| u64::from(c.max(1)));
    let (x, y, z) = (b % gx, b / gx % gy, b / (gx * gy));
    let (nx, ny) = (gx / cx, gy / cy);
    x / cx + y / cy * nx + z / cz * nx * ny
}

/// Records a trace keeps, as the most the GPU tracer's buffer grows to (the rest are only
/// counted): past it the GPU traces fewer clusters, and so does `lesson::trace`. The
/// interpreter keeps a summary, not the records, so the figure bounds time, not memory.
pub const TRACE_CAPACITY: u64 = 1 << 23;

pub struct Outcome {
    pub trace: Trace,
    pub warp_steps: u64,
    /// Thread instructions run (active lanes summed over warp steps): the speed figure.
    pub thread_steps: u64,
    pub blocks: u64,
    /// What the kernel's `printf`s wrote.
    pub printed: String,
}

/// Run `k` over `mem` as `launch` says.
pub fn run(
    k: &Kernel,
    mem: &mut Memory,
    launch: &Launch,
    plan: &Plan,
) -> Result<Outcome, RunError> {
    run_streamed(k, mem, launch, plan, None)
}

/// `run`, with the SASS shapes of `plan` coming from another thread when `later` is given.
pub fn run_streamed(
    k: &Kernel,
    mem: &mut Memory,
    launch: &Launch,
    plan: &Plan,
    later: Option<Receiver<Result<Vec<Reshape>, SassError>>>,
) -> Result<Outcome, RunError> {
    let reserved = admit(k, launch, &plan.limits)?;
    let out = run_admitted(k, mem, launch, plan, later);
    plan.limits.budget.give(reserved);
    out
}

/// Whether `launch` of `k` is within the modelled GPU's limits, and its blocks' shared and
/// local memory within the budget, before anything is allocated: the bytes taken from the
/// budget for them, or the limit it is beyond with the figures.
fn admit(k: &Kernel, launch: &Launch, limits: &Limits) -> Result<u64, RunError> {
    let launch_err = |why: String| RunError::refused(Halt::Launch, why);
    let threads: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
    if threads > u64::from(MAX_THREADS) || (0..3).any(|d| launch.block[d] > MAX_BLOCK[d]) {
        let threads = u32::try_from(threads).unwrap_or(u32::MAX);
        let r = Refusal::Threads {
            block: launch.block,
            threads,
        };
        return Err(launch_err(r.to_string()));
    }
    let (fixed, dynamic) = (k.prog.shared_static, launch.dyn_smem);
    // The first KiB of the window is the GPU's own, not the kernel's.
    let fixed = fixed.saturating_sub(mem::SHARED_BASE);
    if u64::from(fixed) + u64::from(dynamic) > u64::from(limits.smem_per_block) {
        let r = Refusal::SharedMemory {
            asks: size(dynamic.into()),
            beside: match fixed {
                0 => String::new(),
                s => format!(" beside {} static", size(s.into())),
            },
            allows: format!("{} ({})", size(limits.smem_per_block.into()), limits.arch),
        };
        return Err(launch_err(r.to_string()));
    }
    let local = u64::from(k.prog.local_bytes);
    if local > LOCAL_PER_THREAD {
        return Err(launch_err(format!(
            "each thread asks for {} of local memory (its local arrays, spills and call \
             frames); a GPU gives a thread at most {}",
            size(local),
            size(LOCAL_PER_THREAD)
        )));
    }
    let blocks: u64 = launch
        .cluster
        .iter()
        .map(|&c| u64::from(c.max(1)))
        .product();
    let shared = u64::from(k.prog.shared_static) + u64::from(dynamic);
    let need = blocks.saturating_mul(shared + local * threads);
    if !limits.budget.take(need) {
        let what = format!("the shared and local memory of a cluster of {blocks} block(s)");
        return Err(RunError::refused(
            Halt::Memory,
            limits.budget.over(&what, need),
        ));
    }
    Ok(need)
}

fn run_admitted(
    k: &Kernel,
    mem: &mut Memory,
    launch: &Launch,
    plan: &Plan,
    later: Option<Receiver<Result<Vec<Reshape>, SassError>>>,
) -> Result<Outcome, RunError> {
    mem.local_bytes = k.prog.local_bytes as usize;
    let total: u64 = launch.grid.iter().map(|&g| u64::from(g)).product();
    let warps = launch.block.iter().product::<u32>().div_ceil(32);
    let mut out = Outcome {
        trace: Trace {
            stream: {
                let geom = ClusterGeom::of(launch.grid, Some(launch.cluster));
                let s = Streamed::new(&k.sites, TRACE_CAPACITY, warps).clustered(geom);
                match later {
                    Some(from) => s.shaped_later(from),
                    None => s.shaped(plan.shapes.clone()),
                }
            },
            records: plan.keep_records.then(Vec::new),
        },
        warp_steps: 0,
        thread_steps: 0,
        blocks: 0,
        printed: String::new(),
    };
    let start = Instant::now();
    // Outputs of a trace-only run are thrown away: only what the trace holds must be exact.
    let limits = (plan.budget, plan.traced_only);
    // The sample is of whole clusters, as the GPU tracer's (`trace::sample`).
    let traced = |b: u64| {
        let c = cluster_of(launch, b);
        plan.trace.is_some_and(|s| s.traces(c))
    };
    let per_cluster = u64::from(launch.cluster.iter().product::<u32>().max(1));
    let all = total / per_cluster;
    // A trace-only run needs the sampled clusters alone.
    let clusters: Vec<u64> = match (plan.traced_only, plan.trace) {
        (true, Some(s)) => s.clusters().into_iter().filter(|&c| c < all).collect(),
        _ => (0..all).collect(),
    };
    for c in clusters {
        let blocks: Vec<(u64, bool)> = (schedule::cluster_blocks(launch, c).into_iter())
            .map(|b| (b, traced(b)))
            .collect();
        let t = blocks.iter().any(|b| b.1).then_some(&mut out.trace);
        let io = (t, &mut out.printed);
        let (w, t) = run_cluster(&k.prog, k.entry, mem, launch, &blocks, io, limits, start)?;
        out.warp_steps += w;
        out.thread_steps += t;
        out.blocks += blocks.len() as u64;
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
