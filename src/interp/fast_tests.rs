//! The warp-wide path against the lane-by-lane one, and the fused FMA against the portable.

use super::*;
use crate::interp::Place;
use crate::interp::alu;
use crate::interp::ops::{Cmp, Ty};
use crate::interp::program::Func;

fn ty(kind: Kind, bits: u32) -> Ty {
    Ty { kind, bits }
}

fn instr(op: Op, dst: Opnd, src: Vec<Opnd>) -> Instr {
    Instr {
        op,
        text: String::new(),
        guard: None,
        dst: vec![dst],
        src,
        place: Place::default(),
        site: None,
        call: None,
        slice: Default::default(),
    }
}

/// Rows of awkward values: zero, all ones, sign bits, shift counts past the width.
fn frame() -> Frame {
    let f = Func {
        nregs: 5,
        npreds: 1,
        ..Default::default()
    };
    let mut fr = Frame::new(&f, 0, u32::MAX);
    let special = [
        0,
        1,
        u64::MAX,
        1 << 31,
        1 << 63,
        31,
        32,
        63,
        64,
        0x7f80_0000,
    ];
    let mut z = 0x1234_5678_9abc_def0u64;
    for r in 0..3 {
        for l in 0..32 {
            z = z
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            fr.regs[r * 32 + l] = match (l + r) % 3 {
                0 => special[(l + r) % special.len()],
                1 => z >> (l % 40),
                _ => z,
            };
        }
    }
    fr
}

#[test]
fn the_warp_path_computes_what_the_lane_path_does() {
    let (r0, r1, r2, d) = (Opnd::Reg(0), Opnd::Reg(1), Opnd::Reg(2), Opnd::Reg(4));
    let kinds = [
        ty(Kind::U, 32),
        ty(Kind::S, 32),
        ty(Kind::B, 32),
        ty(Kind::U, 64),
        ty(Kind::S, 64),
    ];
    let bins = [
        Bin::Add,
        Bin::Sub,
        Bin::MulLo,
        Bin::MulWide,
        Bin::And,
        Bin::Or,
        Bin::Xor,
        Bin::Shl,
        Bin::Shr,
        Bin::Min,
        Bin::Max,
    ];
    let mut taken = 0;
    let active = 0xdead_beef;
    for t in kinds.into_iter().chain([ty(Kind::F, 32)]) {
        for b in bins {
            let mut fr = frame();
            let before = fr.regs.clone();
            let ins = instr(Op::Bin(b, t), d.clone(), vec![r0.clone(), r1.clone()]);
            if !exec(&mut fr, &ins, active) {
                continue;
            }
            taken += 1;
            for l in 0..32 {
                let want = match active >> l & 1 {
                    1 => alu::bin(b, t, before[l], before[32 + l]),
                    _ => before[4 * 32 + l],
                };
                assert_eq!(fr.regs[4 * 32 + l], want, "{b:?} {t:?} lane {l}");
            }
            let mut fr = frame();
            let ins = instr(
                Op::Mad(b, t),
                d.clone(),
                vec![r0.clone(), r1.clone(), r2.clone()],
            );
            if exec(&mut fr, &ins, u32::MAX) {
                taken += 1;
                for l in 0..32 {
                    let want = alu::mad(b, t, before[l], before[32 + l], before[64 + l]);
                    assert_eq!(fr.regs[4 * 32 + l], want, "mad {b:?} {t:?} lane {l}");
                }
            }
        }
        for c in [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge] {
            let mut fr = frame();
            let before = fr.regs.clone();
            let op = Op::Setp {
                cmp: c,
                bool: None,
                ty: t,
            };
            let ins = instr(op, Opnd::Pred(0, false), vec![r0.clone(), r1.clone()]);
            if exec(&mut fr, &ins, u32::MAX) {
                taken += 1;
                for l in 0..32 {
                    let want = alu::compare(c, t, before[l], before[32 + l]);
                    assert_eq!(fr.preds[0] >> l & 1 == 1, want, "{c:?} {t:?} lane {l}");
                }
            }
        }
    }
    assert!(
        taken >= 60,
        "the warp path took only {taken} of the operations"
    );
}

#[cfg(target_arch = "x86_64")]
mod fused {
    use super::*;

    #[test]
    fn the_fused_build_rounds_as_the_portable_one() {
        if !std::is_x86_feature_detected!("fma") {
            eprintln!("skipped: this processor has no FMA, so only the portable build runs");
            return;
        }
        let mut z = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            z = z
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Values around 1, tiny, huge, and special bit patterns, as f32 bits.
            let f = match z >> 61 {
                0 => f32::from_bits((z >> 20) as u32),
                1 => 1.0 + (z >> 40) as f32 * f32::EPSILON,
                2 => -((z >> 33) as f32) * 1e-30,
                3 => f32::MAX / ((z >> 50) as f32 + 1.0),
                _ => ((z >> 32) as i32) as f32 / 65536.0,
            };
            u64::from(f.to_bits())
        };
        for _ in 0..200 {
            let mut rows = [[0u64; 32]; 3];
            rows.iter_mut().flatten().for_each(|v| *v = next());
            let [x, y, w] = rows;
            let (mut fused, mut portable) = (x, x);
            // SAFETY: the processor has FMA (checked above).
            unsafe { fma_row_fused(&mut fused, &y, &w) };
            fma_row(&mut portable, &y, &w);
            for l in 0..32 {
                let (a, b) = (
                    f32::from_bits(fused[l] as u32),
                    f32::from_bits(portable[l] as u32),
                );
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{a} vs {b}"
                );
            }
        }
    }
}
