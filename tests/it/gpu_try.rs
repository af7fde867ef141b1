//! `gpulab try` live on a GPU: the three example files (examples/try) run through the
//! binary as a learner runs them, each judged on the figure it is there to show, with
//! times measured. Skipped, saying why, where there is no GPU
//! (`cargo test --release --test it gpu_try::` on a GPU machine; `GPULAB_BIN` names a binary
//! built elsewhere).

use crate::support::common;

use common::{bin, manifest_dir};
use serde_json::Value;
use std::process::Command;

/// `gpulab try ARGS --json` live, from the source tree: its exit status and the result.
fn try_live(args: &[&str]) -> (Option<i32>, Value) {
    let out = Command::new(bin())
        .arg("try")
        .args(args)
        .arg("--json")
        .current_dir(manifest_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    let r =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}\n{stderr}"));
    (out.status.code(), r)
}

fn variant<'a>(r: &'a Value, name: &str) -> &'a Value {
    (r["variants"].as_array().unwrap().iter())
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name}: {r}"))
}

/// Live, on the GPU the worker found, and timed.
fn assert_live_and_timed(r: &Value, v: &Value, gpu: &str) {
    assert_eq!(r["source"], "live", "{r}");
    assert_eq!(r["device"]["name"], gpu);
    let t = &v["time_ms"];
    assert!(t["median"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["ptxas"].is_object() && v["occupancy"].is_object(), "{v}");
    eprintln!(
        "{}: median {:.4} ms ± {:.1}%, {:?} GB/s",
        v["name"], t["median"], t["spread_pct"], v["gbps"]
    );
}

fn ld_wavefronts_per_request(v: &Value) -> f64 {
    let ld = &v["memory"]["shared"]["ld"];
    ld["wavefronts"].as_f64().unwrap() / ld["requests"].as_f64().unwrap()
}

#[test]
fn the_three_example_tries_run_live() {
    let Some(dev) = common::gpu() else { return };
    // The coalesced copy: right against the built-in copy, whole sectors, and its
    // bandwidth measured.
    let (code, r) = try_live(&["examples/try/copy.cu"]);
    assert_eq!(code, Some(0), "{r}");
    let copy = variant(&r, "copy");
    assert_live_and_timed(&r, copy, &dev.name);
    assert_eq!(copy["correct"], true, "{copy}");
    let g = &copy["memory"]["global"];
    assert_eq!(
        g["sectors"].as_f64().unwrap() / g["requests"].as_f64().unwrap(),
        4.0
    );
    assert!(copy["gbps"].as_f64().unwrap() > 0.0);

    // The column read: 32 wavefronts a request unpadded, 1 padded, the same output.
    let (code, r) = try_live(&["examples/try/shared_read.cu", "-D", "PAD=0", "-D", "PAD=1"]);
    assert_eq!(code, Some(0), "{r}");
    let (conflicted, padded) = (variant(&r, "PAD-0"), variant(&r, "PAD-1"));
    for v in [conflicted, padded] {
        assert_live_and_timed(&r, v, &dev.name);
    }
    assert_eq!(ld_wavefronts_per_request(conflicted), 32.0);
    assert_eq!(ld_wavefronts_per_request(padded), 1.0);
    assert_eq!(padded["correct"], true, "{padded}");

    // The stencil without its barrier: the race is found, and the synced one has none
    // and matches the reference it is.
    let (_, r) = try_live(&[
        "examples/try/stencil.cu",
        "-D",
        "SYNC=0",
        "-D",
        "SYNC=1",
        "--reference",
        "SYNC-1",
    ]);
    let racy = variant(&r, "SYNC-0");
    assert!(gpulab_races(racy) > 0, "{racy}");
    let synced = variant(&r, "SYNC-1");
    assert_live_and_timed(&r, synced, &dev.name);
    assert_eq!(gpulab_races(synced), 0, "{synced}");
    assert_eq!(synced["correct"], true);
}

fn gpulab_races(v: &Value) -> usize {
    v["memory"]["races"].as_array().map_or(0, Vec::len)
}

/// `ldmatrix` and `mma.sync` on the tensor cores give the product a plain loop gives
/// (tests/fixtures/matrix/try), within the check's tolerance: the interpreter's fragment
/// layouts (tests/it/cpu_matrix.rs) are the hardware's.
#[test]
fn ldmatrix_and_mma_compute_on_the_tensor_cores_what_the_interpreter_does() {
    let Some(_) = common::gpu() else { return };
    let dir = common::fixture("matrix/try");
    let out = Command::new(bin())
        .args([
            "try",
            "mma.cu",
            "naive.cu",
            "--reference",
            "naive.cu",
            "--json",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(r["source"], "live", "{r}");
    let mma = variant(&r, "mma");
    assert_eq!(mma["correct"], true, "{mma}");
    assert_eq!(out.status.code(), Some(0), "{r}");
}
