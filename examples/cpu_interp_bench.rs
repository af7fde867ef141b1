//! How fast the CPU interpreter runs: thread instructions per second (active lanes summed
//! over warp steps) on the first blocks of a few shipped kernels, with and without the
//! trace. Needs NVRTC, no GPU.
//!
//!     cargo run --example cpu_interp_bench [-- BLOCKS]

use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::Output;
use gpulab::interp::{self, Plan, lesson};
use gpulab::trace::sample::BlockSample;
use gpulab::worker::compile::{compile_cached, compile_job};
use std::time::Instant;

const KERNELS: [(&str, &str); 4] = [
    ("shared-banks", "stride-1"),
    ("shared-transpose", "tiled"),
    ("tiled-matmul", "tiled-32"),
    ("local-spills", "dynamic-index"),
];

fn main() {
    let blocks: u32 = std::env::args()
        .nth(1)
        .and_then(|b| b.parse().ok())
        .unwrap_or(8);
    let (lessons, errs) = gpulab::course::load::load_course(&CourseRoot::Bundled);
    assert!(errs.is_empty(), "{errs:?}");
    let (mut all_steps, mut all_secs) = (0u64, 0f64);
    for (id, name) in KERNELS {
        let l = lessons
            .iter()
            .find(|l| l.id == id)
            .expect("a shipped lesson");
        let mut v = l.variant(name).expect("a shipped variant").clone();
        v.grid = [v.grid[0].min(blocks), 1, 1];
        let c = compile_cached(&compile_job(&v, &l.arch_on(None), Output::Ptx)).expect("NVRTC");
        let ptx = String::from_utf8_lossy(&c.image)
            .trim_end_matches('\0')
            .to_string();
        let k = interp::prepare(&ptx, &c.lowered_name).expect("interpretable");
        for traced in [false, true] {
            let limits = interp::limits::Limits::default();
            let mut p = lesson::paged(l, 1, &limits.budget).expect("buffers within the budget");
            let launch = lesson::launch(&k, l, &v, &mut p).expect("a launch");
            let plan = Plan {
                trace: traced.then_some(BlockSample::every(u64::from(blocks), 1)),
                traced_only: false,
                budget: lesson::BLOCK_BUDGET,
                keep_records: false,
                shapes: Vec::new(),
                limits,
            };
            let t0 = Instant::now();
            let out = interp::run(&k, &mut p.mem, &launch, &plan).expect("a run");
            let secs = t0.elapsed().as_secs_f64();
            all_steps += out.thread_steps;
            all_secs += secs;
            println!(
                "{id:>14} {name:<14} {:>6} {:>3} blocks  {:>12} thread instr  {:>7.3} s  {:>7.1} M/s  {} records",
                if traced { "traced" } else { "plain" },
                out.blocks,
                out.thread_steps,
                secs,
                out.thread_steps as f64 / secs / 1e6,
                out.trace.stream.count
            );
        }
    }
    println!(
        "overall: {:.1} M thread instructions/s",
        all_steps as f64 / all_secs / 1e6
    );
}
