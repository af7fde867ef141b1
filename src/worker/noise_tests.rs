//! The watch against a made-up NVML that behaves as an H100's did (driver 580): each
//! process's latest sample only, stamped at whole seconds, its utilisation the share of the
//! second before the stamp in which it was busy, readable 0.14 s after the stamp. It runs
//! in real time: a second's sample exists only once that second has passed.

use super::*;
use std::time::Instant;

const SECOND: u64 = 1_000_000;
const ARRIVES_AFTER: u64 = 140_000;
const ME: u32 = 100;

/// One process, busy from `from` to `to` (wall-clock µs); an empty span only holds a
/// context (NVML still lists it, idle).
#[derive(Clone, Copy)]
struct Proc {
    pid: u32,
    from: u64,
    to: u64,
}

/// What NVML hands out at `now`: each process's sample of the latest second whose stamp
/// is 0.14 s past, and nothing older.
fn latest_at(procs: &[Proc], now: u64) -> Vec<UtilSample> {
    let at = (now - ARRIVES_AFTER) / SECOND * SECOND;
    procs
        .iter()
        .map(|p| {
            let busy = p.to.min(at).saturating_sub(p.from.max(at - SECOND));
            UtilSample {
                pid: p.pid,
                at_us: at,
                sm_pct: (busy * 100).div_ceil(SECOND) as u32,
                mem_pct: 0,
            }
        })
        .collect()
}

type Listed = Box<dyn FnMut(u64) -> Vec<u32> + Send>;

struct FakeNvml {
    procs: Vec<Proc>,
    /// The gpulab workers the turn folder lists at a time.
    ours: Listed,
}

impl SampleSource for FakeNvml {
    fn latest(&mut self) -> Option<Vec<UtilSample>> {
        Some(latest_at(&self.procs, now_us()))
    }

    fn ours(&mut self) -> Vec<u32> {
        (self.ours)(now_us())
    }
}

fn watch(procs: &[Proc], ours: Listed) -> Watch {
    let source = FakeNvml {
        procs: procs.to_vec(),
        ours,
    };
    Watch::with(Box::new(source), Duration::from_millis(20))
}

fn sleep_until(t_us: u64) {
    let now = now_us();
    if t_us > now {
        std::thread::sleep(Duration::from_micros(t_us - now));
    }
}

fn verdicts(sent: &[Reply]) -> Vec<(String, String)> {
    sent.iter()
        .filter_map(|r| match r {
            Reply::Noise { variant, noise } => Some((variant.clone(), noise.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_foreign_sample_that_comes_after_the_window_ended_is_still_counted() {
    let t0 = now_us();
    // A 30 ms timed run; a foreign process busy for 100 ms around it; another that only
    // holds a context.
    let run = RunWindow {
        start_us: t0 + 20_000,
        end_us: t0 + 50_000,
    };
    let procs = [
        Proc {
            pid: ME,
            from: run.start_us,
            to: run.end_us,
        },
        Proc {
            pid: 4242,
            from: t0,
            to: t0 + 100_000,
        },
        Proc {
            pid: 777,
            from: 0,
            to: 0,
        },
    ];
    let w = watch(&procs, Box::new(|_| vec![ME]));
    sleep_until(run.end_us);
    // Asked once right after the run, NVML has no sample covering it yet: the second that
    // holds it has not been stamped.
    let at_once = latest_at(&procs, now_us());
    assert!(
        at_once.iter().all(|s| s.at_us <= run.start_us),
        "{at_once:?}"
    );
    assert_eq!(gpu_share::noise(&at_once, &[run], &[ME]), None);

    w.timed("v", vec![run]);
    let mut sent = Vec::new();
    w.judge_settled(&mut |r| sent.push(r));
    assert!(
        verdicts(&sent).is_empty(),
        "judged before its samples could be in"
    );
    let t = Instant::now();
    w.finish(&mut |r| sent.push(r));
    let waited = t.elapsed();
    let v = verdicts(&sent);
    assert_eq!(v.len(), 1, "{sent:?}");
    assert_eq!(v[0].0, "v");
    assert!(
        v[0].1
            .starts_with("timings noisy: another process (pid 4242) kept the SMs "),
        "{}",
        v[0].1
    );
    assert!(v[0].1.ends_with("busy during 1 of 1 runs"), "{}", v[0].1);
    // The run waited for the second that held it to be stamped and to arrive, once.
    assert!(waited >= Duration::from_secs(1), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert!(
        matches!(&sent[0], Reply::Stage { stage, .. } if stage.contains("NVML")),
        "the wait is said: {sent:?}"
    );
}

#[test]
fn a_gpulab_worker_that_ended_before_its_sample_came_and_a_context_holder_are_not_noise() {
    let t0 = now_us();
    let run = RunWindow {
        start_us: t0 + 20_000,
        end_us: t0 + 50_000,
    };
    // Another learner's worker computed in the same second (its turn ended as ours
    // began) and ended 150 ms in, long before NVML stamped that second.
    let procs = [
        Proc {
            pid: ME,
            from: run.start_us,
            to: run.end_us,
        },
        Proc {
            pid: 200,
            from: t0,
            to: t0 + 20_000,
        },
        Proc {
            pid: 777,
            from: 0,
            to: 0,
        },
    ];
    let listed: Listed = Box::new(move |now| match now < t0 + 150_000 {
        true => vec![200, ME],
        false => vec![ME],
    });
    let w = watch(&procs, listed);
    sleep_until(run.end_us);
    w.timed("v", vec![run]);
    sleep_until(gpu_share::settled_at_us(&[run]).unwrap());
    let kept = w.kept();
    // Its busy sample covering the run was gathered, though it came after it ended...
    assert!(
        kept.iter()
            .any(|s| s.pid == 200 && s.sm_pct > 0 && s.at_us > run.start_us),
        "{kept:?}"
    );
    // ... once: NVML handed the same sample out at every ask until the next.
    let mut keys: Vec<(u32, u64)> = kept.iter().map(|s| (s.pid, s.at_us)).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), kept.len(), "{kept:?}");
    assert!(
        kept.len() <= 3 * 3,
        "{} samples for 3 processes",
        kept.len()
    );
    // Never listed as a gpulab worker, the same process would be noise.
    let n = gpu_share::noise(&kept, &[run], &[ME]).expect("noise when not ours");
    assert_eq!(n.pids, vec![200]);
    let mut sent = Vec::new();
    w.finish(&mut |r| sent.push(r));
    assert!(verdicts(&sent).is_empty(), "{sent:?}");
    assert!(sent.is_empty(), "no wait left to say: {sent:?}");
}

#[test]
fn a_variant_judged_after_nvml_replaced_its_sample_is_judged_on_the_one_gathered() {
    let t0 = now_us();
    let run = RunWindow {
        start_us: t0 + 20_000,
        end_us: t0 + 50_000,
    };
    let procs = [Proc {
        pid: 4242,
        from: t0,
        to: t0 + 100_000,
    }];
    let w = watch(&procs, Box::new(|_| vec![ME]));
    sleep_until(run.end_us);
    w.timed("early", vec![run]);
    // Judged only after later variants ran, a second after NVML moved on: what it hands
    // out now is a later, idle second.
    sleep_until(gpu_share::settled_at_us(&[run]).unwrap() + SECOND);
    let now = latest_at(&procs, now_us());
    assert_eq!(gpu_share::noise(&now, &[run], &[ME]), None, "{now:?}");
    let mut sent = Vec::new();
    w.judge_settled(&mut |r| sent.push(r));
    let v = verdicts(&sent);
    assert_eq!(v.len(), 1, "judged at once, with no wait: {sent:?}");
    assert!(v[0].1.contains("(pid 4242)"), "{}", v[0].1);
    // Nothing left for the end of the run.
    let mut sent = Vec::new();
    w.finish(&mut |r| sent.push(r));
    assert!(sent.is_empty(), "{sent:?}");
}
