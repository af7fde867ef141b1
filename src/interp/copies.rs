//! Asynchronous copies from global to shared memory (`cp.async`), completed as PTX defines
//! it: a copy's shared bytes are written at the `cp.async.wait_group`/`wait_all` of its
//! thread that covers its group, never at the `cp.async` itself. So a kernel that reads its
//! tile before waiting reads what was there before, as a GPU may, and the output check says
//! so; a copy no wait covers is never done.
//!
//! Each lane keeps its own groups: `commit_group` closes the copies it issued since its last
//! commit into one group (an empty one too), and `wait_group N` completes its groups but the
//! newest N, oldest first. The `cp.async` is traced as the GPU tracer logs it: its global
//! read under its first site and its shared write under the next, each lane's address as
//! the instruction names it; the commit and the wait log an event each.

use super::RunError;
use super::block::BlockCtx;
use super::frame::Frame;
use super::lanes::lanes;
use super::mem::At;
use super::memop::{misaligned, misaligned_error, oob};
use super::operand::Opnd;
use super::ops::{Op, Space};
use super::program::Instr;

/// One lane's copy waiting for its wait: where it writes and reads, how many bytes it
/// writes and how many of them it reads (the rest are zeros).
#[derive(Debug, Clone, Copy)]
struct Copy {
    lane: u8,
    /// The lane's group the copy belongs to: its commits before the copy was issued.
    group: u32,
    dst: u64,
    src: u64,
    size: u8,
    src_size: u8,
}

/// A warp's copies not yet done, in issue order, and each lane's commits so far.
#[derive(Debug, Default)]
pub struct Copies {
    pending: Vec<Copy>,
    committed: [u32; 32],
}

/// Run a `cp.async`, `cp.async.commit_group` or `cp.async.wait_group`/`wait_all` for the
/// `active` lanes of `warp`.
pub fn step(
    copies: &mut Copies,
    fr: &Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
) -> Result<(), RunError> {
    match ins.op {
        Op::CpAsync { hint } => issue(copies, fr, ctx, ins, (active, warp), hint),
        Op::CpCommit => {
            ctx.barrier_record(ins, warp, active);
            lanes(active).for_each(|l| copies.committed[l] += 1);
            Ok(())
        }
        Op::CpWait { all } => {
            ctx.barrier_record(ins, warp, active);
            let first = active.trailing_zeros() as usize;
            let newest = match all {
                true => {
                    lanes(active).for_each(|l| copies.committed[l] += 1);
                    0
                }
                false => ins.src.first().map_or(0, |o| fr.read(o, first, ctx, warp)),
            };
            complete(copies, ctx, ins, (active, warp), newest)
        }
        _ => Ok(()),
    }
}

fn stopped(ctx: &BlockCtx, ins: &Instr, warp: u32, why: String, lanes: u32) -> RunError {
    ctx.error(ins.place, warp, why, lanes)
}

fn issue(
    copies: &mut Copies,
    fr: &Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    hint: bool,
) -> Result<(), RunError> {
    let size = match ins.src.get(2) {
        Some(Opnd::Imm(n @ (4 | 8 | 16))) => *n,
        _ => {
            let why = format!("`{}`: the copy size must be 4, 8 or 16 bytes", ins.text);
            return Err(stopped(ctx, ins, warp, why, active));
        }
    };
    if ins.text.split('.').any(|q| q == "cg") && size != 16 {
        let why = format!("`{}`: `.cg` copies 16 bytes a lane only", ins.text);
        return Err(stopped(ctx, ins, warp, why, active));
    }
    // The fourth operand is the source size (or the `ignore-src` predicate) unless it is the
    // cache policy of `.L2::cache_hint`, which comes last.
    let src_size_op = ins.src.get(3).filter(|_| !hint || ins.src.len() > 4);
    let mut dst = [0u64; 32];
    let mut src = [0u64; 32];
    let mut src_size = [size; 32];
    for l in lanes(active) {
        dst[l] = fr.read(&ins.src[0], l, ctx, warp);
        src[l] = fr.read(&ins.src[1], l, ctx, warp);
        src_size[l] = match src_size_op {
            Some(p @ Opnd::Pred(..)) if fr.read(p, l, ctx, warp) != 0 => 0,
            Some(Opnd::Pred(..)) | None => size,
            Some(o) => fr.read(o, l, ctx, warp),
        };
    }
    if let Some(l) = lanes(active).find(|&l| src_size[l] > size) {
        let why = format!(
            "`{}`: lane {l}'s source size {} is more than the {size} bytes it copies",
            ins.text, src_size[l]
        );
        return Err(stopped(ctx, ins, warp, why, 1 << l));
    }
    // A GPU faults on either address misaligned to the copy's size, before anything is
    // logged, as for a load.
    for row in [&dst, &src] {
        if let Some(l) = misaligned(row, active, size) {
            return Err(misaligned_error(ctx, ins, warp, (l, row[l]), size));
        }
    }
    // A lane whose source size is 0 reads nothing (its bytes are zero-filled): it takes no
    // part in the global side's record, as the GPU's tracer logs it (and as ncu counts no
    // sector for it).
    let read_site = ins.site;
    let reading = lanes(active)
        .filter(|&l| src_size[l] > 0)
        .fold(0u32, |m, l| m | 1 << l);
    if reading != 0 {
        ctx.flat_record_at(read_site, warp, reading, Space::Global, &src, size as u32);
    }
    let write_site = read_site.map(|s| s + 1);
    ctx.flat_record_at(write_site, warp, active, Space::Shared, &dst, size as u32);
    for l in lanes(active) {
        let thread = warp as usize * 32 + l;
        (ctx.mem.check(At::Shared(dst[l]), size as usize, thread))
            .map_err(|e| oob(ctx, ins, warp, l, e))?;
        if src_size[l] > 0 {
            (ctx.mem
                .check(At::Global(src[l]), src_size[l] as usize, thread))
            .map_err(|e| oob(ctx, ins, warp, l, e))?;
        }
        copies.pending.push(Copy {
            lane: l as u8,
            group: copies.committed[l],
            dst: dst[l],
            src: src[l],
            size: size as u8,
            src_size: src_size[l] as u8,
        });
    }
    Ok(())
}

/// Do the active lanes' copies of every group but their newest `newest`, in issue order.
fn complete(
    copies: &mut Copies,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    newest: u64,
) -> Result<(), RunError> {
    let committed = copies.committed;
    let due = |c: &Copy| {
        active >> c.lane & 1 == 1
            && u64::from(c.group) + newest < u64::from(committed[c.lane as usize])
    };
    let (done, kept): (Vec<Copy>, Vec<Copy>) = copies.pending.iter().partition(|c| due(c));
    copies.pending = kept;
    for c in done {
        let thread = warp as usize * 32 + c.lane as usize;
        let l = c.lane as usize;
        for k in 0..u64::from(c.size) {
            let v = match k < u64::from(c.src_size) {
                true => ctx.mem.load(At::Global(c.src + k), 1, thread),
                false => Ok(0),
            };
            let v = v.map_err(|e| oob(ctx, ins, warp, l, e))?;
            (ctx.mem.store(At::Shared(c.dst + k), 1, thread, v))
                .map_err(|e| oob(ctx, ins, warp, l, e))?;
        }
    }
    Ok(())
}
