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
    // A figure per request of requests the variant never makes does not hold: the claim
    // is about them.
    let st = check("stride-32 shared.store_wavefronts_per_request == 1");
    assert_eq!(st.holds, Some(false), "{}", st.detail);
    assert_eq!(
        st.detail,
        "`stride-32` makes no shared store requests (none in the 0 traced blocks): this \
         check is about them"
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
        Some(false)
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

#[test]
fn the_forms_a_task_needs_parse_and_say_what_is_wrong() {
    assert_eq!(
        claim("padded makes shared loads").kind,
        ClaimKind::Makes {
            a: "padded".into(),
            space: gpulab::model::access::Space::Shared,
            access: Some(gpulab::model::access::AccessKind::Load),
        }
    );
    assert_eq!(
        claim("padded makes global requests").kind,
        ClaimKind::Makes {
            a: "padded".into(),
            space: gpulab::model::access::Space::Global,
            access: None,
        }
    );
    assert_eq!(
        claim("padded keeps stir_group out of line").kind,
        ClaimKind::OutOfLine {
            a: "padded".into(),
            function: "stir_group".into(),
        }
    );
    assert_eq!(
        claim("padded global.pct_used >= 90").kind,
        ClaimKind::Metric {
            a: "padded".into(),
            metric: Metric::GlobalPctUsed,
            op: CmpOp::Ge,
            value: 90.0
        }
    );
    let bad = |s: &str| parse_claim(s, &NAMES).unwrap_err().to_string();
    assert!(bad("padded makes tensor loads").contains("unknown space `tensor`"));
    assert!(
        bad("padded makes shared reads")
            .contains("not `loads`, `stores`, `atomics`, `copies`, `matrix-loads` or `requests`")
    );
}

/// A variant whose trace saw `instructions`: (space, kind, requests, distinct words per
/// request), with global figures `sectors` and `bytes_used` over `requests`.
fn traced(
    instructions: &[(
        gpulab::model::access::Space,
        gpulab::model::access::AccessKind,
        u64,
        u64,
    )],
    global: (u64, u64, u64),
) -> VariantResult {
    use gpulab::model::access::InstructionSummary;
    let mut v = timed_variant("padded", 1.0);
    let ins = (instructions.iter().enumerate())
        .map(|(i, &(space, kind, requests, words))| InstructionSummary {
            id: i as u32,
            space,
            kind,
            op: "ld".into(),
            ptx_line: 1,
            source_line: Some(1),
            width: 4,
            requests,
            wavefronts: 0,
            ideal_wavefronts: 0,
            sectors: 0,
            lines: 0,
            bytes_used: 0,
            distinct: 0,
            local_bytes: 0,
            local_sectors: 0,
            texels: 0,
            texel_rows: 0,
            remote_requests: 0,
            coords: None,
            footprint: Vec::new(),
            // `words` spread over the banks, `requests` times.
            bank_words: (0..32)
                .map(|b| if b < words { requests } else { 0 })
                .collect(),
            sample: None,
            lanes: 0,
            sass: None,
            atomic: None,
            unused: false,
            staged: false,
            relayed: false,
        })
        .collect();
    v.memory = Some(MemoryStats {
        global: GlobalStats {
            requests: global.0,
            sectors: global.1,
            bytes_used: global.2,
            ..Default::default()
        },
        traced_blocks: 2,
        instructions: ins,
        ..Default::default()
    });
    v
}

#[test]
fn the_share_of_fetched_bytes_used_judges_coalescing_at_any_width() {
    use gpulab::model::access::{AccessKind, Space};
    let judge = |v: VariantResult, text: &str| evaluate(&claim(text), &result(vec![v]));
    // 32 lanes x float4 = 512 bytes in 16 sectors, all used: coalesced.
    let wide = judge(traced(&[], (10, 160, 5120)), "padded global.pct_used >= 90");
    assert_eq!(wide.holds, Some(true), "{}", wide.detail);
    assert_eq!(wide.detail, "global.pct_used = 100 (needs >= 90)");
    // 32 lanes x 4 bytes, each in its own sector: an eighth used.
    let apart = judge(traced(&[], (10, 320, 1280)), "padded global.pct_used >= 90");
    assert_eq!(apart.holds, Some(false));
    assert_eq!(apart.detail, "global.pct_used = 12.5 (needs >= 90)");
    let none = judge(
        traced(&[(Space::Shared, AccessKind::Load, 4, 32)], (0, 0, 0)),
        "padded global.pct_used >= 90",
    );
    assert_eq!(none.holds, Some(false));
    assert!(
        none.detail.contains("makes no global requests"),
        "{}",
        none.detail
    );
}

#[test]
fn shared_loads_are_made_or_not_and_a_broadcast_reads_one_word() {
    use gpulab::model::access::{AccessKind, Space};
    let judge = |v: VariantResult, text: &str| evaluate(&claim(text), &result(vec![v]));
    let rows = traced(&[(Space::Shared, AccessKind::Load, 8, 32)], (1, 4, 128));
    let c = judge(rows.clone(), "padded makes shared loads");
    assert_eq!(
        (c.holds, c.detail.as_str()),
        (
            Some(true),
            "`padded` makes shared loads: 8 warp requests traced"
        )
    );
    assert_eq!(
        judge(rows.clone(), "padded makes shared stores").holds,
        Some(false)
    );
    let w = judge(rows, "padded shared.load_words_per_request >= 32");
    assert_eq!(w.holds, Some(true), "{}", w.detail);
    let broadcast = traced(&[(Space::Shared, AccessKind::Load, 8, 1)], (1, 4, 128));
    let w = judge(broadcast, "padded shared.load_words_per_request >= 32");
    assert_eq!(w.holds, Some(false));
    assert_eq!(w.detail, "shared.load_words_per_request = 1 (needs >= 32)");
    let global_only = traced(&[(Space::Global, AccessKind::Load, 8, 0)], (8, 32, 1024));
    let c = judge(global_only, "padded makes shared loads");
    assert_eq!(c.holds, Some(false));
    assert_eq!(
        c.detail,
        "`padded` makes no shared loads (none in the 2 traced blocks): the task wants them"
    );
    let mut untraced = timed_variant("padded", 1.0);
    untraced.memory = None;
    assert_eq!(judge(untraced, "padded makes shared loads").holds, None);
}

#[test]
fn a_function_is_out_of_line_when_ptxas_compiled_it_on_its_own() {
    let judge = |functions: &[&str]| {
        let mut v = timed_variant("padded", 1.0);
        v.ptxas = Some(PtxasReport {
            functions: functions.iter().map(|f| f.to_string()).collect(),
            ..Default::default()
        });
        evaluate(
            &claim("padded keeps stir_group out of line"),
            &result(vec![v]),
        )
    };
    assert_eq!(judge(&["_Z10stir_group5uint4j"]).holds, Some(true));
    assert_eq!(judge(&["stir_group"]).holds, Some(true));
    // A longer name that starts the same is another function.
    let other = judge(&["_Z11stir_groups5uint4j"]);
    assert_eq!(other.holds, Some(false));
    assert!(
        other.detail.contains("only _Z11stir_groups5uint4j"),
        "{}",
        other.detail
    );
    let inlined = judge(&[]);
    assert_eq!(inlined.holds, Some(false));
    assert!(
        inlined.detail.starts_with("stir_group is inlined"),
        "{}",
        inlined.detail
    );
    let mut v = timed_variant("padded", 1.0);
    v.ptxas = None;
    let c = evaluate(
        &claim("padded keeps stir_group out of line"),
        &result(vec![v]),
    );
    assert_eq!(c.holds, None);
}

/// Atomics are judged on their own figures, never the loads' and stores': a shared
/// reduction (ptxas's choice between `ATOM` and `RED`) is one of `atomics`, and the
/// figures per request of a space with no atomics say so.
#[test]
fn atomics_have_claims_of_their_own() {
    use gpulab::model::access::{AccessKind, Space};
    let judge = |v: VariantResult, text: &str| evaluate(&claim(text), &result(vec![v]));
    let mut v = traced(
        &[(Space::Shared, AccessKind::Reduction, 8, 32)],
        (1, 4, 128),
    );
    let m = v.memory.as_mut().unwrap();
    m.atomics = AtomicStats {
        shared: SharedCounts {
            requests: 8,
            wavefronts: 24,
            ideal_wavefronts: 8,
        },
        global_atom: AtomicCounts {
            requests: 2,
            sectors: 2,
        },
        global_red: AtomicCounts {
            requests: 6,
            sectors: 18,
        },
        updates: 256 + 8,
        addresses: 8 + 8,
    };
    let makes = judge(v.clone(), "padded makes shared atomics");
    assert_eq!(
        (makes.holds, makes.detail.as_str()),
        (
            Some(true),
            "`padded` makes shared atomics: 8 warp requests traced"
        )
    );
    assert_eq!(
        judge(v.clone(), "padded makes shared loads").holds,
        Some(false)
    );
    let wf = judge(
        v.clone(),
        "padded shared.atomic_wavefronts_per_request == 3",
    );
    assert_eq!(wf.holds, Some(true), "{}", wf.detail);
    let g = judge(v.clone(), "padded global.atomic_requests == 8");
    assert_eq!(g.holds, Some(true), "{}", g.detail);
    let s = judge(v.clone(), "padded global.atomic_sectors_per_request == 2.5");
    assert_eq!(s.holds, Some(true), "{}", s.detail);
    let c = judge(v.clone(), "padded atomic.lanes_per_address >= 16");
    assert_eq!(c.holds, Some(true), "{}", c.detail);
    let u = judge(v.clone(), "padded atomic.updates == 264");
    assert_eq!(u.holds, Some(true), "{}", u.detail);
    // The plain figures do not see them.
    let plain = judge(v, "padded shared.wavefronts_per_request >= 1");
    assert_eq!(plain.holds, Some(false));
    assert!(
        plain.detail.contains("makes no shared requests"),
        "{}",
        plain.detail
    );
    let none = judge(
        traced(&[(Space::Global, AccessKind::Load, 8, 0)], (8, 32, 1024)),
        "padded shared.atomic_wavefronts_per_request <= 1",
    );
    assert_eq!(none.holds, Some(false));
    assert!(
        none.detail.contains("makes no shared atomic requests"),
        "{}",
        none.detail
    );
}

#[test]
fn local_sectors_per_request_follow_the_trace_and_say_when_they_were_not_counted() {
    use gpulab::model::access::{AccessKind, Space};
    let judge = |v: VariantResult, text: &str| evaluate(&claim(text), &result(vec![v]));
    let local = |requests: u64, sectors: u64| {
        let mut v = traced(&[(Space::Local, AccessKind::Load, requests, 0)], (0, 0, 0));
        v.memory.as_mut().unwrap().instructions[0].local_sectors = sectors;
        v
    };
    // A warp at one offset of its lanes' arrays: 4 sectors a request.
    let c = judge(local(8, 32), "padded local.sectors_per_request == 4");
    assert_eq!(c.holds, Some(true), "{}", c.detail);
    // Every lane at its own offset: 32.
    let c = judge(local(8, 256), "padded local.sectors_per_request == 4");
    assert_eq!(c.holds, Some(false));
    assert_eq!(c.detail, "local.sectors_per_request = 32 (needs == 4)");
    // Local requests with no sectors: a trace from before they were counted.
    let c = judge(local(8, 0), "padded local.sectors_per_request == 4");
    assert_eq!(c.holds, None, "{}", c.detail);
    assert!(
        c.detail.contains("did not count local sectors"),
        "{}",
        c.detail
    );
    // No local requests at all: the claim is about them.
    let c = judge(
        traced(&[(Space::Global, AccessKind::Load, 8, 0)], (8, 32, 1024)),
        "padded local.sectors_per_request == 4",
    );
    assert_eq!(c.holds, Some(false));
    assert!(c.detail.contains("makes no local requests"), "{}", c.detail);
}

/// Prose names a figure in the words the screen shows it by, never by a claim's metric id
/// (`pct_of_peak`, `global.sectors_per_request`, `measured.cycles_per_access`), which no
/// screen shows (#35 item 15).
#[test]
fn lesson_prose_names_no_metric_id() {
    let (lessons, errors) =
        gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let ids: Vec<&str> = (Metric::ALL.iter())
        .map(|(id, _)| *id)
        .filter(|id| id.contains(['.', '_']))
        .collect();
    let mut found = Vec::new();
    for l in &lessons {
        for p in &l.pages {
            for id in &ids {
                if p.text.contains(id) {
                    found.push(format!("{} \"{}\": {id}", l.id, p.title));
                }
            }
            if p.text.contains("measured.") {
                found.push(format!("{} \"{}\": measured.", l.id, p.title));
            }
        }
        // An exercise's task and hints are read on the same screens (#35 item 15).
        for ex in &l.exercises {
            for t in std::iter::once(&ex.task).chain(&ex.hints) {
                for id in &ids {
                    if t.contains(id) {
                        found.push(format!("{} exercise {}: {id}", l.id, ex.id));
                    }
                }
                // `measured.cycles_per_access` and its kin; not a sentence's last word.
                let measured_id = (t.match_indices("measured."))
                    .any(|(i, m)| t[i + m.len()..].starts_with(|c: char| c.is_ascii_lowercase()));
                if measured_id {
                    found.push(format!("{} exercise {}: measured.", l.id, ex.id));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
