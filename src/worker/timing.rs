//! Timing a variant with CUDA events until its median is stable, and the figures derived
//! from the median.

use super::clocks::ClockWatch;
use super::noise;
use crate::analysis::gpu_share::RunWindow;
use crate::analysis::stats;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::memory::DevBuf;
use crate::cuda::module::Launch;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{Peak, VariantResult};

/// Launches not counted: the first ones pay for module load and cold caches.
const WARMUP: usize = 3;

/// The L2 flushed before every timed launch: a buffer of twice the L2's size, written
/// (as nvbench and Triton's do_bench flush it) on the stream just before the launch's
/// first event, so the flush is not in the time and the launch finds none of its data
/// in the L2.
struct Flush {
    buf: DevBuf,
}

/// The flush buffer's size where the driver does not say the L2's (twice an H100's).
const UNKNOWN_L2_FLUSH: usize = 100 << 20;

impl Flush {
    fn new(gpu: &Gpu) -> Result<Flush, CudaError> {
        let l2 = usize::try_from(gpu.info().l2_bytes).unwrap_or(0);
        let bytes = if l2 == 0 { UNKNOWN_L2_FLUSH } else { 2 * l2 };
        Ok(Flush {
            buf: gpu.alloc(bytes)?,
        })
    }

    fn enqueue(&mut self) -> Result<(), CudaError> {
        self.buf.fill_u32(0)
    }
}

/// Time `launch` into `r` (samples, median, GB/s, GFLOP/s, % of peak), sending each sample,
/// with the L2 flushed before every launch when `cold_l2` asks (and the memory for it is
/// there: else warm, and `r.cold_l2` says so). The clocks are read before, during and
/// after the counted runs (`worker::clocks`) into `r.clocks`; a drop or a throttle reason
/// marks `r.noise`. Each counted run's wall-clock window comes back, for telling whether
/// another process computed during it (`worker::noise`).
pub fn time_variant(
    gpu: &Gpu,
    launch: &Launch,
    (opts, cold_l2): (&RunOptions, bool),
    r: &mut VariantResult,
    send: &mut dyn FnMut(Reply),
) -> Result<Vec<RunWindow>, CudaError> {
    time_work(gpu, Work::launch(launch), (opts, cold_l2), r, send)
}

/// What one timed run does: `prep` queued before the first event (not in the time), then
/// `timed` between the events; `counted` is given each counted run's time once the run
/// has ended (not the warm-ups'), to read what that run left behind.
pub struct Work<'a> {
    pub prep: Box<dyn FnMut() -> Result<(), CudaError> + 'a>,
    pub timed: Box<dyn FnMut() -> Result<(), CudaError> + 'a>,
    pub counted: Box<dyn FnMut(f64) -> Result<(), CudaError> + 'a>,
}

impl<'a> Work<'a> {
    /// A kernel launch, nothing before it.
    pub fn launch(launch: &'a Launch<'a>) -> Work<'a> {
        Work::new(Box::new(|| Ok(())), Box::new(move || launch.enqueue()))
    }

    /// `timed` after `prep`, with nothing read after a run.
    pub fn new(
        prep: Box<dyn FnMut() -> Result<(), CudaError> + 'a>,
        timed: Box<dyn FnMut() -> Result<(), CudaError> + 'a>,
    ) -> Work<'a> {
        Work {
            prep,
            timed,
            counted: Box::new(|_| Ok(())),
        }
    }
}

/// `time_variant` for any work on the stream: a kernel, a copy, a prefetch and a kernel.
pub fn time_work(
    gpu: &Gpu,
    mut work: Work,
    (opts, cold_l2): (&RunOptions, bool),
    r: &mut VariantResult,
    send: &mut dyn FnMut(Reply),
) -> Result<Vec<RunWindow>, CudaError> {
    let timer = gpu.timer()?;
    let mut flush = match cold_l2 {
        true => cold_flush(gpu, &r.name, send),
        false => None,
    };
    r.cold_l2 = flush.is_some();
    let mut once = |flush: &mut Option<Flush>| -> Result<f64, CudaError> {
        if let Some(f) = flush.as_mut() {
            f.enqueue()?;
        }
        (work.prep)()?;
        timer.time(|| (work.timed)())
    };
    for _ in 0..WARMUP {
        once(&mut flush)?;
    }
    let mut stop = stats::Stopper::new(10, opts.max_runs.max(10) as usize, opts.max_ms, 0.005);
    let mut windows = Vec::new();
    let watch = ClockWatch::start(gpu);
    loop {
        let start_us = noise::now_us();
        // `time` waits for the run to end, so the window holds it.
        let ms = once(&mut flush)?;
        windows.push(RunWindow {
            start_us,
            end_us: noise::now_us(),
        });
        r.samples_ms.push(ms);
        (work.counted)(ms)?;
        send(Reply::Sample {
            variant: r.name.clone(),
            ms,
        });
        if stop.push(ms) {
            break;
        }
    }
    if let Some(w) = watch {
        let seen = w.finish();
        r.clocks = seen.clocks;
        if let Some(n) = seen.noise {
            r.noise = Some(n.to_string());
        }
    }
    Ok(windows)
}

/// The flush buffer, or None (the runs go warm) when the GPU has no room for it: said as
/// a stage, and the figures do not claim a cold L2.
fn cold_flush(gpu: &Gpu, variant: &str, send: &mut dyn FnMut(Reply)) -> Option<Flush> {
    match Flush::new(gpu) {
        Ok(f) => Some(f),
        Err(e) => {
            send(Reply::Stage {
                variant: variant.to_string(),
                stage: format!("timing with a warm L2: no room to flush it ({e})"),
            });
            None
        }
    }
}

/// The median and the rates derived from it.
pub fn summarize(lesson: &Lesson, peak: &Peak, r: &mut VariantResult) {
    let t = stats::summarize(&r.samples_ms);
    let secs = t.median * 1e-3;
    r.gbps = lesson.metrics.bytes.map(|b| b / secs / 1e9);
    r.gflops = lesson.metrics.flops.map(|f| f / secs / 1e9);
    if lesson.metrics.link_peak {
        if let (Some(g), Some(p)) = (r.gbps, peak.link_gbps) {
            r.pct_of_peak = Some(100.0 * g / p);
        }
    } else if lesson.metrics.cublas_peak {
        if let (Some(g), Some(p)) = (r.gflops, peak.cublas_gflops) {
            r.pct_of_peak = Some(100.0 * g / p);
        }
    } else if let (Some(g), Some(p), false) = (r.gbps, peak.copy_gbps, lesson.metrics.no_peak) {
        r.pct_of_peak = Some(100.0 * g / p);
    }
    r.time_ms = Some(t);
}
