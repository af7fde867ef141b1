//! The loader against fixture lessons: a valid course, and one malformed lesson per kind of
//! mistake, each of which must be reported at its exact line and column.

use gpulab::course::bundle::CourseRoot;
use gpulab::course::load::check_paths;
use gpulab::course::{CourseError, load_course, load_file};
use gpulab::model::{Arg, Init, Reference, Topic};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Load one malformed fixture; it must fail.
fn errors_of(name: &str) -> Vec<CourseError> {
    let dir = fixtures().join("bad");
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let root = CourseRoot::Dir(dir);
    match load_file(&root, name, &text) {
        Ok(_) => panic!("{name} loaded but is malformed"),
        Err(errs) => errs,
    }
}

/// The fixture has exactly one error, at `line:col`, whose message contains `phrase`.
fn assert_single(name: &str, line: usize, col: usize, phrase: &str) {
    let errs = errors_of(name);
    assert_eq!(errs.len(), 1, "{name}: {errs:#?}");
    let e = &errs[0];
    assert_eq!((e.line, e.col), (line, col), "{name}: {e}");
    assert!(e.message.contains(phrase), "{name}: {e}");
    assert!(
        e.to_string().starts_with(&format!("{name}:{line}:{col}: ")),
        "{e}"
    );
}

#[test]
fn valid_course_loads_in_order() {
    let (lessons, errors) = load_course(&CourseRoot::Dir(fixtures().join("lessons")));
    assert!(errors.is_empty(), "{errors:#?}");
    let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["copy-basics", "tiny-transpose"]);
    assert_eq!((lessons[0].order, lessons[1].order), (1, 2));
}

#[test]
fn like_variants_inherit_and_override() {
    let (lessons, _) = load_course(&CourseRoot::Dir(fixtures().join("lessons")));
    let l = &lessons[0];
    assert_eq!(l.topic, Topic::Global);
    assert_eq!(l.problem[2], ("blocks".to_string(), 4096));
    assert_eq!(l.trace_blocks, 2);
    assert_eq!(l.buffers[0].init, Init::Random { lo: 0.0, hi: 10.0 });
    assert_eq!(l.buffers[2].init, Init::Const(3.0));
    assert_eq!(l.reference, Reference::Copy { from: 0, to: 1 });
    assert_eq!(l.metrics.bytes, Some(2.0 * 1048576.0 * 4.0));

    let base = l.variant("stride-1").unwrap();
    assert_eq!(
        base.args,
        [Arg::Buffer(0), Arg::Buffer(1), Arg::I32(1048576)]
    );
    assert!(base.source.contains("copy_strided"));
    assert_eq!(base.grid, [4096, 1, 1]);

    let s32 = l.variant("stride-32").unwrap();
    let defines: Vec<(&str, &str)> = s32
        .defines
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(defines, [("STRIDE", "33"), ("LABEL", "unit")]);
    assert_eq!(s32.options, ["-maxrregcount=32"]);
    assert_eq!(s32.note.as_deref(), Some("one word per lane"));
    assert_eq!(s32.kernel, "copy_strided");

    // Expressions are evaluated with each variant's own defines, also the inherited ones.
    let wide = l.variant("wide").unwrap();
    assert_eq!(wide.grid, [4096 / 33 + 1, 1, 1]);
    assert_eq!(wide.block, [256, 1, 1]);
    assert_eq!(wide.smem, 33 * 4);
    assert_eq!(wide.options, ["-maxrregcount=32"]);

    assert_eq!(l.expect.len(), 3);
    assert_eq!(l.expect[0].subject(), "stride-32");
    assert_eq!(l.checkpoint[0].answer, 1);
}

#[test]
fn two_dimensional_launch_and_transpose_reference() {
    let (lessons, _) = load_course(&CourseRoot::Dir(fixtures().join("lessons")));
    let l = &lessons[1];
    let v = &l.variants[0];
    assert_eq!(v.grid, [16, 32, 1]);
    assert_eq!(v.block, [16, 16, 1]);
    assert_eq!(v.args[2..], [Arg::U32(512), Arg::U32(256)]);
    assert_eq!(
        l.reference,
        Reference::Transpose {
            from: 0,
            to: 1,
            rows: 512,
            cols: 256
        }
    );
    assert_eq!(l.trace_blocks, 4, "the default");
    assert!(l.checkpoint.is_empty());
}

#[test]
fn misspelt_key() {
    assert_single("01-misspelt-key.yaml", 14, 5, "unknown field `kernal`");
}

#[test]
fn bad_expression_points_into_the_expression() {
    assert_single("02-bad-expression.yaml", 15, 26, "unknown name `blok`");
}

#[test]
fn unknown_buffer_in_args() {
    assert_single(
        "03-unknown-buffer.yaml",
        16,
        16,
        "unknown buffer or name `outt`",
    );
}

#[test]
fn missing_source_file() {
    assert_single(
        "04-missing-source.yaml",
        13,
        13,
        "cannot read `kernels/nope.cu`",
    );
}

#[test]
fn unknown_kernel() {
    assert_single(
        "05-unknown-kernel.yaml",
        14,
        13,
        "kernel `copy_stride` is not a __global__ function",
    );
    let e = &errors_of("05-unknown-kernel.yaml")[0];
    assert!(e.message.contains("it has: copy_strided"), "{e}");
}

#[test]
fn like_of_an_unknown_variant() {
    assert_single(
        "06-unknown-like.yaml",
        17,
        25,
        "unknown variant `base2` in `like`",
    );
}

#[test]
fn bad_claim() {
    assert_single("07-bad-claim.yaml", 19, 5, "expected `by >= Kx`");
}

#[test]
fn yaml_syntax_error() {
    assert_single(
        "08-yaml-syntax.yaml",
        14,
        4,
        "did not find expected '-' indicator",
    );
}

#[test]
fn every_error_of_a_file_is_reported_together() {
    let errs = errors_of("09-many-errors.yaml");
    let got: Vec<(usize, usize)> = errs.iter().map(|e| (e.line, e.col)).collect();
    let want = [
        (1, 17, "format_version 2 is not supported"),
        (7, 30, "division by zero"),
        (9, 50, "`value` is only for `init: const`"),
        (10, 29, "unknown field `lenght`"),
        (15, 39, "at most 1024 threads"),
        (17, 25, "unknown variant `bse` in `like`"),
        (18, 49, "expected a number or a string"),
        (21, 5, "expected `by >= Kx`"),
        (23, 49, "answer 2 is out of range"),
    ];
    let want_pos: Vec<(usize, usize)> = want.iter().map(|&(l, c, _)| (l, c)).collect();
    assert_eq!(got, want_pos, "{errs:#?}");
    for (e, (_, _, phrase)) in errs.iter().zip(want) {
        assert!(e.message.contains(phrase), "{e}");
    }
}

#[test]
fn check_paths_takes_folders_and_files() {
    let bad = fixtures().join("bad");
    let (loaded, errors) = check_paths(&[bad]);
    assert_eq!(loaded.len(), 0);
    for n in 1..=9 {
        let prefix = format!("{:02}-", n);
        assert!(
            errors.iter().any(|e| e.file.contains(&prefix)),
            "no error for {prefix}: {errors:#?}"
        );
    }
    let good = fixtures().join("lessons");
    let (loaded, errors) = check_paths(&[good.clone(), good.join("02-tiny-transpose.yaml")]);
    assert_eq!((loaded.len(), errors.len()), (3, 0), "{errors:#?}");
    let (loaded, errors) = check_paths(&[fixtures().join("no-such-thing")]);
    assert_eq!(loaded.len(), 0);
    assert_eq!(errors[0].line, 0);
    assert!(
        errors[0]
            .to_string()
            .ends_with("no-such-thing: no such file or folder")
    );
    let (_, errors) = check_paths(&[fixtures().join("kernels")]);
    assert!(errors[0].message.contains("no lesson files"), "{errors:#?}");
}

#[test]
fn non_ascii_in_a_page_block_keeps_every_later_position() {
    // The YAML parser counts bytes, not characters, inside `|` blocks: one "×" used to shift
    // every position after it, so keys read as "ect" and "ce".
    let dir = fixtures().join("lessons");
    let text = std::fs::read_to_string(dir.join("01-copy-basics.yaml")).unwrap();
    let from = "      Neighbouring lanes that read neighbouring words share sectors.\n";
    assert!(text.contains(from));
    let with = text.replacen(
        from,
        "      Neighbouring lanes × that read neighbouring words share sectors.\n      A line — with a dash, and “quotes”.\n",
        1,
    );
    let root = CourseRoot::Dir(dir);
    let l = load_file(&root, "01-copy-basics.yaml", &with).expect("loads with non-ASCII prose");
    assert!(l.pages[0].text.contains('×'));
    // A misspelt key after the block is still placed exactly.
    let bad = with.replacen("\nexpect:", "\nexpectt:", 1);
    let errs = load_file(&root, "01-copy-basics.yaml", &bad).unwrap_err();
    let line = 1 + bad.lines().position(|l| l.starts_with("expectt:")).unwrap();
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!((errs[0].line, errs[0].col), (line, 1), "{}", errs[0]);
    assert!(errs[0].message.contains("`expectt`"), "{}", errs[0]);
}
