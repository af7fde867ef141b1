//! The lesson keys beyond the first format on a real GPU: a `__constant__` table filled from
//! a buffer (checked by a built-in copy reference, so a table left unfilled is wrong), a
//! `clock64` figure summarised per variant, and a table of the wrong size refused in words.
//! Skips where there is no GPU.

use crate::support::common;

use gpulab::model::results::VariantResult;

const LESSON: &str = r#"format_version: 1
id: lookup
title: Lookup
space: constant
pages: [{ title: t, text: x }]
problem: { n: 64 }
buffers:
  - { name: tbl, type: f32, len: n, init: random }
  - { name: small, type: f32, len: 32, init: random }
  - { name: out, type: f32, len: n, init: poison }
  - { name: cycles, type: u64, len: n, init: poison }
variants:
  - name: four
    source: kernels/lookup.cu
    kernel: lookup
    defines: { ITERS: 4 }
    launch: { grid: 1, block: 64 }
    args: [out, cycles, n]
    constants: [{ symbol: table, from: tbl }]
  - { name: eight, like: four, defines: { ITERS: 8 } }
  - { name: wrong-size, like: four, constants: [{ symbol: table, from: small }] }
reference: { builtin: copy, from: tbl, to: out }
tolerance: { rel: 0, abs: 0 }
measures:
  - { name: cycles_per_access, from: cycles, summary: median, per: "ITERS", unit: cycles }
requires: { cc: "7.0" }
"#;

fn run() -> Option<Vec<VariantResult>> {
    common::run_probe_on_gpu("01-lookup.yaml", LESSON, false).map(|(_, results)| results)
}

#[test]
fn constants_are_filled_and_measured_figures_come_back() {
    let Some(results) = run() else { return };
    let by = |n: &str| results.iter().find(|v| v.name == n).unwrap();
    for name in ["four", "eight"] {
        let v = by(name);
        assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
        let m = &v.measured["cycles_per_access"];
        eprintln!("{name}: {} {}", m.value, m.unit);
        assert!(m.value > 0.0 && m.value.is_finite(), "{m:?}");
        assert_eq!(m.unit, "cycles");
        assert_eq!(v.tolerance.map(|t| (t.rel, t.abs)), Some((0.0, 0.0)));
        assert_eq!(v.unmet, None);
    }
    let w = by("wrong-size");
    assert_eq!(w.correct, Some(false));
    let e = w.error.as_deref().unwrap_or_default();
    assert!(e.contains("`table` is 256 bytes"), "{e}");
    assert!(e.contains("`small` holds 128 bytes"), "{e}");
}
