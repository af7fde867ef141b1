//! `gpulab render --all --check | --update`: snapshot tests for lesson packs, in insta's file
//! format. A pack's author runs them on their own lessons; ours run here, on the bundled
//! course against tests/snapshots/pack.

use crate::support::common;

use common::{bin, fixture, manifest_dir};
use std::path::{Path, PathBuf};
use std::process::Command;

fn gpulab(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env(
            "GPULAB_DATA_DIR",
            std::env::temp_dir().join("gpulab-pack-snapshots-test"),
        )
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of the fixture pack (lessons and kernels, no recording) in a fresh folder.
fn pack() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["lessons", "kernels"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for e in std::fs::read_dir(fixture(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                std::fs::copy(&p, dir.path().join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    dir
}

fn files(dir: &Path, ending: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.to_string_lossy().ends_with(ending));
    out.sort();
    out
}

#[test]
fn update_writes_the_snapshots_and_check_then_passes() {
    let pack = pack();
    let snaps = pack.path().join("snapshots");
    let args = ["--lessons", "lessons", "render", "--all"];
    let (code, out, err) = gpulab(pack.path(), &[&args[..], &["--update"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    let written = files(&snaps, ".snap");
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "copy-basics__120x40.snap",
            "copy-basics__120x40_revealed.snap",
            "copy-basics__80x24.snap",
            "copy-basics__80x24_revealed.snap",
            "tiny-transpose__120x40.snap",
            "tiny-transpose__120x40_revealed.snap",
            "tiny-transpose__80x24.snap",
            "tiny-transpose__80x24_revealed.snap",
        ]
    );
    let text = std::fs::read_to_string(snaps.join("copy-basics__80x24.snap")).unwrap();
    assert!(
        text.contains("no recording"),
        "a pack without a recording:\n{text}"
    );
    let (code, out, err) = gpulab(pack.path(), &[&args[..], &["--check"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("8 screens of 2 lesson(s) match"), "{out}");
    assert!(files(&snaps, ".snap.new").is_empty());
}

#[test]
fn the_files_are_insta_snapshots_of_what_render_prints() {
    let pack = pack();
    let (code, out, err) = gpulab(
        pack.path(),
        &["--lessons", "lessons", "render", "--all", "--update"],
    );
    assert_eq!(code, 0, "{out}{err}");
    let path = pack
        .path()
        .join("snapshots/tiny-transpose__80x24_revealed.snap");
    let text = std::fs::read_to_string(&path).unwrap();
    let head: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "---",
            "source: lessons/02-tiny-transpose.yaml",
            "expression: gpulab render tiny-transpose --width 80 --height 24 --reveal",
            "---",
        ]
    );
    let snap = insta::Snapshot::from_file(&path).unwrap();
    assert_eq!(
        snap.metadata().source(),
        Some("lessons/02-tiny-transpose.yaml")
    );
    let args = ["--lessons", "lessons", "render", "tiny-transpose"];
    let size = ["--width", "80", "--height", "24", "--reveal"];
    let (code, screen, err) = gpulab(pack.path(), &[&args[..], &size].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(snap.as_text().unwrap().to_string(), screen.trim_end());
}

#[test]
fn check_names_a_changed_lesson_and_leaves_its_snapshot_alone() {
    let pack = pack();
    let snaps = pack.path().join("snapshots");
    let args = ["--lessons", "lessons", "render", "--all"];
    let (code, _, err) = gpulab(pack.path(), &[&args[..], &["--update"]].concat());
    assert_eq!(code, 0, "{err}");
    let lesson = pack.path().join("lessons/01-copy-basics.yaml");
    let yaml = std::fs::read_to_string(&lesson).unwrap();
    let edited = yaml.replace(
        "Global memory: strided copies",
        "Global memory: strided reads",
    );
    assert_ne!(yaml, edited, "the fixture's title moved");
    std::fs::write(&lesson, edited).unwrap();
    let old = std::fs::read_to_string(snaps.join("copy-basics__120x40.snap")).unwrap();

    let (code, out, err) = gpulab(pack.path(), &[&args[..], &["--check"]].concat());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("1 of 2 lesson(s) differ"), "{out}");
    assert!(
        out.contains("copy-basics: copy-basics__120x40.snap"),
        "{out}"
    );
    assert!(!out.contains("tiny-transpose:"), "{out}");
    let changed = |sign: char, title: &str| {
        out.lines()
            .any(|l| l.starts_with(sign) && l.contains(&format!("01 · Global memory: {title}")))
    };
    assert!(
        changed('-', "strided copies"),
        "the diff shows the old title:\n{out}"
    );
    assert!(
        changed('+', "strided reads"),
        "the diff shows the new title:\n{out}"
    );
    let now = std::fs::read_to_string(snaps.join("copy-basics__120x40.snap")).unwrap();
    assert_eq!(now, old, "check never writes a .snap");
    assert!(
        files(&snaps, ".snap.new").is_empty(),
        "check writes nothing at all"
    );
    // One left by insta, say: update removes it.
    std::fs::write(snaps.join("copy-basics__120x40.snap.new"), "x").unwrap();

    let (code, _, err) = gpulab(pack.path(), &[&args[..], &["--update"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        files(&snaps, ".snap.new").is_empty(),
        "update removes stale .snap.new"
    );
    std::fs::write(snaps.join("gone__80x24.snap"), "---\n---\nold\n").unwrap();
    let (code, out, err) = gpulab(pack.path(), &[&args[..], &["--check"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("note: gone__80x24.snap is drawn by no lesson"),
        "{out}"
    );
}

#[test]
fn render_all_needs_check_or_update() {
    let (code, _, err) = gpulab(&manifest_dir(), &["render", "--all"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = gpulab(&manifest_dir(), &["render", "--all", "--check", "--update"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = gpulab(&manifest_dir(), &["render", "--check"]);
    assert_eq!(code, 2, "{err}");
}

/// Our own course through the same path: its screens, drawn from the committed H100
/// recording, against tests/snapshots/pack. After a deliberate change, refresh them with
/// `gpulab render --all --update` from the source tree, and read the diff before committing.
#[test]
fn the_bundled_course_matches_its_snapshots() {
    let root = manifest_dir();
    let snaps = root.join("tests/snapshots/pack");
    let lessons = root.join("lessons");
    let (code, out, err) = gpulab(
        &root,
        &[
            "--lessons",
            lessons.to_str().unwrap(),
            "render",
            "--all",
            "--check",
            "--snapshots",
            snaps.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = gpulab(&root, &["render", "--all", "--check"]);
    assert_eq!(
        code, 0,
        "the bundled copy, with the default folder: {out}{err}"
    );
}
