//! Timing statistics: medians and spreads of kernel times, when to stop timing, whether two
//! variants really differ, and how a time is written.
//!
//! Medians and the interquartile range rather than mean and standard deviation: GPU timings
//! have rare large outliers (a clock change, another process) that would drag a mean.

use crate::model::results::TimeMs;

/// Middle value (mean of the two middle ones for an even count); NaN for no samples.
pub fn median(xs: &[f64]) -> f64 {
    percentile(xs, 50.0)
}

/// The `p`-th percentile (0..=100, clamped), interpolating linearly between the two nearest
/// ranks (numpy's default); NaN for no samples.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = p.clamp(0.0, 100.0) / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

/// Median, extremes, count, and the spread: half the interquartile range as a percentage of
/// the median. No samples give zeros with `runs: 0` (NaN would not survive JSON).
pub fn summarize(samples: &[f64]) -> TimeMs {
    if samples.is_empty() {
        return TimeMs {
            median: 0.0,
            min: 0.0,
            max: 0.0,
            runs: 0,
            spread_pct: 0.0,
        };
    }
    let med = median(samples);
    let half_iqr = (percentile(samples, 75.0) - percentile(samples, 25.0)) / 2.0;
    TimeMs {
        median: med,
        min: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        runs: samples.len() as u32,
        spread_pct: if med > 0.0 {
            half_iqr / med * 100.0
        } else {
            0.0
        },
    }
}

/// How many of the latest samples the stability check leaves out.
const RECENT: usize = 5;
/// Stable checks in a row needed to stop, so one lucky agreement does not end timing early.
const STABLE_CHECKS: u32 = 2;

/// Decides when a kernel has been timed enough: the median has settled, or the run or time
/// budget is spent.
#[derive(Debug, Clone)]
pub struct Stopper {
    min_runs: usize,
    max_runs: usize,
    max_total_ms: f64,
    tolerance: f64,
    samples: Vec<f64>,
    total_ms: f64,
    stable: u32,
}

impl Stopper {
    /// `tolerance` is relative: 0.01 stops once the last five samples move the median by less
    /// than 1%.
    pub fn new(min_runs: usize, max_runs: usize, max_total_ms: f64, tolerance: f64) -> Stopper {
        Stopper {
            min_runs,
            max_runs,
            max_total_ms,
            tolerance,
            samples: Vec::new(),
            total_ms: 0.0,
            stable: 0,
        }
    }

    /// Adds one time; true when timing should stop.
    pub fn push(&mut self, ms: f64) -> bool {
        self.samples.push(ms);
        self.total_ms += ms;
        let runs = self.samples.len();
        if runs >= self.max_runs || self.total_ms >= self.max_total_ms {
            return true;
        }
        // The median without the latest samples needs some samples left to be a median.
        if runs < self.min_runs || runs <= RECENT {
            return false;
        }
        let all = median(&self.samples);
        let earlier = median(&self.samples[..runs - RECENT]);
        let change = if all == 0.0 {
            if earlier == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            ((all - earlier) / all).abs()
        };
        self.stable = if change < self.tolerance {
            self.stable + 1
        } else {
            0
        };
        self.stable >= STABLE_CHECKS
    }

    /// Every time pushed so far, in order.
    pub fn samples(&self) -> &[f64] {
        &self.samples
    }
}

/// Whether two timings differ by more than their noise: the medians are further apart than
/// both spreads together (each spread turned back into milliseconds), and by more than 1% of
/// the faster one, since a spread of zero on a few samples is luck, not precision.
pub fn differ_beyond_noise(a: &TimeMs, b: &TimeMs) -> bool {
    let gap = (a.median - b.median).abs();
    let noise = a.median * a.spread_pct / 100.0 + b.median * b.spread_pct / 100.0;
    gap > noise && gap > 0.01 * a.median.min(b.median)
}

/// A time in milliseconds written with 3 significant figures in the unit that suits it:
/// "1.63 ms", "17.0 ms", "245 µs", "2.50 s". Below 1 µs it keeps two decimals ("0.85 µs"):
/// CUDA events resolve about half a microsecond, so more digits would be noise.
pub fn fmt_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "n/a".to_string();
    }
    if ms < 0.0 {
        return format!("-{}", fmt_ms(-ms));
    }
    let us = ms * 1000.0;
    if us < 1.0 {
        return format!("{us:.2} µs");
    }
    // Unit chosen after rounding, so 999.7 µs reads "1.00 ms", not "1000 µs".
    if round_sig3(us) < 1000.0 {
        format!("{} µs", sig3(us))
    } else if round_sig3(ms) < 1000.0 {
        format!("{} ms", sig3(ms))
    } else {
        format!("{} s", sig3(ms / 1000.0))
    }
}

fn round_sig3(v: f64) -> f64 {
    let scale = 10f64.powi(2 - v.log10().floor() as i32);
    (v * scale).round() / scale
}

/// `v` (≥ 1) to 3 significant figures, keeping trailing zeros ("17.0").
fn sig3(v: f64) -> String {
    let r = round_sig3(v);
    let decimals = (2 - r.log10().floor() as i32).max(0) as usize;
    format!("{r:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(median: f64, spread_pct: f64) -> TimeMs {
        TimeMs {
            median,
            min: median,
            max: median,
            runs: 20,
            spread_pct,
        }
    }

    #[test]
    fn median_odd_even_and_unsorted() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn percentile_interpolates_between_ranks() {
        let xs = [10.0, 20.0, 30.0, 40.0, 50.0];
        assert_eq!(percentile(&xs, 0.0), 10.0);
        assert_eq!(percentile(&xs, 25.0), 20.0);
        assert_eq!(percentile(&xs, 100.0), 50.0);
        // Rank 0.1 × 4 = 0.4: 40% of the way from 10 to 20.
        assert!((percentile(&xs, 10.0) - 14.0).abs() < 1e-12);
        assert_eq!(percentile(&[1.0, 2.0], 50.0), 1.5);
    }

    #[test]
    fn summary_spread_is_half_the_iqr_over_the_median() {
        // Quartiles of 1..=9 are 3 and 7: half the IQR is 2, the median 5 → 40%.
        let s = summarize(&[9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!((s.median, s.min, s.max, s.runs), (5.0, 1.0, 9.0, 9));
        assert!((s.spread_pct - 40.0).abs() < 1e-9);
        // One wild outlier moves neither the median nor the spread much.
        let s = summarize(&[1.0, 1.0, 1.0, 1.0, 50.0]);
        assert_eq!((s.median, s.spread_pct, s.max), (1.0, 0.0, 50.0));
        assert_eq!(summarize(&[]).runs, 0);
    }

    #[test]
    fn stopper_stops_when_the_median_settles() {
        let mut s = Stopper::new(10, 1000, 1e9, 0.01);
        // Identical times: the first check is at run 10, the second stable one at run 11.
        let stopped_at = (1..=100).find(|_| s.push(2.0)).unwrap();
        assert_eq!(stopped_at, 11);
        assert_eq!(s.samples().len(), 11);
    }

    #[test]
    fn stopper_keeps_going_while_the_median_drifts() {
        let mut s = Stopper::new(6, 30, 1e9, 0.01);
        // Times keep growing 10% a run, so the median always moves: only max_runs stops it.
        let mut ms = 1.0;
        let stopped_at = (1..=100)
            .find(|_| {
                ms *= 1.1;
                s.push(ms)
            })
            .unwrap();
        assert_eq!(stopped_at, 30);
    }

    #[test]
    fn stopper_needs_two_stable_checks_in_a_row() {
        let mut s = Stopper::new(6, 100, 1e9, 0.01);
        for _ in 0..5 {
            assert!(!s.push(1.0));
        }
        // Run 6: median of all = 1 (six ones) vs the first one = 1 → first stable check.
        assert!(!s.push(1.0));
        // Run 7: an outlier leaves the median at 1 → second stable check.
        assert!(s.push(9.0));

        // An unstable check starts the count again.
        let mut s = Stopper::new(6, 100, 1e9, 0.01);
        let verdicts: Vec<bool> = [1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
            .into_iter()
            .map(|x| s.push(x))
            .collect();
        // Run 6: 1 vs median(1) — stable. Run 7: 1 vs median(1, 2) = 1.5 — unstable.
        // Run 8: 1 vs median(1, 2, 1) — stable, but only once in a row. Run 9: stable again.
        assert_eq!(verdicts[5..], [false, false, false, true]);
    }

    #[test]
    fn stopper_respects_the_time_budget() {
        let mut s = Stopper::new(100, 1000, 10.0, 0.0);
        assert!(!s.push(4.0));
        assert!(!s.push(4.0));
        assert!(s.push(4.0));
    }

    #[test]
    fn noise_decides_whether_times_differ() {
        // 10.4× apart: clearly different.
        assert!(differ_beyond_noise(&t(1.63, 0.2), &t(17.0, 0.3)));
        // 2% apart with 1.5% spreads each (0.03 ms of noise for a 0.02 ms gap): same.
        assert!(!differ_beyond_noise(&t(1.0, 1.5), &t(1.02, 1.5)));
        // Same gap, tight spreads: different.
        assert!(differ_beyond_noise(&t(1.0, 0.1), &t(1.02, 0.1)));
        // 0.5% apart with zero spread is still below the 1% floor.
        assert!(!differ_beyond_noise(&t(1.0, 0.0), &t(1.005, 0.0)));
    }

    #[test]
    fn times_have_three_significant_figures() {
        assert_eq!(fmt_ms(1.634), "1.63 ms");
        assert_eq!(fmt_ms(17.0), "17.0 ms");
        assert_eq!(fmt_ms(0.245), "245 µs");
        assert_eq!(fmt_ms(0.00085), "0.85 µs");
        assert_eq!(fmt_ms(0.0123), "12.3 µs");
        assert_eq!(fmt_ms(0.9997), "1.00 ms");
        assert_eq!(fmt_ms(999.9), "1.00 s");
        assert_eq!(fmt_ms(2500.0), "2.50 s");
        assert_eq!(fmt_ms(99.96), "100 ms");
        assert_eq!(fmt_ms(f64::NAN), "n/a");
    }
}
