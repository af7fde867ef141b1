//! Launch attributes on a real GPU: a cluster of two blocks reading each other's shared memory,
//! and a launch with an L2 access-policy window under a persisting-L2 set-aside, both checked
//! against a plain launch. Skips where there is no GPU; on a GPU below CC 9.0 the lesson must
//! say what it lacks and run nothing.

mod common;

use common::bin;
use gpulab::course::bundle::CourseRoot;
use gpulab::course::load_file;
use gpulab::model::protocol::{Reply, Request, RunOptions};
use gpulab::model::results::VariantResult;
use gpulab::session::client::WorkerClient;
use gpulab::session::fold;
use std::path::PathBuf;
use std::time::Duration;

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
reference: plain
l2_persisting_bytes: "blocks * 64 * 4"
"#;

fn run() -> Option<(String, Vec<VariantResult>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extras/lessons");
    let lesson = load_file(&CourseRoot::Dir(dir), "01-swap.yaml", LESSON).unwrap();
    let mut c = WorkerClient::with_command(bin(), vec!["worker".into()]);
    let caps = fold::hello(&mut c, 0).unwrap_or_else(|e| panic!("{e}"));
    let Some(device) = caps.device else {
        eprintln!("skipped: no GPU ({})", caps.no_gpu.unwrap_or_default());
        return None;
    };
    let req = Request::Run {
        lesson: Box::new(lesson),
        options: RunOptions {
            trace: true,
            ..Default::default()
        },
    };
    let mut results = Vec::new();
    c.request(&req, Duration::from_secs(120), |r| {
        if let Reply::Variant { result } = r {
            results.push((**result).clone());
        }
    })
    .unwrap();
    Some((device.cc, results))
}

#[test]
fn clusters_and_l2_windows_launch_and_agree_with_a_plain_launch() {
    let Some((cc, results)) = run() else { return };
    assert_eq!(results.len(), 3, "{results:#?}");
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
}
