//! A lesson's variant on the interpreter: its buffers in host memory, its parameters, its
//! `__constant__` fills; a traced run of the sampled blocks at the lesson's size, and a
//! whole run whose outputs are read back for the check.

use std::sync::Arc;

use super::block::Launch;
use super::limits::{Budget, Limits};
use super::mem::{Filler, Memory, OverBudget};
use super::{Halt, Kernel, Plan, PrepareError, RunError};
use crate::analysis::sass::SassError;
use crate::analysis::sass_map::Reshape;
use crate::model::results::MemoryStats;
use crate::model::{Arg, Buffer, ElemType, Init, Lesson, Variant, ramp_at, random_int, splitmix};
use crate::trace::sample::BlockSample;
use std::sync::mpsc::Receiver;

/// Warp instructions one block may run before the run is called endless.
pub const BLOCK_BUDGET: u64 = 200_000_000;

#[derive(Debug, thiserror::Error)]
pub enum CpuError {
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error(transparent)]
    Run(RunError),
    #[error("{0}")]
    Setup(String),
    /// What the interpreter leaves to a GPU (a texture fetch, an instruction it does not
    /// model, where a lane reaches it): the kernel is not interpreted, which is no verdict
    /// on it.
    #[error("{0}")]
    NeedsGpu(String),
}

impl From<RunError> for CpuError {
    /// A lane that reached an instruction the interpreter does not model leaves the kernel
    /// to a GPU, as one refused when it was read is.
    fn from(e: RunError) -> CpuError {
        match e.halt {
            Halt::Unmodelled => CpuError::NeedsGpu(e.to_string()),
            _ => CpuError::Run(e),
        }
    }
}

impl From<OverBudget> for CpuError {
    fn from(e: OverBudget) -> CpuError {
        CpuError::Run(RunError::refused(Halt::Memory, e.0))
    }
}

/// The lesson's buffers in `mem`: their addresses, in lesson order.
pub struct Placed {
    pub mem: Memory,
    pub addrs: Vec<u64>,
}

/// Element `i` of a buffer as `init` makes it, each element on its own: a trace at the
/// lesson's size touches a few pages of buffers that may be a GiB.
fn element(b: &Buffer, seed: u64, i: u64) -> u64 {
    if let Init::Random { lo, hi } = b.init
        && !b.ty.is_float()
    {
        // As the GPU's host data makes them: from the bits, exactly (`random_int`).
        let x = random_int(lo, hi, splitmix(seed ^ i));
        return match b.ty {
            ElemType::I32 => u64::from(x as i32 as u32),
            ElemType::U32 => u64::from(x as u32),
            _ => x as u64,
        };
    }
    let x = match b.init {
        Init::Poison => {
            let p = u64::from(b.ty.poison_bits());
            return if b.ty.size() == 8 { p << 32 | p } else { p };
        }
        Init::Zeros => 0.0,
        Init::Seq => i as f64,
        Init::Ramp { lo, hi, shuffled } => {
            ramp_at(lo, hi, shuffled, b.len, seed, i, !b.ty.is_float())
        }
        Init::Const(c) => c,
        Init::Random { lo, hi } => {
            lo + (hi - lo) * ((splitmix(seed ^ i) >> 11) as f64 / (1u64 << 53) as f64)
        }
    };
    match b.ty {
        ElemType::F32 => u64::from((x as f32).to_bits()),
        ElemType::F64 => x.to_bits(),
        ElemType::I32 => u64::from(x.floor() as i32 as u32),
        ElemType::U32 => u64::from(x.floor() as u32),
        ElemType::U64 => x.floor() as u64,
    }
}

fn formula(b: &Buffer, seed: u64) -> Filler {
    let b = b.clone();
    if matches!(b.init, Init::Zeros | Init::Poison | Init::Const(_)) {
        // One value everywhere: a page is that pattern (the 192 MiB a chase writes to
        // flush the L2 filled element by element took half a second).
        let e = b.ty.size();
        let v = element(&b, seed, 0).to_le_bytes();
        let zero = v[..e].iter().all(|&x| x == 0);
        return Box::new(move |_, page| {
            if !zero {
                page.chunks_mut(e)
                    .for_each(|c| c.copy_from_slice(&v[..c.len()]));
            }
        });
    }
    Box::new(move |start, page| {
        let e = b.ty.size();
        for (k, chunk) in page.chunks_mut(e).enumerate() {
            let v = element(&b, seed, start / e as u64 + k as u64).to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    })
}

fn from_bytes(bytes: Arc<Vec<u8>>) -> Filler {
    Box::new(move |start, page| {
        let s = start as usize;
        let n = page.len().min(bytes.len().saturating_sub(s));
        page[..n].copy_from_slice(&bytes[s..s + n]);
    })
}

/// Buffers made on first touch, element by element (a trace at the lesson's size), their
/// pages taken from `budget`; refused beyond it or the modelled GPU's memory.
pub fn paged(lesson: &Lesson, seed: u64, budget: &Budget) -> Result<Placed, CpuError> {
    let mut mem = Memory {
        budget: budget.clone(),
        ..Memory::default()
    };
    let addrs = (lesson.buffers.iter())
        .map(|b| mem.add_buffer(&b.name, b.bytes(), formula(b, seed)))
        .collect::<Result<_, _>>()?;
    Ok(Placed { mem, addrs })
}

/// Buffers from the host data a check compares against (inputs, as little-endian bytes,
/// kept without a copy), outputs poisoned.
pub fn dense(lesson: &Lesson, inputs: Vec<Vec<u8>>, budget: &Budget) -> Result<Placed, CpuError> {
    let mut mem = Memory {
        budget: budget.clone(),
        ..Memory::default()
    };
    let addrs = (lesson.buffers.iter().zip(inputs))
        .map(|(b, h)| match b.is_output() {
            true => mem.add_buffer(&b.name, b.bytes(), formula(b, 0)),
            false => mem.add_buffer(&b.name, b.bytes(), from_bytes(Arc::new(h))),
        })
        .collect::<Result<_, _>>()?;
    Ok(Placed { mem, addrs })
}

/// Buffer `j` as the kernel left it, as little-endian bytes.
pub fn download(p: &mut Placed, lesson: &Lesson, j: usize) -> Result<Vec<u8>, CpuError> {
    let mut raw = vec![0u8; lesson.buffers[j].bytes() as usize];
    if let Some(r) = p.mem.buffers.get_mut(j) {
        r.read(0, &mut raw)?;
    }
    Ok(raw)
}

/// The launch of `v` over `p`: its parameters where the kernel's parameter list puts them,
/// and its `__constant__` fills copied into the module's constants.
pub fn launch(
    k: &Kernel,
    lesson: &Lesson,
    v: &Variant,
    p: &mut Placed,
) -> Result<Launch, CpuError> {
    let layout = &k.prog.funcs[k.entry].params;
    let mut params = vec![0u8; k.prog.funcs[k.entry].param_bytes as usize];
    for (i, a) in v.args.iter().enumerate() {
        let bytes: Vec<u8> = match *a {
            Arg::Buffer(j) => p.addrs[j].to_le_bytes().to_vec(),
            Arg::I32(x) => x.to_le_bytes().to_vec(),
            Arg::U32(x) => x.to_le_bytes().to_vec(),
            Arg::I64(x) => x.to_le_bytes().to_vec(),
            Arg::U64(x) => x.to_le_bytes().to_vec(),
            Arg::F32(x) => x.to_le_bytes().to_vec(),
            // A handle as a GPU's texture objects are numbered, from 1: a kernel that never
            // samples it runs here, and one that does is refused at its first fetch (`tex`
            // needs a GPU), not before anything runs.
            Arg::Texture(i) => (i as u64 + 1).to_le_bytes().to_vec(),
        };
        let Some(&(off, size)) = layout.get(i) else {
            return Err(CpuError::Setup(format!(
                "the kernel takes {} parameters, `args:` gives more",
                layout.len()
            )));
        };
        let n = bytes.len().min(size as usize);
        params[off as usize..off as usize + n].copy_from_slice(&bytes[..n]);
    }
    p.mem.consts = k.prog.consts.clone();
    p.mem.module = k.prog.globals.clone();
    for c in &v.constants {
        let sym = k.prog.symbols.iter().find(|s| s.0 == c.symbol);
        let Some(&(_, _, at, bytes)) = sym else {
            return Err(CpuError::Setup(format!(
                "the kernel has no __constant__ `{}`",
                c.symbol
            )));
        };
        let mut data = vec![0u8; bytes as usize];
        if let Some(r) = p.mem.buffers.get_mut(c.buffer) {
            r.read(
                0,
                &mut data[..(lesson.buffers[c.buffer].bytes().min(bytes)) as usize],
            )?;
        }
        p.mem.consts[at as usize..(at + bytes) as usize].copy_from_slice(&data);
    }
    // `v.attrs.carveout` is not used: it splits the SM's pool between L1 and shared memory,
    // and the interpreter models no cache, and gives a block all the shared memory it asks
    // for, so the split changes neither what a kernel computes nor what the trace counts.
    // The L2 window is left out for the same reason.
    Ok(Launch {
        grid: v.grid,
        block: v.block,
        dyn_smem: v.smem,
        params,
        cluster: v.attrs.cluster.unwrap_or([1, 1, 1]),
        clock_scale: 0,
        perturb: None,
        reverse_warps: false,
        observe: None,
        timed_delay: None,
        cas_interference: None,
        deal: 0,
    })
}

/// The sampled blocks of `v` at the lesson's size, traced and summarised as the GPU's
/// trace is: per instruction for the sampled blocks, totals scaled to the grid. `shapes`
/// brings, from whoever reads the SASS, the shared accesses ptxas splits (as on the GPU,
/// they are counted as split); `seed` makes the inputs.
pub fn trace(
    k: &Kernel,
    lesson: &Lesson,
    v: &Variant,
    (trace_blocks, seed, sample_seed): (u32, u64, u32),
    shapes: Option<Receiver<Result<Vec<Reshape>, SassError>>>,
    limits: &Limits,
) -> Result<MemoryStats, CpuError> {
    let mut s = BlockSample::of(v, lesson.trace_blocks, trace_blocks);
    if sample_seed != 0 {
        s = s.hashed(sample_seed);
    }
    let mut shapes = shapes;
    let mut known = Vec::new();
    let mut sass = Ok(());
    let mut out = loop {
        let mut p = paged(lesson, seed, &limits.budget)?;
        // Blocks dealt over the SMs as the inputs are drawn, afresh (`Launch::deal`).
        let l = Launch {
            deal: seed | 1,
            ..launch(k, lesson, v, &mut p)?
        };
        let plan = Plan {
            trace: Some(s),
            traced_only: true,
            budget: BLOCK_BUDGET,
            keep_records: false,
            shapes: known.clone(),
            limits: limits.clone(),
        };
        let mut out = super::run_streamed(k, &mut p.mem, &l, &plan, shapes.take())?;
        let stream = &mut out.trace.stream;
        // A trace is judged only whole: past what it keeps, fewer whole clusters, as the
        // GPU's tracer does (`worker::traced`), while more than one is traced.
        let logged = (stream.count + stream.overflow).max(1);
        let fewer = (stream.overflow > 0)
            .then(|| s.fewer(stream.cap as f64 / logged as f64))
            .flatten();
        match fewer {
            Some(f) => {
                (known, sass) = stream.shapes_known();
                s = f;
            }
            None => break out,
        }
    };
    if sass.is_err() {
        out.trace.stream.sass = sass;
    }
    let overflow = out.trace.stream.overflow;
    let stream = out.trace.stream;
    let sass = stream.sass.clone();
    let mut m = stream.finish();
    m.overflow = overflow;
    m.sass_checked = sass.is_ok();
    m.unseen = k.unseen.clone();
    s.scale_to_grid(&mut m);
    Ok(m)
}
