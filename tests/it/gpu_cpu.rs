//! Tests that need a GPU: the CPU interpreter beside the GPU it stands in for. They print
//! that they skipped, and why, where there is none; on a GPU machine
//! (`cargo test --release --test it gpu_cpu::`) every shipped lesson with a `problem_cpu` runs at
//! that size on both, and each variant the interpreter runs must be right on both, against
//! the same reference; and the figures the interpreter traces at the lesson's size must
//! equal the GPU's live trace, instruction by instruction.

use crate::support::common;

use common::bin;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::protocol::RunOptions;
use gpulab::model::results::Failure;
use gpulab::model::results::{LessonResult, Source};
use gpulab::session::client::WorkerClient;
use gpulab::session::fold;

fn run(l: &Lesson, small: &Lesson, cpu: bool) -> LessonResult {
    let mut c = WorkerClient::with_command(bin(), vec!["worker".into()]);
    let options = RunOptions {
        time: false,
        trace: false,
        ..RunOptions::default()
    };
    let options = match cpu {
        true => gpulab::session::source::interpreted(&options, Some(small)),
        false => options,
    };
    let (lesson, source) = if cpu {
        (l, Source::Interpreted)
    } else {
        (small, Source::Live)
    };
    let mut r = fold::blank_result(lesson, source, None);
    fold::run_lesson(&mut c, lesson, &options, &mut r, |_| {}).unwrap();
    r
}

#[test]
fn at_cpu_size_every_interpreted_variant_is_right_on_the_gpu_and_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty());
    let sized: Vec<_> = (lessons.iter())
        .filter(|l| !l.problem_cpu.is_empty())
        .collect();
    let ran = common::par_map(&sized, |l| {
        let small = gpulab::course::reload_sized(&root, &l.file, &l.problem_cpu).unwrap();
        (run(l, &small, false), run(l, &small, true))
    });
    for (l, (gpu, cpu)) in sized.iter().zip(ran) {
        for v in &cpu.variants {
            if v.failure.as_ref().map(Failure::as_str) == Some("not interpreted") {
                eprintln!("{} {}: not interpreted", l.id, v.name);
                continue;
            }
            let g = gpu.variants.iter().find(|g| g.name == v.name).unwrap();
            // Racy on purpose: its output may match or not, on either.
            if (l.id.as_str(), v.name.as_str()) == ("stencil", "no-sync") {
                continue;
            }
            // A copy over the link runs on a GPU only: the interpreter says so, not judged.
            if v.unmet.is_some() && l.variant(&v.name).is_some_and(|x| x.transfer.is_some()) {
                continue;
            }
            // A lesson this GPU cannot run (two GPUs for `peer`) is said so, not judged.
            if let Some(why) = &g.unmet {
                eprintln!("{} {} not run on this GPU: {why}", l.id, v.name);
                continue;
            }
            assert_eq!(
                g.correct,
                Some(true),
                "{} {} on the GPU: {:?}",
                l.id,
                v.name,
                g.error
            );
            assert_eq!(
                v.correct,
                Some(true),
                "{} {} on the CPU: {:?}",
                l.id,
                v.name,
                v.error
            );
        }
    }
}

/// Lesson `id` traced live on the GPU, with `more` arguments of `run`.
fn traced(pre: &[&str], id: &str, more: &[&str]) -> LessonResult {
    let mut args = vec!["run", id, "--json", "--no-time"];
    args.extend(more);
    run_json(pre, &args, id)
}

/// Lesson `id` traced on the interpreter, with `sizes` (`--size=NAME=VALUE`) given.
fn traced_at(pre: &[&str], id: &str, sizes: &[String]) -> LessonResult {
    let mut args = vec!["run", id, "--json", "--no-time", "--cpu"];
    args.extend(sizes.iter().map(String::as_str));
    run_json(pre, &args, id)
}

fn run_json(pre: &[&str], args: &[&str], id: &str) -> LessonResult {
    let out = std::process::Command::new(bin())
        .args(pre)
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{id}: {e}\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// The traffic of traced instructions.
fn totals(instructions: &[gpulab::model::access::InstructionSummary]) -> common::Traffic {
    common::traffic(
        (instructions.iter()).map(|i| (i.op.as_str(), i.wavefronts, i.ideal_wavefronts, i.sectors)),
    )
}

/// An instruction's traced figures, an atomic's included (what the SASS made of it, its
/// kind, the lanes and addresses of its requests, a loop's loads).
type Figures = (
    u64,
    u64,
    u64,
    u64,
    u64,
    u64,
    Option<(String, String, u64, u64, u64)>,
);

fn figures(x: &gpulab::model::access::InstructionSummary) -> Figures {
    (
        x.requests,
        x.wavefronts,
        x.ideal_wavefronts,
        x.sectors,
        x.lines,
        x.distinct,
        x.atomic.as_ref().map(|a| {
            (
                format!("{:?} {:?}", x.kind, a.shape),
                a.sass_op.clone(),
                a.lanes,
                a.addresses,
                a.loop_loads,
            )
        }),
    )
}

/// Where the interpreter's trace of lesson `id` differs from the GPU's, instruction by
/// instruction; `more`: arguments of `run` given to both.
fn trace_diffs(pre: &[&str], id: &str, more: &[&str]) -> Vec<String> {
    let mut diffs = Vec::new();
    let gpu = traced(pre, id, more);
    let (lessons, _) = gpulab::course::load_course(&CourseRoot::Bundled);
    let lesson = lessons.iter().find(|l| l.id == id);
    // A problem sized from the GPU's figures is sized by this GPU's on the interpreter too
    // (the lesson's own values are the H100's).
    let mut at = pre.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    at.extend(more.iter().map(|s| s.to_string()));
    if let (Some(l), Some(d)) = (lesson, &gpu.device) {
        for (name, value) in gpulab::course::device_sizes::device_sizes(d) {
            if l.problem.iter().any(|(n, _)| *n == name) {
                at.push(format!("--size={name}={value}"));
            }
        }
    }
    let cpu = traced_at(pre, id, &at[pre.len()..]);
    for v in &cpu.variants {
        let (Some(m), Some(g)) = (&v.memory, gpu.variants.iter().find(|g| g.name == v.name)) else {
            continue;
        };
        let gm = g.memory.as_ref().expect("traced on the GPU");
        if (m.traced_blocks, m.total_blocks) != (gm.traced_blocks, gm.total_blocks) {
            diffs.push(format!(
                "{id} {}: the interpreter traced {} of {} blocks, the GPU {} of {}",
                v.name, m.traced_blocks, m.total_blocks, gm.traced_blocks, gm.total_blocks
            ));
        }
        // Where NVRTC itself makes one of two PTX texts for the job (common::NVRTC_VARIES:
        // a float4 shared load alone, or followed by a second 8-byte load of half its words),
        // the GPU's build and the interpreter's may be two programs, their sites numbered
        // apart: the traffic is compared in totals instead, as tests/it/cpu_recorded.rs does.
        let varies = (lesson.and_then(|l| l.variant(&v.name)))
            .is_some_and(|lv| common::NVRTC_VARIES.contains(&lv.source_path.as_str()));
        if varies && m.instructions.len() != gm.instructions.len() {
            let (a, b) = (totals(&m.instructions), totals(&gm.instructions));
            if common::same_traffic(&a, &b) {
                eprintln!("{id} {}: NVRTC varied its PTX; totals compared", v.name);
            } else {
                diffs.push(format!(
                    "{id} {}: totals: interpreter {a:?}, GPU {b:?}",
                    v.name
                ));
            }
            continue;
        }
        // Every site the GPU's trace lacks is named at once, with what the trace held: a
        // trace that stops early (seen once in a course-wide run, not alone) says so.
        let missing: Vec<u32> = (m.instructions.iter())
            .filter(|i| !gm.instructions.iter().any(|w| w.id == i.id))
            .map(|i| i.id)
            .collect();
        assert!(
            missing.is_empty(),
            "{id} {}: sites {missing:?} not in the GPU's trace ({} of {} blocks traced, {} \
             records lost, {} sites traced; the interpreter's: {} sites)",
            v.name,
            gm.traced_blocks,
            gm.total_blocks,
            gm.overflow,
            gm.instructions.len(),
            m.instructions.len()
        );
        // A picture drawn afresh for each run (a `shuffled` buffer): the two traces are of
        // two pictures, equal where the picture cannot move a figure and within 3% where it
        // can.
        let fresh = lesson.is_some_and(|l| common::reads_a_fresh_order(l, &v.name));
        for i in &m.instructions {
            let w = gm.instructions.iter().find(|w| w.id == i.id);
            let w = w.expect("every site is in the GPU's trace");
            let (a, b) = (figures(i), figures(w));
            // The atomic's shape, SASS and loop loads are the code's; its lanes (after an
            // aggregation, the warp's distinct values) and addresses are the picture's.
            let near = || {
                let code = |x: &Figures| x.6.as_ref().map(|a| (a.0.clone(), a.1.clone(), a.4));
                let data = |x: &Figures| x.6.as_ref().map_or((0, 0), |a| (a.2, a.3));
                let (da, db) = (data(&a), data(&b));
                code(&a) == code(&b)
                    && common::near_on_fresh_orders(
                        &[(a.0, b.0), (a.2, b.2)],
                        &[
                            (a.1, b.1),
                            (a.3, b.3),
                            (a.4, b.4),
                            (a.5, b.5),
                            (da.0, db.0),
                            (da.1, db.1),
                        ],
                    )
            };
            if a != b && !(fresh && near()) {
                diffs.push(format!(
                    "{id} {} site {} `{}` line {:?}: interpreter {:?}, GPU {:?}",
                    v.name,
                    i.id,
                    i.op,
                    i.source_line,
                    figures(i),
                    figures(w)
                ));
            }
        }
        // The last block's epilogue may be traced on the GPU only (see last_block_lines).
        let epilogue = (lesson.and_then(|l| l.variant(&v.name)))
            .map_or(0..0, |lv| common::last_block_lines(&lv.source));
        for w in gm.instructions.iter() {
            let in_epilogue = w.source_line.is_some_and(|l| epilogue.contains(&l));
            if !m.instructions.iter().any(|i| i.id == w.id) && !in_epilogue {
                diffs.push(format!(
                    "{id} {} site {} `{}`: traced on the GPU only",
                    v.name, w.id, w.op
                ));
            }
        }
    }
    diffs
}

#[test]
fn the_interpreters_trace_equals_the_gpus_live_trace() {
    if common::gpu().is_none() {
        return;
    }
    let (lessons, _) = gpulab::course::load_course(&CourseRoot::Bundled);
    // Every lesson: those the interpreter refuses (textures, clusters) say so per variant,
    // and a lesson this GPU cannot run (two GPUs for `peer`) is left out.
    let mut diffs = Vec::new();
    let one_gpu: Vec<_> = (lessons.iter())
        .filter(|l| l.requires.gpus.unwrap_or(1) <= 1)
        .collect();
    for d in common::par_map(&one_gpu, |l| trace_diffs(&[], &l.id, &[])) {
        diffs.extend(d);
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The atomics calibration shapes (tests/fixtures/atomics): the GPU tracer's records of
/// every atomic, costed with the SASS, equal the interpreter's.
#[test]
fn the_atomics_calibration_traces_equal_on_the_gpu_and_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let dir = common::fixture("atomics/lessons");
    let diffs = trace_diffs(&["--lessons", dir.to_str().unwrap()], "atomics-cal", &[]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The `ldmatrix` calibration shapes (tests/fixtures/matrix): the GPU tracer's records of
/// every matrix load (the rows' lanes only, for x1 and x2) equal the interpreter's.
#[test]
fn the_matrix_calibration_traces_equal_on_the_gpu_and_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let dir = common::fixture("matrix/lessons");
    let diffs = trace_diffs(&["--lessons", dir.to_str().unwrap()], "matrix-cal", &[]);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// An exercise check's sample (tests/fixtures/sample): blocks drawn by a hash of their
/// cluster's index and a seed, by the GPU logger's prologue and by the interpreter. Every
/// block of the fixture loads its own number of times, so equal traces mean the same
/// blocks; with and without clusters, for two seeds.
#[test]
fn a_seeded_sample_traces_the_same_blocks_on_the_gpu_and_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let dir = common::fixture("sample/lessons");
    let pre = ["--lessons", dir.to_str().unwrap()];
    let mut diffs = Vec::new();
    for seed in ["1", "3735928559"] {
        let more = ["--trace-seed", seed, "--trace-blocks", "64"];
        diffs.extend(trace_diffs(&pre, "sample-cal", &more));
        let gpu = traced(&pre, "sample-cal", &more);
        for v in &gpu.variants {
            let m = v.memory.as_ref().expect("traced");
            assert!(
                (32..=256).contains(&m.traced_blocks) && m.total_blocks == 4096,
                "seed {seed} {}: {} of {} blocks",
                v.name,
                m.traced_blocks,
                m.total_blocks
            );
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
