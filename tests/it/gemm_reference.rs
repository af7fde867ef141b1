//! `reference: { builtin: sgemm, ... }` and `peak: cublas`: the capstone's yardstick, loaded
//! and refused at its line.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Reference;

#[test]
fn the_capstone_is_checked_against_cublas_and_measured_as_a_share_of_it() {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let g = lessons
        .iter()
        .find(|l| l.id == "gemm")
        .expect("the gemm lesson");
    let names: Vec<&str> = g.buffers.iter().map(|b| b.name.as_str()).collect();
    match g.reference {
        Reference::Sgemm {
            a,
            b,
            to,
            rows,
            cols,
            depth,
        } => {
            assert_eq!((names[a], names[b], names[to]), ("a", "b", "c"));
            assert_eq!((rows, cols, depth), (4096, 4096, 4096));
        }
        ref other => panic!("{other:?}"),
    }
    assert!(g.metrics.cublas_peak && !g.metrics.no_peak);
}

fn load(text: &str) -> Result<gpulab::model::Lesson, Vec<String>> {
    let root = CourseRoot::Bundled;
    gpulab::course::load_file(&root, "99-probe.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

const PROBE: &str = r#"format_version: 1
id: probe
title: Probe
space: capstone
pages: [{ title: t, text: x }]
problem: { m: 64 }
buffers:
  - { name: a, type: f32, len: "m * m", init: random }
  - { name: b, type: f32, len: "m * m", init: random }
  - { name: c, type: f32, len: "m * m", init: poison }
variants:
  - name: naive
    source: kernels/gemm/ladder.cu
    kernel: sgemm
    defines: { RUNG: 1 }
    launch: { grid: ["m / 32", "m / 32"], block: 1024 }
    args: [a, b, c, m, m, m]
reference: { builtin: sgemm, from: a, times: b, to: c, rows: m, cols: m, depth: m }
metrics: { flops: "2 * m * m * m", peak: cublas }
"#;

#[test]
fn an_sgemm_reference_names_its_second_input_and_sizes_that_fit() {
    assert!(load(PROBE).is_ok(), "{:?}", load(PROBE).err());
    let errs = load(&PROBE.replace("times: b, ", "")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("needs `times`, `rows`, `cols` and `depth`")),
        "{errs:?}"
    );
    let errs = load(&PROBE.replace("depth: m", "depth: 2 * m")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("`a` needs 8192 elements but has 4096")),
        "{errs:?}"
    );
    let errs = load(&PROBE.replace("peak: cublas", "peak: blas")).unwrap_err();
    assert!(
        errs.iter()
            .any(|e| e.contains("`peak` is `copy`, `cublas`, `link` or `none`")),
        "{errs:?}"
    );
}
