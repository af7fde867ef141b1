//! `problem_cpu:`: sizes for the CPU interpreter's output check, each a size of `problem`,
//! kept on the lesson, and refused at its line and column when it names no size or is not
//! positive.

use crate::support::common;

/// The probe lesson the tests below change.
fn base() -> String {
    common::probe_head(
        "global",
        "problem: { n: 1048576, blocks: 64 }\nproblem_cpu: { n: 4096, blocks: 2 }",
    ) + BASE_VARIANTS
}

const BASE_VARIANTS: &str = r#"variants:
  - name: first
    source: kernels/probe.cu
    kernel: probe
    launch: { grid: "blocks", block: 256 }
    args: [in, out, cycles, n]
reference: { builtin: copy, from: in, to: out }
"#;

#[test]
fn problem_cpu_is_kept_and_names_only_problem_sizes() {
    let l = common::load_probe("07-probe.yaml", &base()).unwrap();
    let want = vec![("n".to_string(), 4096), ("blocks".to_string(), 2)];
    assert_eq!(l.problem_cpu, want);
    assert_eq!(l.problem[0], ("n".to_string(), 1048576));
    common::single_probe_error(
        "07-probe.yaml",
        &base(),
        "blocks: 2 }",
        "bloks: 2 }",
        "`bloks` is not a problem size",
    );
    common::single_probe_error(
        "07-probe.yaml",
        &base(),
        "n: 4096,",
        "n: 0,",
        "a size must be > 0",
    );
}
