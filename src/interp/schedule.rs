//! A launch, cluster after cluster (a block is a cluster of one): the cluster's warps take
//! turns, a warp running until it reaches a barrier, ends, or has had its turn; a block's
//! barrier opens when every warp of the block with live lanes has reached it (a counted one
//! when its count of threads has), the cluster's when every warp of the cluster has arrived.

use std::time::Instant;

use super::block::BARRIERS;
use super::block::{BlockCtx, Launch, Trace, block_index};
use super::mem::Memory;
use super::program::Program;
use super::warp::{State, Warp};
use super::{Halt, RunError};

/// Warp steps a warp runs before the next one takes its turn.
const TURN: u64 = 4096;

/// The byte the interpreter fills a block's shared and local memory with.
pub const POISON: u8 = 0xff;

/// The blocks of cluster `c` (by the cluster's linear index in the grid), rank order.
pub fn cluster_blocks(launch: &Launch, c: u64) -> Vec<u64> {
    let [gx, gy, _] = launch.grid.map(u64::from);
    let [cx, cy, cz] = launch.cluster.map(u64::from);
    let (nx, ny) = (gx / cx.max(1), gy / cy.max(1));
    let (ix, iy, iz) = (c % nx, c / nx % ny, c / (nx * ny));
    let mut out = Vec::with_capacity((cx * cy * cz) as usize);
    for z in 0..cz {
        for y in 0..cy {
            for x in 0..cx {
                let (bx, by, bz) = (ix * cx + x, iy * cy + y, iz * cz + z);
                out.push(bx + by * gx + bz * gx * gy);
            }
        }
    }
    out
}

/// Run the blocks of one cluster (their linear indices, rank order, each with whether it
/// is traced) to their end; the warp steps they took, and the thread instructions.
#[allow(clippy::too_many_arguments)]
pub fn run_cluster(
    prog: &Program,
    entry: usize,
    mem: &mut Memory,
    launch: &Launch,
    blocks: &[(u64, bool)],
    (trace, printed): (Option<&mut Trace>, &mut String),
    (budget, sliced): (u64, bool),
    start: Instant,
) -> Result<(u64, u64), RunError> {
    let threads: u32 = launch.block.iter().product();
    let nwarps = threads.div_ceil(32);
    let shared = (prog.shared_static + launch.dyn_smem) as usize;
    let local = mem.local_bytes * threads as usize;
    // Each block's shared and local memory, reusing the last cluster's; the running
    // block's are swapped into `mem`. Poisoned, not zeroed: a GPU gives a block whatever
    // the last one left there, so a kernel that reads a word it never wrote (counters it
    // never zeroed, a halo it never stored) must not come out right here by luck. Every
    // byte 0xff: a float NaN, an integer far from any count.
    for (all, bytes) in [(&mut mem.cluster, shared), (&mut mem.cluster_local, local)] {
        all.resize_with(blocks.len(), Vec::new);
        for v in all.iter_mut() {
            v.clear();
            v.resize(bytes, POISON);
        }
    }
    mem.rank = usize::MAX;
    let mut warps: Vec<Warp> = Vec::with_capacity(blocks.len() * nwarps as usize);
    // The warps take their turns in this order: first to last, or last to first.
    let order = |n: usize| -> Vec<usize> {
        match launch.reverse_warps {
            true => (0..n).rev().collect(),
            false => (0..n).collect(),
        }
    };
    for k in order(blocks.len()) {
        for w in order(nwarps as usize) {
            let w = w as u32;
            let lanes = (threads - w * 32).min(32);
            let mask = if lanes == 32 {
                u32::MAX
            } else {
                (1 << lanes) - 1
            };
            let mut warp = Warp::new(prog, entry, w, mask, &launch.params);
            warp.blk = k;
            warps.push(warp);
        }
    }
    let mut ctx = BlockCtx {
        mem,
        launch,
        block: block_index(launch.grid, blocks[0].0),
        linear: blocks[0].0 as u32,
        rank: 0,
        tracing: blocks[0].1,
        steps: 0,
        thread_steps: 0,
        live: 0,
        trace,
        start,
        shared_static: prog.shared_static,
        nwarps,
        printed,
        sliced,
        reduce: NO_REDUCE,
        reduces: vec![NO_REDUCE; blocks.len()],
        epochs: vec![0; blocks.len()],
        arrivals: vec![[0; BARRIERS]; blocks.len()],
        mbars: (0..blocks.len()).map(|_| Default::default()).collect(),
        perturbed_runs: Default::default(),
        observed_runs: Default::default(),
        delayed: Default::default(),
        pending_delays: Default::default(),
    };
    let out = schedule(prog, &mut warps, &mut ctx, budget, blocks);
    let mem = ctx.mem;
    if mem.rank != usize::MAX {
        // Back where the next cluster's blocks find them.
        std::mem::swap(&mut mem.shared, &mut mem.cluster[mem.rank]);
        std::mem::swap(&mut mem.local, &mut mem.cluster_local[mem.rank]);
    }
    mem.rank = usize::MAX;
    out
}

/// Let through the warps of block `k` waiting at counted barriers that enough threads have
/// reached (arrivals past the count stay for the barrier's next round); whether any went.
fn counted_open(warps: &mut [Warp], ctx: &mut BlockCtx, k: usize) -> bool {
    let mut released = false;
    for id in 0..BARRIERS as u32 {
        let waiting = |w: &Warp| w.blk == k && w.state == State::AtBarrier && w.bar.0 == id;
        let Some(count) = warps.iter().find(|w| waiting(w)).and_then(|w| w.bar.1) else {
            continue;
        };
        let arrived = &mut ctx.arrivals[k][id as usize];
        if *arrived >= count {
            *arrived -= count;
            ctx.epochs[k] += 1;
            (warps.iter_mut())
                .filter(|w| waiting(w) && w.bar.1.is_some())
                .for_each(|w| w.state = State::Running);
            released = true;
        }
    }
    released
}

/// A `bar.red` with nothing reduced yet.
const NO_REDUCE: (u32, bool, bool) = (0, true, false);

/// Make block `k` of the cluster the running one: its index, rank and memory.
fn enter(ctx: &mut BlockCtx, blocks: &[(u64, bool)], k: usize) {
    let mem = &mut *ctx.mem;
    if mem.rank == k {
        return;
    }
    if mem.rank != usize::MAX {
        std::mem::swap(&mut mem.shared, &mut mem.cluster[mem.rank]);
        std::mem::swap(&mut mem.local, &mut mem.cluster_local[mem.rank]);
        ctx.reduces[mem.rank] = ctx.reduce;
    }
    ctx.reduce = ctx.reduces[k];
    std::mem::swap(&mut mem.shared, &mut mem.cluster[k]);
    std::mem::swap(&mut mem.local, &mut mem.cluster_local[k]);
    mem.rank = k;
    ctx.block = block_index(ctx.launch.grid, blocks[k].0);
    ctx.linear = blocks[k].0 as u32;
    ctx.rank = k as u32;
    ctx.tracing = blocks[k].1;
}

/// The cluster's warps take turns until all have ended. A block's barrier opens when every
/// warp of the block that has not ended waits at it; a warp waiting at the cluster's
/// barrier goes on once every warp of the cluster that has not ended has arrived as often.
fn schedule(
    prog: &Program,
    warps: &mut [Warp],
    ctx: &mut BlockCtx,
    budget: u64,
    blocks: &[(u64, bool)],
) -> Result<(u64, u64), RunError> {
    loop {
        for w in warps.iter_mut().filter(|w| w.state == State::Running) {
            enter(ctx, blocks, w.blk);
            ctx.live = w.live;
            w.run(prog, ctx, TURN)?;
            if ctx.steps > budget {
                let why = format!(
                    "step budget exceeded: the block ran {budget} warp instructions without \
                     ending (an endless loop, or a wait on another block, which runs after \
                     this one here)"
                );
                let place = w.place(prog);
                return Err(RunError {
                    block: ctx.block,
                    warp: w.id,
                    lanes: w.live,
                    place,
                    why,
                    halt: Halt::Stopped,
                });
            }
        }
        let mut released = false;
        for k in 0..blocks.len() {
            released |= counted_open(warps, ctx, k);
            let mine = || warps.iter().filter(move |w| w.blk == k);
            // A barrier with no count opens when every warp of the block that has not
            // ended waits at it.
            let first = mine().find(|w| w.state == State::AtBarrier).map(|w| w.bar);
            let all_wait = mine().all(|w| {
                w.state == State::Done || (w.state == State::AtBarrier && Some(w.bar) == first)
            });
            if all_wait && first.is_some_and(|(_, count)| count.is_none()) {
                enter(ctx, blocks, k);
                ctx.epochs[k] += 1;
                let leaving: Vec<u32> = (warps.iter())
                    .filter(|w| w.blk == k && w.state == State::AtBarrier)
                    .map(|w| w.id)
                    .collect();
                ctx.leave_barrier_together(&leaving);
                let red = std::mem::replace(&mut ctx.reduce, NO_REDUCE);
                (warps.iter_mut())
                    .filter(|w| w.blk == k && w.state == State::AtBarrier)
                    .for_each(|w| {
                        w.reduced(red);
                        w.state = State::Running;
                    });
                released = true;
            }
        }
        let arrived = (warps.iter())
            .filter(|w| w.state != State::Done)
            .map(|w| w.arrived)
            .min()
            .unwrap_or(0);
        for w in warps.iter_mut() {
            if w.state == State::AtClusterWait && w.arrived <= arrived {
                w.state = State::Running;
                released = true;
            }
        }
        if released || warps.iter().any(|w| w.state == State::Running) {
            continue;
        }
        if let Some(w) = warps.iter().find(|w| w.state != State::Done) {
            enter(ctx, blocks, w.blk);
            return Err(RunError {
                block: ctx.block,
                warp: w.id,
                lanes: w.live,
                place: w.place(prog),
                why: "deadlock: warps wait at barriers the others never reach \
                      (`__syncthreads()` in some, the cluster's barrier or another named \
                      barrier in others, or a thread count no one completes)"
                    .into(),
                halt: Halt::Stopped,
            });
        }
        return Ok((ctx.steps, ctx.thread_steps));
    }
}
