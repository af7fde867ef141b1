//! Kernels compiled by NVRTC, instrumented, and assembled by ptxas: the distributed shared
//! memory kernel (mapa, ld.shared::cluster, barrier.cluster in inline PTX) and the texture
//! lesson's fetches. No GPU needed; skipped, saying why, without NVRTC or ptxas unless
//! GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{fixture, nvrtc_or_skip};
use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::{CompileJob, Output, compile};
use gpulab::model::access::{AccessKind, CoordType, Space, TexCoords};
use gpulab::trace::instrument::{Instrumented, instrument};
use std::path::PathBuf;
use std::process::Command;

fn ptxas(test: &str) -> Option<PathBuf> {
    if !nvrtc_or_skip(test) {
        return None;
    }
    let found = gpulab::cuda::discover::find().ptxas.clone();
    if found.is_none() {
        if std::env::var("GPULAB_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("{test}: GPULAB_REQUIRE_NVRTC=1 but no ptxas was found beside NVRTC");
        }
        eprintln!("skipped {test}: no ptxas");
    }
    found
}

fn ptx_text(image: &[u8]) -> String {
    String::from_utf8_lossy(image)
        .trim_end_matches('\0')
        .to_string()
}

/// ptxas assembles the instrumented PTX for sm_90, or the test fails with its words.
fn assemble(ptxas: &PathBuf, inst: &Instrumented, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("{name}.ptx"));
    std::fs::write(&src, &inst.ptx).unwrap();
    let out = Command::new(ptxas)
        .args(["-arch=sm_90", "-o"])
        .arg(dir.path().join(format!("{name}.cubin")))
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_dsmem_kernel_instruments_and_assembles() {
    let Some(ptxas) = ptxas("the_dsmem_kernel_instruments_and_assembles") else {
        return;
    };
    let source = std::fs::read_to_string(fixture("extras/kernels/neighbour.cu")).unwrap();
    for (path, target, cluster_sites) in [("0", "1", true), ("0", "0", true), ("1", "1", false)] {
        let defs = vec![
            ("PATH".to_string(), path.to_string()),
            ("TARGET".to_string(), target.to_string()),
        ];
        let job = CompileJob {
            file_name: "kernels/dsmem/neighbour.cu",
            source: &source,
            kernel: "neighbour_sum",
            defines: &defs,
            options: &[],
            arch: "sm_90",
            output: Output::Ptx,
        };
        let ptx = ptx_text(&compile(&job).unwrap().image);
        let inst = instrument(&ptx).unwrap();
        let cluster = inst
            .sites
            .iter()
            .filter(|s| s.space() == Some(Space::Cluster))
            .count();
        assert_eq!(cluster > 0, cluster_sites, "PATH {path} TARGET {target}");
        // The cluster section is written only where a site can need it.
        assert_eq!(inst.ptx.contains("getctarank.u64"), cluster_sites);
        assemble(&ptxas, &inst, &format!("neighbour_{path}_{target}"));
    }
}

#[test]
fn the_texture_lessons_fetches_instrument_and_assemble() {
    let Some(ptxas) = ptxas("the_texture_lessons_fetches_instrument_and_assemble") else {
        return;
    };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = lessons.iter().find(|l| l.id == "texture").unwrap();
    let f32_2d = Some(TexCoords {
        ty: CoordType::F32,
        dims: 2,
        normalized: None,
    });
    // Four point fetches by hand, one filtered fetch, none on the global path.
    for (name, fetches) in [
        ("global-columns", 0),
        ("tex-columns", 4),
        ("tex-checked", 4),
        ("tex-linear", 1),
    ] {
        let v = lesson.variant(name).unwrap();
        let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
        let ptx = ptx_text(&compile(&job).unwrap().image);
        let inst = instrument(&ptx).unwrap();
        let tex: Vec<_> = inst
            .sites
            .iter()
            .filter(|s| s.space() == Some(Space::Texture))
            .collect();
        assert_eq!(tex.len(), fetches, "{name}");
        assert!(
            tex.iter().all(|s| s.coords == f32_2d && s.width == 16),
            "{name}"
        );
        assemble(&ptxas, &inst, name);
    }
}

const FETCH: &str = r#"format_version: 1
id: fetch
title: Fetch
space: texture
pages: [{ title: t, text: x }]
problem: { n: 256 }
buffers:
  - { name: in, type: f32, len: "n * n", init: random }
  - { name: out, type: f32, len: "n * n", init: poison }
textures:
  - { name: img, from: in, width: "n", height: "n", address: clamp, filter: point }
variants:
  - name: column
    source: kernels/fetch.cu
    kernel: fetch
    defines: { WALK: 0 }
    launch: { grid: "n", block: "n" }
    args: [{ tex: img }, out, n]
  - { name: broadcast, like: column, defines: { WALK: 2 } }
reference: { builtin: copy, from: in, to: out }
"#;

/// The GPU test's texture probe (tests/it/gpu_trace_spaces.rs) compiles, and its fetches are
/// the sites that test expects.
#[test]
fn the_texture_probe_instruments_and_assembles() {
    let Some(ptxas) = ptxas("the_texture_probe_instruments_and_assembles") else {
        return;
    };
    let lesson = common::load_probe("01-fetch.yaml", FETCH).unwrap();
    for (name, fetches) in [("column", 1), ("broadcast", 2)] {
        let v = lesson.variant(name).unwrap();
        let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
        let inst = instrument(&ptx_text(&compile(&job).unwrap().image)).unwrap();
        let n = inst
            .sites
            .iter()
            .filter(|s| s.space() == Some(Space::Texture))
            .count();
        assert_eq!(n, fetches, "{name}");
        assemble(&ptxas, &inst, name);
    }
}

/// The stencil lesson's kernels: the barrier of `shared` is a site on the __syncthreads()
/// line, `no-sync` has none, and the tile's stores and loads name their source lines.
#[test]
fn the_stencil_kernels_instrument_their_barrier_and_assemble() {
    let Some(ptxas) = ptxas("the_stencil_kernels_instrument_their_barrier_and_assemble") else {
        return;
    };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = lessons.iter().find(|l| l.id == "stencil").unwrap();
    let source = std::fs::read_to_string("kernels/stencil/stencil.cu").unwrap();
    let line_of = |text: &str| {
        1 + source
            .lines()
            .position(|l| l.contains(text))
            .unwrap_or_else(|| panic!("`{text}` not in the kernel")) as u32
    };
    let barrier_line = line_of("__syncthreads();");
    let sum_line = line_of("sum += tile[");
    for (name, barriers) in [("global", 0), ("shared", 1), ("no-sync", 0)] {
        let v = lesson.variant(name).unwrap();
        let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
        let inst = instrument(&ptx_text(&compile(&job).unwrap().image)).unwrap();
        let bars: Vec<_> = inst.sites.iter().filter(|s| s.is_barrier()).collect();
        assert_eq!(bars.len(), barriers, "{name}");
        assert!(
            bars.iter().all(|s| s.source_line == Some(barrier_line)),
            "{name}: {bars:?}"
        );
        let shared: Vec<_> = inst
            .sites
            .iter()
            .filter(|s| s.space() == Some(Space::Shared))
            .collect();
        let loads = shared.iter().filter(|s| s.kind() == Some(AccessKind::Load));
        let stores = shared
            .iter()
            .filter(|s| s.kind() == Some(AccessKind::Store));
        if name == "global" {
            assert!(shared.is_empty(), "{name}");
        } else {
            // The window is summed from the tile; 2R + 1 words, some of them maybe merged
            // into wider loads by the compiler, all on the summing line.
            assert!(loads.clone().count() >= 1, "{name}");
            assert!(
                loads.clone().all(|s| s.source_line == Some(sum_line)),
                "{name}"
            );
            // The tile's own word and the two halos, each on its own line.
            let mut lines: Vec<_> = stores.map(|s| s.source_line.unwrap()).collect();
            lines.sort();
            let mut want = [
                line_of("tile[t + R] = "),
                line_of("tile[t] = "),
                line_of("tile[t + BLOCK + R] = "),
            ];
            want.sort();
            assert_eq!(lines, want, "{name}");
        }
        assemble(&ptxas, &inst, name);
    }
}

/// The async-copy lesson's kernels: each `cp.async` makes a global and a shared site on the
/// copy's line, the commits and waits make events, the TMA's bulk copy one global site
/// whose width comes with each record; all of it assembles.
#[test]
fn the_async_copy_kernels_instrument_their_copies_and_assemble() {
    let Some(ptxas) = ptxas("the_async_copy_kernels_instrument_their_copies_and_assemble") else {
        return;
    };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = lessons.iter().find(|l| l.id == "async-copy").unwrap();
    // (variant, cp.async sites, commit and wait events, bulk copy sites)
    for (name, copies, events, bulk) in [
        ("sync", 0, 0, 0),
        ("async", 4, 2, 0),
        ("double", 4, 2, 0),
        ("tma", 0, 0, 1),
    ] {
        let v = lesson.variant(name).unwrap();
        let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
        let inst = instrument(&ptx_text(&compile(&job).unwrap().image)).unwrap();
        let of = |k: AccessKind| inst.sites.iter().filter(move |s| s.kind() == Some(k));
        let copy: Vec<_> = of(AccessKind::AsyncCopy).collect();
        // ptxas may duplicate a copy (the prologue's and the loop's): at least as many.
        assert!(copy.len() >= copies, "{name}: {copy:?}");
        assert_eq!(copy.len() % 2, 0, "{name}: a read and a write each");
        for pair in copy.chunks(2) {
            assert_eq!(
                (pair[0].space(), pair[1].space()),
                (Some(Space::Global), Some(Space::Shared)),
                "{name}"
            );
            assert_eq!(pair[0].ptx_line, pair[1].ptx_line, "{name}");
        }
        let group_events = (inst.sites.iter())
            .filter(|s| s.is_event() && !s.is_barrier())
            .count();
        assert!(group_events >= events, "{name}: {group_events}");
        let bulks = of(AccessKind::BulkCopy).count();
        assert!(bulks >= bulk, "{name}");
        // None where the variant has none.
        assert!(copies > 0 || copy.is_empty(), "{name}");
        assert!(bulk > 0 || bulks == 0, "{name}");
        assert!(of(AccessKind::BulkCopy).all(|s| s.width == 0));
        assemble(&ptxas, &inst, &format!("async-copy-{name}"));
    }
}

/// The local-memory lesson's kernels that call a function kept out of line: each `call`
/// makes an event site (logged inside NVVM's call sequence, before the call), numbered after
/// every access, and the instrumented PTX still assembles.
#[test]
fn the_out_of_line_calls_instrument_as_events_and_assemble() {
    let Some(ptxas) = ptxas("the_out_of_line_calls_instrument_as_events_and_assemble") else {
        return;
    };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = lessons.iter().find(|l| l.id == "local-spills").unwrap();
    for name in ["addr-taken", "by-value"] {
        let v = lesson.variant(name).unwrap();
        let job = gpulab::worker::runner::compile_job(v, "sm_90", Output::Ptx);
        let inst = instrument(&ptx_text(&compile(&job).unwrap().image)).unwrap();
        let calls: Vec<_> = (inst.sites.iter())
            .filter(|s| s.event == gpulab::trace::instrument::Event::Call)
            .collect();
        // The eight groups of the unrolled loop, a call each, in as many copies of the
        // rounds' loop as NVVM unrolled it into.
        assert!(
            !calls.is_empty() && calls.len() % 8 == 0,
            "{name}: {} calls",
            calls.len()
        );
        assert!(calls.iter().all(|s| s.is_event()), "{name}");
        let first_call = calls.iter().map(|s| s.id).min().unwrap();
        assert!(
            (inst.sites.iter())
                .filter(|s| s.event != gpulab::trace::instrument::Event::Call)
                .all(|s| s.id < first_call),
            "{name}: a call numbered before another site"
        );
        assemble(&ptxas, &inst, name);
    }
}
