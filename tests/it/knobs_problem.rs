//! A knob on a problem size (`problem: m`): every value is the lesson read again at that
//! size, so a setting runs with its own buffers, launch, reference (cuBLAS at that size)
//! and rates; a value that breaks the lesson is an error at the value; a lesson read with
//! the size set (a CPU run's size) has no such knob.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::{KnobKind, Lesson, Reference};
use gpulab::session::knobs::{batches, knob_lesson};

fn gemm() -> Lesson {
    let (lessons, errs) = gpulab::course::load::load_course(&CourseRoot::Bundled);
    assert!(errs.is_empty(), "{errs:?}");
    lessons.into_iter().find(|l| l.id == "gemm").unwrap()
}

#[test]
fn each_size_is_the_lesson_at_that_size_and_runs_alone() {
    let l = gemm();
    let k = (l.knobs.iter())
        .find(|k| k.variant == "tuned" && k.kind == KnobKind::Problem("m".into()))
        .expect("tuned's size knob");
    let values: Vec<i64> = k.settings.iter().map(|s| s.value).collect();
    assert_eq!(values, [2048, 4096, 8192]);
    // The lesson is written at 4096: the knob stands there first.
    assert_eq!(k.start, Some(1));
    for s in &k.settings {
        let m = s.value;
        assert_eq!(s.variant.name, format!("tuned@m={m}"));
        let tiles = (m / 128) as u32;
        assert_eq!(s.variant.grid, [tiles, tiles, 1], "{}", s.variant.name);
        let sized = s.sized.as_ref().expect("a size setting carries its size");
        // n and k follow m (the lesson writes them so), square at every setting.
        let square: Vec<(String, i64)> = ["m", "n", "k"].map(|s| (s.to_string(), m)).into();
        assert_eq!(sized.sizes.problem, square);
        assert_eq!(sized.metrics.flops, Some(2.0 * (m * m * m) as f64));
    }
    assert_eq!(batches(k).len(), 3, "one request a size");
    let small = knob_lesson(&l, &[&k.settings[0]]);
    let names: Vec<&str> = small.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["tuned@m=2048"]);
    assert!(small.buffers.iter().all(|b| b.len == 2048 * 2048));
    assert_eq!(small.metrics.flops, Some(2.0 * 2048f64.powi(3)));
    assert!(small.metrics.cublas_peak);
    match small.reference {
        Reference::Sgemm {
            rows, cols, depth, ..
        } => assert_eq!((rows, cols, depth), (2048, 2048, 2048)),
        ref r => panic!("{r:?}"),
    }
    assert_ne!(
        small.id, l.id,
        "a knob run is never folded into the lesson's figures"
    );
    // A define knob's settings still go together, at the lesson's size.
    let bm = (l.knobs.iter())
        .find(|k| k.kind == KnobKind::Define("BM".into()))
        .unwrap();
    assert_eq!(batches(bm).len(), 1);
    assert!(bm.settings.iter().all(|s| s.sized.is_none()));
}

#[test]
fn a_lesson_read_with_the_size_set_has_nothing_to_turn() {
    let l = gemm();
    let cpu = gpulab::course::reload_sized(&CourseRoot::Bundled, &l.file, &l.problem_cpu)
        .expect("the lesson at its CPU size");
    assert!(
        !(cpu.knobs.iter()).any(|k| matches!(k.kind, KnobKind::Problem(_))),
        "{:?}",
        cpu.knobs.iter().map(|k| &k.kind).collect::<Vec<_>>()
    );
    assert!(
        cpu.knobs
            .iter()
            .any(|k| k.kind == KnobKind::Define("SWZ".into()))
    );
}

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    gpulab::course::load_file(&CourseRoot::Bundled, "99-probe.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

const PROBE: &str = r#"format_version: 1
id: probe
title: Probe
space: capstone
pages: [{ title: t, text: x }]
problem: { m: 64 }
buffers:
  - { name: a, type: f32, len: "m * m", init: random }
  - { name: b, type: f32, len: "m * m", init: random }
  - { name: c, type: f32, len: "m * m", init: poison }
variants:
  - name: naive
    source: kernels/gemm/ladder.cu
    kernel: sgemm
    defines: { RUNG: 1 }
    launch: { grid: ["m / 32", "m / 32"], block: 1024 }
    args: [a, b, c, m, m, m]
    knobs:
      - { problem: m, values: [32, 128] }
reference: { builtin: sgemm, from: a, times: b, to: c, rows: m, cols: m, depth: m }
metrics: { flops: "2 * m * m * m", peak: cublas }
"#;

#[test]
fn a_size_that_breaks_the_lesson_is_an_error_at_the_value() {
    let l = load(PROBE).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(l.knobs[0].settings[1].variant.grid, [4, 4, 1]);
    assert_eq!(l.knobs[0].start, None, "64 is not among the values");
    // 16 / 32 = 0 blocks: the value is blamed, with what broke.
    let errs = load(&PROBE.replace("values: [32, 128]", "values: [32, 16]")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.starts_with("19:36: m = 16 breaks the lesson: ")
                && e.contains("`m / 32` is 0")),
        "{errs:?}"
    );
    let errs = load(&PROBE.replace("problem: m,", "problem: n,")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("`n` is not a problem size of the lesson; it has: m")),
        "{errs:?}"
    );
    let errs = load(&PROBE.replace("problem: m,", "problem: m, define: RUNG,")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("one of `define`, `option` and `problem`")),
        "{errs:?}"
    );
    // An error the lesson has at every size is said once, where it is, not at each value.
    let bad_claim = PROBE.replace("metrics:", "expect: [\"nosuch correct\"]\nmetrics:");
    let errs = load(&bad_claim).unwrap_err();
    assert!(errs.iter().any(|e| e.contains("nosuch")), "{errs:?}");
    assert!(
        !errs.iter().any(|e| e.contains("breaks the lesson")),
        "{errs:?}"
    );
    let errs = load(&PROBE.replace("values: [32, 128]", "values: [32, 0]")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("m = 0: a problem size is above 0")),
        "{errs:?}"
    );
}

#[test]
fn a_size_setting_is_recorded_under_its_own_size_and_the_written_size_is_the_variant() {
    use gpulab::analysis::fingerprint::blank_result;
    use gpulab::model::results::{Source, TimeMs};
    use gpulab::session::fold;
    let l = gemm();
    let k = (l.knobs.iter())
        .find(|k| k.variant == "tuned" && matches!(k.kind, KnobKind::Problem(_)))
        .unwrap();
    let mut shown = fold::blank_result(&l, Source::Recorded, None);
    let time = TimeMs {
        median: 1.0,
        min: 1.0,
        max: 1.0,
        runs: 1,
        spread_pct: 0.0,
    };
    // A run of the 2048 setting, folded as the run's own lesson makes it.
    let s = &k.settings[0];
    let mut ran = blank_result(&knob_lesson(&l, &[s]), &s.variant);
    ran.time_ms = Some(time.clone());
    shown.knobs.push(ran);
    let got = gpulab::session::knobs::figures(&l, &shown, s).expect("recorded");
    assert!(!got.stale, "the same kernel at the same size is not stale");
    // 4096 is the lesson's own size: `tuned` itself, by its fingerprint.
    let tuned = shown
        .variants
        .iter_mut()
        .find(|v| v.name == "tuned")
        .unwrap();
    tuned.time_ms = Some(TimeMs {
        median: 2.0,
        ..time
    });
    let at_4096 = gpulab::session::knobs::figures(&l, &shown, &k.settings[1]).unwrap();
    assert_eq!(at_4096.time_ms.unwrap().median, 2.0);
    assert!(gpulab::session::knobs::figures(&l, &shown, &k.settings[2]).is_none());
}
