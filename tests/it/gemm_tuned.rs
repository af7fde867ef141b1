//! The GEMM rungs past `warp-tiled` (kernels/gemm/tuned.cu): every rung and every value of
//! `tuned`'s knobs (the lab's sweep) fits its register budget with no spill, as ptxas
//! compiles it for sm_90; and `gpulab run --size` / `--knobs` run the lesson at another size
//! and its knob settings on the CPU interpreter, each checked against the host's product.
//! Skipped, saying why, without NVRTC unless GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{bin, manifest_dir, nvrtc_or_skip};
use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::Output as Built;
use gpulab::model::{Lesson, Variant};
use gpulab::worker::compile::{compile_cached, compile_job};
use serde_json::Value;
use std::process::{Command, Output};

fn gemm() -> Lesson {
    let (lessons, errs) = gpulab::course::load::load_course(&CourseRoot::Bundled);
    assert!(errs.is_empty(), "{errs:?}");
    lessons.into_iter().find(|l| l.id == "gemm").unwrap()
}

fn define(v: &Variant, name: &str) -> i64 {
    let (_, value) = (v.defines.iter().find(|(n, _)| n == name))
        .unwrap_or_else(|| panic!("{} has no define {name}", v.name));
    value.parse().unwrap()
}

#[test]
fn every_tuned_rung_and_knob_setting_fits_its_register_budget_without_spills() {
    if !nvrtc_or_skip("every_tuned_rung_and_knob_setting_fits_its_register_budget_without_spills") {
        return;
    }
    let l = gemm();
    let settings = l.knobs.iter().flat_map(|k| k.settings.iter());
    let all: Vec<&Variant> = (l.variants.iter().chain(settings.map(|s| &s.variant)))
        .filter(|v| v.source_path.ends_with("tuned.cu"))
        .collect();
    assert!(all.len() >= 4 + 14, "rungs and knob values: {}", all.len());
    let mut problems = Vec::new();
    for v in all {
        let c = compile_cached(&compile_job(v, "sm_90", Built::Cubin))
            .unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let r = c.report.expect("a CUBIN build has a ptxas report");
        let threads = (define(v, "BM") / define(v, "TM")) * (define(v, "BN") / define(v, "TN"));
        assert_eq!(v.block[0] as i64, threads, "{}: the launch's block", v.name);
        // The launch bounds ask for 64K / (REGS x threads) blocks an SM: at most REGS each.
        let budget = define(v, "REGS").min(255);
        if r.registers as i64 > budget || r.spill_stores + r.spill_loads + r.stack_frame > 0 {
            problems.push(format!(
                "{}: {} registers (budget {budget}), spills {}/{}, stack {}",
                v.name, r.registers, r.spill_stores, r.spill_loads, r.stack_frame
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn gpulab(args: &[&str], data: &std::path::Path) -> Output {
    Command::new(bin())
        .args(args)
        .env("GPULAB_DATA_DIR", data)
        .env_remove("GPULAB_WORKSPACE")
        .env_remove("GPULAB_WORKER_FAKE")
        // An unoptimised interpreter on a busy machine is slow, not hung.
        .env("GPULAB_TIMEOUT_S", "300")
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
fn run_at_another_size_with_the_knobs_checks_every_setting_on_the_cpu() {
    if !nvrtc_or_skip("run_at_another_size_with_the_knobs_checks_every_setting_on_the_cpu") {
        return;
    }
    // The lesson beside its kernels, `tuned` with one knob of two values (the whole sweep
    // is eighteen settings: minutes on an unoptimised interpreter).
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
    // Only `tuned`'s knobs, and of them one: SWZ at two values.
    let start = yaml.find("  - name: tuned\n").expect("the tuned rung");
    let (head, rest) = yaml.split_at(start);
    let (tuned, rest) = rest.split_once("    knobs:\n").expect("tuned's knobs");
    let after = rest.find("reference:").unwrap();
    let head = format!("{head}{tuned}");
    let one = "    knobs:\n      - { define: SWZ, values: [0, 4] }\n";
    std::fs::write(
        lessons.join("21-gemm.yaml"),
        format!("{head}{one}{}", &rest[after..]),
    )
    .unwrap();
    let dir = lessons.to_str().unwrap();
    let data = tmp.path().join("data");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "gemm", "--lessons", dir, "--cpu", "--no-trace"];
        args.extend_from_slice(extra);
        gpulab(&args, &data)
    };
    let o = run(&[
        "--size",
        "m=1024",
        "--knobs",
        "--variant",
        "tuned",
        "--json",
    ]);
    let r = json(&o);
    assert_eq!(o.status.code(), Some(0), "{r}");
    let tuned = &r["variants"][0];
    assert_eq!(tuned["name"], "tuned", "{r}");
    // Launched at the size asked: 1024 / 128 blocks each way.
    assert_eq!(tuned["grid"], serde_json::json!([8, 8, 1]), "{r}");
    assert_eq!(tuned["correct"], true, "{r}");
    let knobs = r["knobs"].as_array().unwrap();
    let names: Vec<&str> = knobs.iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tuned@SWZ=0", "tuned@SWZ=4"], "{r}");
    for k in knobs {
        assert_eq!(k["correct"], true, "{k}");
        assert_eq!(k["grid"], serde_json::json!([8, 8, 1]), "{k}");
    }
    // A size the lesson does not have is refused with the ones it has.
    let o = run(&["--size", "q=64"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no problem size `q`; it has: m, n, k"),
        "{err}"
    );
    // A size the tiles do not divide does not load, and says where.
    let o = run(&["--size", "m=96"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("does not load at m=96"), "{err}");
}
