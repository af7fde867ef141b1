//! The worker's failure modes, on any machine: a fake worker (the real binary with
//! GPULAB_WORKER_FAKE set) hangs, crashes or faults, and the client must say so in words,
//! stop it, and serve the next request with a fresh worker.

use crate::support::common;

use gpulab::model::Lesson;
use gpulab::model::builder::LessonBuilder;
use gpulab::model::protocol::{Reply, Request, RunOptions};
use gpulab::session::client::{WorkerClient, WorkerFailure};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn lesson() -> Lesson {
    LessonBuilder::new("t").variant("endless").build()
}

fn client(mode: &str) -> WorkerClient {
    WorkerClient::with_command(common::bin(), vec!["worker".into()]).env("GPULAB_WORKER_FAKE", mode)
}

fn run(c: &mut WorkerClient, stall: Duration) -> Result<Vec<Reply>, WorkerFailure> {
    let mut replies = Vec::new();
    let req = Request::Run {
        lesson: Box::new(lesson()),
        options: RunOptions::default(),
    };
    c.request(&req, stall, |r| replies.push(r.clone()))?;
    Ok(replies)
}

#[test]
fn a_hang_times_out_names_the_variant_and_the_next_request_works() {
    let mut c = client("hang");
    let t = Instant::now();
    let err = run(&mut c, Duration::from_millis(700)).unwrap_err();
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
    match &err {
        WorkerFailure::Timeout { variant, stage, .. } => {
            assert_eq!(variant, "endless");
            assert_eq!(stage, "checking the output");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    let words = err.to_string();
    assert!(words.contains("`endless` stopped answering"), "{words}");
    assert!(words.contains("never finishes"), "{words}");
    // `kill` has nothing to stop (and says nothing) when no worker is running.
    assert!(c.kill().is_empty(), "the stuck worker must be stopped");
    // The next request gets a fresh worker, which answers.
    let mut replies = Vec::new();
    c.request(
        &Request::Hello { device: 0 },
        Duration::from_secs(30),
        |r| replies.push(r.clone()),
    )
    .expect("a fresh worker answers hello");
    assert!(replies.iter().any(|r| matches!(r, Reply::Hello { .. })));
}

#[test]
fn silence_while_compiling_is_not_taken_for_a_hung_kernel() {
    // A compile says nothing until it is done, 2 s here against a stall limit of 0.7 s: a
    // machine whose cores are all busy compiles that slowly, and no kernel has run yet.
    let mut c = client("gpu,slow-compile:endless");
    let replies = run(&mut c, Duration::from_millis(700)).expect("a slow compile is no hang");
    assert!(
        (replies.iter()).any(|r| matches!(r, Reply::Stage { stage, .. } if stage == "compiling")),
        "{replies:?}"
    );
    assert!(replies.iter().any(|r| matches!(r, Reply::Done)));
    // The same silence once the kernel runs is a hang.
    let mut hung = client("gpu,hang-on:endless");
    match run(&mut hung, Duration::from_millis(700)) {
        Err(WorkerFailure::Timeout { stage, .. }) => assert_eq!(stage, "checking the output"),
        other => panic!("expected a timeout, got {other:?}"),
    }
    // And a compile that never ends is said to be the compiler's.
    let words = WorkerFailure::Timeout {
        secs: 120.0,
        variant: "endless".into(),
        stage: "compiling".into(),
    }
    .to_string();
    assert!(words.contains("compiler did not finish"), "{words}");
    assert!(!words.contains("never finishes"), "{words}");
}

#[test]
fn a_fault_is_reported_in_words_and_the_worker_restarts() {
    let mut c = client("fault");
    let err = run(&mut c, Duration::from_secs(30)).unwrap_err();
    match &err {
        WorkerFailure::Fault {
            variant,
            message,
            code,
        } => {
            assert_eq!(variant.as_deref(), Some("endless"));
            assert!(message.contains("CUDA_ERROR_ILLEGAL_ADDRESS"));
            // The kind of fault crosses the wire typed, not to be read back out of words.
            assert_eq!(code.as_deref(), Some("CUDA_ERROR_ILLEGAL_ADDRESS"));
            assert_eq!(
                err.kind(),
                gpulab::model::results::Failure::Cuda("CUDA_ERROR_ILLEGAL_ADDRESS".into())
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    assert!(err.to_string().contains("worker was restarted"));
    assert!(c.kill().is_empty(), "the faulted worker must be gone");
    // And again: each fault gets its own fresh worker.
    assert!(matches!(
        run(&mut c, Duration::from_secs(30)),
        Err(WorkerFailure::Fault { .. })
    ));
}

#[test]
fn a_crash_is_reported_with_what_the_worker_said_last() {
    let mut c = client("crash");
    let err = run(&mut c, Duration::from_secs(30)).unwrap_err();
    match &err {
        WorkerFailure::Crashed { detail } => {
            assert!(detail.contains("crashing on purpose"), "{detail}");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    assert!(err.to_string().contains("ended unexpectedly"));
}

#[test]
fn a_missing_worker_program_is_a_start_error_not_a_panic() {
    let mut c = WorkerClient::with_command(PathBuf::from("/nonexistent/gpulab-worker"), vec![]);
    let err = c
        .request(
            &Request::Hello { device: 0 },
            Duration::from_secs(5),
            |_| {},
        )
        .unwrap_err();
    assert!(matches!(err, WorkerFailure::Start(_)), "{err:?}");
}
