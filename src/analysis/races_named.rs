//! Races between the warps of a block that meet at named barriers with a thread count:
//! `bar.sync id, threads` holding fewer than the block's warps. Two neighbouring warps that
//! meet at a barrier of their own order what they did before it ahead of what either does
//! after, and order nothing for the other warps; barrier intervals counted per warp (the
//! block analysis of `races`) cannot say that, since warps then pass different numbers of
//! barriers. So in a kernel with such barriers each warp keeps a vector clock over its
//! block's warps, as `races_warp` does over a warp's lanes.
//!
//! A barrier holding `threads` threads lets warps through `threads / 32` at a time, in the
//! order they arrive (the hardware counts a warp's arrival as 32 threads): the trace's order
//! is the arrival order of this run, so the k-th group of a barrier id is its arrivals
//! `k * g .. (k + 1) * g`. Which warps meet is the schedule's choice; a kernel that is right
//! only for some grouping is judged by the grouping this run made. A barrier that holds the
//! whole block (`__syncthreads()`, a counted one that holds every warp, a cluster barrier's
//! halves, an mbarrier whose phase awaits every thread) is passed by every warp once a
//! round: round k of it is each warp's k-th pass.
//!
//! A warp that arrives gives the group its clock and steps its own; it takes the group's
//! clock at its next event, by when (the trace being in the order things ran) every member
//! has arrived, since the barrier held it until then. An access of warp `u` at its own step
//! `s` is ordered before one of warp `v` when `v`'s clock has seen step `s` of `u`. Per word
//! the analysis keeps each warp's latest access of each kind and line. Two strong accesses
//! (atomics, `.relaxed`/`.acquire`/`.release` ones) are no hazard; any other pair with a
//! write in it is, as in the block analysis.

use super::race_events::{Op, SharedEvent};
use super::race_intervals::{FastMap, first_steps, request_words};
use crate::model::results::{Race, RaceKind, RaceScope};

/// Which barrier a warp arrives at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Meeting {
    /// A barrier every warp of the block passes: `bar.sync id` (the id), a cluster
    /// barrier's arrive or wait, an mbarrier (its shared offset).
    Whole(WholeKind, u64),
    /// `bar.sync id, threads` holding fewer than the block's warps: its id, and the warps
    /// of a group.
    Part { id: u64, warps: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum WholeKind {
    Bar,
    ClusterArrive,
    ClusterWait,
    Mbarrier,
}

/// One round or group of a barrier: the sync and its index.
type Group = (Meeting, u32);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Atomic,
}

/// A warp's latest access of a word of one kind, line and bytes.
#[derive(Clone, Copy)]
struct Touch {
    warp: u8,
    kind: Kind,
    strong: bool,
    bytes: u8,
    step: u32,
    line: Option<u32>,
}

struct BlockState {
    /// `clock[w][u]`: the last step of warp `u` that warp `w` is ordered after.
    clock: Box<[[u32; 32]; 32]>,
    /// The group each warp arrived at and has not yet taken the clock of.
    pending: [Option<Group>; 32],
    /// Each group's clock: the join of its members' clocks as they arrived.
    groups: FastMap<Group, [u32; 32]>,
    /// Arrivals at each partial barrier id so far.
    arrivals: FastMap<u64, u32>,
    /// Each warp's passes of each whole barrier, per lane (a warp that reaches one diverged
    /// logs it once per group of lanes, all of one round).
    rounds: FastMap<(u32, WholeKind, u64), [u32; 32]>,
    words: FastMap<u64, Vec<Touch>>,
}

impl BlockState {
    fn new() -> BlockState {
        BlockState {
            clock: first_steps(),
            pending: [None; 32],
            groups: FastMap::default(),
            arrivals: FastMap::default(),
            rounds: FastMap::default(),
            words: FastMap::default(),
        }
    }

    /// The warp takes the clock of the group it last arrived at: every member has arrived
    /// by now.
    fn settle(&mut self, warp: usize) {
        if let Some(g) = self.pending[warp].take()
            && let Some(join) = self.groups.get(&g)
        {
            for (have, seen) in self.clock[warp].iter_mut().zip(join) {
                *have = (*have).max(*seen);
            }
        }
    }
}

/// The analysis of every block of a kernel with named barriers.
#[derive(Default)]
pub(super) struct NamedRaces {
    blocks: FastMap<u32, BlockState>,
    request: Vec<(u64, u8, u32)>,
}

fn warp_of(e: &SharedEvent) -> usize {
    (e.warp % 32) as usize
}

impl NamedRaces {
    fn block(&mut self, b: u32) -> &mut BlockState {
        self.blocks.entry(b).or_insert_with(BlockState::new)
    }

    /// The lanes of `e` arrive at `meeting`.
    pub(super) fn arrive(&mut self, e: &SharedEvent, meeting: Meeting) {
        let w = warp_of(e);
        let s = self.block(e.block);
        s.settle(w);
        let index = match meeting {
            Meeting::Part { id, warps } => {
                let n = s.arrivals.entry(id).or_default();
                let index = *n / warps.max(1);
                *n += 1;
                index
            }
            Meeting::Whole(kind, id) => {
                let passed = s.rounds.entry((w as u32, kind, id)).or_default();
                let first = e.mask.trailing_zeros().min(31) as usize;
                let index = passed[first];
                for (l, p) in passed.iter_mut().enumerate() {
                    if e.mask >> l & 1 == 1 {
                        *p += 1;
                    }
                }
                index
            }
        };
        let group = (meeting, index);
        let mine = s.clock[w];
        let join = s.groups.entry(group).or_insert([0; 32]);
        for (j, m) in join.iter_mut().zip(mine) {
            *j = (*j).max(m);
        }
        s.clock[w][w] += 1;
        s.pending[w] = Some(group);
    }

    /// A read, write or atomic of the block's shared memory (a copy's write as a write):
    /// what it meets goes to `met`.
    pub(super) fn access(&mut self, e: &SharedEvent, met: &mut Vec<Race>) {
        let kind = match e.op {
            Op::Read => Kind::Read,
            Op::Write | Op::CopyWrite => Kind::Write,
            Op::Atomic => Kind::Atomic,
            _ => return,
        };
        let strong = e.order.strong.is_some() || kind == Kind::Atomic;
        let w = warp_of(e);
        request_words(e, &mut self.request);
        let s = self.blocks.entry(e.block).or_insert_with(BlockState::new);
        s.settle(w);
        let (clock, step) = (s.clock[w], s.clock[w][w]);
        for &(word, bytes, times) in &self.request {
            let touches = s.words.entry(word).or_default();
            // One access counts once per pair of lines, however many warps it met there.
            let mut counted: Vec<(RaceKind, Option<u32>)> = Vec::new();
            for t in touches.iter() {
                let unordered = t.warp as usize != w && t.step > clock[t.warp as usize];
                if !unordered || t.bytes & bytes == 0 || (strong && t.strong) {
                    continue;
                }
                let race = match (t.kind, kind) {
                    (Kind::Read, Kind::Read) => continue,
                    (_, Kind::Read) => RaceKind::WriteRead,
                    (Kind::Read, _) => RaceKind::ReadWrite,
                    _ => RaceKind::WriteWrite,
                };
                if counted.contains(&(race, t.line)) {
                    continue;
                }
                counted.push((race, t.line));
                let key = (race, t.line, e.line);
                match (met.iter_mut()).find(|r| {
                    r.scope == RaceScope::Block && (r.kind, r.first_line, r.second_line) == key
                }) {
                    Some(r) => r.count += u64::from(times),
                    None => met.push(Race {
                        scope: RaceScope::Block,
                        kind: race,
                        first_line: t.line,
                        second_line: e.line,
                        block: e.block,
                        offset: word * 4,
                        first_warp: u32::from(t.warp),
                        second_warp: e.warp,
                        count: u64::from(times),
                        lanes: None,
                        first_block: None,
                        partial_barrier: None,
                    }),
                }
            }
            let me = |t: &Touch| {
                t.warp as usize == w
                    && t.kind == kind
                    && t.strong == strong
                    && t.bytes == bytes
                    && t.line == e.line
            };
            match touches.iter_mut().find(|t| me(t)) {
                Some(t) => t.step = step,
                None => touches.push(Touch {
                    warp: w as u8,
                    kind,
                    strong,
                    bytes,
                    step,
                    line: e.line,
                }),
            }
        }
    }
}
