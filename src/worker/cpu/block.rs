//! A launch, block after block: each block's warps take turns, a warp running until it
//! reaches a barrier, ends, or has had its turn; a barrier opens when every warp with live
//! lanes has reached it. Sampled blocks log their accesses as the GPU tracer does.

use std::time::Instant;

use super::decode::{Instr, Program};
use super::mem::{At, Memory};
use super::operand::Sreg;
use super::warp::{State, Warp};
use super::{Place, RunError};
use crate::model::access::Space as TSpace;
use crate::trace::decode::Record;
use crate::trace::stream::Streamed;

/// Warp steps a warp runs before the next one takes its turn.
const TURN: u64 = 4096;

#[derive(Debug, Clone)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_smem: u32,
    /// The kernel's parameters as its parameter space holds them.
    pub params: Vec<u8>,
}

/// The sampled blocks' records, summarised as they are made; every record as well only when
/// asked (a whole trace can be hundreds of MB).
pub struct Trace {
    pub stream: Streamed,
    pub records: Option<Vec<Record>>,
}

pub struct BlockCtx<'a> {
    pub mem: &'a mut Memory,
    pub launch: &'a Launch,
    pub block: [u32; 3],
    pub linear: u32,
    pub steps: u64,
    /// Lanes that took part in those steps, summed: thread instructions.
    pub thread_steps: u64,
    /// The live lanes of the warp that is running.
    pub live: u32,
    pub trace: Option<&'a mut Trace>,
    pub start: Instant,
    pub shared_static: u32,
    pub nwarps: u32,
    /// What the kernel's `printf`s wrote, in the order they ran.
    pub printed: &'a mut String,
    /// A trace-only run: instructions nothing traced depends on are left out (`slice`).
    pub sliced: bool,
}

impl BlockCtx<'_> {
    pub fn special(&self, s: Sreg, warp: u32, lane: u32) -> u64 {
        let [bx, by, _] = self.launch.block;
        let t = warp * 32 + lane;
        let v = match s {
            Sreg::Tid(0) => t % bx,
            Sreg::Tid(1) => t / bx % by,
            Sreg::Tid(_) => t / (bx * by),
            Sreg::Ntid(d) => self.launch.block[d as usize],
            Sreg::Ctaid(d) => self.block[d as usize],
            Sreg::Nctaid(d) => self.launch.grid[d as usize],
            Sreg::Laneid => lane,
            Sreg::Warpid => warp,
            Sreg::Nwarpid => self.nwarps,
            Sreg::Smid => 0,
            Sreg::Clock => self.steps as u32,
            Sreg::Clock64 => return self.steps,
            Sreg::Globaltimer => return self.start.elapsed().as_nanos() as u64,
            Sreg::LanemaskEq => 1 << lane,
            Sreg::LanemaskLt => (1u32 << lane) - 1,
            Sreg::LanemaskLe => ((1u64 << (lane + 1)) - 1) as u32,
            Sreg::LanemaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
            Sreg::LanemaskGe => !((1u32 << lane) - 1),
            Sreg::DynSmem => self.launch.dyn_smem,
            Sreg::TotalSmem => self.shared_static + self.launch.dyn_smem,
        };
        u64::from(v)
    }

    pub fn error(&self, place: Place, warp: u32, why: String, lanes: u32) -> RunError {
        RunError {
            block: self.block,
            warp,
            lanes,
            place: Some(place),
            why,
        }
    }

    fn push(&mut self, r: Record) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.stream.push(&r);
            if let Some(all) = t.records.as_mut().filter(|_| t.stream.overflow == 0) {
                all.push(r);
            }
        }
    }

    /// One record per space the lanes resolved to, as the logger's groups.
    pub fn access_record(
        &mut self,
        ins: &Instr,
        warp: u32,
        active: u32,
        ats: &[At; 32],
        width: u32,
    ) {
        let (Some(site), true) = (ins.site, self.trace.is_some()) else {
            return;
        };
        let mut groups: [(u32, [u64; 32]); 4] = [(0, [0; 32]); 4];
        for l in super::calls::lanes(active) {
            let (g, a) = match ats[l] {
                At::Shared(a) => (0, a),
                At::Global(a) => (1, a),
                At::Local(a) => (2, a),
                At::Const(a) => (3, a),
                At::Param(_) => continue,
            };
            groups[g].0 |= 1 << l;
            groups[g].1[l] = a;
        }
        let spaces = [
            TSpace::Shared,
            TSpace::Global,
            TSpace::Local,
            TSpace::Constant,
        ];
        for (g, (mask, addrs)) in groups.into_iter().enumerate() {
            if mask != 0 {
                let (block, space) = (self.linear, spaces[g]);
                self.push(Record {
                    site,
                    block,
                    warp,
                    mask,
                    space,
                    width,
                    rank: 0,
                    addrs,
                });
            }
        }
    }

    pub fn barrier_record(&mut self, ins: &Instr, warp: u32, active: u32) {
        if let (Some(site), true) = (ins.site, self.trace.is_some()) {
            let block = self.linear;
            let r = Record {
                site,
                block,
                warp,
                mask: active,
                space: TSpace::Shared,
                width: 0,
                rank: 0,
                addrs: [0; 32],
            };
            self.push(r);
        }
    }
}

/// The block of linear index `b` in `grid`.
pub fn block_index(grid: [u32; 3], b: u64) -> [u32; 3] {
    let (gx, gy) = (u64::from(grid[0]), u64::from(grid[1]));
    [
        (b % gx) as u32,
        (b / gx % gy) as u32,
        (b / (gx * gy)) as u32,
    ]
}

/// Run block `linear` to its end; the warp steps it took, and the thread instructions.
#[allow(clippy::too_many_arguments)]
pub fn run_block(
    prog: &Program,
    entry: usize,
    mem: &mut Memory,
    launch: &Launch,
    linear: u64,
    (trace, printed): (Option<&mut Trace>, &mut String),
    (budget, sliced): (u64, bool),
    start: Instant,
) -> Result<(u64, u64), RunError> {
    let threads: u32 = launch.block.iter().product();
    let nwarps = threads.div_ceil(32);
    mem.shared.clear();
    mem.shared
        .resize((prog.shared_static + launch.dyn_smem) as usize, 0);
    mem.local.clear();
    mem.local.resize(mem.local_bytes * threads as usize, 0);
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|w| {
            let lanes = (threads - w * 32).min(32);
            let mask = if lanes == 32 {
                u32::MAX
            } else {
                (1 << lanes) - 1
            };
            Warp::new(prog, entry, w, mask, &launch.params)
        })
        .collect();
    let mut ctx = BlockCtx {
        mem,
        launch,
        block: block_index(launch.grid, linear),
        linear: linear as u32,
        steps: 0,
        thread_steps: 0,
        live: 0,
        trace,
        start,
        shared_static: prog.shared_static,
        nwarps,
        printed,
        sliced,
    };
    schedule(prog, &mut warps, &mut ctx, budget)
}

/// The block's warps take turns until all have ended; a barrier opens when every warp that
/// has not ended waits at it.
fn schedule(
    prog: &Program,
    warps: &mut [Warp],
    ctx: &mut BlockCtx,
    budget: u64,
) -> Result<(u64, u64), RunError> {
    loop {
        for w in warps.iter_mut().filter(|w| w.state == State::Running) {
            ctx.live = w.live;
            w.run(prog, ctx, TURN)?;
            if ctx.steps > budget {
                let why = format!(
                    "step budget exceeded: the block ran {budget} warp instructions without \
                     ending (an endless loop, or a wait on another block, which runs after \
                     this one here)"
                );
                let place = w.place(prog);
                return Err(RunError {
                    block: ctx.block,
                    warp: w.id,
                    lanes: w.live,
                    place,
                    why,
                });
            }
        }
        let running = warps.iter().any(|w| w.state == State::Running);
        let waiting = warps.iter().any(|w| w.state == State::AtBarrier);
        if !running && waiting {
            (warps.iter_mut())
                .filter(|w| w.state == State::AtBarrier)
                .for_each(|w| w.state = State::Running);
        } else if !running {
            return Ok((ctx.steps, ctx.thread_steps));
        }
    }
}
