//! `gpulab check` on paths: the same verdicts as the course's `check_paths`, then the
//! kernels compiled in the worker when it has NVRTC.

use crate::support::common;

use common::{bin, fixture};
use std::process::Command;

fn check(args: &[&str]) -> (i32, String) {
    let out = Command::new(bin())
        .arg("check")
        .args(args)
        .env(
            "GPULAB_DATA_DIR",
            std::env::temp_dir().join("gpulab-check-test"),
        )
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn path(rel: &str) -> String {
    fixture(rel).display().to_string()
}

/// Whichever way NVRTC goes, `check` says what it did about the kernels.
fn says_what_it_compiled(out: &str) {
    assert!(
        out.contains("compiled every variant with NVRTC for sm_90")
            || out.contains("NVRTC not found: kernels not compiled (pip install"),
        "{out}"
    );
}

#[test]
fn a_folder_without_lesson_files_is_an_error() {
    let (code, out) = check(&[&path("kernels")]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no lesson files"), "{out}");
    assert!(out.contains("1 problem(s)"), "{out}");
}

#[test]
fn a_missing_path_is_an_error_not_a_crash() {
    let (code, out) = check(&[&path("no-such-thing")]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("no-such-thing: no such file or folder"),
        "{out}"
    );
}

#[test]
fn folders_and_files_are_checked_and_compiled() {
    let (code, out) = check(&[&path("lessons"), &path("lessons/02-tiny-transpose.yaml")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 lesson(s) OK"), "{out}");
    says_what_it_compiled(&out);
}

#[test]
fn every_bad_lesson_of_a_folder_is_named() {
    let (code, out) = check(&[&path("bad")]);
    assert_eq!(code, 1, "{out}");
    for n in 1..=9 {
        assert!(
            out.contains(&format!("{n:02}-")),
            "no error for {n:02}: {out}"
        );
    }
}
