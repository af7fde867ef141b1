//! The clocks a variant was timed at: NVML read right before its counted runs, every
//! `EVERY` on a thread of its own while they go, and right after them, summed up and
//! judged by `analysis::clocks`. Unlike the other processes' utilisation (`worker::noise`),
//! a clock reading is current, not a second late, so the verdict is ready with the
//! figures and goes out in the variant's result.

use crate::analysis::clocks::{self, ClockLimits, ClockNoise, ClockSample};
use crate::cuda::gpu::Gpu;
use crate::cuda::nvml;
use crate::model::results::Clocks;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the clocks are read while a variant is timed: often enough to see a drop
/// that lasts a tenth of a second, seldom enough to cost the driver nothing worth naming.
pub const EVERY: Duration = Duration::from_millis(100);

/// Samples kept at most for one variant (its timing budget is seconds).
const MAX_KEPT: usize = 4096;

/// Where the readings come from: NVML for the real GPU, a made-up stream in tests.
pub trait ClockSource: Send {
    /// The clocks now; None when NVML cannot say.
    fn sample(&mut self) -> Option<ClockSample>;
    /// The device's settings: what a steady run should reach.
    fn limits(&mut self) -> ClockLimits;
}

/// NVML's readings for the GPU at `bus`.
struct Nvml {
    bus: String,
}

impl ClockSource for Nvml {
    fn sample(&mut self) -> Option<ClockSample> {
        nvml::clock_sample(&self.bus, super::noise::now_us())
    }

    fn limits(&mut self) -> ClockLimits {
        nvml::clock_limits(&self.bus)
    }
}

struct Gathered {
    source: Box<dyn ClockSource>,
    samples: Vec<ClockSample>,
}

impl Gathered {
    fn read(&mut self) {
        if self.samples.len() < MAX_KEPT
            && let Some(s) = self.source.sample()
        {
            self.samples.push(s);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere leaves the samples as whole as they were: keep using them.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The clocks watched through one variant's timed runs.
pub struct ClockWatch {
    gathered: Arc<Mutex<Gathered>>,
    limits: ClockLimits,
    /// Dropped to stop the thread.
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// What the watch saw: the figures for the result, and why they make the timings noisy.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub clocks: Option<Clocks>,
    pub noise: Option<ClockNoise>,
}

impl ClockWatch {
    /// Watching `gpu`'s clocks from now (the first reading taken at once). None when NVML
    /// cannot read them: the figures then say nothing of the clock, rather than guess.
    pub fn start(gpu: &Gpu) -> Option<ClockWatch> {
        let bus = gpu.pci_bus_id()?;
        ClockWatch::with(Box::new(Nvml { bus }), EVERY)
    }

    /// Reading `source` now and then every `every` until `finish`; None when its first
    /// reading gives nothing.
    pub fn with(mut source: Box<dyn ClockSource>, every: Duration) -> Option<ClockWatch> {
        let first = source.sample()?;
        let limits = source.limits();
        let gathered = Arc::new(Mutex::new(Gathered {
            source,
            samples: vec![first],
        }));
        let (stop, stopped) = mpsc::channel::<()>();
        let g = Arc::clone(&gathered);
        let reading = move || {
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                lock(&g).read();
            }
        };
        // Without a thread there are still the readings before and after the runs.
        let thread = std::thread::Builder::new()
            .name("nvml-clocks".into())
            .spawn(reading)
            .ok();
        Some(ClockWatch {
            gathered,
            limits,
            stop: Some(stop),
            thread,
        })
    }

    /// The runs are over: one last reading, then the figures and the verdict.
    pub fn finish(mut self) -> Seen {
        self.halt();
        let mut g = lock(&self.gathered);
        g.read();
        Seen {
            clocks: clocks::summarize(&g.samples, self.limits),
            noise: clocks::noise(&g.samples, self.limits),
        }
    }

    fn halt(&mut self) {
        // The thread ends at its next wake-up, which a closed channel makes at once.
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ClockWatch {
    fn drop(&mut self) {
        self.halt();
    }
}

#[cfg(test)]
mod tests {
    //! The watch against a made-up NVML whose SM clock follows a script in real time: the
    //! timings are noisy when the clock falls while they run, quiet when it holds.
    use super::*;
    use crate::analysis::clocks::IDLE;
    use std::time::Instant;

    /// An SM clock of `mhz(elapsed)`, with the rest of a sample as an H100 gives it.
    struct Scripted {
        t0: Instant,
        mhz: fn(Duration) -> u32,
        reasons: fn(Duration) -> u64,
        app: Option<u32>,
    }

    impl ClockSource for Scripted {
        fn sample(&mut self) -> Option<ClockSample> {
            let t = self.t0.elapsed();
            Some(ClockSample {
                at_us: t.as_micros() as u64,
                sm_mhz: Some((self.mhz)(t)),
                mem_mhz: Some(2619),
                temp_c: Some(43 + t.as_millis() as u32 / 100),
                power_mw: Some(300_000),
                reasons: Some((self.reasons)(t)),
            })
        }

        fn limits(&mut self) -> ClockLimits {
            ClockLimits {
                app_sm_mhz: self.app,
            }
        }
    }

    /// Timed runs lasting `run`: the watch started before them and finished after.
    fn watch_for(src: Scripted, run: Duration) -> Seen {
        let w = ClockWatch::with(Box::new(src), Duration::from_millis(10)).unwrap();
        std::thread::sleep(run);
        w.finish()
    }

    fn script(mhz: fn(Duration) -> u32, reasons: fn(Duration) -> u64) -> Scripted {
        Scripted {
            t0: Instant::now(),
            mhz,
            reasons,
            app: Some(1980),
        }
    }

    #[test]
    fn a_clock_that_falls_while_the_runs_go_marks_them_noisy() {
        // 1980 MHz, then 1600 from 40 ms to 80 ms (a power cap on the way), then 1980.
        let falls = |t: Duration| {
            let ms = t.as_millis();
            if (40..80).contains(&ms) { 1600 } else { 1980 }
        };
        let capped = |t: Duration| {
            let ms = t.as_millis();
            if (40..80).contains(&ms) { 0x4 } else { 0 }
        };
        let seen = watch_for(script(falls, capped), Duration::from_millis(150));
        let noise = seen.noise.expect("a drop in the window is noise");
        assert_eq!(noise.low_mhz, Some(1600));
        assert!(noise.low_samples >= 1 && noise.low_samples < noise.samples);
        let words = noise.to_string();
        assert!(
            words.contains("fell to 1600 MHz, 19% below 1980 MHz"),
            "{words}"
        );
        assert!(words.contains("held back by power cap"), "{words}");
        let c = seen.clocks.unwrap();
        assert_eq!((c.sm_min_mhz, c.sm_max_mhz, c.sm_mhz), (1600, 1980, 1980));
        assert_eq!(c.throttle, vec!["power cap"]);
        assert!(c.samples >= 5, "read while the runs went: {c:?}");
    }

    #[test]
    fn steady_clocks_leave_the_timings_quiet() {
        // The clock moves by a few MHz, and reads idle (and low) only once the runs end.
        let steady = |t: Duration| if t.as_millis() % 20 < 10 { 1980 } else { 1965 };
        let seen = watch_for(script(steady, |_| 0), Duration::from_millis(100));
        assert_eq!(seen.noise, None);
        let c = seen.clocks.unwrap();
        assert_eq!(c.sm_max_mhz, 1980);
        assert!(c.sm_min_mhz >= 1965);
        assert_eq!(c.mem_mhz, Some(2619));
        assert!(c.temp_c.unwrap() >= 43);
        assert_eq!(c.app_sm_mhz, Some(1980));

        let idle_after = |t: Duration| if t.as_millis() < 60 { 1980 } else { 345 };
        let idle_bit = |t: Duration| if t.as_millis() < 60 { 0 } else { IDLE };
        let seen = watch_for(script(idle_after, idle_bit), Duration::from_millis(100));
        assert_eq!(seen.noise, None, "an idle GPU's clock is no drop");
        assert_eq!(seen.clocks.unwrap().sm_min_mhz, 1980);
    }

    #[test]
    fn no_reading_no_watch() {
        struct Silent;
        impl ClockSource for Silent {
            fn sample(&mut self) -> Option<ClockSample> {
                None
            }
            fn limits(&mut self) -> ClockLimits {
                ClockLimits::default()
            }
        }
        assert!(ClockWatch::with(Box::new(Silent), EVERY).is_none());
    }
}
