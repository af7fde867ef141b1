//! Whether a variant's timed runs were disturbed by another process: NVML's utilisation
//! samples for the window, judged by `analysis::gpu_share::noise`.

use super::turns::Turns;
use crate::analysis::gpu_share::{self, RunWindow};
use crate::cuda::gpu::Gpu;
use crate::cuda::nvml;
use std::time::{SystemTime, UNIX_EPOCH};

/// Wall-clock microseconds since the epoch, the clock NVML stamps its samples with.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// How far before the first run samples are asked for: the longest sampling period, so
/// one that ended inside the window but began before it is among them.
const LOOK_BACK_US: u64 = 2_000_000;

/// Another process computing during `runs`, in words (who, how busy, during how many of
/// the runs); None when nobody else did, or NVML cannot tell.
pub fn judge(gpu: &Gpu, runs: &[RunWindow], turns: &Turns) -> Option<String> {
    let first = runs.first()?;
    let bus = gpu.pci_bus_id()?;
    // In a container NVML may name processes by the host's pids: then this worker is not
    // among them, and nobody can be told from us. Better silent than wrong.
    if !nvml::compute_processes(&bus)?.contains(&std::process::id()) {
        return None;
    }
    let samples = nvml::process_samples(&bus, first.start_us.saturating_sub(LOOK_BACK_US))?;
    let period = gpu_share::sample_period_us(&samples);
    gpu_share::noise(&samples, runs, &turns.ours(), period).map(|n| n.to_string())
}
