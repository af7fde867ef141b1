//! The data instructions of one warp step: arithmetic lane by lane, moves, conversions and
//! address windows, and the warp-wide `shfl`, `vote` and `activemask`.

use super::alu::{self, sext, trunc};
use super::block::BlockCtx;
use super::frame::Frame;
use super::lanes::lanes;
use super::mem::{At, resolve, window};
use super::operand::Opnd;
use super::ops::{Kind, Op, Prmt, Redux, Shfl, Space, Ty, Vote};
use super::program::Instr;
use super::{Halt, RunError};

/// The value `createpolicy` writes: a policy the interpreter's loads take and do nothing with.
const POLICY: u64 = 0x1ff1_0000_0000_0000;

/// Compute every active lane from its sources first, then write: a lane's result never
/// feeds another lane's sources in the same step.
fn lanewise(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
    f: impl Fn([u64; 4]) -> u64,
) {
    // Plain loops: this is the interpreter's innermost path.
    let mut out = [0u64; 32];
    let n = ins.src.len().min(4);
    let mut m = active;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let mut a = [0u64; 4];
        let mut k = 0;
        while k < n {
            a[k] = match &ins.src[k] {
                Opnd::Reg(r) => fr.regs[*r as usize * 32 + l],
                Opnd::Imm(v) => *v,
                o => fr.read(o, l, ctx, warp),
            };
            k += 1;
        }
        out[l] = f(a);
    }
    match ins.dst.first() {
        Some(Opnd::Reg(r)) => {
            let base = *r as usize * 32;
            let mut m = active;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                fr.regs[base + l] = out[l];
            }
        }
        Some(d) => {
            for l in lanes(active) {
                fr.write(d, l, out[l]);
            }
        }
        None => {}
    }
}

pub fn exec(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
    mask: u32,
) -> Result<(), RunError> {
    if super::fast::exec(fr, ins, active) {
        return Ok(());
    }
    // The exchanges between lanes (shuffles, reductions, votes, matches, and `mma.sync`,
    // whose lanes' results hold other lanes' operands) are logged as the GPU tracer logs
    // them: an event of the lanes taking part.
    let exchange = matches!(
        ins.op,
        Op::Shfl(_) | Op::Vote(_) | Op::Redux(..) | Op::MatchAny(_) | Op::Mma(_)
    );
    if exchange && active != 0 {
        ctx.barrier_record(ins, warp, active);
    }
    match ins.op {
        Op::Bin(b, ty) => lanewise(fr, ctx, ins, active, warp, |a| alu::bin(b, ty, a[0], a[1])),
        Op::Mad(b, ty) => lanewise(fr, ctx, ins, active, warp, |a| {
            alu::mad(b, ty, a[0], a[1], a[2])
        }),
        Op::Un(u, ty) => lanewise(fr, ctx, ins, active, warp, |a| alu::un(u, ty, a[0])),
        Op::Selp(ty) => lanewise(fr, ctx, ins, active, warp, |a| {
            trunc(if a[2] & 1 != 0 { a[0] } else { a[1] }, ty.bits)
        }),
        Op::Cvt { dst, src, rnd, sat } => lanewise(fr, ctx, ins, active, warp, |a| {
            alu::cvt(dst, src, rnd, sat, a[0])
        }),
        Op::Cvta { to, space } => {
            let w = window(space);
            lanewise(fr, ctx, ins, active, warp, |a| {
                if to {
                    a[0].wrapping_sub(w)
                } else {
                    a[0].wrapping_add(w)
                }
            })
        }
        Op::Isspacep(space) => lanewise(fr, ctx, ins, active, warp, |a| {
            u64::from(matches!(
                (resolve(a[0]), space),
                (At::Shared(_), Space::Shared)
                    | (At::Local(_), Space::Local)
                    | (At::Const(_), Space::Constant)
                    | (At::Global(_), Space::Global)
            ))
        }),
        Op::Bfe(ty) => lanewise(fr, ctx, ins, active, warp, |a| bfe(ty, a[0], a[1], a[2])),
        Op::Bfi(ty) => lanewise(fr, ctx, ins, active, warp, |a| {
            bfi(ty, a[0], a[1], a[2], a[3])
        }),
        Op::Lop3 => lanewise(fr, ctx, ins, active, warp, |a| lop3(a[0], a[1], a[2], a[3])),
        Op::Prmt(mode) => lanewise(fr, ctx, ins, active, warp, |a| prmt(mode, a[0], a[1], a[2])),
        Op::Setp { .. } => setp(fr, ctx, ins, active, warp),
        Op::Mov(ty) => mov(fr, ctx, ins, active, warp, ty),
        Op::Ld { .. } | Op::St { .. } => super::memop::load_store(fr, ctx, ins, active, warp)?,
        Op::Atom { .. } => super::atomics::atomic(fr, ctx, ins, active, warp)?,
        Op::MbarInit | Op::MbarArrive { .. } | Op::MbarWait { .. } | Op::BulkCopy => {
            super::mbarrier::step(fr, ctx, ins, (active, warp))?
        }
        Op::Shfl(m) => shfl(fr, ctx, ins, active, warp, mask, m)?,
        Op::LdMatrix { matrices, trans } => {
            super::matrix::ldmatrix(fr, ctx, ins, (active, warp), (matrices, trans))?
        }
        // Logged above; its result feeds nothing a trace-only run keeps.
        Op::Mma(_) if ctx.sliced && ins.slice == super::slice::Slice::AddressOnly => {}
        Op::Mma(ty) => super::matrix::mma(fr, ctx, ins, (active, warp), ty)?,
        Op::CvtBf16(c) => lanewise(fr, ctx, ins, active, warp, |a| {
            super::matrix::bf16_cvt(c, a[0], a[1])
        }),
        Op::Vote(v) => vote(fr, ctx, ins, active, warp, mask, v)?,
        Op::Redux(op, ty) => redux(fr, ctx, ins, (active, warp), op, ty)?,
        Op::MatchAny(ty) => match_any(fr, ctx, ins, (active, warp), ty)?,
        Op::Activemask => lanewise(fr, ctx, ins, active, warp, |_| u64::from(mask)),
        // What the policy says the L2 should keep is a GPU's cache's business; the value
        // only travels to the loads and stores that name it.
        Op::CreatePolicy => lanewise(fr, ctx, ins, active, warp, |_| POLICY),
        Op::Mapa { generic } => cluster_address(fr, ctx, ins, (active, warp), (true, generic)),
        Op::Getctarank { generic } => {
            cluster_address(fr, ctx, ins, (active, warp), (false, generic))
        }
        // `__syncwarp()`: the interpreter's warps run in lockstep, so it only logs the
        // event, which orders the lanes' shared accesses for the race analysis, with its
        // member mask as the GPU's logger logs it.
        Op::BarWarp if active != 0 => {
            let first = active.trailing_zeros() as usize;
            let members = (ins.src.first()).map_or(0, |m| fr.read(m, first, ctx, warp));
            ctx.numbered_barrier_record(ins, warp, active, members & 0xffff_ffff);
        }
        Op::Unmodelled if active != 0 => {
            let why = format!("`{}`: {}", ins.text, super::opcode::why_unmodelled(&ins.text));
            return Err(ctx.halt(ins.place, warp, (why, Halt::Unmodelled), active));
        }
        // A fence the tracer follows (its site): an event of the lanes that run it.
        Op::Fence if active != 0 => ctx.barrier_record(ins, warp, active),
        Op::BarWarp
        | Op::Fence
        | Op::Nop
        | Op::Unmodelled
        | Op::Bar
        | Op::BarArrive
        | Op::BarRed(_)
        | Op::Call
        | Op::Bra
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::ClusterArrive
        | Op::ClusterWait
        // Run by the warp, which holds the copies (`copies`).
        | Op::CpAsync { .. }
        | Op::CpCommit
        | Op::CpWait { .. } => {}
    }
    Ok(())
}

/// `mapa` and `getctarank`, on `shared::cluster` addresses or (with no space named) on
/// generic ones, which carry the same address in the shared window.
fn cluster_address(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    (mapa, generic): (bool, bool),
) {
    let own = ctx.rank;
    let base = if generic { window(Space::Shared) } else { 0 };
    lanewise(fr, ctx, ins, active, warp, |a| {
        let addr = a[0].wrapping_sub(base);
        match mapa {
            true => super::mem::mapa(addr, a[1]).wrapping_add(base),
            false => u64::from(super::mem::cluster_parts(addr, own).0),
        }
    })
}

fn bfe(ty: Ty, a: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    let bits = ty.bits;
    if len == 0 {
        return 0;
    }
    let field = if pos >= bits {
        0
    } else {
        trunc(a >> pos, len.min(bits))
    };
    // A field that starts past the input's top bit is all the sign bit (signed) or 0.
    if pos >= bits {
        let neg = ty.kind == Kind::S && a >> (bits - 1) & 1 != 0;
        return if neg { trunc(u64::MAX, bits) } else { 0 };
    }
    if ty.kind == Kind::S {
        let sign_at = (pos + len - 1).min(bits - 1);
        let neg = a >> sign_at & 1 != 0;
        let v = if pos + len <= bits {
            sext(field, len) as u64
        } else if neg {
            field | (u64::MAX << (bits - pos))
        } else {
            field
        };
        return trunc(v, bits);
    }
    field
}

fn bfi(ty: Ty, f: u64, b: u64, pos: u64, len: u64) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    if len == 0 || pos >= ty.bits {
        return b;
    }
    let m = trunc(trunc(u64::MAX, len.min(64)) << pos, ty.bits);
    trunc((b & !m) | ((f << pos) & m), ty.bits)
}

fn lop3(a: u64, b: u64, c: u64, lut: u64) -> u64 {
    (0..32).fold(0, |d, i| {
        let at = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        d | (lut >> at & 1) << i
    })
}

fn prmt(mode: Prmt, a: u64, b: u64, c: u64) -> u64 {
    let bytes = (a & 0xffff_ffff) | (b & 0xffff_ffff) << 32;
    let byte = |k: u64| bytes >> (8 * (k & 7)) & 0xff;
    let s = c & 3;
    (0..4u64).fold(0, |d, i| {
        let v = match mode {
            Prmt::General => {
                let sel = c >> (4 * i) & 0xf;
                match sel & 8 {
                    0 => byte(sel),
                    // The byte's sign, replicated.
                    _ => (byte(sel) >> 7) * 0xff,
                }
            }
            Prmt::F4e => byte(s + i),
            Prmt::B4e => byte(s.wrapping_sub(i)),
            Prmt::Rc8 => byte(s),
            Prmt::Ecl => byte(s.max(i)),
            Prmt::Ecr => byte(s.min(i)),
            Prmt::Rc16 => byte((s & 1) * 2 + (i & 1)),
        };
        d | v << (8 * i)
    })
}

fn setp(fr: &mut Frame, ctx: &BlockCtx, ins: &Instr, active: u32, warp: u32) {
    let Op::Setp { cmp, bool, ty } = ins.op else {
        return;
    };
    let mut p = 0u32;
    let mut q = 0u32;
    for l in lanes(active) {
        let a = fr.read(&ins.src[0], l, ctx, warp);
        let b = fr.read(&ins.src[1], l, ctx, warp);
        let r = alu::compare(cmp, ty, a, b);
        let c = ins
            .src
            .get(2)
            .is_none_or(|o| fr.read(o, l, ctx, warp) & 1 != 0);
        let combine = |x: bool| match bool {
            None => x,
            Some(super::ops::BoolOp::And) => x && c,
            Some(super::ops::BoolOp::Or) => x || c,
            Some(super::ops::BoolOp::Xor) => x ^ c,
        };
        p |= u32::from(combine(r)) << l;
        q |= u32::from(combine(!r)) << l;
    }
    for (d, m) in ins.dst.iter().zip([p, q]) {
        for l in lanes(active) {
            fr.write(d, l, u64::from(m >> l & 1));
        }
    }
}

/// `mov`, with vectors packed (`mov.b64 %rd, {%r1, %r2}`) or unpacked, low part first.
fn mov(fr: &mut Frame, ctx: &BlockCtx, ins: &Instr, active: u32, warp: u32, ty: Ty) {
    match (ins.dst.first(), ins.src.first()) {
        (Some(Opnd::Vec(parts)), Some(s)) => {
            let w = ty.bits / parts.len().max(1) as u32;
            for l in lanes(active) {
                let v = fr.read(s, l, ctx, warp);
                for (k, p) in parts.iter().enumerate() {
                    fr.write(p, l, trunc(v >> (w * k as u32), w));
                }
            }
        }
        (Some(d), Some(Opnd::Vec(parts))) => {
            let w = ty.bits / parts.len().max(1) as u32;
            for l in lanes(active) {
                let v = (parts.iter().enumerate()).fold(0u64, |acc, (k, p)| {
                    acc | trunc(fr.read(p, l, ctx, warp), w) << (w * k as u32)
                });
                fr.write(d, l, v);
            }
        }
        _ if ty.kind == Kind::Pred => lanewise(fr, ctx, ins, active, warp, |a| a[0] & 1),
        _ => lanewise(fr, ctx, ins, active, warp, |a| trunc(a[0], ty.bits)),
    }
}

/// The membermask of a warp-wide instruction must name exactly the lanes that run it.
fn check_members(
    ctx: &BlockCtx,
    ins: &Instr,
    warp: u32,
    active: u32,
    member: u32,
) -> Result<(), RunError> {
    let missing = member & ctx.live & !active;
    if active & !member != 0 || missing != 0 {
        let why = format!(
            "bad membermask in `{}`: it names lanes {member:#010x}, but lanes {active:#010x} run it{}",
            ins.text,
            if missing != 0 {
                " (the others took another path: they would never arrive)"
            } else {
                ""
            }
        );
        return Err(ctx.error(ins.place, warp, why, active ^ member));
    }
    Ok(())
}

fn shfl(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
    _mask: u32,
    m: Shfl,
) -> Result<(), RunError> {
    let first = active.trailing_zeros() as usize;
    let member = ins
        .src
        .get(3)
        .map_or(u32::MAX, |o| fr.read(o, first, ctx, warp) as u32);
    check_members(ctx, ins, warp, active, member)?;
    let mut out = [(0u64, false); 32];
    for l in lanes(active) {
        let b = fr.read(&ins.src[1], l, ctx, warp) as i64 & 31;
        let c = fr.read(&ins.src[2], l, ctx, warp) as i64;
        let seg = (c >> 8) & 31;
        let cval = c & 31;
        let lane = l as i64;
        let max = (lane & seg) | (cval & !seg);
        let min = lane & seg;
        let (j, ok) = match m {
            Shfl::Up => (lane - b, lane - b >= max),
            Shfl::Down => (lane + b, lane + b <= max),
            Shfl::Bfly => (lane ^ b, (lane ^ b) <= max),
            Shfl::Idx => (min | (b & !seg), (min | (b & !seg)) <= max),
        };
        let j = if ok { j as usize } else { l };
        // A source lane outside the member mask (one that exited, or was left out) gives
        // an undefined value on a GPU: the interpreter's lockstep copy of it would make a
        // kernel right that a GPU need not be. Bits drawn from where the read is stand for
        // it: a kernel that uses them is wrong here too, one that throws them away (a
        // tree over the live lanes that reads past them and keeps nothing) is right.
        out[l] = if member >> j & 1 == 0 {
            (
                super::memop::flip_bits(ctx, warp, l, j, u64::from(u32::MAX)),
                ok,
            )
        } else {
            (fr.read(&ins.src[0], j, ctx, warp), ok)
        };
    }
    for l in lanes(active) {
        fr.write(&ins.dst[0], l, trunc(out[l].0, 32));
        if let Some(p) = ins.dst.get(1) {
            fr.write(p, l, u64::from(out[l].1));
        }
    }
    Ok(())
}

/// `match.any.sync.b32/b64 d, a, membermask`: each active lane gets the mask of the active
/// lanes whose `a` equals its own (the peers a warp-aggregated atomic adds for).
fn match_any(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    ty: Ty,
) -> Result<(), RunError> {
    let first = active.trailing_zeros() as usize;
    let member = (ins.src.get(1)).map_or(u32::MAX, |o| fr.read(o, first, ctx, warp) as u32);
    check_members(ctx, ins, warp, active, member)?;
    let mut vals = [0u64; 32];
    for l in lanes(active) {
        vals[l] = trunc(fr.read(&ins.src[0], l, ctx, warp), ty.bits);
    }
    for l in lanes(active) {
        let peers = lanes(active)
            .filter(|&k| vals[k] == vals[l])
            .fold(0u32, |m, k| m | 1 << k);
        fr.write(&ins.dst[0], l, u64::from(peers));
    }
    Ok(())
}

/// `redux.sync.op.type d, a, membermask`: every active lane gets `op` folded over the active
/// lanes' `a` (32-bit integers: `add` wraps, `min`/`max` by the type's sign).
fn redux(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    op: Redux,
    ty: Ty,
) -> Result<(), RunError> {
    let first = active.trailing_zeros() as usize;
    let member = (ins.src.get(1)).map_or(u32::MAX, |o| fr.read(o, first, ctx, warp) as u32);
    check_members(ctx, ins, warp, active, member)?;
    let signed = ty.kind == Kind::S;
    let vals = lanes(active).map(|l| fr.read(&ins.src[0], l, ctx, warp) as u32);
    let folded = vals
        .reduce(|a, b| match op {
            Redux::Add => a.wrapping_add(b),
            Redux::Min if signed => (a as i32).min(b as i32) as u32,
            Redux::Max if signed => (a as i32).max(b as i32) as u32,
            Redux::Min => a.min(b),
            Redux::Max => a.max(b),
            Redux::And => a & b,
            Redux::Or => a | b,
            Redux::Xor => a ^ b,
        })
        .unwrap_or(0);
    for l in lanes(active) {
        fr.write(&ins.dst[0], l, u64::from(folded));
    }
    Ok(())
}

fn vote(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    active: u32,
    warp: u32,
    _mask: u32,
    v: Vote,
) -> Result<(), RunError> {
    if ins.text.contains(".sync") {
        let first = active.trailing_zeros() as usize;
        let member = ins
            .src
            .get(1)
            .map_or(u32::MAX, |o| fr.read(o, first, ctx, warp) as u32);
        check_members(ctx, ins, warp, active, member)?;
    }
    let p = fr.pred_mask(&ins.src[0]) & active;
    let r = match v {
        Vote::Ballot => u64::from(p),
        Vote::All => u64::from(p == active),
        Vote::Any => u64::from(p != 0),
        Vote::Uni => u64::from(p == 0 || p == active),
    };
    for l in lanes(active) {
        fr.write(&ins.dst[0], l, r);
    }
    Ok(())
}
