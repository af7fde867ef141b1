//! The lesson's `expect` claims: parsed when the lesson loads, evaluated against each run's
//! results. A claim whose figure was not measured is "not measured", never "holds".

use crate::model::results::{ClaimResult, LessonResult, VariantResult};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// As written in the lesson.
    pub text: String,
    pub kind: ClaimKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// `A slower than B by >= Kx` (`slower: true`) or `A faster than B by >= Kx`.
    Ratio {
        a: String,
        b: String,
        slower: bool,
        factor: f64,
    },
    /// `A within P% of B`.
    Within { a: String, b: String, pct: f64 },
    /// `A <metric> <op> <number>`.
    Metric {
        a: String,
        metric: Metric,
        op: CmpOp,
        value: f64,
    },
    /// `A correct`.
    Correct { a: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    TimeMs,
    Gbps,
    Gflops,
    PctOfPeak,
    Registers,
    StackFrame,
    SpillStores,
    SpillLoads,
    Smem,
    Occupancy,
    SharedWavefrontsPerRequest,
    SharedLoadWavefrontsPerRequest,
    SharedStoreWavefrontsPerRequest,
    SharedConflictsPerRequest,
    GlobalSectorsPerRequest,
    ConstantDistinctPerRequest,
    LocalBytes,
}

impl Metric {
    pub const ALL: [(&'static str, Metric); 17] = [
        ("time_ms", Metric::TimeMs),
        ("gbps", Metric::Gbps),
        ("gflops", Metric::Gflops),
        ("pct_of_peak", Metric::PctOfPeak),
        ("registers", Metric::Registers),
        ("stack_frame", Metric::StackFrame),
        ("spill_stores", Metric::SpillStores),
        ("spill_loads", Metric::SpillLoads),
        ("smem", Metric::Smem),
        ("occupancy", Metric::Occupancy),
        (
            "shared.wavefronts_per_request",
            Metric::SharedWavefrontsPerRequest,
        ),
        (
            "shared.load_wavefronts_per_request",
            Metric::SharedLoadWavefrontsPerRequest,
        ),
        (
            "shared.store_wavefronts_per_request",
            Metric::SharedStoreWavefrontsPerRequest,
        ),
        (
            "shared.conflicts_per_request",
            Metric::SharedConflictsPerRequest,
        ),
        (
            "global.sectors_per_request",
            Metric::GlobalSectorsPerRequest,
        ),
        (
            "constant.distinct_per_request",
            Metric::ConstantDistinctPerRequest,
        ),
        ("local.bytes", Metric::LocalBytes),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }

    /// Figures that come from timing the variant, and so mean nothing if its output is wrong.
    fn is_timing(self) -> bool {
        matches!(
            self,
            Metric::TimeMs | Metric::Gbps | Metric::Gflops | Metric::PctOfPeak
        )
    }

    /// The figure for `v`, or why there is none.
    fn read(self, v: &VariantResult) -> Result<f64, String> {
        let name = &v.name;
        let ptxas = || {
            v.ptxas
                .as_ref()
                .ok_or_else(|| format!("not measured (no compile report for `{name}`)"))
        };
        let mem = || {
            v.memory
                .as_ref()
                .ok_or_else(|| format!("not measured (no trace of `{name}`)"))
        };
        let per = |num: f64, requests: u64, space: &str| {
            if requests == 0 {
                Err(format!(
                    "not measured (no {space} requests traced in `{name}`)"
                ))
            } else {
                Ok(num / requests as f64)
            }
        };
        let missing = |what: &str| format!("not measured (no {what} for `{name}`)");
        match self {
            Metric::TimeMs => v
                .time_ms
                .as_ref()
                .map(|t| t.median)
                .ok_or_else(|| missing("time")),
            Metric::Gbps => v.gbps.ok_or_else(|| missing("GB/s")),
            Metric::Gflops => v.gflops.ok_or_else(|| missing("GFLOP/s")),
            Metric::PctOfPeak => v.pct_of_peak.ok_or_else(|| missing("% of peak")),
            Metric::Registers => Ok(ptxas()?.registers as f64),
            Metric::StackFrame => Ok(ptxas()?.stack_frame as f64),
            Metric::SpillStores => Ok(ptxas()?.spill_stores as f64),
            Metric::SpillLoads => Ok(ptxas()?.spill_loads as f64),
            Metric::Smem => Ok(ptxas()?.smem as f64),
            Metric::Occupancy => v
                .occupancy
                .as_ref()
                .map(|o| o.ratio)
                .ok_or_else(|| missing("occupancy")),
            Metric::SharedWavefrontsPerRequest => {
                let s = &mem()?.shared;
                per(s.wavefronts as f64, s.requests, "shared")
            }
            Metric::SharedLoadWavefrontsPerRequest => {
                let s = &mem()?.shared.ld;
                per(s.wavefronts as f64, s.requests, "shared load")
            }
            Metric::SharedStoreWavefrontsPerRequest => {
                let s = &mem()?.shared.st;
                per(s.wavefronts as f64, s.requests, "shared store")
            }
            Metric::SharedConflictsPerRequest => {
                let s = &mem()?.shared;
                let extra = s.wavefronts.saturating_sub(s.ideal_wavefronts);
                per(extra as f64, s.requests, "shared")
            }
            Metric::GlobalSectorsPerRequest => {
                let g = &mem()?.global;
                per(g.sectors as f64, g.requests, "global")
            }
            Metric::ConstantDistinctPerRequest => {
                let c = &mem()?.constant;
                per(c.distinct as f64, c.requests, "constant")
            }
            Metric::LocalBytes => Ok(mem()?.local.bytes as f64),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    const ALL: [(&'static str, CmpOp); 6] = [
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        (">", CmpOp::Gt),
        (">=", CmpOp::Ge),
    ];

    pub fn symbol(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("?", |(s, _)| s)
    }

    fn holds(self, x: f64, y: f64) -> bool {
        // Per-request figures are ratios of counts; compare them with a little slack so that
        // 31.999999 (from scaling a sample) equals 32.
        let eq = (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
        match self {
            CmpOp::Eq => eq,
            CmpOp::Ne => !eq,
            CmpOp::Lt => x < y && !eq,
            CmpOp::Le => x < y || eq,
            CmpOp::Gt => x > y && !eq,
            CmpOp::Ge => x > y || eq,
        }
    }
}

const FORMS: &str = "`A slower than B by >= Kx`, `A faster than B by >= Kx`, \
                     `A within P% of B`, `A <metric> <op> <number>` or `A correct`";

/// Parse one `expect` entry; variant names must be among `variant_names`.
pub fn parse_claim(text: &str, variant_names: &[&str]) -> Result<Claim, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let variant = |w: &str| -> Result<String, String> {
        if variant_names.contains(&w) {
            Ok(w.to_string())
        } else {
            Err(format!(
                "unknown variant `{w}` in claim (variants: {})",
                variant_names.join(", ")
            ))
        }
    };
    let Some(&first) = words.first() else {
        return Err(format!("empty claim; write {FORMS}"));
    };
    let a = variant(first)?;
    let kind = match words[1..] {
        ["correct"] => ClaimKind::Correct { a },
        [dir @ ("slower" | "faster"), "than", b, "by", ref rest @ ..] => {
            let factor = parse_factor(&rest.concat())?;
            ClaimKind::Ratio {
                a,
                b: variant(b)?,
                slower: dir == "slower",
                factor,
            }
        }
        ["within", pct, "of", b] | ["within", pct, "%", "of", b] => {
            let p = pct.strip_suffix('%').unwrap_or(pct);
            let pct = match p.parse::<f64>() {
                Ok(x) if x >= 0.0 && x.is_finite() => x,
                _ => return Err(format!("`{pct}` is not a percentage such as `10%`")),
            };
            ClaimKind::Within {
                a,
                b: variant(b)?,
                pct,
            }
        }
        [metric, op, number] => {
            let Some(&(_, metric)) = Metric::ALL.iter().find(|(n, _)| *n == metric) else {
                let names: Vec<&str> = Metric::ALL.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown metric `{metric}` (metrics: {})",
                    names.join(", ")
                ));
            };
            let Some(&(_, op)) = CmpOp::ALL.iter().find(|(s, _)| *s == op) else {
                return Err(format!(
                    "unknown comparison `{op}` (use one of == != < <= > >=)"
                ));
            };
            let value = number
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("`{number}` is not a number"))?;
            ClaimKind::Metric {
                a,
                metric,
                op,
                value,
            }
        }
        _ => return Err(format!("cannot read claim `{text}`; write {FORMS}")),
    };
    Ok(Claim {
        text: text.to_string(),
        kind,
    })
}

/// `>=5x`, from `by >= 5x` or `by >= 5 x`.
fn parse_factor(s: &str) -> Result<f64, String> {
    let bad = || format!("expected `by >= Kx` (e.g. `by >= 5x`), found `by {s}`");
    let k = s.strip_prefix(">=").ok_or_else(bad)?;
    let k = k
        .strip_suffix('x')
        .or_else(|| k.strip_suffix('×'))
        .ok_or_else(bad)?;
    match k.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(bad()),
    }
}

impl Claim {
    /// The variant the claim is about (its first word).
    pub fn subject(&self) -> &str {
        match &self.kind {
            ClaimKind::Ratio { a, .. }
            | ClaimKind::Within { a, .. }
            | ClaimKind::Metric { a, .. }
            | ClaimKind::Correct { a } => a,
        }
    }
}

/// Check a claim against a run's results.
pub fn evaluate(claim: &Claim, result: &LessonResult) -> ClaimResult {
    let (holds, detail) = match judge(&claim.kind, result) {
        Ok((holds, detail)) => (Some(holds), detail),
        Err(Verdict::NotMeasured(d)) => (None, d),
        Err(Verdict::Wrong(d)) => (Some(false), d),
    };
    ClaimResult {
        claim: claim.text.clone(),
        holds,
        detail,
    }
}

enum Verdict {
    NotMeasured(String),
    Wrong(String),
}

fn find<'r>(result: &'r LessonResult, name: &str) -> Result<&'r VariantResult, Verdict> {
    result
        .variants
        .iter()
        .find(|v| v.name == name)
        .ok_or_else(|| Verdict::NotMeasured(format!("not measured (`{name}` was not run)")))
}

/// A variant whose output is wrong has no meaningful time.
fn timed(v: &VariantResult) -> Result<f64, Verdict> {
    if v.correct == Some(false) {
        let why = v
            .error
            .as_deref()
            .unwrap_or("output does not match the reference");
        return Err(Verdict::Wrong(format!("`{}` is incorrect: {why}", v.name)));
    }
    Metric::TimeMs.read(v).map_err(Verdict::NotMeasured)
}

fn judge(kind: &ClaimKind, result: &LessonResult) -> Result<(bool, String), Verdict> {
    match kind {
        ClaimKind::Correct { a } => {
            let v = find(result, a)?;
            match v.correct {
                Some(true) => Ok((true, "output matches the reference".into())),
                Some(false) => Ok((
                    false,
                    v.error
                        .clone()
                        .unwrap_or_else(|| "output does not match the reference".into()),
                )),
                None => Err(Verdict::NotMeasured(format!(
                    "not measured (`{a}` was not checked)"
                ))),
            }
        }
        ClaimKind::Ratio {
            a,
            b,
            slower,
            factor,
        } => {
            let ta = timed(find(result, a)?)?;
            let tb = timed(find(result, b)?)?;
            let (num, den) = if *slower { (ta, tb) } else { (tb, ta) };
            if den <= 0.0 {
                return Err(Verdict::NotMeasured(format!(
                    "not measured (a time of {} ms)",
                    sig3(den)
                )));
            }
            let ratio = num / den;
            let word = if *slower { "" } else { " faster" };
            let detail = format!(
                "{} ms vs {} ms = {}x{word} (needs >= {factor}x)",
                sig3(ta),
                sig3(tb),
                sig3(ratio)
            );
            Ok((ratio >= *factor, detail))
        }
        ClaimKind::Within { a, b, pct } => {
            let ta = timed(find(result, a)?)?;
            let tb = timed(find(result, b)?)?;
            let apart = if tb > 0.0 {
                (ta - tb).abs() / tb * 100.0
            } else {
                f64::INFINITY
            };
            let detail = format!(
                "{} ms vs {} ms = {}% apart (needs <= {pct}%)",
                sig3(ta),
                sig3(tb),
                sig3(apart)
            );
            Ok(((ta - tb).abs() <= pct / 100.0 * tb, detail))
        }
        ClaimKind::Metric {
            a,
            metric,
            op,
            value,
        } => {
            let v = find(result, a)?;
            let x = if metric.is_timing() {
                timed(v)?;
                metric.read(v).map_err(Verdict::NotMeasured)?
            } else {
                metric.read(v).map_err(Verdict::NotMeasured)?
            };
            let detail = format!(
                "{} = {} (needs {} {value})",
                metric.name(),
                figure(x),
                op.symbol()
            );
            Ok((op.holds(x, *value), detail))
        }
    }
}

/// Three significant figures, the way times are shown: 17.0, 1.63, 0.412.
pub fn sig3(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        format!("{x}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Counts as integers, ratios with three significant figures.
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        sig3(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::*;

    const NAMES: [&str; 3] = ["stride-1", "stride-32", "padded"];

    fn claim(s: &str) -> Claim {
        parse_claim(s, &NAMES).unwrap()
    }

    fn timed_variant(name: &str, ms: f64) -> VariantResult {
        VariantResult {
            name: name.into(),
            correct: Some(true),
            time_ms: Some(TimeMs {
                median: ms,
                min: ms,
                max: ms,
                runs: 10,
                spread_pct: 0.1,
            }),
            ..Default::default()
        }
    }

    fn result(variants: Vec<VariantResult>) -> LessonResult {
        LessonResult {
            lesson: "shared-banks".into(),
            source: Source::Live,
            device: None,
            peak: Peak::default(),
            variants,
            expect: Vec::new(),
            compile: None,
        }
    }

    #[test]
    fn parses_every_form() {
        assert_eq!(
            claim("stride-32 slower than stride-1 by >= 5x").kind,
            ClaimKind::Ratio {
                a: "stride-32".into(),
                b: "stride-1".into(),
                slower: true,
                factor: 5.0
            }
        );
        assert_eq!(
            claim("padded faster than stride-32 by >= 2.5 x").kind,
            ClaimKind::Ratio {
                a: "padded".into(),
                b: "stride-32".into(),
                slower: false,
                factor: 2.5
            }
        );
        assert_eq!(
            claim("padded within 10% of stride-1").kind,
            ClaimKind::Within {
                a: "padded".into(),
                b: "stride-1".into(),
                pct: 10.0
            }
        );
        assert_eq!(
            claim("stride-32 shared.wavefronts_per_request == 32").kind,
            ClaimKind::Metric {
                a: "stride-32".into(),
                metric: Metric::SharedWavefrontsPerRequest,
                op: CmpOp::Eq,
                value: 32.0
            }
        );
        assert_eq!(
            claim("padded correct").kind,
            ClaimKind::Correct { a: "padded".into() }
        );
        assert_eq!(claim("padded correct").subject(), "padded");
        assert_eq!(claim("padded within 5 % of stride-1").subject(), "padded");
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
        let cases = [
            ("stride-64 correct", "unknown variant `stride-64`"),
            (
                "stride-1 slower than nope by >= 2x",
                "unknown variant `nope`",
            ),
            ("stride-1 slower than padded by 2x", "expected `by >= Kx`"),
            (
                "stride-1 slower than padded by >= twox",
                "expected `by >= Kx`",
            ),
            ("stride-1 within ten% of padded", "not a percentage"),
            ("stride-1 regs == 3", "unknown metric `regs`"),
            ("stride-1 registers =< 3", "unknown comparison `=<`"),
            ("stride-1 registers <= many", "`many` is not a number"),
            ("stride-1 is fast", "cannot read claim"),
            ("", "empty claim"),
        ];
        for (text, phrase) in cases {
            let e = parse_claim(text, &NAMES).unwrap_err();
            assert!(e.contains(phrase), "{text}: {e}");
        }
    }

    #[test]
    fn ratio_claims_compare_medians() {
        let r = result(vec![
            timed_variant("stride-1", 1.63),
            timed_variant("stride-32", 17.0),
        ]);
        let c = evaluate(&claim("stride-32 slower than stride-1 by >= 5x"), &r);
        assert_eq!(c.holds, Some(true));
        assert_eq!(c.detail, "17.0 ms vs 1.63 ms = 10.4x (needs >= 5x)");
        let c = evaluate(&claim("stride-32 slower than stride-1 by >= 11x"), &r);
        assert_eq!(c.holds, Some(false));
        let c = evaluate(&claim("stride-1 faster than stride-32 by >= 10x"), &r);
        assert_eq!(c.holds, Some(true), "{}", c.detail);
        assert!(c.detail.contains("10.4x faster"), "{}", c.detail);
        let c = evaluate(&claim("stride-32 faster than stride-1 by >= 1x"), &r);
        assert_eq!(c.holds, Some(false));
    }

    #[test]
    fn within_claims() {
        let r = result(vec![
            timed_variant("stride-1", 2.0),
            timed_variant("padded", 2.15),
        ]);
        let c = evaluate(&claim("padded within 10% of stride-1"), &r);
        assert_eq!(c.holds, Some(true));
        assert_eq!(c.detail, "2.15 ms vs 2.00 ms = 7.50% apart (needs <= 10%)");
        let c = evaluate(&claim("padded within 5% of stride-1"), &r);
        assert_eq!(c.holds, Some(false));
    }

    #[test]
    fn incorrect_variants_fail_timing_claims() {
        let mut bad = timed_variant("stride-32", 17.0);
        bad.correct = Some(false);
        bad.error = Some("mismatch at index 3".into());
        let r = result(vec![timed_variant("stride-1", 1.63), bad]);
        let c = evaluate(&claim("stride-32 slower than stride-1 by >= 5x"), &r);
        assert_eq!(c.holds, Some(false));
        assert!(c.detail.contains("mismatch at index 3"), "{}", c.detail);
        let c = evaluate(&claim("stride-32 time_ms > 1"), &r);
        assert_eq!(c.holds, Some(false));
        let c = evaluate(&claim("stride-32 correct"), &r);
        assert_eq!(
            (c.holds, c.detail.as_str()),
            (Some(false), "mismatch at index 3")
        );
    }

    #[test]
    fn missing_figures_are_not_measured() {
        let mut untimed = timed_variant("stride-32", 0.0);
        untimed.time_ms = None;
        untimed.correct = None;
        let r = result(vec![timed_variant("stride-1", 1.63), untimed]);
        for text in [
            "stride-32 slower than stride-1 by >= 5x",
            "stride-32 registers < 64",
            "stride-32 shared.wavefronts_per_request == 32",
            "stride-32 occupancy >= 0.5",
            "stride-32 correct",
            "padded within 5% of stride-1",
        ] {
            let c = evaluate(&claim(text), &r);
            assert_eq!(c.holds, None, "{text}");
            assert!(c.detail.starts_with("not measured"), "{text}: {}", c.detail);
        }
    }

    #[test]
    fn trace_and_report_metrics() {
        let mut v = timed_variant("stride-32", 17.0);
        v.memory = Some(MemoryStats {
            shared: SharedStats {
                requests: 100,
                wavefronts: 3200,
                ideal_wavefronts: 100,
                ld: crate::model::results::SharedCounts {
                    requests: 90,
                    wavefronts: 2880,
                    ideal_wavefronts: 90,
                },
                ..Default::default()
            },
            global: GlobalStats {
                requests: 10,
                sectors: 40,
                ..Default::default()
            },
            constant: ConstantStats {
                requests: 0,
                distinct: 0,
            },
            local: LocalStats { bytes: 512 },
            ..Default::default()
        });
        v.ptxas = Some(PtxasReport {
            registers: 40,
            spill_stores: 8,
            ..Default::default()
        });
        let r = result(vec![v]);
        let check = |text: &str| evaluate(&claim(text), &r);
        let c = check("stride-32 shared.wavefronts_per_request == 32");
        assert_eq!(c.holds, Some(true));
        assert_eq!(c.detail, "shared.wavefronts_per_request = 32 (needs == 32)");
        assert_eq!(
            check("stride-32 shared.conflicts_per_request == 31").holds,
            Some(true)
        );
        assert_eq!(
            check("stride-32 shared.load_wavefronts_per_request == 32").holds,
            Some(true)
        );
        let st = check("stride-32 shared.store_wavefronts_per_request == 1");
        assert_eq!(
            st.holds, None,
            "no stores traced: not measured, {}",
            st.detail
        );
        assert_eq!(
            check("stride-32 global.sectors_per_request <= 4").holds,
            Some(true)
        );
        assert_eq!(
            check("stride-32 global.sectors_per_request < 4").holds,
            Some(false)
        );
        assert_eq!(check("stride-32 local.bytes > 0").holds, Some(true));
        assert_eq!(check("stride-32 registers <= 32").holds, Some(false));
        assert_eq!(check("stride-32 spill_stores != 0").holds, Some(true));
        assert_eq!(
            check("stride-32 constant.distinct_per_request == 1").holds,
            None
        );
    }

    #[test]
    fn claims_round_trip_through_json() {
        let c = claim("stride-32 slower than stride-1 by >= 5x");
        let back: Claim = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }
}
