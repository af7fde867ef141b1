//! A warp's call frame: its registers, predicates and parameter area, and its stack of
//! (pc, mask, reconvergence pc) entries; and what a warp's step asks of the block
//! (`Event`). Every instruction's step reads and writes a frame.

use super::block::BlockCtx;
use super::cfg::NO_PC;
use super::operand::Opnd;
use super::program::Func;

#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub pc: u32,
    pub mask: u32,
    pub rpc: u32,
}

pub struct Frame {
    pub func: usize,
    pub regs: Vec<u64>,
    pub preds: Vec<u32>,
    /// Per lane: `param_bytes` of the function's parameter area.
    pub params: Vec<u8>,
    pub pbytes: usize,
    pub stack: Vec<Entry>,
    /// Lanes that returned from this frame (their caller waits for the rest).
    pub returned: u32,
    /// Where the caller wants the return value (its parameter offset).
    pub ret_to: Option<u32>,
    /// The trace site of the call that made this frame (a run perturbing what calls
    /// return finds its call by it).
    pub call_site: Option<u32>,
}

impl Frame {
    pub fn new(f: &Func, func: usize, mask: u32) -> Frame {
        Frame {
            func,
            regs: vec![0; f.nregs as usize * 32],
            preds: vec![0; f.npreds as usize],
            params: vec![0; f.param_bytes as usize * 32],
            pbytes: f.param_bytes as usize,
            stack: vec![Entry {
                pc: 0,
                mask,
                rpc: NO_PC,
            }],
            returned: 0,
            ret_to: None,
            call_site: None,
        }
    }

    #[inline]
    pub fn read(&self, o: &Opnd, lane: usize, ctx: &BlockCtx, warp: u32) -> u64 {
        match o {
            Opnd::Reg(r) => self.regs[*r as usize * 32 + lane],
            Opnd::Imm(v) => *v,
            Opnd::Pred(p, neg) => u64::from((self.preds[*p as usize] >> lane & 1 != 0) != *neg),
            Opnd::Special(s) => ctx.special(*s, warp, lane as u32),
            Opnd::Addr(b, off) => self.read(b, lane, ctx, warp).wrapping_add(*off as u64),
            _ => 0,
        }
    }

    #[inline]
    pub fn write(&mut self, o: &Opnd, lane: usize, v: u64) {
        match o {
            Opnd::Reg(r) => self.regs[*r as usize * 32 + lane] = v,
            Opnd::Pred(p, _) => {
                let m = &mut self.preds[*p as usize];
                *m = (*m & !(1 << lane)) | (u32::from(v & 1 != 0) << lane);
            }
            _ => {}
        }
    }

    /// A predicate operand over the lanes, as a mask.
    pub fn pred_mask(&self, o: &Opnd) -> u32 {
        match o {
            Opnd::Pred(p, neg) => self.preds[*p as usize] ^ if *neg { u32::MAX } else { 0 },
            Opnd::Imm(v) if *v != 0 => u32::MAX,
            _ => 0,
        }
    }
}

/// What an instruction asks of the block.
pub enum Event {
    Next,
    Barrier,
    ClusterWait,
    /// The warp's turn ends early, as a GPU's scheduler would let another warp in: an
    /// mbarrier wait that found its phase incomplete spins in a loop until another warp
    /// arrives, and a turn spent spinning only costs time.
    Yield,
}
