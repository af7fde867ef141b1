//! The traced run: the variant compiled to PTX, instrumented to log every memory access of
//! a sample of blocks (`prepare`, on the CPU), run (`capture`, in the variant's turn on the
//! GPU), and the log decoded and scaled to the whole grid (`analyze`, after the turn).

use super::compile::compile_job;
use super::launch::Buffers;
use crate::analysis::races::ClusterGeom;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Module;
use crate::cuda::nvrtc::{self, Output};
use crate::model::protocol::RunOptions;
use crate::model::results::MemoryStats;
use crate::model::{Lesson, Variant};
use crate::trace;
use crate::trace::census::Census;
use crate::trace::decode::RECORD_BYTES;
use crate::trace::instrument::{
    SYM_BLOCK_BELOW, SYM_BLOCK_LIMIT, SYM_BLOCK_SEED, SYM_BLOCK_STRIDE, SYM_BUF, SYM_CAP,
    SYM_CENSUS, SYM_CENSUS_EVENTS, SYM_CENSUS_SITES, SYM_COUNT, SYM_EXTRA,
};
use crate::trace::sample::{BlockSample, EXTRA, NO_CLUSTER};

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

/// Records the trace buffer holds at first (288 MiB): enough for a few blocks of a
/// loop-heavy kernel such as a private array in local memory, small next to any GPU the
/// lessons fill.
const TRACE_CAPACITY: u32 = 1 << 20;

/// The most records a trace may keep (2.3 GiB), and never more than a quarter of the
/// GPU's free memory: past it the sample shrinks instead.
const TRACE_CAPACITY_MAX: u32 = 1 << 23;

/// Traced launches a trace may take to be whole: one, then one with the buffer grown to
/// what the logger counted, then one with fewer blocks, once more.
const TRACE_TRIES: u32 = 4;

/// The instrumented build of a variant, made and loaded before its turn on the GPU.
pub struct Prepared {
    /// The instrumented PTX, loaded: the driver's compile of it (ptxas, for every logger
    /// the instrumenter wrote) is host work, and so is kept out of the turn. The load also
    /// copies the module's code to the GPU, a few KiB, outside any turn: a copy that small
    /// beside another learner's timed runs is not measured, and no noise verdict names it.
    module: Module,
    lowered_name: String,
    sites: Vec<trace::instrument::Site>,
    unseen: Vec<crate::model::access::UnseenAccess>,
}

/// What the traced launch logged, downloaded: decoding and analysing it needs no GPU, so
/// it is done after the turn (another process's timed runs need not wait for it).
pub struct Captured {
    bytes: Vec<u8>,
    count: u32,
    cap: u32,
    sample: BlockSample,
    /// Every block's global figures, where a check's sample left blocks out.
    census: Option<Census>,
}

/// Compile `v` to PTX, instrument it and load it: host work, done before the GPU is taken.
pub fn prepare(gpu: &Gpu, v: &Variant, arch: &str) -> Result<Prepared, TraceError> {
    let ptx = super::compile::compile_cached(&compile_job(v, arch, Output::Ptx))?;
    let text = String::from_utf8_lossy(&ptx.image)
        .trim_end_matches('\0')
        .to_string();
    let mut inst =
        trace::instrument::instrument(&text).map_err(|e| TraceError::Trace(e.to_string()))?;
    trace::instrument::mark_timed(&mut inst.sites, &v.source, &text);
    let mut image = inst.ptx.into_bytes();
    image.push(0);
    Ok(Prepared {
        module: gpu.load_module(&image)?,
        lowered_name: ptx.lowered_name.clone(),
        sites: inst.sites,
        unseen: crate::model::access::UnseenAccess::of_kernel(&inst.unseen, &ptx.lowered_name),
    })
}

/// The traced launch (or launches, until the trace is whole) and the download of its
/// records: the part of a trace that needs the GPU, made in the variant's turn.
pub fn capture(
    gpu: &Gpu,
    (lesson, v): (&Lesson, &Variant),
    (prepared, state): (&Prepared, &super::module_state::ModuleState),
    bufs: &mut Buffers,
    opts: &RunOptions,
) -> Result<Captured, TraceError> {
    if let Some(why) = state.not_carried() {
        return Err(TraceError::Trace(why));
    }
    let module = &prepared.module;
    let kernel = module.kernel(&prepared.lowered_name)?;
    super::launch::prepare(&kernel, v)?;
    // The traced build is a module of its own: its constants are filled anew.
    if let Some(why) = super::measure::fill_constants(lesson, v, module, bufs)? {
        return Err(TraceError::Trace(why));
    }
    let mut s = BlockSample::of(v, lesson.trace_blocks, opts.trace_blocks);
    if opts.sample_seed != 0 {
        s = s.hashed(opts.sample_seed);
    }
    let most = match opts.trace_records {
        0 => capacity_max(gpu),
        budget => capacity_max(gpu).min(budget),
    };
    let mut most = most;
    let mut cap = TRACE_CAPACITY.min(most);
    let sites = prepared.sites.len();
    // Clusters the census has added to the sample, in all: a path only untraced blocks
    // took is traced once it is found, and found again after the sample shrinks.
    let mut widened = 0;
    // A trace is judged only whole: the logger counts what it could not keep, so a full
    // buffer is grown to that count, or, past what the GPU can hold, the sample shrinks to
    // fewer whole clusters, and the trace is made again.
    let mut tries = 0;
    loop {
        tries += 1;
        let records = gpu.alloc(cap as usize * RECORD_BYTES)?;
        set_globals(module, &records, &s, cap)?;
        // A check's sample (seeded) that leaves blocks out counts every block's global
        // requests too: the blocks it did not trace cannot take another path unseen. A
        // lesson's strided sample keeps to the sample, as the interpreter's does.
        let census = match s.seed != 0 && s.traced < s.total && sites > 0 {
            true => {
                let init = trace::census::initial(sites);
                let mut c = gpu.alloc(init.len() * 8)?;
                c.upload(&init)?;
                Some(c)
            }
            false => None,
        };
        let at = census.as_ref().map_or(0, |c| c.device_address());
        module.global(SYM_CENSUS)?.set(at)?;
        module.global(SYM_CENSUS_SITES)?.set(sites as u32)?;
        // Beside it, each cluster's count of the synchronisations its warps make.
        let clusters = (s.total / s.per.max(1)) as usize;
        let events = match census {
            Some(_) => {
                let mut e = gpu.alloc(clusters * 4)?;
                e.upload(&vec![0u32; clusters])?;
                Some(e)
            }
            None => None,
        };
        let at = events.as_ref().map_or(0, |e| e.device_address());
        module.global(SYM_CENSUS_EVENTS)?.set(at)?;
        bufs.poison_outputs(lesson)?;
        // Every launch of the trace starts where the checked and timed launches left the
        // module's own variables, a trace made again included.
        state.write(module)?;
        bufs.launch(v, &kernel).enqueue()?;
        gpu.synchronize()?;
        let count: u32 = module.global(SYM_COUNT)?.get()?;
        let (kept, _) = trace::decode::records_to_read(count, cap);
        let whole = count <= cap || tries >= TRACE_TRIES;
        let census = match census {
            Some(c) => Some(Census::from_words(
                &c.download::<u64>(trace::census::words(sites))?,
                sites,
            )),
            None => None,
        };
        let mut logged = None;
        // Whole, but blocks outside the sample ran sites no traced block ran, or made a
        // count of synchronisations no traced cluster made: traced again with the first
        // cluster that did each (at most `EXTRA` in all, and one launch more than a trace
        // that needs none), so that no path goes unjudged.
        if let (Some(c), true) = (&census, count <= cap) {
            let bytes = records.download(kept * RECORD_BYTES)?;
            let room = EXTRA.saturating_sub(widened);
            let mut paths = c.untraced_paths(&trace::decode::site_counts(&bytes, sites), room);
            if let Some(e) = &events {
                let counts = e.download::<u32>(clusters)?;
                let left = room.saturating_sub(paths.len());
                let odd = trace::census::unmatched_events(&counts, |c| s.traces(c), left);
                paths.extend(
                    odd.into_iter()
                        .filter(|c| !paths.contains(c))
                        .collect::<Vec<_>>(),
                );
            }
            let wider = s.with_extra(&paths);
            if wider.traced > s.traced && tries <= TRACE_TRIES {
                widened += paths.len();
                s = wider;
                // A check's budget of records keeps its analysis short; a path no traced
                // block took is judged all the same, in as many records as the GPU holds.
                most = capacity_max(gpu);
                continue;
            }
            logged = Some(bytes);
        }
        // One cluster alone may log more than the GPU can hold: kept as far as it goes,
        // and said (`overflow`), never judged as if whole.
        let fewer = (!whole && count > most)
            .then(|| s.fewer(f64::from(most) / f64::from(count)))
            .flatten();
        if whole || (count > most && fewer.is_none()) {
            let bytes = match logged {
                Some(b) => b,
                None => records.download(kept * RECORD_BYTES)?,
            };
            return Ok(Captured {
                bytes,
                count,
                cap,
                sample: s,
                census,
            });
        }
        match fewer {
            Some(f) => {
                cap = most;
                s = f;
            }
            None => cap = count,
        }
    }
}

/// Decode and analyse what `capture` logged, scaled to the whole grid: CPU work, done
/// after the variant's turn on the GPU.
pub fn analyze(
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    prepared: Prepared,
    captured: Captured,
) -> Result<MemoryStats, TraceError> {
    let Captured {
        bytes,
        count,
        cap,
        sample: s,
        census,
    } = captured;
    let (kept, overflow) = trace::decode::records_to_read(count, cap);
    let bytes = &bytes[..kept * RECORD_BYTES];
    let mut sites = prepared.sites;
    trace::analyze::set_normalized(&mut sites, trace::analyze::normalized_size(lesson, v));
    let recs =
        trace::decode::decode(bytes, &sites).map_err(|e| TraceError::Trace(e.to_string()))?;
    // Without nvdisasm the counts follow the PTX, and say so (`sass_checked`).
    let shapes = super::sass::shapes(lesson, v, arch, &sites);
    let geom = ClusterGeom::of(v.grid, v.attrs.cluster);
    let shaped = shapes.as_deref().unwrap_or(&[]);
    let mut m = trace::analyze::analyze_launch(&recs, &sites, shaped, geom);
    m.sass_checked = shapes.is_ok();
    m.overflow = overflow;
    m.unseen = prepared.unseen;
    s.scale_to_grid(&mut m);
    if let Some(c) = census {
        // A shared access the SASS makes in pieces, or reads in another's instruction, is
        // costed as the SASS makes it, where the census costs the PTX's: the sample's.
        let reshaped: Vec<u32> = (shaped.iter())
            .filter(|r| r.atomic.is_none())
            .map(|r| r.id)
            .collect();
        c.apply(&sites, &reshaped, &mut m);
        let added = s.extra.iter().filter(|&&e| e != NO_CLUSTER).count() as u64;
        if let Some(was) = m.census.as_mut() {
            was.added_blocks = added * s.per;
        }
    }
    Ok(m)
}

/// The records a trace may keep on this GPU: `TRACE_CAPACITY_MAX`, or fewer where a
/// quarter of its free memory holds fewer.
fn capacity_max(gpu: &Gpu) -> u32 {
    let fits = gpu.free_memory() / 4 / RECORD_BYTES;
    (fits.min(TRACE_CAPACITY_MAX as usize) as u32).max(TRACE_CAPACITY)
}

/// Point the instrumented module at its record buffer and tell it which blocks to log.
fn set_globals(
    module: &Module,
    records: &crate::cuda::memory::DevBuf,
    s: &BlockSample,
    cap: u32,
) -> Result<(), CudaError> {
    module.global(SYM_BUF)?.set(records.device_address())?;
    module.global(SYM_CAP)?.set(cap)?;
    module.global(SYM_COUNT)?.set(0u32)?;
    module.global(SYM_BLOCK_STRIDE)?.set(s.stride as u32)?;
    module.global(SYM_BLOCK_LIMIT)?.set(s.wanted as u32)?;
    module.global(SYM_BLOCK_SEED)?.set(s.seed)?;
    module.global(SYM_BLOCK_BELOW)?.set(s.below)?;
    let extra: Vec<u8> = s.extra.iter().flat_map(|c| c.to_le_bytes()).collect();
    module.global(SYM_EXTRA)?.set_bytes(&extra)?;
    Ok(())
}
