use super::*;

fn claim(holds: Option<bool>, needs_gpu: bool) -> ClaimResult {
    ClaimResult {
        claim: "x".into(),
        holds,
        detail: String::new(),
        needs_gpu,
        margin: None,
    }
}

#[test]
fn claims_a_gpu_must_judge_are_counted_apart_and_never_as_failing() {
    let mut claims = vec![claim(Some(true), false); 6];
    claims.extend(vec![claim(None, true); 4]);
    assert_eq!(summary(&claims).unwrap(), "6 hold, 4 need a GPU");
    // One judged and failing, one whose figure is missing: the missing one is not
    // counted as judged, nor as failing.
    claims[0].holds = Some(false);
    claims[1].holds = None;
    assert_eq!(
        summary(&claims).unwrap(),
        "4 hold, 1 fails, 1 not measured here, 4 need a GPU"
    );
    assert_eq!(summary(&claims[5..=6]).unwrap(), "1 holds, 1 needs a GPU");
    // Every claim about times: none judged, none failing.
    assert_eq!(
        summary(&claims[6..]).unwrap(),
        "no claim judged here: all 4 need a GPU"
    );
    assert_eq!(
        summary(&claims[9..]).unwrap(),
        "no claim judged here: it needs a GPU"
    );
    // Lesson 00 on the interpreter: an occupancy figure it has not is not a failure.
    let ladder = [
        claim(Some(true), false),
        claim(Some(true), false),
        claim(None, false),
    ];
    assert_eq!(summary(&ladder).unwrap(), "2 hold, 1 not measured here");
}

#[test]
fn on_the_interpreter_a_claim_about_a_variant_it_refused_needs_a_gpu() {
    let v = |name: &str, refused: bool| VariantResult {
        name: name.into(),
        failure: refused.then_some(Failure::NotInterpreted),
        ..Default::default()
    };
    let result = LessonResult {
        lesson: "l".into(),
        source: Source::Interpreted,
        device: None,
        peak: Default::default(),
        variants: vec![v("tex", true), v("plain", false)],
        expect: Vec::new(),
        compile: None,
        knobs: Vec::new(),
    };
    let about = |a: &str| Claim {
        text: format!("{a} global.sectors_per_request <= 4"),
        kind: ClaimKind::Metric {
            a: a.into(),
            metric: Metric::GlobalSectorsPerRequest,
            op: CmpOp::Le,
            value: 4.0,
        },
    };
    let refused = evaluate(&about("tex"), &result);
    assert!(refused.needs_gpu && refused.holds.is_none(), "{refused:?}");
    // The one it ran, untraced: not measured, which is not a GPU's to judge.
    let missing = evaluate(&about("plain"), &result);
    assert!(!missing.needs_gpu && missing.holds.is_none(), "{missing:?}");
}

#[test]
fn figures_that_judge_every_claim_keep_the_plain_count() {
    let claims = [claim(Some(true), false), claim(Some(false), false)];
    assert_eq!(
        summary(&claims).unwrap(),
        "1 of 2 claims hold on these figures"
    );
    assert_eq!(summary(&[]), None);
}

#[test]
fn thrown_away_loads_are_a_share_of_the_loads_and_the_check_names_their_line() {
    let load = |id: u32, line: u32, requests: u64, unused: bool| {
        serde_json::from_value::<crate::model::access::InstructionSummary>(serde_json::json!({
            "id": id, "space": "shared", "kind": "load", "op": "ld.shared.u32",
            "ptx_line": 40 + line, "source_line": line, "width": 4,
            "requests": requests, "wavefronts": requests, "ideal_wavefronts": requests,
            "sectors": 0, "lines": 0, "bytes_used": 0, "distinct": 0,
            "local_bytes": 0, "sample": null, "unused": unused,
        }))
        .unwrap()
    };
    let mut mem = crate::model::results::MemoryStats {
        instructions: vec![load(0, 18, 32, false), load(1, 26, 992, true)],
        traced_blocks: 1,
        unused_loads_followed: true,
        ..Default::default()
    };
    let mut v = VariantResult {
        name: "yours".into(),
        memory: Some(mem.clone()),
        ..Default::default()
    };
    let (holds, detail) = judge_metric(&v, Metric::LoadsUnusedPct, CmpOp::Eq, 0.0)
        .unwrap_or_else(|_| panic!("judged"));
    assert!(!holds);
    assert!(detail.contains("= 96.9"), "{detail}");
    assert!(
        detail.contains("992 of 1024") && detail.contains("line 26's 992"),
        "{detail}"
    );
    // Every load used: it holds, and names no line.
    mem.instructions[1].unused = false;
    v.memory = Some(mem.clone());
    let (holds, detail) = judge_metric(&v, Metric::LoadsUnusedPct, CmpOp::Eq, 0.0)
        .unwrap_or_else(|_| panic!("judged"));
    assert!(holds && !detail.contains("line"), "{detail}");
    // A trace that did not look at what loads are used for says so, and judges nothing.
    mem.unused_loads_followed = false;
    v.memory = Some(mem);
    assert!(matches!(
        judge_metric(&v, Metric::LoadsUnusedPct, CmpOp::Eq, 0.0),
        Err(Verdict::NotMeasured(_))
    ));
}

#[test]
fn the_steps_outside_calls_are_the_call_work_s_other_side_and_only_the_interpreter_s() {
    let mut v = VariantResult {
        name: "yours".into(),
        memory: Some(crate::model::results::MemoryStats {
            call_work: Some(crate::model::results::CallWork {
                thread_steps: 1000,
                in_calls: 640,
            }),
            traced_blocks: 1,
            ..Default::default()
        }),
        ..Default::default()
    };
    let (holds, detail) = judge_metric(&v, Metric::CallsOutsideSteps, CmpOp::Le, 360.0)
        .unwrap_or_else(|_| panic!("judged"));
    assert!(holds && detail.contains("= 360"), "{detail}");
    // A GPU's trace counts no instructions: not measured, never 0.
    v.memory.as_mut().unwrap().call_work = None;
    assert!(matches!(
        judge_metric(&v, Metric::CallsOutsideSteps, CmpOp::Le, 360.0),
        Err(Verdict::NotMeasured(_))
    ));
}

#[test]
fn staged_loads_are_a_share_of_the_global_loads_alone() {
    let load = |id: u32, space: &str, requests: u64, staged: bool| {
        serde_json::from_value::<crate::model::access::InstructionSummary>(serde_json::json!({
            "id": id, "space": space, "kind": "load", "op": "ld.u32",
            "ptx_line": 40 + id, "source_line": null, "width": 4,
            "requests": requests, "wavefronts": 0, "ideal_wavefronts": 0,
            "sectors": 0, "lines": 0, "bytes_used": 0, "distinct": 0,
            "local_bytes": 0, "sample": null, "staged": staged,
        }))
        .unwrap()
    };
    // 96 of 128 global load requests staged; the shared loads of the tile are no part of it.
    let mem = crate::model::results::MemoryStats {
        instructions: vec![
            load(0, "global", 96, true),
            load(1, "global", 32, false),
            load(2, "shared", 512, false),
        ],
        traced_blocks: 1,
        ..Default::default()
    };
    let mut v = VariantResult {
        name: "yours".into(),
        memory: Some(mem.clone()),
        ..Default::default()
    };
    let (holds, detail) = judge_metric(&v, Metric::GlobalStagedPct, CmpOp::Eq, 100.0)
        .unwrap_or_else(|_| panic!("judged"));
    assert!(!holds && detail.contains("= 75"), "{detail}");
    // A kernel with no global loads at all is told so, not passed.
    let mut none = mem;
    none.instructions.truncate(0);
    none.instructions.push(load(2, "shared", 512, false));
    v.memory = Some(none);
    assert!(matches!(
        judge_metric(&v, Metric::GlobalStagedPct, CmpOp::Eq, 100.0),
        Err(Verdict::Wrong(_))
    ));
}

#[test]
fn wide_bytes_are_a_share_of_the_global_loads_and_stores_bytes() {
    let access = |id: u32, space: &str, kind: &str, width: u32, bytes: u64| {
        serde_json::from_value::<crate::model::access::InstructionSummary>(serde_json::json!({
            "id": id, "space": space, "kind": kind, "op": "ld.v4.f32",
            "ptx_line": 40 + id, "source_line": null, "width": width,
            "requests": bytes / (32 * width as u64).max(1) + 1, "wavefronts": 0,
            "ideal_wavefronts": 0, "sectors": 0, "lines": 0, "bytes_used": bytes,
            "distinct": 0, "local_bytes": 0, "sample": null,
        }))
        .unwrap()
    };
    // A float4 body of 4096 bytes each way, a 12-byte tail each way a float at a time, and
    // a float4 shared load and a 4-byte atomic that are no part of the figure.
    let mem = crate::model::results::MemoryStats {
        instructions: vec![
            access(0, "global", "load", 16, 4096),
            access(1, "global", "store", 16, 4096),
            access(2, "global", "load", 4, 12),
            access(3, "global", "store", 4, 12),
            access(4, "shared", "load", 16, 4096),
            access(5, "global", "atomic", 4, 4096),
        ],
        global: crate::model::results::GlobalStats {
            requests: 20,
            ..Default::default()
        },
        traced_blocks: 1,
        ..Default::default()
    };
    let v = VariantResult {
        name: "yours".into(),
        memory: Some(mem.clone()),
        ..Default::default()
    };
    let (holds, detail) = judge_metric(&v, Metric::GlobalWideBytesPct, CmpOp::Ge, 99.0)
        .unwrap_or_else(|_| panic!("judged"));
    // 8192 of 8216 bytes: 99.7%.
    assert!(holds && detail.contains("99.7"), "{detail}");
    // The body's stores a float at a time: 4108 of 8216 bytes moved narrow.
    let mut narrow = mem;
    narrow.instructions[1].width = 4;
    let v = VariantResult {
        memory: Some(narrow),
        ..v
    };
    let (holds, detail) = judge_metric(&v, Metric::GlobalWideBytesPct, CmpOp::Ge, 99.0)
        .unwrap_or_else(|_| panic!("judged"));
    assert!(!holds && detail.contains("= 49.9"), "{detail}");
}

#[test]
fn a_functions_declared_name_is_read_from_its_mangled_one() {
    assert_eq!(declared_name("_Z10stir_group5uint4j"), Some("stir_group"));
    // `static`: nested in the namespace NVRTC makes for the file, the last name.
    assert_eq!(
        declared_name("_ZN42_INTERNAL_00000000_11_by_value_cu_7962006310stir_groupE5uint4j"),
        Some("stir_group")
    );
    assert_eq!(declared_name("_ZNK3Foo3barEv"), Some("bar"));
    assert_eq!(declared_name("stir_group"), None);
    assert_eq!(declared_name("_Z99x"), None);
    // The length makes it exact: a longer name that begins the same is another.
    assert_ne!(declared_name("_Z11stir_groups5uint4j"), Some("stir_group"));
}
