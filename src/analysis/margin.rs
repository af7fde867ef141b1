//! How far a timing claim holds (or fails) from its bar, against the noise of the times it
//! was judged on. A claim that holds by less than its noise will fail on some learner's run
//! for no reason the lesson teaches, so `gpulab record` and `run` show the margin of every
//! claim about times, and the course keeps each one above its noise.

use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};
use crate::model::results::{LessonResult, Margin, VariantResult};

/// The margin of `claim` on `result`, for claims judged on times (a ratio of two times, two
/// times within a share of each other, a rate or a time against a number, a figure the
/// kernel measured with its clock). None for counts, which have no noise, and for claims
/// whose figures are missing.
pub fn margin(claim: &Claim, result: &LessonResult) -> Option<Margin> {
    let find = |name: &str| result.variants.iter().find(|v| v.name == name);
    match &claim.kind {
        ClaimKind::Ratio {
            a,
            b,
            slower,
            factor,
        } => {
            let (va, vb) = (find(a)?, find(b)?);
            let (ta, tb) = (median(va)?, median(vb)?);
            let (num, den) = if *slower { (ta, tb) } else { (tb, ta) };
            ratio_margin(num, den, *factor, noise(va)? + noise(vb)?)
        }
        ClaimKind::Within { a, b, pct } => {
            let (va, vb) = (find(a)?, find(b)?);
            let (ta, tb) = (median(va)?, median(vb)?);
            if tb <= 0.0 {
                return None;
            }
            let apart = (ta - tb).abs() / tb * 100.0;
            Some(Margin {
                headroom_pct: pct - apart,
                noise_pct: noise(va)? + noise(vb)?,
            })
        }
        ClaimKind::Metric {
            a,
            metric,
            op,
            value,
        } => {
            let v = find(a)?;
            let x = timing_figure(*metric, v)?;
            bound_margin(x, *op, *value, noise(v)?)
        }
        ClaimKind::Measured { a, name, op, value } => {
            let v = find(a)?;
            let x = v.measured.get(name)?.value;
            bound_margin(x, *op, *value, noise(v)?)
        }
        ClaimKind::MeasuredRatio {
            a,
            b,
            name,
            greater,
            factor,
            ..
        } => {
            let (va, vb) = (find(a)?, find(b)?);
            let (xa, xb) = (va.measured.get(name)?.value, vb.measured.get(name)?.value);
            let (num, den) = if *greater { (xa, xb) } else { (xb, xa) };
            ratio_margin(num, den, *factor, noise(va)? + noise(vb)?)
        }
        ClaimKind::MetricRatio {
            a,
            b,
            metric,
            greater,
            factor,
            ..
        } => {
            let (va, vb) = (find(a)?, find(b)?);
            let (xa, xb) = (timing_figure(*metric, va)?, timing_figure(*metric, vb)?);
            let (num, den) = if *greater { (xa, xb) } else { (xb, xa) };
            ratio_margin(num, den, *factor, noise(va)? + noise(vb)?)
        }
        ClaimKind::Correct { .. } | ClaimKind::Makes { .. } | ClaimKind::OutOfLine { .. } => None,
    }
}

/// The median time, where the variant was timed.
fn median(v: &VariantResult) -> Option<f64> {
    v.time_ms.as_ref().map(|t| t.median)
}

/// The spread of a variant's timed runs (half the interquartile range, as a percentage of
/// the median): how much a figure derived from its time moves from run to run. A kernel's
/// own clock readings come from the same launches, so they move with it.
fn noise(v: &VariantResult) -> Option<f64> {
    v.time_ms.as_ref().map(|t| t.spread_pct)
}

/// A figure that comes from timing; counts and compile figures have no noise.
fn timing_figure(m: Metric, v: &VariantResult) -> Option<f64> {
    match m {
        Metric::TimeMs => median(v),
        Metric::Gbps => v.gbps,
        Metric::Gflops => v.gflops,
        Metric::PctOfPeak => v.pct_of_peak,
        _ => None,
    }
}

/// `num / den >= factor`: how many percent the ratio stands above the bar.
fn ratio_margin(num: f64, den: f64, factor: f64, noise_pct: f64) -> Option<Margin> {
    if den <= 0.0 || factor <= 0.0 {
        return None;
    }
    Some(Margin {
        headroom_pct: (num / den / factor - 1.0) * 100.0,
        noise_pct,
    })
}

/// `x op value`: how many percent of the bar `x` stands on the side the claim wants. An
/// equality has no side, so no margin.
fn bound_margin(x: f64, op: CmpOp, value: f64, noise_pct: f64) -> Option<Margin> {
    if value == 0.0 {
        return None;
    }
    let above = (x - value) / value.abs() * 100.0;
    let headroom_pct = match op {
        CmpOp::Gt | CmpOp::Ge => above,
        CmpOp::Lt | CmpOp::Le => -above,
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    Some(Margin {
        headroom_pct,
        noise_pct,
    })
}

/// The margin in words: "12% over the bar, noise ±0.4%", or the warning that the claim
/// holds by less than its noise.
pub fn margin_words(m: &Margin) -> String {
    let head = crate::analysis::claims::sig3(m.headroom_pct.abs());
    let side = if m.headroom_pct >= 0.0 {
        "over"
    } else {
        "under"
    };
    let noise = crate::analysis::claims::sig3(m.noise_pct);
    if m.headroom_pct >= 0.0 && !m.clear_of_noise() {
        format!("only {head}% over the bar, within the noise of ±{noise}%")
    } else {
        format!("{head}% {side} the bar, noise ±{noise}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::TimeMs;

    fn timed(name: &str, median: f64, spread_pct: f64) -> VariantResult {
        VariantResult {
            name: name.into(),
            time_ms: Some(TimeMs {
                median,
                min: median,
                max: median,
                runs: 10,
                spread_pct,
            }),
            ..Default::default()
        }
    }

    fn result(variants: Vec<VariantResult>) -> LessonResult {
        LessonResult {
            lesson: "l".into(),
            source: crate::model::results::Source::Live,
            device: None,
            peak: Default::default(),
            variants,
            expect: Vec::new(),
            compile: None,
            knobs: Vec::new(),
        }
    }

    fn ratio(slower: bool, factor: f64) -> Claim {
        let kind = ClaimKind::Ratio {
            a: "a".into(),
            b: "b".into(),
            slower,
            factor,
        };
        Claim {
            text: String::new(),
            kind,
        }
    }

    fn metric(metric: Metric, op: CmpOp, value: f64) -> Claim {
        let kind = ClaimKind::Metric {
            a: "a".into(),
            metric,
            op,
            value,
        };
        Claim {
            text: String::new(),
            kind,
        }
    }

    #[test]
    fn a_ratio_well_over_its_bar_is_clear_of_noise() {
        let r = result(vec![timed("a", 2.4, 0.5), timed("b", 1.0, 0.5)]);
        let m = margin(&ratio(true, 2.0), &r).unwrap();
        assert!((m.headroom_pct - 20.0).abs() < 1e-9, "{m:?}");
        assert!((m.noise_pct - 1.0).abs() < 1e-9);
        assert!(m.clear_of_noise());
    }

    #[test]
    fn a_ratio_that_holds_by_less_than_its_noise_is_flagged() {
        // 1.03x measured against a 1.0x bar, each time 2% noisy: it could fail next run.
        let r = result(vec![timed("a", 1.0, 2.0), timed("b", 1.03, 2.0)]);
        let m = margin(&ratio(false, 1.0), &r).unwrap();
        assert!(m.headroom_pct > 0.0 && !m.clear_of_noise(), "{m:?}");
        assert!(margin_words(&m).contains("within the noise"));
    }

    #[test]
    fn within_and_bounds_count_toward_the_side_the_claim_wants() {
        let r = result(vec![timed("a", 1.10, 0.1), timed("b", 1.0, 0.1)]);
        let within = ClaimKind::Within {
            a: "a".into(),
            b: "b".into(),
            pct: 25.0,
        };
        let within = Claim {
            text: String::new(),
            kind: within,
        };
        let m = margin(&within, &r).unwrap();
        assert!((m.headroom_pct - 15.0).abs() < 1e-6, "{m:?}");
        let m = margin(&metric(Metric::TimeMs, CmpOp::Le, 1.0), &r).unwrap();
        assert!(
            m.headroom_pct < 0.0,
            "1.10 ms is over a 1.0 ms bound: {m:?}"
        );
    }

    #[test]
    fn counts_have_no_margin() {
        let r = result(vec![timed("a", 1.0, 0.1)]);
        assert!(margin(&metric(Metric::Registers, CmpOp::Le, 32.0), &r).is_none());
        let correct = Claim {
            text: String::new(),
            kind: ClaimKind::Correct { a: "a".into() },
        };
        assert!(margin(&correct, &r).is_none());
    }
}
