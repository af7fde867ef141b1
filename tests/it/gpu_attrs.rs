//! Launch attributes on a real GPU: a cluster of two blocks reading each other's shared memory,
//! a launch with an L2 access-policy window under a persisting-L2 set-aside, and launches at
//! both ends of the L1 + shared carve-out, all checked against a plain launch (and the
//! carve-outs' resident blocks against the occupancy rules). Skips where there is no GPU; on a GPU below CC 9.0 the lesson must
//! say what it lacks and run nothing.

use crate::support::common;

use gpulab::model::results::VariantResult;

const LESSON: &str = r#"format_version: 1
id: swap
title: Swap
space: dsmem
pages: [{ title: t, text: x }]
problem: { blocks: 64 }
buffers:
  - { name: in, type: u32, len: "blocks * 64", init: seq }
  - { name: out, type: u32, len: "blocks * 64", init: poison }
variants:
  - name: plain
    source: kernels/cluster.cu
    kernel: swap_halves
    launch: { grid: "blocks", block: 64 }
    args: [in, out]
  - name: cluster
    like: plain
    defines: { VIA_CLUSTER: 1 }
    launch: { cluster: [2, 1, 1] }
  - name: window
    like: plain
    launch: { l2_window: { buffer: in, fraction: 1.0, hit: persisting, miss: streaming } }
  - name: small-l1
    like: plain
    launch: { carveout: max_shared }
  - name: large-l1
    like: plain
    launch: { carveout: max_l1 }
reference: plain
l2_persisting_bytes: "blocks * 64 * 4"
"#;

fn run() -> Option<(String, Vec<VariantResult>)> {
    let (device, results) = common::run_probe_on_gpu("01-swap.yaml", LESSON, true)?;
    Some((device.cc, results))
}

#[test]
fn clusters_and_l2_windows_launch_and_agree_with_a_plain_launch() {
    let Some((cc, results)) = run() else { return };
    assert_eq!(results.len(), 5, "{results:#?}");
    let below_9 = cc.split_once('.').and_then(|(m, _)| m.parse::<u32>().ok()) < Some(9);
    for v in &results {
        if below_9 {
            let why = v.unmet.as_deref().unwrap_or_default();
            assert!(
                why.contains("needs compute capability 9.0"),
                "{}: {why}",
                v.name
            );
        } else {
            assert_eq!(v.correct, Some(true), "{}: {:?}", v.name, v.error);
        }
    }
    if below_9 {
        return;
    }
    // Blocks that use only the driver's reserve: at max_l1 the SM keeps its smallest
    // shared-memory size for them, so fewer fit than at max_shared (tests/it/gpu.rs holds the
    // calculator's figures equal to the rules' for the shipped lessons' carve-outs).
    let blocks = |n: &str| {
        let v = results.iter().find(|v| v.name == n).unwrap();
        v.occupancy.as_ref().map(|o| o.blocks_per_sm)
    };
    let (small_l1, large_l1) = (blocks("small-l1"), blocks("large-l1"));
    assert!(
        large_l1 < small_l1,
        "max_l1 {large_l1:?}, max_shared {small_l1:?}"
    );
}
