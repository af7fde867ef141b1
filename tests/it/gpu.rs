//! Tests that need a GPU. They print that they skipped, and why, where there is none; on a
//! GPU machine (`cargo test --release --test it gpu::`) they run the shipped lessons live.

use crate::support::common;

use common::{bin, fixture};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::protocol::{Reply, Request, RunOptions};
use gpulab::model::results::LessonResult;
use gpulab::session::client::{WorkerClient, WorkerFailure};
use gpulab::session::fold;
use std::process::Command;
use std::time::Duration;

fn run_json(id: &str) -> LessonResult {
    let out = Command::new(bin())
        .args(["run", id, "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{id}: {e}\n{stderr}"))
}

fn fixture_lesson() -> Lesson {
    let dir = fixture("gpu/lessons");
    let (mut lessons, errors) = gpulab::course::load_course(&CourseRoot::Dir(dir));
    assert!(errors.is_empty(), "{errors:?}");
    lessons.remove(0)
}

#[test]
fn every_shipped_lesson_runs_live_and_every_variant_is_correct() {
    let Some(dev) = common::gpu() else { return };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty());
    let runs = common::par_map(&lessons, |l| run_json(&l.id));
    for (l, r) in lessons.iter().zip(runs) {
        // A lesson this machine cannot run (the peer lesson on one GPU) says why, per variant.
        if !r.variants.is_empty() && r.variants.iter().all(|v| v.unmet.is_some()) {
            eprintln!("{}: not run here: {:?}", l.id, r.variants[0].unmet);
            continue;
        }
        assert_eq!(r.source, gpulab::model::results::Source::Live);
        assert_eq!(r.device.as_ref().unwrap().name, dev.name);
        assert!(r.peak.copy_gbps.unwrap() > 0.0);
        for v in &r.variants {
            // The stencil's no-sync is racy on purpose: its output may or may not match,
            // and it is never timed as a speed (tests/it/gpu_races.rs checks its race).
            if gpulab::analysis::describe::first_race(v).is_some() {
                assert!(v.ptxas.is_some(), "{} {} has no ptxas report", l.id, v.name);
                continue;
            }
            assert_eq!(v.correct, Some(true), "{} {}: {:?}", l.id, v.name, v.error);
            let t = v.time_ms.as_ref().expect("timed");
            // Ten runs at least, unless the timing budget ran out first (a naive GEMM takes
            // a quarter of a second a run).
            let budget = gpulab::model::protocol::RunOptions::default().max_ms;
            let spent = t.median * t.runs as f64;
            assert!(
                t.median > 0.0 && (t.runs >= 10 || spent >= 0.8 * budget),
                "{t:?}"
            );
            // A copy between host and device (`transfer:`) compiles nothing.
            let copy = l.variant(&v.name).is_some_and(|x| x.transfer.is_some());
            assert!(
                copy || v.ptxas.is_some(),
                "{} {} has no ptxas report",
                l.id,
                v.name
            );
        }
        for c in &r.expect {
            eprintln!("{} {:?} {} ({})", l.id, c.holds, c.claim, c.detail);
        }
        if l.id == "global-coalescing" {
            let best = r
                .variants
                .iter()
                .filter_map(|v| v.pct_of_peak)
                .fold(0.0, f64::max);
            assert!(
                best >= 90.0,
                "best variant reaches {best:.1}% of the copy bandwidth"
            );
            for c in &r.expect {
                assert_eq!(c.holds, Some(true), "{}: {}", c.claim, c.detail);
            }
        }
    }
}

#[test]
fn occupancy_from_the_api_agrees_with_the_rules_applied_to_the_report() {
    let Some(dev) = common::gpu() else { return };
    let (lessons, _) = gpulab::course::load_course(&CourseRoot::Bundled);
    // Each lesson run by a worker of its own, several at once.
    let runs = common::par_map(&lessons, |l| {
        let mut client = WorkerClient::with_command(bin(), vec!["worker".into()]);
        let mut r = fold::blank_result(l, gpulab::model::results::Source::Live, None);
        let opts = RunOptions {
            time: false,
            trace: false,
            ..Default::default()
        };
        fold::run_lesson(&mut client, l, &opts, &mut r, |_| {}).unwrap();
        r
    });
    for (l, r) in lessons.iter().zip(&runs) {
        for (v, lv) in r.variants.iter().zip(&l.variants) {
            // A copy launches no kernel: it has no occupancy.
            if v.unmet.is_some() || lv.transfer.is_some() {
                continue;
            }
            let api = v.occupancy.as_ref().expect("occupancy");
            assert_eq!(api.from, "api");
            let rules = gpulab::worker::runner::occupancy_from_report(
                &dev.cc,
                lv,
                v.ptxas.as_ref().unwrap(),
            )
            .expect("rules for this GPU");
            assert_eq!(
                (api.blocks_per_sm, api.active_warps),
                (rules.blocks_per_sm, rules.active_warps),
                "{} {}",
                l.id,
                v.name
            );
        }
    }
}

#[test]
fn an_out_of_bounds_kernel_is_reported_and_the_next_run_works() {
    if common::gpu().is_none() {
        return;
    }
    let l = fixture_lesson();
    let mut client = WorkerClient::with_command(bin(), vec!["worker".into()]);
    let run = |client: &mut WorkerClient, v: &str, stall: u64| {
        let req = Request::Run {
            lesson: Box::new(l.clone()),
            options: RunOptions {
                variants: vec![v.into()],
                trace: false,
                ..Default::default()
            },
        };
        let mut results = Vec::new();
        client
            .request(&req, Duration::from_secs(stall), |r| {
                if let Reply::Variant { result } = r {
                    results.push((**result).clone());
                }
            })
            .map(|_| results)
    };
    let err = run(&mut client, "out-of-bounds", 30).unwrap_err();
    eprintln!("{err}");
    match &err {
        WorkerFailure::Fault {
            variant,
            message,
            code,
        } => {
            assert_eq!(variant.as_deref(), Some("out-of-bounds"));
            // An out-of-bounds write shows as ILLEGAL_ADDRESS or INVALID_ADDRESS_SPACE,
            // depending on where it lands; both are CUDA's own words, passed on, and the
            // name crosses the wire as itself.
            assert!(message.contains("CUDA_ERROR_"), "{message}");
            let code = code.as_deref().unwrap_or_default();
            assert!(
                code.starts_with("CUDA_ERROR_") && message.contains(code),
                "{code}"
            );
        }
        other => panic!("expected a fault, got {other:?}"),
    }
    let ok = run(&mut client, "fine", 30).expect("the next run works");
    assert_eq!(ok.last().unwrap().correct, Some(true));
}

#[test]
fn an_endless_kernel_times_out_and_the_next_run_works() {
    if common::gpu().is_none() {
        return;
    }
    let l = fixture_lesson();
    let mut client = WorkerClient::with_command(bin(), vec!["worker".into()]);
    let req = |v: &str| Request::Run {
        lesson: Box::new(l.clone()),
        options: RunOptions {
            variants: vec![v.into()],
            trace: false,
            ..Default::default()
        },
    };
    let err = client
        .request(&req("endless"), Duration::from_secs(8), |_| {})
        .unwrap_err();
    eprintln!("{err}");
    assert!(
        matches!(&err, WorkerFailure::Timeout { variant, .. } if variant == "endless"),
        "{err:?}"
    );
    let mut correct = None;
    client
        .request(&req("fine"), Duration::from_secs(30), |r| {
            if let Reply::Variant { result } = r {
                correct = result.correct;
            }
        })
        .expect("the next run works");
    assert_eq!(correct, Some(true));
}
