//! Where a divergent branch's lanes meet again: the immediate post-dominator of the
//! branch's basic block, as the hardware's reconvergence points (set by ptxas) follow the
//! structured code NVRTC emits.

use super::operand::Opnd;
use super::ops::Op;
use super::program::Instr;

/// No reconvergence point inside the function: lanes meet only when they leave it.
pub const NO_PC: u32 = u32::MAX;

fn target(i: &Instr) -> Option<u32> {
    match i.src.first() {
        Some(Opnd::Label(pc)) if i.op == Op::Bra => Some(*pc),
        _ => None,
    }
}

fn ends_block(i: &Instr) -> bool {
    matches!(i.op, Op::Bra | Op::Ret | Op::Exit | Op::Trap)
}

/// Basic blocks as (first, last) instruction indices, and each block's successors (the
/// exit is `blocks.len()`).
fn blocks(instrs: &[Instr]) -> (Vec<(usize, usize)>, Vec<Vec<usize>>) {
    let n = instrs.len();
    let mut leader = vec![false; n + 1];
    leader[0] = true;
    for (k, i) in instrs.iter().enumerate() {
        if let Some(t) = target(i) {
            leader[(t as usize).min(n)] = true;
        }
        if ends_block(i) {
            leader[k + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..n).filter(|&k| leader[k]).collect();
    let spans: Vec<(usize, usize)> = (starts.iter().enumerate())
        .map(|(b, &s)| (s, starts.get(b + 1).map_or(n, |&e| e) - 1))
        .collect();
    let block_of = |pc: usize| starts.partition_point(|&s| s <= pc).saturating_sub(1);
    let exit = spans.len();
    let succ = (spans.iter())
        .map(|&(_, last)| {
            let i = &instrs[last];
            let next = if last + 1 < n {
                block_of(last + 1)
            } else {
                exit
            };
            let mut s = Vec::new();
            match (i.op, target(i)) {
                (Op::Bra, Some(t)) => {
                    s.push(if (t as usize) < n {
                        block_of(t as usize)
                    } else {
                        exit
                    });
                    if i.guard.is_some() {
                        s.push(next);
                    }
                }
                (Op::Ret | Op::Exit | Op::Trap, _) => {
                    s.push(exit);
                    if i.guard.is_some() {
                        s.push(next);
                    }
                }
                _ => s.push(next),
            }
            s
        })
        .collect();
    (spans, succ)
}

/// Per instruction: the reconvergence pc of a branch there (`NO_PC` when the lanes meet
/// only at the function's end); other instructions get `NO_PC` too.
pub fn reconvergence(instrs: &[Instr]) -> Vec<u32> {
    let mut out = vec![NO_PC; instrs.len()];
    if instrs.is_empty() {
        return out;
    }
    let (spans, succ) = blocks(instrs);
    let nb = spans.len() + 1;
    let words = nb.div_ceil(64);
    let full = vec![u64::MAX; words];
    let mut pdom: Vec<Vec<u64>> = vec![full; nb];
    pdom[nb - 1] = vec![0; words];
    pdom[nb - 1][(nb - 1) / 64] |= 1 << ((nb - 1) % 64);
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..nb - 1).rev() {
            let mut set = vec![u64::MAX; words];
            for &s in &succ[b] {
                for (w, x) in set.iter_mut().zip(&pdom[s]) {
                    *w &= x;
                }
            }
            set[b / 64] |= 1 << (b % 64);
            if set != pdom[b] {
                pdom[b] = set;
                changed = true;
            }
        }
    }
    let count = |s: &[u64]| s.iter().map(|w| w.count_ones()).sum::<u32>();
    for (b, &(_, last)) in spans.iter().enumerate() {
        let mine = count(&pdom[b]);
        let ipdom = (0..nb).find(|&d| {
            d != b && pdom[b][d / 64] & (1 << (d % 64)) != 0 && count(&pdom[d]) + 1 == mine
        });
        out[last] = match ipdom {
            Some(d) if d < spans.len() => spans[d].0 as u32,
            _ => NO_PC,
        };
    }
    out
}
