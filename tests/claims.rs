//! Claims as a lesson's author writes them (`course::claims`) and as a run judges them
//! (`analysis::claims`).

use gpulab::analysis::claims::evaluate;
use gpulab::course::claims::parse_claim;
use gpulab::model::claim::*;
use gpulab::model::results::*;

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
        knobs: Vec::new(),
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
        let e = parse_claim(text, &NAMES).unwrap_err().to_string();
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
            ld: gpulab::model::results::SharedCounts {
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
    assert_eq!(check("stride-32 global.sectors == 40").holds, Some(true));
    assert_eq!(check("stride-32 global.requests == 10").holds, Some(true));
}

#[test]
fn metric_ratios_compare_a_figure_between_two_variants() {
    let with_sectors = |name: &str, sectors: u64| {
        let mut v = timed_variant(name, 1.0);
        v.memory = Some(MemoryStats {
            global: GlobalStats {
                requests: 8,
                sectors,
                ..Default::default()
            },
            ..Default::default()
        });
        v
    };
    let r = result(vec![
        with_sectors("stride-1", 1600),
        with_sectors("padded", 100),
    ]);
    let c = evaluate(
        &claim("stride-1 global.sectors greater than padded by >= 15x"),
        &r,
    );
    assert_eq!(c.holds, Some(true), "{}", c.detail);
    assert_eq!(
        c.detail,
        "global.sectors: 1600 vs 100 = 16.0x (needs >= 15x)"
    );
    let c = evaluate(
        &claim("stride-1 global.sectors greater than padded by >= 17x"),
        &r,
    );
    assert_eq!(c.holds, Some(false));
    let c = evaluate(
        &claim("padded global.sectors less than stride-1 by >= 16x"),
        &r,
    );
    assert_eq!(c.holds, Some(true), "{}", c.detail);
    // A figure that was not traced is not measured, never holding.
    let c = evaluate(
        &claim("stride-32 global.sectors greater than padded by >= 1x"),
        &r,
    );
    assert_eq!(c.holds, None);
    let err = parse_claim("padded smem_bytes greater than stride-1 by >= 2x", &NAMES)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown metric `smem_bytes`"), "{err}");
}

#[test]
fn claims_round_trip_through_json() {
    let c = claim("stride-32 slower than stride-1 by >= 5x");
    let back: Claim = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
}
