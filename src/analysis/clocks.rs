//! What the GPU ran at while a variant was timed: NVML's clock, temperature, power and
//! throttle-reason samples, summed up for the result, and whether they make the timings
//! noisy (the clock fell, or something held it back).
//!
//! A GPU's SM clock moves with its power and temperature: a run taken while the clock fell
//! from 1980 to 1600 MHz is a fifth slower for no fault of the kernel. Two signs are
//! looked at, in every sample the GPU was not idle in (an idle GPU's clock sinks, but
//! nothing timed ran then): an SM clock more than `DROP` below the highest seen in the
//! window or below the clock the applications setting asks for, and a throttle reason
//! other than idleness and the applications setting (which are what a steady run has).

use crate::model::results::Clocks;

/// One NVML reading. Each figure is None where NVML did not give it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockSample {
    /// Wall-clock microseconds since the epoch.
    pub at_us: u64,
    pub sm_mhz: Option<u32>,
    pub mem_mhz: Option<u32>,
    pub temp_c: Option<u32>,
    pub power_mw: Option<u32>,
    /// `nvmlClocksEventReasons` bits.
    pub reasons: Option<u64>,
}

/// The device's clock settings, read once: what a steady run should reach.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockLimits {
    /// The SM clock the applications setting asks for.
    pub app_sm_mhz: Option<u32>,
}

/// NVML's clock-event (throttle) reasons, by bit (`nvmlClocksEventReason*`).
pub const IDLE: u64 = 0x1;
pub const APPLICATIONS_SETTING: u64 = 0x2;
const WORDS: [(u64, &str); 7] = [
    (0x4, "power cap"),
    (0x8, "hardware slowdown"),
    (0x10, "sync boost"),
    (0x20, "thermal slowdown"),
    (0x40, "hardware thermal slowdown"),
    (0x80, "power brake"),
    (0x100, "display clock setting"),
];

/// How far below the reference clock a sample may run before the timings are noisy.
pub const DROP: f64 = 0.05;

/// The reasons set in `bits` that slow a timed run, in words (idleness and the
/// applications setting left out); an unknown bit is named by its value.
pub fn reason_words(bits: u64) -> Vec<String> {
    let mut out: Vec<String> = (WORDS.iter())
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, w)| w.to_string())
        .collect();
    let known = WORDS
        .iter()
        .fold(IDLE | APPLICATIONS_SETTING, |a, (b, _)| a | b);
    let unknown = bits & !known;
    if unknown != 0 {
        out.push(format!("reason {unknown:#x}"));
    }
    out
}

/// Samples taken while something may have been timed: those with an SM clock, the idle
/// GPU's left out.
fn busy(samples: &[ClockSample]) -> impl Iterator<Item = &ClockSample> {
    (samples.iter()).filter(|s| s.sm_mhz.is_some() && s.reasons.is_none_or(|r| r & IDLE == 0))
}

fn median(mut xs: Vec<u32>) -> Option<u32> {
    xs.sort_unstable();
    xs.get(xs.len() / 2).copied()
}

/// The samples as a result's figures; None when no sample has an SM clock.
pub fn summarize(samples: &[ClockSample], limits: ClockLimits) -> Option<Clocks> {
    // The busy samples when there are any; else every sample, which still says the clock
    // and temperature the GPU was at.
    let busy: Vec<&ClockSample> = busy(samples).collect();
    let used: Vec<&ClockSample> = if busy.is_empty() {
        samples.iter().filter(|s| s.sm_mhz.is_some()).collect()
    } else {
        busy
    };
    let sm: Vec<u32> = used.iter().filter_map(|s| s.sm_mhz).collect();
    let mut throttle: Vec<String> = Vec::new();
    for s in &used {
        for w in reason_words(s.reasons.unwrap_or(0)) {
            if !throttle.contains(&w) {
                throttle.push(w);
            }
        }
    }
    Some(Clocks {
        sm_mhz: median(sm.clone())?,
        sm_min_mhz: *sm.iter().min()?,
        sm_max_mhz: *sm.iter().max()?,
        mem_mhz: median(used.iter().filter_map(|s| s.mem_mhz).collect()),
        temp_c: used.iter().filter_map(|s| s.temp_c).max(),
        power_w: (used.iter().filter_map(|s| s.power_mw).max()).map(|mw| mw as f64 / 1000.0),
        app_sm_mhz: limits.app_sm_mhz,
        throttle,
        samples: used.len() as u32,
    })
}

/// Why the clocks make a variant's timings noisy.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockNoise {
    /// The lowest SM clock of a busy sample, when it fell more than `DROP` below
    /// `reference_mhz`.
    pub low_mhz: Option<u32>,
    /// The clock it is measured against: the highest seen, or the applications setting's
    /// when that is higher.
    pub reference_mhz: u32,
    /// Busy samples below it, of `samples`.
    pub low_samples: usize,
    pub samples: usize,
    /// Throttle reasons set in busy samples, in words.
    pub reasons: Vec<String>,
}

/// Whether the clocks make the timings noisy: a busy sample's SM clock more than `DROP`
/// below the highest seen or the applications setting's, or a throttle reason set. None
/// when neither (or no busy sample says).
pub fn noise(samples: &[ClockSample], limits: ClockLimits) -> Option<ClockNoise> {
    let busy: Vec<&ClockSample> = busy(samples).collect();
    let highest = busy.iter().filter_map(|s| s.sm_mhz).max()?;
    let reference = highest.max(limits.app_sm_mhz.unwrap_or(0));
    let floor = reference as f64 * (1.0 - DROP);
    let low: Vec<u32> = (busy.iter())
        .filter_map(|s| s.sm_mhz)
        .filter(|&m| (m as f64) < floor)
        .collect();
    let mut reasons: Vec<String> = Vec::new();
    for s in &busy {
        for w in reason_words(s.reasons.unwrap_or(0)) {
            if !reasons.contains(&w) {
                reasons.push(w);
            }
        }
    }
    if low.is_empty() && reasons.is_empty() {
        return None;
    }
    Some(ClockNoise {
        low_mhz: low.iter().min().copied(),
        reference_mhz: reference,
        low_samples: low.len(),
        samples: busy.len(),
        reasons,
    })
}

impl std::fmt::Display for ClockNoise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(low) = self.low_mhz {
            let pct = 100.0 * (1.0 - low as f64 / self.reference_mhz as f64);
            parts.push(format!(
                "the SM clock fell to {low} MHz, {pct:.0}% below {} MHz, in {} of {} samples",
                self.reference_mhz, self.low_samples, self.samples
            ));
        }
        if !self.reasons.is_empty() {
            parts.push(format!("clocks held back by {}", self.reasons.join(", ")));
        }
        write!(f, "timings noisy: {}", parts.join("; "))
    }
}

/// "1980 MHz, 43 °C" (a range where the SM clock moved more than 1%), for a card or a
/// report line.
pub fn short_words(c: &Clocks) -> String {
    let sm = if (c.sm_max_mhz - c.sm_min_mhz) as f64 > 0.01 * c.sm_max_mhz as f64 {
        format!("{}–{} MHz", c.sm_min_mhz, c.sm_max_mhz)
    } else {
        format!("{} MHz", c.sm_mhz)
    };
    match c.temp_c {
        Some(t) => format!("{sm}, {t} °C"),
        None => sm,
    }
}

/// Every figure, for the detail pane and the report: "SM 1980 MHz (1965–1980), memory
/// 2619 MHz, 43 °C, 312 W; held back by power cap".
pub fn long_words(c: &Clocks) -> String {
    let mut parts = vec![if c.sm_min_mhz == c.sm_max_mhz {
        format!("SM {} MHz", c.sm_mhz)
    } else {
        format!("SM {} MHz ({}–{})", c.sm_mhz, c.sm_min_mhz, c.sm_max_mhz)
    }];
    if let Some(m) = c.mem_mhz {
        parts.push(format!("memory {m} MHz"));
    }
    if let Some(t) = c.temp_c {
        parts.push(format!("{t} °C"));
    }
    if let Some(p) = c.power_w {
        parts.push(format!("{p:.0} W"));
    }
    let mut out = parts.join(", ");
    if !c.throttle.is_empty() {
        out.push_str(&format!("; held back by {}", c.throttle.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(sm: u32, reasons: u64) -> ClockSample {
        ClockSample {
            at_us: 0,
            sm_mhz: Some(sm),
            mem_mhz: Some(2619),
            temp_c: Some(43),
            power_mw: Some(312_000),
            reasons: Some(reasons),
        }
    }

    const APP: ClockLimits = ClockLimits {
        app_sm_mhz: Some(1980),
    };

    #[test]
    fn steady_clocks_are_quiet_and_a_drop_or_a_power_cap_is_noise() {
        let steady = [at(1980, 0), at(1980, APPLICATIONS_SETTING), at(1965, 0)];
        assert_eq!(noise(&steady, APP), None);
        let c = summarize(&steady, APP).unwrap();
        assert_eq!((c.sm_mhz, c.sm_min_mhz, c.sm_max_mhz), (1980, 1965, 1980));
        assert_eq!(short_words(&c), "1980 MHz, 43 °C");
        assert_eq!(c.power_w, Some(312.0));

        let dropped = [at(1980, 0), at(1620, 0), at(1980, 0)];
        let n = noise(&dropped, APP).unwrap();
        assert_eq!((n.low_mhz, n.low_samples, n.samples), (Some(1620), 1, 3));
        let words = n.to_string();
        assert!(
            words.starts_with("timings noisy: the SM clock fell to 1620 MHz, 18% below 1980"),
            "{words}"
        );
        assert_eq!(
            short_words(&summarize(&dropped, APP).unwrap()),
            "1620–1980 MHz, 43 °C"
        );

        let capped = [at(1980, 0x4), at(1980, 0)];
        let n = noise(&capped, APP).unwrap();
        assert_eq!(n.low_mhz, None);
        assert_eq!(
            n.to_string(),
            "timings noisy: clocks held back by power cap"
        );
    }

    #[test]
    fn below_the_applications_clock_is_a_drop_even_when_steady() {
        let slow = [at(1700, 0), at(1700, 0)];
        assert!(noise(&slow, APP).is_some());
        assert_eq!(noise(&slow, ClockLimits::default()), None);
    }

    #[test]
    fn an_idle_gpus_clock_says_nothing_of_the_runs() {
        let s = [at(1980, 0), at(345, IDLE), at(1980, IDLE | 0x4)];
        assert_eq!(noise(&s, APP), None);
        let c = summarize(&s, APP).unwrap();
        assert_eq!((c.sm_min_mhz, c.samples), (1980, 1));
        // With nothing but idle samples there is still a clock to show, and no verdict.
        let idle = [at(345, IDLE)];
        assert_eq!(noise(&idle, APP), None);
        assert_eq!(summarize(&idle, APP).unwrap().sm_mhz, 345);
        assert_eq!(summarize(&[], APP), None);
    }

    #[test]
    fn reasons_are_named_and_unknown_bits_kept() {
        assert_eq!(
            reason_words(IDLE | APPLICATIONS_SETTING),
            Vec::<String>::new()
        );
        assert_eq!(
            reason_words(0x20 | 0x4),
            vec!["power cap", "thermal slowdown"]
        );
        assert_eq!(reason_words(0x1000), vec!["reason 0x1000"]);
    }
}
