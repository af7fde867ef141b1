//! The validation rules, one mistake at a time, against a small valid lesson.

use super::*;
use crate::model::Arg;

const KERNEL: &str = "extern \"C\" __global__ void scale(float* x, int n) { }\n";

const BASE: &str = "\
format_version: 1
id: base
title: Base
space: global
pages:
  - { title: P, text: T }
problem: { n: 1024 }
buffers:
  - { name: x, type: f32, len: n, init: poison }
variants:
  - name: a
    source: kernels/k.cu
    kernel: scale
    launch: { grid: \"n / 256\", block: 256 }
    args: [x, n]
  - { name: b, like: a }
reference: a
";

/// A course folder holding `kernels/k.cu`, and its lessons folder.
fn course() -> (tempfile::TempDir, CourseRoot) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).unwrap();
    let root = CourseRoot::Dir(dir.path().join("lessons"));
    (dir, root)
}

/// Errors as `line:col: message`, the file name left out.
fn load(text: &str) -> Result<Lesson, Vec<String>> {
    let (_dir, root) = course();
    load_file(&root, "03-base.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

/// The errors of BASE with `from` replaced by `to` (which must occur in it).
fn errors_with(from: &str, to: &str) -> Vec<String> {
    assert!(BASE.contains(from), "{from}");
    load(&BASE.replacen(from, to, 1)).expect_err("should fail")
}

/// Exactly one error, at `pos` ("line:col"), containing `phrase`.
fn one(from: &str, to: &str, pos: &str, phrase: &str) {
    let errs = errors_with(from, to);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{pos}: ")), "{errs:#?}");
    assert!(errs[0].contains(phrase), "{errs:#?}");
}

#[test]
fn base_lesson_loads() {
    let l = load(BASE).unwrap();
    assert_eq!(l.order, 3);
    assert_eq!(l.variants[1].args, [Arg::Buffer(0), Arg::I32(1024)]);
    assert_eq!(l.trace_blocks, 4);
    let crlf = BASE.replace('\n', "\r\n");
    assert_eq!(load(&crlf).unwrap(), l);
}

#[test]
fn head_rules() {
    one("format_version: 1\n", "", "1:1", "missing `format_version`");
    one("id: base", "id: Base", "2:5", "lower-case letters");
    one("id: base", "id: other", "2:5", "differs from the file name");
    one(
        "space: global",
        "space: globl",
        "4:8",
        "unknown space `globl`",
    );
    one("title: Base", "title:", "3:1", "`title` has no value");
    one(
        "  - { title: P, text: T }\n",
        "",
        "5:1",
        "`pages` must be a list",
    );
    one(
        "pages:\n  - { title: P, text: T }",
        "pages: []",
        "5:8",
        "`pages` is empty",
    );
    // A misspelt required key is both unknown and missing.
    let errs = errors_with("reference: a", "refrence: a");
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("1:1: missing `reference`"), "{errs:?}");
    assert!(
        errs[1].starts_with("17:1: unknown field `refrence`"),
        "{errs:?}"
    );
    one(
        "reference: a",
        "reference: c",
        "17:12",
        "unknown variant `c`",
    );
    one(
        "reference: a",
        "reference: a\ntrace: { blocks: 0 }",
        "18:18",
        "at least 1",
    );
}

#[test]
fn file_name_gives_the_order() {
    let (_dir, root) = course();
    let errs = load_file(&root, "lessons/base.yaml", BASE).unwrap_err();
    assert_eq!((errs[0].line, errs[0].col), (1, 1));
    assert!(
        errs[0].message.contains("must start with its place"),
        "{errs:?}"
    );
}

#[test]
fn not_a_lesson_at_all() {
    for (text, phrase) in [
        ("", "the file is empty"),
        ("- a\n- b\n", "a lesson is a mapping"),
        ("a: [1\n", "while parsing a flow sequence"),
    ] {
        let errs = load(text).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].contains(phrase), "{errs:?}");
    }
}

#[test]
fn problem_and_buffer_rules() {
    one(
        "{ n: 1024 }",
        "{ n: 1024, min: 2 }",
        "7:21",
        "cannot be a size name",
    );
    one("len: n,", "len: \"n - n\",", "9:32", "must be > 0");
    one(
        "init: poison }",
        "init: poison, range: [0, 1] }",
        "9:49",
        "only for `init: random`",
    );
    one("init: poison }", "init: const }", "9:41", "needs a `value`");
    one(
        "init: poison }",
        "init: ramp }",
        "9:41",
        "needs a `range: [lo, hi]`",
    );
    one(
        "init: poison }",
        "init: shuffled, range: [3, 3] }",
        "9:58",
        "lo must be < hi",
    );
    one(
        "init: poison }",
        "init: random, range: [2, 1] }",
        "9:56",
        "lo must be < hi",
    );
    one(
        "{ n: 1024 }",
        "{ n: 1024, x: 4 }",
        "9:13",
        "name of a problem size",
    );
    one(
        "init: poison }",
        "init: poison }\n  - { name: x, type: f32, len: 1, init: zeros }",
        "10:13",
        "defined twice",
    );
}

#[test]
fn variant_rules() {
    one(
        "  - { name: b, like: a }",
        "  - { name: a, like: a }",
        "16:13",
        "defined twice",
    );
    one(
        "  - { name: b, like: a }",
        "  - { name: b c, like: a }",
        "16:13",
        "may hold only letters",
    );
    one(
        "  - { name: b, like: a }",
        "  - { name: b, like: a, kernal: k }",
        "16:25",
        "unknown field `kernal`",
    );
    one(
        "  - { name: b, like: a }",
        "  - { name: b }",
        "16:5",
        "needs `source`, `kernel`",
    );
    one(
        "  - name: a\n",
        "  - name: a\n    like: b\n",
        "12:11",
        "must name an earlier variant",
    );
    one(
        "block: 256",
        "block: [32, 32, 2]",
        "14:39",
        "at most 1024 threads",
    );
    one(
        "block: 256",
        "block: [1, 1, 65]",
        "14:46",
        "block z must be 1 to 64",
    );
    one(
        "block: 256",
        "block: [1, 2, 3, 4]",
        "14:39",
        "1 to 3 expressions",
    );
    one(
        "grid: \"n / 256\"",
        "grid: \"n - n\"",
        "14:21",
        "grid x must be 1 to 2147483647",
    );
    one(
        "block: 256 }",
        "block: 256, smem: -4 }",
        "14:50",
        "`smem` must be 0 to",
    );
    one(
        "args: [x, n]",
        "args: [x, \"n * 4194304\"]",
        "15:15",
        "does not fit in i32",
    );
    one(
        "args: [x, n]",
        "args: [x, { u32: -1 }]",
        "15:22",
        "does not fit in u32",
    );
    one(
        "kernel: scale",
        "kernel: _Z5scalePfi",
        "13:13",
        "write `kernel: scale`",
    );
}

#[test]
fn defines_join_expressions_and_merge() {
    let text = BASE.replace(
        "  - { name: b, like: a }",
        "  - { name: b, like: a, defines: { T: 128, KIND: fast }, launch: { block: T } }",
    );
    let l = load(&text).unwrap();
    assert_eq!(l.variants[1].block, [128, 1, 1]);
    assert_eq!(l.variants[1].grid, [4, 1, 1], "the parent's grid is kept");
    one(
        "  - { name: b, like: a }",
        "  - { name: b, like: a, defines: { n: 3 } }",
        "16:36",
        "name of a problem size",
    );
    one(
        "  - { name: b, like: a }",
        "  - { name: b, like: a, defines: { K: fast }, launch: { block: K } }",
        "16:64",
        "unknown name `K`",
    );
}

#[test]
fn inherited_mistakes_are_reported_once() {
    let errs = errors_with("kernel: scale", "kernel: scal");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with("13:13: "), "{errs:?}");
}

#[test]
fn builtin_reference_rules() {
    let ins = "buffers:\n  - { name: i, type: f32, len: n, init: seq }\n";
    let with = |r: &str| BASE.replace("buffers:\n", ins).replace("reference: a", r);
    let l = load(&with("reference: { builtin: copy, from: i, to: x }")).unwrap();
    assert_eq!(
        l.reference,
        crate::model::Reference::Copy { from: 0, to: 1 }
    );
    let check = |r: &str, pos: &str, phrase: &str| {
        let errs = load(&with(r)).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with(&format!("{pos}: ")) && errs[0].contains(phrase),
            "{errs:?}"
        );
    };
    check(
        "reference: { builtin: copy, from: j, to: x }",
        "18:35",
        "unknown buffer `j`",
    );
    check(
        "reference: { builtin: copy, from: x, to: i }",
        "18:42",
        "not an output",
    );
    check(
        "reference: { builtin: sum, from: i, to: x }",
        "18:23",
        "unknown builtin `sum`",
    );
    check(
        "reference: { builtin: transpose, from: i, to: x }",
        "18:12",
        "needs `rows` and `cols`",
    );
    check(
        "reference: { builtin: transpose, from: i, to: x, rows: 64, cols: n }",
        "18:12",
        "rows x cols = 65536",
    );
    check(
        "reference: { builtin: copy, from: i, to: x, rows: 2 }",
        "18:45",
        "only for `builtin: transpose`",
    );
}

#[test]
fn metrics_claims_and_checkpoints() {
    let add = |extra: &str| BASE.replace("reference: a\n", &format!("reference: a\n{extra}\n"));
    let l = load(&add(
        "metrics: { flops: \"2 * n\" }\nexpect: [\"b within 5% of a\"]",
    ))
    .unwrap();
    assert_eq!(l.metrics.flops, Some(2048.0));
    assert_eq!(l.expect[0].subject(), "b");
    let check = |extra: &str, pos: &str, phrase: &str| {
        let errs = load(&add(extra)).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(
            errs[0].starts_with(&format!("{pos}: ")) && errs[0].contains(phrase),
            "{errs:?}"
        );
    };
    check("metrics: { bytes: \"n * m\" }", "18:24", "unknown name `m`");
    check("metrics: { bytes: 0 }", "18:19", "must be > 0");
    check("expect: [\"c correct\"]", "18:10", "unknown variant `c`");
    check(
        "checkpoint:\n  - { q: Q, choices: [a], answer: 0, why: W }",
        "19:22",
        "2 to 6 choices",
    );
    check(
        "checkpoint:\n  - { q: Q, choices: [a, b], answer: -1, why: W }",
        "19:38",
        "invalid type: integer `-1`, expected usize",
    );
}

#[test]
fn duplicate_ids_across_files() {
    let (dir, root) = course();
    let other = BASE.replace("id: base", "id: other");
    std::fs::write(dir.path().join("lessons/01-other.yaml"), &other).unwrap();
    std::fs::write(dir.path().join("lessons/02-other.yaml"), &other).unwrap();
    std::fs::write(dir.path().join("lessons/03-base.yaml"), BASE).unwrap();
    let (lessons, errs) = load_course(&root);
    assert_eq!(lessons.len(), 2);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = &errs[0];
    assert!(e.file.ends_with("02-other.yaml"), "{e}");
    assert_eq!((e.line, e.col), (2, 5));
    assert!(e.message.contains("already used by"), "{e}");
    assert!(e.message.contains("01-other.yaml"), "{e}");
}

#[test]
fn check_paths_reports_a_folder_without_lessons() {
    let (dir, _) = course();
    let empty = dir.path().join("lessons");
    let (lessons, errs) = check_paths(std::slice::from_ref(&empty));
    assert!(lessons.is_empty());
    let shown = empty.display().to_string();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(
        errs[0].message,
        format!("no lesson files (NN-<id>.yaml) in {shown}")
    );
    // The folder is named once (it used to be named twice: `DIR: no lesson files ... in DIR`).
    assert_eq!(
        errs[0].to_string(),
        format!("no lesson files (NN-<id>.yaml) in {shown}")
    );
}

#[test]
fn check_paths_returns_the_lessons() {
    let (dir, _) = course();
    let file = dir.path().join("lessons/03-base.yaml");
    std::fs::write(&file, BASE).unwrap();
    let (lessons, errs) = check_paths(&[dir.path().join("lessons"), file]);
    assert!(errs.is_empty(), "{errs:?}");
    let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["base", "base"]);
}

#[test]
fn a_file_that_does_not_load_is_kept_aside_at_its_place() {
    let (dir, root) = course();
    let lessons = dir.path().join("lessons");
    std::fs::write(lessons.join("01-base.yaml"), BASE).unwrap();
    let other = BASE.replace("id: base", "id: other");
    std::fs::write(lessons.join("02-other.yaml"), format!("{other}\u{0}")).unwrap();
    let mut bad = other.replace("id: other", "id: third").into_bytes();
    bad.extend(b"\xff");
    let last = bad.iter().filter(|&&b| b == b'\n').count() + 1;
    std::fs::write(lessons.join("03-third.yaml"), bad).unwrap();
    let c = open_course(&root);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    let ids: Vec<&str> = c.lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["base"]);
    let places: Vec<(u32, &str)> = c
        .broken
        .iter()
        .map(|b| (b.order, b.name.as_str()))
        .collect();
    assert_eq!(places, [(2, "other"), (3, "third")]);
    let third = &c.broken[1];
    assert_eq!(third.problems.len(), 1);
    let at = format!("03-third.yaml:{last}:1: invalid UTF-8");
    assert!(third.summary().contains(&at), "{}", third.summary());
    assert_eq!(
        c.errors().len(),
        c.broken.iter().map(|b| b.problems.len()).sum::<usize>()
    );
}

#[test]
fn a_file_name_gives_its_place_in_the_course() {
    assert_eq!(
        place_in_course("lessons/07-const.yaml"),
        (7, "const".into())
    );
    assert_eq!(place_in_course("x/odd.yaml"), (0, "odd".into()));
}

#[test]
fn a_broken_files_space_is_read_from_its_space_line() {
    let broken = BASE.replacen("title: Base", "title: [unclosed\nspace_x: 1", 1);
    assert_eq!(space_written(&broken), Some(Topic::Global));
    assert_eq!(
        space_written("id: x\nspace: \"shared\"  # a comment\n"),
        Some(Topic::Shared)
    );
    assert_eq!(
        space_written("id: x\n  space: shared\n"),
        None,
        "not top-level"
    );
    assert_eq!(space_written("space: nowhere\n"), None);
    assert_eq!(space_written("id: x\n"), None);
}
