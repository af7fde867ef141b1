//! Whether a variant's timed runs were disturbed by another process: NVML's per-process
//! utilisation samples, gathered while the worker times, judged by
//! `analysis::gpu_share::noise`.
//!
//! NVML keeps only each process's latest sample, one a second (see `analysis::gpu_share`):
//! asked once right after a variant, it has either not yet stamped the second that held the
//! timed runs or has already replaced it. So a `Watch` asks four times a second, on a
//! thread of its own, for as long as a run lasts; it keeps each new sample, and each gpulab
//! worker seen in the turn folder meanwhile (one that has ended since is still known as
//! ours). A variant is judged once the samples covering its runs have surely arrived: after
//! a later variant when its runs are long enough past, else once at the end of the run,
//! which then waits at most a second and a quarter after its last timed run. The verdict
//! goes out as `Reply::Noise`, after the variant's figures.
//!
//! Why the device's own utilisation (`nvmlDeviceGetSamples`, a sample every sixth of a
//! second) is not asked as well, as a second opinion: it is the share of a period in which
//! one kernel or more was running, whoever's. Inside our timed runs our kernel runs nearly
//! throughout, and another process's kernels on a time-sliced GPU run in turn with ours:
//! they lengthen our runs, not the device's busy share, which reads the same with or
//! without them. Between our runs the share holds our own checks and traces and the next
//! gpulab worker's turn, which nothing tells apart from a stranger's work. So it can say
//! nothing true about a timed window that the per-process samples do not.

use super::Sink;
use super::turns::Turns;
use crate::analysis::gpu_share::{self, RunWindow, UtilSample};
use crate::cuda::gpu::Gpu;
use crate::cuda::nvml;
use crate::model::protocol::Reply;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Wall-clock microseconds since the epoch, the clock NVML stamps its samples with.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// How often NVML is asked: four times within each sample's second, so none is replaced
/// before it is seen.
pub const EVERY: Duration = Duration::from_millis(250);

/// Samples kept at most (72 processes, as many as a busy workshop showed, for a quarter of
/// an hour); the oldest go first.
const MAX_KEPT: usize = 1 << 16;

/// Where a watch's samples come from: NVML for the real GPU, a made-up stream in tests.
pub trait SampleSource: Send {
    /// Every process's latest sample; None when NVML cannot say now.
    fn latest(&mut self) -> Option<Vec<UtilSample>>;
    /// The gpulab workers computing on this GPU now, this one included.
    fn ours(&mut self) -> Vec<u32>;
}

/// NVML's samples for the GPU at `bus`, and the turn folder's list of gpulab workers.
struct Nvml<F> {
    bus: String,
    ours: F,
}

impl<F: FnMut() -> Vec<u32> + Send> SampleSource for Nvml<F> {
    fn latest(&mut self) -> Option<Vec<UtilSample>> {
        nvml::latest_process_samples(&self.bus)
    }

    fn ours(&mut self) -> Vec<u32> {
        (self.ours)()
    }
}

/// What a watch has gathered so far.
struct Gathered {
    source: Box<dyn SampleSource>,
    samples: VecDeque<UtilSample>,
    /// Each process's newest stamp kept: NVML hands out the same sample until the next.
    newest: HashMap<u32, u64>,
    /// Every gpulab worker seen while watching.
    ours: BTreeSet<u32>,
}

impl Gathered {
    fn ask(&mut self) {
        for s in self.source.latest().unwrap_or_default() {
            let newest = self.newest.entry(s.pid).or_insert(0);
            if s.at_us > *newest {
                *newest = s.at_us;
                self.samples.push_back(s);
            }
        }
        while self.samples.len() > MAX_KEPT {
            self.samples.pop_front();
        }
        let ours = self.source.ours();
        self.ours.extend(ours);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere leaves the samples as whole as they were: keep using them.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// NVML watched for the length of one run, and the variants whose verdict is still due.
pub struct Watch {
    gathered: Arc<Mutex<Gathered>>,
    /// Variants timed and not judged yet, with their timed runs.
    pending: Mutex<Vec<(String, Vec<RunWindow>)>>,
    /// Dropped to stop the thread.
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    /// Watching the GPU of `gpu`, whose gpulab workers `turns` knows. None when NVML
    /// cannot tell other processes from this one: missing, or (in a container) naming
    /// processes by the host's pids, among which this worker is not. Better silent than
    /// wrong.
    pub fn start(gpu: &Gpu, turns: &Turns) -> Option<Watch> {
        let bus = gpu.pci_bus_id()?;
        if !nvml::compute_processes(&bus)?.contains(&std::process::id()) {
            return None;
        }
        let ours = turns.ours();
        Some(Watch::with(Box::new(Nvml { bus, ours }), EVERY))
    }

    /// Asking `source` now and then `every` so often until the watch ends.
    pub fn with(source: Box<dyn SampleSource>, every: Duration) -> Watch {
        let mut first = Gathered {
            source,
            samples: VecDeque::new(),
            newest: HashMap::new(),
            ours: BTreeSet::new(),
        };
        first.ask();
        let gathered = Arc::new(Mutex::new(first));
        let (stop, stopped) = mpsc::channel::<()>();
        let g = Arc::clone(&gathered);
        let asking = move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                lock(&g).ask();
            }
        };
        // Without a thread the samples are asked for only when a verdict is due, and a
        // second that held the runs may be missed: the verdict errs towards quiet.
        let thread = std::thread::Builder::new()
            .name("nvml-watch".into())
            .spawn(asking)
            .ok();
        Watch {
            gathered,
            pending: Mutex::new(Vec::new()),
            stop: Some(stop),
            thread,
        }
    }

    /// `variant` was timed in `runs`: judged once their samples are in.
    pub fn timed(&self, variant: &str, runs: Vec<RunWindow>) {
        if !runs.is_empty() {
            lock(&self.pending).push((variant.to_string(), runs));
        }
    }

    /// Send the verdict on each variant whose samples are surely all in by now; the
    /// others wait. Called after a variant's figures are sent, so a verdict never comes
    /// before the figures it is about.
    pub fn judge_settled(&self, send: Sink) {
        self.judge(now_us(), send);
    }

    /// The run is over: wait until the last variant's samples are surely in (a second and
    /// a quarter after its last timed run at most, and only once per run), then send the
    /// verdict on every variant still due.
    pub fn finish(self, send: Sink) {
        let due = lock(&self.pending)
            .iter()
            .filter_map(|(_, runs)| gpu_share::settled_at_us(runs))
            .max();
        let Some(due) = due else {
            return;
        };
        let now = now_us();
        if due > now {
            send(Reply::Stage {
                variant: String::new(),
                stage: "asking NVML whether another process computed during the timed runs".into(),
            });
            std::thread::sleep(Duration::from_micros(due - now));
        }
        self.judge(u64::MAX, send);
    }

    /// The run is over and nobody waits for NVML: every variant still due is judged on
    /// the samples already in.
    pub fn finish_now(self, send: Sink) {
        self.judge(u64::MAX, send);
    }

    /// Judge every pending variant whose samples are in by `upto_us`.
    fn judge(&self, upto_us: u64, send: Sink) {
        let ready: Vec<(String, Vec<RunWindow>)> = {
            let mut pending = lock(&self.pending);
            let (ready, later) =
                std::mem::take(&mut *pending)
                    .into_iter()
                    .partition(|(_, runs)| {
                        gpu_share::settled_at_us(runs).is_some_and(|t| t <= upto_us)
                    });
            *pending = later;
            ready
        };
        if ready.is_empty() {
            return;
        }
        let (samples, ours) = {
            let mut g = lock(&self.gathered);
            // The freshest look, not the thread's of up to a quarter second ago.
            g.ask();
            let samples: Vec<UtilSample> = g.samples.iter().copied().collect();
            let ours: Vec<u32> = g.ours.iter().copied().collect();
            (samples, ours)
        };
        for (variant, runs) in ready {
            if let Some(n) = gpu_share::noise(&samples, &runs, &ours) {
                send(Reply::Noise {
                    variant,
                    noise: n.to_string(),
                });
            }
        }
    }

    /// Every sample kept, oldest first.
    #[cfg(test)]
    fn kept(&self) -> Vec<UtilSample> {
        lock(&self.gathered).samples.iter().copied().collect()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The thread ends at its next wake-up, which a closed channel makes at once.
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
