//! Loads and stores, each traced access logged as the GPU logger would: one record per
//! resolved space, with the lanes that went there (atomics are in `atomics`).

use super::alu::sext;
use super::block::BlockCtx;
use super::frame::Frame;
use super::lanes::lanes;
use super::mem::{At, MemError, resolve};
use super::operand::Opnd;
use super::ops::{Kind, Op, Space, Ty};
use super::program::Instr;
use super::slice::Slice;
use super::{Fault, Halt, RunError};
use crate::model::results::PerturbOf;

pub(super) fn at_of(space: Space, a: u64) -> At {
    match space {
        Space::Generic => resolve(a),
        Space::Global => At::Global(a),
        Space::Shared => At::Shared(a),
        Space::Local => At::Local(a),
        Space::Constant => At::Const(a),
        Space::Param => At::Param(a),
        Space::Cluster => At::Cluster(a),
        // No load or store names the texture space (`tex` is refused at decoding); its
        // addresses would be generic ones.
        Space::Texture => resolve(a),
    }
}

fn plus(at: At, k: u64) -> At {
    match at {
        At::Global(a) => At::Global(a + k),
        At::Shared(a) => At::Shared(a + k),
        At::Local(a) => At::Local(a + k),
        At::Const(a) => At::Const(a + k),
        At::Param(a) => At::Param(a + k),
        At::Cluster(a) => At::Cluster(a + k),
    }
}

fn items(o: &Opnd) -> &[Opnd] {
    match o {
        Opnd::Vec(v) => v,
        o => std::slice::from_ref(o),
    }
}

/// A loaded value as the register gets it: signed types are sign-extended.
fn widen(v: u64, ty: Ty) -> u64 {
    if ty.kind == Kind::S {
        sext(v, ty.bits) as u64
    } else {
        v
    }
}

/// An access that could not be made: outside memory, which a GPU faults on as an illegal
/// address, or a page beyond the run's memory budget.
pub(super) fn oob(
    ctx: &BlockCtx,
    ins: &Instr,
    warp: u32,
    lane: usize,
    e: impl Into<MemError>,
) -> RunError {
    let (why, halt) = match e.into() {
        MemError::Out(e) => (
            format!(
                "out-of-bounds {} access: lane {lane}'s `{}` touched {} bytes at {:#x} ({})",
                e.space, ins.text, e.bytes, e.addr, e.what
            ),
            Halt::Fault(Fault::IllegalAddress),
        ),
        MemError::Budget(b) => (b.0, Halt::Memory),
    };
    ctx.halt(ins.place, warp, (why, halt), 1 << lane)
}

/// The first active lane whose address is not a multiple of the access's `width` bytes,
/// which a GPU faults on; `addrs` are the lanes' addresses as the instruction names them
/// (every window, buffer and frame starts aligned to more than any width).
pub(super) fn misaligned(addrs: &[u64; 32], active: u32, width: u64) -> Option<usize> {
    if width <= 1 {
        return None;
    }
    lanes(active).find(|&l| !addrs[l].is_multiple_of(width))
}

pub(super) fn misaligned_error(
    ctx: &BlockCtx,
    ins: &Instr,
    warp: u32,
    (lane, addr): (usize, u64),
    width: u64,
) -> RunError {
    let why = format!(
        "misaligned access: lane {lane}'s {width}-byte `{}` at {addr:#x}, which is not a \
         multiple of {width}",
        ins.text
    );
    let halt = Halt::Fault(Fault::MisalignedAddress);
    ctx.halt(ins.place, warp, (why, halt), 1 << lane)
}

fn param(fr: &mut Frame, lane: usize, a: u64, n: usize, store: Option<u64>) -> u64 {
    let at = lane * fr.pbytes + a as usize;
    let Some(b) = fr.params.get_mut(at..at + n) else {
        return 0;
    };
    // Fixed widths, not a copy of a length known only now: calls move every argument
    // through here, lane by lane.
    match (store, n) {
        (Some(v), 4) => b.copy_from_slice(&(v as u32).to_le_bytes()),
        (Some(v), 8) => b.copy_from_slice(&v.to_le_bytes()),
        (Some(v), _) => b.copy_from_slice(&v.to_le_bytes()[..n]),
        (None, 4) => return u64::from(u32::from_le_bytes(b.try_into().unwrap())),
        (None, 8) => return u64::from_le_bytes(b.try_into().unwrap()),
        (None, _) => {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(b);
            return u64::from_le_bytes(w);
        }
    }
    0
}

/// `v`'s low bytes into `b` (1, 2, 4 or 8 of them), little-endian, as fixed-size copies:
/// a copy of a length known only now is a library call per element.
#[inline(always)]
fn put_le(b: &mut [u8], v: u64) {
    match b.len() {
        8 => b.copy_from_slice(&v.to_le_bytes()),
        4 => b.copy_from_slice(&(v as u32).to_le_bytes()),
        2 => b.copy_from_slice(&(v as u16).to_le_bytes()),
        _ => b[0] = v as u8,
    }
}

/// A load or store whose lanes all fall inside the block's shared memory, or all inside
/// their own thread's local memory, done in place: shared- and local-memory kernels are
/// mostly such requests, and the general path resolves and bounds-checks every lane's every
/// element through `Memory`. False (nothing done) for anything else, which the general
/// path handles, errors included.
fn in_place(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    (offs, local): (&[u64; 32], bool),
    active: u32,
    (items, elem, store, ty): (&[Opnd], usize, bool, Ty),
    warp: u32,
) -> bool {
    let span = elem * items.len();
    if items.len() > 8 || !matches!(elem, 1 | 2 | 4 | 8) || active == 0 {
        return false;
    }
    let (lb, len) = match local {
        true => (ctx.mem.local_bytes, ctx.mem.local.len()),
        false => (0, ctx.mem.shared.len()),
    };
    // Each lane's byte in the one buffer: a shared offset, or its thread's local frame.
    let mut base = [0usize; 32];
    for l in lanes(active) {
        let o = usize::try_from(offs[l]).unwrap_or(usize::MAX);
        // (the byte in the buffer, that memory's size)
        let (a, limit) = match local {
            false => (o, len),
            true => (((warp as usize * 32 + l) * lb).saturating_add(o), lb),
        };
        if o.saturating_add(span) > limit || a.saturating_add(span) > len {
            return false;
        }
        base[l] = a;
    }
    if store
        && items
            .iter()
            .all(|i| matches!(i, Opnd::Reg(_) | Opnd::Imm(_)))
    {
        // Values from registers and immediates need nothing of the block: stored as read.
        let mem = match local {
            true => &mut ctx.mem.local,
            false => &mut ctx.mem.shared,
        };
        for l in lanes(active) {
            for (k, item) in items.iter().enumerate() {
                let v = match item {
                    Opnd::Reg(r) => fr.regs[*r as usize * 32 + l],
                    Opnd::Imm(v) => *v,
                    _ => unreachable!("only registers and immediates"),
                };
                let a = base[l] + k * elem;
                put_le(&mut mem[a..a + elem], v);
            }
        }
        return true;
    }
    if store {
        let mut vals = [[0u64; 8]; 32];
        for l in lanes(active) {
            for (k, item) in items.iter().enumerate() {
                vals[l][k] = fr.read(item, l, ctx, warp);
            }
        }
        let mem = match local {
            true => &mut ctx.mem.local,
            false => &mut ctx.mem.shared,
        };
        for l in lanes(active) {
            for (k, v) in vals[l].iter().take(items.len()).enumerate() {
                let a = base[l] + k * elem;
                put_le(&mut mem[a..a + elem], *v);
            }
        }
        return true;
    }
    let mem = match local {
        true => &ctx.mem.local,
        false => &ctx.mem.shared,
    };
    // Every lane's address was read above, so writing registers as we go cannot move one.
    if let ([Opnd::Reg(r)], 4, false) = (items, elem, ty.kind == Kind::S) {
        // The commonest load, a 32-bit word into one register, with nothing to decide per
        // lane.
        let at = *r as usize * 32;
        for l in lanes(active) {
            let a = base[l];
            fr.regs[at + l] = u64::from(u32::from_le_bytes(mem[a..a + 4].try_into().unwrap()));
        }
        return true;
    }
    for l in lanes(active) {
        for (k, item) in items.iter().enumerate() {
            let a = base[l] + k * elem;
            let v = match elem {
                4 => u64::from(u32::from_le_bytes(mem[a..a + 4].try_into().unwrap())),
                8 => u64::from_le_bytes(mem[a..a + 8].try_into().unwrap()),
                2 => u64::from(u16::from_le_bytes(mem[a..a + 2].try_into().unwrap())),
                _ => u64::from(mem[a]),
            };
            fr.write(item, l, widen(v, ty));
        }
    }
    true
}

/// The space a request goes to when the instruction names it and it is one the logger
/// records under that name (a generic one is resolved lane by lane).
fn one_space(space: Space) -> Option<Space> {
    matches!(space, Space::Shared | Space::Global).then_some(space)
}

/// Each lane's address (inactive lanes' too where it is a register row: reading them
/// cannot fault, and a row copies at once where lanes are read one by one).
fn address_row(fr: &Frame, ctx: &BlockCtx, o: &Opnd, active: u32, warp: u32) -> [u64; 32] {
    let reg_row = |r: u32, off: i64| -> [u64; 32] {
        let at = r as usize * 32;
        super::lanes::row(|l| fr.regs[at + l].wrapping_add(off as u64))
    };
    match o {
        Opnd::Reg(r) => return reg_row(*r, 0),
        Opnd::Addr(b, off) => {
            if let Opnd::Reg(r) = **b {
                return reg_row(r, *off);
            }
        }
        _ => {}
    }
    let mut row = [0u64; 32];
    for l in lanes(active) {
        row[l] = fr.read(o, l, ctx, warp);
    }
    row
}

/// Whether the active lanes' `span` bytes each all lie in the block's shared memory or one
/// global buffer, checked once for the range from the lowest lane to the highest; false
/// where the range is not inside (each lane is then checked, and the first outside named).
fn within_one(ctx: &mut BlockCtx, space: Space, row: &[u64; 32], active: u32, span: usize) -> bool {
    let (mut lo, mut hi) = (u64::MAX, 0);
    for l in lanes(active) {
        lo = lo.min(row[l]);
        hi = hi.max(row[l]);
    }
    if lo > hi {
        return true;
    }
    let Some(n) = (hi - lo).checked_add(span as u64) else {
        return false;
    };
    let from = match space {
        Space::Shared => At::Shared(lo),
        _ => At::Global(lo),
    };
    ctx.mem.check(from, n as usize, 0).is_ok()
}

/// The lanes' offsets where every active lane went to shared memory, or every one to its
/// own local memory (and whether it is local).
fn one_kind(ats: &[At; 32], active: u32) -> Option<([u64; 32], bool)> {
    let local = matches!(ats[active.trailing_zeros().min(31) as usize], At::Local(_));
    let mut offs = [0u64; 32];
    for l in lanes(active) {
        offs[l] = match ats[l] {
            At::Shared(o) if !local => o,
            At::Local(o) if local => o,
            _ => return None,
        };
    }
    Some((offs, local))
}

pub fn load_store(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
) -> Result<(), RunError> {
    // The lanes whose load reads the perturbed space, found before the load: its value
    // may overwrite the register its address was in.
    let perturbed = match (&ctx.launch.perturb, ins.op) {
        (Some(p), Op::Ld { space, .. })
            if space != Space::Param && p.of == PerturbOf::Loads && p.takes(ins.site) =>
        {
            let row = address_row(fr, ctx, &ins.src[0], active, warp);
            lanes(active)
                .filter(|&l| same_space(at_of(space, row[l]), p.space))
                .fold(0u32, |m, l| m | 1 << l)
        }
        _ => 0,
    };
    let perturbed = match perturbed {
        0 => 0,
        lanes => nth_execution(ctx, warp, lanes),
    };
    // The lanes of an observed load in the observed space, and their addresses, found
    // before the load for the same reason.
    let observed = match (&ctx.launch.observe, ins.op) {
        (Some(o), Op::Ld { space, .. }) if ins.site.is_some_and(|s| o.sites.contains(&s)) => {
            let row = address_row(fr, ctx, &ins.src[0], active, warp);
            let mask = lanes(active)
                .filter(|&l| same_space(at_of(space, row[l]), o.space))
                .fold(0u32, |m, l| m | 1 << l);
            Some((row, mask))
        }
        _ => None,
    };
    access(fr, ctx, ins, active, warp)?;
    if let (Some(d), Op::Ld { space, .. }) = (&ctx.launch.timed_delay, ins.op)
        && space != Space::Param
        && ins.site.is_some_and(|s| d.sites.contains(&s))
    {
        // Waited for where the value is first used (`BlockCtx::wait_for_delayed`).
        let filled: Vec<(usize, u32)> = items(&ins.dst[0])
            .iter()
            .filter_map(|o| match o {
                Opnd::Reg(r) => Some((fr.func, *r)),
                _ => None,
            })
            .collect();
        let pending = ctx.pending_delays.entry((ctx.linear, warp)).or_default();
        for f in filled {
            if !pending.contains(&f) {
                pending.push(f);
            }
        }
    }
    if perturbed != 0 {
        perturb(fr, ctx, ins, perturbed, warp);
    }
    if let (Some((row, lanes_of)), Some(o)) = (observed, &ctx.launch.observe) {
        let Some(Opnd::Reg(r)) = items(&ins.dst[0]).first().cloned() else {
            return Ok(());
        };
        if lanes_of == 0 {
            return Ok(());
        }
        let key = (ctx.linear, warp);
        let count = ctx.observed_runs.entry(key).or_insert(0);
        let nth = *count;
        *count += 1;
        let mut seen = o.seen.lock().unwrap_or_else(|e| e.into_inner());
        for l in lanes(lanes_of) {
            if seen.len() < super::block::OBSERVED_MAX {
                seen.push(super::block::Seen {
                    warp: key,
                    nth,
                    address: row[l],
                    value: fr.regs[r as usize * 32 + l],
                });
            }
        }
    }
    Ok(())
}

/// `lanes` where this is the execution of the perturbed loads the run perturbs (every one,
/// or the warp's n-th: `Perturb::execution`), else none; counts the warp's executions.
pub(super) fn nth_execution(ctx: &mut BlockCtx, warp: u32, lanes: u32) -> u32 {
    let Some(p) = &ctx.launch.perturb else {
        return 0;
    };
    let count = ctx.perturbed_runs.entry((ctx.linear, warp)).or_insert(0);
    let n = *count;
    *count += 1;
    p.most
        .fetch_max(u64::from(n) + 1, std::sync::atomic::Ordering::Relaxed);
    match p.execution {
        Some(k) if k != n => 0,
        _ => lanes,
    }
}

/// Whether `at` is in `space` (shared: this block's own shared memory).
pub(super) fn same_space(at: At, space: Space) -> bool {
    matches!(
        (at, space),
        (At::Shared(_), Space::Shared)
            | (At::Global(_), Space::Global)
            | (At::Local(_), Space::Local)
            | (At::Const(_), Space::Constant)
            | (At::Cluster(_), Space::Cluster)
    )
}

/// Flip bits of what the `lanes` of a load read: a pattern of its own for each lane, item
/// and step (splitmix64 of the block, warp, lane, item and the block's steps), never
/// zero in the item's width, so that no two loads cancel and every value changes.
fn perturb(fr: &mut Frame, ctx: &BlockCtx, ins: &Instr, lanes_of: u32, warp: u32) {
    let (Op::Ld { ty, .. }, Some(p)) = (ins.op, &ctx.launch.perturb) else {
        return;
    };
    let bits = ty.bits.clamp(8, 64);
    let full = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // A float keeps its exponent: its sign and mantissa flipped, a finite value stays
    // finite and never turns NaN, which `x != x`, a test made never to hold, would see
    // and pass to the output, a decoy load counted as feeding it.
    let mask = match (ty.kind, bits) {
        (super::ops::Kind::F, 64) => 0x800F_FFFF_FFFF_FFFF,
        (super::ops::Kind::F, 32) => 0x807F_FFFF,
        (super::ops::Kind::F, 16) => 0x83FF,
        _ => full,
    };
    for l in lanes(lanes_of) {
        for (k, item) in items(&ins.dst[0]).iter().enumerate().take(8) {
            let Opnd::Reg(r) = item else { continue };
            p.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let flip = flip_bits(ctx, warp, l, k, mask);
            let at = *r as usize * 32 + l;
            fr.regs[at] = widen((fr.regs[at] ^ flip) & full, ty);
        }
    }
}

/// The bits a perturbed run flips in item `k` of lane `lane`'s value (within `mask`, never
/// none): drawn from where and when the run is, so that every value is flipped differently.
pub(super) fn flip_bits(ctx: &BlockCtx, warp: u32, lane: usize, k: usize, mask: u64) -> u64 {
    let key = (u64::from(ctx.linear) << 40)
        ^ (u64::from(warp) << 32)
        ^ ((lane as u64) << 24)
        ^ ((k as u64) << 20)
        ^ ctx.steps;
    (splitmix(key) & mask).max(1)
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn access(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
) -> Result<(), RunError> {
    let (space, ty, vec, store) = match ins.op {
        Op::Ld { space, ty, vec } => (space, ty, vec, false),
        Op::St { space, ty, vec } => (space, ty, vec, true),
        _ => return Ok(()),
    };
    let elem = (ty.bits / 8).max(1) as usize;
    let vals = if store { &ins.src[1] } else { &ins.dst[0] };
    let items = items(vals);
    if space == Space::Param
        && let Opnd::Addr(b, off) = &ins.src[0]
        && let Opnd::Imm(at) = **b
    {
        // A parameter at an offset every lane shares (a call's arguments and results):
        // each lane's copy in its own row of the frame's parameter area.
        let at = at.wrapping_add(*off as u64);
        for l in lanes(active) {
            for (k, item) in items.iter().enumerate().take(8) {
                let a = at + (k * elem) as u64;
                if store {
                    let v = fr.read(item, l, ctx, warp);
                    param(fr, l, a, elem, Some(v));
                } else {
                    let v = param(fr, l, a, elem, None);
                    fr.write(item, l, widen(v, ty));
                }
            }
        }
        return Ok(());
    }
    let row = address_row(fr, ctx, &ins.src[0], active, warp);
    let width = u32::from(vec) * elem as u32;
    if let Some(l) = misaligned(&row, active, u64::from(width)).filter(|_| space != Space::Param) {
        return Err(misaligned_error(
            ctx,
            ins,
            warp,
            (l, row[l]),
            u64::from(width),
        ));
    }
    let span = items.len().min(8) * elem;
    let address_only = ctx.sliced && ins.slice == Slice::AddressOnly;
    if let Some(one) = one_space(space) {
        // Every lane's address is in the one space the instruction names.
        ctx.flat_record(ins, warp, active, one, &row, width);
        if address_only && within_one(ctx, one, &row, active, span) {
            return Ok(());
        }
    }
    if space == Space::Local && ctx.tracing {
        let ats = super::lanes::ats(|l| At::Local(row[l]));
        ctx.access_record(ins, warp, active, &ats, width);
    }
    if !address_only && matches!(space, Space::Shared | Space::Local) {
        let offs = (&row, space == Space::Local);
        if in_place(fr, ctx, offs, active, (items, elem, store, ty), warp) {
            return Ok(());
        }
    }
    let ats: [At; 32] = super::lanes::ats(|l| at_of(space, row[l]));
    // The other spaces' requests were recorded above; parameters are not traced.
    if matches!(space, Space::Generic | Space::Constant | Space::Cluster) {
        ctx.access_record(ins, warp, active, &ats, width);
    }
    if address_only {
        // Its bytes feed nothing the trace holds: only where it went matters.
        for l in lanes(active) {
            for k in 0..items.len().min(8) {
                let at = plus(ats[l], (k * elem) as u64);
                let thread = warp as usize * 32 + l;
                if !matches!(at, At::Param(_)) {
                    (ctx.mem.check(at, elem, thread)).map_err(|e| oob(ctx, ins, warp, l, e))?;
                }
            }
        }
        return Ok(());
    }
    if space == Space::Generic
        && let Some(offs) = one_kind(&ats, active)
    {
        let offs = (&offs.0, offs.1);
        if in_place(fr, ctx, offs, active, (items, elem, store, ty), warp) {
            return Ok(());
        }
    }
    let mut loaded = [[0u64; 8]; 32];
    for l in lanes(active) {
        let thread = warp as usize * 32 + l;
        for (k, item) in items.iter().enumerate().take(8) {
            let at = plus(ats[l], (k * elem) as u64);
            if store {
                let v = fr.read(item, l, ctx, warp);
                match at {
                    At::Param(a) => drop(param(fr, l, a, elem, Some(v))),
                    at => ctx
                        .mem
                        .store(at, elem, thread, v)
                        .map_err(|e| oob(ctx, ins, warp, l, e))?,
                }
            } else {
                loaded[l][k] = match at {
                    At::Param(a) => param(fr, l, a, elem, None),
                    at => ctx
                        .mem
                        .load(at, elem, thread)
                        .map_err(|e| oob(ctx, ins, warp, l, e))?,
                };
            }
        }
    }
    if !store {
        for l in lanes(active) {
            for (k, item) in items.iter().enumerate().take(8) {
                fr.write(item, l, widen(loaded[l][k], ty));
            }
        }
    }
    Ok(())
}
