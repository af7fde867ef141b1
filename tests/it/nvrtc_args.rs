//! With NVRTC, a lesson's `args:` are checked against the compiled kernel's parameters,
//! and one error shared by several variants is said once, naming them all.

use crate::support::common;

use std::path::Path;
use std::process::Command;

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const LESSON: &str = r#"format_version: 1
id: args
title: "Arguments"
space: global
pages:
  - title: T
    text: t
problem: { n: 256 }
buffers:
  - { name: out, type: f32, len: "n", init: poison }
variants:
  - { name: one, source: kernels/args/k.cu, kernel: k, launch: { grid: 1, block: 256 }, args: [out] }
  - { name: two, like: one, defines: { X: 1 } }
reference: one
"#;

#[test]
fn too_few_args_are_a_compile_error_said_once_for_every_variant_it_hits() {
    if !common::nvrtc_or_skip(
        "too_few_args_are_a_compile_error_said_once_for_every_variant_it_hits",
    ) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gpulab-args-{}", std::process::id()));
    write(&dir, "lessons/01-args.yaml", LESSON);
    write(
        &dir,
        "kernels/args/k.cu",
        // The parameters hide behind a macro, so only the compiled entry can tell their count:
        // the loader's reading of the source signature sees one.
        "#define PARAMS float* out, int n\nextern \"C\" __global__ void k(PARAMS) { if (threadIdx.x < n) out[threadIdx.x] = 1; }",
    );
    let out = Command::new(common::bin())
        .arg("check")
        .arg(dir.join("lessons"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("(variants one, two)"), "{text}");
    assert_eq!(text.matches("takes 2 parameter(s)").count(), 1, "{text}");
    assert!(
        text.contains("01-args.yaml: `args:` lists 1 value(s)"),
        "{text}"
    );
    assert!(text.contains("1 problem(s)"), "{text}");
}
