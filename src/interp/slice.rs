//! What a trace-only run may leave out. A trace at the lesson's size throws the kernel's
//! outputs away and keeps only where each access went, with which lanes: so an instruction
//! whose result feeds no address, branch, guard, barrier or call changes nothing the trace
//! holds (a GEMM block's 67 M multiply-adds among them), and a load or store whose bytes
//! nothing reads needs its address checked and logged, not its data moved.
//!
//! The analysis is flow-insensitive over the registers NVRTC's PTX writes (nearly every one
//! once): a register is needed if any needed instruction reads it. Memory is one cell: once
//! a load's value is needed (a pointer chase, an index read from a buffer), every store's
//! value is needed too.

use super::operand::Opnd;
use super::ops::{Op, Space};
use super::program::{Func, Instr, Program};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slice {
    /// Run as in any run.
    #[default]
    Run,
    /// Nothing the trace holds depends on it: a trace-only run skips it.
    Skip,
    /// A load or store whose bytes nothing needs: its address is checked and logged only.
    AddressOnly,
}

/// Registers and predicates an operand reads.
pub(super) fn each(o: &Opnd, f: &mut impl FnMut(bool, u32)) {
    match o {
        Opnd::Reg(r) => f(false, *r),
        Opnd::Pred(p, _) => f(true, *p),
        Opnd::Addr(b, _) => each(b, f),
        Opnd::Vec(v) => v.iter().for_each(|o| each(o, f)),
        _ => {}
    }
}

struct Need {
    regs: Vec<bool>,
    preds: Vec<bool>,
    changed: bool,
}

impl Need {
    fn any(&self, ops: &[Opnd]) -> bool {
        let mut hit = false;
        for o in ops {
            each(o, &mut |p, i| {
                hit |= if p {
                    self.preds[i as usize]
                } else {
                    self.regs[i as usize]
                }
            });
        }
        hit
    }

    fn mark(&mut self, ops: &[Opnd]) {
        for o in ops {
            each(o, &mut |p, i| {
                let v = if p {
                    &mut self.preds[i as usize]
                } else {
                    &mut self.regs[i as usize]
                };
                self.changed |= !*v;
                *v = true;
            });
        }
    }

    fn guard(&mut self, ins: &Instr) {
        if let Some((p, _)) = ins.guard {
            self.changed |= !self.preds[p as usize];
            self.preds[p as usize] = true;
        }
    }
}

fn reads_memory(f: &Func) -> bool {
    f.instrs.iter().any(|i| match i.op {
        Op::Ld { space, .. } => !matches!(space, Space::Param | Space::Constant),
        Op::Atom { .. } => true,
        _ => false,
    })
}

/// Mark the entry function's instructions; other functions run whole.
pub fn mark(prog: &mut Program, entry: usize) {
    // A callee runs whole, so a load in it may feed anything: memory is needed.
    let callee_loads =
        (prog.funcs.iter().enumerate()).any(|(k, f)| k != entry && f.has_body && reads_memory(f));
    let f = &mut prog.funcs[entry];
    let plan = plan(f, callee_loads);
    for (ins, s) in f.instrs.iter_mut().zip(plan) {
        ins.slice = s;
    }
}

fn plan(f: &Func, mut memory: bool) -> Vec<Slice> {
    let mut need = Need {
        regs: vec![false; f.nregs as usize],
        preds: vec![false; f.npreds as usize],
        changed: true,
    };
    let mut out = vec![Slice::Skip; f.instrs.len()];
    while need.changed {
        need.changed = false;
        for (ins, s) in f.instrs.iter().zip(out.iter_mut()).rev() {
            *s = step(ins, &mut need, &mut memory);
        }
    }
    out
}

/// One instruction's part, marking what it needs.
fn step(ins: &Instr, need: &mut Need, memory: &mut bool) -> Slice {
    match ins.op {
        Op::Ld { space, .. } => {
            need.guard(ins);
            need.mark(&ins.src);
            let used = need.any(&ins.dst);
            match space {
                Space::Param | Space::Constant if !used => {
                    // Parameters are not logged; constants are, so they keep their address.
                    if space == Space::Param {
                        Slice::Skip
                    } else {
                        Slice::AddressOnly
                    }
                }
                Space::Param | Space::Constant => Slice::Run,
                _ if used => {
                    need.changed |= !*memory;
                    *memory = true;
                    Slice::Run
                }
                _ => Slice::AddressOnly,
            }
        }
        // A shared load whose value may go nowhere: as `ld.shared`.
        Op::LdMatrix { .. } => {
            need.guard(ins);
            need.mark(&ins.src);
            if need.any(&ins.dst) {
                need.changed |= !*memory;
                *memory = true;
                Slice::Run
            } else {
                Slice::AddressOnly
            }
        }
        Op::St { space, .. } => {
            need.guard(ins);
            if space == Space::Param || *memory {
                need.mark(&ins.src);
                Slice::Run
            } else {
                need.mark(&ins.src[..1.min(ins.src.len())]);
                Slice::AddressOnly
            }
        }
        Op::Atom { .. } => {
            need.guard(ins);
            need.mark(&ins.src);
            if need.any(&ins.dst) {
                need.changed |= !*memory;
                *memory = true;
            }
            Slice::Run
        }
        // An exchange the trace logs (an event of its lanes): logged where its result feeds
        // nothing the trace holds, not computed (a GEMM's products).
        Op::Mma(_) => {
            need.guard(ins);
            if need.any(&ins.dst) {
                need.mark(&ins.src);
                return Slice::Run;
            }
            Slice::AddressOnly
        }
        Op::Shfl(_) => {
            // The membermask and lane operands decide errors; the value only its result.
            need.guard(ins);
            need.mark(&ins.src[1.min(ins.src.len())..]);
            if need.any(&ins.dst) {
                need.mark(&ins.src[..1.min(ins.src.len())]);
            }
            Slice::Run
        }
        Op::Bra
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::Bar
        | Op::BarArrive
        | Op::BarRed(_)
        | Op::BarWarp
        | Op::Fence
        | Op::ClusterArrive
        | Op::ClusterWait
        | Op::Call
        | Op::Vote(_)
        | Op::Redux(..)
        | Op::MatchAny(_)
        | Op::Activemask
        // A copy's bytes land at its wait, whatever reads them after: run them all.
        | Op::CpAsync { .. }
        | Op::CpCommit
        | Op::CpWait { .. }
        // The barriers' state and the bulk copies' bytes: run them all.
        | Op::MbarInit
        | Op::MbarArrive { .. }
        | Op::MbarWait { .. }
        | Op::BulkCopy
        // Its operands are not read, so nothing says what it writes: it may write an
        // address. Run, it refuses the run where a lane reaches it, a trace-only run too
        // (skipped, it left an address it computes at 0, and the trace judged a kernel that
        // never ran as written).
        | Op::Unmodelled => {
            need.guard(ins);
            need.mark(&ins.src);
            Slice::Run
        }
        _ if need.any(&ins.dst) => {
            need.guard(ins);
            need.mark(&ins.src);
            Slice::Run
        }
        _ => Slice::Skip,
    }
}
