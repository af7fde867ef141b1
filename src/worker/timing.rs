//! Timing a variant with CUDA events until its median is stable, and the figures derived
//! from the median.

use crate::analysis::stats;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Launch;
use crate::cuda::nvml;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{Peak, VariantResult};
use crate::worker::gpu_turn::{self, GpuTurn};

/// Launches not counted: the first ones pay for module load and cold caches.
const WARMUP: usize = 3;

/// Time `launch` into `r` (samples, median, GB/s, GFLOP/s, % of peak), sending each sample.
pub fn time_variant(
    gpu: &Gpu,
    launch: &Launch,
    opts: &RunOptions,
    r: &mut VariantResult,
    send: &mut dyn FnMut(Reply),
) -> Result<(), CudaError> {
    let timer = gpu.timer()?;
    for _ in 0..WARMUP {
        timer.time(|| launch.enqueue())?;
    }
    let mut stop = stats::Stopper::new(10, opts.max_runs.max(10) as usize, opts.max_ms, 0.005);
    loop {
        let ms = timer.time(|| launch.enqueue())?;
        r.samples_ms.push(ms);
        send(Reply::Sample {
            variant: r.name.clone(),
            ms,
        });
        if stop.push(ms) {
            break;
        }
    }
    Ok(())
}

/// This worker's turn on the GPU for one timing run, waiting (and saying so) while another
/// gpulab times on it. Without a PCI address or a writable lock folder it times at once.
pub fn take_turn(gpu: &Gpu, variant: &str, send: &mut dyn FnMut(Reply)) -> Option<GpuTurn> {
    let bus = gpu.pci_bus_id()?;
    let mut say = |stage: String| {
        send(Reply::Stage {
            variant: variant.to_string(),
            stage,
        })
    };
    match GpuTurn::take(&gpu_turn::default_dir(), &bus, |n| {
        say(format!("waiting for the GPU: {n} ahead"))
    }) {
        Ok(t) => Some(t),
        Err(e) => {
            say(format!("timing without taking turns: {e}"));
            None
        }
    }
}

/// Other processes computing on this GPU while it is timed, in words; None when it has the
/// GPU to itself, or NVML cannot tell.
pub fn others_on_gpu(gpu: &Gpu) -> Option<String> {
    let me = std::process::id();
    let pids: Vec<u32> = nvml::compute_processes(&gpu.pci_bus_id()?)?
        .into_iter()
        .filter(|&p| p != me)
        .collect();
    match pids.len() {
        0 => None,
        1 => Some(format!(
            "timings noisy: another process (pid {}) used this GPU",
            pids[0]
        )),
        n => Some(format!("timings noisy: {n} other processes used this GPU")),
    }
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
