//! What one lane's arithmetic does, on register bits: integers wrap at their width, floats
//! round to nearest as PTX's default `.rn`, `fma` is fused. The functions PTX has only as
//! `.approx` on f32 (`sin`, `cos`, `ex2`, `lg2`, `rsqrt`) are computed and then moved one
//! unit in the last place, up or down by a hash of the argument (`inexact`), unless a float
//! holds the result exactly: PTX gives them error bounds, not bit patterns, so outputs are
//! compared with the lesson's tolerance, and a GPU's are almost never the rounded exact
//! value. Exact ones would tell a kernel it runs here (a spin of sines compared with the
//! exact results, the taught path taken only then).

use super::ops::{Bin, Cmp, Kind, Rnd, Ty, Un};

pub fn trunc(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

fn f(v: u64, ty: Ty) -> f64 {
    if ty.bits == 32 {
        f32::from_bits(v as u32) as f64
    } else {
        f64::from_bits(v)
    }
}

fn unf(x: f64, ty: Ty) -> u64 {
    if ty.bits == 32 {
        u64::from((x as f32).to_bits())
    } else {
        x.to_bits()
    }
}

/// An `.approx` result: `r` moved one unit in the last place, away from zero or towards it
/// by a hash of the argument's bits; zeros, infinities, NaNs and the smallest and largest
/// magnitudes are left as they are.
fn inexact(r: f32, arg: u32) -> u64 {
    let b = r.to_bits();
    let mag = b & 0x7fff_ffff;
    let up = arg.wrapping_mul(0x9e37_79b9) >> 31 == 1;
    let moved = match (up, mag) {
        (_, 0) | (_, 0x7f80_0000..) => b,
        (true, m) if m < 0x7f7f_ffff => b + 1,
        (false, m) if m > 1 => b - 1,
        _ => b,
    };
    u64::from(moved)
}

fn f32op(a: u64, b: u64, op: impl Fn(f32, f32) -> f32) -> u64 {
    u64::from(op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits())
}

fn float_bin(b: Bin, ty: Ty, x: u64, y: u64) -> u64 {
    if ty.bits == 32 {
        // f32 arithmetic in f32, so that every step rounds as the GPU's does.
        return match b {
            Bin::Add => f32op(x, y, |a, b| a + b),
            Bin::Sub => f32op(x, y, |a, b| a - b),
            Bin::MulLo | Bin::MulWide | Bin::MulHi => f32op(x, y, |a, b| a * b),
            Bin::Div => f32op(x, y, |a, b| a / b),
            Bin::Min => f32op(x, y, f32::min),
            Bin::Max => f32op(x, y, f32::max),
            Bin::Copysign => f32op(x, y, |a, b| b.copysign(a)),
            _ => trunc(
                int_bin(
                    b,
                    Ty {
                        kind: Kind::B,
                        bits: 32,
                    },
                    x,
                    y,
                ),
                32,
            ),
        };
    }
    let (a, c) = (f(x, ty), f(y, ty));
    let r = match b {
        Bin::Add => a + c,
        Bin::Sub => a - c,
        Bin::MulLo | Bin::MulWide | Bin::MulHi => a * c,
        Bin::Div => a / c,
        Bin::Min => a.min(c),
        Bin::Max => a.max(c),
        Bin::Copysign => c.copysign(a),
        _ => {
            return int_bin(
                b,
                Ty {
                    kind: Kind::B,
                    bits: 64,
                },
                x,
                y,
            );
        }
    };
    unf(r, ty)
}

/// The least and the greatest signed value of `bits` bits.
fn min_of(bits: u32) -> i64 {
    i64::MIN >> (64 - bits.clamp(1, 64))
}

fn max_of(bits: u32) -> i64 {
    i64::MAX >> (64 - bits.clamp(1, 64))
}

fn int_bin(b: Bin, ty: Ty, x: u64, y: u64) -> u64 {
    let bits = ty.bits;
    let signed = ty.kind == Kind::S;
    let (sx, sy) = (sext(x, bits), sext(y, bits));
    let (ux, uy) = (trunc(x, bits), trunc(y, bits));
    let r = match b {
        Bin::Add => ux.wrapping_add(uy),
        Bin::Sub => ux.wrapping_sub(uy),
        Bin::MulLo => ux.wrapping_mul(uy),
        Bin::MulWide if signed => (sx as i128 * sy as i128) as u64,
        Bin::MulWide => (ux as u128 * uy as u128) as u64,
        Bin::MulHi if signed => ((sx as i128 * sy as i128) >> bits) as u64,
        Bin::MulHi => ((ux as u128 * uy as u128) >> bits) as u64,
        Bin::Mul24Lo | Bin::Mul24Hi => {
            let p = match signed {
                true => (sext(x, 24) * sext(y, 24)) as u64,
                false => trunc(x, 24) * trunc(y, 24),
            };
            match b {
                Bin::Mul24Hi => p >> 16,
                _ => p,
            }
        }
        Bin::AddSat => (sx.saturating_add(sy)).clamp(min_of(bits), max_of(bits)) as u64,
        Bin::SubSat => (sx.saturating_sub(sy)).clamp(min_of(bits), max_of(bits)) as u64,
        Bin::Div if uy == 0 => trunc(u64::MAX, bits),
        Bin::Rem if uy == 0 => ux,
        Bin::Div if signed => sx.wrapping_div(sy) as u64,
        Bin::Div => ux / uy,
        Bin::Rem if signed => sx.wrapping_rem(sy) as u64,
        Bin::Rem => ux % uy,
        Bin::Min if signed => sx.min(sy) as u64,
        Bin::Min => ux.min(uy),
        Bin::Max if signed => sx.max(sy) as u64,
        Bin::Max => ux.max(uy),
        Bin::And => ux & uy,
        Bin::Or => ux | uy,
        Bin::Xor => ux ^ uy,
        Bin::Shl => ux
            .checked_shl(trunc(y, 32) as u32)
            .filter(|_| y < u64::from(bits))
            .unwrap_or(0),
        Bin::Shr if signed => (sx >> trunc(y, 32).min(63)) as u64,
        Bin::Shr if y >= u64::from(bits) => 0,
        Bin::Shr => ux >> y,
        Bin::Copysign => ux,
    };
    if b == Bin::MulWide {
        trunc(r, (bits * 2).min(64))
    } else {
        trunc(r, bits)
    }
}

pub fn bin(b: Bin, ty: Ty, x: u64, y: u64) -> u64 {
    match ty.kind {
        Kind::F => float_bin(b, ty, x, y),
        Kind::Pred => u64::from(int_bin(b, ty, x, y) & 1 != 0),
        _ => int_bin(b, ty, x, y),
    }
}

/// a * b + c: `fma`/`mad` on floats is one rounding.
pub fn mad(b: Bin, ty: Ty, x: u64, y: u64, z: u64) -> u64 {
    if ty.kind == Kind::F {
        return if ty.bits == 32 {
            let g = |v: u64| f32::from_bits(v as u32);
            u64::from(g(x).mul_add(g(y), g(z)).to_bits())
        } else {
            f64::from_bits(x)
                .mul_add(f64::from_bits(y), f64::from_bits(z))
                .to_bits()
        };
    }
    let p = int_bin(b, ty, x, y);
    let bits = if b == Bin::MulWide {
        (ty.bits * 2).min(64)
    } else {
        ty.bits
    };
    trunc(p.wrapping_add(z), bits)
}

pub fn un(u: Un, ty: Ty, x: u64) -> u64 {
    let bits = ty.bits;
    if ty.kind == Kind::F {
        let a = f(x, ty);
        let r = match u {
            Un::Ex2 | Un::Lg2 | Un::Sin | Un::Cos | Un::Rsqrt if bits == 32 => {
                let exact = match u {
                    Un::Ex2 => a.exp2(),
                    Un::Lg2 => a.log2(),
                    Un::Sin => a.sin(),
                    Un::Cos => a.cos(),
                    _ => 1.0 / a.sqrt(),
                };
                // A result a float holds exactly (2^3, lg2 of 8, cos 0) is a GPU's too.
                if f64::from(exact as f32) == exact {
                    return unf(exact, ty);
                }
                return inexact(exact as f32, x as u32);
            }
            Un::Neg => -a,
            Un::Abs => a.abs(),
            Un::Sqrt => a.sqrt(),
            Un::Rcp => 1.0 / a,
            Un::Rsqrt => 1.0 / a.sqrt(),
            Un::Ex2 => a.exp2(),
            Un::Lg2 => a.log2(),
            Un::Sin => a.sin(),
            Un::Cos => a.cos(),
            _ => {
                return un(
                    u,
                    Ty {
                        kind: Kind::B,
                        bits,
                    },
                    x,
                );
            }
        };
        return unf(r, ty);
    }
    let v = trunc(x, bits);
    let r = match u {
        Un::Not if ty.kind == Kind::Pred => u64::from(v == 0),
        Un::Not => !v,
        Un::Neg => (sext(v, bits).wrapping_neg()) as u64,
        Un::Abs => sext(v, bits).unsigned_abs(),
        Un::Popc => u64::from(v.count_ones()),
        Un::Clz => u64::from(v.leading_zeros() - (64 - bits)),
        Un::Brev => v.reverse_bits() >> (64 - bits),
        Un::Bfind | Un::BfindShift => {
            // A negative signed value's most significant non-sign bit is its complement's.
            let x = match ty.kind == Kind::S && sext(v, bits) < 0 {
                true => trunc(!v, bits),
                false => v,
            };
            // The result is a .u32 whatever the operand's width: all ones when no bit is
            // found.
            return match (x, u) {
                (0, _) => u64::from(u32::MAX),
                (x, Un::Bfind) => u64::from(63 - x.leading_zeros()),
                (x, _) => u64::from(bits - 1 - (63 - x.leading_zeros())),
            };
        }
        Un::Cnot => u64::from(v == 0),
        _ => v,
    };
    trunc(r, bits)
}

pub fn compare(c: Cmp, ty: Ty, x: u64, y: u64) -> bool {
    use std::cmp::Ordering::*;
    let ord = match ty.kind {
        Kind::F => f(x, ty).partial_cmp(&f(y, ty)),
        Kind::S => Some(sext(x, ty.bits).cmp(&sext(y, ty.bits))),
        _ => Some(trunc(x, ty.bits).cmp(&trunc(y, ty.bits))),
    };
    let test = |k: u8, o| match k {
        0 => o == Equal,
        1 => o != Equal,
        2 => o == Less,
        3 => o != Greater,
        4 => o == Greater,
        _ => o != Less,
    };
    match (c, ord) {
        (Cmp::Num, o) => o.is_some(),
        (Cmp::Nan, o) => o.is_none(),
        (Cmp::Unordered(_), None) => true,
        (Cmp::Unordered(k), Some(o)) => test(k, o),
        // `ne` on floats is ordered: false with a NaN.
        (_, None) => false,
        (c, Some(o)) => {
            let k = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge]
                .iter()
                .position(|&x| x == c);
            test(k.unwrap_or(0) as u8, o)
        }
    }
}

fn round(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rni | Rnd::Rn => x.round_ties_even(),
        Rnd::Rzi | Rnd::Rz => x.trunc(),
        Rnd::Rmi | Rnd::Rm => x.floor(),
        Rnd::Rpi | Rnd::Rp => x.ceil(),
        Rnd::None => x,
    }
}

pub fn cvt(dst: Ty, src: Ty, rnd: Rnd, sat: bool, x: u64) -> u64 {
    let int = |t: Ty| matches!(t.kind, Kind::S | Kind::U | Kind::B);
    match (dst.kind, src.kind) {
        (Kind::F, Kind::F) => {
            let v = f(x, src);
            let v = if matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) {
                round(v, rnd)
            } else {
                v
            };
            let v = if sat { v.clamp(0.0, 1.0) } else { v };
            unf(v, dst)
        }
        (Kind::F, _) => {
            let v = if src.kind == Kind::S {
                sext(x, src.bits) as f64
            } else {
                trunc(x, src.bits) as f64
            };
            if dst.bits == 32 && src.kind == Kind::S {
                u64::from((sext(x, src.bits) as f32).to_bits())
            } else if dst.bits == 32 {
                u64::from((trunc(x, src.bits) as f32).to_bits())
            } else {
                unf(v, dst)
            }
        }
        (_, Kind::F) => {
            let v = round(f(x, src), if rnd == Rnd::None { Rnd::Rzi } else { rnd });
            let r = match (dst.kind, dst.bits) {
                (Kind::S, 64) => v as i64 as u64,
                (Kind::S, b) => {
                    (v.clamp(-(2f64.powi(b as i32 - 1)), 2f64.powi(b as i32 - 1) - 1.0) as i64)
                        as u64
                }
                (_, 64) => v as u64,
                (_, b) => v.clamp(0.0, 2f64.powi(b as i32) - 1.0) as u64,
            };
            trunc(r, dst.bits)
        }
        _ if int(dst) && int(src) => {
            let v = match src.kind {
                Kind::S => i128::from(sext(x, src.bits)),
                _ => i128::from(trunc(x, src.bits)),
            };
            // `.sat` clamps to the destination's range; without it the low bits stay.
            let v = match (sat, dst.kind) {
                (true, Kind::S) => v.clamp(min_of(dst.bits).into(), max_of(dst.bits).into()),
                (true, _) => v.clamp(0, i128::from(trunc(u64::MAX, dst.bits))),
                (false, _) => v,
            };
            // A signed result narrower than its register is sign-extended in it.
            match dst.kind {
                Kind::S => sext(v as u64, dst.bits) as u64,
                _ => trunc(v as u64, dst.bits),
            }
        }
        _ => x,
    }
}
