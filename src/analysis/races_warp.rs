//! Races between the lanes of one warp: a lane reads or writes a shared word that another
//! lane of its warp wrote (or read, for a write) with no `__syncwarp()` and no block
//! barrier between. Since Volta a warp's lanes are scheduled independently, so a warp is
//! not a unit of lockstep the code may lean on: racecheck reports these, and the CUDA
//! programming guide asks for `__syncwarp()` between the write and the read.
//!
//! Each lane keeps a vector clock over its warp's lanes: its own step count, and for every
//! other lane the last step of it that it has synchronised with. `bar.warp.sync` joins the
//! clocks of the lanes it names; a block barrier passed by every lane joins them all. An
//! access by lane `b` is ordered after an earlier one by lane `a` when `b`'s clock has seen
//! `a`'s step of that access. Per word the analysis keeps the last write and the reads since
//! (the latest per lane), FastTrack's way: a later write that follows the last write is
//! checked against that write, which is ordered after the reads before it or raced with them.
//!
//! Lanes of one request are one instruction, never a hazard with each other. An atomic is
//! no hazard with another atomic; it is a write to every plain access, and one with
//! release semantics is no hazard with a strong load or store either (a flag raised by
//! `atom.release`), but one without (CUDA's atomicExch, atomicAdd) orders nothing for a
//! load of another lane: a hazard with it. Strong loads and stores that are not
//! atomics (`.relaxed`, `.acquire`, `.release`) are a hazard with each other between lanes,
//! as plain ones are: PTX's model calls no such pair a data race, but nothing makes the
//! load see the store, so lanes that hand values over by `st.release` and `ld.acquire` with
//! no `__syncwarp()` read whatever the schedule left (a release orders what came before
//! the store only for a load that sees it). The one pattern this refuses that could be
//! right, a lane spinning on a flag another lane of its own warp raises, is one no lesson
//! teaches; between warps and blocks a polled flag is the handover, and is no race there
//! (`races`, `races_cluster`). An asynchronous
//! copy's shared write is a write at its issue and again at the wait that completes it:
//! another lane may read the bytes only after that wait and a `__syncwarp()`.

use super::race_events::{Op, SharedEvent};
use super::race_intervals::FastMap;
use crate::model::results::{Race, RaceKind, RaceScope};

/// One lane's access of a word.
#[derive(Clone, Copy)]
struct LaneTouch {
    lane: u8,
    /// The lane's own step when it made the access.
    step: u32,
    line: Option<u32>,
    bytes: u8,
    /// An atomic: no hazard with another atomic.
    atomic: bool,
    /// An atomic with release semantics: no hazard with a strong load or store either.
    released: bool,
    /// An atomic or a strong load or store.
    strong: bool,
}

#[derive(Default)]
struct WarpWord {
    write: Option<LaneTouch>,
    reads: Vec<LaneTouch>,
}

struct WarpState {
    /// `clock[l][m]`: the last step of lane `m` that lane `l` is ordered after.
    clock: Box<[[u32; 32]; 32]>,
    words: FastMap<u64, WarpWord>,
}

impl WarpState {
    fn new() -> WarpState {
        WarpState {
            clock: super::race_intervals::first_steps(),
            words: FastMap::default(),
        }
    }

    /// The lanes of `mask` meet: each is ordered after everything each of them did.
    fn join(&mut self, mask: u32) {
        let mut met = [0u32; 32];
        for l in lanes(mask) {
            for (m, v) in met.iter_mut().enumerate() {
                *v = (*v).max(self.clock[l][m]);
            }
        }
        for l in lanes(mask) {
            self.clock[l] = met;
            self.clock[l][l] += 1;
        }
        // Every lane met: no access before can race with one after, so none is kept.
        if mask == u32::MAX {
            self.words.clear();
        }
    }

    fn ordered(&self, later: usize, earlier: &LaneTouch) -> bool {
        self.clock[later][earlier.lane as usize] >= earlier.step
    }
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

/// The words (and the bytes of each) lane `l` of `e` touches.
fn lane_words(e: &SharedEvent, l: usize) -> impl Iterator<Item = (u64, u8)> {
    let a = e.addrs[l];
    let end = a + u64::from(e.width.max(1));
    (a / 4..end.div_ceil(4)).map(move |word| {
        let lo = a.max(word * 4) - word * 4;
        let hi = end.min(word * 4 + 4) - word * 4;
        (word, ((1u8 << hi) - 1) & !((1u8 << lo) - 1))
    })
}

/// The warp-scope analysis of every warp in a trace.
#[derive(Default)]
pub(super) struct WarpRaces {
    warps: FastMap<(u32, u32), WarpState>,
    met: Vec<Race>,
    /// By (block, warp): a `__syncwarp()` some of its member lanes have reached and wait at,
    /// its member mask and those lanes (`meeting`).
    waiting: FastMap<(u32, u32), (u32, u32)>,
}

impl WarpRaces {
    fn state(&mut self, block: u32, warp: u32) -> &mut WarpState {
        self.warps
            .entry((block, warp))
            .or_insert_with(WarpState::new)
    }

    /// `bar.warp.sync` by the lanes of `mask`.
    pub(super) fn sync(&mut self, block: u32, warp: u32, mask: u32) {
        self.state(block, warp).join(mask);
    }

    /// The lanes a `__syncwarp()` of `e`, of member mask `members`, meets: its own, and
    /// those of the mask that reached a sync of the same mask before it and wait there. On
    /// a GPU the lanes of a diverged warp reach it apart and log a record each (one spinning
    /// on a wait while the others go on to the sync), and are one meeting all the same:
    /// none of the lanes that arrived first moves on before the last. A record with no
    /// member mask logged (0, a recording's) meets its own lanes.
    pub(super) fn meeting(&mut self, e: &SharedEvent, members: u32) -> u32 {
        let key = (e.block, e.warp);
        if members & !e.mask == 0 {
            self.waiting.remove(&key);
            return e.mask;
        }
        let waiting = self.waiting.entry(key).or_insert((members, 0));
        // Lanes already waiting that arrive again had left the sync they waited at.
        if waiting.0 != members || waiting.1 & e.mask != 0 {
            *waiting = (members, 0);
        }
        waiting.1 |= e.mask;
        let met = waiting.1;
        if met & members == members {
            self.waiting.remove(&key);
        }
        met
    }

    /// Anything but a `__syncwarp()` by the lanes of `e`: a lane that waited at one and
    /// does this has left it (the sync completed, its other lanes having exited), and a
    /// later arrival meets no one there.
    pub(super) fn moved_on(&mut self, e: &SharedEvent) {
        let key = (e.block, e.warp);
        if self.waiting.get(&key).is_some_and(|w| w.1 & e.mask != 0) {
            self.waiting.remove(&key);
        }
    }

    /// Every lane of the warp has passed a block barrier.
    pub(super) fn barrier(&mut self, block: u32, warp: u32) {
        self.state(block, warp).join(u32::MAX);
    }

    /// A read, a write, an atomic or a copy's write by the active lanes of `e`.
    pub(super) fn access(&mut self, e: &SharedEvent) {
        let write = matches!(e.op, Op::Write | Op::CopyWrite | Op::Atomic);
        let strong = e.op == Op::Atomic || e.order.strong.is_some();
        let atomic = e.op == Op::Atomic;
        let released = atomic && e.order.release;
        let mut met = std::mem::take(&mut self.met);
        let st = self.state(e.block, e.warp);
        // Checked against what came before the request, then remembered: lanes of one
        // request are one instruction.
        let mut touched: Vec<(u64, LaneTouch)> = Vec::new();
        for l in lanes(e.mask) {
            let step = st.clock[l][l];
            for (word, bytes) in lane_words(e, l) {
                let me = LaneTouch {
                    lane: l as u8,
                    step,
                    line: e.line,
                    bytes,
                    atomic,
                    released,
                    strong,
                };
                if let Some(w) = st.words.get(&word) {
                    let races = |t: &LaneTouch| {
                        t.lane != me.lane
                            && t.bytes & bytes != 0
                            && !(t.atomic && atomic)
                            && !(t.strong && strong && (t.released || released))
                            && !st.ordered(l, t)
                    };
                    if let Some(t) = w.write.as_ref().filter(|t| races(t)) {
                        let kind = if write {
                            RaceKind::WriteWrite
                        } else {
                            RaceKind::WriteRead
                        };
                        tally(&mut met, e, word, (kind, t, &me));
                    }
                    if write && let Some(t) = w.reads.iter().find(|t| races(t)) {
                        tally(&mut met, e, word, (RaceKind::ReadWrite, t, &me));
                    }
                }
                touched.push((word, me));
            }
        }
        for (word, me) in touched {
            let w = st.words.entry(word).or_default();
            if write {
                w.write = Some(me);
                w.reads.clear();
            } else if let Some(r) = w.reads.iter_mut().find(|r| r.lane == me.lane) {
                *r = me;
            } else {
                w.reads.push(me);
            }
        }
        self.met = met;
    }

    /// The races met since the last call, each pair of lines once with its count.
    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, Race> {
        self.met.drain(..)
    }
}

/// Count one lane's access that met an earlier unordered one.
fn tally(
    met: &mut Vec<Race>,
    e: &SharedEvent,
    word: u64,
    (kind, first, second): (RaceKind, &LaneTouch, &LaneTouch),
) {
    let same = |r: &&mut Race| {
        r.kind == kind && r.first_line == first.line && r.second_line == second.line
    };
    match met.iter_mut().find(same) {
        Some(r) => r.count += 1,
        None => met.push(Race {
            scope: RaceScope::Warp,
            kind,
            first_line: first.line,
            second_line: second.line,
            block: e.block,
            offset: word * 4,
            first_warp: e.warp,
            second_warp: e.warp,
            count: 1,
            lanes: Some((u32::from(first.lane), u32::from(second.lane))),
            first_block: None,
            partial_barrier: None,
        }),
    }
}
