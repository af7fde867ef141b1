//! One GPU shared by a workshop: whether another process computed while a variant was
//! timed (from NVML's per-process utilisation samples), and the queue for the GPU in words.
//!
//! gpulab's own processes take turns (`worker::gpu_turn`) and never compute inside
//! another's timed window, so they are left out by pid. Of the others, only a process
//! that kept the SMs or the memory busy counts: one merely holding a context (a notebook
//! left open, another learner's idle lab) leaves no busy sample and is no noise.
//!
//! What NVML gives, as measured on an H100 (driver 580): one sample per process, its
//! latest, stamped once a second in wall-clock microseconds, its utilisation the process's
//! average over the second before the stamp, readable about 0.14 s after it; nothing older
//! is kept. So the sample that says whether another process computed during a timed run
//! of a few milliseconds is stamped up to a second after the run ends: a window is judged
//! against every sample whose second overlaps it, once those have surely arrived
//! (`settled_at_us`). The worker gathers them as they come (`worker::noise`).

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

/// The period each per-process sample covers: the second before its stamp. Taken as
/// measured rather than guessed from the steps between samples, which a process idle for
/// a while stretches and a re-stamped sample could shrink; were a driver to sample more
/// often, a second only counts a busy neighbour that computed a little earlier or later
/// than the run, never misses one.
pub const PERIOD_US: u64 = 1_000_000;

/// How long after its stamp a sample may still arrive: 0.14 s measured, with room.
pub const ARRIVAL_US: u64 = 250_000;

/// When every sample that can cover `runs` has arrived: a period and the arrival delay
/// after the last run ends. None for no runs.
pub fn settled_at_us(runs: &[RunWindow]) -> Option<u64> {
    let last = runs.iter().map(|w| w.end_us).max()?;
    Some(last + PERIOD_US + ARRIVAL_US)
}

/// Whether `s`'s period, `(at - PERIOD_US, at]`, overlaps run `w`.
fn covers(s: &UtilSample, w: &RunWindow) -> bool {
    s.at_us > w.start_us && s.at_us.saturating_sub(PERIOD_US) < w.end_us
}

/// Whether another process computed during `runs`: a sample of a process not in `ours`
/// that was busy (SMs or memory above 0%) and whose period overlaps a run. None when no
/// run was touched.
pub fn noise(samples: &[UtilSample], runs: &[RunWindow], ours: &[u32]) -> Option<Noise> {
    // First the samples near the runs at all: a workshop's minutes of samples, looked at
    // once, not once per run.
    let span = RunWindow {
        start_us: runs.iter().map(|w| w.start_us).min()?,
        end_us: runs.iter().map(|w| w.end_us).max()?,
    };
    let busy: Vec<&UtilSample> = samples
        .iter()
        .filter(|s| covers(s, &span))
        .filter(|s| !ours.contains(&s.pid) && (s.sm_pct > 0 || s.mem_pct > 0))
        .filter(|s| runs.iter().any(|w| covers(s, w)))
        .collect();
    let runs_hit = runs
        .iter()
        .filter(|w| busy.iter().any(|s| covers(s, w)))
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

    /// NVML's stream as the worker gathers it: each process's sample once a second,
    /// stamped at `phase_ms` past each whole second from 0 s to 5 s, busy as `busy(second
    /// ending at)` says.
    fn every_second(pid: u32, phase_ms: u64, busy: impl Fn(u64) -> (u32, u32)) -> Vec<UtilSample> {
        (0..=5)
            .map(|k| {
                let at = k * 1000 + phase_ms;
                let (sm, mem) = busy(at);
                s(pid, at, sm, mem)
            })
            .collect()
    }

    #[test]
    fn another_process_busy_during_the_window_is_noise_naming_it_and_how_much() {
        let me = 100;
        // We computed throughout; pid 4242 was busy in the second that ended at 1.3 s,
        // idle in the next, and busy again long after.
        let mut samples = every_second(me, 300, |_| (90, 60));
        samples.extend(every_second(4242, 300, |at| match at {
            1_300 => (40, 0),
            5_300 => (99, 0),
            _ => (0, 0),
        }));
        let n = noise(&samples, &ten_runs(), &[me]).expect("noisy");
        assert_eq!(n.pids, vec![4242]);
        // Its sample at 1.3 s covers (0.3, 1.3]: the runs starting at 1.0, 1.1 and 1.2 s.
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
        let mut samples = every_second(me, 300, |_| (90, 60));
        // pid 4242 holds a context: NVML lists it, with idle samples if any.
        samples.extend(every_second(4242, 300, |_| (0, 0)));
        assert_eq!(noise(&samples, &ten_runs(), &[me]), None);
        // No samples at all from it (the usual case for an idle process): no noise either.
        assert_eq!(noise(&samples[..6], &ten_runs(), &[me]), None);
    }

    #[test]
    fn a_busy_sample_stamped_after_a_short_window_ended_still_covers_it() {
        // A 30 ms run from 1.10 to 1.13 s. NVML's samples come at whole seconds: the one
        // covering the run is stamped at 2.0 s, 0.87 s after the run ended, and readable
        // only after that; the one before it ended at 1.0 s, before the run began.
        let run = [RunWindow {
            start_us: 1_100_000,
            end_us: 1_130_000,
        }];
        let foreign = every_second(4242, 0, |at| if at == 2_000 { (15, 3) } else { (0, 0) });
        let n = noise(&foreign, &run, &[100]).expect("the later sample is counted");
        assert_eq!(
            (n.pids.as_slice(), n.runs_hit, n.sm_pct),
            ([4242].as_slice(), 1, 15)
        );
        // Busy only in the seconds before and after: not this run.
        let around = every_second(4242, 0, |at| match at {
            1_000 | 3_000 => (80, 0),
            _ => (0, 0),
        });
        assert_eq!(noise(&around, &run, &[100]), None);
        // The judgment waits for it: a second after the run, and its arrival delay.
        let settled = settled_at_us(&run).unwrap();
        assert!(settled >= 2_000_000 + 140_000, "{settled}");
        assert!(
            settled <= 1_130_000 + 1_300_000,
            "{settled}: not much longer"
        );
        assert_eq!(settled_at_us(&[]), None);
    }

    #[test]
    fn other_gpulab_processes_and_busy_samples_outside_the_window_are_not_noise() {
        let me = 100;
        let other_learner = 200;
        let samples = vec![
            // Another learner's worker, busy in a second that holds half our runs (its
            // turn ended as ours began): known from the turns, not counted.
            s(other_learner, 1_450, 95, 80),
            // A foreign process busy in the seconds before the window and after it.
            s(4242, 900, 70, 0),
            s(4242, 1_900, 0, 0),
            s(4242, 2_900, 0, 0),
            s(4242, 3_900, 70, 0),
        ];
        assert_eq!(noise(&samples, &ten_runs(), &[me, other_learner]), None);
        // Not known as ours, the same sample would be noise: it covers (0.45, 1.45].
        let n = noise(&samples, &ten_runs(), &[me]).expect("noisy");
        assert_eq!(
            (n.pids.as_slice(), n.runs_hit),
            ([other_learner].as_slice(), 5)
        );
    }

    #[test]
    fn several_processes_are_counted_together_and_memory_is_said() {
        let samples = vec![s(7, 1_500, 20, 10), s(9, 1_500, 30, 0), s(9, 2_500, 30, 0)];
        let n = noise(&samples, &ten_runs(), &[]).expect("noisy");
        assert_eq!(n.pids, vec![7, 9]);
        // Their samples at 1.5 s cover the runs from 1.0 to 1.4 s, pid 9's at 2.5 s the
        // rest.
        assert_eq!((n.sm_pct, n.mem_pct, n.runs_hit), (50, 10, 10));
        assert_eq!(
            n.to_string(),
            "timings noisy: 2 other processes (pids 7, 9) kept the SMs 50% and the memory 10% \
             busy during 10 of 10 runs"
        );
        let mem_only = noise(&[s(7, 1_100, 0, 25)], &ten_runs(), &[]).unwrap();
        assert!(mem_only.to_string().contains("kept the memory 25% busy"));
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
