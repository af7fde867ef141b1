//! The traced run: the variant compiled to PTX, instrumented to log every memory access of
//! a sample of blocks, run once, and the log decoded and scaled to the whole grid.

use super::compile::compile_job;
use super::launch::Buffers;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Module;
use crate::cuda::nvrtc::{self, Output};
use crate::model::protocol::RunOptions;
use crate::model::results::MemoryStats;
use crate::model::{Lesson, Variant};
use crate::trace;
use crate::trace::decode::RECORD_BYTES;
use crate::trace::instrument::{SYM_BLOCK_LIMIT, SYM_BLOCK_STRIDE, SYM_BUF, SYM_CAP, SYM_COUNT};
use crate::trace::sample::BlockSample;

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
    super::launch::prepare(&kernel, v)?;
    // The traced build is a module of its own: its constants are filled anew.
    if let Some(why) = super::measure::fill_constants(lesson, v, &module, bufs)? {
        return Err(TraceError::Trace(why));
    }
    let s = BlockSample::of(v, lesson.trace_blocks, opts.trace_blocks);
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
    m.overflow = overflow;
    s.scale_to_grid(&mut m);
    Ok(m)
}

/// Point the instrumented module at its record buffer and tell it which blocks to log.
fn set_globals(
    module: &Module,
    records: &crate::cuda::memory::DevBuf,
    s: &BlockSample,
) -> Result<(), CudaError> {
    module.global(SYM_BUF)?.set(records.device_address())?;
    module.global(SYM_CAP)?.set(TRACE_CAPACITY)?;
    module.global(SYM_COUNT)?.set(0u32)?;
    module.global(SYM_BLOCK_STRIDE)?.set(s.stride as u32)?;
    module.global(SYM_BLOCK_LIMIT)?.set(s.wanted as u32)?;
    Ok(())
}
