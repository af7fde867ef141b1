//! The fault corpus on a real GPU (tests/fixtures/faultpack): every way a kernel can fail,
//! each said in its own words, and the variant after each failure still correct and timed.
//! Skips, saying why, where there is no GPU.

use crate::support::common;

use common::{bin, fixture};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::protocol::{Reply, RunOptions};
use gpulab::model::results::Failure;
use gpulab::model::results::{LessonResult, Source, VariantResult};
use gpulab::session::client::{WorkerClient, WorkerFailure};
use gpulab::session::fold;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A kernel that never ends is given this long before it is called stuck.
const STALL_S: &str = "10";

fn run_json(lesson: &str) -> (i32, LessonResult, Duration) {
    let t = Instant::now();
    let out = Command::new(bin())
        .args(["run", lesson, "--json", "--no-trace", "--lessons"])
        .arg(fixture("faultpack/lessons"))
        .env("GPULAB_TIMEOUT_S", STALL_S)
        .output()
        .unwrap();
    let took = t.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    let r = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{lesson}: {e}"));
    (out.status.code().unwrap_or(-1), r, took)
}

fn variant<'a>(r: &'a LessonResult, name: &str) -> &'a VariantResult {
    r.variants.iter().find(|v| v.name == name).unwrap()
}

fn assert_correct_and_timed(r: &LessonResult, name: &str) {
    let v = variant(r, name);
    assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
    let t = v
        .time_ms
        .as_ref()
        .unwrap_or_else(|| panic!("{name} is not timed"));
    assert!(t.median > 0.0 && t.runs >= 1, "{name}: {t:?}");
}

/// The failing variants, the kind each must be reported as, and a phrase of its own words.
const FAULTS: [(&str, &[&str], &str); 7] = [
    (
        "out-of-bounds",
        &["CUDA_ERROR_ILLEGAL_ADDRESS"],
        "past the end",
    ),
    (
        "misaligned",
        &["CUDA_ERROR_MISALIGNED_ADDRESS"],
        "aligned to its size",
    ),
    ("trap", &["CUDA_ERROR_LAUNCH_FAILED"], "__trap()"),
    (
        "assert",
        &["CUDA_ERROR_ASSERT"],
        "device-side assert failed",
    ),
    (
        "recursion",
        &[
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
        ],
        "stack",
    ),
    (
        "too-much-shared",
        &["launch limits"],
        "1 MiB of dynamic shared memory",
    ),
    ("endless", &["timeout"], "never finishes"),
];

#[test]
fn every_fault_is_said_in_its_own_words_and_the_variant_after_it_is_correct_and_timed() {
    if common::gpu().is_none() {
        return;
    }
    let (code, r, _) = run_json("corpus");
    assert_eq!(code, 1, "a run with failed variants exits non-zero");
    for (name, kinds, phrase) in FAULTS {
        let v = variant(&r, name);
        let words = v.error.as_deref().unwrap_or_default();
        eprintln!("{name}: {:?} {words}", v.failure);
        assert_eq!(v.correct, Some(false), "{name}");
        let kind = v.failure.as_ref().map(Failure::as_str).unwrap_or_default();
        assert!(kinds.contains(&kind), "{name} reported as {kind}: {words}");
        assert!(words.contains(phrase), "{name} lacks {phrase:?}: {words}");
        assert_correct_and_timed(&r, &format!("after-{name}"));
    }
    let words: std::collections::HashSet<String> = FAULTS
        .iter()
        .map(|(n, _, _)| {
            variant(&r, n)
                .error
                .clone()
                .unwrap_or_default()
                .replace(n, "")
        })
        .collect();
    assert_eq!(words.len(), FAULTS.len(), "each fault has its own words");
    let assert_words = variant(&r, "assert").error.clone().unwrap_or_default();
    if !assert_words.contains("Assertion") {
        eprintln!("note: the assert's own message did not reach the worker's stderr");
    }
    assert_correct_and_timed(&r, "fine");
    // Flooding stdout with printf must not corrupt the protocol.
    assert_correct_and_timed(&r, "printf-flood");
    assert_correct_and_timed(&r, "after-printf-flood");
}

#[test]
fn buffers_larger_than_the_gpu_are_refused_up_front_with_both_sizes() {
    if common::gpu().is_none() {
        return;
    }
    let (code, r, took) = run_json("too-big");
    assert_eq!(code, 1);
    let v = variant(&r, "copy");
    let words = v.error.as_deref().unwrap_or_default();
    assert!(
        words.contains("buffer `out` needs 200 GiB, the GPU has "),
        "{words}"
    );
    assert!(words.ends_with(" free"), "{words}");
    assert_eq!(
        v.failure.as_ref().map(Failure::as_str),
        Some("out of memory")
    );
    assert!(
        took < Duration::from_secs(8),
        "refused after {took:?}, not up front"
    );
}

#[test]
fn a_worker_killed_by_a_signal_mid_run_costs_only_the_variant_it_was_on() {
    if common::gpu().is_none() {
        return;
    }
    let root = CourseRoot::Dir(fixture("faultpack/lessons"));
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let l = lessons.iter().find(|l| l.id == "corpus").unwrap();
    let mut client = WorkerClient::with_command(bin(), vec!["worker".into()]);
    let pid = client.pid_watch();
    let mut result = fold::blank_result(l, Source::Live, None);
    let options = RunOptions {
        variants: vec!["after-out-of-bounds".into(), "after-misaligned".into()],
        trace: false,
        ..Default::default()
    };
    let mut killed = false;
    let out = fold::run_lesson(&mut client, l, &options, &mut result, |r| {
        if let Reply::Stage { variant, .. } = r
            && variant == "after-out-of-bounds"
            && !killed
        {
            // SAFETY: a plain signal to the worker process this test's client started.
            unsafe { libc::kill(pid.load(Ordering::SeqCst) as i32, libc::SIGKILL) };
            killed = true;
        }
    });
    // The run failed (a variant was lost), and says so with the crash's words.
    assert!(matches!(out, Err(WorkerFailure::Crashed { .. })), "{out:?}");
    let v = variant(&result, "after-out-of-bounds");
    assert_eq!(v.correct, Some(false));
    assert!(
        v.error.as_deref().unwrap_or_default().contains("signal"),
        "{v:?}"
    );
    assert_correct_and_timed(&result, "after-misaligned");
}
