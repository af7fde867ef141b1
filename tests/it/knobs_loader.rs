//! `knobs:` on a variant: every value resolved into a whole variant at load time, and each
//! mistake refused at its line and column, a value that breaks the launch included.

use crate::support::common;

use gpulab::model::{Arg, KnobKind, Lesson};

/// The probe lesson the tests below change.
fn base() -> String {
    common::probe_head("l2", "problem: { n: 1024, big: 64 }") + BASE_VARIANTS
}

const BASE_VARIANTS: &str = r#"variants:
  - name: first
    source: kernels/probe.cu
    kernel: probe
    defines: { ITERS: 4 }
    launch: { grid: "n / (ITERS * 64)", block: 256 }
    args: [in, out, cycles, "ITERS * 2"]
    knobs:
      - { define: ITERS, values: [1, 2, 4, "big / 8"], label: "iterations" }
      - { option: maxrregcount, range: { from: 16, to: 32, step: 8 } }
  - { name: last, like: first }
reference: first
expect:
  - "last correct"
"#;

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    common::load_probe("08-probe.yaml", text)
}

fn single_error(from: &str, to: &str, phrase: &str) {
    common::single_probe_error("08-probe.yaml", &base(), from, to, phrase)
}

/// The one error's column, and the column (1-based) of `at` within `to` on its line.
fn error_col(from: &str, to: &str, at: &str) -> (usize, usize) {
    let text = base().replacen(from, to, 1);
    let errs = load(&text).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    let line = text.lines().find(|l| l.contains(to)).unwrap();
    let want = line.find(to).unwrap() + to.rfind(at).unwrap() + 1;
    (errs[0].split(':').nth(1).unwrap().parse().unwrap(), want)
}

#[test]
fn every_value_becomes_a_variant_with_its_launch_evaluated_again() {
    let l = load(&base()).unwrap();
    // The knobs add no variants: claims and the columns stay about the named ones.
    let names: Vec<&str> = l.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["first", "last"]);
    assert_eq!(l.knobs.len(), 2, "`like:` does not copy a knob");
    let iters = &l.knobs[0];
    assert_eq!(iters.variant, "first");
    assert_eq!(iters.kind, KnobKind::Define("ITERS".into()));
    assert_eq!(iters.label, "iterations");
    let values: Vec<i64> = iters.settings.iter().map(|s| s.value).collect();
    assert_eq!(values, [1, 2, 4, 8]);
    assert_eq!(
        iters.start,
        Some(2),
        "the variant as written sets ITERS to 4"
    );
    let two = &iters.settings[1].variant;
    assert_eq!(two.name, "first@ITERS=2");
    assert_eq!(two.defines, [("ITERS".to_string(), "2".to_string())]);
    assert_eq!(two.grid, [1024 / 128, 1, 1]);
    assert_eq!(two.args[3], Arg::I32(4));
    let regs = &l.knobs[1];
    assert_eq!(regs.kind, KnobKind::MaxRegCount);
    assert_eq!(regs.label, "maxrregcount");
    let caps: Vec<&[String]> = regs
        .settings
        .iter()
        .map(|s| s.variant.options.as_slice())
        .collect();
    assert_eq!(
        caps,
        [
            ["-maxrregcount=16".to_string()],
            ["-maxrregcount=24".to_string()],
            ["-maxrregcount=32".to_string()],
        ]
    );
    assert_eq!(regs.start, None, "the variant as written has no cap");
}

#[test]
fn a_value_that_breaks_the_launch_is_refused_at_the_value() {
    let from = "values: [1, 2, 4, \"big / 8\"]";
    // n / (0 * 64): the grid's expression divides by zero at ITERS = 0.
    single_error(
        from,
        "values: [1, 2, 0]",
        "ITERS = 0 breaks variant `first`",
    );
    let (col, want) = error_col(from, "values: [1, 2, 0]", "0");
    assert_eq!(col, want, "the error points at the value 0");
    // ITERS = 32: a grid of 1024 / 2048 = 0 blocks.
    single_error(from, "values: [1, 32]", "ITERS = 32 breaks variant `first`");
}

#[test]
fn malformed_knobs_are_refused_where_they_are_written() {
    let from = "{ define: ITERS, values: [1, 2, 4, \"big / 8\"], label: \"iterations\" }";
    single_error(
        from,
        "{ define: n, values: [1, 2] }",
        "name of a problem size",
    );
    single_error(
        from,
        "{ define: NOPE, values: [1, 2] }",
        "never names `NOPE`",
    );
    single_error(from, "{ define: 9X, values: [1, 2] }", "not a macro name");
    single_error(
        from,
        "{ define: ITERS, values: [1] }",
        "at least two values",
    );
    single_error(from, "{ define: ITERS, values: [2, 2] }", "given twice");
    single_error(from, "{ define: ITERS, values: [1, nope] }", "nope");
    single_error(from, "{ define: ITERS }", "needs `values");
    single_error(from, "{ values: [1, 2] }", "needs `define");
    single_error(
        from,
        "{ define: ITERS, values: [1, 2], colour: red }",
        "unknown field `colour`",
    );
    single_error(
        from,
        "{ option: fast-math, values: [1, 2] }",
        "is not a knob",
    );
    let big = "{ define: ITERS, range: { from: 1, to: 1000 } }";
    single_error(from, big, "at most 32 values");
    let down = "{ define: ITERS, range: { from: 4, to: 1 } }";
    single_error(from, down, "runs down");
    let regs = "{ option: maxrregcount, range: { from: 16, to: 32, step: 8 } }";
    single_error(
        regs,
        "{ option: maxrregcount, values: [8, 32] }",
        "outside 16 to 255",
    );
    single_error(
        regs,
        "{ define: ITERS, values: [1, 2] }",
        "has a knob already",
    );
    let (col, want) = error_col(from, "{ define: ITERS, values: [2, 2] }", "2");
    assert_eq!(col, want, "the error points at the second 2");
}

#[test]
fn a_sweeping_variant_has_no_knobs() {
    let to = "{ name: last, like: first, sweep: { define: ITERS, values: [4, 8], name: \"it-{}\" }, knobs: [{ define: ITERS, values: [1, 2] }] }";
    let text = base()
        .replacen("  - { name: last, like: first }", &format!("  - {to}"), 1)
        .replace("\"last correct\"", "\"it-4 correct\"");
    let errs = load(&text).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].contains("cannot have `knobs`"), "{errs:?}");
}

#[test]
fn the_shipped_knobs_load_and_start_at_their_variants() {
    let (lessons, errors) =
        gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:#?}");
    // A lesson's first knob; lessons with more are asked by variant below.
    let knob = |id: &str| {
        let l = lessons.iter().find(|l| l.id == id).unwrap();
        l.knobs[0].clone()
    };
    let on = |id: &str, variant: &str| {
        let l = lessons.iter().find(|l| l.id == id).unwrap();
        let k = l.knobs.iter().find(|k| k.variant == variant);
        k.unwrap_or_else(|| panic!("{id} has no knob on {variant}"))
            .clone()
    };
    // The copies' steps: each knob starts at the value its variant is written with.
    for (id, variant, values, start) in [
        ("global-coalescing", "unroll-4", vec![1, 2, 4, 8], 2),
        ("global-coalescing", "streaming", vec![1, 2, 4, 8, 16], 3),
        ("shared-transpose", "tile-64", vec![32, 64], 1),
        ("reduction", "unrolled", vec![1, 2, 4, 8], 2),
    ] {
        let k = on(id, variant);
        let got: Vec<i64> = k.settings.iter().map(|s| s.value).collect();
        assert_eq!((got, k.start), (values, Some(start)), "{id} {variant}");
    }
    let k = knob("global-coalescing");
    assert_eq!((k.variant.as_str(), k.start), ("coalesced", Some(0)));
    let k = knob("shared-banks");
    assert_eq!((k.variant.as_str(), k.start), ("stride-1", Some(0)));
    let k = knob("shared-transpose");
    let pads: Vec<i64> = k.settings.iter().map(|s| s.value).collect();
    assert_eq!((k.variant.as_str(), pads), ("tiled", vec![0, 1, 2, 3, 4]));
    let k = knob("local-spills");
    assert_eq!(
        (k.variant.as_str(), &k.kind),
        ("static-index", &KnobKind::MaxRegCount)
    );
}
