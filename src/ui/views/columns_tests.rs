use super::*;
use crate::model::{Measured, Tolerance};

fn text(line: &Line) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn measured_figures_and_a_lesson_tolerance_are_shown() {
    let th = Theme::new(false);
    let mut v = VariantResult::default();
    assert!(measured_lines(&v, &th).is_empty());
    assert!(tolerance_line(&v, &th).is_none());
    v.measured.insert(
        "cycles_per_access".into(),
        Measured {
            value: 412.25,
            unit: "cycles".into(),
        },
    );
    v.tolerance = Some(Tolerance {
        rel: 1e-5,
        abs: 1e-6,
    });
    let lines = measured_lines(&v, &th);
    assert_eq!(text(&lines[0]), "cycles_per_access 412 cycles");
    let tol = tolerance_line(&v, &th).unwrap();
    assert_eq!(text(&tol), "floats within rel 1e-5 · abs 1e-6");
}

#[test]
fn a_column_says_where_the_sass_makes_an_access_differently_from_the_ptx() {
    use crate::model::access::SassShape;
    use crate::model::results::MemoryStats;
    let th = Theme::new(false);
    let mut i: crate::model::access::InstructionSummary = serde_json::from_value(serde_json::json!({
        "id": 0, "space": "shared", "kind": "load", "op": "ld.shared.v4.f32", "ptx_line": 9,
        "source_line": 55, "width": 16, "requests": 2, "wavefronts": 8, "ideal_wavefronts": 2,
        "sectors": 0, "lines": 0, "bytes_used": 0, "distinct": 0, "local_bytes": 0, "sample": null
    }))
    .unwrap();
    let plain = VariantResult {
        memory: Some(MemoryStats {
            instructions: vec![i.clone()],
            ..Default::default()
        }),
        ..Default::default()
    };
    let said = |v: &VariantResult| {
        memory_lines(v, false, &th)
            .iter()
            .any(|l| text(l).contains("ptxas"))
    };
    assert!(!said(&plain), "as the PTX says: nothing to say");
    i.sass = Some(SassShape {
        note: "ptxas split this 16-byte load into two 4-byte loads (LDS at +0, +8)".into(),
        pieces: Vec::new(),
        ptx_requests: 1,
        ptx_wavefronts: 4,
        ptx_ideal_wavefronts: 4,
    });
    let split = VariantResult {
        memory: Some(MemoryStats {
            instructions: vec![i],
            ..Default::default()
        }),
        ..Default::default()
    };
    let lines: Vec<String> = memory_lines(&split, false, &th).iter().map(text).collect();
    assert!(
        lines.contains(
            &"line 55: ptxas split this 16-byte load into two 4-byte loads (LDS at +0, +8)"
                .to_string()
        ),
        "{lines:?}"
    );
}

/// A racy variant's time is struck out wherever it is drawn (its card and the list of
/// variants share the style): its output matched by luck, so it is no valid speed.
#[test]
fn a_racy_time_is_struck_out() {
    use crate::model::results::{MemoryStats, Race};
    let th = Theme::new(false);
    let mut v = VariantResult::default();
    assert!(
        !time_style(&v, &th)
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
    let race: Race = serde_json::from_value(serde_json::json!({
        "kind": "write-read", "first_line": 36, "second_line": 46, "block": 0,
        "offset": 0, "first_warp": 0, "second_warp": 1, "count": 4
    }))
    .unwrap();
    v.memory = Some(MemoryStats {
        races: vec![race],
        ..MemoryStats::default()
    });
    assert!(
        time_style(&v, &th)
            .add_modifier
            .contains(Modifier::CROSSED_OUT)
    );
}

/// A card marks its claims as `gpulab run` does and says why one was not judged, in the
/// words the counts use (#35 item 4): `·` needs a GPU, `?` not measured here.
#[test]
fn a_claim_not_judged_says_why_in_the_counts_words() {
    use crate::model::results::ClaimResult;
    let th = Theme::new(false);
    let claim = |holds, needs_gpu| ClaimResult {
        claim: "a occupancy >= 0.5".into(),
        holds,
        detail: String::new(),
        margin: None,
        needs_gpu,
    };
    let v = VariantResult {
        name: "a".into(),
        expect: vec![
            claim(Some(true), false),
            claim(None, true),
            claim(None, false),
        ],
        ..Default::default()
    };
    let lines: Vec<String> = claim_lines(&v, &th).iter().map(text).collect();
    assert!(
        lines[0].starts_with("✓ ") && !lines[0].contains("not"),
        "{lines:?}"
    );
    assert!(lines[1].starts_with("· ") && lines[1].ends_with(": not judged, needs a GPU"));
    assert!(lines[2].starts_with("? ") && lines[2].ends_with(": not measured here"));
}
