//! Atomics, lane after lane in lane order, on any space a load can reach (a cluster's
//! shared memory too). Each warp request is logged before it acts, as the GPU tracer logs
//! it (one record per space the lanes resolved to, the address each lane updates); what
//! the SASS makes of it is the trace analysis' to count.

use super::RunError;
use super::alu::{self, trunc};
use super::block::BlockCtx;
use super::block::{CasInterference, CasWord, Updater};
use super::frame::Frame;
use super::lanes::lanes;
use super::mem::At;
use super::memop::{at_of, misaligned, misaligned_error, nth_execution, oob, same_space};
use super::ops::{AtomOp, Bin, Op, Space, Ty};
use super::program::Instr;
use crate::model::results::PerturbOf;
use std::sync::atomic::Ordering;

fn atom_value(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let bits = ty.bits;
    match op {
        AtomOp::Add => alu::bin(Bin::Add, ty, old, b),
        AtomOp::Min => alu::bin(Bin::Min, ty, old, b),
        AtomOp::Max => alu::bin(Bin::Max, ty, old, b),
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if trunc(old, bits) == trunc(b, bits) {
                c
            } else {
                old
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Inc => {
            if trunc(old, bits) >= trunc(b, bits) {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || trunc(old, bits) > trunc(b, bits) {
                b
            } else {
                old - 1
            }
        }
    }
}

/// Atomics act lane after lane, in lane order, once the request is logged.
pub fn atomic(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
) -> Result<(), RunError> {
    let Op::Atom { space, op, ty, red } = ins.op else {
        return Ok(());
    };
    let n = (ty.bits / 8) as usize;
    let src = &ins.src[..];
    let mut row = [0u64; 32];
    for l in lanes(active) {
        row[l] = fr.read(&src[0], l, ctx, warp);
    }
    // An atomic's address must be aligned to its size, or a GPU faults (before anything
    // is logged, as for a load).
    if let Some(l) = misaligned(&row, active, n as u64) {
        return Err(misaligned_error(ctx, ins, warp, (l, row[l]), n as u64));
    }
    match space {
        Space::Shared | Space::Global => ctx.flat_record(ins, warp, active, space, &row, n as u32),
        _ => {
            let ats = super::lanes::ats(|l| at_of(space, row[l]));
            ctx.access_record(ins, warp, active, &ats, n as u32);
        }
    }
    let left_out = left_out(ctx, ins, active, warp, space, &row);
    let mut out = [0u64; 32];
    for l in lanes(active) {
        let addr = row[l];
        let at = at_of(space, addr);
        let b = fr.read(&src[1], l, ctx, warp);
        let c = src.get(2).map_or(0, |o| fr.read(o, l, ctx, warp));
        let thread = warp as usize * 32 + l;
        let old = ctx
            .mem
            .load(at, n, thread)
            .map_err(|e| oob(ctx, ins, warp, l, e))?;
        out[l] = old;
        if left_out >> l & 1 == 1 {
            continue;
        }
        if let Some(cas) = &ctx.launch.cas_interference {
            let word = word_of(ctx, at);
            let block: u64 = ctx.launch.block.iter().map(|&d| u64::from(d)).product();
            let me = u64::from(ctx.linear) * block + thread as u64;
            let epoch = ctx.epochs.get(ctx.rank as usize).copied().unwrap_or(0);
            let swaps = op == AtomOp::Cas && trunc(old, ty.bits) == trunc(b, ty.bits);
            if fails(cas, word, (me, ctx.linear, epoch), swaps) {
                out[l] = trunc(b ^ 1, ty.bits);
                continue;
            }
        }
        let new = trunc(atom_value(op, ty, old, b, c), ty.bits);
        ctx.mem
            .store(at, n, thread, new)
            .map_err(|e| oob(ctx, ins, warp, l, e))?;
    }
    if !red {
        for l in lanes(active) {
            fr.write(&ins.dst[0], l, out[l]);
        }
    }
    Ok(())
}

/// The word at `at` as `CasInterference` keys it: a shared word is its block's, a word of
/// a cluster's shared memory the cluster's.
fn word_of(ctx: &BlockCtx, at: At) -> CasWord {
    match at {
        At::Shared(a) => (1, ctx.linear, a),
        At::Cluster(a) => {
            let (g, c, b) = (ctx.launch.grid, ctx.launch.cluster, ctx.block);
            let of = |d: usize| b[d] / c[d].max(1);
            let (nx, ny) = (g[0] / c[0].max(1), g[1] / c[1].max(1));
            (2, of(0) + nx * (of(1) + ny * of(2)), a)
        }
        At::Global(a) => (0, u32::MAX, a),
        At::Local(a) => (3, ctx.linear, a),
        At::Const(a) | At::Param(a) => (4, ctx.linear, a),
    }
}

/// Note thread `me`'s atomic on `word` (`me` is (thread, block, barriers passed)); whether
/// it is a swap that would succeed (`swaps`) and fails: its first on the word since another
/// thread's update that no barrier of the block ordered before it.
fn fails(cas: &CasInterference, word: CasWord, me: Updater, swaps: bool) -> bool {
    /// The updates of a word kept: enough to find another thread's among its last few.
    const KEPT: usize = 4;
    let Ok(mut w) = cas.words.lock() else {
        return false;
    };
    let updates = w.touched.entry(word).or_default();
    let (thread, block, epoch) = me;
    let between = (updates.iter()).any(|&(t, b, e)| t != thread && !(b == block && e < epoch));
    if let Some(at) = updates.iter().position(|u| u.0 == thread) {
        updates.remove(at);
    }
    if updates.len() == KEPT {
        updates.remove(0);
    }
    updates.push(me);
    swaps && between && w.failed.insert((word, thread))
}

/// The lanes whose update a run that leaves this site's atomics out skips (those whose
/// address is in the perturbed space, at the execution it perturbs), counted as its hits.
fn left_out(
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
    space: Space,
    row: &[u64; 32],
) -> u32 {
    let Some(p) = &ctx.launch.perturb else {
        return 0;
    };
    if p.of != PerturbOf::Atomics || !p.takes(ins.site) {
        return 0;
    }
    let on = p.space;
    let lanes_in = lanes(active)
        .filter(|&l| same_space(at_of(space, row[l]), on))
        .fold(0u32, |m, l| m | 1 << l);
    let skipped = match lanes_in {
        0 => 0,
        m => nth_execution(ctx, warp, m),
    };
    if let Some(p) = &ctx.launch.perturb {
        p.hits
            .fetch_add(u64::from(skipped.count_ones()), Ordering::Relaxed);
    }
    skipped
}
