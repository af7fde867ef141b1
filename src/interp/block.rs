//! A launch and the running block as its instructions see it: special registers, memory,
//! the `bar.red` and counted-barrier tallies, and the records sampled blocks log as the GPU
//! tracer does. The scheduling of a cluster's warps is in `schedule`.

use std::time::Instant;

use super::mem::{At, Memory};
use super::operand::Sreg;
use super::program::Instr;
use super::{Halt, Place, RunError};
use crate::model::access::Space;
use crate::model::results::{PerturbOf, Perturbing};
use crate::trace::decode::Record;
use crate::trace::stream::Streamed;

#[derive(Debug, Clone)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dyn_smem: u32,
    /// The kernel's parameters as its parameter space holds them.
    pub params: Vec<u8>,
    /// Blocks per cluster in each dimension ([1, 1, 1] without clusters).
    pub cluster: [u32; 3],
    /// 0: `%clock`/`%clock64` count the block's warp steps (from `CLOCK_START`) and
    /// `%globaltimer` nanoseconds since 1970 (from the wall clock when the process first
    /// read it), moving with the steps as at 1.98 GHz (`NS_PER_KILOCYCLE`), as a GPU's do.
    /// k > 0: all three read k times their count (the timer from a fixed time), so that two
    /// runs at different k tell a figure the clock read (k times larger) from one made up.
    pub clock_scale: u64,
    /// Loads whose values reach their registers with bits flipped (`memop::perturb`), so
    /// that a second run over the same inputs tells whether the output follows them.
    pub perturb: Option<Perturb>,
    /// The warps of a cluster take their turns last to first (`schedule`): a kernel whose
    /// output depends on the order its warps run in (a value read from shared memory
    /// before the warp that writes it has run, nothing ordering the two) comes out right
    /// one way only.
    pub reverse_warps: bool,
    /// Timed loads whose words and values the run keeps (`memop::load_store`).
    pub observe: Option<Observe>,
    /// Loads at some sites (a kernel's timed ones) that hold their warp's clocks back
    /// (`TimedDelay`).
    pub timed_delay: Option<TimedDelay>,
    /// Compare-and-swaps that fail the first time on each word (`CasInterference`).
    pub cas_interference: Option<CasInterference>,
    /// How the blocks are dealt over the modelled GPU's SMs and each SM's warp slots
    /// (`%smid`, `%warpid`): 0 deals them in turn, block b to SM b % 132 and its warps to
    /// slots from 0; any other value by a hash of it. An exercise check draws it afresh
    /// each run, as a GPU's scheduler is beyond a kernel's knowledge: a kernel that fenced
    /// only where `%smid` was its block index mod 132 was told the interpreter by it.
    pub deal: u64,
}

/// What another thread's update between a thread's read of a word and its compare-and-swap
/// does on a GPU: the swap fails. The interpreter runs a warp's read and its swap without
/// another warp or block between them, so a swap made once, its failure never handled (a
/// lost update), always succeeds here. Under this, a thread's first compare-and-swap on a
/// word that another thread has updated atomically before (a shared word of each block
/// apart) fails where it would succeed: it stores nothing and returns a value other than
/// the one compared with, as a GPU's does when the other thread's update lands between.
/// A kernel that retries until its swap succeeds comes out right; one that drops the
/// update does not. An update a barrier of the block has ordered before the swap cannot
/// land between, and the first thread to update a word is never failed: a claim made by
/// one thread alone (`atomicCAS(&flag, 0, 1)` to elect it), or after the word was handed
/// over at a barrier, still wins, as it would on a GPU.
#[derive(Debug, Clone, Default)]
pub struct CasInterference {
    pub words: std::sync::Arc<std::sync::Mutex<CasWords>>,
}

/// A word as `CasInterference` knows it: (space, block for a shared word, address).
pub type CasWord = (u8, u32, u64);

/// An atomic update of a word: (thread, block, the barriers its block had passed).
pub type Updater = (u64, u32, u64);

#[derive(Debug, Default)]
pub struct CasWords {
    /// The last few threads (by their index in the grid) to update each word atomically,
    /// each with its block and the barriers that block had passed then.
    pub touched: std::collections::HashMap<CasWord, Vec<Updater>>,
    /// The (word, thread) pairs whose swap has been failed once.
    pub failed: std::collections::HashSet<(CasWord, u64)>,
}

/// Loads that take longer on the clock: every execution of a load at one of `sites` moves
/// the clocks its warp reads (`%clock`, `%clock64`, `%globaltimer`) on by `cycles` (times
/// the clock scale), as a slower memory would, where a GPU's warp waits for a load: at the
/// first instruction that reads or writes a register the load fills (its scoreboard), not
/// at the load, which only issues it. A clock read right after a load, before its value
/// is used, holds none of its time, as on a GPU. A figure the kernel measures per access with
/// its clock then grows by `cycles` for each such load an access makes: one that was scaled
/// or made up grows by another amount.
#[derive(Debug, Clone)]
pub struct TimedDelay {
    pub sites: Vec<u32>,
    pub cycles: u64,
    /// The cycles every warp of the run was held back by, together: the most an honest
    /// figure made of its clock reads can grow by.
    pub total: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

/// The loads at some sites (a kernel's timed ones) whose words and the values read there
/// a run keeps, shared with the caller: two runs over differently drawn inputs compared
/// tell loads that follow what was drawn (a chase of a drawn chain) from loads that read
/// the same words and values whatever the inputs (a fixed ring).
#[derive(Debug, Clone)]
pub struct Observe {
    /// The space whose words are kept (a generic load's lanes that land there).
    pub space: Space,
    /// The sites (`Instr::site`) whose loads are kept.
    pub sites: Vec<u32>,
    /// Each lane's load, in the order they ran, up to `OBSERVED_MAX`.
    pub seen: std::sync::Arc<std::sync::Mutex<Vec<Seen>>>,
}

/// One lane's observed load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// The warp that made it: its block (linear index) and its warp in the block.
    pub warp: (u32, u32),
    /// Which of the warp's observed loads it was (from 0): counted as a perturbed run
    /// counts the same sites' executions (`Perturb::execution`), so that a run perturbing
    /// the warp's n-th can be compared at its n + 1-th.
    pub nth: u32,
    pub address: u64,
    pub value: u64,
}

/// Where the interpreter's `%clock64` starts: about an hour of an SM's cycles at 1.98 GHz,
/// as a GPU's reads some time after it was powered up (not 0, which only the interpreter
/// would read).
const CLOCK_START: u64 = 7_128_000_000_000;

/// `%globaltimer` under a clock scale: a fixed time since 1970 (late 2023), so that two runs
/// at different scales read it alike but for the scale.
const EPOCH_NS: u64 = 1_700_000_000_000_000_000;

/// The nanoseconds `%globaltimer` moves on by while `%clock64` counts a thousand cycles: an
/// SM's clock at 1.98 GHz, as an H100's. A timer that moved with the clock one for one
/// would tell a kernel it runs here (a spin compared on the two).
pub const NS_PER_KILOCYCLE: u64 = 505;

/// The wall clock, in nanoseconds since 1970, when this process first read `%globaltimer`
/// with no clock scale: from there it moves with the steps, as the cycles do.
fn timer_start() -> u64 {
    static START: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *START.get_or_init(|| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(EPOCH_NS, |d| d.as_nanos() as u64)
    })
}

/// Lane loads an `Observe` keeps at most: a timed chase makes a few thousand steps.
pub const OBSERVED_MAX: usize = 1 << 20;

/// The SMs `%nsmid` reads: an H100's, the GPU whose limits the interpreter models.
pub const MODELLED_SMS: u32 = 132;

/// The warp slots of an SM `%nwarpid` reads: an H100's 64 (its most resident warps).
pub const MODELLED_WARP_SLOTS: u32 = 64;

/// Which loads a run perturbs (or which atomics it leaves out), and how many lane values
/// it perturbed (shared with the caller, who reads it after the run: 0 when no such load
/// ran).
#[derive(Debug, Clone)]
pub struct Perturb {
    pub space: Space,
    /// Loads, their values' bits flipped; or atomics, their updates left out (each lane
    /// still reads the word's old value).
    pub of: PerturbOf,
    /// Some sites' loads (`Instr::site`: one site's, or the timed sites' together, their
    /// executions counted as one), or every load of the space.
    pub sites: Option<Vec<u32>>,
    /// Only each warp's n-th execution of those loads (from 0, counted per warp of each
    /// block where some lane's load is in the space), or every execution. A loop whose
    /// passes all run one site, only the last pass's result kept, feeds the output from
    /// that pass alone: perturbing every pass at once cannot tell it from a loop whose
    /// every pass feeds.
    pub execution: Option<u32>,
    pub hits: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The most executions of the site any warp made (the n above runs below it).
    pub most: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Perturb {
    /// Whether an instruction at `site` is one this run perturbs.
    pub fn takes(&self, site: Option<u32>) -> bool {
        match &self.sites {
            None => true,
            Some(sites) => site.is_some_and(|s| sites.contains(&s)),
        }
    }

    /// Every execution of one site's loads from `space`.
    pub fn site(space: Space, site: u32) -> Perturb {
        Perturb::of(
            Perturbing {
                space,
                of: PerturbOf::Loads,
            },
            site,
        )
    }

    /// Every execution of one site's loads (or atomics) on a space.
    pub fn of(on: Perturbing, site: u32) -> Perturb {
        Perturb {
            space: on.space,
            of: on.of,
            sites: Some(vec![site]),
            execution: None,
            hits: Default::default(),
            most: Default::default(),
        }
    }
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
    /// The running block's rank in its cluster.
    pub rank: u32,
    /// Whether the running block is one of the traced.
    pub tracing: bool,
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
    /// The running block's `bar.red` so far: lanes whose predicate holds, whether all do,
    /// whether any does.
    pub reduce: (u32, bool, bool),
    /// Each block's, while another runs.
    pub reduces: Vec<(u32, bool, bool)>,
    /// Per block of the cluster (by rank), the barriers it has passed: what one thread did
    /// in an earlier one is ordered before what another does now (`CasInterference`).
    pub epochs: Vec<u64>,
    /// Per block of the cluster (by rank), threads arrived at each counted barrier
    /// (`bar.sync a, b` and `bar.arrive a, b`) and not yet let through.
    pub arrivals: Vec<[u32; BARRIERS]>,
    /// Per block of the cluster (by rank), its transaction barriers and bulk copies.
    pub(super) mbars: Vec<super::mbars::Mbars>,
    /// How many times each warp (by block and warp) has run the perturbed loads so far
    /// (`Perturb::execution`); empty in a run that perturbs nothing.
    pub(super) perturbed_runs: std::collections::HashMap<(u32, u32), u32>,
    /// How many times each warp has run the observed loads so far (`Seen::nth`); empty in
    /// a run that observes none.
    pub(super) observed_runs: std::collections::HashMap<(u32, u32), u32>,
    /// What each warp (by block and warp) has been held back by its delayed loads
    /// (`Launch::timed_delay`); empty in a run that delays none.
    pub(super) delayed: std::collections::HashMap<(u32, u32), u64>,
    /// The registers (by function and number) each warp's delayed loads fill and no
    /// instruction has used since (`TimedDelay`): the warp waits for them at the first
    /// that does.
    pub(super) pending_delays: std::collections::HashMap<(u32, u32), Vec<(usize, u32)>>,
}

impl BlockCtx<'_> {
    /// A warp step of `mask`'s lanes in a traced block, counted (`run`) or taken back,
    /// inside a called function's frame (`in_call`) or the kernel's own: the share of the
    /// work its functions do (`MemoryStats::call_work`).
    pub fn count_work(&mut self, mask: u32, in_call: bool, run: bool) {
        let Some(t) = self.trace.as_deref_mut().filter(|_| self.tracing) else {
            return;
        };
        let lanes = u64::from(mask.count_ones());
        let w = &mut t.stream.work;
        let add = |x: &mut u64| *x = if run { *x + lanes } else { *x - lanes };
        add(&mut w.thread_steps);
        if in_call {
            add(&mut w.in_calls);
        }
    }

    /// What a clock register reads: the block's warp steps from a GPU-sized start, times
    /// the launch's scale. A GPU's `%clock64` counts an SM's cycles since long before the
    /// launch; one that started at 0 would tell a kernel it runs here (a barrier kept only
    /// where the clock reads small), so it starts where an SM's would be. Differences, the
    /// only figures a clock makes, are the steps'.
    fn clock(&self, warp: u32) -> u64 {
        CLOCK_START
            .wrapping_add(self.steps + self.held_back(warp))
            .wrapping_mul(self.launch.clock_scale.max(1))
    }

    /// Where `ins` (in function `func`) uses a register a delayed load of `warp` fills and
    /// has not been waited for: the warp waits now, its clocks moved on by the load's delay.
    pub(super) fn wait_for_delayed(&mut self, func: usize, ins: &super::program::Instr, warp: u32) {
        let Some(d) = &self.launch.timed_delay else {
            return;
        };
        let key = (self.linear, warp);
        let Some(pending) = self.pending_delays.get_mut(&key).filter(|p| !p.is_empty()) else {
            return;
        };
        let mut used = Vec::new();
        for o in ins.src.iter().chain(&ins.dst) {
            super::slice::each(o, &mut |pred, r| {
                if !pred {
                    used.push(r);
                }
            });
        }
        let before = pending.len();
        pending.retain(|&(f, r)| f != func || !used.contains(&r));
        let waited = (before - pending.len()) as u64 * d.cycles;
        if waited > 0 {
            *self.delayed.entry(key).or_insert(0) += waited;
            d.total
                .fetch_add(waited, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// `warps` of this block leave a barrier together, which the last of them reached: each
    /// one's clocks after it have been held back by the most any of theirs were, as a GPU's
    /// warps wait at a barrier for the one its loads kept longest (`TimedDelay`).
    pub(super) fn leave_barrier_together(&mut self, warps: &[u32]) {
        if self.delayed.is_empty() {
            return;
        }
        let most = (warps.iter())
            .map(|&w| self.held_back(w))
            .max()
            .unwrap_or(0);
        if most == 0 {
            return;
        }
        for &w in warps {
            self.delayed.insert((self.linear, w), most);
        }
    }

    /// The cycles `warp`'s delayed loads have moved its clocks on by (`TimedDelay`).
    fn held_back(&self, warp: u32) -> u64 {
        self.delayed.get(&(self.linear, warp)).copied().unwrap_or(0)
    }

    /// Where this block is dealt (`Launch::deal`): its SM (`what` 0) or its first warp
    /// slot (`what` 1), before the modulus; in turn where the deal is 0.
    fn dealt(&self, what: u64) -> u64 {
        let linear = u64::from(self.linear);
        match (self.launch.deal, what) {
            (0, 0) => linear,
            (0, _) => 0,
            (deal, _) => {
                // splitmix64's finaliser over the deal, the block and what is asked.
                let mut z = deal ^ linear.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (what << 62);
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            }
        }
    }

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
            // A warp's slot on its SM, of the SM's warp slots (an H100's 64), as a GPU
            // says: not its place in the block, nor the block's warp count, which a kernel
            // could compare with what it knows to tell the interpreter from a GPU.
            Sreg::Warpid => {
                ((self.dealt(1) + u64::from(warp)) % u64::from(MODELLED_WARP_SLOTS)) as u32
            }
            Sreg::Nwarpid => MODELLED_WARP_SLOTS,
            // The modelled GPU's SMs (an H100's 132), the blocks dealt out over them
            // (`Launch::deal`): a kernel that asks how many SMs it has gets what a GPU
            // would tell it, not a figure that marks the interpreter.
            Sreg::Smid => (self.dealt(0) % u64::from(MODELLED_SMS)) as u32,
            Sreg::Nsmid => MODELLED_SMS,
            Sreg::Clock => self.clock(warp) as u32,
            Sreg::Clock64 => return self.clock(warp),
            // Nanoseconds since 1970, as a GPU's: one read as time since the launch
            // would tell a kernel it runs here.
            Sreg::Globaltimer => {
                let ns = (self.steps + self.held_back(warp)) * NS_PER_KILOCYCLE / 1000;
                return match self.launch.clock_scale {
                    0 => timer_start().wrapping_add(ns),
                    k => (EPOCH_NS.wrapping_add(ns)).wrapping_mul(k),
                };
            }
            Sreg::LanemaskEq => 1 << lane,
            Sreg::LanemaskLt => (1u32 << lane) - 1,
            Sreg::LanemaskLe => ((1u64 << (lane + 1)) - 1) as u32,
            Sreg::LanemaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
            Sreg::LanemaskGe => !((1u32 << lane) - 1),
            Sreg::DynSmem => self.launch.dyn_smem,
            Sreg::TotalSmem => self.shared_static + self.launch.dyn_smem,
            Sreg::ClusterCtarank => self.rank,
            Sreg::ClusterNctarank => self.launch.cluster.iter().product(),
            Sreg::Clusterid(d) => self.block[d as usize] / self.launch.cluster[d as usize],
            Sreg::Nclusterid(d) => self.launch.grid[d as usize] / self.launch.cluster[d as usize],
            Sreg::ClusterCtaid(d) => self.block[d as usize] % self.launch.cluster[d as usize],
            Sreg::ClusterNctaid(d) => self.launch.cluster[d as usize],
            Sreg::IsExplicitCluster => u32::from(self.launch.cluster != [1, 1, 1]),
        };
        u64::from(v)
    }

    pub fn error(&self, place: Place, warp: u32, why: String, lanes: u32) -> RunError {
        self.halt(place, warp, (why, Halt::Stopped), lanes)
    }

    /// An error of its kind (a GPU's fault, a limit) at `place`.
    pub fn halt(
        &self,
        place: Place,
        warp: u32,
        (why, halt): (String, Halt),
        lanes: u32,
    ) -> RunError {
        RunError {
            block: self.block,
            warp,
            lanes,
            place: Some(place),
            why,
            halt,
        }
    }

    fn push(&mut self, r: Record) {
        if !self.tracing {
            return;
        }
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
        let (Some(site), true) = (ins.site, self.trace.is_some() && self.tracing) else {
            return;
        };
        let mut groups: [(u32, [u64; 32]); 5] = [(0, [0; 32]); 5];
        for l in super::lanes::lanes(active) {
            let (g, a) = match ats[l] {
                At::Shared(a) => (0, a),
                At::Global(a) => (1, a),
                At::Local(a) => (2, a),
                At::Const(a) => (3, a),
                // As the GPU's logger names it: the target block's rank and the offset.
                At::Cluster(a) => {
                    let (rank, off) = super::mem::cluster_parts(a, self.rank);
                    (4, u64::from(rank) << 32 | off)
                }
                At::Param(_) => continue,
            };
            groups[g].0 |= 1 << l;
            groups[g].1[l] = a;
        }
        let spaces = [
            Space::Shared,
            Space::Global,
            Space::Local,
            Space::Constant,
            Space::Cluster,
        ];
        for (g, (mask, addrs)) in groups.into_iter().enumerate() {
            if mask != 0 {
                let (block, space) = (self.linear, spaces[g]);
                let rank = if g == 4 { self.rank } else { 0 };
                self.push(Record {
                    site,
                    block,
                    warp,
                    mask,
                    space,
                    width,
                    rank,
                    addrs,
                });
            }
        }
    }

    /// The record of a request to the one space its instruction names: each active
    /// lane's address as it is (`access_record` sorts generic ones by space).
    pub fn flat_record(
        &mut self,
        ins: &Instr,
        warp: u32,
        active: u32,
        space: Space,
        row: &[u64; 32],
        width: u32,
    ) {
        self.flat_record_at(ins.site, warp, active, space, row, width);
    }

    /// `flat_record` under a site of the caller's choosing: an instruction that makes two
    /// sites (a `cp.async`'s read and write) logs under each.
    pub fn flat_record_at(
        &mut self,
        site: Option<u32>,
        warp: u32,
        active: u32,
        space: Space,
        row: &[u64; 32],
        width: u32,
    ) {
        let (Some(site), true) = (site, self.trace.is_some() && self.tracing) else {
            return;
        };
        let addrs = super::lanes::row(|l| if active >> l & 1 == 1 { row[l] } else { 0 });
        self.push(Record {
            site,
            block: self.linear,
            warp,
            mask: active,
            space,
            width,
            rank: 0,
            addrs,
        });
    }

    pub fn barrier_record(&mut self, ins: &Instr, warp: u32, active: u32) {
        self.numbered_barrier_record(ins, warp, active, 0);
    }

    /// A block barrier's record: its lanes log the barrier's number, as the GPU tracer's do.
    pub fn numbered_barrier_record(&mut self, ins: &Instr, warp: u32, active: u32, id: u64) {
        if let (Some(site), true) = (ins.site, self.trace.is_some() && self.tracing) {
            let block = self.linear;
            let r = Record {
                site,
                block,
                warp,
                mask: active,
                space: Space::Shared,
                width: 0,
                rank: 0,
                addrs: super::lanes::row(|l| if active >> l & 1 == 1 { id } else { 0 }),
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

/// Named barriers a block has (`bar.sync 0` to `bar.sync 15`).
pub const BARRIERS: usize = 16;
