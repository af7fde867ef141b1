//! `mbarrier` phases as the race analysis reads them. A warp that arrives on a barrier of
//! its block's shared memory (an arrival that releases: not `.relaxed`) and then waits for
//! the phase to complete passes the barrier the phase's arrivals make: the block's where
//! the count `mbarrier.init` gave it holds every thread, else one that orders nothing here
//! (as `bar.sync id, threads`). A wait by lanes that did not arrive (a consumer of a bulk
//! copy's bytes) orders nothing for them; nor does one by lanes that wrote shared memory
//! between their arrival and the wait: the arrival released what came before it only, so
//! a tile stored after it is not ordered before the others' reads after the wait.
//!
//! A read between a lane's arrival and its wait is not released either: it is held, and
//! judged again after the wait, beside what the other warps do once the phase completes
//! (they may overwrite its word while it still reads).
//!
//! One lane may arrive for its warp: an arrival is cumulative, so it releases what the
//! lanes that met it at a `__syncwarp()` (or a block barrier) did before that meeting, and
//! those lanes' wait then acquires as its own does. A phase of as many arrivals as the
//! block has warps, each warp's arrival made by one lane, holds the block as one of an
//! arrival by every thread does.
//!
//! One lane may wait for its warp too: a `__syncwarp()` orders what its lanes did before
//! it, the acquire of a lane that waited among them, before what each does after. Lanes
//! armed on a barrier pass its phase at the first `__syncwarp()` that meets a lane of their
//! warp that waited on it since its arrival, as if they had waited there themselves.

use super::race_events::SharedEvent;
use super::race_intervals::FastMap;
use crate::model::access::{MBAR_FLAG, MBAR_HIGH_MASK};

/// Each block's barriers and the lanes that arrived on them.
#[derive(Default)]
pub(super) struct Mbarriers {
    /// By (block, shared offset): the arrivals a phase awaits.
    counts: FastMap<(u32, u64), u32>,
    /// By (block, warp, shared offset): the lanes that arrived (themselves or through a lane
    /// they met at a `__syncwarp()`) and have not yet waited, and how many lanes arrived.
    armed: FastMap<(u32, u32, u64), Armed>,
    /// By (block, warp): the lanes that met at its last `__syncwarp()` or block barrier and
    /// have not touched shared memory since: an arrival by one of them releases them all.
    synced: FastMap<(u32, u32), u32>,
    /// By (block, warp): the barriers it has lanes armed on.
    arrived_on: FastMap<(u32, u32), Vec<u64>>,
    /// By (block, warp, shared offset): the lanes that waited on it since they last arrived,
    /// whose acquire a `__syncwarp()` hands to the lanes it meets.
    waited: FastMap<(u32, u32, u64), u32>,
    /// By (block, warp): reads its armed lanes made after arriving, not yet waited for.
    held: FastMap<(u32, u32), Vec<SharedEvent>>,
    /// By (block, shared offset): its phases, as counted from what is logged.
    phases: FastMap<(u32, u64), Phases>,
}

/// A barrier's phases as the log tells them, in the order its records were written: the
/// arrivals and announced bytes of the phase in progress, and the phases completed. A bulk
/// copy's bytes are taken off when it is issued: the phase it completes on is the one in
/// progress then, which cannot complete before they land.
#[derive(Default, Clone, Copy)]
struct Phases {
    arrived: u64,
    tx: i64,
    completed: u64,
}

impl Phases {
    fn settle(&mut self, count: u32) {
        let count = u64::from(count);
        while count > 0 && self.arrived >= count && self.tx <= 0 {
            self.completed += 1;
            self.arrived -= count;
            self.tx = 0;
        }
    }
}

/// An arrival's record for one lane: the arrivals it makes and the bytes it announces.
fn arrival(a: u64) -> (u64, i64) {
    match a & MBAR_FLAG {
        0 => ((a >> 32).max(1), 0),
        _ => (1, (a >> 32 & MBAR_HIGH_MASK) as i64),
    }
}

/// The most reads a warp holds between an arrival and its wait: past them, later reads
/// are judged where they are only.
const HELD_MAX: usize = 64;

/// A warp's lanes armed on a barrier.
#[derive(Default, Clone, Copy)]
struct Armed {
    /// Those whose accesses so far an arrival released.
    lanes: u32,
    /// The arrivals the warp made: each arriving lane counts one.
    arrivals: u32,
}

/// The barrier a request names: its first active lane's address (an arrival logs its
/// count of arrivals above it).
fn at(e: &SharedEvent) -> u64 {
    e.addrs[e.mask.trailing_zeros().min(31) as usize] & 0xffff_ffff
}

impl Mbarriers {
    /// `mbarrier.init`: each lane's address is the count << 32 | the barrier's offset.
    pub(super) fn init(&mut self, e: &SharedEvent) {
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let a = e.addrs[l];
            self.counts
                .insert((e.block, a & 0xffff_ffff), (a >> 32) as u32);
            self.phases.remove(&(e.block, a & 0xffff_ffff));
        }
    }

    /// Any arrival (a relaxed one too) counted into its barrier's phase.
    pub(super) fn count_arrival(&mut self, e: &SharedEvent) {
        let bar = at(e);
        let count = self.counts.get(&(e.block, bar)).copied().unwrap_or(0);
        let p = self.phases.entry((e.block, bar)).or_default();
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let (n, tx) = arrival(e.addrs[l]);
            p.arrived += n;
            p.tx += tx;
            p.settle(count);
        }
    }

    /// A bulk copy of `bytes` issued in `block` to complete on the barrier at `bar`: the
    /// phase it completes on (the one in progress).
    pub(super) fn copy_issued(&mut self, block: u32, bar: u64, bytes: u64) -> u64 {
        let count = self.counts.get(&(block, bar)).copied().unwrap_or(0);
        let p = self.phases.entry((block, bar)).or_default();
        let phase = p.completed;
        p.tx -= bytes as i64;
        p.settle(count);
        phase
    }

    /// The phase a `.parity` wait of the lanes of `e` found complete: the latest completed
    /// one of its parity. None where the wait names no parity, or the log holds no such
    /// phase (arrivals it does not see: another block's, say), and the wait is then taken
    /// as ordering every phase so far.
    pub(super) fn waited_phase(&self, e: &SharedEvent) -> Option<u64> {
        let a = e.addrs[e.mask.trailing_zeros().min(31) as usize];
        if a & MBAR_FLAG == 0 {
            return None;
        }
        let parity = a >> 32 & 1;
        let done = self.phases.get(&(e.block, at(e)))?.completed;
        let last = done.checked_sub(1)?;
        match last & 1 == parity {
            true => Some(last),
            false => last.checked_sub(1),
        }
    }

    /// The lanes of `e` met at a `__syncwarp()` or a block barrier.
    pub(super) fn synced(&mut self, e: &SharedEvent) {
        self.synced.insert((e.block, e.warp), e.mask);
    }

    /// An arrival that releases the lanes' accesses before it, and those of the lanes they
    /// last met with.
    pub(super) fn arrive(&mut self, e: &SharedEvent) {
        let a = at(e);
        let met = self.synced.get(&(e.block, e.warp)).copied().unwrap_or(0);
        let released = match met & e.mask {
            0 => e.mask,
            _ => e.mask | met,
        };
        if let Some(w) = self.waited.get_mut(&(e.block, e.warp, a)) {
            *w &= !e.mask;
        }
        let armed = self.armed.entry((e.block, e.warp, a)).or_default();
        armed.lanes |= released;
        // Each lane's arrivals: the count it wrote (`arrive state, [addr], 2`), else one.
        armed.arrivals += (0..32)
            .filter(|l| e.mask >> l & 1 == 1)
            .map(|l| arrival(e.addrs[l]).0 as u32)
            .sum::<u32>();
        // The reads the lanes held came before this arrival, which releases them.
        if let Some(held) = self.held.get_mut(&(e.block, e.warp)) {
            held.iter_mut().for_each(|r| r.mask &= !released);
            held.retain(|r| r.mask != 0);
        }
        let on = self.arrived_on.entry((e.block, e.warp)).or_default();
        if !on.contains(&a) {
            on.push(a);
        }
    }

    /// An access of shared memory by the lanes of `e`: a later arrival by another lane does
    /// not release it (it was made after their meeting).
    pub(super) fn accessed(&mut self, e: &SharedEvent) {
        if let Some(met) = self.synced.get_mut(&(e.block, e.warp)) {
            *met &= !e.mask;
        }
    }

    /// A read by the lanes of `e`: those of them armed on a barrier hold it until their wait.
    pub(super) fn read(&mut self, e: &SharedEvent) {
        self.accessed(e);
        let Some(on) = self.arrived_on.get(&(e.block, e.warp)) else {
            return;
        };
        let armed = (on.iter())
            .filter_map(|a| self.armed.get(&(e.block, e.warp, *a)))
            .fold(0, |m, x| m | x.lanes);
        let held = self.held.entry((e.block, e.warp)).or_default();
        if armed & e.mask != 0 && held.len() < HELD_MAX {
            held.push(SharedEvent {
                mask: armed & e.mask,
                ..e.clone()
            });
        }
    }

    /// The reads the lanes of `e` held since their arrival, now that their wait ended it.
    pub(super) fn take_held(&mut self, e: &SharedEvent) -> Vec<SharedEvent> {
        let Some(held) = self.held.get_mut(&(e.block, e.warp)) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for r in held.iter_mut() {
            if r.mask & e.mask != 0 {
                out.push(SharedEvent {
                    mask: r.mask & e.mask,
                    ..r.clone()
                });
                r.mask &= !e.mask;
            }
        }
        held.retain(|r| r.mask != 0);
        out
    }

    /// A write of shared memory by the lanes of `e`: an arrival they made before it does
    /// not release it, so their wait orders nothing (they are no longer armed).
    pub(super) fn wrote(&mut self, e: &SharedEvent) {
        self.accessed(e);
        let Some(on) = self.arrived_on.get(&(e.block, e.warp)) else {
            return;
        };
        for a in on {
            if let Some(armed) = self.armed.get_mut(&(e.block, e.warp, *a)) {
                armed.lanes &= !e.mask;
            }
        }
    }

    /// A wait that found its phase complete for the lanes of `e`: those of them that
    /// arrived (no longer armed). None where none of them arrived.
    pub(super) fn wait(&mut self, e: &SharedEvent) -> Option<Phase> {
        let key = (e.block, e.warp, at(e));
        let phase = self.pass(key, e.mask)?;
        *self.waited.entry(key).or_default() |= phase.lanes;
        Some(phase)
    }

    /// The lanes of `e` met at a `__syncwarp()`: each barrier on which some of them are
    /// armed and another of them waited since arriving, with the phase its armed lanes
    /// pass there (the waiter's acquire is theirs now).
    pub(super) fn relayed(&mut self, e: &SharedEvent) -> Vec<(u64, Phase)> {
        let waited =
            |a: &u64| (self.waited.get(&(e.block, e.warp, *a))).is_some_and(|w| w & e.mask != 0);
        let on: Vec<u64> = (self.arrived_on.get(&(e.block, e.warp)).into_iter())
            .flatten()
            .copied()
            .filter(waited)
            .collect();
        (on.into_iter())
            .filter_map(|a| Some((a, self.pass((e.block, e.warp, a), e.mask)?)))
            .collect()
    }

    /// The lanes of `mask` armed on the barrier of `key` pass its phase (no longer armed).
    fn pass(&mut self, key: (u32, u32, u64), mask: u32) -> Option<Phase> {
        let armed = self.armed.get_mut(&key)?;
        let lanes = armed.lanes & mask;
        if lanes == 0 {
            // No lane of the warp armed any more: its count of arrivals is spent.
            if armed.lanes == 0 {
                armed.arrivals = 0;
            }
            return None;
        }
        armed.lanes &= !lanes;
        let arrivals = std::mem::take(&mut armed.arrivals).max(1);
        if armed.lanes != 0 {
            armed.arrivals = arrivals;
        }
        let count = self.counts.get(&(key.0, key.2)).copied().unwrap_or(0);
        Some(Phase {
            lanes,
            count,
            threads: count.saturating_mul(32) / arrivals,
        })
    }
}

/// A phase a wait found complete.
pub(super) struct Phase {
    /// The waiting lanes it orders.
    pub lanes: u32,
    /// The arrivals the barrier awaits (0 where no init was seen).
    pub count: u32,
    /// The threads of the block those arrivals stand for, where each warp arrives as the
    /// waiting warp did: a count of one arrival a warp, made by one lane, holds 32 threads
    /// a warp as a count of every thread does.
    pub threads: u32,
}
