//! One GPU shared by a workshop: whether another process computed while a variant was
//! timed (from NVML's per-process utilisation samples), and the queue for the GPU in words.
//!
//! gpulab's own processes take turns (`worker::gpu_turn`) and never compute inside
//! another's timed window, so they are left out by pid. Of the others, only a process
//! that kept the SMs or the memory busy counts: one merely holding a context (a notebook
//! left open, another learner's idle lab) leaves no busy sample and is no noise.

use crate::model::protocol::{JobKind, QueuedJob};

/// How busy one process kept the GPU over NVML's sampling period that ended at `at_us`
/// (wall-clock microseconds since the epoch, as NVML stamps its samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtilSample {
    pub pid: u32,
    pub at_us: u64,
    /// Percent of the period the process had a kernel on the SMs.
    pub sm_pct: u32,
    /// Percent of the period the process read or wrote device memory.
    pub mem_pct: u32,
}

/// One timed run: from just before its first event to after its last, wall-clock µs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunWindow {
    pub start_us: u64,
    pub end_us: u64,
}

/// Who computed during the timed runs, and how much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noise {
    /// The other processes, in pid order.
    pub pids: Vec<u32>,
    /// Runs that a busy sample of theirs overlapped, of `runs`.
    pub runs_hit: usize,
    pub runs: usize,
    /// How busy they kept the SMs and the memory over those samples (summed over the
    /// processes, at most 100).
    pub sm_pct: u32,
    pub mem_pct: u32,
}

/// NVML's sampling period when the samples do not show it: a sixth of a second, the
/// shortest the driver documents for its utilisation samples.
pub const DEFAULT_PERIOD_US: u64 = 166_667;

/// The sampling period the samples show: the shortest step between two samples of one
/// process (a process idle for a while skips periods, so the shortest is the period),
/// kept within 10 ms and 1 s; the default when no process has two samples.
pub fn sample_period_us(samples: &[UtilSample]) -> u64 {
    let mut by_pid: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
    for s in samples {
        by_pid.entry(s.pid).or_default().push(s.at_us);
    }
    let mut shortest: Option<u64> = None;
    for times in by_pid.values_mut() {
        times.sort_unstable();
        for w in times.windows(2) {
            let step = w[1] - w[0];
            if step > 0 {
                shortest = Some(shortest.map_or(step, |s| s.min(step)));
            }
        }
    }
    shortest.map_or(DEFAULT_PERIOD_US, |s| s.clamp(10_000, 1_000_000))
}

/// Whether another process computed during `runs`: a sample of a process not in `ours`
/// that was busy (SMs or memory above 0%) and whose period, `(at - period, at]`,
/// overlaps a run. None when no run was touched.
pub fn noise(
    samples: &[UtilSample],
    runs: &[RunWindow],
    ours: &[u32],
    period_us: u64,
) -> Option<Noise> {
    let overlaps = |s: &UtilSample, w: &RunWindow| {
        s.at_us > w.start_us && s.at_us.saturating_sub(period_us) < w.end_us
    };
    let busy: Vec<&UtilSample> = samples
        .iter()
        .filter(|s| !ours.contains(&s.pid) && (s.sm_pct > 0 || s.mem_pct > 0))
        .filter(|s| runs.iter().any(|w| overlaps(s, w)))
        .collect();
    let runs_hit = runs
        .iter()
        .filter(|w| busy.iter().any(|s| overlaps(s, w)))
        .count();
    if runs_hit == 0 {
        return None;
    }
    let mut pids: Vec<u32> = busy.iter().map(|s| s.pid).collect();
    pids.sort_unstable();
    pids.dedup();
    // Each process's mean over its samples, summed: two processes at 30% kept it 60% busy.
    let mean = |pid: u32, f: fn(&UtilSample) -> u32| {
        let xs: Vec<u32> = busy.iter().filter(|s| s.pid == pid).map(|s| f(s)).collect();
        xs.iter().sum::<u32>() as f64 / xs.len() as f64
    };
    let total = |f: fn(&UtilSample) -> u32| {
        let sum: f64 = pids.iter().map(|&p| mean(p, f)).sum();
        sum.round().min(100.0) as u32
    };
    Some(Noise {
        runs_hit,
        runs: runs.len(),
        sm_pct: total(|s| s.sm_pct),
        mem_pct: total(|s| s.mem_pct),
        pids,
    })
}

impl std::fmt::Display for Noise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = match self.pids.as_slice() {
            [one] => format!("another process (pid {one})"),
            many => {
                let list: Vec<String> = many.iter().map(u32::to_string).collect();
                format!("{} other processes (pids {})", many.len(), list.join(", "))
            }
        };
        let how = match (self.sm_pct, self.mem_pct) {
            (0, m) => format!("the memory {m}%"),
            (s, 0) => format!("the SMs {s}%"),
            (s, m) => format!("the SMs {s}% and the memory {m}%"),
        };
        write!(
            f,
            "timings noisy: {who} kept {how} busy during {} of {} runs",
            self.runs_hit, self.runs
        )
    }
}

/// What a job ahead is doing, for one of them and for several.
fn kind_words(k: JobKind) -> (&'static str, &'static str) {
    match k {
        JobKind::Run => ("a lesson run", "lesson runs"),
        JobKind::ExerciseCheck => ("an exercise check", "exercise checks"),
        JobKind::Recording => ("a recording", "recordings"),
        JobKind::Memcheck => ("a memory check", "memory checks"),
        JobKind::Other => ("another gpulab job", "other gpulab jobs"),
    }
}

/// "waiting for the GPU: 3 ahead (a recording, 2 exercise checks)": the jobs ahead in
/// queue order, the one on the GPU first, neighbours of one kind counted together.
pub fn queue_words(ahead: &[QueuedJob]) -> String {
    let mut groups: Vec<(JobKind, usize)> = Vec::new();
    for q in ahead {
        match groups.last_mut() {
            Some((k, n)) if *k == q.job => *n += 1,
            _ => groups.push((q.job, 1)),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|&(k, n)| match n {
            1 => kind_words(k).0.to_string(),
            n => format!("{n} {}", kind_words(k).1),
        })
        .collect();
    match ahead.len() {
        0 => "waiting for the GPU".to_string(),
        n => format!("waiting for the GPU: {n} ahead ({})", parts.join(", ")),
    }
}

/// The turn has come after a wait of `waited_ms`.
pub fn turn_words(waited_ms: f64) -> String {
    format!("the GPU is free: waited {:.1} s", waited_ms / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = 100_000;

    fn s(pid: u32, at_ms: u64, sm: u32, mem: u32) -> UtilSample {
        UtilSample {
            pid,
            at_us: at_ms * 1000,
            sm_pct: sm,
            mem_pct: mem,
        }
    }

    /// Ten runs of 50 ms each, one every 100 ms from t = 1 s.
    fn ten_runs() -> Vec<RunWindow> {
        (0..10)
            .map(|i| RunWindow {
                start_us: 1_000_000 + i * 100_000,
                end_us: 1_050_000 + i * 100_000,
            })
            .collect()
    }

    #[test]
    fn another_process_busy_during_the_window_is_noise_naming_it_and_how_much() {
        let me = 100;
        // We computed throughout; pid 4242 was busy in three periods inside the window,
        // then again long after it.
        let mut samples: Vec<UtilSample> = (1..=21).map(|i| s(me, 900 + i * 100, 90, 60)).collect();
        samples.extend([
            s(4242, 1_300, 40, 0),
            s(4242, 1_400, 40, 0),
            s(4242, 1_500, 40, 0),
            s(4242, 5_000, 99, 0),
        ]);
        let n = noise(&samples, &ten_runs(), &[me], P).expect("noisy");
        assert_eq!(n.pids, vec![4242]);
        // The samples at 1.3, 1.4 and 1.5 s cover (1.2, 1.3], (1.3, 1.4], (1.4, 1.5]: the
        // runs starting at 1.2, 1.3 and 1.4 s.
        assert_eq!((n.runs_hit, n.runs), (3, 10));
        assert_eq!(
            n.sm_pct, 40,
            "the sample long after the window is not counted"
        );
        assert_eq!(
            n.to_string(),
            "timings noisy: another process (pid 4242) kept the SMs 40% busy during 3 of 10 runs"
        );
    }

    #[test]
    fn a_process_only_holding_a_context_is_no_noise() {
        let me = 100;
        let mut samples: Vec<UtilSample> = (1..=21).map(|i| s(me, 900 + i * 100, 90, 60)).collect();
        // pid 4242 holds a context: NVML lists it, with idle samples if any.
        samples.extend((1..=21).map(|i| s(4242, 900 + i * 100, 0, 0)));
        assert_eq!(noise(&samples, &ten_runs(), &[me], P), None);
        // No samples at all from it (the usual case for an idle process): no noise either.
        assert_eq!(noise(&samples[..21], &ten_runs(), &[me], P), None);
    }

    #[test]
    fn other_gpulab_processes_and_busy_samples_outside_the_window_are_not_noise() {
        let me = 100;
        let other_learner = 200;
        let samples = vec![
            // Another learner's worker, busy in the period that straddles our window's
            // start (its turn ended as ours began): known from the turns, not counted.
            s(other_learner, 1_050, 95, 80),
            // A foreign process busy before the window and after it, never inside.
            s(4242, 900, 70, 0),
            s(4242, 2_200, 70, 0),
        ];
        assert_eq!(noise(&samples, &ten_runs(), &[me, other_learner], P), None);
        // Not known as ours, the same sample would be noise: it overlaps the first run.
        let n = noise(&samples, &ten_runs(), &[me], P).expect("noisy");
        assert_eq!(
            (n.pids.as_slice(), n.runs_hit),
            ([other_learner].as_slice(), 1)
        );
    }

    #[test]
    fn several_processes_are_counted_together_and_memory_is_said() {
        let samples = vec![s(7, 1_100, 20, 10), s(9, 1_100, 30, 0), s(9, 1_200, 30, 0)];
        let n = noise(&samples, &ten_runs(), &[], P).expect("noisy");
        assert_eq!(n.pids, vec![7, 9]);
        assert_eq!((n.sm_pct, n.mem_pct, n.runs_hit), (50, 10, 2));
        assert_eq!(
            n.to_string(),
            "timings noisy: 2 other processes (pids 7, 9) kept the SMs 50% and the memory 10% \
             busy during 2 of 10 runs"
        );
        let mem_only = noise(&[s(7, 1_100, 0, 25)], &ten_runs(), &[], P).unwrap();
        assert!(mem_only.to_string().contains("kept the memory 25% busy"));
    }

    #[test]
    fn the_sampling_period_is_the_shortest_step_of_one_process() {
        let samples = vec![
            s(1, 1_000, 1, 0),
            s(1, 1_500, 1, 0),
            s(1, 1_667, 1, 0),
            s(2, 1_010, 1, 0),
        ];
        assert_eq!(sample_period_us(&samples), 167_000);
        assert_eq!(sample_period_us(&samples[..1]), DEFAULT_PERIOD_US);
        // Two processes stamped 10 ms apart do not make a 10 ms period.
        assert_eq!(
            sample_period_us(&[s(1, 1_000, 1, 0), s(2, 1_010, 1, 0)]),
            DEFAULT_PERIOD_US
        );
    }

    #[test]
    fn the_queue_in_words_keeps_its_order_and_counts_neighbours() {
        let q = |job| QueuedJob { pid: 1, job };
        assert_eq!(
            queue_words(&[q(JobKind::Recording), q(JobKind::ExerciseCheck)]),
            "waiting for the GPU: 2 ahead (a recording, an exercise check)"
        );
        assert_eq!(
            queue_words(&[
                q(JobKind::Run),
                q(JobKind::ExerciseCheck),
                q(JobKind::ExerciseCheck),
                q(JobKind::Run)
            ]),
            "waiting for the GPU: 4 ahead (a lesson run, 2 exercise checks, a lesson run)"
        );
        assert_eq!(queue_words(&[]), "waiting for the GPU");
        assert_eq!(turn_words(3249.0), "the GPU is free: waited 3.2 s");
    }
}
