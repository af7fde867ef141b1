//! `gpulab ex summary`: the instructor's view over three made-up participants
//! (tests/fixtures/workshop): one with a data folder, one whose data folder is a
//! `XDG_DATA_HOME` (`gpulab/` inside), one stuck. Snapshot-tested as text and JSON, and it
//! must only read.

use crate::support::common;
use crate::support::ex_lab::copy_dir;

use common::{bin, fixture};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn summary(args: &[&str]) -> (i32, String, String) {
    let data = tempfile::tempdir().unwrap();
    // Relative paths, so that what it prints does not depend on where the tree is.
    let out = Command::new(bin())
        .current_dir(fixture(""))
        .args(["ex", "summary"])
        .args(args)
        .env("GPULAB_DATA_DIR", data.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir` and its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn the_summary_of_a_workshop_shows_who_is_stuck_where_and_only_reads() {
    let before = files(&fixture("workshop"));
    let (code, text, err) = summary(&["workshop"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("ex_summary_workshop", text);
    let (code, json, err) = summary(&["workshop/ada", "workshop/linus", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    // The course's exercise list grows with the course; the participants are the point.
    let ids = v["exercises"].as_array().unwrap();
    assert!(ids.iter().any(|i| i == "transpose-tile"), "{ids:?}");
    let people = serde_json::to_string_pretty(&v["participants"]).unwrap();
    insta::assert_snapshot!("ex_summary_workshop_json", people);
    assert_eq!(
        files(&fixture("workshop")),
        before,
        "the summary wrote something"
    );
}

#[test]
fn a_folder_with_no_participant_is_an_error_that_says_so() {
    let (code, _, err) = summary(&["workshop/ada/exercises/nowhere"]);
    assert_eq!(code, 2, "an error, as every command's");
    assert!(err.contains("no such folder"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["ex", "summary"])
        .arg(empty.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("no participant here"), "{err}");
}

#[test]
fn a_participant_folder_named_with_a_newline_forges_no_row() {
    let room = tempfile::tempdir().unwrap();
    let name = "eve\ntranspose-tile  ✓ GPU 1×";
    copy_dir(&fixture("workshop/ada"), &room.path().join(name));
    let out = Command::new(bin())
        .args(["ex", "summary"])
        .arg(room.path())
        .env("GPULAB_DATA_DIR", room.path().join("data"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("eve^Jtranspose-tile"), "{text}");
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("transpose-tile  ✓ GPU 1×")),
        "a forged row: {text}"
    );
}
