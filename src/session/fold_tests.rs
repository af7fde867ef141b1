use super::*;
use crate::model::builder::LessonBuilder;
use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};

fn lesson() -> Lesson {
    LessonBuilder::new("a")
        .variant("fast")
        .variant("slow")
        .build()
}

fn fold(
    replies: &[Reply],
    outcome: Result<(), WorkerFailure>,
) -> (LessonResult, Result<(), WorkerFailure>) {
    let l = lesson();
    let mut result = blank_result(&l, Source::Live, None);
    let mut fold = Fold::new();
    for r in replies {
        fold.apply(&mut result, r);
    }
    let out = fold.finish(&l, &mut result, outcome);
    (result, out)
}

fn stage(variant: &str) -> Reply {
    Reply::Stage {
        variant: variant.into(),
        stage: "timing".into(),
    }
}

#[test]
fn samples_and_reports_land_on_their_variant() {
    let (r, out) = fold(
        &[
            stage("slow"),
            Reply::Sample {
                variant: "slow".into(),
                ms: 2.0,
            },
            Reply::Compiled {
                variant: "fast".into(),
                ptxas: None,
                error: Some("k.cu:1: error: oops".into()),
            },
            Reply::Done,
        ],
        Ok(()),
    );
    assert!(out.is_ok());
    assert_eq!(r.variants[1].samples_ms, vec![2.0]);
    assert_eq!(r.variants[0].error.as_deref(), Some("k.cu:1: error: oops"));
    assert_eq!(r.compile, Some(Source::Live));
}

#[test]
fn a_compile_error_over_recorded_figures_leaves_them_not_measured() {
    let l = LessonBuilder::new("a")
        .variant("fast")
        .variant("slow")
        .claim(Claim {
            text: "fast time_ms < 5".into(),
            kind: ClaimKind::Metric {
                a: "fast".into(),
                metric: Metric::TimeMs,
                op: CmpOp::Lt,
                value: 5.0,
            },
        })
        .build();
    let mut result = blank_result(&l, Source::Recorded, None);
    result.variants[0].correct = Some(true);
    result.variants[0].time_ms = Some(crate::model::results::TimeMs {
        median: 1.0,
        min: 1.0,
        max: 1.0,
        runs: 3,
        spread_pct: 0.0,
    });
    let mut fold = Fold::new();
    fold.apply(
        &mut result,
        &Reply::Compiled {
            variant: "fast".into(),
            ptxas: None,
            error: Some("k.cu(3): error: identifier \"x\" is undefined".into()),
        },
    );
    fold.finish(&l, &mut result, Ok(())).unwrap();
    let v = &result.variants[0];
    assert_eq!((v.correct, v.time_ms.is_none()), (None, true), "{v:?}");
    assert!(crate::analysis::describe::status(v).contains("is undefined"));
    assert_eq!(result.expect[0].holds, None, "{:?}", result.expect);
    assert!(
        result.expect[0].detail.contains("not"),
        "{:?}",
        result.expect
    );
}

#[test]
fn a_refusal_is_a_failure_on_the_variant_the_worker_was_on() {
    let refusal = Reply::Error {
        message: "no GPU to run on".into(),
    };
    let (r, out) = fold(&[stage("slow"), refusal, Reply::Done], Ok(()));
    assert!(matches!(out, Err(WorkerFailure::Start(ref m)) if m == "no GPU to run on"));
    assert_eq!(r.variants[1].correct, Some(false));
    assert!(
        r.variants[1]
            .error
            .as_deref()
            .unwrap()
            .contains("no GPU to run on")
    );
    assert_eq!(
        r.variants[0].correct, None,
        "the other variant is untouched"
    );
}

#[test]
fn a_fault_names_its_own_variant_and_a_crash_the_one_in_progress() {
    let fault = WorkerFailure::Fault {
        variant: Some("fast".into()),
        message: "illegal address".into(),
        code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
    };
    let (r, _) = fold(&[stage("slow")], Err(fault));
    assert_eq!(r.variants[0].correct, Some(false));
    assert_eq!(r.variants[1].correct, None);
    let crash = WorkerFailure::Crashed {
        detail: "signal 6".into(),
    };
    let (r, _) = fold(&[stage("slow")], Err(crash));
    assert!(r.variants[1].error.as_deref().unwrap().contains("signal 6"));
    let (r, _) = fold(&[stage("")], Err(WorkerFailure::Start("gone".into())));
    assert!(
        r.variants.iter().all(|v| v.correct.is_none()),
        "no variant to blame"
    );
    // But none is left blank: each says the run never reached it, and why.
    for v in &r.variants {
        let e = v.error.as_deref().unwrap_or_default();
        assert!(e.starts_with("not run: ") && e.contains("gone"), "{e}");
    }
}

#[test]
fn a_lesson_needing_a_newer_gpu_is_unmet_on_an_older_one() {
    let mut l = lesson();
    let caps = |cc: &str| Capabilities {
        device: Some(DeviceInfo {
            cc: cc.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(unmet(&l, &caps("8.6")), None);
    l.requires.cc = Some((9, 0));
    assert_eq!(
        unmet(&l, &caps("8.6")).as_deref(),
        Some("needs compute capability 9.0, this GPU has 8.6")
    );
    assert_eq!(unmet(&l, &caps("9.0")), None);
    // No GPU at all: the recording is shown anyway, nothing to say about capabilities.
    assert_eq!(unmet(&l, &Capabilities::default()), None);
}

#[test]
fn a_worker_lost_while_waiting_for_the_gpu_marks_the_variant_that_waited() {
    use crate::model::protocol::{JobKind, QueuedJob};
    let queued = Reply::Queue {
        variant: "slow".into(),
        ahead: vec![QueuedJob {
            pid: 7,
            job: JobKind::Recording,
        }],
        waited_ms: 0.0,
    };
    let crashed = WorkerFailure::Crashed {
        detail: "killed".into(),
    };
    let (r, out) = fold(&[stage("fast"), queued], Err(crashed));
    assert!(out.is_err());
    assert_eq!(r.variants[1].correct, Some(false), "{:?}", r.variants[1]);
    assert!(r.variants[1].error.as_deref().unwrap().contains("killed"));
    assert_eq!(
        r.variants[0].correct, None,
        "the variant before it is not blamed"
    );
}

#[test]
fn noise_judged_after_a_variants_figures_marks_them_and_keeps_them() {
    let figures = |name: &str| Reply::Variant {
        result: Box::new(VariantResult {
            name: name.into(),
            correct: Some(true),
            samples_ms: vec![1.5, 1.6],
            ..Default::default()
        }),
    };
    let words =
        "timings noisy: another process (pid 4242) kept the SMs 12% busy during 3 of 10 runs";
    let (r, out) = fold(
        &[
            figures("fast"),
            figures("slow"),
            // Judged a second later, after both variants' figures came.
            Reply::Noise {
                variant: "fast".into(),
                noise: words.into(),
            },
            Reply::Done,
        ],
        Ok(()),
    );
    assert!(out.is_ok());
    assert_eq!(r.variants[0].noise.as_deref(), Some(words));
    assert_eq!(r.variants[0].samples_ms, vec![1.5, 1.6], "figures kept");
    assert_eq!(r.variants[0].correct, Some(true));
    assert_eq!(r.variants[1].noise, None, "only the variant named");
    assert_eq!(
        crate::analysis::describe::status(&r.variants[0]),
        format!("correct · {words}")
    );
}

#[test]
fn a_process_verdict_joins_what_the_clocks_said_of_the_same_runs() {
    let clocks = "timings noisy: clocks held back by power cap";
    let process = "timings noisy: another process (pid 7) kept the SMs 5% busy during 1 of 10 runs";
    let (r, _) = fold(
        &[
            Reply::Variant {
                result: Box::new(VariantResult {
                    name: "fast".into(),
                    correct: Some(true),
                    noise: Some(clocks.into()),
                    ..Default::default()
                }),
            },
            Reply::Noise {
                variant: "fast".into(),
                noise: process.into(),
            },
            Reply::Done,
        ],
        Ok(()),
    );
    assert_eq!(
        r.variants[0].noise.as_deref(),
        Some(format!("{clocks}; {process}").as_str())
    );
}
