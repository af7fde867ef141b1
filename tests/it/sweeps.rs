//! `sweep:` on a variant: expanded into ordinary variants at load time, remembered in
//! `Lesson::sweeps`, named by claims and `reference`, and refused at its line and column.

use crate::support::common;

use gpulab::model::Lesson;

/// The probe lesson the tests below change.
fn base() -> String {
    common::probe_head("l2", "problem: { n: 1024, big: 64 }") + BASE_VARIANTS
}

const BASE_VARIANTS: &str = r#"variants:
  - name: first
    source: kernels/probe.cu
    kernel: probe
    defines: { ITERS: 4 }
    launch: { grid: "n / 256", block: 256 }
    args: [in, out, cycles, "ITERS * 2"]
  - name: staircase
    like: first
    sweep: { define: ITERS, values: [4, 8, "big / 2", big], name: "it-{}", x: "iterations" }
  - { name: last, like: first }
reference: it-4
expect:
  - "it-64 slower than it-4 by >= 2x"
  - "last correct"
"#;

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    common::load_probe("08-probe.yaml", text)
}

fn single_error(from: &str, to: &str, phrase: &str) {
    common::single_probe_error("08-probe.yaml", &base(), from, to, phrase)
}

/// The base lesson with `from` replaced by `to`: among the errors (a claim may name a variant the
/// broken sweep no longer makes), one on the line that holds `to`, containing `phrase`.
fn error_at(from: &str, to: &str, phrase: &str) {
    assert!(base().contains(from), "{from}");
    let text = base().replacen(from, to, 1);
    let errs = load(&text).expect_err("should fail");
    let line = 1 + text.lines().position(|l| l.contains(to)).unwrap();
    let here = format!("{line}:");
    assert!(
        errs.iter()
            .any(|e| e.starts_with(&here) && e.contains(phrase)),
        "{errs:#?}"
    );
}

#[test]
fn a_sweep_becomes_one_variant_per_value_in_place() {
    let l = load(&base()).unwrap();
    let names: Vec<&str> = l.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["first", "it-4", "it-8", "it-32", "it-64", "last"]);
    let it32 = l.variant("it-32").unwrap();
    assert_eq!(it32.defines, [("ITERS".to_string(), "32".to_string())]);
    assert_eq!(it32.args[3], gpulab::model::Arg::I32(64));
    assert_eq!(l.reference, gpulab::model::Reference::Variant(1));
    assert_eq!(l.expect.len(), 2);
    let s = &l.sweeps[0];
    assert_eq!((s.name.as_str(), s.define.as_str()), ("staircase", "ITERS"));
    assert_eq!(s.x_label, "iterations");
    let points: Vec<(&str, i64)> = s
        .points
        .iter()
        .map(|p| (p.variant.as_str(), p.value))
        .collect();
    assert_eq!(
        points,
        [("it-4", 4), ("it-8", 8), ("it-32", 32), ("it-64", 64)]
    );
}

#[test]
fn a_lesson_without_a_sweep_has_none() {
    let text = base()
        .replace(
            "    sweep: { define: ITERS, values: [4, 8, \"big / 2\", big], name: \"it-{}\", x: \"iterations\" }\n",
            "",
        )
        .replace("it-64", "last")
        .replace("it-4", "first");
    let l = load(&text).unwrap();
    assert!(l.sweeps.is_empty());
    assert_eq!(l.variants.len(), 3);
}

#[test]
fn sweep_errors_name_their_place() {
    single_error("values: [4, 8,", "values: [4, 4,", "given twice");
    single_error("\"big / 2\"", "\"huge / 2\"", "huge");
    error_at(
        "values: [4, 8, \"big / 2\", big]",
        "values: [4]",
        "at least two",
    );
    error_at("name: \"it-{}\"", "name: \"it\"", "`{}` once");
    single_error("define: ITERS,", "define: big,", "problem size");
    single_error("define: ITERS,", "define: 9x,", "macro name");
    error_at(
        "x: \"iterations\"",
        "y: \"iterations\"",
        "unknown field `y`",
    );
}

#[test]
fn a_generated_name_may_not_repeat_a_written_one() {
    let text = base()
        .replace("name: last,", "name: it-8,")
        .replace("last correct", "first correct");
    let errs = load(&text).expect_err("should fail");
    let line = 1 + text.lines().position(|l| l.contains("sweep:")).unwrap();
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{line}:")), "{errs:?}");
    assert!(
        errs[0].contains("makes variant `it-8`: another variant"),
        "{errs:?}"
    );
}

#[test]
fn a_claim_on_a_value_not_swept_is_refused() {
    single_error("it-64 slower", "it-65 slower", "it-65");
}

#[test]
fn like_may_copy_the_sweeping_variant_and_its_faults_are_reported_once() {
    let text = base().replace(
        "  - { name: last, like: first }",
        "  - { name: last, like: staircase, defines: { ITERS: 2 } }",
    );
    let l = load(&text).unwrap();
    let last = l.variant("last").unwrap();
    assert_eq!(last.defines, [("ITERS".to_string(), "2".to_string())]);
    assert_eq!(l.sweeps.len(), 1);

    let broken = base().replacen(
        "args: [in, out, cycles, \"ITERS * 2\"]",
        "args: [in, out, cycles, \"ITERS * nope\"]",
        1,
    );
    let errs = load(&broken).expect_err("should fail");
    let on_args: Vec<&String> = errs.iter().filter(|e| e.contains("nope")).collect();
    assert_eq!(on_args.len(), 1, "{errs:#?}");
}
