//! Shared-memory races, found in a trace with no profiler: a word of a block's shared memory
//! that one warp writes and another warp reads or writes within the same barrier interval.
//!
//! Each warp counts the barriers it has passed; its accesses between its k-th and (k+1)-th
//! barrier fall in interval k of its block. When every warp of a block passes the same
//! barriers (the `__syncthreads()` case), interval k is the same stretch of time for all of
//! them, so two accesses of one interval by two warps have no barrier between them, and
//! nothing orders them. A kernel whose warps meet at named barriers that hold only some of
//! them (`bar.sync id, threads`) passes different numbers of barriers per warp: there each
//! warp keeps a vector clock instead (`races_named`).
//!
//! The trace's order across warps is the order the accesses ran in on this run, so the kind
//! (write then read, read then write, write then write) says which came first here; on
//! another run it may be the other way round, which is the race. Accesses by one warp are
//! never a hazard with each other. An atomic update is a write to every plain access of
//! another warp (a read of the word it updates, a store to it, in either order), and no
//! hazard with another atomic: two warps' atomic additions to one counter in one interval
//! are what atomics are for.
//!
//! An asynchronous copy (`cp.async`) writes its shared bytes at some moment between its
//! issue and the `cp.async.wait_group`/`wait_all` of its thread that completes its group
//! (PTX's completion rule): so its write is in force, as a plain write, in every interval
//! from the one it is issued in to the one its wait falls in. It is pushed where it is
//! issued and again after every barrier its warp passes while it is pending; a copy never
//! waited for stays pending to the end. A read by another warp before the barrier that
//! follows the wait is a race; the issuing warp's own early read is none (one warp's
//! accesses are never a hazard with each other), but it reads the old bytes, which the
//! output check finds.

use std::collections::HashMap;

use super::race_intervals::{
    FastMap, Interval, Touches, UNWRITTEN, WordState, remember, request_words, warp_bit,
};
use super::races_bulk::BulkCopies;
pub use super::races_cluster::ClusterGeom;
use super::races_cluster::ClusterRaces;
use super::races_mbar::{Mbarriers, Phase};
use super::races_named::{Meeting, NamedRaces, WholeKind};
use super::races_warp::WarpRaces;
use crate::model::results::{PartialBarrier, Race, RaceKind, RaceScope};

pub use super::race_events::{Op, Order, Scope, SharedEvent};

/// A warp's copies not yet complete: those since its last commit, and its committed groups,
/// oldest first.
#[derive(Default)]
struct Pending {
    open: Vec<SharedEvent>,
    groups: std::collections::VecDeque<Vec<SharedEvent>>,
}

impl Pending {
    fn commit(&mut self) {
        // An empty commit still makes a group (PTX), which `wait_group` counts.
        self.groups.push_back(std::mem::take(&mut self.open));
    }

    fn all(&self) -> impl Iterator<Item = &SharedEvent> {
        self.groups.iter().flatten().chain(&self.open)
    }
}

type Key = (RaceScope, RaceKind, Option<u32>, Option<u32>);

/// Barriers each lane of a warp has passed, and the lanes seen at all. Counted per lane: a
/// warp that reaches a barrier diverged (lanes 8-31 straight on, lanes 0-7 after a branch
/// that stores a halo) logs it once per group, and only each group's own lanes pass it.
#[derive(Default, Clone, Copy)]
struct Lanes {
    passed: [u32; 32],
    seen: u32,
}

impl Lanes {
    /// The interval a request of `mask` falls in: its first active lane's.
    fn interval(&self, mask: u32) -> u32 {
        self.passed[mask.trailing_zeros().min(31) as usize]
    }

    /// The lanes of `mask` in the interval its first active lane is in, where others of
    /// them are in another (lanes that passed an mbarrier's wait beside lanes that did
    /// not): None where every lane of `mask` is in one interval.
    fn split(&self, mask: u32) -> Option<u32> {
        let first = self.interval(mask);
        let same = (0..32)
            .filter(|l| mask >> l & 1 == 1 && self.passed[*l as usize] == first)
            .fold(0u32, |m, l| m | 1 << l);
        (same != mask).then_some(same)
    }

    /// The interval every seen lane of the warp is past.
    fn all_past(&self) -> u32 {
        (0..32)
            .filter(|l| self.seen >> l & 1 == 1)
            .map(|l| self.passed[l])
            .min()
            .unwrap_or(0)
    }
}

/// Every hazard of the events, one per kind and pair of lines, the most frequent first.
pub fn find_races(events: &[SharedEvent]) -> Vec<Race> {
    find_races_in(events, None)
}

/// `find_races` of a launch whose blocks form clusters of `geom` (None: single blocks).
pub fn find_races_in(events: &[SharedEvent], geom: Option<ClusterGeom>) -> Vec<Race> {
    let arriving = arriving_warps(events);
    let named = events.iter().any(|e| match e.op {
        Op::CountedBarrier(threads) => threads < 32 * arriving.get(&e.block).copied().unwrap_or(0),
        _ => false,
    });
    let mut f = RaceFinder::new(Warps::Touched(warps_of_blocks(events)))
        .clustered(geom)
        .named(named);
    f.arriving = Some(arriving);
    events.iter().for_each(|e| f.push(e));
    f.finish()
}

/// The warps an interval waits for before it is dropped (no access can join it then).
pub enum Warps {
    /// Those of each block that touch shared memory, known beforehand (a whole trace).
    Touched(HashMap<u32, Vec<u32>>),
    /// All of a block's warps, `0..n` (a trace read as it is made). A warp that ends early
    /// keeps its intervals alive: more memory, the same races.
    All(u32),
}

/// The race analysis, fed one event at a time in the trace's order.
pub struct RaceFinder {
    warps: Warps,
    epochs: FastMap<(u32, u32), Lanes>,
    intervals: FastMap<(u32, u32), Interval>,
    found: HashMap<Key, Race>,
    request: Vec<(u64, u8, u32)>,
    met: Vec<Race>,
    /// Each (block, warp)'s asynchronous copies not yet complete.
    copies: FastMap<(u32, u32), Pending>,
    /// Between the lanes of each warp.
    lanes: WarpRaces,
    /// Between the blocks of each cluster, where blocks form clusters.
    cluster: Option<ClusterRaces>,
    /// A whole trace's warps of each block that log any event: those a counted barrier must
    /// hold to be the block's (a trace read as it is made knows `Warps::All` instead).
    arriving: Option<HashMap<u32, u32>>,
    /// Each block's first counted barrier that holds fewer than its warps, said beside its
    /// races.
    partial: FastMap<u32, PartialBarrier>,
    /// The (block, warp)s whose last cluster arrive was `.relaxed`, until their wait.
    relaxed: std::collections::HashSet<(u32, u32)>,
    /// Each block's mbarriers and the lanes that arrived on them.
    mbars: Mbarriers,
    /// Each block's bulk copies and the lanes their bytes have landed for.
    bulk: BulkCopies,
    /// In a kernel with barriers that hold some of a block's warps: the warps' vector
    /// clocks, which then judge the block's accesses in place of barrier intervals.
    named: Option<NamedRaces>,
}

impl RaceFinder {
    pub fn new(warps: Warps) -> RaceFinder {
        RaceFinder {
            warps,
            epochs: FastMap::default(),
            intervals: FastMap::default(),
            found: HashMap::new(),
            request: Vec::with_capacity(128),
            met: Vec::new(),
            copies: FastMap::default(),
            lanes: WarpRaces::default(),
            cluster: None,
            arriving: None,
            partial: FastMap::default(),
            relaxed: Default::default(),
            mbars: Mbarriers::default(),
            bulk: BulkCopies::default(),
            named: None,
        }
    }

    /// Follow barriers that hold some of a block's warps (`bar.sync id, threads`), which
    /// the kernel has: each group of warps that meets at one is ordered.
    pub fn named(mut self, named: bool) -> RaceFinder {
        self.named = named.then(NamedRaces::default);
        self
    }

    /// Whether `bar.sync id, threads` holds every warp of `block`: the hardware counts a
    /// warp's arrival as 32 threads, so a count of at least 32 per warp waits for them all.
    fn holds_block(&self, block: u32, threads: u32) -> bool {
        let warps = match (&self.arriving, &self.warps) {
            (Some(a), _) => a.get(&block).copied().unwrap_or(0),
            (None, Warps::All(n)) => *n,
            (None, Warps::Touched(w)) => w.get(&block).map_or(0, |w| w.len() as u32),
        };
        threads >= 32 * warps
    }

    /// Look for races between the blocks of each cluster of `geom` too.
    pub fn clustered(mut self, geom: Option<ClusterGeom>) -> RaceFinder {
        self.cluster = geom.map(ClusterRaces::new);
        self
    }

    fn racing(&self, block: u32) -> bool {
        match &self.warps {
            Warps::Touched(w) => w.get(&block).is_some_and(|w| w.len() > 1),
            Warps::All(n) => *n > 1,
        }
    }

    /// A barrier of `threads` threads passed by the lanes of `e`: the block's where it holds
    /// every warp, else one that orders nothing here, said beside the block's races.
    /// `mbarrier` is the count of arrivals where the barrier is an mbarrier's phase, which
    /// `threads` then stands for.
    fn counted(&mut self, e: &SharedEvent, threads: u32, mbarrier: Option<u32>) -> bool {
        let id = first_address(e);
        if self.holds_block(e.block, threads) {
            let whole = match mbarrier {
                Some(_) => Meeting::Whole(WholeKind::Mbarrier, id),
                None => Meeting::Whole(WholeKind::Bar, id),
            };
            let e = SharedEvent {
                op: Op::Barrier,
                ..e.clone()
            };
            self.block_barrier(&e, whole);
            return true;
        }
        // `bar.sync id, threads` is aligned: the whole warp executes it and its lanes meet
        // there, whichever warps it holds together (which the hardware's arrivals choose).
        if mbarrier.is_none() {
            self.lanes.sync(e.block, e.warp, e.mask);
            if let Some(n) = self.named.as_mut() {
                n.arrive(
                    e,
                    Meeting::Part {
                        id,
                        warps: threads / 32,
                    },
                );
            }
        }
        self.partial.entry(e.block).or_insert(PartialBarrier {
            line: e.line,
            threads: mbarrier.unwrap_or(threads),
            mbarrier: mbarrier.is_some(),
        });
        false
    }

    pub fn push(&mut self, e: &SharedEvent) {
        // Without clusters, a `shared::cluster` address names the block's own memory (the
        // cluster is the block): judged as any access of it is.
        if e.remote && self.cluster.is_none() {
            return self.push(&SharedEvent {
                remote: false,
                ..e.clone()
            });
        }
        if e.op != Op::WarpSync {
            self.lanes.moved_on(e);
        }
        if let Op::CountedBarrier(threads) = e.op {
            self.counted(e, threads, None);
            return;
        }
        let key = (e.block, e.warp);
        match e.op {
            Op::CountedBarrier(_) => {}
            Op::MbarInit => self.mbars.init(e),
            // A relaxed arrival releases none of the warp's accesses.
            Op::MbarArrive { relaxed } => {
                self.mbars.count_arrival(e);
                if !relaxed {
                    self.mbars.arrive(e);
                    let passed = self.epochs.get(&key).map_or([0; 32], |l| l.passed);
                    self.bulk
                        .arrived(e, first_address(e) & 0xffff_ffff, &passed);
                }
            }
            // A relaxed wait acquires nothing; it still ends the lanes' arrival.
            Op::MbarWait { relaxed } => {
                if !relaxed {
                    let interval = self.epochs.get(&key).map_or(0, |l| l.interval(e.mask));
                    let bar = (first_address(e) & 0xffff_ffff, self.mbars.waited_phase(e));
                    self.bulk.waited(e, bar, interval);
                }
                if let Some(phase) = self.mbars.wait(e).filter(|_| !relaxed) {
                    return self.phase_passed(e, phase);
                }
            }
            Op::CopyWrite => {
                self.copies.entry(key).or_default().open.push(e.clone());
                self.access(&SharedEvent {
                    op: Op::Write,
                    ..e.clone()
                });
                self.lanes.access(e);
            }
            Op::BulkWrite => {
                let mbars = &mut self.mbars;
                self.bulk
                    .issue(e, |bar, bytes| mbars.copy_issued(e.block, bar, bytes));
                self.overtaken(e);
            }
            Op::CopyCommit => self.copies.entry(key).or_default().commit(),
            Op::CopyWait { groups, all } => {
                let mut done = Vec::new();
                if let Some(p) = self.copies.get_mut(&key) {
                    if all {
                        p.commit();
                    }
                    while p.groups.len() > groups as usize {
                        done.extend(p.groups.pop_front().unwrap_or_default());
                    }
                }
                // The completed copies' bytes land now, for the lanes of the warp: another
                // lane may read them only after the wait and a `__syncwarp()`.
                done.iter().for_each(|c| self.lanes.access(c));
            }
            Op::Barrier => self.block_barrier(e, Meeting::Whole(WholeKind::Bar, first_address(e))),
            Op::ClusterArrive | Op::ClusterArriveRelaxed => {
                self.block_barrier(e, Meeting::Whole(WholeKind::ClusterArrive, 0))
            }
            Op::ClusterWait => self.block_barrier(e, Meeting::Whole(WholeKind::ClusterWait, 0)),
            Op::WarpSync => {
                let members = first_address(e) as u32;
                let met = SharedEvent {
                    mask: self.lanes.meeting(e, members),
                    ..e.clone()
                };
                // Lanes still waiting for the rest of their sync have met no one yet: an
                // arrival by a lane that has not reached it releases what they did since
                // their last meeting with it, as before they reached this one.
                if met.mask & members == members {
                    self.mbars.synced(&met);
                }
                self.bulk.synced(&met);
                self.lanes.sync(e.block, e.warp, met.mask);
                for (bar, phase) in self.mbars.relayed(&met) {
                    let on = SharedEvent {
                        addrs: [bar; 32],
                        ..met.clone()
                    };
                    self.phase_passed(&on, phase);
                }
            }
            Op::Read | Op::Write | Op::Atomic if e.remote => {}
            Op::Read | Op::Write | Op::Atomic => {
                match e.op {
                    Op::Read => self.mbars.read(e),
                    _ => self.mbars.wrote(e),
                }
                if self.bulk.holds(e.block) {
                    let passed = self.epochs.get(&key).map_or([0; 32], |l| l.passed);
                    self.bulk.access(e, &passed, &mut self.met);
                }
                self.access(e);
                self.lanes.access(e);
            }
        }
        if e.op.is_access()
            && let Some(c) = self.cluster.as_mut()
        {
            c.access(e);
            self.met.extend(c.drain());
        }
        self.met.extend(self.lanes.drain());
        merge(&mut self.found, &mut self.met);
    }

    /// A bulk copy issued by the lanes of `e`: it may land over what other warps read or
    /// wrote of its destination earlier in the interval it is issued in (nothing ordered
    /// those accesses before the issue), a race of the copy. Judged against what came
    /// before only: what comes after is `races_bulk`'s (the bytes land at the wait).
    fn overtaken(&mut self, e: &SharedEvent) {
        if !self.racing(e.block) || self.named.is_some() {
            return;
        }
        let dst = SharedEvent {
            op: Op::Write,
            addrs: e.addrs.map(|a| a & 0xffff_ffff),
            ..e.clone()
        };
        let lanes = self.epochs.entry((e.block, e.warp)).or_default();
        lanes.seen |= e.mask;
        let epoch = lanes.interval(e.mask);
        let Some(iv) = self.intervals.get_mut(&(e.block, epoch)) else {
            return;
        };
        if !iv.written {
            iv.written = true;
            iv.remember_unwritten(&mut self.request);
        }
        request_words(&dst, &mut self.request);
        let mut met = Vec::new();
        for &(word, bytes, _) in &self.request {
            check(iv.words.entry(word), &dst, word, bytes, 1, &mut met);
        }
        // Each earlier access the copy may land over, named as a race of the copy: its
        // line first, the access's second.
        self.met.extend(met.into_iter().map(|r| Race {
            scope: RaceScope::Copy,
            first_line: e.line,
            second_line: r.first_line,
            first_warp: e.warp,
            second_warp: r.first_warp,
            ..r
        }));
        merge(&mut self.found, &mut self.met);
    }

    /// The lanes of `phase` passed the phase of the mbarrier `e` names (waited on it, or met
    /// at a `__syncwarp()` a lane of their warp that had).
    fn phase_passed(&mut self, e: &SharedEvent, phase: Phase) {
        let passed = SharedEvent {
            mask: phase.lanes,
            ..e.clone()
        };
        let held = self.mbars.take_held(&passed);
        // Reads after the lanes' arrival may meet what the others do once the phase
        // completes: judged again in the interval the wait begins.
        if self.counted(&passed, phase.threads, Some(phase.count)) {
            held.iter().for_each(|r| self.access(r));
            merge(&mut self.found, &mut self.met);
        }
    }

    /// A barrier of the whole block (a cluster barrier's halves among them), `meeting` for the
    /// vector clocks where the kernel has named barriers.
    fn block_barrier(&mut self, e: &SharedEvent, meeting: Meeting) {
        let key = (e.block, e.warp);
        self.mbars.synced(e);
        if let Some(c) = self.cluster.as_mut() {
            match e.op {
                Op::ClusterArrive => c.arrive(e.block, e.warp, false),
                Op::ClusterArriveRelaxed => c.arrive(e.block, e.warp, true),
                Op::ClusterWait => c.wait(e.block, e.warp),
                _ => {}
            }
        }
        // A relaxed arrive orders the threads' progress, not their memory: the
        // warp's accesses before it are released to no thread, of its own block as
        // of the others, so neither it nor the wait that ends it parts them from
        // what any warp does after the wait.
        let relaxed = match e.op {
            Op::ClusterArriveRelaxed => {
                self.relaxed.insert(key);
                true
            }
            Op::ClusterWait => self.relaxed.remove(&key),
            _ => false,
        };
        if relaxed {
            return;
        }
        if self.barrier(e) {
            self.lanes.barrier(e.block, e.warp);
        }
        if let Some(n) = self.named.as_mut() {
            n.arrive(e, meeting);
        }
        if !self.racing(e.block) {
            return;
        }
        // The copies still pending may land in the interval the warp enters.
        let pending: Vec<SharedEvent> = (self.copies.get(&key).into_iter())
            .flat_map(Pending::all)
            .map(|c| SharedEvent {
                op: Op::Write,
                ..c.clone()
            })
            .collect();
        pending.iter().for_each(|c| self.access(c));
        self.met.extend(self.lanes.drain());
        merge(&mut self.found, &mut self.met);
    }

    /// A block barrier passed by the lanes of `e`: true when every lane of the warp seen so
    /// far has now passed it (the warp's lanes have all met).
    fn barrier(&mut self, e: &SharedEvent) -> bool {
        let lanes = self.epochs.entry((e.block, e.warp)).or_default();
        lanes.seen |= e.mask;
        let before = lanes.all_past();
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            lanes.passed[l] += 1;
        }
        if lanes.all_past() == before {
            return false;
        }
        let past = |w: u32| (self.epochs.get(&(e.block, w))).is_some_and(|k| k.all_past() > before);
        let done = match &self.warps {
            Warps::Touched(w) => w.get(&e.block).is_some_and(|w| w.iter().all(|&w| past(w))),
            Warps::All(n) => (0..*n).all(past),
        };
        if done {
            self.intervals.remove(&(e.block, before));
        }
        true
    }

    /// A read, a write or an atomic, checked against its interval and remembered there.
    fn access(&mut self, e: &SharedEvent) {
        if !self.racing(e.block) {
            return;
        }
        if let Some(n) = self.named.as_mut() {
            return n.access(e, &mut self.met);
        }
        let lanes = self.epochs.entry((e.block, e.warp)).or_default();
        lanes.seen |= e.mask;
        // Lanes of one request in different intervals are judged each in its own.
        if let Some(same) = lanes.split(e.mask) {
            let mut rest = e.clone();
            rest.mask &= !same;
            self.access(&SharedEvent {
                mask: same,
                ..e.clone()
            });
            return self.access(&rest);
        }
        let epoch = lanes.interval(e.mask);
        let iv = self.intervals.entry((e.block, epoch)).or_default();
        if e.op == Op::Read && !iv.written {
            // Nothing written yet, so nothing for it to race with: kept aside until a write
            // comes, which it may race with (most intervals of a tiled kernel only read).
            iv.unwritten.push(e.clone());
            if iv.unwritten.len() >= UNWRITTEN {
                iv.remember_unwritten(&mut self.request);
            }
            return;
        }
        if !iv.written {
            iv.written = true;
            iv.remember_unwritten(&mut self.request);
        }
        request_words(e, &mut self.request);
        for &(word, bytes, times) in &self.request {
            let state = iv.words.entry(word);
            check(state, e, word, bytes, times, &mut self.met);
            remember(state, e, bytes);
        }
    }

    pub fn finish(mut self) -> Vec<Race> {
        if let Some(c) = &self.cluster {
            self.met.extend(c.exits());
            merge(&mut self.found, &mut self.met);
        }
        let mut races: Vec<Race> = self.found.into_values().collect();
        for r in races.iter_mut().filter(|r| r.scope == RaceScope::Block) {
            r.partial_barrier = self.partial.get(&r.block).copied();
        }
        races.sort_by(|a, b| b.count.cmp(&a.count).then(key_of(a).cmp(&key_of(b))));
        races
    }
}

/// The address a request's first lane logs: a block barrier's number, an mbarrier's
/// shared offset.
fn first_address(e: &SharedEvent) -> u64 {
    e.addrs[e.mask.trailing_zeros().min(31) as usize]
}

/// How many warps of each block log any event (an access or a barrier): those a counted
/// barrier must hold to order the block.
fn arriving_warps(events: &[SharedEvent]) -> HashMap<u32, u32> {
    let mut warps: HashMap<u32, Vec<u32>> = HashMap::new();
    for e in events.iter().filter(|e| !e.remote) {
        let w = warps.entry(e.block).or_default();
        if !w.contains(&e.warp) {
            w.push(e.warp);
        }
    }
    warps
        .into_iter()
        .map(|(b, w)| (b, w.len() as u32))
        .collect()
}

/// The warps of each block that touched shared memory; only where there are two or more
/// can warps race.
fn warps_of_blocks(events: &[SharedEvent]) -> HashMap<u32, Vec<u32>> {
    let mut warps: HashMap<u32, Vec<u32>> = HashMap::new();
    // A bulk copy's issue counts: it is judged against what other warps did before it.
    let touches = |e: &&SharedEvent| (e.op.is_access() || e.op == Op::BulkWrite) && !e.remote;
    for e in events.iter().filter(touches) {
        let w = warps.entry(e.block).or_default();
        if !w.contains(&e.warp) {
            w.push(e.warp);
        }
    }
    warps
}

/// Compare an access with the earlier ones of its word and interval by other warps; what
/// it meets goes to `met`, the request's own tally, merged into the whole once a request.
fn check(
    state: &WordState,
    e: &SharedEvent,
    word: u64,
    bytes: u8,
    times: u32,
    met: &mut Vec<Race>,
) {
    // A strong access is no hazard with another strong one (the block is within every
    // scope): a strong load meets plain writes only, a strong store is as an atomic. But
    // two relaxed loads and stores (`Order::relaxed`) are nothing ordered either: a hazard;
    // and so is a load after an atomic with no release semantics (atomicExch, atomicAdd):
    // data left by atomics and read by `ld.relaxed` or `ld.acquire` with no barrier, or a
    // counter of them polled, orders nothing the other warps wrote.
    let strong = e.order.strong.is_some();
    let relaxed = e.order.relaxed() && e.op != Op::Atomic;
    let against: &[(&Touches, RaceKind)] = match e.op {
        Op::Read if relaxed => &[
            (&state.writes, RaceKind::WriteRead),
            (&state.relaxed_writes, RaceKind::WriteRead),
            (&state.relaxed_atomics, RaceKind::WriteRead),
        ],
        Op::Read if strong => &[
            (&state.writes, RaceKind::WriteRead),
            (&state.relaxed_atomics, RaceKind::WriteRead),
        ],
        Op::Read => &[
            (&state.writes, RaceKind::WriteRead),
            (&state.atomics, RaceKind::WriteRead),
            (&state.relaxed_atomics, RaceKind::WriteRead),
            (&state.relaxed_writes, RaceKind::WriteRead),
        ],
        Op::Write | Op::CopyWrite if !strong => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.atomics, RaceKind::WriteWrite),
            (&state.relaxed_atomics, RaceKind::WriteWrite),
            (&state.relaxed_writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
            (&state.strong_reads, RaceKind::ReadWrite),
            (&state.relaxed_reads, RaceKind::ReadWrite),
        ],
        Op::Atomic if !e.order.release => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
            (&state.strong_reads, RaceKind::ReadWrite),
            (&state.relaxed_reads, RaceKind::ReadWrite),
        ],
        Op::Write if relaxed => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.relaxed_writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
            (&state.relaxed_reads, RaceKind::ReadWrite),
        ],
        Op::Write | Op::CopyWrite | Op::Atomic => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
        ],
        Op::Barrier
        | Op::CountedBarrier(_)
        | Op::CopyCommit
        | Op::CopyWait { .. }
        | Op::WarpSync
        | Op::ClusterArrive
        | Op::ClusterArriveRelaxed
        | Op::ClusterWait
        | Op::MbarInit
        | Op::MbarArrive { .. }
        | Op::MbarWait { .. }
        // A bulk copy's bytes are judged apart (`races_bulk`), never in an interval.
        | Op::BulkWrite => &[],
    };
    // One access counts once per pair of lines, however many warps it met there.
    let me = warp_bit(e.warp);
    for &(touches, kind) in against {
        for t in touches.iter() {
            let others = (0..4)
                .filter(|b| bytes & (1 << b) != 0)
                .fold(0, |acc, b| acc | (t.warps[b] & !me));
            if others == 0 {
                continue;
            }
            let key = (RaceScope::Block, kind, t.line, e.line);
            match met.iter_mut().find(|r| key_of(r) == key) {
                Some(r) => r.count += u64::from(times),
                None => met.push(Race {
                    scope: RaceScope::Block,
                    kind,
                    first_line: t.line,
                    second_line: e.line,
                    block: e.block,
                    offset: word * 4,
                    first_warp: others.trailing_zeros(),
                    second_warp: e.warp,
                    count: u64::from(times),
                    lanes: None,
                    first_block: None,
                    partial_barrier: None,
                }),
            }
        }
    }
}

fn key_of(r: &Race) -> Key {
    (r.scope, r.kind, r.first_line, r.second_line)
}

/// Add a request's tally to the races found so far; the first example of each stays.
fn merge(found: &mut HashMap<Key, Race>, met: &mut Vec<Race>) {
    for r in met.drain(..) {
        found
            .entry(key_of(&r))
            .and_modify(|f| f.count += r.count)
            .or_insert(r);
    }
}

#[cfg(test)]
#[path = "races_tests.rs"]
mod tests;
