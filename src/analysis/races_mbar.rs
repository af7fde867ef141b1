//! `mbarrier` phases as the race analysis reads them. A warp that arrives on a barrier of
//! its block's shared memory (an arrival that releases: not `.relaxed`) and then waits for
//! the phase to complete passes the barrier the phase's arrivals make: the block's where
//! the count `mbarrier.init` gave it holds every thread, else one that orders nothing here
//! (as `bar.sync id, threads`). A wait by lanes that did not arrive (a consumer of a bulk
//! copy's bytes) orders nothing for them; nor does one by lanes that wrote shared memory
//! between their arrival and the wait: the arrival released what came before it only, so
//! a tile stored after it is not ordered before the others' reads after the wait.

use super::race_intervals::FastMap;
use super::races::SharedEvent;

/// Each block's barriers and the lanes that arrived on them.
#[derive(Default)]
pub(super) struct Mbarriers {
    /// By (block, shared offset): the arrivals a phase awaits.
    counts: FastMap<(u32, u64), u32>,
    /// By (block, warp, shared offset): the lanes that arrived and have not yet waited.
    armed: FastMap<(u32, u32, u64), u32>,
    /// By (block, warp): the barriers it has lanes armed on.
    arrived_on: FastMap<(u32, u32), Vec<u64>>,
}

/// The barrier a request names: its first active lane's address.
fn at(e: &SharedEvent) -> u64 {
    e.addrs[e.mask.trailing_zeros().min(31) as usize]
}

impl Mbarriers {
    /// `mbarrier.init`: each lane's address is the count << 32 | the barrier's offset.
    pub(super) fn init(&mut self, e: &SharedEvent) {
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let a = e.addrs[l];
            self.counts
                .insert((e.block, a & 0xffff_ffff), (a >> 32) as u32);
        }
    }

    /// An arrival that releases the lanes' accesses before it.
    pub(super) fn arrive(&mut self, e: &SharedEvent) {
        let a = at(e);
        *self.armed.entry((e.block, e.warp, a)).or_default() |= e.mask;
        let on = self.arrived_on.entry((e.block, e.warp)).or_default();
        if !on.contains(&a) {
            on.push(a);
        }
    }

    /// A write of shared memory by the lanes of `e`: an arrival they made before it does
    /// not release it, so their wait orders nothing (they are no longer armed).
    pub(super) fn wrote(&mut self, e: &SharedEvent) {
        let Some(on) = self.arrived_on.get(&(e.block, e.warp)) else {
            return;
        };
        for a in on {
            if let Some(lanes) = self.armed.get_mut(&(e.block, e.warp, *a)) {
                *lanes &= !e.mask;
            }
        }
    }

    /// A wait that found its phase complete for the lanes of `e`: those of them that
    /// arrived (no longer armed), and the arrivals the barrier awaits (0 where no init was
    /// seen). None where none of them arrived.
    pub(super) fn wait(&mut self, e: &SharedEvent) -> Option<(u32, u32)> {
        let a = at(e);
        let armed = self.armed.get_mut(&(e.block, e.warp, a))?;
        let lanes = *armed & e.mask;
        *armed &= !lanes;
        let threads = self.counts.get(&(e.block, a)).copied().unwrap_or(0);
        (lanes != 0).then_some((lanes, threads))
    }
}
