//! The interpreter on small hand-written PTX programs.

use super::block::Launch;
use super::lesson::Placed;
use super::mem::Memory;
use super::{Kernel, Plan, RunError, prepare, run};
use crate::trace::decode::Record;
use crate::trace::sample::BlockSample;

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// `body` as kernel `k(u64 out, u64 in)`, run on `threads` threads of `blocks` blocks
/// over a u32 output of `n` words and an input `0..n`; the output and the kernel.
pub(super) fn run_on(
    body: &str,
    blocks: u32,
    threads: u32,
    n: usize,
) -> Result<(Vec<u32>, Kernel), RunError> {
    run_full("", body, blocks, threads, n).map(|(o, k, _)| (o, k))
}

/// The output, the kernel and every block's records.
type Ran = (Vec<u32>, Kernel, Vec<Record>);

/// As `run_on`, with `pre` (functions, module variables) before the kernel, and the
/// records of every block.
pub(super) fn run_full(
    pre: &str,
    body: &str,
    blocks: u32,
    threads: u32,
    n: usize,
) -> Result<Ran, RunError> {
    run_with(pre, body, [blocks, threads, 1], n, false).map(|(o, k, r, _)| (o, k, r))
}

/// As `run_full`, in clusters of `cluster` blocks; a trace-only run when `traced_only`
/// (which may leave out what the trace does not need); the thread instructions run as well.
pub(super) fn run_with(
    pre: &str,
    body: &str,
    dims: [u32; 3],
    n: usize,
    traced_only: bool,
) -> Result<(Vec<u32>, Kernel, Vec<Record>, u64), RunError> {
    run_perturbed(pre, body, dims, n, (traced_only, None))
}

/// As `run_with`, with the loads `perturb` names perturbed.
pub(super) fn run_perturbed(
    pre: &str,
    body: &str,
    dims: [u32; 3],
    n: usize,
    (traced_only, perturb): (bool, Option<super::block::Perturb>),
) -> Result<(Vec<u32>, Kernel, Vec<Record>, u64), RunError> {
    run_ordered(pre, body, dims, n, (traced_only, perturb, false))
}

/// As `run_perturbed`, with each cluster's warps taking their turns last to first where
/// `reverse` says so.
pub(super) fn run_ordered(
    pre: &str,
    body: &str,
    dims: [u32; 3],
    n: usize,
    how: (bool, Option<super::block::Perturb>, bool),
) -> Result<(Vec<u32>, Kernel, Vec<Record>, u64), RunError> {
    let (words, k, o) = run_outcome(pre, body, dims, n, how)?;
    Ok((
        words,
        k,
        o.trace.records.unwrap_or_default(),
        o.thread_steps,
    ))
}

/// As `run_ordered`, with the run's whole outcome (its trace's summary too).
pub(super) fn run_outcome(
    pre: &str,
    body: &str,
    dims: [u32; 3],
    n: usize,
    how: (bool, Option<super::block::Perturb>, bool),
) -> Result<(Vec<u32>, Kernel, super::Outcome), RunError> {
    run_launched(pre, body, dims, n, how, |_| {})
}

/// As `run_outcome`, with `tweak` making what else the launch asks.
pub(super) fn run_launched(
    pre: &str,
    body: &str,
    [blocks, threads, cluster]: [u32; 3],
    n: usize,
    (traced_only, perturb, reverse_warps): (bool, Option<super::block::Perturb>, bool),
    tweak: impl FnOnce(&mut Launch),
) -> Result<(Vec<u32>, Kernel, super::Outcome), RunError> {
    let ptx = format!(
        "{HEAD}{pre}\n.visible .entry k(\n.param .u64 k_out,\n.param .u64 k_in\n)\n{{\n\
         .reg .pred %p<9>;\n.reg .b32 %r<40>;\n.reg .b64 %rd<40>;\n{body}\n}}\n"
    );
    let k = prepare(&ptx, "k").unwrap_or_else(|e| panic!("{e}\n{ptx}"));
    let mut p = Placed {
        mem: Memory::default(),
        addrs: vec![],
    };
    let out = p
        .mem
        .add_buffer("out", n as u64 * 4, Box::new(|_, page| page.fill(0xEE)))
        .unwrap();
    let input = p.mem.add_buffer(
        "in",
        n as u64 * 4,
        Box::new(|start, page| {
            for (i, c) in page.chunks_mut(4).enumerate() {
                c.copy_from_slice(&((start / 4) as u32 + i as u32).to_le_bytes());
            }
        }),
    );
    let input = input.unwrap();
    let mut params = out.to_le_bytes().to_vec();
    params.extend(input.to_le_bytes());
    let l = Launch {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        dyn_smem: 0,
        params,
        cluster: [cluster, 1, 1],
        clock_scale: 0,
        perturb,
        reverse_warps,
        observe: None,
        timed_delay: None,
        cas_interference: None,
        deal: 0,
    };
    let mut l = l;
    tweak(&mut l);
    let plan = Plan {
        trace: Some(BlockSample::every(u64::from(blocks), u64::from(cluster))),
        traced_only,
        budget: 1_000_000,
        keep_records: true,
        shapes: Vec::new(),
        limits: Default::default(),
    };
    let o = run(&k, &mut p.mem, &l, &plan)?;
    let mut raw = vec![0u8; n * 4];
    p.mem.buffers[0].read(0, &mut raw).unwrap();
    let words = raw
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ok((words, k, o))
}

/// out[tid] = value of %r9 at the end.
pub(super) fn store_r9(body: &str) -> String {
    format!(
        "ld.param.u64 %rd1, [k_out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %ctaid.x;\n\
         mov.u32 %r3, %ntid.x;\nmad.lo.s32 %r4, %r2, %r3, %r1;\n{body}\n\
         mul.wide.u32 %rd2, %r4, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r9;\nret;"
    )
}

#[test]
fn params_and_special_registers_reach_every_thread() {
    let (out, _) = run_on(&store_r9("mov.u32 %r9, %r4;"), 2, 40, 80).unwrap();
    assert_eq!(out, (0..80).collect::<Vec<u32>>());
}

#[test]
fn registers_survive_a_barrier() {
    let (out, _) = run_on(
        &store_r9("mov.u32 %r9, %r4;\nbar.sync 0;\nadd.s32 %r9, %r9, 1;"),
        1,
        64,
        64,
    )
    .unwrap();
    assert_eq!(out, (1..65).collect::<Vec<u32>>());
}

#[test]
fn local_arrays_are_per_thread() {
    let body = ".local .align 16 .b8 __local_depot0[64];\n.reg .b64 %SP;\n.reg .b64 %SPL;\n\
                mov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;";
    let code = store_r9(
        "and.b32 %r5, %r1, 3;\nmul.wide.u32 %rd5, %r5, 4;\nadd.s64 %rd6, %SP, %rd5;\n\
         st.u32 [%rd6], %r4;\nadd.s64 %rd7, %SPL, %rd5;\nld.local.u32 %r9, [%rd7];",
    );
    let (out, k) = run_on(&format!("{body}\n{code}"), 1, 64, 64).unwrap();
    assert_eq!(out, (0..64).collect::<Vec<u32>>());
    assert_eq!(k.prog.local_bytes, 64);
}

/// A block's barrier lets its warps go together: warp 1 loads a word and uses it before
/// the barrier, warp 0 loads nothing, and with the load held back warp 0's clock after the
/// barrier has moved on as warp 1's did (a GPU's warps wait there for the last).
#[test]
fn a_barrier_lets_its_warps_go_held_back_by_the_most_any_was() {
    let body = "ld.param.u64 %rd1, [k_out];\nld.param.u64 %rd8, [k_in];\nmov.u32 %r1, %tid.x;\n\
                mov.u64 %rd10, %clock64;\nsetp.ge.u32 %p1, %r1, 32;\n@!%p1 bra SKIP;\n\
                ld.global.u32 %r2, [%rd8];\nadd.s32 %r3, %r2, 1;\nSKIP:\nbar.sync 0;\n\
                mov.u64 %rd11, %clock64;\nsub.s64 %rd12, %rd11, %rd10;\n\
                cvt.u32.u64 %r9, %rd12;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
                st.global.u32 [%rd3], %r9;\nret;";
    let run = |delay: bool| {
        let how = (false, None, false);
        run_launched("", body, [1, 64, 1], 64, how, |l| {
            l.timed_delay = delay.then(|| super::block::TimedDelay {
                sites: (0..16).collect(),
                cycles: 1000,
                total: Default::default(),
            });
        })
        .unwrap()
        .0
    };
    let (plain, held) = (run(false), run(true));
    for lane in [0, 31, 32, 63] {
        assert!(
            held[lane] >= plain[lane] + 1000,
            "lane {lane}: {} cycles held against {} plain",
            held[lane],
            plain[lane]
        );
    }
}

#[path = "tests_execution.rs"]
mod execution;

#[path = "tests_slice.rs"]
mod slice;

#[path = "tests_cluster.rs"]
mod cluster;

#[path = "tests_barriers.rs"]
mod barriers;

#[path = "tests_limits.rs"]
mod limits;

#[path = "tests_atomics.rs"]
mod atomics;

#[path = "tests_copies.rs"]
mod copies;
