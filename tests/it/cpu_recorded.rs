//! The CPU interpreter against the H100 recording, with no GPU (NVRTC only): for every
//! variant of every shipped lesson it runs, the traced figures of each instruction
//! (requests, wavefronts, ideal wavefronts, sectors, lines, distinct constants) over the
//! sampled blocks equal the recording's (atomics too, where the recording has them).
//! Lessons it refuses say so, with each instruction.
//! Skipped, saying why, without NVRTC unless GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{NVRTC_VARIES, manifest_dir, nvrtc_or_skip};
use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::Output;
use gpulab::interp::{self, lesson::CpuError};
use gpulab::model::Lesson;
use gpulab::model::results::RaceScope;
use gpulab::worker::compile::{compile_cached, compile_job};
use serde_json::Value;

fn lessons() -> Vec<Lesson> {
    let root = CourseRoot::Bundled;
    let (lessons, errs) = gpulab::course::load::load_course(&root);
    assert!(errs.is_empty(), "{errs:?}");
    lessons
}

/// The H100 recording, with the lessons it lacks taken from the H200's (as the lab
/// replays them: `recording::newest`).
fn recording() -> Value {
    let read = |f: &str| -> Value {
        let path = manifest_dir().join("lessons/recordings").join(f);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let mut main = read("nvidia-h100-80gb-hbm3.json");
    let other = read("nvidia-h200.json");
    let lessons = main["lessons"].as_array_mut().unwrap();
    for l in other["lessons"].as_array().unwrap() {
        if !lessons.iter().any(|m| m["lesson"] == l["lesson"]) {
            lessons.push(l.clone());
        }
    }
    main
}

/// An instruction's figures; an atomic's lanes, addresses and loop loads too (0 for others).
fn figures(i: &Value) -> [u64; 9] {
    let f = |k: &str| i[k].as_u64().unwrap_or(0);
    let a = |k: &str| i["atomic"][k].as_u64().unwrap_or(0);
    [
        f("requests"),
        f("wavefronts"),
        f("ideal_wavefronts"),
        f("sectors"),
        f("lines"),
        f("distinct"),
        a("lanes"),
        a("addresses"),
        a("loop_loads"),
    ]
}

/// Figures of two pictures of one fresh order: requests, ideal wavefronts and an atomic's
/// loop loads equal, the rest within 3% (an aggregated atomic's lanes are the warp's
/// distinct values, which the picture sets).
fn near_fresh(w: &[u64; 9], g: &[u64; 9]) -> bool {
    let pair = |k: usize| (g[k], w[k]);
    common::near_on_fresh_orders(
        &[pair(0), pair(2), pair(8)],
        &[pair(1), pair(3), pair(4), pair(5), pair(6), pair(7)],
    )
}

/// The traffic of recorded (or traced, as JSON) instructions, atomics apart.
fn totals(instructions: &[Value]) -> common::Traffic {
    common::traffic(instructions.iter().map(|i| {
        let f = figures(i);
        (i["op"].as_str().unwrap_or_default(), f[1], f[2], f[3])
    }))
}

fn compare(l: &Lesson, name: &str, rec: &Value) -> Result<Vec<String>, String> {
    let v = l.variant(name).unwrap();
    let arch = l.arch_on(None);
    let c = compile_cached(&compile_job(v, &arch, Output::Ptx)).map_err(|e| e.to_string())?;
    let ptx = String::from_utf8_lossy(&c.image)
        .trim_end_matches('\0')
        .to_string();
    let k = interp::prepare(&ptx, &c.lowered_name).map_err(|e| e.to_string())?;
    let limits = gpulab::interp::limits::Limits::for_arch(&arch, Default::default());
    let m = gpulab::worker::interpreted::trace_sampled(&k, l, v, (0, 0), &limits)
        .map_err(|e: CpuError| e.to_string())?;
    let want = rec["memory"]["instructions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut diffs = Vec::new();
    let fresh = common::reads_a_fresh_order(l, name);
    // A recording made before the tracer followed atomics has no atomics figures and no
    // atomic instructions (its memory lacks `atomics`): those are not compared.
    let atomics_recorded = !rec["memory"]["atomics"].is_null();
    // An instruction is known by its PTX line, opcode and space, not its site's number: a
    // tracer that follows one more side of an instruction (a bulk copy's shared write)
    // numbers the sites after it anew, and a recording made before keeps the old numbers.
    let same = |w: &Value, i: &gpulab::model::access::InstructionSummary| {
        w["ptx_line"] == i.ptx_line
            && w["op"] == i.op.as_str()
            && w["space"] == serde_json::to_value(i.space).unwrap()
    };
    for i in m
        .instructions
        .iter()
        .filter(|i| i.atomic.is_none() || atomics_recorded)
    {
        let got = figures(&serde_json::to_value(i).unwrap());
        match want.iter().find(|w| same(w, i)) {
            Some(w) if figures(w) == got => {}
            // A picture drawn afresh for each run: the recording's and this one differ
            // where the picture moves a figure (common::near_on_fresh_orders).
            Some(w) if fresh && near_fresh(&figures(w), &got) => {}
            w => diffs.push(format!(
                "site {} `{}`: got {got:?}, recorded {:?}",
                i.id,
                i.op,
                w.map(figures)
            )),
        }
    }
    // The last block's epilogue may be recorded only (common::last_block_lines says why).
    let epilogue = common::last_block_lines(&v.source);
    for w in &want {
        let line = w["source_line"].as_u64().unwrap_or(0) as u32;
        if !m.instructions.iter().any(|i| same(w, i)) && !epilogue.contains(&line) {
            diffs.push(format!("site {} recorded but not traced", w["id"]));
        }
    }
    // Where NVRTC itself makes one of two PTX texts for the job (common::NVRTC_VARIES: a
    // float4 shared load alone, or followed by a second 8-byte load of half its words), the
    // recording's build and this one are two programs: their sites differ, and so do the
    // shared loads' wavefronts (by about 1% over the kernel: 397,312 against 393,216 for
    // `paired`). Global traffic and shared stores are compared exactly, the
    // shared loads' wavefronts within 2%. The lasting fix is a kernel whose vector loads
    // NVRTC cannot split, recorded again.
    if !diffs.is_empty() && NVRTC_VARIES.contains(&v.source_path.as_str()) {
        let got: Vec<Value> = (m.instructions.iter())
            .map(|i| serde_json::to_value(i).unwrap())
            .collect();
        let (g, w) = (totals(&got), totals(&want));
        if common::same_traffic(&g, &w) {
            eprintln!("{} {}: NVRTC varies its PTX; totals compared", l.id, name);
            diffs.clear();
        } else {
            diffs.push(format!("totals: got {g:?}, recorded {w:?}"));
        }
    }
    // The race verdict: the interpreter orders accesses by every barrier the GPU tracer
    // does (block and cluster barriers alike), so it finds a race exactly where the GPU's
    // trace found one, between the same lines.
    let recorded_races = rec["memory"]["races"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // Which access a trace logged first depends on how the warps happened to run, so a
    // pair of lines is compared unordered.
    let lines = |r: &Value| {
        let (a, b) = (r["first_line"].as_u64(), r["second_line"].as_u64());
        (a.min(b), a.max(b))
    };
    // A recording made before the analysis looked between a warp's lanes and a cluster's
    // blocks holds only the races between warps: those are compared.
    let all_scopes = rec["memory"]["races_in_warps_and_clusters"] == true;
    let mut got: Vec<_> = (m.races.iter())
        .filter(|r| all_scopes || r.scope == RaceScope::Block)
        .map(|r| lines(&serde_json::to_value(r).unwrap()))
        .collect();
    let mut want_races: Vec<_> = recorded_races.iter().map(lines).collect();
    for v in [&mut got, &mut want_races] {
        v.sort();
        v.dedup();
    }
    if got != want_races {
        diffs.push(format!(
            "races: the interpreter found {got:?}, the GPU trace {want_races:?}"
        ));
    }
    Ok(diffs)
}

/// Every variant of the lessons named, each matching or refused as expected.
fn check_lessons(ids: &[&str], test: &str) {
    if !nvrtc_or_skip(test) {
        return;
    }
    let rec = recording();
    let mut failures = Vec::new();
    for l in lessons().iter().filter(|l| ids.contains(&l.id.as_str())) {
        let rl = (rec["lessons"].as_array().unwrap().iter()).find(|x| x["lesson"] == l.id.as_str());
        for v in &l.variants {
            let rv = rl.and_then(|r| {
                r["variants"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["name"] == v.name.as_str())
            });
            let Some(rv) = rv else {
                // A lesson asked for by name must be compared: only a variant added since
                // its recording may be missing from it.
                assert!(rl.is_some(), "{}: in no shipped recording", l.id);
                eprintln!("{} {}: not in the recording, not compared", l.id, v.name);
                continue;
            };
            match compare(l, &v.name, rv) {
                Ok(d) if d.is_empty() => {}
                Ok(d) => failures.push(format!("{} {}: {}", l.id, v.name, d.join("; "))),
                Err(e) => failures.push(format!("{} {}: {e}", l.id, v.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn shared_banks_traces_equal_the_h100_recording() {
    check_lessons(
        &["shared-banks"],
        "shared_banks_traces_equal_the_h100_recording",
    );
}

#[test]
fn global_and_local_lessons_trace_as_recorded() {
    let ids = [
        "memory-ladder",
        "global-coalescing",
        "aos-soa",
        "occupancy",
        "local-spills",
        "l2",
        "l2-window",
    ];
    check_lessons(&ids, "global_and_local_lessons_trace_as_recorded");
}

#[test]
fn shared_and_constant_lessons_trace_as_recorded() {
    let ids = [
        "shared-transpose",
        "constant",
        "reduction",
        "stencil",
        "tiled-matmul",
    ];
    check_lessons(&ids, "shared_and_constant_lessons_trace_as_recorded");
}

#[test]
fn the_gemm_ladder_traces_as_recorded() {
    check_lessons(&["gemm"], "the_gemm_ladder_traces_as_recorded");
}

/// Clusters run together, their blocks reading each other's shared memory.
#[test]
fn the_cluster_lessons_trace_as_recorded() {
    check_lessons(
        &["dsmem", "dsmem-bandwidth"],
        "the_cluster_lessons_trace_as_recorded",
    );
}

/// Atomics, as the SASS makes them: compared once the recording has the lesson (recorded
/// with a tracer that follows atomics); until then each variant says it is not recorded.
#[test]
fn the_atomics_lesson_traces_as_recorded() {
    check_lessons(&["atomics"], "the_atomics_lesson_traces_as_recorded");
}

/// Asynchronous copies (`cp.async`: its global read and its shared write, apart): compared
/// once the recording has the lesson; until then each variant says it is not recorded.
#[test]
fn the_async_copy_lesson_traces_as_recorded() {
    check_lessons(&["async-copy"], "the_async_copy_lesson_traces_as_recorded");
}

/// Textures are refused where a lane reaches them, each instruction known with its line
/// before anything runs.
#[test]
fn texture_kernels_are_refused_with_their_lines() {
    if !nvrtc_or_skip("texture_kernels_are_refused_with_their_lines") {
        return;
    }
    let all = lessons();
    let (id, name, words) = ("texture", "tex-columns", "textures and surfaces need a GPU");
    let l = all.iter().find(|l| l.id == id).unwrap();
    let v = l.variant(name).unwrap();
    let c = compile_cached(&compile_job(v, &l.arch_on(None), Output::Ptx)).unwrap();
    let ptx = String::from_utf8_lossy(&c.image)
        .trim_end_matches('\0')
        .to_string();
    let k = interp::prepare(&ptx, &c.lowered_name).expect("read whole");
    let refused = k.unmodelled();
    assert!(!refused.is_empty());
    for u in &refused {
        assert!(u.why.0.contains(words), "{u:?}");
        assert!(u.place.source_line.is_some(), "{u:?}");
    }
}
