//! Compiling for real with NVRTC (no GPU needed). Skipped, saying why, where NVRTC is absent
//! unless GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{NVRTC_VARIES, bin, fixture, nvrtc_or_skip};
use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::{CompileJob, Output, compile};
use gpulab::model::results::LessonResult;
use std::process::Command;

/// Also: the PTX NVRTC makes on the way to each CUBIN is the text a PTX build of the same
/// job gives, which lets one compile serve both (`compile_cached`).
#[test]
fn every_shipped_variant_compiles_with_a_ptxas_report() {
    if !nvrtc_or_skip("every_shipped_variant_compiles_with_a_ptxas_report") {
        return;
    }
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(lessons.len() >= 2);
    for l in &lessons {
        // A copy between host and device (`transfer:`) has nothing to compile.
        for v in l.variants.iter().filter(|v| v.transfer.is_none()) {
            let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Cubin);
            let c = compile(&job).unwrap_or_else(|e| panic!("{} {}: {e}", l.id, v.name));
            assert!(!c.image.is_empty());
            let alone = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
            let alone = compile(&alone).unwrap_or_else(|e| panic!("{} {}: {e}", l.id, v.name));
            let cubin_ptx = c.ptx.as_deref().unwrap_or_default();
            let varies = NVRTC_VARIES.contains(&v.source_path.as_str());
            if varies && cubin_ptx != alone.image.as_slice() {
                eprintln!(
                    "{} {}: NVRTC varies its PTX for this job; not compared",
                    l.id, v.name
                );
            }
            assert!(
                varies || cubin_ptx == alone.image.as_slice(),
                "{} {}: the CUBIN build's PTX differs from a PTX build's",
                l.id,
                v.name
            );
            let r = c
                .report
                .unwrap_or_else(|| panic!("{} {}: no report in\n{}", l.id, v.name, c.log));
            assert!(r.registers > 0, "{} {}", l.id, v.name);
        }
    }
}

#[test]
fn run_without_a_gpu_gives_live_ptxas_figures_for_local_spills() {
    if !nvrtc_or_skip("run_without_a_gpu_gives_live_ptxas_figures_for_local_spills") {
        return;
    }
    let out = Command::new(bin())
        .args(["run", "local-spills", "--json"])
        .output()
        .unwrap();
    let r: LessonResult = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    if r.source == gpulab::model::results::Source::Live {
        eprintln!("a GPU is here: the live run is covered by tests/it/gpu.rs");
        return;
    }
    assert_eq!(r.compile, Some(gpulab::model::results::Source::Live));
    let frame = |name: &str| {
        r.variants
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.ptxas.as_ref())
            .unwrap_or_else(|| panic!("{name} has no ptxas report"))
            .stack_frame
    };
    assert!(
        frame("dynamic-index") > 0,
        "run-time indexing should use local memory"
    );
    assert_eq!(
        frame("static-index"),
        0,
        "the fix keeps the array in registers"
    );
}

#[test]
fn a_compile_error_is_shown_at_its_source_line() {
    if !nvrtc_or_skip("a_compile_error_is_shown_at_its_source_line") {
        return;
    }
    let source = std::fs::read_to_string(fixture("broken/kernels/broken/typo.cu")).unwrap();
    let job = CompileJob {
        file_name: "kernels/broken/typo.cu",
        source: &source,
        kernel: "copy",
        defines: &[],
        options: &[],
        arch: "sm_90",
        output: Output::Cubin,
    };
    let err = compile(&job).unwrap_err().to_string();
    assert!(
        err.contains("kernels/broken/typo.cu:6: error: identifier \"j\" is undefined"),
        "{err}"
    );
    assert!(err.contains("    6 |         out[i] = in[j];"), "{err}");

    // `gpulab check` says the same and fails.
    let out = Command::new(bin())
        .arg("check")
        .arg(fixture("broken/lessons"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("typo.cu:6: error"), "{text}");
}

#[test]
fn defines_and_options_reach_the_compiler() {
    if !nvrtc_or_skip("defines_and_options_reach_the_compiler") {
        return;
    }
    let src = "extern \"C\" __global__ void k(float* o, int s) { float a[N]; \
               for (int i = 0; i < N; ++i) a[i] = o[i]; \
               for (int i = 0; i < N; ++i) a[(i * s) % N] += 1.0f; \
               o[threadIdx.x] = a[threadIdx.x % N]; }";
    let defs = vec![("N".to_string(), "32".to_string())];
    let job = CompileJob {
        file_name: "k.cu",
        source: src,
        kernel: "k",
        defines: &defs,
        options: &[],
        arch: "sm_90",
        output: Output::Cubin,
    };
    let r = compile(&job).unwrap().report.unwrap();
    assert_eq!(
        r.stack_frame, 128,
        "32 floats indexed at run time live in local memory"
    );
    let ptx = compile(&CompileJob {
        output: Output::Ptx,
        ..job
    })
    .unwrap();
    let text = String::from_utf8_lossy(&ptx.image);
    assert!(
        text.contains(".target sm_90"),
        "PTX for the matching virtual arch"
    );
    assert!(text.contains(".loc"), "line info for the tracer");
}

/// A build is kept on disk (the cache folder's `gpulab/builds`) and the next process takes it
/// from there: a kept build whose report is rewritten shows the rewritten report, and a
/// process with another cache folder builds afresh.
#[test]
fn a_build_is_kept_on_disk_and_the_next_process_reads_it_back() {
    if !nvrtc_or_skip("a_build_is_kept_on_disk_and_the_next_process_reads_it_back") {
        return;
    }
    let registers = |cache: &std::path::Path| -> Vec<u64> {
        let out = Command::new(bin())
            .env("XDG_CACHE_HOME", cache)
            .args(["run", "aos-soa", "--cpu", "--json"])
            .output()
            .unwrap();
        let r: LessonResult = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let regs = r
            .variants
            .iter()
            .map(|v| v.ptxas.as_ref().map(|p| p.registers));
        regs.map(|n| u64::from(n.expect("a ptxas report")))
            .collect()
    };
    let cache = tempfile::tempdir().unwrap();
    let built = registers(cache.path());
    let shelf = cache.path().join("gpulab").join("builds");
    let kept: Vec<_> = std::fs::read_dir(&shelf)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "build"))
        .collect();
    assert!(kept.len() >= built.len(), "{kept:?}");
    for p in &kept {
        let bytes = std::fs::read(p).unwrap();
        let line = bytes.iter().position(|&b| b == b'\n').unwrap();
        let mut head: serde_json::Value = serde_json::from_slice(&bytes[..line]).unwrap();
        if let Some(r) = head["report"].as_object_mut() {
            r.insert("registers".into(), 4242.into());
        }
        let mut out = serde_json::to_vec(&head).unwrap();
        out.extend(&bytes[line..]);
        std::fs::write(p, out).unwrap();
    }
    assert!(registers(cache.path()).iter().all(|&r| r == 4242));
    let fresh = tempfile::tempdir().unwrap();
    assert_eq!(registers(fresh.path()), built);
}
