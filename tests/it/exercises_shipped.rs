//! The shipped exercises as the course lists them. Every starter compiling and failing a
//! check, and every solution passing every check the CPU can judge, is shown by
//! tests/it/exercise_wrong_answers.rs beside the wrong answers (one pass over every file,
//! on every core); here, the exercises it leaves to a GPU (the interpreter cannot run
//! them: textures) are at least compiled, their solutions failing no check the compiler's
//! report judges. Skipped without NVRTC unless GPULAB_REQUIRE_NVRTC=1. On a GPU,
//! tests/it/gpu_exercises.rs runs them all live.

use crate::support::{common, wrong_answers};
use wrong_answers::Kind;

use common::{bin, nvrtc_or_skip};
use gpulab::course::bundle::CourseRoot;
use std::process::Command;

fn check(ws: &std::path::Path, data: &std::path::Path, id: &str) -> (i32, serde_json::Value) {
    let out = Command::new(bin())
        .args(["ex", "--workspace"])
        .arg(ws)
        .args(["check", id, "--json"])
        .env("GPULAB_DATA_DIR", data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{id}: {e}\n{stderr}"));
    (out.status.code().unwrap_or(-1), v)
}

fn marks(r: &serde_json::Value) -> Vec<(String, String)> {
    r["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["check"].as_str().unwrap().to_string(),
                l["mark"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_exercise_left_to_a_gpu_compiles_and_its_solution_fails_no_check_here() {
    if !nvrtc_or_skip("every_exercise_left_to_a_gpu_compiles") {
        return;
    }
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let (shipped, _) = wrong_answers::shipped();
    let gpu_only: Vec<&str> = (shipped.iter())
        .filter(|e| e.all_wrong_on_gpu())
        .map(|e| e.id.as_str())
        .collect();
    let exercises: Vec<_> = (lessons.iter().flat_map(|l| &l.exercises))
        .filter(|e| gpu_only.contains(&e.id.as_str()))
        .collect();
    assert!(
        !exercises.is_empty(),
        "no exercise is left to a GPU: {gpu_only:?}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let (ws, data) = (tmp.path().join("ws"), tmp.path().join("data"));
    for ex in &exercises {
        std::fs::create_dir_all(&ws).unwrap();
        let mine = ws.join(format!("{}.cu", ex.id));
        std::fs::write(&mine, &ex.starter).unwrap();
        let (_, r) = check(&ws, &data, &ex.id);
        if r["live"] == true {
            eprintln!("a GPU is here: tests/it/gpu_exercises.rs checks the exercises live");
            return;
        }
        assert!(r["compile_error"].is_null(), "{} starter: {r}", ex.id);
        std::fs::write(&mine, &ex.solution).unwrap();
        let (code, r) = check(&ws, &data, &ex.id);
        assert!(r["compile_error"].is_null(), "{} solution: {r}", ex.id);
        let m = marks(&r);
        for (c, m) in &m {
            assert!(
                m == "pass" || m == "needs_gpu",
                "{} solution: {c} is {m}",
                ex.id
            );
        }
        // Nothing fails: checked on the CPU interpreter (no GPU here), it passes where the
        // interpreter judges every check (exit 0) and is undecided where some need a GPU
        // (exit 3).
        let need_gpu = m.iter().any(|(_, m)| m == "needs_gpu");
        assert_eq!(code, if need_gpu { 3 } else { 0 }, "{} solution", ex.id);
        // Its wrong answers are left to a GPU: none has a check "not measured" (a figure
        // the interpreter cannot make needs a GPU, and says so), also where the kernel
        // itself has no texture but its launch passes one. One that fetches no texture runs
        // here whole and may fail, but only the check its header names; one that fetches
        // in some blocks is left to a GPU whole, whatever blocks the trace sampled.
        let shipped_ex = shipped.iter().find(|e| e.id == ex.id).unwrap();
        for case in &shipped_ex.cases {
            let Kind::Wrong { caught_by, .. } = &case.kind else {
                continue;
            };
            std::fs::copy(&case.path, &mine).unwrap();
            let (code, r) = check(&ws, &data, &ex.id);
            if !r["compile_error"].is_null() {
                continue;
            }
            let mut failed = false;
            for (c, m) in &marks(&r) {
                failed |= m == "fail";
                assert!(
                    m == "pass" || m == "needs_gpu" || (m == "fail" && c == caught_by),
                    "{} {}: {c} is {m}",
                    ex.id,
                    case.name
                );
            }
            assert_eq!(
                code,
                if failed { 1 } else { 3 },
                "{} {}: {r}",
                ex.id,
                case.name
            );
        }
    }
}

#[test]
fn every_shipped_exercise_has_hints_checks_and_extra_sizes() {
    let (lessons, _) = gpulab::course::load_course(&CourseRoot::Bundled);
    for l in &lessons {
        for ex in &l.exercises {
            assert!(ex.hints.len() >= 2, "{}", ex.id);
            assert!(!ex.checks.is_empty(), "{}", ex.id);
            assert!(!ex.sizes.is_empty(), "{}: no extra sizes", ex.id);
            assert_ne!(ex.starter, ex.solution, "{}", ex.id);
        }
    }
}

#[test]
fn every_shipped_lesson_loads_at_each_of_its_exercises_sizes() {
    let root = CourseRoot::Bundled;
    let (lessons, _) = gpulab::course::load_course(&root);
    for l in &lessons {
        for ex in &l.exercises {
            for sizes in &ex.sizes {
                let sized = gpulab::course::reload_sized(&root, &l.file, sizes)
                    .unwrap_or_else(|e| panic!("{} at {sizes:?}: {e:#?}", ex.id));
                assert!(sized.exercises.iter().any(|e| e.id == ex.id));
                for set in sizes {
                    assert!(sized.problem.contains(set), "{} at {sizes:?}", ex.id);
                }
            }
        }
    }
}
