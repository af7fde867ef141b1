//! One warp: 32 lanes in lockstep under a stack of (pc, mask, reconvergence pc) entries
//! per call frame. A divergent branch runs each side in turn and the lanes meet at the
//! branch's immediate post-dominator; `bar.sync` stops the warp for the block.

use super::block::BARRIERS;
use super::cfg::NO_PC;
use super::frame::{Entry, Event, Frame};
use super::operand::Opnd;
use super::ops::Op;
use super::program::{Instr, Program};
use super::slice::Slice;
use super::{Fault, Halt, Place, RunError, block::BlockCtx};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Running,
    AtBarrier,
    /// At `barrier.cluster.wait`, until the cluster's warps have all arrived.
    AtClusterWait,
    Done,
}

pub struct Warp {
    pub id: u32,
    pub frames: Vec<Frame>,
    /// Lanes that have not exited.
    pub live: u32,
    pub state: State,
    /// The warp's block, by its rank in the cluster.
    pub blk: usize,
    /// Times the warp arrived at the cluster's barrier.
    pub arrived: u32,
    /// Where the result of the `bar.red` the warp waits at goes.
    pub pending: Option<(super::operand::Opnd, super::ops::Red)>,
    /// The barrier the warp last reached and its thread count (None: the whole block).
    pub bar: (u32, Option<u32>),
    /// Its lanes' asynchronous copies not yet done, and their groups.
    pub copies: super::copies::Copies,
}

impl Warp {
    /// The barrier opened: a `bar.red`'s result to each live lane.
    pub fn reduced(&mut self, (count, all, any): (u32, bool, bool)) {
        let Some((dst, red)) = self.pending.take() else {
            return;
        };
        let v = match red {
            super::ops::Red::Popc => u64::from(count),
            super::ops::Red::And => u64::from(all),
            super::ops::Red::Or => u64::from(any),
        };
        let live = self.live;
        if let Some(fr) = self.frames.last_mut() {
            super::lanes::lanes(live).for_each(|l| fr.write(&dst, l, v));
        }
    }

    pub fn new(prog: &Program, entry: usize, id: u32, lanes: u32, params: &[u8]) -> Warp {
        let f = &prog.funcs[entry];
        let mut frame = Frame::new(f, entry, lanes);
        for lane in 0..32 {
            let at = lane * frame.pbytes;
            let n = params.len().min(frame.pbytes);
            frame.params[at..at + n].copy_from_slice(&params[..n]);
        }
        Warp {
            id,
            frames: vec![frame],
            live: lanes,
            state: State::Running,
            blk: 0,
            arrived: 0,
            pending: None,
            bar: (0, None),
            copies: Default::default(),
        }
    }

    /// The place of the instruction the warp is at, for messages.
    pub fn place(&self, prog: &Program) -> Option<Place> {
        let fr = self.frames.last()?;
        let e = fr.stack.last()?;
        prog.funcs[fr.func]
            .instrs
            .get(e.pc as usize)
            .map(|i| i.place)
    }

    /// Run until a barrier, the end, or `budget` instructions; the count run.
    pub fn run(
        &mut self,
        prog: &Program,
        ctx: &mut BlockCtx,
        budget: u64,
    ) -> Result<u64, RunError> {
        let mut n = 0;
        while n < budget {
            let Some(fr) = self.frames.last_mut() else {
                self.state = State::Done;
                return Ok(n);
            };
            let Some(top) = fr.stack.last().copied() else {
                self.leave_frame(prog, ctx);
                continue;
            };
            if top.mask & self.live == 0 || top.pc == top.rpc {
                fr.stack.pop();
                continue;
            }
            let f = &prog.funcs[fr.func];
            let Some(ins) = f.instrs.get(top.pc as usize) else {
                // Off the end of the body: as `ret`.
                self.lanes_leave(prog, ctx, top.mask & self.live, f.entry);
                continue;
            };
            n += 1;
            ctx.steps += 1;
            let mask = top.mask & self.live;
            ctx.thread_steps += u64::from(mask.count_ones());
            ctx.count_work(mask, self.frames.len() > 1, true);
            match self.exec(prog, ctx, ins, mask, &top)? {
                Event::Next => {}
                Event::Barrier => {
                    self.state = State::AtBarrier;
                    return Ok(n);
                }
                Event::ClusterWait => {
                    self.state = State::AtClusterWait;
                    return Ok(n);
                }
                Event::Yield => return Ok(n),
            }
        }
        Ok(n)
    }

    fn exec(
        &mut self,
        prog: &Program,
        ctx: &mut BlockCtx,
        ins: &Instr,
        mask: u32,
        top: &Entry,
    ) -> Result<Event, RunError> {
        let fr = self.frames.last_mut().expect("a frame");
        ctx.wait_for_delayed(fr.func, ins, self.id);
        let active = match ins.guard {
            Some((p, neg)) => mask & (fr.preds[p as usize] ^ if neg { u32::MAX } else { 0 }),
            None => mask,
        };
        match ins.op {
            Op::Bra => {
                self.branch(prog, ins, mask, active, top);
                return Ok(Event::Next);
            }
            Op::Trap if active != 0 => {
                let why = "`trap` (`__trap()`): the kernel stops, every thread of it".into();
                let halt = Halt::Fault(Fault::Trap);
                return Err(ctx.halt(ins.place, self.id, (why, halt), active));
            }
            Op::Ret | Op::Exit | Op::Trap => {
                self.advance();
                if active != 0 {
                    let entry = prog.funcs[self.frames.last().unwrap().func].entry;
                    self.lanes_leave(prog, ctx, active, entry || ins.op == Op::Exit);
                }
                return Ok(Event::Next);
            }
            Op::Call if active != 0 => {
                self.advance();
                // Logged as the GPU tracer logs it: an event of the calling lanes.
                ctx.barrier_record(ins, self.id, active);
                return super::calls::call(self, prog, ctx, ins, active);
            }
            Op::Bar | Op::BarArrive | Op::BarRed(_) if active != 0 => {
                self.advance();
                if active != self.live {
                    return Err(ctx.error(ins.place, self.id, "divergent barrier: `__syncthreads()` (bar.sync) reached by only some lanes of the warp; the others would never arrive".into(), active ^ self.live));
                }
                let fr = self.frames.last().expect("a frame");
                let lane = active.trailing_zeros() as usize;
                // `bar.red`'s thread count is not modelled: it waits for the whole block.
                let counted = !matches!(ins.op, Op::BarRed(_));
                let (id, count) = (ins.src.first(), ins.src.get(1).filter(|_| counted));
                let id = id.map_or(0, |o| fr.read(o, lane, ctx, self.id));
                let count = count.map(|o| fr.read(o, lane, ctx, self.id) as u32);
                ctx.numbered_barrier_record(ins, self.id, active, id);
                if id >= BARRIERS as u64 || count.is_some_and(|c| c == 0 || c % 32 != 0) {
                    let threads = count.map_or("all the block's".to_string(), |c| c.to_string());
                    let why = format!(
                        "barrier {id} for {threads} threads: a block has barriers 0 to 15, and a thread count must be a positive multiple of 32 (whole warps)"
                    );
                    return Err(ctx.error(ins.place, self.id, why, active));
                }
                if count.is_some() {
                    // Counted per warp, as the hardware counts.
                    ctx.arrivals[ctx.rank as usize][id as usize] += 32;
                }
                self.bar = (id as u32, count);
                if ins.op == Op::BarArrive {
                    return Ok(Event::Next);
                }
                if let Op::BarRed(red) = ins.op {
                    // The predicate is the last operand: `bar.red.popc.u32 d, a{, b}, {!}c`.
                    let fr = self.frames.last().expect("a frame");
                    let p = ins.src.last().map_or(0, |o| fr.pred_mask(o)) & active;
                    let acc = &mut ctx.reduce;
                    acc.0 += p.count_ones();
                    acc.1 &= p == active;
                    acc.2 |= p != 0;
                    self.pending = ins.dst.first().cloned().map(|d| (d, red));
                }
                return Ok(Event::Barrier);
            }
            Op::CpAsync { .. } | Op::CpCommit | Op::CpWait { .. } if active != 0 => {
                // The warp's copies outlive the call frame that issued them.
                self.advance();
                let fr = self.frames.last().expect("a frame");
                super::copies::step(&mut self.copies, fr, ctx, ins, (active, self.id))?;
                return Ok(Event::Next);
            }
            Op::ClusterArrive | Op::ClusterWait if active != 0 => {
                self.advance();
                if active != self.live {
                    return Err(ctx.error(ins.place, self.id, "divergent cluster barrier: `barrier.cluster` reached by only some lanes of the warp".into(), active ^ self.live));
                }
                // The GPU tracer logs both halves (each a block barrier too: the cluster's
                // threads include the block's), and the race analysis orders the block's
                // and the cluster's accesses by them: the interpreter's trace says the same.
                ctx.barrier_record(ins, self.id, active);
                if ins.op == Op::ClusterArrive {
                    self.arrived += 1;
                    return Ok(Event::Next);
                }
                return Ok(Event::ClusterWait);
            }
            _ => {}
        }
        self.advance();
        if ctx.sliced && ins.slice == Slice::Skip {
            // Left out: not run, so not counted as run.
            ctx.thread_steps -= u64::from(mask.count_ones());
            ctx.count_work(mask, self.frames.len() > 1, false);
            return Ok(Event::Next);
        }
        if active != 0 {
            let warp = self.id;
            let fr = self.frames.last_mut().unwrap();
            super::exec::exec(fr, ctx, ins, active, warp, mask)?;
            let done = match (ins.op, ins.dst.first()) {
                (Op::MbarWait { .. }, Some(p)) => fr.pred_mask(p) & active,
                _ => active,
            };
            if done != active {
                return Ok(Event::Yield);
            }
        }
        Ok(Event::Next)
    }

    fn advance(&mut self) {
        if let Some(e) = self.frames.last_mut().and_then(|f| f.stack.last_mut()) {
            e.pc += 1;
        }
    }

    fn branch(&mut self, prog: &Program, ins: &Instr, mask: u32, taken: u32, top: &Entry) {
        let fr = self.frames.last_mut().unwrap();
        let target = match ins.src.first() {
            Some(Opnd::Label(t)) => *t,
            _ => NO_PC,
        };
        let next = top.pc + 1;
        let not = mask & !taken;
        let e = fr.stack.last_mut().unwrap();
        if not == 0 {
            e.pc = target;
            return;
        }
        if taken == 0 {
            e.pc = next;
            return;
        }
        let r = prog.funcs[fr.func].reconverge[top.pc as usize];
        if r == e.rpc {
            *e = Entry {
                pc: next,
                mask: not,
                rpc: r,
            };
        } else {
            e.pc = r;
            fr.stack.push(Entry {
                pc: next,
                mask: not,
                rpc: r,
            });
        }
        fr.stack.push(Entry {
            pc: target,
            mask: taken,
            rpc: r,
        });
    }

    /// `lanes` leave the current frame: they exit the kernel (`exit` or the entry's `ret`)
    /// or return to the caller, which waits for the frame's other lanes.
    fn lanes_leave(&mut self, prog: &Program, ctx: &mut BlockCtx, lanes: u32, exit: bool) {
        if exit {
            self.live &= !lanes;
            for f in &mut self.frames {
                f.stack.iter_mut().for_each(|e| e.mask &= !lanes);
            }
        } else {
            let fr = self.frames.last_mut().unwrap();
            fr.returned |= lanes;
            fr.stack.iter_mut().for_each(|e| e.mask &= !lanes);
        }
        let fr = self.frames.last_mut().unwrap();
        while fr.stack.last().is_some_and(|e| e.mask & self.live == 0) {
            fr.stack.pop();
        }
        if fr.stack.is_empty() {
            self.leave_frame(prog, ctx);
        }
    }

    fn leave_frame(&mut self, prog: &Program, ctx: &mut BlockCtx) {
        let Some(done) = self.frames.pop() else {
            return;
        };
        if let Some(caller) = self.frames.last_mut() {
            super::calls::copy_return(prog, &done, caller);
            super::calls::perturb_return(prog, &done, caller, ctx, self.id);
        }
        if self.frames.is_empty() {
            self.state = State::Done;
        }
    }
}
