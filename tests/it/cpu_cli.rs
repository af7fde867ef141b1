//! `gpulab run --cpu` and `gpulab ex check --cpu` with NVRTC and no GPU: outputs checked on
//! the CPU interpreter, traced figures judged, times absent and their claims "needs a GPU".
//! Skipped, saying why, without NVRTC unless GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{bin, manifest_dir, nvrtc_or_skip};
use serde_json::Value;
use std::process::{Command, Output};

fn gpulab(args: &[&str], data: &std::path::Path) -> Output {
    Command::new(bin())
        .args(args)
        .env("GPULAB_DATA_DIR", data)
        .env_remove("GPULAB_WORKSPACE")
        .env_remove("GPULAB_WORKER_FAKE")
        // An unoptimised interpreter on a busy machine can go 20 s (the default) between
        // replies on an exercise's largest size; that is slowness, not a hang.
        .env("GPULAB_TIMEOUT_S", "180")
        .output()
        .unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

#[test]
fn run_cpu_checks_outputs_and_traces_shared_banks_without_times() {
    if !nvrtc_or_skip("run_cpu_checks_outputs_and_traces_shared_banks_without_times") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = gpulab(&["run", "shared-banks", "--cpu", "--json"], tmp.path());
    let r = json(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(r["source"], "interpreted");
    for v in r["variants"].as_array().unwrap() {
        assert_eq!(v["correct"], true, "{v}");
        assert!(v.get("time_ms").is_none() && v.get("gbps").is_none(), "{v}");
        assert!(v["memory"]["shared"]["requests"].as_u64().unwrap() > 0);
    }
    for c in r["expect"].as_array().unwrap() {
        let text = c["claim"].as_str().unwrap();
        if text.contains("slower") || text.contains("within") {
            assert!(
                c["holds"].is_null() && c["detail"].as_str().unwrap().contains("needs a GPU"),
                "{c}"
            );
        } else {
            assert_eq!(c["holds"], true, "{c}");
        }
    }
}

fn check(ws: &std::path::Path, data: &std::path::Path) -> (Option<i32>, Value) {
    let ws = ws.to_str().unwrap();
    let o = gpulab(
        &[
            "ex",
            "--workspace",
            ws,
            "check",
            "pad-tile",
            "--cpu",
            "--json",
        ],
        data,
    );
    (o.status.code(), json(&o))
}

fn mark(report: &Value, needle: &str) -> String {
    let lines = report["lines"].as_array().unwrap();
    let l = lines
        .iter()
        .find(|l| l["check"].as_str().unwrap().contains(needle));
    l.unwrap_or_else(|| panic!("{needle}: {report}"))["mark"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn ex_check_cpu_fails_the_conflicted_starter_and_passes_the_solution() {
    if !nvrtc_or_skip("ex_check_cpu_fails_the_conflicted_starter_and_passes_the_solution") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (ws, data) = (tmp.path().join("ws"), tmp.path().join("data"));
    let o = gpulab(
        &[
            "ex",
            "--workspace",
            ws.to_str().unwrap(),
            "start",
            "pad-tile",
        ],
        &data,
    );
    assert!(o.status.success());
    let (code, r) = check(&ws, &data);
    assert_eq!(code, Some(1), "{r}");
    assert_eq!(mark(&r, "correct"), "pass", "its sums are right: {r}");
    assert_eq!(mark(&r, "conflicts_per_request"), "fail");
    std::fs::copy(
        manifest_dir().join("exercises/shared-banks/pad-tile/solution.cu"),
        ws.join("pad-tile.cu"),
    )
    .unwrap();
    let (code, r) = check(&ws, &data);
    // Every check the CPU can judge passes; the time needs a GPU: undecided, as `ex check`
    // without `--cpu` says on a machine without one.
    assert_eq!(code, Some(3), "{r}");
    assert_eq!(mark(&r, "conflicts_per_request"), "pass");
    assert_eq!(mark(&r, "load_wavefronts_per_request"), "pass");
    assert_eq!(mark(&r, "faster"), "needs_gpu");
    // A kernel that sums the wrong thing fails the output check at the CPU size.
    assert!(
        std::fs::read_to_string(ws.join("pad-tile.cu"))
            .unwrap()
            .contains("sum = (sum ^ tile")
    );
    let wrong = std::fs::read_to_string(ws.join("pad-tile.cu"))
        .unwrap()
        .replacen("sum = (sum ^ tile", "sum = (sum + tile", 1);
    std::fs::write(ws.join("pad-tile.cu"), wrong).unwrap();
    let (code, r) = check(&ws, &data);
    assert_eq!(
        (code, mark(&r, "correct")),
        (Some(1), "fail".to_string()),
        "{r}"
    );
}

#[test]
fn run_cpu_checks_the_gemm_ladder_against_a_product_made_on_the_host() {
    if !nvrtc_or_skip("run_cpu_checks_the_gemm_ladder_against_a_product_made_on_the_host") {
        return;
    }
    // The lesson beside its kernels, with one rung that sums only half of each product.
    let tmp = tempfile::tempdir().unwrap();
    let (lessons, kernels) = (tmp.path().join("lessons"), tmp.path().join("kernels/gemm"));
    std::fs::create_dir_all(&lessons).unwrap();
    std::fs::create_dir_all(&kernels).unwrap();
    for f in ["ladder.cu", "tuned.cu"] {
        std::fs::copy(manifest_dir().join("kernels/gemm").join(f), kernels.join(f)).unwrap();
    }
    let yaml = std::fs::read_to_string(manifest_dir().join("lessons/21-gemm.yaml")).unwrap();
    // The ladder alone: the exercises (the file's last key) name files this course lacks.
    let yaml = yaml.split("\nexercises:").next().unwrap().to_string() + "\n";
    let broken = "  - name: half-depth\n    like: tile-2d\n    args: [a, b, c, m, m, \"m / 2\"]\n";
    let yaml = yaml.replacen(
        "  - name: vectorised\n",
        &format!("{broken}  - name: vectorised\n"),
        1,
    );
    std::fs::write(lessons.join("21-gemm.yaml"), yaml).unwrap();
    let o = gpulab(
        &[
            "run",
            "gemm",
            "--lessons",
            lessons.to_str().unwrap(),
            "--cpu",
            "--json",
            "--no-trace",
            "--variant",
            "tile-2d",
            "--variant",
            "half-depth",
        ],
        &tmp.path().join("data"),
    );
    let r = json(&o);
    let v = |name: &str| {
        (r["variants"].as_array().unwrap().iter())
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {r}"))
            .clone()
    };
    assert_eq!(v("tile-2d")["correct"], true, "{r}");
    assert_eq!(v("half-depth")["correct"], false, "{r}");
    assert!(
        (v("half-depth")["error"].as_str().unwrap()).contains("wrong output"),
        "{r}"
    );
}

#[test]
fn a_kernel_that_does_not_compile_is_its_error_on_the_cpu_not_a_need_for_a_gpu() {
    if !nvrtc_or_skip("a_kernel_that_does_not_compile_is_its_error_on_the_cpu") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.cu");
    std::fs::write(
        &file,
        "// gpulab: n=32 out:f32[n] grid=1 block=32\n\
         extern \"C\" __global__ void k(float* out) { out[threadIdx.x] = 1.0f }\n",
    )
    .unwrap();
    let data = dir.path().join("data");
    let f = file.to_str().unwrap();
    let report = gpulab(&["try", "--cpu", "--report", f], &data);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("c.cu:2: error: expected a \";\""), "{text}");
    assert!(!text.contains("needs a GPU"), "{text}");
    let v = &json(&gpulab(&["try", "--cpu", "--json", f], &data))["variants"][0];
    assert!(v["failure"].is_null(), "not the interpreter's reach: {v}");
}
