//! No wrong answer passes (the course's mutation test), on the CPU interpreter: for every
//! exercise of the course, found as the course lists them, every `wrong/*.cu` beside its
//! solution is put in a fresh workspace as the learner's file and checked with
//! `gpulab ex check ID --cpu` (by `ex check-many`, each exercise's compared variants traced
//! once, `--reuse-figures`); one marked `on: cpu` must not pass, and the check its header
//! names must fail (✗). Every starter must fail a check, every solution (and every
//! `right/*.cu`, another right answer) must pass every check the CPU can judge. The
//! headers follow the convention: `// wrong:`, `// caught by:` (one of the exercise's
//! checks as written, or `correct`, `race`, `compile`), `// on: cpu` (or `gpu - why`, only
//! beyond three CPU-caught ones, or where no answer of the exercise can run on the CPU).
//!
//! Needs NVRTC (skipped without, unless GPULAB_REQUIRE_NVRTC=1, where that fails). The
//! checks run on as many threads as there are cores; `cargo test` builds the binary at
//! opt-level 1 (Cargo.toml), which the interpreter needs to be quick. While an exercise is
//! being written, `GPULAB_EXERCISES=id,id` checks only those (the count of exercises is
//! then not asserted). On a GPU,
//! tests/it/gpu_exercises.rs runs the same answers live, times included.

use crate::support::{common, wrong_answers};

use common::nvrtc_or_skip;
use std::time::Instant;
use wrong_answers::{Case, Kind, On, check_all, shipped, threads, verdict};

#[test]
fn every_wrong_answer_fails_its_named_check_on_the_cpu_and_every_solution_passes() {
    if !nvrtc_or_skip("every_wrong_answer_fails_its_named_check_on_the_cpu") {
        return;
    }
    let (mut exercises, mut problems) = shipped();
    match std::env::var("GPULAB_EXERCISES")
        .ok()
        .filter(|s| !s.trim().is_empty())
    {
        Some(only) => {
            let only: Vec<&str> = only.split(',').map(str::trim).collect();
            exercises.retain(|e| only.contains(&e.id.as_str()));
            problems.retain(|p| only.iter().any(|id| p.starts_with(&format!("{id}:"))));
        }
        None => assert!(exercises.len() >= 10, "{} exercises", exercises.len()),
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut gpu_only = Vec::new();
    for ex in &exercises {
        let on = |want: On| {
            (ex.cases.iter())
                .filter(|c| matches!(&c.kind, Kind::Wrong { on, .. } if *on == want))
                .count()
        };
        let (cpu, gpu) = (on(On::Cpu), on(On::Gpu));
        if cpu + gpu < 3 {
            problems.push(format!(
                "{}: {} wrong answers in {}/wrong (at least 3)",
                ex.id,
                cpu + gpu,
                ex.dir.display()
            ));
        }
        // `on: gpu` only beyond three the CPU catches, or for an exercise the interpreter
        // cannot run at all (every wrong answer of it on a GPU).
        if gpu > 0 && cpu > 0 && cpu < 3 {
            problems.push(format!(
                "{}: {gpu} wrong answers only a GPU catches, and only {cpu} the CPU does \
                 (at least 3 before any on a GPU)",
                ex.id
            ));
        }
        if cpu == 0 && gpu > 0 {
            gpu_only.push(ex.id.clone());
            continue;
        }
        let cpu_cases = (ex.cases.iter())
            .filter(|c| !matches!(&c.kind, Kind::Wrong { on: On::Gpu, .. }))
            .cloned();
        cases.extend(cpu_cases);
    }
    let start = Instant::now();
    let n = threads();
    // Each exercise's compared variants are traced once, by its first check, and every
    // later check traces only `yours` against them in the same blocks (`--reuse-figures`,
    // as the GPU table does).
    let kept = tempfile::tempdir().unwrap();
    let batch = wrong_answers::Batch {
        cpu: true,
        reuse: Some(kept.path()),
    };
    let outcomes = wrong_answers::check_all_saying(&cases, batch, n, |_, _| {});
    let wall = start.elapsed();
    let mut table = String::new();
    let mut exercise = "";
    for (case, o) in cases.iter().zip(&outcomes) {
        if case.exercise != exercise {
            exercise = &case.exercise;
            table.push_str(&format!("{exercise}\n"));
        }
        let failed = o.failed();
        let said = if failed.is_empty() {
            format!("nothing fails (exit {})", o.code)
        } else {
            format!("✗ {}", failed.join("; "))
        };
        table.push_str(&format!("  {:<28} {:>5.1} s  {said}\n", case.name, o.secs));
        if let Some(why) = verdict(case, o, true) {
            problems.push(format!(
                "{} {}: {why}\n{}{}",
                case.exercise,
                case.name,
                o.summary(),
                o.stderr.lines().last().unwrap_or_default()
            ));
        }
    }
    let cpu_secs: f64 = outcomes.iter().map(|o| o.secs).sum();
    eprintln!(
        "{table}{} checks on the CPU interpreter in {:.1} s on {n} threads ({cpu_secs:.1} s \
         of checks); exercises only a GPU can check: {gpu_only:?}",
        cases.len(),
        wall.as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_header_that_does_not_follow_the_convention_is_refused_saying_why() {
    let checks = vec!["yours smem == 0".to_string()];
    let ok = "// wrong: [unchecked structure] keeps the shared scratch.\n\
              // caught by: yours smem == 0\n// on: cpu\n";
    let want = |caught_by: &str, on, class: &str| {
        Ok(wrong_answers::Header {
            caught_by: caught_by.to_string(),
            on,
            class: class.to_string(),
        })
    };
    assert_eq!(
        wrong_answers::header(ok, &checks),
        want("yours smem == 0", On::Cpu, "unchecked structure")
    );
    let gpu = "// wrong: [slow-variant timing] slow.\n// caught by: correct\n\
               // on: gpu - only a time tells\n";
    assert_eq!(
        wrong_answers::header(gpu, &checks),
        want("correct", On::Gpu, "slow-variant timing")
    );
    for (text, says) in [
        ("// caught by: race\n// on: cpu\n", "// wrong:"),
        (
            "// wrong: x\n// caught by: race\n// on: cpu\n",
            "names no class",
        ),
        (
            "// wrong: [sloppy] x\n// caught by: race\n// on: cpu\n",
            "not a class",
        ),
        (
            "// wrong: [token use]\n// caught by: race\n// on: cpu\n",
            "says nothing",
        ),
        (
            "// wrong: [token use] x\n// caught by: yours smem < 4\n// on: cpu\n",
            "none of the exercise's checks",
        ),
        (
            "// wrong: [token use] x\n// caught by: race\n// on: gpu\n",
            "say why",
        ),
        (
            "// wrong: [token use] x\n// caught by: race\n// on: tpu\n",
            "neither",
        ),
    ] {
        let e = wrong_answers::header(text, &checks).unwrap_err();
        assert!(e.contains(says), "{text}: {e}");
    }
}

/// Every exercise ships at least five wrong answers, each naming its class, and the
/// classes of the course's answers cover every class (a class no exercise ships is a
/// kind of wrong the course never tests).
#[test]
fn every_exercise_ships_five_wrong_answers_by_class_and_the_course_every_class() {
    let (exercises, problems) = shipped();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let mut seen = std::collections::BTreeSet::new();
    let mut short = Vec::new();
    for ex in &exercises {
        let classes: Vec<&str> = (ex.cases.iter())
            .filter_map(|c| match &c.kind {
                Kind::Wrong { class, .. } => Some(class.as_str()),
                _ => None,
            })
            .collect();
        if classes.len() < 5 {
            short.push(format!("{}: {} wrong answers", ex.id, classes.len()));
        }
        seen.extend(classes);
    }
    assert!(short.is_empty(), "{}", short.join("\n"));
    let missing: Vec<&&str> = (wrong_answers::CLASSES.iter())
        .filter(|c| !seen.contains(**c))
        .collect();
    assert!(missing.is_empty(), "no wrong answer of class {missing:?}");
}

/// The tables check their answers with `ex check-many` (one process a thread): it must
/// judge as `ex check` does, each line with the same mark and the same exit status, and a
/// request it cannot check costs only that request.
#[test]
fn check_many_judges_as_ex_check_does_and_a_bad_request_costs_only_itself() {
    if !nvrtc_or_skip("check_many_judges_as_ex_check_does") {
        return;
    }
    let (exercises, _) = shipped();
    let ex = (exercises.iter())
        .find(|e| e.id == "coalesce-copy")
        .expect("coalesce-copy ships");
    let pick = |name: &str| {
        (ex.cases.iter())
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("coalesce-copy has no {name}"))
            .clone()
    };
    let cases = vec![pick("starter"), pick("solution")];
    let batch = wrong_answers::Batch {
        cpu: true,
        reuse: None,
    };
    let marks = |o: &wrong_answers::Outcome| -> Vec<(String, String)> {
        (o.lines().into_iter()).map(|(c, m, _)| (c, m)).collect()
    };
    let many = check_all(&cases, true, 1);
    for (case, m) in cases.iter().zip(&many) {
        let one = wrong_answers::check(case, batch);
        assert_eq!((m.code, marks(m)), (one.code, marks(&one)), "{}", case.name);
        assert!(m.stderr.contains("· yours compiling"), "{}", m.stderr);
    }
    assert_eq!((many[0].code, many[1].code), (1, 3));

    // With the compared variants' traces kept by the first check (`--reuse-figures`), a
    // later one traces only `yours`, saying so, and judges as a whole check does.
    let kept = tempfile::tempdir().unwrap();
    let reusing = wrong_answers::Batch {
        cpu: true,
        reuse: Some(kept.path()),
    };
    let order = vec![cases[1].clone(), cases[0].clone()];
    let again = wrong_answers::check_all_saying(&order, reusing, 1, |_, _| {});
    assert!(
        !again[0].stderr.contains("an earlier check"),
        "{}",
        again[0].stderr
    );
    assert!(
        again[1].stderr.contains("traced by an earlier check"),
        "{}",
        again[1].stderr
    );
    assert!(
        !again[1].stderr.contains("solution tracing"),
        "{}",
        again[1].stderr
    );
    assert_eq!(
        (again[1].code, marks(&again[1])),
        (many[0].code, marks(&many[0]))
    );

    // A request that is not JSON, and one for no exercise, answered with exit 2 and an
    // error; the check after them still runs.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(&cases[1].path, tmp.path().join("coalesce-copy.cu")).unwrap();
    let input = format!(
        "not json\n{{\"id\": \"no-such-exercise\"}}\n{}\n",
        serde_json::json!({"id": "coalesce-copy", "workspace": tmp.path()})
    );
    let out = wrong_answers::check_many_raw(&input, tmp.path());
    let done: Vec<serde_json::Value> = (out.lines())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter_map(|v| v.get("done").cloned())
        .collect();
    assert_eq!(done.len(), 3, "{out}");
    assert_eq!(done[0]["code"], 2);
    assert!(
        done[0]["error"].as_str().unwrap().contains("bad request"),
        "{out}"
    );
    assert_eq!(done[1]["code"], 2);
    assert!(
        done[1]["error"]
            .as_str()
            .unwrap()
            .contains("no exercise 'no-such-exercise'")
    );
    assert_eq!(done[2]["code"], 3, "{out}");
    assert_eq!(done[2]["report"]["exercise"], "coalesce-copy");
    // Recorded in the progress book, as `ex check` records it.
    assert!(done[2]["not_recorded"].is_null(), "{out}");
    let book = std::fs::read_to_string(tmp.path().join("data/exercises.json")).unwrap_or_default();
    assert!(book.contains("coalesce-copy"), "{book}");
}
