//! Hopper's transaction barriers (`mbarrier`) and the 1-D bulk copy (TMA,
//! `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`) that completes on
//! one, as PTX defines them: a barrier's phase completes once its expected arrivals have
//! arrived and its transaction count (bytes announced with `expect_tx`, less the bytes its
//! copies have delivered) is back to zero. A bulk copy's bytes land in shared memory when a
//! wait on its barrier looks (`try_wait`/`test_wait`), never at the copy: a read of the tile
//! before the wait that sees the phase complete reads the old words.
//!
//! The barrier's state is kept beside the block's memory (by its shared offset), not in its
//! 8 bytes: a kernel that reads the barrier's word as data is not modelled. An arrival's
//! state token is the number of the phase it arrived in (a GPU's is opaque bits of the
//! barrier's state): the state form of a wait (`try_wait p, [addr], state`) finds that
//! phase complete, and a kernel that reads the token's bits is not modelled.

use super::block::BlockCtx;
use super::frame::Frame;
use super::lanes::lanes;
use super::mbars::{Bulk, Mbar};
use super::mem::At;
use super::memop::{misaligned, misaligned_error, oob};
use super::ops::{Op, Space};
use super::program::Instr;
use super::{Fault, Halt, RunError};
use crate::model::access::{MBAR_FLAG, MBAR_HIGH_MASK};

fn stopped(ctx: &BlockCtx, ins: &Instr, warp: u32, why: String, lanes: u32) -> RunError {
    ctx.error(ins.place, warp, why, lanes)
}

/// The barrier operand's shared offset for lane `l`, checked: 8-byte aligned and inside the
/// block's shared memory, as a GPU faults otherwise.
fn bar_at(
    fr: &Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (opnd, l, warp): (usize, usize, u32),
) -> Result<u64, RunError> {
    let a = fr.read(&ins.src[opnd], l, ctx, warp);
    let mut row = [0u64; 32];
    row[l] = a;
    if misaligned(&row, 1 << l, 8).is_some() {
        return Err(misaligned_error(ctx, ins, warp, (l, a), 8));
    }
    let thread = warp as usize * 32 + l;
    (ctx.mem.check(At::Shared(a), 8, thread)).map_err(|e| oob(ctx, ins, warp, l, e))?;
    Ok(a)
}

/// Run an `mbarrier` instruction or a bulk copy for the `active` lanes, in lane order.
pub fn step(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
) -> Result<(), RunError> {
    let rank = ctx.rank as usize;
    if ins.op == Op::BulkCopy {
        // Two records a warp request, as the GPU's logger writes them, each with the bytes
        // the lowest lane moves as its width: each lane's source, then each lane's
        // destination under its barrier's offset << 32 (each the low 24 bits).
        let first = active.trailing_zeros() as usize;
        let mut row = [0u64; 32];
        lanes(active).for_each(|l| row[l] = fr.read(&ins.src[1], l, ctx, warp));
        let size = fr.read(&ins.src[2], first, ctx, warp) as u32;
        ctx.flat_record(ins, warp, active, Space::Global, &row, size);
        let low = |a: u64| a & 0xff_ffff;
        lanes(active).for_each(|l| {
            let (dst, bar) = (
                fr.read(&ins.src[0], l, ctx, warp),
                fr.read(&ins.src[3], l, ctx, warp),
            );
            row[l] = low(bar) << 32 | low(dst);
        });
        ctx.flat_record_at(
            ins.site.map(|s| s + 1),
            warp,
            active,
            Space::Shared,
            &row,
            size,
        );
    }
    // What the tracer logs of a barrier instruction, as the GPU's logger does: per lane the
    // barrier's shared offset (with `init`, its count << 32 over it), and of a wait only the
    // lanes it found the phase complete for.
    let mut row = [0u64; 32];
    let mut logged = 0u32;
    // The barriers this look is the warp's first at since a copy on them was issued.
    let mut looked: Vec<u64> = Vec::new();
    for l in lanes(active) {
        match ins.op {
            Op::MbarInit => {
                let a = bar_at(fr, ctx, ins, (0, l, warp))?;
                let count = fr.read(&ins.src[1], l, ctx, warp) as u32;
                if count == 0 {
                    let why = format!("`{}`: a barrier needs at least one arrival", ins.text);
                    return Err(stopped(ctx, ins, warp, why, 1 << l));
                }
                let bar = Mbar {
                    expected: count,
                    pending: count,
                    ..Mbar::default()
                };
                ctx.mbars[rank].bars.insert(a, bar);
                row[l] = u64::from(count) << 32 | a;
                logged |= 1 << l;
            }
            Op::MbarArrive { expect_tx } => {
                // `mbarrier.arrive{.expect_tx} state, [addr]{, count}`: the address is the
                // first source (the state is the destination, `_` or a register).
                let a = bar_at(fr, ctx, ins, (0, l, warp))?;
                let n = ins.src.get(1).map(|o| fr.read(o, l, ctx, warp));
                let Some(bar) = ctx.mbars[rank].bars.get_mut(&a) else {
                    let why = format!("`{}` on a barrier no `mbarrier.init` made", ins.text);
                    return Err(stopped(ctx, ins, warp, why, 1 << l));
                };
                // With `expect_tx` the count is bytes to come; without, arrivals (1 if none).
                let arrivals = if expect_tx { 1 } else { n.unwrap_or(1) as u32 };
                if expect_tx {
                    bar.tx += n.unwrap_or(0) as i64;
                }
                if arrivals > bar.pending {
                    let why = format!(
                        "`{}`: {arrivals} arrivals where the phase awaits {}",
                        ins.text, bar.pending
                    );
                    return Err(stopped(ctx, ins, warp, why, 1 << l));
                }
                bar.pending -= arrivals;
                let phase = bar.phases;
                bar.settle();
                if let Some(d) = ins.dst.first() {
                    // The state token: the phase it arrived in.
                    fr.write(d, l, phase);
                }
                // A count of arrivals written is logged over the offset, as the GPU's
                // logger does; an `expect_tx` arrival's bytes under bit 63.
                row[l] = match (expect_tx, n) {
                    (false, Some(n)) => n << 32 | a,
                    (true, Some(n)) => MBAR_FLAG | (n & MBAR_HIGH_MASK) << 32 | a,
                    _ => a,
                };
                logged |= 1 << l;
            }
            Op::MbarWait { token } => {
                let a = bar_at(fr, ctx, ins, (0, l, warp))?;
                let waited = fr.read(&ins.src[1], l, ctx, warp);
                let parity = waited & 1;
                deliver(ctx, ins, (warp, l), a)?;
                let Some(bar) = ctx.mbars[rank].bars.get_mut(&a) else {
                    let why = format!("`{}` on a barrier no `mbarrier.init` made", ins.text);
                    return Err(stopped(ctx, ins, warp, why, 1 << l));
                };
                bar.settle();
                let w = warp as usize % 32;
                let fresh = bar.looked[w] != bar.issued;
                if fresh && !looked.contains(&a) {
                    looked.push(a);
                }
                // The phase of that parity has completed once the current one's differs; the
                // phase a token names, once a later one is in progress.
                let done = !fresh
                    && match token {
                        true => bar.phases > waited,
                        false => bar.phases & 1 != parity,
                    };
                fr.write(&ins.dst[0], l, u64::from(done));
                if done {
                    // The parity waited on, under bit 63, as the GPU's logger logs it; a
                    // token's wait names no parity (the GPU cannot read one from it).
                    row[l] = match token {
                        true => a,
                        false => MBAR_FLAG | parity << 32 | a,
                    };
                    logged |= 1 << l;
                }
            }
            Op::BulkCopy => issue(fr, ctx, ins, (warp, l))?,
            _ => {}
        }
    }
    for a in looked {
        if let Some(bar) = ctx.mbars[rank].bars.get_mut(&a) {
            bar.looked[warp as usize % 32] = bar.issued;
        }
    }
    if logged != 0 {
        ctx.flat_record(ins, warp, logged, Space::Shared, &row, 0);
    }
    Ok(())
}

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size,
/// [mbar]`: checked now, done when a wait on its barrier looks.
fn issue(
    fr: &Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (warp, l): (u32, usize),
) -> Result<(), RunError> {
    let dst = fr.read(&ins.src[0], l, ctx, warp);
    let src = fr.read(&ins.src[1], l, ctx, warp);
    let size = fr.read(&ins.src[2], l, ctx, warp);
    let mbar = bar_at(fr, ctx, ins, (3, l, warp))?;
    // A shared::cluster address of this block has no rank bits; another block's is not
    // interpreted.
    let (rank, dst) = super::mem::cluster_parts(dst, ctx.rank);
    if rank != ctx.rank {
        let why = format!(
            "`{}` into another block's shared memory is not interpreted",
            ins.text
        );
        return Err(stopped(ctx, ins, warp, why, 1 << l));
    }
    if size == 0 || !size.is_multiple_of(16) || !dst.is_multiple_of(16) || !src.is_multiple_of(16) {
        let why = format!(
            "misaligned bulk copy: lane {l} copies {size} bytes from {src:#x} to shared {dst:#x}; \
             a bulk copy's size and both addresses must be multiples of 16"
        );
        return Err(ctx.halt(
            ins.place,
            warp,
            (why, Halt::Fault(Fault::MisalignedAddress)),
            1 << l,
        ));
    }
    let thread = warp as usize * 32 + l;
    (ctx.mem.check(At::Shared(dst), size as usize, thread))
        .map_err(|e| oob(ctx, ins, warp, l, e))?;
    (ctx.mem.check(At::Global(src), size as usize, thread))
        .map_err(|e| oob(ctx, ins, warp, l, e))?;
    let rank = ctx.rank as usize;
    if let Some(bar) = ctx.mbars[rank].bars.get_mut(&mbar) {
        bar.issued += 1;
    }
    ctx.mbars[rank].bulk.push(Bulk {
        mbar,
        dst,
        src,
        size,
    });
    Ok(())
}

/// Do the bulk copies that complete on barrier `mbar`: their bytes land, and the barrier's
/// transaction count falls by them.
fn deliver(
    ctx: &mut BlockCtx,
    ins: &Instr,
    (warp, l): (u32, usize),
    mbar: u64,
) -> Result<(), RunError> {
    let rank = ctx.rank as usize;
    let all = std::mem::take(&mut ctx.mbars[rank].bulk);
    let (due, kept): (Vec<Bulk>, Vec<Bulk>) = all.into_iter().partition(|b| b.mbar == mbar);
    ctx.mbars[rank].bulk = kept;
    let thread = warp as usize * 32 + l;
    for b in due {
        for k in (0..b.size).step_by(8) {
            let v = (ctx.mem.load(At::Global(b.src + k), 8, thread))
                .map_err(|e| oob(ctx, ins, warp, l, e))?;
            (ctx.mem.store(At::Shared(b.dst + k), 8, thread, v))
                .map_err(|e| oob(ctx, ins, warp, l, e))?;
        }
        if let Some(bar) = ctx.mbars[rank].bars.get_mut(&b.mbar) {
            bar.tx -= b.size as i64;
        }
    }
    Ok(())
}
