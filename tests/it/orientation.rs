//! Where the learner stands, from the command line: `gpulab list` ends with the lessons
//! finished and the exercises passed (read from the progress files the lab writes), and
//! `gpulab glossary` prints every word the lessons lean on.

use crate::support::common;

use std::process::Command;

fn gpulab(data: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(common::bin())
        .args(args)
        .env("GPULAB_DATA_DIR", data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn list_says_how_far_the_learner_has_come() {
    let data = tempfile::tempdir().unwrap();
    let (code, out) = gpulab(data.path(), &["list"]);
    assert_eq!(code, 0, "{out}");
    let (lessons, _) = gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    let n = lessons.len();
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("0 of {n} lessons finished")),
        "{out}"
    );
    // A lesson finished in the lab and an exercise passed are counted.
    let mut p = gpulab::session::progress::Progress::default();
    p.mark_run(&lessons[1].id);
    p.save_to(&data.path().join("progress.json")).unwrap();
    let mut book = gpulab::session::exercise::progress::ExerciseBook::default();
    let ex = &lessons[0].exercises[0].id;
    book.record_attempt(ex, true, Some(1.0));
    book.save_to(&data.path().join("exercises.json")).unwrap();
    let (_, out) = gpulab(data.path(), &["list"]);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("1 of {n} lessons finished")),
        "{out}"
    );
    assert!(last.contains(" · 1 of "), "{out}");
    assert!(last.contains("exercises passed"), "{out}");
}

#[test]
fn glossary_prints_every_term_with_its_meaning() {
    let data = tempfile::tempdir().unwrap();
    let (code, out) = gpulab(data.path(), &["glossary"]);
    assert_eq!(code, 0, "{out}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    for t in gpulab::course::glossary::TERMS {
        assert!(
            out.lines().any(|l| l == t.term),
            "{} listed:\n{out}",
            t.term
        );
        let means = t.means.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&means), "{} explained:\n{out}", t.term);
    }
    for w in [
        "wavefront",
        "sector",
        "occupancy",
        "bank",
        "request",
        "coalescing",
        "spill",
        "L2",
    ] {
        assert!(out.lines().any(|l| l == w), "{w}:\n{out}");
    }
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
}
