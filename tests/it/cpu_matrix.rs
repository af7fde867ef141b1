//! The tensor cores' instructions on the CPU interpreter: `ldmatrix` traced as the rows its
//! lanes name, with the wavefronts each layout of the calibration pack costs
//! (tests/fixtures/matrix, which tests/it/ncu.rs holds against Nsight Compute), and
//! `ldmatrix` with `mma.sync` computing a product a plain loop computes too.

use crate::support::common;

use common::{bin, nvrtc_or_skip};
use gpulab::model::access::AccessKind;
use gpulab::model::results::LessonResult;
use std::process::Command;

/// Wavefronts per matrix load request of each shape, as the bank model has them: a
/// matrix's eight 16-byte rows are served together; rows 128 B apart share four banks.
const SHAPES: [(&str, f64); 9] = [
    ("plain-x4", 32.0),
    ("plain-x2", 16.0),
    ("plain-x1", 8.0),
    ("plain-x4-trans", 32.0),
    ("padded-x4", 4.0),
    ("padded-x1", 1.0),
    ("swizzled-x4", 4.0),
    ("swizzled-x2-trans", 2.0),
    ("half-rows-x4", 16.0),
];

#[test]
fn each_matrix_layout_costs_its_wavefronts_on_the_interpreter() {
    if !nvrtc_or_skip("each_matrix_layout_costs_its_wavefronts_on_the_interpreter") {
        return;
    }
    let dir = common::fixture("matrix/lessons");
    let out = Command::new(bin())
        .args(["--lessons", dir.to_str().unwrap()])
        .args(["run", "matrix-cal", "--cpu", "--json"])
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .unwrap();
    let r: LessonResult = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    for (name, want) in SHAPES {
        let v = r.variants.iter().find(|v| v.name == name).unwrap();
        assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
        let m = v
            .memory
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no trace"));
        let loads: Vec<_> = (m.instructions.iter())
            .filter(|i| i.kind == AccessKind::Matrix)
            .collect();
        // Two row blocks by four (two for the half-width rows) column blocks, unrolled.
        assert!(loads.len() >= 4, "{name}: {} matrix loads", loads.len());
        for i in loads {
            let per = i.wavefronts as f64 / i.requests as f64;
            assert_eq!(per, want, "{name} line {:?}", i.source_line);
            // The ideal is one wavefront a matrix, whatever the layout.
            let matrices = want.clamp(1.0, 4.0);
            let ideal = i.ideal_wavefronts as f64 / i.requests as f64;
            assert!(ideal <= matrices, "{name}: ideal {ideal}");
        }
    }
}

/// `gpulab try` on the CPU interpreter with `dir`'s files: the exit status and the result.
fn try_cpu(dir: &std::path::Path) -> (Option<i32>, LessonResult) {
    let out = Command::new(bin())
        .args(["try", "mma.cu", "naive.cu", "--reference", "naive.cu"])
        .args(["--cpu", "--json"])
        .current_dir(dir)
        .env("CUDA_VISIBLE_DEVICES", "")
        .output()
        .unwrap();
    let r = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), r)
}

#[test]
fn ldmatrix_and_mma_compute_the_product_a_loop_does() {
    if !nvrtc_or_skip("ldmatrix_and_mma_compute_the_product_a_loop_does") {
        return;
    }
    let dir = common::fixture("matrix/try");
    let (code, r) = try_cpu(&dir);
    let mma = r.variants.iter().find(|v| v.name == "mma").unwrap();
    assert_eq!(
        (code, mma.correct),
        (Some(0), Some(true)),
        "{:?}",
        mma.error
    );
    // Each lane's result holds other lanes' operands: the mma is an exchange between lanes,
    // counted with the shuffles (one mma of 32 lanes in each of the 64 blocks), and the
    // loop makes none.
    let shuffles = |v: &str| {
        let v = r.variants.iter().find(|x| x.name == v).unwrap();
        v.memory.as_ref().map(|m| m.shuffles)
    };
    assert_eq!(shuffles("mma"), Some(64 * 32));
    assert_eq!(shuffles("naive"), Some(0));
    // B loaded without `.trans` hands the mma rows where it wants columns: the check sees
    // it, so the layouts above are what make the product right.
    let wrong = tempfile::tempdir().unwrap();
    for f in ["mma.cu", "naive.cu"] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        let text = text.replace("x2.trans.shared", "x2.shared");
        std::fs::write(wrong.path().join(f), text).unwrap();
    }
    let (code, r) = try_cpu(wrong.path());
    let mma = r.variants.iter().find(|v| v.name == "mma").unwrap();
    assert_eq!(
        (code, mma.correct),
        (Some(1), Some(false)),
        "{:?}",
        mma.error
    );
}
