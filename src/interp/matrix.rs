//! The tensor cores' warp-wide instructions: `ldmatrix` (8x8 matrices of 16-bit elements
//! from shared memory, each lane a share of each) and `mma.sync` (m16n8k16, 16-bit inputs,
//! f32 accumulators), with the fragment layouts of the PTX ISA. The whole warp takes part in
//! both (`.sync.aligned`); a warp that reaches one with some lanes idle is an error, as its
//! result on a GPU is undefined.

use super::RunError;
use super::block::BlockCtx;
use super::frame::Frame;
use super::mem::At;
use super::memop::{misaligned, misaligned_error, oob};
use super::operand::Opnd;
use super::ops::{Bf16Cvt, Narrow, Space};
use super::program::Instr;
use super::slice::Slice;

fn items(o: &Opnd) -> &[Opnd] {
    match o {
        Opnd::Vec(v) => v,
        o => std::slice::from_ref(o),
    }
}

fn whole_warp(ctx: &BlockCtx, ins: &Instr, active: u32, warp: u32) -> Result<(), RunError> {
    if active == u32::MAX {
        return Ok(());
    }
    let why = format!(
        "`{}` with lanes {:#010x} of the warp: every lane must take part (.sync.aligned), \
         or the result is undefined",
        ins.text, active
    );
    Err(ctx.halt(ins.place, warp, (why, super::Halt::Stopped), !active))
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {d..}, [addr]`: matrix `i`'s
/// rows are at the addresses lanes 8i..8i+7 name, 16 bytes each; lane `t` gets, in its
/// register `i`, row t/4's elements 2(t%4) and 2(t%4)+1 (`.trans`: column t/4's elements of
/// rows 2(t%4) and 2(t%4)+1), the first in the low half.
pub fn ldmatrix(
    fr: &mut Frame,
    ctx: &mut BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    (matrices, trans): (u8, bool),
) -> Result<(), RunError> {
    whole_warp(ctx, ins, active, warp)?;
    let rows = 8 * usize::from(matrices);
    let named = if rows == 32 {
        u32::MAX
    } else {
        (1u32 << rows) - 1
    };
    let mut addrs = [0u64; 32];
    for (l, a) in addrs.iter_mut().enumerate().take(rows) {
        *a = fr.read(&ins.src[0], l, ctx, warp);
    }
    if let Some(l) = misaligned(&addrs, named, 16) {
        return Err(misaligned_error(ctx, ins, warp, (l, addrs[l]), 16));
    }
    ctx.flat_record(ins, warp, named, Space::Shared, &addrs, 16);
    if ctx.sliced && ins.slice == Slice::AddressOnly {
        for (l, &a) in addrs.iter().enumerate().take(rows) {
            (ctx.mem.check(At::Shared(a), 16, warp as usize * 32 + l))
                .map_err(|e| oob(ctx, ins, warp, l, e))?;
        }
        return Ok(());
    }
    // Each row's eight elements, as the lane that names it reads them.
    let mut m = [[0u16; 8]; 32];
    for (l, row) in m.iter_mut().enumerate().take(rows) {
        for (k, e) in row.iter_mut().enumerate() {
            let at = At::Shared(addrs[l] + 2 * k as u64);
            *e = (ctx.mem.load(at, 2, warp as usize * 32 + l))
                .map_err(|e| oob(ctx, ins, warp, l, e))? as u16;
        }
    }
    let dst = items(&ins.dst[0]);
    for (i, d) in dst.iter().enumerate().take(usize::from(matrices)) {
        let mat = &m[8 * i..8 * i + 8];
        for t in 0..32 {
            let (lo, hi) = match trans {
                false => (mat[t / 4][2 * (t % 4)], mat[t / 4][2 * (t % 4) + 1]),
                true => (mat[2 * (t % 4)][t / 4], mat[2 * (t % 4) + 1][t / 4]),
            };
            fr.write(d, t, u64::from(lo) | u64::from(hi) << 16);
        }
    }
    Ok(())
}

/// f32 bits to bf16 bits, rounded to the nearest even, as `cvt.rn.bf16.f32` does; a NaN
/// becomes the canonical one.
pub fn bf16_rne(bits: u32) -> u16 {
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return 0x7fff;
    }
    let lsb = (bits >> 16) & 1;
    (bits.wrapping_add(0x7fff + lsb) >> 16) as u16
}

/// One of the bf16 conversions on a lane's operands `a` (and `b`, the pair's lower half).
pub fn bf16_cvt(c: Bf16Cvt, a: u64, b: u64) -> u64 {
    match c {
        Bf16Cvt::Narrow => u64::from(bf16_rne(a as u32)),
        Bf16Cvt::Pair => u64::from(bf16_rne(a as u32)) << 16 | u64::from(bf16_rne(b as u32)),
        Bf16Cvt::Widen => (a & 0xffff) << 16,
    }
}

/// A 16-bit float's value.
fn widen(bits: u16, ty: Narrow) -> f32 {
    match ty {
        Narrow::Bf16 => f32::from_bits(u32::from(bits) << 16),
        Narrow::F16 => half(bits),
    }
}

/// IEEE half precision to f32, exactly (every half is an f32).
fn half(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from(h >> 10 & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 if frac == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32 {d0..d3}, {a0..a3},
/// {b0,b1}, {c0..c3}`: D = A B + C, A 16x16 (row-major fragments), B 16x8 (column-major),
/// C and D 16x8 of f32. Lane `t` (group g = t/4, thread q = t%4) holds A's (g, 2q..2q+1) in
/// a0, (g+8, 2q..) in a1, (g, 2q+8..) in a2, (g+8, 2q+8..) in a3; B's (2q..2q+1, g) in b0 and
/// (2q+8.., g) in b1; C's and D's (g, 2q..2q+1) in c0, c1 and (g+8, 2q..) in c2, c3. The
/// products are exact in f32 and summed in f32 in k order: the tensor cores' own order and
/// rounding may differ in the last bits, which a lesson's tolerance covers.
pub fn mma(
    fr: &mut Frame,
    ctx: &BlockCtx,
    ins: &Instr,
    (active, warp): (u32, u32),
    ty: Narrow,
) -> Result<(), RunError> {
    whole_warp(ctx, ins, active, warp)?;
    let (a_ops, b_ops, c_ops) = (items(&ins.src[0]), items(&ins.src[1]), items(&ins.src[2]));
    let d_ops = items(&ins.dst[0]);
    if a_ops.len() != 4 || b_ops.len() != 2 || c_ops.len() != 4 || d_ops.len() != 4 {
        let why = format!("`{}`: m16n8k16 takes 4, 2 and 4 registers", ins.text);
        return Err(ctx.halt(ins.place, warp, (why, super::Halt::Stopped), active));
    }
    let (mut a, mut b, mut c) = ([[0f32; 16]; 16], [[0f32; 8]; 16], [[0f32; 8]; 16]);
    for t in 0..32 {
        let (g, q) = (t / 4, t % 4);
        let pair = |o: &Opnd| {
            let v = fr.read(o, t, ctx, warp);
            (widen(v as u16, ty), widen((v >> 16) as u16, ty))
        };
        for (k, (r, col)) in [
            (g, 2 * q),
            (g + 8, 2 * q),
            (g, 2 * q + 8),
            (g + 8, 2 * q + 8),
        ]
        .into_iter()
        .enumerate()
        {
            (a[r][col], a[r][col + 1]) = pair(&a_ops[k]);
        }
        for (k, row) in [2 * q, 2 * q + 8].into_iter().enumerate() {
            (b[row][g], b[row + 1][g]) = pair(&b_ops[k]);
        }
        for (k, (r, col)) in c_slots(t).into_iter().enumerate() {
            c[r][col] = f32::from_bits(fr.read(&c_ops[k], t, ctx, warp) as u32);
        }
    }
    for t in 0..32 {
        for (k, (r, col)) in c_slots(t).into_iter().enumerate() {
            let mut acc = c[r][col];
            for (kk, brow) in b.iter().enumerate() {
                acc += a[r][kk] * brow[col];
            }
            fr.write(&d_ops[k], t, u64::from(acc.to_bits()));
        }
    }
    Ok(())
}

/// The elements of C and D lane `t` holds in its four registers, as (row, column).
fn c_slots(t: usize) -> [(usize, usize); 4] {
    let (g, q) = (t / 4, t % 4);
    [
        (g, 2 * q),
        (g, 2 * q + 1),
        (g + 8, 2 * q),
        (g + 8, 2 * q + 1),
    ]
}

#[cfg(test)]
mod tests {
    use super::{bf16_rne, half};

    #[test]
    fn f32_rounds_to_the_nearest_even_bf16() {
        assert_eq!(bf16_rne(1.0f32.to_bits()), 0x3f80);
        // Halfway: down to the even 0x3f80, up to the even 0x3f82.
        assert_eq!(bf16_rne(0x3f80_8000), 0x3f80);
        assert_eq!(bf16_rne(0x3f81_8000), 0x3f82);
        assert_eq!(bf16_rne(0x3f80_8001), 0x3f81);
        assert_eq!(bf16_rne(0xbf80_7fff), 0xbf80);
        // The largest float rounds past bf16's largest, to infinity; NaN stays NaN.
        assert_eq!(bf16_rne(f32::MAX.to_bits()), 0x7f80);
        assert_eq!(bf16_rne(f32::NAN.to_bits()), 0x7fff);
    }

    #[test]
    fn a_half_reads_as_the_float_it_is() {
        assert_eq!(half(0x3c00), 1.0);
        assert_eq!(half(0xc000), -2.0);
        assert_eq!(half(0x3555), 0.333_251_95);
        assert_eq!(half(0x0001), 2f32.powi(-24));
        assert_eq!(half(0x7c00), f32::INFINITY);
        assert!(half(0x7e00).is_nan());
    }
}
