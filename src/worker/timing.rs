//! Timing a variant with CUDA events until its median is stable, and the figures derived
//! from the median.

use super::noise;
use crate::analysis::gpu_share::RunWindow;
use crate::analysis::stats;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Launch;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{Peak, VariantResult};

/// Launches not counted: the first ones pay for module load and cold caches.
const WARMUP: usize = 3;

/// Time `launch` into `r` (samples, median, GB/s, GFLOP/s, % of peak), sending each sample.
/// Each counted run's wall-clock window comes back, for telling whether another process
/// computed during it (`worker::noise`).
pub fn time_variant(
    gpu: &Gpu,
    launch: &Launch,
    opts: &RunOptions,
    r: &mut VariantResult,
    send: &mut dyn FnMut(Reply),
) -> Result<Vec<RunWindow>, CudaError> {
    let timer = gpu.timer()?;
    for _ in 0..WARMUP {
        timer.time(|| launch.enqueue())?;
    }
    let mut stop = stats::Stopper::new(10, opts.max_runs.max(10) as usize, opts.max_ms, 0.005);
    let mut windows = Vec::new();
    loop {
        let start_us = noise::now_us();
        // `time` waits for the run to end, so the window holds it.
        let ms = timer.time(|| launch.enqueue())?;
        windows.push(RunWindow {
            start_us,
            end_us: noise::now_us(),
        });
        r.samples_ms.push(ms);
        send(Reply::Sample {
            variant: r.name.clone(),
            ms,
        });
        if stop.push(ms) {
            break;
        }
    }
    Ok(windows)
}

/// The median and the rates derived from it.
pub fn summarize(lesson: &Lesson, peak: &Peak, r: &mut VariantResult) {
    let t = stats::summarize(&r.samples_ms);
    let secs = t.median * 1e-3;
    r.gbps = lesson.metrics.bytes.map(|b| b / secs / 1e9);
    r.gflops = lesson.metrics.flops.map(|f| f / secs / 1e9);
    if lesson.metrics.cublas_peak {
        if let (Some(g), Some(p)) = (r.gflops, peak.cublas_gflops) {
            r.pct_of_peak = Some(100.0 * g / p);
        }
    } else if let (Some(g), Some(p), false) = (r.gbps, peak.copy_gbps, lesson.metrics.no_peak) {
        r.pct_of_peak = Some(100.0 * g / p);
    }
    r.time_ms = Some(t);
}
