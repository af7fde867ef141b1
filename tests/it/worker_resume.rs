//! A fault, a hang or a crash costs only its own variant: the rest of the lesson runs in a
//! fresh worker and is reported. On any machine: the fake worker (GPULAB_WORKER_FAKE) says
//! it has a GPU and fails on the variants it is told to.

use crate::support::common;

use common::{bin, fixture};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::protocol::{Reply, RunOptions};
use gpulab::model::results::Failure;
use gpulab::model::results::{LessonResult, Source, VariantResult};
use gpulab::session::client::{WorkerClient, WorkerFailure};
use gpulab::session::fold;
use std::process::Command;
use std::sync::atomic::Ordering;

/// `gpulab run corpus --json` on the fault pack with the fake worker in `mode`.
fn run_corpus(mode: &str, extra: &[&str]) -> (i32, LessonResult) {
    let out = Command::new(bin())
        .args(["run", "corpus", "--json", "--lessons"])
        .arg(fixture("faultpack/lessons"))
        .args(extra)
        .env("GPULAB_WORKER_FAKE", mode)
        .env("GPULAB_TIMEOUT_S", "2")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{stderr}"));
    (out.status.code().unwrap_or(-1), r)
}

fn variant<'a>(r: &'a LessonResult, name: &str) -> &'a VariantResult {
    r.variants.iter().find(|v| v.name == name).unwrap()
}

fn assert_ran(r: &LessonResult, name: &str) {
    let v = variant(r, name);
    assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
    assert!(v.time_ms.is_some(), "{name} is timed");
}

#[test]
fn a_fault_costs_only_its_variant_and_the_rest_of_the_lesson_runs() {
    let (code, r) = run_corpus("gpu,fault-on:out-of-bounds", &[]);
    assert_eq!(code, 1, "a failed variant fails the run");
    let bad = variant(&r, "out-of-bounds");
    assert_eq!(bad.correct, Some(false));
    assert_eq!(
        bad.failure.as_ref().map(Failure::as_str),
        Some("CUDA_ERROR_ILLEGAL_ADDRESS")
    );
    let words = bad.error.as_deref().unwrap();
    assert!(words.contains("outside every buffer"), "{words}");
    for v in r.variants.iter().filter(|v| v.name != "out-of-bounds") {
        assert_ran(&r, &v.name);
    }
}

#[test]
fn every_kind_of_loss_is_said_in_its_own_words_and_the_next_variant_runs() {
    let mode = "gpu,fault-on:out-of-bounds,assert-on:assert,crash-on:trap,hang-on:endless";
    let (code, r) = run_corpus(mode, &[]);
    assert_eq!(code, 1);
    let words = |n: &str| variant(&r, n).error.clone().unwrap_or_default();
    assert!(words("out-of-bounds").contains("past the end"));
    assert!(
        words("assert").contains("Assertion `i != 7` failed"),
        "{}",
        words("assert")
    );
    assert!(words("assert").contains("device-side assert failed"));
    // The assert's line is quoted as the GPU wrote it, not prefixed by how the worker ended.
    for how_it_ended in ["signal", "exit status"] {
        assert!(
            !words("assert").contains(how_it_ended),
            "{}",
            words("assert")
        );
    }
    assert!(
        words("trap").contains("ended unexpectedly"),
        "{}",
        words("trap")
    );
    assert!(
        words("endless").contains("never finishes"),
        "{}",
        words("endless")
    );
    assert_eq!(
        variant(&r, "endless").failure.as_ref().map(Failure::as_str),
        Some("timeout")
    );
    for n in [
        "after-out-of-bounds",
        "after-assert",
        "after-trap",
        "after-endless",
    ] {
        assert_ran(&r, n);
    }
}

#[test]
fn a_lost_reference_stops_the_run_and_says_why_the_rest_did_not_run() {
    let (code, r) = run_corpus("gpu,fault-on:fine", &[]);
    assert_eq!(code, 1);
    assert_eq!(variant(&r, "fine").correct, Some(false));
    let rest = variant(&r, "after-trap");
    assert_eq!(rest.correct, None);
    assert!(
        rest.error.as_deref().unwrap().contains("not run"),
        "{rest:?}"
    );
}

#[test]
fn a_fault_in_the_only_variant_asked_for_fails_the_run_with_its_reason() {
    let (code, r) = run_corpus("gpu,fault-on:misaligned", &["--variant", "misaligned"]);
    assert_eq!(code, 1);
    assert_eq!(r.variants.len(), 1);
    assert!(r.variants[0].error.as_deref().unwrap().contains("faulted"));
}

fn corpus() -> Lesson {
    let root = CourseRoot::Dir(fixture("faultpack/lessons"));
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    lessons.into_iter().find(|l| l.id == "corpus").unwrap()
}

#[test]
fn a_worker_killed_by_a_signal_mid_run_costs_only_the_variant_it_was_on() {
    let l = corpus();
    let mut client =
        WorkerClient::with_command(bin(), vec!["worker".into()]).env("GPULAB_WORKER_FAKE", "slow");
    let pid = client.pid_watch();
    let mut result = fold::blank_result(&l, Source::Live, None);
    let options = RunOptions {
        variants: vec!["fine".into(), "trap".into(), "after-trap".into()],
        ..Default::default()
    };
    let mut killed = false;
    let out = fold::run_lesson(&mut client, &l, &options, &mut result, |r| {
        if let Reply::Stage { variant, .. } = r
            && variant == "trap"
            && !killed
        {
            let p = pid.load(Ordering::SeqCst);
            assert_ne!(p, 0, "the client knows its worker's pid");
            // SAFETY: a plain signal to the child process this test's client started.
            unsafe { libc::kill(p as i32, libc::SIGKILL) };
            killed = true;
        }
    });
    // The run failed (a variant was lost), and says so with the crash's words.
    assert!(matches!(out, Err(WorkerFailure::Crashed { .. })), "{out:?}");
    assert!(killed);
    let trap = variant(&result, "trap");
    assert_eq!(trap.correct, Some(false));
    assert!(
        trap.error.as_deref().unwrap().contains("signal"),
        "{trap:?}"
    );
    assert_ran(&result, "after-trap");
}

#[test]
fn buffers_larger_than_the_gpu_are_refused_up_front_with_both_sizes() {
    let out = Command::new(bin())
        .args(["run", "too-big", "--json", "--lessons"])
        .arg(fixture("faultpack/lessons"))
        .env("GPULAB_WORKER_FAKE", "gpu")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r: LessonResult = serde_json::from_slice(&out.stdout).unwrap();
    let v = variant(&r, "copy");
    assert_eq!(
        v.failure.as_ref().map(Failure::as_str),
        Some("out of memory")
    );
    let words = v.error.as_deref().unwrap();
    assert!(
        words.contains("buffer `out` needs 200 GiB, the GPU has 80 GiB free"),
        "{words}"
    );
}

#[test]
fn a_run_with_a_lost_variant_is_a_failed_request_though_the_rest_was_measured() {
    let l = corpus();
    let mut client = WorkerClient::with_command(bin(), vec!["worker".into()])
        .env("GPULAB_WORKER_FAKE", "gpu,fault-on:trap");
    let req = gpulab::model::protocol::Request::Run {
        lesson: Box::new(l.clone()),
        options: RunOptions {
            variants: vec!["trap".into()],
            ..Default::default()
        },
    };
    let mut lost = Vec::new();
    let err = client
        .request(&req, std::time::Duration::from_secs(30), |r| {
            if let Reply::Lost { variant, .. } = r {
                lost.push(variant.clone());
            }
        })
        .unwrap_err();
    assert!(matches!(err, WorkerFailure::Fault { .. }), "{err:?}");
    assert_eq!(lost, vec!["trap"]);
}
