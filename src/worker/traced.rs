//! The traced run: the variant compiled to PTX, instrumented to log every memory access of
//! a sample of blocks, run once, and the log decoded and scaled to the whole grid.

use super::compile::compile_job;
use super::launch::Buffers;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Module;
use crate::cuda::nvrtc::{self, Output};
use crate::model::access::{AccessKind, Space};
use crate::model::protocol::RunOptions;
use crate::model::results::MemoryStats;
use crate::model::{Lesson, Variant};
use crate::trace;
use crate::trace::decode::RECORD_BYTES;
use crate::trace::instrument::{SYM_BLOCK_LIMIT, SYM_BLOCK_STRIDE, SYM_BUF, SYM_CAP, SYM_COUNT};

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error(transparent)]
    Cuda(#[from] CudaError),
    #[error(transparent)]
    Compile(#[from] nvrtc::CompileError),
    /// The instrumenter or the decoder refused, in their words.
    #[error("{0}")]
    Trace(String),
}

/// Records the trace buffer holds (288 MiB): enough for a few blocks of a loop-heavy kernel
/// such as a private array in local memory, small next to any GPU the lessons fill.
const TRACE_CAPACITY: u32 = 1 << 20;

/// Which blocks are traced: every `stride`-th, at most `wanted`.
pub(crate) struct Sample {
    pub(crate) total: u64,
    pub(crate) wanted: u64,
    pub(crate) stride: u64,
    pub(crate) traced: u64,
}

pub(crate) fn sample(lesson: &Lesson, v: &Variant, opts: &RunOptions) -> Sample {
    let total = v.blocks();
    let wanted = if opts.trace_blocks > 0 {
        opts.trace_blocks
    } else {
        lesson.trace_blocks
    }
    .max(1) as u64;
    let stride = (total / wanted).max(1);
    let traced = total.div_ceil(stride).min(wanted);
    Sample {
        total,
        wanted,
        stride,
        traced,
    }
}

pub fn trace_variant(
    gpu: &Gpu,
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    bufs: &mut Buffers,
    opts: &RunOptions,
) -> Result<MemoryStats, TraceError> {
    let ptx = super::compile::compile_cached(&compile_job(v, arch, Output::Ptx))?;
    let text = String::from_utf8_lossy(&ptx.image)
        .trim_end_matches('\0')
        .to_string();
    let inst =
        trace::instrument::instrument(&text).map_err(|e| TraceError::Trace(e.to_string()))?;
    let mut image = inst.ptx.into_bytes();
    image.push(0);
    let module = gpu.load_module(&image)?;
    let kernel = module.kernel(&ptx.lowered_name)?;
    if v.smem > 48 * 1024 {
        kernel.allow_dynamic_smem(v.smem)?;
    }
    // The traced build is a module of its own: its constants are filled anew.
    if let Some(why) = super::measure::fill_constants(lesson, v, &module, bufs)? {
        return Err(TraceError::Trace(why));
    }
    let s = sample(lesson, v, opts);
    let records = gpu.alloc(TRACE_CAPACITY as usize * RECORD_BYTES)?;
    set_globals(&module, &records, &s)?;
    bufs.poison_outputs(lesson)?;
    bufs.launch(v, &kernel).enqueue()?;
    gpu.synchronize()?;
    let count: u32 = module.global(SYM_COUNT)?.get()?;
    let (kept, overflow) = trace::decode::records_to_read(count, TRACE_CAPACITY);
    let bytes: Vec<u8> = records.download(kept * RECORD_BYTES)?;
    let mut sites = inst.sites;
    trace::analyze::set_normalized(&mut sites, trace::analyze::normalized_size(lesson, v));
    let recs =
        trace::decode::decode(&bytes, &sites).map_err(|e| TraceError::Trace(e.to_string()))?;
    // Without nvdisasm the counts follow the PTX, and say so (`sass_checked`).
    let shapes = super::sass::shapes(lesson, v, arch, &sites);
    let mut m = trace::analyze::analyze_shaped(&recs, &sites, shapes.as_deref().unwrap_or(&[]));
    m.sass_checked = shapes.is_ok();
    m.traced_blocks = s.traced;
    m.total_blocks = s.total;
    m.overflow = overflow;
    split_shared(&mut m);
    scale(&mut m, s.total as f64 / s.traced.max(1) as f64);
    Ok(m)
}

/// Point the instrumented module at its record buffer and tell it which blocks to log.
fn set_globals(
    module: &Module,
    records: &crate::cuda::memory::DevBuf,
    s: &Sample,
) -> Result<(), CudaError> {
    module.global(SYM_BUF)?.set(records.device_address())?;
    module.global(SYM_CAP)?.set(TRACE_CAPACITY)?;
    module.global(SYM_COUNT)?.set(0u32)?;
    module.global(SYM_BLOCK_STRIDE)?.set(s.stride as u32)?;
    module.global(SYM_BLOCK_LIMIT)?.set(s.wanted as u32)?;
    Ok(())
}

/// Shared-memory totals by direction, summed from the per-instruction figures.
pub(crate) fn split_shared(m: &mut MemoryStats) {
    for i in m.instructions.iter().filter(|i| i.space == Space::Shared) {
        let c = match i.kind {
            AccessKind::Load => &mut m.shared.ld,
            AccessKind::Store => &mut m.shared.st,
        };
        c.requests += i.requests;
        c.wavefronts += i.wavefronts;
        c.ideal_wavefronts += i.ideal_wavefronts;
    }
}

/// Scale traced totals from the sampled blocks to the whole grid.
pub(crate) fn scale(m: &mut MemoryStats, k: f64) {
    let s = |x: &mut u64| *x = (*x as f64 * k).round() as u64;
    s(&mut m.shared.requests);
    s(&mut m.shared.wavefronts);
    s(&mut m.shared.ideal_wavefronts);
    for c in [&mut m.shared.ld, &mut m.shared.st] {
        s(&mut c.requests);
        s(&mut c.wavefronts);
        s(&mut c.ideal_wavefronts);
    }
    s(&mut m.global.requests);
    s(&mut m.global.sectors);
    s(&mut m.global.lines);
    s(&mut m.global.bytes_used);
    s(&mut m.constant.requests);
    s(&mut m.constant.distinct);
    s(&mut m.local.bytes);
    s(&mut m.cluster.requests);
    s(&mut m.cluster.sectors);
    s(&mut m.cluster.remote_requests);
    s(&mut m.texture.requests);
    s(&mut m.texture.texels);
    s(&mut m.texture.rows);
}
