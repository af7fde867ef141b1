//! The commonest data instructions over a whole warp at once: integer index arithmetic,
//! `f32` adds, multiplies and `fma`, moves and comparisons whose operands are registers or
//! immediates. The operands are gathered as 32-lane rows and the operation runs as one
//! loop the compiler can vectorise, instead of decoding the instruction once per lane (the
//! interpreter's cost on index-heavy loops). Every lane is computed, the inactive ones
//! too (the operations here cannot fault), and only the active lanes are written. Anything
//! else returns `false` and takes the lane-by-lane path in `exec`.

use super::alu::{sext, trunc};
use super::frame::Frame;
use super::lanes::{Row, row};
use super::operand::Opnd;
use super::ops::{Bin, Cmp, Kind, Op, Ty};
use super::program::Instr;

fn gather(fr: &Frame, o: &Opnd, out: &mut Row) -> bool {
    match o {
        Opnd::Reg(r) => {
            let at = *r as usize * 32;
            out.copy_from_slice(&fr.regs[at..at + 32]);
            true
        }
        Opnd::Imm(v) => {
            out.fill(*v);
            true
        }
        _ => false,
    }
}

fn put(fr: &mut Frame, r: u32, active: u32, row: &Row) {
    let at = r as usize * 32;
    let dst = &mut fr.regs[at..at + 32];
    if active == u32::MAX {
        dst.copy_from_slice(row);
        return;
    }
    let mut m = active;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        dst[l] = row[l];
    }
}

/// `f` over the lanes, the result in place of `a` (returning a fresh row was a copy of it
/// per instruction).
#[inline(always)]
fn map2(a: &mut Row, b: &Row, f: impl Fn(u64, u64) -> u64) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = f(*x, y);
    }
}

#[inline(always)]
fn map3(a: &mut Row, b: &Row, c: &Row, f: impl Fn(u64, u64, u64) -> u64) {
    for ((x, &y), &z) in a.iter_mut().zip(b).zip(c) {
        *x = f(*x, y, z);
    }
}

fn f32s(f: impl Fn(f32, f32) -> f32) -> impl Fn(u64, u64) -> u64 {
    move |x, y| u64::from(f(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits())
}

fn int(ty: Ty) -> bool {
    matches!(ty.kind, Kind::U | Kind::S | Kind::B) && matches!(ty.bits, 32 | 64)
}

/// Two-operand integer and `f32` operations this path takes.
fn binary(b: Bin, ty: Ty, x: &mut Row, y: &Row) -> bool {
    let bits = ty.bits;
    let signed = ty.kind == Kind::S;
    match (b, ty.kind) {
        (Bin::Add, Kind::F) if bits == 32 => map2(x, y, f32s(|a, b| a + b)),
        (Bin::Sub, Kind::F) if bits == 32 => map2(x, y, f32s(|a, b| a - b)),
        (Bin::MulLo, Kind::F) if bits == 32 => map2(x, y, f32s(|a, b| a * b)),
        (_, Kind::F) => return false,
        _ if !int(ty) => return false,
        (Bin::Add, _) => map2(x, y, |a, b| trunc(a.wrapping_add(b), bits)),
        (Bin::Sub, _) => map2(x, y, |a, b| trunc(a.wrapping_sub(b), bits)),
        (Bin::MulLo, _) => map2(x, y, |a, b| trunc(a.wrapping_mul(b), bits)),
        (Bin::MulWide, _) if bits == 32 && signed => {
            map2(x, y, |a, b| (sext(a, 32).wrapping_mul(sext(b, 32))) as u64)
        }
        (Bin::MulWide, _) if bits == 32 => map2(x, y, |a, b| trunc(a, 32) * trunc(b, 32)),
        (Bin::And, _) => map2(x, y, |a, b| trunc(a & b, bits)),
        (Bin::Or, _) => map2(x, y, |a, b| trunc(a | b, bits)),
        (Bin::Xor, _) => map2(x, y, |a, b| trunc(a ^ b, bits)),
        (Bin::Shl, _) => map2(x, y, |a, s| {
            if s < u64::from(bits) {
                trunc(a << s, bits)
            } else {
                0
            }
        }),
        (Bin::Shr, _) if !signed => map2(x, y, |a, s| {
            if s < u64::from(bits) {
                trunc(a, bits) >> s
            } else {
                0
            }
        }),
        (Bin::Shr, _) => map2(x, y, |a, s| {
            trunc((sext(a, bits) >> trunc(s, 32).min(63)) as u64, bits)
        }),
        (Bin::Min, _) if signed => map2(x, y, |a, b| {
            trunc(sext(a, bits).min(sext(b, bits)) as u64, bits)
        }),
        (Bin::Max, _) if signed => map2(x, y, |a, b| {
            trunc(sext(a, bits).max(sext(b, bits)) as u64, bits)
        }),
        (Bin::Min, _) => map2(x, y, |a, b| trunc(a, bits).min(trunc(b, bits))),
        (Bin::Max, _) => map2(x, y, |a, b| trunc(a, bits).max(trunc(b, bits))),
        _ => return false,
    }
    true
}

fn fma_row(x: &mut Row, y: &Row, z: &Row) {
    map3(x, y, z, |a, b, c| {
        let g = |v: u64| f32::from_bits(v as u32);
        u64::from(g(a).mul_add(g(b), g(c)).to_bits())
    })
}

/// `fma_row` with the processor's fused multiply-add, where it has one.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
fn fma_row_fused(x: &mut Row, y: &Row, z: &Row) {
    fma_row(x, y, z)
}

/// `fma.rn.f32` over a row: one rounding, as the GPU's. The portable build of x86-64 has no
/// FMA instruction and calls a library routine per lane, so the fused build is chosen at run
/// time where the processor has it (the same results: both round once).
fn fma_f32(x: &mut Row, y: &Row, z: &Row) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("fma") {
        // SAFETY: the processor has the feature the function is built for.
        return unsafe { fma_row_fused(x, y, z) };
    }
    fma_row(x, y, z)
}

/// `mad.lo`, `mad.wide` on 32-bit integers and `fma.rn.f32`.
fn mad(b: Bin, ty: Ty, x: &mut Row, y: &Row, z: &Row) -> bool {
    let bits = ty.bits;
    match (b, ty.kind) {
        (_, Kind::F) if bits == 32 => fma_f32(x, y, z),
        (_, Kind::F) => return false,
        _ if !int(ty) => return false,
        (Bin::MulLo, _) => map3(x, y, z, |a, b, c| {
            trunc(a.wrapping_mul(b).wrapping_add(c), bits)
        }),
        (Bin::MulWide, Kind::S) if bits == 32 => map3(x, y, z, |a, b, c| {
            (sext(a, 32).wrapping_mul(sext(b, 32)) as u64).wrapping_add(c)
        }),
        (Bin::MulWide, _) if bits == 32 => map3(x, y, z, |a, b, c| {
            (trunc(a, 32) * trunc(b, 32)).wrapping_add(c)
        }),
        _ => return false,
    }
    true
}

/// Integer comparisons into a predicate mask.
fn compare(c: Cmp, ty: Ty, x: &Row, y: &Row) -> Option<u32> {
    if !int(ty) {
        return None;
    }
    let bits = ty.bits;
    let key = |v: u64| -> i128 {
        if ty.kind == Kind::S {
            i128::from(sext(v, bits))
        } else {
            i128::from(trunc(v, bits))
        }
    };
    let test: fn(i128, i128) -> bool = match c {
        Cmp::Eq => |a, b| a == b,
        Cmp::Ne => |a, b| a != b,
        Cmp::Lt => |a, b| a < b,
        Cmp::Le => |a, b| a <= b,
        Cmp::Gt => |a, b| a > b,
        Cmp::Ge => |a, b| a >= b,
        _ => return None,
    };
    let mut m = 0u32;
    for l in 0..32 {
        m |= u32::from(test(key(x[l]), key(y[l]))) << l;
    }
    Some(m)
}

/// Run `ins` over the warp if this path takes it.
pub fn exec(fr: &mut Frame, ins: &Instr, active: u32) -> bool {
    let (mut a, mut b, mut c) = ([0u64; 32], [0u64; 32], [0u64; 32]);
    match (ins.op, ins.dst.as_slice(), ins.src.as_slice()) {
        (Op::Bin(op, ty), [Opnd::Reg(d)], [x, y]) => {
            if !(gather(fr, x, &mut a) && gather(fr, y, &mut b)) {
                return false;
            }
            if !binary(op, ty, &mut a, &b) {
                return false;
            }
            put(fr, *d, active, &a);
        }
        (Op::Mad(op, ty), [Opnd::Reg(d)], [x, y, z]) => {
            if !(gather(fr, x, &mut a) && gather(fr, y, &mut b) && gather(fr, z, &mut c)) {
                return false;
            }
            if !mad(op, ty, &mut a, &b, &c) {
                return false;
            }
            put(fr, *d, active, &a);
        }
        (Op::Mov(ty), [Opnd::Reg(d)], [x]) if ty.kind != Kind::Pred => {
            if !gather(fr, x, &mut a) {
                return false;
            }
            let bits = ty.bits;
            let r = row(|l| trunc(a[l], bits));
            put(fr, *d, active, &r);
        }
        (
            Op::Cvt {
                dst,
                src,
                sat: false,
                ..
            },
            [Opnd::Reg(d)],
            [x],
        ) if int(dst) && matches!(src.kind, Kind::U | Kind::S | Kind::B) => {
            if !gather(fr, x, &mut a) {
                return false;
            }
            let (sb, db, signed) = (src.bits, dst.bits, src.kind == Kind::S);
            let r = row(|l| match signed {
                true => trunc(sext(a[l], sb) as u64, db),
                false => trunc(trunc(a[l], sb), db),
            });
            put(fr, *d, active, &r);
        }
        (
            Op::Setp {
                cmp,
                bool: None,
                ty,
            },
            [Opnd::Pred(p, false)],
            [x, y],
        ) => {
            if !(gather(fr, x, &mut a) && gather(fr, y, &mut b)) {
                return false;
            }
            let Some(m) = compare(cmp, ty, &a, &b) else {
                return false;
            };
            let have = &mut fr.preds[*p as usize];
            *have = (*have & !active) | (m & active);
        }
        _ => return false,
    }
    true
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
